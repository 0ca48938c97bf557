// SPDX-License-Identifier: GPL-2.0
/*
 * handover_pend.c - no answer lost silently at a crash. Each request SEND
 * accepted (it returned 0) is journaled in the state memfd, per node, until
 * its file has read its answer (RECEIVE took it off the queue) or closed.
 * After a kill -9 the answers queued or in flight are gone with the
 * process; the next process, taking the files over, answers each journaled
 * request as the stock driver answers a request whose answer it lost: a
 * response with cc 0xFF (system interface: the interface gave up) or 0xC3
 * (bridged: the retries ran out), which the client RECEIVEs and its poll()
 * sees (handover.c, ho_pend_answer). After a graceful restart the queues
 * came over with the records: only a request without an answer among them
 * gets one.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/ipmi_msgdefs.h>

#include "core/ipmb.h"
#include "cuse/cuse.h"
#include "cuse/handover_priv.h"

bool ho_pend_add(struct ho_pends *s, uint64_t fh, uint64_t unique,
		 const struct ipmi_request *rq)
{
	struct ho_pend *p = NULL;

	for (uint32_t i = 0; i < s->npend && i < HO_PEND; i++)
		if (s->pend[i].fh == 0) {
			p = &s->pend[i];
			break;
		}
	if (!p) {
		if (s->npend >= HO_PEND)
			return false;
		p = &s->pend[s->npend++];
	}
	p->unique = unique;
	p->msgid = rq->msgid;
	p->addr = rq->addr;
	p->addr_raw_len = rq->addr_len > sizeof(p->addr_raw) ?
				  sizeof(p->addr_raw) :
				  (uint8_t)rq->addr_len;
	if (p->addr_raw_len)
		memcpy(p->addr_raw, rq->addr_raw, p->addr_raw_len);
	p->netfn = rq->netfn;
	p->cmd = rq->cmd;
	/* the slot counts once fh is in: a crash mid-way leaves it free */
	__atomic_store_n(&p->fh, fh, __ATOMIC_RELEASE);
	return true;
}

/* npend down past the free slots at its end */
static void ho_pend_trim(struct ho_pends *s)
{
	while (s->npend && s->pend[s->npend - 1].fh == 0)
		s->npend--;
}

void ho_pend_done(struct ho_pends *s, uint64_t fh, int64_t msgid)
{
	struct ho_pend *old = NULL;

	/* the oldest: same fh and msgid answer in the order sent, as far
	 * as the client can tell them apart */
	for (uint32_t i = 0; i < s->npend && i < HO_PEND; i++) {
		struct ho_pend *p = &s->pend[i];

		if (p->fh == fh && p->msgid == msgid &&
		    (!old || p->unique < old->unique))
			old = p;
	}
	if (old)
		old->fh = 0;
	ho_pend_trim(s);
}

void ho_pend_drop(struct ho_pends *s, uint64_t fh, uint64_t unique)
{
	for (uint32_t i = 0; i < s->npend && i < HO_PEND; i++) {
		struct ho_pend *p = &s->pend[i];

		if (p->fh && (fh ? p->fh == fh : p->unique == unique))
			p->fh = 0;
	}
	ho_pend_trim(s);
}

struct kmsg *ho_pend_error(const struct ho_pend *p)
{
	struct ipmb_user_msg u;
	struct kmsg *m;
	uint8_t cc = IPMI_ERR_UNSPECIFIED;

	if (p->addr.addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE) {
		memset(&u, 0, sizeof(u));
		u.recv_type = IPMI_RESPONSE_RECV_TYPE;
		u.addr = p->addr;
		u.msgid = p->msgid;
		u.netfn = p->netfn | 1;
		u.cmd = p->cmd;
		u.data_len = 1;
		u.data[0] = cc;
	} else {
		cc = IPMI_TIMEOUT_ERR;
		ipmb_user_error(&p->addr, p->msgid, p->netfn, p->cmd, cc, &u);
	}
	m = kmsg_new(&u);
	if (!m)
		return NULL;
	/* a system-interface response echoes its request's address bytes */
	if (p->addr.addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE) {
		memcpy(m->addr_raw, p->addr_raw, p->addr_raw_len);
		m->addr_raw_len = p->addr_raw_len;
	}
	return m;
}
