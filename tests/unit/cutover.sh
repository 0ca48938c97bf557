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
#   cutover.sh SCRIPT
set -u
SCRIPT=$1
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
[ "$*" = kcsraw ] && [ -e "$LOG.kcsraw-fails" ] && exit 1
case "$*" in
"-r "*ipmi_si*) [ -s "$LOG.nobmc" ] && rm -f "$KCSMUX_CUTOVER_ROOT/dev/ipmi0" ;;
esac
if [ "$*" = ipmi_si ] && [ -s "$LOG.nobmc" ]; then
	n=$(cat "$LOG.nobmc")
	[ "$n" = never ] && exit 1
	echo $((n - 1)) >"$LOG.nobmc"
	[ "$n" -gt 0 ] && exit 1
	touch "$KCSMUX_CUTOVER_ROOT/dev/ipmi0"
fi
exit 0
S
cat >"$R/bin/systemctl" <<'S'
#!/bin/sh
echo "systemctl $*" >>"$LOG"
[ "$*" = "enable --now kcsmuxd" ] && [ -e "$LOG.start-fails" ] && exit 1
[ "$*" = "enable --now kcsmuxd" ] && [ -e "$LOG.start-hangs" ] && sleep 5
[ "$*" = "show -p StatusText --value kcsmuxd" ] && [ ! -e "$LOG.no-status" ] &&
	echo "waiting for the BMC to answer"
exit 0
S
# kcsmuxctl: a baseline with the watchdog running or stopped, one node,
# every request allowed, a comparison that matches or differs when told
cat >"$R/bin/kcsmuxctl" <<'S'
#!/bin/sh
echo "kcsmuxctl $*" >>"$LOG"
case "$*" in
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
chmod +x "$R/bin/modprobe" "$R/bin/systemctl" "$R/bin/kcsmuxctl"
touch "$R/dev/ipmi1"
export KCSMUX_CUTOVER_ROOT="$R" MODPROBE="$R/bin/modprobe" \
	SYSTEMCTL="$R/bin/systemctl" KCSMUXCTL="$R/bin/kcsmuxctl" LOG="$R/log"

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
[ ! -s "$LOG" ] || fail "a refused apply ran: $(cat "$LOG")"
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
has "$R/out" "ipmi_watchdog is loaded, its device not open"
has "$R/out" "no process has an IPMI device open"
rm -r "$R/proc/77"
run 0 check --bmc
has "$LOG" "kcsmuxctl doctor -d /dev/ipmi0"

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
has "$LOG" "kcsmuxctl doctor -d /dev/ipmi0 --baseline $R/var/lib/kcsmux/cutover/baseline.txt"
has "$LOG" "kcsmuxctl check ipmi1 0xa 0x23"
has "$LOG" "kcsmuxctl doctor -d /dev/ipmi1 --compare $R/var/lib/kcsmux/cutover/baseline.txt"
has "$R/out" "BMC watchdog: stopped"
has "$R/out" "verified: 2 answers through /dev/ipmi1 match the baseline"
grep -q -- "--pet" "$LOG" && fail "a stopped watchdog was petted: $(cat "$LOG")"
head -n 3 "$LOG" | grep -q "baseline" || fail "the baseline was not first: $(cat "$LOG")"
sed -i '/ipmi_watchdog\|ipmi_ssif/d' "$R/proc/modules"

# a comparison that differs: pet through the node, roll back, pet
# through the stock device, keep the report, exit 1
touch "$LOG.differs" "$LOG.wdt-running"
printf 'ipmi_devintf 1 0 - Live\nipmi_si 1 1 - Live\n' >>"$R/proc/modules"
run 1 apply
has "$R/out" "BMC watchdog: running"
has "$R/out" "differs   devid"
has "$R/out" "verification failed: the BMC's answers through /dev/ipmi1 differ"
has "$R/out" "rolled back: ipmi_si serves the interface"
has "$R/out" "the report stays in $R/var/lib/kcsmux/cutover"
[ -s "$R/var/lib/kcsmux/cutover/replay.txt" ] || fail "no replay report kept"
[ ! -e "$R/etc/modprobe.d/kcsraw.conf" ] || fail "a failed verification kept the blacklist"
grep -n "pet\|enable\|modprobe ipmi_si\|disable" "$LOG" | tr '\n' ' ' >"$R/order"
grep -q "ipmi0 --pet.*enable --now.*ipmi1 --pet.*disable --now.*modprobe ipmi_si.*ipmi0 --pet" "$R/order" ||
	fail "not petted before, across and after: $(cat "$R/order")"
rm "$LOG.differs"
# kcsmuxd does not start: rolled back by itself
touch "$LOG.start-fails"
run 1 apply
has "$R/out" "verification failed: kcsmuxd did not start"
has "$R/out" "rolled back"
has "$LOG" "modprobe ipmi_si"
rm "$LOG.start-fails" "$LOG.wdt-running"
# the BMC silent from the swap on: kcsmuxd waits for it past START_WAIT,
# apply rolls back; ipmi_si fails its load twice, then finds the BMC
touch "$LOG.start-hangs"
echo 2 >"$LOG.nobmc"
KCSMUX_CUTOVER_START_WAIT=1 KCSMUX_CUTOVER_PROBE_WAIT=1 run 1 apply
has "$R/out" "verification failed: kcsmuxd not ready within 1 s (waiting for the BMC to answer)"
has "$R/out" "no BMC answers ipmi_si yet: loading it again"
has "$R/out" "rolled back: ipmi_si serves the interface"
[ "$(grep -c "^modprobe ipmi_si$" "$LOG")" = 3 ] || fail "ipmi_si not loaded 3 times: $(cat "$LOG")"
[ -e "$R/dev/ipmi0" ] || fail "no /dev/ipmi0 after the BMC came back"
# ... and a BMC that never comes back: said, exit 1
echo never >"$LOG.nobmc"
KCSMUX_CUTOVER_START_WAIT=1 KCSMUX_CUTOVER_PROBE_WAIT=1 KCSMUX_CUTOVER_BMC_WAIT=2 run 1 apply
has "$R/out" "rolled back, but ipmi_si found no BMC within 2 s"
# ... kcsmuxd too slow to have said why: kcsraw's sysfs says the BMC is silent
touch "$LOG.no-status" "$R/dev/ipmi0"
echo 2 >"$LOG.nobmc"
mkdir -p "$R/sys/class/misc/kcsraw0"
echo "waiting 3 probes" >"$R/sys/class/misc/kcsraw0/bmc"
KCSMUX_CUTOVER_START_WAIT=1 KCSMUX_CUTOVER_PROBE_WAIT=1 run 1 apply
has "$R/out" "verification failed: kcsmuxd not ready within 1 s (waiting for the BMC to answer)"
echo "up" >"$R/sys/class/misc/kcsraw0/bmc"
echo 2 >"$LOG.nobmc"
KCSMUX_CUTOVER_START_WAIT=1 KCSMUX_CUTOVER_PROBE_WAIT=1 run 1 apply
has "$R/out" "verification failed: kcsmuxd not ready within 1 s (kcsmuxd has not said why)"
rm -r "$R/sys/class/misc" "$LOG.no-status"
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
has "$LOG" "modprobe ipmi_devintf"

touch "$LOG.kcsraw-fails"
run 1 apply
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

rm -r "$R/usr/share/kcsraw-dkms"
run 1 check
has "$R/out" "kcsraw-dkms is not installed"
run 2 bogus

[ "$fails" = 0 ] && echo "cutover: all passed"
[ "$fails" = 0 ]
