// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/core/sdrcache*.c against a model BMC that answers
 * SDR and FRU commands the way ipmi_sim does (reservations, record 0 and
 * 0xffff, cc 0xcb/0xc9/0xca, counts cut at the end, timestamps): every
 * record x offset x count and every FRU offset x count answered from
 * memory byte for byte as the model answers them, and not sent to it;
 * reservation rules per owner, two owners in lockstep, invalidation by
 * writes, resets and timestamp changes, a BMC whose timestamps stay.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sdrcache.h"

#define NREC_MAX 16
/* the longest answer KCS carries, cc + data (272 with netfn and cmd) */
#define KCS_ANSWER_MAX (272 - 2)

/* ---- the model BMC ---- */

struct model {
	unsigned int nrec;
	uint16_t id[NREC_MAX];
	uint8_t len[NREC_MAX];
	uint8_t data[NREC_MAX][255];
	uint16_t res;
	uint32_t add_ts, erase_ts, clock;
	bool frozen_ts;	  /* a BMC that never updates its timestamps */
	unsigned int cap; /* response bytes (cc + data) it can carry */
	uint8_t fru[300];
	unsigned int fru_size;
	unsigned int nreq;     /* requests it was sent */
	unsigned int nget;     /* of those, Get SDR / Read FRU */
	unsigned int steal_at; /* another client reserves before this
				 * Get SDR (1: the next one) */
	unsigned int nres;     /* Reserves it answered */
	unsigned int next_id;  /* for Add SDR */
	/* device SDRs (netfn 04, LUN 0), static population as ipmi_sim's */
	unsigned int ndev;
	uint16_t dev_id[4];
	uint8_t dev_len[4];
	uint8_t dev_data[4][64];
	/* Get Device SDR Info: ipmi_sim ignores the request's data byte and
	 * answers the sensor count; a form-aware BMC answers the SDR count
	 * for bit 0 set, cc 0xcc for reserved bits, and may add bytes past
	 * the spec's three (extra) */
	unsigned int dev_sensors;
	bool dev_form_aware;
	unsigned int dev_extra;
	unsigned int ndevinfo; /* 04:20 requests it was sent */
};

/* The cache's calls with the request's fields as arguments (the tests'
 * tables are written that way). */
static struct ipmi_request mkreq(uint8_t netfn, uint8_t lun, uint8_t cmd,
				 const uint8_t *data, unsigned int len)
{
	return (struct ipmi_request){
		.addr = { .addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
			  .channel = IPMI_BMC_CHANNEL,
			  .lun = lun },
		.netfn = netfn,
		.cmd = cmd,
		.data = data,
		.len = (uint16_t)len,
	};
}

static enum sdrc_verdict
cache_request(struct sdrc *sc, const void *owner, uint8_t netfn, uint8_t lun,
	      uint8_t cmd, const uint8_t *data, unsigned int len, uint64_t t,
	      uint8_t *resp, unsigned int resp_size, unsigned int *resp_len)
{
	struct ipmi_request rq = mkreq(netfn, lun, cmd, data, len);

	return sdrc_request(sc, owner, &rq, t, resp, resp_size, resp_len);
}

static void cache_observe(struct sdrc *sc, const void *owner, uint8_t netfn,
			  uint8_t lun, uint8_t cmd, const uint8_t *data,
			  unsigned int len, int status, const uint8_t *resp,
			  unsigned int resp_len, uint64_t t)
{
	struct ipmi_request rq = mkreq(netfn, lun, cmd, data, len);

	sdrc_observe(sc, owner, &rq, status, resp, resp_len, t);
}

static struct model bmc;

static void put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

/* A record of BODY bytes after its header, stored with PAD more (ipmi_sim
 * keeps records longer than their header says and returns it all). */
static void model_add_pad(unsigned int id, unsigned int body, unsigned int pad)
{
	unsigned int i = bmc.nrec++;

	ck_assert_uint_lt(i, NREC_MAX);
	bmc.id[i] = (uint16_t)id;
	bmc.len[i] = (uint8_t)(body + 5 + pad);
	put16(bmc.data[i], id);
	bmc.data[i][2] = 0x51;
	bmc.data[i][3] = (uint8_t)(1 + i % 3);
	bmc.data[i][4] = (uint8_t)body;
	for (unsigned int b = 0; b < body; b++)
		bmc.data[i][5 + b] = (uint8_t)(id * 7 + b * 13);
	for (unsigned int b = 0; b < pad; b++)
		bmc.data[i][5 + body + b] = 0;
	if (!bmc.frozen_ts)
		bmc.add_ts = ++bmc.clock;
}

static void model_add(unsigned int id, unsigned int body)
{
	model_add_pad(id, body, 0);
}

static void model_init(void)
{
	memset(&bmc, 0, sizeof(bmc));
	bmc.clock = 1000;
	bmc.next_id = 0x40;
	bmc.cap = 40;
	/* lengths on both sides of the cap (37 data bytes) */
	model_add(1, 11);
	model_add(2, 43);
	model_add_pad(5, 21, 6);
	model_add(9, 0);
	model_add(0x30, 59);
	model_add(0x31, 32);
	model_add_pad(0x32, 17, 6); /* 28 bytes, as ipmi_sim's first */
	for (unsigned int i = 0; i < 200; i++)
		bmc.fru[i] = (uint8_t)(i * 3 + 1);
	bmc.ndev = 3;
	bmc.dev_sensors = 7;
	for (unsigned int i = 0; i < bmc.ndev; i++) {
		bmc.dev_id[i] = (uint16_t)(0x100 + i);
		bmc.dev_len[i] = (uint8_t)(20 + 13 * i);
		for (unsigned int b = 0; b < bmc.dev_len[i]; b++)
			bmc.dev_data[i][b] = (uint8_t)(0x80 + b * 5 + i);
		put16(bmc.dev_data[i], bmc.dev_id[i]);
		bmc.dev_data[i][4] = (uint8_t)(bmc.dev_len[i] - 5);
	}
	bmc.fru_size = 200;
}

static int model_find(unsigned int id)
{
	if (!bmc.nrec)
		return -1;
	if (id == 0)
		return 0;
	if (id == 0xffff)
		return (int)bmc.nrec - 1;
	for (unsigned int i = 0; i < bmc.nrec; i++)
		if (bmc.id[i] == id)
			return (int)i;
	return -1;
}

