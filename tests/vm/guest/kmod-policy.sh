# kcsraw.ko against ipmi_sim behind the delay proxy: the polling policies
# make a visible difference, IRQ or no IRQ, the BMC going silent, and the
# same bytes as the stock driver on the second interface.
# Run with: run.sh --bmc extern --delay fixed:2000 --second-kcs
#           [--irq on|off] kmod-policy.sh
. /guest/lib.sh

KCSRAW=kcsmux-kcsraw
SYS=/sys/class/misc/kcsraw0
PAR=/sys/module/kcsraw/parameters
N=20

# field NAME FILE: the value of NAME=... in the summary line of FILE
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$2" | head -n 1; }
# runtime PID: ns the task spent on a CPU (/proc/PID/schedstat)
runtime() { cut -d' ' -f1 "/proc/$1/schedstat"; }
# irq_run OUT DESC: N transactions sleeping on the IRQ (50 ms timer
# fallback): all answered (DESC), every sleep ended by the interrupt (a
# transaction whose answer is there before its first sleep, as on a loaded
# host, does not sleep at all), no latency near the fallback
irq_run() {
	run_to "$1" $KCSRAW -b 0 -i -p 100 -P 50000 -n $N -q raw 06 01
	expect "$2" "n=$N ok=$N bad=0" "$1"
	check "every sleep ($(field sleeps "$1")) ended by the interrupt ($(field irq_wakeups "$1"))" \
		test "$(field irq_wakeups "$1")" -eq "$(field sleeps "$1")" -a "$(field sleeps "$1")" -ge 1
	check "latency well below the 50 ms fallback" \
		test "$(field lat_max_us "$1")" -lt 25000
}

say "stock ipmi_si on $KCS2_PORT, kcsraw on $KCS1_PORT (irq $KCS1_IRQ), BMC delay $KCSMUX_DELAY"
stock=$(load_stock "$KCS2_PORT")
check "stock driver created $stock" test -c "$stock"
check "insmod kcsraw ports=$KCS1_PORT irqs=$KCS1_IRQ" \
	load_kcsraw ports="$KCS1_PORT" irqs="$KCS1_IRQ"
dmesg | grep kcsraw | sed 's/^/    dmesg| /'
pid=$(cat $SYS/poller_pid)
check "sysfs irq is $KCS1_IRQ" grep -qx "$KCS1_IRQ" $SYS/irq

say "same bytes as the stock driver (ipmi_sim with the project's SDRs and SEL)"
cmp_req() {
	# shellcheck disable=SC2086
	$KCSRAW raw $2 >/tmp/k.out 2>&1
	kcsmux-ipmi-probe -d "$stock" -n 1 -r "$2" -v --allow-errors >/tmp/p.out 2>&1
	k=$(sed -n 's/^data: *//p' /tmp/k.out | head -n 1)
	p=$(sed -n 's/.* data: *//p' /tmp/p.out | head -n 1)
	echo "    kcsraw: $k"
	echo "    stock:  $p"
	if [ -n "$k" ] && [ "$k" = "$p" ]; then pass "$1"; else fail "$1"; fi
}
cmp_req "Get Device ID" "06 01"
res=$($KCSRAW raw 0a 22 | sed -n 's/^data: 00 \(..\) \(..\)$/\1 \2/p')
sres=$(kcsmux-ipmi-probe -d "$stock" -n 1 -r "0a 22" -v 2>&1 |
	sed -n 's/.* data: 00 \(..\) \(..\)$/\1 \2/p')
echo "    reservation: kcsraw '$res' stock '$sres'"
check "Reserve SDR Repository answered" test -n "$res" -a -n "$sres"
# Get SDR with each side's own reservation, compared from the next-id on.
$KCSRAW raw 0a 23 $res 00 00 00 ff | sed -n 's/^data: *//p' >/tmp/k.sdr
kcsmux-ipmi-probe -d "$stock" -n 1 -r "0a 23 $sres 00 00 00 ff" -v 2>&1 |
	sed -n 's/.* data: *//p' >/tmp/p.sdr
