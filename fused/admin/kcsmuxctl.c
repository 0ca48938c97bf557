// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxctl - admin CLI for kcsmuxd, in the manner of smtpctl(8): a table
 * of commands (their words, arguments, options and help) drives parsing,
 * usage and help; each command is one request on the control socket
 * (include/kcsmux/control.h) and a printer for its reply.
 *
 * Exit status: 0 done; 1 the daemon refused or failed the request; 2 a
 * usage error (nothing was sent); 3 the daemon could not be reached (not
 * running); 4 check: the request would be refused. docs/man/kcsmuxctl.8.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <kcsmux/control.h>

#include "util/io.h"

#define EXIT_OK		 0
#define EXIT_FAIL	 1
#define EXIT_USAGE	 2
#define EXIT_NOT_RUNNING 3
#define EXIT_DENIED	 4

#define REPLY_TIMEOUT_SEC 15

static const char *prog = "kcsmuxctl";

struct ctx {
	const char *sock;
	int fd;		  /* -1: not connected */
	bool unreachable; /* the last connect failed */
};

struct reply {
	struct ctl_hdr h;
	char *payload;	      /* NUL-terminated */
	struct ctl_kvlist kv; /* parsed if kv text */
};

/* ---- the command table ---- */

enum argkind {
	A_END,
	A_NODE,	     /* a node name */
	A_KV,	     /* KEY=VALUE */
	A_KV_MORE,   /* KEY=VALUE, then any number more */
	A_CMD_OPT,   /* an optional command word (help) */
	A_BYTE,	     /* a byte: 0-255, decimal or 0x hex */
	A_BYTE_MORE, /* optional bytes, any number */
};

struct cmd {
	const char *name;
	const char *optstring; /* the command's own options */
	enum argkind args[5];
	const char *synopsis; /* after the command word */
	const char *help;
	int (*run)(struct ctx *, int argc, char **argv);
	const struct option *longopts; /* the command's long options */
};

static int cmd_status(struct ctx *, int, char **);
static int cmd_list(struct ctx *, int, char **);
static int cmd_show(struct ctx *, int, char **);
static int cmd_set(struct ctx *, int, char **);
static int cmd_stats(struct ctx *, int, char **);
static int cmd_watch(struct ctx *, int, char **);
static int cmd_reload(struct ctx *, int, char **);
static int cmd_check(struct ctx *, int, char **);
static int cmd_help(struct ctx *, int, char **);

static const struct option reload_longopts[] = {
	{ "dry-run", no_argument, NULL, 'n' },
	{ NULL, 0, NULL, 0 },
};

static const struct cmd cmds[] = {
	{ "status",
	  "j",
	  { A_END },
	  "[-j]",
	  "the daemon at a glance: uptime, configuration and last reload,\n"
	  "backend and device, whether the BMC answers, the interface's\n"
	  "error counts; -j: JSON",
	  cmd_status,
	  NULL },
	{ "list",
	  "j",
	  { A_END },
	  "[-j]",
	  "the nodes: policy, clients, queue, requests, latency (since\n"
	  "start), CPU; -j: JSON (as stats -j)",
	  cmd_list,
	  NULL },
	{ "show",
	  "j",
	  { A_NODE, A_END },
	  "[-j] NODE",
	  "one node's policy, open files and counters as key=value lines;\n"
	  "-j: the node as JSON (its object in stats -j)",
	  cmd_show,
	  NULL },
	{ "set",
	  "",
	  { A_NODE, A_KV_MORE, A_END },
	  "NODE KEY=VALUE...",
	  "change a node's policy live, all keys or none (kcsmux.conf(5)\n"
	  "policy keys; policy=PRESET starts from a preset); needs root or\n"
	  "the admin group",
	  cmd_set,
	  NULL },
	{ "stats",
	  "j",
	  { A_END },
	  "[-j]",
	  "every node's counters and latency; -j: JSON with clients",
	  cmd_stats,
	  NULL },
	{ "watch",
	  "n:c:",
	  { A_END },
	  "[-n SEC] [-c COUNT]",
	  "redraw the list every SEC seconds (default 2) until interrupted,\n"
	  "or COUNT times, and under it each node's requests, rate, mean\n"
	  "and p99 latency over the last SEC seconds",
	  cmd_watch,
	  NULL },
	{ "reload",
	  "n",
	  { A_END },
	  "[-n|--dry-run]",
	  "read kcsmux.conf again (as SIGHUP); needs root or the admin group;\n"
	  "-n, --dry-run: say what would change (nodes added or removed\n"
	  "with their clients, keys changed), apply nothing",
	  cmd_reload,
	  reload_longopts },
	{ "check",
	  "",
	  { A_NODE, A_BYTE, A_BYTE, A_BYTE_MORE, A_END },
	  "NODE NETFN CMD [DATA...]",
	  "would NODE's access rules let this request to the BMC through,\n"
	  "and by which rule (bytes in decimal or 0x hex; DATA for Send\n"
	  "Message and group extensions); nothing is sent; exit status 4\n"
	  "when it would be refused",
	  cmd_check,
	  NULL },
	{ "help",
	  "",
	  { A_CMD_OPT, A_END },
	  "[COMMAND]",
	  "this text, or one command's",
	  cmd_help,
	  NULL },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void errx_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void errx_msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void print_cmd(FILE *f, const struct cmd *c, bool long_help)
{
	const char *p, *nl;

	fprintf(f, "  %s %s%s%s\n", prog, c->name, *c->synopsis ? " " : "",
		c->synopsis);
	if (!long_help)
		return;
	for (p = c->help; *p != '\0'; p = nl + (*nl != '\0')) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		fprintf(f, "      %.*s\n", (int)(nl - p), p);
	}
}

