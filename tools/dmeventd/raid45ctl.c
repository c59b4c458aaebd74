// SPDX-License-Identifier: GPL-2.0
/*
 * raid45ctl: a raid45 array's life from its description,
 * /etc/raid45/<name>.conf (r45desc.h; docs/raid45.rst, "Array
 * descriptions"):
 *
 *   raid45ctl create <name> [options] <member|missing>...
 *   raid45ctl activate <name> [--degraded] [--start-dirty-degraded] [--if-needed]
 *   raid45ctl deactivate <name>
 *   raid45ctl status <name> [--interval SECONDS]
 *   raid45ctl table <name>
 *   raid45ctl fail-record <name> <idx>
 *   raid45ctl readd <name> <idx>
 *   raid45ctl replace <name> <idx> <device> [--offset S] [--force]
 *   raid45ctl rebuilt <name> <idx>
 *   raid45ctl incremental [--export] <devnode> [<link>...]	(udev; r45ctl-boot.c)
 *   raid45ctl boot <instance> [--last-resort]	(systemd; r45ctl-boot.c)
 *
 * A command of its own rather than more subcommands of raid45-monitor:
 * raid45-monitor is about dmeventd (registering devices, their policy
 * files under /etc/dm-raid45/monitor) and works on any raid45 device,
 * described or not, dmraid's sets included; raid45ctl is the array's
 * administration for a plain dmsetup user (what mdadm is to md), works
 * only on described arrays, and needs libblkid, which the monitor does
 * not.  Both share the parsers (r45status.c, r45desc.c); the device
 * work (libdevmapper, member checks) is r45ctl-dev.c.  Monitoring
 * stays "raid45-monitor register <name>", which create and activate
 * print.
 *
 * Exit status: 0 done, 1 failed (the message says why), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <libdevmapper.h>
#include "r45ctl-boot.h"
#include "r45boot.h"
#include "r45ctl-dev.h"
#include "r45desc.h"
#include "r45status.h"


static const char *prog = "raid45ctl";

void ctl_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void usage(FILE *f)
{
	fprintf(f,
		"usage: %s create <name> [--type TYPE] [--chunk SECTORS] [--region SECTORS]\n"
		"           [--log core|DEVICE] [--nosync] [--offset SECTORS] [--parity IDX]\n"
		"           [--stripes N] [--bandwidth PERCENT] [--uuid UUID] [--force]\n"
		"           [--boot-degraded SECONDS|never] [--dry-run] <member|missing>...\n"
		"       %s activate <name> [--degraded] [--start-dirty-degraded] [--if-needed]\n"
		"       %s deactivate <name>\n"
		"       %s status <name> [--interval SECONDS]\n"
		"       %s table <name>\n"
		"       %s fail-record <name> <idx>\n"
		"       %s readd <name> <idx>\n"
		"       %s replace <name> <idx> <device> [--offset SECTORS] [--force]\n"
		"       %s rebuilt <name> <idx>\n"
		"       %s grow <name> [--nosync]\n"
		"       %s incremental [--export] <devnode> [<link>...]\n"
		"       %s boot <instance> [--last-resort]\n"
		"\n"
		"Each array is described in %s/<name>.conf ($%s overrides the\n"
		"directory): its geometry, its members by stable path and each member's\n"
		"state (current, failed, rebuilding, missing).  Activation never takes a\n"
		"member recorded failed as current: it starts without it, or rebuilds it.\n"
		"\n"
		"create     computes the size from the members (the smallest, less the\n"
		"           offset, in whole chunks, times the data members), refuses a\n"
		"           member in use or carrying an md superblock, an LVM PV, a\n"
		"           partition table or a file system unless --force, records\n"
		"           /dev/disk/by-id paths for /dev/sdX-style names, writes the\n"
		"           description and creates /dev/mapper/<name> with its UUID.\n"
		"           Defaults: raid5_ls, chunk 64, core log \"sync\" (a full resync\n"
		"           at every activation: use a disk log on real disks), region a\n"
		"           power of two of at least a row and 1024 sectors, at most 2^20\n"
		"           regions.  --dry-run prints the description and the table.\n"
		"           --boot-degraded: at boot, start it without absent members\n"
		"           after that many seconds (default never: it waits for them).\n"
		"activate   creates the device from the description: failed and missing\n"
		"           members as \"- -\", a rebuilding one as <dev_to_init>.  A current\n"
		"           member whose device is not there is refused, unless --degraded\n"
		"           (then it is left out; once monitored, the plugin records it\n"
		"           failed: the writes it misses make it stale).\n"
		"           --start-dirty-degraded: the table's start_dirty_degraded, for an\n"
		"           activation the kernel refused as dirty degraded (a crash with a\n"
		"           member missing, or a disk log after a deactivation during a\n"
		"           rebuild; docs/raid45.rst, \"The write hole\").\n"
		"           --if-needed: an array active already is a success.\n"
		"deactivate removes the device (it must carry the description's UUID).\n"
		"status     the description and the kernel's view together: health,\n"
		"           action and progress, members.\n"
		"table      prints the table line activate would load.\n"
		"fail-record  records member <idx> failed in the description (durably).\n"
		"readd      a failed member that is back (same device, same data): the\n"
		"           kernel's readd (suspend, message, resume), recorded rebuilding.\n"
		"replace    puts <device> in member <idx>'s place (a failed or missing\n"
		"           member), recorded rebuilding; reloads the active array.\n"
		"rebuilt    records a rebuilding member current once the kernel has\n"
		"           finished its rebuild (the monitor does it when it runs).\n"
		"grow       the members grew: the size they give now is recorded and the\n"
		"           active array reloaded with it; the new space resyncs, or is\n"
		"           taken for in sync with --nosync (zeroed space only).\n",
		prog, prog, prog, prog, prog, prog, prog, prog, prog, prog, prog, prog,
		R45DESC_DIR_DEFAULT, R45DESC_DIR_ENV);
	boot_usage(f, prog);
	fprintf(f, "\n"
		"The dmeventd plugin (raid45-monitor register <name>) records failed\n"
		"members in the description before writes go on, and finished rebuilds.\n");
}

/* ---- descriptions ---- */

