/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config_priv.h - what kcsmux.conf's reader shares: config_read.c (lines,
 * sections), config_keys.c (each key), config_resolve.c (defaults, and
 * the keys resolved at the end of the file) and config_errors.c.
 */
#ifndef KCSMUX_CONFIG_PRIV_H
#define KCSMUX_CONFIG_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "util/array.h"

/* Node keys given, and where, until the end of the file. */
struct nodestate {
	struct kcsmux_policy explicit; /* policy keys as given */
	uint32_t pset;		       /* policy_key_index() bits */
	int plines[32];
	uint32_t kset; /* node_keys[] bits */
	int klines[24];
	bool has_allow;
	bool has_admin_access; /* a valid admin_access line */
	enum kcsmux_access_preset admin_preset;
};

enum section { SEC_NONE, SEC_GLOBAL, SEC_NODE, SEC_SKIP };

struct parser {
	const char *name; /* the file, in messages */
	struct kcsmux_config *cfg;

	FILE *f; /* the source: f, or s */
	const char *s;
	char *buf;
	size_t cap;
	int line;	     /* of the last real line read */
	bool header_pending; /* next: the sentinel */
	size_t header_len;   /* of its name, between [ and ] */
	bool in_sentinel;    /* inih is processing the sentinel */
	bool expect_call;    /* a key line: the handler must run */
	bool called;

	enum section sec;
	struct nodestate *ns; /* parallel to cfg->nodes */
	int global_line;
	uint32_t gset; /* global_keys[] bits */
	int glines[16];

	bool names_offline; /* config_load_offline(): unknown names warn */

	struct error *errs; /* sorted by line at the end */
	size_t nerr;
	bool oom; /* an error could not be recorded */
};

/* node_keys[] (config_keys.c) bits the resolution asks about. */
enum {
	NK_ACCESS = 4,
	NK_EVENTS = 7,
	NK_MAX_OUTSTANDING = 8,
	NK_MAX_CLIENTS = 9,
	NK_COMMANDS = 10,
	NK_INTERFACE = 11,
	NK_COALESCE = 13,
	NK_COALESCE_WINDOW = 14,
	NK_ADMIN_USERS = 17,
	NK_ADMIN_GROUPS = 18,
	NK_ADMIN_ACCESS = 19
};

/* config_errors.c */

/* Record an error at LINE (0: about the whole file). */
void config_error(struct parser *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Report a cause from policy.c or a setter at LINE, and free it. */
void config_error_cause(struct parser *p, int line, char *cause);
/* A setter's 1: a user or group name this host does not know (CAUSE):
 * an error, or with names_offline a warning in cfg->warnings. */
void config_name_unknown(struct parser *p, char *cause);
/* "FILE:LINE: text" lines in line order (malloc'd), and free the
 * errors. */
char *config_error_text(struct parser *p);

/* config_keys.c */

/* KEY = V in the [global] section, in the current [node NAME] section. */
void config_global_key(struct parser *p, const char *key, const char *v);
void config_node_key(struct parser *p, const char *key, const char *v);

/* config_resolve.c */

/* *CFG zeroed, then the [global] defaults. */
void config_defaults(struct kcsmux_config *cfg);
/* At the end of the file: each node resolved, and the checks across keys
 * and nodes. */
void config_finish(struct parser *p);

#endif /* KCSMUX_CONFIG_PRIV_H */
