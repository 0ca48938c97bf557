// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for the per-interval figures of kcsmuxctl watch
 * (fused/ctlproto/control_window.c): a node's accounting (core/nodestats.c)
 * snapshot as the daemon does it, printed as a node record, read back,
 * and two snapshots turned into the window between them; the histogram's
 * export (kv and JSON); records that do not compare.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcsmux/control.h>

#include "core/nodestats.h"
#include "json_valid.h"

#define US 1000ULL

/* What control_views.c's node_snap takes from the accounting. */
static void snap(const struct nodestats *st, struct ctl_node_info *ni)
{
	memset(ni, 0, sizeof(*ni));
	ni->name = "ipmi1";
	ni->preset = "monitor";
	ni->access = "all";
	ni->requests = st->requests;
	ni->completed = st->completed;
	ni->errors = st->errors;
	ni->lat_p99_ns = nodestats_hist_quantile(&st->latency, 0.99);
	ni->lat_max_ns = st->latency.max_ns;
	ni->lat_count = st->latency.count;
	ni->lat_sum_ns = st->latency.sum_ns;
	ni->lat_bound_ns = nodestats_bounds_ns;
	memcpy(ni->lat_bucket, st->latency.bucket, sizeof(ni->lat_bucket));
}

/* The node record as kcsmuxctl gets it, parsed into L. */
static void record(const struct nodestats *st, struct ctl_kvlist *l)
{
	struct ctl_node_info ni;
	struct ctl_buf b;
	char err[128];

	snap(st, &ni);
	ctl_buf_init(&b);
	ctl_node_kv(&b, &ni);
	ck_assert(!b.oom);
	ck_assert_msg(ctl_kv_parse(b.data, b.len, l, err, sizeof(err)) == 0,
		      "%s", err);
	ctl_buf_free(&b);
}

/* N requests, each answered after LAT_NS, ERRS of them with an error. */
static void traffic(struct nodestats *st, int n, uint64_t lat_ns, int errs)
{
	struct nodestats_txn t = { .latency_ns = lat_ns, .cc = 0 };
	int i;

	for (i = 0; i < n; i++) {
		t.error = i < errs;
		t.cc = t.error ? 0xc9 : 0;
		nodestats_request(st);
		nodestats_dispatch(st, 0);
		nodestats_complete(st, 0, &t);
	}
}

/* The window from all of list A to all of list B, SECS later. */
static int win(const struct ctl_kvlist *a, const struct ctl_kvlist *b,
	       double secs, struct ctl_window *w)
{
	struct ctl_rec ra = { a, 0, a->n }, rb = { b, 0, b->n };

	return ctl_window(&ra, &rb, secs, w);
}