/* What ipmi_sim answers (bmc_storage.c), resp = cc + data. */
static unsigned int model_answer(uint8_t netfn, uint8_t cmd, const uint8_t *d,
				 unsigned int len, uint8_t *resp)
{
	unsigned int off, cnt;
	int i;

	resp[0] = 0;
	if (netfn == 0x04 && cmd == 0x20) { /* sensors, flags: static */
		if (bmc.dev_form_aware && len >= 1 && (d[0] & 0xfe)) {
			resp[0] = 0xcc;
			return 1;
		}
		resp[1] =
			(uint8_t)(bmc.dev_form_aware && len >= 1 && (d[0] & 1) ?
					  bmc.ndev :
					  bmc.dev_sensors);
		resp[2] = 0x01;
		for (unsigned int k = 0; k < bmc.dev_extra; k++)
			resp[3 + k] = (uint8_t)(0xd0 + k + bmc.dev_sensors);
		return 3 + bmc.dev_extra;
	}
	if (netfn == 0x04 && cmd == 0x21) { /* no reservation: static */
		if (len < 6) {
			resp[0] = 0xc7;
			return 1;
		}
		i = -1;
		for (unsigned int k = 0; k < bmc.ndev; k++)
			if ((d[2] | d[3] << 8) == bmc.dev_id[k] ||
			    ((d[2] | d[3] << 8) == 0 && k == 0) ||
			    ((d[2] | d[3] << 8) == 0xffff && k + 1 == bmc.ndev))
				i = (int)k;
		if (i < 0) {
			resp[0] = 0xcb;
			return 1;
		}
		off = d[4];
		cnt = d[5];
		if (off >= bmc.dev_len[i]) {
			resp[0] = 0xc9;
			return 1;
		}
		if (off + cnt > bmc.dev_len[i])
			cnt = bmc.dev_len[i] - off;
		if (cnt + 3 > bmc.cap) {
			resp[0] = 0xc8; /* ipmi_sim's Get Device SDR */
			return 1;
		}
		put16(resp + 1, (unsigned int)i + 1 < bmc.ndev ?
					bmc.dev_id[i + 1] :
					0xffff);
		memcpy(resp + 3, bmc.dev_data[i] + off, cnt);
		return 3 + cnt;
	}
	if (netfn != 0x0a) {
		resp[0] = 0xc1;
		return 1;
	}
	switch (cmd) {
	case 0x20:
		resp[1] = 0x51;
		put16(resp + 2, bmc.nrec);
		put16(resp + 4, 0x1000);
		put32(resp + 6, bmc.add_ts);
		put32(resp + 10, bmc.erase_ts);
		resp[14] = 0x02 | 0x20;
		return 15;
	case 0x22:
		if (++bmc.res == 0)
			bmc.res++;
		put16(resp + 1, bmc.res);
		return 3;
	case 0x23:
		if (len < 6) {
			resp[0] = 0xc7;
			return 1;
		}
		if ((d[0] | d[1] << 8) != 0 && (d[0] | d[1] << 8) != bmc.res) {
			resp[0] = 0xc5;
			return 1;
		}
		i = model_find(d[2] | d[3] << 8);
		if (i < 0) {
			resp[0] = 0xcb;
			return 1;
		}
		off = d[4];
		cnt = d[5];
		if (off >= bmc.len[i]) {
			resp[0] = 0xc9;
			return 1;
		}
		if (off + cnt > bmc.len[i])
			cnt = bmc.len[i] - off;
		if (cnt + 3 > bmc.cap) {
			resp[0] = 0xca;
			return 1;
		}
		if ((unsigned int)i + 1 < bmc.nrec)
			put16(resp + 1, bmc.id[i + 1]);
		else
			put16(resp + 1, 0xffff);
		memcpy(resp + 3, bmc.data[i] + off, cnt);
		return 3 + cnt;
	case 0x24:
		model_add(bmc.next_id++, d[5]);
		put16(resp + 1, bmc.id[bmc.nrec - 1]);
		return 3;
	case 0x26:
		i = model_find(d[2] | d[3] << 8);
		if (i < 0) {
			resp[0] = 0xcb;
			return 1;
		}
		put16(resp + 1, bmc.id[i]);
		memmove(&bmc.id[i], &bmc.id[i + 1],
			(bmc.nrec - (unsigned int)i - 1) * sizeof(bmc.id[0]));
		memmove(&bmc.len[i], &bmc.len[i + 1],
			bmc.nrec - (unsigned int)i - 1);
		memmove(bmc.data[i], bmc.data[i + 1],
			(bmc.nrec - (unsigned int)i - 1) * sizeof(bmc.data[0]));
		bmc.nrec--;
		if (!bmc.frozen_ts)
			bmc.erase_ts = ++bmc.clock;
		return 3;
	case 0x10:
		if (len < 1 || d[0] != 0) {
			resp[0] = 0xcc;
			return 1;
		}
		put16(resp + 1, bmc.fru_size);
		resp[3] = 0;
		return 4;
	case 0x11:
		if (len < 4) {
			resp[0] = 0xc7;
			return 1;
		}
		if (d[0] != 0) {
			resp[0] = 0xcc;
			return 1;
		}
		off = d[1] | d[2] << 8;
		cnt = d[3];
		if (off >= bmc.fru_size) {
			resp[0] = 0xc9;
			return 1;
		}
		if (off + cnt > bmc.fru_size)
			cnt = bmc.fru_size - off;
		if (cnt + 2 > bmc.cap) {
			resp[0] = 0xc8; /* ipmi_sim's Read FRU Data */
			return 1;
		}
		resp[1] = (uint8_t)cnt;
		memcpy(resp + 2, bmc.fru + off, cnt);
		return 2 + cnt;
	case 0x12:
		return 2;
	default:
		resp[0] = 0xc1;
		return 1;
	}
}

static unsigned int model_send(uint8_t netfn, uint8_t cmd, const uint8_t *d,
			       unsigned int len, uint8_t *resp)
{
	bmc.nreq++;
	if (cmd == 0x23 || cmd == 0x11)
		bmc.nget++;
	if (cmd == 0x22)
		bmc.nres++;
	if (netfn == 0x04 && cmd == 0x20)
		bmc.ndevinfo++;
	if (cmd == 0x23 && bmc.steal_at && --bmc.steal_at == 0)
		bmc.res++; /* someone else's Reserve */
	return model_answer(netfn, cmd, d, len, resp);
}

/* ---- driving the cache as the glue does ---- */

static struct sdrc *c;
static uint64_t now = 5000;
static int owner_a, owner_b;

static void pump(void)
{
	struct sdrc_req r;
	uint8_t resp[KCS_ANSWER_MAX];
	unsigned int n, guard = 0;

	while (sdrc_next_request(c, now, &r)) {
		ck_assert_uint_lt(++guard, 100000);
		n = model_send(r.netfn, r.cmd, r.data, r.len, resp);
		sdrc_answer(c, 0, resp, n, now);
	}
}

/* A client's request: answered from memory, or sent on (and observed);
 * *fwd says which. */
static unsigned int ask(const void *owner, uint8_t netfn, uint8_t cmd,
			const uint8_t *d, unsigned int len, uint8_t *resp,
			bool *fwd)
{
	unsigned int n = 0;
	enum sdrc_verdict v;
	int guard = 0;

	while ((v = cache_request(c, owner, netfn, 0, cmd, d, len, now, resp,
				  SDRC_MAX_RESP, &n)) == SDRC_PARK) {
		ck_assert_int_lt(++guard, 10);
		pump();
	}
	if (fwd)
		*fwd = v == SDRC_FORWARD;
	if (v == SDRC_FORWARD) {
		/* the daemon's own requests (a revalidation this one asked
		 * for) run ahead of the nodes' queues */
		pump();
		n = model_send(netfn, cmd, d, len, resp);
		cache_observe(c, owner, netfn, 0, cmd, d, len, 0, resp, n, now);
	}
	return n;
}

static uint16_t reserve(const void *owner)
{
	uint8_t resp[SDRC_MAX_RESP];
	bool fwd;
	unsigned int n = ask(owner, 0x0a, 0x22, NULL, 0, resp, &fwd);

	ck_assert(fwd); /* reservations are the BMC's */
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(resp[0], 0);
	return (uint16_t)(resp[1] | resp[2] << 8);
}

static unsigned int get_sdr(const void *owner, uint16_t res, uint16_t id,
			    uint8_t off, uint8_t cnt, uint8_t *resp, bool *fwd)
{
	uint8_t d[6] = { (uint8_t)res, (uint8_t)(res >> 8),
			 (uint8_t)id,  (uint8_t)(id >> 8),
			 off,	       cnt };

	return ask(owner, 0x0a, 0x23, d, 6, resp, fwd);
}

static void setup(void)
{
	model_init();
	now = 5000;
	c = sdrc_new(1000);
	ck_assert_ptr_nonnull(c);
}

static void teardown(void)
{
	sdrc_free(c);
	c = NULL;
}

/* Every record, offset and count, with the reservation the model holds
 * (so the model's own answer is the reference), and ids 0, 0xffff and
 * absent ones. Answered from memory except where the cache cannot know
 * (a count between the longest answered and the shortest refused). */
