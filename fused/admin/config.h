/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - kcsmuxd's configuration: kcsmux.conf, an INI file read with
 * libinih. docs/man/kcsmux.conf.5 is the reference for every key.
 */
#ifndef KCSMUX_CONFIG_H
#define KCSMUX_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/policy.h"

#define KCSMUX_CONF_PATH	"/etc/kcsmux/kcsmux.conf"
#define KCSMUX_NAME_MAX		31	/* node name, [A-Za-z0-9_.-] */

enum kcsmux_backend {
	KCSMUX_BACKEND_KCSRAW,		/* kcsraw.ko's /dev/kcsrawN */
	KCSMUX_BACKEND_IPMIDEV,		/* a stock ipmi_devintf /dev/ipmiN */
};

/* seccomp = ...: the system call filter of sandbox.c. */
enum kcsmux_seccomp {
	KCSMUX_SECCOMP_NO,		/* no filter (the default) */
	KCSMUX_SECCOMP_YES,		/* a call off the list kills the daemon */
	KCSMUX_SECCOMP_LOG,		/* ... is logged by the kernel, and runs */
};

struct kcsmux_node_conf {
	char name[KCSMUX_NAME_MAX + 1];	/* the device is /dev/NAME */
	uid_t uid;
	gid_t gid;
	mode_t mode;			/* permission bits only */
	enum kcsmux_preset preset;	/* the policy key, or normal */
	struct kcsmux_policy pol;	/* preset + explicit keys */
	struct kcsmux_access acc;
	bool events;			/* clients may receive async events */
	bool commands;			/* clients may register for commands */
	uint32_t max_outstanding;	/* per open file (global default) */
	uint32_t max_clients;		/* open files of this node (global) */
	int interface;			/* /dev/ipmi/N, /dev/ipmidev/N; -1 none */
	bool sdr_cache;			/* SDR/FRU reads from memory (sdrcache) */
	int line;			/* of the [node NAME] header */
};

struct kcsmux_config {
	enum kcsmux_backend backend;
	char *device;			/* default by backend */
	char *control_socket;
	char *admin_group;		/* NULL: root only */
	gid_t admin_gid;
	uint32_t max_outstanding;
	uint32_t max_clients;
	uint32_t event_backlog;
	int log_level;			/* LOG_ERR .. LOG_DEBUG */
	char *user;			/* NULL: keep running as root */
	uid_t user_uid;
	gid_t user_gid;			/* the user's primary group */
	char *metrics_listen;		/* "HOST:PORT" or NULL: off */
	char *metrics_textfile;		/* NULL: off */
	enum kcsmux_seccomp seccomp;
	uint32_t sdr_cache_revalidate_ms;	/* Get SDR Repository Info age */
	struct kcsmux_node_conf *nodes;
	size_t nnodes;
};

/*
 * Read a configuration. 0 on success; -1 with *cfg zeroed and *cause a
 * malloc'd message holding one "FILE:LINE: text" line for every error found
 * (joined by newlines), so that kcsmuxd -n reports them all at once.
 * config_load_string() reads TEXT and calls it NAME in messages.
 */
int config_load(struct kcsmux_config *cfg, const char *path, char **cause);
int config_load_string(struct kcsmux_config *cfg, const char *text,
    const char *name, char **cause);
void config_free(struct kcsmux_config *cfg);

const struct kcsmux_node_conf *config_find_node(
    const struct kcsmux_config *cfg, const char *name);
const char *config_backend_name(enum kcsmux_backend);
const char *config_log_level_name(int level);
/* yes/no/log (and the other booleans) for the seccomp key and kcsmuxd -S;
 * -1 with *cause naming KEY. */
int config_seccomp_parse(const char *key, const char *v,
    enum kcsmux_seccomp *out, char **cause);
const char *config_seccomp_name(enum kcsmux_seccomp);

#endif /* KCSMUX_CONFIG_H */
