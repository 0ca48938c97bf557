/* SPDX-License-Identifier: MIT */
/*
 * End-to-end test of kcsmux-bmc-proxy's SMS_ATN injection and --on rules,
 * between a fake BMC and a fake QEMU as in test_bmc_proxy.c (the rig is
 * proxy_rig.c): attention frames, the answers the proxy makes up for Get
 * Message Flags / Get Message / Read Event Message Buffer and their place
 * in the delayed, ordered queue, NOATTN when the last item is fetched, the
 * BMC's own attention state, Set BMC Global Enables and Clear Message
 * Flags, rules that inject, change the model, hold and quit.
 */
#include <check.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proxy_rig.h"

static const uint8_t attn_irq[] = { VM_CMD_ATTN_IRQ, VM_CMD_END };
static const uint8_t attn[] = { VM_CMD_ATTN, VM_CMD_END };
static const uint8_t noattn[] = { VM_CMD_NOATTN, VM_CMD_END };

#define EVENT_HEX "00112233445566778899aabbccddeeff"

/* an App request with data */
static size_t app_req(uint8_t *out, uint8_t seq, uint8_t cmd,
		      const uint8_t *data, size_t len)
{
	size_t n = vm_encode_msg(seq, 0x06, 0, cmd, data, len, out, 160);

	ck_assert_uint_gt(n, 0);
	return n;
}

/* read the next frame on the QEMU side; returns its decoded bytes */
static size_t qemu_frame(struct rig *r, uint8_t *dec, enum vm_frame_kind *k,
			 int timeout_ms, const char *what)
{
	uint8_t raw[VM_RAW_MAX];
	struct vm_parser p;
	struct vm_frame f;
	size_t used;
	ssize_t n =
		read_frame(r->qemu, &r->qp, raw, sizeof(raw), k, timeout_ms);

	ck_assert_msg(n > 0, "%s: no frame", what);
	vm_parser_init(&p);
	ck_assert(vm_parser_next(&p, raw, (size_t)n, &used, &f));
	memcpy(dec, f.data, f.data_len);
	return f.data_len;
}

/* the next QEMU frame must be the answer seq/cmd with cc and data */
static void expect_answer(struct rig *r, uint8_t seq, uint8_t cmd, uint8_t cc,
			  const uint8_t *data, size_t len, const char *what)
{
	uint8_t d[VM_DATA_MAX];
	enum vm_frame_kind k;
	size_t n = qemu_frame(r, d, &k, 5000, what);

	ck_assert_msg(k == VM_FRAME_MSG, "%s: not a message", what);
	ck_assert_msg(n == len + 5, "%s: %zu bytes, want %zu", what, n,
		      len + 5);
	ck_assert_uint_eq(d[0], seq);
	ck_assert_uint_eq(d[1], 0x07 << 2);
	ck_assert_uint_eq(d[2], cmd);
	ck_assert_uint_eq(d[3], cc);
	ck_assert_msg(memcmp(d + 4, data, len) == 0, "%s: data differ", what);
	ck_assert_uint_eq(vm_checksum(d, n), 0);
}

