/* SPDX-License-Identifier: GPL-2.0 */
/*
 * doctor.h - kcsmuxctl doctor: a read-only check of the BMC through any
 * /dev/ipmiN (the stock driver's or a kcsmuxd node: only the Linux IPMI
 * ioctl ABI), and the baseline a cutover replays and compares.
 *
 *   doctor_dev.c      one request on the device, timed and counted
 *   doctor_probe.c    the requests: identity, timings, SDR, FRU, ...
 *   doctor_verdict.c  verdicts and recommendations from the answers
 *   doctor_report.c   text and JSON
 *   doctor_items.c    the answers as a baseline file, and the comparison
 *   doctor_compare.c  the comparison rules (pure logic, below)
 */
#ifndef KCSMUX_DOCTOR_H
#define KCSMUX_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * doctor_compare.c: the rules by which kcsmuxctl doctor --compare judges
 * one BMC answer against the baseline's: each recorded answer has a class,
 * and the class says which bytes must match, which may move within a
 * tolerance and which are ignored (docs/man/kcsmuxctl.8, "COMPARISON").
 * Pure logic: no I/O.
 */
enum cmp_class {
	CMP_EXACT,   /* static data: byte for byte */
	CMP_SENSOR,  /* Get Sensor Reading: reading within tolerance */
	CMP_SELINFO, /* Get SEL Info: entries may grow, timestamps ignored */
	CMP_WDT,     /* Get Watchdog Timer: present countdown ignored */
	CMP_CHASSIS, /* Get Chassis Status: power state and last event */
	CMP_INFO,    /* recorded and shown, never a difference */
	CMP_NCLASSES
};

/* A sensor reading may move this many raw counts (either way). */
#define CMP_SENSOR_COUNTS 3
/* The SEL may gain this many entries between baseline and replay. */
#define CMP_SEL_GROWTH 16
/* A response-time profile is far outside the baseline's when its p50 is
 * above CMP_TIME_FACTOR times the baseline's p50 plus CMP_TIME_SLACK_US. */
#define CMP_TIME_FACTOR	  4
#define CMP_TIME_SLACK_US 20000

const char *cmp_class_name(enum cmp_class c);
/* The class named S; -1 if none. */
int cmp_class_parse(const char *s);

/*
 * Compare answer B (the replay's) with A (the baseline's), each the
 * response bytes from the completion code on, LEN 0 for no answer. 0 if
 * they agree under class C's rule; 1 if not, with why (one line, no
 * newline) in WHY.
 */
int cmp_answer(enum cmp_class c, const uint8_t *a, size_t alen,
	       const uint8_t *b, size_t blen, char *why, size_t whylen);

/* 0 if a replay's p50 (microseconds) is within the bound of the
 * baseline's; 1 with why otherwise. */
int cmp_timing(uint32_t base_p50, uint32_t p50, char *why, size_t whylen);

/* The most BMC requests one run makes (docs/man/kcsmuxctl.8): the check,
 * and the check with the whole SDR repository, FRU 0 and every sensor
 * (--baseline, --compare). */
#define DOC_BOUND_CHECK	   400
#define DOC_BOUND_BASELINE 2400
#define DOC_SAMPLES	   20  /* timed requests per command class */
#define DOC_MAX_SDR	   256 /* records walked */
#define DOC_MAX_SENSORS	   64  /* sensors read in a baseline */
#define DOC_FRU_MAX	   2048
#define DOC_TIMEOUT_MS	   15000 /* one request's answer */
#define DOC_MAX_SILENT	   3	 /* timeouts (or 0xC3, 0xFF) in a row: gone */
#define DOC_ANSWER_MAX	   272

/* ---- the device (doctor_dev.c) ---- */

struct doc_dev {
	int fd;
	const char *path;
	long msgid;
	unsigned requests, bound;
	unsigned errors;  /* transport errors and timeouts */
	unsigned retries; /* busy (0xC0) answers sent again */
	unsigned ccs;	  /* answers with a non-zero completion code */
	unsigned silent;  /* consecutive timeouts */
	bool over_bound;  /* a request was refused: the bound was reached */
	bool gone;	  /* DOC_MAX_SILENT timeouts in a row */
	uint32_t last_us; /* the last request's time */
};

/* Open PATH; 0, or -errno with a message on stderr. */
int doc_dev_open(struct doc_dev *d, const char *path, unsigned bound);
void doc_dev_close(struct doc_dev *d);
/*
 * One request to the BMC (system interface, LUN 0): its answer from the
 * completion code on into RSP (at most DOC_ANSWER_MAX), the length
 * returned; -ETIMEDOUT, -E2BIG (the bound reached), -errno otherwise.
 * A busy answer (0xC0) is sent again up to 3 times.
 */
int doc_xact(struct doc_dev *d, uint8_t netfn, uint8_t cmd, const uint8_t *data,
	     size_t len, uint8_t *rsp);

