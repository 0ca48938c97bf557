/* SPDX-License-Identifier: GPL-2.0 */
/*
 * opener.h - who opened a node's file: its uid and groups, and the lists
 * of a node's admin_users and admin_groups it is matched against (the
 * openers that get the node's admin_access rules, kcsmux.conf(5)).
 * Errors: char **cause (util/error.h).
 */
#ifndef KCSMUX_OPENER_H
#define KCSMUX_OPENER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KCSMUX_OPENER_IDS    16 /* admin_users, admin_groups: names each */
#define KCSMUX_OPENER_GROUPS 32 /* an opener's groups read at open */

struct kcsmux_openers {
	uid_t uids[KCSMUX_OPENER_IDS];
	gid_t gids[KCSMUX_OPENER_IDS];
	uint8_t nuids, ngids;
};

/* An opener: the uid the kernel gave with the open (fuse_req_ctx) and its
 * groups, the file system gid and the supplementary groups. */
struct kcsmux_opener {
	uid_t uid;
	gid_t gids[KCSMUX_OPENER_GROUPS];
	uint8_t ngids;
};

bool opener_add_uid(struct kcsmux_openers *, uid_t, char **cause);
bool opener_add_gid(struct kcsmux_openers *, gid_t, char **cause);
/* Is WHO's uid in O's uids, or one of WHO's groups in O's gids? */
bool opener_matches(const struct kcsmux_openers *o,
		    const struct kcsmux_opener *who);
/*
 * Fill WHO's groups from the text of /proc/PID/status: the fourth (file
 * system) id of "Gid:" and those of "Groups:", at most
 * KCSMUX_OPENER_GROUPS (the rest ignored: an opener in more groups than
 * that may not be recognized by a late one). Leaves WHO's groups as they
 * were when the text has neither line.
 */
void opener_parse_status(struct kcsmux_opener *who, const char *status);

#endif /* KCSMUX_OPENER_H */
