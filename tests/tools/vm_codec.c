/* SPDX-License-Identifier: MIT */
/* Incremental VM-codec frame splitter; see vm_codec.h for the format. */
#include "vm_codec.h"

#include <string.h>

void vm_parser_init(struct vm_parser *p)
{
	memset(p, 0, sizeof(*p));
}

static void start_frame(struct vm_parser *p)
{
	p->raw_len = 0;
	p->data_len = 0;
	p->in_escape = false;
	p->truncated = false;
	p->frame_done = false;
	p->last_bad_escape = false;
}

void vm_parser_reset(struct vm_parser *p)
{
	start_frame(p);
}

bool vm_parser_mid_frame(const struct vm_parser *p)
{
	return !p->frame_done && p->raw_len > 0;
}

static void keep_raw(struct vm_parser *p, uint8_t b)
{
	if (p->raw_len < VM_RAW_MAX)
		p->raw[p->raw_len++] = b;
	else
		p->truncated = true;
}

static void keep_data(struct vm_parser *p, uint8_t b)
{
	if (p->data_len < VM_DATA_MAX)
		p->data[p->data_len++] = b;
	else
		p->truncated = true;
}

bool vm_parser_next(struct vm_parser *p, const uint8_t *buf, size_t len,
		    size_t *consumed, struct vm_frame *out)
{
	size_t i;

	if (p->frame_done)
		start_frame(p);

	for (i = 0; i < len; i++) {
		uint8_t b = buf[i];

		keep_raw(p, b);
		if (b == VM_MSG_END || b == VM_CMD_END) {
			p->last_bad_escape = p->in_escape;
			p->in_escape = false;
			p->frame_done = true;
			p->bytes_in += i + 1;
			*consumed = i + 1;
			out->kind =
				b == VM_MSG_END ? VM_FRAME_MSG : VM_FRAME_CMD;
			out->raw = p->raw;
			out->raw_len = p->raw_len;
			out->data = p->data;
			out->data_len = p->data_len;
			out->truncated = p->truncated;
			out->bad_escape = p->last_bad_escape;
			return true;
		}
		if (b == VM_ESCAPE) {
			/* A second escape keeps the escape pending, as both
			 * QEMU and OpenIPMI do. */
			p->in_escape = true;
			continue;
		}
		if (p->in_escape) {
			b &= (uint8_t)~VM_ESCAPE_BIT;
			p->in_escape = false;
		}
		keep_data(p, b);
	}
	p->bytes_in += len;
	*consumed = len;
	return false;
}

uint8_t vm_checksum(const uint8_t *data, size_t len)
{
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + data[i]);
	return (uint8_t)-sum;
}

static bool needs_escape(uint8_t b)
{
	return b == VM_MSG_END || b == VM_CMD_END || b == VM_ESCAPE;
}

size_t vm_encode(enum vm_frame_kind kind, const uint8_t *data, size_t len,
		 uint8_t *out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		if (needs_escape(data[i])) {
			if (n + 2 > cap)
				return 0;
			out[n++] = VM_ESCAPE;
			out[n++] = (uint8_t)(data[i] | VM_ESCAPE_BIT);
		} else {
			if (n + 1 > cap)
				return 0;
			out[n++] = data[i];
		}
	}
	if (n + 1 > cap)
		return 0;
	out[n++] = kind == VM_FRAME_MSG ? VM_MSG_END : VM_CMD_END;
	return n;
}

size_t vm_encode_msg(uint8_t seq, uint8_t netfn, uint8_t lun, uint8_t cmd,
		     const uint8_t *payload, size_t payload_len, uint8_t *out,
		     size_t cap)
{
	uint8_t buf[VM_DATA_MAX];
	size_t n = 0;

	if (payload_len + 4 > sizeof(buf))
		return 0;
	buf[n++] = seq;
	buf[n++] = (uint8_t)((netfn & 0x3Fu) << 2 | (lun & 3u));
	buf[n++] = cmd;
	if (payload_len)
		memcpy(buf + n, payload, payload_len);
	n += payload_len;
	buf[n] = vm_checksum(buf, n);
	n++;
	return vm_encode(VM_FRAME_MSG, buf, n, out, cap);
}

bool vm_msg_parse(const uint8_t *data, size_t len, struct vm_msg_info *info)
{
	uint8_t sum = 0;

	if (len < 4)
		return false;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + data[i]);
	info->seq = data[0];
	info->netfn = data[1] >> 2;
	info->lun = data[1] & 3u;
	info->cmd = data[2];
	info->checksum_ok = sum == 0;
	info->payload_len = len - 4;
	return true;
}
