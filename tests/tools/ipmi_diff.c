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

#define EXIT_DIFF 1
#define EXIT_SETUP 2

#define RES_MAX 2048
#define ABUF_LEN 48		/* address buffer: 40 + 8 to catch overruns */
#define DBUF_SLACK 16		/* sentinel bytes after every data buffer */
#define ADDR_FILL 0xa5
#define DATA_FILL 0x5a
#define RECV_TYPE_FILL (-7)
#define MSGID_FILL (-7L)
#define NETFN_FILL 0xee
#define INT_FILL 0x5a5a5a5a

#if LONG_MAX > 0x7fffffffL
#define ABI_NAME "lp64"
#define BIG_MSGID (-0x76543210fedcba99L)
#else
#define ABI_NAME "ilp32"
#define BIG_MSGID (-0x76543211L)
#endif

/* The other ABI's struct sizes and ioctl numbers, built by hand. */
#define REQ64_SIZE 40
#define RECV64_SIZE 48
#define REQ32_SIZE 20
#define RECV32_SIZE 24
#define SEND_NR_64 _IOC(_IOC_READ, IPMI_IOC_MAGIC, 13, REQ64_SIZE)
#define RECV_TRUNC_NR_64 _IOC(_IOC_READ | _IOC_WRITE, IPMI_IOC_MAGIC, 11, RECV64_SIZE)
#define SEND_NR_32 _IOC(_IOC_READ, IPMI_IOC_MAGIC, 13, REQ32_SIZE)
#define RECV_TRUNC_NR_32 _IOC(_IOC_READ | _IOC_WRITE, IPMI_IOC_MAGIC, 11, RECV32_SIZE)

#define TEST_NETFN 0x32		/* OEM/group netfn used for REGISTER_FOR_CMD */

