# The kernel's lane of kcsraw.ko (smi=1) while a monitoring node
# floods: the latency of a watchdog heartbeat (Reset Watchdog Timer, 06 22)
# through ipmi_msghandler (/dev/ipmi0 of ipmi_devintf: the same lane as
# ipmi_watchdog's heartbeats) against the same request through a second
# kcsmuxd node, idle and with 8 clients x 8 outstanding SDR reads on the
# monitoring node. One boot; prints a table (docs/bench-smi.md, "The
# kernel's lane").
#
#   tests/vm/run.sh --mitigations --bmc extern --delay fixed:2000 --timeout 400 \
#       tests/bench/smi-bench.sh [--env SMI_BENCH_N=200]
. /guest/lib.sh

n=${SMI_BENCH_N:-200}
check "insmod kcsraw smi=1" load_kcsraw smi=1 ports="$KCS1_PORT" irqs="$KCS1_IRQ"
check "modprobe ipmi_devintf cuse" modprobe ipmi_devintf
modprobe cuse
mkdir -p /etc/kcsmux
kcsmux_conf <<'CONF'

[node ipmi5]
policy = monitor
mode = 0666

[node ipmi6]
policy = interactive
mode = 0666
CONF
kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
for _i in $(seq 50); do [ -c /dev/ipmi6 ] && break; sleep 0.1; done
check "nodes and /dev/ipmi0" test -c /dev/ipmi0 -a -c /dev/ipmi5 -a -c /dev/ipmi6
# The BMC's watchdog set up (action none: nothing happens on expiry), so
# that Reset Watchdog Timer answers cc 00.
check "Set Watchdog Timer (no action)" \
	ipmitool -I open -d 0 raw 0x06 0x24 0x04 0x00 0x00 0x00 0x58 0x02

# probe DEV: n heartbeats, 20 ms apart; prints "p50 p99 max" in us
probe() {
	kcsmux-ipmi-probe -d "$1" -n "$n" -w 5 -i 20000 -r "06 22" -k >/tmp/p.out 2>&1
	sed -n 's/.* p50_us=\([0-9]*\) .* p99_us=\([0-9]*\) max_us=\([0-9]*\).*/\1 \2 \3/p' /tmp/p.out
}
flood_start() {
	kcsmux-ipmi-stress -c 8 -w 8 -m sdr --duration 600 /dev/ipmi5 >/tmp/flood.out 2>&1 &
	fpid=$!
	sleep 3
}
flood_stop() {
	kill -TERM "$fpid" 2>/dev/null
	wait "$fpid" 2>/dev/null
}
row() {	# LABEL DEV FLOOD
	[ "$3" = 1 ] && flood_start
	set -- "$1" "$2" "$3" $(probe "$2")
	[ "$3" = 1 ] && flood_stop
	printf '| %s | %s | %s | %s |\n' "$1" "${4:-?}" "${5:-?}" "${6:-?}"
	[ -n "${5:-}" ] || fail "$1: no result"
}
cat /sys/class/misc/kcsraw0/smi_policy
echo "| heartbeat (Reset Watchdog Timer, $n, 20 ms apart) | p50 µs | p99 µs | max µs |"
echo "|---|---|---|---|"
row "kernel lane (/dev/ipmi0), idle" /dev/ipmi0 0
row "node ipmi6 (interactive), idle" /dev/ipmi6 0
row "kernel lane (/dev/ipmi0), monitor node flooding" /dev/ipmi0 1
row "node ipmi6 (interactive), monitor node flooding" /dev/ipmi6 1
cat /sys/class/misc/kcsraw0/smi
pass "bench done"
kill -TERM %1 2>/dev/null
summary
