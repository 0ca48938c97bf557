// SPDX-License-Identifier: GPL-2.0
/*
 * client.c - one open file of a node: its receive queue and delivery, its
 * requests into the core (client_send: the stock checks, limits, access
 * rules, then a transaction or the bridge), its transactions' answers
 * (si_done), and the core's upcalls. The ioctls that reach it over CUSE
 * are ioctl.c's.
 */
#define FUSE_USE_VERSION 35

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <fuse_lowlevel.h>

#include "core/coalesce.h"
#include "core/ipmb.h"
#include "core/leasegate.h"
#include "core/sdrglue.h"
#include "core/seqtab.h"
#include "core/xact.h"
#include "cuse/cuse.h"
#include "util/log.h"

/* Completion code a BMC allow-list answers with (OpenBMC, IPMI 2.0 H). */
#define IPMI_CC_INSUFFICIENT_PRIV 0xd4

/* PID's process name (/proc/PID/comm) into BUF, or "?". */
static void read_comm(pid_t pid, char *buf, size_t len)
{
	char path[32];
	ssize_t r = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		r = read(fd, buf, len - 1);
		close(fd);
	}
	if (r <= 0)
		r = snprintf(buf, len, "?");
	buf[r] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* The opener's groups (opener_parse_status): none when its
 * /proc/PID/status cannot be read (gone, another pid namespace,
 * hidepid), so only admin_users can match it. */
