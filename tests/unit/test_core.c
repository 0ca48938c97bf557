// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for the core through its seams, with no CUSE and no device:
 * fused/core/xact.c (queueing, the scheduler's pick, completion, cancel when
 * the owner goes, a failed submit), fused/core/bridge.c (Send Message
 * framing, the sequence table's retries and timeout, Get Message delivery
 * to the owner through d->up, events, incoming commands) and
 * fused/core/bmcsetup.c (global enables, the channel scan, the check again
 * after a hosed interface) against a fake backend (fake_backend.c) and
 * recording upcalls, on a libevent base run by the test. The clock
 * (now_ns) is wrapped to count its readings on the request path.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <linux/ipmi.h>
#include <linux/ipmi_msgdefs.h>

#include "core/core.h"
#include "core/xact.h"
#include "core_fixture.h"
#include "fake_backend.h"
#include "node_conf.h"

/* node a: policy bulk, b: interactive */
static struct core_fixture fx;

/* what went up */
static struct {
	unsigned int bridged, commands, events, gone, done;
	void *owner;		  /* of the last bridged / done */
	struct ipmb_user_msg msg; /* the last bridged/command/event */
	bool take_commands;
	int status; /* of the last done */
	uint8_t resp[64];
	unsigned int len;
	uint8_t order[16]; /* netfn of each done, in order */
} up;

static void up_bridged(struct daemon *dd, void *owner,
		       const struct ipmb_user_msg *m)
{
	ck_assert_ptr_eq(dd, &fx.d);
	up.bridged++;
	up.owner = owner;
	up.msg = *m;
}

static bool up_command(struct daemon *dd, const struct ipmb_user_msg *m,
		       uint8_t netfn, uint8_t cmd, unsigned int chan)
{
	(void)dd;
	(void)netfn;
	(void)cmd;
	(void)chan;
	up.commands++;
	up.msg = *m;
	return up.take_commands;
}

static void up_event(struct daemon *dd, const struct ipmb_user_msg *m)
{
	(void)dd;
	up.events++;
	up.msg = *m;
}

static bool up_waiters(struct daemon *dd)
{
	(void)dd;
	return false;
}

static void up_xact_gone(struct xact *x)
{
	ck_assert_ptr_nonnull(x->owner);
	up.gone++;
}

static const struct core_upcalls rec_up = {
	.bridged = up_bridged,
	.command = up_command,
	.event = up_event,
	.waiters = up_waiters,
	.xact_gone = up_xact_gone,
};

static void setup(void)
{
	memset(&up, 0, sizeof(up));
	core_fixture_open(&fx, &rec_up);
	test_node_conf(&fx.conf_a, "a", KCSMUX_PRESET_BULK, KCSMUX_ACCESS_ALL);
	test_node_conf(&fx.conf_b, "b", KCSMUX_PRESET_INTERACTIVE,
		       KCSMUX_ACCESS_ALL);
	fx.d.my_address = 0x20;
	memset(fx.d.chan_address, 0x20, sizeof(fx.d.chan_address));
	memset(fx.d.chan_lun, 2, sizeof(fx.d.chan_lun));
	core_fixture_attach(&fx);
}

static void teardown(void)
{
	core_fixture_close(&fx);
}

/* ------------------------------------------------------------------ */
/* transactions */

static void rec_done(struct xact *x, int status, const uint8_t *resp,
		     unsigned int len)
{
	if (up.done < sizeof(up.order))
		up.order[up.done] = x->netfn;
	up.done++;
	up.owner = x->owner;
	up.status = status;
	up.len = len < sizeof(up.resp) ? len : sizeof(up.resp);
	if (resp)
		memcpy(up.resp, resp, up.len);
	xact_free(x);
}

/* A node's (or, n NULL, the daemon's own) request netfn/cmd. */
static struct xact *mk(struct node *n, void *owner, uint8_t netfn, uint8_t cmd)
{
	return core_fixture_xact(&fx, n, owner, netfn, cmd, rec_done);
}

START_TEST(test_submit_complete)
{
	static const uint8_t id[] = { 0x20, 0x01, 0x00 };
	struct xact *x1 = mk(&fx.na, NULL, 6, 1), *x2 = mk(&fx.na, NULL, 6, 2);

	ck_assert_int_eq(xact_enqueue(x1), 0);
	ck_assert_int_eq(xact_enqueue(x2), 0);
	/* depth 1: one in the backend, one in the node's queue */
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	ck_assert_uint_eq(fx.fb->subs[0].len, 2);
	ck_assert_uint_eq(fx.fb->subs[0].req[0], 0x18);
	ck_assert_uint_eq(fx.fb->subs[0].req[1], 0x01);
	ck_assert(!fx.fb->subs[0].bridged);
	ck_assert_uint_eq(fx.na.st.requests, 2);
	fake_answer(fx.fb, id, sizeof(id));
	ck_assert_uint_eq(up.done, 1);
	ck_assert_int_eq(up.status, 0);
	ck_assert_uint_eq(up.len, 6);
	ck_assert_uint_eq(up.resp[0], 0x1c);
	ck_assert_mem_eq(up.resp + 3, id, sizeof(id));
	ck_assert_uint_eq(fx.na.st.completed, 1);
	/* the completion made room: the next one went */
	ck_assert_uint_eq(fx.fb->nsubs, 2);
	ck_assert_uint_eq(fx.fb->subs[1].req[1], 0x02);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(up.done, 2);
	ck_assert_uint_eq(fx.na.st.completed, 2);
	ck_assert_uint_eq(fx.fb->nsubs, 2);
	ck_assert_uint_eq(up.gone, 0); /* unowned: nothing to drop */
}
END_TEST

