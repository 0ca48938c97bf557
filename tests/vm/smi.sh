#!/bin/bash
# vm.kmod-smi*: kcsraw.ko as an interface of ipmi_msghandler,
# with each KCS's delay proxy logging the requests its BMC gets; then, on
# the host, what the kernel's users sent through kcsraw (first KCS, log 0).
#
#   tests/vm/smi.sh main  [run.sh options]  guest/kmod-smi.sh: devintf,
#       the differential against stock, ipmi_watchdog, unload, smi=0.
#   tests/vm/smi.sh wdt [run.sh options]  guest/kmod-smi-wdt.sh with
#       run.sh --reboot and acpi=off: ipmi_watchdog's heartbeats stop, the
#       BMC resets the guest, the second boot sees the BMC's expiration
#       flag and loads ipmi_poweroff; the guest's final poweroff -f must
#       reach the BMC as Chassis Control power down (00 02 00).
#   tests/vm/smi.sh async [run.sh options]  guest/kmod-smi-async.sh: the
#       kernel's message flags machine (smi_async=1), with the proxy
#       injecting an event (30 03) and an IPMB command (30 04); on the
#       host, the replies to the two injected commands that reached the
#       BMC: the registered user's (cc 00 data 11), then the handler's
#       own 0xC1 for the one nobody registered.
#   tests/vm/smi.sh panic [run.sh options]  guest/kmod-smi-panic.sh:
#       ipmi_msghandler.panic_op=event and ipmi_watchdog running, then a
#       sysrq-c panic: the BMC must get the watchdog's panic timeout (Set
#       Watchdog Timer, countdown 255 s = f6 09) and the panic events
#       (Platform Event, netfn 04 cmd 02, generator 0x41).
#   tests/vm/smi.sh daemon [run.sh options]  guest/daemon-smi.sh: kcsmuxd
#       in SMI mode; the delay proxy injects an IPMB request (0x32/0x05
#       from 0x40) when a node sends OEM 30 04, twice: the BMC must get
#       the registered node client's reply (seq 0: cc 00 data 11) and
#       the kernel's own cc 0xC1 once nobody holds it (seq 1). And a
#       firmware lease (docs/leases.md): between the holder's markers (OEM
#       30 5b, 30 5c) the BMC gets only its writes (30 5d), its Cold Reset
#       (after which the proxy keeps the BMC silent for 3 s) and its polls.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-}
shift || true
tmp=$(mktemp -d /tmp/kcsmux-smi.XXXXXX)
fails=0 rc=0
# kept when anything failed, for its serial log and request logs
trap '[ "$fails$rc" = 00 ] && rm -rf "$tmp" || echo "smi.sh: logs kept in $tmp"' EXIT
check() {	# DESC CMD...
	local d=$1
	shift
	if "$@"; then echo "PASS: $d"; else echo "FAIL: $d"; fails=$((fails + 1)); fi
}
log0=$tmp/requests-0.log
# replies WHO: the Send Messages that reached kcsraw's BMC carrying a
# response to the injected 0x40 netfn 0x32 cmd 0x05 (as tests/vm/events.sh:
# channel, rsSA 40, netfn 0x33, chk, rqSA 20, seq/LUN, cmd 05, cc,
# data..., chk) into $tmp/replies: two, WHO's reply first (cc 00 data 11),
# then the message handler's own cc c1 for the one nobody registered.
replies() {
	grep -E '^06 34 [0-9a-f]{2} 40 cc [0-9a-f]{2} 20 [0-9a-f]{2} 05( |$)' \
		"$log0" >"$tmp/replies"
	sed 's/^/    reply: /' "$tmp/replies"
	check "two replies to the injected commands reached the BMC" \
		test "$(wc -l <"$tmp/replies")" = 2
	check "$1's: cc 00 data 11" \
		test "$(sed -n 1p "$tmp/replies" | cut -d' ' -f10-11)" = "00 11"
	check "nobody registered: the handler's cc c1" \
		test "$(sed -n 2p "$tmp/replies" | cut -d' ' -f10)" = c1
}
case "$mode" in
main)
	"$here/run.sh" --bmc extern --delay fixed:200 --second-kcs \
		--proxy-args "--log-requests $tmp/requests-%n.log" \
		--log "$tmp/serial.log" "$@" "$here/guest/kmod-smi.sh"
	rc=$?
	[ "$rc" = 0 ] || { echo "smi.sh: the guest failed (exit $rc)"; exit "$rc"; }
	rc=0
	[ -s "$log0" ] || { echo "smi.sh: no request log from KCS 0"; exit 1; }
	echo "smi.sh: $(wc -l <"$log0") requests reached kcsraw's BMC, $(wc -l <"$tmp/requests-1.log") stock's"
	check "ipmi_watchdog's Set Watchdog Timer reached kcsraw's BMC" \
		grep -q '^06 24 ' "$log0"
	check "its heartbeats (Reset Watchdog Timer) too: $(grep -c '^06 22' "$log0")" \
		test "$(grep -c '^06 22' "$log0")" -ge 3
	check "no watchdog request reached stock's BMC" \
		sh -c "! grep -q '^06 2[24] ' '$tmp/requests-1.log'"
	;;
async)
	ev=0102030405060708090a0b0c0d0e0f10
	"$here/run.sh" --bmc extern --delay fixed:200 \
		--proxy-args "--on 0x30:0x03=inject-event,$ev --on 0x30:0x04=inject-cmd,0,0x40,0x32,0x05,0xde,0xad --log-requests $tmp/requests-%n.log" \
		--log "$tmp/serial.log" "$@" "$here/guest/kmod-smi-async.sh"
	rc=$?
	[ "$rc" = 0 ] || { echo "smi.sh: the guest failed (exit $rc)"; exit "$rc"; }
	[ -s "$log0" ] || { echo "smi.sh: no request log from KCS 0"; exit 1; }
	replies "the registered user"
	check "the kernel sent Get Message Flags (06 31)" grep -q '^06 31' "$log0"
	;;
