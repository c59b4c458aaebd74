/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The write journal's private structures, shared by its writing half
 * (journal.c) and its replay and superblock half (journal-replay.c).
 */
#ifndef R45_JOURNAL_H
#define R45_JOURNAL_H

#include <linux/bio.h>
#include <linux/crc32c.h>
#include <linux/raid/md_p.h>
#include <linux/uuid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "r45_array.h"

/* md's format counts in 4 KiB blocks (BLOCK_SECTORS in raid5-cache.c) */
#define J_BLOCK		8
/* a record: its meta block, the written data blocks, P and Q */
#define J_MAX_PAGES	(1 + R45_MAX_DISKS)
/* records in flight: also the least sequence gap after a replay */
#define J_RECS		64
#define J_SEQ_GAP	1024
/* the smallest log area (1 MiB): several records of the widest array */
#define J_MIN_SECTORS	2048

/*
 * raid45's journal superblock, the first 512 bytes of the journal device
 * (md keeps the log's tail in its own array superblock; raid45 has none).
 * The log area follows it, from sector J_BLOCK to the end, in md's
 * r5l format.  Little-endian; csum is ~crc32c of the struct with csum 0.
 */
#define J_SB_MAGIC	0x4c4e524a35345231ULL	/* "1R45JRNL" */
#define J_SB_VERSION	1

enum {
	J_STATE_CLOSED = 1,	/* no table runs with it: vouches for nothing */
	J_STATE_OPEN = 2,	/* a table runs with it: replay what it holds */
	J_STATE_FAILED = 3,	/* a write failed: its records are stale */
};

struct r45_jsb {
	__le64 magic;
	__le32 version;
	__le32 state;
	u8 uuid[16];		/* seeds md's checksums: crc32c(~0, uuid) */
	__le64 log_start;	/* sectors on the device */
	__le64 log_size;	/* sectors, a multiple of J_BLOCK */
	__le64 tail;		/* position of the oldest record to replay */
	__le64 seq;		/* the sequence number it must carry */
	/* the array it belongs to: its records are replayed only there */
	__le32 type;		/* enum r45_type */
	__le32 raid_disks;
	__le32 chunk_sectors;
	__le32 raid4_parity;
	__le64 dev_sectors;
	__le32 csum;
} __packed;

/*
 * How the journal runs (journal.c, "A journal write that fails"):
 * J_RUN_FAILING holds every journaled batch until the superblock says
 * FAILED (then J_RUN_FAILED: batches go to the members unjournaled) or
 * cannot be written (J_RUN_DEAD: batches fail with EIO, md's rule).
 */
enum j_run_state { J_RUN_OK, J_RUN_FAILING, J_RUN_FAILED, J_RUN_DEAD };

/* One stripe batch in the journal (a meta block of its own). */
struct r45_jrec {
	struct list_head node;		/* j->live in log order, or j->free */
	struct r45_journal *j;
	struct r45_stripe *sh;		/* until its go */
	struct page *meta;
	sector_t pos;			/* its meta block, in the ring */
	unsigned int blocks;		/* meta + payload pages */
	u64 seq;
	atomic_t pending;		/* bios under way */
	bool durable;			/* its write ended (j->state says
					 * whether it failed) */
	bool go;			/* its stripe was let go */
	bool done;			/* its batch is on the members */
	struct bio bio;			/* the record */
	struct bio bio2;		/* its part after the ring wraps */
	struct bio_vec vecs[J_MAX_PAGES];
	struct bio_vec vecs2[J_MAX_PAGES];
};

struct r45_journal {
	struct r45_array *a;
	struct block_device *bdev;
	sector_t start;			/* the ring on the device */
	sector_t size;
	u8 uuid[16];
	u32 seed;			/* crc32c(~0, uuid) */
	spinlock_t lock;
	struct list_head live;		/* records in log order */
	struct list_head free;
	struct list_head waiting;	/* stripes (ppl_node) without room */
	sector_t head;			/* where the next record goes */
	u64 seq;			/* its sequence number */
	sector_t dtail;			/* the superblock's tail */
	u64 dtail_seq;
	int state;			/* enum j_run_state */
	bool reclaiming;
	int sb_state;			/* read at the table load */
	bool started;			/* replayed (or taken over): its
					 * superblock may be written */
	bool foreign;			/* OPEN, of another geometry */
	atomic_t busy;			/* records and reclaims under way */
	wait_queue_head_t idle;
	struct workqueue_struct *wq;
	struct work_struct reclaim_work;
	struct mutex sb_mutex;		/* superblock writes */
	struct page *sb_page;
	struct r45_jrec *recs;		/* J_RECS of them */
};

static inline void j_crc(u32 *crc, const void *p, unsigned int len)
{
	*crc = crc32c(*crc, p, len);
}

static inline sector_t j_ring_add(const struct r45_journal *j, sector_t pos,
				  sector_t inc)
{
	pos += inc;
	return pos >= j->size ? pos - j->size : pos;
}

/* journal.c, for journal-replay.c */
struct r45_journal *r45_journal_alloc(struct r45_array *a,
				      struct block_device *bdev);
void r45_journal_free(struct r45_journal *j);

/* journal-replay.c, for journal.c */
int r45_journal_write_sb(struct r45_journal *j, int state, sector_t tail,
			 u64 seq);
int r45_journal_flush_members(struct r45_array *a);

#endif
