# BMC profiles: what clients see when the BMC misbehaves at the message
# level, on stock ipmi_si (MODE=stock) or kcsraw + kcsmuxd (MODE=kcsmux).
# Run by tests/vm/bmc-profiles.sh, which gives the delay proxy one --on rule
# per profile (docs/bmc-proxy.md, "A misbehaving BMC"), fired here with an
# OEM request through the interface itself:
#
#   0x30:0x20  silence A_MS     a: the BMC silent while the driver loads
#   0x30:0x21  silence B_MS     b: the same, longer than stock's retries
#   0x30:0x22  silence C_MS     c: an outage while 3 clients send requests
#   0x30:0x23  wrong 06:01 x3   d: Get Device ID answered with cmd + 1 ...
#   0x30:0x24  wrong 06:01 x1   d: ... and once with netfn + 2
#   0x30:0x25  busy E_MS 0xc0   e1: "node busy" while 3 clients send
#   0x30:0x26  busy E_MS 0xd2   e2: "initializing" while the driver loads
#   0x30:0x27  answer 06:01     i: Get Device ID answered with a newer
#                               firmware revision (a firmware update) ...
#   0x30:0x29  answer off 06:01 i: ... and the old one again
#   0x30:0x28  busy K_MS 0xc0   k: busy while kcsmuxd starts (channel scan)
#
# At the register level, which neither QEMU's KCS nor the proxy can play,
# kcsraw's fault injection (fault_inject=1, /sys/kernel/debug/kcsraw/faults,
# docs/kcsraw.md) plays, in MODE=kcsmux only (stock ipmi_si has none):
#
#   f   status 0xff for F_MS under three clients (a BMC resetting)
#   g   IBF stuck for G_MS under three clients (a BMC that stopped taking bytes)
#   h   OBF never comes for G_MS under three clients (an answer that never comes)
#
# and, on both, w: a watchdog pre-timeout flag left in the BMC while no
# driver ran (the BMC's own timer, set through the interface), then the
# driver loaded with ipmi_watchdog preop=preop_panic waiting for it: the
# flag is cleared at the start, the host does not panic (wdt_profile);
# m: maintenance mode after a Cold Reset from one node (maint_profile);
# and in MODE=kcsmux only, where the daemon does what the msghandler does
# on stock: i: the BMC's identity changes (ident_profile: the channels are
# scanned again, as stock's __bmc_get_device_id does); k: the daemon's
# channel scan meets a busy BMC (scan_profile: the channels that said "not
# now" are asked again 5 s later; stock leaves them unknown, so IPMB
# requests to them fail with EINVAL until the identity changes).
#
# A silence started by a rule spares its trigger, so the trigger's sender
# gets its answer (ipmi_sim's 0xC1). The rule fires as the trigger reaches
# the BMC, and its answer is back within milliseconds, while the time from
# sending to that moment is the queue in front of it (up to a second with
# three clients on one vCPU): the misbehaviour's start is taken when the
# trigger's answer is back (trigger_ms is the whole round trip, the most
# the true start can be earlier). A load profile takes
# the interface down right after the trigger and brings it up into the
# silence. Results go to /out/profiles.txt as "PROFILE.KEY VALUE" lines
# (bmc-profiles.sh prints them as a table, stock and kcsmux side by side);
# the per-request logs of the clients to /out/PROFILE-clientN.log.
#
# Assertions: MODE=stock asserts the stock facts that are stable (see
# docs/real-bmc-stock.md); MODE=kcsmux asserts what kcsmux must do better
# (12 s and 30 s silent at load: serves afterwards; the outage: each
# request answered, with an error, within KCSMUX_TIMEOUT_MS +
# KCSMUX_PROBE_MS; kcsraw sees the BMC within HOLD_MS of its return, and
# every client is answered again within 2 s of that (for c, and for the
# port faults f, g and h after a probe finds the BMC again): QEMU's KCS holds the
# last request the silence swallowed for up to 4 s, so how long after the
# return the KCS can answer depends on where the 4 s cycles of swallowed
# requests fall, not on kcsmux).
. /guest/lib.sh

MODE=${MODE:-stock}
PROFILES=${PROFILES:-"d e1 c a b e2 w m"}
A_MS=${A_MS:-12000} B_MS=${B_MS:-30000} C_MS=${C_MS:-60000} E_MS=${E_MS:-10000}
F_MS=${F_MS:-20000} G_MS=${G_MS:-6000} K_MS=${K_MS:-5000}
LOOP_MS=${LOOP_MS:-100}		# a client's pause between requests
LOOP_S=$(awk -v m="$LOOP_MS" 'BEGIN { printf "%.3f", m / 1000 }')
CLIENT_TIMEOUT_MS=${CLIENT_TIMEOUT_MS:-15000}	# ipmitool's wait
FULL_MS=${FULL_MS:-4000}	# a full BMC timeout here: QEMU's 0xC3 timer
GRACE_MS=${GRACE_MS:-3000}	# after the BMC answers again, to come up
# How long after a silence's end the KCS can first answer: QEMU holds the
# last request the silence swallowed until its 4 s timer (IBF set, nothing
# taken), then kcsraw's next probe (1 s interval, 3 waits of 500 ms) runs.
HOLD_MS=${HOLD_MS:-$((FULL_MS + 1000 + 1500))}
PRE_MS=${PRE_MS:-2000}		# clients running before the trigger
POST_MS=${POST_MS:-$((HOLD_MS + 2000))}	# and after the BMC's return (c; e1: 3000)
KCSMUX_TIMEOUT_MS=${KCSMUX_TIMEOUT_MS:-4000}
KCSMUX_PROBE_MS=${KCSMUX_PROBE_MS:-1000}
# After a port fault (f, g, h): a probe under way at its end may still give
# up (timeout), the next comes a probe interval later; then 2 s for the
# clients.
FAULT_POST_MS=${FAULT_POST_MS:-$((KCSMUX_TIMEOUT_MS + KCSMUX_PROBE_MS + 2000))}
KCSRAW_ARGS=${KCSRAW_ARGS:-"ibf_timeout_ms=1000 obf_timeout_ms=1000 max_retries=1 fault_inject=1"}
FAULTS=/sys/kernel/debug/kcsraw/faults
KSYS=/sys/class/misc/kcsraw0
RES=/out/profiles.txt
mkdir -p /out
# This script reads the clock when a trigger's answer is back: it runs
# ahead of the clients (which, and the daemon, run at the default 0), so
# that it reads the clock when the answer is there, not when three
# clients on one vCPU let it.
renice -10 $$ >/dev/null
: >"$RES"

