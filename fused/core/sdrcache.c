// SPDX-License-Identifier: GPL-2.0
/*
 * sdrcache.c - the SDR repository and FRU inventory answered from memory
 * (sdrcache.h for the interface, docs/design.md "SDR and FRU cache").
 *
 * Main repository: filled on the first request a caching node makes
 * (Get SDR Repository Info, Reserve, then every record by following the
 * next-record ids, then Get SDR Repository Info again: the timestamps
 * must not have moved meanwhile). Clients wait (PARK) while it fills, so
 * none sees half of it. Valid until a write, clear or reset from any node
 * is seen, or a revalidation (Get SDR Repository Info, at most every
 * revalidate_ms and after each client's Reserve) finds another answer
 * (addition or erase timestamps, or record count within their second).
 * A write that did not move the timestamps means they cannot be trusted:
 * the cache turns itself off for good.
 *
 * Reservations: a client's Reserve SDR Repository still goes to the BMC
 * (its id is then the client's own, and a write carrying it works as on
 * stock); Get SDR answered here checks the id against that client's last
 * Reserve only, so clients cannot cancel each other. A repository change
 * cancels every client's reservation (IPMI 2.0, 33.11).
 *
 * What the BMC answers for a read: found by reading, not assumed. Record
 * 0 is the first, 0xffff the last; an unknown id is cc 0xcb, an offset at
 * or past the record's end cc 0xc9, a count past the end is cut to it
 * (ipmi_sim, and IPMI 2.0 33.12). A read longer than any the BMC was seen
 * to answer is answered cc 0xca only when the BMC answered 0xca to one as
 * long or shorter, else forwarded.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sdrcache.h"

#define NETFN_APP	0x06
#define NETFN_STORAGE	0x0a

#define CMD_COLD_RESET	0x02
#define CMD_WARM_RESET	0x03
#define CMD_SEND_MSG	0x34
#define CMD_FRU_INFO	0x10
#define CMD_FRU_READ	0x11
#define CMD_FRU_WRITE	0x12
#define CMD_SDR_INFO	0x20
#define CMD_SDR_RESERVE	0x22
#define CMD_SDR_GET	0x23
#define CMD_SDR_ADD	0x24
#define CMD_SDR_PADD	0x25
#define CMD_SDR_DELETE	0x26
#define CMD_SDR_CLEAR	0x27
#define CMD_SDR_ENTER_UPD	0x2a
#define CMD_SDR_RUN_INIT	0x2c

#define CC_OK		0x00
#define CC_RES_CANCELLED 0xc5
#define CC_OUT_OF_RANGE	0xc9
#define CC_TOO_LONG	0xca	/* cannot return that many bytes */
#define CC_REQ_TOO_LONG	0xc8	/* ipmi_sim's Read FRU Data */
#define CC_NOT_PRESENT	0xcb

#define INFO_LEN	15	/* cc + 14 bytes of Get SDR Repository Info */
#define SDR_MAX_LEN	512	/* may run past what the header says */
#define MAX_REFUSED	8
#define FAILED_RETRY_MS	30000
#define MAX_C5		16	/* fill reservations lost in a row */
#define MAX_ATTEMPTS	3	/* fills that saw the repository move */

enum mstate { M_EMPTY, M_FILLING, M_VALID, M_FAILED, M_OFF };
enum job { J_NONE, J_INFO, J_RES, J_READ, J_PROBE, J_CHECK, J_REVAL,
	   J_FRU_INFO, J_FRU_READ, J_FRU_PROBE };
enum fstate { F_NONE, F_WANT, F_FILLING, F_VALID, F_INFO_ONLY };

struct rec {
	uint16_t id, next, len;
	uint8_t *data;
};

struct owner {
	const void *owner;
	uint16_t res;
	bool valid;
};

struct fru {
	enum fstate st;
	uint8_t info[4];
	unsigned int info_len;
	uint16_t size, have;
	uint8_t *data;
	uint64_t at_ms;
};

