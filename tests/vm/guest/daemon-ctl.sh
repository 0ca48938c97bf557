# kcsmuxctl against a running kcsmuxd (kcsraw.ko, two nodes): list, show,
# a live `set` of ipmi1's polling while a client keeps it busy (the
# module's cost reports must show the new policy at once and the client
# must lose nothing), bad settings changing nothing, permissions (nobody
# may look, not set; a member of admin_group may set), STATS as valid
# JSON, watch (its per-interval figures against known traffic), reload;
# admin_groups: op (kcsadmin) gets a write through that nobody is refused
# on the same node, as kcsmuxctl check -c -u says.
. /guest/lib.sh

CTL=/guest/bin/kcsmuxctl
SYS=/sys/class/misc/kcsraw0

kcsmux_setup

# An admin group with one member (op); nobody is not in it.
echo 'kcsadmin:x:900:op' >>/etc/group
echo 'op:x:1000:1000:op:/:/bin/sh' >>/etc/passwd

mkdir -p /etc/kcsmux
kcsmux_conf <<'CONF'
admin_group = kcsadmin

[node ipmi1]
; spins: the live set below turns the spinning off
policy = interactive
mode = 0666

[node ipmi2]
policy = monitor
mode = 0666
CONF
check "kcsmuxd -n accepts the config" kcsmuxd -n
kcsmuxd -f -d >/tmp/kcsmuxd.log 2>&1 &
dpid=$!
for i in $(seq 50); do
	[ -c /dev/ipmi1 ] && [ -c /dev/ipmi2 ] && [ -S /run/kcsmux/control.sock ] && break
	sleep 0.1
done
check "nodes and control socket exist" test -c /dev/ipmi1 -a -c /dev/ipmi2 -a -S /run/kcsmux/control.sock
ls -ld /run/kcsmux >/tmp/lsdir
ls -l /run/kcsmux/control.sock >/tmp/lssock
expect "socket directory is 0755" '^drwxr-xr-x ' /tmp/lsdir
expect "socket is 0666" '^srw-rw-rw- ' /tmp/lssock

# key VALUE FILE: the value of KEY= in a show output.
val() { sed -n "s/^$1=//p" "$2"; }

say "list and show"
run_to /tmp/list $CTL list
check "kcsmuxctl list exits 0" test $? = 0
expect "list shows ipmi1 (interactive preset, spinning 2000 us)" '^ipmi1 +interactive +2000 +50-100 ' /tmp/list
expect "list shows ipmi2 (monitor preset)" '^ipmi2 +monitor +0 +200-1000 ' /tmp/list
expect "list: ipmi2's budget in % (monitor: 1%), cheapened and held counts, daemon us/request" \
	'^ipmi2 .* +1% +[0-9.]+% +[0-9]+ +[0-9]+ +[0-9.-]+$' /tmp/list
expect "list: ipmi1 has no budget" '^ipmi1 .* +- +- +[0-9]+ +[0-9]+ +[0-9.-]+$' /tmp/list
run_to /tmp/show9 $CTL show ipmi9
check "show of an unknown node exits 1" test $? = 1
expect "unknown node: a clear error naming the nodes" \
	'^kcsmuxctl: no node "ipmi9" \(nodes: ipmi1 ipmi2\)$' /tmp/show9

say "live set while a client runs"
check "warm-up: 50 requests on ipmi1" kcsmux-ipmi-probe -d /dev/ipmi1 -n 50 -k
run_to /tmp/status_id $CTL status
check "status exits 0: healthy (the BMC answers, no failed reload)" test $? = 0
expect "status: the loaded kcsraw's version" \
	"^kcsraw version +$(cat /sys/module/kcsraw/version)\$" /tmp/status_id
expect "status: kcsraw says the BMC is up" '^  kcsraw says +up$' /tmp/status_id
run_to /tmp/status_j $CTL -j status
check "-j before the command word: exit 0" test $? = 0
expect "status -j: kcsraw's own word" '"kcsraw_bmc": "up"' /tmp/status_j
expect "status -j: no stock node beside kcsraw" '"stock_device": ""' /tmp/status_j
run_to /tmp/status_j2 $CTL status --json
check "status --json: exit 0" test $? = 0
expect "status --json: JSON" '"bmc": "answering"' /tmp/status_j2
# doctor -d N as ipmitool's: /dev/ipmiN, here the node
SHOW_LINES=3 run_to /tmp/doc1 $CTL doctor -j -d 1
doc_rc=$?
check "doctor -d 1 through the node: ok or warn (exit $doc_rc)" test "$doc_rc" = 0 -o "$doc_rc" = 7
expect "doctor -d 1 is /dev/ipmi1, kcsmux's" '"device": "/dev/ipmi1", "driver": "kcsmux"' /tmp/doc1
expect "doctor -j: schema_version 1" '"schema_version": 1,' /tmp/doc1
expect "status: the BMC's identity, from the probes' Get Device ID" \
	'^  identity +from its last Get Device ID$' /tmp/status_id
