// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for kcsmuxd's seccomp filter (fused/sandbox.c) and its
 * kcsmux.conf key: each filter is installed in a forked child, which then
 * makes calls the daemon needs (they must work), calls it must not make
 * (the child must die of SIGSYS) and calls the filter refuses with an
 * error (that error). The daemon under the same filter and a full workload
 * is vm.daemon-seccomp.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/landlock.h>
#include <seccomp.h>
#include <kcsmux/kcsraw.h>

#include "config/config.h"
#include "sandbox.h"
#include "unit_skip.h"
#include "util/array.h"

/* Exit codes of a child: 0 all well, these for the step that failed. */
enum { X_APPLY = 90, X_STEP = 91 };

static char tmpdir[64];
static int backend_fd = -1; /* stands in for /dev/kcsraw0 */

static void setup(void)
{
	int p[2];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/kcsmux-sandbox-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	ck_assert_int_eq(pipe(p), 0);
	backend_fd = p[0];
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static struct sandbox_profile profile(enum kcsmux_seccomp mode, bool dropped,
				      bool textfile)
{
	return (struct sandbox_profile){ .mode = mode,
					 .backend = KCSMUX_BACKEND_KCSRAW,
					 .backend_fd = backend_fd,
					 .dropped = dropped,
					 .textfile = textfile };
}

/* Run FN(ARG) in a child under P; its wait status. */
static int sandboxed(struct sandbox_profile p, int (*fn)(const char *),
		     const char *arg)
{
	char *cause = NULL;
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (sandbox_apply(&p, &cause) < 0) {
			fprintf(stderr, "sandbox_apply: %s\n", cause);
			_exit(X_APPLY);
		}
		_exit(fn(arg));
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return st;
}

static void expect_exit0(int st, const char *what)
{
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "%s: want exit 0, got %s %d", what,
		      WIFEXITED(st) ? "exit" : "signal",
		      WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

static void expect_sigsys(int st, const char *what)
{
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS,
		      "%s: want death by SIGSYS, got %s %d", what,
		      WIFEXITED(st) ? "exit" : "signal",
		      WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

static bool have_seccomp(void)
{
	return seccomp_api_get() >= 3;
}

/* ---- the config key and -S ---- */

START_TEST(test_config_key)
{
	static const struct {
		const char *v;
		enum kcsmux_seccomp want;
	} ok[] = {
		{ "yes", KCSMUX_SECCOMP_YES }, { "on", KCSMUX_SECCOMP_YES },
		{ "1", KCSMUX_SECCOMP_YES },   { "True", KCSMUX_SECCOMP_YES },
		{ "no", KCSMUX_SECCOMP_NO },   { "off", KCSMUX_SECCOMP_NO },
		{ "0", KCSMUX_SECCOMP_NO },    { "log", KCSMUX_SECCOMP_LOG },
		{ "LOG", KCSMUX_SECCOMP_LOG },
	};
	struct kcsmux_config cfg;
	enum kcsmux_seccomp m;
	char text[128], *cause = NULL;
	size_t i;

	ck_assert_int_eq(config_load_string(&cfg, "[node a]\n", "t.conf",
					    &cause),
			 0);
	ck_assert_int_eq(cfg.seccomp, KCSMUX_SECCOMP_NO); /* default */
	config_free(&cfg);
	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		snprintf(text, sizeof(text),
			 "[global]\nseccomp = %s\n"
			 "[node a]\n",
			 ok[i].v);
		ck_assert_msg(config_load_string(&cfg, text, "t.conf",
						 &cause) == 0,
			      "%s: %s", ok[i].v, cause);
		ck_assert_int_eq(cfg.seccomp, ok[i].want);
		config_free(&cfg);
		ck_assert_int_eq(config_seccomp_parse("-S", ok[i].v, &m, NULL),
				 0);
		ck_assert_int_eq(m, ok[i].want);
	}

	ck_assert_int_eq(config_load_string(&cfg,
					    "[global]\nseccomp = "
					    "maybe\n[node a]\n",
					    "t.conf", &cause),
			 -1);
	ck_assert_str_eq(cause, "t.conf:2: seccomp: expected yes, no or log, "
				"not 'maybe'");
	free(cause);
	ck_assert_int_eq(config_load_string(&cfg,
					    "[global]\nseccomp = yes\n"
					    "seccomp = no\n[node a]\n",
					    "t.conf", &cause),
			 -1);
	ck_assert_str_eq(cause, "t.conf:3: 'seccomp' given twice in this "
				"section (first at line 2)");
	free(cause);
	ck_assert_int_eq(config_load_string(&cfg, "[node a]\nseccomp = yes\n",
					    "t.conf", &cause),
			 -1);
	ck_assert_str_eq(cause, "t.conf:2: 'seccomp' belongs in the [global] "
				"section");
	free(cause);
	ck_assert_int_eq(config_load_string(&cfg,
					    "[global]\nsecomp = yes\n"
					    "[node a]\n",
					    "t.conf", &cause),
			 -1);
	ck_assert_str_eq(cause, "t.conf:2: unknown key 'secomp' (did you mean "
				"'seccomp'?)");
	free(cause);

	m = KCSMUX_SECCOMP_YES;
	ck_assert_int_eq(config_seccomp_parse("-S", "kill", &m, &cause), -1);
	ck_assert_str_eq(cause, "-S: expected yes, no or log, not 'kill'");
	free(cause);
	ck_assert_int_eq(m, KCSMUX_SECCOMP_YES); /* unchanged */
	ck_assert_str_eq(config_seccomp_name(KCSMUX_SECCOMP_NO), "no");
	ck_assert_str_eq(config_seccomp_name(KCSMUX_SECCOMP_YES), "yes");
	ck_assert_str_eq(config_seccomp_name(KCSMUX_SECCOMP_LOG), "log");
}
END_TEST

/* ---- what a filtered child may do ---- */

/* The Seccomp: line of /proc/self/status, as a number. */
static int seccomp_status(void)
{
	char line[256];
	int v = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Seccomp: %d", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* What the daemon does in steady state: all of it must work. */
static int daemon_like(const char *dir)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct timespec ts;
	char path[128], buf[64];
	int fd, n;
	void *big;

	if (seccomp_status() != 2)
		return X_STEP + 0;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0 || getpid() <= 0)
		return X_STEP + 1;
	big = malloc(8 << 20); /* mmap, munmap */
	if (big == NULL)
		return X_STEP + 2;
	memset(big, 1, 8 << 20);
	free(big);
	snprintf(path, sizeof(path), "%s/conf", dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    read(fd, buf, sizeof(buf)) != 4 || close(fd) < 0)
		return X_STEP + 3;
	/* syslog: a datagram from a fresh AF_UNIX socket; notify.c: send()
	 * on a socket connected before the filter (here, after: the same
	 * calls) */
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return X_STEP + 4;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/notify", dir);
	n = (int)sendto(fd, "READY=1", 7, MSG_NOSIGNAL, (struct sockaddr *)&sun,
			sizeof(sun));
	if (n == 7 && connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0)
		n = (int)send(fd, "READY=1", 7, MSG_NOSIGNAL);
	else
		n = -1;
	close(fd);
	if (n != 7)
		return X_STEP + 5;
	if (ioctl(backend_fd, FIONREAD, &n) < 0)
		return X_STEP + 6;
	/* the backend's own requests reach the kernel (a pipe: ENOTTY) */
	if (ioctl(backend_fd, KCSRAW_IOC_ATTN, buf) != -1 || errno != ENOTTY)
		return X_STEP + 7;
	return 0;
}

/* A unix datagram socket at DIR/notify that daemon_like() sends to. */
static int notify_socket(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/notify", tmpdir);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	return fd;
}

static void write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_steady_state)
{
	static const bool dropped[] = { false, true, true };
	static const bool textfile[] = { false, false, true };
	static const enum kcsmux_seccomp modes[] = { KCSMUX_SECCOMP_YES,
						     KCSMUX_SECCOMP_LOG };
	char buf[16];
	size_t i, m;
	int ns;

	write_file("conf", "x=1\n");
	ns = notify_socket();
	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		for (i = 0; i < ARRAY_SIZE(dropped); i++) {
			expect_exit0(sandboxed(profile(modes[m], dropped[i],
						       textfile[i]),
					       daemon_like, tmpdir),
				     "the daemon's steady-state calls");
			ck_assert_int_eq(recv(ns, buf, sizeof(buf),
					      MSG_DONTWAIT),
					 7);
		}
	}
	close(ns);
}
END_TEST

