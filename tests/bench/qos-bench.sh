# The seed's kipmid table, reproduced against the stock driver and kcsmux
# nodes, unloaded and under 100% CPU load, plus an interactive client beside
# a monitoring agent on one interface (guest script; the host side is
# run-qos-bench.sh, the write-up docs/bench-qos.md).
#
# Run with one of (one boot per configuration):
#   run.sh --bmc extern --delay seed --irq off --env QOS_MODE=noirq tests/bench/qos-bench.sh
#   run.sh --bmc extern --delay seed --irq on  --env QOS_MODE=irq   tests/bench/qos-bench.sh
# [--env QOS_ITER=10 --env QOS_LITER=10 --env QOS_PAIR_N=200
#  --env QOS_PAIR_GAP_US=40000 --env QOS_ROWS="..." --env QOS_LROWS="..."]
#
# One KCS (0xca2) behind ipmi_sim and the seed delay model (200-2000 us), its
# IRQ off (the seed's situation: kipmid polls) or on. The drivers take turns
# on it: stock ipmi_si first, then kcsraw.ko + kcsmuxd, then stock again as
# a control.
#
# 1. The table. Workload (as in the seed post): QOS_ITER times
#    `ipmitool sdr; ipmitool sel list` against one device. Rows, each one
#    measured run: stock (noirq: kipmid default, kipmid_max_busy_us 5000 ...
#    10 written at run time, force_kipmid=0; irq: kipmid default through
#    ports= (the 6.1 driver ignores irqs= there) and the IRQ through hotmod)
#    and one kcsmux node per policy. The rows in QOS_LROWS are measured
#    again with a busy loop (sh, nice 0) running, with QOS_LITER iterations.
#    Around every run: CLOCK_MONOTONIC, idle time (/proc/timer_list), the
#    schedstat CPU of the poller threads (kipmi*, kcsraw*), of kcsmuxd and
#    of the busy loop, /proc/stat busy, context switches; the client's CPU
#    from wait4(). One line per run in /out/results.txt.
# 2. The pair: kcsmux-ipmi-probe on /dev/ipmi1 (interactive preset), Get
#    Device ID every QOS_PAIR_GAP_US, QOS_PAIR_N requests, alone and then
#    while a monitor loops Get Sensor Reading on /dev/ipmi2 as fast as its
#    policy lets it: the monitor preset (budget 1%, rate 150/s), then the
#    same without its rate limit (ipmi12, so that the budget is what binds).
#    The daemon's per-node table (SIGUSR1) before and after each window.
#    Lines pair=... and mon=... in /out/results.txt, the tables in
#    /out/kcsmuxd.log. A third window beside an adaptive monitor without
#    rate limit (budget 1%).
# 3. (noirq) Adaptive convergence: the BMC's latency switched fast -> slow
#    -> fast under an adaptive node and under a fixed-poll node (see
#    adapt_run); lines adapt=... in /out/results.txt.
. /guest/lib.sh

MODE=${QOS_MODE:-noirq}
IT=${QOS_ITER:-10}
LIT=${QOS_LITER:-10}
PN=${QOS_PAIR_N:-200}
GAP=${QOS_PAIR_GAP_US:-40000}
RES=/out/results.txt
DLOG=/out/kcsmuxd.log
PAR=/sys/module/ipmi_si/parameters
K=/sys/class/misc/kcsraw0
dpid="" lpid=""
mkdir -p /out
: >$RES
: >$DLOG

# Stock rows: default, busyN (kipmid_max_busy_us=N), nokipmid
# (force_kipmid=0), irq (hotmod), and a control at the end (noirq:
# default-ctl; irq: default-ctl). kcsmux rows: node names below.
if [ "$MODE" = irq ]; then
	STOCK=${QOS_STOCK:-"default irq"}
	STOCKL=${QOS_STOCKL:-"default irq"}
	KROWS=${QOS_ROWS:-"interactive spin b100-irq b0-irq exp50-1000-irq b0-p100 monitor-nr-irq bulk-irq adaptive-irq"}
	KROWSL=${QOS_LROWS:-"interactive b100-irq b0-irq b0-p100 adaptive-irq"}
