// SPDX-License-Identifier: GPL-2.0
/*
 * selmirror.c - the System Event Log answered from a mirror (selmirror.h
 * for the interface, docs/selmirror.md): its life, Get SEL Entry from
 * memory, what it learns from requests that reached the BMC, its figures.
 * The fill, the sync and the checks are selmirror_fill.c's; the entries
 * themselves selmirror_store.c's.
 *
 * SEL entries do not change once logged: the BMC appends, deletes or
 * clears. So the mirror is filled once (SEL Info, every entry by
 * following next-record ids with reservation 0, which whole reads need
 * not carry, SEL Info again: unmoved), and afterwards only SEL Info is
 * watched: its addition time or count moving fetches the entries after
 * the last one, its erase time moving (or fewer entries) refills.
 *
 * An answer from memory can be stale only at the log's end (the last
 * entry's next id, an id not there): those, and a walk's start (id 0),
 * wait for a SEL Info when the last is older than revalidate_ms. Every
 * other entry is answered at once, byte for byte as the BMC answered it,
 * also while a fill or sync runs once the walk has passed it: a reader
 * follows the fill instead of waiting for all of it.
 */
#include <stdlib.h>
#include <string.h>

#include "core/selmirror.h"
#include "core/selmirror_priv.h"
#include "util/le.h"

#define CC_RES_CANCELLED 0xc5
#define CC_NOT_PRESENT	 0xcb

void selm_set_revalidate_ms(struct selm *m, uint32_t ms)
{
	m->reval_ms = ms;
}

bool selm_cmd_sel(uint8_t netfn, uint8_t cmd)
{
	return (netfn & 0x3e) == SEL_NETFN && cmd >= SEL_INFO &&
	       cmd <= SEL_CLEAR;
}

bool selm_cmd_changes(uint8_t netfn, uint8_t cmd)
{
	netfn &= 0x3f;
	if (netfn == 0x06)
		return cmd == 0x02 || cmd == 0x03 || cmd == 0x34;
	return netfn == SEL_NETFN && cmd >= SEL_ADD && cmd <= SEL_CLEAR;
}

void selm_owner_gone(struct selm *m, const void *owner)
{
	resv_gone(&m->own, owner);
}

/* ---- answering ---- */

/* Entry ID (0: the first, 0xffff: the last), or -1; a walk asks for the
 * one after the last answered, so that is looked at first. */
static int find(struct selm *m, uint16_t id)
{
	if (m->n == 0)
		return -1;
	if (id == 0)
		return 0;
	if (id == 0xffff)
		return (int)m->n - 1;
	if (m->hint + 1 < m->n && m->e[m->hint + 1].id == id)
		return (int)m->hint + 1;
	/* the one a fill reads next: readers following it ask for it on
	 * every answer, so no search of thousands */
	if (m->e[m->n - 1].next == id)
		return -1;
	for (unsigned int i = 0; i < m->n; i++)
		if (m->e[i].id == id)
			return (int)i;
	return -1;
}

/* Would an answer about ID be stale if entries were added or deleted
 * since the last check? (the end of the log, a missing id, a start) */
static bool at_the_end(struct selm *m, uint16_t id, int i)
{
	return id == 0 || id == 0xffff || i < 0 || m->e[i].next == 0xffff;
}

/* The mirror walks the SEL (a fill, or fetching new entries). */
static bool walking(const struct selm *m)
{
	return m->st == S_FILLING || (m->job != SJ_NONE && m->job != SJ_REVAL);
}

static enum sdrc_verdict park(struct selm *m)
{
	m->stats.parks++;
	return SDRC_PARK;
}

