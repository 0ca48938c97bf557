#!/bin/sh
# kcsmux-cutover (fused/dist) in a fake root with recording modprobe,
# systemctl and kcsmuxctl: the pre-flight finds open devices, an
# armed-watchdog risk and a missing kcsraw-dkms; apply records a baseline,
# makes the boot-time links, unloads the stock stack, enables kcsmuxd and
# compares through a node; a failed kcsraw load, a kcsmuxd that does not
# start or waits for a silent BMC too long and a comparison that differs
# roll back by themselves (ipmi_si loaded again until the BMC answers),
# petting a
# running watchdog through the node and then the stock device; --dry-run
# changes nothing, --no-verify skips the baseline; rollback undoes it all
# without purging anything.
# status, a second apply that changes nothing, the exit codes, --json,
# the journal, reports per run, the fallback (kcsmuxd failed for good, a
# kcsraw that does not load at boot) and kcsmuxctl status saying so, a
# rollback from the fallback (its metric back to 0), a
# backend = ipmidev host, a replay through a node without watchdog rights,
# a slower median kept and a gross one rolled back; only the IPMI
# watchdog's device refuses (not another driver's /dev/watchdogN); a
# partial modprobe -r loads again what it unloaded; BMC_WAIT holds.
#   cutover.sh SCRIPT KCSMUXCTL
set -u
SCRIPT=$1
CTL=$2
R=$(mktemp -d /tmp/kcsmux-cutover.XXXXXX)
trap 'rm -rf "$R"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mkdir -p "$R/proc/123/fd" "$R/sys/firmware/dmi/entries" "$R/dev" \
	"$R/etc/modprobe.d" "$R/etc/modules-load.d" \
	"$R/usr/share/kcsraw-dkms/cutover" "$R/bin"
touch "$R/sys/firmware/dmi/entries/38-0" "$R/dev/ipmi0" \
	"$R/usr/share/kcsraw-dkms/cutover/modprobe.conf" \
	"$R/usr/share/kcsraw-dkms/cutover/modules-load.conf"
ln -s /dev/ipmi0 "$R/proc/123/fd/3"
printf '  0ca2-0ca2 : IPI0001:00\n    0ca2-0ca2 : ipmi_si\n' >"$R/proc/ioports"
printf 'ipmi_devintf 20480 0 - Live\nipmi_si 90112 1 - Live\nipmi_msghandler 1 2 - Live\n' \
	>"$R/proc/modules"
# the stubs log their arguments; modprobe kcsraw fails when told;
# modprobe ipmi_si fails the next N times ($LOG.nobmc: N, or "never"
# comes a BMC), then makes /dev/ipmi0; kcsmuxd's start fails or hangs
cat >"$R/bin/modprobe" <<'S'
#!/bin/sh
echo "modprobe $*" >>"$LOG"
if [ "$*" = kcsraw ] && [ -e "$LOG.kcsraw-fails" ]; then
	echo "modprobe: FATAL: Module kcsraw not found in directory /lib/modules/6.1.0-x" >&2
	exit 1
fi
# .rm-partial: a modprobe -r of 3 or more unloads the first two, then
# fails (the third in use); .no-M: modprobe M fails
if [ "$1" = -r ] && [ $# -gt 3 ] && [ -e "$LOG.rm-partial" ]; then
	sed -i "/^$2 /d;/^$3 /d" "$KCSMUX_CUTOVER_ROOT/proc/modules"
	echo "modprobe: FATAL: Module $4 is in use." >&2
	exit 1
fi
[ -e "$LOG.no-$1" ] && exit 1
case "$*" in
"-r "*ipmi_si*) { [ -s "$LOG.nobmc" ] || [ -e "$LOG.nodev" ]; } && rm -f "$KCSMUX_CUTOVER_ROOT/dev/ipmi0" ;;
esac
if [ "$*" = ipmi_si ] && [ -s "$LOG.nobmc" ]; then
	n=$(cat "$LOG.nobmc")
	[ "$n" = never ] && exit 1
	echo $((n - 1)) >"$LOG.nobmc"
	[ "$n" -gt 0 ] && exit 1
	touch "$KCSMUX_CUTOVER_ROOT/dev/ipmi0"
fi
# .nodev: ipmi_si loads, but no /dev/ipmi0 comes
[ "$*" = "--ignore-install ipmi_devintf" ] && [ ! -e "$KCSMUX_CUTOVER_ROOT/dev/ipmi0" ] &&
	[ ! -e "$LOG.nodev" ] && touch "$KCSMUX_CUTOVER_ROOT/dev/ipmi0"
