// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/core/coalesce.c through the core's seams (as
 * cuse/client.c uses them: coalesce_follow, else xact_enqueue; xact_cancel
 * when a client goes) against a fake backend of depth 1: identical Get
 * Sensor Reading requests of two clients of a node with coalesce = yes
 * make one transaction and two answers; anything else makes two; a
 * client that goes away takes only what is its own; with
 * coalesce_window_ms, a recent answer answers at once.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <linux/ipmi.h>

#include "core/coalesce.h"
#include "core/core.h"
#include "core/xact.h"
#include "core_fixture.h"
#include "fake_backend.h"
#include "node_conf.h"

/* nodes a and b: both coalesce = yes */
static struct core_fixture fx;
/* two clients' owners (opaque to the core) */
static int client1, client2, client3;

/* the answers, in order */
static struct {
	unsigned int n, dispatched;
	void *owner[16];
	int64_t msgid[16];
	uint8_t resp[16][8];
	unsigned int len[16];
} got;

static void setup(void)
{
	memset(&got, 0, sizeof(got));
	core_fixture_open(&fx, &core_fixture_quiet);
	test_node_conf(&fx.conf_a, "a", KCSMUX_PRESET_MONITOR,
		       KCSMUX_ACCESS_ALL);
	test_node_conf(&fx.conf_b, "b", KCSMUX_PRESET_MONITOR,
		       KCSMUX_ACCESS_ALL);
	fx.conf_a.coalesce = fx.conf_b.coalesce = true;
	fx.conf_a.pol.rate_milli = fx.conf_b.pol.rate_milli = 0;
	/* no budget: the daemon's own CPU time (ASan, a busy host) would
	 * hold a node until a timer this suite never runs (test_cpumeter.c
	 * tests the budget) */
	fx.conf_a.pol.cpu_budget_ppm = fx.conf_b.pol.cpu_budget_ppm = 0;
	core_fixture_attach(&fx);
}

static void teardown(void)
{
	core_fixture_drain(&fx);
	ck_assert(TAILQ_EMPTY(&fx.d.coal));
	core_fixture_close(&fx);
}

static void rec_done(struct xact *x, int status, const uint8_t *resp,
		     unsigned int len)
{
	unsigned int i = got.n++;

	ck_assert_uint_lt(i, 16);
	ck_assert_int_eq(status, 0);
	got.owner[i] = x->owner;
	got.msgid[i] = x->msgid;
	got.len[i] = len < 8 ? len : 8;
	memcpy(got.resp[i], resp, got.len[i]);
	xact_free(x);
}

static void rec_dispatched(struct xact *x)
{
	(void)x;
	got.dispatched++;
}

/* owner's request netfn/cmd with one data byte, as client_send makes it */
static struct xact *mk(struct node *n, void *owner, uint8_t netfn, uint8_t cmd,
		       uint8_t data, int64_t msgid)
{
	struct xact *x = core_fixture_xact(&fx, n, owner, netfn, cmd, rec_done);

	x->msgid = msgid;
	x->req[x->req_len++] = data;
	x->dispatched = rec_dispatched;
	return x;
}

/* client_send's order: follow an identical read in flight, else queue. */
static void send_req(struct xact *x)
{
	if (!coalesce_follow(x))
		ck_assert_int_eq(xact_enqueue(x), 0);
}

static struct xact *gsr(struct node *n, void *owner, uint8_t sensor,
			int64_t msgid)
{
	return mk(n, owner, 0x04, 0x2d, sensor, msgid);
}

/* Answer the oldest submission with a reading (cc 0, 0x42 ...). */
static void answer_reading(void)
{
	static const uint8_t reading[] = { 0x42, 0xc0, 0x00 };

	fake_answer(fx.fb, reading, sizeof(reading));
}

/* At the interface (running) or queued behind another, a second client's
 * identical read follows the first: one transaction, two answers, each
 * with its own msgid. */
