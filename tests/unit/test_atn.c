// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/core/atn.c: the SMS_ATN flag machine (events, messages,
 * watchdog pre-timeout, several flags, empty answers, OEM flags, repeated
 * attention, the fetch cap, a flag the BMC keeps up with nothing behind
 * it) and the classification of what it fetches.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/ipmi.h>
#include <linux/ipmi_msgdefs.h>

#include "core/atn.h"
#include "util/array.h"

static struct atn m;
static struct atn_result res;
static uint8_t req[ATN_REQ_MAX];

/* Get Message: an IPMB response from 0x82 (see test_ipmb.c) */
static const uint8_t r_ipmb_rsp[] = {
	0x1c, 0x33, 0x00, 0x00, 0x1e, 0xc2, 0x82,
	0x14, 0x01, 0x00, 0x20, 0x01, 0x00, 0x48,
};
/* Get Message: an incoming command from 0x40, privilege 4 */
static const uint8_t r_ipmb_cmd[] = {
	0x1c, 0x33, 0x00, 0x40, 0xba, 0x26, 0x40, 0x24, 0x05, 0xde, 0xad, 0x0c,
};
static const uint8_t r_msg_empty[] = { 0x1c, 0x33, 0x80 };
static const uint8_t r_evt_empty[] = { 0x1c, 0x35, 0x80 };
static const uint8_t r_clear_ok[] = { 0x1c, 0x30, 0x00 };
static uint8_t r_event[19] = { 0x1c, 0x35, 0x00 };

static void flags_rsp(uint8_t flags, uint8_t *buf)
{
	buf[0] = 0x1c;
	buf[1] = 0x31;
	buf[2] = 0x00;
	buf[3] = flags;
}

static void setup(void)
{
	atn_init(&m);
	memset(&res, 0, sizeof(res));
	for (int i = 0; i < 16; i++)
		r_event[3 + i] = (uint8_t)(0x10 + i);
}

/* req holds n bytes: App netfn, cmd (and arg if >= 0) */
static void want_req(int n, uint8_t cmd, int arg)
{
	ck_assert_int_eq(n, arg < 0 ? 2 : 3);
	ck_assert_uint_eq(req[0], 0x18);
	ck_assert_uint_eq(req[1], cmd);
	if (arg >= 0)
		ck_assert_uint_eq(req[2], (unsigned int)arg);
}

static int feed(const uint8_t *rsp, size_t len)
{
	return atn_response(&m, rsp, len, &res, req, sizeof(req));
}

/* SMS_ATN, then the flags answer; returns the next request length */
static int attn_with_flags(uint8_t flags)
{
	uint8_t f[4];

	want_req(atn_attention(&m, req, sizeof(req)), IPMI_GET_MSG_FLAGS_CMD,
		 -1);
	ck_assert(atn_busy(&m));
	ck_assert(!atn_bridge_can_send(&m));
	flags_rsp(flags, f);
	return feed(f, 4);
}

START_TEST(test_idle)
{
	ck_assert(!atn_busy(&m));
	ck_assert(atn_bridge_can_send(&m));
	ck_assert_int_eq(feed(r_msg_empty, 3), -EINVAL);
	ck_assert_int_eq(atn_attention(&m, req, 2), -ENOSPC);
	ck_assert(!atn_busy(&m));
}
END_TEST

START_TEST(test_no_flags)
{
	ck_assert_int_eq(attn_with_flags(0x00), 0);
	ck_assert_int_eq(res.kind, ATN_NOTHING);
	ck_assert_uint_eq(res.flags, 0);
	ck_assert(!atn_busy(&m));
	ck_assert(atn_bridge_can_send(&m));
}
END_TEST

START_TEST(test_flags_error)
{
	static const uint8_t err[] = { 0x1c, 0x31, 0xc1 };
	static const uint8_t noflags[] = { 0x1c, 0x31, 0x00 };
	static const uint8_t wrong[] = { 0x1c, 0x33, 0x00, 0x01 };

	want_req(atn_attention(&m, req, sizeof(req)), 0x31, -1);
	ck_assert_int_eq(feed(err, 3), 0);
	ck_assert_uint_eq(res.cc, 0xc1);
	ck_assert(!atn_busy(&m));
	want_req(atn_attention(&m, req, sizeof(req)), 0x31, -1);
	ck_assert_int_eq(feed(noflags, 3), 0);
	ck_assert(!atn_busy(&m));
	/* an answer to another command counts as an error (cc 0xFF) */
	want_req(atn_attention(&m, req, sizeof(req)), 0x31, -1);
	ck_assert_int_eq(feed(wrong, 4), 0);
	ck_assert_uint_eq(res.cc, 0xff);
	ck_assert(!atn_busy(&m));
	want_req(atn_attention(&m, req, sizeof(req)), 0x31, -1);
	ck_assert_int_eq(feed(NULL, 0), 0);
	ck_assert(!atn_busy(&m));
}
END_TEST

