// SPDX-License-Identifier: GPL-2.0
/*
 * Check suite for the CUSE front end's client delivery (fused/cuse/client.c
 * over the core and a fake backend): requests to answers in the receive
 * queue, their order, RECEIVE keeping a message when its buffer is bad or
 * small, cancel on close, the access list's cc 0xD4, events and their
 * backlog, a bridged answer delivered through the owner callback.
 *
 * libfuse's reply calls are wrapped (ld --wrap) by a small model of the
 * kernel's CUSE ioctl path: a retry's input memory is copied in (an address
 * below 4096 faults: EFAULT before the daemon sees the call, as the kernel
 * does), the call is made again, and a reply is copied out to the memory
 * the last retry named. Every call checks that the node is told a retry
 * went out (node->retried: its loop reads the session again) exactly when
 * one did.
 */
#define FUSE_USE_VERSION 35

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>

#include <event2/event.h>
#include <fuse_lowlevel.h>
#include <linux/ipmi.h>
#include <linux/ipmi_msgdefs.h>

#include "core/core.h"
#include "core/leasegate.h"
#include "core/sdrcache.h"
#include "core/selmirror.h"
#include "core/xact.h"
#include "cuse/cuse.h"
#include "core_fixture.h"
#include "fake_backend.h"
#include "fuse_wraps.h"
#include "node_conf.h"

/* ------------------------------------------------------------------ */
/* the kernel's side of CUSE ioctls */

enum { R_NONE, R_ERR, R_IOCTL, R_RETRY };

static struct {
	int kind, err, result;
	uint8_t out[2048];
	size_t outlen;
	struct iovec in[4], outv[4];
	size_t nin, nout;
} r;
static int fake_req;
static struct fuse_ctx ctx = { .pid = 4242 };
static unsigned int rounds; /* of kioctl's last call */
static unsigned int notifies;

int __wrap_fuse_reply_err(fuse_req_t req, int err)
{
	(void)req;
	r.kind = R_ERR;
	r.err = err;
	return 0;
}

int __wrap_fuse_reply_ioctl(fuse_req_t req, int result, const void *buf,
			    size_t size)
{
	(void)req;
	ck_assert_uint_le(size, sizeof(r.out));
	r.kind = R_IOCTL;
	r.result = result;
	if (size)
		memcpy(r.out, buf, size);
	r.outlen = size;
	return 0;
}

int __wrap_fuse_reply_ioctl_iov(fuse_req_t req, int result,
				const struct iovec *iov, int count)
{
	(void)req;
	r.kind = R_IOCTL;
	r.result = result;
	r.outlen = 0;
	for (int i = 0; i < count; i++) {
		ck_assert_uint_le(r.outlen + iov[i].iov_len, sizeof(r.out));
		memcpy(r.out + r.outlen, iov[i].iov_base, iov[i].iov_len);
		r.outlen += iov[i].iov_len;
	}
	return 0;
}

int __wrap_fuse_reply_ioctl_retry(fuse_req_t req, const struct iovec *in_iov,
				  size_t in_count, const struct iovec *out_iov,
				  size_t out_count)
{
	(void)req;
	ck_assert_uint_le(in_count, 4);
	ck_assert_uint_le(out_count, 4);
	r.kind = R_RETRY;
	memcpy(r.in, in_iov, in_count * sizeof(*in_iov));
	r.nin = in_count;
	if (out_count)
		memcpy(r.outv, out_iov, out_count * sizeof(*out_iov));
	r.nout = out_count;
	return 0;
}

const struct fuse_ctx *__wrap_fuse_req_ctx(fuse_req_t req)
{
	(void)req;
	return &ctx;
}

int __wrap_fuse_lowlevel_notify_poll(struct fuse_pollhandle *ph)
{
	(void)ph;
	notifies++;
	return 0;
}

void __wrap_fuse_pollhandle_destroy(struct fuse_pollhandle *ph)
{
	(void)ph;
}

static bool faults(const void *p)
{
	return (uintptr_t)p < 4096;
}

/* The kernel's copy-in: whole pages of the caller's memory for a SEND's
 * page guess, other stack frames and their redzones included, which is
 * not what ASan checks here (volatile: not turned into memcpy). */
__attribute__((no_sanitize_address)) static void
copy_in(uint8_t *dst, const void *src, size_t n)
{
	const volatile uint8_t *p = src;

	for (size_t i = 0; i < n; i++)
		dst[i] = p[i];
}

/* One ioctl as the kernel runs it over CUSE: 0/result or -errno. */
static int kioctl(struct client *c, unsigned int cmd, void *arg)
{
	static uint8_t in[4 * 4096];
	struct iovec outv[4];
	size_t in_len = 0, out_len = 0, nout = 0, off, n;

	for (int round = 0; round < 4; round++) {
		struct cuse_ioctl io = {
			.req = (fuse_req_t)&fake_req,
			.cmd = cmd,
			.arg = arg,
			.in = in_len ? in : NULL,
			.in_len = in_len,
			.out_len = out_len,
		};

		r.kind = R_NONE;
		c->node->retried = 0;
		rounds = round + 1;
		client_ioctl(c, &io);
		/* node_drain may read on only after a retry, by its kind:
		 * input only (1) or output named too (2) */
		ck_assert_int_eq(c->node->retried, r.kind != R_RETRY ? 0 :
						   r.nout	     ? 2 :
								       1);
		switch (r.kind) {
		case R_ERR:
			return -r.err;
		case R_IOCTL:
			for (size_t i = 0, o = 0; i < nout && o < r.outlen;
			     i++) {
				n = outv[i].iov_len < r.outlen - o ?
					    outv[i].iov_len :
					    r.outlen - o;
				if (faults(outv[i].iov_base))
					return -EFAULT;
				memcpy(outv[i].iov_base, r.out + o, n);
				o += n;
			}
			return r.result;
		case R_RETRY:
			in_len = 0;
			for (size_t i = 0; i < r.nin; i++) {
				if (faults(r.in[i].iov_base))
					return -EFAULT;
				ck_assert_uint_le(in_len + r.in[i].iov_len,
						  sizeof(in));
				copy_in(in + in_len, r.in[i].iov_base,
					r.in[i].iov_len);
				in_len += r.in[i].iov_len;
			}
			nout = r.nout;
			memcpy(outv, r.outv, nout * sizeof(*outv));
			for (off = 0, out_len = 0; off < nout; off++)
				out_len += outv[off].iov_len;
			break;
		default:
			ck_abort_msg("no reply");
		}
	}
	ck_abort_msg("more than 4 round trips");
	return 0;
}

/* ------------------------------------------------------------------ */
/* a daemon of two nodes: a (all, events, commands), b (readonly, no
 * events) */

static struct core_fixture fx;
static int ph_dummy;

static struct client *open_file(struct node *n)
{
	struct client *c = client_new(n, 100, 0);

	ck_assert_ptr_nonnull(c);
	LIST_INSERT_HEAD(&n->clients, c, link);
	n->nclients++;
	c->ph = (struct fuse_pollhandle *)&ph_dummy;
	return c;
}

static void close_file(struct client *c)
{
	LIST_REMOVE(c, link);
	c->node->nclients--;
	client_free(c);
}

static void setup(void)
{
	memset(&r, 0, sizeof(r));
	notifies = 0;
	core_fixture_open(&fx, NULL); /* frontend_init() sets the upcalls */
	test_node_conf(&fx.conf_a, "a", KCSMUX_PRESET_NORMAL,
		       KCSMUX_ACCESS_ALL);
	fx.conf_a.commands = true;
	fx.conf_a.max_outstanding = 3;
	test_node_conf(&fx.conf_b, "b", KCSMUX_PRESET_NORMAL,
		       KCSMUX_ACCESS_READONLY);
	fx.conf_b.events = false;
	fx.d.cfg.event_backlog = 25;
	ck_assert_int_eq(frontend_init(&fx.d, NULL), 0);
	fx.d.my_address = 0x20;
	memset(fx.d.chan_address, 0x20, sizeof(fx.d.chan_address));
	memset(fx.d.chan_lun, 2, sizeof(fx.d.chan_lun));
	fx.d.media_ready = true;
	fx.d.media[0] = IPMI_CHANNEL_MEDIUM_IPMB;
	core_fixture_attach(&fx);
	fx.na.ready = fx.nb.ready = true;
}

static void teardown(void)
{
	struct client *c;

	while ((c = LIST_FIRST(&fx.na.clients)))
		close_file(c);
	while ((c = LIST_FIRST(&fx.nb.clients)))
		close_file(c);
	core_fixture_close(&fx);
	frontend_fini(&fx.d);
}

static struct ipmi_system_interface_addr si = {
	.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
	.channel = IPMI_BMC_CHANNEL,
};

/* The IPMB controller the bridged tests talk to (channel 0, LUN 0). */
static const struct ipmi_ipmb_addr ipmb82 = {
	.addr_type = IPMI_IPMB_ADDR_TYPE,
	.channel = 0,
	.slave_addr = 0x82,
	.lun = 0,
};

static int send_to(struct client *c, void *addr, unsigned int alen, long msgid,
		   uint8_t netfn, uint8_t cmd)
{
	struct ipmi_req rq = {
		.addr = addr,
		.addr_len = alen,
		.msgid = msgid,
		.msg = { .netfn = netfn, .cmd = cmd },
	};

	return kioctl(c, IPMICTL_SEND_COMMAND, &rq);
}

static int send_si(struct client *c, long msgid, uint8_t netfn, uint8_t cmd)
{
	return send_to(c, &si, sizeof(si), msgid, netfn, cmd);
}

struct rx {
	struct ipmi_recv rv;
	uint8_t addr[sizeof(struct ipmi_addr)];
	uint8_t data[64];
};

/* bad_addr, bad_data: that buffer is NULL or unmapped */
static int recv_into(struct client *c, bool trunc, struct rx *x, bool bad_addr,
		     bool bad_data, unsigned short dlen)
{
	memset(x, 0, sizeof(*x));
	x->rv.addr = bad_addr ? NULL : x->addr;
	x->rv.addr_len = sizeof(x->addr);
	x->rv.msg.data = bad_data ? (void *)8 : x->data;
	x->rv.msg.data_len = dlen;
	return kioctl(c,
		      trunc ? IPMICTL_RECEIVE_MSG_TRUNC : IPMICTL_RECEIVE_MSG,
		      &x->rv);
}

static int recv_msg(struct client *c, struct rx *x)
{
	return recv_into(c, false, x, false, false, sizeof(x->data));
}

static const uint8_t devid[] = { 0x20, 0x01, 0x00, 0x05 };

/* ------------------------------------------------------------------ */

/* An event from the BMC's event buffer (Read Event Message Buffer's
 * answer, as the core hands it up): the LEN bytes at DATA. */
static struct ipmb_user_msg event_msg(const uint8_t *data, unsigned int len)
{
	struct ipmb_user_msg ev = {
		.recv_type = IPMI_ASYNC_EVENT_RECV_TYPE,
		.addr = { .addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
			  .channel = IPMI_BMC_CHANNEL },
		.netfn = 0x07,
		.cmd = 0x35,
		.data_len = (uint16_t)len,
	};

	memcpy(ev.data, data, len);
	return ev;
}

