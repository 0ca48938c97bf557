// SPDX-License-Identifier: GPL-2.0
/*
 * sandbox.c - kcsmuxd's seccomp filter, built with libseccomp.
 *
 * Three kinds of calls once the filter is in:
 *
 *  - allowed: what the event loop makes in steady state, found from the
 *    code paths and by tracing the daemon in the VM rig through a full
 *    workload (tests/vm/guest/daemon-seccomp.sh); see docs/security.md;
 *  - refused with an error, because the daemon's own code (or a library
 *    it calls on reload) may try them and copes with a failure: sockets
 *    other than AF_UNIX (EAFNOSUPPORT), executable mappings (EACCES: no
 *    dlopen), and after the privilege drop opening files for writing
 *    (EACCES; with the metrics textfile, write opens, unlinkat and
 *    renameat are allowed only from the descriptor of the textfile's
 *    directory, and a write open anywhere else is off the list),
 *    chmod/chown (EPERM) and unlink (EACCES);
 *  - everything else: the process is killed (seccomp = yes, SIGSYS) or the
 *    kernel logs the call and lets it run (seccomp = log), so that an
 *    administrator can find a missing call in the audit log before turning
 *    the filter on.
 *
 * Calls from another ABI (x32, i386) kill the process in both modes.
 *
 * seccomp sees a path argument only as a pointer: the textfile rules hold
 * the descriptor argument to the textfile's directory, which openat,
 * unlinkat and renameat ignore for an absolute path (and "../" climbs out
 * of it). So after the drop, with seccomp = yes, a Landlock ruleset
 * (landlock_apply) confines the filesystem's write side by path: writing,
 * creating, removing and renaming only in the textfile's directory (and
 * writing /dev/cuse). Reads are not restricted. Without Landlock (kernel
 * before 5.13, or not in its LSM list) the daemon runs with seccomp only
 * and says so once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/landlock.h>

#include <seccomp.h>

#include "cuse/ipmi_abi.h" /* <linux/ipmi.h>: the ipmidev backend's */
#include <kcsmux/kcsraw.h>

#include "util/array.h"
#include "util/error.h"
#include "sandbox.h"

#define LOW32 0xffffffffULL /* int and unsigned int arguments */

/* -fsanitize=address (the tests' SANITIZE=ON, with UBSan): gcc says so,
 * clang answers __has_feature. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/*
 * Steady state, whoever the daemon runs as. Traced (strace -f) after the
 * drop through vm.daemon-seccomp's workload, the daemon made: read, readv,
 * write, writev, epoll_wait, epoll_ctl, ioctl, accept4, getsockopt,
 * shutdown, close, openat, newfstatat, lseek, munmap, getuid,
 * rt_sigreturn, rt_sigaction, and with the textfile fchmod, fsync,
 * rename, unlink; then exit_group. The others are on paths that workload
 * does not take: malloc growing and shrinking (brk, mremap, madvise),
 * syslog() without -f (sendto on its socket, and socket/connect again
 * after a syslog restart), readiness notifications under systemd (send
 * on the socket notify.c connected before the filter), an NSS lookup
 * through nscd on reload (connect, poll), clocks the vDSO cannot read, and
 * the equivalents another glibc may use.
 */
static const int allow_always[] = {
	/* I/O on the descriptors the daemon holds */
	SCMP_SYS(read),
	SCMP_SYS(readv),
	SCMP_SYS(write),
	SCMP_SYS(writev),
	SCMP_SYS(recvfrom),
	SCMP_SYS(recvmsg),
	SCMP_SYS(sendto), /* not sendmsg: no SCM_RIGHTS (notify.c) */
	SCMP_SYS(close),
	SCMP_SYS(fcntl),
	SCMP_SYS(lseek),
	SCMP_SYS(fstat),
	SCMP_SYS(newfstatat),
	SCMP_SYS(statx),
	/* directory entries and link targets, as read-only as the opens:
	 * the stock /dev/ipmiN on kcsraw's interface, found at each status
	 * and metrics scrape (core/health.c, util/stocknode.c) */
	SCMP_SYS(getdents),
	SCMP_SYS(getdents64),
	SCMP_SYS(readlink),
	SCMP_SYS(readlinkat),
	/* the event loop */
	SCMP_SYS(epoll_wait),
	SCMP_SYS(epoll_pwait),
	SCMP_SYS(epoll_ctl),
	SCMP_SYS(poll),
	SCMP_SYS(ppoll),
	/* sockets it has or may open (socket() itself below) */
	SCMP_SYS(accept4),
	SCMP_SYS(connect),
	SCMP_SYS(shutdown),
	SCMP_SYS(getsockopt),
	SCMP_SYS(getsockname),
	SCMP_SYS(getpeername),
	/* signals arrive through libevent's handler; at exit it puts the
	 * old handlers back */
	SCMP_SYS(rt_sigreturn),
	SCMP_SYS(rt_sigprocmask),
	SCMP_SYS(rt_sigaction),
	/* time, when the vDSO cannot tell it */
	SCMP_SYS(clock_gettime),
	SCMP_SYS(gettimeofday),
	/* memory (mmap and mprotect below) */
	SCMP_SYS(brk),
	SCMP_SYS(munmap),
	SCMP_SYS(mremap),
	SCMP_SYS(madvise),
	/* the process itself */
	SCMP_SYS(getpid),
	SCMP_SYS(getuid),
	SCMP_SYS(geteuid),
	SCMP_SYS(getgid),
	SCMP_SYS(getegid),
	SCMP_SYS(exit_group),
};

