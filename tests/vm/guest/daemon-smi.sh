# kcsmuxd in SMI mode (docs/smi-mode.md): kcsraw.ko with smi=1
# is an interface of ipmi_msghandler; when it runs the message flags itself
# (KCSRAW_INFO_ASYNC) kcsmuxd's own SMS_ATN machine is off and events,
# bridging and incoming commands go through kcsraw's relay, the module's
# own kernel user of its interface on a second open file of /dev/kcsraw0:
# no ipmi_devintf, no stock /dev/ipmiN beside the nodes.
#  1. ipmi_devintf not loaded: the daemon binds the relay, under user =
#     nobody and seccomp = yes; a node's system-interface and bridged
#     requests are answered (the satellite's mc info through ipmitool); a
#     readonly node's file stops at its share of the kernel's sequence
#     slots and may not set the maintenance mode.
#  2. One event from the BMC reaches a subscriber of every node.
#  3. An incoming IPMB command (the proxy injects it on OEM 30 04) reaches
#     the node client that registered it, which replies; after it closed,
#     the next one is the kernel's to answer (tests/vm/smi.sh daemon checks
#     both replies in the BMC's request log).
#  5. Leases (before 4): a class lease refuses another node's command cc
#     0xd5 until released; a firmware lease keeps the BMC to its
#     holder's writes and reset while three agents are answered at once
#     (the mirror, or cc 0xc0); tests/vm/smi.sh daemon checks the BMC's
#     log between the holder's markers.
#  4. An admin loads ipmi_devintf anyway: the daemon keeps the relay, the
#     kernel holds a node's registration (EBUSY on the stock /dev/ipmi0)
#     and kcsmuxctl status names the stock device and what it bypasses.
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
[node ipmi3]
access = readonly
mode = 0666
CONF

start() {	# LOG
	kcsmuxd -f >"$1" 2>&1 &
	dpid=$!
	for _i in $(seq 100); do
		grep -q 'seccomp filter in' "$1" && [ -c /dev/ipmi3 ] && return 0
		sleep 0.1
	done
	return 1
}
stop() {
	kill "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null
}

say "1. SMI mode without ipmi_devintf: the relay"
check "no /sys/class/ipmi (ipmi_devintf not loaded)" test ! -e /sys/class/ipmi
check "kcsmuxd starts" start /tmp/k1.log
sed 's/^/    | /' /tmp/k1.log | head -n 20
expect "it bound kcsraw's relay" \
	'SMI mode, bridging and events through the relay on /dev/kcsraw0' \
	/tmp/k1.log
check "no error about bridging" sh -c '! grep -q "bridging, events" /tmp/k1.log'
dmesg >/tmp/dmesg1
expect "the module logged the binding" 'kcsraw0: relay bound' /tmp/dmesg1
run_to /tmp/mc1 ipmitool -I open -d 1 mc info
expect "a system-interface request through a node is served" \
	'^Firmware Revision +: 2\.15$' /tmp/mc1
# The kernel's flags machine fetches the satellite's answer; the daemon
# sends and receives on the relay under its seccomp filter.
run_to /tmp/br1 kcsmux-ipmi-probe -d /dev/ipmi1 -t 0x72 -n 3 -k
expect "three bridged Get Device IDs to 0x72 answered (cc 0)" \
	'^probe: .* ok=3 err=0 ' /tmp/br1
run_to /tmp/brn.out ipmitool -I open -d 1 -t 0x72 -b 0 mc info
expect "ipmitool bridged mc info on node ipmi1: the satellite's" \
	'^Firmware Revision +: 1\.03$' /tmp/brn.out
run_to /tmp/br2 kcsmux-ipmi-probe -d /dev/ipmi1 -t 0x72 -b 5 -n 1 -k \
	--allow-errors
expect "an IPMB request to channel 5 (not IPMB) fails at SEND with EINVAL" \
	'Invalid argument' /tmp/br2
