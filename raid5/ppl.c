// SPDX-License-Identifier: GPL-2.0
/*
 * The partial parity log (PPL): md's answer to the RAID5 write hole, in
 * md's on-disk format (Documentation/driver-api/md/raid5-ppl.rst and the
 * header of include/uapi/linux/raid/md_p.h), so that md reads what we
 * write and we read what md writes.
 *
 * (~1,050 lines in one file: the log write, its ordering against the
 * stripe writes, the suspend that empties it and the replay are one
 * on-disk format, each part's correctness argued against the others.)
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
 * at a time per member: the next one waits until every stripe of the
 * current one is on the members, and the members written are flushed
 * first when they have volatile caches, because the next header may
 * overwrite this one (a small area) or make it no longer the newest
 * (a large one holds headers one after the other, md's "multiple PPLs":
 * recovery takes the newest).  Stripes logged meanwhile gather in the
 * next log write.  Only RAID4 and RAID5 (md's PPL is RAID5's): one
 * parity block per stripe.
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

#define DM_MSG_PREFIX "raid45"
/* replay_entry(): nothing to replay (a lone modified member is missing) */
#define R45_PPL_SKIPPED		INT_MAX

/* md's format: struct ppl_header (a 4 KiB header), partial parity after it */
#define PPL_SPACE_SIZE		(128 * 1024)	/* per header in a large area */

/* at most this many partial parities (pages) in one log write */
#define PPL_MAX_PP	(PPL_SPACE_SIZE / PAGE_SIZE)

/* One log write: a header and its entries' partial parities. */
struct r45_ppl_io {
	struct r45_ppl_log *log;
	struct list_head node;		/* log->ios, oldest first */
	struct list_head stripes;	/* r45_stripe.ppl_node */
	struct page *header;
	unsigned int entries;
	unsigned int pp_pages;
	atomic_t pending;		/* stripes not yet on the members */
	atomic_t flushing;
	unsigned long written;		/* members its stripes wrote */
	bool submitted;
	struct bio bio;			/* header + partial parities */
	struct bio_vec vecs[1 + PPL_MAX_PP];
};

/* The log of one member: its PPL area. */
struct r45_ppl_log {
	struct r45_ppl *ppl;
	unsigned int idx;
	spinlock_t lock;
	struct list_head ios;		/* the first may be submitted */
	struct list_head free;		/* two ios per log, preallocated */
	struct list_head waiting;	/* stripes that found no free io */
	sector_t start;			/* the area, on the member */
	sector_t next;			/* where the next header goes */
	unsigned int entry_space;	/* bytes of partial parity per io */
	bool multi;			/* headers one after the other */
	struct work_struct work;	/* submits the first io */
};

struct r45_ppl {
	struct r45_array *a;
	s64 offset;			/* the area, from the member's data */
	sector_t size;
	u32 signature;
	atomic64_t seq;			/* generation of the last header */
	atomic_t ios;			/* ios allocated, not yet finished */
	wait_queue_head_t idle;		/* woken when an io is finished */
	struct bio_set flush_bs;
	struct workqueue_struct *wq;
	struct r45_ppl_log logs[R45_MAX_DISKS];
};

/*
 * The entry points below run with the device suspended (first resume,
 * reload, readd, postsuspend, dtr): a file system or swap on the array
 * may be in reclaim, waiting for writeback to it, so nothing they
 * allocate may wait for I/O.  Their callers hold a memalloc_noio scope
 * (issue 31, finding 8); this says so on every run of the suite (its
 * guests panic on a warning), where an allocation would only deadlock
 * under a memory pressure that no test can time.
 */
static void assert_noio(void)
{
	WARN_ON_ONCE(!(current->flags & PF_MEMALLOC_NOIO));
}

static struct r45_ppl_io *io_alloc(struct r45_ppl_log *log)
{
	struct r45_ppl_io *io = kzalloc(sizeof(*io), GFP_KERNEL);

	if (!io)
		return NULL;
	io->header = alloc_page(GFP_KERNEL);
	if (!io->header) {
		kfree(io);
		return NULL;
	}
	io->log = log;
	return io;
}

static void io_free(struct r45_ppl_io *io)
{
	__free_page(io->header);
	kfree(io);
}

/*
 * Each log owns two ios for its life (not a mempool: mempool_alloc asks
 * the page allocator first, a page cleared on every log write).
 *
 * An io made ready for its next use and put on its log's free list, at
 * setup and when it is finished: outside the log's lock, so that the
 * header page's clearing never runs with interrupts off in the write
 * path (r45_ppl_log takes a free io under the lock).
 */
static void io_put_free(struct r45_ppl_io *io)
{
	struct r45_ppl_log *log = io->log;
	struct ppl_header *h = page_address(io->header);
	unsigned long flags;

	INIT_LIST_HEAD(&io->stripes);
	io->entries = 0;
	io->pp_pages = 0;
	atomic_set(&io->pending, 0);
	io->written = 0;
	io->submitted = false;
	memset(h, 0, PAGE_SIZE);
	memset(h->reserved, 0xff, PPL_HDR_RESERVED);
	h->signature = cpu_to_le32(log->ppl->signature);
	spin_lock_irqsave(&log->lock, flags);
	list_add(&io->node, &log->free);
	spin_unlock_irqrestore(&log->lock, flags);
}

