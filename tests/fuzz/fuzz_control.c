// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the control protocol (include/kcsmux/control.h):
 * fused/control/ as kcsmuxd runs it, and fused/ctlproto/control_proto.c as both
 * sides use it.
 *
 * Byte 0 selects what the rest is:
 *
 *  0  bytes a client sends to the control socket. A daemon of two
 *     hand-built nodes (no CUSE, no backend; the stubs below stand in for
 *     xact.c, reload.c and kcsmuxd.c) listens in a libevent loop; each
 *     input is one connection: the bytes, then end of file. The fuzzer
 *     splits the input into frames as the protocol says and knows what
 *     must come back: one reply per complete frame, in order, of the
 *     frame's type with CTL_REPLY, the status its checks call for, a kv
 *     payload (JSON for STATS), until a bad magic or size (no reply) or
 *     another version (CTL_E_VERSION) ends the connection, which the
 *     daemon must then close. A SET's changes are undone after each input.
 *     Byte 1 bit 0 makes the reload stub fail with a two-line error.
 *  1  a reply as kcsmuxctl reads it (byte 1 unused): header decode and
 *     encode round trip, kv payload parsed and written back byte for
 *     byte, records and lookups as its printers use them, and watch's
 *     window between each two records (the counts it gives are the
 *     histograms' differences).
 *  2  the builders: NUL-separated strings and numbers turned into SHOW and
 *     SET requests, node records (kv and JSON, with or without the latency
 *     histogram) and JSON strings, each parsed back (kv: the histogram
 *     read back the same, an empty window from a record to itself) or
 *     validated (JSON) and compared.
 *
 * Seeds: tests/fuzz/corpus/control/, dictionary: tests/fuzz/control.dict.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <kcsmux/control.h>

#include "control/control.h"
#include "json_valid.h"
#include "kcsmuxd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

#define MAX_REQUEST	(64 * 1024)	/* control_socket.c's CTL_MAX_REQUEST */
#define LOOP_CAP	10000

/* ---- control/'s calls to the scheduler and to reload.c, faked (linked
 * with --wrap; the libraries' own stay for everyone else) ---- */

static bool reload_fails;

void __wrap_xact_kick(struct daemon *d);
int __wrap_daemon_reload(struct daemon *d, char **cause);

void __wrap_xact_kick(struct daemon *d)
{
	(void)d;
}

int __wrap_daemon_reload(struct daemon *d, char **cause)
{
	(void)d;
	if (!reload_fails)
		return 0;
	if (cause != NULL)
		*cause = strdup("t.conf:3: unknown key 'bogus'\n"
				"t.conf:4: another");
	return -1;
}

/* ---- the daemon ---- */

static struct daemon d;
static struct node nodes[2];
static char dir[64], sock_path[108];

static void daemon_down(void)
{
	control_fini(&d);
	unlink(sock_path);
	rmdir(dir);
}

static void daemon_up(void)
{
	char conf[256], *cause = NULL;
	size_t i;

	strcpy(dir, "/tmp/kcsmux-fuzz-XXXXXX");
	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(sock_path, sizeof(sock_path), "%s/ctl.sock", dir);
	/* Our own group is the admins': SET and RELOAD work as any user. */
	snprintf(conf, sizeof(conf), "[global]\ncontrol_socket = %s\n"
		 "admin_group = %u\n[node ipmi1]\n[node ipmi2]\n"
		 "policy = monitor\naccess = readonly\nallow = 0x30\n",
		 sock_path, (unsigned int)getegid());
	if (config_load_string(&d.cfg, conf, "fuzz.conf", &cause) != 0)
		abort();
	d.base = event_base_new();
	d.cfg_path = "fuzz.conf";
	LIST_INIT(&d.nodes);
	sched_init(&d.sched, 0);
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
	log_init(true, LOG_CRIT);	/* quiet: bad requests are logged */
	if (d.base == NULL || control_init(&d, &cause) != 0)
		abort();
	atexit(daemon_down);
}

/* What SET changed goes back, so that every input meets the same daemon. */
static void daemon_reset(void)
{
	for (size_t i = 0; i < 2; i++) {
		nodes[i].conf = d.cfg.nodes[i];
		sched_flow_update(&d.sched, &nodes[i].flow, &nodes[i].conf.pol,
				  now_ns());
	}
}

/* ---- replies ---- */

struct expect {
	uint16_t type;		/* the reply's */
	uint32_t st_mask;	/* 1 << status allowed */
	bool json;		/* json=yes asked: an OK reply is JSON */
};

static bool kv_parses(const char *p, size_t len, struct ctl_kvlist *l)
{
	char err[128];

	return ctl_kv_parse(p, len, l, err, sizeof(err)) == 0;
}

/* SHOW (after its node) and STATUS answer JSON for json=yes. */
static bool json_asked(const struct ctl_kvlist *l, size_t from)
{
	const char *v = ctl_kv_find(l, from, l->n, "json");

	return v != NULL && strcmp(v, "yes") == 0;
}

/* A RELOAD's arguments are only dry_run=yes lines (none: a real reload). */
static bool only_dry_run(const struct ctl_kvlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->kv[i].key, "dry_run") ||
		    strcmp(l->kv[i].value, "yes"))
			return false;
	return true;
}

