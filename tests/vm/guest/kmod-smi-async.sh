# kcsraw.ko with smi=1 smi_async=1 (the default): the kernel runs the
# message flags machine. Run by tests/vm/smi.sh async,
# whose delay proxy injects an event on request 30 03 and an IPMB command
# (netfn 0x32 cmd 0x05 from 0x40, data de ad) on 30 04
# (docs/bmc-proxy.md), and logs the requests its BMC gets (the host side
# checks there the replies to the injected commands). Checked here: an
# event (injected, then one ipmi_sim raises itself) reaches a gets_events
# user of /dev/ipmi0; an incoming command reaches the user that registered
# it; bridged requests through /dev/ipmi0 (ipmitool -t 0x72 -b 0) get their
# answers; a watchdog pre-timeout reaches ipmi_watchdog (preop_give_data:
# a read of /dev/watchdog returns); /dev/kcsraw0 refuses Send Message, Get
# Message, Read Event Message Buffer and Clear Message Flags with EINVAL,
# reports KCSRAW_INFO_ASYNC, answers the rest; kcsmuxd beside it bridges
# and gets events through /dev/ipmi0 (docs/smi-mode.md;
# vm.daemon-smi has the rest); smi_async=0 gives the old mode back; no
# kernel WARNING.
. /guest/lib.sh

EV=0102030405060708090a0b0c0d0e0f10
SYS=/sys/class/misc/kcsraw0

