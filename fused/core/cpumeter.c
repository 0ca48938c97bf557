// SPDX-License-Identifier: GPL-2.0
/*
 * cpumeter.c - the daemon's CPU per node: one clock read per boundary of a
 * piece of work, the time between charged to the node whose piece ran,
 * scaled by how much of the busy time was the thread's CPU (cpumeter.h).
 */
#include "core/core.h"
#include "core/cpumeter.h"
#include "util/clock.h"

#define PPM    1000000ull
#define CAL_NS 1000000000ull /* calibrate once a second */

static uint64_t meter_read(struct cpu_meter *m)
{
	m->reads++;
	return m->clock ? m->clock() : now_ns();
}

/*
 * Once a period: the thread's CPU over it against the busy time charged
 * in it gives the share of busy time that was CPU (at most all of it);
 * what the daemon was preempted for inside a piece is not charged.
 */
static void calibrate(struct cpu_meter *m, uint64_t t)
{
	uint64_t c = m->cpu_clock ? m->cpu_clock() : thread_cpu_ns();
	uint64_t dc = c > m->cal_cpu ? c - m->cal_cpu : 0;

	m->cal_reads++;
	if (m->cal_at && m->cal_busy) {
		m->scale_ppm = dc >= m->cal_busy ? PPM : dc * PPM / m->cal_busy;
		m->calibrated = true;
	}
	m->cal_at = t;
	m->cal_cpu = c;
	m->cal_busy = 0;
}

/* Charge what ran since the last boundary; T becomes the mark. */
static void charge(struct daemon *d, uint64_t t)
{
	struct cpu_meter *m = &d->cpu;
	uint64_t ns = t > m->mark ? t - m->mark : 0;

	m->mark = t;
	if (m->on && ns) {
		m->cal_busy += ns;
		if (m->calibrated)
			ns = ns * m->scale_ppm / PPM;
		if (!m->cur)
			m->own_ns += ns;
		else
			nodestats_daemon_cpu(&m->cur->st,
					     m->clock ? now_ns() : t, ns);
	}
	if (t - m->cal_at >= CAL_NS)
		calibrate(m, t);
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