static void usage(FILE *f, bool long_help)
{
	size_t i;

	fprintf(f,
		"usage: %s [-s SOCKET] COMMAND [ARGS...]\n"
		"  -s SOCKET  the daemon's control socket (default $KCSMUX_SOCKET "
		"or %s)\n  -V         print the version\ncommands:\n",
		prog, CTL_SOCKET_DEFAULT);
	for (i = 0; i < NCMDS; i++)
		print_cmd(f, &cmds[i], long_help);
	if (long_help)
		fprintf(f, "exit status: 0 done, 1 refused or failed, "
			   "2 usage error, 3 daemon not running (cannot "
			   "connect), 4 check: would be refused\n");
}

/* An exact name, else a unique prefix. NULL with a message otherwise. */
static const struct cmd *cmd_lookup(const char *word)
{
	const struct cmd *found = NULL;
	size_t i, len = strlen(word), n = 0;
	char names[128] = "";

	for (i = 0; i < NCMDS; i++)
		if (strcmp(cmds[i].name, word) == 0)
			return &cmds[i];
	for (i = 0; len > 0 && i < NCMDS; i++) {
		if (strncmp(cmds[i].name, word, len) != 0)
			continue;
		found = &cmds[i];
		n++;
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", n > 1 ? " " : "", cmds[i].name);
	}
	if (n == 1)
		return found;
	if (n > 1)
		errx_msg("ambiguous command \"%s\" (%s)", word, names);
	else
		errx_msg("unknown command \"%s\" (try '%s help')", word, prog);
	return NULL;
}

/* A byte operand: 0-255, decimal or 0x hex; -1 if not. */
static int byte_arg(const char *s)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end != '\0' || v > 255 || s[0] == '-')
		return -1;
	return (int)v;
}

/* Check ARGV (the command's operands) against its argument kinds. */
static int check_args(const struct cmd *c, int argc, char **argv)
{
	const enum argkind *k = c->args;
	bool more = false;
	const char *eq;
	int i;

	for (i = 0; i < argc; i++) {
		switch (*k) {
		case A_END:
			errx_msg("%s: unexpected argument \"%s\"", c->name,
				 argv[i]);
			return -1;
		case A_NODE:
			if (!ctl_node_name_valid(argv[i])) {
				errx_msg("%s: \"%s\" is not a node name",
					 c->name, argv[i]);
				return -1;
			}
			k++;
			break;
		case A_KV:
		case A_KV_MORE:
			eq = strchr(argv[i], '=');
			if (eq == NULL ||
			    !ctl_key_valid(argv[i], (size_t)(eq - argv[i]))) {
				errx_msg("%s: \"%s\" is not KEY=VALUE", c->name,
					 argv[i]);
				return -1;
			}
			if (*k == A_KV)
				k++;
			else
				more = true; /* takes the rest */
			break;
		case A_CMD_OPT:
			k++;
			break;
		case A_BYTE:
		case A_BYTE_MORE:
			if (byte_arg(argv[i]) < 0) {
				errx_msg("%s: \"%s\" is not a byte (0-255, "
					 "0x hex)",
					 c->name, argv[i]);
				return -1;
			}
			if (*k == A_BYTE)
				k++;
			break;
		}
	}
	/* What is left must be optional, or a KEY=VALUE... already seen. */
	for (; *k != A_END; k++) {
		if (*k == A_CMD_OPT || *k == A_BYTE_MORE ||
		    (*k == A_KV_MORE && more))
			continue;
		errx_msg("%s: missing %s", c->name,
			 *k == A_NODE ? "NODE" :
			 *k == A_BYTE ? "NETFN or CMD" :
					"KEY=VALUE");
		fprintf(stderr, "usage:\n");
		print_cmd(stderr, c, false);
		return -1;
	}
	return 0;
}

