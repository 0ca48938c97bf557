# Helpers for guest scripts (busybox sh). Source with: . /guest/lib.sh
# shellcheck shell=sh

KVER=$(uname -r)
fails=0
passes=0

say() { echo "== $*"; }
pass() { passes=$((passes + 1)); echo "PASS: $*"; }
fail() { fails=$((fails + 1)); echo "FAIL: $*"; }

# check DESC CMD...: run CMD, pass if it exits 0.
check() {
	_d=$1
	shift
	if "$@"; then pass "$_d"; else fail "$_d (exit $?)"; fi
}

# num DESC VALUE...: true if every VALUE is a decimal number; else a FAIL
# naming DESC. Guard arithmetic and equality checks on values read from
# reports: a missing field must be a failure, not an arithmetic error that
# ends the script, nor two empty strings that compare equal.
num() {
	_d=$1
	shift
	for _v in "$@"; do
		case $_v in
		'' | *[!0-9]*)
			fail "$_d: '$_v' is not a number (values: $*)"
			return 1 ;;
		esac
	done
}

# expect DESC PATTERN FILE: pass if FILE has a line matching the ERE.
expect() {
	if grep -Eq -- "$2" "$3"; then
		pass "$1"
	else
		fail "$1: no line matching /$2/ in:"
		sed 's/^/    | /' "$3" | head -n 40
	fi
}

# run_to FILE CMD...: run CMD with stdout+stderr to FILE and echo it indented.
run_to() {
	_f=$1
	shift
	echo "\$ $*"
	"$@" >"$_f" 2>&1
	_rc=$?
	sed 's/^/    /' "$_f" | head -n "${SHOW_LINES:-25}"
	[ "$(wc -l <"$_f")" -le "${SHOW_LINES:-25}" ] ||
		echo "    ... ($(wc -l <"$_f") lines)"
	return $_rc
}

# load_stock PORT [PARAMS...]: stock ipmi_si on exactly one KCS interface,
# plus ipmi_devintf; waits for its /dev/ipmiN and prints that path.
load_stock() {
	_port=$1
	shift
	modprobe ipmi_devintf || return 1
	modprobe ipmi_si type=kcs ports="$_port" tryacpi=0 trydmi=0 \
		tryplatform=0 trypci=0 "$@" || return 1
	for _i in $(seq 50); do
		for _d in /dev/ipmi*; do
			[ -c "$_d" ] && { echo "$_d"; return 0; }
		done
		sleep 0.1
	done
	return 1
}

# load_stock_irq PORT IRQ: stock ipmi_si on PORT with IRQ, plus
# ipmi_devintf; prints its /dev/ipmiN. The 6.1 driver drops irqs= on its
# hardcoded (ports=) path ("irq 0" in dmesg, and kipmid starts), so the
# interface is added through the hotmod parameter, the only way to name one
# port with its IRQ.
load_stock_irq() {
	modprobe ipmi_devintf || return 1
	modprobe ipmi_si unload_when_empty=0 tryacpi=0 trydmi=0 tryplatform=1 \
		trypci=0 || return 1
	echo "add,kcs,i/o,$1,irq=$2" >/sys/module/ipmi_si/parameters/hotmod ||
		return 1
	for _i in $(seq 50); do
		for _d in /dev/ipmi[0-9]*; do
			[ -c "$_d" ] && { echo "$_d"; return 0; }
		done
		sleep 0.1
	done
	return 1
}

# load_kcsraw [PARAMS...]: insmod the project's module. It needs
# ipmi_msghandler's symbols (insmod does not resolve dependencies). The
# tests written before the kernel's lane run with smi=0, the
# /dev/kcsrawN-only mode, unless PARAMS name smi= or KCSRAW_SMI is set to
# the value to give it.
load_kcsraw() {
	modprobe ipmi_msghandler || return 1
	case " $* " in
	*" smi="*) insmod "/lib/modules/$KVER/extra/kcsraw.ko" "$@" ;;
	*) insmod "/lib/modules/$KVER/extra/kcsraw.ko" smi="${KCSRAW_SMI:-0}" "$@" ;;
	esac
}

