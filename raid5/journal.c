// SPDX-License-Identifier: GPL-2.0
/*
 * The write journal, write-through: md's answer to the write hole for
 * RAID4, RAID5 and RAID6 (its raid5-cache), in md's on-disk format for
 * the log itself (struct r5l_meta_block in include/uapi/linux/raid/
 * md_p.h: meta blocks with md's magic, version, sequence number and
 * position, DATA and PARITY payloads, a crc32c per 4 KiB seeded with
 * the checksum of a UUID).  md keeps the log's tail in its array
 * superblock; raid45 keeps it in a small superblock of its own at the
 * start of the journal device (journal.h), the ring after it.
 *
 * A stripe batch (its data blocks as they will be written, P and Q) is
 * written to the journal as one record, a meta block of its own and the
 * pages after it, before any of it goes to the members.  After a crash
 * the replay (journal-replay.c) writes every record from the tail on to
 * the members again: a stripe a crash tore is whole again, with its new
 * contents, whichever members are lost.  That is why a dirty degraded
 * start is safe with the journal (RAID6: two members lost).
 *
 * The ordering, rule by rule (the replay's side is in journal-replay.c):
 *
 * J1. A record's batch goes to the members only after the record is
 *     durable (FUA) and after every earlier record is: the replay walks
 *     the log in sequence and stops at the first block that is not
 *     valid, so a durable record behind a torn one is never replayed,
 *     and its stripe must not have been touched.  Records are written
 *     several at a time; their stripes are let go in log order.
 * J2. The superblock's tail moves past a record only after its batch is
 *     on the members and the members are flushed (md's rule, and the
 *     brief's: flush the members before the log calls anything clean).
 * J3. The ring never reuses the space between the superblock's tail and
 *     the head: a record is accepted only with room for it there.
 * J4. Whenever the log starts (after a replay, at a reload, after a
 *     failure), the UUID that seeds every checksum is a new one: no
 *     record of an earlier start, in any lap of the ring, can continue
 *     a later walk (a record that landed behind a torn one at a crash;
 *     old laps a restart without a walk did not see the end of).  The
 *     sequence numbers also go on J_SEQ_GAP further (md's way).
 *
 * A journal write that fails: every journaled batch is held (none goes
 * to the members) until the superblock says FAILED.  Then the batches go
 * to the members unjournaled (the write hole is open again; the status
 * says "journal-failed"), and nothing in the journal is ever replayed: a
 * later replay of it would write stale records over what went on
 * without it.  If the superblock cannot be written either, nothing can
 * keep a later table from replaying the journal, should the device come
 * back: then, as md does with a faulty journal, writes fail with EIO
 * ("journal-dead") until a table without the journal, or with another,
 * is loaded.  Reads go on in both cases.  (Records that were durable
 * when the journal died are replayed at the next activation although
 * their writes failed with EIO: md does the same; a failed write's
 * blocks may hold either contents.)
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/slab.h>
#include "journal.h"
#include "stripe.h"

#define DM_MSG_PREFIX "raid45"

/*
 * The last touch of the journal in a completion, under the waitqueue's
 * lock: r45_journal_exit waits for the count to reach 0 and then takes
 * that lock, so it cannot free the journal while this runs.
 */
static void j_put(struct r45_journal *j, int n)
{
	unsigned long flags;

	spin_lock_irqsave(&j->idle.lock, flags);
	if (atomic_sub_return(n, &j->busy) == 0)
		wake_up_all_locked(&j->idle);
	spin_unlock_irqrestore(&j->idle.lock, flags);
}

/* Where the superblock's tail may go now: the oldest record not done. */
static sector_t mem_tail(struct r45_journal *j, u64 *seq)
{
	struct r45_jrec *rec;

	if (list_empty(&j->live)) {
		*seq = j->seq;
		return j->head;
	}
	rec = list_first_entry(&j->live, struct r45_jrec, node);
	*seq = rec->seq;
	return rec->pos;
}

static sector_t ring_used(struct r45_journal *j)
{
	return j->head >= j->dtail ? j->head - j->dtail :
				     j->size - j->dtail + j->head;
}

