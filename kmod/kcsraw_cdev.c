// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_cdev.c - /dev/kcsrawN: submit, complete, cancel, policy, info.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/compat.h>
#include <linux/ipmi_msgdefs.h>
#include "kcsraw_compat.h"
#include "kcsraw_priv.h"

/* The ABI is the same for 32- and 64-bit callers. */
static_assert(sizeof(struct kcsraw_policy) == 24);
static_assert(sizeof(struct kcsraw_submit) == 320);
static_assert(sizeof(struct kcsraw_cost) == 64);
static_assert(sizeof(struct kcsraw_completion) == 368);
static_assert(sizeof(struct kcsraw_stats) == 136);
static_assert(sizeof(struct kcsraw_info) == 200);
static_assert(sizeof(struct kcsraw_attn) == 16);

/* queue_depth is runtime-writable; 0 would refuse everything. */
static unsigned int kcsraw_depth(void)
{
	return max(READ_ONCE(kcsraw_queue_depth), 1U);
}

static struct kcsraw_iface *kcsraw_file_iface(struct file *filp)
{
	struct kcsraw_file *f = filp->private_data;

	return f->iface;
}

static int kcsraw_open(struct inode *inode, struct file *filp)
{
	struct miscdevice *misc = filp->private_data;
	struct kcsraw_iface *ifc = container_of(misc, struct kcsraw_iface, misc);
	struct kcsraw_file *f;
	unsigned long flags;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->iface = ifc;
	INIT_LIST_HEAD(&f->done);
	init_waitqueue_head(&f->wq);
	spin_lock_irqsave(&ifc->lock, flags);
	list_add_tail(&f->node, &ifc->files);
	spin_unlock_irqrestore(&ifc->lock, flags);
	filp->private_data = f;
	return stream_open(inode, filp);
}

static int kcsraw_release(struct inode *inode, struct file *filp)
{
	struct kcsraw_file *f = filp->private_data;
	struct kcsraw_iface *ifc = f->iface;
	struct kcsraw_req *req, *tmp;
	unsigned long flags;
	LIST_HEAD(dead);

	spin_lock_irqsave(&ifc->lock, flags);
	list_del(&f->node);
	list_for_each_entry_safe(req, tmp, &ifc->queue, node) {
		if (req->file == f)
			list_move_tail(&req->node, &dead);
	}
	/* In flight: let it finish; the poller frees it. */
	if (ifc->cur && ifc->cur->file == f)
		ifc->cur->file = NULL;
	list_splice_init(&f->done, &dead);
	spin_unlock_irqrestore(&ifc->lock, flags);

	list_for_each_entry_safe(req, tmp, &dead, node)
		kfree(req);
	kcsraw_relay_release(f);
	kfree(f);
	return 0;
}

/*
 * While the kernel's flags machine owns the BMC's asynchronous traffic
 * (smi_async), the requests that would race it or take its messages are
 * refused with the errno ipmi_msghandler gives its users for them
 * (-EINVAL, i_ipmi_req_sysintf), and Clear Message Flags too.
 */
static bool kcsraw_async_refuses(struct kcsraw_iface *ifc, const u8 *req)
{
	if (!READ_ONCE(ifc->smi_async) || req[0] >> 2 != IPMI_NETFN_APP_REQUEST)
		return false;
	switch (req[1]) {
	case IPMI_SEND_MSG_CMD:
	case IPMI_GET_MSG_CMD:
	case IPMI_READ_EVENT_MSG_BUFFER_CMD:
	case IPMI_CLEAR_MSG_FLAGS_CMD:
		return true;
	default:
		return false;
	}
}

