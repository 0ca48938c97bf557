#!/bin/bash
# Fetch Debian's guest kernel image and headers with apt-get download, unpack
# them with dpkg -x (nothing is installed on the host), make the headers tree
# usable for out-of-tree builds, run depmod, and extract the uncompressed
# vmlinux for a fast PVH boot. Idempotent: a second run does nothing.
#
#   fetch-kernel.sh                    fetch/unpack, print nothing
#   fetch-kernel.sh --print-build-dir  ... then print the Kbuild tree
#   fetch-kernel.sh --print-root       ... then print the unpacked tree
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kver=$(guest_kver)
abi=${kver%-amd64}
root=$KCSMUX_CACHE/kernel-$kver
# One fetcher at a time per kernel (two untimed guests may start together).
mkdir -p "$KCSMUX_CACHE"
exec 7>"$root.lock"
flock 7
build=$root/usr/src/linux-headers-$kver
chr=""
if [ -z "${KCSMUX_KVER:-}" ] && [ "${KCSMUX_KERNEL:-6.1}" != 6.1 ]; then
	# Another suite's kernel: its headers (and compiler) are in the
	# suite's chroot, where kcsraw.ko is built (tests/vm/build-kmod.sh);
	# the image is fetched by that chroot's apt.
	chr=$(kernel_chroot "$KCSMUX_KERNEL")
	build=$chr/usr/src/linux-headers-$kver
fi

# extract_vmlinux BZIMAGE OUT: the uncompressed ELF vmlinux inside a
# bzImage (XZ or ZSTD payload: Debian's 6.1 uses XZ, newer ones may not).
extract_vmlinux() {
	local bz=$1 out=$2 dec off magic
	for dec in xz zstd; do
		if [ $dec = xz ]; then magic=$'\xfd7zXZ'; else magic=$'\x28\xb5\x2f\xfd'; fi
		for off in $(LC_ALL=C grep -abo "$magic" "$bz" | cut -d: -f1 | head -n 3); do
			tail -c +"$((off + 1))" "$bz" | $dec -dc >"$out" 2>/dev/null || true
			[ "$(head -c 4 "$out" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] && return 0
		done
	done
	return 1
}

if [ -n "$chr" ] && [ ! -f "$root/.done" ]; then
	log "fetching guest kernel $kver ($(kernel_suite "$KCSMUX_KERNEL"))"
	debs=$KCSMUX_CACHE/debs-$kver
	mkdir -p "$debs"
	# The image; unstable's is split (linux-image-KVER depends on
	# linux-binary-KVER, linux-modules-KVER, linux-base-KVER): those too.
	dl() {
		"$KCSMUX_SRC/tests/chroot.sh" --run "$chr" --bind "$debs:/debs" -- sh -c \
			"cd /debs && apt-get download -q -o APT::Sandbox::User=root $*" >&2 ||
			"$KCSMUX_SRC/tests/chroot.sh" --run "$chr" --bind "$debs:/debs" -- sh -c \
				"apt-get update -qq && cd /debs &&
				 apt-get download -q -o APT::Sandbox::User=root $*" >&2 ||
			die "apt-get download $* failed"
	}
	ls "$debs"/linux-image-"$kver"_*.deb >/dev/null 2>&1 || dl "linux-image-$kver"
	parts=$(dpkg-deb -f "$debs"/linux-image-"$kver"_*.deb Depends | tr ',|' '\n\n' |
		awk -v k="$kver" '{ n = $1; if (substr(n, length(n) - length(k)) == "-" k) print n }')
	for p in $parts; do
		ls "$debs/${p}"_*.deb >/dev/null 2>&1 || dl "$p"
	done
	rm -rf "$root.tmp"
	mkdir -p "$root.tmp"
	for p in "linux-image-$kver" $parts; do
		dpkg -x "$debs/${p}"_*.deb "$root.tmp"
	done
	# trixie: /boot/vmlinuz-KVER; unstable: /usr/lib/modules/KVER/vmlinuz.
	bz=""
	for f in "$root.tmp/boot/vmlinuz-$kver" "$root.tmp/usr/lib/modules/$kver/vmlinuz"; do
		[ -f "$f" ] && bz=$f
	done
	[ -n "$bz" ] || die "no vmlinuz in linux-image-$kver" $parts
	extract_vmlinux "$bz" "$root.tmp/vmlinux" || die "no XZ or ZSTD vmlinux in $bz"
	rm -rf "$root"
	mv "$root.tmp" "$root"
	touch "$root/.done"
	log "guest kernel ready in $root"
fi

if [ ! -f "$root/.done" ]; then
	log "fetching guest kernel $kver"
	debs=$KCSMUX_CACHE/debs
	mkdir -p "$debs"
	pkgs="linux-image-$kver linux-headers-$kver linux-headers-$abi-common linux-kbuild-6.1"
	# Make sure each package's version matches the image's.
	imgver=$(apt-cache policy "linux-image-$kver" | awk '/Candidate:/ {print $2}')
	[ -n "$imgver" ] && [ "$imgver" != "(none)" ] || die "linux-image-$kver not in the archive"
	(cd "$debs" && for p in $pkgs; do
		ls "${p}_${imgver}"_*.deb >/dev/null 2>&1 || apt-get download -q -o APT::Sandbox::User=root "$p=$imgver" >&2
	done) || die "apt-get download failed"
	rm -rf "$root.tmp"
	mkdir -p "$root.tmp"
	for p in $pkgs; do
		dpkg -x "$debs/${p}_${imgver}"_*.deb "$root.tmp"
	done
	# The headers Makefile includes the -common tree by absolute path.
	sed -i "s|^include /usr/src/|include $root/usr/src/|" \
		"$root.tmp/usr/src/linux-headers-$kver/Makefile"
	depmod -b "$root.tmp" "$kver"
	# Uncompressed vmlinux from the bzImage, for a PVH boot.
	extract_vmlinux "$root.tmp/boot/vmlinuz-$kver" "$root.tmp/vmlinux" ||
		die "no XZ or ZSTD vmlinux in $root.tmp/boot/vmlinuz-$kver"
	rm -rf "$root"
	mv "$root.tmp" "$root"
	# Paths inside were fixed for $root.tmp; point them at the final tree.
	sed -i "s|$root.tmp/|$root/|" "$build/Makefile"
	touch "$root/.done"
	log "guest kernel ready in $root"
fi

case "${1:-}" in
--print-build-dir) echo "$build" ;;
--print-root) echo "$root" ;;
"") ;;
*) die "unknown option $1" ;;
esac
