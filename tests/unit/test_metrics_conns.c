// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for the metrics endpoint's connection caps and its accept
 * pause (fused/metrics/metrics_conns.c,
 * metrics_http.c), against a fake daemon in a real event
 * loop, with clients in forked children of other uids:
 *  - per uid: METRICS_MAX_PER_UID idle connections of one user are kept,
 *    the next is closed at once, while another user and root still get
 *    their scrape; the count goes back to 0 when they close;
 *  - in all: users fill what they may take (METRICS_MAX_CONNS -
 *    METRICS_ROOT_SLOTS), one more user is refused, root is served;
 *  - EMFILE: out of descriptors, accepting pauses (a handful of accept
 *    errors, not one per loop turn) and the waiting client is served once
 *    descriptors are free.
 * The first two need root (setuid to other users): without it they are
 * skipped (exit 77) after the EMFILE case has run.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>

#include "backend/backend.h"
#include "fd_exhaust.h"
#include "kcsmuxd.h"
#include "metrics/metrics.h"
#include "core/nodestats.h"

#define UID0 3101 /* the users the children become */

uint64_t now_ns(void)
{
	return 1000000000000ULL;
}

static const struct backend_ops fake_ops = { .name = "kcsraw" };
static struct backend fake_be = { .ops = &fake_ops };
static struct daemon D;
static struct node N;
static char dir[64];

static void setup(void)
{
	char *cause = NULL;

	signal(SIGPIPE, SIG_IGN);
	memset(&D, 0, sizeof(D));
	D.base = event_base_new();
	ck_assert_ptr_nonnull(D.base);
	LIST_INIT(&D.nodes);
	D.be = &fake_be;
	D.cfg.device = "/dev/kcsraw0";
	memset(&N, 0, sizeof(N));
	N.d = &D;
	snprintf(N.conf.name, sizeof(N.conf.name), "ipmi1");
	nodestats_init(&N.st, now_ns(), 0);
	LIST_INSERT_HEAD(&D.nodes, &N, link);
	snprintf(dir, sizeof(dir), "/tmp/kcsmux-mconns-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0777), 0);
	D.cfg.metrics_listen = "127.0.0.1:0";
	ck_assert_int_eq(metrics_init(&D, &cause), 0);
	ck_assert_uint_ne(metrics_http_port(&D), 0);
}

static void teardown(void)
{
	struct dirent *e;
	DIR *dd;

	metrics_fini(&D);
	event_base_free(D.base);
	D.base = NULL;
	dd = opendir(dir);
	while (dd && (e = readdir(dd)) != NULL)
		if (e->d_name[0] != '.')
			unlinkat(dirfd(dd), e->d_name, 0);
	if (dd)
		closedir(dd);
	ck_assert_int_eq(rmdir(dir), 0);
}

/* The loop for about MS milliseconds. */
static void loop_ms(int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	event_base_loopexit(D.base, &tv);
	event_base_dispatch(D.base);
}

/* Run the loop until the child PID exits; its exit status. */
static int serve(pid_t pid)
{
	int st, i;

	for (i = 0; i < 2000; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		loop_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ck_abort_msg("client %ld did not finish", (long)pid);
	return -1;
}

/* Run the loop until the files exist and the daemon holds CONNS
 * connections (at most 10 s); whether they did. */
static bool wait_for(char (*ready)[128], int n, unsigned int conns)
{
	int i, k, have;

	for (i = 0; i < 1000; i++) {
		for (k = have = 0; k < n; k++)
			have += access(ready[k], F_OK) == 0;
		if (have == n && metrics_http_conns(&D) == conns)
			return true;
		loop_ms(10);
	}
	return false;
}

/* --- the clients (in children: no Check asserts, exit codes) --- */

static int tcp_connect(void)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
		.sin_port = htons((unsigned short)metrics_http_port(&D))
	};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Did the server close FD (EOF or reset) within MS milliseconds? */
static bool closed_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return false;
	n = recv(fd, &c, 1, MSG_DONTWAIT);
	return n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE));
}

/* GET /metrics over FD (HTTP/1.0: the server closes after it); 0 if the
 * answer was 200 with the metrics. */
