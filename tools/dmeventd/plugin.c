// SPDX-License-Identifier: GPL-2.0
/*
 * libdevmapper-event-raid45.so: the dmeventd plugin for raid45 targets.
 *
 * dmeventd runs one thread per registered device and calls, on it,
 * register_device() once, process_event() on every dm event of the
 * device (member failure, sync finished, array dead) and every
 * <timeout> seconds (DM_EVENT_TIMEOUT), and unregister_device() at the
 * end.  The decisions are r45mon.c's; this file gives it device-mapper
 * (status, table, messages, reloads through libdevmapper), the hook
 * program (r45safe.c: run only if root alone can change it, with none of
 * dmeventd's descriptors; waited for with a time limit), spares (block
 * devices nobody holds) and the log (syslog as "dmeventd-raid45", and
 * the file named by the device's log= key).
 *
 * Per-device state lives in *user.  The only global mutable state is
 * the syslog socket (r45syslog.c) and the count of flushes still running
 * (r45flush.c), each under its own lock, which no call that can block
 * holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <libdevmapper.h>
#include <libdevmapper-event.h>
#include "r45desc.h"
#include "r45flush.h"
#include "r45mon.h"
#include "r45safe.h"
#include "r45syslog.h"

#ifndef R45MON_CONF_DIR
#define R45MON_CONF_DIR "/etc/dm-raid45/monitor"
#endif
#define CONF_DIR_ENV "DM_RAID45_MONITOR_DIR"
#define IDENT "dmeventd-raid45"
#define CONF_MAX 65536
/* status re-reads after an action, per event */
#define MAX_PASSES 8
/* the flush before a rebuilt record: given up after (r45flush.h) */
#define FLUSH_TIMEOUT_MS 10000

struct plugin_dev {
	pthread_mutex_t lock;
	char uuid[DM_UUID_LEN];
	char name[R45MON_NAME_MAX];
	dev_t devno;		/* the dm device's, 0: not known */
	bool no_target_logged;
	bool status_error_logged;
	struct r45_flush *flush;	/* one given up on, still running */
	char conf_path[PATH_MAX];	/* its monitor configuration */
	struct r45mon_dev mon;
};

/* ---- log ---- */

/*
 * Our own ident: openlog() would rename every line of dmeventd and of the
 * other plugins in the process.  r45syslog.c never waits for syslogd: with
 * /var on an array whose writes are held, a blocking send would stop
 * every monitoring thread, and none would send allow_writes.
 */
static struct r45_syslog plugin_syslog = R45_SYSLOG_INIT("/dev/log", IDENT, LOG_DAEMON);

static void syslog_line(int prio, const char *line)
{
	(void)r45_syslog_line(&plugin_syslog, prio, line);
}

__attribute__((destructor))
static void syslog_close(void)
{
	r45_syslog_close(&plugin_syslog);
}

static void file_line(const char *path, const char *line)
{
	char buf[1400], ts[32];
	struct timespec now;
	struct tm tm;
	int fd, len;

	clock_gettime(CLOCK_REALTIME, &now);
	if (!localtime_r(&now.tv_sec, &tm) ||
	    !strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", &tm))
		strcpy(ts, "-");
	len = snprintf(buf, sizeof(buf), "%s.%03ld %s\n", ts,
		       now.tv_nsec / 1000000, line);
	if (len < 0)
		return;
	if ((size_t)len >= sizeof(buf)) {
		len = sizeof(buf) - 1;
		buf[len - 1] = '\n';
	}
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	/* one write(): lines of several devices do not interleave */
	if (write(fd, buf, len) != len) {
		/* nowhere left to say so */
	}
	close(fd);
}

static void pd_log(void *ctx, int prio, const char *line)
{
	struct plugin_dev *pd = ctx;

	syslog_line(prio, line);
	if (pd->mon.conf.log[0])
		file_line(pd->mon.conf.log, line);
}

/* Log without the monitor set up yet (registration errors). */
__attribute__((format(printf, 3, 4)))
static void early_log(const char *device, int prio, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "%s: ", device);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	syslog_line(prio, line);
}

/* ---- device-mapper ---- */

