/* SPDX-License-Identifier: MIT */
/*
 * Check suite for tests/tools/sms_inject.c, the BMC side of SMS_ATN that
 * kcsmux-bmc-proxy fakes: IPMB request building against hand-computed
 * vectors (one shared with test_ipmb.c, which parses it the way kcsmuxd
 * does), the hex parser, which requests are answered and what with, FIFO
 * order, Clear Message Flags, and the ATTN / ATTN_IRQ choice.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "sms_inject.h"
#include "vm_codec.h"
#include "util/array.h"

static void assert_bytes(const uint8_t *got, size_t got_len,
			 const uint8_t *want, size_t want_len)
{
	ck_assert_uint_eq(got_len, want_len);
	for (size_t i = 0; i < want_len; i++)
		ck_assert_msg(got[i] == want[i],
			      "byte %zu: 0x%02x, want 0x%02x", i, got[i],
			      want[i]);
}

/* decoded request: seq, netfn << 2 | lun, cmd, data..., checksum */
static size_t req(uint8_t *out, uint8_t seq, uint8_t netfn, uint8_t lun,
		  uint8_t cmd, const uint8_t *data, size_t len)
{
	size_t n = 0;

	out[n++] = seq;
	out[n++] = (uint8_t)(netfn << 2 | lun);
	out[n++] = cmd;
	if (len)
		memcpy(out + n, data, len);
	n += len;
	out[n] = vm_checksum(out, n);
	return n + 1;
}

/* decode a reply's wire bytes; returns the decoded length */
static size_t decode(const struct sms_reply *r, uint8_t *out)
{
	struct vm_parser p;
	struct vm_frame f;
	size_t used;

	vm_parser_init(&p);
	ck_assert(r->len > 0);
	ck_assert(vm_parser_next(&p, r->wire, r->len, &used, &f));
	ck_assert_uint_eq(used, r->len);
	ck_assert_int_eq(f.kind, VM_FRAME_MSG);
	ck_assert(!f.bad_escape && !f.truncated);
	memcpy(out, f.data, f.data_len);
	return f.data_len;
}

/* send an App request; returns whether it was answered, decoded in rsp */
static bool ask(struct sms_inject *s, uint8_t seq, uint8_t cmd,
		const uint8_t *data, size_t len, uint8_t *rsp, size_t *rlen)
{
	uint8_t q[64];
	size_t n = req(q, seq, SMS_NETFN_APP, 0, cmd, data, len);
	struct sms_reply r;

	memset(&r, 0, sizeof(r));
	if (!sms_inject_request(s, q, n, &r))
		return false;
	ck_assert_uint_eq(r.cmd, cmd);
	*rlen = decode(&r, rsp);
	ck_assert_uint_eq(r.cc, rsp[3]);
	return true;
}

/* check a decoded response's header, cc and checksum */
static void check_rsp(const uint8_t *rsp, size_t len, uint8_t seq, uint8_t cmd,
		      uint8_t cc)
{
	ck_assert_uint_ge(len, 5);
	ck_assert_uint_eq(rsp[0], seq);
	ck_assert_uint_eq(rsp[1], (SMS_NETFN_APP + 1) << 2);
	ck_assert_uint_eq(rsp[2], cmd);
	ck_assert_uint_eq(rsp[3], cc);
	ck_assert_uint_eq(vm_checksum(rsp, len), 0);
}

/* 0x40 LUN 0 sends netfn 0x2e cmd 5 seq 9 data DE AD to LUN 2 of the BMC
 * (0x20), channel 0, privilege 4: v_cmd of test_ipmb.c after its cc */
static const uint8_t v_cmd[] = {
	0x40, 0xba, 0x26, 0x40, 0x24, 0x05, 0xde, 0xad, 0x0c,
};
/* 0x81 sends Get Device ID (netfn 6 cmd 1), seq 0, channel 0 */
static const uint8_t v_devid[] = { 0x00, 0x18, 0xc8, 0x81, 0x00, 0x01, 0x7e };

