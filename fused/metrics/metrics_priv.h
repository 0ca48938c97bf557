/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics_priv.h - what the metrics' files share: the families' table
 * (metrics_families.c) that metrics_render.c renders, the server's state
 * that metrics_serve.c starts and stops with metrics_http.c and
 * metrics_textfile.c, and the connection caps (metrics_conns.c).
 */
#ifndef KCSMUX_METRICS_PRIV_H
#define KCSMUX_METRICS_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "metrics/metrics.h"
#include "util/log.h"

/*
 * The metric families, in the order they are rendered: each declared
 * once, its name, type and help, and where its value is: VAL's kind and
 * OFF, the value's offset in struct metrics_node (per node, V_NODE_*) or
 * in struct metrics_snapshot (one sample, V_SNAP_*); WHEN, if not NULL,
 * says whether the snapshot has the family at all.
 */
enum value_kind {
	V_INFO,		 /* kcsmux_info's labels */
	V_KCSRAW_INFO,	 /* the loaded kcsraw's version (when loaded) */
	V_STOCK,	 /* the stock node beside kcsraw, its device */
	V_RELOADS,	 /* applied and rejected */
	V_SNAP_UINT,	 /* unsigned int */
	V_SNAP_U64,	 /* uint64_t */
	V_SNAP_BOOL,	 /* bool, as 1 or 0 */
	V_SNAP_BOOL_NOT, /* bool, as 0 or 1 */
	V_SNAP_SECONDS,	 /* uint64_t ns */
	V_NODE_UINT,	 /* unsigned int */
	V_NODE_U64,	 /* uint64_t */
	V_NODE_SECONDS,	 /* uint64_t ns */
	V_NODE_PPM,	 /* double ppm, as a ratio */
	V_NODE_PPM_U32,	 /* uint32_t ppm, as a ratio */
	V_NODE_HIST,	 /* struct nodestats_hist */
	V_NODE_ERRORS,	 /* the error kinds */
	V_NODE_CC,	 /* responses by completion code */
};

struct family {
	const char *name, *type, *help;
	enum value_kind val;
	size_t off;
	/* rendered only when true of the snapshot; NULL: always */
	bool (*when)(const struct metrics_snapshot *s);
};

/* metrics_families.c */
extern const struct family metrics_families[];
extern const size_t metrics_nfamilies;

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

/* metrics_http.c: serve http://LISTEN/metrics (0, or -1 with *cause
 * malloc'd; metrics_http_stop() undoes a part done), and stop. */
int metrics_http_start(struct metrics *mx, const char *listen, char **cause);
void metrics_http_stop(struct metrics *mx);
/* metrics_textfile.c: write PATH now and every METRICS_TEXTFILE_INTERVAL_S
 * (0, or -1 with *cause malloc'd), and stop: the timer, the file
 * removed. */
int metrics_textfile_start(struct metrics *mx, const char *path, char **cause);
void metrics_textfile_stop(struct metrics *mx);

/* metrics_conns.c: the HTTP server's connection caps (the limits and the
 * counters are in metrics.h), for metrics_http.c. */

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

#endif /* KCSMUX_METRICS_PRIV_H */