static const char *desc_dir(const struct plugin_dev *pd);

static struct dm_task *dev_task(struct plugin_dev *pd, int type)
{
	struct dm_task *dmt = dm_task_create(type);

	if (!dmt)
		return NULL;
	if (pd->uuid[0] ? !dm_task_set_uuid(dmt, pd->uuid) :
			  !dm_task_set_name(dmt, pd->name)) {
		dm_task_destroy(dmt);
		return NULL;
	}
	return dmt;
}

/* The errno of a failed task, never 0. */
static int task_error(struct dm_task *dmt)
{
	int e = dm_task_get_errno(dmt);

	return e > 0 ? -e : -EIO;
}

static int run_task(struct plugin_dev *pd, int type, struct dm_task **out)
{
	struct dm_task *dmt = dev_task(pd, type);
	int r;

	if (!dmt)
		return -ENOMEM;
	if (type == DM_DEVICE_STATUS || type == DM_DEVICE_TABLE)
		(void)dm_task_no_flush(dmt);	/* never wait on held I/O */
	if (!dm_task_run(dmt)) {
		r = task_error(dmt);
		dm_task_destroy(dmt);
		return r;
	}
	*out = dmt;
	return 0;
}

/* The words of the raid45 target at start of a TABLE or STATUS task. */
static int target_params(struct plugin_dev *pd, int task, uint64_t start, char *buf,
			 size_t size)
{
	struct dm_task *dmt;
	uint64_t s, l;
	char *type, *params;
	void *next = NULL;
	int r = run_task(pd, task, &dmt);

	if (r)
		return r;
	r = -ENOENT;
	do {
		type = NULL;
		params = NULL;
		next = dm_get_next_target(dmt, next, &s, &l, &type, &params);
		if (type && params && s == start && !strcmp(type, "raid45")) {
			r = strlen(params) < size ? 0 : -ENOSPC;
			if (!r)
				strcpy(buf, params);
			break;
		}
	} while (next);
	dm_task_destroy(dmt);
	return r;
}

static int pd_get_table(void *ctx, uint64_t start, char *buf, size_t size)
{
	return target_params(ctx, DM_DEVICE_TABLE, start, buf, size);
}

static int simple_task(struct plugin_dev *pd, int type, bool udev_cookie)
{
	struct dm_task *dmt = dev_task(pd, type);
	uint32_t cookie = 0;
	bool waited = false;
	int r = 0;

	if (!dmt)
		return -ENOMEM;
	/*
	 * A suspend without flush: writes held for a failure are handed
	 * back to dm core and held again by the new table, never submitted
	 * (a flushing suspend's presuspend releases them, whether or not
	 * the failure is recorded in the description).
	 */
	if (type == DM_DEVICE_SUSPEND && !dm_task_no_flush(dmt)) {
		dm_task_destroy(dmt);
		return -ENOMEM;
	}
	if (udev_cookie && dm_task_set_cookie(dmt, &cookie, 0))
		waited = true;
	if (!dm_task_run(dmt))
		r = task_error(dmt);
	if (waited)
		(void)dm_udev_wait(cookie);
	dm_task_destroy(dmt);
	return r;
}

