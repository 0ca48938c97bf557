// SPDX-License-Identifier: GPL-2.0
/*
 * seqtab - the IPMB sequence table: slots, matching, retries and timeouts.
 * See seqtab.h. Pure logic.
 */
#include "core/seqtab.h"
#include "core/ipmb.h"

#include <errno.h>
#include <string.h>

#include <linux/ipmi.h>
#include <linux/ipmi_msgdefs.h>

#define GEN_MASK 0x3ffffffu /* 26-bit generation, as the driver's */

void seqtab_init(struct seqtab *t)
{
	memset(t, 0, sizeof(*t));
}

void seqtab_clamp_timing(int32_t *retries, uint32_t *retry_ms)
{
	if (*retries > SEQTAB_MAX_RETRIES)
		*retries = SEQTAB_MAX_RETRIES;
	if (*retry_ms < SEQTAB_MIN_RETRY_MS)
		*retry_ms = SEQTAB_MIN_RETRY_MS;
	if (*retry_ms > SEQTAB_MAX_RETRY_MS)
		*retry_ms = SEQTAB_MAX_RETRY_MS;
}

void seqtab_clamp_user(int32_t *retries, uint32_t *retry_ms)
{
	if (*retries > SEQTAB_USER_MAX_RETRIES)
		*retries = SEQTAB_USER_MAX_RETRIES;
	if (*retry_ms > SEQTAB_USER_MAX_RETRY_MS)
		*retry_ms = SEQTAB_USER_MAX_RETRY_MS;
}

unsigned int seqtab_group_count(const struct seqtab *t, const void *group)
{
	unsigned int i, n = 0;

	for (i = 0; i < SEQTAB_SLOTS; i++)
		n += t->e[i].inuse && t->e[i].group == group;
	return n;
}

int seqtab_alloc(struct seqtab *t, const struct seqtab_req *r, uint64_t now_ns,
		 const struct seqtab_entry **out)
{
	struct seqtab_entry *e;
	uint8_t frame[ABI_MAX_MSG_LENGTH];
	unsigned int i, n;
	bool bcast = r->rq.addr.addr_type == IPMI_IPMB_BROADCAST_ADDR_TYPE;
	int len;

	if (r->rq.netfn & 1)
		return -EINVAL; /* responses carry the client's seq */
	for (n = 0, i = t->curr; n < SEQTAB_SLOTS;
	     n++, i = (i + 1) % SEQTAB_SLOTS)
		if (!t->e[i].inuse)
			break;
	/* validate (and size) before claiming the slot */
	len = ipmb_build_from_addr(&r->rq, r->my_sa, r->my_lun, (uint8_t)i,
				   frame, sizeof(frame));
	if (len < 0)
		return len;
	if (n == SEQTAB_SLOTS)
		return -EAGAIN;
	if (r->group != NULL && r->group_max &&
	    seqtab_group_count(t, r->group) >= r->group_max)
		return -EAGAIN;

	e = &t->e[i];
	memset(e, 0, offsetof(struct seqtab_entry, req));
	t->gen[i] = (t->gen[i] + 1) & GEN_MASK;
	e->inuse = true;
	e->broadcast = bcast;
	e->seq = (uint8_t)i;
	e->token = (uint32_t)i << 26 | t->gen[i];
	e->owner = r->owner;
	e->group = r->group;
	e->msgid = r->rq.msgid;
	e->addr = r->rq.addr;
	e->netfn = r->rq.netfn;
	e->cmd = r->rq.cmd;
	e->retries_left = bcast		    ? 0 :
			  r->rq.retries < 0 ? ABI_DEFAULT_RETRIES :
					      (uint32_t)r->rq.retries;
	e->retry_ns = (uint64_t)(r->rq.retry_ms ? r->rq.retry_ms :
						  ABI_DEFAULT_RETRY_MS) *
		      1000000u;
	e->deadline_ns = now_ns + SEQTAB_SEND_WAIT_NS;
	e->req_len = (uint16_t)len;
	memcpy(e->req, frame, (size_t)len);
	t->curr = (i + 1) % SEQTAB_SLOTS;
	*out = e;
	return (int)i;
}

