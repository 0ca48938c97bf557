// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/control/control*.c with the real kcsmuxctl: a daemon made of
 * the configuration, two hand-built nodes (no CUSE, no backend) and the
 * control socket in a libevent loop; each case runs kcsmuxctl (or a raw
 * client) in a child process, as root or as nobody, while the loop serves
 * it. Stubs stand in for xact.c, reload.c and kcsmuxd.c.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <kcsmux/control.h>

#include "control/control.h"
#include "fd_exhaust.h"
#include "json_valid.h"
#include "unit_skip.h"
#include "kcsmuxd.h"
#include "adapt_record.h"

/* ---- stubs for what control/ calls outside itself ---- */

static int kicks, reloads, reload_rv;

/* control/'s calls into the core and reload.c, counted (linked with
 * --wrap: the libraries' own stay for everyone else). */
void __wrap_xact_kick(struct daemon *d);
int __wrap_daemon_reload(struct daemon *d, char **cause);

void __wrap_xact_kick(struct daemon *d)
{
	(void)d;
	kicks++;
}

int __wrap_daemon_reload(struct daemon *d, char **cause)
{
	(void)d;
	reloads++;
	if (reload_rv < 0 && cause != NULL)
		*cause = strdup("t.conf:3: unknown key 'bogus'\nt.conf:4: "
				"another");
	return reload_rv;
}

static int plans, plan_rv;

int daemon_reload_plan(struct daemon *d, struct ctl_buf *out, char **cause)
{
	(void)d;
	plans++;
	if (plan_rv < 0) {
		*cause = strdup("t.conf:5: unknown key 'bogus'");
		return -1;
	}
	if (plan_rv == 0) {
		ctl_kv_add(out, "remove", "ipmi2 (1 client: pid 222 uid 0)");
		ctl_kv_add(out, "add", "ipmi3 (policy normal, access all)");
		ctl_kv_add(out, "change", "ipmi1: poll_us 100 -> 200");
		ctl_kv_add(out, "note",
			   "[global] user changed: it needs a "
			   "restart");
	}
	return 0;
}

/* ---- the fake daemon ---- */

#define ADMIN_GID 4242
#define NOBODY	  65534

static char dir[64], sock[128], conf_text[512];
static struct daemon d;
static struct node nodes[2];
static struct client clients[2];

