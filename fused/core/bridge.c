// SPDX-License-Identifier: GPL-2.0
/*
 * bridge.c - what the stock message handler does for the interface and
 * kcsmuxd must do itself on a raw KCS: IPMB bridging and SMS_ATN.
 *
 * A client's request to an IPMB address takes a slot of the sequence table
 * (seqtab.c) and goes out wrapped in Send Message (ipmb.c). Bridged
 * requests are sent one at a time: after each Send Message completes the
 * daemon asks for the message flags, and fetches the forwarded response
 * (or anything else the BMC holds) before the next Send Message; some BMCs
 * (ipmi_sim among them) keep only one forwarded response. Retries and the
 * cc 0xC3 timeout follow the request's timing, from an exact timer. A Send
 * Message is a transaction of its node (its queue, rate, weight, CPU
 * budget): the next one to go is the first pending whose node may run a
 * request now; only the fetches it triggers are the daemon's own.
 *
 * SMS_ATN (from the backend, or forced after a Send Message) runs the flag
 * machine (atn.c): events, incoming commands and IPMB responses go up to
 * the front end through d->up (struct core_upcalls): events to every
 * subscriber, commands to whoever registered them (else the daemon answers
 * "invalid command" itself), responses to their requester, the owner the
 * sequence table kept. The state is the daemon's (struct bridge, d->br).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "core/atn.h"
#include "core/core.h"
#include "core/ipmb.h"
#include "core/seqtab.h"
#include "core/sdrglue.h"
#include "core/xact.h"

static void atn_start(struct daemon *d);
static void pump(struct daemon *d);

/* A bridged request of owner is over (answered, failed or timed out). */
static void finish(struct daemon *d, void *owner, const struct ipmb_user_msg *u)
{
	d->up->bridged(d, owner, u);
}

static void arm_timer(struct daemon *d)
{
	uint64_t at = seqtab_next_deadline(&d->br.tab), now = now_ns();
	struct timeval tv;

	if (at == SEQTAB_NO_DEADLINE) {
		evtimer_del(d->br.seq_timer);
		return;
	}
	at = at > now ? at - now : 0;
	tv.tv_sec = (time_t)(at / 1000000000u);
	tv.tv_usec = (suseconds_t)(at % 1000000000u / 1000u);
	evtimer_add(d->br.seq_timer, &tv);
}

static struct xact *
internal_xact(struct daemon *d, const uint8_t *req, size_t len,
	      void (*done)(struct xact *, int, const uint8_t *, unsigned int))
{
	struct xact *x = xact_new(d, NULL);

	if (!x)
		return NULL;
	memcpy(x->req, req, len);
	x->req_len = (uint16_t)len;
	x->done = done;
	x->flags = true;
	return x;
}

/* The BMC took (or refused) a Send Message. */
static void send_done(struct xact *x, int status, const uint8_t *resp,
		      unsigned int len)
{
	struct daemon *d = x->d;
	uint32_t token = (uint32_t)(uintptr_t)x->priv;
	uint8_t cc = status || len < 3 ? 0xff : resp[2];
	struct seqtab_entry gone;
	struct ipmb_user_msg u;
	/* the frame after the channel byte (and a broadcast's 00):
	 * rsSA, netfn/LUN, chk, rqSA, seq/LUN, cmd */
	unsigned int f = x->req_len > 3 && x->req[3] == 0x00 ? 4 : 3;

	log_debug("bridge: Send Message token %#x done: status %d cc %#x",
		  token, status, cc);
	if (d->br.queued == x)
		d->br.queued = NULL;
	if (cc == 0 && x->req_len > f + 5)
		sdrglue_bridged(d, x->req[f + 1] >> 2, x->req[f + 5]);
	xact_free(x);
	d->br.send_out = false;
	if (seqtab_send_done(&d->br.tab, token, cc, now_ns(), &gone) ==
	    SEQTAB_FAILED) {
		ipmb_user_error(&gone.addr, gone.msgid, gone.netfn, gone.cmd,
				cc, &u);
		finish(d, gone.owner, &u);
	}
	arm_timer(d);
	/* Fetch what the BMC holds before the next Send Message. */
	atn_after_send(&d->br.atn);
	atn_start(d);
	if (!atn_busy(&d->br.atn)) {
		d->br.sending = false;
		pump(d);
	}
}

