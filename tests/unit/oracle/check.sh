#!/bin/sh
# unit.oracle_check: kcsmux-oracle-check on known logs (tests/unit/oracle):
# a clean one passes, every planted violation is found, a forged marker fails.
# usage: check.sh CHECKER DIR
C=$1 D=$2 rc=0
expect() {	# expect WANT_EXIT WANT_TEXT LOG
	out=$("$C" "$D/k.conf" "$D/$3" o-ro o-deny o-oem)
	st=$?
	if [ "$st" != "$1" ] || ! printf '%s\n' "$out" | grep -q "$2"; then
		printf 'FAIL: %s: exit %s (want %s), no "%s" in:\n%s\n' "$3" \
			"$st" "$1" "$2" "$out"
		rc=1
	else
		echo "ok: $3: exit $st, $2"
	fi
}
expect 0 'checked=11 daemon_own=2 outside=1 violations=0 markers=ok' clean.log
expect 1 'violations=12 markers=ok' bad.log
expect 1 'markers=BAD' forged.log
exit $rc