START_TEST(ipmb_request_vectors)
{
	static const uint8_t dead[] = { 0xde, 0xad };
	struct sms_ipmb_req a = { .channel = 0x40,
				  .rs_sa = 0x20,
				  .rs_lun = 2,
				  .netfn = 0x2e,
				  .rq_sa = 0x40,
				  .rq_seq = 9,
				  .rq_lun = 0,
				  .cmd = 0x05,
				  .data = dead,
				  .data_len = 2 };
	struct sms_ipmb_req b = {
		.rs_sa = 0x20, .netfn = 0x06, .rq_sa = 0x81, .cmd = 0x01
	};
	uint8_t out[64];

	assert_bytes(out, sms_ipmb_request(&a, out, sizeof(out)), v_cmd,
		     sizeof(v_cmd));
	assert_bytes(out, sms_ipmb_request(&b, out, sizeof(out)), v_devid,
		     sizeof(v_devid));
	/* exactly enough room, one byte short, data without a pointer */
	ck_assert_uint_eq(sms_ipmb_request(&a, out, sizeof(v_cmd)),
			  sizeof(v_cmd));
	ck_assert_uint_eq(sms_ipmb_request(&a, out, sizeof(v_cmd) - 1), 0);
	ck_assert_uint_eq(sms_ipmb_request(&b, out, 6), 0);
	a.data = NULL;
	ck_assert_uint_eq(sms_ipmb_request(&a, out, sizeof(out)), 0);
}
END_TEST

START_TEST(ipmb_request_fields_masked_and_checksums)
{
	uint8_t data[40], out[64];
	struct sms_ipmb_req r = { .channel = 0x07,
				  .rs_sa = 0x20,
				  .rs_lun = 7,
				  .netfn = 0xff,
				  .rq_sa = 0xa0,
				  .rq_seq = 0xff,
				  .rq_lun = 5,
				  .cmd = 0xaa,
				  .data = data,
				  .data_len = sizeof(data) };
	size_t n;
	uint8_t s1;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 37);
	n = sms_ipmb_request(&r, out, sizeof(out));
	ck_assert_uint_eq(n, 7 + sizeof(data));
	ck_assert_uint_eq(out[0], 0x07);
	ck_assert_uint_eq(out[1], 0xff); /* 0x3f << 2 | 3 */
	ck_assert_uint_eq(out[4], 0xfd); /* 0x3f << 2 | 1 */
	/* chk1 with the implied rsSA, chk2 over rqSA..chk2 */
	s1 = (uint8_t)(0x20 + out[1] + out[2]);
	ck_assert_uint_eq(s1, 0);
	ck_assert_uint_eq(vm_checksum(out + 3, n - 3), 0);
	assert_bytes(out + 6, sizeof(data), data, sizeof(data));
}
END_TEST

