// SPDX-License-Identifier: GPL-2.0
/*
 * Region trust: the one owner of "may a block of this region be computed
 * from its parity?" (issue 31).  Every path that reconstructs, rebuilds,
 * re-adds, replays or reloads asks here, and tells what it did; no other
 * file sets these bits.  The dirty log (dm-log, via the region hash) owns
 * clean/dirty for writes in flight; what it calls out of sync is read
 * here together with the trust bits below.
 *
 * THE STATES OF A REGION (per region; X is a member)
 *
 *   IN_SYNC        the log calls it in sync: parity matches the data on
 *                  every row (and a member being rebuilt holds its
 *                  blocks there).  Trusted.
 *   DIRTY          out of sync in the log, parity trusted: written while
 *                  the array was whole, a first sync, a region that a
 *                  write left dirty at a clean shutdown of the writes.
 *                  A block may be computed from parity (md's rule: the
 *                  blocks a write did not touch are as they were).
 *   TORN           out of sync and untrusted (a->untrusted): a crash may
 *                  have left a stripe with new data on some members and
 *                  old on others, or a partial parity log entry could
 *                  not be replayed.  No block is computed from its
 *                  parity: reads that need one fail with EIO (counted in
 *                  unsafe_reads), a rebuild leaves it out of sync.
 *   DEGRADED(X)    written while X was failed (a->written_degraded):
 *                  X's blocks there are stale if X comes back (readd).
 *   REBUILD(X)     out of sync with X being rebuilt (a->recover_member):
 *                  X holds its blocks only where the log says in sync.
 *
 *   TORN and DEGRADED are bits beside the log's; REBUILD is the log's
 *   out-of-sync bit with recover_member set.  The transitions:
 *
 *   activation, disk log dirty   DIRTY -> TORN        r45_trust_activate
 *     (the log unreadable: every region TORN, and dm-log calls every
 *      region out of sync; written for another region count: every
 *      region out of sync at the first resume, r45_trust_first_resume,
 *      and TORN if the old bits held a dirty one; both logged)
 *   PPL entry not replayed       any -> TORN          r45_trust_untrust
 *   resync made it consistent    TORN|DIRTY -> IN_SYNC r45_trust_synced
 *   rebuild of X made it right   REBUILD(X) -> IN_SYNC (the region hash)
 *     only from a trusted region, or one the table forced
 *     (start_dirty_degraded at an activation that needed it):
 *     r45_trust_row(rebuild = true); a forced RAID5 rebuild leaves the
 *     stripe consistent (TORN cleared), RAID6's Q is not rewritten
 *   rebuild ended                the force ends too   r45_trust_rebuild_done
 *   write while a member failed  any -> +DEGRADED     r45_trust_note_write
 *   readd X                      DEGRADED -> REBUILD(X) r45_trust_readd
 *     refused while any region is TORN, or out of sync for another
 *     reason than DEGRADED: X's good blocks would be taken from parity
 *   dev_to_init X                every region -> REBUILD(X)
 *                                                     r45_trust_rebuild_all
 *   reload                       the predecessor's states carried over
 *     whole, region by region, also to another region size or count
 *     (r45_trust_takeover): a new region takes the worst state of the
 *     old regions it overlaps
 *   reload to a larger length    space added -> DIRTY (out of sync)
 *     (issue 33), unless the log says nosync; the old regions dirty on
 *     the log device first (r45_trust_before_grow)
 *   fresh activation, disk log   last region -> DIRTY (a growth inside
 *     it may have been recorded and not taken over: r45_trust_first_resume)
 */
#include <linux/device-mapper.h>
#include <linux/dm-region-hash.h>
#include "r45_array.h"

#define DM_MSG_PREFIX "raid45"

int r45_trust_init(struct r45_array *a)
{
	a->written_degraded = kvcalloc(BITS_TO_LONGS(a->nr_regions),
				       sizeof(unsigned long), GFP_KERNEL);
	a->untrusted = kvcalloc(BITS_TO_LONGS(a->nr_regions),
				sizeof(unsigned long), GFP_KERNEL);
	if (!a->written_degraded || !a->untrusted) {
		r45_trust_exit(a);
		return -ENOMEM;
	}
	return 0;
}

