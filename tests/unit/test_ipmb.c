// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/core/ipmb.c: Send Message framing against hand-computed
 * vectors, Get Message parsing (short frames, checksums, cc), and the
 * client-visible messages.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ipmi.h>
#include <linux/ipmi_msgdefs.h>

#include "core/ipmb.h"
#include "util/array.h"

/* The framers with the request's fields as arguments. */
static struct ipmi_request mkreq(const struct ipmi_address *addr, uint8_t netfn,
				 uint8_t cmd, const uint8_t *data,
				 uint16_t data_len)
{
	return (struct ipmi_request){ .addr = *addr,
				      .netfn = netfn,
				      .cmd = cmd,
				      .data = data,
				      .len = data_len };
}

static int build_from_addr(const struct ipmi_address *addr, uint8_t netfn,
			   uint8_t cmd, const uint8_t *data, uint16_t data_len,
			   uint8_t my_sa, uint8_t my_lun, uint8_t seq,
			   uint8_t *out, size_t cap)
{
	struct ipmi_request rq = mkreq(addr, netfn, cmd, data, data_len);

	return ipmb_build_from_addr(&rq, my_sa, my_lun, seq, out, cap);
}

static int build_lan(const struct ipmi_address *addr, uint8_t netfn,
		     uint8_t cmd, const uint8_t *data, uint16_t data_len,
		     uint8_t my_lun, uint8_t seq, uint8_t *out, size_t cap)
{
	struct ipmi_request rq = mkreq(addr, netfn, cmd, data, data_len);

	return ipmb_build_lan(&rq, my_lun, seq, out, cap);
}

static void assert_bytes(const uint8_t *got, int got_len, const uint8_t *want,
			 size_t want_len)
{
	ck_assert_int_eq(got_len, (int)want_len);
	for (size_t i = 0; i < want_len; i++)
		ck_assert_msg(got[i] == want[i],
			      "byte %zu: 0x%02x, want 0x%02x", i, got[i],
			      want[i]);
}

static struct ipmi_address ipmb_addr(int32_t type, int16_t chan, uint8_t sa,
				     uint8_t lun)
{
	return (struct ipmi_address){
		.addr_type = type, .channel = chan, .slave_addr = sa, .lun = lun
	};
}

/* Get Device ID to 0x82 on channel 0, seq 5, from 0x20 LUN 2 */
static const uint8_t v_getdevid[] = {
	0x18, 0x34, 0x00, 0x82, 0x18, 0x66, 0x20, 0x16, 0x01, 0xc9,
};
/* the same as a broadcast with data {1, 2}, seq 0 */
static const uint8_t v_bcast[] = {
	0x18, 0x34, 0x00, 0x00, 0x82, 0x18, 0x66,
	0x20, 0x02, 0x01, 0x01, 0x02, 0xda,
};
/* storage 0x0a cmd 0x10 data {0} to 0x72 LUN 1 on channel 7, seq 63 */
static const uint8_t v_storage[] = {
	0x18, 0x34, 0x07, 0x72, 0x29, 0x65, 0x20, 0xfe, 0x10, 0x00, 0xd2,
};
/* Get Message: 0x82 answers v_getdevid (cc 0, data 20 01 00) */
static const uint8_t v_rsp[] = {
	0x1c, 0x33, 0x00, 0x00, 0x1e, 0xc2, 0x82,
	0x14, 0x01, 0x00, 0x20, 0x01, 0x00, 0x48,
};
/* Get Message: 0x40 LUN 0 sends netfn 0x2e cmd 5 seq 9 data DE AD to our
 * LUN 2, channel 0, privilege 4 */
static const uint8_t v_cmd[] = {
	0x1c, 0x33, 0x00, 0x40, 0xba, 0x26, 0x40, 0x24, 0x05, 0xde, 0xad, 0x0c,
};
/* the driver's own answer to v_cmd: netfn 0x2f, cc 0xC1 */
static const uint8_t v_cmd_reply[] = {
	0x18, 0x34, 0x00, 0x40, 0xbc, 0x04, 0x20, 0x26, 0x05, 0xc1, 0xf4,
};

START_TEST(test_checksum)
{
	static const uint8_t a[] = { 0x82, 0x18 };
	static const uint8_t b[] = { 0x20, 0x16, 0x01 };

	ck_assert_uint_eq(ipmb_checksum(NULL, 0), 0);
	ck_assert_uint_eq(ipmb_checksum(a, 2), 0x66);
	ck_assert_uint_eq(ipmb_checksum(b, 3), 0xc9);
	ck_assert_uint_eq(ipmb_checksum(v_rsp + 6, sizeof(v_rsp) - 6), 0);
}
END_TEST

