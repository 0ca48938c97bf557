/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipmb - IPMB bridging message formats for kcsmuxd (fused/core/ipmb.c).
 *
 * Pure logic: no I/O, no allocation. The daemon talks to the raw KCS
 * interface, so it wraps a client's IPMB request in App Send Message itself
 * and unwraps what App Get Message returns, the way the stock message
 * handler does (drivers/char/ipmi/ipmi_msghandler.c, Linux 6.x).
 *
 * KCS request for Send Message (what ipmb_build_send_msg writes):
 *   [0] 0x18 (App request, LUN 0)  [1] 0x34  [2] channel (no tracking bit:
 *   the stock driver never sets 0x40, and ipmi_sim 2.0.33 crashes on it)
 *   [3] 0x00 only for a broadcast, then the IPMB frame:
 *   dest SA, netfn << 2 | dest LUN, checksum 1 (of those two),
 *   src SA (my address), seq << 2 | src LUN (my LUN), cmd, data...,
 *   checksum 2 (from src SA through the last data byte).
 * The checksums are the two's complement of the byte sum, so a covered
 * range plus its checksum sums to 0 mod 256.
 *
 * KCS response of Get Message (what ipmb_parse_get_msg reads):
 *   [0] 0x1c|lun [1] 0x33 [2] cc [3] privilege << 4 | channel, then the
 *   frame *without* its first byte (the destination address, i.e. us):
 *   [4] netfn << 2 | dest LUN [5] checksum 1 [6] src SA
 *   [7] seq << 2 | src LUN [8] cmd [9..n-2] data (a response starts with
 *   its cc) [n-1] checksum 2.
 *
 * Every function returns 0 or a negative errno unless documented otherwise.
 */
#ifndef KCSMUX_IPMB_H
#define KCSMUX_IPMB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/ipmi_msg.h"

#define IPMB_DEFAULT_SA \
	0x20		      /* IPMI_BMC_SLAVE_ADDR: the driver's
					   default own address on every channel */
#define IPMB_DEFAULT_LUN 2    /* the driver's default own LUN (SMS) */
#define IPMB_SEQ_MASK	 0x3f /* 6-bit IPMB sequence number */
/* Send Message bytes around the data: 3 (netfn, cmd, channel) + 6 header
 * + 1 trailing checksum; + 1 for a broadcast. */
#define IPMB_SEND_OVERHEAD 10
#define IPMB_GET_MSG_HDR   4  /* netfn, cmd, cc, channel */
#define IPMB_MIN_GET_CMD   10 /* Get Message length of a command */
#define IPMB_MIN_GET_RSP   11 /* ... of a response (it has a cc) */

/* The two's complement of the byte sum of p[0..n). */
uint8_t ipmb_checksum(const uint8_t *p, size_t n);

/* One IPMB message to put on the bus. */
struct ipmb_tx {
	uint8_t channel;  /* 0..15 */
	bool broadcast;	  /* prefix the frame with the 0x00 byte */
	uint8_t dest_sa;  /* responder for a request, requester for a
				   response */
	uint8_t dest_lun; /* & 3 */
	uint8_t netfn;	  /* even: request; odd: response */
	uint8_t cmd;
	uint8_t src_sa;	 /* my address on that channel */
	uint8_t src_lun; /* my LUN, & 3 */
	uint8_t seq;	 /* & IPMB_SEQ_MASK */
	const uint8_t *data;
	uint16_t data_len;
};

/*
 * Write the Send Message KCS request for tx into out. Returns its length
 * (tx->data_len + 10, + 1 for a broadcast), -EMSGSIZE if that exceeds 272
 * (ABI_MAX_MSG_LENGTH), -ENOSPC if cap is too small, -EINVAL for a channel
 * >= 16 or data_len without data.
 */
int ipmb_build_send_msg(const struct ipmb_tx *tx, uint8_t *out, size_t cap);

/*
 * A client's SEND to a LAN address (a LAN or serial channel), as
 * format_lan_msg lays it out: Send Message to addr->channel carrying the
 * session handle, remote SWID, netfn << 2 | lun, checksum, local SWID,
 * seq << 2 | my_lun, cmd, data, checksum. ipmb_build_from_addr calls it
 * for LAN addresses. -EINVAL for another type or channel, -EMSGSIZE if it
 * does not fit a KCS message, -ENOSPC if cap is too small.
 */
int ipmb_build_lan(const struct ipmi_request *rq, uint8_t my_lun, uint8_t seq,
		   uint8_t *out, size_t cap);

