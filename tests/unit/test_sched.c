// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/core/sched.c: strict classes, weighted fair sharing by
 * count and by charged time, aging bound under saturation, token bucket
 * timing, queue bound, cancel, live policy change, detach, many flows, and
 * a deterministic simulation of an interactive client against a hammering
 * monitor and a backlogged bulk job on a non-preemptible interface.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched.h"
#include "util/array.h"

#define US  1000ULL
#define MS  1000000ULL
#define SEC 1000000000ULL
#define T0  (1000 * SEC) /* a clock that does not start at 0 */

#define INTER  KCSMUX_PRIO_INTERACTIVE
#define NORMAL KCSMUX_PRIO_NORMAL
#define BULK   KCSMUX_PRIO_BULK

static struct kcsmux_policy pol(enum kcsmux_prio prio, uint32_t weight,
				uint32_t rate_milli, uint32_t burst,
				uint32_t queue)
{
	return (struct kcsmux_policy){
		.prio = prio,
		.weight = weight,
		.rate_milli = rate_milli,
		.burst = burst,
		.queue = queue,
	};
}

/* Item pool; items know their flow through it->flow. */
#define POOL 4096
static struct sched_item pool[POOL];
static size_t pool_next;

static struct sched_item *item(uint64_t hint)
{
	struct sched_item *it;

	ck_assert_uint_lt(pool_next, POOL);
	it = &pool[pool_next++];
	sched_item_init(it, hint);
	return it;
}

/* A recycled item for long runs: the previous user must be done with it. */
static struct sched_item *ring_item(struct sched_item *ring, size_t n,
				    size_t *next, uint64_t hint)
{
	struct sched_item *it = &ring[(*next)++ % n];

	sched_item_init(it, hint);
	return it;
}

static void setup(void)
{
	pool_next = 0;
	memset(pool, 0, sizeof(pool));
}

static void enq_ok(struct sched *s, struct sched_flow *f, struct sched_item *it,
		   uint64_t now)
{
	ck_assert_int_eq(sched_enqueue(s, f, it, now), 0);
}

static struct sched_item *deq_ok(struct sched *s, uint64_t now)
{
	uint64_t retry = 0;
	struct sched_item *it = sched_dequeue(s, now, &retry);

	ck_assert_ptr_nonnull(it);
	ck_assert_uint_eq(retry, now);
	return it;
}

static void deq_none(struct sched *s, uint64_t now, uint64_t want_retry)
{
	uint64_t retry = 0;

	ck_assert_ptr_null(sched_dequeue(s, now, &retry));
	ck_assert_uint_eq(retry, want_retry);
}

START_TEST(test_priority_order)
{
	struct sched s;
	struct sched_flow fb, fn, fi;
	struct kcsmux_policy pb = pol(BULK, 100, 0, 10, 64);
	struct kcsmux_policy pn = pol(NORMAL, 100, 0, 10, 64);
	struct kcsmux_policy pi = pol(INTER, 100, 0, 10, 64);
	struct sched_item *it[9];
	int i;

	sched_init(&s, 0);
	ck_assert_uint_eq(s.aging_ns, SCHED_AGING_DEFAULT_NS);
	deq_none(&s, T0, SCHED_NEVER);
	/* Attach and enqueue lowest class first. */
	sched_flow_attach(&s, &fb, &pb, T0);
	sched_flow_attach(&s, &fn, &pn, T0);
	sched_flow_attach(&s, &fi, &pi, T0);
	for (i = 0; i < 9; i++)
		it[i] = item(0);
	for (i = 0; i < 3; i++) {
		enq_ok(&s, &fb, it[i], T0 + i);
		enq_ok(&s, &fn, it[3 + i], T0 + 3 + i);
		enq_ok(&s, &fi, it[6 + i], T0 + 6 + i);
	}
	ck_assert_uint_eq(s.queued, 9);
	/* interactive, normal, bulk; FIFO within each. */
	for (i = 0; i < 3; i++)
		ck_assert_ptr_eq(deq_ok(&s, T0 + 10), it[6 + i]);
	for (i = 0; i < 3; i++)
		ck_assert_ptr_eq(deq_ok(&s, T0 + 10), it[3 + i]);
	for (i = 0; i < 3; i++)
		ck_assert_ptr_eq(deq_ok(&s, T0 + 10), it[i]);
	deq_none(&s, T0 + 10, SCHED_NEVER);
	ck_assert_uint_eq(s.queued, 0);
	ck_assert_uint_eq(s.promoted, 0);
}
END_TEST

/* A held flow (over its CPU budget) waits; the others go on. */
START_TEST(test_hold)
{
	struct sched s;
	struct sched_flow fa, fb;
	struct kcsmux_policy pa = pol(INTER, 100, 0, 10, 64);
	struct kcsmux_policy pb = pol(BULK, 100, 0, 10, 64);
	struct sched_item *a = item(0), *b = item(0);

	sched_init(&s, SCHED_NEVER);
	sched_flow_attach(&s, &fa, &pa, T0);
	sched_flow_attach(&s, &fb, &pb, T0);
	enq_ok(&s, &fa, a, T0);
	enq_ok(&s, &fb, b, T0);
	sched_flow_hold(&fa, T0 + 5000);
	/* the interactive flow is held: bulk goes first */
	ck_assert_ptr_eq(deq_ok(&s, T0 + 1), b);
	deq_none(&s, T0 + 2, T0 + 5000);
	ck_assert_ptr_eq(deq_ok(&s, T0 + 5000), a);
	/* 0 lifts a hold */
	enq_ok(&s, &fa, a, T0 + 5001);
	sched_flow_hold(&fa, T0 + 90000);
	deq_none(&s, T0 + 5002, T0 + 90000);
	sched_flow_hold(&fa, 0);
	ck_assert_ptr_eq(deq_ok(&s, T0 + 5003), a);
}
END_TEST

/* Non-preemptive: a bulk item already out is not recalled, but the
 * interactive arrival goes before the bulk backlog at the next dispatch. */
