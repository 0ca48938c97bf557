// SPDX-License-Identifier: GPL-2.0
/*
 * health.c - the daemon's health for kcsmuxctl status and the metrics
 * (core/health.h): the BMC's state from the daemon's view and kcsraw's
 * sysfs, the loaded kcsraw's version, the stock node that bypasses the
 * nodes.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "core/core.h"
#include "core/health.h"
#include "util/stocknode.h"

/* The first word of the file ROOT/PATH into BUF; "" if not readable. */
static void read_word(const char *root, const char *path, char *buf, size_t len)
{
	char p[256];
	FILE *f;

	buf[0] = '\0';
	snprintf(p, sizeof(p), "%s/%s", root, path);
	f = fopen(p, "re");
	if (f == NULL)
		return;
	if (fgets(buf, (int)len, f) == NULL)
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, " \t\n")] = '\0';
}

void health_bmc_changed(struct daemon *d)
{
	d->bmc_changed_unix = (uint64_t)time(NULL);
}

void health_read(struct daemon *d, struct health *h)
{
	const char *root = d->sysfs_root ? d->sysfs_root : "/sys";
	const char *dev = d->cfg.device ? d->cfg.device : "/dev/kcsraw0";
	unsigned int index;
	char p[128];

	memset(h, 0, sizeof(*h));
	read_word(root, "module/kcsraw/version", h->kcsraw_version,
		  sizeof(h->kcsraw_version));
	h->bmc_up = !d->bmc_silent;
	h->no_bridge = d->be != NULL && d->be->no_bridge;
	h->bmc_since_unix =
		d->bmc_changed_unix ? d->bmc_changed_unix : d->started_unix;
	if (d->cfg.backend != KCSMUX_BACKEND_KCSRAW ||
	    stocknode_kcsraw_index(dev, &index) < 0)
		return;
	snprintf(p, sizeof(p), "class/misc/kcsraw%u/bmc", index);
	read_word(root, p, h->kcsraw_bmc, sizeof(h->kcsraw_bmc));
	if (h->kcsraw_bmc[0] != '\0' && strcmp(h->kcsraw_bmc, "up") != 0)
		h->bmc_up = false;
	snprintf(p, sizeof(p), "%s/class/ipmi", root);
	if (stocknode_find(p, index, h->stock_device, sizeof(h->stock_device)) <
	    0)
		h->stock_device[0] = '\0';
}