START_TEST(test_hist_export)
{
	struct nodestats st;
	struct ctl_node_info ni;
	struct ctl_kvlist l;
	struct ctl_hist h;
	struct ctl_buf b;
	size_t i;

	nodestats_init(&st, 0, 0);
	traffic(&st, 3, 1200 * US, 0);
	traffic(&st, 1, 20 * 1000000000ULL, 0); /* past the last bound */
	record(&st, &l);
	ck_assert_str_eq(ctl_kv_find(&l, 0, l.n, "latency_count"), "4");
	ck_assert_str_eq(ctl_kv_find(&l, 0, l.n, "latency_sum_ns"),
			 "20003600000");
	ck_assert_str_eq(ctl_kv_find(&l, 0, l.n, "latency_bounds_ns"),
			 "50000 70000 100000 150000 200000 300000 400000 "
			 "500000 700000 1000000 1500000 2000000 3000000 "
			 "4000000 5000000 7000000 10000000 15000000 20000000 "
			 "30000000 40000000 50000000 70000000 100000000 "
			 "150000000 200000000 300000000 400000000 500000000 "
			 "700000000 1000000000 1500000000 2000000000 "
			 "3000000000 4000000000 5000000000 7000000000 "
			 "10000000000");
	/* 1.2 ms in (1, 1.5] ms, bucket 10; 20 s in +Inf, bucket 38 */
	ck_assert_str_eq(ctl_kv_find(&l, 0, l.n, "latency_buckets"),
			 "0 0 0 0 0 0 0 0 0 0 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
			 "0 0 0 0 0 0 0 0 0 0 0 0 0 1");
	ck_assert_int_eq(ctl_hist_get(&l, 0, l.n, &h), 0);
	ck_assert_uint_eq(h.n, NODESTATS_NBUCKETS);
	ck_assert_uint_eq(h.count, 4);
	ck_assert_uint_eq(h.sum_ns, 20003600000ULL);
	for (i = 0; i + 1 < h.n; i++)
		ck_assert_uint_eq(h.bound_ns[i], nodestats_bounds_ns[i]);
	for (i = 0; i < h.n; i++)
		ck_assert_uint_eq(h.bucket[i], st.latency.bucket[i]);
	ctl_kvlist_free(&l);

	/* JSON: numbers as numbers */
	snap(&st, &ni);
	ctl_buf_init(&b);
	ctl_node_json(&b, &ni);
	ck_assert_msg(json_valid(b.data, b.len), "invalid JSON: %s", b.data);
	ck_assert_ptr_nonnull(strstr(b.data, "\"latency_count\": 4, "
					     "\"latency_sum_ns\": 20003600000,"
					     "\n  \"latency_bounds_ns\": "
					     "[50000, 70000, 100000, "));
	ck_assert_ptr_nonnull(strstr(b.data, "7000000000, 10000000000],\n  "
					     "\"latency_buckets\": [0, 0, "));
	ck_assert_ptr_nonnull(strstr(b.data, ", 3, 0, "));
	ck_assert_ptr_nonnull(strstr(b.data, "0, 0, 1], \"cpu_ppm\": "));

	/* No bounds: no histogram in either form (and none read back). */
	ni.lat_bound_ns = NULL;
	ctl_buf_reset(&b);
	ctl_node_json(&b, &ni);
	ck_assert_msg(json_valid(b.data, b.len), "invalid JSON: %s", b.data);
	ck_assert_ptr_null(strstr(b.data, "latency_buckets"));
	ctl_buf_reset(&b);
	ctl_node_kv(&b, &ni);
	ck_assert_int_eq(ctl_kv_parse(b.data, b.len, &l, NULL, 0), 0);
	ck_assert_ptr_null(ctl_kv_find(&l, 0, l.n, "latency_buckets"));
	ck_assert_int_eq(ctl_hist_get(&l, 0, l.n, &h), -1);
	ctl_kvlist_free(&l);
	ctl_buf_free(&b);
}
END_TEST

/*
 * Since start the node served 1000 requests at 300 us; then 40 in the
 * window: 30 at 1.2 ms, 10 at 2.5 ms, 2 of them errors. The window must
 * see only the 40.
 */
START_TEST(test_window_two_snapshots)
{
	struct nodestats st;
	struct ctl_kvlist a, b;
	struct ctl_window w;
	uint64_t lo = 2 * 1000 * US, hi;

	nodestats_init(&st, 0, 0);
	traffic(&st, 1000, 300 * US, 1);
	record(&st, &a);
	traffic(&st, 30, 1200 * US, 2);
	traffic(&st, 10, 2500 * US, 0);
	record(&st, &b);

	ck_assert_int_eq(win(&a, &b, 2.0, &w), 0);
	ck_assert_uint_eq(w.requests, 40);
	ck_assert_uint_eq(w.completed, 40);
	ck_assert_uint_eq(w.errors, 2);
	ck_assert_double_eq_tol(w.rate, 20.0, 1e-9);
	ck_assert_double_eq_tol(w.secs, 2.0, 1e-9);
	/* (30 * 1200 + 10 * 2500) / 40 us */
	ck_assert_uint_eq(w.mean_ns, 1525 * US);
	/*
	 * p99: rank 39.6, 30 below (2, 3] ms, so 9.6 of its 10, linear
	 * from 2 ms to the maximum seen (2.5 ms, read back from whole us:
	 * + 0.499 us).
	 */
	hi = 2500 * US + 499;
	ck_assert_uint_eq(w.p99_ns,
			  lo + (uint64_t)((double)(hi - lo) * 0.96 + 0.5));
	/*
	 * Since start the p99 is another figure: rank 1029.6 of 1040, 1000
	 * at 300 us below (1, 1.5] ms, so 29.6 of its 30.
	 */
	ck_assert_str_eq(ctl_kv_find(&b, 0, b.n, "latency_p99_us"), "1493");

	/* The same record twice: an empty window, no division by zero. */
	ck_assert_int_eq(win(&b, &b, 1.0, &w), 0);
	ck_assert_uint_eq(w.requests, 0);
	ck_assert_uint_eq(w.completed, 0);
	ck_assert_uint_eq(w.mean_ns, 0);
	ck_assert_uint_eq(w.p99_ns, 0);
	ck_assert_double_eq(w.rate, 0);

	/* Backwards (the daemon restarted between them): no window. */
	ck_assert_int_eq(win(&b, &a, 2.0, &w), -1);
	ck_assert_uint_eq(w.requests, 0);
	/* No time between them: no rate. */
	ck_assert_int_eq(win(&a, &b, 0.0, &w), -1);
	ctl_kvlist_free(&a);
	ctl_kvlist_free(&b);
}
END_TEST

