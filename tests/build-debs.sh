#!/bin/bash
# Build the two Debian packages (kcsmux, kcsraw-dkms) with CPack in a build
# tree of their own (prefix /usr, Debian's build flags, no sanitizers, no
# tests, no kmod: the module is built by DKMS on the target), and copy them
# into OUTDIR. Prints the .deb paths.
#   tests/build-debs.sh BUILD_DIR [OUTDIR]    (OUTDIR default BUILD_DIR/debs)
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"
build=${1:?usage: build-debs.sh BUILD_DIR [OUTDIR]}
out=${2:-$build/debs}
pb=$build/deb-build
mkdir -p "$pb" "$out"
# build.packaging and vm.pkg-admin may run at once (ctest -j2): one tree,
# one build at a time
exec 8>"$pb.lock"
flock 8
# dpkg-buildflags: hardening (fortify, stack protector, relro) as Debian
# builds its packages; -ffile-prefix-map keeps the build path out.
eval "$(cd "$KCSMUX_SRC" && dpkg-buildflags --export=sh)"
export LDFLAGS="$LDFLAGS -Wl,-z,now"
cmake -S "$KCSMUX_SRC" -B "$pb" -DCMAKE_INSTALL_PREFIX=/usr -DBUILD_TESTING=OFF \
	-DBUILD_KMOD=OFF -DSANITIZE=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$pb/configure.log" 2>&1 ||
	{ cat "$pb/configure.log" >&2; die "configuring the package build failed"; }
cmake --build "$pb" -j2 >"$pb/build.log" 2>&1 ||
	{ tail -n 40 "$pb/build.log" >&2; die "the package build failed"; }
rm -f "$pb"/*.deb
(cd "$pb" && cpack -G DEB) >"$pb/cpack.log" 2>&1 ||
	{ cat "$pb/cpack.log" >&2; die "cpack failed"; }
rm -f "$out"/kcsmux_*.deb "$out"/kcsraw-dkms_*.deb
cp "$pb"/*.deb "$out/"
ls "$out"/kcsmux_*.deb "$out"/kcsraw-dkms_*.deb
