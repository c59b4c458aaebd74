// SPDX-License-Identifier: GPL-2.0
/*
 * Array descriptions (see r45desc.h): their files (read, atomic and
 * durable replacement, the search by name or UUID, the locks) and the
 * records the plugin and raid45ctl make in them.  The parser and the
 * formatter are r45desc.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "r45desc.h"

/* ---- files ---- */

__attribute__((format(printf, 3, 4)))
static int ferr(char *err, size_t errsize, const char *fmt, ...)
{
	int e = errno ? errno : EIO;
	va_list ap;

	if (errsize) {
		va_start(ap, fmt);
		vsnprintf(err, errsize, fmt, ap);
		va_end(ap);
	}
	return -e;
}

int r45desc_load(const char *path, struct r45desc *d, char *err, size_t errsize)
{
	const char *base = strrchr(path, '/');
	char *text;
	size_t len = 0, bl;
	ssize_t n;
	int fd, r;

	base = base ? base + 1 : path;
	bl = strlen(base);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errsize, "%s: %s", path, strerror(-r));
		return r;
	}
	{
		struct stat sb;

		if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
			r = fstat(fd, &sb) ? -errno : -EINVAL;
			snprintf(err, errsize, "%s: %s", path,
				 r == -EINVAL ? "not a regular file" : strerror(-r));
			close(fd);
			return r;
		}
	}
	text = malloc(R45DESC_FILE_MAX + 1);
	if (!text) {
		close(fd);
		snprintf(err, errsize, "%s: out of memory", path);
		return -ENOMEM;
	}
	for (;;) {
		n = read(fd, text + len, R45DESC_FILE_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = ferr(err, errsize, "%s: read: %s", path, strerror(errno));
			goto out;
		}
		if (!n)
			break;
		len += (size_t)n;
		if (len > R45DESC_FILE_MAX) {
			r = -EFBIG;
			snprintf(err, errsize, "%s: larger than %d bytes", path, R45DESC_FILE_MAX);
			goto out;
		}
	}
	r = r45desc_parse(text, len, path, d, err, errsize);
	if (!r && (bl != strlen(d->name) + 5 || strncmp(base, d->name, bl - 5) ||
		   strcmp(base + bl - 5, ".conf"))) {
		snprintf(err, errsize, "%s: describes the array \"%s\", so its file must be %s.conf",
			 path, d->name, d->name);
		r = -EINVAL;
	}
out:
	free(text);
	close(fd);
	return r;
}

int (*r45desc_fsync)(int fd);

/* 0 or -errno */
static int sync_fd(int fd)
{
	int r = r45desc_fsync ? r45desc_fsync(fd) : fsync(fd);

	return r ? (errno ? -errno : -EIO) : 0;
}

/* The directory dir synced: 0 or -errno with why in err. */
static int sync_dir(const char *path, const char *dir, char *err, size_t errsize)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (dfd < 0)
		return ferr(err, errsize, "%s: written, but its directory %s cannot be opened to sync it: %s",
			    path, dir, strerror(errno));
	r = sync_fd(dfd);
	close(dfd);
	if (r)
		snprintf(err, errsize, "%s: written, but syncing its directory %s failed: %s",
			 path, dir, strerror(-r));
	return r;
}

/*
 * path and its directory synced, though nothing was written now: what an
 * earlier write left in the page cache (a rename whose directory sync
 * failed) is durable once this returns 0.
 */
static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The text to a temporary file, synced, then renamed over path or (excl:
 * a new description) linked to it, -EEXIST if path exists: two creates
 * of one name never overwrite each other.
 */
