// SPDX-License-Identifier: GPL-2.0
/*
 * dm-raid456: the device-mapper target "raid45" (RAID4/5/6).
 *
 * A thin layer over the md-style core in md-compat/ and raid5/: it parses
 * the table (see the interface spec), builds an array, maps bios, prints
 * status and table, takes messages and handles suspend/resume.
 *
 * Why one file of ~1,500 lines: every entry point dm calls (ctr, dtr,
 * map, end_io, status, message, the suspend and resume hooks) works on
 * struct raid45 and its held-writes state, whose rules (hold_write,
 * hold_completion, end_flush, allow_writes, release_held) must be read
 * together with the map and suspend paths they order against; split up,
 * that ordering would be spread over files.  The table parser, which
 * shares nothing of it, is dm-raid456-table.c.
 */
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/device-mapper.h>
#include <linux/dm-dirty-log.h>
#include <linux/slab.h>
#include "r45_array.h"
#include "r45_table.h"
#include "r45_compat.h"

#define DM_MSG_PREFIX "raid45"

struct raid45 {
	struct dm_target *ti;
	struct list_head list;		/* on raid45_list while constructed */
	bool resumed;			/* has been resumed at least once */
	bool replaced;			/* another table of the device was
					 * resumed after it (raid45_list_lock) */
	struct r45_array *array;
	struct dm_dirty_log *log;
	bool log_owned;			/* by the array's region hash */
	int log_sync;			/* the log's sync word as created */
	bool read_only;			/* a read-only table: writes nothing */
	struct dm_dev *journal_dev;	/* journal_dev <dev>, or NULL */
	struct dm_dev *log_dev;		/* a disk log's device, read here: for
					 * a crash's record at activation, and
					 * as a read-only table's whole log */
	bool statistics;
	bool overwrite;
	bool discard;			/* discards taken: see cut_discard */

	/*
	 * Writes held back after a member failure until user space, told by
	 * the event, has recorded the failure in its metadata and sends
	 * "allow_writes" (as the original dm-raid45 did, and md does for
	 * arrays with external metadata): otherwise a crash could leave
	 * metadata that calls the stale member current.
	 */
	spinlock_t hold_lock;
	struct bio_list held;		/* writes not yet started */
	struct bio_list held_done;	/* writes done, completion held */
	unsigned long failures_acked;	/* failed members user space knows */
	unsigned long failures_warned;	/* failed members the log told of */
	bool suspending;		/* presuspend ran: hold nothing new */
	bool suspend_killed;		/* the last suspend's wait for member
					 * I/O was killed: the array ran on */
	struct r45_table t;		/* the table line, parsed */
	struct dm_dev *devs[R45_MAX_DISKS];
};

/*
 * skip_copy (md's knob of that name): whole-stripe writes of pages that
 * cannot change under the write go to the members without a copy into
 * the stripe cache (raid5/stripe.c, write_in_place), and arrays ask for
 * stable writes so that file systems on them keep their pages unchanged
 * while written (6.11 and later; see r45_compat.h).  Off by default, as
 * in md: stable writes make a writer wait for the writeback of a page it
 * changes.  Read when a table is loaded.
 */
static bool skip_copy;
module_param(skip_copy, bool, 0644);
MODULE_PARM_DESC(skip_copy, "Write whole stripes of stable pages without copying them; asks for stable writes (tables loaded after the change)");

/* Every constructed raid45 target: a reload finds its predecessor here. */
static LIST_HEAD(raid45_list);
static DEFINE_MUTEX(raid45_list_lock);

static void raid45_free(struct raid45 *rs)
{
	unsigned int i;

	mutex_lock(&raid45_list_lock);
	list_del(&rs->list);
	mutex_unlock(&raid45_list_lock);

	if (rs->array)
		r45_array_destroy(rs->array);
	if (rs->log && !rs->log_owned)
		dm_dirty_log_destroy(rs->log);
	if (rs->log_dev)
		dm_put_device(rs->ti, rs->log_dev);
	if (rs->journal_dev)
		dm_put_device(rs->ti, rs->journal_dev);
	for (i = 0; i < rs->t.nr_devs; i++)
		if (rs->devs[i])
			dm_put_device(rs->ti, rs->devs[i]);
	r45_table_free(&rs->t);
	kfree(rs);
}

static unsigned int release_writes(struct raid45 *rs);
static bool writes_held(struct raid45 *rs);

/*
 * An event from the array (process context).  Once more members failed
 * than there is parity, nothing is held any more: the queued writes go
 * to the array, which fails them, and held completions end; else they
 * would wait for an allow_writes that user space, reading "writable"
 * from the status, has no reason to send.
 */
static void raid45_event(void *ctx)
{
	struct raid45 *rs = ctx;
	unsigned long failed, new = 0;
	unsigned int n;

	if (test_bit(R45_ARRAY_DEAD, &rs->array->flags)) {
		n = release_writes(rs);
		if (n)
			DMINFO("array beyond redundancy: %u held writes and completions released",
			       n);
	}
	/*
	 * Held writes wait for user space; say so once per failure, and
	 * how to release them (issue 28: nobody may be there to do it).
	 */
	spin_lock_irq(&rs->hold_lock);
	failed = r45_array_failed_mask(rs->array);
	if (writes_held(rs) && failed & ~rs->failures_warned) {
		new = failed & ~rs->failures_warned;
		rs->failures_warned = failed;
	}
	spin_unlock_irq(&rs->hold_lock);
	if (new) {
		char name[DM_NAME_LEN];

		if (dm_copy_name_and_uuid(dm_table_get_md(rs->ti->table), name,
					  NULL))
			strscpy(name, "<device>", sizeof(name));
		DMWARN("%s: member %lu failed: writes are held until user space records the failure and sends \"dmsetup message %s 0 allow_writes %lu\" (a monitor such as raid45-monitor does)",
		       name, __ffs(new), name, __ffs(new));
	}
	dm_table_event(rs->ti->table);
}

/*
 * The disk log's flush callback: dm-log calls it before it writes bits
 * it cleaned (regions whose writes finished, regions resync or rebuild
 * made consistent) and, if it fails, calls every region dirty instead.
 * Every member's cache is flushed first, so the writes a clean bit
 * stands for are on stable storage before the bit is (md's rule: flush
 * members before the log calls a region clean; see
 * r45_array_flush_members()).  The log exists before the array: until
 * the array is there nothing was written through it, nothing to flush.
 * The core log never calls this (its flush does no I/O).
 */
static int raid45_log_flush(struct dm_target *ti)
{
	struct raid45 *rs = ti->private;	/* set before the log exists */

	if (!rs->array)
		return 0;
	return r45_array_flush_members(rs->array);
}

static int create_log(struct raid45 *rs, char **error)
{
	struct r45_table *t = &rs->t;
	char *args[3];
	unsigned int n = t->disk_log ? 2 : 1, i;
	int sync = t->recovery_sync != R45_SYNC_DEFAULT ?
		   t->recovery_sync : t->log_sync;

	/*
	 * "sync" means a resync on first activation.  A disk log given no
	 * sync word resyncs everything when its device holds no valid log
	 * and otherwise only what its bits call dirty; given "sync" it would
	 * resync everything on every resume (dm-log reads a forced-sync log
	 * as new each time).  A member to rebuild (dev_to_init) puts every
	 * region out of sync at the table's first resume instead
	 * (raid45_resume), whatever the log was created with.
	 */
	if (t->disk_log && sync == R45_SYNC)
		sync = R45_SYNC_DEFAULT;
	rs->log_sync = sync;
	/* the flush callback finds rs through ti->private (ctr sets it
	 * again at its end); rs->array is NULL until the array exists */
	rs->ti->private = rs;
	if (t->disk_log) {
		int r = dm_get_device(rs->ti, t->log_argv[0],
				      dm_table_get_mode(rs->ti->table),
				      &rs->log_dev);

		if (r) {
			*error = "Cannot open the log device";
			return r;
		}
	}
	if (rs->read_only && t->disk_log) {
		/*
		 * dm-log's disk log writes its device at every resume: a
		 * read-only table keeps its regions in a core log, read from
		 * the disk log's bits at the first resume (md-compat/rolog.c),
		 * and prints the disk log's words (raid45_status).
		 */
		args[0] = t->log_argv[1];
		args[1] = "nosync";
		rs->log = dm_dirty_log_create("core", rs->ti, NULL, 2, args);
	} else {
		for (i = 0; i < n; i++)
			args[i] = t->log_argv[i];
		if (sync != R45_SYNC_DEFAULT)
			args[n++] = sync ? "sync" : "nosync";
		rs->log = dm_dirty_log_create(t->log_type, rs->ti,
					      raid45_log_flush, n, args);
	}
	if (!rs->log) {
		*error = "Error creating dirty log";
		return -EINVAL;
	}
	return 0;
}