# The clock: /proc/uptime (10 ms steps), read without starting a process, so
# that a client's loop costs one process per request, the request's own.
now_ms() {
	read -r _u _ </proc/uptime
	echo $((${_u%.*} * 1000 + 1${_u#*.} * 10 - 1000))
}
rec() { echo "$1 $2" >>"$RES"; echo "   $1 = $2"; }
sleep_ms() { sleep "$(awk -v m="$1" 'BEGIN { printf "%.3f", (m > 0 ? m : 0) / 1000 }')"; }
sleep_until() { sleep_ms $(($1 - $(now_ms))); }

# ---- driver hooks: MODE_up, MODE_down, MODE_dev I, MODE_ready -----------
# MODE_up: bring the interface up on $KCS1_PORT; its status is the load's
#   (output in /tmp/up.log); it may come up later (MODE_ready says when).
# MODE_down: take it away again.
# MODE_dev I: the device node client I uses (0: the trigger; 1-3: clients).
# MODE_ready: 0 when every client's device node is there.

stock_up() {
	modprobe ipmi_devintf &&
		modprobe ipmi_si type=kcs ports="$KCS1_PORT" tryacpi=0 \
			trydmi=0 tryplatform=0 trypci=0
}
stock_down() { rmmod ipmi_si 2>/dev/null; true; }
stock_dev() {
	for _d in /dev/ipmi[0-9]*; do
		[ -c "$_d" ] && { echo "$_d"; return 0; }
	done
	echo /dev/ipmi0
}
stock_ready() { [ -c "$(stock_dev 0)" ]; }

# kcsmux: kcsraw on the KCS (polled or with $KCS1_IRQ), kcsmuxd with four
# nodes, ipmi1 for the trigger and ipmi2-4 for the clients. The helper that
# teaches kcsraw and kcsmuxd to survive a real BMC fills in what they need
# (module parameters, daemon keys); the profiles stay as they are.
kcsmux_up() {
	modprobe cuse
	mkdir -p /etc/kcsmux
	kcsmux_conf <<'CONF'
[node ipmi1]
policy = interactive
[node ipmi2]
policy = normal
[node ipmi3]
policy = normal
[node ipmi4]
policy = normal
CONF
	_rc=0
	# KCS timeouts that give a transaction up (kcsraw's hosed answer,
	# then its probe each second) before QEMU's own 0xC3 after 4 s:
	# within KCSMUX_TIMEOUT_MS, as a real BMC's silent KCS would be.
	# shellcheck disable=SC2086
	if [ "${KCS1_IRQ:-0}" != 0 ]; then
		load_kcsraw ports="$KCS1_PORT" irqs="$KCS1_IRQ" $KCSRAW_ARGS || _rc=$?
	else
		load_kcsraw ports="$KCS1_PORT" $KCSRAW_ARGS || _rc=$?
	fi
	kcsmuxd -f >>/tmp/kcsmuxd.log 2>&1 &
	kcsmux_pid=$!
	renice 0 "$kcsmux_pid" >/dev/null	# as a service runs it
	return $_rc
}
kcsmux_down() {
	[ -n "${kcsmux_pid:-}" ] && kill "$kcsmux_pid" 2>/dev/null &&
		wait "$kcsmux_pid" 2>/dev/null
	kcsmux_pid=""
	rmmod kcsraw 2>/dev/null
	true
}
kcsmux_dev() { echo "/dev/ipmi$(($1 + 1))"; }
kcsmux_ready() {
	for _i in 0 1 2 3; do
		[ -c "$(kcsmux_dev $_i)" ] || return 1
	done
}

drv_up() { "${MODE}_up" >/tmp/up.log 2>&1; }
drv_down() { "${MODE}_down"; }
drv_dev() { "${MODE}_dev" "$1"; }
drv_ready() { "${MODE}_ready"; }
# ensure_up: the interface serving (a profile may have left it down)
ensure_up() {
	drv_ready && return 0
	drv_down
	drv_up
	for _i in $(seq 50); do
		drv_ready && return 0
		sleep 0.1
	done
	fail "$MODE: the interface did not come up with a healthy BMC"
	return 1
}

# ---- clients ---------------------------------------------------------------
# classify FILE: a request's outcome in $outcome, one word (ok, cc:XX,
# timeout, bad, errno:TEXT), from the probe's first line of output: its
# first error (stderr, unbuffered) or, if none, its summary (stdout, at
# exit), after the -v lines. Shell only: no process started.
classify() {
	_l=""
	while read -r _l; do	# -v lines (request) come first: skip them
		case $_l in msgid=*) _l="" ;; *) break ;; esac
	done <"$1"
	case $_l in
	"probe:"*" ok=1 "*) outcome=ok ;;
	*"completion code 0x"*) outcome="cc:${_l##*0x}" ;;
	*"no response within"*) outcome=timeout ;;
	*"bad response"*) outcome=bad ;;
	*)	_l=${_l##*: }
		outcome="errno:"
		for _w in $_l; do outcome="${outcome}${_w}_"; done ;;
	esac
}
# request DEV [NETFN CMD]: one request, verbose output in /tmp/req.out
request() {
	kcsmux-ipmi-probe -d "$1" -n 1 -r "${2:-0x06} ${3:-0x01}" -k -v \
		--allow-errors --timeout "$CLIENT_TIMEOUT_MS" >/tmp/req.out 2>&1
	classify /tmp/req.out
	echo "$outcome"
}
# trigger CMD: fire the proxy's rule 0x30:CMD through client 0's device
# (nothing else: the caller reads the clock as soon as it returns)
trigger() {
	kcsmux-ipmi-probe -d "$(drv_dev 0)" -n 1 -r "0x30 $1" -k \
		--allow-errors --timeout "$CLIENT_TIMEOUT_MS" >/tmp/trigger.out 2>&1
}
# client_loop I LOG: client I's requests until /tmp/stop, one line each:
# "SENT_MS DONE_MS OUTCOME"
client_loop() {
	while [ ! -e /tmp/go ]; do sleep 0.05; done
	while [ ! -e /tmp/stop ]; do
		_t0=$(now_ms)
		kcsmux-ipmi-probe -d "$(drv_dev "$1")" -n 1 -k --allow-errors \
			--timeout "$CLIENT_TIMEOUT_MS" >"/tmp/cl$1.out" 2>&1
		_t1=$(now_ms)
		classify "/tmp/cl$1.out"
		echo "$_t0 $_t1 $outcome" >>"$2"
		sleep "$LOOP_S"
	done
}
clients_start() {	# NAME
	rm -f /tmp/stop /tmp/go
	cpids=""
	for _i in 1 2 3; do
		: >"/out/$1-client$_i.log"
		client_loop "$_i" "/out/$1-client$_i.log" &
		cpids="$cpids $!"
		renice 0 "$!" >/dev/null	# clients at the default priority
	done
	: >/tmp/go
}
clients_stop() {
	: >/tmp/stop
	# a request may wait up to CLIENT_TIMEOUT_MS: give them that long
	for _i in $(seq $((CLIENT_TIMEOUT_MS / 100 + 20))); do
		_alive=0
		for _p in $cpids; do kill -0 "$_p" 2>/dev/null && _alive=1; done
		[ $_alive = 0 ] && break
		sleep 0.1
	done
	for _p in $cpids; do kill "$_p" 2>/dev/null; done
	# shellcheck disable=SC2086
	wait $cpids 2>/dev/null
}
# analyse LOG T0 TRET [TSURE]: one line of KEY=VALUE about a client's requests
# around an outage that began at T0 and ended at TRET (ms):
#   first_err_ms  from T0 to the end of its first failed request after T0
#   max_wait_ms   longest request that overlapped [T0, TRET]
#   full          requests that overlapped it and waited >= FULL_MS
#   errs          failed requests after T0, by outcome (e.g. cc:c3x7)
#   ok_during     requests sent after T0 and answered ok by TSURE (default
#                 TRET): the end of the time the BMC surely misbehaved
#                 (see clients_profile)
#   recover_ms    from TSURE to the end of its first ok request after it
#   recover_seen_ms  the same request's end from TSEEN (default TSURE),
#                 when kcsraw saw the BMC again, or from the end of the
#                 client's request that was in flight then and failed (it
#                 was sent into the fault; its wait is max_wait_ms's): 0 if
#                 it ended before (the watcher looks every 50 ms)
analyse() {
	awk -v t0="$2" -v tr="$3" -v ts="${4:-$3}" -v tseen="${5:-${4:-$3}}" \
		-v full="$FULL_MS" '
	BEGIN { tfree = tseen }
	{ s = $1; e = $2; o = $3; w = e - s }
	s < tseen && e > tseen && o != "ok" { tfree = e }
	e > t0 && s <= tr { if (w > maxw) maxw = w; if (w >= full) nfull++ }
	e > t0 && o != "ok" { if (fe == "") fe = e - t0; kinds[o]++ }
	o == "ok" && s >= t0 && e <= ts { okd++ }
	o == "ok" && e > ts && rec == "" { rec = e - ts; recs = e - tfree }
	END {
		ks = ""
		for (k in kinds) ks = ks (ks == "" ? "" : ",") k "x" kinds[k]
		if (rec != "" && recs < 0) recs = 0
		printf "first_err_ms=%s max_wait_ms=%d full=%d errs=%s ok_during=%d recover_ms=%s recover_seen_ms=%s\n",
			fe == "" ? "none" : fe, maxw, nfull, ks == "" ? "none" : ks,
			okd, rec == "" ? "none" : rec, rec == "" ? "none" : recs
	}' "$1"
}
bmc_up() { grep -q '^up' "$KSYS/bmc" 2>/dev/null; }	# kcsraw sees the BMC
# seen_watch FILE: in the background, the time (now_ms) kcsraw next turns
# from another state to "up" (it saw the BMC again), written to FILE; it
# gives up when clients_stop makes /tmp/stop.
seen_watch() {
	: >"$1"
	(
		while bmc_up && [ ! -e /tmp/stop ]; do sleep 0.05; done
		while ! bmc_up && [ ! -e /tmp/stop ]; do sleep 0.05; done
		[ -e /tmp/stop ] || now_ms >"$1"
	) &
	seen_pid=$!
}
kv() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# ---- profiles --------------------------------------------------------------

