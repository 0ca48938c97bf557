#!/bin/bash
# The commit messages made since the rule, as git shows them:
#
#   area: summary            subject: an area (a folder, a file, a test:
#                            "core", "tests/vm", "vm.daemon-abi", "docs";
#                            several with ", ") then ": " and a summary;
#                            at most 72 characters in all
#   <blank line>
#   why, and the measurement body: at least one line
#
# Checked: the commits after the base in tests/commits-base (merges are
# the lead's and exempt), less the ones that file exempts by hash (made
# before the rule on branches merged after it). Without the history (a
# tarball, a shallow clone that lacks the base) it exits 77 (CTest: skip).
#
#   tests/commits.sh [REV]       check BASE..REV (default HEAD)
#   tests/commits.sh --message FILE
#                                check one message (the rule's own tests)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)

# check_message: the message on stdin; prints what is wrong, one a line.
check_message() {
	awk '
	NR == 1 {
		subj = $0
		if (length(subj) > 72)
			print "subject is " length(subj) " characters (at most 72)"
		if (subj !~ /^[A-Za-z0-9_.\/{}*-]+(, ?[A-Za-z0-9_.\/{}*-]+)*: [^ ]/)
			print "subject is not \"area: summary\""
		next
	}
	NR == 2 { if ($0 != "") print "no blank line after the subject"; next }
	NF > 0 { body = 1 }
	END {
		if (NR == 0) print "empty message"
		else if (!body) print "no body (why, and the measurement)"
	}'
}

if [ "${1:-}" = --message ]; then
	out=$(check_message <"$2")
	[ -z "$out" ] && exit 0
	echo "$out"
	exit 1
fi
rev=${1:-HEAD}
cd "$src"
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "commits.sh: not a git checkout: no history to check" >&2
	exit 77
fi
base=$(sed -n 's/^base \([0-9a-f]\{40\}\).*/\1/p' tests/commits-base)
if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
	echo "commits.sh: the base $base is not in this clone (shallow?): skipped" >&2
	exit 77
fi
exempt=$(sed -n 's/^exempt \([0-9a-f]\{40\}\).*/\1/p' tests/commits-base | tr '\n' ' ')
bad=0 n=0
for c in $(git rev-list --no-merges "$base..$rev"); do
	case " $exempt " in *" $c "*) continue ;; esac
	n=$((n + 1))
	out=$(git log -1 --format=%B "$c" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' | check_message)
	[ -z "$out" ] && continue
	bad=$((bad + 1))
	echo "commit $(git log -1 --format='%h %s' "$c" | cut -c1-90):"
	echo "$out" | sed 's/^/  /'
done
echo "commits.sh: $n commits since ${base:0:7} checked, $bad with a bad message"
[ "$bad" = 0 ]
