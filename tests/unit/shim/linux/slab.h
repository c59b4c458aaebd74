/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in: kmalloc()/kfree() on malloc()/free(), so that
 * LeakSanitizer sees a table whose strings are not freed.  A test may
 * make the next allocations fail (shim_kmalloc_fail).
 */
#ifndef SHIM_SLAB_H
#define SHIM_SLAB_H

#include <stdlib.h>

#define GFP_KERNEL 0

extern int shim_kmalloc_fail;	/* > 0: that many next kmalloc()s fail */

static inline void *kmalloc(size_t size, int gfp)
{
	(void)gfp;
	if (shim_kmalloc_fail > 0) {
		shim_kmalloc_fail--;
		return NULL;
	}
	return malloc(size);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

#endif
