// SPDX-License-Identifier: GPL-2.0
/*
 * doctor_compare.c - the comparison rules of kcsmuxctl doctor --compare
 * (doctor.h): which bytes of each recorded answer must match.
 */
#include <stdio.h>
#include <string.h>

#include "doctor/doctor.h"

static const char *const names[CMP_NCLASSES] = {
	[CMP_EXACT] = "exact",	   [CMP_SENSOR] = "sensor",
	[CMP_SELINFO] = "selinfo", [CMP_WDT] = "wdt",
	[CMP_CHASSIS] = "chassis", [CMP_INFO] = "info",
};

const char *cmp_class_name(enum cmp_class c)
{
	return (unsigned)c < CMP_NCLASSES ? names[c] : "?";
}

int cmp_class_parse(const char *s)
{
	int i;

	for (i = 0; i < CMP_NCLASSES; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

/* The first byte index in [from, to) where A and B differ; -1 if none. */
static int first_diff(const uint8_t *a, const uint8_t *b, size_t from,
		      size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if (a[i] != b[i])
			return (int)i;
	return -1;
}

static int differ(char *why, size_t n, const char *fmt, int i, unsigned a,
		  unsigned b)
{
	snprintf(why, n, fmt, i, a, b);
	return 1;
}

/* Bytes [from, to) byte for byte (both at least TO long). */
static int same_range(const uint8_t *a, const uint8_t *b, size_t from,
		      size_t to, char *why, size_t n)
{
	int i = first_diff(a, b, from, to);

	if (i < 0)
		return 0;
	return differ(why, n, "byte %d: 0x%02x, baseline 0x%02x", i, b[i],
		      a[i]);
}

static int sensor(const uint8_t *a, const uint8_t *b, size_t len, char *why,
		  size_t n)
{
	int d;

	/* [cc, reading, flags, state...]: the flags' top three bits
	 * (event messages, scanning, reading unavailable) exactly; the
	 * threshold states follow the reading and are not compared */
	if (len < 3)
		return same_range(a, b, 0, len, why, n);
	if ((a[2] & 0xe0) != (b[2] & 0xe0))
		return differ(why, n,
			      "byte %d (sensor flags): 0x%02x, "
			      "baseline 0x%02x",
			      2, b[2] & 0xe0, a[2] & 0xe0);
	if (a[2] & 0x20) /* reading unavailable: the byte means nothing */
		return 0;
	d = (int)b[1] - (int)a[1];
	if (d > CMP_SENSOR_COUNTS || d < -CMP_SENSOR_COUNTS)
		return differ(why, n,
			      "byte %d (reading): %u, baseline %u (tolerance "
			      "3 counts)",
			      1, b[1], a[1]);
	return 0;
}

static int selinfo(const uint8_t *a, const uint8_t *b, size_t len, char *why,
		   size_t n)
{
	unsigned ea, eb;

	/* [cc, version, entries(2), free(2), addition(4), erase(4), ops] */
	if (len < 15)
		return same_range(a, b, 0, len, why, n);
	if (same_range(a, b, 0, 2, why, n) || same_range(a, b, 14, 15, why, n))
		return 1;
	ea = a[2] | a[3] << 8;
	eb = b[2] | b[3] << 8;
	if (eb < ea || eb - ea > CMP_SEL_GROWTH)
		return differ(why, n,
			      "byte %d (SEL entries): %u, baseline %u (may "
			      "grow by up to 16)",
			      2, eb, ea);
	return 0;
}

int cmp_answer(enum cmp_class c, const uint8_t *a, size_t alen,
	       const uint8_t *b, size_t blen, char *why, size_t whylen)
{
	if (c == CMP_INFO)
		return 0;
	if (blen == 0 && alen != 0) {
		snprintf(why, whylen, "no answer (the baseline had %zu bytes)",
			 alen);
		return 1;
	}
	if (alen == 0 && blen != 0) {
		snprintf(why, whylen, "an answer where the baseline had none");
		return 1;
	}
	if (alen == 0)
		return 0;
	if (a[0] != b[0])
		return differ(why, whylen,
			      "completion code (byte %d): 0x%02x, "
			      "baseline 0x%02x",
			      0, b[0], a[0]);
	if (alen != blen) {
		snprintf(why, whylen, "%zu bytes, baseline %zu", blen, alen);
		return 1;
	}
	switch (c) {
	case CMP_SENSOR:
		return sensor(a, b, alen, why, whylen);
	case CMP_SELINFO:
		return selinfo(a, b, alen, why, whylen);
	case CMP_WDT:
		/* [cc, use, actions, pretimeout, expiration flags,
		 * initial(2), present(2)]: the present countdown runs */
		return same_range(a, b, 0, alen < 7 ? alen : 7, why, whylen);
	case CMP_CHASSIS:
		/* [cc, power state, last power event, misc, front panel]:
		 * identify and intrusion (misc) may change in operation */
		return same_range(a, b, 0, alen < 3 ? alen : 3, why, whylen);
	default:
		return same_range(a, b, 0, alen, why, whylen);
	}
}

int cmp_timing(uint32_t base_p50, uint32_t p50, char *why, size_t whylen)
{
	uint64_t bound =
		(uint64_t)base_p50 * CMP_TIME_FACTOR + CMP_TIME_SLACK_US;

	if (p50 <= bound)
		return 0;
	snprintf(why, whylen,
		 "p50 %u us, baseline %u us (bound 4 x baseline + 20 ms = "
		 "%llu us)",
		 p50, base_p50, (unsigned long long)bound);
	return 1;
}