static struct seqtab_entry *by_token(struct seqtab *t, uint32_t token)
{
	struct seqtab_entry *e = &t->e[(token >> 26) & 0x3f];

	return e->inuse && e->token == token ? e : NULL;
}

/* cc values after which the driver just waits (the BMC may retry) */
static bool cc_retryable(uint8_t cc)
{
	return cc == 0 || cc == IPMI_NODE_BUSY_ERR ||
	       cc == IPMI_LOST_ARBITRATION_ERR || cc == IPMI_BUS_ERR ||
	       cc == IPMI_NAK_ON_WRITE_ERR;
}

int seqtab_send_done(struct seqtab *t, uint32_t token, uint8_t cc,
		     uint64_t now_ns, struct seqtab_entry *gone)
{
	struct seqtab_entry *e = by_token(t, token);

	if (!e)
		return -ENOENT;
	if (cc_retryable(cc)) {
		e->timing = true;
		e->deadline_ns = now_ns + e->retry_ns;
		return SEQTAB_TIMER_STARTED;
	}
	*gone = *e;
	e->inuse = false;
	return SEQTAB_FAILED;
}

int seqtab_match(struct seqtab *t, const struct ipmb_rx *rx,
		 struct seqtab_entry *gone)
{
	struct seqtab_entry *e;

	if (rx->seq >= SEQTAB_SLOTS)
		return -ENOENT;
	e = &t->e[rx->seq];
	if (!e->inuse || e->addr.channel != rx->channel || e->cmd != rx->cmd ||
	    e->netfn != (rx->netfn & ~1) || e->addr.slave_addr != rx->src_sa ||
	    e->addr.lun != rx->src_lun)
		return -ENOENT;
	*gone = *e;
	e->inuse = false;
	return 0;
}

int seqtab_expire(struct seqtab *t, uint64_t now_ns, struct seqtab_entry *out)
{
	for (unsigned int i = 0; i < SEQTAB_SLOTS; i++) {
		struct seqtab_entry *e = &t->e[i];

		if (!e->inuse || e->deadline_ns > now_ns)
			continue;
		if (e->retries_left == 0) {
			*out = *e;
			e->inuse = false;
			return SEQTAB_TIMEOUT;
		}
		e->retries_left--;
		e->timing = false;
		e->deadline_ns = now_ns + SEQTAB_SEND_WAIT_NS;
		*out = *e;
		return SEQTAB_RESEND;
	}
	return SEQTAB_NONE;
}

uint64_t seqtab_next_deadline(const struct seqtab *t)
{
	uint64_t d = SEQTAB_NO_DEADLINE;

	for (unsigned int i = 0; i < SEQTAB_SLOTS; i++)
		if (t->e[i].inuse && t->e[i].deadline_ns < d)
			d = t->e[i].deadline_ns;
	return d;
}

unsigned int seqtab_cancel_owner(struct seqtab *t, const void *owner)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < SEQTAB_SLOTS; i++) {
		if (t->e[i].inuse && t->e[i].owner == owner) {
			t->e[i].inuse = false;
			n++;
		}
	}
	return n;
}

bool seqtab_live(const struct seqtab *t, uint32_t token)
{
	const struct seqtab_entry *e = &t->e[(token >> 26) & 0x3f];

	return e->inuse && e->token == token;
}

unsigned int seqtab_owner_count(const struct seqtab *t, const void *owner)
{
	unsigned int i, n = 0;

	for (i = 0; i < SEQTAB_SLOTS; i++)
		n += t->e[i].inuse && t->e[i].owner == owner;
	return n;
}

unsigned int seqtab_in_use(const struct seqtab *t)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < SEQTAB_SLOTS; i++)
		n += t->e[i].inuse;
	return n;
}
