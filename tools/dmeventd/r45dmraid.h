/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmraid's table lines turned into raid45 table lines, for
 * "raid45-monitor dmraid" (docs/raid45.rst, "dmraid sets").  Pure C, no
 * libdevmapper: unit-tested on its own (tools/dmeventd/test-r45dmraid.c).
 *
 * "dmraid -ay -t <set>" prints one line per table segment, the set's name
 * first: "<name>: <start> <len> <target> <params>".  Two forms of a
 * RAID4/5/6 set are read:
 *
 *   Debian's dmraid 1.0.0.rc16 (the kernel's dm-raid target):
 *     0 <len> raid <type> <#params> <chunk> [sync|nosync]
 *         [region_size <n>] [rebuild <idx>] <#devs> (<meta> <dev>)...
 *   with "-" for the metadata devices (dmraid never has any), and for a
 *   missing member "-", the error target dmraid creates in its place,
 *   /dev/mapper/<name>_err_target, or /dev/zero, which dmraid writes for
 *   a disk whose metadata it does not trust;
 *
 *   dmraid's own raid45 form (upstream rc16):
 *     0 <len> raid45 core 2 <region> sync|nosync <type> 1 <chunk>
 *         <#devs> <rebuild idx|-1> (<dev> <offset>)...
 *
 * Either becomes one raid45 line with a core log:
 *     0 <len> raid45 core 2 <region> sync|nosync <type> [-1] 1 <chunk>
 *         <#devs> <dev_to_init> (<dev> <offset>|- -)...
 * Anything else (RAID0/1/10, several segments, words or counts that do
 * not fit) is refused with the reason in err.
 */
#ifndef R45DMRAID_H
#define R45DMRAID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define R45DM_MAX_MEMBERS 32
#define R45DM_PATH_MAX 256
/* a dm device name: DM_NAME_LEN (128) with its NUL */
#define R45DM_NAME_MAX 128
/*
 * the UUID prefix of a set activated by "raid45-monitor dmraid" (as
 * R45MON_DMRAID_UUID_PREFIX, which the plugin knows them by)
 */
#define R45DM_UUID_PREFIX "DMRAID45-"

enum r45dm_source {
	R45DM_FROM_RAID,	/* dm-raid's "raid" line (Debian's dmraid) */
	R45DM_FROM_RAID45,	/* dmraid's own "raid45" line */
};

struct r45dm_set {
	enum r45dm_source source;
	uint64_t len;
	char raid_type[16];		/* the raid45 name */
	unsigned int chunk;		/* sectors */
	unsigned int region;		/* sectors, as loaded */
	unsigned int given_region;	/* dmraid's, 0 if it gave none */
	bool nosync;
	int dev_to_init;		/* -1 for none */
	unsigned int nr_devs;
	unsigned int nr_missing;
	char devs[R45DM_MAX_MEMBERS][R45DM_PATH_MAX];	/* "" if missing */
	uint64_t offsets[R45DM_MAX_MEMBERS];
};

/*
 * From the output of "dmraid -ay -t", the table of the set named set, or
 * if set is NULL or "" of the only set whose table it prints.  Lines that
 * are not "<name>: <number> ..." (dmraid's messages) are skipped.  Copies
 * the set's name into name and its table (the words after "<name>:") into
 * table.  0, or -ENOENT (no table for the set), -EINVAL (several sets
 * without a name to choose, several segments, a line too long),
 * -ENAMETOOLONG, -ENOSPC, with a message in err.
 */
int r45dm_pick(const char *text, const char *set, char *name, size_t namesize,
	       char *table, size_t tablesize, char *err, size_t errsize);

/*
 * Parse one table line of the set name (as r45dm_pick gives it) into *s:
 * 0, or -EINVAL with the reason in err.  *s is undefined after an error.
 */
int r45dm_parse(const char *table, const char *name, struct r45dm_set *s,
		char *err, size_t errsize);

/* The raid45 table line of *s: 0, or -ENOSPC. */
int r45dm_format(const struct r45dm_set *s, char *buf, size_t size);

/* r45dm_pick, r45dm_parse and r45dm_format in one: 0 or -errno. */
int r45dm_convert(const char *text, const char *set, char *name, size_t namesize,
		  char *out, size_t outsize, char *err, size_t errsize);

/*
 * IMSM (dmraid's "isw" format): dmraid names a volume's set
 * isw_<family>_<volume>, and Debian's dmraid lists its members in the
 * order of the metadata's disk table, which is the volume's member order
 * only until the disks change (after mdadm has replaced a member it is
 * not: the table would read the members in the wrong order).  The member
 * order is checked against each member's own metadata as "mdadm
 * --examine" prints it: the volume's "This Slot".
 */
struct r45dm_imsm_volume {
	int slot;		/* "This Slot", -1 if not a number */
	unsigned int members;	/* "Members" */
	uint64_t offset;	/* "Sector Offset" */
};

/* The volume name of an isw set name, or NULL if it is not one. */
const char *r45dm_isw_volume(const char *set);
/*
 * From "mdadm --examine" of one disk, the section "[<volume>]:": 0, or
 * -ENOENT (no such volume), -EINVAL (its fields missing or malformed).
 */
int r45dm_imsm_examine(const char *text, const char *volume,
		       struct r45dm_imsm_volume *v);
/*
 * Put each present member at its slot (slots[k] for member k, ignored
 * for missing ones); missing members take the slots left.  dev_to_init
 * moves with its member.  1 if the order changed, 0 if not, -EINVAL
 * (with err) if the slots are out of range or taken twice.
 */
int r45dm_reorder(struct r45dm_set *s, const int *slots, char *err, size_t errsize);

/*
 * The members the monitor replaced by spares in a set that dmraid's
 * metadata does not know of: the plugin's <set>.replaced file, lines of
 * "<time> member <k> (<old>) replaced by <spare> (<maj:min>)".  Sets bit
 * k of *members for each; 0, or -EINVAL for a line of another form.
 */
int r45dm_replaced_members(const char *text, uint32_t *members);

/* DMRAID45-<name>: 0, or -ENAMETOOLONG if it does not fit a dm UUID. */
int r45dm_uuid(const char *name, char *buf, size_t size);

#endif
