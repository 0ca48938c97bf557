# CPack: two Debian packages from the install components (`cpack -G DEB` in
# a build configured with -DCMAKE_INSTALL_PREFIX=/usr; tests/packaging.sh
# builds them and runs lintian). No debian/ directory: the control data
# lives here and in fused/dist/deb/.
set(CPACK_PACKAGE_NAME kcsmux)
set(CPACK_PACKAGE_VENDOR "kcsmux")
set(CPACK_PACKAGE_CONTACT "kcsmux maintainers <kcsmux@example.org>")
set(CPACK_PACKAGE_VERSION ${KCSMUX_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_SET_DESTDIR ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL kcsmux dkms)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(KCSMUX_DEB_VERSION ${KCSMUX_VERSION}-1)

# kcsmux: the daemon and its CLI
set(CPACK_DEBIAN_KCSMUX_PACKAGE_NAME kcsmux)
set(CPACK_DEBIAN_KCSMUX_PACKAGE_SHLIBDEPS ON)
# libfuse3, libevent, libinih, libseccomp come from
# dpkg-shlibdeps; sysusers.d needs systemd-sysusers, the unit systemd.
set(CPACK_DEBIAN_KCSMUX_PACKAGE_DEPENDS "systemd, init-system-helpers (>= 1.52)")
# Suggests, not Recommends: hosts on backend = ipmidev keep ipmi_si and
# need no module (and kcsraw-dkms is inert until kcsmux-cutover apply).
set(CPACK_DEBIAN_KCSMUX_PACKAGE_SUGGESTS "kcsraw-dkms, ipmitool | freeipmi-tools")
set(CPACK_COMPONENT_KCSMUX_DESCRIPTION "share one IPMI KCS interface between many clients
kcsmuxd exposes several virtual /dev/ipmiN nodes (CUSE) that speak the
Linux IPMI ioctl interface, so ipmitool, FreeIPMI and OpenIPMI work
unmodified, and multiplexes them onto one KCS system interface. Each node
has its own polling policy, CPU budget, priority and access rules.
kcsmuxctl shows and changes them at run time.
.
The raw interface comes from the kcsraw kernel module (kcsraw-dkms), or
the stock ipmi_si driver can be used (backend = ipmidev).")

# kcsraw-dkms: the module's source for DKMS
set(CPACK_DEBIAN_DKMS_PACKAGE_NAME kcsraw-dkms)
set(CPACK_DEBIAN_DKMS_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_DKMS_PACKAGE_SECTION kernel)
set(CPACK_DEBIAN_DKMS_PACKAGE_DEPENDS "dkms (>= 2.1.0.0)")
# the running kernel's headers, by Debian's usual metapackage advice
set(CPACK_DEBIAN_DKMS_PACKAGE_RECOMMENDS
	"linux-headers-amd64 | linux-headers-generic | linux-headers")
set(CPACK_COMPONENT_DKMS_DESCRIPTION "raw IPMI KCS access module (kcsraw) source for DKMS
kcsraw.ko drives one IPMI KCS system interface with a per-transaction
polling policy and exposes it as /dev/kcsraw0 for kcsmuxd. This package
builds it for the installed kernels with DKMS. The ipmi_si blacklist
and loading kcsraw at boot take effect only with kcsmux-cutover apply
(package kcsmux), so a reboot before the cutover keeps ipmi_si.")

# Maintainer scripts, conffiles, and each package's copyright and
# changelog.Debian.gz in /usr/share/doc/PACKAGE.
set(_deb ${PROJECT_BINARY_DIR}/deb)
file(MAKE_DIRECTORY ${_deb}/kcsmux ${_deb}/kcsraw-dkms)
foreach(f postinst prerm postrm)
	file(COPY ${PROJECT_SOURCE_DIR}/fused/dist/deb/kcsmux.${f}
		DESTINATION ${_deb}/tmp FILE_PERMISSIONS OWNER_READ OWNER_WRITE
		OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
	file(RENAME ${_deb}/tmp/kcsmux.${f} ${_deb}/kcsmux/${f})
endforeach()
foreach(f postinst prerm)
	configure_file(${PROJECT_SOURCE_DIR}/fused/dist/deb/kcsraw-dkms.${f}.in
		${_deb}/kcsraw-dkms/${f} @ONLY FILE_PERMISSIONS OWNER_READ
		OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
		WORLD_EXECUTE)
endforeach()
file(WRITE ${_deb}/kcsmux/conffiles "/etc/kcsmux/kcsmux.conf\n")
set(CPACK_DEBIAN_KCSMUX_PACKAGE_CONTROL_EXTRA
	${_deb}/kcsmux/postinst ${_deb}/kcsmux/prerm ${_deb}/kcsmux/postrm
	${_deb}/kcsmux/conffiles)
set(CPACK_DEBIAN_DKMS_PACKAGE_CONTROL_EXTRA
	${_deb}/kcsraw-dkms/postinst ${_deb}/kcsraw-dkms/prerm)
if(DEFINED ENV{SOURCE_DATE_EPOCH})
	string(TIMESTAMP KCSMUX_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
else()
	string(TIMESTAMP KCSMUX_DEB_DATE "%a, %d %b %Y 00:00:00 +0000" UTC)
endif()
foreach(p kcsmux kcsraw-dkms)
	set(CPACK_PACKAGE_NAME_ ${p})
	configure_file(${PROJECT_SOURCE_DIR}/fused/dist/deb/changelog.in
		${_deb}/${p}/changelog.Debian @ONLY)
	add_custom_command(OUTPUT ${_deb}/${p}/changelog.Debian.gz
		COMMAND ${GZIP} -9nf ${_deb}/${p}/changelog.Debian
		COMMAND ${CMAKE_COMMAND} -E touch ${_deb}/${p}/changelog.Debian.gz
		DEPENDS ${_deb}/${p}/changelog.Debian VERBATIM)
endforeach()
add_custom_target(deb_changelogs ALL DEPENDS ${_deb}/kcsmux/changelog.Debian.gz
	${_deb}/kcsraw-dkms/changelog.Debian.gz)
install(FILES fused/dist/deb/copyright ${_deb}/kcsmux/changelog.Debian.gz
	DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/kcsmux COMPONENT kcsmux)
install(FILES fused/dist/deb/copyright ${_deb}/kcsraw-dkms/changelog.Debian.gz
	DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/kcsraw-dkms COMPONENT dkms)
foreach(p kcsmux kcsraw-dkms)
	configure_file(${PROJECT_SOURCE_DIR}/fused/dist/deb/lintian-overrides
		${_deb}/${p}/lintian/${p} COPYONLY)
endforeach()
install(FILES ${_deb}/kcsmux/lintian/kcsmux
	DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides COMPONENT kcsmux)
install(FILES ${_deb}/kcsraw-dkms/lintian/kcsraw-dkms
	DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides COMPONENT dkms)
include(CPack)
