/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcsmuxd.h - the whole daemon for what sits on top (main, admin/): the
 * core's daemon and nodes (core/core.h), transactions (core/xact.h) and the
 * CUSE front end (cuse/cuse.h), plus main's own calls. Layers below include
 * only their own headers and the ones below them (docs/design.md).
 */
#ifndef KCSMUX_KCSMUXD_H
#define KCSMUX_KCSMUXD_H

#include "control/reload.h"
#include "config/config.h"
#include "core/core.h"
#include "core/xact.h"
#include "cuse/cuse.h"
#include "util/log.h"

/* reload.c (control/reload.h): daemon_reload, daemon_reload_done */

#endif /* KCSMUX_KCSMUXD_H */