START_TEST(test_priority_arrival)
{
	struct sched s;
	struct sched_flow fb, fi;
	struct kcsmux_policy pb = pol(BULK, 100, 0, 10, 64);
	struct kcsmux_policy pi = pol(INTER, 1, 0, 10, 64);
	struct sched_item *b[3], *x;
	int i;

	sched_init(&s, 0);
	sched_flow_attach(&s, &fb, &pb, T0);
	sched_flow_attach(&s, &fi, &pi, T0);
	for (i = 0; i < 3; i++) {
		b[i] = item(0);
		enq_ok(&s, &fb, b[i], T0);
	}
	ck_assert_ptr_eq(deq_ok(&s, T0), b[0]);
	x = item(0);
	enq_ok(&s, &fi, x, T0 + 100 * US);
	ck_assert_ptr_eq(deq_ok(&s, T0 + 1 * MS), x);
	ck_assert_ptr_eq(deq_ok(&s, T0 + 2 * MS), b[1]);
}
END_TEST

/*
 * Two always-backlogged flows of one class, weights WA:WB, items of cost
 * CA and CB. charge: sched_charge() the true cost (hints 0, so the 1 ms
 * unit estimate is corrected); else the hints carry the costs. Counts
 * dispatches and service over N dispatches; checks the SFQ lag bound at
 * every step.
 */
static void run_pair(uint32_t wa, uint32_t wb, uint64_t ca, uint64_t cb,
		     bool charge, unsigned n, unsigned cnt[2], uint64_t svc[2])
{
	static struct sched_item ring[2][8];
	size_t next[2] = { 0, 0 };
	struct sched s;
	struct sched_flow f[2];
	struct kcsmux_policy p[2] = {
		pol(NORMAL, wa, 0, 10, 64),
		pol(NORMAL, wb, 0, 10, 64),
	};
	const uint64_t cost[2] = { ca, cb };
	const uint32_t w[2] = { wa, wb };
	double lag, bound;
	unsigned i, k;

	sched_init(&s, SCHED_NEVER);
	for (k = 0; k < 2; k++) {
		sched_flow_attach(&s, &f[k], &p[k], T0);
		cnt[k] = 0;
		svc[k] = 0;
		for (i = 0; i < 4; i++)
			enq_ok(&s, &f[k],
			       ring_item(ring[k], 8, &next[k],
					 charge ? 0 : cost[k]),
			       T0);
	}
	/* SFQ: |Sa/wa - Sb/wb| <= Cmax_a/wa + Cmax_b/wb (+ the estimate
	 * in flight, which is corrected before the next dispatch here). */
	bound = (double)ca / wa + (double)cb / wb;
	for (i = 0; i < n; i++) {
		struct sched_item *it = deq_ok(&s, T0);

		k = it->flow == &f[0] ? 0 : 1;
		ck_assert_ptr_eq(it->flow, &f[k]);
		if (charge)
			sched_charge(&s, it, cost[k]);
		cnt[k]++;
		svc[k] += cost[k];
		enq_ok(&s, &f[k],
		       ring_item(ring[k], 8, &next[k], charge ? 0 : cost[k]),
		       T0);
		lag = (double)svc[0] / w[0] - (double)svc[1] / w[1];
		ck_assert_msg(lag <= bound + 1 && -lag <= bound + 1,
			      "step %u: lag %.0f beyond %.0f", i, lag, bound);
	}
	ck_assert_uint_eq(f[0].charged_ns, svc[0]);
	ck_assert_uint_eq(f[1].charged_ns, svc[1]);
}

START_TEST(test_weights_by_count)
{
	unsigned cnt[2];
	uint64_t svc[2];

	run_pair(1, 3, 1 * MS, 1 * MS, false, 4000, cnt, svc);
	printf("sched: weights 1:3 by count, 4000 dispatches: %u:%u\n", cnt[0],
	       cnt[1]);
	ck_assert_uint_ge(cnt[0], 999);
	ck_assert_uint_le(cnt[0], 1001);
	ck_assert_uint_eq(cnt[0] + cnt[1], 4000);

	/* Same with the costs charged after the fact. */
	run_pair(1, 3, 1 * MS, 1 * MS, true, 4000, cnt, svc);
	ck_assert_uint_ge(cnt[0], 999);
	ck_assert_uint_le(cnt[0], 1001);
}
END_TEST

START_TEST(test_weights_by_time)
{
	unsigned cnt[2];
	uint64_t svc[2];
	double share;

	/* Equal weights, 4 ms SDR-like reads vs 1 ms sensor reads: equal
	 * interface time, so 1:4 in count. */
	run_pair(100, 100, 4 * MS, 1 * MS, true, 5000, cnt, svc);
	printf("sched: equal weights, 4 ms vs 1 ms items: count %u:%u, "
	       "time %.3f:%.3f s\n",
	       cnt[0], cnt[1], svc[0] / 1e9, svc[1] / 1e9);
	ck_assert_uint_ge(cnt[0], 995);
	ck_assert_uint_le(cnt[0], 1005);
	share = (double)svc[0] / (double)(svc[0] + svc[1]);
	ck_assert_msg(share > 0.499 && share < 0.501, "time share %f", share);

	/* Weights 1:3 by time with 3 ms vs 1 ms items: equal counts. */
	run_pair(1, 3, 3 * MS, 1 * MS, true, 6000, cnt, svc);
	share = (double)svc[0] / (double)(svc[0] + svc[1]);
	printf("sched: weights 1:3 by time, 3 ms vs 1 ms items: count %u:%u, "
	       "time share %.4f (want 0.25)\n",
	       cnt[0], cnt[1], share);
	ck_assert_msg(share > 0.249 && share < 0.251, "time share %f", share);

	/* Hints instead of charges give the same. */
	run_pair(1, 3, 3 * MS, 1 * MS, false, 6000, cnt, svc);
	share = (double)svc[0] / (double)(svc[0] + svc[1]);
	ck_assert_msg(share > 0.249 && share < 0.251, "time share %f", share);
}
END_TEST

/* A flow that was idle gets no credit for it: it joins at the class clock
 * and then shares 1:1, instead of taking the interface for a long run. */
