/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xact.h - one request on its way to the BMC (xact.c), and the bridge's
 * entry points (bridge.c).
 *
 * Whoever makes a transaction (the front end for a client's request, the
 * core for its own) sets what it needs and a done callback; x->owner is
 * opaque to the core (the front end's open file), NULL for the daemon's
 * own or once the owner went away (xact_cancel).
 */
#ifndef KCSMUX_XACT_H
#define KCSMUX_XACT_H

#include "backend/backend.h"
#include "core/core.h"

/* FOLLOWING: answered with its leader's answer (coalesce.h) */
enum xact_state { XACT_QUEUED, XACT_RUNNING, XACT_FOLLOWING };

struct xact {
	TAILQ_ENTRY(xact) qlink; /* internal queue, or running */
	struct sched_item item;	 /* a node's: in the scheduler */
	TAILQ_ENTRY(xact) olink; /* the owner's list (the owner's) */
	struct daemon *d;
	struct node *node; /* NULL: the daemon's own */
	void *owner;	   /* NULL: daemon's own, or orphaned */
	uint64_t owner_id; /* never reused, unlike the pointer (0: none) */
	uint64_t cookie;
	enum xact_state state;
	bool internal; /* runs ahead of the nodes' queues */
	bool flags;    /* the daemon's message flags machine (bridge.c): runs
			* during a firmware lease (leasegate.h) */
	bool urgent;   /* queued in the scheduler's urgent lane */
	uint64_t t_enq, t_sub;

	/* what the client asked, to address its answer */
	struct ipmi_address addr;
	uint8_t addr_raw[ABI_MAX_ADDR_LEN];
	uint8_t addr_raw_len;
	int64_t msgid;
	uint8_t netfn, cmd;
	/* a reply to an incoming command (bridge.c): its IPMB address, the
	 * transaction itself a Send Message on the system interface */
	struct ipmi_address reply_to;

	bool adaptive;	/* ran with choice (backoff adaptive) */
	bool throttled; /* ran cheaply: node over cpu_budget */
	struct adapt_choice choice;
	int32_t retries; /* IPMB on a bridging backend */
	bool bridged;	 /* submitted as such: counted in be->bridged */
	uint32_t retry_ms;
	uint8_t req[KCSRAW_MAX_MSG]; /* the raw KCS request */
	uint16_t req_len;
	/* Called with the completion; must free x (xact_free). */
	void (*done)(struct xact *x, int status, const uint8_t *resp,
		     unsigned int len);
	/* Called when the scheduler hands a node's x to the backend. */
	void (*dispatched)(struct xact *x);
	void *priv;
	/* coalescing (coalesce.h): a leader on d->coal with its followers,
	 * or a follower on its leader's followers; may_lead (coalesce.c's
	 * verdict) puts it on d->coal when it is queued (xact.c) */
	TAILQ_ENTRY(xact) clink;
	struct xact_list followers;
	struct xact *leader;
	bool may_lead;
	bool leading;
};

/* A file's and a uid's share of a node's queue of QUEUE requests. */
unsigned int xact_file_share(unsigned int queue);
unsigned int xact_uid_share(unsigned int queue);
/* The queue-share rule: may an owner holding FILE_QUEUED of node n's
 * queue, whose uid holds UID_QUEUED, queue one more? */
bool xact_share_allows(const struct node *n, unsigned int file_queued,
		       unsigned int uid_queued);
/*
 * The transaction of a client's system-interface request (or, on a
 * bridging backend, its IPMB one), not yet queued: the request's address
 * and raw address bytes, msgid, netfn, cmd and timing kept to answer it,
 * the KCS bytes (netfn << 2 | lun, cmd, data) made. The maker sets done
 * and dispatched, then xact_enqueue(). NULL: out of memory.
 */
struct xact *xact_from_request(struct node *n, void *owner,
			       const struct ipmi_request *rq);
/* The request x was made from (data: x's own KCS bytes; LUN: the one
 * the BMC gets). */
void xact_request(const struct xact *x, struct ipmi_request *rq);
/* A transaction of node n (NULL: the daemon's own, run ahead of nodes). */
struct xact *xact_new(struct daemon *d, struct node *n);
/* Free x; an owned one is first dropped from its owner's list
 * (d->up->xact_gone). */
void xact_free(struct xact *x);
/* Answer a node's x, not queued, without the BMC (the SDR cache's, a
 * recent coalesced answer): out of its owner's queued count, then done. */
static inline void xact_answer(struct xact *x, int status, const uint8_t *resp,
			       unsigned int len)
{
	if (x->dispatched)
		x->dispatched(x);
	x->done(x, status, resp, len);
}
/*
 * The watchdog's commands (Reset, Set, Get Watchdog Timer, 06:22/24/25)
 * to the BMC: a node's go in the scheduler's urgent lane (sched.h), ahead
 * of the daemon's own work and every node's queue, whatever their node's
 * rate, CPU budget and queue; the front end lets them past the node's
 * queue shares too.
 */
bool xact_urgent_cmd(const struct ipmi_request *rq);
/* Queue x: -EBUSY when its node's queue is full (x not queued). */
int xact_enqueue(struct xact *x);
/* Its owner went away: a queued x is dropped (freed), a running one
 * completes into nothing (its done sees owner NULL). */
void xact_cancel(struct xact *x);
/* The node is going away: its running transactions complete into nothing. */
void xact_node_gone(struct node *n);
/* Submit what the backend has room for. */
void xact_kick(struct daemon *d);
void xact_complete(struct daemon *d, uint64_t cookie, int status,
		   const uint8_t *resp, unsigned int len,
		   const struct kcsraw_cost *cost);

/* bridge.c: IPMB requests wrapped in Send Message, and SMS_ATN */
void bridge_init(struct daemon *d);
void bridge_fini(struct daemon *d);
/* A request of owner (on node n) to an IPMB or LAN address: a sequence
 * slot and a Send Message; its answer comes back through d->up->bridged. */
int bridge_send(struct node *n, void *owner, const struct ipmi_request *rq);
/* A reply to an incoming command (ABI_REQF_RESPONSE; msgid is its
 * sequence), as a Send Message transaction of node n not yet queued (its
 * queue, rate and budget, as its requests'): the caller sets its owner,
 * then xact_enqueue(); its send result goes to d->up->bridged. NULL with
 * *err. */
struct xact *bridge_reply_new(struct node *n, const struct ipmi_request *rq,
			      int *err);
/*
 * The shares of the 64 IPMB sequence slots, ours or (on a backend that
 * bridges) ipmi_msghandler's per interface: a node's (64 / nodes) and an
 * open file's (half its node's), for every backend (cuse/client.c counts
 * them where the kernel holds the slots).
 */
unsigned int bridge_node_share(struct daemon *d);
unsigned int bridge_file_share(struct daemon *d);
/* The owner closed: its slots are freed. */
void bridge_owner_gone(struct daemon *d, void *owner);
/* SMS_ATN: fetch what the BMC holds. */
void bridge_attention(struct daemon *d);

#endif
