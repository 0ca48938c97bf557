/* SPDX-License-Identifier: MIT */
/* Delay models and sample statistics for kcsmux-bmc-proxy. */
#include "delay_model.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The seed BMC's response-time distribution (upper bound us, cumulative
 * fraction), carried here so that nothing outside the repository is read.
 */
static const double seed_rows[][2] = {
	{ 200, 0.00 },	{ 400, 0.21 },	{ 600, 0.39 },
	{ 800, 0.44 },	{ 1000, 0.55 }, { 1200, 0.89 },
	{ 1400, 0.94 }, { 1600, 0.97 }, { 2000, 1.00 },
};

#define CDF_EPS	       1e-9
#define TABLE_FILE_MAX (1u << 20)

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static void set_spec(struct delay_model *m, const char *spec)
{
	snprintf(m->spec, sizeof(m->spec), "%s", spec);
}

/* A non-negative finite number with an optional "us"/"ms" suffix, whole
 * string consumed. */
static int parse_us(const char *s, const char *end, double *out)
{
	char buf[64];
	char *ep;
	size_t len = (size_t)(end - s);
	double v, scale = 1.0;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!isdigit((unsigned char)buf[0]) && buf[0] != '.')
		return -1;
	errno = 0;
	v = strtod(buf, &ep);
	if (errno || ep == buf)
		return -1;
	if (strcmp(ep, "ms") == 0)
		scale = 1000.0;
	else if (*ep && strcmp(ep, "us") != 0)
		return -1;
	v *= scale;
	if (!isfinite(v) || v < 0 || v > 3600e6)
		return -1;
	*out = v;
	return 0;
}

void delay_model_seed(struct delay_model *m)
{
	size_t n = sizeof(seed_rows) / sizeof(seed_rows[0]);

	memset(m, 0, sizeof(*m));
	m->kind = DELAY_TABLE;
	m->rows = n;
	for (size_t i = 0; i < n; i++) {
		m->x_us[i] = seed_rows[i][0];
		m->cdf[i] = seed_rows[i][1];
	}
	m->min_us = m->x_us[0];
	m->max_us = m->x_us[n - 1];
	set_spec(m, "seed");
}

int delay_model_parse_table(const char *text, struct delay_model *m, char *err,
			    size_t errlen)
{
	struct delay_model t;
	const char *p = text;
	unsigned lineno = 0;

	memset(&t, 0, sizeof(t));
	t.kind = DELAY_TABLE;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[256];
		char *hash, *s, *ep;
		double x, f;

		lineno++;
		if (len >= sizeof(line)) {
			set_err(err, errlen, "line %u too long", lineno);
			return -1;
		}
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (eol ? 1 : 0);

		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		s = line;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			continue;

		errno = 0;
		x = strtod(s, &ep);
		if (errno || ep == s ||
		    !(isspace((unsigned char)*ep) || *ep == ',')) {
			set_err(err, errlen, "line %u: expected two numbers",
				lineno);
			return -1;
		}
		s = ep;
		while (isspace((unsigned char)*s) || *s == ',')
			s++;
		errno = 0;
		f = strtod(s, &ep);
		if (errno || ep == s) {
			set_err(err, errlen, "line %u: expected two numbers",
				lineno);
			return -1;
		}
		while (isspace((unsigned char)*ep))
			ep++;
		if (*ep) {
			set_err(err, errlen, "line %u: trailing text", lineno);
			return -1;
		}
		if (!isfinite(x) || x < 0 || x > 3600e6) {
			set_err(err, errlen, "line %u: bad delay %g", lineno,
				x);
			return -1;
		}
		if (!isfinite(f) || f < 0 || f > 1 + CDF_EPS) {
			set_err(err, errlen,
				"line %u: fraction %g not in [0,1]", lineno, f);
			return -1;
		}
		if (t.rows == DELAY_TABLE_MAX) {
			set_err(err, errlen, "more than %u rows",
				DELAY_TABLE_MAX);
			return -1;
		}
		if (t.rows > 0 && x <= t.x_us[t.rows - 1]) {
			set_err(err, errlen, "line %u: delays must increase",
				lineno);
			return -1;
		}
		if (t.rows > 0 && f < t.cdf[t.rows - 1]) {
			set_err(err, errlen,
				"line %u: fractions must not decrease", lineno);
			return -1;
		}
		t.x_us[t.rows] = x;
		t.cdf[t.rows] = f > 1 ? 1 : f;
		t.rows++;
	}
	if (t.rows == 0) {
		set_err(err, errlen, "table has no rows");
		return -1;
	}
	if (fabs(t.cdf[t.rows - 1] - 1.0) > CDF_EPS) {
		set_err(err, errlen, "last fraction is %g, must be 1",
			t.cdf[t.rows - 1]);
		return -1;
	}
	t.cdf[t.rows - 1] = 1.0;
	t.min_us = t.x_us[0];
	t.max_us = t.x_us[t.rows - 1];
	set_spec(&t, "table");
	*m = t;
	return 0;
}

