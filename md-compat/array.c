// SPDX-License-Identifier: GPL-2.0
/*
 * The array object: members, health, events, and the entry points the
 * dm target uses to hand it I/O.  No sysfs: everything a dm user needs is
 * reached through these functions.
 */
#include <linux/slab.h>
#include <linux/bio.h>
#include <linux/device-mapper.h>
#include <linux/dm-region-hash.h>
#include "r45_array.h"

#define DM_MSG_PREFIX "raid45"

static void r45_event_work(struct work_struct *work)
{
	struct r45_array *a = container_of(work, struct r45_array, event_work);
	void (*fn)(void *ctx) = READ_ONCE(a->event_fn);

	if (fn)
		fn(a->event_ctx);
}

static void r45_retry_work(struct work_struct *work)
{
	struct r45_array *a = container_of(work, struct r45_array, retry_work);
	struct bio_list list;
	struct bio *bio;

	spin_lock_irq(&a->retry_lock);
	list = a->retry_bios;
	bio_list_init(&a->retry_bios);
	spin_unlock_irq(&a->retry_lock);
	while ((bio = bio_list_pop(&list)))
		r45_make_request(a, bio);
}

/* What the engine reports upward lands here and in sync.c and plug.c. */
static const struct r45_engine_ops r45_glue_ops = {
	.member_failed = r45_array_fail_member,
	.read_error = r45_array_read_error,
	.sync_done = r45_sync_done,
	.plug_arm = r45_plug_arm,
	.row_in_sync = r45_trust_row_in_sync,
	.row_trusted = r45_trust_row,
	.untrust = r45_trust_untrust,
};

struct r45_array *r45_array_create(const struct r45_geom *geom,
				   unsigned int nr_stripes, bool ppl,
				   void (*event_fn)(void *), void *ctx)
{
	struct r45_array *a;
	unsigned int i;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return NULL;
	a->geom = *geom;
	a->has_ppl = ppl;
	a->array_sectors = geom->dev_sectors * geom->data_disks;
	a->event_fn = event_fn;
	a->event_ctx = ctx;
	INIT_WORK(&a->event_work, r45_event_work);
	spin_lock_init(&a->fail_lock);
	spin_lock_init(&a->retry_lock);
	bio_list_init(&a->retry_bios);
	INIT_WORK(&a->retry_work, r45_retry_work);
	for (i = 0; i < R45_MAX_DISKS; i++)
		a->members[i].read_errors_at = jiffies;
	init_completion(&a->members_flushed);
	r45_plug_init(a);
	a->member_flush_bios = kcalloc(geom->raid_disks, sizeof(struct bio),
				       GFP_KERNEL);
	if (!a->member_flush_bios)
		goto fail_free;
	/*
	 * Forward progress: retry_work waits in get_stripe for stripes that
	 * the lanes free.  On the lanes' own WQ_MEM_RECLAIM queue it could
	 * hold that queue's rescuer (the one worker guaranteed under memory
	 * pressure) while the lanes it waits for sit behind it; its own
	 * queue has its own rescuer, and the lanes never wait for it.
	 * (sync.c's write_work has a queue of its own for the same reason.)
	 */
	a->submit_wq = alloc_workqueue("raid45_submit",
				       WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!a->submit_wq)
		goto fail_free;
	if (r45_cache_init(a, nr_stripes, &r45_glue_ops))
		goto fail_wq;
	return a;
fail_wq:
	destroy_workqueue(a->submit_wq);
fail_free:
	kfree(a->member_flush_bios);
	kfree(a);
	return NULL;
}

void r45_array_destroy(struct r45_array *a)
{
	r45_sync_exit(a);
	r45_plug_stop(a);
	/* retried reads need the stripe cache: they go first */
	destroy_workqueue(a->submit_wq);
	/* the log's last flushes end before the members are let go */
	r45_ppl_exit(a);
	r45_journal_exit(a);
	if (!r45_cache_exit(a)) {
		/*
		 * A stripe still in use (r45_cache_exit warned): the array is
		 * leaked, and a late completion's event must not reach the
		 * target, which is going away.
		 */
		WRITE_ONCE(a->event_fn, NULL);
		cancel_work_sync(&a->event_work);
		return;
	}
	cancel_work_sync(&a->event_work);
	kfree(a->member_flush_bios);
	kfree(a);
}

