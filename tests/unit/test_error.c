// SPDX-License-Identifier: GPL-2.0
/*
 * test_error.c - util/error.c, the one way to make an error message:
 * error_set() formats into *cause and returns -1, does nothing for a NULL
 * cause; xasprintf() is a checked asprintf; error_str() names a cause that
 * could not be made.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static int fails(const char *path, char **cause)
{
	return error_set(cause, "%s: %s (%d)", path, "no such node", 2);
}

START_TEST(test_error_set)
{
	char *cause = (char *)"untouched";

	ck_assert_int_eq(fails("/dev/ipmi9", &cause), -1);
	ck_assert_str_eq(cause, "/dev/ipmi9: no such node (2)");
	free(cause);
	/* a caller that does not want the message */
	ck_assert_int_eq(fails("/dev/ipmi9", NULL), -1);
}
END_TEST

START_TEST(test_xasprintf)
{
	char *s = xasprintf("%s.tmp", "/run/kcsmux/metrics");

	ck_assert_str_eq(s, "/run/kcsmux/metrics.tmp");
	free(s);
	s = xasprintf("%s", "");
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

START_TEST(test_error_str)
{
	ck_assert_str_eq(error_str("t.conf:3: bad"), "t.conf:3: bad");
	ck_assert_str_eq(error_str(NULL), "out of memory");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("error");
	TCase *tc = tcase_create("error");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, test_error_set);
	tcase_add_test(tc, test_xasprintf);
	tcase_add_test(tc, test_error_str);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
