#!/bin/bash
# Boot the kcsmux test guest under QEMU (TCG) with an emulated KCS BMC and run
# one guest script in it. Exits with the guest script's status.
#
#   tests/vm/run.sh [options] SCRIPT [ARGS...]
#
# Options:
#   --bmc sim|extern     QEMU's built-in instant BMC, or ipmi_sim through
#                        ipmi-bmc-extern on loopback (default extern)
#   --delay SPEC         put the delay proxy between QEMU and ipmi_sim:
#                        seed (the realistic 200-2000 us model), fixed:US,
#                        uniform:MIN-MAX, table:FILE, none (default none)
#   --proxy-args ARGS    more delay proxy options, e.g. '--hold-on 0x30:0x01
#                        --hold-for 1500' lets a guest stall the BMC by
#                        sending that request (docs/bmc-proxy.md); %n in
#                        ARGS becomes the interface's number (0 first, 1
#                        second), so each proxy can log to its own file
#   --irq on|off         IRQ of the first KCS (0xca2, irq 5); default on
#   --second-kcs         add a second KCS at 0xca8 with its own BMC of the
#                        same kind, so stock ipmi_si and kcsraw can run side
#                        by side (guest env: KCS2_PORT=0xca8)
#   --irq2 on|off        IRQ of the second KCS (irq 7); default off
#   --add SRC[:DEST]     copy a file into the guest (default DEST /guest/bin/
#                        NAME); ELF files bring their shared libraries
#   --valgrind           copy valgrind's memcheck into the guest (the host's
#                        Debian valgrind: /usr/bin/valgrind, its
#                        /usr/libexec/valgrind memcheck files, and the
#                        debug info of ld.so from libc6-dbg, without which
#                        memcheck refuses to start)
#   --append ARGS        add to the guest kernel command line
#   --mitigations        keep the kernel's speculative-execution mitigations;
#                        the test guests boot with mitigations=off (the
#                        retpolines cost TCG ~20% of every fork and syscall,
#                        and no test depends on them); the benchmarks keep
#                        them, as a real server does
#   --env NAME=VALUE     set a variable for the guest script
#   --timeout SEC        kill the guest after SEC seconds (default 300)
#   --out DIR            where the guest's /out files land (default: in the
#                        run directory, printed at the end)
#   --log FILE           serial log (default: in the run directory)
#   --smp N --mem MB     guest CPUs (default 1) and memory (default 1024)
#   --reboot             let a guest reset restart the guest (the busybox guest
#                        runs with -no-reboot otherwise: a reset ends QEMU);
#                        the script runs again in the new boot
#   --kernel K           the guest kernel: 6.1 (Debian 12, the default), 6.12
#                        (Debian 13) or 7.2 (Debian unstable); the same as
#                        KCSMUX_KERNEL=K. Other kernels come from their
#                        suite's chroot (tests/chroot.sh), with kcsraw.ko
#                        built there per kernel (tests/vm/build-kmod.sh)
#   --shell              interactive shell in the guest instead of SCRIPT
#   --systemd            boot the cached Debian 12 guest with systemd as PID 1
#                        (tests/vm/build-debian-image.sh builds it once) on a
#                        throw-away qcow2 overlay of its disk, instead of the
#                        busybox initramfs; /guest (script, lib.sh, env,
#                        --add files) comes on a second, read-only disk. The
#                        script may reboot the guest: exit 100 from it means
#                        "reboot, then run me again" (it keeps its own state
#                        on the root disk); any other status ends the run.
#   --suite SUITE        --systemd with another Debian suite's guest (e.g.
#                        trixie), booting that suite's own kernel
#   --keep               keep the run directory
#   -q                   do not echo the guest console to stdout
#
# Environment: KCSMUX_BUILD (build dir, default ./build), KCSMUX_CACHE,
# KCSMUX_KERNEL, KCSMUX_KVER (a Debian 12 kernel release), KCSMUX_VM_LOCK=0 to skip the one-VM-at-a-time lock;
# KCSMUX_BMC_CONF, another ipmi_sim configuration directory for
# start-bmc.sh (e.g. the one tests/vm/bmc/gen-big-bmc.py writes).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