# kcsmux_setup [IRQ]: kcsraw.ko on the first KCS with IRQ (default
# $KCS1_IRQ; "" for none: polled), cuse, and /etc/kcsmux; each a check.
kcsmux_setup() {
	_irq=${1-$KCS1_IRQ}
	if [ -n "$_irq" ]; then
		check "kcsraw on $KCS1_PORT" load_kcsraw ports="$KCS1_PORT" \
			irqs="$_irq"
	else
		check "kcsraw on $KCS1_PORT (no IRQ)" load_kcsraw ports="$KCS1_PORT"
	fi
	check "modprobe cuse" modprobe cuse
	mkdir -p /etc/kcsmux
}

# kcsmux_conf <TEXT: /etc/kcsmux/kcsmux.conf whose [global] section starts
# with backend kcsraw on /dev/kcsraw0 and goes on with TEXT (more [global]
# keys, then the [node ...] sections).
kcsmux_conf() {
	{
		printf '[global]\nbackend = kcsraw\ndevice = /dev/kcsraw0\n'
		cat
	} >/etc/kcsmux/kcsmux.conf
}

# listen NAME DEV ARGS...: kcsmux-ipmi-listen ARGS on DEV in the background
# (output in /tmp/NAME.out), once it is set up
listen() {
	_ln=$1 _ldev=$2
	shift 2
	rm -f "/tmp/$_ln.ready"
	kcsmux-ipmi-listen -d "$_ldev" -R "/tmp/$_ln.ready" -t 20000 "$@" \
		>"/tmp/$_ln.out" 2>&1 &
	eval "pid_$_ln=\$!"
	for _i in $(seq 100); do
		[ -e "/tmp/$_ln.ready" ] && return 0
		eval "kill -0 \$pid_$_ln" 2>/dev/null || break
		sleep 0.05
	done
	return 1
}
# finish NAME: wait for the listener, 0 if it got what it wanted
finish() { eval "wait \$pid_$1"; }
# lines NAME KIND: the listener's lines of that kind, msgid dropped
lines() { grep "^$2" "/tmp/$1.out" | sed 's/ msgid=[0-9-]*//'; }
same_lines() {	# WHAT A B KIND
	if [ -n "$(lines "$2" "$4")" ] &&
	   [ "$(lines "$2" "$4")" = "$(lines "$3" "$4")" ]; then
		pass "$1"
	else
		fail "$1:"
		echo "    $2: $(cat "/tmp/$2.out")"
		echo "    $3: $(cat "/tmp/$3.out")"
	fi
}

# summary: print the totals and return non-zero if anything failed.
# The kernel logged no WARNING, BUG, Oops or call trace since boot.
no_kernel_warnings() {
	dmesg >/tmp/dmesg.all
	if grep -E 'WARNING|BUG:|Oops|Call Trace' /tmp/dmesg.all >/tmp/warn; then
		fail "kernel warnings:"
		sed 's/^/    /' /tmp/warn | head -n 30
	else
		pass "no kernel WARNING, BUG or Oops"
	fi
}

summary() {
	echo "$passes passed, $fails failed"
	[ "$fails" = 0 ] && [ "$passes" -gt 0 ]
}

# port_up PORT: something listens on 127.0.0.1:PORT
port_up() { grep -q ":$(printf '%04X' "$1") 00000000:0000 0A" /proc/net/tcp; }

# collectd_conf DIR [INTERVAL]: /tmp/collectd.conf for collectd's ipmi
# plugin (OpenIPMI, always SMI interface 0) reading every INTERVAL s
# (default 2) into csv files under DIR/csv (named without a .csv suffix),
# its log in DIR/collectd.log (vm.agents, the agent benchmark).
collectd_conf() {
	mkdir -p /tmp/collectd
	cat >/tmp/collectd.conf <<EOF_CONF
Hostname "guest"
BaseDir "/tmp/collectd"
PIDFile "/tmp/collectd/collectd.pid"
PluginDir "/usr/lib/collectd"
TypesDB "/usr/share/collectd/types.db"
Interval ${2:-2}
LoadPlugin logfile
<Plugin logfile>
	LogLevel "info"
	File "$1/collectd.log"
	Timestamp true
</Plugin>
LoadPlugin ipmi
LoadPlugin csv
<Plugin csv>
	DataDir "$1/csv"
	StoreRates false
</Plugin>
EOF_CONF
}