void r45_trust_exit(struct r45_array *a)
{
	kvfree(a->written_degraded);
	a->written_degraded = NULL;
	kvfree(a->untrusted);
	a->untrusted = NULL;
}

/* The regions that row @row overlaps (a row can be shared by two). */
static void row_regions(struct r45_array *a, u64 row, region_t *r,
			region_t *rlast)
{
	u64 row_sectors = (u64)a->geom.chunk_sectors * a->geom.data_disks;
	u64 first = row * row_sectors, last = first + row_sectors - 1;

	*r = div64_u64(first, a->region_size);
	*rlast = min_t(u64, div64_u64(last, a->region_size), a->nr_regions - 1);
}

/*
 * Is stripe row @row IN_SYNC: parity matches data on every stripe of it
 * and, during a rebuild, the member being rebuilt holds its blocks?
 * True only when every region overlapping the row is in sync in the log
 * (a write counted in either leaves it dirty).  Any context: the log's
 * in_sync with can_block = 0 only tests its in-memory sync bits.
 */
bool r45_trust_row_in_sync(struct r45_array *a, u64 row)
{
	region_t r, rlast;

	if (!a->log)
		return true;
	row_regions(a, row, &r, &rlast);
	for (; r <= rlast; r++)
		if (a->log->type->in_sync(a->log, r, 0) != 1)
			return false;
	return true;
}

/*
 * May a block of stripe row @row be computed from its parity?  Not while
 * a region overlapping the row is TORN: what parity gives for a lost or
 * unreadable block would be wrong, silently.  @rebuild: asked by a
 * rebuild (dev_to_init, readd), which may go on there only when the
 * table forced it knowingly (start_dirty_degraded at the activation that
 * found the regions torn): issue 31, finding 1.  Any context.
 */
bool r45_trust_row(struct r45_array *a, u64 row, bool rebuild)
{
	region_t r, rlast;

	if (rebuild && READ_ONCE(a->rebuild_forced))
		return true;
	row_regions(a, row, &r, &rlast);
	for (; r <= rlast; r++)
		if (test_bit(r, a->untrusted) &&
		    a->log->type->in_sync(a->log, r, 0) != 1)
			return false;
	return true;
}

/* Regions [@r, @last] out of sync in the log, in memory; rh_mutex held. */
static void put_out_of_sync(struct r45_array *a, region_t r, region_t last)
{
	struct dm_dirty_log *log = a->log;

	lockdep_assert_held(&a->rh_mutex);
	for (; r <= last && r < a->nr_regions; r++) {
		log->type->mark_region(log, r);
		log->type->set_region_sync(log, r, 0);
	}
}

/* The log's bits to its device; rh_mutex held (it serialises the log). */
static void flush_or_say(struct r45_array *a, const char *what)
{
	int r;

	lockdep_assert_held(&a->rh_mutex);
	r = a->log->type->flush(a->log);
	if (r)
		DMERR("cannot write the dirty log (%d): %s", r, what);
}

/*
 * Array sectors [@first, @last) may hold torn stripes (a partial parity
 * log entry that could not be replayed): their regions become TORN, out
 * of sync in the log too (its clean bit cleared, flushed), so that no
 * block of them is computed from parity with any log (a core "nosync"
 * log included) until a resync has made them consistent, and a crash
 * before that does not forget them.  Process context, before any I/O
 * (the table's first resume); the engine's r45_engine_ops.untrust.
 */
void r45_trust_untrust(struct r45_array *a, sector_t first, sector_t last)
{
	region_t r, rlast;

	if (first >= last)
		return;
	r = div64_u64(first, a->region_size);
	rlast = div64_u64(last - 1, a->region_size);
	mutex_lock(&a->rh_mutex);
	for (; r <= rlast && r < a->nr_regions; r++)
		set_bit(r, a->untrusted);
	put_out_of_sync(a, div64_u64(first, a->region_size), rlast);
	flush_or_say(a, "regions with torn stripes may be taken as clean after a crash");
	mutex_unlock(&a->rh_mutex);
}

/*
 * A resync made @region consistent from every member: its parity is
 * trusted again (TORN -> IN_SYNC once the region hash marks it).  A
 * rebuild computes the rebuilt member's blocks from the parity it found:
 * only a forced one goes through a TORN region, and on RAID5 it leaves
 * every stripe there consistent (the one parity matches the blocks it
 * gave); RAID6's Q is not rewritten by it.
 */
