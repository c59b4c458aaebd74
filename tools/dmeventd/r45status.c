// SPDX-License-Identifier: GPL-2.0
/*
 * raid45 status and table lines, parsed (see r45status.h).  Every word is
 * checked: counts against what follows them, numbers for overflow and
 * stray characters; the line is never written to and no word is copied
 * without its length checked, so any input ends in 0 or -EINVAL.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "r45status.h"

struct cursor {
	const char *p;
};

struct word {
	const char *s;
	size_t len;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The next word, or false at the end of the line. */
static bool next_word(struct cursor *c, struct word *w)
{
	const char *p = c->p;

	while (*p && is_space(*p))
		p++;
	if (!*p) {
		c->p = p;
		return false;
	}
	w->s = p;
	while (*p && !is_space(*p))
		p++;
	w->len = p - w->s;
	c->p = p;
	return true;
}

static bool word_is(const struct word *w, const char *s)
{
	return w->len == strlen(s) && !memcmp(w->s, s, w->len);
}

/* A decimal number of at most 64 bits, nothing else in the word. */
static int word_u64(const struct word *w, uint64_t *val)
{
	uint64_t v = 0;
	size_t i;

	if (!w->len)
		return -EINVAL;
	for (i = 0; i < w->len; i++) {
		unsigned int d;

		if (w->s[i] < '0' || w->s[i] > '9')
			return -EINVAL;
		d = w->s[i] - '0';
		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*val = v;
	return 0;
}

static int word_uint(const struct word *w, unsigned int max, unsigned int *val)
{
	uint64_t v;

	if (word_u64(w, &v) || v > max)
		return -EINVAL;
	*val = (unsigned int)v;
	return 0;
}

static int next_u64(struct cursor *c, uint64_t *val)
{
	struct word w;

	if (!next_word(c, &w))
		return -EINVAL;
	return word_u64(&w, val);
}

static int next_uint(struct cursor *c, unsigned int max, unsigned int *val)
{
	struct word w;

	if (!next_word(c, &w))
		return -EINVAL;
	return word_uint(&w, max, val);
}

/* "maj:min" (each at most 2^32 - 1). */
static int word_devno(const struct word *w, unsigned int *major,
		      unsigned int *minor)
{
	const char *colon = memchr(w->s, ':', w->len);
	struct word a, b;

	if (!colon)
		return -EINVAL;
	a.s = w->s;
	a.len = colon - w->s;
	b.s = colon + 1;
	b.len = w->len - a.len - 1;
	if (word_uint(&a, UINT32_MAX, major) || word_uint(&b, UINT32_MAX, minor))
		return -EINVAL;
	return 0;
}

int r45_parse_devno(const char *s, unsigned int *major, unsigned int *minor)
{
	struct word w = { s, strlen(s) };

	return word_devno(&w, major, minor);
}

/* Copy a word into a buffer of R45_WORD_MAX: -EINVAL if too long. */
static int word_copy(const struct word *w, char *buf)
{
	if (w->len >= R45_WORD_MAX)
		return -EINVAL;
	memcpy(buf, w->s, w->len);
	buf[w->len] = '\0';
	return 0;
}

static int next_copy(struct cursor *c, char *buf)
{
	struct word w;

	if (!next_word(c, &w))
		return -EINVAL;
	return word_copy(&w, buf);
}

static const char *const action_names[] = {
	[R45_ACTION_IDLE] = "idle",
	[R45_ACTION_RESYNC] = "resync",
	[R45_ACTION_RECOVER] = "recover",
	[R45_ACTION_CHECK] = "check",
	[R45_ACTION_REPAIR] = "repair",
	[R45_ACTION_FROZEN] = "frozen",
};

const char *r45_action_name(enum r45_action a)
{
	if ((unsigned int)a >= ARRAY_SIZE(action_names))
		return "unknown";
	return action_names[a];
}

/* The health word: one A|D per member, each optionally followed by p, i. */
static int parse_health(const struct word *w, struct r45_status *st)
{
	unsigned int m = 0, parity = 0;
	size_t i = 0;

	while (i < w->len) {
		struct r45_member *mem;

		if (m >= st->nr_members)
			return -EINVAL;
		mem = &st->members[m++];
		if (w->s[i] == 'D')
			mem->dead = true;
		else if (w->s[i] != 'A')
			return -EINVAL;
		i++;
		if (i < w->len && w->s[i] == 'p') {
			mem->parity = true;
			parity++;
			i++;
		}
		if (i < w->len && w->s[i] == 'i') {
			mem->rebuilding = true;
			i++;
		}
	}
	/* one letter per member; RAID4 has one parity member */
	if (m != st->nr_members || parity > 1)
		return -EINVAL;
	return 0;
}

/* The log's status: <count> and that many words. */
static int parse_log(struct cursor *c, struct r45_status *st)
{
	unsigned int n, i;
	struct word w;

	if (next_uint(c, 16, &n) || n < 1)
		return -EINVAL;
	if (next_copy(c, st->log_type))
		return -EINVAL;
	if (!strcmp(st->log_type, "disk")) {
		/* "3 disk <maj:min> <A|D|F>" */
		if (n != 3 || !next_word(c, &w) ||
		    word_devno(&w, &st->log_major, &st->log_minor))
			return -EINVAL;
		st->log_has_dev = true;
		if (!next_word(c, &w) || w.len != 1 || !strchr("ADF", w.s[0]))
			return -EINVAL;
		st->log_state = w.s[0];
		return 0;
	}
	if (!strcmp(st->log_type, "core") && n != 1)
		return -EINVAL;
	/* another log type: its words are skipped */
	for (i = 1; i < n; i++)
		if (!next_word(c, &w))
			return -EINVAL;
	return 0;
}

/* "<n>/<m>" with n <= m: 0, or -EINVAL (nothing set). */
static int word_fraction(const struct word *w, uint64_t *n, uint64_t *m)
{
	const char *slash = memchr(w->s, '/', w->len);
	struct word a, b;

	if (!slash)
		return -EINVAL;
	a.s = w->s;
	a.len = (size_t)(slash - w->s);
	b.s = slash + 1;
	b.len = w->len - a.len - 1;
	if (word_u64(&a, n) || word_u64(&b, m) || *n > *m)
		return -EINVAL;
	return 0;
}

/*
 * The action's progress: "<done>/<total>" sectors (total > 0) or "-"
 * when no action runs.  -EINVAL for another word (nothing set).
 */
static int parse_progress(const struct word *w, struct r45_status *st)
{
	uint64_t done, total;

	if (word_is(w, "-")) {
		st->has_progress = true;
		return 0;
	}
	if (word_fraction(w, &done, &total) || !total)
		return -EINVAL;
	st->has_progress = true;
	st->progress_running = true;
	st->progress_done = done;
	st->progress_total = total;
	return 0;
}

/* <ppl|journal|journal-failed|journal-dead|-> into st: false if none */
static bool log_word(const struct word *w, struct r45_status *st)
{
	if (word_is(w, "ppl"))
		st->ppl = true;
	else if (word_is(w, "journal"))
		st->journal = R45_JOURNAL_OK;
	else if (word_is(w, "journal-failed"))
		st->journal = R45_JOURNAL_FAILED;
	else if (word_is(w, "journal-dead"))
		st->journal = R45_JOURNAL_DEAD;
	else if (!word_is(w, "-"))
		return false;
	return true;
}

int r45_status_parse(const char *line, struct r45_status *st)
{
	struct cursor c = { line };
	bool after_ppl = false;
	unsigned int i, n;
	struct word w;

	memset(st, 0, sizeof(*st));
	if (!line)
		return -EINVAL;
	if (next_uint(&c, R45_MAX_MEMBERS, &st->nr_members) || !st->nr_members)
		return -EINVAL;
	for (i = 0; i < st->nr_members; i++) {
		if (!next_word(&c, &w))
			return -EINVAL;
		if (w.len == 1 && w.s[0] == '-')
			st->members[i].missing = true;
		else if (word_devno(&w, &st->members[i].major,
				    &st->members[i].minor))
			return -EINVAL;
	}
	/* the number of health words: always 1 */
	if (next_uint(&c, 1, &n) || n != 1)
		return -EINVAL;
	if (!next_word(&c, &w) || parse_health(&w, st))
		return -EINVAL;

	/* <in_sync>/<regions> */
	if (!next_word(&c, &w) ||
	    word_fraction(&w, &st->in_sync, &st->regions))
		return -EINVAL;

	if (parse_log(&c, st))
		return -EINVAL;

	if (!next_word(&c, &w))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(action_names); i++)
		if (word_is(&w, action_names[i]))
			break;
	if (i == ARRAY_SIZE(action_names))
		return -EINVAL;
	st->action = (enum r45_action)i;

	if (next_u64(&c, &st->mismatches))
		return -EINVAL;
	if (!next_word(&c, &w))
		return -EINVAL;
	if (word_is(&w, "held"))
		st->held = true;
	else if (!word_is(&w, "writable"))
		return -EINVAL;
	if (next_u64(&c, &st->read_errors_repaired) ||
	    next_u64(&c, &st->unprotected_regions))
		return -EINVAL;

	/*
	 * then, since issue 26, <unsafe_reads> <ppl|-> (since issue 34 the
	 * journal's words there too)
	 */
	{
		struct cursor save = c;

		if (!next_u64(&c, &st->unsafe_reads)) {
			st->has_unsafe = true;
			save = c;
			if (next_word(&c, &w) && log_word(&w, st)) {
				after_ppl = true;
			} else {
				c = save;
			}
		} else {
			c = save;
		}
	}

	/*
	 * Then "stats" and its counters (statistics on), then, since issue
	 * 35, the action's progress (<done>/<total> or -), appended after
	 * them; later versions may append more.
	 */
	while (next_word(&c, &w)) {
		if (!st->has_stats && !st->has_progress &&
		    word_is(&w, "stats")) {
			for (i = 0; i < R45_NR_STATS; i++)
				if (next_u64(&c, &st->stats[i]))
					return -EINVAL;
			st->has_stats = true;
			continue;
		}
		if (after_ppl && !st->has_progress && !st->nr_unknown_words &&
		    !parse_progress(&w, st))
			continue;
		st->nr_unknown_words++;
	}
	return 0;
}

