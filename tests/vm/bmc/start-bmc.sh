#!/bin/bash
# Start the kcsmux test BMC: OpenIPMI's ipmi_sim configured from this directory.
#
#   start-bmc.sh WORKDIR SERIAL_PORT [LAN_PORT]
#
# Prepares WORKDIR (created if needed; files of a previous run there are
# replaced): compiles sdrs.sdrs, encodes the FRU images and the SEL, writes
# lan.conf from lan.conf.in and a fresh persistent state directory, so every
# run starts from the same BMC contents (docs/bmc.md).  Then checks the command
# file in a port-less dry run, starts ipmi_sim in the background with its
# system interface (VM codec, for QEMU's ipmi-bmc-extern) listening on
# 127.0.0.1:SERIAL_PORT and, when LAN_PORT is given, an RMCP/RMCP+ LAN channel
# on 127.0.0.1:LAN_PORT (user admin, password admin: test only), waits until
# it listens, writes its pid to WORKDIR/ipmi_sim.pid and exits 0.  Its output
# goes to WORKDIR/ipmi_sim.log.  Stop it with: kill "$(cat WORKDIR/ipmi_sim.pid)".
#
# On failure: a message and the relevant log on stderr, nothing left running,
# exit status 1 (2 for usage errors).
#
# Environment: KCSMUX_BMC_WAIT, seconds to wait for the ports (default 10);
# KCSMUX_BMC_CONF, a directory holding another configuration of the same
# files (sdrs.sdrs, kcsmux.emu, fru-bmc.conf, fru-hsbp.conf, sel.txt,
# lan.conf.in) to use instead of this script's directory, e.g. the 176-sensor
# one gen-big-bmc.py writes (docs/bmc.md); KCSMUX_BMC_SEL_EXTRA, N more SEL
# entries after sel.txt's (default 0; at most 3500: the SEL then holds
# N + 512 at most), generated: ids and timestamps one up from sel.txt's
# last, CPU Temp upper non-critical going high (the SEL benchmark's 1,000
# and 3,000 entries, tests/bench/sel-bench.sh).
# shellcheck disable=SC2015 # "[ a ] && [ b ] || die" is meant
set -euo pipefail
export LC_ALL=C

BMCDIR=$(cd "${KCSMUX_BMC_CONF:-$(dirname "${BASH_SOURCE[0]}")}" && pwd)
PROG=${0##*/}

log() { printf '[%s] %s\n' "$PROG" "$*" >&2; }
die() { printf '[%s] error: %s\n' "$PROG" "$*" >&2; exit 1; }
usage() {
	echo "usage: $PROG WORKDIR SERIAL_PORT [LAN_PORT]" >&2
	exit 2
}

# Fixed "most recent addition" time of the SDR repository, so that Get SDR
# Repository Info answers the same in every run (the SEL's is its newest entry's).
SDR_ADD_TIME=2024-01-15T09:30:00Z

[ $# -ge 2 ] && [ $# -le 3 ] || usage
WORKDIR=$1
SERIAL_PORT=$2
LAN_PORT=${3:-}

valid_port() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le 65535 ]; }
valid_port "$SERIAL_PORT" || die "SERIAL_PORT must be a port number: '$SERIAL_PORT'"
if [ -n "$LAN_PORT" ]; then
	valid_port "$LAN_PORT" || die "LAN_PORT must be a port number: '$LAN_PORT'"
	[ "$LAN_PORT" != "$SERIAL_PORT" ] || die "SERIAL_PORT and LAN_PORT must differ"
fi
WAIT=${KCSMUX_BMC_WAIT:-10}
[[ $WAIT =~ ^[1-9][0-9]*$ ]] || die "KCSMUX_BMC_WAIT must be a positive number of seconds"

for tool in ipmi_sim sdrcomp od date; do
	command -v "$tool" >/dev/null ||
		die "$tool not found (ipmi_sim and sdrcomp come with Debian's openipmi package)"
done

mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd)
PIDFILE=$WORKDIR/ipmi_sim.pid
SIMLOG=$WORKDIR/ipmi_sim.log

if [ -f "$PIDFILE" ]; then
	old=$(cat "$PIDFILE" 2>/dev/null || true)
	# (A killed ipmi_sim stays a zombie until its new parent reaps it.)
	if [[ $old =~ ^[0-9]+$ ]] && [ "$(cat "/proc/$old/comm" 2>/dev/null)" = ipmi_sim ] &&
		! grep -q '^State:[[:space:]]*Z' "/proc/$old/status" 2>/dev/null; then
		die "ipmi_sim from a previous run is still running in $WORKDIR (pid $old); stop it first"
	fi
	rm -f "$PIDFILE"
