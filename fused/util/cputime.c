// SPDX-License-Identifier: GPL-2.0
/* cputime.c - the calling thread's CPU time (clock.h); its own file so a
 * test that brings its own now_ns() still links this one. */
#include <time.h>

#include "util/clock.h"

uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