unsigned int r45_status_nr_dead(const struct r45_status *st)
{
	unsigned int i, n = 0;

	for (i = 0; i < st->nr_members; i++)
		n += st->members[i].dead;
	return n;
}

int r45_status_rebuilding(const struct r45_status *st)
{
	unsigned int i;

	for (i = 0; i < st->nr_members; i++)
		if (st->members[i].rebuilding)
			return (int)i;
	return -1;
}

void r45_status_health(const struct r45_status *st, char *buf, size_t size)
{
	size_t o = 0;
	unsigned int i;

	if (!size)
		return;
	for (i = 0; i < st->nr_members && o + 4 <= size; i++) {
		buf[o++] = st->members[i].dead ? 'D' : 'A';
		if (st->members[i].parity)
			buf[o++] = 'p';
		if (st->members[i].rebuilding)
			buf[o++] = 'i';
	}
	buf[o] = '\0';
}

/* ---- the table line ---- */

int r45_table_parse(const char *line, struct r45_table *t)
{
	struct cursor c = { line };
	struct cursor save;
	unsigned int i;
	struct word w;
	uint64_t v;

	memset(t, 0, sizeof(*t));
	if (!line)
		return -EINVAL;
	if (next_copy(&c, t->log_type) ||
	    next_uint(&c, R45_MAX_LOG_PARAMS, &t->nr_log_params))
		return -EINVAL;
	for (i = 0; i < t->nr_log_params; i++)
		if (next_copy(&c, t->log_params[i]))
			return -EINVAL;
	if (next_copy(&c, t->raid_type))
		return -EINVAL;
	if (strcmp(t->raid_type, "raid4") && strncmp(t->raid_type, "raid5_", 6) &&
	    strncmp(t->raid_type, "raid6_", 6))
		return -EINVAL;
	if (!strcmp(t->raid_type, "raid4")) {
		/* "dmsetup table" always prints the parity index */
		if (next_copy(&c, t->parity_dev))
			return -EINVAL;
		t->has_parity_dev = true;
	}
	if (next_uint(&c, R45_MAX_RAID_PARAMS, &t->nr_raid_params))
		return -EINVAL;
	for (i = 0; i < t->nr_raid_params; i++)
		if (next_copy(&c, t->raid_params[i]))
			return -EINVAL;
	/* the options, each at most once: kept as words */
	for (;;) {
		unsigned int n = 0, k;

		save = c;
		if (!next_word(&c, &w))
			return -EINVAL;
		if (word_is(&w, "locking"))
			n = 2;
		else if (word_is(&w, "start_dirty_degraded"))
			n = 1;
		else if (word_is(&w, "ppl"))
			n = 4;
		else if (word_is(&w, "journal_dev") ||
			 word_is(&w, "journal_mode"))
			n = 2;
		if (!n) {
			c = save;
			break;
		}
		if (t->nr_opts + n > R45_MAX_OPT_WORDS)
			return -EINVAL;
		c = save;
		for (k = 0; k < n; k++)
			if (next_copy(&c, t->opts[t->nr_opts++]))
				return -EINVAL;
		if (n == 2 && !strcmp(t->opts[t->nr_opts - 2], "locking") &&
		    strcmp(t->opts[t->nr_opts - 1], "none"))
			return -EINVAL;	/* the target takes locking none only */
		if (n == 2 && !strcmp(t->opts[t->nr_opts - 2], "journal_mode") &&
		    strcmp(t->opts[t->nr_opts - 1], "writethrough"))
			return -EINVAL;	/* and no other journal mode yet */
	}
	if (next_uint(&c, R45_MAX_MEMBERS, &t->nr_devs) || !t->nr_devs)
		return -EINVAL;
	if (!next_word(&c, &w))
		return -EINVAL;
	if (word_is(&w, "-1")) {
		t->dev_to_init = -1;
	} else {
		if (word_uint(&w, t->nr_devs - 1, &i))
			return -EINVAL;
		t->dev_to_init = (int)i;
	}
	for (i = 0; i < t->nr_devs; i++) {
		if (next_copy(&c, t->devs[i]))
			return -EINVAL;
		if (!strcmp(t->devs[i], "-")) {
			if (!next_word(&c, &w) || !word_is(&w, "-"))
				return -EINVAL;
			t->missing[i] = true;
			continue;
		}
		if (next_u64(&c, &v))
			return -EINVAL;
		t->offsets[i] = v;
	}
	if (next_word(&c, &w))
		return -EINVAL;
	return 0;
}

