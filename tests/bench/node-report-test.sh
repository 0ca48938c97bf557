#!/bin/sh
# unit.node_bench_report: node-bench-report.py renders a synthetic run
# (testdata/node-bench: every file node-bench.sh leaves, every row and
# kind the report reads, made-up figures) to exactly the report the
# renderer gave before it left run-node-bench.sh's heredoc
# (testdata/node-bench.expected.md): tables, reading and all.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$here/testdata/node-bench" "$tmp/run"
KCSMUX_BENCH_TAG=node-bench python3 "$here/node-bench-report.py" "$tmp/run" >/dev/null 2>"$tmp/err" ||
	{ cat "$tmp/err"; echo "FAIL: the renderer failed"; exit 1; }
diff -u "$here/testdata/node-bench.expected.md" "$tmp/run/report.md" ||
	{ echo "FAIL: the report changed"; exit 1; }
echo "node-report-test.sh: the report is unchanged ($(wc -l <"$tmp/run/report.md") lines)"
