/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Little-endian byte access (cuse/ipmi_abi.c, util/ipmi_addr.c).
 * Byte by byte: no alignment needs, no implementation-defined conversions.
 */
#ifndef KCSMUX_LE_H
#define KCSMUX_LE_H

#include <stdbool.h>
#include <stdint.h>

static inline uint16_t ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned int)p[1] << 8);
}

static inline uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t ld64(const uint8_t *p)
{
	return (uint64_t)ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

static inline void st16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void st32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void st64(uint8_t *p, uint64_t v)
{
	st32(p, (uint32_t)v);
	st32(p + 4, (uint32_t)(v >> 32));
}

/* two's complement reinterpretation without implementation-defined casts */
static inline int32_t s32(uint32_t v)
{
	return v <= INT32_MAX ? (int32_t)v :
				(int32_t)(v - 0x80000000u) + INT32_MIN;
}

static inline int64_t s64(uint64_t v)
{
	return v <= INT64_MAX ? (int64_t)v :
				(int64_t)(v - 0x8000000000000000u) + INT64_MIN;
}

static inline int16_t s16(uint16_t v)
{
	return (int16_t)(v <= INT16_MAX ? (int)v : (int)v - 0x10000);
}

/* pointer (unsigned) or long (signed) of the layout's word size */
static inline uint64_t ld_ptr(const uint8_t *p, bool l32)
{
	return l32 ? ld32(p) : ld64(p);
}

static inline int64_t ld_long(const uint8_t *p, bool l32)
{
	return l32 ? s32(ld32(p)) : s64(ld64(p));
}

static inline void st_word(uint8_t *p, bool l32, uint64_t v)
{
	if (l32)
		st32(p, (uint32_t)v);
	else
		st64(p, v);
}

#endif /* KCSMUX_LE_H */
