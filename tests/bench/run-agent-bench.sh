#!/bin/bash
# Monitoring agents in their own terms: one Prometheus ipmi_exporter scrape
# and one telegraf-style gather, per scrape, on the stock driver and on
# kcsmux monitoring nodes (SDR cache off and, when kcsmuxd has it, on), in
# the same boot, against a generated 178-sensor ipmi_sim behind the seed
# delay model; then the three agents together (collectd, the exporter and
# the gather on one /dev/ipmi0, every 30 s), stock against a node with and
# without coalesce and SDR cache, counting BMC transactions per round;
# one boot with 1 vCPU, one with 2. Builds (plain,
# unsanitized) if needed, runs tests/bench/agent-bench.sh in each guest and
# renders the results into docs/bench-agents.md (between the agent-bench
# markers), docs/img/agent-bench.png and docs/data/agent-bench/.
#
#   tests/bench/run-agent-bench.sh [options]
#
# Options:
#   --out DIR       where the results land (default
#                   $KCSMUX_BUILD/bench/agent-YYYYmmdd-HHMMSS)
#   --rounds N      measured scrapes and gathers per row and boot (default 5)
#   --smp "1 2"     the boots, by vCPU count (default both)
#   --preset        also a row for the example configuration's node as it
#                   is (the monitor preset's rate of 50 requests/s)
#   --phases "rows together"  which parts run (default both): rows, the
#                   per-scrape rows; together, the three agents at once
#   --together-rounds N  measured rounds of the together phase (default 3)
#   --period SEC    the together phase's schedule (default 30: under TCG a
#                   node's scrape and gather take up to 22 s, and a round
#                   that runs into the next tick makes the window longer
#                   than its rounds, so collectd reads more per "round")
#   --windows "MS ..."  a together row per window: coalesce = yes,
#                   sdr_cache = yes and coalesce_window_ms = MS (row wMS;
#                   default "2000 10000"; "" for none)
#   --no-docs       leave docs/ alone: report only in DIR/report.md and
#                   DIR/agent-bench.png
#   --report DIR    do not run anything: render an earlier run's DIR again
#                   (e.g. docs/data/agent-bench, the figures in the docs)
#   --timeout SEC   guest timeout per boot (default 2400; 900 without the
#                   together phase)
#
# Environment: KCSMUX_BUILD (default /tmp/build-agent; must not be a
# SANITIZE=ON tree), and what tests/vm/run.sh reads. About 27 minutes of VM
# time per boot with the defaults (5 for the rows at 1 vCPU, 10 at 2; 22
# together); run.sh waits while another VM holds the
# lock. Needs the agents' packages (tests/vm/fetch-agents.sh). This is a
# benchmark, not a test: CTest does not run it (tests/unit runs the report
# renderer on a canned result: bench.agent-report).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
export KCSMUX_BUILD=${KCSMUX_BUILD:-/tmp/build-agent}
build=$KCSMUX_BUILD
rounds=5 smps="1 2" preset=0 docs=1 report="" timeout="" out=""
phases="rows together" trounds=3 period=30 windows="2000 10000"

. "$src/tests/bench/lib.sh"
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--smp) smps=$2; shift ;;
	--preset) preset=1 ;;
	--phases) phases=$2; shift ;;
	--together-rounds) trounds=$2; shift ;;
	--period) period=$2; shift ;;
	--windows) windows=$2; shift ;;
	--no-docs) docs=0 ;;
	--report) report=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	-h|--help) usage ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
	shift
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds takes a positive number"
for s in $smps; do case $s in 1|2) ;; *) die "--smp takes 1 and/or 2" ;; esac; done
for p in $phases; do case $p in rows|together) ;; *) die "--phases takes rows and/or together" ;; esac; done
[[ $trounds =~ ^[1-9][0-9]*$ ]] || die "--together-rounds takes a positive number"
if ! [[ $period =~ ^[1-9][0-9]*$ ]] || [ "$period" -lt 3 ]; then
	die "--period takes a number of seconds >= 3"
fi
for w in $windows; do
	[[ $w =~ ^[1-9][0-9]*$ ]] && [ "$w" -le 60000 ] ||
		die "--windows takes milliseconds, 1 to 60000"
done
if [ -z "$timeout" ]; then
	case " $phases " in *" together "*) timeout=2400 ;; *) timeout=900 ;; esac
fi

