// SPDX-License-Identifier: GPL-2.0
/*
 * The stripe cache and the stripe state machine.
 *
 * A stripe is one R45_STRIPE_BYTES block at the same member sector on
 * every member.  Application bios are cut into pieces, one per member
 * block they touch, and attached to the stripes; handle_stripe() then
 * decides what each stripe needs next (member reads, reconstruction,
 * parity, member writes) and completes the pieces.
 *
 * Why one file of ~1,700 lines: the cache (hash, lanes, get/put/queue)
 * and the state machine share the stripe's lifetime rules (a stripe is
 * handled by one lane at a time and only with no member I/O in flight:
 * see Locking); md keeps both in raid5.c for that reason.  Parity math,
 * layouts and the partial parity log are apart (parity.c, layout.c,
 * ppl.c).
 *
 * Locking: a->lock (irq-safe) guards the hash, the idle and delayed lists
 * and the stripe counts; sh->lock guards a stripe's piece lists.  Only
 * one lane at a time runs handle_stripe() on a stripe (queue_stripe()
 * moves a stripe between lanes only while no lane holds it: the release
 * of R45_STRIPE_HANDLING orders one lane's work on it before the next
 * lane's), and only while no member I/O of the stripe is in flight, so
 * the block flags need no lock.
 */
#include <linux/slab.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/blkdev.h>
#include <linux/bitops.h>
#include <linux/device-mapper.h>
#include "r45_array.h"
#include "r45_compat.h"
#include "stripe.h"

#define DM_MSG_PREFIX "raid45"

static struct kmem_cache *r45_piece_cache;

static struct r45_stripe *alloc_stripe(struct r45_array *a, gfp_t gfp)
{
	unsigned int i, n = a->geom.raid_disks;
	struct r45_stripe *sh;

	sh = kzalloc(struct_size(sh, dev, n), gfp);
	if (!sh)
		return NULL;
	/* struct bio ends in a flexible array: not embedded in dev[] */
	sh->bios = kcalloc(n, sizeof(*sh->bios), gfp);
	if (!sh->bios) {
		kfree(sh);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		struct r45_dev *dev = &sh->dev[i];

		dev->bio = &sh->bios[i];
		dev->page = alloc_page(gfp);
		if (!dev->page)
			goto fail;
		INIT_LIST_HEAD(&dev->reads);
		INIT_LIST_HEAD(&dev->writes);
		INIT_LIST_HEAD(&dev->batch);
		dev->sh = sh;
	}
	if (a->has_ppl) {
		sh->pp = alloc_page(gfp);
		if (!sh->pp)
			goto fail;
	}
	sh->a = a;
	spin_lock_init(&sh->lock);
	INIT_HLIST_NODE(&sh->hash);
	INIT_LIST_HEAD(&sh->lru);
	INIT_LIST_HEAD(&sh->ready);
	INIT_LIST_HEAD(&sh->ppl_node);
	return sh;
fail:
	while (i--)
		__free_page(sh->dev[i].page);
	kfree(sh->bios);
	kfree(sh);
	return NULL;
}

static void free_stripe(struct r45_array *a, struct r45_stripe *sh)
{
	unsigned int i;

	for (i = 0; i < a->geom.raid_disks; i++)
		__free_page(sh->dev[i].page);
	if (sh->pp)
		__free_page(sh->pp);
	kfree(sh->bios);
	kfree(sh);
}

static struct hlist_head *stripe_bucket(struct r45_array *a, sector_t sector)
{
	return &a->hash[hash_64(sector / R45_STRIPE_SECTORS, 32) & a->hash_mask];
}

/*
 * Lanes: a stripe is handled in its home lane (by stripe number, over all
 * lanes but the last: one CPU is left to the submitters) unless that lane
 * has lane_spill stripes queued or in hand; then in the least loaded lane
 * of all.  A stripe queued again while its lane handles it stays there.
 * On 2 CPUs a lane per CPU for every stripe made 4 KiB random writes
 * slower (105 against 137 MB/s), the second worker waking for every few
 * stripes, while sequential writes, which queue whole rows at a time,
 * want every CPU (581 against 431 MB/s).  The threshold 8 lets 4 KiB
 * writes at queue depth 16 overflow into the spare lane when the home
 * one falls behind: 6.12, 2 CPUs, 5 rounds interleaved in one boot,
 * median MiB/s at 8 / 16 / 32: RAID5 107 / 99 / 94, RAID6 69 / 66 / 59;
 * 1 MiB writes 552 / - / 546; but a later boot against one lane (a
 * threshold no backlog reaches) gave 81.5 / 82.0: the gain is within
 * the host's noise.  One CPU: one lane, no spill.
 * A stripe changes lanes only while no lane holds it: queue_stripe().
 */
static unsigned int lane_spill = 8;
module_param(lane_spill, uint, 0644);
MODULE_PARM_DESC(lane_spill, "Stripes waiting in a lane at which new ones go to the least loaded lane (0: always)");

static struct r45_lane *home_lane(struct r45_array *a, sector_t sector)
{
	unsigned int homes = max(a->nr_lanes - 1, 1U);

	/* a hash, not an address: the truncation to long is harmless */
	return &a->lanes[(unsigned long)(sector / R45_STRIPE_SECTORS) % homes];
}

/*
 * The lane for a stripe that no lane holds: home, or the least loaded.
 * lane_spill 0: among the least loaded, another lane than the one that
 * last had the stripe (its home for a new one), so a stripe's successive
 * requests alternate lanes when the lanes are equally busy.
 */
static struct r45_lane *pick_lane(struct r45_stripe *sh)
{
	struct r45_array *a = sh->a;
	struct r45_lane *home = home_lane(a, sh->sector), *lane = home, *l;
	struct r45_lane *avoid = sh->lane ? sh->lane : home;
	unsigned int spill = READ_ONCE(lane_spill);
	int best = atomic_read(&home->backlog);

	if (best < spill)
		return home;
	for (l = a->lanes; l < a->lanes + a->nr_lanes; l++) {
		int n = atomic_read(&l->backlog);

		if (n < best ||
		    (!spill && n == best && lane == avoid && l != avoid)) {
			best = n;
			lane = l;
		}
	}
	return lane;
}

/* Give a stripe (idle, unreferenced) a new identity.  a->lock held. */
static void assign_stripe(struct r45_array *a, struct r45_stripe *sh,
			  sector_t sector)
{
	unsigned int i;

	hlist_del_init(&sh->hash);
	sh->sector = sector;
	sh->state = 0;
	for (i = 0; i < a->geom.raid_disks; i++) {
		/*
		 * An idle stripe has no pieces: every piece keeps its stripe
		 * referenced until handle_stripe ends it.  One here was lost
		 * by the state machine (a stripe left unqueued with work).
		 */
		WARN_ON_ONCE(!list_empty(&sh->dev[i].reads) ||
			     !list_empty(&sh->dev[i].writes) ||
			     !list_empty(&sh->dev[i].batch));
		sh->dev[i].flags = 0;
		sh->dev[i].wcover = 0;
		sh->dev[i].bcover = 0;
		sh->dev[i].error = 0;
	}
	r45_map_stripe(&a->geom, sector >> a->geom.chunk_shift, &sh->map);
	sh->lane = NULL;	/* no lane had it: queue_stripe() picks one */
	hlist_add_head(&sh->hash, stripe_bucket(a, sector));
	atomic_set(&sh->count, 1);
}

static struct r45_stripe *find_stripe(struct r45_array *a, sector_t sector)
{
	struct r45_stripe *sh;

	hlist_for_each_entry(sh, stripe_bucket(a, sector), hash)
		if (sh->sector == sector)
			return sh;
	return NULL;
}

/*
 * Get a referenced stripe for a member sector: cached, newly allocated
 * while the cache is below its size, or an idle one reused.  Waits when
 * every stripe is busy; never allocates beyond the cache size.
 *
 * Forward progress: growing the cache is only tried, never waited for
 * (no retries in the allocator).  When it fails, an idle stripe is taken
 * even below the cache size, or the caller sleeps until a stripe comes
 * back (put_stripe wakes it; the R45_MIN_STRIPES allocated up front are
 * always in use or idle) and tries to grow again at most every HZ / 10.
 */
static struct r45_stripe *get_stripe(struct r45_array *a, sector_t sector)
{
	struct r45_stripe *sh, *fresh = NULL;
	bool grow = true;

