# A panic with kcsraw as the IPMI interface, run by
# tests/vm/smi.sh panic: ipmi_msghandler with panic_op=event, kcsraw smi=1,
# ipmi_watchdog started, a /dev/kcsraw0 client keeping transactions in
# flight; then sysrq-c. The panic notifiers run with the other CPUs
# stopped and interrupts off: only kcsraw's poll() can carry the
# watchdog's panic timeout and the panic events to the BMC (smi.sh checks
# the BMC's request log). The guest never reports an exit status.
. /guest/lib.sh

check "modprobe ipmi_msghandler panic_op=event" \
	modprobe ipmi_msghandler panic_op=event
# SMI_PANIC_SMI=0 (by hand): the module without the kernel's lane, to
# see the host's checks fail.
check "insmod kcsraw smi=${SMI_PANIC_SMI:-1}" load_kcsraw smi="${SMI_PANIC_SMI:-1}" \
	ports="$KCS1_PORT" irqs="$KCS1_IRQ"
# With smi=0 ipmi_watchdog finds no interface: loads, does nothing.
check "modprobe ipmi_watchdog start_now=1 timeout=60" \
	modprobe ipmi_watchdog start_now=1 timeout=60 action=reset
dmesg | grep -i 'ipmi\|kcsraw' | sed 's/^/    dmesg| /'
# A /dev/kcsraw0 user busy at the moment of the panic: poll() must abort
# its transaction in flight.
(while :; do kcsmux-kcsraw -n 50 -q raw 06 01 >/dev/null 2>&1; done) &
sleep 2
if [ "$fails" != 0 ]; then
	summary
	exit 1
fi
# The marker goes through the kernel's log, which panic() flushes to the
# console: the script's own output passes a pipe that a 2-vCPU guest did
# not always drain before the panic (the marker was lost while the BMC got
# both panic events).
echo "<2>KCSMUX-SMI-PANIC-NOW" >/dev/kmsg # level 2: the rig boots with loglevel=4
echo c >/proc/sysrq-trigger
echo "still alive after sysrq-c"
exit 1