START_TEST(test_no_idle_credit)
{
	static struct sched_item ring[2][8];
	size_t next[2] = { 0, 0 };
	struct sched s;
	struct sched_flow a, b;
	struct kcsmux_policy p = pol(NORMAL, 100, 0, 10, 64);
	unsigned i, nb = 0, run = 0, maxrun = 0;

	sched_init(&s, SCHED_NEVER);
	sched_flow_attach(&s, &a, &p, T0);
	sched_flow_attach(&s, &b, &p, T0);
	enq_ok(&s, &a, ring_item(ring[0], 8, &next[0], 0), T0);
	for (i = 0; i < 1000; i++) {
		struct sched_item *it = deq_ok(&s, T0);

		ck_assert_ptr_eq(it->flow, &a);
		enq_ok(&s, &a, ring_item(ring[0], 8, &next[0], 0), T0);
	}
	enq_ok(&s, &b, ring_item(ring[1], 8, &next[1], 0), T0);
	for (i = 0; i < 100; i++) {
		struct sched_item *it = deq_ok(&s, T0);
		bool isb = it->flow == &b;

		enq_ok(&s, it->flow, ring_item(ring[isb], 8, &next[isb], 0),
		       T0);
		nb += isb;
		run = isb ? run + 1 : 0;
		maxrun = run > maxrun ? run : maxrun;
	}
	ck_assert_uint_ge(nb, 49);
	ck_assert_uint_le(nb, 51);
	ck_assert_uint_le(maxrun, 1);
}
END_TEST

/*
 * Aging under a saturating interactive load, 1 ms transactions: a lone
 * bulk request is served within aging + N * Tmax (N = 2 flows). Without
 * aging it is not served at all, so the bound is the mechanism's doing.
 */
static uint64_t bulk_wait_under_saturation(uint64_t aging, uint64_t limit)
{
	static struct sched_item ring[8];
	size_t next = 0;
	struct sched s;
	struct sched_flow fi, fb;
	struct kcsmux_policy pi = pol(INTER, 100, 0, 10, 64);
	struct kcsmux_policy pb = pol(BULK, 100, 0, 10, 64);
	struct sched_item *b = item(0), *it;
	uint64_t t = T0;
	int i;

	sched_init(&s, aging);
	sched_flow_attach(&s, &fi, &pi, T0);
	sched_flow_attach(&s, &fb, &pb, T0);
	for (i = 0; i < 4; i++)
		enq_ok(&s, &fi, ring_item(ring, 8, &next, 0), t);
	/* The interface is busy with an interactive request when it comes. */
	it = deq_ok(&s, t);
	enq_ok(&s, &fi, ring_item(ring, 8, &next, 0), t);
	t += 300 * US;
	enq_ok(&s, &fb, b, t);
	t += 700 * US;
	while (t - b->enq_ns < limit) {
		it = deq_ok(&s, t);
		if (it == b)
			return t - b->enq_ns;
		enq_ok(&s, &fi, ring_item(ring, 8, &next, 0), t);
		t += 1 * MS;
	}
	return UINT64_MAX;
}

START_TEST(test_aging_bound)
{
	uint64_t w;

	w = bulk_wait_under_saturation(500 * MS, 10 * SEC);
	printf("sched: lone bulk request under saturating interactive load, "
	       "aging 500 ms: served after %.3f ms (bound 502 ms)\n",
	       w / 1e6);
	ck_assert_uint_ge(w, 500 * MS);
	ck_assert_uint_le(w, 500 * MS + 2 * MS);

	w = bulk_wait_under_saturation(50 * MS, 10 * SEC);
	ck_assert_uint_ge(w, 50 * MS);
	ck_assert_uint_le(w, 50 * MS + 2 * MS);

	w = bulk_wait_under_saturation(SCHED_NEVER, 5 * SEC);
	ck_assert_uint_eq(w, UINT64_MAX);
}
END_TEST

/*
 * Aging is a floor, not a flip: with interactive saturating the interface
 * and deep normal and bulk backlogs, normal and bulk each get about one
 * request per aging period (gaps <= aging + 3 transactions) and the
 * interactive flow keeps nearly everything.
 */
START_TEST(test_aging_floor)
{
	static struct sched_item ring[3][80];
	size_t next[3] = { 0, 0, 0 };
	struct sched s;
	struct sched_flow f[3];
	struct kcsmux_policy p[3] = {
		pol(INTER, 100, 0, 10, 64),
		pol(NORMAL, 100, 0, 10, 64),
		pol(BULK, 100, 0, 10, 64),
	};
	uint64_t t = T0, last[3] = { T0, T0, T0 }, maxgap[3] = { 0 };
	unsigned cnt[3] = { 0 }, k, i;
	const uint64_t dur = 10 * SEC;

	sched_init(&s, 500 * MS);
	for (k = 0; k < 3; k++) {
		sched_flow_attach(&s, &f[k], &p[k], T0);
		for (i = 0; i < 64; i++)
			enq_ok(&s, &f[k], ring_item(ring[k], 80, &next[k], 0),
			       t);
	}
	while (t < T0 + dur) {
		struct sched_item *it = deq_ok(&s, t);

		k = (unsigned)(it->flow - f);
		ck_assert_uint_lt(k, 3);
		cnt[k]++;
		if (t - last[k] > maxgap[k])
			maxgap[k] = t - last[k];
		last[k] = t;
		enq_ok(&s, &f[k], ring_item(ring[k], 80, &next[k], 0), t);
		t += 1 * MS;
	}
	printf("sched: aging floor over 10 s saturated: interactive %u, "
	       "normal %u (max gap %.1f ms), bulk %u (max gap %.1f ms), "
	       "promoted %llu\n",
	       cnt[0], cnt[1], maxgap[1] / 1e6, cnt[2], maxgap[2] / 1e6,
	       (unsigned long long)s.promoted);
	for (k = 1; k < 3; k++) {
		ck_assert_uint_ge(cnt[k], 19);
		ck_assert_uint_le(cnt[k], 21);
		ck_assert_uint_le(maxgap[k], 500 * MS + 3 * MS);
	}
	ck_assert_uint_ge(cnt[0], 10000 - 42);
	ck_assert_uint_eq(s.promoted, cnt[1] + cnt[2]);
}
END_TEST

