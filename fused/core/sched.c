// SPDX-License-Identifier: GPL-2.0
/*
 * sched.c - request scheduler of kcsmuxd: aging, strict classes, start-time
 * fair queueing by service time, per-flow token buckets and queue bounds.
 * The rules and their reasons are in sched.h.
 */
#include <errno.h>
#include <stddef.h>

#include "core/sched.h"

enum { ITEM_IDLE, ITEM_QUEUED, ITEM_URGENT, ITEM_DISPATCHED };

#define WEIGHT_MAX 10000u
#define BURST_MAX  1000000u	/* x SCHED_TOKEN fits in 64 bits */
#define VT_SHIFT   16		/* virtual time: ns << 16 / weight */
#define COST_MAX   (1ULL << 44) /* ~4.9 h: cost << VT_SHIFT fits */

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* a < b on the virtual time circle. */
static bool vt_before(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

static uint64_t vt_cost(uint64_t ns, uint32_t weight)
{
	if (ns > COST_MAX)
		ns = COST_MAX;
	return (ns << VT_SHIFT) / weight;
}

static unsigned class_of(enum kcsmux_prio prio)
{
	return (unsigned)prio < SCHED_NCLASSES ? (unsigned)prio :
						 SCHED_NCLASSES - 1;
}

static uint64_t tb_cap(const struct sched_flow *f)
{
	return (uint64_t)f->burst * SCHED_TOKEN;
}

/* Bucket level at NOW (not before tb_last_ns), at the current rate. */
static uint64_t tb_level_at(const struct sched_flow *f, uint64_t now)
{
	uint64_t cap = tb_cap(f), need, dt;

	if (f->rate_milli == 0)
		return cap;
	if (now <= f->tb_last_ns || f->tb_level >= cap)
		return f->tb_level;
	need = cap - f->tb_level;
	dt = now - f->tb_last_ns;
	/* dt * rate >= need <=> dt >= ceil(need / rate); else no overflow */
	if (dt >= (need + f->rate_milli - 1) / f->rate_milli)
		return cap;
	return f->tb_level + dt * f->rate_milli;
}

uint64_t sched_flow_token_at(const struct sched_flow *f)
{
	uint64_t need;

	if (f->rate_milli == 0)
		return 0;
	if (f->tb_level >= SCHED_TOKEN)
		return f->tb_last_ns;
	need = SCHED_TOKEN - f->tb_level;
	return f->tb_last_ns + (need + f->rate_milli - 1) / f->rate_milli;
}

static void tb_take(struct sched_flow *f, uint64_t now)
{
	if (f->rate_milli == 0)
		return;
	f->tb_level = tb_level_at(f, now) - SCHED_TOKEN;
	f->tb_last_ns = max_u64(now, f->tb_last_ns);
}

void sched_init(struct sched *s, uint64_t aging_ns)
{
	*s = (struct sched){ .unit_ns = SCHED_UNIT_COST_NS };
	TAILQ_INIT(&s->flows);
	TAILQ_INIT(&s->urgent);
	sched_set_aging(s, aging_ns);
}

void sched_set_aging(struct sched *s, uint64_t aging_ns)
{
	s->aging_ns = aging_ns == 0 ? SCHED_AGING_DEFAULT_NS : aging_ns;
}

void sched_set_unit_cost(struct sched *s, uint64_t unit_ns)
{
	s->unit_ns = unit_ns == 0 ? 1 : unit_ns;
}

static void flow_set_share(struct sched_flow *f,
			   const struct kcsmux_policy *pol)
{
	f->prio = (enum kcsmux_prio)class_of(pol->prio);
	f->weight = pol->weight < 1	     ? 1 :
		    pol->weight > WEIGHT_MAX ? WEIGHT_MAX :
					       pol->weight;
	f->queue_max = pol->queue < 1 ? 1 : pol->queue;
}

static uint32_t clamp_burst(uint32_t burst)
{
	return burst < 1 ? 1 : burst > BURST_MAX ? BURST_MAX : burst;
}

void sched_flow_attach(struct sched *s, struct sched_flow *f,
		       const struct kcsmux_policy *pol, uint64_t now_ns)
{
	*f = (struct sched_flow){ 0 };
	TAILQ_INIT(&f->q);
	flow_set_share(f, pol);
	f->rate_milli = pol->rate_milli;
	f->burst = clamp_burst(pol->burst);
	f->tb_level = tb_cap(f);
	f->tb_last_ns = now_ns;
	f->vt = s->vclock[f->prio];
	f->wait_since_ns = now_ns;
	f->ub_level = (uint64_t)SCHED_URGENT_BURST * SCHED_TOKEN;
	f->ub_last_ns = now_ns;
	TAILQ_INSERT_TAIL(&s->flows, f, link);
	s->nflows++;
}

void sched_flow_update(struct sched *s, struct sched_flow *f,
		       const struct kcsmux_policy *pol, uint64_t now_ns)
{
	enum kcsmux_prio old = f->prio;
	uint64_t level;

	flow_set_share(f, pol);
	if (f->prio != old)
		f->vt = s->vclock[f->prio];

	/* Settle the bucket at the old rate, then switch. */
	level = f->rate_milli == 0 ? UINT64_MAX : tb_level_at(f, now_ns);
	f->tb_last_ns = max_u64(now_ns, f->tb_last_ns);
	f->rate_milli = pol->rate_milli;
	f->burst = clamp_burst(pol->burst);
	f->tb_level = level < tb_cap(f) ? level : tb_cap(f);
}

unsigned sched_flow_detach(struct sched *s, struct sched_flow *f)
{
	struct sched_item *it, *next;
	unsigned n = 0;

	while ((it = TAILQ_FIRST(&f->q)) != NULL) {
		TAILQ_REMOVE(&f->q, it, link);
		it->state = ITEM_IDLE;
		n++;
	}
	s->queued -= f->qlen;
	f->qlen = 0;
	for (it = TAILQ_FIRST(&s->urgent); it; it = next) {
		next = TAILQ_NEXT(it, link);
		if (it->flow != f)
			continue;
		TAILQ_REMOVE(&s->urgent, it, link);
		it->state = ITEM_IDLE;
		s->queued--;
		n++;
	}
	f->urgent_queued = 0;
	TAILQ_REMOVE(&s->flows, f, link);
	s->nflows--;
	return n;
}

int sched_enqueue(struct sched *s, struct sched_flow *f, struct sched_item *it,
		  uint64_t now_ns)
{
	if (f->qlen >= f->queue_max) {
		f->rejected++;
		return -EBUSY;
	}
	it->flow = f;
	it->enq_ns = now_ns;
	it->charged_ns = 0;
	it->charged_vt = 0;
	it->state = ITEM_QUEUED;
	if (f->qlen == 0)
		f->wait_since_ns = now_ns;
	TAILQ_INSERT_TAIL(&f->q, it, link);
	f->qlen++;
	s->queued++;
	return 0;
}

/* The urgent bucket's level at NOW: SCHED_URGENT_PER_S tokens a second
 * up to SCHED_URGENT_BURST (no overflow: a level below the cap plus at
 * most the cap). */
static uint64_t ub_level_at(const struct sched_flow *f, uint64_t now)
{
	const uint64_t cap = (uint64_t)SCHED_URGENT_BURST * SCHED_TOKEN;
	const uint64_t per_ns =
		SCHED_TOKEN / 1000000000ULL * SCHED_URGENT_PER_S;
	uint64_t dt;

	if (now <= f->ub_last_ns || f->ub_level >= cap)
		return f->ub_level;
	dt = now - f->ub_last_ns;
	if (dt >= (cap - f->ub_level + per_ns - 1) / per_ns)
		return cap;
	return f->ub_level + dt * per_ns;
}

int sched_enqueue_urgent(struct sched *s, struct sched_flow *f,
			 struct sched_item *it, uint64_t now_ns, bool *urgent)
{
	uint64_t level = ub_level_at(f, now_ns);

	if (f->urgent_queued || level < SCHED_TOKEN) {
		if (urgent)
			*urgent = false;
		return sched_enqueue(s, f, it, now_ns);
	}
	f->ub_level = level - SCHED_TOKEN;
	f->ub_last_ns = max_u64(now_ns, f->ub_last_ns);
	it->flow = f;
	it->enq_ns = now_ns;
	it->charged_ns = 0;
	it->charged_vt = 0;
	it->state = ITEM_URGENT;
	TAILQ_INSERT_TAIL(&s->urgent, it, link);
	f->urgent_queued++;
	s->queued++;
	if (urgent)
		*urgent = true;
	return 0;
}

bool sched_remove(struct sched *s, struct sched_item *it)
{
	struct sched_flow *f = it->flow;

	if (it->state == ITEM_URGENT) {
		TAILQ_REMOVE(&s->urgent, it, link);
		f->urgent_queued--;
		s->queued--;
		it->state = ITEM_IDLE;
		return true;
	}
	if (it->state != ITEM_QUEUED)
		return false;
	/* wait_since_ns stays: the flow has not been served. */
	TAILQ_REMOVE(&f->q, it, link);
	f->qlen--;
	s->queued--;
	it->state = ITEM_IDLE;
	return true;
}

/* The flow's vt, or the class clock if it fell behind (idle, limited). */
static uint64_t eff_vt(const struct sched *s, const struct sched_flow *f)
{
	uint64_t v = s->vclock[f->prio];

	return vt_before(f->vt, v) ? v : f->vt;
}

/* Charge IT's estimated cost to its flow F at dispatch. */
static void charge_estimate(struct sched *s, struct sched_flow *f,
			    struct sched_item *it)
{
	uint64_t cost = it->cost_hint_ns != 0 ? it->cost_hint_ns : s->unit_ns;

	if (cost > COST_MAX)
		cost = COST_MAX;
	it->charged_ns = cost;
	it->charged_vt = vt_cost(cost, f->weight);
	f->vt += it->charged_vt;
	f->charged_ns += cost;
	it->state = ITEM_DISPATCHED;
	f->dispatched++;
	s->dispatched++;
}

/* The urgent lane's head, unlinked: no token, no hold, no class. */
static struct sched_item *dispatch_urgent(struct sched *s)
{
	struct sched_item *it = TAILQ_FIRST(&s->urgent);
	struct sched_flow *f = it->flow;

	TAILQ_REMOVE(&s->urgent, it, link);
	f->urgent_queued--;
	s->queued--;
	/* its cost counts in the flow's share from where the class is */
	f->vt = eff_vt(s, f);
	charge_estimate(s, f, it);
	f->urgent++;
	return it;
}

static struct sched_item *dispatch(struct sched *s, struct sched_flow *f,
				   bool promoted, uint64_t now)
{
	struct sched_flow *g;
	struct sched_item *it;

	/*
	 * SFQ: the class clock is the start tag in service. A promoted flow
	 * may be ahead of its class; it does not drag the clock along.
	 */
	if (!promoted)
		s->vclock[f->prio] = eff_vt(s, f);
	/* No flow of the class keeps credit from before the clock. */
	TAILQ_FOREACH (g, &s->flows, link)
		if (g->prio == f->prio)
			g->vt = eff_vt(s, g);

	it = TAILQ_FIRST(&f->q);
	TAILQ_REMOVE(&f->q, it, link);
	f->qlen--;
	s->queued--;
	charge_estimate(s, f, it);

	tb_take(f, now);
	f->wait_since_ns = now;
	if (promoted) {
		f->promoted++;
		s->promoted++;
	}
	return it;
}

struct sched_item *sched_dequeue(struct sched *s, uint64_t now_ns,
				 uint64_t *retry_at_ns)
{
	struct sched_flow *f, *aged = NULL, *best[SCHED_NCLASSES] = { 0 };
	uint64_t bestvt[SCHED_NCLASSES] = { 0 };
	uint64_t retry = SCHED_NEVER, aged_since = 0, tok, since, vt;
	unsigned c;

	if (!TAILQ_EMPTY(&s->urgent)) {
		if (retry_at_ns != NULL)
			*retry_at_ns = now_ns;
		return dispatch_urgent(s);
	}
	TAILQ_FOREACH (f, &s->flows, link) {
		if (f->qlen == 0)
			continue;
		tok = max_u64(sched_flow_token_at(f), f->hold_until_ns);
		if (tok > now_ns) {
			if (tok < retry)
				retry = tok;
			continue;
		}
		since = max_u64(f->wait_since_ns, tok);
		if (s->aging_ns != SCHED_NEVER && now_ns >= since &&
		    now_ns - since >= s->aging_ns &&
		    (aged == NULL || since < aged_since ||
		     (since == aged_since && f->prio < aged->prio))) {
			aged = f;
			aged_since = since;
		}
		c = f->prio;
		vt = eff_vt(s, f);
		if (best[c] == NULL || vt_before(vt, bestvt[c])) {
			best[c] = f;
			bestvt[c] = vt;
		}
	}

	if (aged != NULL) {
		if (retry_at_ns != NULL)
			*retry_at_ns = now_ns;
		return dispatch(s, aged, true, now_ns);
	}
	for (c = 0; c < SCHED_NCLASSES; c++) {
		if (best[c] != NULL) {
			if (retry_at_ns != NULL)
				*retry_at_ns = now_ns;
			return dispatch(s, best[c], false, now_ns);
		}
	}
	if (retry_at_ns != NULL)
		*retry_at_ns = retry;
	return NULL;
}

void sched_charge(struct sched *s, struct sched_item *it, uint64_t service_ns)
{
	struct sched_flow *f = it->flow;
	uint64_t vt;

	(void)s;
	if (it->state != ITEM_DISPATCHED)
		return;
	if (service_ns > COST_MAX)
		service_ns = COST_MAX;
	vt = vt_cost(service_ns, f->weight);
	f->vt = f->vt - it->charged_vt + vt;
	f->charged_ns = f->charged_ns - it->charged_ns + service_ns;
	it->charged_ns = service_ns;
	it->charged_vt = vt;
}

struct sched_item *sched_flow_first(const struct sched_flow *f)
{
	return TAILQ_FIRST(&f->q);
}

void sched_item_init(struct sched_item *it, uint64_t cost_hint_ns)
{
	*it = (struct sched_item){ .cost_hint_ns = cost_hint_ns };
}

void sched_flow_hold(struct sched_flow *f, uint64_t until_ns)
{
	f->hold_until_ns = until_ns;
}
