/* SPDX-License-Identifier: MIT */
/*
 * The BMC side of the SMS_ATN protocol, faked by kcsmux-bmc-proxy so that a
 * test can hand the host asynchronous traffic (events, incoming IPMB
 * requests) that ipmi_sim cannot raise on demand. See docs/bmc-proxy.md.
 *
 * Injected items wait in two FIFOs: events (the 16 bytes Read Event Message
 * Buffer returns after its completion code) and messages (what Get Message
 * returns after its completion code: the channel byte, then the IPMB message
 * without rsSA). While anything is pending, the host's Get Message Flags is
 * answered here with bit 0 (receive message available) and/or bit 1 (event
 * message buffer full); Get Message and Read Event Message Buffer are
 * answered here while items of their kind are pending. Everything else is
 * the real BMC's business; Set BMC Global Enables and Clear Message Flags are
 * only looked at on their way (to pick ATTN or ATTN_IRQ, and to drop what
 * the host clears).
 *
 * Pure logic, no I/O: the proxy sends the attention frames and the
 * responses built here.
 */
#ifndef KCSMUX_SMS_INJECT_H
#define KCSMUX_SMS_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vm_codec.h"

#define SMS_NETFN_APP		   0x06u
#define SMS_CMD_SET_GLOBAL_ENABLES 0x2Eu
#define SMS_CMD_GET_GLOBAL_ENABLES 0x2Fu
#define SMS_CMD_CLEAR_MSG_FLAGS	   0x30u
#define SMS_CMD_GET_MSG_FLAGS	   0x31u
#define SMS_CMD_GET_MSG		   0x33u
#define SMS_CMD_READ_EVENT_BUF	   0x35u

/* Get Message Flags bits (and Clear Message Flags mask bits) */
#define SMS_FLAG_RECV_MSG     0x01u
#define SMS_FLAG_EVT_BUF_FULL 0x02u
/* Set BMC Global Enables bits */
#define SMS_GE_RECV_MSG_INT 0x01u
#define SMS_GE_EVT_BUF_INT  0x02u

/* "data not available" / "message buffer empty" */
#define SMS_CC_EMPTY 0x80u

#define SMS_EVENT_LEN 16u
/* Get Message data after the completion code (channel byte included) */
#define SMS_MSG_MAX 256u
/* pending items of each kind */
#define SMS_QUEUE_MAX 64u

struct sms_msg {
	uint16_t len;
	uint8_t data[SMS_MSG_MAX];
};

struct sms_inject {
	uint8_t events[SMS_QUEUE_MAX][SMS_EVENT_LEN];
	unsigned int ev_head, ev_count;
	struct sms_msg msgs[SMS_QUEUE_MAX];
	unsigned int msg_head, msg_count;
	/* last Set BMC Global Enables seen (or Get's answer) */
	bool enables_known;
	uint8_t enables;
	uint8_t next_seq; /* rqSeq for sms_ipmb_request() users */
};

void sms_inject_init(struct sms_inject *s);

static inline bool sms_inject_pending(const struct sms_inject *s)
{
	return s->ev_count || s->msg_count;
}

/* Queue an event (16 bytes). 0, or -ENOSPC when SMS_QUEUE_MAX are queued. */
int sms_inject_event(struct sms_inject *s, const uint8_t *ev);

/*
 * Queue a message: Get Message's data after the completion code. 0, -EINVAL
 * for an empty or overlong (> SMS_MSG_MAX) one, -ENOSPC when full.
 */
int sms_inject_msg(struct sms_inject *s, const uint8_t *data, size_t len);

/*
 * Drop pending items: events if mask has SMS_FLAG_EVT_BUF_FULL, messages if
 * SMS_FLAG_RECV_MSG. Returns the number dropped.
 */
unsigned int sms_inject_clear(struct sms_inject *s, uint8_t mask);

/* Get Message Flags value for what is pending (0 if nothing). */
uint8_t sms_inject_flags(const struct sms_inject *s);

/*
 * The attention command to raise for what is pending: VM_CMD_ATTN_IRQ if
 * the host enabled the interrupt of a pending kind (or the enables are not
 * known yet), VM_CMD_ATTN otherwise, as ipmi_sim does. QEMU raises the IRQ
 * for ATTN_IRQ only if the BMC enabled interrupts.
 */
uint8_t sms_inject_attn_cmd(const struct sms_inject *s);

struct sms_reply {
	uint8_t cmd; /* the request's command */
	uint8_t cc;
	uint8_t flags; /* for Get Message Flags */
	size_t len;    /* wire bytes, terminator included */
	uint8_t wire[VM_RAW_MAX];
};

/*
 * Look at a host request (the decoded bytes of a VM message frame: seq,
 * netfn << 2 | lun, cmd, data..., checksum). Returns true and fills *r with
 * the response frame (seq, netfn+1, lun and cmd echoed) when the request is
 * answered here; false when it must go to the BMC. Set BMC Global Enables
 * and Clear Message Flags are noted (and forwarded).
 */
bool sms_inject_request(struct sms_inject *s, const uint8_t *req, size_t len,
			struct sms_reply *r);

/* Note the BMC's answer to Get BMC Global Enables (decoded response). */
void sms_inject_bmc_response(struct sms_inject *s, const uint8_t *rsp,
			     size_t len);

/* An IPMB request from another controller, as Get Message delivers it. */
struct sms_ipmb_req {
	uint8_t channel; /* bits 3:0 channel, 7:4 privilege */
	uint8_t rs_sa;	 /* responder, the BMC (0x20): only in chk1 */
	uint8_t rs_lun;
	uint8_t netfn;
	uint8_t rq_sa;
	uint8_t rq_seq; /* 6 bits */
	uint8_t rq_lun;
	uint8_t cmd;
	const uint8_t *data;
	size_t data_len;
};

/*
 * Build Get Message's data for r: channel, netFn/rsLUN, chk1, rqSA,
 * rqSeq/rqLUN, cmd, data..., chk2 (rsSA is implied, as in the IPMI spec's
 * Get Message; chk1 covers rsSA and netFn/rsLUN, chk2 rqSA through the
 * data). Returns the length, or 0 if it does not fit in cap.
 */
size_t sms_ipmb_request(const struct sms_ipmb_req *r, uint8_t *out, size_t cap);

/*
 * Append the bytes of a hex string ("0a1B..", optional 0x prefix, an even
 * number of digits) to out[*len..cap). Returns 0, or -EINVAL for a bad
 * string, -ENOSPC when it does not fit (*len is then unchanged).
 */
int sms_hex_append(const char *s, uint8_t *out, size_t cap, size_t *len);

#endif
