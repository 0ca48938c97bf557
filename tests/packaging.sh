#!/bin/bash
# What `cmake --install` lays down works, and so do the Debian packages:
# every file in place, the systemd unit verifies, the example config passes
# kcsmuxd -n, the DKMS source tree builds kcsraw.ko with dkms.conf's own
# MAKE line; `cpack -G DEB` (tests/build-debs.sh) makes kcsmux and
# kcsraw-dkms with the right files, control data and maintainer scripts,
# and lintian finds nothing. (vm.pkg-admin installs them in a systemd guest.)
#   tests/packaging.sh BUILD_DIR
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"
build=${1:?usage: packaging.sh BUILD_DIR}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
DESTDIR=$dest cmake --install "$build" >/dev/null
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
root=$dest$prefix
# the version the build computed (fused/dist/version.cmake)
ver=$(sed -n 's/^#define KCSMUX_VERSION "\(.*\)"$/\1/p' "$build/include/kcsmux/version.h")
fails=0 passes=0
ok() { echo "PASS: $*"; passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
for f in sbin/kcsmuxd sbin/kcsmuxctl share/man/man5/kcsmux.conf.5.gz \
	share/man/man8/kcsmuxd.8.gz share/man/man8/kcsmuxctl.8.gz \
	share/man/man4/kcsraw.4.gz share/doc/kcsmux/examples/kcsmux.conf \
	lib/systemd/system/kcsmuxd.service lib/systemd/system/kcsmux-modules.service \
	lib/systemd/system/kcsmux-fallback.service lib/udev/rules.d/60-kcsmux.rules \
	share/kcsraw-dkms/cutover/modprobe.conf lib/modules-load.d/kcsmux.conf \
	share/kcsraw-dkms/cutover/modules-load.conf lib/sysusers.d/kcsmux.conf \
	sbin/kcsmux-cutover share/man/man8/kcsmux-cutover.8.gz share/doc/kcsmux/admin.md \
	share/doc/kcsmux/operating.md share/doc/kcsmux/metrics.md \
	share/bash-completion/completions/kcsmuxctl; do
	if [ -e "$root/$f" ]; then ok "installed $f"; else bad "missing $f"; fi
done
# DKMS looks in /usr/src only, whatever the prefix
for f in dkms.conf include/kcsmux/kcsraw.h Kbuild kcsraw_main.c; do
	if [ -e "$dest/usr/src/kcsraw-$ver/$f" ]; then
		ok "installed /usr/src/kcsraw-$ver/$f"
	else
		bad "missing /usr/src/kcsraw-$ver/$f"
	fi
done
if grep -qx "PACKAGE_VERSION=\"$ver\"" "$dest/usr/src/kcsraw-$ver/dkms.conf"; then
	ok "dkms.conf's PACKAGE_VERSION is the project's ($ver)"
else
	bad "dkms.conf's PACKAGE_VERSION is not $ver"
fi
if [ ! -e "$dest/etc/kcsmux/kcsmux.conf" ]; then
	ok "a /usr/local install does not write /etc/kcsmux/kcsmux.conf"
else
	bad "a /usr/local install wrote /etc/kcsmux/kcsmux.conf"
fi
for m in "$root"/share/man/man*/*; do
	if man --warnings -l "$m" >/dev/null 2>"$dest/man.err" && [ ! -s "$dest/man.err" ]; then
		ok "man page ${m##*/} renders without warnings"
	else
		bad "man page ${m##*/}: $(cat "$dest/man.err")"
	fi
done
if command -v systemd-analyze >/dev/null; then
	for u in kcsmuxd.service kcsmux-modules.service kcsmux-fallback.service; do
		sed "s|$prefix/sbin|$root/sbin|g" "$root/lib/systemd/system/$u" >"$dest/$u"
	done
	if systemd-analyze verify --man=no "$dest/kcsmuxd.service" "$dest/kcsmux-modules.service" \
		"$dest/kcsmux-fallback.service"; then
		ok "systemd-analyze verify kcsmuxd.service kcsmux-modules.service kcsmux-fallback.service"
	else
		bad "systemd-analyze verify kcsmuxd.service kcsmux-modules.service kcsmux-fallback.service"
	fi
fi
unit=$root/lib/systemd/system/kcsmuxd.service
for l in "ExecReload=$prefix/sbin/kcsmuxctl reload" "Requires=kcsmux-modules.service" \
	"ConditionPathExists=/etc/kcsmux/kcsmux.conf" "Type=notify" "DevicePolicy=closed" \
	"DeviceAllow=/dev/cuse rw" "DeviceAllow=/dev/kcsraw0 rw" \
	"OnFailure=kcsmux-fallback.service"; do
	if grep -qxF "$l" "$unit"; then ok "unit: $l"; else bad "unit lacks $l"; fi
