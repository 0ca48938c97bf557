// SPDX-License-Identifier: GPL-2.0
/*
 * ipmi_addr - IPMI address parsing/encoding and the message handler's
 * per-address-type request checks. See ipmi_msg.h. Pure logic.
 */
#include "util/ipmi_msg.h"
#include "util/le.h"

#include <errno.h>
#include <string.h>

#include <linux/ipmi_msgdefs.h>

/* ------------------------------------------------------------------ */
/* addresses: type @0 (int), channel @4 (short), type-specific bytes @6.. */

uint32_t ipmi_addr_len(int32_t addr_type)
{
	switch (addr_type) {
	case IPMI_SYSTEM_INTERFACE_ADDR_TYPE:
	case IPMI_IPMB_ADDR_TYPE:
	case IPMI_IPMB_BROADCAST_ADDR_TYPE:
		return 8;
	case IPMI_LAN_ADDR_TYPE:
	case IPMI_IPMB_DIRECT_ADDR_TYPE:
		return 12;
	default:
		return 0;
	}
}

int ipmi_addr_parse(const void *bytes, uint32_t addr_len,
		    struct ipmi_address *out)
{
	const uint8_t *p = bytes;
	uint32_t need;

	if (!bytes || addr_len < ABI_MIN_ADDR_LEN ||
	    addr_len > ABI_MAX_ADDR_LEN)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->addr_type = s32(ld32(p));
	out->channel = s16(ld16(p + 4));

	if (out->addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE) {
		if (out->channel != IPMI_BMC_CHANNEL)
			return -EINVAL;
		out->lun = p[6];
		return 0;
	}
	if (out->channel == IPMI_BMC_CHANNEL || out->channel < 0 ||
	    out->channel >= ABI_MAX_CHANNELS)
		return -EINVAL;
	need = ipmi_addr_len(out->addr_type);
	if (need == 0 || addr_len < need)
		return -EINVAL;

	switch (out->addr_type) {
	case IPMI_IPMB_ADDR_TYPE:
	case IPMI_IPMB_BROADCAST_ADDR_TYPE:
		out->slave_addr = p[6];
		out->lun = p[7];
		return 0;
	case IPMI_LAN_ADDR_TYPE:
		out->privilege = p[6];
		out->session_handle = p[7];
		out->remote_swid = p[8];
		out->local_swid = p[9];
		out->lun = p[10];
		return 0;
	default: /* IPMB direct */
		out->slave_addr = p[6];
		out->rs_lun = p[7];
		out->rq_lun = p[8];
		if (out->channel != 0 || (out->slave_addr & 1) ||
		    out->rs_lun > 3 || out->rq_lun > 3)
			return -EINVAL;
		return 0;
	}
}

int ipmi_addr_encode(const struct ipmi_address *addr, void *buf, size_t bufsize)
{
	uint32_t n = ipmi_addr_len(addr->addr_type);
	uint8_t *p = buf;

	if (n == 0)
		return -EINVAL;
	if (!buf || bufsize < n)
		return -ENOSPC;
	memset(p, 0, n);
	st32(p, (uint32_t)addr->addr_type);
	st16(p + 4, (uint16_t)addr->channel);
	switch (addr->addr_type) {
	case IPMI_SYSTEM_INTERFACE_ADDR_TYPE:
		p[6] = addr->lun;
		break;
	case IPMI_LAN_ADDR_TYPE:
		p[6] = addr->privilege;
		p[7] = addr->session_handle;
		p[8] = addr->remote_swid;
		p[9] = addr->local_swid;
		p[10] = addr->lun;
		break;
	case IPMI_IPMB_DIRECT_ADDR_TYPE:
		p[6] = addr->slave_addr;
		p[7] = addr->rs_lun;
		p[8] = addr->rq_lun;
		break;
	default: /* IPMB, broadcast */
		p[6] = addr->slave_addr;
		p[7] = addr->lun;
		break;
	}
	return (int)n;
}

void ipmi_addr_reply_form(const struct ipmi_address *req,
			  struct ipmi_address *out)
{
	*out = *req;
	if (out->addr_type == IPMI_IPMB_BROADCAST_ADDR_TYPE)
		out->addr_type = IPMI_IPMB_ADDR_TYPE;
}

/* ------------------------------------------------------------------ */
/* request checks */

bool ipmi_is_maint_trigger(uint8_t netfn, uint8_t cmd)
{
	if (netfn == IPMI_NETFN_FIRMWARE_REQUEST)
		return true;
	return netfn == IPMI_NETFN_APP_REQUEST &&
	       (cmd == IPMI_COLD_RESET_CMD || cmd == IPMI_WARM_RESET_CMD);
}

