#!/bin/bash
# The kcsmux demo: boots the test VM with the emulated KCS BMC (ipmi_sim with
# the project's sensors, SDRs, FRU and SEL) and runs real IPMI clients.
# Until the daemon exists this is the stock-driver smoke run.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/deps.sh"
kcsmux_install_deps
build=${KCSMUX_BUILD:-$src/build}
export KCSMUX_BUILD=$build
cmake -S "$src" -B "$build" -DSANITIZE=ON >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
exec "$src/tests/vm/run.sh" --bmc extern "$src/tests/vm/guest/smoke-stock.sh"
