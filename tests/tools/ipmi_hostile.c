// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmux-ipmi-hostile: a hostile client of kcsmuxd nodes for vm.daemon-hostile
 * (docs/guest-tools.md). Each subcommand checks one boundary and prints
 * "ok: ..." / "FAIL: ..." lines; exit 0 when every check passed, 1 if one
 * failed, 2 on a usage or setup error.
 *
 *   addr DEV_A DEV_B     SET_MY_ADDRESS/LUN/CHANNEL_* on A change A only
 *   reg DEV              empty channel mask 0 (as stock), CMDREG cap
 *                        ENOMEM, the whole cap registered and looked up
 *                        again
 *   reg-denied DEV       REGISTER_FOR_CMD is EPERM on DEV
 *   share DEV QUEUE UID  a node with queue QUEUE and a BMC slow enough for
 *                        the queue to fill: one file gets EBUSY at QUEUE/2
 *                        queued, a second file of the same uid at 3/4 in
 *                        all, a file of UID still gets service
 *   opens DEV MAX UID    a node with max_clients MAX: this uid opens files
 *                        until EBUSY, which comes at 3/4 of MAX; a file of
 *                        UID still opens and gets an answer
 *   revoked DEV FILE     a file opened before a reload that took the
 *                        user's access fails with EACCES once FILE exists
 *   slots DEV SHARE      SETTIME Get Device IDs of 10 x 60000 ms to IPMB
 *                        0x90 (nobody answers) from one file: exactly
 *                        SHARE accepted, then EAGAIN; and SET_MAINTENANCE_
 *                        MODE refused (EPERM) while GET works
 *   mark DEV NAME        the oracle's phase marker (OEM 3e:7e "KMX" NAME)
 *   fuzz DEV SEED COUNT  COUNT random hostile requests (every address type
 *                        and channel, LUN bits, broadcast, response netfns,
 *                        Send Message nested at every depth, tunnels,
 *                        truncated and padded frames, SETTIME retries);
 *                        reads every answer; prints the totals
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ipmi.h>

static int fails;

#define CHECK(cond, ...)                  \
	do {                              \
		if (cond) {               \
			printf("ok: ");   \
		} else {                  \
			printf("FAIL: "); \
			fails++;          \
		}                         \
		printf(__VA_ARGS__);      \
		printf("\n");             \
	} while (0)

static int open_dev(const char *path)
{
	int fd = open(path, O_RDWR);

	if (fd < 0) {
		fprintf(stderr, "kcsmux-ipmi-hostile: %s: %s\n", path,
			strerror(errno));
		exit(2);
	}
	return fd;
}

static int geti(int fd, unsigned long req)
{
	unsigned int v = 0xdead;

	if (ioctl(fd, req, &v) < 0)
		return -errno;
	return (int)v;
}

static int getc_val(int fd, unsigned long req, unsigned int chan)
{
	struct ipmi_channel_lun_address_set v = {
		.channel = (unsigned short)chan
	};

	if (ioctl(fd, req, &v) < 0)
		return -errno;
	return v.value;
}

