# Bounded soak of kcsmuxd (docs/reliability.md, "Soak"): for SOAK_SECONDS
# (default 60), 32 stress clients over 4 nodes of different policies
# (interactive; monitor with its CPU budget and rate; bulk, rate-limited;
# a normal node with an allow list), misuse mixed in (bad pointers and
# lengths, RECEIVE on an empty queue, unknown ioctls: every 4th client),
# clients that leave or are SIGKILLed with requests in flight, clients
# that never read, requests the allow list refuses, one BMC stall in the
# middle, the BMC answering in 200-2000 us (the seed model). Fails if any
# response is lost, duplicated, late, wrong or misrouted, if the daemon
# dies or keeps anything of its clients, or if its memory grows beyond a
# generous bound. Prints the figures docs/reliability.md quotes.
#
# Run with: run.sh --bmc extern --delay seed
#           --proxy-args '--hold-on 0x30:0x01 --hold-for 2000'
#           --env HOLD_MS=2000 [--env SOAK_SECONDS=600] soak.sh
# Longer runs go in rounds of at most SOAK_ROUND seconds (default 300):
# every round is a fresh set of 32 stress clients. Memory: what tells a
# leak from the allocator settling is the heap the daemon has allocated
# (mallinfo2, "heap_in_use" of kcsmuxctl stats -j), not its RSS: its
# least-squares slope over the late part of the soak (from the later of
# half-way and 5 s after the stall) must stay under LEAK_BPR bytes per
# request answered (default 16). RSS is sampled and printed, not judged: it
# steps up once when the allocator settles, at any time. The sanitized
# daemon (SOAK_ASAN=1) has no mallinfo; its ASan heap RSS is judged the
# same way in kB over the window (4096 kB).
. /guest/lib.sh

SOAK_SECONDS=${SOAK_SECONDS:-60}
SOAK_ROUND=${SOAK_ROUND:-300}
HOLD_MS=${HOLD_MS:-2000}	# must match --hold-for
LOG=/tmp/kcsmuxd.log
SYS=/sys/class/misc/kcsraw0
NODES="ipmi1 ipmi2 ipmi3 ipmi4"

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$2" | head -n 1; }
now_us() { kcsmux-utime --now; }
alive() { [ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
le() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -le "$2" ]; }
rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$dpid/status"; }
# ASan build: kB resident in its allocator space (as in daemon-faults.sh)
heap() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { a = substr($1, 1, index($1, "-") - 1)
		h = length(a) == 12 && substr(a, 1, 1) == "6" }
		h && /^Rss:/ { s += $2 } END { print s + 0 }' "/proc/$dpid/smaps"
}
# the plain daemon's allocated heap in kB (mallinfo2 through the control
# socket)
inuse() {
	kcsmuxctl stats -j 2>/dev/null |
		sed -n 's/.*"heap_in_use": \([0-9]*\).*/\1/p' | head -n 1 |
		awk '{ printf "%d\n", $1 / 1024 }'
}
mem() { if [ "$asan" = yes ]; then heap; else inuse; fi; }
# show NODE KEY: a value of kcsmuxctl show
show() { kcsmuxctl show "$1" 2>/dev/null | sed -n "s/^$2=//p"; }

# The plain daemon when the tree is sanitized: its VmRSS means something.
# SOAK_ASAN=1 runs the sanitized one instead (memory then judged on ASan's
# heap, as in daemon-faults.sh).
D=/guest/bin/kcsmuxd-plain
[ -x $D ] && [ "${SOAK_ASAN:-0}" = 0 ] || D=/guest/bin/kcsmuxd
export ASAN_OPTIONS=quarantine_size_mb=1:detect_leaks=1

kcsmux_setup
kcsmux_conf <<'CONF'
max_outstanding = 16

[node ipmi1]
policy = interactive
queue = 256
; CPU budget 1%, 150 requests/s (bursts of 50)
[node ipmi2]
policy = monitor
[node ipmi3]
policy = bulk
rate = 20
burst = 5
; only what the stress clients ask for (Get Device ID, Reserve SDR, Get SDR)
[node ipmi4]
policy = normal
allow = app:01, storage:22-23
CONF
check "kcsmuxd -n accepts the config" $D -n
$D -f >$LOG 2>&1 &
dpid=$!
for _i in $(seq 100); do
	[ -c /dev/ipmi4 ] && [ -S /run/kcsmux/control.sock ] &&
		[ "$(grep -c 'node ipmi[1-4] ready' $LOG)" = 4 ] && break
	sleep 0.1
