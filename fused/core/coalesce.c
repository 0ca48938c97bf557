// SPDX-License-Identifier: GPL-2.0
/*
 * coalesce.c - identical sensor reads of one node's clients share one
 * transaction (coalesce.h): the leaders in flight on d->coal, each with
 * its followers.
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

bool coalesce_follow(struct xact *x)
{
	struct xact *l;

	if (!coalesce_candidate(x) || (l = leader_for(x)) == NULL)
		return false;
	x->leader = l;
	x->state = XACT_FOLLOWING;
	TAILQ_INSERT_TAIL(&l->followers, x, clink);
	x->node->cnt.coalesced++;
	if (x->dispatched) /* not in the node's queue: its owner's count */
		x->dispatched(x);
	return true;
}

void coalesce_lead(struct xact *x)
{
	if (x->leading || !coalesce_candidate(x))
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

void coalesce_complete(struct xact *x, int status, const uint8_t *resp,
		       unsigned int len)
{
	struct xact *f;

	unlead(x);
	while ((f = TAILQ_FIRST(&x->followers))) {
		TAILQ_REMOVE(&x->followers, f, clink);
		f->leader = NULL;
		f->done(f, status, resp, len);
	}
}

bool coalesce_cancel(struct xact *x)
{
	struct xact *l = x->leader;

	if (x->state == XACT_FOLLOWING) {
		TAILQ_REMOVE(&l->followers, x, clink);
		free(x);
		/* a queued leader kept only for its followers goes with the
		 * last of them */
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
