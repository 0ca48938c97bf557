# kcsraw.ko against QEMU's built-in BMC, next to the stock driver.
# Run with: run.sh --bmc sim --second-kcs [--irq on|off] kmod-basic.sh
# Load refusal while ipmi_si holds the ports, load by ports=, the same bytes
# as the stock driver, the ABI self-test, IRQ registration, SMS_ATN through
# a watchdog pre-timeout, poller placement, rmmod while open, SMBIOS
# discovery.
. /guest/lib.sh

KCSRAW=kcsmux-kcsraw
SYS=/sys/class/misc/kcsraw0
PAR=/sys/module/kcsraw/parameters

loaded() { grep -q '^kcsraw ' /proc/modules; }

say "stock ipmi_si on $KCS2_PORT"
stock=$(load_stock "$KCS2_PORT")
check "stock driver created $stock" test -c "$stock"

say "kcsraw refuses ports that ipmi_si holds"
dmesg -c >/dev/null
run_to /tmp/ins load_kcsraw ports="$KCS2_PORT"
rc=$?
dmesg >/tmp/dmesg.busy
sed 's/^/    dmesg| /' /tmp/dmesg.busy
check "insmod ports=$KCS2_PORT fails" test "$rc" -ne 0
expect "insmod reports EBUSY" 'Device or resource busy' /tmp/ins
expect "dmesg names the holder and the way out" \
	'in use by "ipmi_si".*rmmod ipmi_si' /tmp/dmesg.busy
check "module not left loaded" sh -c '! grep -q "^kcsraw " /proc/modules'

say "load kcsraw ports=$KCS1_PORT irqs=$KCS1_IRQ"
dmesg -c >/dev/null
check "insmod ports=$KCS1_PORT" load_kcsraw ports="$KCS1_PORT" irqs="$KCS1_IRQ"
dmesg | sed 's/^/    dmesg| /'
check "/dev/kcsraw0 exists" test -c /dev/kcsraw0
check "sysfs ports" grep -q "^$KCS1_PORT 0xca3\$" $SYS/ports
check "sysfs irq is $KCS1_IRQ" grep -qx "$KCS1_IRQ" $SYS/irq
pid=$(cat $SYS/poller_pid)
check "poller thread kcsraw0 (pid $pid)" grep -qx kcsraw0 /proc/$pid/comm
if [ "$KCS1_IRQ" != 0 ]; then
	grep kcsraw /proc/interrupts | sed 's/^/    /'
	check "irq $KCS1_IRQ registered" grep -q "kcsraw0" /proc/interrupts
fi

