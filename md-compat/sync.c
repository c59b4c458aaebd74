// SPDX-License-Identifier: GPL-2.0
/*
 * The sync driver and dirty-region logging.
 *
 * (~1,100 lines in one file: the write path's region counting and the
 * sync driver's recovery steps are two sides of one region hash and its
 * rh_mutex; what a region may be trusted for is apart, in trust.c.)
 *
 * Writes are counted per region in the kernel's region hash (which marks
 * the region dirty in the dm dirty log, flushed before the write goes to
 * any member, and clean again once its writes are done).  A kernel thread
 * walks the regions the log reports out of sync (resync, or rebuild of
 * one member) through the region hash's recovery interface, which holds
 * writes to the region being recovered; check and repair walk the whole
 * array by stripe rows without holding any write (the stripe state
 * machine orders a row's sync after the writes queued on it).  The work
 * on each stripe is done by the stripe state machine; this file only
 * decides which stripes, how fast and when.
 *
 * THE STATE MACHINE.  The driver's state (sync_state, sync_action,
 * action_seq, stepping, the throttle) changes only under a->sync_lock.
 * The thread is the only one that works; the control functions (messages,
 * suspend, resume, reload, teardown) only change the state, bump
 * sync_gen and wake the thread, and wait for it where they must.
 *
 *   SUSPENDED         new, or suspended: no step starts; the region
 *                     hash's recovery gate is closed.
 *   SUSPENDED_FROZEN  the same, and frozen by message: resumes FROZEN.
 *   IDLE              resumed, nothing to do.
 *   RUNNING           resumed: the thread works sync_action, step by
 *                     step (a step: one region of resync/rebuild, or a
 *                     batch of rows of check/repair), throttled between
 *                     steps to the recovery bandwidth.
 *   FROZEN            resumed, frozen by message: no step starts;
 *                     sync_action is kept and goes on when unfrozen.
 *   EXIT              the thread ends (the table is destroyed).
 *
 *   r45_sync_init                        -> SUSPENDED
 *   resume    SUSPENDED        -> RUNNING (sync_action pending, or regions
 *                                 out of sync that can be worked) or IDLE
 *             SUSPENDED_FROZEN -> FROZEN
 *   suspend   IDLE, RUNNING    -> SUSPENDED
 *             FROZEN           -> SUSPENDED_FROZEN
 *             then waits for the step in progress: it stops at its next
 *             stripe row and ends its region not in sync (worked again
 *             after the resume: the log's resume restarts its scan).
 *   "frozen"  IDLE, RUNNING, FROZEN -> FROZEN; SUSPENDED* -> SUSPENDED_FROZEN.
 *             A step in progress is finished (at most one region).
 *   "idle"    FROZEN           -> RUNNING (resync/rebuild go on) or IDLE
 *             SUSPENDED_FROZEN -> SUSPENDED
 *             and a check or repair (running or pending) is abandoned:
 *             RUNNING check/repair -> IDLE after its current row.
 *   "check", "repair", "resync", "recover" (resync and recover both
 *             mean: work the regions out of sync, rebuilding the member
 *             being initialised if there is one)
 *             IDLE, FROZEN     -> RUNNING with that action
 *             SUSPENDED*       -> SUSPENDED with that action pending
 *             refused (-EBUSY) while RUNNING, and a check/repair while
 *             a resync/rebuild is pending (md too resyncs first).
 *   thread    RUNNING, the action is complete -> IDLE, with an event
 *             RUNNING, a resync that lost a member, or a rebuild whose
 *             target failed -> IDLE, with an event; the regions it had
 *             not finished stay out of sync (see unprotected below)
 *   teardown  any              -> EXIT
 *
 * THE RULE THAT KEEPS WRITES MOVING (md never blocks a write for longer
 * than the resync of the window it is in).  A region prepared for
 * recovery (writes to it wait in the region hash from then on) is always
 * worked to its end, or abandoned, within the same step: no wait for a
 * state change (freeze, unfreeze, suspend) and no bandwidth throttle
 * ever happens while a region is prepared.  The throttle sleeps between
 * steps, with no region held.  The resync takes at most a quarter of the
 * stripe cache, so a cache shrunk under it still serves the writes.  So
 * a write waits at most for the region it falls in to be synced once.
 */
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/device-mapper.h>
#include <linux/dm-region-hash.h>
#include "r45_array.h"

#define DM_MSG_PREFIX "raid45"

/* how long regions whose writes are done wait before being marked clean */
#define R45_CLEAN_DELAY		(HZ / 20)
/* application I/O this recent makes resync and rebuild yield to it */
#define R45_APP_ACTIVE		(HZ / 10)
/* a throttle wait looks at the bandwidth again this often */
#define R45_THROTTLE_SLICE	(HZ / 10)
/* rows of check/repair per step */
#define R45_SCAN_ROWS		16

enum r45_sync_state {
	R45_SYNC_SUSPENDED,
	R45_SYNC_SUSPENDED_FROZEN,
	R45_SYNC_IDLE,
	R45_SYNC_RUNNING,
	R45_SYNC_FROZEN,
	R45_SYNC_EXIT,
};

/* What a step came to. */
enum r45_step {
	R45_STEP_AGAIN,		/* more to do */
	R45_STEP_DONE,		/* the action is complete */
	R45_STEP_STOPPED,	/* the action cannot go on: it ends */
};