	spin_lock_irq(&a->lock);
	for (;;) {
		sh = find_stripe(a, sector);
		if (sh) {
			if (atomic_inc_return(&sh->count) == 1)
				list_del_init(&sh->lru);
			break;
		}
		if (fresh) {
			sh = fresh;
			fresh = NULL;
			assign_stripe(a, sh, sector);
			break;
		}
		if (!list_empty(&a->idle) &&
		    (a->nr_stripes >= a->max_stripes || !grow)) {
			sh = list_first_entry(&a->idle, struct r45_stripe, lru);
			list_del_init(&sh->lru);
			assign_stripe(a, sh, sector);
			break;
		}
		if (grow && a->nr_stripes < a->max_stripes) {
			a->nr_stripes++;
			spin_unlock_irq(&a->lock);
			fresh = alloc_stripe(a, GFP_NOIO | __GFP_NORETRY |
						__GFP_NOWARN);
			spin_lock_irq(&a->lock);
			if (!fresh) {
				a->nr_stripes--;
				grow = false;
			}
			continue;
		}
		spin_unlock_irq(&a->lock);
		/* everything is busy: let delayed writes go, then wait */
		r45_release_delayed(a);
		wait_event_timeout(a->wait_stripe,
				   !list_empty(&a->idle) ||
				   (grow && a->nr_stripes < a->max_stripes),
				   HZ / 10);
		grow = true;
		spin_lock_irq(&a->lock);
	}
	spin_unlock_irq(&a->lock);
	if (fresh) {
		spin_lock_irq(&a->lock);
		a->nr_stripes--;
		spin_unlock_irq(&a->lock);
		free_stripe(a, fresh);
	}
	return sh;
}

static void put_stripe(struct r45_stripe *sh)
{
	struct r45_array *a = sh->a;
	unsigned long flags;

	if (!atomic_dec_and_lock_irqsave(&sh->count, &a->lock, flags))
		return;
	if (a->nr_stripes > a->max_stripes) {
		hlist_del_init(&sh->hash);
		a->nr_stripes--;
		free_stripe(a, sh);
	} else {
		list_add_tail(&sh->lru, &a->idle);
	}
	/*
	 * Woken under a->lock, whose release is the last touch of the
	 * array: a member I/O's completion may put its stripe after the
	 * lane finished with it, and teardown (all_idle) waits under that
	 * lock for every stripe to come back.
	 */
	wake_up(&a->wait_stripe);
	spin_unlock_irqrestore(&a->lock, flags);
}

/*
 * Put a stripe on its lane's ready list.  The lane's work is queued only
 * if it is not already active: a running lane empties its list before it
 * ends, which spares a worker wakeup for every member I/O that completes
 * while the lane runs (ramdisks complete inline, in the lane itself).
 */
static void queue_stripe(struct r45_stripe *sh)
{
	struct r45_lane *lane;
	unsigned long flags;
	bool kick;

	if (test_and_set_bit(R45_STRIPE_QUEUED, &sh->state))
		return;
	/*
	 * We set QUEUED, so no lane lists the stripe.  A lane that is still
	 * handling it (lane_work sets HANDLING before it clears QUEUED) takes
	 * it again when done; otherwise no lane holds it, and it may move:
	 * the acquire pairs with the release of HANDLING, so the old lane's
	 * work on the stripe is seen by the new one.
	 */
	lane = sh->lane;
	if (!test_bit_acquire(R45_STRIPE_HANDLING, &sh->state)) {
		lane = pick_lane(sh);
		if (lane != sh->lane) {
			if (sh->lane)	/* not its first lane: a move */
				atomic64_inc(&sh->a->stats.moved);
			sh->lane = lane;
		}
	}
	atomic_inc(&sh->count);
	atomic_inc(&lane->backlog);
	spin_lock_irqsave(&lane->lock, flags);
	list_add_tail(&sh->ready, &lane->ready);
	kick = !lane->active;
	lane->active = true;
	spin_unlock_irqrestore(&lane->lock, flags);
	if (kick)
		queue_work(sh->a->wq, &lane->work);
}

/* Park a stripe with partial writes until an unplug, timer or more data. */
static void delay_stripe(struct r45_stripe *sh)
{
	struct r45_array *a = sh->a;
	unsigned long flags;

	spin_lock_irqsave(&a->lock, flags);
	if (!test_and_set_bit(R45_STRIPE_DELAYED, &sh->state)) {
		atomic_inc(&sh->count);
		list_add_tail(&sh->lru, &a->delayed);
		atomic64_inc(&a->stats.delayed);
	}
	spin_unlock_irqrestore(&a->lock, flags);
}

/*
 * A stripe parked by the partial parity log is handled again (ppl.c),
 * told why by @bit (R45_STRIPE_PPL_GO or _RETRY).  The bit is set before
 * PPL_WAIT is released: a lane handling the stripe meanwhile (it was
 * queued for a new piece) sees WAIT with acquire (ppl_resume), and so
 * either WAIT still set or the reason.
 */
void r45_ppl_wake(struct r45_stripe *sh, int bit)
{
	set_bit(bit, &sh->state);
	clear_bit_unlock(R45_STRIPE_PPL_WAIT, &sh->state);
	queue_stripe(sh);
	put_stripe(sh);
}

void r45_release_delayed(struct r45_array *a)
{
	struct r45_stripe *sh, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&a->lock, flags);
	list_splice_init(&a->delayed, &list);
	spin_unlock_irqrestore(&a->lock, flags);
	list_for_each_entry_safe(sh, tmp, &list, lru) {
		list_del_init(&sh->lru);
		clear_bit(R45_STRIPE_DELAYED, &sh->state);
		queue_stripe(sh);
		put_stripe(sh);
	}
}

/* ---- pieces ---- */

static void end_piece(struct r45_array *a, struct r45_piece *p,
		      blk_status_t status)
{
	if (status)
		p->bio->bi_status = status;
	bio_endio(p->bio);
	mempool_free(p, a->piece_pool);
}

static void end_pieces(struct r45_array *a, struct list_head *list,
		       blk_status_t status)
{
	struct r45_piece *p, *tmp;

	list_for_each_entry_safe(p, tmp, list, node) {
		list_del(&p->node);
		end_piece(a, p, status);
	}
}

static bool is_discard(const struct r45_piece *p)
{
	return bio_op(p->bio) == REQ_OP_DISCARD;
}

/*
 * Copy between a piece's bio data and a member block.  A discard has no
 * data: where one is kept (settle_discards) it writes zeroes.
 */
static void copy_piece(struct r45_piece *p, struct page *page, bool to_page)
{
	struct bvec_iter iter = p->iter;
	unsigned int off = p->page_off, left = p->len;

	if (is_discard(p)) {
		memzero_page(page, off, left);
		return;
	}
	while (left) {
		struct bio_vec bv = bio_iter_iovec(p->bio, iter);
		unsigned int len = min(bv.bv_len, left);

		if (to_page)
			memcpy_page(page, off, bv.bv_page, bv.bv_offset, len);
		else
			memcpy_page(bv.bv_page, bv.bv_offset, page, off, len);
		bio_advance_iter_single(p->bio, &iter, len);
		off += len;
		left -= len;
	}
}

static unsigned int cover_mask(const struct r45_piece *p)
{
	unsigned int first = p->page_off >> SECTOR_SHIFT;
	unsigned int count = p->len >> SECTOR_SHIFT;

	return ((1U << count) - 1) << first;
}

/* ---- member I/O ---- */

/*
 * Counters of work that teardown must outlast (plug callbacks, rewrites):
 * counted down and woken under the waitqueue's lock, which
 * r45_wait_count() takes after it saw zero, so the array is not freed
 * while the last one still touches it.  Any context.
 */
void r45_count_done(struct r45_array *a, atomic_t *count)
{
	unsigned long flags;

	spin_lock_irqsave(&a->wait_stripe.lock, flags);
	if (atomic_dec_and_test(count))
		wake_up_all_locked(&a->wait_stripe);
	spin_unlock_irqrestore(&a->wait_stripe.lock, flags);
}

void r45_wait_count(struct r45_array *a, atomic_t *count)
{
	wait_event(a->wait_stripe, !atomic_read(count));
	/* the last one may still be inside its wakeup: wait for it */
	spin_lock_irq(&a->wait_stripe.lock);
	spin_unlock_irq(&a->wait_stripe.lock);
}

