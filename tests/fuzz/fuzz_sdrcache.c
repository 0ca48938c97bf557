// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the SDR/FRU cache, fused/core/sdrcache.c, driven
 * from both sides the way core/sdrglue.c drives it.
 *
 * The BMC: a model that answers SDR, device SDR and FRU commands as
 * ipmi_sim does (record 0 first and 0xffff last, cc 0xcb for an unknown
 * id, 0xc9 at or past a record's end, counts cut at the end, 0xca / 0xc8
 * for an answer longer than it carries, reservations, timestamps moved by
 * every write), its records of 5-255 bytes, the most it carries (cc +
 * data, 16-270 bytes: KCS allows 272 with netfn and cmd), its FRU size,
 * device SDRs and whether its timestamps move, all from the input. Or,
 * once the input says so, no model: the cache's own requests are answered
 * with the next input bytes (any length 0-270, any cc, or an interface
 * error).
 *
 * The clients: two owners sending every form the cache answers (Get SDR
 * Repository Info, Reserve, Get SDR with any id, offset, count and
 * reservation, Get Device SDR Info with and without its data byte, Get
 * Device SDR on any LUN, Get FRU Inventory Area Info, Read FRU Data),
 * writes the cache must see (Add and Delete SDR, Cold Reset), malformed
 * requests, time passing; each with an answer buffer of the input's size.
 *
 * Checks (a trap when one fails, besides ASan/UBSan on a heap buffer of
 * exactly the given size): no answer longer than the buffer; every answer
 * given from memory while the model answers the cache is the model's
 * answer byte for byte (a reservation the model has since given to
 * another owner aside: the cache keeps each owner's own); no request
 * parks forever.
 * Seeds: tests/fuzz/corpus/sdrcache/, dictionary: tests/fuzz/sdrcache.dict.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sdrcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                          \
	do {                              \
		if (!(c))                 \
			__builtin_trap(); \
	} while (0)

#define NREC_MAX 12
#define NDEV_MAX 3
#define FRU_MAX	 1024
#define OPS_MAX	 400
/* the longest answer KCS carries, cc + data (272 with netfn and cmd): the
 * model's limit and the glue's buffer, whatever the cache's header says */
#define ANSWER_MAX (272 - 2)

struct src {
	const uint8_t *p;
	size_t n, pos;
};

static uint8_t byte(struct src *s)
{
	return s->pos < s->n ? s->p[s->pos++] : 0;
}

static bool more(const struct src *s)
{
	return s->pos < s->n;
}

struct model {
	unsigned int nrec;
	uint16_t id[NREC_MAX];
	uint8_t len[NREC_MAX];
	uint8_t data[NREC_MAX][255];
	unsigned int ndev;
	uint16_t dev_id[NDEV_MAX];
	uint8_t dev_len[NDEV_MAX];
	uint8_t dev_data[NDEV_MAX][255];
	uint8_t dev_sensors;
	uint16_t res, next_id;
	uint32_t add_ts, erase_ts, clock;
	bool frozen_ts;
	unsigned int cap; /* cc + data it carries */
	uint8_t fru[FRU_MAX];
	unsigned int fru_size;
};

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

static void fill_record(uint8_t *d, unsigned int id, unsigned int len,
			uint8_t seed)
{
	put16(d, id);
	d[2] = 0x51;
	d[3] = (uint8_t)(seed | 1);
	d[4] = (uint8_t)(len - 5);
	for (unsigned int b = 5; b < len; b++)
		d[b] = (uint8_t)(seed * 31 + b * 7);
}

static void model_add(struct model *m, unsigned int len, uint8_t seed)
{
	unsigned int i;

	if (m->nrec >= NREC_MAX)
		return;
	i = m->nrec++;
	m->id[i] = m->next_id++;
	m->len[i] = (uint8_t)len;
	fill_record(m->data[i], m->id[i], len, seed);
	if (!m->frozen_ts)
		m->add_ts = ++m->clock;
}

static int model_find(const struct model *m, unsigned int id)
{
	if (!m->nrec)
		return -1;
	if (id == 0)
		return 0;
	if (id == 0xffff)
		return (int)m->nrec - 1;
	for (unsigned int i = 0; i < m->nrec; i++)
		if (m->id[i] == id)
			return (int)i;
	return -1;
}

/* A read of a record: cc 0xc9 / count cut / TOO_LONG past the cap. */
static unsigned int model_read(const struct model *m, const uint8_t *rec,
			       unsigned int rlen, unsigned int next,
			       const uint8_t *d, uint8_t too_long,
			       uint8_t *resp)
{
	unsigned int off = d[4], cnt = d[5];

	if (off >= rlen) {
		resp[0] = 0xc9;
		return 1;
	}
	if (off + cnt > rlen)
		cnt = rlen - off;
	if (cnt + 3 > m->cap) {
		resp[0] = too_long;
		return 1;
	}
	resp[0] = 0;
	put16(resp + 1, next);
	memcpy(resp + 3, rec + off, cnt);
	return 3 + cnt;
}

/* What the model answers (resp = cc + data, room for ANSWER_MAX). */
static unsigned int model_answer(struct model *m, uint8_t netfn, uint8_t lun,
				 uint8_t cmd, const uint8_t *d,
				 unsigned int len, uint8_t *resp)
{
	unsigned int off, cnt;
	int i;

	resp[0] = 0;
	if (lun != 0) {
		resp[0] = 0xc1;
		return 1;
	}
	if (netfn == 0x06 && cmd == 0x02) { /* cold reset */
		return 1;
	}
	if (netfn == 0x04 && cmd == 0x20) {
		resp[1] = m->dev_sensors;
		resp[2] = 0x01;
		return 3;
	}
	if (netfn == 0x04 && cmd == 0x21) {
		if (len < 6) {
			resp[0] = 0xc7;
			return 1;
		}
		i = -1;
		for (unsigned int k = 0; k < m->ndev; k++)
			if ((d[2] | d[3] << 8) == m->dev_id[k] ||
			    ((d[2] | d[3] << 8) == 0 && k == 0) ||
			    ((d[2] | d[3] << 8) == 0xffff && k + 1 == m->ndev))
				i = (int)k;
		if (i < 0) {
			resp[0] = 0xcb;
			return 1;
		}
		return model_read(m, m->dev_data[i], m->dev_len[i],
				  (unsigned int)i + 1 < m->ndev ?
					  m->dev_id[i + 1] :
					  0xffff,
				  d, 0xc8, resp);
	}
	if (netfn != 0x0a) {
		resp[0] = 0xc1;
		return 1;
	}
	switch (cmd) {
	case 0x20:
		resp[1] = 0x51;
		put16(resp + 2, m->nrec);
		put16(resp + 4, 0x1000);
		put32(resp + 6, m->add_ts);
		put32(resp + 10, m->erase_ts);
		resp[14] = 0x02 | 0x20;
		return 15;
	case 0x22:
		if (++m->res == 0)
			m->res++;
		put16(resp + 1, m->res);
		return 3;
	case 0x23:
		if (len < 6) {
			resp[0] = 0xc7;
			return 1;
		}
		if ((d[0] | d[1] << 8) != 0 && (d[0] | d[1] << 8) != m->res) {
			resp[0] = 0xc5;
			return 1;
		}
		i = model_find(m, d[2] | d[3] << 8);
		if (i < 0) {
			resp[0] = 0xcb;
			return 1;
		}
		return model_read(m, m->data[i], m->len[i],
				  (unsigned int)i + 1 < m->nrec ? m->id[i + 1] :
								  0xffff,
				  d, 0xca, resp);
	case 0x24: /* Add SDR: a record of 5 + d[0] % 251 bytes */
		if (len < 1 || m->nrec >= NREC_MAX) {
			resp[0] = 0xc4;
			return 1;
		}
		model_add(m, 5 + d[0] % 251u, d[0]);
		put16(resp + 1, m->id[m->nrec - 1]);
		return 3;
	case 0x26:
		if (len < 4 || (i = model_find(m, d[2] | d[3] << 8)) < 0) {
			resp[0] = 0xcb;
			return 1;
		}
		put16(resp + 1, m->id[i]);
		for (unsigned int k = (unsigned int)i; k + 1 < m->nrec; k++) {
			m->id[k] = m->id[k + 1];
			m->len[k] = m->len[k + 1];
			memcpy(m->data[k], m->data[k + 1], sizeof(m->data[k]));
		}
		m->nrec--;
		if (!m->frozen_ts)
			m->erase_ts = ++m->clock;
		return 3;
	case 0x10:
		if (len < 1 || d[0] != 0) {
			resp[0] = 0xcc;
			return 1;
		}
		put16(resp + 1, m->fru_size);
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
		if (off >= m->fru_size) {
			resp[0] = 0xc9;
			return 1;
		}
		if (off + cnt > m->fru_size)
			cnt = m->fru_size - off;
		if (cnt + 2 > m->cap) {
			resp[0] = 0xc8;
			return 1;
		}
		resp[1] = (uint8_t)cnt;
		memcpy(resp + 2, m->fru + off, cnt);
		return 2 + cnt;
	default:
		resp[0] = 0xc1;
		return 1;
	}
}

struct run {
	struct src s;
	struct model m;
	struct sdrc *c;
	uint64_t now;
	bool chaos;  /* the cache's own requests answered from the input */
	bool honest; /* every answer so far was the model's */
	uint16_t res[2];
};

/* The cache's own requests, as the glue's pump and internal_done. */
static void pump(struct run *r)
{
	uint8_t resp[ANSWER_MAX];
	struct sdrc_req q;
	unsigned int n, guard = 0;

	while (sdrc_next_request(r->c, r->now, &q)) {
		CHECK(q.len <= SDRC_MAX_REQ);
		CHECK(++guard < 20000);
		if (r->chaos && more(&r->s)) {
			uint8_t k = byte(&r->s);

			r->honest = false;
			if (k == 0xff) {
				sdrc_answer(r->c, -5, NULL, 0, r->now);
				continue;
			}
			n = (unsigned int)byte(&r->s) % (ANSWER_MAX + 1);
			for (unsigned int i = 0; i < n; i++)
				resp[i] = byte(&r->s);
			if ((k & 3) == 3 && n > 0) /* cc 0, any data */
				resp[0] = 0;
			if (n == 0) { /* the glue's len < 3: -EIO */
				sdrc_answer(r->c, -5, NULL, 0, r->now);
				continue;
			}
			sdrc_answer(r->c, 0, resp, n, r->now);
			continue;
		}
		n = model_answer(&r->m, q.netfn, 0, q.cmd, q.data, q.len, resp);
		sdrc_answer(r->c, 0, resp, n, r->now);
	}
}

/* One client request: answered from memory (checked), or sent on and
 * observed. */
static void ask(struct run *r, unsigned int who, uint8_t netfn, uint8_t lun,
		uint8_t cmd, const uint8_t *d, unsigned int len,
		unsigned int size)
{
	uint8_t *resp = malloc(size), want[ANSWER_MAX];
	const void *owner = &r->res[who];
	unsigned int n = 0, nw, guard = 0;
	struct ipmi_request rq = {
		.addr = { .addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
			  .channel = IPMI_BMC_CHANNEL,
			  .lun = lun },
		.netfn = netfn,
		.cmd = cmd,
		.data = d,
		.len = (uint16_t)len,
	};
	enum sdrc_verdict v;

	CHECK(resp);
	while ((v = sdrc_request(r->c, owner, &rq, r->now, resp, size, &n)) ==
	       SDRC_PARK) {
		CHECK(++guard < 8);
		pump(r);
	}
	if (v == SDRC_ANSWERED) {
		CHECK(n >= 1 && n <= size);
		if (r->honest) {
			nw = model_answer(&r->m, netfn, lun, cmd, d, len, want);
			/* a reservation the model gave away since: the
			 * cache keeps the owner's own */
			bool res_moved = netfn == 0x0a && cmd == 0x23 &&
					 (d[0] | d[1] << 8) != 0 &&
					 (resp[0] == 0xc5 || want[0] == 0xc5);

			CHECK(res_moved || (n == nw && !memcmp(resp, want, n)));
		}
		free(resp);
		return;
	}
	free(resp);
	pump(r); /* a revalidation it asked for runs first */
	nw = model_answer(&r->m, netfn, lun, cmd, d, len, want);
	if (netfn == 0x0a && cmd == 0x22 && nw == 3)
		r->res[who] = (uint16_t)(want[1] | want[2] << 8);
	sdrc_observe(r->c, owner, &rq, 0, want, nw, r->now);
}

static unsigned int resp_size(struct src *s)
{
	uint8_t b = byte(s);

	return b < 0xc0 ? ANSWER_MAX : 1u + b % 64u * 5u % ANSWER_MAX;
}

static void setup(struct run *r)
{
	struct model *m = &r->m;
	uint8_t b;

	m->clock = 1000;
	m->next_id = 1;
	b = byte(&r->s);
	m->frozen_ts = (b & 0x80) != 0;
	m->cap = 16 + byte(&r->s);
	if (m->cap > ANSWER_MAX)
		m->cap = ANSWER_MAX;
	for (unsigned int i = 0, n = b % NREC_MAX; i < n; i++) {
		uint8_t l = byte(&r->s);

		model_add(m, l < 5 ? 5 + l : l, (uint8_t)(i * 17 + l));
	}
	m->ndev = byte(&r->s) % (NDEV_MAX + 1);
	for (unsigned int i = 0; i < m->ndev; i++) {
		uint8_t l = byte(&r->s);

		m->dev_id[i] = (uint16_t)(0x100 + i);
		m->dev_len[i] = l < 5 ? (uint8_t)(5 + l) : l;
		fill_record(m->dev_data[i], m->dev_id[i], m->dev_len[i],
			    (uint8_t)(l + 3));
	}
	m->dev_sensors = byte(&r->s);
	m->fru_size = byte(&r->s) * 4u;
	for (unsigned int i = 0; i < m->fru_size; i++)
		m->fru[i] = (uint8_t)(i * 13 + 5);
	r->now = 5000;
	r->honest = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run r;
	uint8_t d[16];
	unsigned int ops = 0;

	memset(&r, 0, sizeof(r));
	r.s.p = data;
	r.s.n = size;
	setup(&r);
	r.c = sdrc_new(1000);
	CHECK(r.c);
	while (more(&r.s) && ops++ < OPS_MAX) {
		uint8_t op = byte(&r.s), who = op >> 7, lun = 0;
		unsigned int sz = resp_size(&r.s), len = 0;
		uint8_t netfn = 0x0a, cmd = 0;

		if ((op & 0x60) == 0x60)
			lun = byte(&r.s) & 3;
		memset(d, 0, sizeof(d));
		switch (op % 16) {
		case 0:
			r.now += byte(&r.s) * 100u;
			continue;
		case 1:
			cmd = 0x20;
			break;
		case 2:
			cmd = 0x22;
			break;
		case 3: { /* Get SDR */
			uint8_t k = byte(&r.s);
			unsigned int id = k % (r.m.nrec + 3u);

			id = id < r.m.nrec	? r.m.id[id] :
			     id == r.m.nrec	? 0 :
			     id == r.m.nrec + 1 ? 0xffff :
						  0x7777;
			put16(d, k & 0x80 ? r.res[who] : 0);
			put16(d + 2, id);
			d[4] = byte(&r.s);
			d[5] = byte(&r.s);
			cmd = 0x23;
			len = 6;
			break;
		}
		case 4: /* Get Device SDR Info, both forms */
			netfn = 0x04;
			cmd = 0x20;
			len = byte(&r.s) & 1;
			d[0] = byte(&r.s);
			break;
		case 5: { /* Get Device SDR */
			uint8_t k = byte(&r.s);

			netfn = 0x04;
			cmd = 0x21;
			put16(d + 2, k % 4 == 3 ? 0xffff : 0x100 + k % 4);
			d[4] = byte(&r.s);
			d[5] = byte(&r.s);
			len = 6;
			break;
		}
		case 6:
			cmd = 0x10;
			d[0] = byte(&r.s) & 1;
			len = 1;
			break;
		case 7: { /* Read FRU Data */
			unsigned int off = byte(&r.s) * 5u;

			cmd = 0x11;
			d[0] = 0;
			put16(d + 1, off);
			d[3] = byte(&r.s);
			len = 4;
			break;
		}
		case 8:
			cmd = 0x24;
			d[0] = byte(&r.s);
			len = 1;
			break;
		case 9: {
			uint8_t k = byte(&r.s);

			cmd = 0x26;
			put16(d, r.res[who]);
			put16(d + 2, r.m.nrec ? r.m.id[k % r.m.nrec] : 0);
			len = 4;
			break;
		}
		case 10:
			netfn = 0x06;
			cmd = 0x02;
			break;
		case 11: /* malformed: any netfn, cmd, length */
			netfn = byte(&r.s) & 0x3f;
			cmd = byte(&r.s);
			len = byte(&r.s) % sizeof(d);
			for (unsigned int i = 0; i < len; i++)
				d[i] = byte(&r.s);
			break;
		case 12: /* from now on the input answers the cache */
			r.chaos = true;
			continue;
		default: /* mostly reads: the cache's business */
			cmd = 0x23;
			put16(d + 2, r.m.nrec ? r.m.id[op % r.m.nrec] : 0);
			d[4] = byte(&r.s);
			d[5] = 0xff;
			len = 6;
			break;
		}
		ask(&r, who, netfn, lun, cmd, d, len, sz);
	}
	sdrc_owner_gone(r.c, &r.res[0]);
	sdrc_free(r.c);
	return 0;
}
