/* SPDX-License-Identifier: MIT */
/*
 * End-to-end test of kcsmux-bmc-proxy's SMS_ATN injection and --on rules,
 * between a fake BMC and a fake QEMU as in test_bmc_proxy.c (whose rig
 * helpers are repeated here): attention frames, the answers the proxy makes
 * up for Get Message Flags / Get Message / Read Event Message Buffer and
 * their place in the delayed, ordered queue, NOATTN when the last item is
 * fetched, the BMC's own attention state, Set BMC Global Enables and Clear
 * Message Flags, rules that inject, change the model, hold and quit.
 *
 * The binary's path comes from the KCSMUX_BMC_PROXY compile definition,
 * overridable with the environment variable of the same name.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vm_codec.h"

#ifndef KCSMUX_BMC_PROXY
#define KCSMUX_BMC_PROXY "kcsmux-bmc-proxy"
#endif

#define MS 1000000ull

struct rig {
	pid_t pid;
	int out; /* proxy stdout (pipe) */
	uint16_t listen_port, ctl_port, bmc_port;
	int bmc_lfd; /* fake BMC listener */
	int bmc; /* fake BMC side of the proxy's connection */
	int qemu; /* fake QEMU connection */
	int ctl; /* control connection */
	struct vm_parser qp, bp; /* parsers for what QEMU / the BMC receive */
	char report[64];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *proxy_path(void)
{
	const char *e = getenv("KCSMUX_BMC_PROXY");

	return e && *e ? e : KCSMUX_BMC_PROXY;
}

