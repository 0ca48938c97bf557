// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/doctor/doctor_compare.c, the rules by which
 * kcsmuxctl doctor --compare judges a replayed answer against the
 * baseline's: static data byte for byte, sensor readings within 3 counts,
 * the SEL's entries growing by at most 16 with its timestamps ignored, the
 * watchdog's running countdown ignored, informational answers never a
 * difference, a response-time profile far outside the baseline's; and
 * doctor_items.c's baseline file round trip and item-level comparison.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"

static char why[200];

static int cmp(enum cmp_class c, const uint8_t *a, size_t alen,
	       const uint8_t *b, size_t blen)
{
	why[0] = '\0';
	return cmp_answer(c, a, alen, b, blen, why, sizeof(why));
}

START_TEST(exact_is_byte_for_byte)
{
	const uint8_t a[] = { 0x00, 0x20, 0x01, 0x02, 0x05, 0x51 };
	uint8_t b[sizeof(a)];

	memcpy(b, a, sizeof(a));
	ck_assert_int_eq(cmp(CMP_EXACT, a, sizeof(a), b, sizeof(b)), 0);
	b[4] ^= 0x01;
	ck_assert_int_eq(cmp(CMP_EXACT, a, sizeof(a), b, sizeof(b)), 1);
	ck_assert_ptr_nonnull(strstr(why, "byte 4: 0x04, baseline 0x05"));
	/* a shorter answer, another completion code, no answer */
	ck_assert_int_eq(cmp(CMP_EXACT, a, sizeof(a), a, 5), 1);
	ck_assert_ptr_nonnull(strstr(why, "5 bytes, baseline 6"));
	b[0] = 0xc1;
	ck_assert_int_eq(cmp(CMP_EXACT, a, sizeof(a), b, sizeof(b)), 1);
	ck_assert_ptr_nonnull(strstr(why, "completion code"));
	ck_assert_int_eq(cmp(CMP_EXACT, a, sizeof(a), b, 0), 1);
	ck_assert_ptr_nonnull(strstr(why, "no answer"));
	ck_assert_int_eq(cmp(CMP_EXACT, a, 0, b, sizeof(b)), 1);
	ck_assert_int_eq(cmp(CMP_EXACT, a, 0, b, 0), 0);
}
END_TEST

START_TEST(sensor_within_three_counts)
{
	const uint8_t a[] = { 0x00, 100, 0xc0, 0x00, 0x80 };
	uint8_t b[sizeof(a)];

	memcpy(b, a, sizeof(a));
	b[1] = 103;
	b[3] = 0x12; /* threshold states follow the reading: ignored */
	ck_assert_int_eq(cmp(CMP_SENSOR, a, sizeof(a), b, sizeof(b)), 0);
	b[1] = 97;
	ck_assert_int_eq(cmp(CMP_SENSOR, a, sizeof(a), b, sizeof(b)), 0);
	b[1] = 104;
	ck_assert_int_eq(cmp(CMP_SENSOR, a, sizeof(a), b, sizeof(b)), 1);
	ck_assert_ptr_nonnull(strstr(why, "reading"));
	b[1] = 96;
	ck_assert_int_eq(cmp(CMP_SENSOR, a, sizeof(a), b, sizeof(b)), 1);
	/* scanning disabled now: a difference whatever the reading */
	b[1] = 100;
	b[2] = 0x80;
	ck_assert_int_eq(cmp(CMP_SENSOR, a, sizeof(a), b, sizeof(b)), 1);
	ck_assert_ptr_nonnull(strstr(why, "sensor flags"));
	/* reading unavailable on both: the reading byte means nothing */
	{
		const uint8_t u[] = { 0x00, 5, 0xe0 };
		const uint8_t v[] = { 0x00, 200, 0xe0 };

		ck_assert_int_eq(cmp(CMP_SENSOR, u, 3, v, 3), 0);
	}
	/* the flags' low bits are not compared */
	b[2] = 0xc1;
	ck_assert_int_eq(cmp(CMP_SENSOR, a, sizeof(a), b, sizeof(b)), 0);
}
END_TEST