/* The same, or -EINTR on a fatal signal (a suspend that is killed). */
int r45_wait_count_killable(struct r45_array *a, atomic_t *count)
{
	if (wait_event_killable(a->wait_stripe, !atomic_read(count)))
		return -EINTR;
	spin_lock_irq(&a->wait_stripe.lock);
	spin_unlock_irq(&a->wait_stripe.lock);
	return 0;
}

/*
 * Every member write is waited for by a bio (a write batch), a sync
 * action or a reader, which a suspend waits for, except the write-back
 * of blocks rebuilt after a read error whose readers have been answered.
 * Each of those bios is counted in a->rewrites (start_rewrite, marked
 * R45_DEV_REWRITE: its own completion counts it down), and suspend
 * (postsuspend, here: -EINTR when a fatal signal ends the wait for a
 * member that does not answer) and teardown (r45_cache_exit) wait for
 * them: no member I/O outlives a suspend or completes into a freed array.
 */
int r45_wait_rewrites(struct r45_array *a)
{
	return r45_wait_count_killable(a, &a->rewrites);
}

/*
 * md's rules for member I/O errors: a failed write fails the member (its
 * block now differs from what parity says).  A failed read is first
 * tried again for that block alone (md's R5_ReadNoMerge: the block layer
 * merges neighbouring stripes' reads, and one bad sector fails the whole
 * request); if that fails too, the block is marked, handle_stripe
 * rebuilds it from the others and writes it back (a disk remaps a sector
 * it cannot read when it is written), and the glue fails the member only
 * when read errors pile up.  A write that lands on a block marked so
 * clears the mark: the read error is repaired.
 */
static void member_end_io(struct bio *bio)
{
	struct r45_dev *dev = bio->bi_private;
	struct r45_stripe *sh = dev->sh;
	struct r45_array *a = sh->a;
	unsigned int idx = dev - sh->dev;
	bool read = bio_op(bio) == REQ_OP_READ;
	bool rewritten = test_and_clear_bit(R45_DEV_REWRITE, &dev->flags);

	if (bio->bi_status && bio_op(bio) == REQ_OP_WRITE_ZEROES) {
		/*
		 * A write-zeroes that failed is written again as a page of
		 * zeroes (retry_zeroes) before the member is judged: a member
		 * can advertise write-zeroes and refuse it (a table below us
		 * changed: BLK_STS_NOTSUPP; a SCSI disk refusing WRITE SAME,
		 * which sd then stops advertising: an I/O error), and one
		 * discard must not fail every member.  If the member no longer
		 * advertises it, no later stripe asks this array's members
		 * again (blkdev_issue_zeroout's rule).
		 */
		if ((bio->bi_status == BLK_STS_NOTSUPP ||
		     !bdev_write_zeroes_sectors(a->members[idx].bdev)) &&
		    !test_bit(R45_MEMBER_FAILED, &a->members[idx].flags))
			WRITE_ONCE(a->zero_members, false);
		set_bit(R45_DEV_ZERO_RETRY, &dev->flags);
	} else if (bio->bi_status) {
		dev->error = 1;
		if (!read) {
			a->ops->member_failed(a, idx);
		} else if (test_and_clear_bit(R45_DEV_READ_RETRY,
					      &dev->flags)) {
			if (a->ops->read_error(a, idx))
				set_bit(R45_DEV_READ_ERROR, &dev->flags);
		} else {
			/* read it again, alone */
			set_bit(R45_DEV_READ_RETRY, &dev->flags);
		}
	} else if (read) {
		clear_bit(R45_DEV_READ_RETRY, &dev->flags);
		set_bit(R45_DEV_UPTODATE, &dev->flags);
	} else if (test_and_clear_bit(R45_DEV_READ_ERROR, &dev->flags)) {
		/* counted outside the message: a rate limit skips its args */
		s64 n = atomic64_inc_return(&a->read_errors_fixed);

		DMINFO_LIMIT("member %u: read error at sector %llu corrected (%lld so far)",
			     idx, (unsigned long long)(a->members[idx].offset +
						       sh->sector), n);
	}
	bio_uninit(bio);
	/* after this the stripe may be handled, and marked, again */
	if (atomic_dec_and_test(&sh->io_pending)) {
		queue_stripe(sh);
		put_stripe(sh);
	}
	if (rewritten)
		r45_count_done(a, &a->rewrites);	/* the last touch */
}

/* Read (or write) every member block in mask; returns false if none. */
static bool submit_member_io(struct r45_stripe *sh, unsigned long mask,
			     blk_opf_t opf)
{
	struct r45_array *a = sh->a;
	unsigned int i;

	if (!mask)
		return false;
	atomic_set(&sh->io_pending, hweight_long(mask));
	atomic_inc(&sh->count);
	for_each_set_bit(i, &mask, a->geom.raid_disks) {
		struct r45_dev *dev = &sh->dev[i];
		struct r45_member *m = &a->members[i];
		struct bio *bio = dev->bio;
		blk_opf_t op = opf;

		if (test_bit(R45_DEV_READ_RETRY, &dev->flags))
			op |= REQ_NOMERGE;
		dev->error = 0;
		bio_init(bio, m->bdev, &dev->vec, 1, op);
		bio->bi_iter.bi_sector = m->offset + sh->sector;
		if (bio_op(bio) == REQ_OP_WRITE_ZEROES)
			bio->bi_iter.bi_size = R45_STRIPE_BYTES; /* no data */
		else
			__bio_add_page(bio, dev->wpage ? dev->wpage : dev->page,
				       R45_STRIPE_BYTES, 0);
		bio->bi_end_io = member_end_io;
		bio->bi_private = dev;
		submit_bio_noacct(bio);
	}
	return true;
}

/* Write back repaired blocks that no write batch carries. */
static void start_rewrite(struct r45_stripe *sh, unsigned long mask)
{
	unsigned int i;

	atomic_add(hweight_long(mask), &sh->a->rewrites);
	for_each_set_bit(i, &mask, sh->a->geom.raid_disks)
		set_bit(R45_DEV_REWRITE, &sh->dev[i].flags);
	submit_member_io(sh, mask, REQ_OP_WRITE);	/* mask is not empty */
}

/* ---- the state machine ---- */

struct stripe_ctx {
	unsigned long failed;	/* blocks that cannot be read */
	unsigned long broken;	/* members failed: never written */
	unsigned long bad;	/* reads failed: rebuild, then write back */
	unsigned long uptodate;	/* blocks valid in the cache */
	unsigned long data;	/* data members of this stripe */
	unsigned long parity;	/* P (and Q) members */
	unsigned int nfailed;
	bool in_sync;		/* parity is known to match the data */
	bool trusted;		/* a block may be computed from parity:
				 * no crash left the row torn */
};

static void stripe_ctx_init(struct r45_stripe *sh, struct stripe_ctx *c)
{
	struct r45_array *a = sh->a;
	int rm = READ_ONCE(a->recover_member);
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->in_sync = a->ops->row_in_sync(a, sh->sector >> a->geom.chunk_shift);
	c->trusted = c->in_sync ||
		     a->ops->row_trusted(a, sh->sector >> a->geom.chunk_shift,
					 false);
	for (i = 0; i < a->geom.raid_disks; i++) {
		if (test_bit(R45_MEMBER_FAILED, &a->members[i].flags)) {
			c->failed |= BIT(i);
			c->broken |= BIT(i);
		}
		if (test_bit(R45_DEV_UPTODATE, &sh->dev[i].flags))
			c->uptodate |= BIT(i);
		if (test_bit(R45_DEV_READ_ERROR, &sh->dev[i].flags))
			c->bad |= BIT(i);
	}
	/*
	 * A member being rebuilt holds its blocks only on rows in sync:
	 * regions are rebuilt in any order, so no row number says it.
	 */
	if (rm >= 0 && !c->in_sync)
		c->failed |= BIT(rm);
	c->bad &= ~c->broken;
	c->failed |= c->bad & ~c->uptodate;
	c->nfailed = hweight_long(c->failed);
	for (i = 0; i < a->geom.data_disks; i++)
		c->data |= BIT(sh->map.data[i]);
	c->parity = BIT(sh->map.pd);
	if (sh->map.qd >= 0)
		c->parity |= BIT(sh->map.qd);
}

