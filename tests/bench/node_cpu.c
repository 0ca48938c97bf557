// SPDX-License-Identifier: GPL-2.0
/*
 * node_cpu - the daemon's own CPU per request on this host, without a VM,
 * CUSE or a BMC: a client's Get Device ID as ipmitool sends it (SEND,
 * poll, RECEIVE_MSG_TRUNC) driven through node.c's real CUSE operations,
 * the CUSE front end (client.c, ioctl.c), the core (access rules,
 * scheduler, transactions, accounting) and a backend that answers at once
 * (instant_backend.c), under a model of the kernel's side of CUSE
 * (cuse_model.c: unrestricted ioctl retries, copies from and to the
 * client's memory, poll and its notification).
 *
 *   node_cpu [-n N] [-r RUNS] [-w WARMUP] [-G] [-e RTS] [-F RT_CPU_US]
 *
 * Per request, in order: SEND_COMMAND; a poll() that asks to be told
 * (queue empty); one turn of the event loop (the backend's completion,
 * the answer queued, the notification); the re-poll (POLLIN);
 * RECEIVE_MSG_TRUNC. Every answer is checked (msgid, type, address,
 * netfn, cmd, cc, data): a wrong one exits 1. -G makes the client swap
 * two pages each request, its structs in one and the buffers they name in
 * the other, so the daemon's guesses never hold (a struct at a new
 * address is guessed its own page, which then lacks the buffers).
 * -e RTS exits 1 unless every measured request took exactly RTS FUSE round
 * trips. -F adds RTS x RT_CPU_US (a round trip's client + daemon CPU,
 * from fuse_rtt) to the daemon's CPU: the node's added CPU per request.
 *
 * Each of RUNS runs of N requests is measured by the thread's CPU clock
 * and getrusage (user and system) over the loop: the daemon's code plus
 * the model's copies and the client's checks, so an upper bound of the
 * daemon's own (valgrind --tool=callgrind splits it: docs/bench-node.md).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <linux/ipmi.h>

#include "core/core.h"
#include "cuse/cuse.h"
#include "cuse_model.h"
#include "instant_backend.h"
#include "node_conf.h"
#include "util/clock.h"
#include "util/error.h"

#define PAGE 4096

/* The client's buffers, in one page as ipmitool's stay put. */
struct client_mem {
	struct ipmi_req rq;
	struct ipmi_system_interface_addr si;
	struct ipmi_recv rv;
	uint8_t raddr[sizeof(struct ipmi_addr)];
	uint8_t rdata[64];
};

struct bench {
	struct daemon d;
	struct node node;
	struct instant_backend *ib;
	struct cuse_model m;
	struct client_mem *mem[2]; /* one per page */
	bool alternate;		   /* -G */
	char err[160];
};

struct result {
	long n;
	uint64_t wall_ns, cpu_ns, user_ns, sys_ns;
	struct cuse_model_counts cnt;
	uint64_t guesses, hits;
};

static int fail(struct bench *b, long id, const char *what)
{
	snprintf(b->err, sizeof(b->err), "request %ld: %s", id, what);
	return -1;
}

/* One turn of the daemon's event loop: what the backend reported. */
static void daemon_turn(struct bench *b)
{
	event_base_loop(b->d.base, EVLOOP_NONBLOCK);
}

static int check_answer(struct bench *b, const struct client_mem *cm,
			const struct client_mem *bm, long id)
{
	if (cm->rv.recv_type != IPMI_RESPONSE_RECV_TYPE)
		return fail(b, id, "not a response");
	if (cm->rv.msgid != id)
		return fail(b, id, "another request's msgid");
	if (cm->rv.addr_len != sizeof(bm->si) ||
	    memcmp(bm->raddr, &bm->si, sizeof(bm->si)) != 0)
		return fail(b, id, "wrong address");
	if (cm->rv.msg.netfn != 7 || cm->rv.msg.cmd != 1)
		return fail(b, id, "wrong netfn or cmd");
	if (cm->rv.msg.data_len != 1 + sizeof(instant_devid) ||
	    bm->rdata[0] != 0 ||
	    memcmp(bm->rdata + 1, instant_devid, sizeof(instant_devid)) != 0)
		return fail(b, id, "wrong cc or data");
	return 0;
}

