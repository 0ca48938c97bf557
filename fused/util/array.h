/* SPDX-License-Identifier: GPL-2.0 */
/*
 * array.h - the number of elements of an array (not a pointer): the tables
 * of keys, presets, ioctls and system calls.
 */
#ifndef KCSMUX_ARRAY_H
#define KCSMUX_ARRAY_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* KCSMUX_ARRAY_H */