START_TEST(test_send_receive)
{
	struct client *c = open_file(&fx.na);
	struct rx x;

	ck_assert_int_eq(send_si(c, 42, 6, 1), 0);
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	ck_assert_uint_eq(fx.fb->subs[0].req[0], 0x18);
	ck_assert_uint_eq(fx.fb->subs[0].req[1], 0x01);
	ck_assert_uint_eq(c->outstanding, 1);
	ck_assert_int_eq(recv_msg(c, &x), -EAGAIN);
	fake_answer(fx.fb, devid, sizeof(devid));
	ck_assert_uint_eq(c->rq_len, 1);
	ck_assert_uint_eq(c->outstanding, 0);
	ck_assert_uint_eq(notifies, 1); /* poll() woken */
	ck_assert_int_eq(recv_msg(c, &x), 0);
	ck_assert_int_eq(x.rv.recv_type, IPMI_RESPONSE_RECV_TYPE);
	ck_assert_int_eq(x.rv.msgid, 42);
	ck_assert_uint_eq(x.rv.msg.netfn, 7);
	ck_assert_uint_eq(x.rv.msg.cmd, 1);
	ck_assert_uint_eq(x.rv.msg.data_len, 1 + sizeof(devid));
	ck_assert_uint_eq(x.data[0], 0);
	ck_assert_mem_eq(x.data + 1, devid, sizeof(devid));
	ck_assert_uint_eq(x.rv.addr_len, sizeof(si));
	ck_assert_mem_eq(x.addr, &si, sizeof(si));
	ck_assert_uint_eq(c->rq_len, 0);
	ck_assert_int_eq(recv_msg(c, &x), -EAGAIN);
}
END_TEST

/* A SEND at PAGE + OFF of a two-page buffer, its address at PAGE + AOFF
 * and its 3 bytes of data at PAGE + DOFF (a one-shot client's stack
 * frame); 0 or -errno, rounds says how many round trips it took. */
static int send_laid_out(struct client *c, uint8_t *page, size_t off,
			 size_t aoff, size_t doff)
{
	static const uint8_t data[] = { 0x01, 0x02, 0x03 };
	struct ipmi_req rq = {
		.addr = (void *)(page + aoff),
		.addr_len = sizeof(si),
		.msgid = 7,
		.msg = { .netfn = 6,
			 .cmd = 0x52,
			 .data_len = sizeof(data),
			 .data = page + doff },
	};

	memcpy(page + aoff, &si, sizeof(si));
	memcpy(page + doff, data, sizeof(data));
	memcpy(page + off, &rq, sizeof(rq));
	return kioctl(c, IPMICTL_SEND_COMMAND, page + off);
}

/* A new file's SEND (nothing to guess from) asks for the struct's whole
 * page: address and data in it take 2 round trips, and the request that
 * reaches the BMC is the one the memory holds. */
START_TEST(test_send_window_new_file)
{
	struct client *c = open_file(&fx.na);
	long psz = sysconf(_SC_PAGESIZE);
	uint8_t *mem = aligned_alloc((size_t)psz, 2 * (size_t)psz);
	struct cuse_ioctl io = {
		.req = (fuse_req_t)&fake_req,
		.cmd = IPMICTL_SEND_COMMAND,
		.arg = mem + 200,
	};

	ck_assert_ptr_nonnull(mem);
	/* the first call's retry: exactly the struct's page */
	r.kind = R_NONE;
	client_ioctl(c, &io);
	ck_assert_int_eq(r.kind, R_RETRY);
	ck_assert_uint_eq(r.nin, 1);
	ck_assert_ptr_eq(r.in[0].iov_base, mem);
	ck_assert_uint_eq(r.in[0].iov_len, (size_t)psz);
	ck_assert_uint_eq(c->guess_made[0], 1);

	ck_assert_int_eq(send_laid_out(c, mem, 200, 40, 3000), 0);
	ck_assert_uint_eq(rounds, 2);
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	ck_assert_uint_eq(fx.fb->subs[0].len, 5);
	ck_assert_uint_eq(fx.fb->subs[0].req[0], 0x18);
	ck_assert_uint_eq(fx.fb->subs[0].req[1], 0x52);
	ck_assert_uint_eq(fx.fb->subs[0].req[4], 0x03);
	ck_assert_uint_eq(c->guess_made[0], 2);
	ck_assert_uint_eq(c->guess_held[0], 1);
	ck_assert_uint_eq(c->guess_missed[0], 0);
	ck_assert_uint_eq(fx.na.cnt.guess_hits[0], 1);
	free(mem);
}
END_TEST

/* Data on the next page is not guessed (it may not be mapped): the guess
 * misses and the call goes on for the right memory, 3 round trips. A
 * struct that straddles two pages gets both. */
START_TEST(test_send_window_miss_and_straddle)
{
	struct client *c = open_file(&fx.na);
	long psz = sysconf(_SC_PAGESIZE);
	uint8_t *mem = aligned_alloc((size_t)psz, 2 * (size_t)psz);
	size_t p = (size_t)psz;

	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(send_laid_out(c, mem, 200, 40, p + 100), 0);
	ck_assert_uint_eq(rounds, 3);
	ck_assert_uint_eq(c->guess_made[0], 1);
	ck_assert_uint_eq(c->guess_held[0], 0);
	ck_assert_uint_eq(c->guess_missed[0], 1);
	ck_assert_uint_eq(fx.fb->subs[0].req[4], 0x03);
	/* at a new address (no exact guess): the struct's two pages */
	ck_assert_int_eq(send_laid_out(c, mem, p - 16, 40, p + 100), 0);
	ck_assert_uint_eq(rounds, 2);
	ck_assert_uint_eq(c->guess_held[0], 1);
	ck_assert_uint_eq(c->outstanding, 2);
	fake_answer(fx.fb, devid, sizeof(devid)); /* the next one goes out */
	ck_assert_uint_eq(fx.fb->nsubs, 2);
	ck_assert_uint_eq(fx.fb->subs[1].req[4], 0x03);
	free(mem);
}
END_TEST

/* A caller whose thread id is not seen (another pid namespace) is never
 * guessed for. */
START_TEST(test_send_window_unseen_tid)
{
	struct client *c = open_file(&fx.na);
	long psz = sysconf(_SC_PAGESIZE);
	uint8_t *mem = aligned_alloc((size_t)psz, 2 * (size_t)psz);

	ck_assert_ptr_nonnull(mem);
	ctx.pid = 0;
	ck_assert_int_eq(send_laid_out(c, mem, 200, 40, 3000), 0);
	ctx.pid = 4242;
	ck_assert_uint_eq(rounds, 3);
	ck_assert_uint_eq(c->guess_made[0], 0);
	free(mem);
}
END_TEST

/* A RECEIVE at PAGE + OFF with its address buffer at PAGE + AOFF and its
 * data in DATA; 0 or -errno, rounds says how many round trips. */
static int recv_laid_out(struct client *c, uint8_t *page, size_t off,
			 size_t aoff, uint8_t *data)
{
	struct ipmi_recv rv = {
		.addr = page + aoff,
		.addr_len = sizeof(struct ipmi_addr),
		.msg = { .data = data, .data_len = 64 },
	};

	memcpy(page + off, &rv, sizeof(rv));
	return kioctl(c, IPMICTL_RECEIVE_MSG_TRUNC, page + off);
}

/* A RECEIVE struct at a new address (a client that receives from several
 * places): its address buffer, in the struct's page, is guessed to have
 * moved with it, its data buffer (proven mapped by the first RECEIVE) to
 * have stayed: 2 round trips, and the answer lands there. */
START_TEST(test_recv_guess_new_address)
{
	static uint8_t data[64];
	struct client *c = open_file(&fx.na);
	long psz = sysconf(_SC_PAGESIZE);
	size_t p = (size_t)psz;
	uint8_t *mem = aligned_alloc(p, 2 * p);
	struct ipmi_recv *rv;

	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(send_si(c, 1, 6, 1), 0);
	fake_answer(fx.fb, devid, sizeof(devid));
	ck_assert_int_eq(recv_laid_out(c, mem, 104, 304, data), 0);
	ck_assert_uint_eq(rounds, 3); /* nothing to go by */
	ck_assert_int_eq(send_si(c, 2, 6, 1), 0);
	fake_answer(fx.fb, devid, sizeof(devid));
	memset(data, 0, sizeof(data));
	ck_assert_int_eq(recv_laid_out(c, mem, p + 504, p + 704, data), 0);
	ck_assert_uint_eq(rounds, 2);
	ck_assert_uint_eq(c->guess_made[1], 1);
	ck_assert_uint_eq(c->guess_held[1], 1);
	rv = (struct ipmi_recv *)(mem + p + 504);
	ck_assert_int_eq(rv->msgid, 2);
	ck_assert_uint_eq(rv->msg.data_len, 1 + sizeof(devid));
	ck_assert_mem_eq(data + 1, devid, sizeof(devid));
	ck_assert_mem_eq(mem + p + 704, &si, sizeof(si));
	/* the address buffer elsewhere than guessed: a miss, 3 round trips */
	ck_assert_int_eq(send_si(c, 3, 6, 1), 0);
	fake_answer(fx.fb, devid, sizeof(devid));
	ck_assert_int_eq(recv_laid_out(c, mem, 104, 704, data), 0);
	ck_assert_uint_eq(rounds, 3);
	ck_assert_uint_eq(c->guess_missed[1], 1);
	ck_assert_mem_eq(mem + 704, &si, sizeof(si));
	free(mem);
}
END_TEST

START_TEST(test_order)
{
	struct client *c = open_file(&fx.na);
	struct ipmb_user_msg ev = event_msg((const uint8_t[]){ 0xee }, 1);
	int on = 1;
	struct rx x;

	ck_assert_int_eq(kioctl(c, IPMICTL_SET_GETS_EVENTS_CMD, &on), 0);
	ck_assert_int_eq(send_si(c, 1, 6, 1), 0);
	ck_assert_int_eq(send_si(c, 2, 6, 4), 0);
	fake_answer(fx.fb, NULL, 0);
	fx.d.up->event(&fx.d, &ev);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(c->rq_len, 3);
	ck_assert_int_eq(recv_msg(c, &x), 0);
	ck_assert_int_eq(x.rv.msgid, 1);
	ck_assert_int_eq(recv_msg(c, &x), 0);
	ck_assert_int_eq(x.rv.recv_type, IPMI_ASYNC_EVENT_RECV_TYPE);
	ck_assert_uint_eq(x.data[0], 0xee);
	ck_assert_int_eq(recv_msg(c, &x), 0);
	ck_assert_int_eq(x.rv.msgid, 2);
	ck_assert_uint_eq(x.rv.msg.cmd, 4);
}
END_TEST

START_TEST(test_receive_bad_buffer)
{
	struct client *c = open_file(&fx.na);
	struct rx x;

	ck_assert_int_eq(send_si(c, 7, 6, 1), 0);
	fake_answer(fx.fb, devid, sizeof(devid));
	/* NULL or unmapped address or data: EFAULT, the message stays */
	ck_assert_int_eq(recv_into(c, false, &x, true, false, 64), -EFAULT);
	ck_assert_uint_eq(c->rq_len, 1);
	ck_assert_int_eq(recv_into(c, false, &x, false, true, 64), -EFAULT);
	ck_assert_uint_eq(c->rq_len, 1);
	ck_assert_int_eq(recv_into(c, true, &x, false, true, 64), -EFAULT);
	ck_assert_uint_eq(c->rq_len, 1);
	ck_assert_int_eq(recv_msg(c, &x), 0);
	ck_assert_int_eq(x.rv.msgid, 7);
	ck_assert_uint_eq(c->rq_len, 0);
}
END_TEST

START_TEST(test_receive_small_buffer)
{
	struct client *c = open_file(&fx.na);
	struct rx x;

	ck_assert_int_eq(send_si(c, 7, 6, 1), 0);
	fake_answer(fx.fb, devid, sizeof(devid));
	/* RECEIVE_MSG: EMSGSIZE and the message stays */
	ck_assert_int_eq(recv_into(c, false, &x, false, false, 2), -EMSGSIZE);
	ck_assert_uint_eq(c->rq_len, 1);
	/* RECEIVE_MSG_TRUNC: what fits, EMSGSIZE, consumed */
	ck_assert_int_eq(recv_into(c, true, &x, false, false, 2), -EMSGSIZE);
	ck_assert_uint_eq(c->rq_len, 0);
	ck_assert_int_eq(x.rv.msgid, 7);
	ck_assert_uint_eq(x.rv.msg.data_len, 2);
	ck_assert_uint_eq(x.data[0], 0x00);
	ck_assert_uint_eq(x.data[1], devid[0]);
}
END_TEST