static int scrape(int fd)
{
	static const char req[] = "GET /metrics HTTP/1.0\r\n\r\n";
	char buf[65536];
	size_t len = 0;
	ssize_t n;

	if (write(fd, req, sizeof(req) - 1) != (ssize_t)sizeof(req) - 1)
		return -1;
	while (len < sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	if (strncmp(buf, "HTTP/1.0 200 OK\r\n", 17) != 0 ||
	    strstr(buf, "\nkcsmux_clients{kcsmux_node=\"ipmi1\"} 0\n") == NULL)
		return -1;
	return 0;
}

static int touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0666);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

struct peer {
	uid_t uid;	     /* 0: stay root */
	int keep;	     /* connections opened and held */
	bool refused;	     /* one more must be closed by the server */
	bool scrape;	     /* then one of the held ones scrapes */
	const char *ready;   /* created when done, NULL: none */
	const char *release; /* then held until it exists (30 s at
				   most), NULL: not held */
};

static int run_peer(const struct peer *c)
{
	int fds[METRICS_MAX_CONNS], i, fd;

	if (c->uid != 0 && (setgroups(0, NULL) < 0 || setgid(c->uid) < 0 ||
			    setuid(c->uid) < 0))
		return 20;
	for (i = 0; i < c->keep; i++)
		if ((fds[i] = tcp_connect()) < 0)
			return 21;
	if (c->refused) {
		/* accepted after the others (the backlog is in order) and
		 * closed at once */
		if ((fd = tcp_connect()) < 0)
			return 22;
		if (!closed_within(fd, 5000))
			return 23;
		close(fd);
		/* the ones before it are still open */
		for (i = 0; i < c->keep; i++)
			if (closed_within(fds[i], 0))
				return 24;
	}
	if (c->scrape && (c->keep == 0 || scrape(fds[0]) != 0))
		return 25;
	if (c->ready && touch(c->ready) < 0)
		return 26;
	for (i = 0; c->release && i < 3000 && access(c->release, F_OK) != 0;
	     i++)
		usleep(10000);
	return 0;
}

static pid_t spawn(const struct peer *c)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(run_peer(c));
	return pid;
}

/* --- root's scrape, through the daemon's own loop --- */

static void on_resp(struct evhttp_request *req, void *arg)
{
	int *code = arg;

	*code = req ? evhttp_request_get_response_code(req) : -1;
	event_base_loopbreak(D.base);
}

static int root_scrape(void)
{
	struct evhttp_connection *c;
	struct evhttp_request *req;
	int code = 0;

	c = evhttp_connection_base_new(D.base, NULL, "127.0.0.1",
				       (unsigned short)metrics_http_port(&D));
	ck_assert_ptr_nonnull(c);
	evhttp_connection_set_timeout(c, 5);
	req = evhttp_request_new(on_resp, &code);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Host",
			  "localhost");
	ck_assert_int_eq(evhttp_make_request(c, req, EVHTTP_REQ_GET,
					     "/metrics"),
			 0);
	event_base_dispatch(D.base);
	evhttp_connection_free(c);
	return code;
}

/* The connections close, and the count goes with them. */
static void settles_to_zero(void)
{
	int i;

	for (i = 0; i < 200 && metrics_http_conns(&D) != 0; i++)
		loop_ms(10);
	ck_assert_uint_eq(metrics_http_conns(&D), 0);
}

/* --- the cases --- */

START_TEST(test_per_uid)
{
	char ready[1][128], release[128];
	struct peer hog = {
		.uid = UID0,
		.keep = METRICS_MAX_PER_UID,
		.refused = true,
		.scrape = true,
		.ready = ready[0],
		.release = release,
	};
	struct peer other = { .uid = UID0 + 1, .keep = 1, .scrape = true };
	unsigned long r0 = metrics_http_refused(&D);
	pid_t pid;

	snprintf(ready[0], sizeof(ready[0]), "%s/ready", dir);
	snprintf(release, sizeof(release), "%s/release", dir);
	pid = spawn(&hog);
	/* all its connections but the refused one and the scraped one */
	ck_assert_msg(wait_for(ready, 1, METRICS_MAX_PER_UID - 1),
		      "the client did not get ready: %u connections, exit %d",
		      metrics_http_conns(&D), serve(pid));
	ck_assert_uint_eq(metrics_http_refused(&D), r0 + 1);
	/* another user, and root, while the first holds its share */
	ck_assert_int_eq(serve(spawn(&other)), 0);
	ck_assert_int_eq(root_scrape(), 200);
	ck_assert_uint_eq(metrics_http_refused(&D), r0 + 1);
	ck_assert_int_eq(touch(release), 0);
	ck_assert_int_eq(serve(pid), 0);
	settles_to_zero();
	/* and that user may connect again */
	hog.refused = false;
	hog.ready = NULL;
	hog.release = NULL;
	ck_assert_int_eq(serve(spawn(&hog)), 0);
	settles_to_zero();
}
END_TEST

