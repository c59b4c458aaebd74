// SPDX-License-Identifier: GPL-2.0
/*
 * The sync driver and dirty-region logging.
 *
 * Writes are counted per region in the kernel's region hash (which marks
 * the region dirty in the dm dirty log, flushed before the write goes to
 * any member, and clean again once its writes are done).  A kernel thread
 * walks the regions the log reports out of sync (resync, or rebuild of
 * one member) through the region hash's recovery interface, which holds
 * writes to the region being recovered, and the whole array for
 * check/repair.  The work on each stripe is done by the stripe state
 * machine; this file only decides which stripes, how fast and when.
 */
#include <linux/kthread.h>
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

/* ---- region hash callbacks ---- */

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
	bio_list_init(&list);
	bio_list_add(&list, bio);
	dm_rh_inc_pending(a->rh, &list);
	info->counted = true;
	info->region = region;
	return true;
}

/*
 * Writes queued for the worker: counted and marked as a batch, the log
 * flushed once (the flush may be I/O, which must not be waited for in
 * the submitter's context), then handed to the stripes.
 */
static void write_work(struct work_struct *work)
{
	struct r45_array *a = container_of(work, struct r45_array, write_work);
	struct bio_list list, go;
	struct blk_plug plug;
	struct bio *bio;

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
	dm_rh_flush(a->rh);
	mutex_unlock(&a->rh_mutex);
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
	queue_work(a->submit_wq, &a->write_work);
}

