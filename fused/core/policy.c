// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - node policies: presets, key = value parsing and formatting,
 * shared by the configuration file and kcsmuxctl, and the value parsers
 * (value_*) both use. Access sets are access.c's.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/policy.h"
#include "util/array.h"
#include "util/error.h"

/*
 * Presets, documented (with the reasons) in kcsmux.conf(5). The order is
 * enum kcsmux_preset's. All share use_irq, weight and queue.
 */
static const struct kcsmux_policy presets[] = {
	[KCSMUX_PRESET_NORMAL] = {
		.max_busy_us = 0, .poll_us = 100, .poll_max_us = 100,
		.backoff = KCSMUX_BACKOFF_FIXED, .use_irq = true,
		.prio = KCSMUX_PRIO_NORMAL, .weight = 100, .burst = 10,
		.queue = 64,
	},
	[KCSMUX_PRESET_INTERACTIVE] = {
		.max_busy_us = 2000, .poll_us = 50, .poll_max_us = 100,
		.backoff = KCSMUX_BACKOFF_EXP, .use_irq = true,
		.prio = KCSMUX_PRIO_INTERACTIVE, .weight = 100, .burst = 10,
		.queue = 64,
	},
	[KCSMUX_PRESET_MONITOR] = {
		.max_busy_us = 0, .poll_us = 200, .poll_max_us = 1000,
		.backoff = KCSMUX_BACKOFF_EXP, .use_irq = true,
		.cpu_budget_ppm = 10000, .prio = KCSMUX_PRIO_NORMAL,
		.weight = 100, .rate_milli = 150000, .burst = 50, .queue = 64,
	},
	[KCSMUX_PRESET_BULK] = {
		.max_busy_us = 0, .poll_us = 500, .poll_max_us = 4000,
		.backoff = KCSMUX_BACKOFF_EXP, .use_irq = true,
		.prio = KCSMUX_PRIO_BULK, .weight = 100, .burst = 10,
		.queue = 64,
	},
};

static const char *const preset_names[] = { "normal", "interactive", "monitor",
					    "bulk", NULL };
static const char *const backoff_names[] = { "fixed", "exp", "adaptive", NULL };
static const char *const prio_names[] = { "interactive", "normal", "bulk",
					  NULL };

enum kind { K_U32, K_FIXED, K_ENUM, K_BOOL };

/* One policy key: where it lives in the struct and how its value reads. */
struct pkey {
	const char *name;
	enum kind kind;
	size_t off;
	uint32_t min, max;  /* K_U32; K_FIXED: max, scaled */
	unsigned decimals;  /* K_FIXED */
	const char *suffix; /* K_FIXED: required unit suffix */
	const char *word;   /* alias for wordval */
	uint32_t wordval;
	bool empty;		  /* "" means wordval too */
	const char *const *names; /* K_ENUM */
};

#define OFF(f) offsetof(struct kcsmux_policy, f)

_Static_assert(sizeof(enum kcsmux_backoff) == sizeof(int) &&
		       sizeof(enum kcsmux_prio) == sizeof(int),
	       "enum fields are read as int");

static const struct pkey pkeys[] = {
	{ .name = "max_busy_us",
	  .kind = K_U32,
	  .off = OFF(max_busy_us),
	  .max = 1000000,
	  .word = "unlimited",
	  .wordval = KCSMUX_UNLIMITED },
	{ .name = "poll_us",
	  .kind = K_U32,
	  .off = OFF(poll_us),
	  .min = 1,
	  .max = 1000000 },
	{ .name = "poll_max_us",
	  .kind = K_U32,
	  .off = OFF(poll_max_us),
	  .min = 1,
	  .max = 1000000 },
	{ .name = "backoff",
	  .kind = K_ENUM,
	  .off = OFF(backoff),
	  .names = backoff_names },
	{ .name = "use_irq", .kind = K_BOOL, .off = OFF(use_irq) },
	{ .name = "cpu_budget",
	  .kind = K_FIXED,
	  .off = OFF(cpu_budget_ppm),
	  .max = 1000000,
	  .decimals = 4,
	  .suffix = "%",
	  .word = "none",
	  .empty = true },
	{ .name = "latency_target_us",
	  .kind = K_U32,
	  .off = OFF(latency_target_us),
	  .max = 60000000,
	  .word = "none",
	  .empty = true },
	{ .name = "priority",
	  .kind = K_ENUM,
	  .off = OFF(prio),
	  .names = prio_names },
	{ .name = "weight",
	  .kind = K_U32,
	  .off = OFF(weight),
	  .min = 1,
	  .max = 10000 },
	{ .name = "rate",
	  .kind = K_FIXED,
	  .off = OFF(rate_milli),
	  .max = 100000000,
	  .decimals = 3,
	  .word = "unlimited" },
	{ .name = "burst",
	  .kind = K_U32,
	  .off = OFF(burst),
	  .min = 1,
	  .max = 10000 },
	{ .name = "queue",
	  .kind = K_U32,
	  .off = OFF(queue),
	  .min = 1,
	  .max = 10000 },
};

