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

	if (a->event_fn)
		a->event_fn(a->event_ctx);
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

struct r45_array *r45_array_create(const struct r45_geom *geom,
				   unsigned int nr_stripes,
				   void (*event_fn)(void *), void *ctx)
{
	struct r45_array *a;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return NULL;
	a->geom = *geom;
	a->array_sectors = geom->dev_sectors * geom->data_disks;
	a->event_fn = event_fn;
	a->event_ctx = ctx;
	INIT_WORK(&a->event_work, r45_event_work);
	spin_lock_init(&a->retry_lock);
	bio_list_init(&a->retry_bios);
	INIT_WORK(&a->retry_work, r45_retry_work);
	r45_plug_init(a);
	if (bioset_init(&a->flush_bs, 16, 0, 0))
		goto fail_free;
	if (r45_cache_init(a, nr_stripes))
		goto fail_flush_bs;
	return a;
fail_flush_bs:
	bioset_exit(&a->flush_bs);
fail_free:
	kfree(a);
	return NULL;
}

void r45_array_destroy(struct r45_array *a)
{
	r45_sync_exit(a);
	r45_plug_stop(a);
	r45_cache_exit(a);
	flush_work(&a->retry_work);
	cancel_work_sync(&a->event_work);
	bioset_exit(&a->flush_bs);
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
	return test_bit(R45_MEMBER_FAILED, &a->members[idx].flags);
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

/* Mark a member failed (any context); raises an event the first time. */
void r45_array_fail_member(struct r45_array *a, unsigned int idx)
{
	if (test_and_set_bit(R45_MEMBER_FAILED, &a->members[idx].flags))
		return;
	if (r45_array_nr_failed(a) > a->geom.parity_disks) {
		set_bit(R45_ARRAY_DEAD, &a->flags);
		DMERR_LIMIT("member %u failed: more failures than parity, array can no longer serve all I/O",
			    idx);
	} else {
		DMERR_LIMIT("member %u failed: array degraded", idx);
	}
	r45_array_event(a);
}

/* An empty flush: every live member flushes; done when all have. */
void r45_array_flush(struct r45_array *a, struct bio *bio)
{
	unsigned int i;

	for (i = 0; i < a->geom.raid_disks; i++) {
		struct bio *child;

		if (r45_array_member_failed(a, i))
			continue;
		child = bio_alloc_bioset(a->members[i].bdev, 0,
					 REQ_OP_WRITE | REQ_PREFLUSH, GFP_NOIO,
					 &a->flush_bs);
		bio_chain(child, bio);
		submit_bio_noacct(child);
	}
	bio_endio(bio);
}

/*
 * Hand a read or write (sector relative to the array) to the array.  A
 * read inside one chunk of a live member is remapped straight to it.
 */
int r45_array_submit(struct r45_array *a, struct bio *bio,
		     struct r45_bio_info *info)
{
	const struct r45_geom *g = &a->geom;

	info->member = -1;
	info->counted = false;
	if (READ_ONCE(a->app_io_at) != jiffies)
		WRITE_ONCE(a->app_io_at, jiffies);
	if (bio_op(bio) == REQ_OP_READ) {
		sector_t s = bio->bi_iter.bi_sector;
		sector_t last = bio_end_sector(bio) - 1;
		struct r45_loc loc;

		int rm = READ_ONCE(a->recover_member);

		r45_map_sector(g, s, &loc);
		if ((s >> g->chunk_shift) == (last >> g->chunk_shift) &&
		    !r45_array_member_failed(a, loc.disk) &&
		    ((int)loc.disk != rm ||
		     loc.stripe < READ_ONCE(a->recover_row))) {
			bio_set_dev(bio, a->members[loc.disk].bdev);
			bio->bi_iter.bi_sector =
				a->members[loc.disk].offset + loc.dev_sector;
			atomic64_inc(&a->stats.bypass_reads);
			info->member = loc.disk;
			return R45_REMAPPED;
		}
	} else if (!r45_sync_write_begin(a, bio)) {
		return R45_SUBMITTED;	/* queued, or held while recovered */
	}
	r45_make_request(a, bio);
	return R45_SUBMITTED;
}

/* A write finished: its region may become clean. */
void r45_array_write_done(struct r45_array *a, struct r45_bio_info *info)
{
	if (info->counted) {
		info->counted = false;
		dm_rh_dec(a->rh, info->region);
	}
}

/*
 * A read remapped straight to a member failed (any context): the member
 * is failed and the bio (its array-relative iterator restored by the
 * caller) is served again through the stripe cache, degraded.
 */
void r45_array_retry_read(struct r45_array *a, struct bio *bio, int member)
{
	unsigned long flags;

	r45_array_fail_member(a, member);
	bio->bi_status = BLK_STS_OK;
	spin_lock_irqsave(&a->retry_lock, flags);
	bio_list_add(&a->retry_bios, bio);
	spin_unlock_irqrestore(&a->retry_lock, flags);
	queue_work(a->wq, &a->retry_work);
}

void r45_array_suspend(struct r45_array *a)
{
	set_bit(R45_ARRAY_SUSPENDED, &a->flags);
	r45_release_delayed(a);
	r45_sync_pause(a);
}

void r45_array_resume(struct r45_array *a)
{
	clear_bit(R45_ARRAY_SUSPENDED, &a->flags);
	r45_sync_unpause(a);
}
