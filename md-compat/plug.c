// SPDX-License-Identifier: GPL-2.0
/*
 * The plugger: partial-stripe writes wait on the array's delayed list
 * until the submitter's block plug is flushed (blk_check_plugged
 * callback), or a short timer fires, so that sequential writes can
 * coalesce into full stripes.  The queue-free plugger of the seeds, in
 * the form today's block layer offers.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/jiffies.h>
#include "r45_array.h"
#include "r45_compat.h"

#define R45_PLUG_DELAY_MS 3

struct r45_plug_cb {
	struct blk_plug_cb cb;
	bool counted;
};

static void r45_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	struct r45_array *a = cb->data;

	kfree(container_of(cb, struct r45_plug_cb, cb));
	r45_release_delayed(a);
	if (atomic_dec_and_test(&a->plug_cbs))
		wake_up_all(&a->wait_stripe);
}

static void r45_plug_timeout(struct timer_list *t)
{
	struct r45_array *a = from_timer(a, t, plug_timer);

	r45_release_delayed(a);
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
	if (!timer_pending(&a->plug_timer))
		mod_timer(&a->plug_timer,
			  jiffies + msecs_to_jiffies(R45_PLUG_DELAY_MS) + 1);
	return true;
}

void r45_plug_init(struct r45_array *a)
{
	atomic_set(&a->plug_cbs, 0);
	timer_setup(&a->plug_timer, r45_plug_timeout, 0);
}

/* No plug callback or timer may run after this returns. */
void r45_plug_stop(struct r45_array *a)
{
	wait_event(a->wait_stripe, !atomic_read(&a->plug_cbs));
	r45_timer_delete_sync(&a->plug_timer);
	r45_release_delayed(a);
}
