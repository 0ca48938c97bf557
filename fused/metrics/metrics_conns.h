/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics_conns.h - the metrics server's connection caps (the limits and
 * the counters are in metrics.h). Private to metrics_http.c.
 */
#ifndef KCSMUX_METRICS_CONNS_H
#define KCSMUX_METRICS_CONNS_H

struct evhttp;
struct event_base;
struct mconns;

/*
 * Count and cap HTTP's connections from now on: evhttp's bufferevents come
 * from here, and each new connection is checked as soon as evhttp has set
 * it up. Opens the NETLINK_SOCK_DIAG socket (before the seccomp filter).
 * The connections' state (struct metrics keeps it), or NULL (out of memory).
 */
struct mconns *mconns_start(struct evhttp *http, struct event_base *base);
/* After evhttp_free(): what is left freed, the socket closed, mc freed
 * (NULL: nothing). */
void mconns_stop(struct mconns *mc);
/* Connections admitted now, and refused (over a cap) so far; 0 for NULL. */
unsigned int mconns_count(const struct mconns *mc);
unsigned long mconns_refused(const struct mconns *mc);

#endif /* KCSMUX_METRICS_CONNS_H */
