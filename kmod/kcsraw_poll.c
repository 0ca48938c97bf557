// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_poll.c - the per-interface poller thread.
 *
 * One kernel thread per interface owns the KCS state machine and runs one
 * transaction at a time, each with its own policy: a busy-wait window per
 * BMC wait, then high-resolution sleeps (fixed or exponential backoff), or
 * sleeps ended by the interface interrupt. The real time since the last
 * step, from ktime_get(), is what the state machine's timeouts count.
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
#include "kcsraw_compat.h"

/* Longest slack granted to a poll sleep, and its share of the sleep. */
#define KCSRAW_SLACK_MAX_NS	(50 * NSEC_PER_USEC)
#define KCSRAW_SLACK_SHIFT	3
/* Machine steps a submitter makes at most before the thread goes on. */
#define KCSRAW_HAND_STEPS	64
/* The idle SMS_ATN check while the message handler watches. */
#define KCSRAW_WATCH_MS		10U

enum kcsraw_wake {
	KCSRAW_WAKE_TIMER,
	KCSRAW_WAKE_IRQ,
	KCSRAW_WAKE_OTHER,
	KCSRAW_WAKE_NONE,	/* did not sleep */
};

/* Per-transaction bookkeeping of the thread. */
struct kcsraw_run {
	ktime_t acct;		/* time already handed to the state machine */
	ktime_t now;		/* time of the last step */
	ktime_t awake_from;	/* the thread's last wake-up (CPU time) */
	/* The wait for the BMC in progress: from a KCS_WAIT to the next step
	 * that is not one.
	 */
	ktime_t wait_from;	/* its start */
	ktime_t spin_from;	/* the busy-wait's start, when spinning */
	ktime_t bmc_from;	/* the BMC's processing's start */
	u64 busy_ns;		/* the policy's busy-wait window per wait */
	u64 sleep_us;		/* the next sleep, without an IRQ */
	bool use_irq;		/* sleeps end at the interface interrupt */
	bool in_wait;		/* a wait is in progress */
	bool spinning;		/* busy-waiting since spin_from */
	bool first_done;	/* the BMC's processing wait has begun */
	bool bmc_wait;		/* this wait is the BMC's processing */
	bool first;		/* the next sleep is the policy's first_us */
	bool stolen;		/* poll() took the state machine over */
	bool idle;		/* the idle check's: never steps a transaction */
	/* Handed over by the submitter: */
	bool have_r;		/* r is the last step's, not acted on yet */
	bool hand_sleep;	/* the submitter armed the wait's first sleep */
	enum kcs_result r;
	int cc;			/* kcsraw_run_start()'s */
	u32 gen;		/* ifc->sm_gen this run owns the machine at */
	u64 irqs;		/* ifc->irqs when the submitter was done */
	struct kcsraw_req *req;	/* gets the result, under sm_lock */
	struct kcs_sm_stats s0;	/* the machine's counters at the start */
};

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

u64 kcsraw_poller_runtime(struct kcsraw_iface *ifc)
{
	return ifc->thread ? READ_ONCE(ifc->thread->se.sum_exec_runtime) : 0;
}

/*
 * Step the state machine with the real time passed since the last step,
 * unless poll() has taken it over since the run began (run->stolen, and
 * KCS_IDLE). A finished transaction's result goes to run->req in the same
 * locked section: once the machine is idle poll() may start another.
 */
static enum kcs_result kcsraw_step(struct kcsraw_iface *ifc,
				   struct kcsraw_run *run)
{
	struct kcsraw_req *req = run->req;
	unsigned long flags;
	enum kcs_result r;
	u64 us;

	run->now = ktime_get();
	us = div_u64(ktime_to_ns(ktime_sub(run->now, run->acct)), NSEC_PER_USEC);
	run->acct = ktime_add_us(run->acct, us);
	raw_spin_lock_irqsave(&ifc->sm_lock, flags);
	if (run->gen != ifc->sm_gen) {
		raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
		run->stolen = true;
		return KCS_IDLE;
	}
	/* A submitter started a transaction: not the idle check's. */
	if (run->idle && ifc->sm_what != KCSRAW_SM_NONE) {
		raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
		return KCS_IDLE;
	}
	r = kcs_sm_event(&ifc->sm, us);
	if (r != KCS_WAIT && r != KCS_CALL_AGAIN) {
		if (req && (r == KCS_DONE || r == KCS_HOSED))
			req->comp.resp_len =
				kcs_sm_get_result(&ifc->sm, req->comp.resp,
						  sizeof(req->comp.resp));
		/* The finished message is the thread's to return. */
		if (req && req->smi)
			kcsraw_smi_fin_locked(ifc, r);
		ifc->sm_what = KCSRAW_SM_NONE;
	}
	raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
	return r;
}

