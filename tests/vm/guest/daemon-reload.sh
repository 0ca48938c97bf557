# SIGHUP: a changed policy reaches the module for the next request without
# dropping an open client; added nodes appear, removed ones go away (their
# clients get ENOTCONN); a bad file is rejected whole and the old one serves.
. /guest/lib.sh

kcsmux_setup ""
conf() {
	cat >/etc/kcsmux/kcsmux.conf
}
conf <<'CONF'
[global]
backend = kcsraw
device = /dev/kcsraw0
[node ipmi1]
policy = interactive
max_busy_us = unlimited
[node ipmi2]
policy = bulk
CONF
kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
dpid=$!
for i in $(seq 50); do [ -c /dev/ipmi2 ] && break; sleep 0.1; done
check "nodes ipmi1 and ipmi2 exist" test -c /dev/ipmi1 -a -c /dev/ipmi2
spin() { cat /sys/class/misc/kcsraw0/spin_ns; }

# A client that keeps ipmi1 open across the reload.
kcsmux-ipmi-probe -d /dev/ipmi1 -n 150 -i 20000 -k >/tmp/probe.out 2>&1 &
ppid=$!
# ... and one on ipmi2, which is about to be removed.
kcsmux-ipmi-probe -d /dev/ipmi2 -n 400 -i 20000 -k --allow-errors >/tmp/gone.out 2>&1 &
gpid=$!
sleep 1
s0=$(spin)
sleep 1
s1=$(spin)
num "kcsraw0 spin_ns" "$s0" "$s1" &&
	check "spinning policy spins (spin_ns grew by $((s1 - s0)))" test $((s1 - s0)) -gt 0

conf <<'CONF'
[global]
backend = kcsraw
device = /dev/kcsraw0
[node ipmi1]
policy = interactive
max_busy_us = 0
poll_us = 100
mode = 0666
[node ipmi3]
policy = monitor
CONF
kill -HUP $dpid
sleep 1
s2=$(spin)
sleep 1.5
s3=$(spin)
num "kcsraw0 spin_ns after the reload" "$s2" "$s3" &&
	check "after reload ipmi1 no longer spins (spin_ns +$((s3 - s2)))" test "$s3" = "$s2"
check "ipmi3 was added" test -c /dev/ipmi3
check "ipmi2 was removed" test ! -e /dev/ipmi2
ls -l /dev/ipmi1 >/tmp/ls1
expect "ipmi1 took mode 0666" '^crw-rw-rw-' /tmp/ls1
wait $ppid
rc=$?
cat /tmp/probe.out
check "the client on ipmi1 kept working through the reload" test $rc = 0
wait $gpid
cat /tmp/gone.out
# The kernel's FUSE layer answers: the call in flight ECONNABORTED, later
# calls ENOTCONN, a wait in poll() POLLERR - whichever it was doing.
expect "the client of the removed node gets ECONNABORTED, ENOTCONN or POLLERR" \
	'Software caused connection abort|Transport endpoint is not connected|revents 0x8 ' /tmp/gone.out

# A bad file: rejected whole, the running nodes stay.
conf <<'CONF'
[global]
backend = kcsraw
device = /dev/kcsraw0
[node ipmi1]
policy = interactive
max_busy_us = lots
[node ipmi4]
CONF
kill -HUP $dpid
sleep 0.5
expect "the bad file is rejected with its line" 'kcsmux.conf:6: .*max_busy_us' /tmp/kcsmuxd.log
check "no node was added" test ! -e /dev/ipmi4
check "ipmi3 still serves" kcsmux-ipmi-probe -d /dev/ipmi3 -n 5 -k
kill $dpid
wait $dpid
cat /tmp/kcsmuxd.log
summary
