/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cuse.h - the CUSE front end (cuse/): open files and their receive queues,
 * node sessions, command registrations. It calls the core (core/xact.h)
 * and answers the core's upcalls (client_upcalls).
 *
 *   client   one open file of a node: the stock driver's per-file state and
 *            receive queue (client.c implements the ioctl ABI)
 *   kmsg     a message in a client's receive queue
 */
#ifndef KCSMUX_CUSE_H
#define KCSMUX_CUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include "core/core.h"
#include "cuse/ipmi_abi.h"

struct fuse_req;
struct fuse_pollhandle;

/* A message waiting in a client's receive queue. */
struct kmsg {
	TAILQ_ENTRY(kmsg) link;
	int32_t recv_type; /* IPMI_*_RECV_TYPE */
	struct ipmi_address addr;
	uint8_t addr_raw[ABI_MAX_ADDR_LEN]; /* a response: its request's */
	uint8_t addr_raw_len;
	int64_t msgid;
	uint8_t netfn, cmd;
	uint16_t data_len;
	uint8_t data[IPMI_MAX_MSG_LENGTH];
	/* an event in the backlog: the node it waits for (client.c) */
	const struct node *for_node;
};
TAILQ_HEAD(kmsg_list, kmsg);

#define KCSMUX_IO_GRANTS 4 /* threads with a SEND/RECEIVE in flight */

struct client {
	LIST_ENTRY(client) link;
	struct node *node;
	uint64_t id;
	pid_t pid;
	uid_t uid;
	char comm[16]; /* its process name at open (/proc/PID/comm) */
	/* uid and groups at open (/proc/PID/status), for admin_users and
	 * admin_groups: client_acc() */
	struct kcsmux_opener who;
	/* its own counters (kcsmuxctl show): requests accepted, answered
	 * with an error, refused by the access list */
	uint64_t nreq, nerr, ndenied;
	/* buffer guesses (ioctl.c) made, held and missed; [0] SEND,
	 * [1] RECEIVE (the node adds them up too) */
	uint64_t guess_made[2], guess_held[2], guess_missed[2];

	struct kmsg_list rq; /* received messages */
	unsigned int rq_len;
	unsigned int rq_events;	    /* of rq_len: events */
	struct fuse_pollhandle *ph; /* last poll() that asked to be told */

	unsigned int outstanding; /* requests sent, not yet answered */
	struct xact_list xacts;	  /* those requests (xact->olink) */
	bool gets_events;
	unsigned int nregs;	/* command registrations (cmdreg.c) */
	unsigned int queued;	/* of outstanding: in the node's queue */
	bool revoked;		/* lost access in a reload: EACCES */
	int32_t timing_retries; /* IPMICTL_SET_TIMING_PARMS */
	uint32_t timing_retry_ms;

	/* SEND and RECEIVE in 2 round trips (client.c): the buffers the
	 * last SEND and RECEIVE named, and per thread the memory our last
	 * retry granted its call in flight (tid 0: free slot). */
	struct abi_req last_send;
	uint64_t last_send_arg; /* 0: none yet */
	struct abi_recv last_recv;
	uint64_t last_recv_arg;
	/* RECEIVE output buffers (address, data) the kernel has copied in
	 * for us once, so known to be mapped: only these are guessed */
	struct abi_span recv_proven[2];
	struct io_grant {
		pid_t tid;
		int op; /* enum abi_op */
		int n;
		bool guess;
		/* a SEND's guess of the struct's whole page(s): sp[0] is
		 * the window the call's input is, not spans end to end */
		bool window;
		struct abi_span sp[ABI_RECV_SPANS];
	} grant[KCSMUX_IO_GRANTS];
	unsigned int grant_next;
};

/* The front end's daemon-wide state (d->fe). */
struct cmdreg_table;
struct frontend {
	/* events each events node's first subscriber takes, tagged with
	 * their node (kmsg.for_node); at most event_backlog per node */
	struct kmsg_list event_backlog;
	unsigned int event_backlog_len;
	struct cmdreg_table *cmdreg; /* command registrations (cmdreg.c) */
	struct handover *ho;	     /* restarts (handover.c) */
	/* main's: a node's device is ready (its owner and mode set) */
	void (*node_ready)(struct daemon *d);
};

/* What the front end answers the core with (d->up). */
extern const struct core_upcalls client_upcalls;
/* Set up d->fe and d->up (before nodes are made); node_ready is called
 * each time a node's device is ready. -1 without memory. */
