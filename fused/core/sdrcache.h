/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sdrcache.h - the SDR repository and FRU inventory, answered from memory
 * (docs/sdrcache.md).
 *
 * A state machine with no I/O and no idea who its owners are (an owner is
 * an opaque pointer: one client, one open file). The glue asks it:
 *
 *   sdrc_request()      can you answer this system-interface request of
 *                       owner O?  ANSWERED (the response in resp),
 *                       FORWARD (send it to the BMC as usual), or PARK
 *                       (the cache is filling or revalidating: ask again
 *                       after the next sdrc_answer());
 *   sdrc_next_request() the request the cache wants sent to the BMC
 *                       (fill, revalidation), one at a time; its answer
 *                       goes to sdrc_answer();
 *   sdrc_observe()      every request of any node that did reach the BMC,
 *                       with its answer: writes, clears and resets drop
 *                       the cache, a Reserve SDR Repository becomes the
 *                       owner's reservation;
 *   sdrc_owner_gone()   the owner closed.
 *
 * Responses are "cc data..." (no netfn/cmd), requests netfn, cmd, data.
 * Times are the caller's monotonic milliseconds.
 */
#ifndef KCSMUX_SDRCACHE_H
#define KCSMUX_SDRCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "util/ipmi_msg.h"

/* cc + data, at most: the largest answer the ABI carries (272 bytes with
 * netfn and cmd); a Get SDR of 255 bytes is 258 */
#define SDRC_MAX_RESP	    (272 - 2)
#define SDRC_MAX_REQ	    8	  /* internal request data bytes */
#define SDRC_MAX_RECORDS    1024  /* more: not cached */
#define SDRC_FRU_MAX	    4096  /* larger FRU: not cached */
#define SDRC_FRU_MAX_AGE_MS 60000 /* then FRU data is read again */

enum sdrc_verdict { SDRC_FORWARD, SDRC_ANSWERED, SDRC_PARK };

struct sdrc_stats {
	uint64_t hits;		/* answered from memory */
	uint64_t misses;	/* cacheable command, forwarded */
	uint64_t parks;		/* waited for a fill or revalidation */
	uint64_t fills;		/* repository fills completed */
	uint64_t revalidations; /* Get SDR Repository Info checks */
	uint64_t invalidations; /* dropped (write, reset, change) */
	uint64_t internal;	/* requests the cache sent to the BMC */
};

struct sdrc_req {
	uint8_t netfn, cmd;
	uint8_t data[SDRC_MAX_REQ];
	unsigned int len;
};

struct sdrc;

struct sdrc *sdrc_new(uint32_t revalidate_ms);
void sdrc_free(struct sdrc *c);
void sdrc_set_revalidate_ms(struct sdrc *c, uint32_t ms);

/* RQ: a system-interface request (its netfn, cmd, data and address LUN,
 * 0-3; device SDRs are cached for LUN 0 only). RESP has room for resp_size
 * bytes (SDRC_MAX_RESP holds any answer): an answer that would not fit is
 * FORWARD, never cut. */
enum sdrc_verdict sdrc_request(struct sdrc *c, const void *owner,
			       const struct ipmi_request *rq, uint64_t now_ms,
			       uint8_t *resp, unsigned int resp_size,
			       unsigned int *resp_len);
bool sdrc_next_request(struct sdrc *c, uint64_t now_ms, struct sdrc_req *r);
/* status != 0: the interface failed (no answer). */
void sdrc_answer(struct sdrc *c, int status, const uint8_t *resp,
		 unsigned int len, uint64_t now_ms);
void sdrc_observe(struct sdrc *c, const void *owner,
		  const struct ipmi_request *rq, int status,
		  const uint8_t *resp, unsigned int resp_len, uint64_t now_ms);
void sdrc_owner_gone(struct sdrc *c, const void *owner);

/* Drop everything (the BMC's contents may have changed behind us). */
void sdrc_invalidate(struct sdrc *c);
/* NETFN:CMD may change the repository or the FRU, or reset the BMC (an
 * SDR or FRU write, a clear, a reset, a Send Message): what a bridged
 * request must carry to drop the cache. */
bool sdrc_cmd_changes(uint8_t netfn, uint8_t cmd);
const struct sdrc_stats *sdrc_stats(const struct sdrc *c);
/* "empty", "filling", "valid", "failed", "off" (timestamps untrusted) */
const char *sdrc_state_name(const struct sdrc *c);
unsigned int sdrc_records(const struct sdrc *c);
/* The BMC's device SDRs (LUN 0): the same for their copy. */
const char *sdrc_device_state_name(const struct sdrc *c);
unsigned int sdrc_device_records(const struct sdrc *c);

#endif
