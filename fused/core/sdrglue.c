// SPDX-License-Identifier: GPL-2.0
/*
 * sdrglue.c - the SDR/FRU cache in the request path (sdrglue.h).
 *
 * One cache for the interface, made when a node with sdr_cache = yes
 * first asks. A request the cache answers is delivered at once as the
 * BMC's answer would be; one it parks waits here, with the client's
 * outstanding count held, until the cache's own requests (queued as the
 * daemon's internal transactions, ahead of every node, one at a time)
 * are answered, and is then asked again. Every client transaction the
 * BMC answers is shown to the cache (writes, clears and resets drop it),
 * and every Send Message that carried a bridged request (sdrglue_bridged).
 */
#include <errno.h>
#include <string.h>

#include "core/core.h"
#include "core/sdrglue.h"
#include "core/selmirror.h"
#include "core/xact.h"
#include "util/clock.h"
#include "util/log.h"

static void pump(struct daemon *d);

/* A SEL command of a node with sel_mirror (not off), to the BMC. */
static bool sel_mirrored(const struct xact *x)
{
	return !x->node->conf.no_sel_mirror &&
	       x->addr.addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE &&
	       selm_cmd_sel(x->netfn, x->cmd);
}

/* Answer x (not queued) with the CC_DATA the cache or mirror gave. */
static void answer(struct xact *x, uint8_t *resp, unsigned int len)
{
	resp[0] = (uint8_t)((x->netfn | 1) << 2 | (x->req[0] & 3));
	resp[1] = x->cmd;
	xact_answer(x, 0, resp, len + 2);
}

/* The SEL mirror's verdict on x; true if x was answered or parked. */
static bool try_sel(struct xact *x, uint64_t now)
{
	struct selm *m = x->d->selm;
	uint64_t misses = selm_stats(m)->misses;
	uint8_t resp[2 + SDRC_MAX_RESP];
	unsigned int len = 0;
	struct ipmi_request rq;
	enum sdrc_verdict v;

	xact_request(x, &rq);
	v = selm_request(m, x->owner, &rq, now, resp + 2, sizeof(resp) - 2,
			 &len);
	if (v == SDRC_FORWARD) {
		x->node->cnt.sel_misses += selm_stats(m)->misses - misses;
		return false;
	}
	if (v == SDRC_PARK) {
		TAILQ_INSERT_TAIL(&x->d->sdr_parked, x, qlink);
		return true;
	}
	x->node->cnt.sel_hits++;
	answer(x, resp, len);
	return true;
}

/* The cache's verdict on x; true if x was answered or parked. */
static bool try_cache(struct xact *x, uint64_t now)
{
	struct sdrc *cache = x->d->sdrc;
	uint64_t misses;
	uint8_t resp[2 + SDRC_MAX_RESP];
	unsigned int len = 0;
	struct ipmi_request rq;
	enum sdrc_verdict v;

	if (sel_mirrored(x) && x->d->selm)
		return try_sel(x, now);
	if (!cache)
		return false;
	misses = sdrc_stats(cache)->misses;
	xact_request(x, &rq);
	v = sdrc_request(cache, x->owner, &rq, now, resp + 2, sizeof(resp) - 2,
			 &len);
	if (v == SDRC_FORWARD) { /* a miss if it could have been a hit */
		x->node->cnt.sdr_misses += sdrc_stats(cache)->misses - misses;
		return false;
	}
	if (v == SDRC_PARK) {
		TAILQ_INSERT_TAIL(&x->d->sdr_parked, x, qlink);
		return true;
	}
	x->node->cnt.sdr_hits++;
	answer(x, resp, len);
	return true;
}

/* Ask again for the requests parked on the SEL mirror (SEL) or on the
 * cache (!SEL): that one moved on. Only those: a request waiting for the
 * cache's revalidation that is asked again while it is out wants another
 * (sdrc_request), so asking it on each of the mirror's answers would keep
 * it waiting until the mirror's fill ends (three cold `ipmitool sel
 * elist` had an SDR read wait past ipmitool's 15 s timeout). */
static void unpark(struct daemon *d, uint64_t now, bool sel)
{
	struct xact_list again = TAILQ_HEAD_INITIALIZER(again);
	struct cpu_mark mk;
	struct xact *x, *nx;

	for (x = TAILQ_FIRST(&d->sdr_parked); x; x = nx) {
		nx = TAILQ_NEXT(x, qlink);
		if (x->owner && sel_mirrored(x) != sel)
			continue;
		TAILQ_REMOVE(&d->sdr_parked, x, qlink);
		TAILQ_INSERT_TAIL(&again, x, qlink);
	}
	while ((x = TAILQ_FIRST(&again))) {
		TAILQ_REMOVE(&again, x, qlink);
		if (!x->owner) { /* closed meanwhile */
			xact_free(x);
			continue;
		}
		/* answering it is work for its node (cpumeter.h) */
		cpu_enter(d, x->node, &mk);
		if (!try_cache(x, now) && xact_enqueue(x) < 0)
			xact_answer(x, -EBUSY, NULL, 0);
		cpu_leave(d, &mk);
	}
}