static int write_file(const char *path, const char *text, size_t len,
		      r45desc_before_rename_fn before_rename, void *ctx, bool excl,
		      char *err, size_t errsize)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd, r;

	if (!slash || slash == path) {
		snprintf(err, errsize, "%s: not an absolute path below /", path);
		return -EINVAL;
	}
	if ((size_t)(slash - path) >= sizeof(dir) ||
	    snprintf(tmp, sizeof(tmp), "%.*s/.%s.XXXXXX", (int)(slash - path), path,
		     slash + 1) >= (int)sizeof(tmp)) {
		snprintf(err, errsize, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return ferr(err, errsize, "%s: cannot create a temporary file in %s: %s",
			    path, dir, strerror(errno));
	/* a replaced file keeps its mode (an admin's 0600 stays 0600) */
	{
		struct stat sb;
		mode_t mode = 0644;

		if (!excl && !stat(path, &sb) && S_ISREG(sb.st_mode))
			mode = sb.st_mode & 07777;
		r = fchmod(fd, mode) ? -errno : 0;
	}
	if (!r)
		r = write_all(fd, text, len);
	if (!r)
		r = sync_fd(fd);
	if (close(fd) && !r)
		r = -errno;
	if (r) {
		snprintf(err, errsize, "%s: writing %s: %s", path, tmp, strerror(-r));
		unlink(tmp);
		return r;
	}
	if (before_rename) {
		r = before_rename(tmp, ctx);
		if (r) {
			snprintf(err, errsize, "%s: stopped before the rename: %s", path,
				 strerror(r < 0 ? -r : r));
			unlink(tmp);
			return r < 0 ? r : -r;
		}
	}
	if (excl ? link(tmp, path) : rename(tmp, path)) {
		if (excl && errno == EEXIST)
			r = ferr(err, errsize, "%s exists already", path);
		else
			r = ferr(err, errsize, "%s: %s from %s: %s", path, excl ? "link" : "rename",
				 tmp, strerror(errno));
		unlink(tmp);
		return r;
	}
	if (excl)
		unlink(tmp);
	/* the rename itself durable */
	return sync_dir(path, dir, err, errsize);
}

int r45desc_write_atomic(const char *path, const char *text, size_t len,
			 r45desc_before_rename_fn before_rename, void *ctx,
			 char *err, size_t errsize)
{
	return write_file(path, text, len, before_rename, ctx, false, err, errsize);
}

/*
 * The temporary files (.<name>.conf.XXXXXX) of path made before since:
 * left by a writer that died (a crash) before its rename.  Called under
 * the array's lock, whose holders alone make them (a create's, for a
 * path that exists, fails anyway).
 */
static void remove_stale(const char *path, time_t since)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX], p[PATH_MAX + NAME_MAX + 2];
	struct dirent *de;
	struct stat sb;
	size_t bl;
	DIR *dp;

	if (!slash || (size_t)(slash - path) >= sizeof(dir))
		return;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	bl = strlen(slash + 1);
	dp = opendir(dir[0] ? dir : "/");
	if (!dp)
		return;
	while ((de = readdir(dp))) {
		if (de->d_name[0] != '.' || strncmp(de->d_name + 1, slash + 1, bl) ||
		    de->d_name[1 + bl] != '.' || strlen(de->d_name + 2 + bl) != 6)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (!lstat(p, &sb) && S_ISREG(sb.st_mode) && sb.st_mtime < since)
			unlink(p);
	}
	closedir(dp);
}

static int save(const char *path, const struct r45desc *d, bool excl, char *err,
		size_t errsize)
{
	char *buf = malloc(R45DESC_FILE_MAX);
	int r;

	if (!buf) {
		snprintf(err, errsize, "%s: out of memory", path);
		return -ENOMEM;
	}
	r = r45desc_format(d, buf, R45DESC_FILE_MAX);
	if (r) {
		snprintf(err, errsize, "%s: description too long", path);
	} else {
		/* never write what the next read would refuse */
		struct r45desc *back = malloc(sizeof(*back));
		char why[384];

		r = back ? r45desc_parse(buf, strlen(buf), "the new description", back,
					 why, sizeof(why)) : -ENOMEM;
		free(back);
		/* nor what activation could not turn into a table line */
		if (!r) {
			char *table = malloc(R45DESC_TABLE_MAX), terr[128];

			if (!table)
				r = -ENOMEM;
			else if (r45desc_table(d, 0, table, R45DESC_TABLE_MAX, terr,
					       sizeof(terr)) == -ENOSPC) {
				snprintf(why, sizeof(why), "its table line would not fit in %d bytes",
					 R45DESC_TABLE_MAX);
				r = -EINVAL;
			}
			free(table);
		}
		if (r) {
			snprintf(err, errsize, "%s: not written: %s", path,
				 r == -ENOMEM ? "out of memory" : why);
		} else {
			if (!excl)
				remove_stale(path, time(NULL));
			r = write_file(path, buf, strlen(buf), NULL, NULL, excl, err, errsize);
		}
	}
	free(buf);
	return r;
}