# render DIR: tables and plot; with docs, also keep the raw figures in
# docs/data/agent-bench/ (re-render them with --report docs/data/agent-bench).
# A run of the together phase alone goes to docs/data/agent-bench/together/
# and the docs show it beside the per-scrape rows already kept there.
render() {
	local dir=$1 args=() data=$src/docs/data/agent-bench d keep
	if [ $docs = 1 ]; then
		args=(--docs "$src/docs/bench-agents.md" --png "$src/docs/img/agent-bench.png")
		keep=$data
		if [ "$(cd "$dir" && pwd)" = "$data" ]; then
			args+=(--keep-dir)
		elif ! grep -qs '^kind=' "$dir"/smp*/results.txt; then
			keep=$data/together
			rm -rf "$keep"
		else
			rm -rf "$data"
		fi
		if [ "$keep" != "$data" ] || [ "$(cd "$dir" && pwd)" != "$data" ]; then
			mkdir -p "$keep"
			bench_keep "$dir" "$keep" host-env.txt host-spinloop.txt host-pingpong.txt host-spinloop-during-build.txt
			for d in "$dir"/smp*; do
				[ -d "$d" ] || continue
				bench_keep "$d" "$keep/${d##*/}" results.txt env.txt req-0.log req-1.log \
					kcsmux.conf kcsmuxctl-stats.txt show-ipmi1.txt show-ipmi2.txt show-ipmi4.txt show-ipmi5.txt \
					spinloop.txt pingpong.txt run.log \
					together-node.conf together-coalesce.conf together-cache.conf together-coalesce_cache.conf 'together-w*.conf' \
					'together-show-w*.txt' 'together-collectd-w*.log' \
					together-show-node.txt together-show-coalesce.txt together-show-cache.txt \
					together-show-coalesce_cache.txt together-collectd-stock.log together-collectd-node.log \
					together-collectd-coalesce.log together-collectd-cache.log together-collectd-coalesce_cache.log
				gzip -9f "$keep/${d##*/}"/req-*.log "$keep/${d##*/}"/together-collectd-*.log 2>/dev/null || true
			done
		fi
		if [ "$keep" != "$data" ]; then
			# the report of this run alone, then the docs from the kept rows
			# with this run as their together part
			"$py" "$src/tests/bench/agent-bench-report.py" "$dir"
			dir=$data
			args+=(--keep-dir)
		fi
	fi
	"$py" "$src/tests/bench/agent-bench-report.py" "$dir" "${args[@]}"
	if [ $docs = 1 ]; then
		log "updated docs/bench-agents.md, docs/img/agent-bench.png, docs/data/agent-bench/"
	fi
	log "results in $dir"
}

if [ -n "$report" ]; then
	render "$report"
	exit 0
fi

bench_build kcsmuxd kcsmuxctl kcsmux-utime kcsmux-ipmi-probe kcsmux-spinloop kcsmux-bmc-proxy kmod
agents=$("$src/tests/vm/fetch-agents.sh" --add-args) ||
	die "the agents' packages are not available (tests/vm/fetch-agents.sh)"

[ -n "$out" ] || out=$build/bench/agent-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The BMC: the rig's plus 160 generated sensors.
"$py" "$src/tests/vm/bmc/gen-big-bmc.py" "$out/bmc-conf" >&2

# The TCG factor: the CPU-bound loops of the other sections on the host
# (the guest halves run in the guest), and the wake-up ping-pong of the
# node section (its C source is taken from run-node-bench.sh, so both
# sections measure with the same program; skipped if that fails).
"$build/tests/tools/kcsmux-spinloop" -n 20000000 -s 100000 >"$out/host-spinloop.txt"
pp=$build/bench/node-pingpong
adds=()
mkdir -p "${pp%/*}"
if sed -n "/^cat >\"\$pp.c\" <<'C'\$/,/^C\$/p" "$src/tests/bench/run-node-bench.sh" |
	sed '1d;$d' >"$pp.c" && [ -s "$pp.c" ] &&
	{ cc -O2 -static -Wall -o "$pp" "$pp.c" 2>/dev/null || cc -O2 -Wall -o "$pp" "$pp.c"; }; then
	"$pp" 200000 >"$out/host-pingpong.txt"
	adds+=(--add "$pp")
else
	log "warning: no ping-pong helper (the TCG factor table will lack its row)"
fi
bench_host_env "$out/host-env.txt"

# The agents, as vm.agents brings them (tests/vm/fetch-agents.sh
# --add-args), and the proxy's answers for what ipmi_sim lacks (DCMI
# capabilities and power reading, self test, ACPI power state, channel
# authentication), as in tests/vm/CMakeLists.txt (vm.agents).
mapfile -t -O "${#adds[@]}" adds <<<"$agents"
answers="--answer 0x2c:0x01/0xdc=00,dc,01,05,02,00,01,01 --answer 0x2c:0x02/0xdc=00,dc,dc,00,96,00,2c,01,c8,00,00,00,00,67,e8,03,00,00,40 --answer 0x06:0x04=00,55,00 --answer 0x06:0x07=00,00,00 --answer 0x06:0x38=00,01,84,04,03,00,00,00,00"

rc=0
for s in $smps; do
	d=$out/smp$s
	mkdir -p "$d"
	rm -f "$d/results.txt" "$d"/req-*.log
	log "booting the $s-vCPU guest ($phases; $rounds rounds, together $trounds every $period s); serial log $d/serial.log"
	t=$(date +%s)
	r=0
	KCSMUX_BMC_CONF=$out/bmc-conf "$src/tests/vm/run.sh" --mitigations --bmc extern --delay seed \
		--second-kcs --irq on --irq2 off --smp "$s" "${adds[@]}" \
		--proxy-args "--log-requests $d/req-%n.log $answers" \
		--out "$d" --log "$d/serial.log" --timeout "$timeout" -q \
		--env AB_ROUNDS="$rounds" --env AB_PRESET_ROW="$preset" --env AB_PHASES="$phases" \
		--env AB_TOGETHER_ROUNDS="$trounds" --env AB_TOGETHER_PERIOD="$period" \
		--env AB_TOGETHER_WINDOWS="$windows" \
		"$src/tests/bench/agent-bench.sh" 2>"$d/run.log" || r=$?
	echo "wall_seconds_smp$s=$(($(date +%s) - t))" >>"$out/host-env.txt"
	sed 's/^/    /' "$d/run.log" >&2
	grep -E '^(FAIL|[0-9]+ passed)' "$d/serial.log" >&2 || true
	[ -s "$d/results.txt" ] || die "the $s-vCPU guest wrote no results (status $r; see $d/serial.log)"
	[ $r = 0 ] || { log "warning: the $s-vCPU guest reported failures (status $r): see $d/serial.log"; rc=$r; }
done
bench_host_after "$out/host-env.txt"
render "$out"
exit $rc
