// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for fused/metrics/metrics_render.c and
 * metrics_families.c: the exact exposition of a synthetic
 * snapshot (every family, histogram buckets, seconds, label escaping), a
 * small parser of the text format 0.0.4 run over it (every sample line
 * parses, each family once and grouped under its # TYPE, no duplicate
 * series, histogram buckets cumulative with +Inf == _count), and the
 * serving side against a fake daemon in a real event loop: GET /metrics,
 * 404, 405, HEAD, bind failures, the textfile (atomic, 0644, rewritten by
 * its timer, removed at exit).
 */
#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <kcsmux/version.h>

#include "backend/backend.h"
#include "kcsmuxd.h"
#include "metrics/metrics.h"
#include "core/nodestats.h"
#include "unit_skip.h"

/* The parser's error messages and keys are cut to size on purpose. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define US  1000ULL
#define MS  1000000ULL
#define SEC 1000000000ULL
#define T0  (1000 * SEC)

/* kcsmuxd's clock (xact.c): fixed, so the CPU estimate is exact. */
uint64_t now_ns(void)
{
	return T0;
}

/* --- a parser of the text exposition format 0.0.4 --- */

struct series {
	char key[256]; /* name{labels}, le removed for buckets */
	double last_le;
	uint64_t last_count;
	bool inf_seen, sum_seen, count_seen;
	uint64_t inf_count;
};

struct parsed {
	size_t families, samples, buckets;
	char fam[64][96]; /* family names in order */
	char type[64][16];
	struct series hist[64];
	size_t nhist;
	char (*seen)[640]; /* every sample's name{labels}, decoded */
	size_t nseen;
	char err[512]; /* the first error */
};

/* Fail the parse with a message (the enclosing function returns false). */
#define REQ(p, cond, ...)                                                  \
	do {                                                               \
		if (!(cond)) {                                             \
			snprintf((p)->err, sizeof((p)->err), __VA_ARGS__); \
			return false;                                      \
		}                                                          \
	} while (0)

static bool name_char(char c, bool first, bool metric)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (metric && c == ':') || (!first && c >= '0' && c <= '9');
}

/* Length of a metric or label name at S (0: none). */
static size_t name_len(const char *s, bool metric)
{
	size_t n = 0;

	while (name_char(s[n], n == 0, metric))
		n++;
	return n;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* A sample value or le: a Go float, +Inf, -Inf, NaN; no timestamp. */
static bool parse_value(struct parsed *p, const char *s, double *v)
{
	char *end;

	if (strcmp(s, "+Inf") == 0) {
		*v = 1.0 / 0.0;
		return true;
	}
	if (strcmp(s, "-Inf") == 0) {
		*v = -1.0 / 0.0;
		return true;
	}
	REQ(p, *s && *s != ' ' && *s != '+', "no value: '%s'", s);
	*v = strtod(s, &end);
	REQ(p, *end == '\0', "bad value (or a timestamp): '%s'", s);
	return true;
}

static struct series *hist_series(struct parsed *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nhist; i++)
		if (strcmp(p->hist[i].key, key) == 0)
			return &p->hist[i];
	ck_assert_uint_lt(p->nhist, 64);
	memset(&p->hist[p->nhist], 0, sizeof(p->hist[0]));
	snprintf(p->hist[p->nhist].key, sizeof(p->hist[0].key), "%s", key);
	p->hist[p->nhist].last_le = -1.0 / 0.0;
	return &p->hist[p->nhist++];
}

/* One sample line; CUR/TYPE: the family of the last # TYPE. */
static bool parse_sample(struct parsed *p, const char *line, const char *cur,
			 const char *type)
{
	char name[128], labels[512] = "", nole[512] = "", le[64] = "";
	char key[640], skey[640];
	const char *s = line, *suffix;
	struct series *h;
	size_t n, nl = 0, i;
	bool has_le = false;
	double v, lev;

	n = name_len(s, true);
	REQ(p, n > 0 && n < sizeof(name), "bad name: '%s'", line);
	memcpy(name, s, n);
	name[n] = '\0';
	s += n;
	if (*s == '{') {
		s++;
		while (*s != '}') {
			char lname[64], lval[256];
			size_t vl = 0;

			n = name_len(s, false);
			REQ(p, n > 0 && n < sizeof(lname),
			    "bad label name: '%s'", line);
			memcpy(lname, s, n);
			lname[n] = '\0';
			s += n;
			REQ(p, s[0] == '=' && s[1] == '"',
			    "label without =\": '%s'", line);
			s += 2;
			for (; *s != '"'; s++) {
				char c = *s;

				REQ(p, c != '\0',
				    "unterminated label value: "
				    "'%s'",
				    line);
				if (c == '\\') {
					s++;
					REQ(p,
					    *s == '\\' || *s == '"' ||
						    *s == 'n',
					    "bad escape: '%s'", line);
					c = *s == 'n' ? '\n' : *s;
				}
				REQ(p, vl < sizeof(lval) - 1, "long label");
				lval[vl++] = c;
			}
			lval[vl] = '\0';
			s++;
			if (strcmp(lname, "le") == 0) {
				has_le = true;
				snprintf(le, sizeof(le), "%s", lval);
			} else {
				size_t l = strlen(nole);

				snprintf(nole + l, sizeof(nole) - l, "%s%s=%s",
					 l ? "," : "", lname, lval);
			}
			nl += (size_t)snprintf(labels + nl, sizeof(labels) - nl,
					       "%s%s=%s", nl ? "," : "", lname,
					       lval);
			REQ(p, nl < sizeof(labels), "long labels");
			if (*s == ',')
				s++;
			else
				REQ(p, *s == '}', "bad label list: '%s'", line);
		}
		s++;
	}
	REQ(p, *s == ' ', "no space before the value: '%s'", line);
	if (!parse_value(p, s + 1, &v))
		return false;
	p->samples++;

	/* each series once */
	snprintf(key, sizeof(key), "%s{%s}", name, labels);
	for (i = 0; i < p->nseen; i++)
		REQ(p, strcmp(p->seen[i], key) != 0, "duplicate series %s",
		    key);
	p->seen = realloc(p->seen, (p->nseen + 1) * sizeof(*p->seen));
	ck_assert_ptr_nonnull(p->seen);
	snprintf(p->seen[p->nseen++], sizeof(*p->seen), "%s", key);

	/* under its family's # TYPE */
	REQ(p, cur != NULL, "sample before any # TYPE: '%s'", line);
	if (strcmp(type, "histogram") != 0) {
		REQ(p, strcmp(name, cur) == 0, "sample %s under # TYPE %s",
		    name, cur);
		REQ(p, !has_le, "le on a %s: '%s'", type, line);
		if (strcmp(type, "counter") == 0) {
			REQ(p, ends_with(name, "_total"),
			    "counter %s without _total", name);
			REQ(p, v >= 0, "negative counter: '%s'", line);
		}
		return true;
	}
	REQ(p, strncmp(name, cur, strlen(cur)) == 0,
	    "sample %s under # TYPE %s", name, cur);
	suffix = name + strlen(cur);
	REQ(p,
	    strcmp(suffix, "_bucket") == 0 || strcmp(suffix, "_sum") == 0 ||
		    strcmp(suffix, "_count") == 0,
	    "sample %s in histogram %s", name, cur);
	snprintf(skey, sizeof(skey), "%s{%s}", cur, nole);
	h = hist_series(p, skey);
	if (strcmp(suffix, "_bucket") == 0) {
		REQ(p, has_le, "bucket without le: '%s'", line);
		REQ(p, !h->inf_seen, "bucket after +Inf: '%s'", line);
		if (!parse_value(p, le, &lev))
			return false;
		REQ(p, lev > h->last_le, "le not increasing: '%s'", line);
		REQ(p, v >= 0 && v == (double)(uint64_t)v,
		    "bucket count not a count: '%s'", line);
		REQ(p, (uint64_t)v >= h->last_count,
		    "buckets not cumulative: '%s'", line);
		h->last_le = lev;
		h->last_count = (uint64_t)v;
		if (strcmp(le, "+Inf") == 0) {
			h->inf_seen = true;
			h->inf_count = (uint64_t)v;
		}
		p->buckets++;
	} else if (strcmp(suffix, "_sum") == 0) {
		REQ(p, !has_le, "le on _sum: '%s'", line);
		h->sum_seen = true;
	} else {
		REQ(p, !has_le, "le on _count: '%s'", line);
		REQ(p, h->inf_seen, "_count before +Inf: '%s'", line);
		REQ(p, (uint64_t)v == h->inf_count,
		    "+Inf bucket %llu != _count: '%s'",
		    (unsigned long long)h->inf_count, line);
		h->count_seen = true;
	}
	return true;
}