/* Append to buf at *o: false if it does not fit. */
__attribute__((format(printf, 4, 5)))
static bool put(char *buf, size_t size, size_t *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*o >= size)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(buf + *o, size - *o, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *o)
		return false;
	*o += n;
	return true;
}

int r45_table_format(const struct r45_table *t, char *buf, size_t size)
{
	size_t o = 0;
	unsigned int i;
	bool ok;

	ok = put(buf, size, &o, "%s %u", t->log_type, t->nr_log_params);
	for (i = 0; ok && i < t->nr_log_params; i++)
		ok = put(buf, size, &o, " %s", t->log_params[i]);
	ok = ok && put(buf, size, &o, " %s", t->raid_type);
	if (ok && t->has_parity_dev)
		ok = put(buf, size, &o, " %s", t->parity_dev);
	ok = ok && put(buf, size, &o, " %u", t->nr_raid_params);
	for (i = 0; ok && i < t->nr_raid_params; i++)
		ok = put(buf, size, &o, " %s", t->raid_params[i]);
	for (i = 0; ok && i < t->nr_opts; i++)
		ok = put(buf, size, &o, " %s", t->opts[i]);
	ok = ok && put(buf, size, &o, " %u %d", t->nr_devs, t->dev_to_init);
	for (i = 0; ok && i < t->nr_devs; i++)
		if (t->missing[i])
			ok = put(buf, size, &o, " - -");
		else
			ok = put(buf, size, &o, " %s %llu", t->devs[i],
				 (unsigned long long)t->offsets[i]);
	return ok ? 0 : -ENOSPC;
}

