// SPDX-License-Identifier: GPL-2.0
/*
 * The monitor's decisions (see r45mon.h).  (~1,350 lines in one file:
 * every policy reads and sets the same per-member acknowledgement and
 * rebuild state, and its unit test drives them as one engine.)  Each
 * call to r45mon_update()
 * compares a target's status with the previous one, logs every change
 * once, then acts by the device's policy:
 *
 *   a member failed      record it in the array's description when it
 *                        has one (record_failed, whatever the policy:
 *                        until that succeeds, no allow_writes names it);
 *                        run the hook once ("MemberFailed"); a member
 *                        whose hook exited 0 (and whose failure the
 *                        description records) is acknowledged by name
 *                        (message "allow_writes <idx>..." naming the
 *                        failed members so recorded, never the bare form,
 *                        which would acknowledge failures that happened
 *                        after the status was read); the kernel lets
 *                        writes go once every failed member is
 *                        acknowledged (policy hold: never sent)
 *   policy spare         then, with no rebuild running, the first failed
 *                        and recorded member is replaced by the next
 *                        usable spare: table reloaded with the spare in
 *                        its place and <dev_to_init> set to it
 *   a rebuild finished   ("i" gone, every region in sync) the next
 *                        failed member is replaced, or else the table is
 *                        reloaded with <dev_to_init> -1 (docs/raid45.rst,
 *                        "after the rebuild")
 *
 * State is per target (a table may hold several raid45 targets), kept by
 * the caller per device; nothing here is global.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "r45mon.h"

#define TABLE_MAX 8192
/* a list of member indexes: up to R45_MAX_MEMBERS of "nn, " */
#define LIST_MAX (4 * R45_MAX_MEMBERS + 1)

/* ---- configuration ---- */

static const char *const policy_names[] = {
	[R45MON_WARN] = "warn",
	[R45MON_SPARE] = "spare",
	[R45MON_HOLD] = "hold",
};

const char *r45mon_policy_name(enum r45mon_policy p)
{
	if ((unsigned int)p >= ARRAY_SIZE(policy_names))
		return "unknown";
	return policy_names[p];
}

int r45mon_policy_parse(const char *s, enum r45mon_policy *p)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(policy_names); i++) {
		if (!strcmp(s, policy_names[i])) {
			*p = (enum r45mon_policy)i;
			return 0;
		}
	}
	return -EINVAL;
}

void r45mon_conf_default(struct r45mon_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->policy = R45MON_WARN;
	conf->hook_timeout = R45MON_DEFAULT_HOOK_TIMEOUT;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* An absolute path that fits. */
static int conf_path(const char *val, char *dst, char *err, size_t errsize,
		     unsigned int line, const char *key)
{
	if (val[0] != '/') {
		snprintf(err, errsize, "line %u: %s must be an absolute path", line, key);
		return -EINVAL;
	}
	if (strlen(val) >= R45MON_PATH_MAX) {
		snprintf(err, errsize, "line %u: %s is too long", line, key);
		return -EINVAL;
	}
	strcpy(dst, val);
	return 0;
}

int r45mon_conf_parse(const char *text, struct r45mon_conf *conf,
		      char *err, size_t errsize)
{
	char buf[R45MON_PATH_MAX + 64];
	unsigned int line = 0;
	const char *p = text;

	r45mon_conf_default(conf);
	if (errsize)
		err[0] = '\0';
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *key, *val, *eq;

		line++;
		if (len >= sizeof(buf)) {
			snprintf(err, errsize, "line %u is too long", line);
			return -EINVAL;
		}
		memcpy(buf, p, len);
		buf[len] = '\0';
		p += len + (nl ? 1 : 0);
		key = trim(buf);
		if (!*key || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			snprintf(err, errsize, "line %u: no '=' in \"%s\"", line, key);
			return -EINVAL;
		}
		*eq = '\0';
		key = trim(key);
		val = trim(eq + 1);
		if (!strcmp(key, "policy")) {
			if (r45mon_policy_parse(val, &conf->policy)) {
				snprintf(err, errsize,
					 "line %u: policy must be warn, spare or hold", line);
				return -EINVAL;
			}
		} else if (!strcmp(key, "hook")) {
			if (conf_path(val, conf->hook, err, errsize, line, key))
				return -EINVAL;
		} else if (!strcmp(key, "log")) {
			if (conf_path(val, conf->log, err, errsize, line, key))
				return -EINVAL;
		} else if (!strcmp(key, "spare")) {
			if (conf->nr_spares >= R45MON_MAX_SPARES) {
				snprintf(err, errsize, "line %u: more than %d spares",
					 line, R45MON_MAX_SPARES);
				return -EINVAL;
			}
			if (conf_path(val, conf->spares[conf->nr_spares], err,
				      errsize, line, key))
				return -EINVAL;
			conf->nr_spares++;
		} else if (!strcmp(key, "descriptions")) {
			if (conf_path(val, conf->descriptions, err, errsize, line, key))
				return -EINVAL;
		} else if (!strcmp(key, "hook_timeout") || !strcmp(key, "timeout")) {
			char *end;
			unsigned long v;

			errno = 0;
			v = strtoul(val, &end, 10);
			if (errno || end == val || *end || val[0] == '-' ||
			    v < 1 || v > 86400) {
				snprintf(err, errsize,
					 "line %u: %s must be 1..86400 seconds", line, key);
				return -EINVAL;
			}
			if (!strcmp(key, "timeout"))
				conf->timeout = (unsigned int)v;
			else
				conf->hook_timeout = (unsigned int)v;
		} else {
			snprintf(err, errsize, "line %u: unknown key \"%s\"", line, key);
			return -EINVAL;
		}
	}
	return 0;
}

int r45mon_conf_format(const struct r45mon_conf *conf, char *buf, size_t size)
{
	size_t o = 0;
	unsigned int i;
	int n;

#define PUT(...) do { \
	n = snprintf(buf + o, size - o, __VA_ARGS__); \
	if (n < 0 || (size_t)n >= size - o) \
		return -ENOSPC; \
	o += n; \
} while (0)
	if (!size)
		return -ENOSPC;
	PUT("# raid45 monitoring (raid45-monitor); read when dmeventd registers the device\n");
	PUT("policy=%s\n", r45mon_policy_name(conf->policy));
	if (conf->hook[0])
		PUT("hook=%s\n", conf->hook);
	for (i = 0; i < conf->nr_spares; i++)
		PUT("spare=%s\n", conf->spares[i]);
	if (conf->log[0])
		PUT("log=%s\n", conf->log);
	PUT("hook_timeout=%u\n", conf->hook_timeout);
	if (conf->timeout)
		PUT("timeout=%u\n", conf->timeout);
	if (conf->descriptions[0])
		PUT("descriptions=%s\n", conf->descriptions);
