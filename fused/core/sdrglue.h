/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sdrglue.h - the SDR/FRU cache (sdrcache.c) in the request path: the
 * only file that knows both the cache and transactions.
 */
#ifndef KCSMUX_SDRGLUE_H
#define KCSMUX_SDRGLUE_H

#include <stdbool.h>

#include "core/sdrcache.h"

struct xact;
struct client;

/* A client's system-interface transaction, built and allowed by the
 * node's rules, not yet queued: true if the cache took it (answered at
 * once, or parked until the cache is filled: x is then the glue's). */
bool sdrglue_send(struct xact *x);
/* A client's transaction the BMC answered (resp: netfn, cmd, cc ...). */
void sdrglue_observe(const struct xact *x, int status, const uint8_t *resp,
		     unsigned int len);
void sdrglue_client_gone(const struct client *c);
/* At exit, after the nodes are gone. */
struct daemon;
void sdrglue_fini(struct daemon *d);

#endif
