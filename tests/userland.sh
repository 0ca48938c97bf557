#!/bin/bash
# build.userland@SUITE: the whole tree (daemon, CLI, test tools, unit
# suites; not kcsraw.ko, which build.kmod-* builds against each kernel)
# with -Werror and the sanitizers, by another Debian suite's own compiler
# and libraries (libfuse3, libevent, Check, libinih, libseccomp) in a
# cached chroot (tests/chroot.sh), then its unit label there. Fails on any
# compiler warning, not only on errors.
#   tests/userland.sh SUITE [BUILD_DIR]      (tree in BUILD_DIR/userland-SUITE)
#   tests/userland.sh --chroot SUITE         print the suite's chroot (made once)
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"

# The suite's one chroot (tests/vm/lib.sh suite_chroot): the tree, its
# packages (tests/build-debs.sh) and kcsraw.ko against its kernel.
userland_chroot() {
	suite_chroot "$1"
}
if [ "${1:-}" = --chroot ]; then
	userland_chroot "${2:?usage: userland.sh --chroot SUITE}"
	exit 0
fi
suite=${1:?usage: userland.sh SUITE [BUILD_DIR]}
out=${2:-$KCSMUX_BUILD}/userland-$suite
chr=$(userland_chroot "$suite")
mkdir -p "$out"
# ccache, one per chroot (a new chroot starts it empty): a fresh clone
# compiles what an earlier clone compiled from the cache. Paths under the
# tree are hashed relative to it, so clones in other directories hit too.
ccache_dir=$KCSMUX_CACHE/ccache-${chr##*/}
mkdir -p "$ccache_dir"
in_chroot() {
	"$KCSMUX_SRC/tests/chroot.sh" --run "$chr" --bind "$KCSMUX_SRC" --bind "$out" \
		--bind "$ccache_dir" -- env CCACHE_DIR="$ccache_dir" \
		CCACHE_BASEDIR="$KCSMUX_SRC" CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=1G "$@"
}
in_chroot sh -c 'echo "$(gcc --version | sed -n 1p); libfuse $(pkg-config --modversion fuse3), libevent $(pkg-config --modversion libevent)"'
# The tree: configured once (a new chroot makes a new tree), built
# incrementally (-Werror: a file with a warning has no object, so it is
# compiled, and fails, again in the next run); a warning -Werror does not
# stop (a linker's, #warning) fails the test too.
if [ "$(cat "$out/.chroot" 2>/dev/null)" != "$chr" ]; then
	find "$out" -mindepth 1 -delete
	echo "$chr" >"$out/.chroot"
fi
in_chroot cmake -S "$KCSMUX_SRC" -B "$out" -DSANITIZE=ON -DBUILD_KMOD=OFF \
	-DCMAKE_C_COMPILER_LAUNCHER=ccache \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >"$out/configure.log" 2>&1 ||
	{ cat "$out/configure.log"; die "configuring on $suite failed"; }
# One compiler job: under ctest this test runs beside the VM tests, whose
# guest must keep the other core.
in_chroot ccache -z >/dev/null
in_chroot cmake --build "$out" -j1 >"$out/build.log" 2>&1 ||
	{ grep -E -B2 -A6 'error|warning' "$out/build.log" | head -n 80
	  die "the tree does not build on $suite"; }
if grep 'warning:' "$out/build.log"; then
	die "the tree builds on $suite, with the warnings above"
fi
echo "the tree builds on $suite without a warning"
in_chroot ccache --print-stats | awk '$1 ~ /_cache_hit$/ { h += $2 } $1 == "cache_miss" { m = $2 }
	END { print "ccache: " h + 0 " hits, " m + 0 " misses" }'
# Two unit suites at a time: half their time is waiting (timers, sockets).
in_chroot ctest --test-dir "$out" -L unit -j2 --output-on-failure >"$out/ctest.log" 2>&1 ||
	{ cat "$out/ctest.log"; die "unit tests fail on $suite"; }
sed -n '/tests passed/p; /Skipped\|Not Run/p' "$out/ctest.log"
n=$(sed -n 's/.* tests passed, 0 tests failed out of \([0-9]*\)$/\1/p' "$out/ctest.log")
[ "${n:-0}" -ge 20 ] || die "only ${n:-0} unit tests ran on $suite"
echo "unit tests pass on $suite"
