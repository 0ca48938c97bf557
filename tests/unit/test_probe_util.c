// SPDX-License-Identifier: GPL-2.0
/* Check suite for tests/tools/probe_util.c (kcsmux-ipmi-probe helpers). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/probe_util.h"

START_TEST(test_hex_byte)
{
	static const struct {
		const char *s;
		int ok;
		uint8_t v;
	} c[] = {
		{ "6", 1, 0x06 },   { "06", 1, 0x06 }, { "0x06", 1, 0x06 },
		{ "0X6", 1, 0x06 }, { "ff", 1, 0xff }, { "0xFF", 1, 0xff },
		{ "10", 1, 0x10 }, /* hex, not decimal */
		{ "0", 1, 0 },	    { "00", 1, 0 },    { "0x0", 1, 0 },
		{ "", 0, 0 },	    { "0x", 0, 0 },    { "100", 0, 0 },
		{ "0x100", 0, 0 },  { "g", 0, 0 },     { "1g", 0, 0 },
		{ "-1", 0, 0 },	    { " 1", 0, 0 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint8_t v = 0xAA;
		int r = probe_parse_hex_byte(c[i].s, &v);

		ck_assert_msg((r == 0) == c[i].ok, "'%s' -> %d", c[i].s, r);
		if (c[i].ok)
			ck_assert_msg(v == c[i].v, "'%s' -> 0x%02x", c[i].s, v);
	}
	ck_assert_int_eq(probe_parse_hex_byte(NULL, NULL), -1);
}
END_TEST

START_TEST(test_request_default_form)
{
	struct probe_request r;

	ck_assert_int_eq(probe_parse_request("0x06 0x01", &r), 0);
	ck_assert_uint_eq(r.netfn, 0x06);
	ck_assert_uint_eq(r.cmd, 0x01);
	ck_assert_uint_eq(r.data_len, 0);

	ck_assert_int_eq(probe_parse_request("  0a,0x43 , 00 00\t01 ff\n", &r),
			 0);
	ck_assert_uint_eq(r.netfn, 0x0a);
	ck_assert_uint_eq(r.cmd, 0x43);
	ck_assert_uint_eq(r.data_len, 4);
	ck_assert_uint_eq(r.data[0], 0x00);
	ck_assert_uint_eq(r.data[1], 0x00);
	ck_assert_uint_eq(r.data[2], 0x01);
	ck_assert_uint_eq(r.data[3], 0xff);
}
END_TEST

START_TEST(test_request_errors)
{
	struct probe_request r;

	ck_assert_int_eq(probe_parse_request("", &r), -1);
	ck_assert_int_eq(probe_parse_request("0x06", &r), -1);
	ck_assert_int_eq(probe_parse_request("  ,, ", &r), -1);
	ck_assert_int_eq(probe_parse_request("0x06 zz", &r), -1);
	ck_assert_int_eq(probe_parse_request("0x06 0x01 0x1234", &r), -1);
	ck_assert_int_eq(probe_parse_request("0x06 0x01 0x000000001", &r), -1);
	ck_assert_int_eq(probe_parse_request(NULL, &r), -1);
}
END_TEST

/* Exactly IPMI_MAX_MSG_LENGTH data bytes fit; one more does not. */
START_TEST(test_request_max_len)
{
	size_t sz = 3 * (IPMI_MAX_MSG_LENGTH + 3) + 1;
	char *s = malloc(sz);
	struct probe_request r;
	size_t off = 0;

	ck_assert_ptr_nonnull(s);
	off += (size_t)snprintf(s + off, sz - off, "2e 01");
	for (int i = 0; i < IPMI_MAX_MSG_LENGTH; i++)
		off += (size_t)snprintf(s + off, sz - off, " %02x", i & 0xff);
	ck_assert_int_eq(probe_parse_request(s, &r), 0);
	ck_assert_uint_eq(r.data_len, IPMI_MAX_MSG_LENGTH);
	ck_assert_uint_eq(r.data[IPMI_MAX_MSG_LENGTH - 1],
			  (IPMI_MAX_MSG_LENGTH - 1) & 0xff);
	snprintf(s + off, sz - off, " 00");
	ck_assert_int_eq(probe_parse_request(s, &r), -1);
	free(s);
}
END_TEST

