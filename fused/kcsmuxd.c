// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxd - virtual /dev/ipmiN nodes over CUSE, multiplexed onto one KCS
 * interface, each node with its own polling policy, priority and access
 * list. One libevent loop holds every CUSE session, the backend and the
 * signals.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <kcsmux/version.h>

#include "backend/backend.h"
#include "control/control.h"
#include "core/ipmb.h"
#include "core/xact.h"
#include "cuse/handover.h"
#include "kcsmuxd.h"
#include "notify.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/log.h"
#include "metrics/metrics.h"
#include "sandbox.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kcsmuxd [-dfnhV] [--live] [-c FILE] [-S yes|no|log]\n"
		"  -c, --config=FILE    configuration (default %s)\n"
		"  -d, --debug          debug logging\n"
		"  -f, --foreground     stay in the foreground, log to stderr\n"
		"                       (with journald priorities under systemd)\n"
		"  -n, --check          check the configuration file and exit\n"
		"      --live           with -n: also check this machine (node\n"
		"                       names free in /dev, as the start does)\n"
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
		"%8s %7s %6s %5s %6s %6s %6s %6s %6s %6s %8s\n",
		"node", "policy", "cli", "reqs", "done", "err", "deny", "busy",
		"p50_us", "p99_us", "wait99", "cpu_us/r", "spin_us/r",
		"cpu_ppm", "slp/r", "thr", "s_gss", "s_hit", "s_mis", "r_gss",
		"r_hit", "r_mis", "dmn_us/r");
	v = core_nodes(d, &count);
	for (i = 0; i < count; i++) {
		const struct node *n = v[i];
		const struct nodestats *st = &n->st;
		double r = st->completed ? (double)st->completed : 1.0;

		fprintf(f,
			"%-8s %-11s %4u %7llu %7llu %5llu %5llu %5llu "
			"%8.0f %8.0f %8.0f %8.1f %8.1f %7.0f %6.2f %5llu "
			"%6llu %6llu %6llu %6llu %6llu %6llu %8.1f\n",
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
			(unsigned long long)n->cnt.guess_misses[0],
			(unsigned long long)n->cnt.guesses[1],
			(unsigned long long)n->cnt.guess_hits[1],
			(unsigned long long)n->cnt.guess_misses[1],
			st->daemon_cpu_ns / 1e3 / r);
	}
	free(v);
	/* what measuring dmn_us/r cost: boundary reads (the vDSO's clock),
	 * thread CPU clock reads (a system call each, once a second), the
	 * CPU share of busy time, and the measured CPU that was no node's */
	fprintf(f,
		"cpu_meter reads=%llu cpu_reads=%llu cpu_share=%.3f own_us=%.0f\n",
		(unsigned long long)d->cpu.reads,
		(unsigned long long)d->cpu.cal_reads,
		d->cpu.calibrated ? d->cpu.scale_ppm / 1e6 : 1.0,
		d->cpu.own_ns / 1e3);
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
		.smi_async = d->be->async_fd >= 0,
		.async_fd = d->be->async_fd,
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

/*
 * Without -f the daemon detaches at once, but the parent stays until the
 * start is done: each error the child logs meanwhile also goes down a pipe
 * to it, and it exits 1 unless the child's last byte there is the NUL
 * that says every node is up. So `kcsmuxd` from a shell or an init script
 * fails, with the reason, when the backend cannot be opened.
 */
static FILE *startup;