expect "status: its IPMI version" '^  IPMI version +[12]\.[05]$' /tmp/status_id
expect "status: its manufacturer" '^  manufacturer +[0-9]+$' /tmp/status_id
$CTL show ipmi1 >/tmp/s0
spin0=$(val spin_ns /tmp/s0)
echo "before: spin_ns=$spin0 completed=$(val completed /tmp/s0)"
check "ipmi1 spins under its preset (spin_ns $spin0 > 0)" test "${spin0:-0}" -gt 0

kcsmux-ipmi-probe -d /dev/ipmi1 -n 400 -i 5000 -k >/tmp/probe.out 2>&1 &
ppid=$!
sleep 0.5
run_to /tmp/s_busy $CTL show ipmi1
expect "show lists the probe's open file" "^client=id=[0-9]+ pid=$ppid uid=0 " /tmp/s_busy
expect "... with its process name and its own counters (requests sent, none denied)" \
	"^client=id=[0-9]+ pid=$ppid uid=0 .* requests=[1-9][0-9]* errors=0 denied=0 guess_send=[1-9][0-9]*/[1-9][0-9]*/[0-9]+ guess_recv=[0-9/]+ comm=kcsmux-ipmi-pr" /tmp/s_busy
$CTL stats -j >/tmp/stats.json
check "stats -j exits 0" test $? = 0
run_to /tmp/set $CTL set ipmi1 max_busy_us=0 poll_us=200
check "set ipmi1 max_busy_us=0 poll_us=200 succeeds" test $? = 0
expect "set reports the change" '^ipmi1: max_busy_us 2000 -> 0$' /tmp/set
kill -0 $ppid 2>/dev/null
check "the probe is still running after the set" test $? = 0
sleep 0.5	# transactions submitted before the set finish
$CTL show ipmi1 >/tmp/s1
sysspin1=$(cat $SYS/spin_ns)
systx1=$(cat $SYS/transactions)
wait $ppid
prc=$?
cat /tmp/probe.out
check "probe finished all 400 requests OK (nobody dropped)" test $prc = 0
expect "probe: ok=400 err=0" ' ok=400 err=0 ' /tmp/probe.out
$CTL show ipmi1 >/tmp/s2
spin1=$(val spin_ns /tmp/s1)
spin2=$(val spin_ns /tmp/s2)
done1=$(val completed /tmp/s1)
done2=$(val completed /tmp/s2)
sysspin2=$(cat $SYS/spin_ns)
systx2=$(cat $SYS/transactions)
echo "after set: node spin_ns $spin1 -> $spin2, completed $done1 -> $done2;" \
	"kcsraw0 spin_ns $sysspin1 -> $sysspin2, transactions $systx1 -> $systx2"
check "requests completed on ipmi1 after the set ($done1 -> $done2)" test "$done2" -gt "$((done1 + 50))"
num "spin_ns before and after the set (node, kcsraw0)" "$spin1" "$spin2" \
	"$sysspin1" "$sysspin2" && {
	check "none of them spun: node spin_ns unchanged ($spin1)" test "$spin2" = "$spin1"
	check "kcsraw0's cost reports agree: spin_ns unchanged" test "$sysspin2" = "$sysspin1"
}
check "... over transactions that did run ($systx1 -> $systx2)" test "$systx2" -gt "$((systx1 + 50))"
expect "show has the new max_busy_us" '^policy.max_busy_us=0$' /tmp/s2
expect "show has the new poll_us" '^policy.poll_us=200$' /tmp/s2
expect "poll_max_us followed poll_us up" '^policy.poll_max_us=200$' /tmp/s2
expect "the probe's file is gone again" '^clients=0$' /tmp/s2