/* A free io of the log, or NULL (log->lock held). */
static struct r45_ppl_io *new_io(struct r45_ppl_log *log)
{
	struct r45_ppl_io *io = list_first_entry_or_null(&log->free,
							 struct r45_ppl_io,
							 node);

	if (io) {
		list_del(&io->node);
		atomic_inc(&log->ppl->ios);
	}
	return io;
}

/* Does the io have room for one more stripe (with partial parity)? */
static bool io_has_room(struct r45_ppl_io *io, bool pp)
{
	return io->entries < PPL_HDR_MAX_ENTRIES &&
	       (!pp || (io->pp_pages + 1) * PAGE_SIZE <= io->log->entry_space);
}

static void ppl_crc(u32 *crc, const void *p, unsigned int len)
{
	*crc = crc32c(*crc, p, len);
}

/* ---- writing ---- */

/*
 * The log write is on the device: its stripes' data and parity may go.
 * They leave the io's list (only their count, io->pending, is kept).
 * Any context.
 */
static void io_endio(struct bio *bio)
{
	struct r45_ppl_io *io = bio->bi_private;
	struct r45_array *a = io->log->ppl->a;
	struct r45_stripe *sh, *tmp;
	unsigned long flags;
	LIST_HEAD(go);

	if (bio->bi_status && !r45_member_is_failed(a, io->log->idx)) {
		/*
		 * md fails the member whose log write failed: its stripes'
		 * writes go on without their parity there.
		 */
		DMERR_LIMIT("member %u: partial parity log write failed (error %d)",
			    io->log->idx, blk_status_to_errno(bio->bi_status));
		a->ops->member_failed(a, io->log->idx);
	}
	bio_uninit(bio);
	spin_lock_irqsave(&io->log->lock, flags);
	list_splice_init(&io->stripes, &go);
	spin_unlock_irqrestore(&io->log->lock, flags);
	list_for_each_entry_safe(sh, tmp, &go, ppl_node) {
		list_del_init(&sh->ppl_node);
		r45_ppl_wake(sh, R45_STRIPE_PPL_GO);
	}
}

/*
 * Submit the first io of the log if it is not yet submitted.  Process
 * context (the log's work, or a lane).
 */
static void submit_first(struct r45_ppl_log *log)
{
	struct r45_ppl *ppl = log->ppl;
	struct r45_member *m = &ppl->a->members[log->idx];
	struct r45_ppl_io *io;
	struct ppl_header *h;
	struct r45_stripe *sh;
	sector_t need;
	u32 crc;

	spin_lock_irq(&log->lock);
	io = list_first_entry_or_null(&log->ios, struct r45_ppl_io, node);
	if (!io || io->submitted || !io->entries) {
		spin_unlock_irq(&log->lock);
		return;
	}
	io->submitted = true;
	spin_unlock_irq(&log->lock);

	h = page_address(io->header);
	h->generation = cpu_to_le64(atomic64_inc_return(&ppl->seq));
	h->entries_count = cpu_to_le32(io->entries);
	h->checksum = 0;
	crc = ~0;
	ppl_crc(&crc, h, PPL_HEADER_SIZE);
	h->checksum = cpu_to_le32(~crc);

	/* a large area: the next header after this one, or from the start */
	need = (PPL_HEADER_SIZE + io->pp_pages * PAGE_SIZE) >> SECTOR_SHIFT;
	if (log->multi && log->next + need > log->start + ppl->size)
		log->next = log->start;
	bio_init(&io->bio, m->bdev, io->vecs, ARRAY_SIZE(io->vecs),
		 REQ_OP_WRITE | REQ_FUA | REQ_SYNC);
	io->bio.bi_iter.bi_sector = log->next;
	io->bio.bi_end_io = io_endio;
	io->bio.bi_private = io;
	__bio_add_page(&io->bio, io->header, PAGE_SIZE, 0);
	/* the partial parities in the order of the entries */
	list_for_each_entry(sh, &io->stripes, ppl_node)
		if (!sh->ppl_full)
			__bio_add_page(&io->bio, sh->pp, PAGE_SIZE, 0);
	if (log->multi)
		log->next += need;
	if (r45_member_is_failed(ppl->a, log->idx))
		bio_io_error(&io->bio);	/* its stripes go on */
	else
		submit_bio(&io->bio);
}

static void log_work(struct work_struct *work)
{
	submit_first(container_of(work, struct r45_ppl_log, work));
}

