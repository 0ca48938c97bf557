# kcsmuxd in SMI mode (docs/design.md, "SMI mode"): kcsraw.ko with smi=1
# is an interface of ipmi_msghandler; when it runs the message flags itself
# (KCSRAW_INFO_ASYNC) kcsmuxd's own SMS_ATN machine is off and events and
# bridging go through the stock /dev/ipmiN ipmi_devintf makes on kcsraw's
# interface. KCSMUX_TEST_SMI_ASYNC=1 puts the daemon in that mode whatever
# the module says, so this runs on stage-1 modules too.
#  1. ipmi_devintf not loaded: one error naming it, system-interface
#     requests served, IPMB requests EINVAL, the daemon alive.
#  2. ipmi_devintf loaded: the daemon finds /dev/ipmi0 through sysfs (the
#     platform device kcsraw.0), under user = nobody and seccomp = yes
#     sends a node's bridged request on it and reads the kernel's answer.
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
mode = 0666
[node ipmi2]
events = yes
mode = 0666
CONF

start() {	# LOG
	KCSMUX_TEST_SMI_ASYNC=1 kcsmuxd -f >"$1" 2>&1 &
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
# On a module without the flags machine nobody fetches the satellite's
# answer and the kernel ends the request with cc 0xc3 after its retries:
# either way the answer comes back through the stock node, and the
# seccomp filter let the daemon send and receive on it.
run_to /tmp/br2 kcsmux-ipmi-probe -d /dev/ipmi1 -t 0x72 -n 1 -k -v \
	--timeout 30000 --allow-errors
expect "the bridged request got the kernel's answer" \
	'recv_type=1 .*netfn=0x07 cmd=0x01' /tmp/br2
check "kcsmuxd still runs (seccomp = yes)" kill -0 "$dpid"
stop
check "no seccomp kill in the kernel's log" \
	sh -c '! dmesg | grep -q "comm=\"kcsmuxd\".*sig=31"'
summary