# load_profile NAME TRIGGER DUR_MS: the BMC falls silent (or busy) for
# DUR_MS, the interface is taken down and brought up into it; then, once
# the BMC is back (plus GRACE_MS to come up), 30 requests.
load_profile() {
	_n=$1 _trig=$2 _dur=$3
	say "$_n: the BMC misbehaves for $_dur ms while $MODE loads"
	ensure_up || return 1
	dmesg -c >/dev/null
	_t0=$(now_ms)
	trigger "$_trig"
	_t1=$(now_ms)
	drv_down
	_tl=$(now_ms)
	drv_up
	_up_rc=$?
	_tu=$(now_ms)
	_tr=$((_t1 + _dur))
	rec "$_n.load_rc" "$_up_rc"
	rec "$_n.load_ms" $((_tu - _tl))
	rec "$_n.misbehaving_after_load_ms" $((_tr - _tl))
	rec "$_n.trigger_ms" $((_t1 - _t0))
	# Up to HOLD_MS + GRACE_MS after the BMC's return for the nodes to
	# appear. kcsraw (sysfs bmc "up") sees the BMC as soon as the KCS can
	# answer, which QEMU delays by up to HOLD_MS: kcsmux is judged from
	# that moment (ready_after_seen), the emulator's part apart (seen).
	_ready=none _seen=none
	while :; do
		_now=$(now_ms)
		if [ "$_seen" = none ] && bmc_up; then
			_seen=$((_now - _tr))
		fi
		if drv_ready; then
			_ready=$(($(now_ms) - _tr))
			break
		fi
		[ "$_now" -ge $((_tr + HOLD_MS + GRACE_MS)) ] && break
		sleep 0.1
	done
	[ "$_seen" != none ] && [ "$_seen" -lt 0 ] && _seen=0
	[ "$_ready" != none ] && [ "$_ready" -lt 0 ] && _ready=0
	[ "$(now_ms)" -lt "$_tr" ] && sleep_until "$_tr"
	if [ "$MODE" = kcsmux ]; then
		rec "$_n.bmc_seen_after_return_ms" "$_seen"
		[ "$_seen" != none ] && [ "$_ready" != none ] &&
			rec "$_n.ready_after_seen_ms" $((_ready - _seen))
	fi
	rec "$_n.ready_after_return_ms" "$_ready"
	_served=0
	if [ "$_ready" != none ]; then
		kcsmux-ipmi-probe -d "$(drv_dev 1)" -n 30 -k --allow-errors \
			--timeout "$CLIENT_TIMEOUT_MS" >/tmp/served.out 2>&1
		_served=$(sed -n 's/.* ok=\([0-9]*\) .*/\1/p' /tmp/served.out)
	fi
	rec "$_n.served_of_30" "${_served:-0}"
	dmesg >"/out/$_n.dmesg"
	rec "$_n.retries_logged" "$(grep -c 'retry get bmc device id' "/out/$_n.dmesg")"
	_msg=$(grep -E -m 1 'no BMC|Unable to find|appears to be no BMC|not respond|kcsraw.*(BMC|ENODEV)' "/out/$_n.dmesg" |
		sed 's/^\[[ 0-9.]*\] //' | tr ' ' _)
	rec "$_n.kernel_says" "${_msg:-none}"
}

