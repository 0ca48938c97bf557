// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmux-ipmi-stress: many concurrent clients on one or more IPMI device
 * nodes (stock /dev/ipmi0 or kcsmux /dev/ipmiN). Forks C client processes,
 * round-robin over the devices; each sends N requests whose responses are
 * predictable and depend on the request, keeps up to W outstanding, and
 * checks that every response comes back exactly once, to the right client,
 * with the right content. Static guest helper; see usage() and
 * docs/guest-tools.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ipmi.h>

#include "stats.h"

static const char *prog = "kcsmux-ipmi-stress";

/* msgid = pid << 24 | index: needs a 64-bit long */
_Static_assert(sizeof(long) >= 8, "kcsmux-ipmi-stress needs LP64");

#define EXIT_FAIL  1
#define EXIT_SETUP 2

#define MAX_DEVS      16
#define MAX_CLIENTS   1024
#define MAX_WINDOW    64
#define MAX_MIX	      8
#define RECV_BUF_LEN  1024	/* what ipmitool uses */
#define SETUP_BIT     0x800000L /* msgid bit of the setup requests */
#define IDX_MASK      0x7fffffL /* request index in the msgid */
#define MAX_N	      IDX_MASK
#define MAX_REPORTS   10 /* per client, without -v */
#define ABORTER_SENDS 8
#define DURATION_N    100000 /* default -n cap with --duration */
#define ERRNO_SLOTS   160    /* errnos counted by value (Linux's < 134) */

#define NETFN_APP	  0x06
#define NETFN_STORAGE	  0x0a
#define CMD_GET_DEVICE_ID 0x01
#define CMD_RESERVE_SDR	  0x22
#define CMD_GET_SDR	  0x23
#define IPMB_SLAVE	  0x72 /* the test BMC's IPMB controller */

enum kind { K_ID, K_SDR, K_IPMB };
static const char *const kind_names[] = { "id", "sdr", "ipmb" };

struct opts {
	unsigned int clients;
	unsigned long n;
	unsigned int window;
	unsigned int timeout_ms;
	unsigned int linger_ms;
	unsigned int deadline_s;
	unsigned int duration_ms; /* --duration: send until then */
	enum kind mix[MAX_MIX];
	unsigned int nmix;
	char mix_str[64];
	bool kv;
	bool misuse;
	bool verbose;
	const char *devs[MAX_DEVS];
	unsigned int ndev;
};

/* Per-client results, in memory shared with the parent. */
enum cstate { CS_INIT, CS_READY, CS_SETUP_FAILED, CS_DONE };

struct cres {
	int dev;
	int pid;
	int state; /* enum cstate */
	bool misuser;
	uint64_t sent, ok, lost, dup, late, misrouted, bad;
	uint64_t send_err, recv_err, spurious;
	uint64_t misuse_calls, misuse_wrong;
	uint64_t nlat;
	uint64_t issued; /* requests sent or refused so far */
	/* errors by kind: SEND errnos, the completion codes of bad answers
	 * that had a nonzero one, and the errnos the misuse calls got
	 * (expected or not) */
	uint32_t send_errno[ERRNO_SLOTS];
	uint32_t bad_cc[256];
	uint32_t misuse_errno[ERRNO_SLOTS];
	char err[200]; /* setup failure */
};

static struct opts o;
static struct cres *results; /* o.clients entries */
static uint64_t *lats;	     /* o.clients * o.n, ns */

/* ------------------------------------------------------------------ */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void hexdump(char *buf, size_t sz, const uint8_t *p, size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off + 4 < sz; i++)
		off += (size_t)snprintf(buf + off, sz - off, "%s%02x",
					i ? " " : "", p[i]);
}

union xaddr {
	struct ipmi_addr any;
	struct ipmi_system_interface_addr si;
	struct ipmi_ipmb_addr ipmb;
};

static unsigned int mk_addr(union xaddr *a, enum kind k)
{
	memset(a, 0, sizeof(*a));
	if (k == K_IPMB) {
		a->ipmb.addr_type = IPMI_IPMB_ADDR_TYPE;
		a->ipmb.channel = 0;
		a->ipmb.slave_addr = IPMB_SLAVE;
		a->ipmb.lun = 0;
		return sizeof(a->ipmb);
	}
	a->si.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
	a->si.channel = IPMI_BMC_CHANNEL;
	a->si.lun = 0;
	return sizeof(a->si);
}

/* ------------------------------------------------------------------ */
/* one client */

struct req {
	enum kind kind;
	uint8_t netfn, cmd;
	uint8_t data[8];
	uint16_t len;
};

struct client {
	int idx;
	int fd;
	long tag; /* the pid: high bits of every msgid */
	const char *dev;
	struct cres *res;
	uint64_t *lat;
	unsigned int reports;
	/* references learnt in the setup phase */
	uint8_t id_ref[IPMI_MAX_MSG_LENGTH];
	uint16_t id_ref_len;
	uint8_t ipmb_ref[IPMI_MAX_MSG_LENGTH];
	uint16_t ipmb_ref_len;
	uint8_t sdr_rec[256 + 16];
	unsigned int sdr_len;
	uint16_t sdr_next;
	/* main phase */
	uint8_t *state; /* per request: enum rstate */
	uint64_t *t0;	/* per request: send time */
	unsigned int misuse_next;
};

enum rstate { RS_NEW, RS_PENDING, RS_OK, RS_BAD, RS_LOST };