/* The io is done: every stripe on the members, flushed where needed. */
static void io_finished(struct r45_ppl_io *io)
{
	struct r45_ppl_log *log = io->log;
	struct r45_ppl *ppl = log->ppl;
	struct r45_stripe *sh, *tmp;
	unsigned long flags;
	LIST_HEAD(retry);

	spin_lock_irqsave(&log->lock, flags);
	list_del(&io->node);
	list_splice_init(&log->waiting, &retry);
	spin_unlock_irqrestore(&log->lock, flags);
	io_put_free(io);
	/* stripes that found no io: handled again, they log themselves */
	list_for_each_entry_safe(sh, tmp, &retry, ppl_node) {
		list_del_init(&sh->ppl_node);
		r45_ppl_wake(sh, R45_STRIPE_PPL_RETRY);
	}
	queue_work(ppl->wq, &log->work);
	/*
	 * The last touch of the log, under the waitqueue's lock: r45_ppl_exit
	 * waits for the count to reach 0 and then takes that lock, so it
	 * cannot free the log while this runs (the list going empty above is
	 * no such point: the pool and the workqueue are still used after).
	 * Destroying the workqueue waits for the work queued above.
	 */
	spin_lock_irqsave(&ppl->idle.lock, flags);
	atomic_dec(&ppl->ios);
	wake_up_all_locked(&ppl->idle);
	spin_unlock_irqrestore(&ppl->idle.lock, flags);
}

static void flush_endio(struct bio *bio)
{
	struct r45_ppl_io *io = bio->bi_private;
	struct r45_array *a = io->log->ppl->a;

	if (bio->bi_status) {
		unsigned int i;

		for (i = 0; i < a->geom.raid_disks; i++)
			if (a->members[i].bdev == bio->bi_bdev)
				a->ops->member_failed(a, i);
	}
	bio_put(bio);
	if (atomic_dec_and_test(&io->flushing))
		io_finished(io);
}

/*
 * Every stripe of the io is on the members.  Before the next log write
 * can take this one's place, what the stripes wrote must be durable:
 * members with a volatile cache that they wrote are flushed (md's rule;
 * a FUA on the next header is not enough, it covers only itself).
 * Any context: the flush bios come from a bioset, never fail to come.
 */
static void io_written(struct r45_ppl_io *io)
{
	struct r45_ppl *ppl = io->log->ppl;
	struct r45_array *a = ppl->a;
	unsigned long mask = 0;
	unsigned int i;

	for_each_set_bit(i, &io->written, a->geom.raid_disks)
		if (!r45_member_is_failed(a, i) &&
		    bdev_write_cache(a->members[i].bdev))
			__set_bit(i, &mask);
	atomic_set(&io->flushing, 1);
	for_each_set_bit(i, &mask, a->geom.raid_disks) {
		struct bio *bio = bio_alloc_bioset(a->members[i].bdev, 0,
						   REQ_OP_WRITE | REQ_PREFLUSH,
						   GFP_NOIO, &ppl->flush_bs);

		bio->bi_end_io = flush_endio;
		bio->bi_private = io;
		atomic_inc(&io->flushing);
		submit_bio(bio);
	}
	if (atomic_dec_and_test(&io->flushing))
		io_finished(io);
}

/*
 * Log a stripe whose batch is ready to go out (parity computed, its
 * partial parity in sh->pp unless sh->ppl_full): added to the current io
 * of its parity member's log, and parked (R45_STRIPE_PPL_WAIT) until
 * that io is on the log device.  Returns false when the stripe is not
 * logged (its parity member is failed: nothing to protect) and may be
 * written at once.  The lane's context.
 */
bool r45_ppl_log(struct r45_stripe *sh)
{
	struct r45_ppl *ppl = sh->a->ppl;
	struct r45_ppl_log *log = &ppl->logs[sh->map.pd];
	struct ppl_header_entry *e;
	struct r45_ppl_io *io;
	bool kick = false;
	u32 crc = ~0;

	if (r45_member_is_failed(sh->a, sh->map.pd))
		return false;
	/* the checksum before the lock: nothing slow with interrupts off */
	if (!sh->ppl_full)
		ppl_crc(&crc, page_address(sh->pp), PAGE_SIZE);
	atomic_inc(&sh->count);		/* r45_ppl_wake puts it */
	set_bit(R45_STRIPE_PPL_WAIT, &sh->state);
	spin_lock_irq(&log->lock);
	io = list_empty(&log->ios) ? NULL :
	     list_last_entry(&log->ios, struct r45_ppl_io, node);
	if (!io || io->submitted || !io_has_room(io, !sh->ppl_full)) {
		/*
		 * At most two ios per log, one on its way and one filling
		 * (log->free holds the two).  A third waits until the first
		 * is done.
		 */
		io = new_io(log);
		if (!io) {
			/* logged again when an io of this log finishes */
			list_add_tail(&sh->ppl_node, &log->waiting);
			spin_unlock_irq(&log->lock);
			return true;
		}
		list_add_tail(&io->node, &log->ios);
	}
	e = &((struct ppl_header *)page_address(io->header))->
		entries[io->entries++];
	e->data_sector = cpu_to_le64(sh->ppl_sector);
	e->data_size = cpu_to_le32(sh->ppl_blocks * PAGE_SIZE);
	e->parity_disk = cpu_to_le32(sh->map.pd);
	if (!sh->ppl_full) {
		e->pp_size = cpu_to_le32(PAGE_SIZE);
		e->checksum = cpu_to_le32(~crc);
		io->pp_pages++;
	} else {
		e->checksum = 0;	/* ~crc32c(~0) of no bytes */
	}
	sh->ppl_io = io;
	io->written |= sh->wmask;
	atomic_inc(&io->pending);
	list_add_tail(&sh->ppl_node, &io->stripes);
	kick = list_first_entry(&log->ios, struct r45_ppl_io, node) == io;
	spin_unlock_irq(&log->lock);
	if (kick)
		submit_first(log);
	return true;
}