START_TEST(test_events)
{
	want_req(attn_with_flags(ATN_FLAG_EVT_BUF_FULL),
		 IPMI_READ_EVENT_MSG_BUFFER_CMD, -1);
	ck_assert_int_eq(res.kind, ATN_NOTHING);
	ck_assert_uint_eq(res.flags, 0x02);
	/* events never hold bridged requests */
	ck_assert(atn_bridge_can_send(&m));
	want_req(feed(r_event, sizeof(r_event)), 0x35, -1);
	ck_assert_int_eq(res.kind, ATN_EVENT);
	ck_assert_int_eq(res.msg.recv_type, IPMI_ASYNC_EVENT_RECV_TYPE);
	ck_assert_int_eq(res.msg.addr.addr_type,
			 IPMI_SYSTEM_INTERFACE_ADDR_TYPE);
	ck_assert_int_eq(res.msg.addr.channel, IPMI_BMC_CHANNEL);
	ck_assert_uint_eq(res.msg.addr.lun, 0);
	ck_assert_int_eq(res.msg.msgid, 0);
	ck_assert_uint_eq(res.msg.netfn, 0x07);
	ck_assert_uint_eq(res.msg.cmd, 0x35);
	ck_assert_uint_eq(res.msg.data_len, 16);
	ck_assert_mem_eq(res.msg.data, r_event + 3, 16);
	/* a second event, then "empty" */
	want_req(feed(r_event, sizeof(r_event)), 0x35, -1);
	ck_assert_int_eq(res.kind, ATN_EVENT);
	ck_assert_int_eq(feed(r_evt_empty, 3), 0);
	ck_assert_int_eq(res.kind, ATN_NOTHING);
	ck_assert_uint_eq(res.cc, 0x80);
	ck_assert(!atn_busy(&m));
}
END_TEST

/* some BMCs answer "no event" with cc 0 and no data: that ends it too */
START_TEST(test_event_short)
{
	want_req(attn_with_flags(ATN_FLAG_EVT_BUF_FULL), 0x35, -1);
	ck_assert_int_eq(feed(r_event, 3), 0);
	ck_assert_int_eq(res.kind, ATN_NOTHING);
	want_req(attn_with_flags(ATN_FLAG_EVT_BUF_FULL), 0x35, -1);
	ck_assert_int_eq(feed(r_event, 18), 0);
	ck_assert_int_eq(res.kind, ATN_NOTHING);
	ck_assert(!atn_busy(&m));
}
END_TEST

START_TEST(test_messages)
{
	want_req(attn_with_flags(ATN_FLAG_RECV_MSG), IPMI_GET_MSG_CMD, -1);
	ck_assert(!atn_bridge_can_send(&m)); /* a Get Message is owed */
	want_req(feed(r_ipmb_rsp, sizeof(r_ipmb_rsp)), 0x33, -1);
	ck_assert_int_eq(res.kind, ATN_IPMB_RESPONSE);
	ck_assert(res.rx.is_response);
	ck_assert_uint_eq(res.rx.src_sa, 0x82);
	ck_assert_uint_eq(res.rx.seq, 5);
	ck_assert_uint_eq(res.rx.cmd, 1);
	ck_assert_uint_eq(res.rx.netfn, 7);
	ck_assert_ptr_eq(res.rx.data, r_ipmb_rsp + 9);
	ck_assert(!atn_bridge_can_send(&m)); /* until the queue is empty */
	want_req(feed(r_ipmb_cmd, sizeof(r_ipmb_cmd)), 0x33, -1);
	ck_assert_int_eq(res.kind, ATN_IPMB_COMMAND);
	ck_assert_uint_eq(res.rx.src_sa, 0x40);
	ck_assert_uint_eq(res.rx.netfn, 0x2e);
	ck_assert_uint_eq(res.rx.priv, 4);
	ck_assert_int_eq(feed(r_msg_empty, 3), 0);
	ck_assert_int_eq(res.kind, ATN_NOTHING);
	ck_assert(!atn_busy(&m));
	ck_assert(atn_bridge_can_send(&m));
}
END_TEST

START_TEST(test_message_empty_first)
{
	want_req(attn_with_flags(ATN_FLAG_RECV_MSG), 0x33, -1);
	ck_assert_int_eq(feed(r_msg_empty, 3), 0);
	ck_assert(atn_bridge_can_send(&m));
	/* a wrong answer also ends the fetching */
	want_req(attn_with_flags(ATN_FLAG_RECV_MSG), 0x33, -1);
	ck_assert_int_eq(feed(r_evt_empty, 3), 0);
	ck_assert(!atn_busy(&m));
}
END_TEST

