#!/bin/bash
# The SEL benchmark: `ipmitool sel elist` and `ipmi-sel` over a SEL of
# 1,000 entries more than the test BMC's own (KCSMUX_BMC_SEL_EXTRA), on
# stock ipmi_si and on a kcsmux node with the SEL mirror, cold and warm,
# one reader and three at once, the BMCs answering in 5-12 ms, the BMC
# transactions counted by the delay proxies (tests/bench/sel-bench.sh in
# one boot); renders docs/bench-sel.md (between the sel-bench markers)
# and docs/img/sel-bench.png.
#
#   tests/bench/run-sel-bench.sh [options]
#
# Options:
#   --entries N   SEL entries beyond sel.txt's 16 (default 1000, at most 3500)
#   --out DIR     where the results land (default
#                 $KCSMUX_BUILD/bench/sel-YYYYmmdd-HHMMSS)
#   --no-docs     leave docs/ alone: DIR/report.md only
#   --report DIR  do not run anything: render an earlier run's DIR again
#                 (with the --entries it ran with)
#   --timeout SEC guest timeout (default 1500)
#
# Environment: KCSMUX_BUILD (default /tmp/build-selbench; must not be a
# SANITIZE=ON tree), and what tests/vm/run.sh reads. About 4 minutes of
# VM time with 1,000 entries. A benchmark, not a test: CTest does not run
# it.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
export KCSMUX_BUILD=${KCSMUX_BUILD:-/tmp/build-selbench}
build=$KCSMUX_BUILD
entries=1000 docs=1 report="" timeout=1500 out=""

. "$src/tests/bench/lib.sh"
while [ $# -gt 0 ]; do
	case "$1" in
	--entries) entries=$2; shift ;;
	--out) out=$2; shift ;;
	--no-docs) docs=0 ;;
	--report) report=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	*) usage ;;
	esac
	shift
done

render() {
	# 1,000 entries: the sel-bench block; another size its own
	# (sel-bench-3000: its block, plot and raw figures)
	local dir=$1 args=() name=sel-bench
	[ "$entries" = 1000 ] || name=sel-bench-$entries
	local data=$src/docs/data/$name
	if [ $docs = 1 ]; then
		args=(--docs "$src/docs/bench-sel.md" --png "$src/docs/img/$name.png"
			--marker "$name")
		if [ "$(cd "$dir" && pwd)" != "$data" ]; then
			bench_keep "$dir" "$data" results.txt host-env.txt \
				requests0.log requests1.log 'show.*'
		fi
	fi
	"$py" "$src/tests/bench/sel-bench-report.py" "$dir" "${args[@]}"
	log "results in $dir"
}

if [ -n "$report" ]; then
	render "$report"
	exit 0
fi
bench_build kcsmuxd kcsmuxctl kcsmux-kcsraw kcsmux-sdr-walk kcsmux-bmc-proxy kmod
[ -n "$out" ] || out=$build/bench/sel-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
bench_host_env "$out/host-env.txt"
log "booting the guest ($entries extra SEL entries); serial log $out/serial.log"
r=0
KCSMUX_BMC_SEL_EXTRA=$entries "$src/tests/vm/run.sh" --mitigations \
	--bmc extern --second-kcs --delay uniform:5000-12000 \
	--proxy-args "--log-requests $out/requests%n.log" \
	--out "$out" --log "$out/serial.log" --timeout "$timeout" -q \
	"$src/tests/bench/sel-bench.sh" 2>"$out/run.log" || r=$?
bench_host_after "$out/host-env.txt"
[ -s "$out/results.txt" ] || die "the guest wrote no results (status $r; see $out/serial.log)"
render "$out"
exit $r