START_TEST(event_answered_in_order_with_delay)
{
	static const char *const args[] = { "--delay", "fixed:50000", NULL };
	static const uint8_t ev[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
					0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
					0xcc, 0xdd, 0xee, 0xff };
	static const uint8_t evflag = 0x02;
	struct rig r;
	uint8_t q[160], m[160];
	size_t nq, nm;
	uint64_t t0, t;
	char reply[4096];

	rig_start(&r, args);
	/* a real response is on its way (50 ms) when the event comes */
	nq = req(q, 1, 0x06, 0x01);
	send_all(r.qemu, q, nq);
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "request");
	nm = rsp(m, 1, 0x06, 0x01, NULL, 0);
	send_all(r.bmc, m, nm);
	wait_stat(&r, "bmc_to_host msgs=1 ");
	ctl(&r, reply, sizeof(reply), "inject-event " EVENT_HEX);
	ck_assert_msg(strstr(reply, "ok inject-event pending_events=1 "
				    "pending_msgs=0"),
		      "%s", reply);
	/* the host asks for the flags before it saw anything */
	t0 = now_ns();
	nq = app_req(q, 2, 0x31, NULL, 0);
	send_all(r.qemu, q, nq);
	/* order: the real response, the attention, the made-up answer */
	expect_frame(r.qemu, &r.qp, m, nm, 5000, "real response first");
	expect_frame(r.qemu, &r.qp, attn_irq, sizeof(attn_irq), 5000,
		     "then ATTN_IRQ");
	expect_answer(&r, 2, 0x31, 0, &evflag, 1, "then the flags");
	t = now_ns();
	ck_assert_msg(t - t0 >= 50 * MS, "flags answered after %.1f ms",
		      (double)(t - t0) / 1e6);

	/* the event: NOATTN goes ahead of the (delayed) answer */
	nq = app_req(q, 3, 0x35, NULL, 0);
	t0 = now_ns();
	send_all(r.qemu, q, nq);
	expect_frame(r.qemu, &r.qp, noattn, sizeof(noattn), 5000, "NOATTN");
	ck_assert_msg(now_ns() - t0 < 40 * MS, "NOATTN was delayed");
	expect_answer(&r, 3, 0x35, 0, ev, sizeof(ev), "event");
	ck_assert_msg(now_ns() - t0 >= 50 * MS, "event not delayed");

	/* nothing left: the next read goes to the BMC, first BMC frame
	 * since the Get Device ID: nothing else was forwarded */
	nq = app_req(q, 4, 0x35, NULL, 0);
	send_all(r.qemu, q, nq);
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "second read forwarded");
	ctl(&r, reply, sizeof(reply), "stats");
	ck_assert_msg(strstr(reply, "inject events=1 msgs=0 cleared=0 "
				    "pending_events=0 pending_msgs=0 "
				    "answered_flags=1 answered_events=1 "
				    "answered_msgs=0 attn=1 noattn=1 "
				    "noattn_suppressed=0"),
		      "%s", reply);
	ck_assert_msg(strstr(reply, "delay_us n=3 "), "%s", reply);
	ck_assert_msg(strstr(reply, "host_to_bmc msgs=4 "), "%s", reply);
	rig_done(&r);
}
END_TEST