done
check "kcsmuxd started: /dev/ipmi1..4 and the control socket" \
	test -c /dev/ipmi4 -a -S /run/kcsmux/control.sock
if grep -q libasan "/proc/$dpid/maps"; then
	asan=yes memname="ASan heap RSS"
else
	asan=no memname="heap in use"
fi
LEAK_BPR=${LEAK_BPR:-16}
for n in $NODES; do
	kcsmux-ipmi-probe -d /dev/$n -n 10 -k >/tmp/warm.$n 2>&1
done
for k in transactions errors hosed timeouts cancelled; do
	eval "k0_$k=\$(cat $SYS/$k)"
done
mem_start=$(mem) rss_start=$(rss)
echo "kcsmuxd $D (pid $dpid, ASan: $asan), BMC delay $KCSMUX_DELAY, $memname $mem_start kB"

###########################################################################
# What runs beside the stress clients, until END (us):
#  - every second a client on one node (in turn) that sends a request every
#    20 ms without reading, SIGKILLed after 250 ms with its requests in
#    flight or unread;
#  - every third second a client on ipmi1 that sends 24 and never reads:
#    16 accepted (max_outstanding), then EBUSY;
#  - every second 5 requests ipmi4's allow list refuses (Get SEL Info: cc
#    0xd4, never sent to the BMC);
#  - every fifth second kcsmuxctl stats -j (the control socket).
chaos() {
	_end=$1 _i=0
	while [ "$(now_us)" -lt "$_end" ]; do
		_i=$((_i + 1))
		set -- $NODES
		shift $((_i % 4))
		kcsmux-ipmi-probe -d "/dev/$1" -n 1000 -i 20000 --timeout 0 \
			--allow-errors >/dev/null 2>&1 &
		_k=$!
		sleep 0.25
		kill -9 $_k 2>/dev/null
		wait $_k 2>/dev/null
		echo "$1" >>/tmp/chaos.killed
		if [ $((_i % 3)) = 0 ]; then
			kcsmux-ipmi-probe -d /dev/ipmi1 -n 24 -i 10000 --timeout 0 -k \
				--allow-errors >>/tmp/chaos.nr 2>>/tmp/chaos.nr.err
		fi
		kcsmux-ipmi-probe -d /dev/ipmi4 -n 5 -r "0x0a 0x40" -k \
			--allow-errors >>/tmp/chaos.deny 2>/dev/null
		[ $((_i % 5)) = 0 ] && kcsmuxctl stats -j >/dev/null 2>>/tmp/chaos.ctl
		sleep 0.5
	done
}

# The BMC stall: the OEM request 30 01 makes the delay proxy hold every
# BMC answer for HOLD_MS (its own included); the interface waits (the
# KCS timeouts are 5 s), every node's requests queue behind it.
stall() {
	kcsmux-ipmi-probe -d /dev/ipmi1 -n 1 -r "0x30 0x01" --timeout 20000 -k -v \
		--allow-errors >/tmp/stall.out 2>&1
}

