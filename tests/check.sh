#!/bin/bash
# The whole kcsmux test suite: installs what it needs (Debian 12, as root),
# builds with ASan/UBSan, runs the host unit tests and the VM tests under
# CTest, and prints CTest's summary and how long the VM part took.
#
#   tests/check.sh [-L LABEL_REGEX] [extra ctest args...]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/deps.sh"
kcsmux_install_deps

build=${KCSMUX_BUILD:-$src/build}
export KCSMUX_BUILD=$build
cmake -S "$src" -B "$build" -DSANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
if ! cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1; then
	cat "$build/build.log"
	echo "check.sh: build failed" >&2
	exit 1
fi

t0=$(date +%s)
set +e
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@"
rc=$?
set -e
echo "check.sh: tests took $(( $(date +%s) - t0 ))s in all (CTest's label summary above gives the VM part)"
exit $rc