else
	STOCK=${QOS_STOCK:-"default busy5000 busy2000 busy1000 busy500 busy200 busy100 busy50 busy20 busy10 nokipmid"}
	STOCKL=${QOS_STOCKL:-"default nokipmid busy1000 busy500 busy200 busy100"}
	KROWS=${QOS_ROWS:-"interactive spin b2000-p100 b500-p100 b100-p100 b0-p50 b0-p100 b0-p200 b0-p500 b0-p1000 exp50-1000 bulk monitor-nr adaptive adaptive-t2000 adaptive-b1 adaptive-p300 adaptive-p500"}
	KROWSL=${QOS_LROWS:-"interactive spin b500-p100 b100-p100 b0-p100 b0-p1000 exp50-1000 adaptive adaptive-t2000 adaptive-p300"}
fi
[ "$KCS1_IRQ" = 0 ] && [ "$MODE" = irq ] && fail "QOS_MODE=irq needs run.sh --irq on"
[ "$KCS1_IRQ" != 0 ] && [ "$MODE" = noirq ] && fail "QOS_MODE=noirq needs run.sh --irq off"

# The kcsmux nodes: row name, device, policy keys (one per line in the
# config). Nodes 1 and 2 are the pair's; ipmi12 is the monitor without its
# rate limit. use_irq is explicit wherever it matters in the irq boot.
NODES="
interactive	ipmi1	policy = interactive
monitor	ipmi2	policy = monitor
spin	ipmi3	max_busy_us = unlimited;poll_us = 100;backoff = fixed;use_irq = no
b2000-p100	ipmi4	max_busy_us = 2000;poll_us = 100;backoff = fixed;use_irq = no
b500-p100	ipmi5	max_busy_us = 500;poll_us = 100;backoff = fixed;use_irq = no
b100-p100	ipmi6	max_busy_us = 100;poll_us = 100;backoff = fixed;use_irq = no
b0-p50	ipmi7	max_busy_us = 0;poll_us = 50;backoff = fixed;use_irq = no
b0-p100	ipmi8	max_busy_us = 0;poll_us = 100;backoff = fixed;use_irq = no
b0-p200	ipmi9	max_busy_us = 0;poll_us = 200;backoff = fixed;use_irq = no
exp50-1000	ipmi10	max_busy_us = 0;poll_us = 50;poll_max_us = 1000;backoff = exp;use_irq = no
bulk	ipmi11	policy = bulk;use_irq = no
monitor-nr	ipmi12	policy = monitor;rate = unlimited;use_irq = no
b100-irq	ipmi13	max_busy_us = 100;poll_us = 100;poll_max_us = 10000;backoff = exp;use_irq = yes
b0-irq	ipmi14	max_busy_us = 0;poll_us = 10000;poll_max_us = 10000;backoff = fixed;use_irq = yes
exp50-1000-irq	ipmi15	max_busy_us = 0;poll_us = 50;poll_max_us = 1000;backoff = exp;use_irq = yes
monitor-nr-irq	ipmi16	policy = monitor;rate = unlimited;use_irq = yes
bulk-irq	ipmi17	policy = bulk;use_irq = yes
b0-p500	ipmi18	max_busy_us = 0;poll_us = 500;backoff = fixed;use_irq = no
b0-p1000	ipmi19	max_busy_us = 0;poll_us = 1000;backoff = fixed;use_irq = no
adaptive	ipmi20	backoff = adaptive;max_busy_us = 0;poll_us = 100;poll_max_us = 1000;use_irq = no
adaptive-t2000	ipmi21	backoff = adaptive;latency_target_us = 2000;max_busy_us = 0;poll_us = 100;poll_max_us = 1000;use_irq = no
adaptive-b1	ipmi22	backoff = adaptive;cpu_budget = 1%;max_busy_us = 0;poll_us = 100;poll_max_us = 2000;use_irq = no
adaptive-irq	ipmi23	backoff = adaptive;max_busy_us = 0;poll_us = 100;poll_max_us = 1000;use_irq = yes
monitor-ad-nr	ipmi24	policy = monitor;backoff = adaptive;rate = unlimited;use_irq = no
monitor-ad-nr-irq	ipmi25	policy = monitor;backoff = adaptive;rate = unlimited;use_irq = yes
adaptive-p300	ipmi26	backoff = adaptive;max_busy_us = 0;poll_us = 300;poll_max_us = 1000;use_irq = no
adaptive-p500	ipmi27	backoff = adaptive;max_busy_us = 0;poll_us = 500;poll_max_us = 1000;use_irq = no
"
LASTNODE=ipmi27
node_of() { echo "$NODES" | awk -F'\t' -v r="$1" '$1 == r { print $2 }'; }

