#!/bin/bash
# Per-request overhead of a kcsmux node (/dev/NAME served by kcsmuxd over
# CUSE) versus the stock /dev/ipmiN, in the style of the nohz syscall-overhead
# measurements: build (plain, unsanitized) if needed, time the same CPU-bound
# loops and a process wake-up ping-pong on the host, boot two TCG guests that
# run tests/bench/node-bench.sh, and render the results into
# docs/bench-node.md (between the node-bench markers) and
# docs/img/node-bench.png.
#
#   tests/bench/run-node-bench.sh [options]
#
# Boots:
#   instant  --bmc sim --second-kcs --irq on --irq2 on: GET_MY_ADDRESS and
#            Get Device ID (SEND + poll + RECEIVE) against QEMU's instant BMC,
#            stock ipmi_si on 0xca8, kcsraw + kcsmuxd on 0xca2
#   real     --bmc extern --delay seed --second-kcs --irq on --irq2 on: Get
#            Device ID against ipmi_sim answering in 200-2000 us, stock
#            interrupt-driven, nodes with the interactive and an IRQ policy
#
# Options:
#   --out DIR        where the results land (default
#                    $KCSMUX_BUILD/bench/node-YYYYmmdd-HHMMSS)
#   --phase P        instant, real or both (default both)
#   --rounds N       rounds over all rows (default 3): figures are the
#                    median of the rounds, with their range
#   --n-ioctl N      GET_MY_ADDRESS calls per run (default 20000)
#   --n-req N        Get Device ID requests per run, instant BMC (default 2000)
#   --n-real N       Get Device ID requests per run, seed BMC (default 500)
#   --n-count N      requests of the (untimed) counting pass (default 300)
#   --no-docs        leave docs/ alone: report only in DIR/report.md and
#                    DIR/node-bench.png
#   --report DIR     do not run anything: render an earlier run's DIR again
#   --timeout SEC    guest timeout per boot (default 300)
#   --smp N          guest vCPUs (default 1); with N > 1 and the docs
#                    updated, the results go to their own block
#                    (node-bench-smpN markers) beside the 1-vCPU one
#
# Environment: KCSMUX_BUILD (default /tmp/build-nbench; must not be a
# SANITIZE=ON tree), and what tests/vm/run.sh reads. About 2 minutes of VM
# time with the defaults (run.sh waits while another VM holds the lock).
# This is a benchmark, not a test: CTest does not run it.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
export KCSMUX_BUILD=${KCSMUX_BUILD:-/tmp/build-nbench}
build=$KCSMUX_BUILD
phase=both rounds=3 nioctl=20000 nreq=2000 nreal=500 ncount=300
docs=1 report="" timeout=300 out="" smp=1

. "$src/tests/bench/lib.sh"
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift ;;
	--phase) phase=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--n-ioctl) nioctl=$2; shift ;;
	--n-req) nreq=$2; shift ;;
	--n-real) nreal=$2; shift ;;
	--n-count) ncount=$2; shift ;;
	--no-docs) docs=0 ;;
	--report) report=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--smp) smp=$2; shift ;;
	-h|--help) usage ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
	shift
done
case $phase in instant|real|both) ;; *) die "--phase: instant, real or both" ;; esac


# ---------------------------------------------------------------------------
# The report: tables, a reading with the numbers, a plot.
render() {
	local dir=$1 args=()
	local tag=node-bench
	[ "$smp" = 1 ] || tag=node-bench-smp$smp
	[ $docs = 1 ] && args=(--docs "$src/docs/bench-node.md" --png "$src/docs/img/$tag.png")
	KCSMUX_BENCH_TAG=$tag "$py" "$src/tests/bench/node-bench-report.py" "$dir" "${args[@]}"
	[ $docs = 1 ] && log "updated docs/bench-node.md ($tag section), docs/img/$tag.png"
	log "results in $dir"
}

if [ -n "$report" ]; then
	render "$report"
	exit 0
fi

# ---------------------------------------------------------------------------
# Build: a plain tree (benchmarks want unsanitized binaries).
bench_build kcsmuxd kcsmux-utime kcsmux-ipmi-probe kcsmux-kcsraw-probe kcsmux-spinloop kcsmux-bmc-proxy kmod fuse_rtt

