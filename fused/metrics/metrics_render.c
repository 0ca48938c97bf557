// SPDX-License-Identifier: GPL-2.0
/*
 * metrics_render.c - a snapshot (struct metrics_snapshot) in Prometheus'
 * text exposition format 0.0.4: each family of metrics_families.c with
 * its # HELP and # TYPE lines and its samples, label values escaped,
 * seconds exact. Pure: the daemon's snapshot is metrics_snapshot.c's.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "metrics/metrics.h"
#include "metrics/metrics_priv.h"

#define NS_PER_S 1000000000ULL

/* --- the output: an evbuffer, and whether an append failed --- */

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

/* --- the format --- */

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
	case V_KCSRAW_INFO:
		out_printf(o, "%s{version=\"", f->name);
		put_label_value(o, s->status.kcsraw_version);
		out_str(o, "\"} 1\n");
		break;
	case V_STOCK:
		if (s->status.stock_device[0] == '\0') {
			out_printf(o, "%s 0\n", f->name);
			break;
		}
		out_printf(o, "%s{device=\"", f->name);
		put_label_value(o, s->status.stock_device);
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
	case V_SNAP_BOOL_NOT:
		out_printf(o, "%s %d\n", f->name,
			   FIELD(s, f->off, bool) ? 0 : 1);
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

	for (f = metrics_families; f < metrics_families + metrics_nfamilies;
	     f++) {
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

/* Append EV's text to B (NUL-terminated), if RENDERED (else B->oom), and
 * free EV (NULL: none could be had). 0 or -1 (B->oom). */
static int ev_to_buf(struct evbuffer *ev, bool rendered, struct metrics_buf *b)
{
	size_t len = ev ? evbuffer_get_length(ev) : 0;
	char *p = NULL;

	if (!rendered)
		b->oom = true;
	if (b->oom)
		goto out;
	p = realloc(b->p, b->len + len + 1);
	if (!p) {
		b->oom = true;
		goto out;
	}
	b->p = p;
	evbuffer_remove(ev, b->p + b->len, len);
	b->len += len;
	b->p[b->len] = '\0';
out:
	if (ev)
		evbuffer_free(ev);
	return b->oom ? -1 : 0;
}

void metrics_buf_free(struct metrics_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

int metrics_render(struct metrics_buf *b, const struct metrics_snapshot *s)
{
	struct evbuffer *ev = evbuffer_new();

	return ev_to_buf(ev, ev && metrics_render_ev(ev, s) == 0, b);
}