/*
 * LEASE (control_cmds.c do_lease): a payload that does not parse, or an
 * op other than list, take and release, is malformed; list answers; take
 * and release may also name no node, bad classes or seconds, a class
 * another node holds, or come from a caller who is not an admin.
 */
static uint32_t lease_expect(const char *p, size_t len)
{
	struct ctl_kvlist l;
	const char *op;
	uint32_t m;

	if (!kv_parses(p, len, &l))
		return 1U << CTL_E_PROTO;
	op = ctl_kv_find(&l, 0, l.n, "op");
	if (op && !strcmp(op, "list"))
		m = 1U << CTL_OK;
	else if (!op || (strcmp(op, "take") && strcmp(op, "release")))
		m = 1U << CTL_E_PROTO;
	else
		m = 1U << CTL_OK | 1U << CTL_E_NOENT | 1U << CTL_E_INVAL |
		    1U << CTL_E_BUSY | 1U << CTL_E_PERM;
	ctl_kvlist_free(&l);
	return m;
}

static uint16_t req_type(uint16_t t)
{
	return t & (uint16_t)~CTL_REPLY;
}

/*
 * What the daemon must answer to IN: the expected replies in order, and
 * whether it then closes the connection itself (bad frame or version).
 */
static size_t plan(const uint8_t *in, size_t n, struct expect *e, size_t max,
		   bool *closes)
{
	size_t count = 0, pos = 0;
	struct ctl_kvlist l;
	struct ctl_hdr h;
	enum ctl_status st;

	*closes = false;
	while (n - pos >= CTL_HDR_LEN && count < max) {
		st = ctl_hdr_decode(in + pos, &h);
		if (st == CTL_E_PROTO || h.len > MAX_REQUEST) {
			*closes = true;
			break;
		}
		if (n - pos - CTL_HDR_LEN < h.len)
			break;		/* incomplete: no answer */
		e[count].type = (uint16_t)(req_type(h.type) | CTL_REPLY);
		e[count].json = false;
		if (st == CTL_E_VERSION) {
			e[count++].st_mask = 1U << CTL_E_VERSION;
			*closes = true;
			break;
		}
		pos += CTL_HDR_LEN;
		if (h.type & CTL_REPLY)
			e[count].st_mask = 1U << CTL_E_TYPE;
		else if ((h.type == CTL_LIST || h.type == CTL_STATS) &&
			 h.len != 0)
			e[count].st_mask = 1U << CTL_E_PROTO;
		else if (h.type == CTL_LIST || h.type == CTL_STATS)
			e[count].st_mask = 1U << CTL_OK;
		else if (h.type == CTL_RELOAD || h.type == CTL_STATUS) {
			/* RELOAD: none or dry_run=yes; STATUS: any keys */
			if (!kv_parses((const char *)in + pos, h.len, &l))
				e[count].st_mask = 1U << CTL_E_PROTO;
			else if (h.type == CTL_STATUS) {
				e[count].st_mask = 1U << CTL_OK;
				e[count].json = json_asked(&l, 0);
			}
			else if (!only_dry_run(&l))
				e[count].st_mask = 1U << CTL_E_PROTO;
			else if (l.n > 0) /* the plan, or why there is none */
				e[count].st_mask = 1U << CTL_OK |
						   1U << CTL_E_INVAL;
			else
				e[count].st_mask =
					1U << (reload_fails ? CTL_E_INVAL
							    : CTL_OK);
			ctl_kvlist_free(&l);
		} else if (h.type == CTL_SHOW || h.type == CTL_SET ||
			   h.type == CTL_CHECK) {
			if (!kv_parses((const char *)in + pos, h.len, &l))
				e[count].st_mask = 1U << CTL_E_PROTO;
			else if (l.n == 0 || strcmp(l.kv[0].key, "node"))
				e[count].st_mask = 1U << CTL_E_PROTO;
			else if (h.type == CTL_SHOW) {
				e[count].st_mask = 1U << CTL_OK |
						   1U << CTL_E_NOENT;
				e[count].json = json_asked(&l, 1);
			}
			else
				e[count].st_mask = 1U << CTL_OK |
						   1U << CTL_E_NOENT |
						   1U << CTL_E_INVAL;
			ctl_kvlist_free(&l);
		} else if (h.type == CTL_LEASE) {
			e[count].st_mask = lease_expect((const char *)in + pos,
							h.len);
		} else
			e[count].st_mask = 1U << CTL_E_TYPE;
		count++;
		pos += h.len;
	}
	return count;
}

