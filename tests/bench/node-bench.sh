# Per-request overhead of a kcsmux node (CUSE, kcsmuxd) versus the stock
# /dev/ipmiN, in one boot (guest script; the host side is run-node-bench.sh,
# the write-up docs/bench-node.md).
#
# Run with one of:
#   run.sh --bmc sim --second-kcs --irq on --irq2 on \
#          --env BENCH_PHASE=instant tests/bench/node-bench.sh
#   run.sh --bmc extern --delay seed --second-kcs --irq on --irq2 on \
#          --env BENCH_PHASE=real tests/bench/node-bench.sh
# [--env BENCH_ROUNDS=3 BENCH_NIOCTL=20000 BENCH_NREQ=2000 BENCH_NREAL=500
#  BENCH_NCOUNT=300 BENCH_WARM=20]
#
# Stock ipmi_si drives the second KCS ($KCS2_PORT), kcsraw + kcsmuxd the first
# ($KCS1_PORT, irq $KCS1_IRQ), each with its own BMC of the same kind. The
# daemon has two nodes on the one interface: /dev/kcsmux-int (preset
# interactive: spin up to 2000 us, then 50..100 us sleeps, IRQ) and
# /dev/kcsmux-irq (no spin, sleep until the IRQ, 10 ms fallback).
#
# instant (QEMU's built-in BMC answers at once): per round
#   ioctl: GET_MY_ADDRESS x BENCH_NIOCTL on stock and on a node, first with
#     no clock reads (--total-only: the loop's run time, as in the nohz
#     post), then timed per call (p50/p99)
#   req: Get Device ID (SEND + poll + RECEIVE) x BENCH_NREQ on stock (kipmid
#     default), straight on /dev/kcsraw0 (no daemon, interactive policy), on
#     both nodes, and on stock with its IRQ (ipmi_si reloaded via hotmod)
# real (ipmi_sim behind the seed delay model, 200-2000 us): per round Get
#   Device ID x BENCH_NREAL on stock with IRQ, straight on kcsraw with each
#   node's policy, and on both nodes, then GET_MY_ADDRESS on a node, x
#   BENCH_NIOCTL/4 back to back and x 1000 with 1 ms pauses (the round-trip
#   cost in this boot, warm and after idle); at the end a control: stock with IRQ on
#   $KCS1_PORT (kcsraw's interface), the daemon and kcsraw unloaded.
# After the rounds the daemon's per-node table (SIGUSR1: its own latency from
# enqueue to completion) goes to /out/daemon-PHASE.txt.
# Around every measured run: CLOCK_MONOTONIC, idle time (all CPU = wall -
# idle), context switches, the daemon's CPU (schedstat, and user/system
# ticks from /proc/PID/stat) and the pollers' (kcsraw*, kipmi*). One line per
# run goes to /out/results-PHASE.txt.
#
# Then a counting pass (tracing on, so not timed): kprobes on the FUSE
# functions with hist triggers keyed by pid count, per request, the client's
# FUSE round trips (fuse_simple_request), how many of them are poll
# (fuse_file_poll), the daemon's reads and writes of /dev/cuse
# (fuse_dev_do_read/_write) and poll notifications; raw_syscalls:sys_enter
# counts every syscall of the client and of the daemon, by name. Lines go to
# /out/counts-PHASE.txt.
# shellcheck shell=sh
. /guest/lib.sh

PHASE=${BENCH_PHASE:-instant}
ROUNDS=${BENCH_ROUNDS:-3}
NIOCTL=${BENCH_NIOCTL:-20000}
NREQ=${BENCH_NREQ:-2000}
NREAL=${BENCH_NREAL:-500}
NCOUNT=${BENCH_NCOUNT:-300}
NIOCTLR=$((NIOCTL / 4))
WARM=${BENCH_WARM:-20}
RES=/out/results-$PHASE.txt
CNT=/out/counts-$PHASE.txt
T=/sys/kernel/tracing
INT=/dev/kcsmux-int
IRQN=/dev/kcsmux-irq
dpid=""
mkdir -p /out
: >$RES
: >$CNT
case $PHASE in instant | real) ;; *) fail "BENCH_PHASE=$PHASE"; summary; exit ;; esac
[ -n "${KCS2_PORT:-}" ] || { fail "needs run.sh --second-kcs"; summary; exit; }