void r45_trust_synced(struct r45_array *a, region_t region, int action)
{
	if (action == R45_ACT_RESYNC ||
	    (action == R45_ACT_RECOVER && READ_ONCE(a->rebuild_forced) &&
	     a->geom.parity_disks == 1))
		clear_bit(region, a->untrusted);
}

/* The rebuild ended (every region rebuilt): a later one is not forced. */
void r45_trust_rebuild_done(struct r45_array *a)
{
	WRITE_ONCE(a->rebuild_forced, false);
}

/*
 * Member @idx failed while this array (or one it took over) ran: what is
 * written from now on is recorded, so it may come back (readd).  The
 * array's fail_lock held.
 */
void r45_trust_member_failed(struct r45_array *a, unsigned int idx)
{
	set_bit(idx, &a->readd_ok);
}

/*
 * A write (or discard) to @region starts or ends: with a member failed,
 * the region is DEGRADED for that member's re-add (any context).  Both
 * ends are needed: a write that started before the failure may have
 * skipped the member once it was failed.
 */
void r45_trust_note_write(struct r45_array *a, region_t region)
{
	if (r45_array_nr_failed(a))
		set_bit(region, a->written_degraded);
}

/*
 * The activation's record of a crash (a disk log, no predecessor, no
 * partial parity log that vouches): the regions the log calls dirty
 * become TORN.  Returns how many, or -ENOMEM.  A log written for another
 * region count (another region size), or one that cannot be read, makes
 * every region TORN, and at the first resume out of sync in the log too
 * (r45_trust_first_resume): the log's bits say nothing of these regions.
 */
long r45_trust_activate(struct r45_array *a, struct block_device *log_bdev,
			bool vouched)
{
	int r = r45_disk_log_read(log_bdev, a->nr_regions, a->untrusted);

	if (r < 0)
		return r;
	a->log_fresh = true;
	if (r == R45_DISK_LOG_FOREIGN || r == R45_DISK_LOG_FOREIGN_CLEAN)
		a->log_foreign = true;
	/*
	 * A new log (a first activation, not a crash), a clean one of
	 * another region count (out of sync, parity trusted), or a crash
	 * the partial parity log's replay makes right: nothing TORN.
	 */
	if (!r || r == R45_DISK_LOG_FOREIGN_CLEAN || vouched) {
		bitmap_zero(a->untrusted, a->nr_regions);
		return 0;
	}
	return bitmap_weight(a->untrusted, a->nr_regions);
}

/*
 * The table said start_dirty_degraded where it mattered: the member being
 * initialised is rebuilt in TORN regions too, from parity that may be
 * inconsistent.  Missing blocks are still never served from there.
 */
void r45_trust_force_rebuild(struct r45_array *a)
{
	WRITE_ONCE(a->rebuild_forced, true);
}

/*
 * The table's first resume, before any I/O, after the log's own resume
 * read its bits: a log whose bits do not map onto these regions puts
 * every region out of sync, so that its stale clean bits call nothing in
 * sync (issue 31, finding 2).
 *
 * A fresh activation's disk log of the same count puts its last region
 * out of sync (issue 33): dm-log keeps a count, not a length, so a table
 * that grew the array inside its old last region finds the bit of the
 * shorter array there.  That happens when the new length was recorded
 * (LVM commits its metadata before the reload) and a crash came before
 * the reload took the growth over; a write there would then update
 * garbage parity (read-modify-write), and a member lost later would be
 * rebuilt wrong.  One region resynced per activation.  Not on a degraded
 * one: its resync cannot run, and a degraded write computes its row's
 * parity from every data block (the missing one's never held data).
 */
void r45_trust_first_resume(struct r45_array *a)
{
	if (a->log_fresh && (r45_array_nr_failed(a) || a->read_only))
		a->log_fresh = false;
	if (!a->log_foreign && !a->log_fresh)
		return;
	mutex_lock(&a->rh_mutex);
	if (a->log_foreign) {
		DMERR("the dirty log was written for another region count: every region out of sync");
		put_out_of_sync(a, 0, a->nr_regions - 1);
		flush_or_say(a, "a crash may take regions of another geometry for clean");
	} else {
		put_out_of_sync(a, a->nr_regions - 1, a->nr_regions - 1);
		flush_or_say(a, "a crash may take the last region for clean");
	}
	mutex_unlock(&a->rh_mutex);
}

