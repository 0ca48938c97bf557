/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sdrglue.h - the SDR/FRU cache (sdrcache.c) in the request path: the
 * only file that knows both the cache and transactions. Its state is the
 * daemon's (d->sdrc, d->sdr_parked).
 */
#ifndef KCSMUX_SDRGLUE_H
#define KCSMUX_SDRGLUE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sdrcache.h"

struct daemon;
struct xact;

/*
 * A node's system-interface transaction, allowed by the node's rules,
 * linked to its owner and counted as queued, not yet enqueued: true if the
 * cache took it: answered at once (x->dispatched, then x->done), or parked
 * until the cache is filled, then answered or enqueued. False: enqueue it.
 */
bool sdrglue_send(struct xact *x);
/*
 * As sdrglue_send, while another node holds the firmware lease: true if
 * the cache or mirror answered x at once from what it holds, never asking
 * the BMC (no revalidation); false: nothing done, x is the caller's.
 */
bool sdrglue_stale(struct xact *x);
/* A node's system-interface transaction is answered (resp: netfn, cmd,
 * cc ...): writes, clears and resets drop the cache. */
void sdrglue_observe(const struct xact *x, int status, const uint8_t *resp,
		     unsigned int len);
/* The owner's reservations are forgotten (its parked requests were
 * orphaned by xact_cancel and are freed when the cache moves on). */
void sdrglue_owner_gone(struct daemon *d, const void *owner);
/*
 * A Send Message reached the BMC carrying a request for NETFN:CMD (kcsraw:
 * the daemon's wrap of a bridged request, answered cc 0; ipmidev: the
 * stock driver's, for a client's IPMB- or LAN-addressed request). When
 * what it carried may write the repository or the FRU or, addressed to
 * the BMC itself, reset it (sdrc_cmd_changes) the cache is dropped; a
 * carried read leaves it. An inner Cold or Warm Reset has the BMC setup
 * checked again.
 */
void sdrglue_bridged(struct daemon *d, uint8_t netfn, uint8_t cmd);
/* At exit (core_fini), after the nodes are gone. */
void sdrglue_fini(struct daemon *d);

#endif
