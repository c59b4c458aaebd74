/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/string.h>. */
#ifndef SHIM_STRING_H
#define SHIM_STRING_H

#include <string.h>
#include <strings.h>

#endif