START_TEST(test_two_clients_one_transaction)
{
	send_req(gsr(&fx.na, &client1, 0x07, 11)); /* running */
	send_req(gsr(&fx.na, &client2, 0x07, 22)); /* follows it */
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	ck_assert_uint_eq(fx.na.cnt.coalesced, 1);
	answer_reading();
	ck_assert_uint_eq(got.n, 2);
	ck_assert_ptr_eq(got.owner[0], &client2); /* followers first */
	ck_assert_int_eq(got.msgid[0], 22);
	ck_assert_ptr_eq(got.owner[1], &client1);
	ck_assert_int_eq(got.msgid[1], 11);
	ck_assert_uint_eq(got.len[0], got.len[1]);
	ck_assert_mem_eq(got.resp[0], got.resp[1], got.len[0]);
	ck_assert_uint_eq(got.resp[0][2], 0x00); /* cc */
	ck_assert_uint_eq(got.resp[0][3], 0x42); /* the reading */
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	/* the leader is done: the next read is a transaction again */
	send_req(gsr(&fx.na, &client2, 0x07, 23));
	ck_assert_uint_eq(fx.fb->nsubs, 2);
	answer_reading();
	ck_assert_uint_eq(got.n, 3);

	/* queued behind a Get Device ID: three clients, one transaction */
	send_req(mk(&fx.na, &client3, 0x06, 0x01, 0, 1)); /* dispatched */
	got.dispatched = 0;
	send_req(gsr(&fx.na, &client1, 0x09, 31)); /* queued leader */
	send_req(gsr(&fx.na, &client2, 0x09, 32));
	send_req(gsr(&fx.na, &client3, 0x09, 33));
	ck_assert_uint_eq(fx.na.cnt.coalesced, 3);
	/* followers leave the owners' queued count at once */
	ck_assert_uint_eq(got.dispatched, 2);
	fake_answer(fx.fb, NULL, 0); /* Get Device ID */
	answer_reading();
	ck_assert_uint_eq(fx.fb->nsubs, 4);
	ck_assert_uint_eq(got.n, 3 + 1 + 3);
	ck_assert_uint_eq(fx.na.st.completed, 4); /* transactions only */
}
END_TEST

/* Not coalesced: another sensor, the same client, another node, another
 * command, a node without the key, another LUN. */
START_TEST(test_only_identical)
{
	struct xact *x;

	send_req(gsr(&fx.na, &client1, 0x07, 1));
	send_req(gsr(&fx.na, &client2, 0x08, 2)); /* another sensor */
	send_req(gsr(&fx.na, &client1, 0x07, 3)); /* the same client */
	send_req(gsr(&fx.nb, &client2, 0x07, 4)); /* another node */
	send_req(mk(&fx.na, &client2, 0x04, 0x2b, 0x07,
		    5)); /* another command */
	x = gsr(&fx.na, &client3, 0x07, 6);
	x->req[0] |= 1; /* LUN 1 */
	send_req(x);
	ck_assert_uint_eq(fx.na.cnt.coalesced + fx.nb.cnt.coalesced, 0);
	fx.na.conf.coalesce = false; /* a reload turned it off */
	send_req(gsr(&fx.na, &client2, 0x07, 7));
	ck_assert_uint_eq(fx.na.cnt.coalesced, 0);
	while (fake_pending(fx.fb))
		answer_reading();
	ck_assert_uint_eq(fx.fb->nsubs, 7);
	ck_assert_uint_eq(got.n, 7);
}
END_TEST

/* A follower whose client goes is dropped; the leader's client gets its
 * answer. */
START_TEST(test_follower_gone)
{
	struct xact *l = gsr(&fx.na, &client1, 0x07, 1);
	struct xact *f = gsr(&fx.na, &client2, 0x07, 2);

	send_req(l);
	send_req(f);
	f->owner = NULL; /* client_cancel_all: off its list, then cancel */
	xact_cancel(f);
	answer_reading();
	ck_assert_uint_eq(got.n, 1);
	ck_assert_ptr_eq(got.owner[0], &client1);
}
END_TEST

/* A queued leader whose client goes stays queued for its follower, runs
 * and answers it (and its own client no more); with no follower left it
 * is dropped from the queue. */
START_TEST(test_leader_gone)
{
	struct xact *l, *f;

	send_req(mk(&fx.na, &client3, 0x06, 0x01, 0, 1)); /* holds the slot */
	l = gsr(&fx.na, &client1, 0x07, 2);
	f = gsr(&fx.na, &client2, 0x07, 3);
	send_req(l);
	send_req(f);
	xact_cancel(l);
	ck_assert_uint_eq(fx.na.st.cancelled, 0);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(fx.fb->nsubs, 2); /* the leader ran */
	answer_reading();
	ck_assert_uint_eq(got.n, 3);
	ck_assert_ptr_eq(got.owner[1], &client2);
	ck_assert_ptr_null(got.owner[2]); /* into nothing (si_done) */

	/* both gone while queued: nothing runs */
	send_req(mk(&fx.na, &client3, 0x06, 0x01, 0, 4));
	l = gsr(&fx.na, &client1, 0x07, 5);
	f = gsr(&fx.na, &client2, 0x07, 6);
	send_req(l);
	send_req(f);
	xact_cancel(l);
	xact_cancel(f);
	ck_assert_uint_eq(fx.na.st.cancelled, 1);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(fx.fb->nsubs, 3);
	ck_assert_ptr_null(fake_pending(fx.fb));
	ck_assert_uint_eq(got.n, 4);
}
END_TEST

