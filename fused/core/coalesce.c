// SPDX-License-Identifier: GPL-2.0
/*
 * coalesce.c - identical sensor reads of one node's clients share one
 * transaction (coalesce.h): who may lead and whom a request follows. The
 * leaders in flight are on d->coal, each with its followers; xact.c puts
 * them there when queued and answers or drops the followers.
 */
#include <stdlib.h>
#include <string.h>

#include "core/coalesce.h"
#include "core/core.h"
#include "core/xact.h"

#define NETFN_SENSOR_EVENT     0x04
#define CMD_GET_SENSOR_READING 0x2d

bool coalesce_candidate(const struct xact *x)
{
	/* netfn << 2 | LUN, cmd, the sensor number */
	return x->node && !x->internal && x->node->conf.coalesce &&
	       x->req_len == 3 && x->req[0] >> 2 == NETFN_SENSOR_EVENT &&
	       x->req[1] == CMD_GET_SENSOR_READING;
}

static bool same_target(const struct ipmi_address *a,
			const struct ipmi_address *b)
{
	return a->addr_type == b->addr_type && a->channel == b->channel &&
	       a->slave_addr == b->slave_addr && a->lun == b->lun;
}

/* In flight for another client of x's node, the same request to the same
 * target. */
static struct xact *leader_for(const struct xact *x)
{
	struct xact *l;

	TAILQ_FOREACH (l, &x->d->coal, clink)
		if (l->node == x->node && l->owner != x->owner &&
		    l->req_len == x->req_len &&
		    memcmp(l->req, x->req, x->req_len) == 0 &&
		    same_target(&l->addr, &x->addr))
			return l;
	return NULL;
}

/* Only a read of the BMC itself is kept (its sensor numbers). */
static bool system_interface(const struct xact *x)
{
	return x->addr.addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
}

/* Another client's answer to x's read, at most the node's window old. */
static const struct coalesce_recent *recent_for(const struct xact *x)
{
	const struct node *n = x->node;
	const struct coalesce_recent *e = &n->recent[x->req[2]];
	uint64_t now;

	if (!n->conf.coalesce_window_ms || !system_interface(x) || !e->t_ms ||
	    e->owner_id == x->owner_id || e->lun != (x->req[0] & 3))
		return NULL;
	now = now_ms();
	return now - e->t_ms <= n->conf.coalesce_window_ms ? e : NULL;
}

void coalesce_remember(const struct xact *x, int status, const uint8_t *resp,
		       unsigned int len)
{
	struct coalesce_recent *e;

	if (!x->leading || !x->node->conf.coalesce_window_ms ||
	    !system_interface(x) || status != 0 || len < 3 || resp[2] != 0 ||
	    len > COALESCE_RESP)
		return;
	e = &x->node->recent[x->req[2]];
	e->t_ms = now_ms();
	e->owner_id = x->owner_id;
	e->lun = x->req[0] & 3;
	e->len = (uint8_t)len;
	memcpy(e->resp, resp, len);
}

bool coalesce_follow(struct xact *x)
{
	const struct coalesce_recent *e;
	struct xact *l;

	x->may_lead = coalesce_candidate(x);
	if (!x->may_lead)
		return false;
	if ((e = recent_for(x)) != NULL) {
		x->may_lead = false;
		x->node->cnt.coalesced++;
		x->node->cnt.coalesced_recent++;
		/* xact_answer()'s two steps: xact.c calls into this file
		 * (coalesce_remember), so this file does not call back */
		if (x->dispatched)
			x->dispatched(x);
		x->done(x, 0, e->resp, e->len);
		return true;
	}
	if ((l = leader_for(x)) == NULL)
		return false;
	x->may_lead = false;
	x->leader = l;
	x->state = XACT_FOLLOWING;
	TAILQ_INSERT_TAIL(&l->followers, x, clink);
	x->node->cnt.coalesced++;
	if (x->dispatched) /* not in the node's queue: its owner's count */
		x->dispatched(x);
	return true;
}
