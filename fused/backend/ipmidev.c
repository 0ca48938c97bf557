// SPDX-License-Identifier: GPL-2.0
/*
 * ipmidev.c - the nodes on top of a stock /dev/ipmiN, for hosts
 * that keep ipmi_si. Scheduling, access policy and accounting are the
 * daemon's as with kcsraw, but polling stays the kernel's one global
 * policy (kipmid): the per-node polling keys have no effect here. The
 * kernel does SMS_ATN and IPMB bridging itself: IPMB requests are passed to
 * it as such (with the request's retries), and the events it delivers to
 * our open file are fanned out to the nodes' subscribers. The kcsraw
 * backend in SMI mode uses the same calls (ipmidev_send, ipmidev_drain) on
 * the stock node of its own interface.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <event2/event.h>

#include "backend/backend.h"
#include "util/error.h"
#include "util/log.h"

/* One SEND_COMMAND_SETTIME on fd (kcsraw's relay: RELAY_SEND): netfn
 * and cmd from req[0..1]. */
static int send_req(const struct backend *be, int fd,
		    const struct ipmi_address *addr, const uint8_t *req,
		    unsigned int len, long msgid,
		    const struct backend_req *timing)
{
	uint8_t abuf[ABI_MAX_ADDR_LEN];
	struct ipmi_req_settime r;
	int alen;

	alen = ipmi_addr_encode(addr, abuf, sizeof(abuf));
	if (alen < 0)
		return alen;
	if (be->relay && fd == be->async_fd) {
		struct smidev_body b = {
			.msgid = msgid,
			.retries = timing ? timing->retries : 0,
			.retry_ms = timing ? timing->retry_ms : 0,
			.netfn = req[0] >> 2,
			.cmd = req[1],
			.data = req + 2,
			.len = len - 2,
		};

		return smidev_relay_send(fd, abuf, (unsigned int)alen, &b);
	}
	memset(&r, 0, sizeof(r));
	r.req.addr = abuf;
	r.req.addr_len = alen;
	r.req.msgid = msgid;
	r.req.msg.netfn = req[0] >> 2;
	r.req.msg.cmd = req[1];
	r.req.msg.data = (unsigned char *)req + 2;
	r.req.msg.data_len = (unsigned short)(len - 2);
	r.retries = timing ? timing->retries : 0;
	r.retry_time_ms = timing ? timing->retry_ms : 0;
	if (ioctl(fd, IPMICTL_SEND_COMMAND_SETTIME, &r) < 0)
		return -errno;
	return 0;
}

int ipmidev_send(struct backend *be, int fd, const struct backend_req *br)
{
	const uint8_t *req = br->req;
	struct ipmi_address si = {
		.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
		.channel = IPMI_BMC_CHANNEL,
	};
	bool reply = br->addr && br->len >= 2 && (req[0] >> 2) & 1;
	struct backend_reply *slot = NULL;
	int rv;

	if (br->len < 2)
		return -EINVAL;
	si.lun = req[0] & 3;
	/* A reply to an incoming command: the command's msgid is its
	 * sequence number, and the kernel reports the outcome by it. */
	for (size_t i = 0; reply && !slot && i < BACKEND_MAX_REPLIES; i++)
		if (!be->replies[i].used)
			slot = &be->replies[i];
	if (reply && !slot)
		return -EBUSY;
	rv = send_req(be, fd, br->addr ? br->addr : &si, req, br->len,
		      reply ? (long)br->msgid : (long)br->cookie, br);
	if (rv == 0 && slot)
		*slot = (struct backend_reply){ br->cookie, br->msgid, true };
	return rv;
}

int ipmidev_async_cmd_register(struct backend *be, uint8_t netfn, uint8_t cmd,
			       uint32_t chans, bool on)
{
	if (be->relay)
		return smidev_relay_cmd(be->async_fd, netfn, cmd, chans, on);
	return ipmidev_cmd_register(be->async_fd, netfn, cmd, chans, on);
}

int ipmidev_cmd_register(int fd, uint8_t netfn, uint8_t cmd, uint32_t chans,
			 bool on)
{
	struct ipmi_cmdspec_chans cs = {
		.netfn = netfn,
		.cmd = cmd,
		.chans = chans,
	};

	if (ioctl(fd,
		  on ? IPMICTL_REGISTER_FOR_CMD_CHANS :
		       IPMICTL_UNREGISTER_FOR_CMD_CHANS,
		  &cs) < 0)
		return -errno;
	return 0;
}

static int id_submit(struct backend *be, const struct backend_req *br)
{
	int rv = ipmidev_send(be, be->fd, br);

	if (rv == 0)
		be->inflight++;
	return rv;
}