echo "    kcsraw: $(cat /tmp/k.sdr)"
echo "    stock:  $(cat /tmp/p.sdr)"
check "Get SDR 0000: same record" sh -c 'test -s /tmp/k.sdr && cmp -s /tmp/k.sdr /tmp/p.sdr'
cmp_req "Get SEL Entry 0000" "0a 43 00 00 00 00 00 ff"
cmp_req "Get SEL Entry 0000, 8 bytes at offset 4" "0a 43 00 00 00 00 04 08"

say "max_busy_us=0: never spins"
r0=$(runtime "$pid")
run_to /tmp/b0 $KCSRAW -b 0 -p 200 -n $N -q raw 06 01
r1=$(runtime "$pid")
lat=$(field lat_mean_us /tmp/b0)
cpu=$(field cpu_mean_us /tmp/b0)
expect "all ok" "n=$N ok=$N bad=0" /tmp/b0
expect "spin_ns is 0 in every report" 'spin_sum_us=0 ' /tmp/b0
if num "max_busy_us=0: lat_mean_us, cpu_mean_us, schedstat before/after" \
	"$lat" "$cpu" "$r0" "$r1"; then
	sched=$(( (r1 - r0) / 1000 / N ))
	echo "    latency ${lat} us, cost-report cpu ${cpu} us, poller schedstat ${sched} us per transaction"
	check "cost-report cpu < 25% of the latency" test $((cpu * 4)) -lt "$lat"
fi
polls_b0=$(field polls_mean /tmp/b0)
# The poller's work is judged by what the kernel counts, its status reads
# (polls) per transaction, against the spinning policy's in the same boot.
# Its schedstat runtime is printed only: a guest's clock runs on while the
# host takes its vCPU away (TCG has no steal time) and each sleep's two
# context switches cost ~15x native, so on a busy host the sleeping
# policy's runtime approaches the spinning one's (1853 against 2829 us a
# transaction at 2 vCPUs in a fresh-clone run) while it reads the status
# a fraction as often.
check "it slept (timer)" test "$(field timer_wakeups /tmp/b0)" -ge $N

say "max_busy_us=unlimited: spins to the end"
r0=$(runtime "$pid")
run_to /tmp/bu $KCSRAW -b unlimited -n $N -q raw 06 01
r1=$(runtime "$pid")
lat=$(field lat_mean_us /tmp/bu)
spin=$(field spin_mean_us /tmp/bu)
cpu=$(field cpu_mean_us /tmp/bu)
queue=$(field queue_mean_us /tmp/bu)
expect "all ok" "n=$N ok=$N bad=0" /tmp/bu
expect "no sleeps" ' sleeps=0 ' /tmp/bu
# Spinning to the end means the poller stays awake from its first register
# access to the completion (latency less the queue wait). spin_ns alone is
# not that: it leaves out the state machine's own steps (port I/O, each a
# trip to QEMU's device), whose share grows on a loaded host (a fresh-clone
# run at load 15 had spin 5003 of 7698 us while the poller was awake 7611).
if num "max_busy_us=unlimited: lat_mean_us, spin_mean_us, cpu_mean_us, queue_mean_us, schedstat before/after" \
	"$lat" "$spin" "$cpu" "$queue" "$r0" "$r1"; then
	sched=$(( (r1 - r0) / 1000 / N ))
	echo "    latency ${lat} us (queue ${queue}), awake ${cpu} us, spin ${spin} us, poller schedstat ${sched} us per transaction"
	check "it spun" test "$spin" -gt 0
	check "awake >= 90% of latency - queue wait" test $((cpu * 10)) -ge $(((lat - queue) * 9))
	check "poller schedstat CPU >= 70% of the latency" test $((sched * 10)) -ge $((lat * 7))
	polls=$(field polls_mean /tmp/bu)
	num "polls per transaction, max_busy_us=0 and unlimited" "$polls_b0" "$polls" &&
		check "max_busy_us=0 read the status under 1/4 as often as unlimited (${polls_b0} vs ${polls} a transaction)" \
			test $((polls_b0 * 4)) -lt "$polls"