static void setup(void)
{
	struct nodestats_txn t = { .latency_ns = 800000,
				   .service_ns = 700000,
				   .cpu_ns = 600000,
				   .spin_ns = 500000 };
	char *cause = NULL;
	size_t i;
	int rv;

	strcpy(dir, "/tmp/kcsmux-ctl-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	chmod(dir, 0755); /* nobody must reach the socket */
	snprintf(sock, sizeof(sock), "%s/run/kcsmux/control.sock", dir);
	/* Not root (no nobody cases then): our own group is the admins'. */
	snprintf(conf_text, sizeof(conf_text),
		 "[global]\ncontrol_socket = %s\nadmin_group = %u\n"
		 "[node ipmi1]\n[node ipmi2]\npolicy = monitor\n",
		 sock, geteuid() == 0 ? ADMIN_GID : (unsigned)getegid());
	memset(&d, 0, sizeof(d));
	rv = config_load_string(&d.cfg, conf_text, "t.conf", &cause);
	ck_assert_msg(rv == 0, "config: %s", cause ? cause : "");
	d.base = event_base_new();
	d.cfg_path = "t.conf";
	LIST_INIT(&d.nodes);
	sched_init(&d.sched, 0);
	memset(nodes, 0, sizeof(nodes));
	memset(clients, 0, sizeof(clients));
	/* Inserted at the head like node.c does: LIST must sort them. */
	for (i = 0; i < 2; i++) {
		struct node *n = &nodes[i];

		n->d = &d;
		n->conf = d.cfg.nodes[i];
		n->ready = true;
		LIST_INIT(&n->clients);
		nodestats_init(&n->st, now_ns(), 0);
		sched_flow_attach(&d.sched, &n->flow, &n->conf.pol, now_ns());
		LIST_INSERT_HEAD(&d.nodes, n, link);
	}
	clients[0].id = 1;
	clients[0].pid = 111;
	clients[0].uid = 1000;
	clients[0].node = &nodes[0];
	clients[0].outstanding = 2;
	strcpy(clients[0].comm, "ipmitool");
	clients[0].nreq = 12;
	clients[0].nerr = 1;
	clients[0].ndenied = 3;
	clients[0].guess_made[0] = 5;
	clients[0].guess_held[0] = 4;
	clients[0].guess_missed[0] = 1;
	clients[1].id = 2;
	clients[1].pid = 222;
	clients[1].uid = 0;
	clients[1].node = &nodes[0];
	LIST_INSERT_HEAD(&nodes[0].clients, &clients[1], link);
	LIST_INSERT_HEAD(&nodes[0].clients, &clients[0], link);
	nodes[0].nclients = 2;
	for (i = 0; i < 4; i++) {
		/* the last one refused by the BMC (parameter out of range) */
		t.cc = i == 3 ? 0xc9 : 0x00;
		t.error = i == 3;
		nodestats_request(&nodes[0].st);
		nodestats_dispatch(&nodes[0].st, 1000);
		nodestats_complete(&nodes[0].st, now_ns(), &t);
		/* and 40 us of the daemon's own for it */
		nodestats_daemon_cpu(&nodes[0].st, now_ns(), 40000);
	}
	kicks = reloads = reload_rv = plans = plan_rv = 0;
	log_init(true, LOG_DEBUG);
	rv = control_init(&d, &cause);
	ck_assert_msg(rv == 0, "control_init: %s", cause ? cause : "");
}

static void teardown(void)
{
	char cmd[128];

	control_fini(&d);
	event_base_free(d.base);
	config_free(&d.cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* ---- running clients ---- */

enum who { ROOT, NOBODY_PLAIN, NOBODY_ADMIN };

static bool drop(enum who who)
{
	gid_t g = ADMIN_GID;

	if (who == ROOT)
		return true;
	if (setgroups(who == NOBODY_ADMIN ? 1 : 0, &g) < 0 ||
	    setgid(NOBODY) < 0 || setuid(NOBODY) < 0)
		return false;
	return true;
}

/* Serve the loop until child PID exits; its exit status. */
static int serve(pid_t pid)
{
	struct timeval tv = { 0, 10000 };
	int st, i;

	for (i = 0; i < 3000; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		event_base_loopexit(d.base, &tv);
		event_base_dispatch(d.base);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ck_abort_msg("client did not finish");
	return -1;
}

static char out[1 << 16], err[1 << 12];

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f != NULL) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

/* Run kcsmuxctl -s SOCK ARGS... as WHO; its exit status, output in
 * out[] and err[]. */
static int ctl(enum who who, ...)
{
	char *argv[24], op[160], ep[160];
	va_list ap;
	pid_t pid;
	int argc = 0, rv;

	argv[argc++] = "kcsmuxctl";
	argv[argc++] = "-s";
	argv[argc++] = sock;
	va_start(ap, who);
	while (argc < 23 && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	snprintf(op, sizeof(op), "%s/out", dir);
	snprintf(ep, sizeof(ep), "%s/err", dir);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int o = open(op, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(ep, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 ||
		    !drop(who))
			_exit(99);
		execv(KCSMUXCTL_BIN, argv);
		_exit(98);
	}
	rv = serve(pid);
	slurp(op, out, sizeof(out));
	slurp(ep, err, sizeof(err));
	if (getenv("TEST_CONTROL_VERBOSE") != NULL) /* to see the output */
		fprintf(stderr, "$ kcsmuxctl %s ... -> %d\n%s%s",
			argc > 3 ? argv[3] : "", rv, out, err);
	ck_assert_msg(rv != 99 && rv != 98, "could not run kcsmuxctl (%d)", rv);
	return rv;
}

#define assert_has(buf, s) \
	ck_assert_msg(strstr(buf, s) != NULL, "no '%s' in:\n%s", s, buf)

/*
 * The seconds after KEY in out[]: (now - SINCE) / 1 s, for a now between
 * T0 and T1 (the call's start and end: a loaded host may take seconds).
 */
static void assert_secs(const char *key, uint64_t since, uint64_t t0,
			uint64_t t1)
{
	const char *p = strstr(out, key);
	unsigned long v;

	ck_assert_msg(p != NULL, "no '%s' in:\n%s", key, out);
	v = strtoul(p + strlen(key), NULL, 10);
	ck_assert_msg(v >= (t0 - since) / 1000000000ULL &&
			      v <= (t1 - since) / 1000000000ULL,
		      "%s%lu: not within the call's %.2f..%.2f s", key, v,
		      (double)(t0 - since) / 1e9, (double)(t1 - since) / 1e9);
}

/* ---- cases ---- */

START_TEST(test_socket_setup)
{
	struct stat sb;
	char path[160];

	ck_assert_int_eq(stat(sock, &sb), 0);
	ck_assert(S_ISSOCK(sb.st_mode));
	ck_assert_uint_eq(sb.st_mode & 07777, 0666);
	snprintf(path, sizeof(path), "%s/run/kcsmux", dir);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 07777, 0755);
}
END_TEST

START_TEST(test_socket_in_use_and_stale)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char *cause = NULL;
	struct stat sb;
	pid_t pid;
	int fd;

	/* Another daemon on the same path is refused while this one
	 * listens (a child: the module has one socket per process). */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(control_init(&d, &cause) == -1 &&
				      strstr(cause,
					     "another kcsmuxd is listening on it") !=
					      NULL ?
			      0 :
			      1);
	ck_assert_int_eq(serve(pid), 0);
	ck_assert_int_eq(ctl(ROOT, "list", NULL), 0);

	/* fini removes the socket. */
	control_fini(&d);
	ck_assert_int_eq(stat(sock, &sb), -1);
	/* A stale socket (nobody listening) is replaced. */
	strcpy(sun.sun_path, sock);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(fd);
	ck_assert_int_eq(control_init(&d, &cause), 0);
	ck_assert_int_eq(ctl(ROOT, "list", NULL), 0);
	control_fini(&d);
	/* Not a socket: left alone, an error. */
	fd = open(sock, O_WRONLY | O_CREAT, 0600);
	close(fd);
	ck_assert_int_eq(control_init(&d, &cause), -1);
	assert_has(cause, "exists and is not a socket");
	free(cause);
	cause = NULL;
	ck_assert_int_eq(stat(sock, &sb), 0);
	ck_assert(S_ISREG(sb.st_mode));
	unlink(sock);
	ck_assert_int_eq(control_init(&d, &cause), 0);
}
END_TEST

START_TEST(test_list)
{
	char *a, *b;

	ck_assert_int_eq(ctl(ROOT, "list", NULL), 0);
	assert_has(out, "NODE");
	a = strstr(out, "\nipmi1 ");
	b = strstr(out, "\nipmi2 ");
	ck_assert_msg(a != NULL && b != NULL && a < b, "order:\n%s", out);
	assert_has(out, "monitor");
	ck_assert_str_eq(err, "");
	/* piped: the header and one line per node, nothing else (the bash
	 * completion takes the first word of each for a node name) */
	ck_assert_msg(strchr(b + 1, '\n') != NULL &&
			      strchr(b + 1, '\n')[1] == '\0',
		      "after the nodes:\n%s", out);
	/* stats: the counters table */
	ck_assert_int_eq(ctl(ROOT, "stats", NULL), 0);
	assert_has(out, "SPIN_US/R");
	assert_has(out, "500.0"); /* spin per request, us */
	assert_has(out, " DMN_US/R\n");
	assert_has(out, "     40.0\n"); /* the daemon's per request, us */
	ck_assert_int_eq(ctl(ROOT, "list", NULL), 0);
	assert_has(out, " DMN_US/R\n");
	assert_has(out, "     40.0\n");
}
END_TEST

/* list and stats: the budget in config units (% of one CPU), what
 * enforcing it did, and a NODE column as wide as the longest name. */
START_TEST(test_list_budget_widths)
{
	static const char longname[] = "a-rather-long-node-name-29chr";
	char hdr[128], *line;

	/* nodes[1] is ipmi2, the monitor preset: cpu_budget = 1% */
	strcpy(nodes[1].conf.name, longname);
	nodes[1].cnt.throttled = 5;
	nodes[1].cnt.held = 2;
	ck_assert_int_eq(ctl(ROOT, "list", NULL), 0);
	snprintf(hdr, sizeof(hdr), "%-*s PRESET", (int)strlen(longname),
		 "NODE");
	ck_assert_msg(strncmp(out, hdr, strlen(hdr)) == 0, "header:\n%s", out);
	assert_has(out, "\nipmi1 ");
	line = strstr(out, longname);
	ck_assert_ptr_nonnull(line);
	ck_assert_msg(strncmp(line + strlen(longname), " monitor", 8) == 0,
		      "row:\n%s", out);
	assert_has(out, "     1%");		      /* BUDGET */
	assert_has(out, "      5      2      0.0\n"); /* CHEAP HELD DMN_US/R */
	/* ipmi1 (normal preset) has no budget: "-" */
	ck_assert_int_eq(ctl(ROOT, "stats", NULL), 0);
	snprintf(hdr, sizeof(hdr), "%-*s     REQS", (int)strlen(longname),
		 "NODE");
	ck_assert_msg(strncmp(out, hdr, strlen(hdr)) == 0, "header:\n%s", out);
	assert_has(out, "      5      2      0.0\n"); /* and DMN_US/R */
	ck_assert_int_eq(ctl(ROOT, "show", longname, NULL), 0);
	assert_has(out, "\ncpu_budget_pct=1.0000\n");
	assert_has(out, "\nbudget_used_pct=0.0\n");
	assert_has(out, "\ncheapened=5\nheld=2\n");
	ck_assert_int_eq(ctl(ROOT, "show", "ipmi1", NULL), 0);
	assert_has(out, "\ncpu_budget_pct=none\n");
	ck_assert_int_eq(ctl(ROOT, "stats", "-j", NULL), 0);
	ck_assert_msg(json_valid(out, strlen(out)), "bad JSON:\n%s", out);
	assert_has(out, "\"cpu_budget_pct\": 1.0000, \"budget_used_pct\": 0.0, "
			"\"cheapened\": 5, \"held\": 2,\n"
			"  \"completion_codes\": {}}");
	assert_has(out, "\"cpu_budget_pct\": null");
}
END_TEST

START_TEST(test_show)
{
	ck_assert_int_eq(ctl(ROOT, "show", "ipmi1", NULL), 0);
	assert_has(out, "node=ipmi1\npreset=normal\ncustom=no\nready=yes\n");
	assert_has(out, "\npolicy.max_busy_us=0\n");
	assert_has(out, "\npolicy.poll_us=100\n");
	assert_has(out, "\npolicy.queue=64\n");
	assert_has(out, "\nclients=2\n");
	/* each client with its process name and its own counters */
	assert_has(out, "\nclient=id=1 pid=111 uid=1000 outstanding=2 "
			"queued=0 events=no requests=12 errors=1 denied=3 "
			"guess_send=5/4/1 guess_recv=0/0/0 comm=ipmitool\n");
	assert_has(out, "\nclient=id=2 pid=222 uid=0 ");
	assert_has(out, "\nrequests=4\n");
	assert_has(out, "\ncompleted=4\n");
	assert_has(out, "\nerrors=1\n");
	/* completion codes by value, the ones seen */
	assert_has(out, "\ncc.0x00=3\ncc.0xc9=1\n");
	ck_assert_ptr_null(strstr(out, "cc.0xc0="));
	assert_has(out, "\nspin_ns=2000000\n");
	assert_has(out, "\nspin_ns_per_req=500000\n");
	assert_has(out, "\ncpu_ns_per_req=600000\n");
	assert_has(out,
		   "\ndaemon_cpu_ns=160000\ndaemon_cpu_ns_per_req=40000\n");
	assert_has(out, "\nlatency_max_us=800\n");
	assert_has(out, "\ncoalesce=no\ncoalesced=0\ncoalesce_window_ms=0\n"
			"coalesced_recent=0\n");
	assert_has(out, "\ncpu_ppm=");
	assert_has(out, "\npoller_cpu_ppm=");
}
END_TEST

/* A non-admin may look. */
START_TEST(test_show_nobody)
{
	ck_assert_int_eq(ctl(NOBODY_PLAIN, "show", "ipmi2", NULL), 0);
	assert_has(out, "node=ipmi2\npreset=monitor\n");
	/* ... but not at other users' clients: their pids and uids are
	 * private to them and the admins */
	ck_assert_int_eq(ctl(NOBODY_PLAIN, "show", "ipmi1", NULL), 0);
	assert_has(out, "\nclients=0\n");
	ck_assert_msg(strstr(out, "pid=111") == NULL &&
			      strstr(out, "pid=222") == NULL,
		      "%s", out);
	ck_assert_int_eq(ctl(NOBODY_PLAIN, "stats", "-j", NULL), 0);
	ck_assert_msg(strstr(out, "\"pid\": 111") == NULL &&
			      strstr(out, "\"pid\": 222") == NULL,
		      "%s", out);
	ck_assert_int_eq(ctl(ROOT, "stats", "-j", NULL), 0);
	assert_has(out, "\"pid\": 111");
}
END_TEST

/* An adaptive node shows what it has learned, one line per window. */
START_TEST(test_show_adaptive)
{
	struct adapt_choice ch = { 0, 300, 100 };
	int i;

	ck_assert_int_eq(ctl(ROOT, "show", "ipmi2", NULL), 0);
	ck_assert_ptr_null(strstr(out, "adaptive="));
	nodes[1].conf.pol.backoff = KCSMUX_BACKOFF_ADAPTIVE;
	adapt_init(&nodes[1].adapt);
	for (i = 0; i < 8; i++)
		record(&nodes[1].adapt, 0x04, 0x2d, &ch, 1000000, 6, 800, 50000,
		       (uint64_t)i);
	ck_assert_int_eq(ctl(ROOT, "show", "ipmi2", NULL), 0);
	assert_has(out, "\nadaptive=class=all n=8 ");
	assert_has(out, "\nadaptive=class=04/2d n=8 lo_us=");
	assert_has(out, " samples=8 censored=0 restarts=0\n");
}
END_TEST

START_TEST(test_show_no_node)
{
	ck_assert_int_eq(ctl(ROOT, "show", "ipmi9", NULL), 1);
	ck_assert_str_eq(err,
			 "kcsmuxctl: no node \"ipmi9\" (nodes: ipmi1 ipmi2)\n");
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(ctl(ROOT, "set", "ipmi9", "weight=3", NULL), 1);
	ck_assert_str_eq(err,
			 "kcsmuxctl: no node \"ipmi9\" (nodes: ipmi1 ipmi2)\n");
}
END_TEST

START_TEST(test_set)
{
	struct node *n = &nodes[0];

	/* the normal preset: no spinning, 100 us polls */
	ck_assert_uint_eq(n->conf.pol.max_busy_us, 0);
	ck_assert_int_eq(ctl(ROOT, "set", "ipmi1", "max_busy_us=500",
			     "poll_us=200", NULL),
			 0);
	ck_assert_uint_eq(n->conf.pol.max_busy_us, 500);
	ck_assert_uint_eq(n->conf.pol.poll_us, 200);
	/* a poll_max_us not given follows poll_us up, as in kcsmux.conf */
	ck_assert_uint_eq(n->conf.pol.poll_max_us, 200);
	assert_has(out, "ipmi1: max_busy_us 0 -> 500\n");
	assert_has(out, "ipmi1: poll_us 100 -> 200\n");
	assert_has(out, "ipmi1: poll_max_us 100 -> 200\n");
	assert_has(out, "ipmi1: note: poll_max_us raised to 200 (poll_us)\n");
	ck_assert_int_ge(kicks, 1);
	ck_assert_int_eq(ctl(ROOT, "show", "ipmi1", NULL), 0);
	assert_has(out, "\ncustom=yes\n");
	assert_has(out, "\npolicy.max_busy_us=500\n");
	/* The same again: no change. */
	ck_assert_int_eq(ctl(ROOT, "set", "ipmi1", "max_busy_us=500", NULL), 0);
	ck_assert_str_eq(out, "ipmi1: no change\n");

	/* The scheduler's share changes live. */
	ck_assert_int_eq(ctl(ROOT, "set", "ipmi2", "weight=7", "rate=2.5",
			     "priority=bulk", "queue=5", NULL),
			 0);
	ck_assert_uint_eq(nodes[1].flow.weight, 7);
	ck_assert_uint_eq(nodes[1].flow.rate_milli, 2500);
	ck_assert_int_eq(nodes[1].flow.prio, KCSMUX_PRIO_BULK);
	ck_assert_uint_eq(nodes[1].flow.queue_max, 5);

	/* A preset first wherever it is, the other keys over it. */
	ck_assert_int_eq(ctl(ROOT, "set", "ipmi2", "weight=9",
			     "policy=interactive", NULL),
			 0);
	ck_assert_int_eq(nodes[1].conf.preset, KCSMUX_PRESET_INTERACTIVE);
	ck_assert_uint_eq(nodes[1].conf.pol.weight, 9);
	ck_assert_uint_eq(nodes[1].conf.pol.max_busy_us, 2000);
	ck_assert_int_eq(nodes[1].flow.prio, KCSMUX_PRIO_INTERACTIVE);
	assert_has(out, "ipmi2: preset monitor -> interactive\n");
	/* unique prefixes of commands work */
	ck_assert_int_eq(ctl(ROOT, "li", NULL), 0);
	assert_has(out, "interactive+");
}
END_TEST

START_TEST(test_set_errors)
{
	struct kcsmux_policy before = nodes[0].conf.pol;
	struct sched_flow fb = nodes[0].flow;

	/* One bad value: nothing changes, the good key neither. */
	ck_assert_int_eq(ctl(ROOT, "set", "ipmi1", "max_busy_us=0",
			     "weight=abc", NULL),
			 1);
	ck_assert_str_eq(
		err, "kcsmuxctl: set ipmi1: weight: expected an "
		     "integer from 1 to 10000, not 'abc'; nothing changed\n");
	ck_assert_int_eq(ctl(ROOT, "set", "ipmi1", "bogus_key=1", NULL), 1);
	assert_has(err, "unknown policy key 'bogus_key'");
	ck_assert_int_eq(ctl(ROOT, "set", "ipmi1", "poll_us=20",
			     "poll_max_us=10", NULL),
			 1);
	assert_has(err, "poll_max_us (10) is less than poll_us (20)");
	ck_assert_int_eq(ctl(ROOT, "set", "ipmi1", "weight=2", "weight=3",
			     NULL),
			 1);
	assert_has(err, "weight given twice");
	ck_assert_int_eq(ctl(ROOT, "set", "ipmi1", "policy=fast", NULL), 1);
	assert_has(err, "policy");
	ck_assert_int_eq(ctl(ROOT, "set", "ipmi1", "max_busy_us=", NULL), 1);
	ck_assert_mem_eq(&nodes[0].conf.pol, &before, sizeof(before));
	ck_assert_uint_eq(nodes[0].flow.weight, fb.weight);
	ck_assert_int_eq(kicks, 0);
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_permissions)
{
	struct kcsmux_policy before = nodes[0].conf.pol;

	ck_assert_int_eq(ctl(NOBODY_PLAIN, "list", NULL), 0);
	assert_has(out, "ipmi1");
	ck_assert_int_eq(ctl(NOBODY_PLAIN, "stats", "-j", NULL), 0);
	ck_assert_int_eq(ctl(NOBODY_PLAIN, "set", "ipmi1", "max_busy_us=0",
			     NULL),
			 1);
	ck_assert_str_eq(err, "kcsmuxctl: permission denied: set needs root "
			      "or group 4242\n");
	ck_assert_mem_eq(&nodes[0].conf.pol, &before, sizeof(before));
	ck_assert_int_eq(ctl(NOBODY_PLAIN, "reload", NULL), 1);
	ck_assert_str_eq(err, "kcsmuxctl: permission denied: reload needs "
			      "root or group 4242\n");
	ck_assert_int_eq(reloads, 0);
	/* A supplementary member of the admin group may. */
	ck_assert_int_eq(ctl(NOBODY_ADMIN, "set", "ipmi1", "max_busy_us=0",
			     NULL),
			 0);
	ck_assert_uint_eq(nodes[0].conf.pol.max_busy_us, 0);
}
END_TEST

/* kcsmuxctl lease: take, list, another node refused (nothing taken),
 * release; take and release need an admin, list does not. */
START_TEST(test_lease)
{
	ck_assert_int_eq(ctl(ROOT, "lease", NULL), 0);
	ck_assert_str_eq(out, "no leases held\n");
	ck_assert_int_eq(ctl(ROOT, "lease", "take", "ipmi1", "fan-oem,lan",
			     "60", NULL),
			 0);
	assert_has(out, "ipmi1 fan-oem 59 kcsmuxctl\n");
	assert_has(out, "ipmi1 lan 59 kcsmuxctl\n");
	ck_assert_int_eq(ctl(ROOT, "lease", "take", "ipmi2", "chassis", "lan",
			     "60", NULL),
			 2); /* usage: take has one CLASS list */
	ck_assert_int_eq(ctl(ROOT, "lease", "take", "ipmi2", "chassis,lan",
			     "60", NULL),
			 1);
	assert_has(err, "node ipmi1 holds one of those classes");
	ck_assert_int_eq(ctl(ROOT, "lease", "take", "ipmi2", "fans", "60",
			     NULL),
			 1);
	assert_has(err, "classes are chassis, fan-oem");
	ck_assert_int_eq(ctl(ROOT, "lease", "take", "ipmi2", "chassis", "0",
			     NULL),
			 1);
	ck_assert_int_eq(ctl(NOBODY_PLAIN, "lease", "list", NULL), 0);
	assert_has(out, "ipmi1 fan-oem");
	ck_assert_msg(strstr(out, "chassis") == NULL, "%s", out);
	ck_assert_int_eq(ctl(NOBODY_PLAIN, "lease", "release", "ipmi1", NULL),
			 1);
	assert_has(err, "permission denied: lease needs root");
	ck_assert_int_eq(ctl(ROOT, "lease", "release", "ipmi1", "lan", NULL),
			 0);
	assert_has(out, "ipmi1: 1 released\n");
	ck_assert_int_eq(ctl(ROOT, "lease", "release", "ipmi1", NULL), 0);
	assert_has(out, "ipmi1: 1 released\nno leases held\n");
	ck_assert_int_eq(ctl(ROOT, "show", "ipmi2", NULL), 0);
	assert_has(out, "\nlease_refused=0\n");
}
END_TEST

START_TEST(test_reload)
{
	reload_rv = -1;
	ck_assert_int_eq(ctl(ROOT, "reload", NULL), 1);
	ck_assert_str_eq(err,
			 "kcsmuxctl: reload rejected, the running "
			 "configuration stays: t.conf:3: unknown key 'bogus'\n"
			 "kcsmuxctl: t.conf:4: another\n");
	reload_rv = 0;
	ck_assert_int_eq(ctl(ROOT, "reload", NULL), 0);
	ck_assert_str_eq(out, "reloaded t.conf\n");
	ck_assert_int_eq(reloads, 2);
}
END_TEST

/* reload --dry-run: the plan as the daemon made it, nothing applied
 * (daemon_reload not called); a file it would reject fails the command. */
START_TEST(test_reload_dry_run)
{
	ck_assert_int_eq(ctl(ROOT, "reload", "--dry-run", NULL), 0);
	ck_assert_str_eq(out, "would remove node ipmi2 (1 client: pid 222 "
			      "uid 0)\n"
			      "would add node ipmi3 (policy normal, access "
			      "all)\n"
			      "would change ipmi1: poll_us 100 -> 200\n"
			      "[global] user changed: it needs a restart\n"
			      "dry run: nothing applied (t.conf)\n");
	ck_assert_int_eq(reloads, 0);
	ck_assert_int_eq(plans, 1);
	ck_assert_int_eq(ctl(ROOT, "reload", "-n", NULL), 0);
	ck_assert_int_eq(plans, 2);
	plan_rv = 1; /* the same file */
	ck_assert_int_eq(ctl(ROOT, "reload", "-n", NULL), 0);
	ck_assert_str_eq(out, "dry run: nothing applied (t.conf)\n"
			      "nothing would change\n");
	plan_rv = -1;
	ck_assert_int_eq(ctl(ROOT, "reload", "--dry-run", NULL), 1);
	ck_assert_str_eq(err, "kcsmuxctl: reload would be rejected, the "
			      "running configuration would stay: t.conf:5: "
			      "unknown key 'bogus'\n");
	ck_assert_int_eq(reloads, 0);
	plan_rv = 0;
	ck_assert_int_eq(ctl(ROOT, "reload", "--dry", NULL), 0); /* prefix */
	assert_has(out, "would add node ipmi3");
	ck_assert_int_eq(ctl(ROOT, "reload", "--bogus", NULL), 2);
	assert_has(err, "reload: unknown option --bogus");
}
END_TEST

/* status: the daemon at a glance, as text and as JSON with numbers as
 * numbers; the last reload's outcome and error. */
START_TEST(test_status)
{
	struct backend be = { 0 };
	uint64_t t0, t1;

	be.health.hosed = 3;
	be.health.kcs_errors = 7;
	be.inflight = 1;
	d.be = &be;
	d.started_ns = now_ns() - 75000000000ULL;
	d.started_unix = 1700000000;
	d.reloads = 2;
	d.reload_failures = 1;
	d.last_reload_ok = false;
	d.last_reload_unix = 1700000100;
	snprintf(d.last_reload_error, sizeof(d.last_reload_error),
		 "t.conf:3: bad");
	d.bmc_silent = true;
	d.bmc_silent_since_ns = now_ns() - 5000000000ULL;
	d.bmc_silences = 1;
	/* the BMC silent: exit status 5, also with -j (an alert's) */
	t0 = now_ns();
	ck_assert_int_eq(ctl(ROOT, "status", NULL), 5);
	t1 = now_ns();
	assert_secs("uptime (s)       ", d.started_ns, t0, t1);
	assert_has(out, "configuration    t.conf\n");
	assert_has(out, "last reload      failed\n");
	assert_has(out, "  its error      t.conf:3: bad\n");
	assert_has(out, "backend          kcsraw\n");
	assert_has(out, "BMC              silent\n");
	assert_secs("  silent for (s) ", d.bmc_silent_since_ns, t0, t1);
	assert_has(out, "IPMB bridging    yes\n");
	assert_has(out, "hosed            3\n");
	assert_has(out, "KCS errors       7\n");
	assert_has(out, "nodes            2\n");
	assert_has(out, "open files       2\n");
	be.no_bridge = true; /* degraded: SMI mode without a path */
	t0 = now_ns();
	ck_assert_int_eq(ctl(ROOT, "status", "-j", NULL), 5);
	t1 = now_ns();
	ck_assert_msg(json_valid(out, strlen(out)), "bad JSON:\n%s", out);
	assert_has(out, "\"bridging\": \"off\"");
	be.no_bridge = false;
	assert_secs("\"uptime_s\": ", d.started_ns, t0, t1);
	assert_has(out, "\"hosed\": 3");
	assert_has(out, "\"bmc\": \"silent\"");
	assert_has(out, "\"last_reload\": \"failed\"");
	assert_has(out, "\"clients\": 2");
	/* answering again, the last reload failed: 6 */
	d.bmc_silent = false;
	ck_assert_int_eq(ctl(ROOT, "status", NULL), 6);
	assert_has(out, "BMC              answering\n");
	ck_assert_int_eq(ctl(ROOT, "--json", "status", NULL), 6);
	assert_has(out, "\"last_reload\": \"failed\"");
	d.reloads = 0;
	ck_assert_int_eq(ctl(ROOT, "status", NULL), 0);
	assert_has(out, "BMC              answering\n");
	assert_has(out, "last reload      none\n");
	ck_assert_ptr_null(strstr(out, "silent for"));
	/* the BMC's identity: unknown until a Get Device ID was answered */
	assert_has(out, "  identity       unknown (no Get Device ID answered "
			"yet)\n");
	ck_assert_ptr_null(strstr(out, "firmware"));
	{
		/* device 0x20 rev 1, fw 2.41, IPMI 2.0, manufacturer 343
		 * (Intel: 0x000157), product 0x0b3c */
		static const uint8_t id[] = { 0x20, 0x81, 0x02, 0x41,
					      0x02, 0xbf, 0x57, 0x01,
					      0x00, 0x3c, 0x0b };

		memcpy(d.bmc_id, id, sizeof(id));
		d.bmc_id_len = sizeof(id);
	}
	ck_assert_int_eq(ctl(ROOT, "status", NULL), 0);
	assert_has(out, "  times silent   1\n"
			"  identity       from its last Get Device ID\n"
			"  device id      32\n"
			"  revision       1\n"
			"  firmware       2.41\n"
			"  IPMI version   2.0\n"
			"  manufacturer   343\n"
			"  product        2876\n");
	ck_assert_int_eq(ctl(ROOT, "status", "-j", NULL), 0);
	ck_assert_msg(json_valid(out, strlen(out)), "bad JSON:\n%s", out);
	assert_has(out, "\"bmc_firmware\": \"2.41\"");
	assert_has(out, "\"bmc_manufacturer_id\": 343");
	d.bmc_id_len = 0;
	d.be = NULL;
}
END_TEST

/* A fake /sys/class/ipmi under the test's directory: ipmiN's device is
 * the platform device TARGET. */
static void fake_ipmi_class(unsigned int n, const char *target)
{
	char p[224];

	snprintf(p, sizeof(p), "%s/sys", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sys/class", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sys/class/ipmi", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sys/class/ipmi/ipmi%u", dir, n);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/sys/class/ipmi/ipmi%u/device", dir, n);
	ck_assert_int_eq(symlink(target, p), 0);
}

/* ipmi_devintf loaded beside kcsraw in SMI mode: the status names the
 * stock node on kcsraw's interface and warns what it bypasses; a stock
 * node of another interface (ipmi_si's, another kcsraw's) is not named. */
START_TEST(test_status_stock_node)
{
	char cls[160], root[160];

	snprintf(root, sizeof(root), "%s/sys", dir);
	snprintf(cls, sizeof(cls), "%s/sys/class/ipmi", dir);
	d.sysfs_root = root; /* the daemon's view: status -j, metrics */
	ck_assert_int_eq(setenv("KCSMUX_SYSFS_IPMI", cls, 1), 0);
	/* ipmi_devintf not loaded: no class directory, no warning */
	ck_assert_int_eq(ctl(ROOT, "status", NULL), 0);
	assert_has(out, "device           /dev/kcsraw0\n");
	ck_assert_ptr_null(strstr(out, "stock device"));
	ck_assert_str_eq(err, "");
	/* ipmi_si's node and kcsraw.1's: not this daemon's interface */
	fake_ipmi_class(0, "../../../devices/platform/IPI0001:00");
	fake_ipmi_class(1, "../../../devices/platform/kcsraw.1");
	ck_assert_int_eq(ctl(ROOT, "status", NULL), 0);
	ck_assert_ptr_null(strstr(out, "stock device"));
	ck_assert_str_eq(err, "");
	/* kcsraw.0's: named, and what it bypasses said */
	fake_ipmi_class(2, "../../../devices/platform/kcsraw.0");
	ck_assert_int_eq(ctl(ROOT, "status", NULL), 0);
	assert_has(out, "stock device     /dev/ipmi2 (ipmi_devintf) on "
			"kcsraw's interface\n");
	assert_has(err, "warning: /dev/ipmi2 is a stock device on kcsraw's "
			"interface");
	assert_has(err, "every node's access list, priority, rate limit, "
			"CPU budget and accounting");
	assert_has(err, "modprobe -r ipmi_devintf");
	ck_assert_ptr_null(strstr(err, "/dev/ipmi0"));
	ck_assert_ptr_null(strstr(err, "/dev/ipmi1"));
	/* -j: the JSON as the daemon sent it, with the device; the warning
	 * on stderr */
	ck_assert_int_eq(ctl(ROOT, "status", "-j", NULL), 0);
	ck_assert_msg(json_valid(out, strlen(out)), "bad JSON:\n%s", out);
	assert_has(out, "\"stock_device\": \"/dev/ipmi2\"");
	assert_has(err, "warning: /dev/ipmi2 is a stock device");
	/* another backend (the stock node is its device): no warning */
	d.cfg.backend = KCSMUX_BACKEND_IPMIDEV;
	ck_assert_int_eq(ctl(ROOT, "status", NULL), 0);
	ck_assert_ptr_null(strstr(out, "stock device"));
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(ctl(ROOT, "status", "-j", NULL), 0);
	assert_has(out, "\"stock_device\": \"\"");
	d.cfg.backend = KCSMUX_BACKEND_KCSRAW;
	d.sysfs_root = NULL;
	unsetenv("KCSMUX_SYSFS_IPMI");
}
END_TEST

/* check: would a request pass the node's access rules, and by which rule;
 * exit status 4 when not; nothing reaches a backend (there is none). */
START_TEST(test_check)
{
	cmdset_add(&nodes[0].conf.acc.deny, 0x06, 0x02);
	access_build(&nodes[0].conf.acc);
	ck_assert_int_eq(ctl(ROOT, "check", "ipmi1", "6", "1", NULL), 0);
	ck_assert_str_eq(out, "ipmi1: netfn 0x06 cmd 0x01 allowed by access = "
			      "all\n");
	ck_assert_int_eq(ctl(ROOT, "check", "ipmi1", "0x06", "0x02", NULL), 4);
	ck_assert_str_eq(out, "ipmi1: netfn 0x06 cmd 0x02 denied by a deny "
			      "line\n");
	/* Send Message carrying a Cold Reset to 0x20: refused inside */
	ck_assert_int_eq(ctl(ROOT, "check", "ipmi1", "6", "0x34", "0", "0x20",
			     "0x18", "0xc8", "0x81", "0", "0x02", "0x7d", NULL),
			 4);
	assert_has(out, "denied by a deny line, inside Send Message");
	ck_assert_int_eq(ctl(ROOT, "check", "ipmi1", "6", "256", NULL), 2);
	assert_has(err, "\"256\" is not a byte");
	ck_assert_int_eq(ctl(ROOT, "check", "ipmi1", "6", NULL), 2);
	ck_assert_int_eq(ctl(ROOT, "check", "ipmi9", "6", "1", NULL), 1);
	assert_has(err, "no node \"ipmi9\"");
}
END_TEST

/* check -c FILE: the same verdicts from a file, with no daemon at all and
 * a user this host does not have (a warning); the file's errors and an
 * unknown node exit 1. */
START_TEST(test_check_file)
{
	char conf[160];
	FILE *f;

	control_fini(&d); /* no daemon */
	snprintf(conf, sizeof(conf), "%s/target.conf", dir);
	f = fopen(conf, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[global]\nuser = nosuchuser-kcsmux\n[node ipmi1]\n"
	      "deny = 06:02\n[node mon]\naccess = monitoring\n",
	      f);
	fclose(f);
	ck_assert_int_eq(ctl(ROOT, "check", "-c", conf, "ipmi1", "6", "1",
			     NULL),
			 0);
	ck_assert_str_eq(out, "ipmi1: netfn 0x06 cmd 0x01 allowed by access = "
			      "all\n");
	assert_has(err, "warning: user: unknown user 'nosuchuser-kcsmux'");
	ck_assert_int_eq(ctl(ROOT, "check", "--config", conf, "ipmi1", "0x06",
			     "0x02", NULL),
			 4);
	ck_assert_str_eq(out, "ipmi1: netfn 0x06 cmd 0x02 denied by a deny "
			      "line\n");
	/* Send Message carrying a Cold Reset: refused inside */
	ck_assert_int_eq(ctl(ROOT, "check", "-c", conf, "ipmi1", "6", "0x34",
			     "0", "0x20", "0x18", "0xc8", "0x81", "0", "0x02",
			     "0x7d", NULL),
			 4);
	assert_has(out, "denied by a deny line, inside Send Message");
	ck_assert_int_eq(ctl(ROOT, "check", "-c", conf, "mon", "0", "2", NULL),
			 4);
	assert_has(out, "mon: netfn 0x00 cmd 0x02 denied by access = "
			"monitoring");
	ck_assert_int_eq(ctl(ROOT, "check", "-c", conf, "ipmi9", "6", "1",
			     NULL),
			 1);
	assert_has(err, "no node \"ipmi9\" in ");
	f = fopen(conf, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[node ipmi1]\nbogus = 1\n", f);
	fclose(f);
	ck_assert_int_eq(ctl(ROOT, "check", "-c", conf, "ipmi1", "6", "1",
			     NULL),
			 1);
	assert_has(err, "target.conf:2: unknown key 'bogus'");
	ck_assert_int_eq(ctl(ROOT, "check", "-c", NULL), 2);
}
END_TEST

/* check -c FILE -u/-g: the shipped kcsmux.conf gives root the admin
 * rules on the interface-0 node (ipmitool without -d), other users its
 * monitoring rules; a group of admin_groups counts. */
START_TEST(test_check_file_admins)
{
	char conf[160];
	FILE *f;

	control_fini(&d); /* no daemon */
	ck_assert_int_eq(ctl(ROOT, "check", "-c", KCSMUX_SHIPPED_CONF, "-u",
			     "root", "ipmi2", "0x0c", "0x01", NULL),
			 0);
	ck_assert_str_eq(out, "ipmi2: netfn 0x0c cmd 0x01 allowed by "
			      "admin_access = all (an admin of the node)\n");
	ck_assert_int_eq(ctl(ROOT, "check", "-c", KCSMUX_SHIPPED_CONF, "-u",
			     "0", "ipmi2", "0", "2", NULL),
			 0);
	ck_assert_int_eq(ctl(ROOT, "check", "-c", KCSMUX_SHIPPED_CONF, "-u",
			     "4242", "ipmi2", "0x0c", "0x01", NULL),
			 4);
	ck_assert_str_eq(out, "ipmi2: netfn 0x0c cmd 0x01 denied by access = "
			      "monitoring (no allow line) (not an admin of "
			      "the node)\n");
	ck_assert_int_eq(ctl(ROOT, "check", "-c", KCSMUX_SHIPPED_CONF, "-u",
			     "4242", "ipmi2", "0x04", "0x2d", "1", NULL),
			 0);
	ck_assert_int_eq(ctl(ROOT, "check", "-c", KCSMUX_SHIPPED_CONF, "ipmi2",
			     "0x0a", "0x47", NULL),
			 4);
	assert_has(out, "(not its admin_users/admin_groups: -u)");
	snprintf(conf, sizeof(conf), "%s/admins.conf", dir);
	f = fopen(conf, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[node mon]\naccess = monitoring\nadmin_groups = 4321\n"
	      "admin_access = readonly\n",
	      f);
	fclose(f);
	ck_assert_int_eq(ctl(ROOT, "check", "-c", conf, "-u", "4242", "-g",
			     "7,4321", "mon", "0x0c", "0x02", NULL),
			 0);
	assert_has(out, "allowed by admin_access = readonly (an admin");
	ck_assert_int_eq(ctl(ROOT, "check", "-c", conf, "-u", "4242", "-g", "7",
			     "mon", "0x0c", "0x02", NULL),
			 4);
	ck_assert_int_eq(ctl(ROOT, "check", "-c", conf, "-g",
			     "nosuchgroup-kcsmux", "mon", "6", "1", NULL),
			 2);
	assert_has(err, "no group \"nosuchgroup-kcsmux\"");
	ck_assert_int_eq(ctl(ROOT, "check", "-u", "0", "mon", "6", "1", NULL),
			 2);
	assert_has(err, "-u and -g need -c FILE");
}
END_TEST

/* list -j and show -j: JSON, numbers as numbers. */
START_TEST(test_json_views)
{
	ck_assert_int_eq(ctl(ROOT, "list", "-j", NULL), 0);
	ck_assert_msg(json_valid(out, strlen(out)), "bad JSON:\n%s", out);
	assert_has(out, "{\"name\": \"ipmi1\"");
	assert_has(out, "\"requests\": 4");
	ck_assert_int_eq(ctl(ROOT, "show", "-j", "ipmi1", NULL), 0);
	ck_assert_msg(json_valid(out, strlen(out)), "bad JSON:\n%s", out);
	assert_has(out, "{\"name\": \"ipmi1\"");
	assert_has(out, "\"requests\": 4");
	assert_has(out, "\"pid\": 111");
	assert_has(out, "\"requests\": 12, \"errors\": 1, \"denied\": 3, "
			"\"guess_send\": [5, 4, 1], \"guess_recv\": [0, 0, 0], "
			"\"comm\": \"ipmitool\"}");
	assert_has(out, "\"completion_codes\": {\"0x00\": 3, \"0xc9\": 1}}");
	ck_assert_ptr_null(strstr(out, "ipmi2"));
	ck_assert_int_eq(ctl(ROOT, "show", "-j", "ipmi9", NULL), 1);
	assert_has(err, "no node \"ipmi9\"");
}
END_TEST

START_TEST(test_stats_json)
{
	ck_assert_int_eq(ctl(ROOT, "stats", "-j", NULL), 0);
	ck_assert_msg(json_valid(out, strlen(out)), "bad JSON:\n%s", out);
	assert_has(out, "\"nodes\": [");
	assert_has(out, "{\"name\": \"ipmi1\"");
	assert_has(out, "{\"name\": \"ipmi2\"");
	assert_has(out, "\"pid\": 111");
	assert_has(out, "\"spin_ns\": 2000000");
	assert_has(out, "\"backend\": \"kcsraw\"");
}
END_TEST

START_TEST(test_watch)
{
	char *p = out;
	int n = 0;

	/* stdout is a pipe here: plain rounds, no escape codes */
	ck_assert_int_eq(ctl(ROOT, "watch", "-n", "0.1", "-c", "3", NULL), 0);
	while ((p = strstr(p, "kcsmuxctl watch: ")) != NULL) {
		n++;
		p++;
	}
	ck_assert_int_eq(n, 3);
	ck_assert_ptr_null(strchr(out, '\033'));
	assert_has(out, "ipmi2");
	/*
	 * Under each list, the interval's table: none in the first round,
	 * then the rounds' differences (no traffic between them here: 0),
	 * beside the figures since start (ipmi1: 4 answered at 800 us).
	 */
	p = strstr(out, "\nper interval: from the next round on\n");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(strstr(p,
				     "\nipmi1        -         -        -"
				     "     -        -        -       800      "
				     "800\n"));
	/* "the last T s": T is the round's real length (0.1 s asked, more
	 * on a loaded host), not what is checked here */
	p = strstr(p + 1, "\nthe last ");
	ck_assert_ptr_nonnull(p);
	assert_has(p,
		   " s (REQS to P99_US), beside since start (*_ALL):\n"
		   "NODE      REQS     REQ/S     DONE   ERR  MEAN_US   "
		   "P99_US  MEAN_ALL  P99_ALL\n"
		   "ipmi1        0       0.0        0     0        0        0"
		   "       800      800\n"
		   "ipmi2        0       0.0        0     0        0        0"
		   "         -        -\n");
	ck_assert_ptr_nonnull(strstr(p + 1, "\nthe last "));
}
END_TEST

START_TEST(test_usage)
{
	ck_assert_int_eq(ctl(ROOT, NULL), 2);
	assert_has(err, "usage:");
	ck_assert_int_eq(ctl(ROOT, "bogus", NULL), 2);
	ck_assert_str_eq(err, "kcsmuxctl: unknown command \"bogus\" (try "
			      "'kcsmuxctl help')\n");
	ck_assert_int_eq(ctl(ROOT, "s", NULL), 2);
	ck_assert_str_eq(err,
			 "kcsmuxctl: ambiguous command \"s\" (status show set "
			 "stats)\n");
	ck_assert_int_eq(ctl(ROOT, "set", "ipmi1", NULL), 2);
	assert_has(err, "set: missing KEY=VALUE");
	ck_assert_int_eq(ctl(ROOT, "set", "ipmi1", "weight", NULL), 2);
	assert_has(err, "\"weight\" is not KEY=VALUE");
	ck_assert_int_eq(ctl(ROOT, "show", NULL), 2);
	ck_assert_int_eq(ctl(ROOT, "show", "a/b", NULL), 2);
	ck_assert_int_eq(ctl(ROOT, "list", "x", NULL), 2);
	ck_assert_int_eq(ctl(ROOT, "stats", "-x", NULL), 2);
	ck_assert_int_eq(ctl(ROOT, "watch", "-n", "0", NULL), 2);
	ck_assert_int_eq(ctl(ROOT, "list", "-x", NULL), 2);
	ck_assert_int_eq(ctl(ROOT, "help", NULL), 0);
	assert_has(out, "exit status");
	ck_assert_int_eq(ctl(ROOT, "help", "set", NULL), 0);
	assert_has(out, "admin group");
	ck_assert_int_eq(kicks, 0);
}
END_TEST

/* -j and --json before or after the command word, -s after it too; -j
 * only where there is JSON. */
START_TEST(test_global_options)
{
	static const char *const forms[][3] = {
		{ "-j", "status", NULL },      { "--json", "status", NULL },
		{ "status", "--json", NULL },  { "status", "-j", NULL },
		{ "-j", "list", NULL },	       { "stats", "--json", NULL },
		{ "--json", "show", "ipmi1" },
	};
	size_t i;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		ck_assert_msg(ctl(ROOT, forms[i][0], forms[i][1], forms[i][2],
				  NULL) == 0,
			      "%s %s: %s", forms[i][0], forms[i][1], err);
		ck_assert_msg(out[0] == '{' && json_valid(out, strlen(out)),
			      "%s %s: not JSON:\n%s", forms[i][0], forms[i][1],
			      out);
	}
	/* -s after the command word: the last one counts */
	ck_assert_int_eq(ctl(ROOT, "status", "-s", "/nonexistent/sock", NULL),
			 3);
	assert_has(err, "cannot connect to /nonexistent/sock");
	ck_assert_int_eq(ctl(ROOT, "status", "--socket", sock, "-j", NULL), 0);
	ck_assert(json_valid(out, strlen(out)));
	/* no JSON there: a usage error, nothing sent */
	ck_assert_int_eq(ctl(ROOT, "-j", "set", "ipmi1", "weight=5", NULL), 2);
	assert_has(err, "set: no JSON output");
	ck_assert_int_eq(ctl(ROOT, "reload", "--json", NULL), 2);
	ck_assert_int_eq(reloads, 0);
}
END_TEST

START_TEST(test_no_daemon)
{
	control_fini(&d);
	/* its own exit status: 3 */
	ck_assert_int_eq(ctl(ROOT, "list", NULL), 3);
	assert_has(err, "cannot connect to");
	assert_has(err, "(is kcsmuxd running?)");
	ck_assert_int_eq(ctl(ROOT, "status", NULL), 3);
	ck_assert_int_eq(ctl(ROOT, "reload", "-n", NULL), 3);
	/* watch: every round fails, and so does watch */
	ck_assert_int_eq(ctl(ROOT, "watch", "-n", "0.1", "-c", "2", NULL), 3);
	assert_has(err, "(is kcsmuxd running?)");
}
END_TEST

/* A raw client: send RAW, read one reply, check it (child side). */
static int raw_client(const uint8_t *raw, size_t len, int want_status,
		      const char *want_text)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	uint8_t h[CTL_HDR_LEN];
	char buf[512];
	struct ctl_hdr hd;
	ssize_t n;
	int fd;

	strcpy(sun.sun_path, sock);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		return 10;
	if (write(fd, raw, len) != (ssize_t)len)
		return 11;
	n = read(fd, h, sizeof(h));
	if (want_status < 0) /* closed without a reply */
		return n == 0 ? 0 : 12;
	if (n != CTL_HDR_LEN)
		return 13;
	if (ctl_hdr_decode(h, &hd) != CTL_OK ||
	    hd.status != (uint32_t)want_status || hd.len >= sizeof(buf))
		return 14;
	if (read(fd, buf, hd.len) != (ssize_t)hd.len)
		return 15;
	buf[hd.len] = '\0';
	if (strstr(buf, want_text) == NULL)
		return 16;
	if (want_status == CTL_E_VERSION && read(fd, h, 1) != 0)
		return 17; /* then the daemon hangs up */
	return 0;
}

static int raw(const uint8_t *bytes, size_t len, int want_status,
	       const char *want_text)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(raw_client(bytes, len, want_status, want_text));
	return serve(pid);
}

