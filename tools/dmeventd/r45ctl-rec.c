// SPDX-License-Identifier: GPL-2.0
/*
 * raid45ctl's records of a running array's members (raid45ctl.c has the
 * rest): fail-record, readd, replace and rebuilt.  Each changes the
 * description under its lock (r45desc_lock) and only from the states it
 * expects (the plugin may have recorded something since it was read);
 * a reload or a readd's suspend waits until every failure the kernel
 * knows is recorded, and what would make a member current is recorded
 * only for the device the kernel has.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <libdevmapper.h>
#include "r45ctl-dev.h"
#include "r45desc.h"
#include "r45status.h"

int cmd_fail_record(int argc, char **argv)
{
	struct r45desc d;
	char path[PATH_MAX], err[512];
	unsigned int idx;
	uint32_t changed;

	if (argc != 3) {
		usage(stderr);
		return 2;
	}
	if (load(argv[1], &d, path, sizeof(path)) || parse_idx(&d, argv[2], &idx))
		return 1;
	if (r45desc_record_failed(path, 1u << idx, d.nr_members, &changed, err, sizeof(err))) {
		ctl_error("%s", err);
		return 1;
	}
	if (changed)
		printf("%s: member %u recorded failed in %s\n", d.name, idx, path);
	else
		printf("%s: member %u is %s already: nothing to record\n", d.name, idx,
		       r45desc_state_name(d.m[idx].state));
	return 0;
}

#define STATE(s) (1u << (s))

/*
 * Under the description's lock: member idx's state (and path) changed,
 * saved, if its state there is still one of from (the plugin may have
 * recorded something since the description was read).
 */
static int set_member(const char *path, unsigned int idx, const struct r45desc_member *m,
		      unsigned int from, struct r45desc *out)
{
	char err[512];
	int lock = r45desc_lock(path, err, sizeof(err)), r;

	if (lock < 0) {
		ctl_error("%s", err);
		return lock;
	}
	r = r45desc_load(path, out, err, sizeof(err));
	if (!r && (idx >= out->nr_members || !(from & STATE(out->m[idx].state)))) {
		snprintf(err, sizeof(err), "%s: member %u is %s now: changed meanwhile, not changed here",
			 path, idx, idx < out->nr_members ? r45desc_state_name(out->m[idx].state) : "gone");
		r = -EAGAIN;
	}
	if (!r) {
		out->m[idx] = *m;
		r = r45desc_save(path, out, err, sizeof(err));
	}
	r45desc_unlock(lock);
	if (r)
		ctl_error("%s", err);
	return r;
}

/* A record undone: member idx back to old, if it is still rebuilding. */
static void undo_rebuilding(const char *path, unsigned int idx, const struct r45desc_member *old)
{
	struct r45desc d;

	if (set_member(path, idx, old, STATE(R45DESC_REBUILDING), &d))
		ctl_error("member %u stays recorded rebuilding in %s: the next activation rebuilds it whole",
			  idx, path);
	else
		printf("member %u recorded %s again in %s\n", idx, r45desc_state_name(old->state),
		       path);
}

/*
 * The members the kernel has failed that the description d does not call
 * failed or missing (except), those the table leaves out ("- -", dead
 * in the status) included: a reload's or readd's suspend, or a
 * deactivation, must not run before they are recorded (the next
 * activation would take them as current).  Printed; true if there is
 * one.
 */
bool unrecorded_failure(const struct r45desc *d, const struct r45_status *st, int except)
{
	unsigned int i;
	bool any = false;

	for (i = 0; i < st->nr_members && i < d->nr_members; i++) {
		if ((int)i == except || !st->members[i].dead ||
		    d->m[i].state == R45DESC_FAILED || d->m[i].state == R45DESC_MISSING)
			continue;
		ctl_error("member %u of %s has failed, but the description calls it %s: not suspended until it is recorded (raid45ctl fail-record %s %u)",
			  i, d->name, r45desc_state_name(d->m[i].state), d->name, i);
		any = true;
	}
	return any;
}

