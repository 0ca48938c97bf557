# coalesce = yes (docs/operating.md, "Coalescing sensor reads"): two clients
# reading the same sensor at once on a coalescing node, then on a plain
# node, then one after the other on a node with coalesce_window_ms. Run by tests/vm/coalesce.sh, which counts in the delay proxy's log
# the Get Sensor Reading requests (04:2d) that reached the BMC between the
# markers this script sends straight through /dev/kcsraw0 (OEM 30:6x):
#   61-62 the coalescing node: the requests sent less the ones coalesced
#   62-63 the plain node: every request sent
#   63-64 the window node (coalesce_window_ms): one client's reads, then
#         another's after it: the first's only, the second's all answered
#         with the first's last answer
# Checked here: every read answered (the probes fail on an error or a
# missing or duplicated answer), the answers are the sensor's reading, the
# coalescing node counted followers, the plain node none; /out/counts has
# the numbers for the host.
. /guest/lib.sh

N=${COALESCE_N:-40}
mark() { kcsmux-kcsraw raw 30 "$1" >/dev/null 2>&1; }
# kv NODE KEY: a value from kcsmuxctl show
kv() { kcsmuxctl show "$1" | sed -n "s/^$2=//p"; }

kcsmux_setup
kcsmux_conf <<'CONF'
[node co]
coalesce = yes

[node plain]

[node win]
coalesce = yes
coalesce_window_ms = 60000
CONF
check "kcsmuxd -n accepts the config" kcsmuxd -n
kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
dpid=$!
for i in $(seq 50); do
	[ -c /dev/co ] && [ -c /dev/plain ] && [ -c /dev/win ] && break
	sleep 0.1
done
check "nodes exist" test -c /dev/co -a -c /dev/plain -a -c /dev/win
check "coalesce=yes on co" sh -c 'kcsmuxctl show co | grep -qx coalesce=yes'
check "coalesce=no on plain" sh -c 'kcsmuxctl show plain | grep -qx coalesce=no'
# the sensor's reading as one client alone gets it (sensor 1: 45 = 0x2d)
kcsmux-ipmi-probe -d /dev/co -n 1 -r "04 2d 01" -v -k >/tmp/one 2>&1
cat /tmp/one
check "Get Sensor Reading 1 on co: cc 0, reading 0x2d" grep -q ' data: 00 2d' /tmp/one
c0=$(kv co coalesced)

# two_clients NODE: two probes, N reads of sensor 1 each, at once; every
# answer printed (-v), each must be cc 0 and the reading
two_clients() {
	kcsmux-ipmi-probe -d "/dev/$1" -n "$N" -r "04 2d 01" -v -k >/tmp/$1.a 2>&1 &
	_a=$!
	kcsmux-ipmi-probe -d "/dev/$1" -n "$N" -r "04 2d 01" -v -k >/tmp/$1.b 2>&1
	_rb=$?
	wait $_a
	_ra=$?
	grep '^probe:' /tmp/$1.a /tmp/$1.b
	check "$1: both clients' $N reads answered" test "$_ra" = 0 -a "$_rb" = 0
	_ok=$(cat /tmp/$1.a /tmp/$1.b | grep -c ' data: 00 2d')
	check "$1: all $((2 * N)) answers are the reading ($_ok)" test "$_ok" = $((2 * N))
}

say "two clients, the same sensor, at once: the coalescing node"
mark 61
two_clients co
mark 62
say "the same on the plain node"
two_clients plain
mark 63
say "one client, then another after it: the window node"
kcsmux-ipmi-probe -d /dev/win -n "$N" -r "04 2d 01" -v -k >/tmp/win.a 2>&1
_ra=$?
kcsmux-ipmi-probe -d /dev/win -n "$N" -r "04 2d 01" -v -k >/tmp/win.b 2>&1
_rb=$?
mark 64
grep '^probe:' /tmp/win.a /tmp/win.b
check "win: both clients' $N reads answered" test "$_ra" = 0 -a "$_rb" = 0
_ok=$(cat /tmp/win.a /tmp/win.b | grep -c ' data: 00 2d')
check "win: all $((2 * N)) answers are the reading ($_ok)" test "$_ok" = $((2 * N))
recent=$(kv win coalesced_recent)
check "win: the second client's $N reads took the first's answer ($recent)" \
	test "$recent" = "$N"
check "co: no window, none from a finished read ($(kv co coalesced_recent))" \
	test "$(kv co coalesced_recent)" = 0
co=$(( $(kv co coalesced) - c0 ))
check "co coalesced reads ($co of $((2 * N)))" test "$co" -gt 0
check "plain coalesced none ($(kv plain coalesced))" test "$(kv plain coalesced)" = 0
mkdir -p /out
printf 'sent=%d\ncoalesced=%d\nwin_sent=%d\nwin_recent=%d\n' \
	"$((2 * N))" "$co" "$((2 * N))" "$recent" >/out/counts
kill $dpid
wait $dpid
summary
