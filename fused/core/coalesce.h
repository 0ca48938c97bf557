/* SPDX-License-Identifier: GPL-2.0 */
/*
 * coalesce.h - identical sensor reads share one transaction (coalesce.c).
 *
 * On a node with coalesce = yes, a Get Sensor Reading (netfn 0x04, cmd
 * 0x2d) identical to one another client of the same node has in flight
 * (queued or at the interface: same bytes, so the same sensor number and
 * LUN, and the same address) does not become a second transaction: it
 * follows the first (the leader) and gets the leader's answer, each with
 * its own msgid and address bytes. The answer was read by the BMC after
 * the leader was sent, so at most one transaction's time before the
 * follower asked. Only within one node: a node's priority, rate and
 * budget never carry another node's request.
 *
 * A leader whose client goes away while it is queued stays queued for its
 * followers (completing into nothing for its own client); a follower whose
 * client goes away is dropped, and the last one takes an orphaned queued
 * leader with it.
 */
#ifndef KCSMUX_COALESCE_H
#define KCSMUX_COALESCE_H

#include <stdbool.h>
#include <stdint.h>

struct xact;

/* Could x lead or follow (its node's key, a sensor read)? */
bool coalesce_candidate(const struct xact *x);
/*
 * x (a node's, not yet queued) follows an identical leader: true if it
 * does (counted, out of its owner's queued count); false: queue it, and
 * it leads from then on if it may (x->may_lead; xact.c keeps d->coal).
 */
bool coalesce_follow(struct xact *x);

#endif /* KCSMUX_COALESCE_H */
