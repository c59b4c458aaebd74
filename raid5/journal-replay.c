// SPDX-License-Identifier: GPL-2.0
/*
 * The write journal's superblock and replay (the writing half, with the
 * ordering rules J1-J4, is journal.c).
 *
 * The superblock says where the log's tail is and which sequence number
 * the record there carries, and whether the last table that ran with
 * the journal used it to the end (OPEN: replay what it holds), removed
 * it cleanly (CLOSED) or lost it (FAILED).  Only OPEN vouches that every
 * stripe a crash may have torn is in the log (dm-raid456.c asks before
 * it lets a dirty degraded activation go).
 *
 * The replay is md's for write-through: from the tail, meta block after
 * meta block while each is valid (magic, version, the expected sequence
 * number and position, its checksum and every payload page's), the
 * data blocks of every stripe whose parity is in the same record are
 * written to their members, then its P (and Q).  The first block that
 * is not valid ends the log (J1 in journal.c: nothing behind it was let
 * go to the members).  Stripes of members missing or failed are written
 * where they can be: the record's parity gives the missing blocks as
 * the record wrote them.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "journal.h"

#define DM_MSG_PREFIX "raid45"

/* the pages of one meta block's payloads: md's fill at most a page of
 * payload descriptors (20 bytes each) */
#define J_REPLAY_PAGES	(PAGE_SIZE / sizeof(struct r5l_payload_data_parity))

static int page_io(struct block_device *bdev, sector_t sector,
		   struct page *page, blk_opf_t op)
{
	struct bio *bio = bio_alloc(bdev, 1, op, GFP_NOIO);
	int r;

	bio->bi_iter.bi_sector = sector;
	__bio_add_page(bio, page, PAGE_SIZE, 0);
	r = submit_bio_wait(bio);
	bio_put(bio);
	return r;
}

/*
 * J2: what the members hold is durable.  A member whose flush fails is
 * failed: what it acknowledged may not be on it.
 */
int r45_journal_flush_members(struct r45_array *a)
{
	unsigned int i;
	int r, err = 0;

	for (i = 0; i < a->geom.raid_disks; i++) {
		struct block_device *bdev = a->members[i].bdev;

		if (!bdev || r45_member_is_failed(a, i) ||
		    !bdev_write_cache(bdev))
			continue;
		r = blkdev_issue_flush(bdev);
		if (r) {
			DMERR("member %u: flush failed (%d): member failed",
			      i, r);
			a->ops->member_failed(a, i);
			err = r;
		}
	}
	return err;
}

static u32 sb_csum(struct r45_jsb *sb)
{
	__le32 stored = sb->csum;
	u32 crc = ~0;

	sb->csum = 0;
	j_crc(&crc, sb, sizeof(*sb));
	sb->csum = stored;
	return ~crc;
}

int r45_journal_write_sb(struct r45_journal *j, int state, sector_t tail,
			 u64 seq)
{
	struct r45_jsb *sb;
	unsigned int noio = memalloc_noio_save();
	int r;

	mutex_lock(&j->sb_mutex);
	sb = page_address(j->sb_page);
	memset(sb, 0, PAGE_SIZE);
	sb->magic = cpu_to_le64(J_SB_MAGIC);
	sb->version = cpu_to_le32(J_SB_VERSION);
	sb->state = cpu_to_le32(state);
	memcpy(sb->uuid, j->uuid, sizeof(sb->uuid));
	sb->log_start = cpu_to_le64(j->start);
	sb->log_size = cpu_to_le64(j->size);
	sb->tail = cpu_to_le64(tail);
	sb->seq = cpu_to_le64(seq);
	sb->type = cpu_to_le32(j->a->geom.type);
	sb->raid_disks = cpu_to_le32(j->a->geom.raid_disks);
	sb->chunk_sectors = cpu_to_le32(j->a->geom.chunk_sectors);
	sb->raid4_parity = cpu_to_le32(j->a->geom.raid4_parity);
	sb->dev_sectors = cpu_to_le64(j->a->geom.dev_sectors);
	sb->csum = cpu_to_le32(sb_csum(sb));
	r = page_io(j->bdev, 0, j->sb_page,
		    REQ_OP_WRITE | REQ_SYNC | REQ_PREFLUSH | REQ_FUA);
	mutex_unlock(&j->sb_mutex);
	memalloc_noio_restore(noio);
	if (r)
		DMERR("journal: superblock write failed (%d)", r);
	return r;
}

