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
in_chroot() {
	"$KCSMUX_SRC/tests/chroot.sh" --run "$chr" --bind "$KCSMUX_SRC" --bind "$out" -- "$@"
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
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >"$out/configure.log" 2>&1 ||
	{ cat "$out/configure.log"; die "configuring on $suite failed"; }
# One job, in the build and the unit tests: under ctest -j2 this test runs
# beside the VM tests, whose guest must keep the other core.
in_chroot cmake --build "$out" -j1 >"$out/build.log" 2>&1 ||
	{ grep -E -B2 -A6 'error|warning' "$out/build.log" | head -n 80
	  die "the tree does not build on $suite"; }
if grep 'warning:' "$out/build.log"; then
	die "the tree builds on $suite, with the warnings above"
fi
echo "the tree builds on $suite without a warning"
in_chroot ctest --test-dir "$out" -L unit -j1 --output-on-failure >"$out/ctest.log" 2>&1 ||
	{ cat "$out/ctest.log"; die "unit tests fail on $suite"; }
sed -n '/tests passed/p; /Skipped\|Not Run/p' "$out/ctest.log"
n=$(sed -n 's/.* tests passed, 0 tests failed out of \([0-9]*\)$/\1/p' "$out/ctest.log")
[ "${n:-0}" -ge 20 ] || die "only ${n:-0} unit tests ran on $suite"
echo "unit tests pass on $suite"