panic)
	"$here/run.sh" --bmc extern --delay fixed:200 \
		--proxy-args "--log-requests $tmp/requests-%n.log" \
		--log "$tmp/serial.log" "$@" "$here/guest/kmod-smi-panic.sh"
	rc=$?
	# The guest panics: it reports no exit status (run.sh: 125).
	prc=$rc rc=0
	[ -s "$log0" ] || { echo "smi.sh: no request log from KCS 0"; exit 1; }
	check "the guest script reached the panic" \
		grep -q 'KCSMUX-SMI-PANIC-NOW' "$tmp/serial.log"
	check "the kernel panicked (sysrq-c)" \
		grep -q 'Kernel panic' "$tmp/serial.log"
	check "no 'kcsmux-guest' exit after the panic (run.sh $prc)" \
		sh -c "! grep -q '^KCSMUX-EXIT=' '$tmp/serial.log'"
	check "the watchdog's panic timeout: Set Watchdog Timer 255 s (f6 09)" \
		grep -Eq '^06 24 ([0-9a-f]{2} ){4}f6 09$' "$log0"
	check "panic events: Platform Event from the kernel (04 02 41 ...)" \
		grep -q '^04 02 41 ' "$log0"
	grep -E '^(06 24|04 02)' "$log0" | tail -n 6 | sed 's/^/    /'
	;;
wdt)
	"$here/run.sh" --bmc extern --delay fixed:200 --reboot --append acpi=off \
		--proxy-args "--log-requests $tmp/requests-%n.log" \
		--log "$tmp/serial.log" "$@" "$here/guest/kmod-smi-wdt.sh"
	rc=$?
	[ "$rc" = 0 ] || { echo "smi.sh: the guest failed (exit $rc)"; exit "$rc"; }
	check "first boot armed the watchdog and stopped its heartbeats" \
		grep -q KCSMUX-SMI-WDT-STOP-HEARTBEATS "$tmp/serial.log"
	check "the BMC reset the guest: a second boot saw the expiration" \
		grep -q KCSMUX-SMI-WDT-SECOND-BOOT "$tmp/serial.log"
	check "heartbeats reached the BMC before they stopped" \
		grep -q '^06 22' "$log0"
	check "the second boot's script ended before the power-off" \
		grep -q KCSMUX-SMI-POWEROFF-NEXT "$tmp/serial.log"
	check "poweroff -f reached the BMC as Chassis Control power down" \
		sh -c "tail -n 3 '$log0' | grep -q '^00 02 00'"
	tail -n 3 "$log0" | sed 's/^/    last: /'
	;;
daemon)
	"$here/run.sh" --bmc extern --delay fixed:200 \
		--proxy-args "--on 0x30:0x04=inject-cmd,0,0x40,0x32,0x05,0xde,0xad --on 0x06:0x02=silence,3000 --log-requests $tmp/requests-%n.log" \
		--log "$tmp/serial.log" "$@" "$here/guest/daemon-smi.sh"
	rc=$?
	[ "$rc" = 0 ] || { echo "smi.sh: the guest failed (exit $rc)"; exit "$rc"; }
	[ -s "$log0" ] || { echo "smi.sh: no request log from KCS 0"; exit 1; }
	replies "the node client that registered it"
	# rqSeq (seq/LUN byte >> 2): the injected commands' own, 0 then 1
	s1=$(sed -n 1p "$tmp/replies" | cut -d' ' -f8)
	s2=$(sed -n 2p "$tmp/replies" | cut -d' ' -f8)
	check "the replies carry the commands' seq 0 and 1" \
		test "$(( 0x${s1:-ff} >> 2 )) $(( 0x${s2:-ff} >> 2 ))" = "0 1"
	# the firmware lease: between ipmi1's markers 30 5b and 30 5c, only
	# its writes (30 5d), its Cold Reset and its polls (06 01), and the
	# kernel's own requests beneath the daemon (SMI mode: the message
	# handler's request_events, an enables check 06 2f and an event buffer
	# read 06 35, every second, and its retransmissions of part 1's
	# bridged requests, 06 34); none of the agents' (0a 43, 0a 40, 04 2d),
	# which do reach the BMC after the end marker
	awk '
	tolower($1 " " $2) == "30 5b" { on = 1; next }
	tolower($1 " " $2) == "30 5c" { on = 0; done = 1; next }
	{ c = tolower($1 " " $2); ag = c == "0a 43" || c == "0a 40" || c == "04 2d" }
	done && ag { after++ }
	!on { next }
	{ n[c]++; if (ag) agents++; else if (c == "06 2f" || c == "06 35" || c == "06 34") kernel++; else if (c != "30 5d" && c != "06 02" && c != "06 01") other++ }
	END {
		printf "    between the markers: %d writes, %d resets, %d polls, %d of the kernel, %d of the agents, %d others; %d of the agents after\n", n["30 5d"], n["06 02"], n["06 01"], kernel, agents, other, after
		exit !(done && n["30 5d"] >= 1000 && n["06 02"] == 1 && agents + other == 0 && after > 0)
	}' "$log0" >"$tmp/lease"
	lrc=$?
	cat "$tmp/lease"
	check "the firmware update's sequence was never interleaved at the BMC" \
		test "$lrc" = 0
	;;
*)
	echo "usage: smi.sh main|async|panic|wdt|daemon [run.sh options]" >&2
	exit 2
	;;
esac
echo "smi.sh: $fails failed"
[ "$fails" = 0 ]
