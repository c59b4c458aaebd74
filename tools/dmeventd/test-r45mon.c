// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of r45mon.c, the monitor's decisions, against a fake array:
 * the fake prints raid45 status and table lines from a small model,
 * takes allow_writes as the kernel does (by member: "allow_writes <idx>..."
 * refused unless each is failed, writes released once every failed member
 * is acknowledged; the bare form acknowledges all) and table reloads (a
 * replaced member with <dev_to_init> rebuilds), runs no program (the
 * hook's exit codes are scripted, and a hook can fail or bring back a
 * member while it runs) and records every message and log line.  The scenarios: each policy on a
 * member failure, the hook run once per failure and its veto, spares in
 * order (busy, too small and refused ones skipped), one rebuild at a time
 * for RAID6, a second failure during the first one's hook (acknowledged
 * only after its own hook), the reload with <dev_to_init> -1 after a rebuild, a monitor
 * started on an array that failed meanwhile (dmeventd restarted), and
 * every logged change logged once, a flush that hangs (a member failed
 * during it), a reload refused while another program reloads, the
 * configuration's descriptions directory.  (~1,450 lines in one file: the fake
 * array and every scenario that drives r45mon.c as one engine.)
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "r45mon.h"

#include "unit-check.h"

#define MAXLOG 512

struct spare {
	const char *path;
	unsigned int major, minor;
	uint64_t sectors;
	int error;		/* spare_info's answer if not 0 */
};

#define FAKE_MAJOR 254

struct fake {
	/* the array */
	unsigned int n;
	char raid_type[16];
	char log_words[160];
	unsigned int minor[R45_MAX_MEMBERS];
	bool dead[R45_MAX_MEMBERS];
	int rebuilding;
	int dev_to_init;
	uint64_t in_sync, regions, len;
	enum r45_action action;
	bool held;
	uint32_t acked;		/* failed members acknowledged (allow_writes) */
	uint64_t mismatches, rerr, unprot;
	bool disk_log;
	char log_state;
	/* what the monitor did */
	char hooks[32][128];
	int nr_hooks;
	int hook_rc[32];	/* exit code of hook call i */
	int fail_in_hook[32];	/* member + 1 that fails while hook i runs */
	int back_in_hook[32];	/* member + 1 re-added while hook i runs */
	int nr_messages;	/* taken */
	char msgs[16][128];	/* every message sent, taken or refused */
	int nr_msgs;
	int release_hooks;	/* hooks run when a message released writes */
	int nr_reloads;
	int reload_fail;	/* fail the next reloads */
	int reload_busy;	/* the next reloads: -EAGAIN (another program's) */
	/*
	 * failed members none had acknowledged while a reload's suspend
	 * released held writes: a flushing suspend submits them (data
	 * loss if the description still calls those members current)
	 */
	uint32_t released_unacked;
	char table[1024];
	struct spare spares[4];
	char log[MAXLOG][512];
	int nr_log;
	int bad_status;		/* print garbage */
	char replaced[8][128];	/* the replaced op's calls */
	int nr_replaced;
	int replaced_rc[4];	/* record_replaced's answers, by call */
	int nr_replaced_rec;
	/* the description (record_failed): scripted answers, calls */
	int record_rc[16];
	char records[16][64];
	int nr_records;
	char seq[2048];		/* records, messages and reloads, in order */
	/* flush i: its answer; fail_in_flush: member + 1 failing during it */
	int flush_rc[8];
	int fail_in_flush[8];
	int nr_flushes;
	int nr_status_reads;	/* get_status */
	int status_fail;	/* the next get_status calls: -EIO */
};

static void seq_add(struct fake *f, const char *fmt, const char *arg)
{
	size_t o = strlen(f->seq);

	snprintf(f->seq + o, sizeof(f->seq) - o, fmt, arg);
}

static void fake_init(struct fake *f, unsigned int n, const char *type)
{
	unsigned int i;

	memset(f, 0, sizeof(*f));
	f->n = n;
	snprintf(f->raid_type, sizeof(f->raid_type), "%s", type);
	snprintf(f->log_words, sizeof(f->log_words), "core 2 256 nosync");
	for (i = 0; i < n; i++)
		f->minor[i] = i;
	f->rebuilding = -1;
	f->dev_to_init = -1;
	f->regions = f->in_sync = 100;
	f->len = 100 * 256;
	f->action = R45_ACTION_IDLE;
	f->log_state = 'A';
	f->release_hooks = -1;
}

static uint32_t fake_dead_mask(const struct fake *f)
{
	uint32_t m = 0;
	unsigned int i;

	for (i = 0; i < f->n; i++)
		if (f->dead[i])
			m |= 1u << i;
	return m;
}

static void fake_status(struct fake *f, char *buf, size_t size)
{
	size_t o = 0;
	unsigned int i;

	if (f->bad_status) {
		snprintf(buf, size, "garbage");
		return;
	}
	o += snprintf(buf + o, size - o, "%u", f->n);
	for (i = 0; i < f->n; i++)
		o += snprintf(buf + o, size - o, " 254:%u", f->minor[i]);
	o += snprintf(buf + o, size - o, " 1 ");
	for (i = 0; i < f->n; i++)
		o += snprintf(buf + o, size - o, "%c%s", f->dead[i] ? 'D' : 'A',
			      (int)i == f->rebuilding ? "i" : "");
	o += snprintf(buf + o, size - o, " %llu/%llu ", (unsigned long long)f->in_sync,
		      (unsigned long long)f->regions);
	if (f->disk_log)
		o += snprintf(buf + o, size - o, "3 disk 254:99 %c", f->log_state);
	else
		o += snprintf(buf + o, size - o, "1 core");
	snprintf(buf + o, size - o, " %s %llu %s %llu %llu", r45_action_name(f->action),
		 (unsigned long long)f->mismatches, f->held ? "held" : "writable",
		 (unsigned long long)f->rerr, (unsigned long long)f->unprot);
}

static int fake_get_table(void *ctx, uint64_t start, char *buf, size_t size)
{
	struct fake *f = ctx;
	size_t o = 0;
	unsigned int i;

	if (start != 0)
		return -ENOENT;
	o += snprintf(buf + o, size - o, "%s %s 7 64 256 8 256 10 -1 16 %u %d",
		      f->log_words, f->raid_type, f->n, f->dev_to_init);
	for (i = 0; i < f->n; i++)
		o += snprintf(buf + o, size - o, " 254:%u 0", f->minor[i]);
	return o < size ? 0 : -ENOSPC;
}

static int fake_reload(void *ctx, uint64_t start, const char *params, char *err,
		       size_t errsize)
{
	struct fake *f = ctx;
	struct r45_table t;
	unsigned int i, maj, min;
	size_t o = 0;

	if (start != 0)
		return -ENOENT;
	if (f->reload_busy) {
		f->reload_busy--;
		seq_add(f, "%s;", "busy");
		snprintf(err, errsize, "the device has an inactive table already");
		return -EAGAIN;
	}
	if (f->reload_fail) {
		f->reload_fail--;
		snprintf(err, errsize, "load: Invalid argument");
		return -EINVAL;
	}
	if (r45_table_parse(params, &t) || t.nr_devs != f->n) {
		snprintf(err, errsize, "bad table");
		return -EINVAL;
	}
	f->nr_reloads++;
	seq_add(f, "%s;", "reload");
	snprintf(f->table, sizeof(f->table), "%s", params);
	snprintf(f->log_words, sizeof(f->log_words), "%s %u", t.log_type, t.nr_log_params);
	for (i = 0; i < t.nr_log_params; i++) {
		o = strlen(f->log_words);
		snprintf(f->log_words + o, sizeof(f->log_words) - o, " %s", t.log_params[i]);
	}
	for (i = 0; i < f->n; i++) {
		if (r45_parse_devno(t.devs[i], &maj, &min))
			return -EINVAL;
		if (min != f->minor[i]) {
			f->minor[i] = min;
			f->dead[i] = false;
		}
	}
	f->dev_to_init = t.dev_to_init;
	/*
	 * The suspend before the swap: a flushing one (the kernel's
	 * presuspend) submits the held writes and ends the held
	 * completions, whatever failure they were held for.
	 */
	if (f->held)
		f->released_unacked |= fake_dead_mask(f) & ~f->acked;
	f->held = false;	/* a new table releases held writes */
	f->acked = fake_dead_mask(f);	/* and its failures are known */
	if (t.dev_to_init >= 0) {
		f->rebuilding = t.dev_to_init;
		f->in_sync = 0;
		f->action = R45_ACTION_RECOVER;
	} else {
		f->rebuilding = -1;
	}
	return 0;
}

