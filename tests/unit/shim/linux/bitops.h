/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's linux/bitops.h (tests/unit). */
#ifndef SHIM_LINUX_BITOPS_H
#define SHIM_LINUX_BITOPS_H

static inline unsigned int hweight_long(unsigned long w)
{
	return __builtin_popcountl(w);
}

#endif
