/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcsraw_compat.h - the only place where kcsraw.ko differs by kernel
 * version. Supported: 6.1 (Debian 12) to 7.2 (Debian unstable).
 */
#ifndef KCSRAW_COMPAT_H
#define KCSRAW_COMPAT_H

#include <linux/version.h>

/*
 * ipmi_smi_handlers.sender: void up to 6.17; from 6.18 it returns an int,
 * 0 (IPMI_CC_NO_ERROR) when the message was taken. kcsraw takes every
 * message and returns each one through ipmi_smi_msg_received(), so it
 * never reports a failure there.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define KCSRAW_SENDER_RET	int
#define KCSRAW_SENDER_OK	0
#else
#define KCSRAW_SENDER_RET	void
#define KCSRAW_SENDER_OK
#endif

#endif /* KCSRAW_COMPAT_H */
