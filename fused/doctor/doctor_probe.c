// SPDX-License-Identifier: GPL-2.0
/*
 * doctor_probe.c - the requests of kcsmuxctl doctor, all of them reads:
 * identity, the response-time samples, the SDR repository, sensors, FRU 0,
 * SEL info, chassis status, global enables, message flags, channels, the
 * watchdog; and the interface's interrupt count before and after. Each
 * answer is kept as an item (doctor.h) for the verdicts and the baseline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "doctor/doctor.h"

int doc_item_add(struct doc_run *r, const struct doc_item *it)
{
	if (r->nitems == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct doc_item *n = realloc(r->items, cap * sizeof(*n));

		if (n == NULL)
			return -1;
		r->items = n;
		r->cap = cap;
	}
	r->items[r->nitems++] = *it;
	return 0;
}

const struct doc_item *doc_item_find(const struct doc_run *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nitems; i++)
		if (strcmp(r->items[i].key, key) == 0)
			return &r->items[i];
	return NULL;
}

const uint8_t *doc_ok(const struct doc_run *r, const char *key, size_t minlen)
{
	const struct doc_item *it = doc_item_find(r, key);

	if (it == NULL || it->err != 0 || it->len < minlen || it->data[0] != 0)
		return NULL;
	return it->data;
}

void doc_run_free(struct doc_run *r)
{
	free(r->items);
	r->items = NULL;
	r->nitems = r->cap = 0;
}

/* NETFN:CMD as one argument of ask() */
#define NC(netfn, cmd) ((uint16_t)((netfn) << 8 | (cmd)))

/* Ask request NC (NC(netfn, cmd)) and record the answer as KEY of class
 * CLS; the answer's length or -errno (the item is recorded either way). */
static int ask(struct doc_dev *d, struct doc_run *r, const char *key,
	       enum cmp_class cls, uint16_t nc, const uint8_t *data, size_t len)
{
	struct doc_item it;
	int n;

	memset(&it, 0, sizeof(it));
	snprintf(it.key, sizeof(it.key), "%s", key);
	it.cls = cls;
	n = doc_xact(d, (uint8_t)(nc >> 8), (uint8_t)nc, data, len, it.data);
	if (n == -E2BIG)
		return n; /* not asked: nothing to record */
	if (n < 0)
		it.err = n;
	else
		it.len = (uint16_t)n;
	doc_item_add(r, &it);
	return n;
}

/* ---- interrupts ---- */

/* The sum over CPUs of the /proc/interrupts line naming ipmi or kcsraw;
 * -1 if none. Its text (trimmed) into LINE. */
