// SPDX-License-Identifier: GPL-2.0
/*
 * handover_state.c - a graceful exit (SIGTERM) hands each open file's state
 * to the next process: reading stops (the clients' calls wait in the
 * kernel), the transactions in flight finish (at most HO_QUIESCE_MS; one
 * still running then is answered cc 0xFF, as the stock driver answers a
 * request its interface gave up on), and the records go into the memfd
 * (handover.c): each node's IPMB addresses and LUNs, each open file's
 * opener, events subscription, timing parameters and receive queue. The
 * next process puts them back before it reads a request. Each file's
 * command registrations come along (REC_CMDREG after its REC_CLIENT).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "core/leasegate.h"
#include "core/xact.h"
#include "cuse/cuse.h"
#include "cuse/handover.h"
#include "cuse/handover_priv.h"
#include "util/clock.h"
#include "util/log.h"

static struct node *ho_node_named(struct daemon *d, const char *name)
{
	struct node *n;

	LIST_FOREACH (n, &d->nodes, link)
		if (strncmp(n->conf.name, name, KCSMUX_NAME_MAX) == 0)
			return n;
	return NULL;
}

static void ho_restore_client(struct daemon *d, const struct ho_rec_client *r,
			      struct client **cur)
{
	struct node *n = ho_node_named(d, r->node);
	struct client *c;

	*cur = NULL;
	if (!n || !n->ho || !((struct ho_rt *)n->ho)->adopted)
		return;
	c = client_new(n, r->pid, r->uid);
	if (!c)
		return;
	c->id = r->id;
	memcpy(c->comm, r->comm, sizeof(c->comm));
	c->comm[sizeof(c->comm) - 1] = '\0';
	c->gets_events = r->gets_events && n->conf.events;
	c->revoked = r->revoked;
	c->timing_retries = r->timing_retries;
	c->timing_retry_ms = r->timing_retry_ms;
	LIST_INSERT_HEAD(&n->clients, c, link);
	n->nclients++;
	*cur = c;
}

static void ho_restore_msg(struct client *c, const struct ho_rec_msg *r)
{
	struct kmsg *m = calloc(1, sizeof(*m));

	if (!m)
		return;
	m->recv_type = r->recv_type;
	m->addr = r->addr;
	memcpy(m->addr_raw, r->addr_raw, sizeof(m->addr_raw));
	m->addr_raw_len = r->addr_raw_len;
	m->msgid = r->msgid;
	m->netfn = r->netfn;
	m->cmd = r->cmd;
	m->data_len = r->data_len > IPMI_MAX_MSG_LENGTH ? IPMI_MAX_MSG_LENGTH :
							  r->data_len;
	memcpy(m->data, r->data, m->data_len);
	client_deliver(c, m);
}

/*
 * A lease the last process held for a node: the node holds it again up to
 * the same deadline (a firmware update goes on across the restart). A
 * node gone from the configuration, or a class another node's configured
 * lease took meanwhile, loses it, with a line.
 */
static bool ho_restore_lease(struct daemon *d, const struct ho_rec_lease *r)
{
	struct node *n = ho_node_named(d, r->node);
	const struct node *holder = NULL;
	const struct lease *cur;
	unsigned int bit = r->class_bit;
	uint64_t now = now_ns();

	if (bit == 0 || (bit & (bit - 1)) || (bit & ~LEASE_ALL) ||
	    r->until_ns <= now || r->until_ns - now > LEASE_MAX_NS)
		return false;
	/* a configured lease renewed since holds it as long or longer */
	cur = &d->leases.l[__builtin_ctz(bit)];
	if (n && cur->holder == n && cur->until_ns >= r->until_ns)
		return true;
	if (n && leasegate_take(d, n, bit, r->until_ns - now, &holder) == 0)
		return true;
	log_warn("hand-over: node %.*s's %s lease not taken over (%s)",
		 KCSMUX_NAME_MAX, r->node, lease_class_name(bit),
		 !n	? "no such node now" :
		 holder ? holder->conf.name :
			  "refused");
	return false;
}

