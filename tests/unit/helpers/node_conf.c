// SPDX-License-Identifier: GPL-2.0
/* node_conf.c - a node's configuration without the parser (node_conf.h). */
#include <stdio.h>
#include <string.h>

#include "node_conf.h"

void test_node_conf(struct kcsmux_node_conf *n, const char *name,
		    enum kcsmux_preset preset, enum kcsmux_access_preset access)
{
	struct kcsmux_policy none;

	memset(n, 0, sizeof(*n));
	memset(&none, 0, sizeof(none));
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->mode = 0600;
	n->preset = preset;
	policy_resolve(&n->pol, policy_preset(preset), &none, 0);
	n->acc.preset = access;
	access_build(&n->acc);
	n->events = true;
	n->commands = n->acc.eff_full;
	n->max_outstanding = 100;
	n->max_clients = 30;
	n->interface = -1;
}
