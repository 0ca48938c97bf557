// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmuxd's kcsraw backend in SMI mode (fused/backend/kcsraw.c, smidev.c):
 * which /dev/ipmiN is kcsraw's own interface (a fake /sys/class/ipmi), and
 * what the backend does when the module says KCSRAW_INFO_ASYNC: no SMS_ATN
 * reports, bridged requests and events through the stock node, system
 * interface requests on /dev/kcsraw0, and without the stock node one error
 * naming ipmi_devintf and no path for bridged requests. The devices are
 * regular files; ioctl() is wrapped (-Wl,--wrap=ioctl) and plays kcsraw.ko
 * and ipmi_devintf.
 */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "backend/backend.h"
#include "util/log.h"
#include "util/stocknode.h"

int __wrap_ioctl(int fd, unsigned long req, ...);
int __real_ioctl(int fd, unsigned long req, ...);

/* What the fake kernel says and saw. */
static struct {
	uint32_t info_flags;
	uint32_t index;
	int submit_fd, submits; /* KCSRAW_IOC_SUBMIT */
	int send_fd, sends;	/* IPMICTL_SEND_COMMAND_SETTIME */
	int send_addr_type;
	long send_msgid;
	uint8_t send_netfn, send_cmd, send_data0;
	int regs; /* IPMICTL_REGISTER_FOR_CMD_CHANS */
	uint32_t reg_chans;
	int queued_type; /* what RECEIVE_MSG_TRUNC returns next, 0: none */
	long queued_msgid;
	bool take_cmd; /* cbs.command's answer */
	int events_fd; /* IPMICTL_SET_GETS_EVENTS_CMD */
	int attn_asked;
	int kcsraw_fd;	   /* the fake /dev/kcsraw0: an empty file */
	bool event_queued; /* one event for RECEIVE_MSG_TRUNC */
	int attentions, events, completions;
	uint8_t event_data[16];
	int relay_binds;      /* KCSRAW_IOC_RELAY_BIND */
	uint32_t bad_version; /* KCSRAW_IOC_INFO says this uapi, 0: ours */
} k;

ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n);

/* The fake /dev/kcsraw0 is an empty file; the device, empty, says
 * EAGAIN (the backend then asks KCSRAW_IOC_ATTN). */
ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	ssize_t r = __real_read(fd, buf, n);

	if (r == 0 && fd == k.kcsraw_fd) {
		errno = EAGAIN;
		return -1;
	}
	return r;
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == KCSRAW_IOC_INFO) {
		struct kcsraw_info *i = arg;

		memset(i, 0, sizeof(*i));
		i->size = sizeof(*i);
		i->version =
			k.bad_version ? k.bad_version : KCSRAW_UAPI_VERSION;
		i->index = k.index;
		i->flags = k.info_flags;
		i->queue_depth = 2;
		return 0;
	}
	if (req == KCSRAW_IOC_RELAY_BIND) {
		k.relay_binds++;
		return 0;
	}
	if (req == KCSRAW_IOC_SUBMIT) {
		k.submit_fd = fd;
		k.submits++;
		return 0;
	}
	if (req == KCSRAW_IOC_ATTN) {
		struct kcsraw_attn *a = arg;

		memset(a, 0, sizeof(*a));
		a->pending = 1;
		k.attn_asked++;
		return 0;
	}
	if (req == IPMICTL_SET_GETS_EVENTS_CMD) {
		k.events_fd = fd;
		return 0;
	}
	if (req == IPMICTL_SEND_COMMAND_SETTIME) {
		struct ipmi_req_settime *r = arg;
		struct ipmi_addr *a = (struct ipmi_addr *)r->req.addr;

		k.send_fd = fd;
		k.sends++;
		k.send_addr_type = a->addr_type;
		k.send_msgid = r->req.msgid;
		k.send_netfn = r->req.msg.netfn;
		k.send_cmd = r->req.msg.cmd;
		k.send_data0 = r->req.msg.data_len ? r->req.msg.data[0] : 0;
		return 0;
	}
	if (req == IPMICTL_REGISTER_FOR_CMD_CHANS) {
		const struct ipmi_cmdspec_chans *cs = arg;

		k.regs++;
		k.reg_chans = cs->chans;
		return 0;
	}
	if (req == IPMICTL_RECEIVE_MSG_TRUNC) {
		struct ipmi_recv *r = arg;
		struct ipmi_system_interface_addr si = {
			.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
			.channel = IPMI_BMC_CHANNEL,
		};

		if (k.queued_type) {
			struct ipmi_ipmb_addr ia = {
				.addr_type = IPMI_IPMB_ADDR_TYPE,
				.slave_addr = 0x40,
			};

			memcpy(r->addr, &ia, sizeof(ia));
			r->addr_len = sizeof(ia);
			r->recv_type = k.queued_type;
			r->msgid = k.queued_msgid;
			r->msg.netfn = k.queued_type == IPMI_CMD_RECV_TYPE ?
					       0x32 :
					       0x33;
			r->msg.cmd = 0x05;
			r->msg.data[0] = 0;
			r->msg.data_len = 1;
			k.queued_type = 0;
			return 0;
		}
		if (!k.event_queued) {
			errno = EAGAIN;
			return -1;
		}
		k.event_queued = false;
		memcpy(r->addr, &si, sizeof(si));
		r->addr_len = sizeof(si);
		r->recv_type = IPMI_ASYNC_EVENT_RECV_TYPE;
		r->msg.netfn = 0x07;
		r->msg.cmd = 0x35;
		memcpy(r->msg.data, k.event_data, 16);
		r->msg.data_len = 16;
		return 0;
	}
	return __real_ioctl(fd, req, arg);
}

