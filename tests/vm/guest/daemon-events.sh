# Asynchronous traffic from the BMC, end to end: events and incoming IPMB
# commands. ipmi_sim cannot raise them on demand here, so the delay proxy
# plays the BMC's side of SMS_ATN (docs/bmc-proxy.md, "Injecting SMS_ATN
# traffic"): an OEM request 30 03 makes it queue an event, 30 04 an IPMB
# request 0x32/0x05 from 0x40. Each KCS has its own proxy with the same
# rules, so the same traffic reaches stock ipmi_si (second KCS) and kcsraw
# + kcsmuxd (first KCS): the clients of both must see the same messages.
#
# Run by tests/vm/events.sh, which adds to run.sh --bmc extern --delay
# fixed:200 --second-kcs --proxy-args "--on 0x30:0x03=inject-event,$EV --on
# 0x30:0x04=inject-cmd,0,0x40,0x32,0x05,0xde,0xad" (EV below) a request log
# per BMC, and checks there the replies the BMCs got to the injected commands.
. /guest/lib.sh

EV=0102030405060708090a0b0c0d0e0f10

stock=$(load_stock_irq "$KCS2_PORT" "$KCS2_IRQ")
check "stock ipmi_si on $KCS2_PORT irq $KCS2_IRQ ($stock)" test -c "$stock"
sn=${stock#/dev/ipmi}
kcsmux_setup
kcsmux_conf <<CONF

[node ipmi1]
events = yes
[node ipmi2]
events = yes
[node ipmi3]
events = no
CONF
kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
dpid=$!
for i in $(seq 50); do [ -c /dev/ipmi3 ] && break; sleep 0.1; done
check "nodes exist" test -c /dev/ipmi3

alive() { kill -0 "$1" 2>/dev/null; }
# trigger DEVNUM "NETFN CMD": a request that fires a proxy rule (ipmi_sim
# answers it with some error code; only the request matters). Not ipmitool:
# its open interface subscribes to events, and it would be a subscriber
# racing the late one below.
trigger() {
	kcsmux-ipmi-probe -d "$1" -n 1 -r "$2" --allow-errors >/dev/null 2>&1
	true
}
say "an event, delivered to every subscriber"
check "stock subscriber" listen sev "$stock" -e
check "node subscriber on ipmi1" listen n1ev /dev/ipmi1 -e
check "node subscriber on ipmi2" listen n2ev /dev/ipmi2 -e
trigger "$sn" "30 03"
trigger 1 "30 03"
check "stock subscriber got the event" finish sev
check "ipmi1 subscriber got the event" finish n1ev
check "ipmi2 subscriber got the event" finish n2ev
cat /tmp/sev.out /tmp/n1ev.out | sed 's/^/    /'
expect "the event's data is the injected record" \
	"type=event .* len=16 data=$EV" /tmp/n1ev.out
same_lines "ipmi1 sees the event as stock does" sev n1ev recv
same_lines "ipmi2 sees the event as stock does" sev n2ev recv
if kcsmux-ipmi-listen -d /dev/ipmi3 -e -t 100 >/tmp/n3.out 2>&1; then
	fail "SET_GETS_EVENTS on a node with events = no succeeded"
else
	expect "SET_GETS_EVENTS on events = no: EPERM" \
		"Operation not permitted" /tmp/n3.out
fi

say "an event the BMC raises by itself (ipmi_sim, no proxy rule)"
# Both drivers turned the BMC's event message buffer on (and, with the IRQ,
# its interrupts): Get BMC Global Enables reads the same through a node.
ge() { ipmitool -I open -d "$1" raw 0x06 0x2f 2>&1; }
ge "$sn" >/tmp/ge.stock
ge 1 >/tmp/ge.node
cat /tmp/ge.stock /tmp/ge.node | sed 's/^/    /'
expect "stock: event message buffer on (global enables 0x0f with the IRQ)" \
	'^ *0f *$' /tmp/ge.stock
check "a node reads the global enables stock reads" cmp -s /tmp/ge.stock /tmp/ge.node
# Set Sensor Thresholds: CPU Temp (0x01, reading 45) gets its upper
# non-critical threshold below the reading: ipmi_sim asserts the event,
# puts it in its event buffer and raises SMS_ATN; back to 85 deasserts.
for th in 28 55; do
	check "stock subscriber (UNC $th)" listen sth "$stock" -e
	check "node subscriber on ipmi1 (UNC $th)" listen n1th /dev/ipmi1 -e
	check "node subscriber on ipmi2 (UNC $th)" listen n2th /dev/ipmi2 -e
	trigger "$sn" "04 26 01 08 00 00 00 $th 00 00"
	trigger 1 "04 26 01 08 00 00 00 $th 00 00"
	check "stock subscriber got the BMC's event (UNC $th)" finish sth
	check "ipmi1 subscriber got it" finish n1th
	check "ipmi2 subscriber got it" finish n2th
	cat /tmp/sth.out /tmp/n1th.out | sed 's/^/    /'
	# record id, type 02, timestamp 0, generator 0x20 LUN 0, rev 04,
	# temperature 01, sensor 01, (de)assert 01/81, UNC going high 57,
	# reading 45 (2d), threshold
	expect "it is CPU Temp's UNC event, reading 45, threshold 0x$th" \
		"type=event .* len=16 data=[0-9a-f]{4}02000000002000040101(01|81)572d$th" \
		/tmp/n1th.out
	same_lines "ipmi1 sees the BMC's event as stock does (UNC $th)" sth n1th recv
	same_lines "ipmi2 sees the BMC's event as stock does (UNC $th)" sth n2th recv
done

say "global enables lost behind the drivers' back come back (as after a BMC reset)"
# While someone waits for events, both drivers check the enables every
# second and write them back (a BMC that reset itself has lost them).
kcsmux-ipmi-listen -d "$stock" -e -t 4000 >/dev/null 2>&1 &
lpid1=$!
kcsmux-ipmi-listen -d /dev/ipmi1 -e -t 4000 >/dev/null 2>&1 &
lpid2=$!
sleep 0.3
trigger "$sn" "06 2e 08"
trigger 1 "06 2e 08"
sleep 2.5
ge "$sn" >/tmp/ge.stock
ge 1 >/tmp/ge.node
cat /tmp/ge.stock /tmp/ge.node | sed 's/^/    /'
expect "stock set them back to 0x0f" '^ *0f *$' /tmp/ge.stock
expect "kcsmuxd set them back to 0x0f" '^ *0f *$' /tmp/ge.node
wait $lpid1 $lpid2

say "an event nobody listens to waits for the first subscriber"
trigger "$sn" "30 03"
trigger 1 "30 03"
sleep 2	# the drivers fetch it on SMS_ATN
check "stock: late subscriber" listen sbl "$stock" -e
check "node: late subscriber on ipmi2" listen n2bl /dev/ipmi2 -e
check "stock backlog delivered" finish sbl
check "node backlog delivered" finish n2bl
same_lines "the backlog event is the same on ipmi2 and stock" sbl n2bl recv

say "an incoming IPMB command, to the client that registered it"
check "stock: register 0x32/0x05" listen scmd "$stock" -r 0x32:0x05 -a "00 11"
check "node: register 0x32/0x05 on ipmi1" listen n1cmd /dev/ipmi1 -r 0x32:0x05 -a "00 11"
if kcsmux-ipmi-listen -d /dev/ipmi2 -r 0x32:0x05 -t 100 >/tmp/dup.out 2>&1; then
	fail "a second registration of 0x32/0x05 succeeded"
else
	expect "a second registration (another node): EBUSY" \
		"busy" /tmp/dup.out
fi
trigger "$sn" "30 04"
trigger 1 "30 04"
check "stock client got the command" finish scmd
check "ipmi1 client got the command" finish n1cmd
cat /tmp/scmd.out /tmp/n1cmd.out | sed 's/^/    /'
expect "the command came from IPMB 0x40 on channel 0, netfn 0x32 cmd 0x05, data de ad" \
	"type=cmd addr=1/0/0x40/0 netfn=0x32 cmd=0x05 .* data=dead" /tmp/n1cmd.out
same_lines "ipmi1 sees the command as stock does" scmd n1cmd recv
same_lines "the reply is accepted as on stock" scmd n1cmd reply

say "an incoming command nobody registered"
# Both drivers answer it to the BMC themselves, cc 0xC1 (invalid command),
# through Send Message; tests/vm/events.sh checks on the host, in the
# requests each BMC got, that kcsmuxd's answer is stock's.
trigger "$sn" "30 04"
trigger 1 "30 04"
sleep 1
check "ipmitool mc info on ipmi1 still works" ipmitool -I open -d 1 mc info
check "kcsmuxd is alive" alive "$dpid"

kill -USR1 "$dpid"
sleep 0.3
kill "$dpid"
wait "$dpid"
sed 's/^/    /' /tmp/kcsmuxd.log | tail -n 12
summary
