# kcsmuxd's Prometheus metrics (docs/metrics.md): two nodes over
# kcsraw.ko, metrics_listen on loopback and a textfile. Requests through
# both nodes show up in GET /metrics exactly (a probe's 50 requests are 50
# requests, 50 responses, 50 latencies), every line follows the text format
# 0.0.4 (checked by an awk parser: grammar, families, cumulative buckets,
# +Inf == _count), other paths get 404 and other methods 405, scrapes during
# traffic do not disturb it, the textfile is rewritten within 10 s with the
# same text and removed when the daemon exits.
. /guest/lib.sh

PORT=9623
URL=http://127.0.0.1:$PORT/metrics
TEXTFILE=/var/lib/kcsmux/kcsmux.prom

kcsmux_setup

# prom.awk FILE: the exposition checker; prints BAD: lines and a summary,
# exits 1 if anything is wrong.
cat >/tmp/prom.awk <<'AWK'
function bad(why) {
	printf "BAD: %s: %s\n", why, $0
	nbad++
}
BEGIN {
	nbad = 0
	NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*"
	LBL = "[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\[\\\\\"n])*\""
	SAMPLE = "^" NAME "([{]" LBL "(," LBL ")*[}])? [^ ]+$"
	NUM = "^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$"
}
/^# HELP / {
	if ($3 !~ ("^" NAME "$"))
		bad("HELP name")
	help = $3
	next
}
/^# TYPE / {
	if (NF != 4 || $3 != help)
		bad("TYPE not right after its HELP")
	if ($4 !~ /^(counter|gauge|histogram|summary|untyped)$/)
		bad("unknown type")
	if ($3 in fams)
		bad("family twice")
	fams[$3] = 1
	fam = $3
	type = $4
	nfam++
	next
}
/^#/ { bad("stray comment"); next }
{
	if ($0 !~ SAMPLE) {
		bad("not a sample")
		next
	}
	val = $NF
	key = substr($0, 1, length($0) - length(val) - 1)
	if (val !~ NUM && val !~ /^([-+]Inf|NaN)$/)
		bad("value")
	if (key in seen)
		bad("series twice")
	seen[key] = 1
	nsamples++
	name = key
	sub(/[{].*/, "", name)
	labels = substr(key, length(name) + 1)
	if (fam == "") {
		bad("sample before any TYPE")
		next
	}
	if (type != "histogram") {
		if (name != fam)
			bad("sample outside its family " fam)
		if (type == "counter" && (name !~ /_total$/ || val + 0 < 0))
			bad("counter")
		next
	}
	suffix = substr(name, length(fam) + 1)
	if (substr(name, 1, length(fam)) != fam ||
	    suffix !~ /^_(bucket|sum|count)$/) {
		bad("sample outside histogram " fam)
		next
	}
	if (suffix == "_bucket") {
		if (!match(labels, /le="[^"]*"/)) {
			bad("bucket without le")
			next
		}
		le = substr(labels, RSTART + 4, RLENGTH - 5)
		sub(/,?le="[^"]*"/, "", labels)
		sub(/^[{],/, "{", labels)
		if (labels == "{}")
			labels = ""
		s = fam labels
		if (s in inf)
			bad("bucket after +Inf")
		else if (le != "+Inf" && le !~ NUM)
			bad("le")
		else if ((s in lastle) && le != "+Inf" && le + 0 <= lastle[s])
			bad("le not increasing")
		if ((s in lastc) && val + 0 < lastc[s])
			bad("buckets not cumulative")
		lastle[s] = le + 0
		lastc[s] = val + 0
		if (le == "+Inf")
			inf[s] = val + 0
		nbuckets++
	} else if (suffix == "_count") {
		s = fam labels
		if (!(s in inf))
			bad("_count without a +Inf bucket")
		else if (val + 0 != inf[s])
			bad("+Inf bucket " inf[s] " != _count")
		counted[s] = 1
		nhist++
	}
}
END {
	for (s in inf)
		if (!(s in counted)) {
			printf "BAD: histogram %s has no _count\n", s
			nbad++
		}
	printf "families=%d samples=%d buckets=%d histograms=%d bad=%d\n",
	    nfam, nsamples, nbuckets, nhist, nbad
	exit nbad > 0
}
AWK

# grammar DESC FILE: FILE is a valid exposition with our 45 families (with
# kcsraw loaded: kcsmux_kcsraw_info) and
# 4 histograms (2 per node).
grammar() {
	awk -f /tmp/prom.awk "$2" >/tmp/prom.out 2>&1
	_rc=$?
	if [ $_rc = 0 ] && grep -q '^families=48 .* histograms=4 bad=0$' /tmp/prom.out; then
		pass "$1 ($(tail -n 1 /tmp/prom.out))"
	else
		fail "$1:"
		head -n 20 /tmp/prom.out
	fi
}
# val KEY FILE: the value of sample KEY (name{labels} exactly).
val() {
	awk -v k="$1" 'substr($0, 1, length(k) + 1) == k " " {
		print substr($0, length(k) + 2) }' "$2"
}
# is DESC KEY FILE WANT: the sample's value is exactly WANT.
is() {
	_v=$(val "$2" "$3")
	if [ "$_v" = "$4" ]; then
		pass "$1 ($2 = $_v)"
	else
		fail "$1: $2 is '$_v', not '$4'"
	fi
}
# positive DESC KEY FILE: the sample's value is a number > 0.
positive() {
	_v=$(val "$2" "$3")
	if [ -n "$_v" ] && awk -v v="$_v" 'BEGIN { exit !(v + 0 > 0) }'; then
		pass "$1 ($2 = $_v)"
	else
		fail "$1: $2 is '$_v', not > 0"
	fi
}
# (busybox 1.35's wget -T crashes: bound it with timeout instead)
scrape() { timeout 20 wget -q -O "$1" "$URL"; }
# raw REQUEST FILE: send REQUEST (\r\n line ends), the response to FILE
# with \r removed.
# The request's writer stays open until the server closes: nc half-closes
# at the end of its input, and evhttp drops a connection whose peer shut
# its side while the response is still being written (a 35-family body no
# longer goes out in one write; Prometheus never half-closes).
raw() {
	rm -f /tmp/raw.in
	mkfifo /tmp/raw.in
	timeout 20 nc 127.0.0.1 $PORT </tmp/raw.in | tr -d '\r' >"$2" &
	exec 3>/tmp/raw.in
	printf "$1" >&3
	wait $!
	exec 3>&-
}

mkdir -p /etc/kcsmux /var/lib/kcsmux
kcsmux_conf <<CONF
metrics_listen = 127.0.0.1:$PORT
metrics_textfile = $TEXTFILE

[node ipmi1]
policy = interactive

[node ipmi2]
policy = bulk
access = readonly
CONF
check "kcsmuxd -n accepts the config" kcsmuxd -n
kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
dpid=$!
for i in $(seq 50); do
	[ -c /dev/ipmi1 ] && [ -c /dev/ipmi2 ] && break
	sleep 0.1
done
check "nodes /dev/ipmi1 and /dev/ipmi2 exist" test -c /dev/ipmi1 -a -c /dev/ipmi2
check "the textfile is written at start" test -s $TEXTFILE

say "before any request"
check "GET $URL" scrape /tmp/m0
grammar "the first scrape parses" /tmp/m0
is "no requests yet on ipmi1" 'kcsmux_requests_total{kcsmux_node="ipmi1"}' /tmp/m0 0
is "no latencies yet on ipmi1" 'kcsmux_request_duration_seconds_count{kcsmux_node="ipmi1"}' /tmp/m0 0
is "the info names the backend and device" \
	"kcsmux_info{version=\"$(kcsmuxd -V | cut -d' ' -f2)\",backend=\"kcsraw\",device=\"/dev/kcsraw0\"}" /tmp/m0 1
kver=$(cat /sys/module/kcsraw/version)
check "kcsraw.ko has a version ($kver)" test -n "$kver"
is "the loaded kcsraw's version" "kcsmux_kcsraw_info{version=\"$kver\"}" /tmp/m0 1
is "the BMC answers (kcsraw0/bmc: $(cut -d' ' -f1 /sys/class/misc/kcsraw0/bmc))" kcsmux_bmc_up /tmp/m0 1
is "no stock node beside kcsraw" kcsmux_stock_bypass /tmp/m0 0
positive "since when the BMC answers" kcsmux_bmc_last_change_timestamp_seconds /tmp/m0

say "50 requests on ipmi1"
check "kcsmux-ipmi-probe -n 50 on ipmi1" kcsmux-ipmi-probe -d /dev/ipmi1 -n 50 -k
check "GET $URL" scrape /tmp/m1
grammar "the scrape after traffic parses" /tmp/m1
is "ipmi1 counts 50 requests" 'kcsmux_requests_total{kcsmux_node="ipmi1"}' /tmp/m1 50
is "ipmi1 counts 50 responses" 'kcsmux_responses_total{kcsmux_node="ipmi1"}' /tmp/m1 50
is "ipmi1's latency histogram holds 50" 'kcsmux_request_duration_seconds_count{kcsmux_node="ipmi1"}' /tmp/m1 50
is "... all of them in +Inf" 'kcsmux_request_duration_seconds_bucket{kcsmux_node="ipmi1",le="+Inf"}' /tmp/m1 50
is "ipmi1's queue-wait histogram holds 50" 'kcsmux_queue_wait_seconds_count{kcsmux_node="ipmi1"}' /tmp/m1 50
positive "ipmi1's latency sum" 'kcsmux_request_duration_seconds_sum{kcsmux_node="ipmi1"}' /tmp/m1
positive "ipmi1's interface time" 'kcsmux_service_seconds_total{kcsmux_node="ipmi1"}' /tmp/m1
positive "ipmi1's poller CPU" 'kcsmux_poller_cpu_seconds_total{kcsmux_node="ipmi1"}' /tmp/m1
positive "the daemon's CPU for ipmi1" 'kcsmux_node_daemon_cpu_seconds_total{kcsmux_node="ipmi1"}' /tmp/m1
is "ipmi1: no completion errors" 'kcsmux_errors_total{kcsmux_node="ipmi1",kind="completion"}' /tmp/m1 0
is "ipmi1: 50 responses with completion code 0x00" 'kcsmux_completion_codes_total{kcsmux_node="ipmi1",cc="0x00"}' /tmp/m1 50
is "ipmi1: none with 0xc1 yet" 'kcsmux_completion_codes_total{kcsmux_node="ipmi1",cc="0xc1"}' /tmp/m1 0
is "ipmi2: every code exported before first use" 'kcsmux_completion_codes_total{kcsmux_node="ipmi2",cc="other"}' /tmp/m1 0
is "ipmi1 was opened once" 'kcsmux_opens_total{kcsmux_node="ipmi1"}' /tmp/m1 1
is "ipmi1: no sensor read from a recent answer" 'kcsmux_coalesced_recent_total{kcsmux_node="ipmi1"}' /tmp/m1 0
is "ipmi1 has no open file now" 'kcsmux_clients{kcsmux_node="ipmi1"}' /tmp/m1 0
is "ipmi1's queue is empty" 'kcsmux_queue_depth{kcsmux_node="ipmi1"}' /tmp/m1 0
is "nothing in flight" 'kcsmux_interface_inflight' /tmp/m1 0
is "ipmi2 untouched" 'kcsmux_requests_total{kcsmux_node="ipmi2"}' /tmp/m1 0
# the interface's health: every probe request completed on it, none hosed
check "the interface completed at least the 50 requests" \
	test "$(val kcsmux_interface_completions_total /tmp/m1)" -ge 50
is "no hosed transaction" 'kcsmux_interface_hosed_total' /tmp/m1 0
is "no reload yet: last reload counts as a success" 'kcsmux_reload_last_success' /tmp/m1 1

say "ipmitool on both nodes"
ipmi() { ipmitool -I open "$@"; }
run_to /tmp/it1 ipmi -d 1 sdr
check "ipmitool sdr on ipmi1" test $? = 0
run_to /tmp/it2 ipmi -d 2 mc info
check "ipmitool mc info on ipmi2" test $? = 0
check "GET $URL" scrape /tmp/m2a
d0=$(val 'kcsmux_errors_total{kcsmux_node="ipmi2",kind="denied"}' /tmp/m2a)
e0=$(val 'kcsmux_errors_total{kcsmux_node="ipmi1",kind="completion"}' /tmp/m2a)
c0=$(val 'kcsmux_completion_codes_total{kcsmux_node="ipmi1",cc="0xc1"}' /tmp/m2a)
# One request each (ipmitool sends more, some denied on readonly ipmi2).
run_to /tmp/deny kcsmux-ipmi-probe -d /dev/ipmi2 -n 1 -r "00 02 00" -v -k --allow-errors
expect "readonly ipmi2 refuses chassis control" 'err_cc=1' /tmp/deny
expect "... with cc 0xd4" ' d4( |$)' /tmp/deny
run_to /tmp/badcmd kcsmux-ipmi-probe -d /dev/ipmi1 -n 1 -r "06 fe" -v -k --allow-errors
expect "an unknown command on ipmi1 fails at the BMC" 'err_cc=1' /tmp/badcmd
check "GET $URL" scrape /tmp/m2
grammar "the scrape after ipmitool parses" /tmp/m2
r1=$(val 'kcsmux_requests_total{kcsmux_node="ipmi1"}' /tmp/m2)
r2=$(val 'kcsmux_requests_total{kcsmux_node="ipmi2"}' /tmp/m2)
check "ipmi1 counts ipmitool's requests too ($r1 > 51)" test "${r1:-0}" -gt 51
check "ipmi2 counts requests ($r2 > 0)" test "${r2:-0}" -gt 0
is "ipmi2's responses match its requests" 'kcsmux_responses_total{kcsmux_node="ipmi2"}' /tmp/m2 "$r2"
is "ipmi2's latency count matches its requests" 'kcsmux_request_duration_seconds_count{kcsmux_node="ipmi2"}' /tmp/m2 "$r2"
is "ipmi2 counts the denied request" 'kcsmux_errors_total{kcsmux_node="ipmi2",kind="denied"}' /tmp/m2 $((${d0:-0} + 1))
e1=$(val 'kcsmux_errors_total{kcsmux_node="ipmi1",kind="completion"}' /tmp/m2)
is "ipmi1 counts the failed command" 'kcsmux_errors_total{kcsmux_node="ipmi1",kind="completion"}' /tmp/m2 $((${e0:-0} + 1))
expect "... which the BMC answered with cc 0xc1" ' c1( |$)' /tmp/badcmd
is "... counted under its completion code" 'kcsmux_completion_codes_total{kcsmux_node="ipmi1",cc="0xc1"}' /tmp/m2 $((${c0:-0} + 1))
is "ipmi1: nothing rejected" 'kcsmux_errors_total{kcsmux_node="ipmi1",kind="rejected"}' /tmp/m2 0

say "HTTP"
wget -S -q -O /dev/null "$URL" >/tmp/hdr 2>&1
expect "200 for GET /metrics" 'HTTP/1.1 200 OK' /tmp/hdr
expect "Content-Type is the text format 0.0.4" \
	'Content-Type: text/plain; version=0.0.4; charset=utf-8' /tmp/hdr
wget -S -q -O /dev/null "http://127.0.0.1:$PORT/other" >/tmp/hdr404 2>&1
check "GET /other fails" test $? != 0
expect "404 for another path" 'HTTP/1.1 404 Not Found' /tmp/hdr404
wget -S -q -O /dev/null "http://127.0.0.1:$PORT/" >/tmp/hdr404b 2>&1
expect "404 for /" 'HTTP/1.1 404 Not Found' /tmp/hdr404b
wget -S -q -O /dev/null --post-data x "$URL" >/tmp/hdr405 2>&1
check "POST /metrics fails" test $? != 0
expect "405 for POST /metrics" 'HTTP/1.1 405 Method Not Allowed' /tmp/hdr405
raw 'DELETE /metrics HTTP/1.0\r\n\r\n' /tmp/del
expect "405 for DELETE /metrics" '^HTTP/1.0 405 Method Not Allowed$' /tmp/del
expect "405 names the allowed methods" '^Allow: GET, HEAD$' /tmp/del
raw 'HEAD /metrics HTTP/1.0\r\n\r\n' /tmp/head
expect "200 for HEAD /metrics" '^HTTP/1.0 200 OK$' /tmp/head
expect "HEAD gives the length of the text" '^Content-Length: [0-9]+$' /tmp/head
check "HEAD has no body" test "$(sed '1,/^$/d' /tmp/head | wc -c)" = 0
raw 'GET /metrics HTTP/1.0\r\n\r\n' /tmp/get
sed '1,/^$/d' /tmp/get >/tmp/get.body
grammar "an HTTP/1.0 GET parses" /tmp/get.body

say "scrapes during traffic"
kcsmux-ipmi-probe -d /dev/ipmi2 -n 100 -i 5000 -k >/tmp/probe2.out 2>&1 &
ppid=$!
ok=0 busy=0
for i in $(seq 10); do
	if scrape /tmp/mt && awk -f /tmp/prom.awk /tmp/mt >/dev/null; then
		ok=$((ok + 1))
		[ "$(val 'kcsmux_clients{kcsmux_node="ipmi2"}' /tmp/mt)" = 1 ] &&
			busy=$((busy + 1))
	fi
	sleep 0.2
done
wait $ppid
prc=$?
cat /tmp/probe2.out
check "10 scrapes during traffic all parse ($ok)" test $ok = 10
check "they saw the probe's open file on ipmi2 ($busy times)" test $busy -gt 0
check "the probe on ipmi2 was not disturbed" test $prc = 0
check "GET $URL" scrape /tmp/m3
is "ipmi2 counts the probe's 100 requests" 'kcsmux_requests_total{kcsmux_node="ipmi2"}' /tmp/m3 $((r2 + 100))

say "reload outcome"
cp /etc/kcsmux/kcsmux.conf /tmp/good.conf
printf 'bogus_key = 1\n' >>/etc/kcsmux/kcsmux.conf
kill -HUP $dpid
sleep 1
check "GET $URL" scrape /tmp/mr1
is "a rejected reload: last_success 0" 'kcsmux_reload_last_success' /tmp/mr1 0
is "... counted as rejected" 'kcsmux_reloads_total{result="rejected"}' /tmp/mr1 1
positive "... with its time" 'kcsmux_reload_last_timestamp_seconds' /tmp/mr1
cp /tmp/good.conf /etc/kcsmux/kcsmux.conf
kill -HUP $dpid
sleep 1
check "GET $URL" scrape /tmp/mr2
is "a good reload: last_success 1" 'kcsmux_reload_last_success' /tmp/mr2 1
is "... counted as applied" 'kcsmux_reloads_total{result="applied"}' /tmp/mr2 1

say "textfile"
# Nothing runs now; within 11 s the timer has written the final state.
sleep 11
check "GET $URL" scrape /tmp/m4
grammar "the textfile parses" $TEXTFILE
# The CPU estimates decay with time, and the daemon's own CPU grows with
# every scrape and textfile write (charged to no node); everything else
# must be equal.
positive "the textfile has the daemon's CPU" kcsmux_daemon_cpu_seconds_total $TEXTFILE
positive "/metrics has the daemon's CPU" kcsmux_daemon_cpu_seconds_total /tmp/m4
grep -Ev '^kcsmux_((poller_cpu|cpu_used)_ratio\{|daemon_cpu_seconds_total )' $TEXTFILE >/tmp/tf.cmp
grep -Ev '^kcsmux_((poller_cpu|cpu_used)_ratio\{|daemon_cpu_seconds_total )' /tmp/m4 >/tmp/m4.cmp
if cmp -s /tmp/tf.cmp /tmp/m4.cmp; then
	pass "the textfile holds what /metrics serves"
else
	fail "the textfile differs from /metrics:"
	diff /tmp/tf.cmp /tmp/m4.cmp | head -n 20
fi
is "the textfile has ipmi2's requests" 'kcsmux_requests_total{kcsmux_node="ipmi2"}' $TEXTFILE $((r2 + 100))
ls -l $TEXTFILE >/tmp/tfls
expect "the textfile is 0644" '^-rw-r--r-- ' /tmp/tfls
check "no temporary file is left" test ! -e $TEXTFILE.tmp

say "exit"
kill -USR1 $dpid
sleep 0.3
kill $dpid
wait $dpid
check "kcsmuxd exits 0 on SIGTERM" test $? = 0
check "the textfile is removed at exit" test ! -e $TEXTFILE
timeout 10 wget -q -O /dev/null "$URL" 2>/dev/null
check "nothing listens after exit" test $? != 0
echo "--- kcsmuxd log"
cat /tmp/kcsmuxd.log
echo "--- last scrape"
grep -v '_bucket{' /tmp/m4
summary