/*
 * The kernel's allow_writes: bare, every failed member is acknowledged;
 * "allow_writes <idx>...", the named ones, each of which must be failed
 * (else -EINVAL and nothing changes).  Writes go on once no failed
 * member is left unacknowledged.
 */
static int fake_message(void *ctx, uint64_t start, const char *msg)
{
	struct fake *f = ctx;
	uint32_t named = 0;
	const char *p;
	char *end;
	unsigned long v;

	if (f->nr_msgs < 16)
		snprintf(f->msgs[f->nr_msgs++], sizeof(f->msgs[0]), "%s", msg);
	seq_add(f, "%s;", msg);
	if (start != 0 || strncmp(msg, "allow_writes", 12) ||
	    (msg[12] && msg[12] != ' '))
		return -EINVAL;
	p = msg + 12;
	if (!*p) {
		named = fake_dead_mask(f);
	} else {
		while (*p == ' ') {
			p++;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			v = strtoul(p, &end, 10);
			if (v >= f->n || !f->dead[v])
				return -EINVAL;
			named |= 1u << v;
			p = end;
		}
		if (*p)
			return -EINVAL;
	}
	f->nr_messages++;
	f->acked |= named;
	if (f->held && !(fake_dead_mask(f) & ~f->acked)) {
		f->held = false;
		f->release_hooks = f->nr_hooks;
	}
	return 0;
}

static int fake_run_hook(void *ctx, const char *const argv[])
{
	struct fake *f = ctx;
	int i = f->nr_hooks;

	if (i >= 32)
		return -E2BIG;
	snprintf(f->hooks[i], sizeof(f->hooks[i]), "%s %s %s %s %s", argv[0], argv[1],
		 argv[2], argv[3], argv[4]);
	CHECK(argv[5] == NULL, "hook argv not terminated");
	f->nr_hooks++;
	/* the array goes on while the hook runs */
	if (f->fail_in_hook[i]) {
		f->dead[f->fail_in_hook[i] - 1] = true;
		f->held = true;
	}
	if (f->back_in_hook[i]) {
		f->dead[f->back_in_hook[i] - 1] = false;
		f->acked &= ~(1u << (f->back_in_hook[i] - 1));
		f->held = !!(fake_dead_mask(f) & ~f->acked);
	}
	return f->hook_rc[i];
}

static int fake_spare_info(void *ctx, const char *path, unsigned int *major,
			   unsigned int *minor, uint64_t *sectors)
{
	struct fake *f = ctx;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		struct spare *s = &f->spares[i];

		if (!s->path || strcmp(s->path, path))
			continue;
		/* a spare that became a member is busy: this array holds it */
		*major = s->major;
		*minor = s->minor;
		if (s->error)
			return s->error;
		for (i = 0; i < f->n; i++)
			if (s->major == 254 && s->minor == f->minor[i])
				return -EBUSY;
		*sectors = s->sectors;
		return 0;
	}
	return -ENOENT;
}

static void fake_log(void *ctx, int prio, const char *line)
{
	struct fake *f = ctx;

	(void)prio;
	if (getenv("R45MON_TEST_VERBOSE"))
		printf("    log: %s\n", line);
	if (f->nr_log < MAXLOG)
		snprintf(f->log[f->nr_log++], sizeof(f->log[0]), "%s", line);
}

static void fake_replaced(void *ctx, unsigned int k, const char *old, const char *path,
			  const char *devno)
{
	struct fake *f = ctx;

	if (f->nr_replaced < 8)
		snprintf(f->replaced[f->nr_replaced++], sizeof(f->replaced[0]), "%u %s %s %s",
			 k, old, path, devno);
}

static int fake_record_failed(void *ctx, uint64_t start, uint32_t mask, unsigned int nr,
			      char *err, size_t errsize)
{
	struct fake *f = ctx;
	int i = f->nr_records;
	char call[64];

	CHECK(start == 0 && nr == f->n, "record_failed(%llu, %u)", (unsigned long long)start, nr);
	if (i >= 16)
		return -E2BIG;
	snprintf(call, sizeof(call), "record %#x", mask);
	snprintf(f->records[i], sizeof(f->records[i]), "%s", call);
	seq_add(f, "%s;", call);
	f->nr_records++;
	if (f->record_rc[i] && f->record_rc[i] != -ENOENT)
		snprintf(err, errsize, "/etc/raid45/r45.conf: No space left on device");
	return f->record_rc[i];
}

static int fake_record_rebuilt(void *ctx, uint64_t start, unsigned int k, unsigned int nr,
			       unsigned int major, unsigned int minor, char *err, size_t errsize)
{
	struct fake *f = ctx;
	char call[32];

	(void)err;
	(void)errsize;
	CHECK(start == 0 && nr == f->n, "record_rebuilt(%llu, %u)", (unsigned long long)start, nr);
	/* the device the kernel's table has there: the one rebuilt */
	CHECK(k < f->n && major == FAKE_MAJOR && minor == f->minor[k],
	      "record_rebuilt of member %u names %u:%u, the table has %u:%u", k, major, minor,
	      FAKE_MAJOR, k < f->n ? f->minor[k] : 0);
	snprintf(call, sizeof(call), "rebuilt %u", k);
	seq_add(f, "%s;", call);
	return 0;
}

static int fake_record_replaced(void *ctx, uint64_t start, unsigned int k, unsigned int nr,
				const char *path, uint64_t offset, char *err, size_t errsize)
{
	struct fake *f = ctx;
	char call[96];

	CHECK(start == 0 && nr == f->n, "record_replaced(%llu, %u)", (unsigned long long)start, nr);
	snprintf(call, sizeof(call), "replaced %u %s %llu", k, path, (unsigned long long)offset);
	seq_add(f, "%s;", call);
	if (f->nr_replaced_rec < 4 && f->replaced_rc[f->nr_replaced_rec++]) {
		snprintf(err, errsize, "No space left on device");
		return f->replaced_rc[f->nr_replaced_rec - 1];
	}
	return 0;
}

static int fake_flush(void *ctx)
{
	struct fake *f = ctx;
	int i = f->nr_flushes++;

	CHECK(!f->held, "flush while writes are held");
	seq_add(f, "%s;", "flush");
	if (i >= 8)
		return 0;
	/*
	 * A member failing during the flush: the kernel holds the flush's
	 * completion until allow_writes (the plugin's flush then times out)
	 */
	if (f->fail_in_flush[i]) {
		f->dead[f->fail_in_flush[i] - 1] = true;
		f->held = true;
	}
	return f->flush_rc[i];
}

static int fake_get_status(void *ctx, uint64_t start, char *buf, size_t size)
{
	struct fake *f = ctx;

	if (start != 0)
		return -ENOENT;
	f->nr_status_reads++;
	if (f->status_fail) {
		f->status_fail--;
		return -EIO;
	}
	fake_status(f, buf, size);
	return 0;
}

static const struct r45mon_ops fake_ops = {
	.get_table = fake_get_table,
	.reload = fake_reload,
	.message = fake_message,
	.run_hook = fake_run_hook,
	.spare_info = fake_spare_info,
	.log = fake_log,
	.replaced = fake_replaced,
};

/* the same with a description to record failures in */
static const struct r45mon_ops desc_ops = {
	.get_table = fake_get_table,
	.reload = fake_reload,
	.message = fake_message,
	.run_hook = fake_run_hook,
	.spare_info = fake_spare_info,
	.log = fake_log,
	.replaced = fake_replaced,
	.record_failed = fake_record_failed,
	.record_rebuilt = fake_record_rebuilt,
	.record_replaced = fake_record_replaced,
	.flush = fake_flush,
	.get_status = fake_get_status,
};

