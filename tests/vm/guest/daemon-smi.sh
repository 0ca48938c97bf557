# kcsmuxd in SMI mode (docs/smi-mode.md): kcsraw.ko with smi=1
# is an interface of ipmi_msghandler; when it runs the message flags itself
# (KCSRAW_INFO_ASYNC) kcsmuxd's own SMS_ATN machine is off and events and
# bridging go through the stock /dev/ipmiN ipmi_devintf makes on kcsraw's
# interface (smi_async=1, kcsraw's default with smi=1).
#  1. ipmi_devintf not loaded: one error naming it, system-interface
#     requests served, IPMB requests EINVAL, the daemon alive.
#  2. ipmi_devintf loaded: the daemon finds /dev/ipmi0 through sysfs (the
#     platform device kcsraw.0), under user = nobody and seccomp = yes
#     sends a node's bridged request on it and gets the satellite's answer,
#     the one ipmitool gets on /dev/ipmi0 itself.
#  3. One event from the BMC reaches a subscriber of every node and a
#     gets_events user of /dev/ipmi0 (a kernel user) alike.
#  4. An incoming IPMB command (the proxy injects it on OEM 30 04) reaches
#     the node client that registered it, which replies; after it closed,
#     the next one is the kernel's to answer (tests/vm/smi.sh daemon checks
#     both replies in the BMC's request log).
. /guest/lib.sh

KCSRAW_SMI=1 kcsmux_setup
check "kcsraw registered with ipmi_msghandler" \
	grep -q 'registered=1' /sys/class/misc/kcsraw0/smi
kcsmux_conf <<CONF
user = nobody
seccomp = yes

[node ipmi1]
policy = interactive
events = yes
commands = yes
mode = 0666
[node ipmi2]
events = yes
mode = 0666
CONF

start() {	# LOG
	kcsmuxd -f >"$1" 2>&1 &
	dpid=$!
	for _i in $(seq 100); do
		grep -q 'seccomp filter in' "$1" && [ -c /dev/ipmi2 ] && return 0
		sleep 0.1
	done
	return 1
}
stop() {
	kill "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null
}

say "1. SMI mode without ipmi_devintf"
check "no /sys/class/ipmi (ipmi_devintf not loaded)" test ! -e /sys/class/ipmi
check "kcsmuxd starts" start /tmp/k1.log
sed 's/^/    | /' /tmp/k1.log | head -n 20
check "one error names modprobe ipmi_devintf" \
	test "$(grep -c 'modprobe ipmi_devintf' /tmp/k1.log)" = 1
run_to /tmp/mc1 ipmitool -I open -d 1 mc info
expect "a system-interface request through a node is served" \
	'^Firmware Revision +: 2\.15$' /tmp/mc1
run_to /tmp/br1 kcsmux-ipmi-probe -d /dev/ipmi1 -t 0x72 -n 1 -k \
	--allow-errors
expect "a bridged request fails with EINVAL (no path)" \
	'Invalid argument' /tmp/br1
check "kcsmuxd still runs" kill -0 "$dpid"
stop

say "2. SMI mode with ipmi_devintf"
check "modprobe ipmi_devintf" modprobe ipmi_devintf
for i in $(seq 50); do [ -c /dev/ipmi0 ] && break; sleep 0.1; done
check "/dev/ipmi0 is kcsraw's interface (sysfs)" \
	sh -c 'readlink /sys/class/ipmi/ipmi0/device | grep -q "/kcsraw\.0$"'
check "kcsmuxd starts" start /tmp/k2.log
sed 's/^/    | /' /tmp/k2.log | head -n 20
expect "it found the stock node in sysfs" \
	'SMI mode, bridging and events through /dev/ipmi0' /tmp/k2.log
check "no error about ipmi_devintf" \
	sh -c '! grep -q "modprobe ipmi_devintf" /tmp/k2.log'
run_to /tmp/mc2 ipmitool -I open -d 2 mc info
expect "a system-interface request through a node is served" \
	'^Firmware Revision +: 2\.15$' /tmp/mc2
# The kernel's flags machine fetches the satellite's answer; the daemon
# sends and receives on the stock node under its seccomp filter.
run_to /tmp/br2 kcsmux-ipmi-probe -d /dev/ipmi1 -t 0x72 -n 3 -k
expect "three bridged Get Device IDs to 0x72 answered (cc 0)" \
	'^probe: .* ok=3 err=0 ' /tmp/br2
