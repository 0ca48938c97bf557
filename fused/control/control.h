/* SPDX-License-Identifier: GPL-2.0 */
/*
 * control.h - kcsmuxd's control: the control socket, kcsmuxctl's requests
 * (LIST, SHOW, SET, STATS, RELOAD; include/kcsmux/control.h) served in the
 * event loop (control_socket.c), and reading the configuration again
 * (reload.c): SIGHUP (main) and kcsmuxctl reload (control_cmds.c), the
 * outcome counted for the metrics.
 */
#ifndef KCSMUX_FUSED_CONTROL_H
#define KCSMUX_FUSED_CONTROL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "core/core.h"
#include "util/log.h"

/*
 * Listen on d->cfg.control_socket (an empty path: no control socket):
 * create its directory (0755) if needed, replace a stale socket, refuse
 * if another daemon answers on it, make it 0666 (each request is checked
 * against the peer's credentials). Needs d->base. 0, or -1 with *cause
 * malloc'd.
 */
int control_init(struct daemon *d, char **cause);
/* Close every connection and the socket, and remove it. */
void control_fini(struct daemon *d);
/* accept() failures so far (EMFILE and others), for tests: after EMFILE
 * accepting pauses for a second instead of failing in a loop. */
unsigned long control_accept_errors(const struct daemon *d);

/* reload.c */

/* SIGHUP; -1 with *cause and nothing changed on error */
int daemon_reload(struct daemon *d, char **cause);
struct ctl_buf;
/*
 * kcsmuxctl reload --dry-run: what reloading the file now would do, as
 * key=value lines into OUT ("remove=NODE (N clients: pid P uid U, ...)",
 * "add=NODE (...)", "change=NODE: KEY OLD -> NEW", "note=..."), nothing
 * applied. -1 with *cause when the reload would be rejected.
 */
int daemon_reload_plan(struct daemon *d, struct ctl_buf *out, char **cause);
/* After daemon_reload() (SIGHUP or kcsmuxctl reload): count the outcome
 * for the metrics, and log a rejection at LOG_ERR. */
static inline void daemon_reload_done(struct daemon *d, bool ok,
				      const char *cause)
{
	d->reloads++;
	d->last_reload_ok = ok;
	d->last_reload_unix = (uint64_t)time(NULL);
	snprintf(d->last_reload_error, sizeof(d->last_reload_error), "%s",
		 ok ? "" : (cause != NULL ? cause : "unknown error"));
	if (!ok) {
		d->reload_failures++;
		log_err("reload rejected, the running configuration stays: %s",
			cause != NULL ? cause : "unknown error");
	}
}

#endif /* KCSMUX_FUSED_CONTROL_H */