START_TEST(test_raw_protocol)
{
	uint8_t b[CTL_HDR_LEN + 64];
	struct ctl_hdr h;

	/* A newer client: a clear answer in the daemon's version. */
	ctl_hdr_init(&h, CTL_LIST, 0, 0);
	h.version = 2;
	ctl_hdr_encode(b, &h);
	ck_assert_int_eq(raw(b, CTL_HDR_LEN, CTL_E_VERSION,
			     "error=kcsmuxctl protocol 2, daemon speaks 1\n"),
			 0);
	/* Not our protocol: hung up on. */
	memcpy(b, "GET / HTTP/1.0\r\n", 16);
	ck_assert_int_eq(raw(b, CTL_HDR_LEN, -1, NULL), 0);
	/* Unknown request type. */
	ctl_hdr_init(&h, 99, 0, 0);
	ctl_hdr_encode(b, &h);
	ck_assert_int_eq(raw(b, CTL_HDR_LEN, CTL_E_TYPE, "type 0x0063"), 0);
	/* SHOW without a node; a payload that is not kv text. */
	ctl_hdr_init(&h, CTL_SHOW, 0, 0);
	ctl_hdr_encode(b, &h);
	ck_assert_int_eq(raw(b, CTL_HDR_LEN, CTL_E_PROTO, "no node given"), 0);
	ctl_hdr_init(&h, CTL_SHOW, 5, 0);
	ctl_hdr_encode(b, &h);
	memcpy(b + CTL_HDR_LEN, "ipmi1", 5);
	ck_assert_int_eq(raw(b, CTL_HDR_LEN + 5, CTL_E_PROTO, "no newline"), 0);
	/* LIST with a payload. */
	ctl_hdr_init(&h, CTL_LIST, 2, 0);
	ctl_hdr_encode(b, &h);
	memcpy(b + CTL_HDR_LEN, "x\n", 2);
	ck_assert_int_eq(raw(b, CTL_HDR_LEN + 2, CTL_E_PROTO,
			     "list takes no arguments"),
			 0);
}
END_TEST