struct sdrc {
	uint32_t reval_ms;
	enum mstate st;
	uint64_t validated_ms, failed_ms;
	bool want_fill, want_reval;

	/* the internal request out, if any */
	bool busy;
	enum job job;
	uint32_t gen, out_gen;

	uint8_t info[INFO_LEN];		/* last Get SDR Repository Info */
	struct rec *recs;
	unsigned int nrec;

	/* the fill */
	uint8_t start_info[INFO_LEN];
	uint16_t res, cur_id, cur_off, cur_total, cur_cnt, cur_next;
	enum job resume;		/* after J_RES: what met 0xc5 */
	/* reads of the record refused as too long: what they asked for
	 * is known only once the record's end is */
	struct { uint16_t off, cnt; } refused[MAX_REFUSED];
	unsigned int nrefused;
	uint16_t probe_cnt;
	uint8_t buf[SDR_MAX_LEN];
	unsigned int c5, attempts;
	/* longest read answered, shortest refused with 0xca (0: none) */
	unsigned int sdr_ok, sdr_bad;
	uint8_t sdr_bad_cc, fru_bad_cc;	/* how the BMC refused them */

	/* a write was seen: its timestamps before, to see that they move */
	bool write_check;
	uint8_t write_info[INFO_LEN];

	struct owner *own;
	unsigned int nown, cown;

	struct fru fru[256];
	int fru_cur;
	unsigned int fru_asked, fru_ok, fru_bad;

	struct sdrc_stats stats;
};

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

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

struct sdrc *sdrc_new(uint32_t revalidate_ms)
{
	struct sdrc *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->reval_ms = revalidate_ms;
	c->fru_cur = -1;
	return c;
}

static void drop_records(struct sdrc *c)
{
	for (unsigned int i = 0; i < c->nrec; i++)
		free(c->recs[i].data);
	free(c->recs);
	c->recs = NULL;
	c->nrec = 0;
}

static void drop_fru(struct sdrc *c)
{
	for (unsigned int i = 0; i < 256; i++) {
		free(c->fru[i].data);
		memset(&c->fru[i], 0, sizeof(c->fru[i]));
	}
	if (c->busy && (c->job == J_FRU_INFO || c->job == J_FRU_READ ||
			c->job == J_FRU_PROBE))
		c->gen++;
	c->fru_cur = -1;
}

void sdrc_free(struct sdrc *c)
{
	if (!c)
		return;
	drop_records(c);
	drop_fru(c);
	free(c->own);
	free(c);
}

void sdrc_set_revalidate_ms(struct sdrc *c, uint32_t ms)
{
	c->reval_ms = ms;
}

static struct owner *owner_find(struct sdrc *c, const void *owner, bool add)
{
	struct owner *o;

	for (unsigned int i = 0; i < c->nown; i++)
		if (c->own[i].owner == owner)
			return &c->own[i];
	if (!add)
		return NULL;
	if (c->nown == c->cown) {
		unsigned int n = c->cown ? c->cown * 2 : 8;

		o = realloc(c->own, n * sizeof(*o));
		if (!o)
			return NULL;
		c->own = o;
		c->cown = n;
	}
	o = &c->own[c->nown++];
	memset(o, 0, sizeof(*o));
	o->owner = owner;
	return o;
}

void sdrc_owner_gone(struct sdrc *c, const void *owner)
{
	struct owner *o = owner_find(c, owner, false);

	if (o)
		*o = c->own[--c->nown];
}

/* The repository changed (or may have): records and every client's
 * reservation go; an internal request out is answered into nothing. */
static void drop_sdr(struct sdrc *c)
{
	drop_records(c);
	for (unsigned int i = 0; i < c->nown; i++)
		c->own[i].valid = false;
	if (c->busy && c->job != J_FRU_INFO && c->job != J_FRU_READ &&
	    c->job != J_FRU_PROBE)
		c->gen++;
	if (c->st != M_OFF)
		c->st = M_EMPTY;
	c->want_reval = false;
}

