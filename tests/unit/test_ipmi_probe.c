// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for kcsmux-ipmi-probe's request loop, counters, output and
 * exit status. Runs a host build of the probe linked with the fake device
 * in probe_fake_ipmi.c (PROBE_FAKE_BIN), which answers instantly and
 * misbehaves on request (FAKE_IPMI flags).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PROBE_FAKE_BIN
#error "PROBE_FAKE_BIN must name the fake-linked probe binary"
#endif

struct result {
	int rc;
	char out[8192];
	char log[16384];
};

static char logpath[64];

/* Run the fake-linked probe: FAKE_IPMI=flags PROBE_FAKE_BIN args. */
static void run(const char *flags, const char *args, struct result *r)
{
	char cmd[1024];
	FILE *p;
	size_t n;
	int st, fd;

	snprintf(logpath, sizeof(logpath), "/tmp/probe-fake-log.XXXXXX");
	fd = mkstemp(logpath);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(
		cmd, sizeof(cmd),
		"FAKE_IPMI='%s' FAKE_IPMI_LOG='%s' '%s' -d /dev/null %s 2>/dev/null",
		flags, logpath, PROBE_FAKE_BIN, args);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(r->out, 1, sizeof(r->out) - 1, p);
	r->out[n] = '\0';
	st = pclose(p);
	ck_assert_msg(WIFEXITED(st), "probe did not exit normally");
	r->rc = WEXITSTATUS(st);

	p = fopen(logpath, "r");
	n = p ? fread(r->log, 1, sizeof(r->log) - 1, p) : 0;
	r->log[n] = '\0';
	if (p)
		fclose(p);
	unlink(logpath);
}

/* Value of " key=" in a -k line; -1 if absent. */
static long long kv(const struct result *r, const char *key)
{
	char pat[64];
	const char *s;

	snprintf(pat, sizeof(pat), " %s=", key);
	s = strstr(r->out, pat);
	if (!s)
		return -1;
	return strtoll(s + strlen(pat), NULL, 10);
}