static int desc_path(const char *name, char *path, size_t size)
{
	if (r45desc_check_name(name)) {
		ctl_error("\"%s\": not an array name (1..%d of A-Z a-z 0-9 _ - . +, not starting with . or -)",
		      name, R45DESC_NAME_MAX - 1);
		return -EINVAL;
	}
	if (snprintf(path, size, "%s/%s.conf", r45desc_dir(), name) >= (int)size) {
		ctl_error("%s/%s.conf: path too long", r45desc_dir(), name);
		return -ENAMETOOLONG;
	}
	return 0;
}

int load(const char *name, struct r45desc *d, char *path, size_t size)
{
	char err[512];
	int r = desc_path(name, path, size);

	if (r)
		return r;
	r = r45desc_load(path, d, err, sizeof(err));
	if (r == -ENOENT)
		ctl_error("no description of %s: %s does not exist (raid45ctl create)", name, path);
	else if (r)
		ctl_error("%s", err);
	return r;
}

int parse_uint(const char *what, const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || s[0] == '+' || *v > max) {
		ctl_error("%s \"%s\": must be a number up to %" PRIu64, what, s, max);
		return -EINVAL;
	}
	return 0;
}

int parse_idx(const struct r45desc *d, const char *s, unsigned int *idx)
{
	uint64_t v;

	if (parse_uint("member index", s, R45_MAX_MEMBERS, &v))
		return -EINVAL;
	if (v >= d->nr_members) {
		ctl_error("%s has members 0..%u, not %s", d->name, d->nr_members - 1, s);
		return -EINVAL;
	}
	*idx = (unsigned int)v;
	return 0;
}

/* ---- create ---- */

/* fsync the directory that holds path (a directory just made): 0 or -errno */
static int sync_parent(const char *path)
{
	char dir[PATH_MAX], *slash;
	int fd, r = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		r = -errno;
	if (fd >= 0)
		close(fd);
	if (r)
		ctl_error("%s: cannot sync it after making %s: %s", dir, path, strerror(-r));
	return r;
}