/* The clock on the request path (util/clock.c, wrapped: counted). */
static unsigned int clock_reads;

uint64_t __real_now_ns(void);
uint64_t __wrap_now_ns(void);

uint64_t __wrap_now_ns(void)
{
	clock_reads++;
	return __real_now_ns();
}

/* Besides the CPU meter's boundaries (cpumeter.h, counted apart): read
 * once when the transaction is made, once by the kick that submits
 * it (its pick, policy and submit time share the reading), once when it
 * completes; the kick after the completion, with nothing queued, reads
 * none. */
START_TEST(test_clock_reads)
{
	struct xact *x;
	unsigned int before = clock_reads;
	uint64_t meter = fx.d.cpu.reads;

	x = mk(&fx.nb, NULL, 6, 1);
	ck_assert_uint_eq(clock_reads - before - (fx.d.cpu.reads - meter), 1);
	before = clock_reads;
	meter = fx.d.cpu.reads;
	ck_assert_int_eq(xact_enqueue(x), 0);
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	ck_assert_uint_eq(clock_reads - before - (fx.d.cpu.reads - meter), 1);
	before = clock_reads;
	meter = fx.d.cpu.reads;
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(up.done, 1);
	ck_assert_uint_eq(fx.nb.st.completed, 1);
	ck_assert_uint_eq(clock_reads - before - (fx.d.cpu.reads - meter), 1);
}
END_TEST

/* A hosed interface marks the BMC silent (once, however often it is
 * hosed meanwhile; logged) until the next answer; a failed completion
 * is not an answer. */
START_TEST(test_bmc_silence)
{
	static const uint8_t id[] = { 0x20 };
	struct xact *x1 = mk(&fx.na, NULL, 6, 1), *x2 = mk(&fx.na, NULL, 6, 2);

	ck_assert(!fx.d.bmc_silent);
	core_backend_cbs.hosed(&fx.d);
	core_backend_cbs.hosed(&fx.d);
	ck_assert(fx.d.bmc_silent);
	ck_assert_uint_eq(fx.d.bmc_silences, 1);
	ck_assert_uint_gt(fx.d.bmc_silent_since_ns, 0);
	ck_assert_int_eq(xact_enqueue(x1), 0);
	ck_assert_int_eq(xact_enqueue(x2), 0);
	fake_complete(fx.fb, fake_pending(fx.fb), -ETIMEDOUT, NULL, 0);
	ck_assert(fx.d.bmc_silent);
	fake_answer(fx.fb, id, sizeof(id));
	ck_assert(!fx.d.bmc_silent);
	core_backend_cbs.hosed(&fx.d);
	ck_assert(fx.d.bmc_silent);
	ck_assert_uint_eq(fx.d.bmc_silences, 2);
}
END_TEST

/* The BMC's identity for kcsmuxctl status: the data of a successful Get
 * Device ID from the BMC itself, learnt without sending one. */
START_TEST(test_bmc_identity)
{
	static const uint8_t id[] = { 0x20, 0x81, 0x02, 0x41, 0x02, 0xbf,
				      0x57, 0x01, 0x00, 0x3c, 0x0b };
	static const uint8_t other[] = { 0x21, 0x01, 0x03, 0x10, 0x51, 0x00,
					 0x00, 0x00, 0x00, 0x00, 0x00 };
	static const uint8_t refused[] = { 0x1c, 0x01, 0xc1 };
	struct xact *x;

	ck_assert_uint_eq(fx.d.bmc_id_len, 0);
	/* too short to be one */
	ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 6, 1)), 0);
	fake_answer(fx.fb, id, 3);
	ck_assert_uint_eq(fx.d.bmc_id_len, 0);
	ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 6, 1)), 0);
	fake_answer(fx.fb, id, sizeof(id));
	ck_assert_uint_eq(fx.d.bmc_id_len, sizeof(id));
	ck_assert_mem_eq(fx.d.bmc_id, id, sizeof(id));
	/* another command's answer, a refused Get Device ID: kept */
	ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 6, 2)), 0);
	fake_answer(fx.fb, other, sizeof(other));
	ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 6, 1)), 0);
	fake_complete(fx.fb, fake_pending(fx.fb), 0, refused, sizeof(refused));
	ck_assert_mem_eq(fx.d.bmc_id, id, sizeof(id));
	/* the daemon's own request counts too */
	x = mk(NULL, NULL, 6, 1);
	ck_assert_int_eq(xact_enqueue(x), 0);
	fake_answer(fx.fb, other, sizeof(other));
	ck_assert_mem_eq(fx.d.bmc_id, other, sizeof(other));
}
END_TEST

