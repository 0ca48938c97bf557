/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json_valid.h - a strict JSON validator for the unit tests (RFC 8259
 * grammar, no extensions): json_valid(text, len). Header-only, static.
 */
#ifndef KCSMUX_TEST_JSON_VALID_H
#define KCSMUX_TEST_JSON_VALID_H

#include <stdbool.h>
#include <string.h>

struct jv_parser {
	const char *p, *end;
	int depth;
};

static inline void jv_ws(struct jv_parser *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static inline bool jv_value(struct jv_parser *j);

static inline bool jv_lit(struct jv_parser *j, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, s, n) != 0)
		return false;
	j->p += n;
	return true;
}

static inline bool jv_digits(struct jv_parser *j)
{
	const char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > s;
}

static inline bool jv_number(struct jv_parser *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (!jv_digits(j))
		return false;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!jv_digits(j))
			return false;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!jv_digits(j))
			return false;
	}
	return true;
}

static inline bool jv_string(struct jv_parser *j)
{
	int i;

	if (j->p >= j->end || *j->p != '"')
		return false;
	for (j->p++; j->p < j->end; j->p++) {
		unsigned char c = (unsigned char)*j->p;

		if (c == '"') {
			j->p++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c != '\\')
			continue;
		if (++j->p >= j->end)
			return false;
		if (strchr("\"\\/bfnrt", *j->p) != NULL)
			continue;
		if (*j->p != 'u')
			return false;
		for (i = 0; i < 4; i++)
			if (++j->p >= j->end ||
			    strchr("0123456789abcdefABCDEF", *j->p) == NULL)
				return false;
	}
	return false;
}

static inline bool jv_container(struct jv_parser *j, char close, bool object)
{
	j->p++;
	if (++j->depth > 64)
		return false;
	jv_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		jv_ws(j);
		if (object) {
			if (!jv_string(j))
				return false;
			jv_ws(j);
			if (j->p >= j->end || *j->p++ != ':')
				return false;
		}
		if (!jv_value(j))
			return false;
		jv_ws(j);
		if (j->p >= j->end)
			return false;
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p++ != close)
			return false;
		j->depth--;
		return true;
	}
}

static inline bool jv_value(struct jv_parser *j)
{
	jv_ws(j);
	if (j->p >= j->end)
		return false;
	switch (*j->p) {
	case '{':
		return jv_container(j, '}', true);
	case '[':
		return jv_container(j, ']', false);
	case '"':
		return jv_string(j);
	case 't':
		return jv_lit(j, "true");
	case 'f':
		return jv_lit(j, "false");
	case 'n':
		return jv_lit(j, "null");
	default:
		return jv_number(j);
	}
}

static inline bool json_valid(const char *s, size_t len)
{
	struct jv_parser j = { s, s + len, 0 };

	if (!jv_value(&j))
		return false;
	jv_ws(&j);
	return j.p == j.end;
}

#endif /* KCSMUX_TEST_JSON_VALID_H */