# kstat: idle_us ctxt intr. Idle (with iowait) is the tick_sched account of
# /proc/timer_list in ns, exact at every idle exit (as in kmod-bench.sh).
kstat() {
	awk '/^ *\.(idle|iowait)_sleeptime/ {
			for (f = 2; f <= NF; f++) if ($f ~ /^[0-9]+$/) { i += $f; break }
		}
		/^ctxt / { c = $2 } /^intr / { n = $2 }
		END { printf "%d %s %s", i / 1000, c, n }' /proc/timer_list /proc/stat
}
# dstat: the daemon's schedstat CPU (us) and utime/stime ticks (0 0 0 when
# there is no daemon).
dstat() {
	if [ -n "$dpid" ] && [ -r /proc/$dpid/stat ]; then
		printf '%s ' "$(kcsmux-utime --cpu-pid "$dpid" 2>/dev/null)"
		sed 's/^.*) //' /proc/$dpid/stat | awk '{ printf "%s %s ", $12, $13 }'
	else
		printf '0 0 0 '
	fi
}
# clocks PATTERN: now_us stat_busy_us poller_us
clocks() {
	kcsmux-utime --now --stat --cpu-of "$1" 2>/dev/null | tr '\n' ' '
}
# snap0/snap1 PATTERN: now stat poller dcpu dutick dstick idle ctxt intr;
# the slow parts run outside the [now0, now1] window.
snap0() { _k=$(kstat); _d=$(dstat); echo "$_d$(clocks "$1")$_k"; }
snap1() { _c=$(clocks "$1"); _d=$(dstat); echo "$_d$_c$(kstat)"; }

# bench ROW KIND N PATTERN TOOL ARGS...: an unmeasured warm-up run of TOOL,
# then one measured run of N (TOOL takes -n).
bench() {
	_row=$1 _kind=$2 _n=$3 _pat=$4
	shift 4
	_w=$WARM
	[ "$_kind" = req ] || _w=200
	"$@" -n "$_w" >/tmp/warm 2>&1 ||
		{ fail "$_row $_kind: warm-up"; sed 's/^/    | /' /tmp/warm | head -n 5; }
	_s0=$(snap0 "$_pat")
	"$@" -n "$_n" >/tmp/res 2>/tmp/err
	_rc=$?
	_s1=$(snap1 "$_pat")
	# shellcheck disable=SC2086
	set -- $_s0 $_s1
	# 1 dcpu 2 dut 3 dst 4 now 5 stat 6 poller 7 idle 8 ctxt 9 intr; +9
	_line="row=$_row kind=$_kind round=$R rc=$_rc wall_us=$((${13} - $4))"
	_line="$_line idle_us=$((${16} - $7)) statbusy_us=$((${14} - $5))"
	_line="$_line poller_us=$((${15} - $6)) daemon_us=$((${10} - $1))"
	_line="$_line daemon_utick=$((${11} - $2)) daemon_stick=$((${12} - $3))"
	_line="$_line ctxt=$((${17} - $8)) intr=$((${18} - $9))"
	_line="$_line $(grep -E '^k?probe:' /tmp/res | head -n 1)"
	echo "$_line" >>$RES
	echo "    $_line"
	if [ "$_rc" = 0 ] && grep -q ' err=0 ' /tmp/res; then
		pass "$_row $_kind: $_n"
	else
		fail "$_row $_kind (exit $_rc)"
		sed 's/^/    | /' /tmp/err | head -n 5
	fi
}

kipmid_threads() { grep -H . /proc/[0-9]*/comm 2>/dev/null | grep -q kipmi; }