# .track: /proc/modules follows the loads and unloads
if [ -e "$LOG.track" ]; then
	m=$KCSMUX_CUTOVER_ROOT/proc/modules
	case "$1" in
	-r)
		shift
		for x in "$@"; do sed -i "/^$x /d" "$m"; done
		;;
	*)
		x=$(echo "$*" | sed 's/^--ignore-install //')
		grep -q "^$x " "$m" || echo "$x 1 0 - Live" >>"$m"
		;;
	esac
fi
exit 0
S
cat >"$R/bin/systemctl" <<'S'
#!/bin/sh
echo "systemctl $*" >>"$LOG"
case "$*" in
"is-active --quiet kcsmuxd") [ -e "$LOG.active" ]; exit ;;
"is-active kcsmuxd") [ -e "$LOG.active" ] && echo active || echo inactive; exit ;;
"show -p ActiveState --value kcsmuxd") cat "$LOG.state" 2>/dev/null || echo inactive; exit ;;
"disable --now kcsmuxd" | "stop kcsmuxd") rm -f "$LOG.active" ;;
esac
[ "$*" = "enable --now kcsmuxd" ] && [ -e "$LOG.start-fails" ] && exit 1
[ "$*" = "enable --now kcsmuxd" ] && [ -e "$LOG.start-hangs" ] && sleep 5
[ "$*" = "enable --now kcsmuxd" ] && touch "$LOG.active"
[ "$*" = "show -p StatusText --value kcsmuxd" ] && [ ! -e "$LOG.no-status" ] &&
	{ cat "$LOG.status" 2>/dev/null || echo "waiting for the BMC to answer"; }
exit 0
S
# kcsmuxctl: a baseline with the watchdog running or stopped, one node,
# every request allowed (.readonly: no watchdog command), a comparison
# that matches or differs when told (.timing, .gross: medians only;
# .readonly: Get Watchdog Timer refused)
cat >"$R/bin/kcsmuxctl" <<'S'
#!/bin/sh
echo "kcsmuxctl $*" >>"$LOG"
case "$*" in
"check "*" 6 0x22" | "check "*" 6 0x25") [ ! -e "$LOG.readonly" ]; exit ;;
*--compare*" "*)
	echo "comparison with $5 (2 answers):"
	t=""
	[ -e "$LOG.timing" ] && t=35958
	[ -e "$LOG.gross" ] && t=2000000
	[ -n "$t" ] && echo "differs   get_device_id  timing   p50 $t us, baseline 39 us (bound 4 x baseline + 20 ms = 20156 us)"
	[ -e "$LOG.readonly" ] && echo "differs   wdt            wdt      byte 0: 0xd4, baseline 0x00"
	[ -n "$t" ] || [ -e "$LOG.readonly" ] || [ -e "$LOG.differs" ] || exit 0
	if [ -e "$LOG.differs" ]; then
		echo "differs   devid          exact    byte 1: 0x21, baseline 0x20"
	fi
	exit 1 ;;
*--baseline*)
	[ -e "$LOG.wdt-running" ] && w=44 || w=04
	printf 'kcsmux-baseline 1\nitem devid exact 00 20\nitem wdt wdt 00 %s 01\n' $w >"$5" ;;
*--compare*)
	echo "comparison with $5 (2 answers):"
	if [ -e "$LOG.differs" ]; then
		echo "differs   devid          exact    byte 1: 0x21, baseline 0x20"
		exit 1
	fi ;;
"list -j") echo '{"nodes": [{"name": "ipmi1", "x": {"name": "ipmi1"}}, {"name": "ipmi3"}]}' ;;
esac
exit 0
S
# logger: the journal, one "PRIORITY MESSAGE" a line
cat >"$R/bin/logger" <<'S'
#!/bin/sh
echo "$4 $6" >>"$LOG.journal"
S
chmod +x "$R/bin/modprobe" "$R/bin/systemctl" "$R/bin/kcsmuxctl" "$R/bin/logger"
touch "$R/dev/ipmi1"
export KCSMUX_CUTOVER_ROOT="$R" MODPROBE="$R/bin/modprobe" \
	SYSTEMCTL="$R/bin/systemctl" KCSMUXCTL="$R/bin/kcsmuxctl" LOG="$R/log" \
	LOGGER="$R/bin/logger"
REP=$R/var/lib/kcsmux/cutover

run() { # WANT ARGS
	want=$1
	shift
	: >"$LOG"
	sh "$SCRIPT" "$@" >"$R/out" 2>&1
	rv=$?
	[ "$rv" = "$want" ] || fail "kcsmux-cutover $* exited $rv, expected $want: $(cat "$R/out")"
}
has() { grep -qF -- "$2" "$1" || fail "no '$2' in ${1##*/}: $(cat "$1")"; }
linked() { [ "$(readlink "$R/etc/$1")" = "/usr/share/kcsraw-dkms/cutover/$2" ]; }