/* [ext] A member the table names as "- -": missing, failed from the start. */
static bool member_missing(struct raid45 *rs, unsigned int i)
{
	return rs->t.missing & BIT(i);
}

/* A member's name in status and table lines: maj:min, or "-" if missing. */
static const char *member_name(struct raid45 *rs, unsigned int i)
{
	return rs->devs[i] ? rs->devs[i]->name : "-";
}

/*
 * A member's partial parity log area: on the device, whole, clear of the
 * data, and the log's entries count 512-byte sectors (md's native
 * format), which members with larger blocks cannot take.
 */
static int check_ppl_area(struct raid45 *rs, unsigned int i, unsigned int lbs,
			  char **error)
{
	struct r45_table *t = &rs->t;
	s64 start = (s64)t->offsets[i] + t->ppl_offset;
	s64 end = start + (s64)t->ppl_size;
	s64 data = t->offsets[i], data_end = data + t->geom.dev_sectors;

	if (lbs != SECTOR_SIZE) {
		*error = "A partial parity log needs members with 512-byte logical blocks";
		return -EINVAL;
	}
	if (start < 0 || end > (s64)bdev_nr_sectors(rs->devs[i]->bdev)) {
		*error = "Partial parity log area outside the member";
		return -EINVAL;
	}
	if (start < data_end && end > data) {
		*error = "Partial parity log area overlaps the member's data";
		return -EINVAL;
	}
	return 0;
}

/*
 * Refusals with numbers.  dm prints ti->error once the constructor has
 * returned ("<maj:min>: raid45: <ti->error> (<errno>)" from
 * dm_table_add_target, in 6.1 and 6.12), when everything the
 * constructor allocated is freed again, and it does not own or free
 * what ti->error points to.  A message formatted for one refusal would need memory that
 * lives past the constructor and that nobody frees (a leak per refusal),
 * or a buffer shared by every raid45 constructor: table loads of
 * different devices run concurrently, so one refusal could print, or
 * tear, another's text.  So ti->error is always a constant string, and
 * the numbers (which member, which sizes, what would be valid, the error
 * of an open) are logged by the constructor itself, on the line before
 * dm's, with the same device name dm uses.
 */
static __printf(2, 3) void ctr_why(struct dm_target *ti, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	DMERR("%s: %pV", dm_device_name(dm_table_get_md(ti->table)), &vaf);
	va_end(args);
}

/*
 * Why member i could not be opened: its index, path (and number), the
 * error and what it means.  The holder of a device in use is not the
 * kernel's to name here (the open failed: we never see the device): the
 * message says where it shows.
 */
static void lookup_why(struct raid45 *rs, unsigned int i, int r)
{
	const char *path = rs->t.paths[i], *what;
	char devno[24] = "", num[32] = "";
	unsigned int major, minor;
	dev_t dev;
	int e;

	if (sscanf(path, "%u:%u", &major, &minor) == 2) {
		snprintf(devno, sizeof(devno), "%u:%u", major, minor);
	} else {
		e = lookup_bdev(path, &dev);
		if (!e) {
			snprintf(devno, sizeof(devno), "%u:%u", MAJOR(dev),
				 MINOR(dev));
			snprintf(num, sizeof(num), " = %s", devno);
		} else if (r == -ENODEV) {
			r = e;	/* 6.1 says -ENODEV for any path not found */
		}
	}
	switch (r) {
	case -EBUSY:
		what = "in use: another holder has it open exclusively (a mounted filesystem, swap, md, a program): see";
		break;
	case -ENOENT:
		what = "no such file";
		break;
	case -ENOTBLK:
		what = "not a block device";
		break;
	case -ENXIO:
	case -ENODEV:
		what = "no such device (its driver is not loaded, or it is gone)";
		break;
	case -EACCES:
	case -EROFS:
		what = "no access in this table's mode (a read-only device in a writable table?)";
		break;
	case -EINVAL:
		what = "invalid (the array's own device?)";
		break;
	default:
		what = "cannot be opened";
	}
	if (r == -EBUSY)
		ctr_why(rs->ti, "member %u of %u (%s%s): %pe: %s /sys/dev/block/%s/holders, /proc/mounts, /proc/swaps",
			i, rs->t.nr_devs, path, num, ERR_PTR(r), what,
			devno[0] ? devno : "<maj:min>");
	else
		ctr_why(rs->ti, "member %u of %u (%s%s): %pe: %s", i,
			rs->t.nr_devs, path, num, ERR_PTR(r), what);
}

/* Open the members; the same device twice is refused. */
static int get_devices(struct raid45 *rs, char **error)
{
	struct r45_table *t = &rs->t;
	unsigned int i, j, lbs;
	int r;

	for (i = 0; i < t->nr_devs; i++) {
		if (member_missing(rs, i))
			continue;
		r = dm_get_device(rs->ti, t->paths[i],
				  dm_table_get_mode(rs->ti->table), &rs->devs[i]);
		if (r) {
			*error = "Device lookup failure";
			lookup_why(rs, i, r);
			return r;
		}
		for (j = 0; j < i; j++)
			if (rs->devs[j] && rs->devs[j]->bdev == rs->devs[i]->bdev) {
				*error = "Duplicate raid device";
				return -EINVAL;
			}
		/* a stripe unit is 4 KiB: a member must be able to write one */
		lbs = bdev_logical_block_size(rs->devs[i]->bdev);
		if (lbs > R45_STRIPE_BYTES) {
			*error = "Member logical block size above 4096 bytes";
			return -EINVAL;
		}
		if (t->offsets[i] & ((lbs >> SECTOR_SHIFT) - 1)) {
			*error = "Member offset not a multiple of its logical block size";
			return -EINVAL;
		}
		if (t->offsets[i] + t->geom.dev_sectors >
		    bdev_nr_sectors(rs->devs[i]->bdev)) {
			*error = "Device too small for target length and offset";
			ctr_why(rs->ti, "member %u of %u (%s = %s) too small: %llu sectors needed (offset %llu + per-member length %llu), it has %llu",
				i, t->nr_devs, t->paths[i], rs->devs[i]->name,
				(unsigned long long)(t->offsets[i] +
						     t->geom.dev_sectors),
				(unsigned long long)t->offsets[i],
				(unsigned long long)t->geom.dev_sectors,
				(unsigned long long)
				bdev_nr_sectors(rs->devs[i]->bdev));
			return -EINVAL;
		}
		if (t->ppl) {
			r = check_ppl_area(rs, i, lbs, error);
			if (r)
				return r;
		}
	}
	if (t->journal_path) {
		r = dm_get_device(rs->ti, t->journal_path,
				  dm_table_get_mode(rs->ti->table),
				  &rs->journal_dev);
		if (r) {
			*error = "Journal device lookup failure";
			return r;
		}
		for (i = 0; i < t->nr_devs; i++)
			if (rs->devs[i] &&
			    rs->devs[i]->bdev == rs->journal_dev->bdev) {
				*error = "The journal device is a member";
				return -EINVAL;
			}

		if (bdev_logical_block_size(rs->journal_dev->bdev) > 4096) {
			*error = "Journal logical block size above 4096 bytes";
			return -EINVAL;
		}
	}
	/*
	 * See cut_discard.  Not with regions smaller than a row: every row
	 * would be cut into bios that rarely meet in one batch.
	 */
	rs->discard = t->region_size >=
		      (sector_t)t->geom.chunk_sectors * t->geom.data_disks;
	if (!rs->discard)
		DMINFO("no discard: region size %u below a row of %u sectors",
		       t->region_size,
		       t->geom.chunk_sectors * t->geom.data_disks);
	for (i = 0; i < t->nr_devs; i++)
		if (rs->devs[i] && !bdev_write_zeroes_sectors(rs->devs[i]->bdev))
			rs->discard = false;
	if (rs->read_only)
		rs->discard = false;
	return 0;
}

/*
 * The same array in another size: type, members, chunk and parity
 * placement equal; only the length of each member's data may differ (a
 * reload that grows or shrinks the array, issue 33).
 */
static bool same_shape(const struct r45_geom *a, const struct r45_geom *b)
{
	return a->type == b->type && a->raid_disks == b->raid_disks &&
	       a->parity_disks == b->parity_disks &&
	       a->data_disks == b->data_disks &&
	       a->chunk_sectors == b->chunk_sectors &&
	       a->chunk_shift == b->chunk_shift &&
	       a->raid4_parity == b->raid4_parity;
}

/*
 * The target that this one replaces in a table reload: resumed before,
 * still alive (suspended) in the same mapped device, same place, same
 * geometry but perhaps another length.  raid45_list_lock held.
 */
