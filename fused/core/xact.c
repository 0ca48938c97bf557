// SPDX-License-Identifier: GPL-2.0
/*
 * xact.c - requests on their way to the BMC and their answers back.
 *
 * The front end turns a client's SEND into a transaction queued on its node
 * (cuse/client.c, client_send); the scheduler picks which node's
 * transaction runs next whenever the backend has room; the backend's
 * completion (core_backend_cbs, core.c) is accounted to the node and
 * handed to the transaction's done callback, which answers its owner. The daemon's own
 * transactions (SMS_ATN handling, BMC setup) go first. An owner that goes
 * away cancels its transactions: queued ones are dropped, running ones
 * complete into nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <time.h>

#include <event2/event.h>

#include "backend/backend.h"
#include "core/core.h"
#include "core/xact.h"
#include "util/log.h"

struct xact *xact_new(struct daemon *d, struct node *n)
{
	struct xact *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->d = d;
	x->node = n;
	x->cookie = ++d->next_xact_id;
	x->internal = n == NULL;
	x->t_enq = now_ns();
	TAILQ_INIT(&x->followers);
	return x;
}

void xact_free(struct xact *x)
{
	if (x->owner)
		x->d->up->xact_gone(x);
	free(x);
}

/*
 * Queue x: a node's goes to the scheduler (-EBUSY when the node's queue
 * bound is reached), the daemon's own (x->node NULL) ahead of all nodes.
 */
/* Coalescing (coalesce.h): a queued request that may lead is found by
 * identical ones until it completes. */
static void lead(struct xact *x)
{
	if (x->leading || !x->may_lead)
		return;
	x->leading = true;
	TAILQ_INSERT_TAIL(&x->d->coal, x, clink);
}

static void unlead(struct xact *x)
{
	if (!x->leading)
		return;
	TAILQ_REMOVE(&x->d->coal, x, clink);
	x->leading = false;
}

/* x completes: it leads no more; its followers get its answer. */
static void followers_answer(struct xact *x, int status, const uint8_t *resp,
			     unsigned int len)
{
	struct xact *f;

	coalesce_remember(x, status, resp, len);
	unlead(x);
	while ((f = TAILQ_FIRST(&x->followers))) {
		TAILQ_REMOVE(&x->followers, f, clink);
		f->leader = NULL;
		f->done(f, status, resp, len);
	}
}

/*
 * x's owner went away: true if x is taken care of here (a follower
 * dropped, with an orphaned queued leader when it was the last; or a
 * queued leader kept for its followers), false if the caller cancels it
 * as usual (it leads no more either way).
 */
static bool followers_cancel(struct xact *x)
{
	struct xact *l = x->leader;

	if (x->state == XACT_FOLLOWING) {
		TAILQ_REMOVE(&l->followers, x, clink);
		free(x);
		if (!l->owner && l->state == XACT_QUEUED &&
		    TAILQ_EMPTY(&l->followers))
			xact_cancel(l);
		return true;
	}
	if (!TAILQ_EMPTY(&x->followers))
		return x->state == XACT_QUEUED; /* runs on for them */
	unlead(x);
	return false;
}

bool xact_urgent_cmd(const struct ipmi_request *rq)
{
	return rq->addr.addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE &&
	       (rq->netfn & 0x3e) == 0x06 &&
	       (rq->cmd == 0x22 || rq->cmd == 0x24 || rq->cmd == 0x25);
}

/* The watchdog's commands (xact_urgent_cmd) of a node, as its KCS bytes
 * say (the request it was made from may be gone). */
static bool urgent_xact(const struct xact *x)
{
	return x->addr.addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE &&
	       x->req_len >= 2 && (x->req[0] >> 2 & 0x3e) == 0x06 &&
	       (x->req[1] == 0x22 || x->req[1] == 0x24 || x->req[1] == 0x25);
}

int xact_enqueue(struct xact *x)
{
	int rv;

	if (!x->internal) {
		sched_item_init(&x->item, 0);
		if (urgent_xact(x))
			rv = sched_enqueue_urgent(&x->d->sched, &x->node->flow,
						  &x->item, x->t_enq,
						  &x->urgent);
		else
			rv = sched_enqueue(&x->d->sched, &x->node->flow,
					   &x->item, x->t_enq);
		if (rv < 0) {
			nodestats_reject(&x->node->st);
			return rv;
		}
		nodestats_request(&x->node->st);
		lead(x);
	} else {
		TAILQ_INSERT_TAIL(&x->d->internal, x, qlink);
	}
	x->state = XACT_QUEUED;
	xact_kick(x->d);
	return 0;
}

