// SPDX-License-Identifier: GPL-2.0
/*
 * The partial parity log (PPL): md's answer to the RAID5 write hole, in
 * md's on-disk format (Documentation/driver-api/md/raid5-ppl.rst and the
 * header of include/uapi/linux/raid/md_p.h), so that md reads what we
 * write and we read what md writes.
 *
 * This file writes the log; ppl-replay.c replays it at activation and
 * empties it at suspend, reload and teardown (one on-disk format, each
 * half's correctness argued against the other's).
 *
 * Every member has a PPL area (the table's "ppl <offset> <size>
 * <signature>": offset relative to where the member's data starts, as
 * md's superblock gives it relative to the superblock).  A stripe write
 * is logged on the area of the stripe's parity member before its data
 * and parity go out: an entry (the array sector of the first modified
 * data block, how many data blocks from there are modified, the parity
 * member) and the partial parity, the xor of the data blocks the write
 * leaves alone, as they are before the write.  After a crash, parity =
 * partial parity ^ the modified blocks as they are on the members is
 * the stripe's parity for whatever part of the write landed: the blocks
 * the write did not touch can be computed from it again, which is all
 * the write hole takes away.  A full-stripe write logs its entry alone
 * (parity = the xor of all data).
 *
 * One log write (a header and the partial parities of its entries, FUA)
 * at a time per member, pipelined: the next goes as soon as the previous
 * is on the device, and carries again every entry whose stripe may
 * still be torn (the ordering argument is under "writing" below).  A
 * large area holds headers one after the other (md's "multiple PPLs":
 * recovery takes the newest).  Only RAID4 and RAID5 (md's PPL is
 * RAID5's): one parity block per stripe.
 *
 * Entries here cover one stripe (one 4 KiB block per member) each, and
 * the modified range is contiguous in the array's data order: blocks
 * between two modified ones are counted as modified (their contents
 * are the same on the members before and after, which recovery reads),
 * as md requires of its entries.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/crc32c.h>
#include <linux/device-mapper.h>
#include <linux/raid/md_p.h>
#include <linux/slab.h>
#include "r45_array.h"
#include "r45_compat.h"
#include "stripe.h"
#include "ppl.h"

#define DM_MSG_PREFIX "raid45"

/* ---- writing ----
 *
 * Pipelined: a member's next header goes out as soon as the previous one
 * is on the device, without waiting for that one's stripes to reach the
 * members.  The ordering argument (md's recovery replays the newest
 * valid header of an area and nothing else, and so does ours):
 *
 * 1. A stripe's data and parity go out only after a header carrying its
 *    entry is durable (FUA), and the headers of one member are written
 *    one at a time, each after the previous completed.
 * 2. Every header carries every entry whose batch may still be torn: its
 *    own new ones, and every earlier one not yet "done" (batch on the
 *    members, and flushed there when a member has a volatile cache).  So
 *    whichever header is the newest durable one at a crash, it carries
 *    every stripe that can be torn: an older entry left out was done
 *    before that header was built.
 * 3. A header never lands where the newest durable one is: in a large
 *    area the next goes after the previous; the one that wraps to the
 *    area's start, and every header of a small area (one slot), waits
 *    until every earlier entry is done (it may be torn, and recovery
 *    reads from the start: it would find nothing).  A torn header that
 *    does not wrap ends the chain: recovery takes the one before, which
 *    carries everything (2); the torn one's stripes never went out (1).
 *    No header begins in the area's last 4 KiB, where md's walk does
 *    not look (header_wraps).
 * 4. Replaying an entry whose batch landed whole is harmless: parity is
 *    made from the partial parity and the modified blocks, both as the
 *    batch left them, unless a later batch of the same stripe changed
 *    them.  A later batch is logged in a later header (1), which does
 *    not carry the earlier entry when that one is done.  With a volatile
 *    member cache a written entry stays carried until a flush makes it
 *    done, and a later batch of the same stripe waits for that flush
 *    (its partial parity holds the earlier batch's blocks, which a crash
 *    before the flush could lose).
 * 5. A log write of more than one block is not atomic: its header may
 *    land without some of its partial parities, or the reverse.  When
 *    the header carries earlier entries with partial parity, those go
 *    first (FUA) and the header after them (FUA): a durable header has
 *    its carried partial parities (else their stripes, which may be
 *    torn, would fail their checksums in the newest header and not be
 *    replayed).  A wrapping header goes first and its partial parities
 *    after it: landed without it, they could overwrite the lap's second
 *    header and end the chain at the lap's first, long done, whose
 *    replay would make parity from partial parities that later writes
 *    made stale.  Otherwise one bio: a tear loses only new entries,
 *    whose stripes never went out, or it rewrites in place the header
 *    at the area's start (a small area, or the first header after an
 *    empty one: reset_log), whose entries are all done and whose
 *    stripes' later batches are in the header being written, not yet
 *    out (rule 4): what of its partial parity still checks out is as
 *    it was.  (The replay reads a header in the last 4 KiB too, which
 *    md's walk does not: md's own writer may put one there.)
 */