say "bad settings change nothing"
grep '^policy\.' /tmp/s2 >/tmp/pol_before
run_to /tmp/bad1 $CTL set ipmi1 max_busy_us=100 poll_us=abc
check "a bad value exits 1" test $? = 1
expect "a bad value: a clear error" \
	"^kcsmuxctl: set ipmi1: poll_us: expected an integer from 1 to 1000000, not 'abc'; nothing changed$" /tmp/bad1
run_to /tmp/bad2 $CTL set ipmi1 max_busy_us=100 poll_uss=300
check "an unknown key exits 1" test $? = 1
expect "an unknown key: a clear error with a suggestion" \
	"unknown policy key 'poll_uss' \(did you mean 'poll_us'\?\); nothing changed$" /tmp/bad2
run_to /tmp/bad3 $CTL set ipmi1 weight
check "not KEY=VALUE is a usage error (exit 2)" test $? = 2
$CTL show ipmi1 | grep '^policy\.' >/tmp/pol_after
check "policy unchanged by the refused sets" cmp /tmp/pol_before /tmp/pol_after

say "permissions"
run_to /tmp/nb_list su -s /bin/sh nobody -c "$CTL list"
check "nobody may list" test $? = 0
expect "nobody sees the nodes" '^ipmi2 ' /tmp/nb_list
run_to /tmp/nb_json su -s /bin/sh nobody -c "$CTL stats -j"
check "nobody may read stats" test $? = 0
run_to /tmp/nb_set su -s /bin/sh nobody -c "$CTL set ipmi2 weight=5"
check "nobody may not set (exit 1)" test $? = 1
expect "refused with a clear error" \
	'^kcsmuxctl: permission denied: set needs root or group kcsadmin$' /tmp/nb_set
run_to /tmp/nb_reload su -s /bin/sh nobody -c "$CTL reload"
check "nobody may not reload (exit 1)" test $? = 1
$CTL show ipmi2 >/tmp/s_ipmi2
expect "ipmi2's weight unchanged" '^policy.weight=100$' /tmp/s_ipmi2
run_to /tmp/op_set su -s /bin/sh op -c "$CTL set ipmi2 weight=5"
check "op (a member of kcsadmin) may set" test $? = 0
$CTL show ipmi2 >/tmp/s_ipmi2
expect "ipmi2's weight is now 5" '^policy.weight=5$' /tmp/s_ipmi2
expect "its preset is marked customised" '^custom=yes$' /tmp/s_ipmi2

