// SPDX-License-Identifier: GPL-2.0
/*
 * adaptive.c - the adaptive backoff's model: per class windows of BMC
 * response times, published quantiles with hysteresis, and the choice of
 * first_us / poll_us. See adaptive.h.
 */
#include <string.h>

#include "core/adaptive.h"

#define Q_LO  100 /* permille */
#define Q_MID 500
#define Q_HI  900
#ifndef BAND_Z10
#define BAND_Z10 15 /* hysteresis band, sigmas x 10 */
#endif

static uint32_t sat_u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static uint32_t isqrt(uint64_t v)
{
	uint64_t r = 0, bit = 1ULL << 62;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else
			r >>= 1;
		bit >>= 2;
	}
	return (uint32_t)r;
}

static void window_init(struct adapt_window *w)
{
	memset(w, 0, sizeof(*w));
}

/*
 * Publish the QM-permille quantile of the sorted V[N] into *PUB unless
 * *PUB still lies within the order statistics q n -+ z sqrt(n q (1 - q)),
 * z = BAND_Z10 / 10.
 */
static void publish_q(uint32_t *pub, const uint32_t *v, uint32_t n, uint32_t qm,
		      bool force)
{
	uint32_t k, d, lo, hi;

	if (n == 0)
		return;
	k = (n * qm + 999) / 1000;
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	d = (isqrt((uint64_t)n * qm * (1000 - qm)) * BAND_Z10 / 10 + 999) /
	    1000;
	lo = k > d ? k - d : 1;
	hi = k + d < n ? k + d : n;
	if (force || *pub < v[lo - 1] || *pub > v[hi - 1])
		*pub = v[k - 1];
}

