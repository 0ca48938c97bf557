#!/bin/bash
# vm.bmc-profiles: a misbehaving BMC (silent at load, a minute's outage under
# three clients, wrong answers, busy and initializing, faults at the
# register level, a stale watchdog pre-timeout flag), on stock ipmi_si
# and/or kcsraw + kcsmuxd, one boot per mode; prints what the clients saw,
# the modes side by side (docs/real-bmc-stock.md has the stock numbers).
#
#   tests/vm/bmc-profiles.sh [--mode stock|kcsmux|both] [--profiles "d e1 c a b e2 w m"]
#                            [--results DIR] [run.sh options, e.g. --kernel 7.2]
#   C_MS=58000 tests/vm/bmc-profiles.sh ...   (another outage length for c)
#
# The delay proxy gets one --on rule per profile (docs/bmc-proxy.md, "A
# misbehaving BMC"); tests/vm/guest/bmc-profiles.sh fires them and says
# what each profile is. --results DIR keeps each mode's profiles.txt, client
# logs and kernel logs in DIR/MODE. Exit: the first failing guest's status.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mode=stock profiles="d e1 c a b e2 w m" results=""
run_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--mode) mode=$2; shift ;;
	--profiles) profiles=$2; shift ;;
	--results) results=$2; shift ;;
	*) run_args+=("$1") ;;
	esac
	shift
done
case "$mode" in
stock|kcsmux) modes=$mode ;;
both) modes="stock kcsmux" ;;
*) echo "bmc-profiles.sh: --mode stock, kcsmux or both" >&2; exit 2 ;;
esac

# The profiles' lengths: the proxy's rules and the guest's clock agree.
A_MS=12000 B_MS=30000 C_MS=${C_MS:-60000} E_MS=10000
# kcsraw's fault injection (profiles f, g, h; kcsmux only)
F_MS=20000 G_MS=6000
rules="--on 0x30:0x20=silence,$A_MS --on 0x30:0x21=silence,$B_MS"
rules="$rules --on 0x30:0x22=silence,$C_MS"
rules="$rules --on 0x30:0x23=wrong,0x06:0x01,3 --on 0x30:0x24=wrong,0x06:0x01,1,netfn"
rules="$rules --on 0x30:0x25=busy,$E_MS,0xc0 --on 0x30:0x26=busy,$E_MS,0xd2"
# i: firmware 2.16 where ipmi_sim says 2.15 (a firmware update), then back
rules="$rules --on 0x30:0x27=answer,0x06:0x01=0020810216029fcfc200584b00000000"
rules="$rules --on 0x30:0x29=answer,off,0x06:0x01"
# k: busy while kcsmuxd starts
K_MS=5000
rules="$rules --on 0x30:0x28=busy,$K_MS,0xc0"

tmp=$(mktemp -d /tmp/kcsmux-profiles.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
rc=0
for m in $modes; do
	start=$(date +%s)
	"$here/run.sh" --bmc extern --delay fixed:200 --timeout 420 \
		--proxy-args "$rules" --env MODE="$m" --env PROFILES="$profiles" \
		--env A_MS=$A_MS --env B_MS=$B_MS --env C_MS=$C_MS --env E_MS=$E_MS \
		--env F_MS=$F_MS --env G_MS=$G_MS --env K_MS=$K_MS \
		--out "$tmp/$m" "${run_args[@]}" "$here/guest/bmc-profiles.sh" 2>&1 |
		tee "$tmp/$m.log"
	r=${PIPESTATUS[0]}
	echo "bmc-profiles.sh: $m: guest exit $r after $(($(date +%s) - start)) s"
	[ "$r" = 0 ] || [ "$rc" != 0 ] || rc=$r
	run=$(sed -n 's/.*; run dir \(.*\)$/\1/p' "$tmp/$m.log" | tail -n 1)
	if [ -n "$run" ] && [ -f "$run/bmc0/proxy.log" ]; then
		echo "bmc-profiles.sh: $m: the proxy's log of the misbehaviour:"
		grep -E 'BMC (silent|back|busy|no longer)|wrong: answer|sent for QEMU|^answer 0x' "$run/bmc0/proxy.log" | sed 's/^/    /'
	fi
	if [ -n "$results" ] && [ -d "$tmp/$m" ]; then
		mkdir -p "$results/$m"
		cp -r "$tmp/$m/." "$results/$m/"
	fi
done

# The table: one row per key, one column per mode.
files=()
for m in $modes; do
	[ -f "$tmp/$m/profiles.txt" ] && files+=("$tmp/$m/profiles.txt")
done
if [ ${#files[@]} -gt 0 ]; then
	echo
	awk '
	FNR == 1 { col++; name[col] = FILENAME; sub(/.*\/[^/]*\/*/, "", name[col]) }
	$1 == "mode" { name[col] = $2 }
	{ if (!($1 in seen)) { seen[$1] = 1; key[++n] = $1 }
	  v = $2; for (i = 3; i <= NF; i++) v = v " " $i; val[$1, col] = v }
	END {
		printf "%-40s", "profile.key"
		for (c = 1; c <= col; c++) printf " | %-28s", name[c]
		printf "\n"
		for (i = 1; i <= n; i++) {
			if (key[i] == "mode") continue
			printf "%-40s", key[i]
			for (c = 1; c <= col; c++) printf " | %-28s", val[key[i], c]
			printf "\n"
		}
	}' "${files[@]}"
fi
exit "$rc"
