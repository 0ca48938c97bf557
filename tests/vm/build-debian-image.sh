#!/bin/bash
# Build (once) the systemd guest of the packaging test: a minimal Debian
# root filesystem made by mmdebstrap from the archive apt already uses on the
# host (/etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list),
# with systemd as PID 1, udev, dkms, gcc, make, ipmitool, kcsmux's runtime
# libraries, and a kernel (image + headers, so DKMS builds for the running
# kernel and the initramfs-tools initrd can mount the root disk).
# Debian 12 (bookworm, the default) gets the rig's guest kernel and boots
# the rig's vmlinux; another suite (--suite trixie) gets its own newest
# kernel (linux-image-amd64), whose bzImage is kept as vmlinuz and booted.
# The result is cached in $KCSMUX_CACHE/debian-systemd-<key>/ (disk.img,
# initrd from the image, kver, vmlinuz for other suites), keyed on
# everything that goes into it: this script, the suite, the package list,
# the kernel version, the sources.
#
#   build-debian-image.sh [--suite SUITE]              build if missing
#   build-debian-image.sh [--suite SUITE] --print-dir  ... then print its dir
#
# The guest runs /usr/local/sbin/kcsmux-guest-run at each boot (a unit of its
# own): it mounts the payload disk (LABEL=kcsmux-payload, made by
# run-systemd.sh) and runs its script with the console on ttyS0.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

suite=bookworm
if [ "${1:-}" = --suite ]; then
	suite=${2:?usage: build-debian-image.sh [--suite SUITE] [--print-dir]}
	shift 2
fi
sources=/etc/apt/sources.list.d/debian.sources
[ -f "$sources" ] || sources=/etc/apt/sources.list
[ -f "$sources" ] || die "no apt sources on this host"
if [ "$suite" = bookworm ]; then
	kver=$(guest_kver)
	kpkgs="linux-image-$kver linux-headers-$kver"
	# the libraries of the packages built on the host (Debian 12)
	libs="libfuse3-3 libevent-2.1-7 libevent-pthreads-2.1-7"
	# the Ansible role's run (guest/ansible-role.sh): Debian 12's only
	extra="ansible-core python3-apt"
	srcs=("$sources")
else
	# the suite's newest kernel; its version is known once installed
	kver=""
	kpkgs="linux-image-amd64 linux-headers-amd64"
	# the libraries of the packages built in the suite's chroot
	# (tests/build-debs.sh --suite): Debian 13 renamed them (64-bit time_t)
	libs="libfuse3-4 libevent-2.1-7t64 libevent-pthreads-2.1-7t64"
	extra=""
	uri=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}
		/^deb / && $2 !~ /security/ {print $2; exit}' "$sources")
	srcs=("deb ${uri:-http://deb.debian.org/debian} $suite main")
fi
# What the admin test needs in the guest besides the two .debs: the .debs'
# dependencies are installed here, since the guest has no network (apt
# install ./x.deb then resolves them from the installed set, as it checks
# every Depends). The root tools that find the interface by themselves
# (ipmitool without -d, FreeIPMI's probe, ipmiutil) must land on the
# interface-0 node after the cutover: freeipmi-tools and ipmiutil too, with
# ipmiutil's services masked (its watchdog service would arm the BMC's
# timer from cron at every boot).
pkgs="systemd systemd-sysv udev dbus kmod dkms gcc make dpkg-dev patch
$kpkgs initramfs-tools
ipmitool freeipmi-tools ipmiutil fuse3 $libs libinih1
libseccomp2 libsystemd0 procps iproute2 util-linux less $extra"
pkgs=$(echo $pkgs | tr ' ' ,)
key=$( { cat "$0"; echo "$suite"; echo "$pkgs"; echo "$kver"
	if [ "$suite" = bookworm ]; then grep -v '^#' "$sources"; else printf '%s\n' "${srcs[@]}"; fi
	} | sha256sum | cut -c1-16)
dir=$KCSMUX_CACHE/debian-systemd-$key

