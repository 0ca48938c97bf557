// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - Prometheus text exposition of the per-node accounting, over
 * HTTP (libevent's evhttp, in the daemon's loop) and as a node_exporter
 * textfile (see metrics.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <event2/buffer.h>
#include <event2/listener.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "backend/backend.h"
#include "util/error.h"
#include "util/io.h"
#include "util/log.h"
#include "admin/metrics.h"
#include "admin/metrics_conns.h"

#define NS_PER_S      1000000000ULL
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* --- the output: an evbuffer, and whether an append failed --- */

struct out {
	struct evbuffer *ev;
	bool oom;
};

static void out_add(struct out *o, const char *s, size_t n)
{
	if (!o->oom && evbuffer_add(o->ev, s, n) < 0)
		o->oom = true;
}

static void out_str(struct out *o, const char *s)
{
	out_add(o, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void
out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->oom)
		return;
	va_start(ap, fmt);
	if (evbuffer_add_vprintf(o->ev, fmt, ap) < 0)
		o->oom = true;
	va_end(ap);
}

/* --- the format --- */

/* A label value: backslash, double quote and newline escaped. */
static void put_label_value(struct out *o, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			out_str(o, "\\\\");
			break;
		case '"':
			out_str(o, "\\\"");
			break;
		case '\n':
			out_str(o, "\\n");
			break;
		default:
			out_add(o, s, 1);
		}
	}
}

/* HELP text: backslash and newline escaped. */
static void put_help(struct out *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			out_str(o, "\\\\");
		else if (*s == '\n')
			out_str(o, "\\n");
		else
			out_add(o, s, 1);
	}
}

/* NS as seconds, exactly: "0.00005", "1.5", "10". */
static void put_seconds(struct out *o, uint64_t ns)
{
	char frac[16];
	size_t n;

	if (ns % NS_PER_S == 0) {
		out_printf(o, "%llu", (unsigned long long)(ns / NS_PER_S));
		return;
	}
	n = (size_t)snprintf(frac, sizeof(frac), "%09llu",
			     (unsigned long long)(ns % NS_PER_S));
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	out_printf(o, "%llu.%s", (unsigned long long)(ns / NS_PER_S), frac);
}

/*
 * The metric families, in the order they are rendered: each declared
 * once, its name, type and help, and where its value is: VAL's kind and
 * OFF, the value's offset in struct metrics_node (per node, V_NODE_*) or
 * in struct metrics_snapshot (one sample, V_SNAP_*); WHEN, if not NULL,
 * says whether the snapshot has the family at all.
 */
enum value_kind {
	V_INFO,		/* kcsmux_info's labels */
	V_RELOADS,	/* applied and rejected */
	V_SNAP_UINT,	/* unsigned int */
	V_SNAP_U64,	/* uint64_t */
	V_SNAP_BOOL,	/* bool, as 1 or 0 */
	V_SNAP_SECONDS, /* uint64_t ns */
	V_NODE_UINT,	/* unsigned int */
	V_NODE_U64,	/* uint64_t */
	V_NODE_SECONDS, /* uint64_t ns */
	V_NODE_PPM,	/* double ppm, as a ratio */
	V_NODE_PPM_U32, /* uint32_t ppm, as a ratio */
	V_NODE_HIST,	/* struct nodestats_hist */
	V_NODE_ERRORS,	/* the error kinds */
	V_NODE_CC,	/* responses by completion code */
};

struct family {
	const char *name, *type, *help;
	enum value_kind val;
	size_t off;
	/* rendered only when true of the snapshot; NULL: always */
	bool (*when)(const struct metrics_snapshot *s);
};

#define NODE(f) offsetof(struct metrics_node, f)
#define SNAP(f) offsetof(struct metrics_snapshot, f)

