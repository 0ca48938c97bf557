#!/usr/bin/env python3
"""sel-bench-report.py DIR [--docs FILE --png FILE]: the SEL benchmark's
table and plot from what run-sel-bench.sh left in DIR (results.txt from
the guest, requests0.log and requests1.log from the delay proxies: the
node's BMC and stock's). Each run's BMC transactions are the requests
its BMC's proxy logged between the run's two markers (OEM 30:NN). With
--docs the report goes between the markers of FILE named by --marker
(default sel-bench); else to DIR/report.md."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_docs  # noqa: E402

# the node's added latency per request natively, one CPU (docs/bench-node.md)
NODE_NATIVE_US = 43.0
# the BMC's mean answer time in this rig (uniform 5-12 ms)
BMC_MEAN_MS = 8.5

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--docs")
ap.add_argument("--png")
ap.add_argument("--marker", default="sel-bench",
                help="the block's name in FILE (sel-bench-3000 for 3,000)")
a = ap.parse_args()
D = a.dir
BEGIN = f"<!-- {a.marker} begin -->"
END = f"<!-- {a.marker} end -->"


def kv(line):
    return dict(f.split("=", 1) for f in line.split() if "=" in f)


runs, entries = [], "?"
for line in open(os.path.join(D, "results.txt")):
    if line.startswith("entries="):
        entries = line.split("=", 1)[1].strip()
    elif line.startswith("row="):
        runs.append(kv(line))


def phases(path):
    """Requests per marker number: {m: (all, get_sel, sel_info, reserve)}."""
    out, cur = {}, None
    if not os.path.exists(path):
        return out
    for line in open(path):
        f = line.split()
        if len(f) < 2:
            continue
        nf, cmd = f[0].lower(), f[1].lower()
        if nf == "30":
            cur = int(cmd, 16)
            out.setdefault(cur, [0, 0, 0, 0])
            continue
        if cur is None:
            continue
        c = out[cur]
        c[0] += 1
        c[1] += (nf, cmd) == ("0a", "43")
        c[2] += (nf, cmd) == ("0a", "40")
        c[3] += (nf, cmd) == ("0a", "42")
    return out


node, stock = phases(os.path.join(D, "requests0.log")), \
    phases(os.path.join(D, "requests1.log"))
for r in runs:
    p = (stock if r["row"] == "stock" else node).get(int(r["marker"]),
                                                     [0, 0, 0, 0])
    r["tx"], r["get"], r["info"], r["res"] = p


def find(row, tool, readers):
    for r in runs:
        if (r["row"], r["tool"], r["readers"]) == (row, tool, readers):
            return r
    return None


L = []
P = L.append
P(f"SEL of {entries} entries, BMC answering in 5-12 ms; one boot, "
  "stock ipmi_si and the node side by side. Wall time of the readers "
  "(three at once: until the last is done); BMC transactions counted "
  "by the delay proxy between each run's markers.")
P("")
P("| run | tool | readers | wall s | BMC transactions | of which Get SEL "
  "Entry | SEL Info | Reserve | output as stock's |")
P("|---|---|---:|---:|---:|---:|---:|---:|---|")
# a tool whose single stock run failed is no reference; a run that fails
# beside a good reference is a result (stock's readers cancelling each
# other's reservations)
void = sorted({r["tool"] for r in runs if r["row"] == "stock" and
               r["readers"] == "1" and int(r["lines"]) < 2})
runs = [r for r in runs if r["tool"] not in void]
ref = {r["tool"]: r["lines"] for r in runs
       if r["row"] == "stock" and r["readers"] == "1"}
for r in runs:
    same = r["same"]
    if same == "no" and r["lines"] != ref.get(r["tool"]):
        n = int(r["lines"])
        same = f"no: {n} line{'' if n == 1 else 's'} of {ref.get(r['tool'])}"
    P(f"| {r['row']} | {r['tool']} | {r['readers']} | "
      f"{int(r['wall_ms']) / 1000:.2f} | {r['tx']} | {r['get']} | "
      f"{r['info']} | {r['res']} | {same} |")
P("")
if void:
    P(f"Left out: {', '.join(void)}, whose output was one line on stock "
      "too (the tool failed before reading the SEL).")
    P("")
P("Natively (estimated: the node's measured added latency of "
  f"{NODE_NATIVE_US:.0f} µs a request, one CPU, [bench-node.md]"
  "(bench-node.md), for each request the client sends, which is what "
  "stock puts on the BMC, plus the node's own BMC transactions at the "
  f"BMC's mean {BMC_MEAN_MS} ms; stock: its transactions at that mean):")
P("")
P("| tool | stock, s | node warm, s | faster |")
P("|---|---:|---:|---:|")
for tool in ("elist", "ipmi-sel"):
    s, w = find("stock", tool, "1"), find("node-warm", tool, "1")
    if not s or not w or s["tx"] == 0 or int(s["lines"]) < 2:
        continue
    st = s["tx"] * BMC_MEAN_MS / 1000
    nw = (s["tx"] * NODE_NATIVE_US / 1e6 + w["tx"] * BMC_MEAN_MS / 1000)
    P(f"| {tool} | {st:.2f} | {nw:.3f} | {st / nw:.0f}x |")
body = "\n".join(L)

if a.png:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 3.6))
        labels = [f"{r['row']}\n{r['tool']} x{r['readers']}" for r in runs]
        vals = [int(r["wall_ms"]) / 1000 for r in runs]
        cols = ["#888888" if r["row"] == "stock" else
                "#4477aa" if r["row"] == "node-cold" else "#228833"
                for r in runs]
        ax.bar(range(len(runs)), vals, color=cols)
        for i, r in enumerate(runs):
            ax.text(i, vals[i], f"{r['tx']} tx", ha="center",
                    va="bottom", fontsize=7)
        ax.set_xticks(range(len(runs)))
        ax.set_xticklabels(labels, fontsize=6)
        ax.set_ylabel("wall time, s")
        ax.set_title(f"SEL of {entries} entries: stock (grey), node cold "
                     "(blue), warm (green); BMC transactions on the bars",
                     fontsize=8)
        fig.tight_layout()
        fig.savefig(a.png, dpi=110)
        body += f"\n\n![SEL benchmark](img/{os.path.basename(a.png)})"
    except ImportError:
        print("no matplotlib: no plot", file=sys.stderr)

if a.docs:
    bench_docs.put_block(a.docs, BEGIN, END, body,
                         lambda text, block: text + "\n## Results\n\n" +
                         block + "\n")
else:
    with open(os.path.join(D, "report.md"), "w") as f:
        f.write(body + "\n")
print(body)