/*
 * Table load: the superblock read (a device without one gets a new one
 * at the first resume).  -EINVAL with *why for a superblock that is
 * damaged or does not fit the device.
 */
int r45_journal_init(struct r45_array *a, struct block_device *bdev,
		     const char **why)
{
	sector_t dev = bdev_nr_sectors(bdev);
	struct r45_journal *j;
	struct r45_jsb *sb;
	int r;

	*why = "Cannot set up the journal";
	if (PAGE_SIZE != 4096) {
		*why = "The journal needs 4 KiB pages";
		return -EOPNOTSUPP;
	}
	j = r45_journal_alloc(a, bdev);
	if (!j)
		return -ENOMEM;
	r = page_io(bdev, 0, j->sb_page, REQ_OP_READ);
	if (r) {
		*why = "Cannot read the journal superblock";
		goto fail;
	}
	sb = page_address(j->sb_page);
	r = -EINVAL;
	if (dev < J_BLOCK + J_MIN_SECTORS) {
		*why = "The journal device is too small (at least 1 MiB after its 4 KiB superblock)";
		goto fail;
	}
	if (le64_to_cpu(sb->magic) != J_SB_MAGIC) {
		/* a new journal: every earlier content is foreign */
		generate_random_uuid(j->uuid);
		j->start = J_BLOCK;
		j->size = round_down(dev - J_BLOCK, J_BLOCK);
		j->sb_state = 0;
		j->dtail = 0;
		j->dtail_seq = get_random_u32();
	} else {
		if (le32_to_cpu(sb->csum) != sb_csum(sb) ||
		    le32_to_cpu(sb->version) != J_SB_VERSION) {
			*why = "The journal superblock is damaged (checksum or version)";
			goto fail;
		}
		memcpy(j->uuid, sb->uuid, sizeof(j->uuid));
		j->start = le64_to_cpu(sb->log_start);
		j->size = le64_to_cpu(sb->log_size);
		j->sb_state = le32_to_cpu(sb->state);
		j->dtail = le64_to_cpu(sb->tail);
		j->dtail_seq = le64_to_cpu(sb->seq);
		if (j->start < J_BLOCK || j->start + j->size > dev ||
		    j->size % J_BLOCK || j->dtail >= j->size ||
		    j->dtail % J_BLOCK) {
			*why = "The journal superblock does not fit the device";
			goto fail;
		}
		/*
		 * Records to replay are of the array they were written for:
		 * one of another geometry would write them to the wrong
		 * places.  Not refused here: a reload that grows the running
		 * array replays nothing (r45_journal_foreign).
		 */
		j->foreign = j->sb_state == J_STATE_OPEN &&
			(le32_to_cpu(sb->type) != a->geom.type ||
			 le32_to_cpu(sb->raid_disks) != a->geom.raid_disks ||
			 le32_to_cpu(sb->chunk_sectors) != a->geom.chunk_sectors ||
			 le32_to_cpu(sb->raid4_parity) !=
			 (u32)a->geom.raid4_parity ||
			 le64_to_cpu(sb->dev_sectors) != a->geom.dev_sectors);
	}
	if (j->size < J_MIN_SECTORS) {
		*why = "The journal device is too small (at least 1 MiB after its 4 KiB superblock)";
		goto fail;
	}
	j->seed = ~0;
	j_crc(&j->seed, j->uuid, sizeof(j->uuid));
	j->head = j->dtail;
	j->seq = j->dtail_seq;
	a->journal = j;
	return 0;
fail:
	r45_journal_free(j);
	return r;
}

bool r45_journal_vouches(struct r45_array *a)
{
	return a->journal && a->journal->sb_state == J_STATE_OPEN &&
	       !a->journal->foreign;
}

/*
 * An OPEN journal of another geometry: a fresh activation must refuse
 * it (dm-raid456.c), a reload of a running array takes it over.
 */
bool r45_journal_foreign(struct r45_array *a)
{
	return a->journal && a->journal->foreign;
}

/* ---- the replay ---- */

struct j_walk {
	struct r45_journal *j;
	struct page *meta;
	struct page *pages[J_REPLAY_PAGES];
	/* the record's payloads with pages: offset in the meta block, the
	 * index of their first page, and how many */
	struct {
		u16 off, page, n;
	} pl[J_REPLAY_PAGES];
	unsigned int npl;
	sector_t pos;
	u64 seq;
	sector_t walked;		/* sectors of valid records */
	unsigned int stripes;		/* replayed */
	unsigned int records;
};

