/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: the kstrto*() parsers and min()/min_t(). */
#ifndef SHIM_KERNEL_H
#define SHIM_KERNEL_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "r45_types.h"

#define min(a, b) ((a) < (b) ? (a) : (b))
#define min_t(type, a, b) ((type)(a) < (type)(b) ? (type)(a) : (type)(b))

/* base 10 only: optional sign, digits, optional trailing newline */
static inline int shim_parse(const char *s, bool neg_ok, unsigned long long *mag,
			     bool *neg)
{
	unsigned long long v = 0;
	const char *p = s;

	*neg = false;
	if (*p == '+') {
		p++;
	} else if (*p == '-') {
		if (!neg_ok)
			return -EINVAL;
		*neg = true;
		p++;
	}
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (ULLONG_MAX - (*p - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (*p - '0');
	}
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	*mag = v;
	return 0;
}

static inline int kstrtoull(const char *s, unsigned int base,
			    unsigned long long *res)
{
	bool neg;

	(void)base;
	return shim_parse(s, false, res, &neg);
}

static inline int kstrtou32(const char *s, unsigned int base, u32 *res)
{
	unsigned long long v;
	int r = kstrtoull(s, base, &v);

	if (r)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*res = v;
	return 0;
}

/* unsigned int is u32 on every target we build for */
static inline int kstrtouint(const char *s, unsigned int base,
			     unsigned int *res)
{
	return kstrtou32(s, base, res);
}

static inline int kstrtoint(const char *s, unsigned int base, int *res)
{
	unsigned long long v;
	bool neg;
	int r = shim_parse(s, true, &v, &neg);

	(void)base;
	if (r)
		return r;
	if (neg ? v > (unsigned long long)INT_MAX + 1 : v > INT_MAX)
		return -ERANGE;
	*res = neg ? (int)-(long long)v : (int)v;
	return 0;
}

#endif
