// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_poll.c - the per-interface poller thread.
 *
 * One kernel thread per interface owns the KCS state machine and runs one
 * transaction at a time (kcsraw_run.c), each with its own policy: the
 * kernel's lane first, then the message flags machine, then the FIFO;
 * idle, it watches SMS_ATN. A request submitted to an idle interface may
 * start in its submitter's context (kcsraw_hand.c); the interrupt is
 * kcsraw_irq.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/poll.h>
#include <linux/sched/task.h>
#include <linux/sched.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/printk.h>
#include "kcsraw_priv.h"
#include "kcsraw_poll.h"
#include "kcsraw_compat.h"

/* The idle SMS_ATN check while the message handler watches. */
#define KCSRAW_WATCH_MS		10U

void kcsraw_default_policy(struct kcsraw_iface *ifc, struct kcsraw_policy *p)
{
	unsigned long flags;

	spin_lock_irqsave(&ifc->lock, flags);
	if (ifc->has_policy) {
		*p = ifc->policy;
		spin_unlock_irqrestore(&ifc->lock, flags);
		return;
	}
	spin_unlock_irqrestore(&ifc->lock, flags);

	memset(p, 0, sizeof(*p));
	p->max_busy_us = READ_ONCE(kcsraw_def_max_busy_us);
	p->poll_us = max(READ_ONCE(kcsraw_def_poll_us), 1U);
	p->poll_max_us = max(READ_ONCE(kcsraw_def_poll_max_us), p->poll_us);
	p->backoff = READ_ONCE(kcsraw_def_backoff) == KCSRAW_BACKOFF_EXP ?
		     KCSRAW_BACKOFF_EXP : KCSRAW_BACKOFF_FIXED;
	p->flags = READ_ONCE(kcsraw_def_use_irq) ? KCSRAW_POL_IRQ : 0;
}

/* Validate a policy from userspace that is not KCSRAW_POL_DEFAULT. */
int kcsraw_policy_check(const struct kcsraw_policy *p)
{
	if (p->flags & ~KCSRAW_POL_FLAGS)
		return -EINVAL;
	if (p->reserved)
		return -EINVAL;
	if (p->backoff != KCSRAW_BACKOFF_FIXED &&
	    p->backoff != KCSRAW_BACKOFF_EXP)
		return -EINVAL;
	if (!p->poll_us)
		return -EINVAL;
	return 0;
}

/*
 * Wake the poller, saying why: a sleep that ends counts its wake-up by
 * that cause (kcsraw_sleep()).
 */
void kcsraw_wake(struct kcsraw_iface *ifc, enum kcsraw_why why)
{
	atomic_or(BIT(why), &ifc->wake_why);
	wake_up_process(ifc->thread);
}

u64 kcsraw_poller_runtime(struct kcsraw_iface *ifc)
{
	return ifc->thread ? READ_ONCE(ifc->thread->se.sum_exec_runtime) : 0;
}

/* Count @req's outcome and cost into the interface totals. */
void kcsraw_account(struct kcsraw_iface *ifc, struct kcsraw_req *req)
{
	struct kcsraw_completion *comp = &req->comp;
	struct kcsraw_stats *st = &ifc->stats;

	lockdep_assert_held(&ifc->lock);
	st->transactions++;
	if (comp->status || (comp->flags & (KCSRAW_DONE_HOSED | KCSRAW_DONE_SYNTH)))
		st->errors++;
	if (comp->flags & KCSRAW_DONE_HOSED)
		st->hosed++;
	if (comp->status == -ECANCELED)
		st->cancelled++;
	st->spin_ns += comp->cost.spin_ns;
	st->cpu_ns += comp->cost.cpu_ns;
	st->sleeps += comp->cost.sleeps;
	st->timer_wakeups += comp->cost.timer_wakeups;
	st->irq_wakeups += comp->cost.irq_wakeups;
	st->retries += comp->cost.retries;
	st->latency_sum_ns += comp->cost.latency_ns;
	st->latency_max_ns = max(st->latency_max_ns, comp->cost.latency_ns);
	st->queue_sum_ns += comp->cost.queue_ns;
}

/* Complete @req: hand it to its file, its internal waiter, or free it. */
void kcsraw_complete_locked(struct kcsraw_iface *ifc, struct kcsraw_req *req)
{
	struct kcsraw_file *f = req->file;

	lockdep_assert_held(&ifc->lock);
	if (ifc->cur == req)
		ifc->cur = NULL;
	kcsraw_account(ifc, req);
	if (req->internal) {
		complete(&req->done);
	} else if (f) {
		list_add_tail(&req->node, &f->done);
		wake_up_interruptible_poll(&f->wq, EPOLLIN | EPOLLRDNORM);
	} else {
		kfree(req);
	}
}