/* ---- what kills it ---- */

static int do_execve(const char *arg)
{
	char *argv[] = { (char *)"true", NULL }, *envp[] = { NULL };

	(void)arg;
	execve("/bin/true", argv, envp);
	return X_STEP; /* exec failed: not killed */
}

static int do_fork(const char *arg)
{
	pid_t pid;

	(void)arg;
	if ((pid = fork()) == 0)
		_exit(0);
	return X_STEP;
}

static int do_mkdir(const char *dir)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/d", dir);
	mkdir(path, 0700);
	return X_STEP;
}

static int do_bind(const char *dir)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0)
		return X_STEP + 1; /* socket(AF_UNIX) must work */
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/s", dir);
	bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	return X_STEP;
}

static int do_socketpair(const char *arg)
{
	int sv[2];

	(void)arg;
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	return X_STEP;
}

static int do_setsockopt_other(const char *arg)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0), n = 1 << 20;

	(void)arg;
	if (fd < 0)
		return X_STEP + 1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &n, sizeof(n));
	return X_STEP;
}

/* What would hand a descriptor (the backend's) to another process. */
static int do_sendmsg_rights(const char *arg)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = "x", .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	if (fd < 0)
		return X_STEP + 1;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/notify", arg);
	mh.msg_name = &sun;
	mh.msg_namelen = sizeof(sun);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &backend_fd, sizeof(int));
	sendmsg(fd, &mh, MSG_NOSIGNAL);
	return X_STEP;
}

