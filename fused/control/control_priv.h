/* SPDX-License-Identifier: GPL-2.0 */
/*
 * control_priv.h - what the control socket's files share: control_socket.c
 * (the socket and its connections), control_conn.c (their rights and
 * replies), control_cmds.c (the requests) and control_views.c (a node as
 * the protocol shows it).
 */
#ifndef KCSMUX_FUSED_CONTROL_PRIV_H
#define KCSMUX_FUSED_CONTROL_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include <kcsmux/control.h>

#include "core/core.h"
#include "util/log.h"

struct bufferevent;
struct evconnlistener;
struct event;

struct ctl_conn {
	LIST_ENTRY(ctl_conn) link;
	struct control *ctl;
	struct bufferevent *bev;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	bool closing; /* free once the output is flushed */
};

/* The control socket's state, d->ctl (control_init allocates it, control_fini
 * frees it); the listener's and the timer's callbacks get it as their arg. */
struct control {
	struct daemon *d;
	struct evconnlistener *lev;
	struct event *resume; /* accepting again after EMFILE */
	unsigned long accept_errors;
	char *path;
	dev_t dev;
	ino_t ino;
	LIST_HEAD(, ctl_conn) conns;
	unsigned int nconns;
	struct log_rl rl;
};

/* control_conn.c */

struct ucred;
/* Root, or a member of admin_group: the peer of FD with credentials CR
 * (at accept, for the admin slots). */
bool control_peer_admin(const struct daemon *d, int fd, const struct ucred *cr);
/* The same, decided per request from the credentials the socket recorded
 * at connect. */
bool control_conn_admin(const struct ctl_conn *c);
/* B as the reply of TYPE with status ST into C's output (an error reply
 * instead if B ran out of memory or is too large). */
void control_reply(struct ctl_conn *c, uint16_t type, enum ctl_status st,
		   struct ctl_buf *b);
/* An error reply: one error= line per line of the message. */
void control_reply_err(struct ctl_conn *c, uint16_t type, enum ctl_status st,
		       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* control_cmds.c */

/* Answer one request frame (header H, its payload). */
void control_handle(struct ctl_conn *c, const struct ctl_hdr *h,
		    const char *payload);

/* control_views.c */

/* Policy values for ni->policy[]: NPOL strings of 48 bytes. */
#define POLVAL_LEN 48

/* A node's ctl_node_info and the strings and clients it points to. */
struct node_snap {
	struct ctl_node_info ni;
	char access[48];
	char polval[CTL_POLICY_MAX][POLVAL_LEN];
	struct ctl_client_info *clients;
};

/* N at NOW into S; CLIENTS: NULL, or the connection asking (which clients
 * it sees). node_snap_free() frees it. */
void node_snap(const struct node *n, uint64_t now,
	       const struct ctl_conn *clients, struct node_snap *s);
void node_snap_free(struct node_snap *s);
/* SHOW's lines after the node's: its SDR/FRU cache, coalescing and (backoff
 * = adaptive) one line per adaptive window. */
void node_show_kv(const struct node *n, struct ctl_buf *b);

#endif /* KCSMUX_FUSED_CONTROL_PRIV_H */
