# ipmi_watchdog's heartbeats keep the BMC's timer from running out, on
# kcsraw (smi=1) and then on stock ipmi_si in the same boot, against
# QEMU's BMC (--bmc sim; ipmi_sim's timer ignores Reset Watchdog Timer and
# resets the guest 10 s after arming under either driver, its request log
# showing every heartbeat). Each: /dev/watchdog armed with a 5 s timeout,
# busybox watchdog petting each second; 15 s later (three timeouts) the
# guest is alive and Get Watchdog Timer says running with time left; the
# magic close stops it.
. /guest/lib.sh

TIMEOUT=5
PET_S=15

# wdt_get: Get Watchdog Timer's data bytes through /dev/ipmi0
wdt_get() {
	ipmitool -I open -d 0 raw 0x06 0x25 2>/dev/null | tr -s ' \n' ' '
}

# pet LABEL: arm, pet PET_S seconds, check, magic close
pet() {
	check "$1: /dev/ipmi0" sh -c 'for i in $(seq 50); do [ -c /dev/ipmi0 ] && exit 0; sleep 0.1; done; exit 1'
	check "$1: modprobe ipmi_watchdog timeout=$TIMEOUT action=reset" \
		modprobe ipmi_watchdog timeout=$TIMEOUT action=reset
	t0=$(date +%s)
	watchdog -T $TIMEOUT -t 1 -F /dev/watchdog &
	wpid=$!
	sleep $PET_S
	l=$1
	set -- "$l" $(wdt_get)
	shift
	echo "    $l: Get Watchdog Timer after $(($(date +%s) - t0)) s: $*"
	set -- "$l" "$@"
	# data: use, action, pre-timeout, flags, initial (LE), present (LE)
	check "$1: alive and the timer still running ($PET_S s, timeout $TIMEOUT s)" \
		test $((0x${2:-0} & 0x40)) = 64
	check "$1: time left on it (a heartbeat restarted it): $((0x${9:-0}${8:-0})) x 100 ms" \
		test $((0x${9:-0}${8:-0})) -gt 0
	kill -TERM $wpid
	wait $wpid
	set -- "$1" $(wdt_get)
	check "$1: the magic close stopped it (use byte ${2:-?})" \
		test $((0x${2:-40} & 0x40)) = 0
	check "$1: rmmod ipmi_watchdog" rmmod ipmi_watchdog
}

check "insmod kcsraw smi=1" load_kcsraw smi=1 ports="$KCS1_PORT" irqs="$KCS1_IRQ"
check "modprobe ipmi_devintf (for ipmitool -d 0)" modprobe ipmi_devintf
pet kcsraw
check "rmmod ipmi_devintf kcsraw" rmmod ipmi_devintf kcsraw
check "stock ipmi_si on the same port" load_stock "$KCS1_PORT"
pet stock
summary
