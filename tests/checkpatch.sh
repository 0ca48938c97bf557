#!/bin/bash
# kmod/ must be clean under the kernel's scripts/checkpatch.pl --strict.
# Debian's headers packages do not ship checkpatch.pl; this uses the first
# of: $KCSMUX_CHECKPATCH, $KCSMUX_CACHE/checkpatch-6.1/checkpatch.pl, the
# guest headers tree's scripts/, /usr/src/linux-source-*/scripts/. With
# --fetch it fills $KCSMUX_CACHE/checkpatch-6.1 from Debian's
# linux-source-6.1 (apt-get download, ~140 MB, never installed). Without a
# checkpatch.pl it exits 77 (CTest: skipped).
#   tests/checkpatch.sh [--fetch]
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"
dir=$KCSMUX_CACHE/checkpatch-6.1
if [ "${1:-}" = --fetch ] && [ ! -f "$dir/checkpatch.pl" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root linux-source-6.1 >&2)
	dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.1_*.deb |
		tar -xO --wildcards './usr/src/linux-source-*.tar.xz' | xz -dc |
		tar -x -C "$tmp" --wildcards '*/scripts/checkpatch.pl' \
			'*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
	mkdir -p "$dir"
	cp "$tmp"/linux-source-*/scripts/{checkpatch.pl,spelling.txt,const_structs.checkpatch} "$dir/"
fi
cp=""
for c in "${KCSMUX_CHECKPATCH:-}" "$dir/checkpatch.pl" \
	"$("$KCSMUX_SRC/tests/vm/fetch-kernel.sh" --print-build-dir 2>/dev/null)/scripts/checkpatch.pl" \
	/usr/src/linux-source-*/scripts/checkpatch.pl; do
	[ -n "$c" ] && [ -f "$c" ] && { cp=$c; break; }
done
if [ -z "$cp" ]; then
	log "no checkpatch.pl (tests/checkpatch.sh --fetch gets one): skipped"
	exit 77
fi
log "using $cp"
# Version differences live in kmod/kcsraw_compat.h only: checkpatch's
# LINUX_VERSION_CODE warning is waived there (keying on the version is that
# header's job) and any other use of it is refused here.
compat=$KCSMUX_SRC/kmod/kcsraw_compat.h
out=$( { perl "$cp" --no-tree --strict --terse --show-types -f \
	$(ls "$KCSMUX_SRC"/kmod/*.[ch] | grep -vx "$compat")
	perl "$cp" --no-tree --strict --terse --show-types --ignore LINUX_VERSION_CODE -f "$compat"
	grep -Hn 'LINUX_VERSION_CODE\|KERNEL_VERSION(' "$KCSMUX_SRC"/kmod/*.[ch] "$KCSMUX_SRC"/kmod/Kbuild |
		grep -v "^$compat:" | sed 's/$/: version check outside kcsraw_compat.h/'
	} | grep -v '^total:' || true)
if [ -n "$out" ]; then
	echo "$out"
	exit 1
fi
echo "kmod/: checkpatch --strict clean ($(ls "$KCSMUX_SRC"/kmod/*.[ch] | wc -l) files)"
