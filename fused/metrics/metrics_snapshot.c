// SPDX-License-Identifier: GPL-2.0
/*
 * metrics_snapshot.c - the daemon's snapshot (struct metrics_snapshot):
 * its nodes in the one order, their accounting, the interface's health and
 * the SDR cache's figures, rendered by metrics_render.c for the HTTP server
 * (metrics_http.c), the textfile (metrics_textfile.c) and the tests.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <kcsmux/version.h>

#include "backend/backend.h"
#include "util/error.h"
#include "metrics/metrics.h"
#include "metrics/metrics_priv.h"

/* --- the daemon's snapshot --- */

__attribute__((weak)) uint64_t metrics_process_cpu_ns(void)
{
	struct timespec cpu;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) < 0)
		return 0;
	return (uint64_t)cpu.tv_sec * 1000000000ULL + (uint64_t)cpu.tv_nsec;
}

/* D's snapshot into *S, its nodes into *MNP (to free). 0 or -1 (out of
 * memory). */
static int snapshot(struct daemon *d, struct metrics_snapshot *s,
		    struct metrics_node **mnp)
{
	*s = (struct metrics_snapshot){
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

	/* The live nodes in the one order (core_nodes: the configuration's,
	 * then the name), as kcsmuxctl lists them. */
	v = core_nodes(d, &count);
	if (count && !(mn = calloc(count, sizeof(*mn)))) {
		free(v);
		return -1;
	}
	for (i = 0; i < count; i++) {
		struct metrics_node *m = &mn[s->nnodes];

		n = v[i];
		m->name = n->conf.name;
		m->st = n->st;
		m->cnt = n->cnt;
		m->clients = n->nclients;
		m->qlen = n->flow.qlen;
		m->cpu_ppm = nodestats_cpu_ppm(&n->st.cpu, now);
		m->poller_cpu_ppm = nodestats_cpu_ppm(&n->st.poller_cpu, now);
		m->cpu_budget_ppm = n->conf.pol.cpu_budget_ppm;
		s->nnodes++;
	}
	free(v);
	s->nodes = mn;
	s->daemon_cpu_ns = metrics_process_cpu_ns();
	if (d->sdrc) {
		s->sdr_cache = true;
		s->sdr = *sdrc_stats(d->sdrc);
		s->sdr_records = sdrc_records(d->sdrc);
	}
	health_read(d, &s->status);
	if (d->be) {
		s->backend = d->be->ops->name;
		s->inflight = d->be->inflight;
		s->health = d->be->health;
	}
	*mnp = mn;
	return 0;
}

int metrics_render_daemon_ev(struct daemon *d, struct evbuffer *ev)
{
	struct metrics_snapshot s;
	struct metrics_node *mn;
	int rv;

	if (snapshot(d, &s, &mn) < 0)
		return -1;
	rv = metrics_render_ev(ev, &s);
	free(mn);
	return rv;
}

int metrics_render_daemon(struct daemon *d, struct metrics_buf *b)
{
	struct metrics_snapshot s;
	struct metrics_node *mn;
	int rv;

	if (snapshot(d, &s, &mn) < 0) {
		b->oom = true;
		return -1;
	}
	rv = metrics_render(b, &s);
	free(mn);
	return rv;
}