run 1 check
has "$R/out" "IPMI devices open: /dev/ipmi0 (123)"
has "$R/out" "I/O ports held by an IPMI driver: 0ca2-0ca2 : ipmi_si"
has "$R/out" "SMBIOS type 38 (IPMI device information): present"
run 1 apply
has "$R/out" "pre-flight failed: nothing changed"
[ ! -e "$R/etc/modprobe.d/kcsraw.conf" ] || fail "a refused apply blacklisted ipmi_si"
grep -q "modprobe\|enable\|doctor" "$LOG" && fail "a refused apply ran: $(cat "$LOG")"
rm "$R/proc/123/fd/3"
# an open watchdog refuses; a loaded one whose device is closed is unloaded
# and loaded again on kcsraw; ipmi_ssif (another interface) stays
touch "$R/dev/watchdog"
ln -s /dev/watchdog "$R/proc/123/fd/4"
printf 'ipmi_watchdog 1 0 - Live\nipmi_ssif 1 0 - Live\n' >>"$R/proc/modules"
run 1 apply
has "$R/out" "ipmi_watchdog is loaded and the watchdog is open: /dev/watchdog (123)"
rm "$R/proc/123/fd/4"
# a file whose path holds a newline and "/proc/PID/fd /dev/ipmi0" (any user can
# make one and keep it open) forges no open device
mkdir -p "$R/proc/77/fd"
ln -s "$(printf '/tmp/x\n/proc/999/fd /dev/ipmi0')" "$R/proc/77/fd/5"
ln -s "$(printf '/tmp/y\n/proc/998/fd /dev/watchdog')" "$R/proc/77/fd/6"
run 0 check
has "$R/out" "ipmi_watchdog is loaded, its device (/dev/watchdog) not open"
has "$R/out" "no process has an IPMI device open"
rm -r "$R/proc/77"
run 0 check --bmc
has "$LOG" "kcsmuxctl doctor -d /dev/ipmi0"
# only the IPMI watchdog's device counts: with another driver's watchdog0
# (iTCO_wdt, which then holds /dev/watchdog's minor: ipmi_watchdog has no
# device), systemd's open /dev/watchdog0 and /dev/watchdog refuse nothing
mkdir -p "$R/sys/class/watchdog/watchdog0" "$R/proc/1/fd"
echo iTCO_wdt >"$R/sys/class/watchdog/watchdog0/identity"
touch "$R/dev/watchdog0"
ln -s /dev/watchdog0 "$R/proc/1/fd/3"
ln -s /dev/watchdog "$R/proc/1/fd/4"
run 0 check
has "$R/out" "another driver's watchdog is open: /dev/watchdog (1) /dev/watchdog0 (1): not the BMC's"
# ... iTCO_wdt as watchdog1: /dev/watchdog is ipmi_watchdog's again
mv "$R/sys/class/watchdog/watchdog0" "$R/sys/class/watchdog/watchdog1"
mv "$R/dev/watchdog0" "$R/dev/watchdog1"
ln -sfn /dev/watchdog1 "$R/proc/1/fd/3"
rm "$R/proc/1/fd/4"
run 0 check
has "$R/out" "ipmi_watchdog is loaded, its device (/dev/watchdog) not open"
has "$R/out" "another driver's watchdog is open: /dev/watchdog1 (1)"
ln -s /dev/watchdog "$R/proc/1/fd/4"
run 1 check
has "$R/out" "ipmi_watchdog is loaded and the watchdog is open: /dev/watchdog (1):"
# ... a watchdog-core device whose identity names IPMI counts
rm "$R/proc/1/fd/4"
echo "IPMI Watchdog" >"$R/sys/class/watchdog/watchdog1/identity"
run 1 check
has "$R/out" "ipmi_watchdog is loaded and the watchdog is open: /dev/watchdog1 (1):"
rm -r "$R/proc/1" "$R/sys/class/watchdog" "$R/dev/watchdog1"

run 0 apply
linked modprobe.d/kcsraw.conf modprobe.conf || fail "no blacklist link"
linked modules-load.d/kcsraw.conf modules-load.conf || fail "no modules-load link"
has "$LOG" "modprobe -r ipmi_watchdog ipmi_devintf ipmi_si"
has "$LOG" "modprobe kcsraw"
has "$LOG" "modprobe ipmi_watchdog"
has "$R/out" "ipmi_watchdog loaded again, on kcsraw"
grep -q "modprobe ipmi_devintf" "$LOG" && fail "apply loaded ipmi_devintf on kcsraw"
grep -q "ipmi_ssif" "$LOG" && fail "apply touched ipmi_ssif: $(cat "$LOG")"
has "$LOG" "systemctl enable --now kcsmuxd"
has "$LOG" "kcsmuxctl doctor -d /dev/ipmi0 --baseline $REP/runs/"
has "$LOG" "kcsmuxctl check ipmi1 0xa 0x23"
has "$LOG" "kcsmuxctl doctor -d /dev/ipmi1 --compare $REP/runs/"
has "$R/out" "BMC watchdog: stopped"
has "$R/out" "verified: 2 answers through /dev/ipmi1 match the baseline"
grep -q -- "--pet" "$LOG" && fail "a stopped watchdog was petted: $(cat "$LOG")"
grep -v "is-active" "$LOG" | head -n 3 | grep -q "baseline" || fail "the baseline was not first: $(cat "$LOG")"
sed -i '/ipmi_watchdog\|ipmi_ssif/d' "$R/proc/modules"

