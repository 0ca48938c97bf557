# kcsraw.ko as an interface of ipmi_msghandler (smi=1), run by
# tests/vm/smi.sh with both KCS's delay proxies logging what their BMC gets
# (the host side checks the watchdog's and power-off's requests there).
# kcsraw on the first KCS registers as interface 0 (/dev/ipmi0 through
# ipmi_devintf); stock ipmi_si on the second KCS is interface 1. While a
# kcsmuxd node serves a client in a loop: ipmitool -d 0, and a randomized
# differential of raw requests against stock; ipmi_watchdog arms the BMC's
# watchdog (seen through the node), its heartbeats keep it up, a magic
# close stops it; rmmod refused while a kernel user or /dev/ipmi0 holds
# the interface, fine after; acpi_ipmi binds to it (QEMU describes the
# KCS in ACPI); smi=0 registers nothing; no kernel WARNING.
# (ipmi_poweroff: kmod-smi-wdt.sh, where ACPI is off: with ACPI, the
# kernel powers the guest off through ACPI before ipmi_poweroff's turn.)
. /guest/lib.sh

loaded() { grep -q "^$1 " /proc/modules; }
# wait_dev PATH: up to 5 s for a character device to appear
wait_dev() {
	for _i in $(seq 50); do
		[ -c "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

say "kcsraw smi=1 on $KCS1_PORT, then stock ipmi_si on $KCS2_PORT"
check "modprobe ipmi_msghandler ipmi_devintf" modprobe ipmi_devintf
dmesg -c >/dev/null
# KCSRAW_SMI_ASYNC=0 (vm.kmod-smi-sync): stage 1's mode, the daemon owns
# the message flags; default: the kernel's flags machine.
check "insmod kcsraw smi=1 smi_async=${KCSRAW_SMI_ASYNC:-1}" load_kcsraw smi=1 \
	smi_async="${KCSRAW_SMI_ASYNC:-1}" ports="$KCS1_PORT" irqs="$KCS1_IRQ"
check "kcsraw registered with ipmi_msghandler" \
	sh -c 'dmesg | grep -q "kcsraw0: registered with ipmi_msghandler"'
check "/dev/ipmi0 (ipmi_devintf on kcsraw)" wait_dev /dev/ipmi0
check "interface 0 is kcsraw's platform device" \
	sh -c 'ls /sys/devices/platform/kcsraw.0/ | grep -q bmc'
check "modprobe ipmi_si on $KCS2_PORT" modprobe ipmi_si type=kcs \
	ports="$KCS2_PORT" tryacpi=0 trydmi=0 tryplatform=0 trypci=0
check "/dev/ipmi1 (stock)" wait_dev /dev/ipmi1
SYS=/sys/class/misc/kcsraw0
# acpi_ipmi binds to the interface QEMU's DSDT describes (IPI0001 with the
# KCS's ports): kcsraw reports SI_ACPI with that handle.
ls /sys/bus/acpi/devices/ | grep IPI0001 | sed 's/^/    acpi: /'
check "kcsraw found its ACPI description" \
	sh -c 'dmesg | grep -q "kcsraw0: described by ACPI IPI0001"'
r0=$(cat /sys/module/kcsraw/refcnt)
check "modprobe acpi_ipmi" modprobe acpi_ipmi
r1=$(cat /sys/module/kcsraw/refcnt)
echo "    kcsraw refcnt: $r0 before acpi_ipmi, $r1 after"
check "acpi_ipmi bound to kcsraw's interface (a user: refcnt +1)" \
	test "$r1" = $((r0 + 1))
echo "    smi: $(cat $SYS/smi)"
check "sysfs smi: registered, the handler's messages returned" \
	grep -q 'registered=1 messages=[1-9]' $SYS/smi
check "smi_policy takes keys" \
	sh -c "echo 'max_busy_us=50 backoff=fixed' >$SYS/smi_policy"
expect "smi_policy reads them back" 'max_busy_us=50 .*backoff=fixed' \
	$SYS/smi_policy
check "smi_policy refuses poll_us=0" \
	sh -c "! echo poll_us=0 2>/dev/null >$SYS/smi_policy"

say "kcsmuxd node ipmi5 serving a client meanwhile"
check "modprobe cuse" modprobe cuse
mkdir -p /etc/kcsmux
kcsmux_conf <<'CONF'

[node ipmi5]
policy = monitor
mode = 0666
CONF
kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
dpid=$!
check "node /dev/ipmi5" wait_dev /dev/ipmi5
(
	n=0 bad=0
	while [ ! -f /tmp/stop-load ]; do
		ipmitool -I open -d 5 sdr list >/tmp/load.out 2>&1 || bad=$((bad + 1))
		n=$((n + 1))
	done
	echo "$n $bad" >/tmp/load.res
) &
lpid=$!

say "ipmitool -d 0 on kcsraw's interface"
# (Not sdr list: its satellite controller's sensors are read by bridging
# (Send Message, then Get Message on SMS_ATN), which needs the flags
# machine in kcsraw, missing with smi_async=0; vm.kmod-smi-async tests
# bridging.)
for c in "mc info" "sdr info" "sel list" "chassis status" "fru print 0"; do
	# shellcheck disable=SC2086
	ipmitool -I open -d 0 $c >/tmp/k.out 2>&1
	krc=$?
	# shellcheck disable=SC2086
	ipmitool -I open -d 1 $c >/tmp/s.out 2>&1
	src=$?
	if [ $krc = 0 ] && [ $src = 0 ] && cmp -s /tmp/k.out /tmp/s.out; then
		pass "ipmitool $c: same as stock ($(wc -l </tmp/k.out) lines)"
	else
		fail "ipmitool $c: kcsraw exit $krc, stock exit $src"
		diff /tmp/s.out /tmp/k.out | head -n 20 | sed 's/^/    /'
	fi
done

# One random raw request (netfn cmd data...) of a mix that reads known
# state, asks for what the BMC lacks, or is malformed.
rand() { echo $((RANDOM % $1)); }
hex() { printf '0x%02x' "$1"; }
random_req() {
	case $(rand 11) in
	0) echo "0x06 0x01" ;;
	1) echo "0x0a 0x20" ;;
	2) echo "0x0a 0x43 0x00 0x00 $(hex $(rand 6)) 0x00 0x00 0xff" ;;
	3) echo "0x04 0x2d $(hex $(rand 12))" ;;
	4) echo "0x0a 0x10 0x00" ;;
	5) echo "0x0a 0x11 0x00 $(hex $(rand 64)) 0x00 $(hex $((1 + $(rand 32))))" ;;
	6) echo "0x00 0x01" ;;
	7) echo "0x06 $(hex $((0x60 + $(rand 32))))" ;;
	8) echo "0x2c 0x00" ;;
	9) echo "0x0a 0x43" ;;
	*) echo "0x06 0x01 $(hex $(rand 256))" ;;
	esac
}
seed=${SMI_SEED:-$(($(date +%s) % 32768))}
RANDOM=$seed
say "randomized differential against stock: 80 requests, seed $seed"
same=0 differ=0
for _ in $(seq 80); do
	r=$(random_req)
	# shellcheck disable=SC2086
	ipmitool -I open -d 0 raw $r >/tmp/k.out 2>&1
	krc=$?
	# shellcheck disable=SC2086
	ipmitool -I open -d 1 raw $r >/tmp/s.out 2>&1
	src=$?
	if [ $krc = $src ] && cmp -s /tmp/k.out /tmp/s.out; then
		same=$((same + 1))
	else
		differ=$((differ + 1))
		echo "    differs: raw $r: kcsraw exit $krc, stock exit $src"
		sed 's/^/    kcsraw| /' /tmp/k.out | head -n 3
		sed 's/^/    stock | /' /tmp/s.out | head -n 3
	fi
