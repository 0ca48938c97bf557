#!/bin/sh
# vm.pkg-admin (run.sh --systemd): what an admin does on a fresh Debian 12
# (vm.pkg-admin@trixie: 13, its packages and its own 6.12 kernel)
# with systemd, step by step, with the two packages CPack builds:
#   boot 1: apt install both .debs -> DKMS builds kcsraw for the running
#     kernel, and nothing blacklists ipmi_si yet -> doctor and the
#     verified cutover's rollbacks (cutover-scenarios.sh, sourced)
#     -> kcsmux-cutover check,
#     apply on the shipped configuration: ipmi_si out, kcsraw in,
#     ipmi_watchdog loaded again on it, enable --now kcsmuxd reaches READY
#     -> no side door: no stock device on kcsraw's interface, root's
#     ipmitool without -d, FreeIPMI's ipmi-sensors without a driver and
#     ipmiutil land on the interface-0 node (counted; root's write goes
#     through, admin_users = root, nobody's gets cc 0xd4, as kcsmuxctl
#     check -c -u says) -> an event reaches two nodes' subscribers
#     (kcsraw's relay) -> ipmi_watchdog arms, pets and stops the BMC's watchdog ->
#     ipmi_devintf loaded anyway: kcsmux-cutover check and kcsmuxctl status
#     name its node -> the admin's configuration, restart: nodes have the
#     configured owner/group/mode (udev included) -> ipmitool
#     as a member of the node's group -> kcsmuxctl status (text, JSON),
#     list -j, show -j, exit status 3 without a daemon -> kcsmuxd -n and
#     -n --live on the live host -> the shipped Prometheus rules' series in
#     the textfile -> reload with a broken file fails and the old config
#     serves, reload --dry-run says what a good one changes, and it applies
#     -> journald priorities -> restarts under open files -> stop ->
#     kcsraw.ko moved away (fallback-scenarios.sh) -> reboot
#     (after the ipmi_watchdog check: the upgrade N -> N+1 of both
#     packages, upgrade-scenarios.sh)
#   boot 2: no loadable kcsraw: the fallback at boot -> module back, reboot
#   boot 3: the service came up by itself (the cutover's modules-load.d
#     and blacklist, WantedBy), kcsraw N+1, the fallback over -> kcsmuxd's
#     restarts hit the start limit: the fallback to ipmi_si ->
#     kcsmux-cutover rollback from the fallback: ipmi_si serves /dev/ipmi0,
#     the fallback metric 0, no package purged -> apt purge: nothing left.
# Debian's /bin/sh (dash) under systemd, not the busybox rig.
. /guest/lib.sh

STATE=/var/lib/kcsmux-test
mkdir -p $STATE
phase=$(cat $STATE/phase 2>/dev/null || echo 1)
t0=$(date +%s)
step() { echo "== [$(($(date +%s) - t0)) s] $*"; }

