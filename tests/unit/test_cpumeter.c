// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/core/cpumeter.c: the daemon's CPU charged to the
 * node it worked for, one clock read per boundary, nested pieces; and
 * through the request path (xact.c's submissions and completions against
 * a fake backend), that the charge counts in the node's cpu_budget. The
 * thread CPU clock is the test's: it moves only when the test says.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <linux/ipmi.h>

#include "core/core.h"
#include "core/xact.h"
#include "core_fixture.h"
#include "fake_backend.h"
#include "node_conf.h"

#define US 1000ULL
#define MS 1000000ULL

static struct core_fixture fx;

/* the fake boundary clock: its value, and how far each read moves it */
static uint64_t clk, clk_step;
/* the fake thread CPU clock: the boundary clock, or cpu when cpu_own */
static uint64_t cpu;
static bool cpu_own;

static uint64_t fake_clock(void)
{
	uint64_t t = clk;

	clk += clk_step;
	return t;
}

static uint64_t fake_cpu_clock(void)
{
	return cpu_own ? cpu : clk;
}

static void setup(void)
{
	core_fixture_open(&fx, &core_fixture_quiet);
	test_node_conf(&fx.conf_a, "a", KCSMUX_PRESET_INTERACTIVE,
		       KCSMUX_ACCESS_ALL);
	test_node_conf(&fx.conf_b, "b", KCSMUX_PRESET_INTERACTIVE,
		       KCSMUX_ACCESS_ALL);
	fx.d.cpu.clock = fake_clock;
	fx.d.cpu.cpu_clock = fake_cpu_clock;
	clk = 1000 * MS;
	clk_step = 0;
	cpu = 0;
	cpu_own = false;
	core_fixture_attach(&fx);
}

static void teardown(void)
{
	core_fixture_close(&fx);
}

/* A piece of a's with one of b's inside, and the daemon's own after:
 * each gets what ran while it was current, one read per boundary. */
START_TEST(test_nested)
{
	struct cpu_mark ma, mb, mo;

	clk_step = 0;
	cpu_enter(&fx.d, &fx.na, &ma); /* 1000 ms */
	clk += 30 * US;
	cpu_enter(&fx.d, &fx.nb, &mb);
	clk += 20 * US;
	cpu_leave(&fx.d, &mb);
	clk += 5 * US;
	cpu_leave(&fx.d, &ma);
	ck_assert_uint_eq(fx.na.st.daemon_cpu_ns, 35 * US);
	ck_assert_uint_eq(fx.nb.st.daemon_cpu_ns, 20 * US);
	ck_assert_uint_eq(fx.d.cpu.reads, 4);
	ck_assert(!fx.d.cpu.on);
	/* between pieces: no one's */
	clk += 1 * MS;
	cpu_enter(&fx.d, NULL, &mo);
	clk += 7 * US;
	cpu_leave(&fx.d, &mo);
	ck_assert_uint_eq(fx.d.cpu.own_ns, 7 * US);
	ck_assert_uint_eq(fx.na.st.daemon_cpu_ns, 35 * US);
	ck_assert_uint_eq(fx.nb.st.daemon_cpu_ns, 20 * US);
	/* the budget's estimate has it; the poller's does not */
	ck_assert(nodestats_cpu_ppm(&fx.na.st.cpu, now_ns()) > 0);
	ck_assert(nodestats_cpu_ppm(&fx.na.st.poller_cpu, now_ns()) == 0);
}
END_TEST

/* Busy time the thread spent preempted is not CPU: a second in which
 * the thread's CPU clock moved half of the busy time charged halves the
 * charges after it; one in which it moved more (work no piece covers)
 * leaves them whole. The thread CPU clock is read once a second. */
