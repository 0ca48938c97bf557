// SPDX-License-Identifier: GPL-2.0
/*
 * control_window.c - what a node did between two of its records: the
 * counters' and the latency histogram's differences (kcsmuxctl watch's
 * per-interval figures; include/kcsmux/control.h).
 *
 * The daemon exports only cumulative counters since start; a window is
 * the difference of two snapshots, so any number of watchers see their
 * own intervals and nothing is reset.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <kcsmux/control.h>

#include "util/hist.h"

/* A decimal u64, all of S (digits only). */
static bool u64_of(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return false;
	*v = x;
	return true;
}

static bool field(const struct ctl_kvlist *l, size_t from, size_t to,
		  const char *key, uint64_t *v)
{
	return u64_of(ctl_kv_find(l, from, to, key), v);
}

/* Space-separated decimal u64s into V (at most MAX); their number, or -1. */
static int u64_list(const char *s, uint64_t *v, size_t max)
{
	unsigned long long x;
	char *end;
	size_t n = 0;

	if (s == NULL)
		return -1;
	while (*s != '\0') {
		if (n == max || *s < '0' || *s > '9')
			return -1;
		errno = 0;
		x = strtoull(s, &end, 10);
		if (errno != 0 || (*end != ' ' && *end != '\0'))
			return -1;
		v[n++] = x;
		s = *end == ' ' ? end + 1 : end;
		if (*end == ' ' && *s == '\0')
			return -1;
	}
	return (int)n;
}

int ctl_hist_get(const struct ctl_kvlist *l, size_t from, size_t to,
		 struct ctl_hist *h)
{
	uint64_t max_us, sum = 0;
	int nb, n;
	size_t i;

	memset(h, 0, sizeof(*h));
	if (!field(l, from, to, "latency_count", &h->count) ||
	    !field(l, from, to, "latency_sum_ns", &h->sum_ns) ||
	    !field(l, from, to, "latency_max_us", &max_us))
		return -1;
	nb = u64_list(ctl_kv_find(l, from, to, "latency_bounds_ns"),
		      h->bound_ns, CTL_HIST_MAX - 1);
	n = u64_list(ctl_kv_find(l, from, to, "latency_buckets"), h->bucket,
		     CTL_HIST_MAX);
	if (nb < 0 || n != nb + 1)
		return -1;
	h->n = (size_t)n;
	for (i = 1; i < h->n - 1; i++)
		if (h->bound_ns[i] <= h->bound_ns[i - 1])
			return -1;
	for (i = 0; i < h->n; i++) {
		if (sum + h->bucket[i] < sum)
			return -1;
		sum += h->bucket[i];
	}
	if (sum != h->count)
		return -1;
	/* latency_max_us is rounded to the nearest us */
	h->max_ns = max_us > (UINT64_MAX - 499) / 1000 ? UINT64_MAX :
							 max_us * 1000 + 499;
	return 0;
}

/* NEW - OLD into *D, false if it went back. */
static bool delta(uint64_t old, uint64_t new, uint64_t *d)
{
	if (new < old)
		return false;
	*d = new - old;
	return true;
}

int ctl_window(const struct ctl_rec *old, const struct ctl_rec *new,
	       double secs, struct ctl_window *w)
{
	const struct ctl_kvlist *ol = old->l, *nl = new->l;
	size_t ofrom = old->from, oto = old->to, nfrom = new->from,
	       nto = new->to;
	struct ctl_hist ho, hn, *o = &ho, *n = &hn;
	uint64_t a, b, sum;
	size_t i;

	memset(w, 0, sizeof(*w));
	if (!(secs > 0))
		return -1;
	if (ctl_hist_get(ol, ofrom, oto, o) < 0 ||
	    ctl_hist_get(nl, nfrom, nto, n) < 0 || o->n != n->n ||
	    memcmp(o->bound_ns, n->bound_ns, (n->n - 1) * sizeof(uint64_t)))
		goto out;
	if (!field(ol, ofrom, oto, "requests", &a) ||
	    !field(nl, nfrom, nto, "requests", &b) ||
	    !delta(a, b, &w->requests))
		goto out;
	if (!field(ol, ofrom, oto, "errors", &a) ||
	    !field(nl, nfrom, nto, "errors", &b) || !delta(a, b, &w->errors))
		goto out;
	if (!delta(o->count, n->count, &w->completed) ||
	    !delta(o->sum_ns, n->sum_ns, &sum))
		goto out;
	for (i = 0; i < n->n; i++)
		if (!delta(o->bucket[i], n->bucket[i], &n->bucket[i]))
			goto out;
	w->secs = secs;
	w->rate = (double)w->requests / secs;
	if (w->completed) {
		w->mean_ns = (sum + w->completed / 2) / w->completed;
		/* the window's values lie in [0, the maximum since start] */
		w->p99_ns = hist_quantile(n->bound_ns, n->n - 1, n->bucket,
					  w->completed, 0, n->max_ns, 0.99);
	}
	return 0;
out:
	memset(w, 0, sizeof(*w));
	return -1;
}