/* A run of the thread that owns the machine now (poll() has not). */
static bool kcsraw_run_own(struct kcsraw_iface *ifc, struct kcsraw_run *run)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ifc->sm_lock, flags);
	run->gen = ifc->sm_gen;
	run->stolen = ifc->poll_owned;
	raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
	return !run->stolen;
}

static void kcsraw_irq_unmask(struct kcsraw_iface *ifc, unsigned int irq);

/*
 * Sleep up to @ns, or until the IRQ when @irq, or until woken (cancel,
 * stop, new work when @idle). A wake-up that arrives between the caller's
 * last check and the sleep is not lost: the state is set before the final
 * checks.
 */
static enum kcsraw_wake kcsraw_sleep(struct kcsraw_iface *ifc, u64 ns,
				     bool irq, struct kcsraw_req *req, bool idle)
{
	ktime_t t = ns_to_ktime(ns);
	u64 slack = min_t(u64, ns >> KCSRAW_SLACK_SHIFT, KCSRAW_SLACK_MAX_NS);
	int ret = 0;

	if (irq)
		kcsraw_irq_unmask(ifc, READ_ONCE(ifc->irq));
	WRITE_ONCE(ifc->irq_wait, irq);
	/*
	 * set_current_state() is a full barrier: it orders the irq_wait
	 * store before the irq_pending load below. It pairs with the
	 * barrier in kcsraw_irq() between its irq_pending store and its
	 * irq_wait load, so either this thread sees the interrupt or the
	 * handler sees irq_wait and wakes it.
	 */
	set_current_state(TASK_IDLE);
	if (irq && atomic_read(&ifc->irq_pending)) {
		__set_current_state(TASK_RUNNING);
		ret = -EINTR;
	} else if ((req && READ_ONCE(req->cancel)) || kthread_should_stop()) {
		__set_current_state(TASK_RUNNING);
		ret = -EINTR;
	} else if (idle && READ_ONCE(ifc->kick)) {
		__set_current_state(TASK_RUNNING);
		ret = -EINTR;
	} else if (idle && READ_ONCE(ifc->hand_state) == KCSRAW_HAND_NONE &&
		   (!list_empty_careful(&ifc->queue) ||
		    READ_ONCE(ifc->smi_waiting) ||
		    READ_ONCE(ifc->flg_kick))) {
		__set_current_state(TASK_RUNNING);
		ret = -EINTR;
	} else if (ns == KTIME_MAX) {
		schedule();
		WRITE_ONCE(ifc->wakeups, ifc->wakeups + 1);
		ret = -EINTR;
	} else {
		ret = schedule_hrtimeout_range(&t, slack, HRTIMER_MODE_REL);
		WRITE_ONCE(ifc->wakeups, ifc->wakeups + 1);
	}
	WRITE_ONCE(ifc->irq_wait, false);
	if (irq && atomic_xchg(&ifc->irq_pending, 0))
		return KCSRAW_WAKE_IRQ;
	return ret ? KCSRAW_WAKE_OTHER : KCSRAW_WAKE_TIMER;
}

/*
 * The KCS interrupt is level-triggered (QEMU's isa-ipmi-kcs holds it while
 * OBF or an SMS_ATN interrupt is pending, and its SMBIOS record says
 * level) and the cause is cleared only by reading the data register (OBF)
 * or the status register (SMS_ATN). ipmi_si clears it in its handler by
 * running its state machine there, under its lock. Here the state machine
 * belongs to the poller thread (per-transaction policy and cost
 * accounting), so the handler cannot consume an OBF byte: it disables the
 * line, marks the interrupt pending and wakes the poller, which enables the
 * line again just before its next interrupt sleep, after the step that
 * consumed the cause.
 *
 * The handler and the poller run on different CPUs: the "disabled by us"
 * flag and the line's disable depth must change together, so both happen
 * under irq_lock. (With only an atomic flag, the poller could see the
 * flag the handler had just set and enable_irq() before the handler's
 * disable_irq_nosync(): "Unbalanced enable", then the line stayed disabled
 * with the flag clear, for good.)
 */