START_TEST(test_close_cancels)
{
	struct client *c = open_file(&fx.na), *o = open_file(&fx.na);
	struct rx x;

	ck_assert_int_eq(send_si(c, 1, 6, 1), 0); /* runs */
	ck_assert_int_eq(send_si(c, 2, 6, 4), 0); /* queued */
	ck_assert_int_eq(send_si(o, 3, 6, 5), 0); /* queued */
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	close_file(c);
	ck_assert_uint_eq(fx.na.st.cancelled, 1);
	/* the running one completes into nothing; o's goes next */
	fake_answer(fx.fb, NULL, 0);
	ck_assert_uint_eq(fx.fb->nsubs, 2);
	ck_assert_uint_eq(fx.fb->subs[1].req[1], 5);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_int_eq(recv_msg(o, &x), 0);
	ck_assert_int_eq(x.rv.msgid, 3);
	ck_assert_int_eq(recv_msg(o, &x), -EAGAIN);
}
END_TEST

START_TEST(test_denied)
{
	struct client *c = open_file(&fx.nb);
	struct rx x;

	/* Cold Reset on a readonly node: cc 0xD4 at once, BMC untouched */
	ck_assert_int_eq(send_si(c, 9, 6, 2), 0);
	ck_assert_uint_eq(fx.fb->nsubs, 0);
	ck_assert_uint_eq(fx.nb.cnt.denied, 1);
	ck_assert_int_eq(recv_msg(c, &x), 0);
	ck_assert_int_eq(x.rv.msgid, 9);
	ck_assert_uint_eq(x.rv.msg.netfn, 7);
	ck_assert_uint_eq(x.rv.msg.cmd, 2);
	ck_assert_uint_eq(x.rv.msg.data_len, 1);
	ck_assert_uint_eq(x.data[0], 0xd4);
	/* allowed: reaches the BMC */
	ck_assert_int_eq(send_si(c, 10, 6, 1), 0);
	ck_assert_uint_eq(fx.fb->nsubs, 1);
}
END_TEST

/* admin_users/admin_groups on a readonly node (b): the listed uid, or an
 * opener in a listed group (its /proc/PID/status), gets admin_acc (all):
 * a Cold Reset goes to the BMC and it may set maintenance mode; another
 * uid on the same node keeps readonly (cc 0xD4, EPERM); an admin with
 * admin_access = readonly is refused by "admin_access". */
START_TEST(test_admin_openers)
{
	struct client *root, *user, *grp;
	struct access_why why = { .depth = 0, .netfn = 0x0c, .cmd = 0x01 };
	char buf[256];
	struct rx x;
	int v = 1;

	fx.nb.conf.admin_acc = fx.nb.conf.acc;
	fx.nb.conf.admin_acc.preset = KCSMUX_ACCESS_ALL;
	access_build(&fx.nb.conf.admin_acc);
	ck_assert(opener_add_uid(&fx.nb.conf.admins, 0, NULL));
	root = open_file(&fx.nb); /* uid 0 */
	user = client_new(&fx.nb, getpid(), 1000);
	ck_assert_ptr_nonnull(user);
	LIST_INSERT_HEAD(&fx.nb.clients, user, link);
	fx.nb.nclients++;
	ck_assert_ptr_eq(client_acc(root), &fx.nb.conf.admin_acc);
	ck_assert_ptr_eq(client_acc(user), &fx.nb.conf.acc);
	ck_assert_int_eq(send_si(user, 1, 6, 2), 0);
	ck_assert_uint_eq(fx.fb->nsubs, 0);
	ck_assert_int_eq(recv_msg(user, &x), 0);
	ck_assert_uint_eq(x.data[0], 0xd4);
	ck_assert_int_eq(kioctl(user, IPMICTL_SET_MAINTENANCE_MODE_CMD, &v),
			 -EPERM);
	ck_assert_int_eq(kioctl(root, IPMICTL_SET_MAINTENANCE_MODE_CMD, &v), 0);
	ck_assert_int_eq(send_si(root, 2, 6, 2), 0); /* Cold Reset: goes */
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	/* by group: this process's file system gid, read from /proc */
	ck_assert(opener_add_gid(&fx.nb.conf.admins, getegid(), NULL));
	grp = client_new(&fx.nb, getpid(), 1000);
	ck_assert_ptr_nonnull(grp);
	ck_assert_ptr_eq(client_acc(grp), &fx.nb.conf.admin_acc);
	/* the admins' own preset names itself in the refusal */
	fx.nb.conf.admin_acc.preset = KCSMUX_ACCESS_READONLY;
	access_build(&fx.nb.conf.admin_acc);
	client_deny_msg(buf, sizeof(buf), grp, ACCESS_DENIED, &why);
	ck_assert_msg(strstr(buf, "denied (cc 0xd4) by admin_access = "
				  "readonly (no allow line)") != NULL,
		      "%s", buf);
	client_free(grp);
	close_file(user);
	close_file(root);
}
END_TEST

/* A Cold Reset that goes to the BMC refuses every node's requests with
 * EBUSY while the BMC resets (core/maint.h, stock since 6.18); SET
 * MAINTENANCE_MODE off ends it. A reset the rules deny starts nothing
 * (test_denied). */
START_TEST(test_maint_reset)
{
	struct client *a = open_file(&fx.na), *b = open_file(&fx.nb);

	ck_assert_int_eq(send_si(a, 1, 6, 2), 0); /* Cold Reset: goes */
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	ck_assert_int_eq(send_si(b, 2, 6, 1), -EBUSY);
	ck_assert_int_eq(send_si(a, 3, 6, 1), -EBUSY);
	ck_assert_uint_eq(fx.d.maint.refused, 2);
	ck_assert_int_eq(maint_set_mode(&fx.d.maint, 1, now_ns()), 0);
	ck_assert_int_eq(send_si(b, 4, 6, 1), 0);
	/* a firmware request (netfn 0x08) refuses nothing */
	ck_assert_int_eq(maint_set_mode(&fx.d.maint, 0, now_ns()), 0);
	ck_assert_int_eq(send_si(a, 5, 8, 1), 0);
	ck_assert_int_eq(send_si(a, 6, 6, 1), 0);
	ck_assert_uint_eq(fx.d.maint.refused, 2);
}
END_TEST

/* Maintenance mode is the daemon's: a node whose rules do not allow a BMC
 * reset (b, readonly) may read it but not set it (EPERM, nothing
 * changed: before, its mode 1 ended the EBUSY window a's Cold Reset
 * opened, mode 2 stopped the enables check for every node); a, allowed
 * the resets, may. An invalid mode is EINVAL first, as stock. */
START_TEST(test_maint_set_admin_only)
{
	struct client *a = open_file(&fx.na), *b = open_file(&fx.nb);
	int v = 1, got = -1;

	ck_assert_int_eq(send_si(a, 1, 6, 2), 0); /* Cold Reset: goes */
	ck_assert_int_eq(send_si(b, 2, 6, 1), -EBUSY);
	for (v = 0; v <= 2; v++)
		ck_assert_int_eq(kioctl(b, IPMICTL_SET_MAINTENANCE_MODE_CMD,
					&v),
				 -EPERM);
	v = 3;
	ck_assert_int_eq(kioctl(b, IPMICTL_SET_MAINTENANCE_MODE_CMD, &v),
			 -EINVAL);
	ck_assert_int_eq(kioctl(b, IPMICTL_GET_MAINTENANCE_MODE_CMD, &got), 0);
	ck_assert_int_eq(got, 0);
	ck_assert_msg(send_si(b, 3, 6, 1) == -EBUSY,
		      "a readonly node ended the window another's reset opened");
	ck_assert_uint_eq(fx.nb.cnt.denied, 3);
	v = 1;
	ck_assert_int_eq(kioctl(a, IPMICTL_SET_MAINTENANCE_MODE_CMD, &v), 0);
	ck_assert_int_eq(kioctl(b, IPMICTL_GET_MAINTENANCE_MODE_CMD, &got), 0);
	ck_assert_int_eq(got, 1);
	ck_assert_int_eq(send_si(b, 4, 6, 1), 0);
}
END_TEST

/* The wire keeps a netfn's low six bits (netfn << 2): 0x46 is app (06)
 * at the BMC, and is judged so by the stock checks and the rules. */
/* The refusal's log line: who (uid, pid, process name), what (the
 * command's name and number) and which rule; and a node's deny line. */
START_TEST(test_denied_log_line)
{
	struct client *c = client_new(&fx.nb, getpid(), 1000);
	struct access_why why = { .depth = 0, .netfn = 6, .cmd = 2 };
	char buf[256], want[256];

	ck_assert_ptr_nonnull(c);
	client_deny_msg(buf, sizeof(buf), c, ACCESS_DENIED, &why);
	snprintf(want, sizeof(want),
		 "node b: uid 1000 pid %ld (test_client): Cold Reset (netfn "
		 "0x06 cmd 0x02) denied (cc 0xd4) by access = readonly (no "
		 "allow line)",
		 (long)getpid());
	ck_assert_str_eq(buf, want);
	why.netfn = 0x30;
	why.cmd = 0x16;
	why.depth = 1;
	client_deny_msg(buf, sizeof(buf), c, ACCESS_TUNNEL, &why);
	ck_assert_msg(strstr(buf, "netfn 0x30 cmd 0x16 denied (cc 0xd4) by "
				  "tunnel not explicitly allowed (access = "
				  "readonly), inside Send Message") != NULL,
		      "%s", buf);
	cmdset_add(&fx.nb.conf.acc.deny, 0x0a, 0x47);
	why.netfn = 0x0a;
	why.cmd = 0x47;
	why.depth = 0;
	client_deny_msg(buf, sizeof(buf), c, ACCESS_DENIED, &why);
	ck_assert_msg(strstr(buf, "Clear SEL (netfn 0x0a cmd 0x47) denied "
				  "(cc 0xd4) by a deny line") != NULL,
		      "%s", buf);
	client_free(c);
}
END_TEST

/* Events nobody can take are dropped and counted (the metrics'
 * kcsmux_events_dropped_total): over the backlog with no subscriber, and
 * over a subscriber's event_backlog unread. */
START_TEST(test_events_dropped)
{
	struct client *c = open_file(&fx.na);
	struct ipmb_user_msg ev = event_msg((const uint8_t[]){ 1 }, 1);
	int on = 1, i;

	for (i = 0; i < 25; i++)
		fx.d.up->event(&fx.d, &ev);
	ck_assert_uint_eq(fx.d.events_dropped, 0);
	fx.d.up->event(&fx.d, &ev);
	ck_assert_uint_eq(fx.d.events_dropped, 1);
	ck_assert_int_eq(kioctl(c, IPMICTL_SET_GETS_EVENTS_CMD, &on), 0);
	ck_assert_uint_eq(c->rq_events, 25);
	fx.d.up->event(&fx.d, &ev);
	ck_assert_uint_eq(fx.d.events_dropped, 2);
}
END_TEST

