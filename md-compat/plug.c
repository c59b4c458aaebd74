// SPDX-License-Identifier: GPL-2.0
/*
 * The plugger: partial-stripe writes wait on the array's delayed list
 * until the submitter's block plug is flushed (blk_check_plugged
 * callback: blk_finish_plug, or the submitter going to sleep), so that
 * the rest of a sequential write can arrive and fill the stripe.  The
 * queue-free plugger of the seeds, in the form today's block layer
 * offers.  The callback always runs, so no timer is needed; a stripe
 * that becomes full while it waits is handled at once.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include "r45_array.h"

struct r45_plug_cb {
	struct blk_plug_cb cb;
	bool counted;
};

static void r45_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	struct r45_array *a = cb->data;

	kfree(container_of(cb, struct r45_plug_cb, cb));
	r45_release_delayed(a);
	r45_count_done(a, &a->plug_cbs);	/* r45_plug_stop waits */
}

/*
 * Called after a stripe got a partial write.  Returns true when the
 * stripe may wait (the submitter holds a plug that will release it).
 */
bool r45_plug_arm(struct r45_array *a)
{
	struct blk_plug_cb *cb;
	struct r45_plug_cb *pcb;

	cb = blk_check_plugged(r45_unplug, a, sizeof(struct r45_plug_cb));
	if (!cb)
		return false;
	pcb = container_of(cb, struct r45_plug_cb, cb);
	if (!pcb->counted) {
		pcb->counted = true;
		atomic_inc(&a->plug_cbs);
	}
	return true;
}

void r45_plug_init(struct r45_array *a)
{
	atomic_set(&a->plug_cbs, 0);
}

/* No plug callback may run after this returns. */
void r45_plug_stop(struct r45_array *a)
{
	r45_wait_count(a, &a->plug_cbs);
	r45_release_delayed(a);
}
