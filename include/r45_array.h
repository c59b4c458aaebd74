/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The array object of the md glue layer: geometry, members, health,
 * stripe cache bookkeeping, worker queue and plugger.  The dm target
 * builds one per raid45 target and drives it only through r45_array_*.
 */
#ifndef R45_ARRAY_H
#define R45_ARRAY_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/list.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/bio.h>
#include <linux/mempool.h>
#include <linux/blkdev.h>
#include <linux/mutex.h>
#include <linux/completion.h>
#include <linux/dm-dirty-log.h>
#include "r45_layout.h"

struct dm_region_hash;
struct task_struct;
struct r45_ppl;
struct r45_journal;

#define R45_STRIPE_SECTORS	8	/* one page per member per stripe */
#define R45_STRIPE_BYTES	(R45_STRIPE_SECTORS << SECTOR_SHIFT)

struct r45_member {
	struct block_device *bdev;
	sector_t offset;		/* where the array data starts */
	unsigned long flags;
	atomic_t read_errors;		/* recent ones, halved every hour */
	unsigned long read_errors_at;	/* jiffies of the last halving */
};

/*
 * md's max_read_errors: a member whose read errors (each one rebuilt from
 * the others and written back) exceed this many, counted with an hourly
 * halving, is failed: a disk that keeps losing sectors is on its way out.
 */
#define R45_MAX_READ_ERRORS	20

/* r45_member.flags bits */
enum { R45_MEMBER_FAILED };

/* r45_array.flags bits */
enum {
	R45_ARRAY_SUSPENDED,	/* no new delayed work; timer idle */
	R45_ARRAY_DEAD,		/* more failures than parity: writes fail */
};

/* Sync actions (md's sync_action words) */
enum r45_action {
	R45_ACT_IDLE,
	R45_ACT_RESYNC,
	R45_ACT_RECOVER,
	R45_ACT_CHECK,
	R45_ACT_REPAIR,
};

/* The dm target's per-bio data, also read by the array. */
struct r45_bio_info {
	struct bvec_iter iter;		/* array-relative, before remapping */
	int member;			/* read remapped to this member, or -1 */
	bool counted;			/* write counted in the region hash */
	bool unacked;			/* let go while a failure was not
					 * recorded: region stays out of sync */
	region_t region;
};

/*
 * A lane handles stripes one at a time, in batches under one block plug;
 * lanes run in parallel.  A stripe goes to its home lane by stripe
 * number, or to the least loaded one when home is backed up (pick_lane).
 */
struct r45_array;

struct r45_lane {
	struct r45_array *a;
	spinlock_t lock;
	struct list_head ready;		/* stripes waiting to be handled */
	bool active;			/* work queued or running: it will
					 * look at ready before it ends */
	atomic_t backlog;		/* queued here and not yet handled */
	struct work_struct work;
	struct page *scratch[2];	/* parity checks, one stripe at a time */
};


/*
 * What the engine (raid5/) reports upward: the glue registers these when
 * it creates the engine (r45_cache_init), so that nothing in raid5/ knows
 * the layers above it.  Any context unless said otherwise.
 */
struct r45_engine_ops {
	/* a member write failed, or a read error could not be written back */
	void (*member_failed)(struct r45_array *a, unsigned int idx);
	/*
	 * A member block could not be read; the engine rebuilds it and writes
	 * it back.  Returns false if the member was failed instead (too many).
	 */
	bool (*read_error)(struct r45_array *a, unsigned int idx);
	/* a sync action's stripe is done (r45_stripe_sync) */
	void (*sync_done)(struct r45_array *a, bool ok);
	/* a stripe got a partial write: may it wait for the submitter's plug? */
	bool (*plug_arm)(struct r45_array *a);
	/* does parity match data on every stripe of this row (see sync.c)? */
	bool (*row_in_sync)(struct r45_array *a, u64 row);
	/*
	 * May a block be computed from this row's parity (md-compat/trust.c)?
	 * @rebuild: for a rebuild of the member being initialised.
	 */
	bool (*row_trusted)(struct r45_array *a, u64 row, bool rebuild);
	/*
	 * Array sectors [first, last) may hold torn stripes (a partial parity
	 * log entry not replayed): never computed from parity until a resync.
	 * Process context, before any I/O.
	 */
	void (*untrust)(struct r45_array *a, sector_t first, sector_t last);
};

