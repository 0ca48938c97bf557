// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_hand.c - a request started in its submitter's context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/hrtimer.h>
#include <linux/minmax.h>
#include "kcsraw_priv.h"
#include "kcsraw_poll.h"

/*
 * A request submitted to an idle interface starts in the
 * submitter's context, as ipmi_si's sender does, instead of waking the
 * thread for it. The submitter writes the request's first bytes (all of
 * them when the BMC takes them at once, as QEMU's KCS does; at most
 * KCSRAW_HAND_STEPS steps, never sleeping or spinning: sm_lock is held
 * per step only) and stops at the first wait. Only for a policy that does
 * not busy-wait (kcsraw_hand_begin). The thread then runs the transaction
 * on from the end of the wait's first sleep, which the submitter arms:
 * the kick timer, and with
 * an IRQ policy the interrupt, the timer being its fallback. The thread
 * sleeps through it in its idle sleep: the submission costs no wake-up.
 * The submitter's time counts into the transaction's CPU and polls.
 */
enum hrtimer_restart kcsraw_kick_fn(struct hrtimer *t)
{
	struct kcsraw_iface *ifc = container_of(t, struct kcsraw_iface,
						 kick_timer);

	WRITE_ONCE(ifc->kick_timed, true);
	WRITE_ONCE(ifc->kick, true);
	kcsraw_wake(ifc, KCSRAW_WHY_TIMER);
	return HRTIMER_NORESTART;
}

/*
 * Under ifc->lock: may the submitter of @req start it? Then it is cur.
 * Not for a policy that busy-waits: its poller is woken at once anyway,
 * so no wake-up is saved, and the busy window was not kept across the
 * hand-over (spin reported 1590-2032 us for a 500 us window).
 */
static bool kcsraw_hand_begin(struct kcsraw_iface *ifc, struct kcsraw_req *req)
{
	lockdep_assert_held(&ifc->lock);
	if (!READ_ONCE(kcsraw_submit_start) || req->pol.max_busy_us ||
	    !ifc->hand || ifc->cur ||
	    ifc->hand_state != KCSRAW_HAND_NONE || !list_empty(&ifc->queue))
		return false;
	ifc->cur = req;
	WRITE_ONCE(ifc->hand_state, KCSRAW_HAND_START);
	return true;
}

/*
 * The submitter's part. False when the machine was not free after all
 * (the kernel's lane or poll() has it): @req is then queued as usual.
 */
static bool kcsraw_hand_run(struct kcsraw_iface *ifc, struct kcsraw_req *req)
{
	struct kcsraw_run *run = ifc->hand;
	struct kcsraw_cost *c = &req->comp.cost;
	enum kcs_result r = KCS_CALL_AGAIN;
	unsigned long flags;
	unsigned int i;
	u64 ns = 0;

	WRITE_ONCE(ifc->irq_mute, true);
	if (kcsraw_run_start(ifc, req, run, 0, true) == -EBUSY) {
		WRITE_ONCE(ifc->irq_mute, false);
		return false;
	}
	for (i = 0; i < KCSRAW_HAND_STEPS && !run->stolen && !run->cc; i++) {
		r = kcsraw_next(ifc, run, c);
		if (r != KCS_CALL_AGAIN)
			break;
	}
	/*
	 * An interrupt the writes raised (QEMU's KCS sets OBF with a dummy
	 * byte after each; the machine drains it before the next write) is
	 * no answer: forget it and enable the line the handler disabled.
	 * The thread takes an interrupt for the run only when its policy
	 * waits for it (the handler stays mute otherwise, until the thread
	 * takes the run) and the count moved (kcsraw_hand_take). A late one
	 * from the writes, on another CPU, may disable the line again after
	 * this: for a policy that waits for the interrupt the thread is
	 * then woken, takes the run early or ignores the interrupt by the
	 * count, and its own IRQ sleep enables the line. A policy that
	 * ignores the interrupt needs no line until the run is over (the
	 * thread's idle sleep enables it): waking the thread for it would
	 * cost the wake-up this path saves.
	 */
	WRITE_ONCE(ifc->irq_mute, !run->use_irq);
	atomic_set(&ifc->irq_pending, 0);
	kcsraw_irq_unmask(ifc, READ_ONCE(ifc->irq));
	run->irqs = READ_ONCE(ifc->irqs);
	/* Orders the stores above before the irq_pending load. */
	smp_mb();
	if (run->use_irq && atomic_read(&ifc->irq_pending))
		kcsraw_wake(ifc, KCSRAW_WHY_IRQ);
	if (!run->stolen && !run->cc && r == KCS_WAIT && !run->busy_ns) {
		kcsraw_wait_begin(ifc, run, &req->pol);
		ns = kcsraw_wait_ns(run, &req->pol);
		run->hand_sleep = true;
	} else {
		run->have_r = !run->stolen && !run->cc;
		run->r = r;
	}
	run->now = ktime_get();
	c->cpu_ns += ktime_to_ns(ktime_sub(run->now, run->awake_from));

	spin_lock_irqsave(&ifc->lock, flags);
	WRITE_ONCE(ifc->hand_state, KCSRAW_HAND_READY);
	ifc->submit_starts++;
	if (ns) {
		hrtimer_start_range_ns(&ifc->kick_timer, ns_to_ktime(ns),
				       min_t(u64, ns >> KCSRAW_SLACK_SHIFT,
					     KCSRAW_SLACK_MAX_NS),
				       HRTIMER_MODE_REL);
	} else {
		/*
		 * No wait to sleep through: the answer came within the
		 * submitter's steps (a vCPU held up by its host) or the steps
		 * ran out. Only the thread completes requests: kick it.
		 */
		if (run->have_r && (r == KCS_DONE || r == KCS_HOSED))
			ifc->submit_done++;
		WRITE_ONCE(ifc->kick, true);
		kcsraw_wake(ifc, KCSRAW_WHY_KICK);
	}
	spin_unlock_irqrestore(&ifc->lock, flags);
	return true;
}

