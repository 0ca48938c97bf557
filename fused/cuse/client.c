// SPDX-License-Identifier: GPL-2.0
/*
 * client.c - one open file of a node, and the /dev/ipmiN ioctl ABI over
 * CUSE's unrestricted-ioctl retry protocol.
 *
 * Each ioctl first arrives with no data. We answer with a retry naming the
 * user memory we need (the struct at arg); the kernel calls again with it,
 * and for SEND/RECEIVE once more with the memory the struct points at.
 * Both usually save that third call by guessing (first_call).
 * Errors are the stock driver's, in its order (ipmi_abi.h has the rules).
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
	char rule[96];

	access_rule_desc(&c->node->conf.acc, v, why, rule, sizeof(rule));
	snprintf(buf, len,
		 "node %s: uid %u pid %ld (%s): %s%snetfn 0x%02x cmd 0x%02x%s "
		 "denied (cc 0xd4) by %s",
		 c->node->conf.name, (unsigned int)c->uid, (long)c->pid,
		 c->comm, name ? name : "", name ? " (" : "", why->netfn,
		 why->cmd, name ? ")" : "", rule);
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
	m = kmsg_new(&u);
	if (!m) {
		xact_free(x);
		return;
	}
	/* a response carries its request's address bytes */
	memcpy(m->addr_raw, x->addr_raw, x->addr_raw_len);
	m->addr_raw_len = x->addr_raw_len;
	if (status == 0 && len >= 3 && m->addr_raw_len >= ABI_MIN_ADDR_LEN)
		m->addr_raw[6] = resp[0] & 3;
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
static int answer_now(struct client *c, const struct abi_addr *addr,
		      int64_t msgid, uint8_t netfn, uint8_t cmd, uint8_t cc)
{
	struct ipmb_user_msg u = {
		.recv_type = IPMI_RESPONSE_RECV_TYPE,
		.addr = *addr,
		.msgid = msgid,
		.netfn = netfn | 1,
		.cmd = cmd,
		.data_len = 1,
		.data = { cc },
	};
	struct kmsg *m = kmsg_new(&u);

	if (!m)
		return -ENOMEM;
	client_deliver(c, m);
	return 0;
}

static bool over_share(const struct client *c)
{
	const struct node *n = c->node;
	unsigned int q = n->conf.pol.queue, sum = 0;
	const struct client *o;

	if (c->queued >= xact_file_share(q))
		return true;
	LIST_FOREACH (o, &n->clients, link)
		if (o->uid == c->uid)
			sum += o->queued;
	return sum >= xact_uid_share(q);
}

/* An IPMB or LAN request of c on a raw KCS: the core bridges it. */
static int bridge(struct client *c, const struct abi_addr *addr, int64_t msgid,
		  uint8_t netfn, uint8_t cmd, const uint8_t *data, uint16_t len,
		  int32_t retries, uint32_t retry_ms, unsigned int flags)
{
	struct xact *x;
	int rv;

	if (flags & ABI_REQF_RESPONSE) {
		x = bridge_reply_new(c->node, addr, msgid, netfn, cmd, data,
				     len, &rv);
		if (!x)
			return rv;
		x->owner = c;
		TAILQ_INSERT_TAIL(&c->xacts, x, olink);
		c->outstanding++;
		xact_enqueue(x);
		return 0;
	}
	/* counted before: an answer may come back at once */
	c->outstanding++;
	rv = bridge_send(c->node, c, addr, msgid, netfn, cmd, data, len,
			 retries, retry_ms, flags);
	if (rv < 0)
		c->outstanding--;
	return rv;
}

/*
 * Where a client's request enters the core: the stock driver's checks,
 * the node's limits and access list, then a system-interface request
 * becomes a transaction on the node's queue (its answer: si_done) and an
 * IPMB/LAN one is bridged.
 */
