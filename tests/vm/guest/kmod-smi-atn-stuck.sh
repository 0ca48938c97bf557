# kcsraw's message flags machine (smi=1 smi_async=1) against a BMC that
# keeps "receive message available" up with nothing behind it, as
# daemon-atn-stuck.sh does for kcsmuxd: the delay proxy queues an
# incoming command on OEM request 30 05 (SMS_ATN up, Get Message Flags
# answered 01) but answers every Get Message with cc 0x80 itself. After a
# run of the machine that fetched nothing, SMS_ATN starts the next only
# after the idle check's interval (atn_poll_ms, 100 ms): about two
# transactions per 100 ms instead of back to back.
#
# Run with: run.sh --bmc extern --delay fixed:200 --proxy-args
#   "--answer 0x06:0x33=80 --on 0x30:0x05=inject-cmd,0,0x40,0x32,0x05"
. /guest/lib.sh

SYS=/sys/class/misc/kcsraw0
smi_field() { tr ' ' '\n' <$SYS/smi | sed -n "s/^$1=//p"; }
check "modprobe ipmi_devintf" modprobe ipmi_devintf
check "insmod kcsraw smi=1" load_kcsraw smi=1 ports="$KCS1_PORT" irqs="$KCS1_IRQ"
for _i in $(seq 50); do [ -c /dev/ipmi0 ] && break; sleep 0.1; done
check "/dev/ipmi0" test -c /dev/ipmi0
run_to /tmp/before kcsmux-ipmi-probe -d 0 -n 50 -k
expect "before: 50 of 50 on /dev/ipmi0" ' ok=50 err=0 ' /tmp/before

say "the BMC's flag stuck: SMS_ATN up, Get Message empty"
kcsmux-ipmi-probe -d 0 -n 1 -r "30 05" --allow-errors >/dev/null 2>&1
sleep 1
f0=$(smi_field flag_ops)
sleep 5
f1=$(smi_field flag_ops)
echo "    smi: $(cat $SYS/smi)"
# Unbounded: hundreds a second. Bounded: ~2 per 100 ms, ~100 in 5 s.
num "smi flag_ops" "$f0" "$f1" && {
	check "the machine still looks (flag_ops $f0 -> $f1)" test "$f1" -gt "$f0"
	check "at most 200 flags transactions in 5 s ($((f1 - f0)))" \
		test $((f1 - f0)) -le 200
}
run_to /tmp/during kcsmux-ipmi-probe -d 0 -n 200 -k
expect "/dev/ipmi0 is served meanwhile: 200 of 200" ' ok=200 err=0 ' /tmp/during
check "rmmod kcsraw" rmmod kcsraw
no_kernel_warnings
summary
