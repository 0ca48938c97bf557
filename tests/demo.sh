#!/bin/bash
# The kcsmux demo: boots the test VM with the emulated KCS BMC (ipmi_sim with
# the project's sensors, SDRs, FRU and SEL, behind the delay proxy's
# realistic 200-2000 us model), loads kcsraw.ko, starts kcsmuxd with three
# nodes of different policies, runs real clients on each at once and prints
# the daemon's per-node table.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/deps.sh"
kcsmux_install_deps
build=${KCSMUX_BUILD:-$src/build}
export KCSMUX_BUILD=$build
cmake -S "$src" -B "$build" -DSANITIZE=ON >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
exec "$src/tests/vm/run.sh" --bmc extern --delay seed "$src/tests/vm/guest/demo.sh"
