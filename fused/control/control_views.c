// SPDX-License-Identifier: GPL-2.0
/*
 * control_views.c - a node as the control protocol shows it: its snapshot
 * (struct ctl_node_info: policy, clients, counters, latency) for LIST,
 * SHOW and STATS, and SHOW's SDR cache, coalescing and adaptive lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <kcsmux/control.h>

#include "control/control_priv.h"
#include "core/core.h"
#include "cuse/cuse.h"
#include "core/access.h"
#include "core/policy.h"
#include "core/sdrcache.h"
#include "core/selmirror.h"

/* Does the node's policy differ from its preset's? */
static bool policy_custom(const struct node *n)
{
	const struct kcsmux_policy *p = policy_preset(n->conf.preset);
	char a[48], b[48];
	const char *k;
	size_t i;

	if (p == NULL)
		return true;
	for (i = 0; (k = policy_key_name(i)) != NULL; i++) {
		if (policy_get_key(&n->conf.pol, k, a, sizeof(a)) < 0 ||
		    policy_get_key(p, k, b, sizeof(b)) < 0)
			return true;
		if (strcmp(a, b) != 0)
			return true;
	}
	return false;
}

/* Who may see which client: an admin every one, another user only the
 * clients of its own uid (pids and uids of others' are private). */
static bool sees_client(const struct ctl_conn *who, const struct client *c)
{
	return who->uid == c->uid || control_conn_admin(who);
}

void node_snap(const struct node *n, uint64_t now,
	       const struct ctl_conn *clients, struct node_snap *s)
{
	struct ctl_node_info *ni = &s->ni;
	const struct nodestats *st = &n->st;
	const struct kcsmux_access *acc = &n->conf.acc;
	const struct client *c;
	const char *k;
	size_t i;

	memset(s, 0, sizeof(*s));
	ni->name = n->conf.name;
	ni->preset = policy_preset_name(n->conf.preset);
	if (ni->preset == NULL)
		ni->preset = "?";
	ni->custom = policy_custom(n);
	ni->ready = n->ready && !n->dying;
	snprintf(s->access, sizeof(s->access), "%s%s",
		 access_preset_name(acc->preset) ?
			 access_preset_name(acc->preset) :
			 "?",
		 cmdset_empty(&acc->allow) && cmdset_empty(&acc->deny) ?
			 "" :
			 "+lists");
	ni->access = s->access;
	for (i = 0; i < CTL_POLICY_MAX && (k = policy_key_name(i)) != NULL;
	     i++) {
		if (policy_get_key(&n->conf.pol, k, s->polval[i], POLVAL_LEN) <
		    0)
			snprintf(s->polval[i], POLVAL_LEN, "?");
		ni->policy[i].key = k;
		ni->policy[i].value = s->polval[i];
	}
	ni->npolicy = i;
	ni->nclients = n->nclients;
	if (clients) {
		s->clients = calloc(n->nclients ? n->nclients : 1,
				    sizeof(*s->clients));
		i = 0;
		if (s->clients != NULL)
			LIST_FOREACH (c, &n->clients, link) {
				if (i >= n->nclients)
					break;
				if (!sees_client(clients, c))
					continue;
				s->clients[i].id = c->id;
				s->clients[i].pid = c->pid;
				s->clients[i].uid = c->uid;
				s->clients[i].outstanding = c->outstanding;
				s->clients[i].queued = c->rq_len;
				s->clients[i].events = c->gets_events;
				s->clients[i].comm = c->comm;
				s->clients[i].requests = c->nreq;
				s->clients[i].errors = c->nerr;
				s->clients[i].denied = c->ndenied;
				for (int g = 0; g < 2; g++) {
					s->clients[i].guess_made[g] =
						c->guess_made[g];
					s->clients[i].guess_held[g] =
						c->guess_held[g];
					s->clients[i].guess_missed[g] =
						c->guess_missed[g];
				}
				i++;
			}
		ni->nclients = (uint32_t)i;
		ni->clients = s->clients;
	}
	ni->queue = n->flow.qlen;
	ni->queue_max = n->flow.queue_max;
	ni->requests = st->requests;
	ni->rejected = st->rejected;
	ni->cancelled = st->cancelled;
	ni->dispatched = st->dispatched;
	ni->completed = st->completed;
	ni->errors = st->errors;
	_Static_assert(CTL_NCC == NODESTATS_NCC, "completion code slots");
	for (i = 0; i < NODESTATS_NCC; i++) {
		ni->cc_label[i] = nodestats_cc_label(i);
		ni->cc[i] = st->cc[i];
	}
	ni->denied = n->cnt.denied;
	ni->busy = n->cnt.busy + st->rejected;
	ni->opens = n->cnt.opens;
	ni->service_ns = st->service_ns;
	ni->cpu_ns = st->cpu_ns;
	ni->spin_ns = st->spin_ns;
	ni->lat_p50_ns = nodestats_hist_quantile(&st->latency, 0.5);
	ni->lat_p90_ns = nodestats_hist_quantile(&st->latency, 0.9);
	ni->lat_p99_ns = nodestats_hist_quantile(&st->latency, 0.99);
	ni->lat_max_ns = st->latency.max_ns;
	ni->wait_p99_ns = nodestats_hist_quantile(&st->queue_wait, 0.99);
	ni->wait_max_ns = st->queue_wait.max_ns;
	_Static_assert(CTL_NBUCKETS == NODESTATS_NBUCKETS, "latency buckets");
	ni->lat_count = st->latency.count;
	ni->lat_sum_ns = st->latency.sum_ns;
	ni->lat_bound_ns = nodestats_bounds_ns;
	memcpy(ni->lat_bucket, st->latency.bucket, sizeof(ni->lat_bucket));
	ni->cpu_ppm = nodestats_cpu_ppm(&st->cpu, now);
	ni->cpu_budget_ppm = n->conf.pol.cpu_budget_ppm;
	ni->cheapened = n->cnt.throttled;
	ni->held = n->cnt.held;
	ni->daemon_cpu_ns = st->daemon_cpu_ns;
	ni->poller_cpu_ppm = nodestats_cpu_ppm(&st->poller_cpu, now);
}