#undef PUT
	return 0;
}

const char *r45mon_conf_descriptions(const struct r45mon_conf *conf)
{
	return conf->descriptions[0] ? conf->descriptions : R45MON_DESC_DIR_DEFAULT;
}

int r45mon_no_description(const char *uuid, const char *dir, const char *monitor,
			  char *err, size_t errsize)
{
	const char *pre = R45MON_RAID45CTL_UUID_PREFIX;

	if (!uuid || strncmp(uuid, pre, strlen(pre)))
		return -ENOENT;
	snprintf(err, errsize, "no description of this array (uuid %s, made by raid45ctl create) in %s: not taken for an array without one, its failures are not acknowledged unrecorded; if its descriptions are in another directory, register it again from a shell where RAID45_CONF_DIR names that directory (raid45-monitor register records it in %s), or put its description back in %s",
		 uuid, dir, monitor && monitor[0] ? monitor : "its monitor configuration", dir);
	return -ENOKEY;
}

/* ---- logging ---- */

void r45mon_log(struct r45mon_dev *d, int prio, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "%s: ", d->name);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	d->ops->log(d->ctx, prio, line);
}

/* A target's lines name it when the device has several raid45 targets. */
static const char *where(struct r45mon_dev *d, struct r45mon_target *t,
			 char *buf, size_t size)
{
	unsigned int i, n = 0;

	for (i = 0; i < R45MON_MAX_TARGETS; i++)
		n += d->t[i].used;
	if (n <= 1) {
		buf[0] = '\0';
		return buf;
	}
	snprintf(buf, size, "(target at sector %llu) ", (unsigned long long)t->start);
	return buf;
}

#define TLOG(prio, fmt, ...) do { \
	char w_[64]; \
	r45mon_log(d, prio, "%s" fmt, where(d, t, w_, sizeof(w_)), ##__VA_ARGS__); \
} while (0)

/* ---- state ---- */

void r45mon_init(struct r45mon_dev *d, const char *name,
		 const struct r45mon_conf *conf, const struct r45mon_ops *ops,
		 void *ctx)
{
	memset(d, 0, sizeof(*d));
	r45mon_set_name(d, name);
	d->conf = *conf;
	d->ops = ops;
	d->ctx = ctx;
}

void r45mon_set_name(struct r45mon_dev *d, const char *name)
{
	snprintf(d->name, sizeof(d->name), "%s", name ? name : "?");
}

static void target_reset(struct r45mon_target *t, uint64_t start, uint64_t len)
{
	memset(t, 0, sizeof(*t));
	t->used = true;
	t->start = start;
	t->len = len;
	t->rebuild = -1;
	t->replaced = -1;
	t->finalize = -1;
	t->rec_replaced = -1;
}

static struct r45mon_target *target_for(struct r45mon_dev *d, uint64_t start,
					uint64_t len)
{
	unsigned int i;

	for (i = 0; i < R45MON_MAX_TARGETS; i++)
		if (d->t[i].used && d->t[i].start == start) {
			if (d->t[i].len != len)
				target_reset(&d->t[i], start, len);
			return &d->t[i];
		}
	for (i = 0; i < R45MON_MAX_TARGETS; i++)
		if (!d->t[i].used) {
			target_reset(&d->t[i], start, len);
			return &d->t[i];
		}
	return NULL;
}

static void devno_str(const struct r45_member *m, char *buf, size_t size)
{
	if (m->missing)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%u:%u", m->major, m->minor);
}

static unsigned int percent(uint64_t part, uint64_t whole)
{
	return whole ? (unsigned int)(part * 100 / whole) : 100;
}

static unsigned int decile(const struct r45_status *st)
{
	return st->regions ? (unsigned int)(st->in_sync * 10 / st->regions) : 10;
}

static uint32_t dead_mask(const struct r45_status *st)
{
	uint32_t mask = 0;
	unsigned int i;

	for (i = 0; i < st->nr_members; i++)
		if (st->members[i].dead)
			mask |= 1u << i;
	return mask;
}

/* The indexes of the members in mask, separated by sep ("1 3", "1, 3"). */
static const char *member_list(uint32_t mask, const char *sep, char *buf, size_t size)
{
	size_t o = 0;
	unsigned int i;
	int n;

	buf[0] = '\0';
	for (i = 0; i < R45_MAX_MEMBERS; i++) {
		if (!(mask & (1u << i)))
			continue;
		n = snprintf(buf + o, size - o, "%s%u", o ? sep : "", i);
		if (n < 0 || (size_t)n >= size - o)
			break;
		o += (size_t)n;
	}
	return buf;
}

/* "s" for more than one member */
static const char *plural(uint32_t mask)
{
	return mask & (mask - 1) ? "s" : "";
}

static bool array_dead(const struct r45mon_target *t, const struct r45_status *st)
{
	return t->parity && r45_status_nr_dead(st) > t->parity;
}

/* Run the hook, if any: its exit status, -errno, or 0 without a hook. */
static int hook(struct r45mon_dev *d, struct r45mon_target *t, const char *event,
		const struct r45_status *st, int member)
{
	char idx[16], devno[32] = "-";
	const char *argv[6];
	int rc;

	if (!d->conf.hook[0])
		return 0;
	snprintf(idx, sizeof(idx), "%d", member);
	if (member >= 0)
		devno_str(&st->members[member], devno, sizeof(devno));
	argv[0] = d->conf.hook;
	argv[1] = event;
	argv[2] = d->name;
	argv[3] = idx;
	argv[4] = devno;
	argv[5] = NULL;
	rc = d->ops->run_hook(d->ctx, argv);
	if (rc == -ETIMEDOUT)
		TLOG(LOG_ERR, "hook %s %s %d %s: killed after %u s",
		     d->conf.hook, event, member, devno, d->conf.hook_timeout);
	else if (rc < 0)
		TLOG(LOG_ERR, "hook %s %s %d %s could not be run: %s",
		     d->conf.hook, event, member, devno, strerror(-rc));
	else if (rc > 128)
		TLOG(LOG_ERR, "hook %s %s %d %s: killed by signal %d",
		     d->conf.hook, event, member, devno, rc - 128);
	else if (rc > 0)
		TLOG(LOG_ERR, "hook %s %s %d %s: exit status %d",
		     d->conf.hook, event, member, devno, rc);
	else
		TLOG(LOG_INFO, "hook %s %s %d %s: exit status 0",
		     d->conf.hook, event, member, devno);
	return rc;
}

