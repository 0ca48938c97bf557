// SPDX-License-Identifier: GPL-2.0
/*
 * opener.c - matching a node's opener (uid, groups) against its
 * admin_users and admin_groups (opener.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/opener.h"
#include "util/error.h"

bool opener_add_uid(struct kcsmux_openers *o, uid_t uid, char **cause)
{
	if (o->nuids >= KCSMUX_OPENER_IDS) {
		error_set(cause, "more than %d users", KCSMUX_OPENER_IDS);
		return false;
	}
	o->uids[o->nuids++] = uid;
	return true;
}

bool opener_add_gid(struct kcsmux_openers *o, gid_t gid, char **cause)
{
	if (o->ngids >= KCSMUX_OPENER_IDS) {
		error_set(cause, "more than %d groups", KCSMUX_OPENER_IDS);
		return false;
	}
	o->gids[o->ngids++] = gid;
	return true;
}

bool opener_matches(const struct kcsmux_openers *o,
		    const struct kcsmux_opener *who)
{
	size_t i, j;

	for (i = 0; i < o->nuids; i++)
		if (o->uids[i] == who->uid)
			return true;
	for (i = 0; i < o->ngids; i++)
		for (j = 0; j < who->ngids; j++)
			if (o->gids[i] == who->gids[j])
				return true;
	return false;
}

static void add_group(struct kcsmux_opener *who, unsigned long id)
{
	if (who->ngids < KCSMUX_OPENER_GROUPS && id < (gid_t)-1)
		who->gids[who->ngids++] = (gid_t)id;
}

void opener_parse_status(struct kcsmux_opener *who, const char *status)
{
	const char *gid = strstr(status, "\nGid:");
	const char *groups = strstr(status, "\nGroups:");
	unsigned long id = 0;
	char *end;
	int i;

	if (gid != NULL) {
		/* real, effective, saved, file system: the kernel checks
		 * the device's mode against the last */
		gid += 5;
		for (i = 0; i < 4; i++, gid = end) {
			id = strtoul(gid, &end, 10);
			if (end == gid)
				break;
		}
		if (i == 4)
			add_group(who, id);
	}
	if (groups == NULL)
		return;
	for (groups += 8; *groups != '\n' && *groups != '\0'; groups = end) {
		id = strtoul(groups, &end, 10);
		if (end == groups)
			break;
		add_group(who, id);
	}
}