/* Lines logged that contain s. */
static int logged(struct fake *f, const char *s)
{
	int i, n = 0;

	for (i = 0; i < f->nr_log; i++)
		n += strstr(f->log[i], s) != NULL;
	return n;
}

/* What the plugin does on an event: update until nothing more is done. */
static void event(struct r45mon_dev *d, struct fake *f)
{
	char st[1024];
	int pass;

	for (pass = 0; pass < 8; pass++) {
		fake_status(f, st, sizeof(st));
		if (!r45mon_update(d, 0, f->len, st))
			return;
	}
	CHECK(0, "still acting after 8 passes");
}

static void setup_ops(struct r45mon_dev *d, struct fake *f, enum r45mon_policy p,
		      const char *hook, unsigned int nr_spares, const struct r45mon_ops *ops)
{
	struct r45mon_conf conf;
	unsigned int i;

	r45mon_conf_default(&conf);
	conf.policy = p;
	if (hook)
		snprintf(conf.hook, sizeof(conf.hook), "%s", hook);
	for (i = 0; i < nr_spares; i++) {
		snprintf(conf.spares[i], sizeof(conf.spares[i]), "/dev/s%u", i);
		f->spares[i].path = conf.spares[i];
		f->spares[i].major = 254;
		f->spares[i].minor = 50 + i;
		f->spares[i].sectors = 1 << 20;
	}
	conf.nr_spares = nr_spares;
	r45mon_init(d, "r45", &conf, ops, f);
	event(d, f);
	/* fake_ops' spare paths point into conf: keep them in d */
	for (i = 0; i < nr_spares; i++)
		f->spares[i].path = d->conf.spares[i];
}

static void setup(struct r45mon_dev *d, struct fake *f, enum r45mon_policy p,
		  const char *hook, unsigned int nr_spares)
{
	setup_ops(d, f, p, hook, nr_spares, &fake_ops);
}

static void fail(struct fake *f, unsigned int m)
{
	f->dead[m] = true;
	f->held = true;
}

static void test_warn(void)
{
	int before = failures, i;
	struct r45mon_dev d;
	struct fake f;

	fake_init(&f, 4, "raid5_ls");
	setup(&d, &f, R45MON_WARN, "/bin/hook", 0);
	CHECK(logged(&f, "r45: monitoring raid5_ls with 4 members: health AAAA"),
	      "monitoring line: %s", f.log[0]);
	fail(&f, 2);
	event(&d, &f);
	CHECK(f.nr_hooks == 1 && !strcmp(f.hooks[0], "/bin/hook MemberFailed r45 2 254:2"),
	      "hook: %d %s", f.nr_hooks, f.hooks[0]);
	CHECK(f.nr_messages == 1 && !f.held, "allow_writes: %d", f.nr_messages);
	CHECK(logged(&f, "member 2 (254:2) failed") == 1, "failure logged");
	CHECK(logged(&f, "writes held") == 1, "held logged");
	CHECK(logged(&f, "sent allow_writes") == 1, "allow_writes logged");
	CHECK(logged(&f, "writes allowed") == 1, "writes allowed logged");
	/* timeouts: nothing again */
	for (i = 0; i < 5; i++)
		event(&d, &f);
	CHECK(f.nr_hooks == 1 && f.nr_messages == 1 && f.nr_reloads == 0,
	      "acted again: %d hooks %d messages", f.nr_hooks, f.nr_messages);
	CHECK(logged(&f, "failed") == 1, "logged again");
	/* warn policy, no spares: nothing is reloaded */
	CHECK(!f.nr_reloads, "reloaded");

	/* a second failure (RAID5: the array dies): writes fail, not held */
	f.dead[0] = true;
	f.held = false;
	event(&d, &f);
	event(&d, &f);
	CHECK(logged(&f, "array failed: 2 of 4 members dead") == 1, "array death logged");
	CHECK(f.nr_hooks == 3 && strstr(f.hooks[1], "ArrayFailed r45") &&
	      strstr(f.hooks[2], "MemberFailed r45 0 254:0"), "hooks: %s / %s",
	      f.hooks[1], f.hooks[2]);
	report("r45mon-warn", before);
}

static void test_warn_refused(void)
{
	int before = failures, i;
	struct r45mon_dev d;
	struct fake f;

	fake_init(&f, 4, "raid5_ls");
	f.hook_rc[0] = 3;
	setup(&d, &f, R45MON_WARN, "/bin/hook", 0);
	fail(&f, 1);
	event(&d, &f);
	for (i = 0; i < 5; i++)
		event(&d, &f);
	CHECK(f.nr_hooks == 1, "hook run %d times", f.nr_hooks);
	CHECK(!f.nr_messages && f.held, "writes allowed after a failed hook");
	CHECK(logged(&f, "exit status 3") == 1, "exit status logged");
	CHECK(logged(&f, "is not recorded (hook failed): writes stay held") == 1,
	      "why logged");

	/* an operator sends allow_writes: logged, nothing else */
	f.held = false;
	event(&d, &f);
	CHECK(logged(&f, "writes allowed") == 1 && f.nr_hooks == 1, "operator's allow_writes");

	/* a hook that cannot run */
	fake_init(&f, 4, "raid5_ls");
	f.hook_rc[0] = -ENOENT;
	setup(&d, &f, R45MON_WARN, "/nonexistent", 0);
	fail(&f, 3);
	event(&d, &f);
	event(&d, &f);
	CHECK(f.nr_hooks == 1 && !f.nr_messages && f.held, "unrunnable hook");
	CHECK(logged(&f, "could not be run: No such file or directory") == 1, "why");

	/* no hook: the log line records it, writes go on */
	fake_init(&f, 4, "raid5_ls");
	setup(&d, &f, R45MON_WARN, NULL, 0);
	fail(&f, 3);
	event(&d, &f);
	CHECK(!f.nr_hooks && f.nr_messages == 1 && !f.held, "no hook");
	report("r45mon-warn-refused", before);
}

static void test_hold(void)
{
	int before = failures, i;
	struct r45mon_dev d;
	struct fake f;

	fake_init(&f, 4, "raid4");
	setup(&d, &f, R45MON_HOLD, "/bin/hook", 1);
	fail(&f, 0);
	for (i = 0; i < 4; i++)
		event(&d, &f);
	CHECK(!f.nr_hooks && !f.nr_messages && !f.nr_reloads && f.held, "hold acted");
	CHECK(logged(&f, "policy hold: writes stay held for an operator") == 1, "hold logged");
	CHECK(logged(&f, "dmsetup message r45 0 allow_writes 0") >= 1, "how to release");
	report("r45mon-hold", before);
}

/* Let the fake's rebuild run to its end in steps, an event each. */
static void rebuild_steps(struct r45mon_dev *d, struct fake *f, int steps)
{
	int i;

	for (i = 1; i <= steps; i++) {
		f->in_sync = f->regions * i / steps;
		if (i == steps) {
			f->rebuilding = -1;
			f->action = R45_ACTION_IDLE;
		}
		event(d, f);
	}
}