/*
 * Aging and rate limits: a bulk flow limited to 1/s under a saturating
 * interactive load is never served without a token, and its starvation
 * clock starts when it gets the token, not when it queued: waiting for a
 * token is the node's own limit, not starvation, and must not turn each
 * of its requests into a promotion the moment the token comes.
 */
START_TEST(test_aging_rate)
{
	static struct sched_item ring[8];
	size_t next = 0;
	struct sched s;
	struct sched_flow fi, fb;
	struct kcsmux_policy pi = pol(INTER, 100, 0, 10, 64);
	struct kcsmux_policy pb = pol(BULK, 100, 1000, 1, 64);
	uint64_t t = T0, tok, when[4];
	unsigned n = 0, i;

	sched_init(&s, 500 * MS);
	sched_flow_attach(&s, &fi, &pi, T0);
	sched_flow_attach(&s, &fb, &pb, T0);
	for (i = 0; i < 4; i++)
		enq_ok(&s, &fi, ring_item(ring, 8, &next, 0), T0);
	for (i = 0; i < 10; i++)
		enq_ok(&s, &fb, item(0), T0);
	tok = sched_flow_token_at(&fb);
	while (n < 4) {
		struct sched_item *it;

		it = deq_ok(&s, t);
		if (it->flow == &fb) {
			ck_assert_uint_ge(t, tok);
			ck_assert_uint_ge(t - tok, 500 * MS);
			ck_assert_uint_le(t - tok, 500 * MS + 1 * MS);
			when[n++] = t;
			tok = sched_flow_token_at(&fb);
		} else {
			enq_ok(&s, &fi, ring_item(ring, 8, &next, 0), t);
		}
		t += 1 * MS;
	}
	/* T0 + 0.5 s, then every 1.5 s (token 1 s after, promoted 0.5 s on). */
	ck_assert_uint_eq(when[0], T0 + 500 * MS);
	ck_assert_uint_eq(when[1], T0 + 2000 * MS);
	ck_assert_uint_eq(when[3], T0 + 5000 * MS);
	ck_assert_uint_eq(fb.promoted, 4);
}
END_TEST

/* rate 10/s, burst 2: two at once, then one per 100 ms exactly. */
START_TEST(test_token_bucket)
{
	struct sched s;
	struct sched_flow f;
	struct kcsmux_policy p = pol(NORMAL, 100, 10000, 2, 64);
	int i;

	sched_init(&s, 0);
	sched_flow_attach(&s, &f, &p, T0);
	for (i = 0; i < 10; i++)
		enq_ok(&s, &f, item(0), T0);
	deq_ok(&s, T0);
	deq_ok(&s, T0);
	deq_none(&s, T0, T0 + 100 * MS);
	deq_none(&s, T0 + 100 * MS - 1, T0 + 100 * MS);
	deq_ok(&s, T0 + 100 * MS);
	deq_none(&s, T0 + 100 * MS, T0 + 200 * MS);
	/* Late by 50 ms: the next token still comes 100 ms after the last. */
	deq_ok(&s, T0 + 250 * MS);
	deq_none(&s, T0 + 250 * MS, T0 + 300 * MS);
	deq_ok(&s, T0 + 300 * MS);
	/* A long idle spell fills the bucket to burst (2), no more. */
	deq_ok(&s, T0 + 10 * SEC);
	deq_ok(&s, T0 + 10 * SEC);
	deq_none(&s, T0 + 10 * SEC, T0 + 10 * SEC + 100 * MS);
	ck_assert_uint_eq(f.dispatched, 7);
	ck_assert_uint_eq(sched_flow_token_at(&f), T0 + 10 * SEC + 100 * MS);
}
END_TEST

/* Rates that do not divide a second: ceil to the ns, no drift. */
START_TEST(test_token_bucket_fractional)
{
	struct sched s;
	struct sched_flow f, g;
	struct kcsmux_policy p = pol(NORMAL, 100, 3000, 2, 64); /* 3/s */
	uint64_t t = T0, retry;
	int i;

	sched_init(&s, 0);
	sched_flow_attach(&s, &f, &p, T0);
	for (i = 0; i < 40; i++)
		enq_ok(&s, &f, item(0), T0);
	deq_ok(&s, t);
	deq_ok(&s, t);
	/*
	 * Serve each token exactly when it comes: 30 in 10 s, the fractions
	 * of a ns carried over (the bucket is below its depth of 2, so
	 * nothing overflows; with burst 1 a full bucket drops the fraction
	 * like a real one would).
	 */
	for (i = 1; i <= 30; i++) {
		ck_assert_ptr_null(sched_dequeue(&s, t, &retry));
		/* Token i comes at ceil(i * 1e9 / 3) after T0. */
		ck_assert_uint_eq(retry, T0 + (i * SEC + 2) / 3);
		t = retry;
		deq_ok(&s, t);
	}
	ck_assert_uint_eq(t, T0 + 10 * SEC);

	/* 0.001 requests/s: one token per 1000 s. */
	p = pol(NORMAL, 100, 1, 2, 64);
	sched_flow_update(&s, &f, &p, t);
	deq_none(&s, t, t + 1000 * SEC);

	/* Burst 1, 3/s: full at 333333333.3 ns, so the token taken at
	 * 333333334 leaves nothing over and the next is a full period on. */
	p = pol(NORMAL, 100, 3000, 1, 64);
	sched_flow_attach(&s, &g, &p, t);
	ck_assert_uint_eq(sched_flow_detach(&s, &f), 8);
	enq_ok(&s, &g, item(0), t);
	enq_ok(&s, &g, item(0), t);
	enq_ok(&s, &g, item(0), t);
	deq_ok(&s, t);
	deq_none(&s, t, t + 333333334);
	deq_ok(&s, t + 333333334);
	deq_none(&s, t + 333333334, t + 333333334 + 333333334);
}
END_TEST

/* A rate-limited flow is skipped without holding the others back, and is
 * served as soon as its token comes even though another flow of its class
 * is backlogged. */
