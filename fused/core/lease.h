/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lease.h - leases on classes of commands (docs/leases.md): while a node
 * holds one, other nodes' commands of that class are refused at once;
 * reads go on. A lease ends when its holder releases it or at its
 * deadline, whichever comes first (a dead holder's ends by itself).
 *
 * Pure logic: no I/O, no clock (every call takes now_ns), no allocation;
 * a holder is an opaque pointer (a node). The daemon's table and the
 * request path are leasegate.c's.
 */
#ifndef KCSMUX_LEASE_H
#define KCSMUX_LEASE_H

#include <stdbool.h>
#include <stdint.h>

/* The classes, as bits of a mask. */
enum lease_class {
	LEASE_CHASSIS = 1u << 0, /* chassis control, boot options, power */
	LEASE_FAN_OEM = 1u << 1, /* OEM and group-extension commands */
	LEASE_USERS = 1u << 2,	 /* user accounts, passwords, channel access */
	LEASE_LAN = 1u << 3,	 /* LAN, SOL and serial configuration */
	LEASE_FIRMWARE = 1u << 4 /* exclusive: every command of others */
};
#define LEASE_NCLASSES 5
#define LEASE_ALL      ((1u << LEASE_NCLASSES) - 1)
/* The longest lease: a firmware update (ipmitool's hpm upgrade waits up
 * to 1275 s) and some margin. */
#define LEASE_MAX_NS (3600ULL * 1000000000ULL)

struct lease {
	const void *holder; /* NULL: free */
	uint64_t until_ns;
};

struct lease_table {
	struct lease l[LEASE_NCLASSES];
};

/* The classes NETFN:CMD writes to (0: a read, or a command no lease
 * covers; LEASE_FIRMWARE is never returned: it covers everything). */
unsigned int lease_classes(uint8_t netfn, uint8_t cmd);
/* The name of a class bit ("chassis", "fan-oem", "users", "lan",
 * "firmware"), or NULL. */
const char *lease_class_name(unsigned int class_bit);

/* "chassis,fan-oem" (commas or blanks) into *MASK: 0, or -EINVAL for an
 * empty list or an unknown name (*BAD: where). */
int lease_classes_parse(const char *s, unsigned int *mask, const char **bad);

/*
 * HOLDER takes the lease on every class in MASK for DURATION_NS (at most
 * LEASE_MAX_NS), or extends its own: 0, -EBUSY when another holder has
 * one of them unexpired (none taken then: all or nothing), -EINVAL for an
 * empty or unknown mask, a zero duration or a NULL holder.
 */
int lease_take(struct lease_table *t, const void *holder, unsigned int mask,
	       uint64_t duration_ns, uint64_t now_ns);
/* HOLDER gives up its leases in MASK; the number released. */
unsigned int lease_release(struct lease_table *t, const void *holder,
			   unsigned int mask);
/* Every lease of HOLDER goes (the node is removed). */
unsigned int lease_holder_gone(struct lease_table *t, const void *holder);

/*
 * May SENDER's NETFN:CMD go to the BMC at NOW? NULL: yes. Else the lease
 * that refuses it (its holder to name in the log, *CLASS_BIT its class):
 * an unexpired lease of another holder on a class the command writes to,
 * or a firmware lease of another holder (which refuses everything; the
 * caller may answer reads from caches instead).
 */
const struct lease *lease_check(const struct lease_table *t, const void *sender,
				uint8_t netfn, uint8_t cmd, uint64_t now_ns,
				unsigned int *class_bit);

#endif
