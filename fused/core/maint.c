// SPDX-License-Identifier: GPL-2.0
/*
 * maint.c - the BMC's maintenance mode (core/maint.h).
 */
#include <errno.h>
#include <string.h>

#include "core/maint.h"
#include "util/ipmi_msg.h"

#define MODE_AUTO 0
#define MODE_OFF  1
#define MODE_ON	  2

void maint_init(struct maint *m)
{
	memset(m, 0, sizeof(*m));
}

static int auto_state(const struct maint *m, uint64_t now)
{
	return now < m->until_ns ? m->auto_state : MAINT_OFF;
}

bool maint_request(struct maint *m, uint8_t netfn, uint8_t cmd, uint64_t now)
{
	int st;

	if (!ipmi_is_maint_trigger(netfn & 0x3e, cmd))
		return false;
	st = (netfn & 0x3e) == 0x08 ? MAINT_FIRMWARE : MAINT_RESET;
	if (auto_state(m, now) == MAINT_OFF) {
		m->auto_state = MAINT_OFF;
		if (m->mode == MODE_AUTO)
			m->entered++;
	}
	/* stock: the state rises in auto mode only; the time runs anyway */
	if (m->mode == MODE_AUTO && st > m->auto_state)
		m->auto_state = st;
	m->until_ns = now + MAINT_AUTO_NS;
	return true;
}

enum maint_state maint_state(const struct maint *m, uint64_t now)
{
	switch (m->mode) {
	case MODE_OFF:
		return MAINT_OFF;
	case MODE_ON:
		return MAINT_FIRMWARE;
	default:
		return (enum maint_state)auto_state(m, now);
	}
}

bool maint_refuse(struct maint *m, uint64_t now)
{
	if (maint_state(m, now) != MAINT_RESET)
		return false;
	m->refused++;
	return true;
}

bool maint_quiet(const struct maint *m, uint64_t now)
{
	return maint_state(m, now) != MAINT_OFF;
}

int maint_set_mode(struct maint *m, int mode, uint64_t now)
{
	(void)now;
	if (mode != MODE_AUTO && mode != MODE_OFF && mode != MODE_ON)
		return -EINVAL;
	/* stock: off ends the state; auto leaves a running one alone */
	if (mode == MODE_OFF)
		m->until_ns = 0;
	m->mode = mode;
	return 0;
}

void maint_reset_done(struct maint *m)
{
	m->until_ns = 0;
}

uint64_t maint_left_ms(const struct maint *m, uint64_t now)
{
	if (m->mode != MODE_AUTO || now >= m->until_ns)
		return 0;
	return (m->until_ns - now + 999999) / 1000000;
}
