// SPDX-License-Identifier: GPL-2.0
/*
 * fuse_rtt - the cost of one FUSE request/reply round trip on this host,
 * through libfuse3's low-level API served the way kcsmuxd serves its CUSE
 * nodes: one thread, the session fd non-blocking, woken by poll(), up to 16
 * requests per wake-up, fuse_session_receive_buf + fuse_session_process_buf.
 *
 * A trivial file system with one file opened with direct_io (so every
 * pread() is a request to the daemon, never the page cache); the client
 * does N 1-byte pread()s in a loop and times each one. The daemon runs in a
 * child process so that its CPU time is its own (/proc/PID/schedstat).
 *
 *   fuse_rtt [-n N] [-w WARMUP] [-c CPU_CLIENT,CPU_DAEMON]
 *
 * Prints one "fuse_rtt:" key=value line and a markdown table row. Exit 77
 * (skip) where /dev/fuse cannot be opened or the mount is refused.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define FUSE_USE_VERSION 35

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SKIP 77
#define FILE_INO 2
static const char file_name[] = "f";

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Run time of a process's (single) thread, ns, from schedstat. */
static uint64_t task_runtime(pid_t pid)
{
	char path[64];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static void fill_attr(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (ino == FUSE_ROOT_ID) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = 1 << 20;
	}
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	if (parent != FUSE_ROOT_ID || strcmp(name, file_name)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = FILE_INO;
	e.attr_timeout = 3600;
	e.entry_timeout = 3600;
	fill_attr(FILE_INO, &e.attr);
	fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	if (ino != FUSE_ROOT_ID && ino != FILE_INO) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill_attr(ino, &st);
	fuse_reply_attr(req, &st, 3600);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino != FILE_INO) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	fi->direct_io = 1;	/* every read reaches the daemon */
	fi->keep_cache = 0;
	fuse_reply_open(req, fi);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	static const char byte = 'k';

	(void)ino;
	(void)off;
	(void)fi;
	fuse_reply_buf(req, &byte, size ? 1 : 0);
}

static const struct fuse_lowlevel_ops ops = {
	.lookup = op_lookup,
	.getattr = op_getattr,
	.open = op_open,
	.read = op_read,
};

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* The daemon: kcsmuxd's node loop without libevent. */
static int serve(const char *mnt, int ready_fd, int cpu)
{
	char *argv[] = { (char *)"fuse_rtt", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(1, argv);
	struct fuse_buf buf = { 0 };
	struct fuse_session *se;
	struct pollfd pfd;
	char ok = 1;
	int i, rv;

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	signal(SIGTERM, on_term);
	se = fuse_session_new(&args, &ops, sizeof(ops), NULL);
	if (!se || fuse_session_mount(se, mnt) != 0) {
		ok = 0;
		if (write(ready_fd, &ok, 1) < 0)
			return 1;
		return SKIP;
	}
	fcntl(fuse_session_fd(se), F_SETFL,
	      fcntl(fuse_session_fd(se), F_GETFL) | O_NONBLOCK);
	if (write(ready_fd, &ok, 1) < 0)
		return 1;
	close(ready_fd);
	pfd.fd = fuse_session_fd(se);
	pfd.events = POLLIN;
	while (!stop && !fuse_session_exited(se)) {
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < 16; i++) {
			rv = fuse_session_receive_buf(se, &buf);
			if (rv == -EAGAIN || rv == -EINTR)
				break;
			if (rv <= 0)
				goto out;
			fuse_session_process_buf(se, &buf);
		}
	}
out:
	free(buf.mem);
	fuse_session_unmount(se);
	fuse_session_destroy(se);
	return 0;
}