/* ---- talking to the daemon ---- */

static int ctl_connect(struct ctx *x)
{
	struct sockaddr_un sun;
	struct timeval tv = { REPLY_TIMEOUT_SEC, 0 };
	int fd, e;

	if (x->fd >= 0)
		return 0;
	x->unreachable = true;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(x->sock) >= sizeof(sun.sun_path)) {
		errx_msg("socket path too long: %s", x->sock);
		return -1;
	}
	strcpy(sun.sun_path, x->sock);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		errx_msg("socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		e = errno;
		close(fd);
		errx_msg("cannot connect to %s: %s%s", x->sock, strerror(e),
			 e == ENOENT || e == ECONNREFUSED ?
				 " (is kcsmuxd running?)" :
				 "");
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	x->fd = fd;
	x->unreachable = false;
	return 0;
}

static void ctl_disconnect(struct ctx *x)
{
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
}

/* 0, or -1 with errno (0: the daemon closed the connection). */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = 0;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void reply_free(struct reply *r)
{
	free(r->payload);
	ctl_kvlist_free(&r->kv);
	memset(r, 0, sizeof(*r));
}

static void print_errors(const struct reply *r)
{
	size_t i;
	bool any = false;

	for (i = 0; i < r->kv.n; i++)
		if (strcmp(r->kv.kv[i].key, "error") == 0) {
			errx_msg("%s", r->kv.kv[i].value);
			any = true;
		}
	if (!any)
		errx_msg("kcsmuxd: %s", ctl_status_name(r->h.status));
}

/*
 * Send one request and read its reply. 0 with *r filled and the daemon's
 * status CTL_OK; -1 after printing why not (*r freed).
 */
static int request(struct ctx *x, uint16_t type, const struct ctl_buf *req,
		   bool kv_reply, struct reply *r)
{
	uint8_t raw[CTL_HDR_LEN];
	struct ctl_hdr h;
	enum ctl_status st;
	char err[128], tb[32];
	size_t len = req != NULL ? req->len : 0;

	memset(r, 0, sizeof(*r));
	if (ctl_connect(x) < 0)
		return -1;
	ctl_hdr_init(&h, type, (uint32_t)len, 0);
	ctl_hdr_encode(raw, &h);
	if (write_all(x->fd, raw, sizeof(raw)) < 0 ||
	    (len > 0 && write_all(x->fd, req->data, len) < 0)) {
		errx_msg("sending to %s: %s", x->sock, strerror(errno));
		goto fail;
	}
	if (read_all(x->fd, raw, sizeof(raw)) < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			errx_msg("no reply from kcsmuxd within %d s",
				 REPLY_TIMEOUT_SEC);
		else if (errno == 0)
			errx_msg("kcsmuxd closed the connection without a "
				 "reply");
		else
			errx_msg("reading from %s: %s", x->sock,
				 strerror(errno));
		goto fail;
	}
	st = ctl_hdr_decode(raw, &r->h);
	if (st == CTL_E_PROTO) {
		errx_msg("%s does not speak the kcsmux control protocol "
			 "(magic %08x, length %u)",
			 x->sock, r->h.magic, r->h.len);
		goto fail;
	}
	if ((r->payload = malloc((size_t)r->h.len + 1)) == NULL) {
		errx_msg("out of memory");
		goto fail;
	}
	if (read_all(x->fd, r->payload, r->h.len) < 0) {
		errx_msg("reading from %s: %s", x->sock,
			 errno ? strerror(errno) : "connection closed");
		goto fail;
	}
	r->payload[r->h.len] = '\0';
	if ((kv_reply || r->h.status != CTL_OK) &&
	    ctl_kv_parse(r->payload, r->h.len, &r->kv, err, sizeof(err)) < 0) {
		if (st == CTL_E_VERSION)
			errx_msg("kcsmuxctl protocol %d, daemon speaks %u",
				 CTL_VERSION, r->h.version);
		else
			errx_msg("bad reply from kcsmuxd: %s", err);
		goto fail;
	}
	if (r->h.status != CTL_OK) {
		print_errors(r);
		if (r->h.status == CTL_E_VERSION)
			ctl_disconnect(x);
		reply_free(r);
		return -1;
	}
	if (st == CTL_E_VERSION) {
		errx_msg("kcsmuxctl protocol %d, daemon speaks %u", CTL_VERSION,
			 r->h.version);
		goto fail;
	}
	if ((r->h.type & (uint16_t)~CTL_REPLY) != type ||
	    !(r->h.type & CTL_REPLY)) {
		errx_msg("kcsmuxd answered with %s to %s",
			 ctl_type_name(r->h.type, tb, sizeof(tb)),
			 ctl_type_name(type, err, sizeof(err)));
		goto fail;
	}
	return 0;
fail:
	ctl_disconnect(x);
	reply_free(r);
	return -1;
}

