// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/core/seqtab.c: slot allocation and exhaustion, Send
 * Message completions, response matching, retries/timeouts with exact
 * deadlines, broadcasts and owner cancellation.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ipmi.h>
#include <linux/ipmi_msgdefs.h>

#include "core/ipmb.h"
#include "core/seqtab.h"

#define MS 1000000ull
#define T0 (1000 * MS) /* an arbitrary start time */

static struct seqtab tab;
static int owner_a, owner_b;

static struct seqtab_req req_to(uint8_t sa, void *owner, int64_t msgid)
{
	return (struct seqtab_req){
		.owner = owner,
		.rq = { .msgid = msgid,
			.addr = { .addr_type = IPMI_IPMB_ADDR_TYPE,
				  .channel = 0,
				  .slave_addr = sa,
				  .lun = 0 },
			.netfn = 6,
			.cmd = 1,
			.retries = -1,
			.retry_ms = 0 },
		.my_sa = 0x20,
		.my_lun = 2,
	};
}

/* seqtab_match() of a response with these fields. */
static int match(struct seqtab *t, uint8_t seq, uint8_t channel, uint8_t rs_sa,
		 uint8_t rs_lun, uint8_t rsp_netfn, uint8_t cmd,
		 struct seqtab_entry *gone)
{
	struct ipmb_rx rx = {
		.channel = channel,
		.is_response = rsp_netfn & 1,
		.netfn = rsp_netfn,
		.src_sa = rs_sa,
		.src_lun = rs_lun,
		.seq = seq,
		.cmd = cmd,
	};

	return seqtab_match(t, &rx, gone);
}

static void setup(void)
{
	seqtab_init(&tab);
}

START_TEST(test_alloc_first)
{
	/* v_getdevid of test_ipmb with seq 0: 0x20 LUN 2, seq 0 -> 0x02 */
	static const uint8_t want[] = {
		0x18, 0x34, 0x00, 0x82, 0x18, 0x66, 0x20, 0x02, 0x01, 0xdd,
	};
	struct seqtab_req r = req_to(0x82, &owner_a, 77);
	const struct seqtab_entry *e;

	ck_assert_uint_eq(seqtab_next_deadline(&tab), SEQTAB_NO_DEADLINE);
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 0);
	ck_assert(e->inuse);
	ck_assert_uint_eq(e->seq, 0);
	ck_assert_uint_eq(e->token >> 26, 0);
	ck_assert_uint_eq(e->token & 0x3ffffff, 1);
	ck_assert_ptr_eq(e->owner, &owner_a);
	ck_assert_int_eq(e->msgid, 77);
	ck_assert_uint_eq(e->retries_left, ABI_DEFAULT_RETRIES);
	ck_assert_uint_eq(e->retry_ns, ABI_DEFAULT_RETRY_MS * MS);
	ck_assert(!e->timing);
	ck_assert_uint_eq(e->deadline_ns, T0 + SEQTAB_SEND_WAIT_NS);
	ck_assert_uint_eq(seqtab_next_deadline(&tab), T0 + SEQTAB_SEND_WAIT_NS);
	ck_assert_uint_eq(e->req_len, sizeof(want));
	ck_assert_mem_eq(e->req, want, sizeof(want));
	ck_assert_uint_eq(seqtab_in_use(&tab), 1);
}
END_TEST

START_TEST(test_alloc_errors)
{
	static uint8_t big[ABI_MAX_MSG_LENGTH];
	struct seqtab_req r = req_to(0x82, &owner_a, 1);
	const struct seqtab_entry *e;

	r.rq.netfn = 7; /* responses have no slot */
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), -EINVAL);
	r = req_to(0x82, &owner_a, 1);
	r.rq.addr.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), -EINVAL);
	r = req_to(0x82, &owner_a, 1);
	r.rq.data = big;
	r.rq.len = 263;
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), -EMSGSIZE);
	ck_assert_uint_eq(seqtab_in_use(&tab), 0);
	/* nothing was consumed: the next alloc still gets slot 0 */
	r.rq.len = 262;
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 0);
	ck_assert_uint_eq(e->req_len, 272);
}
END_TEST