bmc=extern delay=none irq=on irq2=off second=0 timeout=300 smp=1 mem=1024
orig_args=("$@")
shell=0 keep=0 quiet=0 mitigations=0 valgrind=0 systemd=0 suite=bookworm noreboot=-no-reboot proxy_args="" outdir="" logfile="" append="" adds=() envs=()
usage() { sed -n '2,/^set -e/p' "$0" | sed -e '/^set -e/d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--bmc) bmc=$2; shift ;;
	--delay) delay=$2; shift ;;
	--proxy-args) proxy_args=$2; shift ;;
	--irq) irq=$2; shift ;;
	--irq2) irq2=$2; shift ;;
	--second-kcs) second=1 ;;
	--add) adds+=("$2"); shift ;;
	--valgrind) valgrind=1 ;;
	--append) append="$append $2"; shift ;;
	--mitigations) mitigations=1 ;;
	--env) envs+=("$2"); shift ;;
	--timeout) timeout=$2; shift ;;
	--out) outdir=$2; shift ;;
	--log) logfile=$2; shift ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--kernel) export KCSMUX_KERNEL=$2; shift ;;
	--shell) shell=1 ;;
	--systemd) systemd=1 ;;
	--suite) systemd=1 suite=$2; shift ;;
	--reboot) noreboot="" ;;
	--keep) keep=1 ;;
	-q) quiet=1 ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) break ;;
	esac
	shift
done
case "$bmc" in sim|extern) ;; *) die "--bmc must be sim or extern" ;; esac
case "$irq$irq2" in *[!onf]*) die "--irq/--irq2 take on or off" ;; esac
if [ $shell = 0 ]; then
	[ $# -ge 1 ] || usage
	script=$1
	shift
	[ -f "$script" ] || die "no guest script $script"
fi
[ "$delay" = none ] || [ "$bmc" = extern ] || die "--delay needs --bmc extern"
[ $systemd = 0 ] || [ $shell = 0 ] || die "--systemd has no --shell (use --keep and a script)"

# One VM at a time on this machine: TCG timing means nothing when two guests
# share 2 cores. A run that asserts no time (KCSMUX_VM_SHARE=1, set by CTest
# for the tests tests/vm/CMakeLists.txt lists as untimed) takes the lock
# shared, so two such guests may run at once, never beside a timed one.
if [ "${KCSMUX_VM_LOCK:-1}" = 1 ]; then
	lockmode=-x
	[ "${KCSMUX_VM_SHARE:-0}" = 1 ] && [ "$smp" = 1 ] && lockmode=-s
	exec 9>/tmp/kcsmux-vm.lock
	flock $lockmode -w "${KCSMUX_VM_LOCK_WAIT:-900}" 9 || die "another VM run held /tmp/kcsmux-vm.lock for too long"
fi

kver=$(guest_kver)
kroot=$("$KCSMUX_SRC/tests/vm/fetch-kernel.sh" --print-root)
kmod=$KCSMUX_BUILD/kmod/kcsraw.ko
if [ "${KCSMUX_KERNEL:-6.1}" != 6.1 ]; then
	[ $systemd = 0 ] || die "--systemd boots Debian 12's kernel only"
	kmod=$("$KCSMUX_SRC/tests/vm/build-kmod.sh")
fi
vmdir=$KCSMUX_BUILD/vm
base=$vmdir/base-$kver.cpio
"$KCSMUX_SRC/tests/vm/build-initramfs.sh" "$base"
tools=$KCSMUX_BUILD/tests/tools
bmcdir=$KCSMUX_SRC/tests/vm/bmc

mkdir -p "$vmdir/runs"
run=$(mktemp -d "$vmdir/runs/$(date +%Y%m%d-%H%M%S)-XXXX")
[ -n "$logfile" ] || logfile=$run/serial.log
[ -n "$outdir" ] || outdir=$run/out
cleanup() {
	local p
	for p in "$run"/bmc*/proxy.pid "$run"/bmc*/ipmi_sim.pid; do
		[ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	[ $keep = 1 ] || rm -rf "$run/stage" "$run"/bmc*/state "$run/root.qcow2" "$run/payload.img"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# free_port: a loopback TCP port nobody listens on now.
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 40000))
		ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
	die "no free loopback port"
}

