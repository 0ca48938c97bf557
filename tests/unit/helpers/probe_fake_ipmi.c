// SPDX-License-Identifier: GPL-2.0
/*
 * A fake IPMI device for host tests of kcsmux-ipmi-probe. Linked into a
 * host build of tests/tools/ipmi_probe.c with -Wl,--wrap=ioctl,--wrap=poll:
 * every IPMI ioctl on any fd (the probe opens /dev/null) is answered here,
 * like a device whose BMC answers instantly.
 *
 * FAKE_IPMI (comma-separated flags) selects misbehaviour:
 *   event     queue an async event (recv_type 2, msgid 0) before each answer
 *   stray     queue a response with another msgid before each answer
 *   cc3       every 3rd request (1-based) gets completion code 0xC1
 *   drop2     every 2nd request is never answered (timeout)
 *   netfn     answer with the request's netfn (not netfn|1)
 *   sendfail  SEND_COMMAND fails with EINVAL
 *   echo0     answer with msgid 0 instead of the request's
 *   noevents  SET_GETS_EVENTS_CMD fails with ENOTTY
 * The fake also checks what the probe sends (address length/type/channel,
 * data pointer/length, msgid sequence); a malformed request is answered
 * with completion code 0xCC, so the probe reports it as a cc error.
 * FAKE_IPMI_LOG=FILE appends one line per ioctl to FILE.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <linux/ipmi.h>

int __wrap_ioctl(int fd, unsigned long req, ...);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout);

#define QLEN 16

struct fmsg {
	int recv_type;
	long msgid;
	struct ipmi_addr addr;
	unsigned int addr_len;
	unsigned char netfn, cmd;
	unsigned int len;
	unsigned char data[8];
};

static struct fmsg q[QLEN];
static unsigned int qhead, qcount, nsent;
static long last_msgid = -1;
static int events_on;

static int flag(const char *name)
{
	const char *f = getenv("FAKE_IPMI");
	size_t l = strlen(name);

	while (f && *f) {
		if (!strncmp(f, name, l) && (f[l] == ',' || f[l] == '\0'))
			return 1;
		f = strchr(f, ',');
		if (f)
			f++;
	}
	return 0;
}

static void flog(const char *fmt, ...)
{
	const char *path = getenv("FAKE_IPMI_LOG");
	va_list ap;
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void push(const struct fmsg *m)
{
	if (qcount < QLEN) {
		q[(qhead + qcount) % QLEN] = *m;
		qcount++;
	}
}

static int fake_send(const struct ipmi_req *r)
{
	struct ipmi_addr a;
	struct fmsg m;
	int bad = 0;

	nsent++;
	if (flag("sendfail")) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	if (r->addr_len < 8 || r->addr_len > sizeof(a) || !r->addr) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&a, r->addr, r->addr_len);
	if (a.addr_type == IPMI_SYSTEM_INTERFACE_ADDR_TYPE) {
		if (a.channel != IPMI_BMC_CHANNEL || r->addr_len != 8)
			bad = 1;
	} else if (a.addr_type == IPMI_IPMB_ADDR_TYPE) {
		if (a.channel >= IPMI_NUM_CHANNELS || r->addr_len != 8)
			bad = 1;
	} else {
		bad = 1;
	}
	if (r->msg.data_len && !r->msg.data)
		bad = 1;
	if (last_msgid >= 0 && r->msgid != last_msgid + 1)
		bad = 1; /* the probe promises consecutive msgids */
	last_msgid = r->msgid;
	flog("send msgid=%ld type=0x%x ch=%d len=%u netfn=0x%02x cmd=0x%02x dlen=%u bad=%d\n",
	     r->msgid, a.addr_type, a.channel, r->addr_len, r->msg.netfn,
	     r->msg.cmd, r->msg.data_len, bad);

	if (flag("event") && events_on) {
		memset(&m, 0, sizeof(m));
		m.recv_type = IPMI_ASYNC_EVENT_RECV_TYPE;
		m.addr.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
		m.addr.channel = IPMI_BMC_CHANNEL;
		m.addr_len = 8;
		m.netfn = 0x07; /* as the driver reports events */
		m.cmd = IPMI_READ_EVENT_MSG_BUFFER_CMD;
		m.len = 3;
		push(&m);
	}
	if (flag("stray")) {
		memset(&m, 0, sizeof(m));
		m.recv_type = IPMI_RESPONSE_RECV_TYPE;
		m.msgid = r->msgid + 1000;
		m.addr = a;
		m.addr_len = r->addr_len;
		m.netfn = r->msg.netfn | 1;
		m.cmd = r->msg.cmd;
		m.len = 1;
		push(&m);
	}
	if (flag("drop2") && nsent % 2 == 0)
		return 0;

	memset(&m, 0, sizeof(m));
	m.recv_type = IPMI_RESPONSE_RECV_TYPE;
	m.msgid = flag("echo0") ? 0 : r->msgid;
	m.addr = a;
	m.addr_len = r->addr_len;
	m.netfn = flag("netfn") ? r->msg.netfn : (r->msg.netfn | 1);
	m.cmd = r->msg.cmd;
	m.data[0] = bad ? 0xCC : (flag("cc3") && nsent % 3 == 0) ? 0xC1 : 0;
	m.data[1] = 0x20;
	m.data[2] = 0x81;
	m.len = 3;
	push(&m);
	return 0;
}

static int fake_recv(struct ipmi_recv *rv)
{
	struct fmsg *m;
	unsigned int n;

	if (!qcount) {
		errno = EAGAIN;
		return -1;
	}
	m = &q[qhead];
	if (rv->addr_len < m->addr_len) {
		errno = EINVAL;
		return -1;
	}
	qhead = (qhead + 1) % QLEN;
	qcount--;
	rv->recv_type = m->recv_type;
	memcpy(rv->addr, &m->addr, m->addr_len);
	rv->addr_len = m->addr_len;
	rv->msgid = m->msgid;
	rv->msg.netfn = m->netfn;
	rv->msg.cmd = m->cmd;
	n = m->len < rv->msg.data_len ? m->len : rv->msg.data_len;
	memcpy(rv->msg.data, m->data, n);
	rv->msg.data_len = (unsigned short)n;
	return n < m->len ? (errno = EMSGSIZE, -1) : 0;
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	(void)fd;
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);

	switch (req) {
	case IPMICTL_SEND_COMMAND:
		return fake_send(arg);
	case IPMICTL_RECEIVE_MSG_TRUNC:
		return fake_recv(arg);
	case IPMICTL_SET_GETS_EVENTS_CMD:
		if (flag("noevents")) {
			errno = ENOTTY;
			return -1;
		}
		events_on = *(int *)arg;
		flog("events %d\n", events_on);
		return 0;
	case IPMICTL_SET_MY_ADDRESS_CMD:
		flog("myaddr 0x%x\n", *(unsigned int *)arg);
		return 0;
	case IPMICTL_GET_MY_ADDRESS_CMD:
		*(unsigned int *)arg = 0x20;
		return 0;
	default:
		errno = ENOTTY;
		return -1;
	}
}

int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	for (nfds_t i = 0; i < n; i++)
		fds[i].revents = qcount ? (fds[i].events & POLLIN) : 0;
	if (qcount)
		return 1;
	if (timeout > 0) {
		struct timespec ts = { timeout / 1000,
				       (long)(timeout % 1000) * 1000000 };

		nanosleep(&ts, NULL);
	}
	return 0;
}