/* The graceful predecessor's records. */
void ho_restore(struct daemon *d, struct handover *h)
{
	const uint8_t *p = (const uint8_t *)(h->sh + 1);
	uint64_t len = h->sh->blob_len, off = 0;
	unsigned int files = 0, msgs = 0, regs = 0, leases = 0;
	struct client *cur = NULL;

	h->sh->blob_len = 0; /* used once: a later crash must not reuse it */
	if (len > HO_BLOB)
		return;
	while (off + sizeof(struct ho_rec) <= len) {
		const struct ho_rec *r = (const void *)(p + off);

		if (r->len < sizeof(*r) || off + r->len > len)
			break;
		if (r->type == REC_NODE &&
		    r->len == sizeof(struct ho_rec_node)) {
			const struct ho_rec_node *rn = (const void *)r;
			struct node *n = ho_node_named(d, rn->name);

			if (n) {
				memcpy(n->chan_address, rn->chan_address,
				       sizeof(n->chan_address));
				memcpy(n->chan_lun, rn->chan_lun,
				       sizeof(n->chan_lun));
			}
		} else if (r->type == REC_CLIENT &&
			   r->len == sizeof(struct ho_rec_client)) {
			ho_restore_client(d, (const void *)r, &cur);
			files += cur != NULL;
		} else if (r->type == REC_MSG &&
			   r->len == sizeof(struct ho_rec_msg) && cur) {
			ho_restore_msg(cur, (const void *)r);
			msgs++;
		} else if (r->type == REC_CMDREG &&
			   r->len == sizeof(struct ho_rec_cmdreg) && cur) {
			const struct ho_rec_cmdreg *rc = (const void *)r;
			struct cmdreg_ent e = { rc->netfn, rc->cmd, rc->chans };

			regs += cmdreg_restore(cur, &e) == 0;
		} else if (r->type == REC_LEASE &&
			   r->len == sizeof(struct ho_rec_lease)) {
			leases += ho_restore_lease(d, (const void *)r);
		}
		off += r->len;
	}
	log_info("hand-over: %u open files taken over with their state "
		 "(%u queued messages, %u command registrations, %u leases)",
		 files, msgs, regs, leases);
}

/* ------------------------------------------------------------------ */
/* Handing over (SIGTERM) */

static bool ho_in_flight(struct daemon *d)
{
	struct node *n;
	struct client *c;

	LIST_FOREACH (n, &d->nodes, link)
		LIST_FOREACH (c, &n->clients, link)
			if (c->outstanding)
				return true;
	return false;
}

static void ho_quiesce_tick(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	struct handover *h = ho_of(d);
	struct timeval tv = { 0, HO_QUIESCE_US };

	(void)fd;
	(void)what;
	if (ho_in_flight(d) &&
	    now_ns() - h->quiesce_t0 < HO_QUIESCE_MS * 1000000ull) {
		evtimer_add(h->quiesce_ev, &tv);
		return;
	}
	h->done(d);
}

void handover_quiesce(struct daemon *d, void (*done)(struct daemon *d))
{
	struct handover *h = ho_of(d);
	struct node *n;

	if (!h || !h->used) {
		done(d);
		return;
	}
	h->graceful = true;
	/* the calls wait in the kernel for the next process */
	LIST_FOREACH (n, &d->nodes, link)
		if (n->ev)
			event_del(n->ev);
	h->done = done;
	h->quiesce_t0 = now_ns();
	if (!h->quiesce_ev)
		h->quiesce_ev = evtimer_new(d->base, ho_quiesce_tick, d);
	if (!h->quiesce_ev) {
		done(d);
		return;
	}
	ho_quiesce_tick(-1, 0, d);
}

static void *ho_put(struct handover *h, uint64_t *off, uint32_t type,
		    size_t len)
{
	struct ho_rec *r;

	if (*off + len > HO_BLOB)
		return NULL;
	r = (struct ho_rec *)((uint8_t *)(h->sh + 1) + *off);
	memset(r, 0, len);
	r->type = type;
	r->len = (uint32_t)len;
	*off += len;
	return r;
}

/* c's command registrations, after its REC_CLIENT */
static void ho_save_cmdregs(struct handover *h, uint64_t *off,
			    const struct client *c)
{
	struct cmdreg_ent e[CMDREG_MAX_PER_FILE];
	unsigned int k = cmdreg_list(c, e, CMDREG_MAX_PER_FILE);

	for (unsigned int i = 0; i < k && i < CMDREG_MAX_PER_FILE; i++) {
		struct ho_rec_cmdreg *r =
			ho_put(h, off, REC_CMDREG, sizeof(*r));

		if (!r)
			return;
		r->netfn = e[i].netfn;
		r->cmd = e[i].cmd;
		r->chans = e[i].chans;
	}
}

