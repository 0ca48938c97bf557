/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcsmuxd.h - the daemon's core objects and how they meet.
 *
 *   node     one virtual /dev/NAME: a CUSE session in the event loop, its
 *            policy and its open files (node.c)
 *   client   one open file of a node: the stock driver's per-file state and
 *            receive queue (client.c implements the ioctl ABI)
 *   xact     one request on its way to the BMC: scheduled (sched.c), run
 *            by the backend, answered back to its client (xact.c)
 *   backend  the one interface: kcsraw.ko or a stock /dev/ipmiN
 */
#ifndef KCSMUX_KCSMUXD_H
#define KCSMUX_KCSMUXD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>
#include <time.h>

#include <kcsmux/kcsraw.h>

#include "admin/config.h"
#include "cuse/ipmi_abi.h"
#include "core/adaptive.h"
#include "util/log.h"
#include "core/nodestats.h"
#include "core/sched.h"

struct event_base;
struct event;
struct fuse_session;
struct fuse_req;
struct fuse_pollhandle;
struct backend;

/* A message waiting in a client's receive queue. */
struct kmsg {
	TAILQ_ENTRY(kmsg) link;
	int32_t recv_type;		/* IPMI_*_RECV_TYPE */
	struct abi_addr addr;
	uint8_t addr_raw[ABI_MAX_ADDR_LEN];	/* a response: its request's */
	uint8_t addr_raw_len;
	int64_t msgid;
	uint8_t netfn, cmd;
	uint16_t data_len;
	uint8_t data[IPMI_MAX_MSG_LENGTH];
};
TAILQ_HEAD(kmsg_list, kmsg);

struct xact;
TAILQ_HEAD(xact_list, xact);

#define KCSMUX_IO_GRANTS 4	/* threads with a SEND/RECEIVE in flight */

struct client {
	LIST_ENTRY(client) link;
	struct node *node;
	uint64_t id;
	pid_t pid;
	uid_t uid;

	struct kmsg_list rq;		/* received messages */
	unsigned int rq_len;
	struct fuse_pollhandle *ph;	/* last poll() that asked to be told */

	unsigned int outstanding;	/* requests sent, not yet answered */
	struct xact_list xacts;		/* those requests */
	bool gets_events;
	unsigned int nregs;		/* command registrations (cmdreg.c) */
	unsigned int queued;		/* of outstanding: in the node's queue */
	bool revoked;			/* lost access in a reload: EACCES */
	int32_t timing_retries;		/* IPMICTL_SET_TIMING_PARMS */
	uint32_t timing_retry_ms;

	/* SEND and RECEIVE in 2 round trips (client.c): the buffers the
	 * last SEND and RECEIVE named, and per thread the memory our last
	 * retry granted its call in flight (tid 0: free slot). */
	struct abi_req last_send;
	uint64_t last_send_arg;		/* 0: none yet */
	struct abi_recv last_recv;
	uint64_t last_recv_arg;
	/* RECEIVE output buffers (address, data) the kernel has copied in
	 * for us once, so known to be mapped: only these are guessed */
	struct abi_span recv_proven[2];
	struct io_grant {
		pid_t tid;
		int op;			/* enum abi_op */
		int n;
		bool guess;
		struct abi_span sp[ABI_RECV_SPANS];
	} grant[KCSMUX_IO_GRANTS];
	unsigned int grant_next;
};
LIST_HEAD(client_list, client);

/* What nodestats does not count. */
struct node_counters {
	uint64_t denied;	/* refused by the access list (cc 0xd4) */
	uint64_t busy;		/* EBUSY: outstanding or client limits */
	uint64_t opens;
	uint64_t sleeps;	/* poller sleeps of its transactions */
	uint64_t throttled;	/* run cheaply: the node was over cpu_budget */
	uint64_t held;		/* its queue held until back under budget */
	/* buffers guessed (client.c), and guessed rightly: a round trip
	 * saved; [0] SEND, [1] RECEIVE */
	uint64_t guesses[2];
	uint64_t guess_hits[2];
};

struct node {
	LIST_ENTRY(node) link;
	struct daemon *d;
	struct kcsmux_node_conf conf;
	struct fuse_session *se;
	struct event *ev;
	void *buf;			/* struct fuse_buf, reused */
	bool ready;			/* CUSE INIT done, device exists */
	bool dying;
	unsigned int links;		/* /dev/ipmi/N, /dev/ipmidev/N made */

	struct client_list clients;
	unsigned int nclients;
	struct sched_flow flow;		/* its queue in the scheduler */
	struct nodestats st;
	struct adapt adapt;		/* backoff = adaptive: the BMC's times */
	struct node_counters cnt;
	struct log_rl rl_denied;
	/* The node's own IPMB source address and LUN per channel
	 * (IPMICTL_SET_MY_*: per node, so no node changes another's); [0] is
	 * MY_ADDRESS/MY_LUN. From the daemon's defaults at creation. */
	uint8_t chan_address[ABI_MAX_CHANNELS];
	uint8_t chan_lun[ABI_MAX_CHANNELS];
};
LIST_HEAD(node_list, node);

