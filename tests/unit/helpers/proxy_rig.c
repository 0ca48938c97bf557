/* SPDX-License-Identifier: MIT */
/*
 * proxy_rig.c - the kcsmux-bmc-proxy test rig (proxy_rig.h): the proxy
 * binary run between a fake BMC and a fake QEMU on loopback sockets.
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

#include "proxy_rig.h"

#ifndef KCSMUX_BMC_PROXY
#define KCSMUX_BMC_PROXY "kcsmux-bmc-proxy"
#endif

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *proxy_path(void)
{
	const char *e = getenv("KCSMUX_BMC_PROXY");

	return e && *e ? e : KCSMUX_BMC_PROXY;
}

int proxy_exit_code(const char *const *args)
{
	const char *argv[16] = { proxy_path() };
	int argc = 1, status;
	pid_t pid;

	for (; *args; args++) {
		ck_assert_int_lt(argc, 15);
		argv[argc++] = *args;
	}
	argv[argc] = NULL;
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
	return WEXITSTATUS(status);
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

int connect_to(uint16_t port)
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

int accept_within(int lfd, int timeout_ms)
{
	int fd, one = 1;

	if (!readable(lfd, timeout_ms))
		return -1;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

void send_all(int fd, const void *buf, size_t len)
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
ssize_t read_frame(int fd, struct vm_parser *p, uint8_t *out, size_t cap,
		   enum vm_frame_kind *kind, int timeout_ms)
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
void expect_frame(int fd, struct vm_parser *p, const uint8_t *want, size_t len,
		  int timeout_ms, const char *what)
{
	uint8_t buf[VM_RAW_MAX];
	ssize_t n = read_frame(fd, p, buf, sizeof(buf), NULL, timeout_ms);

	ck_assert_msg(n == (ssize_t)len, "%s: got %zd bytes, want %zu", what, n,
		      len);
	ck_assert_msg(memcmp(buf, want, len) == 0, "%s: bytes differ", what);
}

void expect_nothing(int fd, int ms, const char *what)
{
	ck_assert_msg(!readable(fd, ms), "%s: unexpected data", what);
}

/* Send a control line and return the reply (all lines up to ok/err). */
void ctl(struct rig *r, char *reply, size_t cap, const char *fmt, ...)
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

		ck_assert_msg(readable(r->ctl, 10000), "no reply to '%s'",
			      line);
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

void ctl_ok(struct rig *r, const char *cmd)
{
	char reply[4096];

	ctl(r, reply, sizeof(reply), "%s", cmd);
	ck_assert_msg(strstr(reply, "ok") != NULL, "'%s' -> %s", cmd, reply);
}

/* Poll the proxy's stats until they contain text. */
void wait_stat(struct rig *r, const char *text)
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
void wait_connected(struct rig *r)
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

void rig_spawn(struct rig *r, const char *const *extra, bool bmc_up)
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

void rig_start(struct rig *r, const char *const *extra)
{
	rig_spawn(r, extra, true);
	r->bmc = accept_within(r->bmc_lfd, 10000);
	ck_assert_msg(r->bmc >= 0, "proxy did not connect to the BMC");
	r->qemu = connect_to(r->listen_port);
	wait_connected(r);
}

/* Stop with SIGTERM; returns the exit status. */
int rig_stop(struct rig *r)
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

void rig_done(struct rig *r)
{
	rig_stop(r);
	unlink(r->report);
}

char *slurp(const char *path)
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
size_t rsp(uint8_t *out, uint8_t seq, uint8_t netfn, uint8_t cmd,
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

size_t req(uint8_t *out, uint8_t seq, uint8_t netfn, uint8_t cmd)
{
	size_t n = vm_encode_msg(seq, netfn, 0, cmd, NULL, 0, out, 160);

	ck_assert_uint_gt(n, 0);
	return n;
}

size_t cmdf(uint8_t *out, const uint8_t *d, size_t len)
{
	size_t n = vm_encode(VM_FRAME_CMD, d, len, out, 32);

	ck_assert_uint_gt(n, 0);
	return n;
}

int rig_run(const char *name, const TTest *const *tests)
{
	Suite *s = suite_create(name);
	TCase *t = tcase_create("e2e");
	SRunner *r;
	int failed;

	tcase_set_timeout(t, 60);
	for (; *tests; tests++)
		tcase_add_test(t, *tests);
	suite_add_tcase(s, t);
	r = srunner_create(s);
	signal(SIGPIPE, SIG_IGN);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
