// SPDX-License-Identifier: GPL-2.0
/*
 * smidev.c - how kcsmuxd reaches ipmi_msghandler's side of kcsraw's
 * interface in SMI mode: the relay kcsraw.ko offers on a second open file
 * of /dev/kcsrawN (below), or, with an older module or backend_async_dev,
 * the stock /dev/ipmiN of that interface (util/stocknode.c finds it).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "backend/backend.h"
#include "util/error.h"

/*
 * The relay (KCSRAW_IOC_RELAY_*): kcsraw's own kernel user of its
 * interface, bound to a second open file of /dev/kcsrawN, in place of the
 * stock node: the same requests and messages without a /dev/ipmiN.
 */
int smidev_relay_open(const char *path, char **cause)
{
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	int e;

	if (fd < 0)
		return error_set(cause, "%s: %s", path, strerror(errno));
	if (ioctl(fd, KCSRAW_IOC_RELAY_BIND) < 0) {
		e = errno;
		close(fd);
		error_set(cause, "%s: KCSRAW_IOC_RELAY_BIND: %s", path,
			  strerror(e));
		return -e;
	}
	return fd;
}

int smidev_relay_send(int fd, const uint8_t *abuf, unsigned int alen,
		      const struct smidev_body *b)
{
	struct kcsraw_relay_req q;

	if (alen == 0 || alen > sizeof(q.addr) || b->len > sizeof(q.data))
		return -EINVAL;
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.addr_len = alen;
	memcpy(q.addr, abuf, alen);
	q.msgid = b->msgid;
	q.retries = b->retries;
	q.retry_ms = b->retry_ms;
	q.netfn = b->netfn;
	q.cmd = b->cmd;
	q.data_len = (uint16_t)b->len;
	if (b->len)
		memcpy(q.data, b->data, b->len);
	if (ioctl(fd, KCSRAW_IOC_RELAY_SEND, &q) < 0)
		return -errno;
	return 0;
}

int smidev_relay_recv(int fd, struct kcsraw_relay_msg *m)
{
	memset(m, 0, sizeof(*m));
	if (ioctl(fd, KCSRAW_IOC_RELAY_RECV, m) < 0)
		return -errno;
	return 0;
}

int smidev_relay_cmd(int fd, uint8_t netfn, uint8_t cmd, uint32_t chans,
		     bool on)
{
	struct kcsraw_relay_cmd c = {
		.netfn = netfn,
		.cmd = cmd,
		.on = on,
		.chans = chans,
	};

	if (ioctl(fd, KCSRAW_IOC_RELAY_CMD, &c) < 0)
		return -errno;
	return 0;
}
