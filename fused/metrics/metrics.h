/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics.h - kcsmuxd's per-node accounting as Prometheus metrics (text
 * exposition format 0.0.4): served over HTTP on metrics_listen (GET
 * /metrics) and written every 10 s to metrics_textfile for node_exporter's
 * textfile collector. docs/metrics.md lists the metrics.
 *
 * The renderer works on a snapshot (struct metrics_snapshot), so it is
 * pure and tested on its own (tests/unit/test_metrics.c); the rest takes
 * the snapshot from the daemon and serves it in the event loop.
 */
#ifndef KCSMUX_METRICS_H
#define KCSMUX_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "core/core.h"
#include "core/health.h"
#include "core/nodestats.h"
#include "core/sdrcache.h"

#define METRICS_TEXTFILE_INTERVAL_S 10
/* After EMFILE/ENFILE on accept: seconds before accepting again. */
#define METRICS_EMFILE_RETRY_S 1
/*
 * HTTP connections: at most METRICS_MAX_CONNS, the last METRICS_ROOT_SLOTS
 * of them for root, and METRICS_MAX_PER_UID per uid (root excepted); a
 * peer not on this host counts by its address. One over a cap is closed
 * at once. A local peer's uid is the owner of its socket
 * (NETLINK_SOCK_DIAG).
 */
#define METRICS_MAX_CONNS    64
#define METRICS_ROOT_SLOTS   8
#define METRICS_MAX_PER_UID  8
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* One node at the time of the snapshot. */
struct metrics_node {
	const char *name;
	struct nodestats st;
	struct node_counters cnt;
	unsigned int clients;	 /* n->nclients */
	unsigned int qlen;	 /* n->flow.qlen */
	double cpu_ppm;		 /* nodestats_cpu_ppm() now: the budget's */
	double poller_cpu_ppm;	 /* ... of st.poller_cpu */
	uint32_t cpu_budget_ppm; /* 0: no budget */
};

struct metrics_snapshot {
	const char *version;	      /* kcsmuxd's */
	const char *backend;	      /* "kcsraw", "ipmidev" */
	const char *device;	      /* the interface */
	unsigned int inflight;	      /* submitted to the interface */
	struct backend_health health; /* kcsraw's completions */
	/* reloads (SIGHUP, kcsmuxctl reload) */
	uint64_t reloads, reload_failures;
	bool last_reload_ok;	   /* true before any */
	uint64_t last_reload_unix; /* 0: none yet */
	uint64_t daemon_cpu_ns;	   /* the process's CPU time */
	uint64_t events_dropped;   /* d->events_dropped */
	const struct metrics_node *nodes;
	size_t nnodes;
	/* the SDR/FRU cache (core/sdrcache.c), once a node used it */
	bool sdr_cache;
	struct sdrc_stats sdr;
	unsigned int sdr_records;
	/* the BMC's state, kcsraw's version, a stock node beside kcsraw */
	struct health status;
};

struct evbuffer;

/*
 * Append the exposition of S to EV (libevent's buffer: what the HTTP
 * server sends as is): each metric family once (# HELP, # TYPE, its
 * samples), nodes in the order given, label values escaped. 0, or -1 when
 * out of memory.
 */
int metrics_render_ev(struct evbuffer *ev, const struct metrics_snapshot *s);
/*
 * The daemon's snapshot rendered into EV (nodes sorted by name, dying
 * nodes left out). 0 or -1 (out of memory).
 */
int metrics_render_daemon_ev(struct daemon *d, struct evbuffer *ev);

/* The same as one NUL-terminated string (for tests); zero-initialise,
 * free with metrics_buf_free(). */
struct metrics_buf {
	char *p; /* NUL-terminated when len > 0 */
	size_t len;
	bool oom; /* an append failed: text incomplete */
};

void metrics_buf_free(struct metrics_buf *b);
/* Append the exposition of S to B. 0 or -1 (out of memory). */
int metrics_render(struct metrics_buf *b, const struct metrics_snapshot *s);
/* Append the daemon's to B. 0 or -1 (out of memory). */
int metrics_render_daemon(struct daemon *d, struct metrics_buf *b);

/*
 * Start what the configuration asks for (each off when its key is empty):
 * an HTTP server bound to exactly cfg.metrics_listen (HOST:PORT or
 * [V6ADDR]:PORT; unauthenticated, meant for loopback), and the textfile,
 * written once now and then every METRICS_TEXTFILE_INTERVAL_S. Needs
 * d->base. 0, or -1 with *cause malloc'd (nothing left started).
 * One daemon per process.
 */
int metrics_init(struct daemon *d, char **cause);
/* The daemon's own CPU time (CLOCK_PROCESS_CPUTIME_ID), ns; weak, so
 * that tests of whole renders can fix it. */
uint64_t metrics_process_cpu_ns(void);
/* Is metrics_listen's HOST a loopback address (127/8, ::1, localhost)?
 * Anything else serves the unauthenticated metrics off the host. */
bool metrics_listen_loopback(const char *listen);
/* Stop serving, stop the timer and remove the textfile. */
void metrics_fini(struct daemon *d);

/* Write the textfile now: PATH.tmp, fsync, rename to PATH. 0 or -1 with
 * *cause malloc'd. */
int metrics_write_textfile(struct daemon *d, const char *path, char **cause);

/* The TCP port the HTTP server listens on, 0 when it does not. */
unsigned int metrics_http_port(const struct daemon *d);
/* HTTP connections open now (admitted), refused over a cap so far, and
 * accept() failures so far (after EMFILE accepting pauses for
 * METRICS_EMFILE_RETRY_S instead of failing in a loop); for tests. */
unsigned int metrics_http_conns(const struct daemon *d);
unsigned long metrics_http_refused(const struct daemon *d);
unsigned long metrics_http_accept_errors(const struct daemon *d);
/* The textfile's directory, opened once (O_PATH) for the seccomp filter's
 * one writable place; -1 without a textfile. */
int metrics_textfile_dirfd(const struct daemon *d);

#endif /* KCSMUX_METRICS_H */
