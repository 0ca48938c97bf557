/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcsraw_poll.h - what the poller's files share: the thread
 * (kcsraw_poll.c), a transaction's run (kcsraw_run.c), the submitter's
 * start (kcsraw_hand.c) and the interrupt (kcsraw_irq.c).
 */
#ifndef KCSRAW_POLL_H
#define KCSRAW_POLL_H

#include <linux/types.h>
#include <linux/ktime.h>
#include <linux/hrtimer.h>
#include "kcsraw_priv.h"

/* Longest slack granted to a poll sleep, and its share of the sleep. */
#define KCSRAW_SLACK_MAX_NS	(50 * NSEC_PER_USEC)
#define KCSRAW_SLACK_SHIFT	3
/* Machine steps a submitter makes at most before the thread goes on. */
#define KCSRAW_HAND_STEPS	64
/* The BMC probe's IBF/OBF timeout and retries (at most; kcsraw_main.c). */
#define KCSRAW_PROBE_TIMEOUT_US	(500 * USEC_PER_MSEC)
#define KCSRAW_PROBE_RETRIES	2U

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

/* kcsraw_run.c */
enum kcs_result kcsraw_step(struct kcsraw_iface *ifc, struct kcsraw_run *run);
bool kcsraw_run_own(struct kcsraw_iface *ifc, struct kcsraw_run *run);
enum kcsraw_wake kcsraw_sleep(struct kcsraw_iface *ifc, u64 ns, bool irq,
			      struct kcsraw_req *req, bool idle);
void kcsraw_drain(struct kcsraw_iface *ifc, struct kcsraw_run *run);
int kcsraw_run_start(struct kcsraw_iface *ifc, struct kcsraw_req *req,
		     struct kcsraw_run *run, u32 gen, bool submit);
enum kcs_result kcsraw_next(struct kcsraw_iface *ifc, struct kcsraw_run *run,
			    struct kcsraw_cost *c);
void kcsraw_wait_begin(struct kcsraw_iface *ifc, struct kcsraw_run *run,
		       const struct kcsraw_policy *p);
void kcsraw_wait_woke(struct kcsraw_run *run, const struct kcsraw_policy *p,
		      struct kcsraw_cost *c, enum kcsraw_wake w);
u64 kcsraw_wait_ns(const struct kcsraw_run *run,
		   const struct kcsraw_policy *p);
void kcsraw_run_loop(struct kcsraw_iface *ifc, struct kcsraw_req *req,
		     struct kcsraw_run *run);

/* kcsraw_hand.c */
enum hrtimer_restart kcsraw_kick_fn(struct hrtimer *t);
struct kcsraw_req *kcsraw_hand_take(struct kcsraw_iface *ifc,
				    enum kcsraw_wake w, bool *busy, bool *irq);
void kcsraw_hand_resume(struct kcsraw_iface *ifc, struct kcsraw_req *req,
			enum kcsraw_wake w);

/* kcsraw_irq.c */
void kcsraw_irq_unmask(struct kcsraw_iface *ifc, unsigned int irq);

#endif /* KCSRAW_POLL_H */