static void report(struct client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void report(struct client *c, const char *fmt, ...)
{
	bool last = false;
	char line[512];
	va_list ap;
	int n;

	if (!o.verbose) {
		if (c->reports > MAX_REPORTS)
			return;
		last = c->reports++ == MAX_REPORTS;
	}
	n = snprintf(line, sizeof(line), "%s: client %d (%s): ", prog, c->idx,
		     c->dev);
	/* one write per line: the clients share stderr */
	if (n < 0 || (size_t)n >= sizeof(line) - 1) {
		n = 0;
		line[0] = '\0';
	}
	if (last) {
		snprintf(line + n, sizeof(line) - 1 - (size_t)n,
			 "more problems, not shown (use -v)");
	} else {
		va_start(ap, fmt);
		vsnprintf(line + n, sizeof(line) - 1 - (size_t)n, fmt, ap);
		va_end(ap);
	}
	n = (int)strlen(line);
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

static long mk_msgid(const struct client *c, long idx)
{
	return (c->tag << 24) | idx;
}

static void build_req(const struct client *c, unsigned long i, struct req *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = o.mix[i % o.nmix];
	switch (r->kind) {
	case K_ID:
	case K_IPMB:
		r->netfn = NETFN_APP;
		r->cmd = CMD_GET_DEVICE_ID;
		break;
	case K_SDR:
		/*
		 * Get SDR, record 0 (the first), reservation 0: ipmi_sim
		 * accepts 0 for partial reads, and a real reservation would
		 * be cancelled by the other clients' reservations.
		 */
		r->netfn = NETFN_STORAGE;
		r->cmd = CMD_GET_SDR;
		r->data[4] = (uint8_t)((i * 7) % c->sdr_len); /* offset */
		r->data[5] = (uint8_t)(8 + i % 9);	      /* 8..16 bytes */
		/* Never past the record's end: what a BMC answers there
		 * differs (ipmi_sim pads with zeros, others truncate). */
		if (r->data[4] + r->data[5] > c->sdr_len)
			r->data[5] = (uint8_t)(c->sdr_len - r->data[4]);
		r->len = 6;
		break;
	}
}

/* The exact response data (completion code first) to request r. */
static uint16_t expected(const struct client *c, const struct req *r,
			 uint8_t *out)
{
	unsigned int off, cnt;

	switch (r->kind) {
	case K_ID:
		memcpy(out, c->id_ref, c->id_ref_len);
		return c->id_ref_len;
	case K_IPMB:
		memcpy(out, c->ipmb_ref, c->ipmb_ref_len);
		return c->ipmb_ref_len;
	case K_SDR:
		off = r->data[4];
		cnt = r->data[5];
		if (off + cnt > c->sdr_len)
			cnt = c->sdr_len - off;
		out[0] = 0;
		out[1] = (uint8_t)c->sdr_next;
		out[2] = (uint8_t)(c->sdr_next >> 8);
		memcpy(out + 3, c->sdr_rec + off, cnt);
		return (uint16_t)(3 + cnt);
	}
	return 0;
}

static int send_req(struct client *c, const struct req *r, long msgid)
{
	union xaddr a;
	struct ipmi_req q;

	memset(&q, 0, sizeof(q));
	q.addr = (unsigned char *)&a;
	q.addr_len = mk_addr(&a, r->kind);
	q.msgid = msgid;
	q.msg.netfn = r->netfn;
	q.msg.cmd = r->cmd;
	q.msg.data_len = r->len;
	q.msg.data = r->len ? (unsigned char *)r->data : NULL;
	return ioctl(c->fd, IPMICTL_SEND_COMMAND, &q);
}

struct rmsg {
	int type;
	long msgid;
	union xaddr addr;
	uint8_t netfn, cmd;
	uint16_t len;
	uint8_t data[RECV_BUF_LEN];
};

/* 1 got a message, 0 queue empty, -1 error (errno) */
static int recv_one(struct client *c, struct rmsg *m)
{
	struct ipmi_recv rv;

	memset(&rv, 0, sizeof(rv));
	memset(&m->addr, 0, sizeof(m->addr));
	rv.addr = (unsigned char *)&m->addr;
	rv.addr_len = sizeof(m->addr);
	rv.msg.data = m->data;
	rv.msg.data_len = sizeof(m->data);
	if (ioctl(c->fd, IPMICTL_RECEIVE_MSG_TRUNC, &rv) < 0) {
		if (errno == EAGAIN)
			return 0;
		if (errno != EMSGSIZE)
			return -1;
	}
	m->type = rv.recv_type;
	m->msgid = rv.msgid;
	m->netfn = rv.msg.netfn;
	m->cmd = rv.msg.cmd;
	m->len = rv.msg.data_len;
	return 1;
}

/* Why a message is not the right answer to r, or NULL if it is. */
static const char *check_resp(const struct client *c, const struct req *r,
			      const struct rmsg *m, char *why, size_t sz)
{
	uint8_t want[IPMI_MAX_MSG_LENGTH + 8];
	uint16_t wl;
	char a[3 * 64], b[3 * 64];

	if (m->type != IPMI_RESPONSE_RECV_TYPE) {
		snprintf(why, sz, "recv_type %d", m->type);
		return why;
	}
	if (m->netfn != (r->netfn | 1) || m->cmd != r->cmd) {
		snprintf(why, sz, "netfn/cmd 0x%02x/0x%02x, want 0x%02x/0x%02x",
			 m->netfn, m->cmd, r->netfn | 1, r->cmd);
		return why;
	}
	if (r->kind == K_IPMB) {
		if (m->addr.ipmb.addr_type != IPMI_IPMB_ADDR_TYPE ||
		    m->addr.ipmb.channel != 0 ||
		    m->addr.ipmb.slave_addr != IPMB_SLAVE) {
			snprintf(why, sz,
				 "address type %d channel %d slave 0x%02x",
				 m->addr.ipmb.addr_type, m->addr.ipmb.channel,
				 m->addr.ipmb.slave_addr);
			return why;
		}
	} else if (m->addr.si.addr_type != IPMI_SYSTEM_INTERFACE_ADDR_TYPE ||
		   m->addr.si.channel != IPMI_BMC_CHANNEL) {
		snprintf(why, sz, "address type %d channel %d",
			 m->addr.si.addr_type, m->addr.si.channel);
		return why;
	}
	wl = expected(c, r, want);
	if (m->len != wl || memcmp(m->data, want, wl)) {
		hexdump(a, sizeof(a), m->data, m->len < 60 ? m->len : 60);
		hexdump(b, sizeof(b), want, wl < 60 ? wl : 60);
		snprintf(why, sz, "data [%s] want [%s]", a, b);
		return why;
	}
	return NULL;
}

/*
 * Setup: one request, wait for its own response (anything else that
 * arrives is counted as misrouted). Returns 0 and the response, or -1
 * with c->res->err set.
 */
static int sync_request(struct client *c, const struct req *r, long k,
			struct rmsg *m)
{
	long msgid = mk_msgid(c, SETUP_BIT | k);
	uint64_t deadline;

	if (send_req(c, r, msgid) < 0) {
		snprintf(c->res->err, sizeof(c->res->err),
			 "setup %s request: SEND failed: %s",
			 kind_names[r->kind], strerror(errno));
		return -1;
	}
	deadline = now_ns() + (uint64_t)o.timeout_ms * 1000000ull;
	for (;;) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		uint64_t now = now_ns();
		int rv;

		if (now >= deadline) {
			snprintf(c->res->err, sizeof(c->res->err),
				 "setup %s request: no response in %u ms",
				 kind_names[r->kind], o.timeout_ms);
			return -1;
		}
		rv = poll(&p, 1, (int)((deadline - now) / 1000000ull) + 1);
		if (rv < 0 && errno != EINTR) {
			snprintf(c->res->err, sizeof(c->res->err),
				 "setup: poll: %s", strerror(errno));
			return -1;
		}
		if (rv <= 0)
			continue;
		while ((rv = recv_one(c, m)) > 0) {
			if (m->type == IPMI_RESPONSE_RECV_TYPE &&
			    m->msgid == msgid)
				return 0;
			c->res->misrouted++;
			report(c, "setup: stray message type %d msgid 0x%lx",
			       m->type, m->msgid);
		}
		if (rv < 0) {
			snprintf(c->res->err, sizeof(c->res->err),
				 "setup: RECEIVE: %s", strerror(errno));
			return -1;
		}
	}
}

static int setup_refs(struct client *c)
{
	bool want[3] = { false, false, false };
	struct rmsg m;
	struct req r;
	long k = 0;

	for (unsigned int i = 0; i < o.nmix; i++)
		want[o.mix[i]] = true;

	if (want[K_ID]) {
		memset(&r, 0, sizeof(r));
		r.kind = K_ID;
		r.netfn = NETFN_APP;
		r.cmd = CMD_GET_DEVICE_ID;
		if (sync_request(c, &r, k++, &m))
			return -1;
		if (m.len < 1 || m.data[0] != 0 ||
		    m.len > IPMI_MAX_MSG_LENGTH) {
			snprintf(c->res->err, sizeof(c->res->err),
				 "setup: Get Device ID: length %u cc 0x%02x",
				 m.len, m.len ? m.data[0] : 0);
			return -1;
		}
		memcpy(c->id_ref, m.data, m.len);
		c->id_ref_len = m.len;
	}
	if (want[K_IPMB]) {
		memset(&r, 0, sizeof(r));
		r.kind = K_IPMB;
		r.netfn = NETFN_APP;
		r.cmd = CMD_GET_DEVICE_ID;
		if (sync_request(c, &r, k++, &m))
			return -1;
		if (m.len < 1 || m.data[0] != 0 ||
		    m.len > IPMI_MAX_MSG_LENGTH) {
			snprintf(
				c->res->err, sizeof(c->res->err),
				"setup: IPMB Get Device ID of 0x%02x: length %u cc 0x%02x",
				IPMB_SLAVE, m.len, m.len ? m.data[0] : 0);
			return -1;
		}
		memcpy(c->ipmb_ref, m.data, m.len);
		c->ipmb_ref_len = m.len;
	}
	if (want[K_SDR]) {
		unsigned int off;

		/* Reserve SDR Repository: must answer; the id is not used */
		memset(&r, 0, sizeof(r));
		r.kind = K_SDR;
		r.netfn = NETFN_STORAGE;
		r.cmd = CMD_RESERVE_SDR;
		if (sync_request(c, &r, k++, &m))
			return -1;
		if (m.len < 1 || (m.data[0] == 0 && m.len != 3)) {
			snprintf(c->res->err, sizeof(c->res->err),
				 "setup: Reserve SDR Repository: length %u",
				 m.len);
			return -1;
		}
		/* the first record's header, then the whole record */
		r.cmd = CMD_GET_SDR;
		r.len = 6;
		r.data[5] = 5;
		if (sync_request(c, &r, k++, &m))
			return -1;
		if (m.len != 8 || m.data[0] != 0) {
			snprintf(c->res->err, sizeof(c->res->err),
				 "setup: Get SDR header: length %u cc 0x%02x",
				 m.len, m.len ? m.data[0] : 0);
			return -1;
		}
		c->sdr_next = (uint16_t)(m.data[1] | (m.data[2] << 8));
		c->sdr_len = m.data[3 + 4] + 5u;
		if (c->sdr_len > 240) {
			/* offsets are one byte: keep clear of 255 */
			snprintf(
				c->res->err, sizeof(c->res->err),
				"setup: first SDR is %u bytes, too long for this test",
				c->sdr_len);
			return -1;
		}
		for (off = 0; off < c->sdr_len; off += 16) {
			unsigned int want_n =
				c->sdr_len - off < 16 ? c->sdr_len - off : 16;

			r.data[4] = (uint8_t)off;
			r.data[5] = (uint8_t)want_n;
			if (sync_request(c, &r, k++, &m))
				return -1;
			if (m.len != 3 + want_n || m.data[0] != 0 ||
			    (uint16_t)(m.data[1] | (m.data[2] << 8)) !=
				    c->sdr_next) {
				snprintf(
					c->res->err, sizeof(c->res->err),
					"setup: Get SDR offset %u: length %u cc 0x%02x",
					off, m.len, m.len ? m.data[0] : 0);
				return -1;
			}
			memcpy(c->sdr_rec + off, m.data + 3, want_n);
		}
	}
	return 0;
}

/* ---- misuse: bad calls that must fail and must not disturb anyone ---- */

struct misuse {
	const char *name;
	int (*fn)(int fd);
	int e1, e2; /* acceptable errnos */
	bool idle;  /* only with nothing outstanding */
};

static int mu_send(int fd, void *addr, unsigned int addr_len, uint8_t netfn,
		   uint8_t cmd, void *data, unsigned int len, unsigned int lun)
{
	union xaddr a;
	struct ipmi_req q;

	memset(&q, 0, sizeof(q));
	q.addr_len = mk_addr(&a, K_ID);
	a.si.lun = (unsigned char)lun;
	q.addr = addr ? (unsigned char *)addr : (unsigned char *)&a;
	if (addr_len)
		q.addr_len = addr_len;
	q.msgid = 0x7ffff; /* never one of ours */
	q.msg.netfn = netfn;
	q.msg.cmd = cmd;
	q.msg.data = (unsigned char *)data;
	q.msg.data_len = (unsigned short)len;
	return ioctl(fd, IPMICTL_SEND_COMMAND, &q);
}

static int mu_bad_addr(int fd)
{
	return mu_send(fd, (void *)1, 8, 6, 1, NULL, 0, 0);
}

static int mu_bad_data(int fd)
{
	return mu_send(fd, NULL, 0, 6, 1, (void *)1, 4, 0);
}

static int mu_len273(int fd)
{
	static uint8_t buf[300];

	return mu_send(fd, NULL, 0, 6, 1, buf, 273, 0);
}

static int mu_alen41(int fd)
{
	return mu_send(fd, NULL, 41, 6, 1, NULL, 0, 0);
}

static int mu_odd_netfn(int fd)
{
	return mu_send(fd, NULL, 0, 7, 1, NULL, 0, 0);
}

static int mu_get_msg(int fd)
{
	return mu_send(fd, NULL, 0, 6, 0x33, NULL, 0, 0);
}

static int mu_lun5(int fd)
{
	return mu_send(fd, NULL, 0, 6, 1, NULL, 0, 5);
}

static int mu_recv_bad_struct(int fd)
{
	return ioctl(fd, IPMICTL_RECEIVE_MSG_TRUNC, (void *)1);
}

/* a queued message must stay (EINVAL); an empty queue gives EAGAIN */
static int mu_recv_alen4(int fd)
{
	uint8_t a[40], d[64];
	struct ipmi_recv rv = { .addr = a,
				.addr_len = 4,
				.msg.data = d,
				.msg.data_len = sizeof(d) };

	return ioctl(fd, IPMICTL_RECEIVE_MSG, &rv);
}

/* RECEIVE_MSG (not TRUNC) with no room for data: the message stays */
static int mu_recv_d0(int fd)
{
	uint8_t a[40], d[4];
	struct ipmi_recv rv = { .addr = a,
				.addr_len = sizeof(a),
				.msg.data = d,
				.msg.data_len = 0 };

	return ioctl(fd, IPMICTL_RECEIVE_MSG, &rv);
}

/* a well-formed RECEIVE on an empty queue (the caller has nothing
 * outstanding): EAGAIN, as from stock */
static int mu_recv_empty(int fd)
{
	uint8_t a[40], d[RECV_BUF_LEN];
	struct ipmi_recv rv = { .addr = a,
				.addr_len = sizeof(a),
				.msg.data = d,
				.msg.data_len = sizeof(d) };

	return ioctl(fd, IPMICTL_RECEIVE_MSG_TRUNC, &rv);
}

static int mu_io99(int fd)
{
	return ioctl(fd, _IO(IPMI_IOC_MAGIC, 99), 0);
}

static int mu_tcgets(int fd)
{
	uint8_t buf[256];

	return ioctl(fd, 0x5401, buf);
}

static int mu_get_addr_bad(int fd)
{
	return ioctl(fd, IPMICTL_GET_MY_ADDRESS_CMD, (void *)1);
}

static int mu_chaddr16(int fd)
{
	struct ipmi_channel_lun_address_set s = { .channel = 16,
						  .value = 0x22 };

	return ioctl(fd, IPMICTL_SET_MY_CHANNEL_ADDRESS_CMD, &s);
}

static int mu_maint7(int fd)
{
	int v = 7;

	return ioctl(fd, IPMICTL_SET_MAINTENANCE_MODE_CMD, &v);
}

static int mu_read(int fd)
{
	uint8_t buf[64];

	return (int)read(fd, buf, sizeof(buf));
}

static int mu_write(int fd)
{
	static const uint8_t buf[4] = { 0x18, 0x01 };

	return (int)write(fd, buf, sizeof(buf));
}

static int mu_unreg(int fd)
{
	struct ipmi_cmdspec s = { .netfn = 0x32, .cmd = 0x7e };

	return ioctl(fd, IPMICTL_UNREGISTER_FOR_CMD, &s);
}

static int mu_timing_bad(int fd)
{
	return ioctl(fd, IPMICTL_SET_TIMING_PARMS_CMD, (void *)1);
}

static const struct misuse misuses[] = {
	{ "SEND addr (void *)1", mu_bad_addr, EFAULT, 0, false },
	{ "SEND data (void *)1", mu_bad_data, EFAULT, 0, false },
	{ "SEND data_len 273", mu_len273, EMSGSIZE, 0, false },
	{ "SEND addr_len 41", mu_alen41, EINVAL, 0, false },
	{ "SEND odd netfn", mu_odd_netfn, EINVAL, 0, false },
	{ "SEND Get Message", mu_get_msg, EINVAL, 0, false },
	{ "SEND lun 5", mu_lun5, EINVAL, 0, false },
	{ "RECEIVE_MSG_TRUNC struct (void *)1", mu_recv_bad_struct, EFAULT, 0,
	  false },
	{ "RECEIVE_MSG addr_len 4", mu_recv_alen4, EINVAL, EAGAIN, false },
	{ "RECEIVE_MSG data_len 0", mu_recv_d0, EMSGSIZE, EAGAIN, false },
	{ "RECEIVE_MSG_TRUNC, empty queue", mu_recv_empty, EAGAIN, 0, true },
	{ "ioctl _IO('i', 99)", mu_io99, ENOTTY, EINVAL, false },
	{ "ioctl TCGETS", mu_tcgets, ENOTTY, EINVAL, false },
	{ "GET_MY_ADDRESS (void *)1", mu_get_addr_bad, EFAULT, 0, false },
	{ "SET_MY_CHANNEL_ADDRESS ch 16", mu_chaddr16, EINVAL, 0, false },
	{ "SET_MAINTENANCE_MODE 7", mu_maint7, EINVAL, 0, false },
	{ "read()", mu_read, EINVAL, 0, false },
	{ "write()", mu_write, EINVAL, 0, false },
	{ "UNREGISTER_FOR_CMD not registered", mu_unreg, ENOENT, 0, false },
	{ "SET_TIMING_PARMS (void *)1", mu_timing_bad, EFAULT, 0, false },
};
#define NMISUSE (sizeof(misuses) / sizeof(misuses[0]))

static void do_misuse(struct client *c, unsigned int outstanding)
{
	const struct misuse *m = &misuses[c->misuse_next++ % NMISUSE];
	int rv, e;

	if (m->idle && outstanding)
		m = &misuses[c->misuse_next++ % NMISUSE];
	errno = 0;
	rv = m->fn(c->fd);
	e = errno;
	c->res->misuse_calls++;
	if (rv < 0 && e > 0 && e < ERRNO_SLOTS)
		c->res->misuse_errno[e]++;
	if (rv >= 0 || (e != m->e1 && (!m->e2 || e != m->e2))) {
		c->res->misuse_wrong++;
		if (rv >= 0)
			report(c, "misuse call %s succeeded (%d)", m->name, rv);
		else
			report(c, "misuse call %s: %s (want %s)", m->name,
			       strerror(e), strerror(m->e1));
	}
}

/* ---- main phase ---- */

static void handle_msg(struct client *c, const struct rmsg *m,
		       unsigned int *outstanding)
{
	char why[400];
	unsigned long idx;
	struct req r;

	if (m->type != IPMI_RESPONSE_RECV_TYPE || (m->msgid >> 24) != c->tag) {
		c->res->misrouted++;
		report(c,
		       "misrouted: recv_type %d msgid 0x%lx netfn 0x%02x cmd 0x%02x",
		       m->type, m->msgid, m->netfn, m->cmd);
		return;
	}
	idx = (unsigned long)(m->msgid & IDX_MASK);
	if (m->msgid & SETUP_BIT) {
		c->res->late++;
		report(c, "late response to setup request %lu", idx);
		return;
	}
	if (idx >= o.n || c->state[idx] == RS_NEW) {
		c->res->misrouted++;
		report(c, "response with our tag to request %lu, never sent",
		       idx);
		return;
	}
	switch (c->state[idx]) {
	case RS_OK:
	case RS_BAD:
		c->res->dup++;
		report(c, "duplicate response to request %lu", idx);
		return;
	case RS_LOST:
		c->res->late++;
		report(c, "late response to request %lu (after %u ms)", idx,
		       o.timeout_ms);
		return;
	default:
		break;
	}
	build_req(c, idx, &r);
	(*outstanding)--;
	if (check_resp(c, &r, m, why, sizeof(why))) {
		c->state[idx] = RS_BAD;
		c->res->bad++;
		if (m->type == IPMI_RESPONSE_RECV_TYPE && m->len >= 1 &&
		    m->data[0] != 0)
			c->res->bad_cc[m->data[0]]++;
		report(c, "bad response to request %lu (%s): %s", idx,
		       kind_names[r.kind], why);
		return;
	}
	c->state[idx] = RS_OK;
	c->res->ok++;
	c->lat[c->res->nlat++] = now_ns() - c->t0[idx];
}

/* Receive until the queue is empty. -1 on a receive error. */
static int drain_queue(struct client *c, unsigned int *outstanding)
{
	struct rmsg m;
	int rv, got = 0;

	while ((rv = recv_one(c, &m)) > 0) {
		handle_msg(c, &m, outstanding);
		got++;
	}
	if (rv < 0) {
		c->res->recv_err++;
		report(c, "RECEIVE_MSG_TRUNC: %s", strerror(errno));
		return -1;
	}
	return got;
}

/* More requests to send: below -n, and before the end of --duration. */
static bool more(unsigned long next, uint64_t stop)
{
	return next < o.n && (!stop || now_ns() < stop);
}

static void run_client(struct client *c)
{
	unsigned long next = 0, oldest = 0;
	unsigned int outstanding = 0;
	const uint64_t tmo = (uint64_t)o.timeout_ms * 1000000ull;
	const uint64_t stop =
		o.duration_ms ?
			now_ns() + (uint64_t)o.duration_ms * 1000000ull :
			0;
	bool dead = false, sending = true;

	while ((sending || outstanding) && !dead) {
		while (outstanding < o.window && (sending = more(next, stop))) {
			struct req r;

			if (c->res->misuser)
				do_misuse(c, outstanding);
			build_req(c, next, &r);
			c->t0[next] = now_ns();
			if (send_req(c, &r, mk_msgid(c, (long)next)) < 0) {
				int e = errno;

				c->res->send_err++;
				if (e > 0 && e < ERRNO_SLOTS)
					c->res->send_errno[e]++;
				c->state[next] = RS_BAD;
				report(c, "SEND request %lu: %s", next,
				       strerror(e));
			} else {
				c->state[next] = RS_PENDING;
				c->res->sent++;
				outstanding++;
			}
			next++;
			c->res->issued = next;
		}
		if (!outstanding)
			continue;

		/* the oldest pending request has the earliest deadline */
		while (oldest < next && c->state[oldest] != RS_PENDING)
			oldest++;
		uint64_t now = now_ns(), dl = c->t0[oldest] + tmo;
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int wait = now >= dl ? 0 : (int)((dl - now) / 1000000ull) + 1;
		int rv = poll(&p, 1, wait);

		if (rv < 0) {
			if (errno == EINTR)
				continue;
			c->res->recv_err++;
			report(c, "poll: %s", strerror(errno));
			dead = true;
		} else if (rv > 0) {
			if (p.revents & (POLLERR | POLLHUP | POLLNVAL)) {
				c->res->recv_err++;
				report(c, "poll revents 0x%x", p.revents);
				dead = true;
			} else if (p.revents & POLLIN) {
				int got = drain_queue(c, &outstanding);

				if (got < 0)
					dead = true;
				else if (got == 0)
					c->res->spurious++;
			}
		}
		/* expire everything past its deadline */
		now = now_ns();
		for (unsigned long i = oldest; i < next; i++) {
			if (c->state[i] == RS_PENDING &&
			    (dead || now >= c->t0[i] + tmo)) {
				c->state[i] = RS_LOST;
				c->res->lost++;
				outstanding--;
				if (!dead)
					report(c,
					       "request %lu (%s): no response in %u ms",
					       i, kind_names[o.mix[i % o.nmix]],
					       o.timeout_ms);
			}
		}
	}
	if (dead) {
		/* count the requests never sent as lost (with --duration,
		 * only those sent: how many more there would have been is
		 * unknown, and the client fails on recv_err anyway) */
		if (!o.duration_ms)
			c->res->lost += o.n - next;
		return;
	}
	/* linger: duplicates and late or misrouted answers */
	uint64_t end = now_ns() + (uint64_t)o.linger_ms * 1000000ull;

	for (;;) {
		uint64_t now = now_ns();
		struct pollfd p = { .fd = c->fd, .events = POLLIN };

		if (now >= end)
			break;
		int rv = poll(&p, 1, (int)((end - now) / 1000000ull) + 1);

		if (rv < 0 && errno == EINTR)
			continue;
		if (rv <= 0 || !(p.revents & POLLIN))
			break;
		if (drain_queue(c, &outstanding) <= 0)
			break;
	}
}

static int wait_go(int go_fd)
{
	char b;
	ssize_t rv;

	while ((rv = read(go_fd, &b, 1)) < 0 && errno == EINTR)
		;
	return (int)rv; /* 0: the parent closed it: go */
}

static void client_main(int idx, int ready_fd, int go_fd)
{
	struct client c;
	struct cres *res = &results[idx];
	char b = 1;

	memset(&c, 0, sizeof(c));
	c.idx = idx;
	c.res = res;
	c.dev = o.devs[res->dev];
	c.tag = (long)getpid();
	c.lat = lats + (size_t)idx * o.n;
	c.state = calloc(o.n, 1);
	c.t0 = calloc(o.n, sizeof(*c.t0));
	res->pid = getpid();
	res->state = CS_SETUP_FAILED;
	c.fd = open(c.dev, O_RDWR | O_CLOEXEC);
	if (!c.state || !c.t0) {
		snprintf(res->err, sizeof(res->err), "out of memory");
	} else if (c.fd < 0) {
		snprintf(res->err, sizeof(res->err), "open %s: %s", c.dev,
			 strerror(errno));
	} else if (setup_refs(&c) == 0) {
		res->state = CS_READY;
	}
	if (write(ready_fd, &b, 1) != 1)
		_exit(3);
	close(ready_fd);
	if (res->state != CS_READY) {
		wait_go(go_fd);
		_exit(1);
	}
	wait_go(go_fd);
	run_client(&c);
	res->state = CS_DONE;
	_exit(0);
}

/*
 * An extra client per device (--misuse): sends a burst of requests and
 * exits without reading the responses, while the others run.
 */
static void aborter_main(int dev, int go_fd)
{
	union xaddr a;
	struct ipmi_req q;
	int fd = open(o.devs[dev], O_RDWR | O_CLOEXEC);

	wait_go(go_fd);
	if (fd < 0)
		_exit(1);
	/* land in the middle of the others' traffic */
	usleep(20000 + 5000 * (unsigned int)dev);
	memset(&q, 0, sizeof(q));
	q.addr = (unsigned char *)&a;
	q.addr_len = mk_addr(&a, K_ID);
	q.msg.netfn = NETFN_APP;
	q.msg.cmd = CMD_GET_DEVICE_ID;
	for (long i = 0; i < ABORTER_SENDS; i++) {
		q.msgid = ((long)getpid() << 24) | i;
		ioctl(fd, IPMICTL_SEND_COMMAND, &q);
	}
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* parent */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [options] DEV...\n"
		"Many concurrent clients on IPMI device nodes. Forks C clients spread\n"
		"round-robin over the DEVs; each opens its node, learns reference responses\n"
		"(setup), waits for all others, then sends N requests with msgids tagged\n"
		"with its pid (pid << 24 | index), up to W outstanding, poll() +\n"
		"RECEIVE_MSG_TRUNC, and checks every message it receives:\n"
		"  - msgid: one of its own outstanding requests, answered once;\n"
		"  - recv_type 1 (response), netfn = request netfn | 1, same cmd, address\n"
		"    type/channel (and slave for ipmb) of the request;\n"
		"  - data: exactly the expected content of that request.\n"
		"\n"
		"  -c N          clients (default 4)\n"
		"  -n N          requests per client (default 100)\n"
		"  -w W          outstanding requests per client (default 1, max %d)\n"
		"  -t SEC        response timeout per request (default 10; decimals ok)\n"
		"  -m MIX        comma-separated request kinds used in turn (default id,sdr):\n"
		"                id   Get Device ID: must equal the setup reference\n"
		"                sdr  Get SDR record 0 (reservation 0), offset (7i mod\n"
		"                     length), 8 + i mod 9 bytes: next-record id + record\n"
		"                     bytes read in the setup phase\n"
		"                ipmb Get Device ID of IPMB 0x%02x on channel 0 (bridged)\n"
		"  --misuse      every 4th client does one bad call (bad pointers, lengths,\n"
		"                unknown ioctls, read/write, RECEIVE on an empty queue)\n"
		"                before each request; each must\n"
		"                fail with the expected errno; plus one extra client per\n"
		"                device that sends %d requests and exits without reading\n"
		"  --linger MS   after the last answer keep receiving for duplicates or late\n"
		"                answers (default 200)\n"
		"  --deadline S  kill clients still running after S seconds (default 600)\n"
		"  --duration S  send for S seconds (decimals ok) instead of N requests:\n"
		"                -n is then only the most a client sends (default %d),\n"
		"                and requests counts what was sent\n"
		"  -k            key=value lines (one per device and one dev=total)\n"
		"  -v            report every problem on stderr (default: first %d/client)\n"
		"  -h, --help    this help\n"
		"\n"
		"Counters: requests = clients x N; ok; lost (no answer in time); dup (a\n"
		"second answer); late (an answer after its timeout); misrouted (a message\n"
		"that is not an answer to one of this client's requests); bad (answered,\n"
		"wrong content/type/netfn/cmd/address); send_err, recv_err (ioctl/poll\n"
		"errors); spurious (poll said readable, queue empty: reported only).\n"
		"Errors by kind (-k: send_errnos=, bad_ccs=, misuse_errnos=): the errno of\n"
		"each failed SEND, the completion code of each bad answer that had a\n"
		"nonzero one, the errno each misuse call got.\n"
		"Latency p50/p99: SEND to matching RECEIVE, in microseconds.\n"
		"\n"
		"Exit: 0 every request answered correctly exactly once (and with --misuse\n"
		"every bad call failed as expected); 1 otherwise; 2 usage error or a node\n"
		"could not be opened.\n",
		prog, MAX_WINDOW, IPMB_SLAVE, ABORTER_SENDS, DURATION_N,
		MAX_REPORTS);
}