done
check "80 random requests: kcsraw's interface answers as stock ($same same)" \
	test "$differ" = 0

say "ipmi_watchdog on kcsraw's interface"
# timeout=60: ipmi_sim restarts its expiry timer only if it is not
# running, so it fires 60 s after the first arming whatever the heartbeats
# (vm.kmod-smi-wdt lets it reset the guest); the heartbeats themselves are
# counted in the BMC's request log (smi.sh).
check "modprobe ipmi_watchdog timeout=60" modprobe ipmi_watchdog timeout=60 \
	action=reset
dmesg | grep -i 'watchdog' | sed 's/^/    dmesg| /'
check "/dev/watchdog" wait_dev /dev/watchdog
watchdog -T 60 -t 2 -F /dev/watchdog &
wpid=$!
sleep 3
ipmitool -I open -d 5 mc watchdog get >/tmp/wd1 2>&1
sed 's/^/    /' /tmp/wd1
expect "through the node: timer use SMS/OS" 'Timer Use: *SMS/OS' /tmp/wd1
expect "through the node: running" 'Started/Running' /tmp/wd1
expect "through the node: initial countdown 60 s" 'Initial Countdown: *60' /tmp/wd1
sleep 8
check "the watchdog stops on a magic close" kill -TERM "$wpid"
wait "$wpid"
sleep 1
ipmitool -I open -d 5 mc watchdog get >/tmp/wd3 2>&1
expect "through the node: stopped" 'Stopped' /tmp/wd3

: >/tmp/stop-load
wait "$lpid"
read -r ln lbad </tmp/load.res
echo "    node client: $ln sdr list runs, $lbad failed"
check "the node's client ran throughout without a failure" \
	test "$ln" -gt 0 -a "$lbad" = 0
kill -TERM "$dpid"
wait "$dpid"

say "unload: refused while the kernel's users hold kcsraw"
rmmod kcsraw 2>/tmp/rm1
check "rmmod kcsraw refused while ipmi_watchdog is loaded" loaded kcsraw
sed 's/^/    /' /tmp/rm1
check "rmmod ipmi_watchdog" rmmod ipmi_watchdog
rmmod kcsraw 2>/dev/null
check "rmmod kcsraw refused while acpi_ipmi is loaded" loaded kcsraw
check "rmmod acpi_ipmi" rmmod acpi_ipmi
sleep 60 </dev/ipmi0 &
hpid=$!
sleep 0.5
rmmod kcsraw 2>/tmp/rm2
check "rmmod kcsraw refused while /dev/ipmi0 is open" loaded kcsraw
kill "$hpid"
wait "$hpid" 2>/dev/null
check "rmmod kcsraw once nothing holds it" rmmod kcsraw
check "/dev/ipmi0 is gone" test ! -e /dev/ipmi0
check "stock /dev/ipmi1 still answers" ipmitool -I open -d 1 mc info

say "smi=0: no interface for ipmi_msghandler"
check "insmod kcsraw smi=0" load_kcsraw smi=0 ports="$KCS1_PORT"
sleep 1
check "no /dev/ipmi0 with smi=0" test ! -e /dev/ipmi0
check "/dev/kcsraw0 with smi=0" test -c /dev/kcsraw0
check "rmmod kcsraw (smi=0)" rmmod kcsraw

no_kernel_warnings
summary
