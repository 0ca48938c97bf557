/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stocknode.h - the stock /dev/ipmiN that ipmi_devintf makes on kcsraw's
 * own interface (SMI mode), shared by kcsmuxd (a node client's async path
 * with an older module, the warning at start) and kcsmuxctl status.
 */
#ifndef KCSMUX_UTIL_STOCKNODE_H
#define KCSMUX_UTIL_STOCKNODE_H

#include <stddef.h>

/* The class directory ipmi_devintf fills: /sys/class/ipmi. */
#define STOCKNODE_CLASS_DIR "/sys/class/ipmi"

/*
 * The stock node of kcsraw interface INDEX: the ipmiM under CLASS_DIR
 * whose device is the platform device kcsraw.INDEX, as "/dev/ipmiM" in
 * BUF; 0, or -ENOENT (none; also when CLASS_DIR is missing: ipmi_devintf
 * is not loaded).
 */
int stocknode_find(const char *class_dir, unsigned int index, char *buf,
		   size_t len);

/*
 * kcsraw's interface number in PATH, a kcsraw device ("/dev/kcsraw3": 3):
 * 0 and *INDEX, or -EINVAL when PATH names no kcsraw device.
 */
int stocknode_kcsraw_index(const char *path, unsigned int *index);

/* What a stock node on kcsraw's interface bypasses, for messages. */
#define STOCKNODE_BYPASSES                                                \
	"every node's access list, priority, rate limit, CPU budget and " \
	"accounting"

#endif /* KCSMUX_UTIL_STOCKNODE_H */