static int do_setuid(const char *arg)
{
	(void)arg;
	if (setuid(getuid()) == 0)
		return X_STEP;
	return X_STEP + 1;
}

static int do_ioctl_other(const char *arg)
{
	int n = 0;

	(void)arg;
	ioctl(backend_fd, FIONBIO, &n); /* not a backend request */
	return X_STEP;
}

static int do_ioctl_other_fd(const char *arg)
{
	char buf[64];

	(void)arg;
	ioctl(0, KCSRAW_IOC_SUBMIT, buf); /* not the backend's fd */
	return X_STEP;
}

static int do_ptrace_attach(const char *arg)
{
	(void)arg;
	/* raw, so that no libc wrapper argues first; no such pid, so that
	 * where it is allowed (sanitized builds) it attaches to nothing */
	syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, 0x3ffffff0, 0, 0);
	return X_STEP;
}

static int do_chdir(const char *arg)
{
	(void)arg;
	if (chdir("/") == 0)
		return X_STEP;
	return X_STEP + 1;
}

START_TEST(test_killed)
{
	static const struct {
		const char *what;
		int (*fn)(const char *);
		bool sanitizer_needs; /* allowed in a sanitized build */
	} bad[] = {
		{ "execve", do_execve, false },
		{ "fork", do_fork, true },
		{ "ptrace", do_ptrace_attach, true },
		{ "mkdir", do_mkdir, false },
		{ "bind", do_bind, false },
		{ "socketpair", do_socketpair, false },
		{ "setsockopt SO_RCVBUF", do_setsockopt_other, false },
		{ "sendmsg with SCM_RIGHTS", do_sendmsg_rights, false },
		{ "setuid", do_setuid, false },
		{ "chdir", do_chdir, false },
		{ "ioctl FIONBIO on the backend fd", do_ioctl_other, false },
		{ "ioctl SUBMIT on another fd", do_ioctl_other_fd, false },
	};
	size_t i;
	int dropped;

	for (dropped = 0; dropped < 2; dropped++) {
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			int st = sandboxed(profile(KCSMUX_SECCOMP_YES, dropped,
						   true),
					   bad[i].fn, tmpdir);

			if (bad[i].sanitizer_needs && sandbox_sanitized())
				continue;
			expect_sigsys(st, bad[i].what);
		}
	}
}
END_TEST

/* ---- what fails with an error ---- */

static int errno_of(int rv)
{
	return rv == -1 ? errno : 0;
}