# clients_profile NAME TRIGGER DUR_MS POST_MS: three clients in a loop, the
# BMC misbehaves for DUR_MS in the middle; each client's view, until POST_MS
# after the BMC's return. The misbehaviour starts between the trigger's
# sending (_t0) and its answer (_t1): it surely lasts from _t1 to
# _t0 + DUR_MS, and "ok during" and the recovery count from there (an
# answer in the last trigger_ms before _t1 + DUR_MS may be the BMC's
# return, not a leak: stock 6.1 showed one per client once).
clients_profile() {
	_n=$1 _trig=$2 _dur=$3 _post=$4 _watch=${5:-}
	[ "$MODE" = kcsmux ] || _watch=""	# kcsraw's state: kcsmux only
	say "$_n: the BMC misbehaves for $_dur ms under three clients ($MODE)"
	ensure_up || return 1
	dmesg -c >/dev/null
	clients_start "$_n"
	sleep_ms "$PRE_MS"
	_t0=$(now_ms)
	[ -n "$_watch" ] && seen_watch /tmp/seen
	trigger "$_trig"
	_t1=$(now_ms)
	_tr=$((_t1 + _dur))
	_tsure=$((_t0 + _dur))
	rec "$_n.trigger_ms" $((_t1 - _t0))
	sleep_until $((_tr + _post))
	clients_stop
	dmesg >"/out/$_n.dmesg"
	_tseen=$_tsure
	if [ -n "$_watch" ]; then
		wait "$seen_pid" 2>/dev/null
		_s=$(cat /tmp/seen)
		[ -n "$_s" ] && [ "$_s" -gt "$_tsure" ] && _tseen=$_s
		rec "$_n.bmc_seen_after_return_ms" \
			"$([ -n "$_s" ] && echo $((_tseen - _tsure)) || echo none)"
	fi
	for _i in 1 2 3; do
		_a=$(analyse "/out/$_n-client$_i.log" "$_t1" "$_tr" "$_tsure" "$_tseen")
		for _k in first_err_ms max_wait_ms full errs ok_during recover_ms \
			${_watch:+recover_seen_ms}; do
			rec "$_n.client$_i.$_k" "$(kv "$_k" "$_a")"
		done
	done
}