/* A record made of TEXT; ctl_hist_get's verdict on it. */
static int hist_of(const char *text)
{
	struct ctl_kvlist l;
	struct ctl_hist h;
	int rv;

	ck_assert_int_eq(ctl_kv_parse(text, strlen(text), &l, NULL, 0), 0);
	rv = ctl_hist_get(&l, 0, l.n, &h);
	ctl_kvlist_free(&l);
	return rv;
}

START_TEST(test_hist_malformed)
{
#define REC(count, bounds, buckets)                            \
	"node=n\nlatency_count=" count "\nlatency_sum_ns=10\n" \
	"latency_max_us=5\nlatency_bounds_ns=" bounds          \
	"\nlatency_buckets=" buckets "\n"

	ck_assert_int_eq(hist_of(REC("3", "10 20", "1 1 1")), 0);
	ck_assert_int_eq(hist_of(REC("3", "", "3")), 0); /* only +Inf */
	ck_assert_int_eq(hist_of(REC("4", "10 20", "1 1 1")), -1);
	ck_assert_int_eq(hist_of(REC("3", "20 10", "1 1 1")), -1);
	ck_assert_int_eq(hist_of(REC("3", "10 10", "1 1 1")), -1);
	ck_assert_int_eq(hist_of(REC("3", "10 20", "1 2")), -1);
	ck_assert_int_eq(hist_of(REC("3", "10 20", "1 1 1 0")), -1);
	ck_assert_int_eq(hist_of(REC("3", "10 20 ", "1 1 1")), -1);
	ck_assert_int_eq(hist_of(REC("3", "10  20", "1 1 1")), -1);
	ck_assert_int_eq(hist_of(REC("3", "10 x", "1 1 1")), -1);
	ck_assert_int_eq(hist_of(REC("3", "10 20", "1 1 -1")), -1);
	ck_assert_int_eq(hist_of(REC("3", "10 20", "1 1 +1")), -1);
	ck_assert_int_eq(hist_of(REC("x", "10 20", "1 1 1")), -1);
	ck_assert_int_eq(hist_of(REC("3", "10 20", "1 1 18446744073709551615")),
			 -1); /* the sum overflows */
	ck_assert_int_eq(hist_of(REC("3", "10 20", "1 1 18446744073709551616")),
			 -1);
	ck_assert_int_eq(hist_of("node=n\nlatency_count=0\n"), -1);
#undef REC
}
END_TEST

/* Histograms of other bounds do not compare. */
START_TEST(test_window_other_bounds)
{
	static const char a[] = "node=n\nrequests=1\nerrors=0\nlatency_count=1"
				"\nlatency_sum_ns=5\nlatency_max_us=0\n"
				"latency_bounds_ns=10 20\nlatency_buckets=1 0 0"
				"\n";
	static const char b[] = "node=n\nrequests=2\nerrors=0\nlatency_count=2"
				"\nlatency_sum_ns=10\nlatency_max_us=0\n"
				"latency_bounds_ns=10 30\nlatency_buckets=2 0 0"
				"\n";
	struct ctl_kvlist la, lb;
	struct ctl_window w;

	ck_assert_int_eq(ctl_kv_parse(a, strlen(a), &la, NULL, 0), 0);
	ck_assert_int_eq(ctl_kv_parse(b, strlen(b), &lb, NULL, 0), 0);
	ck_assert_int_eq(win(&la, &la, 1, &w), 0);
	ck_assert_int_eq(win(&la, &lb, 1, &w), -1);
	ctl_kvlist_free(&la);
	ctl_kvlist_free(&lb);
}
END_TEST

static Suite *control_window_suite(void)
{
	Suite *s = suite_create("control_window");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_hist_export);
	tcase_add_test(tc, test_window_two_snapshots);
	tcase_add_test(tc, test_hist_malformed);
	tcase_add_test(tc, test_window_other_bounds);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(control_window_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
