# FUSE round trips per SEND of one-shot and long-lived clients on a kcsmux
# node (guest script; the write-up is docs/bench-node.md, "One-shot
# clients"). Run it with
#   KCSMUX_BUILD=/tmp/build-gss tests/vm/run.sh --mitigations --bmc sim --out DIR \
#       tests/bench/oneshot-count.sh [--env BENCH_NONESHOT=40 BENCH_NLONG=300]
# (a Release tree: a benchmark, not a test). Untimed: kprobes count, per
# process name, the client's FUSE round trips (fuse_simple_request), how
# many are poll (fuse_file_poll), and its SEND_COMMAND ioctls (fuse_do_ioctl
# with that command), for:
#   oneshot   BENCH_NONESHOT x `ipmitool -I open -d 1 raw 6 1` (a process
#             each: open, SET_GETS_EVENTS, SET_MY_ADDRESS, 4 SENDs (its
#             start-up requests and the raw one), each with a poll and a
#             RECEIVE, close)
#   longlived one kcsmux-ipmi-probe doing BENCH_NLONG Get Device IDs
#             (SEND, poll, RECEIVE on one open file)
# One line per row goes to /out/oneshot.txt, the daemon's table (its guess
# counters) to /out/oneshot-daemon.txt.
# shellcheck shell=sh
. /guest/lib.sh

NONE=${BENCH_NONESHOT:-40}
NLONG=${BENCH_NLONG:-300}
T=/sys/kernel/tracing
RES=/out/oneshot.txt
mkdir -p /out
: >$RES
# IPMICTL_SEND_COMMAND: _IOR('i', 13, struct ipmi_req), 40 bytes on 64-bit
SEND=8028690d

kcsmux_setup
kcsmux_conf <<'CONF'

[node ipmi1]
policy = interactive
CONF
kcsmuxd -f >/tmp/kcsmuxd.log 2>&1 &
dpid=$!
for _i in $(seq 50); do [ -c /dev/ipmi1 ] && break; sleep 0.1; done
check "node exists" test -c /dev/ipmi1
sleep 0.3

grep -q " $T tracefs " /proc/mounts || mount -t tracefs none $T
echo 'p:os_fsr fuse_simple_request' >>$T/kprobe_events
echo 'p:os_poll fuse_file_poll' >>$T/kprobe_events
echo 'p:os_ioctl fuse_do_ioctl cmd=%si:u32' >>$T/kprobe_events
H='hist:keys=common_pid.execname'
HI='hist:keys=common_pid.execname,cmd.hex'
arm() {
	for _e in os_fsr os_poll; do echo "$H" >$T/events/kprobes/$_e/trigger; done
	echo "$HI" >$T/events/kprobes/os_ioctl/trigger
}
disarm() {
	for _e in os_fsr os_poll; do echo "!$H" >$T/events/kprobes/$_e/trigger; done
	echo "!$HI" >$T/events/kprobes/os_ioctl/trigger
}
# hits EVENT NAME [CMD]: the hits of processes called NAME (and only the
# ioctl CMD)
hits() {
	awk -v c="$2" -v k="${3:-}" '/hitcount:/ && $0 ~ "common_pid: " c " " &&
			(k == "" || index($0, "cmd: " k)) { n += $NF }
		END { print n + 0 }' $T/events/kprobes/$1/hist
}
# row ROW NAME CMD...: run CMD (the shell loop is not counted: only NAME)
row() {
	_row=$1 _name=$2
	shift 2
	arm
	"$@"
	_rc=$?
	_f=$(hits os_fsr "$_name") _p=$(hits os_poll "$_name") _s=$(hits os_ioctl "$_name" $SEND)
	disarm
	_l="row=$_row rc=$_rc sends=$_s fuse_rt=$_f poll_rt=$_p"
	# all round trips per SEND, and those of the ioctls alone (how many
	# polls a request takes depends on whether its answer is already
	# there, i.e. on timing)
	[ "$_s" -gt 0 ] && _l="$_l $(awk -v f="$_f" -v p="$_p" -v s="$_s" 'BEGIN {
		printf "rt_per_send=%.2f ioctl_rt_per_send=%.2f", f / s, (f - p) / s }')"
	echo "$_l" | tee -a $RES | sed 's/^/    /'
	if [ "$_rc" = 0 ] && [ "$_s" -gt 0 ]; then pass "$_row"; else fail "$_row"; fi
}
oneshot() {	# DEV
	for _i in $(seq "$NONE"); do
		ipmitool -I open -d "$1" raw 6 1 >/tmp/os.out 2>&1 || return 1
	done
	grep -q '^ 20 ' /tmp/os.out
}
for n in 1; do
	say "node ipmi$n"
	row "oneshot-ipmi$n" ipmitool oneshot $n
	row "longlived-ipmi$n" kcsmux-ipmi-pro kcsmux-ipmi-probe -d /dev/ipmi$n -n "$NLONG" -k
done
echo >$T/kprobe_events
_l=$(wc -l </tmp/kcsmuxd.log)
kill -USR1 $dpid
sleep 0.5
tail -n +$((_l + 1)) /tmp/kcsmuxd.log | tee /out/oneshot-daemon.txt | sed 's/^/    /'
kill $dpid
wait $dpid
summary