START_TEST(test_pick_order)
{
	/* a's first runs; then queued: a (bulk) twice, b (interactive),
	 * the daemon's own; the daemon's goes first, then the interactive
	 * node's, then bulk in its order */
	ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 0x06, 1)), 0);
	ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 0x0a, 1)), 0);
	ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 0x0c, 1)), 0);
	ck_assert_int_eq(xact_enqueue(mk(&fx.nb, NULL, 0x04, 1)), 0);
	ck_assert_int_eq(xact_enqueue(mk(NULL, NULL, 0x2c, 1)), 0);
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	for (int i = 0; i < 5; i++)
		fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(up.done, 5);
	ck_assert_uint_eq(up.order[0], 0x06);
	ck_assert_uint_eq(up.order[1], 0x2c);
	ck_assert_uint_eq(up.order[2], 0x04);
	ck_assert_uint_eq(up.order[3], 0x0a);
	ck_assert_uint_eq(up.order[4], 0x0c);
	/* the daemon's own runs with the module's default policy */
	ck_assert_uint_eq(fx.fb->subs[1].pol.flags, KCSRAW_POL_DEFAULT);
	ck_assert_uint_ne(fx.fb->subs[2].pol.flags, KCSRAW_POL_DEFAULT);
}
END_TEST

/*
 * The watchdog first: node a floods the interface (bulk, a backlog), node
 * b is out of tokens (rate 0.1/s, its one token spent), held over its CPU
 * budget, its queue full, and the daemon's own request waits too. b's
 * Reset Watchdog Timer is the next transaction submitted, then its Set
 * and Get; its other request still waits for its token; a's backlog goes
 * on after. The lane's bounds: one urgent item of a flow at a time, and
 * SCHED_URGENT_BURST at once (test_sched).
 */
START_TEST(test_watchdog_first)
{
	struct xact *held, *x;
	unsigned int n0, i;

	fx.nb.conf.pol.rate_milli = 100;
	fx.nb.conf.pol.burst = 1;
	fx.nb.conf.pol.queue = 1;
	sched_flow_update(&fx.d.sched, &fx.nb.flow, &fx.nb.conf.pol, now_ns());
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 0x0a, 0x40)), 0);
	/* b's one token: its first request (interactive) goes next */
	ck_assert_int_eq(xact_enqueue(mk(&fx.nb, NULL, 0x06, 0x01)), 0);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(fx.fb->subs[fx.fb->nsubs - 1].req[1], 0x01);
	fake_answer(fx.fb, NULL, 0);
	/* a's flood runs; b has no token, is held and its queue is full */
	ck_assert_uint_eq(fx.fb->subs[fx.fb->nsubs - 1].req[0] >> 2, 0x0a);
	held = mk(&fx.nb, NULL, 0x06, 0x01);
	ck_assert_int_eq(xact_enqueue(held), 0);
	sched_flow_hold(&fx.nb.flow, now_ns() + 3600ULL * 1000000000ULL);
	x = mk(&fx.nb, NULL, 0x06, 0x02);
	ck_assert_int_eq(xact_enqueue(x), -EBUSY);
	free(x);
	ck_assert_int_eq(xact_enqueue(mk(NULL, NULL, 0x2c, 0x01)), 0);
	x = mk(&fx.nb, NULL, 0x06, 0x22);
	ck_assert_int_eq(xact_enqueue(x), 0);
	ck_assert(x->urgent);
	n0 = fx.fb->nsubs;
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(fx.fb->nsubs, n0 + 1);
	ck_assert_uint_eq(fx.fb->subs[n0].req[0], 0x06 << 2);
	ck_assert_uint_eq(fx.fb->subs[n0].req[1], 0x22);
	/* it ran with b's own policy, not the daemon's default */
	ck_assert_uint_ne(fx.fb->subs[n0].pol.flags, KCSRAW_POL_DEFAULT);
	/* Set and Get Watchdog Timer likewise, one at a time */
	ck_assert_int_eq(xact_enqueue(mk(&fx.nb, NULL, 0x06, 0x24)), 0);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(fx.fb->subs[n0 + 1].req[1], 0x24);
	ck_assert_int_eq(xact_enqueue(mk(&fx.nb, NULL, 0x06, 0x25)), 0);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(fx.fb->subs[n0 + 2].req[1], 0x25);
	ck_assert_uint_eq(fx.nb.flow.urgent, 3);
	/* then the daemon's own, then a's flood; b's held request waits */
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(fx.fb->subs[n0 + 3].req[0] >> 2, 0x2c);
	while (fake_pending(fx.fb))
		fake_answer(fx.fb, NULL, 0);
	for (i = n0 + 4; i < fx.fb->nsubs; i++)
		ck_assert_uint_eq(fx.fb->subs[i].req[0] >> 2, 0x0a);
	ck_assert_uint_eq(fx.na.flow.qlen, 0);
	ck_assert_uint_eq(fx.nb.flow.qlen, 1);
	xact_cancel(held);
	ck_assert_uint_eq(fx.nb.flow.qlen, 0);
}
END_TEST

/* A watchdog command of a node not allowed to be urgent now (one of its
 * flow's already waits in the lane) is an ordinary request. */
