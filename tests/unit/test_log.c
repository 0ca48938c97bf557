// SPDX-License-Identifier: GPL-2.0
/* test_log.c - kcsmuxd's logging under systemd (fused/util/log.c): journald
 * priority prefixes on every line, and JOURNAL_STREAM trusted only while
 * stderr is that stream. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUSE_USE_VERSION 35
#include <event2/event.h>
#include <fuse_log.h>

#include "util/log.h"

/* fmt_journal: what log_format_journal writes for PRI and MSG. */
static char *fmt_journal(int pri, const char *msg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	log_format_journal(f, pri, msg);
	fclose(f);
	return buf;
}

START_TEST(journal_prefix_one_line)
{
	char *s = fmt_journal(LOG_WARNING, "node ipmi2: over its budget");

	ck_assert_str_eq(s, "<4>node ipmi2: over its budget\n");
	free(s);
	s = fmt_journal(LOG_ERR, "x");
	ck_assert_str_eq(s, "<3>x\n");
	free(s);
	s = fmt_journal(LOG_DEBUG, "");
	ck_assert_str_eq(s, "<7>\n");
	free(s);
}
END_TEST

START_TEST(journal_prefix_every_line)
{
	/* a rejected file's cause spans lines: none may fall to info */
	char *s = fmt_journal(LOG_ERR, "reload rejected:\nkcsmux.conf:6: bad\n"
				       "kcsmux.conf:9: worse");

	ck_assert_str_eq(s, "<3>reload rejected:\n<3>kcsmux.conf:6: bad\n"
			    "<3>kcsmux.conf:9: worse\n");
	free(s);
	/* a trailing newline adds no empty entry */
	s = fmt_journal(LOG_CRIT, "a\nb\n");
	ck_assert_str_eq(s, "<2>a\n<2>b\n");
	free(s);
	/* facility bits never leak into the prefix */
	s = fmt_journal(LOG_DAEMON | LOG_NOTICE, "n");
	ck_assert_str_eq(s, "<5>n\n");
	free(s);
}
END_TEST

START_TEST(journal_stream_must_match_stderr)
{
	struct stat st;
	char v[64];
	int saved = dup(2);
	FILE *tmp = tmpfile();

	ck_assert_int_ge(saved, 0);
	ck_assert_ptr_nonnull(tmp);
	ck_assert_int_ge(dup2(fileno(tmp), 2), 0);
	ck_assert_int_eq(fstat(2, &st), 0);

	unsetenv("JOURNAL_STREAM");
	ck_assert(!log_stderr_is_journal());
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", v, 1);
	ck_assert(log_stderr_is_journal());
	/* inherited from a parent whose stream was another file */
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", v, 1);
	ck_assert(!log_stderr_is_journal());
	setenv("JOURNAL_STREAM", "garbage", 1);
	ck_assert(!log_stderr_is_journal());
	snprintf(v, sizeof(v), "%llu:%llux", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", v, 1);
	ck_assert(!log_stderr_is_journal());

	/* log_init(-f) under the journal: every message carries its
	 * priority and no "kcsmuxd: " prefix */
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", v, 1);
	log_init(true, LOG_INFO);
	log_warn("budget %d%%", 5);
	log_err("two\nlines");
	log_debug("not at info level");
	unsetenv("JOURNAL_STREAM");
	log_init(true, LOG_INFO);
	log_warn("plain");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);

	char buf[256] = "";
	size_t n;

	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	ck_assert_str_eq(buf, "<4>budget 5%\n<3>two\n<3>lines\n"
			      "kcsmuxd: plain\n");
}
END_TEST

/* What F holds from its start, as a string (static). */
static const char *contents(FILE *f)
{
	static char buf[512];
	size_t n;

	fflush(f);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	return buf;
}

/*
 * libevent's and libfuse's own messages go through log_msg: its prefix,
 * the library's name and the level's priority (detached, syslog), not
 * raw "[warn] ..." lines on a stderr nobody reads. And while detaching,
 * errors also reach the waiting parent's pipe.
 */
START_TEST(libraries_through_the_logger)
{
	int saved = dup(2);
	FILE *tmp = tmpfile(), *up = tmpfile();

	ck_assert_ptr_nonnull(tmp);
	ck_assert_ptr_nonnull(up);
	ck_assert_int_ge(dup2(fileno(tmp), 2), 0);
	unsetenv("JOURNAL_STREAM");
	log_init(true, LOG_INFO);
	log_route_libraries();
	event_base_free(NULL); /* libevent warns: no base to free */
	fuse_log(FUSE_LOG_ERR, "cuse: bad init\n");
	fuse_log(FUSE_LOG_DEBUG, "below the level\n");
	log_set_startup(up);
	log_err("backend: %s", "gone");
	log_info("not an error");
	log_set_startup(NULL);
	log_err("after the start");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	/* libevent names its function (event_base_free or _free_) */
	ck_assert_str_eq(strstr(contents(tmp), ": no base to free\n"),
			 ": no base to free\n"
			 "kcsmuxd: libfuse: cuse: bad init\n"
			 "kcsmuxd: backend: gone\n"
			 "kcsmuxd: not an error\n"
			 "kcsmuxd: after the start\n");
	ck_assert_int_eq(strncmp(contents(tmp),
				 "kcsmuxd: libevent: event_base_free", 34),
			 0);
	ck_assert_str_eq(strstr(contents(tmp), "kcsmuxd: libfuse"),
			 "kcsmuxd: libfuse: cuse: bad init\n"
			 "kcsmuxd: backend: gone\n"
			 "kcsmuxd: not an error\n"
			 "kcsmuxd: after the start\n");
	ck_assert_str_eq(contents(up), "kcsmuxd: backend: gone\n");
	fclose(tmp);
	fclose(up);
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("journal");

	tcase_add_test(tc, journal_prefix_one_line);
	tcase_add_test(tc, journal_prefix_every_line);
	tcase_add_test(tc, journal_stream_must_match_stderr);
	tcase_add_test(tc, libraries_through_the_logger);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(log_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