START_TEST(test_exhaustion)
{
	struct seqtab_req r = req_to(0x82, &owner_a, 0);
	const struct seqtab_entry *e;
	struct seqtab_entry gone;

	for (int i = 0; i < SEQTAB_SLOTS; i++) {
		r.rq.msgid = i;
		ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), i);
		ck_assert_uint_eq(e->req[7] >> 2, (unsigned int)i);
	}
	ck_assert_uint_eq(seqtab_in_use(&tab), SEQTAB_SLOTS);
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), -EAGAIN);
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), -EAGAIN);
	/* a too-long request is still -EMSGSIZE, as the driver checks first */
	{
		static uint8_t big[300];

		r.rq.data = big;
		r.rq.len = 300;
		ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), -EMSGSIZE);
		r.rq.data = NULL;
		r.rq.len = 0;
	}
	/* free slot 17: the only candidate */
	ck_assert_int_eq(match(&tab, 17, 0, 0x82, 0, 7, 1, &gone), 0);
	ck_assert_int_eq(gone.msgid, 17);
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 17);
	ck_assert_uint_eq(e->token & 0x3ffffff, 2); /* second generation */
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), -EAGAIN);
}
END_TEST

/* a freed slot is not reused before the others */
START_TEST(test_round_robin)
{
	struct seqtab_req r = req_to(0x82, &owner_a, 0);
	const struct seqtab_entry *e;
	struct seqtab_entry gone;

	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 0);
	ck_assert_int_eq(match(&tab, 0, 0, 0x82, 0, 7, 1, &gone), 0);
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 1);
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 2);
	for (int i = 3; i < SEQTAB_SLOTS; i++)
		ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), i);
	/* wraps around to the free slot 0 */
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 0);
}
END_TEST

START_TEST(test_match)
{
	struct seqtab_req r = req_to(0x82, &owner_a, 55);
	const struct seqtab_entry *e;
	struct seqtab_entry gone;

	r.rq.addr.channel = 2;
	r.rq.addr.lun = 1;
	r.rq.netfn = 0x0a;
	r.rq.cmd = 0x10;
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 0);
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 1);
	/* seq, channel, responder SA, LUN, netfn, cmd must all agree */
	ck_assert_int_eq(match(&tab, 2, 2, 0x82, 1, 0x0b, 0x10, &gone),
			 -ENOENT); /* unused seq */
	ck_assert_int_eq(match(&tab, 64, 2, 0x82, 1, 0x0b, 0x10, &gone),
			 -ENOENT);
	ck_assert_int_eq(match(&tab, 1, 3, 0x82, 1, 0x0b, 0x10, &gone),
			 -ENOENT); /* channel */
	ck_assert_int_eq(match(&tab, 1, 2, 0x84, 1, 0x0b, 0x10, &gone),
			 -ENOENT); /* SA */
	ck_assert_int_eq(match(&tab, 1, 2, 0x82, 0, 0x0b, 0x10, &gone),
			 -ENOENT); /* LUN */
	ck_assert_int_eq(match(&tab, 1, 2, 0x82, 1, 0x0d, 0x10, &gone),
			 -ENOENT); /* netfn */
	ck_assert_int_eq(match(&tab, 1, 2, 0x82, 1, 0x0b, 0x11, &gone),
			 -ENOENT); /* cmd */
	ck_assert_uint_eq(seqtab_in_use(&tab), 2);
	ck_assert_int_eq(match(&tab, 1, 2, 0x82, 1, 0x0b, 0x10, &gone), 0);
	ck_assert_uint_eq(gone.seq, 1);
	ck_assert_int_eq(gone.msgid, 55);
	ck_assert_ptr_eq(gone.owner, &owner_a);
	ck_assert_uint_eq(gone.netfn, 0x0a);
	ck_assert_uint_eq(gone.cmd, 0x10);
	/* a duplicate answer finds nothing */
	ck_assert_int_eq(match(&tab, 1, 2, 0x82, 1, 0x0b, 0x10, &gone),
			 -ENOENT);
	ck_assert_uint_eq(seqtab_in_use(&tab), 1);
}
END_TEST