START_TEST(test_rate_skip)
{
	static struct sched_item ring[8];
	size_t next = 0;
	struct sched s;
	struct sched_flow fa, fb;
	struct kcsmux_policy pa = pol(NORMAL, 100, 100000, 1, 64); /* 100/s */
	struct kcsmux_policy pb = pol(NORMAL, 100, 0, 10, 64);
	uint64_t t = T0, lastb = 0;
	unsigned na = 0, nb = 0, i;

	sched_init(&s, SCHED_NEVER);
	sched_flow_attach(&s, &fa, &pa, T0);
	sched_flow_attach(&s, &fb, &pb, T0);
	for (i = 0; i < 64; i++)
		enq_ok(&s, &fa, item(0), T0);
	for (i = 0; i < 4; i++)
		enq_ok(&s, &fb, ring_item(ring, 8, &next, 0), T0);
	while (t < T0 + 500 * MS) {
		struct sched_item *it = deq_ok(&s, t);

		if (it->flow == &fa) {
			/* within one transaction of its token */
			ck_assert_uint_le(t - (T0 + (uint64_t)na * 10 * MS),
					  1 * MS);
			na++;
		} else {
			nb++;
			lastb = t;
			enq_ok(&s, &fb, ring_item(ring, 8, &next, 0), t);
		}
		t += 1 * MS;
	}
	ck_assert_uint_eq(na, 50);
	ck_assert_uint_eq(nb, 450);
	ck_assert_uint_gt(lastb, 0);
}
END_TEST

START_TEST(test_queue_bound)
{
	struct sched s;
	struct sched_flow f, g;
	struct kcsmux_policy p = pol(NORMAL, 100, 0, 10, 3);
	struct sched_item *it[5];
	int i;

	sched_init(&s, 0);
	sched_flow_attach(&s, &f, &p, T0);
	sched_flow_attach(&s, &g, &p, T0);
	for (i = 0; i < 5; i++)
		it[i] = item(0);
	for (i = 0; i < 3; i++)
		enq_ok(&s, &f, it[i], T0);
	ck_assert_int_eq(sched_enqueue(&s, &f, it[3], T0), -EBUSY);
	ck_assert_int_eq(sched_enqueue(&s, &f, it[4], T0), -EBUSY);
	ck_assert_uint_eq(f.rejected, 2);
	ck_assert_uint_eq(f.qlen, 3);
	ck_assert_uint_eq(s.queued, 3);
	/* The bound is per flow. */
	enq_ok(&s, &g, it[3], T0);
	ck_assert_ptr_eq(deq_ok(&s, T0), it[0]);
	enq_ok(&s, &f, it[4], T0);
	ck_assert_uint_eq(f.qlen, 3);
	ck_assert_uint_eq(s.queued, 4);
}
END_TEST

START_TEST(test_remove)
{
	struct sched s;
	struct sched_flow f;
	struct kcsmux_policy p = pol(NORMAL, 100, 0, 10, 64);
	struct sched_item *it[5], *x;
	int i;

	sched_init(&s, 0);
	sched_flow_attach(&s, &f, &p, T0);
	x = item(0);
	ck_assert(!sched_remove(&s, x)); /* never enqueued */
	for (i = 0; i < 5; i++) {
		it[i] = item(0);
		enq_ok(&s, &f, it[i], T0 + i);
	}
	ck_assert(sched_remove(&s, it[2]));  /* middle */
	ck_assert(!sched_remove(&s, it[2])); /* twice */
	ck_assert(sched_remove(&s, it[0]));  /* head */
	ck_assert(sched_remove(&s, it[4]));  /* tail */
	ck_assert_uint_eq(f.qlen, 2);
	ck_assert_uint_eq(s.queued, 2);
	ck_assert_ptr_eq(sched_flow_first(&f), it[1]);
	ck_assert_ptr_eq(deq_ok(&s, T0 + 10), it[1]);
	ck_assert(!sched_remove(&s, it[1])); /* dispatched */
	ck_assert_ptr_eq(deq_ok(&s, T0 + 10), it[3]);
	deq_none(&s, T0 + 10, SCHED_NEVER);
	/* A removed item can be queued again. */
	enq_ok(&s, &f, it[2], T0 + 20);
	ck_assert_ptr_eq(deq_ok(&s, T0 + 20), it[2]);
	/* Removing the only item leaves nothing. */
	enq_ok(&s, &f, it[0], T0 + 30);
	ck_assert(sched_remove(&s, it[0]));
	deq_none(&s, T0 + 30, SCHED_NEVER);
	ck_assert_uint_eq(f.dispatched, 3);
}
END_TEST