static void window_publish(struct adapt_window *w, bool force)
{
	uint32_t v[ADAPT_WINDOW], i, j, x;

	for (i = 0; i < w->n; i++) {
		x = w->v[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	publish_q(&w->lo_us, v, w->n, Q_LO, force);
	publish_q(&w->mid_us, v, w->n, Q_MID, force);
	publish_q(&w->hi_us, v, w->n, Q_HI, force);
}

/* Keep only the newest K samples (a run that outdated the rest). */
static void window_keep(struct adapt_window *w, uint32_t k)
{
	uint32_t tmp[ADAPT_WINDOW], i;

	if (k > w->n)
		k = w->n;
	for (i = 0; i < k; i++)
		tmp[i] = w->v[(w->head + ADAPT_WINDOW - k + i) % ADAPT_WINDOW];
	memcpy(w->v, tmp, k * sizeof(tmp[0]));
	w->n = k;
	w->head = k % ADAPT_WINDOW;
	w->flushes++;
}

/*
 * Record the overrun ratio PM (the measured wake over the nominal
 * sleeps, permille); true if it is sporadic: above 1.5 times the lower
 * quartile of the ratios before it. An overrun in more than 3/4 of the
 * transactions (TCG, a host loaded for long) is steady: it moves the
 * quartile within a few transactions and is then learned as usual.
 */
static bool over_sporadic(struct adapt_window *w, uint32_t pm)
{
	uint16_t v[ADAPT_OVER_N], x;
	uint32_t i, j, q = 0;

	for (i = 0; i < w->over_n; i++) {
		x = w->over_pm[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	if (w->over_n >= 3)
		q = v[w->over_n / 4];
	w->over_pm[w->over_head] =
		(uint16_t)(pm > UINT16_MAX ? UINT16_MAX : pm);
	w->over_head = (w->over_head + 1) % ADAPT_OVER_N;
	if (w->over_n < ADAPT_OVER_N)
		w->over_n++;
	return q != 0 && (uint64_t)pm * 2 > (uint64_t)q * 3;
}

static void window_add(struct adapt_window *w, const struct adapt_choice *used,
		       const struct adapt_sample *smp)
{
	uint64_t resp_ns = smp->resp_ns, cpu_ns = smp->cpu_ns;
	uint32_t sleeps = smp->sleeps, bmc_us = smp->bmc_us;
	uint32_t resp = sat_u32(resp_ns / 1000), est = resp, hs = 0, poll, half;
	uint64_t wake = 0, span;
	bool censored = false, force = false;

	if (used != NULL && used->first_us != 0 && sleeps != 0) {
		/*
		 * The wake that found the BMC done: measured by kcsraw, or
		 * reckoned from the nominal sleeps (which a loaded or
		 * emulated host overruns, so the reckoning runs short).
		 * The BMC was done within the last sleep before it.
		 */
		poll = used->poll_us ? used->poll_us : 1;
		span = poll;
		if (bmc_us) {
			wake = bmc_us;
			if (sleeps > 1 && bmc_us > used->first_us)
				span = (bmc_us - used->first_us) / (sleeps - 1);
		} else {
			wake = used->first_us + (uint64_t)(sleeps - 1) * poll;
		}
		hs = resp > wake ? sat_u32(resp - wake) : 0;
		if (bmc_us && over_sporadic(w, sat_u32(bmc_us * 1000ULL /
						       (used->first_us +
							(uint64_t)(sleeps - 1) *
								poll)))) {
			w->overslept++;
			w->samples++;
			return;
		}
		censored = sleeps == 1;
		est = censored ? used->first_us :
				 sat_u32(wake > span / 2 ? wake - span / 2 : 1);
		if (est == 0)
			est = 1;
	} else if (bmc_us) {
		/* Another policy: the measured wait is the BMC's time to
		 * within a poll, better than the whole response time. */
		wake = bmc_us;
		hs = resp > wake ? sat_u32(resp - wake) : 0;
		est = bmc_us;
	}
	if (censored) {
		w->censored++;
		w->censored_run++;
	} else {
		w->censored_run = 0;
		w->probe_us = 0;
	}
	/*
	 * Three censored in a row (first_us aims below ~90% of the window,
	 * so by chance ~1e-4): the BMC got faster and the window is history.
	 */
	if (w->censored_run >= ADAPT_FLUSH_RUN) {
		window_keep(w, 0);
		force = true;
	}
	/*
	 * The other direction: ADAPT_SLOW_RUN samples in a row above the
	 * published p90 (by chance ~1e-4) mean the BMC got slower; the
	 * hysteresis would otherwise hold the old quantiles until most of
	 * the window had turned over. Keep just that run. Only against a
	 * settled window (half full): right after a restart p90 is a guess.
	 */
	if (!censored && w->n >= ADAPT_WINDOW / 2 && est > w->hi_us)
		w->slow_run++;
	else
		w->slow_run = 0;
	if (w->slow_run >= ADAPT_SLOW_RUN) {
		window_keep(w, ADAPT_SLOW_RUN - 1);
		w->slow_run = 0;
		force = true;
	}

	w->v[w->head] = est;
	w->head = (w->head + 1) % ADAPT_WINDOW;
	if (w->n < ADAPT_WINDOW)
		w->n++;
	w->samples++;
	if (w->samples == 1) {
		w->cpu_avg_ns = cpu_ns;
		w->hs_us = hs;
		force = true;
	} else {
		w->cpu_avg_ns = w->cpu_avg_ns - w->cpu_avg_ns / 8 + cpu_ns / 8;
		if (wake != 0)
			w->hs_us =
				(uint32_t)(((uint64_t)w->hs_us * 7 + hs) / 8);
	}
	window_publish(w, force);
	/* Two censored in a row: probe down, half the first sleep, until a
	 * transaction outlasts the first sleep again. */
	if (w->censored_run >= 2) {
		half = est / 2 ? est / 2 : 1;
		if (w->probe_us == 0 || half < w->probe_us)
			w->probe_us = half;
	}
	if (w->mid_us < w->lo_us)
		w->mid_us = w->lo_us;
	if (w->hi_us < w->mid_us)
		w->hi_us = w->mid_us;
}

/* The low quantile the first sleep aims at. */
static uint32_t window_lo(const struct adapt_window *w)
{
	return w->probe_us && w->probe_us < w->lo_us ? w->probe_us : w->lo_us;
}

void adapt_init(struct adapt *a)
{
	size_t i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < ADAPT_CLASSES; i++)
		window_init(&a->cls[i].w);
	window_init(&a->node);
}

static const struct adapt_class *class_find(const struct adapt *a,
					    uint8_t netfn, uint8_t cmd)
{
	size_t i;

	for (i = 0; i < ADAPT_CLASSES; i++)
		if (a->cls[i].used && a->cls[i].netfn == netfn &&
		    a->cls[i].cmd == cmd)
			return &a->cls[i];
	return NULL;
}

/* The class's entry; a free or the least recently used one if new. */
static struct adapt_class *class_get(struct adapt *a, uint8_t netfn,
				     uint8_t cmd)
{
	struct adapt_class *c = (struct adapt_class *)class_find(a, netfn, cmd);
	struct adapt_class *victim = NULL;
	size_t i;

	if (c != NULL)
		return c;
	for (i = 0; i < ADAPT_CLASSES; i++) {
		c = &a->cls[i];
		if (!c->used) {
			victim = c;
			break;
		}
		if (victim == NULL || c->last_ns < victim->last_ns ||
		    (c->last_ns == victim->last_ns && c->seq < victim->seq))
			victim = c;
	}
	if (victim->used)
		a->evictions++;
	memset(victim, 0, sizeof(*victim));
	window_init(&victim->w);
	victim->used = true;
	victim->netfn = netfn;
	victim->cmd = cmd;
	return victim;
}

void adapt_record(struct adapt *a, uint8_t netfn, uint8_t cmd,
		  const struct adapt_choice *used,
		  const struct adapt_sample *smp, uint64_t now_ns)
{
	struct adapt_class *c = class_get(a, netfn, cmd);

	c->last_ns = now_ns;
	c->seq = ++a->seq;
	window_add(&c->w, used, smp);
	window_add(&a->node, used, smp);
}

static const struct adapt_window *pick(const struct adapt *a, uint8_t netfn,
				       uint8_t cmd, bool *own)
{
	const struct adapt_class *c = class_find(a, netfn, cmd);

	*own = false;
	if (c != NULL && c->w.samples >= ADAPT_MIN_SAMPLES) {
		*own = true;
		return &c->w;
	}
	if (a->node.samples >= ADAPT_MIN_SAMPLES)
		return &a->node;
	return NULL;
}

static void window_info(const struct adapt_window *w, bool own,
			struct adapt_info *info)
{
	info->own = own;
	info->n = w->n;
	info->lo_us = window_lo(w);
	info->mid_us = w->mid_us;
	info->hi_us = w->hi_us;
	info->hs_us = w->hs_us;
	info->samples = w->samples;
	info->censored = w->censored;
	info->flushes = w->flushes;
	info->cpu_avg_ns = w->cpu_avg_ns;
}

int adapt_info(const struct adapt *a, uint8_t netfn, uint8_t cmd,
	       struct adapt_info *info)
{
	const struct adapt_window *w;
	bool own;

	memset(info, 0, sizeof(*info));
	if ((w = pick(a, netfn, cmd, &own)) == NULL)
		return -1;
	window_info(w, own, info);
	return 0;
}

void adapt_each(const struct adapt *a,
		void (*fn)(void *arg, const struct adapt_class *cls,
			   const struct adapt_info *info),
		void *arg)
{
	struct adapt_info info;
	size_t i;

	memset(&info, 0, sizeof(info));
	window_info(&a->node, false, &info);
	fn(arg, NULL, &info);
	for (i = 0; i < ADAPT_CLASSES; i++) {
		if (!a->cls[i].used)
			continue;
		memset(&info, 0, sizeof(info));
		window_info(&a->cls[i].w, true, &info);
		fn(arg, &a->cls[i], &info);
	}
}

void adapt_choose(const struct adapt *a, uint8_t netfn, uint8_t cmd,
		  const struct kcsmux_policy *pol, double cpu_ppm_now,
		  struct adapt_choice *out)
{
	const struct adapt_window *w;
	uint32_t base, max, floor, t, margin, expect, lo;
	uint64_t p;
	double ratio, theta;
	bool own;

	base = pol->poll_us ? pol->poll_us : 1;
	max = pol->poll_max_us > base ? pol->poll_max_us : base;
	floor = base < ADAPT_FLOOR_US ? base : ADAPT_FLOOR_US;
	w = pick(a, netfn, cmd, &own);

	/* Latency target: expected latency ~ mid + handshakes + poll / 2. */
	p = base;
	if (w != NULL && (t = pol->latency_target_us) != 0) {
		expect = sat_u32((uint64_t)w->mid_us + w->hs_us);
		p = expect >= t ? floor : 2 * (uint64_t)(t - expect);
		/* Growing: no coarser than a quarter of the BMC's time, or the
		 * grid of wake-ups blurs the window's estimates (and p). */
		if (p > base && p > w->mid_us / 4)
			p = base > w->mid_us / 4 ? base : w->mid_us / 4;
		if (p < floor)
			p = floor;
		if (p > max)
			p = max;
	}
	/* CPU budget: from 75% of it, grow towards poll_max_us. */
	if (pol->cpu_budget_ppm != 0 && cpu_ppm_now > 0 && p < max) {
		ratio = cpu_ppm_now / pol->cpu_budget_ppm;
		theta = (ratio - ADAPT_BUDGET_LO_PPM / 1e6) /
			(1 - ADAPT_BUDGET_LO_PPM / 1e6);
		if (theta > 1)
			theta = 1;
		if (theta > 0)
			p += (uint64_t)(theta * (double)(max - p) + 0.5);
	}

	out->max_busy_us = 0;
	out->poll_us = (uint32_t)p;
	if (w == NULL) {
		out->first_us = out->poll_us;
		return;
	}
	lo = window_lo(w);
	margin = out->poll_us / 2;
	if (margin > lo / 4)
		margin = lo / 4;
	out->first_us = lo - margin;
	if (out->first_us == 0)
		out->first_us = 1;
}
