/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nodestats.h - per-node accounting of kcsmuxd: request counters, latency
 * and queue-wait histograms, and the poller CPU the node's transactions
 * cost (from kcsraw's per-transaction cost reports).
 *
 * Pure logic like sched.c: no I/O, no clock (now_ns comes from the caller,
 * CLOCK_MONOTONIC nanoseconds), no allocation, no libm. Not to be confused
 * with tests/tools/stats.c (exact percentiles of a sample array for the
 * test tools).
 *
 * Histograms have fixed bucket upper bounds, the same for every node and
 * every run, so they export as Prometheus histograms unchanged (le =
 * bound, cumulative counts, +Inf last) and merge by adding counts. The
 * bounds run from 50 us to 10 s in steps 1, 1.5, 2, 3, 4, 5, 7 per decade
 * (ratio <= 1.5 between neighbours): fine enough where a KCS transaction
 * lives (0.2 to 2 ms: 200, 300, 400, 500, 700, 1000, 1500, 2000 us) for a
 * quantile estimate within one bucket, few enough (38 + Inf) to export for
 * every node. A value equal to a bound falls in that bound's bucket.
 *
 * The CPU estimator is an exponentially decaying sum of the cpu_ns
 * reported at each completion: S(t) = sum cpu_i * exp(-(t - t_i) / tau),
 * rate = S / tau. For a steady use of r CPU it converges to r (63% after
 * tau, 95% after 3 tau), and it weighs the last tau (default 1 s) most, so
 * comparing it with a node's cpu_budget_ppm checks the budget over a
 * sliding ~1 s window without storing samples. It starts at 0 and
 * under-reads during the first tau, which errs towards not throttling.
 *
 * What a budget covers: the estimator cpu is fed both the poller's CPU
 * of each transaction (its cost report, at completion) and the daemon's
 * own CPU on the node's behalf (thread CPU time around its CUSE requests,
 * its completions, its submissions and its parked SDR requests answered;
 * core/cpumeter.c), as they happen. poller_cpu is the poller's alone.
 */
#ifndef KCSMUX_NODESTATS_H
#define KCSMUX_NODESTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NODESTATS_NBOUNDS    38			     /* finite bounds */
#define NODESTATS_NBUCKETS   (NODESTATS_NBOUNDS + 1) /* + Inf */
#define NODESTATS_CPU_TAU_NS 1000000000ULL

/*
 * Completion codes counted by value, a bounded set: 0x00, the generic
 * codes of IPMI v2.0 table 5-2 (0xc0 to 0xd6) and 0xff, each its own
 * slot, and every other value (command-specific 0x01-0x7e, OEM 0x80-0xbe,
 * reserved) in the last slot, "other". Counted for every response that
 * came back from the BMC (with a completion code), errors or not; a
 * request the interface gave up on has no code and counts only in errors.
 */
#define NODESTATS_NCC	   26 /* 25 values + other */
#define NODESTATS_CC_OTHER (NODESTATS_NCC - 1)

/* Bucket i holds values in (bound[i - 1], bound[i]]; the last is +Inf. */
extern const uint64_t nodestats_bounds_ns[NODESTATS_NBOUNDS];

struct nodestats_hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t min_ns; /* UINT64_MAX when empty */
	uint64_t max_ns;
	uint64_t bucket[NODESTATS_NBUCKETS]; /* not cumulative */
};

struct nodestats_cpu {
	uint64_t tau_ns;
	uint64_t last_ns; /* time of acc_ns */
	double acc_ns;	  /* decayed sum at last_ns */
};

/* What one finished request cost; the daemon fills it from its own clock
 * and struct kcsraw_cost. */
struct nodestats_txn {
	uint64_t latency_ns; /* client's write() to the response */
	uint64_t service_ns; /* the interface busy with it */
	uint64_t cpu_ns;     /* kcsraw_cost.cpu_ns */
	uint64_t spin_ns;    /* kcsraw_cost.spin_ns */
	bool error;	     /* status != 0, hosed or made-up cc */
	int cc;		     /* the BMC's completion code; -1: none */
};

