// SPDX-License-Identifier: GPL-2.0
/*
 * log_libs.c - libevent's and libfuse's own messages (an epoll failure, a
 * CUSE session error) through kcsmuxd's logger: detached they would go to
 * a closed stderr and be lost. Each keeps its library's name in front.
 */
#define FUSE_USE_VERSION 35
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <event2/event.h>
#include <fuse_log.h>

#include "util/log.h"

static void from_libevent(int severity, const char *msg)
{
	int pri = severity >= EVENT_LOG_ERR  ? LOG_ERR :
		  severity == EVENT_LOG_WARN ? LOG_WARNING :
		  severity == EVENT_LOG_MSG  ? LOG_INFO :
					       LOG_DEBUG;

	log_msg(pri, "libevent: %s", msg);
}

static void from_libfuse(enum fuse_log_level level, const char *fmt, va_list ap)
{
	char buf[512];
	size_t len;

	/* fuse_log_level's values are syslog's priorities */
	vsnprintf(buf, sizeof(buf), fmt, ap);
	len = strlen(buf);
	while (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	log_msg((int)level, "libfuse: %s", buf);
}

void log_route_libraries(void)
{
	event_set_log_callback(from_libevent);
	fuse_set_log_func(from_libfuse);
}