/* Log where the cache went (filled, failed, off). */
static void log_state(const struct sdrc *cache, const char *before)
{
	const char *now = sdrc_state_name(cache);

	if (!strcmp(before, now))
		return;
	if (!strcmp(now, "valid"))
		log_info("SDR cache: %u records in memory",
			 sdrc_records(cache));
	else if (!strcmp(now, "failed"))
		log_warn("SDR cache: reading the repository failed; "
			 "requests go to the BMC, trying again in 30 s");
	else if (!strcmp(now, "off"))
		log_warn("SDR cache: the BMC's repository timestamps did not "
			 "move on a write: cache off");
}

static void internal_done(struct xact *x, int status, const uint8_t *resp,
			  unsigned int len)
{
	struct daemon *d = x->d;
	const char *before = sdrc_state_name(d->sdrc);
	uint64_t now = now_ms();

	xact_free(x);
	if (!status && len < 3)
		status = -EIO;
	sdrc_answer(d->sdrc, status, status ? NULL : resp + 2,
		    status ? 0 : len - 2, now);
	log_state(d->sdrc, before);
	unpark(d, now, false);
	pump(d);
}

/* Log where the SEL mirror went (filled, failed). */
static void log_sel_state(const struct selm *m, const char *before)
{
	const char *now = selm_state_name(m);

	if (!strcmp(before, now))
		return;
	if (!strcmp(now, "valid"))
		log_info("SEL mirror: %u entries in memory", selm_entries(m));
	else if (!strcmp(now, "failed"))
		log_warn("SEL mirror: reading the SEL failed; requests go "
			 "to the BMC, trying again in %u s",
			 SELM_FAILED_MS / 1000);
}

static void sel_internal_done(struct xact *x, int status, const uint8_t *resp,
			      unsigned int len)
{
	struct daemon *d = x->d;
	const char *before = selm_state_name(d->selm);
	uint64_t now = now_ms();

	xact_free(x);
	if (!status && len < 3)
		status = -EIO;
	selm_answer(d->selm, status, status ? NULL : resp + 2,
		    status ? 0 : len - 2, now);
	log_sel_state(d->selm, before);
	/* A node's transaction waiting at the interface goes before the
	 * mirror's next request (the daemon's own go ahead of every node):
	 * the fill alternates with the clients' other requests instead of
	 * holding them for all of its thousands of entries (a cold `sel
	 * elist` waited for the whole fill on its first SDR read, past
	 * ipmitool's 15 s timeout at 3,000 entries). Then the mirror's next
	 * request, queued while the parked readers are answered. */
	xact_kick(d);
	pump(d);
	unpark(d, now, true);
	pump(d);
}

/* The daemon's own transaction for R, answered to DONE (false: out of
 * memory, or not queued). */
static bool send_own(struct daemon *d, const struct sdrc_req *r,
		     void (*done)(struct xact *, int, const uint8_t *,
				  unsigned int))
{
	struct xact *x = xact_new(d, NULL);

	if (!x)
		return false;
	x->req[0] = (uint8_t)(r->netfn << 2);
	x->req[1] = r->cmd;
	memcpy(x->req + 2, r->data, r->len);
	x->req_len = (uint16_t)(r->len + 2);
	x->done = done;
	if (xact_enqueue(x) == 0)
		return true;
	xact_free(x);
	return false;
}

/* Queue what the cache and the mirror want from the BMC, if anything. */
static void pump(struct daemon *d)
{
	struct sdrc_req r;

	if (d->sdrc && sdrc_next_request(d->sdrc, now_ms(), &r) &&
	    !send_own(d, &r, internal_done)) {
		sdrc_answer(d->sdrc, -ENOMEM, NULL, 0, now_ms());
		unpark(d, now_ms(), false);
	}
	if (d->selm && selm_next_request(d->selm, now_ms(), &r) &&
	    !send_own(d, &r, sel_internal_done)) {
		selm_answer(d->selm, -ENOMEM, NULL, 0, now_ms());
		unpark(d, now_ms(), true);
	}
}