# ipmi_msghandler holds one of its 64 sequence slots per bridged request
# until an answer or the last retry: a readonly node's file gets its share
# (3 nodes: 21 a node, 10 a file; EAGAIN past it) of requests to a silent
# address, and may read but not set the maintenance mode; ipmi1's bridged
# requests are still answered meanwhile.
run_to /tmp/slots kcsmux-ipmi-hostile slots /dev/ipmi3 10
check "a readonly file stops at its share of the kernel's slots" \
	sh -c '! grep -q FAIL /tmp/slots && grep -q "10 bridged requests held" /tmp/slots'
run_to /tmp/br3 kcsmux-ipmi-probe -d /dev/ipmi1 -t 0x72 -n 3 -k
expect "... and ipmi1's bridged requests are answered meanwhile" \
	'^probe: .* ok=3 err=0 ' /tmp/br3
check "kcsmuxd still runs (seccomp = yes)" kill -0 "$dpid"

say "2. one event reaches every node's subscriber"
# Set Sensor Thresholds: CPU Temp's (0x01, reading 45) upper non-critical
# threshold below the reading: ipmi_sim asserts the event and raises
# SMS_ATN; the kernel fetches it and gives it to every gets_events user,
# the relay among them, which the daemon fans out to its nodes.
check "node subscriber on ipmi1" listen n1ev /dev/ipmi1 -e
check "node subscriber on ipmi2" listen n2ev /dev/ipmi2 -e
kcsmux-ipmi-probe -d /dev/ipmi2 -n 1 -r "04 26 01 08 00 00 00 28 00 00" \
	--allow-errors >/dev/null 2>&1
check "ipmi1's subscriber got it" finish n1ev
check "ipmi2's subscriber got it" finish n2ev
cat /tmp/n1ev.out | sed 's/^/    /'
expect "it is CPU Temp's UNC event, reading 45, threshold 0x28" \
	"type=event .* len=16 data=[0-9a-f]{4}02000000002000040101(01|81)572d28" \
	/tmp/n1ev.out
same_lines "ipmi2 sees the event as ipmi1" n1ev n2ev recv
kcsmux-ipmi-probe -d /dev/ipmi2 -n 1 -r "04 26 01 08 00 00 00 55 00 00" \
	--allow-errors >/dev/null 2>&1
check "kcsmuxd still runs" kill -0 "$dpid"

say "3. an incoming IPMB command, to the node client that registered it"
check "node: register 0x32/0x05 on ipmi1" \
	listen n1cmd /dev/ipmi1 -r 0x32:0x05 -a "00 11"
kcsmux-ipmi-probe -d /dev/ipmi2 -n 1 -r "30 04" --allow-errors >/dev/null 2>&1
check "ipmi1's client got the command" finish n1cmd
sed 's/^/    /' /tmp/n1cmd.out
expect "from IPMB 0x40 on channel 0, netfn 0x32 cmd 0x05, data de ad" \
	"type=cmd addr=1/0/0x40/0 netfn=0x32 cmd=0x05 .* data=dead" /tmp/n1cmd.out
expect "its reply was taken" '^reply rc=0$' /tmp/n1cmd.out
# the listener closed: the relay dropped its registration; the kernel
# answers the next one itself (cc 0xC1, in the BMC's log)
kcsmux-ipmi-probe -d /dev/ipmi2 -n 1 -r "30 04" --allow-errors >/dev/null 2>&1
sleep 1
check "kcsmuxd still runs" kill -0 "$dpid"

say "5. leases (docs/leases.md): a fan lease, then a firmware update"
t5=$(date +%s)
# ipmi1 holds fan-oem: ipmi2's OEM command is refused cc 0xd5 at once and
# the log names the holder; its reads go on; released, the command goes
# to the BMC (ipmi_sim: cc 0xc1). (A lease's deadline: the firmware lease
# of 2 s below.)
run_to /tmp/lt1 kcsmuxctl lease take ipmi1 fan-oem 60
expect "kcsmuxctl lease take: ipmi1 holds fan-oem" '^ipmi1 fan-oem [0-9]+ kcsmuxctl$' /tmp/lt1
ipmitool -I open -d 2 raw 0x30 0x70 >/tmp/lr1 2>&1
expect "ipmi2's OEM command is refused cc 0xd5" 'rsp=0xd5' /tmp/lr1
run_to /tmp/lr2 ipmitool -I open -d 2 mc info
expect "... its reads go on" '^Firmware Revision +: 2\.15$' /tmp/lr2
expect "the log names the holder" \
	'node ipmi2: pid [0-9]+: \(netfn 0x30 cmd 0x70\) refused \(cc 0xd5\): node ipmi1 holds the fan-oem lease' \
	/tmp/k1.log