static int create_locked(const struct r45desc *dp, const char *path, const char *params);

static int cmd_create(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "type", required_argument, NULL, 't' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "region", required_argument, NULL, 'r' },
		{ "log", required_argument, NULL, 'l' },
		{ "nosync", no_argument, NULL, 'n' },
		{ "offset", required_argument, NULL, 'o' },
		{ "parity", required_argument, NULL, 'p' },
		{ "stripes", required_argument, NULL, 's' },
		{ "bandwidth", required_argument, NULL, 'b' },
		{ "uuid", required_argument, NULL, 'u' },
		{ "force", no_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "boot-degraded", required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	static struct r45desc d, back;
	char path[PATH_MAX], err[512], uuid[R45DESC_UUID_MAX], *text = NULL;
	char params[TABLE_MAX];
	uint64_t sectors[R45_MAX_MEMBERS] = { 0 }, v, offset = 0;
	dev_t rdev[R45_MAX_MEMBERS];
	bool force = false, dry = false;
	const char *log = "core";
	unsigned int i, j, parity, region = 0;
	int c, r, lock;

	if (argc < 2 || argv[1][0] == '-') {
		usage(stderr);
		return 2;
	}
	memset(&d, 0, sizeof(d));
	snprintf(d.type, sizeof(d.type), "raid5_ls");
	d.chunk = 64;
	d.parity_dev = -1;
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!r45desc_parity_members(optarg) || strlen(optarg) >= sizeof(d.type)) {
				ctl_error("--type %s: raid4, raid5_la, raid5_ra, raid5_ls, raid5_rs, raid6_zr, raid6_nr or raid6_nc",
				      optarg);
				return 2;
			}
			snprintf(d.type, sizeof(d.type), "%s", optarg);
			break;
		case 'c':
			if (parse_uint("--chunk", optarg, 16384, &v) || v < 8 || (v & (v - 1))) {
				ctl_error("--chunk %s: a power of two, 8..16384 sectors", optarg);
				return 2;
			}
			d.chunk = (unsigned int)v;
			break;
		case 'r':
			if (parse_uint("--region", optarg, 1u << 31, &v) || v < 8 || (v & (v - 1))) {
				ctl_error("--region %s: a power of two of at least 8 sectors", optarg);
				return 2;
			}
			region = (unsigned int)v;
			break;
		case 'l':
			log = optarg;
			break;
		case 'n':
			d.nosync = true;
			break;
		case 'o':
			if (parse_uint("--offset", optarg, INT64_MAX, &offset))
				return 2;
			break;
		case 'p':
			if (!strcmp(optarg, "-1"))
				d.parity_dev = -1;
			else if (parse_uint("--parity", optarg, R45_MAX_MEMBERS - 1, &v))
				return 2;
			else
				d.parity_dev = (int)v;
			break;
		case 's':
			if (parse_uint("--stripes", optarg, 16384, &v) || v < 8) {
				ctl_error("--stripes %s: 8..16384", optarg);
				return 2;
			}
			d.stripes = (unsigned int)v;
			break;
		case 'b':
			if (parse_uint("--bandwidth", optarg, 100, &v) || v < 1) {
				ctl_error("--bandwidth %s: 1..100", optarg);
				return 2;
			}
			d.bandwidth = (unsigned int)v;
			break;
		case 'u':
			if (!optarg[0] || strlen(optarg) >= sizeof(d.uuid) || strpbrk(optarg, " \t\n")) {
				ctl_error("--uuid \"%s\": 1..%d characters, no blanks", optarg,
				      R45DESC_UUID_MAX - 1);
				return 2;
			}
			snprintf(d.uuid, sizeof(d.uuid), "%s", optarg);
			break;
		case 'f':
			force = true;
			break;
		case 'd':
			dry = true;
			break;
		case 'B':
			if (boot_degraded_opt(optarg, &d.boot_degraded))
				return 2;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (desc_path(argv[1], path, sizeof(path)))
		return 2;
	snprintf(d.name, sizeof(d.name), "%s", argv[1]);
	parity = r45desc_parity_members(d.type);
	d.nr_members = (unsigned int)(argc - optind);
	if (d.nr_members < (parity == 2 ? 4u : 3u) || d.nr_members > R45_MAX_MEMBERS) {
		ctl_error("%s takes %u..%d members, not %u", d.type, parity == 2 ? 4 : 3,
		      R45_MAX_MEMBERS, d.nr_members);
		return 2;
	}
	if (!access(path, F_OK)) {
		ctl_error("%s exists already: %s is described (raid45ctl status %s)", path, d.name, d.name);
		return 1;
	}
	if (desc_dir_on_raid45(r45desc_dir()))
		return 1;
	if (!dry && dm_active(d.name, uuid, sizeof(uuid)) == 1) {
		ctl_error("a device-mapper device %s exists already", d.name);
		return 1;
	}
	if (!d.uuid[0]) {
		random_uuid(d.uuid, sizeof(d.uuid));
	} else {
		char found[PATH_MAX];

		/* the plugin finds a renamed device's description by its UUID */
		r = r45desc_find(r45desc_dir(), d.name, d.uuid, found, sizeof(found), err,
				 sizeof(err));
		if (r != -ENOENT) {
			ctl_error("--uuid %s: %s", d.uuid,
				  r ? err : "another description gives it already");
			if (!r)
				ctl_error("it is %s", found);
			return 1;
		}
	}

	/* the members */
	for (i = 0; i < d.nr_members; i++) {
		const char *m = argv[optind + i];

		if (!strcmp(m, "missing")) {
			d.m[i].state = R45DESC_MISSING;
			continue;
		}
		if (check_member(m, force, &sectors[i], &rdev[i]))
			return 1;
		for (j = 0; j < i; j++)
			if (d.m[j].state != R45DESC_MISSING && rdev[j] == rdev[i]) {
				ctl_error("%s is member %u already", m, j);
				return 1;
			}
		if (described_elsewhere(m, rdev[i], force))
			return 1;
		if (stable_path(m, rdev[i], force, d.m[i].path, sizeof(d.m[i].path)))
			return 1;
		d.m[i].offset = offset;
		d.m[i].state = R45DESC_CURRENT;
	}
	if (r45desc_compute_size(&d, sectors, &d.size, err, sizeof(err))) {
		ctl_error("%s", err);
		return 1;
	}
	d.region = region ? region :
		r45desc_default_region(d.size, d.chunk, d.nr_members - parity);

	/* the log */
	if (strcmp(log, "core")) {
		uint64_t ls, need = r45desc_disk_log_sectors(d.size, d.region);
		dev_t lr;

		if (check_member(log, force, &ls, &lr))
			return 1;
		for (i = 0; i < d.nr_members; i++)
			if (d.m[i].state != R45DESC_MISSING && rdev[i] == lr) {
				ctl_error("the log device %s is member %u", log, i);
				return 1;
			}
		if (described_elsewhere(log, lr, force))
			return 1;
		if (ls < need) {
			ctl_error("the log device %s has %" PRIu64 " sectors, a log of %" PRIu64 " regions needs %" PRIu64,
			      log, ls, (d.size + d.region - 1) / d.region, need);
			return 1;
		}
		d.disk_log = true;
		if (stable_path(log, lr, force, d.log_dev, sizeof(d.log_dev)))
			return 1;
	}

	/*
	 * Started degraded at boot only if it can tell a crash (a disk log,
	 * or ppl): with a core log every activation looks clean, and a
	 * degraded start after a crash would serve the write hole's garbage
	 */
	if (d.boot_degraded && !r45boot_crash_detectable(&d)) {
		ctl_error("--boot-degraded needs a disk log (--log <device>): with a core log the array cannot tell a crash, and a degraded start after one would serve stale parity (docs/raid45.rst, \"The write hole\")");
		return 2;
	}

	/* everything checked once more, as activate will read it */
	text = malloc(R45DESC_FILE_MAX);
	if (!text) {
		ctl_error("out of memory");
		return 1;
	}
	r = r45desc_format(&d, text, R45DESC_FILE_MAX);
	if (!r)
		r = r45desc_parse(text, strlen(text), path, &back, err, sizeof(err));
	if (!r)
		r = r45desc_table(&d, 0, params, sizeof(params), err, sizeof(err));
	if (r) {
		ctl_error("%s", r == -ENOSPC ? "description too long" : err);
		free(text);
		return 1;
	}
	if (dry) {
		printf("%s:\n%s\ntable: 0 %" PRIu64 " raid45 %s\n", path, text, d.size, params);
		free(text);
		return 0;
	}
	free(text);

	/* no boot activation of the name decides while it is made */
	lock = activation_lock(d.name);
	if (lock < 0)
		return 1;
	r = create_locked(&d, path, params);
	close(lock);
	return r;
}