/* A valid meta block at w->pos with w->seq (md's rules). */
static bool meta_valid(struct j_walk *w, struct r5l_meta_block *mb)
{
	u32 stored = le32_to_cpu(mb->checksum), crc = w->j->seed;
	unsigned int size = le32_to_cpu(mb->meta_size);

	if (le32_to_cpu(mb->magic) != R5LOG_MAGIC ||
	    mb->version != R5LOG_VERSION ||
	    le64_to_cpu(mb->seq) != w->seq ||
	    le64_to_cpu(mb->position) != w->pos ||
	    size < sizeof(*mb) || size > PAGE_SIZE)
		return false;
	mb->checksum = 0;
	j_crc(&crc, mb, PAGE_SIZE);
	mb->checksum = cpu_to_le32(stored);
	return crc == stored;
}

/*
 * The payload at byte @off of the meta block: its data or parity blocks
 * in *n (0 for a flush payload) and the offset of the next one, or 0 if
 * it is malformed.
 */
static unsigned int next_payload(struct r5l_meta_block *mb,
				 unsigned int off, unsigned int *n)
{
	unsigned int end = le32_to_cpu(mb->meta_size);
	struct r5l_payload_header *h = (void *)mb + off;
	struct r5l_payload_data_parity *p = (void *)h;
	struct r5l_payload_flush *f = (void *)h;
	u16 type;
	u32 size;

	*n = 0;
	if (off + sizeof(*f) > end)
		return 0;
	type = le16_to_cpu(h->type);
	if (type == R5LOG_PAYLOAD_FLUSH) {
		size = le32_to_cpu(f->size);
		if (size % sizeof(__le64) || size > end - off - sizeof(*f))
			return 0;
		return off + sizeof(*f) + size;
	}
	if ((type != R5LOG_PAYLOAD_DATA && type != R5LOG_PAYLOAD_PARITY) ||
	    off + sizeof(*p) > end)
		return 0;
	size = le32_to_cpu(p->size);
	if (size % J_BLOCK || !size || size > 2 * J_BLOCK ||
	    (type == R5LOG_PAYLOAD_DATA && size != J_BLOCK) ||
	    off + sizeof(*p) + size / J_BLOCK * sizeof(__le32) > end)
		return 0;
	*n = size / J_BLOCK;
	return off + sizeof(*p) + *n * sizeof(__le32);
}

/* The payloads with pages listed in w->pl; false if malformed. */
static bool parse_record(struct j_walk *w, struct r5l_meta_block *mb,
			 unsigned int *pages)
{
	unsigned int off = sizeof(*mb), end = le32_to_cpu(mb->meta_size);
	unsigned int next, n, k = 0;

	w->npl = 0;
	while (off < end) {
		next = next_payload(mb, off, &n);
		if (!next || k + n > J_REPLAY_PAGES)
			return false;
		if (n) {
			w->pl[w->npl].off = off;
			w->pl[w->npl].page = k;
			w->pl[w->npl++].n = n;
			k += n;
		}
		off = next;
	}
	*pages = k;
	return true;
}

static void member_write(struct r45_array *a, unsigned int i,
			 sector_t sector, struct page *page)
{
	int r;

	if (!a->members[i].bdev || r45_member_is_failed(a, i) ||
	    (int)i == READ_ONCE(a->recover_member))
		return;
	r = page_io(a->members[i].bdev, a->members[i].offset + sector, page,
		    REQ_OP_WRITE);
	if (r) {
		DMERR("member %u: journal replay write failed (%d): member failed",
		      i, r);
		a->ops->member_failed(a, i);
	}
}

/*
 * The stripes of one valid record: each parity payload's stripe gets the
 * data blocks of the record since the previous parity payload that lie
 * on it, then its parity.  Data of a stripe without parity in the record
 * is left out (md's write-through recovery: it was never let go).
 */
