/* SPDX-License-Identifier: GPL-2.0 */
/*
 * adaptive.h - the "adaptive" backoff: per node and per command class
 * (netfn, cmd), the polling policy of the next transaction chosen from the
 * BMC's recent response times, so that the poller sleeps through most of
 * the BMC's work in one first sleep (kcsraw_policy.first_us) and then
 * polls with poll_us, steered by the node's latency_target_us and
 * cpu_budget_ppm.
 *
 * Pure logic like sched.c and nodestats.c: no I/O, no clock (now_ns comes
 * from the caller), no allocation (struct adapt is a fixed-size value the
 * caller embeds in its node), no libm.
 *
 * The model. Each class keeps its last ADAPT_WINDOW transactions. For
 * each, the daemon passes what it ran with (first_us, poll_us), the
 * response time it measured (resp = kcsraw_cost.latency_ns - queue_ns),
 * the sleeps it took (kcsraw_cost.sleeps) and kcsraw's measured time from
 * the request's last byte to the wake that found the answer (bmc_us). The
 * wake that found the BMC done came at w = bmc_us after the request's last
 * byte; without that figure it is reckoned as w = first + (sleeps - 1) *
 * poll, which runs short wherever sleeps overrun what was asked (TCG, a
 * loaded host). Either way the BMC's time lies within the last sleep
 * before w (its real length: (w - first) / (sleeps - 1) when measured,
 * poll otherwise), or in (0, first] when sleeps = 1 (the sample is
 * censored: the BMC was done before the first wake). The sample counts as
 * w minus half that sleep, or first when censored, and resp - w is the
 * byte handshakes (write and read phases; hundreds of us under TCG),
 * averaged for the latency target. A loaded host also overruns a sleep
 * now and then by a whole time slice: with bmc_us the model keeps the
 * ratio of the measured wake to the nominal sleeps over the last
 * ADAPT_OVER_N transactions, and a transaction whose ratio is more than
 * 1.5 times their lower quartile (sporadic, not the host's steady
 * overrun) says nothing of the BMC and is left out of the window: else
 * its first sleep, overrun past the BMC's time, reads as censored, drags
 * first_us down and restarts the window (test_jitter).
 *
 * Without bmc_us, time alone cannot separate the BMC's time from the
 * handshakes (resp - first = hs + k * poll with both hs and k unknown;
 * a wrong split ratchets: censored
 * samples read as slow push first_us later, which censors more), and the
 * reckoning assumes the byte handshakes do not sleep (true on QEMU's KCS,
 * and on hardware when max_busy_us covers a byte handshake).
 *
 * From the window: lo (p10), mid (p50), hi (p90) of the BMC's time, each
 * published with hysteresis: it stays as long as it lies within a ~1.5 sigma
 * band of order statistics around the window's own quantile (ranks
 * q * n -+ sqrt(n q (1 - q))), so a stationary BMC leaves it alone and a
 * shifted one moves it within one window. When the BMC speeds up below
 * first_us every sample is censored at first_us and says only "at most";
 * two censored samples in a row halve the estimate at once (probing down),
 * so a slow-to-fast shift converges in a few transactions. The other way,
 * ADAPT_SLOW_RUN samples in a row above the published p90 (against a
 * window at least half full) restart the window from that run, so a
 * fast-to-slow shift converges in a few transactions too instead of a
 * window's worth (test_adaptive: 12 against 32).
 *
 * The choice (adapt_choose): max_busy_us 0; poll_us the node's poll_us,
 * or with a latency_target_us the poll that puts the expected latency
 * (mid + handshakes + poll / 2) on the target, within [ADAPT_FLOOR_US,
 * poll_max_us] (shrinks when the target is tight, grows when it has
 * slack, but not beyond mid / 4: coarser polls blur the estimates they are
 * made from, and poll_us would swing); then, when
 * cpu_budget_ppm is set and the node's measured CPU is above 75% of it,
 * grown proportionally towards poll_max_us, reaching it at 100% (a
 * proportional band rather than on/off, so the node settles inside the
 * band instead of oscillating around the budget). first_us = lo - margin,
 * margin = min(poll / 2, lo / 4): the first wake lands just before the
 * BMC is done for ~90% of requests. The daemon runs it as kcsraw_policy
 * { max_busy_us, poll_us, poll_max_us = poll_us, backoff FIXED, first_us }.
 * An unseen class uses the node-wide window (all classes together), and a
 * node without ADAPT_MIN_SAMPLES samples polls fixed at poll_us.
 */
#ifndef KCSMUX_ADAPTIVE_H
#define KCSMUX_ADAPTIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/policy.h"

