/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - what one kcsmuxd node may cost and may do.
 *
 * A policy is a node's latency-versus-CPU trade-off (how the poller waits
 * for the BMC) plus its share of the interface (priority, weight, rate,
 * queue bound). An access set is the (netfn, cmd) pairs its clients may
 * send. Both are filled from kcsmux.conf by config.c and changed live by
 * kcsmuxctl through the same key = value parsers. docs/man/kcsmux.conf.5
 * documents every key, range and preset.
 *
 * Errors are malloc'd strings returned through char **cause (which may be
 * NULL when the caller does not want them), in the manner of tmux.
 */
#ifndef KCSMUX_POLICY_H
#define KCSMUX_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* max_busy_us: spin until the transaction is done (= KCSRAW_UNLIMITED). */
#define KCSMUX_UNLIMITED UINT32_MAX

enum kcsmux_backoff {
	KCSMUX_BACKOFF_FIXED,	 /* every sleep lasts poll_us */
	KCSMUX_BACKOFF_EXP,	 /* poll_us doubling up to poll_max_us */
	KCSMUX_BACKOFF_ADAPTIVE, /* daemon tunes within poll_us..poll_max_us */
};

/* Strict priority classes: a lower value is always served first. */
enum kcsmux_prio {
	KCSMUX_PRIO_INTERACTIVE,
	KCSMUX_PRIO_NORMAL,
	KCSMUX_PRIO_BULK,
};

enum kcsmux_preset {
	KCSMUX_PRESET_NORMAL, /* a node without a policy key */
	KCSMUX_PRESET_INTERACTIVE,
	KCSMUX_PRESET_MONITOR,
	KCSMUX_PRESET_BULK,
};

struct kcsmux_policy {
	uint32_t max_busy_us; /* 0: never spin; KCSMUX_UNLIMITED */
	uint32_t poll_us;     /* first sleep, >= 1 */
	uint32_t poll_max_us; /* >= poll_us */
	enum kcsmux_backoff backoff;
	bool use_irq;		    /* sleep until the IRQ if there is one */
	uint32_t cpu_budget_ppm;    /* of one CPU; 0: no budget */
	uint32_t latency_target_us; /* 0: no target */
	enum kcsmux_prio prio;
	uint32_t weight;     /* 1..10000, share within the class */
	uint32_t rate_milli; /* requests/s x 1000; 0: unlimited */
	uint32_t burst;	     /* token bucket depth, requests */
	uint32_t queue;	     /* queued requests of the node */
};

/* The preset's values (a static table), or NULL for a bad enum value. */
const struct kcsmux_policy *policy_preset(enum kcsmux_preset);
const char *policy_preset_name(enum kcsmux_preset);
int policy_preset_lookup(const char *name, enum kcsmux_preset *, char **cause);

/*
 * Policy keys, in a fixed order: policy_key_name(i) for i = 0, 1, ... until
 * NULL. policy_key_index() is the inverse (-1: not a policy key); the index
 * is the bit used in policy_merge() masks. "policy" is not among them.
 */
const char *policy_key_name(size_t i);
int policy_key_index(const char *key);

/*
 * Parse VALUE for KEY into that one field of *pol; range checks only, the
 * combination is policy_check()'s business. KEY "policy" replaces the whole
 * policy with a preset. *pol is unchanged on error.
 */
int policy_set_key(struct kcsmux_policy *pol, const char *key,
		   const char *value, char **cause);
/* policy_set_key() + policy_check() on a copy; commits only if both pass. */
int policy_update(struct kcsmux_policy *pol, const char *key, const char *value,
		  char **cause);
/* KEY's value in config syntax, parseable again by policy_set_key(). */
int policy_get_key(const struct kcsmux_policy *pol, const char *key, char *buf,
		   size_t len);
/* Cross-field checks: poll_max_us >= poll_us. */
int policy_check(const struct kcsmux_policy *pol, char **cause);
/* Copy the fields whose policy_key_index() bit is set in MASK. */
void policy_merge(struct kcsmux_policy *dst, const struct kcsmux_policy *src,
		  uint32_t mask);
/*
 * The preset-then-keys rule (kcsmux.conf and kcsmuxctl set alike): *OUT =
 * *BASE (a preset's values, or the node's current policy) with the fields
 * of *KEYS whose policy_key_index() bits are in SET, wherever the preset
 * was given; then a poll_max_us not in SET gives way to a larger poll_us.
 * True when poll_max_us was raised so. policy_check() is the caller's.
 */
bool policy_resolve(struct kcsmux_policy *out, const struct kcsmux_policy *base,
		    const struct kcsmux_policy *keys, uint32_t set);

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
/* access_check() of a request a client sends to an IPMB address (channel
 * CHAN, broadcast, slave SA, LUN), including how the frame the daemon makes
 * of it may be read on the bus (policy.c). */
enum access_verdict access_check_ipmb(const struct kcsmux_access *acc,
				      uint8_t chan, bool bcast, uint8_t sa,
				      uint8_t lun, uint8_t my_sa, uint8_t netfn,
				      uint8_t cmd, const uint8_t *data,
				      size_t len, struct access_why *why);

/*
 * Value parsers shared with config.c. Messages name KEY and say what was
 * expected. value_u32: decimal. value_fixed: decimal with up to DECIMALS
 * fractional digits, scaled by 10^DECIMALS.
 */
int value_u32(const char *key, const char *v, uint32_t min, uint32_t max,
	      uint32_t *out, char **cause);
int value_fixed(const char *key, const char *v, unsigned decimals, uint32_t max,
		uint32_t *out, char **cause);
int value_bool(const char *key, const char *v, bool *out, char **cause);
/* Index of V in the NULL-terminated NAMES, or -1 with a cause. */
int value_enum(const char *key, const char *v, const char *const *names,
	       char **cause);
/* The candidate closest to WORD if it is a plausible typo, else NULL. */
const char *value_suggest(const char *word, const char *const *cands);
/* vasprintf into *cause (if cause is not NULL); returns -1. */
int value_error(char **cause, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* KCSMUX_POLICY_H */