# wait_dev PATH: up to 5 s for a character device to appear
wait_dev() {
	for _i in $(seq 50); do
		[ -c "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
alive() { kill -0 "$1" 2>/dev/null; }
# trigger "NETFN CMD ...": a request to kcsraw's BMC that fires a proxy rule
trigger() {
	kcsmux-ipmi-probe -d 0 -n 1 -r "$1" --allow-errors >/dev/null 2>&1
	true
}
# smi_field NAME: a field of sysfs smi
smi_field() { tr ' ' '\n' <$SYS/smi | sed -n "s/^$1=//p"; }
# info_flags: KCSRAW_IOC_INFO flags, decimal
info_flags() {
	_f=$(kcsmux-kcsraw info | sed -n 's/.* flags=\(0x[0-9a-f]*\).*/\1/p')
	echo $((${_f:-0x10000}))
}

say "kcsraw smi=1 (smi_async default) on $KCS1_PORT irq $KCS1_IRQ"
check "modprobe ipmi_devintf" modprobe ipmi_devintf
dmesg -c >/dev/null
check "insmod kcsraw smi=1" load_kcsraw smi=1 ports="$KCS1_PORT" irqs="$KCS1_IRQ"
check "/dev/ipmi0 (ipmi_devintf on kcsraw)" wait_dev /dev/ipmi0
dmesg | grep kcsraw | sed 's/^/    dmesg| /'
check "dmesg: the flags are the kernel's, event buffer on" \
	sh -c 'dmesg | grep -q "kcsraw0: message flags, receive queue and events in the kernel (event buffer on)"'
echo "    smi: $(cat $SYS/smi)"
check "sysfs smi: async=1" test "$(smi_field async)" = 1
fl=$(info_flags)
check "KCSRAW_IOC_INFO: KCSRAW_INFO_SMI|KCSRAW_INFO_ASYNC (flags $fl)" \
	test $((fl & 0x10000)) = 0 -a $((fl & 0xc)) = 12
ge=$(ipmitool -I open -d 0 raw 0x06 0x2f 2>/dev/null | tr -d ' ')
echo "    global enables: $ge"
check "global enables: event buffer and its interrupt on (0f)" \
	test "$ge" = 0f

say "/dev/kcsraw0 refuses what the flags machine owns"
for c in "34 00 20 18 c8 81 00 01 7e" "33" "35" "30 08"; do
	# shellcheck disable=SC2086
	kcsmux-kcsraw raw 06 $c >/tmp/r.out 2>&1
	rc=$?
	if [ $rc != 0 ] && grep -q 'SUBMIT: Invalid argument' /tmp/r.out; then
		pass "06 ${c%% *}: refused with EINVAL"
	else
		fail "06 ${c%% *}: exit $rc: $(cat /tmp/r.out)"
	fi
done
run_to /tmp/r.out kcsmux-kcsraw raw 06 31
expect "Get Message Flags is still answered" '^data: 00' /tmp/r.out
run_to /tmp/r.out kcsmux-kcsraw raw 06 01
expect "Get Device ID is answered" '^data: 00 20' /tmp/r.out
run_to /tmp/r.out kcsmux-kcsraw raw 0a 33
expect "another netfn's cmd 0x33 is not refused" '^resp: 2c 33' /tmp/r.out

say "an injected event reaches a gets_events user of /dev/ipmi0"
ev0=$(smi_field events)
check "subscriber on /dev/ipmi0" listen ev /dev/ipmi0 -e
trigger "30 03"
check "the subscriber got the event" finish ev
sed 's/^/    /' /tmp/ev.out
expect "it is the injected record" "type=event .* len=16 data=$EV" /tmp/ev.out
ev1=$(smi_field events)
num "smi events" "$ev0" "$ev1" &&
	check "sysfs smi: events $ev0 -> $ev1" test "$ev1" -gt "$ev0"

say "an event ipmi_sim raises itself (CPU Temp UNC below the reading)"
for th in 28 55; do
	check "subscriber (UNC $th)" listen th /dev/ipmi0 -e
	trigger "04 26 01 08 00 00 00 $th 00 00"
	check "the subscriber got the BMC's event (UNC $th)" finish th
	sed 's/^/    /' /tmp/th.out
	expect "CPU Temp's UNC event, threshold 0x$th" \
		"type=event .* len=16 data=[0-9a-f]{4}02000000002000040101(01|81)572d$th" \
		/tmp/th.out
done

say "an incoming IPMB command, to the user that registered it"
check "register 0x32/0x05 on /dev/ipmi0" listen cmd /dev/ipmi0 -r 0x32:0x05 -a "00 11"
trigger "30 04"
check "the user got the command" finish cmd
sed 's/^/    /' /tmp/cmd.out
expect "from IPMB 0x40 on channel 0, netfn 0x32 cmd 0x05, data de ad" \
	"type=cmd addr=1/0/0x40/0 netfn=0x32 cmd=0x05 .* data=dead" /tmp/cmd.out
expect "its reply was accepted" "reply rc=0" /tmp/cmd.out
# Nobody registered: the handler answers 0xC1 itself (smi.sh checks it at
# the BMC).
trigger "30 04"
sleep 1

say "bridged requests through /dev/ipmi0 (satellite 0x72 on IPMB channel 0)"
run_to /tmp/b.out ipmitool -I open -d 0 -t 0x72 -b 0 mc info
expect "ipmitool -t 0x72 -b 0 mc info: the satellite's firmware 1.03" \
	'^Firmware Revision +: 1\.03$' /tmp/b.out
run_to /tmp/b.out ipmitool -I open -d 0 -t 0x72 -b 0 sdr
expect "ipmitool -t 0x72 -b 0 sdr: HSBP Temp read" \
	'^HSBP Temp +\| 31 degrees C +\| ok$' /tmp/b.out
echo "    smi: $(cat $SYS/smi)"
rc0=$(smi_field received)
num "smi received" "$rc0" &&
	check "sysfs smi: Get Message answers delivered ($rc0)" test "$rc0" -ge 2

say "kcsmuxd beside it (SMI mode: events and bridging through the relay)"
check "modprobe cuse" modprobe cuse
mkdir -p /etc/kcsmux
kcsmux_conf <<'CONF'

[node ipmi5]
policy = monitor
mode = 0666
events = yes
CONF
kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
dpid=$!
check "node /dev/ipmi5" wait_dev /dev/ipmi5
run_to /tmp/d.out ipmitool -I open -d 5 mc info
expect "ipmitool -d 5 mc info through the node" '^Firmware Revision +: 2\.15$' \
	/tmp/d.out
expect "kcsmuxd uses kcsraw's relay for events and bridging, not /dev/ipmi0" \
	'SMI mode, bridging and events through the relay on /dev/kcsraw0' \
	/tmp/kcsmuxd.log
run_to /tmp/d.out ipmitool -I open -d 5 -t 0x72 -b 0 mc info
expect "bridged through the node: the satellite's answer" \
	'^Firmware Revision +: 1\.03$' /tmp/d.out
# The commands kcsraw refuses, from a node's client: Clear Message Flags
# goes through the relay (an in-kernel user), as a stock user's does; Get Message and Read
# Event Message Buffer kcsmuxd refuses itself, as stock does.
ipmitool -I open -d 5 raw 0x06 0x30 0x00 >/tmp/d.out 2>&1
check "node client raw 06 30 00 (Clear Message Flags) answered" test "$?" = 0
for c in 0x33 0x35; do
	ipmitool -I open -d 5 raw 0x06 $c >/tmp/d.out 2>&1
	check "node client raw 06 $c refused (exit $?)" test "$?" != 0
	echo "    $(grep -v IANA /tmp/d.out | tr '\n' ' ')"
done
listen dev /dev/ipmi5 -e
listen kev /dev/ipmi0 -e
trigger "30 03"
check "the kernel's subscriber got the event" finish kev
check "the node's subscriber got it too" finish dev
check "kcsmuxd is alive" alive "$dpid"
kill "$dpid"
wait "$dpid"
sed 's/^/    kcsmuxd| /' /tmp/kcsmuxd.log | tail -n 12

say "a watchdog pre-timeout reaches ipmi_watchdog"
# action=reset (with action=none ipmi_watchdog never starts the timer);
# the pre-timeout comes 5 s after the start, 15 s before the reset.
check "modprobe ipmi_watchdog pre_int, preop_give_data, 20 s / 15 s" \
	modprobe ipmi_watchdog action=reset preaction=pre_int \
	preop=preop_give_data timeout=20 pretimeout=15
check "/dev/watchdog" wait_dev /dev/watchdog
pt0=$(smi_field pretimeouts)
# The first write (a heartbeat) starts the timer; read() returns at the
# pre-timeout; 'V' then is the magic close, whatever the read did.
# busybox timeout leaves a watcher process behind for up to a second that
# inherits every open fd but 0-2: fd 3 is closed for it, or the watcher
# holds /dev/watchdog (and so ipmi_watchdog) past the rmmod below.
t0=$(date +%s)
sh -c 'exec 3<>/dev/watchdog; printf x >&3;
	timeout 12 dd bs=1 count=1 <&3 3<&- >/tmp/pt.out 2>/dev/null; rc=$?
	printf V >&3; exit $rc'
prc=$?
t1=$(date +%s)
check "read(/dev/watchdog) returned at the pre-timeout (exit $prc, $((t1 - t0)) s)" \
	test "$prc" = 0 -a -s /tmp/pt.out
pt1=$(smi_field pretimeouts)
num "smi pretimeouts" "$pt0" "$pt1" &&
	check "sysfs smi: pretimeouts $pt0 -> $pt1" test "$pt1" -gt "$pt0"
check "rmmod ipmi_watchdog" rmmod ipmi_watchdog
check "rmmod kcsraw" rmmod kcsraw

say "smi_async=0: the old mode"
check "insmod kcsraw smi=1 smi_async=0" load_kcsraw smi=1 smi_async=0 \
	ports="$KCS1_PORT" irqs="$KCS1_IRQ"
check "/dev/ipmi0" wait_dev /dev/ipmi0
fl=$(info_flags)
check "KCSRAW_IOC_INFO: SMI without ASYNC (flags $fl)" \
	test $((fl & 0x10000)) = 0 -a $((fl & 0xc)) = 4
check "sysfs smi: async=0" test "$(smi_field async)" = 0
run_to /tmp/r.out kcsmux-kcsraw raw 06 33
expect "Get Message goes to the BMC (ipmi_sim: 80, queue empty)" \
	'^resp: 1c 33 80' /tmp/r.out
check "rmmod kcsraw" rmmod kcsraw

no_kernel_warnings
summary
