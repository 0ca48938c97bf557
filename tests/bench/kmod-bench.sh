# kcsraw.ko versus the stock ipmi_si poller, in one boot, against the same
# delayed BMC model (guest script; the host side is run-kmod-bench.sh, the
# write-up docs/bench-kmod.md).
#
# Run with: run.sh --bmc extern --delay seed --second-kcs --irq on --irq2 off
#           [--env BENCH_N=500 --env BENCH_NSDR=200 --env BENCH_ROUNDS=3
#            --env BENCH_WARM=10] tests/bench/kmod-bench.sh
#
# Each KCS has its own ipmi_sim behind its own delay proxy (same model, same
# seed). BENCH_ROUNDS rounds, each with these rows in this order:
#   stock on $KCS2_PORT (no IRQ): kipmid default, kipmid_max_busy_us=100,
#     then ipmi_si reloaded with force_kipmid=0
#   kcsraw on $KCS1_PORT (IRQ $KCS1_IRQ): spin, busy 0 + fixed 100 us,
#     busy 0 + exp 50..1000 us, busy 500 + fixed 100 us, IRQ, module default
#   stock on $KCS1_PORT: with the IRQ (added through hotmod), then kipmid
#     default again (a control for the interface)
# For each row and request (Get Device ID; Get SDR of record 0, whole
# record): a short unmeasured warm-up run, then one measured client run.
# Around the measured run: CLOCK_MONOTONIC, idle time, context switches and
# interrupts, /proc/stat busy, and the schedstat CPU of the poller threads
# (kipmi*, kcsraw*); for kcsraw also the poller's wake-ups and transactions
# (sysfs wakeups, transactions). One line per measurement goes to
# /out/results.txt; the host formats them (tests/bench/kmod-bench-report.py).
#
# With BENCH_KSTART=1 (run-kmod-bench.sh --kstart) each round is only the
# kcsraw rows, each run with the module parameter submit_start=1 (row id as
# above) and =0 (row id + "-nostart"), in one boot: what starting a request
# in its submitter saves (tests/bench/kstart-bench-report.py).
. /guest/lib.sh

N=${BENCH_N:-500}
NSDR=${BENCH_NSDR:-200}
ROUNDS=${BENCH_ROUNDS:-3}
WARM=${BENCH_WARM:-10}
KSTART=${BENCH_KSTART:-0}
KSYS=/sys/class/misc/kcsraw0
DEVID="06 01"
SDR="0a 23 00 00 00 00 00 ff"	# Get SDR: reservation 0, record 0, offset 0, all
RES=/out/results.txt
PAR=/sys/module/ipmi_si/parameters
mkdir -p /out
: >$RES

# kstat: idle_us ctxt intr. Idle (with iowait) is the tick_sched account of
# /proc/timer_list in ns, summed over the CPUs: exact at every idle exit,
# unlike the busy fields of /proc/stat, which are sampled at ticks.
kstat() {
	awk '/^ *\.(idle|iowait)_sleeptime/ {
			for (f = 2; f <= NF; f++) if ($f ~ /^[0-9]+$/) { i += $f; break }
		}
		/^ctxt / { c = $2 } /^intr / { n = $2 }
		END { printf "%d %s %s", i / 1000, c, n }' /proc/timer_list /proc/stat
}
# clocks PATTERN: now_us stat_busy_us poller_us (one sample, one process)
clocks() {
	kcsmux-utime --now --stat --cpu-of "$1" 2>/dev/null | tr '\n' ' '
}
# snap0/snap1 PATTERN: now_us stat_busy_us poller_us idle_us ctxt intr. The
# slow awk runs outside the [now0, now1] window; the CPU is busy with this
# script around it, so no idle time is lost.
snap0() { _k=$(kstat); echo "$(clocks "$1")$_k"; }
snap1() { _c=$(clocks "$1"); echo "$_c$(kstat)"; }
# kwake: "wakeups transactions" of kcsraw0 (0 0 without it); taken outside
# the [now0, now1] window
kwake() {
	_w=0 _t=0
	if [ -r $KSYS/wakeups ]; then
		read -r _w <$KSYS/wakeups
		read -r _t <$KSYS/transactions
	fi
	echo "$_w $_t"
}

