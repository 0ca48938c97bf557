/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcsraw_priv.h - internals shared by the kcsraw.ko source files.
 */
#ifndef KCSRAW_PRIV_H
#define KCSRAW_PRIV_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/completion.h>
#include <linux/miscdevice.h>
#include <linux/ktime.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/workqueue.h>
#include <linux/interrupt.h>
#include <kcsmux/kcsraw.h>
#include "kcs_sm.h"

#define KCSRAW_MAX_IFACES	4
#define KCSRAW_NAME		"kcsraw"

struct kcsraw_file;
struct kcsraw_relay;
struct kcsraw_run;
struct ipmi_smi;
struct ipmi_smi_msg;
struct platform_device;

/* What the state machine is running (kcsraw_iface.sm_what). */
enum kcsraw_sm_what {
	KCSRAW_SM_NONE,		/* idle: anyone holding sm_lock may start */
	KCSRAW_SM_FILE,		/* a request of the FIFO (thread only) */
	KCSRAW_SM_SMI,		/* ipmi_msghandler's message, smi_cur */
	KCSRAW_SM_ABORT,	/* an abort's recovery */
};

/* A transaction the submitter started (kcsraw_iface.hand_state). */
enum kcsraw_hand {
	KCSRAW_HAND_NONE,	/* none: ->hand is the thread's to give */
	KCSRAW_HAND_START,	/* the submitter is starting ->cur */
	KCSRAW_HAND_READY,	/* started: the thread runs it on */
};

/*
 * Whether the BMC answers (kcsraw_iface.bmc, kcsraw_main.c). Not UP: every
 * request but the probe's completes at once (kcsraw_nobmc()) and the probe
 * asks Get Device ID about once a second until it answers.
 */
enum kcsraw_bmc {
	KCSRAW_BMC_UP,		/* answers: requests run */
	KCSRAW_BMC_WAIT,	/* has not answered since the load */
	KCSRAW_BMC_LOST,	/* answered, then a transaction gave up */
};

/*
 * Why the poller was woken (kcsraw_iface.wake_why bits, kcsraw_wake()),
 * and the causes its wake-ups are counted by (wake_by).
 */
enum kcsraw_why {
	KCSRAW_WHY_KICK,	/* a submission: a request, the kernel's message */
	KCSRAW_WHY_TIMER,	/* its sleep's timer, or the kick timer */
	KCSRAW_WHY_IRQ,		/* the interface interrupt */
	KCSRAW_WHY_OTHER,	/* cancel, stop, SMS_ATN work, poll() */
	KCSRAW_WHY_N,
};

/* One request, from SUBMIT (or the module itself) to its completion. */
struct kcsraw_req {
	struct list_head node;		/* iface->queue or file->done */
	struct kcsraw_file *file;	/* NULL: internal or orphaned */
	bool internal;			/* the module's own: ->done completes */
	bool cancel;			/* cancel requested while in flight */
	bool smi;			/* ifc->smi_req: for smi_cur */
	bool probe;			/* the BMC probe's: runs when not UP */
	struct completion done;		/* internal requests only */
	u64 cookie;
	struct kcsraw_policy pol;	/* resolved: never KCSRAW_POL_DEFAULT */
	ktime_t submitted;
	u16 req_len;
	u8 req[KCSRAW_MAX_MSG];
	struct kcsraw_completion comp;
};

/* Per open file of /dev/kcsrawN. */
struct kcsraw_file {
	struct kcsraw_iface *iface;
	struct list_head done;		/* completed, not yet received */
	unsigned int outstanding;	/* submitted and not yet received */
	bool attn;			/* SMS_ATN seen, not yet read */
	wait_queue_head_t wq;
	struct list_head node;		/* iface->files */
	struct kcsraw_relay *relay;	/* bound as the relay, else NULL */
};

struct kcsraw_iface {
	int index;
	char name[16];
	unsigned long base;		/* data register port */
	unsigned int spacing;
	unsigned int irq;		/* requested and working, else 0 */
	unsigned int cfg_irq;		/* configured (param or SMBIOS) */
	bool from_dmi;
	bool irq_enabled_bmc;		/* we set the BMC's interrupt enable */
	bool irq_shared;		/* another device holds the line too */
	u8 orig_global_enables;
	int regions;			/* registers requested */

