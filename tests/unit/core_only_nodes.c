// SPDX-License-Identifier: GPL-2.0
/*
 * core_only_nodes.c - for tests of admin/ (control.c, metrics.c) that link
 * fused/core/core.c for core_nodes(), the one node order, but run no core:
 * what else core.c calls (core_init/core_fini, the backend callbacks) is
 * never reached there, so each of these aborts if it is. Weak: a test
 * that links the real one (sched.c) or its own (xact_kick) gets that.
 */
#include <stdint.h>
#include <stdlib.h>

#include "kcsmuxd.h"
#include "core/sdrglue.h"
#include "core/xact.h"

__attribute__((weak)) void bmc_setup_recheck(struct daemon *d)
{
	(void)d;
	abort();
}

__attribute__((weak)) void bmc_setup_fini(struct daemon *d)
{
	(void)d;
	abort();
}

__attribute__((weak)) void xact_free(struct xact *x)
{
	(void)x;
	abort();
}

__attribute__((weak)) void bridge_init(struct daemon *d)
{
	(void)d;
	abort();
}

__attribute__((weak)) void bridge_fini(struct daemon *d)
{
	(void)d;
	abort();
}

__attribute__((weak)) void bridge_attention(struct daemon *d)
{
	(void)d;
	abort();
}

__attribute__((weak)) void sdrglue_fini(struct daemon *d)
{
	(void)d;
	abort();
}

__attribute__((weak)) void xact_complete(struct daemon *d, uint64_t cookie,
					 int status, const uint8_t *resp,
					 unsigned int len,
					 const struct kcsraw_cost *cost)
{
	(void)d;
	(void)cookie;
	(void)status;
	(void)resp;
	(void)len;
	(void)cost;
	abort();
}

__attribute__((weak)) void xact_kick(struct daemon *d)
{
	(void)d;
	abort();
}

__attribute__((weak)) void sched_init(struct sched *s, uint64_t aging_ns)
{
	(void)s;
	(void)aging_ns;
	abort();
}

__attribute__((weak)) void nodestats_init(struct nodestats *st, uint64_t now,
					  uint64_t cpu_tau_ns)
{
	(void)st;
	(void)now;
	(void)cpu_tau_ns;
	abort();
}

__attribute__((weak)) void adapt_init(struct adapt *a)
{
	(void)a;
	abort();
}

__attribute__((weak)) void sched_flow_attach(struct sched *s,
					     struct sched_flow *f,
					     const struct kcsmux_policy *pol,
					     uint64_t now)
{
	(void)s;
	(void)f;
	(void)pol;
	(void)now;
	abort();
}
