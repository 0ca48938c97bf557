#!/bin/bash
# For the guest kernel KCSMUX_KERNEL (6.12, 7.2: another Debian suite's
# kernel, see lib.sh): fetch it (tests/vm/fetch-kernel.sh) and build
# kcsraw.ko in that suite's chroot, with its compiler, W=1, the way dkms would (make -C /lib/modules/KVER/build), into
# $KCSMUX_BUILD/kmod-KVER/ (a build directory per kernel; incremental:
# sources are copied with their times, Kbuild rebuilds what changed).
# Debian 12's 6.1 module is the CMake build's (build/kmod/kcsraw.ko).
# Prints the module's path.
#   build-kmod.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "${KCSMUX_KERNEL:-6.1}" != 6.1 ] || die "6.1's kcsraw.ko is built by CMake (target kmod)"
kver=$(guest_kver)
chr=$(kernel_chroot "$KCSMUX_KERNEL")
"$KCSMUX_SRC/tests/vm/fetch-kernel.sh" >&2
d=$KCSMUX_BUILD/kmod-$kver
mkdir -p "$d/kmod" "$d/include"
# One build at a time in this tree (two untimed guests may start together).
exec 7>"$d.lock"
flock 7
cp -rp "$KCSMUX_SRC"/kmod/. "$d/kmod/"
cp -rp "$KCSMUX_SRC"/include/. "$d/include/"
if ! "$KCSMUX_SRC/tests/chroot.sh" --run "$chr" --bind "$d:/build" -- \
	make -s -C "/lib/modules/$kver/build" M=/build/kmod \
	KCSMUX_INCLUDE=/build/include W=1 modules >"$d/build.log" 2>&1; then
	cat "$d/build.log" >&2
	die "kcsraw.ko does not build against $kver"
fi
echo "$d/kmod/kcsraw.ko"
