// SPDX-License-Identifier: GPL-2.0
/* instant_backend.c - a backend that answers at once (instant_backend.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "instant_backend.h"
#include "util/error.h"

/* ipmi_sim's Get Device ID answer after the cc. */
const uint8_t instant_devid[15] = { 0x20, 0x01, 0x00, 0x05, 0x02,
				    0xbf, 0x00, 0x00, 0x00, 0x00,
				    0x00, 0x00, 0x00, 0x00, 0x00 };

/* kr_event() without the read() and KCSRAW_IOC_ATTN: each completion
 * with a cost report like the module's, then room. */
static void ib_event(evutil_socket_t fd, short what, void *arg)
{
	struct instant_backend *ib = arg;
	struct backend *be = &ib->be;
	__typeof__(ib->pend) done;
	struct kcsraw_cost cost = {
		.latency_ns = 30000,
		.queue_ns = 1000,
		.cpu_ns = 18000,
		.polls = 12,
	};
	uint8_t resp[3 + sizeof(instant_devid)];
	unsigned int n = ib->npend;

	(void)fd;
	(void)what;
	/* A completion may submit the next one (room): take these first. */
	memcpy(done, ib->pend, sizeof(done));
	ib->npend = 0;
	for (unsigned int i = 0; i < n; i++) {
		if (be->inflight)
			be->inflight--;
		be->health.completions++;
		resp[0] = (uint8_t)(done[i].req[0] | 4); /* netfn + 1 */
		resp[1] = done[i].req[1];
		resp[2] = 0;
		memcpy(resp + 3, instant_devid, sizeof(instant_devid));
		ib->completed++;
		be->cbs->completion(be->cb_arg, done[i].cookie, 0, resp,
				    sizeof(resp), &cost);
	}
	be->cbs->room(be->cb_arg);
}

static int ib_submit(struct backend *be, const struct backend_req *r)
{
	struct instant_backend *ib = (struct instant_backend *)be;

	if (ib->npend >= INSTANT_DEPTH || r->len < 2)
		return ib->npend >= INSTANT_DEPTH ? -EAGAIN : -EINVAL;
	ib->pend[ib->npend].cookie = r->cookie;
	memcpy(ib->pend[ib->npend].req, r->req, 2);
	ib->npend++;
	ib->submitted++;
	be->inflight++;
	event_active(be->ev, EV_READ, 1);
	return 0;
}

static int ib_cancel(struct backend *be, uint64_t cookie)
{
	(void)be;
	(void)cookie;
	return -EOPNOTSUPP; /* it completes anyway, at once */
}

static void ib_destroy(struct backend *be)
{
	event_free(be->ev);
	free(be);
}

static const struct backend_ops instant_ops = {
	.name = "instant",
	.submit = ib_submit,
	.cancel = ib_cancel,
	.destroy = ib_destroy,
};

struct instant_backend *instant_backend_new(struct event_base *base,
					    const struct backend_cbs *cbs,
					    void *arg, char **cause)
{
	struct instant_backend *ib = calloc(1, sizeof(*ib));

	if (!ib) {
		error_set(cause, "out of memory");
		return NULL;
	}
	ib->be.ops = &instant_ops;
	ib->be.cbs = cbs;
	ib->be.cb_arg = arg;
	ib->be.fd = -1;
	ib->be.depth = INSTANT_DEPTH;
	ib->be.ev = event_new(base, -1, 0, ib_event, ib);
	if (!ib->be.ev) {
		free(ib);
		error_set(cause, "event_new failed");
		return NULL;
	}
	return ib;
}