static int loopback_listener(uint16_t *port, bool do_listen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	if (do_listen)
		ck_assert_int_eq(listen(fd, 4), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

static int connect_to(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;

	ck_assert_int_ge(fd, 0);
	ck_assert_msg(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0,
		      "connect to %u: %s", port, strerror(errno));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static bool readable(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, timeout_ms) == 1;
}

static int accept_within(int lfd, int timeout_ms)
{
	int fd, one = 1;

	if (!readable(lfd, timeout_ms))
		return -1;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static void send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		ck_assert_msg(n > 0, "send: %s", strerror(errno));
		p += n;
		len -= (size_t)n;
	}
}

/*
 * Read one frame from fd into out (raw bytes), waiting up to timeout_ms.
 * Reads byte by byte so that nothing beyond the frame is consumed.
 * Returns the raw length, 0 on timeout, -1 on EOF.
 */
static ssize_t read_frame(int fd, struct vm_parser *p, uint8_t *out,
			  size_t cap, enum vm_frame_kind *kind, int timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * MS;

	for (;;) {
		uint8_t b;
		size_t used;
		struct vm_frame f;
		int left = (int)(((int64_t)(end - now_ns())) / (int64_t)MS);
		ssize_t n;

		if (left < 0 || !readable(fd, left))
			return 0;
		n = recv(fd, &b, 1, 0);
		if (n <= 0)
			return -1;
		if (vm_parser_next(p, &b, 1, &used, &f)) {
			ck_assert_uint_le(f.raw_len, cap);
			memcpy(out, f.raw, f.raw_len);
			if (kind)
				*kind = f.kind;
			return (ssize_t)f.raw_len;
		}
	}
}

/* Expect exactly these raw bytes as the next frame within timeout_ms. */
static void expect_frame(int fd, struct vm_parser *p, const uint8_t *want,
			 size_t len, int timeout_ms, const char *what)
{
	uint8_t buf[VM_RAW_MAX];
	ssize_t n = read_frame(fd, p, buf, sizeof(buf), NULL, timeout_ms);

	ck_assert_msg(n == (ssize_t)len, "%s: got %zd bytes, want %zu", what,
		      n, len);
	ck_assert_msg(memcmp(buf, want, len) == 0, "%s: bytes differ", what);
}

static void expect_nothing(int fd, int ms, const char *what)
{
	ck_assert_msg(!readable(fd, ms), "%s: unexpected data", what);
}

/* Send a control line and return the reply (all lines up to ok/err). */
static void ctl(struct rig *r, char *reply, size_t cap, const char *fmt, ...)
{
	char line[256];
	size_t len = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	send_all(r->ctl, line, strlen(line));
	reply[0] = '\0';
	for (;;) {
		char *last;
		ssize_t n;

		ck_assert_msg(readable(r->ctl, 10000), "no reply to '%s'", line);
		n = recv(r->ctl, reply + len, cap - 1 - len, 0);
		ck_assert_int_gt(n, 0);
		len += (size_t)n;
		reply[len] = '\0';
		if (len < 1 || reply[len - 1] != '\n')
			continue;
		/* the final line starts with ok or err */
		reply[len - 1] = '\0';
		last = strrchr(reply, '\n');
		last = last ? last + 1 : reply;
		reply[len - 1] = '\n';
		if (strncmp(last, "ok", 2) == 0 || strncmp(last, "err", 3) == 0)
			return;
	}
}

static void ctl_ok(struct rig *r, const char *cmd)
{
	char reply[4096];

	ctl(r, reply, sizeof(reply), "%s", cmd);
	ck_assert_msg(strstr(reply, "ok") != NULL, "'%s' -> %s", cmd, reply);
}

/* Poll the proxy's stats until they contain text. */
static void wait_stat(struct rig *r, const char *text)
{
	char reply[4096];

	for (int i = 0; i < 500; i++) {
		ctl(r, reply, sizeof(reply), "stats");
		if (strstr(reply, text))
			return;
		usleep(10000);
	}
	ck_abort_msg("stats never showed '%s': %s", text, reply);
}

/* Poll the proxy's stats until it reports both connections up. */
static void wait_connected(struct rig *r)
{
	char reply[4096];

	for (int i = 0; i < 500; i++) {
		ctl(r, reply, sizeof(reply), "stats");
		if (strstr(reply, "connections qemu=up bmc=up"))
			return;
		usleep(10000);
	}
	ck_abort_msg("proxy never reported both connections up: %s", reply);
}

static void rig_spawn(struct rig *r, const char *const *extra, bool bmc_up)
{
	int pipefd[2];
	char line[256];
	char bmc_arg[16];
	const char *argv[40];
	int argc = 0;
	int fd;

	memset(r, 0, sizeof(*r));
	r->bmc = r->qemu = r->ctl = -1;
	vm_parser_init(&r->qp);
	vm_parser_init(&r->bp);
	r->bmc_lfd = loopback_listener(&r->bmc_port, bmc_up);
	snprintf(r->report, sizeof(r->report), "/tmp/kcsmux-proxy-rep-XXXXXX");
	fd = mkstemp(r->report);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(bmc_arg, sizeof(bmc_arg), "%u", r->bmc_port);

	argv[argc++] = proxy_path();
	argv[argc++] = "--listen";
	argv[argc++] = "0";
	argv[argc++] = "--control";
	argv[argc++] = "0";
	argv[argc++] = "--bmc";
	argv[argc++] = bmc_arg;
	argv[argc++] = "--retry-ms";
	argv[argc++] = "20";
	argv[argc++] = "--report";
	argv[argc++] = r->report;
	for (; extra && *extra && argc < 38; extra++)
		argv[argc++] = *extra;
	argv[argc] = NULL;

	ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
	r->pid = fork();
	ck_assert_int_ge(r->pid, 0);
	if (r->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(pipefd[1], STDOUT_FILENO);
		execv(argv[0], (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	r->out = pipefd[0];
	for (;;) {
		unsigned port;
		size_t len = 0;

		/* one line, byte by byte: nothing is buffered past it */
		for (;;) {
			ck_assert_msg(readable(r->out, 10000) &&
				      read(r->out, line + len, 1) == 1,
				      "proxy printed no 'listening on' line");
			if (line[len] == '\n' || len == sizeof(line) - 2)
				break;
			len++;
		}
		line[len + 1] = '\0';
		if (sscanf(line, "control on %u", &port) == 1)
			r->ctl_port = (uint16_t)port;
		if (sscanf(line, "listening on %u", &port) == 1) {
			r->listen_port = (uint16_t)port;
			break;
		}
	}
	ck_assert_uint_ne(r->listen_port, 0);
	ck_assert_uint_ne(r->ctl_port, 0);
	r->ctl = connect_to(r->ctl_port);
}

static void rig_start(struct rig *r, const char *const *extra)
{
	rig_spawn(r, extra, true);
	r->bmc = accept_within(r->bmc_lfd, 10000);
	ck_assert_msg(r->bmc >= 0, "proxy did not connect to the BMC");
	r->qemu = connect_to(r->listen_port);
	wait_connected(r);
}

/* Stop with SIGTERM; returns the exit status. */
static int rig_stop(struct rig *r)
{
	int status = -1;

	if (r->pid > 0) {
		kill(r->pid, SIGTERM);
		ck_assert_int_eq(waitpid(r->pid, &status, 0), r->pid);
		r->pid = 0;
	}
	if (r->out > 0)
		close(r->out);
	if (r->qemu >= 0)
		close(r->qemu);
	if (r->bmc >= 0)
		close(r->bmc);
	if (r->ctl >= 0)
		close(r->ctl);
	close(r->bmc_lfd);
	return status;
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A response frame (seq, netfn|1, cmd, cc, payload, csum) in VM encoding. */
static size_t rsp(uint8_t *out, uint8_t seq, uint8_t netfn, uint8_t cmd,
		  const uint8_t *payload, size_t plen)
{
	uint8_t d[64];
	size_t n;

	d[0] = 0x00; /* completion code */
	if (plen)
		memcpy(d + 1, payload, plen);
	n = vm_encode_msg(seq, netfn | 1, 0, cmd, d, plen + 1, out, 160);
	ck_assert_uint_gt(n, 0);
	return n;
}

static size_t req(uint8_t *out, uint8_t seq, uint8_t netfn, uint8_t cmd)
{
	size_t n = vm_encode_msg(seq, netfn, 0, cmd, NULL, 0, out, 160);

	ck_assert_uint_gt(n, 0);
	return n;
}

/* ------------------------------------------------------------------ */
/* injection tests */

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
	ssize_t n = read_frame(r->qemu, &r->qp, raw, sizeof(raw), k,
			       timeout_ms);

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
			      "pending_msgs=0"), "%s", reply);
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
			      "noattn_suppressed=0"), "%s", reply);
	ck_assert_msg(strstr(reply, "delay_us n=3 "), "%s", reply);
	ck_assert_msg(strstr(reply, "host_to_bmc msgs=4 "), "%s", reply);
	rig_stop(&r);
	unlink(r.report);
}
END_TEST