/* A hog holds its connections until the test has asked (the pipe's write
 * end closed): however slow the host, root asks while they are held. */
static int hold_until_eof(int fd)
{
	char c;

	while (read(fd, &c, 1) > 0)
		;
	return 0;
}

/* Nobody opens more connections than one user may: the 9th is closed at
 * once, and root still gets in while nobody holds the other 8. */
static int hog(const char *ready, int hold)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	uint8_t raw[CTL_HDR_LEN];
	struct ctl_hdr h;
	int fd[9], i, f;

	if (!drop(NOBODY_PLAIN))
		return 20;
	strcpy(sun.sun_path, sock);
	for (i = 0; i < 9; i++) {
		fd[i] = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(fd[i], (struct sockaddr *)&sun, sizeof(sun)) < 0)
			return 21;
		usleep(20000); /* accepted in this order */
	}
	ctl_hdr_init(&h, CTL_LIST, 0, 0);
	ctl_hdr_encode(raw, &h);
	if (write(fd[0], raw, sizeof(raw)) != sizeof(raw) ||
	    read(fd[0], raw, sizeof(raw)) != sizeof(raw))
		return 22; /* the first is served */
	if (write(fd[8], raw, sizeof(raw)) < 0 && errno != EPIPE &&
	    errno != ECONNRESET)
		return 23;
	if (read(fd[8], raw, sizeof(raw)) > 0)
		return 24; /* the 9th was closed */
	if ((f = open(ready, O_WRONLY | O_CREAT, 0666)) < 0)
		return 25;
	close(f);
	return hold_until_eof(hold); /* hold the 8 while root asks */
}