/*
 * The policy a node's transaction runs with. adaptive: the node's model of
 * the BMC's response times for this kind of request chooses one long first
 * sleep and the fine polls after it (adaptive.c), within the node's latency
 * target and CPU budget. Otherwise the node's keys, except that a node over
 * its cpu_budget (poller CPU of its transactions and the daemon's for it,
 * cpumeter.h, decayed over ~1 s) neither spins nor sleeps less than
 * poll_max_us until it is back under budget.
 */
static void node_policy(struct node *n, struct xact *x, uint64_t now,
			struct kcsraw_policy *k)
{
	const struct kcsmux_policy *p = &n->conf.pol;

	memset(k, 0, sizeof(*k));
	k->flags = p->use_irq ? KCSRAW_POL_IRQ : 0;
	x->adaptive = p->backoff == KCSMUX_BACKOFF_ADAPTIVE;
	if (x->adaptive) {
		adapt_choose(&n->adapt, x->netfn, x->cmd, p,
			     nodestats_cpu_ppm(&n->st.cpu, now), &x->choice);
		k->max_busy_us = x->choice.max_busy_us;
		k->first_us = x->choice.first_us;
		k->poll_us = x->choice.poll_us;
		k->poll_max_us = x->choice.poll_us;
		k->backoff = KCSRAW_BACKOFF_FIXED;
		return;
	}
	k->max_busy_us = p->max_busy_us;
	k->poll_us = p->poll_us;
	k->poll_max_us = p->poll_max_us;
	k->backoff = p->backoff == KCSMUX_BACKOFF_FIXED ? KCSRAW_BACKOFF_FIXED :
							  KCSRAW_BACKOFF_EXP;
	/* the watchdog's (x->urgent) is not made to wait by the budget */
	/* nor the firmware lease's holder (relaxed: docs/leases.md) */
	if (p->cpu_budget_ppm && !x->urgent && n->d->lease_fw != n &&
	    nodestats_cpu_over(&n->st.cpu, now, p->cpu_budget_ppm)) {
		k->max_busy_us = 0;
		k->poll_us = p->poll_max_us;
		k->backoff = KCSRAW_BACKOFF_FIXED;
		x->throttled = true;
		n->cnt.throttled++;
	}
}

static void retry_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	xact_kick(arg);
}

/* The next transaction to run at NOW: a node's watchdog command (the
 * scheduler's urgent lane) first, then the daemon's own, then whatever
 * the scheduler picks among the nodes. */
static struct xact *pick(struct daemon *d, uint64_t now)
{
	struct xact *x;
	struct sched_item *it;
	uint64_t at;
	struct timeval tv;

	/* the daemon's own wait while a node holds the firmware lease
	 * (leasegate.h): the update's sequence is not interleaved; but not
	 * the message flags machine's, which fetches the answers to the
	 * holder's bridged requests */
	TAILQ_FOREACH (x, &d->internal, qlink)
		if (!d->lease_fw || x->flags)
			break;
	if (x && !sched_urgent_waiting(&d->sched)) {
		TAILQ_REMOVE(&d->internal, x, qlink);
		return x;
	}
	it = sched_dequeue(&d->sched, now, &at);
	if (it) {
		x = (struct xact *)((char *)it - offsetof(struct xact, item));
		if (x->dispatched)
			x->dispatched(x);
		nodestats_dispatch(&x->node->st, now - x->t_enq);
		return x;
	}
	if (at != SCHED_NEVER) { /* a rate-limited node waits */
		if (!d->retry_ev)
			d->retry_ev = evtimer_new(d->base, retry_cb, d);
		at = at > now ? at - now : 0;
		tv.tv_sec = (time_t)(at / 1000000000u);
		tv.tv_usec = (suseconds_t)(at % 1000000000u / 1000u);
		evtimer_add(d->retry_ev, &tv);
	}
	return NULL;
}

/* Hand x to the backend with policy POL. */
static int submit(struct backend *be, const struct xact *x,
		  const struct kcsraw_policy *pol)
{
	bool si = x->addr.addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
	struct backend_req r = {
		.cookie = x->cookie,
		.pol = pol,
		.req = x->req,
		.len = x->req_len,
		.addr = si || x->internal ? NULL : &x->addr,
		.retries = x->retries,
		.retry_ms = x->retry_ms,
		.msgid = x->msgid,
	};

	return be->ops->submit(be, &r);
}

/* Submit x (picked): -EAGAIN when the backend had no room for the
 * daemon's own x (put back first in line), else 0. */