START_TEST(test_update)
{
	struct sched s;
	struct sched_flow fa, fb;
	struct kcsmux_policy pa = pol(NORMAL, 100, 0, 10, 64);
	struct kcsmux_policy pb = pol(BULK, 100, 0, 10, 64);
	struct sched_item *a[4], *b[4];
	int i;

	/* No aging: fa waits 750 ms below, which would promote it. */
	sched_init(&s, SCHED_NEVER);
	sched_flow_attach(&s, &fa, &pa, T0);
	sched_flow_attach(&s, &fb, &pb, T0);
	for (i = 0; i < 4; i++) {
		a[i] = item(0);
		b[i] = item(0);
		enq_ok(&s, &fa, a[i], T0);
		enq_ok(&s, &fb, b[i], T0);
	}
	ck_assert_ptr_eq(deq_ok(&s, T0), a[0]);

	/* bulk -> interactive: its queue, in order, goes first now. */
	pb.prio = INTER;
	sched_flow_update(&s, &fb, &pb, T0);
	ck_assert_uint_eq(fb.qlen, 4);
	ck_assert_ptr_eq(deq_ok(&s, T0), b[0]);
	ck_assert_ptr_eq(deq_ok(&s, T0), b[1]);

	/* Queue bound below qlen: nothing dropped, enqueue refused until
	 * it drains below the bound. */
	pb.queue = 1;
	sched_flow_update(&s, &fb, &pb, T0);
	ck_assert_uint_eq(fb.qlen, 2);
	ck_assert_int_eq(sched_enqueue(&s, &fb, item(0), T0), -EBUSY);

	/* Unlimited -> 1/s burst 1: starts full (one now), then 1 s. */
	pb.rate_milli = 1000;
	pb.burst = 1;
	sched_flow_update(&s, &fb, &pb, T0 + 1 * MS);
	ck_assert_ptr_eq(deq_ok(&s, T0 + 1 * MS), b[2]);
	/* fb is limited: fa (normal) is served meanwhile. */
	ck_assert_ptr_eq(deq_ok(&s, T0 + 2 * MS), a[1]);
	ck_assert_int_eq(sched_enqueue(&s, &fb, item(0), T0), -EBUSY);
	/* 2/s from now: the half-refilled bucket (0.5 s at 1/s, settled at
	 * the old rate) needs 0.25 s more at the new one. */
	pb.rate_milli = 2000;
	sched_flow_update(&s, &fb, &pb, T0 + 1 * MS + 500 * MS);
	ck_assert_uint_eq(sched_flow_token_at(&fb), T0 + 1 * MS + 750 * MS);
	ck_assert_ptr_eq(deq_ok(&s, T0 + 751 * MS), b[3]);
	ck_assert_uint_eq(fb.qlen, 0);
	enq_ok(&s, &fb, b[0], T0 + 752 * MS);
	ck_assert_int_eq(sched_enqueue(&s, &fb, b[1], T0), -EBUSY);

	/* Back to unlimited: eligible at once. */
	pb.rate_milli = 0;
	sched_flow_update(&s, &fb, &pb, T0 + 752 * MS);
	ck_assert_ptr_eq(deq_ok(&s, T0 + 752 * MS), b[0]);

	/* Weight update takes effect: 1:3 in count. */
	pa.weight = 1;
	sched_flow_update(&s, &fa, &pa, T0);
	pb.weight = 3;
	pb.prio = NORMAL;
	pb.queue = 64;
	sched_flow_update(&s, &fb, &pb, T0);
	{
		unsigned na = 0, i2;

		while (fa.qlen != 0)
			sched_remove(&s, sched_flow_first(&fa));
		for (i2 = 0; i2 < 40; i2++) {
			enq_ok(&s, &fa, item(0), T0);
			enq_ok(&s, &fb, item(0), T0);
		}
		for (i2 = 0; i2 < 40; i2++)
			na += deq_ok(&s, T0)->flow == &fa;
		ck_assert_uint_ge(na, 9);
		ck_assert_uint_le(na, 11);
	}
}
END_TEST

/*
 * The urgent lane: a flow out of tokens, held and with its queue full
 * still has its urgent item dispatched first, ahead of a backlogged
 * interactive flow and of its own earlier items; the cost is charged to
 * it, no token taken. One urgent item per flow at a time, and its own
 * bucket (SCHED_URGENT_BURST, then SCHED_URGENT_PER_S): beyond that an
 * item is queued as an ordinary one. Remove and detach take it out.
 */
START_TEST(test_urgent)
{
	struct sched s;
	struct sched_flow fi, fr;
	struct kcsmux_policy pi = pol(INTER, 100, 0, 10, 64);
	struct kcsmux_policy pr = pol(BULK, 100, 100, 1, 1); /* 0.1/s */
	struct sched_item *flood[4], *own, *u, *u2;
	uint64_t t = T0, tok, vt;
	bool urgent = false;
	int i;

	sched_init(&s, 0);
	sched_flow_attach(&s, &fi, &pi, t);
	sched_flow_attach(&s, &fr, &pr, t);
	for (i = 0; i < 4; i++) {
		flood[i] = item(0);
		enq_ok(&s, &fi, flood[i], t);
	}
	/* fr spends its one token, then has one waiting, and is held */
	own = item(0);
	enq_ok(&s, &fr, own, t);
	sched_flow_hold(&fr, t + 3600 * SEC);
	ck_assert_ptr_eq(deq_ok(&s, t), flood[0]);
	ck_assert_int_eq(sched_enqueue(&s, &fr, item(0), t), -EBUSY);
	tok = sched_flow_token_at(&fr);
	vt = fr.vt;
	u = item(0);
	ck_assert_int_eq(sched_enqueue_urgent(&s, &fr, u, t, &urgent), 0);
	ck_assert(urgent);
	ck_assert(sched_urgent_waiting(&s));
	/* a second one of the same flow while the first waits: ordinary */
	u2 = item(0);
	urgent = true;
	ck_assert_int_eq(sched_enqueue_urgent(&s, &fr, u2, t, &urgent), -EBUSY);
	ck_assert(!urgent);
	ck_assert_ptr_eq(deq_ok(&s, t), u);
	ck_assert(!sched_urgent_waiting(&s));
	ck_assert_uint_eq(fr.urgent, 1);
	ck_assert_uint_eq(sched_flow_token_at(&fr), tok); /* no token */
	ck_assert_uint_gt(fr.vt, vt);			  /* charged */
	ck_assert_ptr_eq(deq_ok(&s, t), flood[1]);
	/* the bucket: SCHED_URGENT_BURST in all at once (one used) */
	for (i = 1; i < SCHED_URGENT_BURST; i++) {
		u = item(0);
		ck_assert_int_eq(sched_enqueue_urgent(&s, &fr, u, t, &urgent),
				 0);
		ck_assert(urgent);
		ck_assert_ptr_eq(deq_ok(&s, t), u);
	}
	sched_remove(&s, own);
	u = item(0);
	ck_assert_int_eq(sched_enqueue_urgent(&s, &fr, u, t, &urgent), 0);
	ck_assert(!urgent);
	ck_assert_ptr_eq(deq_ok(&s, t), flood[2]);
	ck_assert(sched_remove(&s, u));
	/* one more token of the lane a 1/SCHED_URGENT_PER_S later */
	t += SEC / SCHED_URGENT_PER_S - 1;
	ck_assert_int_eq(sched_enqueue_urgent(&s, &fr, u, t, &urgent), 0);
	ck_assert(!urgent);
	ck_assert(sched_remove(&s, u));
	t += 1;
	ck_assert_int_eq(sched_enqueue_urgent(&s, &fr, u, t, &urgent), 0);
	ck_assert(urgent);
	/* removed from the lane, the flow may queue an urgent one again */
	ck_assert(sched_remove(&s, u));
	ck_assert(!sched_urgent_waiting(&s));
	ck_assert_uint_eq(s.queued, 1);
	t += 10 * SEC;
	ck_assert_int_eq(sched_enqueue_urgent(&s, &fr, u, t, &urgent), 0);
	ck_assert(urgent);
	/* detach drops it with the flow */
	ck_assert_uint_eq(sched_flow_detach(&s, &fr), 1);
	ck_assert(!sched_urgent_waiting(&s));
	ck_assert(!sched_remove(&s, u));
	ck_assert_ptr_eq(deq_ok(&s, t), flood[3]);
	deq_none(&s, t, SCHED_NEVER);
}
END_TEST