say "soak: $SOAK_SECONDS s in rounds of at most $SOAK_ROUND s"
t_start=$(now_us)
t_end=$((t_start + SOAK_SECONDS * 1000000))
t_stall=$((t_start + SOAK_SECONDS * 500000))
stalled=no
samples=""
mem_warm="" mem_peak=$mem_start
round=0
rm -f /tmp/soak.kv /tmp/chaos.* /tmp/mem.samples
chaos "$t_end" &
cpid=$!
while [ "$(now_us)" -lt "$t_end" ]; do
	round=$((round + 1))
	left=$(((t_end - $(now_us)) / 1000000))
	[ "$left" -ge 5 ] || break
	dur=$SOAK_ROUND
	[ "$dur" -le "$left" ] || dur=$left
	# 24 clients on ipmi1..3 (Get Device ID, Get SDR, bridged IPMB Get
	# Device ID), 8 on ipmi4 (its allow list has no Send Message); every
	# 4th client of a node misuses the ABI before each request, one more
	# per node sends 8 and leaves without reading
	opts="-w 2 -t 60 --duration $dur --deadline $((dur + 300)) --misuse -k"
	kcsmux-ipmi-stress -c 24 -m id,sdr,ipmb $opts /dev/ipmi1 /dev/ipmi2 /dev/ipmi3 \
		>/tmp/stress.a.$round 2>/tmp/stress.a.$round.err &
	pa=$!
	kcsmux-ipmi-stress -c 8 -m id,sdr $opts /dev/ipmi4 \
		>/tmp/stress.b.$round 2>/tmp/stress.b.$round.err &
	pb=$!
	while alive $pa || alive $pb; do
		sleep 2
		m=$(mem)
		[ -n "$m" ] || continue
		samples="$samples $m"
		echo "$(( ($(now_us) - t_start) / 1000 )) $m $(rss)" >>/tmp/mem.samples
		[ "$m" -gt "$mem_peak" ] && mem_peak=$m
		# the reference: 10 s into the soak, the allocator has seen
		# the full load
		[ -z "$mem_warm" ] && [ "$(now_us)" -ge $((t_start + 10000000)) ] &&
			mem_warm=$m
		if [ $stalled = no ] && [ "$(now_us)" -ge "$t_stall" ]; then
			stalled=yes
			stall &
			spid=$!
		fi
	done
	wait $pa
	rca=$?
	wait $pb
	rcb=$?
	echo "    round $round ($dur s): stress exit $rca / $rcb"
	cat /tmp/stress.a.$round /tmp/stress.b.$round >>/tmp/soak.kv
	for f in /tmp/stress.a.$round.err /tmp/stress.b.$round.err; do
		head -n 20 "$f" | sed 's/^/    | /'
	done
done
wait $cpid
[ $stalled = yes ] && wait $spid
t_done=$(now_us)
sleep 1
mem_end=$(mem) rss_end=$(rss)
[ -n "$mem_warm" ] || mem_warm=$mem_start
for k in transactions errors hosed timeouts cancelled; do
	eval "d_$k=\$((\$(cat $SYS/$k) - k0_$k))"
done

###########################################################################
say "figures"
# totals over the rounds, per device, from the stress tools' -k lines
sum() {	# sum DEV KEY
	awk -v d="dev=$1" -v k="$2" '$2 == d { for (i = 3; i <= NF; i++) {
		split($i, kv, "="); if (kv[1] == k) s += kv[2] } } END { print s + 0 }' /tmp/soak.kv
}
maxof() {	# maxof DEV KEY
	awk -v d="dev=$1" -v k="$2" '$2 == d { for (i = 3; i <= NF; i++) {
		split($i, kv, "="); if (kv[1] == k && kv[2] + 0 > m) m = kv[2] + 0 } } END { print m + 0 }' /tmp/soak.kv
}
# kinds DEV KEY: NAME:COUNT lists of the rounds, summed
kinds() {
	awk -v d="dev=$1" -v k="$2" '$2 == d { for (i = 3; i <= NF; i++) {
		split($i, kv, "="); if (kv[1] != k || kv[2] == "none") continue
		n = split(kv[2], it, ","); for (j = 1; j <= n; j++) {
			split(it[j], p, ":"); c[p[1]] += p[2] } } }
		END { s = ""; for (x in c) s = s (s == "" ? "" : ",") x ":" c[x]
			print s == "" ? "none" : s }' /tmp/soak.kv
}
printf '%-6s %-12s %4s %8s %8s %5s %5s %5s %5s %5s %8s %8s %8s %7s %6s\n' \
	node policy cli requests ok lost dup late misrt bad p50_us p99_us max_us denied busy
tr=0 tok=0 tlost=0 tdup=0 tlate=0 tmis=0 tbad=0 tsend=0 trecv=0 tden=0 tbusy=0
for n in $NODES; do
	dv=/dev/$n
	r=$(sum $dv requests) ok=$(sum $dv ok) lost=$(sum $dv lost) dup=$(sum $dv dup)
	late=$(sum $dv late) mis=$(sum $dv misrouted) bad=$(sum $dv bad)
	se=$(sum $dv send_err) re=$(sum $dv recv_err)
	den=$(show $n denied) busy=$(show $n busy)
	printf '%-6s %-12s %4s %8s %8s %5s %5s %5s %5s %5s %8s %8s %8s %7s %6s\n' \
		$n "$(show $n preset)" $(($(sum $dv clients) / round)) "$r" "$ok" \
		"$lost" "$dup" "$late" "$mis" "$bad" "$(maxof $dv p50_us)" \
		"$(maxof $dv p99_us)" "$(maxof $dv max_us)" "$den" "$busy"
	tr=$((tr + r)) tok=$((tok + ok)) tlost=$((tlost + lost)) tdup=$((tdup + dup))
	tlate=$((tlate + late)) tmis=$((tmis + mis)) tbad=$((tbad + bad))
	tsend=$((tsend + se)) trecv=$((trecv + re))
	tden=$((tden + ${den:-0})) tbusy=$((tbusy + ${busy:-0}))