static void read_groups(pid_t pid, struct kcsmux_opener *who)
{
	char path[32], buf[2048];
	ssize_t r = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if (pid > 0 && (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		r = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (r <= 0)
		return;
	buf[r] = '\0';
	opener_parse_status(who, buf);
}

const struct kcsmux_access *client_acc(const struct client *c)
{
	const struct kcsmux_node_conf *nc = &c->node->conf;

	return opener_matches(&nc->admins, &c->who) ? &nc->admin_acc : &nc->acc;
}

/* Names of the commands a refusal most often names (IPMI 2.0 appendix
 * G); others are logged by number only. */
static const char *cmd_name(uint8_t netfn, uint8_t cmd)
{
	static const struct {
		uint8_t netfn, cmd;
		const char *name;
	} names[] = {
		{ 0x00, 0x01, "Get Chassis Status" },
		{ 0x00, 0x02, "Chassis Control" },
		{ 0x00, 0x04, "Chassis Identify" },
		{ 0x00, 0x08, "Set System Boot Options" },
		{ 0x04, 0x00, "Set Event Receiver" },
		{ 0x04, 0x28, "Set Sensor Event Enable" },
		{ 0x04, 0x2d, "Get Sensor Reading" },
		{ 0x06, 0x01, "Get Device ID" },
		{ 0x06, 0x02, "Cold Reset" },
		{ 0x06, 0x03, "Warm Reset" },
		{ 0x06, 0x22, "Reset Watchdog Timer" },
		{ 0x06, 0x24, "Set Watchdog Timer" },
		{ 0x06, 0x2e, "Set BMC Global Enables" },
		{ 0x06, 0x34, "Send Message" },
		{ 0x06, 0x40, "Set Channel Access" },
		{ 0x06, 0x43, "Set User Access" },
		{ 0x06, 0x45, "Set User Name" },
		{ 0x06, 0x47, "Set User Password" },
		{ 0x0a, 0x12, "Write FRU Data" },
		{ 0x0a, 0x23, "Get SDR" },
		{ 0x0a, 0x43, "Get SEL Entry" },
		{ 0x0a, 0x44, "Add SEL Entry" },
		{ 0x0a, 0x47, "Clear SEL" },
		{ 0x0a, 0x49, "Set SEL Time" },
		{ 0x0c, 0x01, "Set LAN Configuration Parameters" },
		{ 0x0c, 0x21, "Set SOL Configuration Parameters" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].netfn == (netfn & 0x3e) && names[i].cmd == cmd)
			return names[i].name;
	return NULL;
}

void client_deny_msg(char *buf, size_t len, const struct client *c,
		     enum access_verdict v, const struct access_why *why)
{
	const char *name = cmd_name(why->netfn, why->cmd);
	const struct kcsmux_access *acc = client_acc(c);
	bool admin = acc != &c->node->conf.acc; /* admin_access's rules */
	char rule[96];

	access_rule_desc(acc, v, why, rule, sizeof(rule));
	snprintf(buf, len,
		 "node %s: uid %u pid %ld (%s): %s%snetfn 0x%02x cmd 0x%02x%s "
		 "denied (cc 0xd4) by %s%s",
		 c->node->conf.name, (unsigned int)c->uid, (long)c->pid,
		 c->comm, name ? name : "", name ? " (" : "", why->netfn,
		 why->cmd, name ? ")" : "",
		 admin && strncmp(rule, "access = ", 9) == 0 ? "admin_" : "",
		 rule);
}

struct client *client_new(struct node *n, pid_t pid, uid_t uid)
{
	struct client *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->node = n;
	c->id = ++n->d->next_client_id;
	c->pid = pid;
	c->uid = uid;
	read_comm(pid, c->comm, sizeof(c->comm));
	c->who.uid = uid;
	read_groups(pid, &c->who);
	TAILQ_INIT(&c->rq);
	TAILQ_INIT(&c->xacts);
	c->timing_retries = -1;
	c->timing_retry_ms = 0;
	return c;
}

void client_free(struct client *c)
{
	struct kmsg *m;

	client_cancel_all(c);
	cmdreg_client_gone(c);
	while ((m = TAILQ_FIRST(&c->rq))) {
		TAILQ_REMOVE(&c->rq, m, link);
		free(m);
	}
	if (c->ph)
		fuse_pollhandle_destroy(c->ph);
	free(c);
}

/* A receive-queue entry holding u (no request address bytes). */
struct kmsg *kmsg_new(const struct ipmb_user_msg *u)
{
	struct kmsg *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->recv_type = u->recv_type;
	m->addr = u->addr;
	m->msgid = u->msgid;
	m->netfn = u->netfn;
	m->cmd = u->cmd;
	m->data_len = u->data_len;
	memcpy(m->data, u->data, u->data_len);
	return m;
}

/* A message arrived for c: wake whoever waits in poll()/select(). */
static void client_notify(struct client *c)
{
	if (c->ph && !c->node->dying) {
		fuse_lowlevel_notify_poll(c->ph);
		fuse_pollhandle_destroy(c->ph);
		c->ph = NULL;
	}
}

/* Queue a message for the client and wake its poll()ers. */
void client_deliver(struct client *c, struct kmsg *m)
{
	TAILQ_INSERT_TAIL(&c->rq, m, link);
	c->rq_len++;
	c->rq_events += m->recv_type == IPMI_ASYNC_EVENT_RECV_TYPE;
	client_notify(c);
}

void client_revoke(struct client *c)
{
	struct kmsg *m;

	c->revoked = true;
	client_cancel_all(c);
	cmdreg_client_gone(c);
	c->gets_events = false;
	while ((m = TAILQ_FIRST(&c->rq))) {
		TAILQ_REMOVE(&c->rq, m, link);
		free(m);
	}
	c->rq_len = 0;
	c->rq_events = 0;
	client_notify(c);
}

/* ------------------------------------------------------------------ */
/* Requests: the front end's half of a transaction */

/* Answer a client's system-interface request (x->done for those). */
static void si_done(struct xact *x, int status, const uint8_t *resp,
		    unsigned int len)
{
	struct client *c = x->owner;
	struct ipmb_user_msg u = {
		.recv_type = IPMI_RESPONSE_RECV_TYPE,
		.addr = x->addr,
		.msgid = x->msgid,
	};
	struct kmsg *m;

	sdrglue_observe(x, status, resp, len); /* writes drop the cache */
	if (!c) {			       /* closed meanwhile */
		xact_free(x);
		return;
	}
	/* A bridged answer (a driver underneath bridged it) comes from its
	 * responder: the request's address in reply form, as on a raw KCS
	 * (ipmb_user_response). */
	if (x->addr.addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE)
		ipmi_addr_reply_form(&x->addr, &u.addr);
	if (status == 0 && len >= 3) {
		/* The address's LUN is the response's, as the stock
		 * handler sets it (the rest of the request's bytes stay). */
		u.addr.lun = resp[0] & 3;
		u.netfn = resp[0] >> 2;
		u.cmd = resp[1];
		u.data_len = (uint16_t)(len - 2);
		memcpy(u.data, resp + 2, u.data_len);
	} else {
		/* The interface gave up or the request was cancelled: what
		 * the stock driver answers when its state machine is hosed. */
		u.netfn = x->netfn | 1;
		u.cmd = x->cmd;
		u.data_len = 1;
		u.data[0] = IPMI_ERR_UNSPECIFIED;
	}
	c->outstanding--;
	c->nerr += status != 0 || len < 3 || resp[2] != 0;
	/* A reply to an incoming command the driver underneath sent (SMI
	 * mode): the outcome of its Send Message, recv_type 4, as on a raw
	 * KCS (bridge.c, reply_done). */
	if (x->addr.addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE &&
	    (x->netfn & 1))
		ipmb_user_send_result(&x->addr, x->msgid, x->netfn, x->cmd,
				      status || len < 3 ? 0xff : resp[2], &u);
	m = kmsg_new(&u);
	if (!m) {
		xact_free(x);
		return;
	}
	/* a system-interface response carries its request's address bytes
	 * (a bridged one its responder's address, encoded) */
	if (u.recv_type == IPMI_RESPONSE_RECV_TYPE &&
	    x->addr.addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE) {
		memcpy(m->addr_raw, x->addr_raw, x->addr_raw_len);
		m->addr_raw_len = x->addr_raw_len;
		if (status == 0 && len >= 3 &&
		    m->addr_raw_len >= ABI_MIN_ADDR_LEN)
			m->addr_raw[6] = resp[0] & 3;
	}
	client_deliver(c, m);
	/* A BMC reset clears its global enables: set them again (a bridged
	 * one on ipmidev: sdrglue_observe above). */
	if (x->addr.addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE &&
	    x->netfn == IPMI_NETFN_APP_REQUEST &&
	    (x->cmd == IPMI_COLD_RESET_CMD || x->cmd == IPMI_WARM_RESET_CMD))
		bmc_setup_recheck(x->d);
	xact_free(x);
}

/* The scheduler handed one of c's queued requests to the backend. */
static void si_dispatched(struct xact *x)
{
	struct client *c = x->owner;

	if (c && c->queued)
		c->queued--;
}

/* An answer made by the daemon itself (access denied, ...). */
static int answer_now(struct client *c, const struct ipmi_request *rq,
		      uint8_t cc)
{
	struct ipmb_user_msg u = {
		.recv_type = IPMI_RESPONSE_RECV_TYPE,
		.addr = rq->addr,
		.msgid = rq->msgid,
		.netfn = rq->netfn | 1,
		.cmd = rq->cmd,
		.data_len = 1,
		.data = { cc },
	};
	struct kmsg *m = kmsg_new(&u);

	if (!m)
		return -ENOMEM;
	client_deliver(c, m);
	return 0;
}

/* The core's queue-share rule, with what c and its uid hold queued. */
static bool over_share(const struct client *c)
{
	const struct client *o;
	unsigned int sum = 0;

	LIST_FOREACH (o, &c->node->clients, link)
		if (o->uid == c->uid)
			sum += o->queued;
	return !xact_share_allows(c->node, c->queued, sum);
}

/* Is a transaction a bridged request (not a reply) a kernel underneath
 * holds a sequence slot for? */
static bool holds_slot(const struct xact *x)
{
	return x->addr.addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE &&
	       !(x->netfn & 1);
}

/*
 * On a backend that bridges (ipmidev, kcsraw's relay) ipmi_msghandler
 * holds a sequence slot for each bridged request until the far end answers
 * or its retries run out, 64 per interface: the same shares as the
 * daemon's own table (bridge_node_share, bridge_file_share), counted over
 * what is queued or at the kernel, a closed file's included.
 */
static bool over_slot_share(const struct client *c)
{
	struct daemon *d = c->node->d;
	const struct client *o;
	const struct xact *x;
	unsigned int mine = 0, node = 0;

	TAILQ_FOREACH (x, &c->xacts, olink)
		mine += holds_slot(x);
	if (mine >= bridge_file_share(d))
		return true;
	LIST_FOREACH (o, &c->node->clients, link)
		TAILQ_FOREACH (x, &o->xacts, olink)
			node += holds_slot(x) && x->state == XACT_QUEUED;
	TAILQ_FOREACH (x, &d->running, qlink)
		node += x->node == c->node && !x->internal && holds_slot(x);
	return node >= bridge_node_share(d);
}

/* An IPMB or LAN request of c on a raw KCS: the core bridges it. */
static int bridge(struct client *c, const struct ipmi_request *rq)
{
	struct xact *x;
	int rv;

	if (rq->flags & ABI_REQF_RESPONSE) {
		x = bridge_reply_new(c->node, rq, &rv);
		if (!x)
			return rv;
		x->owner = c;
		TAILQ_INSERT_TAIL(&c->xacts, x, olink);
		c->outstanding++;
		rv = xact_enqueue(x); /* its node's queue: -EBUSY when full */
		if (rv < 0) {
			c->outstanding--;
			TAILQ_REMOVE(&c->xacts, x, olink);
			free(x);
		}
		return rv;
	}
	/* counted before: an answer may come back at once */
	c->outstanding++;
	rv = bridge_send(c->node, c, rq);
	if (rv < 0)
		c->outstanding--;
	return rv;
}

/* A request the access rules refused (cc 0xD4): counted and logged. */
static void log_denied(struct client *c, const struct ipmi_request *rq,
		       enum access_verdict verdict,
		       const struct access_why *why)
{
	struct node *n = c->node;
	uint8_t data0 = rq->len ? rq->data[0] : 0;
	char msg[256];

	n->cnt.denied++;
	c->ndenied++;
	client_deny_msg(msg, sizeof(msg), c, verdict, why);
	log_ratelimited(&n->rl_denied, LOG_NOTICE,
			"%s (sent netfn 0x%02x cmd 0x%02x, %u data "
			"bytes, first 0x%02x)",
			msg, rq->netfn, rq->cmd, (unsigned int)rq->len, data0);
	/* every one, for tracing what a client needs (kcsmuxd -d) */
	log_debug("denied: node %s pid %d netfn 0x%02x cmd 0x%02x "
		  "data0 0x%02x len %u",
		  n->conf.name, (int)c->pid, rq->netfn, rq->cmd, data0,
		  (unsigned int)rq->len);
}

/* A request another node's lease refuses: counted, logged (the holder
 * named), answered at once with CC (leasegate.h). */
static int lease_refuse(struct client *c, const struct ipmi_request *rq,
			const struct lease_why *why, uint8_t cc)
{
	struct node *n = c->node;
	const char *name = cmd_name(rq->netfn, rq->cmd);

	if (cc == LEASE_CC_BUSY)
		n->cnt.lease_busy++;
	else
		n->cnt.lease_refused++;
	log_ratelimited(&n->rl_denied, LOG_NOTICE,
			"node %s: pid %d: %s%s(netfn 0x%02x cmd 0x%02x) "
			"refused (cc 0x%02x): node %s holds the %s lease for "
			"%llu s more",
			n->conf.name, (int)c->pid, name ? name : "",
			name ? " " : "", rq->netfn, rq->cmd, cc,
			why->holder->conf.name,
			lease_class_name(why->class_bit),
			(unsigned long long)(why->left_ns / 1000000000u + 1));
	return answer_now(c, rq, cc);
}

/* Another node holds the firmware lease: x (counted, linked) answered
 * from the SDR cache or SEL mirror, else cc 0xc0 at once. */
static int lease_stale(struct client *c, const struct ipmi_request *rq,
		       struct xact *x, const struct lease_why *why)
{
	if (sdrglue_stale(x)) {
		c->node->cnt.lease_stale++;
		return 0;
	}
	c->nreq--;
	c->queued--;
	c->outstanding--;
	TAILQ_REMOVE(&c->xacts, x, olink);
	free(x);
	return lease_refuse(c, rq, why, LEASE_CC_BUSY);
}

/*
 * Where a client's request enters the core: the stock driver's checks,
 * the node's limits and access list, then a system-interface request
 * becomes a transaction on the node's queue (its answer: si_done) and an
 * IPMB/LAN one is bridged.
 */
int client_send(struct client *c, struct ipmi_request *rq)
{
	struct node *n = c->node;
	const struct ipmi_address *addr = &rq->addr;
	struct xact *x;
	enum access_verdict verdict;
	struct access_why why;
	struct lease_why lwhy;
	enum lease_verdict lv;
	int rv;

	/* The wire keeps 6 bits (netfn << 2): judge what the BMC gets. */
	rq->netfn &= 0x3f;
	lv = leasegate_check(n, rq, now_ns(), &lwhy);
	/* The BMC resets (a Cold or Warm Reset went to it less than 30 s
	 * ago, core/maint.h): nothing goes to it, as stock since 6.18;
	 * but a firmware lease's holder polls it back (docs/leases.md), and
	 * the others are answered as during its lease. */
	if (lv != LEASE_FW_HOLDER && lv != LEASE_FW_OTHER &&
	    maint_refuse(&n->d->maint, now_ns())) {
		n->cnt.busy++;
		return -EBUSY;
	}
	/* The channel media, as the stock message handler checks them at
	 * SEND (a driver underneath that bridges checks them again only
	 * when the request leaves our queue: too late for the EINVAL). */
	if (!n->d->media_ready &&
	    addr->addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE)
		return -EAGAIN;
	/* SMI mode without the stock node: no path, as stock for a
	 * channel that cannot bridge (logged once at start) */
	if (n->d->be->no_bridge &&
	    addr->addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE)
		return -EINVAL;
	rv = ipmi_check_request(addr, rq->netfn, rq->cmd, rq->len, n->d->media,
				&rq->flags);
	if (rv < 0)
		return rv;
	/* Like the stock driver: answers the client has not read yet still
	 * count, so a client that never reads cannot grow our memory. */
	if (c->outstanding + c->rq_len >= n->conf.max_outstanding) {
		n->cnt.busy++;
		return -EBUSY;
	}
	/* LUN 0 (the system interface's, an IPMB target's) unless the
	 * node's luns key opens another: what an OEM or SMS LUN does with
	 * an allowed command number is the vendor's (kcsmux.conf(5)) */
	if ((addr->lun & 3) && !(n->conf.luns & (1u << (addr->lun & 3)))) {
		n->cnt.denied++;
		c->ndenied++;
		log_ratelimited(&n->rl_denied, LOG_NOTICE,
				"node %s: pid %d: netfn 0x%02x cmd 0x%02x "
				"to LUN %u denied (cc 0xd4): luns",
				n->conf.name, (int)c->pid, rq->netfn, rq->cmd,
				(unsigned int)(addr->lun & 3));
		return answer_now(c, rq, IPMI_CC_INSUFFICIENT_PRIV);
	}
	if (addr->addr_type == IPMI_IPMB_ADDR_TYPE ||
	    addr->addr_type == IPMI_IPMB_BROADCAST_ADDR_TYPE)
		verdict = access_check_ipmb(client_acc(c), rq,
					    n->chan_address[addr->channel & 15],
					    &why);
	else
		verdict = access_check(client_acc(c), rq->netfn, rq->cmd,
				       rq->data, rq->len, &why);
	if (verdict != ACCESS_OK) {
		log_denied(c, rq, verdict, &why);
		return answer_now(c, rq, IPMI_CC_INSUFFICIENT_PRIV);
	}
	if (lv == LEASE_REFUSED)
		return lease_refuse(c, rq, &lwhy, LEASE_CC_STATE);
	if (lv == LEASE_FW_OTHER &&
	    addr->addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE)
		return lease_refuse(c, rq, &lwhy, LEASE_CC_BUSY);
	if (addr->addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE &&
	    !n->d->be->bridges) {
		rv = bridge(c, rq);
		c->nreq += rv == 0;
		return rv;
	}
	/* the watchdog's commands wait behind no queue (xact.h) */
	if (!xact_urgent_cmd(rq) && over_share(c)) {
		n->cnt.busy++;
		return -EBUSY;
	}
	/* -EAGAIN past the share, as for a full table on a raw KCS */
	if (addr->addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE &&
	    !(rq->netfn & 1) && over_slot_share(c)) {
		n->cnt.busy++;
		return -EAGAIN;
	}
	/* A Cold/Warm Reset or a firmware request on its way to the BMC:
	 * maintenance mode for 30 s (no event polling; after a reset,
	 * requests refused) */
	if (addr->addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE &&
	    maint_request(&n->d->maint, rq->netfn, rq->cmd, now_ns()))
		log_msg(LOG_NOTICE,
			"node %s: pid %d: netfn 0x%02x cmd 0x%02x: "
			"maintenance mode for %llu ms%s",
			n->conf.name, (int)c->pid, rq->netfn, rq->cmd,
			(unsigned long long)maint_left_ms(&n->d->maint,
							  now_ns()),
			maint_state(&n->d->maint, now_ns()) == MAINT_RESET ?
				": requests refused (EBUSY) meanwhile" :
				"");
	x = xact_from_request(n, c, rq);
	if (!x)
		return -ENOMEM;
	x->owner_id = c->id;
	x->done = si_done;
	x->dispatched = si_dispatched;
	/* linked and counted before: xact_enqueue() may dispatch it at
	 * once (the dispatch uncounts what it hands on), and a backend that
	 * fails it at once answers it at once */
	TAILQ_INSERT_TAIL(&c->xacts, x, olink);
	c->queued++;
	c->outstanding++;
	c->nreq++;
	if (lv == LEASE_FW_OTHER)
		return lease_stale(c, rq, x, &lwhy);
	/* the SDR/FRU cache may answer it, or hold it while it fills (not
	 * the firmware lease's holder's: straight to the BMC) */
	if (lv != LEASE_FW_HOLDER && sdrglue_send(x))
		return 0;
	/* another client's identical sensor read in flight answers it */
	if (lv != LEASE_FW_HOLDER && coalesce_follow(x))
		return 0;
	rv = xact_enqueue(x);
	if (rv < 0) {
		c->nreq--;
		c->queued--;
		c->outstanding--;
		TAILQ_REMOVE(&c->xacts, x, olink);
		free(x);
		return rv;
	}
	return 0;
}

/* The client closed: drop its queued work, orphan what is running. */
void client_cancel_all(struct client *c)
{
	struct xact *x;

	bridge_owner_gone(c->node->d, c);
	sdrglue_owner_gone(c->node->d, c);
	while ((x = TAILQ_FIRST(&c->xacts))) {
		TAILQ_REMOVE(&c->xacts, x, olink);
		xact_cancel(x);
	}
}

/* ------------------------------------------------------------------ */
/* The core's upcalls */

static void up_bridged(struct daemon *d, void *owner,
		       const struct ipmb_user_msg *u)
{
	struct client *c = owner;
	struct kmsg *m;

	(void)d;
	if (c->outstanding)
		c->outstanding--;
	m = kmsg_new(u);
	if (m)
		client_deliver(c, m);
}

static bool up_command(struct daemon *d, const struct ipmb_user_msg *u,
		       uint8_t netfn, uint8_t cmd, unsigned int chan)
{
	struct client *c = cmdreg_lookup(d, netfn, cmd, chan);
	struct kmsg *m;

	/* A file that does not read keeps at most max_outstanding unread
	 * messages of any kind: past that the command is answered cc 0xC1
	 * as if nobody had registered it. */
	if (!c || c->rq_len >= c->node->conf.max_outstanding)
		return false;
	m = kmsg_new(u);
	if (m)
		client_deliver(c, m);
	return true;
}

/* Events waiting for node n's first subscriber. */
static unsigned int backlog_count(const struct frontend *fe,
				  const struct node *n)
{
	const struct kmsg *m;
	unsigned int k = 0;

	TAILQ_FOREACH (m, &fe->event_backlog, link)
		k += m->for_node == n;
	return k;
}

/* Keep ev for node n's first subscriber (at most event_backlog). */
static void backlog_add(struct daemon *d, const struct node *n,
			const struct ipmb_user_msg *ev)
{
	struct frontend *fe = d->fe;
	struct kmsg *m;

	if (backlog_count(fe, n) >= d->cfg.event_backlog) {
		d->events_dropped++; /* no room: dropped, as stock does */
		return;
	}
	m = kmsg_new(ev);
	if (!m)
		return;
	m->for_node = n;
	TAILQ_INSERT_TAIL(&fe->event_backlog, m, link);
	fe->event_backlog_len++;
}

void client_take_backlog(struct client *c)
{
	struct frontend *fe = c->node->d->fe;
	struct kmsg *m, *next;

	for (m = TAILQ_FIRST(&fe->event_backlog); m; m = next) {
		next = TAILQ_NEXT(m, link);
		if (m->for_node != c->node)
			continue;
		TAILQ_REMOVE(&fe->event_backlog, m, link);
		fe->event_backlog_len--;
		m->for_node = NULL;
		client_deliver(c, m);
	}
}

void client_node_gone(struct node *n)
{
	struct frontend *fe = n->d->fe;
	struct kmsg *m, *next;

	if (!fe)
		return;
	for (m = TAILQ_FIRST(&fe->event_backlog); m; m = next) {
		next = TAILQ_NEXT(m, link);
		if (m->for_node != n)
			continue;
		TAILQ_REMOVE(&fe->event_backlog, m, link);
		fe->event_backlog_len--;
		free(m);
	}
}

/* An event for every subscriber on nodes that allow events; a node none
 * of whose subscribers took it keeps it in the backlog for its own first
 * subscriber (each node its own: one node's subscriber never takes
 * another's). */
static void up_event(struct daemon *d, const struct ipmb_user_msg *ev)
{
	struct node *n;
	struct client *c;
	struct kmsg *m;
	bool any;

	LIST_FOREACH (n, &d->nodes, link) {
		if (!n->conf.events || n->conf.events_quiet)
			continue;
		any = false;
		LIST_FOREACH (c, &n->clients, link) {
			/* A subscriber that never reads keeps at most
			 * event_backlog unread events; more are dropped. */
			if (!c->gets_events)
				continue;
			if (c->rq_events >= d->cfg.event_backlog ||
			    !(m = kmsg_new(ev))) {
				d->events_dropped++;
				continue;
			}
			client_deliver(c, m);
			any = true;
		}
		if (!any)
			backlog_add(d, n, ev);
	}
}

static bool up_waiters(struct daemon *d)
{
	struct node *n;
	struct client *c;

	if (cmdreg_any(d))
		return true;
	LIST_FOREACH (n, &d->nodes, link)
		LIST_FOREACH (c, &n->clients, link)
			if (c->gets_events)
				return true;
	return false;
}

static void up_xact_gone(struct xact *x)
{
	struct client *c = x->owner;

	TAILQ_REMOVE(&c->xacts, x, olink);
}

const struct core_upcalls client_upcalls = {
	.bridged = up_bridged,
	.command = up_command,
	.event = up_event,
	.waiters = up_waiters,
	.xact_gone = up_xact_gone,
};

int frontend_init(struct daemon *d, void (*node_ready)(struct daemon *d))
{
	d->fe = calloc(1, sizeof(*d->fe));
	if (!d->fe)
		return -1;
	TAILQ_INIT(&d->fe->event_backlog);
	d->fe->node_ready = node_ready;
	if (cmdreg_init(d) < 0) {
		free(d->fe);
		d->fe = NULL;
		return -1;
	}
	d->up = &client_upcalls;
	return 0;
}

void frontend_fini(struct daemon *d)
{
	struct kmsg *m;

	if (!d->fe)
		return;
	while ((m = TAILQ_FIRST(&d->fe->event_backlog))) {
		TAILQ_REMOVE(&d->fe->event_backlog, m, link);
		free(m);
	}
	cmdreg_fini(d);
	free(d->fe);
	d->fe = NULL;
}