START_TEST(every_record_offset_count)
{
	uint8_t got[SDRC_MAX_RESP], want[SDRC_MAX_RESP];
	unsigned int ng, nw, fwd_count = 0, total = 0, before;
	uint16_t res = reserve(&owner_a);
	uint16_t ids[NREC_MAX + 4];
	unsigned int nid = 0;
	bool fwd;

	for (unsigned int i = 0; i < bmc.nrec; i++)
		ids[nid++] = bmc.id[i];
	ids[nid++] = 0;
	ids[nid++] = 0xffff;
	ids[nid++] = 3; /* absent */
	ids[nid++] = 0xfffe;
	/* the fill happens on the first read */
	get_sdr(&owner_a, res, 0, 0, 5, got, &fwd);
	ck_assert(!fwd);
	ck_assert_uint_eq(sdrc_records(c), bmc.nrec);
	before = bmc.nreq;
	for (unsigned int k = 0; k < nid; k++)
		for (unsigned int off = 0; off < 70; off++)
			for (unsigned int cnt = 0; cnt < 256; cnt++) {
				uint8_t d[6] = { (uint8_t)bmc.res,
						 (uint8_t)(bmc.res >> 8),
						 (uint8_t)ids[k],
						 (uint8_t)(ids[k] >> 8),
						 (uint8_t)off,
						 (uint8_t)cnt };

				ng = get_sdr(&owner_a, res, ids[k],
					     (uint8_t)off, (uint8_t)cnt, got,
					     &fwd);
				nw = model_answer(0x0a, 0x23, d, 6, want);
				ck_assert_msg(ng == nw && memcmp(got, want,
								 nw) == 0,
					      "id %u off %u cnt %u: %u bytes "
					      "cc %02x, BMC %u bytes cc %02x",
					      ids[k], off, cnt, ng, got[0], nw,
					      want[0]);
				fwd_count += fwd;
				total++;
			}
	/* the fill read whole records up to 37 bytes and learned that 40
	 * and longer are refused: nothing left for the BMC to decide */
	ck_assert_uint_eq(fwd_count, 0);
	ck_assert_uint_eq(bmc.nreq, before);
	ck_assert_uint_eq(sdrc_stats(c)->hits, total + 1);
	/* the last record's next id */
	ng = get_sdr(&owner_a, res, 0x32, 0, 5, got, &fwd);
	ck_assert_uint_eq(got[1], 0xff);
	ck_assert_uint_eq(got[2], 0xff);
	ck_assert_uint_eq(ng, 8);
}
END_TEST

/*
 * A BMC that answers long reads (KCS carries 272 bytes) with a full OEM
 * record of 255 bytes: every read of it, up to count 255 (258 bytes with
 * cc and next id), answered from memory byte for byte as the BMC, into a
 * buffer of SDRC_MAX_RESP (before: 256 bytes, and the cache wrote 258 into
 * it: a stack overflow in the daemon). A buffer too small for an answer
 * gets FORWARD, never a write past it; FRU reads alike (257 bytes for
 * 255, where the BMC answers them).
 */
START_TEST(long_records)
{
	uint8_t got[SDRC_MAX_RESP], want[KCS_ANSWER_MAX], small[40];
	uint8_t fru[KCS_ANSWER_MAX]; /* forwarded answers land here too */
	uint8_t d[6];
	unsigned int ng, nw, n;
	uint16_t res;
	bool fwd;

	bmc.cap = 272 - 2;
	model_add(0x40, 250); /* 255 bytes */
	model_add(0x41, 249);
	bmc.fru_size = 300;
	for (unsigned int i = 0; i < 300; i++)
		bmc.fru[i] = (uint8_t)(i * 5 + 3);
	res = reserve(&owner_a);
	get_sdr(&owner_a, res, 0, 0, 5, got, &fwd); /* the fill */
	ck_assert_str_eq(sdrc_state_name(c), "valid");
	for (unsigned int off = 0; off < 256; off += 5)
		for (unsigned int cnt = 200; cnt < 256; cnt++) {
			d[0] = (uint8_t)bmc.res;
			d[1] = (uint8_t)(bmc.res >> 8);
			d[2] = 0x40;
			d[3] = 0;
			d[4] = (uint8_t)off;
			d[5] = (uint8_t)cnt;
			ng = get_sdr(&owner_a, res, 0x40, (uint8_t)off,
				     (uint8_t)cnt, got, &fwd);
			nw = model_answer(0x0a, 0x23, d, 6, want);
			ck_assert_msg(ng == nw && !memcmp(got, want, nw),
				      "off %u cnt %u: %u bytes, BMC %u", off,
				      cnt, ng, nw);
			ck_assert(!fwd);
		}
	ck_assert_uint_eq(get_sdr(&owner_a, res, 0x40, 0, 255, got, &fwd), 258);
	/* a buffer too small: FORWARD, nothing written past it */
	memset(small, 0xee, sizeof(small));
	d[0] = d[1] = d[3] = 0;
	d[2] = 0x40;
	d[4] = 0;
	d[5] = 0xff;
	ck_assert_int_eq(cache_request(c, &owner_a, 0x0a, 0, 0x23, d, 6, now,
				       small, 30, &n),
			 SDRC_FORWARD);
	for (unsigned int i = 30; i < sizeof(small); i++)
		ck_assert_uint_eq(small[i], 0xee);
	/* FRU reads of 255 bytes (257 with cc and count) */
	for (unsigned int off = 0; off < 300; off += 45) {
		uint8_t f[4] = { 0, (uint8_t)off, (uint8_t)(off >> 8), 255 };

		ng = ask(&owner_a, 0x0a, 0x11, f, 4, fru, &fwd);
		nw = model_answer(0x0a, 0x11, f, 4, want);
		ck_assert_msg(ng == nw && !memcmp(fru, want, nw),
			      "FRU off %u: %u bytes, BMC %u", off, ng, nw);
	}
	/* (the fill reads FRU data 128 bytes at a time: longer reads are
	 * the BMC's) one answered from memory, then into too small a buffer */
	ck_assert_uint_eq(ask(&owner_a, 0x0a, 0x11,
			      (const uint8_t[]){ 0, 0, 0, 100 }, 4, got, &fwd),
			  102);
	ck_assert(!fwd);
	memset(small, 0xee, sizeof(small));
	ck_assert_int_eq(cache_request(c, &owner_a, 0x0a, 0, 0x11,
				       (const uint8_t[]){ 0, 0, 0, 100 }, 4,
				       now, small, 30, &n),
			 SDRC_FORWARD);
	for (unsigned int i = 30; i < sizeof(small); i++)
		ck_assert_uint_eq(small[i], 0xee);
}
END_TEST

/* Get SDR Repository Info byte for byte; malformed requests forwarded. */
START_TEST(info_and_malformed)
{
	uint8_t got[SDRC_MAX_RESP], want[SDRC_MAX_RESP], d[7] = { 0 };
	unsigned int ng, nw, before;
	bool fwd;

	ng = ask(&owner_a, 0x0a, 0x20, NULL, 0, got, &fwd);
	nw = model_answer(0x0a, 0x20, NULL, 0, want);
	ck_assert(!fwd);
	ck_assert_uint_eq(ng, nw);
	ck_assert_mem_eq(got, want, nw);
	before = bmc.nreq;
	ask(&owner_a, 0x0a, 0x23, d, 5, got, &fwd); /* short */
	ck_assert(fwd);
	ck_assert_uint_eq(got[0], 0xc7);
	ask(&owner_a, 0x0a, 0x23, d, 7, got, &fwd); /* long */
	ck_assert(fwd);
	ask(&owner_a, 0x0a, 0x20, d, 1, got, &fwd);
	ck_assert(fwd);
	ask(&owner_a, 0x04, 0x20, d, 0, got, &fwd); /* device SDR info */
	ck_assert(fwd);
	ck_assert_uint_eq(bmc.nreq, before + 4);
	{
		unsigned int n = 0;
		uint8_t dd[6] = { 0, 0, 0, 0, 0, 5 };

		/* device SDRs of another LUN go to the BMC */
		ck_assert_int_eq(cache_request(c, &owner_a, 0x04, 1, 0x21, dd,
					       6, now, got, SDRC_MAX_RESP, &n),
				 SDRC_FORWARD);
	}
}
END_TEST