#define ADAPT_WINDOW	  32 /* samples per class */
#define ADAPT_CLASSES	  16 /* (netfn, cmd) classes per node, LRU */
#define ADAPT_MIN_SAMPLES 4  /* before a class is trusted */
#define ADAPT_FLUSH_RUN	  3  /* censored in a row: forget the past */
#define ADAPT_SLOW_RUN	  4  /* above p90 in a row: the BMC slowed */
#define ADAPT_FLOOR_US	  20 /* least poll_us a target may ask for */
#define ADAPT_OVER_N	  15 /* sleep overrun ratios kept (quartile) */
/* cpu_budget: the band where poll_us grows, in ppm of the budget. */
#define ADAPT_BUDGET_LO_PPM 750000

struct adapt_window {
	uint32_t v[ADAPT_WINDOW];      /* the BMC's time per sample, us */
	uint32_t n, head;	       /* n <= ADAPT_WINDOW, head: next slot */
	uint32_t lo_us, mid_us, hi_us; /* published p10, p50, p90 */
	uint32_t censored_run;
	uint32_t slow_run;		/* samples above hi_us in a row */
	uint64_t flushes;		/* window restarts (either direction) */
	uint16_t over_pm[ADAPT_OVER_N]; /* measured wake / nominal, permille */
	uint32_t over_n, over_head;
	uint64_t overslept;	    /* samples left out: a sporadic overrun */
	uint32_t probe_us;	    /* probing down: lo override, 0: none */
	uint64_t samples, censored; /* totals */
	uint64_t cpu_avg_ns;	    /* EWMA (1/8) of cpu_ns */
	uint32_t hs_us;		    /* EWMA (1/8) of the handshakes */
};

struct adapt_class {
	bool used;
	uint8_t netfn, cmd;
	uint64_t last_ns, seq; /* LRU order */
	struct adapt_window w;
};

struct adapt {
	struct adapt_class cls[ADAPT_CLASSES];
	struct adapt_window node; /* every class together: the fallback */
	uint64_t seq;
	uint64_t evictions;
};

/* One transaction's polling policy (kcsraw_policy fields; poll_max_us =
 * poll_us, backoff fixed). */
struct adapt_choice {
	uint32_t max_busy_us;
	uint32_t first_us;
	uint32_t poll_us;
};

/* What adapt_info() reports about a class (or the node fallback). */
struct adapt_info {
	bool own;   /* the class's own window, not the node's */
	uint32_t n; /* samples in the window used */
	uint32_t lo_us, mid_us, hi_us;
	uint32_t hs_us;
	uint64_t samples, censored, flushes;
	uint64_t cpu_avg_ns;
};

void adapt_init(struct adapt *a);
/* What one finished transaction tells of the BMC, from its cost report. */
struct adapt_sample {
	uint64_t resp_ns; /* cost.latency_ns - cost.queue_ns */
	uint32_t sleeps;  /* cost.sleeps (0: unknown, as USED NULL) */
	uint32_t bmc_us;  /* cost.bmc_us: the measured time from the
			   * request's last byte to the wake that found the
			   * answer; 0: not measured, then the wake is
			   * reckoned from first_us and SLEEPS nominal polls */
	uint64_t cpu_ns;  /* cost.cpu_ns */
};
/*
 * One finished transaction of class (NETFN, CMD): USED = the choice it ran
 * with (NULL: another policy; then resp_ns, or bmc_us when known, is taken
 * as the BMC's time), SMP what its cost report says.
 */
void adapt_record(struct adapt *a, uint8_t netfn, uint8_t cmd,
		  const struct adapt_choice *used,
		  const struct adapt_sample *smp, uint64_t now_ns);
/*
 * The policy for the next transaction of (NETFN, CMD) on a node with
 * policy POL (poll_us, poll_max_us, latency_target_us, cpu_budget_ppm are
 * read) whose poller CPU is now CPU_PPM_NOW (nodestats_cpu_ppm()).
 */
void adapt_choose(const struct adapt *a, uint8_t netfn, uint8_t cmd,
		  const struct kcsmux_policy *pol, double cpu_ppm_now,
		  struct adapt_choice *out);
/* The window adapt_choose() would use for (NETFN, CMD); -1 if none. */
int adapt_info(const struct adapt *a, uint8_t netfn, uint8_t cmd,
	       struct adapt_info *info);
/*
 * What the node has learned, for kcsmuxctl show: FN(ARG, CLASS, INFO) for
 * each class in use (CLASS NULL: the node-wide window), CLASS's own
 * window each time (info->own true).
 */
void adapt_each(const struct adapt *a,
		void (*fn)(void *arg, const struct adapt_class *cls,
			   const struct adapt_info *info),
		void *arg);

#endif /* KCSMUX_ADAPTIVE_H */