START_TEST(test_parse_uint)
{
	unsigned long long v;

	ck_assert_int_eq(probe_parse_uint("100", 1000, &v), 0);
	ck_assert_uint_eq(v, 100);
	ck_assert_int_eq(probe_parse_uint("0x20", 0xff, &v), 0);
	ck_assert_uint_eq(v, 0x20);
	ck_assert_int_eq(probe_parse_uint("0", 0, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(probe_parse_uint("256", 0xff, &v), -1);
	ck_assert_int_eq(probe_parse_uint("", 10, &v), -1);
	ck_assert_int_eq(probe_parse_uint("-1", ~0ull, &v), -1);
	ck_assert_int_eq(probe_parse_uint("+1", ~0ull, &v), -1);
	ck_assert_int_eq(probe_parse_uint(" 1", ~0ull, &v), -1);
	ck_assert_int_eq(probe_parse_uint("1x", ~0ull, &v), -1);
	ck_assert_int_eq(probe_parse_uint("99999999999999999999999", ~0ull, &v),
			 -1);
}
END_TEST

START_TEST(test_device_path)
{
	char buf[32];

	ck_assert_int_eq(probe_device_path("0", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/dev/ipmi0");
	ck_assert_int_eq(probe_device_path("12", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/dev/ipmi12");
	ck_assert_int_eq(probe_device_path("/dev/ipmi3", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/dev/ipmi3");
	ck_assert_int_eq(probe_device_path("ipmi1", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ipmi1");
	ck_assert_int_eq(probe_device_path("", buf, sizeof(buf)), -1);
	ck_assert_int_eq(probe_device_path(NULL, buf, sizeof(buf)), -1);
	ck_assert_int_eq(probe_device_path("/a/very/long/path/that/does/not/fit",
					   buf, sizeof(buf)),
			 -1);
	ck_assert_int_eq(probe_device_path("7", buf, 10), -1); /* needs 11 */
	ck_assert_int_eq(probe_device_path("7", buf, 11), 0);
}
END_TEST

START_TEST(test_build_addr)
{
	union probe_addr a;
	unsigned int len;

	memset(&a, 0x5a, sizeof(a));
	len = probe_build_addr(&a, 0, 7, 0x40, 2);
	ck_assert_uint_eq(len, sizeof(struct ipmi_system_interface_addr));
	ck_assert_int_eq(a.si.addr_type, IPMI_SYSTEM_INTERFACE_ADDR_TYPE);
	ck_assert_int_eq(a.si.channel, IPMI_BMC_CHANNEL); /* ignores 7 */
	ck_assert_uint_eq(a.si.lun, 2);

	memset(&a, 0x5a, sizeof(a));
	len = probe_build_addr(&a, 1, 6, 0x72, 0);
	ck_assert_uint_eq(len, sizeof(struct ipmi_ipmb_addr));
	ck_assert_int_eq(a.ipmb.addr_type, IPMI_IPMB_ADDR_TYPE);
	ck_assert_int_eq(a.ipmb.channel, 6);
	ck_assert_uint_eq(a.ipmb.slave_addr, 0x72);
	ck_assert_uint_eq(a.ipmb.lun, 0);
	/* Addresses are >= 8 bytes, which the driver requires. */
	ck_assert_uint_ge(len, 8);
}
END_TEST

/* A well-formed response to App Get Device ID, msgid 5, system interface. */
struct fixture {
	struct probe_request req;
	union probe_addr sent, from;
	uint8_t data[16];
};

static void fx_init(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	ck_assert_int_eq(probe_parse_request("06 01", &f->req), 0);
	probe_build_addr(&f->sent, 0, 0, 0, 0);
	probe_build_addr(&f->from, 0, 0, 0, 0);
	f->data[0] = 0x00;
	f->data[1] = 0x20;
}

static enum probe_verdict fx_classify(struct fixture *f, int recv_type,
				      long msgid, uint8_t netfn, uint8_t cmd,
				      unsigned int len)
{
	return probe_classify(recv_type, msgid, &f->from.any, netfn, cmd,
			      f->data, len, &f->req, 5, &f->sent.any);
}

START_TEST(test_classify)
{
	struct fixture f;

	fx_init(&f);
	ck_assert_int_eq(fx_classify(&f, IPMI_RESPONSE_RECV_TYPE, 5, 0x07, 0x01,
				     2),
			 PROBE_OK);
	/* Not a response: skipped, whatever else it carries. */
	ck_assert_int_eq(fx_classify(&f, IPMI_ASYNC_EVENT_RECV_TYPE, 0, 0x07,
				     0x01, 2),
			 PROBE_NOT_RESPONSE);
	ck_assert_int_eq(fx_classify(&f, IPMI_ASYNC_EVENT_RECV_TYPE, 5, 0x07,
				     0x01, 2),
			 PROBE_NOT_RESPONSE);
	ck_assert_int_eq(fx_classify(&f, IPMI_CMD_RECV_TYPE, 5, 0x06, 0x01, 2),
			 PROBE_NOT_RESPONSE);
	ck_assert_int_eq(fx_classify(&f, IPMI_RESPONSE_RESPONSE_TYPE, 5, 0x07,
				     0x01, 2),
			 PROBE_NOT_RESPONSE);
	/* Someone else's msgid. */
	ck_assert_int_eq(fx_classify(&f, IPMI_RESPONSE_RECV_TYPE, 4, 0x07, 0x01,
				     2),
			 PROBE_MSGID_MISMATCH);
	/* Wrong netfn (request netfn echoed, or another one) or cmd. */
	ck_assert_int_eq(fx_classify(&f, IPMI_RESPONSE_RECV_TYPE, 5, 0x06, 0x01,
				     2),
			 PROBE_BAD);
	ck_assert_int_eq(fx_classify(&f, IPMI_RESPONSE_RECV_TYPE, 5, 0x0b, 0x01,
				     2),
			 PROBE_BAD);
	ck_assert_int_eq(fx_classify(&f, IPMI_RESPONSE_RECV_TYPE, 5, 0x07, 0x02,
				     2),
			 PROBE_BAD);
	/* No completion code byte. */
	ck_assert_int_eq(fx_classify(&f, IPMI_RESPONSE_RECV_TYPE, 5, 0x07, 0x01,
				     0),
			 PROBE_BAD);
	/* Completion codes. */
	f.data[0] = IPMI_INVALID_CMD_COMPLETION_CODE;
	ck_assert_int_eq(fx_classify(&f, IPMI_RESPONSE_RECV_TYPE, 5, 0x07, 0x01,
				     1),
			 PROBE_CC);
	f.data[0] = IPMI_UNKNOWN_ERR_COMPLETION_CODE;
	ck_assert_int_eq(fx_classify(&f, IPMI_RESPONSE_RECV_TYPE, 5, 0x07, 0x01,
				     1),
			 PROBE_CC);
	f.data[0] = 0;
	/* Response from a different address type or channel. */
	probe_build_addr(&f.from, 1, 0, 0x20, 0);
	ck_assert_int_eq(fx_classify(&f, IPMI_RESPONSE_RECV_TYPE, 5, 0x07, 0x01,
				     2),
			 PROBE_BAD);
}
END_TEST

START_TEST(test_classify_ipmb)
{
	struct fixture f;

	fx_init(&f);
	probe_build_addr(&f.sent, 1, 6, 0x72, 0);
	probe_build_addr(&f.from, 1, 6, 0x72, 0);
	ck_assert_int_eq(fx_classify(&f, IPMI_RESPONSE_RECV_TYPE, 5, 0x07, 0x01,
				     2),
			 PROBE_OK);
	/* The driver's "retries exhausted" answer. */
	f.data[0] = IPMI_TIMEOUT_COMPLETION_CODE;
	ck_assert_int_eq(fx_classify(&f, IPMI_RESPONSE_RECV_TYPE, 5, 0x07, 0x01,
				     1),
			 PROBE_CC);
	f.data[0] = 0;
	probe_build_addr(&f.from, 1, 5, 0x72, 0);
	ck_assert_int_eq(fx_classify(&f, IPMI_RESPONSE_RECV_TYPE, 5, 0x07, 0x01,
				     2),
			 PROBE_BAD);
}
END_TEST

START_TEST(test_verdict_names)
{
	ck_assert_str_eq(probe_verdict_name(PROBE_OK), "ok");
	ck_assert_str_eq(probe_verdict_name(PROBE_CC), "completion-code");
	ck_assert_str_eq(probe_verdict_name(PROBE_MSGID_MISMATCH),
			 "msgid-mismatch");
	ck_assert_str_eq(probe_verdict_name((enum probe_verdict)99), "?");
}
END_TEST

static Suite *probe_suite(void)
{
	Suite *s = suite_create("probe_util");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_hex_byte);
	tcase_add_test(tc, test_request_default_form);
	tcase_add_test(tc, test_request_errors);
	tcase_add_test(tc, test_request_max_len);
	tcase_add_test(tc, test_parse_uint);
	tcase_add_test(tc, test_device_path);
	tcase_add_test(tc, test_build_addr);
	tcase_add_test(tc, test_classify);
	tcase_add_test(tc, test_classify_ipmb);
	tcase_add_test(tc, test_verdict_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(probe_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
