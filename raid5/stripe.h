/* SPDX-License-Identifier: GPL-2.0 */
/* Stripe cache internals, private to raid5/. */
#ifndef R45_STRIPE_H
#define R45_STRIPE_H

#include "r45_array.h"

/*
 * A piece of an application bio that falls on one member block of one
 * stripe: iter is positioned at its first byte.
 */
struct r45_piece {
	struct list_head node;
	struct bio *bio;
	struct bvec_iter iter;
	unsigned short page_off;	/* bytes into the member block */
	unsigned short len;		/* bytes */
};

struct r45_dev {
	struct page *page;
	unsigned long flags;
	struct list_head reads;		/* waiting for data */
	struct list_head writes;	/* waiting to be written */
	struct list_head batch;		/* being written now */
	unsigned int wcover;		/* sectors covered by writes */
	unsigned int bcover;		/* sectors covered by the batch */
	int error;			/* last member I/O failed */
	struct r45_stripe *sh;		/* back pointer for I/O completion */
	struct page *wpage;		/* written instead of page: a bio's
					 * own (write_in_place) */
	struct bio *bio;		/* member I/O, one at a time */
	struct bio_vec vec;
};

/* r45_dev.flags */
enum {
	R45_DEV_UPTODATE,	/* page holds the member's current block */
	R45_DEV_READ_RETRY,	/* a read failed: read it again, alone */
	R45_DEV_READ_ERROR,	/* the member failed to read it: rebuild it
				 * from the others, then write it back */
	R45_DEV_ZERO_RETRY,	/* the member refused write-zeroes: write
				 * the page of zeroes instead */
	R45_DEV_REWRITE,	/* written back after a read error with no
				 * write batch: counted in a->rewrites */
};

struct r45_stripe {
	struct hlist_node hash;
	struct list_head lru;		/* idle or delayed list */
	struct r45_array *a;
	sector_t sector;		/* member sector, stripe aligned */
	spinlock_t lock;		/* piece lists and wcover */
	atomic_t count;
	unsigned long state;
	atomic_t io_pending;
	int sync_action;		/* enum r45_action */
	struct r45_lane *lane;		/* where it is handled: chosen by
					 * queue_stripe() */
	struct list_head ready;		/* on the lane's ready list */
	struct r45_stripe_map map;
	struct bio *bios;		/* dev[i].bio, one allocation */

	/* the partial parity log (ppl.c), when the array has one */
	struct page *pp;		/* partial parity of the batch */
	struct r45_ppl_rec *ppl_rec;	/* its entry in the log */
	struct r45_jrec *jrec;		/* or its record in the journal */
	struct list_head ppl_node;	/* on the log's waiting list */
	sector_t ppl_sector;		/* array sector of the first modified
					 * data block */
	unsigned int ppl_blocks;	/* modified data blocks from there */
	bool ppl_full;			/* every data block: no pp */
	unsigned long wmask;		/* members to write once logged */
	blk_opf_t wop;

	struct r45_dev dev[];
};

/* r45_stripe.state */
enum {
	R45_STRIPE_QUEUED,	/* on, or being put on, a lane's ready list */
	R45_STRIPE_DELAYED,	/* on the delayed list */
	R45_STRIPE_WRITING,	/* a write batch is on its way to members */
	R45_STRIPE_FUA_PENDING,	/* a waiting write asked for FUA */
	R45_STRIPE_FUA,		/* the current batch is written with FUA */
	R45_STRIPE_SYNC,	/* a sync action waits for this stripe */
	R45_STRIPE_SYNC_READING,	/* its member reads were issued */
	R45_STRIPE_SYNC_WRITING,	/* its member writes were issued */
	R45_STRIPE_DISCARD,	/* discard pieces wait or are in the batch */
	R45_STRIPE_HANDLING,	/* its lane runs handle_stripe() on it */
	R45_STRIPE_PPL_WAIT,	/* its batch waits for its log write */
	R45_STRIPE_PPL_GO,	/* logged: write the batch (wmask, wop) */
	R45_STRIPE_PPL_RETRY,	/* found no log write: log it again */
	R45_STRIPE_PPL_FAIL,	/* the journal is dead: fail the batch */
};

#define R45_FULL_COVER ((1U << R45_STRIPE_SECTORS) - 1)

/* raid5/ppl.c, for stripe.c */
struct r45_ppl_rec;
bool r45_ppl_log(struct r45_stripe *sh);
void r45_ppl_written(struct r45_stripe *sh);
/* raid5/journal.c, for stripe.c (parks stripes as the PPL does) */
struct r45_jrec;
int r45_journal_log(struct r45_stripe *sh);
void r45_journal_written(struct r45_stripe *sh);
/* raid5/stripe.c, for ppl.c and journal.c: a parked stripe is handled again */
void r45_ppl_wake(struct r45_stripe *sh, int bit);

#endif
