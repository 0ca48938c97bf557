// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmux-ipmi-diff: differential ABI test of two IPMI device nodes.
 *
 * Opens DEV_A and DEV_B (typically the stock /dev/ipmi0 and a kcsmux
 * /dev/ipmiN in front of an identical BMC), runs the same fixed sequence of
 * good and bad calls on each, records per step the return value, errno and
 * everything the call wrote back (struct fields, address and data bytes,
 * poll revents), and prints one table row per step with 'same' or 'DIFF'.
 * Exit 0 if every step matched, 1 if any differed, 2 on a usage error or if
 * a device could not be opened.
 *
 * Built twice: kcsmux-ipmi-diff (native) and kcsmux-ipmi-diff32 (-m32), so
 * the compat ioctl path (32-bit numbers and struct layouts) is compared the
 * same way. Static guest helper; see usage() and docs/guest-tools.md.
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
#include <time.h>
#include <unistd.h>

#include <linux/ioctl.h>
#include <linux/ipmi.h>

static const char *prog = "kcsmux-ipmi-diff";

#define EXIT_DIFF  1
#define EXIT_SETUP 2

#define RES_MAX	       2048
#define ABUF_LEN       48 /* address buffer: 40 + 8 to catch overruns */
#define DBUF_SLACK     16 /* sentinel bytes after every data buffer */
#define ADDR_FILL      0xa5
#define DATA_FILL      0x5a
#define RECV_TYPE_FILL (-7)
#define MSGID_FILL     (-7L)
#define NETFN_FILL     0xee
#define INT_FILL       0x5a5a5a5a

#if LONG_MAX > 0x7fffffffL
#define ABI_NAME  "lp64"
#define BIG_MSGID (-0x76543210fedcba99L)
#else
#define ABI_NAME  "ilp32"
#define BIG_MSGID (-0x76543211L)
#endif

/* The other ABI's struct sizes and ioctl numbers, built by hand. */
#define REQ64_SIZE  40
#define RECV64_SIZE 48
#define REQ32_SIZE  20
#define RECV32_SIZE 24
#define SEND_NR_64  _IOC(_IOC_READ, IPMI_IOC_MAGIC, 13, REQ64_SIZE)
#define RECV_TRUNC_NR_64 \
	_IOC(_IOC_READ | _IOC_WRITE, IPMI_IOC_MAGIC, 11, RECV64_SIZE)
#define SEND_NR_32 _IOC(_IOC_READ, IPMI_IOC_MAGIC, 13, REQ32_SIZE)
#define RECV_TRUNC_NR_32 \
	_IOC(_IOC_READ | _IOC_WRITE, IPMI_IOC_MAGIC, 11, RECV32_SIZE)

#define TEST_NETFN 0x32 /* OEM/group netfn used for REGISTER_FOR_CMD */

struct dev {
	const char *tag; /* "A" / "B" */
	const char *path;
	int fd;
	int fd2;	    /* second open of the same node, or -1 */
	unsigned long sent; /* SENDs that returned 0 */
	unsigned long rcvd; /* responses consumed */
	/* interface-wide state read at the start, restored at the end */
	bool have_addr, have_lun, have_maint;
	unsigned int addr, lun;
	int maint;
};

struct res {
	char s[RES_MAX];
	size_t len;
};

static struct dev devs[2];
static int resp_wait_ms = 5000;
static int event_wait_ms = 300;
static int cur_step;

/* ------------------------------------------------------------------ */
/* result text */

