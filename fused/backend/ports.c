// SPDX-License-Identifier: GPL-2.0
/*
 * ports.c - why /dev/kcsraw0 is missing: on a server where ipmi_si bound
 * the KCS interface at boot, kcsraw.ko cannot take its ports and does not
 * load, and only dmesg says why. /proc/ioports names the holder, so the
 * daemon's error (and the unit's failure) can say it and what to run.
 */
#include <stdio.h>
#include <string.h>

#include "util/error.h"
#include "backend/backend.h"

int backend_ports_holder(FILE *ioports, char *buf, size_t len)
{
	char line[256], *sep, *owner, *nl, *range;

	while (fgets(line, sizeof(line), ioports) != NULL) {
		if ((sep = strstr(line, " : ")) == NULL)
			continue;
		owner = sep + 3;
		if ((nl = strchr(owner, '\n')) != NULL)
			*nl = '\0';
		if (strncmp(owner, "ipmi", 4) != 0)
			continue;
		*sep = '\0';
		for (range = line; *range == ' '; range++)
			;
		snprintf(buf, len, "%s holds the I/O ports %s", owner, range);
		return 1;
	}
	return 0;
}

void backend_kcsraw_missing(const char *path, int err, char **cause)
{
	char holder[128];
	FILE *f = fopen("/proc/ioports", "re");
	int held = f != NULL && backend_ports_holder(f, holder, sizeof(holder));

	if (f != NULL)
		fclose(f);
	if (held)
		error_set(cause,
			  "%s: %s: %s (/proc/ioports), so kcsraw.ko could "
			  "not take the KCS interface; hand it over with "
			  "`kcsmux-cutover check` then `kcsmux-cutover apply` "
			  "(docs/admin.md, Cutover), or set backend = ipmidev "
			  "to run on the stock driver",
			  path, strerror(err), holder);
	else
		error_set(cause,
			  "%s: %s (is kcsraw.ko loaded? `modprobe kcsraw`; "
			  "dmesg says why it did not bind)",
			  path, strerror(err));
}