bool sdrglue_send(struct xact *x)
{
	struct daemon *d = x->d;
	bool taken;

	if (sel_mirrored(x)) {
		if (!d->selm)
			d->selm = selm_new(d->cfg.sdr_cache_revalidate_ms);
		if (!d->selm)
			return false;
		selm_set_revalidate_ms(d->selm, d->cfg.sdr_cache_revalidate_ms);
		taken = try_sel(x, now_ms());
		pump(d);
		return taken;
	}
	if (!x->node->conf.sdr_cache)
		return false;
	if (!d->sdrc)
		d->sdrc = sdrc_new(d->cfg.sdr_cache_revalidate_ms);
	if (!d->sdrc)
		return false;
	sdrc_set_revalidate_ms(d->sdrc, d->cfg.sdr_cache_revalidate_ms);
	taken = try_cache(x, now_ms());
	/* the cache's own requests (a revalidation this one asked for)
	 * go ahead of it */
	pump(d);
	return taken;
}

bool sdrglue_stale(struct xact *x)
{
	struct daemon *d = x->d;
	bool taken = false;

	if (sel_mirrored(x)) {
		if (!d->selm || strcmp(selm_state_name(d->selm), "valid"))
			return false;
		selm_set_revalidate_ms(d->selm, UINT32_MAX);
		taken = try_sel(x, now_ms());
		selm_set_revalidate_ms(d->selm, d->cfg.sdr_cache_revalidate_ms);
	} else if (x->node->conf.sdr_cache && d->sdrc &&
		   !strcmp(sdrc_state_name(d->sdrc), "valid")) {
		sdrc_set_revalidate_ms(d->sdrc, UINT32_MAX);
		taken = try_cache(x, now_ms());
		sdrc_set_revalidate_ms(d->sdrc, d->cfg.sdr_cache_revalidate_ms);
	}
	/* parked: it would wait for the BMC; the caller refuses it */
	if (taken && TAILQ_LAST(&d->sdr_parked, xact_list) == x) {
		TAILQ_REMOVE(&d->sdr_parked, x, qlink);
		taken = false;
	}
	return taken;
}

void sdrglue_bridged(struct daemon *d, uint8_t netfn, uint8_t cmd)
{
	static const uint8_t ok = 0;
	struct ipmi_request send_msg = {
		.addr = { .addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
			  .channel = IPMI_BMC_CHANNEL },
		.netfn = 0x06,
		.cmd = 0x34,
	};

	/* as the cache judges a Send Message it is shown, when what it
	 * carried could change what the cache holds: a read carried to
	 * another controller (OpenIPMI's bus scan and its sensors there)
	 * changes nothing */
	if (d->sdrc && sdrc_cmd_changes(netfn, cmd))
		sdrc_observe(d->sdrc, NULL, &send_msg, 0, &ok, 1, now_ms());
	if (d->selm && selm_cmd_changes(netfn, cmd))
		selm_invalidate(d->selm);
	if ((netfn & 0x3f) == 0x06 && (cmd == 0x02 || cmd == 0x03))
		bmc_setup_recheck(d);
}

void sdrglue_observe(const struct xact *x, int status, const uint8_t *resp,
		     unsigned int len)
{
	struct ipmi_request rq;

	/* ipmidev: the kernel bridged it; the BMC got a Send Message */
	if (x->addr.addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE) {
		sdrglue_bridged(x->d, x->netfn, x->cmd);
		return;
	}
	if (!x->d->sdrc && !x->d->selm)
		return;
	if (!status && len < 3)
		status = -EIO;
	xact_request(x, &rq);
	if (x->d->sdrc)
		sdrc_observe(x->d->sdrc, x->owner, &rq, status,
			     status ? NULL : resp + 2, status ? 0 : len - 2,
			     now_ms());
	if (x->d->selm) {
		const char *before = selm_state_name(x->d->selm);

		selm_observe(x->d->selm, x->owner, &rq, status,
			     status ? NULL : resp + 2, status ? 0 : len - 2,
			     now_ms());
		log_sel_state(x->d->selm, before);
		/* a sync it asked for runs ahead of what comes next */
		pump(x->d);
	}
}

void sdrglue_fini(struct daemon *d)
{
	struct xact *x;

	while ((x = TAILQ_FIRST(&d->sdr_parked))) {
		TAILQ_REMOVE(&d->sdr_parked, x, qlink);
		xact_free(x);
	}
	sdrc_free(d->sdrc);
	d->sdrc = NULL;
	selm_free(d->selm);
	d->selm = NULL;
}

void sdrglue_owner_gone(struct daemon *d, const void *owner)
{
	if (d->sdrc)
		sdrc_owner_gone(d->sdrc, owner);
	if (d->selm)
		selm_owner_gone(d->selm, owner);
}
