/* SPDX-License-Identifier: GPL-2.0 */
/*
 * leasegate.h - leases (lease.h) in the daemon: the table of one kcsmuxd
 * (d->leases), the verdict on each request of a node, the configured
 * leases (a node's lease key), kcsmuxctl's take and release, and the
 * firmware lease's start and end (docs/leases.md).
 *
 * A holder is a node (struct node *), whoever asked for the lease: a
 * kcsmuxctl connection that took it may close, the lease stays the node's
 * until its deadline.
 */
#ifndef KCSMUX_CORE_LEASEGATE_H
#define KCSMUX_CORE_LEASEGATE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/lease.h"
#include "util/ipmi_msg.h"

struct daemon;
struct node;

/* Completion codes of a refusal (IPMI 2.0 table 5-2). */
#define LEASE_CC_STATE 0xd5 /* not supported in present state */
#define LEASE_CC_BUSY  0xc0 /* node busy: the firmware lease */

enum lease_verdict {
	LEASE_GO,	 /* as without leases */
	LEASE_FW_HOLDER, /* the firmware lease's holder: straight to the BMC */
	LEASE_REFUSED,	 /* answer cc 0xd5 at once (why says who holds it) */
	LEASE_FW_OTHER,	 /* another holds the firmware lease: a cache or
			 * mirror answers it (stale), else cc 0xc0 */
};

struct lease_why {
	const struct node *holder;
	unsigned int class_bit;
	uint64_t left_ns;
};

/* May node N's request RQ go on at NOW? (configured leases renewed) */
enum lease_verdict leasegate_check(struct node *n,
				   const struct ipmi_request *rq, uint64_t now,
				   struct lease_why *why);
/* kcsmuxctl lease take: N holds MASK for DURATION_NS (lease_take's
 * result; -EBUSY: *HOLDER names the node that holds one of them). */
int leasegate_take(struct daemon *d, struct node *n, unsigned int mask,
		   uint64_t duration_ns, const struct node **holder);
/* kcsmuxctl lease release: the number of N's leases in MASK released. */
unsigned int leasegate_release(struct daemon *d, struct node *n,
			       unsigned int mask);
/* The node goes (removed, or the daemon stops): its leases with it. */
void leasegate_node_gone(struct daemon *d, struct node *n);
/* The nodes' lease keys taken now (and classes no longer configured
 * released): at start, after a reload, and every minute (renewal). */
void leasegate_conf(struct daemon *d, uint64_t now);
/* At exit. */
void leasegate_fini(struct daemon *d);

#endif
