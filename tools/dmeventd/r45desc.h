/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The persistent description of a raid45 array (issue 35): what the
 * target itself keeps nowhere, since it writes no metadata on its
 * members.  One file per array, /etc/raid45/<name>.conf
 * ($RAID45_CONF_DIR overrides the directory), of "key value..." lines
 * (docs/raid45.rst, "Array descriptions"):
 *
 *   version 2
 *   name r5
 *   uuid R45-6f1c0e9a4b2d4c7e8a1b3c5d7e9f0a1b
 *   type raid5_ls
 *   chunk 128
 *   region 8192
 *   size 3906248704
 *   log disk /dev/disk/by-id/nvme-XYZ-part2 sync
 *   boot-degraded 30
 *   members 4
 *   member 0 /dev/disk/by-id/ata-A 2048 current
 *   member 1 /dev/disk/by-id/ata-B 2048 failed
 *   member 2 /dev/disk/by-id/ata-C 2048 rebuilding
 *   member 3 - - missing
 *
 * One file per array rather than one file for all (as mdadm.conf): the
 * dmeventd plugin rewrites an array's file when a member fails, one
 * monitoring thread per array; with a file each, a rename replaces one
 * array's description and nothing else, no two threads (or a
 * raid45ctl beside them) ever rewrite the same file for different
 * arrays, and an admin edits or removes one array without touching the
 * others (as /etc/lvm/backup/<vg>).
 *
 * Pure C, no libdevmapper: parsed, formatted, written and turned into a
 * table line here (r45desc.c), written and recorded (r45desc-file.c),
 * unit-tested by test-r45desc.c.
 */
#ifndef R45DESC_H
#define R45DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "r45status.h"

/*
 * The newest format this program reads and writes; it reads every
 * version from 1.  A description is written as the lowest version that
 * can say it (version 2 only with boot-degraded), so that files which do
 * not use what a version added stay readable by older programs, and an
 * older program refuses a newer file by its version, not by a key.
 */
#define R45DESC_VERSION 2
/* boot-degraded: at most a day */
#define R45DESC_BOOT_DEGRADED_MAX 86400
#define R45DESC_DIR_DEFAULT "/etc/raid45"
#define R45DESC_DIR_ENV "RAID45_CONF_DIR"
/* dm's limits (DM_NAME_LEN, DM_UUID_LEN, with their NUL) */
#define R45DESC_NAME_MAX 128
#define R45DESC_UUID_MAX 129
#define R45DESC_PATH_MAX 256
#define R45DESC_TYPE_MAX 16
/* a description file is small: refused beyond this */
#define R45DESC_FILE_MAX 65536
#define R45DESC_LINE_MAX 1024
/* a table line's parameters, as raid45ctl builds them */
#define R45DESC_TABLE_MAX 8192

enum r45desc_state {
	R45DESC_CURRENT,	/* holds current data */
	R45DESC_FAILED,		/* failed: never taken as current again */
	R45DESC_REBUILDING,	/* being rebuilt whole (<dev_to_init>) */
	R45DESC_MISSING,	/* not there: the array runs without it */
};

struct r45desc_member {
	char path[R45DESC_PATH_MAX];	/* "" for "-" (missing, no device) */
	uint64_t offset;		/* sectors; unused without a path */
	enum r45desc_state state;
};

struct r45desc {
	char name[R45DESC_NAME_MAX];
	char uuid[R45DESC_UUID_MAX];
	char type[R45DESC_TYPE_MAX];	/* raid4, raid5_la, ... raid6_nc */
	int parity_dev;			/* raid4: -1 (last) or an index */
	unsigned int chunk;		/* sectors */
	unsigned int region;		/* sectors */
	uint64_t size;			/* <len>, sectors */
	bool disk_log;
	char log_dev[R45DESC_PATH_MAX];	/* disk log only */
	bool nosync;			/* the log's sync word */
	unsigned int stripes;		/* 0: the target's default */
	unsigned int bandwidth;		/* 0: the target's default */
	bool ppl;
	int64_t ppl_offset;
	uint64_t ppl_size;
	uint32_t ppl_signature;
	/*
	 * Seconds to wait at boot for absent members before starting
	 * degraded without them ("boot-degraded", version 2); 0: never
	 * (the key absent, or "never": the array waits for every member).
	 */
	unsigned int boot_degraded;
	unsigned int nr_members;
	struct r45desc_member m[R45_MAX_MEMBERS];
};

