// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/core/nodestats.c: histogram bounds and bucket
 * placement, quantile estimates against exact percentiles, merging, the
 * decaying CPU-rate estimator (convergence, decay, budget checks) and the
 * per-node counters.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/nodestats.h"

#define US  1000ULL
#define MS  1000000ULL
#define SEC 1000000000ULL
#define T0  (1000 * SEC)
#define INF (NODESTATS_NBUCKETS - 1)

static uint64_t lcg_state;

static uint64_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return lcg_state >> 11; /* 53 bits */
}

static double unif(void)
{
	return (double)lcg() / (double)(1ULL << 53);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

START_TEST(test_bounds)
{
	const uint64_t *b = nodestats_bounds_ns;
	size_t i;

	ck_assert_uint_eq(NODESTATS_NBOUNDS, 38);
	ck_assert_uint_eq(b[0], 50 * US);
	ck_assert_uint_eq(b[NODESTATS_NBOUNDS - 1], 10 * SEC);
	for (i = 1; i < NODESTATS_NBOUNDS; i++) {
		ck_assert_uint_gt(b[i], b[i - 1]);
		/* <= 1.5 apart: a bucket is at most 50% wide */
		ck_assert_uint_le(b[i] * 2, b[i - 1] * 3);
	}
	/* Where KCS transactions live, the bounds are round. */
	ck_assert_uint_eq(b[4], 200 * US);
	ck_assert_uint_eq(b[6], 400 * US);
	ck_assert_uint_eq(b[9], 1 * MS);
	ck_assert_uint_eq(b[11], 2 * MS);
}
END_TEST

START_TEST(test_bucket_placement)
{
	const uint64_t *b = nodestats_bounds_ns;
	size_t i;

	ck_assert_uint_eq(nodestats_bucket(0), 0);
	ck_assert_uint_eq(nodestats_bucket(1), 0);
	ck_assert_uint_eq(nodestats_bucket(50 * US), 0);
	ck_assert_uint_eq(nodestats_bucket(50 * US + 1), 1);
	ck_assert_uint_eq(nodestats_bucket(999 * US), 9);
	ck_assert_uint_eq(nodestats_bucket(1 * MS), 9);
	ck_assert_uint_eq(nodestats_bucket(1 * MS + 1), 10);
	ck_assert_uint_eq(nodestats_bucket(10 * SEC), INF - 1);
	ck_assert_uint_eq(nodestats_bucket(10 * SEC + 1), INF);
	ck_assert_uint_eq(nodestats_bucket(UINT64_MAX), INF);
	for (i = 0; i < NODESTATS_NBOUNDS; i++) {
		/* le semantics: a value equal to a bound is in its bucket */
		ck_assert_uint_eq(nodestats_bucket(b[i]), i);
		ck_assert_uint_eq(nodestats_bucket(b[i] - 1), i);
		ck_assert_uint_eq(nodestats_bucket(b[i] + 1), i + 1);
	}
}
END_TEST

START_TEST(test_hist_basic)
{
	struct nodestats_hist h, h2;
	size_t i;

	nodestats_hist_init(&h);
	ck_assert_uint_eq(h.count, 0);
	ck_assert_uint_eq(h.min_ns, UINT64_MAX);
	ck_assert_uint_eq(nodestats_hist_quantile(&h, 0.99), 0);

	nodestats_hist_add(&h, 730 * US);
	for (i = 0; i <= 10; i++)
		ck_assert_uint_eq(nodestats_hist_quantile(&h, i / 10.0),
				  730 * US);
	nodestats_hist_add(&h, 0);
	nodestats_hist_add(&h, 20 * SEC);
	ck_assert_uint_eq(h.count, 3);
	ck_assert_uint_eq(h.sum_ns, 20 * SEC + 730 * US);
	ck_assert_uint_eq(h.min_ns, 0);
	ck_assert_uint_eq(h.max_ns, 20 * SEC);
	ck_assert_uint_eq(h.bucket[0], 1);
	ck_assert_uint_eq(h.bucket[8], 0); /* (500, 700] us */
	ck_assert_uint_eq(h.bucket[9], 1); /* (700, 1000] us */
	ck_assert_uint_eq(h.bucket[INF], 1);
	/* The +Inf bucket is bounded by the max seen. */
	ck_assert_uint_le(nodestats_hist_quantile(&h, 0.99), 20 * SEC);
	ck_assert_uint_ge(nodestats_hist_quantile(&h, 0.99), 10 * SEC);
	ck_assert_uint_eq(nodestats_hist_quantile(&h, 1), 20 * SEC);
	ck_assert_uint_eq(nodestats_hist_quantile(&h, 0), 0);

	nodestats_hist_init(&h2);
	nodestats_hist_add(&h2, 1 * MS);
	nodestats_hist_merge(&h2, &h);
	ck_assert_uint_eq(h2.count, 4);
	ck_assert_uint_eq(h2.sum_ns, h.sum_ns + 1 * MS);
	ck_assert_uint_eq(h2.min_ns, 0);
	ck_assert_uint_eq(h2.max_ns, 20 * SEC);
	ck_assert_uint_eq(h2.bucket[9], 2);
	ck_assert_uint_eq(h2.bucket[INF], 1);
	/* Merging an empty histogram changes nothing. */
	nodestats_hist_init(&h);
	nodestats_hist_merge(&h2, &h);
	ck_assert_uint_eq(h2.count, 4);
	ck_assert_uint_eq(h2.min_ns, 0);
}
END_TEST

/* Width of the bucket holding V; +Inf ends at the largest value seen. */
static uint64_t width_of(uint64_t v, uint64_t max)
{
	size_t i = nodestats_bucket(v);
	uint64_t lo = i == 0 ? 0 : nodestats_bounds_ns[i - 1];
	uint64_t hi = i == INF ? max : nodestats_bounds_ns[i];

	return hi - lo;
}

/*
 * Estimates against exact nearest-rank percentiles of the same samples:
 * always within the width of the bucket holding the true value; and for a
 * distribution smooth at the bucket scale, interpolation does much better.
 */
static void check_quantiles(const char *what, uint64_t (*gen)(void),
			    double smooth_tol)
{
	enum { N = 100000 };
	static uint64_t v[N];
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	struct nodestats_hist h;
	size_t i, r;

	nodestats_hist_init(&h);
	for (i = 0; i < N; i++) {
		v[i] = gen();
		nodestats_hist_add(&h, v[i]);
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t exact, est, err;

		r = (size_t)ceil(qs[i] * N);
		exact = v[r - 1];
		est = nodestats_hist_quantile(&h, qs[i]);
		err = est > exact ? est - exact : exact - est;
		printf("nodestats: %s q%.3f exact %.1f us est %.1f us "
		       "(err %.2f%%, bucket width %.0f us)\n",
		       what, qs[i], exact / 1e3, est / 1e3, 100.0 * err / exact,
		       width_of(exact, h.max_ns) / 1e3);
		ck_assert_uint_le(err, width_of(exact, h.max_ns));
		if (smooth_tol > 0)
			ck_assert_msg(err <= smooth_tol * exact,
				      "%s q%.3f: error %.3f%% > %.1f%%", what,
				      qs[i], 100.0 * err / exact,
				      100 * smooth_tol);
	}
	/* Monotonic in q. */
	for (i = 1; i <= 1000; i++)
		ck_assert_uint_ge(nodestats_hist_quantile(&h, i / 1000.0),
				  nodestats_hist_quantile(&h,
							  (i - 1) / 1000.0));
}

static uint64_t gen_uniform(void) /* 200 us .. 2 ms, a KCS BMC */
{
	return 200 * US + (uint64_t)(unif() * (1800 * US));
}

static uint64_t gen_loguniform(void) /* 20 us .. 20 s */
{
	return (uint64_t)(20e3 * pow(1e6, unif()));
}

static uint64_t gen_bimodal(void) /* fast sensor reads, slow SDR */
{
	if (lcg() % 100 < 97)
		return 300 * US + lcg() % (100 * US);
	return 40 * MS + lcg() % (20 * MS);
}

START_TEST(test_quantile_accuracy)
{
	lcg_state = 1;
	check_quantiles("uniform 0.2-2 ms", gen_uniform, 0.02);
	check_quantiles("log-uniform 20 us-20 s", gen_loguniform, 0);
	check_quantiles("bimodal", gen_bimodal, 0);
}
END_TEST

/* Steady 1% (10 us of CPU every 1 ms): converges to 10000 ppm. */
START_TEST(test_cpu_converges)
{
	struct nodestats_cpu c;
	uint64_t t = T0;
	double at1 = 0, at5 = 0;
	int i;

	nodestats_cpu_init(&c, T0, 0);
	ck_assert_uint_eq(c.tau_ns, NODESTATS_CPU_TAU_NS);
	ck_assert(nodestats_cpu_ppm(&c, T0) == 0);
	for (i = 1; i <= 5000; i++) {
		t = T0 + (uint64_t)i * MS;
		nodestats_cpu_add(&c, t, 10 * US);
		if (i == 1000)
			at1 = nodestats_cpu_ppm(&c, t);
	}
	at5 = nodestats_cpu_ppm(&c, t);
	printf("nodestats: steady 1%% CPU: %.0f ppm after 1 s (want ~6321), "
	       "%.0f after 5 s (want 10000)\n",
	       at1, at5);
	ck_assert_msg(at1 > 6300 && at1 < 6360, "after tau: %f", at1);
	ck_assert_msg(at5 > 9900 && at5 < 10100, "after 5 tau: %f", at5);
	ck_assert(nodestats_cpu_over(&c, t, 9000));
	ck_assert(!nodestats_cpu_over(&c, t, 11000));
	ck_assert(!nodestats_cpu_over(&c, t, 0)); /* no budget */

	/* Step to 5%: within 5% of it after 3 tau. */
	for (i = 1; i <= 3000; i++) {
		t += 1 * MS;
		nodestats_cpu_add(&c, t, 50 * US);
	}
	at5 = nodestats_cpu_ppm(&c, t);
	ck_assert_msg(at5 > 47500 && at5 < 52500, "after the step: %f", at5);
}
END_TEST

/* No input: decays as e^-(dt / tau), checked against libm. */
START_TEST(test_cpu_decay)
{
	struct nodestats_cpu c;
	double p0, p;
	int k;

	nodestats_cpu_init(&c, T0, 250 * MS);
	nodestats_cpu_add(&c, T0, 40 * MS);
	p0 = nodestats_cpu_ppm(&c, T0);
	ck_assert_msg(fabs(p0 - 160000) < 1e-6, "%f", p0);
	for (k = 0; k <= 400; k++) {
		uint64_t dt = (uint64_t)k * 37 * MS + (uint64_t)k * 123;
		double want = p0 * exp(-(double)dt / (250 * MS));

		p = nodestats_cpu_ppm(&c, T0 + dt);
		ck_assert_msg(fabs(p - want) <= 1e-9 * p0 + 1e-12,
			      "dt %llu: %g vs %g", (unsigned long long)dt, p,
			      want);
	}
	/* Far in the future: 0, not NaN. */
	ck_assert(nodestats_cpu_ppm(&c, T0 + 1000000 * SEC) == 0);
	/* Time going backwards reads as no time passing. */
	ck_assert(nodestats_cpu_ppm(&c, T0 - 1) == p0);
}
END_TEST

/* A burst of 20 transactions of 2 ms spin: 4% right after; and when it
 * will be back under a 1% budget. */
START_TEST(test_cpu_budget)
{
	struct nodestats_cpu c;
	uint64_t t = T0, u;
	double p;
	int i;

	nodestats_cpu_init(&c, T0, 0);
	for (i = 0; i < 20; i++) {
		t += 2 * MS;
		nodestats_cpu_add(&c, t, 2 * MS);
	}
	p = nodestats_cpu_ppm(&c, t);
	ck_assert_msg(p > 39000 && p < 40000, "%f", p);
	ck_assert(nodestats_cpu_over(&c, t, 10000));
	u = nodestats_cpu_under_at(&c, t, 10000);
	/* ~ tau * ln(4) = 1.386 s */
	printf("nodestats: 20 x 2 ms burst: %.0f ppm, under 1%% after "
	       "%.3f s\n",
	       p, (u - t) / 1e9);
	ck_assert_uint_gt(u, t + 1300 * MS);
	ck_assert_uint_lt(u, t + 1400 * MS);
	ck_assert(!nodestats_cpu_over(&c, u, 10000));
	ck_assert(nodestats_cpu_over(&c, u - 1 * US, 10000));
	/* Not over: now. No budget: now. */
	ck_assert_uint_eq(nodestats_cpu_under_at(&c, t, 50000), t);
	ck_assert_uint_eq(nodestats_cpu_under_at(&c, t, 0), t);
}
END_TEST

/*
 * The daemon's own CPU counts in the budget's estimate (not in the
 * poller's): a node whose poller and daemon CPU each stay under a 1.5%
 * budget is over it with both, and the daemon's alone can put it over.
 */
START_TEST(test_daemon_cpu_budget)
{
	struct nodestats st;
	struct nodestats_txn t = { .latency_ns = 2 * MS, .cpu_ns = 100 * US };
	uint64_t now = T0;
	double all, poller;
	int i;

	nodestats_init(&st, T0, 0);
	/* 100 requests/s for 3 tau: 100 us poller + 100 us daemon each, 1%
	 * of a CPU each */
	for (i = 0; i < 300; i++) {
		now += 10 * MS;
		nodestats_daemon_cpu(&st, now - 5 * MS, 100 * US);
		nodestats_complete(&st, now, &t);
	}
	ck_assert_uint_eq(st.cpu_ns, 300 * 100 * US);
	ck_assert_uint_eq(st.daemon_cpu_ns, 300 * 100 * US);
	all = nodestats_cpu_ppm(&st.cpu, now);
	poller = nodestats_cpu_ppm(&st.poller_cpu, now);
	printf("nodestats: 1%% poller + 1%% daemon: budget's %.0f ppm, "
	       "poller's %.0f ppm\n",
	       all, poller);
	ck_assert_msg(poller > 9000 && poller < 10600, "%f", poller);
	ck_assert_msg(all > 18500 && all < 21000, "%f", all);
	ck_assert(!nodestats_cpu_over(&st.poller_cpu, now, 15000));
	ck_assert(nodestats_cpu_over(&st.cpu, now, 15000));
	ck_assert_uint_gt(nodestats_cpu_under_at(&st.cpu, now, 15000), now);

	/* daemon CPU alone: 20 x 2 ms is 4% right after, over 1% */
	nodestats_init(&st, T0, 0);
	for (i = 0, now = T0; i < 20; i++) {
		now += 2 * MS;
		nodestats_daemon_cpu(&st, now, 2 * MS);
	}
	ck_assert_uint_eq(st.cpu_ns, 0);
	ck_assert_uint_eq(st.completed, 0);
	ck_assert(nodestats_cpu_ppm(&st.poller_cpu, now) == 0);
	ck_assert(nodestats_cpu_over(&st.cpu, now, 10000));
	ck_assert(!nodestats_cpu_over(&st.cpu, now, 50000));
}
END_TEST

START_TEST(test_counters)
{
	struct nodestats st;
	struct nodestats_txn ok = {
		.latency_ns = 1200 * US,
		.service_ns = 900 * US,
		.cpu_ns = 100 * US,
		.spin_ns = 30 * US,
	};
	struct nodestats_txn bad = ok;

	bad.error = true;
	bad.latency_ns = 3 * SEC;
	nodestats_init(&st, T0, 0);
	ck_assert_uint_eq(st.latency.min_ns, UINT64_MAX);
	ck_assert_uint_eq(st.queue_wait.min_ns, UINT64_MAX);
	nodestats_request(&st);
	nodestats_request(&st);
	nodestats_request(&st);
	nodestats_reject(&st);
	nodestats_cancel(&st);
	nodestats_dispatch(&st, 300 * US);
	nodestats_dispatch(&st, 2 * MS);
	nodestats_complete(&st, T0 + 1 * MS, &ok);
	nodestats_complete(&st, T0 + 3 * SEC, &bad);
	ck_assert_uint_eq(st.requests, 3);
	ck_assert_uint_eq(st.rejected, 1);
	ck_assert_uint_eq(st.cancelled, 1);
	ck_assert_uint_eq(st.dispatched, 2);
	ck_assert_uint_eq(st.completed, 2);
	ck_assert_uint_eq(st.errors, 1);
	ck_assert_uint_eq(st.service_ns, 1800 * US);
	ck_assert_uint_eq(st.cpu_ns, 200 * US);
	ck_assert_uint_eq(st.spin_ns, 60 * US);
	ck_assert_uint_eq(st.queue_wait.count, 2);
	ck_assert_uint_eq(st.queue_wait.bucket[5], 1);	/* (200, 300] us */
	ck_assert_uint_eq(st.queue_wait.bucket[11], 1); /* (1.5, 2] ms */
	ck_assert_uint_eq(st.latency.count, 2);
	ck_assert_uint_eq(st.latency.max_ns, 3 * SEC);
	ck_assert_uint_eq(st.latency.bucket[nodestats_bucket(3 * SEC)], 1);
	ck_assert(nodestats_cpu_ppm(&st.cpu, T0 + 3 * SEC) > 100);
}
END_TEST

/* Completion codes by value: a bounded set, errors or not, none on a
 * failure without a response. */
START_TEST(test_cc_by_value)
{
	static const struct {
		int cc;
		bool error;
	} txn[] = {
		{ 0x00, false }, { 0x00, false }, { 0xc1, true },
		{ 0xc0, true },	 { 0xd6, true },  { 0xff, true },
		{ 0x80, true },	 { 0x01, true },  { 0xd7, true },
		{ -1, true },
	};
	struct nodestats st;
	size_t i, sum = 0;

	ck_assert_uint_eq(nodestats_cc_slot(0x00), 0);
	ck_assert_uint_eq(nodestats_cc_slot(0xc0), 1);
	ck_assert_uint_eq(nodestats_cc_slot(0xd6), 23);
	ck_assert_uint_eq(nodestats_cc_slot(0xff), 24);
	ck_assert_uint_eq(nodestats_cc_slot(0xd7), NODESTATS_CC_OTHER);
	ck_assert_uint_eq(nodestats_cc_slot(0xbf), NODESTATS_CC_OTHER);
	ck_assert_uint_eq(nodestats_cc_slot(0x01), NODESTATS_CC_OTHER);
	for (i = 0; i < 256; i++) {
		const char *l = nodestats_cc_label(nodestats_cc_slot(i));
		char want[8];

		snprintf(want, sizeof(want), "0x%02zx", i);
		if (nodestats_cc_slot(i) == NODESTATS_CC_OTHER)
			ck_assert_str_eq(l, "other");
		else
			ck_assert_str_eq(l, want);
	}
	ck_assert_ptr_null(nodestats_cc_label(NODESTATS_NCC));

	nodestats_init(&st, T0, 0);
	for (i = 0; i < sizeof(txn) / sizeof(txn[0]); i++) {
		struct nodestats_txn t = { .latency_ns = 500 * US,
					   .error = txn[i].error,
					   .cc = txn[i].cc };

		nodestats_complete(&st, T0 + i * MS, &t);
	}
	ck_assert_uint_eq(st.completed, 10);
	ck_assert_uint_eq(st.errors, 8);
	ck_assert_uint_eq(st.cc[0], 2);
	ck_assert_uint_eq(st.cc[nodestats_cc_slot(0xc1)], 1);
	ck_assert_uint_eq(st.cc[1], 1);
	ck_assert_uint_eq(st.cc[23], 1);
	ck_assert_uint_eq(st.cc[24], 1);
	ck_assert_uint_eq(st.cc[NODESTATS_CC_OTHER], 3);
	for (i = 0; i < NODESTATS_NCC; i++)
		sum += st.cc[i];
	/* the failure without a response has no code */
	ck_assert_uint_eq(sum, 9);
}
END_TEST

static Suite *nodestats_suite(void)
{
	Suite *s = suite_create("nodestats");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_bounds);
	tcase_add_test(tc, test_bucket_placement);
	tcase_add_test(tc, test_hist_basic);
	tcase_add_test(tc, test_quantile_accuracy);
	tcase_add_test(tc, test_cpu_converges);
	tcase_add_test(tc, test_cpu_decay);
	tcase_add_test(tc, test_cpu_budget);
	tcase_add_test(tc, test_daemon_cpu_budget);
	tcase_add_test(tc, test_counters);
	tcase_add_test(tc, test_cc_by_value);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(nodestats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