int client_send(struct client *c, const struct abi_addr *addr,
		const uint8_t *addr_raw, uint32_t addr_len, int64_t msgid,
		uint8_t netfn, uint8_t cmd, const uint8_t *data, uint16_t len,
		int32_t retries, uint32_t retry_ms)
{
	struct node *n = c->node;
	struct xact *x;
	unsigned int flags = 0;
	enum access_verdict verdict;
	struct access_why why;
	int rv;

	/* The wire keeps 6 bits (netfn << 2): judge what the BMC gets. */
	netfn &= 0x3f;
	/* On a raw KCS the channel media are ours to check (the stock
	 * driver underneath checks them on ipmidev). */
	if (!n->d->be->bridges && !n->d->media_ready &&
	    addr->addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE)
		return -EAGAIN;
	rv = abi_check_request(addr, netfn, cmd, len,
			       n->d->be->bridges ? NULL : n->d->media, &flags);
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
		log_ratelimited(&n->rl_denied, LOG_NOTICE,
				"node %s: pid %d: netfn 0x%02x cmd 0x%02x "
				"to LUN %u denied (cc 0xd4): luns",
				n->conf.name, (int)c->pid, netfn, cmd,
				(unsigned int)(addr->lun & 3));
		return answer_now(c, addr, msgid, netfn, cmd,
				  IPMI_CC_INSUFFICIENT_PRIV);
	}
	if (addr->addr_type == IPMI_IPMB_ADDR_TYPE ||
	    addr->addr_type == IPMI_IPMB_BROADCAST_ADDR_TYPE)
		verdict =
			access_check_ipmb(&n->conf.acc, (uint8_t)addr->channel,
					  addr->addr_type ==
						  IPMI_IPMB_BROADCAST_ADDR_TYPE,
					  addr->slave_addr, addr->lun,
					  n->chan_address[addr->channel & 15],
					  netfn, cmd, data, len, &why);
	else
		verdict =
			access_check(&n->conf.acc, netfn, cmd, data, len, &why);
	if (verdict != ACCESS_OK) {
		char msg[256];

		n->cnt.denied++;
		client_deny_msg(msg, sizeof(msg), c, verdict, &why);
		log_ratelimited(&n->rl_denied, LOG_NOTICE,
				"%s (sent netfn 0x%02x cmd 0x%02x, %u data "
				"bytes, first 0x%02x)",
				msg, netfn, cmd, (unsigned int)len,
				len ? data[0] : 0);
		/* every one, for tracing what a client needs (kcsmuxd -d) */
		log_debug("denied: node %s pid %d netfn 0x%02x cmd 0x%02x "
			  "data0 0x%02x len %u",
			  n->conf.name, (int)c->pid, netfn, cmd,
			  len ? data[0] : 0, (unsigned int)len);
		return answer_now(c, addr, msgid, netfn, cmd,
				  IPMI_CC_INSUFFICIENT_PRIV);
	}
	if (addr->addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE &&
	    !n->d->be->bridges)
		return bridge(c, addr, msgid, netfn, cmd, data, len, retries,
			      retry_ms, flags);
	if (over_share(c)) {
		n->cnt.busy++;
		return -EBUSY;
	}
	/* the kernel bridges it (ipmidev): the same clamp as ours */
	if (addr->addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE)
		seqtab_clamp_timing(&retries, &retry_ms);
	x = xact_new(n->d, n);
	if (!x)
		return -ENOMEM;
	x->addr = *addr;
	x->addr_raw_len =
		(uint8_t)(addr_len < sizeof(x->addr_raw) ? addr_len :
							   sizeof(x->addr_raw));
	memcpy(x->addr_raw, addr_raw, x->addr_raw_len);
	x->msgid = msgid;
	x->netfn = netfn;
	x->cmd = cmd;
	x->retries = retries;
	x->retry_ms = retry_ms;
	x->req[0] = (uint8_t)(netfn << 2 | (addr->lun & 3));
	x->req[1] = cmd;
	memcpy(x->req + 2, data, len);
	x->req_len = (uint16_t)(len + 2);
	x->done = si_done;
	x->dispatched = si_dispatched;
	x->owner = c;
	/* linked and counted before: xact_enqueue() may dispatch it at
	 * once (the dispatch uncounts what it hands on), and a backend that
	 * fails it at once answers it at once */
	TAILQ_INSERT_TAIL(&c->xacts, x, olink);
	c->queued++;
	c->outstanding++;
	/* the SDR/FRU cache may answer it, or hold it while it fills */
	if (sdrglue_send(x))
		return 0;
	rv = xact_enqueue(x);
	if (rv < 0) {
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

/* An event for every subscriber on nodes that allow events, or the
 * backlog for the first subscriber. */
static void up_event(struct daemon *d, const struct ipmb_user_msg *ev)
{
	struct frontend *fe = d->fe;
	struct node *n;
	struct client *c;
	struct kmsg *m;
	bool any = false;

	LIST_FOREACH (n, &d->nodes, link) {
		if (!n->conf.events)
			continue;
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
	}
	if (any)
		return;
	if (fe->event_backlog_len >= d->cfg.event_backlog) {
		d->events_dropped++; /* no room: dropped, as stock does */
		return;
	}
	m = kmsg_new(ev);
	if (!m)
		return;
	TAILQ_INSERT_TAIL(&fe->event_backlog, m, link);
	fe->event_backlog_len++;
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

/* ------------------------------------------------------------------ */
/* The ioctl ABI over CUSE */

static void reply_retry_in(fuse_req_t req, void *arg, size_t size)
{
	struct iovec iov = { .iov_base = arg, .iov_len = size };

	fuse_reply_ioctl_retry(req, &iov, 1, NULL, 0);
}

static void reply_int(fuse_req_t req, int32_t v)
{
	uint8_t b[ABI_INT_SIZE];

	abi_encode_int(b, sizeof(b), v);
	fuse_reply_ioctl(req, 0, b, sizeof(b));
}

/* The kernel's page size: a caller's memory is mapped in whole pages. */
static uint64_t page_size(void)
{
	static long sz;

	if (!sz)
		sz = sysconf(_SC_PAGESIZE);
	return sz > 0 ? (uint64_t)sz : 4096;
}

static bool is_send(int op)
{
	return op == ABI_SEND_COMMAND || op == ABI_SEND_COMMAND_SETTIME;
}

static int spans_to_iov(const struct abi_span *sp, int n, struct iovec *iov)
{
	for (int i = 0; i < n; i++)
		iov[i] = (struct iovec){ (void *)(uintptr_t)sp[i].ptr,
					 sp[i].len };
	return n;
}

/*
 * Grants. A retry names user memory; the kernel's next call of that thread
 * carries (SEND: in) or accepts (RECEIVE: out) exactly that memory, laid
 * end to end. We read and write it only as the grant says. Threads sharing
 * a file interleave their calls, a thread's own calls are sequential:
 * grants are kept per thread id (the caller's pid in the request). A
 * caller whose id we do not see (0: another pid namespace) gets no guesses
 * and its grant is the one our previous retry to it named, as before
 * guessing existed; a grant pushed out of the table costs its thread one
 * more round trip, never a wrong copy.
 */
static struct io_grant *grant_find(struct client *c, pid_t tid, int op)
{
	for (size_t i = 0; tid && i < KCSMUX_IO_GRANTS; i++)
		if (c->grant[i].tid == tid && c->grant[i].op == op)
			return &c->grant[i];
	return NULL;
}

static void grant_drop(struct client *c, pid_t tid)
{
	for (size_t i = 0; tid && i < KCSMUX_IO_GRANTS; i++)
		if (c->grant[i].tid == tid)
			c->grant[i].tid = 0;
}

static void grant_put(struct client *c, pid_t tid, int op,
		      const struct abi_span *sp, int n, bool guess)
{
	struct io_grant *g;

	if (!tid)
		return;
	grant_drop(c, tid);
	g = &c->grant[c->grant_next++ % KCSMUX_IO_GRANTS];
	*g = (struct io_grant){ .tid = tid, .op = op, .n = n, .guess = guess };
	memcpy(g->sp, sp, (size_t)n * sizeof(*sp));
}

/*
 * Reply a retry that grants in (SEND) or out (RECEIVE) spans.
 * A RECEIVE's output buffers are asked for as input too (unless guessed):
 * the kernel then copies them in before the daemon sees the call, so an
 * unmapped or NULL buffer fails the call with EFAULT there and the message
 * stays queued, as on the stock device. (A buffer that is mapped but not
 * writable passes that copy and fails only the final copy-out, after the
 * daemon answered: docs/design.md, "Known differences".)
 */
static void retry_grant(struct client *c, fuse_req_t req, pid_t tid,
			const struct abi_ioctl *ent, void *arg,
			const struct abi_span *sp, int n, bool guess)
{
	struct iovec in_iov[ABI_RECV_SPANS + 1], iov[ABI_RECV_SPANS];
	int nin = 0;

	grant_put(c, tid, ent->op, sp, n, guess);
	if (guess)
		c->node->cnt.guesses[is_send(ent->op) ? 0 : 1]++;
	spans_to_iov(sp, n, iov);
	if (is_send(ent->op)) {
		fuse_reply_ioctl_retry(req, iov, n, NULL, 0);
		return;
	}
	in_iov[nin++] = (struct iovec){ arg, ent->in_size };
	for (int i = 0; !guess && i < n; i++)
		if (sp[i].ptr != (uintptr_t)arg)
			in_iov[nin++] = iov[i];
	fuse_reply_ioctl_retry(req, in_iov, nin, iov, n);
}

/* Bytes of a RECEIVE's output spans outside its struct. */
static size_t recv_extra(const struct abi_span *sp, int n, uint64_t arg)
{
	size_t len = 0;

	for (int i = 0; i < n; i++)
		if (sp[i].ptr != arg)
			len += sp[i].len;
	return len;
}

/* Every span but the struct lies in a buffer the kernel copied in. */
static bool recv_spans_proven(const struct client *c, const struct abi_span *sp,
			      int n, uint64_t arg)
{
	for (int i = 0; i < n; i++) {
		bool ok = sp[i].ptr == arg;

		for (int j = 0; !ok && j < 2; j++)
			ok = c->recv_proven[j].ptr &&
			     sp[i].ptr == c->recv_proven[j].ptr &&
			     sp[i].len <= c->recv_proven[j].len;
		if (!ok)
			return false;
	}
	return true;
}

/* Remember the address (slot 0) and data (slot 1) buffers as mapped. */
static void recv_prove(struct client *c, const struct abi_span *sp, int n,
		       uint64_t arg)
{
	int k = 0;

	for (int i = 0; i < n && k < 2; i++) {
		struct abi_span *p = &c->recv_proven[k];

		if (sp[i].ptr == arg)
			continue;
		k++;
		if (p->ptr != sp[i].ptr || p->len < sp[i].len)
			*p = sp[i];
	}
}

/*
 * Does this call carry (in) or accept (out) exactly the spans sp? For a
 * seen thread only its grant tells; an unseen one (tid 0) was never
 * guessed for, so its memory is what our last retry named from the same
 * struct, and the length says whether that retry happened.
 */
static bool granted(struct client *c, pid_t tid, int op,
		    const struct abi_span *sp, int n, size_t len)
{
	struct io_grant *g = grant_find(c, tid, op);
	bool ok;

	if (!tid) /* SEND: in holds what was asked; RECEIVE: out */
		return is_send(op) ? len >= abi_spans_len(sp, n) :
				     len == abi_spans_len(sp, n);
	if (!g)
		return false;
	ok = abi_spans_equal(sp, n, g->sp, g->n) && len == abi_spans_len(sp, n);
	if (ok && g->guess)
		c->node->cnt.guess_hits[is_send(op) ? 0 : 1]++;
	g->tid = 0;
	return ok;
}

/*
 * A SEND or RECEIVE's first call carries no data. The plain answer is a
 * retry asking for the struct; once it comes we know the memory it points
 * at and retry again for that: 3 round trips. Clients reuse their buffers,
 * so we guess that memory from the buffers this file's last SEND (RECEIVE)
 * named, and ask for the struct and the guess at once. The second call
 * checks the guess against the struct it brings and goes on when it
 * matches (2 round trips); else it retries for the right memory, as
 * without a guess.
 * A RECEIVE guess (output) is only written if right, and the kernel copies
 * out only what a reply carries: it costs nothing. A SEND guess is copied
 * in by the kernel before we see it, and memory that is no longer mapped
 * would fail the whole call with EFAULT: so we guess only memory inside
 * the pages of the struct the caller is handing over right now.
 */
static void first_call(struct client *c, fuse_req_t req,
		       const struct abi_ioctl *ent, void *arg)
{
	struct abi_span sp[ABI_RECV_SPANS];
	struct abi_recv_fit fit;
	struct kmsg *m = TAILQ_FIRST(&c->rq);
	pid_t tid = fuse_req_ctx(req)->pid;
	uint64_t a = (uintptr_t)arg;
	bool send = is_send(ent->op);
	uint32_t alen;
	int n = 0;

	if (tid && send && a && c->last_send_arg == a &&
	    abi_check_req_sizes(&c->last_send) == 0) {
		n = abi_send_spans(a, ent->in_size, &c->last_send,
				   abi_req_data_len(&c->last_send), sp);
		if (!abi_spans_in_pages(sp, n, a, a + ent->in_size,
					page_size()))
			n = 0;
	} else if (tid && !send && m && a && c->last_recv_arg == a) {
		alen = abi_addr_length(m->addr.addr_type);
		abi_recv_fit(c->last_recv.addr_len, alen, c->last_recv.data_len,
			     m->data_len, ent->op == ABI_RECEIVE_MSG_TRUNC,
			     &fit);
		if (fit.err != -EINVAL)
			n = abi_recv_spans(a, ent->in_size, &c->last_recv, alen,
					   &fit, sp);
		if (!recv_spans_proven(c, sp, n, a))
			n = 0;
	}
	if (n > 1 || (n == 1 && !send)) {
		retry_grant(c, req, tid, ent, arg, sp, n, true);
		return;
	}
	/* Just the struct: SEND is granted it as input, RECEIVE no output. */
	sp[0] = (struct abi_span){ a, (uint32_t)ent->in_size };
	grant_put(c, tid, ent->op, sp, send ? 1 : 0, false);
	reply_retry_in(req, arg, ent->in_size);
}

/* SEND_COMMAND and SEND_COMMAND_SETTIME, once the struct is in. */
static void do_send(struct client *c, fuse_req_t req,
		    const struct abi_ioctl *ent, void *arg, const uint8_t *in,
		    size_t in_len)
{
	struct abi_span sp[ABI_RECV_SPANS];
	pid_t tid = fuse_req_ctx(req)->pid;
	struct abi_req r;
	struct abi_addr addr;
	uint16_t dlen;
	int n, rv, sizes;

	if (abi_decode_req(in, in_len, ent->layout32,
			   ent->op == ABI_SEND_COMMAND_SETTIME, &r) < 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	c->last_send = r;
	c->last_send_arg = (uintptr_t)arg;
	sizes = abi_check_req_sizes(&r);
	if (sizes == -EINVAL) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	/* Data is fetched only when its size is legal (stock order). */
	dlen = sizes == -EMSGSIZE ? 0 : abi_req_data_len(&r);
	n = abi_send_spans((uintptr_t)arg, ent->in_size, &r, dlen, sp);
	if (!granted(c, tid, ent->op, sp, n, in_len)) {
		retry_grant(c, req, tid, ent, arg, sp, n, false);
		return;
	}
	rv = abi_parse_addr(in + ent->in_size, r.addr_len, &addr);
	if (rv == 0 && sizes)
		rv = sizes;
	if (rv == 0) {
		int32_t retries = r.settime ? r.retries : c->timing_retries;
		uint32_t ms = r.settime ? r.retry_time_ms : c->timing_retry_ms;

		rv = client_send(c, &addr, in + ent->in_size, r.addr_len,
				 r.msgid, r.netfn, r.cmd,
				 in + ent->in_size + r.addr_len, dlen, retries,
				 ms);
	}
	if (rv < 0)
		fuse_reply_err(req, -rv);
	else
		fuse_reply_ioctl(req, 0, NULL, 0);
}

/* RECEIVE_MSG and RECEIVE_MSG_TRUNC, once the struct is in. */
static void do_receive(struct client *c, fuse_req_t req,
		       const struct abi_ioctl *ent, void *arg,
		       const uint8_t *in, size_t in_len, size_t out_len)
{
	struct abi_recv r, out;
	struct abi_recv_fit fit;
	struct abi_span sp[ABI_RECV_SPANS];
	struct kmsg *m;
	struct iovec iov[3];
	uint8_t st[ABI_RECV64_SIZE];
	uint8_t abuf[ABI_MAX_ADDR_LEN];
	pid_t tid = fuse_req_ctx(req)->pid;
	uint32_t alen;
	int n = 0, nsp, rv;

	if (abi_decode_recv(in, in_len, ent->layout32, &r) < 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	c->last_recv = r;
	c->last_recv_arg = (uintptr_t)arg;
	m = TAILQ_FIRST(&c->rq);
	if (!m) {
		fuse_reply_err(req, EAGAIN);
		return;
	}
	alen = abi_addr_length(m->addr.addr_type);
	abi_recv_fit(r.addr_len, alen, r.data_len, m->data_len,
		     ent->op == ABI_RECEIVE_MSG_TRUNC, &fit);
	if (fit.err == -EINVAL) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	/* The output this reply writes: struct, address, data. Reply only
	 * if the kernel holds exactly that memory for this call. */
	nsp = abi_recv_spans((uintptr_t)arg, ent->in_size, &r, alen, &fit, sp);
	if (!granted(c, tid, ent->op, sp, nsp, out_len)) {
		retry_grant(c, req, tid, ent, arg, sp, nsp, false);
		return;
	}
	/* Answered from a retry that had the buffers copied in: mapped. */
	if (in_len == ent->in_size + recv_extra(sp, nsp, (uintptr_t)arg))
		recv_prove(c, sp, nsp, (uintptr_t)arg);
	/* In the order of the spans: address, data, struct. */
	if (fit.write_addr) {
		/* A response carries its request's address bytes as the
		 * client wrote them (padding included), as the stock driver
		 * keeps them; anything else is encoded. */
		if (m->addr_raw_len >= alen) {
			memcpy(abuf, m->addr_raw, alen);
		} else {
			rv = abi_encode_addr(&m->addr, abuf, sizeof(abuf));
			if (rv < 0)
				memset(abuf, 0, sizeof(abuf));
		}
		iov[n++] = (struct iovec){ abuf, alen };
	}
	if (fit.write_data && fit.data_len)
		iov[n++] = (struct iovec){ m->data, fit.data_len };
	if (fit.write_struct) {
		memcpy(st, in, ent->in_size); /* echo the caller's padding */
		out = r;
		out.recv_type = m->recv_type;
		out.addr_len = alen;
		out.msgid = m->msgid;
		out.netfn = m->netfn;
		out.cmd = m->cmd;
		out.data_len = fit.data_len;
		abi_encode_recv(st, sizeof(st), ent->layout32, &out);
		iov[n++] = (struct iovec){ st, ent->in_size };
	}
	rv = fit.err;
	fuse_reply_ioctl_iov(req, rv, iov, n);
	if (fit.consume) {
		TAILQ_REMOVE(&c->rq, m, link);
		c->rq_len--;
		c->rq_events -= m->recv_type == IPMI_ASYNC_EVENT_RECV_TYPE;
		free(m);
	}
}

/* Give the first subscriber the events queued before anyone listened. */
static void take_event_backlog(struct client *c)
{
	struct frontend *fe = c->node->d->fe;
	struct kmsg *m;

	while ((m = TAILQ_FIRST(&fe->event_backlog))) {
		TAILQ_REMOVE(&fe->event_backlog, m, link);
		fe->event_backlog_len--;
		client_deliver(c, m);
	}
}

/* do_simple's parts: 0 or -errno for do_simple to reply with, or
 * REPLIED when the part answered itself (a GET with its value). */
#define REPLIED 1

static int simple_events(struct client *c, const uint8_t *in, size_t in_len)
{
	int32_t v = 0;

	abi_decode_int(in, in_len, &v);
	if (abi_gets_events_value(v) && !c->node->conf.events)
		return -EPERM;
	c->gets_events = abi_gets_events_value(v);
	if (c->gets_events)
		take_event_backlog(c);
	return 0;
}

/* The node's IPMB source address and LUN: plain (channel 0) and per
 * channel, as the stock driver keeps them, but per node. */
static int simple_address(struct client *c, fuse_req_t req,
			  const struct abi_ioctl *ent, const uint8_t *in,
			  size_t in_len)
{
	struct node *n = c->node;
	struct abi_chan_val cv;
	uint8_t b[ABI_CHAN_VAL_SIZE];
	int32_t v = 0;
	int rv;

	switch (ent->op) {
	case ABI_SET_MY_ADDRESS:
		abi_decode_int(in, in_len, &v);
		n->chan_address[0] = abi_my_address_value((uint32_t)v);
		return 0;
	case ABI_GET_MY_ADDRESS:
		reply_int(req, n->chan_address[0]);
		return REPLIED;
	case ABI_SET_MY_LUN:
		abi_decode_int(in, in_len, &v);
		n->chan_lun[0] = abi_my_lun_value((uint32_t)v);
		return 0;
	case ABI_GET_MY_LUN:
		reply_int(req, n->chan_lun[0]);
		return REPLIED;
	default:
		break;
	}
	abi_decode_chan_val(in, in_len, &cv);
	rv = abi_check_channel(cv.channel);
	if (rv)
		return rv;
	switch (ent->op) {
	case ABI_SET_MY_CHANNEL_ADDRESS:
		n->chan_address[cv.channel] = cv.value;
		return 0;
	case ABI_SET_MY_CHANNEL_LUN:
		n->chan_lun[cv.channel] = cv.value & 3;
		return 0;
	default: /* GET_MY_CHANNEL_ADDRESS, GET_MY_CHANNEL_LUN */
		cv.value = ent->op == ABI_GET_MY_CHANNEL_ADDRESS ?
				   n->chan_address[cv.channel] :
				   n->chan_lun[cv.channel];
		memcpy(b, in, ABI_CHAN_VAL_SIZE);
		abi_encode_chan_val(b, ABI_CHAN_VAL_SIZE, &cv);
		fuse_reply_ioctl(req, 0, b, ABI_CHAN_VAL_SIZE);
		return REPLIED;
	}
}

static int simple_timing(struct client *c, fuse_req_t req,
			 const struct abi_ioctl *ent, const uint8_t *in,
			 size_t in_len)
{
	struct abi_timing t;
	uint8_t b[ABI_TIMING_SIZE];

	if (ent->op == ABI_SET_TIMING_PARMS) {
		abi_decode_timing(in, in_len, &t);
		c->timing_retries = t.retries;
		c->timing_retry_ms = t.retry_time_ms;
		return 0;
	}
	t.retries = c->timing_retries;
	t.retry_time_ms = c->timing_retry_ms;
	abi_encode_timing(b, sizeof(b), &t);
	fuse_reply_ioctl(req, 0, b, ABI_TIMING_SIZE);
	return REPLIED;
}

static int simple_maintenance(struct daemon *d, fuse_req_t req,
			      const struct abi_ioctl *ent, const uint8_t *in,
			      size_t in_len)
{
	int32_t v = 0;
	int rv;

	if (ent->op == ABI_GET_MAINTENANCE_MODE) {
		reply_int(req, d->maintenance_mode);
		return REPLIED;
	}
	abi_decode_int(in, in_len, &v);
	rv = abi_check_maintenance_mode(v);
	if (!rv)
		d->maintenance_mode = v;
	return rv;
}

/* The ioctls that are not SEND or RECEIVE: settings of the file, the
 * node or the daemon, and command registration. */
static void do_simple(struct client *c, fuse_req_t req,
		      const struct abi_ioctl *ent, const uint8_t *in,
		      size_t in_len)
{
	int rv;

	switch (ent->op) {
	case ABI_SET_GETS_EVENTS:
		rv = simple_events(c, in, in_len);
		break;
	case ABI_SET_MY_ADDRESS:
	case ABI_GET_MY_ADDRESS:
	case ABI_SET_MY_LUN:
	case ABI_GET_MY_LUN:
	case ABI_SET_MY_CHANNEL_ADDRESS:
	case ABI_SET_MY_CHANNEL_LUN:
	case ABI_GET_MY_CHANNEL_ADDRESS:
	case ABI_GET_MY_CHANNEL_LUN:
		rv = simple_address(c, req, ent, in, in_len);
		break;
	case ABI_SET_TIMING_PARMS:
	case ABI_GET_TIMING_PARMS:
		rv = simple_timing(c, req, ent, in, in_len);
		break;
	case ABI_GET_MAINTENANCE_MODE:
	case ABI_SET_MAINTENANCE_MODE:
		rv = simple_maintenance(c->node->d, req, ent, in, in_len);
		break;
	case ABI_REGISTER_FOR_CMD:
	case ABI_REGISTER_FOR_CMD_CHANS:
	case ABI_UNREGISTER_FOR_CMD:
	case ABI_UNREGISTER_FOR_CMD_CHANS:
		rv = cmdreg_ioctl(c, ent, in, in_len);
		break;
	default:
		rv = -ENOTTY;
		break;
	}
	if (rv == REPLIED)
		return;
	if (rv)
		fuse_reply_err(req, -rv);
	else
		fuse_reply_ioctl(req, 0, NULL, 0);
}

void client_ioctl(struct client *c, fuse_req_t req, unsigned int cmd, void *arg,
		  unsigned int flags, const void *in_buf, size_t in_len,
		  size_t out_len)
{
	const struct abi_ioctl *ent;

	ent = abi_ioctl_lookup(cmd, flags & FUSE_IOCTL_COMPAT);
	if (!ent) {
		fuse_reply_err(req, ENOTTY);
		return;
	}
	if (ent->in_size && in_len < ent->in_size) {
		if (ent->op == ABI_RECEIVE_MSG ||
		    ent->op == ABI_RECEIVE_MSG_TRUNC ||
		    ent->op == ABI_SEND_COMMAND ||
		    ent->op == ABI_SEND_COMMAND_SETTIME)
			first_call(c, req, ent, arg);
		else
			reply_retry_in(req, arg, ent->in_size);
		return;
	}
	/* GET_* write back: the kernel must accept out_size bytes at arg
	 * (a bad pointer then fails with EFAULT there, as on the stock
	 * device). RECEIVE asks for its own output below. */
	if (ent->out_size && out_len < ent->out_size &&
	    ent->op != ABI_RECEIVE_MSG && ent->op != ABI_RECEIVE_MSG_TRUNC) {
		struct iovec in_iov = { arg, ent->in_size };
		struct iovec out_iov = { arg, ent->out_size };

		fuse_reply_ioctl_retry(req, &in_iov, ent->in_size ? 1 : 0,
				       &out_iov, 1);
		return;
	}
	switch (ent->op) {
	case ABI_SEND_COMMAND:
	case ABI_SEND_COMMAND_SETTIME:
		do_send(c, req, ent, arg, in_buf, in_len);
		break;
	case ABI_RECEIVE_MSG:
	case ABI_RECEIVE_MSG_TRUNC:
		do_receive(c, req, ent, arg, in_buf, in_len, out_len);
		break;
	default:
		do_simple(c, req, ent, in_buf, in_len);
		break;
	}
}