void r45_array_set_member(struct r45_array *a, unsigned int idx,
			  struct block_device *bdev, sector_t offset)
{
	a->members[idx].bdev = bdev;
	a->members[idx].offset = offset;
}

bool r45_array_member_failed(struct r45_array *a, unsigned int idx)
{
	return r45_member_is_failed(a, idx);
}

/* The failed members, a bit each (any context; a snapshot). */
unsigned long r45_array_failed_mask(struct r45_array *a)
{
	unsigned long mask = 0;
	unsigned int i;

	for (i = 0; i < a->geom.raid_disks; i++)
		if (r45_array_member_failed(a, i))
			mask |= BIT(i);
	return mask;
}

unsigned int r45_array_nr_failed(struct r45_array *a)
{
	unsigned int i, n = 0;

	for (i = 0; i < a->geom.raid_disks; i++)
		n += r45_array_member_failed(a, i);
	return n;
}

void r45_array_event(struct r45_array *a)
{
	schedule_work(&a->event_work);
}

/*
 * Mark a member failed, fail_lock held: whether the array is dead is
 * decided with the same count.  Returns false if it had failed already.
 */
static bool fail_member_locked(struct r45_array *a, unsigned int idx)
{
	lockdep_assert_held(&a->fail_lock);
	if (test_and_set_bit(R45_MEMBER_FAILED, &a->members[idx].flags))
		return false;
	/* what is written from now on is recorded: it may come back */
	r45_trust_member_failed(a, idx);
	if (r45_array_nr_failed(a) > a->geom.parity_disks) {
		set_bit(R45_ARRAY_DEAD, &a->flags);
		DMERR_LIMIT("member %u failed: more failures than parity, array can no longer serve all I/O",
			    idx);
	} else {
		DMERR_LIMIT("member %u failed: array degraded", idx);
	}
	return true;
}

/* Mark a member failed (any context); raises an event the first time. */
void r45_array_fail_member(struct r45_array *a, unsigned int idx)
{
	unsigned long flags;
	bool failed;

	spin_lock_irqsave(&a->fail_lock, flags);
	failed = fail_member_locked(a, idx);
	spin_unlock_irqrestore(&a->fail_lock, flags);
	if (failed)
		r45_array_event(a);
}

/*
 * A member the table names missing ("- -"): failed from the start, with
 * no device, no event and no record for a re-add (nothing is known of
 * what it holds).  Before the array runs.
 */
void r45_array_set_missing(struct r45_array *a, unsigned int idx)
{
	a->members[idx].bdev = NULL;
	set_bit(R45_MEMBER_FAILED, &a->members[idx].flags);
	if (r45_array_nr_failed(a) > a->geom.parity_disks)
		set_bit(R45_ARRAY_DEAD, &a->flags);
}

/* A failed member is taken back (r45_trust_readd: it is rebuilt). */
void r45_array_readd_member(struct r45_array *a, unsigned int idx)
{
	unsigned long flags;

	spin_lock_irqsave(&a->fail_lock, flags);
	clear_bit(R45_MEMBER_FAILED, &a->members[idx].flags);
	atomic_set(&a->members[idx].read_errors, 0);
	spin_unlock_irqrestore(&a->fail_lock, flags);
}

/*
 * A member block could not be read (any context); the engine rebuilds it
 * from the others and writes it back.  md's max_read_errors rule: a
 * member with more than R45_MAX_READ_ERRORS recent read errors (halved
 * for every hour since the last halving) is failed instead.  Except
 * during a rebuild that needs it (failed and rebuilt members already use
 * up the parity): failing it would end the rebuild and lose every stripe
 * instead of the unreadable ones, while its other blocks still read.
 * Likewise when failing it would take the array beyond its redundancy.
 * Returns false when the member was failed.
 */