/*
 * Start a reclaim (j->lock held): when the journal is failing (the
 * superblock must say so first), or when the superblock's tail lags
 * behind done records and the ring is a quarter full or a stripe waits
 * for room.  Returns true when the caller must queue it.
 */
static bool want_reclaim(struct r45_journal *j)
{
	u64 seq;

	if (j->reclaiming)
		return false;
	if (j->state != J_RUN_FAILING &&
	    (j->state != J_RUN_OK || mem_tail(j, &seq) == j->dtail ||
	     (ring_used(j) < j->size / 4 && list_empty(&j->waiting))))
		return false;
	j->reclaiming = true;
	atomic_inc(&j->busy);
	return true;
}

static void wake_list(struct list_head *list, int bit)
{
	struct r45_stripe *sh, *tmp;

	list_for_each_entry_safe(sh, tmp, list, ppl_node) {
		list_del_init(&sh->ppl_node);
		r45_ppl_wake(sh, bit);
	}
}

/*
 * The stripes of records whose writes ended that may go now (j->lock
 * held), into @go: J1 in log order up to the first record still under
 * way; none while the journal is failing; once failed (or dead), every
 * record whose write ended, in any order (nothing of it will be
 * replayed), to be written (failed: unjournaled) or failed (dead).
 * Returns the stripes' wake bit.
 */
static int collect_go(struct r45_journal *j, struct list_head *go)
{
	struct r45_jrec *rec;

	if (j->state == J_RUN_FAILING)
		return 0;
	list_for_each_entry(rec, &j->live, node) {
		if (!rec->durable) {
			if (j->state == J_RUN_OK)
				break;
			continue;
		}
		if (rec->go)
			continue;
		rec->go = true;
		list_add_tail(&rec->sh->ppl_node, go);
	}
	return j->state == J_RUN_DEAD ? R45_STRIPE_PPL_FAIL : R45_STRIPE_PPL_GO;
}

/*
 * Let go what collect_go() finds, and the stripes waiting for room (they
 * log again, or find the journal failed or dead).  The last touch of the
 * journal: a stripe let go may finish and free the journal's last rec.
 */
static void release(struct r45_journal *j, struct list_head *go, int bit,
		    struct list_head *retry, bool kick)
{
	if (kick)
		queue_work(j->wq, &j->reclaim_work);
	wake_list(retry, R45_STRIPE_PPL_RETRY);
	wake_list(go, bit);
}

/*
 * J2: move the superblock's tail to the oldest record not done, the
 * members flushed first.  Or, failing: record in the superblock that
 * the journal failed, so that nothing in it is ever replayed, before a
 * batch goes to the members unjournaled; if the superblock cannot be
 * written either, batches fail from now on (md: no write without the
 * journal it cannot mark failed), or a later replay of the journal,
 * should the device come back, would write stale records over them.
 */
static void reclaim_work(struct work_struct *work)
{
	struct r45_journal *j = container_of(work, struct r45_journal,
					     reclaim_work);
	sector_t tail;
	LIST_HEAD(retry);
	LIST_HEAD(go);
	bool kick;
	u64 seq;
	int r, bit, state;

	spin_lock_irq(&j->lock);
	tail = mem_tail(j, &seq);
	state = j->state;
	spin_unlock_irq(&j->lock);
	if (state == J_RUN_FAILING) {
		r = r45_journal_write_sb(j, J_STATE_FAILED, j->head, j->seq);
		spin_lock_irq(&j->lock);
		j->state = r ? J_RUN_DEAD : J_RUN_FAILED;
		spin_unlock_irq(&j->lock);
		if (r)
			DMERR("journal: failed and its superblock cannot be written: writes fail until a table without it or with another is loaded");
		else
			DMERR("journal: failed: writes go on without it, the write hole is open again (a reload with the journal starts it anew)");
	} else if (state == J_RUN_OK) {
		r45_journal_flush_members(j->a);
		r = r45_journal_write_sb(j, J_STATE_OPEN, tail, seq);
		spin_lock_irq(&j->lock);
		if (r) {
			j->state = J_RUN_FAILING;	/* reclaimed again */
		} else {
			j->dtail = tail;
			j->dtail_seq = seq;
		}
		spin_unlock_irq(&j->lock);
	}
	spin_lock_irq(&j->lock);
	j->reclaiming = false;
	list_splice_init(&j->waiting, &retry);
	bit = collect_go(j, &go);
	kick = want_reclaim(j);
	spin_unlock_irq(&j->lock);
	release(j, &go, bit, &retry, kick);
	j_put(j, 1);
}

