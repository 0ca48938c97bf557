/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcsmuxd.h - the whole daemon for main (kcsmuxd.c, and the tests that
 * build a daemon): the core's daemon and nodes (core/core.h), transactions
 * (core/xact.h), the CUSE front end (cuse/cuse.h), the configuration and
 * its reload. The layers include only their own headers and the ones
 * below them, never this one (docs/design.md, tests/layers.sh).
 */
#ifndef KCSMUX_KCSMUXD_H
#define KCSMUX_KCSMUXD_H

#include "control/control.h"
#include "config/config.h"
#include "core/core.h"
#include "core/xact.h"
#include "cuse/cuse.h"
#include "util/log.h"

/* reload.c (control/control.h): daemon_reload, daemon_reload_done */

#endif /* KCSMUX_KCSMUXD_H */
