// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmux-kcsraw-probe: per-request latency through /dev/kcsrawN, measured
 * the way kcsmux-ipmi-probe measures a stock /dev/ipmiN, so the benchmark
 * compares like with like: per request SUBMIT, poll(POLLIN), RECEIVE, timed
 * in user space from before the SUBMIT to after the RECEIVE (the wake-up of
 * the client is included, as it is for the stock driver). The kernel's own
 * cost report (latency, spin, cpu, sleeps, wake-ups) is summed beside it.
 * Static guest helper for tests/bench/kmod-bench.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <kcsmux/kcsraw.h>

#include "stats.h"

_Static_assert(sizeof(struct kcsraw_submit) == 320, "submit layout");
_Static_assert(sizeof(struct kcsraw_completion) == 368, "completion layout");

static const char *prog = "kcsmux-kcsraw-probe";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [options]\n"
		"Send N requests through /dev/kcsrawN (kcsraw.ko), one at a time, and report\n"
		"per-request latency measured in user space (SUBMIT, poll(POLLIN), RECEIVE),\n"
		"like kcsmux-ipmi-probe does for /dev/ipmiN, plus the kernel's cost reports.\n"
		"\n"
		"  -d DEV      device (default /dev/kcsraw0)\n"
		"  -n COUNT    measured requests (default 100)\n"
		"  -w WARMUP   unmeasured requests first (default 0)\n"
		"  -r \"NETFN CMD [DATA...]\"  hex bytes (default \"06 01\", Get Device ID)\n"
		"  -b US       busy window per BMC wait; 'unlimited' spins to the end\n"
		"  -p US       poll sleep (default 100)\n"
		"  -P US       longest sleep for -e, IRQ fallback for -i (default = -p)\n"
		"  -e          exponential backoff from -p to -P\n"
		"  -i          sleep until the interface IRQ\n"
		"  -D          the interface default policy (ignores -b/-p/-P/-e/-i)\n"
		"  --timeout MS  per-request timeout (default 5000)\n"
		"  -h          this help\n"
		"\n"
		"Output: one line 'kprobe: n= ok= err= min_us= p50_us= p90_us= p99_us= max_us=\n"
		"mean_us= total_us= cpu_us_per_req= user_us= sys_us= klat_p50_us= klat_p99_us=\n"
		"spin_mean_us= kcpu_mean_us= sleeps_per_req= timer_wakeups= irq_wakeups='.\n"
		"The k* figures come from the kernel's per-transaction cost report. Exit 0\n"
		"if every request got completion code 0, 1 otherwise, 2 on a usage/setup error.\n",
		prog);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000ULL + (uint64_t)tv->tv_usec;
}

static int parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!strcmp(s, "unlimited")) {
		*out = KCSRAW_UNLIMITED;
		return 0;
	}
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* "NETFN CMD DATA..." (hex, blank or comma separated) -> submit request. */
static int parse_request(const char *s, struct kcsraw_submit *sub)
{
	char buf[4 * KCSRAW_MAX_MSG], *tok, *save = NULL, *end;
	unsigned int n = 0;
	unsigned long v;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, " ,\t", &save); tok;
	     tok = strtok_r(NULL, " ,\t", &save)) {
		errno = 0;
		v = strtoul(tok, &end, 16);
		if (errno || end == tok || *end || v > 0xff ||
		    n >= KCSRAW_MAX_MSG)
			return -1;
		if (n == 0 && v > 0x3f)
			return -1;
		sub->req[n] = n == 0 ? (uint8_t)(v << 2) : (uint8_t)v;
		n++;
	}
	if (n < 2)
		return -1;
	sub->req_len = (uint16_t)n;
	return 0;
}

/* One transaction; 0 with *c filled, or -1 (errno, ETIMEDOUT). */
static int one_request(int fd, struct kcsraw_submit *sub, uint64_t cookie,
		       int timeout_ms, struct kcsraw_completion *c,
		       uint64_t *lat_ns)
{
	uint64_t t0 = now_ns(),
		 deadline = t0 + (uint64_t)timeout_ms * 1000000ULL;

	sub->cookie = cookie;
	if (ioctl(fd, KCSRAW_IOC_SUBMIT, sub) < 0)
		return -1;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns();
		int r;

		if (now >= deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
		r = poll(&pfd, 1, (int)((deadline - now + 999999) / 1000000));
		if (r < 0 && errno != EINTR)
			return -1;
		if (r <= 0)
			continue;
		memset(c, 0, sizeof(*c));
		c->size = sizeof(*c);
		if (ioctl(fd, KCSRAW_IOC_RECEIVE, c) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -1;
		}
		*lat_ns = now_ns() - t0;
		if (c->cookie != cookie)
			continue; /* not ours: cannot happen with depth 1 */
		return 0;
	}
}

