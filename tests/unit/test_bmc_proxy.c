/* SPDX-License-Identifier: MIT */
/*
 * End-to-end test of kcsmux-bmc-proxy: each test starts the binary on free
 * loopback ports between a fake BMC (a listening socket here, standing in
 * for ipmi_sim) and a fake QEMU (a client socket here), then checks what
 * crosses: frames intact and in order, BMC messages delayed by at least the
 * fixed delay, control frames undelayed but never overtaking, hold/release,
 * drop, triggers, reconnects, and the exit report.
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

static size_t cmdf(uint8_t *out, const uint8_t *d, size_t len)
{
	size_t n = vm_encode(VM_FRAME_CMD, d, len, out, 32);

	ck_assert_uint_gt(n, 0);
	return n;
}

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
	rig_stop(&r);
	unlink(r.report);
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
	rig_stop(&r);
	unlink(r.report);
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
	rig_stop(&r);
	unlink(r.report);
}
END_TEST

START_TEST(hold_on_request_trigger)
{
	static const char *const args[] = { "--delay", "none", "--hold-on",
					    "0x30:0x01", "--hold-for", "400",
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
	rig_stop(&r);
	unlink(r.report);
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
	rig_stop(&r);
	unlink(r.report);
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
	rig_stop(&r);
	unlink(r.report);
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
				&p99), 2);
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
	rig_stop(&r);
	unlink(r.report);
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
	rig_stop(&r);
	unlink(r.report);
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
	rig_stop(&r);
	unlink(r.report);
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
	rig_stop(&r);
	unlink(r.report);
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
		const char *argv[8] = { proxy_path(), "--bmc", "1" };
		int k = 3, status;
		pid_t pid;

		for (int j = 0; cases[i][j]; j++)
			argv[k++] = cases[i][j];
		argv[k] = NULL;
		pid = fork();
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
		ck_assert_msg(WEXITSTATUS(status) == 2, "case %zu exit %d", i,
			      WEXITSTATUS(status));
	}
	/* missing --bmc */
	{
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			int devnull = open("/dev/null", O_WRONLY);

			dup2(devnull, STDERR_FILENO);
			execl(proxy_path(), proxy_path(), "--listen", "0",
			      (char *)NULL);
			_exit(127);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_int_eq(WEXITSTATUS(status), 2);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("bmc_proxy");
	TCase *t = tcase_create("e2e");

	tcase_set_timeout(t, 60);
	tcase_add_test(t, passthrough_both_ways);
	tcase_add_test(t, fixed_delay_in_order);
	tcase_add_test(t, byte_at_a_time);
	tcase_add_test(t, control_frames_undelayed_but_ordered);
	tcase_add_test(t, hold_and_release);
	tcase_add_test(t, drop_held);
	tcase_add_test(t, hold_on_request_trigger);
	tcase_add_test(t, hold_after_count);
	tcase_add_test(t, live_delay_change_and_errors);
	tcase_add_test(t, seed_model_report_and_quit);
	tcase_add_test(t, bmc_restart_reconnects_and_replays);
	tcase_add_test(t, bmc_starts_late);
	tcase_add_test(t, qemu_reconnect);
	tcase_add_test(t, sigusr1_toggles_hold);
	tcase_add_test(t, bad_arguments);
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