static int reload_locked(struct plugin_dev *pd, uint64_t start, const char *new_params,
			 char *err, size_t errsize)
{
	struct dm_task *tab, *load;
	struct dm_info info;
	uint64_t s, l;
	char *type, *params;
	void *next = NULL;
	bool found = false;
	int r;

	r = run_task(pd, DM_DEVICE_TABLE, &tab);
	if (r) {
		snprintf(err, errsize, "reading the table: %s", strerror(-r));
		return r;
	}
	load = dev_task(pd, DM_DEVICE_RELOAD);
	if (!load) {
		dm_task_destroy(tab);
		snprintf(err, errsize, "reading the table: out of memory");
		return -ENOMEM;
	}
	if (!dm_task_get_info(tab, &info) || !info.exists) {
		dm_task_destroy(tab);
		dm_task_destroy(load);
		snprintf(err, errsize, "reading the table: no device information");
		return -ENODEV;
	}
	/*
	 * Another program's load not resumed yet (raid45ctl's, or a
	 * dmsetup load): our resume would make its table live, or our
	 * load replace it.  Not now; tried again at the next event.
	 */
	if (info.inactive_table) {
		dm_task_destroy(tab);
		dm_task_destroy(load);
		snprintf(err, errsize, "the device has an inactive table already (another program's reload under way, or one left behind: dmsetup clear %s)",
			 pd->mon.name);
		return -EAGAIN;
	}
	/* a read-only device stays read-only */
	if (info.read_only && !dm_task_set_ro(load)) {
		dm_task_destroy(tab);
		dm_task_destroy(load);
		snprintf(err, errsize, "building the new table: out of memory");
		return -ENOMEM;
	}
	do {
		type = NULL;
		params = NULL;
		next = dm_get_next_target(tab, next, &s, &l, &type, &params);
		if (!type)
			break;
		if (s == start && !strcmp(type, "raid45")) {
			found = true;
			params = (char *)new_params;
		}
		if (!dm_task_add_target(load, s, l, type, params ? params : "")) {
			r = -ENOMEM;
			break;
		}
	} while (next);
	dm_task_destroy(tab);
	if (!r && !found)
		r = -ENOENT;
	if (r) {
		dm_task_destroy(load);
		snprintf(err, errsize, "building the new table: %s", strerror(-r));
		return r;
	}
	if (!dm_task_run(load)) {
		r = task_error(load);
		dm_task_destroy(load);
		snprintf(err, errsize, "load: %s (the kernel log says why)", strerror(-r));
		return r;
	}
	dm_task_destroy(load);

	r = simple_task(pd, DM_DEVICE_SUSPEND, false);
	if (r) {
		int c = simple_task(pd, DM_DEVICE_CLEAR, false);

		snprintf(err, errsize, "suspend: %s; the new table %s", strerror(-r),
			 c ? "is left inactive (dmsetup clear drops it)" : "was cleared");
		return r;
	}
	r = simple_task(pd, DM_DEVICE_RESUME, true);
	if (r) {
		/* once more: a suspended array serves nothing */
		r = simple_task(pd, DM_DEVICE_RESUME, true);
		if (r) {
			snprintf(err, errsize, "resume: %s: the device is left suspended (dmsetup resume)",
				 strerror(-r));
			return r;
		}
	}
	return 0;
}

/*
 * Reloads are serialised with raid45ctl's by the array's description lock
 * (r45desc.h, r45desc_lock), held from before the check for an inactive
 * table until after the resume.  The suspend is noflush: held writes stay
 * held and the lock holder never waits on them.  Nothing here takes the
 * lock again (flock locks are per open file description: a record made
 * under it would wait for itself): r45mon records after reload returns.
 * A device without a description (-ENOENT) is reloaded unlocked.
 */
static int pd_reload(void *ctx, uint64_t start, const char *new_params,
		     char *err, size_t errsize)
{
	struct plugin_dev *pd = ctx;
	char path[PATH_MAX], why[512];
	int lock = -1, r;

	r = r45desc_find(desc_dir(pd), pd->mon.name, pd->uuid, path, sizeof(path), why,
			 sizeof(why));
	if (r && r != -ENOENT) {
		snprintf(err, errsize, "the description to lock: %s", why);
		return -EAGAIN;
	}
	if (!r) {
		lock = r45desc_lock(path, why, sizeof(why));
		if (lock < 0) {
			snprintf(err, errsize, "%s", why);
			return -EAGAIN;
		}
	}
	r = reload_locked(pd, start, new_params, err, errsize);
	r45desc_unlock(lock);
	return r;
}

static int pd_message(void *ctx, uint64_t start, const char *msg)
{
	struct plugin_dev *pd = ctx;
	struct dm_task *dmt = dev_task(pd, DM_DEVICE_TARGET_MSG);
	int r = 0;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_sector(dmt, start) || !dm_task_set_message(dmt, msg))
		r = -ENOMEM;
	else if (!dm_task_run(dmt))
		r = task_error(dmt);
	dm_task_destroy(dmt);
	return r;
}

/* ---- the hook ---- */

