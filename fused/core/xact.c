// SPDX-License-Identifier: GPL-2.0
/*
 * xact.c - requests on their way to the BMC and their answers back.
 *
 * A client's SEND becomes a transaction queued on its node; the scheduler
 * picks which node's transaction runs next whenever the backend has room;
 * the completion is turned into the message the stock driver would have
 * queued for that client. The daemon's own transactions (SMS_ATN handling)
 * go first. A client that closes leaves its transactions orphaned: queued
 * ones are dropped, running ones complete into nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <time.h>

#include <event2/event.h>

#include "backend/backend.h"
#include "kcsmuxd.h"
#include "util/log.h"
#include "core/xact.h"

/* Completion code a BMC allow-list answers with (OpenBMC, IPMI 2.0 H). */
#define IPMI_CC_INSUFFICIENT_PRIV	0xd4

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct xact_list running = TAILQ_HEAD_INITIALIZER(running);
static struct xact_list internal = TAILQ_HEAD_INITIALIZER(internal);

struct xact *xact_new(struct daemon *d, struct node *n, struct client *c)
{
	struct xact *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->d = d;
	x->node = n;
	x->client = c;
	x->cookie = ++d->next_xact_id;
	x->internal = n == NULL;
	x->t_enq = now_ns();
	return x;
}

void xact_free(struct xact *x)
{
	if (x->client)
		TAILQ_REMOVE(&x->client->xacts, x, clink);
	free(x);
}

/*
 * Queue x: a node's goes to the scheduler (-EBUSY when the node's queue
 * bound is reached), the daemon's own (x->node NULL) ahead of all nodes.
 */