static int cmd_addr(const char *a, const char *b)
{
	int fa = open_dev(a), fb = open_dev(b);
	unsigned int v;
	struct ipmi_channel_lun_address_set cv;

	v = 0x52;
	CHECK(ioctl(fa, IPMICTL_SET_MY_ADDRESS_CMD, &v) == 0,
	      "SET_MY_ADDRESS 0x52 on %s", a);
	v = 1;
	CHECK(ioctl(fa, IPMICTL_SET_MY_LUN_CMD, &v) == 0, "SET_MY_LUN 1 on %s",
	      a);
	cv.channel = 3;
	cv.value = 0x54;
	CHECK(ioctl(fa, IPMICTL_SET_MY_CHANNEL_ADDRESS_CMD, &cv) == 0,
	      "SET_MY_CHANNEL_ADDRESS 3 0x54 on %s", a);
	cv.value = 3;
	CHECK(ioctl(fa, IPMICTL_SET_MY_CHANNEL_LUN_CMD, &cv) == 0,
	      "SET_MY_CHANNEL_LUN 3 3 on %s", a);
	CHECK(geti(fa, IPMICTL_GET_MY_ADDRESS_CMD) == 0x52,
	      "%s: GET_MY_ADDRESS 0x%x (set 0x52)", a,
	      geti(fa, IPMICTL_GET_MY_ADDRESS_CMD));
	CHECK(geti(fb, IPMICTL_GET_MY_ADDRESS_CMD) == 0x20,
	      "%s: GET_MY_ADDRESS 0x%x (untouched: 0x20)", b,
	      geti(fb, IPMICTL_GET_MY_ADDRESS_CMD));
	CHECK(geti(fb, IPMICTL_GET_MY_LUN_CMD) == 2,
	      "%s: GET_MY_LUN %d (untouched: 2)", b,
	      geti(fb, IPMICTL_GET_MY_LUN_CMD));
	CHECK(getc_val(fb, IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD, 3) == 0x20,
	      "%s: channel 3 address 0x%x (untouched: 0x20)", b,
	      getc_val(fb, IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD, 3));
	CHECK(getc_val(fb, IPMICTL_GET_MY_CHANNEL_LUN_CMD, 3) == 2,
	      "%s: channel 3 LUN %d (untouched: 2)", b,
	      getc_val(fb, IPMICTL_GET_MY_CHANNEL_LUN_CMD, 3));
	CHECK(getc_val(fa, IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD, 3) == 0x54,
	      "%s: channel 3 address 0x%x (set 0x54)", a,
	      getc_val(fa, IPMICTL_GET_MY_CHANNEL_ADDRESS_CMD, 3));
	/* another file of node A sees A's address, as on one stock interface */
	close(fb);
	fb = open_dev(a);
	CHECK(geti(fb, IPMICTL_GET_MY_ADDRESS_CMD) == 0x52,
	      "a second file of %s: GET_MY_ADDRESS 0x%x (the node's: 0x52)", a,
	      geti(fb, IPMICTL_GET_MY_ADDRESS_CMD));
	v = 0x20;
	ioctl(fa, IPMICTL_SET_MY_ADDRESS_CMD, &v);
	v = 2;
	ioctl(fa, IPMICTL_SET_MY_LUN_CMD, &v);
	close(fa);
	close(fb);
	return 0;
}