/* A logged stripe's batch is on the members (handle_stripe). */
void r45_ppl_written(struct r45_stripe *sh)
{
	struct r45_ppl_io *io = sh->ppl_io;

	sh->ppl_io = NULL;
	if (atomic_dec_and_test(&io->pending))
		io_written(io);
}

/* ---- setup ---- */

/* The ios of the first @n logs, all free (setup failed, or idle). */
static void free_ios(struct r45_ppl *ppl, unsigned int n)
{
	struct r45_ppl_io *io, *tmp;
	unsigned int i;

	for (i = 0; i < n; i++)
		list_for_each_entry_safe(io, tmp, &ppl->logs[i].free, node)
			io_free(io);
}

int r45_ppl_init(struct r45_array *a, s64 offset, sector_t size,
		 u32 signature)
{
	struct r45_ppl *ppl;
	unsigned int i, j;
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
		struct r45_ppl_log *log = &ppl->logs[i];

		log->ppl = ppl;
		log->idx = i;
		spin_lock_init(&log->lock);
		INIT_LIST_HEAD(&log->ios);
		INIT_LIST_HEAD(&log->waiting);
		INIT_LIST_HEAD(&log->free);
		INIT_WORK(&log->work, log_work);
		log->start = a->members[i].offset + offset;
		log->next = log->start;
		/* md: room for two 128 KiB slots makes the area a ring */
		log->multi = size << SECTOR_SHIFT >=
			     2 * (PPL_SPACE_SIZE + PPL_HEADER_SIZE);
		/* at most what one log write carries (io->vecs) */
		log->entry_space = min_t(u64, PPL_MAX_PP * PAGE_SIZE,
					 (size << SECTOR_SHIFT) -
					 PPL_HEADER_SIZE);
		/* two ios per log, one on its way and one filling */
		for (j = 0; j < 2; j++) {
			struct r45_ppl_io *io = io_alloc(log);

			if (!io)
				goto fail_ios;
			io_put_free(io);
		}
	}
	a->ppl = ppl;
	return 0;
fail_ios:
	free_ios(ppl, i + 1);
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
	bool idle = !atomic_read(&ppl->ios);

	for (i = 0; i < ppl->a->geom.raid_disks && idle; i++) {
		spin_lock_irq(&ppl->logs[i].lock);
		idle = list_empty(&ppl->logs[i].ios) &&
		       list_empty(&ppl->logs[i].waiting);
		spin_unlock_irq(&ppl->logs[i].lock);
	}
	return idle;
}

/*
 * No log write or member flush of the log is under way any more once
 * every stripe's batch is done (a suspend waited for the bios, so only
 * the flushes of the last log writes can still run).  -EINTR on a fatal
 * signal (a suspend that is killed while a member does not answer).
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
	/* the last io_finished may still hold the lock of its wakeup */
	spin_lock_irq(&ppl->idle.lock);
	spin_unlock_irq(&ppl->idle.lock);
	destroy_workqueue(ppl->wq);
	bioset_exit(&ppl->flush_bs);
	free_ios(ppl, ppl->a->geom.raid_disks);
	kfree(ppl);
	a->ppl = NULL;
}

/* ---- replay at activation ---- */

static void xor_page(struct page *dest, struct page *src)
{
	void *srcs[1] = { page_address(src) };

	r45_xor_into(page_address(dest), srcs, 1);
}

/* Synchronous I/O of @len bytes of @page at @sector of member @i. */
static int member_rw(struct r45_array *a, unsigned int i, sector_t sector,
		     struct page *page, unsigned int len, blk_opf_t op)
{
	struct bio *bio = bio_alloc(a->members[i].bdev, 1, op, GFP_KERNEL);
	int r;

	bio->bi_iter.bi_sector = sector;
	__bio_add_page(bio, page, len, 0);
	r = submit_bio_wait(bio);
	bio_put(bio);
	return r;
}

/*
 * A header read from @sector of member @i: 1 valid (checksum, signature),
 * 0 not, or the read's error.
 */
