// SPDX-License-Identifier: GPL-2.0
/*
 * control_socket.c - kcsmuxd's control socket in the event loop: the
 * socket and its connections, their frames read and answered. The
 * requests are control_cmds.c's, a node's view control_views.c's, the
 * credentials and the framing of the replies control_conn.c's.
 *
 * A UNIX stream socket (include/kcsmux/control.h has the protocol), each
 * connection a bufferevent: frames are taken from its input as they
 * complete and each is answered at once into its output, so nothing here
 * blocks. The peer's credentials (SO_PEERCRED, and SO_PEERGROUPS or
 * /proc/PID/status for its supplementary groups) are read at accept:
 * anyone who can reach the socket may LIST, SHOW and STATS; SET and
 * RELOAD need root or a member of admin_group. RELOAD is SIGHUP's
 * daemon_reload() (reload.c), with its error sent back.
 */
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include <kcsmux/control.h>

#include "control/control.h"
#include "control/control_priv.h"
#include "core/core.h"
#include "util/error.h"
#include "util/log.h"

#define CTL_MAX_CONNS	64
#define CTL_MAX_PER_UID 8 /* but root: others cannot lock root out */
#define CTL_ADMIN_SLOTS \
	8		     /* of CTL_MAX_CONNS, kept for root and the
				   admin group: 8 users x 8 cannot lock
				   them out */
#define CTL_EMFILE_RETRY_S 1 /* accept paused that long after EMFILE */
#define CTL_MAX_REQUEST	   (64 * 1024) /* requests are small */
#define CTL_IDLE_SEC	   600 /* a connection silent that long is closed */
#define CTL_WRITE_SEC	   30  /* a reader that long stuck is closed */

/* ---- connections ---- */

static void conn_free(struct ctl_conn *c)
{
	LIST_REMOVE(c, link);
	c->ctl->nconns--;
	bufferevent_free(c->bev);
	free(c);
}

/* Answer every complete frame in the input, unless the output is already
 * backed up (then the write callback comes back here once it drains). */
static void conn_process(struct ctl_conn *c)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	struct evbuffer *out = bufferevent_get_output(c->bev);
	uint8_t raw[CTL_HDR_LEN];
	struct ctl_hdr h;
	enum ctl_status st;
	const char *payload;

	while (!c->closing && evbuffer_get_length(out) < CTL_MAX_PAYLOAD &&
	       evbuffer_get_length(in) >= CTL_HDR_LEN) {
		evbuffer_copyout(in, raw, sizeof(raw));
		st = ctl_hdr_decode(raw, &h);
		if (st == CTL_E_PROTO || h.len > CTL_MAX_REQUEST) {
			log_debug("control: pid %ld: bad frame (magic %08x, "
				  "%u bytes): closing",
				  (long)c->pid, h.magic, h.len);
			/* The answers to the requests before it still go. */
			c->closing = true;
			bufferevent_disable(c->bev, EV_READ);
			break;
		}
		if (evbuffer_get_length(in) < CTL_HDR_LEN + (size_t)h.len)
			return; /* the rest is on its way */
		if (st == CTL_E_VERSION) {
			control_reply_err(c, h.type & (uint16_t)~CTL_REPLY,
					  CTL_E_VERSION,
					  "kcsmuxctl protocol %u, daemon "
					  "speaks %u",
					  h.version, CTL_VERSION);
			c->closing = true;
			break;
		}
		payload = (const char *)
			evbuffer_pullup(in, (ev_ssize_t)(CTL_HDR_LEN + h.len));
		if (payload == NULL) {
			conn_free(c);
			return;
		}
		control_handle(c, &h, payload + CTL_HDR_LEN);
		evbuffer_drain(in, CTL_HDR_LEN + (size_t)h.len);
	}
	if (c->closing && evbuffer_get_length(out) == 0)
		conn_free(c);
}

static void conn_read(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn_process(arg);
}

static void conn_write(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn_process(arg); /* output drained: pending requests, close */
}

static void conn_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	conn_free(arg); /* EOF, error or timeout */
}

static unsigned int conns_of(const struct control *ctl, uid_t uid)
{
	const struct ctl_conn *c;
	unsigned int n = 0;

	LIST_FOREACH (c, &ctl->conns, link)
		n += c->uid == uid;
	return n;
}

static void on_accept(struct evconnlistener *lev, evutil_socket_t fd,
		      struct sockaddr *sa, int salen, void *arg)
{
	struct control *ctl = arg;
	struct daemon *d = ctl->d;
	struct timeval rt = { CTL_IDLE_SEC, 0 }, wt = { CTL_WRITE_SEC, 0 };
	struct ucred cr;
	socklen_t len = sizeof(cr);
	struct ctl_conn *c;
	bool admin;