static long long irq_count(char *line, size_t n)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char buf[1024];
	long long sum = -1;

	if (f == NULL)
		return -1;
	while (fgets(buf, sizeof(buf), f) != NULL) {
		char *p, *end;

		if (strstr(buf, "ipmi") == NULL &&
		    strstr(buf, "kcsraw") == NULL)
			continue;
		p = strchr(buf, ':');
		if (p == NULL)
			continue;
		sum = 0;
		for (p++;;) {
			long long v = strtoll(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
		buf[strcspn(buf, "\n")] = '\0';
		for (p = buf; *p == ' '; p++)
			;
		snprintf(line, n, "%.95s", p);
		break;
	}
	fclose(f);
	return sum;
}

/* ---- timing ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void sample(struct doc_dev *d, struct doc_timing *t, uint8_t netfn,
		   uint8_t cmd, const uint8_t *data, size_t len)
{
	uint32_t us[DOC_SAMPLES];
	uint8_t rsp[DOC_ANSWER_MAX];
	unsigned i;

	for (i = 0; i < DOC_SAMPLES && !d->gone; i++) {
		int n = doc_xact(d, netfn, cmd, data, len, rsp);

		if (n == -E2BIG)
			break;
		if (n <= 0 || rsp[0] != 0) {
			t->failed++;
			continue;
		}
		us[t->n++] = d->last_us;
	}
	if (t->n == 0)
		return;
	qsort(us, t->n, sizeof(us[0]), cmp_u32);
	t->p50 = us[(t->n - 1) / 2];
	t->p99 = us[(t->n * 99 + 99) / 100 - 1];
	t->max = us[t->n - 1];
}

/* ---- SDR ---- */

static int reserve(struct doc_dev *d, uint16_t *res)
{
	uint8_t rsp[DOC_ANSWER_MAX];
	int n = doc_xact(d, 0x0a, 0x22, NULL, 0, rsp);

	if (n < 3 || rsp[0] != 0)
		return -1;
	*res = (uint16_t)(rsp[1] | rsp[2] << 8);
	return 0;
}

/* Get SDR: LEN bytes of record ID at OFF into RSP; a cancelled
 * reservation is renewed (twice at most). The answer's length or -errno. */
static int get_sdr(struct doc_dev *d, struct doc_run *r, uint16_t *res,
		   uint16_t id, uint8_t off, uint8_t len, uint8_t *rsp)
{
	int n, tries;

	for (tries = 0;; tries++) {
		uint8_t q[6] = { (uint8_t)*res, (uint8_t)(*res >> 8),
				 (uint8_t)id,	(uint8_t)(id >> 8),
				 off,		len };

		n = doc_xact(d, 0x0a, 0x23, q, sizeof(q), rsp);
		if (n > 0 && rsp[0] == 0xc5 && tries < 2 &&
		    r->sdr_reserve == 1 && reserve(d, res) == 0) {
			d->retries++;
			continue;
		}
		return n;
	}
}

static void add_bytes(struct doc_run *r, const char *key, enum cmp_class cls,
		      int err, const uint8_t *b, size_t len)
{
	struct doc_item it;

	memset(&it, 0, sizeof(it));
	snprintf(it.key, sizeof(it.key), "%s", key);
	it.cls = cls;
	it.err = err;
	it.len = (uint16_t)len;
	if (len > 0)
		memcpy(it.data, b, len);
	doc_item_add(r, &it);
}

/* Record ID's whole record into the item "sdr.ID": the completion code,
 * then the record bytes (header included). */
static void read_record(struct doc_dev *d, struct doc_run *r, uint16_t *res,
			uint16_t id, const uint8_t *hdr, size_t have)
{
	uint8_t rec[1 + 5 + 255], rsp[DOC_ANSWER_MAX];
	size_t total = 5 + (size_t)hdr[4], got = have;
	char key[24];
	int n = 0;

	rec[0] = 0;
	memcpy(rec + 1, hdr, have);
	while (got < total) {
		size_t want = total - got > 32 ? 32 : total - got;

		n = get_sdr(d, r, res, id, (uint8_t)got, (uint8_t)want, rsp);
		if (n < 3 || rsp[0] != 0)
			break;
		if ((size_t)n - 3 > want)
			n = (int)want + 3;
		memcpy(rec + 1 + got, rsp + 3, (size_t)n - 3);
		got += (size_t)n - 3;
		n = 0;
	}
	snprintf(key, sizeof(key), "sdr.%04x", id);
	if (n < 0)
		add_bytes(r, key, CMP_EXACT, n, NULL, 0);
	else if (n > 0)
		add_bytes(r, key, CMP_EXACT, 0, rsp, 1); /* the failing cc */
	else
		add_bytes(r, key, CMP_EXACT, 0, rec, 1 + got);
}

static void walk_sdr(struct doc_dev *d, struct doc_run *r, uint8_t *sensors,
		     unsigned *nsens)
{
	uint8_t rsp[DOC_ANSWER_MAX];
	uint16_t res = 0, id = 0;
	unsigned i;

	r->sdr_reserve = reserve(d, &res) == 0;
	for (i = 0; i < DOC_MAX_SDR && !d->gone; i++) {
		uint16_t next;
		char key[24];
		int n;

		/* the header and the sensor key: a partial read */
		n = get_sdr(d, r, &res, id, 0, 8, rsp);
		if (n > 0 && rsp[0] == 0xca && r->sdr_partial != 1) {
			r->sdr_partial = 0; /* whole records only */
			n = get_sdr(d, r, &res, id, 0, 0xff, rsp);
		} else if (n >= 3 && rsp[0] == 0 && r->sdr_partial < 0) {
			r->sdr_partial = 1;
		}
		if (n < 3 + 5 || rsp[0] != 0) {
			snprintf(key, sizeof(key), "sdr.%04x", id);
			if (n != -E2BIG)
				add_bytes(r, key, CMP_EXACT, n < 0 ? n : 0, rsp,
					  n < 0 ? 0 : (size_t)n);
			break;
		}
		r->sdr_records++;
		if (5u + rsp[3 + 4] > r->sdr_longest)
			r->sdr_longest = 5u + rsp[3 + 4];
		/* full or compact sensor records of the BMC, LUN 0 */
		if (n >= 3 + 8 && (rsp[3 + 3] == 1 || rsp[3 + 3] == 2) &&
		    rsp[3 + 5] == 0x20 && (rsp[3 + 6] & 3) == 0) {
			r->sensors++;
			if (*nsens < DOC_MAX_SENSORS)
				sensors[(*nsens)++] = rsp[3 + 7];
		}
		next = (uint16_t)(rsp[1] | rsp[2] << 8);
		if (r->full) {
			read_record(d, r, &res, id, rsp + 3,
				    (size_t)n - 3 > 5 + (size_t)rsp[3 + 4] ?
					    5 + (size_t)rsp[3 + 4] :
					    (size_t)n - 3);
		} else {
			snprintf(key, sizeof(key), "sdrhdr.%04x", id);
			add_bytes(r, key, CMP_EXACT, 0, rsp + 3, 5);
		}
		if (next == 0xffff || next == id)
			break;
		id = next;
	}
}

/* ---- FRU 0 ---- */

static void read_fru(struct doc_dev *d, struct doc_run *r)
{
	static const uint8_t fru0 = 0;
	const uint8_t *info;
	unsigned size, off;
	int n;

	n = ask(d, r, "fru0.info", CMP_EXACT, NC(0x0a, 0x10), &fru0, 1);
	info = doc_ok(r, "fru0.info", 4);
	if (n < 0 || info == NULL)
		return;
	size = info[1] | info[2] << 8;
	if (size > DOC_FRU_MAX)
		size = DOC_FRU_MAX;
	for (off = 0; off < size && !d->gone; off += 32) {
		uint8_t q[4] = { 0, (uint8_t)off, (uint8_t)(off >> 8),
				 (uint8_t)(size - off > 32 ? 32 : size - off) };
		char key[24];

		snprintf(key, sizeof(key), "fru0.%04x", off);
		n = ask(d, r, key, CMP_EXACT, NC(0x0a, 0x11), q, sizeof(q));
		if (n < 2 || r->items[r->nitems - 1].data[0] != 0)
			break;
	}
}

/* ---- the run ---- */

static const char *driver_of(const char *dev)
{
	const char *b = strrchr(dev, '/');
	char p[256];
	FILE *f;

	b = b != NULL ? b + 1 : dev;
	snprintf(p, sizeof(p), "/sys/class/ipmi/%s/dev", b);
	if ((f = fopen(p, "r")) != NULL) {
		fclose(f);
		return "stock";
	}
	snprintf(p, sizeof(p), "/sys/class/cuse/%s/dev", b);
	if ((f = fopen(p, "r")) != NULL) {
		fclose(f);
		return "kcsmux";
	}
	return "unknown";
}

void doc_probe(struct doc_dev *d, struct doc_run *r, bool full)
{
	static const uint8_t chans[] = { 0, 1, 2, 3, 4, 5, 6, 7, 0xf };
	uint8_t sensors[DOC_MAX_SENSORS], q[1];
	unsigned nsens = 0, i;
	struct timespec t0, t1;
	uint8_t hdr0[6] = { 0, 0, 0, 0, 0, 5 };

	memset(r, 0, sizeof(*r));
	r->device = d->path;
	r->driver = driver_of(d->path);
	r->full = full;
	r->sdr_partial = r->sdr_reserve = -1;
	r->sensor = -1;
	r->now = (long long)time(NULL);
	r->t[T_DEVID].name = "get_device_id";
	r->t[T_SENSOR].name = "get_sensor_reading";
	r->t[T_SDR].name = "get_sdr";
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r->irq_before = irq_count(r->irq_line, sizeof(r->irq_line));

	ask(d, r, "devid", CMP_EXACT, NC(0x06, 0x01), NULL, 0);
	sample(d, &r->t[T_DEVID], 0x06, 0x01, NULL, 0);
	ask(d, r, "sdrinfo", CMP_EXACT, NC(0x0a, 0x20), NULL, 0);
	walk_sdr(d, r, sensors, &nsens);
	if (nsens > 0) {
		r->sensor = sensors[0];
		q[0] = sensors[0];
		sample(d, &r->t[T_SENSOR], 0x04, 0x2d, q, 1);
	}
	sample(d, &r->t[T_SDR], 0x0a, 0x23, hdr0, sizeof(hdr0));
	ask(d, r, "selinfo", CMP_SELINFO, NC(0x0a, 0x40), NULL, 0);
	ask(d, r, "chassis", CMP_CHASSIS, NC(0x00, 0x01), NULL, 0);
	/* drivers set these themselves (the event buffer, interrupts) */
	ask(d, r, "enables", CMP_INFO, NC(0x06, 0x2f), NULL, 0);
	ask(d, r, "msgflags", CMP_INFO, NC(0x06, 0x31), NULL, 0);
	ask(d, r, "wdt", CMP_WDT, NC(0x06, 0x25), NULL, 0);
	for (i = 0; i < sizeof(chans) && !d->gone; i++) {
		char key[24];

		snprintf(key, sizeof(key), "chan.%x", chans[i]);
		ask(d, r, key, CMP_EXACT, NC(0x06, 0x42), &chans[i], 1);
	}
	if (full) {
		for (i = 0; i < nsens && !d->gone; i++) {
			char key[24];

			snprintf(key, sizeof(key), "sensor.%02x", sensors[i]);
			ask(d, r, key, CMP_SENSOR, NC(0x04, 0x2d), &sensors[i],
			    1);
		}
		read_fru(d, r);
	}

	r->irq_after = irq_count(r->irq_line, sizeof(r->irq_line));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->elapsed_ms =
		(uint64_t)(((int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 +
			    (t1.tv_nsec - t0.tv_nsec)) /
			   1000000);
	r->requests = d->requests;
	r->bound = d->bound;
	r->errors = d->errors;
	r->retries = d->retries;
	r->ccs = d->ccs;
	r->over_bound = d->over_bound;
	r->gone = d->gone;
}