static int one_request(struct bench *b, long id)
{
	/* -G: the structs in one page, the buffers they name in the other,
	 * the two swapping each request */
	struct client_mem *cm = b->mem[b->alternate ? id & 1 : 0];
	struct client_mem *bm = b->mem[b->alternate ? (id & 1) ^ 1 : 0];
	uint64_t notified = b->m.cnt.notifies;
	int rv;

	cm->rq = (struct ipmi_req){
		.addr = (unsigned char *)&bm->si,
		.addr_len = sizeof(bm->si),
		.msgid = id,
		.msg = { .netfn = 6, .cmd = 1 },
	};
	rv = cuse_model_ioctl(&b->m, IPMICTL_SEND_COMMAND, &cm->rq);
	if (rv != 0)
		return fail(b, id, strerror(-rv));
	if (cuse_model_poll(&b->m, true) & POLLIN)
		return fail(b, id, "answered before the backend ran");
	daemon_turn(b);
	if (b->m.cnt.notifies != notified + 1)
		return fail(b, id, "poll() not notified");
	if (!(cuse_model_poll(&b->m, false) & POLLIN))
		return fail(b, id, "no POLLIN after the notification");
	memset(bm->raddr, 0xa5, sizeof(bm->raddr));
	memset(bm->rdata, 0xa5, sizeof(bm->rdata));
	cm->rv = (struct ipmi_recv){
		.addr = bm->raddr,
		.addr_len = sizeof(bm->raddr),
		.msg = { .data = bm->rdata, .data_len = sizeof(bm->rdata) },
	};
	rv = cuse_model_ioctl(&b->m, IPMICTL_RECEIVE_MSG_TRUNC, &cm->rv);
	if (rv != 0)
		return fail(b, id, strerror(-rv));
	return check_answer(b, cm, bm, id);
}

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u +
	       (uint64_t)tv->tv_usec * 1000u;
}

static uint64_t bench_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts_ns(&ts);
}

static uint64_t guesses(const struct node *n, bool hits)
{
	const uint64_t *v = hits ? n->cnt.guess_hits : n->cnt.guesses;

	return v[0] + v[1];
}

static int run(struct bench *b, long first, long n, struct result *res)
{
	struct cuse_model_counts c0 = b->m.cnt;
	uint64_t g0 = guesses(&b->node, false), h0 = guesses(&b->node, true);
	struct rusage r0, r1;
	uint64_t t0, t1, cpu0, cpu1;

	getrusage(RUSAGE_THREAD, &r0);
	cpu0 = bench_cpu_ns();
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (one_request(b, first + i) < 0)
			return -1;
	t1 = now_ns();
	cpu1 = bench_cpu_ns();
	getrusage(RUSAGE_THREAD, &r1);
	*res = (struct result){
		.n = n,
		.wall_ns = t1 - t0,
		.cpu_ns = cpu1 - cpu0,
		.user_ns = tv_ns(&r1.ru_utime) - tv_ns(&r0.ru_utime),
		.sys_ns = tv_ns(&r1.ru_stime) - tv_ns(&r0.ru_stime),
		.cnt = {
			.ioctl_rts = b->m.cnt.ioctl_rts - c0.ioctl_rts,
			.poll_rts = b->m.cnt.poll_rts - c0.poll_rts,
			.notifies = b->m.cnt.notifies - c0.notifies,
		},
		.guesses = guesses(&b->node, false) - g0,
		.hits = guesses(&b->node, true) - h0,
	};
	return 0;
}

static int setup(struct bench *b, char **cause)
{
	struct event_base *base = event_base_new();
	struct kcsmux_node_conf conf;
	uint8_t *mem;

	if (!base)
		return error_set(cause, "event_base_new failed");
	core_init(&b->d, base);
	if (frontend_init(&b->d, NULL) < 0)
		return error_set(cause, "out of memory");
	b->d.cfg.event_backlog = 25;
	b->d.my_address = 0x20;
	memset(b->d.chan_address, 0x20, sizeof(b->d.chan_address));
	memset(b->d.chan_lun, 2, sizeof(b->d.chan_lun));
	/* The channel scan (bmcsetup.c) is over: channel 0 is IPMB. */
	b->d.media_ready = true;
	b->d.media[0] = IPMI_CHANNEL_MEDIUM_IPMB;
	b->ib = instant_backend_new(base, &core_backend_cbs, &b->d, cause);
	if (!b->ib)
		return -1;
	b->d.be = &b->ib->be;
	/* The TCG benchmark's node-int: preset interactive, access all. */
	test_node_conf(&conf, "kcsmux-bench-node", KCSMUX_PRESET_INTERACTIVE,
		       KCSMUX_ACCESS_ALL);
	core_node_init(&b->d, &b->node, &conf);
	core_node_attach(&b->node);
	b->node.ready = true;
	if (cuse_model_init(&b->m, &b->node, getpid(), cause) < 0)
		return -1;
	mem = aligned_alloc(PAGE, 2 * PAGE);
	if (!mem)
		return error_set(cause, "out of memory");
	memset(mem, 0, 2 * PAGE);
	b->mem[0] = (struct client_mem *)(void *)mem;
	b->mem[1] = (struct client_mem *)(void *)(mem + PAGE);
	for (int i = 0; i < 2; i++)
		b->mem[i]->si = (struct ipmi_system_interface_addr){
			.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE,
			.channel = IPMI_BMC_CHANNEL,
		};
	cuse_model_memory(&b->m, mem, 2 * PAGE);
	if (cuse_model_open(&b->m) < 0)
		return error_set(cause, "open of the node failed");
	return 0;
}