struct daemon {
	struct event_base *base;
	struct kcsmux_config cfg;
	const char *cfg_path;
	struct node_list nodes;
	struct backend *be;
	struct sched sched;
	struct event *retry_ev;		/* a rate-limited node gets a token */
	uint64_t next_client_id;
	uint64_t next_xact_id;

	/* The defaults of each node's IPMB address and LUN (struct node's
	 * chan_address/chan_lun, which IPMICTL_SET_MY_* change), and what
	 * the daemon itself answers unregistered incoming commands from. */
	uint8_t my_address;
	uint8_t my_lun;
	uint8_t chan_address[ABI_MAX_CHANNELS];
	uint8_t chan_lun[ABI_MAX_CHANNELS];
	int maintenance_mode;		/* 0 auto, 1 off, 2 on */
	struct kmsg_list event_backlog;	/* until the first subscriber */
	unsigned int event_backlog_len;
	/* channel media from the scan at start (bmcsetup.c) */
	uint8_t media[ABI_MAX_CHANNELS];
	bool media_ready;
	bool dropped;			/* running as cfg.user */
	bool sandboxed;			/* the seccomp filter is in */
	int notify_fd;			/* $NOTIFY_SOCKET, connected (notify.c) */

	/* the last reload (SIGHUP or kcsmuxctl reload), for the metrics */
	uint64_t reloads, reload_failures;
	bool last_reload_ok;		/* true before any reload */
	uint64_t last_reload_unix;	/* seconds since the epoch, 0: none */
};

/* Monotonic time in ns. */
uint64_t now_ns(void);

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

/* node.c */
int node_create(struct daemon *d, const struct kcsmux_node_conf *conf,
		char **cause);
void node_destroy(struct node *n);
/* -1 with *cause if /dev/NAME exists (a node must not take another
 * device's name); kcsmuxd -n and node_create() ask. */
int node_name_check(const char *name, char **cause);
/* Owner and mode of the node's device, through an O_PATH|O_NOFOLLOW
 * descriptor, only if it is the node's CUSE character device; NARROW (or
 * (mode_t)-1) is applied first. */
int node_set_owner_mode(const struct node *n, uid_t uid, gid_t gid,
			mode_t mode, mode_t narrow);
void node_notify(struct client *c);
/* The file's user lost access (reload): drop its work and registrations,
 * fail its calls with EACCES, wake its poll() (POLLERR). */
void client_revoke(struct client *c);

/* client.c: the /dev/ipmiN semantics of one open file */
struct client *client_new(struct node *n, pid_t pid, uid_t uid);
void client_free(struct client *c);
void client_deliver(struct client *c, struct kmsg *m);
struct kmsg *kmsg_new(const struct ipmb_user_msg *u);

void client_ioctl(struct client *c, struct fuse_req *req, unsigned int cmd, void *arg,
		  unsigned int flags, const void *in_buf, size_t in_len,
		  size_t out_len);

/* cmdreg.c: command registrations, per interface; at most
 * CMDREG_MAX_PER_FILE (netfn, cmd) entries per open file (-ENOMEM past it),
 * an empty channel mask is -EINVAL, a node without "commands" -EPERM. */
#define CMDREG_MAX_PER_FILE	64
int cmdreg_ioctl(struct client *c, const struct abi_ioctl *ent,
		 const void *in, size_t in_len);
struct client *cmdreg_lookup(uint8_t netfn, uint8_t cmd, unsigned int chan);
void cmdreg_client_gone(struct client *c);
bool cmdreg_any(void);

/* bmcsetup.c: global enables and channel media, as the stock drivers */
void bmc_setup_start(struct daemon *d);
void bmc_setup_recheck(struct daemon *d);
void bmc_setup_fini(struct daemon *d);

/* xact.c */
int xact_send(struct client *c, const struct abi_addr *addr,
	      const uint8_t *addr_raw, uint32_t addr_len, int64_t msgid,
	      uint8_t netfn, uint8_t cmd, const uint8_t *data, uint16_t len,
	      int32_t retries, uint32_t retry_ms);
void xact_client_gone(struct client *c);
void xact_node_gone(struct node *n);
void xact_kick(struct daemon *d);
void xact_complete(struct daemon *d, uint64_t cookie, int status,
		   const uint8_t *resp, unsigned int len,
		   const struct kcsraw_cost *cost);
void xact_attention(struct daemon *d);

#endif /* KCSMUX_KCSMUXD_H */
