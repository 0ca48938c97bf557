// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/cuse/ipmi_abi.c + fused/util/ipmi_addr.c: the ioctl table,
 * struct codecs (native layout against the real <linux/ipmi.h> structs,
 * 32-bit layout built byte by byte), address rules, request checks, receive
 * rules and value helpers.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/ipmi.h>
#include <linux/ipmi_msgdefs.h>

#include "cuse/ipmi_abi.h"
#include "util/array.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* a pointer value that fits the build's pointers */
static void *fake_ptr(uintptr_t v)
{
	return (void *)v;
}

#if UINTPTR_MAX > 0xffffffffu
#define BIG_PTR_A ((uintptr_t)0x1122334455667788u)
#define BIG_PTR_B ((uintptr_t)0x99aabbccddeeff00u)
#else
#define BIG_PTR_A ((uintptr_t)0x55667788u)
#define BIG_PTR_B ((uintptr_t)0xddeeff00u)
#endif

/* ------------------------------------------------------------------ */
/* native layouts against the real structs */

START_TEST(test_native_req)
{
	struct ipmi_req_settime st;
	struct abi_req r;
	uint8_t buf[sizeof(st) + 8];

	memset(&st, 0x5a, sizeof(st));
	st.req.addr = fake_ptr(BIG_PTR_A);
	st.req.addr_len = 0x01020304;
	st.req.msgid = -123456789L;
	st.req.msg.netfn = 0x06;
	st.req.msg.cmd = 0x01;
	st.req.msg.data_len = 0xbeef;
	st.req.msg.data = fake_ptr(BIG_PTR_B);
	st.retries = -7;
	st.retry_time_ms = 0xfedcba98u;
	memcpy(buf, &st, sizeof(st));

	ck_assert_uint_eq(abi_req_size(false, false), sizeof(struct ipmi_req));
	ck_assert_uint_eq(abi_req_size(false, true), sizeof(st));

	/* plain SEND: the first sizeof(struct ipmi_req) bytes */
	ck_assert_int_eq(abi_decode_req(buf, sizeof(struct ipmi_req), false,
					false, &r),
			 0);
	ck_assert_uint_eq(r.addr_ptr, BIG_PTR_A);
	ck_assert_uint_eq(r.addr_len, 0x01020304);
	ck_assert_int_eq(r.msgid, -123456789L);
	ck_assert_uint_eq(r.netfn, 0x06);
	ck_assert_uint_eq(r.cmd, 0x01);
	ck_assert_uint_eq(r.data_len, 0xbeef);
	ck_assert_uint_eq(r.data_ptr, BIG_PTR_B);
	ck_assert(!r.settime);
	ck_assert_int_eq(r.retries, -1);
	ck_assert_uint_eq(r.retry_time_ms, 0);

	ck_assert_int_eq(abi_decode_req(buf, sizeof(st), false, true, &r), 0);
	ck_assert(r.settime);
	ck_assert_int_eq(r.retries, -7);
	ck_assert_uint_eq(r.retry_time_ms, 0xfedcba98u);
	ck_assert_uint_eq(r.data_ptr, BIG_PTR_B);

	/* short buffers */
	ck_assert_int_eq(abi_decode_req(buf, sizeof(struct ipmi_req) - 1, false,
					false, &r),
			 -EINVAL);
	ck_assert_int_eq(abi_decode_req(buf, sizeof(st) - 1, false, true, &r),
			 -EINVAL);
	ck_assert_int_eq(abi_decode_req(NULL, 100, false, false, &r), -EINVAL);

	/* decode at an odd address: no alignment assumptions */
	memmove(buf + 1, buf, sizeof(st));
	ck_assert_int_eq(abi_decode_req(buf + 1, sizeof(st), false, true, &r),
			 0);
	ck_assert_int_eq(r.msgid, -123456789L);
	ck_assert_uint_eq(r.retry_time_ms, 0xfedcba98u);
}
END_TEST

START_TEST(test_native_req_encode)
{
	struct ipmi_req_settime st, ref;
	struct abi_req r = {
		.addr_ptr = BIG_PTR_A,
		.addr_len = 8,
		.msgid = -2,
		.netfn = 0x0a,
		.cmd = 0x44,
		.data_len = 16,
		.data_ptr = BIG_PTR_B,
		.retries = 3,
		.retry_time_ms = 500,
		.settime = true,
	};

	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(abi_encode_req(&st, sizeof(st), false, &r),
			 (int)sizeof(st));
	memset(&ref, 0, sizeof(ref));
	ref.req.addr = fake_ptr(BIG_PTR_A);
	ref.req.addr_len = 8;
	ref.req.msgid = -2;
	ref.req.msg.netfn = 0x0a;
	ref.req.msg.cmd = 0x44;
	ref.req.msg.data_len = 16;
	ref.req.msg.data = fake_ptr(BIG_PTR_B);
	ref.retries = 3;
	ref.retry_time_ms = 500;
	ck_assert_mem_eq(&st, &ref, sizeof(st));

	r.settime = false;
	ck_assert_int_eq(abi_encode_req(&st, sizeof(struct ipmi_req), false,
					&r),
			 (int)sizeof(struct ipmi_req));
	ck_assert_int_eq(abi_encode_req(&st, sizeof(struct ipmi_req) - 1, false,
					&r),
			 -EINVAL);
}
END_TEST

