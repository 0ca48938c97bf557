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
build=$root/usr/src/linux-headers-$kver

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
	# Uncompressed vmlinux from the bzImage: find the XZ stream and unpack it.
	bz=$root.tmp/boot/vmlinuz-$kver
	off=$(grep -abo $'\xfd7zXZ\x00' "$bz" | head -n 1 | cut -d: -f1) ||
		die "no XZ stream in $bz"
	tail -c +"$((off + 1))" "$bz" | xz -dc >"$root.tmp/vmlinux" 2>/dev/null || true
	file_magic=$(head -c 4 "$root.tmp/vmlinux" | od -An -tx1 | tr -d ' ')
	[ "$file_magic" = 7f454c46 ] || die "extracted vmlinux is not an ELF file"
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
