#!/bin/bash
# Build the guest's base initramfs: busybox, the guest kernel's ipmi/fuse/cuse
# and inet_diag/tcp_diag modules (decompressed), and the real IPMI clients (ipmitool,
# FreeIPMI, OpenIPMI) with their libraries, copied from this host's Debian
# packages. The result is
# cached and rebuilt only when this script, the init script or the kernel
# changes. Per-run files go in a small overlay cpio (see run.sh).
#
#   build-initramfs.sh OUT.cpio
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:?usage: build-initramfs.sh OUT.cpio}
kver=$(guest_kver)
kroot=$("$KCSMUX_SRC/tests/vm/fetch-kernel.sh" --print-root)
here=$KCSMUX_SRC/tests/vm

clients="/usr/bin/ipmitool
/usr/sbin/bmc-info /usr/sbin/ipmi-sensors /usr/sbin/ipmi-sel /usr/sbin/ipmi-raw
/usr/sbin/ipmi-fru /usr/sbin/bmc-device /usr/sbin/ipmi-chassis
/usr/bin/openipmicmd /usr/bin/openipmish /usr/bin/ipmicmd"
# inet_diag, tcp_diag: loaded on demand by kcsmuxd's NETLINK_SOCK_DIAG
# lookups (a metrics client's uid), as on an installed system.
# acpi_ipmi: binds to an IPMI interface the firmware describes in ACPI
# (vm.kmod-smi).
modules="kernel/drivers/char/ipmi kernel/fs/fuse
kernel/net/ipv4/inet_diag.ko kernel/net/ipv4/tcp_diag.ko
kernel/drivers/acpi/acpi_ipmi.ko"

# Rebuild only when an input changed; one builder at a time (two untimed
# guests may start together).
mkdir -p "$(dirname "$out")"
exec 7>"$out.lock"
flock 7
stamp=$( (echo "$kver"; cat "$0" "$here/guest/init" "$here/lib.sh";
	for c in $clients; do ls -l --time-style=+%s "$c"; done) | sha256sum | cut -c1-16)
if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi
log "building base initramfs for $kver"

for c in $clients /bin/busybox; do
	[ -x "$c" ] || die "$c missing: install ipmitool freeipmi-tools openipmi busybox-static"
done
file -L /bin/busybox | grep -q 'statically linked' ||
	die "/bin/busybox is not static: install busybox-static"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,dev,proc,sys,tmp,run,root,etc,guest,out,var/run,var/tmp}
mkdir -p "$stage/usr/bin" "$stage/usr/sbin" "$stage/lib64"
cp /bin/busybox "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
install -m 0755 "$here/guest/init" "$stage/init"

# copy_elf FILE: the file and every shared library ldd resolves for it.
copy_elf() {
	local f=$1 lib
	mkdir -p "$stage$(dirname "$f")"
	cp -L "$f" "$stage$f"
	ldd "$f" 2>/dev/null | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}' |
	while read -r lib; do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}
for c in $clients; do
	copy_elf "$c"
done
# FreeIPMI reads its config; OpenIPMI's and glibc's name lookups want these.
mkdir -p "$stage/etc/freeipmi"
cp /etc/freeipmi/*.conf "$stage/etc/freeipmi/" 2>/dev/null || true
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' \
	>"$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"
echo 'hosts: files' >"$stage/etc/nsswitch.conf"
echo '127.0.0.1 localhost' >"$stage/etc/hosts"

# Kernel modules with depmod's index, so busybox modprobe resolves deps.
# Newer Debian kernels ship them compressed (.ko.xz, .ko.zst), which busybox
# cannot load: they are decompressed here, and depmod indexes the .ko files.
# Debian 13's packages ship them in /usr/lib/modules.
mdir=lib/modules/$kver
msrc=$kroot/$mdir
[ -d "$msrc" ] || msrc=$kroot/usr/$mdir
mkdir -p "$stage/$mdir"
for m in $modules; do
	mkdir -p "$stage/$mdir/$(dirname "$m")"
	if [ -e "$msrc/$m" ]; then
		cp -a "$msrc/$m" "$stage/$mdir/$m"
	else
		ls "$msrc/$m".* >/dev/null 2>&1 || die "no module $m in $kver"
		cp -a "$msrc/$m".* "$stage/$mdir/$(dirname "$m")/"
	fi
done
find "$stage/$mdir" -name '*.ko.xz' -exec xz -d {} +
find "$stage/$mdir" -name '*.ko.zst' -exec zstd -q -d --rm {} +
cp "$msrc"/modules.{order,builtin,builtin.modinfo} "$stage/$mdir/"
depmod -b "$stage" "$kver"

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
echo "$stamp" >"$out.stamp"
log "base initramfs: $(du -h "$out" | cut -f1)"
