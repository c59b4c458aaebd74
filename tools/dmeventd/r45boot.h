/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Activation at boot (issue 35; docs/raid45.rst, "Activation at boot"):
 * which described arrays a block device that appears completes, and what
 * to do with an array whose members are not all there.  Pure logic
 * (r45boot.c, unit-tested by test-r45boot.c without devices: the lookup
 * of a path's device number is a parameter); raid45ctl's incremental
 * and boot commands (r45ctl-boot.c) run it for udev and the units.
 *
 * The design, in short: a udev rule (tools/systemd/69-raid45.rules)
 * runs "raid45ctl incremental --export $devnode $links" for every block
 * device that appears (its by-id links are made only after the rules
 * ran: $links names them); it names the systemd units to start:
 * raid45@<array> for an array all of whose needed devices are there (it
 * activates it and registers it with dmeventd), raid45-last-resort@<array>
 * for one that still misses some: it waits for them, and once the
 * description's "boot-degraded <seconds>" have passed starts the array
 * without them (never, without that key).  Devices present before udev runs are
 * seen by the coldplug ("udevadm trigger" at boot, as for md), so no
 * activate-all service is needed.  The bound is the description's: a
 * timer's delay is fixed in its unit file, so the last-resort service
 * does the waiting itself ("raid45ctl boot --last-resort", polling each
 * second, bounded by the description).
 */
#ifndef R45BOOT_H
#define R45BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "r45desc.h"

/*
 * The device number of the block device at path (symbolic links
 * followed): 0 with *dev set, or -errno (-ENOTBLK: not a block device).
 * The real one is r45boot_stat_devno (stat()); the tests inject theirs.
 */
typedef int (*r45boot_devno_fn)(const char *path, dev_t *dev, void *ctx);
int r45boot_stat_devno(const char *path, dev_t *dev, void *ctx);

/*
 * The appearing device under the names udev gives it ($links: its
 * by-id links, made only once its rules have run, relative to /dev or
 * absolute) as well as by stat(): the devno function of incremental.
 */
struct r45boot_aliases {
	dev_t dev;
	char *const *names;
	unsigned int nr;
	r45boot_devno_fn next;	/* for every other path (r45boot_stat_devno) */
	void *next_ctx;
};
int r45boot_alias_devno(const char *path, dev_t *dev, void *ctx);

/* What is there of a description's devices. */
struct r45boot_view {
	/* devices the table names: current and rebuilding members, a disk log */
	unsigned int needed;
	unsigned int present;	/* of them: there, and no other member's */
	uint32_t absent;	/* needed members not there */
	/*
	 * needed members whose device is also another member's (two paths
	 * to one disk, or the device of a member recorded failed or
	 * missing): never counted present, and never used
	 */
	uint32_t conflict;
	/*
	 * for each member in conflict, the other it shares its device
	 * with: a member's index, or -1 for the disk log
	 */
	int conflict_with[R45_MAX_MEMBERS];
	bool log_absent;	/* the disk log is not there (or a member's) */
	/* the device asked about (dev, 0: none) */
	int dev_member;		/* the needed member it is, -1: none */
	bool dev_log;		/* it is the disk log */
	int dev_failed;		/* the failed or missing member it is, -1: none */
};

/*
 * Look at each of d's devices through devno (a failed or missing member
 * with a path too, only to know its device): v filled in.  dev: also say
 * what that device is to d.
 */
void r45boot_look(const struct r45desc *d, dev_t dev, r45boot_devno_fn devno, void *ctx,
		  struct r45boot_view *v);
/* dev is a needed member or the disk log of d */
bool r45boot_names(const struct r45boot_view *v);
/* every needed device is there: the array can be activated as described */
bool r45boot_complete(const struct r45boot_view *v);

/*
 * Seconds the last-resort service of an array that is never started
 * degraded still waits for its members: udev runs the rules of devices
 * that appear together at the same time, and each sees the by-id links of
 * the others only once their rules have run, so none of them may find
 * the array complete; the service, started by the first, sees them all.
 */
#define R45BOOT_SETTLE 10

/*
 * The seconds the last-resort service waits before it starts d degraded
 * (d's boot-degraded, at least R45BOOT_SETTLE: a smaller value, in a file
 * older than that rule, would start it before udev settled), or, if d is
 * never started degraded, before it gives up (R45BOOT_SETTLE).
 */
unsigned int r45boot_bound(const struct r45desc *d);
/*
 * d can tell, at activation, that it was not shut down cleanly (a disk
 * log, or ppl): only then may it be started degraded at boot.  A core
 * log without ppl starts every activation as if clean, and a degraded
 * start after a crash would serve the write hole's garbage silently.
 */
bool r45boot_crash_detectable(const struct r45desc *d);

enum r45boot_action {
	R45BOOT_ACTIVATE,	/* every needed device there: activate */
	R45BOOT_WAIT,		/* some absent, the bound not reached: wait */
	R45BOOT_DEGRADED,	/* the bound passed: start without the absent */
	R45BOOT_NEVER,		/* some absent, and never started degraded */
	R45BOOT_CANNOT,		/* the bound passed, and it cannot start without them */
};

/*
 * What the last-resort service does with d after waiting elapsed_ms
 * milliseconds (since it started: the first of the array's devices
 * seen), the bound being r45boot_bound(d) seconds.  R45BOOT_NEVER once
 * the bound passed without boot-degraded.  R45BOOT_CANNOT: at once if
 * a device is two needed devices' (v->conflict: which one it holds is
 * unknown); after the bound, the disk log absent, the array unable to
 * tell a crash (r45boot_crash_detectable), or more members out (absent,
 * failed, missing, rebuilding) than the type's parity.
 */
enum r45boot_action r45boot_decide(const struct r45desc *d, const struct r45boot_view *v,
				   uint64_t elapsed_ms);
const char *r45boot_action_name(enum r45boot_action a);

/*
 * The systemd unit instance of an array name: the name with '+', which
 * unit names cannot hold, written ':', which array names cannot hold
 * (every other character of a name is a unit name's as it is, and "%i"
 * in a unit gives it back unchanged: no "\x2d"-style escapes, which
 * udev's SYSTEMD_WANTS would take apart).  0, or -EINVAL (not an array
 * name) / -ENOSPC.
 */
int r45boot_instance(const char *name, char *out, size_t size);
/* The array name of an instance: 0, or -EINVAL (none) / -ENOSPC. */
int r45boot_name(const char *instance, char *out, size_t size);

#endif