START_TEST(test_watchdog_one_at_a_time)
{
	struct xact *x1, *x2;

	ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 0x0a, 0x40)), 0);
	x1 = mk(&fx.nb, NULL, 0x06, 0x22);
	x2 = mk(&fx.nb, NULL, 0x06, 0x22);
	ck_assert_int_eq(xact_enqueue(x1), 0);
	ck_assert_int_eq(xact_enqueue(x2), 0);
	ck_assert(x1->urgent);
	ck_assert(!x2->urgent);
	/* a Get Device ID is not the watchdog's */
	x1 = mk(&fx.nb, NULL, 0x06, 0x01);
	ck_assert_int_eq(xact_enqueue(x1), 0);
	ck_assert(!x1->urgent);
	while (fake_pending(fx.fb))
		fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(up.done, 4);
	ck_assert_uint_eq(fx.nb.flow.urgent, 1);
}
END_TEST

START_TEST(test_cancel_queued)
{
	int owner;
	struct xact *x1 = mk(&fx.na, &owner, 6, 1),
		    *x2 = mk(&fx.na, &owner, 6, 2);

	ck_assert_int_eq(xact_enqueue(x1), 0);
	ck_assert_int_eq(xact_enqueue(x2), 0);
	/* the owner goes: the queued one is dropped (no xact_gone: the
	 * owner unlinked it itself), the running one orphaned */
	xact_cancel(x2);
	xact_cancel(x1);
	ck_assert_uint_eq(fx.na.st.cancelled, 1);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(up.done, 1);
	ck_assert_ptr_null(up.owner); /* completes into nothing */
	ck_assert_uint_eq(up.gone, 0);
	ck_assert_uint_eq(fx.fb->nsubs, 1); /* x2 never reached the BMC */
}
END_TEST

START_TEST(test_owned_free)
{
	int owner;
	struct xact *x = mk(&fx.na, &owner, 6, 1);

	ck_assert_int_eq(xact_enqueue(x), 0);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_ptr_eq(up.owner, &owner);
	ck_assert_uint_eq(up.gone, 1); /* freed: the owner was told */
}
END_TEST

START_TEST(test_submit_fails)
{
	int owner;
	struct xact *x = mk(&fx.na, &owner, 6, 1);

	fx.fb->fail_next = -EIO;
	ck_assert_int_eq(xact_enqueue(x), 0);
	/* answered at once with the error, nothing stays running */
	ck_assert_uint_eq(up.done, 1);
	ck_assert_int_eq(up.status, -EIO);
	ck_assert_uint_eq(fx.fb->nsubs, 0);
	ck_assert_uint_eq(fx.na.st.completed, 1);
	ck_assert_uint_eq(fx.na.st.errors, 1);
}
END_TEST

START_TEST(test_queue_full)
{
	unsigned int q = fx.na.conf.pol.queue, ok = 0;
	struct xact *x;
	int rv;

	/* one runs, queue more are held, the next is refused */
	for (unsigned int i = 0; i < q + 2; i++) {
		x = mk(&fx.na, NULL, 6, 1);
		rv = xact_enqueue(x);
		if (rv == 0) {
			ok++;
			continue;
		}
		ck_assert_int_eq(rv, -EBUSY);
		free(x); /* never queued: the caller's */
	}
	ck_assert_uint_eq(ok, q + 1);
	ck_assert_uint_eq(fx.na.st.rejected, 1);
	while (fake_pending(fx.fb))
		fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(up.done, q + 1);
}
END_TEST

START_TEST(test_node_gone)
{
	ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 6, 1)), 0);
	xact_node_gone(&fx.na);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(up.done, 1);
	ck_assert_uint_eq(fx.na.st.completed, 0); /* not accounted */
}
END_TEST

/* ------------------------------------------------------------------ */
/* bridging */

/* Send Message of Get Device ID to 0x82 on channel 0, seq 0, from 0x20
 * LUN 2 (as test_seqtab.c's first slot) */
static const uint8_t send_getdevid[] = {
	0x18, 0x34, 0x00, 0x82, 0x18, 0x66, 0x20, 0x02, 0x01, 0xdd,
};

static const struct ipmi_address ipmb82 = {
	.addr_type = IPMI_IPMB_ADDR_TYPE,
	.channel = 0,
	.slave_addr = 0x82,
};

/* bridge_send() of owner's request to ADDR. */
static int send_ipmb(struct node *n, void *owner,
		     const struct ipmi_address *addr, int64_t msgid,
		     uint8_t netfn, uint8_t cmd, const uint8_t *data,
		     uint16_t len, int32_t retries, uint32_t retry_ms,
		     unsigned int flags)
{
	struct ipmi_request rq = {
		.addr = *addr,
		.msgid = msgid,
		.netfn = netfn,
		.cmd = cmd,
		.data = data,
		.len = len,
		.retries = retries,
		.retry_ms = retry_ms,
		.flags = flags,
	};

	return bridge_send(n, owner, &rq);
}

static void want_req(const struct fake_sub *s, uint8_t cmd)
{
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_ge(s->len, 2);
	ck_assert_uint_eq(s->req[0], 0x18);
	ck_assert_uint_eq(s->req[1], cmd);
}

/* The Get Message answer holding 0x82's response to seq (cc 0, data). */
static unsigned int get_msg_rsp(uint8_t seq, uint8_t *out)
{
	static const uint8_t data[] = { 0x00, 0x20, 0x01, 0x00 };
	unsigned int n = 0, start;
	uint8_t sum = 0;

	out[n++] = 0x00;	  /* channel 0 */
	out[n++] = 0x07 << 2 | 2; /* App response to LUN 2 */
	out[n] = (uint8_t) - (0x20 + out[n - 1]);
	n++;
	start = n;
	out[n++] = 0x82;
	out[n++] = (uint8_t)(seq << 2);
	out[n++] = 0x01;
	memcpy(out + n, data, sizeof(data));
	n += sizeof(data);
	for (unsigned int i = start; i < n; i++)
		sum += out[i];
	out[n++] = (uint8_t)-sum;
	return n;
}