int frontend_init(struct daemon *d, void (*node_ready)(struct daemon *d));
void frontend_fini(struct daemon *d);

/* node.c */
int node_create(struct daemon *d, const struct kcsmux_node_conf *conf,
		char **cause);
void node_destroy(struct node *n);
/* -1 with *cause if /dev/NAME exists (a node must not take another
 * device's name); kcsmuxd -n and node_create() ask. */
int node_name_check(const char *name, char **cause);
/* Open files of UID on N, and how many one uid may have. */
unsigned int node_uid_files(const struct node *n, uid_t uid);
unsigned int node_uid_open_share(const struct node *n);
/* Owner and mode of the node's device, through an O_PATH|O_NOFOLLOW
 * descriptor, only if it is the node's CUSE character device; NARROW (or
 * (mode_t)-1) is applied first. */
int node_set_owner_mode(const struct node *n, uid_t uid, gid_t gid, mode_t mode,
			mode_t narrow);

/* client.c: the /dev/ipmiN semantics of one open file */
/* The file's user lost access (reload): drop its work and registrations,
 * fail its calls with EACCES, wake its poll() (POLLERR). */
void client_revoke(struct client *c);
struct client *client_new(struct node *n, pid_t pid, uid_t uid);
/* The access rules of C's requests: the node's admin_access rules when
 * its opener is one of the node's admin_users or admin_groups, else the
 * node's access rules. */
const struct kcsmux_access *client_acc(const struct client *c);
/* The log line of a refused request: node, uid, pid and process name, the
 * refused command by name and number, and the rule that refused it. */
void client_deny_msg(char *buf, size_t len, const struct client *c,
		     enum access_verdict v, const struct access_why *why);
void client_free(struct client *c);
/* The node is going away: its events in the backlog are dropped. */
void client_node_gone(struct node *n);
/* Move the backlog's events for c's node to c (its first subscriber). */
void client_take_backlog(struct client *c);
void client_deliver(struct client *c, struct kmsg *m);
/* A receive-queue entry holding u; NULL without memory. */
struct kmsg *kmsg_new(const struct ipmb_user_msg *u);
/* A request of c (SEND, once decoded and its address parsed): checked as
 * the stock driver and the node's rules check it, then queued on the node
 * or bridged. Sets rq's netfn to its 6 wire bits and its flags. 0 or a
 * negative errno. */
int client_send(struct client *c, struct ipmi_request *rq);
/* c closes or lost access: its requests are cancelled. */
void client_cancel_all(struct client *c);

/* One ioctl call as CUSE hands it over (libfuse's ioctl operation): the
 * bytes the kernel copied in this round, and how many it can copy out. */
struct cuse_ioctl {
	struct fuse_req *req;
	unsigned int cmd;
	void *arg;	    /* the caller's pointer */
	unsigned int flags; /* FUSE_IOCTL_* */
	const void *in;
	size_t in_len, out_len;
};
void client_ioctl(struct client *c, const struct cuse_ioctl *io);

/* cmdreg.c: command registrations, per interface; at most
 * CMDREG_MAX_PER_FILE (netfn, cmd) entries per open file (-ENOMEM past it),
 * an empty channel mask is -EINVAL, a node without "commands" -EPERM. */
#define CMDREG_MAX_PER_FILE 64
int cmdreg_ioctl(struct client *c, const struct abi_ioctl *ent, const void *in,
		 size_t in_len);
struct client *cmdreg_lookup(struct daemon *d, uint8_t netfn, uint8_t cmd,
			     unsigned int chan);
void cmdreg_client_gone(struct client *c);
/* c's registrations (a graceful restart carries them over): up to MAX
 * into OUT, how many c holds returned. */
struct cmdreg_ent {
	uint8_t netfn, cmd;
	uint32_t chans;
};
unsigned int cmdreg_list(const struct client *c, struct cmdreg_ent *out,
			 unsigned int max);
/* One of them again in the next process: as REGISTER_FOR_CMD_CHANS,
 * -EPERM if the node no longer has "commands". 0 or -errno. */
int cmdreg_restore(struct client *c, const struct cmdreg_ent *e);
bool cmdreg_any(struct daemon *d);
/* The table in d->fe (frontend_init/fini call these); -1 without memory. */
int cmdreg_init(struct daemon *d);
void cmdreg_fini(struct daemon *d);

#endif /* KCSMUX_CUSE_H */
