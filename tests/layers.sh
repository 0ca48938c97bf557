#!/bin/bash
# The daemon's layers (docs/design.md, "Layers") hold in the code: each
# layer library (fused/CMakeLists.txt) calls only the layers below it (its
# undefined symbols are defined by no library above it), and each folder
# includes only its own headers and those below it (never main's
# kcsmuxd.h: a layer calls back up only through what it was handed). And
# no circles: inside a library, and in kcsmuxctl, no two files call each
# other, directly or round (docs/design.md, "Layers").
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
# circles: inside a library (and kcsmuxctl), the files' calls run one way:
# A calls B (an undefined symbol of A's object that B's defines) and B,
# directly or round, calls A is a loop tsort finds.
calls() { # OBJECTS-or-ARCHIVES...: "caller callee" lines
	nm -A "$@" 2>/dev/null | awk '
	{
		f = $1
		sub(/:[0-9a-f]*$/, "", f)
		n = split(f, p, /[:\/]/)
		o = p[n]
		if ($(NF - 1) == "U")
			use[o, $NF] = 1
		else if ($(NF - 1) ~ /^[TDBRWV]$/)
			def[$NF] = o
	}
	END {
		for (k in use) {
			split(k, u, SUBSEP)
			if ((u[2] in def) && def[u[2]] != u[1])
				print u[1], def[u[2]]
		}
	}' | sort -u
}
circles=0
ctl=$1/fused/CMakeFiles/kcsmuxctl.dir
ctlobjs=$(tr ' ' '\n' <"$ctl/link.txt" | grep '^CMakeFiles/kcsmuxctl.dir/.*\.o$' |
	sed "s|^|$1/fused/|")
for o in $ctlobjs; do
	[ -f "$o" ] || { echo "layers.sh: no $o (build kcsmuxctl first)" >&2; exit 1; }
done
for l in "${!below[@]}" kcsmuxctl; do
	if [ "$l" = kcsmuxctl ]; then
		# shellcheck disable=SC2086
		calls $ctlobjs >"$tmp/calls.$l"
	else
		calls "$lib/libkcsmux_$l.a" >"$tmp/calls.$l"
	fi
	if ! tsort "$tmp/calls.$l" >/dev/null 2>"$tmp/loop.$l"; then
		echo "layers.sh: $l: files that call each other round:" \
			"$(grep -v 'input contains a loop' "$tmp/loop.$l" | sed 's/^tsort: //' | xargs)"
		circles=$((circles + 1))
		bad=$((bad + 1))
	fi
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
	[kcsmuxctl]="kcsmuxctl doctor util config core"
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
echo "layers.sh: ${#below[@]} libraries, ${#inc[@]} folders; $circles with circles;" \
	"$((bad - circles)) upward uses"
[ "$bad" = 0 ]