START_TEST(test_conn_limit)
{
	struct timeval tv = { 0, 10000 };
	char ready[160];
	pid_t pid;
	int i, hold[2];

	signal(SIGPIPE, SIG_IGN);
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	chmod(dir, 0777);
	ck_assert_int_eq(pipe(hold), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(hold[1]);
		_exit(hog(ready, hold[0]));
	}
	close(hold[0]);
	for (i = 0; i < 500 && access(ready, F_OK) != 0; i++) {
		event_base_loopexit(d.base, &tv);
		event_base_dispatch(d.base);
	}
	ck_assert_msg(access(ready, F_OK) == 0, "the hog did not get ready");
	ck_assert_int_eq(ctl(ROOT, "list", NULL), 0);
	close(hold[1]);
	ck_assert_int_eq(serve(pid), 0);
}
END_TEST

/* Eight users, eight connections each: they fill what users may take,
 * and root still gets one of the slots kept for admins. */
static int hog_as(uid_t uid, const char *ready, int hold)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, i, f;

	if (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0)
		return 20;
	strcpy(sun.sun_path, sock);
	for (i = 0; i < 8; i++) {
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
			return 21;
		usleep(10000);
	}
	if ((f = open(ready, O_WRONLY | O_CREAT, 0666)) < 0)
		return 25;
	close(f);
	return hold_until_eof(hold); /* hold them while root asks */
}