# a comparison that differs: pet through the node, roll back, pet
# through the stock device, keep the report, exit 1
touch "$LOG.differs" "$LOG.wdt-running"
printf 'ipmi_devintf 1 0 - Live\nipmi_si 1 1 - Live\n' >>"$R/proc/modules"
run 3 apply
has "$R/out" "BMC watchdog: running"
has "$R/out" "differs   devid"
has "$R/out" "verification failed: the BMC's answers through /dev/ipmi1 differ"
has "$R/out" "rolled back: ipmi_si serves the interface"
has "$R/out" "the report stays in $REP/runs/"
[ -s "$REP/last/replay.txt" ] || fail "no replay report kept"
[ ! -e "$R/etc/modprobe.d/kcsraw.conf" ] || fail "a failed verification kept the blacklist"
grep -n "pet\|enable\|modprobe ipmi_si\|disable" "$LOG" | tr '\n' ' ' >"$R/order"
grep -q "ipmi0 --pet.*enable --now.*ipmi1 --pet.*disable --now.*modprobe ipmi_si.*ipmi0 --pet" "$R/order" ||
	fail "not petted before, across and after: $(cat "$R/order")"
rm "$LOG.differs"
# kcsmuxd does not start: rolled back by itself
touch "$LOG.start-fails"
run 3 apply
has "$R/out" "verification failed: kcsmuxd did not start"
has "$R/out" "rolled back"
has "$LOG" "modprobe ipmi_si"
rm "$LOG.start-fails" "$LOG.wdt-running"
# the BMC silent from the swap on: kcsmuxd waits for it past START_WAIT,
# apply rolls back; ipmi_si fails its load twice, then finds the BMC
touch "$LOG.start-hangs"
echo activating >"$LOG.state"
echo 2 >"$LOG.nobmc"
KCSMUX_CUTOVER_START_WAIT=1 KCSMUX_CUTOVER_PROBE_WAIT=1 run 3 apply
has "$R/out" "verification failed: kcsmuxd not ready within 1 s (waiting for the BMC to answer)"
has "$R/out" "no BMC answers ipmi_si yet: loading it again"
has "$R/out" "rolled back: ipmi_si serves the interface"
[ "$(grep -c "^modprobe ipmi_si$" "$LOG")" = 3 ] || fail "ipmi_si not loaded 3 times: $(cat "$LOG")"
[ -e "$R/dev/ipmi0" ] || fail "no /dev/ipmi0 after the BMC came back"
# ... and a BMC that never comes back: said, exit 1
echo never >"$LOG.nobmc"
KCSMUX_CUTOVER_START_WAIT=1 KCSMUX_CUTOVER_PROBE_WAIT=1 KCSMUX_CUTOVER_BMC_WAIT=2 run 4 apply
has "$R/out" "rolled back, but ipmi_si found no BMC within 2 s"
run 4 status
has "$R/out" "degraded: ipmi_si is loaded, without /dev/ipmi0"
# ... nor past BMC_WAIT when ipmi_si loads but makes no device: its wait
# for /dev/ipmi0 (PROBE_WAIT 20 s) is cut to what is left of the 2 s
rm -f "$LOG.nobmc"
touch "$R/dev/ipmi0"
touch "$LOG.nodev"
t0=$(date +%s)
KCSMUX_CUTOVER_START_WAIT=1 KCSMUX_CUTOVER_PROBE_WAIT=20 KCSMUX_CUTOVER_BMC_WAIT=2 run 4 apply
t=$(($(date +%s) - t0))
[ "$t" -lt 10 ] || fail "BMC_WAIT 2 s, START_WAIT 1 s, but the apply took $t s (PROBE_WAIT 20 s)"
has "$R/out" "rolled back, but ipmi_si found no BMC within 2 s"
rm "$LOG.nodev"
# ... kcsmuxd too slow to have said why: kcsraw's sysfs says the BMC is silent
touch "$LOG.no-status" "$R/dev/ipmi0"
echo 2 >"$LOG.nobmc"
mkdir -p "$R/sys/class/misc/kcsraw0"
echo "waiting 3 probes" >"$R/sys/class/misc/kcsraw0/bmc"
KCSMUX_CUTOVER_START_WAIT=1 KCSMUX_CUTOVER_PROBE_WAIT=1 run 3 apply
has "$R/out" "verification failed: kcsmuxd not ready within 1 s (waiting for the BMC to answer)"
echo "up" >"$R/sys/class/misc/kcsraw0/bmc"
echo 2 >"$LOG.nobmc"
KCSMUX_CUTOVER_START_WAIT=1 KCSMUX_CUTOVER_PROBE_WAIT=1 run 3 apply
has "$R/out" "verification failed: kcsmuxd not ready within 1 s (kcsmuxd has not said why)"
# ... the start still queued (a slow host: enable's reload): the status
# systemd shows is the last run's, not a reason; kcsraw's word comes first
rm "$LOG.no-status"
echo "3 nodes on /dev/kcsraw0" >"$LOG.status"
echo inactive >"$LOG.state"
echo 2 >"$LOG.nobmc"
KCSMUX_CUTOVER_START_WAIT=1 KCSMUX_CUTOVER_PROBE_WAIT=1 run 3 apply
has "$R/out" "verification failed: kcsmuxd not ready within 1 s (kcsmuxd had not started yet)"
grep -q "3 nodes" "$R/out" && fail "the last run's status given as the reason: $(cat "$R/out")"
echo "waiting 1 probes" >"$R/sys/class/misc/kcsraw0/bmc"
echo 2 >"$LOG.nobmc"
KCSMUX_CUTOVER_START_WAIT=1 KCSMUX_CUTOVER_PROBE_WAIT=1 run 3 apply
has "$R/out" "verification failed: kcsmuxd not ready within 1 s (waiting for the BMC to answer)"
rm -r "$R/sys/class/misc" "$LOG.state" "$LOG.status"
rm "$LOG.start-hangs" "$LOG.nobmc"
touch "$R/dev/ipmi0"
# --dry-run: the baseline and the plan; --no-verify: neither
run 0 apply --dry-run
has "$R/out" "dry run: nothing changed"
has "$R/out" "would replay the 2 answers"
grep -q "modprobe -r\|systemctl" "$LOG" && fail "a dry run changed something: $(cat "$LOG")"
[ ! -e "$R/etc/modprobe.d/kcsraw.conf" ] || fail "a dry run blacklisted ipmi_si"
run 0 apply --no-verify
has "$R/out" "--no-verify: no baseline, no comparison"
grep -q "kcsmuxctl doctor" "$LOG" && fail "--no-verify ran doctor: $(cat "$LOG")"
has "$R/out" "done (not verified)"
run 2 apply --bogus
sed -i '/ipmi_si\|ipmi_devintf/d' "$R/proc/modules"
printf 'ipmi_devintf 20480 0 - Live\nipmi_si 90112 1 - Live\n' >>"$R/proc/modules"

