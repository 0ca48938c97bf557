# kcsmuxd under valgrind's memcheck: a plain (non-sanitized) kcsmuxd with
# three nodes, driven by real clients (ipmitool, the stress tool with
# misuse, a client killed mid-request, one that never reads), kcsmuxctl,
# the metrics endpoint, two SIGHUP reloads (one adds and removes nodes
# while clients hold them open, one is rejected), and SIGTERM while a
# client still has requests queued. Passes only if memcheck reports no
# error and nothing definitely or indirectly lost.
#
# Run with: run.sh --bmc extern --valgrind daemon-valgrind.sh
# (--valgrind copies the host's memcheck into the guest; the daemon run is
# build/fused/kcsmuxd-plain, built when SANITIZE=ON, else kcsmuxd itself).
# Memcheck on TCG is slow (~100 ms of guest time per request): the
# workload is a few hundred requests, ~80 s in all.
. /guest/lib.sh

VG=/usr/bin/valgrind
VGLOG=/tmp/vg.log
LOG=/tmp/kcsmuxd.log
CONF=/etc/kcsmux/kcsmux.conf
PORT=9623

# step TITLE: a section, with the seconds since the daemon started
step() { say "$* (t=$((($(kcsmux-utime --now) - t0) / 1000000)) s)"; }
# field NAME FILE: value of " NAME=" in the first key=value line that has it
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$2" | head -n 1; }
alive() { [ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
# wait_for SECONDS TEST...: poll TEST every 0.2 s
wait_for() {
	_n=$(($1 * 5))
	shift
	while [ $_n -gt 0 ]; do
		"$@" && return 0
		sleep 0.2
		_n=$((_n - 1))
	done
	return 1
}

# The daemon valgrind can run: memcheck and ASan cannot share a process.
D=/guest/bin/kcsmuxd-plain
[ -x $D ] || D=/guest/bin/kcsmuxd
if grep -q 'libasan\.so' $D; then
	fail "$D is an ASan build and there is no kcsmuxd-plain (configure with -DSANITIZE=ON to get both)"
	summary
	exit 1
fi
run_to /tmp/vgv $VG --version
check "valgrind runs in the guest" test $? = 0
kcsmux_setup

# conf <NODES: the config, [global] as below, then the node sections
conf() {
	kcsmux_conf <<GLOBAL
max_outstanding = 16
metrics_listen = 127.0.0.1:$PORT
metrics_textfile = /tmp/kcsmux.prom
$(cat)
GLOBAL
}
conf <<CONF

[node ipmi1]
policy = interactive
mode = 0666
[node ipmi2]
policy = monitor
[node ipmi3]
policy = bulk
access = readonly
rate = 5
burst = 2
CONF
check "kcsmuxd -n accepts the config" $D -n

say "kcsmuxd ($D) under memcheck"
# --track-fds=no: the CUSE fds are the daemon's business; what counts is
# memory errors and leaks. Everything valgrind says goes to $VGLOG.
t0=$(kcsmux-utime --now)
$VG --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect \
	--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
	--track-fds=no --vgdb=no --num-callers=30 --log-file=$VGLOG \
	$D -f >$LOG 2>&1 &
dpid=$!
nodes_up() { [ -S /run/kcsmux/control.sock ] &&
	[ "$(grep -c 'node ipmi[123] ready' $LOG)" = 3 ]; }
if ! wait_for 60 nodes_up; then
	fail "nodes and control socket exist under valgrind"
	sed 's/^/    | /' $VGLOG $LOG | head -n 60
	kill $dpid 2>/dev/null
	summary
	exit 1
fi
pass "nodes and control socket exist under valgrind"
echo "    up after $((($(kcsmux-utime --now) - t0) / 1000)) ms"

step "real clients"
ipmi() { ipmitool -I open "$@"; }
SHOW_LINES=6
run_to /tmp/mc ipmi -d 1 mc info
expect "ipmitool mc info on ipmi1" '^Device ID +: ' /tmp/mc
run_to /tmp/sdr ipmi -d 2 sdr list
expect "ipmitool sdr list on ipmi2" '^12V +\| ' /tmp/sdr
run_to /tmp/sel ipmi -d 3 sel list
check "ipmitool sel list on ipmi3 (readonly, rate 5/s)" test $? = 0
run_to /tmp/bmc ipmi -d 1 -t 0x72 -b 0 mc info
expect "bridged mc info (IPMB 0x72) on ipmi1" '^Device ID +: ' /tmp/bmc
run_to /tmp/deny ipmi -d 3 raw 0 2 0
expect "readonly ipmi3 refuses chassis control (cc 0xd4)" 'rsp=0xd4' /tmp/deny

step "stress with misuse, a killed client, a client that never reads"
# 8 clients x 30 requests (Get Device ID, bridged IPMB Get Device ID; Get
# SDR is ipmitool's above) on ipmi1 and ipmi2, every 4th client of a node
# misusing the ABI, plus one aborter per node that leaves with 8 requests
# unanswered
run_to /tmp/st kcsmux-ipmi-stress -c 8 -n 30 -w 2 -t 30 -m id,ipmb --misuse \
	-k /dev/ipmi1 /dev/ipmi2
expect "stress: every request answered once, every misuse refused" \
	'dev=total .* misuse_clients=2 misuse_calls=[1-9][0-9]* misuse_wrong=0 .*result=pass' /tmp/st
# sends up to 16 without reading, killed in the middle
kcsmux-ipmi-probe -d /dev/ipmi1 -n 100 --timeout 0 --allow-errors >/dev/null 2>&1 &
k=$!
sleep 0.5
kill -9 $k
wait $k 2>/dev/null
# a client that never reads: 16 accepted, the rest EBUSY
run_to /tmp/nr kcsmux-ipmi-probe -d /dev/ipmi1 -n 24 --timeout 0 -k --allow-errors
check "never-reading client: EBUSY after max_outstanding ($(field err_errno /tmp/nr) of 24 refused)" \
	test "$(field err_errno /tmp/nr)" -ge 8

step "kcsmuxctl and metrics"
run_to /tmp/ctl.list kcsmuxctl list
expect "kcsmuxctl list" '^ipmi3 +bulk\+? ' /tmp/ctl.list
run_to /tmp/ctl.show kcsmuxctl show ipmi1
expect "kcsmuxctl show ipmi1" '^completed=[1-9]' /tmp/ctl.show
kcsmuxctl stats -j >/tmp/ctl.json
check "kcsmuxctl stats -j" test $? = 0 -a -s /tmp/ctl.json
run_to /tmp/ctl.set kcsmuxctl set ipmi2 poll_us=300 cpu_budget=2%
check "kcsmuxctl set ipmi2 poll_us=300 cpu_budget=2%" test $? = 0
run_to /tmp/ctl.bad kcsmuxctl set ipmi2 poll_us=lots
check "kcsmuxctl set with a bad value fails" test $? != 0
run_to /tmp/ctl.watch kcsmuxctl watch -n 1 -c 2
check "kcsmuxctl watch -c 2" test $? = 0
timeout 30 wget -q -O /tmp/metrics "http://127.0.0.1:$PORT/metrics"
expect "GET /metrics" '^kcsmux_' /tmp/metrics
kill -USR1 $dpid

step "SIGHUP: ipmi1 changes policy, ipmi2 goes (a client holds it), ipmi4 comes"
# the client on ipmi2 sends slowly and never reads: it holds answers and
# requests when its node is removed
kcsmux-ipmi-probe -d /dev/ipmi2 -n 40 -i 100000 --timeout 0 --allow-errors -k \
	>/tmp/gone.out 2>&1 &
gp=$!
sleep 1
conf <<CONF

[node ipmi1]
policy = bulk
mode = 0666
[node ipmi3]
policy = bulk
access = readonly
rate = 5
burst = 2
[node ipmi4]
policy = normal
CONF
kill -HUP $dpid
check "ipmi4 appears, ipmi2 goes" wait_for 30 eval '[ -c /dev/ipmi4 ] && [ ! -e /dev/ipmi2 ]'
wait $gp
run_to /tmp/n4 kcsmux-ipmi-probe -d /dev/ipmi4 -n 20 -k
check "20/20 on the new ipmi4" test "$(field ok /tmp/n4)" = 20
run_to /tmp/n1 ipmi -d 1 mc info
expect "ipmi1 still serves after its policy changed" '^Device ID +: ' /tmp/n1
sed -i 's/^policy = normal$/policy = sloppy/' $CONF
kill -HUP $dpid
check "a bad file is rejected" wait_for 20 grep -q 'reload rejected' $LOG
run_to /tmp/ctl.reload kcsmuxctl reload
check "kcsmuxctl reload of the bad file fails" test $? != 0
check "ipmi4 still there" test -c /dev/ipmi4

step "SIGTERM with requests still queued on ipmi3"
# one client with 16 requests outstanding, most of them waiting for
# tokens: ipmi3 first down to a request every 5 s, so they stay queued
# however slowly a loaded guest submits them and kcsmuxctl looks (at 5/s
# they drained before a slow show saw them)
run_to /tmp/ctl.rate kcsmuxctl set ipmi3 rate=0.2 burst=1
check "kcsmuxctl set ipmi3 rate=0.2 burst=1" test $? = 0
kcsmux-ipmi-stress -c 1 -n 30 -w 16 -t 120 -m id -k /dev/ipmi3 >/tmp/w.out 2>&1 &
wp=$!
wait_for 45 eval '[ "$(kcsmuxctl show ipmi3 | sed -n "s/^queue=//p")" -gt 4 ]'
kcsmuxctl show ipmi3 | grep -E '^(queue|clients)=' | sed 's/^/    /'
check "ipmi3 has an open client with requests queued" \
	test "$(kcsmuxctl show ipmi3 | sed -n 's/^queue=//p')" -gt 4
t1=$(kcsmux-utime --now)
kill -TERM $dpid
wait $dpid
vrc=$?
echo "    kcsmuxd (valgrind) exited $vrc after $((($(kcsmux-utime --now) - t1) / 1000)) ms; ran $((($(kcsmux-utime --now) - t0) / 1000000)) s"
wait $wp 2>/dev/null

say "memcheck's verdict"
grep -E '(HEAP|LEAK|ERROR) SUMMARY|in use at exit|total heap usage|definitely lost|indirectly lost|possibly lost|still reachable|suppressed|All heap blocks' $VGLOG |
	sed 's/^==[0-9]*== */    /'
check "kcsmuxd under valgrind exits 0 (not 99: no memcheck error or leak)" test "$vrc" = 0
expect "ERROR SUMMARY: 0 errors" 'ERROR SUMMARY: 0 errors from 0 contexts' $VGLOG
if grep -q 'All heap blocks were freed' $VGLOG; then
	pass "no definitely/indirectly lost bytes (all heap blocks freed)"
else
	expect "no definitely lost bytes" 'definitely lost: 0 bytes in 0 blocks' $VGLOG
	expect "no indirectly lost bytes" 'indirectly lost: 0 bytes in 0 blocks' $VGLOG
fi
if ! grep -q 'ERROR SUMMARY: 0 errors' $VGLOG; then
	echo "--- valgrind log"
	sed 's/^==[0-9]*== //' $VGLOG | head -n 200
fi
echo "--- kcsmuxd log (last lines)"
tail -n 25 $LOG
dmesg | grep -E 'WARNING:|BUG:|Oops' && fail "kernel warnings in dmesg"
summary
