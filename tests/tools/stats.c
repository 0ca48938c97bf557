// SPDX-License-Identifier: GPL-2.0
/* Summary statistics for the test tools; see stats.h. */
#include "stats.h"

/* Heapsort: in place, O(n log n) worst case, no allocation. */
static void sift_down(uint64_t *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;

		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		uint64_t t = v[root];

		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

void kcsmux_stats_sort(uint64_t *v, size_t n)
{
	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n - 1; end > 0; end--) {
		uint64_t t = v[0];

		v[0] = v[end];
		v[end] = t;
		sift_down(v, 0, end);
	}
}

uint64_t kcsmux_stats_percentile(const uint64_t *sorted, size_t n, double p)
{
	/* p in units of 1/10000 percent: 100% == 1000000. */
	const uint64_t full = 1000000;
	uint64_t pu, rank;

	if (n == 0)
		return 0;
	if (!(p > 0.0)) /* also catches NaN */
		return sorted[0];
	if (p >= 100.0)
		return sorted[n - 1];
	pu = (uint64_t)(p * 10000.0 + 0.5);
	/* ceil(pu * n / full) without overflow for any realistic n. */
	rank = (uint64_t)n / full * pu +
	       ((uint64_t)n % full * pu + full - 1) / full;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

void kcsmux_stats_compute(uint64_t *v, size_t n, struct kcsmux_stats *out)
{
	uint64_t sum = 0;

	*out = (struct kcsmux_stats){ .n = n };
	if (n == 0)
		return;
	kcsmux_stats_sort(v, n);
	for (size_t i = 0; i < n; i++)
		sum = (v[i] > UINT64_MAX - sum) ? UINT64_MAX : sum + v[i];
	out->min = v[0];
	out->max = v[n - 1];
	out->p50 = kcsmux_stats_percentile(v, n, 50.0);
	out->p90 = kcsmux_stats_percentile(v, n, 90.0);
	out->p99 = kcsmux_stats_percentile(v, n, 99.0);
	out->sum = sum;
	out->mean = (double)sum / (double)n;
}