static void test_spare(void)
{
	int before = failures;
	struct r45mon_dev d;
	struct fake f;

	fake_init(&f, 4, "raid5_ls");
	setup(&d, &f, R45MON_SPARE, "/bin/hook", 2);
	fail(&f, 1);
	event(&d, &f);
	CHECK(f.nr_hooks == 2 && strstr(f.hooks[0], "MemberFailed r45 1 254:1") &&
	      strstr(f.hooks[1], "RebuildStarted r45 1 254:50"), "hooks %s / %s",
	      f.hooks[0], f.hooks[1]);
	CHECK(f.nr_messages == 1, "allow_writes before the reload: %d", f.nr_messages);
	CHECK(f.nr_reloads == 1 && strstr(f.table, " 4 1 254:0 0 254:50 0 254:2 0 254:3 0"),
	      "reload: %s", f.table);
	CHECK(f.minor[1] == 50 && f.rebuilding == 1, "fake rebuilding");
	CHECK(logged(&f, "member 1 (254:1) replaced by spare /dev/s0 (254:50): rebuild started") == 1,
	      "replacement logged");
	CHECK(!logged(&f, "member 1 is now"), "own replacement logged as a change");
	CHECK(f.nr_replaced == 1 && !strcmp(f.replaced[0], "1 254:1 /dev/s0 254:50"),
	      "replaced op: %d \"%s\"", f.nr_replaced, f.replaced[0]);
	rebuild_steps(&d, &f, 20);
	CHECK(logged(&f, "rebuild of member 1: ") == 9, "progress lines: %d",
	      logged(&f, "rebuild of member 1: "));
	CHECK(logged(&f, "rebuild of member 1: 50% (50/100 regions)") == 1, "50%%");
	CHECK(logged(&f, "rebuild of member 1 (254:50) finished") == 1, "finished");
	CHECK(f.nr_hooks == 3 && strstr(f.hooks[2], "RebuildFinished r45 1 254:50"), "hook");
	CHECK(f.nr_reloads == 2 && f.dev_to_init == -1 &&
	      !strncmp(f.table, "core 2 256 nosync raid5_ls", 26), "final reload: %s", f.table);
	event(&d, &f);
	CHECK(f.nr_reloads == 2 && f.nr_hooks == 3, "acted after the end");

	/* the next failure takes the second spare */
	fail(&f, 3);
	event(&d, &f);
	CHECK(f.nr_reloads == 3 && f.minor[3] == 51 && f.rebuilding == 3, "second spare");
	CHECK(f.nr_replaced == 2 && !strcmp(f.replaced[1], "3 254:3 /dev/s1 254:51"),
	      "replaced op: %d \"%s\"", f.nr_replaced, f.replaced[1]);
	rebuild_steps(&d, &f, 3);
	/* and a third finds none */
	fail(&f, 0);
	event(&d, &f);
	event(&d, &f);
	CHECK(f.nr_reloads == 4 && logged(&f, "no usable spare for member 0 (254:0)") == 1,
	      "no spare: %d reloads", f.nr_reloads);
	CHECK(!f.held, "writes held without spares");
	CHECK(!logged(&f, "not usable"), "a spare in the array called not usable");

	/* a hook that refuses: no replacement either */
	fake_init(&f, 4, "raid5_ls");
	f.hook_rc[0] = 1;
	setup(&d, &f, R45MON_SPARE, "/bin/hook", 1);
	fail(&f, 2);
	event(&d, &f);
	event(&d, &f);
	CHECK(f.nr_hooks == 1 && !f.nr_reloads && !f.nr_messages && f.held,
	      "replaced after a refused hook");
	report("r45mon-spare", before);
}

static void test_spare_choice(void)
{
	int before = failures;
	struct r45mon_dev d;
	struct fake f;

	fake_init(&f, 4, "raid5_ls");
	setup(&d, &f, R45MON_SPARE, NULL, 4);
	f.spares[0].error = -EBUSY;	/* in use */
	f.spares[1].sectors = 10;	/* too small */
	f.reload_fail = 1;		/* the kernel refuses the first */
	f.spares[2].minor = 52;
	f.spares[3].minor = 2;
	fail(&f, 0);
	event(&d, &f);
	CHECK(logged(&f, "spare /dev/s0 not usable: in use") == 1, "busy");
	CHECK(logged(&f, "spare /dev/s1 (254:51) too small") == 1, "small");
	CHECK(logged(&f, "replacing member 0 (254:0) by spare /dev/s2 (254:52) failed: load: Invalid argument") == 1,
	      "refused");
	/* s3 is 254:2, a member: skipped */
	CHECK(f.nr_reloads == 0 && logged(&f, "no usable spare for member 0") == 1,
	      "reloads %d", f.nr_reloads);
	/* s0 becomes free: used at the next timeout, quietly until then */
	f.spares[0].error = 0;
	event(&d, &f);
	CHECK(f.nr_reloads == 1 && f.minor[0] == 50, "freed spare used");
	CHECK(logged(&f, "not usable") == 1, "busy spare logged again");

	/* refused and too small spares are not tried again */
	fail(&f, 1);
	rebuild_steps(&d, &f, 1);
	event(&d, &f);
	CHECK(logged(&f, "too small") == 1 && logged(&f, "failed: load") == 1,
	      "tried again");

	/* the spare fails during its rebuild: the next spare replaces it */
	fake_init(&f, 4, "raid5_ls");
	setup(&d, &f, R45MON_SPARE, NULL, 2);
	fail(&f, 2);
	event(&d, &f);
	CHECK(f.nr_reloads == 1 && f.rebuilding == 2 && f.minor[2] == 50, "first spare");
	f.in_sync = 40;
	event(&d, &f);
	fail(&f, 2);		/* the kernel keeps the "i": Di */
	f.action = R45_ACTION_IDLE;
	event(&d, &f);
	CHECK(logged(&f, "rebuild of member 2 failed: the new member failed") == 1, "logged");
	CHECK(logged(&f, "rebuild of member 2 stopped: 40/100") == 1, "stop logged");
	CHECK(f.nr_reloads == 2 && f.rebuilding == 2 && f.minor[2] == 51 && !f.dead[2],
	      "second spare: %d reloads, %s", f.nr_reloads, f.table);
	report("r45mon-spare-choice", before);
}

static void test_raid6_two(void)
{
	int before = failures;
	struct r45mon_dev d;
	struct fake f;

	fake_init(&f, 5, "raid6_nr");
	setup(&d, &f, R45MON_SPARE, "/bin/hook", 2);
	fail(&f, 0);
	event(&d, &f);
	CHECK(f.nr_reloads == 1 && f.rebuilding == 0 && f.minor[0] == 50, "first replaced");
	f.in_sync = 30;
	event(&d, &f);
	/* the second failure during the rebuild */
	fail(&f, 3);
	event(&d, &f);
	CHECK(f.nr_messages == 2 && !f.held, "second failure recorded: %d", f.nr_messages);
	CHECK(f.nr_reloads == 1, "replaced during a rebuild");
	CHECK(logged(&f, "member 3 will be replaced when the rebuild of member 0 has finished") == 1,
	      "waiting logged");
	f.in_sync = 60;
	event(&d, &f);
	CHECK(f.nr_reloads == 1, "replaced during a rebuild");
	CHECK(logged(&f, "will be replaced") == 1, "waiting logged again");
	/* the first rebuild ends: the second starts at once */
	f.in_sync = 100;
	f.rebuilding = -1;
	f.action = R45_ACTION_IDLE;
	event(&d, &f);
	CHECK(logged(&f, "rebuild of member 0 (254:50) finished") == 1, "first finished");
	CHECK(f.nr_reloads == 2 && f.rebuilding == 3 && f.minor[3] == 51 && f.dev_to_init == 3,
	      "second replaced: %s", f.table);
	CHECK(!f.dead[0] && !f.dead[3], "members");
	rebuild_steps(&d, &f, 4);
	CHECK(logged(&f, "rebuild of member 3 (254:51) finished") == 1, "second finished");
	CHECK(f.nr_reloads == 3 && f.dev_to_init == -1, "final reload: %s", f.table);
	CHECK(f.nr_hooks == 6, "hooks: %d", f.nr_hooks);
	report("r45mon-raid6-two-failures", before);
}

/*
 * Finding A: RAID6, policy spare.  Member 0 fails and is recorded,
 * member 4 fails and its record fails: the spare's reload for member 0
 * must wait, since its suspend would release the writes held for the
 * failure of member 4 that the description does not know.
 */
static void test_reload_unrecorded(void)
{
	int before = failures;
	struct r45mon_dev d;
	struct fake f;

	fake_init(&f, 5, "raid6_nr");
	f.record_rc[1] = f.record_rc[2] = -EIO;
	/* member 4 fails while member 0's hook runs */
	f.fail_in_hook[0] = 5;
	setup_ops(&d, &f, R45MON_SPARE, "/bin/hook", 1, &desc_ops);
	fail(&f, 0);
	event(&d, &f);
	event(&d, &f);
	CHECK(!f.nr_reloads && !f.released_unacked && f.held,
	      "reloaded with an unrecorded failure: %s (released %#x)", f.seq,
	      f.released_unacked);
	CHECK(logged(&f, "not reloading while the failure of member 4 is not recorded") == 1,
	      "why logged once");
	/* recorded at last: named, released, then the spare goes in */
	event(&d, &f);
	CHECK(!f.released_unacked && !f.held && f.nr_reloads == 1 && f.minor[0] == 50,
	      "after the record: %s", f.seq);
	report("r45mon-no-reload-before-record", before);
}

