/* SPDX-License-Identifier: GPL-2.0 */
/*
 * adapt_record.h - adapt_record() with the sample's fields as arguments,
 * as the tests of the adaptive model and of kcsmuxctl's view of it write
 * their samples. Header-only, static.
 */
#ifndef KCSMUX_TEST_ADAPT_RECORD_H
#define KCSMUX_TEST_ADAPT_RECORD_H

#include "core/adaptive.h"

static inline void record(struct adapt *a, uint8_t netfn, uint8_t cmd,
			  const struct adapt_choice *used, uint64_t resp_ns,
			  uint32_t sleeps, uint32_t bmc_us, uint64_t cpu_ns,
			  uint64_t t)
{
	struct adapt_sample smp = { resp_ns, sleeps, bmc_us, cpu_ns };

	adapt_record(a, netfn, cmd, used, &smp, t);
}

#endif /* KCSMUX_TEST_ADAPT_RECORD_H */