static int read_header(struct r45_ppl_log *log, sector_t sector,
		       struct page *page)
{
	struct ppl_header *h = page_address(page);
	u32 crc = ~0, stored;
	int r;

	r = member_rw(log->ppl->a, log->idx, sector, page, PPL_HEADER_SIZE,
		      REQ_OP_READ);
	if (r)
		return r;
	stored = le32_to_cpu(h->checksum);
	h->checksum = 0;
	ppl_crc(&crc, h, PPL_HEADER_SIZE);
	h->checksum = cpu_to_le32(stored);
	return ~crc == stored &&
	       le32_to_cpu(h->signature) == log->ppl->signature &&
	       le32_to_cpu(h->entries_count) <= PPL_HDR_MAX_ENTRIES;
}

/*
 * The parity of one entry made right again (md's recovery, for any entry
 * md writes: a run of stripes of one chunk, a range of consecutive data
 * blocks each): for every block of the strip, parity = the xor of the
 * modified data blocks as they are on the members, and of the partial
 * parity when the entry has one.  A stripe whose modified data member
 * is failed or missing is left alone: its write may have been lost in
 * part, and parity is what still gives the blocks it did not touch.
 * The entry's data_sector is in 512-byte sectors (md's native format).
 * Returns the blocks of parity written, or a negative errno.
 */
static int replay_entry(struct r45_ppl_log *log,
			const struct ppl_header_entry *e, sector_t pp_sector,
			struct page *acc, struct page *buf)
{
	struct r45_array *a = log->ppl->a;
	const struct r45_geom *g = &a->geom;
	u32 pp_size = le32_to_cpu(e->pp_size);
	u32 data_size = le32_to_cpu(e->data_size);
	sector_t first = le64_to_cpu(e->data_sector), last;
	unsigned int chunk = g->chunk_sectors, ndata, strip, step, i, d, mod;
	int written = 0, r;
	bool lost;

	if (!data_size)
		return 0;
	if ((pp_size >> SECTOR_SHIFT) < chunk) {
		if (pp_size) {
			ndata = data_size / pp_size;
			strip = pp_size >> SECTOR_SHIFT;
		} else {
			ndata = g->data_disks;
			strip = (data_size >> SECTOR_SHIFT) / ndata;
		}
		last = first + (ndata - 1) * chunk + strip;
	} else {
		ndata = g->data_disks;
		strip = chunk;
		last = first + (data_size >> SECTOR_SHIFT);
	}
	/*
	 * Only what md writes: within the array (no wrap), a strip within
	 * one chunk (an entry crossing one would pair blocks of two rows).
	 */
	if (!ndata || ndata > g->data_disks || !strip || strip > chunk ||
	    first >= a->array_sectors || last <= first ||
	    last > a->array_sectors ||
	    (first & (chunk - 1)) + strip > chunk)
		return -EINVAL;
	/* whole pages where the entry allows, else sector by sector */
	step = !(first & 7) && !(last & 7) && !(strip & 7) ? 8 : 1;
	/*
	 * A data member the entry modified that is failed, missing or being
	 * rebuilt: its block is not known, so parity cannot be made right
	 * (md skips such a stripe; issue 31, finding 7).  Alone among the
	 * modified members, it is the one block parity rebuilds, and parity
	 * is the old or the new one (it landed or not), so the block comes
	 * back as it was or as it was being written: skipped, counted apart
	 * (R45_PPL_SKIPPED).  With another modified member beside it, that
	 * one may have landed while parity did not, or the reverse: the
	 * block would come back as neither, so the caller untrusts the
	 * entry's regions (-ENODEV).
	 */
	for (d = 0, mod = 0, lost = false; d < ndata; d++) {
		struct r45_loc loc;

		if (first + (sector_t)d * chunk >= last)
			continue;
		mod++;
		r45_map_sector(g, first + (sector_t)d * chunk, &loc);
		if (r45_member_is_failed(a, loc.disk) ||
		    (int)loc.disk == READ_ONCE(a->recover_member))
			lost = true;
	}
	if (lost)
		return mod > 1 ? -ENODEV : R45_PPL_SKIPPED;
	for (i = 0; i < strip; i += step) {
		struct r45_stripe_map m;
		struct r45_loc loc;
		bool update = false;

		memset(page_address(acc), 0, PAGE_SIZE);
		for (d = 0; d < ndata; d++) {
			sector_t s = first + i + (sector_t)d * chunk;

			if (s >= last)
				continue;
			r45_map_sector(g, s, &loc);
			r = member_rw(a, loc.disk,
				      a->members[loc.disk].offset + loc.dev_sector,
				      buf, step << SECTOR_SHIFT, REQ_OP_READ);
			if (r) {
				/* md fails a member it cannot read here */
				a->ops->member_failed(a, loc.disk);
				return r;
			}
			xor_page(acc, buf);
			update = true;
		}
		if (!update)
			continue;
		if (pp_size) {
			r = member_rw(a, log->idx, pp_sector + i, buf,
				      step << SECTOR_SHIFT, REQ_OP_READ);
			if (r) {
				/* md fails the member whose log it cannot read */
				a->ops->member_failed(a, log->idx);
				return r;
			}
			xor_page(acc, buf);
		}
		r45_sector_pos(g, first + i, &loc);
		r45_map_stripe(g, loc.stripe, &m);
		if (m.pd != log->idx) {
			DMERR("PPL of member %u: an entry for sector %llu names parity on member %u",
			      log->idx, (unsigned long long)(first + i), m.pd);
			return -EINVAL;
		}
		r = member_rw(a, log->idx,
			      a->members[log->idx].offset + loc.dev_sector, acc,
			      step << SECTOR_SHIFT, REQ_OP_WRITE);
		if (r) {
			/* md fails a member it cannot write parity to */
			a->ops->member_failed(a, log->idx);
			return r;
		}
		written++;
	}
	return written;
}