# kstat: idle_us ctxt intr. Idle (with iowait) is the tick_sched account of
# /proc/timer_list in ns, exact at every idle exit (as in kmod-bench.sh).
kstat() {
	awk '/^ *\.(idle|iowait)_sleeptime/ {
			for (f = 2; f <= NF; f++) if ($f ~ /^[0-9]+$/) { i += $f; break }
		}
		/^ctxt / { c = $2 } /^intr / { n = $2 }
		END { printf "%d %s %s", i / 1000, c, n }' /proc/timer_list /proc/stat
}
# pidq PID: a kcsmux-utime query for the CPU of PID, or one that reads 0.
pidq() { if [ -n "$1" ]; then echo "--cpu-pid $1"; else echo "--cpu-of no-such-thread"; fi; }
# clocks: now stat poller daemon load (us), one sample.
clocks() {
	# shellcheck disable=SC2046
	kcsmux-utime --now --stat --cpu-of "$PAT" $(pidq "$dpid") $(pidq "$lpid") \
		2>/dev/null | tr '\n' ' '
}
ktxn() { cat $K/transactions 2>/dev/null || echo 0; }
snap0() { _k=$(kstat); _t=$(ktxn); echo "$_t $(clocks)$_k"; }
snap1() { _c=$(clocks); _t=$(ktxn); echo "$_t $_c$(kstat)"; }

load_on() {
	sh -c 'while :; do :; done' &
	lpid=$!
	sleep 0.2
}
load_off() {
	[ -n "$lpid" ] && kill "$lpid" && wait "$lpid" 2>/dev/null
	lpid=""
}

# workload N DEVNUM: N x (ipmitool sdr; ipmitool sel list); the last
# iteration's output stays in /tmp/sdr.out and /tmp/sel.out.
# shellcheck disable=SC2016 # expanded by the sh -c that runs it
WORK='i=0
while [ $i -lt "$1" ]; do
	ipmitool -I open -d "$2" sdr >/tmp/sdr.out 2>/tmp/sdr.err || exit 1
	ipmitool -I open -d "$2" sel list >/tmp/sel.out 2>/tmp/sel.err || exit 2
	i=$((i + 1))
done'

# measure TABLE ROW DEVNUM ITER: one measured run of the workload.
measure() {
	_tab=$1 _row=$2 _dev=$3 _it=$4
	_s0=$(snap0)
	kcsmux-utime -o /tmp/ut -- sh -c "$WORK" work "$_it" "$_dev"
	_rc=$?
	_s1=$(snap1)
	# shellcheck disable=SC2086
	set -- $_s0 $_s1
	# 1 txn 2 now 3 stat 4 poller 5 daemon 6 load 7 idle 8 ctxt 9 intr; +9
	_cl=$(sed -n 's/.* user_us=\([0-9]*\) sys_us=\([0-9]*\).*/\1 \2/p' /tmp/ut)
	_sdr=$(grep -vc IANA /tmp/sdr.out)
	_sel=$(grep -c '|' /tmp/sel.out)
	# the first run's output is the reference for every later one
	[ -f /tmp/ref.sdr ] || { cp /tmp/sdr.out /tmp/ref.sdr; cp /tmp/sel.out /tmp/ref.sel; }
	_same=0
	cmp -s /tmp/sdr.out /tmp/ref.sdr && cmp -s /tmp/sel.out /tmp/ref.sel && _same=1
	_l="table=$_tab row=$_row dev=$_dev iter=$_it rc=$_rc wall_us=$((${11} - $2))"
	_l="$_l idle_us=$((${16} - $7)) statbusy_us=$((${12} - $3)) poller_us=$((${13} - $4))"
	_l="$_l daemon_us=$((${14} - $5)) load_us=$((${15} - $6)) ctxt=$((${17} - $8))"
	_l="$_l intr=$((${18} - $9)) txns=$((${10} - $1)) client_user_us=${_cl% *}"
	_l="$_l client_sys_us=${_cl#* } sdr_lines=$_sdr sel_lines=$_sel same_output=$_same"
	echo "$_l" >>$RES
	echo "    $_l"
	if [ "$_rc" = 0 ] && [ "$_sel" -ge 16 ] && [ "$_sdr" -gt 5 ] && [ $_same = 1 ]; then
		pass "$_tab $_row: $_it x (sdr; sel list)"
	else
		fail "$_tab $_row (exit $_rc, $_sdr sdr lines, $_sel sel lines, same as the first run: $_same)"
		diff /tmp/ref.sdr /tmp/sdr.out | head -n 6 | sed 's/^/    | /'
		cat /tmp/sdr.err /tmp/sel.err | grep -v IANA | head -n 5 | sed 's/^/    | /'
	fi
}