START_TEST(test_send_done)
{
	struct seqtab_req r = req_to(0x82, &owner_a, 3);
	const struct seqtab_entry *e;
	struct seqtab_entry gone;
	uint32_t tok;

	r.rq.retry_ms = 1500;
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 0);
	tok = e->token;
	ck_assert_int_eq(seqtab_send_done(&tab, tok ^ 1, 0, T0, &gone),
			 -ENOENT);
	ck_assert_int_eq(seqtab_send_done(&tab, tok, 0, T0 + 3 * MS, &gone),
			 SEQTAB_TIMER_STARTED);
	ck_assert(e->timing);
	ck_assert_uint_eq(e->deadline_ns, T0 + 1503 * MS);
	ck_assert_uint_eq(seqtab_next_deadline(&tab), T0 + 1503 * MS);
	/* the "try again" codes also just start the timer */
	ck_assert_int_eq(seqtab_send_done(&tab, tok, IPMI_NODE_BUSY_ERR,
					  T0 + 5 * MS, &gone),
			 SEQTAB_TIMER_STARTED);
	ck_assert_int_eq(seqtab_send_done(&tab, tok, IPMI_LOST_ARBITRATION_ERR,
					  T0, &gone),
			 SEQTAB_TIMER_STARTED);
	ck_assert_int_eq(seqtab_send_done(&tab, tok, IPMI_BUS_ERR, T0, &gone),
			 SEQTAB_TIMER_STARTED);
	ck_assert_int_eq(seqtab_send_done(&tab, tok, IPMI_NAK_ON_WRITE_ERR, T0,
					  &gone),
			 SEQTAB_TIMER_STARTED);
	ck_assert_uint_eq(seqtab_in_use(&tab), 1);
	/* anything else fails the request now */
	ck_assert_int_eq(seqtab_send_done(&tab, tok, 0xcc, T0, &gone),
			 SEQTAB_FAILED);
	ck_assert_int_eq(gone.msgid, 3);
	ck_assert_uint_eq(seqtab_in_use(&tab), 0);
	ck_assert_int_eq(seqtab_send_done(&tab, tok, 0, T0, &gone), -ENOENT);
	/* a stale token does not touch the slot's next user */
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 1);
	ck_assert_int_eq(match(&tab, 1, 0, 0x82, 0, 7, 1, &gone), 0);
	for (int i = 2; i < SEQTAB_SLOTS; i++)
		ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), i);
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 0); /* reused */
	ck_assert_uint_ne(e->token, tok);
	ck_assert_int_eq(seqtab_send_done(&tab, tok, 0xcc, T0, &gone), -ENOENT);
	ck_assert_int_eq(seqtab_send_done(&tab, e->token, 0xff, T0, &gone),
			 SEQTAB_FAILED);
}
END_TEST

/* 2 retries of 1 s: exactly 2 resends, then the timeout */
START_TEST(test_retries_then_timeout)
{
	struct seqtab_req r = req_to(0x82, &owner_a, 9);
	const struct seqtab_entry *e;
	struct seqtab_entry x, gone;
	uint8_t first[ABI_MAX_MSG_LENGTH];
	uint16_t first_len;
	uint32_t tok;
	uint64_t now = T0;
	int resends = 0, rv;

	r.rq.retries = 2;
	r.rq.retry_ms = 1000;
	ck_assert_int_eq(seqtab_alloc(&tab, &r, now, &e), 0);
	tok = e->token;
	first_len = e->req_len;
	memcpy(first, e->req, first_len);
	ck_assert_uint_eq(e->retries_left, 2);

	now += 2 * MS; /* the Send Message completes */
	ck_assert_int_eq(seqtab_send_done(&tab, tok, 0, now, &gone),
			 SEQTAB_TIMER_STARTED);
	ck_assert_uint_eq(seqtab_next_deadline(&tab), now + 1000 * MS);
	ck_assert_int_eq(seqtab_expire(&tab, now + 1000 * MS - 1, &x),
			 SEQTAB_NONE);

	for (;;) {
		now = seqtab_next_deadline(&tab);
		rv = seqtab_expire(&tab, now, &x);
		if (rv != SEQTAB_RESEND)
			break;
		resends++;
		ck_assert_uint_eq(x.retries_left, (unsigned int)(2 - resends));
		ck_assert_uint_eq(x.token, tok); /* same seq, same id */
		ck_assert_uint_eq(x.req_len, first_len);
		ck_assert_mem_eq(x.req, first, first_len);
		ck_assert(!x.timing);
		ck_assert_uint_eq(x.deadline_ns, now + SEQTAB_SEND_WAIT_NS);
		ck_assert_uint_eq(seqtab_next_deadline(&tab),
				  now + SEQTAB_SEND_WAIT_NS);
		ck_assert_int_eq(seqtab_expire(&tab, now, &x), SEQTAB_NONE);
		now += 1 * MS;
		ck_assert_int_eq(seqtab_send_done(&tab, tok, 0, now, &gone),
				 SEQTAB_TIMER_STARTED);
		ck_assert_uint_eq(seqtab_next_deadline(&tab), now + 1000 * MS);
	}
	ck_assert_int_eq(rv, SEQTAB_TIMEOUT);
	ck_assert_int_eq(resends, 2);
	ck_assert_uint_eq(now, T0 + 2 * MS + 3 * 1000 * MS + 2 * MS);
	ck_assert_int_eq(x.msgid, 9);
	ck_assert_uint_eq(seqtab_in_use(&tab), 0);
	ck_assert_uint_eq(seqtab_next_deadline(&tab), SEQTAB_NO_DEADLINE);
	ck_assert_int_eq(seqtab_expire(&tab, UINT64_MAX, &x), SEQTAB_NONE);
	/* the late answer is dropped */
	ck_assert_int_eq(match(&tab, 0, 0, 0x82, 0, 7, 1, &gone), -ENOENT);
	ck_assert_int_eq(seqtab_send_done(&tab, tok, 0, now, &gone), -ENOENT);
}
END_TEST