/* a bad checksum is not held against a frame (stock behaviour); a short
 * frame is dropped; the fetching goes on */
START_TEST(test_message_invalid)
{
	uint8_t bad[sizeof(r_ipmb_rsp)];

	memcpy(bad, r_ipmb_rsp, sizeof(bad));
	bad[10] ^= 1;
	want_req(attn_with_flags(ATN_FLAG_RECV_MSG), 0x33, -1);
	want_req(feed(bad, sizeof(bad)), 0x33, -1);
	ck_assert_int_eq(res.kind, ATN_IPMB_RESPONSE);
	ck_assert_uint_eq(res.rx.src_sa, 0x82);
	want_req(feed(r_ipmb_rsp, 10), 0x33, -1); /* too short */
	ck_assert_int_eq(res.kind, ATN_INVALID);
	ck_assert_int_eq(feed(r_msg_empty, 3), 0);
}
END_TEST

START_TEST(test_watchdog)
{
	want_req(attn_with_flags(ATN_FLAG_WDT_PRETIMEOUT),
		 IPMI_CLEAR_MSG_FLAGS_CMD, ATN_FLAG_WDT_PRETIMEOUT);
	ck_assert_int_eq(res.kind, ATN_WATCHDOG);
	ck_assert(atn_bridge_can_send(&m));
	ck_assert_int_eq(feed(r_clear_ok, 3), 0);
	ck_assert_int_eq(res.kind, ATN_NOTHING);
	ck_assert(!atn_busy(&m));
	/* a failing Clear changes nothing */
	want_req(attn_with_flags(ATN_FLAG_WDT_PRETIMEOUT), 0x30, 0x08);
	ck_assert_int_eq(feed((const uint8_t[]){ 0x1c, 0x30, 0xd5 }, 3), 0);
	ck_assert(!atn_busy(&m));
}
END_TEST

/* all three: watchdog first, then messages, then events */
START_TEST(test_all_flags)
{
	want_req(attn_with_flags(0x0b), 0x30, 0x08);
	ck_assert_int_eq(res.kind, ATN_WATCHDOG);
	ck_assert_uint_eq(res.flags, 0x0b);
	ck_assert(!atn_bridge_can_send(&m)); /* messages still owed */
	want_req(feed(r_clear_ok, 3), 0x33, -1);
	want_req(feed(r_ipmb_rsp, sizeof(r_ipmb_rsp)), 0x33, -1);
	ck_assert_int_eq(res.kind, ATN_IPMB_RESPONSE);
	want_req(feed(r_msg_empty, 3), 0x35, -1);
	ck_assert(atn_bridge_can_send(&m));
	want_req(feed(r_event, sizeof(r_event)), 0x35, -1);
	ck_assert_int_eq(res.kind, ATN_EVENT);
	ck_assert_int_eq(feed(r_evt_empty, 3), 0);
	ck_assert(!atn_busy(&m));
}
END_TEST

START_TEST(test_messages_and_events)
{
	want_req(attn_with_flags(0x03), 0x33, -1);
	want_req(feed(r_msg_empty, 3), 0x35, -1);
	ck_assert_int_eq(feed(r_evt_empty, 3), 0);
	ck_assert(!atn_busy(&m));
}
END_TEST

START_TEST(test_oem_flags)
{
	/* ignored, like the stock driver without an OEM handler */
	ck_assert_int_eq(attn_with_flags(ATN_FLAG_OEM), 0);
	ck_assert_uint_eq(res.flags, 0xe0);
	ck_assert(!atn_busy(&m));
	ck_assert_int_eq(attn_with_flags(0x20 | 0x04), 0); /* 0x04: reserved */
	/* with the Dell quirk OEM0 means "receive message" */
	m.oem_as_msg = ATN_FLAG_OEM0;
	want_req(attn_with_flags(ATN_FLAG_OEM0), 0x33, -1);
	ck_assert(!atn_bridge_can_send(&m));
	ck_assert_int_eq(feed(r_msg_empty, 3), 0);
	ck_assert_int_eq(attn_with_flags(ATN_FLAG_OEM1), 0);
}
END_TEST

