/* SPDX-License-Identifier: MIT */
/*
 * End-to-end test of kcsmux-bmc-proxy: each test starts the binary on free
 * loopback ports between a fake BMC (a listening socket here, standing in
 * for ipmi_sim) and a fake QEMU (a client socket here), then checks what
 * crosses: frames intact and in order, BMC messages delayed by at least the
 * fixed delay, control frames undelayed but never overtaking, hold/release,
 * drop, triggers, reconnects, and the exit report. The rig is proxy_rig.c.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proxy_rig.h"

static const uint8_t tricky[] = { 0xA0, 0xA1, 0xAA, 0x00, 0xB0, 0xFF };

START_TEST(passthrough_both_ways)
{
	static const char *const args[] = { "--delay", "none", NULL };
	struct rig r;
	uint8_t a[160], b[160], c[160], d[160];
	size_t na, nb, nc, nd;
	const uint8_t ver[] = { VM_CMD_VERSION, 1 };
	const uint8_t caps[] = { VM_CMD_CAPABILITIES, 0x14 };

	rig_start(&r, args);
	/* QEMU -> BMC: version, capabilities, Get Device ID, in one write */
	na = cmdf(a, ver, 2);
	nb = cmdf(b, caps, 2);
	nc = req(c, 0x01, 0x06, 0x01);
	memcpy(d, a, na);
	memcpy(d + na, b, nb);
	memcpy(d + na + nb, c, nc);
	send_all(r.qemu, d, na + nb + nc);
	expect_frame(r.bmc, &r.bp, a, na, 5000, "version");
	expect_frame(r.bmc, &r.bp, b, nb, 5000, "capabilities");
	expect_frame(r.bmc, &r.bp, c, nc, 5000, "request");

	/* BMC -> QEMU: a response whose payload needs escaping */
	nd = rsp(d, 0x01, 0x06, 0x01, tricky, sizeof(tricky));
	send_all(r.bmc, d, nd);
	expect_frame(r.qemu, &r.qp, d, nd, 5000, "response");
	ck_assert_int_eq(WEXITSTATUS(rig_stop(&r)), 0);
}
END_TEST

START_TEST(fixed_delay_in_order)
{
	static const char *const args[] = { "--delay", "fixed:30000", NULL };
	struct rig r;
	uint8_t all[1024], f[8][160];
	size_t nf[8], tot = 0;
	uint64_t t0, t;
	char *rep;

	rig_start(&r, args);
	for (int i = 0; i < 8; i++) {
		nf[i] = rsp(f[i], (uint8_t)(0x10 + i), 0x06, 0x01, tricky,
			    (size_t)i % sizeof(tricky));
		memcpy(all + tot, f[i], nf[i]);
		tot += nf[i];
	}
	t0 = now_ns();
	send_all(r.bmc, all, tot);
	for (int i = 0; i < 8; i++) {
		expect_frame(r.qemu, &r.qp, f[i], nf[i], 5000, "delayed frame");
		t = now_ns();
		ck_assert_msg(t - t0 >= 30 * MS,
			      "frame %d after %.3f ms, before the 30 ms delay",
			      i, (double)(t - t0) / 1e6);
	}
	/* delays overlap: 8 frames sent together are not serialized */
	ck_assert_msg(now_ns() - t0 < 8 * 30 * MS, "frames were serialized");
	ck_assert_int_eq(WEXITSTATUS(rig_stop(&r)), 0);
	rep = slurp(r.report);
	ck_assert_msg(strstr(rep, "bmc_to_host msgs=8 cmds=0 delayed=8"), "%s",
		      rep);
	ck_assert_msg(strstr(rep, "delay_us n=8 mean=30000.0 p50=30000.0"),
		      "%s", rep);
	ck_assert_msg(strstr(rep, "lateness_us n=8 "), "%s", rep);
	unlink(r.report);
}
END_TEST

START_TEST(byte_at_a_time)
{
	static const char *const args[] = { "--delay", "fixed:1000", NULL };
	struct rig r;
	uint8_t f[160], q[160];
	size_t n, nq;

	rig_start(&r, args);
	n = rsp(f, 0x22, 0x0a, 0x23, tricky, sizeof(tricky));
	for (size_t i = 0; i < n; i++) {
		send_all(r.bmc, f + i, 1);
		usleep(2000);
	}
	expect_frame(r.qemu, &r.qp, f, n, 5000, "trickled response");
	nq = req(q, 0x23, 0x0a, 0x22);
	for (size_t i = 0; i < nq; i++) {
		send_all(r.qemu, q + i, 1);
		usleep(2000);
	}
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "trickled request");
	rig_done(&r);
}
END_TEST

