/* SPDX-License-Identifier: GPL-2.0 */
/*
 * control.h - kcsmuxd's control socket: kcsmuxctl's requests (LIST, SHOW,
 * SET, STATS, RELOAD; include/kcsmux/control.h) served in the event loop.
 */
#ifndef KCSMUX_FUSED_CONTROL_H
#define KCSMUX_FUSED_CONTROL_H

struct daemon;

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

#endif /* KCSMUX_FUSED_CONTROL_H */