START_TEST(on_rules_inject_cmd_and_change_model)
{
	static const char *const args[] = {
		"--delay", "none",
		"--on",	   "0x30:0x03=inject-cmd,0,0x40,0x32,0x05,0xde,0xad",
		"--on",	   "0x30:0x02=model fixed:100000",
		"--on",	   "0x30:0x03=inject-event " EVENT_HEX,
		NULL
	};
	/* Get Message data: channel 0, 0x32 << 2, chk1, 0x40, seq 0, cmd 5,
	 * DE AD, chk2 */
	static const uint8_t body[] = { 0x00, 0xc8, 0x18, 0x40, 0x00,
					0x05, 0xde, 0xad, 0x30 };
	static const uint8_t both = 0x03, cc_empty = 0x80;
	struct rig r;
	uint8_t q[160], m[160];
	size_t nq, nm;
	uint64_t t0;
	char reply[4096];

	rig_start(&r, args);
	/* the trigger request still reaches the BMC */
	nq = req(q, 1, 0x30, 0x03);
	send_all(r.qemu, q, nq);
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "trigger forwarded");
	/* two rules fired: an attention each */
	expect_frame(r.qemu, &r.qp, attn_irq, sizeof(attn_irq), 5000, "ATTN 1");
	expect_frame(r.qemu, &r.qp, attn_irq, sizeof(attn_irq), 5000, "ATTN 2");
	nm = rsp(m, 1, 0x30, 0x03, NULL, 0);
	send_all(r.bmc, m, nm);
	expect_frame(r.qemu, &r.qp, m, nm, 5000, "trigger's response");

	nq = app_req(q, 2, 0x31, NULL, 0);
	send_all(r.qemu, q, nq);
	expect_answer(&r, 2, 0x31, 0, &both, 1, "flags: both");
	nq = app_req(q, 3, 0x33, NULL, 0);
	send_all(r.qemu, q, nq);
	expect_answer(&r, 3, 0x33, 0, body, sizeof(body), "message");
	/* the event is left: no NOATTN yet */
	nq = app_req(q, 4, 0x33, NULL, 0);
	send_all(r.qemu, q, nq);
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "Get Message forwarded");
	nm = vm_encode_msg(4, 0x07, 0, 0x33, &cc_empty, 1, m, sizeof(m));
	send_all(r.bmc, m, nm);
	expect_frame(r.qemu, &r.qp, m, nm, 5000, "BMC's 0x80");
	nq = app_req(q, 5, 0x35, NULL, 0);
	send_all(r.qemu, q, nq);
	expect_frame(r.qemu, &r.qp, noattn, sizeof(noattn), 5000, "NOATTN");
	{
		static const uint8_t ev[16] = { 0x00, 0x11, 0x22, 0x33,
						0x44, 0x55, 0x66, 0x77,
						0x88, 0x99, 0xaa, 0xbb,
						0xcc, 0xdd, 0xee, 0xff };

		expect_answer(&r, 5, 0x35, 0, ev, sizeof(ev), "event");
	}

	/* the model rule: later responses take 100 ms */
	nq = req(q, 6, 0x30, 0x02);
	send_all(r.qemu, q, nq);
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "model trigger forwarded");
	wait_stat(&r, "model spec=fixed:100000 ");
	nm = rsp(m, 6, 0x30, 0x02, NULL, 0);
	t0 = now_ns();
	send_all(r.bmc, m, nm);
	expect_frame(r.qemu, &r.qp, m, nm, 5000, "slow response");
	ck_assert_msg(now_ns() - t0 >= 100 * MS, "model not changed");

	ctl(&r, reply, sizeof(reply), "on");
	ck_assert_msg(strstr(reply, "on 0x30:0x03=inject-cmd 0 0x40 0x32 0x05 "
				    "0xde 0xad fired=1\n"),
		      "%s", reply);
	ck_assert_msg(strstr(reply, "on 0x30:0x02=model fixed:100000 "
				    "fired=1\n"),
		      "%s", reply);
	ck_assert_msg(strstr(reply, "ok rules=3"), "%s", reply);
	ctl(&r, reply, sizeof(reply), "stats");
	ck_assert_msg(strstr(reply, "on rules=3 fired=3"), "%s", reply);
	ck_assert_msg(strstr(reply, "inject events=1 msgs=1 "), "%s", reply);
	ck_assert_msg(strstr(reply, "attn=2 noattn=1 "), "%s", reply);
	rig_done(&r);
}
END_TEST

