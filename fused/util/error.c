// SPDX-License-Identifier: GPL-2.0
/* error.c - error messages (util/error.h). */
#include <stdarg.h>
#include <stdio.h>

#include "util/error.h"

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

int error_set(char **cause, const char *fmt, ...)
{
	va_list ap;

	if (cause == NULL)
		return -1;
	va_start(ap, fmt);
	*cause = xvasprintf(fmt, ap);
	va_end(ap);
	return -1;
}

const char *error_str(const char *cause)
{
	return cause != NULL ? cause : "out of memory";
}
