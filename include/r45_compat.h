/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place for differences between the kernel series we build for
 * (Debian 12: 6.1 and 6.12; Debian unstable: 7.2).  Everything else uses
 * the r45_* names.
 */
#ifndef R45_COMPAT_H
#define R45_COMPAT_H

#include <linux/version.h>
#include <linux/blkdev.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/raid/xor.h>
#include <linux/raid/pq.h>
#include <linux/pagemap.h>
#include <linux/fs.h>
#include <linux/rcupdate.h>
#include <linux/bio.h>
#include <linux/device-mapper.h>

/*
 * Parity libraries.  7.1 replaced xor_blocks() (at most MAX_XOR_BLOCKS
 * sources per call) by xor_gen(), which takes any number of sources;
 * 7.2 replaced raid6_call.gen_syndrome and .xor_syndrome,
 * raid6_2data_recov and raid6_datap_recov (function pointers) by
 * raid6_gen_syndrome(), raid6_xor_syndrome(), raid6_recov_2data() and
 * raid6_recov_datap(), and no longer exports
 * raid6_empty_zero_page.  The 7.2 functions WARN unless: the length is
 * a non-zero multiple of 512, buffers are 64-byte aligned (recovery:
 * page aligned and at most PAGE_SIZE), at least 4 raid6 "disks", and the
 * caller is a task with preemption, interrupts and softirqs enabled.
 * Our callers meet all of them on every kernel: one page per member
 * (R45_STRIPE_BYTES == 4096, page_address of whole pages), raid6 with at
 * least 4 members, parity computed in the lanes' work items outside any
 * spinlock.
 */
static inline void r45_xor(void *dest, void **srcs, unsigned int count,
			   unsigned int bytes)
{
	if (!count)
		return;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 1, 0)
	xor_gen(dest, srcs, count, bytes);
#else
	while (count) {
		unsigned int n = min_t(unsigned int, count, MAX_XOR_BLOCKS);

		xor_blocks(n, bytes, dest, srcs);
		srcs += n;
		count -= n;
	}
#endif
}

/* P and Q of ptrs[0..disks-3] into ptrs[disks-2] and ptrs[disks-1]. */
static inline void r45_raid6_gen_syndrome(int disks, size_t bytes,
					  void **ptrs)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	raid6_gen_syndrome(disks, bytes, ptrs);
#else
	raid6_call.gen_syndrome(disks, bytes, ptrs);
#endif
}

/*
 * P ^= xor and Q ^= syndrome of ptrs[start..stop] (the blocks outside
 * that range are not read); what read-modify-write on RAID6 needs.  Not
 * every raid6 implementation has it on the older kernels.
 */
static inline bool r45_raid6_can_xor_syndrome(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	return raid6_can_xor_syndrome();
#else
	return raid6_call.xor_syndrome != NULL;
#endif
}

static inline void r45_raid6_xor_syndrome(int disks, int start, int stop,
					  size_t bytes, void **ptrs)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	raid6_xor_syndrome(disks, start, stop, bytes, ptrs);
#else
	raid6_call.xor_syndrome(disks, start, stop, bytes, ptrs);
#endif
}

/* Two data blocks (faila < failb) from the others, P and Q. */
static inline void r45_raid6_recov_2data(int disks, size_t bytes, int faila,
					 int failb, void **ptrs)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	raid6_recov_2data(disks, bytes, faila, failb, ptrs);
#else
	raid6_2data_recov(disks, bytes, faila, failb, ptrs);
#endif
}

/* One data block and P from the other data blocks and Q. */
static inline void r45_raid6_recov_datap(int disks, size_t bytes, int faila,
					 void **ptrs)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	raid6_recov_datap(disks, bytes, faila, ptrs);
#else
	raid6_datap_recov(disks, bytes, faila, ptrs);
#endif
}

/* Is the table read-write?  (fmode_t before 6.5, blk_mode_t since.) */
static inline bool r45_table_writable(struct dm_table *t)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	return dm_table_get_mode(t) & BLK_OPEN_WRITE;
#else
	return dm_table_get_mode(t) & FMODE_WRITE;
#endif
}

/* A page of zeroes for the syndrome slots no member fills (DDF layouts). */
static inline void *r45_raid6_zero_block(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	return page_address(ZERO_PAGE(0));
#else
	return (void *)raid6_empty_zero_page;
#endif
}

/*
 * skip_copy (raid5/stripe.c): may the page a write names go to the
 * members as it is, parity computed from it, with no copy in the stripe
 * cache?  Only if nothing can change it before the write completes.
 * "Under writeback, on a mapping with stable writes" alone is not that
 * (issue 27, finding 3):
 *   - buffer-head metadata lives in a block device's own page cache, and
 *     ext2, ext4 without a journal and FAT change it in place, under
 *     writeback, without waiting for it;
 *   - page cache pages spliced into an O_DIRECT write are not pinned,
 *     and the writeback seen may be another I/O's, which can end (and
 *     let the page change) before ours;
 *   - fs/buffer.c's block_truncate_page() (ext2, and every file system
 *     that truncates through it) zeroes the tail of a regular file's
 *     page without waiting for its writeback.
 * So a page qualifies only when it is a regular file's data, of a file
 * system mounted on this very array (its writeback goes through here,
 * and the bio seen is that writeback), under writeback, not pinned for
 * DMA (O_DIRECT and io_uring pin user memory: FOLL_PIN), on a mapping
 * with stable writes, and the file system is one whose every path that
 * changes such a page waits for its writeback first: ext4 (write_begin,
 * page_mkwrite and partial-block zeroing all take the folio with
 * FGP_STABLE or folio_wait_stable) and xfs (iomap: the same).  Quota
 * files are left out (ext4 writes them through buffer heads).  O_DIRECT
 * pins since 6.5 and mappings carry stable writes since 6.8; a target
 * can ask for stable writes since 6.11 (r45_want_stable_writes), so
 * before 6.11 nothing qualifies.  The folio's mapping, inode and super
 * block are read under RCU: a folio whose writeback is not ours could
 * be truncated meanwhile (inodes are freed after a grace period).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define R45_CAN_SKIP_COPY 1
static inline bool r45_page_stable(struct page *page,
				   struct block_device *self)
{
	struct folio *folio = page_folio(page);
	struct address_space *mapping;
	struct inode *host;
	const char *fs;
	bool ok = false;

	if (!folio_test_writeback(folio) || folio_maybe_dma_pinned(folio))
		return false;
	rcu_read_lock();
	mapping = folio_mapping(folio);
	host = mapping ? READ_ONCE(mapping->host) : NULL;
	if (host && mapping_stable_writes(mapping) &&
	    S_ISREG(host->i_mode) && !IS_NOQUOTA(host) &&
	    host->i_sb->s_bdev == self) {
		fs = host->i_sb->s_type->name;
		ok = !strcmp(fs, "ext4") || !strcmp(fs, "xfs");
	}
	rcu_read_unlock();
	return ok;
}
#else
#define R45_CAN_SKIP_COPY 0
static inline bool r45_page_stable(struct page *page,
				   struct block_device *self)
{
	return false;
}
#endif

/*
 * Ask for stable writes on the array (skip_copy): file systems mounted on
 * it then keep their pages unchanged while they are written.  Since 6.11
 * a target can, through its queue limits; 6.1's dm core clears the flag
 * unless a member needs it.
 */
static inline void r45_want_stable_writes(struct queue_limits *limits)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	limits->features |= BLK_FEAT_STABLE_WRITES;
#endif
}

#endif