start_daemon() {
	check "insmod kcsraw" load_kcsraw ports="$KCS1_PORT" irqs="$KCS1_IRQ"
	check "kcsraw has irq $KCS1_IRQ" grep -qx "$KCS1_IRQ" /sys/class/misc/kcsraw0/irq
	check "modprobe cuse" modprobe cuse
	mkdir -p /etc/kcsmux
	cat >/etc/kcsmux/kcsmux.conf <<'CONF'
[global]
backend = kcsraw
device = /dev/kcsraw0

[node kcsmux-int]
policy = interactive

[node kcsmux-irq]
policy = normal
max_busy_us = 0
poll_us = 10000
poll_max_us = 10000
backoff = fixed
use_irq = yes
CONF
	kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
	dpid=$!
	for _i in $(seq 50); do [ -c $IRQN ] && [ -c $INT ] && break; sleep 0.1; done
	check "kcsmuxd nodes exist" test -c $INT -a -c $IRQN
	sleep 0.3	# init_done (owner, mode) runs just after the node appears
}
# daemon_table: the per-node table kcsmuxd logs on SIGUSR1
daemon_table() {
	_l=$(wc -l </tmp/kcsmuxd.log)
	kill -USR1 "$dpid"
	sleep 0.5
	tail -n +$((_l + 1)) /tmp/kcsmuxd.log | tee /out/daemon-$PHASE.txt | sed 's/^/    /'
}
stop_daemon() {
	kill "$dpid"
	wait "$dpid" 2>/dev/null
	dpid=""
	check "rmmod kcsraw" rmmod kcsraw
}

# Direct kcsraw policies equal to the nodes' (kcsmux-kcsraw-probe).
KINT="kcsmux-kcsraw-probe -d /dev/kcsraw0 -b 2000 -p 50 -P 100 -e -i"
KIRQ="kcsmux-kcsraw-probe -d /dev/kcsraw0 -b 0 -p 10000 -P 10000 -i"

# ---- counting pass --------------------------------------------------------
KPROBES="nb_fsr:fuse_simple_request nb_poll:fuse_file_poll nb_ioctl:fuse_do_ioctl
nb_rd:fuse_dev_do_read nb_wr:fuse_dev_do_write nb_ntf:fuse_notify_poll_wakeup"
SYSHIST='hist:keys=common_pid,id.syscall:size=4096'
trace_on() {
	grep -q " $T tracefs " /proc/mounts || mount -t tracefs none $T || return 1
	for _p in $KPROBES; do
		echo "p:${_p%%:*} ${_p#*:}" >>$T/kprobe_events || return 1
	done
}
trace_arm() {
	for _p in $KPROBES; do
		echo 'hist:keys=common_pid' >$T/events/kprobes/${_p%%:*}/trigger || return 1
	done
	echo "$SYSHIST" >$T/events/raw_syscalls/sys_enter/trigger
}
trace_disarm() {
	for _p in $KPROBES; do
		echo '!hist:keys=common_pid' >$T/events/kprobes/${_p%%:*}/trigger
	done
	echo "!$SYSHIST" >$T/events/raw_syscalls/sys_enter/trigger
}
trace_off() { echo >$T/kprobe_events; }
# hits EVENT PID: hit count of PID in a kprobe's hist (0 if absent)
hits() {
	awk -v p="$2" '/hitcount:/ { s = $0; sub(/^.*common_pid: */, "", s)
			sub(/[^0-9].*$/, "", s); if (s == p) n += $NF }
		END { print n + 0 }' $T/events/kprobes/$1/hist
}
# sysc PID N: "total by" per request: the syscalls of PID, by name
sysc() {
	awk -v p="$1" -v n="$2" '/hitcount:/ { s = $0; sub(/^.*common_pid: */, "", s)
			sub(/[^0-9].*$/, "", s); if (s != p) next
			c = $0; sub(/^.*id: *sys_/, "", c); sub(/ .*$/, "", c)
			h[c] += $NF; t += $NF }
		END { o = ""; for (c in h) if (h[c] / n >= 0.05)
				o = o (o == "" ? "" : ",") c ":" sprintf("%.2f", h[c] / n)
			printf "%.2f %s", t / n, (o == "" ? "-" : o) }' \
		$T/events/raw_syscalls/sys_enter/hist
}
# count ROW KIND TOOL ARGS...: one run of NCOUNT with everything counted.
count() {
	_row=$1 _kind=$2
	shift 2
	"$@" -n 5 >/dev/null 2>&1
	trace_arm || { fail "$_row: tracing triggers"; return; }
	_c0=$(awk '/^ctxt /{print $2}' /proc/stat)
	"$@" -n "$NCOUNT" >/tmp/cres 2>&1 &
	_cp=$!
	wait $_cp
	_rc=$?
	_c1=$(awk '/^ctxt /{print $2}' /proc/stat)
	_n=$NCOUNT
	_l="row=$_row kind=$_kind n=$_n rc=$_rc"
	for _e in nb_fsr nb_poll nb_ioctl; do
		_l="$_l $_e=$(hits $_e $_cp)"
	done
	for _e in nb_rd nb_wr nb_ntf; do
		_l="$_l $_e=$(hits $_e "${dpid:-0}")"
	done
	# shellcheck disable=SC2046
	set -- $(sysc $_cp $_n)
	_l="$_l client_sys=$1 client_by=$2"
	# shellcheck disable=SC2046
	set -- $(sysc "${dpid:-0}" $_n)
	_l="$_l daemon_sys=$1 daemon_by=$2 ctxt=$((_c1 - _c0))"
	trace_disarm
	echo "$_l" >>$CNT
	echo "    $_l"
	if [ "$_rc" = 0 ]; then pass "count $_row $_kind"; else fail "count $_row $_kind"; fi
}

