// SPDX-License-Identifier: GPL-2.0
/*
 * ipmb - IPMB bridging message formats: Send Message framing, Get Message
 * parsing and the client-visible messages. See ipmb.h. Pure logic.
 */
#include "core/ipmb.h"

#include <errno.h>
#include <string.h>

#include <linux/ipmi.h>
#include <linux/ipmi_msgdefs.h>

uint8_t ipmb_checksum(const uint8_t *p, size_t n)
{
	uint8_t sum = 0;

	while (n--)
		sum = (uint8_t)(sum + *p++);
	return (uint8_t)-sum;
}

/* Send Message's own header (netfn, cmd, channel) in a request of LEN
 * bytes, once LEN is known to fit. */
static int send_msg_start(uint8_t *out, size_t cap, size_t len, uint8_t channel)
{
	if (len > ABI_MAX_MSG_LENGTH)
		return -EMSGSIZE;
	if (!out || cap < len)
		return -ENOSPC;
	out[0] = IPMI_NETFN_APP_REQUEST << 2;
	out[1] = IPMI_SEND_MSG_CMD;
	out[2] = channel; /* no tracking bits */
	return 0;
}

/* The requester's half of a frame at P: its address, seq/LUN, the
 * command, the data and the checksum over all of them. */
static void put_requester(uint8_t *p, uint8_t sa, uint8_t seq, uint8_t lun,
			  uint8_t cmd, const uint8_t *data, uint16_t data_len)
{
	p[0] = sa;
	p[1] = (uint8_t)((seq & IPMB_SEQ_MASK) << 2 | (lun & 3));
	p[2] = cmd;
	if (data_len)
		memcpy(p + 3, data, data_len);
	p[3 + data_len] = ipmb_checksum(p, 3 + (size_t)data_len);
}

int ipmb_build_send_msg(const struct ipmb_tx *tx, uint8_t *out, size_t cap)
{
	size_t b = tx->broadcast ? 1 : 0;
	size_t len = (size_t)tx->data_len + IPMB_SEND_OVERHEAD + b;
	uint8_t *f; /* the IPMB frame, after the optional broadcast byte */
	int rv;

	if (tx->channel >= ABI_MAX_CHANNELS || (tx->data_len && !tx->data))
		return -EINVAL;
	rv = send_msg_start(out, cap, len, tx->channel);
	if (rv)
		return rv;
	if (b)
		out[3] = 0x00;
	f = out + 3 + b;
	f[0] = tx->dest_sa;
	f[1] = (uint8_t)(tx->netfn << 2 | (tx->dest_lun & 3));
	f[2] = ipmb_checksum(f, 2);
	put_requester(f + 3, tx->src_sa, tx->seq, tx->src_lun, tx->cmd,
		      tx->data, tx->data_len);
	return (int)len;
}

int ipmb_build_lan(const struct ipmi_request *rq, uint8_t my_lun, uint8_t seq,
		   uint8_t *out, size_t cap)
{
	const struct ipmi_address *addr = &rq->addr;
	size_t len = (size_t)rq->len + IPMB_SEND_OVERHEAD + 1;
	int rv;

	if (addr->addr_type != IPMI_LAN_ADDR_TYPE || addr->channel < 0 ||
	    addr->channel >= ABI_MAX_CHANNELS || (rq->len && !rq->data))
		return -EINVAL;
	rv = send_msg_start(out, cap, len, (uint8_t)addr->channel);
	if (rv)
		return rv;
	out[3] = addr->session_handle;
	out[4] = addr->remote_swid;
	out[5] = (uint8_t)(rq->netfn << 2 | (addr->lun & 3));
	out[6] = ipmb_checksum(out + 4, 2);
	put_requester(out + 7, addr->local_swid, seq, my_lun, rq->cmd, rq->data,
		      rq->len);
	return (int)len;
}

int ipmb_build_from_addr(const struct ipmi_request *rq, uint8_t my_sa,
			 uint8_t my_lun, uint8_t seq, uint8_t *out, size_t cap)
{
	const struct ipmi_address *addr = &rq->addr;
	struct ipmb_tx tx;

	if (addr->addr_type == IPMI_LAN_ADDR_TYPE)
		return ipmb_build_lan(rq, my_lun, seq, out, cap);
	if (addr->addr_type != IPMI_IPMB_ADDR_TYPE &&
	    addr->addr_type != IPMI_IPMB_BROADCAST_ADDR_TYPE)
		return -EINVAL;
	if (addr->channel < 0 || addr->channel >= ABI_MAX_CHANNELS ||
	    addr->lun > 3)
		return -EINVAL;
	tx = (struct ipmb_tx){
		.channel = (uint8_t)addr->channel,
		.broadcast = addr->addr_type == IPMI_IPMB_BROADCAST_ADDR_TYPE,
		.dest_sa = addr->slave_addr,
		.dest_lun = addr->lun,
		.netfn = rq->netfn,
		.cmd = rq->cmd,
		.src_sa = my_sa,
		.src_lun = my_lun,
		.seq = seq,
		.data = rq->data,
		.data_len = rq->len,
	};
	return ipmb_build_send_msg(&tx, out, cap);
}

