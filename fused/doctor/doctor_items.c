// SPDX-License-Identifier: GPL-2.0
/*
 * doctor_items.c - a run's answers as a baseline file, read back, and a
 * replay compared with it item by item under doctor_compare.c's rules.
 *
 * The file is text, one line each:
 *   kcsmux-baseline 1
 *   device PATH DRIVER
 *   timing NAME N P50 P99
 *   item KEY CLASS HEX...      (the answer from its completion code on)
 *   item KEY CLASS !ERRNO      (no answer)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"

int doc_baseline_write(FILE *f, const struct doc_run *r)
{
	size_t i, j;

	fprintf(f, "kcsmux-baseline 1\ndevice %s %s\n", r->device, r->driver);
	for (i = 0; i < T_N; i++)
		fprintf(f, "timing %s %u %u %u\n", r->t[i].name, r->t[i].n,
			r->t[i].p50, r->t[i].p99);
	for (i = 0; i < r->nitems; i++) {
		const struct doc_item *it = &r->items[i];

		fprintf(f, "item %s %s", it->key, cmp_class_name(it->cls));
		if (it->err != 0)
			fprintf(f, " !%d", -it->err);
		for (j = 0; j < it->len; j++)
			fprintf(f, " %02x", it->data[j]);
		fputc('\n', f);
	}
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}

static int parse_item(char *p, struct doc_item *it)
{
	char *key = strtok(p, " \n"), *cls = strtok(NULL, " \n"), *b;
	int c;

	memset(it, 0, sizeof(*it));
	if (key == NULL || cls == NULL || strlen(key) >= sizeof(it->key) ||
	    (c = cmp_class_parse(cls)) < 0)
		return -1;
	snprintf(it->key, sizeof(it->key), "%s", key);
	it->cls = (enum cmp_class)c;
	while ((b = strtok(NULL, " \n")) != NULL) {
		char *end;
		long v;

		if (b[0] == '!') {
			it->err = -(int)strtol(b + 1, &end, 10);
			if (*end != '\0' || it->err >= 0)
				return -1;
			continue;
		}
		v = strtol(b, &end, 16);
		if (*end != '\0' || v < 0 || v > 255 ||
		    it->len == DOC_ANSWER_MAX)
			return -1;
		it->data[it->len++] = (uint8_t)v;
	}
	return 0;
}

static const char *const tnames[T_N] = { "get_device_id", "get_sensor_reading",
					 "get_sdr" };

int doc_baseline_read(FILE *f, struct doc_run *r, char *err, size_t errlen)
{
	char line[1200], w[32];
	unsigned ln = 0, i;
	bool magic = false;

	memset(r, 0, sizeof(*r));
	r->sdr_partial = r->sdr_reserve = r->sensor = -1;
	for (i = 0; i < T_N; i++)
		r->t[i].name = tnames[i];
	while (fgets(line, sizeof(line), f) != NULL) {
		struct doc_item it;
		unsigned n, p50, p99;

		ln++;
		if (!magic) {
			if (strcmp(line, "kcsmux-baseline 1\n") != 0)
				goto bad;
			magic = true;
		} else if (strncmp(line, "item ", 5) == 0) {
			if (parse_item(line + 5, &it) < 0 ||
			    doc_item_add(r, &it) < 0)
				goto bad;
		} else if (sscanf(line, "timing %31s %u %u %u", w, &n, &p50,
				  &p99) == 4) {
			for (i = 0; i < T_N; i++)
				if (strcmp(w, tnames[i]) == 0) {
					r->t[i].n = n;
					r->t[i].p50 = p50;
					r->t[i].p99 = p99;
				}
		} else if (strncmp(line, "device ", 7) != 0) {
			goto bad;
		}
	}
	if (magic)
		return 0;
	snprintf(err, errlen, "empty, not a baseline");
	return -1;
bad:
	snprintf(err, errlen, "line %u: not a baseline line", ln);
	doc_run_free(r);
	return -1;
}

static void diff(FILE *f, bool json, unsigned *n, const char *key,
		 const char *cls, const char *why)
{
	if (json) {
		fprintf(f, "%s\n  {\"item\": ", *n ? "," : "");
		doc_json_str(f, key);
		fprintf(f, ", \"rule\": \"%s\", \"difference\": ", cls);
		doc_json_str(f, why);
		fputc('}', f);
	} else {
		fprintf(f, "differs   %-14s %-8s %s\n", key, cls, why);
	}
	(*n)++;
}

unsigned doc_compare(FILE *f, bool json, const struct doc_run *b,
		     const struct doc_run *r)
{
	char why[200];
	unsigned n = 0;
	size_t i;

	for (i = 0; i < b->nitems; i++) {
		const struct doc_item *a = &b->items[i];
		const struct doc_item *c = doc_item_find(r, a->key);

		if (c == NULL) {
			if (a->cls != CMP_INFO)
				diff(f, json, &n, a->key,
				     cmp_class_name(a->cls),
				     "not asked in the replay");
			continue;
		}
		if (cmp_answer(a->cls, a->data, a->len, c->data, c->len, why,
			       sizeof(why)))
			diff(f, json, &n, a->key, cmp_class_name(a->cls), why);
	}
	for (i = 0; i < r->nitems; i++)
		if (r->items[i].cls != CMP_INFO &&
		    doc_item_find(b, r->items[i].key) == NULL)
			diff(f, json, &n, r->items[i].key,
			     cmp_class_name(r->items[i].cls),
			     "not in the baseline");
	for (i = 0; i < T_N; i++)
		if (b->t[i].n > 0 && r->t[i].n > 0 &&
		    cmp_timing(b->t[i].p50, r->t[i].p50, why, sizeof(why)))
			diff(f, json, &n, b->t[i].name, "timing", why);
		else if (b->t[i].n > 0 && r->t[i].n == 0)
			diff(f, json, &n, b->t[i].name, "timing",
			     "no timed answer in the replay");
	return n;
}
