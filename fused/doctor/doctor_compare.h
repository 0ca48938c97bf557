/* SPDX-License-Identifier: GPL-2.0 */
/*
 * doctor_compare.h - the rules by which kcsmuxctl doctor --compare judges
 * one BMC answer against the baseline's: each recorded answer has a class,
 * and the class says which bytes must match, which may move within a
 * tolerance and which are ignored (docs/man/kcsmuxctl.8, "COMPARISON").
 * Pure logic: no I/O.
 */
#ifndef KCSMUX_DOCTOR_COMPARE_H
#define KCSMUX_DOCTOR_COMPARE_H

#include <stddef.h>
#include <stdint.h>

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

#endif /* KCSMUX_DOCTOR_COMPARE_H */