/* A client's reply to an incoming command went out: recv_type 4. */
static void reply_done(struct xact *x, int status, const uint8_t *resp,
		       unsigned int len)
{
	struct ipmb_user_msg u;

	if (x->owner) {
		ipmb_user_send_result(&x->reply_to, x->msgid, x->netfn, x->cmd,
				      status || len < 3 ? 0xff : resp[2], &u);
		finish(x->d, x->owner, &u);
	}
	xact_free(x);
}

static void fire_and_forget(struct xact *x, int status, const uint8_t *resp,
			    unsigned int len)
{
	(void)status;
	(void)resp;
	(void)len;
	xact_free(x);
}

/* When node n may run a request (a token, not held): <= now if now. */
static uint64_t node_ready_at(const struct node *n)
{
	uint64_t at = sched_flow_token_at(&n->flow);

	return at > n->flow.hold_until_ns ? at : n->flow.hold_until_ns;
}

/*
 * Start the next bridged Send Message when the BMC owes us nothing: the
 * first pending one whose node may run a request now, into that node's
 * queue (one node's rate limit or CPU hold keeps no other node's waiting);
 * if none may, again when the first of them may.
 */
static void pump(struct daemon *d)
{
	uint64_t now, at = SCHED_NEVER, t;
	struct xact *x;
	struct timeval tv;

	if (d->br.sending || !atn_bridge_can_send(&d->br.atn) ||
	    TAILQ_EMPTY(&d->br.pending))
		return;
	now = now_ns();
	TAILQ_FOREACH (x, &d->br.pending, qlink) {
		t = node_ready_at(x->node);
		if (t <= now)
			break;
		at = t < at ? t : at;
	}
	if (!x) {
		at -= now;
		tv.tv_sec = (time_t)(at / 1000000000u);
		tv.tv_usec = (suseconds_t)(at % 1000000000u / 1000u);
		evtimer_add(d->br.pump_timer, &tv);
		return;
	}
	TAILQ_REMOVE(&d->br.pending, x, qlink);
	/* set first: the backend may complete it at once (send_done) */
	d->br.sending = true;
	d->br.send_out = true;
	d->br.queued = x;
	if (xact_enqueue(x) < 0) { /* the node's queue is full: later */
		d->br.sending = false;
		d->br.send_out = false;
		d->br.queued = NULL;
		x->state = XACT_QUEUED;
		TAILQ_INSERT_HEAD(&d->br.pending, x, qlink);
		tv.tv_sec = 0;
		tv.tv_usec = 100000;
		evtimer_add(d->br.pump_timer, &tv);
	}
}

static void on_pump_timer(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	pump(arg);
}

/* A Send Message of node n: a system-interface request to the BMC. */
static void queue_send(struct daemon *d, const struct seqtab_entry *e)
{
	struct xact *x = xact_new(d, (struct node *)(uintptr_t)e->group);

	if (!x)
		return; /* the seq timer will retry or time it out */
	memcpy(x->req, e->req, e->req_len);
	x->req_len = e->req_len;
	x->addr.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
	x->addr.channel = IPMI_BMC_CHANNEL;
	x->netfn = x->req[0] >> 2;
	x->cmd = x->req[1];
	x->priv = (void *)(uintptr_t)e->token;
	x->done = send_done;
	x->state = XACT_QUEUED;
	TAILQ_INSERT_TAIL(&d->br.pending, x, qlink);
	pump(d);
}

static void on_seq_timer(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	struct seqtab_entry e;
	struct ipmb_user_msg u;
	int rv;

	(void)fd;
	(void)what;
	while ((rv = seqtab_expire(&d->br.tab, now_ns(), &e)) != SEQTAB_NONE) {
		if (rv == SEQTAB_RESEND) {
			queue_send(d, &e);
		} else {
			ipmb_user_error(&e.addr, e.msgid, e.netfn, e.cmd,
					IPMI_TIMEOUT_ERR, &u);
			finish(d, e.owner, &u);
		}
	}
	arm_timer(d);
}