START_TEST(selinfo_grows_and_ignores_timestamps)
{
	/* cc, version, entries 10, free, addition, erase, operations */
	const uint8_t a[15] = { 0, 0x51, 10, 0, 0x00, 0x10, 1,	 2,
				3, 4,	 5,  6, 7,    8,    0x02 };
	uint8_t b[15];

	memcpy(b, a, sizeof(a));
	b[2] = 26; /* 16 more entries */
	b[4] = 0xf0;
	b[6] = 0x99; /* a new addition timestamp */
	b[10] = 0x77;
	ck_assert_int_eq(cmp(CMP_SELINFO, a, 15, b, 15), 0);
	b[2] = 27;
	ck_assert_int_eq(cmp(CMP_SELINFO, a, 15, b, 15), 1);
	ck_assert_ptr_nonnull(strstr(why, "SEL entries"));
	b[2] = 9; /* fewer: cleared */
	ck_assert_int_eq(cmp(CMP_SELINFO, a, 15, b, 15), 1);
	b[2] = 10;
	b[14] = 0x0a; /* another operation support byte */
	ck_assert_int_eq(cmp(CMP_SELINFO, a, 15, b, 15), 1);
	b[14] = 0x02;
	b[1] = 0x02; /* another version */
	ck_assert_int_eq(cmp(CMP_SELINFO, a, 15, b, 15), 1);
}
END_TEST

START_TEST(watchdog_ignores_present_countdown)
{
	/* cc, use (running, SMS/OS), action, pretimeout, flags,
	 * initial 600 (60.0 s), present */
	const uint8_t a[9] = { 0, 0x44, 0x01, 0, 0, 0x58, 0x02, 0x40, 0x02 };
	uint8_t b[9];

	memcpy(b, a, sizeof(a));
	b[7] = 0x10;
	ck_assert_int_eq(cmp(CMP_WDT, a, 9, b, 9), 0);
	b[1] = 0x04; /* stopped */
	ck_assert_int_eq(cmp(CMP_WDT, a, 9, b, 9), 1);
	b[1] = 0x44;
	b[5] = 0x59; /* another initial countdown */
	ck_assert_int_eq(cmp(CMP_WDT, a, 9, b, 9), 1);
}
END_TEST

START_TEST(chassis_power_state_only)
{
	const uint8_t a[5] = { 0, 0x01, 0x00, 0x40, 0x00 };
	uint8_t b[5];

	memcpy(b, a, sizeof(a));
	b[3] = 0x41; /* intrusion, identify: ignored */
	b[4] = 0xff;
	ck_assert_int_eq(cmp(CMP_CHASSIS, a, 5, b, 5), 0);
	b[1] = 0x00; /* powered off */
	ck_assert_int_eq(cmp(CMP_CHASSIS, a, 5, b, 5), 1);
	b[1] = 0x01;
	b[2] = 0x10; /* last power event */
	ck_assert_int_eq(cmp(CMP_CHASSIS, a, 5, b, 5), 1);
}
END_TEST

START_TEST(info_never_differs)
{
	const uint8_t a[2] = { 0, 0x0c }, b[2] = { 0, 0x0f };

	ck_assert_int_eq(cmp(CMP_INFO, a, 2, b, 2), 0);
	ck_assert_int_eq(cmp(CMP_INFO, a, 2, b, 0), 0);
	ck_assert_int_eq(cmp(CMP_INFO, a, 0, b, 2), 0);
}
END_TEST

START_TEST(timing_bound)
{
	/* 4 x baseline + 20 ms */
	ck_assert_int_eq(cmp_timing(1000, 24000, why, sizeof(why)), 0);
	ck_assert_int_eq(cmp_timing(1000, 24001, why, sizeof(why)), 1);
	ck_assert_ptr_nonnull(strstr(why, "baseline 1000 us"));
	ck_assert_int_eq(cmp_timing(0, 20000, why, sizeof(why)), 0);
	ck_assert_int_eq(cmp_timing(100000, 420000, why, sizeof(why)), 0);
	ck_assert_int_eq(cmp_timing(100000, 420001, why, sizeof(why)), 1);
	/* faster is never a difference */
	ck_assert_int_eq(cmp_timing(5000, 10, why, sizeof(why)), 0);
}
END_TEST