static void serve_reads(struct r45_stripe *sh, struct stripe_ctx *c)
{
	struct r45_array *a = sh->a;
	unsigned int i;

	for (i = 0; i < a->geom.raid_disks; i++) {
		struct r45_dev *dev = &sh->dev[i];
		struct r45_piece *p, *tmp;
		LIST_HEAD(done);

		if (!(c->uptodate & BIT(i)))
			continue;
		spin_lock_irq(&sh->lock);
		list_splice_init(&dev->reads, &done);
		spin_unlock_irq(&sh->lock);
		list_for_each_entry_safe(p, tmp, &done, node) {
			list_del(&p->node);
			copy_piece(p, dev->page, false);
			end_piece(a, p, BLK_STS_OK);
		}
	}
}

/* The reads that wait on the blocks of @mask, off the stripe onto @dead. */
static void take_reads(struct r45_stripe *sh, unsigned long mask,
		       struct list_head *dead)
{
	unsigned int i;

	for_each_set_bit(i, &mask, sh->a->geom.raid_disks) {
		spin_lock_irq(&sh->lock);
		list_splice_tail_init(&sh->dev[i].reads, dead);
		spin_unlock_irq(&sh->lock);
	}
}

/* Fail the reads that wait on blocks we can neither read nor rebuild. */
static void fail_reads(struct r45_stripe *sh, unsigned long mask)
{
	LIST_HEAD(dead);

	take_reads(sh, mask, &dead);
	end_pieces(sh->a, &dead, BLK_STS_IOERR);
}

/*
 * md's write hole (issue 26): blocks rebuilt from a row whose parity a
 * crash may have torn are never served and never written back.  Their
 * reads fail (counted in unsafe_reads); the cache forgets them (a write
 * batch still computes its parity with them: what the members then hold
 * stays consistent, and the lost blocks stay unreadable).  Unreadable
 * blocks keep their sectors: a later read tries the member again.  A
 * write that covers such a block only in part fails too: the rest of the
 * block is not known, and neither the member (a read error) nor the
 * cache may be given it.  Returns the batch's touched members left.
 */
static unsigned long refuse_untrusted(struct r45_stripe *sh,
				      struct stripe_ctx *c,
				      unsigned long rebuilt,
				      unsigned long touched, unsigned long full)
{
	struct r45_array *a = sh->a;
	unsigned long partial = rebuilt & touched & ~full;
	struct r45_piece *p;
	unsigned int i, n = 0;
	LIST_HEAD(dead);

	for_each_set_bit(i, &rebuilt, a->geom.raid_disks) {
		clear_bit(R45_DEV_UPTODATE, &sh->dev[i].flags);
		clear_bit(R45_DEV_READ_ERROR, &sh->dev[i].flags);
	}
	c->uptodate &= ~rebuilt;
	c->bad &= ~rebuilt;
	take_reads(sh, rebuilt, &dead);
	for_each_set_bit(i, &partial, a->geom.raid_disks) {
		list_splice_tail_init(&sh->dev[i].batch, &dead);
		sh->dev[i].bcover = 0;
	}
	list_for_each_entry(p, &dead, node)
		n++;
	/*
	 * Counted before any of them ends: whoever sees the error and then
	 * reads the status finds it counted (a monitor; 88's harness once
	 * saw 59 errors and 58 counted, the lane preempted in between).
	 */
	if (n) {
		atomic64_add(n, &a->unsafe_reads);
		DMERR_LIMIT("sector %llu: %u reads or partial writes refused: the block would be computed from parity that a crash may have left inconsistent",
			    (unsigned long long)sh->sector, n);
	}
	end_pieces(a, &dead, BLK_STS_IOERR);
	return touched & ~partial;
}

/*
 * Discard pieces are kept only where the batch covers every data block of
 * the stripe: there they write zeroes, parity becomes zeroes too, and
 * nothing needs reading (dm-raid456.c, cut_discard: the stripe goes to
 * the members as write-zeroes).  Elsewhere they complete untouched: a
 * discard promises nothing about the data it names, and zeroing part of
 * a stripe would cost reads and a parity update to give no space back.
 * Best effort where a row was cut into two bios (at a region end, or at
 * a granularity boundary inside the row): the plugger holds partial
 * stripes back, so the two usually meet in one batch, but a stripe
 * handled in between keeps its data.  sh->lock held; the dropped pieces
 * go to @dropped.  Returns true when the batch is nothing but discards:
 * a stripe of zeroes.
 */
static bool settle_discards(struct r45_stripe *sh, struct list_head *dropped)
{
	const struct r45_geom *g = &sh->a->geom;
	bool full = true, only = true;
	unsigned int i;

	if (!test_bit(R45_STRIPE_DISCARD, &sh->state))
		return false;
	for (i = 0; i < g->data_disks; i++)
		if (sh->dev[sh->map.data[i]].bcover != R45_FULL_COVER)
			full = false;
	for (i = 0; i < g->raid_disks; i++) {
		struct r45_dev *dev = &sh->dev[i];
		struct r45_piece *p, *tmp;

		if (full) {
			list_for_each_entry(p, &dev->batch, node)
				if (!is_discard(p))
					only = false;
			continue;
		}
		dev->bcover = 0;
		list_for_each_entry_safe(p, tmp, &dev->batch, node) {
			if (is_discard(p))
				list_move_tail(&p->node, dropped);
			else
				dev->bcover |= cover_mask(p);
		}
	}
	if (!full)
		clear_bit(R45_STRIPE_DISCARD, &sh->state);
	return full && only;
}

/*
 * Move newly arrived writes into the batch; returns touched members.
 * @zero: the batch is a discard of the whole stripe (settle_discards).
 */
static unsigned long take_writes(struct r45_stripe *sh, unsigned long *full,
				 unsigned long *reading, bool *zero)
{
	unsigned long touched = 0;
	unsigned int i;
	LIST_HEAD(dropped);

	*full = 0;
	*reading = 0;
	spin_lock_irq(&sh->lock);
	for (i = 0; i < sh->a->geom.raid_disks; i++) {
		struct r45_dev *dev = &sh->dev[i];

		list_splice_tail_init(&dev->writes, &dev->batch);
		dev->bcover |= dev->wcover;
		dev->wcover = 0;
	}
	*zero = settle_discards(sh, &dropped);
	for (i = 0; i < sh->a->geom.raid_disks; i++) {
		struct r45_dev *dev = &sh->dev[i];

		if (!list_empty(&dev->batch))
			touched |= BIT(i);
		if (dev->bcover == R45_FULL_COVER)
			*full |= BIT(i);
		if (!list_empty(&dev->reads))
			*reading |= BIT(i);
	}
	if (sh->state & BIT(R45_STRIPE_FUA_PENDING)) {
		clear_bit(R45_STRIPE_FUA_PENDING, &sh->state);
		set_bit(R45_STRIPE_FUA, &sh->state);
	}
	spin_unlock_irq(&sh->lock);
	end_pieces(sh->a, &dropped, BLK_STS_OK);
	return touched;
}

static void finish_batch(struct r45_stripe *sh, blk_status_t status)
{
	unsigned int i;

	for (i = 0; i < sh->a->geom.raid_disks; i++) {
		struct r45_dev *dev = &sh->dev[i];

		dev->bcover = 0;
		dev->wpage = NULL;	/* the bio's page is its own again */
		end_pieces(sh->a, &dev->batch, status);
	}
	clear_bit(R45_STRIPE_WRITING, &sh->state);
	clear_bit(R45_STRIPE_FUA, &sh->state);
	if (!test_bit(R45_STRIPE_DISCARD, &sh->state))
		return;
	/* discards that came since are in dev->writes: settled next batch */
	spin_lock_irq(&sh->lock);
	for (i = 0; i < sh->a->geom.raid_disks; i++)
		if (!list_empty(&sh->dev[i].writes))
			break;
	if (i == sh->a->geom.raid_disks)
		clear_bit(R45_STRIPE_DISCARD, &sh->state);
	spin_unlock_irq(&sh->lock);
}

/*
 * Blocks whose write-zeroes failed (member_end_io): written again from
 * their pages, which hold the zeroes; a failure now fails the member.
 * Returns true while those writes are in flight; the batch finishes
 * after them.
 */