# row PREFIX KEY DEVNUM LOADEDLIST: the unloaded run of row PREFIX-KEY, then
# the loaded one if KEY is in LOADEDLIST.
row() {
	measure idle "$1-$2" "$3" "$IT"
	case " $4 " in
	*" $2 "*)
		load_on
		measure load "$1-$2" "$3" "$LIT"
		load_off
		;;
	esac
}

kipmid_threads() { grep -H . /proc/[0-9]*/comm 2>/dev/null | grep -q kipmi; }
devnum() { echo "${1#/dev/ipmi}"; }

stock_rows() {	# WHICH (rows of $STOCK to run now)
	PAT='kipmi*'
	for r in $1; do
		case " $STOCK " in *" $r "*) ;; *) continue ;; esac
		case $r in
		default | default-ctl | busy*)
			if [ -z "$sdev" ]; then
				sdev=$(load_stock "$KCS1_PORT")
				check "stock ipmi_si on $KCS1_PORT ($sdev), kipmid" kipmid_threads
			fi
			b=0
			case $r in busy*) b=${r#busy} ;; esac
			echo "$b" >$PAR/kipmid_max_busy_us
			check "kipmid_max_busy_us=$b" grep -qx "$b" $PAR/kipmid_max_busy_us
			;;
		nokipmid)
			[ -n "$sdev" ] && rmmod ipmi_si
			sdev=$(load_stock "$KCS1_PORT" force_kipmid=0)
			check "stock ipmi_si, force_kipmid=0 ($sdev)" test -c "$sdev"
			kipmid_threads && fail "kipmid runs with force_kipmid=0"
			;;
		irq)
			[ -n "$sdev" ] && rmmod ipmi_si
			sdev=$(load_stock_irq "$KCS1_PORT" "$KCS1_IRQ")
			check "stock ipmi_si with irq $KCS1_IRQ ($sdev)" \
				grep -q "^ *$KCS1_IRQ:.*ipmi_si" /proc/interrupts
			kipmid_threads && fail "kipmid runs although there is an IRQ"
			;;
		esac
		say "stock $r ($sdev)"
		row stock "$r" "$(devnum "$sdev")" "$STOCKL"
		case $r in nokipmid | irq) rmmod ipmi_si; sdev="" ;; esac
	done
	[ -n "$sdev" ] && { echo 0 >$PAR/kipmid_max_busy_us; rmmod ipmi_si; }
	sdev=""
}

# dump TAG: the daemon's per-node table into $DLOG, between markers.
dump() {
	echo "@@ $1 now_us=$(kcsmux-utime --now)" >>$DLOG
	kill -USR1 "$dpid"
	sleep 0.3
	echo "@@ end $1" >>$DLOG
}
# nodeline TAG NODE: that node's line of the table dumped as TAG.
nodeline() {
	awk -v t="@@ $1 " -v n="$2" 'index($0, t) == 1 { on = 1; next }
		/^@@ end/ { on = 0 } on && $1 == n { print; exit }' $DLOG
}
tagtime() { sed -n "s/^@@ $1 now_us=//p" $DLOG; }

start_daemon() {
	check "insmod kcsraw" load_kcsraw ports="$KCS1_PORT" irqs="$KCS1_IRQ"
	check "modprobe cuse" modprobe cuse
	mkdir -p /etc/kcsmux
	{
		printf '[global]\nbackend = kcsraw\ndevice = /dev/kcsraw0\n'
		echo "$NODES" | awk -F'\t' 'NF == 3 {
			printf "\n; row %s\n[node %s]\n", $1, $2
			n = split($3, k, ";")
			for (i = 1; i <= n; i++) print k[i]
		}'
	} >/etc/kcsmux/kcsmux.conf
	cp /etc/kcsmux/kcsmux.conf /out/kcsmux.conf
	check "kcsmux.conf is valid" kcsmuxd -n
	kcsmuxd -f 2>>$DLOG &
	dpid=$!
	for _i in $(seq 50); do [ -c /dev/$LASTNODE ] && break; sleep 0.1; done
	check "kcsmuxd nodes exist" test -c /dev/$LASTNODE
	sleep 0.3
	PAT='kcsraw*'
}
stop_daemon() {
	dump final
	kill "$dpid"
	wait "$dpid"
	dpid=""
	for a in transactions errors hosed timeouts sleeps timer_wakeups irq_wakeups irqs; do
		printf '%s=%s ' "$a" "$(cat $K/$a)"
	done >/out/kcsraw-counters.txt
	check "rmmod kcsraw" rmmod kcsraw
}

