/* SPDX-License-Identifier: GPL-2.0 */
/*
 * seqtab - the 64-slot IPMB sequence table of kcsmuxd (fused/core/seqtab.c).
 *
 * Pure logic: no I/O, no allocation (the caller owns struct seqtab), time
 * is a now_ns argument (any monotonic clock). Mirrors the stock message
 * handler's seq_table (intf_next_seq, intf_find_seq, intf_start_seq_timer,
 * intf_err_seq, check_msg_timeout), with exact deadlines instead of its
 * one-second tick.
 *
 * Life of a bridged request (IPMB command, even netfn):
 *   seqtab_alloc        picks the next free slot round-robin (none:
 *                       -EAGAIN), stores what the timeout/response needs
 *                       and the wrapped Send Message request itself; the
 *                       daemon submits e->req and remembers e->token with
 *                       that KCS transaction. Until the Send Message
 *                       completes the slot waits SEQTAB_SEND_WAIT_NS.
 *   seqtab_send_done    the BMC's cc for the Send Message: 0 or a "try
 *                       again" cc (0xC0 node busy, 0x81 lost arbitration,
 *                       0x82 bus error, 0x83 NAK on write) start the retry
 *                       timer (now + retry time); any other cc frees the
 *                       slot and the client gets a response with that cc.
 *                       A short or hosed transaction: pass cc 0xFF.
 *   seqtab_match        an IPMB response from Get Message: same seq, in
 *                       use, and same channel, responder SA, responder LUN,
 *                       request netfn (response netfn & ~1) and cmd ->
 *                       the entry is returned and the slot freed.
 *   seqtab_expire       deadline passed: retries left -> RESEND (the same
 *                       seq and token, retries_left - 1, waiting for the
 *                       Send Message again); none left -> TIMEOUT (slot
 *                       freed; the client gets cc 0xC3, see
 *                       ipmb_user_error).
 * Like the stock driver, a resend keeps its sequence number, so a late
 * answer to an earlier attempt completes the request; once the slot is
 * freed (timed out, answered, cancelled) a late answer finds nothing and is
 * dropped — round-robin allocation keeps a freed slot unused for as long
 * as possible. The token (seq << 26 | generation) changes at every
 * allocation, so a Send Message completion can't be credited to a later
 * user of the slot.
 */
#ifndef KCSMUX_SEQTAB_H
#define KCSMUX_SEQTAB_H

#include <stdbool.h>
#include <stdint.h>

#include "util/ipmi_msg.h"

#define SEQTAB_SLOTS 64
/* MAX_MSG_TIMEOUT: how long a slot waits for its Send Message to complete
 * before the retry logic takes over anyway. */
#define SEQTAB_SEND_WAIT_NS (60000ull * 1000000ull)
#define SEQTAB_NO_DEADLINE  UINT64_MAX
/*
 * Bounds on a bridged request's timing (seqtab_clamp_timing). The stock
 * message handler checks its timeouts once per second (IPMI_TIMEOUT_TIME),
 * so a shorter retry time retries at most once a second there too; it does
 * not bound the retries, we do, so that one request cannot hold a slot for
 * long.
 */
#define SEQTAB_MIN_RETRY_MS 1000
#define SEQTAB_MAX_RETRY_MS 60000
#define SEQTAB_MAX_RETRIES  10
/* ... and for a node that is not the admins' (access_is_admin): the stock
 * default's retries (4) of at most 5 s, so one of its requests holds a
 * slot (ours, or ipmi_msghandler's on a backend that bridges) for at most
 * 25 s instead of 11 x 60 s; the default timing (4 x 2 s) is unchanged. */
#define SEQTAB_USER_MAX_RETRY_MS 5000
#define SEQTAB_USER_MAX_RETRIES	 4

struct seqtab_entry {
	bool inuse;
	bool broadcast;	   /* sent to the broadcast address (no retries) */
	bool timing;	   /* the Send Message completed: the deadline is
				   the retry timer */
	uint8_t seq;	   /* the slot number */
	uint32_t token;	   /* seq << 26 | generation */
	void *owner;	   /* the client (cancel key) */
	const void *group; /* its node (share key) */
	int64_t msgid;	   /* the client's msgid */
	struct ipmi_address addr; /* the client's address as given */
	uint8_t netfn, cmd;	  /* the request's */
	uint32_t retries_left;
	uint64_t retry_ns; /* one attempt */
	uint64_t deadline_ns;
	uint16_t req_len; /* the Send Message KCS request, resent as is */
	uint8_t req[ABI_MAX_MSG_LENGTH];
};

