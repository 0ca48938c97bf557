/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcsmuxd.h - the whole daemon for what sits on top (main, admin/): the
 * core's daemon and nodes (core/core.h), transactions (core/xact.h) and the
 * CUSE front end (cuse/cuse.h), plus main's own calls. Layers below include
 * only their own headers and the ones below them (docs/design.md).
 */
#ifndef KCSMUX_KCSMUXD_H
#define KCSMUX_KCSMUXD_H

#include <stdbool.h>
#include <time.h>

#include "core/core.h"
#include "core/xact.h"
#include "cuse/cuse.h"
#include "util/log.h"

/* kcsmuxd.c: tell systemd (Type=notify), once every node is ready */
void daemon_notify(struct daemon *d, const char *state);

/* reload.c: SIGHUP; -1 with *cause and nothing changed on error */
int daemon_reload(struct daemon *d, char **cause);
/* After daemon_reload() (SIGHUP or kcsmuxctl reload): count the outcome
 * for the metrics, and log a rejection at LOG_ERR. */
static inline void daemon_reload_done(struct daemon *d, bool ok,
				      const char *cause)
{
	d->reloads++;
	d->last_reload_ok = ok;
	d->last_reload_unix = (uint64_t)time(NULL);
	if (!ok) {
		d->reload_failures++;
		log_err("reload rejected, the running configuration stays: %s",
			cause != NULL ? cause : "unknown error");
	}
}

#endif /* KCSMUX_KCSMUXD_H */