ipmitool -I open -d 0 -t 0x72 -b 0 mc info >/tmp/brs.out 2>&1
ipmitool -I open -d 1 -t 0x72 -b 0 mc info >/tmp/brn.out 2>&1
expect "ipmitool bridged mc info on /dev/ipmi0: the satellite's" \
	'^Firmware Revision +: 1\.03$' /tmp/brs.out
check "the same on node ipmi1" cmp -s /tmp/brs.out /tmp/brn.out
check "kcsmuxd still runs (seccomp = yes)" kill -0 "$dpid"

say "3. one event reaches every node's subscriber and a kernel user alike"
# Set Sensor Thresholds: CPU Temp's (0x01, reading 45) upper non-critical
# threshold below the reading: ipmi_sim asserts the event and raises
# SMS_ATN; the kernel fetches it and gives it to every gets_events user,
# kcsmuxd's open file among them, which fans it out to its nodes.
check "kernel user: gets_events on /dev/ipmi0" listen kev /dev/ipmi0 -e
check "node subscriber on ipmi1" listen n1ev /dev/ipmi1 -e
check "node subscriber on ipmi2" listen n2ev /dev/ipmi2 -e
kcsmux-ipmi-probe -d /dev/ipmi2 -n 1 -r "04 26 01 08 00 00 00 28 00 00" \
	--allow-errors >/dev/null 2>&1
check "the kernel user got the event" finish kev
check "ipmi1's subscriber got it" finish n1ev
check "ipmi2's subscriber got it" finish n2ev
cat /tmp/kev.out /tmp/n1ev.out | sed 's/^/    /'
expect "it is CPU Temp's UNC event, reading 45, threshold 0x28" \
	"type=event .* len=16 data=[0-9a-f]{4}02000000002000040101(01|81)572d28" \
	/tmp/n1ev.out
same_lines "ipmi1 sees the event as the kernel user does" kev n1ev recv
same_lines "ipmi2 sees the event as the kernel user does" kev n2ev recv
kcsmux-ipmi-probe -d /dev/ipmi2 -n 1 -r "04 26 01 08 00 00 00 55 00 00" \
	--allow-errors >/dev/null 2>&1
check "kcsmuxd still runs" kill -0 "$dpid"

say "4. an incoming IPMB command, to the node client that registered it"
check "node: register 0x32/0x05 on ipmi1" \
	listen n1cmd /dev/ipmi1 -r 0x32:0x05 -a "00 11"
if kcsmux-ipmi-listen -d /dev/ipmi0 -r 0x32:0x05 -t 100 >/tmp/kdup.out 2>&1; then
	fail "a kernel user registered 0x32/0x05 too"
else
	expect "the kernel holds the node's registration (EBUSY on /dev/ipmi0)" \
		"busy" /tmp/kdup.out
fi
kcsmux-ipmi-probe -d /dev/ipmi2 -n 1 -r "30 04" --allow-errors >/dev/null 2>&1
check "ipmi1's client got the command" finish n1cmd
sed 's/^/    /' /tmp/n1cmd.out
expect "from IPMB 0x40 on channel 0, netfn 0x32 cmd 0x05, data de ad" \
	"type=cmd addr=1/0/0x40/0 netfn=0x32 cmd=0x05 .* data=dead" /tmp/n1cmd.out
expect "its reply was taken" '^reply rc=0$' /tmp/n1cmd.out
# the listener closed: its registration is gone at the kernel too
kcsmux-ipmi-listen -d /dev/ipmi0 -r 0x32:0x05 -t 100 >/tmp/kreg.out 2>&1
check "a kernel user may register 0x32/0x05 now (it waited: exit 1)" \
	test "$?" = 1
kcsmux-ipmi-probe -d /dev/ipmi2 -n 1 -r "30 04" --allow-errors >/dev/null 2>&1
sleep 1
check "kcsmuxd still runs" kill -0 "$dpid"
stop
check "no seccomp kill in the kernel's log" \
	sh -c '! dmesg | grep -q "comm=\"kcsmuxd\".*sig=31"'
summary
