// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw.c - the kcsraw.ko backend: /dev/kcsrawN. Every request is
 * submitted with its node's polling policy; completions come back with
 * their cost report; POLLPRI means the BMC raised SMS_ATN.
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

/* Two in the module: the next request starts the moment one finishes,
 * while the scheduler still decides late what runs after that. */
#define KCSRAW_PIPELINE 2

static int kr_submit(struct backend *be, const struct backend_req *br)
{
	uint64_t cookie = br->cookie;
	const struct kcsraw_policy *pol = br->pol;
	const uint8_t *req = br->req;
	unsigned int len = br->len;
	const struct ipmi_address *addr = br->addr;
	struct kcsraw_submit s;

	if (addr)
		return -EAFNOSUPPORT; /* bridge.c wraps IPMB requests */
	if (len < 2 || len > KCSRAW_MAX_MSG)
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.cookie = cookie;
	s.policy = *pol;
	s.req_len = (uint16_t)len;
	memcpy(s.req, req, len);
	if (ioctl(be->fd, KCSRAW_IOC_SUBMIT, &s) < 0)
		return -errno;
	be->inflight++;
	return 0;
}

static int kr_cancel(struct backend *be, uint64_t cookie)
{
	if (ioctl(be->fd, KCSRAW_IOC_CANCEL, &cookie) < 0)
		return -errno;
	return 0;
}

static void kr_destroy(struct backend *be)
{
	if (be->ev)
		event_free(be->ev);
	close(be->fd);
	free(be);
}

static const struct backend_ops kcsraw_ops = {
	.name = "kcsraw",
	.submit = kr_submit,
	.cancel = kr_cancel,
	.destroy = kr_destroy,
};

/* Completions one read() takes: the module hands over as many whole
 * records as fit (kcsraw_read), and it holds at most queue_depth of ours. */
#define KCSRAW_READ_BATCH 4

static void kr_complete(struct backend *be, struct kcsraw_completion *c)
{
	if (be->inflight)
		be->inflight--;
	be->health.completions++;
	be->health.kcs_errors += c->cost.errors;
	be->health.retries += c->cost.retries;
	if (c->flags & KCSRAW_DONE_HOSED) {
		be->health.hosed++;
		/* The interface gave up: answer as the stock driver does
		 * (cc 0xFF), whatever kcsraw made up. */
		if (c->resp_len >= 3)
			c->resp[2] = IPMI_ERR_UNSPECIFIED;
		/* As stock after a hosed interface: check the enables. */
		be->cbs->hosed(be->cb_arg);
	}
	be->cbs->completion(be->cb_arg, c->cookie, c->status, c->resp,
			    c->resp_len, &c->cost);
}

/*
 * The fd is readable: completions, or SMS_ATN (the module reports it as
 * POLLIN too). One read() takes every completion there is; a short batch
 * means the list is empty, so no read ends in EAGAIN. KCSRAW_IOC_ATTN is
 * asked only when a read found nothing: while completions are there the
 * read takes them, and a pending SMS_ATN keeps the fd readable (libevent
 * watches it level-triggered), so the next wake-up finds it.
 */
static void kr_event(evutil_socket_t fd, short what, void *arg)
{
	struct backend *be = arg;
	struct kcsraw_completion c[KCSRAW_READ_BATCH];
	struct kcsraw_attn a;
	size_t i, k;
	ssize_t n;

	(void)what;
	for (;;) {
		n = read(fd, c, sizeof(c));
		if (n < 0) {
			if (errno == EAGAIN) {
				if (ioctl(fd, KCSRAW_IOC_ATTN, &a) == 0 &&
				    a.pending)
					be->cbs->attention(be->cb_arg);
			} else if (errno != EINTR) {
				log_err("kcsraw: read: %s", strerror(errno));
			}
			break;
		}
		k = (size_t)n / sizeof(c[0]);
		for (i = 0; i < k; i++)
			kr_complete(be, &c[i]);
		if (k < KCSRAW_READ_BATCH)
			break;
	}
	be->cbs->room(be->cb_arg);
}

struct backend *backend_kcsraw_open(struct event_base *base, const char *path,
				    const struct backend_cbs *cbs, void *arg,
				    char **cause)
{
	struct kcsraw_info info;
	struct backend *be;

	be = calloc(1, sizeof(*be));
	if (!be) {
		error_set(cause, "out of memory");
		return NULL;
	}
	be->ops = &kcsraw_ops;
	be->cbs = cbs;
	be->cb_arg = arg;
	be->depth = KCSRAW_PIPELINE;
	be->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (be->fd < 0) {
		if (errno == ENOENT)
			backend_kcsraw_missing(path, errno, cause);
		else
			error_set(cause, "%s: %s", path, strerror(errno));
		free(be);
		return NULL;
	}
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (ioctl(be->fd, KCSRAW_IOC_INFO, &info) < 0) {
		error_set(cause, "%s: KCSRAW_IOC_INFO: %s", path,
			  strerror(errno));
		goto fail;
	}
	if (info.version != KCSRAW_UAPI_VERSION) {
		error_set(cause, "%s: kcsraw uapi version %u, expected %u",
			  path, info.version, KCSRAW_UAPI_VERSION);
		goto fail;
	}
	if (info.queue_depth && info.queue_depth < be->depth)
		be->depth = info.queue_depth;
	be->irq = (info.flags & KCSRAW_INFO_IRQ) ? info.irq : 0;
	/* EV_READ wakes for both: completions, and SMS_ATN, which the
	 * module reports (and wakes waiters with) as POLLPRI and POLLIN
	 * together; a wake-up reads the completions, or asks KCSRAW_IOC_ATTN
	 * when there were none (kr_event). */
	be->ev = event_new(base, be->fd, EV_READ | EV_PERSIST, kr_event, be);
	if (!be->ev || event_add(be->ev, NULL) < 0) {
		error_set(cause, "%s: event_add failed", path);
		goto fail;
	}
	log_info("backend kcsraw: %s ports 0x%x/0x%x irq %u", path,
		 info.data_port, info.status_port, be->irq);
	return be;
fail:
	if (be->ev)
		event_free(be->ev);
	close(be->fd);
	free(be);
	return NULL;
}
