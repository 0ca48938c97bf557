# kcsmuxd against the stock driver, call by call: the same good and bad
# ioctls on a node and on stock /dev/ipmiN (64- and 32-bit callers), the
# fixed sequence and then the randomized one (RAND_SEEDS seeds from
# RAND_SEED, RAND_STEPS steps each; docs/testing.md), then 32 clients x
# STRESS_N (200) requests over 4 nodes with misuse mixed in: every response
# reaches the request that asked for it, once.
# Both interfaces have their IRQ (run.sh --second-kcs --irq2 on), so the
# BMC global enables the drivers keep are the same on both.
. /guest/lib.sh

# KCSRAW_SMI=1 (vm.daemon-abi-smi): kcsraw is also an interface of
# ipmi_msghandler, so ipmi_devintf (loaded for stock) makes a /dev/ipmiN
# for it too: the nodes are numbered past both stock nodes.
o=0
[ "${KCSRAW_SMI:-0}" = 1 ] && o=1
n1=ipmi$((1 + o)) n2=ipmi$((2 + o)) n3=ipmi$((3 + o)) n4=ipmi$((4 + o))
n5=ipmi$((5 + o))

RAND_SEED=${RAND_SEED:-1}
RAND_SEEDS=${RAND_SEEDS:-3}
RAND_STEPS=${RAND_STEPS:-150}
STRESS_N=${STRESS_N:-200}

stock=$(load_stock_irq "$KCS2_PORT" "$KCS2_IRQ")
check "stock ipmi_si on $KCS2_PORT irq $KCS2_IRQ ($stock)" test -c "$stock"
kcsmux_setup
kcsmux_conf <<CONF
user = nobody

[node $n1]
policy = interactive
[node $n2]
policy = normal
[node $n3]
policy = bulk
queue = 256
[node $n4]
policy = interactive
max_busy_us = 0
poll_us = 100
# the randomized differential test sends every LUN, as stock does
[node $n5]
policy = interactive
luns = *
CONF
kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
dpid=$!
for i in $(seq 50); do [ -c /dev/$n5 ] && break; sleep 0.1; done
check "nodes exist" test -c /dev/$n5
sleep 0.2
grep '^Uid:' /proc/$dpid/status >/tmp/uid
expect "kcsmuxd dropped root for user nobody once the nodes existed" '^Uid:[[:space:]]+65534[[:space:]]+65534[[:space:]]+65534' /tmp/uid

SHOW_LINES=400
# One documented difference (docs/differences.md): a SEND
# whose address is invalid AND whose data pointer is bad fails with EFAULT
# on a node (address and data are fetched in one CUSE retry) where the
# stock driver says EINVAL. Step 27 exercises exactly that.
# And one by name, lun-0-only: Get Device ID to SI LUN 2 is answered cc
# d4 by a node with the default luns (LUN 0 only), sent by stock.
same_abi() {
	grep -Eq ' diff=0 | diff_steps=27$' "$1" &&
		grep -Eq ' known_lun0=1( |$)' "$1"
}
run_to /tmp/diff64 kcsmux-ipmi-diff -q "$stock" /dev/$n1
check "64-bit ABI: node answers like the stock driver" same_abi /tmp/diff64
if [ -x /guest/bin/kcsmux-ipmi-diff32 ]; then
	run_to /tmp/diff32 kcsmux-ipmi-diff32 -q "$stock" /dev/$n2
	check "32-bit ABI (compat ioctls): node answers like the stock driver" \
		same_abi /tmp/diff32
fi

# The randomized differential test: every step the same, or different
# only in a way docs/differences.md names.
SHOW_LINES=80
# Bounded (a run takes ~40 s), so that a stalled one shows its mismatches
# before the VM's own timeout instead of nothing.
run_to /tmp/rand64 timeout 120 kcsmux-ipmi-diff -q -r "$RAND_SEED" \
	-k "$RAND_SEEDS" -n "$RAND_STEPS" "$stock" /dev/$n5
expect "randomized, 64-bit: $RAND_SEEDS seeds x $RAND_STEPS steps, no mismatch" \
	' random seeds=.* diff=0 ' /tmp/rand64
if [ -x /guest/bin/kcsmux-ipmi-diff32 ]; then
	run_to /tmp/rand32 timeout 60 kcsmux-ipmi-diff32 -q \
		-r "$((RAND_SEED + 1000))" -k 1 -n "$RAND_STEPS" "$stock" \
		/dev/$n5
	expect "randomized, 32-bit: 1 seed x $RAND_STEPS steps, no mismatch" \
		' random seeds=.* diff=0 ' /tmp/rand32
fi
mkdir -p /out && cp /tmp/rand64 /out/

SHOW_LINES=40
run_to /tmp/stress kcsmux-ipmi-stress -c 32 -n "$STRESS_N" -w 2 -t 30 -m id,sdr \
	--misuse /dev/$n1 /dev/$n2 /dev/$n3 /dev/$n4
check "32 clients x $STRESS_N requests over 4 nodes: none lost, duplicated or misrouted" \
	grep -q 'result: PASS' /tmp/stress
kill -0 $dpid 2>/dev/null
check "kcsmuxd survived the misuse" test $? = 0
kill -USR1 $dpid
sleep 0.3
kill $dpid
wait $dpid
cat /tmp/kcsmuxd.log
# restarts and crashes under open files, on each kernel (6.1 answers an
# unanswered request ECONNRESET, 6.12 and 7.2 resend it)
[ "${KCSRAW_SMI:-0}" = 1 ] || RS_NODE=$n1 RS_GONE=$n5 . /guest/daemon-restart.sh
summary