# rollback with the watchdog on kcsraw: it moves back to ipmi_si with it
printf 'kcsraw 1 1 - Live\nipmi_watchdog 1 0 - Live\n' >>"$R/proc/modules"
run 0 rollback
[ ! -e "$R/etc/modprobe.d/kcsraw.conf" ] && [ ! -e "$R/etc/modules-load.d/kcsraw.conf" ] ||
	fail "rollback left the boot-time links"
has "$LOG" "modprobe -r ipmi_watchdog"
has "$LOG" "modprobe -r kcsraw"
tail -n 1 "$LOG" | grep -q "modprobe ipmi_watchdog" ||
	fail "rollback did not load ipmi_watchdog last: $(cat "$LOG")"
sed -i '/kcsraw\|ipmi_watchdog/d' "$R/proc/modules"
has "$LOG" "systemctl disable --now kcsmuxd"
has "$LOG" "modprobe ipmi_si"
has "$LOG" "modprobe --ignore-install ipmi_devintf"

touch "$LOG.kcsraw-fails"
run 3 apply
has "$R/out" "modprobe kcsraw failed"
has "$R/out" "rolled back"
[ ! -e "$R/etc/modprobe.d/kcsraw.conf" ] || fail "a failed apply kept the blacklist"
rm "$LOG.kcsraw-fails"

# ipmi_devintf loaded after the cutover: a stock node on kcsraw's
# interface is named with what it bypasses (said, not refused); one on
# another interface (ipmi_si's) is not
mkdir -p "$R/sys/class/ipmi/ipmi0" "$R/sys/class/ipmi/ipmi1"
ln -s ../../../devices/platform/kcsraw.0 "$R/sys/class/ipmi/ipmi0/device"
ln -s ../../../devices/platform/IPI0001:00 "$R/sys/class/ipmi/ipmi1/device"
run 0 check
has "$R/out" "stock device /dev/ipmi0 exists on kcsraw's interface (kcsraw.0"
has "$R/out" "bypass every node's access list"
grep -q "/dev/ipmi1 exists" "$R/out" && fail "ipmi_si's node named: $(cat "$R/out")"
rm -r "$R/sys/class/ipmi"