/* after a resend, an answer to the first attempt still completes it */
START_TEST(test_answer_after_resend)
{
	struct seqtab_req r = req_to(0x82, &owner_a, 4);
	const struct seqtab_entry *e;
	struct seqtab_entry x, gone;

	r.rq.retries = 1;
	r.rq.retry_ms = 100;
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 0);
	ck_assert_int_eq(seqtab_send_done(&tab, e->token, 0, T0, &gone),
			 SEQTAB_TIMER_STARTED);
	ck_assert_int_eq(seqtab_expire(&tab, T0 + 100 * MS, &x), SEQTAB_RESEND);
	ck_assert_int_eq(match(&tab, 0, 0, 0x82, 0, 7, 1, &gone), 0);
	ck_assert_int_eq(gone.msgid, 4);
	ck_assert_int_eq(seqtab_expire(&tab, UINT64_MAX, &x), SEQTAB_NONE);
}
END_TEST

/* a Send Message that never completes: the 60 s guard takes over */
START_TEST(test_send_never_completes)
{
	struct seqtab_req r = req_to(0x82, &owner_a, 4);
	const struct seqtab_entry *e;
	struct seqtab_entry x;

	r.rq.retries = 0;
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 0);
	ck_assert_int_eq(seqtab_expire(&tab, T0 + SEQTAB_SEND_WAIT_NS - 1, &x),
			 SEQTAB_NONE);
	ck_assert_int_eq(seqtab_expire(&tab, T0 + SEQTAB_SEND_WAIT_NS, &x),
			 SEQTAB_TIMEOUT);
}
END_TEST

START_TEST(test_broadcast)
{
	struct seqtab_req r = req_to(0x82, &owner_a, 21);
	const struct seqtab_entry *e;
	struct seqtab_entry x, gone;
	struct ipmb_user_msg m;

	r.rq.addr.addr_type = IPMI_IPMB_BROADCAST_ADDR_TYPE;
	r.rq.retries = 4; /* ignored: broadcasts are never retried */
	r.rq.retry_ms = 500;
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), 0);
	ck_assert(e->broadcast);
	ck_assert_uint_eq(e->retries_left, 0);
	ck_assert_uint_eq(e->req_len, 11);
	ck_assert_uint_eq(e->req[3], 0x00);
	ck_assert_uint_eq(e->req[4], 0x82);
	ck_assert_int_eq(seqtab_send_done(&tab, e->token, 0, T0, &gone),
			 SEQTAB_TIMER_STARTED);
	ck_assert_int_eq(seqtab_expire(&tab, T0 + 499 * MS, &x), SEQTAB_NONE);
	ck_assert_int_eq(seqtab_expire(&tab, T0 + 500 * MS, &x),
			 SEQTAB_TIMEOUT);
	ck_assert(x.broadcast);
	/* the client sees a plain IPMB address, netfn | 1, {0xC3} */
	ipmb_user_error(&x.addr, x.msgid, x.netfn, x.cmd, IPMI_TIMEOUT_ERR, &m);
	ck_assert_int_eq(m.recv_type, IPMI_RESPONSE_RECV_TYPE);
	ck_assert_int_eq(m.addr.addr_type, IPMI_IPMB_ADDR_TYPE);
	ck_assert_uint_eq(m.addr.slave_addr, 0x82);
	ck_assert_int_eq(m.msgid, 21);
	ck_assert_uint_eq(m.netfn, 7);
	ck_assert_uint_eq(m.cmd, 1);
	ck_assert_uint_eq(m.data_len, 1);
	ck_assert_uint_eq(m.data[0], 0xc3);
}
END_TEST

