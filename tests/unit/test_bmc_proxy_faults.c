/* SPDX-License-Identifier: MIT */
/*
 * End-to-end test of kcsmux-bmc-proxy's misbehaving BMC, between a fake BMC
 * and a fake QEMU as in test_bmc_proxy.c (the rig is proxy_rig.c): silence
 * (requests swallowed, answers dropped) from the start, from QEMU's first
 * connection, on the control port and from an --on rule that spares its
 * trigger; busy answers (0xC0, 0xD2) made up here; answers whose cmd or
 * netfn is made wrong for the next N requests; the BMC's watchdog timer
 * played here (--watchdog: answered, never forwarded, a reset to QEMU at
 * the timeout); 0xC3 made up for the sequence numbers QEMU's own timeout
 * loses; answers set and removed at run time; the report's counters and
 * argument errors.
 */
#include <check.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proxy_rig.h"

/* read the next frame on the QEMU side; returns its decoded bytes */
static size_t qemu_msg(struct rig *r, uint8_t *dec, const char *what)
{
	uint8_t raw[VM_RAW_MAX];
	struct vm_parser p;
	struct vm_frame f;
	enum vm_frame_kind k;
	size_t used;
	ssize_t n = read_frame(r->qemu, &r->qp, raw, sizeof(raw), &k, 5000);

	ck_assert_msg(n > 0, "%s: no frame", what);
	ck_assert_msg(k == VM_FRAME_MSG, "%s: not a message", what);
	vm_parser_init(&p);
	ck_assert(vm_parser_next(&p, raw, (size_t)n, &used, &f));
	memcpy(dec, f.data, f.data_len);
	ck_assert_msg(vm_checksum(dec, f.data_len) == 0, "%s: checksum", what);
	return f.data_len;
}

/* the next QEMU message: seq, netfn (6 bits), cmd, completion code */
static void expect_head(struct rig *r, uint8_t seq, uint8_t netfn, uint8_t cmd,
			uint8_t cc, const char *what)
{
	uint8_t d[VM_DATA_MAX];
	size_t n = qemu_msg(r, d, what);

	ck_assert_msg(n >= 5, "%s: %zu bytes", what, n);
	ck_assert_msg(d[0] == seq && d[1] >> 2 == netfn && d[2] == cmd &&
			      d[3] == cc,
		      "%s: seq %02x netfn %02x cmd %02x cc %02x, want %02x "
		      "%02x %02x %02x",
		      what, d[0], d[1] >> 2, d[2], d[3], seq, netfn, cmd, cc);
}

/* QEMU sends request seq netfn:cmd; the BMC must (fwd) or must not get it */
static void request(struct rig *r, uint8_t seq, uint8_t netfn, uint8_t cmd,
		    bool fwd, const char *what)
{
	uint8_t q[160];
	size_t nq = req(q, seq, netfn, cmd);

	send_all(r->qemu, q, nq);
	if (fwd)
		expect_frame(r->bmc, &r->bp, q, nq, 5000, what);
	else
		expect_nothing(r->bmc, 150, what);
}

/* the BMC answers seq netfn:cmd with cc 0 and two data bytes */
static void bmc_answers(struct rig *r, uint8_t seq, uint8_t netfn, uint8_t cmd)
{
	static const uint8_t pl[] = { 0x51, 0xa0 }; /* 0xa0: escaped */
	uint8_t m[160];
	size_t nm = rsp(m, seq, netfn, cmd, pl, sizeof(pl));

	send_all(r->bmc, m, nm);
}

