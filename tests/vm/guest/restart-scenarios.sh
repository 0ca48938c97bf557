#!/bin/sh
# Restarts of kcsmuxd under open files with the real units (systemd 252 on
# Debian 12, 257 on Debian 13), sourced by vm.pkg-admin's guest once the
# cutover is done and the admin's configuration runs (ipmi1 interactive);
# the guest script defines step, wait_for, check, expect, num.
# restart_scenarios:
#   a watchdog daemon's part: the BMC's watchdog armed (hard reset after
#   RS_WDT_S s; the delay proxy plays the timer, --watchdog) and Reset
#   Watchdog Timer every 2 s on a file of ipmi1 kept open throughout;
#   RS_RESTARTS x `systemctl restart kcsmuxd`, then RS_KILLS x kill -9 of
#   the main process (Restart=on-failure starts the next), each with a
#   client opened just before it asking every 500 ms (its slowest answer:
#   the event's pause). The watchdog never expires, the restarts fail no
#   request, a crash at most the one whose answer was on its way.
# Figures go to docs/reliability.md, section 8.

RS_WDT_S=${RS_WDT_S:-30}
RS_RESTARTS=${RS_RESTARTS:-3}
RS_KILLS=${RS_KILLS:-2}
RS_PROBE=/guest/bin/kcsmux-ipmi-probe

rs_pid() { systemctl show -p MainPID --value kcsmuxd; }
# rs_up OLD: kcsmuxd active with a main process other than OLD
rs_up() {
	[ "$(systemctl is-active kcsmuxd)" = active ] &&
		[ "$(rs_pid)" != "$1" ] && [ "$(rs_pid)" != 0 ]
}
# rs_field FILE KEY: KEY=VALUE of the probe's -k lines, summed
rs_field() {
	sed -n "s/.* $2=\([0-9]*\).*/\1/p" "$1" | awk '{ s += $1 } END { print s + 0 }'
}
# rs_pauses FILE: "p50 max" of the maxima listed, in ms
rs_pauses() {
	sort -n "$1" | awk '{ v[NR] = $1 }
		END { if (NR == 0) print "none none";
		      else printf "%d %d\n", v[int((NR + 1) / 2)] / 1000, v[NR] / 1000 }'
}

# rs_event KIND N: one event of KIND (restart, kill) with its client
rs_event() {
	_old=$(rs_pid)
	"$RS_PROBE" -d /dev/ipmi1 -n 12 -i 500000 --timeout 30000 -k \
		--allow-errors >/tmp/rs-ev.out 2>&1 &
	_p=$!
	sleep 1
	case $1 in
	restart) systemctl restart kcsmuxd ;;
	kill) kill -9 "$_old" ;;
	esac
	wait_for 60 rs_up "$_old" || fail "$1 $2: kcsmuxd not active again"
	wait $_p
	cat /tmp/rs-ev.out >>/tmp/rs-$1.out
	sed -n 's/.* max_us=\([0-9]*\).*/\1/p' /tmp/rs-ev.out >>/tmp/rs-$1.pause
}

