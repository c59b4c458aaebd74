// SPDX-License-Identifier: GPL-2.0
/*
 * A disk log that is read and never written, for read-only tables.
 *
 * The kernel's disk log (drivers/md/dm-log.c) writes its header at every
 * resume, whatever the table's mode, and a read-only table must write
 * nothing (issue 27, finding 7).  So a read-only table's region hash gets
 * a core log (memory only) with every region in sync, and the regions
 * the disk log calls dirty are read here from the log device and put out
 * of sync in it.  The format read is dm-log's, version 2:
 *
 *   sector 0:   le32 magic 0x4D695272 ("MiRr"), le32 version (2; 1 is
 *               the same layout on little-endian), le64 nr_regions
 *   byte 1024:  the clean bits, a little-endian bitmap (bit r set:
 *               region r is clean, that is in sync)
 *
 * and it is read as dm-log reads it: no valid header, or a "nosync" or
 * "sync" log (which dm-log takes as new), and regions beyond the
 * header's count are what such a log would make them: all in sync for
 * "nosync", out of sync otherwise.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/dm-dirty-log.h>
#include <linux/slab.h>
#include <linux/bitmap.h>
#include "r45_array.h"
#include "r45_table.h"

#define DM_MSG_PREFIX "raid45"

#define R45_DISK_LOG_MAGIC	0x4D695272
#define R45_DISK_LOG_VERSION	2
#define R45_DISK_LOG_BITS	1024	/* bytes: dm-log's LOG_OFFSET << 9 */

struct r45_disk_log_header {
	__le32 magic;
	__le32 version;
	__le64 nr_regions;
};

/*
 * A page of the log device from byte @pos (a multiple of PAGE_SIZE), or
 * what of it the device has (its size is a multiple of its blocks).
 */
static int read_page(struct block_device *bdev, struct page *page, u64 pos)
{
	u64 size = bdev_nr_bytes(bdev);
	struct bio *bio;
	int r;

	if (pos >= size)
		return -ENOSPC;
	bio = bio_alloc(bdev, 1, REQ_OP_READ | REQ_SYNC, GFP_KERNEL);
	bio->bi_iter.bi_sector = pos >> SECTOR_SHIFT;
	__bio_add_page(bio, page, min_t(u64, PAGE_SIZE, size - pos), 0);
	r = submit_bio_wait(bio);
	bio_put(bio);
	return r;
}

/*
 * Does a valid log's own bitmap (@old regions, whatever this table's
 * count) call every region clean?  An unreadable page says no.
 */
static bool old_bits_clean(struct block_device *bdev, struct page *page,
			   u64 old)
{
	u64 byte, pos = U64_MAX;
	const u8 *bits = page_address(page);
	u64 r;

	for (r = 0; r < old; r++) {
		byte = R45_DISK_LOG_BITS + r / 8;
		if (round_down(byte, PAGE_SIZE) != pos) {
			pos = round_down(byte, PAGE_SIZE);
			if (read_page(bdev, page, pos))
				return false;
		}
		if (!(bits[byte - pos] & (1U << (r % 8))))
			return false;
	}
	return true;
}

/*
 * Read the disk log on @bdev as dm-log's resume would, for a log created
 * with no sync word: set bit r of @dirty (nr_regions bits, zeroed by the
 * caller) for every region it does not call clean.  Returns 1 when it
 * holds a valid log (an earlier activation wrote it) or cannot be read
 * (then every region is dirty: whatever it records, it may record a
 * crash), R45_DISK_LOG_FOREIGN when it holds a valid log for another
 * region count (every region dirty: its bits name other regions), 0
 * when it holds no valid log (a new log: dm-log takes every region as
 * out of sync, and so is @dirty), or -ENOMEM.
 */
int r45_disk_log_read(struct block_device *bdev, region_t nr_regions,
		      unsigned long *dirty)
{
	const struct r45_disk_log_header *h;
	region_t r, valid = 0;
	struct page *page;
	int err;
	u64 pos;

	page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	err = read_page(bdev, page, 0);
	h = page_address(page);
	if (err) {
		DMERR("disk log: cannot read its header (%d): every region out of sync",
		      err);
		bitmap_fill(dirty, nr_regions);
		__free_page(page);
		return 1;
	} else if (le32_to_cpu(h->magic) == R45_DISK_LOG_MAGIC &&
		 (le32_to_cpu(h->version) == R45_DISK_LOG_VERSION ||
		  (IS_ENABLED(CONFIG_CPU_LITTLE_ENDIAN) &&
		   le32_to_cpu(h->version) == 1)))
		valid = min_t(u64, le64_to_cpu(h->nr_regions), nr_regions);
	err = valid > 0;
	/*
	 * Written for another region count (another region size): its bits
	 * name other regions (issue 31, finding 2).  Every region dirty;
	 * FOREIGN_CLEAN when its own bits call every old region clean.
	 */
	if (valid && le64_to_cpu(h->nr_regions) != nr_regions) {
		u64 old = le64_to_cpu(h->nr_regions);

		DMERR("disk log: written for %llu regions, the table has %llu (another region size): every region out of sync",
		      (unsigned long long)old, (unsigned long long)nr_regions);
		bitmap_fill(dirty, nr_regions);
		err = old_bits_clean(bdev, page, old) ? R45_DISK_LOG_FOREIGN_CLEAN :
							R45_DISK_LOG_FOREIGN;
		__free_page(page);
		return err;
	}
	/* bits of regions [0, valid) from byte R45_DISK_LOG_BITS on */
	for (r = 0, pos = 0; r < nr_regions; r++) {
		u64 byte = R45_DISK_LOG_BITS + r / 8;
		const u8 *bits = page_address(page);

		if (r < valid && round_down(byte, PAGE_SIZE) != pos) {
			pos = round_down(byte, PAGE_SIZE);
			if (read_page(bdev, page, pos)) {
				DMERR("disk log: cannot read its bits: every region from %llu out of sync",
				      (unsigned long long)r);
				valid = r;
			}
		}
		if (r >= valid || !(bits[byte - pos] & (1U << (r % 8))))
			__set_bit(r, dirty);
	}
	__free_page(page);
	return err;
}

/*
 * Put the regions that the disk log on @bdev calls dirty out of sync in
 * the array's core log (created "nosync": every region in sync), at the
 * table's first resume, as dm-log reads its bits at resume.  @sync is
 * the log's sync word as created (R45_SYNC_DEFAULT reads the bits).  No
 * memory to read it leaves every region out of sync.
 */
void r45_rolog_load(struct r45_array *a, struct block_device *bdev, int sync)
{
	struct dm_dirty_log *core = a->log;
	unsigned long *dirty;
	region_t r;

	if (sync == R45_NOSYNC)
		return;
	dirty = kvcalloc(BITS_TO_LONGS(a->nr_regions), sizeof(long),
			 GFP_KERNEL);
	if (!dirty || r45_disk_log_read(bdev, a->nr_regions, dirty) < 0) {
		DMERR("read-only disk log: no memory to read it: every region out of sync");
		if (dirty)
			bitmap_fill(dirty, a->nr_regions);
	}
	mutex_lock(&a->rh_mutex);	/* every call that touches the log */
	for (r = 0; r < a->nr_regions; r++)
		if (!dirty || test_bit(r, dirty))
			core->type->set_region_sync(core, r, 0);
	mutex_unlock(&a->rh_mutex);
	kvfree(dirty);
}
