#!/bin/bash
# vm.pkg-admin: build the two .debs (tests/build-debs.sh), then boot the
# cached Debian 12 systemd guest (run.sh --systemd) with them and run
# tests/vm/guest/pkg-admin.sh: install, DKMS, enable --now, nodes, ipmitool,
# reload, journal, reboot, purge. Extra arguments go to run.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
debs=$("$KCSMUX_SRC/tests/build-debs.sh" "$KCSMUX_BUILD")
adds=()
for d in $debs; do
	adds+=(--add "$d:/guest/debs/${d##*/}")
done
exec "$KCSMUX_SRC/tests/vm/run.sh" --systemd --bmc extern "${adds[@]}" "$@" \
	"$KCSMUX_SRC/tests/vm/guest/pkg-admin.sh"
