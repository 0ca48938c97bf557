// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxctl_check.c - kcsmuxctl check -c FILE: a node's access rules
 * judged from a configuration file, without a daemon and without the
 * target host's users (config_load_offline), for a rollout's CI. The
 * verdict and its line are the daemon's (CTL_CHECK, control_cmds.c):
 * the same access_check() and access_rule_desc() over the same file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "core/access.h"
#include "kcsmuxctl/kcsmuxctl.h"
#include "util/error.h"

int check_file(const char *path, const char *node, uint8_t netfn, uint8_t cmd,
	       const uint8_t *data, size_t len)
{
	const struct kcsmux_node_conf *n;
	struct kcsmux_config cfg;
	struct access_why why = { 0 };
	enum access_verdict v;
	char *cause = NULL, rule[128];
	int rv;

	if (config_load_offline(&cfg, path, &cause) < 0) {
		fprintf(stderr, "%s\n", error_str(cause));
		free(cause);
		return EXIT_FAIL;
	}
	if (cfg.warnings != NULL) /* names only the target host has */
		fputs(cfg.warnings, stderr);
	if ((n = config_find_node(&cfg, node)) == NULL) {
		errx_msg("no node \"%s\" in %s", node, path);
		config_free(&cfg);
		return EXIT_FAIL;
	}
	v = access_check(&n->acc, netfn, cmd, data, len, &why);
	if (v == ACCESS_OK) {
		why.netfn = netfn;
		why.cmd = cmd;
	}
	access_rule_desc(&n->acc, v, &why, rule, sizeof(rule));
	printf("%s: netfn 0x%02x cmd 0x%02x %s by %s\n", node, why.netfn,
	       why.cmd, v == ACCESS_OK ? "allowed" : "denied", rule);
	rv = v == ACCESS_OK ? EXIT_OK : EXIT_DENIED;
	config_free(&cfg);
	return rv;
}