/* Parse TEXT into P: false with P->err on the first error. */
static bool parse_text(const char *text, struct parsed *p)
{
	const char *s = text, *nl;
	char help_for[128] = "";
	const char *cur = NULL, *type = NULL;
	size_t i;

	memset(p, 0, sizeof(*p));
	REQ(p, *text != '\0', "empty exposition");
	REQ(p, text[strlen(text) - 1] == '\n', "no final newline");
	for (; *s; s = nl + 1) {
		char line[1024];
		size_t len;

		nl = strchr(s, '\n');
		len = (size_t)(nl - s);
		REQ(p, len < sizeof(line), "long line");
		memcpy(line, s, len);
		line[len] = '\0';
		REQ(p, len > 0, "empty line");
		if (strncmp(line, "# HELP ", 7) == 0) {
			size_t n = name_len(line + 7, true);
			const char *e;

			REQ(p,
			    n > 0 && n < sizeof(help_for) && line[7 + n] == ' ',
			    "bad HELP: '%s'", line);
			memcpy(help_for, line + 7, n);
			help_for[n] = '\0';
			for (e = line; (e = strchr(e, '\\')); e += 2)
				REQ(p, e[1] == '\\' || e[1] == 'n',
				    "bad escape in HELP: '%s'", line);
			continue;
		}
		if (strncmp(line, "# TYPE ", 7) == 0) {
			size_t n = name_len(line + 7, true);
			const char *t = line + 8 + n;
			char *f = p->fam[p->families];

			REQ(p,
			    n > 0 && n < sizeof(p->fam[0]) &&
				    line[7 + n] == ' ',
			    "bad TYPE: '%s'", line);
			REQ(p, p->families < 64, "too many families");
			memcpy(f, line + 7, n);
			f[n] = '\0';
			REQ(p,
			    strcmp(t, "counter") == 0 ||
				    strcmp(t, "gauge") == 0 ||
				    strcmp(t, "histogram") == 0 ||
				    strcmp(t, "summary") == 0 ||
				    strcmp(t, "untyped") == 0,
			    "bad type: '%s'", line);
			snprintf(p->type[p->families], sizeof(p->type[0]), "%s",
				 t);
			REQ(p, strcmp(help_for, f) == 0,
			    "# TYPE %s not right after its # HELP", f);
			for (i = 0; i < p->families; i++)
				REQ(p, strcmp(p->fam[i], f) != 0,
				    "family %s twice", f);
			cur = f;
			type = p->type[p->families];
			p->families++;
			continue;
		}
		REQ(p, line[0] != '#', "unexpected comment '%s'", line);
		if (!parse_sample(p, line, cur, type))
			return false;
	}
	for (i = 0; i < p->nhist; i++)
		REQ(p,
		    p->hist[i].inf_seen && p->hist[i].sum_seen &&
			    p->hist[i].count_seen,
		    "histogram %s incomplete", p->hist[i].key);
	return true;
}

/* Parse TEXT; fails the test on any error. */
static void parse_exposition(const char *text, struct parsed *p)
{
	bool ok = parse_text(text, p);

	ck_assert_msg(ok, "exposition does not parse: %s", p->err);
}

static void parsed_free(struct parsed *p)
{
	free(p->seen);
	p->seen = NULL;
}

/* --- a synthetic snapshot --- */

static void node_fill(struct metrics_node *m, const char *name, int k)
{
	memset(m, 0, sizeof(*m));
	m->name = name;
	nodestats_init(&m->st, T0, 0);
	m->st.requests = 100 * k + 1;
	m->st.completed = 100 * k + 2;
	m->st.errors = 10 * k + 3;
	m->st.rejected = 10 * k + 4;
	m->st.cancelled = 10 * k + 5;
	m->st.cc[0] = 50 * k;		       /* 0x00 */
	m->st.cc[nodestats_cc_slot(0xc1)] = k; /* invalid command */
	m->st.cc[nodestats_cc_slot(0xff)] = 2 * k;
	m->st.cc[NODESTATS_CC_OTHER] = 3 * k; /* e.g. 0x80 */
	m->st.service_ns = 1500 * US * k;     /* 1.5 ms x k */
	m->st.cpu_ns = 250 * US * k + 1;
	m->st.spin_ns = 2 * SEC * k;
	m->st.daemon_cpu_ns = 70 * US * k;
	m->cnt.busy = 10 * k + 6;
	m->cnt.denied = 10 * k + 7;
	m->cnt.opens = 10 * k + 8;
	m->cnt.sleeps = 10 * k + 9;
	m->cnt.throttled = 10 * k;
	m->cnt.held = 4 * k;
	m->cnt.coalesced = 6 * k;
	m->cnt.coalesced_recent = 5 * k;
	m->clients = 3 * k;
	m->qlen = 2 * k + 1;
	m->cpu_ppm = 5000.0 * k;
	m->poller_cpu_ppm = 3000.0 * k;
	m->cpu_budget_ppm = 20000 * k;
}

static void render(const struct metrics_snapshot *s, struct metrics_buf *b)
{
	memset(b, 0, sizeof(*b));
	ck_assert_int_eq(metrics_render(b, s), 0);
	ck_assert(!b->oom);
	ck_assert_uint_eq(strlen(b->p), b->len);
}

static size_t count_lines(const char *t)
{
	size_t n = 0;

	for (; *t; t++)
		n += *t == '\n';
	return n;
}

/* The lines of TEXT that are samples of NAME (name{ or name space). */
static char *samples_of(const char *text, const char *name)
{
	struct metrics_buf out = { 0 };
	const char *s, *nl;
	size_t n = strlen(name);

	out.p = calloc(1, 1);
	for (s = text; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (strncmp(s, name, n) == 0 && (s[n] == '{' || s[n] == ' ')) {
			size_t len = (size_t)(nl - s) + 1;

			out.p = realloc(out.p, out.len + len + 1);
			memcpy(out.p + out.len, s, len);
			out.len += len;
			out.p[out.len] = '\0';
		}
	}
	return out.p;
}

/* The daemon's CPU in renders of the fake daemon: fixed, so that two
 * renders (HTTP body, textfile, a render here) are the same text. */
uint64_t metrics_process_cpu_ns(void)
{
	return 1500000000ULL;
}