START_TEST(silent_from_start_then_back)
{
	static const char *const args[] = { "--delay", "none", "--silent-for",
					    "400", NULL };
	struct rig r;
	char reply[4096];
	uint64_t t0 = now_ns();

	rig_start(&r, args);
	/* swallowed: the BMC never sees it, QEMU never gets an answer */
	request(&r, 1, 0x06, 0x01, false, "swallowed while silent");
	expect_nothing(r.qemu, 50, "no answer while silent");
	wait_stat(&r, "faults silent=off ");
	ck_assert_msg(now_ns() - t0 >= 400 * MS, "back after %.0f ms",
		      (double)(now_ns() - t0) / 1e6);
	request(&r, 2, 0x06, 0x01, true, "forwarded once back");
	bmc_answers(&r, 2, 0x06, 0x01);
	expect_head(&r, 2, 0x07, 0x01, 0x00, "answered once back");
	ctl(&r, reply, sizeof(reply), "stats");
	ck_assert_msg(strstr(reply, "faults silent=off silences=1 swallowed=1 "
				    "dropped=0 busy=off busies=0 "
				    "busy_answers=0 wrong_rules=0 "
				    "wrong_answers=0"),
		      "%s", reply);
	rig_done(&r);
}
END_TEST

START_TEST(silent_from_connect)
{
	static const char *const args[] = { "--delay",	      "none",
					    "--silent-for",   "300",
					    "--from-connect", NULL };
	struct rig r;
	char reply[4096];

	rig_spawn(&r, args, true);
	r.bmc = accept_within(r.bmc_lfd, 10000);
	ck_assert_int_ge(r.bmc, 0);
	/* no QEMU yet: no silence either */
	ctl(&r, reply, sizeof(reply), "stats");
	ck_assert_msg(strstr(reply, "faults silent=off silences=0 "), "%s",
		      reply);
	usleep(400000);
	r.qemu = connect_to(r.listen_port);
	wait_connected(&r);
	ctl(&r, reply, sizeof(reply), "stats");
	ck_assert_msg(strstr(reply, "faults silent=on silences=1 "), "%s",
		      reply);
	request(&r, 1, 0x06, 0x01, false, "swallowed after connect");
	wait_stat(&r, "faults silent=off ");
	request(&r, 2, 0x06, 0x01, true, "forwarded once back");
	rig_done(&r);
}
END_TEST

START_TEST(silence_on_control_drops_answers)
{
	static const char *const args[] = { "--delay", "none", NULL };
	struct rig r;
	char reply[4096];

	rig_start(&r, args);
	/* a request in the BMC's hands when it falls silent: its answer
	 * is lost */
	request(&r, 1, 0x06, 0x01, true, "forwarded");
	ctl(&r, reply, sizeof(reply), "silence");
	ck_assert_msg(strstr(reply, "ok silent 0"), "%s", reply);
	bmc_answers(&r, 1, 0x06, 0x01);
	expect_nothing(r.qemu, 150, "answer dropped while silent");
	request(&r, 2, 0x06, 0x01, false, "swallowed");
	request(&r, 3, 0x0a, 0x10, false, "swallowed");
	ctl(&r, reply, sizeof(reply), "silence off");
	ck_assert_msg(strstr(reply, "ok silence off swallowed=2 dropped=1"),
		      "%s", reply);
	request(&r, 4, 0x06, 0x01, true, "forwarded after silence off");
	bmc_answers(&r, 4, 0x06, 0x01);
	expect_head(&r, 4, 0x07, 0x01, 0x00, "answered after silence off");
	/* a timed silence on the control port ends by itself */
	ctl(&r, reply, sizeof(reply), "silence 200");
	ck_assert_msg(strstr(reply, "ok silent 200"), "%s", reply);
	request(&r, 5, 0x06, 0x01, false, "swallowed (timed)");
	wait_stat(&r, "faults silent=off silences=2 swallowed=3 dropped=1 ");
	ctl(&r, reply, sizeof(reply), "silence off");
	ck_assert_msg(strstr(reply, "ok silence off (was not silent)"), "%s",
		      reply);
	ctl(&r, reply, sizeof(reply), "silence soon");
	ck_assert_msg(strstr(reply, "err usage: silence"), "%s", reply);
	rig_done(&r);
}
END_TEST