/* The Send Message is taken, the BMC's flags say flags. */
static void send_taken(uint8_t flags)
{
	want_req(fake_pending(fx.fb), 0x34);
	fake_answer(fx.fb, NULL, 0);
	want_req(fake_pending(fx.fb), IPMI_GET_MSG_FLAGS_CMD);
	fake_answer(fx.fb, &flags, 1);
}

static void run_until(const unsigned int *counter, unsigned int want)
{
	uint64_t until = now_ns() + 10000000000ull;

	while (*counter < want && now_ns() < until)
		event_base_loop(fx.base, EVLOOP_ONCE);
	ck_assert_uint_eq(*counter, want);
}

START_TEST(test_bridge_response)
{
	static const uint8_t empty = 0;
	static const uint8_t id[] = { 0x01, 0x00 };
	int owner;
	uint8_t rsp[32];
	unsigned int n;

	ck_assert_int_eq(send_ipmb(&fx.na, &owner, &ipmb82, 77, 6, 1, NULL, 0,
				   -1, 0, 0),
			 0);
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	ck_assert_uint_eq(fx.fb->subs[0].len, sizeof(send_getdevid));
	ck_assert_mem_eq(fx.fb->subs[0].req, send_getdevid,
			 sizeof(send_getdevid));
	send_taken(0x01); /* a message waits */
	want_req(fake_pending(fx.fb), IPMI_GET_MSG_CMD);
	n = get_msg_rsp(0, rsp);
	fake_answer(fx.fb, rsp, n);
	ck_assert_uint_eq(up.bridged, 1);
	ck_assert_ptr_eq(up.owner, &owner);
	ck_assert_int_eq(up.msg.recv_type, IPMI_RESPONSE_RECV_TYPE);
	ck_assert_int_eq(up.msg.msgid, 77);
	ck_assert_int_eq(up.msg.addr.addr_type, IPMI_IPMB_ADDR_TYPE);
	ck_assert_uint_eq(up.msg.addr.slave_addr, 0x82);
	ck_assert_uint_eq(up.msg.netfn, 7);
	ck_assert_uint_eq(up.msg.cmd, 1);
	ck_assert_uint_eq(up.msg.data_len, 4);
	ck_assert_mem_eq(up.msg.data + 2, id, sizeof(id));
	/* the machine asks again until the BMC holds nothing */
	want_req(fake_pending(fx.fb), IPMI_GET_MSG_CMD);
	{
		uint8_t none[3] = { 0x1c, 0x33, 0x80 };

		fake_complete(fx.fb, fake_pending(fx.fb), 0, none, 3);
	}
	ck_assert_ptr_null(fake_pending(fx.fb));
	(void)empty;
	ck_assert_uint_eq(up.bridged, 1);
}
END_TEST

START_TEST(test_bridge_retry_timeout)
{
	int owner;

	/* 1 retry, 1000 ms (the shortest the table keeps) */
	ck_assert_int_eq(send_ipmb(&fx.na, &owner, &ipmb82, 5, 6, 1, NULL, 0, 1,
				   1000, 0),
			 0);
	send_taken(0x00); /* no answer yet */
	ck_assert_ptr_null(fake_pending(fx.fb));
	/* the retry: the same request again, after the retry time */
	while (!fake_pending(fx.fb) && up.bridged == 0)
		event_base_loop(fx.base, EVLOOP_ONCE);
	ck_assert_uint_eq(up.bridged, 0);
	ck_assert_uint_eq(fake_pending(fx.fb)->len, sizeof(send_getdevid));
	ck_assert_mem_eq(fake_pending(fx.fb)->req + 4, send_getdevid + 4,
			 sizeof(send_getdevid) - 4);
	send_taken(0x00);
	/* then the timeout: cc 0xC3 to the owner */
	run_until(&up.bridged, 1);
	ck_assert_ptr_eq(up.owner, &owner);
	ck_assert_int_eq(up.msg.msgid, 5);
	ck_assert_uint_eq(up.msg.data_len, 1);
	ck_assert_uint_eq(up.msg.data[0], IPMI_TIMEOUT_ERR);
	ck_assert_ptr_null(fake_pending(fx.fb));
}
END_TEST

START_TEST(test_bridge_refused)
{
	int owner;
	/* Send Message refused with a cc that is no "try again" */
	uint8_t busy[3] = { 0x1c, 0x34, 0xcc };

	ck_assert_int_eq(send_ipmb(&fx.na, &owner, &ipmb82, 9, 6, 1, NULL, 0, 0,
				   1000, 0),
			 0);
	fake_complete(fx.fb, fake_pending(fx.fb), 0, busy, 3);
	ck_assert_uint_eq(up.bridged, 1);
	ck_assert_ptr_eq(up.owner, &owner);
	ck_assert_int_eq(up.msg.msgid, 9);
	ck_assert_uint_eq(up.msg.data[0], 0xcc);
	want_req(fake_pending(fx.fb), IPMI_GET_MSG_FLAGS_CMD);
	fake_answer(fx.fb, (const uint8_t[]){ 0 }, 1);
}
END_TEST