/*
 * If the BMC's watchdog runs, reset its countdown (Reset Watchdog Timer,
 * the one write of kcsmuxctl doctor --pet); a stopped one is left alone,
 * since a reset would start it. 1 petted, 0 not running, -errno.
 */
int doc_pet(struct doc_dev *d);

/* ---- what one run found (doctor_probe.c) ---- */

/* One recorded answer: KEY names the request ("devid", "sdr.0001",
 * "sensor.30", "fru0.0040", ...). */
struct doc_item {
	char key[24];
	enum cmp_class cls;
	int err;      /* 0, or the -errno of doc_xact */
	uint16_t len; /* answer bytes from the completion code on */
	uint8_t data[DOC_ANSWER_MAX];
};

struct doc_timing {
	const char *name; /* "get_device_id", "get_sensor_reading", ... */
	unsigned n, failed;
	uint32_t p50, p99, max; /* microseconds */
};

enum { T_DEVID, T_SENSOR, T_SDR, T_N };

struct doc_run {
	const char *device;
	const char *driver; /* "stock", "kcsmux" or "unknown" */
	bool full;	    /* baseline set: whole SDR, FRU, sensors */
	struct doc_item *items;
	size_t nitems, cap;
	struct doc_timing t[T_N];
	/* the SDR walk */
	unsigned sdr_records, sdr_longest;
	int sdr_partial;  /* 1 partial reads work, 0 refused, -1 unknown */
	int sdr_reserve;  /* 1 Reserve SDR Repository works, 0 not, -1 */
	int sensor;	  /* the timed sensor's number; -1 none */
	unsigned sensors; /* BMC sensors in the SDR */
	/* /proc/interrupts */
	char irq_line[96];
	long long irq_before, irq_after; /* -1 not visible */
	/* the device's counters, copied at the end */
	unsigned requests, bound, errors, retries, ccs;
	bool over_bound, gone;
	uint64_t elapsed_ms;
	long long now; /* wall clock at the start (timestamp plausibility) */
};

/* Run the check (FULL: the baseline set) on D into R. */
void doc_probe(struct doc_dev *d, struct doc_run *r, bool full);
void doc_run_free(struct doc_run *r);
/* The item named KEY; NULL if none. */
const struct doc_item *doc_item_find(const struct doc_run *r, const char *key);
/* Append an item (a copy); 0, or -1 out of memory. */
int doc_item_add(struct doc_run *r, const struct doc_item *it);
/* The answer of KEY if it has completion code 0 and at least MINLEN
 * bytes; NULL otherwise. */
const uint8_t *doc_ok(const struct doc_run *r, const char *key, size_t minlen);

/* ---- verdicts (doctor_verdict.c) ---- */

enum doc_level { DOC_OK, DOC_NOTE, DOC_WARN, DOC_FAIL };

struct doc_verdict {
	const char *topic;
	enum doc_level level;
	char evidence[320];
};

struct doc_advice {
	const char *use;  /* "interactive", "monitoring", "irq", ... */
	char setting[64]; /* "policy = interactive" */
	char reason[200];
};

#define DOC_MAX_VERDICTS 12
#define DOC_MAX_ADVICE	 5

struct doc_assessment {
	struct doc_verdict v[DOC_MAX_VERDICTS];
	size_t nv;
	struct doc_advice a[DOC_MAX_ADVICE];
	size_t na;
	enum doc_level overall;
};

void doc_assess(const struct doc_run *r, struct doc_assessment *out);
const char *doc_level_name(enum doc_level l);
/* The IANA enterprise number's name where known; NULL otherwise. */
const char *doc_manufacturer(uint32_t iana);

/* ---- output (doctor_report.c) ---- */

/* The JSON's "schema_version": docs/schema/doctor.schema.json's; a new
 * one when a key changes meaning or goes (added keys keep it). */
#define DOC_SCHEMA_VERSION 1

void doc_print_text(FILE *f, const struct doc_run *r,
		    const struct doc_assessment *a);
void doc_print_json(FILE *f, const char *host, const struct doc_run *r,
		    const struct doc_assessment *a);
/* The object for a check that could not run (DEVICE not opened, ...):
 * verdict "error" and ERROR, left open like doc_print_json's. */
void doc_print_json_error(FILE *f, const char *host, const char *device,
			  const char *error);
/* S as a JSON string, quotes included. */
void doc_json_str(FILE *f, const char *s);

/* ---- baselines (doctor_items.c) ---- */

/* Write R as a baseline file; 0, or -errno. */
int doc_baseline_write(FILE *f, const struct doc_run *r);
/* Read a baseline into R (items and timings); 0, or -1 with a message
 * (file:line) in ERR. */
int doc_baseline_read(FILE *f, struct doc_run *r, char *err, size_t errlen);
/*
 * Compare replay R with baseline B under the rules of doctor_compare.c:
 * each difference as a line on F (text) or as JSON array members (JSON);
 * the number of differences.
 */
unsigned doc_compare(FILE *f, bool json, const struct doc_run *b,
		     const struct doc_run *r);

#endif /* KCSMUX_DOCTOR_H */