int r45desc_save(const char *path, const struct r45desc *d, char *err, size_t errsize)
{
	return save(path, d, false, err, errsize);
}

int r45desc_create(const char *path, const struct r45desc *d, char *err, size_t errsize)
{
	return save(path, d, true, err, errsize);
}

/*
 * The description at path read for a change, under its lock: 0 with *d
 * (malloc'ed) and *lock (the lock's descriptor) to give back with
 * unlock_free(); or -errno with why in err and nothing held.
 */
static int locked_load(const char *path, struct r45desc **d, int *lock, char *err,
		       size_t errsize)
{
	int r;

	*d = malloc(sizeof(**d));
	if (!*d) {
		snprintf(err, errsize, "%s: out of memory", path);
		return -ENOMEM;
	}
	*lock = r45desc_lock(path, err, errsize);
	if (*lock < 0) {
		free(*d);
		return *lock;
	}
	r = r45desc_load(path, *d, err, errsize);
	if (r) {
		r45desc_unlock(*lock);
		free(*d);
	}
	return r;
}

static void unlock_free(int lock, struct r45desc *d)
{
	r45desc_unlock(lock);
	free(d);
}

int r45desc_remove(const char *path, const char *uuid, char *err, size_t errsize)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct r45desc *d;
	int lock, r;

	r = locked_load(path, &d, &lock, err, errsize);
	if (r)
		return r;
	if (strcmp(d->uuid, uuid)) {
		snprintf(err, errsize, "%s gives the uuid %s now, not %s: another's, left alone",
			 path, d->uuid, uuid);
		r = -EEXIST;
	}
	if (!r && unlink(path))
		r = ferr(err, errsize, "%s: %s", path, strerror(errno));
	if (!r && slash && (size_t)(slash - path) < sizeof(dir)) {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		r = sync_dir(path, dir[0] ? dir : "/", err, errsize);
	}
	unlock_free(lock, d);
	return r;
}

/*
 * Does the description in file (in dir) give uuid?  1 or 0, or -errno
 * with why in err: a file that cannot be read or parsed might be the
 * one, so the search cannot say there is none.
 */
static int has_uuid(const char *dir, const char *file, const char *uuid,
		    char *path, size_t size, char *err, size_t errsize)
{
	struct r45desc *d;
	int r;

	if (snprintf(path, size, "%s/%s", dir, file) >= (int)size) {
		snprintf(err, errsize, "%s/%s: path too long", dir, file);
		return -ENAMETOOLONG;
	}
	d = malloc(sizeof(*d));
	if (!d) {
		snprintf(err, errsize, "out of memory");
		return -ENOMEM;
	}
	r = r45desc_load(path, d, err, errsize);
	if (!r)
		r = !strcmp(d->uuid, uuid);
	else if (r == -ENOENT)
		r = 0;		/* removed meanwhile */
	free(d);
	return r;
}

int r45desc_find(const char *dir, const char *name, const char *uuid,
		 char *path, size_t size, char *err, size_t errsize)
{
	char cand[PATH_MAX], why[512] = "", bad[PATH_MAX] = "";
	struct r45desc *d;
	struct dirent *de;
	DIR *dp;
	int r, bad_r = 0, found = 0;

	if (name && !r45desc_check_name(name)) {
		if (snprintf(path, size, "%s/%s.conf", dir, name) >= (int)size) {
			snprintf(err, errsize, "%s/%s.conf: path too long", dir, name);
			return -ENAMETOOLONG;
		}
		d = malloc(sizeof(*d));
		if (!d) {
			snprintf(err, errsize, "out of memory");
			return -ENOMEM;
		}
		r = r45desc_load(path, d, err, errsize);
		if (!r && uuid && uuid[0] && strcmp(d->uuid, uuid)) {
			snprintf(err, errsize, "%s gives the uuid %s, the device has %s: another array's description",
				 path, d->uuid, uuid);
			r = -EINVAL;
		}
		free(d);
		if (r != -ENOENT)
			return r;
	}
	if (!uuid || !uuid[0]) {
		snprintf(err, errsize, "no description of %s in %s", name ? name : "?", dir);
		return -ENOENT;
	}
	dp = opendir(dir);
	if (!dp) {
		r = -errno;
		snprintf(err, errsize, "%s: %s", dir, strerror(-r));
		return r;
	}
	while ((de = readdir(dp))) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".conf"))
			continue;
		r = has_uuid(dir, de->d_name, uuid, cand, sizeof(cand), why, sizeof(why));
		if (r < 0 && !bad_r) {
			bad_r = r == -ENOENT ? -EIO : r;
			snprintf(bad, sizeof(bad), "%s", why);
		} else if (r > 0 && found++) {
			snprintf(err, errsize, "%s and %s both give the uuid %s: which one describes %s is not known",
				 path, cand, uuid, name ? name : "it");
			closedir(dp);
			return -EINVAL;
		} else if (r > 0 && snprintf(path, size, "%s", cand) >= (int)size) {
			snprintf(err, errsize, "%s: path too long", cand);
			closedir(dp);
			return -ENAMETOOLONG;
		}
	}
	closedir(dp);
	if (found)
		return 0;
	/* the one that cannot be read might be its description */
	if (bad_r) {
		snprintf(err, errsize, "no description of %s (uuid %s) found, but a file that may be its description cannot be read: %s",
			 name ? name : "?", uuid, bad);
		return bad_r;
	}
	snprintf(err, errsize, "no description of %s (uuid %s) in %s",
		 name ? name : "?", uuid, dir);
	return -ENOENT;
}