fi

######################################################################
# Sockets: is PORT (decimal) listening on 127.0.0.1, and by which process?

# Socket inodes for 127.0.0.1:PORT in /proc/net/{tcp,udp}: TCP in LISTEN
# state (0A), UDP bound (07).
port_inodes() { # tcp|udp PORT
	local proto=$1 want state
	want=$(printf '0100007F:%04X' "$2")
	if [ "$proto" = tcp ]; then state=0A; else state=07; fi
	awk -v a="$want" -v s="$state" '$2 == a && $4 == s { print $10 }' "/proc/net/$proto"
}

# True when process PID owns a socket bound to 127.0.0.1:PORT.
pid_has_port() { # PID tcp|udp PORT
	local pid=$1 ino fd
	for ino in $(port_inodes "$2" "$3"); do
		for fd in /proc/"$pid"/fd/*; do
			[ "$(readlink "$fd" 2>/dev/null)" = "socket:[$ino]" ] && return 0
		done
	done
	return 1
}

# True when anything (any address, IPv4 or IPv6) listens on / is bound to PORT.
port_busy() { # tcp|udp PORT
	local proto=$1 want state f
	want=$(printf ':%04X' "$2")
	if [ "$proto" = tcp ]; then state=0A; else state=07; fi
	for f in "/proc/net/$proto" "/proc/net/${proto}6"; do
		[ -r "$f" ] || continue
		if awk -v p="$want" -v s="$state" \
			'substr($2, length($2) - 4) == p && $4 == s { found = 1 } END { exit !found }' "$f"; then
			return 0
		fi
	done
	return 1
}

if port_busy tcp "$SERIAL_PORT"; then
	die "TCP port $SERIAL_PORT is already in use"
fi
if [ -n "$LAN_PORT" ] && port_busy udp "$LAN_PORT"; then
	die "UDP port $LAN_PORT is already in use"
fi

######################################################################
# Helpers

# Sets EPOCH to the seconds since 1970 of a UTC time YYYY-MM-DDTHH:MM[:SS]Z.
# (Helpers that can fail set globals: die in a $(...) subshell would not stop
# the script.)
epoch() {
	local t=$1
	[[ $t =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2})?Z$ ]] ||
		die "bad timestamp '$t' (want YYYY-MM-DDTHH:MM[:SS]Z)"
	t=${t%Z}
	EPOCH=$(date -u -d "${t/T/ } UTC" +%s) || die "bad timestamp '$1'"
}

# Bytes (decimal numbers) to " 0x.." words, for emulator commands.
hexwords() { local b; for b in "$@"; do printf ' 0x%02x' "$b"; done; }

# Bytes (decimal numbers) to ipmi_sim's persist encoding: every byte escaped.
persist_bytes() { local b; for b in "$@"; do printf '\\%02x' "$b"; done; }

######################################################################
# SDRs

# The records of sdrs.sdrs whose sensor_owner_id is OWNER (written exactly so
# in the file), with the file's define lines: the owner's device SDRs.
sdr_subset() { # OWNER
	awk -v owner="$1" '
		/^[ \t]*include[ \t]/ { print FILENAME ": include is not supported by start-bmc.sh" > "/dev/stderr"; exit 1 }
		/^[ \t]*define[ \t]/ && !inrec { print; next }
		/^[ \t]*sdr[ \t]+type[ \t]/ { inrec = 1; rec = $0 "\n"; keep = 0; next }
		inrec {
			rec = rec $0 "\n"
			if ($1 == "sensor_owner_id" && tolower($2) == tolower(owner)) keep = 1
			if ($1 == "endsdr") { if (keep) printf "%s", rec; inrec = 0 }
		}
	' "$BMCDIR/sdrs.sdrs"
}

# device_sdr_add commands for the raw records in FILE (sdrcomp -r output).
device_sdr_cmds() { # MC FILE
	local mc=$1 bytes i len
	read -r -a bytes <<<"$(od -An -v -tu1 "$2" | tr -s ' \n' '  ')"
	i=0
	while [ "$i" -lt "${#bytes[@]}" ]; do
		[ $((i + 5)) -le "${#bytes[@]}" ] || die "truncated SDR in $2"
		len=$((5 + bytes[i + 4]))
		[ $((i + len)) -le "${#bytes[@]}" ] || die "truncated SDR in $2"
		echo "device_sdr_add $mc 0$(hexwords "${bytes[@]:i:len}")"
		i=$((i + len))
	done
}

######################################################################
# FRU images (IPMI Platform Management FRU Information Storage Definition 1.0)

declare -a AREA
declare -A FRU

fru_field() { # VALUE: append a type/length byte (8-bit ASCII) and the text
	local s=$1 n=${#1} i c
	[ "$n" -ne 1 ] && [ "$n" -le 63 ] ||
		die "$FRUCONF: field '$s' must be empty or 2 to 63 characters"
	[[ $s != *[![:print:]]* ]] || die "$FRUCONF: field '$s' is not printable ASCII"
	AREA+=($((0xc0 | n)))
	for ((i = 0; i < n; i++)); do
		printf -v c '%d' "'${s:i:1}"
		AREA+=("$c")
	done
}

fru_area_end() { # end marker, padding, length in 8-byte units, checksum
	local sum=0 b
	AREA+=(193) # 0xc1: no more fields
	while [ $(((${#AREA[@]} + 1) % 8)) -ne 0 ]; do AREA+=(0); done
	AREA[1]=$(((${#AREA[@]} + 1) / 8))
	for b in "${AREA[@]}"; do sum=$((sum + b)); done
	AREA+=($(((256 - sum % 256) % 256)))
}

fru_has() { # PREFIX: is any key of that area set?
	local k
	for k in "${!FRU[@]}"; do [[ $k == "$1".* ]] && return 0; done
	return 1
}

# Sets IMG to the image's bytes (decimal), SIZE of them.
fru_image() { # CONF
	local line key val size hdr=(1 0 0 0 0 0 0) img=() off=1 mins sum b ctype
	FRUCONF=$1
	FRU=()
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		[[ $line == *=* ]] || die "$FRUCONF: not KEY=VALUE: '$line'"
		key=${line%%=*}
		val=${line#*=}
		case $key in
		size | chassis.type | chassis.part | chassis.serial | \
			board.mfg_date | board.manufacturer | board.product | \
			board.serial | board.part | board.fru_file_id | \
			product.manufacturer | product.name | product.part | \
			product.version | product.serial | product.asset_tag | \
			product.fru_file_id) FRU[$key]=$val ;;
		*) die "$FRUCONF: unknown key '$key'" ;;
		esac
	done <"$FRUCONF"
	size=${FRU[size]:-}
	[[ $size =~ ^[0-9]+$ ]] && [ "$size" -ge 16 ] && [ "$size" -le 2048 ] ||
		die "$FRUCONF: size must be 16..2048"

	if fru_has chassis; then
		ctype=${FRU[chassis.type]:-0x02}
		[[ $ctype =~ ^0x[0-9a-fA-F]{1,2}$ ]] || die "$FRUCONF: chassis.type must be a hex byte (0x..)"
		AREA=(1 0 $((ctype)))
		fru_field "${FRU[chassis.part]:-}"
		fru_field "${FRU[chassis.serial]:-}"
		fru_area_end
		hdr[2]=$off
		off=$((off + ${#AREA[@]} / 8))
		img+=("${AREA[@]}")
	fi
	if fru_has board; then
		mins=0
		if [ -n "${FRU[board.mfg_date]:-}" ]; then
			# Minutes since 1996-01-01 00:00 UTC, 3 bytes LSB first.
			epoch "${FRU[board.mfg_date]}"
			mins=$(((EPOCH - 820454400) / 60))
		fi
		AREA=(1 0 0 $((mins & 255)) $((mins >> 8 & 255)) $((mins >> 16 & 255)))
		fru_field "${FRU[board.manufacturer]:-}"
		fru_field "${FRU[board.product]:-}"
		fru_field "${FRU[board.serial]:-}"
		fru_field "${FRU[board.part]:-}"
		fru_field "${FRU[board.fru_file_id]:-}"
		fru_area_end
		hdr[3]=$off
		off=$((off + ${#AREA[@]} / 8))
		img+=("${AREA[@]}")
	fi
	if fru_has product; then
		AREA=(1 0 0)
		fru_field "${FRU[product.manufacturer]:-}"
		fru_field "${FRU[product.name]:-}"
		fru_field "${FRU[product.part]:-}"
		fru_field "${FRU[product.version]:-}"
		fru_field "${FRU[product.serial]:-}"
		fru_field "${FRU[product.asset_tag]:-}"
		fru_field "${FRU[product.fru_file_id]:-}"
		fru_area_end
		hdr[4]=$off
		img+=("${AREA[@]}")
	fi
	sum=0
	for b in "${hdr[@]}"; do sum=$((sum + b)); done
	img=("${hdr[@]}" $(((256 - sum % 256) % 256)) "${img[@]}")
	[ "${#img[@]}" -le "$size" ] ||
		die "$FRUCONF: the image needs ${#img[@]} bytes, more than size=$size"
	while [ "${#img[@]}" -lt "$size" ]; do img+=(0); done
	IMG=("${img[@]}")
}

fru_cmd() { # MC CONF
	fru_image "$2"
	IMG_HEX=$(hexwords "${IMG[@]}")
	echo "mc_add_fru_data $1 0x00 ${#IMG[@]} data$IMG_HEX"
}

######################################################################
# SEL: sel.txt -> ipmi_sim's persistent SEL file.  ipmi_sim reads persist
# items in reverse file order, so entries are written last first.

sel_file() {
	local line id type ts rest bytes entries=() last=0 t n lineno=0 i
	while IFS= read -r line || [ -n "$line" ]; do
		lineno=$((lineno + 1))
		line=${line%%#*}
		[[ $line =~ ^[[:space:]]*$ ]] && continue
		read -r id type ts rest <<<"$line"
		read -r -a bytes <<<"$rest"
		[[ $id =~ ^[0-9a-fA-F]{1,4}$ && $type =~ ^[0-9a-fA-F]{2}$ ]] ||
			die "sel.txt:$lineno: bad ID or TYPE"
		id=$((16#$id))
		type=$((16#$type))
		[ "$id" -ge 1 ] && [ "$id" -le 65279 ] || die "sel.txt:$lineno: bad record ID"
		for i in "${!bytes[@]}"; do
			[[ ${bytes[i]} =~ ^0x[0-9a-fA-F]{1,2}$ ]] ||
				die "sel.txt:$lineno: bad byte '${bytes[i]}'"
			bytes[i]=$((bytes[i]))
		done
		if [ "$type" -lt 224 ]; then
			[ "${#bytes[@]}" -eq 9 ] || die "sel.txt:$lineno: want 9 bytes after the timestamp"
			epoch "$ts"
			t=$EPOCH
			[ "$t" -le "$last" ] || last=$t
			bytes=($((t & 255)) $((t >> 8 & 255)) $((t >> 16 & 255)) $((t >> 24 & 255)) "${bytes[@]}")
		else
			[ "$ts" = - ] && [ "${#bytes[@]}" -eq 13 ] ||
				die "sel.txt:$lineno: want '-' and 13 bytes for an OEM non-timestamped record"
		fi
		entries+=("$id:d:$(persist_bytes $((id & 255)) $((id >> 8)) "$type" "${bytes[@]}")")
	done <"$BMCDIR/sel.txt"
	[ "${#entries[@]}" -gt 0 ] || die "sel.txt has no entries"
	for ((n = 1; n <= SEL_EXTRA; n++)); do
		id=$((id + 1))
		t=$((last + 1))
		last=$t
		entries+=("$id:d:$(persist_bytes $((id & 255)) $((id >> 8)) 2 \
			$((t & 255)) $((t >> 8 & 255)) $((t >> 16 & 255)) $((t >> 24 & 255)) \
			0x20 0 4 1 1 1 7 $((n & 255)) 0x50)")
	done
	echo "last_add_time:i:$last"
	echo "last_erase_time:i:0"
	for ((n = ${#entries[@]} - 1; n >= 0; n--)); do echo "${entries[n]}"; done
}

######################################################################
# Prepare WORKDIR

cd "$WORKDIR"
rm -rf state check-state check.conf bmc-data.emu lan.conf kcsmux.emu sdr-* \
	sdr.main "$SIMLOG" check.log

STATE=state/ipmi_sim/kcsmux # <ipmi_sim -s dir>/ipmi_sim/<name in lan.conf>
mkdir -p "$STATE"
cp "$BMCDIR/kcsmux.emu" kcsmux.emu
SEL_EXTRA=${KCSMUX_BMC_SEL_EXTRA:-0}
[[ $SEL_EXTRA =~ ^[0-9]+$ ]] && [ "$SEL_EXTRA" -le 3500 ] ||
	die "KCSMUX_BMC_SEL_EXTRA must be a number from 0 to 3500"
# room for them (ipmi_sim's SEL size is fixed when it is enabled)
[ "$SEL_EXTRA" = 0 ] ||
	sed -i "s/^sel_enable 0x20 512 /sel_enable 0x20 $((SEL_EXTRA + 512)) /" kcsmux.emu

# Main SDR repository, in ipmi_sim's persist format, with a fixed add time.
sdrcomp -8 -o sdr.main "$BMCDIR/sdrs.sdrs" || die "sdrcomp failed on sdrs.sdrs"
epoch "$SDR_ADD_TIME"
sed -i "s/^last_add_time:i:.*/last_add_time:i:$EPOCH/" sdr.main
cp sdr.main "$STATE/sdr.20.main"

sel_file >"$STATE/sel.20"

{
	echo "# Generated by start-bmc.sh from fru-*.conf and sdrs.sdrs; do not edit."
	fru_cmd 0x20 "$BMCDIR/fru-bmc.conf"
	fru_cmd 0x72 "$BMCDIR/fru-hsbp.conf"
	for mc in 0x20 0x72; do
		sdr_subset "$mc" >"sdr-$mc.sdrs"
		sdrcomp -8 -r -o "sdr-$mc.bin" "sdr-$mc.sdrs" ||
			die "sdrcomp failed on the device SDRs of $mc"
		device_sdr_cmds "$mc" "sdr-$mc.bin"
	done
} >bmc-data.emu

lan_sed=(-e "s/@SERIAL_PORT@/$SERIAL_PORT/g" -e "s/@LAN_PORT@/${LAN_PORT:-0}/g")
if [ -n "$LAN_PORT" ]; then
	lan_sed+=(-e 's/^#LAN# //')
fi
sed "${lan_sed[@]}" "$BMCDIR/lan.conf.in" >lan.conf
if grep -q '@[A-Z_]*@' lan.conf; then
	die "unsubstituted placeholder left in lan.conf"
fi

######################################################################
# Dry run: the same command file with no ports (no serial line, no LAN), not
# in -n mode, so that ipmi_sim echoes the file and prints its "**" errors.
# -x quit makes it exit after the file (it aborts on the way out: harmless).

# The template with its LAN lines left commented out and the serial line
# dropped; the ports do not matter.
sed -e "/^[[:space:]]*serial[[:space:]]/d" -e "s/@[A-Z_]*@/0/g" "$BMCDIR/lan.conf.in" >check.conf
mkdir -p check-state/ipmi_sim/kcsmux
cp "$STATE"/* check-state/ipmi_sim/kcsmux/
# (Its console output has \r line starts; long lines are echoed truncated.)
(
	ulimit -c 0
	timeout 20 ipmi_sim -c check.conf -f kcsmux.emu -s check-state -x quit </dev/null || true
) 2>&1 | tr -d '\r' >check.log
last_cmd=$(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' kcsmux.emu | tail -n 1)
if grep -q '\*\*' check.log || ! grep -qxF "$last_cmd" check.log; then
	log "ipmi_sim rejects the configuration; dry-run output ($WORKDIR/check.log):"
	grep -v -e '^#' -e '^[[:space:]]*$' -e 'valid_fd: Assertion' -e 'Aborted.*ipmi_sim' check.log |
		cut -c1-160 >&2 || true
	die "bad ipmi_sim configuration (see the messages above; a '**' line follows the command it rejects)"
fi
rm -rf check-state

######################################################################
# Start and wait for the ports

ipmi_sim -n -c lan.conf -f kcsmux.emu -s state </dev/null >"$SIMLOG" 2>&1 &
pid=$!

ready=
for ((i = 0; i < WAIT * 10; i++)); do
	if ! kill -0 "$pid" 2>/dev/null; then
		break
	fi
	if pid_has_port "$pid" tcp "$SERIAL_PORT" &&
		{ [ -z "$LAN_PORT" ] || pid_has_port "$pid" udp "$LAN_PORT"; }; then
		ready=1
		break
	fi
	sleep 0.1
done

if [ -z "$ready" ]; then
	if kill -0 "$pid" 2>/dev/null; then
		what="ipmi_sim (pid $pid) did not open 127.0.0.1:$SERIAL_PORT${LAN_PORT:+ and UDP 127.0.0.1:$LAN_PORT} within ${WAIT}s"
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	else
		wait "$pid" 2>/dev/null && rc=0 || rc=$?
		what="ipmi_sim exited (status $rc) before listening"
	fi
	log "$what; its log ($SIMLOG):"
	cat "$SIMLOG" >&2 2>/dev/null || true
	die "the BMC simulator did not start"
fi

echo "$pid" >"$PIDFILE"
log "ipmi_sim pid $pid: system interface 127.0.0.1:$SERIAL_PORT${LAN_PORT:+, LAN 127.0.0.1:$LAN_PORT (admin/admin)}, state in $WORKDIR"
exit 0
