#!/bin/sh
# kcsmuxctl doctor on the host, without a BMC: its JSON (-j) against the
# shipped schema (docs/schema/doctor.schema.json, python3's jsonschema)
# and its exit statuses:
#  - /dev/null answers no request: a failed check (exit 1), the errors
#    check "fail", no recommendations;
#  - a device that cannot be opened: the doctor could not run (exit 3),
#    and -j still prints the object with the reason (verdict "error");
#  - -d N is /dev/ipmiN, as ipmitool's -d; -j/--json before the command
#    word too.
# Usage: kcsmuxctl_doctor.sh KCSMUXCTL SRC
set -u
CTL=$1
SCHEMA=$2/docs/schema/doctor.schema.json
if ! python3 -c 'import jsonschema' 2>/dev/null; then
	echo "SKIP: no python3 jsonschema (tests/deps.sh installs python3-jsonschema)"
	exit 77
fi
T=$(mktemp -d /tmp/kcsmuxctl-doctor.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run EXPECTED_STATUS ARGS...: kcsmuxctl ARGS, output in T/out and T/err
run() {
	want=$1
	shift
	"$CTL" "$@" >"$T/out" 2>"$T/err"
	rv=$?
	[ "$rv" = "$want" ] ||
		fail "kcsmuxctl $* exited $rv, expected $want: $(cat "$T/err")"
}
# valid [PYTHON-CONDITION]: T/out is one object the schema accepts, and
# the condition on it (o) holds
valid() {
	python3 - "$SCHEMA" "$T/out" "${1:-True}" <<'PY' || fail "schema or condition '${1:-}': $(cat "$T/out")"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
o = json.load(open(sys.argv[2]))
jsonschema.validate(o, schema)
assert eval(" ".join(sys.argv[3].split())), sys.argv[3]
PY
}

run 1 doctor -j -d /dev/null
valid 'o["verdict"] == "fail" and o["schema_version"] == 1 and
 o["requests"] > 0 and o["errors"] == o["requests"] and
 [c["verdict"] for c in o["checks"] if c["topic"] == "errors"] == ["fail"] and
 o["recommendations"] == []'
run 1 --json doctor -d /dev/null
valid 'o["device"] == "/dev/null"'
run 1 doctor -d /dev/null
grep -q '^errors  *fail ' "$T/out" || fail "text: no failed errors check: $(cat "$T/out")"

run 3 doctor -j -d "$T/nonexistent"
valid 'o["verdict"] == "error" and "No such file" in o["error"]'
run 3 doctor -d "$T/nonexistent"
[ -s "$T/out" ] && fail "text: stdout not empty: $(cat "$T/out")"
grep -q "nonexistent: No such file" "$T/err" || fail "no reason on stderr: $(cat "$T/err")"
run 3 doctor -j -d /dev/null --compare "$T/nonexistent"
valid 'o["verdict"] == "error" and o["device"] == "/dev/null"'

n=99
while [ -e "/dev/ipmi$n" ]; do n=$((n + 1)); done
run 3 doctor -j -d "$n"
valid "o['device'] == '/dev/ipmi$n' and o['verdict'] == 'error'"

# the validator validates: an object without schema_version fails it
echo '{"host": "h", "device": "d", "driver": null, "verdict": "error", "error": "x"}' >"$T/out"
python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
	"$SCHEMA" "$T/out" 2>/dev/null && fail "the schema accepts an object without schema_version"

[ "$fails" = 0 ] && echo "kcsmuxctl doctor: JSON and exit statuses OK"
[ "$fails" = 0 ]