_Static_assert(ARRAY_SIZE(pkeys) <= 32, "policy_merge() masks are 32 bits");

/* Decimal digits only; -1 on anything else or overflow past MAX. */
static int parse_dec(const char *v, uint64_t max, uint64_t *out)
{
	uint64_t n = 0;

	if (*v == '\0')
		return -1;
	for (; *v != '\0'; v++) {
		if (!isdigit((unsigned char)*v))
			return -1;
		n = n * 10 + (uint64_t)(*v - '0');
		if (n > max)
			return -1;
	}
	*out = n;
	return 0;
}

/* "12", "12.5" with up to DEC fraction digits, scaled by 10^DEC. */
static int parse_scaled(const char *v, unsigned dec, uint64_t max,
			uint64_t *out)
{
	uint64_t n = 0;
	unsigned frac = 0;
	bool dot = false, digits = false;

	for (; *v != '\0'; v++) {
		if (*v == '.' && !dot) {
			dot = true;
			continue;
		}
		if (!isdigit((unsigned char)*v) || (dot && ++frac > dec))
			return -1;
		n = n * 10 + (uint64_t)(*v - '0');
		digits = true;
		if (n > max)
			return -1;
	}
	if (!digits || (dot && frac == 0))
		return -1;
	for (; frac < dec; frac++)
		n *= 10;
	if (n > max)
		return -1;
	*out = n;
	return 0;
}

/* VAL scaled by 10^DEC as the shortest decimal text. */
static void format_scaled(char *buf, size_t len, uint64_t val, unsigned dec)
{
	uint64_t scale = 1;
	unsigned k;
	int n;

	for (k = 0; k < dec; k++)
		scale *= 10;
	n = snprintf(buf, len, "%llu", (unsigned long long)(val / scale));
	if (val % scale == 0 || n < 0 || (size_t)n >= len)
		return;
	n += snprintf(buf + n, len - (size_t)n, ".%0*llu", (int)dec,
		      (unsigned long long)(val % scale));
	while (n > 0 && (size_t)n < len && buf[n - 1] == '0')
		buf[--n] = '\0';
}

int value_u32(const char *key, const char *v, uint32_t min, uint32_t max,
	      uint32_t *out, char **cause)
{
	uint64_t n;

	if (parse_dec(v, max, &n) == -1 || n < min)
		return error_set(cause,
				 "%s: expected an integer from %u to "
				 "%u, not '%s'",
				 key, min, max, v);
	*out = (uint32_t)n;
	return 0;
}

int value_fixed(const char *key, const char *v, unsigned decimals, uint32_t max,
		uint32_t *out, char **cause)
{
	char hi[32];
	uint64_t n;

	if (parse_scaled(v, decimals, max, &n) == -1) {
		format_scaled(hi, sizeof(hi), max, decimals);
		return error_set(cause,
				 "%s: expected a number from 0 to %s "
				 "with up to %u decimals, not '%s'",
				 key, hi, decimals, v);
	}
	*out = (uint32_t)n;
	return 0;
}

int value_bool(const char *key, const char *v, bool *out, char **cause)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(v, yes[i]) == 0 || strcasecmp(v, no[i]) == 0) {
			*out = strcasecmp(v, yes[i]) == 0;
			return 0;
		}
	}
	return error_set(cause,
			 "%s: expected yes/no, true/false, on/off or "
			 "1/0, not '%s'",
			 key, v);
}

/* "a, b or c" for messages. */
static void join_names(char *buf, size_t len, const char *const *names)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; names[i] != NULL && n < len; i++) {
		const char *sep = i == 0	       ? "" :
				  names[i + 1] == NULL ? " or " :
							 ", ";
		int w = snprintf(buf + n, len - n, "%s%s", sep, names[i]);

		if (w < 0)
			break;
		n += (size_t)w;
	}
}

