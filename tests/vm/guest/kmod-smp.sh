# kcsraw.ko's interrupt path on a guest with two CPUs: the
# handler runs on one CPU (the IO-APIC sends IRQ 5 to CPU0) while the poller
# that disables and enables the line around its sleeps may run on another.
# Many IRQ-only transactions (-b 0 -i: never spin, sleep until the
# interrupt, a 50 ms timer only as the fallback) over several loads of the
# module, each with the poller placed differently (CPU1, CPU0, either), so
# one boot covers what took several boots to show (kprobes widen the race
# windows, see below): every sleep must end with the interrupt, the
# interrupts must keep coming, and the kernel log must stay free of
# "Unbalanced enable", WARNINGs and slab BUG reports.
# Run with: run.sh --smp 2 --bmc extern --delay fixed:200
#           --append slub_debug=FZPU kmod-smp.sh
. /guest/lib.sh

KCSRAW=kcsmux-kcsraw
SYS=/sys/class/misc/kcsraw0
ROUNDS=${SMP_ROUNDS:-6}
N=${SMP_N:-300}

# field NAME FILE: the value of NAME=... in the summary line of FILE
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$2" | head -n 1; }
# irqcount: interrupts taken on line $KCS1_IRQ, all CPUs
irqcount() {
	awk -v l="$KCS1_IRQ:" '$1 == l { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s }' /proc/interrupts
}

ncpu=$(grep -c '^processor' /proc/cpuinfo)
say "$ncpu CPUs, BMC delay $KCSMUX_DELAY, kcsraw on $KCS1_PORT irq $KCS1_IRQ, $ROUNDS loads x $N transactions"
check "the guest has 2 CPUs or more" test "$ncpu" -ge 2
if grep -q slub_debug /proc/cmdline; then
	# run.sh --append slub_debug=FZPU: kcsraw's requests (kmalloc-1k) are
	# red-zoned and poisoned; corruption shows as "BUG kmalloc-1k" below.
	check "SLUB debug checks on for kmalloc-1k" \
		grep -qx 1 /sys/kernel/slab/kmalloc-1k/poison
fi
dmesg -c >/dev/null

# Widen the race windows the way a loaded host does: a kprobe on
# disable_irq_nosync() and on enable_irq() whose event saves a stack trace
# makes each call take far longer under TCG, so a handler that disables the
# line on one CPU overlaps with a poller enabling it on the other far more
# often (SMP_KPROBE=0: without).
T=/sys/kernel/tracing
if [ "${SMP_KPROBE:-1}" = 1 ]; then
	mkdir -p $T
	mount -t tracefs nodev $T 2>/dev/null
	if echo 'p:kcsraw_dis disable_irq_nosync' >>$T/kprobe_events &&
		echo 'p:kcsraw_en enable_irq' >>$T/kprobe_events; then
		for e in kcsraw_dis kcsraw_en; do
			echo stacktrace >$T/events/kprobes/$e/trigger
			echo 1 >$T/events/kprobes/$e/enable
		done
		echo "    kprobes with stack traces on disable_irq_nosync and enable_irq"
	else
		fail "cannot set kprobes (tracefs at $T)"
	fi
fi

tsleeps=0 tirq=0 ttimer=0
round=0
while [ $round -lt "$ROUNDS" ]; do
	round=$((round + 1))
	case $((round % 3)) in
	1) cpus=1 ;;
	2) cpus=0 ;;
	*) cpus=all ;;
	esac
	say "load $round: poller on CPUs $cpus"
	if ! check "insmod kcsraw irqs=$KCS1_IRQ poller_cpus=$cpus" \
		load_kcsraw ports="$KCS1_PORT" irqs="$KCS1_IRQ" poller_cpus=$cpus; then
		dmesg | tail -n 20
		break
	fi
	check "interrupt in use" grep -qx "$KCS1_IRQ" $SYS/irq
	pid=$(cat $SYS/poller_pid)
	i0=$(irqcount)
	run_to /tmp/r $KCSRAW -b 0 -i -p 100 -P 50000 -n "$N" -q raw 06 01
	i1=$(irqcount)
	sl=$(field sleeps /tmp/r)
	iw=$(field irq_wakeups /tmp/r)
	tw=$(field timer_wakeups /tmp/r)
	echo "    poller pid $pid last on CPU $(awk '{print $39}' /proc/$pid/stat), interrupts on line $KCS1_IRQ: $((i1 - i0)), p50 $(field lat_p50_us /tmp/r) us, max $(field lat_max_us /tmp/r) us"
	expect "all $N answered" "n=$N ok=$N bad=0" /tmp/r
	# (a BMC that has answered by the time the poller looks needs no sleep)
	check "it slept ($sl sleeps for $N)" test "$((${sl:-0} * 10))" -ge "$((N * 9))"
	# Every sleep of this policy waits for the BMC's answer, which raises
	# the interrupt: a timer wake-up is an interrupt that never came. One
	# in a hundred is allowed for a host that stalls the BMC for 50 ms.
	check "irq wake-ups $iw of $sl sleeps, timer $tw (<= 1%)" \
		test "$((tw * 100))" -le "${sl:-0}" -a "$((iw + tw))" -le "$sl"
	check "the line kept interrupting ($((i1 - i0)) >= $N)" \
		test "$((i1 - i0))" -ge "$N"
	tsleeps=$((tsleeps + sl)) tirq=$((tirq + iw)) ttimer=$((ttimer + tw))
	check "rmmod kcsraw" rmmod kcsraw
	if dmesg | grep -qE 'WARNING:|Unbalanced|BUG[: ]|Oops|list_(add|del) corruption'; then
		fail "kernel warnings after load $round:"
		dmesg | grep -B2 -A12 -E 'WARNING:|Unbalanced|BUG[: ]|Oops|corruption' | head -n 40
		dmesg -c >/dev/null
	fi
done

say "totals: $tsleeps sleeps, $tirq irq wake-ups, $ttimer timer wake-ups over $round loads"
summary
