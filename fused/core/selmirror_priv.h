/* SPDX-License-Identifier: GPL-2.0 */
/*
 * selmirror_priv.h - the SEL mirror's state, shared by its files:
 * selmirror.c (its life, answering from memory, what reached the BMC) and
 * selmirror_fill.c (the fill, the sync of new entries, the checks).
 */
#ifndef KCSMUX_SELMIRROR_PRIV_H
#define KCSMUX_SELMIRROR_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "core/resv.h"
#include "core/selmirror.h"

#define SEL_NETFN	 0x0a
#define SEL_INFO	 0x40
#define SEL_RESERVE	 0x42
#define SEL_GET		 0x43
#define SEL_ADD		 0x44
#define SEL_PADD	 0x45
#define SEL_DELETE	 0x46
#define SEL_CLEAR	 0x47
#define SEL_INFO_LEN	 15		      /* cc + 14 bytes */
#define SEL_GET_LEN	 (3 + SELM_ENTRY_LEN) /* cc, next id, entry */
#define SEL_MAX_ATTEMPTS 3		      /* walks that saw the SEL move */
/* Get SEL Info: entries, most recent addition and erase (IPMI 2.0 31.2) */
#define INFO_COUNT 2
#define INFO_ADD   6
#define INFO_ERASE 10
#define INFO_OPS   14 /* bit 1: Reserve SEL supported */

enum sstate { S_EMPTY, S_FILLING, S_VALID, S_FAILED };
/* what the mirror sends next (or has out) */
enum sjob { SJ_NONE, SJ_INFO, SJ_GET, SJ_CHECK, SJ_REVAL };

struct sel_entry {
	uint16_t id, next; /* its id, and the BMC's next-record id */
	uint8_t data[SELM_ENTRY_LEN];
};

struct selm {
	uint32_t reval_ms;
	enum sstate st;
	uint64_t validated_ms, failed_ms;
	uint8_t info[SEL_INFO_LEN]; /* the SEL Info the entries match */
	struct sel_entry *e;
	unsigned int n, cap;
	unsigned int hint; /* the entry answered last */

	/* the walk (a fill, or a sync from the last entry on) */
	enum sjob job; /* next to send */
	bool busy;     /* a request is out */
	uint32_t gen, out_gen;
	bool full;    /* from the first entry; else from the last */
	uint16_t cur; /* the id to read */
	uint8_t start[SEL_INFO_LEN];
	unsigned int walked, attempts;
	bool want_sync;	  /* a change seen: sync before answering */
	bool adopt_erase; /* a Delete we passed may move the erase time */

	struct resv_tab own; /* kind 0: Reserve SEL */
	struct selm_stats stats;
};

/* selmirror.c */
/* Entries go; every owner's reservation with them. */
void selm_drop(struct selm *m);
/* Append an entry read from the BMC (false: out of room or memory). */
bool selm_append(struct selm *m, const uint8_t *rec, uint16_t next);

/* selmirror_fill.c */
/* Start a whole fill (attempts counted by the caller). */
void selm_start_fill(struct selm *m);
/* Start fetching what was added after the last entry, the BMC's SEL Info
 * INFO showing the change. */
void selm_start_sync(struct selm *m, const uint8_t *info);
/* A SEL Info (the mirror's check or a client's, cc first, LEN bytes)
 * against the entries: valid, sync, or refill. */
void selm_judge_info(struct selm *m, const uint8_t *info, unsigned int len,
		     uint64_t now_ms);

#endif