	(void)lev;
	(void)sa;
	(void)salen;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		log_ratelimited(&ctl->rl, LOG_WARNING,
				"control: "
				"SO_PEERCRED: %s",
				strerror(errno));
		close(fd);
		return;
	}
	admin = ctl->nconns >= CTL_MAX_CONNS - CTL_ADMIN_SLOTS &&
		control_peer_admin(d, fd, &cr);
	if (ctl->nconns >= CTL_MAX_CONNS ||
	    (ctl->nconns >= CTL_MAX_CONNS - CTL_ADMIN_SLOTS && !admin) ||
	    (cr.uid != 0 && conns_of(ctl, cr.uid) >= CTL_MAX_PER_UID)) {
		log_ratelimited(&ctl->rl, LOG_WARNING,
				"control: too many "
				"connections, refusing uid %u (pid %ld)",
				(unsigned)cr.uid, (long)cr.pid);
		close(fd);
		return;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		close(fd);
		return;
	}
	c->ctl = ctl;
	c->pid = cr.pid;
	c->uid = cr.uid;
	c->gid = cr.gid;
	c->bev = bufferevent_socket_new(d->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (c->bev == NULL) {
		close(fd);
		free(c);
		return;
	}
	bufferevent_setcb(c->bev, conn_read, conn_write, conn_event, c);
	bufferevent_setwatermark(c->bev, EV_READ, 0,
				 CTL_HDR_LEN + CTL_MAX_REQUEST);
	bufferevent_set_timeouts(c->bev, &rt, &wt);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	LIST_INSERT_HEAD(&ctl->conns, c, link);
	ctl->nconns++;
	log_debug("control: connection from pid %ld uid %u gid %u",
		  (long)cr.pid, (unsigned)cr.uid, (unsigned)cr.gid);
}

static void resume_accepting(evutil_socket_t fd, short what, void *arg)
{
	struct control *ctl = arg;

	(void)fd;
	(void)what;
	if (ctl->lev)
		evconnlistener_enable(ctl->lev);
}

/* EMFILE/ENFILE: libevent would retry at once, forever (100% CPU and a
 * log line each time); pause accepting and try again in a second. */
static void on_accept_error(struct evconnlistener *lev, void *arg)
{
	struct control *ctl = arg;
	struct timeval tv = { CTL_EMFILE_RETRY_S, 0 };
	int err = errno;

	ctl->accept_errors++;
	if ((err == EMFILE || err == ENFILE || err == ENOBUFS ||
	     err == ENOMEM) &&
	    ctl->resume) {
		evconnlistener_disable(lev);
		evtimer_add(ctl->resume, &tv);
		log_ratelimited(&ctl->rl, LOG_WARNING,
				"control: accept: %s: "
				"not accepting for %d s",
				strerror(err), CTL_EMFILE_RETRY_S);
		return;
	}
	log_ratelimited(&ctl->rl, LOG_WARNING, "control: accept: %s",
			strerror(err));
}

/* ---- the socket ---- */

/* mkdir -p DIR's components with mode 0755 (those it creates). */
static int mkdir_parents(const char *path, char **cause)
{
	char *dir = strdup(path), *p;
	struct stat sb;
	int rv = -1;

	if (dir == NULL)
		return error_set(cause, "out of memory");
	if ((p = strrchr(dir, '/')) == NULL || p == dir) {
		free(dir);
		return 0;
	}
	*p = '\0';
	for (p = dir + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(dir, 0755) == 0) {
			if (chmod(dir, 0755) < 0) {
				error_set(cause,
					  "control socket: chmod %s: "
					  "%s",
					  dir, strerror(errno));
				goto out;
			}
		} else if (errno != EEXIST) {
			error_set(cause, "control socket: mkdir %s: %s", dir,
				  strerror(errno));
			goto out;
		} else if (stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			error_set(cause,
				  "control socket: %s is not a "
				  "directory",
				  dir);
			goto out;
		}
		if ((*p = c) == '\0')
			break;
	}
	rv = 0;
out:
	free(dir);
	return rv;
}

/* A socket file at SUN's path: leave it if a daemon answers, else it is
 * stale and goes. Anything else there is an error. */
