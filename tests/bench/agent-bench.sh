# Monitoring agents per scrape: the stock driver against kcsmux monitoring
# nodes (guest script; the host side is run-agent-bench.sh, the write-up
# docs/bench-agents.md).
#
#   KCSMUX_BMC_CONF=DIR run.sh --bmc extern --delay seed --second-kcs \
#       --proxy-args "--log-requests OUT/req-%n.log --answer ..." \
#       [--env AB_ROUNDS=5] [--smp 2] tests/bench/agent-bench.sh
# (tests/bench/run-agent-bench.sh builds the command line.)
#
# Both KCS are backed by the same generated 178-sensor ipmi_sim
# (tests/vm/bmc/gen-big-bmc.py) behind the seed delay model. Stock ipmi_si
# on the second KCS (0xca8, no IRQ: kipmid, default settings) is /dev/ipmi0;
# kcsraw.ko on the first (0xca2, IRQ 5) under kcsmuxd with the nodes
#   ipmi1  policy = monitor, access = monitoring, rate = unlimited,
#          cpu_budget = AB_BUDGET % (10)[, sdr_cache = no]
#   ipmi2  the same with sdr_cache = yes (only when kcsmuxd accepts the key)
#   ipmi3  the example configuration's node as it is (rate 150/s of the
#          monitor preset), with AB_PRESET_ROW=1 only
#   ipmi4, ipmi5  as ipmi1 and ipmi2 with cpu_budget = none (beside them,
#          ipmi1 and ipmi2 show what the budget costs in time)
#   ipmi9  access = all, for the markers only
# Per row, AB_ROUNDS rounds (the row order rotates each round) of
#   scrape: one GET /metrics of a prometheus-ipmi-exporter with its default
#           collectors (ipmi, dcmi, bmc, chassis), one exporter per row;
#   gather: telegraf's commands, ipmitool sdr elist; chassis power status;
#           dcmi power reading.
# after one unmeasured scrape and gather per row. Around each measured one:
# an OEM marker request 30:7e KIND ROW ROUND before and 30:7f after, which
# the BMC refuses, on the row's KCS (stock: /dev/ipmi0; nodes: ipmi9), so
# that the delay proxy's request log (--log-requests) can be cut into
# scrapes on the host; inside the markers CLOCK_MONOTONIC, idle time (both
# /proc/timer_list and /proc/stat), context switches, the CPU of kcsmuxd,
# of the poller threads (kipmi*, kcsraw*), of the agent (exporter: its
# /proc stat with reaped children; gather: wait4 of the sh), and outside
# them the node's kcsmuxctl show (cpu_ns, budget_used_pct, cheapened,
# held). One line per measurement in /out/results.txt.
#
# Then (AB_PHASES, default "rows together"; either alone) the together
# phase: collectd's ipmi plugin, one exporter and the
# gather all on /dev/ipmi0, scraping at the same moment every
# AB_TOGETHER_PERIOD s (10), once collectd has values AB_TOGETHER_WARMUP
# full rounds (1) and then AB_TOGETHER_ROUNDS (3) between markers 30:7e/7f
# 3 IDX 1; rows stock, then node, coalesce and coalesce_cache (and cache
# with AB_TOGETHER_CACHE_ROW=1) on a kcsmuxd node ipmi0 (see "together"
# below). Lines tround (per round), tcd (collectd's values per
# round) and together (per row: the node's coalesced, completed and
# sdr_cache_hits over the window, collectd's series) in results.txt.
. /guest/lib.sh

ROUNDS=${AB_ROUNDS:-5}
# the budgeted rows' cpu_budget, % of one CPU: the monitor preset's 1 %
# counts the daemon's CPU too, about 15 times native under TCG, so 1 %
# would hold those rows' queue for minutes a scrape
BUDGET=${AB_BUDGET:-10}
PHASES=${AB_PHASES:-rows together}
RES=/out/results.txt
export HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin:/guest/bin
mkdir -p /out "$HOME"
: >$RES
dpid=""
NCPU=$(grep -c '^processor' /proc/cpuinfo)
[ -n "${KCS2_PORT:-}" ] || { fail "needs run.sh --second-kcs"; summary; exit; }
command -v prometheus-ipmi-exporter >/dev/null ||
	{ fail "no prometheus-ipmi-exporter in the guest (run-agent-bench.sh adds it)"; summary; exit; }