/*
 * An entry that could not be replayed (a read or write error, a
 * checksum that does not match, fields md never writes) leaves its
 * stripes as the crash left them: their regions go out of sync and
 * untrusted (r45_engine_ops.untrust), so that no block of them is computed
 * from their parity until a resync made them right.  The range covers
 * every row an entry of md's can reach from its first sector.
 */
static void untrust_entry(struct r45_array *a, const struct ppl_header_entry *e)
{
	sector_t first = le64_to_cpu(e->data_sector);
	sector_t rows = (sector_t)a->geom.data_disks << a->geom.chunk_shift;

	if (first < a->array_sectors)
		a->ops->untrust(a, first,
				min_t(u64, first + 2 * rows, a->array_sectors));
}

/*
 * One member's log: find its newest valid header (a large area holds
 * them one after the other, each followed by its partial parities, with
 * growing generations: the newest is the last of the chain), replay its
 * entries, flush.  Returns entries replayed, or a negative errno.
 */
static int replay_log(struct r45_ppl_log *log, unsigned int *bad,
		      unsigned int *skipped)
{
	struct r45_array *a = log->ppl->a;
	struct page *hp = NULL, *prev = NULL, *acc = NULL, *buf = NULL;
	sector_t pos = log->start, end = log->start + log->ppl->size;
	sector_t found = 0, pp;
	const struct ppl_header *h;
	int n = 0, r = -ENOMEM;
	unsigned int i;

	hp = alloc_page(GFP_KERNEL);
	prev = alloc_page(GFP_KERNEL);
	acc = alloc_page(GFP_KERNEL);
	buf = alloc_page(GFP_KERNEL);
	if (!hp || !prev || !acc || !buf)
		goto out;
	h = NULL;
	while (pos + (PPL_HEADER_SIZE >> SECTOR_SHIFT) <= end) {
		const struct ppl_header *nh = page_address(hp);

		r = read_header(log, pos, hp);
		if (r < 0)
			goto out;	/* md fails a member it cannot read */
		if (!r)
			break;

		if (h && le64_to_cpu(h->generation) >
			 le64_to_cpu(nh->generation))
			break;		/* h was the newest */
		/* the next headers' generations go on from the newest */
		if (le64_to_cpu(nh->generation) > atomic64_read(&log->ppl->seq))
			atomic64_set(&log->ppl->seq,
				     le64_to_cpu(nh->generation));
		swap(hp, prev);
		h = page_address(prev);
		found = pos;
		if (!log->multi)
			break;
		pos += PPL_HEADER_SIZE >> SECTOR_SHIFT;
		for (i = 0; i < le32_to_cpu(h->entries_count); i++)
			pos += le32_to_cpu(h->entries[i].pp_size) >>
			       SECTOR_SHIFT;
	}
	r = 0;
	if (!h)
		goto out;
	pp = found + (PPL_HEADER_SIZE >> SECTOR_SHIFT);
	for (i = 0; i < le32_to_cpu(h->entries_count); i++) {
		const struct ppl_header_entry *e = &h->entries[i];
		u32 pp_size = le32_to_cpu(e->pp_size), left = pp_size, crc = ~0;
		sector_t s = pp;

		pp += pp_size >> SECTOR_SHIFT;
		if (pp > end) {
			untrust_entry(a, e);
			(*bad)++;
			break;
		}
		/* its partial parity must be whole: a torn log write is
		 * one whose stripes never went out */
		while (left) {
			unsigned int len = min_t(u32, left, PAGE_SIZE);

			r = member_rw(a, log->idx, s, buf, len, REQ_OP_READ);
			if (r) {
				untrust_entry(a, e);
				goto out;
			}
			ppl_crc(&crc, page_address(buf), len);
			left -= len;
			s += len >> SECTOR_SHIFT;
		}
		/*
		 * A torn log write is one whose stripes never went out (they
		 * wait for it), but a checksum also fails on a log corrupted
		 * since: md keeps such an array dirty, the entry's regions are
		 * untrusted here.
		 */
		if (~crc != le32_to_cpu(e->checksum) ||
		    le32_to_cpu(e->parity_disk) != log->idx) {
			untrust_entry(a, e);
			(*bad)++;
			continue;
		}
		r = replay_entry(log, e, pp - (pp_size >> SECTOR_SHIFT), acc,
				 buf);
		if (r == R45_PPL_SKIPPED) {
			(*skipped)++;
			continue;
		}
		if (r < 0) {
			DMERR("PPL of member %u: entry %u (sector %llu) not replayed (%d): its region untrusted",
			      log->idx, i,
			      (unsigned long long)le64_to_cpu(e->data_sector),
			      r);
			untrust_entry(a, e);
			(*bad)++;
			if (r45_member_is_failed(a, log->idx))
				goto out;
			continue;
		}
		n++;
	}
	r = blkdev_issue_flush(a->members[log->idx].bdev);
	if (!r)
		r = n;
out:
	if (hp)
		__free_page(hp);
	if (prev)
		__free_page(prev);
	if (acc)
		__free_page(acc);
	if (buf)
		__free_page(buf);
	return r;
}