unsigned int r45_table_parity_members(const struct r45_table *t)
{
	return strncmp(t->raid_type, "raid6", 5) ? 1 : 2;
}

void r45_table_core_nosync(struct r45_table *t)
{
	if (strcmp(t->log_type, "core"))
		return;
	if (t->nr_log_params == 1) {
		t->nr_log_params = 2;
		strcpy(t->log_params[1], "nosync");
	} else if (t->nr_log_params == 2) {
		strcpy(t->log_params[1], "nosync");
	}
	if (t->nr_raid_params >= 6 && !strcmp(t->raid_params[5], "sync"))
		strcpy(t->raid_params[5], "-1");
}

int r45_progress_get(const struct r45_status *first, const struct r45_status *second,
		     double seconds, struct r45_progress *p)
{
	memset(p, 0, sizeof(*p));
	if (!second->has_progress)
		return -EINVAL;
	p->action = second->action;
	if (!second->progress_running)
		return 0;
	p->running = true;
	p->done = second->progress_done;
	p->total = second->progress_total;
	/* a frozen action does not move: its rate would only say so */
	if (!first || !first->progress_running || seconds <= 0 ||
	    first->action != second->action || second->action == R45_ACTION_FROZEN ||
	    first->progress_total != second->progress_total ||
	    first->progress_done > second->progress_done)
		return 0;
	p->has_rate = true;
	p->rate = (double)(second->progress_done - first->progress_done) / seconds;
	if (p->rate > 0) {
		double eta = (double)(p->total - p->done) / p->rate;

		p->has_eta = true;
		/* a rate of a sector in years: no ETA worth printing */
		if (eta > (double)UINT32_MAX)
			p->has_eta = false;
		else
			p->eta = (uint64_t)(eta + 0.5);
	}
	return 0;
}