/* Reservations are per owner: another owner's Reserve cancels nothing;
 * the owner's own next Reserve and a repository change do. */
START_TEST(reservation_rules)
{
	uint8_t got[SDRC_MAX_RESP];
	uint16_t ra, ra2, rb;
	bool fwd;

	ra = reserve(&owner_a);
	get_sdr(&owner_a, ra, 2, 5, 8, got, &fwd);
	ck_assert_uint_eq(got[0], 0);
	rb = reserve(&owner_b);
	ck_assert_uint_ne(ra, rb);
	get_sdr(&owner_a, ra, 2, 5, 8, got, &fwd);
	ck_assert_uint_eq(got[0], 0); /* B cancelled nothing */
	get_sdr(&owner_a, rb, 2, 5, 8, got, &fwd);
	ck_assert_uint_eq(got[0], 0xc5); /* B's id is not A's */
	ra2 = reserve(&owner_a);
	get_sdr(&owner_a, ra, 2, 5, 8, got, &fwd);
	ck_assert_uint_eq(got[0], 0xc5); /* A's own new Reserve */
	get_sdr(&owner_a, ra2, 2, 5, 8, got, &fwd);
	ck_assert_uint_eq(got[0], 0);
	get_sdr(&owner_a, 0, 2, 5, 8, got, &fwd);
	ck_assert_uint_eq(got[0], 0); /* 0000: no reservation */
	/* a change of the repository cancels everyone's */
	{
		uint8_t add[11] = { 0, 0, 0x51, 1, 5, 1, 2, 3, 4, 5 };

		ask(&owner_b, 0x0a, 0x24, add, 10, got, &fwd);
		ck_assert(fwd);
		ck_assert_uint_eq(got[0], 0);
	}
	get_sdr(&owner_a, ra2, 2, 5, 8, got, &fwd);
	ck_assert_uint_eq(got[0], 0xc5);
	get_sdr(&owner_b, rb, 2, 5, 8, got, &fwd);
	ck_assert_uint_eq(got[0], 0xc5);
	/* a closed owner's reservation is forgotten */
	ra = reserve(&owner_a);
	sdrc_owner_gone(c, &owner_a);
	get_sdr(&owner_a, ra, 2, 5, 8, got, &fwd);
	ck_assert_uint_eq(got[0], 0xc5);
}
END_TEST

/* Two owners reading the whole repository in lockstep, in pieces of 8,
 * each reserving first (as ipmitool does): no 0xc5, the data the BMC
 * holds, and only their Reserves and the revalidations reach the BMC. */
START_TEST(lockstep)
{
	const void *who[2] = { &owner_a, &owner_b };
	uint8_t got[SDRC_MAX_RESP], rec[2][64];
	uint16_t res[2], id[2] = { 0, 0 }, next[2];
	unsigned int before, i, off[2], len[2], round;
	bool fwd, done[2];

	for (round = 0; round < 3; round++) {
		before = bmc.nget;
		for (i = 0; i < 2; i++) {
			res[i] = reserve(who[i]);
			id[i] = 0;
			done[i] = false;
		}
		while (!done[0] || !done[1]) {
			for (i = 0; i < 2; i++) {
				if (done[i])
					continue;
				get_sdr(who[i], res[i], id[i], 0, 5, got, &fwd);
				ck_assert_uint_eq(got[0], 0);
				len[i] = got[3 + 4] + 5u;
				next[i] = (uint16_t)(got[1] | got[2] << 8);
				memcpy(rec[i], got + 3, 5);
				for (off[i] = 5; off[i] < len[i]; off[i] += 8) {
					get_sdr(who[i], res[i], id[i],
						(uint8_t)off[i], 8, got, &fwd);
					ck_assert_uint_eq(got[0], 0);
					memcpy(rec[i] + off[i], got + 3,
					       len[i] - off[i] < 8 ?
						       len[i] - off[i] :
						       8);
					/* the other one re-reserves midway */
					if (off[i] == 13 && id[i] == 2) {
						res[!i] = reserve(who[!i]);
					}
				}
				{
					int k = model_find(id[i]);

					ck_assert_int_ge(k, 0);
					ck_assert_mem_eq(rec[i], bmc.data[k],
							 len[i]);
				}
				id[i] = next[i];
				done[i] = next[i] == 0xffff;
			}
			now += 300; /* revalidations happen meanwhile */
		}
		/* the first round fills; later rounds read nothing */
		if (round)
			ck_assert_uint_eq(bmc.nget, before);
	}
	ck_assert_uint_ge(sdrc_stats(c)->revalidations, 2);
	ck_assert_uint_eq(sdrc_stats(c)->fills, 1);
}
END_TEST

/* A write from any node, a BMC reset, a FRU write: dropped and refilled;
 * a change at the BMC seen by revalidation after the interval, and after
 * a Reserve. */
START_TEST(invalidation)
{
	uint8_t got[SDRC_MAX_RESP], d[6] = { 0, 0, 0x30, 0, 0, 0 };
	uint16_t r;
	bool fwd;

	r = reserve(&owner_a);
	get_sdr(&owner_a, r, 0, 0, 5, got, &fwd);
	ck_assert_uint_eq(sdrc_stats(c)->fills, 1);
	/* delete 0x30 through another node */
	ask(&owner_b, 0x0a, 0x26, d, 4, got, &fwd);
	ck_assert(fwd);
	ck_assert_uint_eq(got[0], 0);
	ck_assert_str_eq(sdrc_state_name(c), "empty");
	get_sdr(&owner_a, 0, 0x30, 0, 5, got, &fwd);
	ck_assert_uint_eq(got[0], 0xcb);
	ck_assert_uint_eq(sdrc_stats(c)->fills, 2);
	ck_assert_uint_eq(sdrc_records(c), bmc.nrec);
	/* a reset */
	cache_observe(c, NULL, 0x06, 0, 0x02, NULL, 0, 0, got, 1, now);
	ck_assert_str_eq(sdrc_state_name(c), "empty");
	/* a change the daemon did not see: the BMC adds a record itself */
	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd);
	model_add(0x77, 4);
	get_sdr(&owner_a, 0, 0x77, 0, 5, got, &fwd);
	ck_assert_uint_eq(got[0], 0xcb); /* still fresh: not seen */
	now += 1001;
	get_sdr(&owner_a, 0, 0x77, 0, 5, got, &fwd);
	ck_assert_uint_eq(got[0], 0); /* revalidated, refilled */
	ck_assert_uint_eq(sdrc_records(c), bmc.nrec);
	/* and at once after a Reserve */
	model_add(0x78, 4);
	get_sdr(&owner_a, 0, 0x78, 0, 5, got, &fwd);
	ck_assert_uint_eq(got[0], 0xcb);
	r = reserve(&owner_a);
	get_sdr(&owner_a, r, 0x78, 0, 5, got, &fwd);
	ck_assert_uint_eq(got[0], 0);
	ck_assert(!fwd);
}
END_TEST

/* A BMC that does not move its timestamps: after a write the cache sees
 * the same ones and turns itself off; everything goes to the BMC. */
