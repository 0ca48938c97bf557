/* SPDX-License-Identifier: MIT */
/*
 * BMC response-delay models for kcsmux-bmc-proxy, plus the small statistics
 * helpers its report uses. Pure logic: no I/O except reading a table file in
 * delay_model_parse("table:FILE").
 *
 * Specs:
 *   none               no delay
 *   fixed:USEC         constant delay (suffix "us" or "ms" allowed)
 *   uniform:MIN-MAX    uniform in [MIN, MAX] microseconds
 *   table:FILE         empirical CDF, lines "upper_bound_us cumulative_fraction"
 *                      ('#' starts a comment); bounds strictly increasing,
 *                      fractions non-decreasing in [0,1], last fraction 1
 *   seed               the built-in table of the seed BMC (200-2000 us)
 *
 * Table sampling is by inverse CDF: u ~ U[0,1); if u < F0 the delay is x0
 * (the first row's mass sits on its bound), otherwise the delay is linearly
 * interpolated inside the first bucket (x[i-1], x[i]] with F[i] > u.
 */
#ifndef KCSMUX_DELAY_MODEL_H
#define KCSMUX_DELAY_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DELAY_TABLE_MAX 256u
#define DELAY_SPEC_MAX	256u

enum delay_kind {
	DELAY_NONE,
	DELAY_FIXED,
	DELAY_UNIFORM,
	DELAY_TABLE,
};

struct delay_model {
	enum delay_kind kind;
	double fixed_us;
	double min_us, max_us; /* uniform bounds; table: x[0], x[rows-1] */
	size_t rows;
	double x_us[DELAY_TABLE_MAX];
	double cdf[DELAY_TABLE_MAX];
	char spec[DELAY_SPEC_MAX]; /* the spec it was parsed from */
};

/*
 * Parse a spec (see above). Returns 0 on success; on failure returns -1,
 * leaves *m untouched and writes a message to err.
 */
int delay_model_parse(const char *spec, struct delay_model *m, char *err,
		      size_t errlen);

/* Parse table text (the contents of a table file) into a DELAY_TABLE model. */
int delay_model_parse_table(const char *text, struct delay_model *m, char *err,
			    size_t errlen);

/* The built-in seed BMC table (what "seed" parses to). */
void delay_model_seed(struct delay_model *m);

/* Inverse CDF: the delay in microseconds at quantile u in [0,1]. */
double delay_model_quantile(const struct delay_model *m, double u);

/* Model mean in microseconds (exact for every kind). */
double delay_model_mean(const struct delay_model *m);

/* One-line human description, e.g. "uniform 200-2000 us". */
void delay_model_describe(const struct delay_model *m, char *buf, size_t len);

/* Deterministic RNG (splitmix64). */
struct dm_rng {
	uint64_t state;
};

void dm_rng_seed(struct dm_rng *r, uint64_t seed);
uint64_t dm_rng_next(struct dm_rng *r);
/* Uniform double in [0, 1) with 53 random bits. */
double dm_rng_uniform(struct dm_rng *r);

/* Draw one delay in microseconds. */
double delay_model_sample(const struct delay_model *m, struct dm_rng *r);

/* A growable set of samples with mean / max / quantiles. */
struct dm_samples {
	double *v;
	size_t n, cap;
	bool sorted;
	double sum;
	double max;
};

void dm_samples_init(struct dm_samples *s);
void dm_samples_free(struct dm_samples *s);
void dm_samples_clear(struct dm_samples *s);
/* Returns -1 if memory ran out (the sample is then not recorded). */
int dm_samples_add(struct dm_samples *s, double x);
double dm_samples_mean(const struct dm_samples *s);
/*
 * Quantile q in [0,1] by linear interpolation between order statistics
 * (Hyndman-Fan type 7: position (n-1)q). Sorts in place. 0 when empty.
 */
double dm_samples_quantile(struct dm_samples *s, double q);

#endif
