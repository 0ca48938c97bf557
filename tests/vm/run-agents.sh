#!/bin/bash
# vm.agents: fetch the agents' packages (fetch-agents.sh), then boot the
# guest with them and the FreeIPMI programs the exporter runs, and run
# tests/vm/guest/agents.sh. Arguments go to run.sh before the script.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
args=$("$here/fetch-agents.sh" --add-args) || exit $?
mapfile -t adds <<<"$args"
exec "$here/run.sh" "${adds[@]}" "$@" "$here/guest/agents.sh"