static int pd_run_hook(void *ctx, const char *const argv[])
{
	struct plugin_dev *pd = ctx;
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	struct timespec start, now;
	char why[PATH_MAX + 128];
	pid_t pid, w;
	int r, status;

	/*
	 * It runs as root: a hook someone else could have written or put
	 * in its place is not run, and the failure stays unrecorded.
	 */
	r = r45_trusted_file(argv[0], R45SAFE_OWNER, why, sizeof(why));
	if (r == -ENOENT)
		return r;
	if (r) {
		r45mon_log(&pd->mon, LOG_ERR, "hook %s not run: %s (it must be a regular file owned by root that only root can change, in directories only root can change)",
			   argv[0], why);
		return -EPERM;
	}
	if (access(argv[0], X_OK))
		return -errno;
	/*
	 * Its own process group (killed whole on time out), no signal
	 * blocked or caught (dmeventd's threads block all but the exit ones
	 * and catch SIGALRM), stdin from /dev/null, its output into the
	 * device's log file, and no other descriptor of dmeventd's.
	 */
	r = r45_spawn(argv, pd->mon.conf.log, &pid);
	if (r)
		return r;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -errno;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= (time_t)pd->mon.conf.hook_timeout) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return -ETIMEDOUT;
		}
		nanosleep(&tick, NULL);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -ECHILD;
}

/* ---- spares ---- */

static int pd_spare_info(void *ctx, const char *path, unsigned int *major,
			 unsigned int *minor, uint64_t *sectors)
{
	struct stat sb;
	uint64_t bytes;
	int fd, r = 0;

	(void)ctx;
	if (stat(path, &sb))
		return -errno;
	if (!S_ISBLK(sb.st_mode))
		return -ENOTBLK;
	*major = major(sb.st_rdev);
	*minor = minor(sb.st_rdev);
	/* an exclusive open fails while a table, a mount or md holds it */
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKGETSIZE64, &bytes))
		r = -errno;
	close(fd);
	if (r)
		return r;
	*sectors = bytes >> 9;
	return 0;
}

static const char *conf_dir(void);

/*
 * A set that "raid45-monitor dmraid" activated (UUID DMRAID45-<set>):
 * dmraid's metadata does not learn that a member was replaced and still
 * names the old disk.  Recorded, one line per replacement, in <conf
 * dir>/<set>.replaced, which raid45-monitor dmraid reads before it
 * activates the set again (and unregister leaves alone).
 */
static void pd_replaced(void *ctx, unsigned int k, const char *old, const char *path,
			const char *devno)
{
	struct plugin_dev *pd = ctx;
	char file[PATH_MAX], line[PATH_MAX + 128];
	int fd, n, err = 0;

	if (strncmp(pd->uuid, R45MON_DMRAID_UUID_PREFIX, strlen(R45MON_DMRAID_UUID_PREFIX)))
		return;
	if (snprintf(file, sizeof(file), "%s/%s.replaced", conf_dir(), pd->name) >=
	    (int)sizeof(file)) {
		r45mon_log(&pd->mon, LOG_ERR, "cannot record the replacement of member %u: path too long",
			   k);
		return;
	}
	n = snprintf(line, sizeof(line), "%lld member %u (%s) replaced by %s (%s)\n",
		     (long long)time(NULL), k, old, path, devno);
	if (n < 0 || n >= (int)sizeof(line))
		return;
	fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, (size_t)n) != n || fsync(fd))
		err = errno ? errno : EIO;
	if (fd >= 0 && close(fd) && !err)
		err = errno;
	if (err)
		r45mon_log(&pd->mon, LOG_ERR, "cannot record the replacement of member %u in %s: %s",
			   k, file, strerror(err));
	else
		r45mon_log(&pd->mon, LOG_NOTICE, "replacement of member %u recorded in %s: the set's dmraid metadata still names the old disk",
			   k, file);
}

/*
 * The descriptions' directory: the one raid45-monitor register saw and
 * wrote in the device's configuration (descriptions=), never dmeventd's
 * own environment (systemd's dmeventd has no $RAID45_CONF_DIR).
 */
