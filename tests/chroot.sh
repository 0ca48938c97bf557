#!/bin/bash
# Cached Debian chroots for building in another distribution's userland with
# its own compiler (kcsraw.ko against each suite's kernel headers, the tree
# on Debian 13 / unstable). Made by mmdebstrap (--variant=apt) from the
# archive the host's apt uses; nothing is installed on the host.
#
#   tests/chroot.sh SUITE PKG...          build once, print the chroot's path
#   tests/chroot.sh --run DIR [--bind SRC[:DST]]... -- CMD...
#                                         run CMD in DIR as root, with /proc,
#                                         /dev and the binds mounted in a
#                                         private mount namespace (objtool in
#                                         7.x headers needs /proc)
#
# SUITE is a Debian suite (bookworm, trixie, sid, ...). SUITE-backports also
# gets SUITE itself; ask for the backported packages as PKG/SUITE-backports
# (e.g. linux-headers-amd64/bookworm-backports). unstable's Release file in
# the reachable archive may be expired: sid/unstable chroots are made (and
# keep, for later apt runs) with Acquire::Check-Valid-Until "false".
# Resolve kernels through metapackages (linux-headers-amd64), never pinned
# versions. The cache, $KCSMUX_CACHE/chroot-SUITE-KEY, is keyed on the suite,
# the sorted package list, the archive URI and the recipe version below, not
# on the date: delete it to pick up newer packages.
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"

if [ "${1:-}" = --run ]; then
	dir=${2:?usage: chroot.sh --run DIR [--bind SRC[:DST]]... -- CMD...}
	shift 2
	binds=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		[ "$1" = --bind ] || die "unknown option $1"
		binds+=("$2")
		shift 2
	done
	[ "${1:-}" = -- ] && shift
	[ $# -gt 0 ] || die "no command"
	[ -f "$dir/.kcsmux-chroot" ] || die "$dir is not a chroot made by chroot.sh"
	script='set -e; d=$1; shift; n=$1; shift
		mount -t proc proc "$d/proc"
		mount --rbind /dev "$d/dev"
		i=0
		while [ "$i" -lt "$n" ]; do
			b=$1; shift; src=${b%%:*}; dst=${b#*:}
			mkdir -p "$d$dst"; mount --bind "$src" "$d$dst"; i=$((i + 1))
		done
		exec chroot "$d" "$@"'
	args=()
	for b in "${binds[@]}"; do
		case $b in *:*) args+=("$b") ;; *) args+=("$b:$b") ;; esac
	done
	exec unshare --mount --propagation private sh -c "$script" sh "$dir" \
		"${#args[@]}" "${args[@]}" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 "$@"
fi

suite=${1:?usage: chroot.sh SUITE PKG... | --run DIR ... -- CMD...}
shift
pkgs=$(printf '%s\n' "$@" | LC_ALL=C sort -u | paste -sd, -)
# The archive: the host's Debian mirror (deb.debian.org unless told).
sources=/etc/apt/sources.list.d/debian.sources
[ -f "$sources" ] || sources=/etc/apt/sources.list
uri=${KCSMUX_DEBIAN_MIRROR:-$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}
	/^deb / && $2 !~ /security/ {print $2; exit}' "$sources" 2>/dev/null)}
uri=${uri:-http://deb.debian.org/debian}
list=("deb $uri $suite main")
aptopts=()
case $suite in
*-backports) list=("deb $uri ${suite%-backports} main" "${list[@]}") ;;
sid | unstable) aptopts=(--aptopt='Acquire::Check-Valid-Until "false"') ;;
esac
# Bump when the mmdebstrap call below changes.
recipe=1
key=$( { echo "$recipe"; echo "$suite"; echo "$pkgs"; printf '%s\n' "${list[@]}"; } | sha256sum | cut -c1-16)
dir=$KCSMUX_CACHE/chroot-$suite-$key

mkdir -p "$KCSMUX_CACHE"
# One maker at a time per chroot (the matrix and a VM run may both ask).
exec 8>"$dir.lock"
flock 8
if [ ! -f "$dir/.kcsmux-chroot" ]; then
	command -v mmdebstrap >/dev/null || die "mmdebstrap missing (tests/deps.sh installs it)"
	[ "$(id -u)" = 0 ] || die "making a chroot needs root"
	log "making the $suite chroot ($pkgs) in $dir"
	start=$(date +%s)
	rm -rf "$dir.tmp"
	mmdebstrap --variant=apt --mode=root --format=directory \
		${pkgs:+--include="$pkgs"} "${aptopts[@]}" \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--customize-hook='rm -rf "$1/var/cache/apt/archives/"*.deb' \
		"${suite%-backports}" "$dir.tmp" "${list[@]}" >"$dir.log" 2>&1 ||
		{ tail -n 30 "$dir.log" >&2; rm -rf "$dir.tmp"; die "mmdebstrap failed (log: $dir.log)"; }
	echo "$suite $pkgs" >"$dir.tmp/.kcsmux-chroot"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	log "$suite chroot ready in $(($(date +%s) - start)) s: $(du -sh "$dir" | cut -f1)"
fi
exec 8>&-
echo "$dir"
