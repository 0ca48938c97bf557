// SPDX-License-Identifier: GPL-2.0
/* log.c - kcsmuxd logging. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util/log.h"

static bool log_stderr = true;
static bool log_journal; /* stderr is journald's stream: <N> prefixes */
static int log_level = LOG_INFO;
static FILE *log_startup; /* the parent waiting on a detaching start */

/*
 * systemd sets JOURNAL_STREAM=DEV:INODE when it connects stdout/stderr to
 * the journal; journald then reads a "<N>" at the start of each line as
 * that line's syslog priority (sd-daemon(3)). Only trust it while stderr
 * is still that stream (not when a child inherited the variable).
 */
bool log_stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char tail;

	if (e == NULL || sscanf(e, "%llu:%llu%c", &dev, &ino, &tail) != 2)
		return false;
	if (fstat(2, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void log_init(bool foreground, int level)
{
	log_stderr = foreground;
	log_journal = foreground && log_stderr_is_journal();
	log_level = level;
	if (!foreground)
		openlog("kcsmuxd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

bool log_to_stderr(void)
{
	return log_stderr;
}

/*
 * One message to the journal's stream: each line of it (a rejected
 * configuration's cause can span several) starts with the priority, so no
 * continuation line drops to the default (info).
 */
void log_format_journal(FILE *f, int pri, const char *msg)
{
	const char *p = msg, *nl;

	do {
		nl = strchr(p, '\n');
		fprintf(f, "<%d>%.*s\n", pri & LOG_PRIMASK,
			nl != NULL ? (int)(nl - p) : (int)strlen(p), p);
		p = nl != NULL ? nl + 1 : NULL;
	} while (p != NULL && *p != '\0');
}

void log_set_level(int level)
{
	log_level = level;
}

void log_set_startup(FILE *f)
{
	log_startup = f;
}

void log_vmsg(int pri, const char *fmt, va_list ap)
{
	if (log_startup != NULL && pri <= LOG_ERR) {
		va_list aq;

		va_copy(aq, ap);
		fputs("kcsmuxd: ", log_startup);
		vfprintf(log_startup, fmt, aq);
		fputc('\n', log_startup);
		fflush(log_startup);
		va_end(aq);
	}
	if (pri > log_level)
		return;
	if (log_journal) {
		char *msg = NULL;

		if (vasprintf(&msg, fmt, ap) < 0)
			return;
		log_format_journal(stderr, pri, msg);
		free(msg);
	} else if (log_stderr) {
		fputs("kcsmuxd: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else {
		vsyslog(pri, fmt, ap);
	}
}

void log_msg(int pri, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(pri, fmt, ap);
	va_end(ap);
}

#define RL_WINDOW_S 10
#define RL_BURST    5

void log_ratelimited(struct log_rl *rl, int pri, const char *fmt, ...)
{
	struct timespec ts;
	unsigned long w;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	w = (unsigned long)ts.tv_sec / RL_WINDOW_S;
	if (w != rl->window) {
		rl->window = w;
		rl->count = 0;
	}
	if (rl->count++ >= RL_BURST) {
		rl->suppressed++;
		return;
	}
	if (rl->suppressed) {
		log_msg(pri, "(%u similar messages suppressed)",
			rl->suppressed);
		rl->suppressed = 0;
	}
	va_start(ap, fmt);
	log_vmsg(pri, fmt, ap);
	va_end(ap);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_CRIT, fmt, ap);
	va_end(ap);
	exit(1);
}
