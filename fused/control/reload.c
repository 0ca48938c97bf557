// SPDX-License-Identifier: GPL-2.0
/*
 * reload.c - SIGHUP (and kcsmuxctl reload): read the configuration again
 * and apply it live. A file with any error is rejected whole and the
 * running configuration stays. Otherwise: changed nodes take their new
 * policy, access list, limits, owner and mode for the next request (no
 * client is dropped); new nodes appear; removed nodes go away at once,
 * and their open clients' calls fail with ECONNABORTED/ENOTCONN (the kernel's
 * answer once a CUSE device is gone).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <kcsmux/control.h>

#include "config/config.h"
#include "control/control.h"
#include "core/core.h"
#include "core/leasegate.h"
#include "cuse/cuse.h"
#include "cuse/handover.h"
#include "core/policy.h"
#include "util/error.h"
#include "util/log.h"

static struct node *find_node(struct daemon *d, const char *name)
{
	struct node *n;

	LIST_FOREACH (n, &d->nodes, link)
		if (strcmp(n->conf.name, name) == 0)
			return n;
	return NULL;
}

/* Whether uid UID (with GID among its groups) may open a device of owner
 * C->uid, group C->gid, mode C->mode for reading and writing. */
static bool may_open(const struct kcsmux_node_conf *c, uid_t uid, bool in_group)
{
	if (uid == 0)
		return true;
	if (uid == c->uid)
		return (c->mode & 0600) == 0600;
	if (in_group)
		return (c->mode & 0060) == 0060;
	return (c->mode & 0006) == 0006;
}

/* Is GID among the groups of process PID (/proc/PID/status)? */
static bool pid_in_group(pid_t pid, gid_t gid)
{
	char path[32], line[512], *p, *end;
	bool in = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!in && fgets(line, sizeof(line), f)) {
		bool gids = strncmp(line, "Gid:", 4) == 0;

		if (!gids && strncmp(line, "Groups:", 7) != 0)
			continue;
		p = line + (gids ? 4 : 7);
		for (;;) {
			unsigned long v = strtoul(p, &end, 10);

			if (end == p)
				break;
			if ((gid_t)v == gid)
				in = true;
			p = end; /* Gid: real, effective, saved, fs */
		}
	}
	fclose(f);
	return in;
}

/* After an owner/group/mode change: files opened by users who could not
 * open the device now lose it (their calls fail with EACCES). */
static void recheck_clients(struct node *n, const struct kcsmux_node_conf *c)
{
	struct client *cl;

	LIST_FOREACH (cl, &n->clients, link) {
		if (cl->revoked ||
		    may_open(c, cl->uid, pid_in_group(cl->pid, c->gid)))
			continue;
		log_warn("reload: node %s: pid %ld (uid %u) lost access: its "
			 "file is closed to it",
			 c->name, (long)cl->pid, (unsigned)cl->uid);
		client_revoke(cl);
		handover_pend_forget(cl); /* no answer due to it now */
	}
}

static void update_node(struct node *n, const struct kcsmux_node_conf *c)
{
	struct client *cl;

	/* narrow first, so there is no moment with wider access */
	if (c->uid != n->conf.uid || c->gid != n->conf.gid ||
	    c->mode != n->conf.mode) {
		node_set_owner_mode(n, c->uid, c->gid, c->mode,
				    n->conf.mode & c->mode);
		recheck_clients(n, c);
	}
	if (n->conf.commands && !c->commands) /* revoked: drop them */
		LIST_FOREACH (cl, &n->clients, link)
			cmdreg_client_gone(cl);
	n->conf = *c;
	sched_flow_update(&n->d->sched, &n->flow, &n->conf.pol, now_ns());
}

/*
 * After the privilege drop the daemon can neither create devices nor set
 * their owner and mode: a file that adds a node or changes one's owner,
 * group or mode is refused whole (as a backend change is), rather than
 * half applied and reported as reloaded.
 */