# bench ROW REQ PATTERN TOOL ARGS...: one measurement (TOOL takes -n, -r).
bench() {
	_row=$1 _req=$2 _pat=$3
	shift 3
	case $_req in
	devid) _n=$N _r=$DEVID ;;
	sdr) _n=$NSDR _r=$SDR ;;
	esac
	"$@" -n "$WARM" -r "$_r" >/tmp/warm 2>&1 ||
		{ fail "$_row $_req: warm-up"; sed 's/^/    /' /tmp/warm; }
	_k0=$(kwake)
	_s0=$(snap0 "$_pat")
	kcsmux-utime -o /tmp/ut -- "$@" -n "$_n" -r "$_r" >/tmp/res 2>/tmp/err
	_rc=$?
	_s1=$(snap1 "$_pat")
	_k1=$(kwake)
	# shellcheck disable=SC2086
	set -- $_s0 $_s1
	_cl=$(sed -n 's/.* user_us=\([0-9]*\) sys_us=\([0-9]*\).*/\1 \2/p' /tmp/ut)
	_line="row=$_row req=$_req round=$R rc=$_rc wall_us=$(($7 - $1)) statbusy_us=$(($8 - $2))"
	_line="$_line poller_us=$(($9 - $3)) idle_us=$((${10} - $4)) ctxt=$((${11} - $5))"
	_line="$_line intr=$((${12} - $6)) client_user_us=${_cl% *} client_sys_us=${_cl#* }"
	_line="$_line wakeups=$((${_k1% *} - ${_k0% *})) xacts=$((${_k1#* } - ${_k0#* }))"
	_line="$_line $(grep -E '^k?probe:' /tmp/res | head -n 1)"
	echo "$_line" >>$RES
	echo "    $_line"
	if [ "$_rc" = 0 ] && grep -q ' err=0 ' /tmp/res; then
		pass "$_row $_req: $_n requests"
	else
		fail "$_row $_req (exit $_rc)"
		sed 's/^/    | /' /tmp/err | head -n 5
	fi
}

say "environment"
{
	echo "kernel=$(uname -r)"
	echo "nproc=$(nproc)"
	echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "delay=$KCSMUX_DELAY"
	echo "n_devid=$N"
	echo "n_sdr=$NSDR"
	echo "warmup=$WARM"
	echo "rounds=$ROUNDS"
	echo "cmdline=$(cat /proc/cmdline)"
} | tee /out/env.txt | sed 's/^/    /'

say "TCG slowdown: the same CPU-bound loop as on the host"
kcsmux-spinloop -n 20000000 -s 100000 | tee /out/spinloop.txt | sed 's/^/    /'

run_rows() {	# ROW PATTERN TOOL ARGS...: both requests
	_rr=$1 _rp=$2
	shift 2
	bench "$_rr" devid "$_rp" "$@"
	bench "$_rr" sdr "$_rp" "$@"
}

# kipmid_threads: the kipmi* threads that exist now (none: empty)
kipmid_threads() {
	grep -H . /proc/[0-9]*/comm 2>/dev/null | grep kipmi
}