/* One reply frame the daemon sent, against what was expected. */
static void check_reply(const struct ctl_hdr *h, const char *p,
			const struct expect *e)
{
	struct ctl_kvlist l;
	size_t s, end = 0, recs = 0;

	CHECK(h->type == e->type);
	CHECK(h->status < 32 && (e->st_mask & 1U << h->status));
	if (h->status == CTL_OK &&
	    (h->type == (CTL_STATS | CTL_REPLY) || e->json)) {
		CHECK(json_valid(p, h->len));
		return;
	}
	CHECK(kv_parses(p, h->len, &l));
	if (h->status != CTL_OK) {
		/* error= lines, and the node= lines naming the nodes */
		CHECK(l.n >= 1 && strcmp(l.kv[0].key, "error") == 0);
		for (s = 0; s < l.n; s++)
			CHECK(!strcmp(l.kv[s].key, "error") ||
			      !strcmp(l.kv[s].key, "node"));
	} else if (h->type == (CTL_LIST | CTL_REPLY)) {
		while (ctl_kv_record(&l, "node", end, &s, &end))
			recs++;
		CHECK(recs == 2);
		CHECK(ctl_kv_find(&l, 0, l.n, "protocol") != NULL);
	} else if (h->type == (CTL_SHOW | CTL_REPLY)) {
		CHECK(l.n > 0 && strcmp(l.kv[0].key, "node") == 0);
		CHECK(ctl_kv_find(&l, 0, l.n, "policy.poll_us") != NULL);
	}
	ctl_kvlist_free(&l);
}

/* Frames received so far: checked, and how many. */
static size_t check_replies(const uint8_t *buf, size_t n,
			    const struct expect *e, size_t ne)
{
	size_t count = 0, pos = 0;
	struct ctl_hdr h;

	while (n - pos >= CTL_HDR_LEN) {
		CHECK(ctl_hdr_decode(buf + pos, &h) == CTL_OK);
		if (n - pos - CTL_HDR_LEN < h.len)
			break;
		CHECK(count < ne);
		check_reply(&h, (const char *)buf + pos + CTL_HDR_LEN,
			    &e[count]);
		count++;
		pos += CTL_HDR_LEN + h.len;
	}
	return count;
}