	/*
	 * The state machine. Every step, start, abort and result copy holds
	 * sm_lock (a raw spinlock, never across a sleep or spin), so that
	 * ipmi_msghandler's poll() can drive it when the poller cannot run
	 * (panic, power-off: other CPUs stopped, interrupts off). The poller
	 * owns it otherwise; poll() takes it over by setting poll_owned and
	 * bumping sm_gen, and the poller's transaction whose generation is
	 * stale is over for the poller (kcsraw_smi.c).
	 */
	struct kcs_sm sm;
	raw_spinlock_t sm_lock;		/* sm and everything down to smi_* */
	/*
	 * On a shared line, the answer byte the IRQ handler took out of the
	 * data register (-1: none): the register accessors give it to the
	 * state machine as if it were still there. Under sm_lock.
	 */
	int obf_stash;
	u64 irq_taken;			/* bytes the handler stashed */
	bool atn_seen;			/* the last status read showed SMS_ATN */
	enum kcsraw_sm_what sm_what;
	u32 sm_gen;
	bool poll_owned;
	/* The kernel's lane (ipmi_msghandler), ahead of the FIFO. */
	bool smi_on;			/* registered: the lane is served */
	bool smi_down;			/* shutdown: return what comes */
	bool smi_rtc;			/* run to completion (panic) */
	struct ipmi_smi_msg *smi_waiting;	/* from sender, not started */
	struct ipmi_smi_msg *smi_cur;	/* started, or picked by the thread */
	struct ipmi_smi_msg *smi_fin;	/* the thread finished it: returns it */
	struct ipmi_smi *intf;
	struct platform_device *pdev;
	struct kcsraw_req *smi_req;	/* the thread's request for smi_cur */
	struct kcsraw_policy smi_policy;	/* sysfs smi_policy */
	ktime_t smi_submitted;		/* when sender() took smi_waiting */
	unsigned int smi_watch;		/* set_need_watch() mask */
	bool smi_maint;			/* maintenance mode */
	void *acpi_handle;		/* the firmware's IPI0001 for this KCS */
	wait_queue_head_t smi_wq;	/* shutdown waits for the lane */
	u64 smi_msgs;			/* messages returned to the handler */
	u64 smi_polled;			/* of which finished by poll() */
	u64 smi_aborted;		/* FIFO transactions poll() aborted */
	/*
	 * The message flags machine (kcsraw_flags.c, smi_async=1): the
	 * poller thread's only; flg_busy under sm_lock (shutdown waits).
	 */
	bool smi_async;			/* it owns the BMC's async traffic */
	bool flg_busy;			/* a step runs or delivers */
	bool flg_evbuf;			/* the BMC's event buffer is on */
	bool flg_got;			/* this run delivered something */
	u8 flg_state;
	u8 flg_flags;			/* flags still to serve */
	u8 flg_enables;			/* global enables it keeps on */
	u8 flg_set;			/* the enables it is writing back */
	unsigned int flg_row;		/* fetches in a row */
	unsigned long flg_kick;		/* KCSRAW_KICK_* bits */
	ktime_t flg_empty_at;		/* the last run found nothing */
	struct kcsraw_req *flg_req;
	u64 flg_ops;			/* its transactions */
	u64 flg_msgs;			/* Get Message answers delivered */
	u64 flg_events;			/* events delivered */
	u64 flg_pretimeouts;		/* watchdog pre-timeouts reported */
	struct task_struct *thread;
	atomic_t irq_pending;
	spinlock_t irq_lock;		/* irq_masked and the line's disable */
	bool irq_masked;		/* the handler disabled the line */
	bool irq_wait;			/* the thread wants the IRQ to wake it */
	u64 irqs;			/* written by the IRQ handler only */