# wait_for SECONDS CMD...: until CMD succeeds
wait_for() {
	_n=$(($1 * 10))
	shift
	while [ $_n -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	return 1
}

# node_is DEV OWNER GROUP MODE
node_is() {
	[ -c "$1" ] && [ "$(stat -c '%U %G %a' "$1")" = "$2 $3 $4" ]
}

# as USER CMD...: run CMD as USER with USER's groups (initgroups)
as() {
	_u=$1
	shift
	runuser -u "$_u" -- "$@"
}

ipmi_mc_info() {
	as "$1" ipmitool -d "$2" mc info >/tmp/mcinfo.$1.$2 2>&1 &&
		grep -q '^Device ID' /tmp/mcinfo.$1.$2
}

write_conf() {
	cat >/etc/kcsmux/kcsmux.conf <<EOF
# vm.pkg-admin: the admin's edit of the conffile
[global]
backend = kcsraw
user = kcsmux
; node_exporter's usual directory, made writable for the unit by a drop-in,
; but root's: written at start (as root), then every 10 s as user kcsmux,
; which fails, and each failure is logged as a warning (docs/metrics.md)
metrics_textfile = /var/lib/prometheus/node-exporter/kcsmux.prom

[node ipmi1]
policy = interactive
group = ipmiusers
mode = 0660

[node ipmi2]
policy = $1
owner = kcsmux
group = ipmimon
mode = 0660
access = sensors
; sensors may not read the SEL: no events reach it unless said
events = yes
; as the shipped configuration: tools that only know interface 0 (root's
; ipmitool without -d) find this node through /dev/ipmi/0
interface = 0
EOF
}

# node_requests NODE: the node's request count (kcsmuxctl show -j)
node_requests() {
	kcsmuxctl show -j "$1" | grep -o '"requests": [0-9]*' | head -n 1 |
		grep -o '[0-9]*$'
}

phase1() {
	step "boot 1: $(uname -r), systemd $(systemctl is-system-running)"
	check "no kcsmux package yet" sh -c '! dpkg -s kcsmux >/dev/null 2>&1'
	cp /guest/debs/*.deb /tmp/
	lsmod | grep -q '^ipmi_si ' && echo "ipmi_si was loaded at boot (ACPI/SMBIOS)"

	step "apt install ./kcsmux_*.deb ./kcsraw-dkms_*.deb"
	if run_to /tmp/apt.log env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		/tmp/kcsmux_*.deb /tmp/kcsraw-dkms_*.deb; then
		pass "apt installs both packages (every Depends satisfied)"
	else
		fail "apt install"
		sed 's/^/    | /' /tmp/apt.log | tail -n 40
		return 1
	fi
	step "installed"
	# where the install's time went (DKMS under TCG): the rest of apt's
	# output; dkms prints a dot every 3 s of the build and of depmod
	tail -n 12 /tmp/apt.log | sed 's/^/    | /'
	check "the kcsmux user exists (sysusers.d)" id kcsmux
	check "the example config is the conffile /etc/kcsmux/kcsmux.conf" \
		sh -c 'dpkg-query -W -f="\${Conffiles}\n" kcsmux | grep -q " /etc/kcsmux/kcsmux.conf "'
	check "kcsmuxd -n accepts the shipped config" kcsmuxd -n
	run_to /tmp/dkms.log dkms status kcsraw
	# the release as a regular expression: Debian 13's has a '+'
	kre=$(echo "$KVER" | sed 's/[.+]/\\&/g')
	expect "DKMS built and installed kcsraw for the running kernel" \
		"^kcsraw/[0-9.]+, $kre, x86_64: installed" /tmp/dkms.log
	check "kcsraw.ko is in the running kernel's module tree" \
		sh -c "modinfo -k $KVER -n kcsraw | grep -q '/updates/dkms/kcsraw.ko'"
	check "no ipmi_si blacklist before the cutover (a reboot keeps ipmi_si)" \
		sh -c '! modprobe -c | grep -qx "blacklist ipmi_si"'
	check "kcsraw is not loaded at boot before the cutover" \
		sh -c '[ ! -e /etc/modules-load.d/kcsraw.conf ] && [ ! -e /lib/modules-load.d/kcsraw.conf ]'
	check "kcsmuxd.service is known to systemd and not enabled yet" \
		sh -c '[ "$(systemctl is-enabled kcsmuxd)" = disabled ]'
	check "the Prometheus rules and Grafana dashboard are installed" \
		test -s /usr/share/kcsmux/prometheus/kcsmux.rules.yml -a -s /usr/share/kcsmux/grafana/kcsmux.json
	# (the guest image excludes /usr/share/doc, as minimal images do:
	# the package must carry it)
	check "the package carries the admin guide" \
		sh -c 'dpkg-deb -c /tmp/kcsmux_*.deb | grep -q "/usr/share/doc/kcsmux/admin.md$"'

	groupadd -f ipmiusers
	groupadd -f ipmimon
	id alice >/dev/null 2>&1 || useradd -M -G ipmiusers alice
	id carol >/dev/null 2>&1 || useradd -M -G ipmimon carol
	id bob >/dev/null 2>&1 || useradd -M bob
	# doctor and the verified cutover's rollbacks first, on the stock
	# stack; they end on it
	. /guest/cutover-scenarios.sh
	cutover_scenarios

	# a kernel user of the stock interface, its device not open: the
	# cutover loads it again on kcsraw
	check "modprobe ipmi_watchdog (on ipmi_si, before the cutover)" \
		modprobe ipmi_watchdog
	check "ipmiutil's watchdog service is masked in this image" \
		sh -c '[ "$(systemctl is-enabled ipmiutil_wdt 2>/dev/null)" = masked ]'

	# The cutover as the README says, on the shipped configuration (the
	# conffile untouched): the pre-flight, then ipmi_si out (it bound at
	# boot: its users acpi_ipmi, ipmi_watchdog and ipmi_devintf go with
	# it), kcsraw in, the blacklist and modules-load.d links, enable --now
	# kcsmuxd.
	step "kcsmux-cutover check"
	kcsmux-cutover check >/tmp/preflight.txt 2>&1
	echo "    check exited $?"
	sed 's/^/    | /' /tmp/preflight.txt
	expect "the pre-flight lists the loaded IPMI modules" '^kcsmux-cutover: IPMI modules loaded:' /tmp/preflight.txt
	step "kcsmux-cutover apply"
	if kcsmux-cutover apply >/tmp/cutover.txt 2>&1; then
		pass "kcsmux-cutover apply succeeds (Type=notify: READY reached)"
	else
		fail "kcsmux-cutover apply"
		systemctl status --no-pager kcsmuxd | sed 's/^/    | /'
		journalctl -u kcsmuxd --no-pager | tail -n 20 | sed 's/^/    | /'
	fi
	sed 's/^/    | /' /tmp/cutover.txt
	expect "apply verified the swap: the baseline's answers match through a node" \
		'^kcsmux-cutover: verified: [1-9][0-9]* answers through /dev/ipmi[0-9]* match the baseline' /tmp/cutover.txt
	expect "ipmi_watchdog is loaded again, on kcsraw" \
		'ipmi_watchdog loaded again, on kcsraw' /tmp/cutover.txt
	check "ipmi_si is gone" sh -c '! test -d /sys/module/ipmi_si'
	check "the ipmi_si blacklist is in force now" \
		sh -c 'modprobe -c | grep -qx "blacklist ipmi_si"'
	check "kcsraw is loaded" test -d /sys/module/kcsraw
	check "cuse is loaded" test -d /sys/module/cuse
	check "/dev/kcsraw0 is root's only (udev rule)" node_is /dev/kcsraw0 root root 600
	check "kcsmuxd is enabled" sh -c '[ "$(systemctl is-enabled kcsmuxd)" = enabled ]'
	check "kcsmuxd is active" sh -c '[ "$(systemctl is-active kcsmuxd)" = active ]'
	run_to /tmp/status0.txt systemctl show -p StatusText kcsmuxd
	expect "its READY status names the shipped nodes" \
		'^StatusText=[0-9]+ nodes on /dev/kcsraw0' /tmp/status0.txt
	check "the daemon dropped root (user = kcsmux)" \
		sh -c '[ "$(ps -o user= -p "$(systemctl show -p MainPID --value kcsmuxd)")" = kcsmux ]'
	journalctl -u kcsmuxd --no-pager -o cat >/tmp/j-start.txt
	expect "kcsmuxd takes events and bridged answers from kcsraw's relay" \
		'bridging and events through the relay on /dev/kcsraw0' /tmp/j-start.txt

	# No side door: the package loads no ipmi_devintf (kcsmuxd takes the
	# asynchronous traffic from kcsraw's relay), so root's tools that
	# find the interface by themselves land on the interface-0 node,
	# counted there and held to its rules.
	step "root's tools without a device: the interface-0 node (ipmi2)"
	# (ipmi_msghandler's softdep would load it with kcsraw: the
	# cutover's modprobe.d file turns that into /bin/true)
	check "ipmi_devintf is not loaded" sh -c '! test -d /sys/module/ipmi_devintf'
	check "no stock device on kcsraw's interface (sysfs)" sh -c '
		for c in /sys/class/ipmi/ipmi*; do
			[ -e "$c" ] || continue
			case "$(readlink "$c/device")" in */kcsraw.*) exit 1 ;; esac
		done'
	check "/dev/ipmi0 is node ipmi2 (a link: no stock device there)" \
		sh -c '[ "$(readlink /dev/ipmi0)" = ipmi2 ]'
	check "/dev/ipmi/0 is node ipmi2" \
		sh -c '[ "$(readlink /dev/ipmi/0)" = ../ipmi2 ]'
	check "/dev/ipmidev/0 is node ipmi2" \
		sh -c '[ "$(readlink /dev/ipmidev/0)" = ../ipmi2 ]'
	r0=$(node_requests ipmi2)
	run_to /tmp/mc0.txt ipmitool mc info
	r1=$(node_requests ipmi2)
	expect "ipmitool mc info (no -d) as root answers" '^Device ID' /tmp/mc0.txt
	check "... and is counted on ipmi2 (requests $r0 -> $r1)" \
		test "${r1:-0}" -gt "${r0:-0}"
	# admin_users = root: root's write gets through to the BMC (its own
	# answer, whatever it is), a user in the node's group gets the
	# monitoring rules' cc 0xd4, as kcsmuxctl check says from the file
	run_to /tmp/id0.txt ipmitool chassis identify 0
	check "root's write on ipmi2 (chassis identify 0) is not refused" \
		sh -c '! grep -q "Insufficient privilege" /tmp/id0.txt'
	run_to /tmp/id1.txt ipmitool raw 0x00 0x04 0x00
	check "... nor as raw (no rsp=0xd4)" sh -c '! grep -q "rsp=0xd4" /tmp/id1.txt'
	asnobody="setpriv --reuid=65534 --regid=65534 --groups=0"
	run_to /tmp/id2.txt $asnobody ipmitool chassis identify 0
	expect "the same write as nobody in ipmi2's group: cc 0xd4" \
		'Insufficient privilege level' /tmp/id2.txt
	run_to /tmp/id3.txt $asnobody ipmitool raw 0x00 0x04 0x00
	expect "... the same as raw: rsp=0xd4" 'rsp=0xd4' /tmp/id3.txt
	run_to /tmp/id4.txt $asnobody ipmitool mc info
	expect "... while nobody's reads answer" '^Device ID' /tmp/id4.txt
	check "kcsmuxctl check -c says root may (exit 0)" \
		kcsmuxctl check -c /etc/kcsmux/kcsmux.conf -u root ipmi2 0 4
	run_to /tmp/id5.txt kcsmuxctl check -c /etc/kcsmux/kcsmux.conf \
		-u nobody -g 0 ipmi2 0 4
	check "... and nobody may not (exit 4: $_rc)" test "$_rc" = 4
	rm -rf /root/.freeipmi
	r0=$(node_requests ipmi2)
	run_to /tmp/fi.txt timeout 120 ipmi-sensors
	echo "rc=$?" >>/tmp/fi.txt
	r1=$(node_requests ipmi2)
	sed 's/^/    | /' /tmp/fi.txt | head -n 6
	expect "FreeIPMI's ipmi-sensors (no driver, no device) reads CPU Temp" \
		'CPU Temp +\| Temperature +\| 45' /tmp/fi.txt
	check "... counted on ipmi2 (requests $r0 -> $r1)" \
		test "${r1:-0}" -gt "${r0:-0}"
	# (its SDR cache is named for the host, kcsmux-guest: not the
	# packages' to purge)
	rm -rf /root/.freeipmi
	r0=$(node_requests ipmi2)
	run_to /tmp/iu.txt timeout 120 ipmiutil sensor
	echo "rc=$?" >>/tmp/iu.txt
	r1=$(node_requests ipmi2)
	grep -i 'driver\|CPU Temp\|^rc=' /tmp/iu.txt | sed 's/^/    | /' | head -n 6
	expect "ipmiutil sensor (no -F) exits 0" '^rc=0$' /tmp/iu.txt
	expect "... reads CPU Temp" 'CPU Temp' /tmp/iu.txt
	check "... counted on ipmi2 (requests $r0 -> $r1)" \
		test "${r1:-0}" -gt "${r0:-0}"

	# Events through the relay: Set Sensor Thresholds puts CPU Temp's
	# (sensor 1, reading 45) upper non-critical threshold below the
	# reading; the BMC asserts the event and raises SMS_ATN; the kernel
	# fetches it and gives it to every gets_events user, kcsraw's relay
	# among them, which kcsmuxd fans out to its nodes' subscribers.
	step "an event reaches the nodes' subscribers"
	check "subscriber on ipmi1" listen ev1 /dev/ipmi1 -e
	check "subscriber on ipmi2" listen ev2 /dev/ipmi2 -e
	run_to /tmp/thr.txt ipmitool -d 1 raw 0x04 0x26 0x01 0x08 0x00 0x00 0x00 0x28 0x00 0x00
	check "ipmi1's subscriber got it" finish ev1
	check "ipmi2's subscriber got it" finish ev2
	sed 's/^/    | /' /tmp/ev1.out
	expect "it is CPU Temp's upper non-critical event" \
		"type=event .* len=16 data=[0-9a-f]{4}02000000002000040101(01|81)572d28" \
		/tmp/ev1.out
	same_lines "ipmi2 sees the event as ipmi1" ev1 ev2 recv
	ipmitool -d 1 raw 0x04 0x26 0x01 0x08 0x00 0x00 0x00 0x55 0x00 0x00 >/dev/null 2>&1

	# ipmi_watchdog on kcsraw (reloaded by the cutover): opening
	# /dev/watchdog arms the BMC's SMS/OS timer (10 s, action reset), a
	# heartbeat a second for 15 s, past the timeout, the magic close stops
	# it. The BMC's watchdog is the delay proxy's (--watchdog: ipmi_sim's
	# ignores Reset Watchdog Timer); vm.kmod-smi-wdt-pet checks the same
	# against QEMU's BMC, vm.kmod-smi-wdt the reset.
	step "ipmi_watchdog arms and pets the BMC's watchdog, the magic close stops it"
	check "ipmi_watchdog is loaded, /dev/watchdog exists" \
		sh -c 'test -d /sys/module/ipmi_watchdog && test -c /dev/watchdog'
	run_to /tmp/wd0.txt ipmitool -d 1 mc watchdog get
	expect "before: the BMC's timer is stopped" 'Stopped' /tmp/wd0.txt
	(
		exec 3>/dev/watchdog
		i=0
		while [ $i -lt 15 ] && [ ! -e /tmp/wd.stop ]; do
			printf x >&3
			sleep 1
			i=$((i + 1))
		done
		printf V >&3
	) &
	wdpid=$!
	# ipmi_watchdog's timeout is 10 s: a reset would boot the guest again
	echo "ipmi_watchdog's petting" >/var/lib/kcsmux-test-cutover
	sync
	sleep 13
	run_to /tmp/wd1.txt ipmitool -d 1 mc watchdog get
	expect "13 s on, past its 10 s timeout: SMS/OS, running" 'Started/Running' /tmp/wd1.txt
	expect "... its use is SMS/OS" 'Timer Use: +SMS/OS' /tmp/wd1.txt
	expect "... its action: hard reset" 'Action: +Hard Reset' /tmp/wd1.txt
	touch /tmp/wd.stop
	wait $wdpid
	rm -f /tmp/wd.stop
	run_to /tmp/wd3.txt ipmitool -d 1 mc watchdog get
	expect "the magic close stopped it" 'Stopped' /tmp/wd3.txt
	rm -f /var/lib/kcsmux-test-cutover
	# the upgrade N -> N+1 with ipmi_watchdog on kcsraw; it ends with
	# ipmi_watchdog unloaded: not loaded at the reboot, systemd's shutdown
	# would arm it (RebootWatchdogSec) and nobody would pet it next boot
	. /guest/upgrade-scenarios.sh && upgrade_scenarios

	# an admin loads ipmi_devintf anyway: the pre-flight and kcsmuxctl
	# status name the stock node it makes on kcsraw's interface and
	# what that bypasses
	step "ipmi_devintf loaded anyway: named"
	check "modprobe ipmi_devintf is a no-op after the cutover" \
		sh -c 'modprobe ipmi_devintf && ! test -d /sys/module/ipmi_devintf'
	check "modprobe --ignore-install ipmi_devintf" modprobe --ignore-install ipmi_devintf
	wait_for 5 test -e /dev/ipmi0
	kcsmux-cutover check >/tmp/preflight2.txt 2>&1
	sed 's/^/    | /' /tmp/preflight2.txt
	expect "kcsmux-cutover check names the stock device on kcsraw's interface" \
		"stock device /dev/ipmi0 exists on kcsraw's interface" /tmp/preflight2.txt
	kcsmuxctl status >/tmp/st-stock.txt 2>/tmp/st-stock.err
	sed 's/^/    | /' /tmp/st-stock.err
	expect "kcsmuxctl status: a stock device row" \
		"^stock device +/dev/ipmi0 \(ipmi_devintf\) on kcsraw's interface" /tmp/st-stock.txt
	expect "... and a warning of what it bypasses" \
		"warning: /dev/ipmi0 is a stock device on kcsraw's interface.*access list, priority, rate limit, CPU budget and accounting" \
		/tmp/st-stock.err
	check "modprobe -r ipmi_devintf" modprobe -r ipmi_devintf
	kcsmuxctl status >/tmp/st-nostock.txt 2>&1
	check "without it: no stock device in the status" \
		sh -c '! grep -q "stock device" /tmp/st-nostock.txt'

	# The admin's own configuration from here on (groups, modes, a
	# metrics textfile): a restart, since the daemon runs as kcsmux and
	# a reload cannot change owners.
	step "the admin's configuration: systemctl restart kcsmuxd"
	write_conf monitor
	mkdir -p /var/lib/prometheus/node-exporter /etc/systemd/system/kcsmuxd.service.d
	printf '[Service]\nReadWritePaths=/var/lib/prometheus/node-exporter\n' \
		>/etc/systemd/system/kcsmuxd.service.d/textfile.conf
	systemctl daemon-reload
	check "systemctl restart kcsmuxd" systemctl restart kcsmuxd
	run_to /tmp/status.txt systemctl show -p StatusText -p MainPID -p NRestarts kcsmuxd
	expect "its READY status names the nodes" '^StatusText=2 nodes on /dev/kcsraw0' /tmp/status.txt
	check "/dev/ipmi1 root:ipmiusers 0660" node_is /dev/ipmi1 root ipmiusers 660
	check "/dev/ipmi2 kcsmux:ipmimon 0660" node_is /dev/ipmi2 kcsmux ipmimon 660
	udevadm trigger --action=change /dev/ipmi1 /dev/ipmi2
	udevadm settle
	check "udev keeps the daemon's owner/group/mode after a change event" \
		sh -c 'node_is() { [ "$(stat -c "%U %G %a" "$1")" = "$2 $3 $4" ]; };
		node_is /dev/ipmi1 root ipmiusers 660 && node_is /dev/ipmi2 kcsmux ipmimon 660'
	run_to /tmp/udev.txt udevadm info /dev/ipmi1
	expect "udev tags the node for systemd (60-kcsmux.rules)" 'TAGS=.*:systemd:' /tmp/udev.txt
	check "the daemon dropped root (user = kcsmux)" \
		sh -c '[ "$(ps -o user= -p "$(systemctl show -p MainPID --value kcsmuxd)")" = kcsmux ]'

	step "ipmitool as users"
	check "alice (ipmiusers) runs ipmitool -d 1 mc info" ipmi_mc_info alice 1
	sed 's/^/    /' /tmp/mcinfo.alice.1 | head -n 4
	if runuser -u carol -- ipmitool -d 2 sdr list >/tmp/sdr.txt 2>&1 && [ -s /tmp/sdr.txt ]; then
		pass "carol (ipmimon) reads sensors on ipmi2"
	else
		fail "carol (ipmimon) reads sensors on ipmi2"
		sed 's/^/    | /' /tmp/sdr.txt | head -n 10
	fi
	check "bob (no group) cannot open /dev/ipmi1" sh -c '! runuser -u bob -- ipmitool -d 1 mc info >/dev/null 2>&1'

	step "kcsmuxctl status, JSON views, exit status"
	run_to /tmp/st.txt kcsmuxctl status
	sed 's/^/    | /' /tmp/st.txt
	expect "status: the configuration file" '^configuration +/etc/kcsmux/kcsmux.conf$' /tmp/st.txt
	expect "status: the BMC answers" '^BMC +answering$' /tmp/st.txt
	expect "status: backend and device" '^device +/dev/kcsraw0$' /tmp/st.txt
	expect "status: running as kcsmux" '^running as +kcsmux$' /tmp/st.txt
	run_to /tmp/stj.txt kcsmuxctl status -j
	expect "status -j: numbers as numbers" '"uptime_s": [0-9]+' /tmp/stj.txt
	run_to /tmp/lj.txt kcsmuxctl list -j
	expect "list -j: JSON nodes" '"name": "ipmi2"' /tmp/lj.txt
	run_to /tmp/sj.txt kcsmuxctl show -j ipmi1
	expect "show -j: the node's counters as numbers" '"requests": [1-9]' /tmp/sj.txt
	kcsmuxctl -s /run/kcsmux/none.sock status >/dev/null 2>&1
	check "no daemon: exit status 3" test $? = 3
	check "kcsmuxd -n passes on the live host (the file, not the machine)" kcsmuxd -n
	check "kcsmuxd -n --live passes too (the names are its own CUSE nodes)" kcsmuxd -n --live

	step "the shipped rules' series in the metrics textfile"
	wait_for 15 test -s /var/lib/prometheus/node-exporter/kcsmux.prom
	# kcsmux_fallback is kcsmux-cutover's, in its own textfile while
	# kcsmuxd is down: fallback-scenarios.sh checks it there
	grep -o 'kcsmux_[a-z0-9_:]*' /usr/share/kcsmux/prometheus/kcsmux.rules.yml |
		grep -v ':' | grep -vx 'kcsmux_node\|kcsmux_fallback' | sort -u >/tmp/rule-series.txt
	missing=""
	while read -r s; do
		grep -q "^$s[{ ]" /var/lib/prometheus/node-exporter/kcsmux.prom ||
			grep -q "^${s}_bucket{" /var/lib/prometheus/node-exporter/kcsmux.prom ||
			missing="$missing $s"
	done </tmp/rule-series.txt
	if [ -s /tmp/rule-series.txt ] && [ -z "$missing" ]; then
		pass "every series the rules use ($(wc -l </tmp/rule-series.txt)) is in the textfile"
	else
		fail "the rules use series the daemon does not export:$missing"
	fi
	expect "the node label is kcsmux_node" '^kcsmux_clients\{kcsmux_node="ipmi1"\} ' \
		/var/lib/prometheus/node-exporter/kcsmux.prom

	step "systemctl reload with a broken file"
	cp /etc/kcsmux/kcsmux.conf /tmp/good.conf
	# two errors (in the last node section): a two-line cause
	printf 'bogus_key = 1\nother_bogus = 2\n' >>/etc/kcsmux/kcsmux.conf
	pid1=$(systemctl show -p MainPID --value kcsmuxd)
	check "systemctl reload fails on a broken file" sh -c '! systemctl reload kcsmuxd'
	check "the daemon still runs (same pid)" \
		sh -c "[ \"\$(systemctl show -p MainPID --value kcsmuxd)\" = $pid1 ] && [ \"\$(systemctl is-active kcsmuxd)\" = active ]"
	check "the old configuration keeps serving (alice, ipmi1)" ipmi_mc_info alice 1
	check "status: the last reload failed, with its error" \
		sh -c 'kcsmuxctl status | grep -q "^last reload *failed"'
	step "systemctl reload with a good file (ipmi2: monitor -> bulk)"
	write_conf bulk
	run_to /tmp/dry.txt kcsmuxctl reload --dry-run
	sed 's/^/    | /' /tmp/dry.txt
	expect "reload --dry-run: ipmi2's policy would change" '^would change ipmi2: policy monitor -> bulk$' /tmp/dry.txt
	run_to /tmp/show1.txt kcsmuxctl show ipmi2
	expect "... and nothing was applied" '^preset=monitor$' /tmp/show1.txt
	check "systemctl reload succeeds" systemctl reload kcsmuxd
	run_to /tmp/show2.txt kcsmuxctl show ipmi2
	expect "ipmi2 now runs policy bulk" 'bulk' /tmp/show2.txt
	check "still the same daemon" \
		sh -c "[ \"\$(systemctl show -p MainPID --value kcsmuxd)\" = $pid1 ]"

	step "journald priorities"
	wait_for 20 sh -c 'journalctl -u kcsmuxd -p warning..warning -o cat | grep -q kcsmux.prom'
	journalctl -u kcsmuxd --no-pager -o cat -p warning >/tmp/j-warn.txt
	journalctl -u kcsmuxd --no-pager -o cat -p err..err >/tmp/j-err.txt
	journalctl -u kcsmuxd --no-pager -o cat -p warning..warning >/tmp/j-warnonly.txt
	journalctl -u kcsmuxd --no-pager -o cat -p info..info >/tmp/j-info.txt
	sed 's/^/    | /' /tmp/j-warn.txt | head -n 20
	expect "the textfile write failure is a warning (priority 4)" 'kcsmux.prom' /tmp/j-warnonly.txt
	expect "the rejected reload is an error (priority 3)" '^reload rejected' /tmp/j-err.txt
	expect "its first cause is an error" 'kcsmux.conf:[0-9]+: .*bogus_key' /tmp/j-err.txt
	expect "its second line (second cause) is an error too" '^/etc/kcsmux/kcsmux.conf:[0-9]+: .*other_bogus' /tmp/j-err.txt
	expect "startup is at info" 'nodes on /dev/kcsraw0' /tmp/j-info.txt
	check "no info line among the warnings" sh -c '! grep -q "nodes on /dev/kcsraw0" /tmp/j-warn.txt'
	check "no 'kcsmuxd:' prefix in the journal (JOURNAL_STREAM seen)" \
		sh -c 'journalctl -u kcsmuxd -o cat | grep -q "nodes on" &&
		! journalctl -u kcsmuxd -o cat | grep -q "^kcsmuxd: "'

	. /guest/restart-scenarios.sh && restart_scenarios

	step "systemctl stop"
	check "stop succeeds" systemctl stop kcsmuxd
	check "the nodes are gone" sh -c '[ ! -e /dev/ipmi1 ] && [ ! -e /dev/ipmi2 ]'
	. /guest/fallback-scenarios.sh && fallback_away
	echo "$passes $fails" >$STATE/counts
	echo 2 >$STATE/phase
	sync
	[ "$fails" = 0 ]
}