/* One turn of the event loop, then what the daemon sent; true at EOF. */
static bool serve(int fd, uint8_t **buf, size_t *got, size_t *cap)
{
	ssize_t r;

	event_base_loop(d.base, EVLOOP_NONBLOCK);
	for (;;) {
		if (*cap - *got < 4096) {
			*cap = *cap ? 2 * *cap : 8192;
			*buf = realloc(*buf, *cap);
			CHECK(*buf != NULL);
		}
		r = read(fd, *buf + *got, *cap - *got);
		if (r <= 0)
			break;
		*got += (size_t)r;
	}
	if (r == 0)
		return true;
	CHECK(errno == EAGAIN || errno == EWOULDBLOCK);
	return false;
}

static void fuzz_daemon(const uint8_t *in, size_t n, uint8_t flags)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct expect e[256];
	uint8_t *buf = NULL;
	size_t ne, got = 0, cap = 0, i;
	bool closes, eof = false;
	int fd;

	reload_fails = flags & 1;
	ne = plan(in, n, e, sizeof(e) / sizeof(e[0]), &closes);
	if (ne == sizeof(e) / sizeof(e[0]))
		return;		/* more requests than we follow */

	strcpy(sun.sun_path, sock_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0);
	CHECK(connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0);
	CHECK(n == 0 || write(fd, in, n) == (ssize_t)n);
	CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0);

	/*
	 * Serve until every expected reply is here (or the daemon hung up),
	 * then end the connection if the daemon is not ending it, and see it
	 * closed: a connection the daemon forgets would show up here (and as
	 * a leak).
	 */
	for (i = 0; !eof && check_replies(buf, got, e, ne) < ne; i++) {
		CHECK(i < LOOP_CAP);
		eof = serve(fd, &buf, &got, &cap);
	}
	if (!eof && !closes)
		shutdown(fd, SHUT_WR);
	for (i = 0; !eof; i++) {
		CHECK(i < LOOP_CAP);
		eof = serve(fd, &buf, &got, &cap);
	}
	CHECK(check_replies(buf, got, e, ne) == ne);
	close(fd);
	free(buf);
	daemon_reset();
}

/* ---- kcsmuxctl's side ---- */

/*
 * watch's window from the record starting at OLD (its end found again)
 * to the one at [S, E), and from that one to itself: when it is given,
 * its counts are the histograms' and counters' differences.
 */
static void check_windows(const struct ctl_kvlist *l, size_t old, size_t s,
			  size_t e)
{
	struct ctl_hist ho, hn;
	struct ctl_window w;
	struct ctl_rec ro = { l, 0, 0 }, rn = { l, s, e };
	size_t os, oe;

	CHECK(ctl_kv_record(l, "node", old, &os, &oe) && os == old);
	ro.from = os;
	ro.to = oe;
	if (ctl_window(&ro, &rn, 2.0, &w) == 0) {
		CHECK(ctl_hist_get(l, os, oe, &ho) == 0);
		CHECK(ctl_hist_get(l, s, e, &hn) == 0);
		CHECK(hn.n == ho.n && hn.count >= ho.count);
		CHECK(w.completed == hn.count - ho.count);
		CHECK(w.secs == 2.0 && w.rate == (double)w.requests / 2.0);
		CHECK(w.completed || (w.mean_ns == 0 && w.p99_ns == 0));
	} else {
		CHECK(w.requests == 0 && w.completed == 0 && w.rate == 0);
	}
	if (ctl_hist_get(l, s, e, &hn) == 0) {
		CHECK(hn.n >= 1 && hn.n <= CTL_HIST_MAX);
		if (ctl_window(&rn, &rn, 1.0, &w) == 0)
			CHECK(w.requests == 0 && w.completed == 0 &&
			      w.errors == 0 && w.p99_ns == 0);
	}
	CHECK(ctl_window(&rn, &rn, 0.0, &w) == -1);
}