/* ---- printers ---- */

static const char *get(const struct reply *r, size_t s, size_t e,
		       const char *key)
{
	const char *v = ctl_kv_find(&r->kv, s, e, key);

	return v != NULL ? v : "-";
}

static double num(const struct reply *r, size_t s, size_t e, const char *key)
{
	const char *v = ctl_kv_find(&r->kv, s, e, key);

	return v != NULL ? strtod(v, NULL) : 0;
}

/* The NODE column: as wide as the longest name (at least "NODE"). */
static int name_width(const struct reply *r)
{
	size_t s, e = 0, w = 4, l;

	while (ctl_kv_record(&r->kv, "node", e, &s, &e)) {
		l = strlen(get(r, s, e, "node"));
		if (l > w)
			w = l;
	}
	return (int)w;
}

/*
 * A node's budget in the config's units: "-" without one, else the budget
 * (% of one CPU), and how much of it the node uses now (%).
 */
static void budget_cols(const struct reply *r, size_t s, size_t e, char *budget,
			size_t blen, char *used, size_t ulen)
{
	const char *b = get(r, s, e, "cpu_budget_pct");

	if (strcmp(b, "none") == 0 || strcmp(b, "-") == 0) {
		snprintf(budget, blen, "-");
		snprintf(used, ulen, "-");
		return;
	}
	snprintf(budget, blen, "%g%%", strtod(b, NULL));
	snprintf(used, ulen, "%s%%", get(r, s, e, "budget_used_pct"));
}

static void print_list(FILE *f, const struct reply *r)
{
	size_t s, e = 0;
	char preset[40], poll[40], queue[32], budget[32], used[32];
	int w = name_width(r);

	fprintf(f,
		"%-*s %-13s %9s %11s %4s %7s %8s %5s %7s %7s %8s %8s "
		"%7s %6s %6s %8s\n",
		w, "NODE", "PRESET", "BUSY_US", "POLL_US", "CLI", "QUEUE",
		"REQS", "ERR", "P50_US", "P99_US", "CPU_%", "BUDGET", "USED",
		"CHEAP", "HELD", "DMN_US/R");
	while (ctl_kv_record(&r->kv, "node", e, &s, &e)) {
		snprintf(preset, sizeof(preset), "%s%s", get(r, s, e, "preset"),
			 strcmp(get(r, s, e, "custom"), "yes") == 0 ? "+" : "");
		snprintf(poll, sizeof(poll), "%s-%s",
			 get(r, s, e, "policy.poll_us"),
			 get(r, s, e, "policy.poll_max_us"));
		snprintf(queue, sizeof(queue), "%s/%s", get(r, s, e, "queue"),
			 get(r, s, e, "queue_max"));
		budget_cols(r, s, e, budget, sizeof(budget), used,
			    sizeof(used));
		fprintf(f,
			"%-*s %-13s %9s %11s %4s %7s %8s %5s %7s %7s %8.3f "
			"%8s %7s %6s %6s %8.1f\n",
			w, get(r, s, e, "node"), preset,
			get(r, s, e, "policy.max_busy_us"), poll,
			get(r, s, e, "clients"), queue,
			get(r, s, e, "requests"), get(r, s, e, "errors"),
			get(r, s, e, "latency_p50_us"),
			get(r, s, e, "latency_p99_us"),
			num(r, s, e, "cpu_used_pct"), budget, used,
			get(r, s, e, "cheapened"), get(r, s, e, "held"),
			num(r, s, e, "daemon_cpu_ns_per_req") / 1e3);
	}
}

static void print_stats(FILE *f, const struct reply *r)
{
	size_t s, e = 0;
	char budget[32], used[32];
	int w = name_width(r);

	fprintf(f,
		"%-*s %8s %8s %5s %5s %5s %7s %7s %7s %7s %7s %9s %9s "
		"%8s %8s %7s %6s %6s %8s\n",
		w, "NODE", "REQS", "DONE", "ERR", "DENY", "BUSY", "P50_US",
		"P90_US", "P99_US", "MAX_US", "WAIT99", "CPU_US/R", "SPIN_US/R",
		"CPU_%", "BUDGET", "USED", "CHEAP", "HELD", "DMN_US/R");
	while (ctl_kv_record(&r->kv, "node", e, &s, &e)) {
		budget_cols(r, s, e, budget, sizeof(budget), used,
			    sizeof(used));
		fprintf(f,
			"%-*s %8s %8s %5s %5s %5s %7s %7s %7s %7s %7s "
			"%9.1f %9.1f %8.3f %8s %7s %6s %6s %8.1f\n",
			w, get(r, s, e, "node"), get(r, s, e, "requests"),
			get(r, s, e, "completed"), get(r, s, e, "errors"),
			get(r, s, e, "denied"), get(r, s, e, "busy"),
			get(r, s, e, "latency_p50_us"),
			get(r, s, e, "latency_p90_us"),
			get(r, s, e, "latency_p99_us"),
			get(r, s, e, "latency_max_us"),
			get(r, s, e, "queue_wait_p99_us"),
			num(r, s, e, "cpu_ns_per_req") / 1e3,
			num(r, s, e, "spin_ns_per_req") / 1e3,
			num(r, s, e, "cpu_used_pct"), budget, used,
			get(r, s, e, "cheapened"), get(r, s, e, "held"),
			num(r, s, e, "daemon_cpu_ns_per_req") / 1e3);
	}
}