static struct raid45 *find_predecessor(struct raid45 *rs)
{
	struct mapped_device *md = dm_table_get_md(rs->ti->table);
	struct raid45 *o;

	list_for_each_entry(o, &raid45_list, list)
		if (o != rs && o->resumed &&
		    dm_table_get_md(o->ti->table) == md &&
		    o->ti->begin == rs->ti->begin &&
		    same_shape(&o->t.geom, &rs->t.geom))
			return o;
	return NULL;
}

static bool has_predecessor(struct raid45 *rs)
{
	bool r;

	mutex_lock(&raid45_list_lock);
	r = find_predecessor(rs);
	mutex_unlock(&raid45_list_lock);
	return r;
}

/*
 * A reload to another length (issue 33).  Growing takes the array over
 * (take_over): what was in sync stays so, the new space is resynced, or
 * trusted when the log says nosync (lvextend --nosync, mdadm
 * --assume-clean).  Shrinking loses the data past the new end, so it
 * needs the table's "shrink" word.  Checked at the constructor: a
 * refused table changes nothing.
 */
static int check_resize(struct raid45 *rs, char **error)
{
	sector_t len = rs->ti->len;
	unsigned int failed = 0;
	struct raid45 *old;
	sector_t old_len;
	int rm = -1;

	mutex_lock(&raid45_list_lock);
	old = find_predecessor(rs);
	old_len = old ? old->ti->len : len;
	if (old) {
		rm = READ_ONCE(old->array->recover_member);
		failed = r45_array_nr_failed(old->array);
	}
	mutex_unlock(&raid45_list_lock);
	/*
	 * md's rule (a resize waits for recovery): the new space of a
	 * degraded array could never be resynced, and a rebuild writes only
	 * its member, so RAID6's other parity there would stay wrong.
	 */
	if (len > old_len && rs->t.dev_to_init >= 0)
		rm = rs->t.dev_to_init;
	if (len > old_len && rs->t.missing)
		failed++;
	if (len > old_len && (rm >= 0 || failed)) {
		ctr_why(rs->ti, "cannot grow while %s: grow the whole array after the rebuild",
			rm >= 0 ? "a member is being rebuilt" : "a member is failed");
		*error = "Cannot grow a degraded or rebuilding array";
		return -EINVAL;
	}
	if (len >= old_len)
		return 0;
	if (!rs->t.shrink) {
		ctr_why(rs->ti, "the table is %llu sectors shorter than the running array (%llu): the data past sector %llu would be gone; add shrink before <#raid_devs> to load it anyway",
			(unsigned long long)(old_len - len),
			(unsigned long long)old_len, (unsigned long long)len);
		*error = "Shorter than the running array (add shrink to cut its end off)";
		return -EINVAL;
	}
	DMWARN("shrink: the array is cut from %llu to %llu sectors: the data past the new end is gone",
	       (unsigned long long)old_len, (unsigned long long)len);
	return 0;
}

/*
 * Every raid45 target of another table of this device that ran before
 * is replaced by this table's resume (a reload, whatever its shape).
 * raid45_list_lock held.
 */
static void mark_replaced(struct raid45 *rs)
{
	struct mapped_device *md = dm_table_get_md(rs->ti->table);
	struct raid45 *o;

	list_for_each_entry(o, &raid45_list, list)
		if (o != rs && o->resumed && o->ti->table != rs->ti->table &&
		    dm_table_get_md(o->ti->table) == md)
			o->replaced = true;
}

/* Member @i is the same device at the same offset in both tables. */
static bool kept_member(struct raid45 *rs, struct raid45 *old, unsigned int i)
{
	return rs->devs[i] && old->devs[i] &&
	       rs->devs[i]->bdev == old->devs[i]->bdev &&
	       rs->t.offsets[i] == old->t.offsets[i];
}

/*
 * The member whose unfinished rebuild (dev_to_init or readd) a reload
 * continues, or -1: the new table keeps it in its place, as <dev_to_init>
 * or without one.  A new table that names it <dev_to_init> rebuilds it
 * whole (r45_trust_rebuild_all).
 */
static int rebuild_going_on(struct raid45 *rs, struct raid45 *old)
{
	int rm = READ_ONCE(old->array->recover_member);

	if (rm < 0 || rs->t.dev_to_init >= 0 || !kept_member(rs, old, rm))
		return -1;
	return rm;
}

/*
 * A reload may not drop an unfinished rebuild (review of issue 31): the
 * member being rebuilt holds nothing yet where the rebuild has not been,
 * and a table that took it for a whole member would serve those blocks
 * and resync parity from them.  It must stay in its place (to go on),
 * be the new <dev_to_init> (rebuilt whole), or be named missing.
 */
static int check_rebuild_kept(struct raid45 *rs, char **error)
{
	struct raid45 *old;
	int rm = -1;

	mutex_lock(&raid45_list_lock);
	old = find_predecessor(rs);
	if (old)
		rm = READ_ONCE(old->array->recover_member);
	if (rm >= 0 && rm != rs->t.dev_to_init &&
	    !(rs->t.missing & BIT(rm)) &&
	    (rs->t.dev_to_init >= 0 || !kept_member(rs, old, rm)))
		rm = -2 - rm;
	mutex_unlock(&raid45_list_lock);
	if (rm > -2)
		return 0;
	ctr_why(rs->ti, "Member %d is being rebuilt: keep it in its place, make it <dev_to_init>, or name it missing",
		-2 - rm);
	*error = "A member being rebuilt is not kept in its place";
	return -EINVAL;
}

/*
 * md refuses to start a dirty degraded array (issue 26, the write hole):
 * after a crash, a stripe that was being written may hold new data on
 * some members and old on others, its parity matching neither, and a
 * block of a missing member computed from it is wrong, silently.  The
 * disk log tells which regions a crash left dirty: an activation (not a
 * reload, whose predecessor knows better) with a valid disk log that
 * calls regions dirty, and a member missing or to be rebuilt, is refused
 * unless the table says start_dirty_degraded (logged as a warning).
 * Either way those regions are untrusted (a->untrusted): no block is
 * computed from their parity until a resync made them consistent, so a
 * member that fails later, during the resync, loses nothing silently
 * either.  A core log has no record of a crash: its sync word is the
 * caller's word.  The count goes to the log (ctr_why), ti->error is a
 * constant.
 */
static int check_dirty_degraded(struct raid45 *rs, char **error)
{
	struct r45_table *t = &rs->t;
	struct r45_array *a = rs->array;
	unsigned long long n;
	struct raid45 *old;
	bool vouched;
	long cnt;

	if (!t->disk_log || rs->log_sync != R45_SYNC_DEFAULT)
		return 0;
	mutex_lock(&raid45_list_lock);
	old = find_predecessor(rs);
	mutex_unlock(&raid45_list_lock);
	if (old)
		return 0;
	/*
	 * The partial parity log's replay makes every interrupted stripe
	 * right again, if it was on during the last run: its areas say so.
	 */
	vouched = (a->ppl && r45_ppl_vouches(a, t->dev_to_init)) ||
		  r45_journal_vouches(a);
	/*
	 * The trust owner reads the crash's record: TORN regions (none when
	 * the log vouches), and whether the log is of another region count.
	 */
	cnt = r45_trust_activate(a, rs->log_dev->bdev, vouched);
	if (cnt < 0) {
		*error = "Cannot allocate memory to read the disk log";
		return cnt;
	}
	n = cnt;
	if (!n || (!t->missing && t->dev_to_init < 0))
		return 0;
	if (!t->start_dirty_degraded) {
		ctr_why(rs->ti, "%llu regions unsafe: out of sync after a crash with a member missing or to rebuild; add start_dirty_degraded before <#raid_devs> to activate anyway",
			n);
		*error = "Dirty degraded activation (regions unsafe after a crash)";
		return -EINVAL;
	}
	if (t->dev_to_init >= 0) {
		DMWARN("start_dirty_degraded: %llu regions left out of sync by a crash: member %d is rebuilt there from parity that may be inconsistent",
		       n, t->dev_to_init);
		r45_trust_force_rebuild(a);
	}
	else
		DMWARN("start_dirty_degraded: %llu regions left out of sync by a crash, with a member missing: blocks computed from their parity fail with I/O errors",
		       n);
	return 0;
}