run_to /tmp/lt2 kcsmuxctl lease release ipmi1 fan-oem
ipmitool -I open -d 2 raw 0x30 0x70 >/tmp/lr3 2>&1
check "released, the command goes to the BMC" \
	sh -c '! grep -q "rsp=0xd5" /tmp/lr3 && grep -q "rsp=0xc1" /tmp/lr3'
# The firmware lease: ipmi1 sends LEASE_N OEM writes between markers 30 5b
# and 30 5c, with a Cold Reset after which the BMC is silent for 3 s (the
# proxy's --on 0x06:0x02=silence 3000) and polled back, while three agents
# poll ipmi2 and ipmi3 every 100 ms: each answered at once from the SEL
# mirror (stale) or cc 0xc0, none timing out (3 s); the BMC's log (smi.sh)
# shows nothing between the markers but ipmi1's requests. Afterwards the
# SEL reads as before, from a mirror read again.
LEASE_N=${LEASE_N:-1000}
run_to /tmp/sel-before ipmitool -I open -d 2 sel elist
rm -f /tmp/agents-stop
agent() {	# NAME DEV REQUEST: batches of 10 until /tmp/agents-stop
	: >"/tmp/$1.out"
	while [ ! -e /tmp/agents-stop ]; do
		kcsmux-ipmi-probe -d "$2" -n 10 -i 100000 --timeout 3000 -r "$3" \
			-k --allow-errors >>"/tmp/$1.out" 2>&1
	done
}
agent ag-sel /dev/ipmi2 "0a 43 00 00 00 00 00 ff" &
ag1=$!
agent ag-info /dev/ipmi2 "0a 40" &
ag2=$!
agent ag-sensor /dev/ipmi3 "04 2d 01" &
ag3=$!
sleep 1
run_to /tmp/lf1 kcsmuxctl lease take ipmi1 firmware 120
expect "ipmi1 holds the firmware lease" '^ipmi1 firmware [0-9]+ kcsmuxctl$' /tmp/lf1
sleep 0.3 # the agents' requests queued before it are answered
t0=$(date +%s)
kcsmux-ipmi-probe -d /dev/ipmi1 -n 1 -r "30 5b" --allow-errors >/dev/null 2>&1
run_to /tmp/seq kcsmux-ipmi-probe -d /dev/ipmi1 -n "$LEASE_N" -r "30 5d 01 02 03 04" \
	--timeout 5000 --total-only -k --allow-errors
expect "ipmi1's $LEASE_N writes answered, none timed out" \
	"^probe: .* n=$LEASE_N .* err_timeout=0 " /tmp/seq
run_to /tmp/cold kcsmux-ipmi-probe -d /dev/ipmi1 -n 1 -r "06 02" --timeout 10000 \
	-k --allow-errors
back=0
for i in $(seq 10); do
	kcsmux-ipmi-probe -d /dev/ipmi1 -n 1 -r "06 01" --timeout 6000 -k \
		>/tmp/poll 2>&1 && { back=$i; break; }
	sed 's/^/    poll: /' /tmp/poll
