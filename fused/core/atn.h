/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atn - the SMS_ATN flag machine of kcsmuxd (fused/core/atn.c).
 *
 * Pure logic: no I/O, no allocation. It says which KCS request to send next
 * and classifies what comes back, like the stock KCS driver's handle_flags
 * / handle_transaction_done (drivers/char/ipmi/ipmi_si_intf.c, Linux 6.x)
 * plus the message handler's classification of Get Message and Read Event
 * Message Buffer results.
 *
 *   SMS_ATN seen          -> Get Message Flags (0x18 0x31)
 *   flags response        cc != 0 or no flags byte: done. Else, in this
 *                         order while bits remain:
 *     0x08 watchdog pre-timeout -> Clear Message Flags (0x18 0x30 0x08),
 *                         reported as ATN_WATCHDOG (the stock driver tells
 *                         in-kernel watchdog users only; /dev/ipmi clients
 *                         get nothing). Its cc is not checked.
 *     0x01 receive message available -> Get Message (0x18 0x33), again
 *                         after every success; cc != 0 (0x80: queue empty)
 *                         drops the bit.
 *     0x02 event buffer full -> Read Event Message Buffer (0x18 0x35),
 *                         again after every success; cc != 0 (0x80: no
 *                         event) or a length other than 19 drops the bit.
 *     0x20/0x40/0x80 OEM  ignored, as the stock driver does unless an OEM
 *                         handler is installed (Dell PowerEdge: OEM data is
 *                         a receive message). oem_as_msg selects OEM bits
 *                         to treat that way: they are replaced by 0x01.
 *   After 10 successful fetches in a row the bit is dropped (Linux 6.x: a
 *   BMC that never says "empty" must not wedge the machine); a new SMS_ATN
 *   starts over. The stock driver returns to idle after the Clear; this
 *   machine goes on with the remaining bits in the same run (the SMS_ATN
 *   that would have followed would find the same flags).
 *
 * A BMC that keeps a flag up with nothing behind it (ipmi_sim after a long
 * run: Get Message Flags says "message available", Get Message answers
 * 0x80 "empty", and SMS_ATN stays up) would make this loop forever, as it
 * does the stock driver: SMS_ATN, flags, empty fetch, SMS_ATN... A run
 * whose first fetch of a bit the BMC's flags answer set fails, and which
 * fetches nothing, is empty; after ATN_EMPTY_MAX empty runs in a row, each
 * within ATN_EMPTY_GAP_NS of the last, the machine pauses: SMS_ATN is
 * ignored for ATN_PAUSE_NS. The first SMS_ATN after that runs again, and
 * pauses again at once if that run is empty too, however late it came.
 * Anything fetched, or a flags
 * answer without those bits, ends the episode. atn_poll_events() runs are
 * neither counted nor paused. Logged once an episode (warning), counted
 * in pauses and ignored.
 *
 * A response that is not the one expected (netfn/cmd mismatch, < 3 bytes)
 * counts as cc 0xFF. SMS_ATN or an event poll arriving while a run is in
 * progress is remembered and starts the next run when this one ends.
 *
 * Bridging: ipmi_sim keeps only one forwarded IPMB response, so the daemon
 * must fetch a pending message before it sends another bridged Send
 * Message: atn_bridge_can_send() is false while a Get Message Flags or a
 * Get Message is owed. After a bridged Send Message completes, either
 * check SMS_ATN before the next one or call atn_attention() anyway (one
 * extra Get Message Flags).
 *
 * The daemon may interleave other system-interface requests between the
 * machine's requests; it must pass each response of the machine's own
 * requests to atn_response().
 */
#ifndef KCSMUX_ATN_H
#define KCSMUX_ATN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ipmb.h"

/* Get Message Flags bits */
#define ATN_FLAG_RECV_MSG	0x01
#define ATN_FLAG_EVT_BUF_FULL	0x02
#define ATN_FLAG_WDT_PRETIMEOUT 0x08
#define ATN_FLAG_OEM0		0x20
#define ATN_FLAG_OEM1		0x40
#define ATN_FLAG_OEM2		0x80
#define ATN_FLAG_OEM		0xe0

#define ATN_REQ_MAX	 3 /* longest request the machine sends */
#define ATN_MAX_IN_A_ROW 10
#define ATN_EMPTY_MAX	 4	       /* empty runs in a row before a pause */
#define ATN_EMPTY_GAP_NS 1000000000ull /* ... each within 1 s */
#define ATN_PAUSE_NS	 1000000000ull /* SMS_ATN ignored for 1 s */

enum atn_state {
	ATN_IDLE,
	ATN_GETTING_FLAGS,
	ATN_CLEARING_FLAGS,
	ATN_GETTING_MSG,
	ATN_GETTING_EVENT,
};

struct atn {
	enum atn_state state;
	uint8_t flags;	       /* bits still to handle in this run */
	unsigned int in_a_row; /* successful fetches of the current kind */
	bool attn_pending;     /* SMS_ATN seen during a run */
	bool events_pending;   /* atn_poll_events() during a run */
	/* the stuck-flag bound */
	uint8_t bmc_flags;	  /* bits the BMC's flags answer set this run */
	uint8_t run_empty;	  /* ... the one whose first fetch failed */
	uint8_t empty_cc;	  /* ... with this completion code */
	unsigned int empty_runs;  /* runs in a row that fetched nothing */
	uint64_t empty_at_ns;	  /* when the last of them ended */
	uint64_t paused_until_ns; /* SMS_ATN ignored before this */
	bool send_owed; /* atn_after_send(): the next run is not paused */
	bool stuck;	/* paused since the last fetch: logged */
	/* counters */
	uint64_t pauses;  /* times the machine paused */
	uint64_t ignored; /* SMS_ATN ignored while paused */
	/* configuration, set after atn_init */
	uint8_t oem_as_msg;   /* OEM bits meaning "receive message" (0) */
	const uint8_t *media; /* 16 channel media (IPMI_CHANNEL_MEDIUM_*) or
				   NULL: every channel is IPMB */
	uint64_t (*clock_ns)(void); /* monotonic ns; NULL: CLOCK_MONOTONIC */
};