# ---- the pair --------------------------------------------------------------
SENSORS="01 02 03 10 11 12 20 21"
mon_loop() {	# DEV: Get Sensor Reading round the sensors until /tmp/stop
	while [ ! -e /tmp/stop ]; do
		for s in $SENSORS; do
			[ -e /tmp/stop ] && break
			kcsmux-ipmi-probe -d "$1" -n 10 -r "04 2d $s" -k --allow-errors
		done
	done >>/tmp/mon.k 2>&1
}
pair_int() {	# TAG: the interactive probe; one pair= line
	kcsmux-ipmi-probe -d /dev/ipmi1 --ipmitool -w 5 -i "$GAP" -r 06,01 \
		-n "$PN" -k >/tmp/int.k 2>&1
	_rc=$?
	_l="pair=$1 rc=$_rc $(grep '^probe:' /tmp/int.k | head -n 1)"
	echo "$_l" >>$RES
	echo "    $_l"
	if [ $_rc = 0 ]; then pass "interactive probe, $1"; else fail "interactive probe, $1"; fi
}
# pair_with TAG MONDEV MONNODE
pair_with() {
	rm -f /tmp/stop
	: >/tmp/mon.k
	mon_loop "$2" &
	_mp=$!
	sleep 2	# the daemon's CPU estimate has a 1 s time constant
	_p0=$(kcsmux-utime --cpu-of 'kcsraw*' 2>/dev/null)
	dump "$1-start"
	pair_int "$1"
	dump "$1-stop"
	_p1=$(kcsmux-utime --cpu-of 'kcsraw*' 2>/dev/null)
	touch /tmp/stop
	wait $_mp
	_a=$(nodeline "$1-start" "$3") _b=$(nodeline "$1-stop" "$3")
	_ia=$(nodeline "$1-start" ipmi1) _ib=$(nodeline "$1-stop" ipmi1)
	_t0=$(tagtime "$1-start") _t1=$(tagtime "$1-stop")
	# columns: node policy cli reqs done err deny busy p50 p99 wait99
	#          cpu_us/r spin_us/r cpu_ppm slp/r thr ...
	_l=$(echo "$_a
$_b
$_ia
$_ib" | awk -v tag="$1" -v win=$((_t1 - _t0)) -v ps=$((_p1 - _p0)) '
		{ done[NR] = $5; cpu[NR] = $5 * $12; ppm[NR] = $14; thr[NR] = $16
		  err[NR] = $6; p50[NR] = $9; p99[NR] = $10 }
		END { printf "mon=%s window_us=%d done=%d errors=%d cpu_us=%.0f", tag, win,
			done[2] - done[1], err[2] - err[1], cpu[2] - cpu[1]
		  printf " cpu_ppm_window=%.0f cpu_ppm_end=%s throttled=%d", (cpu[2] - cpu[1]) * 1e6 / win,
			ppm[2], thr[2] - thr[1]
		  printf " mon_p50_us=%s mon_p99_us=%s", p50[2], p99[2]
		  printf " int_done=%d int_cpu_us=%.0f poller_sched_us=%d", done[4] - done[3],
			cpu[4] - cpu[3], ps }')
	echo "$_l node=$3" >>$RES
	echo "    $_l node=$3"
	grep -c 'err=0 ' /tmp/mon.k | sed 's/^/    monitor batches without errors: /'
	grep -q ' err=[1-9]' /tmp/mon.k && fail "monitor requests failed ($1)"
	case $_l in *" done=0 "*) fail "the monitor made no progress ($1)" ;; esac
}

