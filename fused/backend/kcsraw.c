// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw.c - the kcsraw.ko backend: /dev/kcsrawN. Every request is
 * submitted with its node's polling policy; completions come back with
 * their cost report; POLLPRI means the BMC raised SMS_ATN.
 *
 * In SMI mode (KCSRAW_INFO_ASYNC) the module fetches messages and events
 * for ipmi_msghandler and refuses Send Message, Get Message, Read Event
 * Message Buffer and Clear Message Flags here: SMS_ATN is not ours then
 * (no attention reports), and bridged requests and events go through the
 * module's relay, its own kernel user of the interface on a second open
 * file (or the stock node of the same interface), with ipmidev_send and
 * ipmidev_drain; the kernel bridges for them. Without either they have no
 * path (no_bridge).
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
#include "util/stocknode.h"

/* Two in the module: the next request starts the moment one finishes,
 * while the scheduler still decides late what runs after that. */
#define KCSRAW_PIPELINE 2

/*
 * SMI mode: a system-interface request /dev/kcsraw0 refuses that the
 * kernel's users may send (App Clear Message Flags; the stock checks
 * refuse Send Message, Get Message and Read Event Message Buffer
 * before they get here): it goes through the stock node, as a stock
 * user's would.
 */
static bool kr_kernels(const struct backend *be, const struct backend_req *br)
{
	return be->bridges && br->len >= 2 &&
	       br->req[0] >> 2 == IPMI_NETFN_APP_REQUEST &&
	       br->req[1] == IPMI_CLEAR_MSG_FLAGS_CMD;
}