START_TEST(test_native_recv)
{
	struct ipmi_recv rv;
	struct abi_recv d, e;
	uint8_t buf[sizeof(rv)];

	memset(&rv, 0, sizeof(rv));
	rv.recv_type = IPMI_ASYNC_EVENT_RECV_TYPE;
	rv.addr = fake_ptr(BIG_PTR_A);
	rv.addr_len = 40;
	rv.msgid = 0x7fffffffL;
	rv.msg.netfn = 0x07;
	rv.msg.cmd = 0x35;
	rv.msg.data_len = 1024;
	rv.msg.data = fake_ptr(BIG_PTR_B);
	memcpy(buf, &rv, sizeof(rv));

	ck_assert_uint_eq(abi_recv_size(false), sizeof(rv));
	ck_assert_int_eq(abi_decode_recv(buf, sizeof(buf), false, &d), 0);
	ck_assert_int_eq(d.recv_type, IPMI_ASYNC_EVENT_RECV_TYPE);
	ck_assert_uint_eq(d.addr_ptr, BIG_PTR_A);
	ck_assert_uint_eq(d.addr_len, 40);
	ck_assert_int_eq(d.msgid, 0x7fffffffL);
	ck_assert_uint_eq(d.netfn, 0x07);
	ck_assert_uint_eq(d.cmd, 0x35);
	ck_assert_uint_eq(d.data_len, 1024);
	ck_assert_uint_eq(d.data_ptr, BIG_PTR_B);
	ck_assert_int_eq(abi_decode_recv(buf, sizeof(buf) - 1, false, &d),
			 -EINVAL);

	/* encode over a poisoned buffer: fields land where the struct has them,
	 * padding keeps the poison */
	e = (struct abi_recv){ .recv_type = IPMI_RESPONSE_RECV_TYPE,
			       .addr_ptr = BIG_PTR_B,
			       .addr_len = 8,
			       .msgid = -42,
			       .netfn = 0x07,
			       .cmd = 0x01,
			       .data_len = 16,
			       .data_ptr = BIG_PTR_A };
	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(abi_encode_recv(buf, sizeof(buf), false, &e),
			 (int)sizeof(rv));
	memcpy(&rv, buf, sizeof(rv));
	ck_assert_int_eq(rv.recv_type, IPMI_RESPONSE_RECV_TYPE);
	ck_assert_ptr_eq(rv.addr, fake_ptr(BIG_PTR_B));
	ck_assert_uint_eq(rv.addr_len, 8);
	ck_assert_int_eq(rv.msgid, -42);
	ck_assert_uint_eq(rv.msg.netfn, 0x07);
	ck_assert_uint_eq(rv.msg.cmd, 0x01);
	ck_assert_uint_eq(rv.msg.data_len, 16);
	ck_assert_ptr_eq(rv.msg.data, fake_ptr(BIG_PTR_A));

	/* every byte that is not a field is untouched */
	{
		struct ipmi_recv z;
		uint8_t zb[sizeof(z)];

		memset(&z, 0, sizeof(z));
		z.recv_type = -1;
		z.addr = fake_ptr(UINTPTR_MAX);
		z.addr_len = ~0u;
		z.msgid = -1;
		z.msg.netfn = 0xff;
		z.msg.cmd = 0xff;
		z.msg.data_len = 0xffff;
		z.msg.data = fake_ptr(UINTPTR_MAX);
		memcpy(zb, &z, sizeof(z)); /* 0xff = field, 0 = padding */
		for (size_t i = 0; i < sizeof(zb); i++)
			if (zb[i] == 0)
				ck_assert_uint_eq(buf[i], 0xa5);
	}
	ck_assert_int_eq(abi_encode_recv(buf, sizeof(buf) - 1, false, &e),
			 -EINVAL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* 32-bit layouts, byte by byte: 4-byte pointers and longs, no padding */

START_TEST(test_compat_req)
{
	uint8_t b[ABI_REQ_SETTIME32_SIZE], out[ABI_REQ_SETTIME32_SIZE];
	struct abi_req r;

	ck_assert_uint_eq(abi_req_size(true, false), 20);
	ck_assert_uint_eq(abi_req_size(true, true), 28);
	put32(b + 0, 0xfffff000u);  /* addr */
	put32(b + 4, 8);	    /* addr_len */
	put32(b + 8, 0xfffffffbu);  /* msgid -5 */
	b[12] = 0x06;		    /* netfn */
	b[13] = 0x01;		    /* cmd */
	put16(b + 14, 3);	    /* data_len */
	put32(b + 16, 0x80001234u); /* data */
	put32(b + 20, 0xffffffffu); /* retries -1 */
	put32(b + 24, 1500);	    /* retry_time_ms */

	ck_assert_int_eq(abi_decode_req(b, 20, true, false, &r), 0);
	ck_assert_uint_eq(r.addr_ptr, 0xfffff000u); /* zero-extended */
	ck_assert_uint_eq(r.addr_len, 8);
	ck_assert_int_eq(r.msgid, -5); /* sign-extended */
	ck_assert_uint_eq(r.netfn, 0x06);
	ck_assert_uint_eq(r.cmd, 0x01);
	ck_assert_uint_eq(r.data_len, 3);
	ck_assert_uint_eq(r.data_ptr, 0x80001234u);
	ck_assert(!r.settime);
	ck_assert_int_eq(abi_decode_req(b, 19, true, false, &r), -EINVAL);

	ck_assert_int_eq(abi_decode_req(b, 28, true, true, &r), 0);
	ck_assert_int_eq(r.retries, -1);
	ck_assert_uint_eq(r.retry_time_ms, 1500);
	ck_assert_int_eq(abi_decode_req(b, 27, true, true, &r), -EINVAL);

	/* round trip */
	memset(out, 0, sizeof(out));
	ck_assert_int_eq(abi_encode_req(out, sizeof(out), true, &r), 28);
	ck_assert_mem_eq(out, b, sizeof(b));

	/* a 64-bit msgid / pointer is truncated to the low 32 bits */
	r.msgid = 0x123456789LL;
	r.addr_ptr = 0xaabbccdd11223344ull;
	ck_assert_int_eq(abi_encode_req(out, sizeof(out), true, &r), 28);
	ck_assert_uint_eq(get32(out + 8), 0x23456789u);
	ck_assert_uint_eq(get32(out + 0), 0x11223344u);
}
END_TEST

START_TEST(test_compat_recv)
{
	uint8_t b[ABI_RECV32_SIZE], out[ABI_RECV32_SIZE];
	struct abi_recv r;

	ck_assert_uint_eq(abi_recv_size(true), 24);
	put32(b + 0, 3);	    /* recv_type */
	put32(b + 4, 0xbfff0000u);  /* addr */
	put32(b + 8, 40);	    /* addr_len */
	put32(b + 12, 0x80000000u); /* msgid INT32_MIN */
	b[16] = 0x2c;		    /* netfn */
	b[17] = 0x99;		    /* cmd */
	put16(b + 18, 1024);	    /* data_len */
	put32(b + 20, 0xbfff1000u); /* data */

	ck_assert_int_eq(abi_decode_recv(b, sizeof(b), true, &r), 0);
	ck_assert_int_eq(r.recv_type, 3);
	ck_assert_uint_eq(r.addr_ptr, 0xbfff0000u);
	ck_assert_uint_eq(r.addr_len, 40);
	ck_assert_int_eq(r.msgid, INT32_MIN);
	ck_assert_uint_eq(r.netfn, 0x2c);
	ck_assert_uint_eq(r.cmd, 0x99);
	ck_assert_uint_eq(r.data_len, 1024);
	ck_assert_uint_eq(r.data_ptr, 0xbfff1000u);
	ck_assert_int_eq(abi_decode_recv(b, 23, true, &r), -EINVAL);

	memset(out, 0x77, sizeof(out));
	ck_assert_int_eq(abi_encode_recv(out, sizeof(out), true, &r), 24);
	ck_assert_mem_eq(out, b, sizeof(b));

	/* what the daemon writes back after a receive */
	r.recv_type = IPMI_RESPONSE_RECV_TYPE;
	r.addr_len = 8;
	r.msgid = 7;
	r.netfn = 0x07;
	r.cmd = 0x01;
	r.data_len = 16;
	ck_assert_int_eq(abi_encode_recv(out, sizeof(out), true, &r), 24);
	ck_assert_uint_eq(get32(out + 0), 1);
	ck_assert_uint_eq(get32(out + 4), 0xbfff0000u);
	ck_assert_uint_eq(get32(out + 8), 8);
	ck_assert_uint_eq(get32(out + 12), 7);
	ck_assert_uint_eq(out[16], 0x07);
	ck_assert_uint_eq(out[17], 0x01);
	ck_assert_uint_eq(out[18] | out[19] << 8, 16);
	ck_assert_uint_eq(get32(out + 20), 0xbfff1000u);
	ck_assert_int_eq(abi_encode_recv(out, 23, true, &r), -EINVAL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* ioctl table */

struct exp_ioctl {
	unsigned int cmd;
	enum abi_op op;
	unsigned int in, out;
};

static const struct exp_ioctl native_exp[] = {
	{ IPMICTL_RECEIVE_MSG_TRUNC, ABI_RECEIVE_MSG_TRUNC,
	  sizeof(struct ipmi_recv), sizeof(struct ipmi_recv) },
	{ IPMICTL_RECEIVE_MSG, ABI_RECEIVE_MSG, sizeof(struct ipmi_recv),
	  sizeof(struct ipmi_recv) },
	{ IPMICTL_SEND_COMMAND, ABI_SEND_COMMAND, sizeof(struct ipmi_req), 0 },
	{ IPMICTL_REGISTER_FOR_CMD, ABI_REGISTER_FOR_CMD, 2, 0 },
	{ IPMICTL_UNREGISTER_FOR_CMD, ABI_UNREGISTER_FOR_CMD, 2, 0 },
	{ IPMICTL_SET_GETS_EVENTS_CMD, ABI_SET_GETS_EVENTS, 4, 0 },
	{ IPMICTL_SET_MY_ADDRESS_CMD, ABI_SET_MY_ADDRESS, 4, 0 },
	{ IPMICTL_GET_MY_ADDRESS_CMD, ABI_GET_MY_ADDRESS, 0, 4 },
	{ IPMICTL_SET_MY_LUN_CMD, ABI_SET_MY_LUN, 4, 0 },
	{ IPMICTL_GET_MY_LUN_CMD, ABI_GET_MY_LUN, 0, 4 },
	{ IPMICTL_SEND_COMMAND_SETTIME, ABI_SEND_COMMAND_SETTIME,
	  sizeof(struct ipmi_req_settime), 0 },
	{ IPMICTL_SET_TIMING_PARMS_CMD, ABI_SET_TIMING_PARMS, 8, 0 },
	{ IPMICTL_GET_TIMING_PARMS_CMD, ABI_GET_TIMING_PARMS, 0, 8 },
	{ IPMICTL_SET_MY_CHANNEL_ADDRESS_CMD, ABI_SET_MY_CHANNEL_ADDRESS, 4,
	  0 },
	{ IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD, ABI_GET_MY_CHANNEL_ADDRESS, 4,
	  4 },
	{ IPMICTL_SET_MY_CHANNEL_LUN_CMD, ABI_SET_MY_CHANNEL_LUN, 4, 0 },
	{ IPMICTL_GET_MY_CHANNEL_LUN_CMD, ABI_GET_MY_CHANNEL_LUN, 4, 4 },
	{ IPMICTL_REGISTER_FOR_CMD_CHANS, ABI_REGISTER_FOR_CMD_CHANS, 12, 0 },
	{ IPMICTL_UNREGISTER_FOR_CMD_CHANS, ABI_UNREGISTER_FOR_CMD_CHANS, 12,
	  0 },
	{ IPMICTL_GET_MAINTENANCE_MODE_CMD, ABI_GET_MAINTENANCE_MODE, 0, 4 },
	{ IPMICTL_SET_MAINTENANCE_MODE_CMD, ABI_SET_MAINTENANCE_MODE, 4, 0 },
};

/* what a 32-bit client sends: literal numbers, as seen on the wire */
static const struct exp_ioctl compat_exp[] = {
	{ 0xC018690Bu, ABI_RECEIVE_MSG_TRUNC, 24, 24 },
	{ 0xC018690Cu, ABI_RECEIVE_MSG, 24, 24 },
	{ 0x8014690Du, ABI_SEND_COMMAND, 20, 0 },
	{ 0x801C6915u, ABI_SEND_COMMAND_SETTIME, 28, 0 },
};

START_TEST(test_ioctl_native)
{
	ck_assert_uint_eq(ARRAY_SIZE(native_exp), ABI_OP_COUNT);
	for (size_t i = 0; i < ARRAY_SIZE(native_exp); i++) {
		for (int compat = 0; compat < 2; compat++) {
			const struct abi_ioctl *e =
				abi_ioctl_lookup(native_exp[i].cmd, compat);

			ck_assert_msg(e, "native %#x compat %d",
				      native_exp[i].cmd, compat);
			ck_assert_uint_eq(e->cmd, native_exp[i].cmd);
			ck_assert_int_eq(e->op, native_exp[i].op);
			ck_assert_uint_eq(e->in_size, native_exp[i].in);
			ck_assert_uint_eq(e->out_size, native_exp[i].out);
			ck_assert(e->layout32 == (sizeof(long) == 4));
			ck_assert_ptr_nonnull(e->name);
			ck_assert_str_ne(abi_op_name(e->op), "?");
		}
	}
	ck_assert_str_eq(abi_op_name(ABI_SEND_COMMAND), "SEND_COMMAND");
	ck_assert_str_eq(abi_op_name(ABI_OP_COUNT), "?");
}
END_TEST

START_TEST(test_ioctl_compat)
{
	for (size_t i = 0; i < ARRAY_SIZE(compat_exp); i++) {
		const struct abi_ioctl *e =
			abi_ioctl_lookup(compat_exp[i].cmd, true);

		ck_assert_msg(e, "compat %#x", compat_exp[i].cmd);
		ck_assert_int_eq(e->op, compat_exp[i].op);
		ck_assert_uint_eq(e->in_size, compat_exp[i].in);
		ck_assert_uint_eq(e->out_size, compat_exp[i].out);
		ck_assert(e->layout32);
		if (sizeof(long) == 8) /* a 64-bit caller cannot use them */
			ck_assert_ptr_null(
				abi_ioctl_lookup(compat_exp[i].cmd, false));
	}
}
END_TEST

/* The pointer-free ioctls: numbers computed with explicit 4-byte sizes (what
 * an i386 build of <linux/ipmi.h> gives) equal the native ones. */
START_TEST(test_ioctl_pointer_free_same)
{
	const unsigned int R = _IOC_READ, W = _IOC_WRITE, M = IPMI_IOC_MAGIC;

	ck_assert_uint_eq(_IOC(R, M, 14, 2), IPMICTL_REGISTER_FOR_CMD);
	ck_assert_uint_eq(_IOC(R, M, 15, 2), IPMICTL_UNREGISTER_FOR_CMD);
	ck_assert_uint_eq(_IOC(R, M, 16, 4), IPMICTL_SET_GETS_EVENTS_CMD);
	ck_assert_uint_eq(_IOC(R, M, 17, 4), IPMICTL_SET_MY_ADDRESS_CMD);
	ck_assert_uint_eq(_IOC(R, M, 18, 4), IPMICTL_GET_MY_ADDRESS_CMD);
	ck_assert_uint_eq(_IOC(R, M, 19, 4), IPMICTL_SET_MY_LUN_CMD);
	ck_assert_uint_eq(_IOC(R, M, 20, 4), IPMICTL_GET_MY_LUN_CMD);
	ck_assert_uint_eq(_IOC(R, M, 22, 8), IPMICTL_SET_TIMING_PARMS_CMD);
	ck_assert_uint_eq(_IOC(R, M, 23, 8), IPMICTL_GET_TIMING_PARMS_CMD);
	ck_assert_uint_eq(_IOC(R, M, 24, 4),
			  IPMICTL_SET_MY_CHANNEL_ADDRESS_CMD);
	ck_assert_uint_eq(_IOC(R, M, 25, 4),
			  IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD);
	ck_assert_uint_eq(_IOC(R, M, 26, 4), IPMICTL_SET_MY_CHANNEL_LUN_CMD);
	ck_assert_uint_eq(_IOC(R, M, 27, 4), IPMICTL_GET_MY_CHANNEL_LUN_CMD);
	ck_assert_uint_eq(_IOC(R, M, 28, 12), IPMICTL_REGISTER_FOR_CMD_CHANS);
	ck_assert_uint_eq(_IOC(R, M, 29, 12), IPMICTL_UNREGISTER_FOR_CMD_CHANS);
	ck_assert_uint_eq(_IOC(R, M, 30, 4), IPMICTL_GET_MAINTENANCE_MODE_CMD);
	ck_assert_uint_eq(_IOC(W, M, 31, 4), IPMICTL_SET_MAINTENANCE_MODE_CMD);
	/* and the pointer ones really differ on LP64 */
	if (sizeof(long) == 8) {
		ck_assert_uint_eq(IPMICTL_SEND_COMMAND, 0x8028690Du);
		ck_assert_uint_eq(IPMICTL_RECEIVE_MSG, 0xC030690Cu);
		ck_assert_uint_eq(IPMICTL_RECEIVE_MSG_TRUNC, 0xC030690Bu);
		ck_assert_uint_eq(IPMICTL_SEND_COMMAND_SETTIME, 0x80306915u);
	}
}
END_TEST

START_TEST(test_ioctl_unknown)
{
	static const unsigned int bad[] = {
		TCGETS,	     FIONREAD,	  TIOCGWINSZ,
		0,	     0xffffffffu, 0x6901,
		0x8014690Cu, /* compat size, wrong nr */
		0x4014690Du, /* compat SEND with _IOW direction */
		0x8018690Du, 0xdeadbeefu, _IOC(_IOC_READ, 'j', 13, 20),
	};
	unsigned int hits[2] = { 0, 0 };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_ptr_null(abi_ioctl_lookup(bad[i], false));
		ck_assert_ptr_null(abi_ioctl_lookup(bad[i], true));
	}
	/* sweep every direction, number and size up to 64 with magic 'i' */
	for (unsigned int dir = 0; dir < 4; dir++)
		for (unsigned int nr = 0; nr < 256; nr++)
			for (unsigned int size = 0; size <= 64; size++) {
				unsigned int c =
					_IOC(dir, IPMI_IOC_MAGIC, nr, size);

				for (int compat = 0; compat < 2; compat++)
					if (abi_ioctl_lookup(c, compat))
						hits[compat]++;
			}
	ck_assert_uint_eq(hits[0], ABI_OP_COUNT);
	ck_assert_uint_eq(hits[1], ABI_OP_COUNT + (sizeof(long) == 8 ? 4 : 0));
	/* random numbers */
	srand(12345);
	for (int i = 0; i < 100000; i++) {
		unsigned int c =
			(unsigned int)rand() << 16 ^ (unsigned int)rand();
		int known = 0;

		for (size_t j = 0; j < ARRAY_SIZE(native_exp); j++)
			known |= c == native_exp[j].cmd;
		for (size_t j = 0; j < ARRAY_SIZE(compat_exp); j++)
			known |= c == compat_exp[j].cmd;
		if (!known)
			ck_assert_ptr_null(abi_ioctl_lookup(c, i & 1));
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* small structs against the real structs */

START_TEST(test_small_structs)
{
	struct ipmi_cmdspec cs = { .netfn = 0x2e, .cmd = 0x12 };
	struct ipmi_cmdspec_chans cc = { .netfn = 0x1234,
					 .cmd = 0x1ff,
					 .chans = 0x8001 };
	struct ipmi_timing_parms tp = { .retries = -1, .retry_time_ms = 0 };
	struct ipmi_channel_lun_address_set cv;
	struct abi_cmdspec s;
	struct abi_timing t;
	struct abi_chan_val v;
	int32_t i32;
	int iv = -2;
	uint8_t buf[16];

	ck_assert_int_eq(abi_decode_cmdspec(&cs, sizeof(cs), &s), 0);
	ck_assert_uint_eq(s.netfn, 0x2e);
	ck_assert_uint_eq(s.cmd, 0x12);
	ck_assert_uint_eq(s.chans, ABI_CHAN_ALL);
	ck_assert_uint_eq(ABI_CHAN_ALL, (unsigned int)IPMI_CHAN_ALL);
	ck_assert_int_eq(abi_decode_cmdspec(&cs, 1, &s), -EINVAL);

	ck_assert_int_eq(abi_decode_cmdspec_chans(&cc, sizeof(cc), &s), 0);
	ck_assert_uint_eq(s.netfn, 0x34); /* truncated like the driver */
	ck_assert_uint_eq(s.cmd, 0xff);
	ck_assert_uint_eq(s.chans, 0x8001);
	ck_assert_int_eq(abi_decode_cmdspec_chans(&cc, 11, &s), -EINVAL);

	ck_assert_int_eq(abi_decode_timing(&tp, sizeof(tp), &t), 0);
	ck_assert_int_eq(t.retries, -1);
	ck_assert_uint_eq(t.retry_time_ms, 0);
	ck_assert_int_eq(abi_decode_timing(&tp, 7, &t), -EINVAL);
	t = (struct abi_timing){ .retries = 9, .retry_time_ms = 123456 };
	ck_assert_int_eq(abi_encode_timing(&tp, sizeof(tp), &t), 8);
	ck_assert_int_eq(tp.retries, 9);
	ck_assert_uint_eq(tp.retry_time_ms, 123456);
	ck_assert_int_eq(abi_encode_timing(buf, 7, &t), -EINVAL);

	memset(&cv, 0, sizeof(cv));
	cv.channel = 0x0102;
	cv.value = 0x20;
	ck_assert_int_eq(abi_decode_chan_val(&cv, sizeof(cv), &v), 0);
	ck_assert_uint_eq(v.channel, 0x0102);
	ck_assert_uint_eq(v.value, 0x20);
	ck_assert_int_eq(abi_decode_chan_val(&cv, 3, &v), -EINVAL);
	v.value = 0x3;
	ck_assert_int_eq(abi_encode_chan_val(&cv, sizeof(cv), &v), 4);
	ck_assert_uint_eq(cv.channel, 0x0102);
	ck_assert_uint_eq(cv.value, 0x3);
	ck_assert_int_eq(abi_encode_chan_val(buf, 3, &v), -EINVAL);

	ck_assert_int_eq(abi_decode_int(&iv, sizeof(iv), &i32), 0);
	ck_assert_int_eq(i32, -2);
	ck_assert_int_eq(abi_decode_int(&iv, 3, &i32), -EINVAL);
	ck_assert_int_eq(abi_encode_int(&iv, sizeof(iv), 0x20), 4);
	ck_assert_int_eq(iv, 0x20);
	ck_assert_int_eq(abi_encode_int(buf, 3, 1), -EINVAL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* addresses */

/* parse from a heap copy of exactly len bytes: ASan catches over-reads */
static int parse(const void *a, uint32_t len, struct ipmi_address *out)
{
	uint8_t *heap = malloc(len ? len : 1);
	int rv;

	ck_assert_ptr_nonnull(heap);
	if (len)
		memcpy(heap, a, len);
	rv = ipmi_addr_parse(heap, len, out);
	free(heap);
	return rv;
}

START_TEST(test_addr_si)
{
	struct ipmi_system_interface_addr si = {
		.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
		.channel = IPMI_BMC_CHANNEL,
		.lun = 2,
	};
	uint8_t big[ABI_MAX_ADDR_LEN + 1];
	struct ipmi_address a;
	uint8_t enc[ABI_MAX_ADDR_LEN];

	ck_assert_int_eq(parse(&si, sizeof(si), &a), 0);
	ck_assert_int_eq(a.addr_type, IPMI_SYSTEM_INTERFACE_ADDR_TYPE);
	ck_assert_int_eq(a.channel, IPMI_BMC_CHANNEL);
	ck_assert_uint_eq(a.lun, 2);
	/* lun is not checked here (the request check does it) */
	si.lun = 9;
	ck_assert_int_eq(parse(&si, sizeof(si), &a), 0);
	ck_assert_uint_eq(a.lun, 9);
	/* too short */
	ck_assert_int_eq(parse(&si, 7, &a), -EINVAL);
	ck_assert_int_eq(parse(&si, 0, &a), -EINVAL);
	ck_assert_int_eq(ipmi_addr_parse(NULL, 8, &a), -EINVAL);
	/* up to 40 bytes accepted, more never */
	memset(big, 0xee, sizeof(big));
	memcpy(big, &si, sizeof(si));
	ck_assert_int_eq(parse(big, ABI_MAX_ADDR_LEN, &a), 0);
	ck_assert_int_eq(parse(big, ABI_MAX_ADDR_LEN + 1, &a), -EINVAL);
	/* SI channel must be the BMC channel */
	si.channel = 0;
	ck_assert_int_eq(parse(&si, sizeof(si), &a), -EINVAL);
	si.channel = -1;
	ck_assert_int_eq(parse(&si, sizeof(si), &a), -EINVAL);

	/* encode: 8 bytes, padding zeroed, lun at its field */
	si.channel = IPMI_BMC_CHANNEL;
	si.lun = 2;
	ck_assert_int_eq(parse(&si, sizeof(si), &a), 0);
	memset(enc, 0xcc, sizeof(enc));
	ck_assert_int_eq(ipmi_addr_encode(&a, enc, sizeof(enc)), 8);
	{
		struct ipmi_system_interface_addr ref;

		memset(&ref, 0, sizeof(ref));
		ref.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
		ref.channel = IPMI_BMC_CHANNEL;
		ref.lun = 2;
		ck_assert_mem_eq(enc, &ref, sizeof(ref));
	}
	ck_assert_uint_eq(enc[8], 0xcc);
	ck_assert_int_eq(ipmi_addr_encode(&a, enc, 7), -ENOSPC);
	ck_assert_uint_eq(ipmi_addr_len(IPMI_SYSTEM_INTERFACE_ADDR_TYPE), 8);
}
END_TEST

START_TEST(test_addr_ipmb)
{
	struct ipmi_ipmb_addr ib = { .addr_type = IPMI_IPMB_ADDR_TYPE,
				     .channel = 0,
				     .slave_addr = 0x72,
				     .lun = 1 };
	struct ipmi_address a, r, b;
	uint8_t enc[16];

	ck_assert_int_eq(parse(&ib, sizeof(ib), &a), 0);
	ck_assert_int_eq(a.addr_type, IPMI_IPMB_ADDR_TYPE);
	ck_assert_int_eq(a.channel, 0);
	ck_assert_uint_eq(a.slave_addr, 0x72);
	ck_assert_uint_eq(a.lun, 1);
	ck_assert_int_eq(ipmi_addr_encode(&a, enc, sizeof(enc)), 8);
	ck_assert_mem_eq(enc, &ib, sizeof(ib));
	ck_assert_int_eq(parse(enc, 8, &b), 0);
	ck_assert_mem_eq(&a, &b, sizeof(a));

	ib.channel = 14;
	ck_assert_int_eq(parse(&ib, sizeof(ib), &a), 0);
	ib.channel = 15; /* the BMC channel is for SI addresses only */
	ck_assert_int_eq(parse(&ib, sizeof(ib), &a), -EINVAL);
	ib.channel = 16;
	ck_assert_int_eq(parse(&ib, sizeof(ib), &a), -EINVAL);
	ib.channel = -1;
	ck_assert_int_eq(parse(&ib, sizeof(ib), &a), -EINVAL);
	ib.channel = 0x7fff;
	ck_assert_int_eq(parse(&ib, sizeof(ib), &a), -EINVAL);
	ib.channel = 2;
	ck_assert_int_eq(parse(&ib, 7, &a), -EINVAL);

	/* broadcast: same shape, kept as 0x41; its reply address is IPMB */
	ib.addr_type = IPMI_IPMB_BROADCAST_ADDR_TYPE;
	ck_assert_int_eq(parse(&ib, sizeof(ib), &a), 0);
	ck_assert_int_eq(a.addr_type, IPMI_IPMB_BROADCAST_ADDR_TYPE);
	ck_assert_int_eq(a.channel, 2);
	ck_assert_uint_eq(ipmi_addr_len(IPMI_IPMB_BROADCAST_ADDR_TYPE), 8);
	ck_assert_int_eq(ipmi_addr_encode(&a, enc, sizeof(enc)), 8);
	ck_assert_mem_eq(enc, &ib, sizeof(ib));
	ipmi_addr_reply_form(&a, &r);
	ck_assert_int_eq(r.addr_type, IPMI_IPMB_ADDR_TYPE);
	ck_assert_int_eq(r.channel, 2);
	ck_assert_uint_eq(r.slave_addr, 0x72);
	ipmi_addr_reply_form(&b, &r);
	ck_assert_mem_eq(&b, &r, sizeof(r));
	ib.channel = 15;
	ck_assert_int_eq(parse(&ib, sizeof(ib), &a), -EINVAL);
}
END_TEST

START_TEST(test_addr_lan_direct_unknown)
{
	struct ipmi_lan_addr lan = { .addr_type = IPMI_LAN_ADDR_TYPE,
				     .channel = 3,
				     .privilege = 4,
				     .session_handle = 5,
				     .remote_SWID = 0x81,
				     .local_SWID = 0x20,
				     .lun = 2 };
	struct ipmi_ipmb_direct_addr d = { .addr_type =
						   IPMI_IPMB_DIRECT_ADDR_TYPE,
					   .channel = 0,
					   .slave_addr = 0x40,
					   .rs_lun = 1,
					   .rq_lun = 2 };
	struct ipmi_address a, b;
	uint8_t enc[16], raw[40];

	memset(enc, 0, sizeof(enc));
	ck_assert_int_eq(parse(&lan, sizeof(lan), &a), 0);
	ck_assert_uint_eq(a.privilege, 4);
	ck_assert_uint_eq(a.session_handle, 5);
	ck_assert_uint_eq(a.remote_swid, 0x81);
	ck_assert_uint_eq(a.local_swid, 0x20);
	ck_assert_uint_eq(a.lun, 2);
	ck_assert_int_eq(parse(&lan, 11, &a), -EINVAL);
	ck_assert_int_eq(parse(&lan, 8, &a), -EINVAL);
	ck_assert_int_eq(parse(&lan, sizeof(lan), &a), 0);
	{
		struct ipmi_lan_addr ref;

		memset(&ref, 0, sizeof(ref));
		ref = lan;
		ck_assert_int_eq(ipmi_addr_encode(&a, enc, sizeof(enc)), 12);
		ck_assert_mem_eq(enc, &ref, 11);
		ck_assert_uint_eq(enc[11], 0);
	}
	ck_assert_int_eq(parse(enc, 12, &b), 0);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	ck_assert_uint_eq(ipmi_addr_len(IPMI_LAN_ADDR_TYPE), 12);

	ck_assert_int_eq(parse(&d, sizeof(d), &a), 0);
	ck_assert_uint_eq(a.slave_addr, 0x40);
	ck_assert_uint_eq(a.rs_lun, 1);
	ck_assert_uint_eq(a.rq_lun, 2);
	ck_assert_int_eq(ipmi_addr_encode(&a, enc, sizeof(enc)), 12);
	ck_assert_mem_eq(enc, &d, 9);
	ck_assert_int_eq(parse(&d, 11, &a), -EINVAL);
	d.channel = 1;
	ck_assert_int_eq(parse(&d, sizeof(d), &a), -EINVAL);
	d.channel = 0;
	d.slave_addr = 0x41;
	ck_assert_int_eq(parse(&d, sizeof(d), &a), -EINVAL);
	d.slave_addr = 0x40;
	d.rs_lun = 4;
	ck_assert_int_eq(parse(&d, sizeof(d), &a), -EINVAL);
	d.rs_lun = 0;
	d.rq_lun = 4;
	ck_assert_int_eq(parse(&d, sizeof(d), &a), -EINVAL);

	/* unknown types, even with a full-size buffer */
	memset(raw, 0, sizeof(raw));
	for (int t = -1; t < 0x100; t++) {
		if (t == IPMI_SYSTEM_INTERFACE_ADDR_TYPE ||
		    t == IPMI_IPMB_ADDR_TYPE ||
		    t == IPMI_IPMB_BROADCAST_ADDR_TYPE ||
		    t == IPMI_LAN_ADDR_TYPE || t == IPMI_IPMB_DIRECT_ADDR_TYPE)
			continue;
		put32(raw, (uint32_t)t);
		ck_assert_int_eq(parse(raw, sizeof(raw), &a), -EINVAL);
		ck_assert_uint_eq(ipmi_addr_len(t), 0);
		a.addr_type = t;
		ck_assert_int_eq(ipmi_addr_encode(&a, enc, sizeof(enc)),
				 -EINVAL);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* SEND size checks */

START_TEST(test_req_sizes)
{
	struct abi_req r = { .addr_ptr = 0x1000,
			     .addr_len = 8,
			     .data_ptr = 0x2000,
			     .data_len = 272 };

	ck_assert_int_eq(abi_check_req_sizes(&r), 0);
	ck_assert_uint_eq(abi_req_data_len(&r), 272);
	r.addr_len = 40;
	ck_assert_int_eq(abi_check_req_sizes(&r), 0);
	r.addr_len = 41;
	ck_assert_int_eq(abi_check_req_sizes(&r), -EINVAL);
	r.data_len = 273; /* addr_len is checked first */
	ck_assert_int_eq(abi_check_req_sizes(&r), -EINVAL);
	r.addr_len = 0xffffffffu;
	ck_assert_int_eq(abi_check_req_sizes(&r), -EINVAL);
	r.addr_len = 8;
	ck_assert_int_eq(abi_check_req_sizes(&r), -EMSGSIZE);
	r.data_len = 0xffff;
	ck_assert_int_eq(abi_check_req_sizes(&r), -EMSGSIZE);
	/* no data pointer: no size check, nothing sent */
	r.data_ptr = 0;
	ck_assert_int_eq(abi_check_req_sizes(&r), 0);
	ck_assert_uint_eq(abi_req_data_len(&r), 0);
	r.data_len = 300;
	ck_assert_int_eq(abi_check_req_sizes(&r), 0);
	ck_assert_uint_eq(abi_req_data_len(&r), 0);
	/* addr_len small is the address parser's business */
	r.addr_len = 0;
	ck_assert_int_eq(abi_check_req_sizes(&r), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* request checks */

static struct ipmi_address si_addr(uint8_t lun)
{
	return (struct ipmi_address){ .addr_type =
					      IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
				      .channel = IPMI_BMC_CHANNEL,
				      .lun = lun };
}

START_TEST(test_si_checks)
{
	struct ipmi_address a = si_addr(0);
	unsigned int fl;

	ck_assert_int_eq(ipmi_check_si_request(0x06, 0x01, 0, 0), 0);
	ck_assert_int_eq(ipmi_check_si_request(0x0a, 0x40, 3, 270), 0);
	ck_assert_int_eq(ipmi_check_si_request(0x0a, 0x40, 3, 271), -EMSGSIZE);
	ck_assert_int_eq(ipmi_check_si_request(0x0a, 0x40, 0, 0xffff),
			 -EMSGSIZE);
	ck_assert_int_eq(ipmi_check_si_request(0x0a, 0x40, 4, 0), -EINVAL);
	/* odd netfn: a response may not go to the BMC */
	for (unsigned int n = 1; n < 64; n += 2)
		ck_assert_int_eq(ipmi_check_si_request((uint8_t)n, 1, 0, 0),
				 -EINVAL);
	/* the driver's own App commands */
	ck_assert_int_eq(ipmi_check_si_request(0x06, 0x33, 0, 0), -EINVAL);
	ck_assert_int_eq(ipmi_check_si_request(0x06, 0x34, 0, 0), -EINVAL);
	ck_assert_int_eq(ipmi_check_si_request(0x06, 0x35, 0, 0), -EINVAL);
	ck_assert_int_eq(ipmi_check_si_request(0x06, 0x32, 0, 0), 0);
	ck_assert_int_eq(ipmi_check_si_request(0x06, 0x36, 0, 0), 0);
	ck_assert_int_eq(ipmi_check_si_request(0x2c, 0x34, 0, 0), 0);
	/* EINVAL beats EMSGSIZE */
	ck_assert_int_eq(ipmi_check_si_request(0x06, 0x34, 0, 300), -EINVAL);
	ck_assert_int_eq(ipmi_check_si_request(0x07, 0x01, 0, 300), -EINVAL);

	/* maintenance triggers */
	ck_assert(ipmi_is_maint_trigger(0x06, 0x02));
	ck_assert(ipmi_is_maint_trigger(0x06, 0x03));
	ck_assert(!ipmi_is_maint_trigger(0x06, 0x01));
	ck_assert(!ipmi_is_maint_trigger(0x06, 0x04));
	ck_assert(!ipmi_is_maint_trigger(0x07, 0x02));
	for (unsigned int c = 0; c < 256; c++)
		ck_assert(ipmi_is_maint_trigger(0x08, (uint8_t)c));
	ck_assert(!ipmi_is_maint_trigger(0x09, 0x00));
	ck_assert(!ipmi_is_maint_trigger(0x0a, 0x02));

	/* through the dispatcher, with flags */
	ck_assert_int_eq(ipmi_check_request(&a, 0x06, 0x01, 0, NULL, &fl), 0);
	ck_assert_uint_eq(fl, 0);
	ck_assert_int_eq(ipmi_check_request(&a, 0x06, 0x02, 0, NULL, &fl), 0);
	ck_assert_uint_eq(fl, ABI_REQF_MAINT_SI);
	/* maintenance is armed before the size check, as in the driver */
	ck_assert_int_eq(ipmi_check_request(&a, 0x08, 0x01, 271, NULL, &fl),
			 -EMSGSIZE);
	ck_assert_uint_eq(fl, ABI_REQF_MAINT_SI);
	/* ... but not when an EINVAL check fails first */
	a = si_addr(4);
	ck_assert_int_eq(ipmi_check_request(&a, 0x08, 0x01, 0, NULL, &fl),
			 -EINVAL);
	ck_assert_uint_eq(fl, 0);
	a = si_addr(0);
	ck_assert_int_eq(ipmi_check_request(&a, 0x06, 0x34, 0, NULL, &fl),
			 -EINVAL);
	ck_assert_int_eq(ipmi_check_request(&a, 0x07, 0x01, 0, NULL, NULL),
			 -EINVAL);
}
END_TEST

START_TEST(test_ipmb_lan_checks)
{
	uint8_t media[ABI_MAX_CHANNELS] = { 0 };
	struct ipmi_address ib = { .addr_type = IPMI_IPMB_ADDR_TYPE,
				   .channel = 0,
				   .slave_addr = 0x72,
				   .lun = 0 };
	struct ipmi_address bc = ib, lan = { .addr_type = IPMI_LAN_ADDR_TYPE,
					     .channel = 2,
					     .lun = 0 };
	struct ipmi_address dir = { .addr_type = IPMI_IPMB_DIRECT_ADDR_TYPE };
	struct ipmi_address unk = { .addr_type = 0x55 };
	unsigned int fl;

	bc.addr_type = IPMI_IPMB_BROADCAST_ADDR_TYPE;
	media[0] = IPMI_CHANNEL_MEDIUM_IPMB;
	media[2] = IPMI_CHANNEL_MEDIUM_8023LAN;
	media[3] = IPMI_CHANNEL_MEDIUM_ASYNC;

	/* data bound: 272 - 9 header - 1 checksum (- 1 broadcast) */
	ck_assert_int_eq(ipmi_check_request(&ib, 0x06, 0x01, 262, media, &fl),
			 0);
	ck_assert_uint_eq(fl, ABI_REQF_SEQ);
	ck_assert_int_eq(ipmi_check_request(&ib, 0x06, 0x01, 263, media, &fl),
			 -EMSGSIZE);
	ck_assert_int_eq(ipmi_check_request(&bc, 0x06, 0x01, 261, media, &fl),
			 0);
	ck_assert_uint_eq(fl, ABI_REQF_SEQ | ABI_REQF_BROADCAST);
	ck_assert_int_eq(ipmi_check_request(&bc, 0x06, 0x01, 262, media, &fl),
			 -EMSGSIZE);
	/* lun after the size check */
	ib.lun = 4;
	ck_assert_int_eq(ipmi_check_request(&ib, 0x06, 0x01, 263, media, &fl),
			 -EMSGSIZE);
	ck_assert_int_eq(ipmi_check_request(&ib, 0x06, 0x01, 0, media, &fl),
			 -EINVAL);
	ib.lun = 3;
	/* responses are allowed on IPMB and use the caller's msgid */
	ck_assert_int_eq(ipmi_check_request(&ib, 0x07, 0x01, 1, media, &fl), 0);
	ck_assert_uint_eq(fl, ABI_REQF_RESPONSE);
	/* App Send Message is fine when bridged */
	ck_assert_int_eq(ipmi_check_request(&ib, 0x06, 0x34, 1, media, &fl), 0);
	/* IPMB maintenance */
	ck_assert_int_eq(ipmi_check_request(&ib, 0x06, 0x02, 0, media, &fl), 0);
	ck_assert_uint_eq(fl, ABI_REQF_SEQ | ABI_REQF_MAINT_IPMB);
	ck_assert_int_eq(ipmi_check_request(&ib, 0x08, 0x00, 0, media, &fl), 0);
	ck_assert_uint_eq(fl, ABI_REQF_SEQ | ABI_REQF_MAINT_IPMB);
	/* medium */
	ib.channel = 1;
	ck_assert_int_eq(ipmi_check_request(&ib, 0x06, 0x01, 0, media, &fl),
			 -EINVAL);
	ck_assert_int_eq(ipmi_check_request(&ib, 0x06, 0x01, 0, NULL, &fl), 0);
	ib.channel = 2; /* a LAN channel */
	ck_assert_int_eq(ipmi_check_request(&ib, 0x06, 0x01, 0, media, &fl),
			 -EINVAL);
	ib.channel = 16; /* defensive: never index media out of range */
	ck_assert_int_eq(ipmi_check_request(&ib, 0x06, 0x01, 0, media, &fl),
			 -EINVAL);

	/* LAN: 272 - 11 - 1 */
	ck_assert_int_eq(ipmi_check_request(&lan, 0x06, 0x01, 260, media, &fl),
			 0);
	ck_assert_uint_eq(fl, ABI_REQF_SEQ);
	ck_assert_int_eq(ipmi_check_request(&lan, 0x06, 0x01, 261, media, &fl),
			 -EMSGSIZE);
	ck_assert_int_eq(ipmi_check_request(&lan, 0x06, 0x02, 0, media, &fl),
			 0);
	ck_assert_uint_eq(fl, ABI_REQF_SEQ); /* no IPMB maintenance */
	lan.channel = 3;
	ck_assert_int_eq(ipmi_check_request(&lan, 0x07, 0x01, 1, media, &fl),
			 0);
	ck_assert_uint_eq(fl, ABI_REQF_RESPONSE);
	lan.channel = 0; /* IPMB medium */
	ck_assert_int_eq(ipmi_check_request(&lan, 0x06, 0x01, 0, media, &fl),
			 -EINVAL);
	lan.channel = 2;
	lan.lun = 4;
	ck_assert_int_eq(ipmi_check_request(&lan, 0x06, 0x01, 0, media, &fl),
			 -EINVAL);

	/* IPMB direct cannot go through a KCS interface; unknown types */
	ck_assert_int_eq(ipmi_check_request(&dir, 0x06, 0x01, 0, media, &fl),
			 -EAFNOSUPPORT);
	ck_assert_int_eq(ipmi_check_request(&unk, 0x06, 0x01, 0, media, &fl),
			 -EINVAL);
}
END_TEST

START_TEST(test_timing)
{
	int32_t r;
	uint32_t ms;

	ipmi_effective_timing(-1, 0, false, false, &r, &ms);
	ck_assert_int_eq(r, ABI_DEFAULT_RETRIES);
	ck_assert_uint_eq(ms, ABI_DEFAULT_RETRY_MS);
	ipmi_effective_timing(-1, 0, false, true, &r, &ms);
	ck_assert_int_eq(r, 4);
	ck_assert_uint_eq(ms, 3000);
	ipmi_effective_timing(2, 500, false, true, &r, &ms);
	ck_assert_int_eq(r, 2);
	ck_assert_uint_eq(ms, 500);
	ipmi_effective_timing(7, 0, true, false, &r, &ms);
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(ms, 2000);
	ipmi_effective_timing(0, 1, false, false, &r, &ms);
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(ms, 1);
}
END_TEST

/* ------------------------------------------------------------------ */
/* receive */

struct fit_case {
	uint32_t want_addr, msg_addr;
	uint16_t want_data, msg_data;
	bool trunc;
	int err;
	bool consume, w_addr, w_data, w_struct;
	uint16_t len;
};

static const struct fit_case fit_cases[] = {
	/* fits */
	{ 40, 8, 1024, 20, false, 0, true, true, true, true, 20 },
	{ 40, 8, 1024, 20, true, 0, true, true, true, true, 20 },
	{ 8, 8, 20, 20, false, 0, true, true, true, true, 20 },
	{ 12, 12, 0, 0, false, 0, true, true, false, true, 0 },
	/* no data in the message: any data buffer will do */
	{ 8, 8, 0, 0, true, 0, true, true, false, true, 0 },
	/* address buffer too small: EINVAL, message stays, nothing written */
	{ 7, 8, 1024, 20, false, -EINVAL, false, false, false, false, 0 },
	{ 8, 12, 1024, 20, true, -EINVAL, false, false, false, false, 0 },
	{ 0, 8, 0, 0, true, -EINVAL, false, false, false, false, 0 },
	/* EINVAL wins over EMSGSIZE */
	{ 4, 8, 1, 20, true, -EINVAL, false, false, false, false, 0 },
	/* data too small, RECEIVE_MSG: stays, address already copied */
	{ 40, 8, 19, 20, false, -EMSGSIZE, false, true, false, false, 0 },
	{ 40, 8, 0, 1, false, -EMSGSIZE, false, true, false, false, 0 },
	/* data too small, RECEIVE_MSG_TRUNC: truncated, consumed, EMSGSIZE */
	{ 40, 8, 19, 20, true, -EMSGSIZE, true, true, true, true, 19 },
	{ 8, 8, 0, 20, true, -EMSGSIZE, true, true, false, true, 0 },
};

START_TEST(test_recv_fit)
{
	const struct fit_case *c = &fit_cases[_i];
	struct abi_recv_fit f;

	memset(&f, 0x5c, sizeof(f));
	ck_assert_int_eq(abi_recv_fit(c->want_addr, c->msg_addr, c->want_data,
				      c->msg_data, c->trunc, &f),
			 c->err);
	ck_assert_int_eq(f.err, c->err);
	ck_assert(f.consume == c->consume);
	ck_assert(f.write_addr == c->w_addr);
	ck_assert(f.write_data == c->w_data);
	ck_assert(f.write_struct == c->w_struct);
	ck_assert_uint_eq(f.data_len, c->len);
}
END_TEST

/* The output a RECEIVE writes, and how two plans compare. */
START_TEST(test_recv_spans)
{
	struct abi_recv r = { .addr_ptr = 0x1000,
			      .addr_len = 40,
			      .data_ptr = 0x2000,
			      .data_len = 100 };
	struct abi_span a[ABI_RECV_SPANS], b[ABI_RECV_SPANS];
	struct abi_recv_fit f;
	int na, nb;

	/* all fits: address, data, struct (the stock copy order) */
	abi_recv_fit(r.addr_len, 8, r.data_len, 20, false, &f);
	na = abi_recv_spans(0x3000, ABI_RECV64_SIZE, &r, 8, &f, a);
	ck_assert_int_eq(na, 3);
	ck_assert_uint_eq(a[0].ptr, 0x1000);
	ck_assert_uint_eq(a[0].len, 8);
	ck_assert_uint_eq(a[1].ptr, 0x2000);
	ck_assert_uint_eq(a[1].len, 20);
	ck_assert_uint_eq(a[2].ptr, 0x3000);
	ck_assert_uint_eq(a[2].len, ABI_RECV64_SIZE);
	ck_assert_uint_eq(abi_spans_len(a, na), ABI_RECV64_SIZE + 28);
	ck_assert(abi_spans_equal(a, na, a, na));

	/* no data: no empty span */
	abi_recv_fit(r.addr_len, 8, r.data_len, 0, false, &f);
	nb = abi_recv_spans(0x3000, ABI_RECV64_SIZE, &r, 8, &f, b);
	ck_assert_int_eq(nb, 2);
	ck_assert(!abi_spans_equal(a, na, b, nb));

	/* too small, not TRUNC: only the address is written */
	abi_recv_fit(r.addr_len, 8, 10, 20, false, &f);
	nb = abi_recv_spans(0x3000, ABI_RECV64_SIZE, &r, 8, &f, b);
	ck_assert_int_eq(nb, 1);
	ck_assert_uint_eq(b[0].ptr, 0x1000);

	/* same lengths, another data buffer: not the same write */
	abi_recv_fit(r.addr_len, 8, r.data_len, 20, false, &f);
	r.data_ptr = 0x2100;
	nb = abi_recv_spans(0x3000, ABI_RECV64_SIZE, &r, 8, &f, b);
	ck_assert_int_eq(nb, 3);
	ck_assert_uint_eq(abi_spans_len(a, na), abi_spans_len(b, nb));
	ck_assert(!abi_spans_equal(a, na, b, nb));

	/* a 32-bit caller's struct */
	nb = abi_recv_spans(0x3000, ABI_RECV32_SIZE, &r, 8, &f, b);
	ck_assert_uint_eq(b[2].len, ABI_RECV32_SIZE);
	ck_assert(!abi_spans_equal(a, na, b, nb));
}
END_TEST

/* The memory a SEND reads, and the page test its guesses must pass. */
START_TEST(test_send_spans)
{
	struct abi_req r = { .addr_ptr = 0x7f00,
			     .addr_len = 8,
			     .data_ptr = 0x7f40,
			     .data_len = 6 };
	struct abi_span sp[ABI_RECV_SPANS];
	int n;

	n = abi_send_spans(0x7e00, ABI_REQ64_SIZE, &r, 6, sp);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(sp[0].ptr, 0x7e00);
	ck_assert_uint_eq(sp[0].len, ABI_REQ64_SIZE);
	ck_assert_uint_eq(sp[1].ptr, 0x7f00);
	ck_assert_uint_eq(sp[2].len, 6);
	/* data not fetched: no span */
	ck_assert_int_eq(abi_send_spans(0x7e00, ABI_REQ64_SIZE, &r, 0, sp), 2);
	r.addr_len = 0;
	ck_assert_int_eq(abi_send_spans(0x7e00, ABI_REQ64_SIZE, &r, 0, sp), 1);

	/* struct at 0x7e00..0x7e28: page 0x7000..0x8000 */
	r.addr_len = 8;
	n = abi_send_spans(0x7e00, ABI_REQ64_SIZE, &r, 6, sp);
	ck_assert(abi_spans_in_pages(sp, n, 0x7e00, 0x7e28, 0x1000));
	/* the last byte of the page is in, the next one is not */
	sp[2] = (struct abi_span){ 0x7ffa, 6 };
	ck_assert(abi_spans_in_pages(sp, n, 0x7e00, 0x7e28, 0x1000));
	sp[2] = (struct abi_span){ 0x7ffa, 7 };
	ck_assert(!abi_spans_in_pages(sp, n, 0x7e00, 0x7e28, 0x1000));
	sp[2] = (struct abi_span){ 0x6fff, 1 };
	ck_assert(!abi_spans_in_pages(sp, n, 0x7e00, 0x7e28, 0x1000));
	/* a struct across a page boundary covers both pages */
	sp[2] = (struct abi_span){ 0x8100, 6 };
	ck_assert(!abi_spans_in_pages(sp, n, 0x7e00, 0x7e28, 0x1000));
	ck_assert(abi_spans_in_pages(sp, n, 0x7ff0, 0x8018, 0x1000));
	/* no wrap at the top of the address space */
	sp[0] = (struct abi_span){ UINT64_MAX - 8, 8 };
	ck_assert(
		!abi_spans_in_pages(sp, 1, UINT64_MAX - 8, UINT64_MAX, 0x1000));
	sp[0] = (struct abi_span){ 0x7e00, UINT32_MAX };
	ck_assert(!abi_spans_in_pages(sp, 1, 0x7e00, 0x7e28, 0x1000));
}
END_TEST

/* The pages of a struct as one window, and spans read out of it. */
START_TEST(test_page_window)
{
	struct abi_span w, sp[3];
	uint8_t page[0x2000], out[64];

	ck_assert(abi_page_window(0x7e00, 0x7e28, 0x1000, &w));
	ck_assert_uint_eq(w.ptr, 0x7000);
	ck_assert_uint_eq(w.len, 0x1000);
	/* the last byte of a page: that page only; one more: two */
	ck_assert(abi_page_window(0x7fd8, 0x8000, 0x1000, &w));
	ck_assert_uint_eq(w.len, 0x1000);
	ck_assert(abi_page_window(0x7fd9, 0x8001, 0x1000, &w));
	ck_assert_uint_eq(w.ptr, 0x7000);
	ck_assert_uint_eq(w.len, 0x2000);
	ck_assert(!abi_page_window(0x7e00, 0x7e00, 0x1000, &w));
	ck_assert(!abi_page_window(UINT64_MAX - 8, UINT64_MAX, 0x1000, &w));

	for (size_t i = 0; i < sizeof(page); i++)
		page[i] = (uint8_t)(i * 7);
	w = (struct abi_span){ 0x7000, 0x2000 };
	sp[0] = (struct abi_span){ 0x7ff0, 0x20 };
	sp[1] = (struct abi_span){ 0x7000, 1 };
	sp[2] = (struct abi_span){ 0x8ffe, 2 };
	ck_assert_int_eq(abi_window_gather(page, &w, sp, 3, out, sizeof(out)),
			 0x23);
	ck_assert_mem_eq(out, page + 0xff0, 0x20);
	ck_assert_uint_eq(out[0x20], page[0]);
	ck_assert_mem_eq(out + 0x21, page + 0x1ffe, 2);
	/* one byte past the window, before it, or no room: -1 */
	sp[2] = (struct abi_span){ 0x8fff, 2 };
	ck_assert_int_eq(abi_window_gather(page, &w, sp, 3, out, sizeof(out)),
			 -1);
	sp[2] = (struct abi_span){ 0x6fff, 1 };
	ck_assert_int_eq(abi_window_gather(page, &w, sp, 3, out, sizeof(out)),
			 -1);
	sp[2] = (struct abi_span){ UINT64_MAX, 1 };
	ck_assert_int_eq(abi_window_gather(page, &w, sp, 3, out, sizeof(out)),
			 -1);
	ck_assert_int_eq(abi_window_gather(page, &w, sp, 1, out, 0x1f), -1);

	/* a pointer into the old struct's page moves with the struct, any
	 * other stays; NULL stays NULL */
	ck_assert_uint_eq(abi_guess_ptr(0x7f00, 0x7e00, 0x5e00, 0x30, 0x1000),
			  0x5f00);
	ck_assert_uint_eq(abi_guess_ptr(0x7000, 0x7e00, 0x5e00, 0x30, 0x1000),
			  0x5000);
	ck_assert_uint_eq(abi_guess_ptr(0x8000, 0x7e00, 0x5e00, 0x30, 0x1000),
			  0x8000);
	ck_assert_uint_eq(abi_guess_ptr(0x8000, 0x7fe0, 0x5e00, 0x30, 0x1000),
			  0x5e20);
	ck_assert_uint_eq(abi_guess_ptr(0, 0x7e00, 0x5e00, 0x30, 0x1000), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* value helpers */

START_TEST(test_values)
{
	ck_assert_uint_eq(abi_my_address_value(0x20), 0x20);
	ck_assert_uint_eq(abi_my_address_value(0x1234), 0x34);
	ck_assert_uint_eq(abi_my_address_value(0xffffff81u), 0x81);
	ck_assert_uint_eq(abi_my_lun_value(5), 1);
	ck_assert_uint_eq(abi_my_lun_value(3), 3);
	ck_assert_uint_eq(abi_my_lun_value(0xfffffffcu), 0);
	ck_assert_int_eq(abi_check_channel(0), 0);
	ck_assert_int_eq(abi_check_channel(15), 0);
	ck_assert_int_eq(abi_check_channel(16), -EINVAL);
	ck_assert_int_eq(abi_check_channel(0xffff), -EINVAL);
	ck_assert_int_eq(abi_check_maintenance_mode(IPMI_MAINTENANCE_MODE_AUTO),
			 0);
	ck_assert_int_eq(abi_check_maintenance_mode(IPMI_MAINTENANCE_MODE_OFF),
			 0);
	ck_assert_int_eq(abi_check_maintenance_mode(IPMI_MAINTENANCE_MODE_ON),
			 0);
	ck_assert_int_eq(abi_check_maintenance_mode(3), -EINVAL);
	ck_assert_int_eq(abi_check_maintenance_mode(-1), -EINVAL);
	ck_assert_int_eq(abi_check_maintenance_mode(INT32_MIN), -EINVAL);
	ck_assert(abi_gets_events_value(1));
	ck_assert(abi_gets_events_value(-1));
	ck_assert(!abi_gets_events_value(0));
}
END_TEST

static Suite *abi_suite(void)
{
	Suite *s = suite_create("ipmi_abi");
	TCase *tc = tcase_create("layouts");

	tcase_add_test(tc, test_native_req);
	tcase_add_test(tc, test_native_req_encode);
	tcase_add_test(tc, test_native_recv);
	tcase_add_test(tc, test_compat_req);
	tcase_add_test(tc, test_compat_recv);
	tcase_add_test(tc, test_small_structs);
	suite_add_tcase(s, tc);

	tc = tcase_create("ioctl");
	tcase_add_test(tc, test_ioctl_native);
	tcase_add_test(tc, test_ioctl_compat);
	tcase_add_test(tc, test_ioctl_pointer_free_same);
	tcase_add_test(tc, test_ioctl_unknown);
	suite_add_tcase(s, tc);

	tc = tcase_create("addr");
	tcase_add_test(tc, test_addr_si);
	tcase_add_test(tc, test_addr_ipmb);
	tcase_add_test(tc, test_addr_lan_direct_unknown);
	suite_add_tcase(s, tc);

	tc = tcase_create("send");
	tcase_add_test(tc, test_req_sizes);
	tcase_add_test(tc, test_si_checks);
	tcase_add_test(tc, test_ipmb_lan_checks);
	tcase_add_test(tc, test_timing);
	suite_add_tcase(s, tc);

	tc = tcase_create("recv");
	tcase_add_loop_test(tc, test_recv_fit, 0, (int)ARRAY_SIZE(fit_cases));
	tcase_add_test(tc, test_recv_spans);
	tcase_add_test(tc, test_send_spans);
	tcase_add_test(tc, test_page_window);
	tcase_add_test(tc, test_values);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(abi_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
