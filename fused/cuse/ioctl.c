// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl.c - the /dev/ipmiN ioctl ABI over CUSE's unrestricted-ioctl retry
 * protocol, for one open file (client.c's).
 *
 * Each ioctl first arrives with no data. We answer with a retry naming the
 * user memory we need (the struct at arg); the kernel calls again with it,
 * and for SEND/RECEIVE once more with the memory the struct points at.
 * Both usually save that third call by guessing (first_call): the grants
 * and guesses are here, and what may be guessed (docs/cuse.md, "Guessing
 * the buffers"). Errors are the stock driver's, in its order (ipmi_abi.h
 * has the rules). A decoded SEND goes to client_send().
 */
#define FUSE_USE_VERSION 35

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <fuse_lowlevel.h>

#include "core/sdrglue.h"
#include "core/seqtab.h"
#include "core/xact.h"
#include "cuse/cuse.h"
#include "cuse/handover.h"
#include "util/log.h"

/*
 * Every retry goes out here: the client's task calls again, so the node
 * may read its session once more before going back to the event loop
 * (node.c, node_drain); any other reply ends the request.
 */
static void reply_retry(struct client *c, fuse_req_t req,
			const struct iovec *in, size_t nin,
			const struct iovec *out, size_t nout)
{
	c->node->retried = nout ? 2 : 1;
	fuse_reply_ioctl_retry(req, in, nin, out, nout);
}

static void reply_retry_in(struct client *c, fuse_req_t req, void *arg,
			   size_t size)
{
	struct iovec iov = { .iov_base = arg, .iov_len = size };

	reply_retry(c, req, &iov, 1, NULL, 0);
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

enum guess_event { GUESS_MADE, GUESS_HELD, GUESS_MISSED };

/* Per file and per node (kcsmuxctl, the SIGUSR1 table). */
static void guess_count(struct client *c, int op, enum guess_event ev)
{
	int k = is_send(op) ? 0 : 1;

	switch (ev) {
	case GUESS_MADE:
		c->guess_made[k]++;
		c->node->cnt.guesses[k]++;
		break;
	case GUESS_HELD:
		c->guess_held[k]++;
		c->node->cnt.guess_hits[k]++;
		break;
	case GUESS_MISSED:
		c->guess_missed[k]++;
		c->node->cnt.guess_misses[k]++;
		break;
	}
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
 * daemon answered: docs/differences.md.)
 */
static void retry_grant(struct client *c, fuse_req_t req,
			const struct abi_ioctl *ent, void *arg,
			const struct abi_span *sp, int n, bool guess)
{
	struct iovec in_iov[ABI_RECV_SPANS + 1], iov[ABI_RECV_SPANS];
	pid_t tid = fuse_req_ctx(req)->pid;
	int nin = 0;

	grant_put(c, tid, ent->op, sp, n, guess);
	if (guess)
		guess_count(c, ent->op, GUESS_MADE);
	spans_to_iov(sp, n, iov);
	if (is_send(ent->op)) {
		reply_retry(c, req, iov, (size_t)n, NULL, 0);
		return;
	}
	in_iov[nin++] = (struct iovec){ arg, ent->in_size };
	for (int i = 0; !guess && i < n; i++)
		if (sp[i].ptr != (uintptr_t)arg)
			in_iov[nin++] = iov[i];
	reply_retry(c, req, in_iov, (size_t)nin, iov, (size_t)n);
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

/*
 * Every span but the struct lies in a buffer the kernel copied in, or in
 * the pages of the struct (size bytes at arg), which the same retry
 * copies in: mapped as the struct is.
 */
static bool recv_spans_proven(const struct client *c, const struct abi_span *sp,
			      int n, uint64_t arg, size_t size)
{
	for (int i = 0; i < n; i++) {
		bool ok = sp[i].ptr == arg ||
			  abi_spans_in_pages(&sp[i], 1, arg, arg + size,
					     page_size());

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
	ok = !g->window && abi_spans_equal(sp, n, g->sp, g->n) &&
	     len == abi_spans_len(sp, n);
	if (g->guess)
		guess_count(c, op, ok ? GUESS_HELD : GUESS_MISSED);
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
 * out only what a reply carries: it costs nothing. It names only buffers
 * the kernel copied in for this file before or that lie in the struct's
 * pages; a struct at a new address is guessed to point where the last one
 * did, buffers in its pages moved along with it (abi_guess_ptr). A SEND guess is copied
 * in by the kernel before we see it, and memory that is no longer mapped
 * would fail the whole call with EFAULT: so we guess only memory inside
 * the pages of the struct the caller is handing over right now. With no
 * last SEND to go by (a new file, a struct at a new address: one-shot
 * clients, calls from several places) the guess is those whole pages: the
 * struct's address and data are read out of them if they lie there
 * (send_unwrap), as compilers lay a stack frame out.
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
	} else if (tid && !send && m && a && c->last_recv_arg) {
		struct abi_recv pr = c->last_recv;

		pr.addr_ptr = abi_guess_ptr(pr.addr_ptr, c->last_recv_arg, a,
					    ent->in_size, page_size());
		pr.data_ptr = abi_guess_ptr(pr.data_ptr, c->last_recv_arg, a,
					    ent->in_size, page_size());
		alen = ipmi_addr_len(m->addr.addr_type);
		abi_recv_fit(pr.addr_len, alen, pr.data_len, m->data_len,
			     ent->op == ABI_RECEIVE_MSG_TRUNC, &fit);
		if (fit.err != -EINVAL)
			n = abi_recv_spans(a, ent->in_size, &pr, alen, &fit,
					   sp);
		if (!recv_spans_proven(c, sp, n, a, ent->in_size))
			n = 0;
	}
	if (n > 1 || (n == 1 && !send)) {
		retry_grant(c, req, ent, arg, sp, n, true);
		return;
	}
	/* A SEND with nothing to go by (a new file, the struct at a new
	 * address): the whole page(s) of the struct, mapped if it is. */
	if (tid && send && a &&
	    abi_page_window(a, a + ent->in_size, page_size(), &sp[0])) {
		grant_put(c, tid, ent->op, sp, 1, true);
		grant_find(c, tid, ent->op)->window = true;
		guess_count(c, ent->op, GUESS_MADE);
		reply_retry_in(c, req, (void *)(uintptr_t)sp[0].ptr, sp[0].len);
		return;
	}
	/* Just the struct: SEND is granted it as input, RECEIVE no output. */
	sp[0] = (struct abi_span){ a, (uint32_t)ent->in_size };
	grant_put(c, tid, ent->op, sp, send ? 1 : 0, false);
	reply_retry_in(c, req, arg, ent->in_size);
}

/* Room for a SEND's struct, address and data laid end to end. */
#define SEND_BUF_SIZE \
	(ABI_REQ_SETTIME64_SIZE + ABI_MAX_ADDR_LEN + ABI_MAX_MSG_LENGTH)

/*
 * A SEND whose call brings the page window first_call asked for: the
 * struct, address and data out of it, end to end in buf, as if exactly
 * they had been asked for, and the grant says so (granted() then counts
 * the guess held). When the address or data lie outside the window only
 * the struct is taken (granted() counts a miss and the call retries for
 * the right memory). The length in buf, or -1 if the call is not the
 * window's (the grant is dropped).
 */
static long send_unwrap(struct io_grant *g, const struct abi_ioctl *ent,
			uint64_t a, const uint8_t *in, size_t in_len,
			uint8_t *buf)
{
	struct abi_span sp[ABI_RECV_SPANS], win = g->sp[0];
	struct abi_req r;
	long len = -1;
	int n = 1;

	g->window = false;
	sp[0] = (struct abi_span){ a, (uint32_t)ent->in_size };
	if (in_len != win.len ||
	    abi_window_gather(in, &win, sp, 1, buf, SEND_BUF_SIZE) < 0) {
		g->tid = 0;
		return -1;
	}
	if (abi_decode_req(buf, ent->in_size, ent->layout32,
			   ent->op == ABI_SEND_COMMAND_SETTIME, &r) == 0 &&
	    abi_check_req_sizes(&r) != -EINVAL) {
		n = abi_send_spans(a, ent->in_size, &r,
				   abi_check_req_sizes(&r) ?
					   0 :
					   abi_req_data_len(&r),
				   sp);
		len = abi_window_gather(in, &win, sp, n, buf, SEND_BUF_SIZE);
	}
	if (len < 0) {
		n = 1;
		len = (long)ent->in_size;
	}
	g->n = n;
	memcpy(g->sp, sp, (size_t)n * sizeof(*sp));
	return len;
}

/* SEND_COMMAND and SEND_COMMAND_SETTIME, once the struct is in. */
static void do_send(struct client *c, fuse_req_t req,
		    const struct abi_ioctl *ent, void *arg, const uint8_t *in,
		    size_t in_len)
{
	struct abi_span sp[ABI_RECV_SPANS];
	pid_t tid = fuse_req_ctx(req)->pid;
	struct abi_req r;
	struct ipmi_address addr;
	struct io_grant *g = grant_find(c, tid, ent->op);
	uint8_t buf[SEND_BUF_SIZE];
	uint16_t dlen;
	long len;
	int n, rv, sizes;

	if (g && g->window) {
		len = send_unwrap(g, ent, (uintptr_t)arg, in, in_len, buf);
		if (len < 0) {
			first_call(c, req, ent, arg);
			return;
		}
		in = buf;
		in_len = (size_t)len;
	}
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
		retry_grant(c, req, ent, arg, sp, n, false);
		return;
	}
	rv = ipmi_addr_parse(in + ent->in_size, r.addr_len, &addr);
	if (rv == 0 && sizes)
		rv = sizes;
	if (rv == 0) {
		struct ipmi_request rq = {
			.addr = addr,
			.addr_raw = in + ent->in_size,
			.addr_len = r.addr_len,
			.msgid = r.msgid,
			.netfn = r.netfn,
			.cmd = r.cmd,
			.data = in + ent->in_size + r.addr_len,
			.len = dlen,
			.retries = r.settime ? r.retries : c->timing_retries,
			.retry_ms = r.settime ? r.retry_time_ms :
						c->timing_retry_ms,
		};

		rv = client_send(c, &rq);
		/* journaled before the caller learns it was accepted */
		if (rv == 0)
			handover_pend_sent(c, &rq);
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
	alen = ipmi_addr_len(m->addr.addr_type);
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
		retry_grant(c, req, ent, arg, sp, nsp, false);
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
			rv = ipmi_addr_encode(&m->addr, abuf, sizeof(abuf));
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
		if (m->recv_type == IPMI_RESPONSE_RECV_TYPE)
			handover_pend_read(c, m->msgid);
		TAILQ_REMOVE(&c->rq, m, link);
		c->rq_len--;
		c->rq_events -= m->recv_type == IPMI_ASYNC_EVENT_RECV_TYPE;
		free(m);
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
		client_take_backlog(c);
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

/* Maintenance mode is the daemon's, for every node: any node reads it,
 * only an admin node (access_is_admin: one allowed the BMC resets that
 * start it) sets it; others get EPERM, as a refused registration. */
static int simple_maintenance(struct client *c, fuse_req_t req,
			      const struct abi_ioctl *ent, const uint8_t *in,
			      size_t in_len)
{
	struct daemon *d = c->node->d;
	int32_t v = 0;
	int rv;

	if (ent->op == ABI_GET_MAINTENANCE_MODE) {
		reply_int(req, d->maint.mode);
		return REPLIED;
	}
	abi_decode_int(in, in_len, &v);
	rv = abi_check_maintenance_mode(v);
	if (!rv && !access_is_admin(client_acc(c))) {
		c->node->cnt.denied++;
		log_ratelimited(&c->node->rl_denied, LOG_NOTICE,
				"node %s: pid %d: SET_MAINTENANCE_MODE %d "
				"denied (EPERM): the node may not reset the BMC",
				c->node->conf.name, (int)c->pid, (int)v);
		return -EPERM;
	}
	if (!rv) {
		rv = maint_set_mode(&d->maint, v, now_ns());
		log_info("maintenance mode set to %s", v == 0 ? "auto" :
						       v == 1 ? "off" :
								"on");
	}
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
		rv = simple_maintenance(c, req, ent, in, in_len);
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

void client_ioctl(struct client *c, const struct cuse_ioctl *io)
{
	fuse_req_t req = io->req;
	void *arg = io->arg;
	const void *in_buf = io->in;
	size_t in_len = io->in_len, out_len = io->out_len;
	const struct abi_ioctl *ent;

	ent = abi_ioctl_lookup(io->cmd, io->flags & FUSE_IOCTL_COMPAT);
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
			reply_retry_in(c, req, arg, ent->in_size);
		return;
	}
	/* GET_* write back: the kernel must accept out_size bytes at arg
	 * (a bad pointer then fails with EFAULT there, as on the stock
	 * device). RECEIVE asks for its own output below. */
	if (ent->out_size && out_len < ent->out_size &&
	    ent->op != ABI_RECEIVE_MSG && ent->op != ABI_RECEIVE_MSG_TRUNC) {
		struct iovec in_iov = { arg, ent->in_size };
		struct iovec out_iov = { arg, ent->out_size };

		reply_retry(c, req, &in_iov, ent->in_size ? 1 : 0, &out_iov, 1);
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