static int kr_submit(struct backend *be, const struct backend_req *br)
{
	uint64_t cookie = br->cookie;
	const struct kcsraw_policy *pol = br->pol;
	const uint8_t *req = br->req;
	unsigned int len = br->len;
	const struct ipmi_address *addr = br->addr;
	struct kcsraw_submit s;

	if ((addr || kr_kernels(be, br)) && be->async_fd >= 0) {
		int rv = ipmidev_send(be, be->async_fd, br);

		be->inflight += rv == 0;
		return rv;
	}
	if (addr) /* bridge.c wraps them; no path in SMI mode */
		return be->bridges ? -EINVAL : -EAFNOSUPPORT;
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

/* Free BE's events and close its files: back to a held backend's state. */
static void kr_release(struct backend *be)
{
	if (be->ev)
		event_free(be->ev);
	if (be->async_ev)
		event_free(be->async_ev);
	if (be->async_fd >= 0)
		close(be->async_fd);
	if (be->fd >= 0)
		close(be->fd);
	be->ev = be->async_ev = NULL;
	be->async_fd = -1;
	be->fd = -1;
}

static void kr_destroy(struct backend *be)
{
	kr_release(be);
	free(be);
}

/* SMI mode: the kernel receives the commands; without its stock node
 * none arrive, and a registration holds nothing. */
static int kr_cmd_register(struct backend *be, uint8_t netfn, uint8_t cmd,
			   uint32_t chans, bool on)
{
	if (be->async_fd < 0)
		return 0;
	return ipmidev_async_cmd_register(be, netfn, cmd, chans, on);
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

/* The same, with incoming commands forwarded (SMI mode). */
static const struct backend_ops kcsraw_smi_ops = {
	.name = "kcsraw",
	.submit = kr_submit,
	.cancel = kr_cancel,
	.destroy = kr_destroy,
	.cmd_register = kr_cmd_register,
};

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
				/* SMI mode: the kernel's flags machine has it */
				if (!be->bridges &&
				    ioctl(fd, KCSRAW_IOC_ATTN, &a) == 0 &&
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

/* SMI mode: the stock node's responses and events. */
static void kr_async_event(evutil_socket_t fd, short what, void *arg)
{
	struct backend *be = arg;

	(void)what;
	ipmidev_drain(be, fd);
	be->cbs->room(be->cb_arg);
}

/*
 * SMI mode: kcsraw's relay on a second open file of KPATH (the module's
 * own kernel user of its interface), or, when o->async_dev names one or
 * the module has no relay, the stock node of interface INDEX (found in
 * sysfs), opened as root before the privileges are dropped. Without
 * either the daemon runs on, with bridging and events off: one error
 * says why.
 */
static int kr_open_async(struct backend *be, struct event_base *base,
			 const struct backend_kcsraw_opts *o, const char *kpath,
			 const struct kcsraw_info *info, char **cause)
{
	const char *cls =
		o && o->sysfs_ipmi ? o->sysfs_ipmi : "/sys/class/ipmi";
	char dev[64], *why = NULL, *rwhy = NULL;
	const char *path = o ? o->async_dev : NULL;

	be->bridges = true; /* the kernel bridges; the daemon does not */
	be->ops = &kcsraw_smi_ops;
	/* A module with the relay: the relay or nothing (a stock node
	 * beside another daemon's relay would split the registrations). */
	if (!path && (info->flags & KCSRAW_INFO_RELAY)) {
		be->async_fd = smidev_relay_open(kpath, &rwhy);
		be->relay = be->async_fd >= 0;
		path = kpath;
	} else if (!path &&
		   stocknode_find(cls, info->index, dev, sizeof(dev)) == 0) {
		path = dev;
	}
	if (path && !be->relay)
		be->async_fd = ipmidev_open_fd(path, &why);
	if (be->async_fd < 0) {
		be->no_bridge = true;
		log_err("kcsraw: the kernel owns SMS_ATN (smi=1), but %s%s: "
			"IPMB/LAN bridging, events and incoming commands are "
			"off%s",
			path ? "" : "no /dev/ipmiN is kcsraw's interface in ",
			rwhy ? error_str(rwhy) :
			path ? error_str(why) :
			       cls,
			rwhy ? "" :
			       " (a kcsraw without the relay: modprobe "
			       "ipmi_devintf, or name the node with "
			       "backend_async_dev)");
		free(why);
		free(rwhy);
		return 0;
	}
	free(rwhy);
	/* ipmi_devintf loaded anyway: its node on this interface is a
	 * side door (kcsmuxctl status says so too, while it lasts) */
	if (be->relay &&
	    stocknode_find(cls, info->index, dev, sizeof(dev)) == 0)
		log_warn("kcsraw: %s is a stock device on kcsraw's interface "
			 "(ipmi_devintf is loaded): whoever opens it reaches "
			 "the BMC around " STOCKNODE_BYPASSES
			 "; kcsmuxd does not need it (modprobe -r "
			 "ipmi_devintf)",
			 dev);
	be->async_ev = event_new(base, be->async_fd, EV_READ | EV_PERSIST,
				 kr_async_event, be);
	if (!be->async_ev || event_add(be->async_ev, NULL) < 0)
		return error_set(cause, "%s: event_add failed", path);
	log_info("backend kcsraw: SMI mode, bridging and events through %s%s",
		 be->relay ? "the relay on " : "", path);
	return 0;
}

int backend_kcsraw_nobmc(const char *path)
{
	struct kcsraw_info info;
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	rc = ioctl(fd, KCSRAW_IOC_INFO, &info) < 0 ?
		     -1 :
		     (info.flags & KCSRAW_INFO_NOBMC) != 0;
	close(fd);
	return rc;
}

/*
 * A backend that holds every request (depth 0: the core submits nothing)
 * until backend_kcsraw_attach() opens the interface: a restart across a
 * reload of kcsraw.ko (kcsmuxd.c, the hold file).
 */
struct backend *backend_kcsraw_held(const struct backend_cbs *cbs, void *arg)
{
	struct backend *be = calloc(1, sizeof(*be));

	if (!be)
		return NULL;
	be->ops = &kcsraw_ops;
	be->cbs = cbs;
	be->cb_arg = arg;
	be->depth = 0;
	be->fd = -1;
	be->async_fd = -1;
	return be;
}

int backend_kcsraw_attach(struct backend *be, struct event_base *base,
			  const char *path, const struct backend_kcsraw_opts *o,
			  char **cause)
{
	struct kcsraw_info info;
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT)
			backend_kcsraw_missing(path, errno, cause);
		else
			error_set(cause, "%s: %s", path, strerror(errno));
		return -1;
	}
	be->fd = fd;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (ioctl(fd, KCSRAW_IOC_INFO, &info) < 0) {
		error_set(cause, "%s: KCSRAW_IOC_INFO: %s", path,
			  strerror(errno));
		goto fail;
	}
	if (info.version != KCSRAW_UAPI_VERSION) {
		error_set(cause, "%s: kcsraw uapi version %u, expected %u",
			  path, info.version, KCSRAW_UAPI_VERSION);
		goto fail;
	}
	be->depth = KCSRAW_PIPELINE;
	if (info.queue_depth && info.queue_depth < be->depth)
		be->depth = info.queue_depth;
	be->irq = (info.flags & KCSRAW_INFO_IRQ) ? info.irq : 0;
	if (((info.flags & KCSRAW_INFO_ASYNC) || (o && o->force_async)) &&
	    kr_open_async(be, base, o, path, &info, cause) < 0)
		goto fail;
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
	return 0;
fail:
	kr_release(be);
	be->depth = 0;
	be->relay = be->bridges = be->no_bridge = false;
	be->ops = &kcsraw_ops;
	return -1;
}

struct backend *backend_kcsraw_open(struct event_base *base, const char *path,
				    const struct backend_kcsraw_opts *o,
				    const struct backend_cbs *cbs, void *arg,
				    char **cause)
{
	struct backend *be = backend_kcsraw_held(cbs, arg);

	if (!be) {
		error_set(cause, "out of memory");
		return NULL;
	}
	if (backend_kcsraw_attach(be, base, path, o, cause) < 0) {
		kr_destroy(be);
		return NULL;
	}
	return be;
}