static void teardown(struct bench *b)
{
	struct event_base *base = b->d.base;

	cuse_model_release(&b->m);
	sched_flow_detach(&b->d.sched, &b->node.flow);
	b->d.be->ops->destroy(b->d.be);
	core_fini(&b->d);
	frontend_fini(&b->d);
	event_base_free(base);
	free(b->mem[0]);
}

static double per(uint64_t v, long n, double unit)
{
	return (double)v / (double)n / unit;
}

static void print_row(int k, const struct result *r, double rt_us)
{
	double rts = per(r->cnt.ioctl_rts + r->cnt.poll_rts, r->n, 1);
	double cpu = per(r->cpu_ns, r->n, 1000);

	printf("| %d | %ld | %.3f | %.0f | %.3f (%.2f + %.2f) | %.2f (%.2f + "
	       "%.2f) | %.2f | %.2f / %.2f |",
	       k, r->n, (double)r->wall_ns / 1e9,
	       (double)r->n / ((double)r->wall_ns / 1e9), cpu,
	       per(r->user_ns, r->n, 1000), per(r->sys_ns, r->n, 1000), rts,
	       per(r->cnt.ioctl_rts, r->n, 1), per(r->cnt.poll_rts, r->n, 1),
	       per(r->cnt.notifies, r->n, 1), per(r->guesses, r->n, 1),
	       per(r->hits, r->n, 1));
	if (rt_us > 0)
		printf(" %.1f |", cpu + rts * rt_us);
	printf("\n");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [-n N] [-r RUNS] [-w WARMUP] [-G] [-e RTS] "
		"[-F RT_CPU_US]\n",
		argv0);
}

int main(int argc, char **argv)
{
	static struct bench b;
	long n = 100000, warm = 2000, id = 1;
	int runs = 5, opt, expect = 0, rv = 1;
	double rt_us = 0, cpu[64], rts = 0;
	struct result res[64];
	char *cause = NULL;

	while ((opt = getopt(argc, argv, "n:r:w:Ge:F:h")) != -1) {
		switch (opt) {
		case 'n':
			n = atol(optarg);
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		case 'w':
			warm = atol(optarg);
			break;
		case 'G':
			b.alternate = true;
			break;
		case 'e':
			expect = atoi(optarg);
			break;
		case 'F':
			rt_us = atof(optarg);
			break;
		default:
			usage(argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (n < 1 || warm < 0 || runs < 1 || runs > 64) {
		usage(argv[0]);
		return 2;
	}
	if (setup(&b, &cause) < 0) {
		fprintf(stderr, "node_cpu: %s\n", error_str(cause));
		free(cause);
		return 1;
	}
	for (long i = 0; i < warm; i++)
		if (one_request(&b, id++) < 0)
			goto out;
	for (int k = 0; k < runs; k++) {
		if (run(&b, id, n, &res[k]) < 0)
			goto out;
		id += n;
	}
	printf("node_cpu: %s, %ld requests per run, %ld warm-up\n\n",
	       b.alternate ? "buffers alternate (no guess holds)" :
			     "buffers kept (guesses hold)",
	       n, warm);
	printf("| run | requests | wall s | req/s | CPU µs/req (user + sys) | "
	       "FUSE RTs/req (ioctl + poll) | notifications/req | guesses / "
	       "held per req |%s\n",
	       rt_us > 0 ? " added CPU µs/req |" : "");
	printf("|---:|---:|---:|---:|---:|---:|---:|---:|%s\n",
	       rt_us > 0 ? "---:|" : "");
	rv = 0;
	for (int k = 0; k < runs; k++) {
		print_row(k + 1, &res[k], rt_us);
		cpu[k] = per(res[k].cpu_ns, res[k].n, 1000);
		rts = per(res[k].cnt.ioctl_rts + res[k].cnt.poll_rts, res[k].n,
			  1);
		if (expect && (res[k].cnt.ioctl_rts + res[k].cnt.poll_rts !=
			       (uint64_t)expect * (uint64_t)res[k].n))
			rv = 1;
	}
	printf("\nnode_cpu: cpu_us_per_req=%.3f rts_per_req=%.2f",
	       median(cpu, runs), rts);
	if (rt_us > 0)
		printf(" rt_cpu_us=%.2f added_cpu_us_per_req=%.1f", rt_us,
		       median(cpu, runs) + rts * rt_us);
	printf("\n");
	if (rv)
		fprintf(stderr,
			"node_cpu: not %d FUSE round trips per request\n",
			expect);
out:
	if (b.err[0]) {
		fprintf(stderr, "node_cpu: %s\n", b.err);
		rv = 1;
	}
	teardown(&b);
	return rv;
}
