/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist.h - a quantile estimated from a histogram of fixed bucket bounds
 * (util/hist.c): the daemon's per-node histograms (core/nodestats.c) and
 * kcsmuxctl's per-interval figures (the difference of two of them,
 * ctlproto/control_proto.c) share it.
 */
#ifndef KCSMUX_HIST_H
#define KCSMUX_HIST_H

#include <stddef.h>
#include <stdint.h>

/*
 * The Q-quantile (0 <= Q <= 1) of COUNT values in NBOUNDS + 1 buckets:
 * BUCKET[i] values in (BOUND[i - 1], BOUND[i]] (the first from 0, the last
 * to +Inf), BOUND rising. As Prometheus' histogram_quantile(): rank Q *
 * COUNT, linear within the bucket holding it, that bucket's range narrowed
 * to [MIN, MAX] (MAX also bounds the +Inf bucket). Q <= 0: MIN; Q >= 1:
 * MAX; 0 when COUNT is 0.
 */
uint64_t hist_quantile(const uint64_t *bound, size_t nbounds,
		       const uint64_t *bucket, uint64_t count, uint64_t min,
		       uint64_t max, double q);

#endif