{
	echo "kernel=$(uname -r)"
	echo "nproc=$NCPU"
	echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "delay=$KCSMUX_DELAY"
	echo "rounds=$ROUNDS"
	echo "kcs1=$KCS1_PORT irq=$KCS1_IRQ kcs2=$KCS2_PORT irq2=$KCS2_IRQ"
	echo "kipmid_max_busy_us=$(cat /sys/module/ipmi_si/parameters/kipmid_max_busy_us 2>/dev/null || echo unloaded)"
} >/out/env.txt
say "TCG slowdown: the same CPU-bound loops and wake-up round trips as on the host"
kcsmux-spinloop -n 20000000 -s 100000 | tee /out/spinloop.txt | sed 's/^/    /'
if command -v node-pingpong >/dev/null; then
	node-pingpong 20000 | tee /out/pingpong.txt | sed 's/^/    /'
fi

# kstat: timer_list idle (us) /proc/stat idle (us) ctxt
kstat() {
	awk '/^ *\.(idle|iowait)_sleeptime/ {
			for (f = 2; f <= NF; f++) if ($f ~ /^[0-9]+$/) { i += $f; break }
		}
		/^cpu / { s = ($5 + $6) * 10000 } /^ctxt / { c = $2 }
		END { printf "%d %d %s", i / 1000, s, c }' /proc/timer_list /proc/stat
}
# ticks PID: utime+stime+cutime+cstime of PID, in us (USER_HZ 100)
ticks() {
	if [ -n "$1" ] && [ -r "/proc/$1/stat" ]; then
		sed 's/^.*) //' "/proc/$1/stat" | awk '{ printf "%d", ($12 + $13 + $14 + $15) * 10000 }'
	else
		printf 0
	fi
}
pidq() { if [ -n "$1" ]; then echo "--cpu-pid $1"; else echo "--cpu-of no-such-thread"; fi; }
# snap AGENTPID: now daemon_us kipmid_us kcsraw_us agent_us idle_tl
# idle_stat ctxt
snap() {
	# shellcheck disable=SC2046
	echo "$(kcsmux-utime --now $(pidq "$dpid") --cpu-of 'kipmi*' --cpu-of 'kcsraw*' \
		2>/dev/null | tr '\n' ' ')$(ticks "$1") $(kstat)"
}
# show NODE: cpu_ns budget_used_pct cheapened held completed
# sdr_cache_hits sdr_cache_misses daemon_cpu_ns of a node (0 for keys it
# lacks)
show() {
	kcsmuxctl show "$1" 2>/dev/null | awk -F= '
		$1 == "cpu_ns" { c = $2 } $1 == "budget_used_pct" { b = $2 }
		$1 == "cheapened" { h = $2 } $1 == "held" { d = $2 } $1 == "completed" { n = $2 }
		$1 == "sdr_cache_hits" { x = $2 } $1 == "sdr_cache_misses" { m = $2 }
		$1 == "daemon_cpu_ns" { q = $2 }
		END { printf "%s %s %s %s %s %s %s %s", c + 0, (b == "" ? "-" : b), h + 0, d + 0,
			n + 0, x + 0, m + 0, q + 0 }'
}

# Marker: one request the BMC refuses (30:7e/7f KIND ROW ROUND), on the KCS
# the row uses.
mark() {	# CMD DEV KIND ROWIDX ROUND
	kcsmux-ipmi-probe -d "$2" -n 1 -r "30 $1 $3 $4 $5" --allow-errors >/dev/null 2>&1
}

cat >/tmp/exporter.yml.in <<'EOF'
modules:
  default:
    driver: "OPENIPMI"
    collectors:
    - ipmi
    - dcmi
    - bmc
    - chassis
    custom_args:
      ipmi: ["--driver-device=@DEV@"]
      dcmi: ["--driver-device=@DEV@"]
      bmc: ["--driver-device=@DEV@"]
      chassis: ["--driver-device=@DEV@"]
EOF

# ---- the drivers -----------------------------------------------------------
say "stock ipmi_si on $KCS2_PORT (no IRQ: kipmid default)"
sdev=$(load_stock "$KCS2_PORT")
check "stock ipmi_si is /dev/ipmi0 ($sdev)" test "$sdev" = /dev/ipmi0
check "kipmid runs" sh -c 'grep -q kipmi /proc/[0-9]*/comm 2>/dev/null'
_b=$(cat /sys/module/ipmi_si/parameters/kipmid_max_busy_us 2>/dev/null)
echo "kipmid_max_busy_us_loaded=${_b:-unset}" >>/out/env.txt
kcsmux_setup

# Does this kcsmuxd know sdr_cache? (the key of wt-sdr's SDR/FRU cache)
CACHE=0
kcsmux_conf <<'CONF'
[node ipmi1]
sdr_cache = yes
CONF
if kcsmuxd -n >/tmp/ncheck 2>&1; then CACHE=1; fi
sed 's/^/    kcsmuxd -n with sdr_cache: /' /tmp/ncheck
echo "sdr_cache_supported=$CACHE" >>$RES
echo "budget_pct=$BUDGET" >>$RES
COFF="" CON=""
[ $CACHE = 1 ] && COFF="sdr_cache = no" CON="sdr_cache = yes"
kcsmux_conf <<CONF

