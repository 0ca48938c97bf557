# shellcheck shell=bash
# The host side the tests/bench/run-*-bench.sh scripts share: messages, the
# usage text from the script's header, a python3 that can plot, the plain
# (unsanitized) build they measure, and the host facts every report shows.
# Source it after setting src (the checkout) and build ($KCSMUX_BUILD).

log() { printf '[%s] %s\n' "${0##*/}" "$*" >&2; }
die() { printf '[%s] error: %s\n' "${0##*/}" "$*" >&2; exit 1; }
# usage: the script's header comment, from line 2 to `set -e`
usage() { sed -n '2,/^set -e/p' "$0" | sed -e '/^set -e/d' -e 's/^# \{0,1\}//' >&2; exit 2; }

# A python3 with matplotlib for the plots (Debian's python3-matplotlib lives
# in /usr/bin/python3, which may not be the first python3 on PATH).
py=python3
for _p in /usr/bin/python3 python3; do
	if command -v "$_p" >/dev/null && "$_p" -c 'import matplotlib' 2>/dev/null; then
		py=$_p
		break
	fi
done

# bench_build TARGET...: configure $build as a plain tree if it is not one
# yet (benchmarks want unsanitized binaries; a SANITIZE=ON tree is refused)
# and make TARGET...; the log is $build/bench-build.log.
bench_build() {
	if [ ! -f "$build/CMakeCache.txt" ]; then
		log "configuring $build"
		cmake -S "$src" -B "$build" -DBUILD_TESTING=ON -DSANITIZE=OFF >/dev/null
	fi
	grep -q '^SANITIZE:BOOL=ON' "$build/CMakeCache.txt" &&
		die "$build is a SANITIZE=ON tree; use another KCSMUX_BUILD"
	log "building in $build"
	make -C "$build" -j2 --no-print-directory "$@" >"$build/bench-build.log" 2>&1 ||
		{ tail -n 30 "$build/bench-build.log" >&2; die "build failed (log: $build/bench-build.log)"; }
}

# bench_host_env FILE: the host as it was before the run (the reports'
# first line); bench_host_after FILE adds the load average after it.
bench_host_env() {
	{
		echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
		echo "nproc=$(nproc)"
		echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
		echo "loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
		echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
		echo "commit=$(git -C "$src" describe --always --dirty 2>/dev/null || echo none)"
	} >"$1"
}
bench_host_after() { echo "loadavg_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$1"; }

# bench_keep FROM TO FILE...: copy those of the FILEs FROM has into TO (the
# raw figures kept under docs/data/ beside a rendered report)
bench_keep() {
	local from=$1 to=$2 f g
	shift 2
	mkdir -p "$to"
	for f in "$@"; do
		for g in "$from"/$f; do # a pattern may name several
			[ -f "$g" ] && cp "$g" "$to/"
		done
	done
	return 0
}
