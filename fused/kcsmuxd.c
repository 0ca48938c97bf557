// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxd - virtual /dev/ipmiN nodes over CUSE, multiplexed onto one KCS
 * interface, each node with its own polling policy, priority and access
 * list. One libevent loop holds every CUSE session, the backend and the
 * signals.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "backend/backend.h"
#include "admin/control.h"
#include "core/ipmb.h"
#include "core/xact.h"
#include "kcsmuxd.h"
#include "notify.h"
#include "util/error.h"
#include "util/log.h"
#include "admin/metrics.h"
#include "sandbox.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kcsmuxd [-dfnhV] [-c FILE] [-S yes|no|log]\n"
		"  -c, --config=FILE    configuration (default %s)\n"
		"  -d, --debug          debug logging\n"
		"  -f, --foreground     stay in the foreground, log to stderr\n"
		"                       (with journald priorities under systemd)\n"
		"  -n, --check          check the configuration and exit\n"
		"  -S, --seccomp=MODE   seccomp filter, overriding the file's\n"
		"                       seccomp key\n"
		"  -h, --help           print this help\n"
		"  -V, --version        print the version\n",
		KCSMUX_CONF_PATH);
}

/* The per-node table (SIGUSR1), in configuration order. */
static void daemon_dump_stats(struct daemon *d, FILE *f)
{
	uint64_t now = now_ns();
	struct node **v;
	size_t i, count;

	fprintf(f,
		"%-8s %-11s %4s %7s %7s %5s %5s %5s %8s %8s %8s %8s "
		"%8s %7s %6s %5s %6s %6s %6s %6s\n",
		"node", "policy", "cli", "reqs", "done", "err", "deny", "busy",
		"p50_us", "p99_us", "wait99", "cpu_us/r", "spin_us/r",
		"cpu_ppm", "slp/r", "thr", "s_gss", "s_hit", "r_gss", "r_hit");
	v = core_nodes(d, &count);
	for (i = 0; i < count; i++) {
		const struct node *n = v[i];
		const struct nodestats *st = &n->st;
		double r = st->completed ? (double)st->completed : 1.0;

		fprintf(f,
			"%-8s %-11s %4u %7llu %7llu %5llu %5llu %5llu "
			"%8.0f %8.0f %8.0f %8.1f %8.1f %7.0f %6.2f %5llu "
			"%6llu %6llu %6llu %6llu\n",
			n->conf.name, policy_preset_name(n->conf.preset),
			n->nclients, (unsigned long long)st->requests,
			(unsigned long long)st->completed,
			(unsigned long long)st->errors,
			(unsigned long long)n->cnt.denied,
			(unsigned long long)(n->cnt.busy + st->rejected),
			nodestats_hist_quantile(&st->latency, 0.5) / 1e3,
			nodestats_hist_quantile(&st->latency, 0.99) / 1e3,
			nodestats_hist_quantile(&st->queue_wait, 0.99) / 1e3,
			st->cpu_ns / 1e3 / r, st->spin_ns / 1e3 / r,
			nodestats_cpu_ppm(&st->cpu, now),
			(double)n->cnt.sleeps / r,
			(unsigned long long)n->cnt.throttled,
			(unsigned long long)n->cnt.guesses[0],
			(unsigned long long)n->cnt.guess_hits[0],
			(unsigned long long)n->cnt.guesses[1],
			(unsigned long long)n->cnt.guess_hits[1]);
	}
	free(v);
	fflush(f);
}

/*
 * SIGUSR1: in the foreground the table goes to stderr as it is (under
 * systemd that is the journal, at the default priority, info); detached,
 * each line goes to syslog at LOG_INFO.
 */
static void daemon_dump_stats_log(struct daemon *d)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f;

	if (log_to_stderr()) {
		daemon_dump_stats(d, stderr);
		return;
	}
	f = open_memstream(&buf, &len);
	if (f == NULL) {
		log_err("SIGUSR1: open_memstream: %s", strerror(errno));
		return;
	}
	daemon_dump_stats(d, f);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		log_info("%s", line);
	free(buf);
}

/*
 * Once every node exists (and has its owner and mode), root is no longer
 * needed: with `user` set, become that user, keeping the open /dev/cuse
 * sessions and the backend fd. Reload can then still change policies and
 * access lists, but adding nodes or changing their owner or mode needs a
 * restart.
 */