static int clear_stale(const struct sockaddr_un *sun, char **cause)
{
	struct stat sb;
	int fd, rv;

	if (lstat(sun->sun_path, &sb) < 0)
		return errno == ENOENT ?
			       0 :
			       error_set(cause,
					 "control "
					 "socket %s: %s",
					 sun->sun_path, strerror(errno));
	if (!S_ISSOCK(sb.st_mode))
		return error_set(cause,
				 "control socket %s: exists and is "
				 "not a socket",
				 sun->sun_path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return error_set(cause, "socket: %s", strerror(errno));
	rv = connect(fd, (const struct sockaddr *)sun, sizeof(*sun));
	close(fd);
	if (rv == 0)
		return error_set(cause,
				 "control socket %s: another kcsmuxd "
				 "is listening on it",
				 sun->sun_path);
	if (unlink(sun->sun_path) < 0 && errno != ENOENT)
		return error_set(cause,
				 "control socket %s: removing the "
				 "stale socket: %s",
				 sun->sun_path, strerror(errno));
	return 0;
}

/* control_init's work, on ctl (d->ctl): the socket, if there is to be one. */
static int control_listen(struct daemon *d, struct control *ctl, char **cause)
{
	const char *path = d->cfg.control_socket;
	struct sockaddr_un sun;
	struct stat sb;
	int fd = -1;

	if (path == NULL || *path == '\0') {
		log_info("control socket disabled");
		return 0;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path))
		return error_set(cause, "control socket %s: path too long",
				 path);
	strcpy(sun.sun_path, path);
	if (mkdir_parents(path, cause) < 0 || clear_stale(&sun, cause) < 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return error_set(cause, "socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		error_set(cause, "control socket %s: bind: %s", path,
			  strerror(errno));
		goto fail;
	}
	/* Everyone may connect; each request is decided by credentials. */
	if (chmod(path, 0666) < 0 || stat(path, &sb) < 0) {
		error_set(cause, "control socket %s: %s", path,
			  strerror(errno));
		unlink(path);
		goto fail;
	}
	if (listen(fd, 16) < 0) {
		error_set(cause, "control socket %s: listen: %s", path,
			  strerror(errno));
		unlink(path);
		goto fail;
	}
	ctl->lev = evconnlistener_new(d->base, on_accept, ctl,
				      LEV_OPT_CLOSE_ON_FREE |
					      LEV_OPT_CLOSE_ON_EXEC,
				      0, fd);
	if (ctl->lev == NULL) {
		error_set(cause,
			  "control socket %s: evconnlistener_new "
			  "failed",
			  path);
		unlink(path);
		goto fail;
	}
	evconnlistener_set_error_cb(ctl->lev, on_accept_error);
	ctl->resume = evtimer_new(d->base, resume_accepting, ctl);
	if ((ctl->path = strdup(path)) == NULL) {
		evconnlistener_free(ctl->lev);
		ctl->lev = NULL;
		unlink(path);
		return error_set(cause, "out of memory");
	}
	ctl->dev = sb.st_dev;
	ctl->ino = sb.st_ino;
	log_info("control socket %s", path);
	return 0;
fail:
	close(fd);
	return -1;
}

int control_init(struct daemon *d, char **cause)
{
	/* stats -j reports mallinfo2(); the first call initialises glibc's
	 * malloc if nothing has yet (a sanitized build, whose allocator is
	 * ASan's), which calls getrandom: do it now, before the seccomp
	 * filter, not from the first stats request under it. */
	struct control *ctl;

	(void)mallinfo2();
	if ((ctl = calloc(1, sizeof(*ctl))) == NULL)
		return error_set(cause, "out of memory");
	LIST_INIT(&ctl->conns);
	ctl->d = d;
	d->ctl = ctl;
	if (control_listen(d, ctl, cause) == 0)
		return 0;
	if (ctl->resume != NULL)
		event_free(ctl->resume);
	free(ctl);
	d->ctl = NULL;
	return -1;
}

unsigned long control_accept_errors(const struct daemon *d)
{
	return d->ctl != NULL ? d->ctl->accept_errors : 0;
}

void control_fini(struct daemon *d)
{
	struct control *ctl = d->ctl;
	struct stat sb;

	if (ctl == NULL)
		return;
	while (!LIST_EMPTY(&ctl->conns))
		conn_free(LIST_FIRST(&ctl->conns));
	if (ctl->lev != NULL)
		evconnlistener_free(ctl->lev);
	ctl->lev = NULL;
	if (ctl->resume != NULL)
		event_free(ctl->resume);
	ctl->resume = NULL;
	/*
	 * Remove the socket only if it is still ours (not a successor's).
	 * After dropping root (user = ...) the directory may not let us:
	 * the next start replaces the stale socket anyway.
	 */
	if (ctl->path != NULL && lstat(ctl->path, &sb) == 0 &&
	    sb.st_dev == ctl->dev && sb.st_ino == ctl->ino &&
	    unlink(ctl->path) < 0)
		log_msg(errno == EACCES || errno == EPERM ? LOG_DEBUG :
							    LOG_WARNING,
			"control socket %s: %s", ctl->path, strerror(errno));
	free(ctl->path);
	free(ctl);
	d->ctl = NULL;
}