/* The table line: see dm-raid456-table.c. */
static int raid45_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	char why[R45_WHY_SIZE];
	struct raid45 *rs;
	struct r45_table *t;
	unsigned int i;
	int r;

	rs = kzalloc(sizeof(*rs), GFP_KERNEL);
	if (!rs) {
		ti->error = "Cannot allocate raid45 context";
		return -ENOMEM;
	}
	rs->ti = ti;
	INIT_LIST_HEAD(&rs->list);
	spin_lock_init(&rs->hold_lock);
	bio_list_init(&rs->held);
	bio_list_init(&rs->held_done);
	t = &rs->t;
	rs->read_only = !r45_table_writable(ti->table);

	r = r45_table_parse(t, argc, argv, ti->len, &ti->error, why);
	if (r) {
		if (why[0])
			ctr_why(ti, "%s", why);
		goto bad;
	}
	r = check_resize(rs, &ti->error);
	if (r)
		goto bad;
	r = get_devices(rs, &ti->error);
	if (r)
		goto bad;
	r = create_log(rs, &ti->error);
	if (r)
		goto bad;
	if (rs->journal_dev && rs->log_dev &&
	    rs->log_dev->bdev == rs->journal_dev->bdev) {
		ti->error = "The journal device is the log device";
		r = -EINVAL;
		goto bad;
	}

	rs->array = r45_array_create(&t->geom, t->stripes,
				     t->ppl && !rs->read_only, raid45_event, rs);
	if (!rs->array) {
		ti->error = "Cannot allocate RAID array";
		r = -ENOMEM;
		goto bad;
	}
	for (i = 0; i < t->nr_devs; i++)
		if (member_missing(rs, i))
			r45_array_set_missing(rs->array, i);
		else
			r45_array_set_member(rs->array, i, rs->devs[i]->bdev,
					     t->offsets[i]);
	if (rs->journal_dev && !rs->read_only) {
		const char *why;

		r = r45_journal_init(rs->array, rs->journal_dev->bdev, &why);
		if (r) {
			ti->error = (char *)why;
			goto bad;
		}
		if (r45_journal_foreign(rs->array) && !has_predecessor(rs)) {
			ti->error = "The journal is open for another array geometry (wipe its first 4 KiB to start it anew)";
			r = -EINVAL;
			goto bad;
		}
	}
	if (t->ppl && !rs->read_only) {
		r = r45_ppl_init(rs->array, t->ppl_offset, t->ppl_size,
				 t->ppl_signature);
		if (r) {
			ti->error = r == -EOPNOTSUPP ?
				"The partial parity log needs 4 KiB pages" :
				"Cannot set up the partial parity log";
			goto bad;
		}
	}
	rs->array->zero_members = rs->discard;
	rs->array->read_only = rs->read_only;
	if (rs->read_only)
		DMINFO("read-only table: no resync, rebuild, repair or log write");
	rs->array->skip_copy = skip_copy && R45_CAN_SKIP_COPY;
	rs->array->self = dm_disk(dm_table_get_md(ti->table))->part0;
	if (skip_copy && !R45_CAN_SKIP_COPY)
		DMINFO("skip_copy needs Linux 6.11 or later: every write is copied");
	rs->array->bandwidth = t->bandwidth;
	rs->array->recovery_stripes = t->recovery_stripes;
	r = r45_sync_init(rs->array, rs->log, t->region_size,
			  dm_sector_div_up(ti->len, t->region_size),
			  t->dev_to_init);
	if (r) {
		ti->error = "Cannot start the sync driver";
		goto bad;
	}
	rs->log_owned = true;
	r = check_dirty_degraded(rs, &ti->error);
	if (!r)
		r = check_rebuild_kept(rs, &ti->error);
	if (r)
		goto bad;

	/*
	 * A bio never crosses a region (its write is counted in one); map
	 * cuts reads at chunk ends.  Writes stay whole: one region count
	 * and one pass through the plugger for up to a region of data.
	 */
	r = dm_set_target_max_io_len(ti, t->region_size);
	if (r)
		goto bad;
	/* dm core clones each flush once per member (see raid45_map) */
	ti->num_flush_bios = t->nr_devs;
	if (rs->discard) {
		/* one clone, cut in map; the members get write-zeroes */
		ti->num_discard_bios = 1;
		ti->discards_supported = true;
	}
	ti->per_io_data_size = sizeof(struct r45_bio_info);
	ti->private = rs;
	mutex_lock(&raid45_list_lock);
	list_add(&rs->list, &raid45_list);
	mutex_unlock(&raid45_list_lock);
	return 0;
bad:
	raid45_free(rs);
	return r;
}

/*
 * A table with a partial parity log goes away with no other table of the
 * device resumed after it (dmsetup remove, or a reload that failed): its
 * suspend emptied the logs, and the headers at the start of the areas
 * are marked closed now (r45_ppl_close), so that they cannot vouch for a
 * crash of a later run without the log (issue 31, finding 6:
 * r45_ppl_vouches).  After a clean removal the disk log is clean, and
 * nothing needs vouching for; md takes a closed log as an empty one.  A table a reload replaced
 * (whatever the new one's geometry: first_resume marks it) leaves the
 * areas to the live table, which may be writing its own headers there.
 */
static void raid45_dtr(struct dm_target *ti)
{
	struct raid45 *rs = ti->private;

	if (rs->array && (rs->array->ppl || rs->array->journal) &&
	    rs->resumed && !rs->replaced && !rs->suspend_killed) {
		unsigned int noio = memalloc_noio_save();

		r45_ppl_close(rs->array);
		r45_journal_close(rs->array, false);
		memalloc_noio_restore(noio);
	}
	raid45_free(rs);
}

/*
 * A member was re-added: what user space knows of and what the log told
 * of keep only the members still failed, so that a new failure of the
 * re-added one holds writes again.  hold_lock held.
 */
static void failed_now(struct raid45 *rs)
{
	unsigned long failed = r45_array_failed_mask(rs->array);

	rs->failures_acked &= failed;
	rs->failures_warned &= failed;
}

/* Are writes held back: a member failed that user space has not acked? */
static bool writes_held(struct raid45 *rs)
{
	unsigned long failed = r45_array_failed_mask(rs->array);

	/*
	 * A member failed that user space has not recorded (by member, not
	 * by count: a re-added one must not stand for another).  Beyond
	 * redundancy writes fail at once: nothing to hold them for.
	 */
	return (failed & ~rs->failures_acked) &&
	       hweight_long(failed) <= rs->t.geom.parity_disks;
}

/* The status word: "held" while writes are held or any bio still waits. */
static const char *held_word(struct raid45 *rs)
{
	bool held;

	spin_lock_irq(&rs->hold_lock);
	held = writes_held(rs) || !bio_list_empty(&rs->held) ||
	       !bio_list_empty(&rs->held_done);
	spin_unlock_irq(&rs->hold_lock);
	return held ? "held" : "writable";
}

/*
 * Hold a write if writes are held: DM_MAPIO_SUBMITTED.  Once presuspend
 * has run nothing new is held (the suspend waits for every bio): a
 * noflush suspend gets it back (DM_MAPIO_REQUEUE), else it goes on
 * (DM_MAPIO_REMAPPED: not held).
 */
static int hold_write(struct raid45 *rs, struct bio *bio)
{
	int r = DM_MAPIO_REMAPPED;

	spin_lock_irq(&rs->hold_lock);
	if (writes_held(rs)) {
		if (!rs->suspending) {
			bio_list_add(&rs->held, bio);
			r = DM_MAPIO_SUBMITTED;
		} else if (dm_noflush_suspending(rs->ti)) {
			r = DM_MAPIO_REQUEUE;
		}
	}
	spin_unlock_irq(&rs->hold_lock);
	return r;
}

static void set_suspending(struct raid45 *rs, bool on)
{
	spin_lock_irq(&rs->hold_lock);
	rs->suspending = on;
	spin_unlock_irq(&rs->hold_lock);
}

/* A held bio let go before user space recorded the failure. */
static void mark_unacked(struct bio_list *list)
{
	struct bio *bio;

	bio_list_for_each(bio, list)
		((struct r45_bio_info *)dm_per_bio_data(bio,
			sizeof(struct r45_bio_info)))->unacked = true;
}

/* Held writes to the array, held completions ended: how many there were. */
static unsigned int send_held(struct raid45 *rs, struct bio_list *list,
			      struct bio_list *done)
{
	unsigned int n = 0;
	struct bio *bio;

	while ((bio = bio_list_pop(list))) {
		r45_array_submit(rs->array, bio,
				 dm_per_bio_data(bio, sizeof(struct r45_bio_info)));
		n++;
	}
	/* raid45_end_io sees the writes allowed now: they complete */
	while ((bio = bio_list_pop(done))) {
		bio_endio(bio);
		n++;
	}
	return n;
}

/*
 * Let the held writes go without user space having recorded the failure:
 * a suspend or a dead array ends the hold.  Nothing is acknowledged (issue
 * 31, finding 5): after a resume new writes are held again until user
 * space names the failure in allow_writes.  The writes let go here keep
 * their regions out of sync in the log (raid45_end_io): a crash before
 * the failure is recorded finds them dirty, as md keeps the bitmap bits
 * of writes to a degraded array.  Returns how many were held.
 */
