// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmux-utime: microsecond timing for guest scripts (busybox has no
 * date +%N). Times commands (wall clock + the child's CPU) and reads the
 * clocks benchmark scripts need: CLOCK_MONOTONIC, per-thread scheduler CPU
 * time and system-wide busy time. Static guest helper; see usage() and
 * docs/guest-tools.md.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"

extern char **environ;

#define EXIT_USAGE 125 /* our own failure, like env(1)/timeout(1) */

static const char *prog = "kcsmux-utime";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-o FILE [-a]] [-n N] [-q] [--] CMD [ARGS...]\n"
		"       %s [-v] QUERY...\n"
		"\n"
		"Timing mode: run CMD N times (default 1), one after the other, and print one\n"
		"line per run on stderr (or to FILE with -o):\n"
		"  utime: run=I wall_us=W user_us=U sys_us=S status=X signal=G\n"
		"W is CLOCK_MONOTONIC elapsed time from just before spawning CMD to after\n"
		"reaping it (so it includes fork/exec); U and S are the child's user and\n"
		"system CPU from wait4() (including its own reaped descendants). X is the\n"
		"exit status, or 128+G if it was killed by signal G (else G is 0).\n"
		"When N > 1 (or with -q) a summary line follows:\n"
		"  utime: summary runs=N failed=F wall_us_min= wall_us_p50= wall_us_max=\n"
		"         wall_us_mean= wall_us_total= user_us_total= sys_us_total= status=X\n"
		"(one line; p50 is nearest-rank; failed counts runs with status != 0).\n"
		"  -o FILE   write the lines to FILE (truncated) instead of stderr\n"
		"  -a        with -o, append instead of truncating\n"
		"  -n N      run the command N times (all runs, even if some fail)\n"
		"  -q        no per-run lines, only the summary\n"
		"Exit status: the last run's status (128+signal if killed); 127 if CMD was\n"
		"not found, 126 if it could not be executed, 125 on a usage error.\n"
		"\n"
		"Query mode: each QUERY prints one integer, in microseconds, on its own line\n"
		"on stdout, in the order given (read them with: set -- $(%s ...)):\n"
		"  --now            CLOCK_MONOTONIC\n"
		"  --sched TID      CPU time of one thread (or a process's main thread):\n"
		"                   first field of /proc/TID/schedstat (ns, printed as us)\n"
		"  --cpu-pid PID    sum of --sched over all live threads of process PID\n"
		"  --cpu-of PATTERN sum of --sched over all live threads in the system whose\n"
		"                   comm (/proc/*/task/*/comm) matches the shell glob PATTERN,\n"
		"                   e.g. 'kipmi*' (stock kipmid) or 'kcsraw*'\n"
		"  --stat           system-wide busy time from the \"cpu\" line of /proc/stat:\n"
		"                   user+nice+system+irq+softirq summed over all CPUs,\n"
		"                   USER_HZ ticks -> us\n"
		"                   (10 ms resolution at USER_HZ=100; time long runs)\n"
		"  --stat-total     the same line's user+nice+system+idle+iowait+irq+softirq+\n"
		"                   steal, for utilisation = d(--stat) / d(--stat-total)\n"
		"  -v               list matched threads (pid tid comm us) on stderr\n"
		"Why --stat: CPU spent polling from a timer, softirq, hrtimer or IRQ handler\n"
		"(e.g. the stock driver with force_kipmid=0) belongs to no thread, so no\n"
		"schedstat shows it; take d(--stat) over a run and subtract the clients' own\n"
		"CPU to see it. If schedstat is unavailable, /proc/.../stat utime+stime\n"
		"(tick resolution) is used instead.\n"
		"Query exit status: 0, or 1 if a --cpu-of pattern matched no thread, a\n"
		"--sched/--cpu-pid task does not exist or /proc could not be read (the value\n"
		"printed is then 0).\n",
		prog, prog, prog);
}

/* ------------------------------------------------------------------ */
/* clocks and /proc readers                                            */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000ull + (uint64_t)tv->tv_usec;
}

static int read_small(const char *path, char *buf, size_t sz)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sz - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n ? 0 : -1;
}

/* read_small() of DIR/NAME; -1 if the path does not fit */
static int read_task_file(const char *dir, const char *name, char *buf,
			  size_t sz)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	return read_small(path, buf, sz);
}

