// SPDX-License-Identifier: GPL-2.0
/*
 * hist.c - a quantile estimated from a histogram of fixed bucket bounds
 * (see hist.h).
 */
#include "util/hist.h"

uint64_t hist_quantile(const uint64_t *bound, size_t nbounds,
		       const uint64_t *bucket, uint64_t count, uint64_t min,
		       uint64_t max, double q)
{
	double rank, cum = 0, lo, hi, est;
	size_t i;

	if (count == 0)
		return 0;
	if (!(q > 0))
		return min;
	if (q >= 1)
		return max;
	rank = q * (double)count;
	for (i = 0; i <= nbounds; i++) {
		if (bucket[i] != 0 && cum + (double)bucket[i] >= rank)
			break;
		cum += (double)bucket[i];
	}
	if (i > nbounds) /* rounding: rank just below count */
		return max;
	lo = i == 0 ? 0 : (double)bound[i - 1];
	hi = i == nbounds ? (double)max : (double)bound[i];
	if (lo < (double)min)
		lo = (double)min;
	if (hi > (double)max)
		hi = (double)max;
	est = lo + (hi - lo) * (rank - cum) / (double)bucket[i];
	if (est < lo)
		est = lo;
	return (uint64_t)(est + 0.5);
}
