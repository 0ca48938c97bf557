// SPDX-License-Identifier: GPL-2.0
/*
 * control_conn.c - a control connection's rights and replies: whether its
 * peer may change things (root, or a member of admin_group: SO_PEERGROUPS,
 * else /proc/PID/status), and a reply framed into its output.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include <kcsmux/control.h>

#include "control/control_priv.h"
#include "util/error.h"

/* ---- credentials ---- */

static bool gid_in(gid_t g, const gid_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == g)
			return true;
	return false;
}

/* The peer's supplementary groups: SO_PEERGROUPS (Linux 4.13), else the
 * Groups: line of /proc/PID/status. */
static bool peer_in_group(int fd, pid_t pid, gid_t g)
{
	gid_t small[64], *v = small;
	socklen_t len = sizeof(small);
	char path[64], line[4096], *p, *end;
	unsigned long x;
	bool found = false;
	FILE *f;

#ifdef SO_PEERGROUPS
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, v, &len) == 0)
		return gid_in(g, v, len / sizeof(gid_t));
	if (errno == ERANGE && (v = malloc(len)) != NULL) {
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, v, &len) == 0)
			found = gid_in(g, v, len / sizeof(gid_t));
		free(v);
		return found;
	}
#else
	(void)fd;
	(void)v;
	(void)len;
#endif
	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "Groups:", 7) != 0)
			continue;
		for (p = line + 7;; p = end) {
			errno = 0;
			x = strtoul(p, &end, 10);
			if (end == p || errno != 0)
				break;
			if ((gid_t)x == g)
				found = true;
		}
		break;
	}
	fclose(f);
	return found;
}

bool control_peer_admin(const struct daemon *d, int fd, const struct ucred *cr)
{
	const struct kcsmux_config *cfg = &d->cfg;

	if (cr->uid == 0)
		return true;
	if (cfg->admin_group == NULL || cfg->admin_group[0] == '\0' ||
	    cfg->admin_gid == (gid_t)-1)
		return false;
	return cr->gid == cfg->admin_gid ||
	       peer_in_group(fd, cr->pid, cfg->admin_gid);
}

bool control_conn_admin(const struct ctl_conn *c)
{
	struct ucred cr = { .pid = c->pid, .uid = c->uid, .gid = c->gid };

	return control_peer_admin(c->ctl->d, bufferevent_getfd(c->bev), &cr);
}

/* ---- replies ---- */

void control_reply(struct ctl_conn *c, uint16_t type, enum ctl_status st,
		   struct ctl_buf *b)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	uint8_t raw[CTL_HDR_LEN];
	struct ctl_hdr h;

	if (b->oom) {
		ctl_buf_reset(b);
		ctl_kv_add(b, "error", "kcsmuxd: out of memory");
		st = CTL_E_INTERNAL;
	}
	if (b->len > CTL_MAX_PAYLOAD) {
		ctl_buf_reset(b);
		ctl_kv_add(b, "error", "kcsmuxd: reply too large");
		st = CTL_E_INTERNAL;
	}
	ctl_hdr_init(&h, (uint16_t)(type | CTL_REPLY), (uint32_t)b->len, st);
	ctl_hdr_encode(raw, &h);
	if (evbuffer_add(out, raw, sizeof(raw)) < 0 ||
	    (b->len > 0 && evbuffer_add(out, b->data, b->len) < 0))
		c->closing = true; /* out of memory: hang up */
}

void control_reply_err(struct ctl_conn *c, uint16_t type, enum ctl_status st,
		       const char *fmt, ...)
{
	struct ctl_buf b;
	va_list ap;
	char *s = NULL, *line, *nl;

	ctl_buf_init(&b);
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	if (s == NULL)
		ctl_kv_add(&b, "error", "kcsmuxd: out of memory");
	/* One error= line per line of the message. */
	for (line = s; line != NULL; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		if (*line != '\0' || line == s)
			ctl_kv_add(&b, "error", line);
	}
	free(s);
	control_reply(c, type, st, &b);
	ctl_buf_free(&b);
}