static int parse_ulong(const char *opt, const char *s, unsigned long min,
		       unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
		fprintf(stderr, "%s: bad value for %s: '%s' (%lu..%lu)\n", prog,
			opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* SECONDS, decimals allowed, > 0 and at most a day, into ms (at least 1) */
static int parse_seconds(const char *opt, const char *s, unsigned int *ms)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !(d > 0) || d > 86400) {
		fprintf(stderr, "%s: bad value for %s: '%s'\n", prog, opt, s);
		return -1;
	}
	*ms = (unsigned int)(d * 1000 + 0.5);
	if (!*ms)
		*ms = 1;
	return 0;
}

static int parse_mix(const char *s)
{
	char buf[64], *save = NULL, *tok;

	if (strlen(s) >= sizeof(buf)) {
		fprintf(stderr, "%s: -m too long\n", prog);
		return -1;
	}
	strcpy(buf, s);
	o.nmix = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int k = -1;

		for (int i = 0; i < 3; i++)
			if (!strcmp(tok, kind_names[i]))
				k = i;
		if (k < 0 || o.nmix >= MAX_MIX) {
			fprintf(stderr,
				"%s: bad -m '%s' (want id, sdr, ipmb, comma separated, at most %d)\n",
				prog, s, MAX_MIX);
			return -1;
		}
		o.mix[o.nmix++] = (enum kind)k;
	}
	if (!o.nmix) {
		fprintf(stderr, "%s: empty -m\n", prog);
		return -1;
	}
	strcpy(o.mix_str, s);
	return 0;
}