static const char empty_golden[] =
	"# HELP kcsmux_info The daemon's version, backend and interface device (always 1).\n"
	"# TYPE kcsmux_info gauge\n"
	"kcsmux_info{version=\"1.2.3\",backend=\"kcsraw\",device=\"/dev/kcsraw0\"} 1\n"
	"# HELP kcsmux_interface_inflight Requests submitted to the interface and not yet completed.\n"
	"# TYPE kcsmux_interface_inflight gauge\n"
	"kcsmux_interface_inflight 2\n"
	"# HELP kcsmux_clients Open files of the node.\n"
	"# TYPE kcsmux_clients gauge\n"
	"# HELP kcsmux_queue_depth Requests waiting in the node's queue in the daemon.\n"
	"# TYPE kcsmux_queue_depth gauge\n"
	"# HELP kcsmux_opens_total Opens of the node's device.\n"
	"# TYPE kcsmux_opens_total counter\n"
	"# HELP kcsmux_requests_total Requests accepted into the node's queue.\n"
	"# TYPE kcsmux_requests_total counter\n"
	"# HELP kcsmux_responses_total Requests finished on the interface, any outcome.\n"
	"# TYPE kcsmux_responses_total counter\n"
	"# HELP kcsmux_errors_total Failures by kind: completion (finished with a non-zero completion code or the interface gave up), busy (EBUSY: max_outstanding, or an open over max_clients), denied (refused by the access list, cc 0xd4), rejected (EBUSY: the node's queue was full).\n"
	"# TYPE kcsmux_errors_total counter\n"
	"# HELP kcsmux_completion_codes_total Responses from the BMC by completion code: cc is 0x00, a generic code 0xc0 to 0xd6, 0xff, or other (command-specific and OEM codes). Not errors by itself: a non-zero code also counts as a completion error in kcsmux_errors_total.\n"
	"# TYPE kcsmux_completion_codes_total counter\n"
	"# HELP kcsmux_coalesced_total Sensor reads answered with another client's identical one in flight on the node (coalesce = yes), not sent to the BMC.\n"
	"# TYPE kcsmux_coalesced_total counter\n"
	"# HELP kcsmux_coalesced_recent_total Of kcsmux_coalesced_total, the reads answered at once with another client's answer completed within the node's coalesce_window_ms.\n"
	"# TYPE kcsmux_coalesced_recent_total counter\n"
	"# HELP kcsmux_cancelled_total Requests dropped from the node's queue before they ran (their client closed its file or gave up): not an error.\n"
	"# TYPE kcsmux_cancelled_total counter\n"
	"# HELP kcsmux_request_duration_seconds Time from a client's request to its response, for requests that went to the interface.\n"
	"# TYPE kcsmux_request_duration_seconds histogram\n"
	"# HELP kcsmux_queue_wait_seconds Time requests waited in the node's queue before they started on the interface.\n"
	"# TYPE kcsmux_queue_wait_seconds histogram\n"
	"# HELP kcsmux_service_seconds_total Time the interface spent on the node's requests.\n"
	"# TYPE kcsmux_service_seconds_total counter\n"
	"# HELP kcsmux_poller_cpu_seconds_total CPU time kcsraw's poller spent on the node's requests (spinning included).\n"
	"# TYPE kcsmux_poller_cpu_seconds_total counter\n"
	"# HELP kcsmux_node_daemon_cpu_seconds_total CPU time kcsmuxd itself spent on the node's behalf: its CUSE requests, submissions, completions and parked SDR requests answered (the rest of kcsmux_daemon_cpu_seconds_total is no node's). Counted in cpu_budget with the poller's.\n"
	"# TYPE kcsmux_node_daemon_cpu_seconds_total counter\n"
	"# HELP kcsmux_poller_spin_seconds_total Time kcsraw's poller spent busy-polling for the node's requests.\n"
	"# TYPE kcsmux_poller_spin_seconds_total counter\n"
	"# HELP kcsmux_poller_sleeps_total Sleeps (timer or IRQ) of kcsraw's poller during the node's requests.\n"
	"# TYPE kcsmux_poller_sleeps_total counter\n"
	"# HELP kcsmux_poller_cpu_ratio Recent poller CPU use of the node's requests in CPUs, decayed over about 1 s.\n"
	"# TYPE kcsmux_poller_cpu_ratio gauge\n"
	"# HELP kcsmux_cpu_used_ratio Recent CPU use of the node in CPUs, the poller's and kcsmuxd's own on its behalf, decayed over about 1 s: what cpu_budget is checked against.\n"
	"# TYPE kcsmux_cpu_used_ratio gauge\n"
	"# HELP kcsmux_cpu_budget_ratio The node's cpu_budget in CPUs; 0: no budget.\n"
	"# TYPE kcsmux_cpu_budget_ratio gauge\n"
	"# HELP kcsmux_cpu_budget_throttled_total Requests run with the cheapest polling because the node was over its cpu_budget.\n"
	"# TYPE kcsmux_cpu_budget_throttled_total counter\n"
	"# HELP kcsmux_cpu_budget_held_total Times the node's queue was held until it was back under its cpu_budget.\n"
	"# TYPE kcsmux_cpu_budget_held_total counter\n"
	"# HELP kcsmux_interface_completions_total Transactions the interface completed, any outcome.\n"
	"# TYPE kcsmux_interface_completions_total counter\n"
	"kcsmux_interface_completions_total 0\n"
	"# HELP kcsmux_interface_hosed_total Transactions the KCS state machine gave up on (answered with cc 0xFF).\n"
	"# TYPE kcsmux_interface_hosed_total counter\n"
	"kcsmux_interface_hosed_total 0\n"
	"# HELP kcsmux_interface_kcs_errors_total KCS timeouts and protocol errors kcsraw saw, recovered or not.\n"
	"# TYPE kcsmux_interface_kcs_errors_total counter\n"
	"kcsmux_interface_kcs_errors_total 0\n"
	"# HELP kcsmux_interface_retries_total KCS error recoveries kcsraw started.\n"
	"# TYPE kcsmux_interface_retries_total counter\n"
	"kcsmux_interface_retries_total 0\n"
	"# HELP kcsmux_sdr_cache_hits_total SDR and FRU reads of the node answered from the daemon's memory.\n"
	"# TYPE kcsmux_sdr_cache_hits_total counter\n"
	"# HELP kcsmux_sdr_cache_misses_total SDR and FRU reads of the node that went to the BMC (cache failed or off, or a read it cannot answer).\n"
	"# TYPE kcsmux_sdr_cache_misses_total counter\n"
	"# HELP kcsmux_sdr_cache_fills_total Times an SDR repository was read whole into memory.\n"
	"# TYPE kcsmux_sdr_cache_fills_total counter\n"
	"kcsmux_sdr_cache_fills_total 0\n"
	"# HELP kcsmux_sdr_cache_revalidations_total Get SDR Repository Info checks of the cached repositories.\n"
	"# TYPE kcsmux_sdr_cache_revalidations_total counter\n"
	"kcsmux_sdr_cache_revalidations_total 0\n"
	"# HELP kcsmux_sdr_cache_invalidations_total Times the cache was dropped (a write, clear or reset from any node, a changed repository).\n"
	"# TYPE kcsmux_sdr_cache_invalidations_total counter\n"
	"kcsmux_sdr_cache_invalidations_total 0\n"
	"# HELP kcsmux_sdr_cache_bmc_requests_total Requests the cache itself sent to the BMC (fills, checks).\n"
	"# TYPE kcsmux_sdr_cache_bmc_requests_total counter\n"
	"kcsmux_sdr_cache_bmc_requests_total 0\n"
	"# HELP kcsmux_sdr_cache_records SDRs of the main repository held in memory.\n"
	"# TYPE kcsmux_sdr_cache_records gauge\n"
	"kcsmux_sdr_cache_records 0\n"
	"# HELP kcsmux_lease_refused_total Commands of the node refused at once (cc 0xd5) because another node holds a lease on their class.\n"
	"# TYPE kcsmux_lease_refused_total counter\n"
	"# HELP kcsmux_lease_busy_total Requests of the node refused at once (cc 0xc0, node busy) during another node's firmware lease.\n"
	"# TYPE kcsmux_lease_busy_total counter\n"
	"# HELP kcsmux_lease_stale_total Requests of the node answered from the SDR cache or SEL mirror during another node's firmware lease, without asking the BMC (stale).\n"
	"# TYPE kcsmux_lease_stale_total counter\n"
	"# HELP kcsmux_daemon_cpu_seconds_total CPU time of kcsmuxd itself (user and system, all its threads); the poller's is in kcsmux_poller_cpu_seconds_total, its part per node in kcsmux_node_daemon_cpu_seconds_total.\n"
	"# TYPE kcsmux_daemon_cpu_seconds_total counter\n"
	"kcsmux_daemon_cpu_seconds_total 0\n"
	"# HELP kcsmux_events_dropped_total Asynchronous events (the BMC's event messages) dropped because a subscriber had event_backlog unread, or no one subscribed and the backlog was full.\n"
	"# TYPE kcsmux_events_dropped_total counter\n"
	"kcsmux_events_dropped_total 0\n"
	"# HELP kcsmux_reloads_total Configuration reloads (SIGHUP, kcsmuxctl reload) by result.\n"
	"# TYPE kcsmux_reloads_total counter\n"
	"kcsmux_reloads_total{result=\"applied\"} 0\n"
	"kcsmux_reloads_total{result=\"rejected\"} 0\n"
	"# HELP kcsmux_reload_last_success 1 if the last reload applied (or none was tried), 0 if it was rejected and the previous configuration still runs.\n"
	"# TYPE kcsmux_reload_last_success gauge\n"
	"kcsmux_reload_last_success 1\n"
	"# HELP kcsmux_reload_last_timestamp_seconds When the last reload was tried, in seconds since the epoch; 0: none yet.\n"
	"# TYPE kcsmux_reload_last_timestamp_seconds gauge\n"
	"kcsmux_reload_last_timestamp_seconds 0\n"
	"# HELP kcsmux_bmc_up 1 if the BMC answers, 0 if it is silent: the interface was hosed (the KCS state machine gave up) and nothing answered since, or kcsraw's bmc state is waiting or lost.\n"
	"# TYPE kcsmux_bmc_up gauge\n"
	"kcsmux_bmc_up 1\n"
	"# HELP kcsmux_bmc_last_change_timestamp_seconds Since when kcsmux_bmc_up has its value, in seconds since the epoch: its last change, else the daemon's start.\n"
	"# TYPE kcsmux_bmc_last_change_timestamp_seconds gauge\n"
	"kcsmux_bmc_last_change_timestamp_seconds 1700000000\n"
	"# HELP kcsmux_bridging_up 1 if IPMB/LAN bridging and the BMC's events have a path, 0 if the daemon runs degraded without them (kcsraw in SMI mode without its relay or ipmi_devintf's node).\n"
	"# TYPE kcsmux_bridging_up gauge\n"
	"kcsmux_bridging_up 1\n"
	"# HELP kcsmux_stock_bypass 1 if a stock /dev/ipmiN (ipmi_devintf) is on kcsraw's interface, its device the label: whoever opens it reaches the BMC around every node's access list, priority, rate limit, CPU budget and accounting; 0 if none.\n"
	"# TYPE kcsmux_stock_bypass gauge\n"
	"kcsmux_stock_bypass 0\n";

START_TEST(test_golden_no_nodes)
{
	struct metrics_snapshot s = {
		.version = "1.2.3",
		.backend = "kcsraw",
		.device = "/dev/kcsraw0",
		.inflight = 2,
		.last_reload_ok = true,
		.status = { .bmc_up = true, .bmc_since_unix = 1700000000 },
	};
	struct metrics_buf b;
	struct parsed p;

	render(&s, &b);
	ck_assert_str_eq(b.p, empty_golden);
	parse_exposition(b.p, &p);
	/* every family from the start: none appears on first use, which
	 * would leave rate() alerts over it empty until then */
	ck_assert_uint_eq(p.families, 47);
	ck_assert_uint_eq(p.samples, 2 + 4 + 5 + 2 + 2 + 2 + 4);
	parsed_free(&p);
	metrics_buf_free(&b);
	ck_assert_ptr_null(b.p);
}
END_TEST