struct r45_stats {
	atomic64_t reads, writes, bypass_reads, full_writes, rmw, rcw,
		   degraded, delayed, zeroed, in_place, moved;
};

struct r45_array {
	struct r45_geom geom;
	struct r45_member members[R45_MAX_DISKS];
	sector_t array_sectors;
	unsigned long flags;

	/* stripe cache (raid5/stripe.c) */
	const struct r45_engine_ops *ops;	/* upward, set by the glue */
	spinlock_t lock;		/* hash, idle list, counts */
	struct hlist_head *hash;
	unsigned int hash_mask;
	struct list_head idle;		/* refcount 0, no work: reusable */
	struct list_head delayed;	/* partial writes waiting for more */
	unsigned int nr_stripes;	/* allocated */
	unsigned int max_stripes;	/* cache size */
	bool raid6_rmw;			/* RAID6 may read-modify-write */
	bool zero_members;		/* every member takes write-zeroes:
					 * discarded stripes are zeroed so */
	bool skip_copy;			/* whole-page writes of stable pages
					 * go to the members uncopied */
	struct block_device *self;	/* the array's own device: its file
					 * system's pages may skip the copy */
	bool read_only;			/* a read-only table: nothing is
					 * written, not even a repair */
	wait_queue_head_t wait_stripe;
	atomic_t rewrites;		/* stripes writing back repaired
					 * blocks that no bio waits for */
	mempool_t *piece_pool;
	struct workqueue_struct *wq;
	struct r45_lane *lanes;
	unsigned int nr_lanes;		/* one per CPU: pick_lane() */

	/* plugger (md-compat/plug.c) */
	atomic_t plug_cbs;		/* submitters' plugs naming us */

	/* events upward (md-compat/array.c) */
	void (*event_fn)(void *ctx);
	void *event_ctx;
	struct work_struct event_work;

	/* dirty log, region hash and sync driver (md-compat/sync.c) */
	struct dm_dirty_log *log;
	struct dm_region_hash *rh;
	struct mutex rh_mutex;		/* every call that touches the log */
	struct delayed_work rh_work;	/* marks finished regions clean */
	atomic_t rh_events;		/* region hash wakeups, for waiters */
	wait_queue_head_t rh_wait;	/* woken on rh_events */
	region_t nr_regions;
	sector_t region_size;
	bool log_in_memory;		/* its flush does no I/O */
	bool log_failed;		/* a log flush failed once */
	/*
	 * Region trust: owned by md-compat/trust.c, which alone changes
	 * these (its header comment draws the states).  written_degraded:
	 * regions written while any member was failed (md's bitmap re-add);
	 * readd_ok: members whose failure that record covers from its start;
	 * untrusted: regions whose parity a crash may have torn (issue 26);
	 * rebuild_forced: the table forced a rebuild through torn regions
	 * (start_dirty_degraded); log_foreign: the disk log was written for
	 * another region count; log_fresh: a fresh activation read the disk
	 * log (its last region is resynced: r45_trust_first_resume).
	 */
	unsigned long *written_degraded;
	unsigned long readd_ok;
	unsigned long *untrusted;
	bool rebuild_forced;
	bool log_foreign;
	bool log_fresh;
	atomic64_t unsafe_reads;
	struct workqueue_struct *log_wq; /* write_work, rh_work: not the
					  * lanes' queue (see sync.c) */
	/* member failures: count and decide in one step (array.c) */
	spinlock_t fail_lock;
	spinlock_t write_lock;
	struct bio_list write_queue;	/* writes to count, then submit */
	struct work_struct write_work;
	struct bio_list nosync_bios;	/* unacked writes done: their regions
					 * to mark out of sync (write_lock) */
	struct work_struct nosync_work;
	struct task_struct *sync_thread;
	wait_queue_head_t sync_wait;	/* state changes, sync stripes done */
	/* the sync driver's state machine (sync.c): under sync_lock */
	spinlock_t sync_lock;
	int sync_state;			/* enum r45_sync_state (sync.c) */
	int sync_action;		/* enum r45_action: running or pending */
	unsigned int action_seq;	/* bumped whenever an action starts */
	unsigned int sync_gen;		/* bumped on every state change */
	bool stepping;			/* the thread is inside a step */
	unsigned long throttle_from;	/* jiffies: the last step ended */
	unsigned long throttle_spent;	/* it took this long; 0: no throttle */
	/* (end of sync_lock) */
	bool recovery_open;		/* region hash recovery started */
	int recover_member;		/* being rebuilt, or -1 */
	u64 check_row;
	unsigned long sync_steps;	/* regions worked on by this action */
	unsigned int sync_retries;	/* passes restarted without progress */
	atomic_t sync_in_flight;
	atomic_t sync_errors;
	atomic64_t mismatches;
	unsigned long app_io_at;	/* jiffies of the last application bio */
	unsigned int bandwidth;		/* percent */
	unsigned int recovery_stripes;