static int reg_chans(int fd, unsigned long req, unsigned char netfn,
		     unsigned char cmd, unsigned int chans)
{
	struct ipmi_cmdspec_chans s = { .netfn = netfn,
					.cmd = cmd,
					.chans = chans };

	return ioctl(fd, req, &s) < 0 ? -errno : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmd_reg(const char *dev)
{
	int fd = open_dev(dev), fd2, rv, i, n = 0, cap = -1;
	double t0, t1;

	rv = reg_chans(fd, IPMICTL_REGISTER_FOR_CMD_CHANS, 0x30, 0x01, 0);
	CHECK(rv == 0, "REGISTER_FOR_CMD_CHANS empty mask: %s (0, as stock)",
	      strerror(-rv));
	rv = reg_chans(fd, IPMICTL_UNREGISTER_FOR_CMD_CHANS, 0x30, 0x01, 0);
	CHECK(rv == -ENOENT,
	      "UNREGISTER_FOR_CMD_CHANS empty mask: %s (ENOENT, "
	      "as stock)",
	      strerror(-rv));
	/* the cap: distinct (netfn, cmd) pairs until refused */
	t0 = now_s();
	for (i = 0; i < 100000; i++) {
		rv = reg_chans(fd, IPMICTL_REGISTER_FOR_CMD_CHANS,
			       (unsigned char)(0x30 + (i >> 8) % 16),
			       (unsigned char)i, 1);
		if (rv) {
			cap = i;
			break;
		}
		n++;
	}
	t1 = now_s();
	CHECK(rv == -ENOMEM && cap > 0 && cap <= 1024,
	      "registrations per file capped at %d (%s past it), %.1f ms", cap,
	      strerror(-rv), (t1 - t0) * 1e3);
	/* another file of the same node has its own cap, and lookups
	 * (EBUSY for a pair taken) stay quick */
	fd2 = open_dev(dev);
	t0 = now_s();
	for (i = 0; i < 10000; i++)
		reg_chans(fd2, IPMICTL_REGISTER_FOR_CMD_CHANS,
			  (unsigned char)(0x30 + ((i % n) >> 8) % 16),
			  (unsigned char)(i % n), 1);
	t1 = now_s();
	rv = reg_chans(fd2, IPMICTL_REGISTER_FOR_CMD_CHANS, 0x30, 0x00, 1);
	CHECK(rv == -EBUSY,
	      "a taken pair from another file: %s (EBUSY); "
	      "10000 refused registrations in %.0f ms",
	      strerror(-rv), (t1 - t0) * 1e3);
	rv = reg_chans(fd2, IPMICTL_REGISTER_FOR_CMD_CHANS, 0x3f, 0xff, 1);
	CHECK(rv == 0, "the second file registers its own: %s",
	      rv ? strerror(-rv) : "ok");
	for (i = 0; i < n; i++) {
		rv = reg_chans(fd, IPMICTL_UNREGISTER_FOR_CMD_CHANS,
			       (unsigned char)(0x30 + (i >> 8) % 16),
			       (unsigned char)i, 1);
		if (rv)
			break;
	}
	CHECK(i == n, "all %d unregistered (%d)", n, i);
	rv = reg_chans(fd, IPMICTL_REGISTER_FOR_CMD_CHANS, 0x30, 0x01, 1);
	CHECK(rv == 0, "registering again after unregistering: %s",
	      rv ? strerror(-rv) : "ok");
	close(fd);
	close(fd2);
	return 0;
}

static int cmd_reg_denied(const char *dev)
{
	int fd = open_dev(dev), rv;
	struct ipmi_cmdspec s = { .netfn = 0x30, .cmd = 0x01 };

	rv = ioctl(fd, IPMICTL_REGISTER_FOR_CMD, &s) < 0 ? -errno : 0;
	CHECK(rv == -EPERM, "REGISTER_FOR_CMD on %s: %s (EPERM)", dev,
	      rv ? strerror(-rv) : "ok");
	rv = reg_chans(fd, IPMICTL_REGISTER_FOR_CMD_CHANS, 0x30, 0x01, 1);
	CHECK(rv == -EPERM, "REGISTER_FOR_CMD_CHANS on %s: %s (EPERM)", dev,
	      rv ? strerror(-rv) : "ok");
	close(fd);
	return 0;
}

static long msgid_next = 1;

/* SEND Get Device ID to the system interface; 0 or -errno. */
static int send_si(int fd, unsigned char netfn, unsigned char cmd,
		   unsigned char *data, unsigned short len)
{
	struct ipmi_system_interface_addr si = {
		.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
		.channel = IPMI_BMC_CHANNEL,
	};
	struct ipmi_req r = {
		.addr = (unsigned char *)&si,
		.addr_len = sizeof(si),
		.msgid = msgid_next++,
		.msg = { .netfn = netfn,
			 .cmd = cmd,
			 .data = data,
			 .data_len = len },
	};

	return ioctl(fd, IPMICTL_SEND_COMMAND, &r) < 0 ? -errno : 0;
}

static int drain_max(int fd, int ms, int max);

/* Answers waiting or arriving within MS; returns how many were read. */
static int drain(int fd, int ms)
{
	return drain_max(fd, ms, 1 << 30);
}

/* At most MAX answers, each within MS. */
static int drain_max(int fd, int ms, int max)
{
	unsigned char data[IPMI_MAX_MSG_LENGTH];
	struct ipmi_addr addr;
	struct ipmi_recv rv;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = 0;

	while (n < max && poll(&p, 1, ms) > 0) {
		rv.addr = (unsigned char *)&addr;
		rv.addr_len = sizeof(addr);
		rv.msg.data = data;
		rv.msg.data_len = sizeof(data);
		if (ioctl(fd, IPMICTL_RECEIVE_MSG_TRUNC, &rv) < 0)
			break;
		n++;
	}
	return n;
}

/* Send until refused; returns how many were accepted, *err the errno. */
static int fill(int fd, int max, int *err)
{
	int i, rv = 0;

	for (i = 0; i < max; i++) {
		rv = send_si(fd, 0x06, 0x01, NULL, 0);
		if (rv)
			break;
	}
	*err = -rv;
	return i;
}

/* As UID, open DEV, send N requests and read their answers (20 s each
 * at most): 100 * sent + answered, or -errno when the open fails, -1000
 * when the child said nothing. */
static int as_uid(const char *dev, int uid, int n)
{
	int pfd[2], st, got = -1000;
	pid_t pid;

	if (pipe(pfd) < 0)
		return -1000;
	pid = fork();
	if (pid == 0) {
		int c, r, e;

		close(pfd[0]);
		if (setuid((uid_t)uid) < 0)
			_exit(3);
		c = open(dev, O_RDWR);
		if (c < 0) {
			r = -errno;
		} else {
			r = fill(c, n, &e);
			r = r * 100 + drain_max(c, 20000, r);
		}
		if (write(pfd[1], &r, sizeof(r)) != sizeof(r))
			_exit(5);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &got, sizeof(got)) != sizeof(got))
		got = -1000;
	close(pfd[0]);
	waitpid(pid, &st, 0);
	return got;
}