static uint64_t ticks_to_us(uint64_t ticks)
{
	long hz = sysconf(_SC_CLK_TCK);

	if (hz <= 0)
		hz = 100;
	return ticks * 1000000ull / (uint64_t)hz;
}

/*
 * CPU time of one task directory (/proc/P or /proc/P/task/T) in ns:
 * schedstat's first field, or utime+stime from stat as a fallback.
 */
static int task_cpu_ns(const char *dir, uint64_t *ns)
{
	char buf[1024];
	unsigned long long v, ut, st;
	char *p;

	if (!read_task_file(dir, "schedstat", buf, sizeof(buf)) &&
	    sscanf(buf, "%llu", &v) == 1) {
		*ns = v;
		return 0;
	}
	if (read_task_file(dir, "stat", buf, sizeof(buf)))
		return -1;
	/* comm may contain blanks and ')': fields start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* fields 3..13 skipped, 14 utime, 15 stime */
	if (sscanf(p + 1,
		   " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		   &ut, &st) != 2)
		return -1;
	*ns = ticks_to_us(ut + st) * 1000ull;
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static void task_comm(const char *dir, char *comm, size_t sz)
{
	if (read_task_file(dir, "comm", comm, sz)) {
		comm[0] = '\0';
		return;
	}
	comm[strcspn(comm, "\n")] = '\0';
}

/*
 * Sum the CPU of the threads of /proc/PID/task whose comm matches pattern
 * (NULL: all). Returns the number of threads counted, -1 if PID is gone.
 */
static long sum_threads(const char *pid, const char *pattern, bool verbose,
			uint64_t *sum_ns)
{
	char dir[300], tdir[600], comm[64];
	struct dirent *de;
	long matched = 0;
	DIR *d;
	int n;

	snprintf(dir, sizeof(dir), "/proc/%s/task", pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		uint64_t ns;

		if (!all_digits(de->d_name))
			continue;
		n = snprintf(tdir, sizeof(tdir), "%s/%s", dir, de->d_name);
		if (n < 0 || (size_t)n >= sizeof(tdir))
			continue;
		task_comm(tdir, comm, sizeof(comm));
		if (pattern && fnmatch(pattern, comm, 0) != 0)
			continue;
		if (task_cpu_ns(tdir, &ns))
			continue; /* exited meanwhile */
		*sum_ns += ns;
		matched++;
		if (verbose)
			fprintf(stderr, "%s %s %s %" PRIu64 "\n", pid,
				de->d_name, comm, ns / 1000);
	}
	closedir(d);
	return matched;
}

static int q_sched(const char *tid, bool verbose, uint64_t *us)
{
	char dir[300];
	uint64_t ns;

	*us = 0;
	if (!all_digits(tid))
		return -1;
	snprintf(dir, sizeof(dir), "/proc/%s", tid);
	if (task_cpu_ns(dir, &ns))
		return -1;
	*us = ns / 1000;
	if (verbose) {
		char comm[64];

		task_comm(dir, comm, sizeof(comm));
		fprintf(stderr, "- %s %s %" PRIu64 "\n", tid, comm, *us);
	}
	return 0;
}

static int q_cpu_pid(const char *pid, bool verbose, uint64_t *us)
{
	uint64_t ns = 0;
	long n;

	*us = 0;
	if (!all_digits(pid))
		return -1;
	n = sum_threads(pid, NULL, verbose, &ns);
	*us = ns / 1000;
	return n > 0 ? 0 : -1;
}

static int q_cpu_of(const char *pattern, bool verbose, uint64_t *us)
{
	struct dirent *de;
	uint64_t ns = 0;
	long total = 0;
	DIR *d;

	*us = 0;
	d = opendir("/proc");
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		long n;

		if (!all_digits(de->d_name))
			continue;
		n = sum_threads(de->d_name, pattern, verbose, &ns);
		if (n > 0)
			total += n;
	}
	closedir(d);
	*us = ns / 1000;
	return total > 0 ? 0 : -1;
}

static int q_stat(bool total, uint64_t *us)
{
	char buf[512];
	unsigned long long f[8] = { 0 };
	uint64_t t;
	int n;

	*us = 0;
	if (read_small("/proc/stat", buf, sizeof(buf)))
		return -1;
	/* cpu  user nice system idle iowait irq softirq steal guest guest_nice */
	n = sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0],
		   &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]);
	if (n < 7)
		return -1;
	t = f[0] + f[1] + f[2] + f[5] + f[6];
	if (total)
		t += f[3] + f[4] + f[7];
	*us = ticks_to_us(t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* query mode                                                          */

enum qkind { Q_NOW, Q_SCHED, Q_CPU_PID, Q_CPU_OF, Q_STAT, Q_STAT_TOTAL };

struct query {
	enum qkind kind;
	const char *arg;
};

static int run_queries(const struct query *q, int nq, bool verbose)
{
	uint64_t *vals = calloc((size_t)nq, sizeof(*vals));
	int rc = 0;

	if (!vals) {
		perror(prog);
		return EXIT_USAGE;
	}
	/* Sample everything first, print afterwards: keeps samples close. */
	for (int i = 0; i < nq; i++) {
		int r = 0;

		switch (q[i].kind) {
		case Q_NOW:
			vals[i] = now_ns() / 1000;
			break;
		case Q_SCHED:
			r = q_sched(q[i].arg, verbose, &vals[i]);
			break;
		case Q_CPU_PID:
			r = q_cpu_pid(q[i].arg, verbose, &vals[i]);
			break;
		case Q_CPU_OF:
			r = q_cpu_of(q[i].arg, verbose, &vals[i]);
			break;
		case Q_STAT:
			r = q_stat(false, &vals[i]);
			break;
		case Q_STAT_TOTAL:
			r = q_stat(true, &vals[i]);
			break;
		}
		if (r) {
			if (q[i].kind == Q_CPU_OF)
				fprintf(stderr, "%s: no thread matches '%s'\n",
					prog, q[i].arg);
			else if (q[i].arg)
				fprintf(stderr, "%s: no such task '%s'\n", prog,
					q[i].arg);
			else
				fprintf(stderr, "%s: cannot read /proc/stat\n",
					prog);
			rc = 1;
		}
	}
	for (int i = 0; i < nq; i++)
		printf("%" PRIu64 "\n", vals[i]);
	free(vals);
	return rc;
}

/* ------------------------------------------------------------------ */
/* timing mode                                                         */

struct run {
	uint64_t wall_us;
	uint64_t user_us;
	uint64_t sys_us;
	int status;
	int sig;
};

/* Returns 0, or the exit status to give up with (126/127/125). */
static int run_once(char **argv, struct run *r)
{
	posix_spawnattr_t attr;
	sigset_t dfl;
	struct rusage ru;
	uint64_t t0, t1;
	pid_t pid;
	int err, ws;

	posix_spawnattr_init(&attr);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGQUIT);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);

	t0 = now_ns();
	err = posix_spawnp(&pid, argv[0], NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", prog, argv[0], strerror(err));
		return err == ENOENT ? 127 : 126;
	}
	while (wait4(pid, &ws, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("wait4");
			return EXIT_USAGE;
		}
	}
	t1 = now_ns();
	r->wall_us = (t1 - t0 + 500) / 1000;
	r->user_us = tv_us(&ru.ru_utime);
	r->sys_us = tv_us(&ru.ru_stime);
	if (WIFSIGNALED(ws)) {
		r->sig = WTERMSIG(ws);
		r->status = 128 + r->sig;
	} else {
		r->sig = 0;
		r->status = WEXITSTATUS(ws);
	}
	return 0;
}

