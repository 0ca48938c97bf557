// SPDX-License-Identifier: GPL-2.0
/*
 * sdrcache_observe.c - what the SDR/FRU cache learns from the requests
 * that did reach the BMC (sdrc_observe): writes, clears and resets drop
 * it (a write that leaves the timestamps unmoved turns it off), a Reserve
 * becomes its owner's reservation, a client's Get Device SDR Info answer
 * its request form's. sdrcache.c has the design.
 */
#include <stdlib.h>
#include <string.h>

#include "core/sdrcache.h"
#include "core/sdrcache_priv.h"

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
	int f = sdrc_dev_form(data, len);
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
	sdrc_form_store(p, f, resp, resp_len);
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
	if (ok && resp_len >= 3)
		resv_set(&c->own, owner, kind, ld16(resp + 1));
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
		sdrc_drop_fru(c);
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