static struct r45_ppl_log *log_of(struct r45_ppl *ppl, unsigned int i)
{
	return ppl->logs[i];
}

/*
 * The last touch of the ppl in a completion, under the waitqueue's lock:
 * r45_ppl_exit waits for the count to reach 0 and then takes that lock,
 * so it cannot free the logs while this runs.
 */
static void ppl_put(struct r45_ppl *ppl, int n)
{
	unsigned long flags;

	spin_lock_irqsave(&ppl->idle.lock, flags);
	if (atomic_sub_return(n, &ppl->busy) == 0)
		wake_up_all_locked(&ppl->idle);
	spin_unlock_irqrestore(&ppl->idle.lock, flags);
}

/* A rec that no header will carry any more goes back (log->lock held). */
static void rec_free(struct r45_ppl_log *log, struct r45_ppl_rec *rec)
{
	list_del(&rec->node);
	if (rec->pp)
		list_add(&rec->pp->lru, &log->spare_pages);
	rec->pp = NULL;
	list_add(&rec->node, &log->free_recs);
}

/* The rec's batch is durable on the members: no header carries it. */
static void rec_done(struct r45_ppl_log *log, struct r45_ppl_rec *rec,
		     int *freed)
{
	rec->done = true;
	rec->flushing = false;
	log->entries--;
	if (rec->pp)
		log->pp_pages--;
	if (!rec->in_hdr) {
		rec_free(log, rec);
		(*freed)++;
	}
}

/* Stripes that found no room are handled again: they log themselves. */
static void retry_waiting(struct list_head *retry)
{
	struct r45_stripe *sh, *tmp;

	list_for_each_entry_safe(sh, tmp, retry, ppl_node) {
		list_del_init(&sh->ppl_node);
		r45_ppl_wake(sh, R45_STRIPE_PPL_RETRY);
	}
}

static void header_endio(struct bio *bio)
{
	struct r45_ppl_log *log = bio->bi_private;
	struct r45_ppl *ppl = log->ppl;
	struct r45_array *a = ppl->a;
	struct r45_stripe *sh, *tmp;
	unsigned long flags;
	unsigned int i;
	int freed = 0;
	LIST_HEAD(retry);
	LIST_HEAD(go);

	if (bio->bi_status && !r45_member_is_failed(a, log->idx)) {
		/*
		 * md fails the member whose log write failed: its stripes'
		 * writes go on without their parity there.
		 */
		DMERR_LIMIT("member %u: partial parity log write failed (error %d)",
			    log->idx, blk_status_to_errno(bio->bi_status));
		a->ops->member_failed(a, log->idx);
	}
	bio_uninit(bio);
	spin_lock_irqsave(&log->lock, flags);
	for (i = 0; i < log->hdr_nr; i++) {
		struct r45_ppl_rec *rec = log->hdr_recs[i];

		rec->in_hdr = false;
		if (!rec->go) {
			rec->go = true;
			list_add_tail(&rec->sh->ppl_node, &go);
			rec->sh = NULL;
		}
		if (rec->done) {
			rec_free(log, rec);
			freed++;
		}
	}
	log->hdr_nr = 0;
	log->busy = false;
	if (freed)
		list_splice_init(&log->waiting, &retry);
	spin_unlock_irqrestore(&log->lock, flags);
	list_for_each_entry_safe(sh, tmp, &go, ppl_node) {
		list_del_init(&sh->ppl_node);
		r45_ppl_wake(sh, R45_STRIPE_PPL_GO);
	}
	retry_waiting(&retry);
	queue_work(ppl->wq, &log->work);
	ppl_put(ppl, 1 + freed);
}