START_TEST(test_build_vectors)
{
	static const uint8_t d12[] = { 1, 2 };
	static const uint8_t d0[] = { 0 };
	uint8_t out[ABI_MAX_MSG_LENGTH];
	struct ipmb_tx tx = {
		.channel = 0,
		.dest_sa = 0x82,
		.dest_lun = 0,
		.netfn = 6,
		.cmd = 1,
		.src_sa = 0x20,
		.src_lun = 2,
		.seq = 5,
	};

	assert_bytes(out, ipmb_build_send_msg(&tx, out, sizeof(out)),
		     v_getdevid, sizeof(v_getdevid));
	tx.broadcast = true;
	tx.seq = 0;
	tx.data = d12;
	tx.data_len = 2;
	assert_bytes(out, ipmb_build_send_msg(&tx, out, sizeof(out)), v_bcast,
		     sizeof(v_bcast));
	tx = (struct ipmb_tx){ .channel = 7,
			       .dest_sa = 0x72,
			       .dest_lun = 1,
			       .netfn = 0x0a,
			       .cmd = 0x10,
			       .src_sa = 0x20,
			       .src_lun = 2,
			       .seq = 63,
			       .data = d0,
			       .data_len = 1 };
	assert_bytes(out, ipmb_build_send_msg(&tx, out, sizeof(out)), v_storage,
		     sizeof(v_storage));
	/* seq and LUNs are masked, never spill into other bits */
	tx.seq = 63 | 0x40;
	tx.src_lun = 2 | 0x4;
	tx.dest_lun = 1 | 0x8;
	assert_bytes(out, ipmb_build_send_msg(&tx, out, sizeof(out)), v_storage,
		     sizeof(v_storage));
}
END_TEST

START_TEST(test_build_from_addr)
{
	static const uint8_t d12[] = { 1, 2 };
	uint8_t out[ABI_MAX_MSG_LENGTH];
	struct ipmi_address a = ipmb_addr(IPMI_IPMB_ADDR_TYPE, 0, 0x82, 0);
	struct ipmi_address si = { .addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
				   .channel = IPMI_BMC_CHANNEL };
	int n;

	n = build_from_addr(&a, 6, 1, NULL, 0, 0x20, 2, 5, out, sizeof(out));
	assert_bytes(out, n, v_getdevid, sizeof(v_getdevid));
	a.addr_type = IPMI_IPMB_BROADCAST_ADDR_TYPE;
	n = build_from_addr(&a, 6, 1, d12, 2, 0x20, 2, 0, out, sizeof(out));
	assert_bytes(out, n, v_bcast, sizeof(v_bcast));
	/* the channel byte carries no tracking bit 0x40 */
	ck_assert_uint_eq(out[2] & 0xc0, 0);

	ck_assert_int_eq(build_from_addr(&si, 6, 1, NULL, 0, 0x20, 2, 0, out,
					 sizeof(out)),
			 -EINVAL);
	a = ipmb_addr(IPMI_IPMB_ADDR_TYPE, 0, 0x82, 4);
	ck_assert_int_eq(build_from_addr(&a, 6, 1, NULL, 0, 0x20, 2, 0, out,
					 sizeof(out)),
			 -EINVAL);
	a = ipmb_addr(IPMI_IPMB_ADDR_TYPE, 16, 0x82, 0);
	ck_assert_int_eq(build_from_addr(&a, 6, 1, NULL, 0, 0x20, 2, 0, out,
					 sizeof(out)),
			 -EINVAL);
	/* LAN is framed too (test_build_lan); a LAN channel past 15 not */
	a = ipmb_addr(IPMI_LAN_ADDR_TYPE, 2, 0x82, 0);
	ck_assert_int_eq(build_from_addr(&a, 6, 1, NULL, 0, 0x20, 2, 0, out,
					 sizeof(out)),
			 11);
	a = ipmb_addr(IPMI_LAN_ADDR_TYPE, 16, 0x82, 0);
	ck_assert_int_eq(build_from_addr(&a, 6, 1, NULL, 0, 0x20, 2, 0, out,
					 sizeof(out)),
			 -EINVAL);
}
END_TEST