static void ho_save_client(struct handover *h, uint64_t *off,
			   const struct client *c)
{
	struct ho_rec_client *r = ho_put(h, off, REC_CLIENT, sizeof(*r));
	const struct kmsg *m;
	const struct xact *x;

	if (!r)
		return;
	snprintf(r->node, sizeof(r->node), "%s", c->node->conf.name);
	r->id = c->id;
	r->pid = c->pid;
	r->uid = (uint32_t)c->uid;
	memcpy(r->comm, c->comm, sizeof(r->comm));
	r->gets_events = c->gets_events;
	r->revoked = c->revoked;
	r->timing_retries = c->timing_retries;
	r->timing_retry_ms = c->timing_retry_ms;
	TAILQ_FOREACH (m, &c->rq, link) {
		struct ho_rec_msg *rm = ho_put(h, off, REC_MSG, sizeof(*rm));

		if (!rm)
			return;
		rm->recv_type = m->recv_type;
		rm->addr = m->addr;
		memcpy(rm->addr_raw, m->addr_raw, sizeof(rm->addr_raw));
		rm->addr_raw_len = m->addr_raw_len;
		rm->netfn = m->netfn;
		rm->cmd = m->cmd;
		rm->msgid = m->msgid;
		rm->data_len = m->data_len;
		memcpy(rm->data, m->data, m->data_len);
	}
	ho_save_cmdregs(h, off, c);
	/* past the bound: answered as the stock driver answers a request
	 * its interface gave up on, so that no caller waits for it */
	TAILQ_FOREACH (x, &c->xacts, olink) {
		struct ho_rec_msg *rm = ho_put(h, off, REC_MSG, sizeof(*rm));

		if (!rm)
			return;
		rm->recv_type = IPMI_RESPONSE_RECV_TYPE;
		rm->addr = x->addr;
		memcpy(rm->addr_raw, x->addr_raw, sizeof(rm->addr_raw));
		rm->addr_raw_len = x->addr_raw_len;
		rm->netfn = x->netfn | 1;
		rm->cmd = x->cmd;
		rm->msgid = x->msgid;
		rm->data_len = 1;
		rm->data[0] = IPMI_ERR_UNSPECIFIED;
	}
}

/* the leases in force, each class with the node that holds it */
static void ho_save_leases(struct daemon *d, struct handover *h, uint64_t *off)
{
	uint64_t now = now_ns();

	for (unsigned int i = 0; i < LEASE_NCLASSES; i++) {
		const struct lease *l = &d->leases.l[i];
		const struct node *n = l->holder;
		struct ho_rec_lease *r;

		if (!n || now >= l->until_ns)
			continue;
		r = ho_put(h, off, REC_LEASE, sizeof(*r));
		if (!r)
			return;
		snprintf(r->node, sizeof(r->node), "%s", n->conf.name);
		r->class_bit = 1u << i;
		r->until_ns = l->until_ns;
	}
}

void handover_save(struct daemon *d)
{
	struct handover *h = ho_of(d);
	unsigned int files = 0, left = 0;
	uint64_t off = 0;
	struct node *n;
	struct client *c;

	if (!h || !h->graceful)
		return;
	LIST_FOREACH (n, &d->nodes, link) {
		struct ho_rec_node *rn;

		if (!n->ho)
			continue;
		rn = ho_put(h, &off, REC_NODE, sizeof(*rn));
		if (rn) {
			snprintf(rn->name, sizeof(rn->name), "%s",
				 n->conf.name);
			memcpy(rn->chan_address, n->chan_address,
			       sizeof(rn->chan_address));
			memcpy(rn->chan_lun, n->chan_lun, sizeof(rn->chan_lun));
		}
		LIST_FOREACH (c, &n->clients, link) {
			ho_save_client(h, &off, c);
			files++;
			left += c->outstanding;
		}
	}
	ho_save_leases(d, h, &off);
	h->sh->next_client_id = d->next_client_id;
	/* a complete scan's media: the next process need not scan again */
	ho_pendtab_of(h->sh)->media_ok = d->media_ready && d->bs.scanned &&
					 !d->bs.scan_left && !d->bs.scan_busy;
	memcpy(ho_pendtab_of(h->sh)->media, d->media, sizeof(d->media));
	__atomic_store_n(&h->sh->blob_len, off, __ATOMIC_RELEASE);
	log_info("hand-over: state of %u open files saved (%llu bytes); %u "
		 "requests still in flight answered 0xff",
		 files, (unsigned long long)off, left);
}