static void rpf(struct res *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void rpf(struct res *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->len >= sizeof(r->s) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(r->s + r->len, sizeof(r->s) - r->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	r->len += (size_t)n;
	if (r->len >= sizeof(r->s))
		r->len = sizeof(r->s) - 1;
}

static const char *ename(int e)
{
	static char buf[24];

	switch (e) {
	case EPERM:
		return "EPERM";
	case ENOENT:
		return "ENOENT";
	case EINTR:
		return "EINTR";
	case EIO:
		return "EIO";
	case ENXIO:
		return "ENXIO";
	case EBADF:
		return "EBADF";
	case EAGAIN:
		return "EAGAIN";
	case ENOMEM:
		return "ENOMEM";
	case EACCES:
		return "EACCES";
	case EFAULT:
		return "EFAULT";
	case EBUSY:
		return "EBUSY";
	case ENODEV:
		return "ENODEV";
	case EINVAL:
		return "EINVAL";
	case ENOTTY:
		return "ENOTTY";
	case ENOSPC:
		return "ENOSPC";
	case ERANGE:
		return "ERANGE";
	case ENOSYS:
		return "ENOSYS";
	case EMSGSIZE:
		return "EMSGSIZE";
	case EPROTO:
		return "EPROTO";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EAFNOSUPPORT:
		return "EAFNOSUPPORT";
	case ETIMEDOUT:
		return "ETIMEDOUT";
	case ECONNRESET:
		return "ECONNRESET";
	case ENOTCONN:
		return "ENOTCONN";
	default:
		snprintf(buf, sizeof(buf), "errno%d", e);
		return buf;
	}
}

static void rrv(struct res *r, long rv, int e)
{
	if (rv >= 0)
		rpf(r, "%ld", rv);
	else
		rpf(r, "-1 %s", ename(e));
}

static int64_t mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void rhex(struct res *r, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rpf(r, "%s%02x", i ? " " : "", p[i]);
}

static void revents_str(struct res *r, short ev)
{
	static const struct {
		short bit;
		const char *name;
	} names[] = {
		{ POLLIN, "IN" },	  { POLLPRI, "PRI" },
		{ POLLOUT, "OUT" },	  { POLLERR, "ERR" },
		{ POLLHUP, "HUP" },	  { POLLNVAL, "NVAL" },
		{ POLLRDNORM, "RDNORM" }, { POLLRDBAND, "RDBAND" },
		{ POLLWRNORM, "WRNORM" }, { POLLWRBAND, "WRBAND" },
	};
	bool first = true;

	if (!ev) {
		rpf(r, "0");
		return;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (ev & names[i].bit) {
			rpf(r, "%s%s", first ? "" : "|", names[i].name);
			ev = (short)(ev & ~names[i].bit);
			first = false;
		}
	}
	if (ev)
		rpf(r, "%s0x%x", first ? "" : "|", (unsigned short)ev);
}

/* little-endian helpers for the hand-built structs */
static __attribute__((unused)) void put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static __attribute__((unused)) void put32(unsigned char *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static __attribute__((unused)) void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static __attribute__((unused)) uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static __attribute__((unused)) uint32_t get32(const unsigned char *p)
{
	return get16(p) | ((uint32_t)get16(p + 2) << 16);
}

static __attribute__((unused)) uint64_t get64(const unsigned char *p)
{
	return get32(p) | ((uint64_t)get32(p + 4) << 32);
}

/* ------------------------------------------------------------------ */
/* addresses */

union xaddr {
	struct ipmi_addr any;
	struct ipmi_system_interface_addr si;
	struct ipmi_ipmb_addr ipmb;
	struct ipmi_lan_addr lan;
	unsigned char raw[sizeof(struct ipmi_addr)];
};

static unsigned int mk_si(union xaddr *a, short channel, unsigned char lun)
{
	memset(a, 0, sizeof(*a));
	a->si.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
	a->si.channel = channel;
	a->si.lun = lun;
	return sizeof(a->si);
}

static unsigned int mk_ipmb(union xaddr *a, short channel, unsigned char slave,
			    unsigned char lun)
{
	memset(a, 0, sizeof(*a));
	a->ipmb.addr_type = IPMI_IPMB_ADDR_TYPE;
	a->ipmb.channel = channel;
	a->ipmb.slave_addr = slave;
	a->ipmb.lun = lun;
	return sizeof(a->ipmb);
}

/* ------------------------------------------------------------------ */
/* calls */

static long msgid_of(int k)
{
	return 1000L + cur_step * 8L + k;
}

static int do_send_full(struct dev *d, struct res *r, const void *addr,
			unsigned int addr_len, long msgid, uint8_t netfn,
			uint8_t cmd, const void *data, unsigned int data_len)
{
	struct ipmi_req req, copy;
	int rv, e;

	memset(&req, 0, sizeof(req));
	req.addr = (unsigned char *)(uintptr_t)addr;
	req.addr_len = addr_len;
	req.msgid = msgid;
	req.msg.netfn = netfn;
	req.msg.cmd = cmd;
	req.msg.data_len = (unsigned short)data_len;
	req.msg.data = (unsigned char *)(uintptr_t)data;
	copy = req;
	errno = 0;
	rv = ioctl(d->fd, IPMICTL_SEND_COMMAND, &req);
	e = errno;
	rrv(r, rv, e);
	if (memcmp(&copy, &req, sizeof(req)))
		rpf(r, " (request struct modified)");
	if (rv == 0)
		d->sent++;
	return rv;
}

/* A request to the BMC's system interface (channel 15, lun 0). */
static int send_si(struct dev *d, struct res *r, int k, uint8_t netfn,
		   uint8_t cmd, const void *data, unsigned int data_len)
{
	union xaddr a;
	unsigned int len = mk_si(&a, IPMI_BMC_CHANNEL, 0);

	return do_send_full(d, r, &a, len, msgid_of(k), netfn, cmd, data,
			    data_len);
}

static int send_devid(struct dev *d, struct res *r, int k)
{
	return send_si(d, r, k, IPMI_NETFN_APP_REQUEST, IPMI_GET_DEVICE_ID_CMD,
		       NULL, 0);
}

static int do_settime(struct dev *d, struct res *r, const void *addr,
		      unsigned int addr_len, long msgid, uint8_t netfn,
		      uint8_t cmd, const void *data, unsigned int data_len,
		      int retries, unsigned int retry_ms)
{
	struct ipmi_req_settime req, copy;
	int rv, e;

	memset(&req, 0, sizeof(req));
	req.req.addr = (unsigned char *)(uintptr_t)addr;
	req.req.addr_len = addr_len;
	req.req.msgid = msgid;
	req.req.msg.netfn = netfn;
	req.req.msg.cmd = cmd;
	req.req.msg.data_len = (unsigned short)data_len;
	req.req.msg.data = (unsigned char *)(uintptr_t)data;
	req.retries = retries;
	req.retry_time_ms = retry_ms;
	copy = req;
	errno = 0;
	rv = ioctl(d->fd, IPMICTL_SEND_COMMAND_SETTIME, &req);
	e = errno;
	rrv(r, rv, e);
	if (memcmp(&copy, &req, sizeof(req)))
		rpf(r, " (request struct modified)");
	if (rv == 0)
		d->sent++;
	return rv;
}

/* What a RECEIVE left in the caller's struct, whatever the layout. */
struct rview {
	int32_t type;
	uint32_t alen;
	int64_t msgid;
	uint8_t netfn, cmd;
	uint16_t dlen;
	bool ptrs_changed;
	uint32_t in_alen; /* what we passed */
	uint16_t in_dlen;
};

static void fmt_recv(struct res *r, const struct rview *v,
		     const unsigned char *abuf, const unsigned char *dbuf,
		     unsigned int bufsize)
{
	bool untouched = v->type == RECV_TYPE_FILL && v->alen == v->in_alen &&
			 v->msgid == MSGID_FILL && v->netfn == NETFN_FILL &&
			 v->cmd == NETFN_FILL && v->dlen == v->in_dlen &&
			 !v->ptrs_changed;
	int alast = -1, dlast = -1;
	bool overrun = false;
	unsigned int show = 0;

	for (int i = 0; i < ABUF_LEN; i++)
		if (abuf[i] != ADDR_FILL)
			alast = i;
	for (unsigned int i = 0; i < bufsize; i++)
		if (dbuf[i] != DATA_FILL)
			dlast = (int)i;
	for (unsigned int i = bufsize; i < bufsize + DBUF_SLACK; i++)
		if (dbuf[i] != DATA_FILL)
			overrun = true;

	if (untouched && alast < 0 && dlast < 0 && !overrun) {
		rpf(r, " (nothing written)");
		return;
	}
	if (untouched) {
		rpf(r, " struct=untouched");
	} else {
		rpf(r,
		    " {type=%d msgid=%lld netfn=0x%02x cmd=0x%02x addr_len=%u data_len=%u}",
		    (int)v->type, (long long)v->msgid, v->netfn, v->cmd,
		    (unsigned int)v->alen, (unsigned int)v->dlen);
		if (v->ptrs_changed)
			rpf(r, " POINTERS-CHANGED");
		show = v->dlen < bufsize ? v->dlen : bufsize;
	}
	if (alast < 0) {
		rpf(r, " addr=untouched");
	} else {
		rpf(r, " addr=[");
		rhex(r, abuf, (size_t)alast + 1);
		rpf(r, "]");
	}
	if (show) {
		rpf(r, " data=[");
		rhex(r, dbuf, show);
		rpf(r, "]");
	}
	if (dlast + 1 > (int)show) {
		/* bytes written beyond the reported data_len */
		rpf(r, " data-written=[");
		rhex(r, dbuf, (size_t)dlast + 1);
		rpf(r, "]");
	}
	if (overrun)
		rpf(r, " DATA-BUFFER-OVERRUN");
}

/*
 * RECEIVE_MSG(_TRUNC) with an addr_len / data buffer of the given sizes;
 * bad_struct passes (void *)1 as the struct pointer.
 */
static int do_recv(struct dev *d, struct res *r, bool trunc,
		   unsigned int addr_len, unsigned int data_len,
		   bool bad_struct)
{
	unsigned char abuf[ABUF_LEN];
	unsigned char dbuf[1024 + DBUF_SLACK];
	struct ipmi_recv rs;
	struct rview v;
	int rv, e;

	memset(abuf, ADDR_FILL, sizeof(abuf));
	memset(dbuf, DATA_FILL, sizeof(dbuf));
	memset(&rs, 0, sizeof(rs));
	rs.recv_type = RECV_TYPE_FILL;
	rs.addr = abuf;
	rs.addr_len = addr_len;
	rs.msgid = MSGID_FILL;
	rs.msg.netfn = NETFN_FILL;
	rs.msg.cmd = NETFN_FILL;
	rs.msg.data_len = (unsigned short)data_len;
	rs.msg.data = dbuf;
	errno = 0;
	rv = ioctl(d->fd,
		   trunc ? IPMICTL_RECEIVE_MSG_TRUNC : IPMICTL_RECEIVE_MSG,
		   bad_struct ? (void *)1 : (void *)&rs);
	e = errno;
	rrv(r, rv, e);
	if (bad_struct)
		return rv;
	v = (struct rview){
		.type = rs.recv_type,
		.alen = rs.addr_len,
		.msgid = rs.msgid,
		.netfn = rs.msg.netfn,
		.cmd = rs.msg.cmd,
		.dlen = rs.msg.data_len,
		.ptrs_changed = rs.addr != abuf || rs.msg.data != dbuf,
		.in_alen = addr_len,
		.in_dlen = (uint16_t)data_len,
	};
	fmt_recv(r, &v, abuf, dbuf, data_len);
	if ((rv == 0 || (trunc && e == EMSGSIZE)) &&
	    rs.recv_type == IPMI_RESPONSE_RECV_TYPE)
		d->rcvd++;
	return rv;
}

static int recv_full(struct dev *d, struct res *r)
{
	return do_recv(d, r, true, sizeof(struct ipmi_addr), 1024, false);
}

static int do_poll_fd(int fd, struct res *r, int timeout_ms)
{
	struct pollfd p = {
		.fd = fd,
		.events = POLLIN | POLLPRI | POLLOUT | POLLRDNORM | POLLRDBAND |
			  POLLWRNORM | POLLWRBAND,
	};
	int rv, e;

	errno = 0;
	rv = poll(&p, 1, timeout_ms);
	e = errno;
	rrv(r, rv, e);
	rpf(r, " revents=");
	revents_str(r, rv > 0 ? p.revents : 0);
	return rv;
}

/* Wait for a message (up to the response timeout), reporting the poll. */
static int wait_msg(struct dev *d, struct res *r)
{
	return do_poll_fd(d->fd, r, resp_wait_ms);
}

static int int_set(struct dev *d, struct res *r, unsigned long req, int val)
{
	int v = val, rv, e;

	errno = 0;
	rv = ioctl(d->fd, req, &v);
	e = errno;
	rrv(r, rv, e);
	if (v != val)
		rpf(r, " (argument modified: %d)", v);
	return rv;
}

static int int_get(struct dev *d, struct res *r, unsigned long req, int *out)
{
	int v = INT_FILL, rv, e;

	errno = 0;
	rv = ioctl(d->fd, req, &v);
	e = errno;
	rrv(r, rv, e);
	if (v == INT_FILL)
		rpf(r, " val=untouched");
	else
		rpf(r, " val=%d (0x%x)", v, (unsigned int)v);
	if (out)
		*out = v;
	return rv;
}

static int ptr_ioctl(struct dev *d, struct res *r, unsigned long req, void *arg)
{
	int rv, e;

	errno = 0;
	rv = ioctl(d->fd, req, arg);
	e = errno;
	rrv(r, rv, e);
	return rv;
}

static int chan_set(struct dev *d, struct res *r, unsigned long req,
		    unsigned short channel, unsigned char value)
{
	struct ipmi_channel_lun_address_set s;

	memset(&s, 0x77, sizeof(s));
	s.channel = channel;
	s.value = value;
	return ptr_ioctl(d, r, req, &s);
}

static int chan_get(struct dev *d, struct res *r, unsigned long req,
		    unsigned short channel)
{
	unsigned char raw[sizeof(struct ipmi_channel_lun_address_set)];
	struct ipmi_channel_lun_address_set s;
	int rv;

	memset(&s, 0x77, sizeof(s));
	s.channel = channel;
	s.value = NETFN_FILL;
	rv = ptr_ioctl(d, r, req, &s);
	memcpy(raw, &s, sizeof(raw));
	rpf(r, " {channel=%u value=0x%02x} bytes=[", s.channel, s.value);
	rhex(r, raw, sizeof(raw));
	rpf(r, "]");
	return rv;
}

static int timing_set(struct dev *d, struct res *r, int retries,
		      unsigned int ms)
{
	struct ipmi_timing_parms t = { .retries = retries,
				       .retry_time_ms = ms };

	return ptr_ioctl(d, r, IPMICTL_SET_TIMING_PARMS_CMD, &t);
}

static int timing_get(struct dev *d, struct res *r)
{
	struct ipmi_timing_parms t = { .retries = INT_FILL,
				       .retry_time_ms = INT_FILL };
	int rv = ptr_ioctl(d, r, IPMICTL_GET_TIMING_PARMS_CMD, &t);

	rpf(r, " {retries=%d retry_time_ms=%u}", t.retries, t.retry_time_ms);
	return rv;
}

static int cmd_reg(struct dev *d, int fd, struct res *r, unsigned long req,
		   unsigned char netfn, unsigned char cmd)
{
	struct ipmi_cmdspec c = { .netfn = netfn, .cmd = cmd };
	int rv, e;

	errno = 0;
	rv = ioctl(fd, req, &c);
	e = errno;
	(void)d;
	rrv(r, rv, e);
	return rv;
}

static int cmd_reg_chans(struct dev *d, struct res *r, unsigned long req,
			 unsigned int netfn, unsigned int cmd,
			 unsigned int chans)
{
	struct ipmi_cmdspec_chans c = { .netfn = netfn,
					.cmd = cmd,
					.chans = chans };

	return ptr_ioctl(d, r, req, &c);
}

static unsigned long due(struct dev *d);
static void got_event(struct dev *d);

/*
 * Receive everything queued. If responses to successful SENDs (or, in the
 * randomized mode, events) are still missing, wait up to the response
 * timeout for them. Returns the number of
 * messages taken; their recv_type and msgid go into *r.
 */
static int drain(struct dev *d, struct res *r)
{
	int n = 0;
	int64_t t0 = mono_ms();

	for (;;) {
		struct pollfd p = { .fd = d->fd, .events = POLLIN };
		int wait = 0, rv;

		if (due(d)) {
			int64_t el = mono_ms() - t0;

			wait = el >= resp_wait_ms ? 0 : resp_wait_ms - (int)el;
		}
		rv = poll(&p, 1, wait);
		if (rv <= 0 || !(p.revents & POLLIN))
			break;
		int got = 0;

		for (;;) {
			unsigned char abuf[ABUF_LEN], dbuf[1024];
			struct ipmi_recv rs = {
				.addr = abuf,
				.addr_len = sizeof(abuf),
				.msg.data = dbuf,
				.msg.data_len = sizeof(dbuf),
			};

			if (ioctl(d->fd, IPMICTL_RECEIVE_MSG_TRUNC, &rs) < 0 &&
			    errno != EMSGSIZE)
				break;
			if (rs.recv_type == IPMI_RESPONSE_RECV_TYPE)
				d->rcvd++;
			else if (rs.recv_type == IPMI_ASYNC_EVENT_RECV_TYPE)
				got_event(d);
			rpf(r, "%s{type=%d msgid=%ld}", n ? " " : "",
			    rs.recv_type, rs.msgid);
			n++;
			got++;
			if (n >= 64)
				break;
		}
		/* POLLIN but nothing to receive (or a flood): stop here */
		if (!got || n >= 64) {
			if (!got)
				rpf(r, "%sPOLLIN-but-receive-failed",
				    n ? " " : "");
			n += !got;
			break;
		}
	}
	/* give up on responses that never came: do not wait again */
	if (d->sent > d->rcvd)
		d->rcvd = d->sent;
	while (due(d))
		got_event(d);
	return n;
}

/* ------------------------------------------------------------------ */
/* steps */

typedef void step_fn(struct dev *d, struct res *r);

/* initial state (saved for the restore at the end) */
static void s_init_addr(struct dev *d, struct res *r)
{
	int v;

	if (int_get(d, r, IPMICTL_GET_MY_ADDRESS_CMD, &v) == 0) {
		d->have_addr = true;
		d->addr = (unsigned int)v;
	}
}

static void s_init_lun(struct dev *d, struct res *r)
{
	int v;

	if (int_get(d, r, IPMICTL_GET_MY_LUN_CMD, &v) == 0) {
		d->have_lun = true;
		d->lun = (unsigned int)v;
	}
}

static void s_init_chaddr(struct dev *d, struct res *r)
{
	chan_get(d, r, IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD, 0);
}

static void s_init_chlun(struct dev *d, struct res *r)
{
	chan_get(d, r, IPMICTL_GET_MY_CHANNEL_LUN_CMD, 0);
}

static void s_init_maint(struct dev *d, struct res *r)
{
	int v;

	if (int_get(d, r, IPMICTL_GET_MAINTENANCE_MODE_CMD, &v) == 0) {
		d->have_maint = true;
		d->maint = v;
	}
}

static void s_timing_get(struct dev *d, struct res *r)
{
	timing_get(d, r);
}

/* unknown ioctls, read/write, empty queue */
static void s_tcgets(struct dev *d, struct res *r)
{
	unsigned char buf[256];

	memset(buf, 0, sizeof(buf));
	ptr_ioctl(d, r, 0x5401, buf);
}

static void s_fionread(struct dev *d, struct res *r)
{
	int v = INT_FILL;

	ptr_ioctl(d, r, FIONREAD, &v);
	if (v != INT_FILL)
		rpf(r, " val=%d", v);
}

static void s_io99(struct dev *d, struct res *r)
{
	ptr_ioctl(d, r, _IO(IPMI_IOC_MAGIC, 99), NULL);
}

static void s_send_wrong_size(struct dev *d, struct res *r)
{
	int v = 0;

	ptr_ioctl(d, r, _IOR(IPMI_IOC_MAGIC, 13, int), &v);
}

static void s_recv_nodir(struct dev *d, struct res *r)
{
	unsigned char buf[64];

	memset(buf, 0, sizeof(buf));
	ptr_ioctl(d, r, _IO(IPMI_IOC_MAGIC, 12), buf);
}

static void s_read(struct dev *d, struct res *r)
{
	unsigned char buf[64];
	ssize_t rv;
	int e;

	errno = 0;
	rv = read(d->fd, buf, sizeof(buf));
	e = errno;
	rrv(r, (long)rv, e);
}

static void s_write(struct dev *d, struct res *r)
{
	static const unsigned char buf[8] = { 0x18, 0x01 };
	ssize_t rv;
	int e;

	errno = 0;
	rv = write(d->fd, buf, sizeof(buf));
	e = errno;
	rrv(r, (long)rv, e);
}

static void s_poll0(struct dev *d, struct res *r)
{
	do_poll_fd(d->fd, r, 0);
}

static void s_recv_trunc_full(struct dev *d, struct res *r)
{
	recv_full(d, r);
}

static void s_recv_msg_full(struct dev *d, struct res *r)
{
	do_recv(d, r, false, sizeof(struct ipmi_addr), 1024, false);
}

/* The other ABI's numbers: raw structs in that ABI's layout. */
#if LONG_MAX > 0x7fffffffL
static void s_other_send(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned char req[REQ32_SIZE];
	unsigned int alen = mk_si(&a, IPMI_BMC_CHANNEL, 0);

	memset(req, 0, sizeof(req));
	put32(req + 0, (uint32_t)(uintptr_t)&a);
	put32(req + 4, alen);
	put32(req + 8, (uint32_t)msgid_of(0));
	req[12] = IPMI_NETFN_APP_REQUEST;
	req[13] = IPMI_GET_DEVICE_ID_CMD;
	if (ptr_ioctl(d, r, SEND_NR_32, req) == 0)
		d->sent++;
}

static void s_other_recv(struct dev *d, struct res *r)
{
	unsigned char rs[RECV32_SIZE];

	memset(rs, 0, sizeof(rs));
	ptr_ioctl(d, r, RECV_TRUNC_NR_32, rs);
}
#define OTHER_SEND_NAME	 "SEND via ILP32 number 0x8014690d"
#define OTHER_RECV_NAME	 "RECEIVE_MSG_TRUNC via ILP32 number 0xc018690b"
#define OTHER_RECV_FLAGS 0
#else
static void s_other_send(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned char req[REQ64_SIZE];
	unsigned int alen = mk_si(&a, IPMI_BMC_CHANNEL, 0);

	memset(req, 0, sizeof(req));
	put64(req + 0, (uint64_t)(uintptr_t)&a);
	put32(req + 8, alen);
	put64(req + 16, (uint64_t)(int64_t)msgid_of(0));
	req[24] = IPMI_NETFN_APP_REQUEST;
	req[25] = IPMI_GET_DEVICE_ID_CMD;
	put16(req + 26, 0);
	put64(req + 32, 0);
	if (ptr_ioctl(d, r, SEND_NR_64, req) == 0)
		d->sent++;
}

static void s_other_recv(struct dev *d, struct res *r)
{
	unsigned char abuf[ABUF_LEN], dbuf[1024 + DBUF_SLACK];
	unsigned char rs[RECV64_SIZE];
	struct rview v;
	int rv;

	wait_msg(d, r);
	rpf(r, "; ");
	memset(abuf, ADDR_FILL, sizeof(abuf));
	memset(dbuf, DATA_FILL, sizeof(dbuf));
	memset(rs, 0, sizeof(rs));
	put32(rs + 0, (uint32_t)RECV_TYPE_FILL);
	put64(rs + 8, (uint64_t)(uintptr_t)abuf);
	put32(rs + 16, sizeof(struct ipmi_addr));
	put64(rs + 24, (uint64_t)(int64_t)MSGID_FILL);
	rs[32] = NETFN_FILL;
	rs[33] = NETFN_FILL;
	put16(rs + 34, 1024);
	put64(rs + 40, (uint64_t)(uintptr_t)dbuf);
	rv = ptr_ioctl(d, r, RECV_TRUNC_NR_64, rs);
	v = (struct rview){
		.type = (int32_t)get32(rs),
		.alen = get32(rs + 16),
		.msgid = (int64_t)get64(rs + 24),
		.netfn = rs[32],
		.cmd = rs[33],
		.dlen = get16(rs + 34),
		.ptrs_changed = get64(rs + 8) != (uint64_t)(uintptr_t)abuf ||
				get64(rs + 40) != (uint64_t)(uintptr_t)dbuf,
		.in_alen = sizeof(struct ipmi_addr),
		.in_dlen = 1024,
	};
	fmt_recv(r, &v, abuf, dbuf, 1024);
	if (rv == 0 && v.type == IPMI_RESPONSE_RECV_TYPE)
		d->rcvd++;
}
#define OTHER_SEND_NAME	 "SEND via LP64 number 0x8028690d (Get Device ID)"
#define OTHER_RECV_NAME	 "  poll; RECEIVE_MSG_TRUNC via LP64 0xc030690b"
#define OTHER_RECV_FLAGS F_NODRAIN
#endif

/* SEND argument checks */
static void s_send_alen41(struct dev *d, struct res *r)
{
	union xaddr a;

	mk_si(&a, IPMI_BMC_CHANNEL, 0);
	do_send_full(d, r, &a, 41, msgid_of(0), 6, 1, NULL, 0);
}

static void s_send_bad_addr(struct dev *d, struct res *r)
{
	do_send_full(d, r, (void *)1, 8, msgid_of(0), 6, 1, NULL, 0);
}

static void s_send_bad_data(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned int l = mk_si(&a, IPMI_BMC_CHANNEL, 0);

	do_send_full(d, r, &a, l, msgid_of(0), 6, 1, (void *)1, 4);
}

static void s_send_len273(struct dev *d, struct res *r)
{
	static unsigned char data[300];

	send_si(d, r, 0, 6, 1, data, 273);
}

static void s_send_len271(struct dev *d, struct res *r)
{
	static unsigned char data[300];

	send_si(d, r, 0, 6, 1, data, 271);
}

static void s_send_len273_alen4(struct dev *d, struct res *r)
{
	static unsigned char data[300];
	union xaddr a;

	mk_si(&a, IPMI_BMC_CHANNEL, 0);
	do_send_full(d, r, &a, 4, msgid_of(0), 6, 1, data, 273);
}

static void s_send_bad_data_type99(struct dev *d, struct res *r)
{
	union xaddr a;

	mk_si(&a, IPMI_BMC_CHANNEL, 0);
	a.any.addr_type = 99;
	do_send_full(d, r, &a, 8, msgid_of(0), 6, 1, (void *)1, 4);
}

static void s_send_odd_netfn(struct dev *d, struct res *r)
{
	send_si(d, r, 0, 0x07, 0x01, NULL, 0);
}

static void s_send_si_chan0(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned int l = mk_si(&a, 0, 0);

	do_send_full(d, r, &a, l, msgid_of(0), 6, 1, NULL, 0);
}

static void s_send_alen4(struct dev *d, struct res *r)
{
	union xaddr a;

	mk_si(&a, IPMI_BMC_CHANNEL, 0);
	do_send_full(d, r, &a, 4, msgid_of(0), 6, 1, NULL, 0);
}

static void s_send_alen0(struct dev *d, struct res *r)
{
	union xaddr a;

	mk_si(&a, IPMI_BMC_CHANNEL, 0);
	do_send_full(d, r, &a, 0, msgid_of(0), 6, 1, NULL, 0);
}

static void s_send_type99(struct dev *d, struct res *r)
{
	union xaddr a;

	mk_si(&a, IPMI_BMC_CHANNEL, 0);
	a.any.addr_type = 99;
	do_send_full(d, r, &a, 8, msgid_of(0), 6, 1, NULL, 0);
}

static void s_send_lun5(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned int l = mk_si(&a, IPMI_BMC_CHANNEL, 5);

	do_send_full(d, r, &a, l, msgid_of(0), 6, 1, NULL, 0);
}

static void s_send_get_msg(struct dev *d, struct res *r)
{
	send_si(d, r, 0, IPMI_NETFN_APP_REQUEST, IPMI_GET_MSG_CMD, NULL, 0);
}

static void s_send_send_msg(struct dev *d, struct res *r)
{
	static const unsigned char data[8] = { 0x40, 0x72, 0x18 };

	send_si(d, r, 0, IPMI_NETFN_APP_REQUEST, IPMI_SEND_MSG_CMD, data,
		sizeof(data));
}

static void s_send_read_evbuf(struct dev *d, struct res *r)
{
	send_si(d, r, 0, IPMI_NETFN_APP_REQUEST, IPMI_READ_EVENT_MSG_BUFFER_CMD,
		NULL, 0);
}

static void s_send_ipmb_ch15(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned int l = mk_ipmb(&a, IPMI_BMC_CHANNEL, 0x72, 0);

	do_send_full(d, r, &a, l, msgid_of(0), 6, 1, NULL, 0);
}

static void s_send_ipmb_ch16(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned int l = mk_ipmb(&a, 16, 0x72, 0);

	do_send_full(d, r, &a, l, msgid_of(0), 6, 1, NULL, 0);
}

static void s_send_lan_short(struct dev *d, struct res *r)
{
	union xaddr a;

	memset(&a, 0, sizeof(a));
	a.lan.addr_type = IPMI_LAN_ADDR_TYPE;
	a.lan.channel = 1;
	do_send_full(d, r, &a, 8, msgid_of(0), 6, 1, NULL, 0);
}

/* good sends and the receive corner cases */
static void s_send_null_data300(struct dev *d, struct res *r)
{
	send_si(d, r, 0, IPMI_NETFN_APP_REQUEST, IPMI_GET_DEVICE_ID_CMD, NULL,
		300);
}

static void s_send_devid(struct dev *d, struct res *r)
{
	send_devid(d, r, 0);
}

/* Get Device ID to the system interface's LUN 2 (SMS), answered: on a
 * node whose luns key is the default the daemon answers cc d4 itself
 * (known difference lun-0-only, docs/design.md). */
static void s_devid_lun2(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned int alen = mk_si(&a, IPMI_BMC_CHANNEL, 2);

	do_send_full(d, r, &a, alen, msgid_of(0), IPMI_NETFN_APP_REQUEST,
		     IPMI_GET_DEVICE_ID_CMD, NULL, 0);
	rpf(r, "; ");
	wait_msg(d, r);
	rpf(r, "; ");
	recv_full(d, r);
}

static void s_wait(struct dev *d, struct res *r)
{
	wait_msg(d, r);
}

static void s_recv_alen4(struct dev *d, struct res *r)
{
	do_recv(d, r, false, 4, 1024, false);
}

static void s_recv_trunc_alen7(struct dev *d, struct res *r)
{
	do_recv(d, r, true, 7, 1024, false);
}

static void s_recv_msg_d2(struct dev *d, struct res *r)
{
	do_recv(d, r, false, sizeof(struct ipmi_addr), 2, false);
}

static void s_recv_trunc_d2(struct dev *d, struct res *r)
{
	do_recv(d, r, true, sizeof(struct ipmi_addr), 2, false);
}

static void s_recv_msg_alen8_d0(struct dev *d, struct res *r)
{
	do_recv(d, r, false, 8, 0, false);
}

static void s_recv_bad_struct(struct dev *d, struct res *r)
{
	do_recv(d, r, false, sizeof(struct ipmi_addr), 1024, true);
}

static void s_recv_trunc_bad_struct(struct dev *d, struct res *r)
{
	do_recv(d, r, true, sizeof(struct ipmi_addr), 1024, true);
}

static void s_recv_exact(struct dev *d, struct res *r)
{
	do_recv(d, r, false, 8, 16, false);
}

static void s_send_big_msgid(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned int l = mk_si(&a, IPMI_BMC_CHANNEL, 0);

	do_send_full(d, r, &a, l, BIG_MSGID, IPMI_NETFN_APP_REQUEST,
		     IPMI_GET_DEVICE_ID_CMD, NULL, 0);
}

static void s_send_pad_byte(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned int l = mk_si(&a, IPMI_BMC_CHANNEL, 0);

	a.raw[7] = 0x5c; /* the SI address' padding byte */
	do_send_full(d, r, &a, l, msgid_of(0), IPMI_NETFN_APP_REQUEST,
		     IPMI_GET_DEVICE_ID_CMD, NULL, 0);
}

static void s_send_alen40(struct dev *d, struct res *r)
{
	union xaddr a;

	mk_si(&a, IPMI_BMC_CHANNEL, 0);
	memset(a.raw + 8, 0xcc, sizeof(a.raw) - 8);
	do_send_full(d, r, &a, sizeof(a.raw), msgid_of(0),
		     IPMI_NETFN_APP_REQUEST, IPMI_GET_DEVICE_ID_CMD, NULL, 0);
}

static void s_send_two(struct dev *d, struct res *r)
{
	send_devid(d, r, 0);
	rpf(r, ", ");
	/* Get Self Test Results */
	send_si(d, r, 1, IPMI_NETFN_APP_REQUEST, 0x04, NULL, 0);
}

static void s_send_sdr_info(struct dev *d, struct res *r)
{
	/* Get SDR Repository Info: storage netfn 0x0a, cmd 0x20 */
	send_si(d, r, 0, 0x0a, 0x20, NULL, 0);
}

/* isolation between two opens of the same node */
static void s_open2(struct dev *d, struct res *r)
{
	int e;

	if (d->fd2 >= 0)
		close(d->fd2);
	errno = 0;
	d->fd2 = open(d->path, O_RDWR | O_CLOEXEC);
	e = errno;
	rrv(r, d->fd2 >= 0 ? 0 : -1, e);
}

static void s_poll_fd2(struct dev *d, struct res *r)
{
	if (d->fd2 < 0) {
		rpf(r, "no second fd");
		return;
	}
	do_poll_fd(d->fd2, r, 300);
}

static void s_recv_fd2(struct dev *d, struct res *r)
{
	unsigned char abuf[ABUF_LEN], dbuf[64];
	struct ipmi_recv rs = {
		.addr = abuf,
		.addr_len = sizeof(struct ipmi_addr),
		.msg.data = dbuf,
		.msg.data_len = sizeof(dbuf),
	};
	int rv, e;

	if (d->fd2 < 0) {
		rpf(r, "no second fd");
		return;
	}
	errno = 0;
	rv = ioctl(d->fd2, IPMICTL_RECEIVE_MSG_TRUNC, &rs);
	e = errno;
	rrv(r, rv, e);
	if (rv >= 0 || e == EMSGSIZE)
		rpf(r, " {type=%d msgid=%ld}", rs.recv_type, rs.msgid);
}

static void s_reg_fd2(struct dev *d, struct res *r)
{
	if (d->fd2 < 0) {
		rpf(r, "no second fd");
		return;
	}
	cmd_reg(d, d->fd2, r, IPMICTL_REGISTER_FOR_CMD, TEST_NETFN, 0x42);
}

static void s_close2(struct dev *d, struct res *r)
{
	int rv, e;

	if (d->fd2 < 0) {
		rpf(r, "no second fd");
		return;
	}
	errno = 0;
	rv = close(d->fd2);
	e = errno;
	d->fd2 = -1;
	rrv(r, rv, e);
}

/* IPMB and SETTIME */
static void s_send_ipmb72(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned int l = mk_ipmb(&a, 0, 0x72, 0);

	do_send_full(d, r, &a, l, msgid_of(0), IPMI_NETFN_APP_REQUEST,
		     IPMI_GET_DEVICE_ID_CMD, NULL, 0);
}

static void s_settime_si(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned int l = mk_si(&a, IPMI_BMC_CHANNEL, 0);

	do_settime(d, r, &a, l, msgid_of(0), IPMI_NETFN_APP_REQUEST,
		   IPMI_GET_DEVICE_ID_CMD, NULL, 0, 2, 1000);
}

static void s_settime_alen41(struct dev *d, struct res *r)
{
	union xaddr a;

	mk_si(&a, IPMI_BMC_CHANNEL, 0);
	do_settime(d, r, &a, 41, msgid_of(0), IPMI_NETFN_APP_REQUEST,
		   IPMI_GET_DEVICE_ID_CMD, NULL, 0, 2, 1000);
}

static void s_settime_bad_data(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned int l = mk_si(&a, IPMI_BMC_CHANNEL, 0);

	do_settime(d, r, &a, l, msgid_of(0), IPMI_NETFN_APP_REQUEST,
		   IPMI_GET_DEVICE_ID_CMD, (void *)1, 2, 2, 1000);
}

static void s_settime_ipmb72(struct dev *d, struct res *r)
{
	union xaddr a;
	unsigned int l = mk_ipmb(&a, 0, 0x72, 0);

	do_settime(d, r, &a, l, msgid_of(0), IPMI_NETFN_APP_REQUEST,
		   IPMI_GET_DEVICE_ID_CMD, NULL, 0, 1, 2000);
}

/* addresses and LUNs (interface-wide: restored at the end) */
static void s_set_addr_1234(struct dev *d, struct res *r)
{
	int_set(d, r, IPMICTL_SET_MY_ADDRESS_CMD, 0x1234);
}

static void s_get_addr(struct dev *d, struct res *r)
{
	int_get(d, r, IPMICTL_GET_MY_ADDRESS_CMD, NULL);
}

static void s_set_lun5(struct dev *d, struct res *r)
{
	int_set(d, r, IPMICTL_SET_MY_LUN_CMD, 5);
}

static void s_get_lun(struct dev *d, struct res *r)
{
	int_get(d, r, IPMICTL_GET_MY_LUN_CMD, NULL);
}

static void s_set_chaddr16(struct dev *d, struct res *r)
{
	chan_set(d, r, IPMICTL_SET_MY_CHANNEL_ADDRESS_CMD, 16, 0x22);
}

static void s_get_chaddr16(struct dev *d, struct res *r)
{
	chan_get(d, r, IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD, 16);
}

static void s_set_chaddr0(struct dev *d, struct res *r)
{
	chan_set(d, r, IPMICTL_SET_MY_CHANNEL_ADDRESS_CMD, 0, 0x22);
}

static void s_get_chaddr0(struct dev *d, struct res *r)
{
	chan_get(d, r, IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD, 0);
}

static void s_get_chaddr1(struct dev *d, struct res *r)
{
	chan_get(d, r, IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD, 1);
}

static void s_set_chlun0(struct dev *d, struct res *r)
{
	chan_set(d, r, IPMICTL_SET_MY_CHANNEL_LUN_CMD, 0, 3);
}

static void s_get_chlun0(struct dev *d, struct res *r)
{
	chan_get(d, r, IPMICTL_GET_MY_CHANNEL_LUN_CMD, 0);
}

static void s_get_chlun16(struct dev *d, struct res *r)
{
	chan_get(d, r, IPMICTL_GET_MY_CHANNEL_LUN_CMD, 16);
}

static void s_set_chlun16(struct dev *d, struct res *r)
{
	chan_set(d, r, IPMICTL_SET_MY_CHANNEL_LUN_CMD, 16, 1);
}

static void s_get_addr_bad(struct dev *d, struct res *r)
{
	ptr_ioctl(d, r, IPMICTL_GET_MY_ADDRESS_CMD, (void *)1);
}

static void s_set_addr_bad(struct dev *d, struct res *r)
{
	ptr_ioctl(d, r, IPMICTL_SET_MY_ADDRESS_CMD, (void *)1);
}

static void s_get_chaddr_bad(struct dev *d, struct res *r)
{
	ptr_ioctl(d, r, IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD, (void *)1);
}

/* timing parameters (per open file) */
static void s_timing_set(struct dev *d, struct res *r)
{
	timing_set(d, r, 2, 1500);
}

static void s_timing_set_default(struct dev *d, struct res *r)
{
	timing_set(d, r, -1, 0);
}

static void s_timing_set_bad(struct dev *d, struct res *r)
{
	ptr_ioctl(d, r, IPMICTL_SET_TIMING_PARMS_CMD, (void *)1);
}

static void s_timing_get_bad(struct dev *d, struct res *r)
{
	ptr_ioctl(d, r, IPMICTL_GET_TIMING_PARMS_CMD, (void *)1);
}

/* maintenance mode (interface-wide: restored at the end) */
static void s_maint_get(struct dev *d, struct res *r)
{
	int_get(d, r, IPMICTL_GET_MAINTENANCE_MODE_CMD, NULL);
}

static void s_maint_set3(struct dev *d, struct res *r)
{
	int_set(d, r, IPMICTL_SET_MAINTENANCE_MODE_CMD, 3);
}

static void s_maint_set_neg(struct dev *d, struct res *r)
{
	int_set(d, r, IPMICTL_SET_MAINTENANCE_MODE_CMD, -1);
}

static void s_maint_set1(struct dev *d, struct res *r)
{
	int_set(d, r, IPMICTL_SET_MAINTENANCE_MODE_CMD, 1);
}

static void s_maint_set2(struct dev *d, struct res *r)
{
	int_set(d, r, IPMICTL_SET_MAINTENANCE_MODE_CMD, 2);
}

static void s_maint_get_bad(struct dev *d, struct res *r)
{
	ptr_ioctl(d, r, IPMICTL_GET_MAINTENANCE_MODE_CMD, (void *)1);
}

/* events */
static void s_events_on(struct dev *d, struct res *r)
{
	int_set(d, r, IPMICTL_SET_GETS_EVENTS_CMD, 1);
}

static void s_events_collect(struct dev *d, struct res *r)
{
	int n = 0;

	/* events queued before (the backlog) or during the window */
	for (;;) {
		struct pollfd p = { .fd = d->fd, .events = POLLIN };
		unsigned char abuf[ABUF_LEN], dbuf[1024];
		struct ipmi_recv rs;

		if (poll(&p, 1, event_wait_ms) <= 0)
			break;
		memset(&rs, 0, sizeof(rs));
		rs.addr = abuf;
		rs.addr_len = sizeof(struct ipmi_addr);
		rs.msg.data = dbuf;
		rs.msg.data_len = sizeof(dbuf);
		if (ioctl(d->fd, IPMICTL_RECEIVE_MSG_TRUNC, &rs) < 0)
			break;
		rpf(r, "%s{type=%d msgid=%ld netfn=0x%02x cmd=0x%02x data=[",
		    n ? " " : "", rs.recv_type, rs.msgid, rs.msg.netfn,
		    rs.msg.cmd);
		rhex(r, dbuf,
		     rs.msg.data_len < sizeof(dbuf) ? rs.msg.data_len :
						      sizeof(dbuf));
		rpf(r, "]}");
		if (++n >= 40)
			break;
	}
	rpf(r, "%sevents=%d", n ? " " : "", n);
}

static void s_events_off(struct dev *d, struct res *r)
{
	int_set(d, r, IPMICTL_SET_GETS_EVENTS_CMD, 0);
}

static void s_events_bad(struct dev *d, struct res *r)
{
	ptr_ioctl(d, r, IPMICTL_SET_GETS_EVENTS_CMD, (void *)1);
}

/* command registration */
static void s_reg(struct dev *d, struct res *r)
{
	cmd_reg(d, d->fd, r, IPMICTL_REGISTER_FOR_CMD, TEST_NETFN, 0x42);
}

static void s_unreg(struct dev *d, struct res *r)
{
	cmd_reg(d, d->fd, r, IPMICTL_UNREGISTER_FOR_CMD, TEST_NETFN, 0x42);
}

static void s_reg_chans(struct dev *d, struct res *r)
{
	cmd_reg_chans(d, r, IPMICTL_REGISTER_FOR_CMD_CHANS, TEST_NETFN, 0x43,
		      0x1);
}

/* An empty channel mask: 0 and nothing registered, on both */
static void s_reg_chans_empty(struct dev *d, struct res *r)
{
	cmd_reg_chans(d, r, IPMICTL_REGISTER_FOR_CMD_CHANS, TEST_NETFN, 0x46,
		      0);
	rpf(r, "; then chans 0x1: ");
	cmd_reg_chans(d, r, IPMICTL_REGISTER_FOR_CMD_CHANS, TEST_NETFN, 0x46,
		      0x1);
	rpf(r, "; unregister: ");
	cmd_reg_chans(d, r, IPMICTL_UNREGISTER_FOR_CMD_CHANS, TEST_NETFN, 0x46,
		      0x1);
}

static void s_reg_overlap(struct dev *d, struct res *r)
{
	cmd_reg(d, d->fd, r, IPMICTL_REGISTER_FOR_CMD, TEST_NETFN, 0x43);
}

static void s_unreg_chans(struct dev *d, struct res *r)
{
	cmd_reg_chans(d, r, IPMICTL_UNREGISTER_FOR_CMD_CHANS, TEST_NETFN, 0x43,
		      0x1);
}

static void s_reg_chans2(struct dev *d, struct res *r)
{
	cmd_reg_chans(d, r, IPMICTL_REGISTER_FOR_CMD_CHANS, TEST_NETFN, 0x44,
		      0x2);
}

static void s_unreg_chans_other(struct dev *d, struct res *r)
{
	/* registered on channel 1 only: unregistering channel 0 */
	cmd_reg_chans(d, r, IPMICTL_UNREGISTER_FOR_CMD_CHANS, TEST_NETFN, 0x44,
		      0x1);
}

static void s_unreg_chans2(struct dev *d, struct res *r)
{
	cmd_reg_chans(d, r, IPMICTL_UNREGISTER_FOR_CMD_CHANS, TEST_NETFN, 0x44,
		      0x2);
}

static void s_reg_odd(struct dev *d, struct res *r)
{
	cmd_reg(d, d->fd, r, IPMICTL_REGISTER_FOR_CMD, TEST_NETFN + 1, 0x45);
}

static void s_unreg_odd(struct dev *d, struct res *r)
{
	cmd_reg(d, d->fd, r, IPMICTL_UNREGISTER_FOR_CMD, TEST_NETFN + 1, 0x45);
}

static void s_reg_bad(struct dev *d, struct res *r)
{
	ptr_ioctl(d, r, IPMICTL_REGISTER_FOR_CMD, (void *)1);
}

static void s_reg_chans_bad(struct dev *d, struct res *r)
{
	ptr_ioctl(d, r, IPMICTL_REGISTER_FOR_CMD_CHANS, (void *)1);
}

/* restore */
static void restore_dev(struct dev *d, struct res *r)
{
	if (d->fd < 0)
		return;
	if (d->have_addr) {
		if (r) {
			rpf(r, "addr 0x%02x: ", d->addr);
			int_set(d, r, IPMICTL_SET_MY_ADDRESS_CMD, (int)d->addr);
		} else {
			ioctl(d->fd, IPMICTL_SET_MY_ADDRESS_CMD, &d->addr);
		}
	}
	if (d->have_lun) {
		if (r) {
			rpf(r, ", lun %u: ", d->lun);
			int_set(d, r, IPMICTL_SET_MY_LUN_CMD, (int)d->lun);
		} else {
			ioctl(d->fd, IPMICTL_SET_MY_LUN_CMD, &d->lun);
		}
	}
	if (d->have_maint) {
		if (r) {
			rpf(r, ", maintenance %d: ", d->maint);
			int_set(d, r, IPMICTL_SET_MAINTENANCE_MODE_CMD,
				d->maint);
		} else {
			ioctl(d->fd, IPMICTL_SET_MAINTENANCE_MODE_CMD,
			      &d->maint);
		}
	}
}

static void s_restore(struct dev *d, struct res *r)
{
	restore_dev(d, r);
}

static void s_final_state(struct dev *d, struct res *r)
{
	rpf(r, "addr ");
	int_get(d, r, IPMICTL_GET_MY_ADDRESS_CMD, NULL);
	rpf(r, ", lun ");
	int_get(d, r, IPMICTL_GET_MY_LUN_CMD, NULL);
	rpf(r, ", maintenance ");
	int_get(d, r, IPMICTL_GET_MAINTENANCE_MODE_CMD, NULL);
}

#define F_NODRAIN 0x1 /* continues the previous step: keep the queue */
/* known difference lun-0-only: B (the node) answered cc d4 where A did not,
 * all else the same up to the answer's data */
#define F_LUN0 0x2

struct step {
	const char *name;
	step_fn *fn;
	unsigned int flags;
};

static const struct step steps[] = {
	{ "GET_MY_ADDRESS (initial)", s_init_addr, 0 },
	{ "GET_MY_LUN (initial)", s_init_lun, 0 },
	{ "GET_MY_CHANNEL_ADDRESS ch 0 (initial)", s_init_chaddr, 0 },
	{ "GET_MY_CHANNEL_LUN ch 0 (initial)", s_init_chlun, 0 },
	{ "GET_MAINTENANCE_MODE (initial)", s_init_maint, 0 },
	{ "GET_TIMING_PARMS (new file's default)", s_timing_get, 0 },

	{ "ioctl TCGETS 0x5401", s_tcgets, 0 },
	{ "ioctl FIONREAD", s_fionread, 0 },
	{ "ioctl _IO('i', 99)", s_io99, 0 },
	{ "ioctl _IOR('i', 13, int) (SEND, wrong size)", s_send_wrong_size, 0 },
	{ "ioctl _IO('i', 12) (RECEIVE, no size)", s_recv_nodir, 0 },
	{ "read() 64 bytes", s_read, 0 },
	{ "write() 8 bytes", s_write, 0 },
	{ "poll, empty queue (0 ms)", s_poll0, 0 },
	{ "RECEIVE_MSG_TRUNC, empty queue", s_recv_trunc_full, 0 },
	{ "RECEIVE_MSG, empty queue", s_recv_msg_full, 0 },
	{ "RECEIVE_MSG struct (void *)1, empty queue", s_recv_bad_struct, 0 },
	{ "RECEIVE_MSG_TRUNC struct (void *)1, empty", s_recv_trunc_bad_struct,
	  0 },
	{ OTHER_SEND_NAME, s_other_send, 0 },
	{ OTHER_RECV_NAME, s_other_recv, OTHER_RECV_FLAGS },

	{ "SEND addr_len 41", s_send_alen41, 0 },
	{ "SEND addr (void *)1", s_send_bad_addr, 0 },
	{ "SEND data (void *)1, data_len 4", s_send_bad_data, 0 },
	{ "SEND data_len 273", s_send_len273, 0 },
	{ "SEND data_len 271 (SI: +2 > 272)", s_send_len271, 0 },
	{ "SEND data_len 273 + addr_len 4 (order)", s_send_len273_alen4, 0 },
	{ "SEND data (void *)1 + addr type 99 (order)", s_send_bad_data_type99,
	  0 },
	{ "SEND odd netfn 0x07 to SI", s_send_odd_netfn, 0 },
	{ "SEND SI address, channel 0", s_send_si_chan0, 0 },
	{ "SEND addr_len 4", s_send_alen4, 0 },
	{ "SEND addr_len 0", s_send_alen0, 0 },
	{ "SEND addr type 99", s_send_type99, 0 },
	{ "SEND SI lun 5", s_send_lun5, 0 },
	{ "SEND Get Message 06/33", s_send_get_msg, 0 },
	{ "SEND Send Message 06/34", s_send_send_msg, 0 },
	{ "SEND Read Event Msg Buffer 06/35", s_send_read_evbuf, 0 },
	{ "SEND IPMB address on channel 15", s_send_ipmb_ch15, 0 },
	{ "SEND IPMB address on channel 16", s_send_ipmb_ch16, 0 },
	{ "SEND LAN address, addr_len 8", s_send_lan_short, 0 },

	{ "SEND Get Device ID, data NULL, data_len 300", s_send_null_data300,
	  0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC", s_recv_trunc_full, F_NODRAIN },

	{ "SEND Get Device ID", s_send_devid, 0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG addr_len 4 (stays)", s_recv_alen4, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC addr_len 7 (stays)", s_recv_trunc_alen7,
	  F_NODRAIN },
	{ "  RECEIVE_MSG data_len 2 (stays)", s_recv_msg_d2, F_NODRAIN },
	{ "  RECEIVE_MSG addr_len 8, data_len 0", s_recv_msg_alen8_d0,
	  F_NODRAIN },
	{ "  poll (still queued, 0 ms)", s_poll0, F_NODRAIN },
	{ "  RECEIVE_MSG struct (void *)1", s_recv_bad_struct, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC data_len 2 (consumed)", s_recv_trunc_d2,
	  F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC (queue empty again)", s_recv_trunc_full,
	  F_NODRAIN },
	{ "  poll (empty, 0 ms)", s_poll0, F_NODRAIN },

	{ "SEND Get Device ID", s_send_devid, 0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG addr_len 8, data_len 16", s_recv_exact, F_NODRAIN },
	{ "  RECEIVE_MSG (queue empty again)", s_recv_msg_full, F_NODRAIN },

	{ "SEND Get Device ID, msgid " ABI_NAME " big negative",
	  s_send_big_msgid, 0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC", s_recv_trunc_full, F_NODRAIN },

	{ "SEND Get Device ID, SI padding byte 0x5c", s_send_pad_byte, 0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC", s_recv_trunc_full, F_NODRAIN },

	{ "SEND Get Device ID, addr_len 40 + garbage", s_send_alen40, 0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC", s_recv_trunc_full, F_NODRAIN },

	{ "SEND Get SDR Repository Info 0a/20", s_send_sdr_info, 0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC", s_recv_trunc_full, F_NODRAIN },

	{ "SEND Get Device ID + Get Self Test Results", s_send_two, 0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC (first)", s_recv_trunc_full, F_NODRAIN },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC (second)", s_recv_trunc_full, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC (queue empty again)", s_recv_trunc_full,
	  F_NODRAIN },

	{ "open the node a second time", s_open2, 0 },
	{ "SEND Get Device ID on the first fd", s_send_devid, 0 },
	{ "  poll first fd (wait)", s_wait, F_NODRAIN },
	{ "  poll second fd (300 ms)", s_poll_fd2, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC on the second fd", s_recv_fd2, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC on the first fd", s_recv_trunc_full, F_NODRAIN },
	{ "close the second fd", s_close2, 0 },

	{ "SEND IPMB Get Device ID to 0x72, channel 0", s_send_ipmb72, 0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC", s_recv_trunc_full, F_NODRAIN },

	{ "SEND_COMMAND_SETTIME SI Get Device ID 2/1000", s_settime_si, 0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC", s_recv_trunc_full, F_NODRAIN },
	{ "SEND_COMMAND_SETTIME addr_len 41", s_settime_alen41, 0 },
	{ "SEND_COMMAND_SETTIME data (void *)1", s_settime_bad_data, 0 },
	{ "SEND_COMMAND_SETTIME IPMB 0x72, 1/2000", s_settime_ipmb72, 0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC", s_recv_trunc_full, F_NODRAIN },

	{ "SET_MY_ADDRESS 0x1234", s_set_addr_1234, 0 },
	{ "GET_MY_ADDRESS", s_get_addr, 0 },
	{ "SET_MY_LUN 5", s_set_lun5, 0 },
	{ "GET_MY_LUN", s_get_lun, 0 },
	{ "SET_MY_CHANNEL_ADDRESS ch 16", s_set_chaddr16, 0 },
	{ "GET_MY_CHANNEL_ADDRESS ch 16", s_get_chaddr16, 0 },
	{ "SET_MY_CHANNEL_ADDRESS ch 0 = 0x22", s_set_chaddr0, 0 },
	{ "GET_MY_CHANNEL_ADDRESS ch 0", s_get_chaddr0, 0 },
	{ "GET_MY_ADDRESS", s_get_addr, 0 },
	{ "GET_MY_CHANNEL_ADDRESS ch 1", s_get_chaddr1, 0 },
	{ "SET_MY_CHANNEL_LUN ch 0 = 3", s_set_chlun0, 0 },
	{ "GET_MY_CHANNEL_LUN ch 0", s_get_chlun0, 0 },
	{ "GET_MY_LUN", s_get_lun, 0 },
	{ "SET_MY_CHANNEL_LUN ch 16", s_set_chlun16, 0 },
	{ "GET_MY_CHANNEL_LUN ch 16", s_get_chlun16, 0 },
	{ "GET_MY_ADDRESS (void *)1", s_get_addr_bad, 0 },
	{ "SET_MY_ADDRESS (void *)1", s_set_addr_bad, 0 },
	{ "GET_MY_CHANNEL_ADDRESS (void *)1", s_get_chaddr_bad, 0 },

	{ "SET_TIMING_PARMS 2/1500", s_timing_set, 0 },
	{ "GET_TIMING_PARMS", s_timing_get, 0 },
	{ "SET_TIMING_PARMS -1/0", s_timing_set_default, 0 },
	{ "GET_TIMING_PARMS", s_timing_get, 0 },
	{ "SET_TIMING_PARMS (void *)1", s_timing_set_bad, 0 },
	{ "GET_TIMING_PARMS (void *)1", s_timing_get_bad, 0 },

	{ "GET_MAINTENANCE_MODE", s_maint_get, 0 },
	{ "SET_MAINTENANCE_MODE 3", s_maint_set3, 0 },
	{ "SET_MAINTENANCE_MODE -1", s_maint_set_neg, 0 },
	{ "SET_MAINTENANCE_MODE 1 (off)", s_maint_set1, 0 },
	{ "GET_MAINTENANCE_MODE", s_maint_get, 0 },
	{ "SET_MAINTENANCE_MODE 2 (on)", s_maint_set2, 0 },
	{ "GET_MAINTENANCE_MODE", s_maint_get, 0 },
	{ "GET_MAINTENANCE_MODE (void *)1", s_maint_get_bad, 0 },

	{ "SET_GETS_EVENTS 1", s_events_on, 0 },
	{ "  messages within the event window", s_events_collect, F_NODRAIN },
	{ "SET_GETS_EVENTS 0", s_events_off, 0 },
	{ "SET_GETS_EVENTS (void *)1", s_events_bad, 0 },

	{ "REGISTER_FOR_CMD 32/42", s_reg, 0 },
	{ "REGISTER_FOR_CMD 32/42 again", s_reg, 0 },
	{ "open the node a second time", s_open2, 0 },
	{ "REGISTER_FOR_CMD 32/42 on the second fd", s_reg_fd2, 0 },
	{ "close the second fd", s_close2, 0 },
	{ "UNREGISTER_FOR_CMD 32/42", s_unreg, 0 },
	{ "UNREGISTER_FOR_CMD 32/42 again", s_unreg, 0 },
	{ "REGISTER_FOR_CMD_CHANS 32/43 chans 0x1", s_reg_chans, 0 },
	{ "REGISTER_FOR_CMD_CHANS 32/43 chans 0x1 again", s_reg_chans, 0 },
	{ "REGISTER_FOR_CMD 32/43 (all channels)", s_reg_overlap, 0 },
	{ "UNREGISTER_FOR_CMD_CHANS 32/43 chans 0x1", s_unreg_chans, 0 },
	{ "UNREGISTER_FOR_CMD_CHANS 32/43 chans 0x1 again", s_unreg_chans, 0 },
	{ "REGISTER_FOR_CMD_CHANS 32/44 chans 0x2", s_reg_chans2, 0 },
	{ "UNREGISTER_FOR_CMD_CHANS 32/44 chans 0x1", s_unreg_chans_other, 0 },
	{ "UNREGISTER_FOR_CMD_CHANS 32/44 chans 0x2", s_unreg_chans2, 0 },
	{ "REGISTER_FOR_CMD 33/45 (odd netfn)", s_reg_odd, 0 },
	{ "UNREGISTER_FOR_CMD 33/45", s_unreg_odd, 0 },
	{ "REGISTER_FOR_CMD (void *)1", s_reg_bad, 0 },
	{ "REGISTER_FOR_CMD_CHANS (void *)1", s_reg_chans_bad, 0 },
	{ "REGISTER_FOR_CMD_CHANS 32/46 empty mask", s_reg_chans_empty, 0 },
	{ "SEND + RECEIVE Get Device ID to SI LUN 2", s_devid_lun2, F_LUN0 },

	{ "restore initial address, LUN, maintenance", s_restore, 0 },
	{ "final address, LUN, maintenance", s_final_state, 0 },
	{ "poll, empty queue at the end (0 ms)", s_poll0, 0 },
};

/* ------------------------------------------------------------------ */
/*
 * Randomized mode (-r SEED -k SEEDS -n STEPS): per seed, both devices are
 * opened afresh and get the same pseudo-random sequence of good and bad
 * calls, interleaved, without draining between them: every ioctl (native
 * numbers; the compat ones in the -m32 build), every address type, channels
 * 0-15 and beyond, LUNs, NULL / (void *)1 / unmapped pointers for the
 * struct, address and data, sizes at and past each limit, registrations
 * (also from a second open file), events on and off with Platform Event
 * Messages that make the BMC raise an event by itself, RECEIVE and poll on
 * empty and full queues, and up to MAX_INFLIGHT requests in flight while
 * other calls fail. Each step's return value, errno and everything written
 * back are compared.
 *
 * What would depend on timing is not generated: a call whose result depends
 * on whether a message has arrived yet (RECEIVE, poll) first waits until
 * one is queued when some are due, so it sees the first of them on both
 * devices; events are turned off and raised only with nothing in flight;
 * IPMB requests go to the one IPMB controller that answers (0x72 on
 * channel 0) or are refused before they leave.
 *
 * Differences CUSE cannot close are known by name (docs/differences.md):
 * counted as known when the two results differ exactly in
 * the documented way, as mismatches otherwise.
 */
#include <sys/mman.h>

#define MAX_INFLIGHT 4

enum rclass {
	RC_SEND_SI,
	RC_SEND_BAD,
	RC_SEND_IPMB,
	RC_SEND_LAN,
	RC_SETTIME,
	RC_RECV,
	RC_RECV_BADPTR,
	RC_POLL,
	RC_INTS,
	RC_CHAN,
	RC_TIMING,
	RC_MAINT,
	RC_REG,
	RC_EVENTS,
	RC_PLATFORM_EVENT,
	RC_UNKNOWN_IOCTL,
	RC_RECV_RDONLY,
	RC_COUNT
};

static const char *const rclass_name[RC_COUNT] = {
	"send-si",	 "send-bad",	  "send-ipmb",	  "send-lan",
	"settime",	 "recv",	  "recv-badptr",  "poll",
	"my-addr-lun",	 "chan-addr-lun", "timing",	  "maintenance",
	"register",	 "events",	  "sensor-event", "unknown-ioctl",
	"recv-readonly",
};

/* Known differences, by name (docs/differences.md). */
enum known {
	K_NONE,
	K_SEND_ORDER,	   /* invalid address + bad data: EFAULT vs EINVAL */
	K_RECV_RDONLY,	   /* read-only RECEIVE buffer: message consumed */
	K_RECV_ADDR_FIRST, /* bad data buffer: stock wrote the address */
	K_COUNT
};

static const char *const known_name[K_COUNT] = {
	"-",
	"send-baddata-before-addr-check",
	"recv-readonly-buffer-consumes",
	"recv-baddata-addr-not-written",
};

struct rstat {
	unsigned long steps, diff, known;
};

static uint64_t rng;

static uint32_t rnd(void)
{
	/* xorshift64*: the same sequence on every host for a seed */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

enum pkind { P_OK, P_NULL, P_ONE, P_UNMAPPED, P_KINDS };

static void *unmapped_page;
static void *rdonly_page;

static void *ptr_of(enum pkind k, void *ok)
{
	switch (k) {
	case P_NULL:
		return NULL;
	case P_ONE:
		return (void *)1;
	case P_UNMAPPED:
		return unmapped_page;
	default:
		return ok;
	}
}

static const char *pkind_name(enum pkind k)
{
	static const char *const n[P_KINDS] = { "ok", "NULL", "(void *)1",
						"unmapped" };
	return n[k];
}

/* What is due on a device: responses to accepted SENDs, expected events. */
struct rdev {
	unsigned long ev_due, ev_got;
	int64_t sel_add_ms; /* when an event was last logged, monotonic */
	bool bridged;	    /* a bridged (IPMB/LAN) request is due */
	bool events_on;
	bool fd2_open;
};

static struct rdev rdevs[2];

/* "b8 be 00 00" (rhex's bytes) as a little-endian number, or -1 */
static long hex_le32(const char *p)
{
	long v = 0;

	for (int i = 3; i >= 0; i--) {
		unsigned int byte;

		if (sscanf(p + 3 * i, "%2x", &byte) != 1)
			return -1;
		v = v << 8 | (long)byte;
	}
	return v;
}

static unsigned long due(struct dev *d)
{
	struct rdev *x = &rdevs[d == &devs[1]];

	return (d->sent - d->rcvd) + (x->ev_due - x->ev_got);
}

static void got_event(struct dev *d)
{
	struct rdev *x = &rdevs[d == &devs[1]];

	if (x->ev_got < x->ev_due)
		x->ev_got++;
}

/* Before a call whose result depends on the queue: if something is due,
 * wait until it is queued (the first due message is then the same on both
 * devices). Not part of the result. */
static void settle(struct dev *d)
{
	struct pollfd p = { .fd = d->fd, .events = POLLIN };

	if (due(d))
		poll(&p, 1, resp_wait_ms);
}

/* The parameters of one step, drawn once and applied to both devices. */
struct rop {
	enum rclass cls;
	unsigned int v[12];
	char desc[96];
};

static void count_recv(struct dev *d, int32_t type, bool consumed)
{
	if (!consumed)
		return;
	if (type == IPMI_RESPONSE_RECV_TYPE)
		d->rcvd++;
	else if (type == IPMI_ASYNC_EVENT_RECV_TYPE)
		got_event(d);
}

/* RECEIVE with every argument chosen; consumption tracked for due(). */
static void r_recv(struct dev *d, struct res *r, bool trunc,
		   unsigned int addr_len, unsigned int data_len, enum pkind sk,
		   enum pkind ak, enum pkind dk, void *rdonly)
{
	static unsigned char abuf[ABUF_LEN];
	static unsigned char dbuf[1024 + DBUF_SLACK];
	struct ipmi_recv rs;
	struct rview v;
	void *arg;
	int rv, e;

	memset(abuf, ADDR_FILL, sizeof(abuf));
	memset(dbuf, DATA_FILL, sizeof(dbuf));
	memset(&rs, 0, sizeof(rs));
	rs.recv_type = RECV_TYPE_FILL;
	rs.addr = ptr_of(ak, abuf);
	rs.addr_len = addr_len;
	rs.msgid = MSGID_FILL;
	rs.msg.netfn = NETFN_FILL;
	rs.msg.cmd = NETFN_FILL;
	rs.msg.data_len = (unsigned short)data_len;
	rs.msg.data = rdonly ? rdonly : ptr_of(dk, dbuf);
	arg = sk == P_OK ? (void *)&rs : ptr_of(sk, NULL);
	errno = 0;
	rv = ioctl(d->fd,
		   trunc ? IPMICTL_RECEIVE_MSG_TRUNC : IPMICTL_RECEIVE_MSG,
		   arg);
	e = errno;
	rrv(r, rv, e);
	if (sk != P_OK)
		return;
	if (ak != P_OK || dk != P_OK || rdonly) {
		/* what the struct says; the buffers are not ours to show */
		if (rs.recv_type != RECV_TYPE_FILL)
			rpf(r,
			    " {type=%d msgid=%ld netfn=0x%02x cmd=0x%02x "
			    "addr_len=%u data_len=%u}",
			    rs.recv_type, rs.msgid, rs.msg.netfn, rs.msg.cmd,
			    rs.addr_len, rs.msg.data_len);
		else
			rpf(r, " struct=untouched");
		if (ak == P_OK && abuf[0] != ADDR_FILL) {
			rpf(r, " addr=[");
			rhex(r, abuf, 8);
			rpf(r, "]");
		}
	} else {
		v = (struct rview){
			.type = rs.recv_type,
			.alen = rs.addr_len,
			.msgid = rs.msgid,
			.netfn = rs.msg.netfn,
			.cmd = rs.msg.cmd,
			.dlen = rs.msg.data_len,
			.ptrs_changed = rs.addr != abuf || rs.msg.data != dbuf,
			.in_alen = addr_len,
			.in_dlen = (uint16_t)data_len,
		};
		fmt_recv(r, &v, abuf, dbuf, data_len < 1024 ? data_len : 1024);
	}
	count_recv(d, rs.recv_type, rv == 0 || (trunc && e == EMSGSIZE));
}

static const unsigned int addr_lens[] = { 0,  4,  7,  8,    12,
					  39, 40, 41, 1000, 0x7fffffff };
static const unsigned int data_lens[] = { 0,   1,   2,	 15,   16,
					  271, 272, 273, 1000, 65535 };

/* A SEND with the chosen address bytes, lengths and pointer kinds. */
static void r_send(struct dev *d, struct res *r, const union xaddr *a,
		   unsigned int alen, enum pkind ak, uint8_t netfn, uint8_t cmd,
		   unsigned int dlen, enum pkind dk, bool settime, int retries,
		   unsigned int retry_ms)
{
	static unsigned char data[1100];
	static union xaddr abuf;
	const void *ap, *dp;

	memcpy(&abuf, a, sizeof(abuf));
	memset(data, 0, sizeof(data));
	data[0] = 0x01;
	ap = ptr_of(ak, &abuf);
	dp = ptr_of(dk, data);
	if (settime)
		do_settime(d, r, ap, alen, msgid_of(0), netfn, cmd, dp, dlen,
			   retries, retry_ms);
	else
		do_send_full(d, r, ap, alen, msgid_of(0), netfn, cmd, dp, dlen);
}

/*
 * Draw one step. inflight: the most due on either device. Responses that
 * come back by different paths (a bridged request's through Send Message
 * and Get Message, a system-interface request's directly) have no order
 * either driver promises: a bridged request is sent only with nothing in
 * flight, and nothing that is answered is sent while it is due.
 */
static void draw(struct rop *op, unsigned long inflight, bool events_on,
		 bool bridged)
{
	unsigned int *v = op->v;
	unsigned int w = rn(100);

	memset(op, 0, sizeof(*op));
	for (int i = 0; i < 12; i++)
		v[i] = rnd();
	static const struct {
		unsigned int upto;
		enum rclass cls;
	} mix[] = {
		{ 14, RC_SEND_SI },
		{ 26, RC_SEND_BAD },
		{ 32, RC_SEND_IPMB },
		{ 35, RC_SEND_LAN },
		{ 39, RC_SETTIME },
		{ 52, RC_RECV },
		{ 58, RC_RECV_BADPTR },
		{ 62, RC_POLL },
		{ 66, RC_INTS },
		{ 70, RC_CHAN },
		{ 73, RC_TIMING },
		{ 76, RC_MAINT },
		{ 85, RC_REG },
		{ 89, RC_EVENTS },
		{ 95, RC_PLATFORM_EVENT },
		{ 98, RC_UNKNOWN_IOCTL },
		{ 100, RC_RECV_RDONLY },
	};

	for (size_t i = 0; i < sizeof(mix) / sizeof(mix[0]); i++) {
		if (w < mix[i].upto) {
			op->cls = mix[i].cls;
			break;
		}
	}
	/* what would depend on timing becomes a RECEIVE instead */
	if ((op->cls == RC_SEND_SI || op->cls == RC_SEND_IPMB ||
	     op->cls == RC_SETTIME) &&
	    inflight >= MAX_INFLIGHT)
		op->cls = RC_RECV;
	if ((op->cls == RC_SEND_IPMB || op->cls == RC_SEND_LAN ||
	     op->cls == RC_SETTIME) &&
	    inflight)
		op->cls = RC_RECV;
	if (bridged && inflight &&
	    (op->cls == RC_SEND_SI || op->cls == RC_SEND_BAD ||
	     op->cls == RC_PLATFORM_EVENT))
		op->cls = RC_RECV;
	if (op->cls == RC_PLATFORM_EVENT && (inflight || !events_on))
		op->cls = inflight ? RC_RECV : RC_EVENTS;
	if (op->cls == RC_RECV_RDONLY && inflight)
		op->cls = RC_RECV;
}

static enum known apply_send_si(const unsigned int *v, struct dev *d,
				struct rdev *x, struct res *r)
{
	static const uint8_t cmds[][3] = {
		{ IPMI_NETFN_APP_REQUEST, IPMI_GET_DEVICE_ID_CMD, 0 },
		{ IPMI_NETFN_APP_REQUEST, 0x04, 0 }, /* self test */
		{ IPMI_NETFN_APP_REQUEST, 0x2f, 0 }, /* enables */
		{ IPMI_NETFN_APP_REQUEST, 0x42, 1 }, /* chan info */
		{ 0x0a, 0x20, 0 },		     /* SDR info */
		{ 0x0a, 0x40, 0 },		     /* SEL info */
		{ 0x04, 0x2d, 1 },		     /* reading */
		{ 0x30, 0x7f, 0 },		     /* OEM: error */
	};
	unsigned int c = v[0] % 8, lun = v[1] % 4;
	unsigned char data[2] = { (uint8_t)(v[2] % 16), 0 };
	union xaddr a;
	unsigned int alen;

	(void)x;
	alen = mk_si(&a, IPMI_BMC_CHANNEL, (unsigned char)lun);
	rpf(r, "[%02x/%02x lun %u] ", cmds[c][0], cmds[c][1], lun);
	do_send_full(d, r, &a, alen, msgid_of((int)(v[3] % 4)), cmds[c][0],
		     cmds[c][1], cmds[c][2] ? data : NULL, cmds[c][2]);
	return K_NONE;
}

static enum known apply_send_bad(const unsigned int *v, struct dev *d,
				 struct rdev *x, struct res *r)
{
	enum pkind ak = P_OK, dk = P_OK;
	unsigned int dlen = 0, which = v[0] % 12;
	uint8_t netfn = IPMI_NETFN_APP_REQUEST, cmd = 1;
	union xaddr a;
	unsigned int alen;
	enum known k = K_NONE;

	(void)x;
	alen = mk_si(&a, IPMI_BMC_CHANNEL, 0);
	switch (which) {
	case 0: /* address length */
		alen = addr_lens[v[1] % 10];
		break;
	case 1: /* address pointer */
		ak = (enum pkind)(1 + v[1] % 3);
		break;
	case 2: /* data pointer */
		dk = (enum pkind)(1 + v[1] % 3);
		dlen = data_lens[v[2] % 10];
		break;
	case 3: /* sizes */
		dlen = data_lens[v[1] % 10];
		netfn = 0x30; /* OEM: the BMC refuses it */
		cmd = 0x7f;
		break;
	case 4: /* odd netfn, lun past 3 */
		netfn = (uint8_t)(1 + 2 * (v[1] % 32));
		a.si.lun = (unsigned char)(v[2] % 8);
		break;
	case 5: /* driver-owned commands */
		cmd = (uint8_t)(0x33 + v[1] % 3);
		break;
	case 6: /* SI address on another channel */
		a.si.channel = (short)(v[1] % 20);
		if (a.si.channel == IPMI_BMC_CHANNEL)
			a.si.channel = -1;
		break;
	case 7: /* unknown address types */
		a.si.addr_type = (int)(v[1] % 2 ? 99 : 0);
		break;
	case 8: /* IPMB direct (cannot on KCS) */
		a.si.addr_type = 0x0d;
		a.si.channel = 0;
		alen = 12;
		break;
	case 9: /* invalid address AND bad data: known order */
		a.si.addr_type = 99;
		dk = (enum pkind)(2 + v[1] % 2);
		dlen = 4;
		k = K_SEND_ORDER;
		break;
	case 10: /* a NULL data pointer with a length */
		dk = P_NULL;
		dlen = data_lens[v[1] % 10];
		break;
	default: /* IPMB on a channel out of range */
		alen = mk_ipmb(&a,
			       (short)(v[1] % 2 ? (int)(16 + v[2] % 100) :
						  -1 - (int)(v[2] % 5)),
			       0x72, 0);
		break;
	}
	rpf(r, "[%u] ", which);
	r_send(d, r, &a, alen, ak, netfn, cmd, dlen, dk, false, 0, 0);
	return k;
}

static enum known apply_send_ipmb(const unsigned int *v, struct dev *d,
				  struct rdev *x, struct res *r)
{
	unsigned int ch = v[0] % 16, lun = v[1] % 5;
	bool bcast = v[2] % 8 == 0;
	union xaddr a;
	unsigned int alen;

	/* channel 0 goes to the one controller that answers; others
	 * are refused on both (not IPMB) */
	alen = mk_ipmb(&a, (short)ch, 0x72, (unsigned char)lun);
	if (bcast) {
		a.ipmb.addr_type = IPMI_IPMB_BROADCAST_ADDR_TYPE;
		if (ch == 0)
			a.ipmb.channel = 1; /* no timeouts */
	}
	rpf(r, "[ch %u lun %u%s] ", ch, lun, bcast ? " bcast" : "");
	x->bridged = true;
	r_send(d, r, &a, alen, P_OK, IPMI_NETFN_APP_REQUEST,
	       IPMI_GET_DEVICE_ID_CMD, v[3] % 4 ? 0 : 263 + v[4] % 2, P_OK,
	       false, 0, 0);
	return K_NONE;
}

static enum known apply_send_lan(const unsigned int *v, struct dev *d,
				 struct rdev *x, struct res *r)
{
	union xaddr a;
	struct ipmi_lan_addr *l = &a.lan;
	unsigned int alen;

	memset(&a, 0, sizeof(a));
	l->addr_type = IPMI_LAN_ADDR_TYPE;
	l->channel = (short)(v[0] % 17);
	l->privilege = 4;
	l->session_handle = 1;
	l->remote_SWID = 0x81;
	l->local_SWID = 0x20;
	l->lun = (unsigned char)(v[1] % 5);
	alen = v[2] % 3 ? sizeof(*l) : 8;
	rpf(r, "[ch %d lun %u alen %u] ", l->channel, l->lun, alen);
	x->bridged = true;
	r_send(d, r, &a, alen, P_OK, IPMI_NETFN_APP_REQUEST,
	       IPMI_GET_DEVICE_ID_CMD, 0, P_OK, false, 0, 0);
	return K_NONE;
}

static enum known apply_settime(const unsigned int *v, struct dev *d,
				struct rdev *x, struct res *r)
{
	bool ipmb = v[0] % 2;
	union xaddr a;
	unsigned int alen;

	alen = ipmb ? mk_ipmb(&a, 0, 0x72, 0) : mk_si(&a, IPMI_BMC_CHANNEL, 0);
	x->bridged = true;
	rpf(r, "[%s %d/%u] ", ipmb ? "ipmb 0x72" : "si", (int)(v[1] % 4) - 1,
	    500 + v[2] % 3000);
	r_send(d, r, &a, v[3] % 6 ? alen : 41, P_OK, IPMI_NETFN_APP_REQUEST,
	       IPMI_GET_DEVICE_ID_CMD, v[4] % 6 ? 0 : 4,
	       v[4] % 6 ? P_OK : P_ONE, true, (int)(v[1] % 4) - 1,
	       500 + v[2] % 3000);
	return K_NONE;
}

static enum known apply_recv(const unsigned int *v, struct dev *d,
			     struct rdev *x, struct res *r)
{
	unsigned int al =
		v[0] % 3 ? sizeof(struct ipmi_addr) : addr_lens[v[1] % 10];
	unsigned int dl = v[2] % 3 ? 1024 : data_lens[v[3] % 5];

	(void)x;
	settle(d);
	rpf(r, "[%s alen %u dlen %u] ", v[4] % 2 ? "TRUNC" : "MSG", al, dl);
	r_recv(d, r, v[4] % 2, al, dl, P_OK, P_OK, P_OK, NULL);
	return K_NONE;
}

static enum known apply_recv_badptr(const unsigned int *v, struct dev *d,
				    struct rdev *x, struct res *r)
{
	enum pkind sk = P_OK, ak = P_OK, dk = P_OK;
	unsigned int which = v[0] % 3;
	unsigned int al =
		v[1] % 4 ? sizeof(struct ipmi_addr) : addr_lens[v[2] % 10];
	enum known k = K_NONE;

	(void)x;
	if (which == 0)
		sk = (enum pkind)(1 + v[3] % 3);
	else if (which == 1)
		ak = (enum pkind)(1 + v[3] % 3);
	else
		dk = (enum pkind)(1 + v[3] % 3);
	if (sk == P_OK && ak == P_OK && dk != P_OK)
		k = K_RECV_ADDR_FIRST;
	settle(d);
	rpf(r, "[%s struct %s addr %s alen %u data %s] ",
	    v[4] % 2 ? "TRUNC" : "MSG", pkind_name(sk), pkind_name(ak), al,
	    pkind_name(dk));
	r_recv(d, r, v[4] % 2, al, 1024, sk, ak, dk, NULL);
	return k;
}

static enum known apply_recv_rdonly(const unsigned int *v, struct dev *d,
				    struct rdev *x, struct res *r)
{
	union xaddr a;
	unsigned int alen;

	(void)x;
	(void)v;
	/* nothing in flight, events on: an event to receive */
	alen = mk_si(&a, IPMI_BMC_CHANNEL, 0);
	rpf(r, "[Get Device ID, then RECEIVE into a read-only buffer] ");
	do_send_full(d, r, &a, alen, msgid_of(0), IPMI_NETFN_APP_REQUEST,
		     IPMI_GET_DEVICE_ID_CMD, NULL, 0);
	settle(d);
	rpf(r, "; ");
	r_recv(d, r, true, sizeof(struct ipmi_addr), 1024, P_OK, P_OK, P_OK,
	       rdonly_page);
	rpf(r, "; then ");
	r_recv(d, r, true, sizeof(struct ipmi_addr), 1024, P_OK, P_OK, P_OK,
	       NULL);
	return K_RECV_RDONLY;
}

static enum known apply_poll(const unsigned int *v, struct dev *d,
			     struct rdev *x, struct res *r)
{
	struct pollfd p = { .fd = d->fd, .events = POLLIN | POLLOUT };
	int rv;

	(void)x;
	(void)v;
	rv = poll(&p, 1, due(d) ? resp_wait_ms : 0);
	rrv(r, rv, errno);
	rpf(r, " revents=");
	revents_str(r, rv > 0 ? p.revents : 0);
	return K_NONE;
}

static enum known apply_ints(const unsigned int *v, struct dev *d,
			     struct rdev *x, struct res *r)
{
	static const unsigned long gets[] = {
		IPMICTL_GET_MY_ADDRESS_CMD,
		IPMICTL_GET_MY_LUN_CMD,
		IPMICTL_GET_MAINTENANCE_MODE_CMD,
	};
	unsigned int which = v[0] % 6;

	(void)x;
	if (which < 3) {
		int_get(d, r, gets[which], NULL);
	} else if (which == 3) { /* set, read back, restore */
		int_set(d, r, IPMICTL_SET_MY_ADDRESS_CMD, (int)(v[1] % 0x300));
		rpf(r, "; ");
		int_get(d, r, IPMICTL_GET_MY_ADDRESS_CMD, NULL);
		rpf(r, "; ");
		int_set(d, r, IPMICTL_SET_MY_ADDRESS_CMD, (int)d->addr);
	} else if (which == 4) {
		int_set(d, r, IPMICTL_SET_MY_LUN_CMD, (int)(v[1] % 9));
		rpf(r, "; ");
		int_get(d, r, IPMICTL_GET_MY_LUN_CMD, NULL);
		rpf(r, "; ");
		int_set(d, r, IPMICTL_SET_MY_LUN_CMD, (int)d->lun);
	} else {
		static const unsigned long all[] = {
			IPMICTL_GET_MY_ADDRESS_CMD,
			IPMICTL_SET_MY_ADDRESS_CMD,
			IPMICTL_GET_MY_LUN_CMD,
			IPMICTL_SET_MY_LUN_CMD,
			IPMICTL_SET_GETS_EVENTS_CMD,
			IPMICTL_GET_MAINTENANCE_MODE_CMD,
			IPMICTL_SET_MAINTENANCE_MODE_CMD,
		};
		enum pkind pk = (enum pkind)(1 + v[2] % 3);

		rpf(r, "[%s] ", pkind_name(pk));
		ptr_ioctl(d, r, all[v[1] % 7], ptr_of(pk, NULL));
	}
	return K_NONE;
}

static enum known apply_chan(const unsigned int *v, struct dev *d,
			     struct rdev *x, struct res *r)
{
	unsigned int ch = v[0] % 4 ? v[0] % 16 : 16 + v[1] % 3;
	bool lun = v[2] % 2;

	(void)x;
	if (v[3] % 4 == 0) {
		enum pkind pk = (enum pkind)(1 + v[4] % 3);

		rpf(r, "[%s %s] ", lun ? "lun" : "addr", pkind_name(pk));
		ptr_ioctl(d, r,
			  v[5] % 2 ?
				  (lun ? IPMICTL_SET_MY_CHANNEL_LUN_CMD :
					 IPMICTL_SET_MY_CHANNEL_ADDRESS_CMD) :
				  (lun ? IPMICTL_GET_MY_CHANNEL_LUN_CMD :
					 IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD),
			  ptr_of(pk, NULL));
		return K_NONE;
	}
	rpf(r, "[ch %u %s] ", ch, lun ? "lun" : "addr");
	chan_get(d, r,
		 lun ? IPMICTL_GET_MY_CHANNEL_LUN_CMD :
		       IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD,
		 (unsigned short)ch);
	if (v[6] % 2) { /* set, read back, restore the default */
		rpf(r, "; ");
		chan_set(d, r,
			 lun ? IPMICTL_SET_MY_CHANNEL_LUN_CMD :
			       IPMICTL_SET_MY_CHANNEL_ADDRESS_CMD,
			 (unsigned short)ch, (unsigned char)v[7]);
		rpf(r, "; ");
		chan_get(d, r,
			 lun ? IPMICTL_GET_MY_CHANNEL_LUN_CMD :
			       IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD,
			 (unsigned short)ch);
		rpf(r, "; ");
		chan_set(d, r,
			 lun ? IPMICTL_SET_MY_CHANNEL_LUN_CMD :
			       IPMICTL_SET_MY_CHANNEL_ADDRESS_CMD,
			 (unsigned short)ch,
			 lun ? (unsigned char)d->lun : (unsigned char)d->addr);
	}
	return K_NONE;
}

static enum known apply_timing(const unsigned int *v, struct dev *d,
			       struct rdev *x, struct res *r)
{
	(void)x;
	if (v[0] % 5 == 0) {
		enum pkind pk = (enum pkind)(1 + v[1] % 3);

		rpf(r, "[%s] ", pkind_name(pk));
		ptr_ioctl(d, r,
			  v[2] % 2 ? IPMICTL_SET_TIMING_PARMS_CMD :
				     IPMICTL_GET_TIMING_PARMS_CMD,
			  ptr_of(pk, NULL));
	} else if (v[0] % 2) {
		timing_set(d, r, (int)(v[1] % 7) - 2, v[2] % 5000);
	} else {
		timing_get(d, r);
	}
	return K_NONE;
}

static enum known apply_maint(const unsigned int *v, struct dev *d,
			      struct rdev *x, struct res *r)
{
	(void)x;
	int_set(d, r, IPMICTL_SET_MAINTENANCE_MODE_CMD, (int)(v[0] % 5) - 1);
	rpf(r, "; ");
	int_get(d, r, IPMICTL_GET_MAINTENANCE_MODE_CMD, NULL);
	rpf(r, "; ");
	int_set(d, r, IPMICTL_SET_MAINTENANCE_MODE_CMD, d->maint);
	return K_NONE;
}

static enum known apply_reg(const unsigned int *v, struct dev *d,
			    struct rdev *x, struct res *r)
{
	static const uint32_t masks[] = {
		0,   1,	     2,	     3,	      4,       5,
		0xf, 0xfff0, 0x8000, 0x10000, 0x10001, 0xffffffff
	};
	unsigned int netfn = v[0] % 4 ? 0x32 : (v[0] % 8 ? 0x33 : 0x06);
	unsigned int cmd = 0x40 + v[1] % 3;
	uint32_t mask = masks[v[2] % 12];
	unsigned int which = v[3] % 8;
	int fd = d->fd;

	if (which == 7) { /* the second open file */
		if (!x->fd2_open) {
			d->fd2 = open(d->path, O_RDWR | O_CLOEXEC);
			x->fd2_open = d->fd2 >= 0;
			rpf(r, "open fd2 %s; ",
			    x->fd2_open ? "ok" : ename(errno));
		}
		if (v[4] % 5 == 0 && x->fd2_open) {
			close(d->fd2);
			d->fd2 = -1;
			x->fd2_open = false;
			rpf(r, "close fd2");
			return K_NONE;
		}
		fd = x->fd2_open ? d->fd2 : d->fd;
		which = v[5] % 4;
	}
	rpf(r, "[%s %02x/%02x mask %#x] ", fd == d->fd ? "fd" : "fd2", netfn,
	    cmd, mask);
	if (which == 6) {
		enum pkind pk = (enum pkind)(1 + v[6] % 3);

		rpf(r, "[%s] ", pkind_name(pk));
		ptr_ioctl(d, r,
			  v[7] % 2 ? IPMICTL_REGISTER_FOR_CMD_CHANS :
				     IPMICTL_UNREGISTER_FOR_CMD,
			  ptr_of(pk, NULL));
	} else if (which % 2 == 0 && which < 4) {
		struct ipmi_cmdspec_chans c = { netfn, cmd, mask };
		int rv, e;

		errno = 0;
		rv = ioctl(fd,
			   which ? IPMICTL_UNREGISTER_FOR_CMD_CHANS :
				   IPMICTL_REGISTER_FOR_CMD_CHANS,
			   &c);
		e = errno;
		rpf(r, "%s ", which ? "UNREG_CHANS" : "REG_CHANS");
		rrv(r, rv, e);
	} else {
		bool un = which == 3 || which == 5;

		rpf(r, "%s ", un ? "UNREG" : "REG");
		cmd_reg(d, fd, r,
			un ? IPMICTL_UNREGISTER_FOR_CMD :
			     IPMICTL_REGISTER_FOR_CMD,
			(unsigned char)netfn, (unsigned char)cmd);
	}
	return K_NONE;
}

static enum known apply_events(const unsigned int *v, struct dev *d,
			       struct rdev *x, struct res *r)
{
	bool on = v[0] % 3 != 0;

	/* turning them off with something due would race the
	 * event against the switch: only when nothing is due */
	if (!on && due(d))
		on = true;
	if (v[1] % 6 == 0)
		rpf(r, "[twice] ");
	int_set(d, r, IPMICTL_SET_GETS_EVENTS_CMD,
		on ? (int)(1 + v[2] % 3) : 0);
	x->events_on = on;
	return K_NONE;
}

static enum known apply_platform_event(const unsigned int *v, struct dev *d,
				       struct rdev *x, struct res *r)
{
	(void)v;
	/*
	 * The BMC raises an event by itself: Set Sensor Thresholds
	 * moves CPU Temp's (sensor 0x01, reading 45) upper
	 * non-critical threshold below the reading (assertion) or
	 * back to 85 (deassertion); ipmi_sim puts the event in its
	 * event message buffer when the global enables allow it and
	 * raises SMS_ATN. The state is the same on both BMCs, and
	 * kept across seeds (sensor_low).
	 */
	static bool sensor_low[2];
	bool *low = &sensor_low[d == &devs[1]];
	unsigned char th[8] = { 0x01, 0x08, 0, 0, 0, (uint8_t)(*low ? 85 : 40),
				0,    0 };
	union xaddr a;
	unsigned int alen;

	alen = mk_si(&a, IPMI_BMC_CHANNEL, 0);
	rpf(r, "[CPU Temp UNC %u] ", th[5]);
	if (do_send_full(d, r, &a, alen, msgid_of(0), 0x04, 0x26, th,
			 sizeof(th)) == 0) {
		x->ev_due++;
		x->bridged = true; /* the event: another path */
		x->sel_add_ms = mono_ms();
		*low = !*low;
	}
	return K_NONE;
}

static enum known apply_unknown_ioctl(const unsigned int *v, struct dev *d,
				      struct rdev *x, struct res *r)
{
	(void)x;
	switch (v[0] % 4) {
	case 0:
		s_tcgets(d, r);
		break;
	case 1:
		s_io99(d, r);
		break;
	case 2:
		s_send_wrong_size(d, r);
		break;
	default:
		s_recv_nodir(d, r);
		break;
	}
	return K_NONE;
}

/* Step class -> what applies it to a device (apply()). */
typedef enum known (*apply_fn)(const unsigned int *v, struct dev *d,
			       struct rdev *x, struct res *r);
static const apply_fn appliers[] = {
	[RC_SEND_SI] = apply_send_si,
	[RC_SEND_BAD] = apply_send_bad,
	[RC_SEND_IPMB] = apply_send_ipmb,
	[RC_SEND_LAN] = apply_send_lan,
	[RC_SETTIME] = apply_settime,
	[RC_RECV] = apply_recv,
	[RC_RECV_BADPTR] = apply_recv_badptr,
	[RC_RECV_RDONLY] = apply_recv_rdonly,
	[RC_POLL] = apply_poll,
	[RC_INTS] = apply_ints,
	[RC_CHAN] = apply_chan,
	[RC_TIMING] = apply_timing,
	[RC_MAINT] = apply_maint,
	[RC_REG] = apply_reg,
	[RC_EVENTS] = apply_events,
	[RC_PLATFORM_EVENT] = apply_platform_event,
	[RC_UNKNOWN_IOCTL] = apply_unknown_ioctl,
};

/* Apply step op to device d; return the known difference it may show. */
static enum known apply(const struct rop *op, struct dev *d, struct res *r)
{
	struct rdev *x = &rdevs[d == &devs[1]];

	if ((size_t)op->cls >= sizeof(appliers) / sizeof(appliers[0]) ||
	    appliers[op->cls] == NULL)
		return K_NONE;
	return appliers[op->cls](op->v, d, x, r);
}

/*
 * Two BMCs, two clocks: a sensor event is logged by A's BMC and then by
 * B's, some milliseconds later, and the two SEL Info answers can name
 * seconds on either side of a tick. Equal but for the addition and erase
 * times (data bytes 6-13), each apart by no more than the seconds between
 * the two events plus the tick, is the BMCs' difference, not the nodes'.
 */
static bool sel_clock_only(const struct res *a, const struct res *b)
{
	const char *p = strstr(a->s, "netfn=0x0b cmd=0x40 ");
	const char *d = p ? strstr(p, " data=[00 ") : NULL;
	int64_t gap = rdevs[1].sel_add_ms - rdevs[0].sel_add_ms;
	long slack = 1 + (long)((gap < 0 ? -gap : gap) / 1000);
	size_t off, t0, t1;

	if (!d || a->len != b->len)
		return false;
	off = (size_t)(d - a->s) + 7; /* the first data byte's hex */
	t0 = off + 3 * 6;
	t1 = off + 3 * 14;
	if (a->len < t1 || strncmp(a->s, b->s, t0) ||
	    strcmp(a->s + t1, b->s + t1))
		return false;
	for (int f = 0; f < 2; f++) {
		long va = hex_le32(a->s + t0 + 12 * f);
		long vb = hex_le32(b->s + t0 + 12 * f);

		if (va < 0 || vb < 0 || labs(va - vb) > slack)
			return false;
	}
	return true;
}

/* Is the difference between a and b exactly the known one? */
static bool known_diff(enum known k, const struct res *a, const struct res *b)
{
	const char *sa, *sb;

	switch (k) {
	case K_SEND_ORDER: /* one EINVAL, the other EFAULT, else same */
		sa = strstr(a->s, "-1 ");
		sb = strstr(b->s, "-1 ");
		if (!sa || !sb || sa - a->s != sb - b->s ||
		    strncmp(a->s, b->s, (size_t)(sa - a->s)))
			return false;
		return (!strcmp(sa, "-1 EINVAL") && !strcmp(sb, "-1 EFAULT")) ||
		       (!strcmp(sa, "-1 EFAULT") && !strcmp(sb, "-1 EINVAL"));
	case K_RECV_RDONLY: /* same up to the follow-up RECEIVE */
		sa = strstr(a->s, "; then ");
		sb = strstr(b->s, "; then ");
		return sa && sb && sa - a->s == sb - b->s &&
		       !strncmp(a->s, b->s, (size_t)(sa - a->s));
	case K_RECV_ADDR_FIRST: { /* the same but for " addr=[..]" */
		char ca[RES_MAX], cb[RES_MAX];
		const struct res *in[2] = { a, b };
		char *out[2] = { ca, cb };

		for (int i = 0; i < 2; i++) {
			const char *p = strstr(in[i]->s, " addr=[");
			const char *q = p ? strchr(p, ']') : NULL;

			snprintf(out[i], RES_MAX, "%.*s%s",
				 p ? (int)(p - in[i]->s) : (int)in[i]->len,
				 in[i]->s, q ? q + 1 : "");
		}
		return !strcmp(ca, cb) && strstr(ca, "-1 EFAULT");
	}
	default:
		return false;
	}
}

/* After a known difference the queues differ: empty both, forget what
 * was due. */
static void resync(void)
{
	for (int i = 0; i < 2; i++) {
		struct res tmp;

		memset(&tmp, 0, sizeof(tmp));
		drain(&devs[i], &tmp);
		rdevs[i].ev_got = rdevs[i].ev_due;
	}
}

static int reopen(struct dev *d)
{
	if (d->fd2 >= 0)
		close(d->fd2);
	d->fd2 = -1;
	if (d->fd >= 0)
		close(d->fd);
	d->fd = open(d->path, O_RDWR | O_CLOEXEC);
	d->sent = d->rcvd = 0;
	return d->fd;
}

static int run_random(uint64_t seed0, unsigned int seeds, unsigned int nsteps,
		      bool quiet)
{
	struct rstat st[RC_COUNT], kst[K_COUNT];
	unsigned long total = 0, ndiff = 0, nknown = 0, nclock = 0;

	memset(st, 0, sizeof(st));
	memset(kst, 0, sizeof(kst));
	unmapped_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	rdonly_page =
		mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (unmapped_page == MAP_FAILED || rdonly_page == MAP_FAILED) {
		fprintf(stderr, "%s: mmap: %s\n", prog, strerror(errno));
		return EXIT_SETUP;
	}
	munmap(unmapped_page, 4096);
	for (int i = 0; i < 2; i++) {
		struct res tmp;

		memset(&tmp, 0, sizeof(tmp));
		s_init_addr(&devs[i], &tmp);
		s_init_lun(&devs[i], &tmp);
		s_init_maint(&devs[i], &tmp);
	}

	for (unsigned int s = 0; s < seeds; s++) {
		uint64_t seed = seed0 + s;

		for (int i = 0; i < 2; i++) {
			if (reopen(&devs[i]) < 0) {
				fprintf(stderr, "%s: cannot open %s: %s\n",
					prog, devs[i].path, strerror(errno));
				return EXIT_SETUP;
			}
			int64_t added = rdevs[i].sel_add_ms; /* logs stay */

			memset(&rdevs[i], 0, sizeof(rdevs[i]));
			rdevs[i].sel_add_ms = added;
			restore_dev(&devs[i], NULL);
		}
		rng = seed * 0x9E3779B97F4A7C15ULL + 1;
		for (unsigned int i = 0; i < nsteps; i++) {
			static struct res ra, rb;
			struct rop op;
			unsigned long inflight = due(&devs[0]);
			enum known ka, kb;
			bool same;

			if (due(&devs[1]) > inflight)
				inflight = due(&devs[1]);
			if (!inflight)
				rdevs[0].bridged = rdevs[1].bridged = false;
			draw(&op, inflight,
			     rdevs[0].events_on && rdevs[1].events_on,
			     rdevs[0].bridged || rdevs[1].bridged);
			cur_step = (int)i + 1;
			memset(&ra, 0, sizeof(ra));
			memset(&rb, 0, sizeof(rb));
			ka = apply(&op, &devs[0], &ra);
			kb = apply(&op, &devs[1], &rb);
			same = !strcmp(ra.s, rb.s);
			st[op.cls].steps++;
			total++;
			if (same)
				goto next;
			if (sel_clock_only(&ra, &rb)) {
				nclock++;
				if (!quiet)
					printf("seed %llu step %u %s: SEL times "
					       "a clock tick apart\n",
					       (unsigned long long)seed, i + 1,
					       rclass_name[op.cls]);
				goto next;
			}
			if (ka == kb && ka != K_NONE &&
			    known_diff(ka, &ra, &rb)) {
				st[op.cls].known++;
				kst[ka].known++;
				nknown++;
				if (ka == K_RECV_RDONLY)
					resync();
				if (!quiet)
					printf("seed %llu step %u %s: known "
					       "difference %s\n",
					       (unsigned long long)seed, i + 1,
					       rclass_name[op.cls],
					       known_name[ka]);
				goto next;
			}
			st[op.cls].diff++;
			ndiff++;
			/* start again from empty queues: one difference
			 * is reported once, not as every later step */
			resync();
			printf("seed %llu step %u %-15s DIFF  A: %s\n",
			       (unsigned long long)seed, i + 1,
			       rclass_name[op.cls], ra.s);
			printf("%*s B: %s\n", 40, "", rb.s);
next:
			if (!quiet && same) {
				struct timespec ts;

				clock_gettime(CLOCK_MONOTONIC, &ts);
				printf("%ld.%03ld seed %llu step %u %-15s same  "
				       "%s\n",
				       (long)ts.tv_sec, ts.tv_nsec / 1000000L,
				       (unsigned long long)seed, i + 1,
				       rclass_name[op.cls], ra.s);
			}
			fflush(stdout);
		}
		/* what is still due is compared too */
		{
			static struct res ra, rb;

			memset(&ra, 0, sizeof(ra));
			memset(&rb, 0, sizeof(rb));
			drain(&devs[0], &ra);
			drain(&devs[1], &rb);
			total++;
			if (!strcmp(ra.s, rb.s)) {
				/* the same */
			} else if (sel_clock_only(&ra, &rb)) {
				nclock++;
			} else {
				ndiff++;
				printf("seed %llu final drain DIFF  A: %s\n"
				       "%*s B: %s\n",
				       (unsigned long long)seed, ra.s, 40, "",
				       rb.s);
			}
		}
		for (int i = 0; i < 2; i++)
			restore_dev(&devs[i], NULL);
	}
	printf("%-16s %7s %6s %6s\n", "class", "steps", "diff", "known");
	for (int c = 0; c < RC_COUNT; c++)
		printf("%-16s %7lu %6lu %6lu\n", rclass_name[c], st[c].steps,
		       st[c].diff, st[c].known);
	for (int k = 1; k < K_COUNT; k++)
		printf("known difference %s: %lu\n", known_name[k],
		       kst[k].known);
	printf("SEL Info times a BMC clock tick apart (not the nodes'): %lu\n",
	       nclock);
	printf("%s: abi=%s random seeds=%llu..%llu steps=%lu diff=%lu "
	       "known=%lu\n",
	       prog, ABI_NAME, (unsigned long long)seed0,
	       (unsigned long long)(seed0 + seeds - 1), total, ndiff, nknown);
	return ndiff ? EXIT_DIFF : 0;
}

/* ------------------------------------------------------------------ */

static void on_signal(int sig)
{
	for (int i = 0; i < 2; i++)
		restore_dev(&devs[i], NULL);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [options] DEV_A DEV_B\n"
		"Differential test of the Linux IPMI ioctl ABI: run the same fixed sequence\n"
		"of good and bad calls on both device nodes (e.g. the stock /dev/ipmi0 and a\n"
		"kcsmux /dev/ipmi1 in front of an identical BMC) and compare, step by step,\n"
		"the return value, errno and everything written back (struct fields,\n"
		"address and data bytes, poll revents).\n"
		"\n"
		"  -t MS       wait up to MS for each expected response (default 5000)\n"
		"  -e MS       event window after SET_GETS_EVENTS 1 (default 300)\n"
		"  -q          print only the DIFF rows and the summary\n"
		"  -r SEED     randomized mode: interleaved good and bad calls drawn from\n"
		"              SEED (then SEED+1, ... with -k), compared step by step, with\n"
		"              a per-class table of steps, mismatches and known differences\n"
		"  -k SEEDS    randomized mode: how many seeds (default 1)\n"
		"  -n STEPS    randomized mode: steps per seed (default 200)\n"
		"  -l          list the steps and exit\n"
		"  -h, --help  this help\n"
		"\n"
		"Rows: '#  step  same|DIFF  result'; a DIFF row shows both results ('A:' and\n"
		"'B:'). Results: the return value or '-1 ERRNO', then what was written back:\n"
		"{type msgid netfn cmd addr_len data_len} of a RECEIVE, addr=[bytes] and\n"
		"data=[bytes] as written ('untouched' / '(nothing written)' when the\n"
		"sentinels are intact), val= of GET ioctls, revents= of poll. Each step starts\n"
		"from an empty queue (responses still missing are awaited and reported as a\n"
		"'drained' row); rows indented by two spaces continue the step above.\n"
		"Interface-wide state (my address, LUN, maintenance mode) is read first and\n"
		"restored at the end (also on SIGINT/SIGTERM).\n"
		"\n"
		"Exit: 0 every step the same, 1 some step differed, 2 usage error or a node\n"
		"could not be opened.\n",
		prog);
}

/*
 * Known difference lun-0-only: the node (B) refused a request to a LUN
 * other than 0 with cc d4 (its luns key, kcsmux.conf(5)), which the stock
 * driver (A) sent to the BMC: the same up to the answer's data, B's data
 * exactly [d4], A's not.
 */
static bool lun0_only(const struct res *a, const struct res *b)
{
	const char *da = strstr(a->s, " data_len="),
		   *db = strstr(b->s, " data_len=");
	const char *ea = strstr(a->s, " data=["), *eb = strstr(b->s, " data=[");

	return da && db && ea && eb && da - a->s == db - b->s &&
	       !strncmp(a->s, b->s, (size_t)(da - a->s)) &&
	       !strcmp(eb, " data=[d4]") && strcmp(ea, " data=[d4]");
}

static void print_row(int num, const char *name, bool same, const struct res *a,
		      const struct res *b, bool quiet)
{
	if (same && quiet)
		return;
	char nbuf[16];

	if (num > 0)
		snprintf(nbuf, sizeof(nbuf), "%d", num);
	else
		strcpy(nbuf, "-");
	if (same) {
		printf("%3s %-48s same  %s\n", nbuf, name, a->s);
	} else {
		printf("%3s %-48s DIFF  A: %s\n", nbuf, name, a->s);
		printf("%3s %-48s       B: %s\n", "", "", b->s);
	}
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const size_t nsteps = sizeof(steps) / sizeof(steps[0]);
	bool quiet = false, random_mode = false;
	unsigned long long seed0 = 1;
	unsigned long nseeds = 1, rsteps = 200;
	int ndiff = 0, nrows = 0, ndiff_steps = 0, nknown_lun = 0, c;
	char difflist[512] = "";
	size_t dl = 0;
	struct sigaction sa;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:e:r:k:n:qlh", lopts, NULL)) !=
	       -1) {
		char *end;
		long v;

		switch (c) {
		case 't':
		case 'e':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 0 ||
			    v > 600000) {
				fprintf(stderr, "%s: bad value for -%c: '%s'\n",
					prog, c, optarg);
				return EXIT_SETUP;
			}
			if (c == 't')
				resp_wait_ms = (int)v;
			else
				event_wait_ms = (int)v;
			break;
		case 'r':
		case 'k':
		case 'n':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 0 ||
			    (c != 'r' && (v < 1 || v > 1000000))) {
				fprintf(stderr, "%s: bad value for -%c: '%s'\n",
					prog, c, optarg);
				return EXIT_SETUP;
			}
			if (c == 'r') {
				random_mode = true;
				seed0 = (unsigned long long)v;
			} else if (c == 'k') {
				nseeds = (unsigned long)v;
			} else {
				rsteps = (unsigned long)v;
			}
			break;
		case 'q':
			quiet = true;
			break;
		case 'l':
			for (size_t i = 0; i < nsteps; i++)
				printf("%3zu %s\n", i + 1, steps[i].name);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "%s: option %s needs a value\n", prog,
				argv[optind - 1]);
			return EXIT_SETUP;
		default:
			fprintf(stderr, "%s: unknown option %s\n", prog,
				argv[optind - 1]);
			usage(stderr);
			return EXIT_SETUP;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "%s: need exactly two device nodes\n", prog);
		usage(stderr);
		return EXIT_SETUP;
	}
	devs[0] = (struct dev){
		.tag = "A", .path = argv[optind], .fd = -1, .fd2 = -1
	};
	devs[1] = (struct dev){
		.tag = "B", .path = argv[optind + 1], .fd = -1, .fd2 = -1
	};
	for (int i = 0; i < 2; i++) {
		devs[i].fd = open(devs[i].path, O_RDWR | O_CLOEXEC);
		if (devs[i].fd < 0) {
			fprintf(stderr, "%s: cannot open %s: %s\n", prog,
				devs[i].path, strerror(errno));
			if (i)
				close(devs[0].fd);
			return EXIT_SETUP;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (random_mode) {
		int rv;

		printf("%s: A=%s B=%s abi=%s random seeds=%lu from %llu, "
		       "%lu steps each\n",
		       prog, devs[0].path, devs[1].path, ABI_NAME, nseeds,
		       seed0, rsteps);
		rv = run_random(seed0, (unsigned int)nseeds,
				(unsigned int)rsteps, quiet);
		for (int i = 0; i < 2; i++) {
			restore_dev(&devs[i], NULL);
			if (devs[i].fd2 >= 0)
				close(devs[i].fd2);
			close(devs[i].fd);
		}
		return rv;
	}

	printf("%s: A=%s B=%s abi=%s (%zu-byte ipmi_req, %zu-byte ipmi_recv) steps=%zu\n",
	       prog, devs[0].path, devs[1].path, ABI_NAME,
	       sizeof(struct ipmi_req), sizeof(struct ipmi_recv), nsteps);
	printf("%3s %-48s %-4s  %s\n", "#", "step", "cmp", "result");
	fflush(stdout);

	for (size_t i = 0; i < nsteps; i++) {
		static struct res ra, rb;

		cur_step = (int)i + 1;
		if (!(steps[i].flags & F_NODRAIN)) {
			int na, nb;

			memset(&ra, 0, sizeof(ra));
			memset(&rb, 0, sizeof(rb));
			na = drain(&devs[0], &ra);
			nb = drain(&devs[1], &rb);
			if (na || nb) {
				if (!na)
					rpf(&ra, "nothing");
				if (!nb)
					rpf(&rb, "nothing");
				bool same = na == nb && !strcmp(ra.s, rb.s);
				char name[64];

				snprintf(name, sizeof(name),
					 "  (drained before step %d)",
					 cur_step);
				if (!same) {
					ndiff++;
					dl += (size_t)snprintf(
						difflist + dl,
						dl < sizeof(difflist) ?
							sizeof(difflist) - dl :
							0,
						"%sdrain<%d",
						ndiff > 1 ? "," : "", cur_step);
					if (dl >= sizeof(difflist))
						dl = sizeof(difflist);
				}
				print_row(0, name, same, &ra, &rb, quiet);
			}
		}
		memset(&ra, 0, sizeof(ra));
		memset(&rb, 0, sizeof(rb));
		steps[i].fn(&devs[0], &ra);
		steps[i].fn(&devs[1], &rb);
		nrows++;
		bool same = !strcmp(ra.s, rb.s);

		if (!same && (steps[i].flags & F_LUN0) && lun0_only(&ra, &rb)) {
			nknown_lun++;
			printf("%3d %-48s known difference lun-0-only\n",
			       cur_step, steps[i].name);
			continue;
		}
		if (!same) {
			ndiff++;
			ndiff_steps++;
			dl += (size_t)snprintf(difflist + dl,
					       dl < sizeof(difflist) ?
						       sizeof(difflist) - dl :
						       0,
					       "%s%d", ndiff > 1 ? "," : "",
					       cur_step);
			if (dl >= sizeof(difflist))
				dl = sizeof(difflist);
		}
		print_row(cur_step, steps[i].name, same, &ra, &rb, quiet);
		fflush(stdout);
	}

	/* the restore step ran already; this covers a step that changed it */
	for (int i = 0; i < 2; i++) {
		restore_dev(&devs[i], NULL);
		if (devs[i].fd2 >= 0)
			close(devs[i].fd2);
		close(devs[i].fd);
	}
	printf("%s: abi=%s steps=%d same=%d diff=%d drain_diff=%d "
	       "known_lun0=%d%s%s\n",
	       prog, ABI_NAME, nrows, nrows - ndiff_steps - nknown_lun,
	       ndiff_steps, ndiff - ndiff_steps, nknown_lun,
	       ndiff ? " diff_steps=" : "", ndiff ? difflist : "");
	return ndiff ? EXIT_DIFF : 0;
}