START_TEST(test_netfn_high_bits)
{
	struct client *a = open_file(&fx.na), *b = open_file(&fx.nb);
	struct rx x;

	/* Get Message and Send Message are the daemon's, even as 0x46 */
	ck_assert_int_eq(send_si(a, 1, 0x46, 0x33), -EINVAL);
	ck_assert_int_eq(send_si(a, 2, 0x46, 0x34), -EINVAL);
	ck_assert_uint_eq(fx.fb->nsubs, 0);
	/* Cold Reset as 0x46 on a readonly node: refused like 06:02 */
	ck_assert_int_eq(send_si(b, 3, 0x46, 0x02), 0);
	ck_assert_uint_eq(fx.fb->nsubs, 0);
	ck_assert_uint_eq(fx.nb.cnt.denied, 1);
	ck_assert_int_eq(recv_msg(b, &x), 0);
	ck_assert_uint_eq(x.data[0], 0xd4);
	/* Get Device ID as 0x46: allowed, and 06:01 on the wire */
	ck_assert_int_eq(send_si(b, 4, 0x46, 0x01), 0);
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	ck_assert_uint_eq(fx.fb->subs[0].req[0], 0x18);
	ck_assert_uint_eq(fx.fb->subs[0].req[1], 0x01);
}
END_TEST

START_TEST(test_busy)
{
	struct client *c = open_file(&fx.na);

	/* max_outstanding = 3: answers not read yet count too */
	ck_assert_int_eq(send_si(c, 1, 6, 1), 0);
	ck_assert_int_eq(send_si(c, 2, 6, 1), 0);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_int_eq(send_si(c, 3, 6, 1), 0);
	ck_assert_int_eq(send_si(c, 4, 6, 1), -EBUSY);
	ck_assert_uint_eq(fx.na.cnt.busy, 1);
}
END_TEST

START_TEST(test_event_backlog)
{
	struct client *c = open_file(&fx.na), *r2 = open_file(&fx.nb);
	struct ipmb_user_msg ev = event_msg((const uint8_t[]){ 0xab, 0xcd }, 2);
	int on = 1;
	struct rx x;

	/* nobody listens: kept for the first subscriber */
	fx.d.up->event(&fx.d, &ev);
	ck_assert_uint_eq(fx.d.fe->event_backlog_len, 1);
	ck_assert_uint_eq(c->rq_len, 0);
	/* a node without "events" may not subscribe */
	ck_assert_int_eq(kioctl(r2, IPMICTL_SET_GETS_EVENTS_CMD, &on), -EPERM);
	ck_assert_int_eq(kioctl(c, IPMICTL_SET_GETS_EVENTS_CMD, &on), 0);
	ck_assert_uint_eq(fx.d.fe->event_backlog_len, 0);
	ck_assert_int_eq(recv_msg(c, &x), 0);
	ck_assert_int_eq(x.rv.recv_type, IPMI_ASYNC_EVENT_RECV_TYPE);
	ck_assert_uint_eq(x.rv.msg.data_len, 2);
	ck_assert_uint_eq(x.data[1], 0xcd);
	ck_assert_int_eq(recv_msg(r2, &x), -EAGAIN);
}
END_TEST

/*
 * Each events node keeps its own backlog: a subscriber of one node takes
 * its node's events only (before, the first subscriber of any node took
 * them all: an access = none node's client subscribing first got the 3
 * queued events and the monitoring node's subscriber 0). Each node's is
 * bounded by event_backlog, and a node's backlog goes with it.
 */
START_TEST(test_event_backlog_per_node)
{
	struct client *a = open_file(&fx.na), *b = open_file(&fx.nb);
	int on = 1, i;
	struct rx x;

	fx.nb.conf.events = true;
	for (i = 0; i < 3; i++) {
		struct ipmb_user_msg ev =
			event_msg((const uint8_t[]){ (uint8_t)i }, 1);

		fx.d.up->event(&fx.d, &ev);
	}
	ck_assert_uint_eq(fx.d.fe->event_backlog_len, 6);
	ck_assert_int_eq(kioctl(b, IPMICTL_SET_GETS_EVENTS_CMD, &on), 0);
	ck_assert_msg(b->rq_len == 3, "b's first subscriber took %u events",
		      b->rq_len);
	ck_assert_int_eq(kioctl(a, IPMICTL_SET_GETS_EVENTS_CMD, &on), 0);
	ck_assert_msg(a->rq_len == 3,
		      "a's subscriber got %u of the 3 queued events",
		      a->rq_len);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(recv_msg(a, &x), 0);
		ck_assert_uint_eq(x.data[0], i);
	}
	ck_assert_uint_eq(fx.d.fe->event_backlog_len, 0);
	/* a node with no subscriber keeps at most event_backlog (25) */
	on = 0;
	ck_assert_int_eq(kioctl(a, IPMICTL_SET_GETS_EVENTS_CMD, &on), 0);
	ck_assert_int_eq(kioctl(b, IPMICTL_SET_GETS_EVENTS_CMD, &on), 0);
	for (i = 0; i < 30; i++) {
		struct ipmb_user_msg ev = event_msg((const uint8_t[]){ 9 }, 1);

		fx.d.up->event(&fx.d, &ev);
	}
	ck_assert_uint_eq(fx.d.fe->event_backlog_len, 50);
	client_node_gone(&fx.nb);
	ck_assert_uint_eq(fx.d.fe->event_backlog_len, 25);
}
END_TEST

/* A node whose rules may not read the SEL (events_quiet, the default
 * there): a client may subscribe (ipmitool's open interface does, and
 * gives up when refused) but gets no event, and the node keeps no backlog;
 * before, an access = none client read every BMC event. */
START_TEST(test_events_quiet)
{
	struct client *b = open_file(&fx.nb);
	struct ipmb_user_msg ev = event_msg((const uint8_t[]){ 7 }, 1);
	int on = 1;

	fx.nb.conf.events = true;
	fx.nb.conf.events_quiet = true;
	fx.d.up->event(&fx.d, &ev); /* before it subscribed: a's backlog */
	ck_assert_uint_eq(fx.d.fe->event_backlog_len, 1);
	ck_assert_int_eq(kioctl(b, IPMICTL_SET_GETS_EVENTS_CMD, &on), 0);
	fx.d.up->event(&fx.d, &ev);
	ck_assert_msg(b->rq_len == 0, "a quiet node's subscriber got %u events",
		      b->rq_len);
	ck_assert_uint_eq(fx.d.fe->event_backlog_len, 2); /* a's only */
}
END_TEST

START_TEST(test_bridged_answer)
{
	struct client *c = open_file(&fx.na);
	struct ipmi_ipmb_addr ipmb = ipmb82;
	/* Get Message: 0x82 answers seq 0 (cc 0, data 20 01 00) */
	static const uint8_t got[] = {
		0x00, 0x1e, 0xc2, 0x82, 0x00, 0x01,
		0x00, 0x20, 0x01, 0x00, 0x5c,
	};
	struct rx x;

	ck_assert_int_eq(send_to(c, &ipmb, sizeof(ipmb), 55, 6, 1), 0);
	ck_assert_uint_eq(c->outstanding, 1);
	ck_assert_uint_eq(fx.fb->subs[0].req[1], 0x34); /* Send Message */
	fake_answer(fx.fb, NULL, 0);
	fake_answer(fx.fb, (const uint8_t[]){ 0x01 }, 1); /* flags */
	ck_assert_uint_eq(fake_pending(fx.fb)->req[1], IPMI_GET_MSG_CMD);
	fake_answer(fx.fb, got, sizeof(got));
	ck_assert_uint_eq(c->outstanding, 0);
	ck_assert_uint_eq(c->rq_len, 1);
	fake_complete(fx.fb, fake_pending(fx.fb), 0,
		      (const uint8_t[]){ 0x1c, 0x33, 0x80 }, 3);
	ck_assert_int_eq(recv_msg(c, &x), 0);
	ck_assert_int_eq(x.rv.recv_type, IPMI_RESPONSE_RECV_TYPE);
	ck_assert_int_eq(x.rv.msgid, 55);
	ck_assert_uint_eq(x.rv.msg.netfn, 7);
	ck_assert_uint_eq(x.rv.msg.cmd, 1);
	ck_assert_uint_eq(x.rv.addr_len, sizeof(ipmb));
	ck_assert_uint_eq(((struct ipmi_ipmb_addr *)x.addr)->slave_addr, 0x82);
	ck_assert_uint_eq(x.rv.msg.data_len, 4);
	ck_assert_uint_eq(x.data[1], 0x20);
}
END_TEST

/*
 * One file's share of its node's IPMB sequence slots: a file of node a
 * (two nodes: 32 slots each) that sends bridged requests it never lets
 * finish gets EAGAIN at half of them, and another user's file on the same
 * node still gets its bridged request out (before, the first file held
 * all 32 and the other got EAGAIN).
 */
START_TEST(test_bridged_file_share)
{
	struct client *hog = client_new(&fx.na, 101, 1000);
	struct client *other = client_new(&fx.na, 102, 1001);
	struct ipmi_ipmb_addr ipmb = ipmb82;
	int i, rv = 0;

	ck_assert_ptr_nonnull(hog);
	ck_assert_ptr_nonnull(other);
	LIST_INSERT_HEAD(&fx.na.clients, hog, link);
	LIST_INSERT_HEAD(&fx.na.clients, other, link);
	fx.na.nclients += 2;
	hog->ph = other->ph = (struct fuse_pollhandle *)&ph_dummy;
	fx.na.conf.max_outstanding = 100; /* the default */
	for (i = 0; i < 64 && rv == 0; i++)
		rv = send_to(hog, &ipmb, sizeof(ipmb), i, 6, 1);
	/* the hog is stopped at the node's share (32) at the latest */
	ck_assert_int_eq(rv, -EAGAIN);
	ck_assert_int_le(i - 1, 32);
	ck_assert_msg(send_to(other, &ipmb, sizeof(ipmb), 1000, 6, 1) == 0,
		      "one file holds node a's whole share of the IPMB "
		      "sequence slots (%d); another uid's file on the node "
		      "gets no bridged request at all",
		      i - 1);
}
END_TEST

/* The inner command of a Send Message the daemon made (req: netfn,
 * 34, channel, rsSA, netfn/LUN, chk, rqSA, seq/LUN, cmd). */
static uint8_t inner_cmd(const struct fake_sub *s)
{
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->req[1], 0x34);
	return s->req[8];
}

/*
 * A Send Message is a transaction of its node: its rate, weight, CPU
 * budget and queue; only the fetches it triggers are the daemon's. Node b
 * limited to one request per 1000 s (so the test's own time never hands it
 * another token) queues 8 bridged requests: one Send Message reaches the
 * BMC, with its Get Message Flags; the other 7 wait for b's tokens, while
 * node a's system-interface request and a's own bridged request go at
 * once. Before, all 8 went out back to back as the daemon's own work,
 * ahead of every node (a's first request ran as transaction #33).
 */
START_TEST(test_bridged_node_rate)
{
	struct client *b = open_file(&fx.nb), *a = open_file(&fx.na);
	struct ipmi_ipmb_addr ipmb = ipmb82;
	unsigned int i, b_sends = 0;

	fx.nb.conf.pol.rate_milli = 1;
	fx.nb.conf.pol.burst = 1;
	sched_flow_update(&fx.d.sched, &fx.nb.flow, &fx.nb.conf.pol, now_ns());
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(send_to(b, &ipmb, sizeof(ipmb), i, 6, 1), 0);
	ck_assert_uint_eq(fake_npending(fx.fb), 1);
	ck_assert_uint_eq(inner_cmd(fake_pending(fx.fb)), 0x01);
	fake_answer(fx.fb, NULL, 0); /* Send Message: cc 0 */
	ck_assert_uint_eq(fake_pending(fx.fb)->req[1], 0x31); /* the fetch */
	fake_answer(fx.fb, (const uint8_t[]){ 0x00 }, 1);     /* no flags */
	for (i = 0; i < fx.fb->nsubs; i++)
		b_sends += fx.fb->subs[i].req[1] == 0x34;
	ck_assert_msg(b_sends == 1 && fake_npending(fx.fb) == 0,
		      "a node limited to 1 request per 1000 s put %u Send "
		      "Messages on the BMC (%u pending)",
		      b_sends, fake_npending(fx.fb));
	/* a's request is not queued behind b's */
	ck_assert_int_eq(send_si(a, 100, 6, 1), 0);
	ck_assert_uint_eq(fake_npending(fx.fb), 1);
	ck_assert_uint_eq(fake_pending(fx.fb)->req[1], 0x01);
	fake_answer(fx.fb, devid, sizeof(devid));
	ck_assert_int_eq(send_to(a, &ipmb, sizeof(ipmb), 101, 6, 4), 0);
	ck_assert_uint_eq(fake_npending(fx.fb), 1);
	ck_assert_msg(inner_cmd(fake_pending(fx.fb)) == 0x04,
		      "a's bridged request waited behind b's");
	ck_assert_uint_eq(fx.nb.flow.dispatched, 1);
	ck_assert_uint_eq(fx.na.flow.dispatched, 2);
}
END_TEST

