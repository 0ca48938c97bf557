/* SPDX-License-Identifier: MIT */
/*
 * Check suite for tests/tools/bmc_wdt.c, the BMC watchdog timer that
 * kcsmux-bmc-proxy --watchdog plays: Set stops the timer unless "don't
 * stop" keeps it running with the new countdown; Reset starts or
 * restarts it (cc 0x80 before any Set); Get reports use, running bit,
 * actions, expiration flags, the initial and the present countdown; a
 * timer petted in time never runs out; one left alone runs out once,
 * with its action and its use's expiration flag; bad lengths and fields.
 */
#include <check.h>
#include <stdint.h>

#include "bmc_wdt.h"

#define MS 1000000ull

static struct bmc_wdt w;
static uint8_t rsp[16];

static size_t call(uint64_t now_ms, uint8_t cmd, const uint8_t *d, size_t n)
{
	return bmc_wdt_request(&w, now_ms * MS, WDT_NETFN_APP, cmd, d, n, rsp,
			       sizeof(rsp));
}

/* SMS/OS, hard reset, no pre-timeout, countdown 100 ms units */
static size_t set_sms(uint64_t now_ms, uint16_t counts, uint8_t dont_stop)
{
	uint8_t d[6] = { (uint8_t)(0x04 | dont_stop),
			 0x01,
			 0x00,
			 0x00,
			 (uint8_t)(counts & 0xff),
			 (uint8_t)(counts >> 8) };

	return call(now_ms, WDT_CMD_SET, d, sizeof(d));
}

static void setup(void)
{
	bmc_wdt_init(&w);
}

START_TEST(test_reset_before_set)
{
	ck_assert_uint_eq(call(0, WDT_CMD_RESET, NULL, 0), 1);
	ck_assert_uint_eq(rsp[0], 0x80);
	ck_assert(!w.running);
}
END_TEST

START_TEST(test_not_ours)
{
	ck_assert_uint_eq(call(0, 0x01, NULL, 0), 0);
	ck_assert_uint_eq(bmc_wdt_request(&w, 0, 0x0a, WDT_CMD_GET, NULL, 0,
					  rsp, sizeof(rsp)),
			  0);
}
END_TEST

START_TEST(test_set_reset_get)
{
	ck_assert_uint_eq(set_sms(0, 50, 0), 1);
	ck_assert_uint_eq(rsp[0], 0);
	ck_assert(!w.running);
	ck_assert_uint_eq(call(10, WDT_CMD_GET, NULL, 0), 9);
	ck_assert_uint_eq(rsp[0], 0);
	ck_assert_uint_eq(rsp[1], 0x04); /* SMS/OS, stopped */
	ck_assert_uint_eq(rsp[2], 0x01);
	ck_assert_uint_eq(rsp[5] | rsp[6] << 8, 50);
	ck_assert_uint_eq(rsp[7] | rsp[8] << 8, 50);
	ck_assert_uint_eq(call(1000, WDT_CMD_RESET, NULL, 0), 1);
	ck_assert_uint_eq(rsp[0], 0);
	ck_assert(w.running);
	call(3000, WDT_CMD_GET, NULL, 0);
	ck_assert_uint_eq(rsp[1], 0x44);	     /* running */
	ck_assert_uint_eq(rsp[7] | rsp[8] << 8, 30); /* 3 s of 5 left */
}
END_TEST

START_TEST(test_petted_never_expires)
{
	set_sms(0, 50, 0);
	call(0, WDT_CMD_RESET, NULL, 0);
	for (uint64_t t = 1000; t <= 60000; t += 1000) {
		ck_assert_int_eq(bmc_wdt_poll(&w, t * MS), -1);
		call(t, WDT_CMD_RESET, NULL, 0);
	}
	ck_assert(w.running);
	ck_assert_uint_eq(w.timeouts, 0);
}
END_TEST

START_TEST(test_expires_once)
{
	set_sms(0, 50, 0);
	call(0, WDT_CMD_RESET, NULL, 0);
	ck_assert_int_eq(bmc_wdt_poll(&w, 4999 * MS), -1);
	ck_assert_uint_eq(bmc_wdt_left_ns(&w, 4000 * MS), 1000 * MS);
	ck_assert_int_eq(bmc_wdt_poll(&w, 5000 * MS), WDT_ACTION_HARD_RESET);
	ck_assert_int_eq(bmc_wdt_poll(&w, 6000 * MS), -1);
	ck_assert(!w.running);
	ck_assert_uint_eq(bmc_wdt_left_ns(&w, 6000 * MS), UINT64_MAX);
	call(6000, WDT_CMD_GET, NULL, 0);
	ck_assert_uint_eq(rsp[1], 0x04);
	ck_assert_uint_eq(rsp[4], 0x10); /* SMS/OS expired */
	ck_assert_uint_eq(rsp[7] | rsp[8] << 8, 0);
	/* Set clears the flags it names */
	{
		uint8_t d[6] = { 0x04, 0x01, 0x00, 0x10, 50, 0 };

		call(7000, WDT_CMD_SET, d, sizeof(d));
	}
	call(7000, WDT_CMD_GET, NULL, 0);
	ck_assert_uint_eq(rsp[4], 0);
}
END_TEST

START_TEST(test_set_stops_or_keeps)
{
	set_sms(0, 50, 0);
	call(0, WDT_CMD_RESET, NULL, 0);
	/* don't stop: running on with the new countdown from now */
	set_sms(2000, 100, 0x40);
	ck_assert(w.running);
	ck_assert_int_eq(bmc_wdt_poll(&w, 11999 * MS), -1);
	ck_assert_int_eq(bmc_wdt_poll(&w, 12000 * MS), WDT_ACTION_HARD_RESET);
	/* a plain Set stops a running timer (the magic close) */
	set_sms(13000, 50, 0);
	call(13000, WDT_CMD_RESET, NULL, 0);
	set_sms(14000, 50, 0);
	ck_assert(!w.running);
	ck_assert_int_eq(bmc_wdt_poll(&w, 60000 * MS), -1);
}
END_TEST

START_TEST(test_bad_requests)
{
	uint8_t d[6] = {
		0x04, 0x11, 20, 0x00, 50, 0
	}; /* pre-timeout 20 s > 5 s */

	ck_assert_uint_eq(call(0, WDT_CMD_SET, d, 5), 1);
	ck_assert_uint_eq(rsp[0], 0xC7);
	ck_assert_uint_eq(call(0, WDT_CMD_SET, d, 6), 1);
	ck_assert_uint_eq(rsp[0], 0xCC);
	ck_assert(!w.set);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("bmc_wdt");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_reset_before_set);
	tcase_add_test(tc, test_not_ours);
	tcase_add_test(tc, test_set_reset_get);
	tcase_add_test(tc, test_petted_never_expires);
	tcase_add_test(tc, test_expires_once);
	tcase_add_test(tc, test_set_stops_or_keeps);
	tcase_add_test(tc, test_bad_requests);
	suite_add_tcase(s, tc);
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
