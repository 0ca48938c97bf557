/* SPDX-License-Identifier: GPL-2.0 */
/*
 * selmirror.h - the System Event Log answered from a mirror kept in step
 * with the BMC (docs/selmirror.md).
 *
 * A state machine with no I/O, like the SDR cache (sdrcache.h), whose
 * verdicts and request form it shares; the glue (sdrglue.c) asks it:
 *
 *   selm_request()      can you answer this system-interface request of
 *                       owner O from the mirror? ANSWERED (resp), FORWARD,
 *                       or PARK (filling, syncing or checking: ask again
 *                       after the next selm_answer());
 *   selm_next_request() what the mirror wants sent to the BMC (SEL Info,
 *                       Get SEL Entry), one at a time, answered through
 *                       selm_answer();
 *   selm_observe()      every request of any node that reached the BMC,
 *                       with its answer: SEL Info moves the mirror on,
 *                       Add, Delete and Clear update or drop it, a Reserve
 *                       SEL becomes its owner's reservation;
 *   selm_owner_gone()   the owner closed.
 *
 * Responses are "cc data..." (no netfn/cmd). Times are monotonic ms.
 */
#ifndef KCSMUX_SELMIRROR_H
#define KCSMUX_SELMIRROR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sdrcache.h"
#include "util/ipmi_msg.h"

#define SELM_MAX_ENTRIES 8192 /* more: not mirrored (20 bytes each) */
#define SELM_ENTRY_LEN	 16
#define SELM_FAILED_MS	 30000 /* after a failed fill: the BMC's */

struct selm_stats {
	uint64_t hits;		/* Get SEL Entry answered from memory */
	uint64_t misses;	/* ... that went to the BMC */
	uint64_t parks;		/* waited for a fill, sync or check */
	uint64_t fills;		/* whole fills completed */
	uint64_t syncs;		/* new entries fetched (times) */
	uint64_t fetched;	/* entries read from the BMC */
	uint64_t revalidations; /* SEL Info checks (its own) */
	uint64_t invalidations; /* dropped (clear, erase, reset) */
	uint64_t internal;	/* requests the mirror sent to the BMC */
};

struct selm;

struct selm *selm_new(uint32_t revalidate_ms);
void selm_free(struct selm *m);
void selm_set_revalidate_ms(struct selm *m, uint32_t ms);

/* Is NETFN:CMD one the mirror answers or learns from (SEL Info, Reserve,
 * Get, Add, Partial Add, Delete and Clear SEL, 0a:40-47)? */
bool selm_cmd_sel(uint8_t netfn, uint8_t cmd);
/* NETFN:CMD may change the SEL or reset the BMC: what a bridged request
 * must carry to drop the mirror. */
bool selm_cmd_changes(uint8_t netfn, uint8_t cmd);

enum sdrc_verdict selm_request(struct selm *m, const void *owner,
			       const struct ipmi_request *rq, uint64_t now_ms,
			       uint8_t *resp, unsigned int resp_size,
			       unsigned int *resp_len);
bool selm_next_request(struct selm *m, uint64_t now_ms, struct sdrc_req *r);
/* status != 0: the interface failed (no answer). */
void selm_answer(struct selm *m, int status, const uint8_t *resp,
		 unsigned int len, uint64_t now_ms);
void selm_observe(struct selm *m, const void *owner,
		  const struct ipmi_request *rq, int status,
		  const uint8_t *resp, unsigned int resp_len, uint64_t now_ms);
void selm_owner_gone(struct selm *m, const void *owner);
/* Drop the entries (the BMC's SEL may have changed behind us). */
void selm_invalidate(struct selm *m);

const struct selm_stats *selm_stats(const struct selm *m);
/* "empty", "filling", "valid", "failed" */
const char *selm_state_name(const struct selm *m);
unsigned int selm_entries(const struct selm *m);

#endif
