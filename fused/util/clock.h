/* SPDX-License-Identifier: GPL-2.0 */
/* clock.h - the daemon's one clock (util/clock.c). */
#ifndef KCSMUX_CLOCK_H
#define KCSMUX_CLOCK_H

#include <stdint.h>

/* Monotonic time in ns. */
uint64_t now_ns(void);

/* The same in ms. */
static inline uint64_t now_ms(void)
{
	return now_ns() / 1000000u;
}
/* The calling thread's CPU time in ns (util/cputime.c): a real system
 * call, ~0.5 us, unlike now_ns's vDSO read (core/cpumeter.c). */
uint64_t thread_cpu_ns(void);

#endif