/* Still root (no `user`): reload may add a node, and waits for its
 * /dev/NAME to appear (node.c). */
static const int allow_root[] = {
	SCMP_SYS(access),	   SCMP_SYS(faccessat), SCMP_SYS(faccessat2),
	SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep),
};

/* Owners and modes: reload sets them on new and changed nodes. Allowed
 * while root; after the drop EPERM, as the kernel would say. */
static const int chown_calls[] = {
	SCMP_SYS(chmod),    SCMP_SYS(fchmodat), SCMP_SYS(chown),
	SCMP_SYS(fchownat), SCMP_SYS(lchown),
};

/* The control socket and the metrics textfile are removed at exit. Allowed
 * while root or with the textfile; after the drop otherwise EACCES. */
static const int unlink_calls[] = {
	SCMP_SYS(unlink),
	SCMP_SYS(unlinkat),
};

/* metrics_textfile: FILE.tmp written, fsync'd and renamed every 10 s
 * (after the drop the renames and unlinks only in its directory:
 * textfile_rules). */
static const int allow_textfile[] = {
	SCMP_SYS(fchmod),
	SCMP_SYS(fsync),
	SCMP_SYS(fdatasync),
};
static const int rename_calls[] = {
	SCMP_SYS(rename),
	SCMP_SYS(renameat),
	SCMP_SYS(renameat2),
};

/* The backend's requests in steady state (INFO and the event switch are
 * made at open, before the filter). */
static const unsigned long ioctl_kcsraw[] = {
	KCSRAW_IOC_SUBMIT,
	KCSRAW_IOC_CANCEL,
	KCSRAW_IOC_ATTN,
	KCSRAW_IOC_RECEIVE,
};
/* kcsraw in SMI mode: its relay (a second file of /dev/kcsrawN) */
static const unsigned long ioctl_relay[] = {
	KCSRAW_IOC_RELAY_SEND,
	KCSRAW_IOC_RELAY_RECV,
	KCSRAW_IOC_RELAY_CMD,
};
static const unsigned long ioctl_ipmidev[] = {
	IPMICTL_SEND_COMMAND_SETTIME,
	IPMICTL_RECEIVE_MSG_TRUNC,
	IPMICTL_RECEIVE_MSG,
	IPMICTL_REGISTER_FOR_CMD_CHANS, /* kcsraw in SMI mode */
	IPMICTL_UNREGISTER_FOR_CMD_CHANS,
};

/*
 * ASan/UBSan (the tests' builds): their runtime's own calls, reports
 * included, and LeakSanitizer's at exit, which stops the process's
 * threads from a clone()d tracer with ptrace(). Never in a release build.
 */
static const int allow_sanitizer[] = {
	SCMP_SYS(sched_yield), SCMP_SYS(futex),	 SCMP_SYS(gettid),
	SCMP_SYS(getppid),     SCMP_SYS(tgkill), SCMP_SYS(sigaltstack),
	SCMP_SYS(prctl),       SCMP_SYS(clone),	 SCMP_SYS(ptrace),
	SCMP_SYS(wait4),       SCMP_SYS(exit),
};

struct builder {
	scmp_filter_ctx ctx;
	int err; /* the first failure, negative */
	int nr;	 /* its call */
};

static void rule(struct builder *b, uint32_t action, int nr, unsigned int narg,
		 const struct scmp_arg_cmp *args)
{
	int rv;

	if (b->err)
		return;
	rv = seccomp_rule_add_array(b->ctx, action, nr, narg, args);
	if (rv < 0) {
		b->err = rv;
		b->nr = nr;
	}
}

static void rules(struct builder *b, uint32_t action, const int *nrs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		rule(b, action, nrs[i], 0, NULL);
}

