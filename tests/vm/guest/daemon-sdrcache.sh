# The SDR/FRU cache (sdr_cache = yes; docs/sdrcache.md),
# against ipmi_sim, with stock ipmi_si on the second KCS (an identical BMC)
# as the reference in the same boot. Run by tests/vm/sdrcache.sh, which
# also counts, in the delay proxy's log of what reached the first BMC,
# the requests between the markers this script sends straight through
# /dev/kcsraw0 (OEM 30:5x, answered cc 0xc1 by ipmi_sim):
#   51-52 first pass (the cache fills)   52-53 second pass: no Get SDR or
#   Read FRU Data may reach the BMC       53-54 list on an uncached node
#   54-55 list on the caching node: none.   56-57 Get Device SDR Info, each
#   form once (00 and 01 reach the BMC)   57-58 again: none with data may.
# Checked here: every record x offset x count (partial reads, the last
# record's next id 0xffff, ids 0/0xffff/absent, offsets past the end) and
# FRU reads answered as stock answers them, before and after the fill; two
# open files reading in lockstep with their own reservations see no 0xc5
# (stock does); a node's access rules still refuse; a write through another
# node drops the cache; a record added and one deleted at the
# BMC behind the daemon's back (straight through /dev/kcsraw0) show up to
# the next client (a Reserve revalidates) and after sdr_cache_revalidate_ms;
# ipmitool's and FreeIPMI's views as stock's; the counters; Get Device SDR
# Info without data and with 00 and 01 as stock answers, from memory the
# second time.
. /guest/lib.sh

W=kcsmux-sdr-walk
mark() { kcsmux-kcsraw raw 30 "$1" >/dev/null 2>&1; }
# kv NODE KEY: a value from kcsmuxctl show
kv() { kcsmuxctl show "$1" | sed -n "s/^$2=//p"; }

