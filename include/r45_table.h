/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A raid45 table line, parsed (dm-raid456-table.c).  Pure: no devices
 * are opened here, so the parser also builds in userspace for tests.
 */
#ifndef R45_TABLE_H
#define R45_TABLE_H

#include "r45_layout.h"

/* the log's and the recovery switch's sync word */
enum r45_sync_word { R45_SYNC_DEFAULT = -1, R45_NOSYNC = 0, R45_SYNC = 1 };

struct r45_table {
	/* <log_type> <#log_params> <log_params...> */
	const char *log_type;
	unsigned int log_argc;
	char **log_argv;
	bool disk_log;
	int log_sync;			/* enum r45_sync_word */
	u32 region_size;

	/* <#raid_params> <raid_params...>, defaults resolved */
	unsigned int stripes;
	unsigned int io_size;
	unsigned int recover_io_size;
	unsigned int bandwidth;
	int recovery_sync;		/* enum r45_sync_word */
	unsigned int recovery_stripes;

	/* <#raid_devs> <dev_to_init> <dev_path> <offset>... */
	unsigned int nr_devs;
	int dev_to_init;
	const char *paths[R45_MAX_DISKS];
	sector_t offsets[R45_MAX_DISKS];

	/* from type, parity device, chunk and the target length */
	struct r45_geom geom;
};

/*
 * Parse the words after "raid45" for a target of len sectors.  Returns 0
 * or -EINVAL with *error set to what is wrong.  Checks everything that
 * does not need the devices themselves (their sizes, duplicates).
 */
int r45_table_parse(struct r45_table *t, unsigned int argc, char **argv,
		    sector_t len, char **error);

#endif
