#!/bin/bash
# The commit-message rule's own tests (unit.commit_rules): messages that
# tests/commits.sh must pass and fail, and its range, exemptions and skip
# on a scratch repository.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
cm=$src/tests/commits.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # expect RC DESCRIPTION MESSAGE
	printf '%s' "$3" >"$tmp/msg"
	local rc=0
	"$cm" --message "$tmp/msg" >/dev/null || rc=$?
	if [ "$rc" != "$1" ]; then
		echo "FAIL: $2: exit $rc, expected $1"
		fail=1
	fi
}
long=$(printf 'core: %066d' 0)
expect 0 "area: summary + body" $'core: one request type\n\nWhy, and 3 vs 4 ms.\n'
expect 0 "two areas" $'core, cuse: split client.c\n\nWhy.\n'
expect 0 "a test as the area" $'vm.daemon-abi: msgid wrap\n\nWhy.\n'
expect 0 "72 characters" "$(printf 'core: %066d' 0 | cut -c1-72)"$'\n\nWhy.\n'
expect 1 "73 characters" "$long"$'x\n\nWhy.\n'
expect 1 "no area" $'One request type through the path\n\nWhy.\n'
expect 1 "no space after the colon" $'core:one request type\n\nWhy.\n'
expect 1 "no blank line" $'core: one request type\nWhy.\n'
expect 1 "no body" $'core: one request type\n'
expect 1 "empty body" $'core: one request type\n\n\n'

# The range on a scratch repository: BASE..HEAD, merges and exempt commits
# left out, a shallow clone without the base skipped. Without git (the
# userland chroots have none) the messages were checked and the range is
# skipped: exit 77.
if ! command -v git >/dev/null; then
	[ "$fail" = 0 ] || exit 1
	echo "commits-test.sh: messages pass; no git here: the range cases skipped"
	exit 77
fi
g() { git -C "$tmp/r" -c user.name=t -c user.email=t@t "$@"; }
mkdir -p "$tmp/r/tests"
cp "$cm" "$tmp/r/tests/"
g init -q
g add -A && g commit -qm 'anything goes before the base'
printf 'base %s\n' "$(g rev-parse HEAD)" >"$tmp/r/tests/commits-base"
g add -A && g commit -qm $'tests: the base file\n\nWhy.'
rc=0; "$tmp/r/tests/commits.sh" >/dev/null || rc=$?
[ "$rc" = 0 ] || { echo "FAIL: a good history: exit $rc"; fail=1; }
g commit -q --allow-empty -m 'a bad one'
bad1=$(g rev-parse HEAD)
g commit -q --allow-empty -m 'another bad one'
rc=0; "$tmp/r/tests/commits.sh" >/dev/null || rc=$?
[ "$rc" = 1 ] || { echo "FAIL: bad commits after the base: exit $rc"; fail=1; }
printf 'exempt %s a bad one\n' "$bad1" >>"$tmp/r/tests/commits-base"
rc=0; "$tmp/r/tests/commits.sh" >/dev/null || rc=$?
[ "$rc" = 1 ] || { echo "FAIL: one of two bad commits exempted: exit $rc"; fail=1; }
printf 'exempt %s another bad one\n' "$(g rev-parse HEAD)" >>"$tmp/r/tests/commits-base"
g add -A && g commit -qm $'tests: exempt them\n\nWhy.'
rc=0; "$tmp/r/tests/commits.sh" >/dev/null || rc=$?
[ "$rc" = 0 ] || { echo "FAIL: both bad commits exempted: exit $rc"; fail=1; }
git clone -q --depth 1 "file://$tmp/r" "$tmp/shallow" 2>/dev/null
rc=0; "$tmp/shallow/tests/commits.sh" >/dev/null 2>&1 || rc=$?
[ "$rc" = 77 ] || { echo "FAIL: a shallow clone without the base: exit $rc"; fail=1; }
[ "$fail" = 0 ] && echo "commits-test.sh: all cases pass"
exit $fail
