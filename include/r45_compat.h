/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place for differences between the kernel series we build for
 * (Debian 12: 6.1 and 6.12).  Everything else uses the r45_* names.
 */
#ifndef R45_COMPAT_H
#define R45_COMPAT_H

#include <linux/version.h>
#include <linux/blkdev.h>

#endif
