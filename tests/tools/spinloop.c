// SPDX-License-Identifier: GPL-2.0
/*
 * kcsmux-spinloop: a fixed amount of CPU work, timed, to measure how much
 * slower the TCG guest runs code than the host (docs/bench-kmod.md). Run the
 * same static binary on the host and in the guest and divide.
 *
 *   kcsmux-spinloop [-n ITERATIONS] [-s SYSCALLS]
 *
 * Prints one line:
 *   spinloop: iters=N alu_ns=A crc_ns=C sort_ns=S sys_ns=Y wall_us=W
 * alu: ns per step of a register-only hash chain (xorshift + multiply):
 *      latency-bound, so TCG's extra instructions partly hide in the chain;
 * crc: ns per byte of a table-driven CRC-32 over a 64 KiB buffer (two loads
 *      per byte: TCG's software TLB is on every guest memory access);
 * sort: ns per element of qsort() of 4096 ints with a comparison callback
 *      (branches, indirect calls, loads and stores: closest to driver code);
 * sys: ns per getppid() through syscall(2), a bare kernel entry and exit.
 * ITERATIONS scales all three CPU kernels (alu steps; crc and sort do about
 * ITERATIONS/8 and ITERATIONS/64 units). Each is the best (lowest) of 3
 * repetitions, so a host busy with other work disturbs it less.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

static uint64_t cpu_loop(unsigned long n)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL, t0 = now_ns();
	unsigned long i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		x *= 0x2545f4914f6cdd1dULL;
	}
	sink = x;
	return now_ns() - t0;
}

static uint32_t crc_table[256];
static uint8_t crc_buf[65536];

static uint64_t crc_loop(unsigned long n)
{
	uint64_t t0 = now_ns();
	uint32_t crc = 0xffffffffU;
	unsigned long i;

	for (i = 0; i < n; i++)
		crc = crc_table[(crc ^ crc_buf[i & 0xffff]) & 0xff] ^
		      (crc >> 8);
	sink = crc;
	return now_ns() - t0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

#define SORT_N 4096
static int sort_src[SORT_N], sort_v[SORT_N];

static uint64_t sort_loop(unsigned long rounds)
{
	uint64_t t0 = now_ns();
	unsigned long r;

	for (r = 0; r < rounds; r++) {
		memcpy(sort_v, sort_src, sizeof(sort_v));
		qsort(sort_v, SORT_N, sizeof(int), cmp_int);
		sink += (uint64_t)sort_v[r % SORT_N];
	}
	return now_ns() - t0;
}

static void init_data(void)
{
	uint32_t c, x = 12345;
	unsigned int i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320U ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
	for (i = 0; i < sizeof(crc_buf); i++) {
		x = x * 1103515245U + 12345U;
		crc_buf[i] = (uint8_t)(x >> 16);
	}
	for (i = 0; i < SORT_N; i++) {
		x = x * 1103515245U + 12345U;
		sort_src[i] = (int)(x >> 1);
	}
}

static uint64_t sys_loop(unsigned long n)
{
	uint64_t t0 = now_ns();
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += (uint64_t)syscall(SYS_getppid);
	return now_ns() - t0;
}

int main(int argc, char **argv)
{
	unsigned long iters = 20000000, calls = 200000;
	uint64_t best[4] = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX };
	uint64_t t0 = now_ns(), t[4];
	unsigned long crc_n, sort_rounds;
	int opt, r, k;

	while ((opt = getopt(argc, argv, "n:s:h")) != -1) {
		switch (opt) {
		case 'n':
			iters = strtoul(optarg, NULL, 0);
			break;
		case 's':
			calls = strtoul(optarg, NULL, 0);
			break;
		case 'h':
			printf("usage: kcsmux-spinloop [-n ITERATIONS] [-s SYSCALLS]\n"
			       "Times a CPU-bound loop and a getppid() loop (best of 3);\n"
			       "run on the host and in the guest: the ratio is the TCG slowdown.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!iters || !calls)
		return 2;
	init_data();
	crc_n = iters / 8 ? iters / 8 : 1;
	sort_rounds = iters / 64 / SORT_N ? iters / 64 / SORT_N : 1;
	for (r = 0; r < 3; r++) {
		t[0] = cpu_loop(iters);
		t[1] = crc_loop(crc_n);
		t[2] = sort_loop(sort_rounds);
		t[3] = sys_loop(calls);
		for (k = 0; k < 4; k++)
			if (t[k] < best[k])
				best[k] = t[k];
	}
	printf("spinloop: iters=%lu alu_ns=%.3f crc_ns=%.3f sort_ns=%.3f sys_ns=%.1f wall_us=%llu\n",
	       iters, (double)best[0] / (double)iters,
	       (double)best[1] / (double)crc_n,
	       (double)best[2] / ((double)sort_rounds * SORT_N),
	       (double)best[3] / (double)calls,
	       (unsigned long long)((now_ns() - t0) / 1000));
	return 0;
}