static int refused(const char *dir)
{
	char path[128], to[128];
	void *p;
	int fd;

	if (errno_of(socket(AF_INET, SOCK_STREAM, 0)) != EAFNOSUPPORT ||
	    errno_of(socket(AF_INET6, SOCK_DGRAM, 0)) != EAFNOSUPPORT ||
	    errno_of(socket(AF_NETLINK, SOCK_RAW, 0)) != EAFNOSUPPORT)
		return X_STEP + 0;
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p != MAP_FAILED || errno != EACCES)
		return X_STEP + 1;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return X_STEP + 2;
	if (errno_of(mprotect(p, 4096, PROT_READ | PROT_EXEC)) != EACCES ||
	    mprotect(p, 4096, PROT_READ) != 0)
		return X_STEP + 3;
	/* after the drop, no writing, no chmod, no unlink ... */
	snprintf(path, sizeof(path), "%s/conf", dir);
	if (errno_of(open(path, O_RDWR)) != EACCES ||
	    errno_of(open(path, O_WRONLY | O_APPEND)) != EACCES ||
	    errno_of(chmod(path, 0600)) != EPERM ||
	    errno_of(chown(path, 0, 0)) != EPERM ||
	    errno_of(unlink(path)) != EACCES)
		return X_STEP + 4;
	/* ... reading still works */
	if ((fd = open(path, O_RDONLY)) < 0)
		return X_STEP + 5;
	close(fd);
	snprintf(to, sizeof(to), "%s/conf2", dir);
	rename(path, to); /* no textfile: kills */
	return X_STEP + 6;
}

/* The metrics textfile, as metrics_textfile.c writes it: in its directory, from
 * the directory's descriptor (textfile_dir). Then the same directory by
 * path, and another file: refused, and the last one kills. */
static int textfile_dir = -1;
static bool textfile_elsewhere; /* end with the write open that kills */

static int textfile(const char *dir)
{
	char path[128];
	int fd;

	fd = openat(textfile_dir, "m.prom.tmp",
		    O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC |
			    O_NOFOLLOW,
		    0644);
	if (fd < 0 || fchmod(fd, 0644) < 0 || write(fd, "m 1\n", 4) != 4 ||
	    fsync(fd) < 0 || close(fd) < 0 ||
	    renameat(textfile_dir, "m.prom.tmp", textfile_dir, "m.prom") < 0)
		return X_STEP + 0;
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	if (errno_of(open(path, O_RDWR)) != EACCES)
		return X_STEP + 1;
	if (errno_of(unlink(path)) != EACCES)
		return X_STEP + 2;
	if (unlinkat(textfile_dir, "m.prom", 0) < 0)
		return X_STEP + 3;
	if (!textfile_elsewhere)
		return 0;
	snprintf(path, sizeof(path), "%s/conf", dir);
	open(path, O_WRONLY | O_APPEND); /* elsewhere: kills */
	return X_STEP + 4;
}

/*
 * review2: the textfile rules hold the *descriptor* argument to the
 * textfile's directory, but openat/unlinkat/renameat ignore that
 * descriptor for an absolute path (and "../" climbs out of it). So the
 * daemon after the drop, under seccomp = yes with a textfile, can still
 * open any file its user may write, unlink and rename any; it must not be able
 * to open arbitrary paths for writing.
 */
static int escape_what;

static int escape(const char *dir)
{
	char path[160], to[160];
	int fd;

	snprintf(path, sizeof(path), "%s/conf", dir); /* not in tf/ */
	switch (escape_what) {
	case 0:
		fd = openat(textfile_dir, path, O_WRONLY | O_APPEND);
		if (fd < 0 || write(fd, "owned\n", 6) != 6)
			return X_STEP;
		close(fd);
		return 0;
	case 1:
		return unlinkat(textfile_dir, path, 0) == 0 ? 0 : X_STEP;
	default:
		snprintf(to, sizeof(to), "%s/moved", dir);
		return renameat(textfile_dir, path, textfile_dir, to) == 0 ?
			       0 :
			       X_STEP;
	}
}

/* The same three, each answered EACCES (Landlock's refusal), and the
 * file untouched. */
