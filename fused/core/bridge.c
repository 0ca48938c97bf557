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
 * cc 0xC3 timeout follow the request's timing, from an exact timer.
 *
 * SMS_ATN (from the backend, or forced after a Send Message) runs the flag
 * machine (atn.c): events go to every subscribed client on nodes that allow
 * events (queued for the first subscriber until one exists), incoming
 * commands to whoever registered them, IPMB responses to their requester.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "core/atn.h"
#include "core/ipmb.h"
#include "core/seqtab.h"
#include "core/xact.h"

static struct seqtab tab;
static struct atn atn;
static struct xact_list pending = TAILQ_HEAD_INITIALIZER(pending);
static bool sending;		/* a Send Message is out or its ATN run */
static bool send_out;		/* ... the Send Message itself */
static struct event *seq_timer;
static struct daemon *dmn;

static void atn_start(void);
static void pump(void);

static void deliver(struct client *c, const struct ipmb_user_msg *u)
{
	struct kmsg *m = calloc(1, sizeof(*m));

	if (!m)
		return;
	m->recv_type = u->recv_type;
	m->addr = u->addr;
	m->msgid = u->msgid;
	m->netfn = u->netfn;
	m->cmd = u->cmd;
	m->data_len = u->data_len;
	memcpy(m->data, u->data, u->data_len);
	client_deliver(c, m);
}

/* A bridged request of c is over (answered, failed or timed out). */
static void finish(struct client *c, const struct ipmb_user_msg *u)
{
	if (c->outstanding)
		c->outstanding--;
	deliver(c, u);
}

static void arm_timer(void)
{
	uint64_t at = seqtab_next_deadline(&tab), now = now_ns();
	struct timeval tv;

	if (at == SEQTAB_NO_DEADLINE) {
		evtimer_del(seq_timer);
		return;
	}
	at = at > now ? at - now : 0;
	tv.tv_sec = (time_t)(at / 1000000000u);
	tv.tv_usec = (suseconds_t)(at % 1000000000u / 1000u);
	evtimer_add(seq_timer, &tv);
}

static struct xact *internal_xact(const uint8_t *req, size_t len,
				  void (*done)(struct xact *, int,
					       const uint8_t *, unsigned int))
{
	struct xact *x = xact_new(dmn, NULL, NULL);

	if (!x)
		return NULL;
	memcpy(x->req, req, len);
	x->req_len = (uint16_t)len;
	x->done = done;
	return x;
}

/* The BMC took (or refused) a Send Message. */
static void send_done(struct xact *x, int status, const uint8_t *resp,
		      unsigned int len)
{
	uint32_t token = (uint32_t)(uintptr_t)x->priv;
	uint8_t cc = status || len < 3 ? 0xff : resp[2];
	struct seqtab_entry gone;
	struct ipmb_user_msg u;

	log_debug("bridge: Send Message token %#x done: status %d cc %#x",
		  token, status, cc);
	xact_free(x);
	send_out = false;
	if (seqtab_send_done(&tab, token, cc, now_ns(), &gone) ==
	    SEQTAB_FAILED) {
		ipmb_user_error(&gone.addr, gone.msgid, gone.netfn, gone.cmd,
				cc, &u);
		finish(gone.owner, &u);
	}
	arm_timer();
	/* Fetch what the BMC holds before the next Send Message. */
	atn_after_send(&atn);
	atn_start();
	if (!atn_busy(&atn)) {
		sending = false;
		pump();
	}
}