/* The table of target t, parsed: 0 or -errno (logged). */
static int read_table(struct r45mon_dev *d, struct r45mon_target *t,
		      struct r45_table *tab)
{
	char *buf = malloc(TABLE_MAX);
	int r;

	if (!buf) {
		TLOG(LOG_ERR, "cannot read the table: out of memory");
		return -ENOMEM;
	}
	r = d->ops->get_table(d->ctx, t->start, buf, TABLE_MAX);
	if (r) {
		TLOG(LOG_ERR, "cannot read the table: %s", strerror(-r));
	} else if (r45_table_parse(buf, tab)) {
		TLOG(LOG_ERR, "cannot parse the table \"%.200s\"", buf);
		r = -EINVAL;
	}
	free(buf);
	return r;
}

/* Format tab and reload it into the device: 0 or -errno (logged). */
static int load_table(struct r45mon_dev *d, struct r45mon_target *t,
		      const struct r45_table *tab, const char *why)
{
	char *buf = malloc(TABLE_MAX);
	char err[256] = "";
	int r;

	if (!buf) {
		TLOG(LOG_ERR, "%s: out of memory", why);
		return -ENOMEM;
	}
	r = r45_table_format(tab, buf, TABLE_MAX);
	if (r)
		TLOG(LOG_ERR, "%s: table too long", why);
	else
		r = d->ops->reload(d->ctx, t->start, buf, err, sizeof(err));
	if (r == -EAGAIN)
		TLOG(LOG_WARNING, "%s: not now: %s (tried again at the next event or timeout)",
		     why, err[0] ? err : strerror(-r));
	else if (r && err[0])
		TLOG(LOG_ERR, "%s failed: %s", why, err);
	else if (r)
		TLOG(LOG_ERR, "%s failed: %s", why, strerror(-r));
	else
		TLOG(LOG_INFO, "table loaded: %s", buf);
	free(buf);
	return r;
}

/* ---- what changed ---- */

static void unseen_rebuilds(struct r45mon_dev *d, struct r45mon_target *t,
			    const struct r45_status *st, int r);

static void first_sight(struct r45mon_dev *d, struct r45mon_target *t,
			const struct r45_status *st)
{
	struct r45_table tab;
	char health[3 * R45_MAX_MEMBERS + 1], devno[32];
	unsigned int i;
	int r, dti = -1;

	if (!read_table(d, t, &tab)) {
		dti = tab.dev_to_init;
		t->parity = r45_table_parity_members(&tab);
		snprintf(t->raid_type, sizeof(t->raid_type), "%s", tab.raid_type);
	} else {
		snprintf(t->raid_type, sizeof(t->raid_type), "raid45");
	}
	r45_status_health(st, health, sizeof(health));
	TLOG(LOG_INFO, "monitoring %s with %u members: health %s, %llu/%llu regions in sync, %s, %s; policy %s%s%s, %u spare%s",
	     t->raid_type, st->nr_members, health,
	     (unsigned long long)st->in_sync, (unsigned long long)st->regions,
	     r45_action_name(st->action), st->held ? "writes held" : "writable",
	     r45mon_policy_name(d->conf.policy),
	     d->conf.hook[0] ? ", hook " : "", d->conf.hook,
	     d->conf.nr_spares, d->conf.nr_spares == 1 ? "" : "s");
	for (i = 0; i < st->nr_members; i++) {
		if (!st->members[i].dead)
			continue;
		devno_str(&st->members[i], devno, sizeof(devno));
		t->m[i].failed = true;
		/*
		 * Writes not held: someone recorded this failure (sent
		 * allow_writes) before monitoring started.
		 */
		t->m[i].ack = st->held ? R45MON_ACK_NONE : R45MON_ACK_OK;
		t->m[i].ack_sent = !st->held;
		TLOG(LOG_ERR, "member %u (%s) is failed%s", i, devno,
		     st->held ? ", not yet recorded" : " (recorded before monitoring started)");
	}
	if (array_dead(t, st)) {
		TLOG(LOG_CRIT, "array failed: %u of %u members dead, more than its %u parity member%s can replace: I/O fails",
		     r45_status_nr_dead(st), st->nr_members, t->parity,
		     t->parity == 1 ? "" : "s");
		t->dead_logged = true;
	}
	if (st->held)
		TLOG(LOG_WARNING, "writes are held until the failure is recorded");
	r = r45_status_rebuilding(st);
	t->rebuild = r;
	/* a table with <dev_to_init> whose rebuild finished before we looked */
	if (dti >= 0 && dti < (int)st->nr_members && r != dti) {
		t->m[dti].unseen_rebuild = true;
		unseen_rebuilds(d, t, st, r);
	}
	t->decile = decile(st);
	if (st->action == R45_ACTION_RECOVER && r >= 0)
		TLOG(LOG_NOTICE, "rebuild of member %d in progress: %u%% (%llu/%llu regions)",
		     r, percent(st->in_sync, st->regions),
		     (unsigned long long)st->in_sync, (unsigned long long)st->regions);
	else if (st->action == R45_ACTION_RESYNC)
		TLOG(LOG_NOTICE, "resync in progress: %u%% (%llu/%llu regions)",
		     percent(st->in_sync, st->regions),
		     (unsigned long long)st->in_sync, (unsigned long long)st->regions);
	else if (st->action != R45_ACTION_IDLE)
		TLOG(LOG_NOTICE, "%s in progress", r45_action_name(st->action));
	if (st->mismatches)
		TLOG(LOG_WARNING, "the last check or repair found %llu mismatched stripes",
		     (unsigned long long)st->mismatches);
	if (st->unprotected_regions)
		TLOG(LOG_ERR, "%llu regions unprotected (out of sync with a member failed): replace the member to rebuild them",
		     (unsigned long long)st->unprotected_regions);
	if (st->log_has_dev && st->log_state != 'A')
		TLOG(LOG_ERR, "log device %u:%u has failed (%c)", st->log_major,
		     st->log_minor, st->log_state);
}