/*
 * Every region REBUILD(X), in memory and on the log device (dirty): a
 * member is to be rebuilt (dev_to_init) and holds nothing yet.  Called
 * at the table's first resume, after the log's own resume read its
 * bits, before any I/O.  dm-log's forced "sync" would do the same at
 * every resume, throwing a rebuild's progress (or a finished rebuild)
 * away each time.
 */
void r45_trust_rebuild_all(struct r45_array *a)
{
	mutex_lock(&a->rh_mutex);
	put_out_of_sync(a, 0, a->nr_regions - 1);
	flush_or_say(a, "the rebuild may be skipped after a crash");
	mutex_unlock(&a->rh_mutex);
}

/*
 * Old regions [*ofirst, *olast] that new region @r overlaps (a reload
 * that changed the region size).
 */
static void old_regions(struct r45_array *a, struct r45_array *old,
			region_t r, region_t *ofirst, region_t *olast)
{
	u64 start = (u64)r * a->region_size;
	u64 end = min_t(u64, start + a->region_size, a->array_sectors) - 1;

	*ofirst = div64_u64(start, old->region_size);
	*olast = min_t(u64, div64_u64(end, old->region_size),
		       old->nr_regions - 1);
}

/*
 * A growth is about to be taken over (issue 33), the new log on the same
 * device: the predecessor @old's last region dirty there, or every one
 * of its regions when the new log's @region_size differs (its clean bits
 * only: the in-memory sync bits that r45_trust_takeover reads stay as
 * they are).  The new log's resume reads them back, and
 * r45_trust_takeover then calls clean again what was in sync.  A crash
 * in between finds them dirty (TORN, resynced): never the added space,
 * which dm-log gives the old last region's bit (or bits of another
 * region size), taken for in sync.  The device is suspended, @old
 * replaced: nothing writes.
 */
void r45_trust_before_grow(struct r45_array *old, sector_t region_size)
{
	struct dm_dirty_log *log = old->log;
	region_t r = region_size == old->region_size ? old->nr_regions - 1 : 0;

	mutex_lock(&old->rh_mutex);
	for (; r < old->nr_regions; r++)
		log->type->mark_region(log, r);
	flush_or_say(old, "a crash before the growth is taken over may take added space for in sync");
	mutex_unlock(&old->rh_mutex);
}

/* TORN and DEGRADED of the old regions new region @r overlaps, or-ed. */
static void same_space_bits(struct r45_array *a, struct r45_array *old,
			    region_t r)
{
	region_t o, ofirst, olast;

	old_regions(a, old, r, &ofirst, &olast);
	for (o = ofirst; o <= olast; o++) {
		if (test_bit(o, old->untrusted))
			set_bit(r, a->untrusted);
		if (test_bit(o, old->written_degraded))
			set_bit(r, a->written_degraded);
	}
}

/*
 * A reload: the predecessor's states carried over, region by region
 * (issue 31, finding 2: also when the region size or count changed,
 * where a new region takes the worst of the old regions it overlaps).
 * Both arrays are suspended: nothing is written, no step runs.
 *   - TORN and DEGRADED bits: or-ed over the overlapped old regions.
 *   - Out of sync in the old log stays out of sync in the new one (a
 *     pending resync or rebuild is never forgotten, whatever the new
 *     log's own bits say).
 *   - @same (the same devices and the same member to rebuild): what the
 *     old one synced or rebuilt stays so, and a rebuild goes on with its
 *     member; the forced rebuild and the mismatch count too.  @rebuild:
 *     the member whose unfinished rebuild goes on in a table that is not
 *     @same but keeps it in its place (-1: none).
 *   - readd_ok: kept for a member still failed at the same device, the
 *     record of its writes being carried over.
 *   - A larger array (issue 33): a region that reaches past the old end
 *     holds space no parity was ever computed for.  It is out of sync,
 *     in memory and on the log device, whatever the log's bits for it
 *     (dm-log keeps the old last region's bit when the count grows),
 *     unless @trust_new (the new table's log says nosync: the caller
 *     vouches, as lvextend --nosync does).  Like a first sync, it is
 *     DIRTY, not TORN: only blocks written since hold data, and a write
 *     there reconstructs its row's parity (r45_trust_row_in_sync).
 */