START_TEST(control_frames_undelayed_but_ordered)
{
	static const char *const args[] = { "--delay", "fixed:400000", NULL };
	struct rig r;
	uint8_t attn[16], m[160], both[192];
	const uint8_t a = VM_CMD_ATTN;
	size_t na, nm;
	uint64_t t0, t;

	rig_start(&r, args);
	na = cmdf(attn, &a, 1);
	/* alone: passes without the 400 ms delay */
	t0 = now_ns();
	send_all(r.bmc, attn, na);
	expect_frame(r.qemu, &r.qp, attn, na, 5000, "attention");
	t = now_ns();
	ck_assert_msg(t - t0 < 300 * MS, "control frame took %.1f ms",
		      (double)(t - t0) / 1e6);

	/* behind a delayed message: must not overtake it */
	nm = rsp(m, 0x30, 0x06, 0x01, NULL, 0);
	memcpy(both, m, nm);
	memcpy(both + nm, attn, na);
	t0 = now_ns();
	send_all(r.bmc, both, nm + na);
	expect_frame(r.qemu, &r.qp, m, nm, 5000, "message first");
	expect_frame(r.qemu, &r.qp, attn, na, 5000, "then attention");
	t = now_ns();
	ck_assert_msg(t - t0 >= 400 * MS, "arrived after %.1f ms",
		      (double)(t - t0) / 1e6);
	rig_done(&r);
}
END_TEST

START_TEST(hold_and_release)
{
	static const char *const args[] = { "--delay", "none", NULL };
	struct rig r;
	uint8_t m1[160], m2[160], attn[16];
	const uint8_t a = VM_CMD_ATTN;
	size_t n1, n2, na;
	char reply[4096];
	char *rep;

	rig_start(&r, args);
	n1 = rsp(m1, 1, 0x06, 0x01, NULL, 0);
	n2 = rsp(m2, 2, 0x06, 0x01, tricky, 3);
	na = cmdf(attn, &a, 1);

	ctl(&r, reply, sizeof(reply), "hold");
	ck_assert_msg(strncmp(reply, "ok held", 7) == 0, "%s", reply);
	send_all(r.bmc, m1, n1);
	send_all(r.bmc, attn, na);
	send_all(r.bmc, m2, n2);
	wait_stat(&r, "hold state=on queued=3");
	expect_nothing(r.qemu, 300, "while held");
	/* requests still reach the BMC while it is "hung" */
	{
		uint8_t q[160];
		size_t nq = req(q, 3, 0x06, 0x01);

		send_all(r.qemu, q, nq);
		expect_frame(r.bmc, &r.bp, q, nq, 5000, "request while held");
	}
	ctl(&r, reply, sizeof(reply), "stats");
	ck_assert_msg(strstr(reply, "hold state=on queued=3"), "%s", reply);
	ctl(&r, reply, sizeof(reply), "release");
	ck_assert_msg(strncmp(reply, "ok released 3", 13) == 0, "%s", reply);
	expect_frame(r.qemu, &r.qp, m1, n1, 5000, "held 1");
	expect_frame(r.qemu, &r.qp, attn, na, 5000, "held attention");
	expect_frame(r.qemu, &r.qp, m2, n2, 5000, "held 2");

	/* timed hold releases by itself */
	ctl(&r, reply, sizeof(reply), "hold 300");
	send_all(r.bmc, m1, n1);
	expect_nothing(r.qemu, 150, "during timed hold");
	expect_frame(r.qemu, &r.qp, m1, n1, 5000, "after timed hold");

	ck_assert_int_eq(WEXITSTATUS(rig_stop(&r)), 0);
	rep = slurp(r.report);
	/* held messages are excluded from the lateness figures */
	ck_assert_msg(strstr(rep, "held_released=3"), "%s", rep);
	ck_assert_msg(strstr(rep, "lateness_us n=0 "), "%s", rep);
	ck_assert_msg(strstr(rep, "holds=2"), "%s", rep);
	unlink(r.report);
}
END_TEST

