#!/bin/bash
# vm.daemon-coalesce: run tests/vm/guest/daemon-coalesce.sh with the delay
# proxy logging every request that reaches the BMC behind kcsraw, then
# count the Get Sensor Reading requests (04:2d) between the guest's
# markers (OEM 30:61..30:64 sent straight through /dev/kcsraw0): on the
# coalescing node exactly the reads sent less the ones the daemon says it
# coalesced, and fewer than sent; on the plain node every read; on the
# window node the first client's reads only (the second's took its
# answer: coalesce_window_ms).
#
#   tests/vm/coalesce.sh [run.sh options]
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/kcsmux-coalesce.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# The BMC takes 5 ms a request, so the two clients' reads overlap.
"$here/run.sh" --bmc extern --delay fixed:5000 --timeout 240 --out "$tmp/out" \
	--proxy-args "--log-requests $tmp/requests.log" "$@" \
	"$here/guest/daemon-coalesce.sh"
rc=$?
[ "$rc" = 0 ] || { echo "coalesce.sh: the guest failed (exit $rc)"; exit "$rc"; }
log=$tmp/requests.log
[ -s "$log" ] && [ -s "$tmp/out/counts" ] || {
	echo "coalesce.sh: no request log or no counts"
	exit 1
}
. "$tmp/out/counts" # sent=, coalesced=, win_sent=, win_recent=
awk -v sent="$sent" -v coal="$coalesced" -v wsent="$win_sent" -v wrecent="$win_recent" '
BEGIN { ph = "start" }
tolower($1) == "30" && $2 ~ /^6[1-4]$/ { ph = $2; n++; next }
tolower($1) == "04" && tolower($2) == "2d" { gsr[ph]++ }
END {
	printf "Get Sensor Reading at the BMC: coalescing node %d, plain node %d " \
		"(each node: %d sent, %d coalesced on the first)\n", \
		gsr["61"], gsr["62"], sent, coal
	printf "window node: %d at the BMC (%d sent, %d answered from a finished read)\n", \
		gsr["63"], wsent, wrecent
	bad = 0
	if (n != 4) { print "FAIL: markers missing (" n " of 4)"; bad = 1 }
	if (gsr["63"] != wsent - wrecent || wrecent == 0) {
		print "FAIL: the window node sent other than sent - answered from a finished read"
		bad = 1
	}
	if (gsr["62"] != sent) { print "FAIL: the plain node did not send every read"; bad = 1 }
	if (gsr["61"] != sent - coal) { print "FAIL: the coalescing node sent other than sent - coalesced"; bad = 1 }
	if (gsr["61"] >= sent) { print "FAIL: nothing coalesced at the BMC"; bad = 1 }
	if (!bad) print "PASS: two clients identical reads made one BMC transaction (" \
		coal " of " sent " answered with another client'"'"'s)"
	exit bad
}' "$log"