enum atn_kind {
	ATN_NOTHING,	   /* nothing for anybody (flags, clear, empty) */
	ATN_WATCHDOG,	   /* watchdog pre-timeout flag handled */
	ATN_EVENT,	   /* res->msg: async event for gets_events users */
	ATN_IPMB_RESPONSE, /* res->rx: seqtab_match it, then
				   ipmb_user_response */
	ATN_IPMB_COMMAND,  /* res->rx: to the registered user
				   (ipmb_user_command), else answer with
				   ipmb_build_invalid_cmd_reply */
	ATN_OEM,	   /* res->msg: OEM-medium channel message for the
				   user registered for (netfn 0x07, cmd 0x33,
				   channel res->rx.channel) */
	ATN_LAN,	   /* from a LAN/async channel: not bridged,
				   dropped */
	ATN_INVALID, /* short frame (checksums are not checked, as in the stock driver),
				   unknown medium: dropped */
};

struct atn_result {
	enum atn_kind kind;
	uint8_t flags;	   /* the flags byte, for a flags response */
	uint8_t cc;	   /* completion code of the response */
	struct ipmb_rx rx; /* points into the caller's response buffer */
	struct ipmb_user_msg msg;
};

void atn_init(struct atn *a);

/*
 * SMS_ATN seen. Idle: writes Get Message Flags to req and returns its
 * length. During a run: remembered, returns 0. Paused (a stuck flag, see
 * above): ignored, returns 0. -ENOSPC if cap < 3.
 */
int atn_attention(struct atn *a, uint8_t *req, size_t cap);

/*
 * Poll the event buffer (the stock driver does it every second while a
 * user wants events): like attention, but starts a Read Event Message
 * Buffer run.
 */
int atn_poll_events(struct atn *a, uint8_t *req, size_t cap);

/*
 * The response to the request the machine last returned. Fills *res and
 * writes the next request to req: returns its length, 0 when the run is
 * over (idle), -EINVAL if no request was outstanding, -ENOSPC if cap < 3.
 */
int atn_response(struct atn *a, const uint8_t *rsp, size_t len,
		 struct atn_result *res, uint8_t *req, size_t cap);

/* A run is in progress (a request is outstanding). */
bool atn_busy(const struct atn *a);

/* SMS_ATN is being ignored now (a stuck flag). */
bool atn_paused(const struct atn *a);

/*
 * A bridged Send Message completed: the next atn_attention() runs even
 * while paused, since the forwarded response must be fetched before the
 * next Send Message (call it just before that atn_attention()).
 */
void atn_after_send(struct atn *a);

/* False while a Get Message (Flags) is owed: hold bridged Send Messages. */
bool atn_bridge_can_send(const struct atn *a);

/*
 * Classification helpers (used by atn_response, usable alone):
 * the stock async event message from a Read Event Message Buffer response
 * (SI address channel 15, lun = rsp[0] & 3, netfn rsp[0] >> 2, cmd rsp[1],
 * the 16 event bytes, msgid 0); -EINVAL unless cc 0 and exactly 19 bytes.
 */
int atn_event_msg(const uint8_t *rsp, size_t len, struct ipmb_user_msg *out);

/* Classify a successful Get Message response (cc 0, >= 4 bytes). */
enum atn_kind atn_classify_msg(const uint8_t *rsp, size_t len,
			       const uint8_t *media, struct atn_result *res);

/*
 * What the stock drivers do to an interface they take over
 * (ipmi_si_intf.c current_global_enables / SI_CHECKING_ENABLES, and the
 * message handler's channel scan), for the daemon's bmcsetup.c.
 *
 * BMC global enables the driver manages (the rest of the byte, such as
 * the system event log bit 0x08, is kept as the BMC has it):
 *   0x04 event message buffer     when the BMC supports it
 *   0x01 receive message interrupt with an IRQ
 *   0x02 event buffer full interrupt with an IRQ and the event buffer
 */
#define ATN_GE_RCV_MSG_INTR 0x01
#define ATN_GE_EVT_MSG_INTR 0x02
#define ATN_GE_EVT_MSG_BUFF 0x04
#define ATN_GE_MASK	    0x07

uint8_t atn_global_enables(bool evbuf, bool irq);
/*
 * A Get BMC Global Enables response (rsp: netfn<<2|lun, cmd, cc, byte).
 * Returns the byte to write with Set BMC Global Enables (read-modify-
 * write: want in the managed bits, the rest as read), -EALREADY when the
 * managed bits are already right, -EIO when the response is an error or
 * malformed.
 */
int atn_enables_fix(const uint8_t *rsp, size_t len, uint8_t want);

/*
 * A Get Channel Info response for one channel: 0 and *medium (7 bits)
 * when it carries one; -ENOSYS for cc 0xC1 (the BMC lacks the command:
 * the stock handler then takes channel 0 as IPMB and stops scanning);
 * -EIO for any other error or a short answer (the channel stays medium 0,
 * unknown, as stock leaves it).
 */
int atn_channel_medium(const uint8_t *rsp, size_t len, uint8_t *medium);

#endif /* KCSMUX_ATN_H */