static const char *const action_names[] = {
	[R45_ACT_IDLE] = "idle",
	[R45_ACT_RESYNC] = "resync",
	[R45_ACT_RECOVER] = "recover",
	[R45_ACT_CHECK] = "check",
	[R45_ACT_REPAIR] = "repair",
};

static u64 nr_rows(struct r45_array *a)
{
	return a->geom.dev_sectors >> a->geom.chunk_shift;
}

/* ---- region hash callbacks and the write path ---- */

/*
 * Discards and the region hash: dm_rh_inc_pending() and
 * dm_rh_mark_nosync() pass over discards (dm-raid1 sends a discard to
 * every mirror alike), but here a discard writes zeroes to the members
 * (raid5/stripe.c), which a crash can leave half done like any write: it
 * is counted as a write of the same extent, through a stand-in bio that
 * is never submitted.  Out of line: only discards pay its stack.
 */
static void init_stand_in(struct bio *stand_in, struct bio *discard)
{
	bio_init(stand_in, NULL, NULL, 0, REQ_OP_WRITE);
	stand_in->bi_iter = discard->bi_iter;
}

static noinline_for_stack void inc_discard(struct r45_array *a,
					   struct bio *bio)
{
	struct bio_list list;
	struct bio stand_in;

	init_stand_in(&stand_in, bio);
	bio_list_init(&list);
	bio_list_add(&list, &stand_in);
	dm_rh_inc_pending(a->rh, &list);
}

static noinline_for_stack void mark_discard_nosync(struct r45_array *a,
						   struct bio *bio)
{
	struct bio stand_in;

	init_stand_in(&stand_in, bio);
	dm_rh_mark_nosync(a->rh, &stand_in);
}

/*
 * Writes that leave their region out of sync (let go before user space
 * recorded a member failure: r45_array_write_done) are marked here, in
 * process context under rh_mutex like every other change of region
 * state.  dm_rh_mark_nosync() clears the region's bit in the log, and
 * dm-log's bits and sync count are plain words: beside the region hash's
 * own set_region_sync(1) (update_states, under rh_mutex) on another CPU,
 * either could be lost, and a lost clear calls a region in sync whose
 * parity was never made right.  Then each write is uncounted (dm_rh_dec)
 * and completed again: its completion waited for this.
 */
static void nosync_work(struct work_struct *work)
{
	struct r45_array *a = container_of(work, struct r45_array,
					   nosync_work);
	struct bio_list list;
	struct bvec_iter saved;
	struct bio *bio;

	spin_lock_irq(&a->write_lock);
	list = a->nosync_bios;
	bio_list_init(&a->nosync_bios);
	spin_unlock_irq(&a->write_lock);

	mutex_lock(&a->rh_mutex);
	bio_list_for_each(bio, &list) {
		struct r45_bio_info *info =
			dm_per_bio_data(bio, sizeof(struct r45_bio_info));

		/* the region from the array-relative sector (a write never
		 * crosses a region) */
		saved = bio->bi_iter;
		bio->bi_iter = info->iter;
		if (bio_op(bio) == REQ_OP_DISCARD)
			mark_discard_nosync(a, bio);
		else
			dm_rh_mark_nosync(a->rh, bio);
		bio->bi_iter = saved;
		dm_rh_dec(a->rh, info->region);
		info->counted = false;
	}
	mutex_unlock(&a->rh_mutex);
	while ((bio = bio_list_pop(&list)))
		bio_endio(bio);
}

/*
 * A counted write let go while a failure was unrecorded has finished on
 * the members (any context): its region is marked out of sync and the
 * write uncounted by nosync_work, which then ends the bio again.
 */
void r45_sync_defer_nosync(struct r45_array *a, struct bio *bio)
{
	unsigned long flags;

	spin_lock_irqsave(&a->write_lock, flags);
	bio_list_add(&a->nosync_bios, bio);
	spin_unlock_irqrestore(&a->write_lock, flags);
	queue_work(a->log_wq, &a->nosync_work);
}

/*
 * Count a write in its region (marking the region dirty in the log) or
 * hold it while the region is being recovered.  rh_mutex held.  Returns
 * false if the bio was held.
 */
static bool count_write(struct r45_array *a, struct bio *bio)
{
	struct r45_bio_info *info =
		dm_per_bio_data(bio, sizeof(struct r45_bio_info));
	region_t region = dm_rh_bio_to_region(a->rh, bio);
	struct bio_list list;

	if (dm_rh_get_state(a->rh, region, 1) == DM_RH_RECOVERING) {
		dm_rh_delay(a->rh, bio);
		return false;
	}
	r45_trust_note_write(a, region);
	if (bio_op(bio) == REQ_OP_DISCARD) {
		inc_discard(a, bio);
	} else {
		bio_list_init(&list);
		bio_list_add(&list, bio);
		dm_rh_inc_pending(a->rh, &list);
	}
	info->counted = true;
	info->region = region;
	return true;
}

/*
 * The log could not be flushed: the marks these writes depend on may not
 * be on the log device, so after a crash their regions could be taken
 * for clean with parity never made to match.  A write is never let
 * through unlogged (md's rule: the bitmap is written before the data it
 * covers); they fail, as dm-raid1's do.  Their end_io uncounts them.
 */