/* A reply to an incoming command is a Send Message of its node too: a
 * (the node whose rules allow responses) at one request per 1000 s sends
 * 3 replies to IPMB 0x82, one reaches the BMC (before, all 3 went as the
 * daemon's own, ahead of every node). */
START_TEST(test_reply_node_rate)
{
	struct client *c = open_file(&fx.na);
	struct ipmi_ipmb_addr ipmb = ipmb82;
	unsigned int i;

	fx.na.conf.pol.rate_milli = 1;
	fx.na.conf.pol.burst = 1;
	sched_flow_update(&fx.d.sched, &fx.na.flow, &fx.na.conf.pol, now_ns());
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(send_to(c, &ipmb, sizeof(ipmb), i, 0x07, 0x01),
				 0);
	ck_assert_uint_eq(fake_npending(fx.fb), 1);
	ck_assert_uint_eq(fake_pending(fx.fb)->req[1], 0x34);
	ck_assert(!fake_pending(fx.fb)->bridged);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_msg(fake_npending(fx.fb) == 0 && fx.fb->nsubs == 1,
		      "a node limited to 1 request per 1000 s sent %u replies",
		      fx.fb->nsubs);
	ck_assert_uint_eq(fx.na.flow.dispatched, 1);
	ck_assert_uint_eq(c->rq_len, 1); /* the first one's send result */
}
END_TEST

/*
 * event_backlog bounds a subscriber's unread *events*
 * (kcsmux.conf(5), reliability.md): a client with 25 answers unread (it
 * may have up to max_outstanding = 100) and no event unread still gets the
 * next event, as stock ipmi_devintf queues it (before, unread answers
 * counted and the event was lost).
 */
START_TEST(test_event_behind_answers)
{
	struct client *c = open_file(&fx.na);
	struct ipmb_user_msg ev = event_msg((const uint8_t[]){ 0xab, 0xcd }, 2);
	int on = 1, i;

	fx.na.conf.max_outstanding = 100; /* the default */
	ck_assert_int_eq(kioctl(c, IPMICTL_SET_GETS_EVENTS_CMD, &on), 0);
	for (i = 0; i < 25; i++) {
		ck_assert_int_eq(send_si(c, i, 6, 1), 0);
		fake_answer(fx.fb, devid, sizeof(devid));
	}
	ck_assert_uint_eq(c->rq_len, 25); /* answers, no event */
	fx.d.up->event(&fx.d, &ev);
	ck_assert_msg(c->rq_len == 26,
		      "an event for a subscriber with 25 unread answers and "
		      "no unread event was dropped");
}
END_TEST

/*
 * Closing a file drops its Send Messages not yet sent with its sequence
 * slots (bridge_owner_gone): a client that opens, sends its share of
 * bridged requests and closes, in a loop, leaves at most one share queued
 * (before, 639 after 20 rounds, all still going to the BMC ahead of every
 * node).
 */
START_TEST(test_bridged_close_loop)
{
	struct ipmi_ipmb_addr ipmb = ipmb82;
	unsigned int queued = 0;
	struct xact *x;
	int round, i;

	fx.na.conf.max_outstanding = 100;
	for (round = 0; round < 20; round++) {
		struct client *c = open_file(&fx.na);

		/* as many as it may (EAGAIN past its share) */
		for (i = 0; i < 32; i++)
			if (send_to(c, &ipmb, sizeof(ipmb), i, 6, 1) < 0)
				break;
		ck_assert_int_gt(i, 0);
		close_file(c);
	}
	TAILQ_FOREACH (x, &fx.d.br.pending, qlink)
		queued++;
	ck_assert_msg(queued <= 32,
		      "%u Send Messages of closed files still queued for the "
		      "BMC after 20 open/send/close rounds",
		      queued);
}
END_TEST

/* SEND_COMMAND_SETTIME of Get Device ID (msgid 1) to IPMB 0x90 on
 * channel 0, an address nobody answers, with these retries and time. */
static int settime_silent(struct client *c, int32_t retries, uint32_t ms)
{
	struct ipmi_ipmb_addr ipmb = ipmb82;
	struct ipmi_req_settime rq = {
		.req = { .addr = (unsigned char *)&ipmb,
			 .addr_len = sizeof(ipmb),
			 .msgid = 1,
			 .msg = { .netfn = 6, .cmd = 1 } },
		.retries = retries,
		.retry_time_ms = ms,
	};

	ipmb.slave_addr = 0x90;
	return kioctl(c, IPMICTL_SEND_COMMAND_SETTIME, &rq);
}

/*
 * On a backend that bridges itself (ipmidev: the stock driver
 * underneath, depth 1), an IPMB request's SEND_COMMAND_SETTIME retries and
 * retry time are clamped as on kcsraw (reliability.md: 10 retries,
 * 1000-60000 ms) before they reach the kernel: unclamped, one request to an
 * address that never answers held the daemon's only slot and stopped every
 * node.
 */
START_TEST(test_settime_clamped_ipmidev)
{
	struct client *c = open_file(&fx.na);
	struct fake_sub *s;

	fx.fb->be.bridges = true; /* as backend_ipmidev_open() */
	ck_assert_int_eq(settime_silent(c, 0x7fffffff, 0xffffffffu), 0);
	s = fake_pending(fx.fb);
	ck_assert_ptr_nonnull(s);
	ck_assert(s->bridged);
	ck_assert_msg(s->retries <= 10 && s->retry_ms <= 60000,
		      "an IPMB request reached the stock driver with %d "
		      "retries of %u ms each",
		      (int)s->retries, (unsigned)s->retry_ms);
}
END_TEST

/*
 * On ipmidev a bridged request is one backend transaction the kernel holds
 * until the far end answers or its retries run out (up to 11 x 60 s): it
 * must not take the slot system-interface requests need. A readonly
 * node's SETTIME to a silent IPMB address stays at the kernel while
 * another node's Get Device ID is submitted and answered (before: the
 * second waited for the first, every node stalled).
 */
START_TEST(test_bridged_takes_no_slot_ipmidev)
{
	struct client *ca = open_file(&fx.nb), *cb = open_file(&fx.na);
	struct fake_sub *s;
	struct rx x;

	fx.fb->be.bridges = true; /* as backend_ipmidev_open(), depth 1 */
	ck_assert_int_eq(settime_silent(ca, 10, 60000), 0);
	ck_assert_uint_eq(fake_npending(fx.fb), 1);
	ck_assert(fake_pending(fx.fb)->bridged);
	ck_assert_int_eq(send_si(cb, 2, 6, 1), 0);
	ck_assert_msg(fake_npending(fx.fb) == 2,
		      "a system-interface request waited behind a bridged one "
		      "the kernel holds (%u submitted)",
		      fake_npending(fx.fb));
	s = &fx.fb->subs[fx.fb->nsubs - 1];
	ck_assert(!s->bridged);
	fake_complete(fx.fb, s, 0, (const uint8_t[]){ 0x1c, 0x01, 0x00, 0x20 },
		      4);
	ck_assert_int_eq(recv_msg(cb, &x), 0);
	ck_assert_int_eq(x.rv.msgid, 2);
	/* the bridged one still holds no slot; a third goes on at once */
	ck_assert_int_eq(send_si(cb, 3, 6, 1), 0);
	ck_assert_uint_eq(fake_npending(fx.fb), 2);
	ck_assert_uint_eq(fx.fb->be.bridged, 1);
	/* its answer frees what it held */
	fake_complete(fx.fb, fake_pending(fx.fb), 0,
		      (const uint8_t[]){ 0x1c, 0x01, 0xff }, 3);
	ck_assert_uint_eq(fx.fb->be.bridged, 0);
}
END_TEST

/*
 * On a backend that bridges (ipmidev, kcsraw's SMI relay) ipmi_msghandler
 * holds one of its 64 sequence slots per bridged request: the per-node and
 * per-file shares apply there too. A readonly file's SETTIME requests of
 * 10 x 60000 ms to a silent address stop at its share (64 / 2 nodes / 2 =
 * 16, EAGAIN as for a full table), reach the kernel with the non-admin
 * ceiling (4 x 5000 ms), a second file gets the node's other 16, a third
 * none; the admin node's request still goes, with its own timing. Before:
 * 80 of 80 accepted, 10 x 60000 ms each.
 */
START_TEST(test_bridged_share_kernel)
{
	struct client *r1 = open_file(&fx.nb), *r2 = open_file(&fx.nb);
	struct client *r3 = open_file(&fx.nb), *a = open_file(&fx.na);
	unsigned int got1 = 0, got2 = 0, got3 = 0, i;
	struct fake_sub *s;

	fx.fb->be.bridges = true; /* as backend_ipmidev_open() */
	for (i = 0; i < 80; i++)
		got1 += settime_silent(r1, 10, 60000) == 0;
	ck_assert_msg(got1 == 16,
		      "a readonly file had %u of 80 bridged requests at the "
		      "kernel",
		      got1);
	ck_assert_int_eq(settime_silent(r1, 10, 60000), -EAGAIN);
	for (i = 0; i < fx.fb->nsubs; i++)
		ck_assert_msg(fx.fb->subs[i].retries <= 4 &&
				      fx.fb->subs[i].retry_ms <= 5000,
			      "a readonly node's request reached the kernel "
			      "with %d x %u ms",
			      (int)fx.fb->subs[i].retries,
			      (unsigned)fx.fb->subs[i].retry_ms);
	for (i = 0; i < 80; i++)
		got2 += settime_silent(r2, 10, 60000) == 0;
	for (i = 0; i < 80; i++)
		got3 += settime_silent(r3, 10, 60000) == 0;
	ck_assert_uint_eq(got2, 16);
	ck_assert_msg(got3 == 0, "node b past its share of 32: %u more", got3);
	ck_assert_int_eq(settime_silent(a, 10, 60000), 0);
	s = &fx.fb->subs[fx.fb->nsubs - 1];
	ck_assert(s->bridged);
	ck_assert_int_eq(s->retries, 10);
	ck_assert_uint_eq(s->retry_ms, 60000);
	ck_assert_uint_eq(fake_npending(fx.fb), 33);
	/* an answer frees its slot of the share */
	fake_complete(fx.fb, fake_pending(fx.fb), 0,
		      (const uint8_t[]){ 0x1c, 0x01, 0xff }, 3);
	ck_assert_int_eq(settime_silent(r3, 10, 60000), 0);
}
END_TEST

/*
 * kcsraw in SMI mode without the stock node (ipmi_devintf not loaded): an
 * IPMB request has no path and fails with EINVAL at SEND, as stock for a
 * channel that cannot bridge; nothing reaches the backend, and a
 * system-interface request still does.
 */
