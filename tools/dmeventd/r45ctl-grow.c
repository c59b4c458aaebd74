// SPDX-License-Identifier: GPL-2.0
/*
 * raid45ctl grow <name> [--nosync] (issue 33, size growth): the active
 * array takes the room its members have grown to.
 *
 * The new <len> is the one create would compute now (the smallest
 * member less its offset, whole chunks, times the data members).  Under
 * the activation lock (no activation decides meanwhile) and the
 * description's lock with the table protocol (dm_lock_table: no other
 * record or reload interleaves), the description is read again, the
 * array reloaded with the new length (the kernel takes the running
 * array over: old regions keep their state, the new space resyncs, or
 * is trusted with --nosync), and only then the size recorded.  A crash
 * before the record activates the array at its old size: smaller than
 * the one written to, but nothing is lost (the next grow brings the
 * space back, and a resync never changes data).  Recorded first, a
 * crash before the reload would activate the larger array from a disk
 * log that knows nothing of the added space, and could take it for in
 * sync.  For the same reason an inactive array is not grown: the kernel
 * must take a running array over.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <libdevmapper.h>
#include "r45ctl-dev.h"

#define TABLE_MAX R45DESC_TABLE_MAX

/* A device's size in sectors (no exclusive open: the array holds it). */
static int dev_sectors(const char *path, uint64_t *sectors)
{
	uint64_t bytes;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0) {
		r = -errno;
		ctl_error("%s: %s", path, strerror(errno));
		return r;
	}
	r = ioctl(fd, BLKGETSIZE64, &bytes) ? -errno : 0;
	close(fd);
	if (r)
		ctl_error("%s: cannot read its size: %s", path, strerror(-r));
	else
		*sectors = bytes >> 9;
	return r;
}

/* The size the members give now, checked against the log and ppl areas. */
static int new_size(const struct r45desc *d, uint64_t *size)
{
	uint64_t sectors[R45_MAX_MEMBERS] = { 0 }, per;
	unsigned int i, data = d->nr_members - r45desc_parity_members(d->type);
	char err[512];

	/* every member current (grow_locked) */
	for (i = 0; i < d->nr_members; i++)
		if (dev_sectors(d->m[i].path, &sectors[i]))
			return -1;
	if (r45desc_compute_size(d, sectors, size, err, sizeof(err))) {
		ctl_error("%s: %s", d->name, err);
		return -1;
	}
	per = *size / data;
	if (d->ppl && d->ppl_offset >= 0 && (uint64_t)d->ppl_offset < per) {
		ctl_error("%s: the partial parity log lies %" PRId64 " sectors after each member's data start: the data cannot grow over it (%" PRIu64 " sectors per member)",
			  d->name, d->ppl_offset, per);
		return -1;
	}
	if (d->disk_log) {
		uint64_t ls, need = r45desc_disk_log_sectors(*size, d->region);

		if (dev_sectors(d->log_dev, &ls))
			return -1;
		if (ls < need) {
			ctl_error("the log device %s has %" PRIu64 " sectors, a log of %" PRIu64 " regions needs %" PRIu64,
				  d->log_dev, ls, (*size + d->region - 1) / d->region, need);
			return -1;
		}
	}
	return 0;
}

static bool same_members(const struct r45desc *a, const struct r45desc *b)
{
	unsigned int i;

	if (a->nr_members != b->nr_members)
		return false;
	for (i = 0; i < a->nr_members; i++)
		if (strcmp(a->m[i].path, b->m[i].path) || a->m[i].offset != b->m[i].offset ||
		    a->m[i].state != b->m[i].state)
			return false;
	return true;
}

/*
 * Under dm_lock_table: the description read again (it must still give
 * the size and members grow_locked was decided on), the array reloaded,
 * the size recorded.  0 or 1.
 */
