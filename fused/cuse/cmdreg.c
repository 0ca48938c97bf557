// SPDX-License-Identifier: GPL-2.0
/*
 * cmdreg.c - IPMICTL_(UN)REGISTER_FOR_CMD(_CHANS): which client receives
 * the commands the BMC forwards to the host. Registrations are per
 * interface and per channel, as in the stock message handler
 * (ipmi_register_for_cmd / ipmi_unregister_for_cmd):
 *  - register: -EBUSY if any registration (of any open file, on any node)
 *    has the same netfn and cmd and shares a channel bit with the mask;
 *    otherwise a new registration with exactly that mask (the same file
 *    may hold the same netfn/cmd on other channels: separate entries).
 *  - unregister: for each channel 0-15 in the mask, the registration that
 *    covers that channel, if it is this file's, loses every bit of the
 *    mask (and goes away when none is left); 0 if at least one did, else
 *    -ENOENT. So one mask can remove several registrations, and mask bits
 *    16-31 only count together with a channel 0-15 that matched.
 *
 * Unlike the stock driver, which takes any number of them, they are
 * bounded: only nodes with "commands" (kcsmux.conf(5)) may register
 * (-EPERM), an empty channel mask registers nothing and is -EINVAL, and
 * one file holds at most CMDREG_MAX_PER_FILE entries (-ENOMEM). Entries
 * hang off a table indexed by (netfn, cmd), the daemon's (d->fe->cmdreg);
 * the masks of one slot's entries are disjoint, so a lookup walks at most
 * 32 of them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cuse/cuse.h"
#include "util/log.h"

struct cmdreg {
	LIST_ENTRY(cmdreg) link;
	struct client *c;
	uint8_t netfn, cmd;
	uint32_t chans;
};

LIST_HEAD(cmdreg_list, cmdreg);

struct cmdreg_table {
	/* netfn is 6 bits (abi_decode_cmdspec masks it), cmd 8 */
	struct cmdreg_list regs[64 * 256];
	size_t nregs_all; /* entries in the table, for cmdreg_any() */
};

int cmdreg_init(struct daemon *d)
{
	d->fe->cmdreg = calloc(1, sizeof(*d->fe->cmdreg));
	return d->fe->cmdreg ? 0 : -1;
}

void cmdreg_fini(struct daemon *d)
{
	struct cmdreg_table *t = d->fe->cmdreg;
	struct cmdreg *r;

	for (size_t i = 0; t && i < sizeof(t->regs) / sizeof(t->regs[0]); i++)
		while ((r = LIST_FIRST(&t->regs[i]))) {
			LIST_REMOVE(r, link);
			free(r);
		}
	free(t);
	d->fe->cmdreg = NULL;
}

static struct cmdreg_list *slot(struct cmdreg_table *t, uint8_t netfn,
				uint8_t cmd)
{
	return &t->regs[(netfn & 63u) << 8 | cmd];
}

static struct cmdreg *find(struct cmdreg_table *t, uint8_t netfn, uint8_t cmd,
			   uint32_t chans)
{
	struct cmdreg *r;

	LIST_FOREACH (r, slot(t, netfn, cmd), link)
		if (r->netfn == netfn && r->cmd == cmd && (r->chans & chans))
			return r;
	return NULL;
}

/*
 * A backend whose driver receives the commands (kcsraw in SMI mode: the
 * kernel's message handler) holds the same registrations, all on its one
 * file: the table here keeps them disjoint, and an end forwards exactly
 * the channels this file's entries lost.
 */
static int forward(struct client *c, const struct abi_cmdspec *cs,
		   uint32_t chans, bool on)
{
	struct backend *be = c->node->d->be;
	int rv;

	/* Only channels 0-15 go down: the kernel's unregister looks at no
	 * other bit, so a registration of bit 16 up would outlive the file
	 * on the daemon's one kernel user (here the table keeps the whole
	 * mask, for the exclusivity stock checks on it). */
	chans &= (1u << ABI_MAX_CHANNELS) - 1;
	if (!be || !be->ops->cmd_register || !chans)
		return 0;
	rv = be->ops->cmd_register(be, cs->netfn, cs->cmd, chans, on);
	/* the table and the kernel's disagree: worth a line */
	if (rv < 0)
		log_warn("node %s: the kernel refused to %sregister %02x/%02x "
			 "channels %#x: %s",
			 c->node->conf.name, on ? "" : "un", cs->netfn, cs->cmd,
			 chans, strerror(-rv));
	return rv;
}