/* a client's response: the msgid is the seq, only 6 bits reach the bus */
START_TEST(test_build_response_seq)
{
	static const uint8_t cc0[] = { 0 };
	uint8_t out[32];
	struct ipmi_address a = ipmb_addr(IPMI_IPMB_ADDR_TYPE, 0, 0x40, 0);
	int64_t msgid = 0x1c9; /* & 0x3f = 9 */
	int n;

	n = build_from_addr(&a, 0x2f, 5, cc0, 1, 0x20, 2, (uint8_t)msgid, out,
			    sizeof(out));
	ck_assert_int_eq(n, 11);
	ck_assert_uint_eq(out[3], 0x40);
	ck_assert_uint_eq(out[4], 0x2f << 2);
	ck_assert_uint_eq(out[7], 9 << 2 | 2);
	ck_assert_uint_eq(ipmb_checksum(out + 3, 3), 0);
	ck_assert_uint_eq(ipmb_checksum(out + 6, (size_t)n - 6), 0);
}
END_TEST

START_TEST(test_build_limits)
{
	static uint8_t data[ABI_MAX_MSG_LENGTH];
	uint8_t out[ABI_MAX_MSG_LENGTH + 8];
	struct ipmb_tx tx = { .dest_sa = 0x82,
			      .netfn = 6,
			      .cmd = 1,
			      .src_sa = 0x20,
			      .data = data };

	tx.data_len = 262;
	ck_assert_int_eq(ipmb_build_send_msg(&tx, out, sizeof(out)), 272);
	tx.data_len = 263;
	ck_assert_int_eq(ipmb_build_send_msg(&tx, out, sizeof(out)), -EMSGSIZE);
	tx.broadcast = true;
	tx.data_len = 261;
	ck_assert_int_eq(ipmb_build_send_msg(&tx, out, sizeof(out)), 272);
	tx.data_len = 262;
	ck_assert_int_eq(ipmb_build_send_msg(&tx, out, sizeof(out)), -EMSGSIZE);
	tx.broadcast = false;
	tx.data_len = 2;
	ck_assert_int_eq(ipmb_build_send_msg(&tx, out, 11), -ENOSPC);
	ck_assert_int_eq(ipmb_build_send_msg(&tx, out, 12), 12);
	ck_assert_int_eq(ipmb_build_send_msg(&tx, NULL, 0), -ENOSPC);
	tx.data = NULL;
	ck_assert_int_eq(ipmb_build_send_msg(&tx, out, sizeof(out)), -EINVAL);
	tx.data_len = 0;
	ck_assert_int_eq(ipmb_build_send_msg(&tx, out, sizeof(out)), 10);
	tx.channel = 16;
	ck_assert_int_eq(ipmb_build_send_msg(&tx, out, sizeof(out)), -EINVAL);
}
END_TEST