	/*
	 * Bypass reads that failed, served again through the cache.  This
	 * work runs on submit_wq, not on the lanes' queue: it may wait in
	 * get_stripe for stripes that only the lanes on a->wq can free
	 * (md-compat/array.c; sync.c's write_work has log_wq).
	 */
	spinlock_t retry_lock;
	struct bio_list retry_bios;
	struct work_struct retry_work;
	struct workqueue_struct *submit_wq;
	/* member read errors rebuilt and written back (finding 3) */
	atomic64_t read_errors_fixed;

	/* r45_array_flush_members(): the dirty log's flush callback */
	struct bio *member_flush_bios;	/* one per member */
	atomic_t members_flushing;
	struct completion members_flushed;
	struct r45_stats stats;

	/* partial parity log (raid5/ppl.c), or NULL */
	bool has_ppl;			/* stripes carry a partial parity page */
	struct r45_ppl *ppl;
	/* write journal (raid5/journal.c), or NULL */
	struct r45_journal *journal;
};

/*
 * Is member @idx failed?  A plain test of the array's member state, for
 * every layer (the engine reads it without calling the glue).
 */
static inline bool r45_member_is_failed(const struct r45_array *a,
					unsigned int idx)
{
	return test_bit(R45_MEMBER_FAILED, &a->members[idx].flags);
}

/* md-compat/array.c */
struct r45_array *r45_array_create(const struct r45_geom *geom,
				   unsigned int nr_stripes, bool ppl,
				   void (*event_fn)(void *), void *ctx);
void r45_array_destroy(struct r45_array *a);
void r45_array_fail_member(struct r45_array *a, unsigned int idx);
void r45_array_readd_member(struct r45_array *a, unsigned int idx);
void r45_array_set_missing(struct r45_array *a, unsigned int idx);
bool r45_array_read_error(struct r45_array *a, unsigned int idx);
unsigned int r45_array_nr_failed(struct r45_array *a);
unsigned long r45_array_failed_mask(struct r45_array *a);
void r45_array_event(struct r45_array *a);
void r45_array_set_member(struct r45_array *a, unsigned int idx,
			  struct block_device *bdev, sector_t offset);
bool r45_array_member_failed(struct r45_array *a, unsigned int idx);
/* r45_array_submit() results */
enum { R45_SUBMITTED, R45_REMAPPED };
int r45_array_submit(struct r45_array *a, struct bio *bio,
		     struct r45_bio_info *info);
void r45_array_retry_read(struct r45_array *a, struct bio *bio, int member);
bool r45_array_write_done(struct r45_array *a, struct bio *bio,
			  struct r45_bio_info *info);
int r45_array_flush_members(struct r45_array *a);
int r45_array_suspend(struct r45_array *a);
void r45_array_resume(struct r45_array *a);

/* md-compat/sync.c */
int r45_sync_init(struct r45_array *a, struct dm_dirty_log *log,
		  sector_t region_size, region_t nr_regions, int recover_member);
void r45_sync_exit(struct r45_array *a);
int r45_sync_pause(struct r45_array *a);
void r45_sync_unpause(struct r45_array *a);
int r45_sync_request(struct r45_array *a, const char *action);
const char *r45_sync_action_name(struct r45_array *a);
const char *r45_sync_status(struct r45_array *a, u64 in_sync, u64 *done,
			    u64 *total);
bool r45_sync_write_begin(struct r45_array *a, struct bio *bio);
void r45_sync_done(struct r45_array *a, bool ok);
void r45_sync_flush_log(struct r45_array *a);
void r45_sync_defer_nosync(struct r45_array *a, struct bio *bio);
bool r45_sync_rebuild_possible(struct r45_array *a);

