// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxctl_watch.c - kcsmuxctl watch: the list redrawn every SEC
 * seconds until interrupted (or COUNT times), and under it each node's
 * figures over the last interval (control_window.c) beside those since
 * start.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <kcsmux/control.h>

#include "kcsmuxctl/kcsmuxctl.h"

/* A node's mean latency since start in us, or "-" before any. */
static void mean_all(const struct reply *r, size_t s, size_t e, char *buf,
		     size_t len)
{
	double n = num(r, s, e, "latency_count");

	if (n > 0)
		snprintf(buf, len, "%.0f",
			 num(r, s, e, "latency_sum_ns") / n / 1e3);
	else
		snprintf(buf, len, "-");
}

/* Its p99 since start, or "-" before any. */
static const char *p99_all(const struct reply *r, size_t s, size_t e)
{
	return num(r, s, e, "latency_count") > 0 ?
		       get(r, s, e, "latency_p99_us") :
		       "-";
}

/*
 * watch's second table: per node, what it did since the last round (OLD,
 * SECS ago; NULL in the first round), beside its figures since start.
 * A node that was not in OLD, or whose counters went back (the daemon
 * restarted), shows "-".
 */
static void print_window(FILE *f, const struct reply *old,
			 const struct reply *r, double secs)
{
	size_t s, e = 0, os, oe;
	struct ctl_window win;
	struct ctl_rec ro = { NULL, 0, 0 }, rn = { &r->kv, 0, 0 };
	char all[32];
	int w = name_width(r);
	bool found;

	if (old == NULL)
		fprintf(f, "\nper interval: from the next round on\n");
	else
		fprintf(f,
			"\nthe last %.2f s (REQS to P99_US), beside since "
			"start (*_ALL):\n",
			secs);
	fprintf(f, "%-*s %8s %9s %8s %5s %8s %8s %9s %8s\n", w, "NODE", "REQS",
		"REQ/S", "DONE", "ERR", "MEAN_US", "P99_US", "MEAN_ALL",
		"P99_ALL");
	if (old != NULL)
		ro.l = &old->kv;
	while (ctl_kv_record(&r->kv, "node", e, &s, &e)) {
		rn.from = s;
		rn.to = e;
		mean_all(r, s, e, all, sizeof(all));
		found = false;
		oe = 0;
		while (old != NULL &&
		       ctl_kv_record(&old->kv, "node", oe, &os, &oe)) {
			if (strcmp(get(old, os, oe, "node"),
				   get(r, s, e, "node")) == 0) {
				ro.from = os;
				ro.to = oe;
				found = ctl_window(&ro, &rn, secs, &win) == 0;
				break;
			}
		}
		if (found)
			fprintf(f,
				"%-*s %8llu %9.1f %8llu %5llu %8llu %8llu "
				"%9s %8s\n",
				w, get(r, s, e, "node"),
				(unsigned long long)win.requests, win.rate,
				(unsigned long long)win.completed,
				(unsigned long long)win.errors,
				(unsigned long long)((win.mean_ns + 500) /
						     1000),
				(unsigned long long)((win.p99_ns + 500) / 1000),
				all, p99_all(r, s, e));
		else
			fprintf(f, "%-*s %8s %9s %8s %5s %8s %8s %9s %8s\n", w,
				get(r, s, e, "node"), "-", "-", "-", "-", "-",
				"-", all, p99_all(r, s, e));
	}
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int cmd_watch(struct ctx *x, int argc, char **argv)
{
	struct sigaction sa;
	struct timespec ts;
	struct reply r, old;
	double at, old_at = 0;
	bool have_old = false;
	double sec = 2;
	unsigned long count = 0, i;
	char *end, when[32];
	time_t now;
	bool tty = isatty(STDOUT_FILENO);
	int c, rv = EXIT_OK;

	optind = 0;
	while ((c = getopt(argc, argv, "+n:c:")) != -1) {
		switch (c) {
		case 'n':
			errno = 0;
			sec = strtod(optarg, &end);
			if (errno || end == optarg || *end != '\0' ||
			    !(sec >= 0.1 && sec <= 86400)) {
				errx_msg("watch: -n takes seconds from 0.1 to "
					 "86400, not \"%s\"",
					 optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			errno = 0;
			count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end != '\0' ||
			    count == 0 || optarg[0] == '-') {
				errx_msg("watch: -c takes a count >= 1, not "
					 "\"%s\"",
					 optarg);
				return EXIT_USAGE;
			}
			break;
		default:
			return EXIT_USAGE;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop; /* no SA_RESTART: wake nanosleep */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; !stop && (count == 0 || i < count); i++) {
		if (i > 0) {
			ts.tv_sec = (time_t)sec;
			ts.tv_nsec = (long)((sec - (double)ts.tv_sec) * 1e9);
			while (!stop && nanosleep(&ts, &ts) < 0 &&
			       errno == EINTR)
				;
			if (stop)
				break;
		}
		now = time(NULL);
		strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
		/* Clear the screen only on a terminal: piped or logged,
		 * rounds follow each other as plain text. */
		if (tty)
			printf("\033[H\033[2J%s watch: %s, every %.1f s, %s "
			       "(^C quits)\n\n",
			       prog, x->sock, sec, when);
		else
			printf("%s%s watch: %s, every %.1f s, %s\n",
			       i > 0 ? "\n" : "", prog, x->sock, sec, when);
		fflush(stdout);
		/* Errors go to stderr and the next round tries again, on a
		 * new connection (the daemon closes idle ones); the exit
		 * status is the last round's. */
		if (request(x, CTL_LIST, NULL, true, &r) == 0) {
			at = mono_s();
			print_list(stdout, &r);
			print_window(stdout, have_old ? &old : NULL, &r,
				     at - old_at);
			if (have_old)
				reply_free(&old);
			old = r;
			old_at = at;
			have_old = true;
			rv = EXIT_OK;
		} else {
			rv = x->unreachable ? EXIT_NOT_RUNNING : EXIT_FAIL;
		}
		ctl_disconnect(x);
		fflush(stdout);
	}
	if (have_old)
		reply_free(&old);
	return rv;
}