/* SMS_ATN during a run: remembered, a new flags fetch follows the run */
START_TEST(test_attention_during_run)
{
	want_req(attn_with_flags(ATN_FLAG_EVT_BUF_FULL), 0x35, -1);
	ck_assert(atn_bridge_can_send(&m));
	ck_assert_int_eq(atn_attention(&m, req, sizeof(req)), 0);
	ck_assert(!atn_bridge_can_send(&m));
	ck_assert_int_eq(atn_attention(&m, req, sizeof(req)), 0);
	want_req(feed(r_evt_empty, 3), IPMI_GET_MSG_FLAGS_CMD, -1);
	ck_assert(!atn_bridge_can_send(&m));
	{
		uint8_t f[4];

		flags_rsp(0, f);
		ck_assert_int_eq(feed(f, 4), 0); /* only once */
	}
	ck_assert(!atn_busy(&m));
	ck_assert(atn_bridge_can_send(&m));
}
END_TEST

START_TEST(test_poll_events)
{
	want_req(atn_poll_events(&m, req, sizeof(req)), 0x35, -1);
	ck_assert(atn_busy(&m));
	ck_assert(atn_bridge_can_send(&m));
	ck_assert_int_eq(atn_poll_events(&m, req, sizeof(req)), 0);
	want_req(feed(r_event, sizeof(r_event)), 0x35, -1);
	ck_assert_int_eq(res.kind, ATN_EVENT);
	/* the first poll's run ends; the remembered poll starts another */
	want_req(feed(r_evt_empty, 3), 0x35, -1);
	ck_assert_int_eq(feed(r_evt_empty, 3), 0);
	ck_assert(!atn_busy(&m));
	/* attention wins over a remembered poll */
	want_req(atn_poll_events(&m, req, sizeof(req)), 0x35, -1);
	ck_assert_int_eq(atn_poll_events(&m, req, sizeof(req)), 0);
	ck_assert_int_eq(atn_attention(&m, req, sizeof(req)), 0);
	want_req(feed(r_evt_empty, 3), 0x31, -1);
	{
		uint8_t f[4];

		flags_rsp(0, f);
		want_req(feed(f, 4), 0x35, -1);
	}
	ck_assert_int_eq(feed(r_evt_empty, 3), 0);
	ck_assert(!atn_busy(&m));
}
END_TEST

/* a remembered poll is a new run: its fetch count starts over */
START_TEST(test_poll_new_run_count)
{
	int n, fetches = 1;

	want_req(atn_poll_events(&m, req, sizeof(req)), 0x35, -1);
	ck_assert_int_eq(atn_poll_events(&m, req, sizeof(req)), 0);
	for (int i = 0; i < ATN_MAX_IN_A_ROW; i++)
		want_req(feed(r_event, sizeof(r_event)), 0x35, -1);
	want_req(feed(r_evt_empty, 3), 0x35, -1); /* the remembered run */
	while ((n = feed(r_event, sizeof(r_event))) > 0)
		fetches++;
	ck_assert_int_eq(fetches, ATN_MAX_IN_A_ROW + 1);
	/* a 20-byte "event" is not one: the run ends */
	want_req(atn_poll_events(&m, req, sizeof(req)), 0x35, -1);
	{
		uint8_t big[20];

		memcpy(big, r_event, sizeof(r_event));
		big[19] = 0;
		ck_assert_int_eq(feed(big, sizeof(big)), 0);
		ck_assert_int_eq(res.kind, ATN_NOTHING);
	}
}
END_TEST

/* a BMC that never says "empty": 11 fetches, then the bit is dropped */
START_TEST(test_fetch_cap)
{
	int n, fetches = 1;

	want_req(attn_with_flags(ATN_FLAG_RECV_MSG | ATN_FLAG_EVT_BUF_FULL),
		 0x33, -1);
	while ((n = feed(r_ipmb_cmd, sizeof(r_ipmb_cmd))) > 0 &&
	       req[1] == IPMI_GET_MSG_CMD)
		fetches++;
	ck_assert_int_eq(fetches, ATN_MAX_IN_A_ROW + 1);
	ck_assert(atn_bridge_can_send(&m));
	/* events get their own count */
	want_req(n, 0x35, -1);
	fetches = 1;
	while ((n = feed(r_event, sizeof(r_event))) > 0)
		fetches++;
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(fetches, ATN_MAX_IN_A_ROW + 1);
	ck_assert(!atn_busy(&m));
}
END_TEST