/* SIGTERM ends the daemon's loop; it unmounts. Detach if it did not. */
static void stop_daemon(pid_t pid, const char *mnt)
{
	int st;

	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	umount2(mnt, MNT_DETACH);
	rmdir(mnt);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = 100000, warm = 2000, i;
	int cpu_client = -1, cpu_daemon = -1, opt, fd, p[2], st;
	char mnt[] = "/tmp/fuse_rtt.XXXXXX", path[64], c, ok = 0;
	uint64_t *lat, t0, t1, c0, c1, d0, d1, sum = 0;
	pid_t pid;

	while ((opt = getopt(argc, argv, "n:w:c:h")) != -1) {
		switch (opt) {
		case 'n':
			n = atol(optarg);
			break;
		case 'w':
			warm = atol(optarg);
			break;
		case 'c':
			if (sscanf(optarg, "%d,%d", &cpu_client, &cpu_daemon) != 2) {
				fprintf(stderr, "-c CLIENT_CPU,DAEMON_CPU\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: %s [-n N] [-w WARMUP] [-c CLIENT_CPU,DAEMON_CPU]\n",
				argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (n < 1 || warm < 0)
		return 2;
	fd = open("/dev/fuse", O_RDWR);
	if (fd < 0) {
		printf("fuse_rtt: SKIP: /dev/fuse: %s\n", strerror(errno));
		return SKIP;
	}
	close(fd);
	if (!mkdtemp(mnt) || pipe(p) < 0) {
		perror("fuse_rtt");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(p[0]);
		_exit(serve(mnt, p[1], cpu_daemon));
	}
	close(p[1]);
	if (read(p[0], &ok, 1) != 1 || !ok) {
		waitpid(pid, &st, 0);
		rmdir(mnt);
		printf("fuse_rtt: SKIP: cannot mount a FUSE file system at %s\n", mnt);
		return SKIP;
	}
	close(p[0]);
	if (cpu_client >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu_client, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}

	lat = calloc((size_t)n, sizeof(*lat));
	snprintf(path, sizeof(path), "%s/%s", mnt, file_name);
	fd = open(path, O_RDONLY);
	if (!lat || fd < 0) {
		perror(path);
		goto fail;
	}
	for (i = 0; i < warm; i++)
		if (pread(fd, &c, 1, 0) != 1)
			goto rfail;
	d0 = task_runtime(pid);
	c0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		uint64_t a = now_ns();

		if (pread(fd, &c, 1, 0) != 1)
			goto rfail;
		lat[i] = now_ns() - a;
	}
	t1 = now_ns();
	c1 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	d1 = task_runtime(pid);
	close(fd);

	for (i = 0; i < n; i++)
		sum += lat[i];
	qsort(lat, (size_t)n, sizeof(*lat), cmp_u64);
	printf("fuse_rtt: n=%ld wall_ns_per_op=%.0f mean_ns=%.0f p50_ns=%llu p99_ns=%llu client_cpu_ns_per_op=%.0f daemon_cpu_ns_per_op=%.0f client_on=%d daemon_on=%d\n",
	       n, (double)(t1 - t0) / (double)n, (double)sum / (double)n,
	       (unsigned long long)lat[n / 2],
	       (unsigned long long)lat[(n * 99) / 100],
	       (double)(c1 - c0) / (double)n, (double)(d1 - d0) / (double)n,
	       cpu_client, cpu_daemon);
	printf("| %s | %ld | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
	       cpu_client < 0 ? "any CPU" :
	       cpu_client == cpu_daemon ? "same CPU" : "two CPUs",
	       n, (double)lat[n / 2] / 1000.0,
	       (double)lat[(n * 99) / 100] / 1000.0,
	       (double)sum / (double)n / 1000.0,
	       (double)(c1 - c0) / (double)n / 1000.0,
	       (double)(d1 - d0) / (double)n / 1000.0);
	free(lat);
	stop_daemon(pid, mnt);
	return 0;
rfail:
	perror("pread");
fail:
	free(lat);
	if (fd >= 0)
		close(fd);
	stop_daemon(pid, mnt);
	return 1;
}
