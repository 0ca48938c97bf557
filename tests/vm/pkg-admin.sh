#!/bin/bash
# vm.pkg-admin: build the two .debs (tests/build-debs.sh), then boot the
# cached Debian 12 systemd guest (run.sh --systemd) with them and run
# tests/vm/guest/pkg-admin.sh: install, DKMS, enable --now, nodes, ipmitool,
# reload, journal, the upgrade N -> N+1 (a second set of .debs with the
# next version), the fallback to ipmi_si (kcsmuxd failing for good, a boot
# without a loadable kcsraw), reboots, purge. Extra arguments go to run.sh.
#   pkg-admin.sh [--suite SUITE] [RUN_ARGS...]
# vm.pkg-admin@trixie: --suite trixie builds the .debs in Debian 13's
# chroot and boots the Debian 13 guest with its own kernel.
# After the install, kcsmuxctl doctor and the verified cutover's rollbacks
# (guest/cutover-scenarios.sh), behind the delay proxy, which plays the
# BMC's watchdog timer (ipmi_sim's ignores Reset Watchdog Timer) and whose
# --on rules answer Get SDR wrongly once the guest sends raw 0x30 0x10
# (0x30 0x12: rightly again) and keep the BMC silent for 60 s once it
# sends 0x30 0x11. The Ansible role (fleet/ansible) cuts over, runs
# again changing nothing, and rolls back in the Debian 12 guest
# (guest/ansible-role.sh; Debian 13's image has no ansible-core).
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
# version N+1 of both from the same source, for the upgrade
# (guest/upgrade-scenarios.sh): only the files that print the version
# are compiled again
v=$(dpkg-deb -f "$(echo "$debs" | grep '/kcsmux_')" Version)
v=${v%-*}
next=$("$KCSMUX_SRC/tests/build-debs.sh" "${suite[@]}" --version "${v%.*}.$((${v##*.} + 1))" \
	"$KCSMUX_BUILD" "$KCSMUX_BUILD/debs-next${suite[1]:+-${suite[1]}}")
for d in $next; do
	adds+=(--add "$d:/guest/debs-next/${d##*/}")
done
# the Ansible role (fleet/ansible), run by guest/ansible-role.sh
tar -C "$KCSMUX_SRC/fleet" -cf "$KCSMUX_BUILD/fleet-ansible.tar" ansible
exec "$KCSMUX_SRC/tests/vm/run.sh" --systemd "${suite[@]}" --bmc extern \
	--delay fixed:200 \
	--proxy-args "--watchdog --on 0x30:0x10=wrong,0x0a:0x23,40 --on 0x30:0x12=wrong,off --on 0x30:0x11=silence,60000" \
	--add "$KCSMUX_SRC/tests/vm/guest/cutover-scenarios.sh:/guest/cutover-scenarios.sh" \
	--add "$KCSMUX_SRC/tests/vm/guest/ansible-role.sh:/guest/ansible-role.sh" \
	--add "$KCSMUX_BUILD/fleet-ansible.tar:/guest/fleet-ansible.tar" \
	--add "$KCSMUX_SRC/tests/vm/guest/restart-scenarios.sh:/guest/restart-scenarios.sh" \
	--add "$KCSMUX_SRC/tests/vm/guest/upgrade-scenarios.sh:/guest/upgrade-scenarios.sh" \
	--add "$KCSMUX_SRC/tests/vm/guest/fallback-scenarios.sh:/guest/fallback-scenarios.sh" \
	"${adds[@]}" "$@" \
	"$KCSMUX_SRC/tests/vm/guest/pkg-admin.sh"
