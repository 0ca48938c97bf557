// SPDX-License-Identifier: GPL-2.0
/* core_fixture.c - see core_fixture.h. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include <linux/ipmi.h>

#include "core_fixture.h"

static void quiet_xact_gone(struct xact *x)
{
	(void)x;
}

static bool quiet_waiters(struct daemon *d)
{
	(void)d;
	return false;
}

const struct core_upcalls core_fixture_quiet = {
	.waiters = quiet_waiters,
	.xact_gone = quiet_xact_gone,
};

void core_fixture_open(struct core_fixture *f, const struct core_upcalls *up)
{
	memset(f, 0, sizeof(*f));
	f->base = event_base_new();
	ck_assert_ptr_nonnull(f->base);
	core_init(&f->d, f->base);
	f->d.up = up;
}

static void node_init(struct core_fixture *f, struct node *n,
		      const struct kcsmux_node_conf *conf)
{
	memset(n, 0, sizeof(*n));
	core_node_init(&f->d, n, conf);
	core_node_attach(n);
}

void core_fixture_attach(struct core_fixture *f)
{
	f->fb = fake_backend_new(1, false, &core_backend_cbs, &f->d);
	f->d.be = &f->fb->be;
	node_init(f, &f->na, &f->conf_a);
	node_init(f, &f->nb, &f->conf_b);
}

struct xact *core_fixture_xact(struct core_fixture *f, struct node *n,
			       void *owner, uint8_t netfn, uint8_t cmd,
			       void (*done)(struct xact *x, int status,
					    const uint8_t *resp,
					    unsigned int len))
{
	struct xact *x = xact_new(&f->d, n);

	ck_assert_ptr_nonnull(x);
	x->owner = owner;
	x->owner_id = (uintptr_t)owner; /* as unique as the test's owners */
	x->addr.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
	x->addr.channel = IPMI_BMC_CHANNEL;
	x->netfn = netfn;
	x->cmd = cmd;
	x->req[0] = (uint8_t)(netfn << 2);
	x->req[1] = cmd;
	x->req_len = 2;
	x->done = done;
	return x;
}

void core_fixture_drain(struct core_fixture *f)
{
	while (fake_pending(f->fb))
		fake_complete(f->fb, fake_pending(f->fb), -ECANCELED, NULL, 0);
}

void core_fixture_close(struct core_fixture *f)
{
	core_fixture_drain(f);
	sched_flow_detach(&f->d.sched, &f->na.flow);
	sched_flow_detach(&f->d.sched, &f->nb.flow);
	f->d.be->ops->destroy(f->d.be);
	core_fini(&f->d);
	event_base_free(f->base);
}