# ---- status, apply on a host already cut over, exit codes, --json, the
# journal, reports per run, the fallback, the boot-time load, a backend =
# ipmidev host, a replay through a node without watchdog rights, timing ----
# runj WANT ARGS: as run, the JSON object (stdout) in $R/json, its
# "result" in JR
runj() {
	want=$1
	shift
	: >"$LOG"
	sh "$SCRIPT" --json "$@" >"$R/json" 2>"$R/out"
	rv=$?
	[ "$rv" = "$want" ] || fail "kcsmux-cutover --json $* exited $rv, expected $want: $(cat "$R/out")"
	JR=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit"] == int(sys.argv[2]) and d["command"] == sys.argv[3]
print(d["result"], d.get("state", "-"))' "$R/json" "$want" "$1") ||
		fail "kcsmux-cutover --json $*: not the JSON result: $(cat "$R/json")"
}
stockmods() { printf 'ipmi_msghandler 1 2 - Live\nipmi_si 1 1 - Live\nipmi_devintf 1 0 - Live\n' >"$R/proc/modules"; }
conf() { mkdir -p "$R/etc/kcsmux" && printf '[global]\nbackend = %s\nmetrics_textfile = /var/lib/prom/kcsmux.prom\n' "$1" >"$R/etc/kcsmux/kcsmux.conf"; }
mkdir -p "$R/var/lib/prom"
conf kcsraw
touch "$LOG.track"
stockmods
: >"$LOG.journal"
run 0 status
has "$R/out" "rolled-back: ipmi_si serves /dev/ipmi0"
runj 0 status
[ "$JR" = "rolled-back rolled-back" ] || fail "status --json: $JR"
runj 2 apply --bogus
runj 0 apply
[ "$JR" = "cut-over -" ] || fail "apply --json: $JR"
grep -q '"report": "'"$REP"'/runs/' "$R/json" || fail "apply --json names no report: $(cat "$R/json")"
grep -q "user.notice ipmi_si blacklisted and kcsraw loaded at boot" "$LOG.journal" ||
	fail "the swap is not in the journal: $(cat "$LOG.journal")"
grep -q "user.notice verified: 2 answers" "$LOG.journal" || fail "the verification is not in the journal"
run 0 status
has "$R/out" "cut-over: kcsraw unknown serves kcsmuxd"
# a second apply on the host cut over: success, nothing run
run 0 apply
has "$R/out" "already cut over"
grep -q "modprobe\|enable\|doctor" "$LOG" && fail "a second apply changed something: $(cat "$LOG")"
runj 0 apply
[ "$JR" = "unchanged -" ] || fail "second apply --json: $JR"
# every run kept its report; KEEP prunes the oldest
n=$(find "$REP/runs" -name baseline.txt | wc -l)
[ "$n" -ge 8 ] || fail "only $n runs kept their baseline"
KCSMUX_CUTOVER_KEEP=3 run 0 rollback
[ "$(ls "$REP/runs" | wc -l)" = 3 ] || fail "KEEP=3 kept $(ls "$REP/runs" | wc -l) runs"
[ "$(readlink "$REP/last")" = "runs/$(ls "$REP/runs" | sort | tail -n 1)" ] || fail "last is not the newest run"
grep -q "rollback rolled-back 0" "$REP/last/result" || fail "the rollback's result: $(cat "$REP/last/result")"
run 0 rollback
has "$R/out" "not cut over"
has "$R/out" "nothing to roll back"