START_TEST(test_smi_no_bridge)
{
	struct client *c = open_file(&fx.na);

	fx.fb->be.bridges = true; /* as backend_kcsraw_open() in SMI mode */
	fx.fb->be.no_bridge = true;
	ck_assert_int_eq(settime_silent(c, 1, 1000), -EINVAL);
	ck_assert_uint_eq(fake_npending(fx.fb), 0);
	ck_assert_int_eq(send_si(c, 2, 6, 1), 0);
	ck_assert_uint_eq(fake_npending(fx.fb), 1);
	ck_assert(!fake_pending(fx.fb)->bridged);
}
END_TEST

/*
 * The LUN a request addresses (the system interface's, an IPMB target's)
 * is LUN 0 unless the node's luns key opens another: a Get Device ID the
 * rules allow, sent to LUN 2 (SMS) or 1/3 (OEM), is answered cc d4 by the
 * daemon and reaches nothing (before: it went to the BMC's LUN as
 * allowed). With luns = 0,2 LUN 2 goes through, LUN 1 still not.
 */
START_TEST(test_lun_rules)
{
	struct client *c = open_file(&fx.nb);
	struct ipmi_system_interface_addr si2 = si;
	struct ipmi_ipmb_addr ipmb = {
		.addr_type = IPMI_IPMB_ADDR_TYPE,
		.channel = 0,
		.slave_addr = 0x72,
		.lun = 1,
	};
	struct rx x;

	for (unsigned char lun = 1; lun < 4; lun++) {
		si2.lun = lun;
		ck_assert_int_eq(send_to(c, &si2, sizeof(si2), lun, 6, 1), 0);
		ck_assert_msg(fake_npending(fx.fb) == 0,
			      "Get Device ID to LUN %u reached the BMC", lun);
		ck_assert_int_eq(recv_msg(c, &x), 0);
		ck_assert_int_eq(x.rv.msgid, lun);
		ck_assert_uint_eq(x.rv.msg.data_len, 1);
		ck_assert_uint_eq(x.data[0], 0xd4);
	}
	ck_assert_int_eq(send_to(c, &ipmb, sizeof(ipmb), 9, 6, 1), 0);
	ck_assert_uint_eq(fake_npending(fx.fb), 0);
	ck_assert_int_eq(recv_msg(c, &x), 0);
	ck_assert_uint_eq(x.data[0], 0xd4);
	/* LUN 0 as ever */
	ck_assert_int_eq(send_si(c, 10, 6, 1), 0);
	ck_assert_uint_eq(fake_npending(fx.fb), 1);
	ck_assert_uint_eq(fake_pending(fx.fb)->req[0], 6 << 2);
	fake_answer(fx.fb, devid, sizeof(devid));
	ck_assert_int_eq(recv_msg(c, &x), 0);
	/* luns = 0,2 */
	fx.nb.conf.luns = 1u << 2;
	si2.lun = 2;
	ck_assert_int_eq(send_to(c, &si2, sizeof(si2), 11, 6, 1), 0);
	ck_assert_uint_eq(fake_npending(fx.fb), 1);
	ck_assert_uint_eq(fake_pending(fx.fb)->req[0], 6 << 2 | 2);
	fake_answer(fx.fb, devid, sizeof(devid));
	si2.lun = 1;
	ck_assert_int_eq(send_to(c, &si2, sizeof(si2), 12, 6, 1), 0);
	ck_assert_uint_eq(fake_npending(fx.fb), 0);
}
END_TEST

/*
 * What reaches the BMC in a Send Message drops the SDR cache, whichever
 * backend bridges: on kcsraw the daemon's wrap of a client's IPMB request
 * (answered cc 0), on ipmidev the kernel's, whose transaction carries the
 * inner command (an IPMB Reserve SDR Repository there must not become the
 * owner's reservation of the BMC's repository). Before, neither reached
 * the cache's observer as a Send Message: no invalidation.
 */
START_TEST(test_bridged_seen_by_cache)
{
	struct client *c = open_file(&fx.na);
	struct ipmi_ipmb_addr ipmb = ipmb82;

	fx.d.sdrc = sdrc_new(1000);
	ck_assert_ptr_nonnull(fx.d.sdrc);
	/* kcsraw: the daemon's Send Message of an Add SDR to 0x82 */
	ck_assert_int_eq(send_to(c, &ipmb, sizeof(ipmb), 1, 0x0a, 0x24), 0);
	ck_assert_uint_eq(fake_pending(fx.fb)->req[1], 0x34);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_msg(sdrc_stats(fx.d.sdrc)->invalidations == 1,
		      "a bridged Send Message left the SDR cache as it was");
	/* ipmidev: the kernel bridges; the transaction is 0a:22 */
	while (fake_pending(fx.fb))
		fake_complete(fx.fb, fake_pending(fx.fb), -ECANCELED, NULL, 0);
	fx.fb->be.bridges = true;
	ck_assert_int_eq(send_to(c, &ipmb, sizeof(ipmb), 2, 0x0a, 0x27), 0);
	ck_assert(fake_pending(fx.fb)->bridged);
	ck_assert_uint_eq(fake_pending(fx.fb)->req[1], 0x27);
	fake_complete(fx.fb, fake_pending(fx.fb), 0,
		      (const uint8_t[]){ 0x2c, 0x27, 0x00, 0x01 }, 4);
	ck_assert_msg(sdrc_stats(fx.d.sdrc)->invalidations == 2,
		      "a request the stock driver bridged was not seen as the "
		      "Send Message that reached the BMC");
	/* a carried read changes nothing: kcsraw, then ipmidev */
	fx.fb->be.bridges = false;
	ck_assert_int_eq(send_to(c, &ipmb, sizeof(ipmb), 3, 0x04, 0x2d), 0);
	ck_assert_uint_eq(fake_pending(fx.fb)->req[1], 0x34);
	fake_answer(fx.fb, NULL, 0);
	while (fake_pending(fx.fb))
		fake_complete(fx.fb, fake_pending(fx.fb), -ECANCELED, NULL, 0);
	fx.fb->be.bridges = true;
	c = open_file(&fx.na); /* the first still waits for 3's answer */
	ck_assert_int_eq(send_to(c, &ipmb, sizeof(ipmb), 4, 0x06, 0x01), 0);
	ck_assert(fake_pending(fx.fb)->bridged);
	fake_complete(fx.fb, fake_pending(fx.fb), 0,
		      (const uint8_t[]){ 0x1c, 0x01, 0x00, 0x20 }, 4);
	ck_assert_msg(sdrc_stats(fx.d.sdrc)->invalidations == 2,
		      "a bridged read dropped the SDR cache (%llu drops)",
		      (unsigned long long)sdrc_stats(fx.d.sdrc)->invalidations);
}
END_TEST

/*
 * Incoming IPMB commands for a registered file that never reads are
 * bounded: it keeps at most max_outstanding (3 on node a) unread
 * messages; the core answers the rest cc 0xC1 as for an unregistered
 * command (up->command false). Before, every one was queued.
 */