static void fail_unlogged(struct r45_array *a, struct bio_list *bios, int r)
{
	unsigned int n = 0;
	struct bio *bio;

	while ((bio = bio_list_pop(bios))) {
		bio_io_error(bio);
		n++;
	}
	DMERR_LIMIT("dirty log flush failed (%d): %u writes failed rather than written unlogged",
		    r, n);
	if (!a->log_failed) {
		a->log_failed = true;
		r45_array_event(a);
	}
}

/*
 * Writes queued for the worker: counted and marked as a batch, the log
 * flushed once (the flush may be I/O, which must not be waited for in
 * the submitter's context), then handed to the stripes.
 *
 * It runs on its own WQ_MEM_RECLAIM queue (log_wq), never on the lanes'
 * queue: r45_make_request() can wait in get_stripe for stripes that only
 * the lanes free, and a lane item queued behind it on a queue down to
 * its rescuer would never run.  Nothing on log_wq waits for log_wq.
 */
static void write_work(struct work_struct *work)
{
	struct r45_array *a = container_of(work, struct r45_array, write_work);
	struct bio_list list, go;
	struct blk_plug plug;
	struct bio *bio;
	int r;

	spin_lock_irq(&a->write_lock);
	list = a->write_queue;
	bio_list_init(&a->write_queue);
	spin_unlock_irq(&a->write_lock);
	if (bio_list_empty(&list))
		return;
	bio_list_init(&go);
	mutex_lock(&a->rh_mutex);
	while ((bio = bio_list_pop(&list)))
		if (count_write(a, bio))
			bio_list_add(&go, bio);
	r = dm_rh_flush(a->rh);
	mutex_unlock(&a->rh_mutex);
	if (r) {
		fail_unlogged(a, &go, r);
		return;
	}
	blk_start_plug(&plug);
	while ((bio = bio_list_pop(&go)))
		r45_make_request(a, bio);
	blk_finish_plug(&plug);
}

static void queue_writes(struct r45_array *a, struct bio_list *bios)
{
	unsigned long flags;

	spin_lock_irqsave(&a->write_lock, flags);
	bio_list_merge(&a->write_queue, bios);
	spin_unlock_irqrestore(&a->write_lock, flags);
	queue_work(a->log_wq, &a->write_work);
}

/*
 * Writes held while their region was recovered may go now.  The list is
 * the region's own (reg->delayed_bios), which dm-region-hash does not
 * empty: after dm_rh_mark_nosync() ended a recovery, the region stays in
 * the hash, and the next dm_rh_delay() would link a new write behind
 * bios handed on here (long completed and freed by then), to be
 * dispatched again.  So it is emptied (dm-raid1 pops each bio).
 */
static void rh_dispatch(void *context, struct bio_list *bios)
{
	queue_writes(context, bios);
	bio_list_init(bios);
}

/* Something changed in the region hash that a waiting sync step wants. */
static void rh_progress(struct r45_array *a)
{
	atomic_inc(&a->rh_events);
	wake_up_all(&a->rh_wait);
}

static void rh_wakeup(void *context)
{
	struct r45_array *a = context;

	/* a short delay lets a region written again stay dirty meanwhile */
	queue_delayed_work(a->log_wq, &a->rh_work, R45_CLEAN_DELAY);
	rh_progress(a);
}

static void rh_wakeup_recovery(void *context)
{
	rh_progress(context);
}

static void update_states(struct r45_array *a)
{
	mutex_lock(&a->rh_mutex);
	dm_rh_update_states(a->rh, 1);
	mutex_unlock(&a->rh_mutex);
	rh_progress(a);
}

/* Clean regions are cleared, recovered ones marked in sync; log flushed. */
static void rh_work(struct work_struct *work)
{
	update_states(container_of(to_delayed_work(work), struct r45_array,
				   rh_work));
}

/* The log's bits to its device; rh_mutex held. */
static void flush_log_locked(struct r45_array *a)
{
	int r;

	lockdep_assert_held(&a->rh_mutex);
	r = dm_rh_flush(a->rh);
	if (r)
		DMERR("dirty log flush failed (%d): regions may be resynced needlessly at the next activation",
		      r);
}

void r45_sync_flush_log(struct r45_array *a)
{
	flush_delayed_work(&a->rh_work);
	mutex_lock(&a->rh_mutex);
	dm_rh_update_states(a->rh, 1);
	flush_log_locked(a);
	mutex_unlock(&a->rh_mutex);
}

/*
 * Before a write reaches the stripes its region must be marked dirty in
 * the log, and the log flushed (md: the bitmap bit is on disk before the
 * data write is issued).  The core log's flush does no I/O: its writes
 * are counted right here.  Any other log's flush writes to its device,
 * so those writes go through write_work.  Returns false if the bio was
 * queued, held or failed; a queued or held one is handed to the stripes
 * later.
 */