static const struct family families[] = {
	{ "kcsmux_info", "gauge",
	  "The daemon's version, backend and interface device (always 1).",
	  V_INFO, 0, NULL },
	{ "kcsmux_interface_inflight", "gauge",
	  "Requests submitted to the interface and not yet completed.",
	  V_SNAP_UINT, SNAP(inflight), NULL },
	{ "kcsmux_clients", "gauge", "Open files of the node.", V_NODE_UINT,
	  NODE(clients), NULL },
	{ "kcsmux_queue_depth", "gauge",
	  "Requests waiting in the node's queue in the daemon.", V_NODE_UINT,
	  NODE(qlen), NULL },
	{ "kcsmux_opens_total", "counter", "Opens of the node's device.",
	  V_NODE_U64, NODE(cnt.opens), NULL },
	{ "kcsmux_requests_total", "counter",
	  "Requests accepted into the node's queue.", V_NODE_U64,
	  NODE(st.requests), NULL },
	{ "kcsmux_responses_total", "counter",
	  "Requests finished on the interface, any outcome.", V_NODE_U64,
	  NODE(st.completed), NULL },
	{ "kcsmux_errors_total", "counter",
	  "Failures by kind: completion (finished with a non-zero "
	  "completion code or the interface gave up), busy (EBUSY: "
	  "max_outstanding, or an open over max_clients), denied (refused "
	  "by the access list, cc 0xd4), rejected (EBUSY: the node's queue "
	  "was full).",
	  V_NODE_ERRORS, 0, NULL },
	{ "kcsmux_completion_codes_total", "counter",
	  "Responses from the BMC by completion code: cc is 0x00, a "
	  "generic code 0xc0 to 0xd6, 0xff, or other (command-specific "
	  "and OEM codes). Not errors by itself: a non-zero code also "
	  "counts as a completion error in kcsmux_errors_total.",
	  V_NODE_CC, 0, NULL },
	{ "kcsmux_coalesced_total", "counter",
	  "Sensor reads answered with another client's identical one in "
	  "flight on the node (coalesce = yes), not sent to the BMC.",
	  V_NODE_U64, NODE(cnt.coalesced), NULL },
	{ "kcsmux_coalesced_recent_total", "counter",
	  "Of kcsmux_coalesced_total, the reads answered at once with "
	  "another client's answer completed within the node's "
	  "coalesce_window_ms.",
	  V_NODE_U64, NODE(cnt.coalesced_recent), NULL },
	{ "kcsmux_cancelled_total", "counter",
	  "Requests dropped from the node's queue before they ran (their "
	  "client closed its file or gave up): not an error.",
	  V_NODE_U64, NODE(st.cancelled), NULL },
	{ "kcsmux_request_duration_seconds", "histogram",
	  "Time from a client's request to its response, for requests "
	  "that went to the interface.",
	  V_NODE_HIST, NODE(st.latency), NULL },
	{ "kcsmux_queue_wait_seconds", "histogram",
	  "Time requests waited in the node's queue before they started "
	  "on the interface.",
	  V_NODE_HIST, NODE(st.queue_wait), NULL },
	{ "kcsmux_service_seconds_total", "counter",
	  "Time the interface spent on the node's requests.", V_NODE_SECONDS,
	  NODE(st.service_ns), NULL },
	{ "kcsmux_poller_cpu_seconds_total", "counter",
	  "CPU time kcsraw's poller spent on the node's requests "
	  "(spinning included).",
	  V_NODE_SECONDS, NODE(st.cpu_ns), NULL },
	{ "kcsmux_node_daemon_cpu_seconds_total", "counter",
	  "CPU time kcsmuxd itself spent on the node's behalf: its CUSE "
	  "requests, submissions, completions and parked SDR requests "
	  "answered (the rest of kcsmux_daemon_cpu_seconds_total is no "
	  "node's). Counted in cpu_budget with the poller's.",
	  V_NODE_SECONDS, NODE(st.daemon_cpu_ns), NULL },
	{ "kcsmux_poller_spin_seconds_total", "counter",
	  "Time kcsraw's poller spent busy-polling for the node's "
	  "requests.",
	  V_NODE_SECONDS, NODE(st.spin_ns), NULL },
	{ "kcsmux_poller_sleeps_total", "counter",
	  "Sleeps (timer or IRQ) of kcsraw's poller during the node's "
	  "requests.",
	  V_NODE_U64, NODE(cnt.sleeps), NULL },
	{ "kcsmux_poller_cpu_ratio", "gauge",
	  "Recent poller CPU use of the node's requests in CPUs, decayed "
	  "over about 1 s.",
	  V_NODE_PPM, NODE(poller_cpu_ppm), NULL },
	{ "kcsmux_budget_cpu_ratio", "gauge",
	  "Recent CPU use of the node in CPUs, the poller's and kcsmuxd's "
	  "own on its behalf, decayed over about 1 s: what cpu_budget is "
	  "checked against.",
	  V_NODE_PPM, NODE(cpu_ppm), NULL },
	{ "kcsmux_cpu_budget_ratio", "gauge",
	  "The node's cpu_budget in CPUs; 0: no budget.", V_NODE_PPM_U32,
	  NODE(cpu_budget_ppm), NULL },
	{ "kcsmux_cpu_budget_throttled_total", "counter",
	  "Requests run with the cheapest polling because the node was "
	  "over its cpu_budget.",
	  V_NODE_U64, NODE(cnt.throttled), NULL },
	{ "kcsmux_cpu_budget_held_total", "counter",
	  "Times the node's queue was held until it was back under its "
	  "cpu_budget.",
	  V_NODE_U64, NODE(cnt.held), NULL },
	/* the interface's health (kcsraw backend) */
	{ "kcsmux_interface_completions_total", "counter",
	  "Transactions the interface completed, any outcome.", V_SNAP_U64,
	  SNAP(health.completions), NULL },
	{ "kcsmux_interface_hosed_total", "counter",
	  "Transactions the KCS state machine gave up on (answered with "
	  "cc 0xFF).",
	  V_SNAP_U64, SNAP(health.hosed), NULL },
	{ "kcsmux_interface_kcs_errors_total", "counter",
	  "KCS timeouts and protocol errors kcsraw saw, recovered or not.",
	  V_SNAP_U64, SNAP(health.kcs_errors), NULL },
	{ "kcsmux_interface_retries_total", "counter",
	  "KCS error recoveries kcsraw started.", V_SNAP_U64,
	  SNAP(health.retries), NULL },
	/* the SDR/FRU cache (sdr_cache = yes); zero until a node uses it,
	 * but there from the start, so rate() over them is never empty */
	{ "kcsmux_sdr_cache_hits_total", "counter",
	  "SDR and FRU reads of the node answered from the daemon's memory.",
	  V_NODE_U64, NODE(cnt.sdr_hits), NULL },
	{ "kcsmux_sdr_cache_misses_total", "counter",
	  "SDR and FRU reads of the node that went to the BMC (cache "
	  "failed or off, or a read it cannot answer).",
	  V_NODE_U64, NODE(cnt.sdr_misses), NULL },
	{ "kcsmux_sdr_cache_fills_total", "counter",
	  "Times an SDR repository was read whole into memory.", V_SNAP_U64,
	  SNAP(sdr.fills), NULL },
	{ "kcsmux_sdr_cache_revalidations_total", "counter",
	  "Get SDR Repository Info checks of the cached repositories.",
	  V_SNAP_U64, SNAP(sdr.revalidations), NULL },
	{ "kcsmux_sdr_cache_invalidations_total", "counter",
	  "Times the cache was dropped (a write, clear or reset from any "
	  "node, a changed repository).",
	  V_SNAP_U64, SNAP(sdr.invalidations), NULL },
	{ "kcsmux_sdr_cache_bmc_requests_total", "counter",
	  "Requests the cache itself sent to the BMC (fills, checks).",
	  V_SNAP_U64, SNAP(sdr.internal), NULL },
	{ "kcsmux_sdr_cache_records", "gauge",
	  "SDRs of the main repository held in memory.", V_SNAP_UINT,
	  SNAP(sdr_records), NULL },
	/* the daemon itself */
	{ "kcsmux_daemon_cpu_seconds_total", "counter",
	  "CPU time of kcsmuxd itself (user and system, all its threads); "
	  "the poller's is in kcsmux_poller_cpu_seconds_total, its part "
	  "per node in kcsmux_node_daemon_cpu_seconds_total.",
	  V_SNAP_SECONDS, SNAP(daemon_cpu_ns), NULL },
	{ "kcsmux_events_dropped_total", "counter",
	  "Asynchronous events (the BMC's event messages) dropped because "
	  "a subscriber had event_backlog unread, or no one subscribed and "
	  "the backlog was full.",
	  V_SNAP_U64, SNAP(events_dropped), NULL },
	/* reloads */
	{ "kcsmux_reloads_total", "counter",
	  "Configuration reloads (SIGHUP, kcsmuxctl reload) by result.",
	  V_RELOADS, 0, NULL },
	{ "kcsmux_reload_last_success", "gauge",
	  "1 if the last reload applied (or none was tried), 0 if it was "
	  "rejected and the previous configuration still runs.",
	  V_SNAP_BOOL, SNAP(last_reload_ok), NULL },
	{ "kcsmux_reload_last_timestamp_seconds", "gauge",
	  "When the last reload was tried, in seconds since the epoch; 0: "
	  "none yet.",
	  V_SNAP_U64, SNAP(last_reload_unix), NULL },
};