START_TEST(untrusted_timestamps)
{
	uint8_t got[SDRC_MAX_RESP];
	uint8_t add[10] = { 0, 0, 0x51, 1, 4, 1, 2, 3, 4 };
	bool fwd;

	bmc.frozen_ts = true;
	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd);
	ck_assert(!fwd);
	ask(&owner_b, 0x0a, 0x24, add, 9, got, &fwd);
	ck_assert_uint_eq(got[0], 0);
	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd);
	ck_assert(fwd);
	ck_assert_str_eq(sdrc_state_name(c), "off");
	get_sdr(&owner_a, 0, 0xffff, 0, 5, got, &fwd);
	ck_assert(fwd);
	ck_assert_uint_eq(got[3], bmc.id[bmc.nrec - 1]);
}
END_TEST

/* A BMC that moves them: a write is no reason to stop caching. */
START_TEST(trusted_after_write)
{
	uint8_t got[SDRC_MAX_RESP];
	uint8_t add[10] = { 0, 0, 0x51, 1, 4, 1, 2, 3, 4 };
	bool fwd;

	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd);
	ask(&owner_b, 0x0a, 0x24, add, 9, got, &fwd);
	get_sdr(&owner_a, 0, 0xffff, 0, 5, got, &fwd);
	ck_assert(!fwd);
	ck_assert_str_eq(sdrc_state_name(c), "valid");
	ck_assert_uint_eq(sdrc_records(c), bmc.nrec);
}
END_TEST

/* FRU: info and every offset x count byte for byte; an absent device id's
 * answer; a write drops the copy. */
START_TEST(fru_every_offset_count)
{
	uint8_t got[SDRC_MAX_RESP], want[SDRC_MAX_RESP], d[4];
	unsigned int ng, nw, before, fwd_count = 0;
	bool fwd;

	d[0] = 0;
	ng = ask(&owner_a, 0x0a, 0x10, d, 1, got, &fwd);
	nw = model_answer(0x0a, 0x10, d, 1, want);
	ck_assert(!fwd);
	ck_assert_uint_eq(ng, nw);
	ck_assert_mem_eq(got, want, nw);
	before = bmc.nreq;
	for (unsigned int off = 0; off < 260; off++)
		for (unsigned int cnt = 0; cnt < 256; cnt++) {
			d[0] = 0;
			d[1] = (uint8_t)off;
			d[2] = (uint8_t)(off >> 8);
			d[3] = (uint8_t)cnt;
			ng = ask(&owner_a, 0x0a, 0x11, d, 4, got, &fwd);
			nw = model_answer(0x0a, 0x11, d, 4, want);
			ck_assert_msg(ng == nw && memcmp(got, want, nw) == 0,
				      "off %u cnt %u: cc %02x vs %02x", off,
				      cnt, got[0], want[0]);
			fwd_count += fwd;
		}
	ck_assert_uint_eq(fwd_count, 0);
	ck_assert_uint_eq(bmc.nreq, before);
	/* an absent FRU: its info answer from memory, reads forwarded */
	d[0] = 3;
	ng = ask(&owner_a, 0x0a, 0x10, d, 1, got, &fwd);
	ck_assert_uint_eq(ng, 1);
	ck_assert_uint_eq(got[0], 0xcc);
	ng = ask(&owner_a, 0x0a, 0x10, d, 1, got, &fwd);
	ck_assert(!fwd);
	ck_assert_uint_eq(got[0], 0xcc);
	/* a write drops it */
	d[0] = 0;
	ask(&owner_b, 0x0a, 0x12, d, 4, got, &fwd);
	ck_assert(fwd);
	bmc.fru[10] = 0xee;
	d[1] = 10;
	d[2] = 0;
	d[3] = 1;
	ask(&owner_a, 0x0a, 0x11, d, 4, got, &fwd);
	ck_assert(!fwd);
	ck_assert_uint_eq(got[0], 0);
	ck_assert_uint_eq(got[2], 0xee);
}
END_TEST

/* The interface failing under the fill: parked requests go to the BMC,
 * nothing half-learned is answered. */
START_TEST(fill_fails)
{
	uint8_t got[SDRC_MAX_RESP];
	struct sdrc_req r;
	enum sdrc_verdict v;
	unsigned int n = 0;
	uint8_t d[6] = { 0, 0, 0, 0, 0, 5 };

	v = cache_request(c, &owner_a, 0x0a, 0, 0x23, d, 6, now, got,
			  SDRC_MAX_RESP, &n);
	ck_assert_int_eq(v, SDRC_PARK);
	ck_assert(sdrc_next_request(c, now, &r));
	ck_assert(!sdrc_next_request(c, now, &r)); /* one at a time */
	sdrc_answer(c, 0,
		    (const uint8_t[15]){ 0, 0x51, 6, 0, 0, 0x10, 1, 0, 0, 0, 0,
					 0, 0, 0, 0x22 },
		    15, now);
	ck_assert(sdrc_next_request(c, now, &r)); /* reserve */
	sdrc_answer(c, 0, (const uint8_t[3]){ 0, 1, 0 }, 3, now);
	ck_assert(sdrc_next_request(c, now, &r)); /* first read */
	ck_assert_uint_eq(r.cmd, 0x23);
	sdrc_answer(c, -5, NULL, 0, now); /* hosed */
	v = cache_request(c, &owner_a, 0x0a, 0, 0x23, d, 6, now, got,
			  SDRC_MAX_RESP, &n);
	ck_assert_int_eq(v, SDRC_FORWARD);
	ck_assert_str_eq(sdrc_state_name(c), "failed");
	/* tried again later */
	now += 31000;
	v = cache_request(c, &owner_a, 0x0a, 0, 0x23, d, 6, now, got,
			  SDRC_MAX_RESP, &n);
	ck_assert_int_eq(v, SDRC_PARK);
}
END_TEST

/* The fill's reservation cancelled at the BMC midway (another client, or
 * a client of a node without the cache, reserved): it reserves again and
 * goes on with the read that met 0xc5. */
START_TEST(fill_reservation_lost)
{
	uint8_t got[SDRC_MAX_RESP], want[SDRC_MAX_RESP];
	unsigned int ng, nw;
	bool fwd;

	bmc.steal_at = 5;
	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd);
	ck_assert(!fwd);
	ck_assert_str_eq(sdrc_state_name(c), "valid");
	ck_assert_uint_eq(sdrc_records(c), bmc.nrec);
	ck_assert_uint_eq(bmc.nres, 2);
	for (unsigned int i = 0; i < bmc.nrec; i++) {
		uint8_t d[6] = { 0, 0, (uint8_t)bmc.id[i], 0, 0, 0xff };

		ng = get_sdr(&owner_a, 0, bmc.id[i], 0, 0xff, got, &fwd);
		nw = model_answer(0x0a, 0x23, d, 6, want);
		ck_assert(!fwd);
		ck_assert_uint_eq(ng, nw);
		ck_assert_mem_eq(got, want, nw);
	}
}
END_TEST

/* Randomized: reads of every kind mixed with writes through other owners,
 * changes at the BMC (seen after the revalidation interval), resets and
 * Reserves; every answer from memory must be the model's answer at that
 * moment. Several seeds, a few thousand steps each. */