static void size_str_d(double sectors, char *buf, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = sectors / 2;
	unsigned int u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.2f %s", v, units[u]);
}

void r45_size_str(uint64_t sectors, char *buf, size_t size)
{
	size_str_d((double)sectors, buf, size);
}

static void duration_str(uint64_t s, char *buf, size_t size)
{
	if (s >= 86400)
		snprintf(buf, size, "%llud%02lluh", (unsigned long long)(s / 86400),
			 (unsigned long long)(s % 86400 / 3600));
	else if (s >= 3600)
		snprintf(buf, size, "%lluh%02llum", (unsigned long long)(s / 3600),
			 (unsigned long long)(s % 3600 / 60));
	else if (s >= 60)
		snprintf(buf, size, "%llum%02llus", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
	else
		snprintf(buf, size, "%llus", (unsigned long long)s);
}

void r45_progress_format(const struct r45_progress *p, char *buf, size_t size)
{
	char done[32], total[32], rate[32], eta[32];
	size_t o;

	if (!size)
		return;
	if (!p->running || !p->total) {
		snprintf(buf, size, "-");
		return;
	}
	r45_size_str(p->done, done, sizeof(done));
	r45_size_str(p->total, total, sizeof(total));
	/* rounded down: 100.0% only when done */
	snprintf(buf, size, "%.1f%% (%s of %s)",
		 (double)(uint64_t)((double)p->done * 1000 / p->total) / 10, done, total);
	if (!p->has_rate)
		return;
	o = strlen(buf);
	if (p->rate <= 0) {
		snprintf(buf + o, size - o, ", stalled");
		return;
	}
	size_str_d(p->rate, rate, sizeof(rate));
	if (p->has_eta) {
		duration_str(p->eta, eta, sizeof(eta));
		snprintf(buf + o, size - o, ", %s/s, ETA %s", rate, eta);
	} else {
		snprintf(buf + o, size - o, ", %s/s", rate);
	}
}