# kcsmuxd failed for good (OnFailure=): the fallback, /etc untouched
run 0 apply --no-verify
rm -f "$LOG.active" "$R/dev/ipmi0"
mkdir -p "$R/dev/ipmi" "$R/dev/ipmidev"
ln -s ipmi2 "$R/dev/ipmi0"
ln -s ../ipmi2 "$R/dev/ipmi/0"
ln -s ../ipmi2 "$R/dev/ipmidev/0"
echo "ipmi_watchdog 1 0 - Live" >>"$R/proc/modules"
: >"$LOG.journal"
# OnFailure= between automatic restarts (systemd 254+): no fallback
echo activating >"$LOG.state"
KCSMUX_CUTOVER_WAIT_FAILED=1 run 0 fallback --if-failed
has "$R/out" "kcsmuxd is active or restarting: no fallback"
grep -q "modprobe" "$LOG" && fail "a fallback between restarts: $(cat "$LOG")"
echo failed >"$LOG.state"
run 0 fallback --if-failed --reason "kcsmuxd hit its start limit"
rm "$LOG.state"
grep -q "systemctl stop" "$LOG" && fail "the fallback stopped a failed kcsmuxd: $(cat "$LOG")"
has "$LOG" "modprobe -r ipmi_watchdog"
has "$LOG" "modprobe -r kcsraw"
has "$LOG" "modprobe ipmi_si"
has "$LOG" "modprobe --ignore-install ipmi_devintf"
has "$R/out" "ipmi_watchdog loaded again, on ipmi_si"
grep -q "disable" "$LOG" && fail "the fallback disabled kcsmuxd: $(cat "$LOG")"
linked modprobe.d/kcsraw.conf modprobe.conf || fail "the fallback removed the blacklist link"
linked modules-load.d/kcsraw.conf modules-load.conf || fail "the fallback removed the modules-load link"
[ -L "$R/dev/ipmi/0" ] || [ -L "$R/dev/ipmidev/0" ] && fail "the fallback left kcsmuxd's links"
[ -e "$R/dev/ipmi0" ] && [ ! -L "$R/dev/ipmi0" ] || fail "no stock /dev/ipmi0 after the fallback"
grep -q '^kcsmux_fallback{reason="kcsmuxd"} 1$' "$R/var/lib/prom/kcsmux_fallback.prom" ||
	fail "no fallback metric: $(cat "$R/var/lib/prom/kcsmux_fallback.prom" 2>&1)"
grep -q "user.warning falling back to the stock ipmi_si until the next boot: kcsmuxd hit its start limit" "$LOG.journal" ||
	fail "the fallback is no warning in the journal: $(cat "$LOG.journal")"
run 3 status
has "$R/out" "fallback: ipmi_si serves /dev/ipmi0 until the next boot that loads kcsraw: kcsmuxd hit its start limit"
KCSMUX_FALLBACK_DIR=$R/run/kcsmux-fallback "$CTL" -s "$R/none.sock" status >"$R/out" 2>&1
rv=$?
[ $rv = 3 ] || fail "kcsmuxctl status without a daemon exited $rv"
has "$R/out" "fallback: the stock ipmi_si serves /dev/ipmi0 until the next boot that loads kcsraw: kcsmuxd hit its start limit"
runj 3 status
[ "$JR" = "fallback fallback" ] || fail "status --json in the fallback: $JR"
# ... a second one (OnFailure= again): nothing to do, ipmi_si serves
run 0 fallback
grep -q "modprobe" "$LOG" && fail "a second fallback reloaded modules: $(cat "$LOG")"
# ... a rollback during the fallback ends it: the metric back to 0 (the
# shipped alert stops), no mark left; the links made again for the boots
run 0 rollback
grep -q '^kcsmux_fallback{reason="none"} 0$' "$R/var/lib/prom/kcsmux_fallback.prom" ||
	fail "the rollback left the fallback metric: $(cat "$R/var/lib/prom/kcsmux_fallback.prom")"
[ -e "$R/run/kcsmux-fallback" ] && fail "the rollback left the fallback's mark"
runj 0 status
[ "$JR" = "rolled-back rolled-back" ] || fail "status --json after the fallback's rollback: $JR"
ln -s /usr/share/kcsraw-dkms/cutover/modprobe.conf "$R/etc/modprobe.d/kcsraw.conf"
ln -s /usr/share/kcsraw-dkms/cutover/modules-load.conf "$R/etc/modules-load.d/kcsraw.conf"

# the next boot: kcsraw does not load (no module for the kernel)
printf 'ipmi_msghandler 1 2 - Live\n' >"$R/proc/modules"
rm -rf "$R/run/kcsmux-fallback" "$R/dev/ipmi0"
touch "$LOG.kcsraw-fails"
run 3 load
has "$R/out" "warning: kcsraw did not load at boot: no kcsraw module for kernel"
has "$LOG" "modprobe ipmi_si"
grep -q '^kcsmux_fallback{reason="kcsraw"} 1$' "$R/var/lib/prom/kcsmux_fallback.prom" || fail "no kcsraw fallback metric"
run 3 status
has "$R/out" "fallback: ipmi_si serves /dev/ipmi0 until the next boot that loads kcsraw: kcsraw did not load: no kcsraw module"
# ... an apply once kcsraw loads again ends the fallback too: metric 0
rm -f "$LOG.kcsraw-fails"
run 0 apply --no-verify
grep -q '^kcsmux_fallback{reason="none"} 0$' "$R/var/lib/prom/kcsmux_fallback.prom" ||
	fail "the apply left the fallback metric: $(cat "$R/var/lib/prom/kcsmux_fallback.prom")"
