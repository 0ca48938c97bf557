#!/bin/bash
# vm.pkg-admin: build the two .debs (tests/build-debs.sh), then boot the
# cached Debian 12 systemd guest (run.sh --systemd) with them and run
# tests/vm/guest/pkg-admin.sh: install, DKMS, enable --now, nodes, ipmitool,
# reload, journal, reboot, purge. Extra arguments go to run.sh.
#   pkg-admin.sh [--suite SUITE] [RUN_ARGS...]
# vm.pkg-admin@trixie: --suite trixie builds the .debs in Debian 13's
# chroot and boots the Debian 13 guest with its own kernel.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
suite=()
if [ "${1:-}" = --suite ]; then
	suite=(--suite "$2")
	shift 2
fi
debs=$("$KCSMUX_SRC/tests/build-debs.sh" "${suite[@]}" "$KCSMUX_BUILD")
adds=()
for d in $debs; do
	adds+=(--add "$d:/guest/debs/${d##*/}")
done
exec "$KCSMUX_SRC/tests/vm/run.sh" --systemd "${suite[@]}" --bmc extern "${adds[@]}" "$@" \
	"$KCSMUX_SRC/tests/vm/guest/pkg-admin.sh"
