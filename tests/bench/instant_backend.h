/* SPDX-License-Identifier: GPL-2.0 */
/*
 * instant_backend.h - a struct backend that answers at once, for the host
 * benchmark of the daemon's request path (node_cpu.c): a submission makes
 * its event active, and the event's callback reports the completions the
 * way kcsraw.c's kr_event() does (completion with a cost report, then
 * room), without the device's syscalls. Every request is answered with
 * cc 0 and a Get Device ID's 15 bytes.
 */
#ifndef KCSMUX_INSTANT_BACKEND_H
#define KCSMUX_INSTANT_BACKEND_H

#include <stdint.h>

#include "backend/backend.h"

#define INSTANT_DEPTH 2 /* as kcsraw.c keeps submitted */

struct instant_backend {
	struct backend be;
	struct {
		uint64_t cookie;
		uint8_t req[2];
	} pend[INSTANT_DEPTH];
	unsigned int npend;
	uint64_t submitted, completed;
};

/* The data every answer carries after its cc. */
extern const uint8_t instant_devid[15];

/* NULL with *cause. */
struct instant_backend *instant_backend_new(struct event_base *base,
					    const struct backend_cbs *cbs,
					    void *arg, char **cause);

#endif /* KCSMUX_INSTANT_BACKEND_H */
