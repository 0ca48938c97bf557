#!/bin/bash
# The whole kcsmux test suite: installs what it needs (Debian 12, as root),
# builds with ASan/UBSan, runs the host unit tests and the VM tests under
# CTest, and prints CTest's summary and how long the VM part took.
#
#   tests/check.sh [-L LABEL_REGEX] [extra ctest args...]
set -euo pipefail
start=$(date +%s)
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

# libFuzzer targets (clang; tests/fuzz): every seed once, then a short
# fuzzing run each (FUZZ_SECONDS). Longer runs by hand: docs/testing.md.
fuzz=${KCSMUX_FUZZ_BUILD:-$build-fuzz}
frc=0
if [ "${KCSMUX_SKIP_FUZZ:-0}" != 1 ]; then
	CC=clang-14 cmake -S "$src" -B "$fuzz" -DFUZZ=ON -DBUILD_KMOD=OFF \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	if cmake --build "$fuzz" -j "$(nproc)" --target fuzz_targets >"$fuzz/build.log" 2>&1; then
		ctest --test-dir "$fuzz" -L fuzz --output-on-failure -j "$(nproc)" || frc=$?
	else
		cat "$fuzz/build.log"
		echo "check.sh: fuzz build failed" >&2
		frc=1
	fi
fi

# checkpatch.pl for build.checkpatch (kmod/ --strict clean): Debian ships it
# only in linux-source-6.1; fetched once into the cache (tests/checkpatch.sh).
"$src/tests/checkpatch.sh" --fetch >/dev/null 2>&1 ||
	echo "check.sh: tests/checkpatch.sh --fetch did not succeed (build.checkpatch will say why)"

t0=$(date +%s)
set +e
# -j one above the cpu slots: the extra job is a BMC profile's guest,
# which takes none (tests/vm/resources.json, tests/vm/CMakeLists.txt).
slots=$(sed -n 's/.*"cpu": \[ { "id": "[a-z_]*", "slots": \([0-9]*\) }.*/\1/p' \
	"$src/tests/vm/resources.json")
ctest --test-dir "$build" --output-on-failure -j "$((${slots:-2} + 1))" \
	--resource-spec-file "$src/tests/vm/resources.json" "$@" | tee "$build/ctest.out"
rc=${PIPESTATUS[0]}
set -e
# The budget stays visible: the ten slowest tests, and the whole run.
echo "check.sh: the ten slowest tests:"
sed -n 's/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .* \([0-9.]*\) sec$/\2 \1/p' "$build/ctest.out" |
	sort -rn | head -n 10 | awk '{ printf "check.sh:   %7.1f s  %s\n", $1, $2 }'
# What the guests cost the host (run.sh's "host CPU" line in each test's
# output): the part of the budget that a busy other core stretches.
awk '/guest exit [0-9]+ after .*, host CPU [0-9]+s/ { n++; sub(/.*host CPU /, ""); c += $0 + 0 }
	END { if (n) printf "check.sh: %d guests took %d s of host CPU\n", n, c }' \
	"$build/Testing/Temporary/LastTest.log" 2>/dev/null || true
echo "check.sh: CTest took $(( $(date +%s) - t0 ))s; the whole run $(( $(date +%s) - start ))s"
[ "$frc" = 0 ] || { echo "check.sh: the fuzz tests failed (see above)" >&2; rc=1; }
exit $rc