static const char *log_state_text(char c)
{
	switch (c) {
	case 'A':
		return "alive";
	case 'D':
		return "failed an I/O";
	case 'F':
		return "failed a flush";
	default:
		return "in an unknown state";
	}
}

static void action_ended(struct r45mon_dev *d, struct r45mon_target *t,
			 const struct r45_status *prev, const struct r45_status *st)
{
	switch (prev->action) {
	case R45_ACTION_RESYNC:
		if (st->in_sync == st->regions)
			TLOG(LOG_NOTICE, "resync finished: %llu/%llu regions in sync",
			     (unsigned long long)st->in_sync,
			     (unsigned long long)st->regions);
		else if (st->action != R45_ACTION_FROZEN)
			TLOG(LOG_WARNING, "resync stopped: %llu/%llu regions in sync",
			     (unsigned long long)st->in_sync,
			     (unsigned long long)st->regions);
		break;
	case R45_ACTION_CHECK:
	case R45_ACTION_REPAIR:
		if (st->action == R45_ACTION_FROZEN)
			break;
		if (st->mismatches)
			TLOG(LOG_WARNING, "%s finished: %llu mismatched stripes%s",
			     r45_action_name(prev->action),
			     (unsigned long long)st->mismatches,
			     prev->action == R45_ACTION_CHECK ?
			     " (message \"repair\" rewrites their parity)" : " rewritten");
		else
			TLOG(LOG_NOTICE, "%s finished: no mismatches",
			     r45_action_name(prev->action));
		break;
	case R45_ACTION_RECOVER:
		/* a rebuild that ended is logged with the "i" (changes()) */
		if (st->action != R45_ACTION_FROZEN && r45_status_rebuilding(st) >= 0)
			TLOG(LOG_WARNING, "rebuild of member %d stopped: %llu/%llu regions in sync",
			     r45_status_rebuilding(st), (unsigned long long)st->in_sync,
			     (unsigned long long)st->regions);
		break;
	default:
		/* idle, frozen: nothing ended */
		break;
	}
}

static void action_started(struct r45mon_dev *d, struct r45mon_target *t,
			   const struct r45_status *prev, const struct r45_status *st)
{
	const char *verb = prev->action == R45_ACTION_FROZEN ? "resumed" : "started";
	int r = r45_status_rebuilding(st);
	char devno[32] = "?";

	t->decile = decile(st);
	switch (st->action) {
	case R45_ACTION_RESYNC:
		TLOG(LOG_NOTICE, "resync %s: %llu/%llu regions in sync (%u%%)", verb,
		     (unsigned long long)st->in_sync, (unsigned long long)st->regions,
		     percent(st->in_sync, st->regions));
		break;
	case R45_ACTION_RECOVER:
		if (r >= 0)
			devno_str(&st->members[r], devno, sizeof(devno));
		TLOG(LOG_NOTICE, "rebuild of member %d (%s) %s: %llu/%llu regions in sync (%u%%)",
		     r, devno, verb, (unsigned long long)st->in_sync,
		     (unsigned long long)st->regions, percent(st->in_sync, st->regions));
		break;
	case R45_ACTION_CHECK:
	case R45_ACTION_REPAIR:
		TLOG(LOG_NOTICE, "%s %s", r45_action_name(st->action), verb);
		break;
	case R45_ACTION_FROZEN:
		TLOG(LOG_NOTICE, "sync frozen at %llu/%llu regions in sync (%s was %s)",
		     (unsigned long long)st->in_sync, (unsigned long long)st->regions,
		     "action", r45_action_name(prev->action));
		break;
	case R45_ACTION_IDLE:
		break;
	}
}

/*
 * After the flush, before member k is recorded current: the status read
 * again.  A member that failed meanwhile (writes held: the flush may have
 * ended only by an error) or another device in k's place: not recorded
 * now (act() drops a dead member's record, changes() another device's).
 * 0: record it; 1: changed (read the status again); -1: not read.
 */
static int still_rebuilt(struct r45mon_dev *d, struct r45mon_target *t,
			  const struct r45_status *st, unsigned int k)
{
	const struct r45_member *o = &st->members[k], *m;
	struct r45_status now;
	char *buf;
	int r;

	if (!d->ops->get_status)
		return 0;
	buf = malloc(TABLE_MAX);
	if (!buf)
		return -1;
	r = d->ops->get_status(d->ctx, t->start, buf, TABLE_MAX);
	if (!r && r45_status_parse(buf, &now))
		r = -EINVAL;
	free(buf);
	if (r) {
		TLOG(LOG_WARNING, "cannot read the status again after the flush: %s: the end of the rebuild of member %u is recorded later",
		     strerror(-r), k);
		return -1;
	}
	m = &now.members[k];
	if (now.nr_members != st->nr_members || m->dead || m->missing || now.held ||
	    m->major != o->major || m->minor != o->minor) {
		TLOG(LOG_NOTICE, "the array changed during the flush (%s): the end of the rebuild of member %u is recorded later",
		     now.held ? "writes held" : "member changed", k);
		return 1;
	}
	return 0;
}

/* A finished rebuild in the array's description, if it has one. */
static void retry_replaced(struct r45mon_dev *d, struct r45mon_target *t,
			   const struct r45_status *st, bool fresh);

static void record_rebuilt(struct r45mon_dev *d, struct r45mon_target *t,
			   const struct r45_status *st, unsigned int k)
{
	char err[512] = "";
	int r;

	if (!d->ops->record_rebuilt)
		return;
	/* the spare not in the description yet: after it */
	if (t->rec_replaced == (int)k) {
		t->rec_rebuilt = true;
		retry_replaced(d, t, st, false);
		return;
	}
	/*
	 * The rebuilt data durable first (a core log keeps nothing across a
	 * crash: the description is all that says the member is current).
	 * Not while writes are held: then at the first update without.
	 */
	if (d->ops->flush) {
		t->rebuilt_pending |= 1u << k;
		if (st->held)
			return;
		r = d->ops->flush(d->ctx);
		if (r == -ETIMEDOUT) {
			/*
			 * A member may have failed during the flush: the
			 * kernel holds its completion until allow_writes,
			 * which only this thread sends.  Left to end alone;
			 * the status is read again at once.
			 */
			TLOG(LOG_WARNING, "the flush before recording the end of the rebuild of member %u has not ended in time (writes held for a new failure?): the record waits, the status is read again",
			     k);
			t->reread = true;
			return;
		}
		if (r) {
			if (!t->flush_error_logged)
				TLOG(LOG_ERR, "cannot flush the device before recording the end of the rebuild of member %u: %s (tried again at the next event or timeout)",
				     k, r == -EINPROGRESS ? "an earlier flush has not ended" : strerror(-r));
			t->flush_error_logged = true;
			return;
		}
		t->flush_error_logged = false;
		r = still_rebuilt(d, t, st, k);
		if (r) {
			t->reread |= r > 0;
			return;
		}
		t->rebuilt_pending &= ~(1u << k);
	}
	r = d->ops->record_rebuilt(d->ctx, t->start, k, st->nr_members, st->members[k].major,
				   st->members[k].minor, err, sizeof(err));
	if (!r)
		TLOG(LOG_NOTICE, "member %u is current again in the array's description", k);
	else if (r != -ENOENT)
		TLOG(LOG_ERR, "cannot record the end of the rebuild of member %u in the array's description: %s: the next activation from it rebuilds the member again",
		     k, err[0] ? err : strerror(-r));
}