/*
 * The lock of one array: an flock() on its description file itself, not
 * on the directory (an array's record never waits for another's).  The
 * writers replace the file by a rename while they hold the lock on the
 * old one: a lock taken on a file no longer at path is dropped and
 * taken again on the new one.  Never waited for without a bound: a
 * holder that stopped (a raid45ctl at a terminal's ^Z) must not keep
 * the plugin, and the writes held for a failure, waiting for ever.
 */
#define LOCK_TRY_NS (50 * 1000 * 1000)

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int r45desc_lock_wait(const char *path, int timeout_ms, char *err, size_t errsize)
{
	const struct timespec tick = { 0, LOCK_TRY_NS };
	int64_t end = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	struct stat fs, ps;
	int fd, r;

	for (;;) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			return ferr(err, errsize, "%s: %s", path, strerror(errno));
		while (flock(fd, LOCK_EX | LOCK_NB)) {
			if (errno == EINTR)
				continue;
			if (errno == EWOULDBLOCK && (timeout_ms < 0 || now_ms() < end)) {
				nanosleep(&tick, NULL);
				continue;
			}
			if (errno == EWOULDBLOCK)
				r = ferr(err, errsize, "%s: locked by another program for %d ms (a raid45ctl stopped or still running?): not waiting longer",
					 path, timeout_ms);
			else
				r = ferr(err, errsize, "%s: cannot lock it: %s", path,
					 strerror(errno));
			close(fd);
			return r;
		}
		if (fstat(fd, &fs)) {
			r = ferr(err, errsize, "%s: %s", path, strerror(errno));
			close(fd);
			return r;
		}
		if (!stat(path, &ps) && ps.st_dev == fs.st_dev && ps.st_ino == fs.st_ino)
			return fd;
		close(fd);	/* replaced (or removed) while we waited */
	}
}

int r45desc_lock(const char *path, char *err, size_t errsize)
{
	return r45desc_lock_wait(path, R45DESC_LOCK_TIMEOUT_MS, err, errsize);
}

void r45desc_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* drops the flock */
}

/* ---- the names of devices ---- */

const char *r45desc_by_id = "/dev/disk/by-id";

/* A /dev/disk/by-id name of the device rdev (not wwn-/eui.: less readable). */
static bool by_id(dev_t rdev, char *out, size_t size)
{
	struct dirent *de;
	char best[NAME_MAX + 1] = "", p[PATH_MAX];
	bool best_plain = false;
	struct stat sb;
	DIR *dp = opendir(r45desc_by_id);

	if (!dp)
		return false;
	while ((de = readdir(dp))) {
		bool plain = strncmp(de->d_name, "wwn-", 4) && !strstr(de->d_name, "-eui.");

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", r45desc_by_id, de->d_name);
		if (stat(p, &sb) || !S_ISBLK(sb.st_mode) || sb.st_rdev != rdev)
			continue;
		if (!best[0] || (plain && !best_plain) ||
		    (plain == best_plain && strcmp(de->d_name, best) < 0)) {
			snprintf(best, sizeof(best), "%s", de->d_name);
			best_plain = plain;
		}
	}
	closedir(dp);
	return best[0] && snprintf(out, size, "%s/%s", r45desc_by_id, best) < (int)size;
}