static uint64_t last_cookie;
static uint8_t last_resp[4];

static void cb_completion(void *arg, uint64_t cookie, int status,
			  const uint8_t *resp, unsigned int len,
			  const struct kcsraw_cost *cost)
{
	(void)arg, (void)cost;
	ck_assert_int_eq(status, 0);
	ck_assert_uint_ge(len, 3);
	memcpy(last_resp, resp, 3);
	last_cookie = cookie;
	k.completions++;
}

static int commands;

static bool cb_command(void *arg, const struct ipmb_user_msg *m)
{
	(void)arg;
	ck_assert_int_eq(m->recv_type, IPMI_CMD_RECV_TYPE);
	ck_assert_int_eq(m->netfn, 0x32);
	ck_assert_int_eq(m->cmd, 0x05);
	ck_assert_int_eq(m->addr.slave_addr, 0x40);
	ck_assert_int_eq(m->msgid, 9);
	commands++;
	return k.take_cmd;
}

static void cb_hosed(void *arg)
{
	(void)arg;
}

static void cb_attention(void *arg)
{
	(void)arg;
	k.attentions++;
}

static void cb_event(void *arg, const struct ipmb_user_msg *m)
{
	(void)arg;
	ck_assert_int_eq(m->recv_type, IPMI_ASYNC_EVENT_RECV_TYPE);
	ck_assert_int_eq(m->data_len, 16);
	ck_assert_mem_eq(m->data, k.event_data, 16);
	k.events++;
}

static void cb_room(void *arg)
{
	(void)arg;
}

static const struct backend_cbs cbs = {
	.completion = cb_completion,
	.hosed = cb_hosed,
	.attention = cb_attention,
	.event = cb_event,
	.room = cb_room,
	.command = cb_command,
};

static char dir[64];
static char kcsraw_path[96], ipmi_path[96];
static struct event_base *base;

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fclose(f);
}

/* A /sys/class/ipmi with ipmi0 on ipmi_si and ipmi1 on kcsraw.N. */
static char *fake_sysfs(unsigned int n)
{
	char p[160], t[64];
	char *cls;

	ck_assert_int_ge(asprintf(&cls, "%s/class", dir), 0);
	ck_assert_int_eq(mkdir(cls, 0700), 0);
	snprintf(p, sizeof(p), "%s/ipmi0", cls);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/ipmi0/device", cls);
	ck_assert_int_eq(symlink("../../../devices/platform/ipmi_si.0", p), 0);
	snprintf(p, sizeof(p), "%s/ipmi1", cls);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/ipmi1/device", cls);
	snprintf(t, sizeof(t), "../../../devices/platform/kcsraw.%u", n);
	ck_assert_int_eq(symlink(t, p), 0);
	return cls;
}