START_TEST(test_conn_admin_slots)
{
	struct timeval tv = { 0, 10000 };
	char ready[8][160];
	pid_t pid[8];
	int i, k, n, hold[2];

	signal(SIGPIPE, SIG_IGN);
	chmod(dir, 0777);
	ck_assert_int_eq(pipe(hold), 0);
	for (k = 0; k < 8; k++) {
		snprintf(ready[k], sizeof(ready[k]), "%s/ready%d", dir, k);
		pid[k] = fork();
		ck_assert_int_ge(pid[k], 0);
		if (pid[k] == 0) {
			close(hold[1]);
			_exit(hog_as((uid_t)(3001 + k), ready[k], hold[0]));
		}
	}
	close(hold[0]);
	for (i = 0; i < 500; i++) {
		for (k = n = 0; k < 8; k++)
			n += access(ready[k], F_OK) == 0;
		if (n == 8)
			break;
		event_base_loopexit(d.base, &tv);
		event_base_dispatch(d.base);
	}
	ck_assert_int_eq(n, 8);
	ck_assert_int_eq(ctl(ROOT, "list", NULL), 0);
	close(hold[1]);
	for (k = 0; k < 8; k++)
		ck_assert_int_eq(serve(pid[k]), 0);
}
END_TEST

/*
 * Out of descriptors: accept() fails with EMFILE while a client waits.
 * The daemon pauses accepting (a handful of failures, not one per loop
 * turn at 100% CPU), and serves the client once descriptors are free.
 */