/*
 * A member someone else put in place (a reload naming it <dev_to_init>,
 * a readd) whose rebuild was never seen running ("i"): a small rebuild
 * runs whole between two looks.  Once it is alive, no rebuild runs and
 * every region is in sync, its rebuild has finished: recorded as the
 * rebuilds seen running are (the description calls it current again).
 * r: the member rebuilding now, or -1.
 */
static void unseen_rebuilds(struct r45mon_dev *d, struct r45mon_target *t,
			    const struct r45_status *st, int r)
{
	char devno[32];
	unsigned int i;

	for (i = 0; i < st->nr_members; i++) {
		const struct r45_member *m = &st->members[i];

		if (!t->m[i].unseen_rebuild)
			continue;
		if (m->dead || m->missing || r == (int)i || t->rebuild == (int)i) {
			/* failed, or its rebuild seen running: followed as such */
			t->m[i].unseen_rebuild = false;
			continue;
		}
		if (r >= 0 || st->in_sync != st->regions ||
		    (st->action != R45_ACTION_IDLE && st->action != R45_ACTION_FROZEN))
			continue;	/* not yet */
		t->m[i].unseen_rebuild = false;
		devno_str(m, devno, sizeof(devno));
		TLOG(LOG_NOTICE, "rebuild of member %u (%s) finished between two looks: %llu/%llu regions in sync",
		     i, devno, (unsigned long long)st->in_sync, (unsigned long long)st->regions);
		t->finalize = (int)i;
		record_rebuilt(d, t, st, i);
		hook(d, t, "RebuildFinished", st, (int)i);
	}
}

/* Compare st with the previous status of t and log what changed. */
static void changes(struct r45mon_dev *d, struct r45mon_target *t,
		    const struct r45_status *st)
{
	const struct r45_status *prev = &t->prev;
	char devno[32], odev[32];
	unsigned int i;
	int r;

	for (i = 0; i < st->nr_members; i++) {
		const struct r45_member *o = &prev->members[i], *m = &st->members[i];
		bool same = o->major == m->major && o->minor == m->minor;

		devno_str(m, devno, sizeof(devno));
		devno_str(o, odev, sizeof(odev));
		if (!same) {
			/*
			 * a table reload put another device here: a rebuilt
			 * record still waiting was for the one gone
			 */
			memset(&t->m[i], 0, sizeof(t->m[i]));
			t->rebuilt_pending &= ~(1u << i);
			if (t->replaced != (int)i) {
				TLOG(LOG_NOTICE, "member %u is now %s (was %s)", i, devno, odev);
				t->m[i].unseen_rebuild = true;
			}
		}
		if (m->dead && !t->m[i].failed) {
			t->m[i].failed = true;
			t->m[i].rec = R45MON_REC_NONE;
			t->m[i].ack = R45MON_ACK_NONE;
			t->m[i].ack_sent = false;
			TLOG(LOG_ERR, "member %u (%s) failed", i, devno);
			if (t->rebuild == (int)i)
				TLOG(LOG_ERR, "rebuild of member %u failed: the new member failed", i);
		} else if (!m->dead && t->m[i].failed) {
			memset(&t->m[i], 0, sizeof(t->m[i]));
			t->m[i].unseen_rebuild = true;
			TLOG(LOG_NOTICE, "member %u (%s) is alive again", i, devno);
		}
	}
	t->replaced = -1;

	if (array_dead(t, st) && !t->dead_logged) {
		TLOG(LOG_CRIT, "array failed: %u of %u members dead, more than its %u parity member%s can replace: I/O fails",
		     r45_status_nr_dead(st), st->nr_members, t->parity,
		     t->parity == 1 ? "" : "s");
		t->dead_logged = true;
		for (i = st->nr_members; i-- > 0;)
			if (st->members[i].dead)
				break;
		hook(d, t, "ArrayFailed", st, (int)i);
	} else if (!array_dead(t, st)) {
		t->dead_logged = false;
	}

	if (!prev->held && st->held) {
		uint32_t dead = dead_mask(st);
		char list[LIST_MAX], idx[LIST_MAX];

		if (dead)
			TLOG(LOG_WARNING, "writes held until the failure of member%s %s is recorded (dmsetup message %s 0 allow_writes %s releases them)",
			     plural(dead), member_list(dead, ", ", list, sizeof(list)),
			     d->name, member_list(dead, " ", idx, sizeof(idx)));
		else
			TLOG(LOG_WARNING, "writes held");
	} else if (prev->held && !st->held)
		TLOG(LOG_NOTICE, "writes allowed");

	if (st->log_has_dev && prev->log_state != st->log_state)
		TLOG(st->log_state == 'A' ? LOG_NOTICE : LOG_ERR, "log device %u:%u %s",
		     st->log_major, st->log_minor, log_state_text(st->log_state));

	if (prev->action != st->action) {
		action_ended(d, t, prev, st);
		action_started(d, t, prev, st);
	} else if (st->mismatches != prev->mismatches && st->mismatches &&
		   (st->action == R45_ACTION_IDLE || st->action == R45_ACTION_FROZEN)) {
		/* a whole check ran between two looks */
		TLOG(LOG_WARNING, "check or repair finished: %llu mismatched stripes",
		     (unsigned long long)st->mismatches);
	}

	/* progress every 10 % of the regions */
	if ((st->action == R45_ACTION_RESYNC || st->action == R45_ACTION_RECOVER) &&
	    decile(st) > t->decile) {
		t->decile = decile(st);
		if (t->decile < 10) {
			r = r45_status_rebuilding(st);
			if (st->action == R45_ACTION_RECOVER)
				TLOG(LOG_INFO, "rebuild of member %d: %u%% (%llu/%llu regions)",
				     r, percent(st->in_sync, st->regions),
				     (unsigned long long)st->in_sync,
				     (unsigned long long)st->regions);
			else
				TLOG(LOG_INFO, "resync: %u%% (%llu/%llu regions)",
				     percent(st->in_sync, st->regions),
				     (unsigned long long)st->in_sync,
				     (unsigned long long)st->regions);
		}
	}

	if (st->unsafe_reads > prev->unsafe_reads)
		TLOG(LOG_ERR, "%llu reads refused: their blocks would be computed from parity a crash may have left inconsistent (%llu in all)",
		     (unsigned long long)(st->unsafe_reads - prev->unsafe_reads),
		     (unsigned long long)st->unsafe_reads);

	if (st->read_errors_repaired > prev->read_errors_repaired)
		TLOG(LOG_WARNING, "%llu read errors repaired from parity (%llu in all)",
		     (unsigned long long)(st->read_errors_repaired - prev->read_errors_repaired),
		     (unsigned long long)st->read_errors_repaired);

	if (st->unprotected_regions != prev->unprotected_regions) {
		if (st->unprotected_regions)
			TLOG(LOG_ERR, "%llu regions unprotected (out of sync with a member failed): replace the member to rebuild them",
			     (unsigned long long)st->unprotected_regions);
		else
			TLOG(LOG_NOTICE, "no regions unprotected any more");
	}

	/* the rebuild ("i") */
	r = r45_status_rebuilding(st);
	if (t->rebuild >= 0 && r != t->rebuild && t->rebuild < (int)st->nr_members) {
		const struct r45_member *m = &st->members[t->rebuild];

		devno_str(m, devno, sizeof(devno));
		if (!m->dead && st->in_sync == st->regions) {
			TLOG(LOG_NOTICE, "rebuild of member %d (%s) finished: %llu/%llu regions in sync",
			     t->rebuild, devno, (unsigned long long)st->in_sync,
			     (unsigned long long)st->regions);
			t->finalize = t->rebuild;
			record_rebuilt(d, t, st, (unsigned int)t->rebuild);
			hook(d, t, "RebuildFinished", st, t->rebuild);
		} else if (!m->dead) {
			TLOG(LOG_WARNING, "rebuild of member %d (%s) ended with %llu/%llu regions in sync",
			     t->rebuild, devno, (unsigned long long)st->in_sync,
			     (unsigned long long)st->regions);
		}
	}
	unseen_rebuilds(d, t, st, r);
	t->rebuild = r;
}