#define FIELD(p, off, type) (*(const type *)((const char *)(p) + (off)))

static void family_header(struct out *o, const struct family *f)
{
	out_printf(o, "# HELP %s ", f->name);
	put_help(o, f->help);
	out_printf(o, "\n# TYPE %s %s\n", f->name, f->type);
}

/*
 * The node's label: not "node", which is the host's in most setups (the
 * textfile collector and many relabelings turn a second one into
 * "exported_node").
 */
#define NODE_LABEL "kcsmux_node"

/* NAME{kcsmux_node="N" and EXTRA (",k=\"v\"" or "")}: the value is up to
 * the caller */
static void sample_start(struct out *o, const char *name, const char *suffix,
			 const struct metrics_node *n, const char *extra)
{
	out_printf(o, "%s%s{" NODE_LABEL "=\"", name, suffix);
	put_label_value(o, n->name);
	out_printf(o, "\"%s} ", extra);
}

static void histogram(struct out *o, const char *name,
		      const struct metrics_node *n,
		      const struct nodestats_hist *h)
{
	uint64_t cum = 0;
	size_t i;

	for (i = 0; i < NODESTATS_NBUCKETS; i++) {
		cum += h->bucket[i];
		out_printf(o, "%s_bucket{" NODE_LABEL "=\"", name);
		put_label_value(o, n->name);
		out_str(o, "\",le=\"");
		if (i < NODESTATS_NBOUNDS)
			put_seconds(o, nodestats_bounds_ns[i]);
		else
			out_str(o, "+Inf");
		out_printf(o, "\"} %llu\n", (unsigned long long)cum);
	}
	sample_start(o, name, "_sum", n, "");
	put_seconds(o, h->sum_ns);
	out_str(o, "\n");
	sample_start(o, name, "_count", n, "");
	/* +Inf == _count even if the buckets were ever out of step */
	out_printf(o, "%llu\n", (unsigned long long)cum);
}