/* several entries expire in one go: lowest slot first, one per call */
START_TEST(test_multiple_expiries)
{
	struct seqtab_req r = req_to(0x82, &owner_a, 0);
	const struct seqtab_entry *e;
	struct seqtab_entry x, gone;
	uint32_t tok[3];

	r.rq.retries = 0;
	r.rq.retry_ms = 10;
	for (int i = 0; i < 3; i++) {
		r.rq.msgid = 100 + i;
		ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), i);
		tok[i] = e->token;
	}
	ck_assert_int_eq(seqtab_send_done(&tab, tok[2], 0, T0, &gone), 0);
	ck_assert_int_eq(seqtab_send_done(&tab, tok[0], 0, T0 + 5 * MS, &gone),
			 0);
	ck_assert_int_eq(seqtab_send_done(&tab, tok[1], 0, T0 + 50 * MS, &gone),
			 0);
	ck_assert_uint_eq(seqtab_next_deadline(&tab), T0 + 10 * MS);
	ck_assert_int_eq(seqtab_expire(&tab, T0 + 15 * MS, &x), SEQTAB_TIMEOUT);
	ck_assert_int_eq(x.msgid, 100);
	ck_assert_int_eq(seqtab_expire(&tab, T0 + 15 * MS, &x), SEQTAB_TIMEOUT);
	ck_assert_int_eq(x.msgid, 102);
	ck_assert_int_eq(seqtab_expire(&tab, T0 + 15 * MS, &x), SEQTAB_NONE);
	ck_assert_uint_eq(seqtab_next_deadline(&tab), T0 + 60 * MS);
}
END_TEST

START_TEST(test_cancel_owner)
{
	struct seqtab_req ra = req_to(0x82, &owner_a, 0);
	struct seqtab_req rb = req_to(0x84, &owner_b, 0);
	const struct seqtab_entry *e;
	struct seqtab_entry gone, x;
	uint32_t tok_a = 0;

	rb.rq.retries = 0;

	for (int i = 0; i < 5; i++) {
		ck_assert_int_ge(seqtab_alloc(&tab, i & 1 ? &rb : &ra, T0, &e),
				 0);
		if (i == 0)
			tok_a = e->token;
	}
	ck_assert_uint_eq(seqtab_cancel_owner(&tab, &owner_a), 3);
	ck_assert_uint_eq(seqtab_in_use(&tab), 2);
	ck_assert_uint_eq(seqtab_cancel_owner(&tab, &owner_a), 0);
	/* no completion, answer or timeout for the cancelled ones */
	ck_assert_int_eq(seqtab_send_done(&tab, tok_a, 0, T0, &gone), -ENOENT);
	ck_assert_int_eq(match(&tab, 0, 0, 0x82, 0, 7, 1, &gone), -ENOENT);
	ck_assert_int_eq(match(&tab, 1, 0, 0x84, 0, 7, 1, &gone), 0);
	ck_assert_ptr_eq(gone.owner, &owner_b);
	ck_assert_int_eq(seqtab_expire(&tab, UINT64_MAX, &x), SEQTAB_TIMEOUT);
	ck_assert_ptr_eq(x.owner, &owner_b);
	ck_assert_int_eq(seqtab_expire(&tab, UINT64_MAX, &x), SEQTAB_NONE);
	ck_assert_uint_eq(seqtab_cancel_owner(&tab, &owner_b), 0);
}
END_TEST