static int run_timed(char **argv, unsigned long n, bool quiet, FILE *out)
{
	uint64_t *walls = calloc(n, sizeof(*walls));
	uint64_t user_total = 0, sys_total = 0;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	unsigned long failed = 0, i;
	struct kcsmux_stats st;
	int last = 0;

	if (!walls) {
		perror(prog);
		return EXIT_USAGE;
	}
	/* Like time(1): ^C goes to the command, we survive to report. */
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	for (i = 0; i < n; i++) {
		struct run r;
		int rc = run_once(argv, &r);

		if (rc) {
			free(walls);
			return rc;
		}
		walls[i] = r.wall_us;
		user_total += r.user_us;
		sys_total += r.sys_us;
		last = r.status;
		if (r.status)
			failed++;
		if (!quiet) {
			fprintf(out,
				"utime: run=%lu wall_us=%" PRIu64
				" user_us=%" PRIu64 " sys_us=%" PRIu64
				" status=%d signal=%d\n",
				i + 1, r.wall_us, r.user_us, r.sys_us, r.status,
				r.sig);
			fflush(out);
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (n > 1 || quiet) {
		kcsmux_stats_compute(walls, n, &st);
		fprintf(out,
			"utime: summary runs=%lu failed=%lu wall_us_min=%" PRIu64
			" wall_us_p50=%" PRIu64 " wall_us_max=%" PRIu64
			" wall_us_mean=%" PRIu64 " wall_us_total=%" PRIu64
			" user_us_total=%" PRIu64 " sys_us_total=%" PRIu64
			" status=%d\n",
			n, failed, st.min, st.p50, st.max,
			(uint64_t)(st.mean + 0.5), st.sum, user_total,
			sys_total, last);
		fflush(out);
	}
	free(walls);
	return last;
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	enum {
		O_NOW = 256,
		O_SCHED,
		O_CPU_PID,
		O_CPU_OF,
		O_STAT,
		O_STAT_TOTAL
	};
	static const struct option lopts[] = {
		{ "now", no_argument, NULL, O_NOW },
		{ "sched", required_argument, NULL, O_SCHED },
		{ "cpu-pid", required_argument, NULL, O_CPU_PID },
		{ "cpu-of", required_argument, NULL, O_CPU_OF },
		{ "stat", no_argument, NULL, O_STAT },
		{ "stat-total", no_argument, NULL, O_STAT_TOTAL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *outfile = NULL;
	unsigned long n = 1;
	bool append = false, quiet = false, verbose = false, n_set = false;
	struct query *q;
	int nq = 0, c, rc;
	FILE *out = stderr;

	q = calloc((size_t)argc, sizeof(*q));
	if (!q) {
		perror(prog);
		return EXIT_USAGE;
	}
	opterr = 0;
	/* '+': stop at the first non-option, which starts CMD. */
	while ((c = getopt_long(argc, argv, "+:o:an:qvh", lopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'o':
			outfile = optarg;
			break;
		case 'a':
			append = true;
			break;
		case 'n':
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || *end || !isdigit((unsigned char)*optarg) ||
			    n < 1 || n > 10000000) {
				fprintf(stderr,
					"%s: bad -n '%s' (1..10000000)\n", prog,
					optarg);
				goto usage_err;
			}
			n_set = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'v':
			verbose = true;
			break;
		case O_NOW:
			q[nq++] = (struct query){ Q_NOW, NULL };
			break;
		case O_SCHED:
			q[nq++] = (struct query){ Q_SCHED, optarg };
			break;
		case O_CPU_PID:
			q[nq++] = (struct query){ Q_CPU_PID, optarg };
			break;
		case O_CPU_OF:
			q[nq++] = (struct query){ Q_CPU_OF, optarg };
			break;
		case O_STAT:
			q[nq++] = (struct query){ Q_STAT, NULL };
			break;
		case O_STAT_TOTAL:
			q[nq++] = (struct query){ Q_STAT_TOTAL, NULL };
			break;
		case 'h':
			usage(stdout);
			free(q);
			return 0;
		case ':':
			fprintf(stderr, "%s: option %s needs a value\n", prog,
				argv[optind - 1]);
			goto usage_err;
		default:
			fprintf(stderr, "%s: unknown option %s\n", prog,
				argv[optind - 1]);
			goto usage_err;
		}
	}

	if (nq) {
		if (optind < argc || outfile || append || quiet || n_set) {
			fprintf(stderr,
				"%s: queries cannot be combined with a command or -o/-a/-n/-q\n",
				prog);
			goto usage_err;
		}
		rc = run_queries(q, nq, verbose);
		free(q);
		return rc;
	}
	free(q);
	if (optind >= argc) {
		fprintf(stderr, "%s: no command given\n", prog);
		goto usage_err_nofree;
	}
	if (append && !outfile) {
		fprintf(stderr, "%s: -a needs -o\n", prog);
		goto usage_err_nofree;
	}
	if (outfile) {
		out = fopen(outfile, append ? "ae" : "we");
		if (!out) {
			fprintf(stderr, "%s: %s: %s\n", prog, outfile,
				strerror(errno));
			return EXIT_USAGE;
		}
	}
	rc = run_timed(argv + optind, n, quiet, out);
	if (out != stderr && fclose(out)) {
		fprintf(stderr, "%s: %s: %s\n", prog, outfile, strerror(errno));
		if (!rc)
			rc = EXIT_USAGE;
	}
	return rc;

usage_err:
	free(q);
usage_err_nofree:
	fprintf(stderr, "Try '%s --help'.\n", prog);
	return EXIT_USAGE;
}