static int reload_and_record(const char *path, const struct r45desc *seen, uint64_t size,
			     bool nosync)
{
	static struct r45desc d;
	char params[TABLE_MAX], err[512], dev[PATH_MAX];
	uint64_t now;
	int lock = dm_lock_table(path, seen->name), r, reload = 0;

	if (lock < 0)
		return 1;
	r = r45desc_load(path, &d, err, sizeof(err));
	if (r) {
		ctl_error("%s", err);
		goto out;
	}
	if (d.size != seen->size || !same_members(&d, seen)) {
		ctl_error("%s changed meanwhile: not grown", path);
		r = -EAGAIN;
		goto out;
	}
	d.size = size;
	/* the table's sync word decides the new space alone (trust.c) */
	d.nosync = nosync;
	r = r45desc_table(&d, 0, params, sizeof(params), err, sizeof(err));
	if (r)
		ctl_error("%s", err);
	else
		r = dm_reload(&d, params);
	/*
	 * A resume that failed after the tables were swapped: the new one
	 * is live (and recorded), the device left suspended (an error all
	 * the same).  Else a table left inactive is dropped: it would block
	 * every later reload (dm_lock_table).
	 */
	snprintf(dev, sizeof(dev), "/dev/mapper/%s", d.name);
	if (r && (dev_sectors(dev, &now) || now != size)) {
		if (dm_simple(DM_DEVICE_CLEAR, d.name, false))
			ctl_error("%s keeps an inactive table: dmsetup clear %s", d.name, d.name);
		goto out;
	}
	reload = r;
	d.nosync = seen->nosync;
	r = r45desc_save(path, &d, err, sizeof(err));
	if (r)
		ctl_error("%s: %s is active with %" PRIu64 " sectors, the description still says %" PRIu64 ": raid45ctl grow %s again",
			  err, d.name, size, seen->size, d.name);
	else if (reload)
		printf("%s: %" PRIu64 " sectors, recorded in %s, but left suspended\n", d.name, size,
		       path);
	else
		printf("%s: %" PRIu64 " -> %" PRIu64 " sectors, recorded in %s; %s: 0 %" PRIu64 " raid45 %s\n",
		       d.name, seen->size, size, path,
		       nosync ? "the new space taken for in sync" : "the new space resyncs", size, params);
out:
	r45desc_unlock(lock);
	return r || reload ? 1 : 0;
}

static int grow_locked(const char *name, bool nosync)
{
	static struct r45desc d;
	char path[PATH_MAX], uuid[R45DESC_UUID_MAX];
	struct r45_status st;
	unsigned int i;
	uint64_t size;

	if (load(name, &d, path, sizeof(path)))
		return 1;
	if (dm_active(d.name, uuid, sizeof(uuid)) != 1 || strcmp(uuid, d.uuid)) {
		ctl_error("%s is not active (with the description's UUID): raid45ctl activate %s first; the kernel grows a running array",
			  d.name, d.name);
		return 1;
	}
	for (i = 0; i < d.nr_members; i++)
		if (d.m[i].state != R45DESC_CURRENT) {
			ctl_error("member %u of %s is %s: grow the whole array, after the rebuild", i,
				  d.name, r45desc_state_name(d.m[i].state));
			return 1;
		}
	if (dm_status(d.name, &st) || st.nr_members != d.nr_members) {
		ctl_error("cannot read the raid45 status of %s: nothing changed", d.name);
		return 1;
	}
	/* a reload's suspend must not come before a failure is recorded */
	if (unrecorded_failure(&d, &st, -1) || new_size(&d, &size))
		return 1;
	if (size < d.size) {
		ctl_error("%s: the members give %" PRIu64 " sectors, less than its %" PRIu64 ": did a member shrink? Nothing changed",
			  d.name, size, d.size);
		return 1;
	}
	if (size == d.size) {
		printf("%s: %" PRIu64 " sectors already: the members have no more room\n", d.name, size);
		return 0;
	}
	return reload_and_record(path, &d, size, nosync);
}

int cmd_grow(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nosync", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	bool nosync = false;
	int c, r, lock;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'n') {
			usage(stderr);
			return 2;
		}
		nosync = true;
	}
	if (argc - optind != 1) {
		usage(stderr);
		return 2;
	}
	lock = activation_lock(argv[optind]);
	if (lock < 0)
		return 1;
	r = grow_locked(argv[optind], nosync);
	close(lock);
	return r;
}