int cmd_readd(int argc, char **argv)
{
	struct r45desc d;
	struct r45desc_member m, old;
	struct r45_status st;
	char path[PATH_MAX], msg[32], uuid[R45DESC_UUID_MAX];
	unsigned int idx, i;
	int r, r2, lock;

	if (argc != 3) {
		usage(stderr);
		return 2;
	}
	if (load(argv[1], &d, path, sizeof(path)) || parse_idx(&d, argv[2], &idx))
		return 1;
	if (dm_active(d.name, uuid, sizeof(uuid)) != 1 || strcmp(uuid, d.uuid)) {
		ctl_error("%s is not active: a readd takes back a member the running array failed (its record of what was written since lives in memory); for an inactive array: raid45ctl replace %s %u %s",
		      d.name, d.name, idx, d.m[idx].path[0] ? d.m[idx].path : "<device>");
		return 1;
	}
	if (d.m[idx].state != R45DESC_FAILED) {
		ctl_error("member %u is %s in the description: only a member recorded failed is re-added%s",
			  idx, r45desc_state_name(d.m[idx].state),
			  d.m[idx].state == R45DESC_CURRENT ? " (raid45ctl fail-record first)" : "");
		return 1;
	}
	for (i = 0; i < d.nr_members; i++)
		if (d.m[i].state == R45DESC_REBUILDING) {
			ctl_error("member %u is being rebuilt: one rebuild at a time", i);
			return 1;
		}
	r = dm_status(d.name, &st);
	if (r || st.nr_members != d.nr_members || !st.members[idx].dead ||
	    st.members[idx].missing) {
		ctl_error("member %u of %s is not a failed member in the kernel%s", idx, d.name,
		      r ? ": cannot read the status" : "");
		return 1;
	}
	if (unrecorded_failure(&d, &st, (int)idx))
		return 1;
	/*
	 * Recorded rebuilding first: should anything stop before the readd
	 * is recorded, the description never calls the member current, and
	 * the next activation rebuilds it whole.
	 */
	old = d.m[idx];
	m = old;
	m.state = R45DESC_REBUILDING;
	if (set_member(path, idx, &m, STATE(R45DESC_FAILED), &d))
		return 1;
	lock = dm_lock_table(path, d.name);
	if (lock < 0) {
		undo_rebuilding(path, idx, &old);
		return 1;
	}
	r = dm_simple(DM_DEVICE_SUSPEND, d.name, false);
	if (r) {
		ctl_error("suspending %s: %s", d.name, strerror(-r));
		r45desc_unlock(lock);
		undo_rebuilding(path, idx, &old);
		return 1;
	}
	snprintf(msg, sizeof(msg), "readd %u", idx);
	r = dm_message(d.name, msg);
	r2 = dm_simple(DM_DEVICE_RESUME, d.name, true);
	r45desc_unlock(lock);
	if (r2)
		ctl_error("resuming %s: %s: it is left suspended (dmsetup resume %s)", d.name,
		      strerror(-r2), d.name);
	if (r) {
		ctl_error("readd of member %u refused: %s (the kernel log says why)", idx, strerror(-r));
		undo_rebuilding(path, idx, &old);
		return 1;
	}
	printf("%s: member %u re-added, rebuilding the regions written while it was out; recorded rebuilding in %s\n",
	       d.name, idx, path);
	return r2 ? 1 : 0;
}

/*
 * A rebuild the kernel finished, recorded (what the plugin does when
 * it monitors the array): only once the kernel has the member alive, not
 * rebuilding, and every region in sync.
 */
int cmd_rebuilt(int argc, char **argv)
{
	struct r45desc d;
	struct r45_status st;
	char path[PATH_MAX], err[512], uuid[R45DESC_UUID_MAX];
	unsigned int idx;
	uint32_t changed;
	dev_t devs[R45_MAX_MEMBERS] = { 0 };
	int r;

	if (argc != 3) {
		usage(stderr);
		return 2;
	}
	if (load(argv[1], &d, path, sizeof(path)) || parse_idx(&d, argv[2], &idx))
		return 1;
	if (d.m[idx].state != R45DESC_REBUILDING) {
		ctl_error("member %u is %s, not rebuilding", idx, r45desc_state_name(d.m[idx].state));
		return 1;
	}
	if (dm_active(d.name, uuid, sizeof(uuid)) != 1 || strcmp(uuid, d.uuid)) {
		ctl_error("%s is not active: only the running array can say its rebuild finished", d.name);
		return 1;
	}
	r = dm_status(d.name, &st);
	if (r || st.nr_members != d.nr_members) {
		ctl_error("cannot read the raid45 status of %s", d.name);
		return 1;
	}
	if (st.members[idx].dead || st.members[idx].missing || st.members[idx].rebuilding ||
	    st.in_sync != st.regions) {
		ctl_error("the rebuild of member %u has not finished: %s, %" PRIu64 "/%" PRIu64 " regions in sync",
		      idx, st.members[idx].dead ? "it failed" :
		      st.members[idx].rebuilding ? "still rebuilding" : "not current", st.in_sync,
		      st.regions);
		return 1;
	}
	/* the rebuilt data durable first: a flush reaches every member */
	if (st.held) {
		ctl_error("writes to %s are held for a failure: record it first (raid45ctl fail-record)", d.name);
		return 1;
	}
	if (dm_flush(d.name))
		return 1;
	devs[idx] = makedev(st.members[idx].major, st.members[idx].minor);
	if (r45desc_record_rebuilt(path, 1u << idx, d.nr_members, devs, &changed, err, sizeof(err))) {
		ctl_error("%s", err);
		return 1;
	}
	printf("%s: member %u recorded current in %s\n", d.name, idx, path);
	return 0;
}