START_TEST(test_bridge_owner_gone)
{
	int owner;
	uint8_t rsp[32];
	unsigned int n;

	ck_assert_int_eq(send_ipmb(&fx.na, &owner, &ipmb82, 77, 6, 1, NULL, 0,
				   -1, 0, 0),
			 0);
	bridge_owner_gone(&fx.d, &owner);
	send_taken(0x01);
	n = get_msg_rsp(0, rsp);
	fake_answer(fx.fb, rsp, n);
	ck_assert_uint_eq(up.bridged, 0); /* nobody to tell */
	fake_complete(fx.fb, fake_pending(fx.fb), 0,
		      (const uint8_t[]){ 0x1c, 0x33, 0x80 }, 3);
	ck_assert_ptr_null(fake_pending(fx.fb));
}
END_TEST

/* The daemon stops with a request at the backend and a bridged Send
 * Message waiting behind it: core_fini frees both (in kcsmuxd, whose
 * daemon struct is on main's stack, ASan reported them as leaks). */
START_TEST(test_stop_in_flight)
{
	int owner;

	ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 6, 1)), 0);
	ck_assert_int_eq(send_ipmb(&fx.na, &owner, &ipmb82, 77, 6, 1, NULL, 0,
				   -1, 0, 0),
			 0);
	ck_assert_ptr_nonnull(fake_pending(fx.fb));
	sched_flow_detach(&fx.d.sched, &fx.na.flow);
	sched_flow_detach(&fx.d.sched, &fx.nb.flow);
	fx.d.be->ops->destroy(fx.d.be);
	ck_assert(!TAILQ_EMPTY(&fx.d.running));
	core_fini(&fx.d);
	ck_assert(TAILQ_EMPTY(&fx.d.running));
	ck_assert(TAILQ_EMPTY(&fx.d.internal));
	ck_assert(TAILQ_EMPTY(&fx.d.br.pending));
	event_base_free(fx.base);
}
END_TEST

START_TEST(test_bridge_event)
{
	uint8_t ev[16];

	for (int i = 0; i < 16; i++)
		ev[i] = (uint8_t)(0x10 + i);
	core_backend_cbs.attention(&fx.d);
	want_req(fake_pending(fx.fb), IPMI_GET_MSG_FLAGS_CMD);
	fake_answer(fx.fb, (const uint8_t[]){ 0x02 }, 1);
	want_req(fake_pending(fx.fb), IPMI_READ_EVENT_MSG_BUFFER_CMD);
	fake_answer(fx.fb, ev, sizeof(ev));
	ck_assert_uint_eq(up.events, 1);
	ck_assert_int_eq(up.msg.recv_type, IPMI_ASYNC_EVENT_RECV_TYPE);
	ck_assert_uint_eq(up.msg.data_len, 16);
	ck_assert_mem_eq(up.msg.data, ev, 16);
	while (fake_pending(fx.fb))
		fake_complete(fx.fb, fake_pending(fx.fb), 0,
			      (const uint8_t[]){ 0x1c, 0x35, 0x80 }, 3);
	ck_assert_uint_eq(up.events, 1);
}
END_TEST

/* Get Message: an incoming command from 0x40, privilege 4 (test_atn.c) */
static const uint8_t r_ipmb_cmd[] = {
	0x40, 0xba, 0x26, 0x40, 0x24, 0x05, 0xde, 0xad, 0x0c,
};

static void incoming_command(void)
{
	core_backend_cbs.attention(&fx.d);
	want_req(fake_pending(fx.fb), IPMI_GET_MSG_FLAGS_CMD);
	fake_answer(fx.fb, (const uint8_t[]){ 0x01 }, 1);
	want_req(fake_pending(fx.fb), IPMI_GET_MSG_CMD);
	fake_answer(fx.fb, r_ipmb_cmd, sizeof(r_ipmb_cmd));
}

START_TEST(test_command_taken)
{
	up.take_commands = true;
	incoming_command();
	ck_assert_uint_eq(up.commands, 1);
	ck_assert_int_eq(up.msg.recv_type, IPMI_CMD_RECV_TYPE);
	ck_assert_uint_eq(up.msg.netfn, 0x2e);
	ck_assert_uint_eq(up.msg.cmd, 0x05);
	ck_assert_uint_eq(up.msg.addr.slave_addr, 0x40);
	/* only the next Get Message: no reply from the daemon */
	want_req(fake_pending(fx.fb), IPMI_GET_MSG_CMD);
	fake_complete(fx.fb, fake_pending(fx.fb), 0,
		      (const uint8_t[]){ 0x1c, 0x33, 0x80 }, 3);
	ck_assert_ptr_null(fake_pending(fx.fb));
}
END_TEST