/* md-compat/trust.c: region trust, its one owner */
int r45_trust_init(struct r45_array *a);
void r45_trust_exit(struct r45_array *a);
bool r45_trust_row_in_sync(struct r45_array *a, u64 row);
bool r45_trust_row(struct r45_array *a, u64 row, bool rebuild);
void r45_trust_untrust(struct r45_array *a, sector_t first, sector_t last);
void r45_trust_synced(struct r45_array *a, region_t region, int action);
void r45_trust_member_failed(struct r45_array *a, unsigned int idx);
void r45_trust_note_write(struct r45_array *a, region_t region);
long r45_trust_activate(struct r45_array *a, struct block_device *log_bdev,
			bool vouched);
void r45_trust_rebuild_done(struct r45_array *a);
void r45_trust_force_rebuild(struct r45_array *a);
void r45_trust_first_resume(struct r45_array *a);
void r45_trust_rebuild_all(struct r45_array *a);
void r45_trust_before_grow(struct r45_array *old, sector_t region_size);
void r45_trust_takeover(struct r45_array *a, struct r45_array *old, bool same,
			int rebuild, bool trust_new);
int r45_trust_readd(struct r45_array *a, unsigned int idx, region_t *regions,
		    const char **why);
region_t r45_trust_unprotected(struct r45_array *a);

/* md-compat/rolog.c; r45_disk_log_read returns 0, 1 or: */
#define R45_DISK_LOG_FOREIGN	2	/* valid, for another region count */
#define R45_DISK_LOG_FOREIGN_CLEAN 3	/* the same, every old region clean */
void r45_rolog_load(struct r45_array *a, struct block_device *bdev,
		    int sync);
int r45_disk_log_read(struct block_device *bdev, region_t nr_regions,
		      unsigned long *dirty);

/* md-compat/plug.c */
void r45_plug_init(struct r45_array *a);
void r45_plug_stop(struct r45_array *a);
bool r45_plug_arm(struct r45_array *a);

/* raid5/stripe.c */
int r45_stripe_module_init(void);
void r45_stripe_module_exit(void);
int r45_cache_init(struct r45_array *a, unsigned int nr_stripes,
		   const struct r45_engine_ops *ops);
bool r45_cache_exit(struct r45_array *a);
int r45_cache_resize(struct r45_array *a, unsigned int nr_stripes);
int r45_make_request(struct r45_array *a, struct bio *bio);
void r45_release_delayed(struct r45_array *a);
int r45_wait_rewrites(struct r45_array *a);
void r45_count_done(struct r45_array *a, atomic_t *count);
void r45_wait_count(struct r45_array *a, atomic_t *count);
int r45_wait_count_killable(struct r45_array *a, atomic_t *count);
void r45_stripe_sync(struct r45_array *a, sector_t sector, int action);

/* raid5/ppl.c */
int r45_ppl_init(struct r45_array *a, s64 offset, sector_t size,
		 u32 signature);
void r45_ppl_exit(struct r45_array *a);
int r45_ppl_replay(struct r45_array *a);
void r45_ppl_takeover(struct r45_array *a, struct r45_array *old);
void r45_ppl_suspend(struct r45_array *a);
int r45_ppl_reset_member(struct r45_array *a, unsigned int i);
bool r45_ppl_vouches(struct r45_array *a, int skip);
void r45_ppl_invalidate(struct r45_array *a);
void r45_ppl_close(struct r45_array *a);
int r45_ppl_quiesce(struct r45_array *a);

/* raid5/journal.c, journal-replay.c */
int r45_journal_init(struct r45_array *a, struct block_device *bdev,
		     const char **why);
void r45_journal_exit(struct r45_array *a);
bool r45_journal_vouches(struct r45_array *a);
int r45_journal_replay(struct r45_array *a);
void r45_journal_takeover(struct r45_array *a, struct r45_array *old);
int r45_journal_quiesce(struct r45_array *a);
void r45_journal_suspend(struct r45_array *a);
void r45_journal_close(struct r45_array *a, bool replaced);
bool r45_journal_foreign(struct r45_array *a);
const char *r45_journal_status(struct r45_array *a);

/* raid5/parity.c */
void r45_compute_parity(const struct r45_geom *g,
			const struct r45_stripe_map *m, void **blocks);
void r45_xor_into(void *dest, void **srcs, unsigned int count);
void r45_parity_delta(const struct r45_geom *g,
		      const struct r45_stripe_map *m, void **blocks,
		      unsigned long touched);
int r45_reconstruct(const struct r45_geom *g,
		    const struct r45_stripe_map *m, void **blocks,
		    int fa, int fb);

#endif