[ -e "$R/run/kcsmux-fallback" ] && fail "the apply left the fallback's mark"
# ... the boot after: kcsraw loads, the metric says 0
printf 'ipmi_msghandler 1 2 - Live\n' >"$R/proc/modules"
rm -rf "$R/run/kcsmux-fallback" "$LOG.kcsraw-fails"
run 0 load
grep -q "ipmi_si" "$LOG" && fail "load loaded ipmi_si though kcsraw loaded: $(cat "$LOG")"
grep -q '^kcsmux_fallback{reason="none"} 0$' "$R/var/lib/prom/kcsmux_fallback.prom" || fail "the metric did not return to 0"
# ... a host not cut over: a kcsraw that does not load is no fallback
rm -f "$R/etc/modprobe.d/kcsraw.conf" "$R/etc/modules-load.d/kcsraw.conf"
stockmods
touch "$LOG.kcsraw-fails"
run 0 load
grep -q "ipmi_si" "$LOG" && fail "load fell back on a host not cut over: $(cat "$LOG")"
rm -f "$LOG.kcsraw-fails"

# backend = ipmidev: nothing to cut over; rollback leaves kcsmuxd enabled
conf ipmidev
touch "$LOG.active"
run 0 status
has "$R/out" "ipmidev: kcsmuxd serves on the stock device"
run 1 apply
has "$R/out" "backend = ipmidev"
ln -s /usr/share/kcsraw-dkms/cutover/modprobe.conf "$R/etc/modprobe.d/kcsraw.conf"
echo "kcsraw 1 1 - Live" >>"$R/proc/modules"
run 0 rollback
grep -q "disable" "$LOG" && fail "rollback disabled kcsmuxd on backend = ipmidev: $(cat "$LOG")"
has "$LOG" "systemctl try-restart kcsmuxd"
has "$LOG" "modprobe -r kcsraw"
conf kcsraw
rm -f "$LOG.active"

# the replay through a node that may not touch the watchdog (readonly,
# monitoring): reads only, Get Watchdog Timer not compared, no pet
stockmods
touch "$LOG.readonly" "$LOG.wdt-running"
run 0 apply
has "$R/out" "Get Watchdog Timer not compared"
has "$R/out" "no node allows Reset Watchdog Timer (06:22)"
has "$R/out" "verified: 2 answers through /dev/ipmi1"
grep -q "ipmi1 --pet" "$LOG" && fail "petted through a node that refuses it"
rm -f "$LOG.readonly" "$LOG.wdt-running"
run 0 rollback
# a slower median alone: reported, kept; a gross one rolls back
touch "$LOG.timing"
runj 0 apply
[ "$JR" = "cut-over-timing -" ] || fail "a timing difference: $JR"
has "$R/out" "slower answers through /dev/ipmi1 than the baseline's, not gross"
grep -q "disable" "$LOG" && fail "a timing difference rolled back"
run 0 rollback
rm "$LOG.timing"
touch "$LOG.gross"
run 3 apply
has "$R/out" "differs   get_device_id  timing   p50 2000000 us"
has "$R/out" "rolled back: ipmi_si serves"
rm "$LOG.gross"
# a modprobe -r of the stock stack that fails part way: what it unloaded
# is loaded again, blacklist gone, exit 1; a module that will not come
# back is named; ipmi_si that will not: exit 4
echo "ipmi_watchdog 1 0 - Live" >>"$R/proc/modules"
touch "$LOG.rm-partial"
run 1 apply
has "$LOG" "modprobe -r ipmi_watchdog ipmi_devintf ipmi_si"
has "$R/out" "loaded again what it had unloaded: ipmi_devintf ipmi_watchdog"
has "$R/out" "every module loaded as before: nothing changed"
for m in ipmi_si ipmi_devintf ipmi_watchdog; do
	grep -q "^$m " "$R/proc/modules" || fail "$m not loaded again after a partial unload: $(cat "$R/proc/modules")"
done
[ ! -e "$R/etc/modprobe.d/kcsraw.conf" ] || fail "a failed unload kept the blacklist"
touch "$LOG.no-ipmi_watchdog"
run 1 apply
has "$R/out" "but ipmi_watchdog would not load again"
grep -q "^ipmi_devintf " "$R/proc/modules" || fail "ipmi_devintf not loaded again"
rm "$LOG.no-ipmi_watchdog" "$LOG.rm-partial"
sed -i '/ipmi_watchdog/d' "$R/proc/modules"
rm "$LOG.track"
stockmods

rm -r "$R/usr/share/kcsraw-dkms"
run 1 check
has "$R/out" "kcsraw-dkms is not installed"
run 2 bogus

[ "$fails" = 0 ] && echo "cutover: all passed"
[ "$fails" = 0 ]
