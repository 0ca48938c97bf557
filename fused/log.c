// SPDX-License-Identifier: GPL-2.0
/* log.c - kcsmuxd logging. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "log.h"

static bool log_stderr = true;
static int log_level = LOG_INFO;

void log_init(bool foreground, int level)
{
	log_stderr = foreground;
	log_level = level;
	if (!foreground)
		openlog("kcsmuxd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void log_set_level(int level)
{
	log_level = level;
}

static void log_vmsg(int pri, const char *fmt, va_list ap)
{
	if (pri > log_level)
		return;
	if (log_stderr) {
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

#define RL_WINDOW_S	10
#define RL_BURST	5

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
		log_msg(pri, "(%u similar messages suppressed)", rl->suppressed);
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
