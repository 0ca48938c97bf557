# A BMC that keeps "receive message available" up with nothing behind it
# (docs/reliability.md section 7): the delay proxy queues an incoming
# command on OEM request 30 05 (SMS_ATN up, Get Message Flags answered 01)
# but answers every Get Message with cc 0x80 itself (--answer 0x06:0x33=80),
# so the item is never taken and SMS_ATN stays up, as ipmi_sim did after a
# long run. kcsmuxd must bound its flags / Get Message loop (core/atn.c):
# a few transactions a second at most, one warning, clients still served.
# Stock ipmi_si loops here (the behaviour bounded), so it is not run.
#
# Run with: run.sh --bmc extern --delay fixed:200 --proxy-args
#   "--answer 0x06:0x33=80 --on 0x30:0x05=inject-cmd,0,0x40,0x32,0x05"
. /guest/lib.sh

SYS=/sys/class/misc/kcsraw0
tx() { cat $SYS/transactions; }
kcsmux_setup
kcsmux_conf <<CONF

[node ipmi1]
policy = interactive
CONF
kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
dpid=$!
for i in $(seq 50); do [ -c /dev/ipmi1 ] && break; sleep 0.1; done
check "node ipmi1 exists" test -c /dev/ipmi1
check "before: 50 requests on ipmi1" kcsmux-ipmi-probe -d /dev/ipmi1 -n 50 -k

say "the BMC's flag stuck: SMS_ATN up, Get Message empty"
kcsmux-ipmi-probe -d /dev/ipmi1 -n 1 -r "30 05" --allow-errors >/dev/null 2>&1
sleep 1
t0=$(tx)
sleep 5
t1=$(tx)
# Unbounded, the loop runs at the BMC's pace (two transactions every few
# ms here: hundreds a second); bounded, one flags + Get Message pair per
# 1 s pause at most, ~10 in 5 s. The bound below is 4 times that.
num "kcsraw0 transactions" "$t0" "$t1" && {
	echo "    transactions while idle with the flag stuck: $((t1 - t0)) in 5 s"
	check "at most 40 transactions in 5 s with nobody asking ($((t1 - t0)))" \
		test $((t1 - t0)) -le 40
}
run_to /tmp/during kcsmux-ipmi-probe -d /dev/ipmi1 -n 200 -k
expect "clients are served meanwhile: 200 of 200" ' ok=200 err=0 ' /tmp/during
grep -c 'atn: the BMC keeps flag' /tmp/kcsmuxd.log >/tmp/nwarn
expect "one warning, naming Get Message and cc 0x80" \
	'atn: the BMC keeps flag 0x1 up but answers Get Message with cc 0x80' /tmp/kcsmuxd.log
check "logged once ($(cat /tmp/nwarn))" test "$(cat /tmp/nwarn)" = 1
check "kcsmuxd is alive" kill -0 "$dpid"
kill "$dpid"
wait "$dpid"
sed 's/^/    /' /tmp/kcsmuxd.log | tail -n 8
summary
