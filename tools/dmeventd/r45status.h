/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one userspace reader of the raid45 target's status and table lines
 * (docs/raid45.rst, "dmsetup status" and "dmsetup table"): the words after
 * "<start> <len> raid45", as libdevmapper's dm_get_next_target() returns
 * them.  Pure C, no libdevmapper: unit-tested on its own
 * (tools/dmeventd/test-r45status.c).
 */
#ifndef R45STATUS_H
#define R45STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define R45_MAX_MEMBERS 32
#define R45_NR_STATS 11
/* longest word kept from a line (device names, log type) */
#define R45_WORD_MAX 64

enum r45_action {
	R45_ACTION_IDLE,
	R45_ACTION_RESYNC,
	R45_ACTION_RECOVER,
	R45_ACTION_CHECK,
	R45_ACTION_REPAIR,
	R45_ACTION_FROZEN,
};

struct r45_member {
	unsigned int major, minor;
	bool missing;		/* "-": the table names it missing */
	bool dead;		/* health letter D */
	bool parity;		/* "p": the RAID4 parity member */
	bool rebuilding;	/* "i": being rebuilt (dev_to_init) */
};

/* The INFO status line. */
struct r45_status {
	unsigned int nr_members;
	struct r45_member members[R45_MAX_MEMBERS];
	uint64_t in_sync, regions;
	/* the log's own status words: "1 core", "3 disk <maj:min> <A|D|F>" */
	char log_type[R45_WORD_MAX];
	bool log_has_dev;
	unsigned int log_major, log_minor;
	char log_state;		/* 'A', 'D' or 'F' for a disk log, else 0 */
	enum r45_action action;
	uint64_t mismatches;
	bool held;
	uint64_t read_errors_repaired;
	uint64_t unprotected_regions;
	/* since issue 26: reads refused (write hole), partial parity log */
	bool has_unsafe;
	uint64_t unsafe_reads;
	bool ppl;
	/*
	 * since issue 34, the same word: a write journal, "journal",
	 * "journal-failed" (writes go on without it) or "journal-dead"
	 * (writes fail)
	 */
	enum r45_journal_state { R45_JOURNAL_NONE, R45_JOURNAL_OK,
		R45_JOURNAL_FAILED, R45_JOURNAL_DEAD } journal;
	/*
	 * since issue 35: the action's progress, after <ppl|->:
	 * "<done>/<total>" sectors of the array (progress_running), or "-"
	 * when no action runs or waits
	 */
	bool has_progress;
	bool progress_running;
	uint64_t progress_done, progress_total;
	bool has_stats;
	uint64_t stats[R45_NR_STATS];
	/* words after the known ones that this parser does not know */
	unsigned int nr_unknown_words;
};

/*
 * Parse a status line into *st.  Returns 0, or -EINVAL for a line that
 * is not a raid45 status line of a format this parser knows (words
 * appended at the end are accepted and counted in nr_unknown_words).
 * *st is undefined after an error.
 */
int r45_status_parse(const char *line, struct r45_status *st);

const char *r45_action_name(enum r45_action a);

/* Members whose health letter is D. */
unsigned int r45_status_nr_dead(const struct r45_status *st);
/* The member being rebuilt ("i"), or -1. */
int r45_status_rebuilding(const struct r45_status *st);
/* "AADAp"-style health word into buf (at least 3 * R45_MAX_MEMBERS + 1). */
void r45_status_health(const struct r45_status *st, char *buf, size_t size);

#define R45_MAX_LOG_PARAMS 8
#define R45_MAX_RAID_PARAMS 7
/*
 * locking none, start_dirty_degraded, ppl <offset> <size> <signature>,
 * journal_dev <dev> journal_mode <mode>
 */
#define R45_MAX_OPT_WORDS 11

/*
 * The TABLE line, word by word, as "dmsetup table" prints it:
 *   <log_type> <#log_params> <log_params>... <raid_type> [<parity_dev>]
 *   <#raid_params> <raid_params>... [<options>...] <#raid_devs>
 *   <dev_to_init> <dev> <offset> [<dev> <offset>]...
 * with the options "locking none", "start_dirty_degraded", "ppl
 * <offset> <size> <signature>", "journal_dev <dev>" and "journal_mode
 * <mode>", and "- -" for a missing member.
 * Words are kept as text so that a line formats back unchanged except
 * for what the caller changes.
 */
struct r45_table {
	char log_type[R45_WORD_MAX];
	unsigned int nr_log_params;
	char log_params[R45_MAX_LOG_PARAMS][R45_WORD_MAX];
	char raid_type[R45_WORD_MAX];
	bool has_parity_dev;	/* raid4 */
	char parity_dev[R45_WORD_MAX];
	unsigned int nr_raid_params;
	char raid_params[R45_MAX_RAID_PARAMS][R45_WORD_MAX];
	/* the options' words, in their order */
	unsigned int nr_opts;
	char opts[R45_MAX_OPT_WORDS][R45_WORD_MAX];
	unsigned int nr_devs;
	int dev_to_init;
	char devs[R45_MAX_MEMBERS][R45_WORD_MAX];
	uint64_t offsets[R45_MAX_MEMBERS];
	bool missing[R45_MAX_MEMBERS];	/* "- -" */
};

/* Returns 0, or -EINVAL for a line that is not a raid45 table line. */
int r45_table_parse(const char *line, struct r45_table *t);
/* Formats *t into buf: 0, or -ENOSPC if it does not fit. */
int r45_table_format(const struct r45_table *t, char *buf, size_t size);
/* Parity members of the table's RAID type: 2 for raid6_*, else 1. */
unsigned int r45_table_parity_members(const struct r45_table *t);
/*
 * The core log's sync word set to "nosync" ("core 1 <r>" becomes
 * "core 2 <r> nosync") and the recovery switch (raid parameter 6) to -1
 * if it said "sync"; nothing for other logs.  For a reload after a
 * completed rebuild (docs/raid45.rst: "after the rebuild").
 */
void r45_table_core_nosync(struct r45_table *t);

/*
 * An action's progress as a person reads it (raid45ctl status), from
 * two status lines of one device read seconds apart.  The rate is known
 * only when both lines show the same action running over the same total
 * and the second has not gone back (a restarted action has no rate); the
 * ETA only with a rate above zero.
 */
struct r45_progress {
	enum r45_action action;	/* the second line's */
	bool running;		/* the second line has "<done>/<total>" */
	uint64_t done, total;	/* sectors */
	bool has_rate;
	double rate;		/* sectors a second */
	bool has_eta;
	uint64_t eta;		/* seconds */
};

/*
 * first may be NULL (one line: no rate); seconds > 0 between the two.
 * 0, or -EINVAL when second has no progress word (a target older than
 * issue 35).
 */
int r45_progress_get(const struct r45_status *first, const struct r45_status *second,
		     double seconds, struct r45_progress *p);
/*
 * "12.5% (1.20 GiB of 9.60 GiB), 35.2 MiB/s, ETA 4m05s", without the
 * rate and ETA when unknown ("stalled" for a rate of 0), "-" when no
 * action runs.
 */
void r45_progress_format(const struct r45_progress *p, char *buf, size_t size);
/* sectors as "1.20 GiB" (KiB up to PiB) */
void r45_size_str(uint64_t sectors, char *buf, size_t size);

/* "maj:min" into two numbers: 0 or -EINVAL. */
int r45_parse_devno(const char *word, unsigned int *major, unsigned int *minor);

#endif