# the counts of the boots before, and this one's for the next
load_counts() {
	read -r p1 f1 <$STATE/counts
	passes=$((passes + p1))
	fails=$((fails + f1))
}
save_counts() {
	echo "$passes $fails" >$STATE/counts
	echo "$1" >$STATE/phase
	sync
}

phase_last() {
	step "boot 3: $(uname -r), systemd $(systemctl is-system-running)"
	check "kcsmuxd came up by itself" sh -c '[ "$(systemctl is-active kcsmuxd)" = active ]'
	check "kcsraw loaded at boot" test -d /sys/module/kcsraw
	check "... by systemd-modules-load (modules-load.d), not only the unit" \
		sh -c "{ journalctl -b --no-pager -o cat; dmesg; } | grep -q \"Inserted module 'kcsraw'\""
	check "ipmi_si stayed out (blacklist)" sh -c '! test -d /sys/module/ipmi_si'
	check "/dev/ipmi1 root:ipmiusers 0660" node_is /dev/ipmi1 root ipmiusers 660
	check "/dev/ipmi2 kcsmux:ipmimon 0660" node_is /dev/ipmi2 kcsmux ipmimon 660
	check "alice runs ipmitool -d 1 mc info" ipmi_mc_info alice 1
	check "kcsraw $(cat $STATE/upgraded-to 2>/dev/null) (the upgrade's) was loaded at boot" \
		sh -c "[ \"\$(cat /sys/module/kcsraw/version)\" = \"\$(cat $STATE/upgraded-to)\" ]"
	# DKMS's build keeps the debug info BTF is made from where the
	# headers have a vmlinux (Debian 13's; kmod/Kbuild, KCSRAW_DKMS)
	if [ -e "/lib/modules/$(uname -r)/build/vmlinux" ]; then
		check "kcsraw has its BTF (bpftrace sees its types)" test -e /sys/kernel/btf/kcsraw
	fi
	. /guest/fallback-scenarios.sh
	fallback_over
	fallback_session

	step "kcsmux-cutover rollback (from the fallback)"
	if kcsmux-cutover rollback >/tmp/rollback.txt 2>&1; then
		pass "kcsmux-cutover rollback succeeds"
	else
		fail "kcsmux-cutover rollback"
		sed 's/^/    | /' /tmp/rollback.txt
	fi
	check "kcsmuxd is stopped and disabled" \
		sh -c '[ "$(systemctl is-active kcsmuxd)" != active ] && [ "$(systemctl is-enabled kcsmuxd)" = disabled ]'
	check "no ipmi_si blacklist after the rollback" \
		sh -c '! modprobe -c | grep -qx "blacklist ipmi_si"'
	check "ipmi_si is back" test -d /sys/module/ipmi_si
	wait_for 10 test -c /dev/ipmi0
	check "the stock /dev/ipmi0 answers ipmitool mc info" \
		sh -c 'ipmitool -d 0 mc info | grep -q "^Device ID"'
	check "both packages stay installed" \
		sh -c 'dpkg -s kcsmux >/dev/null && dpkg -s kcsraw-dkms >/dev/null'
	kcsmux-cutover status --json >/tmp/rb-st.json 2>/dev/null
	expect "status: rolled-back, the fallback over" '"state": "rolled-back".*"fallback": ""' /tmp/rb-st.json
	expect "the kcsmux_fallback metric is 0 again (no alert on a host rolled back)" \
		'^kcsmux_fallback\{reason="none"\} 0$' "$TEXTFILE_DIR/kcsmux_fallback.prom"

	step "apt purge"
	# the admin's own drop-in and node_exporter's directory (with the
	# textfile kcsmuxd, no longer root, could not remove) are not the
	# packages' to remove
	rm -rf /etc/systemd/system/kcsmuxd.service.d /var/lib/prometheus
	if run_to /tmp/purge.log env DEBIAN_FRONTEND=noninteractive apt-get purge -y kcsmux kcsraw-dkms; then
		pass "apt purge removes both packages"
	else
		fail "apt purge"
		sed 's/^/    | /' /tmp/purge.log | tail -n 30
	fi
	check "kcsraw is unloaded" sh -c '! test -d /sys/module/kcsraw'
	check "no node is left (the stock /dev/ipmi0 is)" \
		sh -c '! ls /dev/ipmi[1-9]* >/dev/null 2>&1'
	check "dkms knows no kcsraw" sh -c '[ -z "$(dkms status kcsraw)" ]'
	check "systemd knows no kcsmuxd unit" \
		sh -c 'systemctl daemon-reload; [ "$(systemctl show -p LoadState --value kcsmuxd)" = not-found ]'
	find / -xdev \( -name '*kcsmux*' -o -name '*kcsraw*' \) \
		-not -path '/var/lib/kcsmux-test*' -not -path '/guest*' \
		-not -path '/payload*' -not -path '/tmp/*' \
		-not -name 'kcsmux-guest-run*' >/tmp/left.txt 2>/dev/null
	if [ ! -s /tmp/left.txt ]; then
		pass "no file or directory named kcsmux/kcsraw is left"
	else
		fail "left behind:"
		sed 's/^/    | /' /tmp/left.txt
	fi
	check "dpkg has no trace of either package" \
		sh -c '! dpkg -l kcsmux kcsraw-dkms 2>/dev/null | grep -Eq "^(ii|rc|i[A-Z]) "'
	check "the kcsmux user stays (Debian keeps system users)" id kcsmux
	summary
}

# a boot that no phase asked for: the BMC's watchdog reset the guest
if [ -s /var/lib/kcsmux-test-cutover ]; then
	fail "the guest was reset during: $(cat /var/lib/kcsmux-test-cutover)"
	summary
	exit 1
fi
case $phase in
1)
	if phase1; then
		step "phase 1: $passes passed, $fails failed; rebooting"
		exit 100
	fi
	summary
	exit 1
	;;
2)
	load_counts
	. /guest/fallback-scenarios.sh && fallback_boot
	save_counts 3
	step "boot 2: $passes passed, $fails failed; rebooting"
	exit 100
	;;
esac
load_counts
phase_last
