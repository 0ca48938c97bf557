// SPDX-License-Identifier: GPL-2.0
/*
 * lease.c - leases on classes of commands (lease.h, docs/leases.md).
 * A lease past its deadline is as good as free: nothing has to run at the
 * deadline, lease_check() and lease_take() compare it with now.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/lease.h"

unsigned int lease_classes(uint8_t netfn, uint8_t cmd)
{
	netfn &= 0x3e; /* requests and their responses alike */
	switch (netfn) {
	case 0x00: /* chassis: control, identify, power policy, boot, ... */
		return cmd == 0x02 || cmd == 0x04 || cmd == 0x05 ||
				       cmd == 0x06 || cmd == 0x08 ||
				       cmd == 0x0a || cmd == 0x0b ||
				       cmd == 0x0f ?
			       LEASE_CHASSIS :
			       0;
	case 0x06: /* users and channel access */
		return cmd == 0x40 || cmd == 0x43 || cmd == 0x45 ||
				       cmd == 0x47 || cmd == 0x4c ||
				       cmd == 0x50 ?
			       LEASE_USERS :
			       0;
	case 0x0c: /* transport: LAN, serial, SOL configuration */
		return cmd == 0x01 || cmd == 0x10 || cmd == 0x21 ? LEASE_LAN :
								   0;
	case 0x2c: /* group extension (DCMI power limits, ...) */
	case 0x2e: /* OEM group */
		return LEASE_FAN_OEM;
	default: /* OEM 30-3f: write-only fan commands and the like */
		return netfn >= 0x30 ? LEASE_FAN_OEM : 0;
	}
}

const char *lease_class_name(unsigned int class_bit)
{
	static const char *const names[LEASE_NCLASSES] = { "chassis", "fan-oem",
							   "users", "lan",
							   "firmware" };

	for (unsigned int i = 0; i < LEASE_NCLASSES; i++)
		if (class_bit == 1u << i)
			return names[i];
	return NULL;
}

int lease_classes_parse(const char *s, unsigned int *mask, const char **bad)
{
	unsigned int m = 0, i;
	size_t len;

	for (;;) {
		s += strspn(s, ", \t");
		if (*s == '\0')
			break;
		len = strcspn(s, ", \t");
		for (i = 0; i < LEASE_NCLASSES; i++)
			if (strlen(lease_class_name(1u << i)) == len &&
			    strncmp(s, lease_class_name(1u << i), len) == 0)
				break;
		if (i == LEASE_NCLASSES) {
			if (bad)
				*bad = s;
			return -EINVAL;
		}
		m |= 1u << i;
		s += len;
	}
	if (!m) {
		if (bad)
			*bad = s;
		return -EINVAL;
	}
	*mask = m;
	return 0;
}

static bool held(const struct lease *l, uint64_t now_ns)
{
	return l->holder != NULL && now_ns < l->until_ns;
}

int lease_take(struct lease_table *t, const void *holder, unsigned int mask,
	       uint64_t duration_ns, uint64_t now_ns)
{
	unsigned int i;

	if (!holder || !mask || (mask & ~LEASE_ALL) || !duration_ns)
		return -EINVAL;
	if (duration_ns > LEASE_MAX_NS)
		duration_ns = LEASE_MAX_NS;
	for (i = 0; i < LEASE_NCLASSES; i++)
		if ((mask & 1u << i) && held(&t->l[i], now_ns) &&
		    t->l[i].holder != holder)
			return -EBUSY;
	for (i = 0; i < LEASE_NCLASSES; i++)
		if (mask & 1u << i)
			t->l[i] =
				(struct lease){ holder, now_ns + duration_ns };
	return 0;
}

unsigned int lease_release(struct lease_table *t, const void *holder,
			   unsigned int mask)
{
	unsigned int i, n = 0;

	for (i = 0; i < LEASE_NCLASSES; i++)
		if ((mask & 1u << i) && holder && t->l[i].holder == holder) {
			t->l[i] = (struct lease){ 0 };
			n++;
		}
	return n;
}

unsigned int lease_holder_gone(struct lease_table *t, const void *holder)
{
	return lease_release(t, holder, LEASE_ALL);
}

const struct lease *lease_check(const struct lease_table *t, const void *sender,
				uint8_t netfn, uint8_t cmd, uint64_t now_ns,
				unsigned int *class_bit)
{
	unsigned int mask = lease_classes(netfn, cmd) | LEASE_FIRMWARE;
	const struct lease *l;

	for (unsigned int i = 0; i < LEASE_NCLASSES; i++) {
		l = &t->l[i];
		if (!(mask & 1u << i) || !held(l, now_ns) ||
		    l->holder == sender)
			continue;
		if (class_bit)
			*class_bit = 1u << i;
		return l;
	}
	return NULL;
}