static void setup(void)
{
	struct event_config *ec = event_config_new();

	memset(&k, 0, sizeof(k));
	k.submit_fd = k.send_fd = k.events_fd = k.kcsraw_fd = -1;
	for (int i = 0; i < 16; i++)
		k.event_data[i] = (uint8_t)(0xa0 + i);
	snprintf(dir, sizeof(dir), "/tmp/kcsmux-smimode-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(kcsraw_path, sizeof(kcsraw_path), "%s/kcsraw0", dir);
	snprintf(ipmi_path, sizeof(ipmi_path), "%s/ipmi1", dir);
	touch(kcsraw_path);
	touch(ipmi_path);
	/* poll(): a regular file is always readable (epoll refuses it) */
	ck_assert_ptr_nonnull(ec);
	event_config_avoid_method(ec, "epoll");
	base = event_base_new_with_config(ec);
	event_config_free(ec);
	ck_assert_ptr_nonnull(base);
}

static void teardown(void)
{
	char cmd[128];

	event_base_free(base);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_devnode_found)
{
	char *cls, buf[32];

	cls = fake_sysfs(3);
	ck_assert_int_eq(stocknode_find(cls, 3, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/dev/ipmi1");
	/* another kcsraw interface, ipmi_si's: not ours */
	ck_assert_int_eq(stocknode_find(cls, 0, buf, sizeof(buf)), -ENOENT);
	/* kcsraw.3 is not kcsraw.31's prefix match either way */
	ck_assert_int_eq(stocknode_find(cls, 31, buf, sizeof(buf)), -ENOENT);
	free(cls);
}
END_TEST

START_TEST(test_devnode_no_devintf)
{
	char cls[128], buf[32];

	/* ipmi_devintf not loaded: no /sys/class/ipmi */
	snprintf(cls, sizeof(cls), "%s/nothing", dir);
	ck_assert_int_eq(stocknode_find(cls, 0, buf, sizeof(buf)), -ENOENT);
}
END_TEST

static struct backend *open_be(const struct backend_kcsraw_opts *o)
{
	char *cause = NULL;
	struct backend *be =
		backend_kcsraw_open(base, kcsraw_path, o, &cbs, NULL, &cause);

	ck_assert_msg(be != NULL, "%s", cause ? cause : "?");
	k.kcsraw_fd = be->fd;
	return be;
}

static int submit(struct backend *be, const struct ipmi_address *addr)
{
	static const uint8_t req[] = { 0x06 << 2, 0x01 };
	struct kcsraw_policy pol = { .flags = KCSRAW_POL_DEFAULT };
	struct backend_req r = {
		.cookie = 77,
		.pol = &pol,
		.req = req,
		.len = sizeof(req),
		.addr = addr,
		.retries = 1,
		.retry_ms = 100,
	};

	return be->ops->submit(be, &r);
}

/* A system-interface request of these bytes. */
static int submit_raw(struct backend *be, const uint8_t *req, unsigned int len)
{
	struct kcsraw_policy pol = { .flags = KCSRAW_POL_DEFAULT };
	struct backend_req r = {
		.cookie = 78,
		.pol = &pol,
		.req = req,
		.len = len,
	};

	return be->ops->submit(be, &r);
}

static const struct ipmi_address ipmb = {
	.addr_type = IPMI_IPMB_ADDR_TYPE,
	.channel = 0,
	.slave_addr = 0x72,
};

/* Without KCSRAW_INFO_ASYNC: the daemon's own SMS_ATN machine, as before. */
START_TEST(test_plain_mode)
{
	struct backend *be = open_be(NULL);

	ck_assert(!be->bridges);
	ck_assert_int_lt(be->async_fd, 0);
	event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	ck_assert_int_ge(k.attn_asked, 1);
	ck_assert_int_ge(k.attentions, 1);
	ck_assert_int_eq(submit(be, &ipmb), -EAFNOSUPPORT);
	be->ops->destroy(be);
}
END_TEST

START_TEST(test_async_mode)
{
	struct backend_kcsraw_opts o = { .async_dev = ipmi_path };
	struct backend *be;

	k.info_flags = KCSRAW_INFO_SMI | KCSRAW_INFO_ASYNC;
	be = open_be(&o);
	ck_assert(be->bridges);
	ck_assert(!be->no_bridge);
	ck_assert_int_ge(be->async_fd, 0);
	ck_assert_int_eq(k.events_fd, be->async_fd);
	/* SMS_ATN is the kernel's: never reported, not even asked */
	k.event_queued = true;
	event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	ck_assert_int_eq(k.attn_asked, 0);
	ck_assert_int_eq(k.attentions, 0);
	/* the kernel's event reached the core once */
	ck_assert_int_eq(k.events, 1);
	/* a bridged request goes to the stock node, the cookie as msgid */
	ck_assert_int_eq(submit(be, &ipmb), 0);
	ck_assert_int_eq(k.sends, 1);
	ck_assert_int_eq(k.send_fd, be->async_fd);
	ck_assert_int_eq(k.send_addr_type, IPMI_IPMB_ADDR_TYPE);
	ck_assert_int_eq(k.send_msgid, 77);
	ck_assert_int_eq(k.submits, 0);
	/* a system-interface one stays on /dev/kcsraw0 */
	ck_assert_int_eq(submit(be, NULL), 0);
	ck_assert_int_eq(k.submits, 1);
	ck_assert_int_eq(k.submit_fd, be->fd);
	ck_assert_int_eq(k.sends, 1);
	ck_assert_uint_eq(be->inflight, 2);
	/* Clear Message Flags, which /dev/kcsraw0 refuses in this mode and
	 * the kernel lets its users send: through the stock node */
	ck_assert_int_eq(submit_raw(be, (const uint8_t[]){ 0x06 << 2, 0x30, 0 },
				    3),
			 0);
	ck_assert_int_eq(k.sends, 2);
	ck_assert_int_eq(k.send_fd, be->async_fd);
	ck_assert_int_eq(k.send_addr_type, IPMI_SYSTEM_INTERFACE_ADDR_TYPE);
	ck_assert_int_eq(k.send_cmd, 0x30);
	ck_assert_int_eq(k.submits, 1);
	be->ops->destroy(be);
}
END_TEST

/* The module does not say it; the tests' switch (force_async) does. */
START_TEST(test_forced_async_found_in_sysfs)
{
	struct backend_kcsraw_opts o = { .force_async = true };
	FILE *errs = tmpfile();
	char line[512] = "";
	struct backend *be;

	ck_assert_ptr_nonnull(errs);
	k.index = 3;
	o.sysfs_ipmi = fake_sysfs(3);
	log_set_startup(errs);
	be = open_be(&o);
	log_set_startup(NULL);
	/* found /dev/ipmi1, which the host does not have: one error */
	ck_assert(be->bridges);
	ck_assert(be->no_bridge);
	ck_assert_int_lt(be->async_fd, 0);
	rewind(errs);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), errs));
	ck_assert_ptr_nonnull(strstr(line, "/dev/ipmi1"));
	ck_assert_ptr_nonnull(strstr(line, "modprobe ipmi_devintf"));
	ck_assert_ptr_null(fgets(line, sizeof(line), errs));
	fclose(errs);
	free((char *)o.sysfs_ipmi);
	be->ops->destroy(be);
}
END_TEST

