// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxctl_print.c - what kcsmuxctl prints for every command: its error
 * messages, and the node tables: list's (policy, clients, queue, requests,
 * latency, CPU) and stats' (counters, latency, CPU per request), one row
 * per node record of a LIST reply.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcsmux/control.h>

#include "kcsmuxctl/kcsmuxctl.h"

const char *const prog = "kcsmuxctl";

void errx_msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int name_width(const struct reply *r)
{
	size_t s, e = 0, w = 4, l;

	while (ctl_kv_record(&r->kv, "node", e, &s, &e)) {
		l = strlen(get(r, s, e, "node"));
		if (l > w)
			w = l;
	}
	return (int)w;
}

/*
 * A node's budget in the config's units: "-" without one, else the budget
 * (% of one CPU), and how much of it the node uses now (%).
 */
static void budget_cols(const struct reply *r, size_t s, size_t e, char *budget,
			size_t blen, char *used, size_t ulen)
{
	const char *b = get(r, s, e, "cpu_budget_pct");

	if (strcmp(b, "none") == 0 || strcmp(b, "-") == 0) {
		snprintf(budget, blen, "-");
		snprintf(used, ulen, "-");
		return;
	}
	snprintf(budget, blen, "%g%%", strtod(b, NULL));
	snprintf(used, ulen, "%s%%", get(r, s, e, "budget_used_pct"));
}

void print_list(FILE *f, const struct reply *r)
{
	size_t s, e = 0;
	char preset[40], poll[40], queue[32], budget[32], used[32];
	int w = name_width(r);

	fprintf(f,
		"%-*s %-13s %9s %11s %4s %7s %8s %5s %7s %7s %8s %8s "
		"%7s %6s %6s %8s\n",
		w, "NODE", "PRESET", "BUSY_US", "POLL_US", "CLI", "QUEUE",
		"REQS", "ERR", "P50_US", "P99_US", "CPU_%", "BUDGET", "USED",
		"CHEAP", "HELD", "DMN_US/R");
	while (ctl_kv_record(&r->kv, "node", e, &s, &e)) {
		snprintf(preset, sizeof(preset), "%s%s", get(r, s, e, "preset"),
			 strcmp(get(r, s, e, "custom"), "yes") == 0 ? "+" : "");
		snprintf(poll, sizeof(poll), "%s-%s",
			 get(r, s, e, "policy.poll_us"),
			 get(r, s, e, "policy.poll_max_us"));
		snprintf(queue, sizeof(queue), "%s/%s", get(r, s, e, "queue"),
			 get(r, s, e, "queue_max"));
		budget_cols(r, s, e, budget, sizeof(budget), used,
			    sizeof(used));
		fprintf(f,
			"%-*s %-13s %9s %11s %4s %7s %8s %5s %7s %7s %8.3f "
			"%8s %7s %6s %6s %8.1f\n",
			w, get(r, s, e, "node"), preset,
			get(r, s, e, "policy.max_busy_us"), poll,
			get(r, s, e, "clients"), queue,
			get(r, s, e, "requests"), get(r, s, e, "errors"),
			get(r, s, e, "latency_p50_us"),
			get(r, s, e, "latency_p99_us"),
			num(r, s, e, "cpu_used_pct"), budget, used,
			get(r, s, e, "cheapened"), get(r, s, e, "held"),
			num(r, s, e, "daemon_cpu_ns_per_req") / 1e3);
	}
}

void print_stats(FILE *f, const struct reply *r)
{
	size_t s, e = 0;
	char budget[32], used[32];
	int w = name_width(r);

	fprintf(f,
		"%-*s %8s %8s %5s %5s %5s %7s %7s %7s %7s %7s %9s %9s "
		"%8s %8s %7s %6s %6s %8s\n",
		w, "NODE", "REQS", "DONE", "ERR", "DENY", "BUSY", "P50_US",
		"P90_US", "P99_US", "MAX_US", "WAIT99", "CPU_US/R", "SPIN_US/R",
		"CPU_%", "BUDGET", "USED", "CHEAP", "HELD", "DMN_US/R");
	while (ctl_kv_record(&r->kv, "node", e, &s, &e)) {
		budget_cols(r, s, e, budget, sizeof(budget), used,
			    sizeof(used));
		fprintf(f,
			"%-*s %8s %8s %5s %5s %5s %7s %7s %7s %7s %7s "
			"%9.1f %9.1f %8.3f %8s %7s %6s %6s %8.1f\n",
			w, get(r, s, e, "node"), get(r, s, e, "requests"),
			get(r, s, e, "completed"), get(r, s, e, "errors"),
			get(r, s, e, "denied"), get(r, s, e, "busy"),
			get(r, s, e, "latency_p50_us"),
			get(r, s, e, "latency_p90_us"),
			get(r, s, e, "latency_p99_us"),
			get(r, s, e, "latency_max_us"),
			get(r, s, e, "queue_wait_p99_us"),
			num(r, s, e, "cpu_ns_per_req") / 1e3,
			num(r, s, e, "spin_ns_per_req") / 1e3,
			num(r, s, e, "cpu_used_pct"), budget, used,
			get(r, s, e, "cheapened"), get(r, s, e, "held"),
			num(r, s, e, "daemon_cpu_ns_per_req") / 1e3);
	}
}
