/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monitor's decisions for one dm device, apart from how it talks to
 * device-mapper: the dmeventd plugin (plugin.c) gives it libdevmapper
 * operations, the unit test (test-r45mon.c) a fake array.  It sees the
 * array only through status lines, and acts only through messages,
 * table reloads and the hook program, as an operator would.
 */
#ifndef R45MON_H
#define R45MON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "r45status.h"

enum r45mon_policy {
	R45MON_WARN,	/* log, run the hook, allow writes if it exits 0 */
	R45MON_SPARE,	/* as warn, then rebuild onto the next spare */
	R45MON_HOLD,	/* log, leave writes held for an operator */
};

#define R45MON_MAX_SPARES 16
#define R45MON_PATH_MAX 256
#define R45MON_MAX_TARGETS 8
#define R45MON_NAME_MAX 128
#define R45MON_DEFAULT_HOOK_TIMEOUT 60
/* the UUID prefix of the sets "raid45-monitor dmraid" activates */
#define R45MON_DMRAID_UUID_PREFIX "DMRAID45-"
/* the UUID prefix of the arrays raid45ctl create makes (r45ctl-dev.c) */
#define R45MON_RAID45CTL_UUID_PREFIX "R45-"
/* the descriptions' directory when the configuration names none (r45desc.h) */
#define R45MON_DESC_DIR_DEFAULT "/etc/raid45"

/* The per-device configuration file (key=value lines, see conf_parse). */
struct r45mon_conf {
	enum r45mon_policy policy;
	char hook[R45MON_PATH_MAX];	/* "" for none */
	unsigned int nr_spares;
	char spares[R45MON_MAX_SPARES][R45MON_PATH_MAX];
	char log[R45MON_PATH_MAX];	/* "" for none */
	unsigned int hook_timeout;	/* seconds */
	/*
	 * dmeventd's timeout (the progress polling) the device was
	 * registered with, in seconds: register --keep registers it with
	 * it again.  0: not recorded (older configurations: the default)
	 */
	unsigned int timeout;
	/*
	 * the directory of the array descriptions (r45desc.h) that
	 * raid45-monitor register saw ($RAID45_CONF_DIR or /etc/raid45):
	 * the plugin's own environment (dmeventd started by systemd) may
	 * name another.  "": R45MON_DESC_DIR_DEFAULT (older configurations)
	 */
	char descriptions[R45MON_PATH_MAX];
};

void r45mon_conf_default(struct r45mon_conf *conf);
/*
 * Parse a configuration file's text: 0, or -EINVAL with a message (naming
 * the line) in err.  Keys: policy=warn|spare|hold, hook=/abs/path,
 * spare=/abs/path (repeatable, used in order), log=/abs/path,
 * hook_timeout=<seconds>, timeout=<seconds>, descriptions=/abs/dir.  '#' starts a comment
 * line.
 */
int r45mon_conf_parse(const char *text, struct r45mon_conf *conf,
		      char *err, size_t errsize);
/* 0, or -ENOSPC. */
int r45mon_conf_format(const struct r45mon_conf *conf, char *buf, size_t size);
const char *r45mon_policy_name(enum r45mon_policy p);
/* The descriptions' directory of a configuration (its default if none). */
const char *r45mon_conf_descriptions(const struct r45mon_conf *conf);
/*
 * A record found no description of the device (uuid) in dir: -ENOENT
 * ("no description", nothing to record) unless raid45ctl made the array
 * (its UUID starts with R45MON_RAID45CTL_UUID_PREFIX): then its
 * description is somewhere else, or lost, and a failure must not be
 * acknowledged unrecorded: -ENOKEY with where it looked and what to do
 * in err (monitor: the device's monitor configuration, for the message).
 */
int r45mon_no_description(const char *uuid, const char *dir, const char *monitor,
			  char *err, size_t errsize);
int r45mon_policy_parse(const char *s, enum r45mon_policy *p);