START_TEST(class_names_round_trip)
{
	int c;

	for (c = 0; c < CMP_NCLASSES; c++)
		ck_assert_int_eq(cmp_class_parse(cmp_class_name(c)), c);
	ck_assert_int_eq(cmp_class_parse("bogus"), -1);
}
END_TEST

static void add(struct doc_run *r, const char *key, enum cmp_class c,
		const uint8_t *b, size_t len, int err)
{
	struct doc_item it;

	memset(&it, 0, sizeof(it));
	snprintf(it.key, sizeof(it.key), "%s", key);
	it.cls = c;
	it.err = err;
	it.len = (uint16_t)len;
	if (len > 0)
		memcpy(it.data, b, len);
	ck_assert_int_eq(doc_item_add(r, &it), 0);
}

static void a_run(struct doc_run *r)
{
	static const uint8_t devid[] = { 0, 0x20, 0x81, 0x02, 0x05, 0x51,
					 0, 0x57, 0x01, 0x00, 0x34, 0x12 };
	static const uint8_t sdr[] = { 0, 1, 0, 0x51, 1, 3, 0xaa, 0xbb, 0xcc };
	static const uint8_t s30[] = { 0, 100, 0xc0, 0 };
	static const uint8_t en[] = { 0, 0x0c };

	memset(r, 0, sizeof(*r));
	r->device = "/dev/ipmi0";
	r->driver = "stock";
	r->t[T_DEVID].name = "get_device_id";
	r->t[T_SENSOR].name = "get_sensor_reading";
	r->t[T_SDR].name = "get_sdr";
	r->t[T_DEVID].n = 20;
	r->t[T_DEVID].p50 = 1300;
	r->t[T_DEVID].p99 = 1900;
	add(r, "devid", CMP_EXACT, devid, sizeof(devid), 0);
	add(r, "sdr.0001", CMP_EXACT, sdr, sizeof(sdr), 0);
	add(r, "sensor.30", CMP_SENSOR, s30, sizeof(s30), 0);
	add(r, "enables", CMP_INFO, en, sizeof(en), 0);
	add(r, "wdt", CMP_WDT, NULL, 0, -110);
}

START_TEST(baseline_round_trip_and_compare)
{
	struct doc_run b, r, back;
	char *text = NULL, err[128];
	size_t len = 0;
	FILE *f;

	a_run(&b);
	f = open_memstream(&text, &len);
	ck_assert_int_eq(doc_baseline_write(f, &b), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "item devid exact 00 20 81"));
	ck_assert_ptr_nonnull(strstr(text, "item wdt wdt !110\n"));
	f = fmemopen(text, len, "r");
	ck_assert_int_eq(doc_baseline_read(f, &back, err, sizeof(err)), 0);
	fclose(f);
	ck_assert_uint_eq(back.nitems, b.nitems);
	ck_assert_uint_eq(back.t[T_DEVID].p50, 1300);
	ck_assert_int_eq(doc_item_find(&back, "wdt")->err, -110);
	ck_assert_int_eq(doc_item_find(&back, "sensor.30")->cls, CMP_SENSOR);

	/* the same answers: no difference; a sensor 2 counts off, another
	 * enables byte, a slower but bounded profile: still none */
	a_run(&r);
	r.items[2].data[1] = 102;
	r.items[3].data[1] = 0x0f;
	r.t[T_DEVID].p50 = 5000;
	f = fopen("/dev/null", "w");
	ck_assert_uint_eq(doc_compare(f, false, &back, &r), 0);
	/* a Device ID field, a record missing and another (with a changed
	 * byte) in its place, a profile far outside: four */
	r.items[1].data[8] = 0xcd;
	r.items[0].data[3] = 0x03;
	snprintf(r.items[1].key, sizeof(r.items[1].key), "sdr.0002");
	r.t[T_DEVID].p50 = 30000;
	ck_assert_uint_eq(doc_compare(f, true, &back, &r), 4);
	fclose(f);
	doc_run_free(&r);
	doc_run_free(&b);
	doc_run_free(&back);

	/* not a baseline */
	f = fmemopen("hello\n", 6, "r");
	ck_assert_int_eq(doc_baseline_read(f, &back, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "line 1"));
	fclose(f);
	free(text);
}
END_TEST

