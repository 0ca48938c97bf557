# Shared settings for the VM rig scripts. Sourced, not run.
# shellcheck shell=bash

KCSMUX_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Downloads and unpacked guest kernels survive across clones and build dirs.
KCSMUX_CACHE=${KCSMUX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kcsmux}
# Guest artefacts (initramfs, overlays) live in the build tree.
KCSMUX_BUILD=${KCSMUX_BUILD:-$KCSMUX_SRC/build}

log() { printf '[%s] %s\n' "${0##*/}" "$*" >&2; }
die() { printf '[%s] error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# The guest kernel: KCSMUX_KVER (e.g. 6.1.0-57-amd64) or the newest Debian
# 6.1 amd64 image the archive offers.
guest_kver() {
	local kv
	if [ -n "${KCSMUX_KVER:-}" ]; then
		echo "$KCSMUX_KVER"
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
