// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_run.c - one transaction of the poller thread, step by step.
 *
 * A transaction runs with its own policy: a busy-wait window per BMC wait,
 * then high-resolution sleeps (fixed or exponential backoff), or sleeps
 * ended by the interface interrupt. The real time since the last step,
 * from ktime_get(), is what the state machine's timeouts count.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/hrtimer.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/printk.h>
#include "kcsraw_priv.h"
#include "kcsraw_poll.h"

/*
 * Step the state machine with the real time passed since the last step,
 * unless poll() has taken it over since the run began (run->stolen, and
 * KCS_IDLE). A finished transaction's result goes to run->req in the same
 * locked section: once the machine is idle poll() may start another.
 */
enum kcs_result kcsraw_step(struct kcsraw_iface *ifc,
			    struct kcsraw_run *run)
{
	struct kcsraw_req *req = run->req;
	unsigned long flags;
	enum kcs_result r;
	u64 us, mism;

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
	mism = ifc->sm.stats.mismatches;
	r = kcs_sm_event(&ifc->sm, us);
	if (unlikely(ifc->sm.stats.mismatches != mism)) {
		pr_warn_ratelimited("%s: BMC returned incorrect response, expected netfn %x cmd %x, got netfn %x cmd %x: cc 0xff\n",
				    ifc->name, (ifc->sm.req[0] >> 2) | 1,
				    ifc->sm.req[1], ifc->sm.bad_netfn >> 2,
				    ifc->sm.bad_cmd);
		if (req)
			req->comp.flags |= KCSRAW_DONE_SYNTH;
	}
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
bool kcsraw_run_own(struct kcsraw_iface *ifc, struct kcsraw_run *run)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ifc->sm_lock, flags);
	run->gen = ifc->sm_gen;
	run->stolen = ifc->poll_owned;
	raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
	return !run->stolen;
}

/*
 * Count a wake-up by its cause: the sleep's own timer when it expired,
 * else what kcsraw_wake() said (the interrupt first, then the kick timer,
 * then a submission), else another (cancel, stop, SMS_ATN work).
 */
static void kcsraw_woken(struct kcsraw_iface *ifc, bool expired)
{
	unsigned int why = atomic_xchg(&ifc->wake_why, 0);
	enum kcsraw_why by = KCSRAW_WHY_OTHER;

	if (expired)
		by = KCSRAW_WHY_TIMER;
	else if (why & BIT(KCSRAW_WHY_IRQ))
		by = KCSRAW_WHY_IRQ;
	else if (why & BIT(KCSRAW_WHY_TIMER))
		by = KCSRAW_WHY_TIMER;
	else if (why & BIT(KCSRAW_WHY_KICK))
		by = KCSRAW_WHY_KICK;
	WRITE_ONCE(ifc->wake_by[by], ifc->wake_by[by] + 1);
	WRITE_ONCE(ifc->wakeups, ifc->wakeups + 1);
}

/*
 * Sleep up to @ns, or until the IRQ when @irq, or until woken (cancel,
 * stop, new work when @idle). A wake-up that arrives between the caller's
 * last check and the sleep is not lost: the state is set before the final
 * checks.
 */
enum kcsraw_wake kcsraw_sleep(struct kcsraw_iface *ifc, u64 ns,
			      bool irq, struct kcsraw_req *req, bool idle)
{
	ktime_t t = ns_to_ktime(ns);
	u64 slack = min_t(u64, ns >> KCSRAW_SLACK_SHIFT, KCSRAW_SLACK_MAX_NS);
	int ret = 0;

	if (irq)
		kcsraw_irq_unmask(ifc, READ_ONCE(ifc->irq));
	WRITE_ONCE(ifc->irq_wait, irq);
	atomic_set(&ifc->wake_why, 0);
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
		kcsraw_woken(ifc, false);
		ret = -EINTR;
	} else {
		ret = schedule_hrtimeout_range(&t, slack, HRTIMER_MODE_REL);
		kcsraw_woken(ifc, !ret);
	}
	WRITE_ONCE(ifc->irq_wait, false);
	if (irq && atomic_xchg(&ifc->irq_pending, 0))
		return KCSRAW_WAKE_IRQ;
	return ret ? KCSRAW_WAKE_OTHER : KCSRAW_WAKE_TIMER;
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
 * No BMC answers (not yet, or not since a transaction gave up): answer
 * @req at once with cc 0xff, as the stock driver answers while its
 * interface is hosed, instead of letting it wait out the KCS timeouts
 * too. The probe's own request runs.
 */
bool kcsraw_nobmc(struct kcsraw_iface *ifc, struct kcsraw_req *req)
{
	if (req->probe || READ_ONCE(ifc->bmc) == KCSRAW_BMC_UP)
		return false;
	req->comp.cost.queue_ns = ktime_to_ns(ktime_sub(ktime_get(),
							req->submitted));
	kcsraw_synth(req, KCS_CC_UNSPECIFIED);
	req->comp.flags |= KCSRAW_DONE_HOSED | KCSRAW_DONE_NOBMC;
	WRITE_ONCE(ifc->nobmc, ifc->nobmc + 1);
	return true;
}

/*
 * After an abort, run the recovery to its end before the next transaction
 * may start. It uses short sleeps: the state machine bounds it with its
 * own timeouts.
 */
void kcsraw_drain(struct kcsraw_iface *ifc, struct kcsraw_run *run)
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
int kcsraw_run_start(struct kcsraw_iface *ifc, struct kcsraw_req *req,
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
	/*
	 * The probe: short waits, so that it never holds the KCS long; two
	 * retries, as a transaction that gave up leaves the interface out of
	 * its idle state, and the first try then starts with the error exit.
	 */
	if (req->probe) {
		ifc->sm.ibf_timeout_us = min_t(u64, ifc->sm.ibf_timeout_us,
					       KCSRAW_PROBE_TIMEOUT_US);
		ifc->sm.obf_timeout_us = min_t(u64, ifc->sm.obf_timeout_us,
					       KCSRAW_PROBE_TIMEOUT_US);
		ifc->sm.max_retries = min(ifc->sm.max_retries,
					  KCSRAW_PROBE_RETRIES);
	}
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
void kcsraw_wait_begin(struct kcsraw_iface *ifc, struct kcsraw_run *run,
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
void kcsraw_wait_woke(struct kcsraw_run *run,
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
u64 kcsraw_wait_ns(const struct kcsraw_run *run,
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
enum kcs_result kcsraw_next(struct kcsraw_iface *ifc,
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
void kcsraw_run_loop(struct kcsraw_iface *ifc, struct kcsraw_req *req,
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

	if (r == KCS_HOSED) {
		comp->flags |= KCSRAW_DONE_HOSED | KCSRAW_DONE_SYNTH;
		if (!req->probe)
			kcsraw_bmc_lost(ifc);
	}
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

	if (kcsraw_nobmc(ifc, req))
		return;
	kcsraw_run_start(ifc, req, &run, gen, false);
	kcsraw_run_loop(ifc, req, &run);
}