START_TEST(test_conn_emfile)
{
	struct timeval tv = { 0, 10000 };
	static struct fd_exhaust fx;
	int i, p[2], rc;
	unsigned long e0, e1;
	uint64_t t0, t1;
	pid_t pid;

	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		uint8_t b[CTL_HDR_LEN];
		struct ctl_hdr h;
		char c;

		/* wait until the parent is out of descriptors */
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(30);
		/* any request answered will do: a short answer */
		ctl_hdr_init(&h, 99, 0, 0);
		ctl_hdr_encode(b, &h);
		_exit(raw_client(b, CTL_HDR_LEN, CTL_E_TYPE, "type 0x0063"));
	}
	close(p[0]);
	ck_assert_int_eq(fd_exhaust_start(&fx), 0);
	e0 = control_accept_errors(&d);
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	/* 1.5 s of the loop (by the clock: a loaded host runs fewer turns
	 * of 10 ms in it) while the client waits: paused, not spinning, an
	 * error a second at most. p[1] stays open meanwhile: closing it
	 * would free the one descriptor accept() needs, and a loop that
	 * never pauses would then see a single error and pass. */
	t0 = now_ns();
	for (i = 0; now_ns() - t0 < 1500000000ULL; i++) {
		event_base_loopexit(d.base, &tv);
		event_base_dispatch(d.base);
	}
	t1 = now_ns();
	close(p[1]);
	e1 = control_accept_errors(&d);
	ck_assert_msg(e1 > e0 && e1 - e0 <= 4,
		      "accept errors: %lu in %d turns, %.2f s", e1 - e0, i,
		      (double)(t1 - t0) / 1e9);
	ck_assert_int_eq(fd_exhaust_end(&fx), 0);
	rc = serve(pid);
	ck_assert_int_eq(rc, 0);
}
END_TEST