/* One member flush (or the starter's own reference) is over. */
static void flush_done(struct r45_ppl_log *log)
{
	struct r45_ppl *ppl = log->ppl;
	struct r45_ppl_rec *rec, *tmp;
	unsigned long flags;
	int freed = 0;
	LIST_HEAD(retry);

	if (!atomic_dec_and_test(&log->flushes))
		return;
	spin_lock_irqsave(&log->lock, flags);
	list_for_each_entry_safe(rec, tmp, &log->carried, node)
		if (rec->flushing)
			rec_done(log, rec, &freed);
	log->busy = false;
	list_splice_init(&log->waiting, &retry);
	spin_unlock_irqrestore(&log->lock, flags);
	retry_waiting(&retry);
	queue_work(ppl->wq, &log->work);
	ppl_put(ppl, 1 + freed);
}

static void flush_endio(struct bio *bio)
{
	struct r45_ppl_log *log = bio->bi_private;
	struct r45_array *a = log->ppl->a;

	if (bio->bi_status) {
		unsigned int i;

		for (i = 0; i < a->geom.raid_disks; i++)
			if (a->members[i].bdev == bio->bi_bdev)
				a->ops->member_failed(a, i);
	}
	bio_put(bio);
	flush_done(log);
}

/*
 * Flush the members that the written, not yet durable recs wrote (md's
 * rule: what a header stops carrying must be durable; a FUA on the
 * header covers only itself).  log->lock held, log not busy; the bios
 * are submitted by the caller after unlocking (returns how many).
 */
static unsigned long start_flush(struct r45_ppl_log *log)
{
	struct r45_array *a = log->ppl->a;
	struct r45_ppl_rec *rec;
	unsigned long mask = 0;
	unsigned int i;

	list_for_each_entry(rec, &log->carried, node)
		if (rec->written && !rec->done) {
			rec->flushing = true;
			mask |= rec->wmask;
		}
	for (i = 0; i < a->geom.raid_disks; i++)
		if (r45_member_is_failed(a, i) ||
		    !bdev_write_cache(a->members[i].bdev))
			mask &= ~BIT(i);
	log->busy = true;
	atomic_inc(&log->ppl->busy);
	atomic_set(&log->flushes, 1 + hweight_long(mask));
	return mask;
}

static void submit_flush(struct r45_ppl_log *log, unsigned long mask)
{
	struct r45_ppl *ppl = log->ppl;
	struct r45_array *a = ppl->a;
	unsigned int i;

	for_each_set_bit(i, &mask, a->geom.raid_disks) {
		struct bio *bio = bio_alloc_bioset(a->members[i].bdev, 0,
						   REQ_OP_WRITE | REQ_PREFLUSH,
						   GFP_NOIO, &ppl->flush_bs);

		bio->bi_end_io = flush_endio;
		bio->bi_private = log;
		submit_bio(bio);
	}
	flush_done(log);	/* the starter's reference */
}

/*
 * Where a header of @need sectors goes: after the previous one, or at the
 * area's start when it would not fit, or when it would begin in the
 * area's last 4 KiB (md's walk reads no header there: it reads while the
 * offset is below the area's size less a header).  log->lock held.
 */
static bool header_wraps(struct r45_ppl_log *log, sector_t need)
{
	sector_t hdr = PPL_HEADER_SIZE >> SECTOR_SHIFT;

	return log->next + max(need, 2 * hdr) > log->start + log->ppl->size;
}

/* The second step of a two-step log write (rule 5). */
static void step_work(struct work_struct *work)
{
	struct r45_ppl_log *log = container_of(work, struct r45_ppl_log,
					       step_work);

	if (log->step_err) {
		/* the first step's error, as the one bio would have ended */
		log->bio2.bi_status = errno_to_blk_status(log->step_err);
		bio_endio(&log->bio2);
	} else if (r45_member_is_failed(log->ppl->a, log->idx)) {
		bio_io_error(&log->bio2);
	} else {
		submit_bio(&log->bio2);
	}
}

