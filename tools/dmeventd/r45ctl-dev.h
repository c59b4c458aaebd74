/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raid45ctl's device work (r45ctl-dev.c): device-mapper through
 * libdevmapper, and the checks of a new member (size, holders,
 * signatures through libblkid).  Errors are printed (ctl_error) and
 * returned as -errno.
 */
#ifndef R45CTL_DEV_H
#define R45CTL_DEV_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include "r45desc.h"
#include "r45status.h"

__attribute__((format(printf, 1, 2)))
void ctl_error(const char *fmt, ...);

/*
 * DM_DEVICE_SUSPEND (always without flush: held writes stay held),
 * _RESUME, _REMOVE... on name (udev: wait for its nodes)
 */
int dm_simple(int type, const char *name, bool udev);
/* 1 active (its uuid filled in), 0 not, -errno */
int dm_active(const char *name, char *uuid, size_t size);
/* as dm_active, and *live: it has a live table (a device without is not running) */
int dm_active_live(const char *name, char *uuid, size_t size, bool *live);

/*
 * The activation lock of the array name: an flock()ed file of its own,
 * $RAID45_RUN_DIR/<name>.lock (/run/raid45 by default; not the
 * description's lock, which every record takes itself), held from the
 * reading of the description to the creation of the device by raid45ctl
 * boot (both units), activate and create: two of them never decide on
 * one description at once (the last resort recording a member failed
 * while raid45@ creates the array with it).  Waits up to
 * R45CTL_LOCK_WAIT_MS: its descriptor (close() releases it), or -errno
 * (printed).
 */
#define R45CTL_RUN_DIR "/run/raid45"
#define R45CTL_LOCK_WAIT_MS 30000
int activation_lock(const char *name);
/* create d's device (its name, UUID, size) with these raid45 parameters */
int dm_create(const struct r45desc *d, const char *params);
/* load these parameters into d's active device, suspend, resume */
int dm_reload(const struct r45desc *d, const char *params);
/* a message to the target at sector 0 */
/*
 * The lock protocol the plugin keeps (plugin.c, pd_reload): a table is
 * loaded, the device suspended (noflush) and resumed under the array's
 * description lock, and only when it has no inactive table, so that two
 * reloads (raid45ctl's, the plugin's) never interleave.  dm_lock_table
 * takes that lock and checks: the lock's descriptor (r45desc_unlock), or
 * -errno (printed).  Nothing that records (r45desc_save, _record_*,
 * set_member) may run while it is held: they take the lock themselves.
 */
int dm_lock_table(const char *path, const char *name);
/* dm_reload under dm_lock_table: 0 or -errno (printed) */
int dm_reload_locked(const char *path, const struct r45desc *d, const char *params);
int dm_message(const char *name, const char *msg);
/* the raid45 status at sector 0: 0, -ENOENT (no such target), -errno */
int dm_status(const char *name, struct r45_status *st);

/* fsync /dev/mapper/<name> (a flush to every member): 0, or -errno (printed) */
int dm_flush(const char *name);
/* a device another description names: printed; true if refused (no force) */
bool described_elsewhere(const char *dev, dev_t rdev, bool force);
/* the descriptions' directory on a raid45 array: printed, 1 (else 0) */
int desc_dir_on_raid45(const char *dir);
/*
 * A new member: a block device nobody holds, without a signature unless
 * force; its size in sectors and its device number.
 */
int check_member(const char *path, bool force, uint64_t *sectors, dev_t *rdev);
/* the path to record: its /dev/disk/by-id name for a kernel name */
int stable_path(const char *path, dev_t rdev, bool force, char *out, size_t size);
/* "R45-" and 32 random hex digits */
void random_uuid(char *uuid, size_t size);

/* raid45ctl.c: its usage and argument helpers (1 or -errno: printed) */
void usage(FILE *f);
int load(const char *name, struct r45desc *d, char *path, size_t size);
int parse_uint(const char *what, const char *s, uint64_t max, uint64_t *v);
int parse_idx(const struct r45desc *d, const char *s, unsigned int *idx);

/* r45ctl-rec.c: the member records */
int cmd_fail_record(int argc, char **argv);
int cmd_readd(int argc, char **argv);
int cmd_rebuilt(int argc, char **argv);
int cmd_replace(int argc, char **argv);
int cmd_grow(int argc, char **argv);
bool unrecorded_failure(const struct r45desc *d, const struct r45_status *st, int except);

#define TABLE_MAX R45DESC_TABLE_MAX

#endif
