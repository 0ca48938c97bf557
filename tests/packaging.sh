#!/bin/bash
# What `cmake --install` lays down works: every file in place, the systemd
# unit verifies, the example config passes kcsmuxd -n, and the DKMS source
# tree builds kcsraw.ko with dkms.conf's own MAKE line.
#   tests/packaging.sh BUILD_DIR
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"
build=${1:?usage: packaging.sh BUILD_DIR}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
DESTDIR=$dest cmake --install "$build" >/dev/null
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
root=$dest$prefix
fails=0 passes=0
ok() { echo "PASS: $*"; passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
for f in sbin/kcsmuxd sbin/kcsmuxctl share/man/man5/kcsmux.conf.5 \
	share/man/man8/kcsmuxd.8 share/doc/kcsmux/examples/kcsmux.conf \
	lib/systemd/system/kcsmuxd.service lib/udev/rules.d/60-kcsmux.rules \
	lib/modprobe.d/kcsraw.conf src/kcsraw-0.1.0/dkms.conf \
	src/kcsraw-0.1.0/include/kcsmux/kcsraw.h; do
	if [ -e "$root/$f" ]; then ok "installed $f"; else bad "missing $f"; fi
done
for m in "$root"/share/man/man*/*; do
	if man --warnings -l "$m" >/dev/null 2>"$dest/man.err" && [ ! -s "$dest/man.err" ]; then
		ok "man page ${m##*/} renders without warnings"
	else
		bad "man page ${m##*/}: $(cat "$dest/man.err")"
	fi
done
if command -v systemd-analyze >/dev/null; then
	sed "s|$prefix/sbin|$root/sbin|g" "$root/lib/systemd/system/kcsmuxd.service" \
		>"$dest/kcsmuxd.service"
	if systemd-analyze verify --man=no "$dest/kcsmuxd.service"; then
		ok "systemd-analyze verify kcsmuxd.service"
	else
		bad "systemd-analyze verify kcsmuxd.service"
	fi
fi
if "$root/sbin/kcsmuxd" -n -c "$root/share/doc/kcsmux/examples/kcsmux.conf" |
	grep -qx 'configuration OK'; then
	ok "the example config passes kcsmuxd -n"
else
	bad "the example config fails kcsmuxd -n"
fi
# DKMS: run dkms.conf's MAKE line the way dkms does (build = a copy of the
# source tree), against the guest kernel's headers.
kernel_source_dir=$("$KCSMUX_SRC/tests/vm/fetch-kernel.sh" --print-build-dir)
dkms_tree=$dest/dkms
mkdir -p "$dkms_tree/kcsraw/0.1.0"
cp -r "$root/src/kcsraw-0.1.0" "$dkms_tree/kcsraw/0.1.0/build"
# shellcheck disable=SC1090,SC2034
( PACKAGE_NAME= PACKAGE_VERSION= ; . "$root/src/kcsraw-0.1.0/dkms.conf"
  eval "${MAKE[0]}" ) >"$dest/dkms.log" 2>&1 || true
if [ -f "$dkms_tree/kcsraw/0.1.0/build/kcsraw.ko" ]; then
	ok "the DKMS tree builds kcsraw.ko with dkms.conf's MAKE"
else
	cat "$dest/dkms.log"
	bad "the DKMS tree does not build"
fi
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