static void detach(void)
{
	char buf[512];
	bool ok = false, said = false;
	ssize_t n;
	pid_t pid;
	int p[2], fd;

	if (pipe2(p, O_CLOEXEC) < 0)
		fatalx("pipe: %s", strerror(errno));
	if ((pid = fork()) < 0)
		fatalx("fork: %s", strerror(errno));
	if (pid > 0) {
		close(p[1]);
		while ((n = read(p[0], buf, sizeof(buf))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			ok = buf[n - 1] == '\0';
			fwrite(buf, 1, (size_t)n - ok, stderr);
			said |= n - ok > 0;
		}
		if (!ok && !said)
			fprintf(stderr, "kcsmuxd: exited during start-up\n");
		_exit(ok ? 0 : 1);
	}
	close(p[0]);
	if (setsid() < 0 || chdir("/") < 0)
		fatalx("detaching: %s", strerror(errno));
	if ((fd = open("/dev/null", O_RDWR)) >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	if ((startup = fdopen(p[1], "w")) == NULL)
		fatalx("fdopen: %s", strerror(errno));
	log_set_startup(startup);
}

/* The start is done: the waiting parent exits 0. */
static void detached(void)
{
	if (startup == NULL)
		return;
	log_set_startup(NULL);
	fputc('\0', startup);
	fclose(startup);
	startup = NULL;
}

/*
 * The nodes' /dev/cuse connections and the hand-over's memfd into the
 * service manager's store (cuse/handover.c), and out of it those of nodes
 * no longer configured. Storing needs sendmsg(2), which the seccomp filter
 * refuses: a node a reload adds later is not kept across a restart.
 */
static void store_fds(struct daemon *d)
{
	const char *name;
	int fd;

	while ((fd = handover_store_next(d, &name)) >= 0) {
		if (d->notify_fd < 0)
			continue;
		if (d->sandboxed) {
			log_warn("%s: added after the seccomp filter: not kept "
				 "across a restart",
				 name);
			continue;
		}
		if (notify_store_fd(d->notify_fd, fd, name) == 0)
			handover_stored(d);
	}
	while ((name = handover_drop_next(d)) != NULL)
		notify_send(d->notify_fd, "FDSTOREREMOVE=1\nFDNAME=%s", name);
}

/*
 * A reload of kcsraw.ko under open nodes (docs/reliability.md): while
 * KCSMUX_HOLD_PATH exists at start, the daemon takes its nodes over (the
 * fd store) but leaves /dev/kcsraw0 closed, so that the module can be
 * unloaded, and holds every request in the nodes' queues; once the file
 * is gone (or HOLD_MAX_S after the start) it opens the interface, when it
 * exists, and serves them. Root and the seccomp filter are kept until
 * then: the filter admits the backend's descriptor only.
 */
#define KCSMUX_HOLD_PATH "/run/kcsmux-hold"
#define HOLD_MAX_S	 120 /* a hold file left behind */
#define HOLD_OPEN_S	 60  /* then the device must come back */

static struct hold {
	bool on;
	struct event *ev;
	uint64_t t0, gone_t0;
	struct backend_kcsraw_opts kro;
} hold;

static const struct timeval hold_step = { 0, 100000 };

static void daemon_notify(struct daemon *d, const char *state);

static void hold_tick(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	uint64_t now = now_ns();
	char *cause = NULL;

	(void)fd;
	(void)what;
	if (access(KCSMUX_HOLD_PATH, F_OK) == 0 &&
	    now - hold.t0 < HOLD_MAX_S * 1000000000ull) {
		evtimer_add(hold.ev, &hold_step);
		return;
	}
	if (!hold.gone_t0)
		hold.gone_t0 = now;
	if (backend_kcsraw_nobmc(d->cfg.device) != 0 ||
	    backend_kcsraw_attach(d->be, d->base, d->cfg.device, &hold.kro,
				  &cause) < 0) {
		if (now - hold.gone_t0 >= HOLD_OPEN_S * 1000000000ull)
			fatalx("backend: %s",
			       cause ? error_str(cause) :
				       "no BMC answers on the interface");
		free(cause);
		evtimer_add(hold.ev, &hold_step);
		return;
	}
	hold.on = false;
	log_info("%s: open again after %.1f s held: serving", d->cfg.device,
		 (double)(now_ns() - hold.t0) / 1e9);
	bmc_setup_start(d);
	d->be->cbs->room(d->be->cb_arg);
	daemon_notify(d, "READY=1");
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
	store_fds(d);
	if (hold.on) {
		detached();
		notify_send(d->notify_fd,
			    "%s\nSTATUS=%zu nodes, holding requests: %s "
			    "closed while %s exists",
			    state, count, d->cfg.device, KCSMUX_HOLD_PATH);
		return;
	}
	drop_privileges(d);
	apply_sandbox(d);
	detached();
	notify_send(d->notify_fd, "%s\nSTATUS=%zu nodes on %s", state, count,
		    d->cfg.device);
}

/* A reload kcsmuxctl asked for is done (d->reloaded, control/control_cmds.c): as
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

/* SIGTERM's hand-over is ready: the loop ends, main saves the state. */
static void quiesced(struct daemon *d)
{
	event_base_loopexit(d->base, NULL);
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
		handover_quiesce(d, quiesced);
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
	bool foreground, check, live, debug;
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
		{ "live", no_argument, NULL, 'L' },
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
		case 'L':
			o->live = true;
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
	if (o->live && !o->check) {
		fprintf(stderr, "kcsmuxd: --live goes with -n\n");
		return 2;
	}
	return -1;
}

/*
 * kcsmuxd -n --live: may the nodes take their names here? A name that is
 * a CUSE device already (/sys/class/cuse/NAME: a running kcsmuxd's own
 * node) is what a reload keeps, not an error.
 */
static int check_names(const struct kcsmux_config *cfg)
{
	char *cause = NULL, path[32 + KCSMUX_NAME_MAX];
	struct stat sb;
	int rv = 0;

	for (size_t i = 0; i < cfg->nnodes; i++) {
		snprintf(path, sizeof(path), "/sys/class/cuse/%s",
			 cfg->nodes[i].name);
		if (stat(path, &sb) == 0)
			continue;
		if (node_name_check(cfg->nodes[i].name, &cause) < 0) {
			fprintf(stderr, "%s\n", error_str(cause));
			free(cause);
			cause = NULL;
			rv = 1;
		}
	}
	return rv;
}

/*
 * kcsmuxd -n: what the file says that only the start would find: the
 * metrics textfile's directory must exist (an error), and an HTTP
 * listener off loopback serves anyone who can reach the port (a warning).
 */
static int check_startup(const struct kcsmux_config *cfg)
{
	const char *tf = cfg->metrics_textfile;
	struct stat sb;
	int rv = 0, e;

	if (tf != NULL && *tf != '\0') {
		const char *slash = strrchr(tf, '/');
		char *dir = slash == NULL ? strdup(".") :
			    slash == tf	  ? strdup("/") :
					    strndup(tf, (size_t)(slash - tf));

		if (dir == NULL) {
			fprintf(stderr, "kcsmuxd: out of memory\n");
			return 1;
		}
		e = stat(dir, &sb) < 0	 ? errno :
		    !S_ISDIR(sb.st_mode) ? ENOTDIR :
					   0;
		if (e != 0) {
			fprintf(stderr,
				"metrics_textfile %s: directory %s: %s: the "
				"start would fail\n",
				tf, dir, strerror(e));
			rv = 1;
		}
		free(dir);
	}
	if (cfg->metrics_listen != NULL && *cfg->metrics_listen != '\0' &&
	    !metrics_listen_loopback(cfg->metrics_listen))
		fprintf(stderr,
			"warning: metrics_listen %s is not a loopback "
			"address: anyone who reaches the port reads the "
			"metrics (no authentication)\n",
			cfg->metrics_listen);
	return rv;
}

static int check_config(const struct kcsmux_config *cfg, bool live)
{
	int rv = check_startup(cfg);

	if (cfg->warnings != NULL) /* names only the target host has */
		fputs(cfg->warnings, stderr);
	if (live && check_names(cfg) != 0)
		rv = 1;
	if (!rv)
		printf("configuration OK\n");
	return rv;
}

static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1 };
#define NSIGS (sizeof(sigs) / sizeof(sigs[0]))

/*
 * kcsraw loaded while no BMC answers yet (a BMC that boots later than the
 * host): it probes the BMC each second and sets up its IRQ and the
 * kernel's interface (SMI mode: the /dev/ipmiN the backend opens as root)
 * once it answers. Wait for that before anything else, telling the service
 * manager (the start is extended while waiting), so that the backend, the
 * BMC setup (enables, channel scan) and the nodes start on a BMC that
 * answers, minutes later if need be. SIGTERM's default action still ends
 * the wait: no handler is installed yet.
 */
static void wait_for_bmc(struct daemon *d)
{
	const struct timespec step = { 0, 200 * 1000 * 1000 };
	uint64_t t0 = now_ns(), said = 0;

	if (d->cfg.backend != KCSMUX_BACKEND_KCSRAW)
		return;
	while (backend_kcsraw_nobmc(d->cfg.device) == 1) {
		if (!said) {
			log_warn("%s: no BMC answers yet: waiting for it "
				 "(kcsraw asks it each second)",
				 d->cfg.device);
			said = 1;
		}
		/* at once, then each second */
		if (said == 1 || now_ns() - t0 >= said * 1000000000ull) {
			notify_send(d->notify_fd,
				    "EXTEND_TIMEOUT_USEC=5000000\n"
				    "STATUS=waiting for the BMC to answer");
			said++;
		}
		nanosleep(&step, NULL);
	}
	if (said)
		log_info("%s: the BMC answers, after %.1f s: starting",
			 d->cfg.device, (double)(now_ns() - t0) / 1e9);
}

/* The event loop and everything in it: core, front end, signals, backend,
 * BMC setup, nodes, control socket, metrics. Fatal on error. */
static void daemon_start(struct daemon *d, struct event *sigev[NSIGS])
{
	/* KCSMUX_TEST_SMI_ASYNC=1: SMI mode whatever the module says
	 * (the VM tests, before a module that says it) */
	const char *force = getenv("KCSMUX_TEST_SMI_ASYNC");
	struct backend_kcsraw_opts kro = {
		.async_dev = d->cfg.backend_async_dev,
		.force_async = force && strcmp(force, "1") == 0,
	};
	struct event_base *base;
	char *cause = NULL;
	size_t i;

	d->started_ns = now_ns();
	d->started_unix = (uint64_t)time(NULL);
	d->notify_fd = notify_open(); /* before the seccomp filter */
	hold.on = d->cfg.backend == KCSMUX_BACKEND_KCSRAW &&
		  access(KCSMUX_HOLD_PATH, F_OK) == 0;
	if (!hold.on)
		wait_for_bmc(d);
	d->reloaded = reloaded;
	base = event_base_new();
	if (!base)
		fatalx("event_base_new failed");
	core_init(d, base);
	if (frontend_init(d, node_ready) < 0)
		fatalx("out of memory");
	if (handover_init(d, &cause) < 0)
		fatalx("%s", error_str(cause));
	d->my_address = 0x20;
	for (i = 0; i < NSIGS; i++) {
		sigev[i] = evsignal_new(d->base, sigs[i], on_signal, d);
		event_add(sigev[i], NULL);
	}
	d->my_lun = IPMB_DEFAULT_LUN;
	memset(d->chan_address, d->my_address, sizeof(d->chan_address));
	memset(d->chan_lun, d->my_lun, sizeof(d->chan_lun));
	if (hold.on) {
		hold.kro = kro;
		hold.t0 = now_ns();
		d->be = backend_kcsraw_held(&core_backend_cbs, d);
		hold.ev = evtimer_new(d->base, hold_tick, d);
		if (!d->be || !hold.ev)
			fatalx("out of memory");
		log_warn("%s exists: %s stays closed and requests wait until "
			 "it is removed (a reload of kcsraw)",
			 KCSMUX_HOLD_PATH, d->cfg.device);
		event_add(hold.ev, &hold_step);
	} else if (d->cfg.backend == KCSMUX_BACKEND_KCSRAW)
		d->be = backend_kcsraw_open(d->base, d->cfg.device, &kro,
					    &core_backend_cbs, d, &cause);
	else
		d->be = backend_ipmidev_open(d->base, d->cfg.device,
					     &core_backend_cbs, d, &cause);
	if (!d->be)
		fatalx("backend: %s", error_str(cause));
	if (!hold.on)
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
	/* last: the inherited nodes' devices are ready at once (drop, seccomp
	 * filter, READY=1 follow) */
	handover_resume(d);
}

static void daemon_stop(struct daemon *d, struct event *sigev[NSIGS])
{
	metrics_fini(d);
	control_fini(d);
	while (!LIST_EMPTY(&d->nodes))
		node_destroy(LIST_FIRST(&d->nodes));
	if (hold.ev)
		event_free(hold.ev);
	d->be->ops->destroy(d->be);
	core_fini(d);
	handover_fini(d);
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
	/* -n without --live checks the file for another host: its users */
	if ((o.check && !o.live ? config_load_offline(&d.cfg, o.path, &cause) :
				  config_load(&d.cfg, o.path, &cause)) < 0) {
		fprintf(stderr, "%s\n", error_str(cause));
		free(cause);
		return 1;
	}
	if (o.seccomp_set)
		d.cfg.seccomp = o.seccomp;
	if (o.check) {
		rv = check_config(&d.cfg, o.live);
		config_free(&d.cfg);
		return rv;
	}
	log_init(o.foreground, o.debug ? LOG_DEBUG : d.cfg.log_level);
	log_route_libraries();
	if (!o.foreground)
		detach();
	signal(SIGPIPE, SIG_IGN);
	d.cfg_path = o.path;

	daemon_start(&d, sigev);
	event_base_dispatch(d.base);
	handover_save(&d);
	daemon_stop(&d, sigev);
	return 0;
}
