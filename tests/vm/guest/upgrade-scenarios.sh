#!/bin/sh
# The upgrade N -> N+1 of both packages on a host cut over, sourced by
# vm.pkg-admin's guest (boot 1, after the cutover, with ipmi_watchdog
# loaded on kcsraw and its device closed). N+1 comes from the same source
# (tests/build-debs.sh --version) in /guest/debs-next. upgrade_scenarios:
#   apt install of both N+1 .debs: an upgrade (both versions grow), DKMS
#   builds kcsraw N+1 for the running kernel and drops N; kcsraw-dkms's
#   postinst leaves kcsraw N loaded (ipmi_watchdog is bound to it) and
#   says the next boot loads N+1; kcsmux's postinst restarts kcsmuxd,
#   which now runs N+1; the nodes and ipmitool answer, and a client that
#   held ipmi1 open through it all had every request answered -> without
#   ipmi_watchdog, the postinst's second run (what an upgrade does on a
#   host without it) replaces kcsraw N by N+1 around a restart of kcsmuxd
#   -> the nodes and ipmitool answer. Boot 2 checks that kcsraw N+1 is
#   the one loaded at boot (UPGRADED_TO in the state directory).

# deb_version FILE: the package's version from its .deb
deb_version() { dpkg-deb -f "$1" Version; }

upgrade_scenarios() {
	mkdir -p /tmp/next
	cp /guest/debs-next/*.deb /tmp/next/
	nv=$(deb_version /tmp/next/kcsmux_*.deb)
	ov=$(dpkg-query -W -f '${Version}' kcsmux)
	kn=${nv%-*}
	ko=$(cat /sys/module/kcsraw/version)
	step "upgrade kcsmux and kcsraw-dkms $ov -> $nv (ipmi_watchdog on kcsraw)"
	check "N+1 sorts after N (dpkg --compare-versions $nv gt $ov)" \
		dpkg --compare-versions "$nv" gt "$ov"
	check "ipmi_watchdog is loaded, on kcsraw $ko" test -d /sys/module/ipmi_watchdog
	pid0=$(systemctl show -p MainPID --value kcsmuxd)
	# a client holding ipmi1 open through the upgrade, asking every 500 ms
	rm -f /tmp/up-stop
	/guest/bin/kcsmux-ipmi-probe -d /dev/ipmi1 -n 100000 -i 500000 --timeout 30000 \
		--stop-file /tmp/up-stop -k --allow-errors >/tmp/up-held.out 2>&1 &
	up_held=$!
	if run_to /tmp/upgrade.log env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		/tmp/next/kcsmux_*.deb /tmp/next/kcsraw-dkms_*.deb; then
		pass "apt upgrades both packages"
	else
		fail "apt upgrade"
		tail -n 30 /tmp/upgrade.log | sed 's/^/    | /'
	fi
	grep -i 'kcsraw\|upgrad' /tmp/upgrade.log | grep -v '^Get:' | tail -n 12 | sed 's/^/    | /'
	check "kcsmux is $nv" sh -c "[ \"\$(dpkg-query -W -f '\${Version}' kcsmux)\" = $nv ]"
	check "kcsraw-dkms is $nv" sh -c "[ \"\$(dpkg-query -W -f '\${Version}' kcsraw-dkms)\" = $nv ]"
	run_to /tmp/dkms2.log dkms status kcsraw
	sed 's/^/    | /' /tmp/dkms2.log
	kre=$(echo "$KVER" | sed 's/[.+]/\\&/g')
	expect "DKMS built kcsraw $kn for the running kernel" \
		"^kcsraw/$(echo "$kn" | sed 's/[.+]/\\&/g'), $kre, x86_64: installed" /tmp/dkms2.log
	check "... and dropped kcsraw $ko" sh -c "! grep -q '^kcsraw/$ko,' /tmp/dkms2.log"
	check "kcsraw $ko stays loaded (ipmi_watchdog is bound to it)" \
		sh -c "[ \"\$(cat /sys/module/kcsraw/version)\" = $ko ]"
	expect "the postinst says the next boot loads $kn" \
		"kcsraw $ko stays loaded until the next boot, which loads $kn: ipmi_watchdog" /tmp/upgrade.log
	check "kcsmuxd was restarted (pid $pid0 -> $(systemctl show -p MainPID --value kcsmuxd))" \
		sh -c "[ \"\$(systemctl show -p MainPID --value kcsmuxd)\" != $pid0 ] && systemctl is-active --quiet kcsmuxd"
	wait_for 10 sh -c 'kcsmuxctl status -j | grep -q "\"version\": \"'"$kn"'\""'
	check "kcsmuxd runs $kn (kcsmuxctl status -j)" \
		sh -c 'kcsmuxctl status -j | grep -q "\"version\": \"'"$kn"'\""'
	sleep 2 # a few more requests on the held file, answered by N+1
	touch /tmp/up-stop
	wait $up_held
	cat /tmp/up-held.out
	hok=$(sed -n 's/.* ok=\([0-9]*\).*/\1/p' /tmp/up-held.out)
	herr=$(sed -n 's/.* err=\([0-9]*\).*/\1/p' /tmp/up-held.out)
	num "held client counts" "$hok" "$herr" &&
		check "a client holding ipmi1 open through the upgrade: $hok requests answered, none failed" \
			test "$hok" -gt 4 -a "$herr" = 0
	run_to /tmp/up-mc.txt ipmitool mc info
	expect "root's ipmitool mc info answers (interface-0 node)" '^Device ID' /tmp/up-mc.txt
	run_to /tmp/up-st.txt kcsmux-cutover status
	expect "kcsmux-cutover status: cut-over, kcsraw $ko" "^kcsmux-cutover: cut-over: kcsraw $ko serves" /tmp/up-st.txt

	# ipmi_watchdog gone (its device closed: no heartbeats were due), the
	# postinst as apt runs it on a host without it
	step "kcsraw-dkms's postinst without ipmi_watchdog: kcsraw $ko -> $kn now"
	check "modprobe -r ipmi_watchdog" modprobe -r ipmi_watchdog
	pid1=$(systemctl show -p MainPID --value kcsmuxd)
	# (without its DKMS step, which the upgrade ran: it would build
	# kcsraw again, minutes under TCG)
	sed '\|/usr/lib/dkms/common.postinst|d' /var/lib/dpkg/info/kcsraw-dkms.postinst >/tmp/reload.sh
	run_to /tmp/reload.log sh /tmp/reload.sh configure "$ov"
	check "the postinst succeeds" test $? = 0
	sed 's/^/    | /' /tmp/reload.log | tail -n 4
	check "kcsraw $kn is loaded" sh -c "[ \"\$(cat /sys/module/kcsraw/version)\" = $kn ]"
	expect "the postinst says it replaced kcsraw" "kcsraw $ko replaced by $kn" /tmp/reload.log
	check "kcsmuxd is active again, a new process (was $pid1)" \
		sh -c "systemctl is-active --quiet kcsmuxd && [ \"\$(systemctl show -p MainPID --value kcsmuxd)\" != $pid1 ]"
	wait_for 10 test -e /dev/ipmi0
	run_to /tmp/up-mc2.txt ipmitool mc info
	expect "root's ipmitool mc info answers on kcsraw $kn" '^Device ID' /tmp/up-mc2.txt
	run_to /tmp/up-mc3.txt ipmitool -d 1 mc info
	expect "node ipmi1 answers" '^Device ID' /tmp/up-mc3.txt
	echo "$kn" >"$STATE/upgraded-to"
}