fi

say "busy window 500 us, then sleeps"
ss0=$(cat $SYS/submit_starts)
run_to /tmp/b500 $KCSRAW -b 500 -p 200 -n $N -q raw 06 01
expect "all ok" "n=$N ok=$N bad=0" /tmp/b500
spin=$(field spin_mean_us /tmp/b500)
check "spin per transaction within the window (${spin} us)" \
	test "$spin" -ge 300 -a "$spin" -le 1500
check "a busy-waiting policy is not started by its submitter" \
	test "$(cat $SYS/submit_starts)" = "$ss0"

say "exponential backoff wakes less often than a fixed 100 us poll"
run_to /tmp/bf $KCSRAW -b 0 -p 100 -n $N -q raw 06 01
run_to /tmp/be $KCSRAW -b 0 -p 100 -P 3200 -e -n $N -q raw 06 01
expect "all ok" "n=$N ok=$N bad=0" /tmp/be
check "fewer sleeps: $(field sleeps /tmp/be) < $(field sleeps /tmp/bf)" \
	test "$(field sleeps /tmp/be)" -lt "$(field sleeps /tmp/bf)"

say "first_us: one long sleep through the BMC's 2 ms, then fine polls"
run_to /tmp/bF $KCSRAW -b 0 -p 100 -F 1800 -n $N -q raw 06 01
expect "all ok" "n=$N ok=$N bad=0" /tmp/bF
sF=$(field sleeps /tmp/bF)
sf=$(field sleeps /tmp/bf)
lF=$(field lat_mean_us /tmp/bF)
lf=$(field lat_mean_us /tmp/bf)
# A "100 us" sleep lasts longer under TCG, the more so on a loaded host
# (~250-450 us here): the fixed run gives its real length L = latency x N /
# sleeps. With first_us a transaction sleeps once through 1800 us, then
# about (latency - 1800) / L more: at most one more than that each is
# allowed. Were first_us ignored it would sleep latency / L times (7-10
# here), well above.
num "first_us and fixed 100 us: sleeps and latencies" "$sF" "$sf" "$lF" "$lf" &&
	check "first_us sleeps once through 1800 us, then polls ($sF sleeps for $N transactions; fixed 100 us: $sf sleeps, $lf us a transaction)" \
		awk -v sF="$sF" -v sf="$sf" -v lF="$lF" -v lf="$lf" -v n="$N" 'BEGIN {
			L = lf * n / sf; tail = lF > 1800 ? (lF - 1800) / L : 0
			printf "    real sleep %.0f us; model %.1f sleeps a transaction, measured %.2f\n", L, 1 + tail, sF / n
			exit !(sF < sf && sF <= n * (2 + tail)) }'
# Latency is for the benchmarks, not a test: shown, not asserted.
echo "    mean latency with first_us $(field lat_mean_us /tmp/bF) us, fixed 100 us $(field lat_mean_us /tmp/bf) us"

if [ "$KCS1_IRQ" != 0 ]; then
	say "IRQ: sleeping transactions are woken by the interrupt"
	irq_run /tmp/bi "all ok"
	grep kcsraw /proc/interrupts | sed 's/^/    /'
else
	say "no IRQ: -i falls back to timer polls of poll_max_us"
	run_to /tmp/bi $KCSRAW -b 0 -i -p 100 -P 500 -n $N -q raw 06 01
	expect "all ok" "n=$N ok=$N bad=0" /tmp/bi
	expect "no irq wake-ups" ' irq_wakeups=0' /tmp/bi
	check "timer wake-ups" test "$(field timer_wakeups /tmp/bi)" -ge $N
