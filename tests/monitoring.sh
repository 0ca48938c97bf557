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
import json, re, sys
d = json.load(open(sys.argv[1]))
targets = [(p, t) for p in d["panels"] for t in p.get("targets", [])]
exprs = [t["expr"] for p, t in targets]
assert d["uid"] == "kcsmux" and len(d["panels"]) >= 10, "panels"
assert all("kcsmux_" in e for e in exprs), "a panel without a kcsmux_ series"
assert not any('node="' in e or "by (node" in e for e in exprs), "the old node label"
# several hosts selected: every aggregation keeps the host apart, and
# every series says which host it is
for p, t in targets:
    for m in re.finditer(r"\b(sum|min|max|avg|count)\s*(by\s*\(([^)]*)\))?\s*\(", t["expr"]):
        assert m.group(3) and "instance" in m.group(3).split(", "), \
            "%s: %s aggregates across hosts" % (p["title"], m.group(0))
    assert "{{instance}}" in t.get("legendFormat", ""), "%s: no {{instance}} in the legend" % p["title"]
# a node's CPU beside its own budget: the same series keys
cpu = [p for p in d["panels"] if p["title"] == "CPU and budget"][0]["targets"]
by = [re.findall(r"(?:sum|max) by \(([^)]*)\)", t["expr"]) for t in cpu[:2]]
assert by[0] and set(by[0]) == set(by[1]) == {"instance, kcsmux_node"}, by
assert "kcsmux_cpu_budget_ratio" in cpu[1]["expr"], "the budget series"
for name in ("kcsmux_bmc_up", "kcsmux_stock_bypass", "kcsmux_kcsraw_info"):
    assert any(name in e for e in exprs), "no panel for " + name
print("dashboard: %d panels, %d queries" % (len(d["panels"]), len(exprs)))
PY
# docs/operating.md's 80 % budget alert is the shipped KcsmuxCpuBudgetHigh
python3 - "$M/kcsmux.rules.yml" "$SRC/docs/operating.md" <<'PY' || fails=$((fails + 1))
import re, sys
rules, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
m = re.search(r"- alert: KcsmuxCpuBudgetHigh\n\s+expr: >\n((?:\s{10}.*\n)+)", rules)
assert m, "no KcsmuxCpuBudgetHigh in the rules"
rule = " ".join(m.group(1).split())
blocks = re.findall(r"```\n(.*?)```", doc, re.S)
docexpr = [" ".join(l for l in b.splitlines() if not l.strip().startswith("#")).split()
           for b in blocks if "kcsmux_cpu_budget_ratio" in b]
assert any(" ".join(x).endswith(rule) for x in docexpr), \
    "operating.md's budget alert is not KcsmuxCpuBudgetHigh's expression: " + rule
assert "KcsmuxCpuBudgetHigh" in doc
print("operating.md: the budget alert is the shipped rule")
PY
# the exposition's names against Prometheus' naming rules: the golden
# render of unit.test_metrics (the daemon's output, byte for byte)
python3 - "$SRC/tests/unit/test_metrics.c" >"${TMPDIR:-/tmp}/kcsmux-golden.$$" <<'PY' || fails=$((fails + 1))
import re, sys
s = open(sys.argv[1]).read()
i = s.index("static const char empty_golden[] =")
body = s[i:s.index("\";\n", i) + 1]
text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', body))
sys.stdout.write(text.encode().decode("unicode_escape"))
PY
"$promtool" check metrics <"${TMPDIR:-/tmp}/kcsmux-golden.$$" || fails=$((fails + 1))
grep -c '^# TYPE' "${TMPDIR:-/tmp}/kcsmux-golden.$$" | sed 's/$/ families: promtool check metrics OK/'
rm -f "${TMPDIR:-/tmp}/kcsmux-golden.$$"
[ "$fails" = 0 ] && echo "monitoring: rules and dashboard OK"
[ "$fails" = 0 ]