int r45desc_stable_path(const char *path, dev_t rdev, char *out, size_t size)
{
	if (strncmp(path, "/dev/disk/", 10) && strncmp(path, "/dev/mapper/", 12) &&
	    by_id(rdev, out, size))
		return 1;
	snprintf(out, size, "%s", path);
	return 0;
}

int r45desc_used_by(const char *dir, dev_t dev, char *who, size_t size)
{
	struct r45desc *d = malloc(sizeof(*d));
	char path[PATH_MAX], err[256];
	struct dirent *de;
	struct stat sb;
	unsigned int i;
	int r = 0;
	DIR *dp;

	if (!d)
		return -ENOMEM;
	dp = opendir(dir);
	if (!dp) {
		free(d);
		return errno == ENOENT ? 0 : -errno;
	}
	while (!r && (de = readdir(dp))) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".conf") ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		/*
		 * A description that cannot be read may name dev: not taken as
		 * "not used" (a typo in r6.conf must not hand r6's disks out)
		 */
		if (r45desc_load(path, d, err, sizeof(err))) {
			snprintf(who, size, "perhaps the array described in %s, which cannot be read (%s)",
				 path, err);
			r = 1;
			break;
		}
		for (i = 0; !r && i < d->nr_members; i++)
			if (d->m[i].path[0] && !stat(d->m[i].path, &sb) && S_ISBLK(sb.st_mode) &&
			    sb.st_rdev == dev) {
				snprintf(who, size, "member %u (%s) of the array %s described in %s",
					 i, d->m[i].path, d->name, path);
				r = 1;
			}
		if (!r && d->disk_log && !stat(d->log_dev, &sb) && S_ISBLK(sb.st_mode) &&
		    sb.st_rdev == dev) {
			snprintf(who, size, "the log device (%s) of the array %s described in %s",
				 d->log_dev, d->name, path);
			r = 1;
		}
	}
	closedir(dp);
	free(d);
	return r;
}

/* ---- where the descriptions live ---- */

const char *r45desc_sysfs = "/sys";

/* A sysfs "dev" file's maj:min: 0 or -1. */
static int read_devno(const char *file, dev_t *dev)
{
	unsigned int ma, mi;
	FILE *f = fopen(file, "re");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%u:%u", &ma, &mi);
	fclose(f);
	if (n != 2)
		return -1;
	*dev = makedev(ma, mi);
	return 0;
}

static void add_dev(dev_t *out, unsigned int *n, unsigned int max, dev_t dev)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (out[i] == dev)
			return;
	if (*n < max)
		out[(*n)++] = dev;
}

int r45desc_below(dev_t dev, dev_t *out, unsigned int max)
{
	char p[PATH_MAX], q[PATH_MAX + 300], real[PATH_MAX];
	unsigned int n = 0, i;
	struct dirent *de;
	dev_t d;
	DIR *dp;

	add_dev(out, &n, max, dev);
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/dev/block/%u:%u", r45desc_sysfs, major(out[i]),
			 minor(out[i]));
		/* a partition: the disk it is on */
		snprintf(q, sizeof(q), "%s/partition", p);
		if (!access(q, F_OK) && realpath(p, real)) {
			char *slash = strrchr(real, '/');

			if (slash) {
				*slash = '\0';
				snprintf(q, sizeof(q), "%s/dev", real);
				if (!read_devno(q, &d))
					add_dev(out, &n, max, d);
			}
		}
		/* what it is made of (dm, md) */
		snprintf(q, sizeof(q), "%s/slaves", p);
		dp = opendir(q);
		if (!dp)
			continue;
		while ((de = readdir(dp))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(q, sizeof(q), "%s/class/block/%s/dev", r45desc_sysfs, de->d_name);
			if (!read_devno(q, &d))
				add_dev(out, &n, max, d);
		}
		closedir(dp);
	}
	return (int)n;
}

