#!/bin/bash
# The seed's kipmid table and kcsmux's per-node budgets, measured: build
# (plain, unsanitized) if needed, boot one TCG guest per configuration (the
# KCS without its IRQ, the seed's situation, then with it), each on ipmi_sim
# behind the seed delay model (200-2000 us), run tests/bench/qos-bench.sh in
# it, and render the results into docs/bench-qos.md (between the qos-bench
# markers), docs/img/qos-bench.png and docs/data/qos-bench/.
#
#   tests/bench/run-qos-bench.sh [options]
#
# Options:
#   --out DIR       where the results land (default
#                   $KCSMUX_BUILD/bench/qos-YYYYmmdd-HHMMSS)
#   --iter N        workload iterations per unloaded row (default 10, the
#                   seed's): ipmitool sdr; ipmitool sel list
#   --liter N       iterations per row under 100% CPU load (default 10)
#   --pair-n N      interactive requests per pair phase (default 200; 0: no
#                   pair)
#   --gap US        pause between interactive requests (default 40000)
#   --only noirq|irq  boot only one configuration
#   --no-docs       leave docs/ alone: report only in DIR/report.md and
#                   DIR/qos-bench.png
#   --report DIR    do not run anything: render an earlier run's DIR again
#                   (e.g. docs/data/qos-bench, the figures in the docs)
#   --timeout SEC   guest timeout per boot (default 600)
#
# Environment: KCSMUX_BUILD (default /tmp/build-qos; must not be a
# SANITIZE=ON tree), and what tests/vm/run.sh reads. About 9 minutes of VM
# time with the defaults (two boots); run.sh waits while another VM holds
# the lock. This is a benchmark, not a test: CTest does not run it.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
export KCSMUX_BUILD=${KCSMUX_BUILD:-/tmp/build-qos}
build=$KCSMUX_BUILD
iter=10 liter=10 pairn=200 gap=40000 only="" docs=1 report="" timeout=600 out=""

. "$src/tests/bench/lib.sh"
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift ;;
	--iter) iter=$2; shift ;;
	--liter) liter=$2; shift ;;
	--pair-n) pairn=$2; shift ;;
	--gap) gap=$2; shift ;;
	--only) only=$2; shift ;;
	--no-docs) docs=0 ;;
	--report) report=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	-h|--help) usage ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
	shift
done
case "$only" in ""|noirq|irq) ;; *) die "--only takes noirq or irq" ;; esac


# render DIR: tables and plot; with docs, also keep the raw figures in
# docs/data/qos-bench/ (re-render them with --report docs/data/qos-bench).
render() {
	local dir=$1 args=() data=$src/docs/data/qos-bench m
	if [ $docs = 1 ]; then
		args=(--docs "$src/docs/bench-qos.md" --png "$src/docs/img/qos-bench.png")
		if [ "$(cd "$dir" && pwd)" != "$data" ]; then
			mkdir -p "$data"
			cp "$dir/host-env.txt" "$data/"
			for m in noirq irq; do
				[ -d "$dir/$m" ] || continue
				bench_keep "$dir/$m" "$data/$m" results.txt env.txt \
					kcsmuxd.log kcsmux.conf kcsraw-counters.txt run.log
			done
		fi
	fi
	"$py" "$src/tests/bench/qos-bench-report.py" "$dir" "${args[@]}"
	if [ $docs = 1 ]; then
		log "updated docs/bench-qos.md, docs/img/qos-bench.png, docs/data/qos-bench/"
	fi
	log "results in $dir"
}

if [ -n "$report" ]; then
	render "$report"
	exit 0
fi

# Build: a plain tree (benchmarks want unsanitized binaries).
bench_build kcsmuxd kcsmux-utime kcsmux-ipmi-probe kcsmux-bmc-proxy kmod

[ -n "$out" ] || out=$build/bench/qos-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
bench_host_env "$out/host-env.txt"

rc=0
for mode in noirq irq; do
	[ -z "$only" ] || [ "$only" = $mode ] || continue
	irq=off
	[ $mode = irq ] && irq=on
	d=$out/$mode
	mkdir -p "$d"
	rm -f "$d/results.txt"
	log "booting the $mode guest (iter=$iter, liter=$liter, pair-n=$pairn); serial log $d/serial.log"
	s=$(date +%s)
	r=0
	"$src/tests/vm/run.sh" --mitigations --bmc extern --delay seed --irq $irq \
		--proxy-args "--on 0x30:0x05=model,fixed:400 --on 0x30:0x06=model,fixed:2500 --on 0x30:0x07=model,seed" \
		--out "$d" --log "$d/serial.log" --timeout "$timeout" -q \
		--env QOS_MODE=$mode --env QOS_ITER="$iter" --env QOS_LITER="$liter" \
		--env QOS_PAIR_N="$pairn" --env QOS_PAIR_GAP_US="$gap" \
		"$src/tests/bench/qos-bench.sh" 2>"$d/run.log" || r=$?
	echo "wall_seconds_$mode=$(( $(date +%s) - s ))" >>"$out/host-env.txt"
	sed 's/^/    /' "$d/run.log" >&2
	grep -E '^(FAIL|[0-9]+ passed)' "$d/serial.log" >&2 || true
	[ -s "$d/results.txt" ] || die "the $mode guest wrote no results (status $r; see $d/serial.log)"
	[ $r = 0 ] || { log "warning: the $mode guest reported failures (status $r): see $d/serial.log"; rc=$r; }
done
bench_host_after "$out/host-env.txt"
render "$out"
exit $rc
