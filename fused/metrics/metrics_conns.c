// SPDX-License-Identifier: GPL-2.0
/*
 * metrics_conns.c - the metrics server's connection caps (metrics.h): who
 * is at the other end of each connection evhttp accepts, and whether it
 * may stay.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>

#include "util/log.h"
#include "metrics/metrics.h"
#include "metrics/metrics_priv.h"

/*
 * A connection evhttp accepted. libevent 2.1's evhttp has no hook on
 * accept nor a count of its connections, but it asks evhttp_set_bevcb()'s
 * callback for each new connection's bufferevent: that callback makes the
 * same plain socket bufferevent evhttp would, keeps a reference to it and
 * schedules check_conns(), which runs once evhttp has set the descriptor
 * and the connection up, before anything is read. check_conns() finds the
 * peer and either admits the connection (counted until evhttp's close
 * callback) or frees it.
 */
struct mconn {
	struct mconns *mc; /* whose */
	union {
		LIST_ENTRY(mconn) link;	 /* admitted */
		TAILQ_ENTRY(mconn) next; /* pending, in accept order */
	};
	struct bufferevent *bev; /* pending: our reference */
	bool known;		 /* uid found (a local peer) */
	uid_t uid;
	struct sockaddr_storage addr; /* uid unknown: the peer */
};

/* The connections' state, metrics_http.c's (mconns_start allocates it,
 * mconns_stop frees it); the callbacks get it as their arg, or from the
 * connection (c->mc). */
struct mconns {
	struct event *check;	     /* runs check_conns() */
	TAILQ_HEAD(, mconn) pending; /* not checked yet */
	LIST_HEAD(, mconn) conns;    /* admitted */
	unsigned int nconns;	     /* in conns */
	unsigned long refused;	     /* over a cap */
	int diag;		     /* NETLINK_SOCK_DIAG; -1: none */
	bool warned_uid;	     /* a local peer's uid was unknown */
	uint32_t seq;		     /* of the last NETLINK_SOCK_DIAG query */
	struct log_rl rl;
};

/*
 * The uid owning the peer's socket of the TCP connection FD, for a peer on
 * this host: NETLINK_SOCK_DIAG's lookup of the socket whose local end is
 * FD's remote one (as ss(8) does). 0, or -1 (a remote peer, no socket).
 */
static int peer_uid(int diag, uint32_t *seqp, int fd, uid_t *uid)
{
	struct sockaddr_storage me, peer;
	socklen_t ml = sizeof(me), pl = sizeof(peer);
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req;
	union {
		struct nlmsghdr h;
		char buf[8192];
	} resp;
	uint32_t seq;
	struct nlmsghdr *h;
	ssize_t n;

	if (diag < 0 || getsockname(fd, (struct sockaddr *)&me, &ml) < 0 ||
	    getpeername(fd, (struct sockaddr *)&peer, &pl) < 0 ||
	    me.ss_family != peer.ss_family)
		return -1;
	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	req.nlh.nlmsg_seq = seq = ++*seqp;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~0U;
	req.r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (me.ss_family == AF_INET) {
		const struct sockaddr_in *m = (const void *)&me;
		const struct sockaddr_in *p = (const void *)&peer;

		req.r.sdiag_family = AF_INET;
		req.r.id.idiag_sport = p->sin_port;
		req.r.id.idiag_dport = m->sin_port;
		memcpy(req.r.id.idiag_src, &p->sin_addr, 4);
		memcpy(req.r.id.idiag_dst, &m->sin_addr, 4);
	} else if (me.ss_family == AF_INET6) {
		const struct sockaddr_in6 *m = (const void *)&me;
		const struct sockaddr_in6 *p = (const void *)&peer;

		req.r.id.idiag_sport = p->sin6_port;
		req.r.id.idiag_dport = m->sin6_port;
		if (IN6_IS_ADDR_V4MAPPED(&p->sin6_addr) &&
		    IN6_IS_ADDR_V4MAPPED(&m->sin6_addr)) {
			/* an IPv4 peer on a dual-stack listener */
			req.r.sdiag_family = AF_INET;
			memcpy(req.r.id.idiag_src, &p->sin6_addr.s6_addr[12],
			       4);
			memcpy(req.r.id.idiag_dst, &m->sin6_addr.s6_addr[12],
			       4);
		} else {
			req.r.sdiag_family = AF_INET6;
			memcpy(req.r.id.idiag_src, &p->sin6_addr, 16);
			memcpy(req.r.id.idiag_dst, &m->sin6_addr, 16);
		}
	} else {
		return -1;
	}
	if (send(diag, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		return -1;
	/* The kernel answers before send() returns; older answers (of a
	 * lookup that failed half-way) are skipped by their number. */
	while ((n = recv(diag, &resp, sizeof(resp), MSG_DONTWAIT)) > 0) {
		for (h = &resp.h; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
			    h->nlmsg_len <
				    NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
				return -1;
			*uid = ((const struct inet_diag_msg *)NLMSG_DATA(h))
				       ->idiag_uid;
			return 0;
		}
	}
	return -1;
}

static bool is_loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *s4 = (const void *)ss;
	const struct sockaddr_in6 *s6 = (const void *)ss;

	if (ss->ss_family == AF_INET)
		return (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) ||
		       (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) &&
			s6->sin6_addr.s6_addr[12] == 127);
	return false;
}

