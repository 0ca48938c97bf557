#!/bin/bash
# Build the two Debian packages (kcsmux, kcsraw-dkms) with CPack in a build
# tree of their own (prefix /usr, Debian's build flags, no sanitizers, no
# tests, no kmod: the module is built by DKMS on the target), and copy them
# into OUTDIR. Prints the .deb paths.
#   tests/build-debs.sh [--suite SUITE] [--version V] BUILD_DIR [OUTDIR]
# --version V: packages of version V (V-1) from the same source, in the same
# package tree (only the files that print the version are compiled again):
# vm.pkg-admin's upgrade N -> N+1. Without it, the version of the source
# (fused/dist/version.cmake).
# OUTDIR defaults to BUILD_DIR/debs (BUILD_DIR/debs-SUITE). With --suite,
# the packages are built in that Debian suite's chroot (tests/userland.sh
# --chroot): its compiler, build flags and libraries, so dpkg-shlibdeps
# gives Depends on that suite's library packages.
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"
usage="usage: build-debs.sh [--suite SUITE] [--version V] BUILD_DIR [OUTDIR]"
suite="" version=""
while :; do
	case "${1:-}" in
	--suite) suite=${2:?$usage} ;;
	--version) version=${2:?$usage} ;;
	*) break ;;
	esac
	shift 2
done
build=${1:?$usage}
out=${2:-$build/debs${suite:+-$suite}}
if [ -n "$suite" ]; then
	# the same paths inside the chroot as outside
	build=$(realpath -m "$build")
	out=$(realpath -m "$out")
	# the source's version, from its git history here: the chroot sees
	# the tree but not a worktree's git directory (fused/dist/version.cmake)
	if [ -z "$version" ] && n=$(git -C "$KCSMUX_SRC" rev-list --count HEAD 2>/dev/null); then
		version=$(sed -n 's/^project(kcsmux VERSION \([0-9.]*\).*/\1/p' "$KCSMUX_SRC/CMakeLists.txt").$n
	fi
	chr=$("$KCSMUX_SRC/tests/userland.sh" --chroot "$suite")
	mkdir -p "$build/deb-build-$suite" "$out"
	"$KCSMUX_SRC/tests/chroot.sh" --run "$chr" --bind "$KCSMUX_SRC" \
		--bind "$build/deb-build-$suite" --bind "$out" -- \
		env KCSMUX_DEB_TREE="$build/deb-build-$suite" \
		"$KCSMUX_SRC/tests/build-debs.sh" ${version:+--version "$version"} \
		"$build" "$out" >/dev/null
	ls "$out"/kcsmux_*.deb "$out"/kcsraw-dkms_*.deb
	exit 0
fi
pb=${KCSMUX_DEB_TREE:-$build/deb-build}
mkdir -p "$pb" "$out"
# build.packaging and vm.pkg-admin may run at once (ctest -j2): one tree,
# one build at a time
exec 8>"$pb/.lock"
flock 8
# dpkg-buildflags: hardening (fortify, stack protector, relro) as Debian
# builds its packages; -ffile-prefix-map keeps the build path out.
eval "$(cd "$KCSMUX_SRC" && dpkg-buildflags --export=sh)"
export LDFLAGS="$LDFLAGS -Wl,-z,now"
cmake -S "$KCSMUX_SRC" -B "$pb" -DCMAKE_INSTALL_PREFIX=/usr -DBUILD_TESTING=OFF \
	-DBUILD_KMOD=OFF -DSANITIZE=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DKCSMUX_VERSION_OVERRIDE="$version" >"$pb/configure.log" 2>&1 ||
	{ cat "$pb/configure.log" >&2; die "configuring the package build failed"; }
cmake --build "$pb" -j2 >"$pb/build.log" 2>&1 ||
	{ tail -n 40 "$pb/build.log" >&2; die "the package build failed"; }
rm -f "$pb"/*.deb
(cd "$pb" && cpack -G DEB) >"$pb/cpack.log" 2>&1 ||
	{ cat "$pb/cpack.log" >&2; die "cpack failed"; }
rm -f "$out"/kcsmux_*.deb "$out"/kcsraw-dkms_*.deb
cp "$pb"/*.deb "$out/"
ls "$out"/kcsmux_*.deb "$out"/kcsraw-dkms_*.deb