/* Answer the oldest submission with completion code cc and no data. */
static void answer_cc(uint8_t cc)
{
	struct fake_sub *s = fake_pending(fx.fb);
	uint8_t resp[3];

	ck_assert_ptr_nonnull(s);
	resp[0] = (uint8_t)(s->req[0] | 4); /* the response's netfn */
	resp[1] = s->req[1];
	resp[2] = cc;
	fake_complete(fx.fb, s, 0, resp, sizeof(resp));
}

/* answered at once: no transaction, the answer among got's */
static void assert_recent(struct node *n, unsigned int subs, uint64_t recent)
{
	ck_assert_uint_eq(fx.fb->nsubs, subs);
	ck_assert_ptr_null(fake_pending(fx.fb));
	ck_assert_uint_eq(n->cnt.coalesced_recent, recent);
}

/* coalesce_window_ms: another client's answer completed within the window
 * answers a read at once (also for a later client at a closed one's
 * address); the same client's, another sensor's or LUN's, a failed one,
 * an older one or one on a node without the window do not. */
START_TEST(test_recent_window)
{
	fx.na.conf.coalesce_window_ms = 60000;
	send_req(gsr(&fx.na, &client1, 0x07, 1));
	answer_reading();
	got.dispatched = 0;
	send_req(gsr(&fx.na, &client2, 0x07, 2)); /* at once */
	assert_recent(&fx.na, 1, 1);
	ck_assert_uint_eq(got.n, 2);
	ck_assert_uint_eq(got.dispatched, 1); /* out of the queued count */
	ck_assert_ptr_eq(got.owner[1], &client2);
	ck_assert_int_eq(got.msgid[1], 2);
	ck_assert_uint_eq(got.len[0], got.len[1]);
	ck_assert_mem_eq(got.resp[0], got.resp[1], got.len[0]);
	ck_assert_uint_eq(fx.na.cnt.coalesced, 1);

	send_req(gsr(&fx.na, &client1, 0x07, 3)); /* its own: read again */
	ck_assert_uint_eq(fx.fb->nsubs, 2);
	answer_reading();
	send_req(gsr(&fx.na, &client2, 0x08, 4)); /* another sensor */
	ck_assert_uint_eq(fx.fb->nsubs, 3);
	answer_reading();
	{
		struct xact *x = gsr(&fx.na, &client3, 0x07, 5);

		x->req[0] |= 1; /* LUN 1 */
		send_req(x);
	}
	ck_assert_uint_eq(fx.fb->nsubs, 4);
	answer_reading();
	send_req(gsr(&fx.na, &client3, 0x09, 6)); /* fails: not kept */
	answer_cc(0xcb);
	send_req(gsr(&fx.na, &client2, 0x09, 7));
	ck_assert_uint_eq(fx.fb->nsubs, 6);
	answer_reading();
	send_req(gsr(&fx.na, &client1, 0x09, 8)); /* client2's, at once */
	assert_recent(&fx.na, 6, 2);
	{
		/* a later client whose file got client2's memory: another
		 * client (the id, not the pointer) */
		struct xact *x = gsr(&fx.na, &client2, 0x09, 12);

		x->owner_id = 1000;
		send_req(x);
	}
	assert_recent(&fx.na, 6, 3);

	/* node b has no window: in flight only */
	send_req(gsr(&fx.nb, &client1, 0x07, 9));
	answer_reading();
	send_req(gsr(&fx.nb, &client2, 0x07, 10));
	ck_assert_uint_eq(fx.fb->nsubs, 8);
	answer_reading();
	ck_assert_uint_eq(fx.nb.cnt.coalesced, 0);

	/* older than the window: read again */
	fx.na.conf.coalesce_window_ms = 1;
	{
		struct timespec ts = { 0, 5 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	send_req(gsr(&fx.na, &client3, 0x08, 11));
	ck_assert_uint_eq(fx.fb->nsubs, 9);
	answer_reading();
	ck_assert_uint_eq(fx.na.cnt.coalesced_recent, 3);
	ck_assert_uint_eq(got.n, 12);
}
END_TEST

static Suite *coalesce_suite(void)
{
	Suite *s = suite_create("coalesce");
	TCase *tc = tcase_create("sensor reads");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_two_clients_one_transaction);
	tcase_add_test(tc, test_only_identical);
	tcase_add_test(tc, test_follower_gone);
	tcase_add_test(tc, test_leader_gone);
	tcase_add_test(tc, test_recent_window);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(coalesce_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