static void rec_endio(struct bio *bio)
{
	struct r45_jrec *rec = bio->bi_private;
	struct r45_journal *j = rec->j;
	bool failed = bio->bi_status, kick = false;
	unsigned long flags;
	int bit = R45_STRIPE_PPL_GO;
	LIST_HEAD(retry);
	LIST_HEAD(go);

	if (failed)
		DMERR_LIMIT("journal write error %d at sector %llu",
			    blk_status_to_errno(bio->bi_status),
			    (unsigned long long)bio->bi_iter.bi_sector);
	bio_uninit(bio);	/* its blkg reference: the rec is reused */
	spin_lock_irqsave(&j->lock, flags);
	if (failed && j->state == J_RUN_OK) {
		j->state = J_RUN_FAILING;
		kick = want_reclaim(j);
	}
	if (atomic_dec_and_test(&rec->pending)) {
		rec->durable = true;
		bit = collect_go(j, &go);
	}
	spin_unlock_irqrestore(&j->lock, flags);
	release(j, &go, bit, &retry, kick);
}

static void submit_rec(struct r45_jrec *rec, struct page **pages,
		       unsigned int np)
{
	struct r45_journal *j = rec->j;
	blk_opf_t op = REQ_OP_WRITE | REQ_SYNC | REQ_FUA;
	struct bio *bio = &rec->bio;
	sector_t p = rec->pos;
	unsigned int k;

	bio_init(bio, j->bdev, rec->vecs, J_MAX_PAGES, op);
	bio->bi_iter.bi_sector = j->start + p;
	atomic_set(&rec->pending, 1);
	for (k = 0; k < np; k++) {
		if (k && !p) {
			bio = &rec->bio2;
			bio_init(bio, j->bdev, rec->vecs2, J_MAX_PAGES, op);
			bio->bi_iter.bi_sector = j->start;
			atomic_set(&rec->pending, 2);
		}
		__bio_add_page(bio, pages[k], PAGE_SIZE, 0);
		p = j_ring_add(j, p, J_BLOCK);
	}
	rec->bio.bi_end_io = rec_endio;
	rec->bio.bi_private = rec;
	if (bio == &rec->bio2) {
		bio->bi_end_io = rec_endio;
		bio->bi_private = rec;
		submit_bio(bio);
	}
	submit_bio(&rec->bio);
}

/* One DATA or PARITY payload (md: r5l_payload_data_parity). */
static unsigned int add_payload(struct r5l_meta_block *mb, unsigned int off,
				u16 type, sector_t location, u32 *crcs,
				unsigned int n)
{
	struct r5l_payload_data_parity *p = (void *)mb + off;
	unsigned int k;

	p->header.type = cpu_to_le16(type);
	p->header.flags = 0;
	p->size = cpu_to_le32(n * J_BLOCK);
	p->location = cpu_to_le64(location);
	for (k = 0; k < n; k++)
		p->checksum[k] = cpu_to_le32(crcs[k]);
	return off + sizeof(*p) + n * sizeof(__le32);
}

static u32 page_crc(struct r45_journal *j, struct page *page)
{
	u32 crc = j->seed;

	j_crc(&crc, page_address(page), PAGE_SIZE);
	return crc;
}