done
# The example runs as user kcsmux, which the package creates (sysusers.d)
# and this host need not have: checked as nobody here.
sed 's/^user = kcsmux /user = nobody /' "$root/share/doc/kcsmux/examples/kcsmux.conf" >"$dest/example.conf"
if grep -q '^user = nobody ' "$dest/example.conf" &&
	"$root/sbin/kcsmuxd" -n -c "$dest/example.conf" | grep -qx 'configuration OK'; then
	ok "the example config passes kcsmuxd -n"
else
	bad "the example config fails kcsmuxd -n"
fi
for o in --help --version; do
	if "$root/sbin/kcsmuxd" "$o" >"$dest/o.txt" 2>&1 && [ -s "$dest/o.txt" ]; then
		ok "kcsmuxd $o"
	else
		bad "kcsmuxd $o: $(cat "$dest/o.txt")"
	fi
done
# DKMS: run dkms.conf's MAKE line the way dkms does (build = a copy of the
# source tree), against the guest kernel's headers.
kernel_source_dir=$("$KCSMUX_SRC/tests/vm/fetch-kernel.sh" --print-build-dir)
dkms_tree=$dest/dkms
mkdir -p "$dkms_tree/kcsraw/$ver"
cp -r "$dest/usr/src/kcsraw-$ver" "$dkms_tree/kcsraw/$ver/build"
# shellcheck disable=SC1090,SC2034
( PACKAGE_NAME= PACKAGE_VERSION= ; . "$dest/usr/src/kcsraw-$ver/dkms.conf"
  eval "${MAKE[0]}" ) >"$dest/dkms.log" 2>&1 || true
if [ -f "$dkms_tree/kcsraw/$ver/build/kcsraw.ko" ]; then
	ok "the DKMS tree builds kcsraw.ko with dkms.conf's MAKE"
	# KCSRAW_DKMS=1: the debug info DKMS would strip is not made for
	# kcsraw's objects (Kbuild's kcsraw.mod.o keeps its own) against
	# headers without vmlinux (no BTF from it); vm.pkg-admin@trixie checks
	# the module's BTF against 6.12's, which have one
	if [ -e "$kernel_source_dir/vmlinux" ]; then
		bad "$kernel_source_dir has a vmlinux: the check needs headers without"
	elif readelf -S "$dkms_tree/kcsraw/$ver/build/kcsraw_main.o" | grep -q '\.debug_info'; then
		bad "the DKMS build made debug info no BTF needs (KCSRAW_DKMS=1 missing)"
	else
		ok "the DKMS build makes no debug info against headers without vmlinux"
	fi
else
	cat "$dest/dkms.log"
	bad "the DKMS tree does not build"
fi

# The Debian packages.
if "$KCSMUX_SRC/tests/build-debs.sh" "$build" "$dest/debs" >"$dest/debs.txt" 2>&1; then
	ok "cpack -G DEB builds the packages"
else
	cat "$dest/debs.txt"
	bad "cpack -G DEB"
	echo "$passes passed, $fails failed"
	exit 1
fi
deb_k=$(ls "$dest"/debs/kcsmux_*-*_amd64.deb)
deb_d=$(ls "$dest"/debs/kcsraw-dkms_*-*_all.deb)
# the package tree's version (configured afresh: a commit since this
# build's configure moves it)
ver=$(dpkg-deb -f "$deb_k" Version)
ver=${ver%-*}
if [ "$(dpkg-deb -f "$deb_d" Version)" = "$ver-1" ]; then
	ok "both packages are version $ver-1"
else
	bad "kcsraw-dkms is $(dpkg-deb -f "$deb_d" Version), kcsmux $ver-1"
fi
dpkg-deb -c "$deb_k" | awk '{print $6}' | sed 's|^\./|/|' >"$dest/k.files"
dpkg-deb -c "$deb_d" | awk '{print $6}' | sed 's|^\./|/|' >"$dest/d.files"
for f in /usr/sbin/kcsmuxd /usr/sbin/kcsmuxctl /lib/systemd/system/kcsmuxd.service \
	/lib/systemd/system/kcsmux-modules.service /lib/systemd/system/kcsmux-fallback.service \
	/lib/udev/rules.d/60-kcsmux.rules /usr/lib/sysusers.d/kcsmux.conf \
	/lib/modules-load.d/kcsmux.conf /etc/kcsmux/kcsmux.conf \
	/usr/share/bash-completion/completions/kcsmuxctl \
	/usr/share/man/man8/kcsmuxd.8.gz /usr/share/man/man8/kcsmuxctl.8.gz \
	/usr/share/man/man5/kcsmux.conf.5.gz /usr/share/doc/kcsmux/copyright \
	/usr/share/man/man4/kcsraw.4.gz \
	/usr/sbin/kcsmux-cutover /usr/share/man/man8/kcsmux-cutover.8.gz \
	/usr/share/doc/kcsmux/admin.md /usr/share/doc/kcsmux/operating.md \
	/usr/share/doc/kcsmux/metrics.md /usr/share/kcsmux/prometheus/kcsmux.rules.yml \
	/usr/share/kcsmux/grafana/kcsmux.json; do
	if grep -qxF "$f" "$dest/k.files"; then ok "kcsmux has $f"; else bad "kcsmux lacks $f"; fi
