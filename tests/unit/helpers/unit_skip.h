/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A Check suite whose precondition is missing (not root, no seccomp, no
 * IPv6 loopback) exits with this status and prints why: CTest reports the
 * test as skipped (SKIP_RETURN_CODE, tests/unit/CMakeLists.txt), never as
 * passed. Only whole suites are skipped; a case that cannot run is not left
 * in a suite that runs.
 */
#ifndef KCSMUX_UNIT_SKIP_H
#define KCSMUX_UNIT_SKIP_H

#define KCSMUX_TEST_SKIP 77

#endif