static int kcsraw_submit(struct kcsraw_file *f, void __user *arg)
{
	struct kcsraw_iface *ifc = f->iface;
	struct kcsraw_submit *sub;
	struct kcsraw_req *req;
	unsigned long flags;
	int ret;

	sub = kmalloc(sizeof(*sub), GFP_KERNEL);
	if (!sub)
		return -ENOMEM;
	if (copy_from_user(sub, arg, sizeof(*sub))) {
		ret = -EFAULT;
		goto out;
	}
	ret = -EINVAL;
	if (sub->size != sizeof(*sub) || sub->flags ||
	    sub->pad[0] || sub->pad[1] || sub->pad[2])
		goto out;
	if (sub->req_len > KCSRAW_MAX_MSG) {
		ret = -EMSGSIZE;
		goto out;
	}
	if (sub->req_len < 2)
		goto out;
	if (kcsraw_async_refuses(ifc, sub->req))
		goto out;
	if (!(sub->policy.flags & KCSRAW_POL_DEFAULT)) {
		ret = kcsraw_policy_check(&sub->policy);
		if (ret)
			goto out;
	}

	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req) {
		ret = -ENOMEM;
		goto out;
	}
	req->file = f;
	req->cookie = sub->cookie;
	req->req_len = sub->req_len;
	memcpy(req->req, sub->req, sub->req_len);
	if (sub->policy.flags & KCSRAW_POL_DEFAULT) {
		kcsraw_default_policy(ifc, &req->pol);
	} else {
		req->pol = sub->policy;
		req->pol.poll_max_us = max(req->pol.poll_max_us, req->pol.poll_us);
	}
	req->comp.size = sizeof(req->comp);
	req->comp.cookie = sub->cookie;

	spin_lock_irqsave(&ifc->lock, flags);
	if (f->outstanding >= kcsraw_depth()) {
		spin_unlock_irqrestore(&ifc->lock, flags);
		kfree(req);
		ret = -EAGAIN;
		goto out;
	}
	f->outstanding++;
	spin_unlock_irqrestore(&ifc->lock, flags);
	kcsraw_queue(ifc, req);
	ret = 0;
out:
	kfree(sub);
	return ret;
}

/* Take the oldest completion of @f, or NULL. */
static struct kcsraw_req *kcsraw_take(struct kcsraw_file *f)
{
	struct kcsraw_iface *ifc = f->iface;
	struct kcsraw_req *req;
	unsigned long flags;

	spin_lock_irqsave(&ifc->lock, flags);
	req = list_first_entry_or_null(&f->done, struct kcsraw_req, node);
	if (req) {
		list_del_init(&req->node);
		f->outstanding--;
	}
	spin_unlock_irqrestore(&ifc->lock, flags);
	return req;
}

/* Put a completion back at the head when the copy to the user failed. */
static void kcsraw_untake(struct kcsraw_file *f, struct kcsraw_req *req)
{
	struct kcsraw_iface *ifc = f->iface;
	unsigned long flags;

	spin_lock_irqsave(&ifc->lock, flags);
	list_add(&req->node, &f->done);
	f->outstanding++;
	spin_unlock_irqrestore(&ifc->lock, flags);
}

static bool kcsraw_has_done(struct kcsraw_file *f)
{
	return !list_empty_careful(&f->done);
}

static ssize_t kcsraw_read(struct file *filp, char __user *buf, size_t count,
			   loff_t *ppos)
{
	struct kcsraw_file *f = filp->private_data;
	struct kcsraw_req *req;
	size_t done = 0;
	int ret;

	if (count < sizeof(struct kcsraw_completion))
		return -EINVAL;
	while (done + sizeof(struct kcsraw_completion) <= count) {
		req = kcsraw_take(f);
		if (!req) {
			if (done)
				break;
			if (filp->f_flags & O_NONBLOCK)
				return -EAGAIN;
			ret = wait_event_interruptible(f->wq, kcsraw_has_done(f));
			if (ret)
				return ret;
			continue;
		}
		if (copy_to_user(buf + done, &req->comp, sizeof(req->comp))) {
			kcsraw_untake(f, req);
			return done ? done : -EFAULT;
		}
		kfree(req);
		done += sizeof(struct kcsraw_completion);
	}
	return done;
}

static int kcsraw_receive(struct kcsraw_file *f, void __user *arg)
{
	struct kcsraw_req *req = kcsraw_take(f);

	if (!req)
		return -EAGAIN;
	if (copy_to_user(arg, &req->comp, sizeof(req->comp))) {
		kcsraw_untake(f, req);
		return -EFAULT;
	}
	kfree(req);
	return 0;
}

