/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched.h - which node's request the KCS interface runs next.
 *
 * Pure logic: no I/O, no clock (every call takes now_ns, CLOCK_MONOTONIC
 * nanoseconds from the caller), no allocation. A node embeds one struct
 * sched_flow; a request embeds one struct sched_item. The interface runs
 * one transaction at a time and a transaction cannot be preempted, so the
 * daemon calls sched_dequeue() each time the interface frees (and when a
 * request arrives at an idle interface) and runs what it returns.
 *
 * The order, at each sched_dequeue():
 *
 *  1. Aging. A flow is starving when it has had a request queued AND a
 *     token (token bucket below) without being served for aging_ns (default 500 ms):
 *     since it became backlogged, got its last service, or got its token,
 *     whichever is latest. Starving flows go first, before any class, the
 *     longest-starving first. Only the head request is promoted and the
 *     flow's clock restarts when it is served, so aging is a floor of one
 *     request per aging_ns per flow, not a flip of the priorities: a deep
 *     bulk backlog that has all aged does not take over the interface.
 *     Bound: with N flows and transactions of at most Tmax, the head of a
 *     flow is dispatched within aging_ns + N * Tmax of its clock starting
 *     (the transaction running when it starves, then at most one for each
 *     other flow that started starving earlier: a flow served meanwhile
 *     restarts its clock, so it cannot get ahead again). Interactive
 *     requests lose at most one transaction per starving flow per aging_ns
 *     to aging, and only while the interface is saturated. Aging needs
 *     no timer: it only matters when the interface frees.
 *
 *  2. Strict priority: the lowest enum kcsmux_prio with an eligible flow.
 *
 *  3. Within a class, start-time fair queueing (SFQ) by service time: each
 *     flow has a virtual time vt, the class a virtual clock V; the eligible
 *     flow with the smallest vt is served, V becomes that vt, and the flow's
 *     vt advances by cost / weight. A flow that was idle or rate-limited
 *     restarts at V (no credit for time it did not want the interface).
 *     Over any interval where flows f and g stay backlogged and eligible,
 *     | S_f / w_f - S_g / w_g | <= Cmax_f / w_f + Cmax_g / w_g
 *     (S: service, Cmax: the largest single charge).
 *     The cost of a request is charged at dispatch: its cost_hint_ns, or
 *     the scheduler's unit cost (1 ms) when the hint is 0. sched_charge()
 *     replaces that estimate with the measured service time when the
 *     transaction ends, so shares are by interface time, not by request
 *     count (an SDR or FRU read occupies the KCS far longer than a Get
 *     Sensor Reading). Never calling sched_charge() gives shares by count
 *     (with zero hints).
 *
 *  Token bucket per flow (rate_milli requests/s x 1000, burst requests;
 *  rate 0: unlimited): a flow without a whole token is skipped, it is not
 *  an error; the bucket starts full, refills continuously with exact
 *  integer arithmetic (rate 10/s: one token per 100,000,000 ns exactly), and
 *  a token is taken when a request is dispatched. Aging does not bypass the
 *  rate. When nothing is eligible sched_dequeue() returns NULL and says
 *  when the first rate-limited flow gets its token.
 *
 *  Queue bound per flow (policy queue): sched_enqueue() fails with -EBUSY
 *  when the flow already has that many queued (not yet dispatched)
 *  requests.
 *
 *  0. Urgent lane (sched_enqueue_urgent(): the watchdog's commands, whose
 *     lateness resets the host). Before aging and every class, FIFO across
 *     flows; an urgent item waits for neither its flow's token, hold nor
 *     queue bound, nor for its flow's earlier items. Its cost is charged
 *     to its flow like any other (so it is paid for in the flow's share),
 *     but it takes no token. Bound, so that a node cannot make all of its
 *     work urgent: a flow has at most one urgent item queued, and its
 *     urgent items are dispatched at most SCHED_URGENT_BURST at once and
 *     SCHED_URGENT_PER_S a second on average (a bucket of their own); an
 *     item beyond that is queued as an ordinary one (sched_enqueue()).
 *
 * Cost: O(number of flows) per sched_dequeue(), O(1) otherwise. Virtual
 * times are compared modulo 2^64, so they may wrap.
 */
#ifndef KCSMUX_SCHED_H
#define KCSMUX_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "core/policy.h"

#define SCHED_NCLASSES	       3 /* enum kcsmux_prio */
#define SCHED_AGING_DEFAULT_NS 500000000ULL
#define SCHED_UNIT_COST_NS     1000000ULL
#define SCHED_NEVER	       UINT64_MAX
/* One token in struct sched_flow.tb_level: levels accrue rate_milli per ns. */
#define SCHED_TOKEN 1000000000000ULL
/* The urgent lane's own bucket per flow (more than any watchdog needs:
 * a Reset Watchdog Timer every 100 ms, and Set + Get + Reset at once). */
#define SCHED_URGENT_PER_S 10
#define SCHED_URGENT_BURST 4

/*
 * One request, set up with sched_item_init() (or zeroed) before its first
 * sched_enqueue(). The caller may set cost_hint_ns (expected service time,
 * 0: the unit cost) before each enqueue; the rest is the scheduler's.
 */
struct sched_item {
	TAILQ_ENTRY(sched_item) link;
	struct sched_flow *flow; /* set by sched_enqueue() */
	uint64_t enq_ns;	 /* now_ns of sched_enqueue() */
	uint64_t cost_hint_ns;
	/* private */
	uint64_t charged_ns; /* service charged for it so far */
	uint64_t charged_vt; /* ... in its flow's virtual time */
	uint8_t state;
};

TAILQ_HEAD(sched_itemq, sched_item);

/* One node's share of the interface. Fields are read-only outside
 * sched.c; the counters are for metrics and tests. */
struct sched_flow {
	TAILQ_ENTRY(sched_flow) link;
	struct sched_itemq q;
	enum kcsmux_prio prio;
	uint32_t weight;     /* 1..10000 */
	uint32_t rate_milli; /* 0: unlimited */
	uint32_t burst;	     /* >= 1 */
	uint32_t queue_max;  /* >= 1 */
	uint32_t qlen;

	uint64_t vt;		/* SFQ start tag of the next request */
	uint64_t wait_since_ns; /* backlogged / last served */
	uint64_t tb_level;	/* tokens x SCHED_TOKEN, at tb_last_ns */
	uint64_t tb_last_ns;
	uint64_t hold_until_ns; /* sched_flow_hold(): ineligible until */
	uint32_t urgent_queued; /* in the urgent lane (0 or 1) */
	uint64_t ub_level;	/* urgent bucket, x SCHED_TOKEN */
	uint64_t ub_last_ns;

	uint64_t dispatched; /* requests handed out */
	uint64_t promoted;   /* ... of which by aging */
	uint64_t rejected;   /* -EBUSY from sched_enqueue() */
	uint64_t urgent;     /* dispatched from the urgent lane */
	uint64_t charged_ns; /* service charged (estimates + fixes) */
};

TAILQ_HEAD(sched_flowq, sched_flow);

struct sched {
	struct sched_flowq flows;
	struct sched_itemq urgent; /* the urgent lane, FIFO */
	uint64_t vclock[SCHED_NCLASSES];
	uint64_t aging_ns;
	uint64_t unit_ns;
	uint32_t nflows;
	uint32_t queued; /* items queued in all flows */
	uint64_t dispatched;
	uint64_t promoted;
};

/* aging_ns 0: SCHED_AGING_DEFAULT_NS; SCHED_NEVER: no aging. */
void sched_init(struct sched *s, uint64_t aging_ns);
void sched_set_aging(struct sched *s, uint64_t aging_ns);
/* Cost charged at dispatch for items with cost_hint_ns 0 (>= 1). */
void sched_set_unit_cost(struct sched *s, uint64_t unit_ns);

/*
 * Add a flow with POL's prio, weight, rate_milli, burst and queue (out of
 * range values are clamped: weight to 1..10000, burst and queue to >= 1).
 * Its token bucket starts full.
 */
void sched_flow_attach(struct sched *s, struct sched_flow *f,
		       const struct kcsmux_policy *pol, uint64_t now_ns);
/*
 * Live policy change; queued items stay queued, in order. A new class
 * starts the flow at that class's virtual clock. The bucket is refilled
 * at the old rate up to NOW, then capped at the new burst (a flow that
 * was unlimited starts full). A queue bound below qlen only makes
 * sched_enqueue() fail until the queue drains below it.
 */
void sched_flow_update(struct sched *s, struct sched_flow *f,
		       const struct kcsmux_policy *pol, uint64_t now_ns);
/*
 * Remove a flow. Items still queued are unlinked and no longer the
 * scheduler's (the caller must fail them, e.g. after walking them with
 * sched_flow_first()); their number is returned. Dispatched items of the
 * flow must not be passed to sched_charge() afterwards.
 */
unsigned sched_flow_detach(struct sched *s, struct sched_flow *f);

void sched_item_init(struct sched_item *it, uint64_t cost_hint_ns);
/* 0, or -EBUSY: the flow's queue is full (the item is untouched). */
int sched_enqueue(struct sched *s, struct sched_flow *f, struct sched_item *it,
		  uint64_t now_ns);
/*
 * Queue IT in the urgent lane when its flow may (above: none of its items
 * is there, and its urgent bucket has a token), else as sched_enqueue().
 * 0 or -EBUSY as sched_enqueue(); *URGENT (may be NULL) says which lane.
 */
int sched_enqueue_urgent(struct sched *s, struct sched_flow *f,
			 struct sched_item *it, uint64_t now_ns, bool *urgent);
/* Is an item waiting in the urgent lane? */
static inline bool sched_urgent_waiting(const struct sched *s)
{
	return !TAILQ_EMPTY(&s->urgent);
}
/*
 * The item to run now, unlinked, or NULL when nothing is eligible. If
 * RETRY_AT_NS is not NULL it gets, with NULL, the time at which a
 * rate-limited flow gets its token (SCHED_NEVER: nothing is queued), and
 * NOW_NS with an item (call again when the interface frees).
 */
struct sched_item *sched_dequeue(struct sched *s, uint64_t now_ns,
				 uint64_t *retry_at_ns);
/*
 * Cancel a queued item (its client went away). false: the item was not
 * queued (never enqueued, already dispatched or removed); nothing done.
 */
bool sched_remove(struct sched *s, struct sched_item *it);
/*
 * The transaction of IT (returned by sched_dequeue()) occupied the
 * interface for SERVICE_NS: charge that instead of the estimate charged
 * at dispatch (0 if it never started). Calling it again corrects again.
 */
void sched_charge(struct sched *s, struct sched_item *it, uint64_t service_ns);

/*
 * Keep the flow's items from being dispatched before UNTIL_NS (a node over
 * its CPU budget waits until its estimate is back under it); like a missing
 * token, this shows in sched_dequeue()'s retry time. 0 lifts it.
 */
void sched_flow_hold(struct sched_flow *f, uint64_t until_ns);

/* The flow's first queued item, or NULL. */
struct sched_item *sched_flow_first(const struct sched_flow *f);
/* When the flow has (or had) a whole token: <= now_ns if it has one now,
 * 0 if unlimited. */
uint64_t sched_flow_token_at(const struct sched_flow *f);

#endif /* KCSMUX_SCHED_H */