enum sdrc_verdict selm_request(struct selm *m, const void *owner,
			       const struct ipmi_request *rq, uint64_t now_ms,
			       uint8_t *resp, unsigned int resp_size,
			       unsigned int *resp_len)
{
	const uint8_t *d = rq->data;
	unsigned int off, cnt;
	uint8_t ops;
	uint16_t id;
	int i;

	if ((rq->netfn & 0x3f) != SEL_NETFN || rq->cmd != SEL_GET ||
	    rq->addr.lun != 0)
		return SDRC_FORWARD;
	/* what the BMC refuses (length, offset past the entry) it answers
	 * itself, in its own words */
	if (rq->len != 6 || d[4] >= SELM_ENTRY_LEN || resp_size < SEL_GET_LEN)
		goto miss;
	switch (m->st) {
	case S_FAILED:
		if (now_ms - m->failed_ms < SELM_FAILED_MS)
			goto miss;
		/* fall through */
	case S_EMPTY:
		m->attempts = 0;
		selm_start_fill(m);
		return park(m);
	case S_FILLING:
	case S_VALID:
		break;
	}
	if (m->st == S_VALID && m->want_sync && m->job == SJ_NONE)
		selm_start_sync(m, NULL);
	id = ld16(d + 2);
	i = find(m, id);
	ops = m->st == S_VALID ? m->info[INFO_OPS] : m->start[INFO_OPS];
	if (walking(m)) {
		/* an entry the walk has passed is answered at once: a reader
		 * follows the fill, never waits for the whole of it */
		if (i < 0 || id == 0xffff || m->e[i].next == 0xffff)
			return park(m);
	} else if (at_the_end(m, id, i) &&
		   now_ms - m->validated_ms >= m->reval_ms) {
		if (m->job == SJ_NONE)
			m->job = SJ_REVAL;
		return park(m);
	}
	if ((ops & 0x02) && !resv_allows(&m->own, owner, 0, ld16(d))) {
		resp[0] = CC_RES_CANCELLED;
		*resp_len = 1;
		m->stats.hits++;
		return SDRC_ANSWERED;
	}
	if (i < 0) {
		resp[0] = CC_NOT_PRESENT;
		*resp_len = 1;
		m->stats.hits++;
		return SDRC_ANSWERED;
	}
	off = d[4];
	cnt = d[5];
	if (off + cnt > SELM_ENTRY_LEN)
		cnt = SELM_ENTRY_LEN - off;
	resp[0] = 0;
	st16(resp + 1, m->e[i].next);
	memcpy(resp + 3, m->e[i].data + off, cnt);
	*resp_len = 3 + cnt;
	m->hint = (unsigned int)i;
	m->stats.hits++;
	return SDRC_ANSWERED;
miss:
	m->stats.misses++;
	return SDRC_FORWARD;
}

/* ---- what reached the BMC ---- */

/* A Delete SEL Entry the BMC did (its answer names the entry): out of
 * the mirror, its predecessor pointing past it. Not ours: refill. */
static void deleted(struct selm *m, uint16_t id)
{
	int i = id == 0 || id == 0xffff ? -1 : find(m, id);

	if (m->st != S_VALID)
		return;
	if (i < 0) {
		selm_invalidate(m);
		return;
	}
	if (i > 0)
		m->e[i - 1].next = m->e[i].next;
	memmove(&m->e[i], &m->e[i + 1],
		(m->n - (unsigned int)i - 1) * sizeof(m->e[0]));
	m->n--;
	m->hint = 0;
	/* the BMC's SEL Info: one entry less, maybe a new erase time */
	st16(m->info + INFO_COUNT, (uint16_t)m->n);
	m->adopt_erase = true;
	m->validated_ms = 0; /* checked before the end is answered */
}

void selm_observe(struct selm *m, const void *owner,
		  const struct ipmi_request *rq, int status,
		  const uint8_t *resp, unsigned int resp_len, uint64_t now_ms)
{
	bool ok = status == 0 && resp_len >= 1 && resp[0] == 0;

	if ((rq->netfn & 0x3f) == 0x06) { /* a reset, a Send Message */
		if (selm_cmd_changes(rq->netfn, rq->cmd) && (ok || status))
			selm_invalidate(m);
		return;
	}
	if ((rq->netfn & 0x3f) != SEL_NETFN || rq->addr.lun != 0)
		return;
	/* the BMC refused it: nothing changed */
	if (status == 0 && !ok)
		return;
	switch (rq->cmd) {
	case SEL_INFO:
		if (ok)
			selm_judge_info(m, resp, resp_len, now_ms);
		break;
	case SEL_RESERVE:
		if (ok && resp_len >= 3)
			resv_set(&m->own, owner, 0, ld16(resp + 1));
		break;
	case SEL_ADD:
	case SEL_PADD:
		if (m->st == S_VALID)
			m->want_sync = true;
		break;
	case SEL_DELETE:
		if (ok && resp_len >= 3)
			deleted(m, ld16(resp + 1));
		else
			selm_invalidate(m);
		break;
	case SEL_CLEAR:
		selm_invalidate(m);
		break;
	default:
		break;
	}
}

/* ---- figures ---- */

const struct selm_stats *selm_stats(const struct selm *m)
{
	return &m->stats;
}

const char *selm_state_name(const struct selm *m)
{
	static const char *const names[] = { "empty", "filling", "valid",
					     "failed" };

	return names[m->st];
}

unsigned int selm_entries(const struct selm *m)
{
	return m->n;
}