static irqreturn_t kcsraw_irq(int irq, void *data)
{
	struct kcsraw_iface *ifc = data;

	/*
	 * A request its submitter started waits in its armed sleep: nobody
	 * touches the registers until the thread takes it. An interrupt
	 * whose cause is gone (no OBF, no SMS_ATN) is then a late one of the
	 * submitter's writes (QEMU's dummy OBF, drained before the next
	 * write), handled on another CPU after the submitter was done: it
	 * is no answer, and taking it for one ended the armed sleep early
	 * (an IRQ policy slept twice a transaction at 2 vCPUs). The level
	 * line is low: leave it enabled and wake nobody.
	 */
	if (READ_ONCE(ifc->hand_state) == KCSRAW_HAND_READY &&
	    !(kcsraw_io_status(ifc) & (KCS_ST_OBF | KCS_ST_SMS_ATN))) {
		spin_lock(&ifc->irq_lock);
		ifc->irqs++;
		spin_unlock(&ifc->irq_lock);
		return IRQ_HANDLED;
	}
	spin_lock(&ifc->irq_lock);
	if (!ifc->irq_masked) {
		ifc->irq_masked = true;
		disable_irq_nosync(irq);
	}
	ifc->irqs++;
	spin_unlock(&ifc->irq_lock);
	atomic_set(&ifc->irq_pending, 1);
	/* Pairs with set_current_state() in kcsraw_sleep(). */
	smp_mb();
	/*
	 * Not for what a submitter's writes raise (QEMU's dummy OBF), nor
	 * while a started request whose policy ignores the IRQ waits.
	 */
	if (READ_ONCE(ifc->irq_wait) && !READ_ONCE(ifc->irq_mute))
		wake_up_process(ifc->thread);
	return IRQ_HANDLED;
}