static void drop_privileges(struct daemon *d)
{
	if (!d->cfg.user || d->dropped)
		return;
	if (setgroups(0, NULL) < 0 || setgid(d->cfg.user_gid) < 0 ||
	    setuid(d->cfg.user_uid) < 0)
		fatalx("cannot become user %s: %s", d->cfg.user,
		       strerror(errno));
	if (setuid(0) == 0)
		fatalx("dropped to %s, but root could be regained",
		       d->cfg.user);
	d->dropped = true;
	log_info("running as user %s (uid %u)", d->cfg.user,
		 (unsigned int)d->cfg.user_uid);
}

/*
 * Then, with `seccomp = yes` or `log`, confine the daemon to the calls its
 * event loop makes (sandbox.c). Like the user, the filter stays for the
 * process's life: reload cannot lift or change it.
 */
static void apply_sandbox(struct daemon *d)
{
	struct sandbox_profile p = {
		.mode = d->cfg.seccomp,
		.backend = d->cfg.backend,
		.backend_fd = d->be->fd,
		.dropped = d->dropped,
		.textfile = d->cfg.metrics_textfile != NULL,
		.textfile_dirfd = metrics_textfile_dirfd(d),
	};
	char *cause = NULL;

	if (d->sandboxed || p.mode == KCSMUX_SECCOMP_NO)
		return;
	if (sandbox_apply(&p, &cause) < 0)
		fatalx("%s", error_str(cause));
	d->sandboxed = true;
	log_info("seccomp filter in (%s): %s%s", config_seccomp_name(p.mode),
		 p.mode == KCSMUX_SECCOMP_YES ?
			 "a system call off its list kills the daemon" :
			 "system calls off its list are logged by the kernel (audit "
			 "type 1326) and run",
		 sandbox_sanitized() ? "; sanitized build: the sanitizers' "
				       "calls are allowed too" :
				       "");
	if (sandbox_landlock_abi() > 0)
		log_info("landlock ruleset in (ABI %d): writes only in %s",
			 sandbox_landlock_abi(),
			 p.textfile ? "the metrics textfile's directory and "
				      "/dev/cuse" :
				      "/dev/cuse");
	else if (sandbox_landlock_abi() < 0)
		log_warn("no landlock here (%s): seccomp only; a write open, "
			 "unlink or rename by absolute path is not confined "
			 "to the metrics textfile's directory",
			 strerror(-sandbox_landlock_abi()));
}

/* Every node's device exists: drop root, confine, tell systemd
 * (Type=notify). */
static void daemon_notify(struct daemon *d, const char *state)
{
	struct node *n;
	size_t count = 0;

	LIST_FOREACH (n, &d->nodes, link) {
		if (!n->ready)
			return;
		count++;
	}
	drop_privileges(d);
	apply_sandbox(d);
	notify_send(d->notify_fd, "%s\nSTATUS=%zu nodes on %s", state, count,
		    d->cfg.device);
}

/* A reload kcsmuxctl asked for is done (d->reloaded, admin/control.c): as
 * after SIGHUP. */
static void reloaded(struct daemon *d)
{
	daemon_notify(d, "READY=1");
}

/* A node's device is ready (cuse/node.c). */
static void node_ready(struct daemon *d)
{
	daemon_notify(d, "READY=1");
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;
	char *cause = NULL;

	(void)what;
	switch (sig) {
	case SIGINT:
	case SIGTERM:
		log_info("signal %d: exiting", (int)sig);
		event_base_loopexit(d->base, NULL);
		break;
	case SIGUSR1:
		daemon_dump_stats_log(d);
		break;
	case SIGHUP:
		notify_send(d->notify_fd, "RELOADING=1");
		if (daemon_reload(d, &cause) < 0) {
			daemon_reload_done(d, false, cause);
			free(cause);
		} else {
			daemon_reload_done(d, true, NULL);
		}
		daemon_notify(d, "READY=1");
		break;
	}
}

/* What the command line asks for. */
struct options {
	const char *path;
	bool foreground, check, debug;
	bool seccomp_set;
	enum kcsmux_seccomp seccomp;
};