/* Writes held while their region was recovered may go now. */
static void rh_dispatch(void *context, struct bio_list *bios)
{
	queue_writes(context, bios);
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
	queue_delayed_work(a->wq, &a->rh_work, R45_CLEAN_DELAY);
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

void r45_sync_flush_log(struct r45_array *a)
{
	flush_delayed_work(&a->rh_work);
	mutex_lock(&a->rh_mutex);
	dm_rh_update_states(a->rh, 1);
	dm_rh_flush(a->rh);
	mutex_unlock(&a->rh_mutex);
}

/*
 * Before a write reaches the stripes its region must be marked dirty in
 * the log, and the log flushed.  The core log's flush does no I/O: its
 * writes are counted right here.  Any other log's flush writes to its
 * device, so those writes go through write_work.  Returns false if the
 * bio was queued or held; it is handed to the stripes later.
 */
bool r45_sync_write_begin(struct r45_array *a, struct bio *bio)
{
	bool go;

	if (!a->log_in_memory) {
		struct bio_list list;

		bio_list_init(&list);
		bio_list_add(&list, bio);
		queue_writes(a, &list);
		return false;
	}
	mutex_lock(&a->rh_mutex);
	go = count_write(a, bio);
	dm_rh_flush(a->rh);
	mutex_unlock(&a->rh_mutex);
	return go;
}

/*
 * Is stripe row @row consistent: parity matches data on every stripe of
 * it and, during a rebuild, the member being rebuilt holds its blocks?
 * True only when every region overlapping the row is in sync in the log
 * (a row can be shared by two regions; a write counted in either leaves
 * it dirty).  Any context: the log's in_sync with can_block = 0 only
 * tests its in-memory sync bits.
 */
bool r45_sync_row_in_sync(struct r45_array *a, u64 row)
{
	u64 row_sectors = (u64)a->geom.chunk_sectors * a->geom.data_disks;
	u64 first = row * row_sectors, last = first + row_sectors - 1;
	region_t r, rlast;

	if (!a->log)
		return true;
	r = div64_u64(first, a->region_size);
	rlast = min_t(u64, div64_u64(last, a->region_size), a->nr_regions - 1);
	for (; r <= rlast; r++)
		if (a->log->type->in_sync(a->log, r, 0) != 1)
			return false;
	return true;
}

/* ---- the thread ---- */

void r45_sync_done(struct r45_array *a, bool ok)
{
	if (!ok)
		atomic_inc(&a->sync_errors);
	if (atomic_dec_and_test(&a->sync_in_flight) ||
	    atomic_read(&a->sync_in_flight) < (int)a->recovery_stripes)
		wake_up_all(&a->sync_wait);
}

/* A step in progress stops early only for a pause (suspend) or exit. */
static bool sync_interrupted(struct r45_array *a)
{
	return kthread_should_stop() || READ_ONCE(a->paused);
}

/* Between steps the thread also stops for a freeze. */
static bool sync_stop(struct r45_array *a)
{
	return sync_interrupted(a) || READ_ONCE(a->frozen);
}

/* Sync every stripe of rows [first, last]; false if interrupted/failed. */
static bool sync_rows(struct r45_array *a, u64 first, u64 last, int action)
{
	unsigned int chunk = a->geom.chunk_sectors;
	u64 row;
	unsigned int off;
	unsigned long start = jiffies;

	atomic_set(&a->sync_errors, 0);
	for (row = first; row <= last; row++) {
		for (off = 0; off < chunk; off += R45_STRIPE_SECTORS) {
			wait_event(a->sync_wait,
				   atomic_read(&a->sync_in_flight) <
				   (int)a->recovery_stripes);
			atomic_inc(&a->sync_in_flight);
			r45_sync_stripe(a, (row << a->geom.chunk_shift) + off,
					action);
		}
		if (sync_interrupted(a))
			break;
	}
	wait_event(a->sync_wait, !atomic_read(&a->sync_in_flight));

	/*
	 * While the application does I/O (any within R45_APP_ACTIVE), leave
	 * it its share of the time; a pause or freeze cuts the wait short.
	 */
	if (a->bandwidth < 100 &&
	    time_before(jiffies, READ_ONCE(a->app_io_at) + R45_APP_ACTIVE)) {
		unsigned long spent = jiffies - start + 1;

		wait_event_timeout(a->sync_wait, sync_stop(a),
				   spent * (100 - a->bandwidth) / a->bandwidth);
	}
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

/* The action is complete: an event, unless there was nothing to do. */
static void finish_action(struct r45_array *a)
{
	bool worked = a->sync_steps || a->action == R45_ACT_CHECK ||
		      a->action == R45_ACT_REPAIR;

	if (a->action == R45_ACT_RESYNC || a->action == R45_ACT_RECOVER)
		DMINFO("%s finished: %lu of %llu regions worked on",
		       action_names[a->action], a->sync_steps,
		       (unsigned long long)a->nr_regions);
	else if (worked)
		DMINFO("%s finished", action_names[a->action]);
	if (a->action == R45_ACT_RECOVER)
		WRITE_ONCE(a->recover_member, -1);
	a->action = R45_ACT_IDLE;
	a->sync_steps = 0;
	if (worked)
		r45_array_event(a);
}

/*
 * The log's scan reached the end, but regions it handed out came back
 * unsynced (a pause cut them, or an error).  The core log's resume does
 * nothing but restart the scan: go round again while that helps.  Else
 * stop until the next resume (which restarts any log's scan).
 */
static bool pass_left_regions(struct r45_array *a)
{
	if (a->log_in_memory && a->sync_retries++ < 3) {
		a->log->type->resume(a->log);
		return true;
	}
	DMERR("%s stopped with %llu regions out of sync; they are tried again after the next resume",
	      action_names[a->action], (unsigned long long)(a->nr_regions -
	      a->log->type->get_sync_count(a->log)));
	a->action = R45_ACT_IDLE;
	a->sync_steps = 0;
	a->sync_retries = 0;
	r45_array_event(a);
	return true;
}

/* One step of resync/recover: one region.  Returns false when done. */
static bool log_step(struct r45_array *a)
{
	int seen = atomic_read(&a->rh_events);
	struct dm_region *reg;
	u64 first, last;
	bool ok;

	mutex_lock(&a->rh_mutex);
	dm_rh_recovery_prepare(a->rh);
	mutex_unlock(&a->rh_mutex);
	reg = dm_rh_recovery_start(a->rh);
	if (!reg) {
		if (dm_rh_recovery_in_flight(a->rh)) {
			/* a region is quiescing: its last write wakes us */
			wait_event_timeout(a->rh_wait, sync_stop(a) ||
					   atomic_read(&a->rh_events) != seen,
					   HZ / 20);
			return true;
		}
		if (a->log->type->get_sync_count(a->log) >= a->nr_regions)
			return false;
		return pass_left_regions(a);
	}
	region_rows(a, dm_rh_get_region_key(reg), &first, &last);
	a->sync_steps++;
	ok = sync_rows(a, first, last, a->action);
	if (ok)
		a->sync_retries = 0;
	if (ok && a->action == R45_ACT_RECOVER &&
	    last + 1 > READ_ONCE(a->recover_row))
		WRITE_ONCE(a->recover_row, last + 1);
	dm_rh_recovery_end(reg, ok);
	/* mark it in sync and free the recovery slot for the next region */
	update_states(a);
	return true;
}

/* One step of check/repair: a batch of rows.  False when done. */
static bool scan_step(struct r45_array *a)
{
	u64 rows = nr_rows(a), last;

	if (a->check_row >= rows)
		return false;
	last = min(a->check_row + 15, rows - 1);
	if (sync_rows(a, a->check_row, last, a->action))
		a->check_row = last + 1;
	return true;
}

static bool sync_wanted(struct r45_array *a)
{
	return kthread_should_stop() ||
	       (!READ_ONCE(a->paused) && !READ_ONCE(a->frozen) &&
		(a->action != R45_ACT_IDLE ||
		 READ_ONCE(a->requested) != R45_ACT_IDLE));
}

static int sync_thread(void *data)
{
	struct r45_array *a = data;

	while (!kthread_should_stop()) {
		bool more;

		wait_event_interruptible(a->sync_wait, sync_wanted(a));
		if (kthread_should_stop())
			break;
		/* busy first, then look: a pause sees one or the other */
		WRITE_ONCE(a->sync_busy, true);
		smp_mb();
		if (READ_ONCE(a->paused) || READ_ONCE(a->frozen)) {
			WRITE_ONCE(a->sync_busy, false);
			wake_up_all(&a->sync_wait);
			continue;
		}
		if (a->action == R45_ACT_IDLE) {
			a->action = xchg(&a->requested, R45_ACT_IDLE);
			a->check_row = 0;
			if (a->action == R45_ACT_CHECK ||
			    a->action == R45_ACT_REPAIR)
				atomic64_set(&a->mismatches, 0);
		}
		if (a->action == R45_ACT_CHECK || a->action == R45_ACT_REPAIR)
			more = scan_step(a);
		else if (a->action != R45_ACT_IDLE)
			more = log_step(a);
		else
			more = true;
		if (!more)
			finish_action(a);
		WRITE_ONCE(a->sync_busy, false);
		wake_up_all(&a->sync_wait);
	}
	return 0;
}

/* ---- control ---- */

int r45_sync_init(struct r45_array *a, struct dm_dirty_log *log,
		  sector_t region_size, region_t nr_regions, int recover_member)
{
	mutex_init(&a->rh_mutex);
	INIT_DELAYED_WORK(&a->rh_work, rh_work);
	init_waitqueue_head(&a->rh_wait);
	INIT_WORK(&a->write_work, write_work);
	spin_lock_init(&a->write_lock);
	bio_list_init(&a->write_queue);
	init_waitqueue_head(&a->sync_wait);
	a->recover_member = recover_member;
	a->recover_row = 0;
	a->app_io_at = jiffies - R45_APP_ACTIVE - 1;	/* none yet */
	a->region_size = region_size;
	a->nr_regions = nr_regions;
	a->rh = dm_region_hash_create(a, rh_dispatch, rh_wakeup,
				      rh_wakeup_recovery, 0, 1, log,
				      region_size, nr_regions);
	if (IS_ERR(a->rh)) {
		int r = PTR_ERR(a->rh);

		a->rh = NULL;
		return r;
	}
	a->log = log;
	a->log_in_memory = !strcmp(log->type->name, "core");
	/* out-of-sync regions are worked off from the start */
	a->action = recover_member >= 0 ? R45_ACT_RECOVER : R45_ACT_RESYNC;
	a->paused = true;	/* until the first resume */
	a->sync_thread = kthread_run(sync_thread, a, "raid45_sync");
	if (IS_ERR(a->sync_thread)) {
		int r = PTR_ERR(a->sync_thread);

		a->sync_thread = NULL;
		dm_region_hash_destroy(a->rh);
		a->rh = NULL;
		a->log = NULL;
		return r;
	}
	return 0;
}

void r45_sync_exit(struct r45_array *a)
{
	if (a->sync_thread) {
		kthread_stop(a->sync_thread);
		a->sync_thread = NULL;
	}
	if (a->rh) {
		flush_work(&a->write_work);
		flush_delayed_work(&a->rh_work);
		dm_rh_update_states(a->rh, 1);
		dm_region_hash_destroy(a->rh);	/* and the log */
		a->rh = NULL;
		a->log = NULL;
	}
}

/*
 * A reload of the same array: what the old one had synced or rebuilt
 * stays so, and a rebuild continues at its row.  Both arrays are
 * suspended: neither sync thread is in a step.
 */
void r45_sync_takeover(struct r45_array *a, struct r45_array *old)
{
	struct dm_dirty_log *log = a->log, *olog = old->log;
	region_t r;

	if (a->nr_regions != old->nr_regions ||
	    a->region_size != old->region_size)
		return;
	for (r = 0; r < a->nr_regions; r++)
		if (!log->type->in_sync(log, r, 1) &&
		    olog->type->in_sync(olog, r, 1))
			log->type->set_region_sync(log, r, 1);
	a->recover_member = old->recover_member;
	a->recover_row = old->recover_row;
	if (a->recover_member < 0 && a->action == R45_ACT_RECOVER)
		a->action = R45_ACT_RESYNC;
	atomic64_set(&a->mismatches, atomic64_read(&old->mismatches));
}

/*
 * With the thread idle, a region may still have been made ready for
 * recovery (its writes quiescing) without being started: end it unworked,
 * once quiet, so that it stays out of sync and its held writes go; the
 * recovery gate cannot close while it is pending.
 */
static void abandon_recovery(struct r45_array *a)
{
	while (dm_rh_recovery_in_flight(a->rh)) {
		int seen = atomic_read(&a->rh_events);
		struct dm_region *reg = dm_rh_recovery_start(a->rh);

		if (reg) {
			dm_rh_recovery_end(reg, 0);
			update_states(a);
			continue;
		}
		wait_event_timeout(a->rh_wait,
				   atomic_read(&a->rh_events) != seen, HZ / 20);
	}
}

/*
 * Stop between steps (a region in recovery is ended, not in sync) and
 * close the region hash's recovery gate.
 */
void r45_sync_pause(struct r45_array *a)
{
	WRITE_ONCE(a->paused, true);
	smp_mb();
	wake_up_all(&a->sync_wait);
	wake_up_all(&a->rh_wait);
	wait_event(a->sync_wait, !READ_ONCE(a->sync_busy));
	if (a->recovery_open) {
		abandon_recovery(a);
		r45_sync_flush_log(a);
		dm_rh_stop_recovery(a->rh);
		a->recovery_open = false;
	}
}

void r45_sync_unpause(struct r45_array *a)
{
	/*
	 * A resync or rebuild that stopped short goes on (the log's scan
	 * was restarted by its resume).
	 */
	if (a->action == R45_ACT_IDLE &&
	    a->log->type->get_sync_count(a->log) < a->nr_regions)
		a->action = a->recover_member >= 0 ? R45_ACT_RECOVER :
						     R45_ACT_RESYNC;
	if (!a->recovery_open) {
		dm_rh_start_recovery(a->rh);
		a->recovery_open = true;
	}
	WRITE_ONCE(a->paused, false);
	wake_up_all(&a->sync_wait);
}

/* md's sync_action words: check repair idle frozen resync recover */
int r45_sync_request(struct r45_array *a, const char *action)
{
	if (!strcmp(action, "frozen")) {
		WRITE_ONCE(a->frozen, true);
		wake_up_all(&a->sync_wait);	/* cuts a throttle wait */
		return 0;
	}
	if (!strcmp(action, "idle")) {
		WRITE_ONCE(a->frozen, false);
		/* an interrupted check/repair is abandoned */
		if (a->action == R45_ACT_CHECK || a->action == R45_ACT_REPAIR) {
			WRITE_ONCE(a->frozen, true);
			wait_event(a->sync_wait, !READ_ONCE(a->sync_busy));
			a->action = R45_ACT_IDLE;
			WRITE_ONCE(a->frozen, false);
		}
		wake_up_all(&a->sync_wait);
		return 0;
	}
	if (a->action != R45_ACT_IDLE && !READ_ONCE(a->frozen))
		return -EBUSY;
	if (!strcmp(action, "check"))
		WRITE_ONCE(a->requested, R45_ACT_CHECK);
	else if (!strcmp(action, "repair"))
		WRITE_ONCE(a->requested, R45_ACT_REPAIR);
	else if (!strcmp(action, "resync") || !strcmp(action, "recover"))
		WRITE_ONCE(a->requested, READ_ONCE(a->recover_member) >= 0 ?
			   R45_ACT_RECOVER : R45_ACT_RESYNC);
	else
		return -EINVAL;
	WRITE_ONCE(a->frozen, false);
	wake_up_all(&a->sync_wait);
	return 0;
}

const char *r45_sync_action_name(struct r45_array *a)
{
	if (READ_ONCE(a->frozen))
		return "frozen";
	return action_names[a->action];
}