START_TEST(test_in_all)
{
	enum {
		USERS = (METRICS_MAX_CONNS - METRICS_ROOT_SLOTS) /
			METRICS_MAX_PER_UID
	};
	char ready[USERS][128], release[128];
	struct peer extra = { .uid = UID0 + USERS, .keep = 0, .refused = true };
	unsigned long r0 = metrics_http_refused(&D);
	pid_t pid[USERS];
	int k;

	ck_assert_int_eq(USERS * METRICS_MAX_PER_UID,
			 METRICS_MAX_CONNS - METRICS_ROOT_SLOTS);
	snprintf(release, sizeof(release), "%s/release", dir);
	for (k = 0; k < USERS; k++) {
		struct peer hog = {
			.uid = (uid_t)(UID0 + k),
			.keep = METRICS_MAX_PER_UID,
			.ready = ready[k],
			.release = release,
		};

		snprintf(ready[k], sizeof(ready[k]), "%s/ready%d", dir, k);
		pid[k] = spawn(&hog);
	}
	ck_assert_msg(wait_for(ready, USERS,
			       METRICS_MAX_CONNS - METRICS_ROOT_SLOTS),
		      "the users did not fill their slots: %u connections",
		      metrics_http_conns(&D));
	ck_assert_uint_eq(metrics_http_refused(&D), r0);
	/* one more user: refused; root: served from the slots kept */
	ck_assert_int_eq(serve(spawn(&extra)), 0);
	ck_assert_uint_eq(metrics_http_refused(&D), r0 + 1);
	ck_assert_int_eq(root_scrape(), 200);
	ck_assert_int_eq(touch(release), 0);
	for (k = 0; k < USERS; k++)
		ck_assert_int_eq(serve(pid[k]), 0);
	settles_to_zero();
}
END_TEST

/*
 * Out of descriptors: accept() fails with EMFILE while a client waits.
 * Accepting pauses for METRICS_EMFILE_RETRY_S (a handful of failures in
 * 1.5 s, not one per loop turn at 100% CPU) and the client is served once
 * descriptors are free.
 */
START_TEST(test_emfile)
{
	struct peer c = { .uid = 0, .keep = 1, .scrape = true };
	static struct fd_exhaust fx;
	int i, p[2];
	unsigned long e0, e1;
	pid_t pid;
	char x;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* connect once the parent is out of descriptors */
		close(p[1]);
		if (read(p[0], &x, 1) != 1)
			_exit(30);
		_exit(run_peer(&c));
	}
	close(p[0]);
	ck_assert_int_eq(fd_exhaust_start(&fx), 0);
	e0 = metrics_http_accept_errors(&D);
	/* p[1] stays open: closing it would free the descriptor accept()
	 * needs */
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	for (i = 0; i < 150; i++)
		loop_ms(10);
	e1 = metrics_http_accept_errors(&D);
	ck_assert_uint_eq(metrics_http_conns(&D), 0);
	close(p[1]);
	ck_assert_int_eq(fd_exhaust_end(&fx), 0);
	ck_assert_msg(e1 > e0 && e1 - e0 <= 4, "accept errors in 1.5 s: %lu",
		      e1 - e0);
	ck_assert_int_eq(serve(pid), 0);
	settles_to_zero();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("metrics_conns");
	TCase *any = tcase_create("any user");
	bool is_root = geteuid() == 0;
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(any, setup, teardown);
	tcase_set_timeout(any, 60);
	tcase_add_test(any, test_emfile);
	suite_add_tcase(s, any);
	if (is_root) {
		TCase *root = tcase_create("root");

		tcase_add_checked_fixture(root, setup, teardown);
		tcase_set_timeout(root, 60);
		tcase_add_test(root, test_per_uid);
		tcase_add_test(root, test_in_all);
		suite_add_tcase(s, root);
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (failed)
		return EXIT_FAILURE;
	if (!is_root) {
		fprintf(stderr, "test_per_uid, test_in_all: need root (clients "
				"of other uids): skipped\n");
		return 77;
	}
	return EXIT_SUCCESS;
}
