// SPDX-License-Identifier: GPL-2.0
/*
 * backend_ipmidev.c - the nodes on top of a stock /dev/ipmiN, for hosts
 * that keep ipmi_si. Scheduling, access policy and accounting are the
 * daemon's as with kcsraw, but polling stays the kernel's one global
 * policy (kipmid): the per-node polling keys have no effect here, and the
 * kernel handles SMS_ATN itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <event2/event.h>

#include "backend.h"
#include "kcsmuxd.h"
#include "log.h"

static int id_submit(struct backend *be, uint64_t cookie,
		     const struct kcsraw_policy *pol, const uint8_t *req,
		     unsigned int len)
{
	struct ipmi_system_interface_addr si = {
		.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
		.channel = IPMI_BMC_CHANNEL,
		.lun = req[0] & 3,
	};
	struct ipmi_req r;

	(void)pol;
	if (len < 2)
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	r.addr = (unsigned char *)&si;
	r.addr_len = sizeof(si);
	r.msgid = (long)cookie;
	r.msg.netfn = req[0] >> 2;
	r.msg.cmd = req[1];
	r.msg.data = (unsigned char *)req + 2;
	r.msg.data_len = (unsigned short)(len - 2);
	if (ioctl(be->fd, IPMICTL_SEND_COMMAND, &r) < 0)
		return -errno;
	be->inflight++;
	return 0;
}

static int id_cancel(struct backend *be, uint64_t cookie)
{
	(void)be;
	(void)cookie;
	return -EOPNOTSUPP;	/* the stock ABI cannot cancel */
}

static void id_destroy(struct backend *be)
{
	if (be->ev)
		event_free(be->ev);
	close(be->fd);
	free(be);
}

static const struct backend_ops ipmidev_ops = {
	.name = "ipmidev",
	.submit = id_submit,
	.cancel = id_cancel,
	.destroy = id_destroy,
};

static void id_event(evutil_socket_t fd, short what, void *arg)
{
	struct backend *be = arg;
	struct ipmi_system_interface_addr addr;
	uint8_t buf[2 + IPMI_MAX_MSG_LENGTH];
	struct ipmi_recv r;

	(void)what;
	for (;;) {
		memset(&r, 0, sizeof(r));
		r.addr = (unsigned char *)&addr;
		r.addr_len = sizeof(addr);
		r.msg.data = buf + 2;
		r.msg.data_len = IPMI_MAX_MSG_LENGTH;
		if (ioctl(fd, IPMICTL_RECEIVE_MSG_TRUNC, &r) < 0 &&
		    errno != EMSGSIZE)
			break;
		if (r.recv_type != IPMI_RESPONSE_RECV_TYPE)
			continue;
		buf[0] = (uint8_t)(r.msg.netfn << 2 | (addr.lun & 3));
		buf[1] = r.msg.cmd;
		if (be->inflight)
			be->inflight--;
		xact_complete(be->d, (uint64_t)r.msgid, 0, buf,
			      2u + r.msg.data_len, NULL);
	}
	xact_kick(be->d);
}

struct backend *backend_ipmidev_open(struct daemon *d, const char *path,
				     char **cause)
{
	struct backend *be = calloc(1, sizeof(*be));

	if (!be) {
		asprintf(cause, "out of memory");
		return NULL;
	}
	be->ops = &ipmidev_ops;
	be->d = d;
	be->depth = 1;
	be->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (be->fd < 0) {
		asprintf(cause, "%s: %s", path, strerror(errno));
		free(be);
		return NULL;
	}
	be->ev = event_new(d->base, be->fd, EV_READ | EV_PERSIST, id_event, be);
	if (!be->ev || event_add(be->ev, NULL) < 0) {
		asprintf(cause, "%s: event_add failed", path);
		id_destroy(be);
		return NULL;
	}
	log_info("backend ipmidev: %s (polling is the kernel's)", path);
	return be;
}