START_TEST(drop_held)
{
	static const char *const args[] = { "--delay", "none", NULL };
	struct rig r;
	uint8_t m[160];
	size_t n;
	char reply[4096];

	rig_start(&r, args);
	n = rsp(m, 7, 0x06, 0x01, NULL, 0);
	ctl_ok(&r, "hold");
	send_all(r.bmc, m, n);
	send_all(r.bmc, m, n);
	wait_stat(&r, "queued=2");
	ctl(&r, reply, sizeof(reply), "drop");
	ck_assert_msg(strncmp(reply, "ok dropped 2", 12) == 0, "%s", reply);
	ctl_ok(&r, "release");
	expect_nothing(r.qemu, 300, "dropped frames");
	send_all(r.bmc, m, n);
	expect_frame(r.qemu, &r.qp, m, n, 5000, "after drop");
	ctl(&r, reply, sizeof(reply), "stats");
	ck_assert_msg(strstr(reply, "dropped_ctl=2"), "%s", reply);
	rig_done(&r);
}
END_TEST

START_TEST(hold_on_request_trigger)
{
	static const char *const args[] = { "--delay",	  "none",
					    "--hold-on",  "0x30:0x01",
					    "--hold-for", "400",
					    NULL };
	struct rig r;
	uint8_t q[160], m[160];
	size_t nq, nm;
	uint64_t t0, t;

	rig_start(&r, args);
	/* an ordinary request is not held */
	nq = req(q, 1, 0x06, 0x01);
	send_all(r.qemu, q, nq);
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "plain request");
	nm = rsp(m, 1, 0x06, 0x01, NULL, 0);
	send_all(r.bmc, m, nm);
	expect_frame(r.qemu, &r.qp, m, nm, 5000, "plain response");

	/* the trigger request: its response is held for 400 ms */
	nq = req(q, 2, 0x30, 0x01);
	t0 = now_ns();
	send_all(r.qemu, q, nq);
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "trigger request");
	nm = rsp(m, 2, 0x30, 0x01, NULL, 0);
	send_all(r.bmc, m, nm);
	expect_frame(r.qemu, &r.qp, m, nm, 5000, "held response");
	t = now_ns();
	ck_assert_msg(t - t0 >= 400 * MS, "held only %.1f ms",
		      (double)(t - t0) / 1e6);
	rig_done(&r);
}
END_TEST

START_TEST(hold_after_count)
{
	static const char *const args[] = { "--delay", "none", "--hold-after",
					    "2", NULL };
	struct rig r;
	uint8_t m[3][160];
	size_t n[3];

	rig_start(&r, args);
	for (int i = 0; i < 3; i++)
		n[i] = rsp(m[i], (uint8_t)i, 0x06, 0x01, NULL, 0);
	send_all(r.bmc, m[0], n[0]);
	expect_frame(r.qemu, &r.qp, m[0], n[0], 5000, "first");
	send_all(r.bmc, m[1], n[1]);
	expect_frame(r.qemu, &r.qp, m[1], n[1], 5000, "second");
	send_all(r.bmc, m[2], n[2]);
	expect_nothing(r.qemu, 300, "third is held");
	ctl_ok(&r, "release");
	expect_frame(r.qemu, &r.qp, m[2], n[2], 5000, "third released");
	/* one-shot: the next one passes */
	send_all(r.bmc, m[0], n[0]);
	expect_frame(r.qemu, &r.qp, m[0], n[0], 5000, "after hold-after");
	rig_done(&r);
}
END_TEST

START_TEST(live_delay_change_and_errors)
{
	static const char *const args[] = { "--delay", "none", NULL };
	struct rig r;
	uint8_t m[160];
	size_t n;
	char reply[4096];
	uint64_t t0;

	rig_start(&r, args);
	ctl(&r, reply, sizeof(reply), "delay gaussian:3");
	ck_assert_msg(strncmp(reply, "err", 3) == 0, "%s", reply);
	ctl(&r, reply, sizeof(reply), "frobnicate");
	ck_assert_msg(strncmp(reply, "err", 3) == 0, "%s", reply);
	ctl(&r, reply, sizeof(reply), "hold-on 99 1");
	ck_assert_msg(strncmp(reply, "err", 3) == 0, "%s", reply);
	ctl(&r, reply, sizeof(reply), "ping");
	ck_assert_msg(strncmp(reply, "ok pong", 7) == 0, "%s", reply);
	ctl(&r, reply, sizeof(reply), "delay fixed:150ms");
	ck_assert_msg(strncmp(reply, "ok delay fixed:150ms", 20) == 0, "%s",
		      reply);
	n = rsp(m, 9, 0x06, 0x01, NULL, 0);
	t0 = now_ns();
	send_all(r.bmc, m, n);
	expect_frame(r.qemu, &r.qp, m, n, 5000, "after delay change");
	ck_assert(now_ns() - t0 >= 150 * MS);
	ctl(&r, reply, sizeof(reply), "stats");
	ck_assert_msg(strstr(reply, "model spec=fixed:150ms"), "%s", reply);
	ctl_ok(&r, "reset-stats");
	ctl(&r, reply, sizeof(reply), "stats");
	ck_assert_msg(strstr(reply, "bmc_to_host msgs=0"), "%s", reply);
	rig_done(&r);
}
END_TEST