# ---- adaptive convergence --------------------------------------------------
# The BMC's latency changes under a node: run-qos-bench.sh gives the delay
# proxy --on rules that switch its model when the guest sends OEM 30 05
# (fixed 400 us), 30 06 (fixed 2500 us) or 30 07 (back to seed). One node
# at a time (adaptive, then fixed 100 us polls for comparison) runs
# QOS_ADAPT_BATCHES batches of QOS_ADAPT_B Get Sensor Reading requests in
# each phase fast -> slow -> fast. Per batch: the client's latency (probe -k)
# and kcsraw's sleeps (the interface counter: nothing else runs meanwhile).
# Lines adapt=ROW phase=P batch=I t_us=... sleeps=... probe keys.
AN=${QOS_ADAPT_BATCHES:-15}
AB=${QOS_ADAPT_B:-4}
model() {	# NODE TRIGGER: switch the proxy's model (answered 0xC1 or so)
	kcsmux-ipmi-probe -d "${1#ipmi}" -n 1 -r "$2" --allow-errors >/dev/null 2>&1
	true
}
adapt_phase() {	# ROW NODE PHASE TRIGGER
	model "$2" "$4"
	_t0=$(kcsmux-utime --now)
	_i=1
	while [ $_i -le "$AN" ]; do
		_s0=$(cat $K/sleeps)
		_l=$(kcsmux-ipmi-probe -d "${2#ipmi}" -n "$AB" -r "04 2d 01" -k \
			--allow-errors 2>/dev/null | grep '^probe:')
		_s1=$(cat $K/sleeps)
		echo "adapt=$1 phase=$3 batch=$_i t_us=$(($(kcsmux-utime --now) - _t0)) sleeps=$((_s1 - _s0)) ${_l#probe: }" >>$RES
		_i=$((_i + 1))
	done
}
adapt_run() {	# ROW
	_n=$(node_of "$1")
	[ -n "$_n" ] || { fail "no node for row $1"; return; }
	say "adaptive convergence: $1 (/dev/$_n), fast -> slow -> fast"
	adapt_phase "$1" "$_n" fast1 "30 05"
	adapt_phase "$1" "$_n" slow "30 06"
	adapt_phase "$1" "$_n" fast2 "30 05"
	grep "^adapt=$1 " $RES | awk '{ for (i = 1; i <= NF; i++) {
		split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "    %-6s batch %2d: p50 %5s us, %5.1f sleeps/req\n",
			v["phase"], v["batch"], v["p50_us"], v["sleeps"] / v["n"] }'
}

# ---- main --------------------------------------------------------------------
say "environment"
{
	echo "kernel=$(uname -r)"
	echo "nproc=$(nproc)"
	echo "mode=$MODE"
	echo "irq=$KCS1_IRQ"
	echo "delay=$KCSMUX_DELAY"
	echo "iter=$IT"
	echo "liter=$LIT"
	echo "pair_n=$PN"
	echo "pair_gap_us=$GAP"
	echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "hz_check=$(grep -m1 -o 'jiffies: [0-9]*' /proc/timer_list)"
} | tee /out/env.txt | sed 's/^/    /'

sdev=""
if [ "$MODE" = irq ]; then stock_rows "default irq"; else stock_rows "$STOCK"; fi

say "kcsraw.ko + kcsmuxd"
start_daemon
for r in $KROWS; do
	n=$(node_of "$r")
	[ -n "$n" ] || { fail "no node for row $r"; continue; }
	say "kcsmux $r (/dev/$n)"
	row kcsmux "$r" "${n#ipmi}" "$KROWSL"
done
dump table

say "the pair: interactive on ipmi1 alone, then beside a monitor"
if [ "$PN" -gt 0 ]; then
	dump alone-start
	pair_int alone
	dump alone-stop
	say "monitor preset on ipmi2 (budget 1%, rate 150/s)"
	pair_with with-monitor /dev/ipmi2 ipmi2
	if [ "$MODE" = irq ]; then mnr=ipmi16; else mnr=ipmi12; fi
	say "monitor without its rate limit on $mnr (budget 1%)"
	pair_with with-monitor-norate /dev/$mnr $mnr
	if [ "$MODE" = irq ]; then mad=ipmi25; else mad=ipmi24; fi
	say "adaptive monitor without its rate limit on $mad (budget 1%)"
	pair_with with-monitor-adaptive /dev/$mad $mad
fi
if [ "$MODE" = noirq ] && [ "$AN" -gt 0 ]; then
	for r in ${QOS_ADAPT_ROWS:-adaptive b0-p100}; do adapt_run "$r"; done
	model ipmi1 "30 07"
fi
stop_daemon

say "control: stock kipmid default again"
STOCK="$STOCK default-ctl"
stock_rows default-ctl

dmesg | grep -E 'WARNING:|BUG:|Oops' && fail "kernel warnings in dmesg"
summary