static void handle_result(struct daemon *d, struct atn_result *res)
{
	struct seqtab_entry gone;
	struct ipmb_user_msg u;
	uint8_t req[ABI_MAX_MSG_LENGTH];
	struct xact *x;
	int n;

	switch (res->kind) {
	case ATN_EVENT:
		d->up->event(d, &res->msg);
		break;
	case ATN_IPMB_RESPONSE:
		log_debug("bridge: IPMB response seq %u ch %u sa %#x netfn %#x "
			  "cmd %#x",
			  res->rx.seq, res->rx.channel, res->rx.src_sa,
			  res->rx.netfn, res->rx.cmd);
		if (seqtab_match(&d->br.tab, &res->rx, &gone) == 0) {
			ipmb_user_response(&gone.addr, gone.msgid, gone.cmd,
					   &res->rx, &u);
			finish(d, gone.owner, &u);
			arm_timer(d);
		}
		break;
	case ATN_IPMB_COMMAND:
		ipmb_user_command(&res->rx, &u);
		if (d->up->command(d, &u, res->rx.netfn, res->rx.cmd,
				   res->rx.channel))
			break;
		n = ipmb_build_invalid_cmd_reply(&res->rx, d->my_address, req,
						 sizeof(req));
		if (n > 0 &&
		    (x = internal_xact(d, req, (size_t)n, fire_and_forget)))
			xact_enqueue(x);
		break;
	default:
		break;
	}
}

static void atn_done(struct xact *x, int status, const uint8_t *resp,
		     unsigned int len)
{
	static const uint8_t none[3] = { 0x1c, 0, 0xff };
	struct daemon *d = x->d;
	struct atn_result res;
	uint8_t req[ATN_REQ_MAX];
	struct xact *nx;
	int n;

	if (status || len < 3) {
		resp = none;
		len = sizeof(none);
	}
	memset(&res, 0, sizeof(res));
	/* the channel media, once bmcsetup.c's scan has them */
	d->br.atn.media = d->media_ready ? d->media : NULL;
	n = atn_response(&d->br.atn, resp, len, &res, req, sizeof(req));
	log_debug("atn: %02x %02x cc %02x (%u bytes): kind %d, next %d",
		  resp[0], resp[1], resp[2], len, res.kind, n);
	if (res.kind == ATN_INVALID) {
		char hex[3 * 40 + 1];
		unsigned int i;

		for (i = 0; i < len && i < 40; i++)
			snprintf(hex + 3 * i, 4, " %02x", resp[i]);
		log_debug("atn: dropped invalid message:%s", hex);
	}
	handle_result(d, &res); /* res.rx points into resp: before free */
	xact_free(x);
	if (n > 0 && (nx = internal_xact(d, req, (size_t)n, atn_done))) {
		xact_enqueue(nx);
		return;
	}
	if (!d->br.send_out)
		d->br.sending = false;
	pump(d);
}

static void atn_start(struct daemon *d)
{
	uint8_t req[ATN_REQ_MAX];
	struct xact *x;
	int n = atn_attention(&d->br.atn, req, sizeof(req));

	if (n > 0 && (x = internal_xact(d, req, (size_t)n, atn_done)))
		xact_enqueue(x);
}

void bridge_attention(struct daemon *d)
{
	atn_start(d);
}

/* Nodes of the daemon: the slot share's divisor. */
static unsigned int node_count(struct daemon *d)
{
	unsigned int k = 0;
	struct node *n;

	LIST_FOREACH (n, &d->nodes, link)
		k++;
	return k ? k : 1;
}

unsigned int bridge_node_share(struct daemon *d)
{
	return SEQTAB_SLOTS / node_count(d) ? SEQTAB_SLOTS / node_count(d) : 1;
}

unsigned int bridge_file_share(struct daemon *d)
{
	return bridge_node_share(d) / 2 ? bridge_node_share(d) / 2 : 1;
}

static bool bridged_type(const struct ipmi_address *addr)
{
	/* LAN: only on LAN/serial media (checked) */
	return addr->addr_type == IPMI_IPMB_ADDR_TYPE ||
	       addr->addr_type == IPMI_IPMB_BROADCAST_ADDR_TYPE ||
	       addr->addr_type == IPMI_LAN_ADDR_TYPE;
}