restart_scenarios() {
	step "restarts under open files: systemctl restart x$RS_RESTARTS, kill -9 x$RS_KILLS"
	if [ ! -x "$RS_PROBE" ]; then
		fail "no $RS_PROBE"
		return
	fi
	: >/tmp/rs-restart.out
	: >/tmp/rs-kill.out
	: >/tmp/rs-restart.pause
	: >/tmp/rs-kill.pause
	run_to /tmp/rs-unit.txt systemctl show -p FileDescriptorStoreMax -p NFileDescriptorStore kcsmuxd
	expect "the unit keeps a file descriptor store" '^FileDescriptorStoreMax=[1-9]' /tmp/rs-unit.txt
	expect "the daemon put its nodes and state in it" '^NFileDescriptorStore=[1-9]' /tmp/rs-unit.txt
	_c=$((RS_WDT_S * 10))
	check "the BMC's watchdog armed (hard reset in $RS_WDT_S s)" sh -c \
		"ipmitool -d 1 raw 0x06 0x24 0x04 0x01 0x00 0x10 $((_c & 255)) $((_c >> 8)) >/dev/null &&
		ipmitool -d 1 raw 0x06 0x22 >/dev/null"
	# the watchdog daemon: one open file, a reset every 2 s, until the
	# events are over (the stop file)
	rm -f /tmp/rs-wdt.stop
	"$RS_PROBE" -d /dev/ipmi1 -r "0x06 0x22" -n 600 -i 2000000 --timeout 30000 \
		--stop-file /tmp/rs-wdt.stop -k --allow-errors >/tmp/rs-wdt.out 2>&1 &
	_wdt=$!
	for _i in $(seq "$RS_RESTARTS"); do
		rs_event restart "$_i"
		sleep 2
	done
	# after the restarts: a `systemctl restart` starts the count again
	# (systemd counts automatic restarts since the last start it was
	# asked for), so only the kills' own are counted
	nr0=$(systemctl show -p NRestarts --value kcsmuxd)
	for _i in $(seq "$RS_KILLS"); do
		rs_event kill "$_i"
		sleep 2
	done
	nr1=$(systemctl show -p NRestarts --value kcsmuxd)
	num "NRestarts" "$nr0" "$nr1" &&
		check "each kill -9 was restarted by Restart=on-failure ($nr0 -> $nr1)" \
			test $((nr1 - nr0)) = "$RS_KILLS"
	# two more resets after the last event, then the watchdog's user stops
	sleep 4
	touch /tmp/rs-wdt.stop
	wait $_wdt
	sed 's/^/    | /' /tmp/rs-wdt.out
	ok=$(rs_field /tmp/rs-restart.out ok)
	err=$(rs_field /tmp/rs-restart.out err)
	set -- $(rs_pauses /tmp/rs-restart.pause)
	step "systemctl restart x$RS_RESTARTS: clients ok=$ok err=$err; pause p50 $1 ms max $2 ms"
	num "restart: client counts" "$ok" "$err" &&
		check "systemctl restart: every request of the clients answered" \
			test "$err" = 0 -a "$ok" = $((RS_RESTARTS * 12))
	ok=$(rs_field /tmp/rs-kill.out ok)
	err=$(rs_field /tmp/rs-kill.out err)
	set -- $(rs_pauses /tmp/rs-kill.pause)
	step "kill -9 x$RS_KILLS: clients ok=$ok err=$err; pause p50 $1 ms max $2 ms"
	num "kill: client counts" "$ok" "$err" &&
		check "kill -9: the clients' files kept working, at most one failure per crash" \
			test $((ok + err)) = $((RS_KILLS * 12)) -a "$err" -le "$RS_KILLS"
	ok=$(rs_field /tmp/rs-wdt.out ok)
	err=$(rs_field /tmp/rs-wdt.out err)
	num "watchdog resets" "$ok" "$err" &&
		check "the watchdog daemon's file kept working: $ok resets, $err failed (at most one per crash)" \
			test "$ok" -gt 0 -a "$err" -le "$RS_KILLS"
	ipmitool -d 1 raw 0x06 0x25 >/tmp/rs-wdt-get.txt 2>&1
	check "the BMC's watchdog still runs, never expired (no reset)" sh -c \
		'u=$(awk "{ print \$1; exit }" /tmp/rs-wdt-get.txt); [ -n "$u" ] && [ $((0x$u & 0x40)) != 0 ]'
	ipmitool -d 1 raw 0x06 0x24 0x04 0x00 0x00 0x10 0x64 0x00 >/dev/null 2>&1
	journalctl -u kcsmuxd --no-pager -o cat | grep -E 'hand-over|unanswered' |
		tail -n 8 | sed 's/^/    | /'
}