bool r45_array_read_error(struct r45_array *a, unsigned int idx)
{
	struct r45_member *m = &a->members[idx];
	unsigned long hours = (jiffies - READ_ONCE(m->read_errors_at)) /
			      (3600UL * HZ);
	int rm = READ_ONCE(a->recover_member);
	unsigned long flags;
	unsigned int out;
	bool failed;
	int n;

	if (hours) {
		/* racing callers may both halve: harmless */
		WRITE_ONCE(m->read_errors_at, jiffies);
		n = atomic_read(&m->read_errors);
		atomic_set(&m->read_errors, hours >= 31 ? 0 : n >> hours);
	}
	n = atomic_inc_return(&m->read_errors);
	if (n <= R45_MAX_READ_ERRORS)
		return true;
	/*
	 * Members lost if this one goes: failed, itself, one being rebuilt.
	 * Counted and acted on under fail_lock: two members passing the
	 * limit at once must not both be failed on the same count.
	 */
	spin_lock_irqsave(&a->fail_lock, flags);
	out = r45_array_nr_failed(a) + 1;
	if (rm >= 0 && rm != (int)idx && !r45_array_member_failed(a, rm))
		out++;
	if (out > a->geom.parity_disks) {
		spin_unlock_irqrestore(&a->fail_lock, flags);
		DMERR_LIMIT("member %u: %d read errors, kept: the array or its rebuild needs it",
			    idx, n);
		return true;
	}
	failed = fail_member_locked(a, idx);
	spin_unlock_irqrestore(&a->fail_lock, flags);
	DMERR_LIMIT("member %u: %d read errors, too many", idx, n);
	if (failed)
		r45_array_event(a);
	return false;
}

static void member_flush_end_io(struct bio *bio)
{
	struct r45_array *a = bio->bi_private;

	if (atomic_dec_and_test(&a->members_flushing))
		complete(&a->members_flushed);
}

/*
 * Flush the volatile write cache of every live member and wait for all
 * of them.  The dm dirty log calls this (through the target's flush
 * callback) before it writes bits it has cleaned: a region is marked
 * clean (or, after resync/rebuild, in sync) only when every write to it
 * has completed, and with this flush every one of those writes is on
 * stable storage before the log device can hold the clean bit.  That is
 * md's rule for its write-intent bitmap: bits are cleared by a bitmap
 * write that carries REQ_PREFLUSH on every member (md_super_write), so
 * a bit never reads clean while the writes it covered can still be lost
 * from a disk's cache; after a power loss every region whose stripes
 * may be torn is still dirty and gets resynced.
 *
 * The log's flushes are serialized (under rh_mutex, or the destructor
 * alone), so one bio per member, allocated with the array, is enough:
 * nothing is allocated here, nothing can fail but the flushes.
 * A member whose flush fails is failed, as md fails a member whose
 * superblock/bitmap write fails.  -EIO is returned only when that takes
 * the array beyond its redundancy: dm-log then calls every region dirty
 * on the log device and cleans none for the rest of this activation (so
 * the next one resyncs everything).
 */
int r45_array_flush_members(struct r45_array *a)
{
	unsigned int i, n = a->geom.raid_disks;
	unsigned long sent = 0;
	int r = 0;

	atomic_set(&a->members_flushing, 1);
	reinit_completion(&a->members_flushed);
	for (i = 0; i < n; i++) {
		struct bio *bio = &a->member_flush_bios[i];

		if (r45_array_member_failed(a, i))
			continue;
		bio_init(bio, a->members[i].bdev, NULL, 0,
			 REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC);
		bio->bi_end_io = member_flush_end_io;
		bio->bi_private = a;
		__set_bit(i, &sent);
		atomic_inc(&a->members_flushing);
		submit_bio(bio);
	}
	if (atomic_dec_and_test(&a->members_flushing))
		complete(&a->members_flushed);
	wait_for_completion_io(&a->members_flushed);

	for_each_set_bit(i, &sent, n) {
		struct bio *bio = &a->member_flush_bios[i];

		if (bio->bi_status) {
			DMERR_LIMIT("member %u: flush failed (error %d) before the dirty log cleaned regions",
				    i, blk_status_to_errno(bio->bi_status));
			r45_array_fail_member(a, i);
		}
		bio_uninit(bio);
	}
	/*
	 * A member whose flush failed is failed: what it holds is no longer
	 * used, and every other member's writes are durable, so the clean
	 * bits are right for the array that runs on without it.  That
	 * assumes the failure is recorded: user space's metadata must not
	 * bring this member back as current after a crash (the event, and
	 * the writes held until allow_writes, are for that).  Only beyond
	 * redundancy is the log told (it then calls every region dirty for
	 * the rest of the activation).
	 */
	if (r45_array_nr_failed(a) > a->geom.parity_disks)
		r = -EIO;
	return r;
}

/*
 * Hand a read or write (sector relative to the array) to the array.  A
 * read inside one chunk of a live member is remapped straight to it.
 */
