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

bool coalesce_follow(struct xact *x)
{
	struct xact *l;

	x->may_lead = coalesce_candidate(x);
	if (!x->may_lead || (l = leader_for(x)) == NULL)
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