static int kick_one(struct daemon *d, struct backend *be, struct xact *x,
		    uint64_t now, struct kcsraw_policy *pol)
{
	int rv;

	if (x->node && !x->internal) {
		node_policy(x->node, x, now, pol);
	} else {
		memset(pol, 0, sizeof(*pol));
		pol->flags = KCSRAW_POL_DEFAULT;
	}
	x->t_sub = now;
	rv = submit(be, x, pol);
	if (rv == -EAGAIN && x->internal) {
		TAILQ_INSERT_HEAD(&d->internal, x, qlink);
		return -EAGAIN;
	}
	if (rv < 0) {
		log_err("backend submit: %s", strerror(-rv));
		x->state = XACT_RUNNING;
		TAILQ_INSERT_TAIL(&d->running, x, qlink);
		xact_complete(d, x->cookie, rv, NULL, 0, NULL);
		return 0;
	}
	x->state = XACT_RUNNING;
	x->bridged = x->addr.addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE &&
		     !x->internal;
	be->bridged += x->bridged;
	TAILQ_INSERT_TAIL(&d->running, x, qlink);
	return 0;
}

/*
 * Submit while a slot is free. An IPMB request a bridging backend takes as
 * such (ipmidev: the stock driver's own sequence table holds it until the
 * far end answers or its retries run out, up to 11 x 60 s) takes no slot:
 * system-interface requests go on meanwhile, as on stock. The kernel
 * bounds how many it holds (-EBUSY past its table). The clock is read once
 * per kick, and only when something waits: what is picked, its policy and
 * its submit time share it.
 */
void xact_kick(struct daemon *d)
{
	struct backend *be = d->be;
	struct kcsraw_policy pol;
	struct cpu_mark mk;
	uint64_t now;
	struct xact *x;
	int rv;

	if (!be || be->inflight >= be->depth + be->bridged ||
	    (TAILQ_EMPTY(&d->internal) && d->sched.queued == 0))
		return; /* no room, or nothing to pick */
	now = now_ns();
	while (be->inflight < be->depth + be->bridged && (x = pick(d, now))) {
		/* the submission is work for x's node (cpumeter.h) */
		cpu_enter(d, x->internal ? NULL : x->node, &mk);
		rv = kick_one(d, be, x, now, &pol);
		cpu_leave(d, &mk);
		if (rv == -EAGAIN)
			break;
	}
}

/* Account one finished transaction of this node (its cost report). */
static void node_account(struct node *n, struct xact *x, int status,
			 const uint8_t *resp, unsigned int len,
			 const struct kcsraw_cost *cost)
{
	const struct kcsmux_policy *p = &n->conf.pol;
	uint64_t now = now_ns();
	struct nodestats_txn t = {
		.latency_ns = now - x->t_enq,
		.error = status || len < 3 || resp[2] != 0,
		.cc = status == 0 && len >= 3 ? resp[2] : -1,
	};

	if (cost) {
		t.service_ns = cost->latency_ns - cost->queue_ns;
		t.cpu_ns = cost->cpu_ns;
		t.spin_ns = cost->spin_ns;
		n->cnt.sleeps += cost->sleeps;
		if (status == 0) {
			struct adapt_sample smp = {
				.resp_ns = t.service_ns,
				.sleeps = cost->sleeps,
				.bmc_us = cost->bmc_us,
				.cpu_ns = cost->cpu_ns,
			};

			adapt_record(&n->adapt, x->netfn, x->cmd,
				     x->adaptive ? &x->choice : NULL, &smp,
				     now);
		}
	} else {
		t.service_ns = now - x->t_sub;
	}
	nodestats_complete(&n->st, now, &t);
	/*
	 * Over its CPU budget, first cheapen, then wait: the node's next
	 * requests run without spinning and with its slowest polls
	 * (node_policy), and only when one of those (or an adaptive one,
	 * which minds the budget itself) still leaves the node over budget
	 * do its next requests wait until its estimate is back under it (the
	 * other nodes go on meanwhile). Holding at once would trade a
	 * spinning node's throughput for nothing a cheaper poll could not
	 * give.
	 */
	if (p->cpu_budget_ppm && (x->throttled || x->adaptive) &&
	    nodestats_cpu_over(&n->st.cpu, now, p->cpu_budget_ppm)) {
		sched_flow_hold(&n->flow,
				nodestats_cpu_under_at(&n->st.cpu, now,
						       p->cpu_budget_ppm));
		n->cnt.held++;
	}
	sched_charge(&n->d->sched, &x->item, t.service_ns);
}