/* The meta block and page list of a record (outside the lock). */
static unsigned int build_rec(struct r45_jrec *rec, struct r45_stripe *sh,
			      unsigned long data, struct page **pages)
{
	struct r45_journal *j = rec->j;
	const struct r45_geom *g = &sh->a->geom;
	struct r5l_meta_block *mb = page_address(rec->meta);
	u64 row = sh->sector >> g->chunk_shift;
	sector_t in_chunk = sh->sector & (g->chunk_sectors - 1);
	unsigned int dd, np = 1, off = sizeof(*mb);
	u32 crcs[2], crc;

	memset(mb, 0, PAGE_SIZE);
	pages[0] = rec->meta;
	for (dd = 0; dd < g->data_disks; dd++) {
		struct r45_dev *dev = &sh->dev[sh->map.data[dd]];
		sector_t lsector;

		if (!(data & BIT(sh->map.data[dd])))
			continue;
		pages[np] = dev->wpage ? dev->wpage : dev->page;
		crcs[0] = page_crc(j, pages[np++]);
		lsector = ((row * g->data_disks + dd) << g->chunk_shift) +
			  in_chunk;
		off = add_payload(mb, off, R5LOG_PAYLOAD_DATA, lsector, crcs,
				  1);
	}
	pages[np] = sh->dev[sh->map.pd].page;
	crcs[0] = page_crc(j, pages[np++]);
	if (sh->map.qd >= 0) {
		pages[np] = sh->dev[sh->map.qd].page;
		crcs[1] = page_crc(j, pages[np++]);
	}
	off = add_payload(mb, off, R5LOG_PAYLOAD_PARITY, sh->sector, crcs,
			  g->parity_disks);
	mb->magic = cpu_to_le32(R5LOG_MAGIC);
	mb->version = R5LOG_VERSION;
	mb->meta_size = cpu_to_le32(off);
	mb->seq = cpu_to_le64(rec->seq);
	mb->position = cpu_to_le64(rec->pos);
	crc = j->seed;
	j_crc(&crc, mb, PAGE_SIZE);
	mb->checksum = cpu_to_le32(crc);
	return np;
}

/*
 * Journal a stripe whose batch is ready to go out (parity computed; the
 * members to write in sh->wmask) and park it (R45_STRIPE_PPL_WAIT) until
 * its record and every earlier one are durable (J1): 1.  0 when the
 * journal failed (the batch goes to the members at once), -EIO when it
 * is dead (the batch fails).  The lane's context.
 */
int r45_journal_log(struct r45_stripe *sh)
{
	struct r45_journal *j = sh->a->journal;
	const struct r45_geom *g = &sh->a->geom;
	unsigned long parity = BIT(sh->map.pd);
	struct page *pages[J_MAX_PAGES];
	struct r45_jrec *rec;
	unsigned long data;
	unsigned int blocks;
	bool kick;

	if (sh->map.qd >= 0)
		parity |= BIT(sh->map.qd);
	data = sh->wmask & ~parity & (BIT(g->raid_disks) - 1);
	blocks = 1 + hweight_long(data) + g->parity_disks;
	spin_lock_irq(&j->lock);
	if (j->state == J_RUN_FAILED || j->state == J_RUN_DEAD) {
		spin_unlock_irq(&j->lock);
		return j->state == J_RUN_DEAD ? -EIO : 0;
	}
	atomic_inc(&sh->count);		/* r45_ppl_wake puts it */
	set_bit(R45_STRIPE_PPL_WAIT, &sh->state);
	/* J3: room between the head and the superblock's tail */
	if (j->state == J_RUN_FAILING || !list_empty(&j->waiting) ||
	    list_empty(&j->free) ||
	    ring_used(j) + (blocks + 1) * J_BLOCK > j->size) {
		list_add_tail(&sh->ppl_node, &j->waiting);
		kick = want_reclaim(j);
		spin_unlock_irq(&j->lock);
		if (kick)
			queue_work(j->wq, &j->reclaim_work);
		return 1;
	}
	rec = list_first_entry(&j->free, struct r45_jrec, node);
	list_move_tail(&rec->node, &j->live);
	rec->pos = j->head;
	rec->seq = j->seq++;
	rec->blocks = blocks;
	rec->sh = sh;
	rec->durable = rec->go = rec->done = false;
	j->head = j_ring_add(j, j->head, blocks * J_BLOCK);
	sh->jrec = rec;
	atomic_inc(&j->busy);
	spin_unlock_irq(&j->lock);
	submit_rec(rec, pages, build_rec(rec, sh, data, pages));
	return 1;
}

/*
 * A journaled stripe's batch is on the members (handle_stripe): its
 * record is done; done records at the log's front free their room once
 * a reclaim moved the superblock's tail past them (J2).  The lane's
 * context.
 */
