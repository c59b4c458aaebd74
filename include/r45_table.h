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

/* the most words a log takes: disk <log_dev> <region_size> <sync> */
#define R45_MAX_LOG_ARGS	3

/*
 * Self-contained: the strings point into the table's own copy (strings),
 * never into dm's argv, which is gone once the constructor returns.
 */
struct r45_table {
	/* <log_type> <#log_params> <log_params...> */
	const char *log_type;		/* "core" or "disk" (static) */
	unsigned int log_argc;
	char *log_argv[R45_MAX_LOG_ARGS];	/* copies */
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

	/* [ext] options before <#raid_devs> (see parse_options) */
	bool start_dirty_degraded;
	bool ppl;			/* ppl <offset> <size> <signature> */
	s64 ppl_offset;			/* sectors from each member's data */
	u64 ppl_size;			/* sectors */
	u32 ppl_signature;
	bool shrink;			/* a reload may shorten the array */
	const char *journal_path;	/* journal_dev <dev>, or NULL */
	bool journal_mode;		/* journal_mode <mode> was given */

	/* <#raid_devs> <dev_to_init> <dev_path> <offset>... */
	unsigned int nr_devs;
	int dev_to_init;
	const char *paths[R45_MAX_DISKS];	/* copies; "-" if missing */
	sector_t offsets[R45_MAX_DISKS];
	unsigned long missing;		/* [ext] members given as "- -" */

	char *strings;			/* one allocation: the copies above */

	/* from type, parity device, chunk and the target length */
	struct r45_geom geom;
};

/* the numbers of a refusal, a line for the kernel log */
#define R45_WHY_SIZE	256

/*
 * Parse the words after "raid45" for a target of len sectors.  Returns 0,
 * or -EINVAL (-ENOMEM) with *error set to what is wrong (a constant) and
 * nothing allocated; for a refusal with numbers (the length against the
 * members and chunk), why (R45_WHY_SIZE bytes) says them, else it is "".
 * Checks everything that does not need the devices themselves (their
 * sizes, duplicates).  A parsed table keeps nothing of argv; release it
 * with r45_table_free().
 */
int r45_table_parse(struct r45_table *t, unsigned int argc, char **argv,
		    sector_t len, char **error, char *why);

/* Free the table's strings (a zeroed or refused table is fine too). */
void r45_table_free(struct r45_table *t);

#endif