static int escape_errno(const char *dir)
{
	char path[160], to[160];
	int fd;

	snprintf(path, sizeof(path), "%s/conf", dir);
	snprintf(to, sizeof(to), "%s/moved", dir);
	fd = openat(textfile_dir, path, O_WRONLY | O_APPEND);
	if (fd >= 0 || errno != EACCES)
		return X_STEP;
	if (unlinkat(textfile_dir, path, 0) == 0 || errno != EACCES)
		return X_STEP + 1;
	if (renameat(textfile_dir, path, textfile_dir, to) == 0 ||
	    errno != EACCES)
		return X_STEP + 2;
	/* "../" from the directory's descriptor */
	fd = openat(textfile_dir, "../conf", O_WRONLY | O_APPEND);
	if (fd >= 0 || errno != EACCES)
		return X_STEP + 3;
	if (unlinkat(textfile_dir, "../conf", 0) == 0 || errno != EACCES)
		return X_STEP + 4;
	return 0;
}

START_TEST(test_textfile_dir_escape)
{
	static const char *const what[] = {
		"a write open of a file outside the textfile's directory",
		"unlinking a file outside it",
		"renaming a file outside it",
	};
	char dir[128], path[160];
	struct stat st;
	int st_;

	snprintf(dir, sizeof(dir), "%s/tf", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	textfile_dir = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(textfile_dir, 0);
	snprintf(path, sizeof(path), "%s/conf", tmpdir);
	for (escape_what = 0; escape_what < 3; escape_what++) {
		struct sandbox_profile p =
			profile(KCSMUX_SECCOMP_YES, true, true);

		write_file("conf", "x=1\n");
		p.textfile_dirfd = textfile_dir;
		st_ = sandboxed(p, escape, tmpdir);
		ck_assert_msg(!(WIFEXITED(st_) && WEXITSTATUS(st_) == 0),
			      "%s, by an absolute path from the directory's "
			      "descriptor, is allowed by the filter",
			      what[escape_what]);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_int_eq((int)st.st_size, 4);
	}
	/* the textfile itself is still written and renamed in tf/, and the
	 * escapes' errors are Landlock's EACCES */
	{
		struct sandbox_profile p =
			profile(KCSMUX_SECCOMP_YES, true, true);

		p.textfile_dirfd = textfile_dir;
		textfile_elsewhere = false;
		expect_exit0(sandboxed(p, textfile, dir),
			     "the metrics textfile in its directory under "
			     "landlock");
		expect_exit0(sandboxed(p, escape_errno, tmpdir),
			     "each escape refused with EACCES");
	}
	close(textfile_dir);
	textfile_dir = -1;
}
END_TEST

/* Still root: reload may create nodes (open O_RDWR) and chmod them. */
static int as_root(const char *dir)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/node", dir);
	if ((fd = open(path, O_RDWR | O_CREAT, 0600)) < 0 || close(fd) < 0 ||
	    chmod(path, 0644) < 0 || unlink(path) < 0)
		return X_STEP;
	return 0;
}

/* Still root (no user): no ruleset, as before (reload adds nodes). */
START_TEST(test_landlock_root)
{
	write_file("conf", "x=1\n");
	expect_exit0(sandboxed(profile(KCSMUX_SECCOMP_YES, false, false),
			       as_root, tmpdir),
		     "a root daemon's reload");
}
END_TEST

START_TEST(test_refused)
{
	int st;

	write_file("conf", "x=1\n");
	st = sandboxed(profile(KCSMUX_SECCOMP_YES, true, false), refused,
		       tmpdir);
	/* every refusal as documented, then killed by the rename */
	expect_sigsys(st, "refusals after the drop");
	/* log mode refuses the same calls with the same errors */
	st = sandboxed(profile(KCSMUX_SECCOMP_LOG, true, false), refused,
		       tmpdir);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == X_STEP + 6,
		      "log mode: want exit %d, got status %#x", X_STEP + 6, st);
	textfile_dir = open(tmpdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(textfile_dir, 0);
	{
		struct sandbox_profile p =
			profile(KCSMUX_SECCOMP_YES, true, true);

		p.textfile_dirfd = textfile_dir;
		/* written in its directory; a write open elsewhere kills */
		textfile_elsewhere = false;
		expect_exit0(sandboxed(p, textfile, tmpdir),
			     "the metrics textfile after the drop");
		textfile_elsewhere = true;
		expect_sigsys(sandboxed(p, textfile, tmpdir),
			      "a write open outside the textfile's directory");
	}
	close(textfile_dir);
	expect_exit0(sandboxed(profile(KCSMUX_SECCOMP_YES, false, false),
			       as_root, tmpdir),
		     "a root daemon's reload");
}
END_TEST

