/* SPDX-License-Identifier: MIT */
/* Delay model parsing, inverse-CDF sampling and sample statistics. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "delay_model.h"

#define NEAR(a, b, eps)                                                  \
	ck_assert_msg(fabs((a) - (b)) <= (eps),                          \
		      "%s = %.6f, expected %.6f +- %g", #a, (double)(a), \
		      (double)(b), (double)(eps))

static struct delay_model parse_ok(const char *spec)
{
	struct delay_model m;
	char err[256] = "";

	ck_assert_msg(delay_model_parse(spec, &m, err, sizeof(err)) == 0,
		      "'%s' rejected: %s", spec, err);
	ck_assert_str_eq(m.spec, spec);
	return m;
}

static void parse_bad(const char *spec)
{
	struct delay_model m;
	char err[256] = "";

	memset(&m, 0x5a, sizeof(m));
	ck_assert_msg(delay_model_parse(spec, &m, err, sizeof(err)) == -1,
		      "'%s' accepted", spec);
	ck_assert_msg(err[0] != '\0', "no error text for '%s'", spec);
	/* untouched on failure */
	ck_assert_uint_eq(((unsigned char *)&m)[0], 0x5a);
}

START_TEST(parse_specs)
{
	struct delay_model m;

	m = parse_ok("none");
	ck_assert_int_eq(m.kind, DELAY_NONE);
	m = parse_ok("fixed:500");
	ck_assert_int_eq(m.kind, DELAY_FIXED);
	NEAR(m.fixed_us, 500, 0);
	m = parse_ok("fixed:2ms");
	NEAR(m.fixed_us, 2000, 0);
	m = parse_ok("fixed:0");
	NEAR(m.fixed_us, 0, 0);
	m = parse_ok("uniform:200-2000");
	ck_assert_int_eq(m.kind, DELAY_UNIFORM);
	NEAR(m.min_us, 200, 0);
	NEAR(m.max_us, 2000, 0);
	m = parse_ok("uniform:300-300");
	NEAR(delay_model_mean(&m), 300, 0);
	m = parse_ok("seed");
	ck_assert_int_eq(m.kind, DELAY_TABLE);
	ck_assert_uint_eq(m.rows, 9);
}
END_TEST

START_TEST(parse_rejects)
{
	parse_bad("");
	parse_bad("fixed");
	parse_bad("fixed:");
	parse_bad("fixed:-1");
	parse_bad("fixed:abc");
	parse_bad("fixed:5s");
	parse_bad("fixed:nan");
	parse_bad("uniform:5");
	parse_bad("uniform:5-");
	parse_bad("uniform:9-3");
	parse_bad("uniform:-3-9");
	parse_bad("table:");
	parse_bad("table:/nonexistent/kcsmux-delay-table");
	parse_bad("gaussian:5");
	parse_bad("Seed");
}
END_TEST

static int table_ok(const char *text, struct delay_model *m)
{
	char err[256] = "";
	int rc = delay_model_parse_table(text, m, err, sizeof(err));

	if (rc)
		fprintf(stderr, "table error: %s\n", err);
	return rc;
}

START_TEST(table_text)
{
	struct delay_model m;
	char err[256];

	ck_assert_int_eq(table_ok("# comment\n\n 100\t0.5 # half\n200 1\n", &m),
			 0);
	ck_assert_uint_eq(m.rows, 2);
	NEAR(m.x_us[0], 100, 0);
	NEAR(m.cdf[0], 0.5, 0);
	/* no trailing newline, comma separator */
	ck_assert_int_eq(table_ok("100,0\n300,1", &m), 0);
	ck_assert_uint_eq(m.rows, 2);
	/* single row = fixed */
	ck_assert_int_eq(table_ok("700 1\n", &m), 0);
	NEAR(delay_model_quantile(&m, 0.3), 700, 0);

	ck_assert_int_eq(delay_model_parse_table("", &m, err, sizeof(err)), -1);
	ck_assert_int_eq(delay_model_parse_table("# only\n", &m, err,
						 sizeof(err)),
			 -1);
	ck_assert_int_eq(delay_model_parse_table("100 0.5\n", &m, err,
						 sizeof(err)),
			 -1);
	ck_assert_int_eq(delay_model_parse_table("200 0\n100 1\n", &m, err,
						 sizeof(err)),
			 -1);
	ck_assert_int_eq(delay_model_parse_table("100 0\n100 1\n", &m, err,
						 sizeof(err)),
			 -1);
	ck_assert_int_eq(delay_model_parse_table("100 0.6\n200 0.5\n300 1\n",
						 &m, err, sizeof(err)),
			 -1);
	ck_assert_int_eq(delay_model_parse_table("100 1.5\n", &m, err,
						 sizeof(err)),
			 -1);
	ck_assert_int_eq(delay_model_parse_table("100\n", &m, err, sizeof(err)),
			 -1);
	ck_assert_int_eq(delay_model_parse_table("100 1 7\n", &m, err,
						 sizeof(err)),
			 -1);
	ck_assert_int_eq(delay_model_parse_table("-5 0\n100 1\n", &m, err,
						 sizeof(err)),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "line 1"));
}
END_TEST

