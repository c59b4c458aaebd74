// SPDX-License-Identifier: GPL-2.0
/*
 * raid45ctl's activation at boot (r45boot.h has the design): the
 * commands udev and the systemd units run.
 *
 *   raid45ctl incremental [--export] <devnode> [<link>...]
 *       udev's rule (tools/systemd/69-raid45.rules), for every block
 *       device that appears (<link>: udev's $links, the names it is
 *       about to give the device, which do not exist yet): the described
 *       arrays it is a needed device of (a current or rebuilding member,
 *       the disk log), and for each one not active yet the unit to
 *       start: raid45@<i>.service when every needed device is there,
 *       raid45-last-resort@<i>.service when some are not (it waits for
 *       them: the devices udev handles at the same time as this one are
 *       not seen yet by their links).  A device recorded as a failed (or
 *       missing) member's is reported and counts for nothing.  Changes
 *       nothing.
 *   raid45ctl boot <instance> [--last-resort]
 *       raid45@.service: activate the array of the unit instance <i> (the
 *       array's name, '+' written ':') if it is not active, every
 *       needed device being there, then register it with dmeventd
 *       ("raid45-monitor register <name> --keep": the device's monitor
 *       configuration, if it has one, is kept).  --last-resort
 *       (raid45-last-resort@.service): wait, polling each second, until
 *       every needed device is there (then as above), the array is
 *       active (started by raid45@: nothing to do), or the description's
 *       boot-degraded seconds have passed: then start it without the
 *       absent members, if the type's parity covers them and the disk
 *       log is there; a description without boot-degraded is never
 *       started degraded.  Never with start_dirty_degraded: a dirty
 *       degraded start the kernel refuses stays refused, for an operator
 *       (raid45ctl activate --degraded --start-dirty-degraded).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <libdevmapper.h>
#include "r45boot.h"
#include "r45ctl-boot.h"
#include "r45ctl-dev.h"

#ifndef R45CTL_MONITOR_PATH
#define R45CTL_MONITOR_PATH "/usr/local/sbin/raid45-monitor"
#endif
#define LIST_MAX 4096

void boot_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"incremental  (udev) the described arrays <devnode> (also known by its\n"
		"           <link>s, udev's $links) is a needed device of, and the units\n"
		"           to start: raid45@<array>.service when every needed device is\n"
		"           there, raid45-last-resort@<array>.service when not; --export:\n"
		"           as udev's KEY=value lines.  A failed member's device counts\n"
		"           for nothing.\n"
		"boot       (raid45@.service) activates the array of the unit instance\n"
		"           (the name, '+' as ':') unless active, then registers it with\n"
		"           dmeventd (%s register <name> --keep).\n"
		"           --last-resort: waits up to boot-degraded seconds for the\n"
		"           absent members, then starts without them if the parity\n"
		"           covers them (never with start_dirty_degraded).\n",
		getenv("RAID45_MONITOR") ? getenv("RAID45_MONITOR") : R45CTL_MONITOR_PATH);
	(void)prog;
}

int boot_degraded_opt(const char *arg, unsigned int *seconds)
{
	unsigned long v;
	char *end;

	if (!strcmp(arg, "never")) {
		*seconds = 0;
		return 0;
	}
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] < '1' || arg[0] > '9' ||
	    v > R45DESC_BOOT_DEGRADED_MAX) {
		ctl_error("--boot-degraded %s: never or 1..%d seconds", arg,
			  R45DESC_BOOT_DEGRADED_MAX);
		return -EINVAL;
	}
	*seconds = (unsigned int)v;
	return 0;
}

static int conf_file(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return e->d_name[0] != '.' && n > 5 && !strcmp(e->d_name + n - 5, ".conf");
}

/* append word to a space-separated list */
static void add(char *list, const char *word)
{
	size_t o = strlen(list);

	snprintf(list + o, LIST_MAX - o, "%s%s", o ? " " : "", word);
}

/* "0 2 3" of the members in mask */
static void members_str(uint32_t mask, char *buf, size_t size)
{
	size_t o = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < R45_MAX_MEMBERS && o < size; i++)
		if (mask & (1u << i))
			o += (size_t)snprintf(buf + o, size - o, "%s%u", o ? " " : "", i);
}

/* 1 active with d's UUID, 0 not active, -1 another device of the name (printed) */
static int active(const struct r45desc *d)
{
	char uuid[R45DESC_UUID_MAX];
	int r = dm_active(d->name, uuid, sizeof(uuid));

	if (r < 0) {
		ctl_error("%s: cannot ask device-mapper whether it is active", d->name);
		return -1;
	}
	if (r == 1 && strcmp(uuid, d->uuid)) {
		ctl_error("a device-mapper device %s with the UUID \"%s\" is active, not the description's %s",
			  d->name, uuid, d->uuid);
		return -1;
	}
	return r;
}

