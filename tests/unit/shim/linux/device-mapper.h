/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the part of <linux/device-mapper.h> that the
 * table parser uses: the dm_arg helpers, as the kernel documents them.
 */
#ifndef SHIM_DEVICE_MAPPER_H
#define SHIM_DEVICE_MAPPER_H

#include <linux/kernel.h>

struct dm_arg_set {
	unsigned int argc;
	char **argv;
};

struct dm_arg {
	unsigned int min;
	unsigned int max;
	char *error;
};

static inline const char *dm_shift_arg(struct dm_arg_set *as)
{
	if (!as->argc)
		return NULL;
	as->argc--;
	return *as->argv++;
}

static inline void dm_consume_args(struct dm_arg_set *as, unsigned int n)
{
	as->argc -= n;
	as->argv += n;
}

/* Like the kernel: the value is stored even when it is out of range. */
static inline int dm_read_arg(const struct dm_arg *arg, struct dm_arg_set *as,
			      unsigned int *value, char **error)
{
	const char *s = dm_shift_arg(as);
	unsigned long long v;

	if (!s || kstrtoull(s, 10, &v) || v > UINT_MAX) {
		*error = arg->error;
		return -EINVAL;
	}
	*value = v;
	if (*value < arg->min || *value > arg->max) {
		*error = arg->error;
		return -EINVAL;
	}
	return 0;
}

#endif