static int id_cancel(struct backend *be, uint64_t cookie)
{
	(void)be;
	(void)cookie;
	return -EOPNOTSUPP; /* the stock ABI cannot cancel */
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

/* An incoming command nobody took: cc 0xC1, as the stock handler answers
 * one nobody registered (the outcome, unmatched, is dropped). */
static void answer_invalid(const struct backend *be, int fd,
			   const struct ipmb_user_msg *m)
{
	const uint8_t rsp[3] = { (uint8_t)((m->netfn | 1) << 2 |
					   (m->addr.lun & 3)),
				 m->cmd, IPMI_INVALID_CMD_COMPLETION_CODE };

	if (send_req(be, fd, &m->addr, rsp, sizeof(rsp), (long)m->msgid, NULL) <
	    0)
		log_debug("ipmidev: cannot answer command 0x%02x/0x%02x",
			  m->netfn, m->cmd);
}

/* The outcome of a reply to an incoming command: its cookie, or 0. */
static uint64_t reply_done(struct backend *be, long msgid)
{
	for (size_t i = 0; i < BACKEND_MAX_REPLIES; i++)
		if (be->replies[i].used && be->replies[i].msgid == msgid) {
			be->replies[i].used = false;
			return be->replies[i].cookie;
		}
	return 0;
}

/* One message the kernel queued for fd into *m (the relay's record);
 * a negative errno (-EAGAIN: none). */
static int recv_one(const struct backend *be, int fd,
		    struct kcsraw_relay_msg *m)
{
	struct ipmi_recv r;

	if (be->relay && fd == be->async_fd)
		return smidev_relay_recv(fd, m);
	memset(m, 0, sizeof(*m));
	memset(&r, 0, sizeof(r));
	r.addr = m->addr;
	r.addr_len = sizeof(m->addr);
	r.msg.data = m->data;
	r.msg.data_len = sizeof(m->data);
	if (ioctl(fd, IPMICTL_RECEIVE_MSG_TRUNC, &r) < 0 && errno != EMSGSIZE)
		return -errno;
	m->recv_type = r.recv_type;
	m->addr_len = (uint32_t)r.addr_len;
	m->msgid = r.msgid;
	m->netfn = r.msg.netfn;
	m->cmd = r.msg.cmd;
	m->data_len = r.msg.data_len;
	return 0;
}

void ipmidev_drain(struct backend *be, int fd)
{
	uint8_t buf[2 + IPMI_MAX_MSG_LENGTH];
	struct ipmi_address addr;
	struct kcsraw_relay_msg r;
	struct ipmb_user_msg m;
	uint64_t cookie;

	for (;;) {
		if (recv_one(be, fd, &r) < 0)
			break;
		if (r.dropped)
			log_ratelimited(&be->rl_dropped, LOG_WARNING,
					"kcsraw relay: %u messages dropped "
					"(its queue was full)",
					(unsigned int)r.dropped);
		if (r.data_len > IPMI_MAX_MSG_LENGTH)
			r.data_len = IPMI_MAX_MSG_LENGTH;
		memcpy(buf + 2, r.data, r.data_len);
		if (ipmi_addr_parse(r.addr, r.addr_len, &addr) < 0)
			continue;
		if (r.recv_type == IPMI_ASYNC_EVENT_RECV_TYPE ||
		    r.recv_type == IPMI_CMD_RECV_TYPE) {
			/* The kernel did SMS_ATN: its events fanned out,
			 * commands to whoever registered them. */
			memset(&m, 0, sizeof(m));
			m.recv_type = r.recv_type;
			m.addr = addr;
			m.msgid = r.msgid;
			m.netfn = r.netfn;
			m.cmd = r.cmd;
			m.data_len = r.data_len;
			memcpy(m.data, buf + 2, m.data_len);
			if (r.recv_type == IPMI_ASYNC_EVENT_RECV_TYPE)
				be->cbs->event(be->cb_arg, &m);
			else if (!be->cbs->command ||
				 !be->cbs->command(be->cb_arg, &m))
				answer_invalid(be, fd, &m);
			continue;
		}
		if (r.recv_type == IPMI_RESPONSE_RESPONSE_TYPE)
			cookie = reply_done(be, r.msgid);
		else if (r.recv_type == IPMI_RESPONSE_RECV_TYPE)
			cookie = (uint64_t)r.msgid;
		else
			continue;
		if (!cookie)
			continue;
		buf[0] = (uint8_t)(r.netfn << 2 | (addr.lun & 3));
		buf[1] = r.cmd;
		if (be->inflight)
			be->inflight--;
		be->cbs->completion(be->cb_arg, cookie, 0, buf, 2u + r.data_len,
				    NULL);
	}
}

static void id_event(evutil_socket_t fd, short what, void *arg)
{
	struct backend *be = arg;

	(void)what;
	ipmidev_drain(be, fd);
	be->cbs->room(be->cb_arg);
}

int ipmidev_open_fd(const char *path, char **cause)
{
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	int on = 1;

	if (fd < 0)
		return error_set(cause, "%s: %s", path, strerror(errno));
	if (ioctl(fd, IPMICTL_SET_GETS_EVENTS_CMD, &on) < 0)
		log_warn("%s: cannot receive events: %s", path,
			 strerror(errno));
	return fd;
}

struct backend *backend_ipmidev_open(struct event_base *base, const char *path,
				     const struct backend_cbs *cbs, void *arg,
				     char **cause)
{
	struct backend *be = calloc(1, sizeof(*be));

	if (!be) {
		error_set(cause, "out of memory");
		return NULL;
	}
	be->ops = &ipmidev_ops;
	be->cbs = cbs;
	be->cb_arg = arg;
	be->depth = 1;
	be->bridges = true;
	be->async_fd = -1;
	be->fd = ipmidev_open_fd(path, cause);
	if (be->fd < 0) {
		free(be);
		return NULL;
	}
	be->ev = event_new(base, be->fd, EV_READ | EV_PERSIST, id_event, be);
	if (!be->ev || event_add(be->ev, NULL) < 0) {
		error_set(cause, "%s: event_add failed", path);
		id_destroy(be);
		return NULL;
	}
	log_info("backend ipmidev: %s (polling is the kernel's)", path);
	return be;
}
