// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxctl_socket.c - kcsmuxctl's side of the control socket: connect
 * (with a reply timeout), send one request frame, read and check its
 * reply, print the daemon's errors.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <kcsmux/control.h>

#include "kcsmuxctl/kcsmuxctl.h"
#include "util/io.h"

#define REPLY_TIMEOUT_SEC 15

static int ctl_connect(struct ctx *x)
{
	struct sockaddr_un sun;
	struct timeval tv = { REPLY_TIMEOUT_SEC, 0 };
	int fd, e;

	if (x->fd >= 0)
		return 0;
	x->unreachable = true;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(x->sock) >= sizeof(sun.sun_path)) {
		errx_msg("socket path too long: %s", x->sock);
		return -1;
	}
	strcpy(sun.sun_path, x->sock);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		errx_msg("socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		e = errno;
		close(fd);
		errx_msg("cannot connect to %s: %s%s", x->sock, strerror(e),
			 e == ENOENT || e == ECONNREFUSED ?
				 " (is kcsmuxd running?)" :
				 "");
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	x->fd = fd;
	x->unreachable = false;
	return 0;
}

void ctl_disconnect(struct ctx *x)
{
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
}

/* 0, or -1 with errno (0: the daemon closed the connection). */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = 0;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void reply_free(struct reply *r)
{
	free(r->payload);
	ctl_kvlist_free(&r->kv);
	memset(r, 0, sizeof(*r));
}

static void print_errors(const struct reply *r)
{
	size_t i;
	bool any = false;

	for (i = 0; i < r->kv.n; i++)
		if (strcmp(r->kv.kv[i].key, "error") == 0) {
			errx_msg("%s", r->kv.kv[i].value);
			any = true;
		}
	if (!any)
		errx_msg("kcsmuxd: %s", ctl_status_name(r->h.status));
}

int request(struct ctx *x, uint16_t type, const struct ctl_buf *req,
	    bool kv_reply, struct reply *r)
{
	uint8_t raw[CTL_HDR_LEN];
	struct ctl_hdr h;
	enum ctl_status st;
	char err[128], tb[32];
	size_t len = req != NULL ? req->len : 0;

	memset(r, 0, sizeof(*r));
	if (ctl_connect(x) < 0)
		return -1;
	ctl_hdr_init(&h, type, (uint32_t)len, 0);
	ctl_hdr_encode(raw, &h);
	if (write_all(x->fd, raw, sizeof(raw)) < 0 ||
	    (len > 0 && write_all(x->fd, req->data, len) < 0)) {
		errx_msg("sending to %s: %s", x->sock, strerror(errno));
		goto fail;
	}
	if (read_all(x->fd, raw, sizeof(raw)) < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			errx_msg("no reply from kcsmuxd within %d s",
				 REPLY_TIMEOUT_SEC);
		else if (errno == 0)
			errx_msg("kcsmuxd closed the connection without a "
				 "reply");
		else
			errx_msg("reading from %s: %s", x->sock,
				 strerror(errno));
		goto fail;
	}
	st = ctl_hdr_decode(raw, &r->h);
	if (st == CTL_E_PROTO) {
		errx_msg("%s does not speak the kcsmux control protocol "
			 "(magic %08x, length %u)",
			 x->sock, r->h.magic, r->h.len);
		goto fail;
	}
	if ((r->payload = malloc((size_t)r->h.len + 1)) == NULL) {
		errx_msg("out of memory");
		goto fail;
	}
	if (read_all(x->fd, r->payload, r->h.len) < 0) {
		errx_msg("reading from %s: %s", x->sock,
			 errno ? strerror(errno) : "connection closed");
		goto fail;
	}
	r->payload[r->h.len] = '\0';
	if ((kv_reply || r->h.status != CTL_OK) &&
	    ctl_kv_parse(r->payload, r->h.len, &r->kv, err, sizeof(err)) < 0) {
		if (st == CTL_E_VERSION)
			errx_msg("kcsmuxctl protocol %d, daemon speaks %u",
				 CTL_VERSION, r->h.version);
		else
			errx_msg("bad reply from kcsmuxd: %s", err);
		goto fail;
	}
	if (r->h.status != CTL_OK) {
		print_errors(r);
		if (r->h.status == CTL_E_VERSION)
			ctl_disconnect(x);
		reply_free(r);
		return -1;
	}
	if (st == CTL_E_VERSION) {
		errx_msg("kcsmuxctl protocol %d, daemon speaks %u", CTL_VERSION,
			 r->h.version);
		goto fail;
	}
	if ((r->h.type & (uint16_t)~CTL_REPLY) != type ||
	    !(r->h.type & CTL_REPLY)) {
		errx_msg("kcsmuxd answered with %s to %s",
			 ctl_type_name(r->h.type, tb, sizeof(tb)),
			 ctl_type_name(type, err, sizeof(err)));
		goto fail;
	}
	return 0;
fail:
	ctl_disconnect(x);
	reply_free(r);
	return -1;
}
