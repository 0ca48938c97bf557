// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/core/lease.c: which commands each class covers
 * (reads none), taking (all or nothing), extending, releasing, a dead
 * holder's lease ending at its deadline, the firmware lease refusing
 * every command of the others, and the holder's own commands passing.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "core/lease.h"

#define SEC 1000000000ULL
#define T0  (1000 * SEC)

static const int a = 1, b = 2; /* holders: two nodes */

START_TEST(test_classes)
{
	ck_assert_uint_eq(lease_classes(0x00, 0x02), LEASE_CHASSIS);
	ck_assert_uint_eq(lease_classes(0x00, 0x08), LEASE_CHASSIS);
	ck_assert_uint_eq(lease_classes(0x00, 0x01), 0); /* status: a read */
	ck_assert_uint_eq(lease_classes(0x30, 0x70), LEASE_FAN_OEM);
	ck_assert_uint_eq(lease_classes(0x3e, 0x01), LEASE_FAN_OEM);
	ck_assert_uint_eq(lease_classes(0x2e, 0x01), LEASE_FAN_OEM);
	ck_assert_uint_eq(lease_classes(0x06, 0x47), LEASE_USERS);
	ck_assert_uint_eq(lease_classes(0x06, 0x44), 0); /* Get User Access */
	ck_assert_uint_eq(lease_classes(0x0c, 0x01), LEASE_LAN);
	ck_assert_uint_eq(lease_classes(0x0c, 0x02), 0); /* Get LAN Config */
	ck_assert_uint_eq(lease_classes(0x04, 0x2d), 0);
	ck_assert_uint_eq(lease_classes(0x0a, 0x43), 0);
	ck_assert_str_eq(lease_class_name(LEASE_FAN_OEM), "fan-oem");
	ck_assert_ptr_null(lease_class_name(3));
}
END_TEST

START_TEST(test_take_release)
{
	struct lease_table t = { 0 };
	unsigned int cls = 0;
	const struct lease *l;

	ck_assert_int_eq(lease_take(&t, &a, LEASE_FAN_OEM, 60 * SEC, T0), 0);
	/* b's fan write refused, naming a; b's reads and a's writes go */
	l = lease_check(&t, &b, 0x30, 0x70, T0 + SEC, &cls);
	ck_assert_ptr_nonnull(l);
	ck_assert_ptr_eq(l->holder, &a);
	ck_assert_uint_eq(cls, LEASE_FAN_OEM);
	ck_assert_ptr_null(lease_check(&t, &b, 0x04, 0x2d, T0 + SEC, NULL));
	ck_assert_ptr_null(lease_check(&t, &b, 0x00, 0x02, T0 + SEC, NULL));
	ck_assert_ptr_null(lease_check(&t, &a, 0x30, 0x70, T0 + SEC, NULL));
	/* all or nothing: b cannot take chassis + fan */
	ck_assert_int_eq(lease_take(&t, &b, LEASE_CHASSIS | LEASE_FAN_OEM, SEC,
				    T0 + SEC),
			 -EBUSY);
	ck_assert_ptr_null(lease_check(&t, &a, 0x00, 0x02, T0 + SEC, NULL));
	/* a extends its own */
	ck_assert_int_eq(lease_take(&t, &a, LEASE_FAN_OEM, 60 * SEC,
				    T0 + 50 * SEC),
			 0);
	ck_assert_ptr_nonnull(
		lease_check(&t, &b, 0x30, 0x70, T0 + 100 * SEC, NULL));
	/* released: b may write and take it */
	ck_assert_uint_eq(lease_release(&t, &b, LEASE_FAN_OEM), 0);
	ck_assert_uint_eq(lease_release(&t, &a, LEASE_ALL), 1);
	ck_assert_ptr_null(
		lease_check(&t, &b, 0x30, 0x70, T0 + 100 * SEC, NULL));
	ck_assert_int_eq(lease_take(&t, &b, LEASE_FAN_OEM, SEC, T0 + 100 * SEC),
			 0);
	/* bad calls */
	ck_assert_int_eq(lease_take(&t, NULL, LEASE_LAN, SEC, T0), -EINVAL);
	ck_assert_int_eq(lease_take(&t, &a, 0, SEC, T0), -EINVAL);
	ck_assert_int_eq(lease_take(&t, &a, 1u << 7, SEC, T0), -EINVAL);
	ck_assert_int_eq(lease_take(&t, &a, LEASE_LAN, 0, T0), -EINVAL);
}
END_TEST

/* A holder that never releases: its lease ends at its deadline, exactly;
 * none lasts past LEASE_MAX_NS. */
START_TEST(test_deadline)
{
	struct lease_table t = { 0 };

	ck_assert_int_eq(lease_take(&t, &a, LEASE_USERS, 10 * SEC, T0), 0);
	ck_assert_ptr_nonnull(
		lease_check(&t, &b, 0x06, 0x47, T0 + 10 * SEC - 1, NULL));
	ck_assert_ptr_null(
		lease_check(&t, &b, 0x06, 0x47, T0 + 10 * SEC, NULL));
	ck_assert_int_eq(lease_take(&t, &b, LEASE_USERS, SEC, T0 + 10 * SEC),
			 0);
	ck_assert_int_eq(lease_take(&t, &a, LEASE_LAN, 100 * LEASE_MAX_NS, T0),
			 0);
	ck_assert_ptr_null(
		lease_check(&t, &b, 0x0c, 0x01, T0 + LEASE_MAX_NS, NULL));
	ck_assert_uint_eq(lease_holder_gone(&t, &b), 1);
	ck_assert_uint_eq(lease_holder_gone(&t, &a), 1);
}
END_TEST

/* The firmware lease: every command of the others refused, reads too;
 * the holder's go. */
START_TEST(test_firmware)
{
	struct lease_table t = { 0 };
	unsigned int cls = 0;

	ck_assert_int_eq(lease_take(&t, &a, LEASE_FIRMWARE, 600 * SEC, T0), 0);
	ck_assert_ptr_nonnull(lease_check(&t, &b, 0x04, 0x2d, T0, &cls));
	ck_assert_uint_eq(cls, LEASE_FIRMWARE);
	ck_assert_ptr_nonnull(lease_check(&t, &b, 0x06, 0x01, T0, NULL));
	ck_assert_ptr_null(lease_check(&t, &a, 0x2c, 0x31, T0, NULL));
	ck_assert_int_eq(lease_take(&t, &b, LEASE_FAN_OEM, SEC, T0), 0);
	ck_assert_int_eq(lease_take(&t, &b, LEASE_FIRMWARE, SEC, T0), -EBUSY);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lease");
	TCase *tc = tcase_create("lease");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_classes);
	tcase_add_test(tc, test_take_release);
	tcase_add_test(tc, test_deadline);
	tcase_add_test(tc, test_firmware);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
