// SPDX-License-Identifier: GPL-2.0
/*
 * nodestats.c - per-node counters, fixed-bound latency histograms with
 * quantile estimates, and a decaying CPU-rate estimator (see nodestats.h).
 */
#include <math.h>
#include <string.h>

#include "core/nodestats.h"
#include "util/hist.h"

#define US 1000ULL
#define MS 1000000ULL
#define S  1000000000ULL

/* 1, 1.5, 2, 3, 4, 5, 7 per decade, 50 us .. 10 s. */
const uint64_t nodestats_bounds_ns[NODESTATS_NBOUNDS] = {
	50 * US,  70 * US,  100 * US, 150 * US,	 200 * US, 300 * US, 400 * US,
	500 * US, 700 * US, 1 * MS,   1500 * US, 2 * MS,   3 * MS,   4 * MS,
	5 * MS,	  7 * MS,   10 * MS,  15 * MS,	 20 * MS,  30 * MS,  40 * MS,
	50 * MS,  70 * MS,  100 * MS, 150 * MS,	 200 * MS, 300 * MS, 400 * MS,
	500 * MS, 700 * MS, 1 * S,    1500 * MS, 2 * S,	   3 * S,    4 * S,
	5 * S,	  7 * S,    10 * S,
};

void nodestats_hist_init(struct nodestats_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

size_t nodestats_bucket(uint64_t v)
{
	size_t lo = 0, hi = NODESTATS_NBOUNDS;

	/* The first bound >= v; NODESTATS_NBOUNDS (+Inf) if none. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nodestats_bounds_ns[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void nodestats_hist_add(struct nodestats_hist *h, uint64_t v)
{
	h->bucket[nodestats_bucket(v)]++;
	h->count++;
	h->sum_ns += v;
	if (v < h->min_ns)
		h->min_ns = v;
	if (v > h->max_ns)
		h->max_ns = v;
}

void nodestats_hist_merge(struct nodestats_hist *dst,
			  const struct nodestats_hist *src)
{
	size_t i;

	for (i = 0; i < NODESTATS_NBUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

uint64_t nodestats_hist_quantile(const struct nodestats_hist *h, double q)
{
	return hist_quantile(nodestats_bounds_ns, NODESTATS_NBOUNDS, h->bucket,
			     h->count, h->min_ns, h->max_ns, q);
}

void nodestats_cpu_init(struct nodestats_cpu *c, uint64_t now_ns,
			uint64_t tau_ns)
{
	c->tau_ns = tau_ns == 0 ? NODESTATS_CPU_TAU_NS : tau_ns;
	c->last_ns = now_ns;
	c->acc_ns = 0;
}

static double cpu_acc_at(const struct nodestats_cpu *c, uint64_t now)
{
	if (now <= c->last_ns)
		return c->acc_ns;
	return c->acc_ns * exp(-(double)(now - c->last_ns) / (double)c->tau_ns);
}

void nodestats_cpu_add(struct nodestats_cpu *c, uint64_t now_ns,
		       uint64_t cpu_ns)
{
	c->acc_ns = cpu_acc_at(c, now_ns) + (double)cpu_ns;
	if (now_ns > c->last_ns)
		c->last_ns = now_ns;
}

double nodestats_cpu_ppm(const struct nodestats_cpu *c, uint64_t now_ns)
{
	return cpu_acc_at(c, now_ns) * 1e6 / (double)c->tau_ns;
}

bool nodestats_cpu_over(const struct nodestats_cpu *c, uint64_t now_ns,
			uint32_t budget_ppm)
{
	return budget_ppm != 0 && nodestats_cpu_ppm(c, now_ns) > budget_ppm;
}

uint64_t nodestats_cpu_under_at(const struct nodestats_cpu *c, uint64_t now_ns,
				uint32_t budget_ppm)
{
	double ratio, dt;
	uint64_t t;

	if (!nodestats_cpu_over(c, now_ns, budget_ppm))
		return now_ns;
	/* acc * e^(-dt / tau) * 1e6 / tau = budget, dt from last_ns */
	ratio = c->acc_ns * 1e6 / ((double)c->tau_ns * budget_ppm);
	dt = (double)c->tau_ns * log(ratio);
	if (dt > 9e18)
		return UINT64_MAX;
	t = c->last_ns + (uint64_t)dt + 1;
	return t > now_ns ? t : now_ns;
}

static const char *const cc_labels[NODESTATS_NCC] = {
	"0x00", "0xc0", "0xc1", "0xc2", "0xc3", "0xc4", "0xc5", "0xc6",	 "0xc7",
	"0xc8", "0xc9", "0xca", "0xcb", "0xcc", "0xcd", "0xce", "0xcf",	 "0xd0",
	"0xd1", "0xd2", "0xd3", "0xd4", "0xd5", "0xd6", "0xff", "other",
};

size_t nodestats_cc_slot(uint8_t cc)
{
	if (cc == 0x00)
		return 0;
	if (cc >= 0xc0 && cc <= 0xd6)
		return 1 + (size_t)(cc - 0xc0);
	if (cc == 0xff)
		return NODESTATS_CC_OTHER - 1;
	return NODESTATS_CC_OTHER;
}

const char *nodestats_cc_label(size_t i)
{
	return i < NODESTATS_NCC ? cc_labels[i] : NULL;
}

void nodestats_init(struct nodestats *st, uint64_t now_ns, uint64_t cpu_tau_ns)
{
	memset(st, 0, sizeof(*st));
	nodestats_hist_init(&st->latency);
	nodestats_hist_init(&st->queue_wait);
	nodestats_cpu_init(&st->cpu, now_ns, cpu_tau_ns);
	nodestats_cpu_init(&st->poller_cpu, now_ns, cpu_tau_ns);
}

void nodestats_request(struct nodestats *st)
{
	st->requests++;
}

void nodestats_reject(struct nodestats *st)
{
	st->rejected++;
}

void nodestats_cancel(struct nodestats *st)
{
	st->cancelled++;
}

void nodestats_dispatch(struct nodestats *st, uint64_t queue_wait_ns)
{
	st->dispatched++;
	nodestats_hist_add(&st->queue_wait, queue_wait_ns);
}

void nodestats_complete(struct nodestats *st, uint64_t now_ns,
			const struct nodestats_txn *txn)
{
	st->completed++;
	if (txn->error)
		st->errors++;
	if (txn->cc >= 0 && txn->cc <= 0xff)
		st->cc[nodestats_cc_slot((uint8_t)txn->cc)]++;
	st->service_ns += txn->service_ns;
	st->cpu_ns += txn->cpu_ns;
	st->spin_ns += txn->spin_ns;
	nodestats_hist_add(&st->latency, txn->latency_ns);
	nodestats_cpu_add(&st->cpu, now_ns, txn->cpu_ns);
	nodestats_cpu_add(&st->poller_cpu, now_ns, txn->cpu_ns);
}

void nodestats_daemon_cpu(struct nodestats *st, uint64_t now_ns,
			  uint64_t cpu_ns)
{
	st->daemon_cpu_ns += cpu_ns;
	nodestats_cpu_add(&st->cpu, now_ns, cpu_ns);
}