/* ---- log and no ---- */

/* Off the list, in log mode: logged by the kernel, and they run. */
static int off_the_list(const char *dir)
{
	char path[128];
	pid_t pid;
	int st;

	snprintf(path, sizeof(path), "%s/d", dir);
	if (mkdir(path, 0700) < 0 || rmdir(path) < 0)
		return X_STEP;
	if ((pid = fork()) < 0)
		return X_STEP + 1;
	if (pid == 0)
		_exit(7);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 7)
		return X_STEP + 2;
	return 0;
}

static int parent_seccomp;

static int no_filter(const char *arg)
{
	(void)arg;
	if (seccomp_status() != parent_seccomp)
		return X_STEP + 3;
	return do_execve(NULL) == X_STEP ? X_STEP + 4 : 0;
}

START_TEST(test_no)
{
	parent_seccomp = seccomp_status();
	expect_exit0(sandboxed(profile(KCSMUX_SECCOMP_NO, true, false),
			       no_filter, NULL),
		     "seccomp = no installs nothing (execve works)");
}
END_TEST

/*
 * A kernel without Landlock (before 5.13, or not among its LSMs): a filter
 * installed first answers landlock_create_ruleset with ERR; then
 * sandbox_apply still installs its filter when ERR is ENOSYS or
 * EOPNOTSUPP (seccomp only, sandbox_landlock_abi() says why) and fails on
 * any other error.
 */
static int landlock_err;

/* The kernel without Landlock: landlock_create_ruleset fails with ERR. */
static int fake_no_landlock(int err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rv = -1;

	if (ctx &&
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err),
			     SCMP_SYS(landlock_create_ruleset), 0) == 0 &&
	    seccomp_load(ctx) == 0)
		rv = 0;
	if (ctx)
		seccomp_release(ctx);
	return rv;
}

static int no_landlock(const char *dir)
{
	struct sandbox_profile p = profile(KCSMUX_SECCOMP_YES, true, false);
	char *cause = NULL;
	int fd;

	(void)dir;
	if (fake_no_landlock(landlock_err) < 0)
		return X_STEP;
	if (sandbox_apply(&p, &cause) < 0)
		return landlock_err == EPERM && sandbox_landlock_abi() == 0 &&
				       cause && strstr(cause, "landlock") ?
			       0 :
			       X_APPLY;
	if (landlock_err == EPERM || sandbox_landlock_abi() != -landlock_err)
		return X_STEP + 1;
	/* the filter is in: a write open is refused */
	fd = open("/dev/null", O_WRONLY);
	return fd < 0 && errno == EACCES ? 0 : X_STEP + 2;
}

START_TEST(test_landlock_unavailable)
{
	static const int errs[] = { ENOSYS, EOPNOTSUPP, EPERM };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(errs); i++) {
		int st;

		landlock_err = errs[i];
		st = sandboxed(profile(KCSMUX_SECCOMP_NO, true, false),
			       no_landlock, tmpdir);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			      "landlock_create_ruleset failing with %s: "
			      "status %#x",
			      strerror(errs[i]), st);
	}
}
END_TEST

/*
 * Read-only opens that write: on a kernel without Landlock (faked as
 * above; Landlock below ABI 3 cannot refuse truncation either) the filter
 * alone refuses O_RDONLY with O_TRUNC (the file keeps its bytes),
 * O_CREAT (no file appears) and O_TMPFILE with EACCES, while a plain
 * read-only open works. Before, all three passed as "read-only".
 */