void sdrc_invalidate(struct sdrc *c)
{
	c->stats.invalidations++;
	drop_sdr(c);
	drop_fru(c);
}

static void fail(struct sdrc *c, uint64_t now_ms)
{
	drop_records(c);
	c->st = M_FAILED;
	c->failed_ms = now_ms;
}

/* ---- answering ---- */

static enum sdrc_verdict need_sdr(struct sdrc *c, uint64_t now_ms)
{
	switch (c->st) {
	case M_OFF:
		return SDRC_FORWARD;
	case M_FAILED:
		if (now_ms - c->failed_ms < FAILED_RETRY_MS)
			return SDRC_FORWARD;
		c->st = M_EMPTY;
		/* fall through */
	case M_EMPTY:
		c->want_fill = true;
		return SDRC_PARK;
	case M_FILLING:
		return SDRC_PARK;
	case M_VALID:
		break;
	}
	if (c->want_reval || (c->busy && c->job == J_REVAL) ||
	    now_ms > c->validated_ms + c->reval_ms) {
		c->want_reval = true;
		return SDRC_PARK;
	}
	return SDRC_ANSWERED;
}

static const struct rec *rec_find(const struct sdrc *c, uint16_t id)
{
	if (!c->nrec)
		return NULL;
	if (id == 0)
		return &c->recs[0];
	if (id == 0xffff)
		return &c->recs[c->nrec - 1];
	for (unsigned int i = 0; i < c->nrec; i++)
		if (c->recs[i].id == id)
			return &c->recs[i];
	return NULL;
}

static enum sdrc_verdict get_sdr(struct sdrc *c, const void *owner,
				 const uint8_t *data, uint8_t *resp,
				 unsigned int *resp_len)
{
	uint16_t res = le16(data), id = le16(data + 2);
	unsigned int off = data[4], cnt = data[5], l;
	const struct owner *o = owner_find(c, owner, false);
	const struct rec *r;

	*resp_len = 1;
	if ((c->info[14] & 0x02) && res != 0 &&
	    (!o || !o->valid || o->res != res)) {
		resp[0] = CC_RES_CANCELLED;
		return SDRC_ANSWERED;
	}
	r = rec_find(c, id);
	if (!r) {
		resp[0] = CC_NOT_PRESENT;
		return SDRC_ANSWERED;
	}
	if (off >= r->len) {
		resp[0] = CC_OUT_OF_RANGE;
		return SDRC_ANSWERED;
	}
	l = r->len - off < cnt ? r->len - off : cnt;
	if (l > c->sdr_ok) {
		if (!c->sdr_bad || l < c->sdr_bad)
			return SDRC_FORWARD;	/* the BMC knows */
		resp[0] = c->sdr_bad_cc;
		return SDRC_ANSWERED;
	}
	resp[0] = CC_OK;
	resp[1] = (uint8_t)r->next;
	resp[2] = (uint8_t)(r->next >> 8);
	memcpy(resp + 3, r->data + off, l);
	*resp_len = 3 + l;
	return SDRC_ANSWERED;
}