[node ipmi1]
policy = monitor
access = monitoring
rate = unlimited
cpu_budget = $BUDGET%
$COFF

[node ipmi2]
policy = monitor
access = monitoring
rate = unlimited
cpu_budget = $BUDGET%
$CON

[node ipmi3]
policy = monitor
access = monitoring
$COFF

[node ipmi4]
policy = monitor
access = monitoring
rate = unlimited
cpu_budget = none
$COFF

[node ipmi5]
policy = monitor
access = monitoring
rate = unlimited
cpu_budget = none
$CON

[node ipmi9]
access = all
CONF
cp /etc/kcsmux/kcsmux.conf /out/kcsmux.conf
check "kcsmux.conf is valid" kcsmuxd -n
kcsmuxd -f 2>/out/kcsmuxd.log &
dpid=$!
for _i in $(seq 50); do [ -c /dev/ipmi9 ] && break; sleep 0.1; done
check "kcsmuxd nodes exist" test -c /dev/ipmi9
# ipmi_sim answers once it has started
for d in 0 9; do
	for _i in $(seq 50); do
		kcsmux-ipmi-probe -d $d -n 1 >/dev/null 2>&1 && break
		sleep 0.2
	done
done

# rows: name device node (ROWS in measuring order of round 1); none
# without the rows phase (AB_PHASES=together)
ROWS="stock:0:- node:1:ipmi1 nodenb:4:ipmi4"
[ $CACHE = 1 ] && ROWS="$ROWS cache:2:ipmi2 cachenb:5:ipmi5"
[ "${AB_PRESET_ROW:-0}" = 1 ] && ROWS="$ROWS preset:3:ipmi3"
case " $PHASES " in *" rows "*) ;; *) ROWS="" ROUNDS=0 ;; esac
echo "rows=$ROWS ncpu=$NCPU rounds=$ROUNDS" >>$RES

# one exporter per row, on port 9290 + device number
for r in $ROWS; do
	n=$(echo "$r" | cut -d: -f2)
	sed "s#@DEV@#/dev/ipmi$n#g" /tmp/exporter.yml.in >/tmp/exporter$n.yml
	prometheus-ipmi-exporter --config.file=/tmp/exporter$n.yml \
		--web.listen-address=127.0.0.1:$((9290 + n)) >/out/exporter$n.log 2>&1 &
	echo $! >/tmp/exporter$n.pid
done
for r in $ROWS; do
	n=$(echo "$r" | cut -d: -f2)
	for _i in $(seq 100); do port_up $((9290 + n)) && break; sleep 0.1; done
	check "exporter for /dev/ipmi$n listens" port_up $((9290 + n))
done

# the workloads
scrape() {	# N OUTFILE
	wget -q -O "$2" "http://127.0.0.1:$((9290 + $1))/metrics"
}
GATHER='ipmitool -I open -d "$1" sdr elist >/tmp/g.sdr 2>&1 || exit 1
ipmitool -I open -d "$1" chassis power status >/tmp/g.pwr 2>&1 || exit 2
ipmitool -I open -d "$1" dcmi power reading >/tmp/g.dcmi 2>&1 || exit 3'