void node_snap_free(struct node_snap *s)
{
	free(s->clients);
	s->clients = NULL;
}

/* One "adaptive=" line per window the node's adaptive backoff keeps. */
static void adaptive_line(void *arg, const struct adapt_class *cls,
			  const struct adapt_info *in)
{
	struct ctl_buf *b = arg;
	char what[16];

	if (cls != NULL)
		snprintf(what, sizeof(what), "%02x/%02x", cls->netfn, cls->cmd);
	else
		snprintf(what, sizeof(what), "all");
	ctl_kv_addf(b, "adaptive",
		    "class=%s n=%u lo_us=%u mid_us=%u "
		    "hi_us=%u handshakes_us=%u samples=%llu censored=%llu "
		    "restarts=%llu",
		    what, in->n, in->lo_us, in->mid_us, in->hi_us, in->hs_us,
		    (unsigned long long)in->samples,
		    (unsigned long long)in->censored,
		    (unsigned long long)in->flushes);
}

/* The node's SDR/FRU cache counters, and the interface's cache. */
static void sdr_cache_kv(const struct node *n, struct ctl_buf *b)
{
	const struct sdrc *sc = n->d->sdrc;
	const struct sdrc_stats *st;

	ctl_kv_add(b, "sdr_cache", n->conf.sdr_cache ? "yes" : "no");
	ctl_kv_addf(b, "sdr_cache_hits", "%llu",
		    (unsigned long long)n->cnt.sdr_hits);
	ctl_kv_addf(b, "sdr_cache_misses", "%llu",
		    (unsigned long long)n->cnt.sdr_misses);
	if (sc == NULL)
		return;
	st = sdrc_stats(sc);
	ctl_kv_add(b, "sdr_cache_state", sdrc_state_name(sc));
	ctl_kv_addf(b, "sdr_cache_records", "%u", sdrc_records(sc));
	ctl_kv_add(b, "sdr_cache_device_state", sdrc_device_state_name(sc));
	ctl_kv_addf(b, "sdr_cache_device_records", "%u",
		    sdrc_device_records(sc));
	ctl_kv_addf(b, "sdr_cache_fills", "%llu",
		    (unsigned long long)st->fills);
	ctl_kv_addf(b, "sdr_cache_revalidations", "%llu",
		    (unsigned long long)st->revalidations);
	ctl_kv_addf(b, "sdr_cache_invalidations", "%llu",
		    (unsigned long long)st->invalidations);
	ctl_kv_addf(b, "sdr_cache_bmc_requests", "%llu",
		    (unsigned long long)st->internal);
}

/* The node's SEL mirror counters, and the interface's mirror. */
static void sel_mirror_kv(const struct node *n, struct ctl_buf *b)
{
	const struct selm *m = n->d->selm;
	const struct selm_stats *st;

	ctl_kv_addf(b, "lease_refused", "%llu",
		    (unsigned long long)n->cnt.lease_refused);
	ctl_kv_addf(b, "lease_busy", "%llu",
		    (unsigned long long)n->cnt.lease_busy);
	ctl_kv_addf(b, "lease_stale", "%llu",
		    (unsigned long long)n->cnt.lease_stale);
	ctl_kv_add(b, "sel_mirror", n->conf.no_sel_mirror ? "no" : "yes");
	ctl_kv_addf(b, "sel_mirror_hits", "%llu",
		    (unsigned long long)n->cnt.sel_hits);
	ctl_kv_addf(b, "sel_mirror_misses", "%llu",
		    (unsigned long long)n->cnt.sel_misses);
	if (m == NULL)
		return;
	st = selm_stats(m);
	ctl_kv_add(b, "sel_mirror_state", selm_state_name(m));
	ctl_kv_addf(b, "sel_mirror_entries", "%u", selm_entries(m));
	ctl_kv_addf(b, "sel_mirror_fills", "%llu",
		    (unsigned long long)st->fills);
	ctl_kv_addf(b, "sel_mirror_syncs", "%llu",
		    (unsigned long long)st->syncs);
	ctl_kv_addf(b, "sel_mirror_fetched", "%llu",
		    (unsigned long long)st->fetched);
	ctl_kv_addf(b, "sel_mirror_invalidations", "%llu",
		    (unsigned long long)st->invalidations);
	ctl_kv_addf(b, "sel_mirror_bmc_requests", "%llu",
		    (unsigned long long)st->internal);
}

/* Sensor reads answered with another client's (coalesce = yes). */
static void coalesce_kv(const struct node *n, struct ctl_buf *b)
{
	ctl_kv_add(b, "coalesce", n->conf.coalesce ? "yes" : "no");
	ctl_kv_addf(b, "coalesced", "%llu",
		    (unsigned long long)n->cnt.coalesced);
	ctl_kv_addf(b, "coalesce_window_ms", "%u", n->conf.coalesce_window_ms);
	ctl_kv_addf(b, "coalesced_recent", "%llu",
		    (unsigned long long)n->cnt.coalesced_recent);
}

void node_show_kv(const struct node *n, struct ctl_buf *b)
{
	sdr_cache_kv(n, b);
	sel_mirror_kv(n, b);
	coalesce_kv(n, b);
	if (n->conf.pol.backoff == KCSMUX_BACKOFF_ADAPTIVE)
		adapt_each(&n->adapt, adaptive_line, b);
}