START_TEST(bmc_attention_state_respected)
{
	static const char *const args[] = { "--delay", "none", NULL };
	struct rig r;
	uint8_t q[160], d[VM_DATA_MAX];
	size_t nq;
	enum vm_frame_kind k;
	char reply[4096];

	rig_start(&r, args);
	/* the BMC's own attention is up */
	send_all(r.bmc, attn, sizeof(attn));
	expect_frame(r.qemu, &r.qp, attn, sizeof(attn), 5000, "BMC ATTN");
	ctl_ok(&r, "inject-event " EVENT_HEX);
	expect_frame(r.qemu, &r.qp, attn_irq, sizeof(attn_irq), 5000,
		     "our ATTN");
	/* last item fetched, but the BMC still wants attention: no NOATTN */
	nq = app_req(q, 1, 0x35, NULL, 0);
	send_all(r.qemu, q, nq);
	qemu_frame(&r, d, &k, 5000, "answer");
	ck_assert_int_eq(k, VM_FRAME_MSG);
	ck_assert_uint_eq(d[2], 0x35);
	/* the BMC lowers it: passed on, nothing is pending */
	send_all(r.bmc, noattn, sizeof(noattn));
	expect_frame(r.qemu, &r.qp, noattn, sizeof(noattn), 5000, "BMC NOATTN");
	/* while items are pending, the BMC's NOATTN is held back */
	ctl_ok(&r, "inject-msg 00 18c8 8100017e");
	expect_frame(r.qemu, &r.qp, attn_irq, sizeof(attn_irq), 5000,
		     "ATTN for msg");
	send_all(r.bmc, noattn, sizeof(noattn));
	wait_stat(&r, "noattn_suppressed=1");
	expect_nothing(r.qemu, 100, "suppressed NOATTN");
	ctl(&r, reply, sizeof(reply), "inject-clear");
	ck_assert_msg(strstr(reply, "ok inject-clear dropped=1"), "%s", reply);
	expect_frame(r.qemu, &r.qp, noattn, sizeof(noattn), 5000,
		     "NOATTN after clear");
	ctl(&r, reply, sizeof(reply), "inject-clear");
	ck_assert_msg(strstr(reply, "ok inject-clear dropped=0"), "%s", reply);
	expect_nothing(r.qemu, 100, "nothing to lower");
	rig_done(&r);
}
END_TEST

START_TEST(global_enables_and_clear_flags)
{
	static const char *const args[] = { "--delay", "none", NULL };
	struct rig r;
	uint8_t q[160], m[160], b;
	size_t nq, nm;

	rig_start(&r, args);
	/* interrupts off: plain ATTN */
	b = 0x0c;
	nq = app_req(q, 1, 0x2e, &b, 1);
	send_all(r.qemu, q, nq);
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "Set BMC Global Enables");
	ctl_ok(&r, "inject-event " EVENT_HEX);
	expect_frame(r.qemu, &r.qp, attn, sizeof(attn), 5000, "ATTN");
	/* Get BMC Global Enables' answer from the BMC: event interrupt on */
	{
		uint8_t d[2] = { 0x00, 0x0e };

		nm = vm_encode_msg(2, 0x07, 0, 0x2f, d, 2, m, sizeof(m));
	}
	send_all(r.bmc, m, nm);
	expect_frame(r.qemu, &r.qp, m, nm, 5000, "Get Global Enables");
	ctl_ok(&r, "inject-event " EVENT_HEX);
	expect_frame(r.qemu, &r.qp, attn_irq, sizeof(attn_irq), 5000,
		     "ATTN_IRQ");
	/* Clear Message Flags (event buffer) drops them, and is forwarded */
	b = 0x02;
	nq = app_req(q, 3, 0x30, &b, 1);
	send_all(r.qemu, q, nq);
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "Clear Message Flags");
	wait_stat(&r, "cleared=2 pending_events=0");
	nq = app_req(q, 4, 0x31, NULL, 0);
	send_all(r.qemu, q, nq);
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "flags forwarded");
	rig_done(&r);
}
END_TEST

START_TEST(qemu_reconnect_reraises)
{
	static const char *const args[] = { "--delay", "none", NULL };
	struct rig r;

	rig_start(&r, args);
	ctl_ok(&r, "inject-msg 0x0018c88100017e");
	expect_frame(r.qemu, &r.qp, attn_irq, sizeof(attn_irq), 5000, "ATTN");
	close(r.qemu);
	r.qemu = connect_to(r.listen_port);
	vm_parser_init(&r.qp);
	expect_frame(r.qemu, &r.qp, attn_irq, sizeof(attn_irq), 5000,
		     "ATTN again");
	rig_done(&r);
}
END_TEST