START_TEST(on_rule_silence_spares_its_trigger)
{
	static const char *const args[] = { "--delay", "fixed:20000", "--on",
					    "0x30:0x10=silence,1500", NULL };
	struct rig r;
	uint64_t t0;

	rig_start(&r, args);
	/* the trigger (a Cold Reset, say) is answered, then the BMC goes */
	t0 = now_ns();
	request(&r, 1, 0x30, 0x10, true, "trigger forwarded");
	request(&r, 2, 0x06, 0x01, false, "next request swallowed");
	bmc_answers(&r, 1, 0x30, 0x10);
	expect_head(&r, 1, 0x31, 0x10, 0x00, "trigger answered");
	/* the trigger again while silent: swallowed, silence not extended
	 * past its first end by more than the rule's 1500 ms (long enough
	 * that a loaded host still sends it inside: 300 ms was not) */
	request(&r, 3, 0x30, 0x10, false, "trigger swallowed while silent");
	wait_stat(&r, "faults silent=off silences=1 swallowed=2 dropped=0 ");
	ck_assert_msg(now_ns() - t0 < 3000 * MS, "silence lasted %.0f ms",
		      (double)(now_ns() - t0) / 1e6);
	request(&r, 4, 0x06, 0x01, true, "forwarded once back");
	rig_done(&r);
}
END_TEST

START_TEST(busy_answers_made_up)
{
	static const char *const args[] = {
		"--delay",   "none", "--busy-for", "300",
		"--busy-cc", "0xd2", "--on",	   "0x30:0x11=busy,0,0xc0",
		NULL
	};
	struct rig r;
	char reply[4096];

	rig_start(&r, args);
	request(&r, 1, 0x06, 0x01, false, "busy: not forwarded");
	expect_head(&r, 1, 0x07, 0x01, 0xd2, "answered 0xd2");
	request(&r, 2, 0x0a, 0x23, false, "busy: not forwarded");
	expect_head(&r, 2, 0x0b, 0x23, 0xd2, "answered 0xd2 (storage)");
	wait_stat(&r, "busy=off busies=1 busy_answers=2 ");
	request(&r, 3, 0x06, 0x01, true, "forwarded after busy");
	bmc_answers(&r, 3, 0x06, 0x01);
	expect_head(&r, 3, 0x07, 0x01, 0x00, "real answer after busy");
	/* a rule: its trigger goes through, then 0xc0 until busy off */
	request(&r, 4, 0x30, 0x11, true, "busy trigger forwarded");
	bmc_answers(&r, 4, 0x30, 0x11);
	expect_head(&r, 4, 0x31, 0x11, 0x00, "busy trigger answered");
	request(&r, 5, 0x06, 0x01, false, "busy again");
	expect_head(&r, 5, 0x07, 0x01, 0xc0, "answered 0xc0");
	ctl(&r, reply, sizeof(reply), "busy off");
	ck_assert_msg(strstr(reply, "ok busy off answered=1"), "%s", reply);
	request(&r, 6, 0x06, 0x01, true, "forwarded after busy off");
	/* the control port, with a time and a code */
	ctl(&r, reply, sizeof(reply), "busy 200 0xce");
	ck_assert_msg(strstr(reply, "ok busy 200 0xce"), "%s", reply);
	request(&r, 7, 0x06, 0x01, false, "busy 0xce");
	expect_head(&r, 7, 0x07, 0x01, 0xce, "answered 0xce");
	wait_stat(&r, "busy=off busies=3 busy_answers=4 ");
	ctl(&r, reply, sizeof(reply), "busy 10 0x100");
	ck_assert_msg(strstr(reply, "err usage: busy"), "%s", reply);
	/* silence wins over busy */
	ctl_ok(&r, "busy");
	ctl_ok(&r, "silence 150");
	request(&r, 8, 0x06, 0x01, false, "silent and busy");
	expect_nothing(r.qemu, 100, "silent and busy: no answer");
	rig_done(&r);
}
END_TEST