say "STATS is JSON"
# A strict JSON checker (RFC 8259 grammar) in awk: busybox has no jq.
cat >/tmp/json.awk <<'AWK'
function ws(c) {
	while (pos <= n) {
		c = substr(s, pos, 1)
		if (c != " " && c != "\t" && c != "\n" && c != "\r")
			break
		pos++
	}
}
function str(c) {
	if (substr(s, pos, 1) != "\"")
		return 0
	for (pos++; pos <= n; pos++) {
		c = substr(s, pos, 1)
		if (c == "\"") { pos++; return 1 }
		if (c ~ /[\001-\037]/)
			return 0
		if (c == "\\") {
			pos++
			c = substr(s, pos, 1)
			if (c == "u") {
				if (substr(s, pos + 1, 4) !~ /^[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]$/)
					return 0
				pos += 4
			} else if (index("\"\\/bfnrt", c) == 0)
				return 0
		}
	}
	return 0
}
function num(rest) {
	rest = substr(s, pos)
	if (!match(rest, /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/))
		return 0
	pos += RLENGTH
	if (substr(s, pos, 1) ~ /[0-9.eE]/)
		return 0
	return 1
}
function container(cl, isobj, c) {
	pos++
	ws()
	if (substr(s, pos, 1) == cl) { pos++; return 1 }
	for (;;) {
		ws()
		if (isobj) {
			if (!str()) return 0
			ws()
			if (substr(s, pos, 1) != ":") return 0
			pos++
		}
		if (!value()) return 0
		ws()
		c = substr(s, pos, 1)
		pos++
		if (c == ",") continue
		if (c == cl) return 1
		return 0
	}
}
function value(c) {
	ws()
	c = substr(s, pos, 1)
	if (c == "{") return container("}", 1)
	if (c == "[") return container("]", 0)
	if (c == "\"") return str()
	if (substr(s, pos, 4) == "true" || substr(s, pos, 4) == "null") { pos += 4; return 1 }
	if (substr(s, pos, 5) == "false") { pos += 5; return 1 }
	return num()
}
{ s = s $0 "\n" }
END {
	n = length(s)
	pos = 1
	ok = value()
	ws()
	if (!ok || pos <= n) {
		printf "invalid JSON near byte %d: %s\n", pos, substr(s, pos, 40)
		exit 1
	}
	print "valid JSON"
}
AWK
printf '{"a": [1, 2,], "b": "x"}\n' >/tmp/bad.json
check "the JSON checker rejects a trailing comma" sh -c '! awk -f /tmp/json.awk /tmp/bad.json'
printf '{"a": "b\\q"}\n' >/tmp/bad2.json
check "the JSON checker rejects a bad escape" sh -c '! awk -f /tmp/json.awk /tmp/bad2.json'
printf '{"a": [1, -2.5e3, true, null, {"b": "\\u00e9\\n"}]}\n' >/tmp/good.json
check "the JSON checker accepts valid JSON" awk -f /tmp/json.awk /tmp/good.json
head -c 1500 /tmp/stats.json
echo
check "stats -j (taken while the probe ran) is valid JSON" awk -f /tmp/json.awk /tmp/stats.json
check "nobody's stats -j is valid JSON" awk -f /tmp/json.awk /tmp/nb_json
expect "JSON has ipmi1" '"name": "ipmi1"' /tmp/stats.json
expect "JSON has ipmi2" '"name": "ipmi2"' /tmp/stats.json
expect "JSON lists the probe as a client of ipmi1" "\"pid\": $ppid, \"uid\": 0" /tmp/stats.json
expect "JSON has the spin counter" '"spin_ns": [1-9][0-9]*' /tmp/stats.json
expect "JSON has the latency quantiles" '"latency_p99_us": [0-9]+' /tmp/stats.json
run_to /tmp/stats $CTL stats
expect "stats table has ipmi1" '^ipmi1 +[0-9]+ +[0-9]+ ' /tmp/stats

say "watch"
$CTL watch -n 0.2 -c 3 >/tmp/watch 2>&1
check "watch -c 3 exits 0" test $? = 0
esc=$(printf '\033')
check "watch (to a file) printed 3 rounds" test "$(grep -c 'watch: ' /tmp/watch)" = 3
check "watch (to a file) has no escape codes" sh -c "! grep -q '$esc' /tmp/watch"
expect "watch shows the nodes" '^ipmi2 ' /tmp/watch
$CTL watch -n 0.2 >/tmp/watch2 2>&1 &
wpid=$!
sleep 1
kill -INT $wpid
wait $wpid
check "watch exits 0 on SIGINT" test $? = 0

say "watch: per-interval figures match the traffic sent"
# Rounds every second on an idle ipmi1; once the first round is out, 25
# requests; two rounds after they finished, ^C. The intervals follow each
# other without gaps, so their REQS and DONE must add up to exactly 25
# whatever the timing, each interval's REQS must be the difference of the
# since-start REQS of its two rounds, and REQ/S x the interval its REQS.
# wait_rounds N: until watch has printed N rounds (60 s at most)
wait_rounds() {
	local t=0
	while [ "$(grep -c 'watch: ' /tmp/watchw)" -lt "$1" ] && [ $t -lt 600 ]; do
		sleep 0.1
		t=$((t + 1))
	done
}
$CTL watch -n 1 >/tmp/watchw 2>&1 &
wpid=$!
wait_rounds 1
sleep 0.3	# its tables are out
check "watch's first round has no interval yet" \
	grep -q '^per interval: from the next round on$' /tmp/watchw