static int rdonly_writes(const char *dir)
{
	struct sandbox_profile p = profile(KCSMUX_SECCOMP_YES, true, false);
	char conf[128], fresh[128];
	char *cause = NULL;
	struct stat st;
	int fd;

	if (fake_no_landlock(ENOSYS) < 0)
		return X_STEP;
	if (sandbox_apply(&p, &cause) < 0)
		return X_APPLY;
	snprintf(conf, sizeof(conf), "%s/conf", dir);
	snprintf(fresh, sizeof(fresh), "%s/fresh", dir);
	fd = open(conf, O_RDONLY);
	if (fd < 0 || close(fd) < 0)
		return X_STEP + 1;
	fd = open(conf, O_RDONLY | O_TRUNC);
	if (fd >= 0 || errno != EACCES)
		return X_STEP + 2;
	if (stat(conf, &st) < 0 || st.st_size != 4)
		return X_STEP + 3;
	fd = open(fresh, O_RDONLY | O_CREAT, 0600);
	if (fd >= 0 || errno != EACCES)
		return X_STEP + 4;
	if (stat(fresh, &st) == 0 || errno != ENOENT)
		return X_STEP + 5;
	fd = open(dir, O_RDONLY | O_TMPFILE, 0600);
	if (fd >= 0 || errno != EACCES)
		return X_STEP + 6;
	/* a directory read-only (O_DIRECTORY is part of O_TMPFILE) */
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || close(fd) < 0)
		return X_STEP + 7;
	return 0;
}

START_TEST(test_rdonly_writes)
{
	int st;

	write_file("conf", "x=1\n");
	st = sandboxed(profile(KCSMUX_SECCOMP_NO, true, false), rdonly_writes,
		       tmpdir);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "read-only opens with O_TRUNC/O_CREAT/O_TMPFILE under the "
		      "filter without Landlock: status %#x (exit %d: step %d)",
		      st, WIFEXITED(st) ? WEXITSTATUS(st) : -1,
		      WIFEXITED(st) ? WEXITSTATUS(st) - X_STEP : -1);
}
END_TEST

START_TEST(test_log)
{
	expect_exit0(sandboxed(profile(KCSMUX_SECCOMP_LOG, true, false),
			       off_the_list, tmpdir),
		     "seccomp = log lets mkdir and fork run");
}
END_TEST

/*
 * Three suites, three CTest tests: unit.test_sandbox (the seccomp key, and
 * seccomp = no) runs anywhere; unit.test_sandbox_filter ("filter"
 * argument: the filter itself) needs the kernel's seccomp filters and
 * libseccomp's API level 3; unit.test_sandbox_landlock ("landlock": the
 * Landlock ruleset after the drop) needs those and Landlock in the kernel.
 * Each is reported to CTest as skipped (exit 77) without them.
 */
enum suite_kind { CONFIG, FILTER, LANDLOCK };

static Suite *sandbox_suite(enum suite_kind which)
{
	static const char *const names[] = { "sandbox", "sandbox filter",
					     "sandbox landlock" };
	static const char *const cases[] = { "config", "filter", "landlock" };
	Suite *s = suite_create(names[which]);
	TCase *tc = tcase_create(cases[which]);

	tcase_add_checked_fixture(tc, setup, teardown);
	if (which == FILTER) {
		tcase_add_test(tc, test_steady_state);
		tcase_add_test(tc, test_killed);
		tcase_add_test(tc, test_refused);
		tcase_add_test(tc, test_log);
		tcase_add_test(tc, test_landlock_unavailable);
		tcase_add_test(tc, test_rdonly_writes);
	} else if (which == LANDLOCK) {
		tcase_add_test(tc, test_textfile_dir_escape);
		tcase_add_test(tc, test_landlock_root);
	} else {
		tcase_add_test(tc, test_config_key);
		tcase_add_test(tc, test_no);
	}
	suite_add_tcase(s, tc);
	return s;
}

static int landlock_abi(void)
{
	return (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
			    LANDLOCK_CREATE_RULESET_VERSION);
}

int main(int argc, char **argv)
{
	enum suite_kind which = CONFIG;
	SRunner *sr;
	int failed;

	if (argc > 1 && strcmp(argv[1], "filter") == 0)
		which = FILTER;
	else if (argc > 1 && strcmp(argv[1], "landlock") == 0)
		which = LANDLOCK;
	if (which != CONFIG && !have_seccomp()) {
		fprintf(stderr,
			"test_sandbox %s: no seccomp here "
			"(libseccomp API level %u, want 3): skipped\n",
			argv[1], seccomp_api_get());
		return KCSMUX_TEST_SKIP;
	}
	if (which == LANDLOCK && landlock_abi() < 1) {
		fprintf(stderr,
			"test_sandbox landlock: no Landlock in this kernel "
			"(%s): skipped\n",
			strerror(errno));
		return KCSMUX_TEST_SKIP;
	}
	sr = srunner_create(sandbox_suite(which));
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