/*
 * Finding H: a spare's record that fails is tried again at the next
 * update, like a failure's; the end of its rebuild is recorded after it.
 */
static void test_replaced_retry(void)
{
	int before = failures;
	struct r45mon_dev d;
	struct fake f;

	fake_init(&f, 4, "raid5_ls");
	f.replaced_rc[0] = f.replaced_rc[1] = -ENOSPC;
	setup_ops(&d, &f, R45MON_SPARE, NULL, 1, &desc_ops);
	fail(&f, 1);
	event(&d, &f);
	/* tried at once, and again at the next look (the same event's) */
	CHECK(!strcmp(f.seq, "record 0x2;allow_writes 1;reload;replaced 1 /dev/s0 0;replaced 1 /dev/s0 0;"),
	      "first: %s", f.seq);
	CHECK(logged(&f, "cannot record spare /dev/s0 as member 1") == 1, "logged once");
	CHECK(!logged(&f, "member 1 is /dev/s0, rebuilding"), "not recorded");
	f.in_sync = 50;
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;allow_writes 1;reload;replaced 1 /dev/s0 0;replaced 1 /dev/s0 0;replaced 1 /dev/s0 0;") &&
	      logged(&f, "member 1 is /dev/s0, rebuilding, in the array's description") == 1,
	      "recorded: %s", f.seq);
	event(&d, &f);
	CHECK(f.nr_replaced_rec == 3, "recorded again: %d", f.nr_replaced_rec);
	rebuild_steps(&d, &f, 10);
	CHECK(strstr(f.seq, "replaced 1 /dev/s0 0;flush;rebuilt 1;reload;") && f.nr_replaced_rec == 3,
	      "rebuilt after: %s", f.seq);
	report("r45mon-replaced-retried", before);
}

/*
 * Finding I: a rebuilt member is recorded current only after a flush of
 * the device (its data durable on the members), and no flush while writes
 * are held (it would be held too): recorded once they go on.
 */
static void test_rebuilt_flushed(void)
{
	int before = failures;
	struct r45mon_dev d;
	struct fake f;

	fake_init(&f, 5, "raid6_nr");
	f.dead[1] = true;
	f.record_rc[1] = -EIO;
	setup_ops(&d, &f, R45MON_WARN, NULL, 0, &desc_ops);
	/* member 1 put back and rebuilt whole between two looks; member 3 fails */
	f.dead[1] = false;
	f.minor[1] = 60;
	f.dev_to_init = 1;
	fail(&f, 3);
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;record 0x8;") && f.held, "held: %s", f.seq);
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;record 0x8;record 0x8;allow_writes 3;flush;rebuilt 1;"),
	      "after the release: %s", f.seq);
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;record 0x8;record 0x8;allow_writes 3;flush;rebuilt 1;"),
	      "again: %s", f.seq);
	report("r45mon-rebuilt-flushed", before);
}

/*
 * Review 6: a reload refused for now (another program's load/resume under
 * way: an inactive table, or the description's lock held): the spare is
 * not taken for a bad one, the replacement and the final reload are
 * tried again at the next event.
 */
static void test_reload_busy(void)
{
	int before = failures;
	struct r45mon_dev d;
	struct fake f;

	fake_init(&f, 4, "raid5_ls");
	setup_ops(&d, &f, R45MON_SPARE, NULL, 2, &desc_ops);
	f.reload_busy = 2;
	fail(&f, 1);
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;allow_writes 1;busy;") && !f.nr_reloads && !f.held,
	      "busy: %s", f.seq);
	CHECK(logged(&f, "not now: the device has an inactive table already (tried again") == 1,
	      "logged");
	event(&d, &f);
	CHECK(!f.nr_reloads && f.reload_busy == 0, "busy again: %s", f.seq);
	event(&d, &f);
	CHECK(f.nr_reloads == 1 && f.minor[1] == 50 && f.rebuilding == 1,
	      "the first spare, once free: %s (member 1 is 254:%u)", f.seq, f.minor[1]);
	CHECK(!logged(&f, "not usable") && !logged(&f, "failed:"), "the spare called bad");
	/* the rebuild ends; the final reload is refused once, then made */
	f.reload_busy = 1;
	rebuild_steps(&d, &f, 4);
	CHECK(f.nr_reloads == 1 && f.dev_to_init == 1, "final reload while busy: %s", f.seq);
	event(&d, &f);
	CHECK(f.nr_reloads == 2 && f.dev_to_init == -1, "final reload later: %s", f.seq);
	report("r45mon-reload-busy", before);
}

/*
 * Review 4: a member fails during the flush before a rebuilt record.  The
 * kernel holds the flush until allow_writes; the flush times out (the
 * plugin's runs in a thread of its own), the failure is recorded and
 * acknowledged in the same event, the rebuilt record waits (an earlier
 * flush still running: not yet), then is made once a flush ends with the
 * array unchanged.  A flush that ends but with a failure meanwhile
 * (status read again after it): not recorded either.
 */
static void test_flush_hangs(void)
{
	int before = failures;
	struct r45mon_dev d;
	struct fake f;

	fake_init(&f, 4, "raid5_ls");
	f.dead[1] = true;
	setup_ops(&d, &f, R45MON_WARN, NULL, 0, &desc_ops);
	/* member 1 put back and rebuilt whole between two looks */
	f.dead[1] = false;
	f.minor[1] = 60;
	f.dev_to_init = 1;
	f.fail_in_flush[0] = 3;
	f.flush_rc[0] = -ETIMEDOUT;
	f.flush_rc[1] = -EINPROGRESS;
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;flush;record 0x4;allow_writes 2;flush;") && !f.held,
	      "a flush that hangs: %s", f.seq);
	CHECK(logged(&f, "has not ended in time") == 1 && logged(&f, "an earlier flush has not ended") == 1,
	      "logged");
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;flush;record 0x4;allow_writes 2;flush;flush;rebuilt 1;"),
	      "then: %s", f.seq);
	CHECK(f.nr_status_reads >= 1, "no status read after the flush");
	event(&d, &f);
	CHECK(f.nr_flushes == 3, "flushed again: %s", f.seq);

	/* the flush ends, but a member failed meanwhile: not recorded yet */
	fake_init(&f, 4, "raid5_ls");
	f.dead[1] = true;
	setup_ops(&d, &f, R45MON_WARN, NULL, 0, &desc_ops);
	f.dead[1] = false;
	f.minor[1] = 60;
	f.dev_to_init = 1;
	f.fail_in_flush[0] = 4;
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;flush;record 0x8;allow_writes 3;flush;rebuilt 1;") &&
	      !f.held, "a failure during a flush that ended: %s", f.seq);

	/* the status cannot be read after the flush: later, no loop */
	fake_init(&f, 4, "raid5_ls");
	f.dead[1] = true;
	setup_ops(&d, &f, R45MON_WARN, NULL, 0, &desc_ops);
	f.dead[1] = false;
	f.minor[1] = 60;
	f.dev_to_init = 1;
	f.status_fail = 2;	/* (tried twice in an update: its end, then pending) */
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;flush;flush;") && logged(&f, "cannot read the status again") == 2,
	      "status not read: %s", f.seq);
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;flush;flush;flush;rebuilt 1;"), "then: %s", f.seq);
	report("r45mon-flush-hangs", before);
}

/*
 * The monitor acknowledges the failures it recorded, by member: a
 * failure that happens while another one's hook runs waits for its own
 * hook (issue 31, finding 4).
 */
