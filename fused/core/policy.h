/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - what one kcsmuxd node may cost and may do.
 *
 * A policy is a node's latency-versus-CPU trade-off (how the poller waits
 * for the BMC) plus its share of the interface (priority, weight, rate,
 * queue bound): its presets and keys, filled from kcsmux.conf by config_keys.c
 * and changed live by kcsmuxctl through the same key = value parsers, and
 * those value parsers. What the node's clients may send is access.h's.
 * docs/man/kcsmux.conf.5 documents every key, range and preset.
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
 * Value parsers shared with config_keys.c. Messages name KEY and say what was
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

#endif /* KCSMUX_POLICY_H */
