# The BMC as the oracle of the access rules (docs/security.md, "Hostile
# clients"): the randomized hostile client (kcsmux-ipmi-hostile fuzz: every
# address type and channel, LUN bits, broadcast, response netfns, Send
# Message nested at every depth, tunnels, truncated and padded frames,
# SETTIME retries) on four nodes of different rules, one node at a time
# between markers. The delay proxy logs every request the BMC receives; the
# host then checks each against the rules of the node of its phase
# (tests/vm/oracle.sh, kcsmux-oracle-check). This script only drives.
#
# Run with: tests/vm/oracle.sh [ORACLE_COUNT=N]   (default 1000 per node)
. /guest/lib.sh

ORACLE_COUNT=${ORACLE_COUNT:-1000}
ORACLE_SEED=${ORACLE_SEED:-$(date +%s)}
NODES="o-deny o-sens o-ro o-oem"
LOG=/tmp/kcsmuxd.log

kcsmux_setup
# The deny lines keep the guest alive (no resets, no watchdog, no power
# control) while the fuzz runs what the rest of the rules allow.
kcsmux_conf <<'CONF'
[node o-mark]
[node o-deny]
access = all
deny = chassis:02, app:02-03, app:22, app:24
[node o-sens]
access = sensors
allow = app
deny = app:02-03, app:22, app:24
luns = 0,2
[node o-ro]
access = readonly
[node o-oem]
access = readonly
allow = 0x30:0x00-0x7f
CONF
mkdir -p /out
cp /etc/kcsmux/kcsmux.conf /out/kcsmux.conf
kcsmuxd -f >$LOG 2>&1 &
dpid=$!
# the five nodes come up within seconds; 60 s only bounds a hang
for _i in $(seq 600); do
	[ "$(grep -c 'node o-[a-z]* ready' $LOG)" = 5 ] && break
	sleep 0.1
done
check "kcsmuxd started: five nodes" test "$(grep -c 'node o-[a-z]* ready' $LOG)" = 5

# kcsmuxd has no open file and no request in flight at the backend
drained() {
	for _i in $(seq 600); do
		st=$(kcsmuxctl status -j)
		echo "$st" | grep -qE '"clients": 0,?$' &&
			echo "$st" | grep -qE '"inflight": 0,?$' && return 0
		sleep 0.1
	done
	echo "$st" | grep -E '"(clients|inflight)"'
	return 1
}

say "hostile client: $ORACLE_COUNT requests per node (ORACLE_SEED=$ORACLE_SEED)"
i=0
tried=0
for n in $NODES; do
	i=$((i + 1))
	kcsmux-ipmi-hostile mark /dev/o-mark $n >/dev/null
	check "marker $n" test $? = 0
	t0=$(date +%s)
	kcsmux-ipmi-hostile fuzz /dev/$n $((ORACLE_SEED + i)) $ORACLE_COUNT \
		>/tmp/fz.$n 2>&1
	rc=$?
	sed 's/^/    /' /tmp/fz.$n
	check "fuzz on $n (exit $rc, $(($(date +%s) - t0)) s)" test $rc = 0
	# the end marker goes once nothing of this node can still reach the
	# BMC: its file closed (queued requests cancelled) and nothing in
	# flight (the last ones answered or given up)
	check "$n drained" drained
	kcsmux-ipmi-hostile mark /dev/o-mark - >/dev/null
	check "marker end of $n" test $? = 0
	tried=$((tried + $(sed -n 's/.* tried=\([0-9]*\) .*/\1/p' /tmp/fz.$n)))
done
echo "requests tried: $tried"
echo "denied: $(for n in $NODES; do printf '%s=%s ' $n "$(kcsmuxctl show $n | sed -n 's/^denied=//p')"; done)"
check "kcsmuxd survived" kill -0 $dpid
kill $dpid
wait $dpid
check "kcsmuxd exits 0 on SIGTERM" test $? = 0
grep -qE 'Sanitizer|runtime error' $LOG && fail "sanitizer report in the kcsmuxd log"
summary
