# Smoke test of the rig itself with the stock kernel driver: ipmi_si on the
# emulated KCS, talking to ipmi_sim with the project's BMC configuration.
. /guest/lib.sh

say "stock ipmi_si on $KCS1_PORT (irq $KCS1_IRQ)"
dev=$(load_stock "$KCS1_PORT")
check "stock driver created a device node ($dev)" test -c "$dev"
n=${dev#/dev/ipmi}

run_to /tmp/mc ipmitool -I open -d "$n" mc info
expect "ipmitool mc info: device ID" '^Device ID +: ' /tmp/mc
expect "ipmitool mc info: IPMI 2.0" '^IPMI Version +: 2\.0' /tmp/mc

run_to /tmp/sdr ipmitool -I open -d "$n" sdr
expect "ipmitool sdr: a temperature sensor reads degrees C" 'degrees C +\| ok' /tmp/sdr
expect "ipmitool sdr: a fan reads RPM" 'RPM +\| ok' /tmp/sdr

run_to /tmp/sel ipmitool -I open -d "$n" sel list
expect "ipmitool sel list: entries present" '^ +1 \|' /tmp/sel

run_to /tmp/bmcinfo bmc-info --driver-type=OPENIPMI --driver-device="$dev"
expect "FreeIPMI bmc-info: device ID" '^Device ID +: ' /tmp/bmcinfo
expect "FreeIPMI bmc-info: IPMI 2.0" '^IPMI Version +: 2\.0' /tmp/bmcinfo

summary