fi

say "submit_start: a request to an idle interface starts in its submitter"
# A sleeping policy (one first_us sleep through the BMC's 2 ms,
# then 100 us polls). kcsraw counts the poller's wake-ups by cause
# (sysfs wake_kick, wake_timer, wake_irq, wake_other): a kick is a
# submission waking it. With submit_start=1 the submitter writes the
# request and arms the first sleep: no wake-up is a submission's, but
# for a request whose answer came within the submitter's steps (sysfs
# submit_done: its vCPU held up by a busy host; 2 of 20 in a busy run)
# the kick hands the answer to the poller, which alone completes. With 0
# a submission wakes the poller when it sleeps: with a CPU of its own it
# has gone to sleep by then (18-20 of 20 at 2 vCPUs); on one vCPU it
# depends on whether the client ran before the poller's idle sleep (11-20
# of 20): there only the kicks with submit_start=1 are judged.
# ks_run S NAME ARGS...: the run with submit_start=S and the policy ARGS;
# sets wk (the poller's wake-ups), kk (of which kicks), st (requests
# started by their submitter), sd (of those, finished by it), sl (sleeps
# of the transactions), and prints the wake-ups by cause
WAKES="wake_kick wake_timer wake_irq wake_other"
wake_counts() { for _c in wakeups $WAKES; do cat $SYS/$_c; done | tr '\n' ' '; }
ks_run() {
	echo "$1" >$PAR/submit_start
	_n=$2
	shift 2
	_w0=$(wake_counts) _t0=$(cat $SYS/submit_starts) _d0=$(cat $SYS/submit_done)
	run_to /tmp/ks"$_n" $KCSRAW "$@" -n $N -q raw 06 01
	expect "submit_start=$_n: all ok" "n=$N ok=$N bad=0" /tmp/ks"$_n"
	_w1=$(wake_counts)
	st=$(($(cat $SYS/submit_starts) - _t0))
	sd=$(($(cat $SYS/submit_done) - _d0))
	sl=$(field sleeps /tmp/ks"$_n")
	# shellcheck disable=SC2086
	set -- $_w0 $_w1
	wk=$(($6 - $1)) kk=$(($7 - $2))
	echo "    submit_start=$_n: $wk wake-ups for $sl sleeps: kick $kk, timer $(($8 - $3)), irq $(($9 - $4)), other $((${10} - $5)); finished by the submitter $sd"
	# A run finished by the submitter once counted the poller's clock
	# from after the submitter's: CPU below zero (2^64 - x ns).
	check "submit_start=$_n: CPU per request within its latency ($(field cpu_mean_us /tmp/ks"$_n") us, $(field lat_mean_us /tmp/ks"$_n") us)" \
		test "$(field cpu_mean_us /tmp/ks"$_n")" -le "$(field lat_mean_us /tmp/ks"$_n")"
}
ss_def=$(cat $PAR/submit_start)
check "submit_start is off by default" test "$ss_def" = N
ks_run 0 0 -b 0 -p 100 -F 1800
wk0=$wk st0=$st sl0=$sl kk0=$kk
ks_run 1 1 -b 0 -p 100 -F 1800
wk1=$wk st1=$st sl1=$sl kk1=$kk sd1=$sd
check "submit_start=0: no request started by its submitter ($st0)" test "$st0" -eq 0
check "submit_start=1: every request started by its submitter ($st1)" test "$st1" -ge $N
check "submit_start=1: no wake-up was a submission's but to return an answer it got ($kk1 kicks, $sd1 answers)" \
	test "$kk1" -eq "$sd1"
check "submit_start=1: most requests slept through the BMC's processing ($sd1 of $N did not)" \
	test "$sd1" -le $((N / 4))