START_TEST(seed_model_report_and_quit)
{
	struct rig r;
	uint8_t m[160];
	size_t n;
	char reply[4096];
	int status;
	char *rep;
	double p50, p99;
	const char *s;

	rig_start(&r, NULL); /* default model: seed */
	n = rsp(m, 1, 0x06, 0x01, NULL, 0);
	for (int i = 0; i < 40; i++) {
		uint64_t t0 = now_ns();

		send_all(r.bmc, m, n);
		expect_frame(r.qemu, &r.qp, m, n, 5000, "seed-delayed");
		ck_assert(now_ns() - t0 >= 200000ull); /* >= 200 us */
	}
	ctl(&r, reply, sizeof(reply), "quit");
	ck_assert_msg(strstr(reply, "ok bye"), "%s", reply);
	ck_assert_int_eq(waitpid(r.pid, &status, 0), r.pid);
	r.pid = 0;
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	rig_stop(&r);
	rep = slurp(r.report);
	ck_assert_msg(strstr(rep, "model spec=seed mean_us=825.0 seed=1"), "%s",
		      rep);
	ck_assert_msg(strstr(rep, "bmc_to_host msgs=40 cmds=0 delayed=40"),
		      "%s", rep);
	s = strstr(rep, "delay_us n=40 ");
	ck_assert_msg(s != NULL, "%s", rep);
	ck_assert_int_eq(sscanf(strstr(s, "p50="), "p50=%lf p99=%lf", &p50,
				&p99),
			 2);
	ck_assert(p50 >= 200 && p50 <= 2000);
	ck_assert(p99 >= p50 && p99 <= 2000);
	ck_assert_msg(strstr(rep, "lateness_us n=40 "), "%s", rep);
	unlink(r.report);
}
END_TEST

START_TEST(bmc_restart_reconnects_and_replays)
{
	static const char *const args[] = { "--delay", "none", NULL };
	struct rig r;
	uint8_t ver[16], caps[16], q[160], m[160], b[32];
	const uint8_t v[] = { VM_CMD_VERSION, 1 };
	const uint8_t c[] = { VM_CMD_CAPABILITIES, 0x14 };
	size_t nv, nc, nq, nm;

	rig_start(&r, args);
	nv = cmdf(ver, v, 2);
	nc = cmdf(caps, c, 2);
	memcpy(b, ver, nv);
	memcpy(b + nv, caps, nc);
	send_all(r.qemu, b, nv + nc);
	expect_frame(r.bmc, &r.bp, ver, nv, 5000, "version");
	expect_frame(r.bmc, &r.bp, caps, nc, 5000, "caps");

	/* ipmi_sim goes away and comes back */
	close(r.bmc);
	r.bmc = accept_within(r.bmc_lfd, 10000);
	ck_assert_msg(r.bmc >= 0, "proxy did not reconnect");
	vm_parser_reset(&r.bp);
	/* QEMU's announcement is repeated to the new BMC */
	expect_frame(r.bmc, &r.bp, ver, nv, 5000, "replayed version");
	expect_frame(r.bmc, &r.bp, caps, nc, 5000, "replayed caps");
	wait_connected(&r);
	nq = req(q, 4, 0x06, 0x01);
	send_all(r.qemu, q, nq);
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "request after restart");
	nm = rsp(m, 4, 0x06, 0x01, NULL, 0);
	send_all(r.bmc, m, nm);
	expect_frame(r.qemu, &r.qp, m, nm, 5000, "response after restart");
	rig_done(&r);
}
END_TEST

