// SPDX-License-Identifier: GPL-2.0
/* Check suite for tests/tools/stats.c (nearest-rank percentiles, summary). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../tools/stats.h"
#include "util/array.h"

START_TEST(test_empty)
{
	struct kcsmux_stats st;

	/* Poison first: compute must reset every field. */
	st = (struct kcsmux_stats){ .n = 9,
				    .min = 9,
				    .max = 9,
				    .p50 = 9,
				    .p90 = 9,
				    .p99 = 9,
				    .sum = 9,
				    .mean = 9 };
	kcsmux_stats_compute(NULL, 0, &st);
	ck_assert_uint_eq(st.n, 0);
	ck_assert_uint_eq(st.min, 0);
	ck_assert_uint_eq(st.max, 0);
	ck_assert_uint_eq(st.p50, 0);
	ck_assert_uint_eq(st.p90, 0);
	ck_assert_uint_eq(st.p99, 0);
	ck_assert_uint_eq(st.sum, 0);
	ck_assert(st.mean == 0.0);
	ck_assert_uint_eq(kcsmux_stats_percentile(NULL, 0, 50.0), 0);
	kcsmux_stats_sort(NULL, 0);
}
END_TEST

START_TEST(test_single)
{
	uint64_t v[] = { 42 };
	struct kcsmux_stats st;

	kcsmux_stats_compute(v, 1, &st);
	ck_assert_uint_eq(st.n, 1);
	ck_assert_uint_eq(st.min, 42);
	ck_assert_uint_eq(st.max, 42);
	ck_assert_uint_eq(st.p50, 42);
	ck_assert_uint_eq(st.p90, 42);
	ck_assert_uint_eq(st.p99, 42);
	ck_assert_uint_eq(st.sum, 42);
	ck_assert_double_eq(st.mean, 42.0);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 1, 0.0), 42);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 1, 100.0), 42);
}
END_TEST

START_TEST(test_two)
{
	uint64_t v[] = { 20, 10 };
	struct kcsmux_stats st;

	kcsmux_stats_compute(v, 2, &st);
	ck_assert_uint_eq(v[0], 10); /* sorted in place */
	ck_assert_uint_eq(v[1], 20);
	ck_assert_uint_eq(st.p50, 10); /* lower middle */
	ck_assert_uint_eq(st.p90, 20);
	ck_assert_uint_eq(st.p99, 20);
	ck_assert_double_eq(st.mean, 15.0);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 2, 50.0001), 20);
}
END_TEST

/* 1..10 shuffled: nearest rank gives p50 = 5, p90 = 9, p99 = 10. */
START_TEST(test_ten)
{
	uint64_t v[] = { 7, 3, 10, 1, 9, 2, 8, 5, 4, 6 };
	struct kcsmux_stats st;

	kcsmux_stats_compute(v, ARRAY_SIZE(v), &st);
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		ck_assert_uint_eq(v[i], i + 1);
	ck_assert_uint_eq(st.min, 1);
	ck_assert_uint_eq(st.max, 10);
	ck_assert_uint_eq(st.p50, 5);
	ck_assert_uint_eq(st.p90, 9);
	ck_assert_uint_eq(st.p99, 10);
	ck_assert_uint_eq(st.sum, 55);
	ck_assert_double_eq(st.mean, 5.5);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 10, 10.0), 1);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 10, 10.5), 2);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 10, 95.0), 10);
}
END_TEST

/* 1..100: percentile p is exactly p; 1..1000: p99.9 is exact. */
START_TEST(test_hundred_thousand)
{
	uint64_t v[1000];

	for (size_t i = 0; i < 100; i++)
		v[i] = 100 - i;
	kcsmux_stats_sort(v, 100);
	for (unsigned int p = 1; p <= 100; p++)
		ck_assert_uint_eq(kcsmux_stats_percentile(v, 100, p), p);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 100, 0.0), 1);

	for (size_t i = 0; i < 1000; i++)
		v[i] = (uint64_t)((i * 7919) % 1000) + 1; /* a permutation */
	kcsmux_stats_sort(v, 1000);
	for (size_t i = 0; i < 1000; i++)
		ck_assert_uint_eq(v[i], i + 1);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 1000, 99.9), 999);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 1000, 99.91), 1000);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 1000, 0.1), 1);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 1000, 0.11), 2);
}
END_TEST

START_TEST(test_out_of_range_p)
{
	uint64_t v[] = { 1, 2, 3 };

	ck_assert_uint_eq(kcsmux_stats_percentile(v, 3, -5.0), 1);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 3, 250.0), 3);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 3, NAN), 1);
	ck_assert_uint_eq(kcsmux_stats_percentile(v, 3, 1e-9), 1);
}
END_TEST

START_TEST(test_duplicates_and_extremes)
{
	uint64_t v[] = { 5, UINT64_MAX, 5, 0, 5, UINT64_MAX };
	struct kcsmux_stats st;

	kcsmux_stats_compute(v, ARRAY_SIZE(v), &st);
	ck_assert_uint_eq(v[0], 0);
	ck_assert_uint_eq(v[1], 5);
	ck_assert_uint_eq(v[3], 5);
	ck_assert_uint_eq(v[4], UINT64_MAX);
	ck_assert_uint_eq(st.min, 0);
	ck_assert_uint_eq(st.max, UINT64_MAX);
	ck_assert_uint_eq(st.p50, 5);
	ck_assert_uint_eq(st.p90, UINT64_MAX);
	ck_assert_uint_eq(st.sum, UINT64_MAX); /* saturated */
}
END_TEST

/* Sorting agrees with a brute-force check on pseudo-random data. */
START_TEST(test_sort_random)
{
	enum { N = 5000 };
	uint64_t *v = malloc(N * sizeof(*v));
	uint64_t x = 88172645463325252ull, sum = 0, sum2 = 0;

	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i] = x % 997; /* many duplicates */
		sum += v[i];
	}
	kcsmux_stats_sort(v, N);
	for (size_t i = 0; i < N; i++) {
		if (i)
			ck_assert_uint_le(v[i - 1], v[i]);
		sum2 += v[i];
	}
	ck_assert_uint_eq(sum, sum2);
	free(v);
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_single);
	tcase_add_test(tc, test_two);
	tcase_add_test(tc, test_ten);
	tcase_add_test(tc, test_hundred_thousand);
	tcase_add_test(tc, test_out_of_range_p);
	tcase_add_test(tc, test_duplicates_and_extremes);
	tcase_add_test(tc, test_sort_random);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