/* every length: both checksums verify, the data lands where it should */
START_TEST(test_build_all_lengths)
{
	uint8_t data[ABI_MAX_MSG_LENGTH], out[ABI_MAX_MSG_LENGTH];
	struct ipmb_tx tx = { .channel = 3,
			      .dest_sa = 0xb0,
			      .dest_lun = 3,
			      .netfn = 0x30,
			      .cmd = 0x99,
			      .src_sa = 0x81,
			      .src_lun = 1,
			      .seq = 42,
			      .data = data,
			      .broadcast = _i & 1 };
	uint16_t len = (uint16_t)(_i >> 1);
	size_t b = tx.broadcast;
	int n;

	for (unsigned int i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	tx.data_len = len;
	n = ipmb_build_send_msg(&tx, out, sizeof(out));
	if (len + 10 + b > ABI_MAX_MSG_LENGTH) {
		ck_assert_int_eq(n, -EMSGSIZE);
		return;
	}
	ck_assert_int_eq(n, len + 10 + (int)b);
	if (b)
		ck_assert_uint_eq(out[3], 0);
	ck_assert_uint_eq(ipmb_checksum(out + 3 + b, 3), 0);
	ck_assert_uint_eq(ipmb_checksum(out + 6 + b, (size_t)n - 6 - b), 0);
	ck_assert_mem_eq(out + 9 + b, data, len);
}
END_TEST

START_TEST(test_parse_response)
{
	struct ipmb_rx rx;

	ck_assert_int_eq(ipmb_parse_get_msg(v_rsp, sizeof(v_rsp), -1, &rx), 0);
	ck_assert_uint_eq(rx.channel, 0);
	ck_assert_uint_eq(rx.priv, 0);
	ck_assert(rx.is_response);
	ck_assert_uint_eq(rx.netfn, 7);
	ck_assert_uint_eq(rx.dest_lun, 2);
	ck_assert_uint_eq(rx.dest_sa, 0x20);
	ck_assert_uint_eq(rx.src_sa, 0x82);
	ck_assert_uint_eq(rx.src_lun, 0);
	ck_assert_uint_eq(rx.seq, 5);
	ck_assert_uint_eq(rx.cmd, 1);
	ck_assert_ptr_eq(rx.data, v_rsp + 9);
	ck_assert_uint_eq(rx.data_len, 4);
	ck_assert_uint_eq(rx.data[0], 0); /* cc */
	ck_assert_int_eq(ipmb_parse_get_msg(v_rsp, sizeof(v_rsp), 0x20, &rx),
			 0);
	/* checksum 1 says it was for 0x20, not 0x22 */
	ck_assert_int_eq(ipmb_parse_get_msg(v_rsp, sizeof(v_rsp), 0x22, &rx),
			 -EBADMSG);
	ck_assert_int_eq(ipmb_parse_get_msg(v_rsp, sizeof(v_rsp), 0, &rx),
			 -EBADMSG);
}
END_TEST

START_TEST(test_parse_command)
{
	static const uint8_t nodata[] = {
		/* v_cmd without data */
		0x1c, 0x33, 0x00, 0x40, 0xba, 0x26, 0x40, 0x24, 0x05, 0x97,
	};
	struct ipmb_rx rx;

	ck_assert_int_eq(ipmb_parse_get_msg(v_cmd, sizeof(v_cmd), 0x20, &rx),
			 0);
	ck_assert(!rx.is_response);
	ck_assert_uint_eq(rx.channel, 0);
	ck_assert_uint_eq(rx.priv, 4);
	ck_assert_uint_eq(rx.netfn, 0x2e);
	ck_assert_uint_eq(rx.dest_lun, 2);
	ck_assert_uint_eq(rx.src_sa, 0x40);
	ck_assert_uint_eq(rx.src_lun, 0);
	ck_assert_uint_eq(rx.seq, 9);
	ck_assert_uint_eq(rx.cmd, 5);
	ck_assert_uint_eq(rx.data_len, 2);
	ck_assert_uint_eq(rx.data[0], 0xde);
	ck_assert_uint_eq(rx.data[1], 0xad);
	/* a command without data is 10 bytes and valid */
	ck_assert_uint_eq(ipmb_checksum(nodata + 6, 3), nodata[9]);
	ck_assert_int_eq(ipmb_parse_get_msg(nodata, sizeof(nodata), -1, &rx),
			 0);
	ck_assert_uint_eq(rx.data_len, 0);
	ck_assert_int_eq(ipmb_parse_get_msg(nodata, 9, -1, &rx), -EINVAL);
}
END_TEST

START_TEST(test_parse_errors)
{
	uint8_t b[sizeof(v_rsp)];
	struct ipmb_rx rx;

	/* bad checksum 2: reported, fields still filled */
	memcpy(b, v_rsp, sizeof(b));
	b[11] ^= 0x10;
	memset(&rx, 0xa5, sizeof(rx));
	ck_assert_int_eq(ipmb_parse_get_msg(b, sizeof(b), -1, &rx), -EBADMSG);
	ck_assert_uint_eq(rx.src_sa, 0x82);
	ck_assert_uint_eq(rx.seq, 5);
	ck_assert_uint_eq(rx.data_len, 4);
	/* a wrong trailing checksum byte */
	memcpy(b, v_rsp, sizeof(b));
	b[sizeof(b) - 1]++;
	ck_assert_int_eq(ipmb_parse_get_msg(b, sizeof(b), -1, &rx), -EBADMSG);
	/* a changed seq breaks checksum 2 too */
	memcpy(b, v_rsp, sizeof(b));
	b[7] = 6 << 2;
	ck_assert_int_eq(ipmb_parse_get_msg(b, sizeof(b), -1, &rx), -EBADMSG);
	/* cc: empty queue, other errors */
	memcpy(b, v_rsp, sizeof(b));
	b[2] = 0x80;
	ck_assert_int_eq(ipmb_parse_get_msg(b, 3, -1, &rx), -ENOMSG);
	ck_assert_int_eq(ipmb_parse_get_msg(b, sizeof(b), -1, &rx), -ENOMSG);
	/* not a Get Message response */
	memcpy(b, v_rsp, sizeof(b));
	b[1] = 0x35;
	ck_assert_int_eq(ipmb_parse_get_msg(b, sizeof(b), -1, &rx), -EPROTO);
	b[1] = 0x33;
	b[0] = 0x18; /* a request netfn */
	ck_assert_int_eq(ipmb_parse_get_msg(b, sizeof(b), -1, &rx), -EPROTO);
	ck_assert_int_eq(ipmb_parse_get_msg(v_rsp, 2, -1, &rx), -EPROTO);
	/* short: a response needs its cc (11 bytes), anything needs 10 */
	ck_assert_int_eq(ipmb_parse_get_msg(v_rsp, 10, -1, &rx), -EINVAL);
	ck_assert_int_eq(ipmb_parse_get_msg(v_rsp, 4, -1, &rx), -EINVAL);
	ck_assert_int_eq(ipmb_parse_get_msg(v_cmd, 9, -1, &rx), -EINVAL);
}
END_TEST

START_TEST(test_user_response)
{
	struct ipmi_address a = ipmb_addr(IPMI_IPMB_ADDR_TYPE, 0, 0x82, 0);
	struct ipmb_user_msg m;
	struct ipmb_rx rx;

	ck_assert_int_eq(ipmb_parse_get_msg(v_rsp, sizeof(v_rsp), -1, &rx), 0);
	ipmb_user_response(&a, 1234, 1, &rx, &m);
	ck_assert_int_eq(m.recv_type, IPMI_RESPONSE_RECV_TYPE);
	ck_assert_int_eq(m.addr.addr_type, IPMI_IPMB_ADDR_TYPE);
	ck_assert_int_eq(m.addr.channel, 0);
	ck_assert_uint_eq(m.addr.slave_addr, 0x82);
	ck_assert_uint_eq(m.addr.lun, 0);
	ck_assert_int_eq(m.msgid, 1234);
	ck_assert_uint_eq(m.netfn, 7);
	ck_assert_uint_eq(m.cmd, 1);
	ck_assert_uint_eq(m.data_len, 4);
	ck_assert_mem_eq(m.data, v_rsp + 9, 4);
	/* a broadcast request is answered with a plain IPMB address */
	a.addr_type = IPMI_IPMB_BROADCAST_ADDR_TYPE;
	ipmb_user_response(&a, 7, 1, &rx, &m);
	ck_assert_int_eq(m.addr.addr_type, IPMI_IPMB_ADDR_TYPE);
}
END_TEST

START_TEST(test_user_error_and_results)
{
	struct ipmi_address a =
		ipmb_addr(IPMI_IPMB_BROADCAST_ADDR_TYPE, 3, 0x72, 1);
	struct ipmb_user_msg m;

	ipmb_user_error(&a, -5, 0x0a, 0x10, IPMI_TIMEOUT_ERR, &m);
	ck_assert_int_eq(m.recv_type, IPMI_RESPONSE_RECV_TYPE);
	ck_assert_int_eq(m.addr.addr_type, IPMI_IPMB_ADDR_TYPE);
	ck_assert_int_eq(m.addr.channel, 3);
	ck_assert_uint_eq(m.addr.slave_addr, 0x72);
	ck_assert_uint_eq(m.addr.lun, 1);
	ck_assert_int_eq(m.msgid, -5);
	ck_assert_uint_eq(m.netfn, 0x0b);
	ck_assert_uint_eq(m.cmd, 0x10);
	ck_assert_uint_eq(m.data_len, 1);
	ck_assert_uint_eq(m.data[0], 0xc3);

	a.addr_type = IPMI_IPMB_ADDR_TYPE;
	ipmb_user_send_result(&a, 9, 0x2f, 5, 0x82, &m);
	ck_assert_int_eq(m.recv_type, IPMI_RESPONSE_RESPONSE_TYPE);
	ck_assert_int_eq(m.msgid, 9);
	ck_assert_uint_eq(m.netfn, 0x2f);
	ck_assert_uint_eq(m.cmd, 5);
	ck_assert_uint_eq(m.data_len, 1);
	ck_assert_uint_eq(m.data[0], 0x82);
}
END_TEST

START_TEST(test_user_command)
{
	uint8_t out[32];
	struct ipmb_user_msg m;
	struct ipmb_rx rx;

	ck_assert_int_eq(ipmb_parse_get_msg(v_cmd, sizeof(v_cmd), -1, &rx), 0);
	ipmb_user_command(&rx, &m);
	ck_assert_int_eq(m.recv_type, IPMI_CMD_RECV_TYPE);
	ck_assert_int_eq(m.addr.addr_type, IPMI_IPMB_ADDR_TYPE);
	ck_assert_int_eq(m.addr.channel, 0);
	ck_assert_uint_eq(m.addr.slave_addr, 0x40);
	ck_assert_uint_eq(m.addr.lun, 0);
	ck_assert_int_eq(m.msgid, 9);
	ck_assert_uint_eq(m.netfn, 0x2e);
	ck_assert_uint_eq(m.cmd, 5);
	ck_assert_uint_eq(m.data_len, 2);
	ck_assert_uint_eq(m.data[0], 0xde);
	ck_assert_uint_eq(m.data[1], 0xad);

	/* nobody registered: the driver's 0xC1 reply */
	assert_bytes(out,
		     ipmb_build_invalid_cmd_reply(&rx, 0x20, out, sizeof(out)),
		     v_cmd_reply, sizeof(v_cmd_reply));
	ck_assert_int_eq(ipmb_build_invalid_cmd_reply(&rx, 0x20, out, 10),
			 -ENOSPC);
	/* a client answering it with msgid 9 sends the same frame (cc C1) */
	{
		static const uint8_t c1[] = { 0xc1 };

		assert_bytes(out,
			     build_from_addr(&m.addr, 0x2f, 5, c1, 1, 0x20, 2,
					     (uint8_t)m.msgid, out,
					     sizeof(out)),
			     v_cmd_reply, sizeof(v_cmd_reply));
	}
}
END_TEST

/* LAN addresses: format_lan_msg's layout, both checksums. */
START_TEST(test_build_lan)
{
	const struct ipmi_address lan = {
		.addr_type = IPMI_LAN_ADDR_TYPE,
		.channel = 1,
		.lun = 2,
		.privilege = 4,
		.session_handle = 0x11,
		.remote_swid = 0x81,
		.local_swid = 0x20,
	};
	const uint8_t d[2] = { 0xaa, 0xbb };
	const uint8_t want[13] = { 0x18, 0x34, 0x01, 0x11, 0x81, 0x1a, 0x65,
				   0x20, 0x0d, 0x01, 0xaa, 0xbb, 0x6d };
	uint8_t out[ABI_MAX_MSG_LENGTH];
	struct ipmi_address bad = lan;
	int n;

	n = build_from_addr(&lan, 6, 1, d, 2, 0x20, 1, 3, out, sizeof(out));
	ck_assert_int_eq(n, 13);
	ck_assert_mem_eq(out, want, 13);
	ck_assert_uint_eq((uint8_t)(out[4] + out[5] + out[6]), 0);
	ck_assert_uint_eq((uint8_t)(out[7] + out[8] + out[9] + out[10] +
				    out[11] + out[12]),
			  0);
	ck_assert_int_eq(build_lan(&lan, 6, 1, d, 262, 1, 3, out, sizeof(out)),
			 -EMSGSIZE);
	bad.channel = 16;
	ck_assert_int_eq(build_lan(&bad, 6, 1, d, 2, 1, 3, out, sizeof(out)),
			 -EINVAL);
	ck_assert_int_eq(build_lan(&lan, 6, 1, d, 2, 1, 3, out, 12), -ENOSPC);
}
END_TEST

static Suite *ipmb_suite(void)
{
	Suite *s = suite_create("ipmb");
	TCase *tc = tcase_create("framing");

	tcase_add_test(tc, test_checksum);
	tcase_add_test(tc, test_build_vectors);
	tcase_add_test(tc, test_build_from_addr);
	tcase_add_test(tc, test_build_response_seq);
	tcase_add_test(tc, test_build_limits);
	tcase_add_loop_test(tc, test_build_all_lengths, 0, 2 * 263);
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_response);
	tcase_add_test(tc, test_parse_command);
	tcase_add_test(tc, test_parse_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("user");
	tcase_add_test(tc, test_user_response);
	tcase_add_test(tc, test_user_error_and_results);
	tcase_add_test(tc, test_user_command);
	tcase_add_test(tc, test_build_lan);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ipmb_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