const char *r45desc_state_name(enum r45desc_state s);
/* The directory of the descriptions: $RAID45_CONF_DIR or /etc/raid45. */
const char *r45desc_dir(void);
/* A name raid45ctl accepts for an array (and its file): 0 or -EINVAL. */
int r45desc_check_name(const char *name);
/* 2 for raid6_*, 1 for raid4/raid5_*, 0 for an unknown type. */
unsigned int r45desc_parity_members(const char *type);

/*
 * Parse a description's text (len bytes; file names it in messages).
 * 0, or -EINVAL with "<file>:<line>: <why>" (or "<file>: <why>" for
 * what is missing at the end) in err.  Every key once (member lines
 * once per index, in order), nothing unknown, every number in range.
 */
int r45desc_parse(const char *text, size_t len, const char *file,
		  struct r45desc *d, char *err, size_t errsize);
/* The file's text for *d: 0, or -ENOSPC. */
int r45desc_format(const struct r45desc *d, char *buf, size_t size);
/*
 * The raid45 table parameters (what follows "<start> <len> raid45") for
 * activating the array as described: a failed or missing member as
 * "- -", the rebuilding one as <dev_to_init>.  0, or -EINVAL (why in
 * err: more members not current than the type's parity) or -ENOSPC.
 */
int r45desc_table(const struct r45desc *d, unsigned int flags, char *buf, size_t size,
		  char *err, size_t errsize);
/*
 * flags: start_dirty_degraded in the table, for this activation only (an
 * activation the kernel refused as dirty degraded; never recorded).
 */
#define R45DESC_START_DIRTY_DEGRADED 1u

/*
 * <len> for the members of d (their offsets and states set) whose
 * devices have sectors[i] sectors (missing members: ignored): the
 * smallest room after an offset, rounded down to whole chunks, times the
 * data members.  0 with *size set, or -EINVAL (why in err: the member
 * that has no room for one chunk).
 */
int r45desc_compute_size(const struct r45desc *d, const uint64_t *sectors,
			 uint64_t *size, char *err, size_t errsize);
/*
 * A region size for an array of size sectors: a power of two holding a
 * row (chunk x data members: full-stripe writes are never cut), at least
 * 1024 sectors, and large enough that the array has at most 2^20 regions
 * (a 128 KiB bitmap, a disk log of 264 sectors).
 */
unsigned int r45desc_default_region(uint64_t size, unsigned int chunk, unsigned int data);
/* Sectors a disk log needs (dm-log: 2 header sectors, the bitmap, 4 KiB blocks). */
uint64_t r45desc_disk_log_sectors(uint64_t size, unsigned int region);

/*
 * Read and parse the file at path, a regular file; its name must be
 * <name>.conf of the name it gives.  0, -ENOENT, or another -errno
 * (-EINVAL: not a regular file, or refused) with why in err.
 */
int r45desc_load(const char *path, struct r45desc *d, char *err, size_t errsize);

/*
 * Between the temporary file's fsync and the rename (a test seam: a
 * crash there, or a failure): its non-zero return is returned.
 */
typedef int (*r45desc_before_rename_fn)(const char *tmp, void *ctx);

/*
 * Replace the file at path by text, atomically and durably: written to
 * a temporary file in the same directory, fsync'ed, renamed over path,
 * the directory fsync'ed.  Whatever happens, path holds either the old
 * or the new text.  0, or -errno with why in err.
 */