int r45desc_dir_on(const char *dir, dev_t array, char *err, size_t errsize)
{
	dev_t below[64];
	struct stat sb;
	int n, i;

	if (stat(dir, &sb))
		return ferr(err, errsize, "%s: %s", dir, strerror(errno));
	n = r45desc_below(sb.st_dev, below, 64);
	for (i = 0; i < n; i++)
		if (below[i] == array) {
			snprintf(err, errsize, "%s is on the array itself (its file system on %u:%u, %s %u:%u): a record there waits behind the writes held for the failure, forever; move the descriptions off the array",
				 dir, major(sb.st_dev), minor(sb.st_dev),
				 i ? "stacked on the array" : "the array", major(array), minor(array));
			return 1;
		}
	return 0;
}

#define STATE(s) (1u << (s))

static int devno_stat(const char *path, dev_t *dev)
{
	struct stat sb;

	if (stat(path, &sb))
		return -errno;
	if (!S_ISBLK(sb.st_mode))
		return -ENOTBLK;
	*dev = sb.st_rdev;
	return 0;
}

int (*r45desc_devno)(const char *path, dev_t *dev) = devno_stat;

/*
 * The members in mask whose state is in from become to, under the lock;
 * with devs, only if each one's recorded path is the device devs[i]
 * (else nothing changes: -ESTALE, why in err).
 */
static int update(const char *path, uint32_t mask, unsigned int nr_members,
		  unsigned int from, enum r45desc_state to, const dev_t *devs,
		  uint32_t *changed, char *err, size_t errsize)
{
	struct r45desc *d;
	uint32_t ch = 0;
	unsigned int i;
	int r, lock;

	if (changed)
		*changed = 0;
	r = locked_load(path, &d, &lock, err, errsize);
	if (r)
		return r;
	if (d->nr_members != nr_members) {
		snprintf(err, errsize, "%s describes %u members, the array has %u",
			 path, d->nr_members, nr_members);
		r = -EINVAL;
		goto out;
	}
	for (i = 0; i < nr_members; i++) {
		dev_t dev = 0;

		if (!(mask & (1u << i)) || !(from & STATE(d->m[i].state)))
			continue;
		/*
		 * The kernel rebuilt the device in its table; the description
		 * may name another by now (a replace whose reload failed): that
		 * one was never written and must not become current.
		 */
		if (devs && (!d->m[i].path[0] || r45desc_devno(d->m[i].path, &dev) ||
			     dev != devs[i])) {
			snprintf(err, errsize,
				 "%s names %s for member %u (%u:%u), the array has %u:%u there: not recorded %s",
				 path, d->m[i].path[0] ? d->m[i].path : "no device", i, major(dev),
				 minor(dev), major(devs[i]), minor(devs[i]), r45desc_state_name(to));
			r = -ESTALE;
			goto out;
		}
		d->m[i].state = to;
		ch |= 1u << i;
	}
	/*
	 * Nothing to change may mean an earlier record's rename whose
	 * directory sync failed, and a second fsync may return 0 for pages
	 * whose write failed and were marked clean: the file is written
	 * again (new pages, fsync, rename, directory fsync), so that 0 means
	 * I/O that succeeded now.
	 */
	r = r45desc_save(path, d, err, errsize);
	if (!r && changed)
		*changed = ch;
out:
	unlock_free(lock, d);
	return r;
}

int r45desc_record_failed(const char *path, uint32_t mask, unsigned int nr_members,
			  uint32_t *changed, char *err, size_t errsize)
{
	return update(path, mask, nr_members, STATE(R45DESC_CURRENT) | STATE(R45DESC_REBUILDING),
		      R45DESC_FAILED, NULL, changed, err, errsize);
}

int r45desc_record_rebuilt(const char *path, uint32_t mask, unsigned int nr_members,
			   const dev_t *devs, uint32_t *changed, char *err, size_t errsize)
{
	return update(path, mask, nr_members, STATE(R45DESC_REBUILDING), R45DESC_CURRENT, devs,
		      changed, err, errsize);
}

int r45desc_record_unfailed(const char *path, uint32_t mask, const struct r45desc *before,
			    char *err, size_t errsize)
{
	struct r45desc *d;
	unsigned int i;
	int r, lock;

	r = locked_load(path, &d, &lock, err, errsize);
	if (r)
		return r;
	if (d->nr_members != before->nr_members || strcmp(d->uuid, before->uuid)) {
		snprintf(err, errsize, "%s describes another array now: not changed", path);
		r = -EINVAL;
	}
	for (i = 0; !r && i < d->nr_members; i++)
		if ((mask & (1u << i)) && d->m[i].state == R45DESC_FAILED &&
		    !strcmp(d->m[i].path, before->m[i].path))
			d->m[i].state = before->m[i].state;
	if (!r)
		r = r45desc_save(path, d, err, errsize);
	unlock_free(lock, d);
	return r;
}