bool r45_sync_write_begin(struct r45_array *a, struct bio *bio)
{
	bool go;
	int r;

	if (!a->log_in_memory) {
		struct bio_list list;

		bio_list_init(&list);
		bio_list_add(&list, bio);
		queue_writes(a, &list);
		return false;
	}
	mutex_lock(&a->rh_mutex);
	go = count_write(a, bio);
	r = dm_rh_flush(a->rh);
	mutex_unlock(&a->rh_mutex);
	if (r && go) {
		struct bio_list list;

		bio_list_init(&list);
		bio_list_add(&list, bio);
		fail_unlogged(a, &list, r);
		return false;
	}
	return go;
}

/*
 * A rebuild can run: there is a member to rebuild, it is alive, and the
 * others it is rebuilt from are enough (a rebuild reads every other
 * member: fewer failed than there is parity; with more it would write
 * garbage).
 */
bool r45_sync_rebuild_possible(struct r45_array *a)
{
	int rm = READ_ONCE(a->recover_member);

	return rm >= 0 && !r45_array_member_failed(a, rm) &&
	       r45_array_nr_failed(a) < a->geom.parity_disks;
}

/* ---- state machine helpers (sync_lock) ---- */

/* A state change: the thread and every waiter look again. */
static void state_changed(struct r45_array *a)
{
	lockdep_assert_held(&a->sync_lock);
	a->sync_gen++;
}

static bool sync_suspended(int state)
{
	return state == R45_SYNC_SUSPENDED ||
	       state == R45_SYNC_SUSPENDED_FROZEN;
}

static bool is_scan(int action)
{
	return action == R45_ACT_CHECK || action == R45_ACT_REPAIR;
}

/* A new action: sync_lock held. */
static void start_action(struct r45_array *a, int action)
{
	a->sync_action = action;
	a->action_seq++;
	a->throttle_spent = 0;
	if (is_scan(action)) {
		a->check_row = 0;
		atomic64_set(&a->mismatches, 0);
	}
}

/*
 * The resync or rebuild that the log's out-of-sync regions call for, or
 * IDLE: a resync needs every member (it computes parity from all of
 * them); a rebuild needs rebuild_possible().  Not under sync_lock (the
 * log's count is read without it; it only moves while steps run).
 */
static int needed_action(struct r45_array *a)
{
	/* a read-only table writes nothing: no resync, no rebuild */
	if (a->read_only ||
	    a->log->type->get_sync_count(a->log) >= a->nr_regions)
		return R45_ACT_IDLE;
	if (READ_ONCE(a->recover_member) >= 0)
		return r45_sync_rebuild_possible(a) ? R45_ACT_RECOVER : R45_ACT_IDLE;
	return r45_array_nr_failed(a) ? R45_ACT_IDLE : R45_ACT_RESYNC;
}

/* Leaving a frozen or suspended state: what runs now.  sync_lock held. */
static void go_on(struct r45_array *a, int needed)
{
	if (a->sync_action == R45_ACT_IDLE && needed != R45_ACT_IDLE)
		start_action(a, needed);
	a->sync_state = a->sync_action == R45_ACT_IDLE ? R45_SYNC_IDLE :
							 R45_SYNC_RUNNING;
}

/*
 * A step in progress stops early, between stripe rows, only when the
 * array suspends or goes away, or its action was abandoned ("idle" on a
 * check/repair).  A freeze lets it finish.
 */
static bool step_cut(struct r45_array *a, unsigned int seq)
{
	bool cut;

	spin_lock_irq(&a->sync_lock);
	cut = sync_suspended(a->sync_state) ||
	      a->sync_state == R45_SYNC_EXIT || a->action_seq != seq;
	spin_unlock_irq(&a->sync_lock);
	return cut;
}

static bool sync_stepping(struct r45_array *a)
{
	bool busy;

	spin_lock_irq(&a->sync_lock);
	busy = a->stepping;
	spin_unlock_irq(&a->sync_lock);
	return busy;
}

static bool sync_gen_moved(struct r45_array *a, unsigned int gen)
{
	bool moved;

	spin_lock_irq(&a->sync_lock);
	moved = a->sync_gen != gen;
	spin_unlock_irq(&a->sync_lock);
	return moved;
}

/* ---- the work ---- */

void r45_sync_done(struct r45_array *a, bool ok)
{
	if (!ok)
		atomic_inc(&a->sync_errors);
	atomic_dec(&a->sync_in_flight);
	wake_up_all(&a->sync_wait);
}

/*
 * Sync stripes in flight: the table's #recovery_stripes, but never more
 * than a quarter of the stripe cache, so that the application keeps
 * stripes when the cache is shrunk under a resync (md's resync too
 * leaves most of the cache to normal I/O).
 */
static int sync_window(struct r45_array *a)
{
	unsigned int cache = READ_ONCE(a->max_stripes) / 4;

	return max(min(a->recovery_stripes, cache), 1U);
}

/*
 * Sync every stripe of rows [first, last] with no wait other than for
 * the stripes themselves; false if cut short (suspend, abandoned) or a
 * stripe failed.
 */
static bool sync_rows(struct r45_array *a, u64 first, u64 last, int action,
		      unsigned int seq)
{
	unsigned int chunk = a->geom.chunk_sectors;
	unsigned int off;
	u64 row;

	atomic_set(&a->sync_errors, 0);
	for (row = first; row <= last; row++) {
		if (step_cut(a, seq))
			break;
		for (off = 0; off < chunk; off += R45_STRIPE_SECTORS) {
			wait_event(a->sync_wait,
				   atomic_read(&a->sync_in_flight) <
				   sync_window(a));
			atomic_inc(&a->sync_in_flight);
			r45_stripe_sync(a, (row << a->geom.chunk_shift) + off,
					action);
		}
	}
	wait_event(a->sync_wait, !atomic_read(&a->sync_in_flight));
	return row > last && !atomic_read(&a->sync_errors);
}