static int cmd_share(const char *dev, int queue, int uid)
{
	int a = open_dev(dev), b = open_dev(dev), na, nb, nc, ea, eb, ec;
	int fshare = queue / 2 ? queue / 2 : 1;
	int ushare = queue * 3 / 4 ? queue * 3 / 4 : 1;

	/* One request runs (the BMC is slow): the rest are queued. A
	 * little slack for the one(s) dispatched meanwhile. */
	na = fill(a, queue * 2, &ea);
	CHECK(ea == EBUSY && na >= fshare && na <= fshare + 2,
	      "file 1: %d accepted, then %s (share %d queued of queue %d)", na,
	      strerror(ea), fshare, queue);
	nb = fill(b, queue * 2, &eb);
	CHECK(eb == EBUSY && na + nb >= ushare && na + nb <= ushare + 3,
	      "file 2, same uid: %d accepted, then %s (uid share %d in all)",
	      nb, strerror(eb), ushare);
	nc = as_uid(dev, uid, 2);
	ec = nc < 0 ? 0 : nc / 100;
	CHECK(nc >= 0 && ec >= 1 && nc % 100 == ec,
	      "uid %d on the same node: %d sent, %d answered", uid, ec,
	      nc < 0 ? -1 : nc % 100);
	drain(a, 100);
	drain(b, 100);
	close(a);
	close(b);
	return 0;
}

static int cmd_opens(const char *dev, int max, int uid)
{
	int fds[256], n = 0, e = 0, got;
	int share = max * 3 / 4 ? max * 3 / 4 : 1;

	while (n < (int)(sizeof(fds) / sizeof(fds[0])) && n <= max) {
		fds[n] = open(dev, O_RDWR);
		if (fds[n] < 0) {
			e = errno;
			break;
		}
		n++;
	}
	CHECK(n == share && e == EBUSY,
	      "one uid: %d files open, then %s (share %d of max_clients %d)", n,
	      e ? strerror(e) : "no refusal", share, max);
	got = as_uid(dev, uid, 1);
	CHECK(got == 101, "uid %d still opens the node and is answered (%d)",
	      uid, got);
	while (n > 0)
		close(fds[--n]);
	return 0;
}

/* ---- fuzz ---- */

static unsigned int rnd_state;

static unsigned int rnd(unsigned int n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return n ? (rnd_state >> 8) % n : 0;
}

static uint8_t cks(const uint8_t *p, size_t n)
{
	uint8_t s = 0;

	while (n--)
		s = (uint8_t)(s + *p++);
	return (uint8_t)-s;
}

/* netfn:cmd pairs a hostile client tries: dangerous, allowed-looking,
 * tunnels, responses */
static void pick_cmd(uint8_t *netfn, uint8_t *cmd)
{
	static const uint8_t pairs[][2] = {
		{ 0x00, 0x02 }, { 0x00, 0x01 }, { 0x06, 0x01 }, { 0x06, 0x34 },
		{ 0x06, 0x33 }, { 0x06, 0x52 }, { 0x06, 0x22 }, { 0x06, 0x24 },
		{ 0x0a, 0x47 }, { 0x0a, 0x40 }, { 0x0a, 0x23 }, { 0x04, 0x2d },
		{ 0x02, 0x01 }, { 0x2c, 0x00 }, { 0x2e, 0x01 }, { 0x30, 0x05 },
		{ 0x3e, 0x01 }, { 0x0c, 0x01 }, { 0x08, 0x00 }, { 0x06, 0x02 },
		{ 0x2c, 0x01 }, { 0x2c, 0x02 }, { 0x2c, 0x03 },
	};
	unsigned int k = rnd(10);

	if (k < 7) {
		k = rnd(sizeof(pairs) / sizeof(pairs[0]));
		*netfn = pairs[k][0];
		*cmd = pairs[k][1];
	} else {
		*netfn = (uint8_t)rnd(64);
		*cmd = (uint8_t)rnd(256);
	}
	if (rnd(20) == 0)
		*netfn |= 1; /* a response netfn */
	if (rnd(16) == 0)    /* bits the wire drops (netfn << 2) */
		*netfn = (uint8_t)(*netfn | (1 + rnd(3)) << 6);
}