static bool same_peer(const struct mconn *a, const struct mconn *b)
{
	const struct sockaddr_in *a4 = (const void *)&a->addr;
	const struct sockaddr_in *b4 = (const void *)&b->addr;
	const struct sockaddr_in6 *a6 = (const void *)&a->addr;
	const struct sockaddr_in6 *b6 = (const void *)&b->addr;

	if (a->known || b->known)
		return a->known && b->known && a->uid == b->uid;
	if (a->addr.ss_family != b->addr.ss_family)
		return false;
	if (a->addr.ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	if (a->addr.ss_family == AF_INET6)
		return memcmp(&a6->sin6_addr, &b6->sin6_addr, 16) == 0;
	return true;
}

/* The peers like C's among the admitted connections. */
static unsigned int conns_like(const struct mconn *c)
{
	const struct mconn *o;
	unsigned int n = 0;

	LIST_FOREACH (o, &c->mc->conns, link)
		n += same_peer(o, c);
	return n;
}

static void conn_closed(struct evhttp_connection *evcon, void *arg)
{
	struct mconn *c = arg;

	(void)evcon;
	LIST_REMOVE(c, link);
	c->mc->nconns--;
	free(c);
}

/* Over a cap: every slot taken, the last METRICS_ROOT_SLOTS kept for
 * root, or METRICS_MAX_PER_UID for this peer (root excepted). */
static bool over_cap(const struct mconn *c)
{
	const struct mconns *mc = c->mc;
	bool root = c->known && c->uid == 0;

	if (mc->nconns >= METRICS_MAX_CONNS)
		return true;
	if (root)
		return false;
	return mc->nconns >= METRICS_MAX_CONNS - METRICS_ROOT_SLOTS ||
	       conns_like(c) >= METRICS_MAX_PER_UID;
}

/* C's connection, now set up by evhttp: admitted, or refused (closed). */
static void conn_check(struct mconn *c)
{
	struct mconns *mc = c->mc;
	struct bufferevent *bev = c->bev;
	struct evhttp_connection *evcon;
	bufferevent_data_cb rcb = NULL;
	socklen_t len = sizeof(c->addr);
	void *arg = NULL;
	int fd;

	c->bev = NULL;
	bufferevent_getcb(bev, &rcb, NULL, NULL, &arg);
	fd = bufferevent_getfd(bev);
	evcon = arg; /* evhttp gives its callbacks the evcon */
	if (rcb == NULL || fd < 0 || evcon == NULL ||
	    evhttp_connection_get_bufferevent(evcon) != bev) {
		/* already freed by evhttp (out of memory) */
		bufferevent_decref(bev);
		free(c);
		return;
	}
	c->known = peer_uid(mc->diag, &mc->seq, fd, &c->uid) == 0;
	if (!c->known && getpeername(fd, (struct sockaddr *)&c->addr, &len) < 0)
		memset(&c->addr, 0, sizeof(c->addr));
	if (!c->known && is_loopback(&c->addr) && !mc->warned_uid) {
		mc->warned_uid = true;
		log_warn(
			"metrics: a local client's uid is unknown "
			"(NETLINK_SOCK_DIAG: is inet_diag loaded?): local clients "
			"are capped by address, not per uid");
	}
	if (over_cap(c)) {
		mc->refused++;
		if (c->known)
			log_ratelimited(&mc->rl, LOG_WARNING,
					"metrics: too many "
					"connections, refusing uid %u",
					(unsigned)c->uid);
		else
			log_ratelimited(&mc->rl, LOG_WARNING,
					"metrics: too many "
					"connections, refusing a remote peer");
		evhttp_connection_free(evcon); /* closes it */
		bufferevent_decref(bev);
		free(c);
		return;
	}
	evhttp_connection_set_closecb(evcon, conn_closed, c);
	LIST_INSERT_HEAD(&mc->conns, c, link);
	mc->nconns++;
	bufferevent_decref(bev);
}

static void check_conns(evutil_socket_t fd, short what, void *arg)
{
	struct mconns *mc = arg;
	struct mconn *c;

	(void)fd;
	(void)what;
	while ((c = TAILQ_FIRST(&mc->pending)) != NULL) {
		TAILQ_REMOVE(&mc->pending, c, next);
		conn_check(c);
	}
}

/* evhttp_set_bevcb(): a new connection's bufferevent, the one evhttp
 * would make (a socket bufferevent, no options), noted for check_conns().
 * NULL (out of memory): evhttp makes its own, and it goes uncounted. */
static struct bufferevent *conn_new(struct event_base *base, void *arg)
{
	struct mconns *mc = arg;
	struct mconn *c = calloc(1, sizeof(*c));
	struct bufferevent *bev =
		c ? bufferevent_socket_new(base, -1, 0) : NULL;

	if (!bev) {
		free(c);
		return NULL;
	}
	bufferevent_incref(bev);
	c->mc = mc;
	c->bev = bev;
	TAILQ_INSERT_TAIL(&mc->pending, c, next);
	event_active(mc->check, EV_TIMEOUT, 1);
	return bev;
}

unsigned int mconns_count(const struct mconns *mc)
{
	return mc != NULL ? mc->nconns : 0;
}

unsigned long mconns_refused(const struct mconns *mc)
{
	return mc != NULL ? mc->refused : 0;
}

struct mconns *mconns_start(struct evhttp *http, struct event_base *base)
{
	struct mconns *mc = calloc(1, sizeof(*mc));

	if (mc == NULL)
		return NULL;
	mc->diag = -1;
	TAILQ_INIT(&mc->pending);
	LIST_INIT(&mc->conns);
	mc->check = event_new(base, -1, 0, check_conns, mc);
	if (!mc->check) {
		free(mc);
		return NULL;
	}
	evhttp_set_bevcb(http, conn_new, mc);
	/* Opened now: the seccomp filter allows no new socket but AF_UNIX.
	 * Without it every peer counts by its address. */
	mc->diag = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
			  NETLINK_SOCK_DIAG);
	if (mc->diag < 0)
		log_warn("metrics: NETLINK_SOCK_DIAG: %s: connections "
			 "are capped per address, not per uid",
			 strerror(errno));
	return mc;
}

void mconns_stop(struct mconns *mc)
{
	struct mconn *c;

	if (mc == NULL)
		return;
	while ((c = TAILQ_FIRST(&mc->pending)) != NULL) {
		TAILQ_REMOVE(&mc->pending, c, next);
		bufferevent_decref(c->bev);
		free(c);
	}
	/* none left after evhttp_free(): each had its close callback */
	while ((c = LIST_FIRST(&mc->conns)) != NULL) {
		LIST_REMOVE(c, link);
		free(c);
	}
	event_free(mc->check);
	if (mc->diag >= 0)
		close(mc->diag);
	free(mc);
}