done
check "the holder polled the BMC back after its reset (poll $back)" test "$back" -gt 0
kcsmux-ipmi-probe -d /dev/ipmi1 -n 1 -r "30 5c" --allow-errors >/dev/null 2>&1
echo "    lease: sequence, reset and ride-through took $(($(date +%s) - t0)) s"
run_to /tmp/lf2 kcsmuxctl lease release ipmi1
expect "released" '^ipmi1: 1 released$' /tmp/lf2
sleep 1
touch /tmp/agents-stop
wait $ag1 $ag2 $ag3
for a in ag-sel ag-info ag-sensor; do
	sed 's/^/    /' "/tmp/$a.out" | head -n 3
	check "agent $a: every batch done, no request timed out" \
		sh -c "grep -q '^probe: ' /tmp/$a.out && ! grep '^probe: ' /tmp/$a.out | grep -qv ' err_timeout=0 '"
done
run_to /tmp/show2 kcsmuxctl show ipmi2
run_to /tmp/show3 kcsmuxctl show ipmi3
expect "ipmi2's SEL reads were answered from the mirror (stale)" '^lease_stale=[1-9]' /tmp/show2
expect "ipmi2's other reads refused cc 0xc0 at once" '^lease_busy=[1-9]' /tmp/show2
expect "ipmi3's sensor reads refused cc 0xc0 at once" '^lease_busy=[1-9]' /tmp/show3
expect "the log: the lease ended, caches read again" 'node ipmi1: firmware lease ended \(released\)' /tmp/k1.log
run_to /tmp/sel-after ipmitool -I open -d 2 sel elist
check "the SEL reads as before the update" cmp -s /tmp/sel-before /tmp/sel-after
run_to /tmp/show2b kcsmuxctl show ipmi2
expect "... from the mirror, read again" '^sel_mirror_state=valid$' /tmp/show2b
# a crashed flasher: the lease ends by itself at its deadline
run_to /tmp/lf3 kcsmuxctl lease take ipmi1 firmware 2
sleep 3
run_to /tmp/lf4 kcsmuxctl lease list
expect "the firmware lease ended at its deadline" '^no leases held$' /tmp/lf4
expect "... logged" 'node ipmi1: firmware lease ended \(deadline\)' /tmp/k1.log
run_to /tmp/mc5 ipmitool -I open -d 3 mc info
expect "ipmi3 is served again" '^Firmware Revision +: 2\.15$' /tmp/mc5
check "kcsmuxd still runs" kill -0 "$dpid"
echo "    part 5 took $(($(date +%s) - t5)) s"

say "4. ipmi_devintf loaded anyway"
check "modprobe ipmi_devintf" modprobe ipmi_devintf
for i in $(seq 50); do [ -c /dev/ipmi0 ] && break; sleep 0.1; done
check "/dev/ipmi0 is kcsraw's interface (sysfs)" \
	sh -c 'readlink /sys/class/ipmi/ipmi0/device | grep -q "/kcsraw\.0$"'
kcsmux-ipmi-listen -d /dev/ipmi1 -r 0x32:0x05 -t 3000 >/tmp/n1reg.out 2>&1 &
lpid=$!
sleep 0.5
if kcsmux-ipmi-listen -d /dev/ipmi0 -r 0x32:0x05 -t 100 >/tmp/kdup.out 2>&1; then
	fail "a kernel user registered 0x32/0x05 too"
else
	expect "the kernel holds the node's registration (EBUSY on /dev/ipmi0)" \
		"busy" /tmp/kdup.out
fi
kill "$lpid" 2>/dev/null
wait "$lpid" 2>/dev/null
run_to /tmp/st4 kcsmuxctl status
expect "kcsmuxctl status names the stock device" \
	"^stock device +/dev/ipmi0 \(ipmi_devintf\) on kcsraw's interface" /tmp/st4
expect "... and warns what it bypasses" \
	"warning: /dev/ipmi0 is a stock device .*access list, priority, rate limit" \
	/tmp/st4
run_to /tmp/mc4 ipmitool -I open -d 1 -t 0x72 -b 0 mc info
expect "bridging through the relay still works" \
	'^Firmware Revision +: 1\.03$' /tmp/mc4
check "kcsmuxd still runs" kill -0 "$dpid"

stop
check "no seccomp kill in the kernel's log" \
	sh -c '! dmesg | grep -q "comm=\"kcsmuxd\".*sig=31"'
no_kernel_warnings
summary