START_TEST(test_classify_media)
{
	uint8_t media[16] = { [0] = IPMI_CHANNEL_MEDIUM_IPMB,
			      [1] = IPMI_CHANNEL_MEDIUM_8023LAN,
			      [2] = IPMI_CHANNEL_MEDIUM_ASYNC,
			      [3] = 0x60,
			      [4] = 0x7f,
			      [5] = 0 };
	uint8_t b[sizeof(r_ipmb_cmd)];
	struct atn_result r;

	memcpy(b, r_ipmb_cmd, sizeof(b));
	ck_assert_int_eq(atn_classify_msg(b, sizeof(b), media, &r),
			 ATN_IPMB_COMMAND);
	ck_assert_int_eq(atn_classify_msg(b, sizeof(b), NULL, &r),
			 ATN_IPMB_COMMAND);
	b[3] = 0x41; /* channel 1 */
	ck_assert_int_eq(atn_classify_msg(b, sizeof(b), media, &r), ATN_LAN);
	b[3] = 0x02;
	ck_assert_int_eq(atn_classify_msg(b, sizeof(b), media, &r), ATN_LAN);
	b[3] = 0x05; /* medium 0: unknown */
	ck_assert_int_eq(atn_classify_msg(b, sizeof(b), media, &r),
			 ATN_INVALID);
	b[3] = 0x04;
	ck_assert_int_eq(atn_classify_msg(b, sizeof(b), media, &r), ATN_OEM);
	b[3] = 0x03;
	ck_assert_int_eq(atn_classify_msg(b, sizeof(b), media, &r), ATN_OEM);
	ck_assert_uint_eq(r.rx.channel, 3);
	ck_assert_int_eq(r.msg.recv_type, IPMI_OEM_RECV_TYPE);
	ck_assert_int_eq(r.msg.addr.addr_type, IPMI_SYSTEM_INTERFACE_ADDR_TYPE);
	ck_assert_int_eq(r.msg.addr.channel, IPMI_BMC_CHANNEL);
	ck_assert_uint_eq(r.msg.addr.lun, 0);
	ck_assert_uint_eq(r.msg.netfn, 0x07);
	ck_assert_uint_eq(r.msg.cmd, 0x33);
	ck_assert_uint_eq(r.msg.data_len, sizeof(b) - 4);
	ck_assert_mem_eq(r.msg.data, b + 4, sizeof(b) - 4);
	/* an OEM message may be as short as the channel byte */
	ck_assert_int_eq(atn_classify_msg(b, 4, media, &r), ATN_OEM);
	ck_assert_uint_eq(r.msg.data_len, 0);
	ck_assert_int_eq(atn_classify_msg(b, 3, media, &r), ATN_INVALID);
	/* through the machine */
	m.media = media;
	want_req(attn_with_flags(ATN_FLAG_RECV_MSG), 0x33, -1);
	want_req(feed(b, sizeof(b)), 0x33, -1);
	ck_assert_int_eq(res.kind, ATN_OEM);
	b[3] = 0x01;
	want_req(feed(b, sizeof(b)), 0x33, -1);
	ck_assert_int_eq(res.kind, ATN_LAN);
	ck_assert_int_eq(feed(r_msg_empty, 3), 0);
}
END_TEST

START_TEST(test_event_msg)
{
	struct ipmb_user_msg msg;
	uint8_t ev[19];

	memcpy(ev, r_event, sizeof(ev));
	ev[0] = 0x1c | 2; /* the LUN comes from the response */
	ck_assert_int_eq(atn_event_msg(ev, sizeof(ev), &msg), 0);
	ck_assert_uint_eq(msg.addr.lun, 2);
	ck_assert_uint_eq(msg.netfn, 7);
	ev[2] = 0x80;
	ck_assert_int_eq(atn_event_msg(ev, sizeof(ev), &msg), -EINVAL);
	ev[2] = 0;
	ck_assert_int_eq(atn_event_msg(ev, 18, &msg), -EINVAL);
	ck_assert_int_eq(atn_event_msg(ev, 20, &msg),
			 -EINVAL); /* not 16 bytes */
}
END_TEST

/* The enables the stock SI driver keeps, read-modify-write. */
START_TEST(test_global_enables)
{
	const uint8_t get_08[4] = { 0x1c, 0x2f, 0x00, 0x08 };
	const uint8_t get_0f[4] = { 0x1c, 0x2f, 0x00, 0x0f };
	const uint8_t get_f3[4] = { 0x1c, 0x2f, 0x00, 0xf3 };
	const uint8_t get_err[4] = { 0x1c, 0x2f, 0xc1, 0x00 };
	const uint8_t wrong_cmd[4] = { 0x1c, 0x2e, 0x00, 0x08 };

	ck_assert_uint_eq(atn_global_enables(true, false), 0x04);
	ck_assert_uint_eq(atn_global_enables(true, true), 0x07);
	ck_assert_uint_eq(atn_global_enables(false, true), 0x01);
	ck_assert_uint_eq(atn_global_enables(false, false), 0x00);
	/* as once seen: 0x08 behind a node, 0x0c behind ipmi_si */
	ck_assert_int_eq(atn_enables_fix(get_08, 4, 0x04), 0x0c);
	ck_assert_int_eq(atn_enables_fix(get_08, 4, 0x07), 0x0f);
	ck_assert_int_eq(atn_enables_fix(get_0f, 4, 0x07), -EALREADY);
	/* without an IRQ the interrupt bits go off; others are kept */
	ck_assert_int_eq(atn_enables_fix(get_0f, 4, 0x04), 0x0c);
	ck_assert_int_eq(atn_enables_fix(get_f3, 4, 0x04), 0xf4);
	ck_assert_int_eq(atn_enables_fix(get_err, 4, 0x04), -EIO);
	ck_assert_int_eq(atn_enables_fix(get_08, 3, 0x04), -EIO);
	ck_assert_int_eq(atn_enables_fix(wrong_cmd, 4, 0x04), -EIO);
}
END_TEST