START_TEST(test_detach)
{
	struct sched s;
	struct sched_flow fa, fb;
	struct kcsmux_policy pi = pol(INTER, 100, 0, 10, 64);
	struct kcsmux_policy pn = pol(NORMAL, 100, 0, 10, 64);
	struct sched_item *a[3], *b[2];
	int i;

	sched_init(&s, 0);
	sched_flow_attach(&s, &fa, &pi, T0);
	sched_flow_attach(&s, &fb, &pn, T0);
	for (i = 0; i < 3; i++) {
		a[i] = item(0);
		enq_ok(&s, &fa, a[i], T0);
	}
	for (i = 0; i < 2; i++) {
		b[i] = item(0);
		enq_ok(&s, &fb, b[i], T0);
	}
	ck_assert_ptr_eq(deq_ok(&s, T0), a[0]);
	/* Clean detach: drain first. */
	ck_assert(sched_remove(&s, sched_flow_first(&fa)));
	ck_assert_uint_eq(fa.qlen, 1);
	/* Detach with one left: it is dropped and counted. */
	ck_assert_uint_eq(sched_flow_detach(&s, &fa), 1);
	ck_assert_uint_eq(s.nflows, 1);
	ck_assert_uint_eq(s.queued, 2);
	ck_assert(!sched_remove(&s, a[2]));
	ck_assert_ptr_eq(deq_ok(&s, T0), b[0]);
	ck_assert_ptr_eq(deq_ok(&s, T0), b[1]);
	deq_none(&s, T0, SCHED_NEVER);
	ck_assert_uint_eq(sched_flow_detach(&s, &fb), 0);
	ck_assert_uint_eq(s.nflows, 0);
	/* The memory can be attached again. */
	sched_flow_attach(&s, &fa, &pn, T0);
	enq_ok(&s, &fa, a[2], T0);
	ck_assert_ptr_eq(deq_ok(&s, T0), a[2]);
}
END_TEST

/* 32 flows of one class, weights 1..32, unit cost: each gets its weight's
 * share to within one request; plus two more classes on top. */
START_TEST(test_many_flows)
{
	enum { NF = 32, ROUNDS = 50 };
	static struct sched_item ring[NF][4];
	static struct sched_flow f[NF];
	size_t next[NF] = { 0 };
	unsigned cnt[NF] = { 0 }, i, k, total = 0;
	struct sched s;

	sched_init(&s, SCHED_NEVER);
	for (k = 0; k < NF; k++) {
		struct kcsmux_policy p = pol(NORMAL, k + 1, 0, 10, 64);

		sched_flow_attach(&s, &f[k], &p, T0);
		enq_ok(&s, &f[k], ring_item(ring[k], 4, &next[k], 0), T0);
		total += k + 1;
	}
	for (i = 0; i < total * ROUNDS; i++) {
		struct sched_item *it = deq_ok(&s, T0);

		k = (unsigned)(it->flow - f);
		ck_assert_uint_lt(k, NF);
		cnt[k]++;
		enq_ok(&s, &f[k], ring_item(ring[k], 4, &next[k], 0), T0);
	}
	for (k = 0; k < NF; k++)
		ck_assert_msg(cnt[k] + 1 >= (k + 1) * ROUNDS &&
				      cnt[k] <= (k + 1) * ROUNDS + 1,
			      "flow %u (weight %u): %u, want %u", k, k + 1,
			      cnt[k], (k + 1) * ROUNDS);
	ck_assert_uint_eq(s.nflows, NF);
}
END_TEST

/* Weight extremes and out-of-range policies are clamped, not trusted. */
START_TEST(test_clamp)
{
	struct sched s;
	struct sched_flow f;
	struct kcsmux_policy p = pol((enum kcsmux_prio)7, 0, 0, 0, 0);

	sched_init(&s, 0);
	sched_flow_attach(&s, &f, &p, T0);
	ck_assert_int_eq(f.prio, BULK);
	ck_assert_uint_eq(f.weight, 1);
	ck_assert_uint_eq(f.burst, 1);
	ck_assert_uint_eq(f.queue_max, 1);
	p.weight = 1000000;
	sched_flow_update(&s, &f, &p, T0);
	ck_assert_uint_eq(f.weight, 10000);
	/* A huge cost does not overflow the virtual time. */
	enq_ok(&s, &f, item(UINT64_MAX), T0);
	deq_ok(&s, T0);
	enq_ok(&s, &f, item(0), T0);
	deq_ok(&s, T0);
}
END_TEST

/* --- Simulation ------------------------------------------------------- */

static uint64_t lcg_state;

static uint64_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return lcg_state >> 33;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t pctl(uint64_t *v, size_t n, unsigned pct)
{
	size_t r;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	r = (n * pct + 99) / 100; /* nearest rank */
	return v[r == 0 ? 0 : r - 1];
}

struct sim_result {
	size_t n_inter;
	uint64_t p50, p99, max;
	uint64_t busy[3]; /* service time per flow */
	unsigned cnt[3];
	uint64_t dur;
};

/*
 * One interactive client (a request every 20 ms, phase jittered +-5 ms),
 * optionally a monitor (normal, 50/s burst 20) and a bulk job, both
 * always backlogged. Service times fixed (svc_min == svc_max) or uniform
 * in [svc_min, svc_max]; charged after each transaction.
 */