static void errors(struct out *o, const char *name,
		   const struct metrics_node *n)
{
	static const char *const kinds[] = {
		"completion",
		"busy",
		"denied",
		"rejected",
	};
	const uint64_t v[] = {
		n->st.errors,
		n->cnt.busy,
		n->cnt.denied,
		n->st.rejected,
	};
	char extra[32];
	size_t k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		snprintf(extra, sizeof(extra), ",kind=\"%s\"", kinds[k]);
		sample_start(o, name, "", n, extra);
		out_printf(o, "%llu\n", (unsigned long long)v[k]);
	}
}

static void completion_codes(struct out *o, const char *name,
			     const struct metrics_node *n)
{
	char extra[32];
	size_t i;

	for (i = 0; i < NODESTATS_NCC; i++) {
		snprintf(extra, sizeof(extra), ",cc=\"%s\"",
			 nodestats_cc_label(i));
		sample_start(o, name, "", n, extra);
		out_printf(o, "%llu\n", (unsigned long long)n->st.cc[i]);
	}
}

/* Family F's samples of node N. */
static void node_samples(struct out *o, const struct family *f,
			 const struct metrics_node *n)
{
	switch (f->val) {
	case V_NODE_HIST:
		histogram(o, f->name, n,
			  &FIELD(n, f->off, struct nodestats_hist));
		return;
	case V_NODE_ERRORS:
		errors(o, f->name, n);
		return;
	case V_NODE_CC:
		completion_codes(o, f->name, n);
		return;
	default:
		break;
	}
	sample_start(o, f->name, "", n, "");
	switch (f->val) {
	case V_NODE_UINT:
		out_printf(o, "%u\n", FIELD(n, f->off, unsigned int));
		break;
	case V_NODE_U64:
		out_printf(o, "%llu\n",
			   (unsigned long long)FIELD(n, f->off, uint64_t));
		break;
	case V_NODE_SECONDS:
		put_seconds(o, FIELD(n, f->off, uint64_t));
		out_str(o, "\n");
		break;
	case V_NODE_PPM:
		out_printf(o, "%.9g\n", FIELD(n, f->off, double) / 1e6);
		break;
	case V_NODE_PPM_U32:
		out_printf(o, "%.9g\n",
			   (double)FIELD(n, f->off, uint32_t) / 1e6);
		break;
	default:
		break;
	}
}

/* Family F's one sample (or two: reloads) from the snapshot. */
static void snap_samples(struct out *o, const struct family *f,
			 const struct metrics_snapshot *s)
{
	switch (f->val) {
	case V_INFO:
		out_printf(o, "%s{version=\"", f->name);
		put_label_value(o, s->version ? s->version : "");
		out_str(o, "\",backend=\"");
		put_label_value(o, s->backend ? s->backend : "");
		out_str(o, "\",device=\"");
		put_label_value(o, s->device ? s->device : "");
		out_str(o, "\"} 1\n");
		break;
	case V_RELOADS:
		out_printf(o, "%s{result=\"applied\"} %llu\n", f->name,
			   (unsigned long long)(s->reloads -
						s->reload_failures));
		out_printf(o, "%s{result=\"rejected\"} %llu\n", f->name,
			   (unsigned long long)s->reload_failures);
		break;
	case V_SNAP_UINT:
		out_printf(o, "%s %u\n", f->name,
			   FIELD(s, f->off, unsigned int));
		break;
	case V_SNAP_U64:
		out_printf(o, "%s %llu\n", f->name,
			   (unsigned long long)FIELD(s, f->off, uint64_t));
		break;
	case V_SNAP_BOOL:
		out_printf(o, "%s %d\n", f->name,
			   FIELD(s, f->off, bool) ? 1 : 0);
		break;
	case V_SNAP_SECONDS:
		out_printf(o, "%s ", f->name);
		put_seconds(o, FIELD(s, f->off, uint64_t));
		out_str(o, "\n");
		break;
	default:
		break;
	}
}

static bool per_node(const struct family *f)
{
	return f->val >= V_NODE_UINT;
}