static unsigned int release_writes(struct raid45 *rs)
{
	struct bio_list list, done;

	spin_lock_irq(&rs->hold_lock);
	list = rs->held;
	bio_list_init(&rs->held);
	done = rs->held_done;
	bio_list_init(&rs->held_done);
	spin_unlock_irq(&rs->hold_lock);
	mark_unacked(&list);
	mark_unacked(&done);
	return send_held(rs, &list, &done);
}

/*
 * "allow_writes [<idx>...]": user space has recorded the failures of
 * members @named (issue 31, finding 4: an acknowledgement names what it
 * acknowledges, so that a failure after user space read the status is
 * not acknowledged with the ones it acted on); @named 0, the bare form
 * of scripts, acknowledges every member failed now.  A named member that
 * is not failed refuses the whole message.  The held writes go only once
 * every failed member is acknowledged.  Returns how many were let go, or
 * -EINVAL; *still: members whose failure is still unacknowledged.
 */
static int allow_writes(struct raid45 *rs, unsigned long named,
			unsigned long *still)
{
	struct bio_list list, done;
	unsigned long failed;

	spin_lock_irq(&rs->hold_lock);
	failed = r45_array_failed_mask(rs->array);
	if (named & ~failed) {
		spin_unlock_irq(&rs->hold_lock);
		*still = named & ~failed;
		return -EINVAL;
	}
	rs->failures_acked |= named ? named : failed;
	*still = 0;
	if (writes_held(rs)) {
		*still = failed & ~rs->failures_acked;
		spin_unlock_irq(&rs->hold_lock);
		return 0;
	}
	list = rs->held;
	bio_list_init(&rs->held);
	done = rs->held_done;
	bio_list_init(&rs->held_done);
	spin_unlock_irq(&rs->hold_lock);
	return send_held(rs, &list, &done);
}

/*
 * A write finished while writes are held (it was in flight when a member
 * failed, or caused the failure): it is on the members, degraded, but its
 * completion waits for allow_writes too, and its region stays dirty until
 * then (md holds completions while its superblock records a failure).
 * Otherwise an application could be told "written" and the region called
 * clean before user space recorded that the member is stale.  Not once
 * presuspend ran: the suspend waits for every bio.
 */
static bool hold_completion(struct raid45 *rs, struct bio *bio,
			    blk_status_t error)
{
	unsigned long flags;
	bool held = false;

	/*
	 * A failed write says "not written": nothing to protect, and held it
	 * would hang its writer on an array that can no longer take writes.
	 */
	if ((bio_op(bio) != REQ_OP_WRITE && bio_op(bio) != REQ_OP_DISCARD) ||
	    !bio_sectors(bio) || error ||
	    test_bit(R45_ARRAY_DEAD, &rs->array->flags))
		return false;
	spin_lock_irqsave(&rs->hold_lock, flags);
	if (writes_held(rs) && !rs->suspending) {
		bio_list_add(&rs->held_done, bio);
		held = true;
	}
	spin_unlock_irqrestore(&rs->hold_lock, flags);
	return held;
}

/*
 * A discard (issue 14; md's devices_handle_discard_safely problem): parity
 * stays right only if every member reads back zeroes where the discard
 * went, so discards are taken only when every member takes write-zeroes
 * (REQ_OP_WRITE_ZEROES guarantees zeroes afterwards; a plain discard
 * does not).  The stripe cache keeps a discard only on stripes it covers
 * whole (every data block of the row), zeroes them in the cache (parity
 * of zeroes is zeroes: no member is read) and sends each member a
 * write-zeroes, which a member that can unmaps; the rest of a discard
 * completes untouched.  Like a write it is counted in one region (dm core
 * does not cut discards at max_io_len: cut here at the region's end) and
 * held while a failure is not recorded.
 */
static void cut_discard(struct raid45 *rs, struct bio *bio)
{
	sector_t s = bio->bi_iter.bi_sector;
	sector_t left = rs->t.region_size - (s & (rs->t.region_size - 1));

	if (bio_sectors(bio) > left)
		dm_accept_partial_bio(bio, left);
}

static int raid45_map(struct dm_target *ti, struct bio *bio)
{
	struct raid45 *rs = ti->private;
	struct r45_bio_info *io = dm_per_bio_data(bio, sizeof(*io));

	io->member = -1;
	io->counted = false;
	io->unacked = false;
	if (bio->bi_opf & REQ_PREFLUSH) {
		/*
		 * An empty flush, one clone per member (num_flush_bios): the
		 * writes it covers have completed on the members, so flushing
		 * every live member makes them durable.  A failed member has
		 * nothing to make durable.
		 */
		unsigned int idx = dm_bio_get_target_bio_nr(bio);

		/* a read-only table wrote nothing to make durable */
		if (r45_array_member_failed(rs->array, idx) ||
		    rs->read_only) {
			bio_endio(bio);
			return DM_MAPIO_SUBMITTED;
		}
		bio_set_dev(bio, rs->devs[idx]->bdev);
		return DM_MAPIO_REMAPPED;
	}
	if (bio_op(bio) != REQ_OP_READ &&
	    (rs->read_only || (bio_op(bio) != REQ_OP_WRITE &&
			       (bio_op(bio) != REQ_OP_DISCARD || !rs->discard))))
		return DM_MAPIO_KILL;
	bio->bi_iter.bi_sector = dm_target_offset(ti, bio->bi_iter.bi_sector);
	if (bio_op(bio) == REQ_OP_READ) {
		/* reads go by chunk: each may go straight to its member */
		unsigned int chunk = rs->t.geom.chunk_sectors;
		unsigned int left = chunk - (bio->bi_iter.bi_sector & (chunk - 1));

		if (bio_sectors(bio) > left)
			dm_accept_partial_bio(bio, left);
	}
	if (bio_op(bio) == REQ_OP_DISCARD)
		cut_discard(rs, bio);
	io->iter = bio->bi_iter;
	if (bio_op(bio) != REQ_OP_READ) {
		int r = hold_write(rs, bio);

		if (r != DM_MAPIO_REMAPPED)
			return r;
	}
	if (r45_array_submit(rs->array, bio, io) == R45_REMAPPED)
		return DM_MAPIO_REMAPPED;
	return DM_MAPIO_SUBMITTED;
}

/*
 * A member's flush failed (one clone of an empty flush per member): md's
 * rule, the same as for the flushes the disk log asks for
 * (r45_array_flush_members): the member is failed, and the flush
 * succeeds while the others still hold every block, since every write
 * it covers is durable on them.  Its completion is held like a write's
 * until user space has recorded the failure (allow_writes): a crash
 * before that could bring the member back as current, with writes this
 * flush promised durable missing from it.  Beyond redundancy the error
 * stands.  Returns what dm_endio returns.
 */
static int end_flush(struct raid45 *rs, struct bio *bio, blk_status_t *error)
{
	unsigned int idx = dm_bio_get_target_bio_nr(bio);
	unsigned long flags;
	bool held = false;

	/* a held one handed back for the next table (release_held) */
	if (!*error || *error == BLK_STS_DM_REQUEUE)
		return DM_ENDIO_DONE;
	if (!r45_array_member_failed(rs->array, idx)) {
		DMERR_LIMIT("member %u: flush failed (error %d)", idx,
			    blk_status_to_errno(*error));
		r45_array_fail_member(rs->array, idx);
	}
	if (test_bit(R45_ARRAY_DEAD, &rs->array->flags))
		return DM_ENDIO_DONE;
	*error = BLK_STS_OK;
	spin_lock_irqsave(&rs->hold_lock, flags);
	if (writes_held(rs) && !rs->suspending) {
		bio_list_add(&rs->held_done, bio);
		held = true;
	}
	spin_unlock_irqrestore(&rs->hold_lock, flags);
	/* allow_writes ends it again: its status still says the error */
	return held ? DM_ENDIO_INCOMPLETE : DM_ENDIO_DONE;
}

static int raid45_end_io(struct dm_target *ti, struct bio *bio,
			 blk_status_t *error)
{
	struct raid45 *rs = ti->private;
	struct r45_bio_info *io = dm_per_bio_data(bio, sizeof(*io));
	int member = io->member;

	if (bio->bi_opf & REQ_PREFLUSH)
		return end_flush(rs, bio, error);
	if (hold_completion(rs, bio, *error))
		return DM_ENDIO_INCOMPLETE;	/* ended again by allow_writes */
	if (r45_array_write_done(rs->array, bio, io))
		return DM_ENDIO_INCOMPLETE;	/* ended again once its region
						 * is marked out of sync */
	if (member < 0 || !*error || bio_op(bio) != REQ_OP_READ ||
	    *error == BLK_STS_NOTSUPP)
		return DM_ENDIO_DONE;
	/* a member read failed: serve it again degraded, from the others */
	io->member = -1;
	bio->bi_iter = io->iter;
	r45_array_retry_read(rs->array, bio, member);
	return DM_ENDIO_INCOMPLETE;
}