START_TEST(test_counters_exact)
{
	struct metrics_node nodes[2];
	struct metrics_snapshot s = {
		.version = "0.1.0",
		.backend = "ipmidev",
		.device = "/dev/ipmi0",
		.nodes = nodes,
		.nnodes = 2,
		.health = { .completions = 1000,
			    .hosed = 3,
			    .kcs_errors = 7,
			    .retries = 5 },
		.reloads = 6,
		.reload_failures = 2,
		.last_reload_ok = false,
		.last_reload_unix = 1764590400,
	};
	struct metrics_buf b;
	struct parsed p;
	char *t;

	node_fill(&nodes[0], "ipmi1", 1);
	node_fill(&nodes[1], "ipmi2", 2);
	render(&s, &b);

#define SAMPLES(name, want)                \
	do {                               \
		t = samples_of(b.p, name); \
		ck_assert_str_eq(t, want); \
		free(t);                   \
	} while (0)
	SAMPLES("kcsmux_info",
		"kcsmux_info{version=\"0.1.0\","
		"backend=\"ipmidev\",device=\"/dev/ipmi0\"} 1\n");
	SAMPLES("kcsmux_interface_inflight", "kcsmux_interface_inflight 0\n");
	SAMPLES("kcsmux_clients", "kcsmux_clients{kcsmux_node=\"ipmi1\"} 3\n"
				  "kcsmux_clients{kcsmux_node=\"ipmi2\"} 6\n");
	SAMPLES("kcsmux_queue_depth",
		"kcsmux_queue_depth{kcsmux_node=\"ipmi1\"} 3\n"
		"kcsmux_queue_depth{kcsmux_node=\"ipmi2\"} 5\n");
	SAMPLES("kcsmux_opens_total",
		"kcsmux_opens_total{kcsmux_node=\"ipmi1\"} 18\n"
		"kcsmux_opens_total{kcsmux_node=\"ipmi2\"} 28\n");
	SAMPLES("kcsmux_requests_total",
		"kcsmux_requests_total{kcsmux_node=\"ipmi1\"} 101\n"
		"kcsmux_requests_total{kcsmux_node=\"ipmi2\"} 201\n");
	SAMPLES("kcsmux_responses_total",
		"kcsmux_responses_total{kcsmux_node=\"ipmi1\"} 102\n"
		"kcsmux_responses_total{kcsmux_node=\"ipmi2\"} 202\n");
	SAMPLES("kcsmux_errors_total",
		"kcsmux_errors_total{kcsmux_node=\"ipmi1\",kind=\"completion\"} 13\n"
		"kcsmux_errors_total{kcsmux_node=\"ipmi1\",kind=\"busy\"} 16\n"
		"kcsmux_errors_total{kcsmux_node=\"ipmi1\",kind=\"denied\"} 17\n"
		"kcsmux_errors_total{kcsmux_node=\"ipmi1\",kind=\"rejected\"} 14\n"
		"kcsmux_errors_total{kcsmux_node=\"ipmi2\",kind=\"completion\"} 23\n"
		"kcsmux_errors_total{kcsmux_node=\"ipmi2\",kind=\"busy\"} 26\n"
		"kcsmux_errors_total{kcsmux_node=\"ipmi2\",kind=\"denied\"} 27\n"
		"kcsmux_errors_total{kcsmux_node=\"ipmi2\",kind=\"rejected\"} 24\n");
	/* by value: every slot from the start, other last */
	t = samples_of(b.p, "kcsmux_completion_codes_total");
	ck_assert_ptr_nonnull(strstr(
		t,
		"kcsmux_completion_codes_total{kcsmux_node=\"ipmi1\",cc=\"0x00\"} 50\n"
		"kcsmux_completion_codes_total{kcsmux_node=\"ipmi1\",cc=\"0xc0\"} 0\n"
		"kcsmux_completion_codes_total{kcsmux_node=\"ipmi1\",cc=\"0xc1\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(
		t,
		"kcsmux_completion_codes_total{kcsmux_node=\"ipmi2\",cc=\"0xd6\"} 0\n"
		"kcsmux_completion_codes_total{kcsmux_node=\"ipmi2\",cc=\"0xff\"} 4\n"
		"kcsmux_completion_codes_total{kcsmux_node=\"ipmi2\",cc=\"other\"} 6\n"));
	ck_assert_uint_eq(count_lines(t), 2 * NODESTATS_NCC);
	free(t);
	/* cancelled is not an error: its own family */
	SAMPLES("kcsmux_coalesced_total",
		"kcsmux_coalesced_total{kcsmux_node=\"ipmi1\"} 6\n"
		"kcsmux_coalesced_total{kcsmux_node=\"ipmi2\"} 12\n");
	SAMPLES("kcsmux_coalesced_recent_total",
		"kcsmux_coalesced_recent_total{kcsmux_node=\"ipmi1\"} 5\n"
		"kcsmux_coalesced_recent_total{kcsmux_node=\"ipmi2\"} 10\n");
	SAMPLES("kcsmux_cancelled_total",
		"kcsmux_cancelled_total{kcsmux_node=\"ipmi1\"} 15\n"
		"kcsmux_cancelled_total{kcsmux_node=\"ipmi2\"} 25\n");
	/* seconds exactly, from ns */
	SAMPLES("kcsmux_service_seconds_total",
		"kcsmux_service_seconds_total{kcsmux_node=\"ipmi1\"} 0.0015\n"
		"kcsmux_service_seconds_total{kcsmux_node=\"ipmi2\"} 0.003\n");
	SAMPLES("kcsmux_poller_cpu_seconds_total",
		"kcsmux_poller_cpu_seconds_total{kcsmux_node=\"ipmi1\"} 0.000250001\n"
		"kcsmux_poller_cpu_seconds_total{kcsmux_node=\"ipmi2\"} 0.000500001\n");
	SAMPLES("kcsmux_poller_spin_seconds_total",
		"kcsmux_poller_spin_seconds_total{kcsmux_node=\"ipmi1\"} 2\n"
		"kcsmux_poller_spin_seconds_total{kcsmux_node=\"ipmi2\"} 4\n");
	SAMPLES("kcsmux_poller_sleeps_total",
		"kcsmux_poller_sleeps_total{kcsmux_node=\"ipmi1\"} 19\n"
		"kcsmux_poller_sleeps_total{kcsmux_node=\"ipmi2\"} 29\n");
	SAMPLES("kcsmux_poller_cpu_ratio",
		"kcsmux_poller_cpu_ratio{kcsmux_node=\"ipmi1\"} 0.003\n"
		"kcsmux_poller_cpu_ratio{kcsmux_node=\"ipmi2\"} 0.006\n");
	/* the budget's: the poller's and the daemon's */
	SAMPLES("kcsmux_cpu_used_ratio",
		"kcsmux_cpu_used_ratio{kcsmux_node=\"ipmi1\"} 0.005\n"
		"kcsmux_cpu_used_ratio{kcsmux_node=\"ipmi2\"} 0.01\n");
	SAMPLES("kcsmux_node_daemon_cpu_seconds_total",
		"kcsmux_node_daemon_cpu_seconds_total{kcsmux_node=\"ipmi1\"} 0.00007\n"
		"kcsmux_node_daemon_cpu_seconds_total{kcsmux_node=\"ipmi2\"} 0.00014\n");
	SAMPLES("kcsmux_cpu_budget_ratio",
		"kcsmux_cpu_budget_ratio{kcsmux_node=\"ipmi1\"} 0.02\n"
		"kcsmux_cpu_budget_ratio{kcsmux_node=\"ipmi2\"} 0.04\n");
	SAMPLES("kcsmux_cpu_budget_throttled_total",
		"kcsmux_cpu_budget_throttled_total{kcsmux_node=\"ipmi1\"} 10\n"
		"kcsmux_cpu_budget_throttled_total{kcsmux_node=\"ipmi2\"} 20\n");
	SAMPLES("kcsmux_cpu_budget_held_total",
		"kcsmux_cpu_budget_held_total{kcsmux_node=\"ipmi1\"} 4\n"
		"kcsmux_cpu_budget_held_total{kcsmux_node=\"ipmi2\"} 8\n");
	SAMPLES("kcsmux_interface_completions_total",
		"kcsmux_interface_completions_total 1000\n");
	SAMPLES("kcsmux_interface_hosed_total",
		"kcsmux_interface_hosed_total 3\n");
	SAMPLES("kcsmux_interface_kcs_errors_total",
		"kcsmux_interface_kcs_errors_total 7\n");
	SAMPLES("kcsmux_interface_retries_total",
		"kcsmux_interface_retries_total 5\n");
	SAMPLES("kcsmux_reloads_total",
		"kcsmux_reloads_total{result=\"applied\"} 4\n"
		"kcsmux_reloads_total{result=\"rejected\"} 2\n");
	SAMPLES("kcsmux_reload_last_success", "kcsmux_reload_last_success 0\n");
	SAMPLES("kcsmux_reload_last_timestamp_seconds",
		"kcsmux_reload_last_timestamp_seconds 1764590400\n");
	/* empty histograms: every bucket 0, sum 0 */
	SAMPLES("kcsmux_queue_wait_seconds_count",
		"kcsmux_queue_wait_seconds_count{kcsmux_node=\"ipmi1\"} 0\n"
		"kcsmux_queue_wait_seconds_count{kcsmux_node=\"ipmi2\"} 0\n");
	SAMPLES("kcsmux_queue_wait_seconds_sum",
		"kcsmux_queue_wait_seconds_sum{kcsmux_node=\"ipmi1\"} 0\n"
		"kcsmux_queue_wait_seconds_sum{kcsmux_node=\"ipmi2\"} 0\n");

	parse_exposition(b.p, &p);
	ck_assert_uint_eq(p.families, 47);
	/* 2 + 8 interface and reload samples + 5 of the SDR cache + the
	 * daemon's CPU and dropped events + 4 of health + 2 nodes x (23
	 * single samples, cancelled, the cache's 2 and the leases' 3 among
	 * them, + 4 error
	 * kinds + the completion codes + 2 x (39 + 2)) */
	ck_assert_uint_eq(p.samples,
			  2 + 8 + 5 + 2 + 4 +
				  2 * (23 + 4 + NODESTATS_NCC + 2 * 41));
	ck_assert_uint_eq(p.buckets, 2 * 2 * NODESTATS_NBUCKETS);
	ck_assert_uint_eq(p.nhist, 4);
	parsed_free(&p);
	metrics_buf_free(&b);
}
END_TEST