int metrics_render_ev(struct evbuffer *ev, const struct metrics_snapshot *s)
{
	struct out o = { .ev = ev };
	const struct family *f;
	size_t i;

	for (f = families; f < families + ARRAY_SIZE(families); f++) {
		if (f->when && !f->when(s))
			continue;
		family_header(&o, f);
		if (!per_node(f)) {
			snap_samples(&o, f, s);
			continue;
		}
		for (i = 0; i < s->nnodes; i++)
			node_samples(&o, f, &s->nodes[i]);
	}
	return o.oom ? -1 : 0;
}

/* Append EV's text to B (NUL-terminated). 0 or -1 (B->oom). */
static int ev_to_buf(struct evbuffer *ev, struct metrics_buf *b)
{
	size_t len = evbuffer_get_length(ev);
	char *p;

	if (b->oom)
		return -1;
	p = realloc(b->p, b->len + len + 1);
	if (!p) {
		b->oom = true;
		return -1;
	}
	b->p = p;
	evbuffer_remove(ev, b->p + b->len, len);
	b->len += len;
	b->p[b->len] = '\0';
	return 0;
}

void metrics_buf_free(struct metrics_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

int metrics_render(struct metrics_buf *b, const struct metrics_snapshot *s)
{
	struct evbuffer *ev = evbuffer_new();
	int rv = -1;

	if (ev && metrics_render_ev(ev, s) == 0)
		rv = ev_to_buf(ev, b);
	else
		b->oom = true;
	if (ev)
		evbuffer_free(ev);
	return rv;
}

/* --- the daemon's snapshot --- */

__attribute__((weak)) uint64_t metrics_process_cpu_ns(void)
{
	struct timespec cpu;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) < 0)
		return 0;
	return (uint64_t)cpu.tv_sec * 1000000000ULL + (uint64_t)cpu.tv_nsec;
}

int metrics_render_daemon_ev(struct daemon *d, struct evbuffer *ev)
{
	struct metrics_snapshot s = {
		.version = KCSMUX_VERSION,
		.device = d->cfg.device,
		.reloads = d->reloads,
		.reload_failures = d->reload_failures,
		.last_reload_ok = d->last_reload_ok,
		.last_reload_unix = d->last_reload_unix,
		.events_dropped = d->events_dropped,
	};
	struct metrics_node *mn = NULL;
	uint64_t now = now_ns();
	struct node **v, *n;
	size_t i, count = 0;
	int rv;

	/* The live nodes in the one order (core_nodes: the configuration's,
	 * then the name), as kcsmuxctl lists them. */
	v = core_nodes(d, &count);
	if (count && !(mn = calloc(count, sizeof(*mn)))) {
		free(v);
		return -1;
	}
	for (i = 0; i < count; i++) {
		struct metrics_node *m = &mn[s.nnodes];

		n = v[i];
		m->name = n->conf.name;
		m->st = n->st;
		m->cnt = n->cnt;
		m->clients = n->nclients;
		m->qlen = n->flow.qlen;
		m->cpu_ppm = nodestats_cpu_ppm(&n->st.cpu, now);
		m->poller_cpu_ppm = nodestats_cpu_ppm(&n->st.poller_cpu, now);
		m->cpu_budget_ppm = n->conf.pol.cpu_budget_ppm;
		s.nnodes++;
	}
	free(v);
	s.nodes = mn;
	s.daemon_cpu_ns = metrics_process_cpu_ns();
	if (d->sdrc) {
		s.sdr_cache = true;
		s.sdr = *sdrc_stats(d->sdrc);
		s.sdr_records = sdrc_records(d->sdrc);
	}
	if (d->be) {
		s.backend = d->be->ops->name;
		s.inflight = d->be->inflight;
		s.health = d->be->health;
	}
	rv = metrics_render_ev(ev, &s);
	free(mn);
	return rv;
}

int metrics_render_daemon(struct daemon *d, struct metrics_buf *b)
{
	struct evbuffer *ev = evbuffer_new();
	int rv = -1;

	if (ev && metrics_render_daemon_ev(d, ev) == 0)
		rv = ev_to_buf(ev, b);
	else
		b->oom = true;
	if (ev)
		evbuffer_free(ev);
	return rv;
}

/* --- serving --- */

/* The metrics server's state, d->mx (metrics_init allocates it,
 * metrics_fini frees it); the callbacks get it as their arg. */
struct metrics {
	struct daemon *d;
	struct evhttp *http;
	struct evhttp_bound_socket *sock;
	struct event *timer;
	char *textfile;
	struct log_rl rl;
	struct event *resume;	     /* re-enables accepting */
	bool paused;		     /* listener disabled after EMFILE */
	int dirfd;		     /* the textfile's directory (O_PATH) */
	char *base;		     /* the textfile's name in it */
	unsigned long accept_errors; /* accept() failed */
	struct mconns *conns;	     /* metrics_conns.c's */
};

/*
 * The one exception to the context rule here: libevent calls the
 * listener's error callback (on_accept_error) with the listener's own
 * arg, which evhttp set to its struct evhttp, never one of ours, and
 * neither evhttp nor the listener has a way back to ours. So the server
 * whose listener that is is noted here (http_start) and checked against
 * the arg. One daemon, one metrics server.
 */