void r45_trust_takeover(struct r45_array *a, struct r45_array *old, bool same,
			int rebuild, bool trust_new)
{
	struct dm_dirty_log *log = a->log, *olog = old->log;
	bool geometry = a->region_size != old->region_size ||
			a->nr_regions != old->nr_regions;
	region_t r, o, ofirst, olast, kept = 0, grown = 0;
	/*
	 * check_resize refused a growth of a degraded or rebuilding array;
	 * a member that failed between the load and this resume makes one:
	 * no block of the added space is computed from its parity then.
	 */
	bool whole = !r45_array_nr_failed(a) && READ_ONCE(old->recover_member) < 0;
	unsigned int i;

	if (geometry)
		DMINFO("reload: region size %llu -> %llu sectors: the regions' sync and trust states mapped onto the new regions",
		       (unsigned long long)old->region_size,
		       (unsigned long long)a->region_size);
	mutex_lock(&a->rh_mutex);
	for (r = 0; r < a->nr_regions; r++) {
		bool added = a->array_sectors > old->array_sectors &&
			     (u64)(r + 1) * a->region_size > old->array_sectors;
		bool dirty = false;

		same_space_bits(a, old, r);
		grown += added;
		if (added && !whole)
			set_bit(r, a->untrusted);
		if (added && !trust_new) {
			put_out_of_sync(a, r, r);
			continue;
		}
		old_regions(a, old, r, &ofirst, &olast);
		for (o = ofirst; o <= olast; o++)
			if (olog->type->in_sync(olog, o, 1) != 1)
				dirty = true;
		if (dirty) {
			if (log->type->in_sync(log, r, 1) == 1) {
				log->type->mark_region(log, r);
				log->type->set_region_sync(log, r, 0);
				kept++;
			}
		} else if (same && !added && log->type->in_sync(log, r, 1) != 1) {
			/*
			 * Clean on the log device as well: no write is in
			 * flight (both are suspended), and a later resume
			 * reads the bits from there.
			 */
			log->type->clear_region(log, r);
			log->type->set_region_sync(log, r, 1);
		}
	}
	flush_or_say(a, "the regions taken over may be resynced again, or taken for clean, after a crash");
	mutex_unlock(&a->rh_mutex);
	if (a->array_sectors > old->array_sectors && !whole)
		DMERR("reload: grown while a member is failed or rebuilt: the added space is untrusted (I/O errors where its parity is needed) until a resync");
	if (a->array_sectors > old->array_sectors)
		DMINFO("reload: %llu sectors added: %llu regions %s",
		       (unsigned long long)(a->array_sectors - old->array_sectors),
		       (unsigned long long)grown,
		       trust_new ? "taken for in sync (nosync)" : "to resync");
	/* the new log's word (a "nosync", another log) does not undo them */
	if (kept)
		DMINFO("reload: %llu regions the previous table had out of sync stay out of sync",
		       (unsigned long long)kept);
	a->readd_ok = 0;
	for (i = 0; i < a->geom.raid_disks; i++)
		if (test_bit(i, &old->readd_ok) &&
		    r45_array_member_failed(a, i) && a->members[i].bdev &&
		    a->members[i].bdev == old->members[i].bdev &&
		    a->members[i].offset == old->members[i].offset)
			set_bit(i, &a->readd_ok);
	if (same || rebuild >= 0) {
		WRITE_ONCE(a->recover_member, READ_ONCE(old->recover_member));
		WRITE_ONCE(a->rebuild_forced, READ_ONCE(old->rebuild_forced));
	}
	if (same)
		atomic64_set(&a->mismatches, atomic64_read(&old->mismatches));
}