/* the description, then the device (under the activation lock): 0 or 1 */
static int create_locked(const struct r45desc *dp, const char *path, const char *params)
{
	static struct r45desc d;
	char err[512];
	int r;

	d = *dp;
	/*
	 * --nosync vouches for the members as they are now: this first
	 * table only (params has it).  Recorded, it would take every later
	 * activation for clean, after a crash too (a core log resyncs
	 * nothing, a disk log's bits are ignored): the write hole.
	 */
	d.nosync = false;
	/* the description first: the device never runs undescribed */
	if (!mkdir(r45desc_dir(), 0755)) {
		/* the new directory durable in its parent */
		if (sync_parent(r45desc_dir()))
			return 1;
	} else if (errno != EEXIST) {
		ctl_error("%s: %s", r45desc_dir(), strerror(errno));
		return 1;
	}
	/* published by link(): a concurrent create of the name gets EEXIST */
	r = r45desc_create(path, &d, err, sizeof(err));
	if (r) {
		ctl_error("%s", err);
		/* linked, then not synced: our own undone, never another's */
		if (r != -EEXIST)
			r45desc_remove(path, d.uuid, err, sizeof(err));
		return 1;
	}
	r = dm_create(&d, params);
	if (r) {
		ctl_error("creating %s: %s (the kernel log says why); table: 0 %" PRIu64 " raid45 %s",
		      d.name, strerror(-r), d.size, params);
		/* only our own description: never another create's */
		r = r45desc_remove(path, d.uuid, err, sizeof(err));
		if (r == -EEXIST)
			ctl_error("%s", err);
		else if (r && r != -ENOENT)
			ctl_error("%s: remove it before creating %s again", err, d.name);
		return 1;
	}
	printf("%s: created /dev/mapper/%s, %" PRIu64 " sectors, uuid %s, described in %s\n",
	       d.name, d.name, d.size, d.uuid, path);
	printf("monitor it: raid45-monitor register %s\n", d.name);
	return 0;
}

