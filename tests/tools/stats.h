/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small summary statistics over unsigned 64-bit samples (latencies in ns,
 * durations in us, ...). Pure logic: no I/O, no allocation, no libm, so the
 * static guest helpers and the host unit tests can share it.
 *
 * Percentiles use the nearest-rank method on the ascending-sorted samples:
 *   rank = ceil(p / 100 * n), clamped to [1, n]; result = sorted[rank - 1].
 * So p0 is the minimum, p100 the maximum, and for an even count p50 is the
 * lower of the two middle values. Every reported value is an actual sample.
 */
#ifndef KCSMUX_TESTS_STATS_H
#define KCSMUX_TESTS_STATS_H

#include <stddef.h>
#include <stdint.h>

struct kcsmux_stats {
	size_t n;
	uint64_t min;
	uint64_t max;
	uint64_t p50;
	uint64_t p90;
	uint64_t p99;
	uint64_t sum; /* saturates at UINT64_MAX instead of wrapping */
	double mean;  /* sum / n; 0 when n == 0 */
};

/* Sort v[0..n) ascending, in place. */
void kcsmux_stats_sort(uint64_t *v, size_t n);

/*
 * Nearest-rank percentile of an already sorted array. p is in percent and is
 * clamped to [0, 100]; it is resolved to 1/10000 of a percent, so p = 99.9 is
 * exact. Returns 0 when n == 0.
 */
uint64_t kcsmux_stats_percentile(const uint64_t *sorted, size_t n, double p);

/*
 * Sort v in place and fill *out. n == 0 yields all-zero fields. v may be NULL
 * only when n == 0.
 */
void kcsmux_stats_compute(uint64_t *v, size_t n, struct kcsmux_stats *out);

#endif
