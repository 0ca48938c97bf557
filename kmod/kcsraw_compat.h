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

#endif /* KCSRAW_COMPAT_H */
