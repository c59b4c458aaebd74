// SPDX-License-Identifier: GPL-2.0
/*
 * The partial parity log (ppl.c says what it is and how it is written):
 * its replay at a fresh activation, and the empty headers that suspend,
 * reload, readd and teardown write so that nothing stale is replayed
 * later.
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
/* replay_entry(): nothing to replay (a lone modified member is missing) */
#define R45_PPL_SKIPPED		INT_MAX

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
		/* its partial parity must be whole */
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
		 * In a torn log write whose header landed, only new entries
		 * can fail here, whose stripes never went out (they wait for
		 * it; carried ones were durable before the header: ppl.c,
		 * rule 5), but a checksum also fails on a log corrupted
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
		struct r45_ppl_log *log = ppl->logs[i];

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
		r = reset_log(ppl->logs[i], zero, false);
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
		r = reset_log(a->ppl->logs[i], false, false);
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
		ok = read_header(a->ppl->logs[i], a->ppl->logs[i]->start,
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
		if (!page || member_rw(a, i, a->ppl->logs[i]->start, page,
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
		if (reset_log(a->ppl->logs[i], false, true))
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
	return a->ppl ? reset_log(a->ppl->logs[i], true, false) : 0;
}