/* A FIFO request's run is over: complete it (poller thread). */
static void kcsraw_fifo_done(struct kcsraw_iface *ifc, struct kcsraw_req *req)
{
	unsigned long flags;

	spin_lock_irqsave(&ifc->lock, flags);
	/*
	 * A cancel on another CPU may have found the request in flight
	 * (and returned 0) after the transaction's last step: it still
	 * completes as cancelled, as KCSRAW_IOC_CANCEL promises; the
	 * answer is dropped.
	 */
	if (req->cancel && !req->comp.status) {
		req->comp.status = -ECANCELED;
		req->comp.resp_len = 0;
		req->comp.flags = 0;
	}
	kcsraw_complete_locked(ifc, req);
	spin_unlock_irqrestore(&ifc->lock, flags);
}

/*
 * The idle sleep: atn_poll_ms, or at most KCSRAW_WATCH_MS while the
 * message handler waits for something the flags bring (set_need_watch).
 */
static unsigned int kcsraw_idle_ms(struct kcsraw_iface *ifc)
{
	unsigned int ms = READ_ONCE(kcsraw_atn_poll_ms);

	if (!READ_ONCE(ifc->smi_async) || !READ_ONCE(ifc->smi_watch))
		return ms;
	return ms ? min(ms, KCSRAW_WATCH_MS) : KCSRAW_WATCH_MS;
}

/*
 * Idle: look at SMS_ATN and tell every open file when it is up, or, with
 * the kernel's flags machine, kick it.
 */
static void kcsraw_idle_check(struct kcsraw_iface *ifc)
{
	struct kcsraw_file *f;
	struct kcsraw_run run;
	enum kcs_result r;
	unsigned long flags;

	memset(&run, 0, sizeof(run));
	run.now = ktime_get();
	run.acct = run.now;
	run.idle = true;
	if (READ_ONCE(ifc->smi_waiting) || !kcsraw_run_own(ifc, &run))
		return;
	atomic_set(&ifc->irq_pending, 0);
	r = kcsraw_step(ifc, &run);
	if (r == KCS_CALL_AGAIN || r == KCS_WAIT) {
		kcsraw_drain(ifc, &run);
		return;
	}
	if (r != KCS_ATTN)
		return;
	spin_lock_irqsave(&ifc->lock, flags);
	ifc->stats.attn++;
	/* The kernel's flags machine owns it: the files are not told. */
	if (READ_ONCE(ifc->smi_async)) {
		spin_unlock_irqrestore(&ifc->lock, flags);
		kcsraw_flags_atn(ifc, kcsraw_idle_ms(ifc) ?: KCSRAW_WATCH_MS);
		return;
	}
	/*
	 * Wake with every bit kcsraw_poll() then reports: epoll ignores a
	 * wake-up whose key shares no bit with the events it waits for, and
	 * event loops (libevent's epoll backend) wait for EPOLLIN only.
	 */
	list_for_each_entry(f, &ifc->files, node) {
		f->attn = true;
		wake_up_interruptible_poll(&f->wq,
					   EPOLLPRI | EPOLLIN | EPOLLRDNORM);
	}
	spin_unlock_irqrestore(&ifc->lock, flags);
}

