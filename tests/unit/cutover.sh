#!/bin/sh
# kcsmux-cutover (fused/dist) in a fake root with recording modprobe and
# systemctl: the pre-flight finds open devices, an armed-watchdog risk and
# a missing kcsraw-dkms; apply makes the boot-time links, unloads the
# stock stack and enables kcsmuxd; a failed kcsraw load rolls back; rollback
# undoes it all without purging anything.
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
# the stubs log their arguments; modprobe kcsraw fails when told
cat >"$R/bin/modprobe" <<'S'
#!/bin/sh
echo "modprobe $*" >>"$LOG"
[ "$*" = kcsraw ] && [ -e "$LOG.kcsraw-fails" ] && exit 1
exit 0
S
printf '#!/bin/sh\necho "systemctl $*" >>"$LOG"\n' >"$R/bin/systemctl"
chmod +x "$R/bin/modprobe" "$R/bin/systemctl"
export KCSMUX_CUTOVER_ROOT="$R" MODPROBE="$R/bin/modprobe" \
	SYSTEMCTL="$R/bin/systemctl" LOG="$R/log"

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
run 0 check
has "$R/out" "ipmi_watchdog is loaded, its device not open"
has "$R/out" "no process has an IPMI device open"

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
sed -i '/ipmi_watchdog\|ipmi_ssif/d' "$R/proc/modules"

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

rm -r "$R/usr/share/kcsraw-dkms"
run 1 check
has "$R/out" "kcsraw-dkms is not installed"
run 2 bogus

[ "$fails" = 0 ] && echo "cutover: all passed"
[ "$fails" = 0 ]