static bool good(const struct kcsraw_completion *c)
{
	return c->status == 0 && c->resp_len >= 3 && c->resp[2] == 0 &&
	       !(c->flags & (KCSRAW_DONE_HOSED | KCSRAW_DONE_SYNTH));
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "timeout", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = "/dev/kcsraw0", *reqs = "06 01";
	unsigned long count = 100, warmup = 0, i, nlat = 0, ok = 0, err = 0;
	struct kcsraw_policy pol = { .poll_us = 100 };
	bool deflt = false, pmax_set = false;
	int timeout_ms = 5000, opt, fd;
	struct kcsraw_submit sub;
	struct kcsraw_completion c;
	uint64_t *lat, *klat, spin = 0, kcpu = 0, sleeps = 0, tw = 0, iw = 0;
	uint64_t loop0, loop_ns, user_us, sys_us, l;
	struct kcsmux_stats st, kst;
	struct rusage ru0, ru1;

	while ((opt = getopt_long(argc, argv, "d:n:w:r:b:p:P:eiDh", lopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			warmup = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			reqs = optarg;
			break;
		case 'b':
			if (parse_u32(optarg, &pol.max_busy_us))
				goto bad;
			break;
		case 'p':
			if (parse_u32(optarg, &pol.poll_us) || !pol.poll_us)
				goto bad;
			break;
		case 'P':
			if (parse_u32(optarg, &pol.poll_max_us))
				goto bad;
			pmax_set = true;
			break;
		case 'e':
			pol.backoff = KCSRAW_BACKOFF_EXP;
			break;
		case 'i':
			pol.flags |= KCSRAW_POL_IRQ;
			break;
		case 'D':
			deflt = true;
			break;
		case 'T':
			timeout_ms = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc || count == 0 || timeout_ms <= 0)
		goto bad;
	if (!pmax_set)
		pol.poll_max_us = pol.poll_us;
	if (deflt) {
		memset(&pol, 0, sizeof(pol));
		pol.flags = KCSRAW_POL_DEFAULT;
	}
	memset(&sub, 0, sizeof(sub));
	sub.size = sizeof(sub);
	sub.policy = pol;
	if (parse_request(reqs, &sub)) {
		fprintf(stderr, "%s: bad request '%s'\n", prog, reqs);
		goto bad;
	}
	lat = calloc(count, sizeof(*lat));
	klat = calloc(count, sizeof(*klat));
	if (!lat || !klat) {
		perror(prog);
		return 2;
	}
	fd = open(dev, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, dev, strerror(errno));
		return 2;
	}
	for (i = 0; i < warmup; i++) {
		if (one_request(fd, &sub, 1000000 + i, timeout_ms, &c, &l) <
			    0 ||
		    !good(&c))
			err++;
	}
	getrusage(RUSAGE_SELF, &ru0);
	loop0 = now_ns();
	for (i = 0; i < count; i++) {
		if (one_request(fd, &sub, i + 1, timeout_ms, &c, &l) < 0) {
			fprintf(stderr, "%s: request %lu: %s\n", prog, i + 1,
				strerror(errno));
			err++;
			continue;
		}
		if (!good(&c)) {
			if (!err)
				fprintf(stderr,
					"%s: request %lu: status %d flags 0x%x cc 0x%02x\n",
					prog, i + 1, c.status, c.flags,
					c.resp_len >= 3 ? c.resp[2] : 0xff);
			err++;
			continue;
		}
		ok++;
		lat[nlat] = l;
		klat[nlat++] = c.cost.latency_ns;
		spin += c.cost.spin_ns;
		kcpu += c.cost.cpu_ns;
		sleeps += c.cost.sleeps;
		tw += c.cost.timer_wakeups;
		iw += c.cost.irq_wakeups;
	}
	loop_ns = now_ns() - loop0;
	getrusage(RUSAGE_SELF, &ru1);
	close(fd);
	user_us = tv_us(&ru1.ru_utime) - tv_us(&ru0.ru_utime);
	sys_us = tv_us(&ru1.ru_stime) - tv_us(&ru0.ru_stime);
	kcsmux_stats_compute(lat, nlat, &st);
	kcsmux_stats_compute(klat, nlat, &kst);

#define US(x) ((unsigned long long)(((x) + 500) / 1000))
	printf("kprobe: dev=%s n=%lu ok=%lu err=%lu min_us=%llu p50_us=%llu"
	       " p90_us=%llu p99_us=%llu max_us=%llu mean_us=%.1f total_us=%llu"
	       " cpu_us_per_req=%.2f user_us=%llu sys_us=%llu klat_p50_us=%llu"
	       " klat_p99_us=%llu spin_mean_us=%.1f kcpu_mean_us=%.1f"
	       " sleeps_per_req=%.2f timer_wakeups=%llu irq_wakeups=%llu\n",
	       dev, count, ok, err, US(st.min), US(st.p50), US(st.p90),
	       US(st.p99), US(st.max), st.mean / 1000.0, US(loop_ns),
	       (double)(user_us + sys_us) / (double)count,
	       (unsigned long long)user_us, (unsigned long long)sys_us,
	       US(kst.p50), US(kst.p99),
	       nlat ? (double)spin / 1000.0 / (double)nlat : 0.0,
	       nlat ? (double)kcpu / 1000.0 / (double)nlat : 0.0,
	       nlat ? (double)sleeps / (double)nlat : 0.0,
	       (unsigned long long)tw, (unsigned long long)iw);
	free(lat);
	free(klat);
	return err ? 1 : 0;
bad:
	usage(stderr);
	return 2;
}
