#!/bin/bash
# vm.daemon-oracle (docs/security.md, "Hostile clients"): boot the guest
# with the delay proxy logging every request the BMC receives, run
# guest/daemon-oracle.sh (the hostile client node by node between markers),
# then check every logged request against its node's rules on the host
# (kcsmux-oracle-check). Fails if the guest fails or if the BMC saw any
# request outside what the sending node allows.
#
#   tests/vm/oracle.sh [--env ORACLE_COUNT=N] [more run.sh options]
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${KCSMUX_BUILD:-$here/../../build}
tmp=$(mktemp -d /tmp/kcsmux-oracle.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$here/run.sh" --bmc extern --delay fixed:100 --timeout 280 --out "$tmp/out" \
	--proxy-args "--log-requests $tmp/requests.log" "$@" \
	"$here/guest/daemon-oracle.sh"
rc=$?
if [ "$rc" != 0 ]; then
	echo "oracle.sh: the guest failed (exit $rc)"
	exit "$rc"
fi
[ -s "$tmp/out/kcsmux.conf" ] && [ -s "$tmp/requests.log" ] || {
	echo "oracle.sh: no config or no request log"
	exit 1
}
echo "oracle.sh: $(wc -l <"$tmp/requests.log") requests reached the BMC"
"$build/tests/tools/kcsmux-oracle-check" "$tmp/out/kcsmux.conf" \
	"$tmp/requests.log" o-deny o-sens o-ro o-oem
rc=$?
# keep the evidence of the last run
keep=${TMPDIR:-/tmp}/kcsmux-oracle-last
rm -rf "$keep" && mkdir -p "$keep" &&
	cp "$tmp/out/kcsmux.conf" "$tmp/requests.log" "$keep/" &&
	echo "oracle.sh: config and request log kept in $keep"
exit $rc