START_TEST(test_channel_medium)
{
	const uint8_t ipmb[9] = { 0x1c, 0x42, 0x00, 0x00, 0x01, 0x01, 0, 0, 0 };
	const uint8_t lan[9] = { 0x1c, 0x42, 0x00, 0x01, 0x84, 0x01, 0, 0, 0 };
	const uint8_t nosys[3] = { 0x1c, 0x42, 0xc1 };
	const uint8_t absent[3] = { 0x1c, 0x42, 0xcc };
	const uint8_t shortr[5] = { 0x1c, 0x42, 0x00, 0x00, 0x01 };
	uint8_t med = 0xee;

	ck_assert_int_eq(atn_channel_medium(ipmb, sizeof(ipmb), &med), 0);
	ck_assert_uint_eq(med, IPMI_CHANNEL_MEDIUM_IPMB);
	ck_assert_int_eq(atn_channel_medium(lan, sizeof(lan), &med), 0);
	ck_assert_uint_eq(med, 0x04); /* 7 bits */
	med = 0xee;
	ck_assert_int_eq(atn_channel_medium(nosys, sizeof(nosys), &med),
			 -ENOSYS);
	ck_assert_int_eq(atn_channel_medium(absent, sizeof(absent), &med),
			 -EIO);
	ck_assert_int_eq(atn_channel_medium(shortr, sizeof(shortr), &med),
			 -EIO);
	ck_assert_uint_eq(med, 0xee);
}
END_TEST

/* ---- a flag the BMC keeps up with nothing behind it ---- */

static uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return fake_now;
}

/* stderr to a file: the warnings the machine logs, counted */
static FILE *log_file;

static void stuck_setup(void)
{
	setup();
	fake_now = 1000000000ull;
	m.clock_ns = fake_clock;
	log_file = tmpfile();
	ck_assert_ptr_nonnull(log_file);
	ck_assert_int_ge(dup2(fileno(log_file), 2), 0);
}

static unsigned int warnings(void)
{
	char line[512];
	unsigned int n = 0;

	fflush(stderr);
	rewind(log_file);
	while (fgets(line, sizeof(line), log_file))
		n += strstr(line, "atn: the BMC keeps flag") != NULL;
	return n;
}

/* SMS_ATN, "message available", Get Message: empty. 1 if it ran. */
static int empty_run(uint8_t flag, const uint8_t *empty)
{
	int n = atn_attention(&m, req, sizeof(req));

	if (n == 0)
		return 0; /* ignored */
	want_req(n, IPMI_GET_MSG_FLAGS_CMD, -1);
	{
		uint8_t f[4];

		flags_rsp(flag, f);
		n = feed(f, 4);
	}
	want_req(n, flag == ATN_FLAG_RECV_MSG ? 0x33 : 0x35, -1);
	ck_assert_int_eq(feed(empty, 3), 0);
	ck_assert(!atn_busy(&m));
	fake_now += 1000000; /* 1 ms later the BMC raises SMS_ATN again */
	return 1;
}