static const char *desc_dir(const struct plugin_dev *pd)
{
	return r45mon_conf_descriptions(&pd->mon.conf);
}

/*
 * The array's description (<desc_dir>/<name>.conf, found by the dm name
 * or the UUID): the members that failed are recorded in it before any
 * allow_writes names them (r45mon.c).  -ENOENT: the array has none.  A
 * description only root can change is written (it decides what the next
 * activation takes for current); one describing a raid45 target that is
 * not at sector 0, or another number of members, is refused: writes stay
 * held and the log says why (r45desc_record_device, unit-tested).  Also
 * the end of a rebuild (rebuilding -> current) and a spare put in a
 * failed member's place (rebuilding).
 */
static int trusted(const char *path, char *why, size_t size)
{
	return r45_trusted_file(path, R45SAFE_OWNER, why, size);
}

/*
 * Descriptions on the array itself (or on a device stacked on it): the
 * record would wait behind the very writes held for the failure, and
 * this thread with it.  Seen before anything is written: not recorded,
 * writes stay held, and the log says why (r45mon logs err at LOG_ERR).
 */
static int on_array(struct plugin_dev *pd, char *err, size_t errsize)
{
	if (!pd->devno || r45desc_dir_on(desc_dir(pd), pd->devno, err, errsize) <= 0)
		return 0;
	return -EDEADLK;
}

/*
 * -ENOENT from a record: "no description", unless raid45ctl made the
 * array (r45mon_no_description): then an error, writes stay held.
 */
static int no_description(struct plugin_dev *pd, int r, char *err, size_t errsize)
{
	if (r != -ENOENT)
		return r;
	return r45mon_no_description(pd->uuid, desc_dir(pd), pd->conf_path, err, errsize);
}

static int pd_record(void *ctx, uint64_t start, uint32_t mask, unsigned int nr,
		     const dev_t *rebuilt, char *err, size_t errsize)
{
	struct plugin_dev *pd = ctx;
	int r = on_array(pd, err, errsize);

	if (r)
		return r;
	r = r45desc_record_device(desc_dir(pd), pd->mon.name, pd->uuid, start, mask, nr,
				  rebuilt, trusted, err, errsize);
	return no_description(pd, r, err, errsize);
}

static int pd_record_failed(void *ctx, uint64_t start, uint32_t mask, unsigned int nr,
			    char *err, size_t errsize)
{
	return pd_record(ctx, start, mask, nr, NULL, err, errsize);
}

static int pd_record_rebuilt(void *ctx, uint64_t start, unsigned int k, unsigned int nr,
			     unsigned int major, unsigned int minor, char *err, size_t errsize)
{
	dev_t devs[R45_MAX_MEMBERS] = { 0 };

	if (k >= R45_MAX_MEMBERS)
		return -EINVAL;
	devs[k] = makedev(major, minor);
	return pd_record(ctx, start, 1u << k, nr, devs, err, errsize);
}

static int pd_record_replaced(void *ctx, uint64_t start, unsigned int k, unsigned int nr,
			      const char *path, uint64_t offset, char *err, size_t errsize)
{
	struct plugin_dev *pd = ctx;
	int r = on_array(pd, err, errsize);

	if (r)
		return r;
	r = r45desc_record_device_replaced(desc_dir(pd), pd->mon.name, pd->uuid, start, k,
					   nr, path, offset, trusted, err, errsize);
	return no_description(pd, r, err, errsize);
}

/*
 * The device fsync'ed (a flush that reaches every member) before a
 * rebuilt member is recorded current; r45mon calls it only while writes
 * are not held.  A member can fail during it: the kernel then holds the
 * flush until allow_writes, which only this thread sends.  So the fsync
 * runs in a thread of its own, given up after FLUSH_TIMEOUT_MS
 * (-ETIMEDOUT: it ends alone once writes go on, and frees itself); no
 * second one while it runs (-EINPROGRESS).  The plugin is linked with
 * -z nodelete: dmeventd's dlclose() after the last device leaves such a
 * thread its code.
 */
