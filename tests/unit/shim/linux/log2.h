/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: is_power_of_2(). */
#ifndef SHIM_LOG2_H
#define SHIM_LOG2_H

#include <stdbool.h>

static inline bool is_power_of_2(unsigned long n)
{
	return n && !(n & (n - 1));
}

#endif