START_TEST(test_command_unregistered)
{
	struct fake_sub *s;

	incoming_command();
	ck_assert_uint_eq(up.commands, 1);
	/* the daemon's own reply (cc 0xC1, invalid command) goes out ahead
	 * of the next Get Message: Send Message to 0x40, a response
	 * (netfn 0x2f) to its command 0x05, seq 9 */
	s = fake_pending(fx.fb);
	want_req(s, 0x34);
	ck_assert_uint_ge(s->len, 11);
	ck_assert_uint_eq(s->req[3], 0x40);
	ck_assert_uint_eq(s->req[4] >> 2, 0x2f);
	ck_assert_uint_eq(s->req[7] >> 2, 9);
	ck_assert_uint_eq(s->req[8], 0x05);
	ck_assert_uint_eq(s->req[9], IPMI_INVALID_CMD_COMPLETION_CODE);
	fake_answer(fx.fb, NULL, 0);
	s = fake_pending(fx.fb);
	want_req(s, IPMI_GET_MSG_CMD);
	fake_complete(fx.fb, s, 0, (const uint8_t[]){ 0x1c, 0x33, 0x80 }, 3);
	ck_assert_ptr_null(fake_pending(fx.fb));
}
END_TEST

/* ------------------------------------------------------------------ */
/* BMC setup */

START_TEST(test_bmc_setup)
{
	unsigned int chans = 0, sets = 0, gets = 0;
	struct fake_sub *s;
	uint8_t set_to = 0;

	bmc_setup_start(&fx.d);
	ck_assert(!fx.d.media_ready);
	/* Get BMC Global Enables, then Get Channel Info for 0-15; the BMC
	 * has 0x08 set: written back as 0x0c (event buffer on, no IRQ) */
	while ((s = fake_pending(fx.fb))) {
		want_req(s, s->req[1]);
		switch (s->req[1]) {
		case IPMI_GET_BMC_GLOBAL_ENABLES_CMD:
			gets++;
			fake_answer(fx.fb, (const uint8_t[]){ 0x08 }, 1);
			break;
		case IPMI_SET_BMC_GLOBAL_ENABLES_CMD:
			sets++;
			set_to = s->req[2];
			fake_answer(fx.fb, NULL, 0);
			break;
		case IPMI_GET_CHANNEL_INFO_CMD: {
			/* channel 0 and 7 IPMB, 1 LAN, the rest none */
			uint8_t ch = s->req[2];
			uint8_t m = ch == 0 || ch == 7 ? 1 : ch == 1 ? 4 : 0;

			chans++;
			fake_answer(fx.fb,
				    (const uint8_t[]){ ch, m, 1, 0, 0, 0 }, 6);
			break;
		}
		default:
			ck_abort_msg("unexpected cmd %#x", s->req[1]);
		}
	}
	ck_assert_uint_eq(gets, 1);
	ck_assert_uint_eq(sets, 1);
	ck_assert_uint_eq(set_to, 0x0c);
	ck_assert_uint_eq(chans, 16);
	ck_assert(fx.d.media_ready);
	ck_assert_uint_eq(fx.d.media[0], 1);
	ck_assert_uint_eq(fx.d.media[1], 4);
	ck_assert_uint_eq(fx.d.media[7], 1);
	ck_assert_uint_eq(fx.d.media[15], 0);
	/* a hosed interface (the backend's callback): checked again at the
	 * next tick, within about a second */
	core_backend_cbs.hosed(&fx.d);
	{
		uint64_t until = now_ns() + 3000000000ull;

		while (!fake_pending(fx.fb) && now_ns() < until)
			event_base_loop(fx.base, EVLOOP_ONCE);
	}
	want_req(fake_pending(fx.fb), IPMI_GET_BMC_GLOBAL_ENABLES_CMD);
	fake_answer(fx.fb, (const uint8_t[]){ 0x0c }, 1); /* already right */
	ck_assert_ptr_null(fake_pending(fx.fb));
}
END_TEST

/* Answer what is pending: global enables as in test_bmc_setup, each
 * Get Channel Info with cc_of(ch) (0: the medium medium_of(ch)). Returns
 * the Get Channel Info requests answered. */
static unsigned int answer_setup(uint8_t (*cc_of)(uint8_t),
				 uint8_t (*medium_of)(uint8_t))
{
	unsigned int chans = 0;
	struct fake_sub *s;

	while ((s = fake_pending(fx.fb))) {
		want_req(s, s->req[1]);
		if (s->req[1] == IPMI_GET_BMC_GLOBAL_ENABLES_CMD) {
			fake_answer(fx.fb, (const uint8_t[]){ 0x0c }, 1);
		} else if (s->req[1] == IPMI_GET_CHANNEL_INFO_CMD) {
			uint8_t ch = s->req[2], cc = cc_of(ch);

			chans++;
			if (cc)
				fake_complete(fx.fb, s, 0,
					      (const uint8_t[]){ 0x1c, 0x42,
								 cc },
					      3);
			else
				fake_answer(fx.fb,
					    (const uint8_t[]){ ch,
							       medium_of(ch), 1,
							       0, 0, 0 },
					    6);
		} else {
			ck_abort_msg("unexpected cmd %#x", s->req[1]);
		}
	}
	return chans;
}

