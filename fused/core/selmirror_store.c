// SPDX-License-Identifier: GPL-2.0
/*
 * selmirror_store.c - the SEL mirror's life and its entries (selmirror.h,
 * selmirror_priv.h): made, freed, dropped, appended to. What answers from
 * it (selmirror.c) and what fills it (selmirror_fill.c) both use these,
 * and these call neither.
 */
#include <stdlib.h>
#include <string.h>

#include "core/selmirror.h"
#include "core/selmirror_priv.h"
#include "util/le.h"

struct selm *selm_new(uint32_t revalidate_ms)
{
	struct selm *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->reval_ms = revalidate_ms;
	return m;
}

void selm_free(struct selm *m)
{
	if (!m)
		return;
	free(m->e);
	resv_free(&m->own);
	free(m);
}

void selm_drop(struct selm *m)
{
	free(m->e);
	m->e = NULL;
	m->n = m->cap = m->hint = 0;
	resv_cancel_all(&m->own, 0);
	if (m->busy)
		m->gen++; /* its answer goes nowhere */
	m->job = SJ_NONE;
	m->want_sync = m->adopt_erase = false;
	m->st = S_EMPTY;
}

void selm_invalidate(struct selm *m)
{
	m->stats.invalidations++;
	selm_drop(m);
}

bool selm_append(struct selm *m, const uint8_t *rec, uint16_t next)
{
	struct sel_entry *e;

	if (m->n >= SELM_MAX_ENTRIES)
		return false;
	if (m->n == m->cap) {
		unsigned int c = m->cap ? m->cap * 2 : 64;

		if (c > SELM_MAX_ENTRIES)
			c = SELM_MAX_ENTRIES;
		e = realloc(m->e, c * sizeof(*e));
		if (!e)
			return false;
		m->e = e;
		m->cap = c;
	}
	e = &m->e[m->n++];
	e->id = ld16(rec);
	e->next = next;
	memcpy(e->data, rec, SELM_ENTRY_LEN);
	return true;
}
