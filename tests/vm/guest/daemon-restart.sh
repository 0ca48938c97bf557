# Restarts under open files (docs/reliability.md, "Restarts"): kcsmuxd
# under kcsmux-fdstore, which plays systemd's file descriptor store and
# Restart= (tests/tools/fdstore.c), with the configuration the calling
# script left in /etc/kcsmux/kcsmux.conf and RS_NODE one of its nodes.
# RS_EVENTS SIGTERMs (a graceful restart: systemctl restart) and as many
# kill -9 (a crash that Restart= follows), each with
#  - one client that keeps RS_NODE open across every event of its kind and
#    asks every 250 ms (SEND, poll, RECEIVE): none of its requests may fail
#    at a graceful restart, at most one per crash (the one in flight: it
#    gets an error answer, cc 0xff, never the client's timeout);
#  - a probe opened just before the event that asks every 100 ms: its
#    slowest request is the event's pause (p50 and max over the events);
#  - ipmitool in a loop (a new open each time: the /dev/ipmiN links stay).
# Then, with the store dropped (the supervisor stopped), the device goes.
# Last, a reload removing node RS_GONE (if set) takes it out of the store.
# Sourced: uses lib.sh's check/expect/num and RS_NODE.
RS_EVENTS=${RS_EVENTS:-3}
rs_log=/tmp/fdstore.log
: >$rs_log
say "restarts of kcsmuxd under open files of /dev/$RS_NODE"
KCSMUX_TEST_KILL_FILE=/run/kcsmux-kill-at \
	kcsmux-fdstore -s /run/kcsmux-notify -l $rs_log -p /tmp/kcsmuxd.pid -- \
	kcsmuxd -f >/tmp/kcsmuxd-rs.log 2>&1 &
rs_sup=$!
rs_gen=1
# rs_ready N: generation N said READY=1 (20 s at most)
rs_ready() {
	for _i in $(seq 200); do
		grep -q " ready $1 pid" $rs_log && return 0
		sleep 0.1
	done
	return 1
}
check "kcsmuxd under the fd store is up" rs_ready 1
expect "it stored the state memfd" ' store kcsmux-state$' $rs_log
expect "it stored /dev/$RS_NODE's CUSE connection" " store cuse-$RS_NODE\$" $rs_log