/* ipmi_sim's loop: bounded after ATN_EMPTY_MAX runs, then one run a pause */
START_TEST(test_stuck_recv_msg)
{
	unsigned int i;

	for (i = 1; i < ATN_EMPTY_MAX; i++) {
		ck_assert_int_eq(empty_run(ATN_FLAG_RECV_MSG, r_msg_empty), 1);
		ck_assert(!atn_paused(&m));
	}
	ck_assert_int_eq(empty_run(ATN_FLAG_RECV_MSG, r_msg_empty), 1);
	ck_assert(atn_paused(&m));
	ck_assert_uint_eq(m.pauses, 1);
	ck_assert_uint_eq(warnings(), 1);
	/* SMS_ATN ignored for the pause; the interface is free meanwhile */
	for (i = 0; i < 100; i++) {
		ck_assert_int_eq(empty_run(ATN_FLAG_RECV_MSG, r_msg_empty), 0);
		ck_assert(!atn_busy(&m));
		ck_assert(atn_bridge_can_send(&m));
	}
	ck_assert_uint_eq(m.ignored, 100);
	fake_now = m.paused_until_ns - 1;
	ck_assert_int_eq(empty_run(ATN_FLAG_RECV_MSG, r_msg_empty), 0);
	/* after it, one run; empty again: paused again at once, not logged */
	fake_now = m.paused_until_ns;
	ck_assert_int_eq(empty_run(ATN_FLAG_RECV_MSG, r_msg_empty), 1);
	ck_assert(atn_paused(&m));
	ck_assert_uint_eq(m.pauses, 2);
	ck_assert_uint_eq(warnings(), 1);
	/* ... also when that run comes long after the pause */
	fake_now = m.paused_until_ns + 10 * ATN_EMPTY_GAP_NS;
	ck_assert_int_eq(empty_run(ATN_FLAG_RECV_MSG, r_msg_empty), 1);
	ck_assert(atn_paused(&m));
	ck_assert_uint_eq(m.pauses, 3);
	ck_assert_uint_eq(warnings(), 1);
	/* a message at last: the episode is over */
	fake_now = m.paused_until_ns;
	want_req(attn_with_flags(ATN_FLAG_RECV_MSG), 0x33, -1);
	want_req(feed(r_ipmb_cmd, sizeof(r_ipmb_cmd)), 0x33, -1);
	ck_assert_int_eq(res.kind, ATN_IPMB_COMMAND);
	ck_assert_int_eq(feed(r_msg_empty, 3), 0); /* drained: not empty */
	ck_assert(!atn_paused(&m));
	ck_assert_uint_eq(m.empty_runs, 0);
	for (i = 1; i < ATN_EMPTY_MAX; i++)
		ck_assert_int_eq(empty_run(ATN_FLAG_RECV_MSG, r_msg_empty), 1);
	ck_assert(!atn_paused(&m));
	ck_assert_int_eq(empty_run(ATN_FLAG_RECV_MSG, r_msg_empty), 1);
	ck_assert(atn_paused(&m));
	ck_assert_uint_eq(m.pauses, 4);
	ck_assert_uint_eq(warnings(), 2); /* a new episode */
}
END_TEST

/* paused, the run after a bridged Send Message still goes out (the
 * forwarded response must be fetched before the next Send Message) */
START_TEST(test_stuck_after_send)
{
	unsigned int i;

	for (i = 0; i < ATN_EMPTY_MAX; i++)
		empty_run(ATN_FLAG_RECV_MSG, r_msg_empty);
	ck_assert(atn_paused(&m));
	ck_assert_int_eq(empty_run(ATN_FLAG_RECV_MSG, r_msg_empty), 0);
	atn_after_send(&m);
	want_req(attn_with_flags(ATN_FLAG_RECV_MSG), 0x33, -1);
	want_req(feed(r_ipmb_rsp, sizeof(r_ipmb_rsp)), 0x33, -1);
	ck_assert_int_eq(res.kind, ATN_IPMB_RESPONSE);
	ck_assert_int_eq(feed(r_msg_empty, 3), 0);
	ck_assert(!atn_paused(&m)); /* fetched: the episode is over */
	/* once only; and also when the run was busy at the time */
	for (i = 0; i < ATN_EMPTY_MAX; i++)
		empty_run(ATN_FLAG_RECV_MSG, r_msg_empty);
	ck_assert(atn_paused(&m));
	atn_after_send(&m);
	ck_assert_int_eq(empty_run(ATN_FLAG_RECV_MSG, r_msg_empty), 1);
	ck_assert_int_eq(empty_run(ATN_FLAG_RECV_MSG, r_msg_empty), 0);
	fake_now = m.paused_until_ns;
	want_req(attn_with_flags(ATN_FLAG_RECV_MSG), 0x33, -1);
	atn_after_send(&m);
	ck_assert_int_eq(atn_attention(&m, req, sizeof(req)), 0);
	want_req(feed(r_msg_empty, 3), IPMI_GET_MSG_FLAGS_CMD, -1);
	ck_assert(atn_paused(&m));
}
END_TEST

/* the same with a failed Get Message (an error, a wrong answer) and with
 * the event buffer flag */