static bool retry_zeroes(struct r45_stripe *sh)
{
	struct r45_array *a = sh->a;
	unsigned long mask = 0;
	unsigned int i;

	for (i = 0; i < a->geom.raid_disks; i++)
		if (test_and_clear_bit(R45_DEV_ZERO_RETRY, &sh->dev[i].flags) &&
		    !test_bit(R45_MEMBER_FAILED, &a->members[i].flags))
			mask |= BIT(i);	/* a failed member is never written */
	return submit_member_io(sh, mask, REQ_OP_WRITE);
}

static void block_addrs(struct r45_stripe *sh, void **blocks)
{
	unsigned int i;

	for (i = 0; i < sh->a->geom.raid_disks; i++)
		blocks[i] = page_address(sh->dev[i].page);
}

/* Rebuild the wanted blocks of failed members from all the others. */
static int rebuild_failed(struct r45_stripe *sh, struct stripe_ctx *c,
			  unsigned long missing)
{
	void *blocks[R45_MAX_DISKS];
	int fa = -1, fb = -1;
	unsigned int i;

	for_each_set_bit(i, &missing, sh->a->geom.raid_disks) {
		if (fa < 0)
			fa = i;
		else
			fb = i;
	}
	block_addrs(sh, blocks);
	if (r45_reconstruct(&sh->a->geom, &sh->map, blocks, fa, fb))
		return -EIO;
	for_each_set_bit(i, &missing, sh->a->geom.raid_disks)
		set_bit(R45_DEV_UPTODATE, &sh->dev[i].flags);
	c->uptodate |= missing;
	atomic64_inc(&sh->a->stats.degraded);
	return 0;
}

/* Copy the batch into the blocks and bring parity up to date. */
static void apply_batch(struct r45_stripe *sh, unsigned long touched,
			bool rmw)
{
	struct r45_array *a = sh->a;
	void *blocks[R45_MAX_DISKS];
	unsigned int i;
	struct r45_piece *p;

	block_addrs(sh, blocks);
	if (rmw)	/* the old data out of P (and Q) */
		r45_parity_delta(&a->geom, &sh->map, blocks, touched);
	for_each_set_bit(i, &touched, a->geom.raid_disks) {
		list_for_each_entry(p, &sh->dev[i].batch, node)
			copy_piece(p, sh->dev[i].page, true);
		set_bit(R45_DEV_UPTODATE, &sh->dev[i].flags);
	}
	if (rmw)	/* the new data in */
		r45_parity_delta(&a->geom, &sh->map, blocks, touched);
	else
		r45_compute_parity(&a->geom, &sh->map, blocks);
}

/*
 * A full-stripe write without copies (md's skip_copy): when every data
 * block of the stripe is one piece that is a whole page of its bio, and
 * no page can change before the write completes (r45_page_stable: page
 * cache pages under writeback on a file system with stable writes; never
 * O_DIRECT memory), parity is computed from the bios' own pages and
 * those go to the members as they are (dev->wpage).  The cache's copies
 * of the data blocks are stale then and dropped: a later read or
 * read-modify-write reads the members.  Only where the array allows it
 * (a->skip_copy), on a stripe with every block readable, nothing to
 * write back and no reader waiting.  Returns false, having done nothing,
 * where it does not apply.
 */
static bool write_in_place(struct r45_stripe *sh, const struct stripe_ctx *c,
			   unsigned long full, unsigned long reading)
{
	struct r45_array *a = sh->a;
	void *blocks[R45_MAX_DISKS];
	unsigned int d, i;

	/* writes land on data blocks only; a discard piece is refused below */
	if (!a->skip_copy || c->failed || c->bad || reading ||
	    (full & c->data) != c->data)
		return false;
	for (d = 0; d < a->geom.data_disks; d++) {
		struct r45_dev *dev = &sh->dev[sh->map.data[d]];
		struct r45_piece *p;
		struct bio_vec bv;

		if (!list_is_singular(&dev->batch))
			return false;
		p = list_first_entry(&dev->batch, struct r45_piece, node);
		if (is_discard(p) || p->page_off || p->len != R45_STRIPE_BYTES)
			return false;
		/*
		 * Never direct I/O (REQ_IDLE: every direct write carries it,
		 * writeback never): page cache pages spliced into an O_DIRECT
		 * write (sendfile from another file of the same file system)
		 * are neither pinned nor written back by this bio, and the
		 * writeback they may be under can end before it does.
		 */
		if (p->bio->bi_opf & REQ_IDLE)
			return false;
		bv = bio_iter_iovec(p->bio, p->iter);
		if (bv.bv_offset || bv.bv_len != R45_STRIPE_BYTES ||
		    !r45_page_stable(bv.bv_page, a->self))
			return false;
	}
	block_addrs(sh, blocks);
	for (d = 0; d < a->geom.data_disks; d++) {
		struct r45_dev *dev = &sh->dev[sh->map.data[d]];
		struct r45_piece *p = list_first_entry(&dev->batch,
						       struct r45_piece, node);

		dev->wpage = bio_iter_iovec(p->bio, p->iter).bv_page;
		blocks[sh->map.data[d]] = page_address(dev->wpage);
		clear_bit(R45_DEV_UPTODATE, &dev->flags);
	}
	r45_compute_parity(&a->geom, &sh->map, blocks);
	for_each_set_bit(i, &c->parity, a->geom.raid_disks)
		set_bit(R45_DEV_UPTODATE, &sh->dev[i].flags);
	return true;
}

static void end_sync(struct r45_stripe *sh, bool ok)
{
	clear_bit(R45_STRIPE_SYNC_READING, &sh->state);
	clear_bit(R45_STRIPE_SYNC_WRITING, &sh->state);
	clear_bit(R45_STRIPE_SYNC, &sh->state);
	sh->a->ops->sync_done(sh->a, ok);
}

/*
 * Parity of the blocks as read, compared with what the members hold:
 * returns the parity members that differ, with their new blocks already
 * in the cache when fix is set.  Computed into the lane's scratch pages
 * (the lane handles one stripe at a time): no allocation on this path.
 */
static unsigned long verify_parity(struct r45_stripe *sh, bool fix)
{
	struct r45_array *a = sh->a;
	void *blocks[R45_MAX_DISKS];
	int pm[2] = { sh->map.pd, sh->map.qd };
	unsigned long differ = 0;
	unsigned int i, np = sh->map.qd >= 0 ? 2 : 1;

	block_addrs(sh, blocks);
	for (i = 0; i < np; i++)
		blocks[pm[i]] = page_address(sh->lane->scratch[i]);
	r45_compute_parity(&a->geom, &sh->map, blocks);
	for (i = 0; i < np; i++) {
		void *old = page_address(sh->dev[pm[i]].page);

		if (memcmp(old, blocks[pm[i]], R45_STRIPE_BYTES)) {
			differ |= BIT(pm[i]);
			if (fix)
				memcpy(old, blocks[pm[i]], R45_STRIPE_BYTES);
		}
	}
	return differ;
}

/*
 * The sync action on this stripe, once no write batch is in flight:
 * read every readable block (from the members, not the cache, for
 * check/repair/resync), then verify or fix parity, or rebuild the member
 * being recovered.  Blocks whose read failed are rebuilt from the others
 * and written back by every action, check included (md's scrub repairs
 * read errors); a stripe where too many blocks are unreadable is reported
 * as failed, and no member is failed for it.  Returns true while it
 * waits for member I/O.
 */