stock=$(load_stock "$KCS2_PORT")
check "stock ipmi_si on $KCS2_PORT ($stock)" test -c "$stock"
sn=${stock#/dev/ipmi}
kcsmux_setup

kcsmux_conf <<'CONF'
sdr_cache_revalidate_ms = 1000

[node ipmi1]
sdr_cache = yes

[node ipmi2]
sdr_cache = yes
access = monitoring

[node ipmi3]
sel_mirror = no

[node ipmi4]
sdr_cache = yes
deny = storage:23, storage:11
CONF
check "kcsmuxd -n accepts the config" kcsmuxd -n
kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
for i in $(seq 50); do
	[ -c /dev/ipmi1 ] && [ -c /dev/ipmi4 ] && break
	sleep 0.1
done
check "nodes exist" test -c /dev/ipmi1 -a -c /dev/ipmi4
kcsmuxctl show ipmi3 >/tmp/show3
expect "ipmi3 has no cache" '^sdr_cache=no$' /tmp/show3

say "every record, offset and count (main and device SDRs), and FRU reads, as stock answers"
t0=$(date +%s)
mark 51
run_to /tmp/cmp1 $W compare /dev/ipmi1 "$stock" 3
check "first pass (fills the cache): identical to stock" \
	grep -Eq ' differ 0$' /tmp/cmp1
mark 52
run_to /tmp/cmp2 $W compare /dev/ipmi1 "$stock" 3
check "second pass (from memory): identical to stock" \
	grep -Eq ' differ 0$' /tmp/cmp2
mark 53
$W list /dev/ipmi3 >/tmp/l3
mark 54
$W list /dev/ipmi1 >/tmp/l1
mark 55
echo "passes took $(($(date +%s) - t0)) s"
check "list through the cache = list through an uncached node" \
	cmp /tmp/l1 /tmp/l3
kcsmuxctl show ipmi1 | grep '^sdr_' | tee /tmp/show1
expect "cache valid" '^sdr_cache_state=valid$' /tmp/show1
expect "device SDRs cached" '^sdr_cache_device_state=valid$' /tmp/show1
expect "hits counted" '^sdr_cache_hits=[1-9][0-9]{3,}$' /tmp/show1
expect "one fill of each (main, device SDRs)" '^sdr_cache_fills=2$' /tmp/show1

say "two clients in lockstep, each reserving per record"
run_to /tmp/lk0 $W lockstep "$stock" 1
expect "stock: they cancel each other (cc 0xc5)" 'c5 [1-9]' /tmp/lk0
run_to /tmp/lk1 $W lockstep /dev/ipmi1 2
expect "node: never 0xc5" ' c5 0$' /tmp/lk1

say "clients' views: ipmitool, FreeIPMI"
ipmitool -I open -d "$sn" sdr elist >/tmp/e_stock 2>&1
ipmitool -I open -d 2 sdr elist >/tmp/e_node 2>&1
check "ipmitool sdr elist on ipmi2 (monitoring) as stock" \
	cmp /tmp/e_stock /tmp/e_node
ipmitool -I open -d "$sn" fru print 0 >/tmp/f_stock 2>&1
ipmitool -I open -d 1 fru print 0 >/tmp/f_node 2>&1
check "ipmitool fru print 0 on ipmi1 as stock" cmp /tmp/f_stock /tmp/f_node
diff /tmp/f_stock /tmp/f_node | head -10
sed 's/^/    /' /tmp/f_node | head -4

# each without FreeIPMI's own SDR cache (~/.freeipmi), as agents scrape
rm -rf "$HOME/.freeipmi"
ipmi-sensors --driver-type=OPENIPMI --driver-device="$stock" >/tmp/s_stock 2>&1
rm -rf "$HOME/.freeipmi"
ipmi-sensors --driver-type=OPENIPMI --driver-device=/dev/ipmi2 >/tmp/s_node 2>&1
check "FreeIPMI ipmi-sensors on ipmi2 as stock" cmp /tmp/s_stock /tmp/s_node
diff /tmp/s_stock /tmp/s_node | head -10

say "access rules before the cache"
run_to /tmp/deny $W raw /dev/ipmi4 0a 23 00 00 00 00 00 05
expect "ipmi4 denies Get SDR (cc 0xd4)" '^d4$' /tmp/deny
run_to /tmp/deny2 $W raw /dev/ipmi4 0a 11 00 00 00 08
expect "ipmi4 denies Read FRU Data (cc 0xd4)" '^d4$' /tmp/deny2
run_to /tmp/ok4 $W raw /dev/ipmi4 0a 20
expect "ipmi4 answers Get SDR Repository Info" '^00 51 ' /tmp/ok4

say "a write through another node drops the cache"
inv=$(kv ipmi1 sdr_cache_invalidations)
# ipmi_sim's Add SDR takes byte 5 as the length (6 + that many bytes)
REC="00 00 51 c0 05 04 57 01 00 aa"
run_to /tmp/add3 $W raw /dev/ipmi3 0a 24 $REC
run_to /tmp/adds $W raw "$stock" 0a 24 $REC
check "Add SDR through ipmi3 and on stock: the same answer" \
	cmp /tmp/add3 /tmp/adds
inv2=$(kv ipmi1 sdr_cache_invalidations)
check "invalidated ($inv -> $inv2)" test "$inv2" -gt "$inv"
$W list /dev/ipmi1 >/tmp/l1b
$W list "$stock" >/tmp/lsb
check "the new record through the cache, as on stock" cmp /tmp/l1b /tmp/lsb
expect "the new record is there" ' 57 01 00 aa$' /tmp/l1b

say "changes at the BMC behind the daemon's back (/dev/kcsraw0)"
REC2="00 00 51 c0 05 04 57 02 00 bb"
kcsmux-kcsraw raw 0a 24 $REC2 >/tmp/add0 2>&1
expect "Add SDR straight to the BMC" '^data: 00 ' /tmp/add0
$W raw "$stock" 0a 24 $REC2 >/dev/null
# the next client's Reserve revalidates: at once
$W list /dev/ipmi1 >/tmp/l1c
$W list "$stock" >/tmp/lsc
check "the next client sees the added record, as on stock" \
	cmp /tmp/l1c /tmp/lsc
expect "the added record is there" ' 57 02 00 bb$' /tmp/l1c
# ipmi_sim takes Delete SDR's record id from its answer buffer, which
# still holds the previous answer: after Get SDR Repository Info, the
# record count, the id of the record added last. Whichever it deletes, its
# answer names it.
kcsmux-kcsraw raw 0a 20 >/dev/null 2>&1
kcsmux-kcsraw raw 0a 26 00 00 16 00 >/tmp/del 2>&1
expect "Delete SDR straight to the BMC" '^data: 00 ' /tmp/del
gone=$(sed -n 's/^data: 00 \(..\) \(..\).*/\2\1/p' /tmp/del)
echo "the BMC deleted record $gone"
$W raw /dev/ipmi1 0a 20 >/tmp/before
echo "right after, without a Reserve (may be the old answer): $(cat /tmp/before)"
sleep 1.5
$W raw /dev/ipmi1 0a 20 >/tmp/i1
$W raw /dev/ipmi3 0a 20 >/tmp/i3
check "after the revalidation interval, Get SDR Repository Info as the BMC's" \
	cmp /tmp/i1 /tmp/i3
sed 's/^/    /' /tmp/i1
$W list /dev/ipmi1 >/tmp/l1d
$W list /dev/ipmi3 >/tmp/l3d
check "the records through the cache are the BMC's" cmp /tmp/l1d /tmp/l3d
check "one record less" test "$(wc -l </tmp/l1d)" -eq "$(($(wc -l </tmp/l1c) - 1))"
check "record $gone gone" test -n "$gone" -a -z "$(grep "^$gone " /tmp/l1d)"
kcsmuxctl show ipmi1 | grep '^sdr_' | tee /tmp/show2
expect "revalidations counted" '^sdr_cache_revalidations=[1-9]' /tmp/show2
expect "refilled" '^sdr_cache_fills=[4-9]$' /tmp/show2
expect "no cacheable read of the node went to the BMC (misses)" '^sdr_cache_misses=0$' /tmp/show2

say "Get Device SDR Info (04:20): no data, 00, 01, as stock answers; the second time from memory"
ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
t04=$(ms)
# the writes above dropped the device copy: a device SDR read fills it
$W raw /dev/ipmi1 04 21 00 00 00 00 00 05 >/dev/null
m0=$(kv ipmi1 sdr_cache_misses)
# di ROUND: each form on ipmi1 and on stock, compared
di() {
	for f in "" 00 01; do
		$W raw /dev/ipmi1 04 20 $f >/tmp/di_node
		$W raw "$stock" 04 20 $f >/tmp/di_stock
		check "04:20 ${f:-(no data)}, $1: as stock ($(cat /tmp/di_node))" \
			cmp /tmp/di_node /tmp/di_stock
	done
}
mark 56
di first
h0=$(kv ipmi1 sdr_cache_hits)
m1=$(kv ipmi1 sdr_cache_misses)
mark 57
di second
mark 58
h1=$(kv ipmi1 sdr_cache_hits)
check "first round: the forms 00 and 01 went to the BMC (misses $m0 -> $m1)" \
	test "$((m1 - m0))" -eq 2
check "second round: all three answered from memory (hits $h0 -> $h1)" \
	test "$((h1 - h0))" -eq 3
echo "the 04:20 checks took $(($(ms) - t04)) ms"

say "the SEL from the mirror (sel_mirror, on by default; ipmi3 has it off)"
# The BMCs hold sel.txt's entries and KCSMUX_BMC_SEL_EXTRA more (sdrcache.sh
# starts them with 1000). Markers 59-5f: the host counts the Get SEL
# Entry, SEL Info and Reserve SEL that reached the first BMC per phase.
sel_n=$(ipmitool -I open -d "$sn" sel info 2>/dev/null | sed -n 's/^Entries *: *//p')
echo "the SEL holds ${sel_n:-?} entries"
# selcmp NAME A B: identical outputs, or the first differences
selcmp() {
	if cmp -s "$2" "$3"; then
		pass "$1 ($(wc -l <"$2") lines)"
	else
		fail "$1"
		diff "$2" "$3" | head -10
	fi
}
ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
ipmitool -I open -d "$sn" sel elist >/tmp/sel_stock 2>&1
mark 59
t=$(ms)
# three at once: they share the fill, and their other requests (Get
# Device ID, the SDR reads) alternate with it instead of waiting for it
pids=""
for i in 1 2 3; do
	ipmitool -I open -d 1 sel elist >/tmp/sel_cold$i 2>&1 &
	pids="$pids $!"
done
# shellcheck disable=SC2086 # the readers only, not kcsmuxd
wait $pids
echo "ipmitool sel elist on ipmi1, cold, three at once: $(($(ms) - t)) ms"
mark 5a
t=$(ms)
ipmitool -I open -d 1 sel elist >/tmp/sel_warm 2>&1
echo "ipmitool sel elist on ipmi1, warm: $(($(ms) - t)) ms"
mark 5b
for i in 1 2 3; do
	selcmp "ipmitool sel elist, cold, three at once (they fill the mirror): reader $i as stock" \
		/tmp/sel_stock /tmp/sel_cold$i
done
selcmp "ipmitool sel elist, warm (from the mirror), as stock" /tmp/sel_stock /tmp/sel_warm
# FreeIPMI reserves (its reads carry the id); its own SDR cache per BMC
# (their repositories differ since the writes above), filled first; print
# what ipmi-sel said if it failed
mkdir -p /tmp/fsdr.stock /tmp/fsdr.node
ipmi-sel --driver-type=OPENIPMI --driver-device="$stock" \
	--sdr-cache-directory=/tmp/fsdr.stock >/dev/null 2>&1
ipmi-sel --driver-type=OPENIPMI --driver-device="$stock" \
	--sdr-cache-directory=/tmp/fsdr.stock >/tmp/isel_stock 2>&1
ipmi-sel --driver-type=OPENIPMI --driver-device=/dev/ipmi1 \
	--sdr-cache-directory=/tmp/fsdr.node >/dev/null 2>&1
mark 5c
ipmi-sel --driver-type=OPENIPMI --driver-device=/dev/ipmi1 \
	--sdr-cache-directory=/tmp/fsdr.node >/tmp/isel_node 2>&1
mark 5d
head -n 2 /tmp/isel_stock
check "FreeIPMI ipmi-sel on stock lists the SEL ($(wc -l </tmp/isel_stock) lines)" \
	test "$(wc -l </tmp/isel_stock)" -gt 1000
selcmp "FreeIPMI ipmi-sel on ipmi1 as stock" /tmp/isel_stock /tmp/isel_node
# three at once, each with its own reservation
pids=""
for i in 1 2 3; do
	ipmi-sel --driver-type=OPENIPMI --driver-device=/dev/ipmi1 \
		--sdr-cache-directory=/tmp/fsdr.node >/tmp/isel3_$i 2>&1 &
	pids="$pids $!"
done
# shellcheck disable=SC2086 # the readers only, not kcsmuxd
wait $pids
mark 5e
for i in 1 2 3; do
	selcmp "ipmi-sel, three at once on ipmi1: reader $i as stock" /tmp/isel_stock /tmp/isel3_$i
done
say "the SEL changes: an entry added behind the daemon, one deleted through ipmi1"
# OEM non-timestamped (type 0xf0): the same bytes on both BMCs
SELREC="00 00 f0 4b 43 53 4d 55 58 01 02 03 04 05 06 07"
kcsmux-kcsraw raw 0a 44 $SELREC >/tmp/seladd0 2>&1
expect "Add SEL Entry straight to the BMC" '^data: 00 ' /tmp/seladd0
$W raw "$stock" 0a 44 $SELREC >/dev/null
# the fifth entry (elist's first column: its id in hex)
del=$(awk -F'|' 'NR == 5 { gsub(/ /, "", $1); print "0x" $1 }' /tmp/sel_stock)
echo "deleting entry $del through ipmi1 and on stock"
ipmitool -I open -d 1 sel delete "$del" >/tmp/seldel_node 2>&1
ipmitool -I open -d "$sn" sel delete "$del" >/tmp/seldel_stock 2>&1
selcmp "Delete SEL Entry through ipmi1 answered as stock" /tmp/seldel_stock /tmp/seldel_node
sleep 1.2 # sdr_cache_revalidate_ms = 1000: the log's end is checked
ipmitool -I open -d "$sn" sel elist >/tmp/sel_stock2 2>&1
mark 5f
ipmitool -I open -d 1 sel elist >/tmp/sel_node2 2>&1
mark 60
selcmp "after the add and the delete: ipmitool sel elist as stock" /tmp/sel_stock2 /tmp/sel_node2
check "the list changed (one entry added, one deleted)" \
	sh -c '! cmp -s /tmp/sel_warm /tmp/sel_node2' 
ipmitool -I open -d 3 sel elist >/tmp/sel_off 2>&1
selcmp "ipmi3 (sel_mirror = no) lists the same" /tmp/sel_stock2 /tmp/sel_off
ipmitool -I open -d 1 sel clear >/tmp/selclr_node 2>&1
ipmitool -I open -d "$sn" sel clear >/tmp/selclr_stock 2>&1
sleep 1
ipmitool -I open -d 1 sel elist >/tmp/sel_node3 2>&1
ipmitool -I open -d "$sn" sel elist >/tmp/sel_stock3 2>&1
selcmp "after Clear SEL through ipmi1: elist as stock" /tmp/sel_stock3 /tmp/sel_node3
kcsmuxctl show ipmi1 | grep '^sel_' | tee /tmp/showsel
expect "the mirror answered (hits)" '^sel_mirror_hits=[1-9][0-9]{3,}$' /tmp/showsel

kill "$(pidof kcsmuxd)" 2>/dev/null
sleep 0.5
if grep -Eq 'ERROR|Sanitizer|runtime error' /tmp/kcsmuxd.log; then
	fail "kcsmuxd log has errors:"
	tail -20 /tmp/kcsmuxd.log
else
	pass "kcsmuxd log clean"
fi
summary