int r45desc_record_replaced(const char *path, unsigned int k, unsigned int nr_members,
			    const char *dev, uint64_t offset, char *err, size_t errsize)
{
	struct r45desc *d;
	int r, lock;

	r = locked_load(path, &d, &lock, err, errsize);
	if (r)
		return r;
	r = -EINVAL;
	if (d->nr_members != nr_members || k >= nr_members)
		snprintf(err, errsize, "%s describes %u members, the array has %u",
			 path, d->nr_members, nr_members);
	else if (d->m[k].state != R45DESC_FAILED && d->m[k].state != R45DESC_MISSING)
		snprintf(err, errsize, "%s calls member %u %s, not failed or missing: not replaced there",
			 path, k, r45desc_state_name(d->m[k].state));
	else if (dev[0] != '/' || strlen(dev) >= R45DESC_PATH_MAX)
		snprintf(err, errsize, "%s: \"%s\" is not an absolute path that fits", path, dev);
	else
		r = 0;
	if (r)
		goto out;
	memset(d->m[k].path, 0, sizeof(d->m[k].path));
	strcpy(d->m[k].path, dev);
	d->m[k].offset = offset;
	d->m[k].state = R45DESC_REBUILDING;
	r = r45desc_save(path, d, err, errsize);
out:
	unlock_free(lock, d);
	return r;
}

/* The description of a device for the plugin: found, for sector 0, trusted. */
static int locate(const char *dir, const char *name, const char *uuid, uint64_t start,
		  r45desc_trust_fn trust, char *path, size_t size, char *err, size_t errsize)
{
	char why[PATH_MAX + 128];
	int r;

	r = r45desc_find(dir, name, uuid, path, size, err, errsize);
	if (r)
		return r;
	if (start) {
		snprintf(err, errsize, "%s describes a raid45 target at sector 0, this one starts at %" PRIu64,
			 path, start);
		return -EINVAL;
	}
	r = trust ? trust(path, why, sizeof(why)) : 0;
	if (r) {
		snprintf(err, errsize, "%s not written: %s (it must be a regular file owned by root that only root can change)",
			 path, why);
		return r == -ENOENT ? -EIO : r;
	}
	return 0;
}

int r45desc_record_device(const char *dir, const char *name, const char *uuid,
			  uint64_t start, uint32_t mask, unsigned int nr, const dev_t *rebuilt,
			  r45desc_trust_fn trust, char *err, size_t errsize)
{
	char path[PATH_MAX];
	uint32_t changed;
	int r;

	r = locate(dir, name, uuid, start, trust, path, sizeof(path), err, errsize);
	if (r)
		return r;
	if (!rebuilt)
		r = r45desc_record_failed(path, mask, nr, &changed, err, errsize);
	else
		r = r45desc_record_rebuilt(path, mask, nr, rebuilt, &changed, err, errsize);
	/* found a moment ago: gone now is not "no description" */
	return r == -ENOENT ? -EIO : r;
}

int r45desc_record_device_replaced(const char *dir, const char *name, const char *uuid,
				   uint64_t start, unsigned int k, unsigned int nr,
				   const char *dev, uint64_t offset, r45desc_trust_fn trust,
				   char *err, size_t errsize)
{
	char path[PATH_MAX];
	int r;

	char stable[R45DESC_PATH_MAX];
	struct stat sb;

	r = locate(dir, name, uuid, start, trust, path, sizeof(path), err, errsize);
	if (r)
		return r;
	/* as raid45ctl names members: what the next boot calls the same disk */
	if (!stat(dev, &sb) && S_ISBLK(sb.st_mode))
		r45desc_stable_path(dev, sb.st_rdev, stable, sizeof(stable));
	else
		snprintf(stable, sizeof(stable), "%s", dev);
	r = r45desc_record_replaced(path, k, nr, stable, offset, err, errsize);
	return r == -ENOENT ? -EIO : r;
}