/* ---- acting ---- */

/*
 * Acknowledge the failures of the members in mask, by name: true if the
 * kernel took it.  The kernel refuses the whole message (-EINVAL) if one
 * of them is not failed any more (re-added meanwhile): then nothing is
 * acknowledged, and the next event reads the status again and names the
 * members failed then.
 */
static bool allow_writes(struct r45mon_dev *d, struct r45mon_target *t, uint32_t mask)
{
	char msg[LIST_MAX + 16], list[LIST_MAX], idx[LIST_MAX];
	unsigned int i;
	int r;

	member_list(mask, " ", idx, sizeof(idx));
	snprintf(msg, sizeof(msg), "allow_writes %s", idx);
	r = d->ops->message(d->ctx, t->start, msg);
	if (r) {
		if (!t->message_error_logged && r == -EINVAL)
			TLOG(LOG_ERR, "message %s refused: %s (a member it names is not failed any more, or the raid45 module takes no member list): the status is read again at the next event or timeout",
			     msg, strerror(-r));
		else if (!t->message_error_logged)
			TLOG(LOG_ERR, "message %s failed: %s (tried again at the next event or timeout)",
			     msg, strerror(-r));
		t->message_error_logged = true;
		return false;
	}
	t->message_error_logged = false;
	for (i = 0; i < R45_MAX_MEMBERS; i++)
		if (mask & (1u << i))
			t->m[i].ack_sent = true;
	TLOG(LOG_NOTICE, "sent allow_writes: the failure of member%s %s is recorded (message %s)",
	     plural(mask), member_list(mask, ", ", list, sizeof(list)), msg);
	return true;
}

static bool spare_in_table(const struct r45_table *tab, const char *devno)
{
	unsigned int i;

	for (i = 0; i < tab->nr_devs; i++)
		if (!strcmp(tab->devs[i], devno))
			return true;
	return false;
}

/*
 * The spare put in a member's place (t->rec_replaced), in the array's
 * description; tried again at every update until it is recorded (the
 * description meanwhile calls the member failed: the next activation
 * starts without it), then the end of its rebuild if that came first.
 */
static void retry_replaced(struct r45mon_dev *d, struct r45mon_target *t,
			   const struct r45_status *st, bool fresh)
{
	unsigned int k = (unsigned int)t->rec_replaced;
	char err[512] = "";
	int r;

	if (t->rec_replaced < 0)
		return;
	/* (fresh: st is the status from before the spare went in) */
	if (!fresh && k < st->nr_members && st->members[k].dead) {
		/* the spare failed too: the description calls the member failed, rightly */
		TLOG(LOG_WARNING, "spare %s (member %u) failed before it was recorded: the description keeps member %u failed",
		     t->rec_path, k, k);
		t->rec_replaced = -1;
		t->rec_rebuilt = false;
		return;
	}
	r = d->ops->record_replaced(d->ctx, t->start, k, st->nr_members, t->rec_path,
				    t->rec_off, err, sizeof(err));
	if (r && r != -ENOENT) {
		if (!t->rec_replaced_logged)
			TLOG(LOG_ERR, "cannot record spare %s as member %u in the array's description: %s: the next activation from it starts without member %u (tried again at the next event or timeout)",
			     t->rec_path, k, err[0] ? err : strerror(-r), k);
		t->rec_replaced_logged = true;
		return;
	}
	if (!r)
		TLOG(LOG_NOTICE, "member %u is %s, rebuilding, in the array's description", k,
		     t->rec_path);
	t->rec_replaced = -1;
	t->rec_replaced_logged = false;
	if (t->rec_rebuilt) {
		t->rec_rebuilt = false;
		record_rebuilt(d, t, st, k);
	}
}