/* A node's mean latency since start in us, or "-" before any. */
static void mean_all(const struct reply *r, size_t s, size_t e, char *buf,
		     size_t len)
{
	double n = num(r, s, e, "latency_count");

	if (n > 0)
		snprintf(buf, len, "%.0f",
			 num(r, s, e, "latency_sum_ns") / n / 1e3);
	else
		snprintf(buf, len, "-");
}

/* Its p99 since start, or "-" before any. */
static const char *p99_all(const struct reply *r, size_t s, size_t e)
{
	return num(r, s, e, "latency_count") > 0 ?
		       get(r, s, e, "latency_p99_us") :
		       "-";
}

/*
 * watch's second table: per node, what it did since the last round (OLD,
 * SECS ago; NULL in the first round), beside its figures since start.
 * A node that was not in OLD, or whose counters went back (the daemon
 * restarted), shows "-".
 */
static void print_window(FILE *f, const struct reply *old,
			 const struct reply *r, double secs)
{
	size_t s, e = 0, os, oe;
	struct ctl_window win;
	struct ctl_rec ro = { NULL, 0, 0 }, rn = { &r->kv, 0, 0 };
	char all[32];
	int w = name_width(r);
	bool found;

	if (old == NULL)
		fprintf(f, "\nper interval: from the next round on\n");
	else
		fprintf(f,
			"\nthe last %.2f s (REQS to P99_US), beside since "
			"start (*_ALL):\n",
			secs);
	fprintf(f, "%-*s %8s %9s %8s %5s %8s %8s %9s %8s\n", w, "NODE", "REQS",
		"REQ/S", "DONE", "ERR", "MEAN_US", "P99_US", "MEAN_ALL",
		"P99_ALL");
	if (old != NULL)
		ro.l = &old->kv;
	while (ctl_kv_record(&r->kv, "node", e, &s, &e)) {
		rn.from = s;
		rn.to = e;
		mean_all(r, s, e, all, sizeof(all));
		found = false;
		oe = 0;
		while (old != NULL &&
		       ctl_kv_record(&old->kv, "node", oe, &os, &oe)) {
			if (strcmp(get(old, os, oe, "node"),
				   get(r, s, e, "node")) == 0) {
				ro.from = os;
				ro.to = oe;
				found = ctl_window(&ro, &rn, secs, &win) == 0;
				break;
			}
		}
		if (found)
			fprintf(f,
				"%-*s %8llu %9.1f %8llu %5llu %8llu %8llu "
				"%9s %8s\n",
				w, get(r, s, e, "node"),
				(unsigned long long)win.requests, win.rate,
				(unsigned long long)win.completed,
				(unsigned long long)win.errors,
				(unsigned long long)((win.mean_ns + 500) /
						     1000),
				(unsigned long long)((win.p99_ns + 500) / 1000),
				all, p99_all(r, s, e));
		else
			fprintf(f, "%-*s %8s %9s %8s %5s %8s %8s %9s %8s\n", w,
				get(r, s, e, "node"), "-", "-", "-", "-", "-",
				"-", all, p99_all(r, s, e));
	}
}

/* ---- commands ---- */

/* A command's -j (the only option of status, list and show); the
 * operands start at argv[optind]. */
static bool json_opt(int argc, char **argv)
{
	bool json = false;

	optind = 0;
	while (getopt(argc, argv, "+j") == 'j')
		json = true;
	return json;
}

/* Send TYPE with NODE first (if any) and "json=yes"; print the reply's
 * JSON as it is. */
static int json_request(struct ctx *x, uint16_t type, const char *node)
{
	struct ctl_buf b;
	struct reply r;
	int rv = EXIT_FAIL;

	ctl_buf_init(&b);
	if (node != NULL)
		ctl_kv_add(&b, "node", node);
	ctl_kv_add(&b, "json", "yes");
	if (b.oom) {
		errx_msg("out of memory");
	} else if (request(x, type, &b, false, &r) == 0) {
		fputs(r.payload, stdout);
		reply_free(&r);
		rv = EXIT_OK;
	}
	ctl_buf_free(&b);
	return rv;
}