int r45desc_write_atomic(const char *path, const char *text, size_t len,
			 r45desc_before_rename_fn before_rename, void *ctx,
			 char *err, size_t errsize);
/*
 * A test seam: the fsync() of the files and directories written (NULL:
 * fsync itself); 0 or -1 with errno.
 */
extern int (*r45desc_fsync)(int fd);
/*
 * r45desc_format(), checked by parsing it back (a description the next
 * read would refuse is not written: -EINVAL), then r45desc_write_atomic()
 * (the file keeps its mode).  Under the array's lock: the temporary
 * files a crashed writer left (.<name>.conf.XXXXXX, older than this
 * call) are removed first.
 */
int r45desc_save(const char *path, const struct r45desc *d, char *err, size_t errsize);
/*
 * The same for a new description: published by link(), -EEXIST (err
 * says so) if path exists, never overwritten.
 */
int r45desc_create(const char *path, const struct r45desc *d, char *err, size_t errsize);
/*
 * Remove the description at path, under its lock, only if it still
 * gives uuid (a create undone): 0, -EEXIST if it gives another (left
 * alone), -ENOENT, or -errno with why in err.
 */
int r45desc_remove(const char *path, const char *uuid, char *err, size_t errsize);

/*
 * The description of a dm device: <dir>/<name>.conf, or else the file
 * in dir whose uuid is uuid (a renamed device).  0 with path filled,
 * -ENOENT if there is none, -EINVAL if <name>.conf gives another uuid
 * than a non-empty uuid or two files give uuid (why in err), another
 * -errno otherwise: also when no file gives uuid but one .conf cannot
 * be read or parsed (it may be the description: err names it).
 */
int r45desc_find(const char *dir, const char *name, const char *uuid,
		 char *path, size_t size, char *err, size_t errsize);

/*
 * Serialise the changes of one description (the plugin's threads and
 * raid45ctl): an exclusive flock() on the file at path itself (taken
 * again if the file was replaced meanwhile), held until
 * r45desc_unlock(); other arrays' descriptions are not locked.  A
 * descriptor, or -errno (-ENOENT: no file) with why in err.
 *
 * Also held from a table load to its resume (plugin and raid45ctl
 * alike), so that two programs' load/suspend/resume never interleave:
 * take it, check that the device has no inactive table, load, suspend
 * (noflush), resume, then unlock.  flock() locks belong to the open file
 * description: while holding it, do not call what takes it again
 * (r45desc_save, r45desc_record_*, r45desc_remove): that would wait for
 * itself until the bound below.
 *
 * Waits at most R45DESC_LOCK_TIMEOUT_MS for another holder, then
 * -EWOULDBLOCK (err says so); r45desc_lock_wait() takes the bound in ms
 * (< 0: no bound).
 */
#define R45DESC_LOCK_TIMEOUT_MS 10000
int r45desc_lock(const char *path, char *err, size_t errsize);
int r45desc_lock_wait(const char *path, int timeout_ms, char *err, size_t errsize);
void r45desc_unlock(int fd);

/*
 * The name to record for the block device path (rdev): a
 * /dev/disk/by-id name of it (r45desc_by_id: a test seam) for a kernel
 * name such as /dev/sde, which another boot may give another disk; the
 * path itself if it is a /dev/disk/ or /dev/mapper/ name already or has
 * no by-id name.  1 if out is another name than path, 0 if it is path.
 */
extern const char *r45desc_by_id;
int r45desc_stable_path(const char *path, dev_t rdev, char *out, size_t size);

/*
 * Does a description in dir name the block device dev (a member or the
 * disk log, by device number)?  1 with who ("member 2 (...) of the
 * array r5 described in ..."), 0, or -errno.  A file that does not
 * parse may name it: 1 (who says which file and why).
 */
int r45desc_used_by(const char *dir, dev_t dev, char *who, size_t size);

