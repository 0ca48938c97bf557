# kcsraw.ko's unload and failed-load paths:
#  - a load whose second interface fails (ports= with a bogus second port)
#    fails as a whole, and no /dev/kcsraw0 can be opened meanwhile: devices
#    are registered only once every interface is up;
#  - rmmod while a transaction orphaned by its closed file is held by the
#    BMC: without an IRQ the poller aborts it at once instead of spinning
#    until the BMC answers; with an IRQ the BMC's interrupt enables are
#    restored first (a transaction, after the held one), the poller stops,
#    and only then is the IRQ freed; no warning either way;
#  - rmmod while the thread gives up on a silent BMC: no lost-BMC probe
#    is left queued to run after the unload.
# Run with: run.sh --bmc extern --delay fixed:500
#           --proxy-args '--hold-on 0x30:0x01 --hold-for 3000'
#           --env HOLD_MS=3000 [--irq on|off] [--smp 2] kmod-unload.sh
# (the held rmmod runs polled, and with the IRQ too under --irq on)
. /guest/lib.sh

KCSRAW=kcsmux-kcsraw
HOLD_MS=${HOLD_MS:-3000}
ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
warnings() { dmesg | grep -E 'WARNING:|BUG[: ]|Oops|soft lockup|Unbalanced|hung_task|blocked for more|list_(add|del) corruption'; }
dmesg -c >/dev/null

say "a bogus second port: the load fails as a whole, no device meanwhile"
# Something keeps trying to open /dev/kcsraw0 during the failing load.
rm -f /tmp/opened
(
	end=$(($(ms) + 3000))
	while [ "$(ms)" -lt $end ]; do
		if $KCSRAW -d /dev/kcsraw0 info >/dev/null 2>&1; then
			echo opened >>/tmp/opened
		fi
	done
) &
opener=$!
sleep 0.2
load_kcsraw ports="$KCS1_PORT,0xca8" irqs="$KCS1_IRQ" 2>/tmp/insmod.err
rc=$?
wait $opener
dmesg | grep kcsraw | sed 's/^/    dmesg| /'
check "insmod ports=$KCS1_PORT,0xca8 fails" test $rc != 0
dmesg >/tmp/dmesg.1
expect "dmesg: nothing at the second port" 'kcsraw1: status register at 0xca9 reads 0xff' /tmp/dmesg.1
check "no kcsraw module left" sh -c '! grep -q "^kcsraw " /proc/modules'
check "no kcsraw0 device left" test ! -e /sys/class/misc/kcsraw0
check "/dev/kcsraw0 never opened during the failing load" test ! -s /tmp/opened
check "the first interface loads alone afterwards (ports released)" \
	load_kcsraw ports="$KCS1_PORT" irqs="$KCS1_IRQ"
run_to /tmp/ok $KCSRAW -n 3 -q raw 06 01
expect "and works" 'n=3 ok=3 bad=0' /tmp/ok
check "rmmod" rmmod kcsraw
w=$(warnings)
check "no kernel warnings so far${w:+: $w}" test -z "$w"

# held_rmmod IRQ: rmmod while a transaction orphaned by its killed client is
# held by the BMC, kcsraw loaded with irqs=IRQ (0: polled).
held_rmmod() {
	say "rmmod while an orphaned transaction is held by the BMC (irqs=$1)"
	dmesg -c >/dev/null
	check "insmod irqs=$1" load_kcsraw ports="$KCS1_PORT" irqs="$1"
	# Never spins (-b 0): wakes every 100 us, or on the IRQ.
	$KCSRAW -b 0 -p 100 -i -P 1000 raw 30 01 >/tmp/held.out 2>&1 &
	client=$!
	sleep 0.5
	check "the held request is still in flight" test ! -s /tmp/held.out
	kill -9 $client
	wait $client 2>/dev/null
	t0=$(ms)
	rmmod kcsraw
	rc=$?
	t1=$(ms)
	echo "    rmmod took $((t1 - t0)) ms (BMC held for $HOLD_MS ms from the request)"
	check "rmmod succeeds" test $rc = 0
	check "module gone" sh -c '! grep -q "^kcsraw " /proc/modules'
	if [ "$1" = 0 ]; then
		# The thread is asked to stop with the transaction in flight:
		# it aborts it, instead of stepping it without sleeping until
		# the BMC answers (a soft lockup with a BMC that never does).
		check "rmmod did not wait for the BMC ($((t1 - t0)) < $((HOLD_MS / 2)) ms)" \
			test $((t1 - t0)) -lt $((HOLD_MS / 2))
	else
		# Restoring the BMC's interrupt enables is a transaction after
		# the held one: rmmod waits for the BMC (bounded by timeouts).
		check "the BMC's global enables were restored" \
			sh -c '! dmesg | grep -q "could not restore"'
	fi
	sleep "$((HOLD_MS / 1000 + 1))"
	check "loads again once the BMC answers" \
		load_kcsraw ports="$KCS1_PORT" irqs="$1"
	run_to /tmp/ok2 $KCSRAW -n 3 -q raw 06 01
	expect "and works" 'n=3 ok=3 bad=0' /tmp/ok2
	check "rmmod" rmmod kcsraw
	w=$(warnings)
	check "no kernel warnings${w:+: $w}" test -z "$w"
}

held_rmmod 0
[ "${KCS1_IRQ:-0}" = 0 ] || held_rmmod "$KCS1_IRQ"

# rmmod timed into the give-up: a transaction gives up on the silent BMC
# (the proxy's hold, 200 ms timeouts, no retry) and the thread, finding
# the BMC gone, is held by kcsraw's fault_lost_delay_ms between that and
# queueing the lost-BMC probe, the window in which rmmod's destroy sets
# probe_stop and cancels the probe. It must not queue one then: queued,
# the probe would run a second later on the freed interface, in the
# unloaded module's code (an oops in a kworker), and destroy's check
# after the poller stopped says so first (a WARNING).
say "rmmod while the thread gives up on a silent BMC: no probe after it"
dmesg -c >/dev/null
PAR=/sys/module/kcsraw/parameters
check "insmod fault_inject=1 fault_lost_delay_ms=3000 (polled)" \
	load_kcsraw ports="$KCS1_PORT" irqs=0 fault_inject=1 \
	fault_lost_delay_ms=3000
echo 200 >$PAR/ibf_timeout_ms
echo 200 >$PAR/obf_timeout_ms
echo 0 >$PAR/max_retries
$KCSRAW -b 0 -p 100 raw 30 01 >/tmp/lost.out 2>&1 &
client=$!
# in_window: the thread has found the BMC gone and waits to queue the probe
in_window() {
	for _i in $(seq 100); do
		dmesg | grep -q 'kcsraw0: fault: 3000 ms before the probe' && return 0
		sleep 0.1
	done
	return 1
}
check "the transaction gave up and the thread is in the window" in_window
kill -9 $client
wait $client 2>/dev/null
check "rmmod during the window" rmmod kcsraw
dmesg | grep -E 'kcsraw0: (the BMC|fault)' | sed 's/^/    dmesg| /'
check "rmmod's destroy ran inside the window (probe_stop seen at its end)" \
	sh -c "dmesg | grep -q 'kcsraw0: fault: queueing the probe, unloading=1'"
# The probe's first run would come 1 s after the queueing.
sleep 2
w=$(warnings)
check "no probe queued after destroy, nothing ran after the unload${w:+: $w}" \
	test -z "$w"
summary
