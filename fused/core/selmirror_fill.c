// SPDX-License-Identifier: GPL-2.0
/*
 * selmirror_fill.c - the SEL mirror's own requests (selmirror.c has the
 * design): the fill (SEL Info, every entry from the first by its
 * next-record id, SEL Info again), the sync (SEL Info, the last entry
 * again for its new next id, the new entries, SEL Info again), and the
 * checks (SEL Info). One request out at a time.
 *
 * What the BMC answers is taken only whole: a Get SEL Entry of 3 + 16
 * bytes whose entry carries the id asked for (or, for id 0, any), a SEL
 * Info of 15. Anything else fails the walk, which never holds more than
 * SELM_MAX_ENTRIES entries whatever the next ids say (a loop of them
 * ends there): the mirror is then "failed" and requests go to the BMC
 * for SELM_FAILED_MS. A walk that saw the SEL move (SEL Info at its end
 * differs from its start) starts again, at most SEL_MAX_ATTEMPTS times.
 */
#include <stdlib.h>
#include <string.h>

#include "core/selmirror.h"
#include "core/selmirror_priv.h"
#include "util/le.h"

static bool same(const uint8_t *a, const uint8_t *b, unsigned int at,
		 unsigned int len)
{
	return memcmp(a + at, b + at, len) == 0;
}

void selm_start_fill(struct selm *m)
{
	if (m->busy)
		m->gen++; /* its answer goes nowhere */
	free(m->e);
	m->e = NULL;
	m->n = m->cap = m->hint = 0;
	m->st = S_FILLING;
	m->full = true;
	m->job = SJ_INFO;
	m->walked = 0;
	m->want_sync = m->adopt_erase = false;
}

void selm_start_sync(struct selm *m, const uint8_t *info)
{
	if (m->n == 0) {
		m->attempts = 0;
		selm_start_fill(m);
		return;
	}
	m->full = false;
	m->walked = 0;
	m->want_sync = false;
	if (!info) {
		m->job = SJ_INFO;
		return;
	}
	memcpy(m->start, info, SEL_INFO_LEN);
	m->cur = m->e[m->n - 1].id;
	m->job = SJ_GET;
}

/* The walk cannot go on: requests go to the BMC for a while. */
static void failed(struct selm *m, uint64_t now_ms)
{
	free(m->e);
	m->e = NULL;
	m->n = m->cap = m->hint = 0;
	resv_cancel_all(&m->own, 0);
	m->st = S_FAILED;
	m->failed_ms = now_ms;
	m->job = SJ_NONE;
}

void selm_judge_info(struct selm *m, const uint8_t *info, unsigned int len,
		     uint64_t now_ms)
{
	uint16_t count;

	if (m->st != S_VALID || m->job != SJ_NONE || len < SEL_INFO_LEN ||
	    info[0] != 0)
		return;
	count = ld16(info + INFO_COUNT);
	if (m->adopt_erase && count == m->n &&
	    same(info, m->info, INFO_ADD, 4)) {
		m->adopt_erase = false;
	} else if (!same(info, m->info, INFO_ERASE, 4) || count < m->n) {
		selm_invalidate(m); /* erased or deleted: fill again */
		return;
	} else if (!same(info, m->info, INFO_ADD, 4) || count != m->n) {
		selm_start_sync(m, info);
		return;
	}
	memcpy(m->info, info, SEL_INFO_LEN);
	m->validated_ms = now_ms;
}

bool selm_next_request(struct selm *m, uint64_t now_ms, struct sdrc_req *r)
{
	(void)now_ms;
	if (m->busy || m->job == SJ_NONE)
		return false;
	memset(r, 0, sizeof(*r));
	r->netfn = SEL_NETFN;
	if (m->job == SJ_GET) {
		r->cmd = SEL_GET;
		st16(r->data + 2, m->cur); /* reservation 0: whole reads */
		r->data[5] = 0xff;
		r->len = 6;
	} else {
		r->cmd = SEL_INFO;
	}
	m->busy = true;
	m->out_gen = m->gen;
	m->stats.internal++;
	return true;
}