# measure KIND(1 scrape, 2 gather) ROW N NODE ROUND: one measured run
measure() {
	_k=$1 _row=$2 _n=$3 _node=$4 _r=$5
	_md=/dev/ipmi9
	[ "$_row" = stock ] && _md=/dev/ipmi0
	_ep=$(cat /tmp/exporter$_n.pid)
	_ap=""
	[ "$_k" = 1 ] && _ap=$_ep
	_sh0="0 - 0 0 0 0 0 0"
	[ "$_node" != - ] && _sh0=$(show "$_node")
	mark 0x7e $_md "$_k" "$_n" "$_r"
	_s0=$(snap "$_ap")
	if [ "$_k" = 1 ]; then
		kcsmux-utime -o /tmp/ut -- sh -c 'wget -q -O /tmp/scrape "http://127.0.0.1:$1/metrics"' \
			scrape $((9290 + _n))
	else
		kcsmux-utime -o /tmp/ut -- sh -c "$GATHER" gather "$_n"
	fi
	_rc=$?
	_s1=$(snap "$_ap")
	mark 0x7f $_md "$_k" "$_n" "$_r"
	_sh1="0 - 0 0 0 0 0 0"
	[ "$_node" != - ] && _sh1=$(show "$_node")
	# shellcheck disable=SC2086
	set -- $_s0 $_s1 $_sh0 $_sh1
	# 1 now 2 daemon 3 kipmid 4 kcsraw 5 agent 6 idle_tl 7 idle_stat 8 ctxt;
	# +8; 17 cpu_ns 18 budget% 19 cheap 20 held 21 done 22 hits 23 misses
	# 24 daemon_cpu_ns; +8
	_cl=$(sed -n 's/.* user_us=\([0-9]*\) sys_us=\([0-9]*\).*/\1 \2/p' /tmp/ut | head -n 1)
	_agent=$((${13} - $5))
	[ "$_k" = 2 ] && _agent=$((${_cl% *} + ${_cl#* }))
	if [ "$_k" = 1 ]; then
		_ok=$(grep -c '^ipmi_up{.*} 1$' /tmp/scrape)
		_sens=$(grep -Ec '^ipmi_(temperature_celsius|fan_speed_rpm|voltage_volts|current_amperes|power_watts|sensor_state)\{' /tmp/scrape)
		grep '^ipmi_' /tmp/scrape | grep -v duration_seconds | sort >/tmp/series
		_good=0
		[ "$_rc" = 0 ] && [ "$_ok" = 4 ] && [ "$_sens" -ge 170 ] && _good=1
		_cmp=/tmp/ref.scrape
	else
		_ok=$(grep -c '|' /tmp/g.sdr)
		_sens=$_ok
		cat /tmp/g.sdr /tmp/g.pwr /tmp/g.dcmi >/tmp/series
		_good=0
		[ "$_rc" = 0 ] && [ "$_ok" -ge 170 ] && grep -q 'Chassis Power is' /tmp/g.pwr &&
			grep -q 'Instantaneous power reading' /tmp/g.dcmi && _good=1
		_cmp=/tmp/ref.gather
	fi
	# the stock row's first answer is the reference for every later one
	[ -f $_cmp ] || [ "$_row" != stock ] || cp /tmp/series $_cmp
	_same=0
	cmp -s /tmp/series $_cmp && _same=1
	_l="kind=$([ "$_k" = 1 ] && echo scrape || echo gather) row=$_row dev=$_n round=$_r rc=$_rc"
	_l="$_l wall_us=$((${9} - $1)) daemon_us=$((${10} - $2)) kipmid_us=$((${11} - $3))"
	_l="$_l kcsraw_us=$((${12} - $4)) poller_us=$((${11} - $3 + ${12} - $4))"
	_l="$_l agent_us=$_agent idle_tl_us=$((${14} - $6)) idle_stat_us=$((${15} - $7))"
	_l="$_l ctxt=$((${16} - $8)) ncpu=$NCPU node_cpu_ns=$((${25} - ${17}))"
	_l="$_l node_daemon_cpu_ns=$((${32} - ${24}))"
	_l="$_l budget_used_pct=${26} cheapened=$((${27} - ${19})) held=$((${28} - ${20}))"
	_l="$_l node_done=$((${29} - ${21})) cache_hits=$((${30} - ${22}))"
	_l="$_l cache_misses=$((${31} - ${23})) up=$_ok sensors=$_sens same_as_stock=$_same good=$_good"
	echo "$_l" >>$RES
	echo "    $_l"
	if [ $_good = 1 ] && [ $_same = 1 ]; then
		pass "$_row kind $_k round $_r"
	else
		fail "$_row kind $_k round $_r (rc $_rc, up $_ok, $_sens sensors, same as stock $_same)"
		[ -f $_cmp ] && diff $_cmp /tmp/series | head -n 6 | sed 's/^/    | /'
	fi
}

say "warm-up: one scrape and one gather per row (unmeasured)"
for r in $ROWS; do
	n=$(echo "$r" | cut -d: -f2)
	kcsmux-utime -o /tmp/w -- sh -c 'wget -q -O /tmp/warm "http://127.0.0.1:$1/metrics"' w $((9290 + n))
	kcsmux-utime -a -o /tmp/w -- sh -c "$GATHER" gather "$n"
	echo "    warm-up $r: $(grep -o 'wall_us=[0-9]*' /tmp/w | tr '\n' ' ')"
done

# rotate LIST K: LIST rotated left K times
rotate() {
	_l=$1 _k=$2
	while [ "$_k" -gt 0 ]; do
		_l="${_l#* } ${_l%% *}"
		_k=$((_k - 1))
	done
	echo "$_l"
}
nrows=$(echo "$ROWS" | wc -w)
t0=$(date +%s)
R=1
while [ $R -le "$ROUNDS" ]; do
	say "round $R"
	for r in $(rotate "$ROWS" $(((R - 1) % nrows))); do
		row=${r%%:*}
		n=$(echo "$r" | cut -d: -f2)
		node=${r##*:}
		measure 1 "$row" "$n" "$node" "$R"
		measure 2 "$row" "$n" "$node" "$R"
	done
	R=$((R + 1))
done
say "measured rounds: $(($(date +%s) - t0)) s"

# Counting pass (not timed): kprobes with hist triggers count the FUSE round
# trips the clients make (fuse_simple_request; of which poll), the daemon's
# reads and writes on /dev/cuse and the poll notifications, over one more
# scrape and gather per node row, plus the context switches.
T=/sys/kernel/tracing
KPROBES="ab_fsr:fuse_simple_request ab_poll:fuse_file_poll ab_rd:fuse_dev_do_read
ab_wr:fuse_dev_do_write ab_ntf:fuse_notify_poll_wakeup"
tot() { awk '/hitcount:/ { n += $NF } END { print n + 0 }' $T/events/kprobes/$1/hist; }
trace_on() {
	grep -q " $T tracefs " /proc/mounts || mount -t tracefs none $T || return 1
	for _p in $KPROBES; do
		echo "p:${_p%%:*} ${_p#*:}" >>$T/kprobe_events || return 1
	done
}
if [ -z "$ROWS" ]; then
	:
elif trace_on 2>/dev/null; then
	for r in $ROWS; do
		row=${r%%:*}
		n=$(echo "$r" | cut -d: -f2)
		for k in 1 2; do
			for _p in $KPROBES; do
				echo 'hist:keys=common_pid' >$T/events/kprobes/${_p%%:*}/trigger
			done
			c0=$(awk '/^ctxt /{print $2}' /proc/stat)
			if [ $k = 1 ]; then
				wget -q -O /tmp/cnt "http://127.0.0.1:$((9290 + n))/metrics"
			else
				sh -c "$GATHER" gather "$n"
			fi
			c1=$(awk '/^ctxt /{print $2}' /proc/stat)
			l="count kind=$([ $k = 1 ] && echo scrape || echo gather) row=$row"
			for _p in $KPROBES; do
				l="$l ${_p%%:*}=$(tot ${_p%%:*})"
				echo '!hist:keys=common_pid' >$T/events/kprobes/${_p%%:*}/trigger
			done
			l="$l ctxt=$((c1 - c0))"
			echo "$l" >>$RES
			echo "    $l"
		done
	done
	echo >$T/kprobe_events
else
	fail "tracefs/kprobes unavailable: no counting pass"
fi

# ---- together: the three agents on one /dev/ipmi0 --------
# collectd's ipmi plugin (OpenIPMI) only knows interface 0, so every row of
# this phase is /dev/ipmi0: stock ipmi_si first (it already is ipmi0), then,
# with ipmi_si unloaded, one kcsmuxd node named ipmi0 per row, kcsmuxd
# restarted for each with the row's keys (policy = monitor, access =
# monitoring, rate = unlimited, cpu_budget = none; coalesce and sdr_cache
# as the row says) and the marker node ipmi9 (access = all). Per row:
# collectd with Interval TPER, one exporter on /dev/ipmi0 (port 9390) and a
# loop that, at collectd's start and every TPER s after it, scrapes the
# exporter and runs the gather at the same moment, so that the three read
# their sensors together; once collectd has values (OpenIPMI has read the
# repository), TWARM unmeasured rounds (FreeIPMI checks its SDR cache, the
# node fills its own), then TROUNDS rounds between the markers 30:7e/30:7f
# 3 IDX 1, sent 1 s before the first measured round's tick and 1 s before
# the tick after the last.
# Each round must be done by the next marker time ("late" otherwise).
TPER=${AB_TOGETHER_PERIOD:-30}
TROUNDS=${AB_TOGETHER_ROUNDS:-3}
TWARM=${AB_TOGETHER_WARMUP:-1}

now_us() { kcsmux-utime --now; }
# sleep_until T: until CLOCK_MONOTONIC reaches T (us)
sleep_until() {
	_d=$(($1 - $(now_us)))
	[ "$_d" -gt 0 ] && sleep "$(awk -v d="$_d" 'BEGIN { printf "%.3f", d / 1e6 }')"
	return 0
}
# tshow: coalesced completed sdr_cache_hits of node ipmi0 (0 0 0 on stock)
tshow() {
	kcsmuxctl show ipmi0 2>/dev/null | awk -F= '
		$1 == "coalesced" { c = $2 } $1 == "completed" { n = $2 }
		$1 == "sdr_cache_hits" { h = $2 }
		END { printf "%d %d %d", c, n, h }'
}

# tround ROW IDX ROUND SCRAPE_RC GATHER_RC LATE: one round's line (in
# results.txt for the measured rounds, ROUND >= 1); the stock row's first
# measured answers are the reference for every later one.
tround() {
	_ok=$(grep -c '^ipmi_up{.*} 1$' /tmp/ts)
	_sens=$(grep -Ec '^ipmi_(temperature_celsius|fan_speed_rpm|voltage_volts|current_amperes|power_watts|sensor_state)\{' /tmp/ts)
	grep '^ipmi_' /tmp/ts | grep -v duration_seconds | sort >/tmp/tseries.s
	_gl=$(grep -c '|' /tmp/g.sdr)
	_pw=0 _dc=0
	grep -q 'Chassis Power is' /tmp/g.pwr && _pw=1
	grep -q 'Instantaneous power reading' /tmp/g.dcmi && _dc=1
	cat /tmp/g.sdr /tmp/g.pwr /tmp/g.dcmi >/tmp/tseries.g
	if [ "$1" = stock ] && [ "$3" = 1 ]; then
		cp /tmp/tseries.s /tmp/tref.s
		cp /tmp/tseries.g /tmp/tref.g
	fi
	_ss=0 _gs=0
	cmp -s /tmp/tseries.s /tmp/tref.s && _ss=1
	cmp -s /tmp/tseries.g /tmp/tref.g && _gs=1
	_sw=$(sed -n 's/.* wall_us=\([0-9]*\).*/\1/p' /tmp/tu.s | head -n 1)
	_gw=$(sed -n 's/.* wall_us=\([0-9]*\).*/\1/p' /tmp/tu.g | head -n 1)
	_l="tround row=$1 idx=$2 round=$3 scrape_rc=$4 scrape_us=${_sw:-0} up=$_ok"
	_l="$_l sensors=$_sens scrape_same=$_ss gather_rc=$5 gather_us=${_gw:-0}"
	_l="$_l sdr_lines=$_gl power=$_pw dcmi=$_dc gather_same=$_gs late=$6"
	echo "    $_l"
	[ "$3" -ge 1 ] || return 0
	echo "$_l" >>$RES
	if [ "$4" = 0 ] && [ "$_ok" = 4 ] && [ "$_sens" -ge 170 ] && [ $_ss = 1 ] &&
		[ "$5" = 0 ] && [ "$_gl" -ge 170 ] && [ $_pw = 1 ] && [ $_dc = 1 ] &&
		[ $_gs = 1 ] && [ "$6" = 0 ]; then
		pass "together $1 round $3: exporter and gather got every reading, on time"
	else
		fail "together $1 round $3 (scrape rc $4, up $_ok, $_sens sensors, same $_ss;" \
			"gather rc $5, $_gl lines, same $_gs; late $6)"
	fi
}

# together_row ROW IDX: one row's warm-up and measured window, on the
# /dev/ipmi0 that is up
together_row() {
	_row=$1 _idx=$2 _o=/tmp/ct/$1
	_md=/dev/ipmi9
	[ "$_row" = stock ] && _md=/dev/ipmi0
	say "together, row $_row: $TWARM + $TROUNDS rounds, every $TPER s"
	rm -rf "$_o" /tmp/collectd
	mkdir -p "$_o"
	collectd_conf "$_o" "$TPER"
	prometheus-ipmi-exporter --config.file=/tmp/exporter0.yml \
		--web.listen-address=127.0.0.1:9390 >"/out/together-exporter-$_row.log" 2>&1 &
	_ep=$!
	for _i in $(seq 100); do port_up 9390 && break; sleep 0.1; done
	check "together $_row: the exporter listens" port_up 9390
	collectd -f -C /tmp/collectd.conf >"$_o/collectd.out" 2>&1 &
	_cp=$!
	_t0=$(now_us)
	# warm-up: collectd's ticks until it has written values (OpenIPMI has
	# read the repository and every sensor's settings: 30-50 s under TCG
	# with the others at work), the others idle; then TWARM full rounds;
	# then the TROUNDS measured ones
	_edges="" _k=0 _full=0 _m=0 _c0=""
	while [ $_m -lt "$TROUNDS" ]; do
		_tk=$((_t0 + _k * TPER * 1000000))
		if [ $_full -ge "$TWARM" ] && [ -z "$_c0" ]; then
			sleep_until $((_tk - 1000000))
			_c0=$(tshow)
			mark 0x7e $_md 3 "$_idx" 1
		fi
		sleep_until "$_tk"
		_k=$((_k + 1))
		if [ -z "$_c0" ] && ! ls "$_o"/csv/guest/*/* >/dev/null 2>&1; then
			if [ $_k -gt $((150 / TPER)) ]; then
				fail "together $_row: collectd wrote no value in $((_k * TPER)) s"
				break
			fi
			continue
		fi
		[ -n "$_c0" ] && _edges="$_edges $(date +%s)"
		# collectd reads at this moment too, on its own Interval
		for _f in /tmp/ts /tmp/g.sdr /tmp/g.pwr /tmp/g.dcmi; do : >$_f; done
		kcsmux-utime -o /tmp/tu.s -- sh -c \
			'wget -q -O /tmp/ts "http://127.0.0.1:9390/metrics"' &
		_sp=$!
		kcsmux-utime -o /tmp/tu.g -- sh -c "$GATHER" gather 0
		_grc=$?
		wait $_sp
		_src=$?
		_lt=0
		[ "$(now_us)" -gt $((_tk + (TPER - 1) * 1000000)) ] && _lt=1
		if [ -n "$_c0" ]; then
			_m=$((_m + 1))
			tround "$_row" "$_idx" $_m "$_src" "$_grc" "$_lt"
		else
			_full=$((_full + 1))
			tround "$_row" "$_idx" $((_full - TWARM)) "$_src" "$_grc" "$_lt"
		fi
	done
	echo "    together $_row: collectd up after $(((_k - _m - _full) * TPER)) s"
	sleep_until $((_t0 + _k * TPER * 1000000 - 1000000))
	mark 0x7f $_md 3 "$_idx" 1
	_edges="$_edges $(date +%s)"
	_c1=$(tshow)
	kill $_cp $_ep
	wait $_cp $_ep 2>/dev/null
	cp "$_o/collectd.log" "/out/together-collectd-$_row.log" 2>/dev/null
	# collectd's values per measured round, by their csv time stamps
	# (round I: from the tick's second to the next tick's; the last up to
	# the end marker's), and the series with a value in the window
	_cd=$(for _f in "$_o"/csv/guest/*/*; do [ -f "$_f" ] && cat "$_f"; done | awk -F, -v e="$_edges" '
		BEGIN { n = split(e, E, " ") }
		$1 ~ /^[0-9.]+$/ && $1 + 0 >= E[1] && $1 + 0 < E[n] + 1 {
			for (i = 1; i < n - 1; i++) if ($1 + 0 < E[i + 1]) break
			v[i]++
		}
		END { for (i = 1; i < n; i++) printf "%s%d", (i > 1 ? " " : ""), v[i] + 0 }')
	_ser=$(for _f in "$_o"/csv/guest/*/*; do
		[ -f "$_f" ] && awk -F, -v a="${_edges# }" 'BEGIN { split(a, A, " ") }
			$1 ~ /^[0-9.]+$/ && $1 + 0 >= A[1] { print FILENAME; exit }' "$_f"
	done | wc -l)
	_i=1
	for _v in $_cd; do
		echo "tcd row=$_row round=$_i values=$_v" >>$RES
		_i=$((_i + 1))
	done
	[ -n "$_c0" ] || _c0=$_c1
	# shellcheck disable=SC2086
	set -- $_c0 $_c1
	_l="together row=$_row idx=$_idx ncpu=$NCPU period_s=$TPER rounds=$TROUNDS warmup=$TWARM"
	_l="$_l coalesced=$(($4 - $1)) completed=$(($5 - $2)) cache_hits=$(($6 - $3))"
	_l="$_l cd_series=$_ser cd_values=$(echo "$_cd" | tr ' ' ,)"
	echo "$_l" >>$RES
	echo "    $_l"
	if grep -Ei 'retry|: d4|insufficient|timed out|error' "$_o/collectd.log" >/tmp/bad 2>/dev/null; then
		echo "    collectd, $_row: $(wc -l </tmp/bad) complaint(s) in its log, e.g.:"
		sed 's/^/    | /' /tmp/bad | sort -u | head -n 5
	fi
	# collectd reads the threshold sensors it knows the type of: at least
	# as many on every row as on stock (stock refuses part of OpenIPMI's
	# burst, so a node may record more)
	if [ "$_row" = stock ]; then
		TREF_SER=$_ser
		check "together stock: collectd recorded $_ser series in the window (>= 100)" \
			test "$_ser" -ge 100
	else
		check "together $_row: collectd recorded $_ser series in the window (stock ${TREF_SER:-?})" \
			test "$_ser" -ge "${TREF_SER:-999999}"
	fi
}

together() {
	say "together: collectd, the exporter and the gather on /dev/ipmi0"
	# Does this kcsmuxd know coalesce?
	COAL=0
	kcsmux_conf <<'CONF'
[node ipmi0]
coalesce = yes
CONF
	kcsmuxd -n >/tmp/ncheck 2>&1 && COAL=1
	sed 's/^/    kcsmuxd -n with coalesce: /' /tmp/ncheck
	echo "together_coalesce_supported=$COAL" >>$RES
	sed "s#@DEV@#/dev/ipmi0#g" /tmp/exporter.yml.in >/tmp/exporter0.yml
	# rows: name marker-index
	TROWS="stock:1 node:2"
	[ $COAL = 1 ] && TROWS="$TROWS coalesce:3"
	[ $CACHE = 1 ] && [ "${AB_TOGETHER_CACHE_ROW:-0}" = 1 ] && TROWS="$TROWS cache:4"
	[ $COAL = 1 ] && [ $CACHE = 1 ] && TROWS="$TROWS coalesce_cache:5"
	# ... and with each coalesce_window_ms asked for (rows wMS), where
	# this kcsmuxd has the key
	_ti=6
	for _w in ${AB_TOGETHER_WINDOWS:-}; do
		[ $COAL = 1 ] && [ $CACHE = 1 ] || break
		kcsmux_conf <<CONF
[node ipmi0]
coalesce = yes
coalesce_window_ms = $_w
CONF
		if kcsmuxd -n >/tmp/ncheck 2>&1; then
			TROWS="$TROWS w$_w:$_ti"
			_ti=$((_ti + 1))
		else
			sed 's/^/    kcsmuxd -n with coalesce_window_ms: /' /tmp/ncheck
		fi
	done
	echo "trows=$TROWS" >>$RES
	check "together: stock ipmi_si is /dev/ipmi0" test -c /dev/ipmi0
	together_row stock 1
	modprobe -r ipmi_si 2>/dev/null || rmmod ipmi_si
	rmmod ipmi_devintf 2>/dev/null
	for _i in $(seq 50); do [ -e /dev/ipmi0 ] || break; sleep 0.1; done
	check "together: ipmi_si unloaded, no /dev/ipmi0" test ! -e /dev/ipmi0
	[ ! -e /dev/ipmi0 ] || return 0
	for r in $TROWS; do
		row=${r%%:*}
		[ "$row" = stock ] && continue
		co=no sc=no
		case $row in coalesce* | w[0-9]*) co=yes ;; esac
		case $row in *cache | w[0-9]*) sc=yes ;; esac
		{
			printf '\n[node ipmi0]\npolicy = monitor\naccess = monitoring\n'
			printf 'rate = unlimited\ncpu_budget = none\n'
			[ $COAL = 1 ] && echo "coalesce = $co"
			[ $CACHE = 1 ] && echo "sdr_cache = $sc"
			case $row in w[0-9]*) echo "coalesce_window_ms = ${row#w}" ;; esac
			printf '\n[node ipmi9]\naccess = all\n'
		} | kcsmux_conf
		cp /etc/kcsmux/kcsmux.conf "/out/together-$row.conf"
		check "together $row: kcsmux.conf is valid" kcsmuxd -n
		kcsmuxd -f 2>"/out/together-kcsmuxd-$row.log" &
		dpid=$!
		for _i in $(seq 50); do [ -c /dev/ipmi0 ] && [ -c /dev/ipmi9 ] && break; sleep 0.1; done
		check "together $row: node ipmi0 exists" test -c /dev/ipmi0
		for _i in $(seq 50); do
			kcsmux-ipmi-probe -d 0 -n 1 >/dev/null 2>&1 && break
			sleep 0.2
		done
		together_row "$row" "${r#*:}"
		kcsmuxctl show ipmi0 >"/out/together-show-$row.txt" 2>&1
		kill "$dpid"
		wait "$dpid" 2>/dev/null
		dpid=""
		for _i in $(seq 50); do [ -e /dev/ipmi0 ] || break; sleep 0.1; done
	done
}

for r in $ROWS; do
	n=$(echo "$r" | cut -d: -f2)
	kill "$(cat /tmp/exporter$n.pid)" 2>/dev/null
done
kcsmuxctl list >/out/kcsmuxctl-list.txt 2>&1
for nd in ipmi1 ipmi2 ipmi3 ipmi4 ipmi5; do
	kcsmuxctl show $nd >/out/show-$nd.txt 2>&1
done
kcsmuxctl stats >/out/kcsmuxctl-stats.txt 2>&1
kill "$dpid"
wait "$dpid" 2>/dev/null
dpid=""

case " $PHASES " in *" together "*) together ;; esac
cp /tmp/scrape /out/last-scrape.txt 2>/dev/null
cp /tmp/ref.gather /out/ref-gather.txt 2>/dev/null
summary