[ -n "$out" ] || out=$build/bench/node-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
rm -f "$out"/results-*.txt "$out"/counts-*.txt

# The wake-up ping-pong: two processes pinned to one CPU pass a byte back
# and forth over two pipes (what one FUSE round trip does in the 1-vCPU
# guest: two wake-ups and two context switches), then the same four pipe
# syscalls in one process. Best of 3; static, so host and guest run the
# same code.
pp=$build/bench/node-pingpong
mkdir -p "${pp%/*}"
cat >"$pp.c" <<'C'
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000, i;
	double best_rt = 1e30, best_rw = 1e30, t0, t;
	cpu_set_t set;
	char c = 0;
	int rep, a[2], b[2], p[2];
	pid_t pid;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);	/* the child inherits it */
	for (rep = 0; rep < 3; rep++) {
		if (pipe(a) || pipe(b) || pipe(p))
			return 1;
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			for (i = 0; i < n; i++)
				if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
					_exit(1);
			_exit(0);
		}
		t0 = now_ns();
		for (i = 0; i < n; i++)
			if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
				return 1;
		t = (now_ns() - t0) / n;
		waitpid(pid, NULL, 0);
		if (t < best_rt)
			best_rt = t;
		t0 = now_ns();
		for (i = 0; i < n; i++)
			if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1 ||
			    write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
				return 1;
		t = (now_ns() - t0) / n;
		if (t < best_rw)
			best_rw = t;
		close(a[0]); close(a[1]); close(b[0]); close(b[1]);
		close(p[0]); close(p[1]);
	}
	printf("pingpong: n=%ld rt_ns=%.0f rw4_ns=%.0f\n", n, best_rt, best_rw);
	return 0;
}
C
# static when libc.a is there (run.sh brings a dynamic one's libraries along)
cc -O2 -static -Wall -o "$pp" "$pp.c" 2>/dev/null || cc -O2 -Wall -o "$pp" "$pp.c" ||
	die "cannot build the ping-pong helper"

# The host halves of the slowdown measurements, and the host as it was.
"$build/tests/tools/kcsmux-spinloop" -n 20000000 -s 100000 >"$out/host-spinloop.txt"
"$pp" 200000 >"$out/host-pingpong.txt"
# The native FUSE round trip, client and daemon on one CPU and on two;
# skipped (no file) where /dev/fuse is absent or the mount is refused.
for pl in same:0,0 two:0,1; do
	"$build/tests/bench/fuse_rtt" -n 100000 -c "${pl#*:}" >"$out/host-fuse-${pl%%:*}.txt" ||
		{ log "fuse_rtt (${pl%%:*}): $(cat "$out/host-fuse-${pl%%:*}.txt")"; rm -f "$out/host-fuse-${pl%%:*}.txt"; }
done
bench_host_env "$out/host-env.txt"

envs=(--env BENCH_ROUNDS="$rounds" --env BENCH_NIOCTL="$nioctl" --env BENCH_NREQ="$nreq"
	--env BENCH_NREAL="$nreal" --env BENCH_NCOUNT="$ncount")
rc=0
boot() {	# PHASE RUN.SH-OPTIONS...
	local ph=$1 r=0
	shift
	log "booting the $ph guest; serial log $out/serial-$ph.log"
	"$src/tests/vm/run.sh" --mitigations "$@" --smp "$smp" --second-kcs --irq on --irq2 on --add "$pp" \
		--out "$out" --log "$out/serial-$ph.log" --timeout "$timeout" -q \
		--env BENCH_PHASE="$ph" "${envs[@]}" \
		"$src/tests/bench/node-bench.sh" 2>"$out/run-$ph.log" || r=$?
	sed 's/^/    /' "$out/run-$ph.log" >&2
	grep -E '^(FAIL|[0-9]+ passed)' "$out/serial-$ph.log" >&2 || true
	[ -s "$out/results-$ph.txt" ] || die "the $ph guest wrote no results (status $r; see $out/serial-$ph.log)"
	[ $r = 0 ] || { log "warning: the $ph guest reported failures (status $r)"; rc=$r; }
}
[ "$phase" = real ] || boot instant --bmc sim
[ "$phase" = instant ] || boot real --bmc extern --delay seed
bench_host_after "$out/host-env.txt"
render "$out"
exit $rc