static int parse_args(int argc, char **argv)
{
	enum { O_MISUSE = 256, O_LINGER, O_DEADLINE, O_DURATION };
	static const struct option lopts[] = {
		{ "misuse", no_argument, NULL, O_MISUSE },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "linger", required_argument, NULL, O_LINGER },
		{ "deadline", required_argument, NULL, O_DEADLINE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	bool have_n = false;
	int c;

	o.clients = 4;
	o.n = 100;
	o.window = 1;
	o.timeout_ms = 10000;
	o.linger_ms = 200;
	o.deadline_s = 600;
	if (parse_mix("id,sdr"))
		return -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:n:w:t:m:kvh", lopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'c':
			if (parse_ulong("-c", optarg, 1, MAX_CLIENTS, &v))
				return -1;
			o.clients = (unsigned int)v;
			break;
		case 'n':
			if (parse_ulong("-n", optarg, 1, MAX_N, &v))
				return -1;
			o.n = v;
			have_n = true;
			break;
		case 'w':
			if (parse_ulong("-w", optarg, 1, MAX_WINDOW, &v))
				return -1;
			o.window = (unsigned int)v;
			break;
		case 't':
			if (parse_seconds("-t", optarg, &o.timeout_ms))
				return -1;
			break;
		case O_DURATION:
			if (parse_seconds("--duration", optarg, &o.duration_ms))
				return -1;
			break;
		case 'm':
			if (parse_mix(optarg))
				return -1;
			break;
		case O_MISUSE:
			o.misuse = true;
			break;
		case O_LINGER:
			if (parse_ulong("--linger", optarg, 0, 600000, &v))
				return -1;
			o.linger_ms = (unsigned int)v;
			break;
		case O_DEADLINE:
			if (parse_ulong("--deadline", optarg, 1, 86400, &v))
				return -1;
			o.deadline_s = (unsigned int)v;
			break;
		case 'k':
			o.kv = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			fprintf(stderr, "%s: option %s needs a value\n", prog,
				argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "%s: unknown option %s\n", prog,
				argv[optind - 1]);
			return -1;
		}
	}
	if (o.duration_ms && !have_n)
		o.n = DURATION_N;
	if (optind >= argc) {
		fprintf(stderr, "%s: no device given\n", prog);
		return -1;
	}
	if (argc - optind > MAX_DEVS) {
		fprintf(stderr, "%s: at most %d devices\n", prog, MAX_DEVS);
		return -1;
	}
	for (int i = optind; i < argc; i++)
		o.devs[o.ndev++] = argv[i];
	return 0;
}

