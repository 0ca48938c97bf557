/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpumeter.h - the daemon's own CPU, attributed to the node it worked for
 * (cpumeter.c), so a node's cpu_budget covers the daemon's work for it as
 * well as the poller's.
 *
 * The event loop is one thread. Each piece of work done for a node (a
 * wake-up of its CUSE session, a completion of its transaction, the
 * submission of one, one of its parked SDR requests answered) is put
 * between cpu_enter and cpu_leave; the thread's CPU time is read once at
 * each boundary and the time between two reads charged to the node whose
 * piece was running (NULL: the daemon's own, own_ns). Pieces nest: an
 * inner piece for another node charges the outer one up to its start and
 * resumes it after; one for the same node costs no read at all. What no
 * piece covers (timers, the control socket, metrics, bridging, the loop
 * itself) is charged to no one.
 *
 * The clock read at the boundaries is the monotonic one (the vDSO: no
 * system call, where the thread's CPU clock would be one per read, about
 * ten a request). A piece never blocks, so its wall time is CPU time
 * unless the thread was preempted inside it; once a second the thread's
 * CPU clock is read and the busy time charged since is scaled by the share
 * of it that was CPU (at most 1) from then on.
 */
#ifndef KCSMUX_CPUMETER_H
#define KCSMUX_CPUMETER_H

#include <stdbool.h>
#include <stdint.h>

struct daemon;
struct node;

struct cpu_meter {
	uint64_t (*clock)(void);     /* boundaries, ns; NULL: now_ns */
	uint64_t (*cpu_clock)(void); /* NULL: thread_cpu_ns */
	struct node *cur;	     /* whose piece runs (NULL: the daemon's) */
	bool on;		     /* a piece runs */
	uint64_t mark;		     /* clock at the last boundary */
	uint64_t reads;		     /* boundary clock reads so far */
	uint64_t own_ns;	     /* charged to the daemon itself */
	uint64_t cal_at;	     /* clock at the last calibration */
	uint64_t cal_cpu;	     /* thread CPU then */
	uint64_t cal_busy;	     /* busy time charged since, unscaled */
	uint64_t cal_reads;	     /* thread CPU clock reads so far */
	uint32_t scale_ppm;	     /* CPU per busy time, last period */
	bool calibrated;	     /* scale_ppm is set */
};

/* What cpu_enter saved for its cpu_leave (on the caller's stack). */
struct cpu_mark {
	struct node *prev;
	bool prev_on;
	bool same; /* entered a piece of the node already running */
};

/* Start a piece of work for N (NULL: the daemon's own). */
void cpu_enter(struct daemon *d, struct node *n, struct cpu_mark *save);
/* End it: charge it and resume what ran before. */
void cpu_leave(struct daemon *d, const struct cpu_mark *save);
/* N goes away: charge what it used so far and charge no more to it. */
void cpu_node_gone(struct daemon *d, struct node *n);

#endif /* KCSMUX_CPUMETER_H */