/* The first step is on the device (or failed): the second may go. */
static void step_endio(struct bio *bio)
{
	struct r45_ppl_log *log = bio->bi_private;

	log->step_err = blk_status_to_errno(bio->bi_status);
	bio_uninit(bio);
	queue_work(log->ppl->wq, &log->step_work);
}

static void init_log_bio(struct r45_ppl_log *log, struct bio *bio,
			 struct bio_vec *vecs, unsigned short nr,
			 sector_t sector, bio_end_io_t *end)
{
	bio_init(bio, log->ppl->a->members[log->idx].bdev, vecs, nr,
		 REQ_OP_WRITE | REQ_FUA | REQ_SYNC);
	bio->bi_iter.bi_sector = sector;
	bio->bi_end_io = end;
	bio->bi_private = log;
}

/*
 * Build and submit the header that carries every rec not yet done, the
 * earlier ones first (log->lock held on entry, released here; the log is
 * not busy).  @need: its sectors.
 */
static void submit_header(struct r45_ppl_log *log, sector_t need)
	__releases(&log->lock)
{
	struct r45_ppl *ppl = log->ppl;
	struct r45_ppl_rec *rec, *tmp;
	struct ppl_header *h = page_address(log->header);
	sector_t sector, hdr = PPL_HEADER_SIZE >> SECTOR_SHIFT;
	struct bio *pp;
	bool carried_pp = false, wrap = false;
	unsigned int i, n = 0, n_pp = 0;
	u32 crc = ~0;

	list_for_each_entry(rec, &log->carried, node)
		if (!rec->done) {
			rec->in_hdr = true;
			log->hdr_recs[n++] = rec;
			carried_pp |= !!rec->pp;
		}
	list_for_each_entry_safe(rec, tmp, &log->fresh, node) {
		rec->in_hdr = true;
		log->hdr_recs[n++] = rec;
		list_move_tail(&rec->node, &log->carried);
	}
	log->hdr_nr = n;
	log->busy = true;
	atomic_inc(&ppl->busy);
	if (log->multi && header_wraps(log, need)) {
		log->next = log->start;
		wrap = true;
	}
	sector = log->next;
	if (log->multi)
		log->next += need;
	spin_unlock_irq(&log->lock);

	/* the recs it carries are not freed before it is on the device */
	memset(h, 0, PAGE_SIZE);
	memset(h->reserved, 0xff, PPL_HDR_RESERVED);
	h->signature = cpu_to_le32(ppl->signature);
	h->generation = cpu_to_le64(atomic64_inc_return(&ppl->seq));
	h->entries_count = cpu_to_le32(n);
	for (i = 0; i < n; i++)
		h->entries[i] = log->hdr_recs[i]->e;
	ppl_crc(&crc, h, PPL_HEADER_SIZE);
	h->checksum = cpu_to_le32(~crc);

	/*
	 * Rule 5: one bio (header and partial parities) when nothing of it
	 * can be torn to harm; in two steps, each FUA, the header first
	 * when it wraps, the partial parities first when it carries
	 * earlier ones.
	 */
	for (i = 0; i < n; i++)
		n_pp += !!log->hdr_recs[i]->pp;
	/* rule 3 held it: a header in place carries no earlier entry */
	WARN_ON_ONCE(carried_pp && (wrap || !log->multi ||
				    sector == log->start));
	if (wrap) {
		init_log_bio(log, &log->bio, log->vecs, 1, sector,
			     n_pp ? step_endio : header_endio);
		__bio_add_page(&log->bio, log->header, PAGE_SIZE, 0);
		if (n_pp)
			init_log_bio(log, &log->bio2, log->vecs2,
				     ARRAY_SIZE(log->vecs2), sector + hdr,
				     header_endio);
		pp = &log->bio2;
	} else if (carried_pp) {
		init_log_bio(log, &log->bio, log->vecs, ARRAY_SIZE(log->vecs),
			     sector + hdr, step_endio);
		init_log_bio(log, &log->bio2, log->vecs2, 1, sector,
			     header_endio);
		__bio_add_page(&log->bio2, log->header, PAGE_SIZE, 0);
		pp = &log->bio;
	} else {
		init_log_bio(log, &log->bio, log->vecs, ARRAY_SIZE(log->vecs),
			     sector, header_endio);
		__bio_add_page(&log->bio, log->header, PAGE_SIZE, 0);
		pp = &log->bio;
	}
	for (i = 0; i < n && n_pp; i++)
		if (log->hdr_recs[i]->pp)
			__bio_add_page(pp, log->hdr_recs[i]->pp, PAGE_SIZE, 0);
	if (r45_member_is_failed(ppl->a, log->idx))
		bio_io_error(&log->bio);	/* its stripes go on */
	else
		submit_bio(&log->bio);
}