say "environment ($PHASE)"
{
	echo "kernel=$(uname -r)"
	echo "nproc=$(nproc)"
	echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "bmc=$KCSMUX_BMC"
	echo "delay=$KCSMUX_DELAY"
	echo "rounds=$ROUNDS"
	echo "n_ioctl=$NIOCTL"
	echo "n_req=$NREQ"
	echo "n_real=$NREAL"
	echo "n_count=$NCOUNT"
	echo "warmup=$WARM"
	echo "kcs1=$KCS1_PORT irq=$KCS1_IRQ kcs2=$KCS2_PORT irq2=$KCS2_IRQ"
	echo "cmdline=$(cat /proc/cmdline)"
} | tee /out/env-$PHASE.txt | sed 's/^/    /'

if [ "$PHASE" = instant ]; then
	say "TCG slowdown: the same CPU-bound loops, and process wake-up round trips, as on the host"
	kcsmux-spinloop -n 20000000 -s 100000 | tee /out/spinloop.txt | sed 's/^/    /'
	if command -v node-pingpong >/dev/null; then
		node-pingpong 20000 | tee /out/pingpong.txt | sed 's/^/    /'
	fi

	stock=$(load_stock "$KCS2_PORT")
	check "stock ipmi_si on $KCS2_PORT, polled: $stock" test -c "$stock"
	check "kipmid runs" kipmid_threads
	start_daemon

	# Is there a per-connection request counter? fusectl has one directory
	# per FUSE connection (waiting, abort, max_background,
	# congestion_threshold): "waiting" is a gauge of requests in flight.
	say "FUSE control filesystem with two CUSE nodes open for business"
	{
		grep -q ' /sys/fs/fuse/connections fusectl ' /proc/mounts ||
			mount -t fusectl none /sys/fs/fuse/connections 2>/dev/null
		if grep -q ' /sys/fs/fuse/connections fusectl ' /proc/mounts; then
			echo "fusectl_mounted=1"
		else
			echo "fusectl_mounted=0"
		fi
		# shellcheck disable=SC2012
		echo "fusectl_connections=$(ls /sys/fs/fuse/connections | wc -l)"
		for _f in /sys/fs/fuse/connections/*/*; do
			[ -f "$_f" ] && echo "fusectl ${_f#/sys/fs/fuse/connections/}=$(cat "$_f" 2>/dev/null)"
		done
	} | tee /out/fusectl.txt | sed 's/^/    /'

	R=1
	while [ "$R" -le "$ROUNDS" ]; do
		say "round $R/$ROUNDS: GET_MY_ADDRESS x $NIOCTL"
		P=kcsmux-ipmi-probe
		bench stock ioctl-total "$NIOCTL" 'kipmi*' $P -d "$stock" --mode ioctl --total-only -k
		bench node ioctl-total "$NIOCTL" 'kcsraw*' $P -d $INT --mode ioctl --total-only -k
		bench stock ioctl "$NIOCTL" 'kipmi*' $P -d "$stock" --mode ioctl -k
		bench node ioctl "$NIOCTL" 'kcsraw*' $P -d $INT --mode ioctl -k

		say "round $R/$ROUNDS: Get Device ID x $NREQ against the instant BMC"
		bench stock req "$NREQ" 'kipmi*' $P -d "$stock" -k
		# shellcheck disable=SC2086
		bench kcsraw-int req "$NREQ" 'kcsraw*' $KINT
		bench node-int req "$NREQ" 'kcsraw*' $P -d $INT -k
		bench node-irq req "$NREQ" 'kcsraw*' $P -d $IRQN -k
		check "rmmod ipmi_si" rmmod ipmi_si
		stock=$(load_stock_irq "$KCS2_PORT" "$KCS2_IRQ")
		check "stock with irq $KCS2_IRQ: $stock" test -c "$stock"
		kipmid_threads && fail "kipmid runs although there is an IRQ"
		bench stock-irq req "$NREQ" 'kipmi*' $P -d "$stock" -k
		check "rmmod ipmi_si" rmmod ipmi_si
		stock=$(load_stock "$KCS2_PORT")
		check "stock polled again: $stock" test -c "$stock"
		R=$((R + 1))
	done

	say "the daemon's view (all rounds, warm-ups included)"
	daemon_table
	say "counting pass (kprobes + syscall histograms; not timed)"
	R=0
	if trace_on; then
		P=kcsmux-ipmi-probe
		count stock ioctl $P -d "$stock" --mode ioctl --total-only -k
		count node ioctl $P -d $INT --mode ioctl --total-only -k
		count stock req $P -d "$stock" -k
		# shellcheck disable=SC2086
		count kcsraw-int req $KINT
		count node-int req $P -d $INT -k
		count node-irq req $P -d $IRQN -k
		trace_off
	else
		fail "tracefs/kprobes unavailable: no counting pass"
	fi
	stop_daemon
else
	stock=$(load_stock_irq "$KCS2_PORT" "$KCS2_IRQ")
	check "stock ipmi_si on $KCS2_PORT with irq $KCS2_IRQ: $stock" test -c "$stock"
	kipmid_threads && fail "kipmid runs although there is an IRQ"
	check "ipmi_si took irq $KCS2_IRQ" grep -q "^ *$KCS2_IRQ:.*ipmi_si" /proc/interrupts
	start_daemon
	P=kcsmux-ipmi-probe
	R=1
	while [ "$R" -le "$ROUNDS" ]; do
		say "round $R/$ROUNDS: Get Device ID x $NREAL against the seed BMC"
		bench stock-irq req "$NREAL" 'kipmi*' $P -d "$stock" -k
		# shellcheck disable=SC2086
		{
			bench kcsraw-int req "$NREAL" 'kcsraw*' $KINT
			bench kcsraw-irq req "$NREAL" 'kcsraw*' $KIRQ
		}
		bench node-int req "$NREAL" 'kcsraw*' $P -d $INT -k
		bench node-irq req "$NREAL" 'kcsraw*' $P -d $IRQN -k
		# the cost of one FUSE round trip in this boot (BMC not involved),
		# back to back and after 1 ms of idle, as between requests here
		bench node ioctl "$NIOCTLR" 'kcsraw*' $P -d $INT --mode ioctl -k
		bench node ioctl-idle 1000 'kcsraw*' $P -d $INT --mode ioctl -i 1000 -k
		R=$((R + 1))
	done
	for a in transactions errors hosed irqs irq_wakeups; do
		printf '    %s=%s' "$a" "$(cat /sys/class/misc/kcsraw0/$a)"
	done
	echo

	say "the daemon's view (all rounds, warm-ups included)"
	daemon_table
	say "counting pass (kprobes + syscall histograms; not timed)"
	R=0
	if trace_on; then
		count stock-irq req $P -d "$stock" -k
		count node-int req $P -d $INT -k
		count node-irq req $P -d $IRQN -k
		trace_off
	else
		fail "tracefs/kprobes unavailable: no counting pass"
	fi
	stop_daemon
	check "rmmod ipmi_si" rmmod ipmi_si

	say "control: stock with irq $KCS1_IRQ on $KCS1_PORT (kcsraw's interface)"
	stock=$(load_stock_irq "$KCS1_PORT" "$KCS1_IRQ")
	check "stock on $KCS1_PORT with irq: $stock" test -c "$stock"
	R=1
	while [ "$R" -le "$ROUNDS" ]; do
		bench stock-irq-ca2 req "$NREAL" 'kipmi*' $P -d "$stock" -k
		R=$((R + 1))
	done
	check "rmmod ipmi_si" rmmod ipmi_si
fi

echo "--- kcsmuxd log"
tail -n 20 /tmp/kcsmuxd.log
dmesg | grep -E 'WARNING:|BUG:|Oops' && fail "kernel warnings in dmesg"
summary
