// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/core/adaptive.c, the adaptive backoff's model, driven
 * by a simulator: a BMC whose response time follows a given distribution
 * (fixed, uniform, the empirical CDF of a real BMC, a shift mid-run), a
 * poller that wakes at first_us and then every poll_us (or exp backoff)
 * until the BMC is done, a client issuing the next request GAP after the
 * last (closed loop), a per-wake-up CPU cost (45 us, TCG-like) fed to
 * nodestats' CPU estimator. Each transaction's latency = the wake that
 * found the BMC done (+ byte handshakes when modelled), wake-ups = sleeps
 * of the response wait. Compared with fixed 100 us, exp 50..1000 us and
 * the oracle (a poller that wakes exactly when the BMC is done: latency =
 * response time, 1 wake-up; docs: shared notes, benchmark section 4).
 * Numbers are printed on stderr.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/adaptive.h"
#include "core/nodestats.h"
#include "adapt_record.h"

#define US	    1000ULL
#define SEC	    1000000000ULL
#define WAKE_CPU_US 45	/* one timer wake-up of the poller under TCG */
#define GAP_US	    100 /* client's think time between requests */
#define MAXTXN	    40000

static uint64_t lcg_state;

static uint64_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return lcg_state >> 11; /* 53 bits */
}

static double unif(void)
{
	return (double)lcg() / (double)(1ULL << 53);
}

/* ---- BMC response-time distributions ---- */

enum dkind { D_FIXED, D_UNIF, D_SEED };

struct dist {
	enum dkind kind;
	uint32_t a, b; /* fixed a; uniform [a, b] */
	const char *name;
};

/*
 * One real BMC's KCS response times (kipmid-max-busy seed): share of
 * transactions done by each time, 200..2000 us. Sampled by inverting the
 * piecewise linear CDF.
 */
static const struct {
	uint32_t us;
	double f;
} seed_cdf[] = {
	{ 200, 0.00 },	{ 400, 0.21 },	{ 600, 0.39 },
	{ 800, 0.44 },	{ 1000, 0.55 }, { 1200, 0.89 },
	{ 1400, 0.94 }, { 1600, 0.97 }, { 2000, 1.00 },
};

static const struct dist d_fixed = { D_FIXED, 300, 300, "fixed 300" };
static const struct dist d_fast = { D_UNIF, 200, 400, "unif 200-400" };
static const struct dist d_slow = { D_UNIF, 1500, 2000, "unif 1500-2000" };
static const struct dist d_seed = { D_SEED, 0, 0, "seed CDF" };
static const struct dist d_sensor = { D_UNIF, 200, 300, "unif 200-300" };

static uint32_t draw(const struct dist *d)
{
	double u = unif(), x;
	size_t i;

	switch (d->kind) {
	case D_FIXED:
		return d->a;
	case D_UNIF:
		return d->a + (uint32_t)(u * (d->b - d->a));
	case D_SEED:
		for (i = 1; i < sizeof(seed_cdf) / sizeof(seed_cdf[0]) - 1; i++)
			if (u <= seed_cdf[i].f)
				break;
		x = seed_cdf[i - 1].us +
		    (u - seed_cdf[i - 1].f) /
			    (seed_cdf[i].f - seed_cdf[i - 1].f) *
			    (seed_cdf[i].us - seed_cdf[i - 1].us);
		return (uint32_t)x;
	}
	return 0;
}

/* ---- the simulator ---- */

enum pkind { P_ORACLE, P_FIXED, P_EXP, P_ADAPT };

struct sim {
	enum pkind kind;
	uint32_t poll, pmax;	  /* P_FIXED, P_EXP */
	struct kcsmux_policy pol; /* P_ADAPT */
	uint32_t hs_lo, hs_hi;	  /* byte handshakes, us, uniform */
	uint32_t over_pct;	  /* every sleep lasts this % longer */
	uint32_t jit_pct, jit_us; /* ... and this % of them JIT_US more */
	bool no_bmc_us;		  /* do not pass the measured wake */
	bool use_cpu;		  /* pass the CPU estimate to adapt */
	struct adapt ad;
	struct nodestats_cpu cpu;
	uint64_t now_ns;
	uint64_t cpu_ns; /* total */
	/* per transaction */
	uint32_t n;
	uint32_t r[MAXTXN], lat[MAXTXN], wakes[MAXTXN];
	uint32_t first[MAXTXN], pollv[MAXTXN];
	uint64_t t_end[MAXTXN];
	uint8_t cls[MAXTXN];
};

static struct sim S;

