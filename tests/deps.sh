#!/bin/bash
# Install the Debian packages kcsmux needs to build and test, quietly and
# only when something is missing. Sourced by check.sh and demo.sh, or run.
set -euo pipefail

KCSMUX_DEPS="build-essential cmake pkg-config libfuse3-dev libevent-dev check
libinih-dev libseccomp-dev qemu-system-x86 openipmi ipmitool freeipmi-tools busybox-static
cpio kmod xz-utils file iproute2 util-linux gawk python3 python3-matplotlib
libelf-dev sparse gcc-multilib man-db clang-14 libclang-rt-14-dev
clang-format-14"
# copied into the guest by run.sh --valgrind (vm.daemon-valgrind); memcheck
# needs ld.so's symbols, which only libc6-dbg has
KCSMUX_DEPS="$KCSMUX_DEPS valgrind libc6-dbg"
# the packaging test (build.packaging: cpack, lintian) and the systemd
# guest of vm.pkg-admin (mmdebstrap, mkfs.ext4 -d, qemu-img overlays)
KCSMUX_DEPS="$KCSMUX_DEPS dpkg-dev lintian mmdebstrap e2fsprogs qemu-utils"
# unit.kcsmuxctl_doctor: the doctor's JSON against its shipped schema (build.monitoring
# takes promtool from the prometheus package unpacked, not installed)
KCSMUX_DEPS="$KCSMUX_DEPS python3-jsonschema"
# build.ansible: the Ansible role's syntax and template (fleet/ansible)
KCSMUX_DEPS="$KCSMUX_DEPS ansible-core"

kcsmux_install_deps() {
	local missing=() p
	for p in $KCSMUX_DEPS; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" = 0 ] || { echo "deps.sh: run as root to install: ${missing[*]}" >&2; return 1; }
	echo "deps.sh: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	kcsmux_install_deps
fi
