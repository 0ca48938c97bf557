/* SPDX-License-Identifier: GPL-2.0 */
/*
 * notify.h - the service manager's readiness protocol (sd_notify(3)) over a
 * datagram socket connected once at start, so that later notifications need
 * only send(2): the seccomp filter can then refuse sendmsg(2), the one call
 * that could pass a descriptor out of the daemon (SCM_RIGHTS).
 */
#ifndef KCSMUX_NOTIFY_H
#define KCSMUX_NOTIFY_H

/* Connect to $NOTIFY_SOCKET (a path or an @abstract name). -1 when it is
 * unset or cannot be reached (then notifications are dropped, as
 * sd_notify() does without a manager); the reason goes to the log. */
int notify_open(void);

/* One notification ("READY=1\nSTATUS=..."), printf-style; a no-op on -1. */
void notify_send(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* FDSTORE=1 with FDNAME=NAME: SFD into the service manager's file
 * descriptor store (sendmsg, SCM_RIGHTS: before the seccomp filter only).
 * 0, or -1 with the reason logged. */
int notify_store_fd(int fd, int sfd, const char *name);

#endif