static void apply_record(struct j_walk *w, struct r5l_meta_block *mb)
{
	struct r45_array *a = w->j->a;
	const struct r45_geom *g = &a->geom;
	unsigned int x, d, first = 0;

	for (x = 0; x < w->npl; x++) {
		struct r5l_payload_data_parity *p = (void *)mb + w->pl[x].off;
		sector_t stripe = le64_to_cpu(p->location);
		struct r45_stripe_map m;

		if (le16_to_cpu(p->header.type) != R5LOG_PAYLOAD_PARITY)
			continue;
		if (stripe >= g->dev_sectors || stripe % R45_STRIPE_SECTORS)
			goto next;
		for (d = first; d < x; d++) {
			struct r5l_payload_data_parity *dp =
				(void *)mb + w->pl[d].off;
			sector_t ls = le64_to_cpu(dp->location);
			struct r45_loc l;

			if (ls >= g->dev_sectors * g->data_disks)
				continue;
			r45_map_sector(g, ls, &l);
			if (l.dev_sector == stripe)
				member_write(a, l.disk, stripe,
					     w->pages[w->pl[d].page]);
		}
		r45_map_stripe(g, stripe >> g->chunk_shift, &m);
		member_write(a, m.pd, stripe, w->pages[w->pl[x].page]);
		if (w->pl[x].n == 2 && m.qd >= 0)
			member_write(a, m.qd, stripe,
				     w->pages[w->pl[x].page + 1]);
		w->stripes++;
next:
		first = x + 1;
	}
}

static int read_pages(struct j_walk *w, unsigned int n)
{
	struct r45_journal *j = w->j;
	sector_t p = j_ring_add(j, w->pos, J_BLOCK);
	unsigned int k;
	int r;

	for (k = 0; k < n; k++) {
		if (!w->pages[k]) {
			w->pages[k] = alloc_page(GFP_NOIO);
			if (!w->pages[k])
				return -ENOMEM;
		}
		r = page_io(j->bdev, j->start + p, w->pages[k], REQ_OP_READ);
		if (r)
			return r;
		p = j_ring_add(j, p, J_BLOCK);
	}
	return 0;
}

/* Every payload page's checksum. */
static bool pages_valid(struct j_walk *w, struct r5l_meta_block *mb)
{
	unsigned int x, c;

	for (x = 0; x < w->npl; x++) {
		struct r5l_payload_data_parity *p = (void *)mb + w->pl[x].off;

		for (c = 0; c < w->pl[x].n; c++) {
			u32 crc = w->j->seed;

			j_crc(&crc, page_address(w->pages[w->pl[x].page + c]),
			      PAGE_SIZE);
			if (crc != le32_to_cpu(p->checksum[c]))
				return false;
		}
	}
	return true;
}

/*
 * One step of the walk: 1 a record replayed, 0 the end of the log, or
 * the error of a journal read.
 */
static int walk_one(struct j_walk *w)
{
	struct r45_journal *j = w->j;
	struct r5l_meta_block *mb = page_address(w->meta);
	unsigned int k;
	sector_t len;
	int r;

	r = page_io(j->bdev, j->start + w->pos, w->meta, REQ_OP_READ);
	if (r)
		return r;
	if (!meta_valid(w, mb) || !parse_record(w, mb, &k))
		return 0;
	len = (sector_t)(k + 1) * J_BLOCK;
	if (w->walked + len >= j->size)
		return 0;	/* more than a lap: not a log */
	r = read_pages(w, k);
	if (r)
		return r;
	if (!pages_valid(w, mb))
		return 0;
	apply_record(w, mb);
	w->records++;
	w->walked += len;
	w->pos = j_ring_add(j, w->pos, len);
	w->seq++;
	return 1;
}

static void walk_free(struct j_walk *w)
{
	unsigned int k;

	for (k = 0; k < J_REPLAY_PAGES && w->pages[k]; k++)
		__free_page(w->pages[k]);
	if (w->meta)
		__free_page(w->meta);
	kfree(w);
}

/*
 * The log starts empty at the head, the table's superblock OPEN: from
 * now on the journal covers this table's run.  J4: the sequence goes on
 * J_SEQ_GAP further, and the UUID (the checksums' seed) is a new one, so
 * that no record written before, in any lap of the ring, is valid any
 * more (a restart that did not walk the log does not know where it
 * ended).  J2: what the members hold is flushed first (writes that went
 * on without the journal, and records behind the old tail).
 */
static int start_log(struct r45_journal *j)
{
	int r;

	r45_journal_flush_members(j->a);
	generate_random_uuid(j->uuid);
	j->seed = ~0;
	j_crc(&j->seed, j->uuid, sizeof(j->uuid));
	j->seq += J_SEQ_GAP;
	j->dtail = j->head;
	j->dtail_seq = j->seq;
	j->started = true;
	r = r45_journal_write_sb(j, J_STATE_OPEN, j->head, j->seq);
	if (r) {
		DMERR("journal: cannot be started: writes fail until a table without it or with another is loaded");
		j->state = J_RUN_DEAD;
	}
	return r;
}