/* ---- status and table ---- */

static const char *sync_word(int s)
{
	return s == R45_SYNC ? "sync" : s == R45_NOSYNC ? "nosync" : "-1";
}

static void raid45_status(struct dm_target *ti, status_type_t type,
			  unsigned int status_flags, char *result,
			  unsigned int maxlen)
{
	struct raid45 *rs = ti->private;
	struct r45_array *a = rs->array;
	unsigned int sz = 0, i;
	const char *action;
	u64 in_sync, done, total;

	switch (type) {
	case STATUSTYPE_INFO:
		DMEMIT("%u", rs->t.nr_devs);
		for (i = 0; i < rs->t.nr_devs; i++)
			DMEMIT(" %s", member_name(rs, i));
		DMEMIT(" 1 ");
		for (i = 0; i < rs->t.nr_devs; i++) {
			bool init = (int)i == READ_ONCE(a->recover_member);

			DMEMIT("%c", r45_array_member_failed(a, i) ? 'D' : 'A');
			if ((int)i == rs->t.geom.raid4_parity)
				DMEMIT("p");
			if (init)
				DMEMIT("i");
		}
		in_sync = rs->log->type->get_sync_count(rs->log);
		DMEMIT(" %llu/%llu ", (unsigned long long)in_sync,
		       (unsigned long long)dm_sector_div_up(ti->len,
							    rs->t.region_size));
		if (rs->read_only && rs->log_dev)	/* dm-log's words */
			DMEMIT("3 disk %s A", rs->log_dev->name);
		else
			sz += rs->log->type->status(rs->log, type, result + sz,
						    maxlen - sz);
		/*
		 * [ext] after the spec's words: sync action, mismatches,
		 * whether writes are held after a failure (until allow_writes),
		 * member read errors rebuilt from parity and written back, and
		 * regions out of sync while a member is failed: their data is
		 * not protected (md's dirty-degraded array), and reads refused
		 * rather than computed from parity a crash may have torn
		 */
		action = r45_sync_status(a, in_sync, &done, &total);
		DMEMIT(" %s %lld %s %lld %llu %lld %s", action,
		       atomic64_read(&a->mismatches),
		       held_word(rs),
		       atomic64_read(&a->read_errors_fixed),
		       (unsigned long long)r45_trust_unprotected(a),
		       atomic64_read(&a->unsafe_reads),
		       a->ppl ? "ppl" : a->journal ? r45_journal_status(a) :
		       "-");
		if (rs->statistics)
			DMEMIT(" stats %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld",
			       atomic64_read(&a->stats.reads),
			       atomic64_read(&a->stats.writes),
			       atomic64_read(&a->stats.bypass_reads),
			       atomic64_read(&a->stats.full_writes),
			       atomic64_read(&a->stats.rmw),
			       atomic64_read(&a->stats.rcw),
			       atomic64_read(&a->stats.degraded),
			       atomic64_read(&a->stats.delayed),
			       atomic64_read(&a->stats.zeroed),
			       atomic64_read(&a->stats.in_place),
			       atomic64_read(&a->stats.moved));
		/*
		 * Then the action's progress, <done>/<total> sectors or "-"
		 * (issue 35), appended after every word the line had, the
		 * optional stats block included (the interface's rule: words
		 * are only ever appended, so a parser that counts its way to
		 * the stats block keeps working).  A reader finds it after
		 * <ppl|->, past "stats" and its 11 counters when they are there.
		 */
		if (total)
			DMEMIT(" %llu/%llu", (unsigned long long)done,
			       (unsigned long long)total);
		else
			DMEMIT(" -");
		break;
	case STATUSTYPE_TABLE:
		/* the log prints its own table words: "core 2 <rs> nosync " */
		if (rs->read_only && rs->log_dev)
			DMEMIT("disk %u %s %u %s", rs->log_sync ==
			       R45_SYNC_DEFAULT ? 2 : 3, rs->log_dev->name,
			       rs->t.region_size, rs->log_sync ==
			       R45_SYNC_DEFAULT ? "" : sync_word(rs->log_sync));
		else
			sz += rs->log->type->status(rs->log, type, result + sz,
						    maxlen - sz);
		if (sz && result[sz - 1] == ' ')
			result[--sz] = '\0';
		DMEMIT(" %s", r45_type_name(rs->t.geom.type));
		if (rs->t.geom.type == R45_RAID4)
			DMEMIT(" %d", rs->t.geom.raid4_parity);
		DMEMIT(" 7 %u %u %u %u %u %s %u",
		       rs->t.geom.chunk_sectors, a->max_stripes, rs->t.io_size,
		       rs->t.recover_io_size, a->bandwidth,
		       sync_word(rs->t.recovery_sync), rs->t.recovery_stripes);
		if (rs->t.start_dirty_degraded)
			DMEMIT(" start_dirty_degraded");
		if (rs->t.ppl)
			DMEMIT(" ppl %lld %llu 0x%08x",
			       (long long)rs->t.ppl_offset,
			       (unsigned long long)rs->t.ppl_size,
			       rs->t.ppl_signature);
		if (rs->journal_dev)
			DMEMIT(" journal_dev %s journal_mode writethrough",
			       rs->journal_dev->name);
		DMEMIT(" %u %d", rs->t.nr_devs, rs->t.dev_to_init);
		for (i = 0; i < rs->t.nr_devs; i++)
			if (member_missing(rs, i))
				DMEMIT(" - -");
			else
				DMEMIT(" %s %llu", member_name(rs, i),
				       (unsigned long long)rs->t.offsets[i]);
		break;
	default:
		result[0] = '\0';
		break;
	}
}

/* ---- messages ---- */

/* Does word abbreviate (>= 3 letters, or whole) the keyword? */
static bool word_is(const char *word, const char *keyword)
{
	size_t len = strlen(word);

	return len >= min_t(size_t, 3, strlen(keyword)) &&
	       len <= strlen(keyword) && !strncasecmp(word, keyword, len);
}

/* "set|grow|shrink <n>" applied to *val within [min, max]. */
static int adjust_value(unsigned int argc, char **argv, unsigned int *val,
			unsigned int min, unsigned int max, const char *what)
{
	unsigned int n, v;

	if (argc != 3 || kstrtouint(argv[2], 10, &n)) {
		DMERR("%s: expected set|grow|shrink <number>", what);
		return -EINVAL;
	}
	if (word_is(argv[1], "set"))
		v = n;
	else if (word_is(argv[1], "grow"))
		v = *val + n < *val ? max + 1 : *val + n;
	else if (word_is(argv[1], "shrink"))
		v = n > *val ? 0 : *val - n;
	else {
		DMERR("%s: unknown action \"%s\" (set, grow or shrink)", what,
		      argv[1]);
		return -EINVAL;
	}
	if (v < min || v > max) {
		DMERR("%s: %u out of range %u..%u", what, v, min, max);
		return -EINVAL;
	}
	*val = v;
	return 0;
}

/* "on|off|reset" for a switch; reset also clears the counters. */
static int switch_value(unsigned int argc, char **argv, bool *val,
			bool *reset, const char *what)
{
	*reset = false;
	if (argc != 2)
		goto bad;
	if (word_is(argv[1], "on"))
		*val = true;
	else if (word_is(argv[1], "off"))
		*val = false;
	else if (word_is(argv[1], "reset"))
		*reset = true;
	else
		goto bad;
	return 0;
bad:
	DMERR("%s: expected on, off or reset", what);
	return -EINVAL;
}

/*
 * "readd <idx>": a failed member that came back is taken back, rebuilt
 * only where it was written while out (r45_trust_readd).  The device
 * must be suspended (no write in flight may still skip the member); the
 * rebuild starts at the resume.
 */
static int readd_message(struct raid45 *rs, unsigned int argc, char **argv)
{
	struct r45_array *a = rs->array;
	unsigned int idx, noio;
	const char *why;
	region_t n;
	int r;

	if (argc != 2 || kstrtouint(argv[1], 10, &idx) ||
	    idx >= rs->t.nr_devs) {
		DMERR("readd: expected a member index (0..%u)",
		      rs->t.nr_devs - 1);
		return -EINVAL;
	}
	if (rs->read_only) {
		DMERR("readd: the table is read-only");
		return -EROFS;
	}
	if (!dm_suspended(rs->ti)) {
		DMERR("readd: suspend the device first (writes in flight could still skip member %u)",
		      idx);
		return -EBUSY;
	}
	/* suspended: the log reset allocates without I/O to the device */
	noio = memalloc_noio_save();
	r = r45_trust_readd(a, idx, &n, &why);
	memalloc_noio_restore(noio);
	if (r) {
		DMERR("readd: member %u refused: %s", idx, why);
		return r;
	}
	spin_lock_irq(&rs->hold_lock);
	failed_now(rs);
	spin_unlock_irq(&rs->hold_lock);
	DMINFO("readd: member %u taken back; %llu regions written while it was out are rebuilt from the resume",
	       idx, (unsigned long long)n);
	return 0;
}