int cmdreg_ioctl(struct client *c, const struct abi_ioctl *ent, const void *in,
		 size_t in_len)
{
	struct cmdreg_table *t = c->node->d->fe->cmdreg;
	struct abi_cmdspec cs;
	struct cmdreg *r;
	bool chans = ent->op == ABI_REGISTER_FOR_CMD_CHANS ||
		     ent->op == ABI_UNREGISTER_FOR_CMD_CHANS;
	uint32_t gone = 0;
	int rv;

	rv = chans ? abi_decode_cmdspec_chans(in, in_len, &cs) :
		     abi_decode_cmdspec(in, in_len, &cs);
	if (rv)
		return rv;
	if (ent->op == ABI_REGISTER_FOR_CMD ||
	    ent->op == ABI_REGISTER_FOR_CMD_CHANS) {
		if (!c->node->conf.commands)
			return -EPERM;
		if (!cs.chans) /* as stock: 0, and nothing matches it */
			return 0;
		if (find(t, cs.netfn, cs.cmd, cs.chans))
			return -EBUSY;
		if (c->nregs >= CMDREG_MAX_PER_FILE)
			return -ENOMEM;
		rv = forward(c, &cs, cs.chans, true);
		if (rv < 0)
			return rv;
		r = calloc(1, sizeof(*r));
		if (!r) {
			forward(c, &cs, cs.chans, false);
			return -ENOMEM;
		}
		r->c = c;
		r->netfn = cs.netfn;
		r->cmd = cs.cmd;
		r->chans = cs.chans;
		LIST_INSERT_HEAD(slot(t, cs.netfn, cs.cmd), r, link);
		c->nregs++;
		t->nregs_all++;
		return 0;
	}
	rv = -ENOENT;
	for (unsigned int ch = 0; ch < ABI_MAX_CHANNELS; ch++) {
		if (!(cs.chans & (1u << ch)))
			continue;
		r = find(t, cs.netfn, cs.cmd, 1u << ch);
		if (!r || r->c != c)
			continue;
		rv = 0;
		gone |= r->chans & cs.chans;
		r->chans &= ~cs.chans;
		if (!r->chans) {
			LIST_REMOVE(r, link);
			free(r);
			c->nregs--;
			t->nregs_all--;
		}
	}
	if (gone)
		forward(c, &cs, gone, false);
	return rv;
}

struct client *cmdreg_lookup(struct daemon *d, uint8_t netfn, uint8_t cmd,
			     unsigned int chan)
{
	struct cmdreg *r = find(d->fe->cmdreg, netfn, cmd, 1u << (chan & 31));

	return r ? r->c : NULL;
}

bool cmdreg_any(struct daemon *d)
{
	return d->fe->cmdreg->nregs_all != 0;
}

void cmdreg_client_gone(struct client *c)
{
	struct cmdreg_table *t = c->node->d->fe->cmdreg;
	struct cmdreg *r, *tmp;
	size_t i;

	/* Walks the table only for a file that registered something. */
	for (i = 0; c->nregs && i < sizeof(t->regs) / sizeof(t->regs[0]); i++) {
		for (r = LIST_FIRST(&t->regs[i]); r; r = tmp) {
			tmp = LIST_NEXT(r, link);
			if (r->c == c) {
				forward(c,
					&(struct abi_cmdspec){ .netfn =
								       r->netfn,
							       .cmd = r->cmd },
					r->chans, false);
				LIST_REMOVE(r, link);
				free(r);
				c->nregs--;
				t->nregs_all--;
			}
		}
	}
}

unsigned int cmdreg_list(const struct client *c, struct cmdreg_ent *out,
			 unsigned int max)
{
	const struct cmdreg_table *t = c->node->d->fe->cmdreg;
	const struct cmdreg *r;
	unsigned int k = 0;

	for (size_t i = 0; c->nregs && i < sizeof(t->regs) / sizeof(t->regs[0]);
	     i++)
		LIST_FOREACH (r, &t->regs[i], link) {
			if (r->c != c)
				continue;
			if (k < max)
				out[k] = (struct cmdreg_ent){ r->netfn, r->cmd,
							      r->chans };
			k++;
		}
	return k;
}

int cmdreg_restore(struct client *c, const struct cmdreg_ent *e)
{
	struct cmdreg_table *t = c->node->d->fe->cmdreg;
	struct abi_cmdspec cs = { .netfn = e->netfn & 63u, .cmd = e->cmd };
	struct cmdreg *r;

	if (!c->node->conf.commands) /* no longer allowed here */
		return -EPERM;
	if (!e->chans || find(t, cs.netfn, cs.cmd, e->chans))
		return -EBUSY;
	if (c->nregs >= CMDREG_MAX_PER_FILE)
		return -ENOMEM;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* the kernel's (SMI mode) went with the old process's file */
	(void)forward(c, &cs, e->chans, true);
	r->c = c;
	r->netfn = cs.netfn;
	r->cmd = cs.cmd;
	r->chans = e->chans;
	LIST_INSERT_HEAD(slot(t, cs.netfn, cs.cmd), r, link);
	c->nregs++;
	t->nregs_all++;
	return 0;
}
