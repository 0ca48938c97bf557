/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run a test out of descriptors: lower RLIMIT_NOFILE to a few hundred and
 * dup() until EMFILE (test_control's and test_metrics_conns's "pause on
 * EMFILE" cases), then give everything back.
 */
#ifndef KCSMUX_FD_EXHAUST_H
#define KCSMUX_FD_EXHAUST_H

#include <sys/resource.h>

struct fd_exhaust {
	struct rlimit saved;
	int fds[4096];
	int n;
};

/* 0 once dup() fails with EMFILE; -1 (errno set) if it cannot get there. */
int fd_exhaust_start(struct fd_exhaust *);
/* Close what start opened, restore the limit; 0, or -1 with errno. */
int fd_exhaust_end(struct fd_exhaust *);

#endif