static const char *const sync_words[] = {
	"check", "repair", "idle", "frozen", "resync", "recover",
};

/* "allow_writes [<idx>...]": see allow_writes(). */
static int allow_writes_message(struct raid45 *rs, unsigned int argc,
				char **argv)
{
	unsigned long named = 0, still;
	unsigned int i, idx;
	int n;

	for (i = 1; i < argc; i++) {
		if (kstrtouint(argv[i], 10, &idx) || idx >= rs->t.nr_devs) {
			DMERR("allow_writes: \"%s\" is not a member index (0-%u)",
			      argv[i], rs->t.nr_devs - 1);
			return -EINVAL;
		}
		named |= BIT(idx);
	}
	n = allow_writes(rs, named, &still);
	if (n < 0) {
		DMERR("allow_writes: member %lu is not failed: nothing acknowledged",
		      __ffs(still));
		return n;
	}
	if (still)
		DMINFO("allow_writes: writes stay held: the failure of member %lu is not acknowledged yet",
		       __ffs(still));
	else if (n)
		DMINFO("allow_writes: %d held writes and completions released",
		       n);
	return 0;
}

static int raid45_message(struct dm_target *ti, unsigned int argc,
			  char **argv, char *result, unsigned int maxlen)
{
	struct raid45 *rs = ti->private;
	struct r45_array *a = rs->array;
	unsigned int i;
	bool reset;
	int r;

	if (!argc) {
		DMERR("message: no words");
		return -EINVAL;
	}
	if (word_is(argv[0], "stripe_cache")) {
		unsigned int v = a->max_stripes;

		r = adjust_value(argc, argv, &v, R45_MIN_STRIPES,
				 R45_MAX_STRIPES, "stripe_cache");
		return r ? r : r45_cache_resize(a, v);
	}
	if (word_is(argv[0], "bandwidth")) {
		unsigned int v = a->bandwidth;

		r = adjust_value(argc, argv, &v, 1, 100, "bandwidth");
		if (!r)
			WRITE_ONCE(a->bandwidth, v);
		return r;
	}
	if (word_is(argv[0], "allow_writes"))
		return allow_writes_message(rs, argc, argv);
	if (word_is(argv[0], "readd"))
		return readd_message(rs, argc, argv);
	if (word_is(argv[0], "xor")) {
		DMERR("xor: the kernel's xor library chose its routine at boot; it cannot be selected here");
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(sync_words); i++) {
		if (!word_is(argv[0], sync_words[i]))
			continue;
		if (argc != 1) {
			DMERR("%s takes no arguments", sync_words[i]);
			return -EINVAL;
		}
		r = r45_sync_request(a, sync_words[i]);
		if (r == -EBUSY)
			DMERR("%s: %s is running", sync_words[i],
			      r45_sync_action_name(a));
		else if (r == -EROFS)
			DMERR("%s: the table is read-only", sync_words[i]);
		return r;
	}
	if (word_is(argv[0], "statistics")) {
		r = switch_value(argc, argv, &rs->statistics, &reset,
				 "statistics");
		if (!r && reset)
			memset(&a->stats, 0, sizeof(a->stats));
		return r;
	}
	if (word_is(argv[0], "overwrite")) {
		r = switch_value(argc, argv, &rs->overwrite, &reset,
				 "overwrite");
		if (!r && reset)
			rs->overwrite = false;
		return r;
	}
	DMERR("message: unknown or unsupported message \"%s\": valid are stripe_cache, bandwidth, statistics, overwrite, allow_writes, readd, check, repair, idle, frozen, resync and recover (or a unique prefix of 3 letters or more)",
	      argv[0]);
	return -EINVAL;
}

/* ---- hints, devices, suspend/resume ---- */

static void raid45_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	struct raid45 *rs = ti->private;
	unsigned int chunk_bytes = rs->t.geom.chunk_sectors << SECTOR_SHIFT;

	limits->io_min = chunk_bytes;
	limits->io_opt = chunk_bytes * rs->t.geom.data_disks;
	if (rs->array->skip_copy)
		r45_want_stable_writes(limits);
	if (rs->discard) {
		/*
		 * The block layer rounds discards to the granularity with
		 * round_up(): a power of two, as md's, the smallest that holds
		 * a row.  A bio is at most a region (cut_discard cuts there).
		 * 6.1 reads max_discard_sectors; later kernels derive it from
		 * max_hw_discard_sectors.
		 */
		unsigned int gran = roundup_pow_of_two(rs->t.geom.data_disks) *
				    rs->t.geom.chunk_sectors;
		unsigned int most = max(rs->t.region_size, gran);

		limits->discard_granularity = gran << SECTOR_SHIFT;
		limits->discard_alignment = 0;
		limits->max_hw_discard_sectors = most;
		limits->max_discard_sectors = most;
	}
}

static int raid45_iterate_devices(struct dm_target *ti,
				  iterate_devices_callout_fn fn, void *data)
{
	struct raid45 *rs = ti->private;
	unsigned int i;
	int r = 0;

	for (i = 0; !r && i < rs->t.nr_devs; i++)
		if (rs->devs[i])
			r = fn(ti, rs->devs[i], rs->t.offsets[i],
			       rs->t.geom.dev_sectors, data);
	return r;
}

/*
 * Writes still held when the device is suspended: a noflush suspend (a
 * table swap that keeps I/O) hands them back to dm core for the next
 * table; any other suspend waits for all I/O, so they go to the array,
 * their regions kept out of sync, and nothing is acknowledged: after the
 * resume writes are held again until user space names the failure.
 */
static void release_held(struct raid45 *rs)
{
	struct bio_list list;
	struct bio *bio;
	unsigned int n;

	set_suspending(rs, true);
	if (!dm_noflush_suspending(rs->ti)) {
		n = release_writes(rs);
		if (n)
			DMINFO("suspend: %u held writes and completions released",
			       n);
		return;
	}
	/*
	 * Held completions too: written already, but not acknowledged, the
	 * next table writes them again (the same data) and holds their
	 * completion in turn, so no application hears "written" before the
	 * failure is recorded.
	 */
	spin_lock_irq(&rs->hold_lock);
	list = rs->held;
	bio_list_init(&rs->held);
	bio_list_merge(&list, &rs->held_done);
	bio_list_init(&rs->held_done);
	spin_unlock_irq(&rs->hold_lock);
	mark_unacked(&list);
	while ((bio = bio_list_pop(&list))) {
		bio->bi_status = BLK_STS_DM_REQUEUE;
		bio_endio(bio);
	}
}

/*
 * A suspend whose wait for member I/O was cut by a fatal signal (a member
 * that stopped answering): the array runs on, its log not suspended.  dm
 * fails the suspend if application I/O is still in flight (the signal
 * ends its wait too; presuspend_undo follows), else completes it: the
 * device holds new I/O until a resume, while the array's own work (the
 * sync step that waits for the member) goes on.
 */
static void suspend_killed(struct raid45 *rs, const char *where)
{
	DMWARN("%s: suspend killed while waiting for member I/O: the array runs on",
	       where);
	set_suspending(rs, false);
	rs->suspend_killed = true;
}

static void raid45_presuspend(struct dm_target *ti)
{
	struct raid45 *rs = ti->private;

	rs->suspend_killed = false;
	release_held(rs);
	if (r45_array_suspend(rs->array)) {
		suspend_killed(rs, "presuspend");
		return;
	}
	if (rs->log->type->presuspend)
		rs->log->type->presuspend(rs->log);
}

/*
 * The suspend was interrupted (a signal while dm waited for I/O, or the
 * file system could not be frozen): dm undoes presuspend without a
 * resume, so the array must run again as if resumed.
 */
static void raid45_presuspend_undo(struct dm_target *ti)
{
	struct raid45 *rs = ti->private;

	/* core and disk logs have no presuspend: nothing of theirs to undo */
	rs->suspend_killed = false;
	set_suspending(rs, false);
	r45_array_resume(rs->array);
}

