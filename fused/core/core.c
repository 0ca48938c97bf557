// SPDX-License-Identifier: GPL-2.0
/*
 * core.c - the core's wiring: its part of the daemon set up and torn down,
 * and what the backend reports (core_backend_cbs) sent where it belongs:
 * completions to the transactions (xact.c), SMS_ATN to the bridge
 * (bridge.c), a hosed interface to the BMC setup (bmcsetup.c), events up
 * to the front end (d->up).
 */
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "backend/backend.h"
#include "core/core.h"
#include "core/health.h"
#include "core/leasegate.h"
#include "core/sdrglue.h"
#include "core/xact.h"
#include "util/clock.h"
#include "util/log.h"

void core_init(struct daemon *d, struct event_base *base)
{
	d->base = base;
	LIST_INIT(&d->nodes);
	TAILQ_INIT(&d->running);
	TAILQ_INIT(&d->internal);
	TAILQ_INIT(&d->coal);
	TAILQ_INIT(&d->sdr_parked);
	sched_init(&d->sched, 0);
	bridge_init(d);
}

/* What was still queued or at the backend when the daemon stopped: no
 * one waits for it any more (the nodes and their files are gone). */
static void free_xacts(struct xact_list *l)
{
	struct xact *x;

	while ((x = TAILQ_FIRST(l))) {
		TAILQ_REMOVE(l, x, qlink);
		xact_free(x);
	}
}

void core_fini(struct daemon *d)
{
	free_xacts(&d->running);
	free_xacts(&d->internal);
	if (d->retry_ev)
		event_free(d->retry_ev);
	d->retry_ev = NULL;
	bmc_setup_fini(d);
	sdrglue_fini(d);
	bridge_fini(d);
	leasegate_fini(d);
}

/* The backend's reports (backend_cbs), with the daemon as their arg. */
static void be_completion(void *arg, uint64_t cookie, int status,
			  const uint8_t *resp, unsigned int len,
			  const struct kcsraw_cost *cost)
{
	struct daemon *d = arg;
	uint8_t was[11];
	bool seen = d->bmc_id_len >= sizeof(was);

	if (d->bmc_silent && status == 0 && len >= 3) {
		d->bmc_silent = false;
		health_bmc_changed(d);
		log_warn("the BMC answers again, after %.1f s without an "
			 "answer",
			 (double)(now_ns() - d->bmc_silent_since_ns) / 1e9);
	}
	memcpy(was, d->bmc_id, sizeof(was));
	xact_complete(arg, cookie, status, resp, len, cost);
	/* the BMC's identity, as xact_complete learnt it from its own Get
	 * Device ID answer: a different one rescans the channels */
	if (seen)
		bmc_setup_identity(d, was, d->bmc_id);
}

static void be_hosed(void *arg)
{
	struct daemon *d = arg;

	if (!d->bmc_silent) {
		d->bmc_silent = true;
		d->bmc_silent_since_ns = now_ns();
		health_bmc_changed(d);
		d->bmc_silences++;
		log_warn("the BMC stopped answering: the KCS interface is "
			 "hosed (requests fail with cc 0xff until it answers "
			 "again)");
	}
	bmc_setup_recheck(arg); /* as stock after a hosed interface */
}

static void be_attention(void *arg)
{
	bridge_attention(arg);
}

static void be_event(void *arg, const struct ipmb_user_msg *m)
{
	struct daemon *d = arg;

	d->up->event(d, m);
}

static void be_room(void *arg)
{
	xact_kick(arg);
}

/* An incoming command the driver underneath received (SMI mode). */
static bool be_command(void *arg, const struct ipmb_user_msg *m)
{
	struct daemon *d = arg;

	return d->up->command(d, m, m->netfn, m->cmd, m->addr.channel);
}

const struct backend_cbs core_backend_cbs = {
	.completion = be_completion,
	.hosed = be_hosed,
	.attention = be_attention,
	.event = be_event,
	.room = be_room,
	.command = be_command,
};

static int node_order(const void *a, const void *b)
{
	const struct node *x = *(struct node *const *)a;
	const struct node *y = *(struct node *const *)b;

	if (x->conf.line != y->conf.line)
		return x->conf.line < y->conf.line ? -1 : 1;
	return strcmp(x->conf.name, y->conf.name);
}

void core_node_init(struct daemon *d, struct node *n,
		    const struct kcsmux_node_conf *conf)
{
	n->d = d;
	n->conf = *conf;
	memcpy(n->chan_address, d->chan_address, sizeof(n->chan_address));
	memcpy(n->chan_lun, d->chan_lun, sizeof(n->chan_lun));
	LIST_INIT(&n->clients);
	nodestats_init(&n->st, now_ns(), 0);
	adapt_init(&n->adapt);
}

void core_node_attach(struct node *n)
{
	sched_flow_attach(&n->d->sched, &n->flow, &n->conf.pol, now_ns());
	LIST_INSERT_HEAD(&n->d->nodes, n, link);
}

struct node **core_nodes(struct daemon *d, size_t *count)
{
	struct node **v, *n;
	size_t i = 0;

	*count = 0;
	LIST_FOREACH (n, &d->nodes, link)
		if (!n->dying)
			i++;
	if (i == 0 || (v = calloc(i, sizeof(*v))) == NULL)
		return NULL;
	i = 0;
	LIST_FOREACH (n, &d->nodes, link)
		if (!n->dying)
			v[i++] = n;
	qsort(v, i, sizeof(*v), node_order);
	*count = i;
	return v;
}