/* SEL Info at the walk's start. */
static void got_start(struct selm *m, const uint8_t *info, uint64_t now_ms)
{
	uint16_t count = ld16(info + INFO_COUNT);

	if (!m->full) {
		if (!same(info, m->info, INFO_ERASE, 4) || count < m->n) {
			selm_invalidate(m);
		} else if (same(info, m->info, INFO_ADD, 4) && count == m->n) {
			memcpy(m->info, info, SEL_INFO_LEN); /* nothing new */
			m->validated_ms = now_ms;
			m->job = SJ_NONE;
		} else {
			selm_start_sync(m, info);
		}
		return;
	}
	memcpy(m->start, info, SEL_INFO_LEN);
	if (count > SELM_MAX_ENTRIES) {
		failed(m, now_ms);
		return;
	}
	m->cur = 0;
	m->job = count ? SJ_GET : SJ_CHECK;
}

/* A Get SEL Entry of the walk: true if it goes on. */
static bool got_entry(struct selm *m, const uint8_t *resp, unsigned int len)
{
	const uint8_t *rec = resp + 3;
	uint16_t next;

	if (len != SEL_GET_LEN || resp[0] != 0 ||
	    (m->cur != 0 && ld16(rec) != m->cur))
		return false;
	m->stats.fetched++;
	next = ld16(resp + 1);
	if (!m->full && m->walked++ == 0) {
		/* the last entry again: the same, now with a next id */
		struct sel_entry *last = &m->e[m->n - 1];

		if (memcmp(last->data, rec, SELM_ENTRY_LEN) != 0)
			return false;
		last->next = next;
	} else if (!selm_append(m, rec, next)) {
		return false;
	}
	if (next == 0xffff) {
		m->job = SJ_CHECK;
	} else {
		m->cur = next;
		m->job = SJ_GET;
	}
	return true;
}

/* SEL Info at the walk's end: unmoved, and as many entries as it says. */
static void got_check(struct selm *m, const uint8_t *info, uint64_t now_ms)
{
	if (same(info, m->start, INFO_COUNT, 2) &&
	    same(info, m->start, INFO_ADD, 8) &&
	    ld16(info + INFO_COUNT) == m->n) {
		memcpy(m->info, info, SEL_INFO_LEN);
		m->validated_ms = now_ms;
		if (m->full)
			m->stats.fills++;
		else
			m->stats.syncs++;
		m->st = S_VALID;
		m->job = SJ_NONE;
		m->attempts = 0;
		return;
	}
	if (++m->attempts >= SEL_MAX_ATTEMPTS) {
		failed(m, now_ms);
		return;
	}
	if (m->full || !same(info, m->start, INFO_ERASE, 4))
		selm_start_fill(m);
	else
		selm_start_sync(m, info);
}

void selm_answer(struct selm *m, int status, const uint8_t *resp,
		 unsigned int len, uint64_t now_ms)
{
	enum sjob job = m->job;
	bool info_ok = status == 0 && len >= SEL_INFO_LEN && resp[0] == 0;

	m->busy = false;
	if (m->out_gen != m->gen)
		return; /* dropped meanwhile */
	switch (job) {
	case SJ_INFO:
		if (!info_ok)
			break;
		got_start(m, resp, now_ms);
		return;
	case SJ_GET:
		/* an empty SEL: its first entry is not there */
		if (status == 0 && m->full && m->cur == 0 && len >= 1 &&
		    resp[0] == 0xcb) {
			m->job = SJ_CHECK;
			return;
		}
		if (status == 0 && got_entry(m, resp, len))
			return;
		/* the last entry gone or changed: fill again */
		if (status == 0 && !m->full && m->walked <= 1) {
			m->attempts = 0;
			selm_invalidate(m);
			return;
		}
		break;
	case SJ_CHECK:
		if (!info_ok)
			break;
		got_check(m, resp, now_ms);
		return;
	case SJ_REVAL:
		m->stats.revalidations++;
		m->job = SJ_NONE;
		if (!info_ok) {
			selm_invalidate(m);
			return;
		}
		selm_judge_info(m, resp, len, now_ms);
		return;
	case SJ_NONE:
		return;
	}
	failed(m, now_ms);
}