START_TEST(hex_parsing)
{
	uint8_t b[4];
	size_t n = 0;

	ck_assert_int_eq(sms_hex_append("0a1B", b, sizeof(b), &n), 0);
	ck_assert_int_eq(sms_hex_append("0xFf", b, sizeof(b), &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(b[0], 0x0a);
	ck_assert_uint_eq(b[1], 0x1b);
	ck_assert_uint_eq(b[2], 0xff);
	ck_assert_int_eq(sms_hex_append("0102", b, sizeof(b), &n), -ENOSPC);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(sms_hex_append("01", b, sizeof(b), &n), 0);
	ck_assert_uint_eq(n, 4);
	n = 0;
	ck_assert_int_eq(sms_hex_append("abc", b, sizeof(b), &n), -EINVAL);
	ck_assert_int_eq(sms_hex_append("zz", b, sizeof(b), &n), -EINVAL);
	ck_assert_int_eq(sms_hex_append("", b, sizeof(b), &n), -EINVAL);
	ck_assert_int_eq(sms_hex_append("0x", b, sizeof(b), &n), -EINVAL);
	ck_assert_int_eq(sms_hex_append("01 2", b, sizeof(b), &n), -EINVAL);
	ck_assert_int_eq(sms_hex_append(NULL, b, sizeof(b), &n), -EINVAL);
	ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(nothing_pending_forwards_everything)
{
	struct sms_inject s;
	uint8_t rsp[VM_DATA_MAX], q[16];
	size_t n;
	struct sms_reply r;

	sms_inject_init(&s);
	ck_assert(!sms_inject_pending(&s));
	ck_assert_uint_eq(sms_inject_flags(&s), 0);
	ck_assert(!ask(&s, 1, SMS_CMD_GET_MSG_FLAGS, NULL, 0, rsp, &n));
	ck_assert(!ask(&s, 2, SMS_CMD_GET_MSG, NULL, 0, rsp, &n));
	ck_assert(!ask(&s, 3, SMS_CMD_READ_EVENT_BUF, NULL, 0, rsp, &n));
	ck_assert(!ask(&s, 4, 0x01, NULL, 0, rsp, &n));
	/* too short to be a message */
	ck_assert(!sms_inject_request(&s, q, 3, &r));
}
END_TEST

START_TEST(event_answered_then_forwarded)
{
	struct sms_inject s;
	uint8_t ev[SMS_EVENT_LEN], rsp[VM_DATA_MAX];
	size_t n;

	/* bytes that need escaping on the wire */
	for (size_t i = 0; i < sizeof(ev); i++)
		ev[i] = (uint8_t)(0xa0 + i);
	sms_inject_init(&s);
	ck_assert_int_eq(sms_inject_event(&s, ev), 0);
	ck_assert(sms_inject_pending(&s));
	ck_assert_uint_eq(sms_inject_flags(&s), SMS_FLAG_EVT_BUF_FULL);

	ck_assert(ask(&s, 0x11, SMS_CMD_GET_MSG_FLAGS, NULL, 0, rsp, &n));
	check_rsp(rsp, n, 0x11, SMS_CMD_GET_MSG_FLAGS, 0);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(rsp[4], SMS_FLAG_EVT_BUF_FULL);
	ck_assert(sms_inject_pending(&s)); /* flags consume nothing */

	/* no message pending: Get Message is the BMC's */
	ck_assert(!ask(&s, 0x12, SMS_CMD_GET_MSG, NULL, 0, rsp, &n));

	ck_assert(ask(&s, 0xa0, SMS_CMD_READ_EVENT_BUF, NULL, 0, rsp, &n));
	check_rsp(rsp, n, 0xa0, SMS_CMD_READ_EVENT_BUF, 0);
	ck_assert_uint_eq(n, 5 + SMS_EVENT_LEN);
	assert_bytes(rsp + 4, SMS_EVENT_LEN, ev, sizeof(ev));
	ck_assert(!sms_inject_pending(&s));
	ck_assert(!ask(&s, 0x14, SMS_CMD_READ_EVENT_BUF, NULL, 0, rsp, &n));
	ck_assert(!ask(&s, 0x15, SMS_CMD_GET_MSG_FLAGS, NULL, 0, rsp, &n));
}
END_TEST

START_TEST(messages_fifo_and_both_kinds)
{
	struct sms_inject s;
	uint8_t ev[SMS_EVENT_LEN] = { 1, 2, 3 }, rsp[VM_DATA_MAX];
	size_t n;
	uint8_t q[8];
	struct sms_reply r;

	sms_inject_init(&s);
	ck_assert_int_eq(sms_inject_msg(&s, v_cmd, sizeof(v_cmd)), 0);
	ck_assert_int_eq(sms_inject_msg(&s, v_devid, sizeof(v_devid)), 0);
	ck_assert_int_eq(sms_inject_event(&s, ev), 0);
	ck_assert_uint_eq(sms_inject_flags(&s), 3);

	ck_assert(ask(&s, 7, SMS_CMD_GET_MSG_FLAGS, NULL, 0, rsp, &n));
	ck_assert_uint_eq(rsp[4], 3);
	ck_assert(ask(&s, 8, SMS_CMD_GET_MSG, NULL, 0, rsp, &n));
	check_rsp(rsp, n, 8, SMS_CMD_GET_MSG, 0);
	assert_bytes(rsp + 4, n - 5, v_cmd, sizeof(v_cmd));
	/* LUN echoed */
	n = req(q, 9, SMS_NETFN_APP, 2, SMS_CMD_GET_MSG, NULL, 0);
	ck_assert(sms_inject_request(&s, q, n, &r));
	n = decode(&r, rsp);
	ck_assert_uint_eq(rsp[1], (SMS_NETFN_APP + 1) << 2 | 2);
	assert_bytes(rsp + 4, n - 5, v_devid, sizeof(v_devid));
	ck_assert_uint_eq(sms_inject_flags(&s), SMS_FLAG_EVT_BUF_FULL);
	ck_assert(!ask(&s, 10, SMS_CMD_GET_MSG, NULL, 0, rsp, &n));
	ck_assert(ask(&s, 11, SMS_CMD_READ_EVENT_BUF, NULL, 0, rsp, &n));
	assert_bytes(rsp + 4, SMS_EVENT_LEN, ev, sizeof(ev));
	ck_assert(!sms_inject_pending(&s));
}
END_TEST

START_TEST(other_netfns_untouched)
{
	struct sms_inject s;
	uint8_t ev[SMS_EVENT_LEN] = { 0 }, q[16];
	struct sms_reply r;
	size_t n;

	sms_inject_init(&s);
	ck_assert_int_eq(sms_inject_event(&s, ev), 0);
	/* same command numbers, other netfns (and a response) */
	n = req(q, 1, 0x0a, 0, SMS_CMD_GET_MSG_FLAGS, NULL, 0);
	ck_assert(!sms_inject_request(&s, q, n, &r));
	n = req(q, 1, SMS_NETFN_APP + 1, 0, SMS_CMD_READ_EVENT_BUF, NULL, 0);
	ck_assert(!sms_inject_request(&s, q, n, &r));
	n = req(q, 1, 0x30, 0, SMS_CMD_READ_EVENT_BUF, NULL, 0);
	ck_assert(!sms_inject_request(&s, q, n, &r));
	ck_assert_uint_eq(s.ev_count, 1);
}
END_TEST

START_TEST(limits)
{
	struct sms_inject s;
	uint8_t ev[SMS_EVENT_LEN] = { 0 }, big[SMS_MSG_MAX + 1] = { 0 };
	uint8_t rsp[VM_DATA_MAX];
	size_t n;

	sms_inject_init(&s);
	for (unsigned int i = 0; i < SMS_QUEUE_MAX; i++) {
		ev[0] = (uint8_t)i;
		ck_assert_int_eq(sms_inject_event(&s, ev), 0);
		ck_assert_int_eq(sms_inject_msg(&s, big, i + 1), 0);
	}
	ck_assert_int_eq(sms_inject_event(&s, ev), -ENOSPC);
	ck_assert_int_eq(sms_inject_msg(&s, big, 1), -ENOSPC);
	ck_assert_int_eq(sms_inject_msg(&s, big, 0), -EINVAL);
	ck_assert_int_eq(sms_inject_msg(&s, big, sizeof(big)), -EINVAL);
	/* the ring wraps in order */
	for (unsigned int i = 0; i < 3; i++) {
		ck_assert(ask(&s, 1, SMS_CMD_READ_EVENT_BUF, NULL, 0, rsp, &n));
		ck_assert_uint_eq(rsp[4], i);
	}
	for (unsigned int i = 0; i < 3; i++) {
		ev[0] = (uint8_t)(100 + i);
		ck_assert_int_eq(sms_inject_event(&s, ev), 0);
	}
	for (unsigned int i = 3; i < SMS_QUEUE_MAX + 3; i++) {
		ck_assert(ask(&s, 1, SMS_CMD_READ_EVENT_BUF, NULL, 0, rsp, &n));
		ck_assert_uint_eq(rsp[4], i < SMS_QUEUE_MAX ?
						  i :
						  100 + i - SMS_QUEUE_MAX);
	}
	ck_assert_uint_eq(s.ev_count, 0);
	/* the largest message still fits a frame */
	sms_inject_clear(&s, SMS_FLAG_RECV_MSG);
	ck_assert_int_eq(sms_inject_msg(&s, big, SMS_MSG_MAX), 0);
	ck_assert(ask(&s, 2, SMS_CMD_GET_MSG, NULL, 0, rsp, &n));
	ck_assert_uint_eq(n, 5 + SMS_MSG_MAX);
}
END_TEST

START_TEST(clear_message_flags_drops_what_it_names)
{
	struct sms_inject s;
	uint8_t ev[SMS_EVENT_LEN] = { 0 }, rsp[VM_DATA_MAX], mask;
	size_t n;

	sms_inject_init(&s);
	ck_assert_int_eq(sms_inject_event(&s, ev), 0);
	ck_assert_int_eq(sms_inject_msg(&s, v_cmd, sizeof(v_cmd)), 0);
	ck_assert_int_eq(sms_inject_msg(&s, v_cmd, sizeof(v_cmd)), 0);
	/* the watchdog bit only: nothing of ours; always forwarded */
	mask = 0x08;
	ck_assert(!ask(&s, 1, SMS_CMD_CLEAR_MSG_FLAGS, &mask, 1, rsp, &n));
	ck_assert_uint_eq(sms_inject_flags(&s), 3);
	mask = SMS_FLAG_RECV_MSG;
	ck_assert(!ask(&s, 2, SMS_CMD_CLEAR_MSG_FLAGS, &mask, 1, rsp, &n));
	ck_assert_uint_eq(sms_inject_flags(&s), SMS_FLAG_EVT_BUF_FULL);
	/* no data byte: ignored */
	ck_assert(!ask(&s, 3, SMS_CMD_CLEAR_MSG_FLAGS, NULL, 0, rsp, &n));
	ck_assert_uint_eq(sms_inject_flags(&s), SMS_FLAG_EVT_BUF_FULL);
	ck_assert_uint_eq(sms_inject_clear(&s, 0xff), 1);
	ck_assert(!sms_inject_pending(&s));
}
END_TEST

START_TEST(attention_kind_follows_global_enables)
{
	struct sms_inject s;
	uint8_t ev[SMS_EVENT_LEN] = { 0 }, rsp[VM_DATA_MAX], ge, g[8];
	size_t n;

	sms_inject_init(&s);
	ck_assert_int_eq(sms_inject_event(&s, ev), 0);
	/* unknown enables: ask for the IRQ (QEMU decides) */
	ck_assert_uint_eq(sms_inject_attn_cmd(&s), VM_CMD_ATTN_IRQ);
	/* event buffer on, no interrupts */
	ge = 0x0c;
	ck_assert(!ask(&s, 1, SMS_CMD_SET_GLOBAL_ENABLES, &ge, 1, rsp, &n));
	ck_assert_uint_eq(sms_inject_attn_cmd(&s), VM_CMD_ATTN);
	/* receive-message interrupt only: events still without IRQ */
	ge = 0x0d;
	ck_assert(!ask(&s, 2, SMS_CMD_SET_GLOBAL_ENABLES, &ge, 1, rsp, &n));
	ck_assert_uint_eq(sms_inject_attn_cmd(&s), VM_CMD_ATTN);
	ck_assert_int_eq(sms_inject_msg(&s, v_cmd, sizeof(v_cmd)), 0);
	ck_assert_uint_eq(sms_inject_attn_cmd(&s), VM_CMD_ATTN_IRQ);
	/* the BMC's Get BMC Global Enables answer: seq, 0x1c, 0x2f, cc, ge */
	g[0] = 5;
	g[1] = (SMS_NETFN_APP + 1) << 2;
	g[2] = SMS_CMD_GET_GLOBAL_ENABLES;
	g[3] = 0;
	g[4] = 0x0e; /* event buffer interrupt */
	g[5] = vm_checksum(g, 5);
	sms_inject_bmc_response(&s, g, 6);
	ck_assert_uint_eq(s.enables, 0x0e);
	sms_inject_clear(&s, SMS_FLAG_EVT_BUF_FULL);
	ck_assert_uint_eq(sms_inject_attn_cmd(&s), VM_CMD_ATTN);
	/* a failed or corrupt answer changes nothing */
	g[3] = 0xc1;
	g[4] = 0x0f;
	g[5] = vm_checksum(g, 5);
	sms_inject_bmc_response(&s, g, 6);
	g[3] = 0;
	g[5] = (uint8_t)(vm_checksum(g, 5) + 1);
	sms_inject_bmc_response(&s, g, 6);
	ck_assert_uint_eq(s.enables, 0x0e);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sms_inject");
	TCase *t = tcase_create("core");

	tcase_add_test(t, ipmb_request_vectors);
	tcase_add_test(t, ipmb_request_fields_masked_and_checksums);
	tcase_add_test(t, hex_parsing);
	tcase_add_test(t, nothing_pending_forwards_everything);
	tcase_add_test(t, event_answered_then_forwarded);
	tcase_add_test(t, messages_fifo_and_both_kinds);
	tcase_add_test(t, other_netfns_untouched);
	tcase_add_test(t, limits);
	tcase_add_test(t, clear_message_flags_drops_what_it_names);
	tcase_add_test(t, attention_kind_follows_global_enables);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
