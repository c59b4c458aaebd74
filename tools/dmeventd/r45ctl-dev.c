// SPDX-License-Identifier: GPL-2.0
/*
 * raid45ctl's device work (see r45ctl-dev.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <blkid/blkid.h>
#include <libdevmapper.h>
#include "r45ctl-dev.h"

/* ---- device-mapper ---- */

static struct dm_task *task(int type, const char *name)
{
	struct dm_task *dmt = dm_task_create(type);

	if (dmt && !dm_task_set_name(dmt, name)) {
		dm_task_destroy(dmt);
		return NULL;
	}
	return dmt;
}

/* Run dmt (waiting for udev where it creates or removes nodes): 0 or -errno. */
static int run(struct dm_task *dmt, bool udev)
{
	uint32_t cookie = 0;
	bool waited = false;
	int r = 0;

	if (udev && dm_task_set_cookie(dmt, &cookie, 0))
		waited = true;
	if (!dm_task_run(dmt)) {
		r = dm_task_get_errno(dmt);
		r = r > 0 ? -r : -EIO;
	}
	if (waited)
		(void)dm_udev_wait(cookie);
	dm_task_destroy(dmt);
	return r;
}

int dm_simple(int type, const char *name, bool udev)
{
	struct dm_task *dmt = task(type, name);

	if (!dmt)
		return -ENOMEM;
	/*
	 * Every suspend (a reload's, a readd's) without flush: writes held
	 * for a failure go back to dm core and are held again after the
	 * resume; a flushing suspend would submit them, recorded or not.
	 */
	if (type == DM_DEVICE_SUSPEND && !dm_task_no_flush(dmt)) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	return run(dmt, udev);
}

/* 1 active (uuid filled), 0 not, -errno. */
int dm_active_live(const char *name, char *uuid, size_t size, bool *live)
{
	struct dm_task *dmt = task(DM_DEVICE_INFO, name);
	struct dm_info info;
	const char *u;
	int r = -EIO;

	if (live)
		*live = false;
	if (!dmt)
		return -ENOMEM;
	if (dm_task_run(dmt) && dm_task_get_info(dmt, &info)) {
		r = info.exists ? 1 : 0;
		u = info.exists ? dm_task_get_uuid(dmt) : NULL;
		snprintf(uuid, size, "%s", u ? u : "");
		if (live)
			*live = info.exists && info.live_table;
	}
	dm_task_destroy(dmt);
	return r;
}

int dm_active(const char *name, char *uuid, size_t size)
{
	return dm_active_live(name, uuid, size, NULL);
}

int activation_lock(const char *name)
{
	const char *dir = getenv("RAID45_RUN_DIR");
	char path[PATH_MAX];
	unsigned int waited = 0;
	int fd, r;

	if (!dir || !dir[0])
		dir = R45CTL_RUN_DIR;
	if (r45desc_check_name(name)) {
		ctl_error("\"%s\": not an array name", name);
		return -EINVAL;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		r = -errno;
		ctl_error("%s: %s (the activation locks' directory)", dir, strerror(-r));
		return r;
	}
	if (snprintf(path, sizeof(path), "%s/%s.lock", dir, name) >= (int)sizeof(path)) {
		ctl_error("%s/%s.lock: path too long", dir, name);
		return -ENAMETOOLONG;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		r = -errno;
		ctl_error("%s: %s (the activation lock of %s)", path, strerror(-r), name);
		return r;
	}
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		r = -errno;
		if (r == -EINTR)
			continue;
		if (r != -EWOULDBLOCK) {
			ctl_error("%s: flock: %s", path, strerror(-r));
			close(fd);
			return r;
		}
		if (waited >= R45CTL_LOCK_WAIT_MS) {
			ctl_error("%s: another activation of %s (raid45ctl boot, activate or create) has held %s for %u s: not done",
				  name, name, path, R45CTL_LOCK_WAIT_MS / 1000);
			close(fd);
			return -ETIMEDOUT;
		}
		if (!waited)
			fprintf(stderr, "raid45ctl: waiting up to %u s for another activation of %s to end (%s)\n",
				R45CTL_LOCK_WAIT_MS / 1000, name, path);
		usleep(100 * 1000);
		waited += 100;
	}
	return fd;
}