/*
 * The mark of a log whose table went away cleanly (r45_ppl_close): the
 * first bytes of the header's reserved area, which md fills with 0xff
 * and never reads (its checksum covers them: md takes the header as a
 * valid empty one).  A closed log vouches for nothing (r45_ppl_vouches).
 */
static const char ppl_closed[8] = "R45CLOSE";

/*
 * An empty log: an empty header at the area's start, with a generation
 * above any the area held (r45_ppl_replay seeded them), and with @zero
 * the rest of the area zeroed first; @closed marks it closed.  The
 * header write flushes the member before it (the zeroes are durable
 * first) and is FUA: whatever a volatile cache loses, no older header
 * can pass for the newest.
 */
static int reset_log(struct r45_ppl_log *log, bool zero, bool closed)
{
	struct r45_array *a = log->ppl->a;
	struct block_device *bdev = a->members[log->idx].bdev;
	struct ppl_header *h;
	struct page *page;
	u32 crc = ~0;
	int r;

	if (zero) {
		r = blkdev_issue_zeroout(bdev, log->start, log->ppl->size,
					 GFP_KERNEL, 0);
		if (r)
			return r;
	}
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	h = page_address(page);
	memset(h->reserved, 0xff, PPL_HDR_RESERVED);
	if (closed)
		memcpy(h->reserved, ppl_closed, sizeof(ppl_closed));
	h->signature = cpu_to_le32(log->ppl->signature);
	h->generation = cpu_to_le64(atomic64_inc_return(&log->ppl->seq));
	ppl_crc(&crc, h, PPL_HEADER_SIZE);
	h->checksum = cpu_to_le32(~crc);
	r = member_rw(a, log->idx, log->start, page, PPL_HEADER_SIZE,
		      REQ_OP_WRITE | REQ_PREFLUSH | REQ_FUA | REQ_SYNC);
	__free_page(page);
	log->next = log->start;
	return r;
}

static void log_unusable(struct r45_array *a, unsigned int i, int r)
{
	DMERR("member %u: partial parity log unusable (%d): member failed", i,
	      r);
	a->ops->member_failed(a, i);
}

/*
 * At a fresh activation, before any I/O (the table's first resume, no
 * predecessor): every live member's log replayed, then emptied (zeroed,
 * and a header newer than any it held).  Afterwards every stripe a crash
 * interrupted has parity that matches the blocks its write did not
 * touch, on every stripe whose modified members are all there.  The
 * member being rebuilt (dev_to_init) holds nothing: neither its data nor
 * its log is read.  A member whose log cannot be read or written is
 * failed (md fails it too).  Returns the entries replayed.
 */
int r45_ppl_replay(struct r45_array *a)
{
	struct r45_ppl *ppl = a->ppl;
	int rm = READ_ONCE(a->recover_member);
	unsigned int i, bad = 0, skipped = 0;
	int n = 0, r;

	assert_noio();
	for (i = 0; i < a->geom.raid_disks; i++) {
		struct r45_ppl_log *log = &ppl->logs[i];

		if (r45_member_is_failed(a, i))
			continue;
		r = (int)i == rm ? 0 : replay_log(log, &bad, &skipped);
		if (r >= 0) {
			n += r;
			r = reset_log(log, true, false);
		}
		if (r < 0)
			log_unusable(a, i, r);
	}
	if (n || bad || skipped)
		DMINFO("partial parity log: %d entries replayed, %u skipped (their one modified member is missing: parity gives its block as it was or as written), %u not (a modified member missing beside another, a checksum, torn, or an I/O error): their regions stay out of sync and untrusted until a resync",
		       n, skipped, bad);
	return n;
}

/*
 * A reload: the predecessor's logs were emptied at its suspend
 * (r45_ppl_suspend) and every stripe it logged is on the members.  With
 * the same area and signature the chains go on, with the predecessor's
 * generations; otherwise, and on a member whose device changed or that
 * is to be rebuilt (it may hold an old log of this array), the area is
 * zeroed.  Nothing is replayed: the members a reload takes as failed
 * may hold stale data.
 */