/*
 * Two suites, two CTest tests: unit.test_control runs as whoever runs it;
 * unit.test_control_root ("root" argument) needs root to become nobody and
 * other users, and is reported to CTest as skipped (exit 77) without it.
 */
static Suite *control_root_suite(void)
{
	Suite *s = suite_create("control as other users");
	TCase *tc = tcase_create("root and nobody");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_show_nobody);
	tcase_add_test(tc, test_permissions);
	tcase_add_test(tc, test_conn_limit);
	tcase_add_test(tc, test_conn_admin_slots);
	tcase_add_test(tc, test_lease);
	suite_add_tcase(s, tc);
	return s;
}

static Suite *control_suite(void)
{
	Suite *s = suite_create("control");
	TCase *tc = tcase_create("daemon+cli");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_socket_setup);
	tcase_add_test(tc, test_socket_in_use_and_stale);
	tcase_add_test(tc, test_list);
	tcase_add_test(tc, test_list_budget_widths);
	tcase_add_test(tc, test_show);
	tcase_add_test(tc, test_show_adaptive);
	tcase_add_test(tc, test_show_no_node);
	tcase_add_test(tc, test_set);
	tcase_add_test(tc, test_set_errors);
	tcase_add_test(tc, test_reload);
	tcase_add_test(tc, test_reload_dry_run);
	tcase_add_test(tc, test_status);
	tcase_add_test(tc, test_status_stock_node);
	tcase_add_test(tc, test_json_views);
	tcase_add_test(tc, test_check);
	tcase_add_test(tc, test_stats_json);
	tcase_add_test(tc, test_watch);
	tcase_add_test(tc, test_usage);
	tcase_add_test(tc, test_global_options);
	tcase_add_test(tc, test_check_file);
	tcase_add_test(tc, test_check_file_admins);
	tcase_add_test(tc, test_no_daemon);
	tcase_add_test(tc, test_raw_protocol);
	tcase_add_test(tc, test_conn_emfile);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	bool root = argc > 1 && strcmp(argv[1], "root") == 0;
	SRunner *sr;
	int failed;

	if (root && geteuid() != 0) {
		fprintf(stderr, "test_control root: not root, cannot become "
				"other users: skipped\n");
		return KCSMUX_TEST_SKIP;
	}
	sr = srunner_create(root ? control_root_suite() : control_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
