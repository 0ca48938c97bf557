# Shared settings for the VM rig scripts. Sourced, not run.
# shellcheck shell=bash

KCSMUX_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Downloads and unpacked guest kernels survive across clones and build dirs.
KCSMUX_CACHE=${KCSMUX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kcsmux}
# Guest artefacts (initramfs, overlays) live in the build tree.
KCSMUX_BUILD=${KCSMUX_BUILD:-$KCSMUX_SRC/build}

log() { printf '[%s] %s\n' "${0##*/}" "$*" >&2; }
die() { printf '[%s] error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# Guest kernels other than Debian 12's 6.1 (KCSMUX_KERNEL, run.sh --kernel):
# the newest kernel of a Debian suite, resolved through that suite's
# linux-headers-amd64 metapackage in a cached chroot (tests/chroot.sh) whose
# compiler also builds kcsraw.ko for it. The name is the kernel's version;
# when the suite moves on to another version, the alias says so and stops.
kernel_suite() {
	case $1 in
	6.12) echo trixie ;;
	7.2) echo sid ;;
	*) die "unknown kernel $1 (known: 6.1, 6.12, 7.2)" ;;
	esac
}

# suite_chroot SUITE: the one cached chroot of a Debian suite (made once,
# ~2-5 min): its kernel headers with the compiler they ask for (kcsraw.ko,
# the way dkms builds it) and, but for SUITE-backports, what the whole tree,
# its unit suites and its packages need (tests/userland.sh, build-debs.sh).
suite_chroot() {
	case $1 in
	*-backports)
		"$KCSMUX_SRC/tests/chroot.sh" "$1" make perl "linux-headers-amd64/$1"
		;;
	*)
		"$KCSMUX_SRC/tests/chroot.sh" "$1" make perl linux-headers-amd64 \
			build-essential cmake pkg-config libfuse3-dev libevent-dev \
			check libinih-dev libseccomp-dev gcc-multilib python3 \
			openipmi dpkg-dev file ccache
		;;
	esac
}

# kernel_chroot ALIAS: the chroot of the suite whose kernel ALIAS is.
kernel_chroot() {
	suite_chroot "$(kernel_suite "$1")"
}

# chroot_kver DIR: the kernel release of the one headers tree in a chroot.
chroot_kver() {
	local h
	h=$(cd "$1/usr/src" && ls -d linux-headers-*-amd64 2>/dev/null)
	[ "$(echo "$h" | wc -w)" = 1 ] || die "want one linux-headers-*-amd64 in $1, have: $h"
	echo "${h#linux-headers-}"
}

# The guest kernel: KCSMUX_KVER (e.g. 6.1.0-57-amd64), KCSMUX_KERNEL (an
# alias above), or the newest Debian 6.1 amd64 image the archive offers.
guest_kver() {
	local kv
	if [ -n "${KCSMUX_KVER:-}" ]; then
		echo "$KCSMUX_KVER"
		return
	fi
	if [ "${KCSMUX_KERNEL:-6.1}" != 6.1 ]; then
		kv=$(chroot_kver "$(kernel_chroot "$KCSMUX_KERNEL")")
		case $kv in
		"$KCSMUX_KERNEL".*) ;;
		*) die "$(kernel_suite "$KCSMUX_KERNEL")'s kernel is now $kv, not $KCSMUX_KERNEL: update kernel_suite in tests/vm/lib.sh" ;;
		esac
		echo "$kv"
		return
	fi
	if [ -f "$KCSMUX_CACHE/kver" ]; then
		cat "$KCSMUX_CACHE/kver"
		return
	fi
	kv=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' 2>/dev/null |
		awk '{print $1}' | sort -V | tail -n 1)
	if [ -z "$kv" ]; then
		apt-get update -qq >&2 || true
		kv=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' |
			awk '{print $1}' | sort -V | tail -n 1)
	fi
	[ -n "$kv" ] || die "no linux-image-6.1.0-*-amd64 in the apt archive"
	kv=${kv#linux-image-}
	mkdir -p "$KCSMUX_CACHE"
	echo "$kv" >"$KCSMUX_CACHE/kver"
	echo "$kv"
}