static void sim_init(struct sim *s, enum pkind kind, uint32_t poll,
		     uint32_t pmax)
{
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->poll = poll;
	s->pmax = pmax;
	memset(&s->pol, 0, sizeof(s->pol));
	s->pol.backoff = KCSMUX_BACKOFF_ADAPTIVE;
	s->pol.poll_us = poll;
	s->pol.poll_max_us = pmax;
	s->now_ns = 1000 * SEC;
	adapt_init(&s->ad);
	nodestats_cpu_init(&s->cpu, s->now_ns, 0);
	lcg_state = 42;
}

/* Wake at FIRST, then sleep POLL (doubling up to PMAX when EXP) until the
 * BMC is done at R: the latency and the wake-ups. Every sleep lasts OVER
 * percent longer than asked (a loaded or emulated host). */
static uint32_t over_pct, jit_pct, jit_us;

/* How long a sleep of ASK us lasts. */
static uint64_t slept(uint64_t ask)
{
	uint64_t t = ask * (100 + over_pct) / 100;

	if (jit_pct && unif() * 100 < jit_pct)
		t += jit_us;
	return t;
}

static void wait_model(uint32_t first, uint32_t poll, uint32_t pmax, bool exp,
		       uint32_t r, uint32_t *lat, uint32_t *wakes)
{
	uint64_t t = slept(first), step = poll;
	uint32_t w = 1;

	if (exp)
		step = 2 * (uint64_t)poll < pmax ? 2 * (uint64_t)poll : pmax;
	while (t < r) {
		t += slept(step);
		w++;
		if (exp && 2 * step <= pmax)
			step *= 2;
		else if (exp)
			step = pmax;
	}
	*lat = (uint32_t)t;
	*wakes = w;
}