START_TEST(control_errors_and_limits)
{
	static const char *const args[] = { "--delay", "none", NULL };
	static const char *const bad[] = {
		"inject-event 0011",
		"inject-event " EVENT_HEX "00",
		"inject-event zz",
		"inject-event",
		"inject-msg",
		"inject-msg 123",
		"inject-cmd 0 0x40",
		"inject-cmd 0 0x40 0x40 1",
		"inject-cmd 0 0x40 0x30 1 0x100",
		"inject-clear now",
		"on 0x30:0x02",
		"on 0x30=hold",
		"on 0x30:0x02=bogus",
		"on 0x30:0x02=on off",
		"model",
	};
	struct rig r;
	char reply[8192];

	rig_start(&r, args);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ctl(&r, reply, sizeof(reply), "%s", bad[i]);
		ck_assert_msg(strncmp(reply, "err", 3) == 0, "'%s' -> %s",
			      bad[i], reply);
	}
	for (int i = 0; i < 64; i++)
		ctl_ok(&r, "inject-event " EVENT_HEX);
	ctl(&r, reply, sizeof(reply), "inject-event " EVENT_HEX);
	ck_assert_msg(strstr(reply, "err injection queue full"), "%s", reply);
	ctl(&r, reply, sizeof(reply), "on 0x30:0x09=ping");
	ck_assert_msg(strstr(reply, "ok on 0x30:0x09=ping"), "%s", reply);
	ctl(&r, reply, sizeof(reply), "on off");
	ck_assert_msg(strstr(reply, "ok on off (1 removed)"), "%s", reply);
	ctl(&r, reply, sizeof(reply), "on");
	ck_assert_msg(strstr(reply, "ok rules=0"), "%s", reply);
	ctl(&r, reply, sizeof(reply), "model fixed:10");
	ck_assert_msg(strstr(reply, "ok delay fixed:10"), "%s", reply);
	ctl(&r, reply, sizeof(reply), "help");
	ck_assert_msg(strstr(reply, "inject-cmd CHAN RQSA NETFN CMD"), "%s",
		      reply);
	rig_done(&r);
}
END_TEST

START_TEST(bad_on_arguments)
{
	static const char *const cases[] = {
		"0x30:0x02",	   "0x40:0x02=hold",   "0x30:0x100=hold",
		"0x30:0x02=bogus", "0x30:0x02=on,off", "0x30:0x02=",
		"=hold",
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const args[] = { "--bmc", "1", "--on", cases[i],
					     NULL };
		int code = proxy_exit_code(args);

		ck_assert_msg(code == 2, "'%s': exit %d", cases[i], code);
	}
}
END_TEST

START_TEST(on_rule_quit_and_hold)
{
	static const char *const args[] = { "--delay", "none",
					    "--on",    "0x30:0x01=hold,300",
					    "--on",    "0x30:0x0f=quit",
					    NULL };
	struct rig r;
	uint8_t q[160], m[160];
	size_t nq, nm;
	uint64_t t0;
	int status;

	rig_start(&r, args);
	nq = req(q, 1, 0x30, 0x01);
	t0 = now_ns();
	send_all(r.qemu, q, nq);
	expect_frame(r.bmc, &r.bp, q, nq, 5000, "hold trigger");
	nm = rsp(m, 1, 0x30, 0x01, NULL, 0);
	send_all(r.bmc, m, nm);
	expect_frame(r.qemu, &r.qp, m, nm, 5000, "held response");
	ck_assert_msg(now_ns() - t0 >= 300 * MS, "not held");
	nq = req(q, 2, 0x30, 0x0f);
	send_all(r.qemu, q, nq);
	ck_assert_int_eq(waitpid(r.pid, &status, 0), r.pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	r.pid = 0;
	ck_assert_msg(strstr(slurp(r.report), "on rules=2 fired=2"), "%s",
		      slurp(r.report));
	rig_done(&r);
}
END_TEST

int main(void)
{
	const TTest *tests[] = { event_answered_in_order_with_delay,
				 on_rules_inject_cmd_and_change_model,
				 bmc_attention_state_respected,
				 global_enables_and_clear_flags,
				 qemu_reconnect_reraises,
				 control_errors_and_limits,
				 bad_on_arguments,
				 on_rule_quit_and_hold,
				 NULL };

	return rig_run("bmc_proxy_inject", tests);
}