START_TEST(randomized)
{
	uint8_t got[SDRC_MAX_RESP], want[SDRC_MAX_RESP], d[10];
	unsigned int ng, nw, from_memory = 0, seed = 0x5eed0000u + (unsigned)_i;
	bool fwd;

	for (int step = 0; step < 4000; step++) {
		unsigned int r, op;

		seed = seed * 1103515245u + 12345u;
		r = seed >> 8;
		op = r % 100;
		now += r % 3;
		if (op < 55) { /* Get SDR, reservation 0 */
			unsigned int k = (r >> 8) % (bmc.nrec + 3);
			uint16_t id = k < bmc.nrec	? bmc.id[k] :
				      k == bmc.nrec	? 0 :
				      k == bmc.nrec + 1 ? 0xffff :
							  0x55;
			uint8_t dd[6] = { 0,
					  0,
					  (uint8_t)id,
					  (uint8_t)(id >> 8),
					  (uint8_t)((r >> 12) % 72),
					  (uint8_t)(r >> 20) };

			ng = get_sdr(&owner_a, 0, id, dd[4], dd[5], got, &fwd);
			nw = model_answer(0x0a, 0x23, dd, 6, want);
		} else if (op < 65) { /* Repository Info */
			ng = ask(&owner_a, 0x0a, 0x20, NULL, 0, got, &fwd);
			nw = model_answer(0x0a, 0x20, NULL, 0, want);
		} else if (op < 80) { /* FRU */
			d[0] = (uint8_t)((r >> 8) % 2);
			d[1] = (uint8_t)(r >> 10);
			d[2] = (uint8_t)((r >> 18) % 2);
			d[3] = (uint8_t)(r >> 20);
			ng = ask(&owner_a, 0x0a, 0x11, d, 4, got, &fwd);
			nw = model_answer(0x0a, 0x11, d, 4, want);
		} else if (op < 85) { /* Add through another node */
			uint8_t add[10] = { 0, 0, 0x51, 0xc0,	   4,
					    1, 2, 3,	(uint8_t)r };

			if (bmc.nrec < NREC_MAX - 1)
				ask(&owner_b, 0x0a, 0x24, add, 9, got, &fwd);
			continue;
		} else if (op < 89) { /* Delete through another */
			uint8_t del[4] = { 0, 0, (uint8_t)bmc.id[0],
					   (uint8_t)(bmc.id[0] >> 8) };

			if (bmc.nrec > 2)
				ask(&owner_b, 0x0a, 0x26, del, 4, got, &fwd);
			continue;
		} else if (op < 92) { /* the BMC changes by itself */
			if (bmc.nrec < NREC_MAX - 1)
				model_add(bmc.next_id++, (r >> 8) % 30);
			now += 1001; /* seen after the interval */
			continue;
		} else if (op < 94) { /* FRU written through B */
			d[0] = 0;
			d[1] = (uint8_t)(r >> 8);
			d[2] = 0;
			d[3] = (uint8_t)(r >> 16);
			ask(&owner_b, 0x0a, 0x12, d, 4, got, &fwd);
			bmc.fru[d[1]] = d[3];
			continue;
		} else if (op < 96) { /* a BMC reset */
			cache_observe(c, &owner_b, 0x06, 0, 0x02, NULL, 0, 0,
				      got, 1, now);
			continue;
		} else {
			reserve(op % 2 ? &owner_a : &owner_b);
			continue;
		}
		from_memory += !fwd;
		ck_assert_msg(ng == nw && memcmp(got, want, nw) == 0,
			      "seed %u step %d op %u: %u bytes cc %02x, BMC "
			      "%u bytes cc %02x",
			      (unsigned)_i, step, op, ng, got[0], nw, want[0]);
	}
	ck_assert_uint_gt(from_memory, 1000);
}
END_TEST

/* Two changes at the BMC within one second leave the timestamps as they
 * were; the record count still tells. */
START_TEST(same_second_change)
{
	uint8_t got[SDRC_MAX_RESP];
	bool fwd;

	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd);
	bmc.frozen_ts = true;
	model_add(0x99, 3);
	now += 1001;
	get_sdr(&owner_a, 0, 0x99, 0, 5, got, &fwd);
	ck_assert(!fwd);
	ck_assert_uint_eq(got[0], 0);
	ck_assert_uint_eq(sdrc_stats(c)->fills, 2);
}
END_TEST

/* The BMC's device SDRs (netfn 04, LUN 0): every record, offset, count as
 * the model answers, after one fill, and apart from the main repository
 * (dropping one leaves the other). */
START_TEST(device_sdrs)
{
	uint8_t got[SDRC_MAX_RESP], want[SDRC_MAX_RESP];
	unsigned int ng, nw, before, fwd_count = 0;
	uint16_t ids[8];
	unsigned int nid = 0;
	bool fwd;

	for (unsigned int i = 0; i < bmc.ndev; i++)
		ids[nid++] = bmc.dev_id[i];
	ids[nid++] = 0;
	ids[nid++] = 0xffff;
	ids[nid++] = 0x33;
	{
		uint8_t d[6] = { 0, 0, 0, 0, 0, 5 };

		ask(&owner_a, 0x04, 0x21, d, 6, got, &fwd);
		ck_assert(!fwd);
	}
	ck_assert_str_eq(sdrc_device_state_name(c), "valid");
	ck_assert_uint_eq(sdrc_device_records(c), bmc.ndev);
	ck_assert_str_eq(sdrc_state_name(c), "empty"); /* not asked */
	before = bmc.nreq;
	for (unsigned int k = 0; k < nid; k++)
		for (unsigned int off = 0; off < 60; off++)
			for (unsigned int cnt = 0; cnt < 256; cnt += 3) {
				/* any reservation: static, none checked */
				uint8_t d[6] = { (uint8_t)(off * 7),
						 0,
						 (uint8_t)ids[k],
						 (uint8_t)(ids[k] >> 8),
						 (uint8_t)off,
						 (uint8_t)cnt };

				ng = ask(&owner_a, 0x04, 0x21, d, 6, got, &fwd);
				nw = model_answer(0x04, 0x21, d, 6, want);
				ck_assert_msg(
					ng == nw && memcmp(got, want, nw) == 0,
					"dev id %u off %u cnt %u: cc %02x "
					"vs %02x",
					ids[k], off, cnt, got[0], want[0]);
				fwd_count += fwd;
			}
	ck_assert_uint_eq(fwd_count, 0);
	ck_assert_uint_le(bmc.nreq, before + 60); /* revalidations */
	/* the main repository fills on its own; a write drops both */
	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd);
	ck_assert_str_eq(sdrc_state_name(c), "valid");
	ck_assert_str_eq(sdrc_device_state_name(c), "valid");
	cache_observe(c, NULL, 0x06, 0, 0x03, NULL, 0, 0, got, 1, now);
	ck_assert_str_eq(sdrc_device_state_name(c), "empty");
	ck_assert_str_eq(sdrc_state_name(c), "empty");
}
END_TEST

/* a write the BMC refused changed nothing and cancelled no
 * reservation there; the cache must not cancel A's either. */
START_TEST(failed_write_keeps_reservations)
{
	uint8_t got[SDRC_MAX_RESP], want[SDRC_MAX_RESP];
	uint8_t add[3] = { 0, 0, 0x51 }; /* too short: cc c7 */
	uint16_t ra;
	unsigned int ng, nw;
	bool fwd;

	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd); /* the fill, first */
	ra = reserve(&owner_a);
	uint8_t d[6] = { (uint8_t)ra, (uint8_t)(ra >> 8), 2, 0, 5, 8 };
	get_sdr(&owner_a, ra, 2, 5, 8, got, &fwd);
	ck_assert_uint_eq(got[0], 0);
	/* B's Add SDR, refused by the BMC (no Reserve involved) */
	nw = model_answer(0x0a, 0x23, d, 6, want); /* BMC without cache */
	cache_observe(c, &owner_b, 0x0a, 0, 0x24, add, 3, 0,
		      (const uint8_t[1]){ 0xc7 }, 1, now);
	ng = get_sdr(&owner_a, ra, 2, 5, 8, got, &fwd);
	ck_assert_uint_eq(want[0], 0); /* the BMC: still A's */
	ck_assert_msg(ng == nw && got[0] == want[0],
		      "cache cc %02x, BMC cc %02x", got[0], want[0]);
}
END_TEST

