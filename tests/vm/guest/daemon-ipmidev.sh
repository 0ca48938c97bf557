# kcsmuxd on top of the stock driver (backend = ipmidev): for hosts that
# keep ipmi_si. The same nodes, access lists and scheduling; the kernel
# polls and bridges. Clients on the nodes must see what they see on the
# stock device itself.
. /guest/lib.sh

stock=$(load_stock "$KCS1_PORT")
check "stock ipmi_si on $KCS1_PORT ($stock)" test -c "$stock"
sn=${stock#/dev/ipmi}
check "modprobe cuse" modprobe cuse
mkdir -p /etc/kcsmux
cat >/etc/kcsmux/kcsmux.conf <<CONF
[global]
backend = ipmidev
device = $stock

[node ipmi5]
policy = interactive
[node ipmi6]
policy = monitor
access = sensors
CONF
kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
dpid=$!
for i in $(seq 50); do [ -c /dev/ipmi6 ] && break; sleep 0.1; done
check "nodes /dev/ipmi5 and /dev/ipmi6 exist" test -c /dev/ipmi6

# same NAME N ERE ARGS...: ipmitool ARGS on stock and on ipmiN: stock's
# answer is the known one (exit 0, a line matching ERE; docs/bmc.md), and
# the node's is the same. Two failures alike do not pass.
same() {
	_name=$1 _n=$2 _re=$3
	shift 3
	ipmitool -I open -d "$sn" "$@" >/tmp/stock.out 2>&1
	_src=$?
	if [ "$_src" != 0 ] || ! grep -Eq -- "$_re" /tmp/stock.out; then
		fail "$_name on stock: exit $_src, no line matching /$_re/ in:"
		sed 's/^/    | /' /tmp/stock.out | head -n 20
		return
	fi
	ipmitool -I open -d "$_n" "$@" >/tmp/node.out 2>&1
	_rc=$?
	if [ "$_rc" = 0 ] && cmp -s /tmp/stock.out /tmp/node.out; then
		pass "$_name on ipmi$_n matches stock"
	else
		fail "$_name on ipmi$_n (exit $_rc) differs from stock:"
		diff /tmp/stock.out /tmp/node.out | head -20
	fi
}
same "ipmitool mc info" 5 '^Firmware Revision +: 2\.15$' mc info
same "ipmitool sdr" 5 '^12V +\| 12\.06 Volts +\| ok$' sdr
same "ipmitool sel list" 5 '^ +1 \| ' sel list
same "ipmitool bridged mc info (-t 0x72 -b 0)" 5 '^Firmware Revision +: 1\.03$' \
	-t 0x72 -b 0 mc info
same "ipmitool sensor" 6 '^12V +\| 12\.060 +\| Volts +\| ok' sensor
# The stock driver underneath manages the BMC global enables (event buffer
# on, bit 0x04): a node reads what the stock device reads.
same "Get BMC Global Enables (raw 06 2f)" 5 '^ 0[4-7c-f]$' raw 0x06 0x2f
# A bridged request is one transaction the kernel holds until the far end
# answers or its retries run out (IPMB 0x90 never answers: seconds). It
# must not take the daemon's one slot on this backend: another node's Get
# Device ID is answered while it is still held (before, it waited).
kcsmux-ipmi-probe -d /dev/ipmi6 -t 0x90 -n 1 --timeout 60000 \
	--allow-errors -k >/tmp/silent 2>&1 &
spid=$!
sleep 0.5
run_to /tmp/prompt kcsmux-ipmi-probe -d /dev/ipmi5 -n 3 -k
expect "Get Device ID on ipmi5 while ipmi6's bridged request to silent 0x90 is held" \
	'^probe: .* ok=3 ' /tmp/prompt
check "the bridged request was still held then" test ! -s /tmp/silent
wait $spid
expect "the bridged request to 0x90 ends unanswered" '^probe: .* ok=0 ' /tmp/silent
run_to /tmp/deny ipmitool -I open -d 6 chassis power cycle
expect "sensors-only node refuses chassis control (0xd4)" 'Insufficient privilege' /tmp/deny
kill $dpid
wait $dpid
cat /tmp/kcsmuxd.log
summary
