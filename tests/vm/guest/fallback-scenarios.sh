#!/bin/sh
# Never without IPMI: the fallback to the stock ipmi_si on a host cut over,
# sourced by vm.pkg-admin's guest (Debian 12 and 13), across three boots:
#   fallback_away (boot 1, its end): kcsraw.ko moved away, as after a
#     kernel update whose DKMS build failed, and a reboot
#   fallback_boot (boot 2): kcsmux-modules.service fell back: ipmi_si and
#     /dev/ipmi0 answer ipmitool, kcsmuxd's /dev links gone (none
#     dangles), a warning in the journal, kcsmux-cutover status
#     "fallback" (exit 3, JSON), kcsmuxctl status says it, the
#     kcsmux_fallback metric is 1, the cutover's /etc links stay, reason
#     "no kcsraw module"; kcsmuxd not started; the module put back, a
#     reboot
#   fallback_over (boot 3): kcsraw and kcsmuxd serve again by themselves
#     (the guest script checks them), status cut-over, the metric 0
#   fallback_session (boot 3, kcsmuxd serving): a kcsmux.conf kcsmuxd
#     cannot start with, then systemctl restart: its restarts hit the
#     start limit, OnFailure= -> kcsmux-fallback.service: the same checks
#     as at boot 2, reason "kcsmuxd failed for good"; the good file back.
# The guest script defines step, wait_for, as and STATE.
TEXTFILE_DIR=/var/lib/prometheus/node-exporter

# no_dangling: no /dev/ipmi* link points at nothing
no_dangling() {
	for l in /dev/ipmi[0-9]* /dev/ipmi/* /dev/ipmidev/*; do
		[ -L "$l" ] && [ ! -e "$l" ] && return 1
	done
	return 0
}

# on_stock WHY_RE METRIC_REASON: the host on the fallback, said everywhere
on_stock() {
	check "ipmi_si is loaded, kcsraw is not" \
		sh -c 'test -d /sys/module/ipmi_si && ! test -d /sys/module/kcsraw'
	wait_for 10 test -c /dev/ipmi0
	check "/dev/ipmi0 is the stock device (a character device, no link)" \
		sh -c 'test -c /dev/ipmi0 && ! test -L /dev/ipmi0'
	check "no /dev/ipmi* link dangles (/dev/ipmi/0, /dev/ipmidev/0 gone)" no_dangling
	run_to /tmp/fb-mc.txt ipmitool mc info
	expect "ipmitool mc info (no -d) answers through stock ipmi_si" '^Device ID' /tmp/fb-mc.txt
	kcsmux-cutover status >/tmp/fb-st.txt 2>&1
	check "kcsmux-cutover status exits 3 (fallback)" test $? = 3
	sed 's/^/    | /' /tmp/fb-st.txt
	expect "... and says why" "^kcsmux-cutover: fallback: ipmi_si serves /dev/ipmi0 until the next boot that loads kcsraw: $1" /tmp/fb-st.txt
	kcsmux-cutover status --json >/tmp/fb-st.json 2>/dev/null
	expect "status --json: state fallback" '"state": "fallback"' /tmp/fb-st.json
	if command -v python3 >/dev/null; then
		check "status --json is valid JSON" python3 -m json.tool /tmp/fb-st.json
	fi
	kcsmuxctl status >/tmp/fb-ctl.txt 2>&1
	check "kcsmuxctl status exits 3 (no daemon)" test $? = 3
	expect "... and names the fallback" "fallback: the stock ipmi_si serves /dev/ipmi0 until the next boot that loads kcsraw: $1" /tmp/fb-ctl.txt
	journalctl -b -t kcsmux-cutover -p warning --no-pager -o cat >/tmp/fb-j.txt
	expect "a warning in the journal" "^falling back to the stock ipmi_si until the next boot: $1" /tmp/fb-j.txt
	expect "the kcsmux_fallback metric is 1 ($2)" "^kcsmux_fallback\{reason=\"$2\"\} 1$" "$TEXTFILE_DIR/kcsmux_fallback.prom"
	check "the cutover's blacklist stays (the next boot tries kcsraw)" \
		sh -c 'modprobe -c | grep -qx "blacklist ipmi_si"'
	check "kcsmuxd stays enabled" sh -c '[ "$(systemctl is-enabled kcsmuxd)" = enabled ]'
}

fallback_session() {
	step "kcsmuxd cannot start: its restarts hit the start limit (OnFailure=)"
	cp /etc/kcsmux/kcsmux.conf /tmp/fb-good.conf
	printf 'bogus_key = 1\n' >>/etc/kcsmux/kcsmux.conf
	systemctl restart kcsmuxd >/dev/null 2>&1
	# systemd's default start limit: 5 starts in 10 s, 100 ms apart
	wait_for 90 sh -c 'kcsmux-cutover status >/dev/null 2>&1; [ $? = 3 ]'
	run_to /tmp/fb-unit.txt systemctl show -p Result -p NRestarts -p ActiveState kcsmuxd
	sed 's/^/    | /' /tmp/fb-unit.txt
	# (systemd 252 keeps Result=exit-code after the restarts run out)
	expect "kcsmuxd failed for good (ActiveState=failed)" '^ActiveState=failed' /tmp/fb-unit.txt
	journalctl -b -u kcsmux-fallback --no-pager -o cat | tail -n 8 | sed 's/^/    | /'
	on_stock "kcsmuxd failed for good" kcsmuxd
	cp /tmp/fb-good.conf /etc/kcsmux/kcsmux.conf
	systemctl reset-failed kcsmuxd
}

fallback_away() {
	step "kcsraw.ko moved away (a kernel update whose DKMS build failed), reboot"
	ko=$(modinfo -n kcsraw)
	echo "$ko" >"$STATE/kcsraw-path"
	check "move $ko away" mv "$ko" "$STATE/kcsraw.ko.away"
	depmod -a
	check "modprobe finds no kcsraw now" sh -c '! modinfo kcsraw >/dev/null 2>&1'
}

fallback_boot() {
	step "boot 2: $(uname -r), no loadable kcsraw, systemd $(systemctl is-system-running)"
	check "kcsmux-modules.service failed (it fell back)" systemctl is-failed --quiet kcsmux-modules
	check "kcsmuxd was not started" sh -c '! systemctl is-active --quiet kcsmuxd'
	on_stock "kcsraw did not load: no kcsraw module for kernel $(uname -r | sed 's/[.+]/\\&/g')" kcsraw
	step "kcsraw.ko put back, reboot"
	check "put kcsraw.ko back" mv "$STATE/kcsraw.ko.away" "$(cat "$STATE/kcsraw-path")"
	depmod -a
}

fallback_over() {
	step "the fallback is over: kcsraw and kcsmuxd serve again"
	run_to /tmp/fb-st2.txt kcsmux-cutover status
	check "kcsmux-cutover status exits 0" test $? = 0
	expect "... cut-over" '^kcsmux-cutover: cut-over: kcsraw ' /tmp/fb-st2.txt
	expect "the kcsmux_fallback metric is 0" '^kcsmux_fallback\{reason="none"\} 0$' "$TEXTFILE_DIR/kcsmux_fallback.prom"
}
