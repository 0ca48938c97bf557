// SPDX-License-Identifier: GPL-2.0
/*
 * resv.c - reservations per owner (resv.h): the SDR cache's and the SEL
 * mirror's. The table grows by doubling; an owner's entry goes when the
 * owner closes, so it holds at most one entry per open file that ever
 * reserved.
 */
#include <stdlib.h>
#include <string.h>

#include "core/resv.h"

struct resv *resv_find(struct resv_tab *t, const void *owner, bool add)
{
	struct resv *o;

	for (unsigned int i = 0; i < t->n; i++)
		if (t->v[i].owner == owner)
			return &t->v[i];
	if (!add)
		return NULL;
	if (t->n == t->cap) {
		unsigned int n = t->cap ? t->cap * 2 : 8;

		o = realloc(t->v, n * sizeof(*o));
		if (!o)
			return NULL;
		t->v = o;
		t->cap = n;
	}
	o = &t->v[t->n++];
	memset(o, 0, sizeof(*o));
	o->owner = owner;
	return o;
}

void resv_set(struct resv_tab *t, const void *owner, unsigned int kind,
	      uint16_t id)
{
	struct resv *o;

	if (!owner || kind >= RESV_KINDS || !(o = resv_find(t, owner, true)))
		return;
	o->res[kind] = id;
	o->valid[kind] = true;
}

bool resv_allows(struct resv_tab *t, const void *owner, unsigned int kind,
		 uint16_t id)
{
	const struct resv *o;

	if (id == 0)
		return true;
	o = resv_find(t, owner, false);
	return o && kind < RESV_KINDS && o->valid[kind] && o->res[kind] == id;
}

void resv_cancel_all(struct resv_tab *t, unsigned int kind)
{
	if (kind >= RESV_KINDS)
		return;
	for (unsigned int i = 0; i < t->n; i++)
		t->v[i].valid[kind] = false;
}

void resv_gone(struct resv_tab *t, const void *owner)
{
	struct resv *o = resv_find(t, owner, false);

	if (o)
		*o = t->v[--t->n];
}

void resv_free(struct resv_tab *t)
{
	free(t->v);
	*t = (struct resv_tab){ 0 };
}