START_TEST(table_file)
{
	char path[] = "/tmp/kcsmux-delay-table-XXXXXX";
	int fd = mkstemp(path);
	const char text[] =
		"# upper_us\tcum\n200\t0.00\n400\t0.50\n600\t1.00\n";
	char spec[64];
	struct delay_model m;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, sizeof(text) - 1),
			 (ssize_t)(sizeof(text) - 1));
	close(fd);
	snprintf(spec, sizeof(spec), "table:%s", path);
	m = parse_ok(spec);
	unlink(path);
	ck_assert_uint_eq(m.rows, 3);
	NEAR(delay_model_quantile(&m, 0.25), 300, 1e-9);
	NEAR(delay_model_quantile(&m, 0.75), 500, 1e-9);
	NEAR(delay_model_mean(&m), 400, 1e-9);
}
END_TEST

/* The seed table: bucket boundaries map to the table's bounds, and the
 * interpolation inside a bucket is linear. */
START_TEST(seed_quantiles)
{
	struct delay_model m;
	static const double rows[][2] = {
		{ 200, 0.00 },	{ 400, 0.21 },	{ 600, 0.39 },
		{ 800, 0.44 },	{ 1000, 0.55 }, { 1200, 0.89 },
		{ 1400, 0.94 }, { 1600, 0.97 }, { 2000, 1.00 },
	};

	delay_model_seed(&m);
	ck_assert_str_eq(m.spec, "seed");
	for (size_t i = 0; i < 9; i++) {
		NEAR(m.x_us[i], rows[i][0], 0);
		NEAR(m.cdf[i], rows[i][1], 0);
	}
	NEAR(delay_model_quantile(&m, 0.0), 200, 1e-9);
	NEAR(delay_model_quantile(&m, 0.105), 300, 1e-9);
	NEAR(delay_model_quantile(&m, 0.21), 400, 1e-9);
	NEAR(delay_model_quantile(&m, 0.30), 500, 1e-9);
	NEAR(delay_model_quantile(&m, 0.50), 800 + 200 * 0.06 / 0.11, 1e-9);
	NEAR(delay_model_quantile(&m, 0.55), 1000, 1e-9);
	NEAR(delay_model_quantile(&m, 0.99), 1600 + 400 * 0.02 / 0.03, 1e-9);
	NEAR(delay_model_quantile(&m, 0.72), 1100, 1e-9);
	NEAR(delay_model_quantile(&m, 0.985), 1800, 1e-9);
	NEAR(delay_model_quantile(&m, 1.0), 2000, 1e-9);
	NEAR(delay_model_quantile(&m, 0.999999), 2000, 0.1);
	/* mean: sum of bucket mass times bucket midpoint */
	NEAR(delay_model_mean(&m), 825, 1e-9);
}
END_TEST

START_TEST(table_first_row_mass)
{
	struct delay_model m;

	ck_assert_int_eq(table_ok("100 0.25\n200 1\n", &m), 0);
	NEAR(delay_model_quantile(&m, 0.1), 100, 0);
	NEAR(delay_model_quantile(&m, 0.25), 100, 1e-9);
	NEAR(delay_model_quantile(&m, 0.625), 150, 1e-9);
	NEAR(delay_model_mean(&m), 0.25 * 100 + 0.75 * 150, 1e-9);
	/* a flat segment carries no mass */
	ck_assert_int_eq(table_ok("100 0\n200 0.5\n300 0.5\n400 1\n", &m), 0);
	NEAR(delay_model_quantile(&m, 0.5), 300, 1e-9);
	NEAR(delay_model_quantile(&m, 0.4999999), 200, 1e-3);
}
END_TEST