int cmd_incremental(int argc, char **argv)
{
	static char arrays[LIST_MAX], ready[LIST_MAX], waiting[LIST_MAX], failed[LIST_MAX],
		wants[LIST_MAX];
	const char *node = NULL, *dir = r45desc_dir();
	struct r45boot_aliases al = { .next = r45boot_stat_devno };
	struct dirent **ents = NULL;
	bool export = false;
	struct stat sb;
	int i, n, a, r;

	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		if (strcmp(argv[a], "--export"))
			return 2;
		export = true;
	}
	if (a == argc)
		return 2;
	node = argv[a];
	/* udev's links of the device: names of it, not options */
	al.names = argv + a + 1;
	al.nr = (unsigned int)(argc - a - 1);
	if (stat(node, &sb)) {
		ctl_error("%s: %s", node, strerror(errno));
		return 1;
	}
	if (!S_ISBLK(sb.st_mode)) {
		ctl_error("%s: not a block device", node);
		return 1;
	}
	al.dev = sb.st_rdev;
	arrays[0] = ready[0] = waiting[0] = failed[0] = wants[0] = '\0';
	n = scandir(dir, &ents, conf_file, alphasort);
	if (n < 0) {
		if (errno == ENOENT)
			return 0;	/* no description at all */
		ctl_error("%s: %s", dir, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		char path[PATH_MAX], err[512], inst[R45DESC_NAME_MAX], unit[R45DESC_NAME_MAX + 40];
		struct r45boot_view v;
		struct r45desc d;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (r45desc_load(path, &d, err, sizeof(err))) {
			ctl_error("%s (skipped)", err);
			continue;
		}
		r45boot_look(&d, sb.st_rdev, r45boot_alias_devno, &al, &v);
		if (!r45boot_names(&v)) {
			if (v.dev_failed >= 0) {
				add(failed, d.name);
				if (!export)
					printf("%s: %s (%u:%u) is member %d, recorded %s: not used\n",
					       d.name, node, major(sb.st_rdev), minor(sb.st_rdev),
					       v.dev_failed, r45desc_state_name(d.m[v.dev_failed].state));
			}
			continue;
		}
		add(arrays, d.name);
		if (r45boot_instance(d.name, inst, sizeof(inst)))
			continue;
		r = active(&d);
		if (r < 0)
			continue;	/* another device of its name: printed */
		if (r) {
			if (!export && v.dev_log)
				printf("%s: %s is its disk log: the array is active already\n",
				       d.name, node);
			else if (!export)
				printf("%s: %s is its member %d: the array is active already\n",
				       d.name, node, v.dev_member);
			continue;
		}
		if (r45boot_complete(&v)) {
			add(ready, d.name);
			snprintf(unit, sizeof(unit), "raid45@%s.service", inst);
			add(wants, unit);
		} else {
			add(waiting, d.name);
			snprintf(unit, sizeof(unit), "raid45-last-resort@%s.service", inst);
			add(wants, unit);
		}
		if (!export) {
			char abs[128];

			members_str(v.absent | v.conflict, abs, sizeof(abs));
			printf("%s: %u of %u needed devices there%s%s%s%s: %s\n", d.name, v.present,
			       v.needed, abs[0] ? ", absent: member " : "", abs,
			       v.log_absent ? ", absent: the disk log" : "",
			       v.conflict ? " (a device named twice counts as absent)" : "",
			       r45boot_complete(&v) ? "ready" :
			       d.boot_degraded ? "waiting (started degraded after its boot-degraded seconds)" :
			       "waiting (never started degraded at boot)");
		}
	}
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	if (export) {
		/* only what is set: udev takes each line as KEY=value */
		if (arrays[0])
			printf("RAID45_ARRAYS=%s\n", arrays);
		if (ready[0])
			printf("RAID45_READY=%s\n", ready);
		if (waiting[0])
			printf("RAID45_WAITING=%s\n", waiting);
		if (failed[0])
			printf("RAID45_FAILED_MEMBER_OF=%s\n", failed);
		if (wants[0])
			printf("RAID45_WANTS=%s\n", wants);
	}
	return 0;
}

/*
 * Create d's device (described in path) without the members in
 * leave_out, recorded failed first (durably, before the array can take a
 * write: from then on their disks are stale, and a later activation must
 * not take them as current; as raid45ctl activate --degraded does):
 * 0, or 1 (printed).
 */
