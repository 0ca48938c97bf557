// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/core/maint.c: the BMC's maintenance mode as the
 * stock message handler keeps it since 6.18. A Cold or Warm Reset refuses
 * requests for 30 s, a firmware request only quiets the event polling,
 * each trigger re-arms the time, the modes off and on override it, and
 * GET returns the mode.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/maint.h"

#define MS 1000000ull
#define T0 (1000 * MS)

static struct maint m;

static void setup(void)
{
	maint_init(&m);
}

START_TEST(test_idle)
{
	ck_assert_int_eq(maint_state(&m, T0), MAINT_OFF);
	ck_assert(!maint_refuse(&m, T0));
	ck_assert(!maint_quiet(&m, T0));
	ck_assert(!maint_request(&m, 0x06, 0x01, T0)); /* Get Device ID */
	ck_assert(!maint_request(&m, 0x0a, 0x23, T0)); /* Get SDR */
	ck_assert_int_eq(maint_state(&m, T0), MAINT_OFF);
	ck_assert_uint_eq(maint_left_ms(&m, T0), 0);
}
END_TEST

START_TEST(test_cold_reset)
{
	ck_assert(maint_request(&m, 0x06, 0x02, T0));
	ck_assert_int_eq(maint_state(&m, T0), MAINT_RESET);
	ck_assert(maint_quiet(&m, T0 + 1 * MS));
	ck_assert(maint_refuse(&m, T0 + 29999 * MS));
	ck_assert_uint_eq(m.refused, 1);
	ck_assert_uint_eq(maint_left_ms(&m, T0), 30000);
	/* 30 s later it is over: requests go again, polling resumes */
	ck_assert(!maint_refuse(&m, T0 + 30000 * MS));
	ck_assert(!maint_quiet(&m, T0 + 30000 * MS));
	ck_assert_int_eq(maint_state(&m, T0 + 30000 * MS), MAINT_OFF);
	ck_assert_uint_eq(m.entered, 1);
}
END_TEST

START_TEST(test_warm_reset_rearms)
{
	maint_request(&m, 0x06, 0x03, T0);
	/* a second reset 20 s in: 30 s from then */
	maint_request(&m, 0x06, 0x03, T0 + 20000 * MS);
	ck_assert(maint_refuse(&m, T0 + 49000 * MS));
	ck_assert(!maint_refuse(&m, T0 + 50000 * MS));
	ck_assert_uint_eq(m.entered, 1);
	/* the netfn's LUN bits and the response bit do not hide it */
	ck_assert(maint_request(&m, 0x07, 0x02, T0 + 60000 * MS));
	ck_assert_int_eq(maint_state(&m, T0 + 60000 * MS), MAINT_RESET);
	ck_assert_uint_eq(m.entered, 2);
}
END_TEST

START_TEST(test_firmware)
{
	ck_assert(maint_request(&m, 0x08, 0x10, T0));
	ck_assert_int_eq(maint_state(&m, T0), MAINT_FIRMWARE);
	ck_assert(maint_quiet(&m, T0));
	ck_assert(!maint_refuse(&m, T0)); /* a firmware update goes on */
	/* a reset during it outranks it, and a later firmware request
	 * does not lower it */
	maint_request(&m, 0x06, 0x02, T0 + 1000 * MS);
	maint_request(&m, 0x08, 0x11, T0 + 2000 * MS);
	ck_assert_int_eq(maint_state(&m, T0 + 2000 * MS), MAINT_RESET);
	ck_assert(!maint_quiet(&m, T0 + 32000 * MS));
}
END_TEST

START_TEST(test_modes)
{
	ck_assert_int_eq(maint_set_mode(&m, 3, T0), -EINVAL);
	ck_assert_int_eq(maint_set_mode(&m, -1, T0), -EINVAL);
	ck_assert_int_eq(m.mode, 0);
	/* on: firmware state, no refusal, whatever the clock */
	ck_assert_int_eq(maint_set_mode(&m, 2, T0), 0);
	ck_assert_int_eq(m.mode, 2);
	ck_assert_int_eq(maint_state(&m, T0 + 3600000 * MS), MAINT_FIRMWARE);
	ck_assert(maint_quiet(&m, T0));
	ck_assert(!maint_refuse(&m, T0));
	/* a reset in mode on does not refuse (stock: the state rises in
	 * auto mode only) */
	maint_request(&m, 0x06, 0x02, T0);
	ck_assert(!maint_refuse(&m, T0 + 1 * MS));
	/* off: nothing, even right after a reset */
	ck_assert_int_eq(maint_set_mode(&m, 1, T0), 0);
	ck_assert_int_eq(maint_state(&m, T0), MAINT_OFF);
	maint_request(&m, 0x06, 0x02, T0 + 1 * MS);
	ck_assert(!maint_refuse(&m, T0 + 2 * MS));
	ck_assert(!maint_quiet(&m, T0 + 2 * MS));
	/* back to auto: the next reset refuses again */
	ck_assert_int_eq(maint_set_mode(&m, 0, T0 + 3 * MS), 0);
	ck_assert(!maint_refuse(&m, T0 + 4 * MS));
	maint_request(&m, 0x06, 0x02, T0 + 5 * MS);
	ck_assert(maint_refuse(&m, T0 + 6 * MS));
}
END_TEST

START_TEST(test_off_ends_reset)
{
	maint_request(&m, 0x06, 0x02, T0);
	ck_assert(maint_refuse(&m, T0 + 1 * MS));
	/* an operator who knows the BMC is back ends it at once */
	maint_set_mode(&m, 1, T0 + 2 * MS);
	ck_assert(!maint_refuse(&m, T0 + 3 * MS));
	/* and auto again does not bring the old reset back */
	maint_set_mode(&m, 0, T0 + 4 * MS);
	ck_assert(!maint_refuse(&m, T0 + 5 * MS));
	ck_assert_uint_eq(maint_left_ms(&m, T0 + 5 * MS), 0);
}
END_TEST

static Suite *maint_suite(void)
{
	Suite *s = suite_create("maint");
	TCase *tc = tcase_create("maint");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_idle);
	tcase_add_test(tc, test_cold_reset);
	tcase_add_test(tc, test_warm_reset_rearms);
	tcase_add_test(tc, test_firmware);
	tcase_add_test(tc, test_modes);
	tcase_add_test(tc, test_off_ends_reset);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(maint_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