void r45_ppl_takeover(struct r45_array *a, struct r45_array *old)
{
	struct r45_ppl *ppl = a->ppl, *o = old->ppl;
	bool same = o && o->offset == ppl->offset && o->size == ppl->size &&
		    o->signature == ppl->signature;
	int rm = READ_ONCE(a->recover_member);
	unsigned int i;
	int r;

	assert_noio();
	if (o)
		atomic64_set(&ppl->seq, atomic64_read(&o->seq));
	for (i = 0; i < a->geom.raid_disks; i++) {
		bool zero = !same || (int)i == rm ||
			    a->members[i].bdev != old->members[i].bdev ||
			    a->members[i].offset != old->members[i].offset;

		if (r45_member_is_failed(a, i))
			continue;
		r = reset_log(&ppl->logs[i], zero, false);
		if (r < 0)
			log_unusable(a, i, r);
	}
}

/*
 * A suspend, every logged stripe on the members (r45_ppl_quiesce): each
 * live member's log gets an empty header, the newest of its chain, so
 * that nothing is replayed later that later writes (this table's, or a
 * table's without a log) could have made stale.
 */
void r45_ppl_suspend(struct r45_array *a)
{
	unsigned int i;
	int r;

	assert_noio();
	if (!a->ppl)
		return;
	for (i = 0; i < a->geom.raid_disks; i++) {
		if (r45_member_is_failed(a, i))
			continue;
		r = reset_log(&a->ppl->logs[i], false, false);
		if (r < 0)
			log_unusable(a, i, r);
	}
}

/*
 * Did this partial parity log cover the array's last run?  Every table
 * with a log keeps a valid header (this signature) at the start of each
 * live member's area from its first resume on; a table without one, put
 * in by a reload, invalidates them (r45_ppl_invalidate), and areas never
 * written hold none.  Without that on every member that will be read,
 * the replay cannot vouch for the stripes a crash interrupted, and the
 * dirty-degraded rule applies as without a log.  Table load, before any
 * I/O; @skip: the member to rebuild (its area is not read).
 */
bool r45_ppl_vouches(struct r45_array *a, int skip)
{
	struct page *page;
	unsigned int i;
	bool ok = true;

	page = alloc_page(GFP_KERNEL);
	if (!page)
		return false;
	for (i = 0; i < a->geom.raid_disks && ok; i++) {
		if (!a->members[i].bdev || (int)i == skip ||
		    r45_member_is_failed(a, i))
			continue;
		ok = read_header(&a->ppl->logs[i], a->ppl->logs[i].start,
				 page) == 1 &&
		     memcmp(page_address(page), ppl_closed,
			    sizeof(ppl_closed));
	}
	__free_page(page);
	return ok;
}

/*
 * A reload replaces this table, which has a log, with one without: the
 * headers at the start of the areas are zeroed (flushed, FUA), so that a
 * later table with the log does not take the areas as covering the run
 * of the table without it (r45_ppl_vouches).  Both suspended.
 */
void r45_ppl_invalidate(struct r45_array *a)
{
	struct page *page;
	unsigned int i;

	assert_noio();
	if (!a->ppl)
		return;
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	for (i = 0; i < a->geom.raid_disks; i++) {
		if (!a->members[i].bdev || r45_member_is_failed(a, i))
			continue;
		if (!page || member_rw(a, i, a->ppl->logs[i].start, page,
				       PPL_HEADER_SIZE, REQ_OP_WRITE |
				       REQ_PREFLUSH | REQ_FUA | REQ_SYNC))
			DMERR("member %u: cannot invalidate its partial parity log: zero it before a table uses that log again",
			      i);
	}
	if (page)
		__free_page(page);
}

/*
 * The table goes away cleanly (issue 31, finding 6): its suspend emptied
 * the logs, and each live member's gets a closed empty header, so that a
 * later table with the log does not take it as covering a run of a table
 * without it (r45_ppl_vouches).  md takes it as a valid empty log.  A
 * member that cannot be written is only logged: the table is going.
 */
void r45_ppl_close(struct r45_array *a)
{
	unsigned int i;

	assert_noio();
	if (!a->ppl)
		return;
	for (i = 0; i < a->geom.raid_disks; i++) {
		if (!a->members[i].bdev || r45_member_is_failed(a, i))
			continue;
		if (reset_log(&a->ppl->logs[i], false, true))
			DMERR("member %u: cannot close its partial parity log: zero it before a table without the log runs over it",
			      i);
	}
}

/*
 * A failed member comes back (readd; the device is suspended): its log
 * holds what was logged before it failed, which writes since (not
 * logged on it) have made stale.
 */
int r45_ppl_reset_member(struct r45_array *a, unsigned int i)
{
	assert_noio();
	return a->ppl ? reset_log(&a->ppl->logs[i], true, false) : 0;
}