/*
 * At a fresh activation, before any I/O (the table's first resume, no
 * predecessor): an OPEN journal's records are written to the members
 * again, the members flushed, and the log started anew after them.  A
 * journal that cannot be read leaves every region untrusted (a stripe
 * the crash tore may be among what it holds) and is failed.  Returns
 * the stripes replayed.
 */
int r45_journal_replay(struct r45_array *a)
{
	struct r45_journal *j = a->journal;
	struct j_walk *w;
	int r = 0;

	if (j->sb_state != J_STATE_OPEN) {
		start_log(j);
		return 0;
	}
	if (j->foreign) {
		/* after a read-only table: its records are of another array */
		DMERR("journal: open for another array geometry, not replayed: every region stays untrusted until a resync");
		a->ops->untrust(a, 0, a->geom.dev_sectors * a->geom.data_disks);
		j->state = J_RUN_DEAD;
		return -EINVAL;
	}
	w = kzalloc(sizeof(*w), GFP_NOIO);
	if (w)
		w->meta = alloc_page(GFP_NOIO);
	if (w && w->meta) {
		w->j = j;
		w->pos = j->dtail;
		w->seq = j->dtail_seq;
		do {
			r = walk_one(w);
		} while (r == 1);
	} else {
		r = -ENOMEM;
	}
	if (r) {
		DMERR("journal: cannot be replayed (%d): every region stays untrusted until a resync",
		      r);
		a->ops->untrust(a, 0, a->geom.dev_sectors * a->geom.data_disks);
	} else {
		j->head = w->pos;
		j->seq = w->seq;
		r45_journal_flush_members(a);
		if (w->records)
			DMINFO("journal: %u records replayed (%u stripes)",
			       w->records, w->stripes);
		r = w->records;
	}
	if (w)
		walk_free(w);
	/* an unreadable journal is not written either (its records may be
	 * read again by the next activation, if the device comes back:
	 * never started, nothing closes or restarts it) */
	if (r >= 0)
		start_log(j);
	else
		j->state = J_RUN_DEAD;
	return r;
}

/*
 * A reload: the predecessor's suspend left its log empty with every
 * batch on the members (r45_journal_suspend), or its superblock FAILED
 * (writes went on without it), or it was dead (no write went on).  On
 * the same device the log goes on from its head, anew: nothing behind
 * the head is replayed any more, so a failed journal is in use again;
 * otherwise the device starts a new log.  Nothing is replayed.
 */
void r45_journal_takeover(struct r45_array *a, struct r45_array *old)
{
	struct r45_journal *j = a->journal, *o = old->journal;

	if (o && o->bdev == j->bdev && !o->started) {
		/* its replay failed: its records wait for one that works */
		j->state = J_RUN_DEAD;
		return;
	}
	if (o && o->bdev == j->bdev) {
		j->start = o->start;
		j->size = o->size;
		j->head = o->head;
		j->seq = o->seq;
	}
	start_log(j);
}

/*
 * A suspend, every journaled batch on the members (r45_journal_quiesce):
 * the members flushed and the log emptied, so that nothing is replayed
 * later that later writes could have made stale.
 */
void r45_journal_suspend(struct r45_array *a)
{
	struct r45_journal *j = a->journal;

	if (!j || !j->started || j->state != J_RUN_OK)
		return;		/* failed: its superblock says so; dead */
	r45_journal_flush_members(a);
	if (r45_journal_write_sb(j, J_STATE_OPEN, j->head, j->seq)) {
		/* the old tail stays: what it covers is on the members */
		DMERR("journal: cannot be emptied at the suspend");
		return;
	}
	j->dtail = j->head;
	j->dtail_seq = j->seq;
}

/*
 * The table goes away cleanly (@replaced false), or a reload replaces it
 * with one without the journal or with another (@replaced true): CLOSED
 * (the members flushed first: J2), so that a later table with it does
 * not take it as covering a run without it (r45_journal_vouches).  A
 * journal whose replay failed is left alone at a removal (its records
 * wait for a replay that works); when a successor runs without it, it
 * is marked FAILED, never to be replayed over that successor's writes.
 */
void r45_journal_close(struct r45_array *a, bool replaced)
{
	struct r45_journal *j = a->journal;
	int state = J_STATE_CLOSED;

	if (!j || j->state == J_RUN_FAILED)
		return;		/* FAILED: vouches for nothing either */
	if (!j->started) {
		if (!replaced)
			return;
		state = J_STATE_FAILED;
	}
	r45_journal_flush_members(a);
	if (r45_journal_write_sb(j, state, j->head, j->seq))
		DMERR("journal: cannot be closed: wipe its first 4 KiB before a table uses it again");
}