/* A client's reply to an incoming command went out: recv_type 4. */
static void reply_done(struct xact *x, int status, const uint8_t *resp,
		       unsigned int len)
{
	struct ipmb_user_msg u;

	if (x->client) {
		TAILQ_REMOVE(&x->client->xacts, x, clink);
		ipmb_user_send_result(&x->addr, x->msgid, x->netfn, x->cmd,
				      status || len < 3 ? 0xff : resp[2], &u);
		finish(x->client, &u);
		x->client = NULL;
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

/* Start the next bridged Send Message when the BMC owes us nothing. */
static void pump(void)
{
	struct xact *x;

	if (sending || !atn_bridge_can_send(&atn))
		return;
	x = TAILQ_FIRST(&pending);
	if (!x)
		return;
	TAILQ_REMOVE(&pending, x, qlink);
	sending = true;
	send_out = true;
	xact_enqueue(x);
}

static void queue_send(const struct seqtab_entry *e)
{
	struct xact *x = xact_new(dmn, NULL, NULL);

	if (!x)
		return;		/* the seq timer will retry or time it out */
	memcpy(x->req, e->req, e->req_len);
	x->req_len = e->req_len;
	x->priv = (void *)(uintptr_t)e->token;
	x->done = send_done;
	x->state = XACT_QUEUED;
	TAILQ_INSERT_TAIL(&pending, x, qlink);
	pump();
}

static void on_seq_timer(evutil_socket_t fd, short what, void *arg)
{
	struct seqtab_entry e;
	struct ipmb_user_msg u;
	int rv;

	(void)fd;
	(void)what;
	(void)arg;
	while ((rv = seqtab_expire(&tab, now_ns(), &e)) != SEQTAB_NONE) {
		if (rv == SEQTAB_RESEND) {
			queue_send(&e);
		} else {
			ipmb_user_error(&e.addr, e.msgid, e.netfn, e.cmd,
					IPMI_TIMEOUT_ERR, &u);
			finish(e.owner, &u);
		}
	}
	arm_timer();
}

void bridge_event(struct daemon *d, const struct kmsg *ev)
{
	struct node *n;
	struct client *c;
	struct kmsg *m;
	bool any = false;

	LIST_FOREACH(n, &d->nodes, link) {
		if (!n->conf.events)
			continue;
		LIST_FOREACH(c, &n->clients, link) {
			/* A subscriber that never reads keeps at most
			 * event_backlog unread events; more are dropped. */
			if (!c->gets_events ||
			    c->rq_len >= d->cfg.event_backlog ||
			    !(m = malloc(sizeof(*m))))
				continue;
			*m = *ev;
			client_deliver(c, m);
			any = true;
		}
	}
	if (any || d->event_backlog_len >= d->cfg.event_backlog)
		return;		/* no room: dropped, as the stock driver does */
	m = malloc(sizeof(*m));
	if (!m)
		return;
	*m = *ev;
	TAILQ_INSERT_TAIL(&d->event_backlog, m, link);
	d->event_backlog_len++;
}

static void fan_out_event(const struct ipmb_user_msg *u)
{
	struct kmsg m;

	memset(&m, 0, sizeof(m));
	m.recv_type = u->recv_type;
	m.addr = u->addr;
	m.msgid = u->msgid;
	m.netfn = u->netfn;
	m.cmd = u->cmd;
	m.data_len = u->data_len;
	memcpy(m.data, u->data, u->data_len);
	bridge_event(dmn, &m);
}

static void handle_result(struct atn_result *res)
{
	struct seqtab_entry gone;
	struct ipmb_user_msg u;
	struct client *c;
	uint8_t req[ABI_MAX_MSG_LENGTH];
	struct xact *x;
	int n;

	switch (res->kind) {
	case ATN_EVENT:
		fan_out_event(&res->msg);
		break;
	case ATN_IPMB_RESPONSE:
		log_debug("bridge: IPMB response seq %u ch %u sa %#x netfn %#x "
			  "cmd %#x", res->rx.seq, res->rx.channel,
			  res->rx.src_sa, res->rx.netfn, res->rx.cmd);
		if (seqtab_match(&tab, res->rx.seq, res->rx.channel,
				 res->rx.src_sa, res->rx.src_lun,
				 res->rx.netfn, res->rx.cmd, &gone) == 0) {
			ipmb_user_response(&gone.addr, gone.msgid, gone.cmd,
					   &res->rx, &u);
			finish(gone.owner, &u);
			arm_timer();
		}
		break;
	case ATN_IPMB_COMMAND:
		c = cmdreg_lookup(res->rx.netfn, res->rx.cmd, res->rx.channel);
		if (c) {
			ipmb_user_command(&res->rx, &u);
			deliver(c, &u);
			break;
		}
		n = ipmb_build_invalid_cmd_reply(&res->rx, dmn->my_address,
						 req, sizeof(req));
		if (n > 0 && (x = internal_xact(req, (size_t)n,
						fire_and_forget)))
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
	struct atn_result res;
	uint8_t req[ATN_REQ_MAX];
	struct xact *nx;
	int n;

	if (status || len < 3) {
		resp = none;
		len = sizeof(none);
	}
	memset(&res, 0, sizeof(res));
	n = atn_response(&atn, resp, len, &res, req, sizeof(req));
	log_debug("atn: %02x %02x cc %02x (%u bytes): kind %d, next %d",
		  resp[0], resp[1], resp[2], len, res.kind, n);
	if (res.kind == ATN_INVALID) {
		char hex[3 * 40 + 1];
		unsigned int i;

		for (i = 0; i < len && i < 40; i++)
			snprintf(hex + 3 * i, 4, " %02x", resp[i]);
		log_debug("atn: dropped invalid message:%s", hex);
	}
	handle_result(&res);	/* res.rx points into resp: before free */
	xact_free(x);
	if (n > 0 && (nx = internal_xact(req, (size_t)n, atn_done))) {
		xact_enqueue(nx);
		return;
	}
	if (!send_out)
		sending = false;
	pump();
}

static void atn_start(void)
{
	uint8_t req[ATN_REQ_MAX];
	struct xact *x;
	int n = atn_attention(&atn, req, sizeof(req));

	if (n > 0 && (x = internal_xact(req, (size_t)n, atn_done)))
		xact_enqueue(x);
}

void xact_attention(struct daemon *d)
{
	(void)d;
	atn_start();
}

/* Nodes of the daemon: the slot share's divisor. */
static unsigned int node_count(void)
{
	unsigned int k = 0;
	struct node *n;

	LIST_FOREACH(n, &dmn->nodes, link)
		k++;
	return k ? k : 1;
}

int bridge_send(struct client *c, const struct abi_addr *addr, int64_t msgid,
		uint8_t netfn, uint8_t cmd, const uint8_t *data, uint16_t len,
		int32_t retries, uint32_t retry_ms, unsigned int flags)
{
	const struct seqtab_entry *e;
	struct seqtab_req r;
	struct xact *x;
	uint8_t req[ABI_MAX_MSG_LENGTH];
	int n;

	if (addr->addr_type != IPMI_IPMB_ADDR_TYPE &&
	    addr->addr_type != IPMI_IPMB_BROADCAST_ADDR_TYPE &&
	    addr->addr_type != IPMI_LAN_ADDR_TYPE)
		return -EINVAL;	/* LAN: only on LAN/serial media (checked) */
	if (flags & ABI_REQF_RESPONSE) {
		/* A reply to an incoming command: msgid is its sequence. */
		n = ipmb_build_from_addr(addr, netfn, cmd, data, len,
					 c->node->chan_address[addr->channel & 15],
					 c->node->chan_lun[addr->channel & 15],
					 (uint8_t)msgid, req, sizeof(req));
		if (n < 0)
			return n;
		x = internal_xact(req, (size_t)n, reply_done);
		if (!x)
			return -ENOMEM;
		x->client = c;
		x->addr = *addr;
		x->msgid = msgid;
		x->netfn = netfn;
		x->cmd = cmd;
		TAILQ_INSERT_TAIL(&c->xacts, x, clink);
		c->outstanding++;
		xact_enqueue(x);
		return 0;
	}
	memset(&r, 0, sizeof(r));
	r.owner = c;
	r.msgid = msgid;
	r.addr = *addr;
	r.netfn = netfn;
	r.cmd = cmd;
	r.data = data;
	r.data_len = len;
	r.my_sa = c->node->chan_address[addr->channel & 15];
	r.my_lun = c->node->chan_lun[addr->channel & 15];
	abi_effective_timing(retries, retry_ms, flags & ABI_REQF_BROADCAST,
			     false, &r.retries, &r.retry_ms);
	seqtab_clamp_timing(&r.retries, &r.retry_ms);
	/* Each node gets its share of the 64 slots: one node's clients
	 * cannot take them all from the others (-EAGAIN, as a full table). */
	r.group = c->node;
	r.group_max = SEQTAB_SLOTS / node_count() ?
		      SEQTAB_SLOTS / node_count() : 1;
	n = seqtab_alloc(&tab, &r, now_ns(), &e);
	if (n < 0)
		return n;
	c->outstanding++;
	queue_send(e);
	arm_timer();
	return 0;
}

/* Its slots are freed; a Send Message of it still queued goes out and its
 * completion finds no slot (ignored), like a late answer. */
void bridge_client_gone(struct client *c)
{
	seqtab_cancel_owner(&tab, c);
}

void bridge_set_media(const uint8_t *media)
{
	atn.media = media;
}

void bridge_init(struct daemon *d)
{
	dmn = d;
	seqtab_init(&tab);
	atn_init(&atn);
	seq_timer = evtimer_new(d->base, on_seq_timer, NULL);
}

void bridge_fini(struct daemon *d)
{
	struct xact *x;

	(void)d;
	while ((x = TAILQ_FIRST(&pending))) {
		TAILQ_REMOVE(&pending, x, qlink);
		free(x);
	}
	if (seq_timer)
		event_free(seq_timer);
}
