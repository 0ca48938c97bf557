// SPDX-License-Identifier: GPL-2.0
/*
 * sdrcache_fill.c - the SDR/FRU cache's fill: the one internal request
 * at a time it sends the BMC (sdrc_next_request) and what each answer
 * does (sdrc_answer): Info, Reserve, every record piece by piece,
 * Info again to check, a revalidation; the BMC's read limit learnt by
 * probing; the FRU areas read alike. sdrcache.c has the design.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sdrcache.h"
#include "core/sdrcache_priv.h"

/* The next piece to ask for, LEFT bytes to go: half way between the
 * longest read answered (OK) and the shortest refused (BAD), so that the
 * fill also learns where the BMC's limit lies; everything if none was
 * refused yet. */
static unsigned int next_cnt(unsigned int ok, unsigned int bad,
			     unsigned int left)
{
	unsigned int n = bad ? (ok + bad) / 2 : left;

	if (n == 0)
		n = 1;
	return n < left ? n : left;
}

/* A probe that tells more about the limit: a count between OK and BAD,
 * on something at least that long (MAXLEN); 0 when there is none. */
static unsigned int probe_cnt(unsigned int ok, unsigned int bad,
			      unsigned int maxlen)
{
	unsigned int mid = (ok + bad) / 2;

	if (!bad || bad - ok <= 1 || mid <= ok || mid > maxlen || mid > 255)
		return 0;
	return mid;
}

static void fail(struct repo *p, uint64_t now_ms)
{
	sdrc_drop_records(p);
	p->st = M_FAILED;
	p->failed_ms = now_ms;
}

static void req_sdr_get(struct repo *p, struct sdrc_req *r)
{
	r->netfn = p->dev ? NETFN_SENSOR : NETFN_STORAGE;
	r->cmd = p->dev ? CMD_DEV_GET : CMD_SDR_GET;
	r->data[0] = (uint8_t)p->res;
	r->data[1] = (uint8_t)(p->res >> 8);
	r->data[2] = (uint8_t)p->cur_id;
	r->data[3] = (uint8_t)(p->cur_id >> 8);
	r->data[4] = (uint8_t)p->cur_off;
	r->data[5] = (uint8_t)p->cur_cnt;
	r->len = 6;
}

static void req_fru_read(struct sdrc *c, struct sdrc_req *r)
{
	struct fru *f = &c->fru[c->fru_cur];
	unsigned int at = c->job == J_FRU_PROBE ? 0 : f->have;

	c->fru_asked =
		c->job == J_FRU_PROBE ?
			probe_cnt(c->fru_ok, c->fru_bad, f->size) :
			next_cnt(c->fru_ok, c->fru_bad ? c->fru_bad : 129,
				 f->size - f->have);
	r->netfn = NETFN_STORAGE;
	r->cmd = CMD_FRU_READ;
	r->data[0] = (uint8_t)c->fru_cur;
	r->data[1] = (uint8_t)at;
	r->data[2] = (uint8_t)(at >> 8);
	r->data[3] = (uint8_t)c->fru_asked;
	r->len = 4;
}

bool sdrc_next_request(struct sdrc *c, uint64_t now_ms, struct sdrc_req *r)
{
	struct repo *p = NULL;
	unsigned int i;

	(void)now_ms;
	if (c->busy)
		return false;
	memset(r, 0, sizeof(*r));
	r->netfn = NETFN_STORAGE;
	for (i = 0; i < 2; i++)
		if (c->rp[i].st == M_FILLING)
			p = &c->rp[i];
	if (c->fru_cur >= 0 || p) {
		/* the fill under way: its next step is in c->job */
	} else {
		c->job = J_NONE;
		for (i = 0; i < 2 && c->job == J_NONE; i++) {
			p = &c->rp[i];
			if (p->st == M_EMPTY && p->want_fill) {
				p->want_fill = false;
				p->st = M_FILLING;
				p->attempts = 0;
				c->job = J_INFO;
			} else if (p->st == M_VALID && p->want_reval) {
				p->want_reval = false;
				c->job = J_REVAL;
			}
		}
		for (i = 0; i < 256 && c->job == J_NONE && c->rp[0].st != M_OFF;
		     i++) {
			if (c->fru[i].st != F_WANT)
				continue;
			c->fru[i].st = F_FILLING;
			c->fru_cur = (int)i;
			c->job = J_FRU_INFO;
		}
		if (c->job == J_NONE)
			return false;
		if (!sdrc_fru_job(c->job))
			c->jr = p->dev;
	}
	p = &c->rp[c->jr];
	switch (c->job) {
	case J_INFO:
	case J_CHECK:
	case J_REVAL:
		r->netfn = p->dev ? NETFN_SENSOR : NETFN_STORAGE;
		r->cmd = p->dev ? CMD_DEV_INFO : CMD_SDR_INFO;
		break;
	case J_RES:
		r->netfn = p->dev ? NETFN_SENSOR : NETFN_STORAGE;
		r->cmd = p->dev ? CMD_DEV_RESERVE : CMD_SDR_RESERVE;
		break;
	case J_READ:
	case J_PROBE:
		req_sdr_get(p, r);
		break;
	case J_FRU_INFO:
		r->cmd = CMD_FRU_INFO;
		r->data[0] = (uint8_t)c->fru_cur;
		r->len = 1;
		break;
	case J_FRU_READ:
	case J_FRU_PROBE:
		req_fru_read(c, r);
		break;
	case J_NONE:
		return false;
	}
	c->busy = true;
	c->out_gen = c->gen;
	c->stats.internal++;
	return true;
}