/*
 * The same for a client's SEND to an IPMB or IPMB-broadcast address, the
 * way i_ipmi_req_ipmb formats it (rq's address, netfn, cmd and data):
 * dest = (addr->slave_addr, addr->lun),
 * src = (my_sa, my_lun) of addr->channel. seq is the sequence slot for a
 * request, and the client's msgid for a response (odd netfn: a reply to an
 * incoming command; only msgid & 0x3f reaches the bus). A LAN address is
 * framed by ipmb_build_lan. -EINVAL for any other address type or a
 * lun > 3.
 */
int ipmb_build_from_addr(const struct ipmi_request *rq, uint8_t my_sa,
			 uint8_t my_lun, uint8_t seq, uint8_t *out, size_t cap);

/* An IPMB message taken out of a Get Message response. */
struct ipmb_rx {
	uint8_t channel;  /* rsp[3] & 0x0f */
	uint8_t priv;	  /* rsp[3] >> 4 (privilege level) */
	bool is_response; /* netfn is odd */
	uint8_t netfn;	  /* as on the wire (odd for a response) */
	uint8_t dest_lun; /* the LUN it was sent to (mine) */
	uint8_t dest_sa;  /* the destination address that checksum 1
				   implies (the byte itself is not in the
				   Get Message data) */
	uint8_t src_sa;	  /* sender: the responder of a response, the
				   requester of a command */
	uint8_t src_lun;
	uint8_t seq;
	uint8_t cmd;
	const uint8_t *data; /* into the caller's buffer; for a response
				   data[0] is the completion code */
	uint16_t data_len;   /* without the trailing checksum */
};

/*
 * Parse a Get Message KCS response (rsp, len bytes; see the top of this
 * file). my_sa >= 0: also require checksum 1 to match that destination
 * address; -1: accept whatever address checksum 1 implies (the stock
 * driver checks no checksum at all).
 * Returns 0, or
 *   -EPROTO   not an App Get Message response (rsp[0] >> 2 != 0x07 or
 *             rsp[1] != 0x33), or len < 3,
 *   -ENOMSG   completion code != 0 (0x80: the receive queue is empty),
 *   -EINVAL   frame too short: len < 10, or < 11 for a response,
 *   -EBADMSG  checksum 2 (or checksum 1 against my_sa) is wrong; *out is
 *             filled anyway, so the caller can log it.
 */
int ipmb_parse_get_msg(const uint8_t *rsp, size_t len, int my_sa,
		       struct ipmb_rx *out);

/* struct ipmb_user_msg: util/ipmi_msg.h */

/*
 * The response to a bridged request (handle_ipmb_get_msg_rsp): recv_type
 * IPMI_RESPONSE_RECV_TYPE, the request's address in reply form (a broadcast
 * becomes type IPMB), the request's msgid, netfn = the response's (odd),
 * cmd = the request's, data = cc + response data.
 */
void ipmb_user_response(const struct ipmi_address *req_addr, int64_t msgid,
			uint8_t req_cmd, const struct ipmb_rx *rx,
			struct ipmb_user_msg *out);

/*
 * A made-up response (deliver_err_response): the Send Message failed with
 * cc, or the retries ran out (cc IPMI_TIMEOUT_ERR 0xC3). recv_type
 * IPMI_RESPONSE_RECV_TYPE, reply-form address, netfn = req_netfn | 1, cmd,
 * data = {cc}.
 */
void ipmb_user_error(const struct ipmi_address *req_addr, int64_t msgid,
		     uint8_t req_netfn, uint8_t cmd, uint8_t cc,
		     struct ipmb_user_msg *out);

/*
 * The result of a client's IPMB *response* (odd netfn) sent with Send
 * Message: recv_type IPMI_RESPONSE_RESPONSE_TYPE, the address and msgid
 * the client used, its netfn/cmd, data = {cc of the Send Message}.
 */
void ipmb_user_send_result(const struct ipmi_address *addr, int64_t msgid,
			   uint8_t netfn, uint8_t cmd, uint8_t cc,
			   struct ipmb_user_msg *out);

/*
 * An incoming command for the user that registered (netfn, cmd, channel)
 * (handle_ipmb_get_msg_cmd): recv_type IPMI_CMD_RECV_TYPE, address
 * {IPMB, channel, requester SA, requester LUN}, msgid = the IPMB seq (the
 * client replies with that msgid), data without a cc.
 */
void ipmb_user_command(const struct ipmb_rx *rx, struct ipmb_user_msg *out);

/*
 * The reply the stock driver sends by itself when nobody registered for an
 * incoming command: a Send Message back to the requester, netfn + 1, the
 * same seq and cmd, cc 0xC1 (invalid command). my_sa = my address on
 * rx->channel; the reply's LUN fields swap those of the command. Returns
 * the request length (11) or -ENOSPC.
 */
int ipmb_build_invalid_cmd_reply(const struct ipmb_rx *rx, uint8_t my_sa,
				 uint8_t *out, size_t cap);

#endif /* KCSMUX_IPMB_H */