struct agg {
	unsigned int clients, setup_failed, crashed, misusers;
	uint64_t requests, ok, lost, dup, late, misrouted, bad, send_err;
	uint64_t recv_err, spurious, misuse_calls, misuse_wrong;
	uint64_t send_errno[ERRNO_SLOTS], bad_cc[256];
	uint64_t misuse_errno[ERRNO_SLOTS];
	uint64_t *lat;
	size_t nlat;
};

static void add_client(struct agg *a, const struct cres *r, bool crashed)
{
	/* with --duration: what the client sent (or tried to) */
	uint64_t requests = o.duration_ms ? r->issued : o.n;
	uint64_t answered;

	a->clients++;
	a->requests += requests;
	a->misusers += r->misuser;
	if (r->state == CS_SETUP_FAILED || r->state == CS_INIT) {
		a->setup_failed++;
		return;
	}
	a->ok += r->ok;
	a->lost += r->lost;
	a->dup += r->dup;
	a->late += r->late;
	a->misrouted += r->misrouted;
	a->bad += r->bad;
	a->send_err += r->send_err;
	a->recv_err += r->recv_err;
	a->spurious += r->spurious;
	a->misuse_calls += r->misuse_calls;
	a->misuse_wrong += r->misuse_wrong;
	for (int i = 0; i < ERRNO_SLOTS; i++) {
		a->send_errno[i] += r->send_errno[i];
		a->misuse_errno[i] += r->misuse_errno[i];
	}
	for (int i = 0; i < 256; i++)
		a->bad_cc[i] += r->bad_cc[i];
	if (crashed) {
		/* killed or died before finishing: unaccounted = lost */
		a->crashed++;
		answered = r->ok + r->bad + r->lost + r->send_err;
		if (answered < requests)
			a->lost += requests - answered;
	}
	for (uint64_t i = 0; i < r->nlat && i < o.n; i++)
		a->lat[a->nlat++] = lats[(size_t)(r - results) * o.n + i];
}