static enum sdrc_verdict fru_request(struct sdrc *c, uint8_t cmd,
				     const uint8_t *data, unsigned int len,
				     uint64_t now_ms, uint8_t *resp,
				     unsigned int *resp_len)
{
	struct fru *f;
	unsigned int off, l;

	if ((cmd == CMD_FRU_INFO && len != 1) ||
	    (cmd == CMD_FRU_READ && len != 4) || c->st == M_OFF)
		return SDRC_FORWARD;
	f = &c->fru[data[0]];
	if ((f->st == F_VALID || f->st == F_INFO_ONLY) &&
	    now_ms > f->at_ms + SDRC_FRU_MAX_AGE_MS) {
		free(f->data);
		memset(f, 0, sizeof(*f));
	}
	switch (f->st) {
	case F_NONE:
		f->st = F_WANT;
		/* fall through */
	case F_WANT:
	case F_FILLING:
		return SDRC_PARK;
	case F_INFO_ONLY:
		if (cmd == CMD_FRU_READ || f->info_len == 0)
			return SDRC_FORWARD;
		break;
	case F_VALID:
		break;
	}
	if (cmd == CMD_FRU_INFO) {
		memcpy(resp, f->info, f->info_len);
		*resp_len = f->info_len;
		return SDRC_ANSWERED;
	}
	off = le16(data + 1);
	*resp_len = 1;
	if (off >= f->size) {
		resp[0] = CC_OUT_OF_RANGE;
		return SDRC_ANSWERED;
	}
	l = f->size - off < data[3] ? f->size - off : data[3];
	if (l > c->fru_ok) {
		if (!c->fru_bad || l < c->fru_bad)
			return SDRC_FORWARD;
		resp[0] = c->fru_bad_cc;
		return SDRC_ANSWERED;
	}
	resp[0] = CC_OK;
	resp[1] = (uint8_t)l;
	memcpy(resp + 2, f->data + off, l);
	*resp_len = 2 + l;
	return SDRC_ANSWERED;
}

enum sdrc_verdict sdrc_request(struct sdrc *c, const void *owner,
			       uint8_t netfn, uint8_t cmd,
			       const uint8_t *data, unsigned int len,
			       uint64_t now_ms, uint8_t *resp,
			       unsigned int *resp_len)
{
	enum sdrc_verdict v;

	if (netfn != NETFN_STORAGE)
		return SDRC_FORWARD;
	switch (cmd) {
	case CMD_SDR_RESERVE:
		/* goes to the BMC (the id becomes the owner's); the next
		 * read waits for a look at the repository's timestamps */
		if (c->st == M_VALID)
			c->want_reval = true;
		return SDRC_FORWARD;
	case CMD_SDR_INFO:
	case CMD_SDR_GET:
		if (len != (cmd == CMD_SDR_INFO ? 0u : 6u)) {
			v = SDRC_FORWARD;
			break;
		}
		v = need_sdr(c, now_ms);
		if (v != SDRC_ANSWERED)
			break;
		if (cmd == CMD_SDR_INFO) {
			memcpy(resp, c->info, INFO_LEN);
			*resp_len = INFO_LEN;
		} else {
			v = get_sdr(c, owner, data, resp, resp_len);
		}
		break;
	case CMD_FRU_INFO:
	case CMD_FRU_READ:
		v = fru_request(c, cmd, data, len, now_ms, resp, resp_len);
		break;
	default:
		return SDRC_FORWARD;
	}
	if (v == SDRC_ANSWERED)
		c->stats.hits++;
	else if (v == SDRC_FORWARD)
		c->stats.misses++;
	else
		c->stats.parks++;
	return v;
}

/* ---- filling ---- */

static void req_sdr_get(struct sdrc *c, struct sdrc_req *r)
{
	r->netfn = NETFN_STORAGE;
	r->cmd = CMD_SDR_GET;
	r->data[0] = (uint8_t)c->res;
	r->data[1] = (uint8_t)(c->res >> 8);
	r->data[2] = (uint8_t)c->cur_id;
	r->data[3] = (uint8_t)(c->cur_id >> 8);
	r->data[4] = (uint8_t)c->cur_off;
	r->data[5] = (uint8_t)c->cur_cnt;
	r->len = 6;
}