START_TEST(test_calibration)
{
	struct cpu_mark m;
	int i;

	cpu_own = true;
	cpu_enter(&fx.d, &fx.na, &m); /* first boundary: calibration starts */
	clk += 100 * US;
	cpu += 50 * US;
	cpu_leave(&fx.d, &m);
	ck_assert_uint_eq(fx.d.cpu.cal_reads, 1);
	ck_assert_uint_eq(fx.na.st.daemon_cpu_ns, 100 * US);
	/* pieces of 100 us every 100 ms, of which the CPU clock sees half;
	 * the tenth starts a second after the first: the scale is set */
	for (i = 0; i < 10; i++) {
		clk += 100 * MS - 100 * US;
		cpu_enter(&fx.d, &fx.na, &m);
		clk += 100 * US;
		cpu += 50 * US;
		cpu_leave(&fx.d, &m);
	}
	ck_assert_uint_eq(fx.d.cpu.cal_reads, 2);
	ck_assert(fx.d.cpu.calibrated);
	ck_assert_uint_eq(fx.d.cpu.scale_ppm, 500000);
	ck_assert_uint_eq(fx.na.st.daemon_cpu_ns, 1050 * US);
	/* a second later the CPU clock moved more than the busy time (work
	 * no piece covers): whole again */
	clk += 1000 * MS;
	cpu += 2000 * US;
	cpu_enter(&fx.d, &fx.na, &m);
	clk += 100 * US;
	cpu_leave(&fx.d, &m);
	ck_assert_uint_eq(fx.d.cpu.cal_reads, 3);
	ck_assert_uint_eq(fx.d.cpu.scale_ppm, 1000000);
	ck_assert_uint_eq(fx.na.st.daemon_cpu_ns, 1150 * US);
	ck_assert_uint_eq(fx.d.cpu.reads, 24);
}
END_TEST

/* A piece inside one of the same node costs no read. */
START_TEST(test_same_node_free)
{
	struct cpu_mark m1, m2;

	cpu_enter(&fx.d, &fx.na, &m1);
	clk += 10 * US;
	cpu_enter(&fx.d, &fx.na, &m2);
	clk += 10 * US;
	cpu_leave(&fx.d, &m2);
	ck_assert_uint_eq(fx.d.cpu.reads, 1);
	clk += 10 * US;
	cpu_leave(&fx.d, &m1);
	ck_assert_uint_eq(fx.d.cpu.reads, 2);
	ck_assert_uint_eq(fx.na.st.daemon_cpu_ns, 30 * US);
}
END_TEST

/* A node that goes while its piece runs gets what it used until then,
 * and nothing after. */
START_TEST(test_node_gone)
{
	struct cpu_mark m;

	cpu_enter(&fx.d, &fx.nb, &m);
	clk += 10 * US;
	cpu_node_gone(&fx.d, &fx.nb);
	clk += 10 * US;
	ck_assert_uint_eq(fx.nb.st.daemon_cpu_ns, 10 * US);
	ck_assert_ptr_null(fx.d.cpu.cur);
	cpu_leave(&fx.d, &m);
	ck_assert_uint_eq(fx.nb.st.daemon_cpu_ns, 10 * US);
	ck_assert_uint_eq(fx.d.cpu.own_ns, 10 * US);
}
END_TEST

static void done_free(struct xact *x, int status, const uint8_t *resp,
		      unsigned int len)
{
	(void)status;
	(void)resp;
	(void)len;
	xact_free(x);
}

static struct xact *mk(struct node *n)
{
	return core_fixture_xact(&fx, n, NULL, 6, 1, done_free);
}

/*
 * Through the request path: a's submission and completion are a's, b's
 * are b's, and nothing is charged to a node with no requests. Each read
 * moves the clock 1 us, so a piece is charged the 1 us between its two
 * reads.
 */
START_TEST(test_request_path)
{
	clk_step = 1 * US;
	ck_assert_int_eq(xact_enqueue(mk(&fx.na)),
			 0); /* submitted: a's piece */
	ck_assert_int_eq(xact_enqueue(mk(&fx.nb)), 0); /* queued: depth 1 */
	ck_assert_uint_eq(fx.na.st.daemon_cpu_ns, 1 * US);
	ck_assert_uint_eq(fx.nb.st.daemon_cpu_ns, 0);
	/* a's completion (a's piece), then the room it made submits b's */
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(fx.na.st.daemon_cpu_ns, 2 * US);
	ck_assert_uint_eq(fx.nb.st.daemon_cpu_ns, 1 * US);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(fx.nb.st.daemon_cpu_ns, 2 * US);
	ck_assert_uint_eq(fx.d.cpu.own_ns, 0);
	ck_assert_uint_eq(fx.d.cpu.reads, 8);
	ck_assert(!fx.d.cpu.on);
	/* the daemon's own transaction is its own */
	{
		struct xact *x = mk(NULL);

		x->internal = true;
		ck_assert_int_eq(xact_enqueue(x), 0);
		fake_answer(fx.fb, NULL, 0);
	}
	ck_assert_uint_eq(fx.d.cpu.own_ns, 2 * US);
	ck_assert_uint_eq(fx.na.st.daemon_cpu_ns, 2 * US);
}
END_TEST

