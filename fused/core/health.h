/* SPDX-License-Identifier: GPL-2.0 */
/*
 * health.h - the daemon's health as kcsmuxctl status and the metrics give
 * it: whether the BMC answers and since when, the loaded kcsraw's version,
 * and a stock /dev/ipmiN beside kcsraw (ipmi_devintf in SMI mode) that
 * bypasses every node. Read from the daemon and sysfs at each call.
 */
#ifndef KCSMUX_CORE_HEALTH_H
#define KCSMUX_CORE_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

struct daemon;

struct health {
	/* The BMC answers: the daemon saw no hosed interface since the last
	 * answer, and kcsraw (its sysfs "bmc") says "up" where readable. */
	bool bmc_up;
	/* kcsraw's own word: "up", "waiting", "lost"; "" (not kcsraw, or
	 * not readable) */
	char kcsraw_bmc[16];
	/* since when the BMC is up or down, seconds since the epoch: its
	 * last change the daemon saw, else the daemon's start */
	uint64_t bmc_since_unix;
	/* /sys/module/kcsraw/version, "" when kcsraw is not loaded */
	char kcsraw_version[32];
	/* the stock node on kcsraw's interface, "" when none */
	char stock_device[64];
	/* degraded: IPMB/LAN bridging and the BMC's events have no path
	 * (kcsraw in SMI mode without its relay or ipmi_devintf) */
	bool no_bridge;
};

/* D's health now. D->sysfs_root names another /sys (the tests'); NULL:
 * /sys. */
void health_read(struct daemon *d, struct health *h);

/* The BMC's state changed (core.c: silent, or answering again). */
void health_bmc_changed(struct daemon *d);

#endif /* KCSMUX_CORE_HEALTH_H */