START_TEST(bmc_starts_late)
{
	static const char *const args[] = { "--delay", "none", NULL };
	struct rig r;
	uint8_t q[160];
	size_t nq;

	rig_spawn(&r, args, false); /* port bound, not listening: refused */
	usleep(150000);
	ck_assert_int_eq(listen(r.bmc_lfd, 4), 0);
	r.bmc = accept_within(r.bmc_lfd, 10000);
	ck_assert_msg(r.bmc >= 0, "proxy did not retry the BMC");
	r.qemu = connect_to(r.listen_port);
	wait_connected(&r);
	nq = req(q, 5, 0x06, 0x01);
	send_all(r.qemu, q, nq);
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "request");
	rig_done(&r);
}
END_TEST

START_TEST(qemu_reconnect)
{
	static const char *const args[] = { "--delay", "fixed:100ms", NULL };
	struct rig r;
	uint8_t ver[16], m[160], buf[VM_RAW_MAX];
	const uint8_t v[] = { VM_CMD_VERSION, 1 };
	size_t nv, nm;
	char reply[4096];

	rig_start(&r, args);
	/* the BMC announces itself (as ipmi_sim does on connect) */
	nv = cmdf(ver, v, 2);
	send_all(r.bmc, ver, nv);
	expect_frame(r.qemu, &r.qp, ver, nv, 5000, "bmc version");
	/* a response in flight is dropped when QEMU goes away */
	nm = rsp(m, 1, 0x06, 0x01, NULL, 0);
	send_all(r.bmc, m, nm);
	wait_stat(&r, "queued=1");
	close(r.qemu);
	r.qemu = connect_to(r.listen_port);
	vm_parser_reset(&r.qp);
	/* the new connection sees the BMC's version first, then nothing old */
	expect_frame(r.qemu, &r.qp, ver, nv, 5000, "replayed bmc version");
	ck_assert_int_eq(read_frame(r.qemu, &r.qp, buf, sizeof(buf), NULL, 300),
			 0);
	wait_connected(&r);
	send_all(r.bmc, m, nm);
	expect_frame(r.qemu, &r.qp, m, nm, 5000, "response on new connection");
	ctl(&r, reply, sizeof(reply), "stats");
	ck_assert_msg(strstr(reply, "dropped_disconnect=1"), "%s", reply);
	ck_assert_msg(strstr(reply, "qemu_connects=2"), "%s", reply);
	rig_done(&r);
}
END_TEST

START_TEST(sigusr1_toggles_hold)
{
	static const char *const args[] = { "--delay", "none", NULL };
	struct rig r;
	uint8_t m[160];
	size_t n;

	rig_start(&r, args);
	n = rsp(m, 1, 0x06, 0x01, NULL, 0);
	kill(r.pid, SIGUSR1);
	wait_stat(&r, "hold state=on");
	send_all(r.bmc, m, n);
	wait_stat(&r, "queued=1");
	expect_nothing(r.qemu, 300, "held by SIGUSR1");
	kill(r.pid, SIGUSR1);
	expect_frame(r.qemu, &r.qp, m, n, 5000, "released by SIGUSR1");
	rig_done(&r);
}
END_TEST

START_TEST(bad_arguments)
{
	static const char *const cases[][4] = {
		{ "--delay", "bogus", NULL, NULL },
		{ "--listen", "70000", NULL, NULL },
		{ "--hold-on", "6", NULL, NULL },
		{ "extra-arg", NULL, NULL, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[8] = { "--bmc", "1" };
		int k = 2, code;

		for (int j = 0; cases[i][j]; j++)
			args[k++] = cases[i][j];
		args[k] = NULL;
		code = proxy_exit_code(args);
		ck_assert_msg(code == 2, "case %zu exit %d", i, code);
	}
	/* missing --bmc */
	{
		static const char *const args[] = { "--listen", "0", NULL };

		ck_assert_int_eq(proxy_exit_code(args), 2);
	}
}
END_TEST

int main(void)
{
	const TTest *tests[] = { passthrough_both_ways,
				 fixed_delay_in_order,
				 byte_at_a_time,
				 control_frames_undelayed_but_ordered,
				 hold_and_release,
				 drop_held,
				 hold_on_request_trigger,
				 hold_after_count,
				 live_delay_change_and_errors,
				 seed_model_report_and_quit,
				 bmc_restart_reconnects_and_replays,
				 bmc_starts_late,
				 qemu_reconnect,
				 sigusr1_toggles_hold,
				 bad_arguments,
				 NULL };

	return rig_run("bmc_proxy", tests);
}