/*
 * The budget counts the daemon: a node that never spins, whose poller
 * reports no CPU at all, goes over a 1% cpu_budget on the daemon's CPU
 * alone (20 ms a completion: 2% of tau) and its next request runs cheaply (no
 * spinning: throttled), then its queue is held.
 */
START_TEST(test_budget_counts_daemon)
{
	uint8_t ok[] = { 0x1c, 0x01, 0x00 };
	struct fake_sub *s;

	fx.na.conf.pol.cpu_budget_ppm = 10000;
	fx.na.conf.pol.max_busy_us = 1000;
	clk_step = 0;
	ck_assert_int_eq(xact_enqueue(mk(&fx.na)), 0);
	s = fake_pending(fx.fb);
	ck_assert_uint_eq(s->pol.max_busy_us, 1000); /* under budget */
	clk_step = 20 * MS;
	ck_assert_int_eq(xact_enqueue(mk(&fx.na)), 0);
	fake_complete(fx.fb, s, 0, ok, sizeof(ok)); /* charges 20 ms */
	ck_assert_uint_eq(fx.na.st.cpu_ns, 0);
	ck_assert_uint_ge(fx.na.st.daemon_cpu_ns, 20 * MS);
	ck_assert(nodestats_cpu_over(&fx.na.st.cpu, now_ns(), 10000));
	s = fake_pending(fx.fb);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->pol.max_busy_us, 0);
	ck_assert_uint_eq(fx.na.cnt.throttled, 1);
	/* still over after the cheap one: held */
	fake_complete(fx.fb, s, 0, ok, sizeof(ok));
	ck_assert_uint_eq(fx.na.cnt.held, 1);
	/* b, with no budget and no requests, was charged nothing */
	ck_assert_uint_eq(fx.nb.st.daemon_cpu_ns, 0);
}
END_TEST

/*
 * A held node's clients still cost the daemon CPU while their requests
 * wait (polls, RECEIVEs that find nothing): it counts in the node's
 * estimate, but the hold set at the completion stays where it was, so
 * the queue goes on when it ends, over budget or not (docs/operating.md,
 * "How long a request waits for its budget").
 */
START_TEST(test_hold_not_extended)
{
	uint8_t ok[] = { 0x1c, 0x01, 0x00 };
	struct cpu_mark mk_poll;
	struct fake_sub *s;
	struct xact *x3;
	uint64_t until;
	double before;
	int i;

	fx.na.conf.pol.cpu_budget_ppm = 10000;
	clk_step = 0;
	ck_assert_int_eq(xact_enqueue(mk(&fx.na)), 0);
	s = fake_pending(fx.fb);
	clk_step = 20 * MS;
	ck_assert_int_eq(xact_enqueue(mk(&fx.na)), 0);
	fake_complete(fx.fb, s, 0, ok, sizeof(ok)); /* over: cheapened */
	s = fake_pending(fx.fb);
	ck_assert_ptr_nonnull(s);
	x3 = mk(&fx.na);
	ck_assert_int_eq(xact_enqueue(x3), 0);
	fake_complete(fx.fb, s, 0, ok, sizeof(ok)); /* still over: held */
	ck_assert_uint_eq(fx.na.cnt.held, 1);
	until = fx.na.flow.hold_until_ns;
	ck_assert_uint_gt(until, now_ns());
	ck_assert_ptr_null(fake_pending(fx.fb)); /* the third waits */
	/* the waiting client polls: 10 pieces of 20 ms for a */
	before = nodestats_cpu_ppm(&fx.na.st.cpu, now_ns());
	for (i = 0; i < 10; i++) {
		cpu_enter(&fx.d, &fx.na, &mk_poll);
		cpu_leave(&fx.d, &mk_poll);
	}
	ck_assert_double_gt(nodestats_cpu_ppm(&fx.na.st.cpu, now_ns()), before);
	ck_assert_uint_eq(fx.na.flow.hold_until_ns, until);
	ck_assert_uint_eq(fx.na.cnt.held, 1);
	xact_cancel(x3);
}
END_TEST

static Suite *cpumeter_suite(void)
{
	Suite *s = suite_create("cpumeter");
	TCase *tc = tcase_create("attribution");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_nested);
	tcase_add_test(tc, test_same_node_free);
	tcase_add_test(tc, test_calibration);
	tcase_add_test(tc, test_node_gone);
	tcase_add_test(tc, test_request_path);
	tcase_add_test(tc, test_budget_counts_daemon);
	tcase_add_test(tc, test_hold_not_extended);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cpumeter_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