# start_bmc N: start ipmi_sim (and the delay proxy) for KCS interface N and
# print the port QEMU should connect to.
start_bmc() {
	local n=$1 dir=$run/bmc$1 port lport
	mkdir -p "$dir"
	for _ in 1 2 3; do
		port=$(free_port)
		lport=$(free_port)
		if "$bmcdir/start-bmc.sh" "$dir" "$port" "$lport" >"$dir/start.log" 2>&1 9>&-; then
			break
		fi
		port=""
	done
	[ -n "$port" ] || { cat "$dir/start.log" >&2; die "ipmi_sim did not start"; }
	if [ "$delay" != none ]; then
		[ -x "$tools/kcsmux-bmc-proxy" ] || die "no $tools/kcsmux-bmc-proxy: build first"
		# shellcheck disable=SC2086
		"$tools/kcsmux-bmc-proxy" --listen 0 --bmc "$port" --delay "$delay" \
			--report "$dir/proxy-report.txt" ${proxy_args//%n/$n} >"$dir/proxy.out" 2>"$dir/proxy.log" 9>&- &
		echo $! >"$dir/proxy.pid"
		for _ in $(seq 100); do
			port=$(sed -n 's/^listening on \([0-9]*\).*/\1/p' "$dir/proxy.out")
			[ -n "$port" ] && break
			sleep 0.05
		done
		[ -n "$port" ] || { cat "$dir/proxy.log" >&2; die "delay proxy did not start"; }
	fi
	echo "$port"
}

irqnum() { [ "$1" = on ] && echo "$2" || echo 0; }
qbmc=()
add_kcs() {
	local n=$1 ioport=$2 irqv=$3 port
	if [ "$bmc" = sim ]; then
		qbmc+=(-device "ipmi-bmc-sim,id=bmc$n")
	else
		port=$(start_bmc "$n")
		qbmc+=(-chardev "socket,id=bmcc$n,host=127.0.0.1,port=$port,reconnect=1"
			-device "ipmi-bmc-extern,chardev=bmcc$n,id=bmc$n")
	fi
	qbmc+=(-device "isa-ipmi-kcs,bmc=bmc$n,ioport=$ioport,irq=$irqv")
}
add_kcs 0 0xca2 "$(irqnum "$irq" 5)"
[ $second = 0 ] || add_kcs 1 0xca8 "$(irqnum "$irq2" 7)"

# The per-run overlay: the guest script, its environment, the project's
# built artefacts that exist, and --add files.
stage=$run/stage
mkdir -p "$stage/guest/bin" "$stage/lib/modules/$kver/extra"
stage_elf() {
	local src=$1 dest=$2 lib
	mkdir -p "$stage$(dirname "$dest")"
	cp -L "$src" "$stage$dest"
	if head -c 4 "$src" | grep -q ELF && ldd "$src" >/dev/null 2>&1; then
		ldd "$src" | awk '/=> \// {print $3}' | while read -r lib; do
			mkdir -p "$stage$(dirname "$lib")"
			cp -Ln "$lib" "$stage$lib"
		done
	fi
}
for f in "$KCSMUX_BUILD"/fused/kcsmuxd "$KCSMUX_BUILD"/fused/kcsmuxd-plain \
	"$KCSMUX_BUILD"/fused/kcsmuxctl "$tools"/kcsmux-*; do
	[ -x "$f" ] && [ "${f##*/}" != kcsmux-bmc-proxy ] && stage_elf "$f" "/guest/bin/${f##*/}"
done
[ -f "$kmod" ] && cp "$kmod" "$stage/lib/modules/$kver/extra/"
if [ $valgrind = 1 ]; then
	# Debian's /usr/bin/valgrind is a wrapper script around valgrind.bin,
	# which finds its tool in /usr/libexec/valgrind.
	vgx=/usr/libexec/valgrind
	for f in /usr/bin/valgrind.bin $vgx/memcheck-amd64-linux \
		$vgx/vgpreload_core-amd64-linux.so $vgx/vgpreload_memcheck-amd64-linux.so \
		$vgx/default.supp; do
		[ -e "$f" ] || die "--valgrind: no $f (install valgrind)"
	done
	# Debian's ld.so is stripped, and memcheck must redirect its strlen:
	# it finds the symbol in libc6-dbg's file, by build id.
	ldso=$(readlink -f /lib64/ld-linux-x86-64.so.2)
	bid=$(readelf -n "$ldso" | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p')
	ldso_dbg=/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug
	[ -n "$bid" ] && [ -f "$ldso_dbg" ] ||
		die "--valgrind: no debug info for $ldso (install libc6-dbg)"
	adds+=("$ldso_dbg:$ldso_dbg")
	adds+=(/usr/bin/valgrind.bin:/usr/bin/valgrind "$vgx/memcheck-amd64-linux:$vgx/memcheck-amd64-linux"
		"$vgx/vgpreload_core-amd64-linux.so:$vgx/vgpreload_core-amd64-linux.so"
		"$vgx/vgpreload_memcheck-amd64-linux.so:$vgx/vgpreload_memcheck-amd64-linux.so"
		"$vgx/default.supp:$vgx/default.supp")
fi
for a in "${adds[@]}"; do
	src=${a%%:*}
	dest=${a#*:}
	[ "$dest" != "$a" ] || dest=/guest/bin/${src##*/}
	[ -e "$src" ] || die "--add: no file $src"
	stage_elf "$src" "$dest"
done
cp "$KCSMUX_SRC/tests/vm/guest/lib.sh" "$stage/guest/lib.sh"
if [ $shell = 0 ]; then
	cp "$script" "$stage/guest/script"
fi
{
	echo "export KCSMUX_SCRIPT='${script:-}'"
	echo "export KCSMUX_ARGS='$*'"
	echo "export KCSMUX_SHELL=$shell"
	echo "export KCSMUX_BMC=$bmc"
	echo "export KCSMUX_DELAY='$delay'"
	echo "export KCS1_PORT=0xca2 KCS1_IRQ=$(irqnum "$irq" 5)"
	[ $second = 0 ] || echo "export KCS2_PORT=0xca8 KCS2_IRQ=$(irqnum "$irq2" 7)"
	for e in "${envs[@]}"; do
		printf "export %s='%s'\n" "${e%%=*}" "${e#*=}"
	done
} >"$stage/guest/env"
cmdline="console=ttyS0 loglevel=4 panic=-1 oops=panic tsc=reliable no_timer_check"
[ $mitigations = 1 ] || cmdline="$cmdline mitigations=off"
if [ $systemd = 1 ]; then
	# The systemd guest: its own initrd (initramfs-tools) mounts the
	# overlay of the cached root disk; the payload disk holds /guest and
	# the wrapper the image's kcsmux-guest-run unit starts at each boot.
	img=$("$KCSMUX_SRC/tests/vm/build-debian-image.sh" --suite "$suite" --print-dir)
	kernel=$kroot/vmlinux
	[ ! -f "$img/vmlinuz" ] || kernel=$img/vmlinuz
	kver=$(cat "$img/kver" 2>/dev/null || echo "$kver")
	cp "$KCSMUX_SRC/tests/vm/guest/systemd-wrapper.sh" "$stage/script"
	qemu-img create -q -f qcow2 -F raw -b "$img/disk.img" "$run/root.qcow2"
	truncate -s 256M "$run/payload.img"
	mkfs.ext4 -q -L kcsmux-payload -d "$stage" "$run/payload.img"
	cmdline="$cmdline root=/dev/vda rw systemd.show_status=false"
	qemu=(qemu-system-x86_64 -accel tcg -M pc -cpu max -smp "$smp" -m "$mem"
		-nodefaults -no-user-config -display none
		-kernel "$kernel" -initrd "$img/initrd" -append "$cmdline$append"
		-drive "file=$run/root.qcow2,if=virtio,format=qcow2"
		-drive "file=$run/payload.img,if=virtio,format=raw,readonly=on"
		-chardev "file,id=out,path=$run/out.b64" -serial chardev:con -serial chardev:out
		"${qbmc[@]}")
else
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$run/overlay.cpio"
	cat "$base" "$run/overlay.cpio" >"$run/initrd.cpio"
	qemu=(qemu-system-x86_64 -accel tcg -M pc -cpu max -smp "$smp" -m "$mem"
		-nodefaults -no-user-config -display none ${noreboot:+"$noreboot"}
		-kernel "$kroot/vmlinux" -initrd "$run/initrd.cpio" -append "$cmdline$append"
		-chardev "file,id=out,path=$run/out.b64" -serial chardev:con -serial chardev:out
		"${qbmc[@]}")
fi

start=$(date +%s.%N)
if [ $shell = 1 ]; then
	"${qemu[@]}" -chardev stdio,id=con,mux=on,signal=off -mon chardev=con,mode=readline
	exit 0
fi

# A guest vCPU that stops for good during boot is a hazard of QEMU's
# multi-threaded TCG (seen about once in twenty 2-vCPU boots on the 2-core
# rig, before any kcsmux code ran): the kernel's RCU and soft-lockup
# watchdogs report it ~20 s later, and the guest init's CPU check
# (guest/init) prints KCSMUX-RIG-STALL. If that happens *before the guest
# script starts*, the boot is the rig's failure, not the code's: run.sh
# ends it and boots once more, and says so. A stall reported after the
# script started fails the run like any other error. Only boots with more
# than one vCPU are watched: the hazard is theirs.
#
# The same holds for a kernel that oopses before the script starts, with
# nothing of kcsmux loaded (the busybox guest loads no module before its
# script): once in CI, 7.2 at 2 vCPUs hit an int3 the kernel had already
# patched away (its text_poke_bp protocol, racing QEMU's cross-vCPU code
# invalidation) in an initcall 1.4 s into the boot. Such a boot is run
# again too, once, and said so; an oops after the script started, or any
# oops that names kcsraw, fails the run.
stall_re='KCSMUX-RIG-STALL|BUG: soft lockup|rcu: INFO|timer wakeup didn.t happen'
watch_boot() {	# kill QEMU if the kernel stalls before the script starts
	while sleep 0.5; do
		[ -f "$run/qemu.pid" ] && kill -0 "$(cat "$run/qemu.pid")" 2>/dev/null || continue
		[ -f "$logfile" ] || continue
		grep -q -a '^kcsmux-guest: ' "$logfile" && return 0
		if grep -q -a -E "$stall_re" "$logfile"; then
			: >"$run/rig-stall"
			kill "$(cat "$run/qemu.pid")" 2>/dev/null
			return 0
		fi
	done
}
# The guest's clock against the host's. Under TCG the guest's TSC is the
# host's, and the kernel calibrates its frequency at boot against QEMU's
# emulated timers; once in about a hundred boots here that went wrong and
# the guest's clock ran 4.3 times the host's (108 s of guest uptime in a
# 25 s boot), so every timeout in the guest fired early and a test failed.
# A boot whose clock ran outside 0.67-1.5 times the host's says so; if its
# script failed too, run.sh runs once more from the start (fresh BMC, run
# directory and logs): a script that fails on a sound clock is never run
# again, and a second unsound clock is reported, not retried.
clock_check() {	# 0: rerun (a failed script on an unsound clock)
	local up wall
	# --reboot: the uptime is the last boot's only
	[ -n "$noreboot" ] || return 1
	up=$(tr -d '\r' <"$logfile" | sed -n 's/^KCSMUX-UPTIME=\([0-9.]*\)$/\1/p' | tail -n 1)
	[ -n "$up" ] || return 1
	wall=$(awk -v a="$boot_start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
	awk -v u="$up" -v w="$wall" 'BEGIN { exit !(w > 2 && (u > 1.5 * w || u < 0.67 * w)) }' || return 1
	clock_what="the guest's clock ran ${up} s in ${wall} s of the host's"
	log "rig: $clock_what"
	[ "${KCSMUX_RIG_CLOCK_RETRY:-0}" = 0 ] || return 1
	rc=$(tr -d '\r' <"$logfile" | sed -n 's/^KCSMUX-EXIT=\([0-9]*\)$/\1/p' | tail -n 1)
	[ "${rc:-1}" != 0 ]
}
oops_re='Oops: |Kernel panic - not syncing|BUG: kernel NULL pointer'
boot_oops() {	# 0: the kernel crashed before the script, with none of ours
	[ "$smp" -gt 1 ] && [ $systemd = 0 ] || return 1
	! grep -q -a '^kcsmux-guest: ' "$logfile" || return 1
	grep -q -a -E "$oops_re" "$logfile" || return 1
	! grep -q -a -E 'kcsraw|kcsmux' "$logfile"
}
attempt=1
while :; do
	rm -f "$run/rig-stall" "$run/qemu.pid" "$run/out.b64"
	log "booting $kver (${script##*/}), log: $logfile"
	boot_start=$(date +%s.%N)
	wpid=""
	if [ "$smp" -gt 1 ]; then
		watch_boot 9>&- &
		wpid=$!
	fi
	set +e
	if [ $quiet = 1 ]; then
		timeout --foreground -k 5 "$timeout" "${qemu[@]}" -pidfile "$run/qemu.pid" \
			-chardev "file,id=con,path=$logfile" </dev/null 9>&-
	else
		timeout --foreground -k 5 "$timeout" "${qemu[@]}" -pidfile "$run/qemu.pid" \
			-chardev "stdio,id=con,signal=off" </dev/null 9>&- | tee "$logfile"
	fi
	qrc=${PIPESTATUS[0]}
	if [ -n "$wpid" ]; then
		kill "$wpid" 2>/dev/null
		wait "$wpid" 2>/dev/null
	fi
	set -e
	if [ ! -f "$run/rig-stall" ] && boot_oops; then
		: >"$run/rig-stall"
	fi
	if [ ! -f "$run/rig-stall" ]; then
		clock_check || break
		# again from the start: a fresh BMC (the script ran and may
		# have changed it), a fresh run directory and request log
		cp "$logfile" "$logfile.clock"
		log "rig: $clock_what, and the script failed: its timing cannot be trusted; running again from the start (this log kept as $logfile.clock)"
		trap - EXIT
		cleanup
		exec 9>&-
		KCSMUX_RIG_CLOCK_RETRY=1 exec "$0" "${orig_args[@]}"
	fi
	what=$(grep -a -m 1 -E "$stall_re|$oops_re" "$logfile" | tr -d '\r')
	mv "$logfile" "$logfile.stalled-$attempt"
	if [ $attempt -ge 2 ]; then
		log "rig: the guest kernel stalled or crashed before the script started, in both boots ($what; logs: $logfile.stalled-*)"
		exit 125
	fi
	log "rig: the guest kernel stalled or crashed before the script started ($what; log kept as $logfile.stalled-$attempt): booting again"
	attempt=$((attempt + 1))
done
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')

if [ -s "$run/out.b64" ]; then
	mkdir -p "$outdir"
	tr -d '\r' <"$run/out.b64" | base64 -d | tar -C "$outdir" -xf - ||
		log "warning: could not unpack the guest's /out"
fi
for f in "$run"/bmc*/proxy-report.txt; do
	[ -f "$f" ] && { log "delay proxy report (${f%/*}):"; sed 's/^/    /' "$f" >&2; }
done
rc=$(tr -d '\r' <"$logfile" | sed -n 's/^KCSMUX-EXIT=\([0-9]*\)$/\1/p' | tail -n 1)
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	log "timeout: guest killed after ${timeout}s (log: $logfile)"
	exit 124
fi
if [ -z "$rc" ]; then
	log "guest did not report an exit status (qemu status $qrc, log: $logfile)"
	exit 125
fi
# The CPU the run cost the host (QEMU and every reaped helper: bash's
# times, children's user + system), for the suite's budget.
times >"$run/times"
cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%.0f", t }' "$run/times")
log "guest exit $rc after ${secs}s, host CPU ${cpu}s; run dir $run"
exit "$rc"