static void sim_txn(struct sim *s, uint8_t netfn, uint8_t cmd, uint32_t r)
{
	struct adapt_choice ch = { 0, 0, 0 };
	uint32_t lat = r, wakes = 1, hs = 0, i = s->n;
	uint64_t cpu;

	switch (s->kind) {
	case P_ORACLE:
		break;
	case P_FIXED:
	case P_EXP:
		jit_pct = s->jit_pct;
		jit_us = s->jit_us;
		ch.first_us = ch.poll_us = s->poll;
		wait_model(s->poll, s->poll, s->pmax, s->kind == P_EXP, r, &lat,
			   &wakes);
		jit_pct = 0;
		break;
	case P_ADAPT:
		over_pct = s->over_pct;
		jit_pct = s->jit_pct;
		jit_us = s->jit_us;
		adapt_choose(&s->ad, netfn, cmd, &s->pol,
			     s->use_cpu ?
				     nodestats_cpu_ppm(&s->cpu, s->now_ns) :
				     0,
			     &ch);
		ck_assert_uint_eq(ch.max_busy_us, 0);
		ck_assert_uint_ge(ch.first_us, 1);
		ck_assert_uint_ge(ch.poll_us, 1);
		wait_model(ch.first_us, ch.poll_us, ch.poll_us, false, r, &lat,
			   &wakes);
		over_pct = 0;
		jit_pct = 0;
		break;
	}
	if (s->hs_hi)
		hs = s->hs_lo + (uint32_t)(unif() * (s->hs_hi - s->hs_lo));
	cpu = (uint64_t)wakes * WAKE_CPU_US * US;
	s->now_ns += (uint64_t)(lat + hs) * US;
	if (s->kind == P_ADAPT)
		record(&s->ad, netfn, cmd, &ch, (uint64_t)(lat + hs) * US,
		       wakes, s->no_bmc_us ? 0 : lat, cpu, s->now_ns);
	nodestats_cpu_add(&s->cpu, s->now_ns, cpu);
	s->cpu_ns += cpu;
	if (i < MAXTXN) {
		s->r[i] = r;
		s->lat[i] = lat + hs;
		s->wakes[i] = wakes;
		s->first[i] = ch.first_us;
		s->pollv[i] = ch.poll_us;
		s->t_end[i] = s->now_ns;
		s->cls[i] = cmd;
		s->n++;
	}
	s->now_ns += GAP_US * US;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Q-quantile of V[FROM..TO) (only entries with cls == CLS if CLS >= 0). */
static uint32_t quant(const uint32_t *v, uint32_t from, uint32_t to, int cls,
		      double q)
{
	static uint32_t tmp[MAXTXN];
	uint32_t i, n = 0;

	for (i = from; i < to; i++)
		if (cls < 0 || S.cls[i] == cls)
			tmp[n++] = v[i];
	if (n == 0)
		return 0;
	qsort(tmp, n, sizeof(tmp[0]), cmp_u32);
	i = (uint32_t)(q * n);
	return tmp[i < n ? i : n - 1];
}

static double mean(const uint32_t *v, uint32_t from, uint32_t to, int cls)
{
	double sum = 0;
	uint32_t i, n = 0;

	for (i = from; i < to; i++)
		if (cls < 0 || S.cls[i] == cls) {
			sum += v[i];
			n++;
		}
	return n ? sum / n : 0;
}

struct summary {
	uint32_t p50, p90;
	double lat, wakes, cpu_ppm;
	uint32_t first, poll; /* medians (adaptive) */
};

static void summarize(uint32_t from, struct summary *sm)
{
	sm->p50 = quant(S.lat, from, S.n, -1, 0.5);
	sm->p90 = quant(S.lat, from, S.n, -1, 0.9);
	sm->lat = mean(S.lat, from, S.n, -1);
	sm->wakes = mean(S.wakes, from, S.n, -1);
	sm->cpu_ppm = 1e6 * (double)S.cpu_ns /
		      (double)(S.t_end[S.n - 1] - (1000 * SEC));
	sm->first = quant(S.first, from, S.n, -1, 0.5);
	sm->poll = quant(S.pollv, from, S.n, -1, 0.5);
}

static void run(const struct dist *d, enum pkind kind, uint32_t poll,
		uint32_t pmax, uint32_t target, uint32_t n, struct summary *sm)
{
	uint32_t i;

	sim_init(&S, kind, poll, pmax);
	S.pol.latency_target_us = target;
	for (i = 0; i < n; i++)
		sim_txn(&S, 0x0a, 0x23, draw(d));
	summarize(0, sm);
}

static void print_row(const char *what, const struct summary *sm)
{
	fprintf(stderr,
		"  %-22s p50 %5u  p90 %5u  mean %7.1f us  "
		"wakes %5.2f  cpu %6.0f ppm",
		what, sm->p50, sm->p90, sm->lat, sm->wakes, sm->cpu_ppm);
	if (sm->first)
		fprintf(stderr, "  first %u poll %u", sm->first, sm->poll);
	fprintf(stderr, "\n");
}

/* ---- tests ---- */

START_TEST(test_fallback)
{
	struct kcsmux_policy pol = {
		.poll_us = 200,
		.poll_max_us = 1000,
		.backoff = KCSMUX_BACKOFF_ADAPTIVE,
		.cpu_budget_ppm = 10000,
	};
	struct adapt_choice ch;
	struct adapt_info info;
	struct adapt *a = &S.ad;
	int i;

	adapt_init(a);
	/* Nothing known: fixed polls at poll_us. */
	adapt_choose(a, 0x04, 0x2d, &pol, 0, &ch);
	ck_assert_uint_eq(ch.max_busy_us, 0);
	ck_assert_uint_eq(ch.first_us, pol.poll_us);
	ck_assert_uint_eq(ch.poll_us, pol.poll_us);
	ck_assert_int_eq(adapt_info(a, 0x04, 0x2d, &info), -1);

	/* Too few samples: still the fallback. */
	for (i = 0; i < ADAPT_MIN_SAMPLES - 1; i++)
		record(a, 0x0a, 0x23, NULL, 1800 * US, 0, 0, 0, i);
	adapt_choose(a, 0x0a, 0x23, &pol, 0, &ch);
	ck_assert_uint_eq(ch.first_us, pol.poll_us);

	/* Enough: the class's own window, first sleep just before 1800. */
	record(a, 0x0a, 0x23, NULL, 1800 * US, 0, 0, 0, 10);
	ck_assert_int_eq(adapt_info(a, 0x0a, 0x23, &info), 0);
	ck_assert(info.own);
	ck_assert_uint_eq(info.lo_us, 1800);
	adapt_choose(a, 0x0a, 0x23, &pol, 0, &ch);
	ck_assert_uint_eq(ch.poll_us, pol.poll_us);
	ck_assert_uint_eq(ch.first_us, 1800 - pol.poll_us / 2);

	/* An unseen class: the node-wide window. */
	ck_assert_int_eq(adapt_info(a, 0x04, 0x2d, &info), 0);
	ck_assert(!info.own);
	adapt_choose(a, 0x04, 0x2d, &pol, 0, &ch);
	ck_assert_uint_eq(ch.first_us, 1800 - pol.poll_us / 2);
}
END_TEST

/* Adaptive (poll_us 100..1000, no target) against fixed 100, exp 50..1000
 * and the oracle, for each BMC; and with a latency target of oracle p50 +
 * 15%. */
START_TEST(test_compare)
{
	static const struct dist *const ds[] = {
		&d_fixed,
		&d_fast,
		&d_seed,
		&d_slow,
	};
	const struct dist *d = ds[_i];
	struct summary o, f100, e, ad, at;
	uint32_t n = 4000, target;

	run(d, P_ORACLE, 0, 0, 0, n, &o);
	run(d, P_FIXED, 100, 100, 0, n, &f100);
	run(d, P_EXP, 50, 1000, 0, n, &e);
	run(d, P_ADAPT, 100, 1000, 0, n, &ad);
	target = o.p50 + o.p50 * 15 / 100;
	run(d, P_ADAPT, 100, 1000, target, n, &at);
	fprintf(stderr, "compare: BMC %s, %u transactions\n", d->name, n);
	print_row("oracle", &o);
	print_row("fixed 100", &f100);
	print_row("exp 50..1000", &e);
	print_row("adaptive 100..1000", &ad);
	fprintf(stderr, "  (adaptive + latency_target_us %u)\n", target);
	print_row("adaptive target", &at);

	/* Close to the oracle: p50 within 1.1x + one poll interval. */
	ck_assert_uint_le(ad.p50, o.p50 * 11 / 10 + ad.poll);
	ck_assert_uint_le(at.p50, o.p50 * 11 / 10 + at.poll);
	/* ... and within 10% + 1 poll of fixed 100's latency ... */
	ck_assert_double_le(ad.lat, f100.lat * 1.1 + ad.poll);
	/*
	 * ... with fewer wake-ups than fixed 100: the first sleep saves
	 * p10 / 100 of them; far fewer on a slow BMC, fewer still with the
	 * target's slack (poll_us grows, up to mid / 4).
	 */
	ck_assert_double_le(ad.wakes, f100.wakes * 0.85);
	if (o.p50 >= 1500)
		ck_assert_double_le(ad.wakes, f100.wakes * 0.3);
	if (o.p50 >= 1500)
		ck_assert_double_le(at.wakes, f100.wakes * 0.2);
	if (o.p50 >= 800)
		ck_assert_double_le(at.wakes, ad.wakes);
	/* The target holds (a fixed BMC time defeats the model's average
	 * poll / 2 overhead: the mean holds there). */
	if (d->kind == D_FIXED)
		ck_assert_double_le(at.lat, target * 1.02);
	else
		ck_assert_uint_le(at.p50, target * 102 / 100);
}
END_TEST

/* "The same first_us": within 15% or half a poll (the estimates sit on
 * the grid of wake-ups, first_us + k poll). */
static uint32_t tol(uint32_t v, uint32_t poll)
{
	return v * 15 / 100 > poll / 2 ? v * 15 / 100 : poll / 2;
}

/* A stationary BMC: once the window is full, the choice stays put. */
START_TEST(test_stationary)
{
	static const struct dist *const ds[] = { &d_fast, &d_seed, &d_slow };
	const struct dist *d = ds[_i];
	uint32_t i, changes = 0, n = 4000, warm = 2 * ADAPT_WINDOW;
	uint32_t fmin = UINT32_MAX, fmax = 0, fmed, pchg = 0;

	sim_init(&S, P_ADAPT, 100, 1000);
	for (i = 0; i < n; i++)
		sim_txn(&S, 0x0a, 0x23, draw(d));
	fmed = quant(S.first, warm, n, -1, 0.5);
	for (i = warm; i < n; i++) {
		if (S.first[i] != S.first[i - 1])
			changes++;
		if (S.pollv[i] != S.pollv[i - 1])
			pchg++;
		if (S.first[i] < fmin)
			fmin = S.first[i];
		if (S.first[i] > fmax)
			fmax = S.first[i];
	}
	fprintf(stderr,
		"stationary %s: first_us median %u range %u..%u "
		"(p5 %u p95 %u), %u changes in %u transactions; poll_us %u, "
		"%u changes\n",
		d->name, fmed, fmin, fmax, quant(S.first, warm, n, -1, 0.05),
		quant(S.first, warm, n, -1, 0.95), changes, n - warm,
		S.pollv[n - 1], pchg);
	/* Few changes: under 5% of transactions. */
	ck_assert_uint_le(changes * 20, n - warm);
	ck_assert_uint_eq(pchg, 0);
	/* 90% of the time within 15% or half a poll of the median. */
	ck_assert_uint_ge(quant(S.first, warm, n, -1, 0.05) + tol(fmed, 100),
			  fmed);
	ck_assert_uint_le(quant(S.first, warm, n, -1, 0.95),
			  fmed + tol(fmed, 100));
}
END_TEST

/*
 * The transactions after the shift at SHIFT until first_us is within tol()
 * of its final median and stays there for SETTLE_HOLD transactions in a
 * row. (Later single excursions, the censored probe-downs a stationary BMC
 * also shows, are test_stationary's business, not convergence.)
 */
#define SETTLE_HOLD 20

static bool near_final(uint32_t i, uint32_t med)
{
	return S.first[i] + tol(med, S.pollv[i]) >= med &&
	       S.first[i] <= med + tol(med, S.pollv[i]);
}

static uint32_t settle(uint32_t shift, uint32_t *final)
{
	uint32_t i, run = 0, med = quant(S.first, S.n - 100, S.n, -1, 0.5);

	*final = med;
	for (i = shift; i < S.n; i++) {
		run = near_final(i, med) ? run + 1 : 0;
		if (run == SETTLE_HOLD)
			return i + 1 - SETTLE_HOLD - shift;
	}
	return S.n - shift;
}

START_TEST(test_shift)
{
	static const struct dist *const from[] = { &d_fast, &d_slow, &d_seed,
						   &d_slow };
	static const struct dist *const to[] = { &d_slow, &d_fast, &d_slow,
						 &d_fixed };
	uint32_t i, k, fin, shift = 300, n = 700, lat40;

	sim_init(&S, P_ADAPT, 100, 1000);
	for (i = 0; i < n; i++)
		sim_txn(&S, 0x0a, 0x23, draw(i < shift ? from[_i] : to[_i]));
	k = settle(shift, &fin);
	lat40 = (uint32_t)mean(S.lat, shift + 40, n, -1);
	fprintf(stderr,
		"shift %s -> %s: first_us %u -> %u within %u "
		"transactions; mean latency %.0f us in the first 40, %u after "
		"(BMC mean %.0f)\n",
		from[_i]->name, to[_i]->name, S.first[shift - 1], fin, k,
		mean(S.lat, shift, shift + 40, -1), lat40,
		mean(S.r, shift + 40, n, -1));
	ck_assert_uint_le(k, 40);
	/* After convergence, about as good as the stationary case. */
	ck_assert_double_le(lat40, mean(S.r, shift + 40, n, -1) * 1.1 + 100);
}
END_TEST

/*
 * The same shifts with kcsraw's measured wake (bmc_us) and the slow-run
 * flush: a BMC that gets slower is followed within a few transactions,
 * not a window's worth; one that gets faster as before.
 */
START_TEST(test_shift_quick)
{
	static const struct dist *const from[] = { &d_fast, &d_seed, &d_slow };
	static const struct dist *const to[] = { &d_slow, &d_slow, &d_fast };
	uint32_t i, k, fin, shift = 300, n = 700;

	sim_init(&S, P_ADAPT, 100, 1000);
	for (i = 0; i < n; i++)
		sim_txn(&S, 0x0a, 0x23, draw(i < shift ? from[_i] : to[_i]));
	k = settle(shift, &fin);
	fprintf(stderr,
		"quick shift %s -> %s: first_us %u -> %u within %u "
		"transactions, %llu window restarts\n",
		from[_i]->name, to[_i]->name, S.first[shift - 1], fin, k,
		(unsigned long long)S.ad.cls[0].w.flushes);
	/* without the slow-run restart a slower BMC takes a window (32) */
	ck_assert_uint_le(k, 15);
}
END_TEST

/*
 * Sleeps that last twice what was asked (TCG's wake-up latency, a loaded
 * host). Then the first sleep must be asked for about half the BMC's time.
 * Reckoned from the nominal sleeps the model takes a slow BMC for faster
 * than it is and polls its way through the rest; with kcsraw's measured
 * wake (bmc_us) it estimates the BMC's time itself and the real first wake
 * lands just below it.
 */
START_TEST(test_oversleep)
{
	uint32_t i, k, fin, shift = 300, n = 1000;
	double w_meas = 0, w_nom = 0, w;

	for (int meas = 1; meas >= 0; meas--) {
		sim_init(&S, P_ADAPT, 100, 1000);
		S.over_pct = 100;
		S.no_bmc_us = !meas;
		for (i = 0; i < n; i++)
			sim_txn(&S, 0x0a, 0x23,
				draw(i < shift ? &d_fast : &d_slow));
		k = settle(shift, &fin);
		w = mean(S.wakes, n - 300, n, -1);
		fprintf(stderr,
			"oversleep 100%%, %s: first_us %u -> %u (a real "
			"first wake at ~%u) within %u transactions; %.2f wakes, "
			"latency %.0f us (BMC p10 %u, mean %.0f)\n",
			meas ? "measured wake" : "nominal sleeps",
			S.first[shift - 1], fin, 2 * fin, k, w,
			mean(S.lat, n - 300, n, -1),
			quant(S.r, shift, n, -1, 0.1),
			mean(S.r, n - 300, n, -1));
		if (meas) {
			w_meas = w;
			/* the real first wake just below the BMC's p10 */
			ck_assert_uint_ge(2 * fin, 1300);
			ck_assert_uint_le(2 * fin, 1600);
		} else {
			w_nom = w;
		}
	}
	ck_assert_double_lt(w_meas, w_nom);
}
END_TEST

/*
 * A loaded host: most sleeps last what was asked, JIT_PCT percent of them
 * the BMC's whole time more (the vCPU taken away). The adaptive node
 * still wakes well under 2/3 as often as a fixed 100 us poll on the same
 * host (vm.daemon-policy's claim). The overrun transactions must be told
 * from the BMC's: read as censored samples, their overrun first sleeps
 * dragged the window's p10 down and restarted it (at 20%, 26 restarts in
 * 4000 transactions and first_us 1 us, 4.88 wakes against the fixed
 * poll's 4.93). At 30% the fixed poll's sleeps themselves mostly outlast
 * the BMC (3.34 wakes) and 2/3 of that is out of any policy's reach.
 */
START_TEST(test_jitter)
{
	static const uint32_t pct[] = { 5, 10, 20 };
	uint32_t i, n = 4000, warm = 200;
	double wa, wf;
	uint64_t flushes;

	sim_init(&S, P_FIXED, 100, 100);
	S.jit_pct = pct[_i];
	S.jit_us = 2000;
	for (i = 0; i < n; i++)
		sim_txn(&S, 0x0a, 0x23, draw(&d_slow));
	wf = mean(S.wakes, warm, n, -1);
	sim_init(&S, P_ADAPT, 100, 1000);
	S.jit_pct = pct[_i];
	S.jit_us = 2000;
	for (i = 0; i < n; i++)
		sim_txn(&S, 0x0a, 0x23, draw(&d_slow));
	wa = mean(S.wakes, warm, n, -1);
	flushes = S.ad.cls[0].w.flushes;
	fprintf(stderr,
		"jitter %u%% of sleeps +2000 us, BMC %s: adaptive %.2f wakes "
		"(first_us median %u), fixed 100 us %.2f; %llu window "
		"restarts, %llu overrun left out\n",
		pct[_i], d_slow.name, wa, quant(S.first, warm, n, -1, 0.5), wf,
		(unsigned long long)flushes,
		(unsigned long long)S.ad.cls[0].w.overslept);
	ck_assert_double_lt(wa * 3, wf * 2);
	ck_assert_uint_le(flushes, 3);
}
END_TEST

/*
 * A stationary seed BMC: the slow-run flush must not fire more than by
 * chance (4 in a row above p90).
 */
START_TEST(test_no_spurious_flush)
{
	uint32_t i, n = 20000;

	sim_init(&S, P_ADAPT, 100, 1000);
	for (i = 0; i < n; i++)
		sim_txn(&S, 0x0a, 0x23, draw(&d_seed));
	fprintf(stderr,
		"stationary seed, %u transactions: %llu window "
		"restarts\n",
		n, (unsigned long long)S.ad.cls[0].w.flushes);
	ck_assert_uint_le(S.ad.cls[0].w.flushes, 10);
}
END_TEST

/*
 * A CPU budget: 10% of a CPU against a closed-loop client on the seed's
 * BMC, 45 us per wake-up. Unthrottled the node takes ~3x that; with the
 * budget it settles inside [75%, 100%] of it without oscillating.
 */
START_TEST(test_budget)
{
	const uint32_t budget = 100000;
	struct summary free_, f100;
	uint64_t t0, cpu0 = 0, half;
	uint32_t i, from = 0, pmin, pmax;
	double ppm;

	run(&d_seed, P_FIXED, 100, 100, 0, 20000, &f100);
	run(&d_seed, P_ADAPT, 100, 1000, 0, 20000, &free_);

	sim_init(&S, P_ADAPT, 100, 1000);
	S.pol.cpu_budget_ppm = budget;
	S.use_cpu = true;
	t0 = S.now_ns;
	while (S.now_ns - t0 < 10 * SEC && S.n < MAXTXN)
		sim_txn(&S, 0x0a, 0x23, draw(&d_seed));
	/* The last 5 s. */
	half = t0 + 5 * SEC;
	for (i = 0; i < S.n && S.t_end[i] < half; i++)
		cpu0 += (uint64_t)S.wakes[i] * WAKE_CPU_US * US;
	from = i;
	ppm = 1e6 * (double)(S.cpu_ns - cpu0) /
	      (double)(S.t_end[S.n - 1] - S.t_end[from - 1]);
	pmin = quant(S.pollv, from, S.n, -1, 0.0);
	pmax = quant(S.pollv, from, S.n, -1, 1.0);
	fprintf(stderr,
		"budget %u ppm, seed CDF: fixed 100 %.0f ppm, "
		"adaptive unthrottled %.0f ppm (%.2f wakes, p50 %u); with budget "
		"%.0f ppm over the last 5 s, estimator %.0f, p50 %u us, %.2f "
		"wakes, poll_us %u..%u (median %u)\n",
		budget, f100.cpu_ppm, free_.cpu_ppm, free_.wakes, free_.p50,
		ppm, nodestats_cpu_ppm(&S.cpu, S.now_ns),
		quant(S.lat, from, S.n, -1, 0.5), mean(S.wakes, from, S.n, -1),
		pmin, pmax, quant(S.pollv, from, S.n, -1, 0.5));
	ck_assert_double_gt(free_.cpu_ppm, 2.0 * budget);
	ck_assert_double_le(ppm, budget * 1.02);
	ck_assert_double_ge(ppm, budget * 0.6);
	/* Steady: poll_us within +-15% of its median for the last 5 s. */
	ck_assert_uint_ge(quant(S.pollv, from, S.n, -1, 0.02),
			  quant(S.pollv, from, S.n, -1, 0.5) * 85 / 100);
	ck_assert_uint_le(quant(S.pollv, from, S.n, -1, 0.98),
			  quant(S.pollv, from, S.n, -1, 0.5) * 115 / 100);
}
END_TEST

/* latency_target_us: tight shrinks poll_us (to the floor when it cannot be
 * met), loose grows it (up to a quarter of the BMC's time). */
START_TEST(test_target)
{
	struct summary none, tight, never, o, snone, loose;

	run(&d_fast, P_ORACLE, 0, 0, 0, 3000, &o);
	run(&d_fast, P_ADAPT, 200, 1000, 0, 3000, &none);
	run(&d_fast, P_ADAPT, 200, 1000, 330, 3000, &tight);
	run(&d_fast, P_ADAPT, 200, 1000, 100, 3000, &never);
	run(&d_slow, P_ADAPT, 200, 1000, 0, 3000, &snone);
	run(&d_slow, P_ADAPT, 200, 1000, 2400, 3000, &loose);
	fprintf(stderr, "latency target, node poll_us 200..1000, BMC %s:\n",
		d_fast.name);
	print_row("oracle", &o);
	print_row("no target", &none);
	print_row("target 330", &tight);
	print_row("target 100 (unmeetable)", &never);
	fprintf(stderr, "  BMC %s:\n", d_slow.name);
	print_row("no target", &snone);
	print_row("target 2400", &loose);
	ck_assert_uint_gt(none.p50, 330);
	ck_assert_uint_lt(tight.poll, 200);
	ck_assert_uint_le(tight.p50, 330 * 103 / 100);
	ck_assert_double_gt(tight.wakes, none.wakes);
	ck_assert_uint_eq(never.poll, ADAPT_FLOOR_US);
	ck_assert_uint_gt(loose.poll, 300);
	ck_assert_uint_le(loose.p50, 2400);
	ck_assert_double_lt(loose.wakes, snone.wakes * 0.8);
}
END_TEST

/* Two classes on one node, interleaved at random: Get SDR (slow) and Get
 * Sensor Reading (fast) each get their own first sleep. */
START_TEST(test_classes)
{
	uint32_t i, n = 4000, warm = 200, r;
	uint32_t o_sdr, o_sen, l_sdr, l_sen, f_sdr, f_sen;
	struct adapt_info is, ie;
	bool sdr;

	sim_init(&S, P_ADAPT, 100, 1000);
	for (i = 0; i < n; i++) {
		sdr = unif() < 0.3;
		r = draw(sdr ? &d_slow : &d_sensor);
		if (sdr)
			sim_txn(&S, 0x0a, 0x23, r);
		else
			sim_txn(&S, 0x04, 0x2d, r);
	}
	ck_assert_int_eq(adapt_info(&S.ad, 0x0a, 0x23, &is), 0);
	ck_assert_int_eq(adapt_info(&S.ad, 0x04, 0x2d, &ie), 0);
	ck_assert(is.own && ie.own);
	o_sdr = quant(S.r, warm, n, 0x23, 0.5);
	o_sen = quant(S.r, warm, n, 0x2d, 0.5);
	l_sdr = quant(S.lat, warm, n, 0x23, 0.5);
	l_sen = quant(S.lat, warm, n, 0x2d, 0.5);
	f_sdr = quant(S.first, warm, n, 0x23, 0.5);
	f_sen = quant(S.first, warm, n, 0x2d, 0.5);
	fprintf(stderr,
		"classes: SDR (%s) first_us %u, p50 %u us (oracle "
		"%u), %.2f wakes; sensor (%s) first_us %u, p50 %u us (oracle %u), "
		"%.2f wakes; windows lo/mid/hi %u/%u/%u and %u/%u/%u\n",
		d_slow.name, f_sdr, l_sdr, o_sdr, mean(S.wakes, warm, n, 0x23),
		d_sensor.name, f_sen, l_sen, o_sen,
		mean(S.wakes, warm, n, 0x2d), is.lo_us, is.mid_us, is.hi_us,
		ie.lo_us, ie.mid_us, ie.hi_us);
	ck_assert_uint_ge(f_sdr, 1300);
	ck_assert_uint_le(f_sen, 220);
	ck_assert_uint_le(l_sdr, o_sdr * 11 / 10 + 100);
	ck_assert_uint_le(l_sen, o_sen * 11 / 10 + 100);
	ck_assert_double_le(mean(S.wakes, warm, n, 0x23), 4);
	ck_assert_double_le(mean(S.wakes, warm, n, 0x2d), 2.5);
}
END_TEST

/* Sixteen classes; a seventeenth replaces the least recently used. */
START_TEST(test_lru)
{
	struct adapt *a = &S.ad;
	struct adapt_info info;
	uint32_t c, i;

	adapt_init(a);
	for (c = 0; c < ADAPT_CLASSES; c++)
		for (i = 0; i < ADAPT_MIN_SAMPLES; i++)
			record(a, 0x04, (uint8_t)c, NULL, (100 + c) * US, 0, 0,
			       0, 1000 + c * 10 + i);
	/* Touch class 0 again: class 1 is now the least recently used. */
	record(a, 0x04, 0, NULL, 100 * US, 0, 0, 0, 5000);
	record(a, 0x06, 0x01, NULL, 999 * US, 0, 0, 0, 6000);
	ck_assert_uint_eq(a->evictions, 1);
	ck_assert_int_eq(adapt_info(a, 0x04, 0, &info), 0);
	ck_assert(info.own);
	ck_assert_uint_eq(info.lo_us, 100);
	ck_assert_int_eq(adapt_info(a, 0x04, 1, &info), 0);
	ck_assert(!info.own); /* evicted: the node's window */
	for (c = 2; c < ADAPT_CLASSES; c++) {
		ck_assert_int_eq(adapt_info(a, 0x04, (uint8_t)c, &info), 0);
		ck_assert(info.own);
		ck_assert_uint_eq(info.lo_us, 100 + c);
	}
}
END_TEST

/*
 * Byte handshakes (write and read phases) inside resp: TCG-like 300-600 us,
 * larger than poll_us. They must not push first_us late (the estimate
 * ratcheting up through censored samples).
 */
START_TEST(test_handshakes)
{
	static const struct dist *const ds[] = { &d_seed, &d_fast, &d_slow };
	const struct dist *d = ds[_i];
	uint32_t i, n = 4000, warm = 200, o50, f95, l50, fmed;

	sim_init(&S, P_ADAPT, 100, 1000);
	S.hs_lo = 300;
	S.hs_hi = 600;
	for (i = 0; i < n; i++)
		sim_txn(&S, 0x0a, 0x23, draw(d));
	o50 = quant(S.r, warm, n, -1, 0.5);
	l50 = quant(S.lat, warm, n, -1, 0.5);
	f95 = quant(S.first, warm, n, -1, 0.95);
	fmed = quant(S.first, warm, n, -1, 0.5);
	fprintf(stderr,
		"handshakes 300-600 us, BMC %s: first_us median %u "
		"p95 %u (BMC p10 %u p50 %u); latency p50 %u (oracle + "
		"handshakes ~%u), %.2f wakes\n",
		d->name, fmed, f95, quant(S.r, warm, n, -1, 0.1), o50, l50,
		o50 + 450, mean(S.wakes, warm, n, -1));
	ck_assert_uint_le(f95, quant(S.r, warm, n, -1, 0.3));
	ck_assert_uint_le(l50, (o50 + 450) * 11 / 10 + 100);
}
END_TEST

static Suite *adaptive_suite(void)
{
	Suite *s = suite_create("adaptive");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_fallback);
	tcase_add_loop_test(tc, test_compare, 0, 4);
	tcase_add_loop_test(tc, test_stationary, 0, 3);
	tcase_add_loop_test(tc, test_shift, 0, 4);
	tcase_add_loop_test(tc, test_shift_quick, 0, 3);
	tcase_add_test(tc, test_oversleep);
	tcase_add_test(tc, test_no_spurious_flush);
	tcase_add_loop_test(tc, test_jitter, 0, 3);
	tcase_add_test(tc, test_budget);
	tcase_add_test(tc, test_target);
	tcase_add_test(tc, test_classes);
	tcase_add_test(tc, test_lru);
	tcase_add_loop_test(tc, test_handshakes, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(adaptive_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