# wrong_profile: Get Device ID answered with a wrong cmd (3 times) and a
# wrong netfn (once): what the client gets.
wrong_profile() {
	say "d: answers with a wrong cmd or netfn ($MODE)"
	ensure_up || return 1
	dmesg -c >/dev/null
	_dev=$(drv_dev 1)
	trigger 0x23
	for _i in 1 2 3 4; do
		_o=$(request "$_dev")
		_l=$(grep -m 1 '^msgid=' /tmp/req.out | sed 's/.*netfn=\(0x[0-9a-f]*\) cmd=\(0x[0-9a-f]*\).* data:\(.*\)/netfn=\1,cmd=\2,data=\3/' | tr -s ' ' | sed 's/= /=/' | tr ' ' .)
		rec "d.cmd$_i" "$_o"
		rec "d.cmd$_i.seen" "${_l:-none}"
	done
	trigger 0x24
	_o=$(request "$_dev")
	_l=$(grep -m 1 '^msgid=' /tmp/req.out | sed 's/.*netfn=\(0x[0-9a-f]*\) cmd=\(0x[0-9a-f]*\).* data:\(.*\)/netfn=\1,cmd=\2,data=\3/' | tr -s ' ' | sed 's/= /=/' | tr ' ' .)
	rec "d.netfn1" "$_o"
	rec "d.netfn1.seen" "${_l:-none}"
	rec "d.after" "$(request "$_dev")"
	dmesg >/out/d.dmesg
	_msg=$(grep -m 1 'incorrect response' /out/d.dmesg | sed 's/^\[[ 0-9.]*\] //' | tr ' ' _)
	rec "d.kernel_says" "${_msg:-none}"
}

