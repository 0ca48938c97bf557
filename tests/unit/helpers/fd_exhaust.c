// SPDX-License-Identifier: GPL-2.0
/* fd_exhaust.c - run a test out of descriptors (fd_exhaust.h). */
#include <errno.h>
#include <unistd.h>

#include "fd_exhaust.h"

#define LOW_NOFILE 256

int fd_exhaust_start(struct fd_exhaust *x)
{
	struct rlimit low;

	x->n = 0;
	if (getrlimit(RLIMIT_NOFILE, &x->saved) < 0)
		return -1;
	low = x->saved;
	low.rlim_cur = LOW_NOFILE;
	if (setrlimit(RLIMIT_NOFILE, &low) < 0)
		return -1;
	while (x->n < (int)(sizeof(x->fds) / sizeof(x->fds[0]))) {
		int fd = dup(0);

		if (fd < 0)
			return errno == EMFILE ? 0 : -1;
		x->fds[x->n++] = fd;
	}
	errno = ENOSPC;
	return -1;
}

int fd_exhaust_end(struct fd_exhaust *x)
{
	while (x->n > 0)
		close(x->fds[--x->n]);
	return setrlimit(RLIMIT_NOFILE, &x->saved);
}
