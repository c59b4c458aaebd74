// SPDX-License-Identifier: GPL-2.0
/*
 * The raid45 table line, parsed with the kernel's dm_arg helpers:
 *
 * <log_type> <#log_params> <log_params>... <raid_type> [<parity_dev>]
 * <#raid_params> <raid_params>... [locking none] <#raid_devs>
 * <dev_to_init> <dev_path> <offset>...
 *
 * Every refusal has its own message.  Nothing here opens a device, so
 * the same file builds in userspace for tests/unit/test-table.c.
 */
#include <linux/device-mapper.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>
#include "r45_table.h"

/* the defaults of the "-1" raid parameters */
#define R45_DEFAULT_CHUNK		64
#define R45_DEFAULT_BANDWIDTH		10
#define R45_DEFAULT_RECOVERY_STRIPES	16

static int parse_sync_word(const char *w)
{
	if (!strcasecmp(w, "sync"))
		return R45_SYNC;
	if (!strcasecmp(w, "nosync"))
		return R45_NOSYNC;
	return -EINVAL;
}

/* Read "-1" (the default) or a number in [min, max]. */
static int read_param(struct dm_arg_set *as, unsigned int min,
		      unsigned int max, unsigned int def, unsigned int *out,
		      char **error, char *msg)
{
	struct dm_arg arg = { .min = min, .max = max, .error = msg };
	unsigned int v;

	if (!as->argc) {
		*error = msg;
		return -EINVAL;
	}
	if (!strcmp(as->argv[0], "-1")) {
		dm_consume_args(as, 1);
		*out = def;
		return 0;
	}
	/* dm_read_arg stores even a value it refuses: read into a local */
	if (dm_read_arg(&arg, as, &v, error))
		return -EINVAL;
	*out = v;
	return 0;
}

/* As read_param, and the value must be a power of two. */
static int read_pow2_param(struct dm_arg_set *as, unsigned int min,
			   unsigned int max, unsigned int def,
			   unsigned int *out, char **error, char *msg)
{
	if (read_param(as, min, max, def, out, error, msg) ||
	    (*out && !is_power_of_2(*out))) {
		*error = msg;
		return -EINVAL;
	}
	return 0;
}

static int parse_log(struct r45_table *t, struct dm_arg_set *as,
		     char **error)
{
	static const struct dm_arg core_args = {1, 2, "Invalid number of core log parameters"};
	static const struct dm_arg disk_args = {2, 3, "Invalid number of disk log parameters"};
	const char *type = dm_shift_arg(as);
	unsigned int n, rsz_idx;
	int r;

	if (!type) {
		*error = "Missing log type";
		return -EINVAL;
	}
	if (!strcmp(type, "core")) {
		r = dm_read_arg(&core_args, as, &n, error);
		rsz_idx = 0;
	} else if (!strcmp(type, "disk")) {
		r = dm_read_arg(&disk_args, as, &n, error);
		rsz_idx = 1;
		t->disk_log = true;
	} else {
		*error = "Invalid log type (must be core or disk)";
		return -EINVAL;
	}
	if (r)
		return -EINVAL;
	if (as->argc < n) {
		*error = "Too few log parameters";
		return -EINVAL;
	}
	if (kstrtou32(as->argv[rsz_idx], 10, &t->region_size) ||
	    !is_power_of_2(t->region_size) || t->region_size < 8) {
		*error = "Invalid region size (must be a power of two >= 8)";
		return -EINVAL;
	}
	t->log_sync = R45_SYNC_DEFAULT;
	if (n == rsz_idx + 2) {
		t->log_sync = parse_sync_word(as->argv[rsz_idx + 1]);
		if (t->log_sync < 0) {
			*error = "Invalid log sync argument (must be sync or nosync)";
			return -EINVAL;
		}
	}
	t->log_type = type;
	t->log_argc = n;
	t->log_argv = as->argv;
	dm_consume_args(as, n);
	return 0;
}

static int parse_raid_params(struct r45_table *t, struct dm_arg_set *as,
			     unsigned int *chunk, char **error)
{
	static const struct dm_arg nr_params = {0, 7, "Invalid number of raid parameters"};
	unsigned int n;

	if (dm_read_arg(&nr_params, as, &n, error))
		return -EINVAL;
	if (as->argc < n) {
		*error = "Too few raid parameters";
		return -EINVAL;
	}
	*chunk = R45_DEFAULT_CHUNK;
	t->stripes = R45_DEFAULT_STRIPES;
	t->io_size = 8;
	t->recover_io_size = 0;		/* resolved below */
	t->bandwidth = R45_DEFAULT_BANDWIDTH;
	t->recovery_sync = R45_SYNC_DEFAULT;
	t->recovery_stripes = R45_DEFAULT_RECOVERY_STRIPES;

	if (n >= 1 &&
	    read_pow2_param(as, 8, 16384, R45_DEFAULT_CHUNK, chunk, error,
			    "Invalid chunk size (power of two, 8..16384 sectors)"))
		return -EINVAL;
	if (n >= 2 &&
	    read_param(as, R45_MIN_STRIPES, R45_MAX_STRIPES,
		       R45_DEFAULT_STRIPES, &t->stripes, error,
		       "Invalid number of stripes (8..16384)"))
		return -EINVAL;
	if (n >= 3 &&
	    read_pow2_param(as, 8, *chunk, min(8U, *chunk), &t->io_size, error,
			    "Invalid io size (power of two, 8..chunk size)"))
		return -EINVAL;
	if (n >= 4 &&
	    read_pow2_param(as, 8, t->region_size, 0, &t->recover_io_size,
			    error,
			    "Invalid recovery io size (power of two, 8..region size)"))
		return -EINVAL;
	if (n >= 5 &&
	    read_param(as, 1, 100, R45_DEFAULT_BANDWIDTH, &t->bandwidth, error,
		       "Invalid recovery bandwidth (1..100 percent)"))
		return -EINVAL;
	if (n >= 6) {
		const char *w = dm_shift_arg(as);

		if (strcmp(w, "-1")) {
			t->recovery_sync = parse_sync_word(w);
			if (t->recovery_sync < 0) {
				*error = "Invalid recovery switch (sync, nosync or -1)";
				return -EINVAL;
			}
		}
	}
	if (n >= 7 &&
	    read_param(as, 1, 64, R45_DEFAULT_RECOVERY_STRIPES,
		       &t->recovery_stripes, error,
		       "Invalid number of recovery stripes (1..64)"))
		return -EINVAL;
	if (!t->recover_io_size)
		t->recover_io_size = min_t(unsigned int, t->region_size, 256);
	return 0;
}