static void test_raid6_race(void)
{
	int before = failures, i;
	struct r45mon_dev d;
	struct fake f;

	/* member 3 fails while member 1's hook runs */
	fake_init(&f, 6, "raid6_nr");
	f.fail_in_hook[0] = 3 + 1;
	setup(&d, &f, R45MON_WARN, "/bin/hook", 0);
	fail(&f, 1);
	event(&d, &f);
	CHECK(f.nr_msgs >= 1 && !strcmp(f.msgs[0], "allow_writes 1"),
	      "first message \"%s\"", f.msgs[0]);
	CHECK(f.nr_hooks == 2 && strstr(f.hooks[0], "MemberFailed r45 1 254:1") &&
	      strstr(f.hooks[1], "MemberFailed r45 3 254:3"), "hooks: %d %s / %s",
	      f.nr_hooks, f.hooks[0], f.hooks[1]);
	CHECK(f.release_hooks == 2, "writes released after %d hooks", f.release_hooks);
	CHECK(f.nr_msgs == 2 && !strcmp(f.msgs[1], "allow_writes 1 3"),
	      "messages: %d, second \"%s\"", f.nr_msgs, f.msgs[1]);
	CHECK(!f.held && f.acked == ((1u << 1) | (1u << 3)), "held %d acked %x",
	      f.held, f.acked);
	CHECK(logged(&f, "sent allow_writes: the failure of member 1 is recorded (message allow_writes 1)") == 1,
	      "first allow_writes logged");
	CHECK(logged(&f, "sent allow_writes: the failure of members 1, 3 is recorded (message allow_writes 1 3)") == 1,
	      "second allow_writes logged");
	for (i = 0; i < 3; i++)
		event(&d, &f);
	CHECK(f.nr_msgs == 2 && f.nr_hooks == 2, "acted again: %d messages", f.nr_msgs);

	/* the same, and member 3's hook fails: only member 1 is acknowledged */
	fake_init(&f, 6, "raid6_nr");
	f.fail_in_hook[0] = 3 + 1;
	f.hook_rc[1] = 1;
	setup(&d, &f, R45MON_WARN, "/bin/hook", 0);
	fail(&f, 1);
	for (i = 0; i < 3; i++)
		event(&d, &f);
	CHECK(f.nr_hooks == 2 && f.nr_msgs == 1 && !strcmp(f.msgs[0], "allow_writes 1"),
	      "hooks %d messages %d \"%s\"", f.nr_hooks, f.nr_msgs, f.msgs[0]);
	CHECK(f.held && f.acked == 1u << 1, "held %d acked %x", f.held, f.acked);
	CHECK(logged(&f, "once it is recorded: dmsetup message r45 0 allow_writes 3") == 1,
	      "how to release");
	/* the operator records it */
	CHECK(!fake_message(&f, 0, "allow_writes 3") && !f.held, "operator's allow_writes 3");
	event(&d, &f);
	CHECK(logged(&f, "writes allowed") == 1 && f.nr_msgs == 2, "released");

	/* both in one status, member 3's hook fails: member 1 acknowledged alone */
	fake_init(&f, 6, "raid6_nr");
	f.hook_rc[1] = 1;
	setup(&d, &f, R45MON_WARN, "/bin/hook", 0);
	fail(&f, 1);
	fail(&f, 3);
	for (i = 0; i < 3; i++)
		event(&d, &f);
	CHECK(f.nr_hooks == 2 && f.nr_msgs == 1 && !strcmp(f.msgs[0], "allow_writes 1"),
	      "hooks %d messages %d \"%s\"", f.nr_hooks, f.nr_msgs, f.msgs[0]);
	CHECK(f.held && f.acked == 1u << 1, "held %d acked %x", f.held, f.acked);
	CHECK(logged(&f, "writes held until the failure of members 1, 3 is recorded (dmsetup message r45 0 allow_writes 1 3 releases them)") == 1,
	      "held line");

	/*
	 * member 1 is re-added while its hook runs and member 3 fails: the
	 * kernel refuses "allow_writes 1", the monitor sends no bare form and
	 * looks again at the next event
	 */
	fake_init(&f, 6, "raid6_nr");
	f.back_in_hook[0] = 1 + 1;
	f.fail_in_hook[0] = 3 + 1;
	setup(&d, &f, R45MON_WARN, "/bin/hook", 0);
	fail(&f, 1);
	event(&d, &f);
	CHECK(f.nr_msgs == 1 && !strcmp(f.msgs[0], "allow_writes 1") && !f.nr_messages &&
	      f.held, "messages %d \"%s\" taken %d", f.nr_msgs, f.msgs[0], f.nr_messages);
	CHECK(logged(&f, "message allow_writes 1 refused: Invalid argument") == 1,
	      "refusal logged");
	event(&d, &f);
	CHECK(logged(&f, "member 1 (254:1) is alive again") == 1, "alive again");
	/* the re-added member in sync at once (nothing written meanwhile) */
	CHECK(f.nr_hooks == 3 && strstr(f.hooks[1], "RebuildFinished r45 1 254:1") &&
	      strstr(f.hooks[2], "MemberFailed r45 3 254:3"), "hook 3: %d", f.nr_hooks);
	CHECK(f.nr_msgs == 2 && !strcmp(f.msgs[1], "allow_writes 3") && !f.held,
	      "messages %d \"%s\"", f.nr_msgs, f.msgs[1]);
	for (i = 0; i < f.nr_msgs; i++)
		CHECK(strcmp(f.msgs[i], "allow_writes"), "bare allow_writes sent");
	report("r45mon-raid6-failure-during-hook", before);
}

static void test_restart(void)
{
	int before = failures;
	struct r45mon_dev d;
	struct fake f;

	/* failed while nobody watched, not recorded: handled at once */
	fake_init(&f, 4, "raid5_ls");
	fail(&f, 2);
	setup(&d, &f, R45MON_WARN, "/bin/hook", 0);
	CHECK(f.nr_hooks == 1 && f.nr_messages == 1 && !f.held, "unrecorded failure");
	CHECK(logged(&f, "member 2 (254:2) is failed, not yet recorded") == 1, "logged");

	/* failed and recorded before: no hook, the spare policy replaces */
	fake_init(&f, 4, "raid5_ls");
	f.dead[2] = true;
	setup(&d, &f, R45MON_SPARE, "/bin/hook", 1);
	CHECK(logged(&f, "recorded before monitoring started") == 1, "logged");
	CHECK(f.nr_hooks == 1 && strstr(f.hooks[0], "RebuildStarted") && f.nr_reloads == 1,
	      "replaced: hooks %d reloads %d", f.nr_hooks, f.nr_reloads);

	/* a rebuild running: followed, and the table finished after it */
	fake_init(&f, 4, "raid5_ls");
	f.rebuilding = 1;
	f.dev_to_init = 1;
	f.in_sync = 45;
	f.action = R45_ACTION_RECOVER;
	setup(&d, &f, R45MON_SPARE, NULL, 1);
	CHECK(logged(&f, "rebuild of member 1 in progress: 45%") == 1, "in progress");
	rebuild_steps(&d, &f, 2);
	CHECK(!logged(&f, "rebuild of member 1: 40%") &&
	      logged(&f, "rebuild of member 1: 50%") == 1, "progress from the start");
	CHECK(f.nr_reloads == 1 && f.dev_to_init == -1, "final reload");
	report("r45mon-restart", before);
}

