// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - Prometheus text exposition of the per-node accounting, over
 * HTTP (libevent's evhttp, in the daemon's loop) and as a node_exporter
 * textfile (see metrics.h): the daemon's snapshot, and starting and
 * stopping what the configuration asks for. The families are
 * metrics_families.c's, the format metrics_render.c's, the serving
 * metrics_http.c's and metrics_textfile.c's.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <kcsmux/version.h>

#include "backend/backend.h"
#include "util/error.h"
#include "admin/metrics.h"
#include "admin/metrics_priv.h"

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

/* --- start, stop --- */

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
	if (listen && *listen && metrics_http_start(mx, listen, cause) < 0)
		goto fail;
	if (textfile && *textfile &&
	    metrics_textfile_start(mx, textfile, cause) < 0)
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
	metrics_http_stop(mx);
	metrics_textfile_stop(mx);
	free(mx);
	d->mx = NULL;
}