/* Group extension data (netfn 2c): mostly a defining body the presets name
 * (00 PICMG, 03 VITA, dc DCMI), so the body rules are tried every run. */
static size_t gx_data(uint8_t *d, size_t len)
{
	static const uint8_t bodies[] = { 0x00, 0x03, 0xdc, 0x01 };

	if (len == 0 && rnd(4))
		len = 1 + rnd(4);
	for (size_t k = 0; k < len; k++)
		d[k] = (uint8_t)rnd(256);
	if (len && rnd(4))
		d[0] = bodies[rnd(sizeof(bodies))];
	return len;
}

/* A Send Message body nested DEPTH more times at OUT; returns its length. */
static size_t body(uint8_t *out, size_t cap, unsigned int depth)
{
	uint8_t netfn, cmd, inner[IPMI_MAX_MSG_LENGTH];
	size_t n = 0, k, ilen = 0, start;
	unsigned int chan = rnd(4) == 0 ? rnd(16) : 0;

	if (cap < 16)
		return 0;
	out[n++] = (uint8_t)(chan | (rnd(4) == 0 ? rnd(4) << 6 : 0) |
			     (rnd(8) == 0 ? 0x30 : 0));
	if (rnd(6) == 0)
		out[n++] =
			rnd(2) ? 0x00 : (uint8_t)rnd(256); /* bcast/session */
	out[n++] = (uint8_t)(rnd(3) ? 0x20 : rnd(256));
	if (depth) {
		netfn = 0x06;
		cmd = 0x34;
	} else {
		pick_cmd(&netfn, &cmd);
	}
	out[n++] = (uint8_t)(netfn << 2 | rnd(4));
	out[n] = cks(out + n - 2, 2);
	n++;
	start = n;
	out[n++] = 0x81;
	out[n++] = (uint8_t)(rnd(64) << 2 | rnd(4));
	out[n++] = cmd;
	if (depth)
		ilen = body(inner, cap - n - 2, depth - 1);
	else
		for (k = rnd(6); k; k--)
			inner[ilen++] = (uint8_t)rnd(256);
	if (!depth && netfn == 0x2c)
		ilen = gx_data(inner, ilen);
	memcpy(out + n, inner, ilen);
	n += ilen;
	out[n] = cks(out + start, n - start);
	n++;
	/* truncated or padded */
	k = rnd(8);
	if (k == 0)
		n = rnd((unsigned int)n + 1);
	else if (k == 1 && n + 4 < cap)
		for (k = 1 + rnd(4); k; k--)
			out[n++] = (uint8_t)rnd(256);
	return n;
}

