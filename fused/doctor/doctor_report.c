// SPDX-License-Identifier: GPL-2.0
/*
 * doctor_report.c - kcsmuxctl doctor's output: text for people, and one
 * JSON object a host for fleets (docs/man/kcsmuxctl.8 lists the fields).
 */
#include <stdio.h>
#include <string.h>

#include "doctor/doctor.h"

void doc_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void doc_print_text(FILE *f, const struct doc_run *r,
		    const struct doc_assessment *a)
{
	size_t i;

	fprintf(f, "device          %s (%s driver)\n", r->device, r->driver);
	for (i = 0; i < a->nv; i++)
		fprintf(f, "%-15s %-4s  %s\n", a->v[i].topic,
			doc_level_name(a->v[i].level), a->v[i].evidence);
	fprintf(f, "recommendations:\n");
	for (i = 0; i < a->na; i++)
		fprintf(f, "  %-12s %s: %s\n", a->a[i].use, a->a[i].setting,
			a->a[i].reason);
	fprintf(f, "took %llu ms, %u BMC requests (bound %u)\n",
		(unsigned long long)r->elapsed_ms, r->requests, r->bound);
	fprintf(f, "verdict         %s\n", doc_level_name(a->overall));
}

static void timing_json(FILE *f, const struct doc_timing *t)
{
	fprintf(f,
		"\"%s\": {\"n\": %u, \"failed\": %u, \"p50_us\": %u, "
		"\"p99_us\": %u, \"max_us\": %u}",
		t->name, t->n, t->failed, t->p50, t->p99, t->max);
}

static void identity_json(FILE *f, const struct doc_run *r)
{
	const uint8_t *d = doc_ok(r, "devid", 12);
	const char *m;
	uint32_t iana;

	if (d == NULL) {
		fprintf(f, "null");
		return;
	}
	iana = d[7] | d[8] << 8 | (uint32_t)(d[9] & 0x0f) << 16;
	m = doc_manufacturer(iana);
	fprintf(f,
		"{\"device_id\": %u, \"device_revision\": %u, "
		"\"firmware\": \"%u.%02x\", \"ipmi_version\": \"%u.%u\", "
		"\"manufacturer_id\": %u, \"manufacturer\": ",
		d[1], d[2] & 0x0f, d[3] & 0x7f, d[4], d[5] & 0x0f, d[5] >> 4,
		iana);
	if (m != NULL)
		doc_json_str(f, m);
	else
		fprintf(f, "null");
	fprintf(f, ", \"product_id\": %u}", d[10] | d[11] << 8);
}

void doc_print_json_error(FILE *f, const char *host, const char *device,
			  const char *error)
{
	fprintf(f, "{\"host\": ");
	doc_json_str(f, host);
	fprintf(f, ", \"device\": ");
	doc_json_str(f, device);
	fprintf(f,
		", \"driver\": null, \"verdict\": \"error\", "
		"\"schema_version\": %d, \"error\": ",
		DOC_SCHEMA_VERSION);
	doc_json_str(f, error);
}

void doc_print_json(FILE *f, const char *host, const struct doc_run *r,
		    const struct doc_assessment *a)
{
	size_t i;

	fprintf(f, "{\"host\": ");
	doc_json_str(f, host);
	fprintf(f, ", \"device\": ");
	doc_json_str(f, r->device);
	fprintf(f,
		", \"driver\": \"%s\", \"verdict\": \"%s\", "
		"\"schema_version\": %d, ",
		r->driver, doc_level_name(a->overall), DOC_SCHEMA_VERSION);
	fprintf(f,
		"\"elapsed_ms\": %llu, \"requests\": %u, "
		"\"request_bound\": %u, \"errors\": %u, \"retries\": %u, "
		"\"completion_codes\": %u,\n",
		(unsigned long long)r->elapsed_ms, r->requests, r->bound,
		r->errors, r->retries, r->ccs);
	fprintf(f, " \"identity\": ");
	identity_json(f, r);
	fprintf(f, ",\n \"timing\": {");
	for (i = 0; i < T_N; i++) {
		fprintf(f, "%s", i ? ", " : "");
		timing_json(f, &r->t[i]);
	}
	fprintf(f,
		"},\n \"sdr\": {\"records\": %u, \"longest\": %u, "
		"\"reservations\": %s, \"partial_reads\": %s, "
		"\"bmc_sensors\": %u},\n",
		r->sdr_records, r->sdr_longest,
		r->sdr_reserve == 1 ? "true" : "false",
		r->sdr_partial == 1 ? "true" :
		r->sdr_partial == 0 ? "false" :
				      "null",
		r->sensors);
	fprintf(f, " \"interrupts\": ");
	if (r->irq_before < 0 || r->irq_after < 0)
		fprintf(f, "null");
	else
		fprintf(f, "{\"before\": %lld, \"after\": %lld}", r->irq_before,
			r->irq_after);
	fprintf(f, ",\n \"checks\": [");
	for (i = 0; i < a->nv; i++) {
		fprintf(f,
			"%s\n  {\"topic\": \"%s\", \"verdict\": \"%s\", "
			"\"evidence\": ",
			i ? "," : "", a->v[i].topic,
			doc_level_name(a->v[i].level));
		doc_json_str(f, a->v[i].evidence);
		fprintf(f, "}");
	}
	fprintf(f, "],\n \"recommendations\": [");
	for (i = 0; i < a->na; i++) {
		fprintf(f,
			"%s\n  {\"use\": \"%s\", \"setting\": ", i ? "," : "",
			a->a[i].use);
		doc_json_str(f, a->a[i].setting);
		fprintf(f, ", \"reason\": ");
		doc_json_str(f, a->a[i].reason);
		fprintf(f, "}");
	}
	fprintf(f, "]");
}