	spinlock_t lock;		/* everything below */
	struct list_head queue;		/* FIFO of kcsraw_req */
	struct kcsraw_req *cur;		/* in flight */
	/*
	 * The run of a request the submitter started while the interface
	 * was idle (kcsraw_hand.c); the thread takes it over when kicked,
	 * by the kick timer (its first sleep) or by the IRQ.
	 */
	struct kcsraw_run *hand;
	enum kcsraw_hand hand_state;
	bool kick;			/* the thread: take the run over now */
	bool kick_timed;		/* ... because kick_timer expired */
	bool irq_mute;			/* the IRQ handler wakes nobody: the
					 * submitter writes, or a started
					 * request's policy ignores the IRQ
					 */
	struct hrtimer kick_timer;
	u64 submit_starts;		/* transactions started by the submitter */
	u64 submit_done;		/* ... and finished by it before a wait */
	u64 wakeups;			/* the thread's wake-ups from a sleep */
	atomic_t wake_why;		/* KCSRAW_WHY_* bits of this sleep */
	u64 wake_by[KCSRAW_WHY_N];	/* wakeups by cause (the thread's) */
	struct list_head files;
	bool has_policy;		/* set by KCSRAW_IOC_SET_POLICY */
	struct kcsraw_policy policy;
	bool last_attn;
	struct kcsraw_stats stats;

	struct miscdevice misc;
	bool misc_registered;
	bool relay_bound;		/* a file is the relay (relay mutex) */

	/* The BMC's presence (kcsraw_main.c). */
	int bmc;			/* enum kcsraw_bmc */
	bool bmc_ready;			/* IRQ and SMI set up after a probe */
	bool bmc_setup;			/* ... and that set-up is done */
	bool probe_stop;		/* unloading: no more probes */
	struct delayed_work probe_work;
	ktime_t bmc_since;		/* when it last stopped answering */
	u64 probes;			/* Get Device ID probes that failed */
	u64 nobmc;			/* requests failed at once, no BMC */
};

/* Module parameters (kcsraw_main.c). */
extern unsigned int kcsraw_queue_depth;
extern unsigned int kcsraw_atn_poll_ms;
extern unsigned int kcsraw_ibf_timeout_ms;
extern unsigned int kcsraw_obf_timeout_ms;
extern unsigned int kcsraw_max_retries;
extern unsigned int kcsraw_def_max_busy_us;
extern unsigned int kcsraw_def_poll_us;
extern unsigned int kcsraw_def_poll_max_us;
extern unsigned int kcsraw_def_backoff;
extern bool kcsraw_def_use_irq;
extern bool kcsraw_share_irq;
extern bool kcsraw_submit_start;

/* kcsraw_io.c */
extern const struct kcs_io_ops kcsraw_port_ops;
int kcsraw_io_claim(struct kcsraw_iface *ifc);
void kcsraw_io_release(struct kcsraw_iface *ifc);
u8 kcsraw_io_status(struct kcsraw_iface *ifc);
void kcsraw_fault_init(void);
void kcsraw_fault_exit(void);
void kcsraw_fault_share_irq(unsigned int irq, irq_handler_t handler,
			    void *dev);
void kcsraw_fault_unshare_irq(void);
void kcsraw_fault_lost_delay(struct kcsraw_iface *ifc);

/* kcsraw_poll.c */
void kcsraw_wake(struct kcsraw_iface *ifc, enum kcsraw_why why);
int kcsraw_poller_start(struct kcsraw_iface *ifc, const struct cpumask *cpus,
			int nice);
void kcsraw_poller_stop(struct kcsraw_iface *ifc);
void kcsraw_queue(struct kcsraw_iface *ifc, struct kcsraw_req *req);
int kcsraw_xfer_sync(struct kcsraw_iface *ifc, const u8 *req,
		     unsigned int len, u8 *resp, unsigned int *resp_len);
void kcsraw_complete_locked(struct kcsraw_iface *ifc, struct kcsraw_req *req);
void kcsraw_default_policy(struct kcsraw_iface *ifc, struct kcsraw_policy *p);
int kcsraw_policy_check(const struct kcsraw_policy *p);
u64 kcsraw_poller_runtime(struct kcsraw_iface *ifc);

/* kcsraw_irq.c */
int kcsraw_irq_setup(struct kcsraw_iface *ifc);
void kcsraw_irq_restore(struct kcsraw_iface *ifc);
void kcsraw_irq_free(struct kcsraw_iface *ifc);

/* kcsraw_run.c: answer @req at once when no BMC answers (true). */
bool kcsraw_nobmc(struct kcsraw_iface *ifc, struct kcsraw_req *req);

