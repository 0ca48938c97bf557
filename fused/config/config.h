/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - kcsmuxd's configuration: kcsmux.conf, an INI file read with
 * libinih into the structures of core/conf.h. docs/man/kcsmux.conf.5 is
 * the reference for every key.
 */
#ifndef KCSMUX_CONFIG_H
#define KCSMUX_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/conf.h"

/*
 * Read a configuration. 0 on success; -1 with *cfg zeroed and *cause a
 * malloc'd message holding one "FILE:LINE: text" line for every error found
 * (joined by newlines), so that kcsmuxd -n reports them all at once.
 * config_load_string() reads TEXT and calls it NAME in messages.
 */
int config_load(struct kcsmux_config *cfg, const char *path, char **cause);
int config_load_string(struct kcsmux_config *cfg, const char *text,
		       const char *name, char **cause);
/*
 * config_load() for another host (kcsmuxd -n, kcsmuxctl check -c): a user
 * or group name this host does not know (user, admin_group, owner,
 * group) is a warning in cfg->warnings, its id left -1, not an error: the
 * target host's package makes it, and the start still refuses it.
 */
int config_load_offline(struct kcsmux_config *cfg, const char *path,
			char **cause);
void config_free(struct kcsmux_config *cfg);

const struct kcsmux_node_conf *config_find_node(const struct kcsmux_config *cfg,
						const char *name);
const char *config_backend_name(enum kcsmux_backend);
const char *config_log_level_name(int level);
/* yes/no/log (and the other booleans) for the seccomp key and kcsmuxd -S;
 * -1 with *cause naming KEY. */
int config_seccomp_parse(const char *key, const char *v,
			 enum kcsmux_seccomp *out, char **cause);
const char *config_seccomp_name(enum kcsmux_seccomp);

#endif /* KCSMUX_CONFIG_H */