/*
 * The log's next operation, if it is not busy: a header for the fresh
 * recs, or a flush that makes written recs done (to let waiting stripes
 * in, to let a wrapping header go, or to let the log go idle).  Process
 * context: the lanes, and the log's work for the completions.
 */
static void advance(struct r45_ppl_log *log)
{
	struct r45_ppl_rec *rec;
	unsigned int pending = 0, unflushed = 0, fresh;
	unsigned long mask;
	sector_t need;

	spin_lock_irq(&log->lock);
	if (log->busy)
		goto out;
	list_for_each_entry(rec, &log->carried, node) {
		if (rec->done)
			continue;
		if (rec->written)
			unflushed++;
		else
			pending++;
	}
	fresh = log->entries - pending - unflushed;
	if (fresh) {
		need = (PPL_HEADER_SIZE + log->pp_pages * PAGE_SIZE) >>
		       SECTOR_SHIFT;
		/*
		 * Rule 3: a header that may land on the newest waits.  And
		 * one that would carry more earlier entries than new ones
		 * waits too, for them to be done (or for more new ones):
		 * on fast members the stripes are written before the next
		 * header would go, and carrying them again only costs (a
		 * log write twice the size for no stripe sooner out); on
		 * slow ones new entries gather while they are written,
		 * and the header goes then.
		 */
		if (pending + unflushed &&
		    (!log->multi || header_wraps(log, need) ||
		     pending + unflushed > fresh)) {
			if (unflushed)
				goto flush;
			goto out;	/* r45_ppl_written comes back */
		}
		submit_header(log, need);
		return;
	}
	if (unflushed && (!pending || !list_empty(&log->waiting)))
		goto flush;
out:
	spin_unlock_irq(&log->lock);
	return;
flush:
	mask = start_flush(log);
	spin_unlock_irq(&log->lock);
	submit_flush(log, mask);
}

static void log_work(struct work_struct *work)
{
	advance(container_of(work, struct r45_ppl_log, work));
}

/*
 * Room in the log for the stripe's batch (log->lock held): a free rec, a
 * spare page for a partial parity, header space for one more entry, and
 * no entry of the same stripe still carried (rule 4).
 */
static bool log_has_room(struct r45_ppl_log *log, struct r45_stripe *sh)
{
	struct r45_ppl_rec *rec;

	if (!list_empty(&log->waiting) || list_empty(&log->free_recs) ||
	    log->entries >= PPL_HDR_MAX_ENTRIES)
		return false;
	if (!sh->ppl_full &&
	    (list_empty(&log->spare_pages) ||
	     (log->pp_pages + 1) * PAGE_SIZE > log->entry_space))
		return false;
	list_for_each_entry(rec, &log->carried, node)
		if (!rec->done && rec->stripe == sh->sector)
			return false;
	return true;
}

/*
 * Log a stripe whose batch is ready to go out (parity computed, its
 * partial parity in sh->pp unless sh->ppl_full) on its parity member's
 * log, and park it (R45_STRIPE_PPL_WAIT) until a header with its entry
 * is on the log device.  Returns false when the stripe is not logged
 * (its parity member is failed: nothing to protect) and may be written
 * at once.  The lane's context.
 */