static bool same_ts(const uint8_t *a, const uint8_t *b)
{
	return memcmp(a + 6, b + 6, 8) == 0;
}

/* A record's first read: all of it if the BMC can carry it. Its length is
 * the BMC's, found where an answer comes back short (or cc 0xc9 past the
 * end): ipmi_sim's records can be longer than their header says. */
static void read_record(struct sdrc *c, struct repo *p, uint16_t id)
{
	p->cur_id = id;
	p->cur_off = 0;
	p->cur_total = 0;
	p->nrefused = 0;
	p->cur_cnt = p->sdr_bad && p->sdr_ok ? (uint16_t)p->sdr_ok : 0xff;
	c->job = J_READ;
}

static void fill_restart(struct sdrc *c, struct repo *p, uint64_t now_ms)
{
	sdrc_drop_records(p);
	if (++p->attempts >= MAX_ATTEMPTS) {
		fail(p, now_ms);
		return;
	}
	c->job = J_INFO;
}

static bool store_record(struct repo *p, uint16_t next)
{
	uint16_t id = p->cur_id ? p->cur_id : ld16(p->buf);
	struct rec *n;

	if (p->nrec >= SDRC_MAX_RECORDS)
		return false;
	for (unsigned int i = 0; i < p->nrec; i++)
		if (p->recs[i].id == id)
			return false; /* a loop */
	n = realloc(p->recs, (p->nrec + 1) * sizeof(*n));
	if (!n)
		return false;
	p->recs = n;
	n = &p->recs[p->nrec];
	n->data = malloc(p->cur_total);
	if (!n->data)
		return false;
	memcpy(n->data, p->buf, p->cur_total);
	n->id = id;
	n->next = next;
	n->len = p->cur_total;
	p->nrec++;
	return true;
}

/* After the last record: probe the BMC's limit where it is not known
 * yet (so no client read has to be forwarded), then check. */
static void fill_probe_or_check(struct sdrc *c, struct repo *p)
{
	unsigned int maxlen = 0, best = 0;

	for (unsigned int i = 0; i < p->nrec; i++)
		if (p->recs[i].len > maxlen) {
			maxlen = p->recs[i].len;
			best = i;
		}
	p->probe_cnt = (uint16_t)probe_cnt(p->sdr_ok, p->sdr_bad, maxlen);
	if (!p->probe_cnt) {
		c->job = J_CHECK;
		return;
	}
	p->cur_id = p->recs[best].id;
	p->cur_off = 0;
	p->cur_cnt = p->probe_cnt;
	c->job = J_PROBE;
}

static bool too_long(uint8_t cc)
{
	return cc == CC_TOO_LONG || cc == CC_REQ_TOO_LONG;
}

static void learn(unsigned int *ok, unsigned int *bad, unsigned int n,
		  bool refused)
{
	if (refused && (!*bad || n < *bad))
		*bad = n;
	if (!refused && n > *ok)
		*ok = n;
}

/* The record is complete at cur_off: what its refused reads asked for. */
static bool record_done(struct repo *p, uint16_t next)
{
	unsigned int l;

	p->cur_total = p->cur_off;
	for (unsigned int i = 0; i < p->nrefused; i++) {
		if (p->refused[i].off >= p->cur_total)
			continue;
		l = p->cur_total - p->refused[i].off;
		learn(&p->sdr_ok, &p->sdr_bad,
		      l < p->refused[i].cnt ? l : p->refused[i].cnt, true);
	}
	return p->cur_total >= 5 && store_record(p, next);
}

