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

#include "kcsmuxd.h"
#include "log.h"

static struct node *find_node(struct daemon *d, const char *name)
{
	struct node *n;

	LIST_FOREACH(n, &d->nodes, link)
		if (strcmp(n->conf.name, name) == 0)
			return n;
	return NULL;
}

static void update_node(struct node *n, const struct kcsmux_node_conf *c)
{
	char path[16 + KCSMUX_NAME_MAX];
	struct client *cl;

	if (c->uid != n->conf.uid || c->gid != n->conf.gid ||
	    c->mode != n->conf.mode) {
		snprintf(path, sizeof(path), "/dev/%s", c->name);
		/* narrow first, so there is no moment with wider access */
		if (chmod(path, n->conf.mode & c->mode) < 0 ||
		    chown(path, c->uid, c->gid) < 0 || chmod(path, c->mode) < 0)
			log_warn("%s: setting owner/mode: %s", path,
				 strerror(errno));
	}
	if (n->conf.commands && !c->commands)	/* revoked: drop them */
		LIST_FOREACH(cl, &n->clients, link)
			cmdreg_client_gone(cl);
	n->conf = *c;
	sched_flow_update(&n->d->sched, &n->flow, &n->conf.pol, now_ns());
}

int daemon_reload(struct daemon *d, char **cause)
{
	struct kcsmux_config nc;
	struct node *n, *tmp;
	size_t i, added = 0, removed = 0, kept = 0;

	if (config_load(&nc, d->cfg_path, cause) < 0)
		return -1;
	if (nc.backend != d->cfg.backend ||
	    strcmp(nc.device, d->cfg.device) != 0) {
		asprintf(cause, "%s: backend or device changed: that needs a "
			 "restart; nothing was changed", d->cfg_path);
		config_free(&nc);
		return -1;
	}
	for (n = LIST_FIRST(&d->nodes); n; n = tmp) {
		tmp = LIST_NEXT(n, link);
		if (!config_find_node(&nc, n->conf.name)) {
			log_info("reload: removing node %s (%u clients)",
				 n->conf.name, n->nclients);
			node_destroy(n);
			removed++;
		}
	}
	for (i = 0; i < nc.nnodes; i++) {
		n = find_node(d, nc.nodes[i].name);
		if (n) {
			update_node(n, &nc.nodes[i]);
			kept++;
		} else if (node_create(d, &nc.nodes[i], cause) == 0) {
			added++;
		} else {
			log_err("reload: %s", *cause);
			free(*cause);
			*cause = NULL;
		}
	}
	log_set_level(nc.log_level);
	/* Keep what the running daemon was set up with (socket paths,
	 * user, metrics address need a restart); take the rest. */
	d->cfg.max_outstanding = nc.max_outstanding;
	d->cfg.max_clients = nc.max_clients;
	d->cfg.event_backlog = nc.event_backlog;
	d->cfg.log_level = nc.log_level;
	free(d->cfg.nodes);
	d->cfg.nodes = nc.nodes;
	d->cfg.nnodes = nc.nnodes;
	nc.nodes = NULL;
	nc.nnodes = 0;
	config_free(&nc);
	log_info("reload: %zu nodes kept, %zu added, %zu removed", kept,
		 added, removed);
	return 0;
}