static int load_table_file(const char *path, struct delay_model *m, char *err,
			   size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t n;
	int rc;

	if (!f) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	text = malloc(TABLE_FILE_MAX + 1);
	if (!text) {
		fclose(f);
		set_err(err, errlen, "out of memory");
		return -1;
	}
	n = fread(text, 1, TABLE_FILE_MAX + 1, f);
	if (ferror(f) || n > TABLE_FILE_MAX) {
		set_err(err, errlen, "%s: %s", path,
			ferror(f) ? "read error" : "file too large");
		free(text);
		fclose(f);
		return -1;
	}
	fclose(f);
	text[n] = '\0';
	if (memchr(text, '\0', n)) {
		set_err(err, errlen, "%s: binary file", path);
		free(text);
		return -1;
	}
	rc = delay_model_parse_table(text, m, err, errlen);
	if (rc && err && errlen) {
		char tmp[256];

		snprintf(tmp, sizeof(tmp), "%s", err);
		set_err(err, errlen, "%s: %s", path, tmp);
	}
	free(text);
	return rc;
}

int delay_model_parse(const char *spec, struct delay_model *m, char *err,
		      size_t errlen)
{
	struct delay_model t;
	const char *arg;

	if (!spec || !*spec) {
		set_err(err, errlen, "empty delay spec");
		return -1;
	}
	if (strlen(spec) >= DELAY_SPEC_MAX) {
		set_err(err, errlen, "delay spec too long");
		return -1;
	}
	memset(&t, 0, sizeof(t));
	if (strcmp(spec, "none") == 0) {
		t.kind = DELAY_NONE;
	} else if (strcmp(spec, "seed") == 0) {
		delay_model_seed(&t);
	} else if (strncmp(spec, "fixed:", 6) == 0) {
		arg = spec + 6;
		t.kind = DELAY_FIXED;
		if (parse_us(arg, arg + strlen(arg), &t.fixed_us)) {
			set_err(err, errlen, "fixed: bad delay '%s'", arg);
			return -1;
		}
		t.min_us = t.max_us = t.fixed_us;
	} else if (strncmp(spec, "uniform:", 8) == 0) {
		const char *dash;

		arg = spec + 8;
		dash = strchr(arg, '-');
		t.kind = DELAY_UNIFORM;
		if (!dash || parse_us(arg, dash, &t.min_us) ||
		    parse_us(dash + 1, dash + 1 + strlen(dash + 1),
			     &t.max_us)) {
			set_err(err, errlen,
				"uniform: expected MIN-MAX, got '%s'", arg);
			return -1;
		}
		if (t.min_us > t.max_us) {
			set_err(err, errlen, "uniform: MIN > MAX");
			return -1;
		}
	} else if (strncmp(spec, "table:", 6) == 0) {
		if (!spec[6]) {
			set_err(err, errlen, "table: missing file name");
			return -1;
		}
		if (load_table_file(spec + 6, &t, err, errlen))
			return -1;
	} else {
		set_err(err, errlen,
			"unknown delay model '%s' (fixed:US, uniform:MIN-MAX, "
			"table:FILE, seed, none)",
			spec);
		return -1;
	}
	set_spec(&t, spec);
	*m = t;
	return 0;
}

