#!/bin/bash
# Build kcsraw.ko against every Debian 6.1 kernel headers version whose
# linux-kbuild-6.1 is still in the archive (today: the point release and the
# security update), the way dkms would on a host with that kernel. Headers
# are fetched with apt-get download and unpacked, never installed.
#   tests/kmod-matrix.sh [BUILD_DIR]
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"
out=${1:-$KCSMUX_BUILD}/kmod-matrix
mkdir -p "$out" "$KCSMUX_CACHE/debs"
built=0
for kb in $(apt-cache madison linux-kbuild-6.1 | awk '{print $3}'); do
	hdr=""
	for p in $(apt-cache search --names-only '^linux-headers-6\.1\.0-[0-9]+-amd64$' | awk '{print $1}'); do
		if apt-cache madison "$p" | awk '{print $3}' | grep -qx "$kb"; then
			hdr=$p
		fi
	done
	[ -n "$hdr" ] || { log "no headers for kbuild $kb"; continue; }
	kver=${hdr#linux-headers-}
	abi=${kver%-amd64}
	root=$KCSMUX_CACHE/headers-$kver
	if [ ! -f "$root/.done" ]; then
		rm -rf "$root"
		mkdir -p "$root"
		for p in "$hdr" "linux-headers-$abi-common" linux-kbuild-6.1; do
			(cd "$KCSMUX_CACHE/debs" &&
			 { ls "${p}_${kb}"_*.deb >/dev/null 2>&1 ||
			   apt-get download -q -o APT::Sandbox::User=root "$p=$kb" >&2; })
			dpkg -x "$KCSMUX_CACHE/debs/${p}_${kb}"_*.deb "$root"
		done
		sed -i "s|^include /usr/src/|include $root/usr/src/|" \
			"$root/usr/src/linux-headers-$kver/Makefile"
		touch "$root/.done"
	fi
	rm -rf "$out/$kver"
	cp -r "$KCSMUX_SRC/kmod" "$out/$kver"
	if make -s -C "$root/usr/src/linux-headers-$kver" M="$out/$kver" \
		KCSMUX_INCLUDE="$KCSMUX_SRC/include" W=1 modules >"$out/$kver.log" 2>&1 &&
	   [ -f "$out/$kver/kcsraw.ko" ] && ! grep -q 'warning:' "$out/$kver.log"; then
		echo "kcsraw.ko builds cleanly against $kver ($kb)"
		built=$((built + 1))
	else
		cat "$out/$kver.log"
		die "kcsraw.ko does not build cleanly against $kver ($kb)"
	fi
done
[ "$built" -ge 2 ] || die "built against $built kernel versions, want at least 2"