static struct metrics *accepting;

unsigned long metrics_http_accept_errors(const struct daemon *d)
{
	return d->mx != NULL ? d->mx->accept_errors : 0;
}

unsigned int metrics_http_conns(const struct daemon *d)
{
	return d->mx != NULL ? mconns_count(d->mx->conns) : 0;
}

unsigned long metrics_http_refused(const struct daemon *d)
{
	return d->mx != NULL ? mconns_refused(d->mx->conns) : 0;
}

static void resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct metrics *mx = arg;

	(void)fd;
	(void)what;
	evconnlistener_enable(evhttp_bound_socket_get_listener(mx->sock));
	mx->paused = false;
}

static void pause_accepting(struct metrics *mx, const char *why)
{
	struct evconnlistener *lev = evhttp_bound_socket_get_listener(mx->sock);

	if (!lev || mx->paused)
		return;
	evconnlistener_disable(lev);
	mx->paused = true;
	log_ratelimited(&mx->rl, LOG_WARNING,
			"metrics: accept: %s: not "
			"accepting for %d s",
			why, METRICS_EMFILE_RETRY_S);
}

/* EMFILE/ENFILE: libevent would retry at once, forever (100% CPU and a
 * log line each time); pause, and try again in a second. */
static void on_accept_error(struct evconnlistener *lev, void *arg)
{
	struct metrics *mx = accepting;
	struct timeval tv = { METRICS_EMFILE_RETRY_S, 0 };
	int err = errno;

	(void)lev;
	if (mx == NULL || mx->http != arg)
		return;
	mx->accept_errors++;
	if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
		pause_accepting(mx, strerror(err));
		evtimer_add(mx->resume, &tv);
		return;
	}
	log_ratelimited(&mx->rl, LOG_WARNING, "metrics: accept: %s",
			strerror(err));
}

/* libevent 2.1 sends a body with a reply to HEAD: send none, and the
 * Content-Length a GET would have had. */
static void send_head(struct evhttp_request *req, int code, const char *reason,
		      size_t len)
{
	char v[32];

	snprintf(v, sizeof(v), "%zu", len);
	evhttp_add_header(evhttp_request_get_output_headers(req),
			  "Content-Length", v);
	evhttp_send_reply(req, code, reason, NULL);
}

static void reply_text(struct evhttp_request *req, int code, const char *reason,
		       const char *text)
{
	struct evbuffer *body;

	evhttp_add_header(evhttp_request_get_output_headers(req),
			  "Content-Type", "text/plain; charset=utf-8");
	if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
		send_head(req, code, reason, strlen(text));
		return;
	}
	body = evbuffer_new();
	if (body)
		evbuffer_add(body, text, strlen(text));
	evhttp_send_reply(req, code, reason, body);
	if (body)
		evbuffer_free(body);
}

static void on_http(struct evhttp_request *req, void *arg)
{
	struct daemon *d = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	struct evbuffer *body;

	if (!path || strcmp(path, "/metrics") != 0) {
		reply_text(req, HTTP_NOTFOUND, "Not Found",
			   "not found: the metrics are at /metrics\n");
		return;
	}
	if (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD) {
		evhttp_add_header(evhttp_request_get_output_headers(req),
				  "Allow", "GET, HEAD");
		reply_text(req, HTTP_BADMETHOD, "Method Not Allowed",
			   "method not allowed: GET or HEAD\n");
		return;
	}
	body = evbuffer_new();
	if (!body || metrics_render_daemon_ev(d, body) < 0) {
		if (body)
			evbuffer_free(body);
		reply_text(req, HTTP_INTERNAL, "Internal Server Error",
			   "out of memory\n");
		return;
	}
	evhttp_add_header(evhttp_request_get_output_headers(req),
			  "Content-Type", METRICS_CONTENT_TYPE);
	if (cmd == EVHTTP_REQ_HEAD)
		send_head(req, HTTP_OK, "OK", evbuffer_get_length(body));
	else
		evhttp_send_reply(req, HTTP_OK, "OK", body);
	evbuffer_free(body);
}

/* "HOST:PORT" or "[V6ADDR]:PORT" (config.c has checked the shape). */
static int split_listen(const char *v, char **host, unsigned short *port)
{
	const char *colon = strrchr(v, ':');
	const char *h = v, *he = colon;
	char *end;
	unsigned long p;

	if (!colon || colon == v)
		return -1;
	if (*v == '[') {
		if (colon[-1] != ']' || colon - v < 3)
			return -1;
		h = v + 1;
		he = colon - 1;
	}
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || p > 65535)
		return -1;
	*host = strndup(h, (size_t)(he - h));
	if (!*host)
		return -1;
	*port = (unsigned short)p;
	return 0;
}