/* -1: go on; else exit with that status. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "debug", no_argument, NULL, 'd' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "check", no_argument, NULL, 'n' },
		{ "seccomp", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char *cause = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "c:dfnhS:V", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'c':
			o->path = optarg;
			break;
		case 'd':
			o->debug = true;
			break;
		case 'f':
			o->foreground = true;
			break;
		case 'n':
			o->check = true;
			break;
		case 'S':
			if (config_seccomp_parse("-S", optarg, &o->seccomp,
						 &cause) < 0) {
				fprintf(stderr, "kcsmuxd: %s\n",
					error_str(cause));
				free(cause);
				return 2;
			}
			o->seccomp_set = true;
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
	if (optind < argc) {
		fprintf(stderr, "kcsmuxd: unexpected argument %s\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	return -1;
}

/* kcsmuxd -n: the file was read; may the nodes take their names? */
static int check_names(const struct kcsmux_config *cfg)
{
	char *cause = NULL;
	int rv = 0;

	for (size_t i = 0; i < cfg->nnodes; i++) {
		if (node_name_check(cfg->nodes[i].name, &cause) < 0) {
			fprintf(stderr, "%s\n", error_str(cause));
			free(cause);
			rv = 1;
		}
	}
	if (!rv)
		printf("configuration OK\n");
	return rv;
}

static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1 };
#define NSIGS (sizeof(sigs) / sizeof(sigs[0]))

/* The event loop and everything in it: core, front end, signals, backend,
 * BMC setup, nodes, control socket, metrics. Fatal on error. */
static void daemon_start(struct daemon *d, struct event *sigev[NSIGS])
{
	struct event_base *base;
	char *cause = NULL;
	size_t i;

	d->notify_fd = notify_open(); /* before the seccomp filter */
	d->reloaded = reloaded;
	base = event_base_new();
	if (!base)
		fatalx("event_base_new failed");
	core_init(d, base);
	if (frontend_init(d, node_ready) < 0)
		fatalx("out of memory");
	d->my_address = 0x20;
	for (i = 0; i < NSIGS; i++) {
		sigev[i] = evsignal_new(d->base, sigs[i], on_signal, d);
		event_add(sigev[i], NULL);
	}
	d->my_lun = IPMB_DEFAULT_LUN;
	memset(d->chan_address, d->my_address, sizeof(d->chan_address));
	memset(d->chan_lun, d->my_lun, sizeof(d->chan_lun));
	if (d->cfg.backend == KCSMUX_BACKEND_KCSRAW)
		d->be = backend_kcsraw_open(d->base, d->cfg.device,
					    &core_backend_cbs, d, &cause);
	else
		d->be = backend_ipmidev_open(d->base, d->cfg.device,
					     &core_backend_cbs, d, &cause);
	if (!d->be)
		fatalx("backend: %s", error_str(cause));
	bmc_setup_start(d);
	for (i = 0; i < d->cfg.nnodes; i++)
		if (node_create(d, &d->cfg.nodes[i], &cause) < 0)
			fatalx("%s", error_str(cause));
	log_info("%zu nodes on %s (%s)", d->cfg.nnodes, d->cfg.device,
		 config_backend_name(d->cfg.backend));
	if (control_init(d, &cause) < 0)
		fatalx("%s", error_str(cause));
	if (metrics_init(d, &cause) < 0)
		fatalx("%s", error_str(cause));
}

static void daemon_stop(struct daemon *d, struct event *sigev[NSIGS])
{
	metrics_fini(d);
	control_fini(d);
	while (!LIST_EMPTY(&d->nodes))
		node_destroy(LIST_FIRST(&d->nodes));
	d->be->ops->destroy(d->be);
	core_fini(d);
	frontend_fini(d);
	for (size_t i = 0; i < NSIGS; i++)
		event_free(sigev[i]);
	event_base_free(d->base);
	config_free(&d->cfg);
}

int main(int argc, char **argv)
{
	struct options o = { .path = KCSMUX_CONF_PATH };
	struct event *sigev[NSIGS];
	struct daemon d;
	char *cause = NULL;
	int rv;

	rv = parse_options(argc, argv, &o);
	if (rv >= 0)
		return rv;
	memset(&d, 0, sizeof(d));
	d.last_reload_ok = true;
	if (config_load(&d.cfg, o.path, &cause) < 0) {
		fprintf(stderr, "%s\n", error_str(cause));
		free(cause);
		return 1;
	}
	if (o.seccomp_set)
		d.cfg.seccomp = o.seccomp;
	if (o.check) {
		rv = check_names(&d.cfg);
		config_free(&d.cfg);
		return rv;
	}
	log_init(o.foreground, o.debug ? LOG_DEBUG : d.cfg.log_level);
	if (!o.foreground && daemon(0, 0) < 0)
		fatalx("daemon: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);
	d.cfg_path = o.path;

	daemon_start(&d, sigev);
	event_base_dispatch(d.base);
	daemon_stop(&d, sigev);
	return 0;
}