int dm_create(const struct r45desc *d, const char *params)
{
	struct dm_task *dmt = task(DM_DEVICE_CREATE, d->name);

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_uuid(dmt, d->uuid) ||
	    !dm_task_add_target(dmt, 0, d->size, "raid45", params)) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	return run(dmt, true);
}

/* Load params, suspend, resume; resume even when the message of a readd fails. */
int dm_reload(const struct r45desc *d, const char *params)
{
	struct dm_task *dmt = task(DM_DEVICE_RELOAD, d->name);
	int r;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_add_target(dmt, 0, d->size, "raid45", params)) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	r = run(dmt, false);
	if (r) {
		ctl_error("loading the new table of %s: %s (the kernel log says why)", d->name,
		      strerror(-r));
		return r;
	}
	r = dm_simple(DM_DEVICE_SUSPEND, d->name, false);
	if (r) {
		ctl_error("suspending %s: %s; the new table is left inactive (dmsetup clear %s drops it)",
		      d->name, strerror(-r), d->name);
		return r;
	}
	r = dm_simple(DM_DEVICE_RESUME, d->name, true);
	if (r)
		ctl_error("resuming %s: %s: it is left suspended (dmsetup resume %s)", d->name,
		      strerror(-r), d->name);
	return r;
}

/* 1 if name has an inactive table (a reload under way, or left), 0, -errno */
static int dm_inactive(const char *name)
{
	struct dm_task *dmt = task(DM_DEVICE_INFO, name);
	struct dm_info info;
	int r = -EIO;

	if (!dmt)
		return -ENOMEM;
	if (dm_task_run(dmt) && dm_task_get_info(dmt, &info))
		r = info.exists && info.inactive_table ? 1 : 0;
	dm_task_destroy(dmt);
	return r;
}

int dm_lock_table(const char *path, const char *name)
{
	char err[512];
	int lock = r45desc_lock(path, err, sizeof(err)), r;

	if (lock < 0) {
		ctl_error("%s: %s not changed", err, name);
		return lock;
	}
	r = dm_inactive(name);
	if (!r)
		return lock;
	if (r > 0)
		ctl_error("%s has an inactive table: another reload is under way, or one was left (dmsetup clear %s drops it): not changed",
			  name, name);
	else
		ctl_error("cannot read the device-mapper info of %s: %s: not changed", name,
			  strerror(-r));
	r45desc_unlock(lock);
	return -EBUSY;
}

int dm_reload_locked(const char *path, const struct r45desc *d, const char *params)
{
	int lock = dm_lock_table(path, d->name), r;

	if (lock < 0)
		return lock;
	r = dm_reload(d, params);
	r45desc_unlock(lock);
	return r;
}

int dm_message(const char *name, const char *msg)
{
	struct dm_task *dmt = task(DM_DEVICE_TARGET_MSG, name);

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_sector(dmt, 0) || !dm_task_set_message(dmt, msg)) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	return run(dmt, false);
}

/* The raid45 status at sector 0: 0, or -errno (-ENOENT: no such target). */
int dm_status(const char *name, struct r45_status *st)
{
	struct dm_task *dmt = task(DM_DEVICE_STATUS, name);
	uint64_t s, l;
	char *type, *params;
	void *next = NULL;
	int r = -ENOENT;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_no_flush(dmt) || !dm_task_run(dmt)) {
		dm_task_destroy(dmt);
		return -EIO;
	}
	do {
		type = params = NULL;
		next = dm_get_next_target(dmt, next, &s, &l, &type, &params);
		if (type && !s && !strcmp(type, "raid45")) {
			r = r45_status_parse(params ? params : "", st) ? -EINVAL : 0;
			break;
		}
	} while (next);
	dm_task_destroy(dmt);
	return r;
}