int cmd_replace(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "offset", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct r45desc d;
	struct r45desc_member m, old;
	struct r45_status st;
	char path[PATH_MAX], params[TABLE_MAX], err[512], uuid[R45DESC_UUID_MAX];
	uint64_t sectors, offset = 0, need;
	bool force = false, has_offset = false, active;
	unsigned int idx, i, parity;
	dev_t rdev;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'o') {
			if (parse_uint("--offset", optarg, INT64_MAX, &offset))
				return 2;
			has_offset = true;
		} else if (c == 'f') {
			force = true;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 3) {
		usage(stderr);
		return 2;
	}
	if (load(argv[optind], &d, path, sizeof(path)) || parse_idx(&d, argv[optind + 1], &idx))
		return 1;
	if (d.m[idx].state == R45DESC_CURRENT) {
		ctl_error("member %u is current: raid45ctl fail-record %s %u first if it is to go",
		      idx, d.name, idx);
		return 1;
	}
	for (i = 0; i < d.nr_members; i++)
		if (i != idx && d.m[i].state == R45DESC_REBUILDING) {
			ctl_error("member %u is being rebuilt: one rebuild at a time", i);
			return 1;
		}
	if (!has_offset) {
		offset = d.m[idx].offset;
		for (i = 0; !d.m[idx].path[0] && i < d.nr_members; i++)
			if (d.m[i].path[0]) {
				offset = d.m[i].offset;
				break;
			}
	}
	if (check_member(argv[optind + 2], force, &sectors, &rdev))
		return 1;
	parity = r45desc_parity_members(d.type);
	need = offset + d.size / (d.nr_members - parity);
	if (sectors < need) {
		ctl_error("%s has %" PRIu64 " sectors, member %u needs %" PRIu64 " (offset %" PRIu64 " + %" PRIu64 ")",
		      argv[optind + 2], sectors, idx, need, offset, need - offset);
		return 1;
	}
	memset(&m, 0, sizeof(m));
	if (stable_path(argv[optind + 2], rdev, force, m.path, sizeof(m.path)))
		return 1;
	for (i = 0; i < d.nr_members; i++)
		if (i != idx && !strcmp(d.m[i].path, m.path)) {
			ctl_error("%s is member %u already", m.path, i);
			return 1;
		}
	m.offset = offset;
	m.state = R45DESC_REBUILDING;
	active = dm_active(d.name, uuid, sizeof(uuid)) == 1 && !strcmp(uuid, d.uuid);
	if (active) {
		if (dm_status(d.name, &st) || st.nr_members != d.nr_members) {
			ctl_error("cannot read the raid45 status of %s: nothing changed", d.name);
			return 1;
		}
		/*
		 * Before anything is recorded.  idx was failed, missing or
		 * rebuilding (current is refused above): whatever its device
		 * did, the new table replaces it.
		 */
		if (unrecorded_failure(&d, &st, (int)idx))
			return 1;
	}
	old = d.m[idx];
	/* recorded first: whatever happens next, it is never taken for current */
	if (set_member(path, idx, &m, STATE(R45DESC_FAILED) | STATE(R45DESC_MISSING) |
		       STATE(R45DESC_REBUILDING), &d))
		return 1;
	printf("%s: member %u is %s, recorded rebuilding in %s\n", d.name, idx, m.path, path);
	if (!active) {
		printf("%s is not active: the rebuild starts when it is (raid45ctl activate %s)\n",
		       d.name, d.name);
		return 0;
	}
	/*
	 * Not reloaded: the kernel goes on with the device it has there; the
	 * description goes back to what it said (a rebuilt record names the
	 * kernel's device and is refused for another anyway).
	 */
	if (r45desc_table(&d, 0, params, sizeof(params), err, sizeof(err))) {
		ctl_error("%s", err);
		undo_rebuilding(path, idx, &old);
		return 1;
	}
	if (dm_reload_locked(path, &d, params)) {
		undo_rebuilding(path, idx, &old);
		return 1;
	}
	printf("%s: table reloaded, rebuild of member %u started: 0 %" PRIu64 " raid45 %s\n",
	       d.name, idx, d.size, params);
	return 0;
}