int value_enum(const char *key, const char *v, const char *const *names,
	       char **cause)
{
	const char *near;
	char all[128];
	int i;

	for (i = 0; names[i] != NULL; i++)
		if (strcasecmp(v, names[i]) == 0)
			return i;
	join_names(all, sizeof(all), names);
	near = value_suggest(v, names);
	if (near != NULL)
		return error_set(cause,
				 "%s: '%s' is not %s (did you mean "
				 "'%s'?)",
				 key, v, all, near);
	return error_set(cause, "%s: '%s' is not %s", key, v, all);
}

/* Levenshtein distance, for "did you mean"; long words are never close. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, tmp;
	size_t row[64];

	if (la >= ARRAY_SIZE(row) || lb >= ARRAY_SIZE(row))
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t sub = prev + (tolower((unsigned char)a[i - 1]) !=
					     tolower((unsigned char)b[j - 1]));

			tmp = row[j];
			row[j] = sub;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (tmp + 1 < row[j])
				row[j] = tmp + 1;
			prev = tmp;
		}
	}
	return row[lb];
}

const char *value_suggest(const char *word, const char *const *cands)
{
	const char *best = NULL;
	size_t d, bestd = 3, i;

	for (i = 0; cands[i] != NULL; i++) {
		d = distance(word, cands[i]);
		if (d < bestd && d < strlen(cands[i]) && d < strlen(word)) {
			best = cands[i];
			bestd = d;
		}
	}
	return best;
}

const struct kcsmux_policy *policy_preset(enum kcsmux_preset p)
{
	if ((size_t)p >= ARRAY_SIZE(presets))
		return NULL;
	return &presets[p];
}

const char *policy_preset_name(enum kcsmux_preset p)
{
	if ((size_t)p >= ARRAY_SIZE(presets))
		return NULL;
	return preset_names[p];
}

int policy_preset_lookup(const char *name, enum kcsmux_preset *out,
			 char **cause)
{
	int i = value_enum("policy", name, preset_names, cause);

	if (i == -1)
		return -1;
	*out = (enum kcsmux_preset)i;
	return 0;
}

const char *policy_key_name(size_t i)
{
	return i < ARRAY_SIZE(pkeys) ? pkeys[i].name : NULL;
}

int policy_key_index(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pkeys); i++)
		if (strcmp(key, pkeys[i].name) == 0)
			return (int)i;
	return -1;
}

/* "an integer from 1 to 1000000 or 'unlimited'" and so on. */
static void describe(const struct pkey *k, char *buf, size_t len)
{
	char hi[32], alt[32] = "";
	const char *sfx = k->suffix != NULL ? k->suffix : "";

	if (k->word != NULL)
		snprintf(alt, sizeof(alt), " or '%s'", k->word);
	if (k->kind == K_U32) {
		snprintf(buf, len, "an integer from %u to %u%s", k->min, k->max,
			 alt);
		return;
	}
	format_scaled(hi, sizeof(hi), k->max, k->decimals);
	snprintf(buf, len,
		 "a number from 0%s to %s%s with up to %u "
		 "decimals%s",
		 sfx, hi, sfx, k->decimals, alt);
}

/* K_FIXED text without its suffix; -1 when the suffix is missing. */
static int strip_suffix(const struct pkey *k, const char *v, char *buf,
			size_t len)
{
	size_t n = strlen(v), s;

	if (k->suffix == NULL)
		return snprintf(buf, len, "%s", v) >= (int)len ? -1 : 0;
	s = strlen(k->suffix);
	if (n < s || n - s >= len || strcmp(v + n - s, k->suffix) != 0)
		return -1;
	memcpy(buf, v, n - s);
	buf[n - s] = '\0';
	return 0;
}

static int parse_number(const struct pkey *k, const char *v, uint32_t *out,
			char **cause)
{
	char what[128], num[32];
	uint64_t n = 0;
	int bad;

	if ((k->empty && *v == '\0') ||
	    (k->word != NULL && strcasecmp(v, k->word) == 0)) {
		*out = k->wordval;
		return 0;
	}
	if (k->kind == K_U32)
		bad = parse_dec(v, k->max, &n) == -1 || n < k->min;
	else
		bad = strip_suffix(k, v, num, sizeof(num)) == -1 ||
		      parse_scaled(num, k->decimals, k->max, &n) == -1;
	if (bad) {
		describe(k, what, sizeof(what));
		return error_set(cause, "%s: expected %s, not '%s'", k->name,
				 what, v);
	}
	*out = (uint32_t)n;
	return 0;
}