/* The backend opened with OPTS and kcsraw interface INDEX; its warnings
 * (stderr, level warning) in WARN. */
static struct backend *open_be_warnings(const struct backend_kcsraw_opts *o,
					unsigned int index, char *warn,
					size_t len)
{
	FILE *f = tmpfile();
	struct backend *be;
	size_t n;
	int saved;

	ck_assert_ptr_nonnull(f);
	k.index = index;
	log_init(true, LOG_WARNING);
	fflush(stderr);
	saved = dup(2);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(dup2(fileno(f), 2), 2);
	be = open_be(o);
	fflush(stderr);
	ck_assert_int_eq(dup2(saved, 2), 2);
	close(saved);
	rewind(f);
	n = fread(warn, 1, len - 1, f);
	warn[n] = '\0';
	fclose(f);
	return be;
}

/*
 * The relay bound (KCSRAW_INFO_RELAY): no stock node needed; one that
 * ipmi_devintf made on this interface anyway is named in a warning with
 * what it bypasses; another interface's, or none, gives no warning.
 */
START_TEST(test_relay_warns_of_stock_node)
{
	struct backend_kcsraw_opts o = { 0 };
	char warn[1024], cls[128];
	struct backend *be;

	k.info_flags = KCSRAW_INFO_SMI | KCSRAW_INFO_ASYNC | KCSRAW_INFO_RELAY;
	o.sysfs_ipmi = fake_sysfs(3); /* ipmi1 on kcsraw.3 */
	be = open_be_warnings(&o, 3, warn, sizeof(warn));
	ck_assert_int_eq(k.relay_binds, 1);
	ck_assert(be->relay);
	ck_assert(!be->no_bridge);
	ck_assert_msg(strstr(warn, "/dev/ipmi1 is a stock device on kcsraw's "
				   "interface") != NULL,
		      "%s", warn);
	ck_assert_ptr_nonnull(strstr(warn, "access list, priority, rate "
					   "limit, CPU budget and accounting"));
	ck_assert_ptr_nonnull(strstr(warn, "modprobe -r ipmi_devintf"));
	be->ops->destroy(be);
	/* interface 2: kcsraw.3's node is not its own */
	be = open_be_warnings(&o, 2, warn, sizeof(warn));
	ck_assert(be->relay);
	ck_assert_str_eq(warn, "");
	be->ops->destroy(be);
	free((char *)o.sysfs_ipmi);
	/* ipmi_devintf not loaded: no class directory, no warning */
	snprintf(cls, sizeof(cls), "%s/nothing", dir);
	o.sysfs_ipmi = cls;
	be = open_be_warnings(&o, 3, warn, sizeof(warn));
	ck_assert(be->relay);
	ck_assert_str_eq(warn, "");
	be->ops->destroy(be);
}
END_TEST

