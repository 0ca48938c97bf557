#!/bin/bash
# Build kcsraw.ko with W=1 and no warning, the way dkms would on a host with
# that kernel:
# - against every Debian 12 6.1 kernel headers version whose linux-kbuild-6.1
#   is still in the archive (today: the point release and the security
#   update), with the host's gcc-12; headers fetched with apt-get download
#   and unpacked, never installed;
# - against the kernel of bookworm-backports, trixie (Debian 13) and sid
#   (unstable), each resolved through its linux-headers-amd64 metapackage in
#   a cached chroot of that suite (tests/chroot.sh), with that suite's
#   compiler (the one its headers ask for: gcc-12, gcc-14, gcc-16 today).
#   tests/kmod-matrix.sh [BUILD_DIR]
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"
out=${1:-$KCSMUX_BUILD}/kmod-matrix
mkdir -p "$out" "$KCSMUX_CACHE/debs"
built=0
# judge RC LOG KO WHAT: the build succeeded, made KO, and warned of nothing.
judge() {
	if [ "$1" = 0 ] && [ -f "$3" ] && ! grep -q 'warning:' "$2"; then
		echo "kcsraw.ko builds cleanly against $4"
		built=$((built + 1))
	else
		cat "$2"
		die "kcsraw.ko does not build cleanly against $4"
	fi
}
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
	rc=0
	make -s -C "$root/usr/src/linux-headers-$kver" M="$out/$kver" \
		KCSMUX_INCLUDE="$KCSMUX_SRC/include" W=1 modules >"$out/$kver.log" 2>&1 || rc=$?
	judge $rc "$out/$kver.log" "$out/$kver/kcsraw.ko" "$kver ($kb)"
done
[ "$built" -ge 2 ] || die "built against $built Debian 12 6.1 versions, want at least 2"

for suite in bookworm-backports trixie sid; do
	chr=$(suite_chroot "$suite")
	kver=$(chroot_kver "$chr")
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$chr/usr/src/linux-headers-$kver/.config")
	d=$out/$suite-$kver
	rm -rf "$d"
	mkdir -p "$d"
	cp -r "$KCSMUX_SRC/kmod" "$d/kmod"
	cp -r "$KCSMUX_SRC/include" "$d/include"
	rc=0
	"$KCSMUX_SRC/tests/chroot.sh" --run "$chr" --bind "$d:/build" -- \
		make -s -C "/lib/modules/$kver/build" M=/build/kmod \
		KCSMUX_INCLUDE=/build/include W=1 modules >"$d.log" 2>&1 || rc=$?
	judge $rc "$d.log" "$d/kmod/kcsraw.ko" "$kver ($suite, ${cc:-its gcc})"
done