static void test_changes(void)
{
	int before = failures, i;
	struct r45mon_dev d;
	struct fake f;

	fake_init(&f, 3, "raid5_la");
	f.disk_log = true;
	f.in_sync = 0;
	f.action = R45_ACTION_RESYNC;
	setup(&d, &f, R45MON_WARN, NULL, 0);
	CHECK(logged(&f, "resync in progress: 0%") == 1, "resync at start");
	for (i = 1; i <= 10; i++) {
		f.in_sync = i * 10;
		if (i == 10)
			f.action = R45_ACTION_IDLE;
		event(&d, &f);
		event(&d, &f);
	}
	CHECK(logged(&f, "resync: ") == 9, "resync progress %d", logged(&f, "resync: "));
	CHECK(logged(&f, "resync finished: 100/100") == 1, "resync finished");

	f.action = R45_ACTION_CHECK;
	event(&d, &f);
	f.mismatches = 5;
	event(&d, &f);
	f.action = R45_ACTION_IDLE;
	event(&d, &f);
	event(&d, &f);
	CHECK(logged(&f, "check started") == 1, "check started");
	CHECK(logged(&f, "check finished: 5 mismatched stripes") == 1, "check mismatches");
	/* a whole repair between two looks */
	f.mismatches = 2;
	event(&d, &f);
	CHECK(logged(&f, "check or repair finished: 2 mismatched") == 1, "unseen repair");

	f.rerr = 3;
	event(&d, &f);
	event(&d, &f);
	f.rerr = 4;
	event(&d, &f);
	CHECK(logged(&f, "3 read errors repaired from parity (3 in all)") == 1 &&
	      logged(&f, "1 read errors repaired from parity (4 in all)") == 1, "read errors");

	f.log_state = 'F';
	event(&d, &f);
	event(&d, &f);
	CHECK(logged(&f, "log device 254:99 failed a flush") == 1, "log failure");

	f.dead[1] = true;
	f.unprot = 7;
	f.in_sync = 93;
	event(&d, &f);
	event(&d, &f);
	CHECK(logged(&f, "7 regions unprotected") == 1, "unprotected");

	f.action = R45_ACTION_FROZEN;
	event(&d, &f);
	f.action = R45_ACTION_RESYNC;
	event(&d, &f);
	CHECK(logged(&f, "sync frozen") == 1 && logged(&f, "resync resumed") == 1, "frozen");

	/* an unparsable status: logged once, then monitored again */
	f.bad_status = 1;
	event(&d, &f);
	event(&d, &f);
	CHECK(logged(&f, "cannot parse the status \"garbage\"") == 1, "parse error");
	f.bad_status = 0;
	i = f.nr_log;
	event(&d, &f);
	CHECK(f.nr_log == i, "lines after the parse error: %s", f.log[f.nr_log - 1]);
	report("r45mon-changes-logged-once", before);
}

static void test_conf(void)
{
	int before = failures;
	struct r45mon_conf c, c2;
	char err[256], buf[8192];

	CHECK(!r45mon_conf_parse("# comment\n\npolicy = spare\nhook=/usr/local/bin/h\n"
				 "spare=/dev/ram4\nspare=/dev/ram5\nlog=/run/x.log\nhook_timeout=9",
				 &c, err, sizeof(err)), "parse: %s", err);
	CHECK(c.policy == R45MON_SPARE && !strcmp(c.hook, "/usr/local/bin/h") &&
	      c.nr_spares == 2 && !strcmp(c.spares[1], "/dev/ram5") &&
	      !strcmp(c.log, "/run/x.log") && c.hook_timeout == 9, "values");
	CHECK(!r45mon_conf_format(&c, buf, sizeof(buf)) &&
	      !r45mon_conf_parse(buf, &c2, err, sizeof(err)) && !memcmp(&c, &c2, sizeof(c)),
	      "round trip");
	CHECK(r45mon_conf_format(&c, buf, 30) == -ENOSPC, "short buffer");
	CHECK(!r45mon_conf_parse("", &c, err, sizeof(err)) && c.policy == R45MON_WARN &&
	      c.hook_timeout == R45MON_DEFAULT_HOOK_TIMEOUT, "defaults");
	CHECK(r45mon_conf_parse("policy=sometimes", &c, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "line 1"), "bad policy: %s", err);
	CHECK(r45mon_conf_parse("\nhook=relative", &c, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "line 2") && strstr(err, "absolute"), "relative hook: %s", err);
	CHECK(r45mon_conf_parse("colour=blue", &c, err, sizeof(err)) == -EINVAL, "unknown key");
	CHECK(r45mon_conf_parse("policy", &c, err, sizeof(err)) == -EINVAL, "no =");
	CHECK(r45mon_conf_parse("hook_timeout=0", &c, err, sizeof(err)) == -EINVAL, "timeout 0");
	CHECK(r45mon_conf_parse("hook_timeout=-5", &c, err, sizeof(err)) == -EINVAL, "timeout -5");
	CHECK(r45mon_conf_parse("hook_timeout=5s", &c, err, sizeof(err)) == -EINVAL, "timeout 5s");
	/* dmeventd's timeout, kept by register --keep; none in older files */
	CHECK(!r45mon_conf_parse("policy=warn\nhook_timeout=9\n", &c, err, sizeof(err)) &&
	      !c.timeout, "no timeout: %u", c.timeout);
	CHECK(!r45mon_conf_format(&c, buf, sizeof(buf)) && !strstr(buf, "\ntimeout="),
	      "none written when none: %s", buf);
	CHECK(!r45mon_conf_parse("timeout=2\nhook_timeout=9\n", &c, err, sizeof(err)) &&
	      c.timeout == 2 && c.hook_timeout == 9, "timeout 2: %s", err);
	CHECK(!r45mon_conf_format(&c, buf, sizeof(buf)) && strstr(buf, "\ntimeout=2\n") &&
	      !r45mon_conf_parse(buf, &c2, err, sizeof(err)) && c2.timeout == 2,
	      "timeout round trip: %s", buf);
	CHECK(r45mon_conf_parse("timeout=0", &c, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "timeout must be"), "timeout=0: %s", err);
	{
		char many[2048] = "";
		int i;

		for (i = 0; i < R45MON_MAX_SPARES + 1; i++)
			strcat(many, "spare=/dev/x\n");
		CHECK(r45mon_conf_parse(many, &c, err, sizeof(err)) == -EINVAL, "too many spares");
		memset(many, 'a', sizeof(many) - 1);
		many[sizeof(many) - 1] = '\0';
		CHECK(r45mon_conf_parse(many, &c, err, sizeof(err)) == -EINVAL, "long line");
	}
	report("r45mon-config", before);
}

/*
 * Review 2: the descriptions' directory raid45-monitor register saw is
 * in the configuration (the plugin's environment may lack
 * $RAID45_CONF_DIR); older configurations mean /etc/raid45.  An array
 * raid45ctl made (UUID R45-...) without a description found is an
 * error, not "no description".
 */
static void test_descriptions(void)
{
	int before = failures;
	struct r45mon_conf c, c2;
	char err[1024], buf[8192];

	CHECK(!r45mon_conf_parse("policy=warn\ndescriptions=/run/raid45\n", &c, err, sizeof(err)),
	      "parse: %s", err);
	CHECK(!strcmp(c.descriptions, "/run/raid45") &&
	      !strcmp(r45mon_conf_descriptions(&c), "/run/raid45"), "descriptions: %s",
	      c.descriptions);
	CHECK(!r45mon_conf_format(&c, buf, sizeof(buf)) && strstr(buf, "descriptions=/run/raid45\n") &&
	      !r45mon_conf_parse(buf, &c2, err, sizeof(err)) && !memcmp(&c, &c2, sizeof(c)),
	      "round trip: %s", buf);
	CHECK(!r45mon_conf_parse("policy=warn\nhook_timeout=9\n", &c, err, sizeof(err)) &&
	      !c.descriptions[0] && !strcmp(r45mon_conf_descriptions(&c), "/etc/raid45"),
	      "an older configuration: %s", r45mon_conf_descriptions(&c));
	CHECK(!r45mon_conf_format(&c, buf, sizeof(buf)) && !strstr(buf, "descriptions"),
	      "none written when none: %s", buf);
	CHECK(r45mon_conf_parse("descriptions=run/raid45", &c, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "absolute"), "relative: %s", err);

	err[0] = '\0';
	CHECK(r45mon_no_description("R45-6f1c0e9a4b2d4c7e8a1b3c5d7e9f0a1b", "/etc/raid45",
				    "/etc/dm-raid45/monitor/r5.conf", err, sizeof(err)) == -ENOKEY,
	      "raid45ctl's array without a description");
	CHECK(strstr(err, "in /etc/raid45") && strstr(err, "RAID45_CONF_DIR") &&
	      strstr(err, "/etc/dm-raid45/monitor/r5.conf"), "why: %s", err);
	CHECK(r45mon_no_description("R45TEST-r5", "/etc/raid45", "", err, sizeof(err)) == -ENOENT,
	      "another UUID");
	CHECK(r45mon_no_description("DMRAID45-isw_x", "/etc/raid45", "", err, sizeof(err)) == -ENOENT,
	      "a dmraid set");
	CHECK(r45mon_no_description("", "/etc/raid45", "", err, sizeof(err)) == -ENOENT &&
	      r45mon_no_description(NULL, "/etc/raid45", "", err, sizeof(err)) == -ENOENT,
	      "no UUID");
	report("r45mon-descriptions-dir", before);
}