struct seqtab {
	struct seqtab_entry e[SEQTAB_SLOTS];
	uint32_t gen[SEQTAB_SLOTS]; /* per-slot generation, kept across use */
	unsigned int curr;	    /* where the next search starts */
};

/* What the client asked for (after the ipmi_check_request checks). */
struct seqtab_req {
	void *owner;
	const void *group;	/* NULL, or a share key (the node) ... */
	unsigned int group_max; /* ... holding at most this many slots */
	/* to an IPMB or IPMB broadcast address, netfn even; retries < 0:
	 * ABI_DEFAULT_RETRIES (broadcast: 0), retry_ms 0:
	 * ABI_DEFAULT_RETRY_MS (pass the result of ipmi_effective_timing to
	 * get maintenance mode right); data copied into the slot */
	struct ipmi_request rq;
	uint8_t my_sa, my_lun; /* requester address/LUN on addr.channel */
};

void seqtab_init(struct seqtab *t);

/* Bring effective retries and retry time (ipmi_effective_timing's) within
 * SEQTAB_MAX_RETRIES and SEQTAB_MIN/MAX_RETRY_MS. */
void seqtab_clamp_timing(int32_t *retries, uint32_t *retry_ms);
/* Then, for a node that is not the admins', within SEQTAB_USER_MAX_*. */
void seqtab_clamp_user(int32_t *retries, uint32_t *retry_ms);
/* Slots held by GROUP. */
unsigned int seqtab_group_count(const struct seqtab *t, const void *group);

/*
 * Take a slot and wrap the request. Returns the seq (0..63) and points *out
 * at the live entry (e->req / e->req_len / e->token to submit), or
 * -EAGAIN (all 64 in use, or r->group holds r->group_max), -EINVAL (not an IPMB address, odd netfn),
 * -EMSGSIZE (does not fit Send Message); no slot is used on error.
 */
int seqtab_alloc(struct seqtab *t, const struct seqtab_req *r, uint64_t now_ns,
		 const struct seqtab_entry **out);

#define SEQTAB_TIMER_STARTED 0
#define SEQTAB_FAILED	     1
/*
 * The Send Message with this token completed with cc. Returns
 * SEQTAB_TIMER_STARTED, SEQTAB_FAILED (*gone = the freed entry: answer the
 * client with ipmb_user_error(.., cc)) or -ENOENT (no such live request:
 * ignore, like a completion for a cancelled request).
 */
int seqtab_send_done(struct seqtab *t, uint32_t token, uint8_t cc,
		     uint64_t now_ns, struct seqtab_entry *gone);

struct ipmb_rx;
/*
 * Match the IPMB response RX (its seq, channel, sender SA and LUN, netfn
 * and cmd). seq > 63 or no match: -ENOENT. Found: 0, *gone = the entry,
 * slot freed.
 */
int seqtab_match(struct seqtab *t, const struct ipmb_rx *rx,
		 struct seqtab_entry *gone);

#define SEQTAB_NONE    0
#define SEQTAB_RESEND  1
#define SEQTAB_TIMEOUT 2
/*
 * Handle one expired entry (deadline <= now_ns), lowest slot first; call
 * until it returns SEQTAB_NONE. SEQTAB_RESEND: *e = copy of the live entry
 * (submit e->req, token unchanged); SEQTAB_TIMEOUT: *e = the freed entry.
 */
int seqtab_expire(struct seqtab *t, uint64_t now_ns, struct seqtab_entry *e);

/* The earliest deadline, SEQTAB_NO_DEADLINE when nothing is in use. */
uint64_t seqtab_next_deadline(const struct seqtab *t);

/* Free every slot of owner silently (the client closed); returns how many. */
unsigned int seqtab_cancel_owner(struct seqtab *t, const void *owner);

unsigned int seqtab_in_use(const struct seqtab *t);

bool seqtab_live(const struct seqtab *t, uint32_t token);
unsigned int seqtab_owner_count(const struct seqtab *t, const void *owner);
#endif /* KCSMUX_SEQTAB_H */