static bool handle_sync(struct r45_stripe *sh, struct stripe_ctx *c)
{
	struct r45_array *a = sh->a;
	unsigned long all = BIT(a->geom.raid_disks) - 1, mask, unread;
	int action = sh->sync_action;
	unsigned long differ;
	unsigned int i;

	if (test_bit(R45_STRIPE_SYNC_WRITING, &sh->state)) {
		bool ok = true;

		for (i = 0; i < a->geom.raid_disks; i++)
			if (sh->dev[i].error)
				ok = false;
		end_sync(sh, ok);
		return false;
	}
	if (c->nfailed > a->geom.parity_disks ||
	    (action != R45_ACT_RECOVER && c->broken)) {
		/* nothing can be verified or rebuilt here */
		end_sync(sh, action != R45_ACT_RECOVER &&
			 !(c->bad & ~c->uptodate));
		return false;
	}
	if (!test_and_set_bit(R45_STRIPE_SYNC_READING, &sh->state) &&
	    action != R45_ACT_RECOVER) {
		for (i = 0; i < a->geom.raid_disks; i++)
			clear_bit(R45_DEV_UPTODATE, &sh->dev[i].flags);
		c->uptodate = 0;
	}
	/* the first round reads them all, later ones what is to retry */
	if (submit_member_io(sh, all & ~c->failed & ~c->uptodate, REQ_OP_READ))
		return true;
	unread = c->failed & ~c->uptodate;
	/*
	 * A block rebuilt from torn parity would be written back wrong: the
	 * stripe stays unsynced, its region untrusted (issue 26), and the
	 * member's block there stays unreadable.  A rebuild (dev_to_init,
	 * readd) asks the trust owner too (issue 31, finding 1): it goes on
	 * there only when the table forced it (start_dirty_degraded).
	 */
	if (unread && !c->trusted &&
	    (action != R45_ACT_RECOVER ||
	     !a->ops->row_trusted(a, sh->sector >> a->geom.chunk_shift,
				  true))) {
		end_sync(sh, false);
		return false;
	}
	if (action == R45_ACT_RECOVER) {
		int rm = READ_ONCE(a->recover_member);

		if (rm < 0 || (c->broken & BIT(rm))) {
			end_sync(sh, true);
			return false;
		}
		if (unread && rebuild_failed(sh, c, unread)) {
			end_sync(sh, false);
			return false;
		}
		mask = BIT(rm);
	} else if (unread) {
		/* unreadable blocks: rebuilt, parity right by construction */
		if (rebuild_failed(sh, c, unread)) {
			end_sync(sh, false);
			return false;
		}
		mask = 0;
	} else {
		differ = verify_parity(sh, action != R45_ACT_CHECK);
		if (differ)
			atomic64_inc(&a->mismatches);
		mask = action == R45_ACT_CHECK ? 0 : differ;
	}
	mask |= c->bad & c->uptodate;
	/* only the writes' own errors decide whether the step worked */
	for (i = 0; i < a->geom.raid_disks; i++)
		sh->dev[i].error = 0;
	set_bit(R45_STRIPE_SYNC_WRITING, &sh->state);
	if (submit_member_io(sh, mask, REQ_OP_WRITE))
		return true;
	end_sync(sh, true);
	return false;
}

/*
 * The data blocks a write batch touches, as a range of data indices
 * (array order) [*lo, *hi]; the partial parity log records a range, so
 * untouched blocks inside it count as modified (ppl.c).
 */
static void ppl_range(struct r45_stripe *sh, unsigned long touched,
		      unsigned int *lo, unsigned int *hi)
{
	unsigned int dd;

	*lo = sh->a->geom.data_disks;
	*hi = 0;
	for (dd = 0; dd < sh->a->geom.data_disks; dd++)
		if (touched & BIT(sh->map.data[dd])) {
			*lo = min(*lo, dd);
			*hi = dd;
		}
}

/* The untouched data blocks inside the batch's range (read for RMW). */
static unsigned long ppl_gap(struct r45_stripe *sh, unsigned long touched)
{
	unsigned long gap = 0;
	unsigned int lo, hi, dd;

	ppl_range(sh, touched, &lo, &hi);
	for (dd = lo; dd <= hi && dd < sh->a->geom.data_disks; dd++)
		gap |= BIT(sh->map.data[dd]);
	return gap & ~touched;
}

/*
 * The partial parity of a write batch, before it is applied (ppl.c): the
 * xor of the data blocks outside its range, as they are.  Reconstruct-
 * write has read every one of them; read-modify-write has P and the
 * blocks inside the range (touched and gap), whose xor with P is the
 * same.  A batch over every data block logs no partial parity.
 */
static void ppl_prepare(struct r45_stripe *sh, unsigned long touched,
			bool rmw)
{
	const struct r45_geom *g = &sh->a->geom;
	void *srcs[R45_MAX_DISKS], *pp = page_address(sh->pp);
	unsigned int lo, hi, dd, n = 0;
	u64 row = sh->sector >> g->chunk_shift;

	ppl_range(sh, touched, &lo, &hi);
	sh->ppl_blocks = hi - lo + 1;
	sh->ppl_full = sh->ppl_blocks == g->data_disks;
	sh->ppl_sector = ((row * g->data_disks + lo) << g->chunk_shift) +
			 (sh->sector & (g->chunk_sectors - 1));
	if (sh->ppl_full)
		return;
	if (rmw)
		memcpy(pp, page_address(sh->dev[sh->map.pd].page), PAGE_SIZE);
	else
		memset(pp, 0, PAGE_SIZE);
	for (dd = 0; dd < g->data_disks; dd++)
		if ((dd >= lo && dd <= hi) == rmw)
			srcs[n++] = page_address(sh->dev[sh->map.data[dd]].page);
	r45_xor_into(pp, srcs, n);
}

/*
 * Log a batch before it goes to the members: on the partial parity log,
 * or in the journal (journal.c).  1: the stripe is parked until then;
 * 0: not logged, the batch goes now; -EIO: the batch fails (a dead
 * journal).
 */
static int log_batch(struct r45_stripe *sh)
{
	if (sh->a->ppl)
		return r45_ppl_log(sh);
	return sh->a->journal ? r45_journal_log(sh) : 0;
}

/*
 * A batch that may not be written (a dead journal): it fails, and the
 * cache forgets every block (the pages hold the batch, the members do
 * not), so that the next reader reads the members.
 */
static void fail_unwritten(struct r45_stripe *sh)
{
	unsigned int i;

	for (i = 0; i < sh->a->geom.raid_disks; i++)
		clear_bit(R45_DEV_UPTODATE, &sh->dev[i].flags);
	if (sh->jrec)
		r45_journal_written(sh);
	finish_batch(sh, BLK_STS_IOERR);
	queue_stripe(sh);	/* writes that came meanwhile */
}

/*
 * A stripe parked by the partial parity log or the journal: still
 * waiting (true), or
 * logged (its batch goes to the members now), or to be logged again (it
 * found no log write free).  False when nothing of that is the case.
 */
static bool ppl_resume(struct r45_stripe *sh, const struct stripe_ctx *c)
{
	bool go;

	int r;

	if (test_bit_acquire(R45_STRIPE_PPL_WAIT, &sh->state))
		return true;
	go = test_and_clear_bit(R45_STRIPE_PPL_GO, &sh->state);
	if (test_and_clear_bit(R45_STRIPE_PPL_FAIL, &sh->state)) {
		fail_unwritten(sh);
		return true;
	}
	if (test_and_clear_bit(R45_STRIPE_PPL_RETRY, &sh->state)) {
		r = log_batch(sh);
		if (r > 0)
			return true;
		if (r < 0) {
			fail_unwritten(sh);
			return true;
		}
		go = true;	/* not logged: parity member or journal failed */
	}
	if (!go)
		return false;
	/* a member may have failed meanwhile: it is not written */
	if (!submit_member_io(sh, sh->wmask & ~c->broken, sh->wop))
		queue_stripe(sh);	/* nothing to write: finish next round */
	return true;
}

