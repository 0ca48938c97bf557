#!/bin/bash
# What each monitoring agent sent the BMC, from a vm.agents run traced by
# hand (docs/agents.md):
#   tests/vm/run-agents.sh --keep --bmc extern --second-kcs --delay fixed:50 \
#       --proxy-args "-v --answer ..." --env TRACE_MARKS=1
#   tests/vm/agents-trace.sh build/vm/runs/RUN
# reads the second KCS's (stock side's) delay proxy log, split at the OEM
# 30:7N markers agents.sh sends before each agent, and prints per agent the
# requests (netfn:cmd, count) that reached the BMC. The stock driver's own
# message-flag polling (06:31, 06:33) is left out.
set -euo pipefail
log=${1:?usage: agents-trace.sh RUN_DIR}/bmc1/proxy.log
[ -f "$log" ] || { echo "agents-trace: no $log (run with --keep and -v)" >&2; exit 1; }
awk '
BEGIN {
	split("ipmi-sensors ipmi-sel ipmi-dcmi bmc-info sdr-elist " \
	      "chassis-power-status dcmi-power-reading ipmiutil-sensor " \
	      "ipmiutil-health ipmi_exporter collectd end", names, " ")
	agent = ""
}
/host->bmc msg/ {
	n = c = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^netfn=/) n = substr($i, 7)
		if ($i ~ /^cmd=/) c = substr($i, 5)
	}
	if (n == "0x30" && c ~ /^0x7[1-9a-c]$/) {
		agent = names[strtonum(c) - 0x70]
		order[++na] = agent
		next
	}
	if (agent == "" || agent == "end" || (n == "0x06" && (c == "0x31" || c == "0x33")))
		next
	p = substr(n, 3) ":" substr(c, 3)
	k = agent " " p
	if (!(k in cnt))
		keys[agent] = keys[agent] " " p
	cnt[k]++
}
END {
	for (i = 1; i <= na; i++) {
		a = order[i]
		if (a == "end") continue
		printf "%-22s", a
		m = split(keys[a], ks, " ")
		for (j = 1; j <= m; j++)
			printf " %s(%d)", ks[j], cnt[a " " ks[j]]
		printf "\n"
	}
}' "$log"
