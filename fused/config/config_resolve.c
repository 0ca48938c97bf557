// SPDX-License-Identifier: GPL-2.0
/*
 * config_resolve.c - kcsmux.conf at the end of the file: the defaults it
 * starts from, then each node's keys resolved together. Keys are
 * collected per section and resolved here, so a node's "policy" preset
 * never overrides its explicit keys, wherever they are, and a "deny"
 * always beats an "allow"; the checks that span keys or nodes are here
 * too.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "config/config.h"
#include "config/config_priv.h"

/* N of a node name "ipmiN" (decimal, no leading zero, N <= 255): its
 * default interface; -1 for other names. */
static int name_interface(const char *name)
{
	const char *d = name + 4;
	int num = 0;

	if (strncmp(name, "ipmi", 4) != 0 || *d == '\0' ||
	    (d[0] == '0' && d[1] != '\0') || strlen(d) > 3)
		return -1;
	for (; *d != '\0'; d++) {
		if (*d < '0' || *d > '9')
			return -1;
		num = num * 10 + (*d - '0');
	}
	return num <= 255 ? num : -1;
}

void config_defaults(struct kcsmux_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->backend = KCSMUX_BACKEND_KCSRAW;
	cfg->control_socket = strdup("/run/kcsmux/control.sock");
	cfg->admin_group = strdup("root");
	cfg->admin_gid = 0;
	cfg->max_outstanding = 100;
	cfg->max_clients = 30;
	cfg->event_backlog = 25;
	cfg->log_level = LOG_INFO;
	cfg->sdr_cache_revalidate_ms = 2000;
}

static void finish_policy(struct parser *p, size_t i)
{
	struct kcsmux_node_conf *n = &p->cfg->nodes[i];
	struct nodestate *ns = &p->ns[i];
	int pu = policy_key_index("poll_us");
	int pm = policy_key_index("poll_max_us");
	char *cause = NULL;

	policy_resolve(&n->pol, policy_preset(n->preset), &ns->explicit,
		       ns->pset);
	if (policy_check(&n->pol, &cause) == -1)
		config_error_cause(p,
				   ns->pset & (1U << pm) ? ns->plines[pm] :
							   ns->plines[pu],
				   cause);
}

static void finish_node(struct parser *p, size_t i)
{
	struct kcsmux_config *cfg = p->cfg;
	struct kcsmux_node_conf *n = &cfg->nodes[i];
	struct nodestate *ns = &p->ns[i];

	finish_policy(p, i);
	if (!(ns->kset & (1U << NK_ACCESS)))
		n->acc.preset =
			ns->has_allow ? KCSMUX_ACCESS_NONE : KCSMUX_ACCESS_ALL;
	access_build(&n->acc);
	/* The admins' rules: their preset, the same allow and deny lines. */
	n->admin_acc = n->acc;
	n->admin_acc.preset =
		ns->has_admin_access ? ns->admin_preset : KCSMUX_ACCESS_ALL;
	access_build(&n->admin_acc);
	if (ns->has_admin_access &&
	    !(ns->kset & (1U << NK_ADMIN_USERS | 1U << NK_ADMIN_GROUPS)))
		config_error(p, ns->klines[NK_ADMIN_ACCESS],
			     "node '%s': admin_access needs admin_users or "
			     "admin_groups",
			     n->name);
	/* Events: by default only where the rules allow reading the SEL
	 * (Get SEL Entry), which holds the same records; elsewhere a client
	 * may subscribe (ipmitool's open interface must) but gets none. */
	if (!(ns->kset & (1U << NK_EVENTS)))
		n->events_quiet = !access_allows(&n->acc, 0x0a, 0x43);
	/* Incoming commands: by default only where nothing is restricted. */
	if (!(ns->kset & (1U << NK_COMMANDS)))
		n->commands = n->acc.eff_full;
	if (!(ns->kset & (1U << NK_MAX_OUTSTANDING)))
		n->max_outstanding = cfg->max_outstanding;
	if (!(ns->kset & (1U << NK_MAX_CLIENTS)))
		n->max_clients = cfg->max_clients;
	if (!(ns->kset & (1U << NK_INTERFACE)))
		n->interface = name_interface(n->name);
	if (n->coalesce_window_ms && !n->coalesce)
		config_error(
			p, ns->klines[NK_COALESCE_WINDOW],
			"node '%s': coalesce_window_ms needs coalesce = yes",
			n->name);
	if (cfg->device != NULL && strncmp(cfg->device, "/dev/", 5) == 0 &&
	    strcmp(cfg->device + 5, n->name) == 0)
		config_error(p, n->line,
			     "node '%s' would be /dev/%s, the backend "
			     "device itself",
			     n->name, n->name);
}

void config_finish(struct parser *p)
{
	struct kcsmux_config *cfg = p->cfg;
	size_t i;

	if (cfg->device == NULL)
		cfg->device = strdup(cfg->backend == KCSMUX_BACKEND_KCSRAW ?
					     "/dev/kcsraw0" :
					     "/dev/ipmi0");
	if (cfg->device == NULL)
		p->oom = true;
	if (cfg->nnodes == 0)
		config_error(p, 0,
			     "no [node NAME] section: kcsmuxd needs at least "
			     "one node");
	for (i = 0; i < cfg->nnodes; i++)
		finish_node(p, i);
	for (i = 0; i < cfg->nnodes; i++) {
		size_t j;

		for (j = 0; j < i; j++)
			if (cfg->nodes[i].interface >= 0 &&
			    cfg->nodes[i].interface == cfg->nodes[j].interface)
				config_error(
					p, cfg->nodes[i].line,
					"node '%s': "
					"interface %d is node '%s''s already",
					cfg->nodes[i].name,
					cfg->nodes[i].interface,
					cfg->nodes[j].name);
		for (j = 0; j < i; j++)
			if (cfg->nodes[i].leases & cfg->nodes[j].leases)
				config_error(p, cfg->nodes[i].line,
					     "node '%s': lease: a class is node "
					     "'%s''s already",
					     cfg->nodes[i].name,
					     cfg->nodes[j].name);
	}
}
