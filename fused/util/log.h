/* SPDX-License-Identifier: GPL-2.0 */
/* log.h - kcsmuxd logging: stderr in the foreground, syslog otherwise. */
#ifndef KCSMUX_LOG_H
#define KCSMUX_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <syslog.h>

/* State for log_ratelimited(): zero-initialise one per message site. */
struct log_rl {
	unsigned long window;
	unsigned int count;
	unsigned int suppressed;
};

void log_init(bool foreground, int level);
void log_set_level(int level);
/* Logging goes to stderr (-f), not syslog. */
bool log_to_stderr(void);
/* stderr is the journal's stream (JOURNAL_STREAM matches fd 2). */
bool log_stderr_is_journal(void);
/* Write MSG to F for journald: "<PRI>" before each of its lines. */
void log_format_journal(FILE *f, int pri, const char *msg);
void log_vmsg(int pri, const char *fmt, va_list ap);
/* While kcsmuxd detaches, errors also go to F (the waiting parent prints
 * them and exits non-zero); NULL: no more. */
void log_set_startup(FILE *f);
/* libevent's and libfuse's own messages through log_msg (log_libs.c). */
void log_route_libraries(void);
void log_msg(int pri, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Like log_msg, but at most 5 messages per site every 10 s; the number
 * suppressed is reported with the next one that passes. */
void log_ratelimited(struct log_rl *rl, int pri, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
_Noreturn void fatalx(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

#define log_err(...)   log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