check "25 requests on ipmi1 during watch" kcsmux-ipmi-probe -d /dev/ipmi1 -n 25 -k
r=$(grep -c 'watch: ' /tmp/watchw)
wait_rounds $((r + 2))
kill -INT $wpid
wait $wpid
check "watch (per interval) exits 0 on SIGINT" test $? = 0
grep -A3 '^the last' /tmp/watchw  # the interval tables
# Per ipmi1 row: in the list (REQS is the 7th column) and in the interval
# table (REQS REQ/S DONE ERR MEAN_US P99_US MEAN_ALL P99_ALL).
awk '
/ watch: / { rounds++; sec = "list"; next }
/^per interval: / { sec = "none"; next }
/^the last [0-9.]+ s / { sec = "win"; secs = $3; next }
$1 != "ipmi1" { next }
sec == "list" { prev = cur; cur = $7; next }
sec == "win" {
	wins++
	req += $2; done += $4; err += $5
	if (rounds > 1 && $2 != cur - prev) diff++
	if ($2 > 0) {
		active++
		# REQ/S to 0.1, the interval to 0.01 s as printed
		tol = 0.05 * secs + 0.005 * $3 + 0.01
		if ($3 * secs < $2 - tol || $3 * secs > $2 + tol)
			rate++
		if (!($6 > 0 && $7 > 0)) lat++
	} else if ($6 != 0 || $7 != 0) lat++
	if (secs < 0.9 || secs > 10) gap++
}
END {
	printf "rounds=%d windows=%d requests=%d done=%d errors=%d active=%d ", rounds, wins, req, done, err, active
	printf "diff_bad=%d rate_bad=%d latency_bad=%d interval_bad=%d\n", diff, rate, lat, gap
}' /tmp/watchw >/tmp/watchw.sum
cat /tmp/watchw.sum
expect "the intervals cover every round after the first" \
	'^rounds=([3-9]|[1-9][0-9]+) windows=' /tmp/watchw.sum
check "the windows counted one row per round after the first" \
	awk '{ split($1, r, "="); split($2, w, "="); exit !(w[2] == r[2] - 1) }' /tmp/watchw.sum
expect "the intervals add up to the 25 requests sent, all answered, no error" \
	' requests=25 done=25 errors=0 ' /tmp/watchw.sum
expect "each interval's REQS is the since-start REQS difference of its rounds" \
	' diff_bad=0 ' /tmp/watchw.sum
expect "REQ/S x the interval is its REQS; mean and p99 > 0 where it served" \
	' rate_bad=0 latency_bad=0 interval_bad=0$' /tmp/watchw.sum
expect "some interval had the traffic" ' active=[1-9]' /tmp/watchw.sum

say "reload"
run_to /tmp/reload $CTL reload
check "reload as root succeeds" test $? = 0
$CTL show ipmi1 >/tmp/s3
expect "reload restores ipmi1's configured policy" '^policy.max_busy_us=2000$' /tmp/s3
expect "... and clears the customised mark" '^custom=no$' /tmp/s3

say "admin_groups: another opener's rules on the same node"
# ipmi2 readonly, but kcsadmin's members (op) get every command: Chassis
# Identify off (00:04), a write readonly refuses; the reload's new lists
# judge the files opened after it
kcsmux_conf <<'CONF'
admin_group = kcsadmin

[node ipmi1]
policy = interactive
mode = 0666

[node ipmi2]
policy = monitor
mode = 0666
access = readonly
admin_groups = kcsadmin
CONF
run_to /tmp/adm_reload $CTL reload
check "reload with admin_groups = kcsadmin succeeds" test $? = 0
for u in op nobody; do
	su -s /bin/sh $u -c "kcsmux-ipmi-probe -d /dev/ipmi2 -n 1 -r '00 04 00' -v --allow-errors -k" \
		>/tmp/adm_$u 2>&1
	sed 's/^/    | /' /tmp/adm_$u
done
expect "nobody (not in kcsadmin) gets readonly's cc 0xd4" 'completion code 0xd4' /tmp/adm_nobody
expect "op (in kcsadmin), same node, was answered" '^probe: .* n=1 ' /tmp/adm_op
check "... and not refused (no cc 0xd4)" sh -c '! grep -q "completion code 0xd4" /tmp/adm_op'
expect "the refusal is logged with nobody's uid" 'node ipmi2: uid 65534 .*denied \(cc 0xd4\) by access = readonly' /tmp/kcsmuxd.log
check "kcsmuxctl check -c -u op allows 00:04 (exit 0)" \
	$CTL check -c /etc/kcsmux/kcsmux.conf -u op ipmi2 0 4
run_to /tmp/adm_cnb $CTL check -c /etc/kcsmux/kcsmux.conf -u nobody ipmi2 0 4
check "... and -u nobody refuses it (exit 4: $_rc)" test "$_rc" = 4

kill $dpid
wait $dpid
check "the daemon removed its socket at exit" test ! -e /run/kcsmux/control.sock
echo "--- kcsmuxd log"
tail -n 40 /tmp/kcsmuxd.log
summary
