#!/bin/bash
# vm.daemon-sdrcache: run tests/vm/guest/daemon-sdrcache.sh with the delay
# proxy logging every request that reaches the first BMC (the one behind
# kcsraw and the daemon), then count, between the guest's markers (OEM
# 30:51..30:58 sent straight through /dev/kcsraw0), the SDR and FRU reads
# that reached it: with the cache filled, none may; nor, once each form was
# seen, a Get Device SDR Info with data (the one without may be the cache's
# own revalidation). The SEL (the BMCs hold 1,000 entries more than
# sel.txt's, KCSMUX_BMC_SEL_EXTRA): between markers 59 and 60 the cold
# list fills the mirror, the warm lists and the three readers at once
# send no Get SEL Entry, the list after an add and a delete only the
# sync's few.
#
#   tests/vm/sdrcache.sh [run.sh options]
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/kcsmux-sdrcache.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
KCSMUX_BMC_SEL_EXTRA=${KCSMUX_BMC_SEL_EXTRA:-1000} \
	"$here/run.sh" --bmc extern --second-kcs --delay fixed:100 --timeout 480 \
	--proxy-args "--log-requests $tmp/requests%n.log" "$@" \
	"$here/guest/daemon-sdrcache.sh"
rc=$?
[ "$rc" = 0 ] || { echo "sdrcache.sh: the guest failed (exit $rc)"; exit "$rc"; }
log=$tmp/requests0.log
[ -s "$log" ] || { echo "sdrcache.sh: no request log"; exit 1; }
# Per phase: Get SDR, Read FRU Data, Get SDR Repository Info, Reserve, all.
awk '
BEGIN { ph = "start" }
tolower($1) == "30" && tolower($2) ~ /^(5[1-9a-f]|60)$/ { ph = tolower($2); order[++n] = ph; next }
{
	all[ph]++
	c = tolower($1) ":" tolower($2)
	if (c == "0a:23") get[ph]++
	if (c == "0a:11") fru[ph]++
	if (c == "04:21") dev[ph]++
	if (c == "0a:20") info[ph]++
	if (c == "0a:22") res[ph]++
	if (c == "04:20") { dinfo[ph]++; if (NF > 2) dinfod[ph]++ }
	if (c == "0a:43") selget[ph]++
	if (c == "0a:40") selinfo[ph]++
	if (c == "0a:42") selres[ph]++
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
	sname["59"] = "sel elist x3 at once, cold"
	sname["5a"] = "ipmitool sel elist, warm"
	sname["5c"] = "ipmi-sel, warm"
	sname["5d"] = "ipmi-sel x3 at once"
	sname["5f"] = "elist after add + delete"
	printf "%-28s %8s %8s %8s %8s\n", "phase: SEL at the BMC", "GET_SEL", \
		"SEL_INFO", "RESERVE", "ALL"
	for (i = 1; i <= n; i++) {
		p = order[i]
		if (!(p in sname))
			continue
		printf "%-28s %8d %8d %8d %8d\n", sname[p], selget[p], \
			selinfo[p], selres[p], all[p]
	}
	bad = 0
	if (n != 16) { print "FAIL: markers missing (" n " of 16)"; bad = 1 }
	if (selget["59"] < 1000) { print "FAIL: no SEL fill seen (" selget["59"] ")"; bad = 1 }
	if (selget["59"] > 1100) { print "FAIL: the three cold lists read the SEL more than once (" selget["59"] ")"; bad = 1 }
	# the fill must not hold an SDR read of the lists for revalidation
	# after revalidation (it once asked for ~1,000 during the fill)
	if (info["59"] > 12) { print "FAIL: " info["59"] " Get SDR Repository Info during the cold lists"; bad = 1 }
	if (selget["5a"] + selget["5c"] + selget["5d"] != 0) { print "FAIL: a warm SEL list reached the BMC"; bad = 1 }
	if (selget["5f"] > 4) { print "FAIL: the sync read more than the new entries (" selget["5f"] ")"; bad = 1 }
	if (get["52"] + dev["52"] + fru["52"] != 0) { print "FAIL: the cached compare reached the BMC"; bad = 1 }
	if (dev["51"] < 3) { print "FAIL: no device SDR fill seen"; bad = 1 }
	if (get["54"] != 0) { print "FAIL: the cached list reached the BMC"; bad = 1 }
	if (get["53"] < 20) { print "FAIL: the uncached list did not read the BMC"; bad = 1 }
	if (get["51"] < 20) { print "FAIL: no fill seen"; bad = 1 }
	if (dinfod["56"] != 2) { print "FAIL: the first 04:20 00 and 01 did not reach the BMC (" dinfod["56"] ")"; bad = 1 }
	if (dinfod["57"] != 0) { print "FAIL: a known 04:20 form reached the BMC again"; bad = 1 }
	if (!bad) print "PASS: no SDR, FRU or known Get Device SDR Info read reached the BMC from the filled cache, no SEL entry from the filled mirror"
	exit bad
}' "$log"
