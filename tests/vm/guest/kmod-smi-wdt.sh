# ipmi_watchdog on kcsraw until the BMC resets the guest, run by
# tests/vm/smi.sh wdt with run.sh --reboot. First boot: the BMC's SMS/OS
# expiration flag is clear; ipmi_watchdog (timeout 10 s) is armed through
# /dev/watchdog, seen running through a kcsmuxd node, then its user is
# killed without the magic close, so the heartbeats stop and the timer runs
# out: the BMC (ipmi_sim: hard reset) resets the guest. Second boot (the
# same script again): the BMC, which outlives the guest, reports the
# expiration in Get Watchdog Timer, read through kcsraw's interface; it
# loads ipmi_poweroff, and the guest's final poweroff -f must reach the BMC
# as Chassis Control power down (run with acpi=off: otherwise the kernel
# powers off through ACPI first).
. /guest/lib.sh

check "insmod kcsraw smi=1" load_kcsraw smi=1 ports="$KCS1_PORT" irqs="$KCS1_IRQ"
check "modprobe ipmi_devintf" modprobe ipmi_devintf
# In every boot: the guest runs with acpi=off, so its final poweroff -f
# (init, whatever the script's outcome) goes through ipmi_poweroff.
check "modprobe ipmi_poweroff" modprobe ipmi_poweroff
for _i in $(seq 50); do [ -c /dev/ipmi0 ] && break; sleep 0.1; done
ipmitool -I open -d 0 raw 0x06 0x25 >/tmp/wd0 2>/dev/null
echo "    Get Watchdog Timer at boot: $(tr -s ' \n' ' ' </tmp/wd0)"
# byte 4 of the answer (after cc): timer use expiration flags; 0x10 SMS/OS
flags=$(tr -s ' \n' ' ' </tmp/wd0 | cut -d' ' -f5)
if [ -n "$flags" ] && [ $((0x$flags & 0x10)) != 0 ]; then
	echo "KCSMUX-SMI-WDT-SECOND-BOOT"
	pass "second boot: the BMC's SMS/OS watchdog expired and reset the guest"
	# The guest's final poweroff -f goes through ipmi_poweroff (ACPI is
	# off): Chassis Control power down, which smi.sh finds in the log.
	dmesg | grep 'IPMI poweroff' | sed 's/^/    dmesg| /'
	dmesg >/tmp/dmesg.po
	expect "ipmi_poweroff found the chassis poweroff" \
		'Found a chassis style poweroff' /tmp/dmesg.po
	if dmesg | grep -E 'WARNING|BUG:|Oops'; then
		fail "kernel warnings"
	else
		pass "no kernel WARNING, BUG or Oops"
	fi
	echo "KCSMUX-SMI-POWEROFF-NEXT"
	summary
	exit
fi
echo "KCSMUX-SMI-WDT-FIRST-BOOT"
check "first boot: no expiration flag yet (flags ${flags:-?})" test -n "$flags"
check "modprobe ipmi_watchdog timeout=10 action=reset" \
	modprobe ipmi_watchdog timeout=10 action=reset
check "modprobe cuse" modprobe cuse
mkdir -p /etc/kcsmux
kcsmux_conf <<'CONF'

[node ipmi5]
policy = monitor
CONF
kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
for _i in $(seq 50); do [ -c /dev/ipmi5 ] && break; sleep 0.1; done
watchdog -T 10 -t 1 -F /dev/watchdog &
wpid=$!
sleep 2
ipmitool -I open -d 5 mc watchdog get >/tmp/wd1 2>&1
sed 's/^/    /' /tmp/wd1
expect "through the node: SMS/OS, running" 'Started/Running' /tmp/wd1
echo "KCSMUX-SMI-WDT-STOP-HEARTBEATS"
kill -KILL "$wpid"
sleep 60
fail "still alive 60 s after the heartbeats stopped (timeout 10 s)"
summary
exit 1