START_TEST(on_rules_inject_cmd_and_change_model)
{
	static const char *const args[] = {
		"--delay", "none",
		"--on", "0x30:0x03=inject-cmd,0,0x40,0x32,0x05,0xde,0xad",
		"--on", "0x30:0x02=model fixed:100000",
		"--on", "0x30:0x03=inject-event " EVENT_HEX,
		NULL };
	/* Get Message data: channel 0, 0x32 << 2, chk1, 0x40, seq 0, cmd 5,
	 * DE AD, chk2 */
	static const uint8_t body[] = { 0x00, 0xc8, 0x18, 0x40, 0x00, 0x05,
					0xde, 0xad, 0x30 };
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
		static const uint8_t ev[16] = { 0x00, 0x11, 0x22, 0x33, 0x44,
						0x55, 0x66, 0x77, 0x88, 0x99,
						0xaa, 0xbb, 0xcc, 0xdd, 0xee,
						0xff };

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
			      "0xde 0xad fired=1\n"), "%s", reply);
	ck_assert_msg(strstr(reply, "on 0x30:0x02=model fixed:100000 "
			      "fired=1\n"), "%s", reply);
	ck_assert_msg(strstr(reply, "ok rules=3"), "%s", reply);
	ctl(&r, reply, sizeof(reply), "stats");
	ck_assert_msg(strstr(reply, "on rules=3 fired=3"), "%s", reply);
	ck_assert_msg(strstr(reply, "inject events=1 msgs=1 "), "%s", reply);
	ck_assert_msg(strstr(reply, "attn=2 noattn=1 "), "%s", reply);
	rig_stop(&r);
	unlink(r.report);
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
	expect_frame(r.qemu, &r.qp, noattn, sizeof(noattn), 5000,
		     "BMC NOATTN");
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
	rig_stop(&r);
	unlink(r.report);
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
	rig_stop(&r);
	unlink(r.report);
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
	rig_stop(&r);
	unlink(r.report);
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
	rig_stop(&r);
	unlink(r.report);
}
END_TEST

START_TEST(bad_on_arguments)
{
	static const char *const cases[] = {
		"0x30:0x02", "0x40:0x02=hold", "0x30:0x100=hold",
		"0x30:0x02=bogus", "0x30:0x02=on,off", "0x30:0x02=",
		"=hold",
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = { proxy_path(), "--bmc", "1", "--on",
				       cases[i], NULL };
		int status;
		pid_t pid = fork();

		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			int devnull = open("/dev/null", O_WRONLY);

			dup2(devnull, STDERR_FILENO);
			dup2(devnull, STDOUT_FILENO);
			execv(argv[0], (char *const *)argv);
			_exit(127);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert(WIFEXITED(status));
		ck_assert_msg(WEXITSTATUS(status) == 2, "'%s': exit %d",
			      cases[i], WEXITSTATUS(status));
	}
}
END_TEST

START_TEST(on_rule_quit_and_hold)
{
	static const char *const args[] = { "--delay", "none",
					    "--on", "0x30:0x01=hold,300",
					    "--on", "0x30:0x0f=quit", NULL };
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
	rig_stop(&r);
	unlink(r.report);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("bmc_proxy_inject");
	TCase *t = tcase_create("e2e");

	tcase_set_timeout(t, 60);
	tcase_add_test(t, event_answered_in_order_with_delay);
	tcase_add_test(t, on_rules_inject_cmd_and_change_model);
	tcase_add_test(t, bmc_attention_state_respected);
	tcase_add_test(t, global_enables_and_clear_flags);
	tcase_add_test(t, qemu_reconnect_reraises);
	tcase_add_test(t, control_errors_and_limits);
	tcase_add_test(t, bad_on_arguments);
	tcase_add_test(t, on_rule_quit_and_hold);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	signal(SIGPIPE, SIG_IGN);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
