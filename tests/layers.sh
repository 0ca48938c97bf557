#!/bin/bash
# The daemon's layers (docs/design.md, "Layers") hold in the code: each
# layer library (fused/CMakeLists.txt) calls only the layers below it (its
# undefined symbols are defined by no library above it), and each folder
# includes only its own headers and those below it (never main's
# kcsmuxd.h: a layer calls back up only through what it was handed).
#
#   tests/layers.sh BUILD_DIR     (build.layers)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
lib=$1/fused
# layer: the layers it may use
declare -A below=(
	[util]=""
	[backend]="util"
	[core]="util backend"
	[cuse]="util core backend"
	[ctlproto]="util"
	[config]="util backend core"
	[metrics]="util backend core"
	[control]="util backend core cuse ctlproto config"
	[doctor]=""
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for l in "${!below[@]}"; do
	a=$lib/libkcsmux_$l.a
	[ -f "$a" ] || { echo "layers.sh: no $a (build first)" >&2; exit 1; }
	nm -g --defined-only "$a" | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/def.$l"
	nm -u "$a" | awk '{ print $NF }' | sort -u >"$tmp/und.$l"
done
bad=0
for l in "${!below[@]}"; do
	for m in "${!below[@]}"; do
		[ "$l" = "$m" ] && continue
		case " ${below[$l]} " in *" $m "*) continue ;; esac
		up=$(comm -12 "$tmp/und.$l" "$tmp/def.$m")
		[ -z "$up" ] && continue
		echo "layers.sh: $l calls $m, which is not below it: $(echo $up)"
		bad=$((bad + 1))
	done
done
# includes: folder -> the folders (and main headers) it may name
declare -A inc=(
	[util]="util"
	[backend]="backend util"
	[core]="core backend util"
	[cuse]="cuse core backend util"
	[ctlproto]="ctlproto util"
	[config]="config core backend util"
	[metrics]="metrics core backend util"
	[control]="control config cuse core backend util"
	[doctor]="doctor"
	[kcsmuxctl]="kcsmuxctl doctor util"
)
cd "$src/fused"
for d in "${!inc[@]}"; do
	while IFS=: read -r f _ h; do
		h=${h#*\"}
		h=${h%%\"*}
		top=${h%%/*}
		case " ${inc[$d]} " in *" $top "*) continue ;; esac
		echo "layers.sh: $f includes $h: $d/ may include only ${inc[$d]}"
		bad=$((bad + 1))
	done < <(grep -Hn '^#include "' "$d"/*.[ch] || true)
done
echo "layers.sh: ${#below[@]} libraries, ${#inc[@]} folders; $bad upward uses"
[ "$bad" = 0 ]