bool r45_ppl_log(struct r45_stripe *sh)
{
	struct r45_ppl *ppl = sh->a->ppl;
	struct r45_ppl_log *log = log_of(ppl, sh->map.pd);
	struct r45_ppl_rec *rec;
	struct page *spare;
	u32 crc = ~0;

	if (r45_member_is_failed(sh->a, sh->map.pd))
		return false;
	/* the checksum before the lock: nothing slow with interrupts off */
	if (!sh->ppl_full)
		ppl_crc(&crc, page_address(sh->pp), PAGE_SIZE);
	atomic_inc(&sh->count);		/* r45_ppl_wake puts it */
	set_bit(R45_STRIPE_PPL_WAIT, &sh->state);
	spin_lock_irq(&log->lock);
	if (!log_has_room(log, sh)) {
		/* logged again when a rec of this log is done */
		list_add_tail(&sh->ppl_node, &log->waiting);
		spin_unlock_irq(&log->lock);
		advance(log);
		return true;
	}
	rec = list_first_entry(&log->free_recs, struct r45_ppl_rec, node);
	list_move_tail(&rec->node, &log->fresh);
	rec->e.data_sector = cpu_to_le64(sh->ppl_sector);
	rec->e.data_size = cpu_to_le32(sh->ppl_blocks * PAGE_SIZE);
	rec->e.parity_disk = cpu_to_le32(sh->map.pd);
	rec->e.pp_size = 0;
	rec->e.checksum = 0;	/* ~crc32c(~0) of no bytes */
	rec->pp = NULL;
	if (!sh->ppl_full) {
		rec->e.pp_size = cpu_to_le32(PAGE_SIZE);
		rec->e.checksum = cpu_to_le32(~crc);
		/* the page goes with the entry, the stripe gets a spare */
		spare = list_first_entry(&log->spare_pages, struct page, lru);
		list_del(&spare->lru);
		rec->pp = sh->pp;
		sh->pp = spare;
		log->pp_pages++;
	}
	rec->stripe = sh->sector;
	rec->sh = sh;
	rec->wmask = sh->wmask;
	rec->go = rec->written = rec->flushing = rec->done = false;
	rec->in_hdr = false;
	log->entries++;
	sh->ppl_rec = rec;
	atomic_inc(&ppl->busy);
	spin_unlock_irq(&log->lock);
	queue_work(ppl->wq, &log->work);
	return true;
}

/*
 * A logged stripe's batch is on the members (handle_stripe): done at
 * once unless a member it wrote has a volatile cache (then a flush makes
 * it done).  The lane's context.
 */
void r45_ppl_written(struct r45_stripe *sh)
{
	struct r45_ppl_rec *rec = sh->ppl_rec;
	struct r45_ppl_log *log = rec->log;
	struct r45_array *a = sh->a;
	unsigned long cached = 0;
	unsigned int i;
	int freed = 0;
	LIST_HEAD(retry);

	sh->ppl_rec = NULL;
	for_each_set_bit(i, &rec->wmask, a->geom.raid_disks)
		if (!r45_member_is_failed(a, i) &&
		    bdev_write_cache(a->members[i].bdev))
			__set_bit(i, &cached);
	spin_lock_irq(&log->lock);
	rec->written = true;
	if (!cached) {
		rec_done(log, rec, &freed);
		list_splice_init(&log->waiting, &retry);
	}
	spin_unlock_irq(&log->lock);
	retry_waiting(&retry);
	/* before the put: the last touch may free the log (ppl_put) */
	queue_work(log->ppl->wq, &log->work);
	if (freed)
		ppl_put(log->ppl, freed);
}

/* ---- setup ---- */