START_TEST(test_histogram_exact)
{
	static const uint64_t lat[] = {
		40 * US, 50 * US,  250 * US, 300 * US,
		2 * MS,	 10 * SEC, 20 * SEC,
	};
	struct metrics_node n;
	struct metrics_snapshot s = { .nodes = &n, .nnodes = 1 };
	struct metrics_buf b;
	struct parsed p;
	size_t i;
	char *t;

	node_fill(&n, "a", 1);
	for (i = 0; i < sizeof(lat) / sizeof(lat[0]); i++)
		nodestats_hist_add(&n.st.latency, lat[i]);
	nodestats_hist_add(&n.st.queue_wait, 1);
	render(&s, &b);

	t = samples_of(b.p, "kcsmux_request_duration_seconds_bucket");
	ck_assert_str_eq(
		t,
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.00005\"} 2\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.00007\"} 2\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.0001\"} 2\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.00015\"} 2\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.0002\"} 2\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.0003\"} 4\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.0004\"} 4\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.0005\"} 4\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.0007\"} 4\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.001\"} 4\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.0015\"} 4\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.002\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.003\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.004\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.005\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.007\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.01\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.015\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.02\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.03\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.04\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.05\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.07\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.1\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.15\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.2\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.3\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.4\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.5\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"0.7\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"1\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"1.5\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"2\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"3\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"4\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"5\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"7\"} 5\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"10\"} 6\n"
		"kcsmux_request_duration_seconds_bucket{kcsmux_node=\"a\",le=\"+Inf\"} 7\n");
	free(t);
	t = samples_of(b.p, "kcsmux_request_duration_seconds_sum");
	/* 40 + 50 + 250 + 300 us + 2 ms + 30 s */
	ck_assert_str_eq(
		t,
		"kcsmux_request_duration_seconds_sum{kcsmux_node=\"a\"} 30.00264\n");
	free(t);
	t = samples_of(b.p, "kcsmux_request_duration_seconds_count");
	ck_assert_str_eq(
		t,
		"kcsmux_request_duration_seconds_count{kcsmux_node=\"a\"} 7\n");
	free(t);
	ck_assert_ptr_nonnull(strstr(
		b.p,
		"kcsmux_queue_wait_seconds_bucket{kcsmux_node=\"a\",le=\"0.00005\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(
		b.p,
		"kcsmux_queue_wait_seconds_sum{kcsmux_node=\"a\"} 0.000000001\n"));
	parse_exposition(b.p, &p);
	ck_assert_uint_eq(p.nhist, 2);
	ck_assert_uint_eq(p.hist[0].inf_count, 7);
	ck_assert_uint_eq(p.hist[1].inf_count, 1);
	parsed_free(&p);
	metrics_buf_free(&b);
}
END_TEST

START_TEST(test_escaping)
{
	struct metrics_node n;
	struct metrics_snapshot s = {
		.version = "v\"1\"",
		.backend = "a\\b",
		.device = "/dev/x\ny",
		.nodes = &n,
		.nnodes = 1,
	};
	struct metrics_buf b;
	struct parsed p;

	node_fill(&n, "we\"ird\\name\n", 1);
	render(&s, &b);
	ck_assert_ptr_nonnull(
		strstr(b.p, "kcsmux_info{version=\"v\\\"1\\\"\","
			    "backend=\"a\\\\b\",device=\"/dev/x\\ny\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(
		b.p,
		"kcsmux_clients{kcsmux_node=\"we\\\"ird\\\\name\\n\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(
		b.p,
		"kcsmux_request_duration_seconds_"
		"bucket{kcsmux_node=\"we\\\"ird\\\\name\\n\",le=\"+Inf\"} 0\n"));
	/* the parser decodes them back */
	parse_exposition(b.p, &p);
	ck_assert_ptr_nonnull(
		strstr(p.seen[0],
		       "version=v\"1\",backend=a\\b,device=/dev/x\ny"));
	parsed_free(&p);
	metrics_buf_free(&b);

	/* missing strings render as empty values */
	memset(&s, 0, sizeof(s));
	render(&s, &b);
	ck_assert_ptr_nonnull(strstr(
		b.p, "kcsmux_info{version=\"\",backend=\"\",device=\"\"} 1\n"));
	metrics_buf_free(&b);
}
END_TEST

/* The parser itself must catch what it is there for. */
START_TEST(test_parser_rejects)
{
	static const char *const bad[] = {
		"# HELP a x\n# TYPE a gauge\na{b=\"c} 1\n",
		"# HELP a x\n# TYPE a gauge\na 1 2\n",
		"# HELP a x\n# TYPE a gauge\na{b=\"\\x\"} 1\n",
		"# HELP a x\n# TYPE a gauge\nb 1\n",
		"# HELP a x\n# TYPE a gauge\na 1\na 2\n",
		"# HELP a x\n# TYPE a counter\na 1\n",
		"# HELP h x\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\n"
		"h_bucket{le=\"2\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\n"
		"h_count 2\n",
		"# HELP h x\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\n"
		"h_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 3\n",
		"# HELP h x\n# TYPE h histogram\nh_bucket{le=\"2\"} 1\n"
		"h_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\n"
		"h_count 2\n",
		"# HELP h x\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\n"
		"h_count 1\n",
		"# TYPE a gauge\na 1\n",
		"# HELP a x\n# TYPE a gauge\na{b=\"c\"}1\n",
		"# HELP a x\n# TYPE a gauge\na{b=\"c\"} 1",
		"# HELP a x\n# TYPE a gauge\na{b=\"c\",} 1\n#x\n",
		"# HELP a x\n# TYPE a gauge\na{1b=\"c\"} 1\n",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct parsed p;

		ck_assert_msg(!parse_text(bad[i], &p), "accepted: %s", bad[i]);
		ck_assert_msg(p.err[0] != '\0', "no error for: %s", bad[i]);
		parsed_free(&p);
	}
}
END_TEST

START_TEST(test_parser_accepts)
{
	struct parsed p;

	parse_exposition(
		"# HELP h x\n# TYPE h histogram\n"
		"h_bucket{a=\"1\",le=\"1\"} 1\nh_bucket{a=\"1\",le=\"+Inf\"} 2\n"
		"h_sum{a=\"1\"} 1.5\nh_count{a=\"1\"} 2\n"
		"# HELP g y\n# TYPE g gauge\ng 1e-05\n",
		&p);
	ck_assert_uint_eq(p.families, 2);
	ck_assert_uint_eq(p.samples, 5);
	parsed_free(&p);
}
END_TEST

/* --- serving, against a fake daemon --- */

static const struct backend_ops fake_ops = { .name = "kcsraw" };
static struct backend fake_be = { .ops = &fake_ops, .inflight = 1 };
static struct daemon D;
static struct node N[3];
static char tmpdir[64];

static void fake_node(struct node *n, const char *name, int k)
{
	memset(n, 0, sizeof(*n));
	n->d = &D;
	snprintf(n->conf.name, sizeof(n->conf.name), "%s", name);
	nodestats_init(&n->st, T0, 0);
	n->st.requests = (uint64_t)k * 10;
	n->st.completed = (uint64_t)k * 10;
	nodestats_hist_add(&n->st.latency, 300 * US);
	n->nclients = (unsigned int)k;
	n->flow.qlen = (uint32_t)k + 1;
	n->conf.pol.cpu_budget_ppm = 1000;
	LIST_INSERT_HEAD(&D.nodes, n, link);
}

