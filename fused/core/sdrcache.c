// SPDX-License-Identifier: GPL-2.0
/*
 * sdrcache.c - the SDR repository and FRU inventory answered from memory
 * (sdrcache.h for the interface, docs/sdrcache.md).
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
 *
 * Get Device SDR Info (04:20, LUN 0) is answered per request form (no
 * data, or one data byte: IPMI 2.0 35.2's "SDR count" / "sensor count"
 * bit, which ipmi_sim ignores and another BMC may not) with the whole
 * answer the BMC gave that form since the device copy was (re)validated:
 * the fill's and each revalidation's own request teach the no-data form,
 * a client's forwarded request the form it used. They go with the copy.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sdrcache.h"

#define NETFN_SENSOR  0x04
#define NETFN_APP     0x06
#define NETFN_STORAGE 0x0a

#define CMD_COLD_RESET	  0x02
#define CMD_WARM_RESET	  0x03
#define CMD_SEND_MSG	  0x34
#define CMD_DEV_INFO	  0x20 /* netfn 04 */
#define CMD_DEV_GET	  0x21
#define CMD_DEV_RESERVE	  0x22
#define CMD_FRU_INFO	  0x10
#define CMD_FRU_READ	  0x11
#define CMD_FRU_WRITE	  0x12
#define CMD_SDR_INFO	  0x20
#define CMD_SDR_RESERVE	  0x22
#define CMD_SDR_GET	  0x23
#define CMD_SDR_ADD	  0x24
#define CMD_SDR_PADD	  0x25
#define CMD_SDR_DELETE	  0x26
#define CMD_SDR_CLEAR	  0x27
#define CMD_SDR_ENTER_UPD 0x2a
#define CMD_SDR_RUN_INIT  0x2c

#define CC_OK		 0x00
#define CC_RES_CANCELLED 0xc5
#define CC_OUT_OF_RANGE	 0xc9
#define CC_TOO_LONG	 0xca /* cannot return that many bytes */
#define CC_REQ_TOO_LONG	 0xc8 /* ipmi_sim's Read FRU Data */
#define CC_NOT_PRESENT	 0xcb

#define INFO_LEN	15  /* cc + 14 bytes of Get SDR Repository Info */
#define SDR_MAX_LEN	512 /* may run past what the header says */
#define MAX_REFUSED	8
#define FAILED_RETRY_MS 30000
#define MAX_C5		16   /* fill reservations lost in a row */
#define MAX_ATTEMPTS	3    /* fills that saw the repository move */
#define SAME_SECOND_MS	2000 /* writes this close may share a timestamp */
#define DEV_FORMS	257  /* Get Device SDR Info: no data, 1 byte b */

enum mstate { M_EMPTY, M_FILLING, M_VALID, M_FAILED, M_OFF };
enum job {
	J_NONE,
	J_INFO,
	J_RES,
	J_READ,
	J_PROBE,
	J_CHECK,
	J_REVAL,
	J_FRU_INFO,
	J_FRU_READ,
	J_FRU_PROBE
};
enum fstate { F_NONE, F_WANT, F_FILLING, F_VALID, F_INFO_ONLY };

struct rec {
	uint16_t id, next, len;
	uint8_t *data;
};

struct owner {
	const void *owner;
	uint16_t res[2]; /* per repository */
	bool valid[2];
};

struct fru {
	enum fstate st;
	uint8_t info[4];
	unsigned int info_len;
	uint16_t size, have;
	uint8_t *data;
	uint64_t at_ms;
};

/* One repository: the main one (netfn 0a) or the BMC's device SDRs
 * (netfn 04, LUN 0). */
struct repo {
	bool dev;
	enum mstate st;
	uint64_t validated_ms, failed_ms;
	bool want_fill, want_reval;

	uint8_t info[INFO_LEN]; /* last Get (Device) SDR (Repository)
					 * Info answer */
	unsigned int info_len;
	struct rec *recs;
	unsigned int nrec;