/* What the monitor asks of its surroundings; each returns 0 or -errno. */
struct r45mon_ops {
	/* the table parameters of the raid45 target that starts at start */
	int (*get_table)(void *ctx, uint64_t start, char *buf, size_t size);
	/*
	 * load the device's table with that target's parameters replaced
	 * (the other targets unchanged), suspend without flush (held
	 * writes stay held), resume; err says which step failed and why.
	 * Never called while a dead member's failure is not recorded.
	 * -EAGAIN: not now (another program reloads the device: an inactive
	 * table there, or the description's lock held), tried again later.
	 */
	int (*reload)(void *ctx, uint64_t start, const char *params,
		      char *err, size_t errsize);
	/*
	 * a target message to the target at start ("allow_writes <idx>...":
	 * -EINVAL if a member named is not failed)
	 */
	int (*message)(void *ctx, uint64_t start, const char *msg);
	/*
	 * run the hook program (argv[0]) and wait for it: its exit status
	 * (0..255, 128 + signal if killed), or -errno if it could not be
	 * run (-ETIMEDOUT: killed after hook_timeout)
	 */
	int (*run_hook)(void *ctx, const char *const argv[]);
	/*
	 * a spare's device number and size; -EBUSY if something holds it
	 * (the device number is filled in whenever it is known)
	 */
	int (*spare_info)(void *ctx, const char *path, unsigned int *major,
			  unsigned int *minor, uint64_t *sectors);
	/* one log line at a syslog priority; it names the device already */
	void (*log)(void *ctx, int prio, const char *line);
	/*
	 * optional: member k (was old, maj:min) has been replaced by the
	 * spare path (devno) and its rebuild started
	 */
	void (*replaced)(void *ctx, unsigned int k, const char *old, const char *path,
			 const char *devno);
	/*
	 * optional: record, durably, in the array's description (r45desc.h)
	 * that the members in mask (of nr) of the target at start have
	 * failed.  0 once recorded; -ENOENT if the array has no description
	 * (nothing to record there); any other -errno, with why in err, if
	 * it could not be recorded: then no allow_writes names them, and it
	 * is tried again at the next update
	 */
	int (*record_failed)(void *ctx, uint64_t start, uint32_t mask, unsigned int nr,
			     char *err, size_t errsize);
	/*
	 * optional: the rebuild of member k (of nr), the device
	 * major:minor in the kernel's table, finished: the description
	 * calls it current if it called it rebuilding and names that
	 * device.  0, -ENOENT (no description), or -errno with why in err
	 * (logged: the next activation then rebuilds it again)
	 */
	int (*record_rebuilt)(void *ctx, uint64_t start, unsigned int k, unsigned int nr,
			      unsigned int major, unsigned int minor, char *err, size_t errsize);
	/*
	 * optional: member k (of nr) was replaced by the spare path at
	 * offset, its rebuild started: the description names the spare,
	 * rebuilding.  0, -ENOENT (no description), or -errno with why
	 * (logged: the description still calls the member failed, so the
	 * next activation starts without it)
	 */
	int (*record_replaced)(void *ctx, uint64_t start, unsigned int k, unsigned int nr,
			       const char *path, uint64_t offset, char *err, size_t errsize);
	/*
	 * optional: make what the array has written durable on its members
	 * (an fsync of the dm device: the flush reaches every member), before
	 * a rebuilt member is recorded current.  Called only while writes
	 * are not held (a held flush would never end).  0 or -errno; never
	 * waits without a bound: a member can fail during the flush, and the
	 * kernel then holds its completion until allow_writes, which only
	 * the caller sends.  -ETIMEDOUT: not ended in time, left to go on
	 * alone; -EINPROGRESS: such a flush still runs (none started).
	 */
	int (*flush)(void *ctx);
	/*
	 * optional: the status line of the raid45 target at start, read
	 * again (without flush) after a flush, before its rebuilt record
	 */
	int (*get_status)(void *ctx, uint64_t start, char *buf, size_t size);
};

enum r45mon_ack {
	R45MON_ACK_NONE,	/* failure not handled yet */
	R45MON_ACK_OK,		/* recorded: writes may go on */
	R45MON_ACK_REFUSED,	/* the hook failed: writes stay held */
	R45MON_ACK_HOLD,	/* policy hold: an operator decides */
};

/* The failure in the array's description (record_failed). */
enum r45mon_rec {
	R45MON_REC_NONE,	/* not recorded (yet): no allow_writes for it */
	R45MON_REC_DONE,	/* recorded in the description */
	R45MON_REC_NODESC,	/* the array has no description */
};

struct r45mon_member {
	bool failed;		/* failure seen (and logged) */
	enum r45mon_rec rec;
	enum r45mon_ack ack;
	bool ack_sent;		/* the kernel took an allow_writes naming it */
	bool no_spare_logged;
	bool wait_logged;	/* "replaced after the current rebuild" */
	/*
	 * put in place by someone else's reload (raid45ctl replace, an
	 * activation with <dev_to_init>) or alive again (readd): its
	 * rebuild may start, or have run whole, between two looks
	 */
	bool unseen_rebuild;
};

struct r45mon_target {
	bool used;
	uint64_t start, len;
	bool seen;		/* prev holds the last status */
	struct r45_status prev;
	unsigned int parity;	/* parity members (from the table), 0: unknown */
	char raid_type[R45_WORD_MAX];
	struct r45mon_member m[R45_MAX_MEMBERS];
	int rebuild;		/* member rebuilding ("i") at the last status */
	int replaced;		/* member this monitor just replaced, or -1 */
	int finalize;		/* member whose rebuild ended: reload with -1 */
	unsigned int decile;	/* progress reported, in tenths */
	bool dead_logged;
	bool parse_error_logged;
	bool message_error_logged;
	bool record_error_logged;
	bool unrecorded_logged;	/* no reload: a failure not recorded */
	/* a spare's record (record_replaced) not made yet: tried again */
	int rec_replaced;	/* its member, or -1 */
	char rec_path[R45MON_PATH_MAX];
	uint64_t rec_off;
	bool rec_rebuilt;	/* its rebuild's end to record after it */
	bool rec_replaced_logged;
	/* rebuilds' ends to record once the device is flushed */
	uint32_t rebuilt_pending;
	bool flush_error_logged;
	bool reread;		/* the status changed while acting: read it again */
	uint32_t bad_spares;	/* spares that failed to load (bit per spare) */
};

struct r45mon_dev {
	char name[R45MON_NAME_MAX];
	struct r45mon_conf conf;
	const struct r45mon_ops *ops;
	void *ctx;
	bool too_many_targets_logged;
	struct r45mon_target t[R45MON_MAX_TARGETS];
};

void r45mon_init(struct r45mon_dev *d, const char *name,
		 const struct r45mon_conf *conf, const struct r45mon_ops *ops,
		 void *ctx);
/* The device's name changed (dmsetup rename). */
void r45mon_set_name(struct r45mon_dev *d, const char *name);
/*
 * A status line of the raid45 target at start.  Logs what changed since
 * the last one and acts on it by the policy.  Returns true if it sent a
 * message or loaded a table: the caller should read the status again and
 * call this once more, so that the result is logged and acted on at once.
 */
bool r45mon_update(struct r45mon_dev *d, uint64_t start, uint64_t len,
		   const char *params);

__attribute__((format(printf, 3, 4)))
void r45mon_log(struct r45mon_dev *d, int prio, const char *fmt, ...);

#endif