static void daemon_setup(void)
{
	memset(&D, 0, sizeof(D));
	D.base = event_base_new();
	ck_assert_ptr_nonnull(D.base);
	LIST_INIT(&D.nodes);
	D.be = &fake_be;
	D.cfg.device = "/dev/kcsraw0";
	D.sysfs_root = "/nonexistent/sys"; /* not this host's kcsraw */
	fake_node(&N[0], "ipmi1", 1);
	fake_node(&N[1], "ipmi3", 3); /* in the list before ipmi1 */
	fake_node(&N[2], "ipmi2", 2);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/kcsmux-metrics-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void daemon_teardown(void)
{
	metrics_fini(&D);
	event_base_free(D.base);
	D.base = NULL;
	rmdir(tmpdir);
}

START_TEST(test_daemon_snapshot)
{
	struct metrics_buf b = { 0 };
	struct parsed p;
	char *t;

	N[1].dying = true;
	ck_assert_int_eq(metrics_render_daemon(&D, &b), 0);
	t = samples_of(b.p, "kcsmux_daemon_cpu_seconds_total");
	ck_assert_str_eq(t, "kcsmux_daemon_cpu_seconds_total 1.5\n");
	free(t);
	t = samples_of(b.p, "kcsmux_queue_depth");
	ck_assert_str_eq(t, "kcsmux_queue_depth{kcsmux_node=\"ipmi1\"} 2\n"
			    "kcsmux_queue_depth{kcsmux_node=\"ipmi2\"} 3\n");
	free(t);
	t = samples_of(b.p, "kcsmux_info");
	ck_assert_str_eq(t, "kcsmux_info{version=\"" KCSMUX_VERSION "\","
			    "backend=\"kcsraw\",device=\"/dev/kcsraw0\"} 1\n");
	free(t);
	ck_assert_ptr_nonnull(strstr(b.p, "\nkcsmux_interface_inflight 1\n"));
	ck_assert_ptr_nonnull(strstr(
		b.p,
		"\nkcsmux_cpu_budget_ratio{kcsmux_node=\"ipmi2\"} 0.001\n"));
	ck_assert_ptr_nonnull(
		strstr(b.p, "\nkcsmux_request_duration_seconds_"
			    "bucket{kcsmux_node=\"ipmi2\",le=\"0.0003\"} 1\n"));
	parse_exposition(b.p, &p);
	parsed_free(&p);
	metrics_buf_free(&b);
}
END_TEST

/* A file under DIR with TEXT. */
static void put_file(const char *dir, const char *rel, const char *text)
{
	char p[256], cmd[320];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	ck_assert_int_eq(system(cmd), 0);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* The health families from a fake /sys: kcsraw's version, its bmc state
 * with the daemon's view, since when, and a stock node on kcsraw's
 * interface (ipmi_devintf in SMI mode) with its device. */
START_TEST(test_daemon_health)
{
	struct metrics_buf b = { 0 };
	char sys[128], p[192], cmd[160];
	char *t;

	snprintf(sys, sizeof(sys), "%s/sys", tmpdir);
	put_file(sys, "module/kcsraw/version", "1.4.0\n");
	put_file(sys, "class/misc/kcsraw0/bmc",
		 "up probes=1 failed_at_once=0 mismatches=0\n");
	D.sysfs_root = sys;
	D.started_unix = 1700000000;
	ck_assert_int_eq(metrics_render_daemon(&D, &b), 0);
#define HEALTH(name, want)                 \
	do {                               \
		t = samples_of(b.p, name); \
		ck_assert_str_eq(t, want); \
		free(t);                   \
	} while (0)
	HEALTH("kcsmux_kcsraw_info",
	       "kcsmux_kcsraw_info{version=\"1.4.0\"} 1\n");
	HEALTH("kcsmux_bmc_up", "kcsmux_bmc_up 1\n");
	HEALTH("kcsmux_bmc_last_change_timestamp_seconds",
	       "kcsmux_bmc_last_change_timestamp_seconds 1700000000\n");
	HEALTH("kcsmux_stock_bypass", "kcsmux_stock_bypass 0\n");
	HEALTH("kcsmux_bridging_up", "kcsmux_bridging_up 1\n");
	metrics_buf_free(&b);
	/* SMI mode without a path for bridging: degraded */
	fake_be.no_bridge = true;
	ck_assert_int_eq(metrics_render_daemon(&D, &b), 0);
	fake_be.no_bridge = false;
	HEALTH("kcsmux_bridging_up", "kcsmux_bridging_up 0\n");
	metrics_buf_free(&b);
	/* kcsraw lost the BMC: down, whatever the daemon saw */
	put_file(sys, "class/misc/kcsraw0/bmc",
		 "lost probes=3 failed_at_once=2 mismatches=0\n");
	/* ipmi_devintf's node on kcsraw.0's interface */
	snprintf(p, sizeof(p), "%s/class/ipmi/ipmi2", sys);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
	ck_assert_int_eq(system(cmd), 0);
	strcat(p, "/device");
	ck_assert_int_eq(symlink("../../../devices/platform/kcsraw.0", p), 0);
	ck_assert_int_eq(metrics_render_daemon(&D, &b), 0);
	HEALTH("kcsmux_bmc_up", "kcsmux_bmc_up 0\n");
	HEALTH("kcsmux_stock_bypass",
	       "kcsmux_stock_bypass{device=\"/dev/ipmi2\"} 1\n");
	metrics_buf_free(&b);
	/* kcsraw up again, but the daemon saw the interface hosed since */
	put_file(sys, "class/misc/kcsraw0/bmc",
		 "up probes=3 failed_at_once=2 mismatches=0\n");
	D.bmc_silent = true;
	health_bmc_changed(&D);
	ck_assert_int_eq(metrics_render_daemon(&D, &b), 0);
	HEALTH("kcsmux_bmc_up", "kcsmux_bmc_up 0\n");
	t = samples_of(b.p, "kcsmux_bmc_last_change_timestamp_seconds");
	ck_assert_msg(strtoull(t + strlen("kcsmux_bmc_last_change_timestamp_"
					  "seconds "),
			       NULL, 10) >= (unsigned long long)time(NULL) - 1,
		      "%s", t);
	free(t);
	metrics_buf_free(&b);
	/* not kcsraw: no kcsraw_info without the module, no stock bypass */
	D.bmc_silent = false;
	D.cfg.backend = KCSMUX_BACKEND_IPMIDEV;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/module'", sys);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(metrics_render_daemon(&D, &b), 0);
	ck_assert_ptr_null(strstr(b.p, "kcsmux_kcsraw_info"));
	HEALTH("kcsmux_stock_bypass", "kcsmux_stock_bypass 0\n");
	HEALTH("kcsmux_bmc_up", "kcsmux_bmc_up 1\n");
	metrics_buf_free(&b);
	D.cfg.backend = KCSMUX_BACKEND_KCSRAW;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sys);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The samples come in the core's one node order (core_nodes: the line of
 * the node's section, then the name), as kcsmuxctl lists them, not by
 * name. */
START_TEST(test_daemon_node_order)
{
	struct metrics_buf b = { 0 };
	char *t;

	N[0].conf.line = 9; /* ipmi1 */
	N[1].conf.line = 5; /* ipmi3 */
	N[2].conf.line = 2; /* ipmi2 */
	ck_assert_int_eq(metrics_render_daemon(&D, &b), 0);
	t = samples_of(b.p, "kcsmux_queue_depth");
	ck_assert_str_eq(t, "kcsmux_queue_depth{kcsmux_node=\"ipmi2\"} 3\n"
			    "kcsmux_queue_depth{kcsmux_node=\"ipmi3\"} 4\n"
			    "kcsmux_queue_depth{kcsmux_node=\"ipmi1\"} 2\n");
	free(t);
	metrics_buf_free(&b);
}
END_TEST

struct resp {
	int code;
	char body[65536];
	size_t len;
	char ctype[128];
	char allow[64];
};

static void on_resp(struct evhttp_request *req, void *arg)
{
	struct resp *r = arg;

	r->code = -1;
	if (req && evhttp_request_get_response_code(req) > 0) {
		struct evbuffer *in = evhttp_request_get_input_buffer(req);
		struct evkeyvalq *h = evhttp_request_get_input_headers(req);
		const char *v;

		r->code = evhttp_request_get_response_code(req);
		r->len = evbuffer_get_length(in);
		ck_assert_uint_lt(r->len, sizeof(r->body));
		evbuffer_remove(in, r->body, r->len);
		r->body[r->len] = '\0';
		if ((v = evhttp_find_header(h, "Content-Type")))
			snprintf(r->ctype, sizeof(r->ctype), "%s", v);
		if ((v = evhttp_find_header(h, "Allow")))
			snprintf(r->allow, sizeof(r->allow), "%s", v);
	}
	event_base_loopbreak(D.base);
}

static struct resp *http(enum evhttp_cmd_type cmd, const char *host,
			 const char *path)
{
	static struct resp r;
	struct evhttp_connection *c;
	struct evhttp_request *req;

	memset(&r, 0, sizeof(r));
	c = evhttp_connection_base_new(D.base, NULL, host,
				       (unsigned short)metrics_http_port(&D));
	ck_assert_ptr_nonnull(c);
	evhttp_connection_set_timeout(c, 5);
	req = evhttp_request_new(on_resp, &r);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Host",
			  "localhost");
	ck_assert_int_eq(evhttp_make_request(c, req, cmd, path), 0);
	event_base_dispatch(D.base);
	evhttp_connection_free(c);
	return &r;
}

/* A raw HTTP exchange: REQ sent as is, everything read until the server
 * closes (the loop runs meanwhile). */
struct raw {
	char buf[65536];
	size_t len;
};

static void on_raw(evutil_socket_t fd, short what, void *arg)
{
	struct raw *r = arg;
	ssize_t n;

	(void)what;
	n = read(fd, r->buf + r->len, sizeof(r->buf) - 1 - r->len);
	if (n > 0) {
		r->len += (size_t)n;
		r->buf[r->len] = '\0';
	} else {
		event_base_loopbreak(D.base);
	}
}

static struct raw *raw_http(const char *req)
{
	static struct raw r;
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
		.sin_port = htons((unsigned short)metrics_http_port(&D))
	};
	struct timeval tv = { 5, 0 };
	struct event *ev;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&r, 0, sizeof(r));
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	ev = event_new(D.base, fd, EV_READ | EV_PERSIST, on_raw, &r);
	event_add(ev, &tv);
	event_base_dispatch(D.base);
	event_free(ev);
	close(fd);
	return &r;
}

