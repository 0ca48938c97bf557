#!/bin/bash
# vm.daemon-events: guest/daemon-events.sh with each KCS's delay proxy
# logging the requests its BMC gets, then, on the host, the replies the BMCs
# got to the two injected IPMB requests (netfn 0x32 cmd 0x05 from 0x40, seq
# 0 then 1): a Send Message (06 34) carrying the response (netfn 0x33).
# The first went to a registered client, whose reply is cc 00 data 11; the
# second to nobody, which the driver answers itself with cc 0xC1 (invalid
# command). kcsmuxd's (first KCS, proxy log 0) must be stock ipmi_si's
# (second KCS, proxy log 1), byte for byte.
#
#   tests/vm/events.sh [more run.sh options]
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/kcsmux-events.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ev=0102030405060708090a0b0c0d0e0f10
"$here/run.sh" --bmc extern --delay fixed:200 --second-kcs --irq2 on \
	--proxy-args "--on 0x30:0x03=inject-event,$ev --on 0x30:0x04=inject-cmd,0,0x40,0x32,0x05,0xde,0xad --log-requests $tmp/requests-%n.log" \
	"$@" "$here/guest/daemon-events.sh"
rc=$?
if [ "$rc" != 0 ]; then
	echo "events.sh: the guest failed (exit $rc)"
	exit "$rc"
fi

# replies FILE: the Send Messages carrying a response to 0x40's netfn 0x32
# cmd 0x05 (channel byte, rsSA 40, netfn 0x33 LUN 0, chk, rqSA 20, seq/LUN,
# cmd 05, cc, data..., chk)
replies() { grep -E '^06 34 [0-9a-f]{2} 40 cc [0-9a-f]{2} 20 [0-9a-f]{2} 05( |$)' "$1"; }
fails=0
check() {	# DESC CMD...
	local d=$1
	shift
	if "$@"; then echo "PASS: $d"; else echo "FAIL: $d"; fails=$((fails + 1)); fi
}
who() { [ "$1" = 0 ] && echo kcsmuxd || echo "stock ipmi_si"; }
for n in 0 1; do
	[ -s "$tmp/requests-$n.log" ] || { echo "events.sh: no request log from KCS $n"; exit 1; }
	replies "$tmp/requests-$n.log" >"$tmp/replies-$n"
	echo "events.sh: KCS $n ($(who $n)):" \
		"$(wc -l <"$tmp/requests-$n.log") requests reached the BMC; replies to the injected commands:"
	sed 's/^/    /' "$tmp/replies-$n"
done
# f n K FIELDS: those fields of reply line K (1-based) of KCS n's replies
f() { sed -n "$2p" "$tmp/replies-$1" | cut -d' ' -f"$3"; }
# seq_of n K: the rqSeq of that reply (rqSeq/rqLUN byte >> 2)
seq_of() { local b; b=$(f "$1" "$2" 8); echo $(( 0x${b:-ff} >> 2 )); }
for n in 1 0; do
	who=$(who $n)
	check "$who: two replies reached the BMC" test "$(wc -l <"$tmp/replies-$n")" = 2
	check "$who: the registered client's reply, seq 0: cc 00 data 11" \
		test "$(seq_of $n 1) $(f $n 1 10-11)" = "0 00 11"
	check "$who: nobody registered, seq 1: cc c1 (invalid command)" \
		test "$(seq_of $n 2) $(f $n 2 10)" = "1 c1"
done
check "kcsmuxd's replies are stock's, byte for byte" cmp -s "$tmp/replies-0" "$tmp/replies-1"
echo "events.sh: $fails failed"
[ "$fails" = 0 ]