/* NR allowed when (ARG & MASK) == 0, else ACTION (an errno). */
static void unless_bits(struct builder *b, int nr, unsigned int arg,
			uint64_t mask, uint32_t action)
{
	struct scmp_arg_cmp ok = { arg, SCMP_CMP_MASKED_EQ, mask, 0 };
	struct scmp_arg_cmp no = { arg, SCMP_CMP_MASKED_EQ, mask, mask };

	rule(b, SCMP_ACT_ALLOW, nr, 1, &ok);
	rule(b, action, nr, 1, &no);
}

/*
 * A read-only open that truncates or creates writes all the same: with
 * O_TRUNC it empties a file the user may write, with O_CREAT or O_TMPFILE
 * it makes one (and Landlock below ABI 3, Debian 12's kernel, cannot
 * refuse truncation). Read-only opens with none of those are allowed,
 * with any of them EACCES; the textfile's own are write-only opens.
 */
#define O_TMPFILE_BIT (O_TMPFILE & ~O_DIRECTORY)

static void rdonly_rules(struct builder *b)
{
	static const uint64_t bad[] = { O_TRUNC, O_CREAT, O_TMPFILE_BIT };
	struct scmp_arg_cmp ok = { 2, SCMP_CMP_MASKED_EQ,
				   O_ACCMODE | O_TRUNC | O_CREAT |
					   O_TMPFILE_BIT,
				   O_RDONLY };
	size_t i;

	rule(b, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1, &ok);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct scmp_arg_cmp no = { 2, SCMP_CMP_MASKED_EQ,
					   O_ACCMODE | bad[i],
					   O_RDONLY | bad[i] };

		rule(b, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), 1, &no);
	}
}

static void open_rules(struct builder *b, const struct sandbox_profile *p)
{
	static const uint64_t modes[] = { O_RDONLY, O_WRONLY, O_RDWR };
	size_t i;

	if (!p->dropped) {
		rule(b, SCMP_ACT_ALLOW, SCMP_SYS(openat), 0, NULL);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		struct scmp_arg_cmp c[2] = {
			{ 2, SCMP_CMP_MASKED_EQ, O_ACCMODE, modes[i] },
			{ 0, SCMP_CMP_MASKED_EQ, LOW32,
			  (uint64_t)(unsigned int)p->textfile_dirfd },
		};

		if (modes[i] == O_WRONLY && p->textfile &&
		    p->textfile_dirfd > 0) {
			/* the textfile's directory only (openat from its
			 * fd); any other write open is off the list */
			rule(b, SCMP_ACT_ALLOW, SCMP_SYS(openat), 2, c);
			continue;
		}
		if (modes[i] == O_RDONLY) {
			rdonly_rules(b);
			continue;
		}
		rule(b, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), 1, c);
	}
}

/* With the textfile after the drop: unlinkat and renameat(2) in its
 * directory only (its descriptor); unlink and rename refused. */
static void textfile_rules(struct builder *b, const struct sandbox_profile *p)
{
	struct scmp_arg_cmp in_dir[2] = {
		{ 0, SCMP_CMP_MASKED_EQ, LOW32,
		  (uint64_t)(unsigned int)p->textfile_dirfd },
		{ 2, SCMP_CMP_MASKED_EQ, LOW32,
		  (uint64_t)(unsigned int)p->textfile_dirfd },
	};

	rule(b, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(unlink), 0, NULL);
	rule(b, SCMP_ACT_ALLOW, SCMP_SYS(unlinkat), 1, in_dir);
	rule(b, SCMP_ACT_ALLOW, SCMP_SYS(renameat), 2, in_dir);
	rule(b, SCMP_ACT_ALLOW, SCMP_SYS(renameat2), 2, in_dir);
}

/* These N requests, on fd only. */
static void ioctl_fd_rules(struct builder *b, int fd, const unsigned long *reqs,
			   size_t n)
{
	struct scmp_arg_cmp c[2] = {
		{ 0, SCMP_CMP_MASKED_EQ, LOW32, (uint64_t)fd },
		{ 1, SCMP_CMP_MASKED_EQ, LOW32, 0 },
	};

	for (size_t i = 0; i < n; i++) {
		c[1].datum_b = reqs[i];
		rule(b, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 2, c);
	}
}

