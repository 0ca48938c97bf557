// SPDX-License-Identifier: GPL-2.0
/*
 * stocknode.c - which /dev/ipmiM is kcsraw's own interface: kcsraw.ko
 * (smi=1) registers each interface with ipmi_msghandler on a platform
 * device "kcsraw.N" (N of /dev/kcsrawN); ipmi_devintf makes the
 * interface's node with that device as its parent, so
 * /sys/class/ipmi/ipmiM/device names it. Matching the sysfs link, not the
 * BMC's Device ID or GUID, tells two interfaces to the same BMC apart and
 * needs no request.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/stocknode.h"

int stocknode_find(const char *class_dir, unsigned int index, char *buf,
		   size_t len)
{
	char link[PATH_MAX], target[PATH_MAX], want[32];
	const char *base;
	struct dirent *e;
	DIR *dir = opendir(class_dir);
	ssize_t n;
	int rv = -ENOENT;

	if (!dir)
		return -ENOENT;
	snprintf(want, sizeof(want), "kcsraw.%u", index);
	while (rv && (e = readdir(dir))) {
		if (strncmp(e->d_name, "ipmi", 4) != 0)
			continue;
		snprintf(link, sizeof(link), "%s/%s/device", class_dir,
			 e->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		base = strrchr(target, '/');
		base = base ? base + 1 : target;
		if (strcmp(base, want) == 0 &&
		    (size_t)snprintf(buf, len, "/dev/%s", e->d_name) < len)
			rv = 0;
	}
	closedir(dir);
	return rv;
}

int stocknode_kcsraw_index(const char *path, unsigned int *index)
{
	const char *base = strrchr(path, '/');
	unsigned long v;
	char *end;

	base = base ? base + 1 : path;
	if (strncmp(base, "kcsraw", 6) != 0 || base[6] < '0' || base[6] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(base + 6, &end, 10);
	if (errno || *end != '\0' || v > 255)
		return -EINVAL;
	*index = (unsigned int)v;
	return 0;
}
