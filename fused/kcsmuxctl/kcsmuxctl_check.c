// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxctl_check.c - kcsmuxctl check -c FILE: a node's access rules
 * judged from a configuration file, without a daemon and without the
 * target host's users (config_load_offline), for a rollout's CI. The
 * verdict and its line are the daemon's (CTL_CHECK, control_cmds.c):
 * the same access_check() and access_rule_desc() over the same file.
 * -u/-g: an opener's rules (admin_users, admin_groups), as the daemon
 * picks them at open (client_acc).
 */
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/access.h"
#include "kcsmuxctl/kcsmuxctl.h"
#include "util/error.h"

static bool numeric(const char *s)
{
	return *s != '\0' && s[strspn(s, "0123456789")] == '\0';
}

int check_who(struct kcsmux_opener *who, const char *user, const char *groups)
{
	gid_t list[KCSMUX_OPENER_GROUPS];
	int i, n = KCSMUX_OPENER_GROUPS;
	struct passwd *pw = NULL;
	char item[64];
	size_t len;

	if (user != NULL) {
		if (numeric(user))
			who->uid = (uid_t)strtoul(user, NULL, 10);
		else if ((pw = getpwnam(user)) == NULL) {
			errx_msg("check: no user \"%s\" on this host (give "
				 "its uid, and its groups with -g)",
				 user);
			return -1;
		} else
			who->uid = pw->pw_uid;
		if (pw == NULL)
			pw = getpwuid(who->uid);
		/* its groups on this host, as the opener's would be */
		if (pw != NULL &&
		    getgrouplist(pw->pw_name, pw->pw_gid, list, &n) >= 0)
			for (i = 0; i < n; i++)
				who->gids[who->ngids++] = list[i];
	}
	while (groups != NULL && *groups != '\0') {
		struct group *gr;

		len = strcspn(groups, ", ");
		if (len == 0 || len >= sizeof(item)) {
			groups += len + (len == 0);
			continue;
		}
		memcpy(item, groups, len);
		item[len] = '\0';
		groups += len;
		if (who->ngids >= KCSMUX_OPENER_GROUPS)
			break;
		if (numeric(item))
			who->gids[who->ngids++] =
				(gid_t)strtoul(item, NULL, 10);
		else if ((gr = getgrnam(item)) != NULL)
			who->gids[who->ngids++] = gr->gr_gid;
		else {
			errx_msg("check: no group \"%s\" on this host (give "
				 "its gid)",
				 item);
			return -1;
		}
	}
	return 0;
}

int check_file(const char *path, const char *node, uint8_t netfn, uint8_t cmd,
	       const uint8_t *data, size_t len, const struct kcsmux_opener *who)
{
	const struct kcsmux_access *acc;
	const struct kcsmux_node_conf *n;
	bool admin;
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
	admin = who != NULL && opener_matches(&n->admins, who);
	acc = admin ? &n->admin_acc : &n->acc;
	v = access_check(acc, netfn, cmd, data, len, &why);
	if (v == ACCESS_OK) {
		why.netfn = netfn;
		why.cmd = cmd;
	}
	access_rule_desc(acc, v, &why, rule, sizeof(rule));
	printf("%s: netfn 0x%02x cmd 0x%02x %s by %s%s%s\n", node, why.netfn,
	       why.cmd, v == ACCESS_OK ? "allowed" : "denied",
	       admin && strncmp(rule, "access = ", 9) == 0 ? "admin_" : "",
	       rule,
	       admin	   ? " (an admin of the node)" :
	       who != NULL ? " (not an admin of the node)" :
	       n->admins.nuids || n->admins.ngids ?
			     " (not its admin_users/admin_groups: -u)" :
			     "");
	rv = v == ACCESS_OK ? EXIT_OK : EXIT_DENIED;
	config_free(&cfg);
	return rv;
}