static void ioctl_rules(struct builder *b, const struct sandbox_profile *p)
{
	struct scmp_arg_cmp c[1];

	if (p->backend == KCSMUX_BACKEND_KCSRAW)
		ioctl_fd_rules(b, p->backend_fd, ioctl_kcsraw,
			       ARRAY_SIZE(ioctl_kcsraw));
	else
		ioctl_fd_rules(b, p->backend_fd, ioctl_ipmidev,
			       ARRAY_SIZE(ioctl_ipmidev));
	/* kcsraw in SMI mode: the relay (or the stock node) bridges and
	 * brings events */
	if (p->backend == KCSMUX_BACKEND_KCSRAW && p->smi_async) {
		ioctl_fd_rules(b, p->async_fd, ioctl_relay,
			       ARRAY_SIZE(ioctl_relay));
		ioctl_fd_rules(b, p->async_fd, ioctl_ipmidev,
			       ARRAY_SIZE(ioctl_ipmidev));
	}
	/* libevent sizes its reads of sockets with FIONREAD */
	c[0] = (struct scmp_arg_cmp){ 1, SCMP_CMP_MASKED_EQ, LOW32, FIONREAD };
	rule(b, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, c);
}

static void socket_rules(struct builder *b)
{
	struct scmp_arg_cmp unix_ = { 0, SCMP_CMP_EQ, AF_UNIX, 0 };
	struct scmp_arg_cmp other = { 0, SCMP_CMP_NE, AF_UNIX, 0 };

	rule(b, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, &unix_);
	rule(b, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1, &other);
}

/* ---- Landlock (no library in Debian: the raw calls) ---- */

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule	    445
#define SYS_landlock_restrict_self  446
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

/* ABI v1's write side: every access but EXECUTE, READ_FILE, READ_DIR */
#define LL_WRITE_V1                                                      \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |     \
	 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |   \
	 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)

/* In the textfile's directory: FILE.tmp created (O_EXCL), written,
 * renamed over FILE, unlinked (a leftover .tmp, FILE at exit); TRUNCATE
 * and REFER where the kernel handles them. */
#define LL_TEXTFILE_DIR                                                   \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
	 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_TRUNCATE |      \
	 LANDLOCK_ACCESS_FS_REFER)

static int landlock_abi_applied; /* sandbox_landlock_abi() */

static long ll_create(const struct landlock_ruleset_attr *a, size_t size,
		      uint32_t flags)
{
	return syscall(SYS_landlock_create_ruleset, a, size, flags);
}

/* Allow ACCESS (masked to HANDLED) beneath the directory or on the file
 * FD (an O_PATH descriptor will do). */