struct dev {
	const char *tag;	/* "A" / "B" */
	const char *path;
	int fd;
	int fd2;		/* second open of the same node, or -1 */
	unsigned long sent;	/* SENDs that returned 0 */
	unsigned long rcvd;	/* responses consumed */
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
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case ENOSYS: return "ENOSYS";
	case EMSGSIZE: return "EMSGSIZE";
	case EPROTO: return "EPROTO";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ECONNRESET: return "ECONNRESET";
	case ENOTCONN: return "ENOTCONN";
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

static void rhex(struct res *r, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rpf(r, "%s%02x", i ? " " : "", p[i]);
}

static void revents_str(struct res *r, short ev)
{
	static const struct { short bit; const char *name; } names[] = {
		{ POLLIN, "IN" }, { POLLPRI, "PRI" }, { POLLOUT, "OUT" },
		{ POLLERR, "ERR" }, { POLLHUP, "HUP" }, { POLLNVAL, "NVAL" },
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
	uint32_t in_alen;	/* what we passed */
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
		rpf(r, " {type=%d msgid=%lld netfn=0x%02x cmd=0x%02x addr_len=%u data_len=%u}",
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
		   unsigned int addr_len, unsigned int data_len, bool bad_struct)
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
	rv = ioctl(d->fd, trunc ? IPMICTL_RECEIVE_MSG_TRUNC : IPMICTL_RECEIVE_MSG,
		   bad_struct ? (void *)1 : (void *)&rs);
	e = errno;
	rrv(r, rv, e);
	if (bad_struct)
		return rv;
	v = (struct rview){
		.type = rs.recv_type, .alen = rs.addr_len, .msgid = rs.msgid,
		.netfn = rs.msg.netfn, .cmd = rs.msg.cmd,
		.dlen = rs.msg.data_len,
		.ptrs_changed = rs.addr != abuf || rs.msg.data != dbuf,
		.in_alen = addr_len, .in_dlen = (uint16_t)data_len,
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
	struct ipmi_timing_parms t = { .retries = retries, .retry_time_ms = ms };

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
	struct ipmi_cmdspec_chans c = { .netfn = netfn, .cmd = cmd,
					.chans = chans };

	return ptr_ioctl(d, r, req, &c);
}

/*
 * Receive everything queued. If responses to successful SENDs are still
 * missing, wait up to the response timeout for them. Returns the number of
 * messages taken; their recv_type and msgid go into *r.
 */
static int drain(struct dev *d, struct res *r)
{
	int n = 0;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = d->fd, .events = POLLIN };
		int wait = 0, rv;

		if (d->sent > d->rcvd) {
			long el;

			clock_gettime(CLOCK_MONOTONIC, &t);
			el = (t.tv_sec - t0.tv_sec) * 1000L +
			     (t.tv_nsec - t0.tv_nsec) / 1000000L;
			wait = el >= resp_wait_ms ? 0 : resp_wait_ms - (int)el;
		}
		rv = poll(&p, 1, wait);
		if (rv <= 0 || !(p.revents & POLLIN))
			break;
		int got = 0;

		for (;;) {
			unsigned char abuf[ABUF_LEN], dbuf[1024];
			struct ipmi_recv rs = {
				.addr = abuf, .addr_len = sizeof(abuf),
				.msg.data = dbuf, .msg.data_len = sizeof(dbuf),
			};

			if (ioctl(d->fd, IPMICTL_RECEIVE_MSG_TRUNC, &rs) < 0 &&
			    errno != EMSGSIZE)
				break;
			if (rs.recv_type == IPMI_RESPONSE_RECV_TYPE)
				d->rcvd++;
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
				rpf(r, "%sPOLLIN-but-receive-failed", n ? " " : "");
			n += !got;
			break;
		}
	}
	/* give up on responses that never came: do not wait again */
	if (d->sent > d->rcvd)
		d->rcvd = d->sent;
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
#define OTHER_SEND_NAME "SEND via ILP32 number 0x8014690d"
#define OTHER_RECV_NAME "RECEIVE_MSG_TRUNC via ILP32 number 0xc018690b"
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
		.type = (int32_t)get32(rs), .alen = get32(rs + 16),
		.msgid = (int64_t)get64(rs + 24), .netfn = rs[32],
		.cmd = rs[33], .dlen = get16(rs + 34),
		.ptrs_changed = get64(rs + 8) != (uint64_t)(uintptr_t)abuf ||
				get64(rs + 40) != (uint64_t)(uintptr_t)dbuf,
		.in_alen = sizeof(struct ipmi_addr), .in_dlen = 1024,
	};
	fmt_recv(r, &v, abuf, dbuf, 1024);
	if (rv == 0 && v.type == IPMI_RESPONSE_RECV_TYPE)
		d->rcvd++;
}
#define OTHER_SEND_NAME "SEND via LP64 number 0x8028690d (Get Device ID)"
#define OTHER_RECV_NAME "  poll; RECEIVE_MSG_TRUNC via LP64 0xc030690b"
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
	send_si(d, r, 0, IPMI_NETFN_APP_REQUEST,
		IPMI_READ_EVENT_MSG_BUFFER_CMD, NULL, 0);
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

	a.raw[7] = 0x5c;	/* the SI address' padding byte */
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
		.addr = abuf, .addr_len = sizeof(struct ipmi_addr),
		.msg.data = dbuf, .msg.data_len = sizeof(dbuf),
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
		rhex(r, dbuf, rs.msg.data_len < sizeof(dbuf) ?
			 rs.msg.data_len : sizeof(dbuf));
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
			int_set(d, r, IPMICTL_SET_MAINTENANCE_MODE_CMD, d->maint);
		} else {
			ioctl(d->fd, IPMICTL_SET_MAINTENANCE_MODE_CMD, &d->maint);
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

#define F_NODRAIN 0x1	/* continues the previous step: keep the queue */

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
	{ "RECEIVE_MSG_TRUNC struct (void *)1, empty", s_recv_trunc_bad_struct, 0 },
	{ OTHER_SEND_NAME, s_other_send, 0 },
	{ OTHER_RECV_NAME, s_other_recv, OTHER_RECV_FLAGS },

	{ "SEND addr_len 41", s_send_alen41, 0 },
	{ "SEND addr (void *)1", s_send_bad_addr, 0 },
	{ "SEND data (void *)1, data_len 4", s_send_bad_data, 0 },
	{ "SEND data_len 273", s_send_len273, 0 },
	{ "SEND data_len 271 (SI: +2 > 272)", s_send_len271, 0 },
	{ "SEND data_len 273 + addr_len 4 (order)", s_send_len273_alen4, 0 },
	{ "SEND data (void *)1 + addr type 99 (order)", s_send_bad_data_type99, 0 },
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

	{ "SEND Get Device ID, data NULL, data_len 300", s_send_null_data300, 0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC", s_recv_trunc_full, F_NODRAIN },

	{ "SEND Get Device ID", s_send_devid, 0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG addr_len 4 (stays)", s_recv_alen4, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC addr_len 7 (stays)", s_recv_trunc_alen7, F_NODRAIN },
	{ "  RECEIVE_MSG data_len 2 (stays)", s_recv_msg_d2, F_NODRAIN },
	{ "  RECEIVE_MSG addr_len 8, data_len 0", s_recv_msg_alen8_d0, F_NODRAIN },
	{ "  poll (still queued, 0 ms)", s_poll0, F_NODRAIN },
	{ "  RECEIVE_MSG struct (void *)1", s_recv_bad_struct, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC data_len 2 (consumed)", s_recv_trunc_d2, F_NODRAIN },
	{ "  RECEIVE_MSG_TRUNC (queue empty again)", s_recv_trunc_full, F_NODRAIN },
	{ "  poll (empty, 0 ms)", s_poll0, F_NODRAIN },

	{ "SEND Get Device ID", s_send_devid, 0 },
	{ "  poll (wait)", s_wait, F_NODRAIN },
	{ "  RECEIVE_MSG addr_len 8, data_len 16", s_recv_exact, F_NODRAIN },
	{ "  RECEIVE_MSG (queue empty again)", s_recv_msg_full, F_NODRAIN },

	{ "SEND Get Device ID, msgid " ABI_NAME " big negative", s_send_big_msgid, 0 },
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
	{ "  RECEIVE_MSG_TRUNC (queue empty again)", s_recv_trunc_full, F_NODRAIN },

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

	{ "restore initial address, LUN, maintenance", s_restore, 0 },
	{ "final address, LUN, maintenance", s_final_state, 0 },
	{ "poll, empty queue at the end (0 ms)", s_poll0, 0 },
};

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

static void print_row(int num, const char *name, bool same,
		      const struct res *a, const struct res *b, bool quiet)
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
	bool quiet = false;
	int ndiff = 0, nrows = 0, ndiff_steps = 0, c;
	char difflist[512] = "";
	size_t dl = 0;
	struct sigaction sa;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:e:qlh", lopts, NULL)) != -1) {
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
	devs[0] = (struct dev){ .tag = "A", .path = argv[optind], .fd = -1,
				.fd2 = -1 };
	devs[1] = (struct dev){ .tag = "B", .path = argv[optind + 1],
				.fd = -1, .fd2 = -1 };
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
					 "  (drained before step %d)", cur_step);
				if (!same) {
					ndiff++;
					dl += (size_t)snprintf(difflist + dl,
						dl < sizeof(difflist) ?
						sizeof(difflist) - dl : 0,
						"%sdrain<%d", ndiff > 1 ? "," : "",
						cur_step);
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

		if (!same) {
			ndiff++;
			ndiff_steps++;
			dl += (size_t)snprintf(difflist + dl,
					       dl < sizeof(difflist) ?
					       sizeof(difflist) - dl : 0,
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
	printf("%s: abi=%s steps=%d same=%d diff=%d drain_diff=%d%s%s\n", prog,
	       ABI_NAME, nrows, nrows - ndiff_steps, ndiff_steps,
	       ndiff - ndiff_steps, ndiff ? " diff_steps=" : "",
	       ndiff ? difflist : "");
	return ndiff ? EXIT_DIFF : 0;
}