static int kcsraw_cancel(struct kcsraw_file *f, void __user *arg)
{
	struct kcsraw_iface *ifc = f->iface;
	struct kcsraw_req *req, *found = NULL;
	unsigned long flags;
	u64 cookie;
	int ret = -ENOENT;

	if (copy_from_user(&cookie, arg, sizeof(cookie)))
		return -EFAULT;

	spin_lock_irqsave(&ifc->lock, flags);
	list_for_each_entry(req, &ifc->queue, node) {
		if (req->file == f && req->cookie == cookie) {
			found = req;
			break;
		}
	}
	if (found) {
		list_del_init(&found->node);
		found->comp.status = -ECANCELED;
		found->comp.cost.latency_ns =
			ktime_to_ns(ktime_sub(ktime_get(), found->submitted));
		found->comp.cost.queue_ns = found->comp.cost.latency_ns;
		kcsraw_complete_locked(ifc, found);
		ret = 0;
	} else if (ifc->cur && ifc->cur->file == f &&
		   ifc->cur->cookie == cookie) {
		WRITE_ONCE(ifc->cur->cancel, true);
		wake_up_process(ifc->thread);
		ret = 0;
	} else {
		list_for_each_entry(req, &f->done, node) {
			if (req->cookie == cookie) {
				ret = -EALREADY;
				break;
			}
		}
	}
	spin_unlock_irqrestore(&ifc->lock, flags);
	return ret;
}

static void kcsraw_fill_stats(struct kcsraw_iface *ifc, struct kcsraw_stats *st)
{
	unsigned long flags;

	spin_lock_irqsave(&ifc->lock, flags);
	*st = ifc->stats;
	spin_unlock_irqrestore(&ifc->lock, flags);
	st->timeouts = READ_ONCE(ifc->sm.stats.timeouts);
	st->irqs = READ_ONCE(ifc->irqs);
	st->poller_runtime_ns = kcsraw_poller_runtime(ifc);
}

void kcsraw_get_stats(struct kcsraw_iface *ifc, struct kcsraw_stats *st)
{
	kcsraw_fill_stats(ifc, st);
}

static int kcsraw_info(struct kcsraw_file *f, void __user *arg)
{
	struct kcsraw_iface *ifc = f->iface;
	struct kcsraw_info info;

	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	info.version = KCSRAW_UAPI_VERSION;
	info.index = ifc->index;
	info.flags = (ifc->irq ? KCSRAW_INFO_IRQ : 0) |
		     (ifc->from_dmi ? KCSRAW_INFO_DMI : 0) |
		     (READ_ONCE(ifc->intf) ? KCSRAW_INFO_SMI : 0) |
		     (READ_ONCE(ifc->smi_async) ? KCSRAW_INFO_ASYNC : 0) |
		     (READ_ONCE(ifc->intf) ? KCSRAW_INFO_RELAY : 0) |
		     (READ_ONCE(ifc->bmc) != KCSRAW_BMC_UP ||
		      !READ_ONCE(ifc->bmc_setup) ? KCSRAW_INFO_NOBMC : 0);
	info.data_port = ifc->base;
	info.status_port = ifc->base + ifc->spacing;
	info.regspacing = ifc->spacing;
	info.irq = ifc->irq;
	info.queue_depth = kcsraw_depth();
	info.poller_pid = ifc->thread ? task_pid_nr(ifc->thread) : 0;
	kcsraw_default_policy(ifc, &info.policy);
	kcsraw_fill_stats(ifc, &info.stats);
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static int kcsraw_set_policy(struct kcsraw_file *f, void __user *arg)
{
	struct kcsraw_iface *ifc = f->iface;
	struct kcsraw_policy p;
	unsigned long flags;
	int ret;

	if (copy_from_user(&p, arg, sizeof(p)))
		return -EFAULT;
	if (p.flags & KCSRAW_POL_DEFAULT) {
		spin_lock_irqsave(&ifc->lock, flags);
		ifc->has_policy = false;
		spin_unlock_irqrestore(&ifc->lock, flags);
		return 0;
	}
	ret = kcsraw_policy_check(&p);
	if (ret)
		return ret;
	p.poll_max_us = max(p.poll_max_us, p.poll_us);
	spin_lock_irqsave(&ifc->lock, flags);
	ifc->policy = p;
	ifc->has_policy = true;
	spin_unlock_irqrestore(&ifc->lock, flags);
	return 0;
}

static int kcsraw_attn(struct kcsraw_file *f, void __user *arg)
{
	struct kcsraw_iface *ifc = f->iface;
	struct kcsraw_attn a;
	unsigned long flags;

	memset(&a, 0, sizeof(a));
	spin_lock_irqsave(&ifc->lock, flags);
	a.pending = f->attn;
	a.count = ifc->stats.attn;
	f->attn = false;
	spin_unlock_irqrestore(&ifc->lock, flags);
	return copy_to_user(arg, &a, sizeof(a)) ? -EFAULT : 0;
}

static long kcsraw_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct kcsraw_file *f = filp->private_data;
	void __user *uarg = (void __user *)arg;
	struct kcsraw_policy p;

	switch (cmd) {
	case KCSRAW_IOC_SUBMIT:
		return kcsraw_submit(f, uarg);
	case KCSRAW_IOC_RECEIVE:
		return kcsraw_receive(f, uarg);
	case KCSRAW_IOC_CANCEL:
		return kcsraw_cancel(f, uarg);
	case KCSRAW_IOC_GET_POLICY:
		kcsraw_default_policy(f->iface, &p);
		return copy_to_user(uarg, &p, sizeof(p)) ? -EFAULT : 0;
	case KCSRAW_IOC_SET_POLICY:
		return kcsraw_set_policy(f, uarg);
	case KCSRAW_IOC_INFO:
		return kcsraw_info(f, uarg);
	case KCSRAW_IOC_ATTN:
		return kcsraw_attn(f, uarg);
	case KCSRAW_IOC_RELAY_BIND:
	case KCSRAW_IOC_RELAY_SEND:
	case KCSRAW_IOC_RELAY_RECV:
	case KCSRAW_IOC_RELAY_CMD:
		return kcsraw_relay_ioctl(f, cmd, uarg);
	default:
		return -ENOTTY;
	}
}