static int pkey_parse(const struct pkey *k, struct kcsmux_policy *pol,
		      const char *v, char **cause)
{
	char *field = (char *)pol + k->off;
	uint32_t n = 0;
	bool b = false;
	int i;

	switch (k->kind) {
	case K_ENUM:
		if ((i = value_enum(k->name, v, k->names, cause)) == -1)
			return -1;
		memcpy(field, &i, sizeof(i));
		return 0;
	case K_BOOL:
		if (value_bool(k->name, v, &b, cause) == -1)
			return -1;
		memcpy(field, &b, sizeof(b));
		return 0;
	default:
		if (parse_number(k, v, &n, cause) == -1)
			return -1;
		memcpy(field, &n, sizeof(n));
		return 0;
	}
}

int policy_set_key(struct kcsmux_policy *pol, const char *key,
		   const char *value, char **cause)
{
	enum kcsmux_preset p;
	const char *near;
	const char *names[ARRAY_SIZE(pkeys) + 2];
	size_t i;
	int idx;

	if (strcmp(key, "policy") == 0) {
		if (policy_preset_lookup(value, &p, cause) == -1)
			return -1;
		*pol = presets[p];
		return 0;
	}
	if ((idx = policy_key_index(key)) != -1)
		return pkey_parse(&pkeys[idx], pol, value, cause);
	for (i = 0; i < ARRAY_SIZE(pkeys); i++)
		names[i] = pkeys[i].name;
	names[i++] = "policy";
	names[i] = NULL;
	if ((near = value_suggest(key, names)) != NULL)
		return error_set(cause,
				 "unknown policy key '%s' (did you "
				 "mean '%s'?)",
				 key, near);
	return error_set(cause, "unknown policy key '%s'", key);
}

int policy_update(struct kcsmux_policy *pol, const char *key, const char *value,
		  char **cause)
{
	struct kcsmux_policy tmp = *pol;

	if (policy_set_key(&tmp, key, value, cause) == -1 ||
	    policy_check(&tmp, cause) == -1)
		return -1;
	*pol = tmp;
	return 0;
}

int policy_get_key(const struct kcsmux_policy *pol, const char *key, char *buf,
		   size_t len)
{
	const struct pkey *k;
	const char *field;
	uint32_t n;
	int idx, i;
	bool b;

	if ((idx = policy_key_index(key)) == -1 || len == 0)
		return -1;
	k = &pkeys[idx];
	field = (const char *)pol + k->off;
	switch (k->kind) {
	case K_ENUM:
		memcpy(&i, field, sizeof(i));
		snprintf(buf, len, "%s", k->names[i]);
		return 0;
	case K_BOOL:
		memcpy(&b, field, sizeof(b));
		snprintf(buf, len, "%s", b ? "yes" : "no");
		return 0;
	default:
		memcpy(&n, field, sizeof(n));
		if (k->word != NULL && n == k->wordval)
			snprintf(buf, len, "%s", k->word);
		else if (k->kind == K_U32)
			snprintf(buf, len, "%u", n);
		else {
			format_scaled(buf, len, n, k->decimals);
			if (k->suffix != NULL)
				strncat(buf, k->suffix, len - strlen(buf) - 1);
		}
		return 0;
	}
}

int policy_check(const struct kcsmux_policy *pol, char **cause)
{
	if (pol->poll_max_us < pol->poll_us)
		return error_set(cause,
				 "poll_max_us (%u) is less than "
				 "poll_us (%u)",
				 pol->poll_max_us, pol->poll_us);
	return 0;
}

void policy_merge(struct kcsmux_policy *dst, const struct kcsmux_policy *src,
		  uint32_t mask)
{
	size_t i, size;

	for (i = 0; i < ARRAY_SIZE(pkeys); i++) {
		if (!(mask & (1U << i)))
			continue;
		size = pkeys[i].kind == K_BOOL ? sizeof(bool) :
		       pkeys[i].kind == K_ENUM ? sizeof(int) :
						 sizeof(uint32_t);
		memcpy((char *)dst + pkeys[i].off,
		       (const char *)src + pkeys[i].off, size);
	}
}

bool policy_resolve(struct kcsmux_policy *out, const struct kcsmux_policy *base,
		    const struct kcsmux_policy *keys, uint32_t set)
{
	uint32_t pm = 1U << policy_key_index("poll_max_us");

	*out = *base;
	policy_merge(out, keys, set);
	if (!(set & pm) && out->poll_max_us < out->poll_us) {
		out->poll_max_us = out->poll_us;
		return true;
	}
	return false;
}
