// SPDX-License-Identifier: GPL-2.0
/*
 * sdrcache_answer.c - the SDR/FRU cache answers a client's request from
 * memory (sdrc_request): Get SDR (Repository) Info, Get SDR against the
 * owner's own reservation, Get Device SDR Info per request form, and the
 * FRU's Get Inventory Area Info and Read FRU Data; PARK while a fill or a
 * revalidation is due, FORWARD what the BMC must answer itself.
 * sdrcache.c has the design.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sdrcache.h"
#include "core/sdrcache_priv.h"

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
	uint16_t res = ld16(data), id = ld16(data + 2);
	unsigned int off = data[4], cnt = data[5], l;
	const struct rec *r;

	*resp_len = 1;
	/* main: the BMC takes reservations (Get SDR Repository Info's
	 * flags); device SDRs: only a dynamic population has them */
	bool checked = p->dev ? (p->info[2] & 0x80) : (p->info[14] & 0x02);

	if (checked && !resv_allows(&c->own, owner, p->dev, res)) {
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
	int f = sdrc_dev_form(data, len);
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
	off = ld16(data + 1);
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
