#!/bin/bash
# The developer's inner loop, ahead of the VM suite (tests/check.sh): the
# userspace style (format.sh), kmod/ under checkpatch.pl --strict (skipped
# without one: tests/checkpatch.sh --fetch), the commit messages
# (commits.sh), parameter counts (params.py) and layers (layers.sh), and
# the host unit tests (CTest label unit) built with
# ASan/UBSan. About two minutes on two cores after the first build; no VM,
# no root needed (the root-only cases skip). Installs nothing.
#
#   tests/fast.sh [extra ctest args...]     build dir: $KCSMUX_BUILD or build/
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${KCSMUX_BUILD:-$src/build}
jobs=${KCSMUX_JOBS:-$(nproc)}
rc=0
step() { # step NAME CMD...: run it, 77 is a skip
	local t0 r=0
	t0=$(date +%s)
	"${@:2}" || r=$?
	case $r in
	0) echo "fast.sh: $1 ok ($(($(date +%s) - t0))s)" ;;
	77) echo "fast.sh: $1 skipped" ;;
	*) echo "fast.sh: $1 FAILED" >&2; rc=1 ;;
	esac
}
step format "$src/tests/format.sh"
step checkpatch "$src/tests/checkpatch.sh"
step commits "$src/tests/commits.sh"
step params python3 "$src/tests/params.py" "$src"
build_units() {
	cmake -S "$src" -B "$build" -DSANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
		cmake --build "$build" -j "$jobs" --target unit_tests kcsmuxd kcsmux_backend >"$build/fast-build.log" 2>&1 ||
		{ tail -n 40 "$build/fast-build.log"; return 1; }
}
step build build_units
[ "$rc" = 0 ] || exit 1
step layers "$src/tests/layers.sh" "$build"
step "unit tests" ctest --test-dir "$build" -L unit -j "$jobs" --output-on-failure "$@"
exit $rc
