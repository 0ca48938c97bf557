// SPDX-License-Identifier: GPL-2.0
/*
 * Why /dev/kcsraw0 is missing (fused/backend/ports.c): /proc/ioports of a
 * server where ipmi_si bound the KCS interface names it; one where kcsraw
 * holds it, or nothing does, names no one.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"

static int holder(const char *text, char *buf, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rv;

	ck_assert_ptr_nonnull(f);
	rv = backend_ports_holder(f, buf, len);
	fclose(f);
	return rv;
}

START_TEST(test_ipmi_si_holds)
{
	char buf[128];

	ck_assert_int_eq(holder("0000-0cf7 : PCI Bus 0000:00\n"
				"  0070-0071 : rtc0\n"
				"  0ca2-0ca2 : IPI0001:00\n"
				"    0ca2-0ca2 : ipmi_si\n"
				"  0ca3-0ca3 : IPI0001:00\n"
				"    0ca3-0ca3 : ipmi_si\n",
				buf, sizeof(buf)),
			 1);
	ck_assert_str_eq(buf, "ipmi_si holds the I/O ports 0ca2-0ca2");
}
END_TEST

START_TEST(test_nobody_holds)
{
	char buf[128] = "";

	ck_assert_int_eq(holder("  0ca2-0ca2 : kcsraw\n  0ca3-0ca3 : kcsraw\n",
				buf, sizeof(buf)),
			 0);
	ck_assert_int_eq(holder("", buf, sizeof(buf)), 0);
	ck_assert_int_eq(holder("garbage without a separator\n", buf,
				sizeof(buf)),
			 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ports");
	TCase *tc = tcase_create("ioports");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_ipmi_si_holds);
	tcase_add_test(tc, test_nobody_holds);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
