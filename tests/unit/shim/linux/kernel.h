/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: the kstrto*() parsers and min()/min_t(). */
#ifndef SHIM_KERNEL_H
#define SHIM_KERNEL_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "r45_types.h"

#define min(a, b) ((a) < (b) ? (a) : (b))
#define min_t(type, a, b) ((type)(a) < (type)(b) ? (type)(a) : (type)(b))

/*
 * As the kernel's: optional sign, digits in @base (0: "0x" hex, "0"
 * octal, else decimal), optional trailing newline.
 */
static inline int shim_parse(const char *s, unsigned int base, bool neg_ok,
			     unsigned long long *mag, bool *neg)
{
	unsigned long long v = 0;
	const char *p = s;
	unsigned int d;

	*neg = false;
	if (*p == '+') {
		p++;
	} else if (*p == '-') {
		if (!neg_ok)
			return -EINVAL;
		*neg = true;
		p++;
	}
	if (!base) {
		base = 10;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			base = 16;
			p += 2;
		} else if (p[0] == '0' && p[1]) {
			base = 8;
		}
	}
	for (d = 0;; p++, d++) {
		unsigned int c;

		if (*p >= '0' && *p <= '9')
			c = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			c = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			c = *p - 'A' + 10;
		else
			break;
		if (c >= base)
			break;
		if (v > (ULLONG_MAX - c) / base)
			return -ERANGE;
		v = v * base + c;
	}
	if (!d)
		return -EINVAL;
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

	return shim_parse(s, base, false, res, &neg);
}

static inline int kstrtoll(const char *s, unsigned int base, long long *res)
{
	unsigned long long v;
	bool neg;
	int r = shim_parse(s, base, true, &v, &neg);

	if (r)
		return r;
	if (neg ? v > (unsigned long long)LLONG_MAX + 1 : v > LLONG_MAX)
		return -ERANGE;
	*res = neg ? (long long)(0 - v) : (long long)v;
	return 0;
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
	int r = shim_parse(s, base, true, &v, &neg);

	if (r)
		return r;
	if (neg ? v > (unsigned long long)INT_MAX + 1 : v > INT_MAX)
		return -ERANGE;
	*res = neg ? (int)-(long long)v : (int)v;
	return 0;
}

#endif