if [ "$(nproc)" -eq 1 ]; then
	check "submit_start=1: every wake-up ends a sleep ($wk1 wake-ups, $sl1 sleeps)" \
		test "$wk1" -le $((sl1 + 2))
else
	check "submit_start=0: the submissions woke the poller ($kk0 kicks for $N requests)" \
		test "$kk0" -ge $((N / 2))
fi
if [ "$KCS1_IRQ" != 0 ]; then
	# The IRQ policy: the answer's interrupt ends the armed sleep, one
	# sleep a transaction. A late interrupt of the submitter's writes
	# (QEMU's dummy OBF, already drained) handled on the other CPU ended
	# it early before the fix: 1.9 sleeps a transaction at 2 vCPUs.
	ks_run 1 1i -b 0 -i -p 100 -P 50000
	check "submit_start=1, IRQ policy: every request started by its submitter ($st)" \
		test "$st" -ge $N
	check "submit_start=1, IRQ policy: one sleep a transaction, ended by the answer ($sl sleeps, $(field irq_wakeups /tmp/ks1i) by the IRQ, $sd answered in the submitter)" \
		test $((sl + sd)) -le $((N + 2)) -a $(($(field irq_wakeups /tmp/ks1i) + sd)) -ge $N
	check "submit_start=1, IRQ policy: no wake-up was a submission's but to return an answer it got ($kk kicks, $sd answers)" \
		test "$kk" -eq "$sd" -a "$sd" -le $((N / 4))
	if [ "$(nproc)" -eq 1 ]; then
		check "submit_start=1, IRQ policy: every wake-up ends a sleep ($wk wake-ups, $sl sleeps)" \
			test "$wk" -le $((sl + 2))
	fi
fi
echo "$ss_def" >$PAR/submit_start

say "ABI self-test with a slow BMC (cancel in flight)"
run_to /tmp/st $KCSRAW selftest strict
check "kcsmux-kcsraw selftest strict" grep -q '^selftest: ok' /tmp/st
grep -E '^(FAIL|INFO)' /tmp/st

say "a BMC that does not answer in time: error response, next one works"
# run.sh --proxy-args '--hold-on 0x30:0x01 --hold-for 1500' (every variant of
# this test): the OEM request 30 01 makes the proxy hold every BMC answer for
# 1.5 s, so with 1 ms timeouts the BMC is silent for certain. (It used to be
# Get Device ID against the 2 ms BMC: a poller kept off its vCPU for 2 ms by
# a busy host found the answer there and no timeout fired.) QEMU's KCS keeps
# IBF set while the BMC works on a request: that is the IBF timeout.
echo 1 >$PAR/ibf_timeout_ms
echo 1 >$PAR/obf_timeout_ms
echo 1 >$PAR/max_retries
run_to /tmp/hang $KCSRAW -b 0 -p 100 raw 30 01
echo 5000 >$PAR/ibf_timeout_ms
echo 5000 >$PAR/obf_timeout_ms
echo 10 >$PAR/max_retries
expect "error response: cc 0xc3 (timeout)" '^resp: c4 01 c3$' /tmp/hang
expect "flagged hosed, made up by the driver" 'status=0 flags=0x3 ' /tmp/hang
lat=$(sed -n 's/.* latency_ns=\([0-9]*\).*/\1/p' /tmp/hang)
num "the silent request's latency_ns" "$lat" &&
	check "given up before the held answer (1.5 s) came: $((lat / 1000000)) ms" \
		test "$lat" -lt 1500000000