static void record_replaced(struct r45mon_dev *d, struct r45mon_target *t,
			    const struct r45_status *st, unsigned int k, const char *path,
			    uint64_t off)
{
	if (!d->ops->record_replaced)
		return;
	t->rec_replaced = (int)k;
	snprintf(t->rec_path, sizeof(t->rec_path), "%s", path);
	t->rec_off = off;
	t->rec_rebuilt = false;
	t->rec_replaced_logged = false;
	retry_replaced(d, t, st, true);
}

/* Replace failed member k by the next usable spare: true if done. */
static bool replace_member(struct r45mon_dev *d, struct r45mon_target *t,
			   const struct r45_status *st, unsigned int k)
{
	struct r45mon_member *mem = &t->m[k];
	bool quiet = mem->no_spare_logged;
	struct r45_table tab, nt;
	char old[32], devno[32], why[R45MON_PATH_MAX + 128];
	uint64_t need, sectors, off;
	unsigned int s, data, major, minor;
	int r;

	if (read_table(d, t, &tab))
		return false;
	devno_str(&st->members[k], old, sizeof(old));
	if (tab.nr_devs != st->nr_members || strcmp(tab.devs[k], old)) {
		TLOG(LOG_ERR, "the table does not match the status (member %u: %s, status says %s): not replacing it",
		     k, k < tab.nr_devs ? tab.devs[k] : "none", old);
		return false;
	}
	/* a missing member's place takes the others' offset */
	off = tab.offsets[k];
	if (tab.missing[k])
		for (s = 0; s < tab.nr_devs; s++)
			if (!tab.missing[s]) {
				off = tab.offsets[s];
				break;
			}
	data = tab.nr_devs - r45_table_parity_members(&tab);
	need = data ? off + t->len / data : 0;

	for (s = 0; s < d->conf.nr_spares; s++) {
		const char *path = d->conf.spares[s];

		if (t->bad_spares & (1u << s))
			continue;
		major = minor = UINT_MAX;
		r = d->ops->spare_info(d->ctx, path, &major, &minor, &sectors);
		if (major != UINT_MAX) {
			snprintf(devno, sizeof(devno), "%u:%u", major, minor);
			if (spare_in_table(&tab, devno))
				continue;	/* a member already, used before */
		}
		if (r) {
			if (!quiet)
				TLOG(LOG_WARNING, "spare %s not usable: %s", path,
				     r == -EBUSY ? "in use" : strerror(-r));
			continue;
		}
		if (sectors < need) {
			TLOG(LOG_WARNING, "spare %s (%s) too small: %llu sectors, member %u needs %llu",
			     path, devno, (unsigned long long)sectors, k,
			     (unsigned long long)need);
			t->bad_spares |= 1u << s;
			continue;
		}
		nt = tab;
		snprintf(nt.devs[k], sizeof(nt.devs[k]), "%s", devno);
		nt.dev_to_init = (int)k;
		nt.missing[k] = false;
		nt.offsets[k] = off;
		snprintf(why, sizeof(why), "replacing member %u (%s) by spare %s (%s)",
			 k, old, path, devno);
		r = load_table(d, t, &nt, why);
		if (r == -EAGAIN)
			return false;	/* someone else reloads: this spare later */
		if (r) {
			t->bad_spares |= 1u << s;
			continue;
		}
		TLOG(LOG_NOTICE, "member %u (%s) replaced by spare %s (%s): rebuild started",
		     k, old, path, devno);
		if (d->ops->replaced)
			d->ops->replaced(d->ctx, k, old, path, devno);
		record_replaced(d, t, st, k, path, off);
		memset(mem, 0, sizeof(*mem));
		t->replaced = (int)k;
		t->rebuild = (int)k;
		t->finalize = -1;
		t->decile = 0;
		/* the new member's number in the status we have, for the hook */
		{
			struct r45_status ns = *st;

			ns.members[k].major = major;
			ns.members[k].minor = minor;
			ns.members[k].dead = false;
			hook(d, t, "RebuildStarted", &ns, (int)k);
		}
		return true;
	}
	if (!mem->no_spare_logged)
		TLOG(LOG_WARNING, "no usable spare for member %u (%s): the array stays degraded",
		     k, old);
	mem->no_spare_logged = true;
	return false;
}

/*
 * The rebuild of member k is over: reload with <dev_to_init> -1 (again
 * at the next update if another program reloads the device now).
 */
static bool finalize(struct r45mon_dev *d, struct r45mon_target *t, unsigned int k)
{
	struct r45_table tab;
	char why[96];
	int r;

	if (read_table(d, t, &tab))
		return false;
	if (tab.dev_to_init != (int)k)
		return false;	/* the table changed meanwhile */
	tab.dev_to_init = -1;
	r45_table_core_nosync(&tab);
	snprintf(why, sizeof(why), "reloading with <dev_to_init> -1 after the rebuild of member %u", k);
	r = load_table(d, t, &tab, why);
	if (r == -EAGAIN)
		t->finalize = (int)k;
	return !r;
}

static bool spare_policy(struct r45mon_dev *d, struct r45mon_target *t,
			 const struct r45_status *st)
{
	int r = r45_status_rebuilding(st);
	char list[LIST_MAX];
	uint32_t unrec = 0;
	unsigned int i;
	int k = -1;

	for (i = 0; i < st->nr_members; i++) {
		/* a reload acknowledges: only a failure recorded everywhere */
		if (st->members[i].dead && t->m[i].ack == R45MON_ACK_OK &&
		    t->m[i].rec != R45MON_REC_NONE) {
			k = (int)i;
			break;
		}
	}
	/*
	 * One rebuild at a time.  A rebuild whose new member failed keeps
	 * its "i" but cannot go on: that member is replaced like any other.
	 */
	if ((r >= 0 && !st->members[r].dead) || st->action == R45_ACTION_RECOVER) {
		if (k >= 0 && !t->m[k].wait_logged) {
			TLOG(LOG_NOTICE, "member %d will be replaced when the rebuild of member %d has finished",
			     k, r);
			t->m[k].wait_logged = true;
		}
		return false;
	}
	/*
	 * No reload while a dead member's failure is not in the description:
	 * the suspend would hand back the writes held for it (a flushing
	 * one submits them), and the description would still call it
	 * current.  Tried again once it is recorded.
	 */
	for (i = 0; i < st->nr_members; i++)
		if (st->members[i].dead && t->m[i].rec == R45MON_REC_NONE)
			unrec |= 1u << i;
	if (unrec && (k >= 0 || t->finalize >= 0)) {
		if (!t->unrecorded_logged) {
			member_list(unrec, ", ", list, sizeof(list));
			TLOG(LOG_WARNING, "not reloading while the failure of member%s %s is not recorded in the array's description",
			     plural(unrec), list);
		}
		t->unrecorded_logged = true;
		return false;
	}
	t->unrecorded_logged = false;
	if (k >= 0 && !array_dead(t, st) && replace_member(d, t, st, (unsigned int)k))
		return true;
	if (t->finalize >= 0) {
		unsigned int f = (unsigned int)t->finalize;

		t->finalize = -1;
		if (f < st->nr_members && !st->members[f].dead &&
		    st->in_sync == st->regions)
			return finalize(d, t, f);
	}
	return false;
}