static int cmd_fuzz(const char *dev, unsigned int seed, long count)
{
	int fd = open_dev(dev);
	long i, sent = 0, refused = 0, answered = 0, reopened = 0;
	int got;
	unsigned char data[IPMI_MAX_MSG_LENGTH];
	union {
		struct ipmi_addr any;
		struct ipmi_system_interface_addr si;
		struct ipmi_ipmb_addr ipmb;
		struct ipmi_lan_addr lan;
	} ad;
	struct ipmi_req r;
	struct ipmi_req_settime rs;
	uint8_t netfn, cmd;
	size_t len, k;
	unsigned int depth, kind;
	int rv, mm;

	/* The Cold Resets it may send would have the daemon refuse every
	 * request for 30 s each (maintenance mode, as stock since 6.18):
	 * off for the run, auto again after (the mode is the BMC's). */
	mm = IPMI_MAINTENANCE_MODE_OFF;
	(void)ioctl(fd, IPMICTL_SET_MAINTENANCE_MODE_CMD, &mm);
	rnd_state = seed;
	for (i = 0; i < count; i++) {
		memset(&ad, 0, sizeof(ad));
		kind = rnd(10);
		if (kind < 4) {
			ad.si.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
			ad.si.channel = IPMI_BMC_CHANNEL;
			ad.si.lun = (unsigned char)(rnd(5) ? 0 : rnd(8));
		} else if (kind < 9) {
			ad.ipmb.addr_type =
				rnd(4) ? IPMI_IPMB_ADDR_TYPE :
					 IPMI_IPMB_BROADCAST_ADDR_TYPE;
			ad.ipmb.channel = (short)(rnd(4) ? 0 : rnd(18));
			ad.ipmb.slave_addr =
				(unsigned char)(rnd(2) ? 0x20 : rnd(256));
			ad.ipmb.lun = (unsigned char)(rnd(5) ? 0 : rnd(8));
		} else {
			ad.lan.addr_type = IPMI_LAN_ADDR_TYPE;
			ad.lan.channel = (short)rnd(16);
			ad.lan.remote_SWID = (unsigned char)rnd(256);
			ad.lan.local_SWID = 0x81;
			ad.lan.lun = (unsigned char)rnd(4);
		}
		if (kind >= 4 && rnd(2)) {
			/* Send Message (double bridging) nested DEPTH deep */
			netfn = 0x06;
			cmd = 0x34;
			depth = rnd(4);
			len = body(data, sizeof(data) - 12, depth);
		} else {
			pick_cmd(&netfn, &cmd);
			len = rnd(4) ? rnd(8) : rnd(40);
			for (k = 0; k < len; k++)
				data[k] = (uint8_t)rnd(256);
			if (netfn == 0x2c)
				len = gx_data(data, len);
		}
		memset(&r, 0, sizeof(r));
		r.addr = (unsigned char *)&ad;
		r.addr_len = sizeof(ad);
		r.msgid = msgid_next++;
		r.msg.netfn = netfn;
		r.msg.cmd = cmd;
		r.msg.data = data;
		r.msg.data_len = (unsigned short)len;
		if (rnd(8) == 0) {
			rs.req = r;
			rs.retries = rnd(2) ? 1000000 : (int)rnd(3);
			rs.retry_time_ms = rnd(2) ? 1 : rnd(3000);
			rv = ioctl(fd, IPMICTL_SEND_COMMAND_SETTIME, &rs) < 0 ?
				     -errno :
				     0;
		} else {
			rv = ioctl(fd, IPMICTL_SEND_COMMAND, &r) < 0 ? -errno :
								       0;
		}
		if (rv) {
			refused++;
		} else {
			sent++;
		}
		/* read what came; when the node says busy (EBUSY: queue or
		 * outstanding; EAGAIN: its IPMB slots), wait a little, then
		 * leave like a client that gives up: close and reopen */
		got = drain(fd, rv == -EBUSY || rv == -EAGAIN ? 200 : 0);
		answered += got;
		if ((rv == -EBUSY || rv == -EAGAIN) && got == 0) {
			close(fd);
			fd = open_dev(dev);
			reopened++;
		}
	}
	answered += drain(fd, 1000);
	mm = IPMI_MAINTENANCE_MODE_AUTO;
	(void)ioctl(fd, IPMICTL_SET_MAINTENANCE_MODE_CMD, &mm);
	printf("fuzz: dev=%s seed=%u tried=%ld sent=%ld refused_errno=%ld "
	       "answered=%ld reopened=%ld\n",
	       dev, seed, count, sent, refused, answered, reopened);
	close(fd);
	return 0;
}

/* Open DEV, one call, wait for FILE to exist, the same call again: it
 * must fail with EACCES (the reload took the user's access away). */
static int cmd_revoked(const char *dev, const char *file)
{
	int fd = open_dev(dev), rv, i;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	rv = geti(fd, IPMICTL_GET_MY_ADDRESS_CMD);
	CHECK(rv >= 0, "before: GET_MY_ADDRESS %s",
	      rv < 0 ? strerror(-rv) : "ok");
	for (i = 0; i < 400 && access(file, F_OK) != 0; i++)
		usleep(50000);
	rv = geti(fd, IPMICTL_GET_MY_ADDRESS_CMD);
	CHECK(rv == -EACCES, "after the reload: GET_MY_ADDRESS %s (EACCES)",
	      rv < 0 ? strerror(-rv) : "ok");
	rv = send_si(fd, 0x06, 0x01, NULL, 0);
	CHECK(rv == -EACCES, "after the reload: SEND %s (EACCES)",
	      rv < 0 ? strerror(-rv) : "ok");
	rv = poll(&p, 1, 0);
	CHECK(rv == 1 && (p.revents & POLLERR), "poll: revents 0x%x (POLLERR)",
	      p.revents);
	close(fd);
	return 0;
}