START_TEST(verdicts_from_answers)
{
	/* SDR repository info: 3 records, addition 0x6000_0000 (2021),
	 * never erased, reservations supported */
	static const uint8_t info[15] = { 0,	0x51, 3,    0,	  0,
					  0x10, 0,    0,    0,	  0x60,
					  0xff, 0xff, 0xff, 0xff, 0x02 };
	static const uint8_t wdt[9] = { 0,    0x44, 0x01, 0,   0,
					0x58, 0x02, 0x40, 0x02 };
	struct doc_assessment a;
	struct doc_run r;
	size_t i;
	bool cache = false, warned = false;

	a_run(&r);
	r.now = 0x69000000;
	r.sdr_reserve = 1;
	r.sdr_partial = 1;
	r.irq_before = r.irq_after = -1;
	add(&r, "sdrinfo", CMP_EXACT, info, sizeof(info), 0);
	r.items[4].err = 0; /* wdt: answered, running, hard reset */
	r.items[4].len = 9;
	memcpy(r.items[4].data, wdt, 9);
	doc_assess(&r, &a);
	ck_assert_ptr_nonnull(
		strstr(a.v[0].evidence, "manufacturer 343 (Intel)"));
	ck_assert_ptr_nonnull(strstr(a.v[0].evidence, "product 0x1234"));
	for (i = 0; i < a.na; i++)
		if (strcmp(a.a[i].setting, "sdr_cache = yes") == 0)
			cache = true;
	for (i = 0; i < a.nv; i++)
		if (strcmp(a.v[i].topic, "watchdog") == 0)
			warned = a.v[i].level == DOC_WARN &&
				 strstr(a.v[i].evidence, "running") != NULL;
	ck_assert(cache);
	ck_assert(warned);
	ck_assert_int_eq(a.overall, DOC_WARN);
	/* an addition timestamp of 0xffffffff: no cache */
	r.items[r.nitems - 1].data[6] = 0xff;
	r.items[r.nitems - 1].data[7] = 0xff;
	r.items[r.nitems - 1].data[8] = 0xff;
	r.items[r.nitems - 1].data[9] = 0xff;
	doc_assess(&r, &a);
	for (i = 0; i < a.na; i++)
		if (strcmp(a.a[i].use, "sdr_cache") == 0)
			ck_assert_str_eq(a.a[i].setting, "sdr_cache = no");
	/* no Device ID: fail */
	r.items[0].data[0] = 0xc3;
	doc_assess(&r, &a);
	ck_assert_int_eq(a.overall, DOC_FAIL);
	doc_run_free(&r);
}
END_TEST

static Suite *doctor_compare_suite(void)
{
	Suite *s = suite_create("doctor_compare");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, exact_is_byte_for_byte);
	tcase_add_test(tc, sensor_within_three_counts);
	tcase_add_test(tc, selinfo_grows_and_ignores_timestamps);
	tcase_add_test(tc, watchdog_ignores_present_countdown);
	tcase_add_test(tc, chassis_power_state_only);
	tcase_add_test(tc, info_never_differs);
	tcase_add_test(tc, timing_bound);
	tcase_add_test(tc, class_names_round_trip);
	tcase_add_test(tc, baseline_round_trip_and_compare);
	tcase_add_test(tc, verdicts_from_answers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(doctor_compare_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