static void region_rows(struct r45_array *a, region_t region, u64 *first,
			u64 *last)
{
	u64 row_sectors = (u64)a->geom.chunk_sectors * a->geom.data_disks;
	u64 start = (u64)region * a->region_size;
	u64 end = start + a->region_size - 1;

	*first = div64_u64(start, row_sectors);
	*last = min(div64_u64(end, row_sectors), nr_rows(a) - 1);
}

/*
 * The region made ready for recovery, once its writes in flight are
 * done; NULL when no region is in recovery.  Waits only for those writes,
 * never for a state change.  They complete on their own, except a write
 * whose completion the target holds after a member failure: that one
 * waits for allow_writes or a suspend (presuspend ends it).
 */
static struct dm_region *wait_quiesced(struct r45_array *a)
{
	for (;;) {
		int seen = atomic_read(&a->rh_events);
		struct dm_region *reg = dm_rh_recovery_start(a->rh);

		if (reg || !dm_rh_recovery_in_flight(a->rh))
			return reg;
		/* a suspend that is killed stops waiting (r45_sync_pause) */
		if (fatal_signal_pending(current))
			return NULL;
		/* a region is quiescing: its last write wakes us */
		wait_event_timeout(a->rh_wait,
				   atomic_read(&a->rh_events) != seen, HZ / 20);
	}
}

/*
 * The log's scan reached the end, but regions it handed out came back
 * unsynced (a suspend cut them, or an error).  The core log's resume does
 * nothing but restart the scan: go round again while that helps.  Else
 * stop until the next resume (which restarts any log's scan).
 */
static enum r45_step pass_left_regions(struct r45_array *a, int action)
{
	if (a->log_in_memory && a->sync_retries++ < 3) {
		mutex_lock(&a->rh_mutex);
		a->log->type->resume(a->log);
		mutex_unlock(&a->rh_mutex);
		return R45_STEP_AGAIN;
	}
	DMERR("%s stopped with %llu regions out of sync; they are tried again after the next resume",
	      action_names[action], (unsigned long long)(a->nr_regions -
	      a->log->type->get_sync_count(a->log)));
	return R45_STEP_STOPPED;
}

/*
 * Can this resync or rebuild go on?  A resync computes parity from every
 * member: with one failed it cannot make a region consistent, and it
 * must not call one in sync (md stops its resync on a member failure
 * and keeps the array dirty-degraded).  A rebuild: rebuild_possible().
 */
static bool sync_possible(struct r45_array *a, int action)
{
	if (action == R45_ACT_RECOVER)
		return r45_sync_rebuild_possible(a);
	return !r45_array_nr_failed(a);
}

static const char *stop_reason(struct r45_array *a, int action)
{
	int rm = READ_ONCE(a->recover_member);

	if (action != R45_ACT_RECOVER)
		return "a member failed";
	if (rm < 0 || r45_array_member_failed(a, rm))
		return "the member being rebuilt failed";
	return "too many other members failed to rebuild from";
}

/*
 * One step of resync/rebuild: one region, from prepare to end.  Once
 * prepared (writes to it held) the region is worked at once and ended,
 * in sync or not, before the step returns.
 */
static enum r45_step log_step(struct r45_array *a, int action,
			      unsigned int seq)
{
	struct dm_region *reg;
	u64 first, last;
	bool ok;

	if (a->log->type->get_sync_count(a->log) >= a->nr_regions)
		return R45_STEP_DONE;
	if (!sync_possible(a, action)) {
		DMERR("%s stopped: %s; %llu regions stay out of sync",
		      action_names[action], stop_reason(a, action),
		      (unsigned long long)(a->nr_regions -
		      a->log->type->get_sync_count(a->log)));
		return R45_STEP_STOPPED;
	}
	mutex_lock(&a->rh_mutex);
	dm_rh_recovery_prepare(a->rh);
	mutex_unlock(&a->rh_mutex);
	reg = wait_quiesced(a);
	if (!reg) {
		if (a->log->type->get_sync_count(a->log) >= a->nr_regions)
			return R45_STEP_DONE;
		return pass_left_regions(a, action);
	}
	region_rows(a, dm_rh_get_region_key(reg), &first, &last);
	a->sync_steps++;
	ok = sync_rows(a, first, last, action, seq);
	/* a member lost meanwhile: the region is not made consistent */
	if (ok && !sync_possible(a, action))
		ok = false;
	if (ok)
		a->sync_retries = 0;
	/* a resync made the region consistent: its parity is trusted again */
	if (ok)
		r45_trust_synced(a, dm_rh_get_region_key(reg), action);
	dm_rh_recovery_end(reg, ok);
	/* mark it (not) in sync, let its held writes go, free the slot */
	update_states(a);
	return R45_STEP_AGAIN;
}