/*
 * The descriptions' directory dir (or, not made yet, its parent) on a
 * raid45 array (its device or one below it a dm device with a raid45
 * target): the plugin could never record that array's failures (the
 * record would wait behind the writes held for them).  Printed; 1, 0.
 */
int desc_dir_on_raid45(const char *dir)
{
	char p[PATH_MAX], name[R45DESC_NAME_MAX + 1];
	struct r45_status st;
	dev_t below[64];
	struct stat sb;
	int n, i;
	FILE *f;

	snprintf(p, sizeof(p), "%s", dir);
	while (stat(p, &sb)) {
		char *slash = strrchr(p, '/');

		if (!slash || slash == p)
			return 0;
		*slash = '\0';
	}
	n = r45desc_below(sb.st_dev, below, 64);
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/dev/block/%u:%u/dm/name", r45desc_sysfs,
			 major(below[i]), minor(below[i]));
		f = fopen(p, "re");
		if (!f)
			continue;
		name[0] = '\0';
		if (!fgets(name, sizeof(name), f))
			name[0] = '\0';
		fclose(f);
		name[strcspn(name, "\n")] = '\0';
		if (name[0] && !dm_status(name, &st)) {
			ctl_error("%s is on the raid45 array %s (%u:%u): the monitor could not record its failures there (the record would wait behind the writes held for them); set %s to a directory on another device",
				  dir, name, major(below[i]), minor(below[i]), R45DESC_DIR_ENV);
			return 1;
		}
	}
	return 0;
}

/* ---- members ---- */

/*
 * A device another description names (an inactive array: an active one
 * holds it, and check_member refuses it): refused without --force.
 */
bool described_elsewhere(const char *dev, dev_t rdev, bool force)
{
	char who[PATH_MAX + 256];

	if (r45desc_used_by(r45desc_dir(), rdev, who, sizeof(who)) != 1)
		return false;
	if (!force) {
		ctl_error("%s is %s: --force to take it anyway (that array then loses it)", dev, who);
		return true;
	}
	fprintf(stderr, "raid45ctl: warning: %s is %s: taken (--force)\n", dev, who);
	return false;
}

/* An fsync of /dev/mapper/<name>: a flush that reaches every member. */
int dm_flush(const char *name)
{
	char dev[PATH_MAX];
	int fd, r;

	snprintf(dev, sizeof(dev), "/dev/mapper/%s", name);
	fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	r = fd < 0 || fsync(fd) ? -errno : 0;
	if (fd >= 0)
		close(fd);
	if (r)
		ctl_error("%s: cannot flush it: %s: not recorded", dev, strerror(-r));
	return r;
}

/* What blkid finds on the device open as fd: "" for nothing. */
static int signature(int fd, char *what, size_t size)
{
	blkid_probe pr = blkid_new_probe();
	const char *v = NULL;
	int r;

	what[0] = '\0';
	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, 0, 0) ||
	    blkid_probe_enable_superblocks(pr, 1) ||
	    blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE) ||
	    blkid_probe_enable_partitions(pr, 1)) {
		blkid_free_probe(pr);
		return -EIO;
	}
	r = blkid_do_safeprobe(pr);
	if (r == -2) {
		snprintf(what, size, "several signatures (blkid -p says which)");
	} else if (r == 0) {
		if (!blkid_probe_lookup_value(pr, "TYPE", &v, NULL) && v) {
			if (!strcmp(v, "linux_raid_member"))
				snprintf(what, size, "an md superblock (linux_raid_member)");
			else if (!strcmp(v, "LVM2_member"))
				snprintf(what, size, "an LVM physical volume (LVM2_member)");
			else
				snprintf(what, size, "a signature: %s (a file system or other data)", v);
		} else if (!blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL) && v) {
			snprintf(what, size, "a %s partition table", v);
		} else {
			snprintf(what, size, "a signature");
		}
	}
	blkid_free_probe(pr);
	return r < 0 && r != -2 ? -EIO : 0;
}