static bool agg_pass(const struct agg *a)
{
	return a->ok == a->requests && !a->lost && !a->dup && !a->late &&
	       !a->misrouted && !a->bad && !a->send_err && !a->recv_err &&
	       !a->setup_failed && !a->crashed && !a->misuse_wrong;
}

/* "NAME:COUNT,..." of the nonzero errno slots, or "none" */
static void print_errnos(const char *key, const uint64_t *v)
{
	const char *sep = "";

	printf(" %s=", key);
	for (int i = 0; i < ERRNO_SLOTS; i++) {
		const char *name = strerrorname_np(i);

		if (!v[i])
			continue;
		if (name)
			printf("%s%s:%llu", sep, name,
			       (unsigned long long)v[i]);
		else
			printf("%s%d:%llu", sep, i, (unsigned long long)v[i]);
		sep = ",";
	}
	if (!*sep)
		printf("none");
}

static void print_ccs(const char *key, const uint64_t *v)
{
	const char *sep = "";

	printf(" %s=", key);
	for (int i = 0; i < 256; i++) {
		if (!v[i])
			continue;
		printf("%s%02x:%llu", sep, i, (unsigned long long)v[i]);
		sep = ",";
	}
	if (!*sep)
		printf("none");
}

static void print_kinds(const struct agg *a)
{
	print_errnos("send_errnos", a->send_errno);
	print_ccs("bad_ccs", a->bad_cc);
	print_errnos("misuse_errnos", a->misuse_errno);
}