static void fuzz_reply(const uint8_t *in, size_t n)
{
	uint8_t raw[CTL_HDR_LEN];
	struct ctl_kvlist l;
	struct ctl_buf b;
	struct ctl_hdr h;
	enum ctl_status st;
	char err[128], tb[32];
	size_t s, e = 0, prev_end = 0, first = 0;
	const char *v;

	if (n < CTL_HDR_LEN)
		return;
	st = ctl_hdr_decode(in, &h);
	ctl_hdr_encode(raw, &h);
	CHECK(memcmp(raw, in, CTL_HDR_LEN) == 0);
	CHECK(st == CTL_OK || st == CTL_E_PROTO || st == CTL_E_VERSION);
	CHECK((st == CTL_E_PROTO) ==
	      (h.magic != CTL_MAGIC || h.len > CTL_MAX_PAYLOAD));
	CHECK(strlen(ctl_status_name(h.status)) > 0);
	v = ctl_type_name(h.type, tb, sizeof(tb));
	CHECK(v != NULL && strlen(v) < sizeof(tb));
	if (st == CTL_E_PROTO)
		return;
	in += CTL_HDR_LEN;
	n -= CTL_HDR_LEN;
	if (h.len < n)
		n = h.len;
	if (ctl_kv_parse((const char *)in, n, &l, err, sizeof(err)) != 0) {
		CHECK(memchr(err, '\0', sizeof(err)) != NULL && err[0]);
		CHECK(l.n == 0 && l.kv == NULL && l.mem == NULL);
		return;
	}
	/* Written back pair by pair: the same bytes. */
	ctl_buf_init(&b);
	for (s = 0; s < l.n; s++) {
		CHECK(ctl_key_valid(l.kv[s].key, strlen(l.kv[s].key)));
		CHECK(ctl_kv_add(&b, l.kv[s].key, l.kv[s].value) == 0);
	}
	CHECK(!b.oom && b.len == n && (n == 0 || !memcmp(b.data, in, n)));
	ctl_buf_free(&b);

	/* Records as print_list() and print_stats() walk them. */
	while (ctl_kv_record(&l, "node", e, &s, &e)) {
		CHECK(s >= prev_end && s < e && e <= l.n);
		CHECK(strcmp(l.kv[s].key, "node") == 0);
		CHECK(ctl_kv_find(&l, s, e, "node") == l.kv[s].value);
		for (size_t i = s + 1; i < e; i++)
			CHECK(strcmp(l.kv[i].key, "node") != 0);
		v = ctl_kv_find(&l, s, e, "cpu_ns_per_req");
		if (v != NULL)
			(void)strtod(v, NULL);
		check_windows(&l, prev_end ? first : s, s, e);
		if (!prev_end)
			first = s;
		prev_end = e;
	}
	CHECK(ctl_kv_find(&l, 0, SIZE_MAX, "") == NULL);
	ctl_kvlist_free(&l);
}

/* ---- builders ---- */

/* The next NUL-terminated string of the input, or "" at its end. */
static const char *next_str(const char **p, const char *end)
{
	const char *s = *p;
	const char *z;

	if (s >= end)
		return "";
	z = memchr(s, '\0', (size_t)(end - s));
	if (z == NULL)
		return NULL;	/* the last one is not terminated: unused */
	*p = z + 1;
	return s;
}