/* The body of a raw response ("" if none). */
static const char *raw_body(const struct raw *r)
{
	const char *e = strstr(r->buf, "\r\n\r\n");

	ck_assert_ptr_nonnull(e);
	return e + 4;
}

START_TEST(test_http_raw)
{
	struct metrics_buf b = { 0 };
	char *cause = NULL, want[64];
	struct raw *r;

	D.cfg.metrics_listen = "127.0.0.1:0";
	ck_assert_int_eq(metrics_init(&D, &cause), 0);
	ck_assert_int_eq(metrics_render_daemon(&D, &b), 0);

	r = raw_http("GET /metrics HTTP/1.0\r\n\r\n");
	ck_assert_msg(strncmp(r->buf, "HTTP/1.0 200 OK\r\n", 17) == 0, "%s",
		      r->buf);
	ck_assert_str_eq(raw_body(r), b.p);

	/* HEAD: the headers of a GET, no body (HTTP/1.0 and 1.1) */
	snprintf(want, sizeof(want), "\r\nContent-Length: %zu\r\n", b.len);
	r = raw_http("HEAD /metrics HTTP/1.0\r\n\r\n");
	ck_assert_msg(strncmp(r->buf, "HTTP/1.0 200 OK\r\n", 17) == 0, "%s",
		      r->buf);
	ck_assert_ptr_nonnull(strstr(r->buf, want));
	ck_assert_ptr_nonnull(strstr(r->buf,
				     "\r\nContent-Type: text/plain; "
				     "version=0.0.4; charset=utf-8\r\n"));
	ck_assert_str_eq(raw_body(r), "");
	r = raw_http("HEAD /metrics HTTP/1.1\r\nHost: x\r\n"
		     "Connection: close\r\n\r\n");
	ck_assert_msg(strncmp(r->buf, "HTTP/1.1 200 OK\r\n", 17) == 0, "%s",
		      r->buf);
	ck_assert_ptr_nonnull(strstr(r->buf, want));
	ck_assert_str_eq(raw_body(r), "");
	r = raw_http("HEAD /nothing HTTP/1.0\r\n\r\n");
	ck_assert_msg(strncmp(r->buf, "HTTP/1.0 404 Not Found\r\n", 24) == 0,
		      "%s", r->buf);
	ck_assert_str_eq(raw_body(r), "");

	r = raw_http("OPTIONS /metrics HTTP/1.0\r\n\r\n");
	ck_assert_msg(strncmp(r->buf, "HTTP/1.0 405 Method Not Allowed\r\n",
			      33) == 0,
		      "%s", r->buf);
	ck_assert_ptr_nonnull(strstr(r->buf, "\r\nAllow: GET, HEAD\r\n"));
	ck_assert_str_eq(raw_body(r), "method not allowed: GET or HEAD\n");
	r = raw_http("GET /x HTTP/1.0\r\n\r\n");
	ck_assert_str_eq(raw_body(r),
			 "not found: the metrics are at /metrics\n");
	metrics_buf_free(&b);
}
END_TEST

/* A file's text (malloc'd). */
static char *slurp_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t len = 0;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_ge(getdelim(&s, &len, '\0', f), 0);
	fclose(f);
	return s;
}

/*
 * Every kcsmux_ series the shipped Prometheus rules and Grafana dashboard
 * use is one a running daemon serves on /metrics from its start (before
 * any request, any SDR cache use or any reload), and the node label they
 * use is the one it exports: an alert or a panel over a series that does
 * not exist is silently empty. Recorded series (with a ':') are the rules'
 * own; kcsmux_fallback is kcsmux-cutover's, written while kcsmuxd is down.
 */
START_TEST(test_monitoring_series)
{
	static const char *const files[] = { KCSMUX_RULES, KCSMUX_DASHBOARD };
	char *cause = NULL, *text, *p, name[128], want[160], sys[128];
	char cmd[160], *cutover = slurp_file(KCSMUX_CUTOVER);
	struct resp *r;
	size_t i, len, checked = 0;

	/* kcsraw loaded: kcsmux_kcsraw_info is there */
	snprintf(sys, sizeof(sys), "%s/sys", tmpdir);
	put_file(sys, "module/kcsraw/version", "1.4.0\n");
	D.sysfs_root = sys;
	D.cfg.metrics_listen = "127.0.0.1:0";
	ck_assert_int_eq(metrics_init(&D, &cause), 0);
	r = http(EVHTTP_REQ_GET, "127.0.0.1", "/metrics");
	ck_assert_int_eq(r->code, 200);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		text = slurp_file(files[i]);
		for (p = text; (p = strstr(p, "kcsmux_")) != NULL; p += len) {
			len = strspn(p,
				     "abcdefghijklmnopqrstuvwxyz0123456789_:");
			if ((p > text && (isalnum((unsigned char)p[-1]) ||
					  p[-1] == '_' || p[-1] == ':')) ||
			    memchr(p, ':', len) != NULL)
				continue; /* inside a name, or recorded */
			ck_assert_uint_lt(len, sizeof(name));
			memcpy(name, p, len);
			name[len] = '\0';
			if (strcmp(name, "kcsmux_fallback") == 0) {
				ck_assert_ptr_nonnull(strstr(
					cutover,
					"echo \"kcsmux_fallback{reason="));
				checked++;
				continue;
			}
			if (strcmp(name, "kcsmux_node") == 0)
				snprintf(want, sizeof(want), "{%s=\"", name);
			else
				snprintf(want, sizeof(want), "\n%s%s", name,
					 strstr(name, "_bucket") ? "{" : "");
			ck_assert_msg(strstr(r->body, want) != NULL ||
					      (strncmp(r->body, want + 1,
						       strlen(want) - 1) == 0),
				      "%s uses %s, which /metrics does not "
				      "have",
				      files[i], name);
			checked++;
		}
		free(text);
	}
	/* the files do use series (the scan saw them) */
	ck_assert_uint_gt(checked, 40);
	free(cutover);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sys);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_http)
{
	struct metrics_buf b = { 0 };
	struct parsed p;
	struct resp *r;
	char *cause = NULL;

	D.cfg.metrics_listen = "127.0.0.1:0";
	ck_assert_int_eq(metrics_init(&D, &cause), 0);
	ck_assert_ptr_null(cause);
	ck_assert_uint_ne(metrics_http_port(&D), 0);

	r = http(EVHTTP_REQ_GET, "127.0.0.1", "/metrics");
	ck_assert_int_eq(r->code, 200);
	ck_assert_str_eq(r->ctype, "text/plain; version=0.0.4; charset=utf-8");
	ck_assert_int_eq(metrics_render_daemon(&D, &b), 0);
	ck_assert_str_eq(r->body, b.p);
	metrics_buf_free(&b);
	parse_exposition(r->body, &p);
	parsed_free(&p);

	/* the counters are read at each request */
	N[0].st.requests = 12345;
	r = http(EVHTTP_REQ_GET, "127.0.0.1", "/metrics?x=1");
	ck_assert_int_eq(r->code, 200);
	ck_assert_ptr_nonnull(strstr(
		r->body,
		"\nkcsmux_requests_total{kcsmux_node=\"ipmi1\"} 12345\n"));

	r = http(EVHTTP_REQ_HEAD, "127.0.0.1", "/metrics");
	ck_assert_int_eq(r->code, 200);
	ck_assert_uint_eq(r->len, 0);

	r = http(EVHTTP_REQ_GET, "127.0.0.1", "/");
	ck_assert_int_eq(r->code, 404);
	r = http(EVHTTP_REQ_GET, "127.0.0.1", "/metricsx");
	ck_assert_int_eq(r->code, 404);
	r = http(EVHTTP_REQ_GET, "127.0.0.1", "/metrics/");
	ck_assert_int_eq(r->code, 404);

	r = http(EVHTTP_REQ_POST, "127.0.0.1", "/metrics");
	ck_assert_int_eq(r->code, 405);
	ck_assert_str_eq(r->allow, "GET, HEAD");
	r = http(EVHTTP_REQ_DELETE, "127.0.0.1", "/metrics");
	ck_assert_int_eq(r->code, 405);
	r = http(EVHTTP_REQ_PUT, "127.0.0.1", "/metrics");
	ck_assert_int_eq(r->code, 405);

	/* one daemon per process */
	ck_assert_int_eq(metrics_init(&D, &cause), -1);
	ck_assert_str_eq(cause, "metrics: already started");
	free(cause);

	metrics_fini(&D);
	ck_assert_uint_eq(metrics_http_port(&D), 0);
	metrics_fini(&D); /* twice is fine */
}
END_TEST