/* Sampling the seed model reproduces its CDF at every bound. */
START_TEST(seed_sampling_matches_cdf)
{
	struct delay_model m;
	struct dm_rng r;
	enum { N = 200000 };
	size_t below[9] = { 0 };
	double sum = 0, lo = 1e9, hi = 0;

	delay_model_seed(&m);
	dm_rng_seed(&r, 42);
	for (int i = 0; i < N; i++) {
		double d = delay_model_sample(&m, &r);

		sum += d;
		if (d < lo)
			lo = d;
		if (d > hi)
			hi = d;
		for (size_t k = 0; k < 9; k++)
			if (d <= m.x_us[k])
				below[k]++;
	}
	ck_assert(lo >= 200);
	ck_assert(hi <= 2000);
	for (size_t k = 0; k < 9; k++)
		NEAR((double)below[k] / N, m.cdf[k], 0.006);
	NEAR(sum / N, 825, 5);
}
END_TEST

START_TEST(uniform_and_fixed_sampling)
{
	struct delay_model u = parse_ok("uniform:200-400");
	struct delay_model f = parse_ok("fixed:750");
	struct delay_model n = parse_ok("none");
	struct dm_rng r;
	double sum = 0;
	int lowhalf = 0;

	dm_rng_seed(&r, 7);
	for (int i = 0; i < 100000; i++) {
		double d = delay_model_sample(&u, &r);

		ck_assert(d >= 200 && d <= 400);
		sum += d;
		lowhalf += d < 300;
	}
	NEAR(sum / 100000, 300, 2);
	NEAR(lowhalf / 100000.0, 0.5, 0.01);
	for (int i = 0; i < 10; i++) {
		NEAR(delay_model_sample(&f, &r), 750, 0);
		NEAR(delay_model_sample(&n, &r), 0, 0);
	}
}
END_TEST

START_TEST(rng_deterministic)
{
	struct dm_rng a, b, c;
	int same = 0;

	dm_rng_seed(&a, 123);
	dm_rng_seed(&b, 123);
	dm_rng_seed(&c, 124);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = dm_rng_next(&a);

		ck_assert_uint_eq(x, dm_rng_next(&b));
		same += x == dm_rng_next(&c);
	}
	ck_assert_int_eq(same, 0);
	for (int i = 0; i < 10000; i++) {
		double u = dm_rng_uniform(&a);

		ck_assert(u >= 0 && u < 1);
	}
}
END_TEST

START_TEST(samples_quantiles)
{
	struct dm_samples s;

	dm_samples_init(&s);
	NEAR(dm_samples_quantile(&s, 0.5), 0, 0);
	NEAR(dm_samples_mean(&s), 0, 0);
	/* 1..100 inserted backwards */
	for (int i = 100; i >= 1; i--)
		ck_assert_int_eq(dm_samples_add(&s, i), 0);
	ck_assert_uint_eq(s.n, 100);
	NEAR(dm_samples_mean(&s), 50.5, 1e-9);
	NEAR(s.max, 100, 0);
	NEAR(dm_samples_quantile(&s, 0), 1, 0);
	NEAR(dm_samples_quantile(&s, 0.5), 50.5, 1e-9);
	NEAR(dm_samples_quantile(&s, 0.99), 99.01, 1e-9);
	NEAR(dm_samples_quantile(&s, 1), 100, 0);
	/* adding after a sort re-sorts */
	dm_samples_add(&s, 0);
	NEAR(dm_samples_quantile(&s, 0), 0, 0);
	dm_samples_clear(&s);
	ck_assert_uint_eq(s.n, 0);
	dm_samples_add(&s, -3);
	NEAR(s.max, -3, 0);
	NEAR(dm_samples_quantile(&s, 0.99), -3, 0);
	/* growth past the first allocation */
	for (int i = 0; i < 5000; i++)
		dm_samples_add(&s, 1);
	ck_assert_uint_eq(s.n, 5001);
	dm_samples_free(&s);
	ck_assert_ptr_null(s.v);
}
END_TEST

START_TEST(describe)
{
	struct delay_model m;
	char buf[160];

	m = parse_ok("uniform:200-2000");
	delay_model_describe(&m, buf, sizeof(buf));
	ck_assert_str_eq(buf, "uniform 200-2000 us");
	delay_model_seed(&m);
	delay_model_describe(&m, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "200-2000"));
	ck_assert_ptr_nonnull(strstr(buf, "seed"));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("delay_model");
	TCase *t = tcase_create("core");

	tcase_add_test(t, parse_specs);
	tcase_add_test(t, parse_rejects);
	tcase_add_test(t, table_text);
	tcase_add_test(t, table_file);
	tcase_add_test(t, seed_quantiles);
	tcase_add_test(t, table_first_row_mass);
	tcase_add_test(t, seed_sampling_matches_cdf);
	tcase_add_test(t, uniform_and_fixed_sampling);
	tcase_add_test(t, rng_deterministic);
	tcase_add_test(t, samples_quantiles);
	tcase_add_test(t, describe);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
