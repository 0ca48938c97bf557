/* SPDX-License-Identifier: GPL-2.0 */
/* clock.h - the daemon's one clock (util/clock.c). */
#ifndef KCSMUX_CLOCK_H
#define KCSMUX_CLOCK_H

#include <stdint.h>

/* Monotonic time in ns. */
uint64_t now_ns(void);

#endif