/* One step of check/repair: a batch of rows. */
static enum r45_step scan_step(struct r45_array *a, int action,
			       unsigned int seq)
{
	u64 rows = nr_rows(a), first = a->check_row, last;

	if (first >= rows)
		return R45_STEP_DONE;
	last = min(first + R45_SCAN_ROWS - 1, rows - 1);
	if (sync_rows(a, first, last, action, seq)) {
		spin_lock_irq(&a->sync_lock);
		if (a->action_seq == seq)
			a->check_row = last + 1;
		spin_unlock_irq(&a->sync_lock);
	}
	return R45_STEP_AGAIN;
}

/* ---- the thread ---- */

enum r45_next { R45_NEXT_STEP, R45_NEXT_WAIT, R45_NEXT_EXIT };

/*
 * What the thread does next; on R45_NEXT_STEP it is inside a step
 * (stepping) with the action and its seq.  *timeout: how long to wait
 * before looking again (a throttle), or MAX_SCHEDULE_TIMEOUT.
 */
static enum r45_next sync_next(struct r45_array *a, int *action,
			       unsigned int *seq, unsigned int *gen,
			       long *timeout)
{
	enum r45_next next = R45_NEXT_WAIT;

	*timeout = MAX_SCHEDULE_TIMEOUT;
	spin_lock_irq(&a->sync_lock);
	*gen = a->sync_gen;
	if (a->sync_state == R45_SYNC_EXIT) {
		next = R45_NEXT_EXIT;
	} else if (a->sync_state == R45_SYNC_RUNNING) {
		unsigned int bw = READ_ONCE(a->bandwidth);
		unsigned long until = a->throttle_from;

		if (a->throttle_spent && bw < 100)
			until += a->throttle_spent * (100 - bw) / bw;
		if (a->throttle_spent && bw < 100 &&
		    time_before(jiffies, until)) {
			*timeout = min_t(long, until - jiffies,
					 R45_THROTTLE_SLICE);
		} else {
			a->throttle_spent = 0;
			a->stepping = true;
			*action = a->sync_action;
			*seq = a->action_seq;
			next = R45_NEXT_STEP;
		}
	}
	spin_unlock_irq(&a->sync_lock);
	return next;
}

/*
 * A step ended.  If its action is still the current one: remember what
 * the throttle needs, and end the action when it is complete or stopped.
 * Returns true if an event is due.
 */
static bool step_ended(struct r45_array *a, int action, unsigned int seq,
		       enum r45_step res, unsigned long start)
{
	bool event = false;

	spin_lock_irq(&a->sync_lock);
	a->stepping = false;
	if (a->action_seq == seq) {
		/*
		 * While the application does I/O (any since shortly before
		 * the step began: writes held in the region arrive early and
		 * then wait, so "the last R45_APP_ACTIVE" would miss an
		 * application that the step itself blocked), leave it its
		 * share of the time, after the step: no region is held while
		 * the thread waits.
		 */
		if (time_after(READ_ONCE(a->app_io_at),
			       start - R45_APP_ACTIVE)) {
			a->throttle_from = jiffies;
			a->throttle_spent = jiffies - start + 1;
		}
		if (res != R45_STEP_AGAIN) {
			event = res == R45_STEP_STOPPED || a->sync_steps ||
				is_scan(action);
			if (res == R45_STEP_DONE &&
			    (action == R45_ACT_RESYNC ||
			     action == R45_ACT_RECOVER))
				DMINFO("%s finished: %lu of %llu regions worked on",
				       action_names[action], a->sync_steps,
				       (unsigned long long)a->nr_regions);
			else if (res == R45_STEP_DONE && event)
				DMINFO("%s finished", action_names[action]);
			if (res == R45_STEP_DONE && action == R45_ACT_RECOVER) {
				WRITE_ONCE(a->recover_member, -1);
				r45_trust_rebuild_done(a);
			}
			a->sync_action = R45_ACT_IDLE;
			a->action_seq++;
			if (a->sync_state == R45_SYNC_RUNNING)
				a->sync_state = R45_SYNC_IDLE;
		}
	}
	state_changed(a);
	spin_unlock_irq(&a->sync_lock);
	wake_up_all(&a->sync_wait);
	return event;
}

static int sync_thread(void *data)
{
	struct r45_array *a = data;

	unsigned int last_seq = 0;

	for (;;) {
		unsigned int seq = 0, gen;
		int action = R45_ACT_IDLE;
		enum r45_step res;
		unsigned long start;
		long timeout;

		switch (sync_next(a, &action, &seq, &gen, &timeout)) {
		case R45_NEXT_EXIT:
			return 0;
		case R45_NEXT_WAIT:
			wait_event_idle_timeout(a->sync_wait,
						sync_gen_moved(a, gen),
						timeout);
			continue;
		case R45_NEXT_STEP:
			break;
		}
		/* the step counters are the thread's: reset for a new action */
		if (seq != last_seq) {
			a->sync_steps = 0;
			a->sync_retries = 0;
			last_seq = seq;
		}
		start = jiffies;
		if (is_scan(action))
			res = scan_step(a, action, seq);
		else
			res = log_step(a, action, seq);
		if (step_ended(a, action, seq, res, start))
			r45_array_event(a);
	}
}

/* ---- control ---- */

