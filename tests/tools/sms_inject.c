/* SPDX-License-Identifier: MIT */
/* Faked BMC side of SMS_ATN for kcsmux-bmc-proxy; see sms_inject.h. */
#include "sms_inject.h"

#include <errno.h>
#include <string.h>

void sms_inject_init(struct sms_inject *s)
{
	memset(s, 0, sizeof(*s));
}

int sms_inject_event(struct sms_inject *s, const uint8_t *ev)
{
	unsigned int tail;

	if (s->ev_count >= SMS_QUEUE_MAX)
		return -ENOSPC;
	tail = (s->ev_head + s->ev_count) % SMS_QUEUE_MAX;
	memcpy(s->events[tail], ev, SMS_EVENT_LEN);
	s->ev_count++;
	return 0;
}

int sms_inject_msg(struct sms_inject *s, const uint8_t *data, size_t len)
{
	struct sms_msg *m;

	if (len == 0 || len > SMS_MSG_MAX)
		return -EINVAL;
	if (s->msg_count >= SMS_QUEUE_MAX)
		return -ENOSPC;
	m = &s->msgs[(s->msg_head + s->msg_count) % SMS_QUEUE_MAX];
	memcpy(m->data, data, len);
	m->len = (uint16_t)len;
	s->msg_count++;
	return 0;
}

unsigned int sms_inject_clear(struct sms_inject *s, uint8_t mask)
{
	unsigned int n = 0;

	if (mask & SMS_FLAG_EVT_BUF_FULL) {
		n += s->ev_count;
		s->ev_head = s->ev_count = 0;
	}
	if (mask & SMS_FLAG_RECV_MSG) {
		n += s->msg_count;
		s->msg_head = s->msg_count = 0;
	}
	return n;
}

uint8_t sms_inject_flags(const struct sms_inject *s)
{
	return (uint8_t)((s->msg_count ? SMS_FLAG_RECV_MSG : 0) |
			 (s->ev_count ? SMS_FLAG_EVT_BUF_FULL : 0));
}

uint8_t sms_inject_attn_cmd(const struct sms_inject *s)
{
	if (!s->enables_known)
		return VM_CMD_ATTN_IRQ;
	if ((s->msg_count && (s->enables & SMS_GE_RECV_MSG_INT)) ||
	    (s->ev_count && (s->enables & SMS_GE_EVT_BUF_INT)))
		return VM_CMD_ATTN_IRQ;
	return VM_CMD_ATTN;
}

/* Encode the response to the request whose header is mi. */
static void reply(struct sms_reply *r, const struct vm_msg_info *mi, uint8_t cc,
		  const uint8_t *data, size_t len)
{
	uint8_t payload[1 + SMS_MSG_MAX];

	payload[0] = cc;
	if (len)
		memcpy(payload + 1, data, len);
	r->cmd = mi->cmd;
	r->cc = cc;
	r->len = vm_encode_msg(mi->seq, (uint8_t)(mi->netfn | 1u), mi->lun,
			       mi->cmd, payload, len + 1, r->wire,
			       sizeof(r->wire));
}

bool sms_inject_request(struct sms_inject *s, const uint8_t *req, size_t len,
			struct sms_reply *r)
{
	struct vm_msg_info mi;
	const uint8_t *data = req + 3;

	if (!vm_msg_parse(req, len, &mi) || mi.netfn != SMS_NETFN_APP)
		return false;
	switch (mi.cmd) {
	case SMS_CMD_SET_GLOBAL_ENABLES:
		if (mi.payload_len >= 1) {
			s->enables = data[0];
			s->enables_known = true;
		}
		return false;
	case SMS_CMD_CLEAR_MSG_FLAGS:
		if (mi.payload_len >= 1)
			sms_inject_clear(s, data[0]);
		return false;
	case SMS_CMD_GET_MSG_FLAGS: {
		uint8_t flags = sms_inject_flags(s);

		if (!flags)
			return false;
		reply(r, &mi, 0, &flags, 1);
		r->flags = flags;
		return true;
	}
	case SMS_CMD_READ_EVENT_BUF:
		if (!s->ev_count)
			return false;
		reply(r, &mi, 0, s->events[s->ev_head], SMS_EVENT_LEN);
		s->ev_head = (s->ev_head + 1) % SMS_QUEUE_MAX;
		s->ev_count--;
		return true;
	case SMS_CMD_GET_MSG: {
		const struct sms_msg *m = &s->msgs[s->msg_head];

		if (!s->msg_count)
			return false;
		reply(r, &mi, 0, m->data, m->len);
		s->msg_head = (s->msg_head + 1) % SMS_QUEUE_MAX;
		s->msg_count--;
		return true;
	}
	default:
		return false;
	}
}

void sms_inject_bmc_response(struct sms_inject *s, const uint8_t *rsp,
			     size_t len)
{
	struct vm_msg_info mi;

	/* seq, netfn/lun, cmd, cc, enables, checksum */
	if (!vm_msg_parse(rsp, len, &mi) || !mi.checksum_ok ||
	    mi.netfn != (SMS_NETFN_APP | 1u) ||
	    mi.cmd != SMS_CMD_GET_GLOBAL_ENABLES || mi.payload_len < 2 ||
	    rsp[3] != 0)
		return;
	s->enables = rsp[4];
	s->enables_known = true;
}

static uint8_t sum(const uint8_t *d, size_t n)
{
	uint8_t x = 0;

	while (n--)
		x = (uint8_t)(x + *d++);
	return x;
}

size_t sms_ipmb_request(const struct sms_ipmb_req *r, uint8_t *out, size_t cap)
{
	uint8_t hdr[2];
	size_t n = 0;

	if (r->data_len > cap || cap - r->data_len < 7 ||
	    (r->data_len && !r->data))
		return 0;
	hdr[0] = r->rs_sa;
	hdr[1] = (uint8_t)((r->netfn & 0x3Fu) << 2 | (r->rs_lun & 3u));
	out[n++] = r->channel;
	out[n++] = hdr[1];
	out[n++] = (uint8_t)-sum(hdr, 2);
	out[n++] = r->rq_sa;
	out[n++] = (uint8_t)((r->rq_seq & 0x3Fu) << 2 | (r->rq_lun & 3u));
	out[n++] = r->cmd;
	if (r->data_len)
		memcpy(out + n, r->data, r->data_len);
	n += r->data_len;
	/* chk2 covers rqSA (out[3]) through the last data byte */
	out[n] = (uint8_t)-sum(out + 3, n - 3);
	return n + 1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int sms_hex_append(const char *s, uint8_t *out, size_t cap, size_t *len)
{
	size_t n = *len, digits;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	digits = strlen(s);
	if (digits == 0 || digits % 2)
		return -EINVAL;
	for (size_t i = 0; i < digits; i++)
		if (hexval(s[i]) < 0)
			return -EINVAL;
	if (n > cap || digits / 2 > cap - n)
		return -ENOSPC;
	for (size_t i = 0; i < digits; i += 2)
		out[n++] = (uint8_t)(hexval(s[i]) << 4 | hexval(s[i + 1]));
	*len = n;
	return 0;
}