/* kcsraw_main.c: a transaction gave up, the BMC may be gone. */
void kcsraw_bmc_lost(struct kcsraw_iface *ifc);

/* kcsraw_poll.c and kcsraw_run.c, for kcsraw_smi.c and kcsraw_flags.c */
void kcsraw_account(struct kcsraw_iface *ifc, struct kcsraw_req *req);
void kcsraw_run_req(struct kcsraw_iface *ifc, struct kcsraw_req *req,
		    u32 gen);

/* kcsraw_smi.c and kcsraw_flags.c (stubs without CONFIG_IPMI_HANDLER) */
extern bool kcsraw_smi_param;
extern bool kcsraw_smi_async_param;
/* kcsraw_iface.flg_kick bits */
#define KCSRAW_KICK_ATN		0	/* SMS_ATN seen: Get Message Flags */
#define KCSRAW_KICK_EVENTS	1	/* request_events(): enables, events */
#if IS_ENABLED(CONFIG_IPMI_HANDLER)
void kcsraw_flags_setup(struct kcsraw_iface *ifc);
bool kcsraw_flags_step(struct kcsraw_iface *ifc);
void kcsraw_flags_kick(struct kcsraw_iface *ifc, int what);
bool kcsraw_flags_atn(struct kcsraw_iface *ifc, unsigned int quiet_ms);
int kcsraw_flags_init(struct kcsraw_iface *ifc);
void kcsraw_flags_exit(struct kcsraw_iface *ifc);
int kcsraw_smi_init(struct kcsraw_iface *ifc);
int kcsraw_smi_register(struct kcsraw_iface *ifc);
void kcsraw_smi_unregister(struct kcsraw_iface *ifc);
void kcsraw_smi_exit(struct kcsraw_iface *ifc);
struct kcsraw_req *kcsraw_smi_pick(struct kcsraw_iface *ifc, u32 *gen);
void kcsraw_smi_done(struct kcsraw_iface *ifc, struct kcsraw_req *req,
		     u32 gen);
void kcsraw_smi_fin_locked(struct kcsraw_iface *ifc, enum kcs_result r);
/* kcsraw_relay.c */
long kcsraw_relay_ioctl(struct kcsraw_file *f, unsigned int cmd,
			void __user *arg);
bool kcsraw_relay_has(struct kcsraw_file *f);
void kcsraw_relay_release(struct kcsraw_file *f);
#else
static inline long kcsraw_relay_ioctl(struct kcsraw_file *f, unsigned int cmd,
				      void __user *arg)
{
	return -ENOTTY;
}

static inline bool kcsraw_relay_has(struct kcsraw_file *f)
{
	return false;
}

static inline void kcsraw_relay_release(struct kcsraw_file *f) { }

static inline bool kcsraw_flags_step(struct kcsraw_iface *ifc)
{
	return false;
}

static inline void kcsraw_flags_kick(struct kcsraw_iface *ifc, int what) { }
static inline bool kcsraw_flags_atn(struct kcsraw_iface *ifc,
				    unsigned int quiet_ms)
{
	return false;
}

static inline int kcsraw_smi_init(struct kcsraw_iface *ifc) { return 0; }
static inline int kcsraw_smi_register(struct kcsraw_iface *ifc) { return 0; }
static inline void kcsraw_smi_unregister(struct kcsraw_iface *ifc) { }
static inline void kcsraw_smi_exit(struct kcsraw_iface *ifc) { }
static inline struct kcsraw_req *kcsraw_smi_pick(struct kcsraw_iface *ifc,
						 u32 *gen)
{
	return NULL;
}

static inline void kcsraw_smi_done(struct kcsraw_iface *ifc,
				   struct kcsraw_req *req, u32 gen) { }
static inline void kcsraw_smi_fin_locked(struct kcsraw_iface *ifc,
					 enum kcs_result r) { }
#endif

/* kcsraw_cdev.c */
int kcsraw_cdev_register(struct kcsraw_iface *ifc);
void kcsraw_cdev_unregister(struct kcsraw_iface *ifc);
void kcsraw_get_stats(struct kcsraw_iface *ifc, struct kcsraw_stats *st);

/* kcsraw_sysfs.c */
extern const struct attribute_group *kcsraw_groups[];

#endif /* KCSRAW_PRIV_H */