/* a reset sent with netfn byte 0x46 is app 06:02 at the BMC. */
START_TEST(netfn_high_bits_reset)
{
	uint8_t got[SDRC_MAX_RESP];
	bool fwd;

	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd);
	ck_assert_str_eq(sdrc_state_name(c), "valid");
	cache_observe(c, &owner_b, 0x46, 0, 0x02, NULL, 0, 0, got, 1, now);
	ck_assert_str_eq(sdrc_state_name(c), "empty");
}
END_TEST

/* Only LUN 0 is answered from memory: another LUN is the BMC's. */
START_TEST(other_lun_forwarded)
{
	uint8_t got[SDRC_MAX_RESP], d[6] = { 0, 0, 0, 0, 0, 5 };
	unsigned int n = 0;
	bool fwd;

	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd);
	ck_assert(!fwd);
	ck_assert_int_eq(cache_request(c, &owner_a, 0x0a, 0, 0x23, d, 6, now,
				       got, SDRC_MAX_RESP, &n),
			 SDRC_ANSWERED);
	ck_assert_int_eq(cache_request(c, &owner_a, 0x0a, 1, 0x23, d, 6, now,
				       got, SDRC_MAX_RESP, &n),
			 SDRC_FORWARD);
	ck_assert_int_eq(cache_request(c, &owner_a, 0x0a, 3, 0x20, NULL, 0, now,
				       got, SDRC_MAX_RESP, &n),
			 SDRC_FORWARD);
}
END_TEST

/* Two writes within one second leave the BMC's timestamps (1 s) as they
 * were on a correct BMC: the cache stays on; a later, spaced write that
 * leaves them still turns it off. */
START_TEST(two_writes_one_second)
{
	uint8_t got[SDRC_MAX_RESP];
	uint8_t add[10] = { 0, 0, 0x51, 1, 4, 1, 2, 3, 4 };
	bool fwd;

	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd);
	ask(&owner_b, 0x0a, 0x24, add, 9, got, &fwd);
	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd); /* refilled */
	ck_assert_str_eq(sdrc_state_name(c), "valid");
	bmc.frozen_ts = true; /* same second as the last write */
	ask(&owner_b, 0x0a, 0x24, add, 9, got, &fwd);
	bmc.frozen_ts = false;
	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd);
	ck_assert_str_eq(sdrc_state_name(c), "valid");
	/* but a write seconds after the last that leaves them is judged */
	now += 2500;
	bmc.frozen_ts = true;
	add[0] = 0;
	ask(&owner_b, 0x0a, 0x24, add, 9, got, &fwd);
	ck_assert_uint_eq(got[0], 0);
	get_sdr(&owner_a, 0, 0, 0, 5, got, &fwd);
	ck_assert_str_eq(sdrc_state_name(c), "off");
}
END_TEST

/* ---- Get Device SDR Info (04:20, LUN 0), per request form ---- */

/* The forms: no data, one byte 00 (sensor count), 01 (SDR count), 02
 * (a reserved bit), and a two-byte request (never answered here). */
static const struct {
	unsigned int len;
	uint8_t d[2];
} dforms[] = { { 0, { 0 } },
	       { 1, { 0 } },
	       { 1, { 1 } },
	       { 1, { 2 } },
	       { 2, { 1, 0 } } };
#define NDFORMS (sizeof(dforms) / sizeof(dforms[0]))

/* Asks form K of 04:20; checks the answer against the model's. */
static bool dev_info_form(const void *owner, unsigned int k)
{
	uint8_t got[SDRC_MAX_RESP], want[SDRC_MAX_RESP];
	unsigned int ng, nw;
	bool fwd;

	ng = ask(owner, 0x04, 0x20, dforms[k].d, dforms[k].len, got, &fwd);
	nw = model_answer(0x04, 0x20, dforms[k].d, dforms[k].len, want);
	ck_assert_msg(ng == nw && memcmp(got, want, nw) == 0,
		      "form %u: %u bytes cc %02x count %02x, BMC %u bytes cc "
		      "%02x count %02x",
		      k, ng, got[0], ng > 1 ? got[1] : 0, nw, want[0],
		      nw > 1 ? want[1] : 0);
	return fwd;
}

static void fill_device_sdrs(void)
{
	uint8_t got[SDRC_MAX_RESP], d[6] = { 0, 0, 0, 0, 0, 5 };
	bool fwd;

	ask(&owner_a, 0x04, 0x21, d, 6, got, &fwd);
	ck_assert(!fwd);
	ck_assert_str_eq(sdrc_device_state_name(c), "valid");
}

/* Each form answered as the model answers it (loop: 0 ipmi_sim, which
 * ignores the data byte; 1 a form-aware BMC that also sends two bytes
 * past the spec's three): no data from the fill's own request at once,
 * the others once the BMC answered them; an error answer and a longer
 * request always go to the BMC. Hits and misses counted. */
START_TEST(dev_info_forms)
{
	unsigned int before, hits, misses;
	bool fwd;

	bmc.dev_form_aware = _i == 1;
	bmc.dev_extra = _i == 1 ? 2 : 0;
	fill_device_sdrs();
	before = bmc.ndevinfo;
	hits = sdrc_stats(c)->hits;
	misses = sdrc_stats(c)->misses;
	ck_assert(!dev_info_form(&owner_a, 0)); /* taught by the fill */
	for (unsigned int k = 1; k < NDFORMS; k++)
		ck_assert(dev_info_form(&owner_b, k)); /* not seen yet */
	ck_assert_uint_eq(bmc.ndevinfo, before + NDFORMS - 1);
	ck_assert_uint_eq(sdrc_stats(c)->hits, hits + 1);
	ck_assert_uint_eq(sdrc_stats(c)->misses, misses + NDFORMS - 1);
	/* the second time: what the BMC answered with cc 0, from memory */
	before = bmc.ndevinfo;
	for (unsigned int k = 0; k < NDFORMS; k++) {
		fwd = dev_info_form(&owner_a, k);
		if (k == NDFORMS - 1 || (k == 3 && _i == 1))
			ck_assert_msg(fwd, "form %u answered from memory", k);
		else
			ck_assert_msg(!fwd, "form %u forwarded", k);
	}
	ck_assert_uint_eq(bmc.ndevinfo, before + (_i == 1 ? 2 : 1));
	/* another LUN's is the BMC's */
	{
		uint8_t got[SDRC_MAX_RESP];
		unsigned int n = 0;

		ck_assert_int_eq(cache_request(c, &owner_a, 0x04, 1, 0x20, NULL,
					       0, now, got, SDRC_MAX_RESP, &n),
				 SDRC_FORWARD);
	}
}
END_TEST

/* An answer seen before the device copy is valid is not kept; the copy's
 * fill does not start for a Get Device SDR Info. */
START_TEST(dev_info_not_before_valid)
{
	bmc.dev_form_aware = true;
	ck_assert(dev_info_form(&owner_a, 0));
	ck_assert(dev_info_form(&owner_a, 2));
	ck_assert_str_eq(sdrc_device_state_name(c), "empty");
	fill_device_sdrs();
	ck_assert(dev_info_form(&owner_a, 2)); /* seen while empty */
	ck_assert(!dev_info_form(&owner_a, 2));
	ck_assert(!dev_info_form(&owner_a, 0));
}
END_TEST

/* A change of the device population: answered from the old copy while
 * it is fresh (as every cached read), seen by the revalidation after
 * revalidate_ms, which drops every form; the new answers after that. */