/* The record ends at cur_off: kept, then the next record (after the last:
 * the probe or the check); one that cannot be kept fails the fill. */
static void record_end(struct sdrc *c, struct repo *p, uint64_t now_ms)
{
	if (!record_done(p, p->cur_next))
		fail(p, now_ms);
	else if (p->cur_next == 0xffff)
		fill_probe_or_check(c, p);
	else
		read_record(c, p, p->cur_next);
}

static void read_answer(struct sdrc *c, struct repo *p, const uint8_t *resp,
			unsigned int len, uint64_t now_ms)
{
	unsigned int n;

	if (resp[0] == CC_RES_CANCELLED) {
		if (++p->c5 > MAX_C5) {
			fail(p, now_ms);
		} else {
			p->resume = c->job;
			c->job = J_RES;
		}
		return;
	}
	if (too_long(resp[0]))
		p->sdr_bad_cc = resp[0];
	if (c->job == J_PROBE) {
		if (resp[0] != CC_OK && !too_long(resp[0])) {
			fail(p, now_ms);
			return;
		}
		learn(&p->sdr_ok, &p->sdr_bad, p->probe_cnt, resp[0] != CC_OK);
		fill_probe_or_check(c, p);
		return;
	}
	p->c5 = 0;
	if (too_long(resp[0]) && p->cur_cnt > 1) {
		if (p->nrefused < MAX_REFUSED) {
			p->refused[p->nrefused].off = p->cur_off;
			p->refused[p->nrefused++].cnt = p->cur_cnt;
		}
		p->cur_cnt = p->cur_cnt > 32 ? 32 : p->cur_cnt / 2u;
		return;
	}
	if (resp[0] == CC_OUT_OF_RANGE && p->cur_off > 0) {
		/* the end, right after a full piece */
		record_end(c, p, now_ms);
		return;
	}
	if (resp[0] != CC_OK || len < 3) {
		fail(p, now_ms);
		return;
	}
	p->cur_next = ld16(resp + 1);
	n = len - 3;
	if (n > p->cur_cnt || p->cur_off + n > SDR_MAX_LEN) {
		fail(p, now_ms);
		return;
	}
	memcpy(p->buf + p->cur_off, resp + 3, n);
	learn(&p->sdr_ok, &p->sdr_bad, n, false);
	p->cur_off = (uint16_t)(p->cur_off + n);
	if (n == p->cur_cnt && n > 0) {
		if (p->cur_off > 255) /* past what an offset can reach */
			fail(p, now_ms);
		return; /* maybe more: the next piece */
	}
	record_end(c, p, now_ms);
}

/* The whole answer: the timestamps have a resolution of a second, so two
 * changes within one are told apart by the record count and free space. */
static bool same_answer(const struct repo *p, const uint8_t *resp,
			unsigned int len)
{
	return len == p->info_len && memcmp(resp, p->info, len) == 0;
}

static void info_answer(struct sdrc *c, struct repo *p, const uint8_t *resp,
			unsigned int len, uint64_t now_ms)
{
	/* main: Get SDR Repository Info; device: Get Device SDR Info, with
	 * the population change indicator only when it is dynamic */
	bool dyn = p->dev && len >= 3 && (resp[2] & 0x80);
	unsigned int want = p->dev ? (dyn ? 7 : 3) : INFO_LEN;
	unsigned int full = len; /* the device forms keep all of it */

	if (resp[0] != CC_OK || len < want) {
		fail(p, now_ms);
		return;
	}
	len = want;
	if (c->job == J_INFO) {
		if (!p->dev && c->write_check && same_ts(resp, c->write_info)) {
			/* a write went through and the timestamps stayed */
			sdrc_drop_records(p);
			p->st = M_OFF;
			return;
		}
		if (!p->dev)
			c->write_check = false;
		p->resume = J_NONE;
		memcpy(p->start_info, resp, len);
		memcpy(p->info, resp, len);
		p->start_len = p->info_len = len;
		p->c5 = 0;
		if (!p->dev && ld16(resp + 2) == 0) {
			c->job = J_CHECK;
		} else if (p->dev ? dyn : (resp[14] & 0x02)) {
			c->job = J_RES;
		} else {
			p->res = 0;
			read_record(c, p, 0);
		}
		return;
	}
	if (c->job == J_CHECK) {
		if (len != p->start_len || memcmp(resp, p->start_info, len)) {
			fill_restart(c, p, now_ms);
			return;
		}
		/* the main repository's count is of records (the device
		 * one's is of sensors) */
		if (!p->dev && ld16(resp + 2) != p->nrec) {
			fail(p, now_ms);
			return;
		}
		p->st = M_VALID;
		p->validated_ms = now_ms;
		c->stats.fills++;
		c->job = J_NONE;
		if (p->dev) /* the no-data form, as of the copy's validation */
			sdrc_form_store(p, 0, resp, full);
		return;
	}
	/* J_REVAL */
	c->stats.revalidations++;
	c->job = J_NONE;
	if (same_answer(p, resp, len)) {
		p->validated_ms = now_ms;
		if (p->dev)
			sdrc_form_store(p, 0, resp, full);
		return;
	}
	if (p->dev) {
		c->stats.invalidations++;
		sdrc_drop_sdr(c, p);
	} else {
		sdrc_invalidate(c);
	}
	p->want_fill = true;
}

