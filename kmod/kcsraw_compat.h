/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcsraw_compat.h - the only place where kcsraw.ko differs by kernel
 * version (tests/checkpatch.sh refuses LINUX_VERSION_CODE anywhere else).
 * Built and tested against 6.1 (Debian 12), 6.12 (Debian 13, bookworm-
 * backports) and 7.2 (Debian unstable).
 */
#ifndef KCSRAW_COMPAT_H
#define KCSRAW_COMPAT_H

#include <linux/version.h>

#define KCSRAW_KERNEL_6_12	KERNEL_VERSION(6, 12, 0)
#define KCSRAW_KERNEL_6_13	KERNEL_VERSION(6, 13, 0)
#define KCSRAW_KERNEL_6_18	KERNEL_VERSION(6, 18, 0)

/* 6.12 moved <asm/unaligned.h> to <linux/unaligned.h>. */
#if LINUX_VERSION_CODE >= KCSRAW_KERNEL_6_12
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * 6.12 removed no_llseek: a NULL ->llseek now means "not seekable"
 * (-ESPIPE), which is what no_llseek did before.
 */
#if LINUX_VERSION_CODE >= KCSRAW_KERNEL_6_12
#define KCSRAW_NO_LLSEEK	NULL
#else
#define KCSRAW_NO_LLSEEK	no_llseek
#endif

/*
 * ipmi_smi_handlers.sender: void up to 6.17; from 6.18 it returns an int,
 * 0 (IPMI_CC_NO_ERROR) when the message was taken. kcsraw takes every
 * message and returns each one through ipmi_smi_msg_received(), so it
 * never reports a failure there.
 */
#if LINUX_VERSION_CODE >= KCSRAW_KERNEL_6_18
#define KCSRAW_SENDER_RET	int
#define KCSRAW_SENDER_OK	0
#else
#define KCSRAW_SENDER_RET	void
#define KCSRAW_SENDER_OK
#endif

/*
 * 6.13 added hrtimer_setup(), which sets the callback with the clock and
 * mode; later kernels removed hrtimer_init().
 */
#include <linux/hrtimer.h>

static inline void
kcsraw_hrtimer_setup(struct hrtimer *t, enum hrtimer_restart (*fn)(struct hrtimer *))
{
#if LINUX_VERSION_CODE >= KCSRAW_KERNEL_6_13
	hrtimer_setup(t, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
#else
	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	t->function = fn;
#endif
}

#endif /* KCSRAW_COMPAT_H */
