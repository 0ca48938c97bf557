// SPDX-License-Identifier: GPL-2.0
/*
 * cmdreg.c - IPMICTL_(UN)REGISTER_FOR_CMD(_CHANS): which client receives
 * the commands the BMC forwards to the host. Registrations are per
 * interface, as in the stock driver: the same (netfn, cmd, channel) taken
 * by another open file, on any node, is -EBUSY; removing what this file
 * does not hold is -ENOENT.
 *
 * Unlike the stock driver, which takes any number of them, they are
 * bounded: only nodes with "commands" (kcsmux.conf(5)) may register
 * (-EPERM), an empty channel mask registers nothing and is -EINVAL, and
 * one file holds at most CMDREG_MAX_PER_FILE entries (-ENOMEM). Entries
 * hang off a table indexed by (netfn, cmd); the masks of one slot's entries
 * are disjoint, so a lookup walks at most 32 of them.
 */
#include <errno.h>
#include <stdlib.h>

#include "kcsmuxd.h"

struct cmdreg {
	LIST_ENTRY(cmdreg) link;
	struct client *c;
	uint8_t netfn, cmd;
	uint32_t chans;
};

LIST_HEAD(cmdreg_list, cmdreg);

/* netfn is 6 bits (abi_decode_cmdspec masks it), cmd 8 */
static struct cmdreg_list regs[64 * 256];

static struct cmdreg_list *slot(uint8_t netfn, uint8_t cmd)
{
	return &regs[(netfn & 63u) << 8 | cmd];
}

static struct cmdreg *find(uint8_t netfn, uint8_t cmd, uint32_t chans)
{
	struct cmdreg *r;

	LIST_FOREACH(r, slot(netfn, cmd), link)
		if (r->netfn == netfn && r->cmd == cmd && (r->chans & chans))
			return r;
	return NULL;
}

int cmdreg_ioctl(struct client *c, const struct abi_ioctl *ent,
		 const void *in, size_t in_len)
{
	struct abi_cmdspec cs;
	struct cmdreg *r;
	bool chans = ent->op == ABI_REGISTER_FOR_CMD_CHANS ||
		     ent->op == ABI_UNREGISTER_FOR_CMD_CHANS;
	int rv;

	rv = chans ? abi_decode_cmdspec_chans(in, in_len, &cs) :
		     abi_decode_cmdspec(in, in_len, &cs);
	if (rv)
		return rv;
	if (ent->op == ABI_REGISTER_FOR_CMD ||
	    ent->op == ABI_REGISTER_FOR_CMD_CHANS) {
		if (!c->node->conf.commands)
			return -EPERM;
		if (!cs.chans)
			return -EINVAL;
		if (find(cs.netfn, cs.cmd, cs.chans))
			return -EBUSY;
		if (c->nregs >= CMDREG_MAX_PER_FILE)
			return -ENOMEM;
		r = calloc(1, sizeof(*r));
		if (!r)
			return -ENOMEM;
		r->c = c;
		r->netfn = cs.netfn;
		r->cmd = cs.cmd;
		r->chans = cs.chans;
		LIST_INSERT_HEAD(slot(cs.netfn, cs.cmd), r, link);
		c->nregs++;
		return 0;
	}
	/* Unregister: every channel asked for must be this file's. */
	LIST_FOREACH(r, slot(cs.netfn, cs.cmd), link)
		if (r->c == c && r->netfn == cs.netfn && r->cmd == cs.cmd &&
		    (r->chans & cs.chans) == cs.chans)
			break;
	if (!r || !cs.chans)
		return -ENOENT;
	r->chans &= ~cs.chans;
	if (!r->chans) {
		LIST_REMOVE(r, link);
		free(r);
		c->nregs--;
	}
	return 0;
}

struct client *cmdreg_lookup(uint8_t netfn, uint8_t cmd, unsigned int chan)
{
	struct cmdreg *r = find(netfn, cmd, 1u << (chan & 31));

	return r ? r->c : NULL;
}

void cmdreg_client_gone(struct client *c)
{
	struct cmdreg *r, *tmp;
	size_t i;

	/* Walks the table only for a file that registered something. */
	for (i = 0; c->nregs && i < sizeof(regs) / sizeof(regs[0]); i++) {
		for (r = LIST_FIRST(&regs[i]); r; r = tmp) {
			tmp = LIST_NEXT(r, link);
			if (r->c == c) {
				LIST_REMOVE(r, link);
				free(r);
				c->nregs--;
			}
		}
	}
}