bool metrics_listen_loopback(const char *listen)
{
	struct in6_addr a6;
	struct in_addr a4;
	unsigned short port;
	char *host = NULL;
	bool lo = false;

	if (split_listen(listen, &host, &port) < 0)
		return false;
	if (strcmp(host, "localhost") == 0)
		lo = true;
	else if (inet_pton(AF_INET, host, &a4) == 1)
		lo = (ntohl(a4.s_addr) >> 24) == 127;
	else if (inet_pton(AF_INET6, host, &a6) == 1)
		lo = IN6_IS_ADDR_LOOPBACK(&a6) ||
		     (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	free(host);
	return lo;
}

static int http_start(struct metrics *mx, const char *listen, char **cause)
{
	struct daemon *d = mx->d;
	char *host = NULL;
	unsigned short port;
	int err;

	if (split_listen(listen, &host, &port) < 0) {
		*cause = xasprintf("metrics_listen: bad address '%s'", listen);
		return -1;
	}
	mx->http = evhttp_new(d->base);
	if (!mx->http) {
		free(host);
		*cause = xasprintf("metrics_listen: evhttp_new failed");
		return -1;
	}
	/* Every method reaches on_http, which answers 405 (not evhttp's
	 * 501) to all but GET and HEAD. */
	evhttp_set_allowed_methods(
		mx->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD | EVHTTP_REQ_POST |
				  EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
				  EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE |
				  EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
	evhttp_set_timeout(mx->http, 10);
	evhttp_set_max_headers_size(mx->http, 8192);
	evhttp_set_max_body_size(mx->http, 4096);
	evhttp_set_gencb(mx->http, on_http, d);
	errno = 0;
	mx->sock = evhttp_bind_socket_with_handle(mx->http, host, port);
	if (!mx->sock) {
		err = errno;
		*cause = xasprintf("metrics_listen %s: cannot listen%s%s",
				   listen, err ? ": " : "",
				   err ? strerror(err) : "");
		free(host);
		evhttp_free(mx->http);
		mx->http = NULL;
		return -1;
	}
	free(host);
	mx->resume = evtimer_new(d->base, resume_cb, mx);
	if (!mx->resume ||
	    (mx->conns = mconns_start(mx->http, d->base)) == NULL) {
		*cause = xasprintf("metrics_listen: out of memory");
		return -1;
	}
	evconnlistener_set_error_cb(evhttp_bound_socket_get_listener(mx->sock),
				    on_accept_error);
	accepting = mx;
	log_info("metrics: serving http://%s/metrics", listen);
	if (!metrics_listen_loopback(listen))
		log_warn("metrics_listen %s is not a loopback address: anyone "
			 "who reaches the port reads the metrics (no "
			 "authentication)",
			 listen);
	return 0;
}

unsigned int metrics_http_port(const struct daemon *d)
{
	const struct metrics *mx = d->mx;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd;

	if (mx == NULL || !mx->sock)
		return 0;
	fd = evhttp_bound_socket_get_fd(mx->sock);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

/* PATH's directory (O_PATH) into *dirfd and its last component. */
static const char *open_dir_of(const char *path, int *dirfd)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	if (slash == NULL) {
		*dirfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		return path;
	}
	dir = slash == path ? strdup("/") :
			      strndup(path, (size_t)(slash - path));
	*dirfd = dir ? open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	free(dir);
	return slash + 1;
}

int metrics_write_textfile(struct daemon *d, const char *path, char **cause)
{
	struct evbuffer *b = evbuffer_new();
	char *tmp = NULL;
	const char *what, *base;
	struct stat st;
	const struct metrics *mx = d->mx;
	int fd = -1, dfd, err;
	bool own = mx != NULL && mx->dirfd > 0 && mx->textfile != NULL &&
		   strcmp(path, mx->textfile) == 0;

	/*
	 * Everything happens relative to the file's directory: the daemon's
	 * own textfile's, opened once at start (the seccomp filter lets it
	 * write there and nowhere else), or for another PATH its own.
	 */
	what = "open";
	if (own) {
		dfd = mx->dirfd;
		base = mx->base;
	} else {
		base = open_dir_of(path, &dfd);
		if (dfd < 0) {
			*cause = xasprintf("metrics_textfile: open %s.tmp: %s",
					   path, strerror(errno));
			if (b)
				evbuffer_free(b);
			return -1;
		}
	}
	tmp = xasprintf("%s.tmp", base);
	if (!tmp || !b || metrics_render_daemon_ev(d, b) < 0) {
		free(tmp);
		if (b)
			evbuffer_free(b);
		if (!own)
			close(dfd);
		*cause = xasprintf("metrics_textfile %s: out of memory", path);
		return -1;
	}
	/*
	 * A new file, never one that is there: whatever sits at the .tmp
	 * name (a FIFO that would block the daemon's only thread, a link to
	 * another file, a leftover) is removed first (unlink follows
	 * nothing), then created with O_EXCL; O_NONBLOCK and the fstat
	 * check are a second guard.
	 */
	what = "open";
	fd = openat(dfd, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC |
			    O_NOFOLLOW,
		    0644);
	if (fd < 0 && errno == EEXIST && unlinkat(dfd, tmp, 0) == 0)
		fd = openat(dfd, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK |
				    O_CLOEXEC | O_NOFOLLOW,
			    0644);
	if (fd < 0)
		goto fail;
	what = "fstat";
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	/* node_exporter reads it as another user; the umask may differ. */
	what = "chmod";
	if (fchmod(fd, 0644) < 0)
		goto fail;
	what = "write";
	if (write_all(fd, evbuffer_pullup(b, -1), evbuffer_get_length(b)) < 0)
		goto fail;
	what = "fsync";
	if (fsync(fd) < 0)
		goto fail;
	what = "close";
	err = close(fd);
	fd = -1;
	if (err < 0)
		goto fail;
	what = "rename";
	if (renameat(dfd, tmp, dfd, base) < 0)
		goto fail;
	free(tmp);
	evbuffer_free(b);
	if (!own)
		close(dfd);
	return 0;
fail:
	err = errno;
	*cause = xasprintf("metrics_textfile: %s %s%s: %s", what, path,
			   strcmp(what, "rename") ? ".tmp" : "", strerror(err));
	if (fd >= 0)
		close(fd);
	if (strcmp(what, "open") != 0)
		unlinkat(dfd, tmp, 0);
	free(tmp);
	evbuffer_free(b);
	if (!own)
		close(dfd);
	return -1;
}

int metrics_textfile_dirfd(const struct daemon *d)
{
	return d->mx != NULL && d->mx->dirfd > 0 ? d->mx->dirfd : -1;
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct metrics *mx = arg;
	char *cause = NULL;

	(void)fd;
	(void)what;
	if (metrics_write_textfile(mx->d, mx->textfile, &cause) < 0) {
		log_ratelimited(&mx->rl, LOG_WARNING, "%s",
				cause ? cause :
					"metrics_textfile: out of memory");
		free(cause);
	}
}

static int textfile_start(struct metrics *mx, const char *path, char **cause)
{
	struct daemon *d = mx->d;
	struct timeval tv = { METRICS_TEXTFILE_INTERVAL_S, 0 };

	const char *base = open_dir_of(path, &mx->dirfd);

	if (mx->dirfd < 0) {
		*cause = xasprintf("metrics_textfile: open %s.tmp: %s", path,
				   strerror(errno));
		return -1;
	}
	mx->textfile = strdup(path);
	mx->base = strdup(base);
	if (!mx->textfile || !mx->base) {
		*cause = xasprintf("metrics_textfile: out of memory");
		return -1;
	}
	if (metrics_write_textfile(d, path, cause) < 0)
		return -1;
	mx->timer = event_new(d->base, -1, EV_PERSIST, on_timer, mx);
	if (!mx->timer || event_add(mx->timer, &tv) < 0) {
		*cause = xasprintf("metrics_textfile: cannot start its timer");
		unlinkat(mx->dirfd, mx->base, 0);
		return -1;
	}
	log_info("metrics to %s every %d s", path, METRICS_TEXTFILE_INTERVAL_S);
	return 0;
}

int metrics_init(struct daemon *d, char **cause)
{
	const char *listen = d->cfg.metrics_listen;
	const char *textfile = d->cfg.metrics_textfile;

	struct metrics *mx = d->mx;

	*cause = NULL;
	if (mx != NULL && (mx->http || mx->timer || mx->textfile)) {
		*cause = xasprintf("metrics: already started");
		return -1;
	}
	if (mx == NULL) {
		if ((mx = calloc(1, sizeof(*mx))) == NULL)
			goto fail;
		mx->d = d;
		d->mx = mx;
	}
	if (listen && *listen && http_start(mx, listen, cause) < 0)
		goto fail;
	if (textfile && *textfile && textfile_start(mx, textfile, cause) < 0)
		goto fail;
	return 0;
fail:
	metrics_fini(d);
	if (!*cause)
		*cause = xasprintf("metrics: out of memory");
	return -1;
}

void metrics_fini(struct daemon *d)
{
	struct metrics *mx = d->mx;

	if (mx == NULL)
		return;
	if (accepting == mx)
		accepting = NULL;
	if (mx->http)
		evhttp_free(mx->http); /* its socket and connections too */
	mconns_stop(mx->conns);
	if (mx->resume)
		event_free(mx->resume);
	if (mx->timer)
		event_free(mx->timer);
	if (mx->textfile && mx->dirfd > 0 && mx->base) {
		/* stale counters would look like a live daemon's */
		unlinkat(mx->dirfd, mx->base, 0);
	}
	free(mx->textfile);
	free(mx->base);
	if (mx->dirfd > 0)
		close(mx->dirfd);
	free(mx);
	d->mx = NULL;
}
