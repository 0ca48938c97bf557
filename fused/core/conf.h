/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conf.h - what kcsmuxd is configured with, in the form the layers read it
 * (the daemon's d->cfg, a node's n->conf). config/config_read.c makes it from
 * kcsmux.conf (config/config.h); docs/man/kcsmux.conf.5 is the reference
 * for every key.
 */
#ifndef KCSMUX_CONF_H
#define KCSMUX_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/access.h"
#include "core/opener.h"
#include "core/policy.h"

#define KCSMUX_CONF_PATH "/etc/kcsmux/kcsmux.conf"
#define KCSMUX_NAME_MAX	 31 /* node name, [A-Za-z0-9_.-] */

enum kcsmux_backend {
	KCSMUX_BACKEND_KCSRAW,	/* kcsraw.ko's /dev/kcsrawN */
	KCSMUX_BACKEND_IPMIDEV, /* a stock ipmi_devintf /dev/ipmiN */
};

/* seccomp = ...: the system call filter of sandbox.c. */
enum kcsmux_seccomp {
	KCSMUX_SECCOMP_NO,  /* no filter (the default) */
	KCSMUX_SECCOMP_YES, /* a call off the list kills the daemon */
	KCSMUX_SECCOMP_LOG, /* ... is logged by the kernel, and runs */
};

struct kcsmux_node_conf {
	char name[KCSMUX_NAME_MAX + 1]; /* the device is /dev/NAME */
	uid_t uid;
	gid_t gid;
	mode_t mode;		   /* permission bits only */
	enum kcsmux_preset preset; /* the policy key, or normal */
	struct kcsmux_policy pol;  /* preset + explicit keys */
	struct kcsmux_access acc;
	/* admin_users, admin_groups: openers that get admin_acc, the
	 * admin_access preset (default all) + the allow lines - the deny
	 * lines, in place of acc (client_acc(), cuse.h) */
	struct kcsmux_openers admins;
	struct kcsmux_access admin_acc;
	bool events; /* clients may receive async events */
	/* ... may subscribe, but get none: the node's rules may not read the
	 * SEL and no events line said otherwise (tools that subscribe at
	 * start, ipmitool's open interface, must still work) */
	bool events_quiet;
	bool commands;		     /* clients may register for commands */
	uint32_t max_outstanding;    /* per open file (global default) */
	uint32_t max_clients;	     /* open files of this node (global) */
	int interface;		     /* /dev/ipmi/N, /dev/ipmidev/N; -1 none */
	bool sdr_cache;		     /* SDR/FRU reads from memory (sdrcache) */
	bool no_sel_mirror;	     /* sel_mirror = no (the SEL mirror is on
				      * by default: selmirror.h) */
	bool coalesce;		     /* identical sensor reads share one */
	uint32_t coalesce_window_ms; /* ... and one answered this recently */
	uint8_t luns;		     /* key luns: LUNs 1-3 requests may address
				      * (bit n); LUN 0 always, nothing else
				      * by default, whatever the preset */
	unsigned int leases;	     /* lease key: classes (lease.h) held */
	int line;		     /* of the [node NAME] header */
};

struct kcsmux_config {
	enum kcsmux_backend backend;
	char *device;		 /* default by backend */
	char *backend_async_dev; /* kcsraw in SMI mode: its stock node;
				    NULL: found in /sys/class/ipmi */
	char *control_socket;
	char *admin_group; /* NULL: root only */
	gid_t admin_gid;
	uint32_t max_outstanding;
	uint32_t max_clients;
	uint32_t event_backlog;
	int log_level; /* LOG_ERR .. LOG_DEBUG */
	char *user;    /* NULL: keep running as root */
	uid_t user_uid;
	gid_t user_gid;		/* the user's primary group */
	char *metrics_listen;	/* "HOST:PORT" or NULL: off */
	char *metrics_textfile; /* NULL: off */
	enum kcsmux_seccomp seccomp;
	uint32_t sdr_cache_revalidate_ms; /* Get SDR Repository Info age */
	struct kcsmux_node_conf *nodes;
	size_t nnodes;
	/* config_load_offline(): the user and group names this host does
	 * not know, as "FILE:LINE: warning: ..." lines; NULL: none */
	char *warnings;
};

#endif /* KCSMUX_CONF_H */
