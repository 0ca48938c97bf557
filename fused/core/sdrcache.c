// SPDX-License-Identifier: GPL-2.0
/*
 * sdrcache.c - the SDR repository and FRU inventory answered from memory
 * (sdrcache.h for the interface, docs/sdrcache.md): the cache's life, its
 * owners' reservations, what an invalidation drops, its figures. It
 * answers in sdrcache_answer.c, fills in sdrcache_fill.c and learns from
 * what reached the BMC in sdrcache_observe.c; this comment is the design.
 *
 * Main repository: filled on the first request a caching node makes
 * (Get SDR Repository Info, Reserve, then every record by following the
 * next-record ids, then Get SDR Repository Info again: the timestamps
 * must not have moved meanwhile). Clients wait (PARK) while it fills, so
 * none sees half of it. Valid until a write, clear or reset from any node
 * is seen, or a revalidation (Get SDR Repository Info, at most every
 * revalidate_ms and after each client's Reserve) finds another answer
 * (addition or erase timestamps, or record count within their second).
 * A write that did not move the timestamps means they cannot be trusted:
 * the cache turns itself off for good.
 *
 * Reservations: a client's Reserve SDR Repository still goes to the BMC
 * (its id is then the client's own, and a write carrying it works as on
 * stock); Get SDR answered here checks the id against that client's last
 * Reserve only, so clients cannot cancel each other. A repository change
 * cancels every client's reservation (IPMI 2.0, 33.11).
 *
 * What the BMC answers for a read: found by reading, not assumed. Record
 * 0 is the first, 0xffff the last; an unknown id is cc 0xcb, an offset at
 * or past the record's end cc 0xc9, a count past the end is cut to it
 * (ipmi_sim, and IPMI 2.0 33.12). A read longer than any the BMC was seen
 * to answer is answered cc 0xca only when the BMC answered 0xca to one as
 * long or shorter, else forwarded.
 *
 * Get Device SDR Info (04:20, LUN 0) is answered per request form (no
 * data, or one data byte: IPMI 2.0 35.2's "SDR count" / "sensor count"
 * bit, which ipmi_sim ignores and another BMC may not) with the whole
 * answer the BMC gave that form since the device copy was (re)validated:
 * the fill's and each revalidation's own request teach the no-data form,
 * a client's forwarded request the form it used. They go with the copy.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sdrcache.h"
#include "core/sdrcache_priv.h"

struct sdrc *sdrc_new(uint32_t revalidate_ms)
{
	struct sdrc *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->reval_ms = revalidate_ms;
	c->rp[1].dev = true;
	c->fru_cur = -1;
	return c;
}

void sdrc_drop_records(struct repo *p)
{
	for (unsigned int i = 0; i < p->nrec; i++)
		free(p->recs[i].data);
	free(p->recs);
	p->recs = NULL;
	p->nrec = 0;
	for (unsigned int i = 0; i < DEV_FORMS; i++) {
		free(p->form[i]);
		p->form[i] = NULL;
		p->form_len[i] = 0;
	}
}

/* The BMC answered form F with RESP: keep it while the copy is valid. */
void sdrc_form_store(struct repo *p, int f, const uint8_t *resp,
		     unsigned int len)
{
	uint8_t *m;

	if (f < 0 || len < 1 || len > SDRC_MAX_RESP || !(m = malloc(len)))
		return;
	memcpy(m, resp, len);
	free(p->form[f]);
	p->form[f] = m;
	p->form_len[f] = (uint16_t)len;
}

void sdrc_drop_fru(struct sdrc *c)
{
	for (unsigned int i = 0; i < 256; i++) {
		free(c->fru[i].data);
		memset(&c->fru[i], 0, sizeof(c->fru[i]));
	}
	if (c->busy && sdrc_fru_job(c->job))
		c->gen++; /* its answer goes nowhere */
	c->fru_cur = -1;
}

void sdrc_free(struct sdrc *c)
{
	if (!c)
		return;
	sdrc_drop_records(&c->rp[0]);
	sdrc_drop_records(&c->rp[1]);
	sdrc_drop_fru(c);
	resv_free(&c->own);
	free(c);
}

void sdrc_set_revalidate_ms(struct sdrc *c, uint32_t ms)
{
	c->reval_ms = ms;
}

/* ---- reservations (resv.c) ---- */

void sdrc_owner_gone(struct sdrc *c, const void *owner)
{
	resv_gone(&c->own, owner);
}

/* ---- invalidation ---- */

/* The repository changed (or may have): records and every client's
 * reservation go; an internal request out is answered into nothing. */
void sdrc_drop_sdr(struct sdrc *c, struct repo *p)
{
	sdrc_drop_records(p);
	resv_cancel_all(&c->own, p->dev);
	if (c->busy && !sdrc_fru_job(c->job) && c->jr == p->dev)
		c->gen++;
	if (p->st != M_OFF)
		p->st = M_EMPTY;
	p->want_reval = false;
}

void sdrc_invalidate(struct sdrc *c)
{
	c->stats.invalidations++;
	sdrc_drop_sdr(c, &c->rp[0]);
	sdrc_drop_sdr(c, &c->rp[1]);
	sdrc_drop_fru(c);
}

/* ---- figures ---- */

const struct sdrc_stats *sdrc_stats(const struct sdrc *c)
{
	return &c->stats;
}

/* enum mstate's */
static const char *const mstate_names[] = { "empty", "filling", "valid",
					    "failed", "off" };

const char *sdrc_state_name(const struct sdrc *c)
{
	return mstate_names[c->rp[0].st];
}

unsigned int sdrc_records(const struct sdrc *c)
{
	return c->rp[0].nrec;
}

const char *sdrc_device_state_name(const struct sdrc *c)
{
	return mstate_names[c->rp[1].st];
}

unsigned int sdrc_device_records(const struct sdrc *c)
{
	return c->rp[1].nrec;
}