round() {
	say "round $R/$ROUNDS: stock ipmi_si on $KCS2_PORT, polled (kipmid)"
	dev=$(load_stock "$KCS2_PORT")
	check "stock driver on $KCS2_PORT: $dev" test -c "$dev"
	check "kipmid runs" kipmid_threads
	run_rows stock-default 'kipmi*' kcsmux-ipmi-probe -d "$dev" -k
	echo 100 >$PAR/kipmid_max_busy_us
	check "kipmid_max_busy_us=100" grep -qx 100 $PAR/kipmid_max_busy_us
	run_rows stock-busy100 'kipmi*' kcsmux-ipmi-probe -d "$dev" -k
	echo 0 >$PAR/kipmid_max_busy_us
	check "rmmod ipmi_si" rmmod ipmi_si

	say "round $R/$ROUNDS: stock ipmi_si on $KCS2_PORT, force_kipmid=0 (timer polling)"
	dev=$(load_stock "$KCS2_PORT" force_kipmid=0)
	check "stock driver, force_kipmid=0: $dev" test -c "$dev"
	kipmid_threads && fail "kipmid runs with force_kipmid=0"
	run_rows stock-nokipmid 'kipmi*' kcsmux-ipmi-probe -d "$dev" -k
	check "rmmod ipmi_si" rmmod ipmi_si

	say "round $R/$ROUNDS: kcsraw on $KCS1_PORT (irq $KCS1_IRQ)"
	check "insmod kcsraw" load_kcsraw ports="$KCS1_PORT" irqs="$KCS1_IRQ"
	check "kcsraw has irq $KCS1_IRQ" grep -qx "$KCS1_IRQ" /sys/class/misc/kcsraw0/irq
	[ "$R" = 1 ] &&
		echo "kcsraw_default=$(cat /sys/class/misc/kcsraw0/policy)" >>/out/env.txt
	K="kcsmux-kcsraw-probe -d /dev/kcsraw0"
	# shellcheck disable=SC2086
	{
		run_rows kcsraw-spin 'kcsraw*' $K -b unlimited
		run_rows kcsraw-b0-p100 'kcsraw*' $K -b 0 -p 100
		run_rows kcsraw-b0-exp50-1000 'kcsraw*' $K -b 0 -p 50 -P 1000 -e
		run_rows kcsraw-b500-p100 'kcsraw*' $K -b 500 -p 100
		run_rows kcsraw-irq 'kcsraw*' $K -b 0 -i -p 100 -P 10000
		run_rows kcsraw-default 'kcsraw*' $K -D
	}
	for a in transactions errors hosed retries timeouts irqs irq_wakeups; do
		printf '    %s=%s' "$a" "$(cat /sys/class/misc/kcsraw0/$a)"
	done
	echo
	check "rmmod kcsraw" rmmod kcsraw

	say "round $R/$ROUNDS: stock ipmi_si on $KCS1_PORT with irq $KCS1_IRQ (hotmod)"
	dev=$(load_stock_irq "$KCS1_PORT" "$KCS1_IRQ")
	check "stock driver with irq: $dev" test -c "$dev"
	kipmid_threads && fail "kipmid runs although there is an IRQ"
	check "ipmi_si took irq $KCS1_IRQ" grep -q "^ *$KCS1_IRQ:.*ipmi_si" /proc/interrupts
	run_rows stock-irq 'kipmi*' kcsmux-ipmi-probe -d "$dev" -k
	check "rmmod ipmi_si" rmmod ipmi_si

	say "round $R/$ROUNDS: control, stock kipmid on $KCS1_PORT (kcsraw's interface)"
	dev=$(load_stock "$KCS1_PORT")
	check "stock driver on $KCS1_PORT polled: $dev" test -c "$dev"
	run_rows stock-default-ca2 'kipmi*' kcsmux-ipmi-probe -d "$dev" -k
	check "rmmod ipmi_si" rmmod ipmi_si
}

# Each kcsraw row with submit_start=1 and =0, in turn.
kstart_round() {
	say "round $R/$ROUNDS: kcsraw on $KCS1_PORT (irq $KCS1_IRQ), submit_start 1 and 0"
	check "insmod kcsraw" load_kcsraw ports="$KCS1_PORT" irqs="$KCS1_IRQ"
	check "kcsraw has irq $KCS1_IRQ" grep -qx "$KCS1_IRQ" $KSYS/irq
	_sp=/sys/module/kcsraw/parameters/submit_start
	check "submit_start is writable" test -w $_sp
	[ "$R" = 1 ] && echo "kcsraw_default=$(cat $KSYS/policy)" >>/out/env.txt
	K="kcsmux-kcsraw-probe -d /dev/kcsraw0"
	# _k*: bench() and run_rows() use _row, _rr and more
	for _kr in "spin:-b unlimited" "b0-p100:-b 0 -p 100" \
		"b0-exp50-1000:-b 0 -p 50 -P 1000 -e" "irq:-b 0 -i -p 100 -P 10000" \
		"default:-D"; do
		for _kon in 1 0; do
			echo $_kon >$_sp
			_kid=kcsraw-${_kr%%:*}
			[ $_kon = 1 ] || _kid=$_kid-nostart
			# shellcheck disable=SC2086
			run_rows "$_kid" 'kcsraw*' $K ${_kr#*:}
		done
	done
	echo 1 >$_sp
	check "requests were started by their submitter" \
		test "$(cat $KSYS/submit_starts)" -gt 0
	check "rmmod kcsraw" rmmod kcsraw
}

R=1
while [ $R -le "$ROUNDS" ]; do
	if [ "$KSTART" = 1 ]; then
		kstart_round
	else
		round
	fi
	R=$((R + 1))
done

dmesg | grep -E 'WARNING:|BUG:|Oops' && fail "kernel warnings in dmesg"
summary