/* Undo the handler's disable_irq_nosync(), if it did one. */
static void kcsraw_irq_unmask(struct kcsraw_iface *ifc, unsigned int irq)
{
	unsigned long flags;

	if (!irq)
		return;
	spin_lock_irqsave(&ifc->irq_lock, flags);
	if (ifc->irq_masked) {
		ifc->irq_masked = false;
		enable_irq(irq);
	}
	spin_unlock_irqrestore(&ifc->irq_lock, flags);
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

/* A response the driver makes up: netfn|1, cmd, @cc. */
static void kcsraw_synth(struct kcsraw_req *req, u8 cc)
{
	struct kcsraw_completion *comp = &req->comp;

	comp->resp[0] = req->req[0] | 0x04;
	comp->resp[1] = req->req_len > 1 ? req->req[1] : 0;
	comp->resp[2] = cc;
	comp->resp_len = 3;
	comp->flags |= KCSRAW_DONE_SYNTH;
}

/*
 * After an abort, run the recovery to its end before the next transaction
 * may start. It uses short sleeps: the state machine bounds it with its
 * own timeouts.
 */
static void kcsraw_drain(struct kcsraw_iface *ifc, struct kcsraw_run *run)
{
	enum kcs_result r;

	/* The recovery's end is no result of the cancelled request. */
	run->req = NULL;
	while (!kcs_sm_idle(&ifc->sm)) {
		/*
		 * Stopping: the interface is going away, and every sleep
		 * would return at once. Leave the rest of the recovery to
		 * the next load (a transaction starts with the error exit
		 * when the interface is not idle).
		 */
		if (kthread_should_stop() || run->stolen)
			break;
		atomic_set(&ifc->irq_pending, 0);
		r = kcsraw_step(ifc, run);
		if (r == KCS_WAIT)
			kcsraw_sleep(ifc, 100 * NSEC_PER_USEC,
				     !!READ_ONCE(ifc->irq), NULL, false);
		else if (r != KCS_CALL_AGAIN)
			break;
		cond_resched();
	}
}

/*
 * Start @req: the run's clocks, the runtime-writable timeouts, the state
 * machine. 0, or the completion code to answer with (also in run->cc);
 * run->stolen when poll() owns the machine (or, for the kernel's message
 * picked at @gen, has taken it since). From a submitter (@submit), only
 * on an idle machine nobody else is about to use: -EBUSY otherwise.
 */
static int kcsraw_run_start(struct kcsraw_iface *ifc, struct kcsraw_req *req,
			    struct kcsraw_run *run, u32 gen, bool submit)
{
	const struct kcsraw_policy *p = &req->pol;
	unsigned long flags;
	int cc;

	memset(run, 0, sizeof(*run));
	run->req = req;
	run->now = ktime_get();
	run->acct = run->now;
	run->awake_from = run->now;
	run->use_irq = (p->flags & KCSRAW_POL_IRQ) && READ_ONCE(ifc->irq);
	run->busy_ns = p->max_busy_us == KCSRAW_UNLIMITED ? U64_MAX :
		       (u64)p->max_busy_us * NSEC_PER_USEC;
	run->sleep_us = p->poll_us;
	req->comp.cost.queue_ns = ktime_to_ns(ktime_sub(run->now,
							req->submitted));

	raw_spin_lock_irqsave(&ifc->sm_lock, flags);
	if (submit && (ifc->poll_owned || ifc->sm_what != KCSRAW_SM_NONE ||
		       ifc->smi_waiting || ifc->smi_cur || ifc->smi_fin ||
		       ifc->flg_busy || !kcs_sm_idle(&ifc->sm))) {
		raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
		return -EBUSY;
	}
	ifc->sm.ibf_timeout_us = (u64)max(READ_ONCE(kcsraw_ibf_timeout_ms), 1U) *
				 USEC_PER_MSEC;
	ifc->sm.obf_timeout_us = (u64)max(READ_ONCE(kcsraw_obf_timeout_ms), 1U) *
				 USEC_PER_MSEC;
	ifc->sm.max_retries = READ_ONCE(kcsraw_max_retries);
	run->s0 = ifc->sm.stats;
	run->gen = ifc->sm_gen;
	if (ifc->poll_owned || (req->smi && gen != ifc->sm_gen)) {
		raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
		run->stolen = true;
		return 0;
	}
	cc = kcs_sm_start(&ifc->sm, req->req, req->req_len);
	if (!cc)
		ifc->sm_what = req->smi ? KCSRAW_SM_SMI : KCSRAW_SM_FILE;
	raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
	run->cc = cc;
	return cc;
}

/* End a busy-wait at @now, counting it into the spin time. */
static void kcsraw_spin_stop(struct kcsraw_run *run, struct kcsraw_cost *c,
			     ktime_t now)
{
	if (!run->spinning)
		return;
	c->spin_ns += ktime_to_ns(ktime_sub(now, run->spin_from));
	run->spinning = false;
}

/*
 * Cancelled, or the thread is asked to stop (rmmod with a transaction
 * orphaned by its closed file, the BMC hung): every sleep would return at
 * once, so running on would spin for up to the retries times the
 * timeouts. Abort.
 */
static void kcsraw_run_abort(struct kcsraw_iface *ifc, struct kcsraw_req *req,
			     struct kcsraw_run *run)
{
	unsigned long flags;

	kcsraw_spin_stop(run, &req->comp.cost, ktime_get());
	raw_spin_lock_irqsave(&ifc->sm_lock, flags);
	if (run->gen == ifc->sm_gen) {
		kcs_sm_abort(&ifc->sm);
		ifc->sm_what = KCSRAW_SM_ABORT;
	} else {
		run->stolen = true;
	}
	raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
	req->comp.status = -ECANCELED;
	run->now = ktime_get();
}

/* The state machine moved on: the wait, if any, is over. */
static void kcsraw_wait_end(struct kcsraw_run *run, struct kcsraw_cost *c)
{
	kcsraw_spin_stop(run, c, run->now);
	/* The wait for the BMC's processing is over. */
	if (run->bmc_wait && run->in_wait)
		c->bmc_us = (u32)min_t(s64, U32_MAX,
				       ktime_us_delta(run->now, run->bmc_from));
	run->bmc_wait = false;
	run->in_wait = false;
}

/*
 * A wait begins. The first after the request's last byte is the BMC's
 * processing: measured into bmc_us, and slept through in one first_us
 * sleep if the policy has one.
 */
static void kcsraw_wait_begin(struct kcsraw_iface *ifc, struct kcsraw_run *run,
			      const struct kcsraw_policy *p)
{
	run->in_wait = true;
	run->wait_from = run->now;
	run->sleep_us = p->poll_us;
	run->first = !run->first_done && kcs_sm_request_written(&ifc->sm);
	if (run->first) {
		run->first_done = true;
		run->bmc_wait = true;
		run->bmc_from = run->now;
		run->first = p->first_us != 0;
	}
	if (run->first)
		run->sleep_us = p->first_us;
}

/* Within the wait's busy window: spin once and say so (step again). */
static bool kcsraw_wait_spin(struct kcsraw_run *run, struct kcsraw_cost *c)
{
	if (ktime_to_ns(ktime_sub(run->now, run->wait_from)) < run->busy_ns) {
		if (!run->spinning) {
			run->spinning = true;
			run->spin_from = run->now;
		}
		cpu_relax();
		cond_resched();
		return true;
	}
	kcsraw_spin_stop(run, c, run->now);
	return false;
}

/* After a sleep of the wait: count the wake-up, the next sleep's length. */
static void kcsraw_wait_woke(struct kcsraw_run *run,
			     const struct kcsraw_policy *p,
			     struct kcsraw_cost *c, enum kcsraw_wake w)
{
	if (w == KCSRAW_WAKE_TIMER)
		c->timer_wakeups++;
	else if (w == KCSRAW_WAKE_IRQ)
		c->irq_wakeups++;
	else
		c->other_wakeups++;
	if (run->first)
		run->sleep_us = p->poll_us;
	else if (p->backoff == KCSRAW_BACKOFF_EXP)
		run->sleep_us = min_t(u64, run->sleep_us * 2,
				      max(p->poll_max_us, p->poll_us));
	run->first = false;
}

/* How long the wait's next sleep lasts (with an IRQ: its fallback). */
static u64 kcsraw_wait_ns(const struct kcsraw_run *run,
			  const struct kcsraw_policy *p)
{
	return (run->use_irq ? max_t(u64, p->poll_max_us, p->poll_us) :
		run->sleep_us) * NSEC_PER_USEC;
}

/* Past the busy window: sleep (timer or IRQ), then the next sleep's length. */
static void kcsraw_wait_sleep(struct kcsraw_iface *ifc, struct kcsraw_req *req,
			      struct kcsraw_run *run)
{
	const struct kcsraw_policy *p = &req->pol;
	struct kcsraw_cost *c = &req->comp.cost;
	enum kcsraw_wake w;
	u64 sleep_ns;

	sleep_ns = kcsraw_wait_ns(run, p);
	c->cpu_ns += ktime_to_ns(ktime_sub(ktime_get(), run->awake_from));
	c->sleeps++;
	w = kcsraw_sleep(ifc, sleep_ns, run->use_irq, req, false);
	run->awake_from = ktime_get();
	kcsraw_wait_woke(run, p, c, w);
}

/* The transaction's cost, from the state machine's counters since @s0. */
static void kcsraw_run_end(struct kcsraw_iface *ifc, struct kcsraw_req *req,
			   struct kcsraw_run *run)
{
	const struct kcs_sm_stats *s0 = &run->s0;
	struct kcsraw_cost *c = &req->comp.cost;
	const struct kcs_sm_stats *s1 = &ifc->sm.stats;

	c->cpu_ns += ktime_to_ns(ktime_sub(run->now, run->awake_from));
	c->latency_ns = ktime_to_ns(ktime_sub(run->now, req->submitted));
	c->retries = s1->retries - s0->retries;
	c->errors = (s1->timeouts - s0->timeouts) +
		    (s1->protocol_errors - s0->protocol_errors);
	if (req->comp.status == -ECANCELED && !run->stolen)
		kcsraw_drain(ifc, run);
}

/*
 * One step of a transaction, counted into its cost; a wait the step did
 * not continue is over.
 */
static enum kcs_result kcsraw_next(struct kcsraw_iface *ifc,
				   struct kcsraw_run *run,
				   struct kcsraw_cost *c)
{
	enum kcs_result r;

	r = kcsraw_step(ifc, run);
	if (run->stolen)
		return r;
	c->polls++;
	if (r != KCS_WAIT)
		kcsraw_wait_end(run, c);
	return r;
}

/*
 * Run a started transaction to its end with its own policy: from its
 * start, or from where the submitter left it (run->have_r: the result of
 * its last step, not acted on yet). A run that poll() took over ends
 * cancelled (-ECANCELED): poll() aborted a FIFO transaction, or finishes
 * and returns the kernel's message itself.
 */
static void kcsraw_run_loop(struct kcsraw_iface *ifc, struct kcsraw_req *req,
			    struct kcsraw_run *run)
{
	struct kcsraw_completion *comp = &req->comp;
	enum kcs_result r;

	if (run->stolen)
		goto stolen;
	if (run->cc) {
		kcsraw_synth(req, run->cc);
		goto out;
	}
	for (;;) {
		if (run->have_r) {
			run->have_r = false;
			r = run->r;
		} else {
			if (READ_ONCE(req->cancel) || kthread_should_stop()) {
				kcsraw_run_abort(ifc, req, run);
				goto out;
			}
			atomic_set(&ifc->irq_pending, 0);
			r = kcsraw_next(ifc, run, &comp->cost);
			if (run->stolen)
				goto stolen;
		}
		if (r == KCS_CALL_AGAIN)
			continue;
		if (r == KCS_DONE || r == KCS_HOSED)
			break;
		if (r != KCS_WAIT) {
			/* Idle in the middle of a transaction: lost it. */
			pr_warn_ratelimited("%s: state machine idle mid-transaction\n",
					    ifc->name);
			kcsraw_synth(req, KCS_CC_UNSPECIFIED);
			goto out;
		}
		if (!run->in_wait)
			kcsraw_wait_begin(ifc, run, &req->pol);
		if (kcsraw_wait_spin(run, &comp->cost))
			continue;
		kcsraw_wait_sleep(ifc, req, run);
	}

	if (r == KCS_HOSED)
		comp->flags |= KCSRAW_DONE_HOSED | KCSRAW_DONE_SYNTH;
	goto out;
stolen:
	kcsraw_spin_stop(run, &comp->cost, ktime_get());
	comp->status = -ECANCELED;
	comp->resp_len = 0;
out:
	kcsraw_run_end(ifc, req, run);
}

/* Run one transaction of the thread's own picking. */
void kcsraw_run_req(struct kcsraw_iface *ifc, struct kcsraw_req *req, u32 gen)
{
	struct kcsraw_run run;

	kcsraw_run_start(ifc, req, &run, gen, false);
	kcsraw_run_loop(ifc, req, &run);
}

/*
 * Issue 24: a request submitted to an idle interface starts in the
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
static enum hrtimer_restart kcsraw_kick_fn(struct hrtimer *t)
{
	struct kcsraw_iface *ifc = container_of(t, struct kcsraw_iface,
						 kick_timer);

	WRITE_ONCE(ifc->kick_timed, true);
	WRITE_ONCE(ifc->kick, true);
	wake_up_process(ifc->thread);
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
		wake_up_process(ifc->thread);
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
		WRITE_ONCE(ifc->kick, true);
		wake_up_process(ifc->thread);
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
static struct kcsraw_req *kcsraw_hand_take(struct kcsraw_iface *ifc,
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
static void kcsraw_hand_resume(struct kcsraw_iface *ifc,
			       struct kcsraw_req *req, enum kcsraw_wake w)
{
	struct kcsraw_run *run = ifc->hand;
	bool timed = READ_ONCE(ifc->kick_timed);

	WRITE_ONCE(ifc->kick, false);
	WRITE_ONCE(ifc->kick_timed, false);
	run->awake_from = ktime_get();
	if (run->hand_sleep) {
		run->hand_sleep = false;
		req->comp.cost.sleeps++;
		if (w != KCSRAW_WAKE_IRQ || !run->use_irq)
			w = timed ? KCSRAW_WAKE_TIMER : KCSRAW_WAKE_OTHER;
		kcsraw_wait_woke(run, &req->pol, &req->comp.cost, w);
	}
	kcsraw_run_loop(ifc, req, run);
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

void kcsraw_queue(struct kcsraw_iface *ifc, struct kcsraw_req *req)
{
	unsigned long flags;
	bool idle, hand;

	req->submitted = ktime_get();
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
		wake_up_process(ifc->thread);
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

/* IPMI App commands used to switch the BMC's interrupt on. */
#define IPMI_NETFN_APP_REQ		(0x06 << 2)
#define IPMI_SET_BMC_GLOBAL_ENABLES	0x2e
#define IPMI_GET_BMC_GLOBAL_ENABLES	0x2f
#define IPMI_BMC_RCV_MSG_INTR		0x01

static int kcsraw_set_enables(struct kcsraw_iface *ifc, u8 val)
{
	u8 msg[3] = { IPMI_NETFN_APP_REQ, IPMI_SET_BMC_GLOBAL_ENABLES, val };
	u8 resp[8];
	unsigned int len = sizeof(resp);
	int ret;

	ret = kcsraw_xfer_sync(ifc, msg, sizeof(msg), resp, &len);
	if (ret)
		return ret;
	return len >= 3 && resp[2] == 0 ? 0 : -EIO;
}

/*
 * Request the interface IRQ and have the BMC raise it (receive message
 * queue interrupt enable): QEMU's KCS only interrupts once the host has
 * enabled that through Set BMC Global Enables. Any failure leaves the
 * interface polled.
 */
int kcsraw_irq_setup(struct kcsraw_iface *ifc)
{
	u8 msg[2] = { IPMI_NETFN_APP_REQ, IPMI_GET_BMC_GLOBAL_ENABLES };
	u8 resp[8];
	unsigned int len = sizeof(resp);
	int ret;

	if (!ifc->cfg_irq)
		return 0;
	ret = request_irq(ifc->cfg_irq, kcsraw_irq, 0, ifc->name, ifc);
	if (ret) {
		pr_warn("%s: cannot request irq %u (%d); polling only\n",
			ifc->name, ifc->cfg_irq, ret);
		return 0;
	}
	ret = kcsraw_xfer_sync(ifc, msg, sizeof(msg), resp, &len);
	if (ret || len < 4 || resp[2]) {
		pr_warn("%s: Get BMC Global Enables failed; polling only\n",
			ifc->name);
		goto fail;
	}
	ifc->orig_global_enables = resp[3];
	if (!(resp[3] & IPMI_BMC_RCV_MSG_INTR)) {
		ret = kcsraw_set_enables(ifc, resp[3] | IPMI_BMC_RCV_MSG_INTR);
		if (ret) {
			pr_warn("%s: the BMC refused the interrupt enable; polling only\n",
				ifc->name);
			goto fail;
		}
		ifc->irq_enabled_bmc = true;
	}
	WRITE_ONCE(ifc->irq, ifc->cfg_irq);
	pr_info("%s: using irq %u\n", ifc->name, ifc->irq);
	return 0;
fail:
	/* ifc->irq is 0: the poller never enables the line. */
	kcsraw_irq_unmask(ifc, ifc->cfg_irq);
	free_irq(ifc->cfg_irq, ifc);
	return 0;
}

/* Give the BMC back its interrupt enables; needs the poller running. */
void kcsraw_irq_restore(struct kcsraw_iface *ifc)
{
	if (!ifc->irq || !ifc->irq_enabled_bmc)
		return;
	if (kcsraw_set_enables(ifc, ifc->orig_global_enables))
		pr_warn("%s: could not restore the BMC global enables\n",
			ifc->name);
	ifc->irq_enabled_bmc = false;
}

/*
 * Release the IRQ. Only once the poller has stopped: until then it may
 * enable_irq() the line before a sleep.
 */
void kcsraw_irq_free(struct kcsraw_iface *ifc)
{
	unsigned int irq = ifc->irq;

	WARN_ON_ONCE(ifc->thread);
	if (!irq)
		return;
	WRITE_ONCE(ifc->irq, 0);
	kcsraw_irq_unmask(ifc, irq);
	free_irq(irq, ifc);
}