static void handle_stripe(struct r45_stripe *sh)
{
	struct r45_array *a = sh->a;
	const struct r45_geom *g = &a->geom;
	unsigned long touched, full, reading, want, need, missing, mask;
	unsigned long rewrite;
	unsigned long all = BIT(g->raid_disks) - 1;
	struct stripe_ctx c;
	bool dead, rmw = false, zero;
	blk_opf_t op;

	/* acquire: the completions' flags and errors are seen below */
	if (atomic_read_acquire(&sh->io_pending))
		return;
	stripe_ctx_init(sh, &c);
	dead = c.nfailed > g->parity_disks;
	if (ppl_resume(sh, &c))
		return;

	if (test_bit(R45_STRIPE_WRITING, &sh->state)) {
		if (retry_zeroes(sh))
			return;
		if (sh->ppl_rec)
			r45_ppl_written(sh);
		if (sh->jrec)
			r45_journal_written(sh);
		finish_batch(sh, dead ? BLK_STS_IOERR : BLK_STS_OK);
	}

	serve_reads(sh, &c);
	if (test_bit(R45_STRIPE_SYNC, &sh->state) && handle_sync(sh, &c))
		return;
	touched = take_writes(sh, &full, &reading, &zero);
	if (dead) {
		/* beyond redundancy: no write can keep parity right */
		finish_batch(sh, BLK_STS_IOERR);
		touched = 0;
	}

	want = reading & ~c.uptodate;
	if (touched) {
		unsigned long rcw_need = c.data & ~full;
		unsigned long rmw_need = touched | c.parity;

		/* the log's range: what lies between two touched blocks */
		if (a->ppl)
			rmw_need |= ppl_gap(sh, touched);

		/*
		 * Read-modify-write (RAID6 too, where the raid6 library can
		 * update P and Q from a range of blocks) only with every
		 * block readable, and (md's rule: reconstruct-write beyond the
		 * resync point) only where parity is known to match the data:
		 * on a row the log calls out of sync (initial sync, after a
		 * crash, during a rebuild) it would fold stale parity into the
		 * new one, and a member lost before the resync gets there
		 * would be rebuilt as garbage.  Reconstruct-write makes the
		 * stripe's parity right instead.
		 */
		if ((g->parity_disks == 1 || a->raid6_rmw) &&
		    !c.nfailed && c.in_sync &&
		    hweight_long(rmw_need & ~c.uptodate) <
		    hweight_long(rcw_need & ~c.uptodate))
			rmw = true;
		need = rmw ? rmw_need : rcw_need;
		want |= need;
	}
	if (want & c.failed & ~c.uptodate)
		want |= all & ~c.failed;

	if (submit_member_io(sh, want & ~c.uptodate & ~c.failed, REQ_OP_READ))
		return;

	missing = want & c.failed & ~c.uptodate;
	if (missing) {
		/* every unreadable block takes part in the rebuild */
		missing = c.failed & ~c.uptodate;
		/* rebuilding needs every other block: not when dead */
		if (dead || rebuild_failed(sh, &c, missing)) {
			fail_reads(sh, missing);
			if (touched) {
				finish_batch(sh, BLK_STS_IOERR);
				touched = 0;
			}
		} else if (!c.trusted) {
			touched = refuse_untrusted(sh, &c, missing, touched,
						   full);
		}
	}
	/*
	 * md's rule for read errors: a block that could not be read and has
	 * been rebuilt is written back to its member, which remaps the
	 * sector; member_end_io counts the repair or fails the member.
	 * Without a write batch no bio waits for that write: it is counted
	 * (start_rewrite) before the readers it was rebuilt for are
	 * answered, so a suspend that waited for them waits for it too.
	 */
	rewrite = c.bad & c.uptodate;
	if (rewrite && a->read_only) {
		/* served from the rebuilt block; a read-only table writes
		 * nothing, so the member keeps its unreadable sector */
		unsigned int i;

		for_each_set_bit(i, &rewrite, g->raid_disks)
			clear_bit(R45_DEV_READ_ERROR, &sh->dev[i].flags);
		DMWARN_LIMIT("read error rebuilt from parity, not written back: read-only table");
		rewrite = 0;
	}
	if (!touched && rewrite)
		start_rewrite(sh, rewrite);
	if (missing)
		serve_reads(sh, &c);
	if (!touched)
		return;

	if (a->ppl)
		ppl_prepare(sh, touched, rmw);
	if (!rmw && write_in_place(sh, &c, full, reading))
		atomic64_inc(&a->stats.in_place);
	else
		apply_batch(sh, touched, rmw);
	if (rmw)
		atomic64_inc(&a->stats.rmw);
	else if ((full & c.data) == c.data)
		atomic64_inc(&a->stats.full_writes);
	else
		atomic64_inc(&a->stats.rcw);
	set_bit(R45_STRIPE_WRITING, &sh->state);
	mask = (touched | c.parity | rewrite) & ~c.broken;
	op = REQ_OP_WRITE;
	if (zero && READ_ONCE(a->zero_members)) {
		/* the cache holds the zeroes too: the stripe stays consistent */
		op = REQ_OP_WRITE_ZEROES;
		atomic64_inc(&a->stats.zeroed);
	} else if (test_bit(R45_STRIPE_FUA, &sh->state)) {
		op |= REQ_FUA;
	}
	/* the log first: the batch waits for its write */
	if (a->ppl || a->journal) {
		int r;

		sh->wmask = mask;
		sh->wop = op;
		r = log_batch(sh);
		if (r < 0)
			fail_unwritten(sh);
		if (r)
			return;
	}
	/*
	 * mask is never empty: the batch's members and parity less the
	 * failed ones, and with a batch left the stripe is not dead (more
	 * failed members than parity), so at least one of them is alive.
	 */
	submit_member_io(sh, mask, op);
}

/*
 * Handle a lane's ready stripes, a batch at a time under one plug.  At
 * most R45_LANE_BATCHES batches per run, then the work is queued again:
 * under memory pressure one rescuer may run every lane of the array in
 * turn, and a lane that is always fed must not starve the others.
 */
#define R45_LANE_BATCHES	16

static void lane_work(struct work_struct *work)
{
	struct r45_lane *lane = container_of(work, struct r45_lane, work);
	struct r45_stripe *sh, *tmp;
	struct blk_plug plug;
	unsigned int batches;
	LIST_HEAD(batch);

	for (batches = 0;; batches++) {
		bool idle;

		spin_lock_irq(&lane->lock);
		if (batches == R45_LANE_BATCHES && !list_empty(&lane->ready)) {
			/* still active: nobody else queues the work */
			spin_unlock_irq(&lane->lock);
			queue_work(lane->a->wq, work);
			break;
		}
		list_splice_init(&lane->ready, &batch);
		idle = list_empty(&batch);
		if (idle)
			lane->active = false;	/* the next stripe kicks us */
		spin_unlock_irq(&lane->lock);
		if (idle)
			break;
		blk_start_plug(&plug);
		list_for_each_entry_safe(sh, tmp, &batch, ready) {
			list_del_init(&sh->ready);
			/*
			 * HANDLING before QUEUED clears (same word: whoever
			 * queues it next sees it held and keeps its lane);
			 * the barrier orders list_del_init() before a
			 * queue_stripe() on another CPU may list it again.
			 */
			set_bit(R45_STRIPE_HANDLING, &sh->state);
			smp_mb__before_atomic();
			clear_bit(R45_STRIPE_QUEUED, &sh->state);
			/*
			 * Store buffering (tools/memory-model, "SB"): here we
			 * store QUEUED = 0 and then load io_pending
			 * (handle_stripe); member_end_io stores io_pending - 1
			 * (atomic_dec_and_test, fully ordered) and then loads
			 * QUEUED (test_and_set_bit in queue_stripe, fully
			 * ordered).  clear_bit() is an unordered RMW: without
			 * a full barrier between our store and our load, a
			 * weakly ordered CPU (arm64, POWER) may let both sides
			 * read the old values: we see I/O pending and leave
			 * the stripe, the completion sees it queued and does
			 * not queue it, and nobody handles it again.  With
			 * smp_mb__after_atomic() here and the completion's
			 * full ordering, at least one of the two loads sees
			 * the other side's store: either handle_stripe sees
			 * io_pending 0, or queue_stripe finds QUEUED clear
			 * and queues the stripe once more.
			 */
			smp_mb__after_atomic();
			handle_stripe(sh);
			clear_bit_unlock(R45_STRIPE_HANDLING, &sh->state);
			atomic_dec(&lane->backlog);
			put_stripe(sh);
		}
		blk_finish_plug(&plug);
		cond_resched();
	}
}

/* ---- requests ---- */

/* Attach one piece; decide whether the stripe runs now or waits. */
static void attach_piece(struct r45_array *a, struct r45_stripe *sh,
			 unsigned int disk, struct r45_piece *p, bool write,
			 bool fua)
{
	bool complete = true;
	unsigned int i;

	spin_lock_irq(&sh->lock);
	if (!write) {
		list_add_tail(&p->node, &sh->dev[disk].reads);
	} else {
		list_add_tail(&p->node, &sh->dev[disk].writes);
		sh->dev[disk].wcover |= cover_mask(p);
		if (is_discard(p))
			set_bit(R45_STRIPE_DISCARD, &sh->state);
		if (fua)
			set_bit(R45_STRIPE_FUA_PENDING, &sh->state);
		for (i = 0; i < a->geom.data_disks; i++)
			if (sh->dev[sh->map.data[i]].wcover != R45_FULL_COVER)
				complete = false;
	}
	spin_unlock_irq(&sh->lock);

	if (write && !complete && !test_bit(R45_ARRAY_SUSPENDED, &a->flags) &&
	    a->ops->plug_arm(a))
		delay_stripe(sh);
	else
		queue_stripe(sh);
}

