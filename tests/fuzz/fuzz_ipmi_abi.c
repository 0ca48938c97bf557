// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for fused/cuse/ipmi_abi.c + fused/util/ipmi_addr.c.
 *
 * Input: byte 0 selects the area, byte 1 holds flags (bit 0: 32-bit layout /
 * compat, bit 1: SETTIME, bit 2: RECEIVE_TRUNC), the rest is the payload.
 * Besides ASan/UBSan findings, every area checks invariants (decode/encode
 * round trips, errno sets, receive rules) and traps when one breaks.
 * Seeds: tests/fuzz/corpus/ipmi_abi/, dictionary: tests/fuzz/ipmi_abi.dict.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuse/ipmi_abi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                          \
	do {                              \
		if (!(c))                 \
			__builtin_trap(); \
	} while (0)

enum { F_L32 = 1, F_SETTIME = 2, F_TRUNC = 4 };

static uint32_t rd32(const uint8_t *p, size_t n)
{
	uint32_t v = 0;

	for (size_t i = 0; i < 4 && i < n; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

/* an exact-size heap copy, so reads past n are caught */
static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
	uint8_t *d = malloc(n ? n : 1);

	if (d && n)
		memcpy(d, p, n);
	return d;
}

static void check_addr_and_request(const uint8_t *p, size_t n, uint32_t len,
				   uint8_t netfn, uint8_t cmd,
				   uint32_t data_len, const uint8_t *media)
{
	struct ipmi_address a, b;
	uint8_t enc[ABI_MAX_ADDR_LEN];
	unsigned int fl;
	uint8_t *copy;
	int rv, n_enc;

	if (len > n)
		len = (uint32_t)n;
	copy = dup_exact(p, len);
	if (!copy)
		return;
	rv = ipmi_addr_parse(copy, len, &a);
	free(copy);
	CHECK(rv == 0 || rv == -EINVAL);
	if (rv)
		return;
	CHECK(len >= ABI_MIN_ADDR_LEN && len <= ABI_MAX_ADDR_LEN);
	n_enc = ipmi_addr_encode(&a, enc, sizeof(enc));
	CHECK(n_enc > 0 && (uint32_t)n_enc == ipmi_addr_len(a.addr_type));
	CHECK((uint32_t)n_enc <= len);
	CHECK(ipmi_addr_encode(&a, enc, (size_t)n_enc - 1) == -ENOSPC);
	CHECK(ipmi_addr_parse(enc, (uint32_t)n_enc, &b) == 0);
	CHECK(a.addr_type == b.addr_type && a.channel == b.channel &&
	      a.slave_addr == b.slave_addr && a.lun == b.lun &&
	      a.privilege == b.privilege &&
	      a.session_handle == b.session_handle &&
	      a.remote_swid == b.remote_swid && a.local_swid == b.local_swid &&
	      a.rs_lun == b.rs_lun && a.rq_lun == b.rq_lun);
	ipmi_addr_reply_form(&a, &b);
	CHECK(b.addr_type != IPMI_IPMB_BROADCAST_ADDR_TYPE);

	rv = ipmi_check_request(&a, netfn, cmd, data_len, media, &fl);
	CHECK(rv == 0 || rv == -EINVAL || rv == -EMSGSIZE ||
	      rv == -EAFNOSUPPORT);
	if (a.addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE) {
		CHECK(rv == ipmi_check_si_request(netfn, cmd, a.lun, data_len));
		CHECK(!(fl & ~(unsigned int)ABI_REQF_MAINT_SI));
		if (fl)
			CHECK(ipmi_is_maint_trigger(netfn, cmd));
		if (rv == 0)
			CHECK(!(netfn & 1) && a.lun <= 3 &&
			      data_len + 2 <= ABI_MAX_MSG_LENGTH);
	} else if (rv == 0) {
		CHECK(a.lun <= 3 && data_len + 10 <= ABI_MAX_MSG_LENGTH);
		CHECK(!!(fl & ABI_REQF_RESPONSE) == (netfn & 1));
		CHECK(!!(fl & ABI_REQF_SEQ) == !(netfn & 1));
	}
}

static void fuzz_ioctl(uint8_t flags, const uint8_t *p, size_t n)
{
	bool compat = flags & F_L32;
	const struct abi_ioctl *e = abi_ioctl_lookup(rd32(p, n), compat);

	if (!e)
		return;
	CHECK(e->cmd == rd32(p, n));
	CHECK((unsigned int)e->op < ABI_OP_COUNT);
	CHECK(e->in_size <= ABI_RECV64_SIZE && e->out_size <= ABI_RECV64_SIZE);
	CHECK(e->name && abi_op_name(e->op)[0] != '?');
	if (e->layout32 && sizeof(long) == 8)
		CHECK(compat);
	if (e->op == ABI_SEND_COMMAND || e->op == ABI_SEND_COMMAND_SETTIME)
		CHECK(e->in_size ==
		      abi_req_size(e->layout32,
				   e->op == ABI_SEND_COMMAND_SETTIME));
	if (e->op == ABI_RECEIVE_MSG || e->op == ABI_RECEIVE_MSG_TRUNC)
		CHECK(e->in_size == abi_recv_size(e->layout32) &&
		      e->out_size == e->in_size);
}

/* SEND: struct, then the address bytes, then the medium table */
static void fuzz_req(uint8_t flags, const uint8_t *p, size_t n)
{
	bool l32 = flags & F_L32, st = flags & F_SETTIME;
	size_t sz = abi_req_size(l32, st);
	uint8_t out[ABI_REQ_SETTIME64_SIZE];
	struct abi_req r, r2;
	int rv;

	rv = abi_decode_req(p, n, l32, st, &r);
	CHECK(rv == (n < sz ? -EINVAL : 0));
	if (rv)
		return;
	memcpy(out, p, sz);
	CHECK(abi_encode_req(out, sz, l32, &r) == (int)sz);
	CHECK(memcmp(out, p, sz) == 0);
	CHECK(abi_decode_req(out, sz, l32, st, &r2) == 0);
	CHECK(r.msgid == r2.msgid && r.addr_ptr == r2.addr_ptr &&
	      r.data_ptr == r2.data_ptr && r.retries == r2.retries);
	if (l32)
		CHECK(r.msgid >= INT32_MIN && r.msgid <= INT32_MAX &&
		      r.addr_ptr <= UINT32_MAX && r.data_ptr <= UINT32_MAX);

	rv = abi_check_req_sizes(&r);
	CHECK(rv == 0 || rv == -EINVAL || rv == -EMSGSIZE);
	CHECK((rv == -EINVAL) == (r.addr_len > ABI_MAX_ADDR_LEN));
	CHECK(abi_req_data_len(&r) <= r.data_len);
	if (rv == -EINVAL)
		return;
	p += sz;
	n -= sz;
	check_addr_and_request(p, n, r.addr_len, r.netfn, r.cmd,
			       abi_req_data_len(&r),
			       n >= r.addr_len + (size_t)ABI_MAX_CHANNELS ?
				       p + r.addr_len :
				       NULL);
}

/* RECEIVE: struct, then the message's address length, data length */
static void fuzz_recv(uint8_t flags, const uint8_t *p, size_t n)
{
	bool l32 = flags & F_L32;
	size_t sz = abi_recv_size(l32);
	uint8_t out[ABI_RECV64_SIZE];
	struct abi_recv r;
	struct abi_recv_fit f;
	uint16_t msg_data;
	uint32_t msg_addr;
	int rv;

	rv = abi_decode_recv(p, n, l32, &r);
	CHECK(rv == (n < sz ? -EINVAL : 0));
	if (rv)
		return;
	memcpy(out, p, sz);
	CHECK(abi_encode_recv(out, sz, l32, &r) == (int)sz);
	CHECK(memcmp(out, p, sz) == 0);
	CHECK(abi_encode_recv(out, sz - 1, l32, &r) == -EINVAL);

	msg_addr = n > sz ? ipmi_addr_len((int32_t)p[sz]) : 8;
	msg_data = (uint16_t)(n > sz + 2 ? (p[sz + 1] | p[sz + 2] << 8) : 0);
	rv = abi_recv_fit(r.addr_len, msg_addr, r.data_len, msg_data,
			  flags & F_TRUNC, &f);
	CHECK(rv == f.err);
	CHECK(rv == 0 || rv == -EINVAL || rv == -EMSGSIZE);
	CHECK((rv == -EINVAL) == (r.addr_len < msg_addr));
	CHECK(f.data_len <= r.data_len && f.data_len <= msg_data);
	CHECK(f.write_data == (f.data_len > 0));
	CHECK(f.write_struct == f.consume);
	if (rv == 0)
		CHECK(f.consume && f.data_len == msg_data);
	if (rv == -EMSGSIZE)
		CHECK(f.consume == !!(flags & F_TRUNC) && f.write_addr);
	if (rv == -EINVAL)
		CHECK(!f.consume && !f.write_addr && !f.write_struct);
}

static void fuzz_small(const uint8_t *p, size_t n)
{
	struct abi_cmdspec cs;
	struct abi_timing t;
	struct abi_chan_val cv;
	uint8_t out[ABI_CMDSPEC_CHANS_SIZE];
	int32_t v;

	if (abi_decode_cmdspec(p, n, &cs) == 0)
		CHECK(cs.chans == ABI_CHAN_ALL && cs.netfn == (p[0] & 0x3f));
	if (abi_decode_cmdspec_chans(p, n, &cs) == 0)
		CHECK(cs.chans == rd32(p + 8, 4));
	if (abi_decode_timing(p, n, &t) == 0) {
		CHECK(abi_encode_timing(out, sizeof(out), &t) ==
		      ABI_TIMING_SIZE);
		CHECK(memcmp(out, p, ABI_TIMING_SIZE) == 0);
	}
	if (abi_decode_chan_val(p, n, &cv) == 0) {
		memcpy(out, p, ABI_CHAN_VAL_SIZE);
		CHECK(abi_encode_chan_val(out, sizeof(out), &cv) == 4);
		CHECK(memcmp(out, p, ABI_CHAN_VAL_SIZE) == 0);
		CHECK((abi_check_channel(cv.channel) == 0) ==
		      (cv.channel < 16));
	}
	if (abi_decode_int(p, n, &v) == 0) {
		CHECK(abi_encode_int(out, sizeof(out), v) == 4);
		CHECK(memcmp(out, p, 4) == 0);
		CHECK(abi_my_lun_value((uint32_t)v) <= 3);
		CHECK(abi_my_address_value((uint32_t)v) == p[0]);
		CHECK((abi_check_maintenance_mode(v) == 0) ==
		      (v >= 0 && v <= 2));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t sel, flags;
	uint8_t *p;
	size_t n;

	if (size < 2)
		return 0;
	sel = data[0];
	flags = data[1];
	n = size - 2;
	p = dup_exact(data + 2, n); /* exact size: over-reads are caught */
	if (!p)
		return 0;
	switch (sel % 5) {
	case 0:
		fuzz_ioctl(flags, p, n);
		break;
	case 1:
		fuzz_req(flags, p, n);
		break;
	case 2:
		fuzz_recv(flags, p, n);
		break;
	case 3: /* a bare address: length byte, then the bytes, netfn, cmd */
		if (n >= 1)
			check_addr_and_request(p + 1, n - 1, p[0],
					       n > 2 ? p[n - 2] : 0,
					       n > 1 ? p[n - 1] : 0,
					       (uint32_t)(n * 7 % 300), NULL);
		break;
	default:
		fuzz_small(p, n);
		break;
	}
	free(p);
	return 0;
}
