// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/core/selmirror*.c against a model BMC that answers
 * the SEL commands the way ipmi_sim does (bmc_storage.c: reservation 0 or
 * the last, record 0 the first and 0xffff the last, cc 0xcb for an absent
 * id and 0xcc for an offset past 16, counts cut at the entry's end, SEL
 * Info's count and timestamps): every id x offset x count answered from
 * memory byte for byte as the model answers, and not sent to it; what
 * the fill, a sync of new entries and the checks cost at the BMC, counted;
 * entries added, deleted and cleared behind the mirror and through it;
 * reservations per owner (no 0xc5 because of another); three readers
 * during the fill; oversized, short, looping and corrupt answers that
 * leave it failed with bounded memory.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/selmirror.h"
#include "util/le.h"

#define NMAX 9000

/* ---- the model BMC ---- */

struct model {
	unsigned int n;
	uint16_t id[NMAX];
	uint8_t data[NMAX][16];
	uint16_t next_id, res;
	uint32_t add_ts, erase_ts, clock;
	bool erase_on_delete; /* IPMI 2.0: a delete moves the erase time */
	unsigned int nreq;    /* requests it was sent */
	unsigned int nget;    /* of those, Get SEL Entry */
	unsigned int ninfo;   /* of those, SEL Info */
	/* faults: the answer to Get SEL Entry is this long (0: right),
	 * the SEL Info count is this (0: right), entry i's next id is
	 * itself (loop_at: i + 1, 0: none) */
	unsigned int get_len, info_count, loop_at;
};

static struct model bmc;

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* An entry as ipmi_sim stores it: its id, type 2, a timestamp, 9 bytes. */
static void model_add(void)
{
	unsigned int i = bmc.n++;

	ck_assert_uint_lt(i, NMAX);
	bmc.id[i] = bmc.next_id++;
	st16(bmc.data[i], bmc.id[i]);
	bmc.data[i][2] = 0x02;
	st32(bmc.data[i] + 3, bmc.clock);
	for (unsigned int b = 7; b < 16; b++)
		bmc.data[i][b] = (uint8_t)(bmc.id[i] * 7 + b * 13);
	bmc.add_ts = ++bmc.clock;
}

static void model_init(unsigned int n)
{
	memset(&bmc, 0, sizeof(bmc));
	bmc.clock = 0x5f000000;
	bmc.next_id = 1;
	for (unsigned int i = 0; i < n; i++)
		model_add();
}

static int model_find(unsigned int id)
{
	if (!bmc.n)
		return -1;
	if (id == 0)
		return 0;
	if (id == 0xffff)
		return (int)bmc.n - 1;
	for (unsigned int i = 0; i < bmc.n; i++)
		if (bmc.id[i] == id)
			return (int)i;
	return -1;
}

static void model_delete_at(int i)
{
	memmove(&bmc.id[i], &bmc.id[i + 1], (bmc.n - i - 1) * 2);
	memmove(&bmc.data[i], &bmc.data[i + 1], (bmc.n - i - 1) * 16);
	bmc.n--;
	if (bmc.erase_on_delete)
		bmc.erase_ts = ++bmc.clock;
}

/* What ipmi_sim answers, resp = cc + data; counted when COUNT. */
static unsigned int model_answer(uint8_t cmd, const uint8_t *d,
				 unsigned int len, uint8_t *resp, bool count)
{
	unsigned int off, cnt;
	int i;

	if (count) {
		bmc.nreq++;
		bmc.nget += cmd == 0x43;
		bmc.ninfo += cmd == 0x40;
	}
	resp[0] = 0;
	switch (cmd) {
	case 0x40:
		resp[1] = 0x51;
		st16(resp + 2, bmc.info_count ? bmc.info_count : bmc.n);
		st16(resp + 4, (NMAX - bmc.n) * 16);
		st32(resp + 6, bmc.add_ts);
		st32(resp + 10, bmc.erase_ts);
		resp[14] = 0x0b; /* delete, reserve, alloc info */
		return 15;
	case 0x42:
		if (++bmc.res == 0)
			bmc.res = 1;
		st16(resp + 1, bmc.res);
		return 3;
	case 0x43:
		if (len < 6) {
			resp[0] = 0xc7;
			return 1;
		}
		if (get16(d) && get16(d) != bmc.res) {
			resp[0] = 0xc5;
			return 1;
		}
		off = d[4];
		cnt = d[5];
		if (off >= 16) {
			resp[0] = 0xcc;
			return 1;
		}
		i = model_find(get16(d + 2));
		if (i < 0) {
			resp[0] = 0xcb;
			return 1;
		}
		st16(resp + 1,
		     (unsigned int)i + 1 < bmc.n ? bmc.id[i + 1] : 0xffff);
		if (bmc.loop_at && (unsigned int)i + 1 >= bmc.loop_at)
			st16(resp + 1, bmc.id[i]);
		if (off + cnt > 16)
			cnt = 16 - off;
		memcpy(resp + 3, bmc.data[i] + off, cnt);
		if (bmc.get_len)
			return bmc.get_len;
		return 3 + cnt;
	case 0x46:
		if (get16(d) && get16(d) != bmc.res) {
			resp[0] = 0xc5;
			return 1;
		}
		i = model_find(get16(d + 2));
		if (i < 0) {
			resp[0] = 0xcb;
			return 1;
		}
		st16(resp + 1, bmc.id[i]);
		model_delete_at(i);
		return 3;
	case 0x47: /* 0xaa erases; either moves ipmi_sim's erase time */
		if (d[5] == 0xaa)
			bmc.n = 0;
		bmc.erase_ts = ++bmc.clock;
		resp[1] = 1;
		return 2;
	default:
		resp[0] = 0xc1;
		return 1;
	}
}

/* ---- the mirror's side ---- */

static struct ipmi_request mkreq(uint8_t cmd, const uint8_t *data,
				 unsigned int len)
{
	return (struct ipmi_request){
		.addr = { .addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
			  .channel = IPMI_BMC_CHANNEL },
		.netfn = 0x0a,
		.cmd = cmd,
		.data = data,
		.len = (uint16_t)len,
	};
}

static uint64_t now = 1000000;

/* Run the mirror's own requests against the model until it has none. */
static unsigned int pump(struct selm *m)
{
	struct sdrc_req r;
	uint8_t resp[300];
	unsigned int len, n = 0;

	while (selm_next_request(m, now, &r)) {
		ck_assert_uint_eq(r.netfn, 0x0a);
		len = model_answer(r.cmd, r.data, r.len, resp, true);
		selm_answer(m, 0, resp, len, now);
		ck_assert_uint_lt(++n, 3 * NMAX);
	}
	return n;
}

/* A client's request as the glue runs it: from the mirror (parked ones
 * asked again after its requests), or to the model and observed. */
static unsigned int client(struct selm *m, const void *owner, uint8_t cmd,
			   const uint8_t *data, unsigned int len, uint8_t *resp,
			   bool *hit)
{
	struct ipmi_request rq = mkreq(cmd, data, len);
	unsigned int rlen = 0;
	enum sdrc_verdict v;

	for (int tries = 0; tries < 4; tries++) {
		v = selm_request(m, owner, &rq, now, resp, 270, &rlen);
		if (v == SDRC_ANSWERED) {
			*hit = true;
			return rlen;
		}
		if (v == SDRC_FORWARD) {
			*hit = false;
			rlen = model_answer(cmd, data, len, resp, true);
			selm_observe(m, owner, &rq, 0, resp, rlen, now);
			pump(m);
			return rlen;
		}
		ck_assert_uint_gt(pump(m), 0); /* parked: it must move */
	}
	ck_abort_msg("parked for good");
	return 0;
}

static unsigned int get_entry(struct selm *m, const void *owner, uint16_t res,
			      uint16_t id, uint8_t off, uint8_t cnt,
			      uint8_t *resp, bool *hit)
{
	uint8_t d[6];

	st16(d, res);
	st16(d + 2, id);
	d[4] = off;
	d[5] = cnt;
	return client(m, owner, 0x43, d, 6, resp, hit);
}

/* Walk the SEL as ipmitool does (id 0, then each next id, whole
 * entries, reservation 0); each answer checked against the model's.
 * Returns the hits. */
static unsigned int walk(struct selm *m, const void *owner, uint16_t res)
{
	uint8_t a[300], b[300], d[6];
	unsigned int la, lb, hits = 0;
	uint16_t id = 0;
	bool hit;

	for (unsigned int k = 0; k <= bmc.n; k++) {
		la = get_entry(m, owner, res, id, 0, 0xff, a, &hit);
		st16(d, res);
		st16(d + 2, id);
		d[4] = 0;
		d[5] = 0xff;
		lb = model_answer(0x43, d, 6, b, false);
		ck_assert_uint_eq(la, lb);
		ck_assert_mem_eq(a, b, la);
		hits += hit;
		if (a[0] != 0 || get16(a + 1) == 0xffff)
			return hits;
		id = get16(a + 1);
	}
	ck_abort_msg("the walk did not end");
	return hits;
}

static struct selm *m;

static void setup(void)
{
	model_init(40);
	now = 1000000;
	m = selm_new(2000);
	ck_assert_ptr_nonnull(m);
}

static void teardown(void)
{
	selm_free(m);
}

/* Every id x offset x count as the model answers, from memory once filled:
 * the fill is SEL Info, one Get per entry, SEL Info. */
START_TEST(test_identical)
{
	static const uint8_t counts[] = { 0, 1, 5, 15, 16, 17, 0xff };
	uint16_t ids[] = { 0, 1, 2, 7, 39, 40, 41, 0x1234, 0xffff };
	uint8_t a[300], b[300], d[6];
	unsigned int la, lb, fill;
	bool hit;

	get_entry(m, "a", 0, 0, 0, 0xff, a, &hit);
	ck_assert(hit);
	fill = bmc.nreq;
	ck_assert_uint_eq(bmc.nget, 40);
	ck_assert_uint_eq(bmc.ninfo, 2);
	ck_assert_str_eq(selm_state_name(m), "valid");
	ck_assert_uint_eq(selm_entries(m), 40);
	ck_assert_uint_eq(selm_stats(m)->fills, 1);
	for (unsigned int i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		for (unsigned int off = 0; off <= 17; off++)
			for (unsigned int c = 0; c < sizeof(counts); c++) {
				la = get_entry(m, "a", 0, ids[i], (uint8_t)off,
					       counts[c], a, &hit);
				st16(d, 0);
				st16(d + 2, ids[i]);
				d[4] = (uint8_t)off;
				d[5] = counts[c];
				lb = model_answer(0x43, d, 6, b, false);
				ck_assert_uint_eq(la, lb);
				ck_assert_mem_eq(a, b, la);
				/* past the entry: the BMC's own words */
				ck_assert(hit == (off < 16));
			}
	/* no Get SEL Entry in the answerable range reached the model, and
	 * no check: within revalidate_ms of the fill */
	ck_assert_uint_eq(bmc.nget, 40 + 2 * 9 * 7);
	ck_assert_uint_eq(bmc.nreq, fill + 2 * 9 * 7);
	/* a short request goes to the BMC */
	la = client(m, "a", 0x43, d, 5, a, &hit);
	ck_assert(!hit);
	ck_assert_uint_eq(a[0], 0xc7);
}
END_TEST

/* Warm: a whole walk costs the BMC at most a SEL Info at each end, and
 * none within revalidate_ms of the last check. */
START_TEST(test_warm_walk)
{
	unsigned int r0;

	ck_assert_uint_eq(walk(m, "a", 0), 40);
	ck_assert_uint_eq(bmc.nreq, 42);
	r0 = bmc.nreq;
	ck_assert_uint_eq(walk(m, "a", 0), 40);
	ck_assert_uint_eq(bmc.nreq, r0);
	now += 5000;
	ck_assert_uint_eq(walk(m, "a", 0), 40);
	ck_assert_uint_eq(bmc.nreq, r0 + 1); /* its start's check */
	ck_assert_uint_eq(bmc.ninfo, 3);
	ck_assert_uint_eq(selm_stats(m)->revalidations, 1);
}
END_TEST

/* Entries the BMC logs later: only they are fetched (and the last one
 * again, for its new next id); a client's SEL Info shows the change too. */
START_TEST(test_new_entries)
{
	uint8_t resp[300];
	unsigned int g0;
	bool hit;

	walk(m, "a", 0);
	for (int i = 0; i < 3; i++)
		model_add();
	now += 5000;
	g0 = bmc.nget;
	ck_assert_uint_eq(walk(m, "a", 0), 43);
	ck_assert_uint_eq(bmc.nget - g0, 4);
	ck_assert_uint_eq(selm_entries(m), 43);
	ck_assert_uint_eq(selm_stats(m)->syncs, 1);
	ck_assert_uint_eq(selm_stats(m)->fills, 1);
	/* within revalidate_ms: a client's SEL Info (to the BMC) shows it */
	model_add();
	g0 = bmc.nget;
	client(m, "a", 0x40, NULL, 0, resp, &hit);
	ck_assert(!hit);
	ck_assert_uint_eq(walk(m, "a", 0), 44);
	ck_assert_uint_eq(bmc.nget - g0, 2);
	ck_assert_uint_eq(selm_stats(m)->syncs, 2);
	/* an Add SEL Entry a node passed: the same */
	model_add();
	{
		struct ipmi_request rq = mkreq(0x44, NULL, 16);
		uint8_t ok[3] = { 0, 0x99, 0 };

		selm_observe(m, "b", &rq, 0, ok, 3, now);
	}
	ck_assert_uint_eq(walk(m, "a", 0), 45);
	ck_assert_uint_eq(selm_stats(m)->fills, 1);
}
END_TEST

/* Cleared behind the mirror (the erase time moves): filled again. A Clear
 * SEL a node passed drops it at once. */
START_TEST(test_erase_clear)
{
	uint8_t resp[300], clr[6] = { 0, 0, 'C', 'L', 'R', 0xaa };
	bool hit;

	walk(m, "a", 0);
	model_answer(0x47, clr, 6, resp, false);
	for (int i = 0; i < 5; i++)
		model_add();
	now += 5000;
	ck_assert_uint_eq(walk(m, "a", 0), 5);
	ck_assert_uint_eq(selm_entries(m), 5);
	ck_assert_uint_eq(selm_stats(m)->fills, 2);
	client(m, "a", 0x47, clr, 6, resp, &hit);
	ck_assert(!hit);
	ck_assert_str_eq(selm_state_name(m), "empty");
	ck_assert_uint_eq(selm_entries(m), 0);
	/* an empty SEL: cc 0xcb from memory, as from the BMC */
	ck_assert_uint_eq(walk(m, "a", 0), 1);
	ck_assert_str_eq(selm_state_name(m), "valid");
	ck_assert_uint_eq(get_entry(m, "a", 0, 0, 0, 0xff, resp, &hit), 1);
	ck_assert(hit);
	ck_assert_uint_eq(resp[0], 0xcb);
}
END_TEST

/* A Delete SEL Entry a node passed: out of the mirror, no refill, on a
 * BMC whose erase time stays (ipmi_sim) and one whose moves (IPMI 2.0). */
START_TEST(test_delete)
{
	uint8_t resp[300], d[4];
	unsigned int g0;
	bool hit;

	for (int conformant = 0; conformant < 2; conformant++) {
		bmc.erase_on_delete = conformant;
		walk(m, "a", 0);
		g0 = bmc.nget;
		st16(d, 0);
		st16(d + 2, bmc.id[7]);
		client(m, "a", 0x46, d, 4, resp, &hit);
		ck_assert_uint_eq(resp[0], 0);
		st16(d + 2, bmc.id[bmc.n - 1]); /* the last one */
		client(m, "a", 0x46, d, 4, resp, &hit);
		ck_assert_uint_eq(resp[0], 0);
		walk(m, "a", 0);
		walk(m, "a", 0);
		ck_assert_uint_eq(bmc.nget, g0);
		ck_assert_uint_eq(selm_entries(m), bmc.n);
		ck_assert_uint_eq(selm_stats(m)->fills, 1);
	}
}
END_TEST

/* Two owners in lockstep, each with its own reservation (Reserve goes to
 * the BMC, which has only the latest): never 0xc5 from memory; an owner's
 * own new Reserve cancels its old id; a clear cancels every owner's. */
START_TEST(test_reservations)
{
	uint8_t ra[8], rb[8], resp[300], clr[6] = { 0, 0, 'C', 'L', 'R', 0 };
	uint16_t a, b, old;
	bool hit;

	walk(m, "a", 0);
	client(m, "a", 0x42, NULL, 0, ra, &hit);
	client(m, "b", 0x42, NULL, 0, rb, &hit);
	a = get16(ra + 1);
	b = get16(rb + 1);
	ck_assert_uint_ne(a, b);
	for (unsigned int i = 0; i < 40; i++) {
		get_entry(m, "a", a, bmc.id[i], 0, 0xff, resp, &hit);
		ck_assert(hit);
		ck_assert_uint_eq(resp[0], 0);
		get_entry(m, "b", b, bmc.id[i], 4, 3, resp, &hit);
		ck_assert(hit);
		ck_assert_uint_eq(resp[0], 0);
	}
	/* b's id is not a's */
	get_entry(m, "a", b, bmc.id[3], 0, 0xff, resp, &hit);
	ck_assert_uint_eq(resp[0], 0xc5);
	old = a;
	client(m, "a", 0x42, NULL, 0, ra, &hit);
	get_entry(m, "a", old, bmc.id[3], 0, 0xff, resp, &hit);
	ck_assert_uint_eq(resp[0], 0xc5);
	get_entry(m, "a", get16(ra + 1), bmc.id[3], 0, 0xff, resp, &hit);
	ck_assert_uint_eq(resp[0], 0);
	/* b's still good; then gone with its owner */
	get_entry(m, "b", b, bmc.id[3], 0, 0xff, resp, &hit);
	ck_assert_uint_eq(resp[0], 0);
	selm_owner_gone(m, "b");
	get_entry(m, "b", b, bmc.id[3], 0, 0xff, resp, &hit);
	ck_assert_uint_eq(resp[0], 0xc5);
	/* a clear (even its status query, which moves ipmi_sim's erase
	 * time) drops the entries and every reservation */
	client(m, "c", 0x47, clr, 6, resp, &hit);
	ck_assert_uint_eq(resp[0], 0);
	get_entry(m, "a", get16(ra + 1), 0, 0, 0xff, resp, &hit);
	ck_assert_uint_eq(resp[0], 0xc5);
}
END_TEST

/* Three readers start during the cold fill: they wait, the fill runs
 * once, each gets the model's bytes. */
START_TEST(test_three_readers)
{
	struct ipmi_request rq;
	uint8_t d[6] = { 0, 0, 0, 0, 0, 0xff }, resp[300];
	unsigned int len;

	rq = mkreq(0x43, d, 6);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(selm_request(m, &d[i], &rq, now, resp, 270,
					      &len),
				 SDRC_PARK);
	pump(m);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(walk(m, &d[i], 0), 40);
	ck_assert_uint_eq(bmc.nget, 40);
	ck_assert_uint_eq(bmc.ninfo, 2);
	ck_assert_uint_eq(selm_stats(m)->fills, 1);
}
END_TEST

/* One of the mirror's requests to the model (false: it has none). */
static bool step(struct selm *mm)
{
	struct sdrc_req r;
	uint8_t resp[300];
	unsigned int len;

	if (!selm_next_request(mm, now, &r))
		return false;
	len = model_answer(r.cmd, r.data, r.len, resp, true);
	selm_answer(mm, 0, resp, len, now);
	return true;
}

/* A reader follows the fill: an entry the walk has passed is answered
 * at once, one it has not reached waits; nothing goes to the BMC twice. */
START_TEST(test_follow_fill)
{
	struct ipmi_request rq;
	uint8_t d[6] = { 0, 0, 0, 0, 0, 0xff }, a[300], b[300];
	unsigned int la = 0, lb;

	rq = mkreq(0x43, d, 6);
	ck_assert_int_eq(selm_request(m, "a", &rq, now, a, 270, &la),
			 SDRC_PARK);
	ck_assert(step(m)); /* SEL Info */
	ck_assert(step(m)); /* the first entry */
	ck_assert_int_eq(selm_request(m, "a", &rq, now, a, 270, &la),
			 SDRC_ANSWERED);
	lb = model_answer(0x43, d, 6, b, false);
	ck_assert_uint_eq(la, lb);
	ck_assert_mem_eq(a, b, la);
	st16(d + 2, get16(a + 1)); /* the next one: not fetched yet */
	ck_assert_int_eq(selm_request(m, "a", &rq, now, a, 270, &la),
			 SDRC_PARK);
	ck_assert(step(m));
	ck_assert_int_eq(selm_request(m, "a", &rq, now, a, 270, &la),
			 SDRC_ANSWERED);
	lb = model_answer(0x43, d, 6, b, false);
	ck_assert_mem_eq(a, b, la);
	ck_assert_str_eq(selm_state_name(m), "filling");
	pump(m);
	ck_assert_uint_eq(walk(m, "a", 0), 40);
	ck_assert_uint_eq(bmc.nget, 40);
	ck_assert_uint_eq(bmc.ninfo, 2);
}
END_TEST

/* Answers the mirror cannot trust: too long, too short, a next id that
 * loops, a count past the limit. The mirror fails (requests go to the
 * BMC, which answers them), holds nothing, and tries again later. */
START_TEST(test_bad_answers)
{
	uint8_t resp[300];
	unsigned int g0;
	bool hit;

	bmc.get_len = 20; /* one byte too many */
	get_entry(m, "a", 0, 0, 0, 0xff, resp, &hit);
	ck_assert(!hit);
	ck_assert_str_eq(selm_state_name(m), "failed");
	ck_assert_uint_eq(selm_entries(m), 0);
	bmc.get_len = 10;
	now += SELM_FAILED_MS;
	get_entry(m, "a", 0, 0, 0, 0xff, resp, &hit);
	ck_assert(!hit);
	ck_assert_str_eq(selm_state_name(m), "failed");
	/* a loop: entry 5 names itself next */
	bmc.get_len = 0;
	bmc.loop_at = 5;
	now += SELM_FAILED_MS;
	get_entry(m, "a", 0, 0, 0, 0xff, resp, &hit);
	ck_assert_str_eq(selm_state_name(m), "failed");
	ck_assert_uint_eq(selm_entries(m), 0);
	/* more entries than the mirror keeps: not read at all */
	bmc.loop_at = 0;
	bmc.info_count = SELM_MAX_ENTRIES + 1;
	now += SELM_FAILED_MS;
	g0 = bmc.nget;
	get_entry(m, "a", 0, 0, 0, 0xff, resp, &hit);
	ck_assert(!hit);
	ck_assert_uint_eq(bmc.nget, g0 + 1); /* the client's only */
	/* a SEL Info that lies about the count: the walk's check fails */
	bmc.info_count = 41;
	now += SELM_FAILED_MS;
	get_entry(m, "a", 0, 0, 0, 0xff, resp, &hit);
	ck_assert_str_eq(selm_state_name(m), "failed");
	/* the BMC answers right again: mirrored after the wait */
	bmc.info_count = 0;
	now += SELM_FAILED_MS;
	ck_assert_uint_eq(walk(m, "a", 0), 40);
	ck_assert_str_eq(selm_state_name(m), "valid");
}
END_TEST

/* The limit itself: SELM_MAX_ENTRIES are mirrored, and the BMC's answers
 * repeated byte for byte. */
START_TEST(test_limit)
{
	model_init(SELM_MAX_ENTRIES);
	ck_assert_uint_eq(walk(m, "a", 0), SELM_MAX_ENTRIES);
	ck_assert_uint_eq(selm_entries(m), SELM_MAX_ENTRIES);
	ck_assert_uint_eq(bmc.nget, SELM_MAX_ENTRIES);
}
END_TEST

static Suite *selmirror_suite(void)
{
	Suite *s = suite_create("selmirror");
	TCase *tc = tcase_create("mirror");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_identical);
	tcase_add_test(tc, test_warm_walk);
	tcase_add_test(tc, test_new_entries);
	tcase_add_test(tc, test_erase_clear);
	tcase_add_test(tc, test_delete);
	tcase_add_test(tc, test_reservations);
	tcase_add_test(tc, test_three_readers);
	tcase_add_test(tc, test_follow_fill);
	tcase_add_test(tc, test_bad_answers);
	tcase_add_test(tc, test_limit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(selmirror_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