static int needs_root(struct daemon *d, const struct kcsmux_config *nc,
		      char **cause)
{
	const struct kcsmux_node_conf *c;
	struct node *n;
	size_t i;

	for (i = 0; i < nc->nnodes; i++) {
		c = &nc->nodes[i];
		n = find_node(d, c->name);
		if (!n) {
			error_set(cause,
				  "%s: node %s is new: creating a node "
				  "needs root, and kcsmuxd runs as %s; restart "
				  "it; nothing was changed",
				  d->cfg_path, c->name, d->cfg.user);
			return -1;
		}
		if (c->uid != n->conf.uid || c->gid != n->conf.gid ||
		    c->mode != n->conf.mode) {
			error_set(cause,
				  "%s: node %s: owner, group or mode "
				  "changed: that needs root, and kcsmuxd runs "
				  "as %s; restart it; nothing was changed",
				  d->cfg_path, c->name, d->cfg.user);
			return -1;
		}
	}
	return 0;
}

/*
 * Read the file into *NC and check what reloading it needs that the
 * running daemon cannot do (a backend or device change, root after the
 * drop, a new node's /dev name taken). 0, or -1 with *cause and *nc
 * freed.
 */
static bool str_differs(const char *a, const char *b)
{
	return strcmp(a != NULL ? a : "", b != NULL ? b : "") != 0;
}

static int reload_read(struct daemon *d, struct kcsmux_config *nc, char **cause)
{
	char *msg = NULL;
	size_t i;

	if (config_load(nc, d->cfg_path, cause) < 0)
		return -1;
	if (nc->backend != d->cfg.backend ||
	    strcmp(nc->device, d->cfg.device) != 0 ||
	    str_differs(nc->backend_async_dev, d->cfg.backend_async_dev)) {
		error_set(cause,
			  "%s: backend or device changed: that needs a "
			  "restart; nothing was changed",
			  d->cfg_path);
		config_free(nc);
		return -1;
	}
	if (d->dropped && needs_root(d, nc, cause) < 0) {
		config_free(nc);
		return -1;
	}
	/* A new node whose /dev name is taken: refused before anything
	 * changes, as the start refuses it. */
	for (i = 0; i < nc->nnodes; i++) {
		if (find_node(d, nc->nodes[i].name) ||
		    node_name_check(nc->nodes[i].name, cause) == 0)
			continue;
		msg = xasprintf("%s: %s; nothing was changed", d->cfg_path,
				*cause);
		free(*cause);
		*cause = msg;
		config_free(nc);
		return -1;
	}
	return 0;
}

/* MASK's class names, "chassis,lan" ("none" for 0), into BUF. */
static const char *lease_names(unsigned int mask, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < LEASE_NCLASSES; i++)
		if ((mask & 1u << i) && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? "," : "",
					       lease_class_name(1u << i));
	return at ? buf : "none";
}

/* A node's clients for the plan: "2 clients: pid 812 uid 0, ...". */
static void plan_clients(const struct node *n, struct ctl_buf *b)
{
	const struct client *cl;
	bool first = true;

	ctl_buf_printf(b, "%u client%s", n->nclients,
		       n->nclients == 1 ? "" : "s");
	LIST_FOREACH (cl, &n->clients, link) {
		ctl_buf_printf(b, "%s pid %ld uid %u", first ? ":" : ",",
			       (long)cl->pid, (unsigned)cl->uid);
		first = false;
	}
}

/* One "change=NODE: what" line per difference between a running node's
 * configuration A and the file's B. */
