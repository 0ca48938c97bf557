# Hostile clients against the daemon's boundaries (docs/
# security.md "Hostile clients"): per-node IPMB addresses, command
# registration bounds, a file's and a uid's share of a node's queue, and the
# randomized hostile client on nodes with different rules (the daemon must
# survive it; it gives up and reopens when the node says busy).
#
# Run with: run.sh --bmc extern --delay fixed:200
#           --proxy-args "--hold-on 0x30:0x01 --hold-for 3000" daemon-hostile.sh
. /guest/lib.sh

FUZZ_COUNT=${FUZZ_COUNT:-400}
FUZZ_SEED=${FUZZ_SEED:-$(date +%s)}
LOG=/tmp/kcsmuxd.log

kcsmux_setup
kcsmux_conf <<'CONF'
[node h-all]
mode = 0666
[node h-ro]
access = readonly
[node h-share]
queue = 8
max_clients = 4
mode = 0666
; a deny list, and what keeps the guest alive under fuzzing: no
; Cold/Warm Reset, no watchdog
[node h-deny]
access = all
deny = chassis:02, app:02-03, app:22, app:24
[node h-sens]
access = sensors
allow = app
[node h-cmds]
access = readonly
commands = yes
CONF
check "kcsmuxd -n accepts the config" kcsmuxd -n
kcsmuxd -f >$LOG 2>&1 &
dpid=$!
for _i in $(seq 100); do
	[ "$(grep -c 'node h-[a-z]* ready' $LOG)" = 6 ] && break
	sleep 0.1
done
check "kcsmuxd started: six nodes" test "$(grep -c 'node h-[a-z]* ready' $LOG)" = 6

# hostile ARGS...: run the tool, show its lines, a check per run
hostile() {
	kcsmux-ipmi-hostile "$@" >/tmp/h.out 2>&1
	_rc=$?
	sed 's/^/    /' /tmp/h.out
	check "kcsmux-ipmi-hostile $*" test $_rc = 0
}

say "node names that are other devices' are refused"
ln -sf /dev/null /dev/h-link
cp /etc/kcsmux/kcsmux.conf /tmp/good.conf
for name in null stdout h-link; do
	printf '[global]\nbackend = kcsraw\ndevice = /dev/kcsraw0\n[node %s]\n' \
		$name >/tmp/bad.conf
	kcsmuxd -n --live -c /tmp/bad.conf >/tmp/n.out 2>&1
	rc=$?
	sed 's/^/    /' /tmp/n.out
	check "kcsmuxd -n refuses [node $name] (exit $rc)" \
		eval "[ $rc != 0 ] && grep -q '/dev/$name already exists' /tmp/n.out"
done

say "SET_MY_ADDRESS/LUN/CHANNEL_* are per node"
hostile addr /dev/h-ro /dev/h-all

say "command registrations: bounded, only where the node allows them"
hostile reg /dev/h-all
hostile reg /dev/h-cmds
hostile reg-denied /dev/h-ro
hostile reg-denied /dev/h-deny

say "a file's and a uid's share of a node's queue (queue = 8)"
# the BMC holds every answer for 3 s after 30 01 (sent on another node):
# h-share's requests all stay queued meanwhile
kcsmux-ipmi-probe -d /dev/h-all -r "0x30 0x01" -n 1 --timeout 10000 \
	--allow-errors >/dev/null 2>&1 &
hp=$!
sleep 0.5
hostile share /dev/h-share 8 65534
wait $hp

say "a uid's share of a node's open files (max_clients = 4)"
hostile opens /dev/h-share 4 65534

say "a reload that takes a user's access closes that user's open file"
rm -f /tmp/reloaded
su -s /bin/sh nobody -c "kcsmux-ipmi-hostile revoked /dev/h-share /tmp/reloaded" \
	>/tmp/rv.out 2>&1 &
rp=$!
sleep 1
sed -i '/^\[node h-share\]/,/^\[/ s/^mode = 0666/mode = 0600/' /etc/kcsmux/kcsmux.conf
kcsmuxctl reload >/tmp/rl.out 2>&1
check "kcsmuxctl reload (h-share: mode 0666 -> 0600)" test $? = 0
touch /tmp/reloaded
wait $rp
rc=$?
sed 's/^/    /' /tmp/rv.out
check "nobody's file of h-share lost its access" test $rc = 0
grep 'lost access' $LOG | sed 's/^/    /'
ls -l /dev/h-share | sed 's/^/    /'
check "/dev/h-share is 0600 now" eval "ls -l /dev/h-share | grep -q '^crw------- '"

say "randomized hostile client: $FUZZ_COUNT requests per node (FUZZ_SEED=$FUZZ_SEED)"
i=0
for n in h-deny h-sens h-ro; do
	i=$((i + 1))
	t0=$(date +%s)
	kcsmux-ipmi-hostile fuzz /dev/$n $((FUZZ_SEED + i)) $FUZZ_COUNT \
		>/tmp/fz.$n 2>&1
	rc=$?
	cat /tmp/fz.$n | sed 's/^/    /'
	check "fuzz on $n ran (exit $rc, $(($(date +%s) - t0)) s)" test $rc = 0
done
check "kcsmuxd survived" kill -0 $dpid
tried=0
for n in h-deny h-sens h-ro; do
	tried=$((tried + $(sed -n 's/.* tried=\([0-9]*\) .*/\1/p' /tmp/fz.$n)))
done
sleep 1
left=""
for n in h-deny h-sens h-ro; do
	left="$left $n:$(kcsmuxctl show $n | sed -n 's/^clients=//p')"
done
check "no file left open on the fuzzed nodes:$left" \
	test "$left" = " h-deny:0 h-sens:0 h-ro:0"
echo "    requests tried: $tried"
echo "    denied counts: $(for n in h-deny h-sens h-ro; do printf '%s=%s ' $n "$(kcsmuxctl show $n | sed -n 's/^denied=//p')"; done)"
kill $dpid
wait $dpid
check "kcsmuxd exits 0 on SIGTERM" test $? = 0
grep -qE 'Sanitizer|runtime error' $LOG && fail "sanitizer report in the kcsmuxd log"
grep -v 'denied (cc 0xd4)' $LOG | tail -n 15
summary
