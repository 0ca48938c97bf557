// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_relay.c - the relay: with smi=1 the interface's asynchronous
 * traffic (IPMB and LAN answers, events, incoming commands) belongs to
 * ipmi_msghandler. One open file of /dev/kcsrawN (kcsmuxd's) binds
 * itself: kcsraw creates a kernel user of its own interface for it, with
 * events on, sends the file's requests through that user as ipmi_devintf
 * would, and queues what the handler delivers to the user for the file
 * to take. So the daemon needs no stock /dev/ipmiN on the interface, and
 * no device outside its nodes reaches the BMC from user space.
 *
 * The handler's delivery callback may run with its locks held: it only
 * queues (a spinlock, a wake-up). Everything else runs in the ioctl's
 * process context; the user ends in release.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/ipmi.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "kcsraw_priv.h"

static_assert(sizeof(struct kcsraw_relay_req) == 344);
static_assert(sizeof(struct kcsraw_relay_msg) == 352);
static_assert(sizeof(struct kcsraw_relay_cmd) == 16);
static_assert(sizeof(struct ipmi_addr) == KCSRAW_RELAY_ADDR_MAX);

/* Messages queued for the file at most; more are dropped and counted. */
#define KCSRAW_RELAY_QUEUE	512
/* Interface numbers searched for kcsraw's own. */
#define KCSRAW_RELAY_IFNUMS	64

struct kcsraw_relay {
	struct kcsraw_file *file;
	struct ipmi_user *user;
	spinlock_t lock;		/* msgs, count, dropped */
	struct list_head msgs;		/* struct ipmi_recv_msg, by link */
	unsigned int count;
	u32 dropped;
};

/* Who is bound, per interface (one at a time). */
static DEFINE_MUTEX(kcsraw_relay_mutex);

static void kcsraw_relay_recv(struct ipmi_recv_msg *msg, void *data)
{
	struct kcsraw_relay *r = data;
	unsigned long flags;
	bool drop;

	spin_lock_irqsave(&r->lock, flags);
	drop = r->count >= KCSRAW_RELAY_QUEUE;
	if (drop) {
		r->dropped++;
	} else {
		list_add_tail(&msg->link, &r->msgs);
		r->count++;
	}
	spin_unlock_irqrestore(&r->lock, flags);
	if (drop)
		ipmi_free_recv_msg(msg);
	else
		wake_up_interruptible(&r->file->wq);
}

static const struct ipmi_user_hndl kcsraw_relay_hndl = {
	.ipmi_recv_hndl = kcsraw_relay_recv,
};

/* The message handler's number for this interface: its device is ours. */
static int kcsraw_relay_ifnum(struct kcsraw_iface *ifc)
{
	struct ipmi_smi_info info;
	int i;

	for (i = 0; i < KCSRAW_RELAY_IFNUMS; i++) {
		bool mine;

		memset(&info, 0, sizeof(info));
		if (ipmi_get_smi_info(i, &info))
			continue;
		mine = ifc->pdev && info.dev == &ifc->pdev->dev;
		put_device(info.dev);
		if (mine)
			return i;
	}
	return -ENXIO;
}

bool kcsraw_relay_has(struct kcsraw_file *f)
{
	struct kcsraw_relay *r = f->relay;
	bool has;

	if (!r)
		return false;
	spin_lock_irq(&r->lock);
	has = !list_empty(&r->msgs);
	spin_unlock_irq(&r->lock);
	return has;
}

static int kcsraw_relay_bind(struct kcsraw_file *f)
{
	struct kcsraw_iface *ifc = f->iface;
	struct kcsraw_relay *r;
	int ifnum, ret;

	mutex_lock(&kcsraw_relay_mutex);
	ret = -EBUSY;
	if (f->relay || ifc->relay_bound)
		goto out;
	ret = -ENXIO;
	if (!READ_ONCE(ifc->intf))
		goto out;
	ifnum = kcsraw_relay_ifnum(ifc);
	if (ifnum < 0)
		goto out;
	ret = -ENOMEM;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		goto out;
	spin_lock_init(&r->lock);
	INIT_LIST_HEAD(&r->msgs);
	r->file = f;
	ret = ipmi_create_user(ifnum, &kcsraw_relay_hndl, r, &r->user);
	if (ret) {
		kfree(r);
		goto out;
	}
	ret = ipmi_set_gets_events(r->user, true);
	if (ret) {
		ipmi_destroy_user(r->user);
		kfree(r);
		goto out;
	}
	f->relay = r;
	ifc->relay_bound = true;
	pr_info("%s: relay bound (ipmi interface %d, pid %d)\n", ifc->name,
		ifnum, task_pid_nr(current));
out:
	mutex_unlock(&kcsraw_relay_mutex);
	return ret;
}

/* Release: the user ends (nothing is delivered after), the queue goes. */
void kcsraw_relay_release(struct kcsraw_file *f)
{
	struct kcsraw_relay *r = f->relay;
	struct ipmi_recv_msg *msg, *tmp;

	if (!r)
		return;
	ipmi_destroy_user(r->user);
	list_for_each_entry_safe(msg, tmp, &r->msgs, link) {
		list_del(&msg->link);
		ipmi_free_recv_msg(msg);
	}
	mutex_lock(&kcsraw_relay_mutex);
	f->relay = NULL;
	f->iface->relay_bound = false;
	mutex_unlock(&kcsraw_relay_mutex);
	kfree(r);
}

static int kcsraw_relay_send(struct kcsraw_relay *r, void __user *arg)
{
	struct kcsraw_relay_req *q;
	struct kernel_ipmi_msg msg;
	struct ipmi_addr addr;
	int ret;

	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(q, arg, sizeof(*q)))
		goto out;
	ret = -EINVAL;
	if (q->size != sizeof(*q) || q->pad || !q->addr_len ||
	    q->addr_len > sizeof(addr))
		goto out;
	ret = -EMSGSIZE;
	if (q->data_len > KCSRAW_MAX_MSG)
		goto out;
	memset(&addr, 0, sizeof(addr));
	memcpy(&addr, q->addr, q->addr_len);
	/* as ipmi_devintf checks a SEND's address */
	ret = ipmi_validate_addr(&addr, q->addr_len);
	if (ret)
		goto out;
	msg.netfn = q->netfn;
	msg.cmd = q->cmd;
	msg.data = q->data;
	msg.data_len = q->data_len;
	ret = ipmi_request_settime(r->user, &addr, (long)q->msgid, &msg, NULL,
				   0, q->retries, q->retry_ms);
out:
	kfree(q);
	return ret;
}