/* ---- activate, deactivate, table ---- */

static int cmd_table(int argc, char **argv)
{
	struct r45desc d;
	char path[PATH_MAX], params[TABLE_MAX], err[512];

	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	if (load(argv[1], &d, path, sizeof(path)))
		return 1;
	if (r45desc_table(&d, 0, params, sizeof(params), err, sizeof(err))) {
		ctl_error("%s", err);
		return 1;
	}
	printf("0 %" PRIu64 " raid45 %s\n", d.size, params);
	return 0;
}

static int activate_locked(const char *name, struct r45desc *d, struct r45desc *before,
			   bool degraded, bool if_needed, unsigned int flags);

static int cmd_activate(int argc, char **argv)
{
	static struct r45desc d, before;
	char path[PATH_MAX];
	bool degraded = false, if_needed = false;
	unsigned int flags = 0;
	int r, a, lock;

	for (a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--if-needed")) {
			if_needed = true;
		} else if (!strcmp(argv[a], "--degraded")) {
			degraded = true;
		} else if (!strcmp(argv[a], "--start-dirty-degraded")) {
			flags |= R45DESC_START_DIRTY_DEGRADED;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (argc < 2 || argv[1][0] == '-') {
		usage(stderr);
		return 2;
	}
	if (desc_path(argv[1], path, sizeof(path)))
		return 1;
	/* read, checked, recorded and created under it: as raid45ctl boot */
	lock = activation_lock(argv[1]);
	if (lock < 0)
		return 1;
	r = activate_locked(argv[1], &d, &before, degraded, if_needed, flags);
	close(lock);
	return r;
}

static int activate_locked(const char *name, struct r45desc *d, struct r45desc *before,
			   bool degraded, bool if_needed, unsigned int flags)
{
	char path[PATH_MAX], params[TABLE_MAX], err[512], uuid[R45DESC_UUID_MAX];
	unsigned int i, absent = 0;
	uint32_t gone = 0;
	int r;

	if (load(name, d, path, sizeof(path)))
		return 1;
	r = dm_active(d->name, uuid, sizeof(uuid));
	if (r == 1 && if_needed && !strcmp(uuid, d->uuid)) {
		printf("%s: active already\n", d->name);
		return 0;
	}
	if (r == 1) {
		ctl_error("%s is active already%s", d->name,
		      strcmp(uuid, d->uuid) ? " (with another UUID: not this description's array)" : "");
		return 1;
	}
	*before = *d;
	if (d->nosync)
		fprintf(stderr, "%s: warning: %s says \"nosync\": every activation takes the array for in sync, after a crash too (write \"sync\" in its log line)\n",
			prog, path);
	for (i = 0; i < d->nr_members; i++) {
		struct stat sb;

		if (d->m[i].state != R45DESC_CURRENT && d->m[i].state != R45DESC_REBUILDING)
			continue;
		if (!stat(d->m[i].path, &sb) && S_ISBLK(sb.st_mode))
			continue;
		absent++;
		gone |= 1u << i;
		if (degraded) {
			fprintf(stderr, "%s: warning: member %u (%s) is not there: activated without it\n",
				prog, i, d->m[i].path);
			memset(d->m[i].path, 0, sizeof(d->m[i].path));
			d->m[i].state = R45DESC_MISSING;
		} else {
			ctl_error("member %u (%s) is not there", i, d->m[i].path);
		}
	}
	if (absent && !degraded) {
		ctl_error("%s not activated: --degraded starts it without the member%s that are not there",
		      d->name, absent == 1 ? "" : "s");
		return 1;
	}
	/*
	 * Recorded failed before the array can take a write: from the first
	 * write on, the member left out is stale, and the next activation,
	 * with the disk back, must not take it as current (as md drops a
	 * member whose event count is behind).
	 */
	if (absent && r45desc_record_failed(path, gone, d->nr_members, NULL, err, sizeof(err))) {
		ctl_error("%s: not activated: the member%s left out could not be recorded failed",
			  err, absent == 1 ? "" : "s");
		return 1;
	}
	for (i = 0; i < d->nr_members; i++)
		if (gone & (1u << i))
			printf("%s: member %u recorded failed in %s (raid45ctl replace %s %u <device> rebuilds it)\n",
			       d->name, i, path, d->name, i);
	r = r45desc_table(d, flags, params, sizeof(params), err, sizeof(err));
	if (r) {
		ctl_error("%s", err);
	} else {
		r = dm_create(d, params);
		if (r)
			ctl_error("activating %s: %s (the kernel log says why); table: 0 %" PRIu64 " raid45 %s",
				  d->name, strerror(-r), d->size, params);
	}
	if (r) {
		/* never ran: what was left out is not stale, its record undone */
		if (gone && r45desc_record_unfailed(path, gone, before, err, sizeof(err)))
			ctl_error("%s: the members left out stay recorded failed", err);
		return 1;
	}
	printf("%s: active, table 0 %" PRIu64 " raid45 %s\n", d->name, d->size, params);
	printf("monitor it: raid45-monitor register %s\n", d->name);
	return 0;
}

static int cmd_deactivate(int argc, char **argv)
{
	struct r45desc d;
	struct r45_status st;
	char path[PATH_MAX], uuid[R45DESC_UUID_MAX];
	int r;

	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	if (load(argv[1], &d, path, sizeof(path)))
		return 1;
	r = dm_active(d.name, uuid, sizeof(uuid));
	if (r <= 0) {
		ctl_error("%s is not active%s", d.name, r < 0 ? " (cannot ask device-mapper)" : "");
		return 1;
	}
	if (strcmp(uuid, d.uuid)) {
		ctl_error("the device %s has the UUID \"%s\", not the description's %s: not removed",
		      d.name, uuid, d.uuid);
		return 1;
	}
	/*
	 * A member the kernel failed that the description still calls
	 * current would be taken as current by the next activation.
	 */
	r = dm_status(d.name, &st);
	if (r || st.nr_members != d.nr_members) {
		ctl_error("cannot read the raid45 status of %s: not removed", d.name);
		return 1;
	}
	if (unrecorded_failure(&d, &st, -1))
		return 1;
	r = dm_simple(DM_DEVICE_REMOVE, d.name, true);
	if (r) {
		ctl_error("removing %s: %s%s", d.name, strerror(-r),
		      r == -EBUSY ? " (open: mounted, or in use; raid45-monitor unregister it first if monitored)" : "");
		return 1;
	}
	printf("%s: deactivated\n", d.name);
	return 0;
}

/* ---- status ---- */

/*
 * The status, and with a running action a second one interval seconds
 * later for its rate and ETA (the target reports a position, not a
 * speed).  0 or -errno.
 */
static int sample_progress(const char *name, double interval, struct r45_status *st,
			   struct r45_progress *p)
{
	struct r45_status first;
	struct timespec t0, t1;
	int r;

	r = dm_status(name, &first);
	if (r)
		return r;
	*st = first;
	if (!first.progress_running || interval <= 0) {
		/* a target without the progress word: "-" */
		r45_progress_get(NULL, st, 0, p);
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	usleep((useconds_t)(interval * 1e6));
	r = dm_status(name, st);
	if (r)
		return r;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r45_progress_get(&first, st, (double)(t1.tv_sec - t0.tv_sec) +
			 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, p);
	return 0;
}

static int cmd_status(int argc, char **argv)
{
	struct r45desc d;
	struct r45_status st;
	struct r45_progress prog = { 0 };
	char path[PATH_MAX], uuid[R45DESC_UUID_MAX], sz[32], rg[32], ch[32], pr[128];
	unsigned int i, out = 0, dead = 0;
	double interval = 1;
	bool active;
	int r;

	if (argc == 4 && !strcmp(argv[2], "--interval")) {
		char *end;

		errno = 0;
		interval = strtod(argv[3], &end);
		if (errno || end == argv[3] || *end || !(interval >= 0 && interval <= 60)) {
			ctl_error("--interval: seconds from 0 (no rate) to 60, not \"%s\"", argv[3]);
			return 2;
		}
		argc = 2;
	}
	if (argc != 2 || argv[1][0] == '-') {
		usage(stderr);
		return 2;
	}
	if (load(argv[1], &d, path, sizeof(path)))
		return 1;
	r = dm_active(d.name, uuid, sizeof(uuid));
	active = r == 1 && !strcmp(uuid, d.uuid);
	if (active) {
		int e = sample_progress(d.name, interval, &st, &prog);

		if (e) {
			ctl_error("cannot read the raid45 status of %s: %s", d.name, strerror(-e));
			return 1;
		}
		if (st.nr_members != d.nr_members) {
			ctl_error("%s: the kernel has %u members, the description %u", d.name,
			      st.nr_members, d.nr_members);
			return 1;
		}
		dead = r45_status_nr_dead(&st);
	}
	for (i = 0; i < d.nr_members; i++)
		out += d.m[i].state != R45DESC_CURRENT;
	r45_size_str(d.size, sz, sizeof(sz));
	r45_size_str(d.region, rg, sizeof(rg));
	r45_size_str(d.chunk, ch, sizeof(ch));
	printf("%s: %s", d.name, !active ? "inactive" :
	       dead > r45desc_parity_members(d.type) ? "FAILED (more members dead than parity)" :
	       dead || out ? "active, degraded" : "active, healthy");
	if (active)
		printf(", writes %s", st.held ? "HELD (a failure is not recorded yet)" : "writable");
	if (r == 1 && !active)
		printf(" (a device %s with another UUID is active)", d.name);
	printf("\n  %s, %u members, chunk %s, %s (%" PRIu64 " sectors), log %s%s%s, region %s%s\n",
	       d.type, d.nr_members, ch, sz, d.size, d.disk_log ? "disk " : "core",
	       d.disk_log ? d.log_dev : "", d.nosync ? " nosync" : "", rg, d.ppl ? ", ppl" : "");
	if (active) {
		int rb = r45_status_rebuilding(&st);

		r45_progress_format(&prog, pr, sizeof(pr));
		switch (st.action) {
		case R45_ACTION_RECOVER:
			printf("  action: rebuild of member %d, %s\n", rb, pr);
			break;
		case R45_ACTION_RESYNC:
		case R45_ACTION_CHECK:
		case R45_ACTION_REPAIR:
			printf("  action: %s, %s\n", r45_action_name(st.action), pr);
			break;
		case R45_ACTION_FROZEN:
			printf("  action: frozen at %s (dmsetup message %s 0 idle)\n", pr, d.name);
			break;
		case R45_ACTION_IDLE:
			printf("  action: idle\n");
			break;
		}
		printf("  regions in sync: %" PRIu64 "/%" PRIu64 "\n", st.in_sync, st.regions);
	}
	for (i = 0; i < d.nr_members; i++) {
		printf("  member %u  %-10s %s", i, r45desc_state_name(d.m[i].state),
		       d.m[i].path[0] ? d.m[i].path : "-");
		if (d.m[i].path[0])
			printf(" +%" PRIu64, d.m[i].offset);
		if (active) {
			const struct r45_member *m = &st.members[i];

			if (m->missing)
				printf("  [not in the table]");
			else
				printf("  [%u:%u %s%s]", m->major, m->minor, m->dead ? "FAILED" : "alive",
				       m->rebuilding ? ", rebuilding" : "");
			if (m->dead && d.m[i].state == R45DESC_CURRENT)
				printf(" (failure not recorded yet: raid45ctl fail-record %s %u)",
				       d.name, i);
			if (d.m[i].state == R45DESC_REBUILDING && !m->dead && !m->missing &&
			    !m->rebuilding && st.in_sync == st.regions)
				printf(" (rebuild finished: raid45ctl rebuilt %s %u)", d.name, i);
		}
		printf("\n");
	}
	if (active)
		printf("  mismatches %" PRIu64 ", read errors repaired %" PRIu64 ", unprotected regions %" PRIu64 ", unsafe reads %" PRIu64 "\n",
		       st.mismatches, st.read_errors_repaired, st.unprotected_regions,
		       st.unsafe_reads);
	printf("  described in %s\n", path);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{ "create", cmd_create }, { "activate", cmd_activate },
		{ "deactivate", cmd_deactivate }, { "status", cmd_status },
		{ "table", cmd_table }, { "fail-record", cmd_fail_record },
		{ "readd", cmd_readd }, { "replace", cmd_replace },
		{ "rebuilt", cmd_rebuilt }, { "grow", cmd_grow },
		{ "incremental", cmd_incremental },
		{ "boot", cmd_boot },
	};
	unsigned int i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name)) {
			/* the subcommand sees itself as argv[0] */
			int rc = cmds[i].fn(argc - 1, argv + 1);

			/* the boot commands leave their usage to this */
			if (rc == 2 && (cmds[i].fn == cmd_incremental || cmds[i].fn == cmd_boot))
				usage(stderr);
			dm_lib_release();
			return rc;
		}
	ctl_error("unknown command \"%s\"", argv[1]);
	usage(stderr);
	return 2;
}