START_TEST(wrong_cmd_and_netfn)
{
	static const char *const args[] = { "--delay", "none", "--wrong",
					    "0x06:0x01=2", NULL };
	struct rig r;
	char reply[4096];
	uint8_t d[VM_DATA_MAX];
	size_t n;

	rig_start(&r, args);
	/* two answers with cmd + 1, data kept */
	request(&r, 1, 0x06, 0x01, true, "forwarded 1");
	bmc_answers(&r, 1, 0x06, 0x01);
	n = qemu_msg(&r, d, "wrong cmd 1");
	ck_assert_uint_eq(n, 7);
	ck_assert_uint_eq(d[0], 1);
	ck_assert_uint_eq(d[1], 0x07 << 2);
	ck_assert_uint_eq(d[2], 0x02);
	ck_assert_uint_eq(d[3], 0x00);
	ck_assert_uint_eq(d[4], 0x51);
	ck_assert_uint_eq(d[5], 0xa0);
	/* another command in between is not touched */
	request(&r, 2, 0x0a, 0x10, true, "other command");
	bmc_answers(&r, 2, 0x0a, 0x10);
	expect_head(&r, 2, 0x0b, 0x10, 0x00, "other command untouched");
	request(&r, 3, 0x06, 0x01, true, "forwarded 2");
	bmc_answers(&r, 3, 0x06, 0x01);
	expect_head(&r, 3, 0x07, 0x02, 0x00, "wrong cmd 2");
	request(&r, 4, 0x06, 0x01, true, "forwarded 3");
	bmc_answers(&r, 4, 0x06, 0x01);
	expect_head(&r, 4, 0x07, 0x01, 0x00, "third answer right");
	/* netfn + 2, then both */
	ctl(&r, reply, sizeof(reply), "wrong 0x06:0x01 1 netfn");
	ck_assert_msg(strstr(reply, "ok wrong 0x06:0x01 1 netfn"), "%s", reply);
	request(&r, 5, 0x06, 0x01, true, "forwarded 4");
	bmc_answers(&r, 5, 0x06, 0x01);
	expect_head(&r, 5, 0x09, 0x01, 0x00, "wrong netfn");
	ctl_ok(&r, "wrong 0x0a:0x10 1 both");
	request(&r, 6, 0x0a, 0x10, true, "forwarded 5");
	bmc_answers(&r, 6, 0x0a, 0x10);
	expect_head(&r, 6, 0x0d, 0x11, 0x00, "wrong netfn and cmd");
	ctl(&r, reply, sizeof(reply), "wrong");
	ck_assert_msg(strstr(reply, "wrong 0x06:0x01 netfn left=0 used=1"),
		      "%s", reply);
	ck_assert_msg(strstr(reply, "wrong 0x0a:0x10 both left=0 used=1"), "%s",
		      reply);
	ck_assert_msg(strstr(reply, "ok wrong rules=2 answers=4"), "%s", reply);
	/* an answer whose seq does not match its request is left alone */
	ctl_ok(&r, "wrong 0x06:0x01 1");
	request(&r, 7, 0x06, 0x01, true, "forwarded 6");
	bmc_answers(&r, 8, 0x06, 0x01);
	expect_head(&r, 8, 0x07, 0x01, 0x00, "other seq untouched");
	ctl(&r, reply, sizeof(reply), "wrong off");
	ck_assert_msg(strstr(reply, "ok wrong off (2 removed)"), "%s", reply);
	ctl(&r, reply, sizeof(reply), "wrong 0x06:0x01 0");
	ck_assert_msg(strstr(reply, "err usage: wrong"), "%s", reply);
	ctl(&r, reply, sizeof(reply), "wrong 0x06:0x01 1 seq");
	ck_assert_msg(strstr(reply, "err usage: wrong"), "%s", reply);
	ctl(&r, reply, sizeof(reply), "stats");
	ck_assert_msg(strstr(reply, "wrong_rules=0 wrong_answers=4"), "%s",
		      reply);
	rig_done(&r);
}
END_TEST

START_TEST(on_rule_arms_wrong)
{
	static const char *const args[] = { "--delay", "none", "--on",
					    "0x30:0x13=wrong,0x06:0x01,1",
					    NULL };
	struct rig r;

	rig_start(&r, args);
	request(&r, 1, 0x06, 0x01, true, "before the rule");
	bmc_answers(&r, 1, 0x06, 0x01);
	expect_head(&r, 1, 0x07, 0x01, 0x00, "right before the rule");
	request(&r, 2, 0x30, 0x13, true, "trigger");
	bmc_answers(&r, 2, 0x30, 0x13);
	expect_head(&r, 2, 0x31, 0x13, 0x00, "trigger answered");
	request(&r, 3, 0x06, 0x01, true, "after the rule");
	bmc_answers(&r, 3, 0x06, 0x01);
	expect_head(&r, 3, 0x07, 0x02, 0x00, "wrong after the rule");
	rig_done(&r);
}
END_TEST