static int pd_flush(void *ctx)
{
	struct plugin_dev *pd = ctx;
	char path[PATH_MAX];
	int fd = -1;

	if (pd->devno) {
		snprintf(path, sizeof(path), "/dev/block/%u:%u", major(pd->devno),
			 minor(pd->devno));
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	}
	if (fd < 0) {
		snprintf(path, sizeof(path), "/dev/mapper/%s", pd->mon.name);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	}
	if (fd < 0)
		return -errno;
	return r45_flush_timed(fd, FLUSH_TIMEOUT_MS, &pd->flush, NULL);
}

/* The status of the raid45 target at start, read again (no flush). */
static int pd_get_status(void *ctx, uint64_t start, char *buf, size_t size)
{
	return target_params(ctx, DM_DEVICE_STATUS, start, buf, size);
}

static const struct r45mon_ops plugin_ops = {
	.get_table = pd_get_table,
	.reload = pd_reload,
	.message = pd_message,
	.run_hook = pd_run_hook,
	.spare_info = pd_spare_info,
	.log = pd_log,
	.replaced = pd_replaced,
	.record_failed = pd_record_failed,
	.record_rebuilt = pd_record_rebuilt,
	.record_replaced = pd_record_replaced,
	.flush = pd_flush,
	.get_status = pd_get_status,
};

/* ---- status ---- */

/* Every raid45 target of a status task: true if the monitor acted. */
static bool handle_status(struct plugin_dev *pd, struct dm_task *dmt)
{
	uint64_t s, l;
	char *type, *params;
	void *next = NULL;
	bool acted = false, any = false, raid45 = false;
	const char *name = dm_task_get_name(dmt);

	if (name && name[0] && strcmp(name, pd->mon.name)) {
		r45mon_log(&pd->mon, LOG_NOTICE, "renamed to %s", name);
		r45mon_set_name(&pd->mon, name);
	}
	do {
		type = NULL;
		params = NULL;
		next = dm_get_next_target(dmt, next, &s, &l, &type, &params);
		if (!type)
			break;
		any = true;
		if (strcmp(type, "raid45"))
			continue;
		raid45 = true;
		acted |= r45mon_update(&pd->mon, s, l, params ? params : "");
	} while (next);
	if (!raid45 && !pd->no_target_logged)
		r45mon_log(&pd->mon, LOG_ERR, "%s: nothing to monitor",
			   any ? "no raid45 target in the table" : "no table (mapping lost)");
	pd->no_target_logged = !raid45;
	return acted;
}

/* Read the status again after an action, and again, until nothing is done. */
static void settle(struct plugin_dev *pd, bool acted)
{
	struct dm_task *dmt;
	int pass, r;

	for (pass = 0; acted && pass < MAX_PASSES; pass++) {
		r = run_task(pd, DM_DEVICE_STATUS, &dmt);
		if (r) {
			if (!pd->status_error_logged)
				r45mon_log(&pd->mon, LOG_ERR, "cannot read the status: %s",
					   strerror(-r));
			pd->status_error_logged = true;
			return;
		}
		pd->status_error_logged = false;
		acted = handle_status(pd, dmt);
		dm_task_destroy(dmt);
	}
}

void process_event(struct dm_task *dmt, enum dm_event_mask event, void **user)
{
	struct plugin_dev *pd = *user;

	(void)event;
	if (!pd)
		return;
	pthread_mutex_lock(&pd->lock);
	settle(pd, handle_status(pd, dmt));
	pthread_mutex_unlock(&pd->lock);
}

/* ---- registration ---- */

static const char *conf_dir(void)
{
	const char *d = getenv(CONF_DIR_ENV);

	return d && d[0] ? d : R45MON_CONF_DIR;
}