static void raid45_postsuspend(struct dm_target *ti)
{
	struct raid45 *rs = ti->private;
	unsigned int noio;

	if (rs->suspend_killed)
		return;
	/*
	 * The device is suspended: an allocation that waited for reclaim
	 * could wait for writeback to this very device (issue 31, finding
	 * 8: the partial parity log's pages and bios below).
	 */
	noio = memalloc_noio_save();
	/* no member I/O outlives a suspend (raid5/stripe.c, ppl.c) */
	if (r45_wait_rewrites(rs->array) || r45_ppl_quiesce(rs->array) ||
	    r45_journal_quiesce(rs->array)) {
		suspend_killed(rs, "postsuspend");
		r45_array_resume(rs->array);
		memalloc_noio_restore(noio);
		return;
	}
	r45_sync_flush_log(rs->array);
	/* every logged stripe is on the members: the logs are emptied */
	r45_ppl_suspend(rs->array);
	r45_journal_suspend(rs->array);
	if (rs->log->type->postsuspend)
		rs->log->type->postsuspend(rs->log);
	memalloc_noio_restore(noio);
}

/*
 * A reload keeps what the array knew: a member that failed stays failed
 * (unless it is the one the new table rebuilds), and when the table
 * names the same members and the same rebuild, resync or rebuild goes on
 * from where it was instead of starting again.
 */
static void take_over(struct raid45 *rs, struct raid45 *old)
{
	bool same = rs->t.dev_to_init == old->t.dev_to_init;
	int rebuild = rebuild_going_on(rs, old);
	unsigned int i;

	for (i = 0; i < rs->t.nr_devs; i++) {
		if (!kept_member(rs, old, i)) {
			same = false;
			continue;
		}
		if ((int)i != rs->t.dev_to_init &&
		    r45_array_member_failed(old->array, i))
			r45_array_fail_member(rs->array, i);
	}
	/*
	 * The region trust owner carries every region's state over; space
	 * a larger table adds is out of sync unless the log says nosync.
	 */
	if (rs->ti->len != old->ti->len)
		DMINFO("reload: the array %s from %llu to %llu sectors",
		       rs->ti->len > old->ti->len ? "grows" : "shrinks",
		       (unsigned long long)old->ti->len,
		       (unsigned long long)rs->ti->len);
	r45_trust_takeover(rs->array, old->array, same, rebuild,
			   rs->log_sync == R45_NOSYNC);
	if (same)
		DMINFO("reload: resync/rebuild state taken over from the previous table");
	else if (rebuild >= 0)
		DMINFO("reload: the rebuild of member %d goes on", rebuild);
}

/*
 * A table's first resume, before any I/O.  Its predecessor in a reload
 * (suspended, replaced when this resume returns) cannot go away
 * meanwhile: the list lock is not held across the I/O below.
 */
static void first_resume(struct raid45 *rs)
{
	struct r45_array *a = rs->array;
	unsigned long acked;
	struct raid45 *old;

	if (rs->read_only && rs->log_dev)
		r45_rolog_load(a, rs->log_dev->bdev, rs->log_sync);
	/*
	 * A member to rebuild: nothing of it is trusted, on the log device
	 * too (a later resume reads the bits back from there), until the
	 * rebuild, or the predecessor it takes over, got it.
	 */
	r45_trust_first_resume(a);
	if (rs->t.dev_to_init >= 0)
		r45_trust_rebuild_all(a);
	mutex_lock(&raid45_list_lock);
	old = find_predecessor(rs);
	rs->resumed = true;
	mark_replaced(rs);
	mutex_unlock(&raid45_list_lock);
	/* failures first: the log's replay must not read failed members */
	if (old)
		take_over(rs, old);
	/* a table without the predecessor's log: its areas stop vouching */
	if (old && !a->ppl)
		r45_ppl_invalidate(old->array);
	if (old && old->array->journal &&
	    (!a->journal || !rs->journal_dev || !old->journal_dev ||
	     rs->journal_dev->bdev != old->journal_dev->bdev))
		r45_journal_close(old->array, true);
	/*
	 * What user space acknowledged: a reload keeps the predecessor's
	 * acknowledgements, and a member the new table changes (names
	 * missing, gives another device, rebuilds) is a failure user space
	 * acted on; one it names as before is not (issue 31, finding 5: a
	 * reload of the same table during a monitor's hook acknowledges
	 * nothing).  A fresh activation's failed members are its own
	 * missing ones.
	 */
	acked = r45_array_failed_mask(a);
	if (old) {
		unsigned long changed = rs->t.missing;
		unsigned int i;

		for (i = 0; i < rs->t.nr_devs; i++)
			if (!kept_member(rs, old, i) ||
			    (int)i == rs->t.dev_to_init)
				changed |= BIT(i);
		acked &= READ_ONCE(old->failures_acked) | changed;
	}
	spin_lock_irq(&rs->hold_lock);
	rs->failures_acked = acked;
	spin_unlock_irq(&rs->hold_lock);
	/*
	 * The partial parity log: replayed at a fresh activation, before
	 * any I/O, and emptied; a reload continues its chains (the
	 * predecessor's suspend emptied them).  A member failed by the
	 * replay is not known to user space: writes are held for it.
	 */
	if (a->ppl && old)
		r45_ppl_takeover(a, old->array);
	else if (a->ppl)
		r45_ppl_replay(a);
	/* the journal: the same, every record written again (journal-replay.c) */
	if (a->journal && old && !old->read_only)
		r45_journal_takeover(a, old->array);
	else if (a->journal)	/* a read-only predecessor wrote nothing */
		r45_journal_replay(a);
}

/*
 * A table's first resume, before its log reads the log device.  A
 * predecessor whose suspend was killed may still run its sync driver and
 * write its log: the member answers again (user space resumes), so both
 * stop before anything is read, taken over or written.  A growth (issue
 * 33) puts the old regions dirty on the log device first: dm-log keeps
 * the bits of the old regions, so a crash before the take-over has
 * written the new state would otherwise take the space added inside the
 * old last region (or regions of another size) for in sync.
 */
static void before_log_resume(struct raid45 *rs)
{
	struct raid45 *old;

	mutex_lock(&raid45_list_lock);
	old = find_predecessor(rs);
	mutex_unlock(&raid45_list_lock);
	if (!old)
		return;
	if (old->suspend_killed) {
		r45_array_suspend(old->array);
		r45_ppl_quiesce(old->array);
		r45_journal_quiesce(old->array);
		old->suspend_killed = false;
	}
	/* the same log device, written by both tables */
	if (rs->ti->len > old->ti->len && rs->log_sync != R45_NOSYNC &&
	    !rs->read_only && rs->log_dev && old->log_dev &&
	    rs->log_dev->bdev == old->log_dev->bdev)
		r45_trust_before_grow(old->array, rs->t.region_size);
}

static void raid45_resume(struct dm_target *ti)
{
	struct raid45 *rs = ti->private;
	/*
	 * The device is suspended, a file system on it may be in reclaim:
	 * what the log's resume, its replay and the take-over allocate must
	 * not wait for I/O to it.
	 */
	unsigned int noio = memalloc_noio_save();
	bool first = !rs->resumed;

	if (first)
		before_log_resume(rs);
	/*
	 * After a killed suspend the array never stopped and its log was
	 * not suspended: resuming the log would read its bits back from the
	 * device under the running sync driver.
	 */
	if (rs->log->type->resume && !rs->suspend_killed)
		rs->log->type->resume(rs->log);
	rs->suspend_killed = false;
	if (first)
		first_resume(rs);
	memalloc_noio_restore(noio);
	set_suspending(rs, false);
	r45_array_resume(rs->array);
}

static struct target_type raid45_target = {
	.name = "raid45",
	.version = {1, 0, 0},
	.module = THIS_MODULE,
	.ctr = raid45_ctr,
	.dtr = raid45_dtr,
	.map = raid45_map,
	.end_io = raid45_end_io,
	.status = raid45_status,
	.message = raid45_message,
	.io_hints = raid45_io_hints,
	.iterate_devices = raid45_iterate_devices,
	.presuspend = raid45_presuspend,
	.presuspend_undo = raid45_presuspend_undo,
	.postsuspend = raid45_postsuspend,
	.resume = raid45_resume,
};

static int __init dm_raid456_init(void)
{
	int r = r45_stripe_module_init();

	if (r)
		return r;
	r = dm_register_target(&raid45_target);
	if (r)
		r45_stripe_module_exit();
	return r;
}

static void __exit dm_raid456_exit(void)
{
	dm_unregister_target(&raid45_target);
	r45_stripe_module_exit();
}

module_init(dm_raid456_init);
module_exit(dm_raid456_exit);

MODULE_DESCRIPTION(DM_NAME " raid4/5/6 target (raid45)");
MODULE_LICENSE("GPL");
MODULE_ALIAS("dm-raid45");
MODULE_ALIAS("dm-raid4");
MODULE_ALIAS("dm-raid5");
MODULE_ALIAS("dm-raid6");
