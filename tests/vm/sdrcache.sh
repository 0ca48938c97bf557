#!/bin/bash
# vm.daemon-sdrcache: run tests/vm/guest/daemon-sdrcache.sh with the delay
# proxy logging every request that reaches the first BMC (the one behind
# kcsraw and the daemon), then count, between the guest's markers (OEM
# 30:51..30:58 sent straight through /dev/kcsraw0), the SDR and FRU reads
# that reached it: with the cache filled, none may; nor, once each form was
# seen, a Get Device SDR Info with data (the one without may be the cache's
# own revalidation).
#
#   tests/vm/sdrcache.sh [run.sh options]
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/kcsmux-sdrcache.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$here/run.sh" --bmc extern --second-kcs --delay fixed:100 --timeout 240 \
	--proxy-args "--log-requests $tmp/requests%n.log" "$@" \
	"$here/guest/daemon-sdrcache.sh"
rc=$?
[ "$rc" = 0 ] || { echo "sdrcache.sh: the guest failed (exit $rc)"; exit "$rc"; }
log=$tmp/requests0.log
[ -s "$log" ] || { echo "sdrcache.sh: no request log"; exit 1; }
# Per phase: Get SDR, Read FRU Data, Get SDR Repository Info, Reserve, all.
awk '
BEGIN { ph = "start" }
tolower($1) == "30" && $2 ~ /^5[1-8]$/ { ph = $2; order[++n] = ph; next }
{
	all[ph]++
	c = tolower($1) ":" tolower($2)
	if (c == "0a:23") get[ph]++
	if (c == "0a:11") fru[ph]++
	if (c == "04:21") dev[ph]++
	if (c == "0a:20") info[ph]++
	if (c == "0a:22") res[ph]++
	if (c == "04:20") { dinfo[ph]++; if (NF > 2) dinfod[ph]++ }
}
END {
	name["51"] = "first compare (fills)"
	name["52"] = "second compare (cached)"
	name["53"] = "list, uncached node"
	name["54"] = "list, caching node"
	name["56"] = "04:20 forms, first"
	name["57"] = "04:20 forms, again"
	printf "%-28s %8s %8s %8s %8s %8s %8s %8s\n", \
		"phase: requests at the BMC", "GET_SDR", "DEV_SDR", \
		"READ_FRU", "SDR_INFO", "RESERVE", "DEV_INFO", "ALL"
	for (i = 1; i <= n; i++) {
		p = order[i]
		if (!(p in name))
			continue
		printf "%-28s %8d %8d %8d %8d %8d %8d %8d\n", name[p], get[p], \
			dev[p], fru[p], info[p], res[p], dinfo[p], all[p]
	}
	bad = 0
	if (n != 8) { print "FAIL: markers missing (" n " of 8)"; bad = 1 }
	if (get["52"] + dev["52"] + fru["52"] != 0) { print "FAIL: the cached compare reached the BMC"; bad = 1 }
	if (dev["51"] < 3) { print "FAIL: no device SDR fill seen"; bad = 1 }
	if (get["54"] != 0) { print "FAIL: the cached list reached the BMC"; bad = 1 }
	if (get["53"] < 20) { print "FAIL: the uncached list did not read the BMC"; bad = 1 }
	if (get["51"] < 20) { print "FAIL: no fill seen"; bad = 1 }
	if (dinfod["56"] != 2) { print "FAIL: the first 04:20 00 and 01 did not reach the BMC (" dinfod["56"] ")"; bad = 1 }
	if (dinfod["57"] != 0) { print "FAIL: a known 04:20 form reached the BMC again"; bad = 1 }
	if (!bad) print "PASS: no SDR, FRU or known Get Device SDR Info read reached the BMC from the filled cache"
	exit bad
}' "$log"
