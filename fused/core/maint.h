/* SPDX-License-Identifier: GPL-2.0 */
/*
 * maint - the BMC's maintenance mode, as the stock message handler keeps it
 * for an interface (ipmi_msghandler.c since 6.18), kept once for the BMC:
 * a Cold or Warm Reset from any node resets the BMC for every node.
 *
 *   mode (IPMICTL_SET_MAINTENANCE_MODE_CMD): 0 auto (the default), 1 off,
 *   2 on. GET returns the mode.
 *   state: MAINT_OFF; MAINT_FIRMWARE (a firmware-netfn request, or mode
 *   on): no event polling, the BMC may be slow; MAINT_RESET (a Cold or
 *   Warm Reset): no event polling, and every request is refused with
 *   EBUSY while the BMC resets.
 *   In auto mode a trigger that went to the BMC (re)arms the state for
 *   MAINT_AUTO_NS, a reset outranking a firmware request; mode on holds
 *   MAINT_FIRMWARE, mode off MAINT_OFF, whatever the triggers.
 *
 * Pure logic: the caller gives the clock (CLOCK_MONOTONIC ns).
 */
#ifndef KCSMUX_CORE_MAINT_H
#define KCSMUX_CORE_MAINT_H

#include <stdbool.h>
#include <stdint.h>

#define MAINT_AUTO_NS (30ull * 1000000000ull) /* stock: 30 s */

enum maint_state {
	MAINT_OFF,
	MAINT_FIRMWARE,
	MAINT_RESET,
};

struct maint {
	int mode;	      /* 0 auto, 1 off, 2 on */
	int auto_state;	      /* the state auto mode armed */
	uint64_t until_ns;    /* ... until then */
	uint64_t entered;     /* auto states armed from MAINT_OFF */
	uint64_t refused;     /* requests refused (MAINT_RESET) */
	uint64_t quiet_ticks; /* event polls skipped */
};

void maint_init(struct maint *m);
/* A request that went to the BMC: netfn 0x08, or App Cold/Warm Reset,
 * arms auto mode's state. True when it was a trigger. */
bool maint_request(struct maint *m, uint8_t netfn, uint8_t cmd, uint64_t now);
/* The state now. */
enum maint_state maint_state(const struct maint *m, uint64_t now);
/* MAINT_RESET: refuse the request (counted). */
bool maint_refuse(struct maint *m, uint64_t now);
/* Any maintenance: no event polling. */
bool maint_quiet(const struct maint *m, uint64_t now);
/* SET_MAINTENANCE_MODE: 0, 1, 2 or -EINVAL. Off ends an auto state. */
int maint_set_mode(struct maint *m, int mode, uint64_t now);
/* The BMC is known to answer again after a reset (a firmware lease's
 * holder rode it through, core/leasegate.c): an auto state ends. */
void maint_reset_done(struct maint *m);
/* The ms left of an auto state, 0 when none (for status). */
uint64_t maint_left_ms(const struct maint *m, uint64_t now);

#endif