static int parse_type(struct dm_arg_set *as, int *type, int *parity,
		      char **error)
{
	const char *word = dm_shift_arg(as);

	*type = word ? r45_type_from_name(word) : -1;
	if (*type < 0) {
		*error = "Invalid RAID type";
		return -EINVAL;
	}
	*parity = -1;
	if (*type != R45_RAID4)
		return 0;
	word = dm_shift_arg(as);
	if (!word || kstrtoint(word, 10, parity) || *parity < -1 ||
	    *parity >= R45_MAX_DISKS) {
		*error = "Invalid RAID4 parity device";
		return -EINVAL;
	}
	return 0;
}

static int parse_locking(struct dm_arg_set *as, char **error)
{
	const char *word;

	if (!as->argc || strcmp(as->argv[0], "locking"))
		return 0;
	dm_consume_args(as, 1);
	word = dm_shift_arg(as);
	if (word && !strcmp(word, "none"))
		return 0;
	*error = word && !strcmp(word, "cluster") ?
		 "Cluster locking is not supported" :
		 "Invalid locking type (only none)";
	return -EINVAL;
}

static int parse_devices(struct r45_table *t, struct dm_arg_set *as,
			 int type, char **error)
{
	struct dm_arg nr_devs = {
		.min = r45_type_parity_disks(type) + 2, .max = R45_MAX_DISKS,
		.error = type >= R45_RAID6_ZR ?
			"Invalid number of raid devices (RAID6: 4..32)" :
			"Invalid number of raid devices (RAID4/5: 3..32)",
	};
	unsigned int i, n;

	if (dm_read_arg(&nr_devs, as, &n, error))
		return -EINVAL;
	t->nr_devs = n;
	if (!as->argc || kstrtoint(dm_shift_arg(as), 10, &t->dev_to_init) ||
	    t->dev_to_init < -1 || t->dev_to_init >= (int)t->nr_devs) {
		*error = "Invalid device to initialize (-1 or a member index)";
		return -EINVAL;
	}
	if (as->argc != 2 * t->nr_devs) {
		*error = "Number of device/offset arguments does not match #raid_devs";
		return -EINVAL;
	}
	for (i = 0; i < t->nr_devs; i++) {
		unsigned long long off;

		t->paths[i] = dm_shift_arg(as);
		if (kstrtoull(dm_shift_arg(as), 10, &off) ||
		    off > (sector_t)-1 / 2) {
			*error = "Invalid device offset";
			return -EINVAL;
		}
		t->offsets[i] = off;
	}
	return 0;
}

/* The length splits evenly over the data members, in whole chunks. */
static int set_geometry(struct r45_table *t, int type, int parity,
			unsigned int chunk, sector_t len, char **error)
{
	sector_t per_dev;
	u32 rem;

	if (type == R45_RAID4) {
		if (parity == -1)
			parity = t->nr_devs - 1;
		if (parity >= (int)t->nr_devs) {
			*error = "RAID4 parity device index out of range";
			return -EINVAL;
		}
	}
	per_dev = div_u64_rem(len, t->nr_devs - r45_type_parity_disks(type),
			      &rem);
	if (rem) {
		*error = "Target length not divisible by number of data devices";
		return -EINVAL;
	}
	if (!per_dev || per_dev & (chunk - 1)) {
		*error = "Device length not divisible by chunk size";
		return -EINVAL;
	}
	if (r45_geom_init(&t->geom, type, t->nr_devs, chunk, parity,
			  per_dev)) {
		*error = "Invalid RAID geometry";
		return -EINVAL;
	}
	return 0;
}

int r45_table_parse(struct r45_table *t, unsigned int argc, char **argv,
		    sector_t len, char **error)
{
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	unsigned int chunk;
	int type, parity;

	memset(t, 0, sizeof(*t));
	if (parse_log(t, &as, error) ||
	    parse_type(&as, &type, &parity, error) ||
	    parse_raid_params(t, &as, &chunk, error) ||
	    parse_locking(&as, error) ||
	    parse_devices(t, &as, type, error) ||
	    set_geometry(t, type, parity, chunk, len, error))
		return -EINVAL;
	return 0;
}
