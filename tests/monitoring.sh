#!/bin/sh
# The shipped monitoring assets (fused/dist/monitoring): promtool check
# rules and promtool test rules (each alert fires on the series kcsmuxd
# exports and stays quiet otherwise), and the Grafana dashboard is JSON
# with its panels' queries. Which kcsmux_ series they use is checked
# against a running daemon's /metrics by unit.test_metrics.
# promtool: from PATH, else from Debian bookworm's prometheus package,
# downloaded once (apt-get download) and unpacked under
# ~/.cache/kcsmux/promtool/VERSION; exit 77 (skipped) if neither works.
#   tests/monitoring.sh SRC
set -u
SRC=${1:?usage: monitoring.sh SRC}
M=$SRC/fused/dist/monitoring
PROM_VERSION=2.42.0+ds-5+deb12u1
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kcsmux/promtool/$PROM_VERSION
promtool=$(command -v promtool || true)
if [ -z "$promtool" ]; then
	if [ ! -x "$CACHE/usr/bin/promtool" ]; then
		mkdir -p "$CACHE" &&
			(cd "$CACHE" && apt-get download "prometheus=$PROM_VERSION" >dl.log 2>&1) &&
			dpkg-deb -x "$CACHE"/prometheus_*.deb "$CACHE" &&
			rm -f "$CACHE"/prometheus_*.deb
	fi
	promtool=$CACHE/usr/bin/promtool
fi
if [ ! -x "$promtool" ]; then
	echo "SKIP: no promtool (not in PATH, apt-get download prometheus failed)"
	exit 77
fi
fails=0
"$promtool" --version 2>&1 | head -n 1
(cd "$M" && "$promtool" check rules kcsmux.rules.yml) || fails=$((fails + 1))
(cd "$M" && "$promtool" test rules kcsmux.rules.test.yml) || fails=$((fails + 1))
python3 - "$M/kcsmux-grafana.json" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
assert d["uid"] == "kcsmux" and len(d["panels"]) >= 10, "panels"
assert all("kcsmux_" in e for e in exprs), "a panel without a kcsmux_ series"
assert not any('node="' in e or "by (node" in e for e in exprs), "the old node label"
print("dashboard: %d panels, %d queries" % (len(d["panels"]), len(exprs)))
PY
[ "$fails" = 0 ] && echo "monitoring: rules and dashboard OK"
[ "$fails" = 0 ]