START_TEST(test_stuck_other)
{
	static const uint8_t r_err[] = { 0x1c, 0x33, 0xd5 };
	unsigned int i;

	for (i = 0; i < ATN_EMPTY_MAX - 1; i++)
		empty_run(ATN_FLAG_RECV_MSG, i & 1 ? r_err : r_evt_empty);
	empty_run(ATN_FLAG_RECV_MSG, r_msg_empty);
	ck_assert(atn_paused(&m));
	atn_init(&m);
	m.clock_ns = fake_clock;
	for (i = 0; i < ATN_EMPTY_MAX; i++) {
		ck_assert(!atn_paused(&m));
		empty_run(ATN_FLAG_EVT_BUF_FULL, r_evt_empty);
	}
	ck_assert(atn_paused(&m));
	/* polling the event buffer goes on while paused */
	want_req(atn_poll_events(&m, req, sizeof(req)), 0x35, -1);
	ck_assert_int_eq(feed(r_evt_empty, 3), 0);
}
END_TEST

/* not a loop: empty runs far apart, the flags going down between them,
 * empty polls, an SMS_ATN that found something */
START_TEST(test_stuck_not)
{
	uint8_t f[4];
	unsigned int i;

	for (i = 0; i < 3 * ATN_EMPTY_MAX; i++) {
		empty_run(ATN_FLAG_RECV_MSG, r_msg_empty);
		fake_now += ATN_EMPTY_GAP_NS + 1;
		ck_assert(!atn_paused(&m));
	}
	for (i = 0; i < 3 * ATN_EMPTY_MAX; i++) {
		empty_run(ATN_FLAG_RECV_MSG, r_msg_empty);
		if (i % (ATN_EMPTY_MAX - 1) == 0)
			ck_assert_int_eq(attn_with_flags(0), 0);
		ck_assert(!atn_paused(&m));
	}
	for (i = 0; i < 3 * ATN_EMPTY_MAX; i++) {
		want_req(atn_poll_events(&m, req, sizeof(req)), 0x35, -1);
		ck_assert_int_eq(feed(r_evt_empty, 3), 0);
		ck_assert(!atn_paused(&m));
	}
	/* messages empty, but an event fetched in the same run */
	for (i = 0; i < 3 * ATN_EMPTY_MAX; i++) {
		want_req(attn_with_flags(ATN_FLAG_RECV_MSG |
					 ATN_FLAG_EVT_BUF_FULL),
			 0x33, -1);
		want_req(feed(r_msg_empty, 3), 0x35, -1);
		want_req(feed(r_event, sizeof(r_event)), 0x35, -1);
		ck_assert_int_eq(feed(r_evt_empty, 3), 0);
		ck_assert(!atn_paused(&m));
	}
	/* an SMS_ATN during a run that ends in a pause is ignored too */
	for (i = 1; i < ATN_EMPTY_MAX; i++)
		empty_run(ATN_FLAG_RECV_MSG, r_msg_empty);
	want_req(attn_with_flags(ATN_FLAG_RECV_MSG), 0x33, -1);
	ck_assert_int_eq(atn_attention(&m, req, sizeof(req)), 0);
	ck_assert_int_eq(feed(r_msg_empty, 3), 0);
	ck_assert(!atn_busy(&m));
	ck_assert(atn_paused(&m));
	ck_assert_uint_eq(m.ignored, 1);
	(void)f;
}
END_TEST

static Suite *atn_suite(void)
{
	Suite *s = suite_create("atn");
	TCase *tc = tcase_create("flags");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_idle);
	tcase_add_test(tc, test_no_flags);
	tcase_add_test(tc, test_flags_error);
	tcase_add_test(tc, test_events);
	tcase_add_test(tc, test_event_short);
	tcase_add_test(tc, test_messages);
	tcase_add_test(tc, test_message_empty_first);
	tcase_add_test(tc, test_message_invalid);
	tcase_add_test(tc, test_watchdog);
	tcase_add_test(tc, test_all_flags);
	tcase_add_test(tc, test_messages_and_events);
	tcase_add_test(tc, test_oem_flags);
	tcase_add_test(tc, test_attention_during_run);
	tcase_add_test(tc, test_poll_events);
	tcase_add_test(tc, test_poll_new_run_count);
	tcase_add_test(tc, test_fetch_cap);
	suite_add_tcase(s, tc);

	tc = tcase_create("stuck flag");
	tcase_add_checked_fixture(tc, stuck_setup, NULL);
	tcase_add_test(tc, test_stuck_recv_msg);
	tcase_add_test(tc, test_stuck_after_send);
	tcase_add_test(tc, test_stuck_other);
	tcase_add_test(tc, test_stuck_not);
	suite_add_tcase(s, tc);

	tc = tcase_create("classify");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_classify_media);
	tcase_add_test(tc, test_event_msg);
	tcase_add_test(tc, test_global_enables);
	tcase_add_test(tc, test_channel_medium);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(atn_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
