#!/bin/bash
# Fetch the Debian packages of the monitoring agents that vm.agents runs
# (prometheus-ipmi-exporter, collectd-core, ipmiutil) with apt-get download
# and unpack them with dpkg -x into the cache, like the guest kernel: nothing
# is installed on the host. Their shared libraries are the host's (FreeIPMI,
# OpenIPMI: tests/deps.sh installs them), copied into the guest by run.sh
# --add. Idempotent.
#
#   fetch-agents.sh             fetch/unpack, print the unpacked tree
#   fetch-agents.sh --add-args  the same, then print run.sh's arguments
#                               that bring the agents into the guest (one
#                               a line: --add, SRC:DEST), for vm.agents
#                               and the agent benchmark
# Exits 77 (CTest's skip) when the packages cannot be had.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs="prometheus-ipmi-exporter collectd-core ipmiutil"
root=$KCSMUX_CACHE/agents
if [ ! -f "$root/.done" ]; then
	log "fetching agent packages: $pkgs"
	debs=$KCSMUX_CACHE/debs
	mkdir -p "$debs"
	for p in $pkgs; do
		ls "$debs/${p}"_*.deb >/dev/null 2>&1 && continue
		(cd "$debs" && apt-get download -q -o APT::Sandbox::User=root "$p" >&2) ||
			{ echo "fetch-agents: cannot download $p" >&2; exit 77; }
	done
	rm -rf "$root.tmp"
	mkdir -p "$root.tmp"
	for p in $pkgs; do
		dpkg -x "$(ls "$debs/${p}"_*.deb | tail -n 1)" "$root.tmp"
	done
	rm -rf "$root"
	mv "$root.tmp" "$root"
	touch "$root/.done"
	log "agents ready in $root"
fi
if [ "${1:-}" != --add-args ]; then
	echo "$root"
	exit 0
fi
# the agents and their data, and the FreeIPMI programs the exporter runs
for f in /usr/bin/prometheus-ipmi-exporter /usr/sbin/collectd \
	/usr/lib/collectd/ipmi.so /usr/lib/collectd/csv.so \
	/usr/lib/collectd/logfile.so /usr/share/collectd/types.db \
	/usr/bin/ipmiutil; do
	printf -- '--add\n%s:%s\n' "$root$f" "$f"
done
for f in /usr/sbin/ipmimonitoring /usr/sbin/ipmi-dcmi; do
	printf -- '--add\n%s:%s\n' "$f" "$f"
done