/* ipmi_devintf not loaded: one error naming it; no path for IPMB. */
START_TEST(test_async_no_devintf)
{
	struct backend_kcsraw_opts o = { 0 };
	FILE *errs = tmpfile();
	char line[512] = "", cls[128];
	struct backend *be;

	ck_assert_ptr_nonnull(errs);
	snprintf(cls, sizeof(cls), "%s/nothing", dir);
	o.sysfs_ipmi = cls;
	k.info_flags = KCSRAW_INFO_SMI | KCSRAW_INFO_ASYNC;
	log_set_startup(errs);
	be = open_be(&o);
	log_set_startup(NULL);
	ck_assert(be->bridges);
	ck_assert(be->no_bridge);
	rewind(errs);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), errs));
	ck_assert_ptr_nonnull(strstr(line, "modprobe ipmi_devintf"));
	ck_assert_ptr_null(fgets(line, sizeof(line), errs));
	fclose(errs);
	event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	ck_assert_int_eq(k.attentions, 0);
	ck_assert_int_eq(submit(be, &ipmb), -EINVAL);
	ck_assert_int_eq(k.sends, 0);
	ck_assert_int_eq(submit(be, NULL), 0);
	ck_assert_int_eq(k.submits, 1);
	be->ops->destroy(be);
}
END_TEST

/*
 * Incoming commands: a registration goes to the stock node; a command a
 * node's client takes goes up, one nobody takes is answered cc 0xC1 with
 * its msgid; a client's reply goes out with the command's msgid (its
 * sequence) and completes when the kernel reports its outcome by it.
 */
