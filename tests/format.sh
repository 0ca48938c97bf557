#!/bin/bash
# The userspace C style (.clang-format at the top: kernel-like, tabs, 80
# columns) on fused/, tests/unit/ and tests/tools/, with clang-format-14.
#
#   tests/format.sh             check (build.format): every file must be
#                               unchanged by clang-format
#   tests/format.sh --fix [FILE...]
#                               format FILEs (default: every file) in place
#
# kmod/ is checkpatch.pl's (build.checkpatch).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src"
cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
	for c in clang-format-14 clang-format; do
		command -v "$c" >/dev/null && { cf=$c; break; }
	done
fi
[ -n "$cf" ] || { echo "format.sh: no clang-format-14 (tests/deps.sh installs it)" >&2; exit 1; }

files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -- 'fused/*.[ch]' 'tests/unit/*.[ch]' 'tests/tools/*.[ch]'
	else	# an unpacked tarball
		find fused tests/unit tests/tools -name '*.[ch]' | sort
	fi
}

if [ "${1:-}" = --fix ]; then
	shift
	if [ $# -eq 0 ]; then
		mapfile -t todo < <(files)
	else
		todo=("$@")
	fi
	"$cf" -i --style=file "${todo[@]}"
	echo "format.sh: formatted ${#todo[@]} files"
	exit 0
fi
[ $# -eq 0 ] || { sed -n '2,/^set -e/p' "$0" | sed -e '/^set -e/d' -e 's/^# \{0,1\}//' >&2; exit 2; }

checked=0 bad=0
while read -r f; do
	checked=$((checked + 1))
	if ! "$cf" --style=file --dry-run -Werror "$f" 2>"$src/.format.$$"; then
		bad=$((bad + 1))
		head -n 30 "$src/.format.$$"
	fi
	rm -f "$src/.format.$$"
done < <(files)
echo "format.sh: $checked files checked, $bad not in the style ($($cf --version | sed 's/.*version \([0-9.]*\).*/\1/'))"
[ "$bad" = 0 ] || { echo "format.sh: tests/format.sh --fix FILE formats one" >&2; exit 1; }