static int boot_activate(const char *path, const struct r45desc *desc, uint32_t leave_out)
{
	static struct r45desc d;
	char params[TABLE_MAX], err[512], uuid[R45DESC_UUID_MAX];
	unsigned int i;
	int r;

	d = *desc;
	if (leave_out && r45desc_record_failed(path, leave_out, d.nr_members, NULL, err,
					       sizeof(err))) {
		ctl_error("%s: not started: the members left out could not be recorded failed", err);
		return 1;
	}
	for (i = 0; i < d.nr_members; i++) {
		if (!(leave_out & (1u << i)))
			continue;
		printf("%s: member %u (%s) is not there: recorded failed, started without it\n",
		       d.name, i, d.m[i].path);
		memset(d.m[i].path, 0, sizeof(d.m[i].path));
		d.m[i].offset = 0;
		d.m[i].state = R45DESC_MISSING;
	}
	/* never start_dirty_degraded: that is an operator's decision */
	if (r45desc_table(&d, 0, params, sizeof(params), err, sizeof(err))) {
		ctl_error("%s", err);
		return 1;
	}
	r = dm_create(&d, params);
	/* raid45@ and the last resort at the same time: one creates it */
	if ((r == -EEXIST || r == -EBUSY) && dm_active(d.name, uuid, sizeof(uuid)) == 1 && !strcmp(uuid, d.uuid)) {
		printf("%s: activated meanwhile (by another unit)\n", d.name);
		return 0;
	}
	if (r) {
		ctl_error("activating %s: %s (the kernel log says why); table: 0 %" PRIu64 " raid45 %s",
			  d.name, strerror(-r), d.size, params);
		/* never ran: what was left out is not stale, its record undone */
		if (leave_out && r45desc_record_unfailed(path, leave_out, desc, err, sizeof(err)))
			ctl_error("%s: the members left out stay recorded failed", err);
		for (i = 0; i < d.nr_members; i++)
			if (d.m[i].state != R45DESC_CURRENT)
				break;
		if (i < d.nr_members)
			ctl_error("if the kernel refused a dirty degraded start (a crash with a member out), it stays refused at boot: docs/raid45.rst, \"The write hole\"; raid45ctl activate %s --degraded --start-dirty-degraded forces it",
				  d.name);
		return 1;
	}
	printf("%s: active, table 0 %" PRIu64 " raid45 %s\n", d.name, d.size, params);
	return 0;
}

/* raid45-monitor register <name> --keep: 0, or 1 (printed) */
static int monitor(const char *name)
{
	const char *mon = getenv("RAID45_MONITOR") ? getenv("RAID45_MONITOR") : R45CTL_MONITOR_PATH;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ctl_error("fork: %s", strerror(errno));
		return 1;
	}
	if (!pid) {
		execl(mon, mon, "register", name, "--keep", (char *)NULL);
		ctl_error("%s: %s", mon, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			ctl_error("waitpid: %s", strerror(errno));
			return 1;
		}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	ctl_error("%s is active but not monitored: %s register %s --keep failed (its failures would hold writes until recorded by hand)",
		  name, mon, name);
	return 1;
}

static unsigned int now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned int)ts.tv_sec;
}

int cmd_boot(int argc, char **argv)
{
	static struct r45desc d;
	char name[R45DESC_NAME_MAX], path[PATH_MAX], err[512], abs[128];
	bool last = false, said = false;
	unsigned int start = now();
	struct r45boot_view v;
	enum r45boot_action act;
	int r;

	if (argc == 3 && !strcmp(argv[2], "--last-resort"))
		last = true;
	else if (argc != 2)
		return 2;
	if (r45boot_name(argv[1], name, sizeof(name))) {
		ctl_error("\"%s\": not the unit instance of an array name", argv[1]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(path, sizeof(path), "%s/%s.conf", r45desc_dir(), name);
	for (;;) {
		r = r45desc_load(path, &d, err, sizeof(err));
		if (r) {
			ctl_error("%s", r == -ENOENT ? "no description" : err);
			return 1;
		}
		r = active(&d);
		if (r < 0)
			return 1;
		if (r) {
			printf("%s: active already\n", d.name);
			if (last)
				return 0;	/* raid45@ (or an operator) started it */
			return monitor(d.name);
		}
		r45boot_look(&d, 0, r45boot_stat_devno, NULL, &v);
		act = r45boot_decide(&d, &v, now() - start);
		members_str(v.absent | v.conflict, abs, sizeof(abs));
		if (act == R45BOOT_ACTIVATE)
			break;
		if (!last) {
			ctl_error("%s: not activated: %s%s%s absent", d.name,
				  abs[0] ? "member " : "", abs,
				  v.log_absent ? (abs[0] ? " and the disk log" : "the disk log") : "");
			return 1;
		}
		if (act == R45BOOT_WAIT) {
			if (!said)
				printf("%s: waiting up to %u s for %s%s%s\n", d.name, d.boot_degraded,
				       abs[0] ? "member " : "", abs,
				       v.log_absent ? " the disk log" : "");
			said = true;
			sleep(1);
			continue;
		}
		if (act == R45BOOT_NEVER) {
			ctl_error("%s: %s%s%s absent, and its description never starts it degraded (no boot-degraded): it waits for them (raid45ctl activate %s --degraded starts it now)",
				  d.name, abs[0] ? "member " : "", abs,
				  v.log_absent ? " the disk log" : "", d.name);
			return 1;
		}
		if (act == R45BOOT_CANNOT) {
			ctl_error("%s: still absent after %u s: %s%s%s; more than it can start without: not started",
				  d.name, d.boot_degraded, abs[0] ? "member " : "", abs,
				  v.log_absent ? " the disk log" : "");
			return 1;
		}
		/* R45BOOT_DEGRADED */
		printf("%s: member %s still absent after %u s (boot-degraded): starting degraded\n",
		       d.name, abs, d.boot_degraded);
		if (boot_activate(path, &d, v.absent | v.conflict))
			return 1;
		return monitor(d.name);
	}
	if (boot_activate(path, &d, 0))
		return 1;
	return monitor(d.name);
}