START_TEST(test_commands_bounded)
{
	struct client *c = open_file(&fx.na);
	struct ipmi_cmdspec cs = { .netfn = 0x30, .cmd = 0x01 };
	struct ipmb_user_msg u = {
		.recv_type = IPMI_CMD_RECV_TYPE,
		.addr = { .addr_type = IPMI_IPMB_ADDR_TYPE,
			  .channel = 0,
			  .slave_addr = 0x82 },
		.netfn = 0x30,
		.cmd = 0x01,
	};
	unsigned int taken = 0;

	ck_assert_int_eq(kioctl(c, IPMICTL_REGISTER_FOR_CMD, &cs), 0);
	for (int i = 0; i < 20; i++)
		taken += fx.d.up->command(&fx.d, &u, 0x30, 0x01, 0);
	ck_assert_msg(taken == 3 && c->rq_len == 3,
		      "a file that never reads took %u commands (%u unread)",
		      taken, c->rq_len);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The randomized run: an unprivileged node against the fake BMC */

static struct {
	unsigned int seed, seed0; /* the generator's state, its start */
	uint64_t answered;	  /* requests the fake BMC answered */
	uint64_t b_slots;  /* b's that held the interface (not at a kernel) */
	uint64_t at_bmc_b; /* of node b's, judged against b's rules */
	uint64_t events;   /* event records the BMC handed out */
	uint64_t a_got;	   /* ... that a's subscriber read */
	uint64_t a_sent_at;
	bool a_waiting;
	uint64_t a_wait_max, a_served;
} rr;

static unsigned int rr_next(void)
{
	unsigned int x = rr.seed;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return rr.seed = x;
}

#define RR_B_SA 0x22 /* node b's IPMB address (SET_MY_ADDRESS) */

/* Node b's rules, read independently of access.c's walk: the pair (a
 * response netfn as its request's) in b's plain set, or a group extension
 * command in its (body, cmd) set, and none of what readonly never has
 * (Send Message, the BMC's message buffers). DATA: the request's data,
 * LEN bytes (the body byte first). */
static bool b_allows(uint8_t netfn, uint8_t cmd, const uint8_t *data,
		     size_t len)
{
	netfn &= 0x3e;
	if (netfn == 0x06 && (cmd == 0x30 || cmd == 0x31 || cmd == 0x33 ||
			      cmd == 0x34 || cmd == 0x35))
		return false;
	if (netfn == 0x2c && len >= 1 &&
	    cmdset_has_gx(&fx.nb.conf.acc.eff, data[0], cmd))
		return true;
	return cmdset_has(&fx.nb.conf.acc.eff, netfn, cmd);
}

/* What reached the fake BMC, judged: b's requests against b's rules
 * (the inner request of a Send Message the daemon made for b, as the
 * BMC reads it on channel 0), a's wait. */
static void rr_judge(const struct fake_sub *s)
{
	bool send =
		!s->bridged && (s->req[0] >> 2) == 0x06 && s->req[1] == 0x34;
	const uint8_t *f = s->req + 3 + (s->len > 3 && s->req[3] == 0x00);
	struct xact *x;

	TAILQ_FOREACH (x, &fx.d.running, qlink)
		if (x->cookie == s->cookie)
			break;
	ck_assert_ptr_nonnull(x);
	/* b's Send Messages carry b's own requester address, whoever the
	 * daemon counts them to */
	if (send && s->len > 6 && f[3] == RR_B_SA)
		ck_assert_msg(x->node == &fx.nb,
			      "seed %u: b's Send Message ran as %s's", rr.seed0,
			      x->node ? x->node->conf.name : "the daemon");
	if (x->node == &fx.na && x->owner && rr.a_waiting &&
	    s->req[1] == 0x01 && !s->bridged) {
		uint64_t w = rr.b_slots - rr.a_sent_at;

		rr.a_wait_max = w > rr.a_wait_max ? w : rr.a_wait_max;
		rr.a_waiting = false;
		rr.a_served++;
	}
	if (x->node != &fx.nb)
		return;
	rr.at_bmc_b++;
	rr.b_slots += !s->bridged;
	if (s->bridged) {
		ck_assert_msg(b_allows(s->req[0] >> 2, s->req[1], s->req + 2,
				       s->len - 2),
			      "seed %u: b's bridged %02x:%02x reached the BMC",
			      rr.seed0, s->req[0] >> 2, s->req[1]);
		return;
	}
	if (send) {
		ck_assert_uint_ge(s->len, 9);
		ck_assert_msg(b_allows(f[1] >> 2, f[5], f + 6,
				       s->len - (size_t)(f + 6 - s->req)),
			      "seed %u: %02x:%02x in b's Send Message to %02x "
			      "reached the BMC",
			      rr.seed0, f[1] >> 2, f[5], f[0]);
		return;
	}
	ck_assert_msg(b_allows(s->req[0] >> 2, s->req[1], s->req + 2,
			       s->len - 2),
		      "seed %u: b's %02x:%02x reached the BMC", rr.seed0,
		      s->req[0] >> 2, s->req[1]);
}

/* The fake BMC answers the first request waiting: flags (sometimes an
 * event), an event record, an empty receive queue, a bridged answer,
 * else cc 0. */
static void rr_bmc(void)
{
	struct fake_sub *s = fake_pending(fx.fb);
	uint8_t ev[16], netfn;

	if (!s)
		return;
	rr_judge(s);
	rr.answered++;
	netfn = s->req[0] >> 2;
	if (s->bridged || netfn != 0x06) {
		fake_answer(fx.fb, NULL, 0);
		return;
	}
	switch (s->req[1]) {
	case 0x31: /* Get Message Flags */
		fake_answer(fx.fb, (const uint8_t[]){ rr_next() % 4 ? 0 : 2 },
			    1);
		break;
	case 0x35: /* Read Event Message Buffer */
		for (unsigned int i = 0; i < sizeof(ev); i++)
			ev[i] = (uint8_t)rr_next();
		rr.events++;
		fake_answer(fx.fb, ev, sizeof(ev));
		break;
	case 0x33: /* Get Message: the queue is empty */
		fake_complete(fx.fb, s, 0,
			      (const uint8_t[]){ 0x1c, 0x33, 0x80 }, 3);
		break;
	default:
		fake_answer(fx.fb, NULL, 0);
	}
}

/* The fake backend keeps FAKE_MAX_SUBS: drop the answered ones. */
static void rr_compact(void)
{
	unsigned int i, k = 0;

	for (i = 0; i < fx.fb->nsubs; i++)
		if (!fx.fb->subs[i].done)
			fx.fb->subs[k++] = fx.fb->subs[i];
	fx.fb->nsubs = k;
}

/* a reads what it has: events counted, its answer ends its wait. */
static void rr_a_reads(struct client *a)
{
	struct rx x;

	while (recv_msg(a, &x) == 0)
		rr.a_got += x.rv.recv_type == IPMI_ASYNC_EVENT_RECV_TYPE;
}

/* One of b's hostile requests: IPMB (any address, channel 0-3, Send
 * Message nested with any inner command, SETTIME with huge retries), the
 * maintenance mode, events on and off, a system-interface request of any
 * command. 0 or -errno. */
static int rr_b_request(struct client *b, unsigned int *maint)
{
	static const uint8_t netfns[] = { 0x00, 0x04, 0x06, 0x07, 0x0a,
					  0x0c, 0x2c, 0x30, 0x3e };
	static const uint8_t sas[] = { 0x20, 0x82, 0x90, 0x00, 0x72 };
	struct ipmi_ipmb_addr ipmb = {
		.addr_type = IPMI_IPMB_ADDR_TYPE,
		.channel = (short)(rr_next() % 8 ? 0 : rr_next() % 4),
		.slave_addr = sas[rr_next() % sizeof(sas)],
	};
	uint8_t data[24];
	struct ipmi_req rq = {
		.addr = (unsigned char *)&ipmb,
		.addr_len = sizeof(ipmb),
		.msgid = rr_next(),
		.msg = { .netfn = netfns[rr_next() % sizeof(netfns)],
			 .cmd = (uint8_t)rr_next(),
			 .data = data },
	};
	struct ipmi_req_settime st;
	unsigned int kind = rr_next() % 10, i;
	int v;

	static const uint8_t reads[][2] = { { 0x06, 0x01 },
					    { 0x04, 0x2d },
					    { 0x0a, 0x43 },
					    { 0x0a, 0x23 },
					    { 0x00, 0x01 } };
	const unsigned int nreads = sizeof(reads) / sizeof(reads[0]);
	unsigned int pick = rr_next() % (2 * nreads);

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)rr_next();
	if (rr_next() % 3 == 0)
		rq.msg.cmd = (uint8_t)(0x30 + rr_next() % 6); /* 06:3x */
	else if (pick < nreads) { /* half: what b may send */
		rq.msg.netfn = reads[pick][0];
		rq.msg.cmd = reads[pick][1];
	}
	rq.msg.data_len = (unsigned short)(rr_next() % 12);
	switch (kind) {
	case 0: /* the maintenance mode: never set from b */
		v = (int)(rr_next() % 5) - 1;
		(*maint)++;
		i = (unsigned int)kioctl(b, IPMICTL_SET_MAINTENANCE_MODE_CMD,
					 &v);
		ck_assert_msg((int)i == -EPERM || (int)i == -EINVAL,
			      "seed %u: b set the maintenance mode %d: %d",
			      rr.seed0, v, (int)i);
		ck_assert_int_eq(fx.d.maint.mode, 0);
		return 0;
	case 1: /* events on or off */
		v = (int)(rr_next() % 2);
		return kioctl(b, IPMICTL_SET_GETS_EVENTS_CMD, &v);
	case 2: /* a system-interface request of any command */
		rq.addr = (unsigned char *)&si;
		rq.addr_len = sizeof(si);
		if (rr_next() % 2)
			rq.msg.netfn = (uint8_t)(rr_next() % 0x40);
		return kioctl(b, IPMICTL_SEND_COMMAND, &rq);
	case 3: /* Send Message in the IPMB request: a nested frame */
		rq.msg.netfn = 0x06;
		rq.msg.cmd = 0x34;
		data[0] = (uint8_t)(rr_next() % 2);
		data[1] = sas[rr_next() % sizeof(sas)];
		data[2] = (uint8_t)(netfns[rr_next() % sizeof(netfns)] << 2);
		if (pick < nreads) {
			data[2] = (uint8_t)(reads[pick][0] << 2);
			data[6] = reads[pick][1];
		}
		data[3] = (uint8_t) - (uint8_t)(data[1] + data[2]);
		rq.msg.data_len = (unsigned short)(6 + rr_next() % 8);
		return kioctl(b, IPMICTL_SEND_COMMAND, &rq);
	case 4: /* SETTIME with huge retries */
		memset(&st, 0, sizeof(st));
		st.req = rq;
		st.retries = (int)rr_next();
		st.retry_time_ms = rr_next();
		return kioctl(b, IPMICTL_SEND_COMMAND_SETTIME, &st);
	default:
		if (kind == 5)
			ipmb.addr_type = IPMI_IPMB_BROADCAST_ADDR_TYPE;
		return kioctl(b, IPMICTL_SEND_COMMAND, &rq);
	}
}

/*
 * At least 10,000 hostile requests (bridged, maintenance mode, events,
 * system interface) from node b (readonly), half with the daemon
 * bridging (raw KCS), half with a backend that bridges: every request of
 * b's that reaches the fake BMC is allowed by b's rules (read by
 * b_allows, not access.c), b never changes the maintenance mode, a's
 * subscriber reads every event the BMC handed out, and a's requests (a is
 * interactive, b normal; one at a time, interleaved) wait for at most
 * RR_A_WAIT of b's transactions on the interface: the one running when
 * a's came (strict priority; the fetches a Send Message triggers are the
 * daemon's, not counted). The seed is printed; KCSMUX_SEED sets it.
 */