done
for f in /usr/src/kcsraw-$ver/dkms.conf /usr/src/kcsraw-$ver/include/kcsmux/kcsraw.h \
	/usr/share/kcsraw-dkms/cutover/modprobe.conf \
	/usr/share/kcsraw-dkms/cutover/modules-load.conf \
	/usr/share/doc/kcsraw-dkms/copyright; do
	if grep -qxF "$f" "$dest/d.files"; then ok "kcsraw-dkms has $f"; else bad "kcsraw-dkms lacks $f"; fi
done
# Neither package blacklists ipmi_si or loads kcsraw at boot by itself:
# kcsmux-cutover apply does, once kcsmuxd takes over (a reboot between
# the install and the cutover must keep ipmi_si).
if ! grep -q 'modprobe.d\|modules-load.d/kcsraw' "$dest/k.files" "$dest/d.files"; then
	ok "no package blacklists ipmi_si or loads kcsraw at boot before the cutover"
else
	bad "a package ships a modprobe.d file or kcsraw in modules-load.d"
fi
if [ -z "$(dpkg-deb -f "$deb_k" Recommends)" ] &&
	dpkg-deb -f "$deb_k" Suggests | grep -q '\bkcsraw-dkms\b'; then
	ok "kcsmux Suggests kcsraw-dkms (backend = ipmidev hosts need no module)"
else
	bad "kcsmux Recommends: $(dpkg-deb -f "$deb_k" Recommends)"
fi
dpkg-deb -e "$deb_k" "$dest/k.ctl"
dpkg-deb -e "$deb_d" "$dest/d.ctl"
if grep -qx /etc/kcsmux/kcsmux.conf "$dest/k.ctl/conffiles"; then
	ok "/etc/kcsmux/kcsmux.conf is a conffile"
else
	bad "/etc/kcsmux/kcsmux.conf is not a conffile"
fi
dep=$(dpkg-deb -f "$deb_k" Depends)
for l in libfuse3-3 libevent-2.1-7 libinih1 libseccomp2 systemd; do
	if echo "$dep" | grep -q "\b$l\b"; then ok "kcsmux depends on $l"; else bad "kcsmux Depends lacks $l: $dep"; fi
done
if dpkg-deb -f "$deb_d" Depends | grep -q '\bdkms\b'; then
	ok "kcsraw-dkms depends on dkms"
else
	bad "kcsraw-dkms does not depend on dkms"
fi
if grep -q '/usr/lib/dkms/common.postinst kcsraw\|common.postinst "$NAME" "$VERSION"' "$dest/d.ctl/postinst" &&
	grep -q "VERSION=$ver" "$dest/d.ctl/postinst" && grep -q 'dkms remove' "$dest/d.ctl/prerm"; then
	ok "kcsraw-dkms's postinst/prerm call dkms for kcsraw/$ver"
else
	bad "kcsraw-dkms's maintainer scripts do not call dkms"
fi
if grep -q 'try-restart kcsmuxd.service' "$dest/k.ctl/postinst"; then
	ok "an upgrade restarts a running kcsmuxd (postinst)"
else
	bad "kcsmux's postinst does not restart kcsmuxd on upgrade"
fi
if grep -q '/usr/share/kcsraw-dkms/cutover/' "$dest/d.ctl/prerm"; then
	ok "removing kcsraw-dkms removes the cutover's blacklist links (prerm)"
else
	bad "kcsraw-dkms's prerm leaves the cutover's links"
fi
if [ -e "$build/kmod/kcsraw.ko" ]; then
	# the build tree's kcsraw.ko: the project's version (the DKMS build,
	# the packaged one, gets dkms.conf's, checked in vm.pkg-admin)
	pver=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
	if [ "$(modinfo -F version "$build/kmod/kcsraw.ko")" = "$pver" ]; then
		ok "kcsraw.ko's MODULE_VERSION is $pver"
	else
		bad "kcsraw.ko's version: $(modinfo -F version "$build/kmod/kcsraw.ko")"
	fi
fi
if command -v lintian >/dev/null; then
	if lintian --fail-on warning,error "$deb_k" "$deb_d" >"$dest/lintian.txt" 2>&1 &&
		! grep -E '^[EW]: ' "$dest/lintian.txt"; then
		ok "lintian: no error or warning"
	else
		sed 's/^/    /' "$dest/lintian.txt"
		bad "lintian"
	fi
else
	bad "lintian is not installed (tests/deps.sh)"
fi
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