/* The thread leaves its loop at once: only EXIT does that. */
static void stop_thread(struct r45_array *a)
{
	spin_lock_irq(&a->sync_lock);
	a->sync_state = R45_SYNC_EXIT;
	state_changed(a);
	spin_unlock_irq(&a->sync_lock);
	wake_up_all(&a->sync_wait);
	wake_up_all(&a->rh_wait);
	kthread_stop(a->sync_thread);
	a->sync_thread = NULL;
}

/*
 * The log becomes the array's (its region hash destroys it) only when
 * this returns 0; on an error nothing of it was touched and the caller
 * still owns it, and everything this created is gone again.
 */
int r45_sync_init(struct r45_array *a, struct dm_dirty_log *log,
		  sector_t region_size, region_t nr_regions, int recover_member)
{
	struct dm_region_hash *rh;
	int r;

	mutex_init(&a->rh_mutex);
	INIT_DELAYED_WORK(&a->rh_work, rh_work);
	init_waitqueue_head(&a->rh_wait);
	INIT_WORK(&a->write_work, write_work);
	INIT_WORK(&a->nosync_work, nosync_work);
	spin_lock_init(&a->write_lock);
	bio_list_init(&a->write_queue);
	bio_list_init(&a->nosync_bios);
	init_waitqueue_head(&a->sync_wait);
	spin_lock_init(&a->sync_lock);
	a->sync_state = R45_SYNC_SUSPENDED;	/* until the first resume */
	a->sync_action = R45_ACT_IDLE;
	a->recover_member = recover_member;
	a->app_io_at = jiffies - R45_APP_ACTIVE - 1;	/* none yet */
	a->region_size = region_size;
	a->nr_regions = nr_regions;
	a->log_in_memory = !strcmp(log->type->name, "core");
	r = r45_trust_init(a);
	if (r)
		return r;

	/* unbound: 7.x warns about a queue that is neither it nor per-CPU */
	a->log_wq = alloc_workqueue("raid45_log", WQ_UNBOUND | WQ_MEM_RECLAIM,
				    0);
	if (!a->log_wq) {
		r = -ENOMEM;
		goto fail_maps;
	}
	/* it waits in SUSPENDED: it touches no region hash before a resume */
	a->sync_thread = kthread_run(sync_thread, a, "raid45_sync");
	if (IS_ERR(a->sync_thread)) {
		r = PTR_ERR(a->sync_thread);
		a->sync_thread = NULL;
		goto fail_wq;
	}
	rh = dm_region_hash_create(a, rh_dispatch, rh_wakeup,
				   rh_wakeup_recovery, 0, 1, log,
				   region_size, nr_regions);
	if (IS_ERR(rh)) {
		r = PTR_ERR(rh);
		goto fail_thread;
	}
	a->rh = rh;
	a->log = log;
	return 0;
fail_thread:
	stop_thread(a);
fail_wq:
	destroy_workqueue(a->log_wq);
	a->log_wq = NULL;
fail_maps:
	r45_trust_exit(a);
	return r;
}

void r45_sync_exit(struct r45_array *a)
{
	if (a->sync_thread)
		stop_thread(a);
	if (a->rh) {
		flush_work(&a->write_work);
		/* no bio waits for nosync_work at teardown: dm waited for all */
		flush_work(&a->nosync_work);
		/* its update is done right here */
		cancel_delayed_work_sync(&a->rh_work);
		dm_rh_update_states(a->rh, 1);
		dm_region_hash_destroy(a->rh);	/* and the log */
		a->rh = NULL;
		a->log = NULL;
	}
	if (a->log_wq) {
		destroy_workqueue(a->log_wq);
		a->log_wq = NULL;
	}
	r45_trust_exit(a);
}

/*
 * With no step running, a region may still have been made ready for
 * recovery without being started (not by us: a step always ends its
 * own): end it unworked, once quiet, so that it stays out of sync and
 * its held writes go; the recovery gate cannot close while it is
 * pending.
 */
static void abandon_recovery(struct r45_array *a)
{
	struct dm_region *reg;

	while ((reg = wait_quiesced(a))) {
		dm_rh_recovery_end(reg, 0);
		update_states(a);
	}
}

/*
 * Suspend: no step starts, the one in progress stops at its next row
 * (its region ended not in sync), and the region hash's recovery gate
 * closes.  The step's stripes wait for member I/O: a member that stops
 * answering (a path lost under queue_if_no_path, a suspended member
 * device) would hold the suspending task forever, and dm's suspend lock
 * with it.  So the waits end on a fatal signal: -EINTR, with the step
 * still going (and the gate still open); the caller lets the array run
 * on (r45_array_suspend).  Only waits with nothing of the suspend done
 * yet are cut: dm_rh_stop_recovery() cannot be, and the log is not
 * flushed once a signal is pending (the member flushes a disk log asks
 * for would wait for that member too).
 */
int r45_sync_pause(struct r45_array *a)
{
	spin_lock_irq(&a->sync_lock);
	if (a->sync_state == R45_SYNC_FROZEN)
		a->sync_state = R45_SYNC_SUSPENDED_FROZEN;
	else if (!sync_suspended(a->sync_state))
		a->sync_state = R45_SYNC_SUSPENDED;
	state_changed(a);
	spin_unlock_irq(&a->sync_lock);
	wake_up_all(&a->sync_wait);
	if (wait_event_killable(a->sync_wait, !sync_stepping(a)))
		return -EINTR;
	if (a->recovery_open) {
		abandon_recovery(a);
		if (fatal_signal_pending(current))
			return -EINTR;
		r45_sync_flush_log(a);
		dm_rh_stop_recovery(a->rh);
		a->recovery_open = false;
	}
	return 0;
}