static void req_fru_read(struct sdrc *c, struct sdrc_req *r)
{
	struct fru *f = &c->fru[c->fru_cur];
	unsigned int at = c->job == J_FRU_PROBE ? 0 : f->have;

	c->fru_asked = c->job == J_FRU_PROBE ?
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
	(void)now_ms;
	if (c->busy)
		return false;
	memset(r, 0, sizeof(*r));
	r->netfn = NETFN_STORAGE;
	if (c->fru_cur >= 0 || c->st == M_FILLING) {
		/* the fill under way: its next step is in c->job */
	} else if (c->st == M_EMPTY && c->want_fill) {
		c->want_fill = false;
		c->st = M_FILLING;
		c->attempts = 0;
		c->job = J_INFO;
	} else if (c->st == M_VALID && c->want_reval) {
		c->want_reval = false;
		c->job = J_REVAL;
	} else {
		c->job = J_NONE;
		for (unsigned int i = 0; i < 256 && c->st != M_OFF; i++) {
			if (c->fru[i].st != F_WANT)
				continue;
			c->fru[i].st = F_FILLING;
			c->fru_cur = (int)i;
			c->job = J_FRU_INFO;
			break;
		}
		if (c->job == J_NONE)
			return false;
	}
	switch (c->job) {
	case J_INFO:
	case J_CHECK:
	case J_REVAL:
		r->cmd = CMD_SDR_INFO;
		break;
	case J_RES:
		r->cmd = CMD_SDR_RESERVE;
		break;
	case J_READ:
	case J_PROBE:
		req_sdr_get(c, r);
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

/* The whole answer: the timestamps have a resolution of a second, so two
 * changes within one are told apart by the record count and free space. */
static bool same_info(const uint8_t *a, const uint8_t *b)
{
	return memcmp(a, b, INFO_LEN) == 0;
}

/* A record's first read: all of it if the BMC can carry it. Its length is
 * the BMC's, found where an answer comes back short (or cc 0xc9 past the
 * end): ipmi_sim's records can be longer than their header says. */
static void read_record(struct sdrc *c, uint16_t id)
{
	c->cur_id = id;
	c->cur_off = 0;
	c->cur_total = 0;
	c->nrefused = 0;
	c->cur_cnt = c->sdr_bad && c->sdr_ok ? (uint16_t)c->sdr_ok : 0xff;
	c->job = J_READ;
}

static void fill_restart(struct sdrc *c, uint64_t now_ms)
{
	drop_records(c);
	if (++c->attempts >= MAX_ATTEMPTS) {
		fail(c, now_ms);
		return;
	}
	c->job = J_INFO;
}

static bool store_record(struct sdrc *c, uint16_t next)
{
	uint16_t id = c->cur_id ? c->cur_id : le16(c->buf);
	struct rec *n;

	if (c->nrec >= SDRC_MAX_RECORDS)
		return false;
	for (unsigned int i = 0; i < c->nrec; i++)
		if (c->recs[i].id == id)
			return false;	/* a loop */
	n = realloc(c->recs, (c->nrec + 1) * sizeof(*n));
	if (!n)
		return false;
	c->recs = n;
	n = &c->recs[c->nrec];
	n->data = malloc(c->cur_total);
	if (!n->data)
		return false;
	memcpy(n->data, c->buf, c->cur_total);
	n->id = id;
	n->next = next;
	n->len = c->cur_total;
	c->nrec++;
	return true;
}

/* After the last record: probe the BMC's limit where it is not known
 * yet (so no client read has to be forwarded), then check. */
static void fill_probe_or_check(struct sdrc *c)
{
	unsigned int maxlen = 0, best = 0;

	for (unsigned int i = 0; i < c->nrec; i++)
		if (c->recs[i].len > maxlen) {
			maxlen = c->recs[i].len;
			best = i;
		}
	c->probe_cnt = (uint16_t)probe_cnt(c->sdr_ok, c->sdr_bad, maxlen);
	if (!c->probe_cnt) {
		c->job = J_CHECK;
		return;
	}
	c->cur_id = c->recs[best].id;
	c->cur_off = 0;
	c->cur_cnt = c->probe_cnt;
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
static bool record_done(struct sdrc *c, uint16_t next)
{
	unsigned int l;

	c->cur_total = c->cur_off;
	for (unsigned int i = 0; i < c->nrefused; i++) {
		if (c->refused[i].off >= c->cur_total)
			continue;
		l = c->cur_total - c->refused[i].off;
		learn(&c->sdr_ok, &c->sdr_bad,
		      l < c->refused[i].cnt ? l : c->refused[i].cnt, true);
	}
	return c->cur_total >= 5 && store_record(c, next);
}

static void read_answer(struct sdrc *c, const uint8_t *resp,
			unsigned int len, uint64_t now_ms)
{
	unsigned int n;

	if (resp[0] == CC_RES_CANCELLED) {
		if (++c->c5 > MAX_C5) {
			fail(c, now_ms);
		} else {
			c->resume = c->job;
			c->job = J_RES;
		}
		return;
	}
	if (too_long(resp[0]))
		c->sdr_bad_cc = resp[0];
	if (c->job == J_PROBE) {
		if (resp[0] != CC_OK && !too_long(resp[0])) {
			fail(c, now_ms);
			return;
		}
		learn(&c->sdr_ok, &c->sdr_bad, c->probe_cnt, resp[0] != CC_OK);
		fill_probe_or_check(c);
		return;
	}
	c->c5 = 0;
	if (too_long(resp[0]) && c->cur_cnt > 1) {
		if (c->nrefused < MAX_REFUSED) {
			c->refused[c->nrefused].off = c->cur_off;
			c->refused[c->nrefused++].cnt = c->cur_cnt;
		}
		c->cur_cnt = c->cur_cnt > 32 ? 32 : c->cur_cnt / 2u;
		return;
	}
	if (resp[0] == CC_OUT_OF_RANGE && c->cur_off > 0) {
		/* the end, right after a full piece */
		if (!record_done(c, c->cur_next))
			fail(c, now_ms);
		else if (c->cur_next == 0xffff)
			fill_probe_or_check(c);
		else
			read_record(c, c->cur_next);
		return;
	}
	if (resp[0] != CC_OK || len < 3) {
		fail(c, now_ms);
		return;
	}
	c->cur_next = le16(resp + 1);
	n = len - 3;
	if (n > c->cur_cnt || c->cur_off + n > SDR_MAX_LEN) {
		fail(c, now_ms);
		return;
	}
	memcpy(c->buf + c->cur_off, resp + 3, n);
	learn(&c->sdr_ok, &c->sdr_bad, n, false);
	c->cur_off = (uint16_t)(c->cur_off + n);
	if (n == c->cur_cnt && n > 0) {
		if (c->cur_off > 255)	/* past what an offset can reach */
			fail(c, now_ms);
		return;		/* maybe more: the next piece */
	}
	if (!record_done(c, c->cur_next))
		fail(c, now_ms);
	else if (c->cur_next == 0xffff)
		fill_probe_or_check(c);
	else
		read_record(c, c->cur_next);
}

static void info_answer(struct sdrc *c, const uint8_t *resp,
			unsigned int len, uint64_t now_ms)
{
	if (resp[0] != CC_OK || len < INFO_LEN) {
		fail(c, now_ms);
		return;
	}
	if (c->job == J_INFO) {
		if (c->write_check && same_ts(resp, c->write_info)) {
			/* a write went through and the timestamps stayed */
			drop_records(c);
			c->st = M_OFF;
			return;
		}
		c->write_check = false;
		c->resume = J_NONE;
		memcpy(c->start_info, resp, INFO_LEN);
		memcpy(c->info, resp, INFO_LEN);
		c->c5 = 0;
		if (le16(resp + 2) == 0) {
			c->job = J_CHECK;
		} else if (resp[14] & 0x02) {
			c->job = J_RES;
		} else {
			c->res = 0;
			read_record(c, 0);
		}
		return;
	}
	if (c->job == J_CHECK) {
		if (!same_info(resp, c->start_info)) {
			fill_restart(c, now_ms);
			return;
		}
		if (le16(resp + 2) != c->nrec) {	/* not all found */
			fail(c, now_ms);
			return;
		}
		memcpy(c->info, resp, INFO_LEN);
		c->st = M_VALID;
		c->validated_ms = now_ms;
		c->stats.fills++;
		c->job = J_NONE;
		return;
	}
	/* J_REVAL */
	c->stats.revalidations++;
	c->job = J_NONE;
	if (same_info(resp, c->info)) {
		c->validated_ms = now_ms;
		return;
	}
	sdrc_invalidate(c);
	c->want_fill = true;
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
			f->info_len = 0;	/* forward both, for a while */
			fru_done(c, f, F_INFO_ONLY);
			return;
		}
		memcpy(f->info, resp, len);
		f->info_len = len;
		f->size = len == 4 ? le16(resp + 1) : 0;
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
	if (!c->busy)
		return;
	c->busy = false;
	if (c->out_gen != c->gen)
		return;			/* dropped meanwhile */
	if (c->job == J_FRU_INFO || c->job == J_FRU_READ ||
	    c->job == J_FRU_PROBE) {
		fru_answer(c, status, resp, len, now_ms);
		return;
	}
	if (status || len < 1) {
		fail(c, now_ms);
		return;
	}
	switch (c->job) {
	case J_INFO:
	case J_CHECK:
	case J_REVAL:
		info_answer(c, resp, len, now_ms);
		break;
	case J_RES:
		if (resp[0] != CC_OK || len < 3) {
			fail(c, now_ms);
			break;
		}
		c->res = le16(resp + 1);
		if (c->resume != J_NONE)
			c->job = c->resume;	/* the read that met 0xc5 */
		else
			read_record(c, 0);
		c->resume = J_NONE;
		break;
	case J_READ:
	case J_PROBE:
		read_answer(c, resp, len, now_ms);
		break;
	default:
		break;
	}
}

/* ---- what passed to the BMC ---- */

void sdrc_observe(struct sdrc *c, const void *owner, uint8_t netfn,
		  uint8_t cmd, const uint8_t *data, unsigned int len,
		  int status, const uint8_t *resp, unsigned int resp_len)
{
	bool ok = status == 0 && resp_len >= 1 && resp[0] == CC_OK;
	bool judge = false;
	struct owner *o;

	if (netfn == NETFN_APP) {
		if (cmd == CMD_COLD_RESET || cmd == CMD_WARM_RESET ||
		    cmd == CMD_SEND_MSG)
			sdrc_invalidate(c);
		return;
	}
	if (netfn != NETFN_STORAGE)
		return;
	switch (cmd) {
	case CMD_SDR_RESERVE:
		if (!ok || resp_len < 3 || !owner)
			return;
		o = owner_find(c, owner, true);
		if (o) {
			o->res = le16(resp + 1);
			o->valid = true;
		}
		return;
	case CMD_FRU_WRITE:
		c->stats.invalidations++;
		drop_fru(c);
		return;
	case CMD_SDR_ADD:
	case CMD_SDR_DELETE:
		judge = ok;
		break;
	case CMD_SDR_PADD:	/* the last piece completes the record */
		judge = ok && len >= 6 && (data[5] & 1);
		break;
	case CMD_SDR_CLEAR:	/* 0xaa starts the erase, 0 asks how far */
		judge = ok && len >= 6 && data[5] == 0xaa;
		break;
	default:
		if (cmd < CMD_SDR_ENTER_UPD || cmd > CMD_SDR_RUN_INIT)
			return;
		break;
	}
	/* A completed change must move the timestamps we last saw. */
	if (judge && c->st == M_VALID && !c->write_check) {
		c->write_check = true;
		memcpy(c->write_info, c->info, INFO_LEN);
	}
	sdrc_invalidate(c);
}

const struct sdrc_stats *sdrc_stats(const struct sdrc *c)
{
	return &c->stats;
}

const char *sdrc_state_name(const struct sdrc *c)
{
	static const char *const names[] = {
		"empty", "filling", "valid", "failed", "off"
	};

	return names[c->st];
}

unsigned int sdrc_records(const struct sdrc *c)
{
	return c->nrec;
}
