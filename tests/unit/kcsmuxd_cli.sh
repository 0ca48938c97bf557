#!/bin/sh
# kcsmuxd's command line on the host (no CUSE, no module needed):
#  - `-n` checks the file, not the machine: a node named after an existing
#    /dev entry passes (a running daemon's own nodes exist), `-n --live`
#    refuses it as the start would;
#  - `-n` finds what only the start would: a metrics textfile in a
#    directory that does not exist; it warns on a metrics listener off
#    loopback and not on one on it;
#  - without -f, a daemon that cannot open its backend exits non-zero with
#    the reason before it detaches;
#  - `-n` checks a file for another host: a user or group this host does
#    not have is a warning (the shipped example passes where the package is
#    not installed), `-n --live` and the start refuse it.
# Usage: kcsmuxd_cli.sh KCSMUXD SRC
set -u
KCSMUXD=$1
SRC=$2
T=$(mktemp -d /tmp/kcsmuxd-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# conf NAME TEXT: a configuration file T/NAME
conf() { printf '%s\n' "$2" >"$T/$1"; }
# run EXPECTED_STATUS ARGS...: kcsmuxd ARGS, output in T/out and T/err
run() {
	want=$1
	shift
	"$KCSMUXD" "$@" >"$T/out" 2>"$T/err"
	rv=$?
	[ "$rv" = "$want" ] ||
		fail "kcsmuxd $* exited $rv, expected $want: $(cat "$T/err")"
}
has() { grep -qF -- "$2" "$T/$1" || fail "no '$2' in $1: $(cat "$T/$1")"; }
hasnt() { ! grep -qF -- "$2" "$T/$1" || fail "'$2' in $1: $(cat "$T/$1")"; }

# /dev/null exists on every host: the name of a live node, as far as
# kcsmuxd -n can tell.
conf taken.conf "[global]
control_socket = $T/ctl.sock
[node null]
access = all"
run 0 -n -c "$T/taken.conf"
has out "configuration OK"
hasnt err "already exists"
run 1 -n --live -c "$T/taken.conf"
has err "/dev/null already exists"
run 2 --live -c "$T/taken.conf"
has err "--live goes with -n"

conf textfile.conf "[global]
metrics_textfile = $T/no-such-dir/kcsmux.prom
[node kcsmuxtest0]"
run 1 -n -c "$T/textfile.conf"
has err "directory $T/no-such-dir: No such file or directory"
mkdir "$T/no-such-dir"
run 0 -n -c "$T/textfile.conf"

conf open.conf "[global]
metrics_listen = 0.0.0.0:9730
[node kcsmuxtest0]"
run 0 -n -c "$T/open.conf"
has err "warning: metrics_listen 0.0.0.0:9730 is not a loopback address"
for lo in 127.0.0.1:9730 '[::1]:9730' localhost:9730; do
	conf lo.conf "[global]
metrics_listen = $lo
[node kcsmuxtest0]"
	run 0 -n -c "$T/lo.conf"
	hasnt err "warning"
done

# Users and groups of the target host, not this one.
conf users.conf "[global]
user = nosuchuser-kcsmux
admin_group = nosuchgroup-kcsmux
control_socket = $T/ctl.sock
device = $T/kcsraw0
[node kcsmuxtest0]
group = nosuchgroup-kcsmux"
run 0 -n -c "$T/users.conf"
has out "configuration OK"
has err "users.conf:2: warning: user: unknown user 'nosuchuser-kcsmux': not on this host"
has err "users.conf:3: warning: admin_group: unknown group"
has err "users.conf:7: warning: group: unknown group"
run 1 -n --live -c "$T/users.conf"
has err "users.conf:2: user: unknown user 'nosuchuser-kcsmux'"
hasnt err "warning"
run 1 -f -c "$T/users.conf"
has err "users.conf:2: user: unknown user 'nosuchuser-kcsmux'"
hasnt err "backend"
run 0 -n -c "$SRC/fused/dist/kcsmux.conf"
has out "configuration OK"

# No backend device: the foreground start and the detaching one both fail,
# the detaching one before it detaches, saying why.
conf nobackend.conf "[global]
device = $T/kcsraw0
control_socket = $T/ctl.sock
[node kcsmuxtest0]"
run 1 -f -c "$T/nobackend.conf"
has err "backend: $T/kcsraw0: No such file or directory"
run 1 -c "$T/nobackend.conf"
has err "backend: $T/kcsraw0: No such file or directory"

[ "$fails" = 0 ] && echo "kcsmuxd_cli: all passed"
[ "$fails" = 0 ]