/*
 * Resume: the gate opens, and a resync or rebuild that stopped short
 * goes on (the log's own resume restarted its scan).
 */
void r45_sync_unpause(struct r45_array *a)
{
	int needed = needed_action(a);

	if (!a->recovery_open) {
		dm_rh_start_recovery(a->rh);
		a->recovery_open = true;
	}
	spin_lock_irq(&a->sync_lock);
	if (a->sync_state == R45_SYNC_SUSPENDED_FROZEN)
		a->sync_state = R45_SYNC_FROZEN;
	else if (a->sync_state == R45_SYNC_SUSPENDED)
		go_on(a, needed);
	state_changed(a);
	spin_unlock_irq(&a->sync_lock);
	wake_up_all(&a->sync_wait);
}

/* md's sync_action words: check repair idle frozen resync recover */
int r45_sync_request(struct r45_array *a, const char *word)
{
	int needed = needed_action(a), want, r = 0;
	bool suspended;

	if (!strcmp(word, "check"))
		want = R45_ACT_CHECK;
	else if (!strcmp(word, "repair"))
		want = R45_ACT_REPAIR;
	else if (!strcmp(word, "resync") || !strcmp(word, "recover"))
		want = READ_ONCE(a->recover_member) >= 0 ? R45_ACT_RECOVER :
							   R45_ACT_RESYNC;
	else if (!strcmp(word, "idle") || !strcmp(word, "frozen"))
		want = -1;
	else
		return -EINVAL;
	/* even check writes: it repairs read errors (handle_sync) */
	if (want >= 0 && a->read_only)
		return -EROFS;

	spin_lock_irq(&a->sync_lock);
	suspended = sync_suspended(a->sync_state);
	if (a->sync_state == R45_SYNC_EXIT) {
		r = -ENODEV;
	} else if (!strcmp(word, "frozen")) {
		a->sync_state = suspended ? R45_SYNC_SUSPENDED_FROZEN :
					    R45_SYNC_FROZEN;
	} else if (!strcmp(word, "idle")) {
		/* an interrupted or waiting check/repair is abandoned */
		if (is_scan(a->sync_action)) {
			a->sync_action = R45_ACT_IDLE;
			a->action_seq++;
		}
		if (suspended)
			a->sync_state = R45_SYNC_SUSPENDED;
		else
			go_on(a, needed);
	} else if (a->sync_state == R45_SYNC_RUNNING ||
		   (is_scan(want) && a->sync_action != R45_ACT_IDLE &&
		    !is_scan(a->sync_action))) {
		r = -EBUSY;
	} else {
		if (want != a->sync_action || is_scan(want))
			start_action(a, want);
		if (suspended)
			a->sync_state = R45_SYNC_SUSPENDED;
		else
			go_on(a, needed);
	}
	state_changed(a);
	spin_unlock_irq(&a->sync_lock);
	wake_up_all(&a->sync_wait);
	return r;
}

/*
 * The action word of the status and, with it (under the same lock, so
 * the two agree), the action's progress in array sectors: *done of
 * *total, *total 0 when no action runs or waits (idle, or frozen with
 * none kept).  Check and repair: the rows scanned (a->check_row).
 * Resync and recover: the regions the log calls in sync, so the count
 * starts where the log stands (a resync of a few dirty regions starts
 * near the end): @in_sync is the count the caller printed as
 * <in_sync>/<regions>, read once, so that one status line agrees with
 * itself.  A frozen or suspended action shows where it stands and goes
 * on from there.
 */
const char *r45_sync_status(struct r45_array *a, u64 in_sync, u64 *done,
			    u64 *total)
{
	u64 row_sectors = (u64)a->geom.chunk_sectors * a->geom.data_disks;
	u64 all = nr_rows(a) * row_sectors;
	const char *name;
	int action;
	u64 row;

	spin_lock_irq(&a->sync_lock);
	action = a->sync_action;
	row = a->check_row;
	if (a->sync_state == R45_SYNC_FROZEN ||
	    a->sync_state == R45_SYNC_SUSPENDED_FROZEN)
		name = "frozen";
	else
		name = action_names[action];
	spin_unlock_irq(&a->sync_lock);

	*done = 0;
	*total = 0;
	if (action == R45_ACT_IDLE)
		return name;
	*total = all;
	if (is_scan(action))
		*done = min(row * row_sectors, all);
	else
		*done = min_t(u64, in_sync * a->region_size, all);
	return name;
}

const char *r45_sync_action_name(struct r45_array *a)
{
	const char *name;

	spin_lock_irq(&a->sync_lock);
	if (a->sync_state == R45_SYNC_FROZEN ||
	    a->sync_state == R45_SYNC_SUSPENDED_FROZEN)
		name = "frozen";
	else
		name = action_names[a->sync_action];
	spin_unlock_irq(&a->sync_lock);
	return name;
}