struct xact *bridge_reply_new(struct node *nd, const struct ipmi_request *rq,
			      int *err)
{
	const struct ipmi_address *addr = &rq->addr;
	uint8_t req[ABI_MAX_MSG_LENGTH];
	struct xact *x;
	int n;

	if (!bridged_type(addr)) {
		*err = -EINVAL;
		return NULL;
	}
	/* A reply to an incoming command: msgid is its sequence. */
	n = ipmb_build_from_addr(rq, nd->chan_address[addr->channel & 15],
				 nd->chan_lun[addr->channel & 15],
				 (uint8_t)rq->msgid, req, sizeof(req));
	if (n < 0) {
		*err = n;
		return NULL;
	}
	/* a Send Message of the node's, as its requests' (queue_send) */
	x = xact_new(nd->d, nd);
	if (!x) {
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(x->req, req, (size_t)n);
	x->req_len = (uint16_t)n;
	x->done = reply_done;
	x->addr.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
	x->addr.channel = IPMI_BMC_CHANNEL;
	x->reply_to = *addr;
	x->msgid = rq->msgid;
	x->netfn = rq->netfn;
	x->cmd = rq->cmd;
	return x;
}

int bridge_send(struct node *nd, void *owner, const struct ipmi_request *rq)
{
	struct daemon *d = nd->d;
	const struct ipmi_address *addr = &rq->addr;
	const struct seqtab_entry *e;
	struct seqtab_req r;
	int n;

	if (!bridged_type(addr))
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	r.owner = owner;
	r.rq = *rq;
	r.my_sa = nd->chan_address[addr->channel & 15];
	r.my_lun = nd->chan_lun[addr->channel & 15];
	ipmi_effective_timing(rq->retries, rq->retry_ms,
			      rq->flags & ABI_REQF_BROADCAST, false,
			      &r.rq.retries, &r.rq.retry_ms);
	seqtab_clamp_timing(&r.rq.retries, &r.rq.retry_ms);
	if (!access_is_admin(&nd->conf.acc))
		seqtab_clamp_user(&r.rq.retries, &r.rq.retry_ms);
	/* Each node gets its share of the 64 slots: one node's clients
	 * cannot take them all from the others (-EAGAIN, as a full table). */
	r.group = nd;
	r.group_max = bridge_node_share(d);
	if (seqtab_owner_count(&d->br.tab, owner) >= bridge_file_share(d))
		return -EAGAIN;
	n = seqtab_alloc(&d->br.tab, &r, now_ns(), &e);
	if (n < 0)
		return n;
	queue_send(d, e);
	arm_timer(d);
	return 0;
}

/* Its slots are freed; a Send Message of it still queued goes out and its
 * completion finds no slot (ignored), like a late answer. */
void bridge_owner_gone(struct daemon *d, void *owner)
{
	struct xact *x, *next;

	if (!seqtab_cancel_owner(&d->br.tab, owner))
		return;
	for (x = TAILQ_FIRST(&d->br.pending); x; x = next) {
		next = TAILQ_NEXT(x, qlink);
		if (!seqtab_live(&d->br.tab, (uint32_t)(uintptr_t)x->priv)) {
			TAILQ_REMOVE(&d->br.pending, x, qlink);
			xact_free(x);
		}
	}
	/* the one in its node's queue still: out of it (its node may be
	 * going away), and the next may go */
	x = d->br.queued;
	if (x && x->state == XACT_QUEUED &&
	    !seqtab_live(&d->br.tab, (uint32_t)(uintptr_t)x->priv) &&
	    sched_remove(&d->sched, &x->item)) {
		nodestats_cancel(&x->node->st);
		xact_free(x);
		d->br.queued = NULL;
		d->br.sending = false;
		d->br.send_out = false;
		pump(d);
	}
}

void bridge_init(struct daemon *d)
{
	seqtab_init(&d->br.tab);
	atn_init(&d->br.atn);
	TAILQ_INIT(&d->br.pending);
	d->br.sending = false;
	d->br.send_out = false;
	d->br.seq_timer = evtimer_new(d->base, on_seq_timer, d);
	d->br.queued = NULL;
	d->br.pump_timer = evtimer_new(d->base, on_pump_timer, d);
}

void bridge_fini(struct daemon *d)
{
	struct xact *x;

	while ((x = TAILQ_FIRST(&d->br.pending))) {
		TAILQ_REMOVE(&d->br.pending, x, qlink);
		free(x);
	}
	if (d->br.seq_timer)
		event_free(d->br.seq_timer);
	d->br.seq_timer = NULL;
	if (d->br.pump_timer)
		event_free(d->br.pump_timer);
	d->br.pump_timer = NULL;
}
