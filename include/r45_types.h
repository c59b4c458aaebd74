/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Basic types shared by the kernel module and the userspace unit tests,
 * so that the pure parts (layout math, table parsing) compile in both.
 */
#ifndef R45_TYPES_H
#define R45_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#else
#include <stdint.h>
#include <stdbool.h>
typedef uint64_t sector_t;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}
#endif

/* stripe cache sizes: the table's #stripes and the stripe_cache message */
#define R45_MIN_STRIPES		8
#define R45_MAX_STRIPES		16384
#define R45_DEFAULT_STRIPES	256

#endif