if [ ! -f "$dir/.done" ]; then
	command -v mmdebstrap >/dev/null || die "mmdebstrap missing (tests/deps.sh installs it)"
	[ "$(id -u)" = 0 ] || die "building the guest image needs root (mmdebstrap, mkfs.ext4 -d)"
	log "building the Debian $suite systemd guest image ($dir); a few minutes the first time"
	start=$(date +%s)
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	root=$dir.tmp/root
	# The test runner: a unit that starts at every boot, after which the
	# payload's script decides what to do (it keeps its own state in
	# /var/lib/kcsmux-test across reboots).
	cat >"$dir.tmp/kcsmux-guest-run" <<'EOF'
#!/bin/sh
# Run the kcsmux payload disk's script once the boot has settled.
systemctl is-system-running --wait >/dev/null 2>&1
mkdir -p /payload
mount -o ro LABEL=kcsmux-payload /payload || { echo "KCSMUX-EXIT=125"; systemctl poweroff; exit 1; }
cd /payload && sh /payload/script
EOF
	cat >"$dir.tmp/kcsmux-guest-run.service" <<'EOF'
[Unit]
Description=kcsmux test payload
After=basic.target

[Service]
Type=simple
ExecStart=/usr/local/sbin/kcsmux-guest-run
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0

[Install]
WantedBy=multi-user.target
EOF
	mmdebstrap --variant=minbase --mode=root --format=directory \
		--include="$pkgs" \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--customize-hook="cp $dir.tmp/kcsmux-guest-run \"\$1/usr/local/sbin/\" && chmod 755 \"\$1/usr/local/sbin/kcsmux-guest-run\"" \
		--customize-hook="cp $dir.tmp/kcsmux-guest-run.service \"\$1/etc/systemd/system/\"" \
		--customize-hook='chroot "$1" systemctl enable kcsmux-guest-run.service' \
		--customize-hook='echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$1/etc/fstab"' \
		--customize-hook='echo kcsmux-guest >"$1/etc/hostname"' \
		--customize-hook='chroot "$1" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer systemd-timesyncd.service getty@tty1.service serial-getty@ttyS0.service ipmiutil_wdt.service ipmi_port.service ipmiutil_asy.service ipmiutil_evt.service anacron.timer anacron.service rpcbind.service rpcbind.socket 2>/dev/null || true' \
		"$suite" "$root" "${srcs[@]}" >"$dir.tmp/mmdebstrap.log" 2>&1 ||
		{ tail -n 30 "$dir.tmp/mmdebstrap.log" >&2; die "mmdebstrap failed (log: $dir.tmp/mmdebstrap.log)"; }
	if [ -z "$kver" ]; then
		kver=$(cd "$root/boot" && ls vmlinuz-* | sed 's/^vmlinuz-//')
		[ "$(echo "$kver" | wc -w)" = 1 ] || die "want one kernel in the image, have: $kver"
		cp "$root/boot/vmlinuz-$kver" "$dir.tmp/vmlinuz"
	fi
	echo "$kver" >"$dir.tmp/kver"
	# linux-image's postinst made the initrd (initramfs-tools, MODULES=most).
	[ -f "$root/boot/initrd.img-$kver" ] || die "no initrd.img-$kver in the image"
	cp "$root/boot/initrd.img-$kver" "$dir.tmp/initrd"
	rm -f "$root/etc/machine-id" && : >"$root/etc/machine-id"
	apt_clean_size=$(du -sm "$root" | cut -f1)
	truncate -s 4G "$dir.tmp/disk.img"
	mkfs.ext4 -q -L kcsmux-root -d "$root" "$dir.tmp/disk.img" || die "mkfs.ext4 -d failed"
	rm -rf "$root"
	echo "$(($(date +%s) - start)) s to build, ${apt_clean_size} MiB root" >"$dir.tmp/build-time"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	touch "$dir/.done"
	log "guest image ready in $dir: $(cat "$dir/build-time")"
fi

case "${1:-}" in
--print-dir) echo "$dir" ;;
"") ;;
*) die "unknown option $1" ;;
esac
