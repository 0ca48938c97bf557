/* SPDX-License-Identifier: GPL-2.0 */
/* xact.h - one request on its way to the BMC (xact.c). */
#ifndef KCSMUX_XACT_H
#define KCSMUX_XACT_H

#include "backend/backend.h"
#include "kcsmuxd.h"

enum xact_state { XACT_QUEUED, XACT_RUNNING };

struct xact {
	TAILQ_ENTRY(xact) qlink;	/* internal queue, or running */
	struct sched_item item;		/* a node's: in the scheduler */
	TAILQ_ENTRY(xact) clink;	/* client's list */
	struct daemon *d;
	struct node *node;		/* NULL: the daemon's own */
	struct client *client;		/* NULL: daemon's own, or orphaned */
	uint64_t cookie;
	enum xact_state state;
	bool internal;			/* runs ahead of the nodes' queues */
	uint64_t t_enq, t_sub;

	/* what the client asked, to address its answer */
	struct abi_addr addr;
	uint8_t addr_raw[ABI_MAX_ADDR_LEN];
	uint8_t addr_raw_len;
	int64_t msgid;
	uint8_t netfn, cmd;

	bool adaptive;			/* ran with choice (backoff adaptive) */
	bool throttled;			/* ran cheaply: node over cpu_budget */
	struct adapt_choice choice;
	int32_t retries;		/* IPMB on a bridging backend */
	uint32_t retry_ms;
	uint8_t req[KCSRAW_MAX_MSG];	/* the raw KCS request */
	uint16_t req_len;
	/* Called with the completion; must free x (xact_free). */
	void (*done)(struct xact *x, int status, const uint8_t *resp,
		     unsigned int len);
	void *priv;
};

/* A file's and a uid's share of a node's queue of QUEUE requests. */
unsigned int xact_file_share(unsigned int queue);
unsigned int xact_uid_share(unsigned int queue);
struct xact *xact_new(struct daemon *d, struct node *n, struct client *c);
void xact_free(struct xact *x);
int xact_enqueue(struct xact *x);
int xact_answer_now(struct client *c, const struct abi_addr *addr,
		    int64_t msgid, uint8_t netfn, uint8_t cmd, uint8_t cc);

/* bridge.c: IPMB requests wrapped in Send Message, and SMS_ATN */
void bridge_init(struct daemon *d);
void bridge_fini(struct daemon *d);
int bridge_send(struct client *c, const struct abi_addr *addr, int64_t msgid,
		uint8_t netfn, uint8_t cmd, const uint8_t *data, uint16_t len,
		int32_t retries, uint32_t retry_ms, unsigned int flags);
void bridge_client_gone(struct client *c);
/* The channel media the scan found (bmcsetup.c), for incoming messages. */
void bridge_set_media(const uint8_t *media);
/* An async event for every subscriber (or the backlog). */
void bridge_event(struct daemon *d, const struct ipmb_user_msg *m);

/* What the backend reports to (the daemon as arg): completions, SMS_ATN,
 * events, room to submit. */
extern const struct backend_cbs xact_backend_cbs;

/* node.c */
void node_account(struct node *n, struct xact *x, int status,
		  const uint8_t *resp, unsigned int len,
		  const struct kcsraw_cost *cost);

#endif