void r45_journal_written(struct r45_stripe *sh)
{
	struct r45_jrec *rec = sh->jrec;
	struct r45_journal *j = rec->j;
	LIST_HEAD(retry);
	int freed = 0;
	bool kick;

	sh->jrec = NULL;
	spin_lock_irq(&j->lock);
	rec->done = true;
	rec->sh = NULL;
	while (!list_empty(&j->live)) {
		rec = list_first_entry(&j->live, struct r45_jrec, node);
		if (!rec->done)
			break;
		list_move_tail(&rec->node, &j->free);
		freed++;
	}
	if (freed)
		list_splice_init(&j->waiting, &retry);
	kick = want_reclaim(j);
	spin_unlock_irq(&j->lock);
	wake_list(&retry, R45_STRIPE_PPL_RETRY);
	if (kick)
		queue_work(j->wq, &j->reclaim_work);
	if (freed)
		j_put(j, freed);
}

/* The status word: "journal", or how it failed. */
const char *r45_journal_status(struct r45_array *a)
{
	switch (READ_ONCE(a->journal->state)) {
	case J_RUN_OK:
		return "journal";
	case J_RUN_DEAD:
		return "journal-dead";
	default:
		return "journal-failed";
	}
}

static bool j_idle(struct r45_journal *j)
{
	bool idle;

	spin_lock_irq(&j->lock);
	idle = !atomic_read(&j->busy) && list_empty(&j->waiting);
	spin_unlock_irq(&j->lock);
	return idle;
}

/*
 * Every journaled batch is done and no reclaim runs, once every stripe's
 * batch is done (a suspend waited for the bios).  -EINTR on a fatal
 * signal.
 */
int r45_journal_quiesce(struct r45_array *a)
{
	struct r45_journal *j = a->journal;

	if (!j)
		return 0;
	if (wait_event_killable(j->idle, j_idle(j)))
		return -EINTR;
	flush_workqueue(j->wq);
	return 0;
}

/* ---- setup ---- */

struct r45_journal *r45_journal_alloc(struct r45_array *a,
				      struct block_device *bdev)
{
	struct r45_journal *j;
	unsigned int i;

	j = kzalloc(sizeof(*j), GFP_KERNEL);
	if (!j)
		return NULL;
	j->a = a;
	j->bdev = bdev;
	spin_lock_init(&j->lock);
	INIT_LIST_HEAD(&j->live);
	INIT_LIST_HEAD(&j->free);
	INIT_LIST_HEAD(&j->waiting);
	init_waitqueue_head(&j->idle);
	mutex_init(&j->sb_mutex);
	INIT_WORK(&j->reclaim_work, reclaim_work);
	j->wq = alloc_workqueue("raid45_journal", WQ_UNBOUND | WQ_MEM_RECLAIM,
				0);
	j->state = J_RUN_OK;
	j->sb_page = alloc_page(GFP_KERNEL);
	j->recs = kvcalloc(J_RECS, sizeof(*j->recs), GFP_KERNEL);
	if (!j->wq || !j->sb_page || !j->recs)
		goto fail;
	for (i = 0; i < J_RECS; i++) {
		struct r45_jrec *rec = &j->recs[i];

		rec->j = j;
		rec->meta = alloc_page(GFP_KERNEL);
		if (!rec->meta)
			goto fail;
		list_add_tail(&rec->node, &j->free);
	}
	return j;
fail:
	r45_journal_free(j);
	return NULL;
}

void r45_journal_free(struct r45_journal *j)
{
	unsigned int i;

	if (!j)
		return;
	for (i = 0; j->recs && i < J_RECS; i++)
		if (j->recs[i].meta)
			__free_page(j->recs[i].meta);
	kvfree(j->recs);
	if (j->sb_page)
		__free_page(j->sb_page);
	if (j->wq)
		destroy_workqueue(j->wq);
	kfree(j);
}

/* No stripe may be journaled any more (teardown: no bio is left). */
void r45_journal_exit(struct r45_array *a)
{
	struct r45_journal *j = a->journal;

	if (!j)
		return;
	wait_event(j->idle, j_idle(j));
	/* the last completion may still hold the lock of its wakeup */
	spin_lock_irq(&j->idle.lock);
	spin_unlock_irq(&j->idle.lock);
	flush_workqueue(j->wq);
	a->journal = NULL;
	r45_journal_free(j);
}