/* A node's share: group_max slots per group, the others keep theirs. */
START_TEST(test_group_share)
{
	static int node_a, node_b;
	struct seqtab_req r = req_to(0x82, &owner_a, 1);
	const struct seqtab_entry *e;
	unsigned int i;

	r.group = &node_a;
	r.group_max = 32;
	for (i = 0; i < 32; i++)
		ck_assert_int_ge(seqtab_alloc(&tab, &r, T0, &e), 0);
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), -EAGAIN);
	ck_assert_uint_eq(seqtab_group_count(&tab, &node_a), 32);
	/* another node still gets its 32 */
	r.owner = &owner_b;
	r.group = &node_b;
	for (i = 0; i < 32; i++)
		ck_assert_int_ge(seqtab_alloc(&tab, &r, T0, &e), 0);
	ck_assert_int_eq(seqtab_alloc(&tab, &r, T0, &e), -EAGAIN);
	/* a freed slot of A is A's again */
	ck_assert_uint_eq(seqtab_cancel_owner(&tab, &owner_a), 32);
	r.owner = &owner_a;
	r.group = &node_a;
	ck_assert_int_ge(seqtab_alloc(&tab, &r, T0, &e), 0);
	ck_assert_uint_eq(seqtab_group_count(&tab, &node_b), 32);
}
END_TEST

/* Retries and retry time within bounds, whatever SETTIME asked. */
START_TEST(test_clamp_timing)
{
	int32_t rt;
	uint32_t ms;

	rt = 1000000;
	ms = 1;
	seqtab_clamp_timing(&rt, &ms);
	ck_assert_int_eq(rt, SEQTAB_MAX_RETRIES);
	ck_assert_uint_eq(ms, SEQTAB_MIN_RETRY_MS);
	rt = INT32_MAX;
	ms = UINT32_MAX;
	seqtab_clamp_timing(&rt, &ms);
	ck_assert_int_eq(rt, SEQTAB_MAX_RETRIES);
	ck_assert_uint_eq(ms, SEQTAB_MAX_RETRY_MS);
	rt = 4;
	ms = 2000; /* the defaults pass as they are */
	seqtab_clamp_timing(&rt, &ms);
	ck_assert_int_eq(rt, 4);
	ck_assert_uint_eq(ms, 2000);
	rt = 0;
	ms = 1000;
	seqtab_clamp_timing(&rt, &ms);
	ck_assert_int_eq(rt, 0);
	ck_assert_uint_eq(ms, 1000);
	ck_assert_int_le(SEQTAB_MAX_RETRIES, 10);
	ck_assert_uint_ge(SEQTAB_MIN_RETRY_MS, 1000);
	/* a node that is not the admins': at most 4 x 5 s, the defaults
	 * as they are */
	rt = 10;
	ms = 60000;
	seqtab_clamp_user(&rt, &ms);
	ck_assert_int_eq(rt, 4);
	ck_assert_uint_eq(ms, 5000);
	rt = 4;
	ms = 2000;
	seqtab_clamp_user(&rt, &ms);
	ck_assert_int_eq(rt, 4);
	ck_assert_uint_eq(ms, 2000);
}
END_TEST

static Suite *seqtab_suite(void)
{
	Suite *s = suite_create("seqtab");
	TCase *tc = tcase_create("slots");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_alloc_first);
	tcase_add_test(tc, test_alloc_errors);
	tcase_add_test(tc, test_exhaustion);
	tcase_add_test(tc, test_round_robin);
	tcase_add_test(tc, test_match);
	tcase_add_test(tc, test_send_done);
	suite_add_tcase(s, tc);

	tc = tcase_create("time");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_retries_then_timeout);
	tcase_add_test(tc, test_answer_after_resend);
	tcase_add_test(tc, test_send_never_completes);
	tcase_add_test(tc, test_broadcast);
	tcase_add_test(tc, test_multiple_expiries);
	tcase_add_test(tc, test_cancel_owner);
	tcase_add_test(tc, test_group_share);
	tcase_add_test(tc, test_clamp_timing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(seqtab_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