/* The device's configuration; defaults (logged) if there is none. */
static void load_conf(const char *device, struct r45mon_conf *conf)
{
	char path[PATH_MAX], err[256], why[PATH_MAX + 128];
	char *text;
	ssize_t n;
	size_t len = 0;
	int fd, r;

	r45mon_conf_default(conf);
	if (snprintf(path, sizeof(path), "%s/%s.conf", conf_dir(), device) >= (int)sizeof(path)) {
		early_log(device, LOG_ERR, "configuration path too long: policy hold");
		conf->policy = R45MON_HOLD;
		return;
	}
	/*
	 * Read only if root alone can change it: it names the hook that
	 * runs as root.  Refused, the device is held for an operator.
	 */
	r = r45_trusted_file(path, R45SAFE_OWNER, why, sizeof(why));
	if (r == -ENOENT) {
		early_log(device, LOG_WARNING, "no configuration %s (%s): policy warn, no hook, no spares",
			  path, strerror(-r));
		return;
	}
	if (r) {
		early_log(device, LOG_ERR, "configuration %s not loaded: %s (it must be a regular file owned by root that only root can change, in directories only root can change): policy hold until it is fixed and the device registered again",
			  path, why);
		conf->policy = R45MON_HOLD;
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		early_log(device, LOG_ERR, "configuration %s: %s: policy hold until it is fixed and the device registered again",
			  path, strerror(errno));
		conf->policy = R45MON_HOLD;
		return;
	}
	text = malloc(CONF_MAX);
	if (!text) {
		close(fd);
		early_log(device, LOG_ERR, "%s: out of memory: policy hold", path);
		conf->policy = R45MON_HOLD;
		return;
	}
	while (len < CONF_MAX - 1) {
		n = read(fd, text + len, CONF_MAX - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	text[len] = '\0';
	if (r45mon_conf_parse(text, conf, err, sizeof(err))) {
		r45mon_conf_default(conf);
		conf->policy = R45MON_HOLD;
		early_log(device, LOG_ERR, "%s: %s: policy hold until it is fixed and the device registered again",
			  path, err);
	}
	free(text);
}

int register_device(const char *device, const char *uuid, int major, int minor,
		    void **user)
{
	struct plugin_dev *pd;
	struct r45mon_conf conf;
	struct dm_task *dmt;
	int r;

	if (!device || !device[0]) {
		early_log("?", LOG_ERR, "register_device without a device name");
		return 0;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		early_log(device, LOG_ERR, "cannot monitor: out of memory");
		return 0;
	}
	if (pthread_mutex_init(&pd->lock, NULL)) {
		free(pd);
		early_log(device, LOG_ERR, "cannot monitor: no mutex");
		return 0;
	}
	snprintf(pd->uuid, sizeof(pd->uuid), "%s", uuid ? uuid : "");
	snprintf(pd->name, sizeof(pd->name), "%s", device);
	if (major > 0)
		pd->devno = makedev((unsigned int)major, (unsigned int)minor);
	load_conf(device, &conf);
	snprintf(pd->conf_path, sizeof(pd->conf_path), "%s/%s.conf", conf_dir(), device);
	r45mon_init(&pd->mon, device, &conf, &plugin_ops, pd);
	r45mon_log(&pd->mon, LOG_INFO, "array descriptions looked for in %s%s", desc_dir(pd),
		   conf.descriptions[0] ? "" : " (the default: the configuration names none)");

	/*
	 * Look now: dmeventd waits for the next event, and a failure that
	 * happened while nobody monitored (dmeventd restarted) is one.
	 */
	pthread_mutex_lock(&pd->lock);
	r = run_task(pd, DM_DEVICE_STATUS, &dmt);
	if (r) {
		r45mon_log(&pd->mon, LOG_ERR, "cannot read the status: %s", strerror(-r));
	} else {
		settle(pd, handle_status(pd, dmt));
		dm_task_destroy(dmt);
	}
	pthread_mutex_unlock(&pd->lock);
	*user = pd;
	return 1;
}

int unregister_device(const char *device, const char *uuid, int major,
		      int minor, void **user)
{
	struct plugin_dev *pd = *user;

	(void)device;
	(void)uuid;
	(void)major;
	(void)minor;
	if (!pd)
		return 1;
	pthread_mutex_lock(&pd->lock);
	r45mon_log(&pd->mon, LOG_INFO, "no longer monitored");
	r45_flush_forget(&pd->flush);	/* one still running frees itself */
	pthread_mutex_unlock(&pd->lock);
	pthread_mutex_destroy(&pd->lock);
	free(pd);
	*user = NULL;
	return 1;
}