static __poll_t kcsraw_poll(struct file *filp, poll_table *wait)
{
	struct kcsraw_file *f = filp->private_data;
	struct kcsraw_iface *ifc = kcsraw_file_iface(filp);
	unsigned long flags;
	__poll_t mask = 0;

	poll_wait(filp, &f->wq, wait);
	spin_lock_irqsave(&ifc->lock, flags);
	if (!list_empty(&f->done))
		mask |= EPOLLIN | EPOLLRDNORM;
	/*
	 * POLLIN too, so event loops that cannot wait for POLLPRI (libevent
	 * 2.1's epoll backend) wake up; KCSRAW_IOC_ATTN clears it.
	 */
	if (f->attn)
		mask |= EPOLLPRI | EPOLLIN | EPOLLRDNORM;
	if (f->outstanding < kcsraw_depth())
		mask |= EPOLLOUT | EPOLLWRNORM;
	spin_unlock_irqrestore(&ifc->lock, flags);
	/* the relay's file: a message the handler delivered */
	if (kcsraw_relay_has(f))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

static const struct file_operations kcsraw_fops = {
	.owner = THIS_MODULE,
	.open = kcsraw_open,
	.release = kcsraw_release,
	.read = kcsraw_read,
	.poll = kcsraw_poll,
	.unlocked_ioctl = kcsraw_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = KCSRAW_NO_LLSEEK,
};

int kcsraw_cdev_register(struct kcsraw_iface *ifc)
{
	int ret;

	ifc->misc.minor = MISC_DYNAMIC_MINOR;
	ifc->misc.name = ifc->name;
	ifc->misc.fops = &kcsraw_fops;
	ifc->misc.mode = 0600;
	ifc->misc.groups = kcsraw_groups;
	ret = misc_register(&ifc->misc);
	if (ret)
		return ret;
	ifc->misc_registered = true;
	return 0;
}

void kcsraw_cdev_unregister(struct kcsraw_iface *ifc)
{
	if (!ifc->misc_registered)
		return;
	misc_deregister(&ifc->misc);
	ifc->misc_registered = false;
}