check "sysfs hosed counted" test "$(cat $SYS/hosed)" -ge 1
check "sysfs timeouts counted" test "$(cat $SYS/timeouts)" -ge 2
# lost_probe=1 (the default): the transaction that gave up takes the BMC
# for gone; requests fail at once (cc 0xff, flagged NOBMC) until the probe
# (each second) finds it answering again, after the hold.
check "sysfs bmc: lost after a transaction gave up" grep -q '^lost ' $SYS/bmc
run_to /tmp/fast $KCSRAW raw 06 01
expect "while lost: answered at once, cc 0xff" '^resp: 1c 01 ff$' /tmp/fast
expect "while lost: flagged HOSED|SYNTH|NOBMC" 'status=0 flags=0x7 ' /tmp/fast
# bmc_up WAIT_DS: sysfs says up within WAIT_DS tenths of a second
bmc_up() {
	for _i in $(seq "$1"); do
		grep -q '^up ' $SYS/bmc && return 0
		sleep 0.1
	done
	return 1
}
check "the probe finds the BMC again within 3 s of the hold's end" bmc_up 40
dmesg | grep -E 'kcsraw0: (the BMC|BMC answers)' | sed 's/^/    dmesg| /'
run_to /tmp/after $KCSRAW -n 5 -q raw 06 01
expect "the next transactions work" 'n=5 ok=5 bad=0' /tmp/after

if [ -n "${KCSRAW_HOLD:-}" ]; then
	# run.sh --proxy-args '--hold-on 0x30:0x01 --hold-for 1500': the OEM
	# request 30 01 makes the proxy hold every BMC answer for 1.5 s.
	say "a hung BMC (proxy hold for 1.5 s): error response, then recovery"
	echo 300 >$PAR/ibf_timeout_ms
	echo 300 >$PAR/obf_timeout_ms
	echo 1 >$PAR/max_retries
	run_to /tmp/held $KCSRAW -b 0 -p 100 raw 30 01
	echo 5000 >$PAR/ibf_timeout_ms
	echo 5000 >$PAR/obf_timeout_ms
	echo 10 >$PAR/max_retries
	expect "error response: cc 0xc3 (timeout)" '^resp: c4 01 c3$' /tmp/held
	expect "flagged hosed" 'status=0 flags=0x3 ' /tmp/held
	lat=$(sed -n 's/.* latency_ns=\([0-9]*\).*/\1/p' /tmp/held)
	num "the held request's latency_ns" "$lat" &&
		check "within 1.2 s ($((lat / 1000000)) ms): 2 attempts of 300 ms" \
			test "$lat" -lt 1200000000
	check "the probe finds the BMC again after the hold" bmc_up 40
	run_to /tmp/after2 $KCSRAW -n 5 -q raw 06 01
	expect "after the release the next transactions work" 'n=5 ok=5 bad=0' /tmp/after2
fi

say "totals"
for a in transactions errors hosed cancelled retries timeouts spin_ns cpu_ns sleeps timer_wakeups irq_wakeups irqs latency_sum_ns latency_max_ns poller_runtime_ns; do
	echo "    $a: $(cat $SYS/$a)"
done
check "rmmod kcsraw" rmmod kcsraw

