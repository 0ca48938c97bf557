/* SPDX-License-Identifier: GPL-2.0 */
/*
 * access.h - what a node's clients may send: command sets (the (netfn,
 * cmd) pairs of the access keys), the access presets, and the checks of a
 * whole request against them (Send Message nesting, IPMB frames).
 * Filled from kcsmux.conf by config_keys.c and kcsmuxctl through the value
 * parsers of policy.h. Errors: char **cause (util/error.h).
 */
#ifndef KCSMUX_ACCESS_H
#define KCSMUX_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/ipmi_msg.h"

/*
 * A set of (netfn, cmd) request pairs: netfn 0x00..0x3f (6 bits), cmd
 * 0x00..0xff; and of group extension commands (netfn 2c) qualified by
 * their defining body, the request's first data byte (DCMI: dc). Plain
 * bitmaps: no allocation, O(1) lookup.
 */
#define KCSMUX_NETFNS	 64
#define KCSMUX_GX_NETFN	 0x2c /* group extension: data[0] is the body */
#define KCSMUX_BODY_DCMI 0xdc

struct kcsmux_cmdset {
	uint8_t bits[KCSMUX_NETFNS][256 / 8];
	uint8_t gx[256][256 / 8]; /* [body][cmd] of netfn 2c */
};

enum kcsmux_access_preset {
	KCSMUX_ACCESS_NONE,
	KCSMUX_ACCESS_READONLY,
	KCSMUX_ACCESS_SENSORS,
	KCSMUX_ACCESS_MONITORING,
	KCSMUX_ACCESS_ALL, /* last */
};

void cmdset_clear(struct kcsmux_cmdset *);
void cmdset_add(struct kcsmux_cmdset *, uint8_t netfn, uint8_t cmd);
bool cmdset_has(const struct kcsmux_cmdset *, uint8_t netfn, uint8_t cmd);
bool cmdset_empty(const struct kcsmux_cmdset *);
/* Group extension command CMD of defining body BODY (netfn 2c). */
void cmdset_add_gx(struct kcsmux_cmdset *, uint8_t body, uint8_t cmd);
bool cmdset_has_gx(const struct kcsmux_cmdset *, uint8_t body, uint8_t cmd);
/*
 * Add a list "ITEM[, ITEM...]" with ITEM = NETFN[:CMD][/BODY]; NETFN, CMD
 * and BODY are hex (0x optional), a LO-HI range or '*'; NETFN may also be a
 * name (app, chassis, sensor, storage, transport, ...; dcmi, picmg, asf,
 * ssi and vita name netfn 2c with their defining body). A missing CMD
 * means all. BODY (only with netfn 2c) limits the item to requests whose
 * first data byte is BODY. On error *set is unchanged.
 */
int cmdset_parse(struct kcsmux_cmdset *set, const char *list, char **cause);
/* "0x06:0x01-0x02, 0x0a:*" style text (malloc'd; NULL if out of memory),
 * "*" when full, "" when empty. */
char *cmdset_format(const struct kcsmux_cmdset *);

/*
 * What a node's clients may send: (preset's pairs + allow) - deny, so a
 * deny always wins whatever the order of the lines. Request netfns are
 * even; the daemon checks Send Message (06:34) on the bridged inner request.
 * A group extension request (netfn 2c) with a body byte passes where its
 * (body, cmd) is in eff.gx and not denied there, whatever the plain pairs
 * say; otherwise the plain (2c, cmd) pair decides, as an opaque tunnel.
 */
struct kcsmux_access {
	enum kcsmux_access_preset preset;
	struct kcsmux_cmdset allow; /* added to the preset */
	struct kcsmux_cmdset deny;
	struct kcsmux_cmdset eff; /* the result, what access_allows() reads */
	/* Tunnel commands an allow line names explicitly (access_parse_allow) */
	struct kcsmux_cmdset tunnels;
	bool eff_full; /* eff is every pair: nothing to bypass */
};

const char *access_preset_name(enum kcsmux_access_preset);
int access_preset_lookup(const char *name, enum kcsmux_access_preset *,
			 char **cause);
void access_preset_set(enum kcsmux_access_preset, struct kcsmux_cmdset *);
/* Recompute acc->eff from preset, allow and deny. */
void access_build(struct kcsmux_access *acc);
bool access_allows(const struct kcsmux_access *acc, uint8_t netfn, uint8_t cmd);
/* cmdset_parse() into acc->allow, noting explicit tunnel grants. */
int access_parse_allow(struct kcsmux_access *acc, const char *list,
		       char **cause);

/*
 * The node's admins: rules that allow a BMC reset (Cold Reset 06:02 or
 * Warm Reset 06:03; by default only access = all). They may set the
 * daemon-wide maintenance mode and give bridged requests the longest
 * retries (seqtab.h); other nodes may not.
 */
bool access_is_admin(const struct kcsmux_access *acc);

/*
 * Commands whose payload the daemon cannot inspect (Get Message 06:33,
 * Master Write-Read 06:52, netfn 02 bridge, group extension 2c, OEM group
 * 2e, OEM 30-3f): allowed only where the effective set is every command, or
 * where an allow line names them explicitly (a NETFN that is not '*' and,
 * for 06:33 and 06:52, a CMD that is not '*' or missing).
 */
bool access_is_tunnel(uint8_t netfn, uint8_t cmd);

/* Send Message levels a client's request may hold (the daemon's own wrap
 * of an IPMB-addressed request not counted): one, i.e. double bridging. */
#define KCSMUX_MAX_NESTING 1

enum access_verdict {
	ACCESS_OK,
	ACCESS_DENIED,	  /* a command, at some level, not allowed */
	ACCESS_TUNNEL,	  /* an opaque tunnel not explicitly allowed */
	ACCESS_TOO_DEEP,  /* Send Message nested past KCSMUX_MAX_NESTING */
	ACCESS_MALFORMED, /* a Send Message whose request cannot be read */
};

/* What access_check() refused: the offending level and command. */
struct access_why {
	unsigned depth; /* 0: the client's own (netfn, cmd) */
	uint8_t netfn, cmd;
};

/*
 * The whole request a client sends, (netfn, cmd) with DATA: the command and,
 * for Send Message (06:34), every request nested in it, read as an IPMB
 * frame and, where the channel is not the primary IPMB (0) or the frame
 * starts with the broadcast byte 00, also as the LAN/broadcast layout one
 * byte further on; every reading must be allowed.
 */
enum access_verdict access_check(const struct kcsmux_access *acc, uint8_t netfn,
				 uint8_t cmd, const uint8_t *data, size_t len,
				 struct access_why *why);
const char *access_verdict_name(enum access_verdict);
/* Which rule decided V for WHY's command, for people: "access = readonly
 * (no allow line)", "a deny line", "an allow line", "access = all", or
 * the tunnel/nesting verdict; ", inside Send Message" when nested. */
void access_rule_desc(const struct kcsmux_access *acc, enum access_verdict v,
		      const struct access_why *why, char *buf, size_t len);
/* access_check() of a request a client sends to an IPMB or IPMB
 * broadcast address (rq's channel, slave address and LUN), including how
 * the frame the daemon makes of it, from MY_SA, may be read on the bus
 * (policy.c). */
enum access_verdict access_check_ipmb(const struct kcsmux_access *acc,
				      const struct ipmi_request *rq,
				      uint8_t my_sa, struct access_why *why);

#endif /* KCSMUX_ACCESS_H */
