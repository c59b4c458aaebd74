// SPDX-License-Identifier: GPL-2.0
/*
 * dm-raid456: the device-mapper target "raid45".
 */
#include <linux/module.h>
#include <linux/device-mapper.h>

#define DM_MSG_PREFIX "raid45"

static int raid45_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	ti->error = "RAID core not available yet";
	return -EINVAL;
}

static void raid45_dtr(struct dm_target *ti)
{
}

static int raid45_map(struct dm_target *ti, struct bio *bio)
{
	return DM_MAPIO_KILL;
}

static struct target_type raid45_target = {
	.name = "raid45",
	.version = {1, 0, 0},
	.module = THIS_MODULE,
	.ctr = raid45_ctr,
	.dtr = raid45_dtr,
	.map = raid45_map,
};

static int __init dm_raid456_init(void)
{
	return dm_register_target(&raid45_target);
}

static void __exit dm_raid456_exit(void)
{
	dm_unregister_target(&raid45_target);
}

module_init(dm_raid456_init);
module_exit(dm_raid456_exit);

MODULE_DESCRIPTION(DM_NAME " raid4/5/6 target (raid45)");
MODULE_LICENSE("GPL");
MODULE_ALIAS("dm-raid45");
MODULE_ALIAS("dm-raid4");
MODULE_ALIAS("dm-raid5");
MODULE_ALIAS("dm-raid6");
