/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The partial parity log's private structures, shared by its writing
 * half (ppl.c) and its replay and reset half (ppl-replay.c).
 */
#ifndef R45_PPL_H
#define R45_PPL_H

#include <linux/bio.h>
#include <linux/crc32c.h>
#include <linux/raid/md_p.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "r45_array.h"

/* md's format: struct ppl_header (a 4 KiB header), partial parity after it */
#define PPL_SPACE_SIZE		(128 * 1024)	/* per header in a large area */

/* at most this many partial parities (pages) in one log write */
#define PPL_MAX_PP	(PPL_SPACE_SIZE / PAGE_SIZE)

/*
 * One logged stripe batch: its entry as the headers carry it, and its
 * partial parity, a page the log owns from the logging on (the stripe
 * gets one of the log's spare pages in exchange: a stripe may log its
 * next batch while a header still carries this one).
 */
struct r45_ppl_rec {
	struct list_head node;		/* log->fresh, then log->carried */
	struct ppl_header_entry e;	/* little-endian, as written */
	struct page *pp;		/* NULL: a full-stripe entry */
	struct r45_ppl_log *log;
	struct r45_stripe *sh;		/* until its header is durable */
	sector_t stripe;		/* sh->sector: the stripe it is of */
	unsigned long wmask;		/* members its batch writes */
	bool go;			/* a header with it is durable */
	bool written;			/* its batch is on the members */
	bool flushing;			/* in the member flush under way */
	bool done;			/* written, durable: headers drop it */
	bool in_hdr;			/* the header write under way has it */
};

/*
 * The log of one member: its PPL area.  At most one operation at a time
 * (log->busy): a header write, or a flush of the members.
 */
struct r45_ppl_log {
	struct r45_ppl *ppl;
	unsigned int idx;
	spinlock_t lock;
	struct list_head fresh;		/* logged, in no header yet */
	struct list_head carried;	/* in a header, not yet freed */
	struct list_head waiting;	/* stripes that found no room */
	struct list_head free_recs;
	struct list_head spare_pages;	/* page->lru */
	unsigned int entries;		/* recs the next header would carry */
	unsigned int pp_pages;		/* their partial parities */
	bool busy;
	sector_t start;			/* the area, on the member */
	sector_t next;			/* where the next header goes */
	unsigned int entry_space;	/* bytes of partial parity per header */
	bool multi;			/* headers one after the other */
	struct work_struct work;	/* advance() from the completions */
	atomic_t flushes;		/* member flushes under way */
	/* the header write under way: its recs, in the header's order */
	struct r45_ppl_rec *hdr_recs[PPL_HDR_MAX_ENTRIES];
	unsigned int hdr_nr;
	struct page *header;
	struct bio bio;			/* header + partial parities, or
					 * one of them (two steps) */
	struct bio_vec vecs[1 + PPL_MAX_PP];
	struct bio bio2;		/* the other, in two steps */
	struct bio_vec vecs2[PPL_MAX_PP];
	struct work_struct step_work;	/* submits bio2 */
	int step_err;			/* the first step's error */
	struct r45_ppl_rec recs[PPL_HDR_MAX_ENTRIES];
};

struct r45_ppl {
	struct r45_array *a;
	s64 offset;			/* the area, from the member's data */
	sector_t size;
	u32 signature;
	atomic64_t seq;			/* generation of the last header */
	atomic_t busy;			/* recs held and operations under way */
	wait_queue_head_t idle;		/* woken when that count drops */
	struct bio_set flush_bs;
	struct workqueue_struct *wq;
	struct r45_ppl_log *logs[R45_MAX_DISKS];
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
static inline void assert_noio(void)
{
	WARN_ON_ONCE(!(current->flags & PF_MEMALLOC_NOIO));
}

static inline void ppl_crc(u32 *crc, const void *p, unsigned int len)
{
	*crc = crc32c(*crc, p, len);
}

#endif
