#!/bin/sh
# vm.pkg-admin (run.sh --systemd): what an admin does on a fresh Debian 12
# (vm.pkg-admin@trixie: 13, its packages and its own 6.12 kernel)
# with systemd, step by step, with the two packages CPack builds:
#   boot 1: apt install both .debs -> DKMS builds kcsraw for the running
#     kernel, and nothing blacklists ipmi_si yet -> kcsmux-cutover check,
#     apply: ipmi_si out, kcsraw in, enable --now kcsmuxd reaches READY,
#     nodes have the configured owner/group/mode (udev included) -> ipmitool
#     as a member of the node's group -> kcsmuxctl status (text, JSON),
#     list -j, show -j, exit status 3 without a daemon -> kcsmuxd -n and
#     -n --live on the live host -> the shipped Prometheus rules' series in
#     the textfile -> reload with a broken file fails and the old config
#     serves, reload --dry-run says what a good one changes, and it applies
#     -> journald priorities -> stop -> reboot
#   boot 2: the service came up by itself (the cutover's modules-load.d
#     and blacklist, WantedBy) -> kcsmux-cutover rollback: ipmi_si serves
#     /dev/ipmi0 again, no package purged -> apt purge: nothing left.
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
EOF
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
	write_conf monitor
	mkdir -p /var/lib/prometheus/node-exporter /etc/systemd/system/kcsmuxd.service.d
	printf '[Service]\nReadWritePaths=/var/lib/prometheus/node-exporter\n' \
		>/etc/systemd/system/kcsmuxd.service.d/textfile.conf
	systemctl daemon-reload

	# The cutover: the pre-flight, then ipmi_si out (it bound at boot:
	# its users acpi_ipmi and ipmi_devintf go with it), kcsraw in, the
	# blacklist and modules-load.d links, enable --now kcsmuxd.
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
		sed 's/^/    | /' /tmp/cutover.txt
		systemctl status --no-pager kcsmuxd | sed 's/^/    | /'
		journalctl -u kcsmuxd --no-pager | tail -n 20 | sed 's/^/    | /'
	fi
	check "ipmi_si is gone" sh -c '! test -d /sys/module/ipmi_si'
	check "the ipmi_si blacklist is in force now" \
		sh -c 'modprobe -c | grep -qx "blacklist ipmi_si"'
	check "kcsraw is loaded" test -d /sys/module/kcsraw
	check "cuse is loaded" test -d /sys/module/cuse
	check "/dev/kcsraw0 is root's only (udev rule)" node_is /dev/kcsraw0 root root 600
	check "kcsmuxd is enabled" sh -c '[ "$(systemctl is-enabled kcsmuxd)" = enabled ]'
	check "kcsmuxd is active" sh -c '[ "$(systemctl is-active kcsmuxd)" = active ]'
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
	grep -o 'kcsmux_[a-z0-9_:]*' /usr/share/kcsmux/prometheus/kcsmux.rules.yml |
		grep -v ':' | grep -vx kcsmux_node | sort -u >/tmp/rule-series.txt
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

	step "systemctl stop"
	check "stop succeeds" systemctl stop kcsmuxd
	check "the nodes are gone" sh -c '[ ! -e /dev/ipmi1 ] && [ ! -e /dev/ipmi2 ]'
	echo "$passes $fails" >$STATE/counts
	echo 2 >$STATE/phase
	sync
	[ "$fails" = 0 ]
}

phase2() {
	read -r p1 f1 <$STATE/counts
	passes=$((passes + p1))
	fails=$((fails + f1))
	step "boot 2: $(uname -r), systemd $(systemctl is-system-running)"
	check "kcsmuxd came up by itself" sh -c '[ "$(systemctl is-active kcsmuxd)" = active ]'
	check "kcsraw loaded at boot" test -d /sys/module/kcsraw
	check "... by systemd-modules-load (modules-load.d), not only the unit" \
		sh -c "{ journalctl -b --no-pager -o cat; dmesg; } | grep -q \"Inserted module 'kcsraw'\""
	check "ipmi_si stayed out (blacklist)" sh -c '! test -d /sys/module/ipmi_si'
	check "/dev/ipmi1 root:ipmiusers 0660" node_is /dev/ipmi1 root ipmiusers 660
	check "/dev/ipmi2 kcsmux:ipmimon 0660" node_is /dev/ipmi2 kcsmux ipmimon 660
	check "alice runs ipmitool -d 1 mc info" ipmi_mc_info alice 1

	step "kcsmux-cutover rollback"
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

if [ "$phase" = 1 ]; then
	if phase1; then
		step "phase 1: $passes passed, $fails failed; rebooting"
		exit 100
	fi
	summary
	exit 1
fi
phase2