/* The oracle's phase marker: OEM 3e:7e "KMX" NAME through DEV. */
static int cmd_slots(const char *dev, int share)
{
	int fd = open_dev(dev), n = 0, rv = 0, mode = 1;
	struct ipmi_ipmb_addr ipmb = {
		.addr_type = IPMI_IPMB_ADDR_TYPE,
		.channel = 0,
		.slave_addr = 0x90,
	};
	struct ipmi_req_settime rq = {
		.req = { .addr = (unsigned char *)&ipmb,
			 .addr_len = sizeof(ipmb),
			 .msg = { .netfn = 0x06, .cmd = 0x01 } },
		.retries = 10,
		.retry_time_ms = 60000,
	};

	while (n < 100) {
		rq.req.msgid = msgid_next++;
		if (ioctl(fd, IPMICTL_SEND_COMMAND_SETTIME, &rq) < 0) {
			rv = -errno;
			break;
		}
		n++;
	}
	CHECK(n == share && rv == -EAGAIN,
	      "%s: %d bridged requests held, then %s (share %d, EAGAIN)", dev,
	      n, rv ? strerror(-rv) : "none refused", share);
	rv = ioctl(fd, IPMICTL_SET_MAINTENANCE_MODE_CMD, &mode) < 0 ? -errno :
								      0;
	CHECK(rv == -EPERM, "%s: SET_MAINTENANCE_MODE: %s (EPERM)", dev,
	      rv ? strerror(-rv) : "ok");
	rv = geti(fd, IPMICTL_GET_MAINTENANCE_MODE_CMD);
	CHECK(rv == 0, "%s: GET_MAINTENANCE_MODE: %d (auto)", dev, rv);
	close(fd);
	return 0;
}

static int cmd_mark(const char *dev, const char *name)
{
	unsigned char data[64] = "KMX";
	size_t n = strlen(name);
	int fd = open_dev(dev), rv;

	if (n > sizeof(data) - 3)
		n = sizeof(data) - 3;
	memcpy(data + 3, name, n);
	rv = send_si(fd, 0x3e, 0x7e, data, (unsigned short)(3 + n));
	CHECK(rv == 0 && drain_max(fd, 10000, 1) == 1, "marker %s sent", name);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "addr") == 0)
		cmd_addr(argv[2], argv[3]);
	else if (argc >= 3 && strcmp(argv[1], "reg") == 0)
		cmd_reg(argv[2]);
	else if (argc >= 3 && strcmp(argv[1], "reg-denied") == 0)
		cmd_reg_denied(argv[2]);
	else if (argc >= 5 && strcmp(argv[1], "share") == 0)
		cmd_share(argv[2], atoi(argv[3]), atoi(argv[4]));
	else if (argc >= 5 && strcmp(argv[1], "opens") == 0)
		cmd_opens(argv[2], atoi(argv[3]), atoi(argv[4]));
	else if (argc >= 4 && strcmp(argv[1], "slots") == 0)
		cmd_slots(argv[2], atoi(argv[3]));
	else if (argc >= 4 && strcmp(argv[1], "mark") == 0)
		cmd_mark(argv[2], argv[3]);
	else if (argc >= 4 && strcmp(argv[1], "revoked") == 0)
		cmd_revoked(argv[2], argv[3]);
	else if (argc >= 5 && strcmp(argv[1], "fuzz") == 0)
		cmd_fuzz(argv[2], (unsigned int)strtoul(argv[3], NULL, 0),
			 atol(argv[4]));
	else {
		fprintf(stderr,
			"usage: kcsmux-ipmi-hostile addr DEV_A DEV_B | "
			"reg DEV | reg-denied DEV | share DEV QUEUE UID | "
			"opens DEV MAX UID | slots DEV SHARE | "
			"fuzz DEV SEED COUNT\n");
		return 2;
	}
	return fails ? 1 : 0;
}