double delay_model_quantile(const struct delay_model *m, double u)
{
	size_t i;

	if (u < 0)
		u = 0;
	switch (m->kind) {
	case DELAY_NONE:
		return 0;
	case DELAY_FIXED:
		return m->fixed_us;
	case DELAY_UNIFORM:
		if (u > 1)
			u = 1;
		return m->min_us + u * (m->max_us - m->min_us);
	case DELAY_TABLE:
		if (u >= 1)
			return m->x_us[m->rows - 1];
		if (u < m->cdf[0])
			return m->x_us[0];
		for (i = 1; i < m->rows; i++) {
			if (m->cdf[i] > u) {
				double f0 = m->cdf[i - 1], f1 = m->cdf[i];
				double x0 = m->x_us[i - 1], x1 = m->x_us[i];

				return x0 + (u - f0) / (f1 - f0) * (x1 - x0);
			}
		}
		return m->x_us[m->rows - 1];
	}
	return 0;
}

double delay_model_mean(const struct delay_model *m)
{
	double mean;

	switch (m->kind) {
	case DELAY_NONE:
		return 0;
	case DELAY_FIXED:
		return m->fixed_us;
	case DELAY_UNIFORM:
		return (m->min_us + m->max_us) / 2;
	case DELAY_TABLE:
		mean = m->cdf[0] * m->x_us[0];
		for (size_t i = 1; i < m->rows; i++)
			mean += (m->cdf[i] - m->cdf[i - 1]) *
				(m->x_us[i - 1] + m->x_us[i]) / 2;
		return mean;
	}
	return 0;
}

void delay_model_describe(const struct delay_model *m, char *buf, size_t len)
{
	switch (m->kind) {
	case DELAY_NONE:
		snprintf(buf, len, "none");
		break;
	case DELAY_FIXED:
		snprintf(buf, len, "fixed %.0f us", m->fixed_us);
		break;
	case DELAY_UNIFORM:
		snprintf(buf, len, "uniform %.0f-%.0f us", m->min_us,
			 m->max_us);
		break;
	case DELAY_TABLE:
		snprintf(buf, len, "%s empirical CDF, %zu rows, %.0f-%.0f us",
			 strcmp(m->spec, "seed") == 0 ? "seed BMC" : "table",
			 m->rows, m->min_us, m->max_us);
		break;
	}
}

void dm_rng_seed(struct dm_rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t dm_rng_next(struct dm_rng *r)
{
	uint64_t z;

	r->state += 0x9E3779B97F4A7C15ull;
	z = r->state;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

double dm_rng_uniform(struct dm_rng *r)
{
	return (double)(dm_rng_next(r) >> 11) * 0x1.0p-53;
}

double delay_model_sample(const struct delay_model *m, struct dm_rng *r)
{
	switch (m->kind) {
	case DELAY_NONE:
		return 0;
	case DELAY_FIXED:
		return m->fixed_us;
	default:
		return delay_model_quantile(m, dm_rng_uniform(r));
	}
}

void dm_samples_init(struct dm_samples *s)
{
	memset(s, 0, sizeof(*s));
}

void dm_samples_free(struct dm_samples *s)
{
	free(s->v);
	dm_samples_init(s);
}

void dm_samples_clear(struct dm_samples *s)
{
	s->n = 0;
	s->sum = 0;
	s->max = 0;
	s->sorted = true;
}

int dm_samples_add(struct dm_samples *s, double x)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		double *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = x;
	s->sum += x;
	if (s->n == 1 || x > s->max)
		s->max = x;
	s->sorted = s->n == 1;
	return 0;
}

double dm_samples_mean(const struct dm_samples *s)
{
	return s->n ? s->sum / (double)s->n : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double dm_samples_quantile(struct dm_samples *s, double q)
{
	double h;
	size_t lo;

	if (s->n == 0)
		return 0;
	if (!s->sorted) {
		qsort(s->v, s->n, sizeof(*s->v), cmp_double);
		s->sorted = true;
	}
	if (q <= 0)
		return s->v[0];
	if (q >= 1)
		return s->v[s->n - 1];
	h = (double)(s->n - 1) * q;
	lo = (size_t)h;
	if (lo + 1 >= s->n)
		return s->v[s->n - 1];
	return s->v[lo] + (h - (double)lo) * (s->v[lo + 1] - s->v[lo]);
}