	/* the fill */
	uint8_t start_info[INFO_LEN];
	unsigned int start_len;
	uint16_t res, cur_id, cur_off, cur_total, cur_cnt, cur_next;
	enum job resume; /* after J_RES: what met 0xc5 */
	/* reads of the record refused as too long: what they asked for
	 * is known only once the record's end is */
	struct {
		uint16_t off, cnt;
	} refused[MAX_REFUSED];
	unsigned int nrefused;
	uint16_t probe_cnt;
	uint8_t buf[SDR_MAX_LEN];
	unsigned int c5, attempts;
	/* longest read answered, shortest refused (0: none), and how */
	unsigned int sdr_ok, sdr_bad;
	uint8_t sdr_bad_cc;

	/* device SDRs: Get Device SDR Info's answers (cc first, as long as
	 * the BMC sent them) per request form (dev_form()), seen while the
	 * copy was valid; dropped with the records */
	uint8_t *form[DEV_FORMS];
	uint16_t form_len[DEV_FORMS];
};

struct sdrc {
	uint32_t reval_ms;
	struct repo rp[2]; /* [0] main, [1] device SDRs */

	/* the internal request out, if any, and whose */
	bool busy;
	enum job job;
	unsigned int jr;
	uint32_t gen, out_gen;

	/* a write was seen: its timestamps before, to see that they move;
	 * when the last completed write was seen (0: none) */
	bool write_check;
	uint8_t write_info[INFO_LEN];
	uint64_t changed_ms;

	struct owner *own;
	unsigned int nown, cown;

	struct fru fru[256];
	int fru_cur;
	unsigned int fru_asked, fru_ok, fru_bad;
	uint8_t fru_bad_cc;

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
	c->rp[1].dev = true;
	c->fru_cur = -1;
	return c;
}

static void drop_records(struct repo *p)
{
	for (unsigned int i = 0; i < p->nrec; i++)
		free(p->recs[i].data);
	free(p->recs);
	p->recs = NULL;
	p->nrec = 0;
	for (unsigned int i = 0; i < DEV_FORMS; i++) {
		free(p->form[i]);
		p->form[i] = NULL;
		p->form_len[i] = 0;
	}
}

/* Get Device SDR Info's request form: 0 without data, 1 + the byte with
 * one; -1 for longer requests (not answered from memory). */
static int dev_form(const uint8_t *data, unsigned int len)
{
	if (len == 0)
		return 0;
	return len == 1 ? 1 + data[0] : -1;
}

/* The BMC answered form F with RESP: keep it while the copy is valid. */
static void form_store(struct repo *p, int f, const uint8_t *resp,
		       unsigned int len)
{
	uint8_t *m;

	if (f < 0 || len < 1 || len > SDRC_MAX_RESP || !(m = malloc(len)))
		return;
	memcpy(m, resp, len);
	free(p->form[f]);
	p->form[f] = m;
	p->form_len[f] = (uint16_t)len;
}

static void drop_fru(struct sdrc *c)
{
	for (unsigned int i = 0; i < 256; i++) {
		free(c->fru[i].data);
		memset(&c->fru[i], 0, sizeof(c->fru[i]));
	}
	if (c->busy && (c->job == J_FRU_INFO || c->job == J_FRU_READ ||
			c->job == J_FRU_PROBE))
		c->gen++; /* its answer goes nowhere */
	c->fru_cur = -1;
}

