/* SPDX-License-Identifier: GPL-2.0 */
/*
 * core_fixture.h - the daemon the host tests of the core and the CUSE front
 * end run against: a libevent base the test runs, the core, a fake backend
 * of depth 1 (fake_backend.h) and two attached nodes, a and b.
 */
#ifndef KCSMUX_TEST_CORE_FIXTURE_H
#define KCSMUX_TEST_CORE_FIXTURE_H

#include <event2/event.h>

#include "core/core.h"
#include "core/xact.h"
#include "fake_backend.h"

struct core_fixture {
	struct event_base *base;
	struct daemon d;
	struct fake_be *fb;
	struct node na, nb;
	struct kcsmux_node_conf conf_a, conf_b; /* of na and nb */
};

/* Upcalls for a core with no front end: no waiters, nothing to do when a
 * transaction goes. */
extern const struct core_upcalls core_fixture_quiet;

/* Zero F, make the base and the core with upcalls UP. The test then sets
 * the daemon's fields and conf_a and conf_b, and calls core_fixture_attach. */
void core_fixture_open(struct core_fixture *f, const struct core_upcalls *up);

/* The fake backend, and nodes a and b made from conf_a and conf_b and
 * attached. */
void core_fixture_attach(struct core_fixture *f);

/* A request of node N (NULL: the daemon's own) for OWNER to the BMC on the
 * system interface: netfn NETFN, command CMD, no data (req_len 2), done
 * DONE. The test adds data and the rest. */
struct xact *core_fixture_xact(struct core_fixture *f, struct node *n,
			       void *owner, uint8_t netfn, uint8_t cmd,
			       void (*done)(struct xact *x, int status,
					    const uint8_t *resp,
					    unsigned int len));

/* Answer everything still pending with -ECANCELED (nothing may be left
 * running: ASan finds leaks). */
void core_fixture_drain(struct core_fixture *f);

/* Drain, detach the nodes, destroy the backend, the core and the base. */
void core_fixture_close(struct core_fixture *f);

#endif /* KCSMUX_TEST_CORE_FIXTURE_H */