/* the -EINVAL part of the system-interface checks */
static int si_invalid(uint8_t netfn, uint8_t cmd, uint8_t lun)
{
	if (netfn & 1) /* responses may not go to the BMC */
		return -EINVAL;
	if (lun > 3)
		return -EINVAL;
	if (netfn == IPMI_NETFN_APP_REQUEST &&
	    (cmd == IPMI_SEND_MSG_CMD || cmd == IPMI_GET_MSG_CMD ||
	     cmd == IPMI_READ_EVENT_MSG_BUFFER_CMD))
		return -EINVAL;
	return 0;
}

int ipmi_check_si_request(uint8_t netfn, uint8_t cmd, uint8_t lun,
			  uint32_t data_len)
{
	int rv = si_invalid(netfn, cmd, lun);

	if (rv)
		return rv;
	if (data_len + 2 > ABI_MAX_MSG_LENGTH)
		return -EMSGSIZE;
	return 0;
}

static bool medium_ok(const uint8_t *media, int16_t channel, bool lan)
{
	uint8_t m;

	if (!media)
		return true;
	m = media[channel];
	if (lan)
		return m == IPMI_CHANNEL_MEDIUM_8023LAN ||
		       m == IPMI_CHANNEL_MEDIUM_ASYNC;
	return m == IPMI_CHANNEL_MEDIUM_IPMB;
}

/* IPMB (bcast 0/1) and LAN: header + checksum bytes the wrapper adds */
static int bridged(const struct ipmi_address *a, uint8_t netfn, uint8_t cmd,
		   uint32_t data_len, const uint8_t *media, bool lan,
		   unsigned int *fl)
{
	bool bcast = a->addr_type == IPMI_IPMB_BROADCAST_ADDR_TYPE;
	uint32_t overhead = lan ? 12 : 10 + (bcast ? 1 : 0);

	if (bcast)
		*fl |= ABI_REQF_BROADCAST;
	if (a->channel < 0 || a->channel >= ABI_MAX_CHANNELS)
		return -EINVAL;
	if (!medium_ok(media, a->channel, lan))
		return -EINVAL;
	if (data_len + overhead > ABI_MAX_MSG_LENGTH)
		return -EMSGSIZE;
	if (a->lun > 3)
		return -EINVAL;
	if (netfn & 1) {
		*fl |= ABI_REQF_RESPONSE;
	} else {
		*fl |= ABI_REQF_SEQ;
		if (!lan && ipmi_is_maint_trigger(netfn, cmd))
			*fl |= ABI_REQF_MAINT_IPMB;
	}
	return 0;
}

int ipmi_check_request(const struct ipmi_address *addr, uint8_t netfn,
		       uint8_t cmd, uint32_t data_len, const uint8_t *media,
		       unsigned int *flags)
{
	unsigned int fl = 0;
	int rv;

	switch (addr->addr_type) {
	case IPMI_SYSTEM_INTERFACE_ADDR_TYPE:
		rv = si_invalid(netfn, cmd, addr->lun);
		if (rv)
			break;
		if (ipmi_is_maint_trigger(netfn, cmd))
			fl |= ABI_REQF_MAINT_SI;
		rv = ipmi_check_si_request(netfn, cmd, addr->lun, data_len);
		break;
	case IPMI_IPMB_ADDR_TYPE:
	case IPMI_IPMB_BROADCAST_ADDR_TYPE:
		rv = bridged(addr, netfn, cmd, data_len, media, false, &fl);
		break;
	case IPMI_LAN_ADDR_TYPE:
		rv = bridged(addr, netfn, cmd, data_len, media, true, &fl);
		break;
	case IPMI_IPMB_DIRECT_ADDR_TYPE:
		rv = -EAFNOSUPPORT;
		break;
	default:
		rv = -EINVAL;
		break;
	}
	if (flags)
		*flags = fl;
	return rv;
}

void ipmi_effective_timing(int32_t retries, uint32_t retry_time_ms,
			   bool broadcast, bool ipmb_maint,
			   int32_t *out_retries, uint32_t *out_ms)
{
	if (broadcast)
		retries = 0;
	if (ipmb_maint && retry_time_ms == 0)
		retry_time_ms = ABI_MAINT_RETRY_MS;
	if (retry_time_ms == 0)
		retry_time_ms = ABI_DEFAULT_RETRY_MS;
	if (retries < 0)
		retries = ABI_DEFAULT_RETRIES;
	*out_retries = retries;
	*out_ms = retry_time_ms;
}