done
printf '%-6s %-12s %4s %8s %8s %5s %5s %5s %5s %5s %8s %8s %8s %7s %6s\n' \
	total "" 32 $tr $tok $tlost $tdup $tlate $tmis $tbad \
	"$(maxof total p50_us)" "$(maxof total p99_us)" "$(maxof total max_us)" $tden $tbusy
echo "(p50/p99/max: SEND to RECEIVE, worst round; denied/busy: the daemon's counters, all clients)"
elapsed=$(((t_done - t_start) / 1000000))
echo "requests: $tr, answered correctly $tok; $round round(s), $elapsed s from the first setup to the last answer (sending for $SOAK_SECONDS s: $((tok / SOAK_SECONDS)) per s)"
echo "errors by kind:"
echo "  stress SEND errnos: $(kinds total send_errnos); bad completion codes: $(kinds total bad_ccs); recv errors: $trecv"
echo "  misuse calls: $(sum total misuse_calls) on $(($(sum total misuse_clients) / round)) clients, errnos $(kinds total misuse_errnos), wrong $(sum total misuse_wrong)"
nr_runs=$(grep -c '^probe:' /tmp/chaos.nr 2>/dev/null || echo 0)
nr_busy=$(sed -n 's/^kcsmux-ipmi-probe: msgid [0-9]*: SEND_COMMAND: //p' /tmp/chaos.nr.err 2>/dev/null |
	sort | uniq -c | awk '{ c = $1; $1 = ""; printf "%s%s x%d", s, substr($0, 2), c; s = ", " }')
echo "  never-reading clients: $nr_runs, SEND refused: ${nr_busy:-none} ($(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^err_errno=/) s += substr($i, 11) } END { print s + 0 }' /tmp/chaos.nr 2>/dev/null) refusals)"
dn_runs=$(grep -c '^probe:' /tmp/chaos.deny 2>/dev/null || echo 0)
dn_cc=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^err_cc=/) s += substr($i, 8) } END { print s + 0 }' /tmp/chaos.deny 2>/dev/null)
echo "  allow list (ipmi4, Get SEL Info): $((dn_runs * 5)) sent, $dn_cc answered with a nonzero cc, daemon denied $(show ipmi4 denied) (cc 0xd4)"
echo "  clients SIGKILLed with requests in flight: $(grep -c . /tmp/chaos.killed 2>/dev/null || echo 0), stress clients that left with 8 unread: $((4 * round))"
st_lat=$(sed -n 's/.* lat_us=\([0-9]*\) .*/\1/p' /tmp/stall.out | head -n 1)
st_cc=$(sed -n 's/.* lat_us=[0-9]* [a-z-]* data: \(..\).*/\1/p' /tmp/stall.out | head -n 1)
echo "  BMC stall (30 01 at $((SOAK_SECONDS / 2)) s, held $HOLD_MS ms): cc 0x${st_cc:-none} after $((${st_lat:-0} / 1000)) ms"
echo "kcsraw: transactions +$d_transactions errors +$d_errors hosed +$d_hosed timeouts +$d_timeouts cancelled +$d_cancelled"
echo "$memname (kB): start $mem_start, 10 s in $mem_warm, peak $mem_peak, end $mem_end (end - 10 s in: $((mem_end - mem_warm)), end - start: $((mem_end - mem_start)))"
echo "VmRSS (kB): start $rss_start, end $rss_end (printed, not judged)"
# The judged window: from the later of half-way and 5 s after the stall's
# end, to the last sample; least-squares slope of the samples in it.
w0=$(( SOAK_SECONDS * 500 + HOLD_MS + 5000 ))
[ $w0 -ge $((SOAK_SECONDS * 500)) ] || w0=$((SOAK_SECONDS * 500))
fit=$(awk -v w0=$w0 '$1 >= w0 { n++; x = $1 / 1000; sx += x; sy += $2
	sxx += x * x; sxy += x * $2; if (n == 1) t0 = x; t1 = x }
	END { if (n < 3 || sxx * n == sx * sx) { print "0 0 " n + 0; exit }
		b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
		printf "%.3f %.1f %d\n", b, t1 - t0, n }' /tmp/mem.samples)