/*
 * The thread: the submitter's started request once it is the thread's
 * turn (kicked: at once or by the timer; the interrupt its policy waits
 * for, after the thread's last sleep ended as @w; cancelled; stopping),
 * else NULL. *busy: a started request has the machine; *irq: the
 * thread's sleep meanwhile ends at the interrupt.
 */
struct kcsraw_req *kcsraw_hand_take(struct kcsraw_iface *ifc,
				    enum kcsraw_wake w, bool *busy,
				    bool *irq)
{
	struct kcsraw_run *run = ifc->hand;
	struct kcsraw_req *req = NULL;
	unsigned long flags;

	*irq = !!READ_ONCE(ifc->irq);
	spin_lock_irqsave(&ifc->lock, flags);
	*busy = ifc->hand_state != KCSRAW_HAND_NONE;
	if (ifc->hand_state == KCSRAW_HAND_READY) {
		if (READ_ONCE(ifc->kick) || READ_ONCE(ifc->cur->cancel) ||
		    (w == KCSRAW_WAKE_IRQ && run->use_irq &&
		     READ_ONCE(ifc->irqs) != run->irqs) ||
		    kthread_should_stop()) {
			req = ifc->cur;
			WRITE_ONCE(ifc->hand_state, KCSRAW_HAND_NONE);
			WRITE_ONCE(ifc->irq_mute, false);
		} else {
			/* A policy without the IRQ ignores it. */
			*irq = *irq && run->use_irq;
		}
	}
	spin_unlock_irqrestore(&ifc->lock, flags);
	if (!req)
		return NULL;
	/* Armed under ifc->lock with READY: no expiry after this. */
	hrtimer_cancel(&ifc->kick_timer);
	return req;
}

/*
 * The thread takes the run over. After the armed sleep (@w: how the
 * thread's last sleep ended) it counts as one of the wait's sleeps.
 */
void kcsraw_hand_resume(struct kcsraw_iface *ifc,
			struct kcsraw_req *req, enum kcsraw_wake w)
{
	struct kcsraw_run *run = ifc->hand;
	bool timed = READ_ONCE(ifc->kick_timed);

	WRITE_ONCE(ifc->kick, false);
	WRITE_ONCE(ifc->kick_timed, false);
	/* The submitter's clock is stale: a finished run ends at this one. */
	run->now = ktime_get();
	run->awake_from = run->now;
	if (run->hand_sleep) {
		run->hand_sleep = false;
		req->comp.cost.sleeps++;
		if (w != KCSRAW_WAKE_IRQ || !run->use_irq)
			w = timed ? KCSRAW_WAKE_TIMER : KCSRAW_WAKE_OTHER;
		kcsraw_wait_woke(run, &req->pol, &req->comp.cost, w);
	}
	kcsraw_run_loop(ifc, req, run);
}

void kcsraw_queue(struct kcsraw_iface *ifc, struct kcsraw_req *req)
{
	unsigned long flags;
	bool idle, hand;

	req->submitted = ktime_get();
	if (kcsraw_nobmc(ifc, req)) {
		spin_lock_irqsave(&ifc->lock, flags);
		kcsraw_complete_locked(ifc, req);
		spin_unlock_irqrestore(&ifc->lock, flags);
		return;
	}
	spin_lock_irqsave(&ifc->lock, flags);
	hand = kcsraw_hand_begin(ifc, req);
	spin_unlock_irqrestore(&ifc->lock, flags);
	if (hand && kcsraw_hand_run(ifc, req))
		return;

	spin_lock_irqsave(&ifc->lock, flags);
	if (hand) {
		/* The machine was not free: the thread runs it after all. */
		ifc->cur = NULL;
		WRITE_ONCE(ifc->hand_state, KCSRAW_HAND_NONE);
	}
	list_add_tail(&req->node, &ifc->queue);
	idle = !ifc->cur;
	spin_unlock_irqrestore(&ifc->lock, flags);
	/* A busy thread takes the next request by itself. */
	if (idle)
		kcsraw_wake(ifc, KCSRAW_WHY_KICK);
}