static void plan_node(const struct kcsmux_node_conf *a,
		      const struct kcsmux_node_conf *b, struct ctl_buf *out)
{
	char oldv[48], newv[48];
	const char *k;
	size_t i;

	if (a->preset != b->preset)
		ctl_kv_addf(out, "change", "%s: policy %s -> %s", a->name,
			    policy_preset_name(a->preset),
			    policy_preset_name(b->preset));
	for (i = 0; (k = policy_key_name(i)) != NULL; i++) {
		if (policy_get_key(&a->pol, k, oldv, sizeof(oldv)) < 0 ||
		    policy_get_key(&b->pol, k, newv, sizeof(newv)) < 0 ||
		    strcmp(oldv, newv) == 0)
			continue;
		ctl_kv_addf(out, "change", "%s: %s %s -> %s", a->name, k, oldv,
			    newv);
	}
	if (a->acc.preset != b->acc.preset)
		ctl_kv_addf(out, "change", "%s: access %s -> %s", a->name,
			    access_preset_name(a->acc.preset),
			    access_preset_name(b->acc.preset));
	else if (memcmp(&a->acc.eff, &b->acc.eff, sizeof(a->acc.eff)) != 0)
		ctl_kv_addf(out, "change", "%s: access allow/deny lists",
			    a->name);
	if (memcmp(&a->admins, &b->admins, sizeof(a->admins)) != 0 ||
	    memcmp(&a->admin_acc.eff, &b->admin_acc.eff,
		   sizeof(a->admin_acc.eff)) != 0)
		ctl_kv_addf(out, "change",
			    "%s: admin_users/admin_groups/admin_access "
			    "(open files: judged by the new lists)",
			    a->name);
	if (a->uid != b->uid || a->gid != b->gid || a->mode != b->mode)
		ctl_kv_addf(out, "change",
			    "%s: owner %u:%u mode %04o -> %u:%u mode %04o",
			    a->name, (unsigned)a->uid, (unsigned)a->gid,
			    (unsigned)a->mode, (unsigned)b->uid,
			    (unsigned)b->gid, (unsigned)b->mode);
#define PLAN_BOOL(f)                                                      \
	do {                                                              \
		if (a->f != b->f)                                         \
			ctl_kv_addf(out, "change", "%s: " #f " %s -> %s", \
				    a->name, a->f ? "yes" : "no",         \
				    b->f ? "yes" : "no");                 \
	} while (0)
#define PLAN_NUM(f)                                                           \
	do {                                                                  \
		if (a->f != b->f)                                             \
			ctl_kv_addf(out, "change", "%s: " #f " %lld -> %lld", \
				    a->name, (long long)a->f,                 \
				    (long long)b->f);                         \
	} while (0)
	PLAN_BOOL(events);
	PLAN_BOOL(commands);
	PLAN_BOOL(sdr_cache);
	PLAN_BOOL(coalesce);
	PLAN_NUM(coalesce_window_ms);
	PLAN_NUM(max_outstanding);
	PLAN_NUM(max_clients);
	PLAN_NUM(interface);
	if (a->leases != b->leases) {
		char was[64], now[64];

		ctl_kv_addf(out, "change", "%s: lease %s -> %s", a->name,
			    lease_names(a->leases, was, sizeof(was)),
			    lease_names(b->leases, now, sizeof(now)));
	}
#undef PLAN_BOOL
#undef PLAN_NUM
}

/* A global key the reload takes (TAKEN) or keeps until a restart. */
static void plan_global(struct ctl_buf *out, bool differs, bool taken,
			const char *key)
{
	if (!differs)
		return;
	if (taken)
		ctl_kv_addf(out, "change", "[global] %s", key);
	else
		ctl_kv_addf(out, "note",
			    "[global] %s changed: it needs a restart, the "
			    "reload keeps the running value",
			    key);
}

