# The kcsmux demo: kcsraw.ko owns the KCS interface, kcsmuxd exposes three
# nodes with different policies, and real clients use them at the same time
# against a BMC that answers in 200-2000 us: an admin's interactive
# ipmitool on ipmi1, a monitoring agent polling sensors with FreeIPMI on
# ipmi2 (cheap polling, rate-limited), and a bulk SEL reader on ipmi3
# (read-only access). At the end the daemon prints its per-node table.
. /guest/lib.sh

say "loading kcsraw.ko on $KCS1_PORT (irq $KCS1_IRQ) and cuse"
load_kcsraw ports="$KCS1_PORT" irqs="$KCS1_IRQ" || exit 1
modprobe cuse || exit 1
mkdir -p /etc/kcsmux
kcsmux_conf <<'CONF'

[node ipmi1]            ; the admin's interactive ipmitool
policy = interactive
mode = 0660

[node ipmi2]            ; a monitoring agent on a low-CPU node
policy = monitor
access = sensors

[node ipmi3]            ; bulk SEL export
policy = bulk
access = readonly
CONF
cat /etc/kcsmux/kcsmux.conf
kcsmuxd -n || exit 1
kcsmuxd -f 2>/tmp/kcsmuxd.log &
dpid=$!
for i in $(seq 50); do [ -c /dev/ipmi3 ] && break; sleep 0.1; done
ls -l /dev/ipmi1 /dev/ipmi2 /dev/ipmi3 /dev/kcsraw0

say "monitor (ipmi2): ipmi-sensors in a loop; bulk (ipmi3): sel list in a loop"
( for i in 1 2 3 4 5; do
	ipmi-sensors --driver-type=OPENIPMI --driver-device=/dev/ipmi2 >/tmp/mon.out 2>&1
done ) &
mon=$!
( for i in 1 2 3; do ipmitool -I open -d 3 sel list >/tmp/bulk.out 2>&1; done ) &
bulk=$!

say "admin (ipmi1): interactive ipmitool while the others run"
kcsmux-utime -- ipmitool -I open -d 1 mc info 2>&1 | grep -v IANA
kcsmux-utime -- ipmitool -I open -d 1 sdr 2>&1 | grep -v IANA | head -8
kcsmux-utime -- ipmitool -I open -d 1 chassis status 2>&1 | grep -v IANA
wait $mon $bulk
say "monitor's last ipmi-sensors (ipmi2):"
head -8 /tmp/mon.out
say "bulk's last sel list (ipmi3):"
head -5 /tmp/bulk.out
say "the readonly node refuses chassis power control (cc 0xd4):"
ipmitool -I open -d 3 chassis power cycle 2>&1 | grep -v IANA

say "kcsmuxd per-node table"
kill -USR1 $dpid
sleep 0.5
kill $dpid
wait $dpid
cat /tmp/kcsmuxd.log