int ipmb_parse_get_msg(const uint8_t *rsp, size_t len, int my_sa,
		       struct ipmb_rx *out)
{
	bool bad;

	if (len < 3 || (rsp[0] >> 2) != IPMI_NETFN_APP_RESPONSE ||
	    rsp[1] != IPMI_GET_MSG_CMD)
		return -EPROTO;
	if (rsp[2] != 0)
		return -ENOMSG;
	if (len < IPMB_MIN_GET_CMD)
		return -EINVAL;
	if ((rsp[4] & 0x04) && len < IPMB_MIN_GET_RSP)
		return -EINVAL;
	if (len > ABI_MAX_MSG_LENGTH)
		len = ABI_MAX_MSG_LENGTH; /* cannot come from KCS */

	memset(out, 0, sizeof(*out));
	out->channel = rsp[3] & 0x0f;
	out->priv = rsp[3] >> 4;
	out->netfn = rsp[4] >> 2;
	out->is_response = out->netfn & 1;
	out->dest_lun = rsp[4] & 3;
	/* checksum 1 = -(dest SA + rsp[4]), so dest SA = -(rsp[4] + rsp[5]) */
	out->dest_sa = ipmb_checksum(rsp + 4, 2);
	out->src_sa = rsp[6];
	out->seq = rsp[7] >> 2;
	out->src_lun = rsp[7] & 3;
	out->cmd = rsp[8];
	out->data = rsp + 9;
	out->data_len = (uint16_t)(len - 10);

	bad = ipmb_checksum(rsp + 6, len - 6) != 0;
	if (my_sa >= 0 && out->dest_sa != (uint8_t)my_sa)
		bad = true;
	return bad ? -EBADMSG : 0;
}

/* *out's header: a message of TYPE from ADDR, msgid, netfn and cmd. */
static void user_msg(struct ipmb_user_msg *out, int32_t type,
		     const struct ipmi_address *addr, int64_t msgid,
		     uint8_t netfn, uint8_t cmd)
{
	memset(out, 0, offsetof(struct ipmb_user_msg, data));
	out->recv_type = type;
	out->addr = *addr;
	out->msgid = msgid;
	out->netfn = netfn;
	out->cmd = cmd;
}

/* *out's data (at most ABI_MAX_MSG_LENGTH bytes kept). */
static void user_msg_data(struct ipmb_user_msg *out, const uint8_t *data,
			  uint16_t len)
{
	if (len > ABI_MAX_MSG_LENGTH)
		len = ABI_MAX_MSG_LENGTH;
	out->data_len = len;
	if (len)
		memcpy(out->data, data, len);
}

void ipmb_user_response(const struct ipmi_address *req_addr, int64_t msgid,
			uint8_t req_cmd, const struct ipmb_rx *rx,
			struct ipmb_user_msg *out)
{
	struct ipmi_address a;

	ipmi_addr_reply_form(req_addr, &a);
	user_msg(out, IPMI_RESPONSE_RECV_TYPE, &a, msgid, rx->netfn, req_cmd);
	user_msg_data(out, rx->data, rx->data_len);
}

void ipmb_user_error(const struct ipmi_address *req_addr, int64_t msgid,
		     uint8_t req_netfn, uint8_t cmd, uint8_t cc,
		     struct ipmb_user_msg *out)
{
	struct ipmi_address a;

	ipmi_addr_reply_form(req_addr, &a);
	user_msg(out, IPMI_RESPONSE_RECV_TYPE, &a, msgid, req_netfn | 1, cmd);
	user_msg_data(out, &cc, 1);
}

void ipmb_user_send_result(const struct ipmi_address *addr, int64_t msgid,
			   uint8_t netfn, uint8_t cmd, uint8_t cc,
			   struct ipmb_user_msg *out)
{
	struct ipmi_address a;

	ipmi_addr_reply_form(addr, &a);
	user_msg(out, IPMI_RESPONSE_RESPONSE_TYPE, &a, msgid, netfn, cmd);
	user_msg_data(out, &cc, 1);
}

void ipmb_user_command(const struct ipmb_rx *rx, struct ipmb_user_msg *out)
{
	struct ipmi_address a = {
		.addr_type = IPMI_IPMB_ADDR_TYPE,
		.channel = rx->channel,
		.slave_addr = rx->src_sa,
		.lun = rx->src_lun,
	};

	user_msg(out, IPMI_CMD_RECV_TYPE, &a, rx->seq, rx->netfn, rx->cmd);
	user_msg_data(out, rx->data, rx->data_len);
}

int ipmb_build_invalid_cmd_reply(const struct ipmb_rx *rx, uint8_t my_sa,
				 uint8_t *out, size_t cap)
{
	static const uint8_t cc = IPMI_INVALID_CMD_COMPLETION_CODE;
	struct ipmb_tx tx = {
		.channel = rx->channel,
		.dest_sa = rx->src_sa,
		.dest_lun = rx->src_lun,
		.netfn = (uint8_t)(rx->netfn + 1),
		.cmd = rx->cmd,
		.src_sa = my_sa,
		.src_lun = rx->dest_lun,
		.seq = rx->seq,
		.data = &cc,
		.data_len = 1,
	};

	return ipmb_build_send_msg(&tx, out, cap);
}