/* JSON string text back to bytes (only what ctl_json_str() writes). */
static char *json_unescape(const char *s, size_t len)
{
	char *out = malloc(len + 1), *o = out;
	size_t i;

	CHECK(out != NULL && len >= 2 && s[0] == '"' && s[len - 1] == '"');
	for (i = 1; i + 1 < len; i++) {
		if (s[i] != '\\') {
			*o++ = s[i];
			continue;
		}
		switch (s[++i]) {
		case 'n':
			*o++ = '\n';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 'u': {
			unsigned int c;

			CHECK(sscanf(s + i + 1, "%4x", &c) == 1 && c < 0x80);
			*o++ = (char)c;
			i += 4;
			break;
		}
		default:
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

static void check_json_str(const char *s)
{
	struct ctl_buf b;
	char *back;

	ctl_buf_init(&b);
	ctl_json_str(&b, s);
	CHECK(!b.oom && b.data != NULL && json_valid(b.data, b.len));
	back = json_unescape(b.data, b.len);
	CHECK(strcmp(back, s) == 0);
	free(back);
	ctl_buf_free(&b);
}

static void check_show_set(const char *node, char **set, size_t nset)
{
	static const char prefix[] = "x=1\n";
	struct ctl_kvlist l;
	struct ctl_buf b;
	char err[128];
	size_t i;
	bool ok;
	int rv;

	ctl_buf_init(&b);
	rv = ctl_req_show(&b, node);
	CHECK((rv == 0) == ctl_node_name_valid(node));
	if (rv == 0) {
		CHECK(kv_parses(b.data, b.len, &l) && l.n == 1 &&
		      !strcmp(l.kv[0].key, "node") &&
		      !strcmp(l.kv[0].value, node));
		ctl_kvlist_free(&l);
	} else
		CHECK(b.len == 0);

	/* SET after something already in the buffer: all or nothing. */
	ctl_buf_reset(&b);
	ctl_buf_add(&b, prefix, sizeof(prefix) - 1);
	ok = ctl_node_name_valid(node) && nset > 0;
	for (i = 0; i < nset; i++) {
		const char *eq = strchr(set[i], '=');
		size_t kl = eq ? (size_t)(eq - set[i]) : 0;

		ok &= eq != NULL && ctl_key_valid(set[i], kl) &&
		      !(kl == 4 && !strncmp(set[i], "node", 4)) &&
		      ctl_value_valid(eq + 1, strlen(eq + 1));
	}
	rv = ctl_req_set(&b, node, set, nset, err, sizeof(err));
	CHECK((rv == 0) == ok);
	if (rv != 0) {
		CHECK(b.len == sizeof(prefix) - 1 &&
		      !strcmp(b.data, prefix) && err[0] != '\0');
		ctl_buf_free(&b);
		return;
	}
	CHECK(kv_parses(b.data, b.len, &l) && l.n == nset + 2);
	CHECK(!strcmp(l.kv[1].key, "node") && !strcmp(l.kv[1].value, node));
	for (i = 0; i < nset; i++) {
		const char *eq = strchr(set[i], '=');
		size_t kl = eq != NULL ? (size_t)(eq - set[i]) : 0;

		CHECK(eq != NULL && strlen(l.kv[i + 2].key) == kl &&
		      !strncmp(l.kv[i + 2].key, set[i], kl) &&
		      !strcmp(l.kv[i + 2].value, eq + 1) &&
		      strcmp(l.kv[i + 2].key, "node") != 0);
	}
	ctl_kvlist_free(&l);
	ctl_buf_free(&b);
}

static uint64_t take64(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int i = 0; i < 8 && *p < end; i++, (*p)++)
		v |= (uint64_t)**p << (8 * i);
	return v;
}

static void check_node_record(const char **strs, size_t nstr,
			      const uint8_t *num, const uint8_t *end)
{
	struct ctl_client_info cl[4];
	struct ctl_node_info ni;
	struct ctl_kvlist l;
	struct ctl_window w;
	struct ctl_rec rec = { NULL, 0, 0 };
	struct ctl_hist h;
	struct ctl_buf b;
	size_t i;
	double ppm;
	uint64_t bits, bounds[CTL_NBUCKETS - 1];
	bool wrapped = false;

	memset(&ni, 0, sizeof(ni));
	memset(cl, 0, sizeof(cl));
	ni.name = nstr > 0 ? strs[0] : "n";
	ni.preset = nstr > 1 ? strs[1] : "normal";
	ni.access = nstr > 2 ? strs[2] : "all";
	for (i = 3; i + 1 < nstr && ni.npolicy < CTL_POLICY_MAX; i += 2) {
		ni.policy[ni.npolicy].key = strs[i];
		ni.policy[ni.npolicy++].value = strs[i + 1];
	}
	ni.custom = take64(&num, end) & 1;
	ni.ready = take64(&num, end) & 1;
	ni.nclients = (uint32_t)(take64(&num, end) % 5);
	for (i = 0; i < ni.nclients; i++) {
		cl[i].id = take64(&num, end);
		cl[i].pid = (int64_t)take64(&num, end);
		cl[i].uid = (uint32_t)take64(&num, end);
		cl[i].events = take64(&num, end) & 1;
	}
	ni.clients = take64(&num, end) & 1 ? cl : NULL;
	ni.requests = take64(&num, end);
	ni.completed = take64(&num, end);
	ni.cpu_ns = take64(&num, end);
	ni.spin_ns = take64(&num, end);
	ni.lat_p99_ns = take64(&num, end);
	ni.wait_max_ns = take64(&num, end);
	bits = take64(&num, end);
	memcpy(&ppm, &bits, sizeof(ppm));	/* NaN, inf, negative too */
	ni.cpu_ppm = ppm;
	/* the latency histogram: none, or buckets whose count is their
	 * sum (which may wrap: then it must not read back) */
	if (take64(&num, end) & 1) {
		for (i = 0; i < CTL_NBUCKETS - 1; i++)
			bounds[i] = (i + 1) * 1000 + (take64(&num, end) % 1000);
		ni.lat_bound_ns = bounds;
	}
	for (i = 0; i < CTL_NBUCKETS; i++) {
		bits = take64(&num, end);
		ni.lat_bucket[i] = bits >> (take64(&num, end) & 63);
		wrapped |= ni.lat_count + ni.lat_bucket[i] < ni.lat_count;
		ni.lat_count += ni.lat_bucket[i];
	}
	ni.lat_sum_ns = take64(&num, end);

	ctl_buf_init(&b);
	ctl_node_kv(&b, &ni);
	CHECK(!b.oom && kv_parses(b.data, b.len, &l));
	if (ctl_node_name_valid(ni.name))
		CHECK(l.n > 0 && !strcmp(l.kv[0].key, "node") &&
		      !strcmp(l.kv[0].value, ni.name));
	CHECK(ctl_kv_find(&l, 0, l.n, "requests") != NULL &&
	      strtoull(ctl_kv_find(&l, 0, l.n, "requests"), NULL, 10) ==
	      ni.requests);
	if (ni.lat_bound_ns == NULL || wrapped) {
		CHECK(ctl_hist_get(&l, 0, l.n, &h) == -1);
	} else {
		/* read back as written; no time passed, nothing happened */
		CHECK(ctl_hist_get(&l, 0, l.n, &h) == 0);
		CHECK(h.n == CTL_NBUCKETS && h.count == ni.lat_count &&
		      h.sum_ns == ni.lat_sum_ns);
		CHECK(!memcmp(h.bound_ns, bounds, sizeof(bounds)));
		CHECK(!memcmp(h.bucket, ni.lat_bucket, sizeof(ni.lat_bucket)));
		rec.l = &l;
		rec.to = l.n;
		CHECK(ctl_window(&rec, &rec, 1.0, &w) == 0);
		CHECK(w.requests == 0 && w.completed == 0 && w.p99_ns == 0);
	}
	ctl_kvlist_free(&l);

	ctl_buf_reset(&b);
	ctl_node_json(&b, &ni);
	CHECK(!b.oom && json_valid(b.data, b.len));
	ctl_buf_free(&b);
}

static void fuzz_builders(const uint8_t *in, size_t n)
{
	const char *p = (const char *)in, *end = p + n, *s;
	const char *strs[64];
	char *set[64];
	size_t nstr = 0, i;

	/* strings up to an empty one, then the numbers */
	while (nstr < 64 && (s = next_str(&p, end)) != NULL && *s != '\0')
		strs[nstr++] = s;
	for (i = 0; i < nstr; i++)
		check_json_str(strs[i]);
	for (i = 1; i < nstr; i++)
		set[i - 1] = (char *)strs[i];
	check_show_set(nstr ? strs[0] : "", set, nstr ? nstr - 1 : 0);
	check_node_record(strs, nstr, (const uint8_t *)p,
			  (const uint8_t *)end);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (size < 2)
		return 0;
	if (d.base == NULL)
		daemon_up();
	/* an exact-size copy: reads past the end are caught */
	copy = malloc(size - 2 ? size - 2 : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data + 2, size - 2);
	switch (data[0] % 3) {
	case 0:
		fuzz_daemon(copy, size - 2, data[1]);
		break;
	case 1:
		fuzz_reply(copy, size - 2);
		break;
	default:
		fuzz_builders(copy, size - 2);
		break;
	}
	free(copy);
	return 0;
}