/*
 * A new member (create, replace): a block device nobody holds (an
 * exclusive open fails while a mount, md, LVM or a dm table has it),
 * without a signature unless force; its size and number.
 */
int check_member(const char *path, bool force, uint64_t *sectors, dev_t *rdev)
{
	char what[128];
	uint64_t bytes;
	struct stat sb;
	int fd, r;

	/*
	 * Opened first, then its kind and number from the open file (no
	 * window for the name to change between a stat and the open);
	 * O_NONBLOCK: a FIFO in its place does not hang the open.
	 */
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		if (r == -EBUSY && !stat(path, &sb))
			ctl_error("%s (%u:%u) is in use (mounted, or held by md, LVM or a device-mapper table: see /sys/dev/block/%u:%u/holders)",
			      path, major(sb.st_rdev), minor(sb.st_rdev), major(sb.st_rdev),
			      minor(sb.st_rdev));
		else
			ctl_error("%s: %s", path, strerror(-r));
		return r;
	}
	r = fstat(fd, &sb) ? -errno : S_ISBLK(sb.st_mode) ? 0 : -ENOTBLK;
	if (r) {
		ctl_error("%s: %s", path, r == -ENOTBLK ? "not a block device" : strerror(-r));
		close(fd);
		return r;
	}
	*rdev = sb.st_rdev;
	r = ioctl(fd, BLKGETSIZE64, &bytes) ? -errno : 0;
	if (r)
		ctl_error("%s: cannot read its size: %s", path, strerror(-r));
	if (!r) {
		*sectors = bytes >> 9;
		r = signature(fd, what, sizeof(what));
		if (r)
			ctl_error("%s: cannot probe it for signatures: %s", path, strerror(-r));
	}
	close(fd);
	if (r)
		return r;
	if (what[0] && !force) {
		ctl_error("%s carries %s: --force to use it anyway (what it holds is lost)", path, what);
		return -EEXIST;
	}
	if (what[0])
		fprintf(stderr, "raid45ctl: warning: %s carries %s: overwritten (--force)\n", path, what);
	return 0;
}

/* The path to record: a /dev/disk/by-id name for a kernel name (/dev/sdX). */
int stable_path(const char *path, dev_t rdev, bool force, char *out, size_t size)
{
	if (r45desc_stable_path(path, rdev, out, size)) {
		printf("member %s recorded as %s\n", path, out);
		return 0;
	}
	if (!strncmp(path, "/dev/disk/", 10) || !strncmp(path, "/dev/mapper/", 12))
		return 0;
	/* /dev/sdX, /dev/vdX without a serial, udev not settled yet */
	if (force) {
		fprintf(stderr, "raid45ctl: warning: %s has no /dev/disk/by-id name: recorded as it is, and another boot may give that name to another disk\n",
			path);
		return 0;
	}
	ctl_error("%s has no /dev/disk/by-id name: another boot may give that name to another disk, and activation would take it as this member; give a /dev/disk/by-* or /dev/mapper/ path (--force records it anyway)",
		  path);
	return -EINVAL;
}

void random_uuid(char *uuid, size_t size)
{
	unsigned char b[16];
	size_t i, o;

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		for (i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)((ts.tv_nsec >> (i % 4 * 8)) ^ (ts.tv_sec >> i) ^ getpid());
	}
	o = (size_t)snprintf(uuid, size, "R45-");
	for (i = 0; i < sizeof(b) && o + 2 < size; i++)
		o += (size_t)snprintf(uuid + o, size - o, "%02x", b[i]);
}
