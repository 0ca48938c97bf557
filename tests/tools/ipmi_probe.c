// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmux-ipmi-probe: per-request latency probe for any IPMI device node that
 * speaks the Linux IPMI ioctl ABI (stock /dev/ipmi0 or a kcsmux /dev/ipmiN).
 * Static guest helper; see usage() and docs/guest-tools.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/ipmi.h>

#include "probe_util.h"
#include "stats.h"

#define EXIT_FAILED_REQ 1
#define EXIT_SETUP	2
#define RECV_BUF_LEN	1024 /* what ipmitool uses */

enum mode { MODE_REQ, MODE_IOCTL };
enum outfmt { OUT_HUMAN, OUT_KV, OUT_JSON };

struct opts {
	char dev[256];
	unsigned long long count;
	unsigned long long warmup;
	struct probe_request req;
	bool ipmb;
	uint8_t channel;
	uint8_t slave;
	uint8_t lun;
	unsigned long long timeout_ms;
	unsigned long long interval_us;
	long msgid_start;
	bool events;
	bool set_addr;
	uint8_t my_addr;
	int maint; /* --maint: -1 none, 0-2 SET, 3 GET */
	enum mode mode;
	enum outfmt out;
	bool verbose;
	bool allow_errors;
	bool total_only;
	const char *stop_file; /* --stop-file: end the loop once it exists */
};

struct counters {
	uint64_t ok;
	uint64_t err_errno;
	uint64_t err_cc;
	uint64_t err_timeout;
	uint64_t err_bad;
	uint64_t stray_msgid; /* responses carrying someone else's msgid */
	uint64_t events;      /* non-response messages skipped */
	uint64_t warm_err;    /* failed warm-up requests */
};

enum outcome { OUT_OK, OUT_ERRNO, OUT_CC, OUT_TIMEOUT, OUT_BAD };

static const char *prog = "kcsmux-ipmi-probe";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [options]\n"
		"Send N requests through an IPMI device node and report per-request latency.\n"
		"Each request: IPMICTL_SEND_COMMAND, poll(POLLIN), IPMICTL_RECEIVE_MSG_TRUNC;\n"
		"the response must echo the msgid, have recv_type 1 (response), netfn|1, the\n"
		"same cmd and address type/channel, and completion code 0.\n"
		"\n"
		"  -d DEV          device path, or a number N for /dev/ipmiN (default 0)\n"
		"  -n COUNT        measured requests (default 100)\n"
		"  -w WARMUP       unmeasured requests sent first (default 0)\n"
		"  -r \"NETFN CMD [DATA...]\"  request as hex bytes, blank or comma separated\n"
		"                  (default \"0x06 0x01\": App Get Device ID)\n"
		"  -t SLAVE        send to this IPMB slave address instead of the BMC's\n"
		"                  system interface (type 0x01 address)\n"
		"  -b CHANNEL      IPMB channel for -t (default 0)\n"
		"  -l LUN          target LUN (default 0)\n"
		"  -e              enable events first (IPMICTL_SET_GETS_EVENTS_CMD 1);\n"
		"                  events received are skipped and counted\n"
		"  -m ADDR         IPMICTL_SET_MY_ADDRESS_CMD ADDR first\n"
		"  --maint get|auto|off|on  IPMICTL_GET_MAINTENANCE_MODE_CMD (prints\n"
		"                  'maint: mode=N') or _SET_ (0 auto, 1 off, 2 on), and\n"
		"                  exit without sending requests\n"
		"  --ipmitool      open like ipmitool does: -e and -m 0x20\n"
		"  --timeout MS    per-request response timeout (default 5000)\n"
		"  -i US           sleep US microseconds between requests (default 0)\n"
		"  --msgid-start N first msgid (default 1, then +1 per request)\n"
		"  --mode req      full request round trips (default)\n"
		"  --mode ioctl    IPMICTL_GET_MY_ADDRESS_CMD COUNT times: per-call overhead\n"
		"  --total-only    do not time each call (no percentiles); the mean comes\n"
		"                  from the whole loop, without per-call clock reads\n"
		"  -k              one key=value line for scripts (\"probe: ...\")\n"
		"  -j              JSON object\n"
		"  -v              print each response (or failure) on stderr\n"
		"  --stop-file F   end the requests (COUNT at most) once file F exists;\n"
		"                  n= is then the number sent\n"
		"  --allow-errors  exit 0 even if some requests failed\n"
		"  -h, --help      this help\n"
		"\n"
		"-k prints: probe: dev= mode= n= ok= err= err_errno= err_cc= err_timeout=\n"
		"  err_bad= err_msgid= warm_err= events= [min_us= p50_us= p90_us= p99_us=\n"
		"  max_us= p50_ns=] mean_us= total_us= per_req_ns= cpu_us_per_req= user_us=\n"
		"  sys_us=   (-j: the same keys in one JSON object). The bracketed keys are\n"
		"  left out with --total-only or when no request succeeded. total_us is the\n"
		"  whole measured loop (including -i sleeps), per_req_ns = total / COUNT.\n"
		"\n"
		"Latencies are CLOCK_MONOTONIC from just before SEND to the matching\n"
		"RECEIVE, in microseconds. cpu_us_per_req is this process's own user+sys\n"
		"CPU (getrusage) over the measured loop divided by COUNT. Percentiles are\n"
		"nearest-rank (p50 of an even count is the lower middle sample).\n"
		"err counts failed requests (errno, completion code, timeout, bad response);\n"
		"err_msgid counts stray responses with a msgid we were not waiting for (for\n"
		"example the late answer to a timed-out request).\n"
		"\n"
		"Exit: 0 all ok; 1 a request (warm-up included) failed or a stray response\n"
		"was seen (unless --allow-errors); 2 usage error, or the device could not\n"
		"be opened or set up.\n",
		prog);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000ull + (uint64_t)tv->tv_usec;
}