say "same bytes as the stock driver"
# cmp_req DESC "NETFN CMD DATA...": kcsraw's cc+data against kcsmux-ipmi-probe's
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
check "Reserve SDR Repository: same reservation" test -n "$res" -a "$res" = "$sres"
cmp_req "Get SDR 0000 (reservation $res)" "0a 23 $res 00 00 00 ff"
cmp_req "Get SEL Entry 0000" "0a 43 00 00 00 00 00 ff"
k=$($KCSRAW raw 06 01 | sed -n 's/^data: 00 //p')
i=$(ipmitool -I open -d "${stock#/dev/ipmi}" raw 0x06 0x01 2>/dev/null |
	tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
echo "    kcsraw:   $k"
echo "    ipmitool: $i"
check "Get Device ID: same data as ipmitool raw on the stock driver" \
	test -n "$k" -a "$k" = "$i"

say "ABI self-test"
run_to /tmp/st $KCSRAW selftest
check "kcsmux-kcsraw selftest" grep -q '^selftest: ok' /tmp/st
grep '^FAIL' /tmp/st

say "policies and cost report (instant BMC)"
run_to /tmp/b0 $KCSRAW -b 0 -p 100 -n 20 -q raw 06 01
expect "max_busy_us=0: no spin at all" 'spin_sum_us=0 ' /tmp/b0
expect "max_busy_us=0: all ok" 'n=20 ok=20 bad=0' /tmp/b0
run_to /tmp/bu $KCSRAW -b unlimited -n 20 -q raw 06 01
expect "unlimited: all ok" 'n=20 ok=20 bad=0' /tmp/bu
run_to /tmp/bq $KCSRAW -D -Q 16 -n 200 -q raw 06 01
expect "200 requests, 16 queued at a time: all ok" 'n=200 ok=200 bad=0' /tmp/bq
for a in transactions errors spin_ns cpu_ns sleeps irqs latency_max_ns poller_runtime_ns policy; do
	echo "    $a: $(cat $SYS/$a)"
done
check "sysfs transactions counted" test "$(cat $SYS/transactions)" -gt 250
check "sysfs errors (made-up cc, cancels) only from the self-test" \
	test "$(cat $SYS/errors)" -le 2

say "runtime-writable default policy parameters"
echo 0 >$PAR/default_max_busy_us
echo 200 >$PAR/default_poll_us
echo 0 >$PAR/default_backoff
check "sysfs policy follows the parameters" \
	grep -q 'max_busy_us=0 poll_us=200 poll_max_us=1000 backoff=fixed' $SYS/policy
echo 100 >$PAR/default_max_busy_us
echo 100 >$PAR/default_poll_us
echo 1 >$PAR/default_backoff

say "poller placement"
check "poller_cpus=0 accepted" sh -c "echo 0 >$PAR/poller_cpus"
check "thread affinity is CPU 0" grep -q 'Cpus_allowed_list:[[:space:]]*0$' /proc/$pid/status
check "poller_cpus=63 (offline) refused" sh -c "! echo 63 >$PAR/poller_cpus 2>/dev/null"
check "poller_nice=19 accepted" sh -c "echo 19 >$PAR/poller_nice"
check "thread nice is 19" test "$(cut -d' ' -f19 /proc/$pid/stat)" = 19
echo 0 >$PAR/poller_nice
if [ "$(grep -c '^processor' /proc/cpuinfo)" -ge 2 ]; then
	# run.sh --smp 2: the poller moves to the second CPU and runs there.
	check "poller_cpus=1 accepted" sh -c "echo 1 >$PAR/poller_cpus"
	check "thread affinity is CPU 1" grep -q 'Cpus_allowed_list:[[:space:]]*1$' /proc/$pid/status
	run_to /tmp/p1 $KCSRAW -n 5 -q raw 06 01
	expect "works with the poller on CPU 1" 'n=5 ok=5' /tmp/p1
	check "the poller last ran on CPU 1" test "$(awk '{print $39}' /proc/$pid/stat)" = 1
fi
echo all >$PAR/poller_cpus
run_to /tmp/pp $KCSRAW -n 5 -q raw 06 01
expect "still works after moving the poller" 'n=5 ok=5' /tmp/pp

say "SMS_ATN: a message in the BMC's receive queue"
$KCSRAW attn >/dev/null
# Send Message to the IPMB controller at 0x40 that QEMU's BMC emulates:
# Get Device ID, answer to LUN 2. The answer lands in the receive message
# queue and the BMC raises SMS_ATN.
run_to /tmp/sm $KCSRAW raw 06 34 00 40 18 a8 20 06 01 d9
expect "Send Message accepted" '^data: 00$' /tmp/sm
run_to /tmp/attn $KCSRAW attn 3000
expect "POLLPRI and pending attention" 'pollpri=1 pending=1' /tmp/attn
run_to /tmp/flags $KCSRAW raw 06 31
expect "Get Message Flags: receive message queue (0x01)" '^data: 00 01$' /tmp/flags
run_to /tmp/gm $KCSRAW raw 06 33
expect "Get Message: the IPMB answer" '^data: 00 00 ' /tmp/gm
sleep 0.3
$KCSRAW attn >/dev/null
run_to /tmp/attn2 $KCSRAW attn 300
expect "no attention once the queue is empty" 'pollpri=0 pending=0' /tmp/attn2
check "sysfs attn counted" test "$(cat $SYS/attn)" -gt 0

say "rmmod while /dev/kcsraw0 is open"
exec 3</dev/kcsraw0
run_to /tmp/rm1 rmmod kcsraw
check "rmmod refused while open" test $? -ne 0
check "module still loaded" loaded
exec 3<&-
check "rmmod after close" rmmod kcsraw
check "module gone" sh -c '! grep -q "^kcsraw " /proc/modules'
check "/dev/kcsraw0 gone" test ! -e /dev/kcsraw0

say "SMBIOS type 38 discovery (no ports=)"
ls /sys/firmware/dmi/entries/ | grep '^38-' | sed 's/^/    /'
dmesg -c >/dev/null
check "insmod without ports" load_kcsraw
dmesg >/tmp/dmesg.dmi
sed 's/^/    dmesg| /' /tmp/dmesg.dmi
expect "SMBIOS found $KCS1_PORT" "SMBIOS: KCS at $KCS1_PORT" /tmp/dmesg.dmi
expect "SMBIOS found $KCS2_PORT" "SMBIOS: KCS at $KCS2_PORT" /tmp/dmesg.dmi
expect "$KCS2_PORT skipped: ipmi_si holds it" "0x${KCS2_PORT#0x}.*in use by \"ipmi_si\"" /tmp/dmesg.dmi
check "kcsraw0 is $KCS1_PORT from SMBIOS" sh -c \
	"grep -q '^$KCS1_PORT ' $SYS/ports && grep -qx smbios $SYS/source"
check "no kcsraw1" test ! -e /dev/kcsraw1
cmp_req "Get Device ID after SMBIOS discovery" "06 01"
check "rmmod" rmmod kcsraw

dmesg | grep -E 'WARNING:|BUG:|Oops|kcsraw.*(leak|WARN)' && fail "kernel warnings in dmesg"
summary
