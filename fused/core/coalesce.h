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
 * With coalesce_window_ms = N as well, a read that finds no such leader
 * takes the last answer to the same read that completed on the node at
 * most N ms ago for another client, without waiting: a reading at most N
 * ms old (plus a transaction). Only a system-interface read answered cc
 * 0 is kept, one per sensor number; a failure is never handed on.
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

#define COALESCE_SENSORS 256 /* sensor numbers */
#define COALESCE_RESP	 16  /* Get Sensor Reading's answer fits */

/* A node's last answer to one sensor number's read (struct node). */
struct coalesce_recent {
	uint64_t t_ms;	   /* completed (0: nothing kept) */
	uint64_t owner_id; /* whose it was (xact.h) */
	uint8_t lun;
	uint8_t len;
	uint8_t resp[COALESCE_RESP];
};

/* Could x lead or follow (its node's key, a sensor read)? */
bool coalesce_candidate(const struct xact *x);
/*
 * x (a node's, not yet queued) follows an identical leader or, within the
 * node's window, is answered at once with a recent answer: true if so
 * (counted, out of its owner's queued count); false: queue it, and
 * it leads from then on if it may (x->may_lead; xact.c keeps d->coal).
 */
bool coalesce_follow(struct xact *x);
/* x, a leader, completed: its answer is kept for the node's window. */
void coalesce_remember(const struct xact *x, int status, const uint8_t *resp,
		       unsigned int len);

#endif /* KCSMUX_COALESCE_H */