int xact_enqueue(struct xact *x)
{
	int rv;

	if (!x->internal) {
		sched_item_init(&x->item, 0);
		rv = sched_enqueue(&x->d->sched, &x->node->flow, &x->item,
				   x->t_enq);
		if (rv < 0) {
			nodestats_reject(&x->node->st);
			return rv;
		}
		nodestats_request(&x->node->st);
	} else {
		TAILQ_INSERT_TAIL(&internal, x, qlink);
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
 * its cpu_budget (poller CPU of its transactions, decayed over ~1 s) neither
 * spins nor sleeps less than poll_max_us until it is back under budget.
 */
static void node_policy(struct node *n, struct xact *x, struct kcsraw_policy *k)
{
	const struct kcsmux_policy *p = &n->conf.pol;
	uint64_t now = now_ns();

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
	k->backoff = p->backoff == KCSMUX_BACKOFF_FIXED ?
		     KCSRAW_BACKOFF_FIXED : KCSRAW_BACKOFF_EXP;
	if (p->cpu_budget_ppm &&
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

/* The next transaction to run: the daemon's own first, then whatever the
 * scheduler picks among the nodes. */
static struct xact *pick(struct daemon *d)
{
	struct xact *x = TAILQ_FIRST(&internal);
	struct sched_item *it;
	uint64_t now = now_ns(), at;
	struct timeval tv;

	if (x) {
		TAILQ_REMOVE(&internal, x, qlink);
		return x;
	}
	it = sched_dequeue(&d->sched, now, &at);
	if (it) {
		x = (struct xact *)((char *)it - offsetof(struct xact, item));
		if (x->client && x->client->queued)
			x->client->queued--;
		nodestats_dispatch(&x->node->st, now - x->t_enq);
		return x;
	}
	if (at != SCHED_NEVER) {	/* a rate-limited node waits */
		if (!d->retry_ev)
			d->retry_ev = evtimer_new(d->base, retry_cb, d);
		at = at > now ? at - now : 0;
		tv.tv_sec = (time_t)(at / 1000000000u);
		tv.tv_usec = (suseconds_t)(at % 1000000000u / 1000u);
		evtimer_add(d->retry_ev, &tv);
	}
	return NULL;
}

void xact_kick(struct daemon *d)
{
	struct backend *be = d->be;
	struct kcsraw_policy pol;
	struct xact *x;
	int rv;

	while (be && be->inflight < be->depth && (x = pick(d))) {
		if (x->node && !x->internal) {
			node_policy(x->node, x, &pol);
		} else {
			memset(&pol, 0, sizeof(pol));
			pol.flags = KCSRAW_POL_DEFAULT;
		}
		x->t_sub = now_ns();
		rv = be->ops->submit(be, x->cookie, &pol, x->req, x->req_len,
				     x->addr.addr_type ==
				     IPMI_SYSTEM_INTERFACE_ADDR_TYPE || x->internal ?
				     NULL : &x->addr, x->retries, x->retry_ms);
		if (rv == -EAGAIN && x->internal) {
			TAILQ_INSERT_HEAD(&internal, x, qlink);
			break;
		}
		if (rv < 0) {
			log_err("backend submit: %s", strerror(-rv));
			x->state = XACT_RUNNING;
			TAILQ_INSERT_TAIL(&running, x, qlink);
			xact_complete(d, x->cookie, rv, NULL, 0, NULL);
			continue;
		}
		x->state = XACT_RUNNING;
		TAILQ_INSERT_TAIL(&running, x, qlink);
	}
}

void xact_complete(struct daemon *d, uint64_t cookie, int status,
		   const uint8_t *resp, unsigned int len,
		   const struct kcsraw_cost *cost)
{
	struct xact *x;

	(void)d;	/* one daemon per process: the lists are file-static */
	TAILQ_FOREACH(x, &running, qlink)
		if (x->cookie == cookie)
			break;
	if (!x) {
		log_warn("completion for unknown transaction %llu",
			 (unsigned long long)cookie);
		return;
	}
	TAILQ_REMOVE(&running, x, qlink);
	if (x->node && !x->internal)
		node_account(x->node, x, status, resp, len, cost);
	if (x->done)
		x->done(x, status, resp, len);
	else
		xact_free(x);
}

/* The backend's reports (backend_cbs), with the daemon as their arg. */
static void be_completion(void *arg, uint64_t cookie, int status,
			  const uint8_t *resp, unsigned int len,
			  const struct kcsraw_cost *cost)
{
	xact_complete(arg, cookie, status, resp, len, cost);
}

static void be_hosed(void *arg)
{
	bmc_setup_recheck(arg);		/* as stock after a hosed interface */
}

static void be_attention(void *arg)
{
	xact_attention(arg);
}

static void be_event(void *arg, const struct ipmb_user_msg *m)
{
	bridge_event(arg, m);
}

static void be_room(void *arg)
{
	xact_kick(arg);
}

const struct backend_cbs xact_backend_cbs = {
	.completion = be_completion,
	.hosed = be_hosed,
	.attention = be_attention,
	.event = be_event,
	.room = be_room,
};

/* Answer a client's system-interface request (x->done for those). */
static void si_done(struct xact *x, int status, const uint8_t *resp,
		    unsigned int len)
{
	struct kmsg *m;

	if (!x->client) {	/* closed meanwhile */
		xact_free(x);
		return;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		x->client->outstanding--;
		xact_free(x);
		return;
	}
	m->recv_type = IPMI_RESPONSE_RECV_TYPE;
	m->addr = x->addr;
	memcpy(m->addr_raw, x->addr_raw, x->addr_raw_len);
	m->addr_raw_len = x->addr_raw_len;
	m->msgid = x->msgid;
	if (status == 0 && len >= 3) {
		/* The address's LUN is the response's, as the stock
		 * handler sets it (the rest of the request's bytes stay). */
		m->addr.lun = resp[0] & 3;
		if (m->addr_raw_len >= ABI_MIN_ADDR_LEN)
			m->addr_raw[6] = resp[0] & 3;
		m->netfn = resp[0] >> 2;
		m->cmd = resp[1];
		m->data_len = (uint16_t)(len - 2);
		memcpy(m->data, resp + 2, m->data_len);
	} else {
		/* The interface gave up or the request was cancelled: what
		 * the stock driver answers when its state machine is hosed. */
		m->netfn = x->netfn | 1;
		m->cmd = x->cmd;
		m->data_len = 1;
		m->data[0] = IPMI_ERR_UNSPECIFIED;
	}
	x->client->outstanding--;
	client_deliver(x->client, m);
	/* A BMC reset clears its global enables: set them again. */
	if (x->netfn == IPMI_NETFN_APP_REQUEST &&
	    (x->cmd == IPMI_COLD_RESET_CMD || x->cmd == IPMI_WARM_RESET_CMD))
		bmc_setup_recheck(x->d);
	xact_free(x);
}

/* An answer made by the daemon itself (access denied, ...). */
int xact_answer_now(struct client *c, const struct abi_addr *addr,
		    int64_t msgid, uint8_t netfn, uint8_t cmd, uint8_t cc)
{
	struct kmsg *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->recv_type = IPMI_RESPONSE_RECV_TYPE;
	m->addr = *addr;
	m->msgid = msgid;
	m->netfn = netfn | 1;
	m->cmd = cmd;
	m->data_len = 1;
	m->data[0] = cc;
	client_deliver(c, m);
	return 0;
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

static bool over_share(const struct client *c)
{
	const struct node *n = c->node;
	unsigned int q = n->conf.pol.queue, sum = 0;
	const struct client *o;

	if (c->queued >= xact_file_share(q))
		return true;
	LIST_FOREACH(o, &n->clients, link)
		if (o->uid == c->uid)
			sum += o->queued;
	return sum >= xact_uid_share(q);
}

int xact_send(struct client *c, const struct abi_addr *addr,
	      const uint8_t *addr_raw, uint32_t addr_len, int64_t msgid,
	      uint8_t netfn, uint8_t cmd, const uint8_t *data, uint16_t len,
	      int32_t retries, uint32_t retry_ms)
{
	struct node *n = c->node;
	struct xact *x;
	unsigned int flags = 0;
	enum access_verdict verdict;
	struct access_why why;
	int rv;

	/* On a raw KCS the channel media are ours to check (the stock
	 * driver underneath checks them on ipmidev). */
	if (!n->d->be->bridges && !n->d->media_ready &&
	    addr->addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE)
		return -EAGAIN;
	rv = abi_check_request(addr, netfn, cmd, len,
			       n->d->be->bridges ? NULL : n->d->media, &flags);
	if (rv < 0)
		return rv;
	/* Like the stock driver: answers the client has not read yet still
	 * count, so a client that never reads cannot grow our memory. */
	if (c->outstanding + c->rq_len >= n->conf.max_outstanding) {
		n->cnt.busy++;
		return -EBUSY;
	}
	if (addr->addr_type == IPMI_IPMB_ADDR_TYPE ||
	    addr->addr_type == IPMI_IPMB_BROADCAST_ADDR_TYPE)
		verdict = access_check_ipmb(&n->conf.acc,
				(uint8_t)addr->channel,
				addr->addr_type == IPMI_IPMB_BROADCAST_ADDR_TYPE,
				addr->slave_addr, addr->lun,
				n->chan_address[addr->channel & 15], netfn, cmd,
				data, len, &why);
	else
		verdict = access_check(&n->conf.acc, netfn, cmd, data, len,
				       &why);
	if (verdict != ACCESS_OK) {
		n->cnt.denied++;
		log_ratelimited(&n->rl_denied, LOG_NOTICE,
				"node %s: pid %d: netfn 0x%02x cmd 0x%02x "
				"denied (cc 0xd4): %s: netfn 0x%02x cmd 0x%02x "
				"at nesting level %u (%u data bytes, first "
				"0x%02x)", n->conf.name,
				(int)c->pid, netfn, cmd,
				access_verdict_name(verdict), why.netfn,
				why.cmd, why.depth, (unsigned int)len,
				len ? data[0] : 0);
		/* every one, for tracing what a client needs (kcsmuxd -d) */
		log_debug("denied: node %s pid %d netfn 0x%02x cmd 0x%02x "
			  "data0 0x%02x len %u", n->conf.name, (int)c->pid,
			  netfn, cmd, len ? data[0] : 0, (unsigned int)len);
		return xact_answer_now(c, addr, msgid, netfn, cmd,
				       IPMI_CC_INSUFFICIENT_PRIV);
	}
	if (addr->addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE &&
	    !n->d->be->bridges)
		return bridge_send(c, addr, msgid, netfn, cmd, data, len,
				   retries, retry_ms, flags);
	if (over_share(c)) {
		n->cnt.busy++;
		return -EBUSY;
	}
	x = xact_new(n->d, n, c);
	if (!x)
		return -ENOMEM;
	x->addr = *addr;
	x->addr_raw_len = (uint8_t)(addr_len < sizeof(x->addr_raw) ?
				    addr_len : sizeof(x->addr_raw));
	memcpy(x->addr_raw, addr_raw, x->addr_raw_len);
	x->msgid = msgid;
	x->netfn = netfn;
	x->cmd = cmd;
	x->retries = retries;
	x->retry_ms = retry_ms;
	x->req[0] = (uint8_t)(netfn << 2 | (addr->lun & 3));
	x->req[1] = cmd;
	memcpy(x->req + 2, data, len);
	x->req_len = (uint16_t)(len + 2);
	x->done = si_done;
	/* counted before: xact_enqueue() may dispatch it at once, and
	 * pick() uncounts what it dispatches */
	c->queued++;
	rv = xact_enqueue(x);
	if (rv < 0) {
		c->queued--;
		free(x);
		return rv;
	}
	TAILQ_INSERT_TAIL(&c->xacts, x, clink);
	c->outstanding++;
	return 0;
}

/* The client closed: drop its queued work, orphan what is running. */
void xact_client_gone(struct client *c)
{
	struct xact *x;

	bridge_client_gone(c);
	while ((x = TAILQ_FIRST(&c->xacts))) {
		TAILQ_REMOVE(&c->xacts, x, clink);
		x->client = NULL;
		if (x->state == XACT_QUEUED && !x->internal &&
		    sched_remove(&x->d->sched, &x->item)) {
			nodestats_cancel(&x->node->st);
			free(x);
		}
	}
}

/* The node is going away: its running transactions complete into nothing. */
void xact_node_gone(struct node *n)
{
	struct xact *x;

	TAILQ_FOREACH(x, &running, qlink)
		if (x->node == n)
			x->node = NULL;
}
