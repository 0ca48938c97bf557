/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resv.h - reservations per owner, as the SDR cache (sdrcache.c) and the
 * SEL mirror (selmirror.c) keep them: a client's Reserve still goes to
 * the BMC, and the id it got is that client's own; a read answered from
 * memory is checked against that owner's last id only, so clients cannot
 * cancel each other's (cc 0xC5). A change of what is held cancels every
 * owner's. Up to RESV_KINDS kinds per owner (the SDR cache: the main
 * repository and the device SDRs).
 */
#ifndef KCSMUX_RESV_H
#define KCSMUX_RESV_H

#include <stdbool.h>
#include <stdint.h>

#define RESV_KINDS 2

struct resv {
	const void *owner;
	uint16_t res[RESV_KINDS];
	bool valid[RESV_KINDS];
};

/* Zeroed: empty. One entry per owner that reserved, until it goes. */
struct resv_tab {
	struct resv *v;
	unsigned int n, cap;
};

/* OWNER's entry; ADD: a new one if it has none (NULL if out of memory). */
struct resv *resv_find(struct resv_tab *t, const void *owner, bool add);
/* OWNER reserved and the BMC answered ID: its reservation of KIND. */
void resv_set(struct resv_tab *t, const void *owner, unsigned int kind,
	      uint16_t id);
/* May OWNER read with reservation ID of KIND? 0 needs none (as on
 * ipmi_sim and IPMI 2.0 for whole reads). */
bool resv_allows(struct resv_tab *t, const void *owner, unsigned int kind,
		 uint16_t id);
/* What KIND's reservations were for changed: every owner's is cancelled. */
void resv_cancel_all(struct resv_tab *t, unsigned int kind);
/* The owner closed. */
void resv_gone(struct resv_tab *t, const void *owner);
void resv_free(struct resv_tab *t);

#endif