/* unit.test_metrics_ipv6: skipped without an IPv6 loopback */
static bool have_ipv6_loopback(void)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int fd = socket(AF_INET6, SOCK_STREAM, 0);
	bool ok = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;

	if (fd >= 0)
		close(fd);
	return ok;
}

START_TEST(test_http_ipv6)
{
	char *cause = NULL;
	struct resp *r;

	D.cfg.metrics_listen = "[::1]:0";
	ck_assert_int_eq(metrics_init(&D, &cause), 0);
	r = http(EVHTTP_REQ_GET, "::1", "/metrics");
	ck_assert_int_eq(r->code, 200);
}
END_TEST

START_TEST(test_http_bind_fails)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	char listen_on[64], path[128];
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	char *cause = NULL;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, 1), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	snprintf(listen_on, sizeof(listen_on), "127.0.0.1:%u",
		 ntohs(sa.sin_port));
	snprintf(path, sizeof(path), "%s/kcsmux.prom", tmpdir);
	D.cfg.metrics_listen = listen_on;
	D.cfg.metrics_textfile = path;
	ck_assert_int_eq(metrics_init(&D, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, "Address already in use") != NULL, "%s",
		      cause);
	free(cause);
	ck_assert_uint_eq(metrics_http_port(&D), 0);
	ck_assert_int_eq(access(path, F_OK), -1); /* nothing started */
	close(fd);

	/* and it can start afterwards */
	ck_assert_int_eq(metrics_init(&D, &cause), 0);
	ck_assert_int_eq(access(path, F_OK), 0);
	metrics_fini(&D);
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

START_TEST(test_off)
{
	char *cause = NULL;

	ck_assert_int_eq(metrics_init(&D, &cause), 0); /* NULL: off */
	ck_assert_uint_eq(metrics_http_port(&D), 0);
	metrics_fini(&D);
	D.cfg.metrics_listen = "";
	D.cfg.metrics_textfile = "";
	ck_assert_int_eq(metrics_init(&D, &cause), 0);
	ck_assert_uint_eq(metrics_http_port(&D), 0);
	ck_assert_ptr_null(cause);
}
END_TEST

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void loop_for(double s)
{
	struct timeval tv = { (time_t)s, (suseconds_t)((s - (time_t)s) * 1e6) };

	event_base_loopexit(D.base, &tv);
	event_base_dispatch(D.base);
}

START_TEST(test_textfile)
{
	struct metrics_buf b = { 0 };
	char path[128], tmp[160];
	char *cause = NULL, *text;
	struct stat st;
	struct parsed p;

	snprintf(path, sizeof(path), "%s/kcsmux.prom", tmpdir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	D.cfg.metrics_textfile = path;
	umask(077);
	ck_assert_int_eq(metrics_init(&D, &cause), 0);

	/* written at once, complete, readable by node_exporter */
	text = slurp(path);
	ck_assert_int_eq(metrics_render_daemon(&D, &b), 0);
	ck_assert_str_eq(text, b.p);
	metrics_buf_free(&b);
	parse_exposition(text, &p);
	parsed_free(&p);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	ck_assert_int_eq(access(tmp, F_OK), -1);

	/* on demand */
	N[0].st.requests = 777;
	ck_assert_int_eq(metrics_write_textfile(&D, path, &cause), 0);
	ck_assert_ptr_nonnull(
		strstr(slurp(path),
		       "\nkcsmux_requests_total{kcsmux_node=\"ipmi1\"} 777\n"));

	/* and by the timer, every 10 s */
	N[0].st.requests = 888;
	loop_for(METRICS_TEXTFILE_INTERVAL_S - 1);
	ck_assert_ptr_nonnull(
		strstr(slurp(path),
		       "\nkcsmux_requests_total{kcsmux_node=\"ipmi1\"} 777\n"));
	loop_for(1.5);
	ck_assert_ptr_nonnull(
		strstr(slurp(path),
		       "\nkcsmux_requests_total{kcsmux_node=\"ipmi1\"} 888\n"));
	ck_assert_int_eq(access(tmp, F_OK), -1);

	/* removed at exit */
	metrics_fini(&D);
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

/* Whatever is planted at the .tmp name: a FIFO (it would block the
 * daemon), a symbolic link to another file; the write neither blocks nor
 * follows, and the result is a regular file. CK_DEFAULT_TIMEOUT catches a
 * blocked open. */
START_TEST(test_textfile_planted_tmp)
{
	char path[128], tmp[160], victim[160];
	char *cause = NULL;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/planted.prom", tmpdir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(victim, sizeof(victim), "%s/victim", tmpdir);

	ck_assert_int_eq(mkfifo(tmp, 0666), 0);
	ck_assert_int_eq(metrics_write_textfile(&D, path, &cause), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_ptr_nonnull(strstr(slurp(path), "kcsmux_requests_total"));
	ck_assert_int_eq(access(tmp, F_OK), -1);

	f = fopen(victim, "w");
	ck_assert_ptr_nonnull(f);
	fputs("keep\n", f);
	fclose(f);
	ck_assert_int_eq(symlink(victim, tmp), 0);
	ck_assert_int_eq(metrics_write_textfile(&D, path, &cause), 0);
	ck_assert_str_eq(slurp(victim), "keep\n");
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(access(tmp, F_OK), -1);
}
END_TEST

START_TEST(test_textfile_fails)
{
	char path[128];
	char *cause = NULL;

	snprintf(path, sizeof(path), "%s/nodir/kcsmux.prom", tmpdir);
	D.cfg.metrics_listen = "127.0.0.1:0";
	D.cfg.metrics_textfile = path;
	ck_assert_int_eq(metrics_init(&D, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(
		strstr(cause, "metrics_textfile: open ") == cause &&
			strstr(cause,
			       "nodir/kcsmux.prom.tmp: No such file or directory"),
		"%s", cause);
	free(cause);
	/* the HTTP server started first is stopped again */
	ck_assert_uint_eq(metrics_http_port(&D), 0);

	/* a directory in the way of the rename: no .tmp left behind */
	snprintf(path, sizeof(path), "%s/dir.prom", tmpdir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ck_assert_int_eq(metrics_write_textfile(&D, path, &cause), -1);
	ck_assert_msg(strstr(cause, "metrics_textfile: rename ") == cause, "%s",
		      cause);
	free(cause);
	ck_assert_int_eq(access("dir.prom.tmp", F_OK), -1);
	{
		char tmp[160];

		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		ck_assert_int_eq(access(tmp, F_OK), -1);
	}
	rmdir(path);
}
END_TEST

static Suite *metrics_ipv6_suite(void)
{
	Suite *s = suite_create("metrics ipv6");
	TCase *ts = tcase_create("serve ipv6");

	tcase_add_checked_fixture(ts, daemon_setup, daemon_teardown);
	tcase_set_timeout(ts, 60);
	tcase_add_test(ts, test_http_ipv6);
	suite_add_tcase(s, ts);
	return s;
}

static Suite *metrics_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("render");
	TCase *tp = tcase_create("parser");
	TCase *ts = tcase_create("serve");

	tcase_add_test(tc, test_golden_no_nodes);
	tcase_add_test(tc, test_counters_exact);
	tcase_add_test(tc, test_histogram_exact);
	tcase_add_test(tc, test_escaping);
	suite_add_tcase(s, tc);

	tcase_add_test(tp, test_parser_rejects);
	tcase_add_test(tp, test_parser_accepts);
	suite_add_tcase(s, tp);

	tcase_add_checked_fixture(ts, daemon_setup, daemon_teardown);
	tcase_set_timeout(ts, 60);
	tcase_add_test(ts, test_daemon_snapshot);
	tcase_add_test(ts, test_daemon_health);
	tcase_add_test(ts, test_daemon_node_order);
	tcase_add_test(ts, test_http);
	tcase_add_test(ts, test_monitoring_series);
	tcase_add_test(ts, test_http_raw);
	tcase_add_test(ts, test_http_bind_fails);
	tcase_add_test(ts, test_off);
	tcase_add_test(ts, test_textfile);
	tcase_add_test(ts, test_textfile_fails);
	tcase_add_test(ts, test_textfile_planted_tmp);
	suite_add_tcase(s, ts);
	return s;
}

int main(int argc, char **argv)
{
	bool ipv6 = argc > 1 && strcmp(argv[1], "ipv6") == 0;
	SRunner *sr;
	int failed;

	if (ipv6 && !have_ipv6_loopback()) {
		fprintf(stderr, "test_metrics ipv6: no IPv6 loopback here: "
				"skipped\n");
		return KCSMUX_TEST_SKIP;
	}
	sr = srunner_create(ipv6 ? metrics_ipv6_suite() : metrics_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