# fault_profile NAME KIND MS POST_MS: three clients in a loop, kcsraw's
# port I/O plays fault KIND (ff, ibf, obf) for MS in the middle; each
# client's view until POST_MS after the fault's end, and what reached the
# state machine meanwhile: SMS_ATN taken (each would start a flag fetch),
# transactions started (the one that gave up, the probes), WRITE_STARTs
# written into the fault.
fault_profile() {
	_n=$1 _kind=$2 _dur=$3 _post=$4
	say "$_n: kcsraw's port I/O plays '$_kind' for $_dur ms under three clients"
	ensure_up || return 1
	[ -e "$FAULTS" ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	[ -w "$FAULTS" ] || { fail "$_n: no $FAULTS (fault_inject=1)"; return 1; }
	dmesg -c >/dev/null
	clients_start "$_n"
	sleep_ms "$PRE_MS"
	seen_watch /tmp/seen
	_a0=$(cat $KSYS/attn) _x0=$(cat $KSYS/transactions)
	_t1=$(now_ms)
	echo "$_kind $_dur" >"$FAULTS"
	_tr=$((_t1 + _dur))
	sleep_until "$_tr"
	_a1=$(cat $KSYS/attn) _x1=$(cat $KSYS/transactions)
	_f=$(cat "$FAULTS")
	rec "$_n.fault" "$(echo "$_f" | tr ' ' ,)"
	rec "$_n.attn_during" $((_a1 - _a0))
	rec "$_n.transactions_during" $((_x1 - _x0))
	rec "$_n.starts_during" "$(echo "$_f" | sed -n 's/.*starts=\([0-9]*\).*/\1/p')"
	rec "$_n.bmc_after" "$(tr ' ' , <$KSYS/bmc)"
	sleep_until $((_tr + _post))
	clients_stop
	rec "$_n.bmc_end" "$(cut -d' ' -f1 $KSYS/bmc)"
	dmesg >"/out/$_n.dmesg"
	# kcsraw's part (its probe finding the BMC again) apart from the
	# clients' (answered once kcsraw sees it), as in clients_profile.
	wait "$seen_pid" 2>/dev/null
	_s=$(cat /tmp/seen) _tseen=$_tr
	[ -n "$_s" ] && [ "$_s" -gt "$_tr" ] && _tseen=$_s
	rec "$_n.bmc_seen_after_return_ms" $((_tseen - _tr))
	for _i in 1 2 3; do
		_a=$(analyse "/out/$_n-client$_i.log" "$_t1" "$_tr" "$_tr" "$_tseen")
		for _k in first_err_ms max_wait_ms full errs ok_during recover_ms \
			recover_seen_ms; do
			rec "$_n.client$_i.$_k" "$(kv "$_k" "$_a")"
		done
	done
}

# wdt_profile: the BMC's watchdog set through the interface (pre-timeout
# by message interrupt after 3 s, a reset at 60 s: ipmi_sim runs no timer
# whose action is none), the driver taken away before the pre-timeout,
# so that its flag stays in the BMC; then ipmi_watchdog with
# preop=preop_panic, and the driver again (kcsraw with smi=1: the
# kernel's lane and flags machine). A flag not cleared at the start
# reaches ipmi_watchdog at the first SMS_ATN and panics the guest. The
# timer is stopped at the end.
WDT_SET="0x06 0x24 0x04 0x31 0x39 0x10 0x58 0x02"	# 60 s, pre-timeout 57 s before
WDT_STOP="0x06 0x24 0x04 0x00 0x00 0x10 0x58 0x02"	# action none: stops it
wdt_profile() {
	say "w: a stale watchdog pre-timeout flag, ipmi_watchdog preop_panic ($MODE)"
	ensure_up || return 1
	dmesg -c >/dev/null
	_dev=$(drv_dev 1)
	kcsmux-ipmi-probe -d "$_dev" -n 1 -r "$WDT_SET" -k --allow-errors \
		--timeout "$CLIENT_TIMEOUT_MS" >/tmp/req.out 2>&1
	classify /tmp/req.out
	rec "w.set_watchdog" "$outcome"
	rec "w.reset_watchdog" "$(request "$_dev" 0x06 0x22)"
	drv_down
	sleep 4		# the pre-timeout at 3 s
	modprobe ipmi_watchdog preaction=pre_int preop=preop_panic timeout=60 \
		pretimeout=10 >/tmp/wdt.log 2>&1
	rec "w.ipmi_watchdog_rc" "$?"
	_up_rc=0
	# kcsraw with smi=1: the kernel's lane, which ipmi_watchdog uses
	_smi=${KCSRAW_SMI-}
	KCSRAW_SMI=1
	drv_up || _up_rc=$?
	KCSRAW_SMI=$_smi
	rec "w.load_rc" "$_up_rc"
	for _i in $(seq 50); do drv_ready && break; sleep 0.1; done
	sleep 3		# SMS_ATN polled each 100 ms: a stale flag would be seen
	rec "w.alive" yes
	kcsmux-ipmi-probe -d "$(drv_dev 1)" -n 1 -r "0x06 0x25" -k -v --allow-errors \
		--timeout "$CLIENT_TIMEOUT_MS" >/tmp/req.out 2>&1
	# Get Watchdog Timer: the pre-timeout happened (running, cc 0)
	rec "w.watchdog_after" "$(sed -n 's/^msgid=.* data:\(.*\)/\1/p' /tmp/req.out | head -n 1 | tr -d ' ')"
	kcsmux-ipmi-probe -d "$(drv_dev 1)" -n 1 -r "$WDT_STOP" -k --allow-errors \
		--timeout "$CLIENT_TIMEOUT_MS" >/tmp/req.out 2>&1
	classify /tmp/req.out
	rec "w.stop_watchdog" "$outcome"
	dmesg >/out/w.dmesg
	drv_down
	rmmod ipmi_watchdog 2>/dev/null
	true
}

# maint_profile: a Cold Reset from client 1's node, then requests from
# another node, the maintenance mode ioctls, and a firmware-netfn request.
# Since 6.18 stock refuses every request with EBUSY for 30 s after a
# Cold or Warm Reset; kcsmux does on every kernel. SET_MAINTENANCE_MODE
# off ends it at once; a firmware request quiets the polling only.
maint_get() {
	kcsmux-ipmi-probe -d "$1" --maint get 2>&1 | sed -n 's/^maint: mode=//p'
}
maint_set() { kcsmux-ipmi-probe -d "$1" --maint "$2" >/dev/null 2>&1; echo $?; }
maint_profile() {
	say "m: maintenance mode after a Cold Reset ($MODE)"
	ensure_up || return 1
	dmesg -c >/dev/null
	_d1=$(drv_dev 1) _d2=$(drv_dev 2)
	rec "m.mode_before" "$(maint_get "$_d2")"
	rec "m.cold_reset" "$(request "$_d1" 0x06 0x02)"
	rec "m.other_node" "$(request "$_d2")"
	rec "m.same_node" "$(request "$_d1")"
	rec "m.mode_during" "$(maint_get "$_d2")"
	rec "m.set_off" "$(maint_set "$_d2" off)"
	rec "m.after_off" "$(request "$_d2")"
	rec "m.set_auto" "$(maint_set "$_d2" auto)"
	rec "m.firmware" "$(request "$_d1" 0x08 0x00)"
	rec "m.after_firmware" "$(request "$_d2")"
	rec "m.set_off2" "$(maint_set "$_d2" off)"
	maint_set "$_d2" auto >/dev/null
	rec "m.mode_end" "$(maint_get "$_d2")"
	if [ "$MODE" = kcsmux ]; then
		rec "m.daemon_log" "$(grep -c 'maintenance mode for' /tmp/kcsmuxd.log)"
	fi
}

# ident_profile: Get Device ID answered with firmware 2.16 instead of
# ipmi_sim's 2.15 from the trigger on (the proxy's answer rule), as after
# a firmware update; the daemon sees it in a client's answer and scans
# the channels again; bridged requests still go out; then the old one.
scans() { grep -c 'channel media 0-15' /tmp/kcsmuxd.log; }
# wait_scans N: up to 15 s for the daemon's Nth channel scan to end
wait_scans() {
	for _i in $(seq 150); do
		[ "$(scans)" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
fw_of() {	# the firmware revision in /tmp/req.out's Get Device ID answer
	sed -n 's/^msgid=.* data: *//p' /tmp/req.out | head -n 1 |
		awk '{ printf "%s.%s", $4, $5 }'
}
ident_profile() {
	say "i: the BMC's identity changes, a firmware update ($MODE)"
	ensure_up || return 1
	_d1=$(drv_dev 1)
	rec "i.before" "$(request "$_d1")"
	rec "i.fw_before" "$(fw_of)"
	_n0=$(scans)
	trigger 0x27
	rec "i.after" "$(request "$_d1")"
	rec "i.fw_after" "$(fw_of)"
	wait_scans $((_n0 + 1))
	rec "i.scans_after_change" $(($(scans) - _n0))
	_msg=$(grep -m 1 'BMC identity changed' /tmp/kcsmuxd.log | sed 's/.*BMC identity/BMC identity/' | tr ' ' _)
	rec "i.daemon_says" "${_msg:-none}"
	kcsmux-ipmi-probe -d "$_d1" -n 1 -t 0x72 -b 0 -k --allow-errors \
		--timeout "$CLIENT_TIMEOUT_MS" >/tmp/req.out 2>&1
	classify /tmp/req.out
	rec "i.bridged_after" "$outcome"
	trigger 0x29
	request "$_d1" >/dev/null
	wait_scans $((_n0 + 2))
	rec "i.fw_end" "$(request "$_d1" >/dev/null; fw_of)"
}

# scan_profile: kcsmuxd restarted into K_MS of 0xC0 (node busy): its
# channel scan hears "not now" from every channel; a bridged request to
# IPMB channel 0 is refused (EINVAL: the medium is unknown, as on stock);
# 5 s later the daemon asks again and the same request goes out.
scan_profile() {
	say "k: kcsmuxd's channel scan meets a busy BMC ($MODE)"
	ensure_up || return 1
	_n0=$(scans)
	_b0=$(grep -c 'Get Channel Info "not now"' /tmp/kcsmuxd.log)
	trigger 0x28
	kill "$kcsmux_pid" 2>/dev/null
	wait "$kcsmux_pid" 2>/dev/null
	kcsmuxd -f >>/tmp/kcsmuxd.log 2>&1 &
	kcsmux_pid=$!
	renice 0 "$kcsmux_pid" >/dev/null
	wait_scans $((_n0 + 1))
	rec "k.not_now" $(($(grep -c 'Get Channel Info "not now"' /tmp/kcsmuxd.log) - _b0))
	kcsmux-ipmi-probe -d "$(drv_dev 1)" -n 1 -t 0x72 -b 0 -k --allow-errors \
		--timeout "$CLIENT_TIMEOUT_MS" >/tmp/req.out 2>&1
	classify /tmp/req.out
	rec "k.bridged_before" "$outcome"
	_t=$(now_ms)
	wait_scans $((_n0 + 2))
	rec "k.rescan_after_ms" $(($(now_ms) - _t))
	rec "k.scans" $(($(scans) - _n0))
	kcsmux-ipmi-probe -d "$(drv_dev 1)" -n 1 -t 0x72 -b 0 -k --allow-errors \
		--timeout "$CLIENT_TIMEOUT_MS" >/tmp/req.out 2>&1
	classify /tmp/req.out
	rec "k.bridged_after" "$outcome"
}

# ---- assertions --------------------------------------------------------------
val() { sed -n "s/^$1 //p" "$RES" | tail -n 1; }
is() {	# DESC KEY VALUE: the recorded value is VALUE
	if [ "$(val "$2")" = "$3" ]; then pass "$1"; else fail "$1: $2 = '$(val "$2")', want '$3'"; fi
}
le_val() {	# DESC KEY MAX: the recorded value is a number <= MAX
	_v=$(val "$2")
	num "$1 ($2)" "$_v" || return 0
	if [ "$_v" -le "$3" ]; then pass "$1 ($_v <= $3)"; else fail "$1: $2 = $_v > $3"; fi
}
is_not() {	# DESC KEY VALUE
	if [ "$(val "$2")" != "$3" ] && [ -n "$(val "$2")" ]; then pass "$1"; else fail "$1: $2 = '$(val "$2")'"; fi
}

assert_stock() {	# PROFILE
	case $1 in
	a)	is "a: stock ipmi_si loads into a $A_MS ms silence" a.load_rc 0
		is "a: and serves 30 of 30 afterwards" a.served_of_30 30 ;;
	b)	is "b: stock ipmi_si gives up on a $B_MS ms silence: no device after the BMC's return" \
			b.ready_after_return_ms none ;;
	c)	for _i in 1 2 3; do
			is_not "c: client $_i gets an error in the outage" c.client$_i.first_err_ms none
			is "c: client $_i: no answer ok in the outage" c.client$_i.ok_during 0
			is_not "c: client $_i answered again after it" c.client$_i.recover_ms none
		done ;;
	d)	for _i in 1 2 3; do
			is "d: wrong cmd $_i: stock gives cc 0xff" d.cmd$_i cc:ff
		done
		is "d: wrong netfn: stock gives cc 0xff" d.netfn1 cc:ff
		is "d: the next answer is right" d.after ok ;;
	e1)	for _i in 1 2 3; do
			is_not "e1: client $_i sees the busy answers" e1.client$_i.first_err_ms none
			is_not "e1: client $_i answered again after" e1.client$_i.recover_ms none
		done ;;
	e2)	is "e2: stock ipmi_si gives up on 0xd2 at load at once: no device after" \
			e2.ready_after_return_ms none ;;
	w)	assert_wdt ;;
	m)	_kv=${KVER%%-*} _maj=${_kv%%.*} _min=${_kv#*.}
		_min=${_min%%.*}
		if [ "$_maj" -gt 6 ] || { [ "$_maj" = 6 ] && [ "$_min" -ge 18 ]; }; then
			is "m: stock $_kv refuses the next request after a Cold Reset (EBUSY)" \
				m.other_node errno:Device_or_resource_busy_
			is "m: SET_MAINTENANCE_MODE off ends it" m.after_off ok
		else
			is "m: stock $_kv answers the next request after a Cold Reset" m.other_node ok
		fi
		is "m: the mode is auto at the end" m.mode_end 0 ;;
	esac
}
assert_kcsmux() {	# PROFILE
	_bound=$((KCSMUX_TIMEOUT_MS + KCSMUX_PROBE_MS))
	case $1 in
	a|b)	_ms=$A_MS
		[ "$1" = b ] && _ms=$B_MS
		is "$1: kcsmux serves 30 of 30 after a $_ms ms silence at load" $1.served_of_30 30
		le_val "$1: kcsraw sees the BMC once QEMU's KCS can answer" $1.bmc_seen_after_return_ms "$HOLD_MS"
		le_val "$1: the nodes are up within $GRACE_MS ms of that" $1.ready_after_seen_ms "$GRACE_MS" ;;
	c)	le_val "c: kcsraw sees the BMC once QEMU's KCS can answer" c.bmc_seen_after_return_ms "$HOLD_MS"
		for _i in 1 2 3; do
			le_val "c: client $_i: no request waits longer than timeout + probe" c.client$_i.max_wait_ms "$_bound"
			le_val "c: client $_i answered again within 2 s of kcsraw seeing the BMC" c.client$_i.recover_seen_ms 2000
		done ;;
	d)	for _i in 1 2 3; do
			is "d: wrong cmd $_i: kcsmux gives cc 0xff, as stock" d.cmd$_i cc:ff
		done
		is "d: wrong netfn: kcsmux gives cc 0xff, as stock" d.netfn1 cc:ff
		is "d: the next answer is right" d.after ok
		_m=$(sed -n 's/.* mismatches=\([0-9]*\).*/\1/p' /sys/class/misc/kcsraw0/bmc)
		if [ "${_m:-0}" -ge 4 ]; then pass "d: kcsraw counted the wrong answers ($_m)"; else fail "d: kcsraw counted ${_m:-no} wrong answers, want >= 4"; fi ;;
	e1)	for _i in 1 2 3; do
			is_not "e1: client $_i sees the busy answers, as stock" e1.client$_i.first_err_ms none
			le_val "e1: client $_i answered again within 2 s of the end" e1.client$_i.recover_ms 2000
		done ;;
	e2)	is "e2: kcsmux serves 30 of 30 after $E_MS ms of 0xd2 at load (stock gives up)" e2.served_of_30 30
		le_val "e2: the nodes are up within $GRACE_MS ms of kcsraw seeing the BMC" e2.ready_after_seen_ms "$GRACE_MS" ;;
	f|g|h)	is "$1: no SMS_ATN taken from the faulted status (no flag fetch started)" $1.attn_during 0
		is "$1: the BMC is up again after it" $1.bmc_end up
		le_val "$1: kcsraw sees the BMC within timeout + probe of the end" $1.bmc_seen_after_return_ms "$_bound"
		for _i in 1 2 3; do
			is_not "$1: client $_i gets an error in the fault" $1.client$_i.first_err_ms none
			le_val "$1: client $_i: no request waits longer than timeout + probe" $1.client$_i.max_wait_ms "$_bound"
			le_val "$1: client $_i answered again within 2 s of kcsraw seeing the BMC" $1.client$_i.recover_seen_ms 2000
		done ;;
	w)	assert_wdt ;;
	m)	is "m: the maintenance mode is auto at first" m.mode_before 0
		is "m: kcsmux refuses another node's request after a Cold Reset (EBUSY)" \
			m.other_node errno:Device_or_resource_busy_
		is "m: ... and the resetting node's own" m.same_node errno:Device_or_resource_busy_
		is "m: GET_MAINTENANCE_MODE says auto meanwhile" m.mode_during 0
		is "m: SET_MAINTENANCE_MODE off" m.set_off 0
		is "m: off ends it: the next request is answered" m.after_off ok
		is "m: SET_MAINTENANCE_MODE auto" m.set_auto 0
		is "m: a firmware request does not refuse the next one" m.after_firmware ok
		is "m: the mode is auto at the end" m.mode_end 0
		is_not "m: the daemon logged the maintenance mode" m.daemon_log 0 ;;
	i)	is "i: Get Device ID before" i.before ok
		is_not "i: the firmware revision changed" i.fw_after "$(val i.fw_before)"
		is "i: the daemon scanned the channels again" i.scans_after_change 1
		is_not "i: and logged the change" i.daemon_says none
		is "i: a bridged request goes out after it" i.bridged_after ok
		is "i: the old identity at the end" i.fw_end "$(val i.fw_before)" ;;
	k)	is_not "k: the scan heard \"not now\"" k.not_now 0
		is "k: meanwhile IPMB channel 0 is unknown (EINVAL, as stock)" \
			k.bridged_before errno:Invalid_argument_
		is "k: the daemon asked again" k.scans 2
		is "k: then the bridged request goes out" k.bridged_after ok ;;
	esac
}
assert_wdt() {
	is "w: Set Watchdog Timer answered" w.set_watchdog ok
	is "w: Reset Watchdog Timer answered" w.reset_watchdog ok
	is "w: ipmi_watchdog preop_panic loaded" w.ipmi_watchdog_rc 0
	is "w: the driver loaded with the stale flag" w.load_rc 0
	is "w: no panic from the stale pre-timeout flag" w.alive yes
	is "w: the watchdog stopped at the end" w.stop_watchdog ok
}