# ipmitool in a loop until /tmp/rs-stop exists: one line per run
rs_num=${RS_NODE#ipmi}
rm -f /tmp/rs-stop
: >/tmp/rs-ipmitool.out
(
	while [ ! -e /tmp/rs-stop ]; do
		if ipmitool -I open -d "$rs_num" mc info >/dev/null 2>&1; then
			echo ok
		else
			echo fail
		fi
		sleep 0.3
	done
) >>/tmp/rs-ipmitool.out &
rs_loop=$!

# rs_events KIND SIGNAL TIMEOUT_MS: RS_EVENTS events; prints each one's
# pause (us). TIMEOUT_MS: the clients' wait for an answer, far above what
# a busy host makes of a restart: an answer lost (a crash) costs it once.
rs_events() {
	_kind=$1 _sig=$2 _to=$3
	kcsmux-ipmi-probe -d /dev/$RS_NODE -n $((RS_EVENTS * 20)) -i 250000 \
		--timeout "$_to" -k --allow-errors >/tmp/rs-long-$_kind.out 2>&1 &
	_long=$!
	: >/tmp/rs-pause-$_kind
	: >/tmp/rs-probe-$_kind.out
	for _e in $(seq "$RS_EVENTS"); do
		kcsmux-ipmi-probe -d /dev/$RS_NODE -n 20 -i 100000 \
			--timeout "$_to" -k --allow-errors >/tmp/rs-probe.out 2>&1 &
		_p=$!
		sleep 0.5
		kill -"$_sig" "$(cat /tmp/kcsmuxd.pid)"
		rs_gen=$((rs_gen + 1))
		rs_ready $rs_gen || fail "$_kind $_e: generation $rs_gen never ready"
		wait $_p
		cat /tmp/rs-probe.out >>/tmp/rs-probe-$_kind.out
		sed -n 's/.* max_us=\([0-9]*\).*/\1/p' /tmp/rs-probe.out \
			>>/tmp/rs-pause-$_kind
		sleep 1.5
	done
	wait $_long
	cat /tmp/rs-long-$_kind.out
}

# rs_field FILE KEY: KEY=VALUE of the probe's -k line(s), summed
rs_field() {
	sed -n "s/.* $2=\([0-9]*\).*/\1/p" "$1" | awk '{ s += $1 } END { print s + 0 }'
}

# rs_pauses KIND: "p50 max" of the events' pauses, in ms
rs_pauses() {
	sort -n /tmp/rs-pause-$1 | awk '{ v[NR] = $1 }
		END { if (NR == 0) print "none none";
		      else printf "%d %d\n", v[int((NR + 1) / 2)] / 1000, v[NR] / 1000 }'
}

# a client blocked in poll() throughout (no request of its own, one command
# registration): it must stay blocked, never see POLLERR or an error,
# across every event
rm -f /tmp/rs-listen.ready
kcsmux-ipmi-listen -d /dev/$RS_NODE -r 0x32:0x42 -t 900000 -R /tmp/rs-listen.ready \
	>/tmp/rs-listen.out 2>&1 &
rs_listen=$!
for _i in $(seq 100); do [ -e /tmp/rs-listen.ready ] && break; sleep 0.1; done
check "a client waits in poll() on /dev/$RS_NODE" test -e /tmp/rs-listen.ready

# a lease taken with kcsmuxctl (a fan controller's, a firmware update's)
# goes on across the graceful restarts to its deadline; a crash drops it
kcsmuxctl lease take $RS_NODE fan-oem 600 >/tmp/rs-lease0.out 2>&1
expect "kcsmuxctl lease take: $RS_NODE holds fan-oem" "^$RS_NODE fan-oem [0-9]+ kcsmuxctl\$" /tmp/rs-lease0.out

echo "phase graceful" >>/tmp/rs-ipmitool.out
rs_events graceful TERM 30000
ok=$(rs_field /tmp/rs-long-graceful.out ok)
err=$(rs_field /tmp/rs-long-graceful.out err)
perr=$(rs_field /tmp/rs-probe-graceful.out err)
pok=$(rs_field /tmp/rs-probe-graceful.out ok)
set -- $(rs_pauses graceful)
say "graceful restart x$RS_EVENTS: long-lived client ok=$ok err=$err;" \
	"per-event probes ok=$pok err=$perr; pause p50 ${1} ms max ${2} ms"
num "graceful restarts: client counts" "$ok" "$err" "$pok" "$perr" &&
	check "graceful restarts: the long-lived client's $ok requests all answered" \
		test "$err" = 0 -a "$ok" = $((RS_EVENTS * 20)) &&
	check "graceful restarts: each event's probe got every answer" \
		test "$perr" = 0 -a "$pok" = $((RS_EVENTS * 20))
num "graceful restarts: pauses" "$1" "$2"
expect "the next process took the files over with their state" \
	'hand-over: [0-9]+ open files taken over with their state' /tmp/kcsmuxd-rs.log
expect "... with the channel media: the next process did not scan again" \
	'hand-over: channel media as the previous process scanned them' /tmp/kcsmuxd-rs.log
# the waiting client's command registration came over: another file's
# REGISTER_FOR_CMD of the same command is refused (EBUSY: setup error 2)
kcsmux-ipmi-listen -d /dev/$RS_NODE -r 0x32:0x42 -t 100 >/tmp/rs-reg.out 2>&1
rc=$?
cat /tmp/rs-reg.out
check "graceful restarts: the waiting client's command registration came over (EBUSY: $rc)" \
	test "$rc" = 2
expect "... the next process restored it" \
	'queued messages, [1-9][0-9]* command registrations, ' /tmp/kcsmuxd-rs.log
kcsmuxctl lease list >/tmp/rs-lease1.out 2>&1
cat /tmp/rs-lease1.out
expect "graceful restarts: $RS_NODE still holds its fan-oem lease" \
	"^$RS_NODE fan-oem [0-9]+ kcsmuxctl\$" /tmp/rs-lease1.out
expect "... carried over by the hand-over" \
	'command registrations, [1-9][0-9]* leases\)' /tmp/kcsmuxd-rs.log

echo "phase crash" >>/tmp/rs-ipmitool.out
rs_events crash KILL 10000
ok=$(rs_field /tmp/rs-long-crash.out ok)
err=$(rs_field /tmp/rs-long-crash.out err)
perr=$(rs_field /tmp/rs-probe-crash.out err)
set -- $(rs_pauses crash)
say "kill -9 x$RS_EVENTS: long-lived client ok=$ok err=$err; per-event" \
	"probes err=$perr; pause p50 ${1} ms max ${2} ms"
num "crashes: client counts" "$ok" "$err" "$perr" &&
	check "crashes: the long-lived client kept its file, at most one failure per crash ($err)" \
		test $((ok + err)) = $((RS_EVENTS * 20)) -a "$err" -le "$RS_EVENTS" &&
	check "crashes: the probes lost at most one request per crash ($perr)" \
		test "$perr" -le "$RS_EVENTS"
# no answer lost silently: one lost at a crash comes back as an error
# answer (cc 0xff) when the next process takes the files over, never as
# the client's own timeout
eto=$(($(rs_field /tmp/rs-long-crash.out err_timeout) + $(rs_field /tmp/rs-probe-crash.out err_timeout)))
check "crashes: no request timed out, a lost answer came back as an error ($eto)" \
	test "$eto" = 0
expect "after a crash the files go on with default state" \
	'opened before the daemon restarted\) goes on with default state' /tmp/kcsmuxd-rs.log
kcsmuxctl lease list >/tmp/rs-lease2.out 2>&1
check "after a crash kcsmuxctl's lease is gone (docs/leases.md)" \
	sh -c "! grep -q '^$RS_NODE fan-oem ' /tmp/rs-lease2.out"

check "the client blocked in poll() is still there, blocked" kill -0 $rs_listen
kill $rs_listen
wait $rs_listen
echo "listener: exit $?"
cat /tmp/rs-listen.out
check "... and saw no error (no POLLERR, ENOTCONN)" \
	sh -c '! grep -q "rc=-1" /tmp/rs-listen.out'
touch /tmp/rs-stop
wait $rs_loop
# rs_count PHASE WORD: WORD lines of the ipmitool loop in PHASE
rs_count() {
	awk -v p="$1" -v w="$2" '$1 == "phase" { in_p = $2 == p; next }
		in_p && $1 == w { n++ } END { print n + 0 }' /tmp/rs-ipmitool.out
}
gok=$(rs_count graceful ok) gfail=$(rs_count graceful fail)
cok=$(rs_count crash ok) cfail=$(rs_count crash fail)
say "ipmitool in a loop: graceful ok=$gok fail=$gfail; crash ok=$cok fail=$cfail"
num "ipmitool loop" "$gok" "$gfail" "$cok" "$cfail" &&
	check "ipmitool in a loop: every run ok across the graceful restarts" \
		test "$gok" -gt 0 -a "$gfail" = 0 &&
	check "ipmitool in a loop: at most one failed run per crash ($cfail)" \
		test "$cok" -gt 0 -a "$cfail" -le "$RS_EVENTS"

# A crash with a request read and unanswered (the test hook: the next
# process dies at its first ioctl): kernels from 6.9 resend it to the
# process after, older ones get it failed ECONNRESET; no caller hangs.
echo 1 >/run/kcsmux-kill-at
kill -TERM "$(cat /tmp/kcsmuxd.pid)"
rs_gen=$((rs_gen + 1))
rs_ready $rs_gen || fail "generation $rs_gen never ready"
timeout 120 kcsmux-ipmi-probe -d /dev/$RS_NODE -n 10 -i 100000 --timeout 30000 \
	-k --allow-errors >/tmp/rs-inhand.out 2>&1
rc=$?
cat /tmp/rs-inhand.out
rs_gen=$((rs_gen + 1))
rs_ready $rs_gen || fail "generation $rs_gen never ready"
check "the caller of the request in hand at the crash did not hang" test "$rc" = 0
ok=$(rs_field /tmp/rs-inhand.out ok)
kv=$(uname -r)
kmaj=${kv%%.*} kmin=${kv#*.}
kmin=${kmin%%[!0-9]*}
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" = 6 ] && [ "$kmin" -ge 9 ]; }; then
	expect "$kv: the request in hand was resent (FUSE_NOTIFY_RESEND)" \
		'left unanswered is sent again \(resend\)' /tmp/kcsmuxd-rs.log
	num "probe after the crash" "$ok" &&
		check "$kv: all 10 requests answered, the resent one too" test "$ok" = 10
else
	expect "$kv: the request in hand failed ECONNRESET" \
		'left unanswered fails with ECONNRESET' /tmp/kcsmuxd-rs.log
	expect "$kv: its caller saw ECONNRESET" 'Connection reset by peer|err_errno=1 ' \
		/tmp/rs-inhand.out
	num "probe after the crash" "$ok" &&
		check "$kv: the other 9 requests answered" test "$ok" = 9
fi

# No answer lost silently at a crash: a request SEND accepted (held in the
# node's queue by the hold file) when kcsmuxd is killed is answered by the
# next process from the journal in the memfd with the stock driver's answer
# for a lost request (cc 0xff on the system interface); the client's poll()
# wakes for it, and its next request on the same file is answered.
say "a request accepted, unanswered, across kill -9"
touch /run/kcsmux-hold
kill -TERM "$(cat /tmp/kcsmuxd.pid)"
rs_gen=$((rs_gen + 1))
check "the next process is up, holding" rs_ready $rs_gen
kcsmux-ipmi-probe -d /dev/$RS_NODE -n 2 --timeout 60000 -v -k --allow-errors \
	>/tmp/rs-lost.out 2>&1 &
rs_p=$!
sleep 1
kill -KILL "$(cat /tmp/kcsmuxd.pid)"
rs_gen=$((rs_gen + 1))
rs_ready $rs_gen || fail "generation $rs_gen never ready"
rm -f /run/kcsmux-hold
wait $rs_p
cat /tmp/rs-lost.out
ok=$(rs_field /tmp/rs-lost.out ok)
ecc=$(rs_field /tmp/rs-lost.out err_cc)
eto=$(rs_field /tmp/rs-lost.out err_timeout)
num "lost answer: probe counts" "$ok" "$ecc" "$eto" &&
	check "the request accepted before the crash got an error answer, the next one its answer" \
		test "$ecc" = 1 -a "$ok" = 1 -a "$eto" = 0
expect "... cc 0xff, as stock answers a request its interface lost" \
	'^msgid=1 recv_type=1 rx_msgid=1 netfn=0x07 cmd=0x01 .* data: ff$' /tmp/rs-lost.out
expect "the next process answered it from the journal" \
	'woken, [1-9][0-9]* requests whose answer was lost answered' /tmp/kcsmuxd-rs.log

# A reload of kcsraw.ko under open nodes: with the hold file the next
# process leaves /dev/kcsraw0 closed and holds the requests; the module is
# unloaded and loaded again, the file removed, and the daemon serves on.
# Stock beside it: ipmi_si cannot be unloaded while a client holds its
# node open (ipmi_devintf's user pins it).
say "kcsraw reload under an open client"
kcsmux-ipmi-probe -d /dev/$RS_NODE -n 40 -i 250000 --timeout 20000 -k \
	--allow-errors >/tmp/rs-reload.out 2>&1 &
rs_p=$!
sleep 1
rs_opens=$(grep -c 'open again after' /tmp/kcsmuxd-rs.log)
touch /run/kcsmux-hold
kill -TERM "$(cat /tmp/kcsmuxd.pid)"
rs_gen=$((rs_gen + 1))
check "the next process is up, holding" rs_ready $rs_gen
check "kcsraw unloads under the open node" rmmod kcsraw
check "kcsraw loads again" load_kcsraw ports="$KCS1_PORT" irqs="$KCS1_IRQ"
rm -f /run/kcsmux-hold
rs_open() { [ "$(grep -c 'open again after' /tmp/kcsmuxd-rs.log)" -gt "$rs_opens" ]; }
for _i in $(seq 100); do rs_open && break; sleep 0.1; done
check "the daemon opened the new /dev/kcsraw0" rs_open
wait $rs_p
cat /tmp/rs-reload.out
ok=$(rs_field /tmp/rs-reload.out ok)
err=$(rs_field /tmp/rs-reload.out err)
mx=$(sed -n 's/.* max_us=\([0-9]*\).*/\1/p' /tmp/rs-reload.out)
say "kcsraw reload: client ok=$ok err=$err, pause ${mx} us"
num "kcsraw reload: client counts" "$ok" "$err" &&
	check "kcsraw reload: the client's 40 requests all answered" \
		test "$ok" = 40 -a "$err" = 0
if [ -n "${stock:-}" ] && [ -c "$stock" ]; then
	kcsmux-ipmi-probe -d "$stock" -n 20 -i 100000 -k --allow-errors \
		>/tmp/rs-stock.out 2>&1 &
	rs_p=$!
	sleep 0.5
	if rmmod ipmi_si 2>/tmp/rs-stock-rmmod; then
		say "stock: ipmi_si unloaded under an open client"
	else
		say "stock: ipmi_si cannot be unloaded under an open client: $(cat /tmp/rs-stock-rmmod)"
	fi
	wait $rs_p
	cat /tmp/rs-stock.out
fi

# A reload that removes a node (RS_GONE, the file's last section): the
# daemon takes its connection out of the store, and the device goes.
if [ -n "${RS_GONE:-}" ]; then
	sed -i "/^\[node $RS_GONE\]/,\$d" /etc/kcsmux/kcsmux.conf
	kill -HUP "$(cat /tmp/kcsmuxd.pid)"
	for _i in $(seq 100); do [ -e /dev/$RS_GONE ] || break; sleep 0.1; done
	check "a reload removed $RS_GONE: its device is gone" test ! -e /dev/$RS_GONE
	expect "... its connection left the store (FDSTOREREMOVE)" \
		" remove cuse-$RS_GONE\$" $rs_log
fi

# systemctl stop: the store is dropped, and the device with it
kill -TERM $rs_sup
wait $rs_sup
for _i in $(seq 50); do [ -e /dev/$RS_NODE ] || break; sleep 0.1; done
check "with the store dropped the node is gone" test ! -e /dev/$RS_NODE
cat $rs_log
grep -E 'hand-over|unanswered|resend|ECONNRESET' /tmp/kcsmuxd-rs.log
