#!/bin/sh
# Started at each boot of the systemd guest (run.sh --systemd) by the
# image's kcsmux-guest-run unit, from the payload disk: runs /guest/script
# like the busybox guest's init does. Status 100 from the script reboots the
# guest (the unit starts it again after the boot); any other ends the run:
# /out goes through the second serial port, KCSMUX-EXIT on the console, and
# the guest powers off.
ln -sfn /payload/guest /guest
export HOME=/root TERM=${TERM:-vt100}
# the packages' binaries, not the rig's sanitized ones in /guest/bin
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/guest/bin
[ -f /guest/env ] && . /guest/env
mkdir -p /out
cd /guest || exit 1
echo "kcsmux-guest: systemd $(systemctl --version | sed -n 1p), kernel $(uname -r), boot $(cat /proc/sys/kernel/random/boot_id)"
# shellcheck disable=SC2086
sh /guest/script $KCSMUX_ARGS
rc=$?
if [ $rc = 100 ]; then
	echo "kcsmux-guest: rebooting"
	systemctl reboot
	exit 0
fi
if [ -n "$(ls -A /out 2>/dev/null)" ]; then
	stty -F /dev/ttyS1 raw -echo 2>/dev/null
	tar -C /out -cf - . | base64 >/dev/ttyS1
fi
echo "KCSMUX-EXIT=$rc"
sync
systemctl poweroff