static int cmd_status(struct ctx *x, int argc, char **argv)
{
	static const char *const labels[][2] = {
		{ "version", "kcsmuxd" },
		{ "pid", "pid" },
		{ "uptime_s", "uptime (s)" },
		{ "config", "configuration" },
		{ "last_reload", "last reload" },
		{ "last_reload_error", "  its error" },
		{ "reloads", "reloads" },
		{ "reload_failures", "  failed" },
		{ "user", "running as" },
		{ "sandbox", "seccomp" },
		{ "backend", "backend" },
		{ "device", "device" },
		{ "bmc", "BMC" },
		{ "bmc_silent_s", "  silent for (s)" },
		{ "bmc_silences", "  times silent" },
		{ "bmc_identity", "  identity" },
		{ "bmc_device_id", "  device id" },
		{ "bmc_device_revision", "  revision" },
		{ "bmc_firmware", "  firmware" },
		{ "bmc_ipmi_version", "  IPMI version" },
		{ "bmc_manufacturer_id", "  manufacturer" },
		{ "bmc_product_id", "  product" },
		{ "hosed", "hosed" },
		{ "kcs_errors", "KCS errors" },
		{ "retries", "KCS retries" },
		{ "completions", "completions" },
		{ "inflight", "in flight" },
		{ "nodes", "nodes" },
		{ "clients", "open files" },
	};
	struct reply r;
	const char *v;
	size_t i;

	if (json_opt(argc, argv))
		return json_request(x, CTL_STATUS, NULL);
	if (request(x, CTL_STATUS, NULL, true, &r) < 0)
		return EXIT_FAIL;
	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
		v = ctl_kv_find(&r.kv, 0, r.kv.n, labels[i][0]);
		if (v == NULL || (*v == '\0' && labels[i][1][0] == ' '))
			continue;
		if (strcmp(labels[i][0], "bmc_silent_s") == 0 &&
		    strcmp(get(&r, 0, r.kv.n, "bmc"), "silent") != 0)
			continue;
		printf("%-16s %s\n", labels[i][1], v);
	}
	reply_free(&r);
	return EXIT_OK;
}

static int cmd_list(struct ctx *x, int argc, char **argv)
{
	struct reply r;

	if (json_opt(argc, argv)) {
		if (request(x, CTL_STATS, NULL, false, &r) < 0)
			return EXIT_FAIL;
		fputs(r.payload, stdout);
		reply_free(&r);
		return EXIT_OK;
	}
	if (request(x, CTL_LIST, NULL, true, &r) < 0)
		return EXIT_FAIL;
	print_list(stdout, &r);
	/* For people only: scripts (the bash completion's node names)
	 * take every line after the header for a node. */
	if (isatty(STDOUT_FILENO))
		printf("(P50_US, P99_US: since kcsmuxd started; per interval: "
		       "%s watch)\n",
		       prog);
	reply_free(&r);
	return EXIT_OK;
}

static int cmd_show(struct ctx *x, int argc, char **argv)
{
	struct ctl_buf b;
	struct reply r;
	size_t i;
	int rv = EXIT_FAIL;
	bool json = json_opt(argc, argv);

	argv += optind;
	if (json)
		return json_request(x, CTL_SHOW, argv[0]);
	ctl_buf_init(&b);
	if (ctl_req_show(&b, argv[0]) < 0 || b.oom) {
		errx_msg("show: cannot encode the request");
		goto out;
	}
	if (request(x, CTL_SHOW, &b, true, &r) < 0)
		goto out;
	for (i = 0; i < r.kv.n; i++)
		printf("%s=%s\n", r.kv.kv[i].key, r.kv.kv[i].value);
	reply_free(&r);
	rv = EXIT_OK;
out:
	ctl_buf_free(&b);
	return rv;
}

static int cmd_set(struct ctx *x, int argc, char **argv)
{
	struct ctl_buf b;
	struct reply r;
	char err[128];
	size_t i;
	bool changed = false;
	int rv = EXIT_FAIL;

	ctl_buf_init(&b);
	if (ctl_req_set(&b, argv[0], argv + 1, (size_t)(argc - 1), err,
			sizeof(err)) < 0) {
		errx_msg("set: %s", err);
		ctl_buf_free(&b);
		return EXIT_USAGE;
	}
	if (b.oom) {
		errx_msg("out of memory");
		goto out;
	}
	if (request(x, CTL_SET, &b, true, &r) < 0)
		goto out;
	for (i = 0; i < r.kv.n; i++) {
		if (strcmp(r.kv.kv[i].key, "changed") == 0) {
			printf("%s: %s\n", argv[0], r.kv.kv[i].value);
			changed = true;
		} else if (strcmp(r.kv.kv[i].key, "note") == 0)
			printf("%s: note: %s\n", argv[0], r.kv.kv[i].value);
	}
	if (!changed)
		printf("%s: no change\n", argv[0]);
	reply_free(&r);
	rv = EXIT_OK;
out:
	ctl_buf_free(&b);
	return rv;
}

