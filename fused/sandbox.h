/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sandbox.h - kcsmuxd's seccomp filter (kcsmux.conf: seccomp = yes | log).
 *
 * Installed once every node exists and root has been dropped: from then on
 * the daemon may make only the system calls its event loop needs (serving
 * the CUSE sessions, the backend, the control and metrics sockets, logging,
 * reload). docs/security.md ("Privileges and the seccomp filter") lists
 * them and what the daemon can no longer do. With seccomp = yes after the
 * drop, a Landlock ruleset also keeps its writes, by path, to the metrics
 * textfile's directory (and /dev/cuse).
 */
#ifndef KCSMUX_SANDBOX_H
#define KCSMUX_SANDBOX_H

#include <stdbool.h>

#include "config/config.h"

/* What the running daemon still needs, beyond its fixed list. */
struct sandbox_profile {
	enum kcsmux_seccomp mode;
	enum kcsmux_backend backend; /* its ioctls ... */
	int backend_fd;		     /* ... on this fd only */
	bool smi_async;		     /* kcsraw in SMI mode: the ipmidev
					ioctls on async_fd too */
	int async_fd;
	bool dropped;	    /* running as cfg.user, not root */
	bool textfile;	    /* metrics_textfile is written ... */
	int textfile_dirfd; /* ... in this directory only (> 0) */
};

/*
 * Install the filter for the rest of the process's life: 0 (nothing done
 * for KCSMUX_SECCOMP_NO), or -1 with *cause. Sets no_new_privs.
 */
int sandbox_apply(const struct sandbox_profile *p, char **cause);

/*
 * After sandbox_apply: the Landlock ABI whose ruleset confines the writes
 * (> 0; seccomp = yes after the drop), 0 when none was asked for, or
 * -ENOSYS / -EOPNOTSUPP when the kernel has none (seccomp only).
 */
int sandbox_landlock_abi(void);

/* Built with ASan/UBSan: the filter also admits their runtime's calls. */
bool sandbox_sanitized(void);

#endif /* KCSMUX_SANDBOX_H */
