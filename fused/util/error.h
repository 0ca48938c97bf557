/* SPDX-License-Identifier: GPL-2.0 */
/*
 * error.h - the one way to make an error message (docs/design.md, "Errors").
 *
 * A function that can fail returns -1 (or NULL) and, when its caller passes
 * a `char **cause`, sets *cause to a message the caller frees. error_set()
 * does both in one statement: `return error_set(cause, "%s: ...", path);`.
 * The allocation is checked: if it fails, *cause is NULL (callers print a
 * NULL cause as "out of memory": error_str()), never left unset.
 */
#ifndef KCSMUX_ERROR_H
#define KCSMUX_ERROR_H

#include <stdarg.h>

/* *cause = the formatted message (NULL if that allocation failed); no-op
 * for a NULL cause. Returns -1, for `return error_set(...)`. */
int error_set(char **cause, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A checked vasprintf/asprintf: the formatted string, or NULL if out of
 * memory (never an indeterminate pointer). */
char *xvasprintf(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* CAUSE, or "out of memory" where making it failed. */
const char *error_str(const char *cause);

#endif /* KCSMUX_ERROR_H */