static int kcsraw_relay_take(struct kcsraw_relay *r, void __user *arg)
{
	struct ipmi_recv_msg *msg;
	struct kcsraw_relay_msg *m;
	unsigned int alen;
	u32 dropped;
	int ret = 0;

	spin_lock_irq(&r->lock);
	msg = list_first_entry_or_null(&r->msgs, struct ipmi_recv_msg, link);
	if (msg) {
		list_del(&msg->link);
		r->count--;
	}
	dropped = r->dropped;
	r->dropped = 0;
	spin_unlock_irq(&r->lock);
	if (!msg) {
		spin_lock_irq(&r->lock);
		r->dropped += dropped;
		spin_unlock_irq(&r->lock);
		return -EAGAIN;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		ret = -ENOMEM;
		goto putback;
	}
	alen = ipmi_addr_length(msg->addr.addr_type);
	m->size = sizeof(*m);
	m->recv_type = msg->recv_type;
	m->addr_len = min_t(unsigned int, alen, sizeof(m->addr));
	memcpy(m->addr, &msg->addr, m->addr_len);
	m->dropped = dropped;
	m->msgid = msg->msgid;
	m->netfn = msg->msg.netfn;
	m->cmd = msg->msg.cmd;
	m->data_len = min_t(unsigned int, msg->msg.data_len, KCSRAW_MAX_MSG);
	memcpy(m->data, msg->msg.data, m->data_len);
	if (copy_to_user(arg, m, sizeof(*m))) {
		kfree(m);
		ret = -EFAULT;
		goto putback;
	}
	kfree(m);
	ipmi_free_recv_msg(msg);
	return 0;
putback:
	spin_lock_irq(&r->lock);
	list_add(&msg->link, &r->msgs);
	r->count++;
	r->dropped += dropped;
	spin_unlock_irq(&r->lock);
	return ret;
}

static int kcsraw_relay_cmd(struct kcsraw_relay *r, void __user *arg)
{
	struct kcsraw_relay_cmd c;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	if (c.reserved || c.on > 1)
		return -EINVAL;
	if (c.on)
		return ipmi_register_for_cmd(r->user, c.netfn, c.cmd, c.chans);
	return ipmi_unregister_for_cmd(r->user, c.netfn, c.cmd, c.chans);
}

long kcsraw_relay_ioctl(struct kcsraw_file *f, unsigned int cmd,
			void __user *arg)
{
	if (cmd == KCSRAW_IOC_RELAY_BIND)
		return kcsraw_relay_bind(f);
	if (!f->relay)
		return -EINVAL;
	switch (cmd) {
	case KCSRAW_IOC_RELAY_SEND:
		return kcsraw_relay_send(f->relay, arg);
	case KCSRAW_IOC_RELAY_RECV:
		return kcsraw_relay_take(f->relay, arg);
	case KCSRAW_IOC_RELAY_CMD:
		return kcsraw_relay_cmd(f->relay, arg);
	default:
		return -ENOTTY;
	}
}
