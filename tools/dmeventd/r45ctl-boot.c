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
 *       configuration, if it has one, is kept).  Active already: a
 *       success, not registered again (whoever created it did).  Each
 *       look at the array (description read, active?, decision, records,
 *       creation) holds its activation lock (activation_lock(),
 *       r45ctl-dev.h), as activate and create do.  --last-resort
 *       (raid45-last-resort@.service): wait, polling each second, until
 *       every needed device is there (then as above), the array is
 *       active (started by raid45@: nothing to do), or the description's
 *       boot-degraded seconds (at least R45BOOT_SETTLE) have passed:
 *       then start it without the absent members, if the type's parity
 *       covers them, the disk log is there and the array can tell a
 *       crash (a disk log or ppl); a description without boot-degraded
 *       is never started degraded, nor one with a device two needed
 *       paths lead to.  Never with start_dirty_degraded: a dirty
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
	/* not before udev settled (R45BOOT_SETTLE) */
	if (errno || end == arg || *end || arg[0] < '1' || arg[0] > '9' ||
	    v < R45BOOT_SETTLE || v > R45DESC_BOOT_DEGRADED_MAX) {
		ctl_error("--boot-degraded %s: never or %d..%d seconds", arg, R45BOOT_SETTLE,
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

/*
 * "member 1 2 and the disk log", "member 3", "the disk log" of what v
 * says is absent (conflicts apart)
 */
static void absent_str(const struct r45boot_view *v, char *buf, size_t size)
{
	char m[128];

	members_str(v->absent, m, sizeof(m));
	snprintf(buf, size, "%s%s%s%s", m[0] ? "member " : "", m,
		 m[0] && v->log_absent ? " and " : "", v->log_absent ? "the disk log" : "");
}

/* each device two needed paths lead to, printed */
static void print_conflicts(const struct r45desc *d, const struct r45boot_view *v)
{
	unsigned int i;
	int j;

	for (i = 0; i < d->nr_members && i < R45_MAX_MEMBERS; i++) {
		if (!(v->conflict & (1u << i)))
			continue;
		j = v->conflict_with[i];
		/* each pair of members once */
		if (j >= 0 && (unsigned int)j < i && (v->conflict & (1u << j)) &&
		    v->conflict_with[j] == (int)i)
			continue;
		if (j < 0)
			ctl_error("%s: member %u (%s) and the disk log (%s) lead to one device", d->name,
				  i, d->m[i].path, d->log_dev);
		else
			ctl_error("%s: member %u (%s) and member %d (%s, %s) lead to one device", d->name,
				  i, d->m[i].path, j, d->m[j].path, r45desc_state_name(d->m[j].state));
	}
}

/*
 * 1 active with d's UUID, 0 not active, -1 another device of the name,
 * or one without a live table (printed)
 */
static int active(const struct r45desc *d)
{
	char uuid[R45DESC_UUID_MAX];
	bool live;
	int r = dm_active_live(d->name, uuid, sizeof(uuid), &live);

	if (r < 0) {
		ctl_error("%s: cannot ask device-mapper whether it is active", d->name);
		return -1;
	}
	if (r == 1 && !live) {
		ctl_error("a device-mapper device %s exists without a live table (a failed activation, or one under way by other means): not activated; dmsetup remove %s if it is left over",
			  d->name, d->name);
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
 * not take them as current; as raid45ctl activate --degraded does).
 * Under the array's activation lock: 0 created, 1 not (printed), 2
 * created meanwhile by something that does not take the lock (dmsetup):
 * not ours, nothing recorded (printed).
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
		memset(d.m[i].path, 0, sizeof(d.m[i].path));
		d.m[i].offset = 0;
		d.m[i].state = R45DESC_MISSING;
	}
	/* never start_dirty_degraded: that is an operator's decision */
	r = r45desc_table(&d, 0, params, sizeof(params), err, sizeof(err));
	if (r) {
		ctl_error("%s", err);
	} else {
		r = dm_create(&d, params);
		if (r)
			ctl_error("activating %s: %s (the kernel log says why); table: 0 %" PRIu64 " raid45 %s",
				  d.name, strerror(-r), d.size, params);
	}
	if (r) {
		/* never ran: what was left out is not stale, its record undone */
		if (leave_out && r45desc_record_unfailed(path, leave_out, desc, err, sizeof(err)))
			ctl_error("%s: the members left out stay recorded failed", err);
		/* created by something that does not take the lock: not ours */
		if ((r == -EEXIST || r == -EBUSY) && dm_active(d.name, uuid, sizeof(uuid)) == 1 &&
		    !strcmp(uuid, d.uuid)) {
			printf("%s: activated meanwhile, not by raid45ctl (which takes %s/%s.lock): not registered here\n",
			       d.name, R45CTL_RUN_DIR, d.name);
			return 2;
		}
		for (i = 0; i < d.nr_members; i++)
			if (d.m[i].state != R45DESC_CURRENT)
				break;
		if (i < d.nr_members)
			ctl_error("if the kernel refused a dirty degraded start (a crash with a member out), it stays refused at boot: docs/raid45.rst, \"The write hole\"; raid45ctl activate %s --degraded --start-dirty-degraded forces it",
				  d.name);
		return 1;
	}
	for (i = 0; i < d.nr_members; i++)
		if (leave_out & (1u << i))
			printf("%s: member %u (%s) is not there: recorded failed, started without it\n",
			       d.name, i, desc->m[i].path);
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

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * One look at the array under its activation lock (held from the reading
 * of the description to the creation of the device: r45ctl-dev.h): 0
 * done (*monitor: this process created the device, it registers it),
 * 1 failed (printed), -EAGAIN wait and look again.
 */
static int boot_once(const char *name, const char *path, bool last, uint64_t start,
		     bool *said, bool *mon)
{
	static struct r45desc d;
	char err[512], abs[160];
	struct r45boot_view v;
	enum r45boot_action act;
	int r;

	*mon = false;
	r = r45desc_load(path, &d, err, sizeof(err));
	if (r) {
		ctl_error("%s", r == -ENOENT ? "no description" : err);
		return 1;
	}
	if (strcmp(d.name, name)) {
		ctl_error("%s names %s, not %s", path, d.name, name);
		return 1;
	}
	r = active(&d);
	if (r < 0)
		return 1;
	if (r) {
		/* whoever created it registered it (or an operator does) */
		printf("%s: active already (activated by %s): not registered here\n", d.name,
		       last ? "raid45@ or an operator" : "the last resort or an operator");
		return 0;
	}
	r45boot_look(&d, 0, r45boot_stat_devno, NULL, &v);
	act = r45boot_decide(&d, &v, now_ms() - start);
	absent_str(&v, abs, sizeof(abs));
	switch (act) {
	case R45BOOT_ACTIVATE:
		r = boot_activate(path, &d, 0);
		*mon = !r;
		return r == 1;
	case R45BOOT_WAIT:
		if (!last)
			break;
		if (!*said && d.boot_degraded)
			printf("%s: waiting up to %u s for %s\n", d.name, r45boot_bound(&d), abs);
		else if (!*said)
			printf("%s: waiting up to %u s for %s (settling; never started degraded: no boot-degraded)\n",
			       d.name, r45boot_bound(&d), abs);
		*said = true;
		return -EAGAIN;
	case R45BOOT_NEVER:
		ctl_error("%s: %s absent, and its description never starts it degraded (no boot-degraded): it waits for them (raid45ctl activate %s --degraded starts it now)",
			  d.name, abs, d.name);
		return 1;
	case R45BOOT_CANNOT:
		if (v.conflict) {
			print_conflicts(&d, &v);
			ctl_error("%s: not started: which member a device that two of its paths lead to holds is unknown (fix the paths in %s)",
				  d.name, path);
		} else if (!r45boot_crash_detectable(&d)) {
			ctl_error("%s: still absent after %u s: %s; not started degraded: with a core log and no ppl the array cannot tell a crash (the write hole: docs/raid45.rst), raid45ctl activate %s --degraded starts it",
				  d.name, r45boot_bound(&d), abs, d.name);
		} else {
			ctl_error("%s: still absent after %u s: %s; more than it can start without: not started",
				  d.name, r45boot_bound(&d), abs);
		}
		return 1;
	case R45BOOT_DEGRADED:
		printf("%s: %s still absent after %u s (boot-degraded): starting degraded\n",
		       d.name, abs, r45boot_bound(&d));
		r = boot_activate(path, &d, v.absent);
		*mon = !r;
		return r == 1;
	}
	if (v.conflict)
		print_conflicts(&d, &v);
	ctl_error("%s: not activated: %s%s absent", d.name, abs,
		  v.conflict ? (abs[0] ? " and the members above" : "the members above") : "");
	return 1;
}

int cmd_boot(int argc, char **argv)
{
	char name[R45DESC_NAME_MAX], path[PATH_MAX];
	bool last = false, said = false, mon;
	uint64_t start = now_ms();
	int r, lock;

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
		lock = activation_lock(name);
		if (lock < 0)
			return 1;
		r = boot_once(name, path, last, start, &said, &mon);
		close(lock);
		if (r != -EAGAIN)
			break;
		sleep(1);
	}
	if (r)
		return 1;
	/* only the process that created the device registers it */
	return mon ? monitor(name) : 0;
}