/* until something is pending, or ms passed */
static bool wait_pending(unsigned int ms)
{
	uint64_t until = now_ns() + ms * 1000000ull;

	while (!fake_pending(fx.fb) && now_ns() < until)
		event_base_loop(fx.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	return fake_pending(fx.fb) != NULL;
}

static unsigned int scans;
/* first scan: 1 busy, 2 initializing, 3 always busy; 4-15 no channel */
static uint8_t cc_busy_first(uint8_t ch)
{
	if (ch == 0)
		scans++;
	if (ch == 3 || (scans == 1 && ch == 1))
		return 0xc0;
	if (scans == 1 && ch == 2)
		return 0xd2;
	return ch <= 2 ? 0 : 0xcc;
}

static uint8_t medium_0ipmb_1lan(uint8_t ch)
{
	return ch == 0 ? 1 : ch == 1 ? 4 : ch == 2 ? 1 : 0;
}

START_TEST(test_channel_rescan)
{
	fx.d.bs.rescan_ms = 30;
	scans = 0;
	bmc_setup_start(&fx.d);
	ck_assert_uint_eq(answer_setup(cc_busy_first, medium_0ipmb_1lan), 16);
	/* the scan is over: 0 known, 1 and 2 not yet (EINVAL for now) */
	ck_assert(fx.d.media_ready);
	ck_assert_uint_eq(fx.d.media[0], 1);
	ck_assert_uint_eq(fx.d.media[1], 0);
	ck_assert_uint_eq(fx.d.media[2], 0);
	ck_assert_uint_eq(fx.d.bs.scan_busy, 0x000e);
	/* asked again after rescan_ms: 1 and 2 answer, 3 never does */
	ck_assert(wait_pending(2000));
	ck_assert_uint_eq(answer_setup(cc_busy_first, medium_0ipmb_1lan), 16);
	ck_assert_uint_eq(fx.d.media[1], 4);
	ck_assert_uint_eq(fx.d.media[2], 1);
	ck_assert_uint_eq(fx.d.bs.scan_busy, 0x0008);
	while (wait_pending(500))
		answer_setup(cc_busy_first, medium_0ipmb_1lan);
	/* the first scan and BMC_RESCAN_TRIES (6) more, then no more */
	ck_assert_uint_eq(scans, 7);
	ck_assert_uint_eq(fx.d.bs.rescans, 6);
	ck_assert_uint_eq(fx.d.media[1], 4);
	ck_assert(fx.d.media_ready);
}
END_TEST

static uint8_t cc_ok(uint8_t ch)
{
	(void)ch;
	return 0;
}

static uint8_t medium_first(uint8_t ch)
{
	return ch == 0 ? 1 : 0;
}

static uint8_t medium_after_update(uint8_t ch)
{
	return ch == 0 || ch == 6 ? 1 : 0;
}

START_TEST(test_identity_rescan)
{
	static const uint8_t id[] = { 0x20, 0x81, 0x02, 0x41, 0x02, 0xbf,
				      0x57, 0x01, 0x00, 0x3c, 0x0b };
	uint8_t busy[sizeof(id)], update[sizeof(id)];

	memcpy(busy, id, sizeof(id));
	busy[2] |= 0x80; /* "update in progress": the same BMC */
	memcpy(update, id, sizeof(id));
	update[3] = 0x42; /* firmware 2.41 -> 2.42 */
	bmc_setup_start(&fx.d);
	ck_assert_uint_eq(answer_setup(cc_ok, medium_first), 16);
	ck_assert_uint_eq(fx.d.media[6], 0);
	ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 6, 1)), 0);
	fake_answer(fx.fb, id, sizeof(id));
	ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 6, 1)), 0);
	fake_answer(fx.fb, busy, sizeof(busy));
	ck_assert_ptr_null(fake_pending(fx.fb));
	ck_assert_int_eq(xact_enqueue(mk(&fx.na, NULL, 6, 1)), 0);
	fake_answer(fx.fb, update, sizeof(update));
	/* the channels asked again; the old media serve meanwhile */
	ck_assert_ptr_nonnull(fake_pending(fx.fb));
	ck_assert(fx.d.media_ready);
	ck_assert_uint_eq(answer_setup(cc_ok, medium_after_update), 16);
	ck_assert_uint_eq(fx.d.media[6], 1);
	ck_assert_uint_eq(fx.d.bs.rescans, 1);
}
END_TEST

static Suite *core_suite(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("xact");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_submit_complete);
	tcase_add_test(tc, test_clock_reads);
	tcase_add_test(tc, test_bmc_silence);
	tcase_add_test(tc, test_bmc_identity);
	tcase_add_test(tc, test_pick_order);
	tcase_add_test(tc, test_watchdog_first);
	tcase_add_test(tc, test_watchdog_one_at_a_time);
	tcase_add_test(tc, test_cancel_queued);
	tcase_add_test(tc, test_owned_free);
	tcase_add_test(tc, test_submit_fails);
	tcase_add_test(tc, test_queue_full);
	tcase_add_test(tc, test_node_gone);
	suite_add_tcase(s, tc);
	tc = tcase_create("bridge");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_bridge_response);
	tcase_add_test(tc, test_bridge_retry_timeout);
	tcase_add_test(tc, test_bridge_refused);
	tcase_add_test(tc, test_bridge_owner_gone);
	tcase_add_test(tc, test_bridge_event);
	tcase_add_test(tc, test_command_taken);
	tcase_add_test(tc, test_command_unregistered);
	tcase_add_test(tc, test_bmc_setup);
	tcase_add_test(tc, test_channel_rescan);
	tcase_add_test(tc, test_identity_rescan);
	suite_add_tcase(s, tc);
	tc = tcase_create("stop");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_stop_in_flight);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(core_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
