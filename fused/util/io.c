// SPDX-License-Identifier: GPL-2.0
/* io.c - small I/O helpers shared by kcsmuxd and kcsmuxctl (see io.h). */
#include <errno.h>
#include <unistd.h>

#include "util/io.h"

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