#define RR_COUNT  10000
#define RR_A_WAIT 1
START_TEST(test_random_unprivileged)
{
	struct client *a = open_file(&fx.na), *b = open_file(&fx.nb);
	const char *env = getenv("KCSMUX_SEED");
	unsigned int n, maint = 0, sent = 0, refused = 0, reopened = 0;
	int on = 1, rv;

	memset(&rr, 0, sizeof(rr));
	rr.seed = env ? (unsigned int)strtoul(env, NULL, 0) :
			(unsigned int)time(NULL) ^ (unsigned int)getpid();
	if (!rr.seed)
		rr.seed = 1;
	rr.seed0 = rr.seed;
	printf("test_random_unprivileged: seed %u (KCSMUX_SEED=%u)\n", rr.seed,
	       rr.seed);
	{
		unsigned int seed0 = rr.seed;

		fx.nb.conf.events = true; /* readonly may read the SEL */
		fx.nb.chan_address[0] = RR_B_SA;
		/* a: the admins' interactive node */
		fx.na.conf.pol.prio = KCSMUX_PRIO_INTERACTIVE;
		sched_flow_update(&fx.d.sched, &fx.na.flow, &fx.na.conf.pol,
				  now_ns());
		fx.na.conf.max_outstanding = 100;
		fx.nb.conf.max_outstanding = 100;
		ck_assert_int_eq(kioctl(a, IPMICTL_SET_GETS_EVENTS_CMD, &on),
				 0);
		for (n = 0; n < RR_COUNT; n++) {
			fx.fb->be.bridges = n >= RR_COUNT / 2;
			rv = rr_b_request(b, &maint);
			sent += rv == 0;
			refused += rv != 0;
			if (rv == -EAGAIN || rv == -EBUSY) {
				close_file(b);
				b = open_file(&fx.nb);
				reopened++;
			}
			if (!rr.a_waiting && rr_next() % 4 == 0) {
				ck_assert_int_eq(send_si(a, n, 6, 1), 0);
				rr.a_waiting = true;
				rr.a_sent_at = rr.b_slots;
			}
			for (unsigned int k = rr_next() % 4; k > 0; k--)
				rr_bmc();
			rr_a_reads(a);
			{
				struct rx x;

				while (recv_msg(b, &x) == 0)
					;
			}
			if (fx.fb->nsubs > FAKE_MAX_SUBS - 32)
				rr_compact();
			ck_assert_msg(rr.a_wait_max <= RR_A_WAIT,
				      "seed %u: a's request waited for %llu "
				      "others",
				      seed0, (unsigned long long)rr.a_wait_max);
		}
		while (fake_pending(fx.fb))
			rr_bmc();
		rr_a_reads(a);
		printf("test_random_unprivileged: seed %u: %u requests of b "
		       "(%u maintenance), %u taken, %u refused, %u reopens; "
		       "%llu at the BMC judged by b's rules, %llu answered in "
		       "all; %llu events, a read %llu; a served %llu times, "
		       "at most %llu others ahead\n",
		       seed0, n, maint, sent, refused, reopened,
		       (unsigned long long)rr.at_bmc_b,
		       (unsigned long long)rr.answered,
		       (unsigned long long)rr.events,
		       (unsigned long long)rr.a_got,
		       (unsigned long long)rr.a_served,
		       (unsigned long long)rr.a_wait_max);
		ck_assert_uint_ge(n, 10000);
		ck_assert_uint_eq(rr.a_got, rr.events);
		ck_assert_uint_gt(rr.at_bmc_b, 0);
		ck_assert_uint_gt(rr.a_served, 0);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* leases (core/leasegate.c, docs/leases.md): b holds, a is refused */

static int send_data(struct client *c, long msgid, uint8_t netfn, uint8_t cmd,
		     const uint8_t *data, unsigned short len)
{
	struct ipmi_req rq = {
		.addr = (void *)&si,
		.addr_len = sizeof(si),
		.msgid = msgid,
		.msg = { .netfn = netfn,
			 .cmd = cmd,
			 .data = (uint8_t *)data,
			 .data_len = len },
	};

	return kioctl(c, IPMICTL_SEND_COMMAND, &rq);
}

/* The one answer waiting for c: its completion code. */
static int answer_cc(struct client *c, long msgid)
{
	struct rx x;

	ck_assert_int_eq(recv_msg(c, &x), 0);
	ck_assert_int_eq(x.rv.msgid, msgid);
	ck_assert_uint_ge(x.rv.msg.data_len, 1);
	return x.data[0];
}

/* A BMC with an empty SEL answers what is pending (SEL Info: no entries;
 * anything else cc 0). */
static void empty_sel_bmc(void)
{
	static const uint8_t info[] = { 0x28, 0x40, 0, 0x51, 0,	  0,
					0xff, 0xff, 1, 0,    0,	  0,
					2,    0,    0, 0,    0x02 };
	static const uint8_t none[] = { 0x2c, 0x43, 0xcb };
	struct fake_sub *s;

	for (int k = 0; k < 16 && (s = fake_pending(fx.fb)); k++) {
		if (s->req[1] == 0x40)
			fake_complete(fx.fb, s, 0, info, sizeof(info));
		else if (s->req[1] == 0x43)
			fake_complete(fx.fb, s, 0, none, sizeof(none));
		else
			fake_answer(fx.fb, NULL, 0);
	}
	ck_assert_ptr_null(fake_pending(fx.fb));
}

static void own_done(struct xact *x, int status, const uint8_t *resp,
		     unsigned int len)
{
	(void)status;
	(void)resp;
	(void)len;
	xact_free(x);
}

/* A class lease refuses other nodes' commands of its class at once with
 * cc 0xd5, counted; their reads and other classes go on; released, the
 * command goes. */
START_TEST(test_lease_refusal)
{
	struct client *a = open_file(&fx.na);
	const struct node *h = NULL;

	ck_assert_int_eq(leasegate_take(&fx.d, &fx.nb, LEASE_CHASSIS,
					60000000000ull, &h),
			 0);
	/* a holder's lease is taken again by nobody else */
	ck_assert_int_eq(leasegate_take(&fx.d, &fx.na,
					LEASE_CHASSIS | LEASE_LAN,
					1000000000ull, &h),
			 -EBUSY);
	ck_assert_ptr_eq(h, &fx.nb);
	ck_assert_int_eq(send_si(a, 1, 0x00, 0x02), 0); /* Chassis Control */
	ck_assert_uint_eq(fx.fb->nsubs, 0);
	ck_assert_int_eq(answer_cc(a, 1), 0xd5);
	ck_assert_uint_eq(fx.na.cnt.lease_refused, 1);
	ck_assert_int_eq(send_si(a, 2, 0x00, 0x01), 0); /* status: a read */
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_int_eq(answer_cc(a, 2), 0);
	ck_assert_int_eq(send_si(a, 3, 0x30, 0x70), 0); /* OEM: not leased */
	ck_assert_uint_eq(fx.fb->nsubs, 2);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_int_eq(answer_cc(a, 3), 0);
	ck_assert_uint_eq(leasegate_release(&fx.d, &fx.nb, LEASE_ALL), 1);
	ck_assert_int_eq(send_si(a, 4, 0x00, 0x02), 0);
	ck_assert_uint_eq(fx.fb->nsubs, 3);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_int_eq(answer_cc(a, 4), 0);
	ck_assert_uint_eq(fx.na.cnt.lease_refused, 1);
}
END_TEST

/* A dead holder's lease ends at its deadline; a node that goes takes its
 * leases with it; a configured lease (the lease key) holds until the key
 * is gone. */
START_TEST(test_lease_deadline)
{
	struct client *a = open_file(&fx.na);

	ck_assert_int_eq(leasegate_take(&fx.d, &fx.nb, LEASE_FAN_OEM,
					20000000ull, NULL),
			 0);
	ck_assert_int_eq(send_si(a, 1, 0x30, 0x70), 0);
	ck_assert_int_eq(answer_cc(a, 1), 0xd5);
	usleep(30000);
	ck_assert_int_eq(send_si(a, 2, 0x30, 0x70), 0);
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_int_eq(answer_cc(a, 2), 0);
	/* gone with its node */
	ck_assert_int_eq(leasegate_take(&fx.d, &fx.nb, LEASE_FAN_OEM,
					60000000000ull, NULL),
			 0);
	leasegate_node_gone(&fx.d, &fx.nb);
	ck_assert_int_eq(send_si(a, 3, 0x30, 0x70), 0);
	ck_assert_uint_eq(fx.fb->nsubs, 2);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_int_eq(answer_cc(a, 3), 0);
	/* configured */
	fx.nb.conf.leases = LEASE_USERS;
	leasegate_conf(&fx.d, now_ns());
	ck_assert_int_eq(send_si(a, 4, 0x06, 0x47), 0); /* Set User Password */
	ck_assert_int_eq(answer_cc(a, 4), 0xd5);
	ck_assert_int_eq(leasegate_take(&fx.d, &fx.na, LEASE_USERS,
					1000000000ull, NULL),
			 -EBUSY);
	fx.nb.conf.leases = 0; /* a reload without the key */
	leasegate_conf(&fx.d, now_ns());
	ck_assert_int_eq(send_si(a, 5, 0x06, 0x47), 0);
	ck_assert_uint_eq(fx.fb->nsubs, 3);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_int_eq(answer_cc(a, 5), 0);
}
END_TEST

/*
 * The firmware lease: the holder's requests alone reach the BMC (the
 * daemon's own wait, the others' are answered from the SEL mirror, stale,
 * or refused cc 0xc0 at once), its Cold Reset refuses nothing of its own;
 * at its end the mirror is read again and what waited goes.
 */
START_TEST(test_lease_firmware)
{
	static const uint8_t first[] = { 0, 0, 0, 0, 0, 0xff };
	struct client *a = open_file(&fx.na), *b = open_file(&fx.nb);
	struct xact *own;
	unsigned int n;

	/* b fills the mirror: an empty SEL */
	fx.d.cfg.sdr_cache_revalidate_ms = 60000;
	ck_assert_int_eq(send_data(b, 1, 0x0a, 0x43, first, sizeof(first)), 0);
	empty_sel_bmc();
	ck_assert_int_eq(answer_cc(b, 1), 0xcb);
	ck_assert_str_eq(selm_state_name(fx.d.selm), "valid");
	ck_assert_int_eq(leasegate_take(&fx.d, &fx.na, LEASE_FIRMWARE,
					60000000000ull, NULL),
			 0);
	n = fx.fb->nsubs;
	/* the daemon's own request waits */
	own = core_fixture_xact(&fx, NULL, NULL, 0x06, 0x01, own_done);
	ck_assert_int_eq(xact_enqueue(own), 0);
	ck_assert_uint_eq(fx.fb->nsubs, n);
	/* b: a read from the mirror, stale; the rest cc 0xc0 at once */
	ck_assert_int_eq(send_data(b, 2, 0x0a, 0x43, first, sizeof(first)), 0);
	ck_assert_int_eq(answer_cc(b, 2), 0xcb);
	ck_assert_int_eq(send_si(b, 3, 0x06, 0x01), 0);
	ck_assert_int_eq(answer_cc(b, 3), 0xc0);
	ck_assert_uint_eq(fx.fb->nsubs, n);
	ck_assert_uint_eq(fx.nb.cnt.lease_stale, 1);
	ck_assert_uint_eq(fx.nb.cnt.lease_busy, 1);
	/* a, the holder: its sequence, b's requests refused in between,
	 * then a Cold Reset and a poll that maintenance mode lets through */
	for (long i = 0; i < 20; i++) {
		ck_assert_int_eq(send_si(a, 10 + i, 0x2e, 0x01), 0);
		ck_assert_uint_eq(fx.fb->nsubs, n + 1);
		n = fx.fb->nsubs;
		ck_assert_int_eq(send_si(b, 100 + i, 0x04, 0x2d), 0);
		ck_assert_int_eq(answer_cc(b, 100 + i), 0xc0);
		fake_answer(fx.fb, NULL, 0);
		ck_assert_int_eq(answer_cc(a, 10 + i), 0);
	}
	ck_assert_int_eq(send_si(a, 40, 0x06, 0x02), 0); /* Cold Reset */
	fake_answer(fx.fb, NULL, 0);
	ck_assert_int_eq(answer_cc(a, 40), 0);
	ck_assert_int_eq(send_si(a, 41, 0x06, 0x01), 0);
	ck_assert_uint_eq(fx.fb->nsubs, n + 2);
	ck_assert_int_eq(send_si(b, 42, 0x06, 0x01), 0);
	ck_assert_int_eq(answer_cc(b, 42), 0xc0);
	fake_answer(fx.fb, NULL, 0);
	ck_assert_int_eq(answer_cc(a, 41), 0);
	ck_assert_uint_eq(fx.nb.cnt.lease_busy, 22);
	/* the end: the daemon's own goes, the mirror is read again */
	ck_assert_uint_eq(leasegate_release(&fx.d, &fx.na, LEASE_FIRMWARE), 1);
	ck_assert_ptr_null(fx.d.lease_fw);
	ck_assert_uint_eq(fake_pending(fx.fb)->req[1], 0x01);
	ck_assert_str_ne(selm_state_name(fx.d.selm), "valid");
	/* the holder rode the reset through: the others need not wait */
	ck_assert_int_eq(send_si(b, 43, 0x06, 0x01), 0);
}
END_TEST

/* The firmware lease ends by itself at its deadline: a timer, nobody
 * asking. */
START_TEST(test_lease_firmware_deadline)
{
	struct timeval tv = { 0, 100000 };
	struct xact *own;

	ck_assert_int_eq(leasegate_take(&fx.d, &fx.nb, LEASE_FIRMWARE,
					20000000ull, NULL),
			 0);
	own = core_fixture_xact(&fx, NULL, NULL, 0x06, 0x01, own_done);
	ck_assert_int_eq(xact_enqueue(own), 0);
	ck_assert_uint_eq(fx.fb->nsubs, 0);
	event_base_loopexit(fx.base, &tv);
	event_base_dispatch(fx.base);
	ck_assert_ptr_null(fx.d.lease_fw);
	ck_assert_uint_eq(fx.fb->nsubs, 1);
	ck_assert_uint_eq(fx.d.lease_fw_ends, 1);
}
END_TEST

static Suite *client_suite(void)
{
	Suite *s = suite_create("client");
	TCase *tc = tcase_create("delivery");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_send_receive);
	tcase_add_test(tc, test_send_window_new_file);
	tcase_add_test(tc, test_send_window_miss_and_straddle);
	tcase_add_test(tc, test_send_window_unseen_tid);
	tcase_add_test(tc, test_recv_guess_new_address);
	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_receive_bad_buffer);
	tcase_add_test(tc, test_receive_small_buffer);
	tcase_add_test(tc, test_close_cancels);
	tcase_add_test(tc, test_denied);
	tcase_add_test(tc, test_admin_openers);
	tcase_add_test(tc, test_maint_reset);
	tcase_add_test(tc, test_maint_set_admin_only);
	tcase_add_test(tc, test_denied_log_line);
	tcase_add_test(tc, test_events_dropped);
	tcase_add_test(tc, test_netfn_high_bits);
	tcase_add_test(tc, test_busy);
	tcase_add_test(tc, test_event_backlog);
	tcase_add_test(tc, test_event_backlog_per_node);
	tcase_add_test(tc, test_events_quiet);
	tcase_add_test(tc, test_bridged_answer);
	tcase_add_test(tc, test_bridged_file_share);
	tcase_add_test(tc, test_bridged_node_rate);
	tcase_add_test(tc, test_reply_node_rate);
	tcase_add_test(tc, test_event_behind_answers);
	tcase_add_test(tc, test_bridged_close_loop);
	tcase_add_test(tc, test_settime_clamped_ipmidev);
	tcase_add_test(tc, test_bridged_takes_no_slot_ipmidev);
	tcase_add_test(tc, test_smi_no_bridge);
	tcase_add_test(tc, test_bridged_share_kernel);
	tcase_add_test(tc, test_lun_rules);
	tcase_add_test(tc, test_bridged_seen_by_cache);
	tcase_add_test(tc, test_commands_bounded);
	tcase_add_test(tc, test_lease_refusal);
	tcase_add_test(tc, test_lease_deadline);
	tcase_add_test(tc, test_lease_firmware);
	tcase_add_test(tc, test_lease_firmware_deadline);
	suite_add_tcase(s, tc);
	/* ~1-3 s under ASan on an idle core, more on a shared one */
	tc = tcase_create("random");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_random_unprivileged);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(client_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