static void free_log(struct r45_ppl_log *log)
{
	struct page *page, *tmp;

	if (!log)
		return;
	list_for_each_entry_safe(page, tmp, &log->spare_pages, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	if (log->header)
		__free_page(log->header);
	kvfree(log);
}

static struct r45_ppl_log *alloc_log(struct r45_ppl *ppl, unsigned int i)
{
	struct r45_array *a = ppl->a;
	struct r45_ppl_log *log = kvzalloc(sizeof(*log), GFP_KERNEL);
	unsigned int j;

	if (!log)
		return NULL;
	log->ppl = ppl;
	log->idx = i;
	spin_lock_init(&log->lock);
	INIT_LIST_HEAD(&log->fresh);
	INIT_LIST_HEAD(&log->carried);
	INIT_LIST_HEAD(&log->waiting);
	INIT_LIST_HEAD(&log->free_recs);
	INIT_LIST_HEAD(&log->spare_pages);
	INIT_WORK(&log->work, log_work);
	INIT_WORK(&log->step_work, step_work);
	log->start = a->members[i].offset + ppl->offset;
	log->next = log->start;
	/* md: room for two 128 KiB slots makes the area a ring */
	log->multi = ppl->size << SECTOR_SHIFT >=
		     2 * (PPL_SPACE_SIZE + PPL_HEADER_SIZE);
	/* at most what one header carries (log->vecs) */
	log->entry_space = min_t(u64, PPL_MAX_PP * PAGE_SIZE,
				 (ppl->size << SECTOR_SHIFT) - PPL_HEADER_SIZE);
	for (j = 0; j < ARRAY_SIZE(log->recs); j++) {
		log->recs[j].log = log;
		list_add_tail(&log->recs[j].node, &log->free_recs);
	}
	log->header = alloc_page(GFP_KERNEL);
	if (!log->header)
		goto fail;
	/* as many spare pages as partial parities fit in a header */
	for (j = 0; j < log->entry_space / PAGE_SIZE; j++) {
		struct page *page = alloc_page(GFP_KERNEL);

		if (!page)
			goto fail;
		list_add(&page->lru, &log->spare_pages);
	}
	return log;
fail:
	free_log(log);
	return NULL;
}

static void free_logs(struct r45_ppl *ppl)
{
	unsigned int i;

	for (i = 0; i < ppl->a->geom.raid_disks; i++)
		free_log(ppl->logs[i]);
}

int r45_ppl_init(struct r45_array *a, s64 offset, sector_t size,
		 u32 signature)
{
	struct r45_ppl *ppl;
	unsigned int i;
	int r = -ENOMEM;

	/*
	 * md's format counts in 4 KiB blocks, the code here in pages: on a
	 * kernel with larger pages it refuses, as md's ppl_init_log does.
	 */
	if (PAGE_SIZE != PPL_HEADER_SIZE)
		return -EOPNOTSUPP;
	ppl = kzalloc(sizeof(*ppl), GFP_KERNEL);
	if (!ppl)
		return -ENOMEM;
	ppl->a = a;
	ppl->offset = offset;
	ppl->size = size;
	ppl->signature = signature;
	init_waitqueue_head(&ppl->idle);
	r = bioset_init(&ppl->flush_bs, a->geom.raid_disks, 0, 0);
	if (r)
		goto fail;
	r = -ENOMEM;
	ppl->wq = alloc_workqueue("raid45_ppl", WQ_UNBOUND | WQ_MEM_RECLAIM,
				  0);
	if (!ppl->wq)
		goto fail_bs;
	for (i = 0; i < a->geom.raid_disks; i++) {
		ppl->logs[i] = alloc_log(ppl, i);
		if (!ppl->logs[i])
			goto fail_logs;
	}
	a->ppl = ppl;
	return 0;
fail_logs:
	free_logs(ppl);
	destroy_workqueue(ppl->wq);
fail_bs:
	bioset_exit(&ppl->flush_bs);
fail:
	kfree(ppl);
	return r;
}

static bool ppl_idle(struct r45_ppl *ppl)
{
	unsigned int i;
	bool idle = !atomic_read(&ppl->busy);

	for (i = 0; i < ppl->a->geom.raid_disks && idle; i++) {
		struct r45_ppl_log *log = ppl->logs[i];

		spin_lock_irq(&log->lock);
		idle = list_empty(&log->waiting);
		spin_unlock_irq(&log->lock);
	}
	return idle;
}

/*
 * No header write or member flush of the log is under way any more, and
 * every logged batch is done, once every stripe's batch is done (a
 * suspend waited for the bios, so only the last flushes can still run).
 * -EINTR on a fatal signal (a suspend that is killed while a member does
 * not answer).
 */
int r45_ppl_quiesce(struct r45_array *a)
{
	struct r45_ppl *ppl = a->ppl;

	if (!ppl)
		return 0;
	if (wait_event_killable(ppl->idle, ppl_idle(ppl)))
		return -EINTR;
	flush_workqueue(ppl->wq);
	return 0;
}

/* No stripe may be logged any more (teardown: no bio is left). */
void r45_ppl_exit(struct r45_array *a)
{
	struct r45_ppl *ppl = a->ppl;

	if (!ppl)
		return;
	wait_event(ppl->idle, ppl_idle(ppl));
	/* the last completion may still hold the lock of its wakeup */
	spin_lock_irq(&ppl->idle.lock);
	spin_unlock_irq(&ppl->idle.lock);
	destroy_workqueue(ppl->wq);
	bioset_exit(&ppl->flush_bs);
	free_logs(ppl);
	kfree(ppl);
	a->ppl = NULL;
}