/*
 * The block devices below dev (dev itself first, a partition's disk,
 * the slaves of a dm or md device, recursively), from sysfs
 * (r45desc_sysfs, "/sys": a test seam): how many were put in out.
 */
extern const char *r45desc_sysfs;
int r45desc_below(dev_t dev, dev_t *out, unsigned int max);
/*
 * Is the directory dir on the array (its file system's device is the
 * array or stacked on it)?  A record there would wait behind the writes
 * held for the failure it records.  1 (why in err), 0, or -errno.
 * (A file system whose st_dev is not its device's, as btrfs, is not
 * seen.)
 */
int r45desc_dir_on(const char *dir, dev_t array, char *err, size_t errsize);

/*
 * Record, durably, that the members in mask have failed (current and
 * rebuilding ones become failed; failed and missing ones stay): the
 * file is written again even if nothing changed (a failed record's
 * rename may be in the page cache only, and a second fsync may report
 * success for pages whose write failed): 0 only once that new write,
 * its fsync, the rename and the directory's fsync succeeded.  nr_members is the
 * array's (the status's): a description of another count is refused.
 * *changed (may be NULL) gets the members whose state changed.  0, or
 * -errno with why in err.  Takes r45desc_lock() itself.
 */
int r45desc_record_failed(const char *path, uint32_t mask, unsigned int nr_members,
			  uint32_t *changed, char *err, size_t errsize);
/*
 * The same for a finished rebuild: the members in mask that are
 * rebuilding become current (others stay as they are: a failed one was
 * replaced by something the description does not name), each only if
 * its recorded path is the device the kernel rebuilt, devs[i] (from the
 * status): else nothing changes, -ESTALE.
 */
int r45desc_record_rebuilt(const char *path, uint32_t mask, unsigned int nr_members,
			   const dev_t *devs, uint32_t *changed, char *err, size_t errsize);
/* A block device path's device number (a test seam): 0 or -errno. */
extern int (*r45desc_devno)(const char *path, dev_t *dev);

/*
 * A degraded activation's record undone when the kernel refused the
 * table (nothing was written: the members left out are not stale): the
 * members in mask that are failed with the same path again get their
 * state in before (the description as read before the record).
 */
int r45desc_record_unfailed(const char *path, uint32_t mask, const struct r45desc *before,
			    char *err, size_t errsize);

/*
 * Member k (failed or missing in the description) replaced by dev (at
 * offset) and being rebuilt: recorded rebuilding.  0, or -errno with why.
 */
int r45desc_record_replaced(const char *path, unsigned int k, unsigned int nr_members,
			    const char *dev, uint64_t offset, char *err, size_t errsize);

/*
 * The plugin's record for a dm device (name, uuid) and its raid45 target
 * at start: its description found (r45desc_find), trusted (trust: 0, or
 * -errno with why), then the members in mask recorded failed (failed) or
 * rebuilt (rebuilt: the array's member devices, NULL for failed; see
 * r45desc_record_rebuilt).  0; -ENOENT only when the device has no description (nothing
 * to record); any other -errno with why in err: a description of another
 * array (UUID), of a target not at sector 0, not trusted, damaged, or
 * that could not be written.
 */
typedef int (*r45desc_trust_fn)(const char *path, char *why, size_t size);
int r45desc_record_device(const char *dir, const char *name, const char *uuid,
			  uint64_t start, uint32_t mask, unsigned int nr, const dev_t *rebuilt,
			  r45desc_trust_fn trust, char *err, size_t errsize);
/*
 * The same for a spare the monitor put in member k's place, recorded by
 * its r45desc_stable_path() name (as raid45ctl records members).
 */
int r45desc_record_device_replaced(const char *dir, const char *name, const char *uuid,
				   uint64_t start, unsigned int k, unsigned int nr,
				   const char *dev, uint64_t offset, r45desc_trust_fn trust,
				   char *err, size_t errsize);

#endif
