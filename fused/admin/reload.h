/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reload.h - reading the configuration again (reload.c): SIGHUP (main) and
 * kcsmuxctl reload (control.c), and counting the outcome for the metrics.
 */
#ifndef KCSMUX_RELOAD_H
#define KCSMUX_RELOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "core/core.h"
#include "util/log.h"

/* SIGHUP; -1 with *cause and nothing changed on error */
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

#endif /* KCSMUX_RELOAD_H */