START_TEST(bad_arguments)
{
	static const char *const bad[][4] = {
		{ "--bmc", "1", "--silent-for", "0" },
		{ "--bmc", "1", "--silent-for", "x" },
		{ "--bmc", "1", "--busy-for", "-5" },
		{ "--bmc", "1", "--busy-cc", "0x100" },
		{ "--bmc", "1", "--wrong", "0x06:0x01" },
		{ "--bmc", "1", "--wrong", "0x40:0x01=1" },
		{ "--bmc", "1", "--wrong", "0x06:0x01=0" },
		{ "--bmc", "1", "--wrong", "0x06:0x01=1,seq" },
		{ "--bmc", "1", "--on", "0x30:0x10=unknown,1" },
		{ "--bmc", "1", "--qemu-timeout", "x" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *args[5] = { bad[i][0], bad[i][1], bad[i][2],
					bad[i][3], NULL };

		ck_assert_msg(proxy_exit_code(args) == 2, "%s %s: not exit 2",
			      bad[i][2], bad[i][3]);
	}
}
END_TEST

START_TEST(watchdog_played_here)
{
	static const char *const args[] = { "--delay", "none", "--watchdog",
					    NULL };
	/* SMS/OS, hard reset, no pre-timeout, 1 s */
	static const uint8_t set[] = { 0x04, 0x01, 0x00, 0x00, 10, 0 };
	static const uint8_t reset_cmd[] = { VM_CMD_RESET };
	uint8_t q[160], d[VM_DATA_MAX], c[8];
	struct rig r;
	size_t n;
	uint64_t t0;

	rig_start(&r, args);
	n = vm_encode_msg(1, 0x06, 0, 0x24, set, sizeof(set), q, sizeof(q));
	send_all(r.qemu, q, n);
	expect_nothing(r.bmc, 150, "Set Watchdog Timer not forwarded");
	expect_head(&r, 1, 0x07, 0x24, 0x00, "Set answered here");
	request(&r, 2, 0x06, 0x25, false, "Get not forwarded");
	n = qemu_msg(&r, d, "Get answered here");
	ck_assert_uint_eq(n, 13); /* seq, netfn, cmd, cc, 8 bytes, csum */
	ck_assert_msg(d[4] == 0x04, "stopped SMS/OS: 0x%02x", d[4]);
	t0 = now_ns();
	request(&r, 3, 0x06, 0x22, false, "Reset not forwarded");
	expect_head(&r, 3, 0x07, 0x22, 0x00, "Reset answered here");
	request(&r, 4, 0x06, 0x25, false, "Get not forwarded");
	n = qemu_msg(&r, d, "Get: running");
	ck_assert_msg(d[4] == 0x44, "running SMS/OS: 0x%02x", d[4]);
	n = cmdf(c, reset_cmd, sizeof(reset_cmd));
	expect_frame(r.qemu, &r.qp, c, n, 3000, "the reset at the timeout");
	ck_assert_msg(now_ns() - t0 >= 900 * MS, "reset after %llu ms",
		      (unsigned long long)((now_ns() - t0) / MS));
	wait_stat(&r, "watchdog running=no sets=1 resets=1 gets=2 timeouts=1");
	request(&r, 5, 0x06, 0x01, true, "other requests still forwarded");
	rig_done(&r);
}
END_TEST

/*
 * QEMU's 4 s timeout answers seq 0xa0 and 0xa1 with a seq its KCS drops
 * (IBF then stays set for good): the proxy answers those 0xc3 itself when
 * nothing else has, and only those (others are QEMU's to answer).
 */
START_TEST(qemu_timeout_played_for_escaped_seq)
{
	static const char *const args[] = { "--delay", "none", "--qemu-timeout",
					    "300", NULL };
	struct rig r;
	char reply[4096];
	uint64_t t0;

	rig_start(&r, args);
	ctl(&r, reply, sizeof(reply), "silence");
	request(&r, 0x9f, 0x06, 0x01, false, "seq 0x9f swallowed");
	expect_nothing(r.qemu, 600, "seq 0x9f: QEMU's own timer answers");
	t0 = now_ns();
	request(&r, 0xa0, 0x06, 0x01, false, "seq 0xa0 swallowed");
	expect_head(&r, 0xa0, 0x07, 0x01, 0xc3, "seq 0xa0: 0xc3 from here");
	ck_assert_msg(now_ns() - t0 >= 290 * MS, "0xc3 after %llu ms",
		      (unsigned long long)((now_ns() - t0) / MS));
	request(&r, 0xa1, 0x0a, 0x10, false, "seq 0xa1 swallowed");
	expect_head(&r, 0xa1, 0x0b, 0x10, 0xc3, "seq 0xa1: 0xc3 from here");
	ctl(&r, reply, sizeof(reply), "silence off");
	/* answered by the BMC in time: nothing made up after it */
	request(&r, 0xaa, 0x06, 0x01, true, "seq 0xaa forwarded");
	bmc_answers(&r, 0xaa, 0x06, 0x01);
	expect_head(&r, 0xaa, 0x07, 0x01, 0x00, "seq 0xaa answered");
	expect_nothing(r.qemu, 600, "seq 0xaa: no 0xc3 after its answer");
	/* a newer request replaces the one waited on */
	request(&r, 0xa0, 0x06, 0x01, true, "seq 0xa0 forwarded");
	request(&r, 0xa2, 0x06, 0x01, true, "seq 0xa2 forwarded");
	expect_nothing(r.qemu, 600, "seq 0xa0 no longer waited on");
	wait_stat(&r, "qemu_timeouts played=2");
	rig_done(&r);
}
END_TEST

/* answer at run time (a firmware update's new Device ID, say): from a
 * rule, replacing --answer's for the same request, and off again on the
 * control port */
START_TEST(answer_changed_at_run_time)
{
	static const char *const args[] = {
		"--delay",  "none",
		"--answer", "0x06:0x01=00aa",
		"--on",	    "0x30:0x27=answer,0x06:0x01=00bbcc",
		NULL
	};
	uint8_t d[VM_DATA_MAX];
	char reply[4096];
	struct rig r;
	size_t n;

	rig_start(&r, args);
	request(&r, 1, 0x06, 0x01, false, "answered here (--answer)");
	n = qemu_msg(&r, d, "the --answer answer");
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(d[4], 0xaa);
	request(&r, 2, 0x30, 0x27, true, "the rule's trigger forwarded");
	bmc_answers(&r, 2, 0x30, 0x27);
	expect_head(&r, 2, 0x31, 0x27, 0x00, "trigger answered");
	request(&r, 3, 0x06, 0x01, false, "answered here (the rule's)");
	n = qemu_msg(&r, d, "the rule's answer");
	ck_assert_uint_eq(n, 7);
	ck_assert_msg(d[0] == 3 && d[3] == 0 && d[4] == 0xbb && d[5] == 0xcc,
		      "seq %02x cc %02x data %02x %02x", d[0], d[3], d[4],
		      d[5]);
	/* the rule's answer replaced --answer's (the same key): one off */
	ctl(&r, reply, sizeof(reply), "answer off 0x06:0x01");
	ck_assert_msg(strstr(reply, "ok answer off answers=0"), "%s", reply);
	request(&r, 4, 0x06, 0x01, true, "forwarded again");
	ctl(&r, reply, sizeof(reply), "answer 0x06:0x01=zz");
	ck_assert_msg(strstr(reply, "err bad answer"), "%s", reply);
	rig_done(&r);
}
END_TEST

int main(void)
{
	const TTest *const tests[] = {
		silent_from_start_then_back,
		silent_from_connect,
		silence_on_control_drops_answers,
		on_rule_silence_spares_its_trigger,
		busy_answers_made_up,
		wrong_cmd_and_netfn,
		on_rule_arms_wrong,
		watchdog_played_here,
		qemu_timeout_played_for_escaped_seq,
		answer_changed_at_run_time,
		bad_arguments,
		NULL,
	};

	return rig_run("bmc_proxy_faults", tests);
}