int daemon_reload_plan(struct daemon *d, struct ctl_buf *out, char **cause)
{
	const struct kcsmux_config *oc = &d->cfg;
	struct kcsmux_config nc;
	const struct kcsmux_node_conf *c;
	struct ctl_buf line;
	struct node *n;
	size_t i;

	if (reload_read(d, &nc, cause) < 0)
		return -1;
	LIST_FOREACH (n, &d->nodes, link) {
		if (n->dying || config_find_node(&nc, n->conf.name))
			continue;
		ctl_buf_init(&line);
		plan_clients(n, &line);
		ctl_kv_addf(out, "remove", "%s (%s)", n->conf.name,
			    line.data != NULL ? line.data : "");
		ctl_buf_free(&line);
	}
	for (i = 0; i < nc.nnodes; i++) {
		c = &nc.nodes[i];
		n = find_node(d, c->name);
		if (n == NULL)
			ctl_kv_addf(out, "add", "%s (policy %s, access %s)",
				    c->name, policy_preset_name(c->preset),
				    access_preset_name(c->acc.preset));
		else
			plan_node(&n->conf, c, out);
	}
	plan_global(out, nc.max_outstanding != oc->max_outstanding, true,
		    "max_outstanding");
	plan_global(out, nc.max_clients != oc->max_clients, true,
		    "max_clients");
	plan_global(out, nc.event_backlog != oc->event_backlog, true,
		    "event_backlog");
	plan_global(out,
		    nc.sdr_cache_revalidate_ms != oc->sdr_cache_revalidate_ms,
		    true, "sdr_cache_revalidate_ms");
	plan_global(out, nc.log_level != oc->log_level, true, "log_level");
	plan_global(out, str_differs(nc.control_socket, oc->control_socket),
		    false, "control_socket");
	plan_global(out, str_differs(nc.admin_group, oc->admin_group), false,
		    "admin_group");
	plan_global(out, str_differs(nc.user, oc->user), false, "user");
	plan_global(out, str_differs(nc.metrics_listen, oc->metrics_listen),
		    false, "metrics_listen");
	plan_global(out, str_differs(nc.metrics_textfile, oc->metrics_textfile),
		    false, "metrics_textfile");
	plan_global(out, nc.seccomp != oc->seccomp, false, "seccomp");
	config_free(&nc);
	return 0;
}

int daemon_reload(struct daemon *d, char **cause)
{
	struct kcsmux_config nc;
	struct node *n, *tmp;
	size_t i, j, added = 0, removed = 0, kept = 0, failed = 0;
	char *first = NULL;

	if (reload_read(d, &nc, cause) < 0)
		return -1;
	for (n = LIST_FIRST(&d->nodes); n; n = tmp) {
		tmp = LIST_NEXT(n, link);
		if (!config_find_node(&nc, n->conf.name)) {
			log_info("reload: removing node %s (%u clients)",
				 n->conf.name, n->nclients);
			node_destroy(n);
			removed++;
		}
	}
	/* The running configuration lists the nodes that run: one that
	 * could not be created (a CUSE error) is left out of it. */
	for (i = j = 0; i < nc.nnodes; i++) {
		n = find_node(d, nc.nodes[i].name);
		if (n) {
			update_node(n, &nc.nodes[i]);
			kept++;
		} else if (node_create(d, &nc.nodes[i], cause) == 0) {
			added++;
		} else {
			log_err("reload: %s", *cause);
			if (!failed++)
				first = *cause;
			else
				free(*cause);
			*cause = NULL;
			continue;
		}
		nc.nodes[j++] = nc.nodes[i];
	}
	nc.nnodes = j;
	log_set_level(nc.log_level);
	/* Keep what the running daemon was set up with (socket paths,
	 * user, metrics address need a restart); take the rest. */
	d->cfg.max_outstanding = nc.max_outstanding;
	d->cfg.max_clients = nc.max_clients;
	d->cfg.event_backlog = nc.event_backlog;
	d->cfg.sdr_cache_revalidate_ms = nc.sdr_cache_revalidate_ms;
	d->cfg.log_level = nc.log_level;
	free(d->cfg.nodes);
	d->cfg.nodes = nc.nodes;
	d->cfg.nnodes = nc.nnodes;
	nc.nodes = NULL;
	nc.nnodes = 0;
	config_free(&nc);
	log_info("reload: %zu nodes kept, %zu added, %zu removed", kept, added,
		 removed);
	leasegate_conf(d, now_ns()); /* lease keys taken or released */
	if (failed) {
		error_set(cause,
			  "%s: %zu new node(s) could not be created (%s); "
			  "the rest was applied",
			  d->cfg_path, failed, first ? first : "see the log");
		free(first);
		return -1;
	}
	return 0;
}