static void print_agg(const char *name, struct agg *a, bool header)
{
	struct kcsmux_stats st;

	kcsmux_stats_compute(a->lat, a->nlat, &st);
	if (o.kv) {
		printf("stress: dev=%s clients=%u requests=%llu ok=%llu lost=%llu dup=%llu late=%llu misrouted=%llu bad=%llu send_err=%llu recv_err=%llu spurious=%llu setup_failed=%u crashed=%u misuse_clients=%u misuse_calls=%llu misuse_wrong=%llu p50_us=%llu p99_us=%llu max_us=%llu",
		       name, a->clients, (unsigned long long)a->requests,
		       (unsigned long long)a->ok, (unsigned long long)a->lost,
		       (unsigned long long)a->dup, (unsigned long long)a->late,
		       (unsigned long long)a->misrouted,
		       (unsigned long long)a->bad,
		       (unsigned long long)a->send_err,
		       (unsigned long long)a->recv_err,
		       (unsigned long long)a->spurious, a->setup_failed,
		       a->crashed, a->misusers,
		       (unsigned long long)a->misuse_calls,
		       (unsigned long long)a->misuse_wrong,
		       (unsigned long long)((st.p50 + 500) / 1000),
		       (unsigned long long)((st.p99 + 500) / 1000),
		       (unsigned long long)((st.max + 500) / 1000));
		print_kinds(a);
		return;
	}
	if (header)
		printf("%-16s %7s %8s %8s %5s %5s %5s %9s %5s %8s %8s %8s %8s\n",
		       "device", "clients", "requests", "ok", "lost", "dup",
		       "late", "misrouted", "bad", "send_err", "recv_err",
		       "p50_us", "p99_us");
	printf("%-16s %7u %8llu %8llu %5llu %5llu %5llu %9llu %5llu %8llu %8llu %8llu %8llu\n",
	       name, a->clients, (unsigned long long)a->requests,
	       (unsigned long long)a->ok, (unsigned long long)a->lost,
	       (unsigned long long)a->dup, (unsigned long long)a->late,
	       (unsigned long long)a->misrouted, (unsigned long long)a->bad,
	       (unsigned long long)a->send_err, (unsigned long long)a->recv_err,
	       (unsigned long long)((st.p50 + 500) / 1000),
	       (unsigned long long)((st.p99 + 500) / 1000));
}

static pid_t *pids;
static unsigned int npids;