static void simulate(bool others, uint64_t svc_min, uint64_t svc_max,
		     struct sim_result *r)
{
	enum { I, M, B };
	static uint64_t waits[4000];
	static struct sched_item ring[3][80];
	size_t next[3] = { 0, 0, 0 };
	struct sched s;
	struct sched_flow f[3];
	struct kcsmux_policy p[3] = {
		pol(INTER, 100, 0, 10, 64),
		pol(NORMAL, 100, 50000, 20, 64),
		pol(BULK, 100, 0, 10, 64),
	};
	const uint64_t dur = 60 * SEC;
	uint64_t t = T0, arr, retry, svc;
	unsigned k, i, narr = 0;

	memset(r, 0, sizeof(*r));
	lcg_state = 42;
	sched_init(&s, 0);
	for (k = 0; k < 3; k++)
		sched_flow_attach(&s, &f[k], &p[k], T0);
	if (others)
		for (k = M; k <= B; k++)
			for (i = 0; i < 64; i++)
				enq_ok(&s, &f[k],
				       ring_item(ring[k], 80, &next[k], 0), T0);
	arr = T0 + 5 * MS;
	while (t < T0 + dur) {
		struct sched_item *it;

		while (arr <= t) {
			enq_ok(&s, &f[I], ring_item(ring[I], 80, &next[I], 0),
			       arr);
			narr++;
			arr = T0 + (narr + 1) * 20 * MS - 5 * MS +
			      lcg() % (10 * MS);
		}
		it = sched_dequeue(&s, t, &retry);
		if (it == NULL) {
			t = retry < arr ? retry : arr;
			continue;
		}
		k = (unsigned)(it->flow - f);
		if (k == I) {
			ck_assert_uint_lt(r->n_inter, ARRAY_SIZE(waits));
			waits[r->n_inter++] = t - it->enq_ns;
		}
		svc = svc_min +
		      (svc_max > svc_min ? lcg() % (svc_max - svc_min + 1) : 0);
		sched_charge(&s, it, svc);
		r->busy[k] += svc;
		r->cnt[k]++;
		t += svc;
		if (k != I)
			enq_ok(&s, &f[k], ring_item(ring[k], 80, &next[k], 0),
			       t - svc);
	}
	r->dur = t - T0;
	r->max = pctl(waits, r->n_inter, 100);
	r->p99 = pctl(waits, r->n_inter, 99);
	r->p50 = pctl(waits, r->n_inter, 50);
	ck_assert_uint_eq(s.promoted, 0);
}

static void sim_report(const char *what, const struct sim_result *r)
{
	printf("sched sim %s: interactive n=%zu wait p50 %.3f p99 %.3f max "
	       "%.3f ms; shares of %.1f s: interactive %.2f%% (%u) monitor "
	       "%.2f%% (%u, %.1f/s) bulk %.2f%% (%u)\n",
	       what, r->n_inter, r->p50 / 1e6, r->p99 / 1e6, r->max / 1e6,
	       r->dur / 1e9, 100.0 * r->busy[0] / r->dur, r->cnt[0],
	       100.0 * r->busy[1] / r->dur, r->cnt[1],
	       r->cnt[1] / (r->dur / 1e9), 100.0 * r->busy[2] / r->dur,
	       r->cnt[2]);
}

START_TEST(test_sim_fixed)
{
	struct sim_result alone, busy;

	simulate(false, 1 * MS, 1 * MS, &alone);
	sim_report("1 ms alone", &alone);
	simulate(true, 1 * MS, 1 * MS, &busy);
	sim_report("1 ms + monitor + bulk", &busy);

	ck_assert_uint_eq(alone.max, 0);
	ck_assert_uint_ge(busy.n_inter, 2990);
	/* Non-preemptive: at most the transaction in progress. */
	ck_assert_uint_le(busy.p99, alone.p99 * 12 / 10 + 1 * MS);
	ck_assert_uint_le(busy.max, 1 * MS);
	/* Monitor at its rate: 50/s plus the initial burst of 20. */
	ck_assert_uint_ge(busy.cnt[1], 50 * 60 + 20 - 2);
	ck_assert_uint_le(busy.cnt[1], 50 * 60 + 20 + 2);
	/* Bulk gets the rest: the interface never idles. */
	ck_assert_uint_ge(busy.busy[2], busy.dur * 89 / 100);
	ck_assert_uint_eq(busy.busy[0] + busy.busy[1] + busy.busy[2], busy.dur);
}
END_TEST

/* Realistic 0.2..2 ms transactions: the interactive wait is bounded by
 * the longest transaction, whatever is backlogged. */
START_TEST(test_sim_variable)
{
	struct sim_result busy;

	simulate(true, 200 * US, 2 * MS, &busy);
	sim_report("0.2-2 ms + monitor + bulk", &busy);
	ck_assert_uint_le(busy.max, 2 * MS);
	ck_assert_uint_le(busy.p99, 2 * MS);
	ck_assert_uint_ge(busy.cnt[1], 50 * 60 + 20 - 2);
	ck_assert_uint_le(busy.cnt[1], 50 * 60 + 20 + 2);
}
END_TEST

static Suite *sched_suite(void)
{
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_priority_order);
	tcase_add_test(tc, test_hold);
	tcase_add_test(tc, test_priority_arrival);
	tcase_add_test(tc, test_weights_by_count);
	tcase_add_test(tc, test_weights_by_time);
	tcase_add_test(tc, test_no_idle_credit);
	tcase_add_test(tc, test_aging_bound);
	tcase_add_test(tc, test_aging_floor);
	tcase_add_test(tc, test_aging_rate);
	tcase_add_test(tc, test_token_bucket);
	tcase_add_test(tc, test_token_bucket_fractional);
	tcase_add_test(tc, test_rate_skip);
	tcase_add_test(tc, test_queue_bound);
	tcase_add_test(tc, test_remove);
	tcase_add_test(tc, test_update);
	tcase_add_test(tc, test_detach);
	tcase_add_test(tc, test_urgent);
	tcase_add_test(tc, test_many_flows);
	tcase_add_test(tc, test_clamp);
	tcase_add_test(tc, test_sim_fixed);
	tcase_add_test(tc, test_sim_variable);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sched_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
