// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxd - virtual /dev/ipmiN nodes over CUSE, multiplexed onto one KCS
 * interface, each node with its own polling policy, priority and access
 * list. One libevent loop holds every CUSE session, the backend and the
 * signals.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "backend.h"
#include "kcsmuxd.h"
#include "log.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: kcsmuxd [-dfnhV] [-c FILE]\n"
		"  -c FILE  configuration (default %s)\n"
		"  -d       debug logging\n"
		"  -f       stay in the foreground, log to stderr\n"
		"  -n       check the configuration and exit\n"
		"  -V       print the version\n", KCSMUX_CONF_PATH);
}

void daemon_dump_stats(struct daemon *d, FILE *f)
{
	struct node *n;

	fprintf(f, "%-10s %7s %8s %8s %6s %6s %6s %10s %10s %10s %7s\n",
		"node", "clients", "requests", "answers", "errors", "denied",
		"busy", "lat_us", "spin_us", "cpu_us", "sleeps");
	LIST_FOREACH(n, &d->nodes, link) {
		const struct node_counters *k = &n->cnt;
		uint64_t r = k->responses ? k->responses : 1;

		fprintf(f, "%-10s %7u %8llu %8llu %6llu %6llu %6llu %10.1f "
			"%10.1f %10.1f %7.1f\n", n->conf.name, n->nclients,
			(unsigned long long)k->requests,
			(unsigned long long)k->responses,
			(unsigned long long)k->errors,
			(unsigned long long)k->denied,
			(unsigned long long)k->busy,
			k->latency_ns / 1e3 / r, k->spin_ns / 1e3 / r,
			k->cpu_ns / 1e3 / r, (double)k->sleeps / r);
	}
	fflush(f);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;

	(void)what;
	switch (sig) {
	case SIGINT:
	case SIGTERM:
		log_info("signal %d: exiting", (int)sig);
		event_base_loopexit(d->base, NULL);
		break;
	case SIGUSR1:
		daemon_dump_stats(d, stderr);
		break;
	case SIGHUP:
		log_info("SIGHUP: reload is not supported yet");
		break;
	}
}

int main(int argc, char **argv)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1 };
	struct event *sigev[4];
	struct daemon d;
	const char *path = KCSMUX_CONF_PATH;
	bool foreground = false, check = false, debug = false;
	char *cause = NULL;
	size_t i;
	int c;

	while ((c = getopt(argc, argv, "c:dfnhV")) != -1) {
		switch (c) {
		case 'c':
			path = optarg;
			break;
		case 'd':
			debug = true;
			break;
		case 'f':
			foreground = true;
			break;
		case 'n':
			check = true;
			break;
		case 'V':
			printf("kcsmuxd %s\n", KCSMUX_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	memset(&d, 0, sizeof(d));
	if (config_load(&d.cfg, path, &cause) < 0) {
		fprintf(stderr, "%s\n", cause);
		free(cause);
		return 1;
	}
	if (check) {
		printf("configuration OK\n");
		config_free(&d.cfg);
		return 0;
	}
	log_init(foreground, debug ? LOG_DEBUG : d.cfg.log_level);
	if (!foreground && daemon(0, 0) < 0)
		fatalx("daemon: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);

	d.base = event_base_new();
	if (!d.base)
		fatalx("event_base_new failed");
	d.cfg_path = path;
	d.my_address = 0x20;
	LIST_INIT(&d.nodes);
	TAILQ_INIT(&d.event_backlog);
	for (i = 0; i < 4; i++) {
		sigev[i] = evsignal_new(d.base, sigs[i], on_signal, &d);
		event_add(sigev[i], NULL);
	}
	if (d.cfg.backend == KCSMUX_BACKEND_KCSRAW)
		d.be = backend_kcsraw_open(&d, d.cfg.device, &cause);
	else
		d.be = backend_ipmidev_open(&d, d.cfg.device, &cause);
	if (!d.be)
		fatalx("backend: %s", cause);
	for (i = 0; i < d.cfg.nnodes; i++)
		if (node_create(&d, &d.cfg.nodes[i], &cause) < 0)
			fatalx("%s", cause);
	log_info("%zu nodes on %s (%s)", d.cfg.nnodes, d.cfg.device,
		 config_backend_name(d.cfg.backend));

	event_base_dispatch(d.base);

	while (!LIST_EMPTY(&d.nodes))
		node_destroy(LIST_FIRST(&d.nodes));
	d.be->ops->destroy(d.be);
	for (i = 0; i < 4; i++)
		event_free(sigev[i]);
	event_base_free(d.base);
	config_free(&d.cfg);
	return 0;
}