START_TEST(dev_info_population_change)
{
	unsigned int fills;

	bmc.dev_form_aware = true;
	bmc.dev_extra = 4;
	fill_device_sdrs();
	for (unsigned int k = 0; k < 3; k++)
		dev_info_form(&owner_a, k);
	for (unsigned int k = 0; k < 3; k++)
		ck_assert(!dev_info_form(&owner_a, k));
	fills = sdrc_stats(c)->fills;
	bmc.dev_sensors = 9; /* one sensor more, one SDR more */
	bmc.ndev = 4;
	bmc.dev_id[3] = 0x103;
	bmc.dev_len[3] = 9;
	now += 1001;
	/* revalidated first: changed, so dropped and filled again (the
	 * new no-data answer comes with the fill) */
	dev_info_form(&owner_a, 0);
	ck_assert_uint_eq(sdrc_stats(c)->fills, fills + 1); /* refilled */
	ck_assert_uint_eq(sdrc_device_records(c), 4);
	ck_assert(dev_info_form(&owner_a, 1)); /* dropped with the copy */
	ck_assert(dev_info_form(&owner_a, 2));
	for (unsigned int k = 0; k < 3; k++)
		ck_assert(!dev_info_form(&owner_a, k));
	/* an unchanged revalidation keeps them */
	now += 1001;
	for (unsigned int k = 0; k < 3; k++)
		ck_assert(!dev_info_form(&owner_a, k));
}
END_TEST

/* Dropped with the device copy: a reset, an SDR write (a Send Message
 * through the request path: unit.test_client test_bridged_seen_by_cache). */
START_TEST(dev_info_dropped)
{
	static const struct {
		uint8_t netfn, cmd, len;
		uint8_t d[10];
	} drops[] = {
		{ 0x06, 0x02, 0, { 0 } },
		{ 0x0a, 0x24, 9, { 0, 0, 0x51, 1, 4, 1, 2, 3, 4 } },
		{ 0x06, 0x03, 0, { 0 } },
	};
	uint8_t got[SDRC_MAX_RESP] = { 0 };

	bmc.dev_form_aware = true;
	for (unsigned int i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
		fill_device_sdrs();
		ck_assert(dev_info_form(&owner_a, 2) == (i == 0));
		ck_assert(!dev_info_form(&owner_a, 2));
		ck_assert(!dev_info_form(&owner_a, 0));
		cache_observe(c, &owner_b, drops[i].netfn, 0, drops[i].cmd,
			      drops[i].d, drops[i].len, 0, got, 1, now);
		ck_assert_str_eq(sdrc_device_state_name(c), "empty");
		ck_assert_msg(dev_info_form(&owner_a, 0), "drop %u", i);
		fill_device_sdrs();
		ck_assert_msg(dev_info_form(&owner_a, 2), "drop %u", i);
	}
}
END_TEST

/* Another node's Get Device SDR Info whose answer differs from the one
 * that validated the copy (the BMC changed): not kept, and the copy is
 * revalidated before the next answer from memory. */
START_TEST(dev_info_disagrees)
{
	uint8_t want[SDRC_MAX_RESP];
	unsigned int nw, fills;

	fill_device_sdrs();
	ck_assert(!dev_info_form(&owner_a, 0));
	fills = sdrc_stats(c)->fills;
	bmc.dev_sensors = 8;
	nw = model_send(0x04, 0x20, NULL, 0, want);
	cache_observe(c, &owner_b, 0x04, 0, 0x20, NULL, 0, 0, want, nw, now);
	dev_info_form(&owner_a, 0); /* revalidated, dropped, refilled */
	ck_assert_uint_eq(sdrc_stats(c)->fills, fills + 1);
	ck_assert(!dev_info_form(&owner_a, 0));
}
END_TEST

/* Random Get Device SDR Info forms and device SDR reads, from two owners,
 * with the population changing (each change followed by more than the
 * revalidation interval, as the cache's contract has it), resets and SDR
 * writes: every answer as the model's. Loop: bit 0 a form-aware BMC, bit
 * 1 one that sends bytes past the spec's. */
START_TEST(dev_info_randomized)
{
	uint8_t got[SDRC_MAX_RESP], want[SDRC_MAX_RESP];
	unsigned int ng, nw, from_memory = 0, seed = 0xde40000u + (unsigned)_i;
	bool fwd;

	bmc.dev_form_aware = _i & 1;
	bmc.dev_extra = _i & 2 ? 3 : 0;
	for (int step = 0; step < 3000; step++) {
		unsigned int r, op, k;

		seed = seed * 1103515245u + 12345u;
		r = seed >> 8;
		op = r % 100;
		now += r % 3;
		if (op < 50) { /* 04:20, a form, from A or B */
			k = (r >> 8) % NDFORMS;
			ng = ask(op % 2 ? &owner_a : &owner_b, 0x04, 0x20,
				 dforms[k].d, dforms[k].len, got, &fwd);
			nw = model_answer(0x04, 0x20, dforms[k].d,
					  dforms[k].len, want);
		} else if (op < 75) { /* 04:21 */
			k = (r >> 8) % (bmc.ndev + 1);
			uint16_t id = k < bmc.ndev ? bmc.dev_id[k] : 0xffff;
			uint8_t dd[6] = { 0,
					  0,
					  (uint8_t)id,
					  (uint8_t)(id >> 8),
					  (uint8_t)((r >> 12) % 50),
					  (uint8_t)(r >> 20) };

			ng = ask(&owner_a, 0x04, 0x21, dd, 6, got, &fwd);
			nw = model_answer(0x04, 0x21, dd, 6, want);
		} else if (op < 85) { /* the population changes */
			bmc.dev_sensors++;
			now += 1001;
			continue;
		} else if (op < 90) {
			cache_observe(c, &owner_b, 0x06, 0, 0x03, NULL, 0, 0,
				      got, 1, now);
			continue;
		} else if (op < 94) {
			uint8_t add[10] = { 0, 0, 0x51, 0xc0,	   4,
					    1, 2, 3,	(uint8_t)r };

			if (bmc.nrec < NREC_MAX - 1)
				ask(&owner_b, 0x0a, 0x24, add, 9, got, &fwd);
			continue;
		} else {
			now += 600;
			continue;
		}
		from_memory += !fwd;
		ck_assert_msg(ng == nw && memcmp(got, want, nw) == 0,
			      "loop %u step %d op %u: %u bytes cc %02x, BMC "
			      "%u bytes cc %02x",
			      (unsigned)_i, step, op, ng, got[0], nw, want[0]);
	}
	ck_assert_uint_gt(from_memory, 1000);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sdrcache");
	TCase *t = tcase_create("core");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, every_record_offset_count);
	tcase_add_test(t, info_and_malformed);
	tcase_add_test(t, long_records);
	tcase_add_test(t, reservation_rules);
	tcase_add_test(t, lockstep);
	tcase_add_test(t, invalidation);
	tcase_add_test(t, untrusted_timestamps);
	tcase_add_test(t, trusted_after_write);
	tcase_add_test(t, fru_every_offset_count);
	tcase_add_test(t, fill_fails);
	tcase_add_test(t, fill_reservation_lost);
	tcase_add_test(t, same_second_change);
	tcase_add_test(t, device_sdrs);
	tcase_add_test(t, failed_write_keeps_reservations);
	tcase_add_test(t, netfn_high_bits_reset);
	tcase_add_test(t, other_lun_forwarded);
	tcase_add_test(t, two_writes_one_second);
	tcase_add_loop_test(t, dev_info_forms, 0, 2);
	tcase_add_test(t, dev_info_not_before_valid);
	tcase_add_test(t, dev_info_population_change);
	tcase_add_test(t, dev_info_dropped);
	tcase_add_test(t, dev_info_disagrees);
	tcase_add_loop_test(t, dev_info_randomized, 0, 4);
	tcase_add_loop_test(t, randomized, 0, 8);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
