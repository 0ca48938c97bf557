/* SPDX-License-Identifier: GPL-2.0 */
/* io.h - small I/O helpers shared by kcsmuxd and kcsmuxctl. */
#ifndef KCSMUX_UTIL_IO_H
#define KCSMUX_UTIL_IO_H

#include <stddef.h>

/*
 * Write all LEN bytes of BUF to FD, retrying after EINTR and short writes.
 * 0, or -1 with errno. A socket's reader gone gives EPIPE only where
 * SIGPIPE is ignored (kcsmuxd, kcsmuxctl).
 */
int write_all(int fd, const void *buf, size_t len);

#endif /* KCSMUX_UTIL_IO_H */