say "BMC profiles on $MODE, kernel $KVER, $(nproc) vCPU: $PROFILES"
rec "mode" "$MODE"
rec "kernel" "$KVER"
rec "vcpus" "$(nproc)"
t_all=$(now_ms)
for p in $PROFILES; do
	_tp=$(now_ms)
	case $p in
	a) load_profile a 0x20 "$A_MS" ;;
	b) load_profile b 0x21 "$B_MS" ;;
	c) clients_profile c 0x22 "$C_MS" "$POST_MS" watch ;;
	d) wrong_profile ;;
	e1) clients_profile e1 0x25 "$E_MS" 3000 ;;
	e2) load_profile e2 0x26 "$E_MS" ;;
	f|g|h)	if [ "$MODE" != kcsmux ]; then
			say "$p: fault injection is kcsraw's: not run on $MODE"
			continue
		fi
		case $p in
		f) fault_profile f ff "$F_MS" "$FAULT_POST_MS" ;;
		g) fault_profile g ibf "$G_MS" "$FAULT_POST_MS" ;;
		h) fault_profile h obf "$G_MS" "$FAULT_POST_MS" ;;
		esac ;;
	w) wdt_profile ;;
	m) maint_profile ;;
	i|k)	if [ "$MODE" != kcsmux ]; then
			say "$p: the daemon's channel scan: not run on $MODE"
			continue
		fi
		if [ $p = i ]; then ident_profile; else scan_profile; fi ;;
	*) fail "unknown profile $p"; continue ;;
	esac
	rec "$p.profile_s" $((($(now_ms) - _tp) / 1000))
	"assert_$MODE" "$p"
done
rec "total_s" $((($(now_ms) - t_all) / 1000))
summary