/*
 * With a description, the failure is recorded in it before allow_writes,
 * whatever the policy; a record that fails keeps writes held (logged
 * once, tried again at every update); without a description (-ENOENT)
 * nothing changes.
 */
static void test_record(void)
{
	int before = failures, i;
	struct r45mon_dev d;
	struct fake f;

	/* warn, no hook: record, then allow_writes naming the member */
	fake_init(&f, 4, "raid5_ls");
	setup_ops(&d, &f, R45MON_WARN, NULL, 0, &desc_ops);
	fail(&f, 2);
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x4;allow_writes 2;"), "order: %s", f.seq);
	CHECK(!f.held && logged(&f, "the failure of member 2 is recorded in the array's description") == 1,
	      "recorded and released");
	for (i = 0; i < 3; i++)
		event(&d, &f);
	CHECK(f.nr_records == 1 && f.nr_messages == 1, "again: %d records", f.nr_records);

	/* warn with a hook: the record comes first, the hook runs too */
	fake_init(&f, 4, "raid5_ls");
	setup_ops(&d, &f, R45MON_WARN, "/bin/hook", 0, &desc_ops);
	fail(&f, 1);
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;allow_writes 1;") && f.nr_hooks == 1,
	      "with hook: %s, %d hooks", f.seq, f.nr_hooks);

	/* the record fails: no allow_writes, writes held, logged once */
	fake_init(&f, 4, "raid5_ls");
	f.record_rc[0] = f.record_rc[1] = f.record_rc[2] = -ENOSPC;
	setup_ops(&d, &f, R45MON_WARN, NULL, 0, &desc_ops);
	fail(&f, 3);
	event(&d, &f);
	event(&d, &f);
	event(&d, &f);
	CHECK(!f.nr_msgs && f.held, "allow_writes sent without the record: %s", f.seq);
	CHECK(f.nr_records == 3, "not tried again: %d", f.nr_records);
	CHECK(logged(&f, "cannot record the failure of member 3 in the array's description: /etc/raid45/r45.conf: No space left on device: writes stay held") == 1,
	      "why logged once");
	/* then it can be recorded: released */
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x8;record 0x8;record 0x8;record 0x8;allow_writes 3;") && !f.held,
	      "after the record: %s", f.seq);

	/* no description: writes go on as before */
	fake_init(&f, 4, "raid5_ls");
	f.record_rc[0] = -ENOENT;
	setup_ops(&d, &f, R45MON_WARN, NULL, 0, &desc_ops);
	fail(&f, 0);
	event(&d, &f);
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x1;allow_writes 0;") && !f.held, "no description: %s", f.seq);
	CHECK(!logged(&f, "description"), "no description: logged");

	/* policy hold: recorded, writes stay held for the operator */
	fake_init(&f, 4, "raid5_ls");
	setup_ops(&d, &f, R45MON_HOLD, NULL, 0, &desc_ops);
	fail(&f, 2);
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x4;") && f.held, "hold: %s", f.seq);

	/* policy spare: no reload (which acknowledges) before the record */
	fake_init(&f, 4, "raid5_ls");
	f.record_rc[0] = -EIO;
	setup_ops(&d, &f, R45MON_SPARE, NULL, 1, &desc_ops);
	fail(&f, 1);
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;") && f.held && !f.nr_reloads, "spare, not recorded: %s",
	      f.seq);
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;record 0x2;allow_writes 1;reload;replaced 1 /dev/s0 0;"),
	      "spare: %s", f.seq);
	/* the rebuild's end goes to the description, then the final reload */
	rebuild_steps(&d, &f, 20);
	CHECK(!strcmp(f.seq, "record 0x2;record 0x2;allow_writes 1;reload;replaced 1 /dev/s0 0;flush;rebuilt 1;reload;"),
	      "spare, rebuilt: %s", f.seq);

	/* RAID6: a second failure while the first is recorded */
	fake_init(&f, 5, "raid6_nr");
	f.record_rc[1] = -EIO;
	setup_ops(&d, &f, R45MON_WARN, NULL, 0, &desc_ops);
	fail(&f, 0);
	event(&d, &f);
	fail(&f, 4);
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x1;allow_writes 0;record 0x10;") && f.held,
	      "raid6, second not recorded: %s", f.seq);
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x1;allow_writes 0;record 0x10;record 0x10;allow_writes 0 4;") &&
	      !f.held, "raid6: %s", f.seq);

	/* dmeventd restarted with writes held: recorded first too */
	fake_init(&f, 4, "raid5_ls");
	fail(&f, 2);
	setup_ops(&d, &f, R45MON_WARN, NULL, 0, &desc_ops);
	CHECK(!strcmp(f.seq, "record 0x4;allow_writes 2;") && !f.held, "restart: %s", f.seq);

	/*
	 * a member dead when monitoring starts, writes not held (raid45ctl
	 * activate --degraded left it out, "- -"): recorded failed all the
	 * same (it misses the writes from now on), nothing to release
	 */
	fake_init(&f, 4, "raid5_ls");
	f.dead[1] = true;
	setup_ops(&d, &f, R45MON_WARN, NULL, 0, &desc_ops);
	CHECK(!strcmp(f.seq, "record 0x2;") && !f.held, "dead at the start: %s", f.seq);

	/*
	 * raid45ctl replace reloads with the member in place as
	 * <dev_to_init>; a small rebuild runs whole between two looks (seen
	 * in a guest: never "i" in a status the monitor read): its end is
	 * recorded all the same
	 */
	fake_init(&f, 4, "raid5_ls");
	f.dead[1] = true;
	setup_ops(&d, &f, R45MON_WARN, NULL, 0, &desc_ops);
	f.dead[1] = false;
	f.minor[1] = 60;
	f.dev_to_init = 1;
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;flush;rebuilt 1;"), "rebuild between two looks: %s", f.seq);
	CHECK(logged(&f, "rebuild of member 1 (254:60) finished between two looks: 100/100 regions in sync") == 1,
	      "logged");
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;flush;rebuilt 1;"), "recorded again: %s", f.seq);
	/* not while regions are out of sync: once they are in sync */
	fake_init(&f, 4, "raid5_ls");
	f.dead[1] = true;
	setup_ops(&d, &f, R45MON_WARN, NULL, 0, &desc_ops);
	f.dead[1] = false;
	f.minor[1] = 60;
	f.dev_to_init = 1;
	f.in_sync = 40;
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;"), "out of sync: %s", f.seq);
	f.in_sync = 100;
	event(&d, &f);
	CHECK(!strcmp(f.seq, "record 0x2;flush;rebuilt 1;"), "then in sync: %s", f.seq);
	/* monitoring starts after such a rebuild (activated, then registered) */
	fake_init(&f, 4, "raid5_ls");
	f.dev_to_init = 2;
	setup_ops(&d, &f, R45MON_WARN, NULL, 0, &desc_ops);
	CHECK(!strcmp(f.seq, "flush;rebuilt 2;"), "finished before monitoring: %s", f.seq);
	report("r45mon-record-before-allow-writes", before);
}

int main(void)
{
	test_warn();
	test_warn_refused();
	test_hold();
	test_spare();
	test_spare_choice();
	test_raid6_two();
	test_raid6_race();
	test_restart();
	test_changes();
	test_conf();
	test_descriptions();
	test_record();
	test_reload_unrecorded();
	test_replaced_retry();
	test_rebuilt_flushed();
	test_flush_hangs();
	test_reload_busy();
	return failures ? 1 : 0;
}
