// SPDX-License-Identifier: GPL-2.0
/*
 * leasegate.c - leases in the daemon (leasegate.h, docs/leases.md).
 *
 * The table only compares deadlines with the time of each check; what has
 * to happen when a firmware lease ends (released, its node gone, or its
 * deadline passed with nobody asking) runs from a timer at the deadline:
 * the SDR cache and SEL mirror are dropped, so the next read of another
 * node waits for them to be read again from the BMC (the update may have
 * changed both), and the daemon's own requests held meanwhile (event
 * polling, the caches' fills) go.
 */
#include <errno.h>
#include <string.h>

#include <event2/event.h>

#include "core/core.h"
#include "core/leasegate.h"
#include "core/sdrcache.h"
#include "core/selmirror.h"
#include "core/xact.h"
#include "util/log.h"

#define CONF_RENEW_NS (60ull * 1000000000ull)

static const struct lease *fw_lease(const struct daemon *d)
{
	return &d->leases.l[__builtin_ctz(LEASE_FIRMWARE)];
}

/* The firmware lease ended: caches dropped, held requests go. */
static void fw_end(struct daemon *d, const char *how)
{
	const struct node *h = d->lease_fw;

	if (!h)
		return;
	d->lease_fw = NULL;
	d->lease_fw_ends++;
	if (d->lease_ev)
		evtimer_del(d->lease_ev);
	/* the holder polled the BMC back after its reset: the others need
	 * not wait out the rest of the stock 30 s (core/maint.h) */
	if (!d->bmc_silent)
		maint_reset_done(&d->maint);
	if (d->sdrc)
		sdrc_invalidate(d->sdrc);
	if (d->selm)
		selm_invalidate(d->selm);
	log_msg(LOG_NOTICE,
		"node %s: firmware lease ended (%s): the SDR cache and "
		"SEL mirror are read again before other nodes' reads are "
		"answered",
		h->conf.name, how);
	xact_kick(d);
}

static void fw_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	const struct lease *l = fw_lease(d);
	uint64_t now = now_ns();

	(void)fd;
	(void)what;
	if (l->holder == d->lease_fw && l->holder && now < l->until_ns) {
		struct timeval tv = { .tv_sec = 0, .tv_usec = 0 };
		uint64_t left = l->until_ns - now;

		tv.tv_sec = (time_t)(left / 1000000000u);
		tv.tv_usec = (suseconds_t)(left % 1000000000u / 1000u + 1);
		evtimer_add(d->lease_ev, &tv);
		return;
	}
	fw_end(d, "deadline");
}

/* The firmware lease as the table has it now: started, or ended. */
static void fw_sync(struct daemon *d, uint64_t now)
{
	const struct lease *l = fw_lease(d);
	const struct node *h =
		l->holder && now < l->until_ns ? l->holder : NULL;

	if (h == d->lease_fw)
		return;
	if (d->lease_fw)
		fw_end(d, h ? "taken by another" : "released");
	if (!h)
		return;
	d->lease_fw = h;
	d->lease_fw_starts++;
	log_msg(LOG_NOTICE,
		"node %s: firmware lease for %llu s: other nodes' reads are "
		"answered from the SDR cache and SEL mirror (stale), the rest "
		"refused with cc 0xc0 (node busy)",
		h->conf.name,
		(unsigned long long)((l->until_ns - now) / 1000000000u));
	if (!d->lease_ev)
		d->lease_ev = evtimer_new(d->base, fw_timer_cb, d);
	if (d->lease_ev)
		fw_timer_cb(-1, 0, d); /* arms it */
}

void leasegate_conf(struct daemon *d, uint64_t now)
{
	struct node *n;
	unsigned int gone;

	d->lease_conf_ns = now ? now : 1;
	LIST_FOREACH (n, &d->nodes, link) {
		gone = n->lease_conf & ~n->conf.leases;
		if (gone)
			lease_release(&d->leases, n, gone);
		n->lease_conf = n->conf.leases;
		if (!n->conf.leases || n->dying)
			continue;
		if (lease_take(&d->leases, n, n->conf.leases, LEASE_MAX_NS,
			       now) < 0)
			log_ratelimited(&n->rl_denied, LOG_WARNING,
					"node %s: a configured lease is held "
					"by another node (kcsmuxctl lease "
					"list): not taken",
					n->conf.name);
	}
}

enum lease_verdict leasegate_check(struct node *n,
				   const struct ipmi_request *rq, uint64_t now,
				   struct lease_why *why)
{
	struct daemon *d = n->d;
	const struct lease *l;
	unsigned int cls = 0;

	if (d->lease_conf_ns == 0 || now - d->lease_conf_ns > CONF_RENEW_NS)
		leasegate_conf(d, now);
	fw_sync(d, now);
	if (d->lease_fw == n)
		return LEASE_FW_HOLDER;
	l = lease_check(&d->leases, n, rq->netfn, rq->cmd, now, &cls);
	if (!l)
		return LEASE_GO;
	why->holder = l->holder;
	why->class_bit = cls;
	why->left_ns = l->until_ns - now;
	if (cls != LEASE_FIRMWARE)
		return LEASE_REFUSED;
	/* the watchdog is never starved: a host reset is worse than one
	 * short request among the update's */
	if (rq->addr.addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE &&
	    (rq->netfn & 0x3e) == 0x06 &&
	    (rq->cmd == 0x22 || rq->cmd == 0x24 || rq->cmd == 0x25))
		return LEASE_GO;
	return LEASE_FW_OTHER;
}

int leasegate_take(struct daemon *d, struct node *n, unsigned int mask,
		   uint64_t duration_ns, const struct node **holder)
{
	uint64_t now = now_ns();
	unsigned int i;
	int rv;

	if (d->lease_conf_ns == 0)
		leasegate_conf(d, now);
	rv = lease_take(&d->leases, n, mask, duration_ns, now);
	if (rv == -EBUSY && holder)
		for (i = 0; i < LEASE_NCLASSES; i++)
			if ((mask & 1u << i) && d->leases.l[i].holder != n &&
			    d->leases.l[i].holder &&
			    now < d->leases.l[i].until_ns)
				*holder = d->leases.l[i].holder;
	if (rv == 0)
		fw_sync(d, now);
	return rv;
}

unsigned int leasegate_release(struct daemon *d, struct node *n,
			       unsigned int mask)
{
	uint64_t now = now_ns();
	unsigned int k;

	/* past their deadline: gone already, not counted */
	for (unsigned int i = 0; i < LEASE_NCLASSES; i++)
		if (d->leases.l[i].holder == n &&
		    now >= d->leases.l[i].until_ns)
			lease_release(&d->leases, n, 1u << i);
	k = lease_release(&d->leases, n, mask);
	fw_sync(d, now);
	return k;
}

void leasegate_node_gone(struct daemon *d, struct node *n)
{
	lease_holder_gone(&d->leases, n);
	n->lease_conf = 0;
	fw_sync(d, now_ns());
}

void leasegate_fini(struct daemon *d)
{
	if (d->lease_ev)
		event_free(d->lease_ev);
	d->lease_ev = NULL;
	d->lease_fw = NULL;
	memset(&d->leases, 0, sizeof(d->leases));
}