/*
 * Cut a bio (sector relative to the array) into member-block pieces and
 * hand them to their stripes.  The bio completes when every piece has.
 */
int r45_make_request(struct r45_array *a, struct bio *bio)
{
	const struct r45_geom *g = &a->geom;
	struct bvec_iter iter = bio->bi_iter;
	bool write = op_is_write(bio_op(bio));
	bool fua = bio->bi_opf & REQ_FUA;
	sector_t s = iter.bi_sector;
	sector_t end = bvec_iter_end_sector(iter);

	atomic64_inc(write ? &a->stats.writes : &a->stats.reads);
	while (s < end) {
		struct r45_loc loc;
		struct r45_stripe *sh;
		struct r45_piece *p;
		unsigned int off, len;

		/* the stripe holds its row's map: no map per piece here */
		r45_sector_pos(g, s, &loc);
		off = loc.dev_sector & (R45_STRIPE_SECTORS - 1);
		len = min_t(sector_t, end - s, R45_STRIPE_SECTORS - off);
		sh = get_stripe(a, loc.dev_sector - off);
		loc.disk = sh->map.data[loc.dd];
		p = mempool_alloc(a->piece_pool, GFP_NOIO);
		p->bio = bio;
		p->iter = iter;
		p->page_off = off << SECTOR_SHIFT;
		p->len = len << SECTOR_SHIFT;
		bio_inc_remaining(bio);
		attach_piece(a, sh, loc.disk, p, write, fua);
		put_stripe(sh);
		bio_advance_iter(bio, &iter, len << SECTOR_SHIFT);
		s += len;
	}
	bio_endio(bio);
	return 0;
}

/* Ask the state machine to run a sync action on one stripe. */
void r45_stripe_sync(struct r45_array *a, sector_t sector, int action)
{
	struct r45_stripe *sh = get_stripe(a, sector);

	spin_lock_irq(&sh->lock);
	sh->sync_action = action;
	set_bit(R45_STRIPE_SYNC, &sh->state);
	spin_unlock_irq(&sh->lock);
	queue_stripe(sh);
	put_stripe(sh);
}

/* ---- cache setup and sizing ---- */

int r45_stripe_module_init(void)
{
	r45_piece_cache = KMEM_CACHE(r45_piece, 0);
	return r45_piece_cache ? 0 : -ENOMEM;
}

void r45_stripe_module_exit(void)
{
	kmem_cache_destroy(r45_piece_cache);
}

/* The glue creates the engine, registering what it reports upward. */
int r45_cache_init(struct r45_array *a, unsigned int nr_stripes,
		   const struct r45_engine_ops *ops)
{
	unsigned int buckets = roundup_pow_of_two(R45_MAX_STRIPES / 4), i, j;

	a->ops = ops;
	a->raid6_rmw = a->geom.parity_disks == 2 &&
		       r45_raid6_can_xor_syndrome();
	spin_lock_init(&a->lock);
	INIT_LIST_HEAD(&a->idle);
	INIT_LIST_HEAD(&a->delayed);
	init_waitqueue_head(&a->wait_stripe);
	atomic_set(&a->rewrites, 0);
	a->max_stripes = nr_stripes;
	a->hash = kvcalloc(buckets, sizeof(*a->hash), GFP_KERNEL);
	if (!a->hash)
		return -ENOMEM;
	a->hash_mask = buckets - 1;
	for (i = 0; i < buckets; i++)
		INIT_HLIST_HEAD(&a->hash[i]);
	a->piece_pool = mempool_create_slab_pool(256, r45_piece_cache);
	if (!a->piece_pool)
		goto fail;
	/* a lane per CPU, at most 32; which handles what: pick_lane() */
	a->nr_lanes = clamp(num_online_cpus(), 1U, 32U);
	a->lanes = kcalloc(a->nr_lanes, sizeof(*a->lanes), GFP_KERNEL);
	if (!a->lanes)
		goto fail;
	for (i = 0; i < a->nr_lanes; i++) {
		struct r45_lane *lane = &a->lanes[i];

		lane->a = a;
		spin_lock_init(&lane->lock);
		INIT_LIST_HEAD(&lane->ready);
		INIT_WORK(&lane->work, lane_work);
		/* P, and Q for RAID6 (verify_parity) */
		for (j = 0; j < a->geom.parity_disks; j++) {
			lane->scratch[j] = alloc_page(GFP_KERNEL);
			if (!lane->scratch[j])
				goto fail;
		}
	}
	a->wq = alloc_workqueue("raid45", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!a->wq)
		goto fail;
	/* a few stripes up front guarantee forward progress */
	for (i = 0; i < R45_MIN_STRIPES; i++) {
		struct r45_stripe *sh = alloc_stripe(a, GFP_KERNEL);

		if (!sh)
			goto fail;
		list_add(&sh->lru, &a->idle);
		a->nr_stripes++;
	}
	return 0;
fail:
	r45_cache_exit(a);
	return -ENOMEM;
}

/* Every stripe idle (or freed): nothing holds one any more. */
static bool all_idle(struct r45_array *a)
{
	struct r45_stripe *sh;
	unsigned int n = 0;
	bool idle;

	spin_lock_irq(&a->lock);
	list_for_each_entry(sh, &a->idle, lru)
		n++;
	idle = n == a->nr_stripes;
	spin_unlock_irq(&a->lock);
	return idle;
}

bool r45_cache_exit(struct r45_array *a)
{
	struct r45_stripe *sh, *tmp;
	unsigned int i;

	if (a->wq) {
		r45_release_delayed(a);
		r45_wait_count(a, &a->rewrites);
		/*
		 * A member I/O's completion may still be putting its stripe
		 * (put_stripe, which wakes us under a->lock), or queueing it
		 * to a lane.  Every member I/O belongs to something teardown
		 * has waited for (a bio, a sync step, a rewrite), so a stripe
		 * still held after this is our bug: warn and leak the whole
		 * cache, its lanes' workqueue and the array (r45_array_destroy)
		 * rather than free what a late completion would touch.
		 */
		for (i = 0;; i++) {
			drain_workqueue(a->wq);
			if (wait_event_timeout(a->wait_stripe, all_idle(a), HZ))
				break;
			if (i == 9) {
				WARN(1, "raid45: stripes still in use at teardown: cache leaked\n");
				return false;
			}
		}
		destroy_workqueue(a->wq);
		a->wq = NULL;
	}
	list_for_each_entry_safe(sh, tmp, &a->idle, lru) {
		list_del(&sh->lru);
		hlist_del_init(&sh->hash);
		free_stripe(a, sh);
		a->nr_stripes--;
	}
	mempool_destroy(a->piece_pool);
	a->piece_pool = NULL;
	for (i = 0; a->lanes && i < a->nr_lanes; i++) {
		if (a->lanes[i].scratch[0])
			__free_page(a->lanes[i].scratch[0]);
		if (a->lanes[i].scratch[1])
			__free_page(a->lanes[i].scratch[1]);
	}
	kfree(a->lanes);
	a->lanes = NULL;
	kvfree(a->hash);
	a->hash = NULL;
	return true;
}

/* Change the cache size; excess busy stripes go when they become idle. */
int r45_cache_resize(struct r45_array *a, unsigned int nr_stripes)
{
	struct r45_stripe *sh, *tmp;
	LIST_HEAD(victims);

	if (nr_stripes < R45_MIN_STRIPES || nr_stripes > R45_MAX_STRIPES)
		return -EINVAL;
	spin_lock_irq(&a->lock);
	a->max_stripes = nr_stripes;
	list_for_each_entry_safe(sh, tmp, &a->idle, lru) {
		if (a->nr_stripes <= a->max_stripes)
			break;
		list_move(&sh->lru, &victims);
		hlist_del_init(&sh->hash);
		a->nr_stripes--;
	}
	spin_unlock_irq(&a->lock);
	list_for_each_entry_safe(sh, tmp, &victims, lru)
		free_stripe(a, sh);
	wake_up_all(&a->wait_stripe);
	return 0;
}