static uint64_t ns_to_us_round(uint64_t ns)
{
	return (ns + 500) / 1000;
}

static void sleep_us(unsigned long long us)
{
	struct timespec ts = {
		.tv_sec = (time_t)(us / 1000000),
		.tv_nsec = (long)(us % 1000000) * 1000,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static int parse_u(const char *opt, const char *s, unsigned long long max,
		   unsigned long long *out)
{
	if (probe_parse_uint(s, max, out)) {
		fprintf(stderr, "%s: bad value for %s: '%s' (max %llu)\n", prog,
			opt, s, max);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	enum {
		O_TIMEOUT = 256,
		O_MODE,
		O_IPMITOOL,
		O_ALLOW,
		O_MSGID,
		O_TOTAL,
		O_STOP,
		O_MAINT
	};
	static const char *const maints[] = { "auto", "off", "on", "get" };
	static const struct option lopts[] = {
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "mode", required_argument, NULL, O_MODE },
		{ "ipmitool", no_argument, NULL, O_IPMITOOL },
		{ "allow-errors", no_argument, NULL, O_ALLOW },
		{ "msgid-start", required_argument, NULL, O_MSGID },
		{ "total-only", no_argument, NULL, O_TOTAL },
		{ "stop-file", required_argument, NULL, O_STOP },
		{ "maint", required_argument, NULL, O_MAINT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	int c;

	memset(o, 0, sizeof(*o));
	strcpy(o->dev, "/dev/ipmi0");
	o->count = 100;
	o->timeout_ms = 5000;
	o->msgid_start = 1;
	o->maint = -1;
	o->req.netfn = IPMI_NETFN_APP_REQUEST;
	o->req.cmd = IPMI_GET_DEVICE_ID_CMD;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:n:w:r:t:b:l:em:i:kjvh", lopts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			if (probe_device_path(optarg, o->dev, sizeof(o->dev))) {
				fprintf(stderr, "%s: bad device '%s'\n", prog,
					optarg);
				return -1;
			}
			break;
		case 'n':
			if (parse_u("-n", optarg, 100000000ull, &o->count))
				return -1;
			if (o->count == 0) {
				fprintf(stderr, "%s: -n must be >= 1\n", prog);
				return -1;
			}
			break;
		case 'w':
			if (parse_u("-w", optarg, 100000000ull, &o->warmup))
				return -1;
			break;
		case 'r':
			if (probe_parse_request(optarg, &o->req)) {
				fprintf(stderr,
					"%s: bad request '%s' (want \"NETFN CMD [DATA...]\" in hex)\n",
					prog, optarg);
				return -1;
			}
			break;
		case 't':
			if (parse_u("-t", optarg, 0xff, &v))
				return -1;
			o->ipmb = true;
			o->slave = (uint8_t)v;
			break;
		case 'b':
			if (parse_u("-b", optarg, IPMI_NUM_CHANNELS - 1, &v))
				return -1;
			o->channel = (uint8_t)v;
			break;
		case 'l':
			if (parse_u("-l", optarg, 3, &v))
				return -1;
			o->lun = (uint8_t)v;
			break;
		case 'e':
			o->events = true;
			break;
		case 'm':
			if (parse_u("-m", optarg, 0xff, &v))
				return -1;
			o->set_addr = true;
			o->my_addr = (uint8_t)v;
			break;
		case O_MAINT:
			for (o->maint = 0; o->maint < 4; o->maint++)
				if (!strcmp(optarg, maints[o->maint]))
					break;
			if (o->maint == 4) {
				fprintf(stderr,
					"%s: --maint get, auto, off or on\n",
					prog);
				return -1;
			}
			break;
		case O_IPMITOOL:
			o->events = true;
			o->set_addr = true;
			o->my_addr = IPMI_BMC_SLAVE_ADDR;
			break;
		case O_TIMEOUT:
			if (parse_u("--timeout", optarg, 86400000ull,
				    &o->timeout_ms))
				return -1;
			break;
		case 'i':
			if (parse_u("-i", optarg, 60000000ull, &o->interval_us))
				return -1;
			break;
		case O_MSGID:
			if (parse_u("--msgid-start", optarg, 0x7fffffffull, &v))
				return -1;
			o->msgid_start = (long)v;
			break;
		case O_MODE:
			if (!strcmp(optarg, "req")) {
				o->mode = MODE_REQ;
			} else if (!strcmp(optarg, "ioctl")) {
				o->mode = MODE_IOCTL;
			} else {
				fprintf(stderr,
					"%s: --mode must be req or ioctl\n",
					prog);
				return -1;
			}
			break;
		case O_TOTAL:
			o->total_only = true;
			break;
		case O_STOP:
			o->stop_file = optarg;
			break;
		case O_ALLOW:
			o->allow_errors = true;
			break;
		case 'k':
			o->out = OUT_KV;
			break;
		case 'j':
			o->out = OUT_JSON;
			break;
		case 'v':
			o->verbose = true;
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
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog,
			argv[optind]);
		return -1;
	}
	if (o->channel && !o->ipmb) {
		fprintf(stderr, "%s: -b needs -t\n", prog);
		return -1;
	}
	return 0;
}

/* Report the first error of each kind even without -v. */
static void first_error(const struct opts *o, bool *seen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void first_error(const struct opts *o, bool *seen, const char *fmt, ...)
{
	va_list ap;

	if (*seen && !o->verbose)
		return;
	*seen = true;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static bool seen_errno, seen_cc, seen_timeout, seen_bad, seen_stray;

/*
 * One round trip. Returns its outcome; *lat_ns is SEND..matching RECEIVE.
 */
static enum outcome one_request(int fd, const struct opts *o, long msgid,
				struct counters *cnt, uint64_t *lat_ns)
{
	union probe_addr to, from;
	unsigned int to_len =
		probe_build_addr(&to, o->ipmb, o->channel, o->slave, o->lun);
	uint8_t buf[RECV_BUF_LEN];
	struct ipmi_req req = {
		.addr = (unsigned char *)&to,
		.addr_len = to_len,
		.msgid = msgid,
		.msg = {
			.netfn = o->req.netfn,
			.cmd = o->req.cmd,
			.data_len = o->req.data_len,
			.data = o->req.data_len ? (uint8_t *)o->req.data : NULL,
		},
	};
	uint64_t t0, deadline;

	t0 = now_ns();
	deadline = t0 + o->timeout_ms * 1000000ull;
	if (ioctl(fd, IPMICTL_SEND_COMMAND, &req) < 0) {
		first_error(o, &seen_errno, "msgid %ld: SEND_COMMAND: %s\n",
			    msgid, strerror(errno));
		return OUT_ERRNO;
	}
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct ipmi_recv rv;
		uint64_t now = now_ns();
		enum probe_verdict vd;
		int r, ms;

		if (now >= deadline) {
			first_error(o, &seen_timeout,
				    "msgid %ld: no response within %llu ms\n",
				    msgid, o->timeout_ms);
			return OUT_TIMEOUT;
		}
		ms = (int)((deadline - now + 999999) / 1000000);
		r = poll(&pfd, 1, ms);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			first_error(o, &seen_errno, "msgid %ld: poll: %s\n",
				    msgid, strerror(errno));
			return OUT_ERRNO;
		}
		if (r == 0)
			continue;
		if (!(pfd.revents & POLLIN)) {
			first_error(
				o, &seen_errno,
				"msgid %ld: poll revents 0x%x without POLLIN\n",
				msgid, (unsigned int)pfd.revents);
			return OUT_ERRNO;
		}
		memset(&rv, 0, sizeof(rv));
		memset(&from, 0, sizeof(from));
		rv.addr = (unsigned char *)&from;
		rv.addr_len = sizeof(from);
		rv.msg.data = buf;
		rv.msg.data_len = sizeof(buf);
		if (ioctl(fd, IPMICTL_RECEIVE_MSG_TRUNC, &rv) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue; /* spurious wake-up */
			first_error(o, &seen_errno,
				    "msgid %ld: RECEIVE_MSG_TRUNC: %s\n", msgid,
				    strerror(errno));
			return OUT_ERRNO;
		}
		*lat_ns = now_ns() - t0;
		vd = probe_classify(rv.recv_type, rv.msgid, &from.any,
				    rv.msg.netfn, rv.msg.cmd, rv.msg.data,
				    rv.msg.data_len, &o->req, msgid, &to.any);
		if (o->verbose) {
			fprintf(stderr,
				"msgid=%ld recv_type=%d rx_msgid=%ld netfn=0x%02x cmd=0x%02x lat_us=%llu %s data:",
				msgid, rv.recv_type, rv.msgid, rv.msg.netfn,
				rv.msg.cmd,
				(unsigned long long)ns_to_us_round(*lat_ns),
				probe_verdict_name(vd));
			for (unsigned int i = 0;
			     i < rv.msg.data_len && i < sizeof(buf); i++)
				fprintf(stderr, " %02x", buf[i]);
			fputc('\n', stderr);
		}
		switch (vd) {
		case PROBE_OK:
			return OUT_OK;
		case PROBE_NOT_RESPONSE:
			cnt->events++;
			continue;
		case PROBE_MSGID_MISMATCH:
			cnt->stray_msgid++;
			first_error(o, &seen_stray,
				    "msgid %ld: stray response with msgid %ld\n",
				    msgid, rv.msgid);
			continue;
		case PROBE_CC:
			first_error(o, &seen_cc,
				    "msgid %ld: completion code 0x%02x\n",
				    msgid, buf[0]);
			return OUT_CC;
		case PROBE_BAD:
			first_error(
				o, &seen_bad,
				"msgid %ld: bad response (netfn 0x%02x cmd 0x%02x addr type 0x%x ch %d len %u)\n",
				msgid, rv.msg.netfn, rv.msg.cmd,
				from.any.addr_type, from.any.channel,
				rv.msg.data_len);
			return OUT_BAD;
		}
	}
}

static enum outcome one_ioctl(int fd, const struct opts *o)
{
	unsigned int addr = 0;

	if (ioctl(fd, IPMICTL_GET_MY_ADDRESS_CMD, &addr) < 0) {
		first_error(o, &seen_errno, "GET_MY_ADDRESS_CMD: %s\n",
			    strerror(errno));
		return OUT_ERRNO;
	}
	return OUT_OK;
}

static void count_outcome(struct counters *c, enum outcome r)
{
	switch (r) {
	case OUT_OK:
		c->ok++;
		break;
	case OUT_ERRNO:
		c->err_errno++;
		break;
	case OUT_CC:
		c->err_cc++;
		break;
	case OUT_TIMEOUT:
		c->err_timeout++;
		break;
	case OUT_BAD:
		c->err_bad++;
		break;
	}
}

static const char *target_desc(const struct opts *o, char *buf, size_t sz)
{
	if (o->mode == MODE_IOCTL)
		snprintf(buf, sz, "ioctl GET_MY_ADDRESS");
	else if (o->ipmb)
		snprintf(
			buf, sz,
			"netfn 0x%02x cmd 0x%02x len %u via IPMB ch %u slave 0x%02x lun %u",
			o->req.netfn, o->req.cmd, o->req.data_len, o->channel,
			o->slave, o->lun);
	else
		snprintf(
			buf, sz,
			"netfn 0x%02x cmd 0x%02x len %u via system interface lun %u",
			o->req.netfn, o->req.cmd, o->req.data_len, o->lun);
	return buf;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct counters cnt = { 0 };
	struct kcsmux_stats st;
	struct rusage ru0, ru1;
	uint64_t *lat = NULL, nlat = 0, loop0, loop_ns, cpu_us, user_us, sys_us;
	uint64_t err, i;
	long msgid;
	char desc[160];
	bool timed;
	int fd;

	if (parse_args(argc, argv, &o)) {
		fprintf(stderr, "Try '%s --help'.\n", prog);
		return EXIT_SETUP;
	}
	timed = !o.total_only;
	if (timed) {
		lat = calloc(o.count, sizeof(*lat));
		if (!lat) {
			fprintf(stderr, "%s: cannot allocate %llu samples\n",
				prog, o.count);
			return EXIT_SETUP;
		}
	}

	fd = open(o.dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: open %s: %s\n", prog, o.dev,
			strerror(errno));
		free(lat);
		return EXIT_SETUP;
	}
	if (o.events) {
		int on = 1;

		if (ioctl(fd, IPMICTL_SET_GETS_EVENTS_CMD, &on) < 0) {
			fprintf(stderr, "%s: %s: SET_GETS_EVENTS_CMD: %s\n",
				prog, o.dev, strerror(errno));
			goto setup_fail;
		}
	}
	if (o.set_addr) {
		unsigned int a = o.my_addr;

		if (ioctl(fd, IPMICTL_SET_MY_ADDRESS_CMD, &a) < 0) {
			fprintf(stderr, "%s: %s: SET_MY_ADDRESS_CMD: %s\n",
				prog, o.dev, strerror(errno));
			goto setup_fail;
		}
	}

	if (o.maint >= 0) {
		int v = o.maint;
		unsigned long cmd = v == 3 ? IPMICTL_GET_MAINTENANCE_MODE_CMD :
					     IPMICTL_SET_MAINTENANCE_MODE_CMD;

		if (ioctl(fd, cmd, &v) < 0) {
			fprintf(stderr, "%s: %s: %s_MAINTENANCE_MODE_CMD: %s\n",
				prog, o.dev, o.maint == 3 ? "GET" : "SET",
				strerror(errno));
			goto setup_fail;
		}
		if (o.maint == 3)
			printf("maint: mode=%d\n", v);
		close(fd);
		free(lat);
		return 0;
	}

	msgid = o.msgid_start;
	for (i = 0; i < o.warmup; i++) {
		uint64_t l = 0;
		enum outcome r = o.mode == MODE_IOCTL ?
					 one_ioctl(fd, &o) :
					 one_request(fd, &o, msgid++, &cnt, &l);

		if (r != OUT_OK)
			cnt.warm_err++;
		if (o.interval_us)
			sleep_us(o.interval_us);
	}

	getrusage(RUSAGE_SELF, &ru0);
	loop0 = now_ns();
	if (o.mode == MODE_IOCTL) {
		for (i = 0; i < o.count; i++) {
			uint64_t t0 = timed ? now_ns() : 0;
			enum outcome r = one_ioctl(fd, &o);

			count_outcome(&cnt, r);
			if (timed && r == OUT_OK)
				lat[nlat++] = now_ns() - t0;
			if (o.interval_us)
				sleep_us(o.interval_us);
		}
	} else {
		for (i = 0; i < o.count; i++) {
			uint64_t l = 0;
			enum outcome r;

			if (i && o.stop_file && access(o.stop_file, F_OK) == 0)
				break;
			r = one_request(fd, &o, msgid++, &cnt, &l);
			count_outcome(&cnt, r);
			if (timed && r == OUT_OK)
				lat[nlat++] = l;
			if (o.interval_us)
				sleep_us(o.interval_us);
		}
		o.count = i; /* fewer with --stop-file */
	}
	loop_ns = now_ns() - loop0;
	getrusage(RUSAGE_SELF, &ru1);
	close(fd);

	user_us = tv_us(&ru1.ru_utime) - tv_us(&ru0.ru_utime);
	sys_us = tv_us(&ru1.ru_stime) - tv_us(&ru0.ru_stime);
	cpu_us = user_us + sys_us;
	kcsmux_stats_compute(lat, nlat, &st);
	err = cnt.err_errno + cnt.err_cc + cnt.err_timeout + cnt.err_bad;

	double mean_us = timed ? st.mean / 1000.0 :
				 (double)loop_ns / 1000.0 / (double)o.count;
	double cpu_per = (double)cpu_us / (double)o.count;
	unsigned long long per_req_ns = loop_ns / o.count;
	const char *mode = o.mode == MODE_IOCTL ? "ioctl" : "req";

#define US(x) ((unsigned long long)ns_to_us_round(x))
	switch (o.out) {
	case OUT_KV:
		printf("probe: dev=%s mode=%s n=%llu ok=%llu err=%llu"
		       " err_errno=%llu err_cc=%llu err_timeout=%llu err_bad=%llu"
		       " err_msgid=%llu warm_err=%llu events=%llu",
		       o.dev, mode, o.count, (unsigned long long)cnt.ok,
		       (unsigned long long)err,
		       (unsigned long long)cnt.err_errno,
		       (unsigned long long)cnt.err_cc,
		       (unsigned long long)cnt.err_timeout,
		       (unsigned long long)cnt.err_bad,
		       (unsigned long long)cnt.stray_msgid,
		       (unsigned long long)cnt.warm_err,
		       (unsigned long long)cnt.events);
		if (timed && nlat)
			printf(" min_us=%llu p50_us=%llu p90_us=%llu p99_us=%llu max_us=%llu"
			       " p50_ns=%llu",
			       US(st.min), US(st.p50), US(st.p90), US(st.p99),
			       US(st.max), (unsigned long long)st.p50);
		printf(" mean_us=%.1f total_us=%llu per_req_ns=%llu"
		       " cpu_us_per_req=%.2f user_us=%llu sys_us=%llu\n",
		       mean_us, US(loop_ns), per_req_ns, cpu_per,
		       (unsigned long long)user_us, (unsigned long long)sys_us);
		break;
	case OUT_JSON:
		printf("{\"dev\":\"");
		for (const char *p = o.dev; *p; p++) {
			if (*p == '"' || *p == '\\')
				putchar('\\');
			if ((unsigned char)*p < 0x20)
				printf("\\u%04x", (unsigned char)*p);
			else
				putchar(*p);
		}
		printf("\",\"mode\":\"%s\",\"n\":%llu,\"ok\":%llu,\"err\":%llu,"
		       "\"err_errno\":%llu,\"err_cc\":%llu,\"err_timeout\":%llu,"
		       "\"err_bad\":%llu,\"err_msgid\":%llu,\"warm_err\":%llu,"
		       "\"events\":%llu",
		       mode, o.count, (unsigned long long)cnt.ok,
		       (unsigned long long)err,
		       (unsigned long long)cnt.err_errno,
		       (unsigned long long)cnt.err_cc,
		       (unsigned long long)cnt.err_timeout,
		       (unsigned long long)cnt.err_bad,
		       (unsigned long long)cnt.stray_msgid,
		       (unsigned long long)cnt.warm_err,
		       (unsigned long long)cnt.events);
		if (timed && nlat)
			printf(",\"min_us\":%llu,\"p50_us\":%llu,\"p90_us\":%llu,"
			       "\"p99_us\":%llu,\"max_us\":%llu,\"p50_ns\":%llu",
			       US(st.min), US(st.p50), US(st.p90), US(st.p99),
			       US(st.max), (unsigned long long)st.p50);
		printf(",\"mean_us\":%.1f,\"total_us\":%llu,\"per_req_ns\":%llu,"
		       "\"cpu_us_per_req\":%.2f,\"user_us\":%llu,\"sys_us\":%llu}\n",
		       mean_us, US(loop_ns), per_req_ns, cpu_per,
		       (unsigned long long)user_us, (unsigned long long)sys_us);
		break;
	case OUT_HUMAN:
		printf("%s: %llu %s (%s)\n", o.dev, o.count,
		       o.mode == MODE_IOCTL ? "calls" : "requests",
		       target_desc(&o, desc, sizeof(desc)));
		printf("  ok %llu, failed %llu (errno %llu, cc %llu, timeout %llu, bad %llu); "
		       "stray msgid %llu; events skipped %llu; warm-up failures %llu\n",
		       (unsigned long long)cnt.ok, (unsigned long long)err,
		       (unsigned long long)cnt.err_errno,
		       (unsigned long long)cnt.err_cc,
		       (unsigned long long)cnt.err_timeout,
		       (unsigned long long)cnt.err_bad,
		       (unsigned long long)cnt.stray_msgid,
		       (unsigned long long)cnt.events,
		       (unsigned long long)cnt.warm_err);
		if (timed && nlat)
			printf("  latency us: min %llu  p50 %llu  p90 %llu  p99 %llu  max %llu  mean %.1f\n",
			       US(st.min), US(st.p50), US(st.p90), US(st.p99),
			       US(st.max), mean_us);
		else if (!timed)
			printf("  latency us: mean %.3f (whole loop / count)\n",
			       mean_us);
		printf("  loop %llu us, %llu ns per %s; own CPU %.2f us per %s (user %llu us, sys %llu us)\n",
		       US(loop_ns), per_req_ns,
		       o.mode == MODE_IOCTL ? "call" : "request", cpu_per,
		       o.mode == MODE_IOCTL ? "call" : "request",
		       (unsigned long long)user_us, (unsigned long long)sys_us);
		break;
	}
#undef US
	free(lat);
	if (o.allow_errors)
		return 0;
	return (err || cnt.stray_msgid || cnt.warm_err) ? EXIT_FAILED_REQ : 0;

setup_fail:
	close(fd);
	free(lat);
	return EXIT_SETUP;
}