static int count_lines(const char *s, const char *needle)
{
	int n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

START_TEST(test_all_ok)
{
	struct result r;

	run("", "-n 50 -k", &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_msg(!strncmp(r.out, "probe: dev=/dev/null mode=req n=50 ",
			       35),
		      "%s", r.out);
	ck_assert_int_eq(kv(&r, "ok"), 50);
	ck_assert_int_eq(kv(&r, "err"), 0);
	ck_assert_int_eq(kv(&r, "err_msgid"), 0);
	ck_assert_int_ge(kv(&r, "p50_us"), 0);
	ck_assert_int_ge(kv(&r, "p99_us"), kv(&r, "p50_us"));
	ck_assert_int_ge(kv(&r, "max_us"), kv(&r, "p99_us"));
	ck_assert_int_eq(count_lines(r.log, "send "), 50);
	ck_assert_int_eq(
		count_lines(
			r.log,
			"type=0xc ch=15 len=8 netfn=0x06 cmd=0x01 dlen=0 bad=0"),
		50);
	ck_assert_int_eq(count_lines(r.log, "events"), 0);
}
END_TEST

START_TEST(test_warmup_and_msgids)
{
	struct result r;

	run("", "-n 5 -w 3 --msgid-start 100 -k", &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(kv(&r, "ok"), 5);
	ck_assert_int_eq(count_lines(r.log, "send "), 8);
	ck_assert_ptr_nonnull(strstr(r.log, "send msgid=100 "));
	ck_assert_ptr_nonnull(strstr(r.log, "send msgid=107 "));
}
END_TEST

START_TEST(test_request_data_and_ipmb)
{
	struct result r;

	run("", "-n 2 -r '0a,43 00 00 01 ff' -k", &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(count_lines(r.log, "netfn=0x0a cmd=0x43 dlen=4 bad=0"),
			 2);

	run("", "-n 3 -t 0x72 -b 6 -k", &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(kv(&r, "ok"), 3);
	ck_assert_int_eq(count_lines(r.log, "type=0x1 ch=6 len=8"), 3);
}
END_TEST

START_TEST(test_events_skipped)
{
	struct result r;

	run("event", "-n 20 -e -k", &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(kv(&r, "ok"), 20);
	ck_assert_int_eq(kv(&r, "events"), 20);
	ck_assert_ptr_nonnull(strstr(r.log, "events 1"));

	run("event", "-n 3 --ipmitool -k", &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(kv(&r, "events"), 3);
	ck_assert_ptr_nonnull(strstr(r.log, "events 1"));
	ck_assert_ptr_nonnull(strstr(r.log, "myaddr 0x20"));

	run("noevents", "-n 3 -e -k", &r);
	ck_assert_int_eq(r.rc, 2);
	ck_assert_int_eq(count_lines(r.log, "send "), 0);
}
END_TEST

START_TEST(test_stray_msgid)
{
	struct result r;

	run("stray", "-n 10 -k", &r);
	ck_assert_int_eq(r.rc, 1);
	ck_assert_int_eq(kv(&r, "ok"), 10);
	ck_assert_int_eq(kv(&r, "err"), 0);
	ck_assert_int_eq(kv(&r, "err_msgid"), 10);

	run("stray", "-n 10 -k --allow-errors", &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(kv(&r, "err_msgid"), 10);
}
END_TEST

START_TEST(test_completion_codes)
{
	struct result r;

	run("cc3", "-n 9 -k", &r);
	ck_assert_int_eq(r.rc, 1);
	ck_assert_int_eq(kv(&r, "ok"), 6);
	ck_assert_int_eq(kv(&r, "err"), 3);
	ck_assert_int_eq(kv(&r, "err_cc"), 3);
}
END_TEST

START_TEST(test_timeouts)
{
	struct result r;

	run("drop2", "-n 4 --timeout 20 -k", &r);
	ck_assert_int_eq(r.rc, 1);
	ck_assert_int_eq(kv(&r, "ok"), 2);
	ck_assert_int_eq(kv(&r, "err_timeout"), 2);
	ck_assert_int_ge(kv(&r, "total_us"), 2 * 20000);

	/* A device that echoes the wrong msgid: strays, then timeouts. */
	run("echo0", "-n 2 --timeout 10 -k", &r);
	ck_assert_int_eq(r.rc, 1);
	ck_assert_int_eq(kv(&r, "ok"), 0);
	ck_assert_int_eq(kv(&r, "err_timeout"), 2);
	ck_assert_int_eq(kv(&r, "err_msgid"), 2);
	ck_assert_int_eq(kv(&r, "p50_us"), -1); /* no samples, no field */
}
END_TEST

START_TEST(test_bad_and_errno)
{
	struct result r;

	run("netfn", "-n 4 -k", &r);
	ck_assert_int_eq(r.rc, 1);
	ck_assert_int_eq(kv(&r, "err_bad"), 4);

	run("sendfail", "-n 4 -k", &r);
	ck_assert_int_eq(r.rc, 1);
	ck_assert_int_eq(kv(&r, "err_errno"), 4);
	ck_assert_int_eq(kv(&r, "ok"), 0);

	run("sendfail", "-n 4 -w 2 -k --allow-errors", &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(kv(&r, "warm_err"), 2);
}
END_TEST

START_TEST(test_ioctl_mode)
{
	struct result r;

	run("sendfail", "--mode ioctl -n 1000 -k", &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(kv(&r, "ok"), 1000);
	ck_assert_int_ge(kv(&r, "p50_us"), 0);
	ck_assert_int_eq(count_lines(r.log, "send "), 0);

	run("", "--mode ioctl -n 1000 --total-only -k", &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(kv(&r, "ok"), 1000);
	ck_assert_int_eq(kv(&r, "p50_us"), -1);
	ck_assert_int_ge(kv(&r, "per_req_ns"), 0);
}
END_TEST

START_TEST(test_formats)
{
	struct result r;
	size_t len;

	run("", "-n 5 -j", &r);
	ck_assert_int_eq(r.rc, 0);
	len = strlen(r.out);
	ck_assert_uint_gt(len, 2);
	ck_assert_int_eq(r.out[0], '{');
	ck_assert_int_eq(r.out[len - 2], '}');
	ck_assert_int_eq(r.out[len - 1], '\n');
	ck_assert_ptr_nonnull(strstr(r.out, "\"dev\":\"/dev/null\""));
	ck_assert_ptr_nonnull(strstr(r.out, "\"ok\":5,"));
	ck_assert_ptr_nonnull(strstr(r.out, "\"p50_us\":"));

	run("", "-n 5", &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "/dev/null: 5 requests"));
	ck_assert_ptr_nonnull(strstr(r.out, "latency us: min "));
}
END_TEST

START_TEST(test_setup_failures)
{
	struct result r;

	/* -d given twice: the last one, a missing node, wins. */
	run("", "-d /nonexistent/ipmi9 -n 1 -k", &r);
	ck_assert_int_eq(r.rc, 2);
	ck_assert_str_eq(r.out, "");
	run("", "-n 0", &r);
	ck_assert_int_eq(r.rc, 2);
	run("", "-r 06", &r);
	ck_assert_int_eq(r.rc, 2);
}
END_TEST

static Suite *probe_suite(void)
{
	Suite *s = suite_create("ipmi_probe");
	TCase *tc = tcase_create("fake-device");

	tcase_add_test(tc, test_all_ok);
	tcase_add_test(tc, test_warmup_and_msgids);
	tcase_add_test(tc, test_request_data_and_ipmb);
	tcase_add_test(tc, test_events_skipped);
	tcase_add_test(tc, test_stray_msgid);
	tcase_add_test(tc, test_completion_codes);
	tcase_add_test(tc, test_timeouts);
	tcase_add_test(tc, test_bad_and_errno);
	tcase_add_test(tc, test_ioctl_mode);
	tcase_add_test(tc, test_formats);
	tcase_add_test(tc, test_setup_failures);
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