static void kill_all(void)
{
	for (unsigned int i = 0; i < npids; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
}

int main(int argc, char **argv)
{
	int ready[2], go[2];
	unsigned int naborters, nready = 0;
	size_t shm_len;
	void *shm;
	uint64_t t_go, t_end;
	bool pass = true;
	struct agg *dagg, total;

	if (parse_args(argc, argv)) {
		fprintf(stderr, "usage: %s [options] DEV... (-h for help)\n",
			prog);
		return EXIT_SETUP;
	}
	for (unsigned int i = 0; i < o.ndev; i++) {
		int fd = open(o.devs[i], O_RDWR | O_CLOEXEC);

		if (fd < 0) {
			fprintf(stderr, "%s: cannot open %s: %s\n", prog,
				o.devs[i], strerror(errno));
			return EXIT_SETUP;
		}
		close(fd);
	}

	shm_len = o.clients * sizeof(struct cres) +
		  (size_t)o.clients * o.n * sizeof(uint64_t);
	shm = mmap(NULL, shm_len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		fprintf(stderr, "%s: mmap %zu bytes: %s\n", prog, shm_len,
			strerror(errno));
		return EXIT_SETUP;
	}
	results = shm;
	lats = (uint64_t *)(results + o.clients);
	naborters = o.misuse ? o.ndev : 0;
	pids = calloc(o.clients + naborters, sizeof(*pids));
	dagg = calloc(o.ndev, sizeof(*dagg));
	if (!pids || !dagg || pipe(ready) || pipe(go)) {
		fprintf(stderr, "%s: setup: %s\n", prog, strerror(errno));
		return EXIT_SETUP;
	}
	fflush(stdout);
	fflush(stderr);

	for (unsigned int i = 0; i < o.clients + naborters; i++) {
		pid_t pid;

		if (i < o.clients) {
			results[i].dev = (int)(i % o.ndev);
			/* every 4th client of each device */
			results[i].misuser = o.misuse && (i / o.ndev) % 4 == 3;
		}
		pid = fork();
		if (pid < 0) {
			fprintf(stderr, "%s: fork: %s\n", prog,
				strerror(errno));
			kill_all();
			return EXIT_SETUP;
		}
		if (pid == 0) {
			close(ready[0]);
			close(go[1]);
			if (i < o.clients)
				client_main((int)i, ready[1], go[0]);
			close(ready[1]);
			aborter_main((int)(i - o.clients), go[0]);
		}
		pids[npids++] = pid;
	}
	close(ready[1]);
	close(go[0]);

	/* every client finished its setup (or failed it): go */
	{
		uint64_t dl = now_ns() + (uint64_t)o.deadline_s * 1000000000ull;

		while (nready < o.clients) {
			struct pollfd p = { .fd = ready[0], .events = POLLIN };
			uint64_t now = now_ns();
			char b[64];
			ssize_t n;

			if (now >= dl)
				break;
			if (poll(&p, 1, (int)((dl - now) / 1000000ull) + 1) <=
			    0)
				continue;
			n = read(ready[0], b, sizeof(b));
			if (n <= 0)
				break; /* all clients gone */
			nready += (unsigned int)n;
		}
	}
	t_go = now_ns();
	close(go[1]);

	/* reap, with a deadline */
	{
		uint64_t dl = t_go + (uint64_t)o.deadline_s * 1000000000ull;
		unsigned int left = npids;
		bool killed = false;

		while (left) {
			int status;
			pid_t p = waitpid(-1, &status, WNOHANG);

			if (p > 0) {
				for (unsigned int i = 0; i < npids; i++)
					if (pids[i] == p)
						pids[i] = -1;
				left--;
				continue;
			}
			if (p < 0 && errno != EINTR)
				break;
			if (!killed && now_ns() >= dl) {
				fprintf(stderr,
					"%s: deadline of %u s passed: killing %u clients\n",
					prog, o.deadline_s, left);
				kill_all();
				killed = true;
			}
			usleep(10000);
		}
	}
	t_end = now_ns();

	memset(&total, 0, sizeof(total));
	total.lat = calloc((size_t)o.clients * o.n + 1, sizeof(uint64_t));
	for (unsigned int d = 0; d < o.ndev; d++)
		dagg[d].lat = calloc((size_t)o.clients * o.n / o.ndev + o.n + 1,
				     sizeof(uint64_t));
	for (unsigned int i = 0; i < o.clients; i++) {
		const struct cres *r = &results[i];
		bool crashed = r->state == CS_READY;

		if (!total.lat || !dagg[r->dev].lat) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return EXIT_SETUP;
		}
		if (r->state == CS_SETUP_FAILED || r->state == CS_INIT)
			fprintf(stderr,
				"%s: client %u (%s): setup failed: %s\n", prog,
				i, o.devs[r->dev],
				r->err[0] ? r->err : "(did not report)");
		else if (crashed)
			fprintf(stderr, "%s: client %u (%s): did not finish\n",
				prog, i, o.devs[r->dev]);
		add_client(&dagg[r->dev], r, crashed);
		add_client(&total, r, crashed);
	}

	if (!o.kv && o.duration_ms)
		printf("%s: clients=%u duration_ms=%u (at most %lu requests/client) window=%u timeout_ms=%u mix=%s misuse=%s devices=%u\n",
		       prog, o.clients, o.duration_ms, o.n, o.window,
		       o.timeout_ms, o.mix_str, o.misuse ? "on" : "off",
		       o.ndev);
	else if (!o.kv)
		printf("%s: clients=%u requests/client=%lu window=%u timeout_ms=%u mix=%s misuse=%s devices=%u\n",
		       prog, o.clients, o.n, o.window, o.timeout_ms, o.mix_str,
		       o.misuse ? "on" : "off", o.ndev);
	for (unsigned int d = 0; d < o.ndev; d++) {
		if (!dagg[d].clients)
			continue;
		print_agg(o.devs[d], &dagg[d], d == 0);
		if (o.kv)
			printf(" result=%s\n",
			       agg_pass(&dagg[d]) ? "pass" : "fail");
	}
	pass = agg_pass(&total);
	print_agg("total", &total, false);
	if (o.kv) {
		printf(" aborters=%u wall_ms=%llu result=%s\n", naborters,
		       (unsigned long long)((t_end - t_go) / 1000000ull),
		       pass ? "pass" : "fail");
	} else {
		printf("misuse_clients=%u misuse_calls=%llu misuse_wrong=%llu aborters=%u spurious_pollin=%llu setup_failed=%u crashed=%u wall_ms=%llu\n",
		       total.misusers, (unsigned long long)total.misuse_calls,
		       (unsigned long long)total.misuse_wrong, naborters,
		       (unsigned long long)total.spurious, total.setup_failed,
		       total.crashed,
		       (unsigned long long)((t_end - t_go) / 1000000ull));
		printf("errors by kind:");
		print_kinds(&total);
		printf("\nresult: %s\n", pass ? "PASS" : "FAIL");
	}
	fflush(stdout);
	for (unsigned int d = 0; d < o.ndev; d++)
		free(dagg[d].lat);
	free(dagg);
	free(total.lat);
	free(pids);
	munmap(shm, shm_len);
	return pass ? 0 : EXIT_FAIL;
}
