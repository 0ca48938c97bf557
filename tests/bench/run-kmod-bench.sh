#!/bin/bash
# kcsraw.ko versus the stock ipmi_si poller: build (plain, unsanitized) if
# needed, boot one TCG guest with two KCS interfaces, each behind its own
# ipmi_sim and delay proxy answering like the seed BMC (200-2000 us), run
# tests/bench/kmod-bench.sh in it, and render the results into
# docs/bench-kmod.md (between the kmod-bench markers; --kstart:
# docs/bench-kstart.md) and
# docs/img/kmod-bench.png.
#
#   tests/bench/run-kmod-bench.sh [options]
#
# Options:
#   --out DIR       where the results land (default
#                   $KCSMUX_BUILD/bench/kmod-YYYYmmdd-HHMMSS)
#   --n N           measured Get Device ID requests per row and round
#                   (default 500)
#   --nsdr N        measured Get SDR requests per row and round (default 200)
#   --rounds N      rounds over all rows (default 3): latency figures are
#                   the median of the rounds, with their range
#   --warm N        unmeasured requests before each row (default 10)
#   --no-docs       leave docs/ alone: report only in DIR/report.md and
#                   DIR/kmod-bench.png
#   --report DIR    do not run anything: render an earlier run's DIR again
#                   (e.g. docs/data/kmod-bench, the figures in the docs)
#   --timeout SEC   guest timeout (default 420)
#   --smp N         guest vCPUs (default 1); with N > 1 the docs block is
#                   kmod-bench-smpN (beside the 1-vCPU one), the plot
#                   docs/img/kmod-bench-smpN.png, the data
#                   docs/data/kmod-bench-smpN/
#   --kstart        only kcsraw's rows, each with the module parameter
#                   submit_start=1 and =0 in one boot (the
#                   poller's wake-ups and the latency that starting a
#                   request in its submitter saves); the docs block is
#                   kstart-bench (kstart-bench-smpN), the data
#                   docs/data/kstart-bench(-smpN)/, no plot
#
# Environment: KCSMUX_BUILD (default /tmp/build-bench; must not be a
# SANITIZE=ON tree), and what tests/vm/run.sh reads. About 2-3 minutes of VM
# time with the defaults; run.sh waits while another VM holds the lock.
# This is a benchmark, not a test: CTest does not run it.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
export KCSMUX_BUILD=${KCSMUX_BUILD:-/tmp/build-bench}
build=$KCSMUX_BUILD
n=500 nsdr=200 rounds=3 warm=10 docs=1 report="" timeout=420 out="" smp=1 kstart=0

. "$src/tests/bench/lib.sh"
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift ;;
	--n) n=$2; shift ;;
	--nsdr) nsdr=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--warm) warm=$2; shift ;;
	--no-docs) docs=0 ;;
	--report) report=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--smp) smp=$2; shift ;;
	--kstart) kstart=1 ;;
	-h|--help) usage ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
	shift
done


# render DIR: tables and plot; with docs, also keep the raw figures in
# docs/data/kmod-bench/ (re-render them with --report docs/data/kmod-bench).
render() {
	local tag=kmod-bench script=kmod-bench-report.py
	[ $kstart = 0 ] || tag=kstart-bench script=kstart-bench-report.py
	[ "$smp" = 1 ] || tag=$tag-smp$smp
	local dir=$1 args=() data=$src/docs/data/$tag
	if [ $docs = 1 ]; then
		page=$src/docs/bench-kmod.md
		[ $kstart = 0 ] || page=$src/docs/bench-kstart.md
		args=(--docs "$page")
		[ $kstart = 1 ] || args+=(--png "$src/docs/img/$tag.png")
		if [ "$(cd "$dir" && pwd)" != "$data" ]; then
			bench_keep "$dir" "$data" results.txt env.txt spinloop.txt \
				host-spinloop.txt host-env.txt
		fi
	fi
	KCSMUX_BENCH_TAG=$tag "$py" "$src/tests/bench/$script" "$dir" "${args[@]}"
	if [ $docs = 1 ]; then
		log "updated ${page#"$src/"}${args[2]:+, ${args[3]#"$src/"}}, docs/data/$tag/"
	fi
	log "results in $dir"
}

if [ -n "$report" ]; then
	render "$report"
	exit 0
fi

# Build: a plain tree (benchmarks want unsanitized binaries).
bench_build kcsmux-utime kcsmux-ipmi-probe kcsmux-kcsraw-probe kcsmux-spinloop kcsmux-bmc-proxy kmod

[ -n "$out" ] || out=$build/bench/kmod-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
rm -f "$out/results.txt"

# The host half of the TCG slowdown measurement, and the host as it was.
"$build/tests/tools/kcsmux-spinloop" -n 20000000 -s 100000 >"$out/host-spinloop.txt"
bench_host_env "$out/host-env.txt"

log "booting the benchmark guest ($rounds rounds, n=$n, nsdr=$nsdr); serial log $out/serial.log"
rc=0
"$src/tests/vm/run.sh" --mitigations --smp "$smp" --bmc extern --delay seed --second-kcs --irq on --irq2 off \
	--out "$out" --log "$out/serial.log" --timeout "$timeout" -q \
	--env BENCH_N="$n" --env BENCH_NSDR="$nsdr" --env BENCH_WARM="$warm" --env BENCH_ROUNDS="$rounds" \
	--env BENCH_KSTART="$kstart" \
	"$src/tests/bench/kmod-bench.sh" 2>"$out/run.log" || rc=$?
bench_host_after "$out/host-env.txt"
sed 's/^/    /' "$out/run.log" >&2
grep -E '^(FAIL|PASS|[0-9]+ passed)' "$out/serial.log" | grep -v '^PASS' >&2 || true
[ -s "$out/results.txt" ] || die "the guest wrote no results (status $rc; see $out/serial.log)"
[ $rc = 0 ] || log "warning: the guest script reported failures (status $rc): see $out/serial.log"
render "$out"
exit $rc