static int cmd_stats(struct ctx *x, int argc, char **argv)
{
	struct reply r;
	bool json = false;
	int c;

	optind = 0;
	while ((c = getopt(argc, argv, "+j")) != -1) {
		if (c != 'j')
			return EXIT_USAGE;
		json = true;
	}
	if (json) {
		if (request(x, CTL_STATS, NULL, false, &r) < 0)
			return EXIT_FAIL;
		fputs(r.payload, stdout);
	} else {
		if (request(x, CTL_LIST, NULL, true, &r) < 0)
			return EXIT_FAIL;
		print_stats(stdout, &r);
	}
	reply_free(&r);
	return EXIT_OK;
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmd_watch(struct ctx *x, int argc, char **argv)
{
	struct sigaction sa;
	struct timespec ts;
	struct reply r, old;
	double at, old_at = 0;
	bool have_old = false;
	double sec = 2;
	unsigned long count = 0, i;
	char *end, when[32];
	time_t now;
	bool tty = isatty(STDOUT_FILENO);
	int c, rv = EXIT_OK;

	optind = 0;
	while ((c = getopt(argc, argv, "+n:c:")) != -1) {
		switch (c) {
		case 'n':
			errno = 0;
			sec = strtod(optarg, &end);
			if (errno || end == optarg || *end != '\0' ||
			    !(sec >= 0.1 && sec <= 86400)) {
				errx_msg("watch: -n takes seconds from 0.1 to "
					 "86400, not \"%s\"",
					 optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			errno = 0;
			count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end != '\0' ||
			    count == 0 || optarg[0] == '-') {
				errx_msg("watch: -c takes a count >= 1, not "
					 "\"%s\"",
					 optarg);
				return EXIT_USAGE;
			}
			break;
		default:
			return EXIT_USAGE;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop; /* no SA_RESTART: wake nanosleep */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; !stop && (count == 0 || i < count); i++) {
		if (i > 0) {
			ts.tv_sec = (time_t)sec;
			ts.tv_nsec = (long)((sec - (double)ts.tv_sec) * 1e9);
			while (!stop && nanosleep(&ts, &ts) < 0 &&
			       errno == EINTR)
				;
			if (stop)
				break;
		}
		now = time(NULL);
		strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
		/* Clear the screen only on a terminal: piped or logged,
		 * rounds follow each other as plain text. */
		if (tty)
			printf("\033[H\033[2J%s watch: %s, every %.1f s, %s "
			       "(^C quits)\n\n",
			       prog, x->sock, sec, when);
		else
			printf("%s%s watch: %s, every %.1f s, %s\n",
			       i > 0 ? "\n" : "", prog, x->sock, sec, when);
		fflush(stdout);
		/* Errors go to stderr and the next round tries again, on a
		 * new connection (the daemon closes idle ones); the exit
		 * status is the last round's. */
		if (request(x, CTL_LIST, NULL, true, &r) == 0) {
			at = mono_s();
			print_list(stdout, &r);
			print_window(stdout, have_old ? &old : NULL, &r,
				     at - old_at);
			if (have_old)
				reply_free(&old);
			old = r;
			old_at = at;
			have_old = true;
			rv = EXIT_OK;
		} else {
			rv = x->unreachable ? EXIT_NOT_RUNNING : EXIT_FAIL;
		}
		ctl_disconnect(x);
		fflush(stdout);
	}
	if (have_old)
		reply_free(&old);
	return rv;
}

static int cmd_reload(struct ctx *x, int argc, char **argv)
{
	struct ctl_buf b;
	struct reply r;
	bool dry = false, any = false;
	const char *k, *v;
	size_t i;
	int rv;

	optind = 0;
	while (getopt_long(argc, argv, "+n", reload_longopts, NULL) == 'n')
		dry = true;
	ctl_buf_init(&b);
	if (dry)
		ctl_kv_add(&b, "dry_run", "yes");
	if (b.oom) {
		ctl_buf_free(&b);
		errx_msg("out of memory");
		return EXIT_FAIL;
	}
	rv = request(x, CTL_RELOAD, dry ? &b : NULL, true, &r);
	ctl_buf_free(&b);
	if (rv < 0)
		return EXIT_FAIL;
	for (i = 0; i < r.kv.n; i++) {
		k = r.kv.kv[i].key;
		v = r.kv.kv[i].value;
		if (strcmp(k, "note") == 0) {
			printf("%s\n", v);
			continue;
		}
		if (strcmp(k, "add") == 0)
			printf("would add node %s\n", v);
		else if (strcmp(k, "remove") == 0)
			printf("would remove node %s\n", v);
		else if (strcmp(k, "change") == 0)
			printf("would change %s\n", v);
		else
			continue;
		any = true;
	}
	if (dry && !any)
		printf("nothing would change\n");
	reply_free(&r);
	return EXIT_OK;
}

static int cmd_check(struct ctx *x, int argc, char **argv)
{
	struct ctl_buf b, data;
	struct reply r;
	const char *verdict;
	int i, rv;

	ctl_buf_init(&b);
	ctl_buf_init(&data);
	ctl_kv_add(&b, "node", argv[0]);
	ctl_kv_addf(&b, "netfn", "%d", byte_arg(argv[1]));
	ctl_kv_addf(&b, "cmd", "%d", byte_arg(argv[2]));
	for (i = 3; i < argc; i++)
		ctl_buf_printf(&data, "%s%d", i > 3 ? " " : "",
			       byte_arg(argv[i]));
	if (data.data != NULL)
		ctl_kv_add(&b, "data", data.data);
	ctl_buf_free(&data);
	if (b.oom) {
		ctl_buf_free(&b);
		errx_msg("out of memory");
		return EXIT_FAIL;
	}
	rv = request(x, CTL_CHECK, &b, true, &r);
	ctl_buf_free(&b);
	if (rv < 0)
		return EXIT_FAIL;
	verdict = get(&r, 0, r.kv.n, "verdict");
	printf("%s: %s %s by %s\n", argv[0], get(&r, 0, r.kv.n, "command"),
	       verdict, get(&r, 0, r.kv.n, "rule"));
	rv = strcmp(verdict, "allowed") == 0 ? EXIT_OK : EXIT_DENIED;
	reply_free(&r);
	return rv;
}

static int cmd_help(struct ctx *x, int argc, char **argv)
{
	const struct cmd *c;

	(void)x;
	if (argc == 0) {
		usage(stdout, true);
		return EXIT_OK;
	}
	if ((c = cmd_lookup(argv[0])) == NULL)
		return EXIT_USAGE;
	print_cmd(stdout, c, true);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct ctx x = { .fd = -1 };
	const struct cmd *c;
	int opt, rv, first, nopt;

	x.sock = getenv("KCSMUX_SOCKET");
	if (x.sock == NULL || *x.sock == '\0')
		x.sock = CTL_SOCKET_DEFAULT;
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};

	while ((opt = getopt_long(argc, argv, "+s:hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			x.sock = optarg;
			break;
		case 'h':
			usage(stdout, true);
			return EXIT_OK;
		case 'V':
			printf("kcsmuxctl %s (protocol %d)\n", KCSMUX_VERSION,
			       CTL_VERSION);
			return EXIT_OK;
		default:
			usage(stderr, false);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr, false);
		return EXIT_USAGE;
	}
	if ((c = cmd_lookup(argv[optind])) == NULL)
		return EXIT_USAGE;
	argc -= optind;
	argv += optind;
	/* The command's own options (getopt sees argv[0] as the name). */
	first = 1;
	if (*c->optstring != '\0') {
		char os[16];

		snprintf(os, sizeof(os), "+:%s", c->optstring);
		opterr = 0;
		optind = 0;
		while ((opt = getopt_long(argc, argv, os, c->longopts, NULL)) !=
		       -1) {
			if (opt == '?' && optopt == 0) {
				errx_msg("%s: unknown option %s", c->name,
					 argv[optind - 1]);
				fprintf(stderr, "usage:\n");
				print_cmd(stderr, c, false);
				return EXIT_USAGE;
			}
			if (opt == '?' || opt == ':') {
				errx_msg("%s: %s -%c", c->name,
					 opt == '?' ? "unknown option" :
						      "missing value for",
					 optopt);
				fprintf(stderr, "usage:\n");
				print_cmd(stderr, c, false);
				return EXIT_USAGE;
			}
		}
		first = optind;
	} else if (argc > 1 && argv[1][0] == '-' && argv[1][1] != '\0') {
		errx_msg("%s: unknown option %s", c->name, argv[1]);
		return EXIT_USAGE;
	}
	nopt = first;
	if (check_args(c, argc - nopt, argv + nopt) < 0)
		return EXIT_USAGE;
	signal(SIGPIPE, SIG_IGN);
	/* Commands with options parse them again themselves; the rest get
	 * their operands. */
	if (*c->optstring != '\0')
		rv = c->run(&x, argc, argv);
	else
		rv = c->run(&x, argc - 1, argv + 1);
	ctl_disconnect(&x);
	if (rv == EXIT_FAIL && x.unreachable)
		rv = EXIT_NOT_RUNNING;
	return rv;
}