static int kcsraw_thread(void *data)
{
	struct kcsraw_iface *ifc = data;
	enum kcsraw_wake w = KCSRAW_WAKE_NONE, last;
	struct kcsraw_req *req;
	unsigned long flags;
	unsigned int ms;
	bool busy, irq;
	u32 gen = 0;

	while (!kthread_should_stop()) {
		last = w;
		w = KCSRAW_WAKE_NONE;
		/* poll() drives the machine: it gives it back when idle. */
		if (READ_ONCE(ifc->poll_owned)) {
			kcsraw_sleep(ifc, NSEC_PER_MSEC, false, NULL, false);
			continue;
		}
		/* A request a submitter started has the machine. */
		req = kcsraw_hand_take(ifc, last, &busy, &irq);
		if (req) {
			kcsraw_hand_resume(ifc, req, last);
			kcsraw_fifo_done(ifc, req);
			cond_resched();
			continue;
		}
		/* Started: the kick, the kick timer or the IRQ ends it. */
		if (busy)
			goto sleep;
		/* The kernel's lane first, then the FIFO. */
		req = kcsraw_smi_pick(ifc, &gen);
		if (req) {
			kcsraw_run_req(ifc, req, gen);
			spin_lock_irqsave(&ifc->lock, flags);
			kcsraw_account(ifc, req);
			spin_unlock_irqrestore(&ifc->lock, flags);
			kcsraw_smi_done(ifc, req, gen);
			cond_resched();
			continue;
		}
		/* Then the message flags machine, then the FIFO. */
		if (kcsraw_flags_step(ifc)) {
			cond_resched();
			continue;
		}
		/* Under load the idle check below never comes. */
		if (READ_ONCE(ifc->smi_async))
			kcsraw_idle_check(ifc);
		spin_lock_irqsave(&ifc->lock, flags);
		req = NULL;
		if (!ifc->cur) {
			req = list_first_entry_or_null(&ifc->queue,
						       struct kcsraw_req, node);
			if (req) {
				list_del_init(&req->node);
				ifc->cur = req;
			}
		}
		spin_unlock_irqrestore(&ifc->lock, flags);

		if (req) {
			kcsraw_run_req(ifc, req, 0);
			kcsraw_fifo_done(ifc, req);
			cond_resched();
			continue;
		}

		if (!READ_ONCE(ifc->smi_async))
			kcsraw_idle_check(ifc);
		if (READ_ONCE(ifc->flg_kick)) {
			cond_resched();
			continue;
		}
sleep:
		ms = kcsraw_idle_ms(ifc);
		w = kcsraw_sleep(ifc, ms ? (u64)ms * NSEC_PER_MSEC : KTIME_MAX,
				 irq, NULL, true);
	}
	/* Stopping: a started request is aborted and completes. */
	req = kcsraw_hand_take(ifc, KCSRAW_WAKE_NONE, &busy, &irq);
	if (req) {
		kcsraw_hand_resume(ifc, req, KCSRAW_WAKE_NONE);
		kcsraw_fifo_done(ifc, req);
	}
	return 0;
}

/* A transaction of the module's own, with the default policy. */
int kcsraw_xfer_sync(struct kcsraw_iface *ifc, const u8 *msg,
		     unsigned int len, u8 *resp, unsigned int *resp_len)
{
	struct kcsraw_req *req;
	int ret = 0;

	if (len < 2 || len > KCSRAW_MAX_MSG)
		return -EINVAL;
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	req->internal = true;
	init_completion(&req->done);
	kcsraw_default_policy(ifc, &req->pol);
	memcpy(req->req, msg, len);
	req->req_len = len;
	kcsraw_queue(ifc, req);
	/* The state machine's timeouts bound this wait. */
	wait_for_completion(&req->done);

	if (req->comp.status)
		ret = req->comp.status;
	else if (req->comp.flags & KCSRAW_DONE_HOSED)
		ret = -EIO;
	*resp_len = min_t(unsigned int, req->comp.resp_len, *resp_len);
	memcpy(resp, req->comp.resp, *resp_len);
	kfree(req);
	return ret;
}

int kcsraw_poller_start(struct kcsraw_iface *ifc, const struct cpumask *cpus,
			int nice)
{
	struct task_struct *t;

	ifc->hand = kzalloc(sizeof(*ifc->hand), GFP_KERNEL);
	if (!ifc->hand)
		return -ENOMEM;
	kcsraw_hrtimer_setup(&ifc->kick_timer, kcsraw_kick_fn);
	t = kthread_create(kcsraw_thread, ifc, "%s", ifc->name);
	if (IS_ERR(t)) {
		kfree(ifc->hand);
		ifc->hand = NULL;
		return PTR_ERR(t);
	}
	set_user_nice(t, nice);
	if (cpus)
		set_cpus_allowed_ptr(t, cpus);
	get_task_struct(t);
	ifc->thread = t;
	wake_up_process(t);
	return 0;
}

void kcsraw_poller_stop(struct kcsraw_iface *ifc)
{
	struct kcsraw_req *req, *tmp;
	unsigned long flags;

	if (!ifc->thread)
		return;
	kthread_stop(ifc->thread);
	hrtimer_cancel(&ifc->kick_timer);
	/*
	 * The thread's last sleep cleared irq_wait: a handler that read it
	 * set before may still be on its way to wake the thread.
	 */
	if (ifc->irq)
		synchronize_irq(ifc->irq);
	put_task_struct(ifc->thread);
	ifc->thread = NULL;
	kfree(ifc->hand);
	ifc->hand = NULL;

	/* Nothing runs them any more: complete what is still queued. */
	spin_lock_irqsave(&ifc->lock, flags);
	list_for_each_entry_safe(req, tmp, &ifc->queue, node) {
		list_del_init(&req->node);
		req->comp.status = -ECANCELED;
		kcsraw_complete_locked(ifc, req);
	}
	spin_unlock_irqrestore(&ifc->lock, flags);
}