static int ll_allow(int ruleset, int fd, uint64_t access, uint64_t handled)
{
	struct landlock_path_beneath_attr pb = {
		.allowed_access = access & handled,
		.parent_fd = fd,
	};

	return (int)syscall(SYS_landlock_add_rule, ruleset,
			    LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
}

/*
 * The daemon's writes after the drop, read from the code: the metrics
 * textfile (metrics_textfile.c, in its directory from its descriptor); /dev/cuse
 * O_RDWR when reload creates a node (node.c: refused after the drop by
 * reload.c and the filter, allowed here should that change). Nothing
 * else is opened for writing, created, removed or renamed then: the
 * backend device, the control and metrics sockets, the syslog socket
 * and the NOTIFY_SOCKET are open (or connected, which Landlock does not
 * handle) before; the control socket's unlink at exit is refused
 * (EACCES, logged at debug, as its directory already refused nobody);
 * owners and modes go through O_PATH descriptors (EPERM after the drop
 * anyway), which Landlock does not handle.
 *
 * 0 and the ABI in landlock_abi_applied; -1 (errno) when the kernel has
 * no Landlock, or a call failed.
 */
static int landlock_apply(const struct sandbox_profile *p)
{
	struct landlock_ruleset_attr attr = { .handled_access_fs =
						      LL_WRITE_V1 };
	int abi, rs, fd, err;

	abi = (int)ll_create(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1)
		return -1; /* ENOSYS, EOPNOTSUPP (not in the LSM list) */
	if (abi >= 2)	   /* renames and links across directories */
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3) /* truncate(2), O_TRUNC, ftruncate */
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	/* later ABIs' IOCTL_DEV, network and scopes are not handled: the
	 * backend's ioctls and the sockets are seccomp's */
	rs = (int)ll_create(&attr, sizeof(attr), 0);
	if (rs < 0)
		return -1;
	if (p->textfile && p->textfile_dirfd > 0 &&
	    ll_allow(rs, p->textfile_dirfd, LL_TEXTFILE_DIR,
		     attr.handled_access_fs) < 0)
		goto fail;
	fd = open("/dev/cuse", O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		err = ll_allow(rs, fd, LANDLOCK_ACCESS_FS_WRITE_FILE,
			       attr.handled_access_fs);
		close(fd);
		if (err < 0)
			goto fail;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		goto fail;
	close(rs);
	landlock_abi_applied = abi;
	return 0;
fail:
	err = errno;
	close(rs);
	errno = err;
	return -1;
}

int sandbox_landlock_abi(void)
{
	return landlock_abi_applied;
}

bool sandbox_sanitized(void)
{
	return SANITIZED;
}

int sandbox_apply(const struct sandbox_profile *p, char **cause)
{
	struct builder b = { .nr = -1 };
	uint32_t dflt;
	char *name;
	int rv;

	if (p->mode == KCSMUX_SECCOMP_NO)
		return 0;
	if (seccomp_api_get() < 3)
		return error_set(
			cause,
			"seccomp: the kernel or libseccomp "
			"is too old (API level %u, needs 3: Linux 4.14)",
			seccomp_api_get());
	/* Landlock first: the filter does not list its calls */
	landlock_abi_applied = 0;
	if (p->mode == KCSMUX_SECCOMP_YES && p->dropped &&
	    landlock_apply(p) < 0) {
		if (errno != ENOSYS && errno != EOPNOTSUPP)
			return error_set(cause, "landlock: %s",
					 strerror(errno));
		landlock_abi_applied = -errno;
	}
	dflt = p->mode == KCSMUX_SECCOMP_LOG ? SCMP_ACT_LOG :
					       SCMP_ACT_KILL_PROCESS;
	if ((b.ctx = seccomp_init(dflt)) == NULL)
		return error_set(cause, "seccomp: cannot set up a filter");
	rv = seccomp_attr_set(b.ctx, SCMP_FLTATR_ACT_BADARCH,
			      SCMP_ACT_KILL_PROCESS);
	if (rv < 0)
		b.err = rv; /* b.nr -1: no call */

	rules(&b, SCMP_ACT_ALLOW, allow_always, ARRAY_SIZE(allow_always));
	socket_rules(&b);
	unless_bits(&b, SCMP_SYS(mmap), 2, PROT_EXEC, SCMP_ACT_ERRNO(EACCES));
	unless_bits(&b, SCMP_SYS(mprotect), 2, PROT_EXEC,
		    SCMP_ACT_ERRNO(EACCES));
	open_rules(&b, p);
	ioctl_rules(&b, p);
	if (!p->dropped)
		rules(&b, SCMP_ACT_ALLOW, allow_root, ARRAY_SIZE(allow_root));
	rules(&b, p->dropped ? SCMP_ACT_ERRNO(EPERM) : SCMP_ACT_ALLOW,
	      chown_calls, ARRAY_SIZE(chown_calls));
	if (p->dropped && p->textfile && p->textfile_dirfd > 0) {
		textfile_rules(&b, p);
	} else {
		rules(&b,
		      p->dropped && !p->textfile ? SCMP_ACT_ERRNO(EACCES) :
						   SCMP_ACT_ALLOW,
		      unlink_calls, ARRAY_SIZE(unlink_calls));
		if (p->textfile)
			rules(&b, SCMP_ACT_ALLOW, rename_calls,
			      ARRAY_SIZE(rename_calls));
	}
	if (p->textfile)
		rules(&b, SCMP_ACT_ALLOW, allow_textfile,
		      ARRAY_SIZE(allow_textfile));
	if (SANITIZED) {
		/* the runtime opens with open(), read-only (/proc/self/maps,
		 * the binary for symbols) */
		struct scmp_arg_cmp ro = { 1, SCMP_CMP_MASKED_EQ, O_ACCMODE,
					   O_RDONLY };
		/* isatty(2) before each line of a report */
		struct scmp_arg_cmp tty = { 1, SCMP_CMP_MASKED_EQ, LOW32,
					    TCGETS };

		rules(&b, SCMP_ACT_ALLOW, allow_sanitizer,
		      ARRAY_SIZE(allow_sanitizer));
		rule(&b, SCMP_ACT_ALLOW, SCMP_SYS(open), 1, &ro);
		rule(&b, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, &tty);
	}

	if (b.err) {
		name = b.nr < 0 ? NULL :
				  seccomp_syscall_resolve_num_arch(
					  seccomp_arch_native(), b.nr);
		error_set(cause, "seccomp: rule for %s: %s",
			  name ? name : "(attributes)", strerror(-b.err));
		free(name);
		seccomp_release(b.ctx);
		return -1;
	}
	rv = seccomp_load(b.ctx);
	seccomp_release(b.ctx);
	if (rv < 0)
		return error_set(cause, "seccomp: loading the filter: %s",
				 strerror(-rv));
	return 0;
}