struct nodestats {
	uint64_t requests;	    /* accepted into the node's queue */
	uint64_t rejected;	    /* refused: queue full (EBUSY) */
	uint64_t cancelled;	    /* removed before they ran */
	uint64_t dispatched;	    /* started on the interface */
	uint64_t completed;	    /* finished, any outcome */
	uint64_t errors;	    /* ... with txn.error */
	uint64_t cc[NODESTATS_NCC]; /* ... by completion code, see above */
	uint64_t service_ns;
	uint64_t cpu_ns; /* the poller's */
	uint64_t spin_ns;
	uint64_t daemon_cpu_ns; /* kcsmuxd's own on the node's behalf */
	struct nodestats_hist latency;
	struct nodestats_hist queue_wait;
	struct nodestats_cpu cpu;	 /* poller + daemon: the budget's */
	struct nodestats_cpu poller_cpu; /* the poller's alone */
};

/* cpu_tau_ns 0: NODESTATS_CPU_TAU_NS. Zeroes everything. */
void nodestats_init(struct nodestats *st, uint64_t now_ns, uint64_t cpu_tau_ns);
void nodestats_request(struct nodestats *st);
void nodestats_reject(struct nodestats *st);
void nodestats_cancel(struct nodestats *st);
/* A request started after waiting QUEUE_WAIT_NS in the daemon's queue. */
void nodestats_dispatch(struct nodestats *st, uint64_t queue_wait_ns);
void nodestats_complete(struct nodestats *st, uint64_t now_ns,
			const struct nodestats_txn *txn);
/* The daemon spent CPU_NS of its own CPU on the node's behalf. */
void nodestats_daemon_cpu(struct nodestats *st, uint64_t now_ns,
			  uint64_t cpu_ns);

/* Slot of completion code CC in struct nodestats.cc. */
size_t nodestats_cc_slot(uint8_t cc);
/* Label of slot I: "0x00" .. "0xff" or "other" (NULL past the end). */
const char *nodestats_cc_label(size_t i);

void nodestats_hist_init(struct nodestats_hist *h);
/* Index of the bucket VALUE_NS falls in (NODESTATS_NBUCKETS - 1: +Inf). */
size_t nodestats_bucket(uint64_t value_ns);
void nodestats_hist_add(struct nodestats_hist *h, uint64_t value_ns);
void nodestats_hist_merge(struct nodestats_hist *dst,
			  const struct nodestats_hist *src);
/*
 * Estimated Q-quantile (0 <= Q <= 1), as Prometheus' histogram_quantile():
 * rank Q * count, linear within the bucket holding it, the bucket's range
 * narrowed to [min, max] seen (which also bounds the +Inf bucket). Within
 * the width of that bucket of the true value. 0 when empty.
 */
uint64_t nodestats_hist_quantile(const struct nodestats_hist *h, double q);

void nodestats_cpu_init(struct nodestats_cpu *c, uint64_t now_ns,
			uint64_t tau_ns);
void nodestats_cpu_add(struct nodestats_cpu *c, uint64_t now_ns,
		       uint64_t cpu_ns);
/* Estimated CPU use at NOW_NS, in ppm of one CPU (1000000: one CPU). */
double nodestats_cpu_ppm(const struct nodestats_cpu *c, uint64_t now_ns);
/* Over BUDGET_PPM (0: no budget, never over)? */
bool nodestats_cpu_over(const struct nodestats_cpu *c, uint64_t now_ns,
			uint32_t budget_ppm);
/*
 * When the estimate falls to BUDGET_PPM if the node uses no more CPU:
 * NOW_NS if it is not over (or there is no budget). For holding a node
 * back until it is under budget again.
 */
uint64_t nodestats_cpu_under_at(const struct nodestats_cpu *c, uint64_t now_ns,
				uint32_t budget_ppm);

#endif /* KCSMUX_NODESTATS_H */
