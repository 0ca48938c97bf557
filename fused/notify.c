// SPDX-License-Identifier: GPL-2.0
/*
 * notify.c - sd_notify(3)'s protocol on a socket connected at start.
 *
 * libsystemd's sd_notify() opens a new socket and sends with sendmsg(2)
 * each time. Under the seccomp filter (sandbox.c) the daemon must not be
 * able to call sendmsg(2) at all: it is how a descriptor such as
 * /dev/kcsraw0 would be handed to another process. So the socket is
 * connected here before the filter, and READY/RELOADING/STATUS go out with
 * send(2) on it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/log.h"
#include "notify.h"

int notify_open(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (path == NULL || *path == '\0')
		return -1;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sun.sun_path)) {
		log_warn("NOTIFY_SOCKET %s: not a path or an abstract socket "
			 "name: no readiness notifications",
			 path);
		return -1;
	}
	memcpy(sun.sun_path, path, len);
	if (path[0] == '@')
		sun.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    connect(fd, (const struct sockaddr *)&sun,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) <
		    0) {
		log_warn("NOTIFY_SOCKET %s: %s: no readiness notifications",
			 path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int notify_store_fd(int fd, int sfd, const char *name)
{
	char buf[128];
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = buf };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	int n;

	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "FDSTORE=1\nFDNAME=%s", name);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -1;
	iov.iov_len = (size_t)n;
	memset(&u, 0, sizeof(u));
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &sfd, sizeof(int));
	if (sendmsg(fd, &msg, MSG_NOSIGNAL) < 0) {
		log_warn("notify: FDSTORE %s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

void notify_send(int fd, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	if (fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (send(fd, buf, (size_t)n, MSG_NOSIGNAL) < 0)
		log_debug("notify: %s", strerror(errno));
}