void xact_complete(struct daemon *d, uint64_t cookie, int status,
		   const uint8_t *resp, unsigned int len,
		   const struct kcsraw_cost *cost)
{
	struct cpu_mark mk;
	struct xact *x;

	TAILQ_FOREACH (x, &d->running, qlink)
		if (x->cookie == cookie)
			break;
	if (!x) {
		log_warn("completion for unknown transaction %llu",
			 (unsigned long long)cookie);
		return;
	}
	/* its completion is work for x's node (cpumeter.h) */
	cpu_enter(d, x->internal ? NULL : x->node, &mk);
	TAILQ_REMOVE(&d->running, x, qlink);
	if (x->bridged && d->be && d->be->bridged)
		d->be->bridged--;
	/* the BMC's own Get Device ID answer (cc 0, the 11 bytes at least):
	 * its identity for kcsmuxctl status, at no extra traffic (a change
	 * rescans the channels: core.c's be_completion) */
	if (status == 0 && x->req_len >= 2 && x->req[0] >> 2 == 0x06 &&
	    x->req[1] == 0x01 && len >= 3 + 11 && resp[1] == 0x01 &&
	    resp[2] == 0 &&
	    x->addr.addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE) {
		d->bmc_id_len = (uint8_t)(len - 3 < sizeof(d->bmc_id) ?
						  len - 3 :
						  sizeof(d->bmc_id));
		memcpy(d->bmc_id, resp + 3, d->bmc_id_len);
	}
	if (x->node && !x->internal)
		node_account(x->node, x, status, resp, len, cost);
	followers_answer(x, status, resp, len);
	if (x->done)
		x->done(x, status, resp, len);
	else
		xact_free(x);
	cpu_leave(d, &mk);
}

/*
 * Shares of a node's queue (policy key queue): one file may hold at most
 * half of it queued, the files of one uid three quarters (at least 1), so
 * one client or one user cannot fill it and starve the node's others.
 */
unsigned int xact_file_share(unsigned int queue)
{
	return queue / 2 ? queue / 2 : 1;
}

unsigned int xact_uid_share(unsigned int queue)
{
	return queue * 3 / 4 ? queue * 3 / 4 : 1;
}

bool xact_share_allows(const struct node *n, unsigned int file_queued,
		       unsigned int uid_queued)
{
	unsigned int q = n->conf.pol.queue;

	return file_queued < xact_file_share(q) &&
	       uid_queued < xact_uid_share(q);
}

struct xact *xact_from_request(struct node *n, void *owner,
			       const struct ipmi_request *rq)
{
	struct xact *x = xact_new(n->d, n);

	if (!x)
		return NULL;
	x->owner = owner;
	x->addr = rq->addr;
	x->addr_raw_len = (uint8_t)(rq->addr_len < sizeof(x->addr_raw) ?
					    rq->addr_len :
					    sizeof(x->addr_raw));
	memcpy(x->addr_raw, rq->addr_raw, x->addr_raw_len);
	x->msgid = rq->msgid;
	x->netfn = rq->netfn;
	x->cmd = rq->cmd;
	x->retries = rq->retries;
	x->retry_ms = rq->retry_ms;
	/* the kernel bridges it (ipmidev, kcsraw's relay): the same clamps
	 * as ours */
	if (rq->addr.addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE) {
		seqtab_clamp_timing(&x->retries, &x->retry_ms);
		if (!access_is_admin(&n->conf.acc))
			seqtab_clamp_user(&x->retries, &x->retry_ms);
	}
	x->req[0] = (uint8_t)(rq->netfn << 2 | (rq->addr.lun & 3));
	x->req[1] = rq->cmd;
	memcpy(x->req + 2, rq->data, rq->len);
	x->req_len = (uint16_t)(rq->len + 2);
	return x;
}

void xact_request(const struct xact *x, struct ipmi_request *rq)
{
	memset(rq, 0, sizeof(*rq));
	rq->addr = x->addr;
	rq->addr_raw = x->addr_raw;
	rq->addr_len = x->addr_raw_len;
	rq->msgid = x->msgid;
	rq->netfn = x->netfn;
	rq->cmd = x->cmd;
	rq->addr.lun = x->req[0] & 3;
	rq->data = x->req + 2;
	rq->len = x->req_len >= 2 ? (uint16_t)(x->req_len - 2) : 0;
	rq->retries = x->retries;
	rq->retry_ms = x->retry_ms;
}

void xact_cancel(struct xact *x)
{
	x->owner = NULL;
	if (followers_cancel(x))
		return;
	if (x->state == XACT_QUEUED && !x->internal &&
	    sched_remove(&x->d->sched, &x->item)) {
		nodestats_cancel(&x->node->st);
		free(x);
	}
}

/* The node is going away: its running transactions complete into nothing. */
void xact_node_gone(struct node *n)
{
	struct xact *x;

	TAILQ_FOREACH (x, &n->d->running, qlink)
		if (x->node == n)
			x->node = NULL;
	cpu_node_gone(n->d, n);
}