/*
 * Record the failures not recorded yet in the array's description, if it
 * has one, before anything acknowledges them: a later activation from
 * the description must not take a failed member for current.  A failure
 * that cannot be recorded keeps writes held (act() names only recorded
 * members) and is tried again at the next update.
 */
static void record(struct r45mon_dev *d, struct r45mon_target *t,
		   const struct r45_status *st)
{
	char err[512] = "", list[LIST_MAX];
	enum r45mon_rec rec = R45MON_REC_NODESC;
	uint32_t mask = 0;
	unsigned int i;
	int r = -ENOENT;

	for (i = 0; i < st->nr_members; i++)
		if (st->members[i].dead && t->m[i].rec == R45MON_REC_NONE)
			mask |= 1u << i;
	if (!mask)
		return;
	if (d->ops->record_failed)
		r = d->ops->record_failed(d->ctx, t->start, mask, st->nr_members,
					  err, sizeof(err));
	member_list(mask, ", ", list, sizeof(list));
	if (r && r != -ENOENT) {
		if (!t->record_error_logged)
			TLOG(LOG_ERR, "cannot record the failure of member%s %s in the array's description: %s: %s(tried again at the next event or timeout)",
			     plural(mask), list, err[0] ? err : strerror(-r),
			     st->held ? "writes stay held " : "");
		t->record_error_logged = true;
		return;
	}
	t->record_error_logged = false;
	if (!r) {
		rec = R45MON_REC_DONE;
		TLOG(LOG_NOTICE, "the failure of member%s %s is recorded in the array's description",
		     plural(mask), list);
	}
	for (i = 0; i < st->nr_members; i++)
		if (mask & (1u << i))
			t->m[i].rec = rec;
}

static bool act(struct r45mon_dev *d, struct r45mon_target *t,
		const struct r45_status *st)
{
	bool acted = false, all_ok = true;
	uint32_t ok = 0, unsent = 0;
	unsigned int i;
	char devno[32];
	int rc;

	record(d, t, st);
	retry_replaced(d, t, st, false);
	for (i = 0; t->rebuilt_pending && !st->held && !t->reread && i < st->nr_members; i++) {
		if (!(t->rebuilt_pending & (1u << i)))
			continue;
		if (st->members[i].dead)
			t->rebuilt_pending &= ~(1u << i);	/* failed again: stays so */
		else
			record_rebuilt(d, t, st, i);
	}
	for (i = 0; i < st->nr_members; i++) {
		struct r45mon_member *m = &t->m[i];

		if (!st->members[i].dead)
			continue;
		devno_str(&st->members[i], devno, sizeof(devno));
		if (m->ack == R45MON_ACK_NONE && d->conf.policy == R45MON_HOLD) {
			m->ack = R45MON_ACK_HOLD;
			TLOG(LOG_WARNING, "policy hold: writes stay held for an operator; after recording the failure of member %u (%s): dmsetup message %s 0 allow_writes %u",
			     i, devno, d->name, i);
		} else if (m->ack == R45MON_ACK_NONE) {
			rc = hook(d, t, "MemberFailed", st, (int)i);
			if (!rc) {
				m->ack = R45MON_ACK_OK;
			} else {
				m->ack = R45MON_ACK_REFUSED;
				TLOG(LOG_ERR, "the failure of member %u (%s) is not recorded (hook %s): writes stay held; once it is recorded: dmsetup message %s 0 allow_writes %u",
				     i, devno,
				     rc < 0 ? "could not be run" : "failed", d->name, i);
			}
		}
		if (m->ack != R45MON_ACK_OK || m->rec == R45MON_REC_NONE) {
			all_ok = false;
			continue;
		}
		ok |= 1u << i;
		if (!m->ack_sent)
			unsent |= 1u << i;
	}
	/*
	 * Acknowledge exactly the failures recorded here: the members dead
	 * in this status whose hook succeeded.  One that failed after the
	 * status was read (while a hook ran) is not named, so the kernel
	 * keeps writes held for it until its own hook has run.  Recorded
	 * failures go to the kernel at once, even while another one's hook
	 * failed (an operator then names only that one); with every failure
	 * recorded and writes still held, all are named again (a member
	 * re-added and failed again between two looks).
	 */
	if (st->held && ok && (unsent || all_ok) && d->conf.policy != R45MON_HOLD)
		acted |= allow_writes(d, t, ok);
	if (d->conf.policy == R45MON_SPARE && !acted && !t->reread)
		acted |= spare_policy(d, t, st);
	if (t->reread) {
		t->reread = false;
		acted = true;
	}
	return acted;
}

bool r45mon_update(struct r45mon_dev *d, uint64_t start, uint64_t len,
		   const char *params)
{
	struct r45mon_target *t = target_for(d, start, len);
	struct r45_status st;
	bool acted;

	if (!t) {
		if (!d->too_many_targets_logged)
			r45mon_log(d, LOG_ERR, "more than %d raid45 targets: the one at sector %llu is not monitored",
				   R45MON_MAX_TARGETS, (unsigned long long)start);
		d->too_many_targets_logged = true;
		return false;
	}
	if (r45_status_parse(params, &st)) {
		if (!t->parse_error_logged)
			TLOG(LOG_ERR, "cannot parse the status \"%.300s\": not monitored until it can",
			     params ? params : "");
		t->parse_error_logged = true;
		return false;
	}
	t->parse_error_logged = false;
	if (t->seen && t->prev.nr_members != st.nr_members)
		target_reset(t, start, len);	/* another array now */
	if (!t->seen)
		first_sight(d, t, &st);
	else
		changes(d, t, &st);
	acted = act(d, t, &st);
	t->prev = st;
	t->seen = true;
	return acted;
}