static void fru_done(struct sdrc *c, struct fru *f, enum fstate st)
{
	if (st != F_VALID) {
		free(f->data);
		f->data = NULL;
	}
	f->st = st;
	c->fru_cur = -1;
	c->job = J_NONE;
}

/* After the last byte: probe the limit, as for the SDRs. */
static void fru_probe_or_done(struct sdrc *c, struct fru *f)
{
	if (probe_cnt(c->fru_ok, c->fru_bad, f->size))
		c->job = J_FRU_PROBE;
	else
		fru_done(c, f, F_VALID);
}

static void fru_answer(struct sdrc *c, int status, const uint8_t *resp,
		       unsigned int len, uint64_t now_ms)
{
	struct fru *f = &c->fru[c->fru_cur];
	unsigned int n;

	f->at_ms = now_ms;
	if (c->job == J_FRU_INFO) {
		if (status || len < 1 || len > sizeof(f->info)) {
			f->info_len = 0; /* forward both, for a while */
			fru_done(c, f, F_INFO_ONLY);
			return;
		}
		memcpy(f->info, resp, len);
		f->info_len = len;
		f->size = len == 4 ? ld16(resp + 1) : 0;
		if (resp[0] != CC_OK || len != 4 || (resp[3] & 1) ||
		    f->size == 0 || f->size > SDRC_FRU_MAX ||
		    !(f->data = malloc(f->size))) {
			fru_done(c, f, F_INFO_ONLY);
			return;
		}
		f->have = 0;
		c->job = J_FRU_READ;
		return;
	}
	if (status || len < 1 || (resp[0] != CC_OK && !too_long(resp[0]))) {
		fru_done(c, f, F_INFO_ONLY);
		return;
	}
	if (too_long(resp[0])) {
		c->fru_bad_cc = resp[0];
		learn(&c->fru_ok, &c->fru_bad, c->fru_asked, true);
		if (c->job == J_FRU_PROBE)
			fru_probe_or_done(c, f);
		else if (c->fru_asked <= 1 || c->fru_bad <= c->fru_ok)
			fru_done(c, f, F_INFO_ONLY);
		return;
	}
	n = len >= 2 ? resp[1] : 0;
	if (n == 0 || len != n + 2 || n > c->fru_asked) {
		fru_done(c, f, F_INFO_ONLY);
		return;
	}
	learn(&c->fru_ok, &c->fru_bad, n, false);
	if (c->job == J_FRU_PROBE) {
		fru_probe_or_done(c, f);
		return;
	}
	memcpy(f->data + f->have, resp + 2, n);
	f->have = (uint16_t)(f->have + n);
	if (f->have >= f->size)
		fru_probe_or_done(c, f);
}

void sdrc_answer(struct sdrc *c, int status, const uint8_t *resp,
		 unsigned int len, uint64_t now_ms)
{
	struct repo *p = &c->rp[c->jr];

	if (!c->busy)
		return;
	c->busy = false;
	if (c->out_gen != c->gen)
		return; /* dropped meanwhile */
	if (sdrc_fru_job(c->job)) {
		fru_answer(c, status, resp, len, now_ms);
		return;
	}
	if (status || len < 1) {
		fail(p, now_ms);
		return;
	}
	switch (c->job) {
	case J_INFO:
	case J_CHECK:
	case J_REVAL:
		info_answer(c, p, resp, len, now_ms);
		break;
	case J_RES:
		if (resp[0] != CC_OK || len < 3) {
			fail(p, now_ms);
			break;
		}
		p->res = ld16(resp + 1);
		if (p->resume != J_NONE)
			c->job = p->resume; /* the read that met 0xc5 */
		else
			read_record(c, p, 0);
		p->resume = J_NONE;
		break;
	case J_READ:
	case J_PROBE:
		read_answer(c, p, resp, len, now_ms);
		break;
	default:
		break;
	}
}