set -- $fit
slope=$1 wsecs=$2 wn=$3
# requests answered in the window: the average rate from start to the
# last answer
wreq=$(awk -v t=$tok -v s=$elapsed -v w=$wsecs 'BEGIN { printf "%d", t * w / s }')
growth=$(awk -v b=$slope -v w=$wsecs 'BEGIN { printf "%d", b * w }')
bpr=$(awk -v b=$slope -v w=$wsecs -v r=$wreq 'BEGIN { printf "%.1f", (r > 0 ? b * w * 1024 / r : 0) }')
echo "$memname over the last $wsecs s ($wn samples from $((w0 / 1000)) s): slope $slope kB/s, $growth kB, $bpr bytes per request answered (~$wreq)"
echo "samples every 2 s:$samples" | fold -w 100

###########################################################################
say "verdict"
check "kcsmuxd is still running" alive "$dpid"
check "responses lost, duplicated, late or misrouted: $((tlost + tdup + tlate + tmis)) (must be 0)" \
	test $((tlost + tdup + tlate + tmis)) = 0
check "wrong answers: $tbad, failed SEND/RECEIVE: $tsend/$trecv (must be 0)" \
	test $((tbad + tsend + trecv)) = 0
check "every request answered correctly ($tok of $tr)" test "$tok" = "$tr" -a "$tr" -gt 0
check "every stress round passed" eval "! grep -q 'result=fail' /tmp/soak.kv && grep -q 'dev=total' /tmp/soak.kv"
check "every misuse call failed as expected ($(sum total misuse_wrong) wrong)" \
	test "$(sum total misuse_wrong)" = 0 -a "$(sum total misuse_calls)" -gt 0
check "never-reading clients were refused with EBUSY" \
	eval "[ $nr_runs -gt 0 ] && ! grep -v 'Device or resource busy' /tmp/chaos.nr.err | grep -q SEND_COMMAND"
check "the allow list refused every Get SEL Info ($dn_cc of $((dn_runs * 5)))" \
	test "$dn_cc" = $((dn_runs * 5)) -a "$dn_runs" -gt 0
check "the stall happened: 30 01 answered after >= $HOLD_MS ms" \
	le $((HOLD_MS * 1000)) "${st_lat:-0}"
check "kcsraw: no hosed transaction, no timeout" test "$d_hosed" = 0 -a "$d_timeouts" = 0
left=""
for n in $NODES; do
	left="$left $n:$(show $n clients)/$(show $n queue)"
done
check "nothing left in the daemon (node:open files/queued):$left" \
	test "$left" = " ipmi1:0/0 ipmi2:0/0 ipmi3:0/0 ipmi4:0/0"
if [ "$asan" = yes ]; then
	check "$memname growth over the last $wsecs s: $growth kB <= 4096 kB" \
		eval "[ $wn -ge 5 ] && le $growth 4096"
else
	check "$memname growth over the last $wsecs s: $bpr bytes per request <= $LEAK_BPR" \
		awk -v n=$wn -v m=$mem_end -v b=$bpr -v l=$LEAK_BPR \
		'BEGIN { exit !(n >= 5 && m > 0 && b != "" && b + 0 <= l) }'
fi
kill -USR1 $dpid
sleep 0.3
kill $dpid
wait $dpid
drc=$?
check "kcsmuxd exits 0 on SIGTERM" test "$drc" = 0
grep -qE 'Sanitizer|runtime error' $LOG && fail "sanitizer report in the kcsmuxd log"
echo "--- kcsmuxd log (last lines)"
grep -v 'denied (cc 0xd4)\|completion for unknown' $LOG | tail -n 20
echo "    ($(grep -c 'denied (cc 0xd4)' $LOG) 'denied' lines, $(grep -c 'completion for unknown' $LOG) 'completion for unknown transaction' lines)"
dmesg | grep -E 'WARNING:|BUG:|Oops' && fail "kernel warnings in dmesg"
summary