/*
 * "readd <idx>" (md's re-add with a write-intent bitmap): member @idx,
 * failed, is back with what it held when it failed (a path that came
 * back, a cable pushed in again).  Only the DEGRADED regions can be
 * stale on it: they go out of sync, in memory and on the log device,
 * and the member is rebuilt in them alone (REBUILD(idx), from the next
 * resume).  The device must be suspended: no write is in flight that
 * could still skip the member, and the log's resume reads the bits
 * back.  Refused (-EINVAL, *why) when it would not be safe: the member
 * is not failed; its failure is not covered by the record from its
 * start (the array was activated with it missing or failed); another
 * member is being rebuilt; too many others are failed to rebuild it
 * from; or a region is TORN or out of sync for another reason (issue
 * 31, finding 3: the member's good blocks there would be overwritten
 * from parity that may not be right).  *regions: how many regions are
 * to be rebuilt.  The member's partial parity log is emptied (its own
 * is stale: what was written since was not logged on it).
 */
int r45_trust_readd(struct r45_array *a, unsigned int idx, region_t *regions,
		    const char **why)
{
	struct dm_dirty_log *log = a->log;
	region_t r, n = 0, other = 0, torn = 0;
	int err;

	mutex_lock(&a->rh_mutex);
	for (r = 0; r < a->nr_regions; r++) {
		if (log->type->in_sync(log, r, 1) == 1)
			continue;
		if (test_bit(r, a->untrusted))
			torn++;
		else if (!test_bit(r, a->written_degraded))
			other++;
	}
	mutex_unlock(&a->rh_mutex);

	*why = NULL;
	if (!r45_array_member_failed(a, idx))
		*why = "the member is not failed";
	else if (!a->members[idx].bdev)
		*why = "the table names it missing: load one with its device";
	else if (!test_bit(idx, &a->readd_ok))
		*why = "no record of the writes since it failed (it was missing or failed when the table was loaded): rebuild it with dev_to_init";
	else if (READ_ONCE(a->recover_member) >= 0)
		*why = "another member is being rebuilt";
	else if (r45_array_nr_failed(a) - 1 >= a->geom.parity_disks)
		*why = "too many other members are failed to rebuild it from";
	else if (torn)
		*why = "regions left torn by a crash are out of sync: the rebuild would take the member's good blocks there from parity that may be wrong";
	else if (other)
		*why = "regions are out of sync for another reason (an unfinished resync): the rebuild would take the member's blocks there from parity";
	if (*why)
		return -EINVAL;
	err = r45_ppl_reset_member(a, idx);
	if (err) {
		*why = "its partial parity log cannot be written";
		return err;
	}

	mutex_lock(&a->rh_mutex);
	for_each_set_bit(r, a->written_degraded, a->nr_regions) {
		n++;
		if (log->type->in_sync(log, r, 1) == 1)
			put_out_of_sync(a, r, r);
	}
	flush_or_say(a, "the re-added member's stale regions may be taken for clean after a crash");
	mutex_unlock(&a->rh_mutex);
	WRITE_ONCE(a->recover_member, idx);
	WRITE_ONCE(a->rebuild_forced, false);
	spin_lock_irq(&a->fail_lock);
	clear_bit(idx, &a->readd_ok);
	spin_unlock_irq(&a->fail_lock);
	r45_array_readd_member(a, idx);
	/* nobody else is out: the record starts again at the next failure */
	if (!r45_array_nr_failed(a))
		bitmap_zero(a->written_degraded, a->nr_regions);
	*regions = n;
	return 0;
}

/*
 * Regions whose data is not protected: with a member failed and no
 * rebuild going on, a region the log calls out of sync never got parity
 * that matches its data (the resync could not compute it against the
 * dead member), so a block of the failed member in it cannot be rebuilt.
 * md keeps such an array dirty-degraded; we keep these regions out of
 * sync and count them here.  With a rebuild going on, the TORN regions
 * it cannot make right.  Zero when the array is protected.
 */
region_t r45_trust_unprotected(struct r45_array *a)
{
	region_t r, n = 0;

	if (!a->log)
		return 0;
	if (r45_array_nr_failed(a) && !r45_sync_rebuild_possible(a))
		return a->nr_regions - a->log->type->get_sync_count(a->log);
	/*
	 * A rebuild (not forced) leaves TORN regions out of sync: the
	 * member it rebuilds stays unreadable there.
	 */
	if (READ_ONCE(a->recover_member) < 0 || READ_ONCE(a->rebuild_forced))
		return 0;
	for_each_set_bit(r, a->untrusted, a->nr_regions)
		if (a->log->type->in_sync(a->log, r, 0) != 1)
			n++;
	return n;
}
