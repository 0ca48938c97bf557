// SPDX-License-Identifier: GPL-2.0
/*
 * cpumeter.c - the daemon's CPU per node: one thread CPU clock read per
 * boundary of a piece of work, the time between charged to the node whose
 * piece ran (cpumeter.h).
 */
#include "core/core.h"
#include "core/cpumeter.h"
#include "util/clock.h"

static uint64_t meter_read(struct cpu_meter *m)
{
	m->reads++;
	return m->clock ? m->clock() : thread_cpu_ns();
}

/* Charge what ran since the last boundary; T becomes the mark. */
static void charge(struct daemon *d, uint64_t t)
{
	struct cpu_meter *m = &d->cpu;
	uint64_t ns = t > m->mark ? t - m->mark : 0;

	m->mark = t;
	if (!m->on || ns == 0)
		return;
	if (m->cur)
		nodestats_daemon_cpu(&m->cur->st, now_ns(), ns);
	else
		m->own_ns += ns;
}

void cpu_enter(struct daemon *d, struct node *n, struct cpu_mark *save)
{
	struct cpu_meter *m = &d->cpu;

	save->prev = m->cur;
	save->prev_on = m->on;
	save->same = m->on && m->cur == n;
	if (save->same)
		return;
	charge(d, meter_read(m));
	m->cur = n;
	m->on = true;
}

void cpu_leave(struct daemon *d, const struct cpu_mark *save)
{
	struct cpu_meter *m = &d->cpu;

	if (save->same)
		return;
	charge(d, meter_read(m));
	m->cur = save->prev;
	m->on = save->prev_on;
}

void cpu_node_gone(struct daemon *d, struct node *n)
{
	struct cpu_meter *m = &d->cpu;

	if (!m->on || m->cur != n)
		return;
	charge(d, meter_read(m));
	m->cur = NULL;
}