START_TEST(test_async_commands)
{
	static const uint8_t reply[] = { 0x33 << 2, 0x05, 0x00, 0x11 };
	struct backend_kcsraw_opts o = { .async_dev = ipmi_path };
	struct kcsraw_policy pol = { .flags = KCSRAW_POL_DEFAULT };
	struct ipmi_address to40 = ipmb;
	struct backend_req r = {
		.cookie = 1234,
		.pol = &pol,
		.req = reply,
		.len = sizeof(reply),
		.addr = &to40,
		.msgid = 9,
	};
	struct backend *be;

	k.info_flags = KCSRAW_INFO_SMI | KCSRAW_INFO_ASYNC;
	be = open_be(&o);
	ck_assert_ptr_nonnull(be->ops->cmd_register);
	ck_assert_int_eq(be->ops->cmd_register(be, 0x32, 0x05, 0x3, true), 0);
	ck_assert_int_eq(k.regs, 1);
	ck_assert_uint_eq(k.reg_chans, 0x3);
	/* nobody takes it: the backend answers cc 0xC1, msgid 9 */
	commands = 0;
	k.queued_type = IPMI_CMD_RECV_TYPE;
	k.queued_msgid = 9;
	event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	ck_assert_int_eq(commands, 1);
	ck_assert_int_eq(k.sends, 1);
	ck_assert_int_eq(k.send_netfn, 0x33);
	ck_assert_int_eq(k.send_data0, 0xc1);
	ck_assert_int_eq(k.send_msgid, 9);
	/* taken: nothing sent; the client's reply carries msgid 9 */
	k.take_cmd = true;
	k.queued_type = IPMI_CMD_RECV_TYPE;
	event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	ck_assert_int_eq(commands, 2);
	ck_assert_int_eq(k.sends, 1);
	to40.slave_addr = 0x40;
	ck_assert_int_eq(be->ops->submit(be, &r), 0);
	ck_assert_int_eq(k.sends, 2);
	ck_assert_int_eq(k.send_msgid, 9);
	ck_assert_int_eq(k.send_netfn, 0x33);
	/* its outcome, by msgid 9, completes cookie 1234 */
	k.queued_type = IPMI_RESPONSE_RESPONSE_TYPE;
	k.queued_msgid = 9;
	event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	ck_assert_int_eq(k.completions, 1);
	ck_assert_uint_eq(last_cookie, 1234);
	ck_assert_uint_eq(last_resp[2], 0);
	ck_assert_uint_eq(be->inflight, 0);
	/* another outcome for msgid 9 matches nothing now */
	k.queued_type = IPMI_RESPONSE_RESPONSE_TYPE;
	event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	ck_assert_int_eq(k.completions, 1);
	be->ops->destroy(be);
}
END_TEST

/* The lowest free descriptor: a leak moves it. */
static int next_fd(void)
{
	int fd = dup(0);

	close(fd);
	return fd;
}

/*
 * A held backend whose attach fails (another module's uapi) is left as it
 * was, nothing open; a later attach to the right module works.
 */
START_TEST(test_attach_fails_clean)
{
	struct backend_kcsraw_opts o = { .async_dev = ipmi_path };
	struct backend *be = backend_kcsraw_held(&cbs, NULL);
	char *cause = NULL;
	int fd0 = next_fd();

	ck_assert_ptr_nonnull(be);
	k.info_flags = KCSRAW_INFO_SMI | KCSRAW_INFO_ASYNC;
	k.bad_version = KCSRAW_UAPI_VERSION + 1;
	ck_assert_int_eq(backend_kcsraw_attach(be, base, kcsraw_path, &o,
					       &cause),
			 -1);
	ck_assert_msg(cause && strstr(cause, "uapi version"), "%s",
		      cause ? cause : "?");
	free(cause);
	cause = NULL;
	ck_assert_int_eq(be->fd, -1);
	ck_assert_int_eq(be->async_fd, -1);
	ck_assert_uint_eq(be->depth, 0);
	ck_assert_int_eq(next_fd(), fd0);
	k.bad_version = 0;
	ck_assert_msg(backend_kcsraw_attach(be, base, kcsraw_path, &o,
					    &cause) == 0,
		      "%s", cause ? cause : "?");
	ck_assert_int_ge(be->fd, 0);
	ck_assert_int_ge(be->async_fd, 0);
	ck_assert(be->bridges);
	be->ops->destroy(be);
	ck_assert_int_eq(next_fd(), fd0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("smimode");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_devnode_found);
	tcase_add_test(tc, test_devnode_no_devintf);
	tcase_add_test(tc, test_plain_mode);
	tcase_add_test(tc, test_async_mode);
	tcase_add_test(tc, test_forced_async_found_in_sysfs);
	tcase_add_test(tc, test_async_no_devintf);
	tcase_add_test(tc, test_relay_warns_of_stock_node);
	tcase_add_test(tc, test_async_commands);
	tcase_add_test(tc, test_attach_fails_clean);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	log_init(true, LOG_ERR);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