int r45_array_submit(struct r45_array *a, struct bio *bio,
		     struct r45_bio_info *info)
{
	const struct r45_geom *g = &a->geom;

	if (READ_ONCE(a->app_io_at) != jiffies)
		WRITE_ONCE(a->app_io_at, jiffies);
	if (bio_op(bio) == REQ_OP_READ) {
		sector_t s = bio->bi_iter.bi_sector;
		sector_t last = bio_end_sector(bio) - 1;
		struct r45_loc loc;

		int rm = READ_ONCE(a->recover_member);

		/*
		 * A member being rebuilt holds its blocks only on rows that are
		 * in sync (regions need not finish in order).
		 */
		r45_map_sector(g, s, &loc);
		if ((s >> g->chunk_shift) == (last >> g->chunk_shift) &&
		    !r45_array_member_failed(a, loc.disk) &&
		    ((int)loc.disk != rm ||
		     r45_trust_row_in_sync(a, loc.stripe))) {
			bio_set_dev(bio, a->members[loc.disk].bdev);
			bio->bi_iter.bi_sector =
				a->members[loc.disk].offset + loc.dev_sector;
			atomic64_inc(&a->stats.bypass_reads);
			info->member = loc.disk;
			return R45_REMAPPED;
		}
	} else if (test_bit(R45_ARRAY_DEAD, &a->flags)) {
		/*
		 * More members failed than there is parity: no write can keep
		 * its stripe right (md fails writes to a failed array).  Fail
		 * it before its region is marked dirty for nothing.
		 */
		bio_io_error(bio);
		return R45_SUBMITTED;
	} else if (!r45_sync_write_begin(a, bio)) {
		return R45_SUBMITTED;	/* queued, or held while recovered */
	}
	r45_make_request(a, bio);
	return R45_SUBMITTED;
}

/*
 * A write finished: its region may become clean, unless the write was let
 * go while a member failure was not yet recorded by user space
 * (info->unacked): then the region is marked out of sync first and stays
 * dirty in the log until a resync makes it consistent (md keeps the
 * bitmap bits of writes to a degraded array).  That marking is done in
 * process context under the region hash's lock (sync.c, nosync_work),
 * which ends the bio again afterwards: returns true when it took the
 * bio so.
 */
bool r45_array_write_done(struct r45_array *a, struct bio *bio,
			  struct r45_bio_info *info)
{
	if (!info->counted)
		return false;
	/* a write in flight when a member failed skipped it too */
	r45_trust_note_write(a, info->region);
	if (info->unacked) {
		r45_sync_defer_nosync(a, bio);
		return true;
	}
	info->counted = false;
	dm_rh_dec(a->rh, info->region);
	return false;
}

/*
 * A read remapped straight to a member failed (any context): the bio
 * (its array-relative iterator restored by the caller) is served again
 * through the stripe cache, without failing the member.  There each
 * member block is read on its own; one that fails again is rebuilt from
 * the others and written back (r45_array_read_error; md's rule for
 * reads that bypassed its stripe cache).  @member is the one that failed.
 */
void r45_array_retry_read(struct r45_array *a, struct bio *bio, int member)
{
	unsigned long flags;

	pr_debug("raid45: read from member %d failed, served through the stripe cache\n",
		 member);
	bio->bi_status = BLK_STS_OK;
	/*
	 * The bio completed (its remaining count reached zero, and a split
	 * below may have chained it): it is ours again, and goes through
	 * r45_make_request as a fresh one with a count of one.
	 */
	atomic_set(&bio->__bi_remaining, 1);
	spin_lock_irqsave(&a->retry_lock, flags);
	bio_list_add(&a->retry_bios, bio);
	spin_unlock_irqrestore(&a->retry_lock, flags);
	queue_work(a->submit_wq, &a->retry_work);
}

/*
 * -EINTR: a fatal signal cut the wait for the sync driver's step (see
 * r45_sync_pause); the array then runs on as if resumed.
 */
int r45_array_suspend(struct r45_array *a)
{
	int r;

	set_bit(R45_ARRAY_SUSPENDED, &a->flags);
	r45_release_delayed(a);
	r = r45_sync_pause(a);
	if (r)
		r45_array_resume(a);
	return r;
}

void r45_array_resume(struct r45_array *a)
{
	clear_bit(R45_ARRAY_SUSPENDED, &a->flags);
	r45_sync_unpause(a);
}
