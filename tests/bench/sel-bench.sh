# The SEL benchmark (guest script; the host side is run-sel-bench.sh, the
# write-up docs/bench-sel.md): `ipmitool sel elist` and FreeIPMI's
# `ipmi-sel` over the test BMC's SEL (sel.txt's 16 entries and
# KCSMUX_BMC_SEL_EXTRA more) on stock ipmi_si (second KCS, its own BMC)
# and on a kcsmux node with the SEL mirror (first KCS), the BMCs answering
# in 5-12 ms (run.sh --delay uniform:5000-12000). One reader, then three
# at once; on the node cold (a fresh kcsmuxd: the mirror empty) and warm.
#
# Each run is framed by markers at its BMC (OEM 30:NN, answered cc 0xc1 by
# ipmi_sim; through /dev/kcsraw0 for the node's BMC, through the stock
# node for stock's), so the host counts the transactions each run put on
# the BMC from the delay proxies' request logs. One line per run in
# /out/results.txt: row= tool= readers= wall_ms= marker= lines= same=
# (same: every reader's output identical to stock's single run).
. /guest/lib.sh

RES=/out/results.txt
mkdir -p /out
: >$RES
stock=$(load_stock "$KCS2_PORT")
[ -c "$stock" ] || fail "no stock node"
sn=${stock#/dev/ipmi}
kcsmux_setup
kcsmux_conf <<'CONF'
[node ipmi1]
policy = interactive
sdr_cache = yes
CONF
start() {
	kcsmuxd -f >>/tmp/kcsmuxd.log 2>&1 &
	dpid=$!
	for _i in $(seq 100); do [ -c /dev/ipmi1 ] && break; sleep 0.1; done
}
stop() { kill "$dpid"; wait "$dpid" 2>/dev/null; }
ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
mk=16 # marker numbers: 0x10 on
# mark DEV: the next marker at DEV's BMC (kcsraw: the node's)
mark() {
	mk=$((mk + 1))
	if [ "$1" = kcsraw ]; then
		kcsmux-kcsraw raw 30 "$(printf %02x $mk)" >/dev/null 2>&1
	else
		kcsmux-sdr-walk raw "$stock" 30 "$(printf %02x $mk)" >/dev/null 2>&1
	fi
}
# tool_run TOOL DEVNUM OUT: one reader
tool_run() {
	case $1 in
	elist) ipmitool -I open -d "$2" sel elist >"$3" 2>&1 ;;
	ipmi-sel) ipmi-sel --driver-type=OPENIPMI --driver-device=/dev/ipmi"$2" \
		--sdr-cache-directory=/tmp/fsdr.$2 >"$3" 2>&1 ;;
	esac
}
# run ROW TOOL DEVNUM READERS MARKDEV REF
run() {
	mark "$5"
	_m=$mk
	_t=$(ms)
	_pids=""
	for _i in $(seq "$4"); do
		tool_run "$2" "$3" "/tmp/o.$_i" &
		_pids="$_pids $!"
	done
	# shellcheck disable=SC2086 # the readers only, not kcsmuxd
	wait $_pids
	_w=$(($(ms) - _t))
	mark "$5"
	_same=yes
	for _i in $(seq "$4"); do
		cmp -s "/tmp/o.$_i" "$6" && continue
		_same=no # kept for the report: what differed
		diff -u "$6" "/tmp/o.$_i" | head -n 200 >"/out/diff.$1.$2.$4.$_i" || true
		# a short output is a failure's message: keep it whole
		[ "$(wc -l <"/tmp/o.$_i")" -gt 20 ] || cp "/tmp/o.$_i" "/out/out.$1.$2.$4.$_i"
	done
	echo "row=$1 tool=$2 readers=$4 wall_ms=$_w marker=$_m lines=$(wc -l </tmp/o.1) same=$_same" | tee -a $RES
}
n=$(ipmitool -I open -d "$sn" sel info 2>/dev/null | sed -n 's/^Entries *: *//p')
echo "entries=$n" >>$RES
# references, and FreeIPMI's own SDR caches (one per BMC) filled first:
# ipmi-sensors reads the SDRs, not the SEL, so the node's mirror stays
# cold
mkdir -p "/tmp/fsdr.$sn" /tmp/fsdr.1
tool_run ipmi-sel "$sn" /dev/null
tool_run elist "$sn" /tmp/ref.elist
tool_run ipmi-sel "$sn" /tmp/ref.ipmi-sel
head -n 2 /tmp/ref.ipmi-sel
start
ipmi-sensors --driver-type=OPENIPMI --driver-device=/dev/ipmi1 \
	--sdr-cache-directory=/tmp/fsdr.1 >/dev/null 2>&1
stop
for tool in elist ipmi-sel; do
	run stock "$tool" "$sn" 1 stock /tmp/ref.$tool
	run stock "$tool" "$sn" 3 stock /tmp/ref.$tool
done
for tool in elist ipmi-sel; do
	start # cold: a fresh kcsmuxd, its SDR cache and SEL mirror empty
	run node-cold "$tool" 1 1 kcsraw /tmp/ref.$tool
	run node-warm "$tool" 1 1 kcsraw /tmp/ref.$tool
	run node-warm "$tool" 1 3 kcsraw /tmp/ref.$tool
	stop
	start
	run node-cold "$tool" 1 3 kcsraw /tmp/ref.$tool
	kcsmuxctl show ipmi1 | grep '^sel_' >/out/show.$tool
	stop
done
# the SELs at the end: an entry the BMCs logged by themselves would show
echo "sel_info_stock=$(ipmitool -I open -d "$sn" sel info 2>/dev/null |
	sed -n 's/^Entries *: *//p')" >>$RES
echo "sel_info_node_raw=$(kcsmux-kcsraw raw 0a 40 2>&1 | tr '\n' ' ')" >>$RES
cp /tmp/kcsmuxd.log /out/
summary