void sdrc_free(struct sdrc *c)
{
	if (!c)
		return;
	drop_records(&c->rp[0]);
	drop_records(&c->rp[1]);
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
static bool fru_job(enum job j)
{
	return j == J_FRU_INFO || j == J_FRU_READ || j == J_FRU_PROBE;
}

static void drop_sdr(struct sdrc *c, struct repo *p)
{
	drop_records(p);
	for (unsigned int i = 0; i < c->nown; i++)
		c->own[i].valid[p->dev] = false;
	if (c->busy && !fru_job(c->job) && c->jr == p->dev)
		c->gen++;
	if (p->st != M_OFF)
		p->st = M_EMPTY;
	p->want_reval = false;
}

void sdrc_invalidate(struct sdrc *c)
{
	c->stats.invalidations++;
	drop_sdr(c, &c->rp[0]);
	drop_sdr(c, &c->rp[1]);
	drop_fru(c);
}

static void fail(struct repo *p, uint64_t now_ms)
{
	drop_records(p);
	p->st = M_FAILED;
	p->failed_ms = now_ms;
}

/* ---- answering ---- */

static enum sdrc_verdict need_sdr(struct sdrc *c, struct repo *p,
				  uint64_t now_ms)
{
	switch (p->st) {
	case M_OFF:
		return SDRC_FORWARD;
	case M_FAILED:
		if (now_ms - p->failed_ms < FAILED_RETRY_MS)
			return SDRC_FORWARD;
		p->st = M_EMPTY;
		/* fall through */
	case M_EMPTY:
		p->want_fill = true;
		return SDRC_PARK;
	case M_FILLING:
		return SDRC_PARK;
	case M_VALID:
		break;
	}
	if (p->want_reval ||
	    (c->busy && c->job == J_REVAL && c->jr == p->dev) ||
	    now_ms > p->validated_ms + c->reval_ms) {
		p->want_reval = true;
		return SDRC_PARK;
	}
	return SDRC_ANSWERED;
}

static const struct rec *rec_find(const struct repo *p, uint16_t id)
{
	if (!p->nrec)
		return NULL;
	if (id == 0)
		return &p->recs[0];
	if (id == 0xffff)
		return &p->recs[p->nrec - 1];
	for (unsigned int i = 0; i < p->nrec; i++)
		if (p->recs[i].id == id)
			return &p->recs[i];
	return NULL;
}

static enum sdrc_verdict get_sdr(struct sdrc *c, struct repo *p,
				 const void *owner, const uint8_t *data,
				 uint8_t *resp, unsigned int size,
				 unsigned int *resp_len)
{
	uint16_t res = le16(data), id = le16(data + 2);
	unsigned int off = data[4], cnt = data[5], l;
	const struct owner *o = owner_find(c, owner, false);
	const struct rec *r;

	*resp_len = 1;
	/* main: the BMC takes reservations (Get SDR Repository Info's
	 * flags); device SDRs: only a dynamic population has them */
	bool checked = p->dev ? (p->info[2] & 0x80) : (p->info[14] & 0x02);

	if (checked && res != 0 &&
	    (!o || !o->valid[p->dev] || o->res[p->dev] != res)) {
		resp[0] = CC_RES_CANCELLED;
		return SDRC_ANSWERED;
	}
	r = rec_find(p, id);
	if (!r) {
		resp[0] = CC_NOT_PRESENT;
		return SDRC_ANSWERED;
	}
	if (off >= r->len) {
		resp[0] = CC_OUT_OF_RANGE;
		return SDRC_ANSWERED;
	}
	l = r->len - off < cnt ? r->len - off : cnt;
	if (l > p->sdr_ok) {
		if (!p->sdr_bad || l < p->sdr_bad)
			return SDRC_FORWARD; /* the BMC knows */
		resp[0] = p->sdr_bad_cc;
		return SDRC_ANSWERED;
	}
	if (3 + l > size)
		return SDRC_FORWARD;
	resp[0] = CC_OK;
	resp[1] = (uint8_t)r->next;
	resp[2] = (uint8_t)(r->next >> 8);
	memcpy(resp + 3, r->data + off, l);
	*resp_len = 3 + l;
	return SDRC_ANSWERED;
}

/* Get Device SDR Info: the form's answer, if the BMC gave it since the
 * copy was validated (and the copy is fresh: else it is revalidated
 * first, which drops the forms if the BMC's answer moved). */
static enum sdrc_verdict dev_info(struct sdrc *c, struct repo *p,
				  const struct ipmi_request *rq,
				  uint64_t now_ms, uint8_t *resp,
				  unsigned int size, unsigned int *resp_len)
{
	const uint8_t *data = rq->data;
	unsigned int len = rq->len;
	int f = dev_form(data, len);
	enum sdrc_verdict v;

	if (f < 0 || p->st != M_VALID || !p->form[f])
		return SDRC_FORWARD; /* its answer teaches the form */
	v = need_sdr(c, p, now_ms);
	if (v != SDRC_ANSWERED)
		return v;
	if (!p->form[f] || p->form_len[f] > size)
		return SDRC_FORWARD;
	memcpy(resp, p->form[f], p->form_len[f]);
	*resp_len = p->form_len[f];
	return SDRC_ANSWERED;
}

static enum sdrc_verdict fru_request(struct sdrc *c,
				     const struct ipmi_request *rq,
				     uint64_t now_ms, uint8_t *resp,
				     unsigned int size, unsigned int *resp_len)
{
	uint8_t cmd = rq->cmd;
	const uint8_t *data = rq->data;
	unsigned int len = rq->len;
	struct fru *f;
	unsigned int off, l;

	if ((cmd == CMD_FRU_INFO && len != 1) ||
	    (cmd == CMD_FRU_READ && len != 4) || c->rp[0].st == M_OFF)
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
		if (f->info_len > size)
			return SDRC_FORWARD;
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
	if (2 + l > size)
		return SDRC_FORWARD;
	resp[0] = CC_OK;
	resp[1] = (uint8_t)l;
	memcpy(resp + 2, f->data + off, l);
	*resp_len = 2 + l;
	return SDRC_ANSWERED;
}

enum sdrc_verdict sdrc_request(struct sdrc *c, const void *owner,
			       const struct ipmi_request *rq, uint64_t now_ms,
			       uint8_t *resp, unsigned int resp_size,
			       unsigned int *resp_len)
{
	uint8_t netfn = rq->netfn, lun = rq->addr.lun, cmd = rq->cmd;
	const uint8_t *data = rq->data;
	unsigned int len = rq->len;
	struct repo *p = &c->rp[netfn == NETFN_SENSOR];
	enum sdrc_verdict v;

	if (resp_size < INFO_LEN) /* every answer of one byte, and Info's */
		return SDRC_FORWARD;
	if (netfn == NETFN_SENSOR) {
		/* the BMC's device SDRs, LUN 0 (Reserve goes to the BMC) */
		if (lun != 0 || cmd < CMD_DEV_INFO || cmd > CMD_DEV_RESERVE)
			return SDRC_FORWARD;
		cmd = cmd == CMD_DEV_INFO ? 0 :
		      cmd == CMD_DEV_GET  ? CMD_SDR_GET :
					    CMD_SDR_RESERVE;
	} else if (netfn != NETFN_STORAGE || lun != 0) {
		/* the BMC's repository and FRU answer on LUN 0; another LUN
		 * is the BMC's to answer */
		return SDRC_FORWARD;
	}
	switch (cmd) {
	case 0:
		v = dev_info(c, p, rq, now_ms, resp, resp_size, resp_len);
		break;
	case CMD_SDR_RESERVE:
		/* goes to the BMC (the id becomes the owner's); the next
		 * read waits for a look at the repository's timestamps */
		if (p->st == M_VALID)
			p->want_reval = true;
		return SDRC_FORWARD;
	case CMD_SDR_INFO:
	case CMD_SDR_GET:
		if (len != (cmd == CMD_SDR_INFO ? 0u : 6u)) {
			v = SDRC_FORWARD;
			break;
		}
		v = need_sdr(c, p, now_ms);
		if (v != SDRC_ANSWERED)
			break;
		if (cmd == CMD_SDR_INFO) {
			memcpy(resp, p->info, p->info_len);
			*resp_len = p->info_len;
		} else {
			v = get_sdr(c, p, owner, data, resp, resp_size,
				    resp_len);
		}
		break;
	case CMD_FRU_INFO:
	case CMD_FRU_READ:
		v = fru_request(c, rq, now_ms, resp, resp_size, resp_len);
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
		if (!fru_job(c->job))
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
	drop_records(p);
	if (++p->attempts >= MAX_ATTEMPTS) {
		fail(p, now_ms);
		return;
	}
	c->job = J_INFO;
}

static bool store_record(struct repo *p, uint16_t next)
{
	uint16_t id = p->cur_id ? p->cur_id : le16(p->buf);
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
		if (!record_done(p, p->cur_next))
			fail(p, now_ms);
		else if (p->cur_next == 0xffff)
			fill_probe_or_check(c, p);
		else
			read_record(c, p, p->cur_next);
		return;
	}
	if (resp[0] != CC_OK || len < 3) {
		fail(p, now_ms);
		return;
	}
	p->cur_next = le16(resp + 1);
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
	if (!record_done(p, p->cur_next))
		fail(p, now_ms);
	else if (p->cur_next == 0xffff)
		fill_probe_or_check(c, p);
	else
		read_record(c, p, p->cur_next);
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
			drop_records(p);
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
		if (!p->dev && le16(resp + 2) == 0) {
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
		if (!p->dev && le16(resp + 2) != p->nrec) {
			fail(p, now_ms);
			return;
		}
		p->st = M_VALID;
		p->validated_ms = now_ms;
		c->stats.fills++;
		c->job = J_NONE;
		if (p->dev) /* the no-data form, as of the copy's validation */
			form_store(p, 0, resp, full);
		return;
	}
	/* J_REVAL */
	c->stats.revalidations++;
	c->job = J_NONE;
	if (same_answer(p, resp, len)) {
		p->validated_ms = now_ms;
		if (p->dev)
			form_store(p, 0, resp, full);
		return;
	}
	if (p->dev) {
		c->stats.invalidations++;
		drop_sdr(c, p);
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
	struct repo *p = &c->rp[c->jr];

	if (!c->busy)
		return;
	c->busy = false;
	if (c->out_gen != c->gen)
		return; /* dropped meanwhile */
	if (c->job == J_FRU_INFO || c->job == J_FRU_READ ||
	    c->job == J_FRU_PROBE) {
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
		p->res = le16(resp + 1);
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

/* ---- what passed to the BMC ---- */

/*
 * A client's Get Device SDR Info the BMC answered (cc 0): that form's
 * answer, kept if the device copy is valid and the answer agrees with
 * the one that validated it (the no-data form: all the bytes compared;
 * another: the sensor population change indicator, when dynamic). One
 * that disagrees is not kept and has the copy revalidated first.
 */
static void dev_info_seen(struct repo *p, const uint8_t *data, unsigned int len,
			  const uint8_t *resp, unsigned int resp_len)
{
	int f = dev_form(data, len);
	bool agrees;

	if (f < 0 || p->st != M_VALID)
		return;
	if (f == 0)
		agrees = resp_len >= p->info_len &&
			 memcmp(resp, p->info, p->info_len) == 0;
	else
		agrees = !(p->info[2] & 0x80) ||
			 (resp_len >= 7 &&
			  memcmp(resp + 3, p->info + 3, 4) == 0);
	if (!agrees) {
		p->want_reval = true;
		return;
	}
	form_store(p, f, resp, resp_len);
}

bool sdrc_cmd_changes(uint8_t netfn, uint8_t cmd)
{
	netfn &= 0x3f;
	if (netfn == NETFN_APP)
		return cmd == CMD_COLD_RESET || cmd == CMD_WARM_RESET ||
		       cmd == CMD_SEND_MSG;
	if (netfn != NETFN_STORAGE)
		return false;
	return cmd == CMD_FRU_WRITE || cmd == CMD_SDR_ADD ||
	       cmd == CMD_SDR_PADD || cmd == CMD_SDR_DELETE ||
	       cmd == CMD_SDR_CLEAR ||
	       (cmd >= CMD_SDR_ENTER_UPD && cmd <= CMD_SDR_RUN_INIT);
}

/* What a request that changes nothing tells the cache: the BMC's device
 * SDR info, and the reservations its owner now holds. */
static void observe_read(struct sdrc *c, const void *owner,
			 const struct ipmi_request *rq, bool ok,
			 const uint8_t *resp, unsigned int resp_len)
{
	unsigned int kind;
	struct owner *o;

	if ((rq->netfn & 0x3f) == NETFN_SENSOR && rq->addr.lun == 0 &&
	    rq->cmd == CMD_DEV_INFO) {
		if (ok)
			dev_info_seen(&c->rp[1], rq->data, rq->len, resp,
				      resp_len);
		return;
	}
	if ((rq->netfn & 0x3f) == NETFN_SENSOR && rq->addr.lun == 0 &&
	    rq->cmd == CMD_DEV_RESERVE)
		kind = 1;
	else if ((rq->netfn & 0x3f) == NETFN_STORAGE &&
		 rq->cmd == CMD_SDR_RESERVE)
		kind = 0;
	else
		return;
	if (ok && resp_len >= 3 && owner && (o = owner_find(c, owner, true))) {
		o->res[kind] = le16(resp + 1);
		o->valid[kind] = true;
	}
}

void sdrc_observe(struct sdrc *c, const void *owner,
		  const struct ipmi_request *rq, int status,
		  const uint8_t *resp, unsigned int resp_len, uint64_t now_ms)
{
	const uint8_t *data = rq->data;
	unsigned int len = rq->len;
	bool ok = status == 0 && resp_len >= 1 && resp[0] == CC_OK;
	bool judge = false;

	if (!sdrc_cmd_changes(rq->netfn, rq->cmd)) {
		observe_read(c, owner, rq, ok, resp, resp_len);
		return;
	}
	if ((rq->netfn & 0x3f) == NETFN_APP) { /* a reset, a Send Message */
		sdrc_invalidate(c);
		return;
	}
	switch (rq->cmd) {
	case CMD_FRU_WRITE:
		c->stats.invalidations++;
		drop_fru(c);
		return;
	case CMD_SDR_ADD:
	case CMD_SDR_DELETE:
		judge = ok;
		break;
	case CMD_SDR_PADD: /* the last piece completes the record */
		judge = ok && len >= 6 && (data[5] & 1);
		break;
	case CMD_SDR_CLEAR: /* 0xaa starts the erase, 0 asks how far */
		judge = ok && len >= 6 && data[5] == 0xaa;
		break;
	default: /* update mode, the initialization agent */
		break;
	}
	/* The BMC refused it: nothing changed, no reservation went. */
	if (status == 0 && !ok)
		return;
	/*
	 * A completed change must move the timestamps we last saw, unless
	 * the last change we saw was within their resolution (1 s, with a
	 * second for the round trips): two writes in one second leave them
	 * as they were on a BMC that keeps them well.
	 */
	if (judge && c->rp[0].st == M_VALID && !c->write_check &&
	    (!c->changed_ms || now_ms - c->changed_ms >= SAME_SECOND_MS)) {
		c->write_check = true;
		memcpy(c->write_info, c->rp[0].info, INFO_LEN);
	}
	if (judge)
		c->changed_ms = now_ms;
	sdrc_invalidate(c);
}

const struct sdrc_stats *sdrc_stats(const struct sdrc *c)
{
	return &c->stats;
}

const char *sdrc_state_name(const struct sdrc *c)
{
	static const char *const names[] = { "empty", "filling", "valid",
					     "failed", "off" };

	return names[c->rp[0].st];
}

unsigned int sdrc_records(const struct sdrc *c)
{
	return c->rp[0].nrec;
}

const char *sdrc_device_state_name(const struct sdrc *c)
{
	static const char *const names[] = { "empty", "filling", "valid",
					     "failed", "off" };

	return names[c->rp[1].st];
}

unsigned int sdrc_device_records(const struct sdrc *c)
{
	return c->rp[1].nrec;
}