if [ "$KCS1_IRQ" != 0 ]; then
	# Boards that put the BMC on a line another device uses: the test
	# module's sharer (fault_irq_sharer=1) holds the line first, so
	# kcsraw's request for it alone fails and it shares it. Its handler
	# then takes the answer's bytes itself instead of disabling the line:
	# every interrupt must still reach the sharer, every answer be whole.
	say "a shared IRQ line: another device's handler holds it first"
	SHARER=/sys/kernel/debug/kcsraw/sharer
	check "insmod kcsraw fault_inject=1 fault_irq_sharer=1" \
		load_kcsraw ports="$KCS1_PORT" irqs="$KCS1_IRQ" fault_inject=1 \
		fault_irq_sharer=1
	[ -e "$SHARER" ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	dmesg | grep -E 'kcsraw0: (irq|using irq)' | tail -n 2 | sed 's/^/    dmesg| /'
	grep -E "^ *$KCS1_IRQ:" /proc/interrupts | sed 's/^/    /'
	check "sysfs irq_shared is 1, irq $KCS1_IRQ (not polled)" \
		sh -c "grep -qx 1 $SYS/irq_shared && grep -qx $KCS1_IRQ $SYS/irq"
	# sharer NAME: the value of NAME=... in the sharer's line
	sharer() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$SHARER"; }
	calls() { sharer calls; }
	c0=$(calls)
	i0=$(cat $SYS/irqs)
	irq_run /tmp/bs "all ok on the shared line"
	cmp_req "shared line: Get SEL Entry 0000 as stock" "0a 43 00 00 00 00 00 ff"
	cmp_req "shared line: Get Device ID as stock" "06 01"
	c1=$(calls)
	i1=$(cat $SYS/irqs)
	t1=$(cat $SYS/irq_taken)
	if num "the sharer's calls, kcsraw's interrupts, bytes taken" "$c0" "$c1" "$i0" "$i1" "$t1"; then
		echo "    kcsraw counted $((i1 - i0)) interrupts and took $t1 answer bytes in its handler; the sharer was called $((c1 - c0)) times"
		check "the handler took the answers' bytes (at least one a transaction)" \
			test "$t1" -ge $N
		check "each of the KCS's interrupts reached the sharer too" \
			test $((i1 - i0)) -ge $N -a $((c1 - c0)) -ge $((i1 - i0))
	fi
	# The other device's interrupts must never wait for kcsraw: the test
	# sharer samples every millisecond whether the line is disabled,
	# while three clients keep the interface busy with policies that
	# never sleep on the interrupt (a 2000 us busy-wait, interactive's
	# max_busy_us, and timer polls), so the queue never drains.
	say "a shared line under load: never disabled for the other device"
	echo reset >"$SHARER"
	$KCSRAW -b 2000 -n 40 -q raw 06 01 >/tmp/sl1 2>&1 &
	l1=$!
	$KCSRAW -b 0 -p 100 -n 40 -q raw 06 01 >/tmp/sl2 2>&1 &
	l2=$!
	$KCSRAW -b 2000 -n 40 -q raw 06 01 >/tmp/sl3 2>&1
	wait $l1 $l2
	for f in /tmp/sl1 /tmp/sl2 /tmp/sl3; do
		expect "busy shared line: $f all ok" "n=40 ok=40 bad=0" $f
	done
	cat "$SHARER" | sed 's/^/    sharer: /'
	sm=$(sharer samples) ds=$(sharer disabled) lg=$(sharer longest_ms)
	num "the sharer's samples, disabled samples, longest run" "$sm" "$ds" "$lg" &&
		check "the line was never disabled ($ds of $sm 1 ms samples, longest $lg ms)" \
			test "$ds" -eq 0 -a "$sm" -ge 50
	# The other device's interrupts, played by the sharer (kcsraw's
	# handler asked as the kernel asks every handler of the line): with
	# nothing pending at the KCS, and with SMS_ATN up and already seen by
	# kcsraw's idle check (fault "atn": a flag the BMC never clears).
	echo reset >"$SHARER"
	echo "fire 50" >"$SHARER"
	check "another device's 50 interrupts, KCS idle: none claimed ($(sharer claimed))" \
		test "$(sharer claimed)" = 0
	echo "atn 3000" >/sys/kernel/debug/kcsraw/faults
	sleep 0.5
	echo reset >"$SHARER"
	echo "fire 50" >"$SHARER"
	fc=$(sharer claimed) fd=$(sharer disabled)
	echo none >/sys/kernel/debug/kcsraw/faults
	check "another device's 50 interrupts, SMS_ATN up: none claimed ($fc), line never disabled ($fd)" \
		test "$fc" = 0 -a "$fd" = 0
	check "rmmod kcsraw" rmmod kcsraw
	check "the line has no kcsraw handler left" \
		sh -c '! grep -q kcsraw /proc/interrupts'
fi
dmesg | grep -E 'WARNING:|BUG:|Oops|kcsraw.*(leak|WARN)' && fail "kernel warnings in dmesg"
summary
