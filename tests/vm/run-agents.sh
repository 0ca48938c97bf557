#!/bin/bash
# vm.agents: fetch the agents' packages (fetch-agents.sh), then boot the
# guest with them and the FreeIPMI programs the exporter runs, and run
# tests/vm/guest/agents.sh. Arguments go to run.sh before the script.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$("$here/fetch-agents.sh") || exit $?
adds=()
for f in /usr/bin/prometheus-ipmi-exporter /usr/sbin/collectd \
	/usr/lib/collectd/ipmi.so /usr/lib/collectd/csv.so \
	/usr/lib/collectd/logfile.so /usr/share/collectd/types.db \
	/usr/bin/ipmiutil; do
	adds+=(--add "$root$f:$f")
done
for f in /usr/sbin/ipmimonitoring /usr/sbin/ipmi-dcmi; do
	adds+=(--add "$f:$f")
done
exec "$here/run.sh" "${adds[@]}" "$@" "$here/guest/agents.sh"
