// SPDX-License-Identifier: GPL-2.0
/*
 * Array descriptions (see r45desc.h): the strict parser, the formatter,
 * the table line they give and the geometry; the files and the records
 * in them are r45desc-file.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "r45desc.h"

static const char *const state_names[] = {
	[R45DESC_CURRENT] = "current",
	[R45DESC_FAILED] = "failed",
	[R45DESC_REBUILDING] = "rebuilding",
	[R45DESC_MISSING] = "missing",
};

static const char *const types[] = {
	"raid4", "raid5_la", "raid5_ra", "raid5_ls", "raid5_rs",
	"raid6_zr", "raid6_nr", "raid6_nc",
};

const char *r45desc_state_name(enum r45desc_state s)
{
	if ((unsigned int)s >= ARRAY_SIZE(state_names))
		return "unknown";
	return state_names[s];
}

const char *r45desc_dir(void)
{
	const char *d = getenv(R45DESC_DIR_ENV);

	return d && d[0] == '/' ? d : R45DESC_DIR_DEFAULT;
}

int r45desc_check_name(const char *name)
{
	size_t i, n = strlen(name);

	if (!n || n >= R45DESC_NAME_MAX || name[0] == '.' || name[0] == '-')
		return -EINVAL;
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' || c == '+'))
			return -EINVAL;
	}
	return 0;
}

unsigned int r45desc_parity_members(const char *type)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (!strcmp(type, types[i]))
			return strncmp(type, "raid6", 5) ? 1 : 2;
	return 0;
}

/* ---- parsing ---- */

#define MAX_WORDS 8

enum key {
	K_VERSION, K_NAME, K_UUID, K_TYPE, K_PARITY, K_CHUNK, K_REGION, K_SIZE,
	K_LOG, K_STRIPES, K_BANDWIDTH, K_PPL, K_BOOT_DEGRADED, K_MEMBERS, K_MEMBER, NR_KEYS
};

static const char *const keys[NR_KEYS] = {
	[K_VERSION] = "version", [K_NAME] = "name", [K_UUID] = "uuid",
	[K_TYPE] = "type", [K_PARITY] = "parity", [K_CHUNK] = "chunk",
	[K_REGION] = "region", [K_SIZE] = "size", [K_LOG] = "log",
	[K_STRIPES] = "stripes", [K_BANDWIDTH] = "bandwidth", [K_PPL] = "ppl",
	[K_BOOT_DEGRADED] = "boot-degraded",
	[K_MEMBERS] = "members", [K_MEMBER] = "member",
};

/* words each key takes after it: min, max */
static const unsigned char nargs[NR_KEYS][2] = {
	[K_VERSION] = { 1, 1 }, [K_NAME] = { 1, 1 }, [K_UUID] = { 1, 1 },
	[K_TYPE] = { 1, 1 }, [K_PARITY] = { 1, 1 }, [K_CHUNK] = { 1, 1 },
	[K_REGION] = { 1, 1 }, [K_SIZE] = { 1, 1 }, [K_LOG] = { 1, 3 },
	[K_STRIPES] = { 1, 1 }, [K_BANDWIDTH] = { 1, 1 }, [K_PPL] = { 3, 3 },
	[K_BOOT_DEGRADED] = { 1, 1 },
	[K_MEMBERS] = { 1, 1 }, [K_MEMBER] = { 4, 4 },
};

struct parser {
	const char *file;
	unsigned int line;
	char *err;
	size_t errsize;
	unsigned int seen[NR_KEYS];	/* line of the first one, 0: none */
	unsigned int version;		/* the file's */
};

__attribute__((format(printf, 2, 3)))
static int perr(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (!p->errsize)
		return -EINVAL;
	if (p->line)
		n = snprintf(p->err, p->errsize, "%s:%u: ", p->file, p->line);
	else
		n = snprintf(p->err, p->errsize, "%s: ", p->file);
	if (n < 0 || (size_t)n >= p->errsize)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errsize - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A decimal number (digits only) up to max: 0 or -EINVAL. */
static int num(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (x > max / 10)
			return -EINVAL;
		x *= 10;
		if ((uint64_t)(*s - '0') > max - x)
			return -EINVAL;
		x += (uint64_t)(*s - '0');
	}
	*v = x;
	return 0;
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* A number in min..max, else the message names key and the range. */
static int ranged(struct parser *p, const char *key, const char *s, uint64_t min,
		  uint64_t max, bool power, uint64_t *v)
{
	if (num(s, max, v) || *v < min || (power && !pow2(*v)))
		return perr(p, "%s \"%s\": must be %s%" PRIu64 "..%" PRIu64, key, s,
			    power ? "a power of two, " : "", min, max);
	return 0;
}

/* An absolute path that fits (the device need not exist yet). */
static int path_word(struct parser *p, const char *what, const char *s, char *dst)
{
	if (s[0] != '/')
		return perr(p, "%s \"%s\": must be an absolute path", what, s);
	if (strlen(s) >= R45DESC_PATH_MAX)
		return perr(p, "%s: path longer than %d bytes", what, R45DESC_PATH_MAX - 1);
	strcpy(dst, s);
	return 0;
}

static int parse_log(struct parser *p, struct r45desc *d, char **w, unsigned int n)
{
	unsigned int sync_at;

	if (!strcmp(w[0], "core")) {
		d->disk_log = false;
		sync_at = 1;
	} else if (!strcmp(w[0], "disk")) {
		if (n < 2)
			return perr(p, "log disk: the log device is missing (log disk <path> [sync|nosync])");
		if (path_word(p, "log device", w[1], d->log_dev))
			return -EINVAL;
		d->disk_log = true;
		sync_at = 2;
	} else {
		return perr(p, "log \"%s\": must be core or disk", w[0]);
	}
	if (n > sync_at + 1)
		return perr(p, "log: too many words (log core [sync|nosync], log disk <path> [sync|nosync])");
	d->nosync = false;
	if (n == sync_at + 1) {
		if (!strcmp(w[sync_at], "nosync"))
			d->nosync = true;
		else if (strcmp(w[sync_at], "sync"))
			return perr(p, "log: \"%s\" must be sync or nosync", w[sync_at]);
	}
	return 0;
}

static int parse_ppl(struct parser *p, struct r45desc *d, char **w)
{
	const char *o = w[0];
	uint64_t v;
	char *end;
	unsigned long long sig;

	if (num(o[0] == '-' ? o + 1 : o, INT64_MAX, &v))
		return perr(p, "ppl offset \"%s\": must be a whole number of sectors", o);
	d->ppl_offset = o[0] == '-' ? -(int64_t)v : (int64_t)v;
	if (ranged(p, "ppl size", w[1], 16, UINT32_MAX, false, &d->ppl_size))
		return -EINVAL;
	if (d->ppl_size % 8)
		return perr(p, "ppl size %" PRIu64 ": must be a multiple of 8 sectors", d->ppl_size);
	errno = 0;
	if (w[2][0] == '-' || w[2][0] == '+' || w[2][0] == ' ')
		return perr(p, "ppl signature \"%s\": must be decimal or 0x hex, 32 bits", w[2]);
	sig = strtoull(w[2], &end, 0);
	if (errno || *end || end == w[2] || sig > UINT32_MAX ||
	    (w[2][0] == '0' && w[2][1] && w[2][1] != 'x'))
		return perr(p, "ppl signature \"%s\": must be decimal or 0x hex, 32 bits", w[2]);
	d->ppl_signature = (uint32_t)sig;
	d->ppl = true;
	return 0;
}

static int parse_member(struct parser *p, struct r45desc *d, char **w)
{
	struct r45desc_member *m;
	uint64_t idx, off;
	unsigned int s;

	if (!p->seen[K_MEMBERS])
		return perr(p, "member before the \"members\" line");
	if (num(w[0], R45_MAX_MEMBERS, &idx) || idx >= d->nr_members)
		return perr(p, "member index \"%s\": must be 0..%u", w[0], d->nr_members - 1);
	/* members (nr) counts the member lines seen so far in m[] */
	if (idx != p->seen[K_MEMBER])
		return perr(p, "member %" PRIu64 ": expected member %u (member lines go in order, one per index)",
			    idx, p->seen[K_MEMBER]);
	m = &d->m[idx];
	for (s = 0; s < ARRAY_SIZE(state_names); s++)
		if (!strcmp(w[3], state_names[s]))
			break;
	if (s == ARRAY_SIZE(state_names))
		return perr(p, "member %" PRIu64 ": state \"%s\": must be current, failed, rebuilding or missing",
			    idx, w[3]);
	m->state = (enum r45desc_state)s;
	if (!strcmp(w[1], "-")) {
		if (strcmp(w[2], "-"))
			return perr(p, "member %" PRIu64 ": a member without a device (\"-\") has no offset (\"-\")", idx);
		if (m->state != R45DESC_MISSING)
			return perr(p, "member %" PRIu64 ": a member without a device (\"-\") must be missing, not %s",
				    idx, w[3]);
		m->path[0] = '\0';
		m->offset = 0;
	} else {
		char what[32];

		snprintf(what, sizeof(what), "member %" PRIu64, idx);
		if (path_word(p, what, w[1], m->path))
			return -EINVAL;
		if (num(w[2], INT64_MAX, &off))
			return perr(p, "member %" PRIu64 ": offset \"%s\": must be a whole number of sectors",
				    idx, w[2]);
		m->offset = off;
	}
	p->seen[K_MEMBER]++;
	return 0;
}

static int parse_line(struct parser *p, struct r45desc *d, char *buf)
{
	char *w[MAX_WORDS + 2], *save = NULL, *tok;
	unsigned int n = 0, k;
	uint64_t v;

	buf += strspn(buf, " \t");
	if (!*buf || *buf == '#')
		return 0;
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (n == MAX_WORDS + 1)
			return perr(p, "too many words");
		w[n++] = tok;
	}
	for (k = 0; k < NR_KEYS; k++)
		if (!strcmp(w[0], keys[k]))
			break;
	if (k == NR_KEYS)
		return perr(p, "unknown key \"%.40s\"", w[0]);
	if (n - 1 < nargs[k][0] || n - 1 > nargs[k][1]) {
		if (nargs[k][0] == nargs[k][1])
			return perr(p, "%s takes %u word%s, not %u", keys[k], nargs[k][0],
				    nargs[k][0] == 1 ? "" : "s", n - 1);
		return perr(p, "%s takes %u to %u words, not %u", keys[k], nargs[k][0],
			    nargs[k][1], n - 1);
	}
	if (k != K_MEMBER && p->seen[k])
		return perr(p, "%s given twice (first on line %u)", keys[k], p->seen[k]);
	if (k != K_VERSION && !p->seen[K_VERSION])
		return perr(p, "\"version <1..%d>\" must come before any other line but comments",
			    R45DESC_VERSION);
	switch (k) {
	case K_VERSION:
		if (num(w[1], 1000000, &v) || v < 1 || v > R45DESC_VERSION)
			return perr(p, "version \"%s\": this program reads versions 1..%d",
				    w[1], R45DESC_VERSION);
		p->version = (unsigned int)v;
		break;
	case K_NAME:
		if (r45desc_check_name(w[1]))
			return perr(p, "name \"%.60s\": 1..%d of A-Z a-z 0-9 _ - . +, not starting with . or -",
				    w[1], R45DESC_NAME_MAX - 1);
		strcpy(d->name, w[1]);
		break;
	case K_UUID:
		if (strlen(w[1]) >= R45DESC_UUID_MAX)
			return perr(p, "uuid longer than %d bytes", R45DESC_UUID_MAX - 1);
		strcpy(d->uuid, w[1]);
		break;
	case K_TYPE:
		if (!r45desc_parity_members(w[1]))
			return perr(p, "type \"%.40s\": must be raid4, raid5_la, raid5_ra, raid5_ls, raid5_rs, raid6_zr, raid6_nr or raid6_nc",
				    w[1]);
		strcpy(d->type, w[1]);
		break;
	case K_PARITY:
		if (!strcmp(w[1], "-1"))
			d->parity_dev = -1;
		else if (num(w[1], R45_MAX_MEMBERS - 1, &v))
			return perr(p, "parity \"%s\": must be -1 (the last member) or a member index", w[1]);
		else
			d->parity_dev = (int)v;
		break;
	case K_CHUNK:
		if (ranged(p, "chunk", w[1], 8, 16384, true, &v))
			return -EINVAL;
		d->chunk = (unsigned int)v;
		break;
	case K_REGION:
		if (ranged(p, "region", w[1], 8, 1u << 31, true, &v))
			return -EINVAL;
		d->region = (unsigned int)v;
		break;
	case K_SIZE:
		if (ranged(p, "size", w[1], 1, INT64_MAX, false, &d->size))
			return -EINVAL;
		break;
	case K_LOG:
		if (parse_log(p, d, w + 1, n - 1))
			return -EINVAL;
		break;
	case K_STRIPES:
		if (ranged(p, "stripes", w[1], 8, 16384, false, &v))
			return -EINVAL;
		d->stripes = (unsigned int)v;
		break;
	case K_BANDWIDTH:
		if (ranged(p, "bandwidth", w[1], 1, 100, false, &v))
			return -EINVAL;
		d->bandwidth = (unsigned int)v;
		break;
	case K_PPL:
		if (parse_ppl(p, d, w + 1))
			return -EINVAL;
		break;
	case K_BOOT_DEGRADED:
		if (p->version < 2)
			return perr(p, "boot-degraded is a version 2 key: the file says version %u",
				    p->version);
		if (!strcmp(w[1], "never"))
			d->boot_degraded = 0;
		else if (ranged(p, "boot-degraded", w[1], 1, R45DESC_BOOT_DEGRADED_MAX, false, &v))
			return perr(p, "boot-degraded \"%s\": must be never or 1..%d seconds",
				    w[1], R45DESC_BOOT_DEGRADED_MAX);
		else
			d->boot_degraded = (unsigned int)v;
		break;
	case K_MEMBERS:
		if (ranged(p, "members", w[1], 3, R45_MAX_MEMBERS, false, &v))
			return -EINVAL;
		d->nr_members = (unsigned int)v;
		break;
	case K_MEMBER:
		/* seen[K_MEMBER] counts the member lines */
		return parse_member(p, d, w + 1);
	default:
		return perr(p, "internal error: key %u", k);
	}
	p->seen[k] = p->line;
	return 0;
}

/* What only the whole file can tell. */
static int parse_end(struct parser *p, struct r45desc *d)
{
	static const enum key required[] = {
		K_VERSION, K_NAME, K_UUID, K_TYPE, K_CHUNK, K_REGION, K_SIZE, K_LOG, K_MEMBERS,
	};
	unsigned int i, j, data, parity;
	int rebuilding = -1;

	p->line = 0;
	for (i = 0; i < ARRAY_SIZE(required); i++)
		if (!p->seen[required[i]])
			return perr(p, "no \"%s\" line", keys[required[i]]);
	if (p->seen[K_MEMBER] != d->nr_members)
		return perr(p, "members %u, but %u member lines", d->nr_members, p->seen[K_MEMBER]);
	parity = r45desc_parity_members(d->type);
	if (parity == 2 && d->nr_members < 4)
		return perr(p, "%s needs at least 4 members, not %u", d->type, d->nr_members);
	if (p->seen[K_PARITY] && strcmp(d->type, "raid4"))
		return perr(p, "parity (line %u) is for raid4 only", p->seen[K_PARITY]);
	if (d->parity_dev >= (int)d->nr_members)
		return perr(p, "parity %d: there are only %u members", d->parity_dev, d->nr_members);
	if (d->ppl && parity == 2)
		return perr(p, "ppl (line %u): not for RAID6", p->seen[K_PPL]);
	data = d->nr_members - parity;
	if (d->size % ((uint64_t)data * d->chunk))
		return perr(p, "size %" PRIu64 ": must be a multiple of %u (chunk %u x %u data members)",
			    d->size, data * d->chunk, d->chunk, data);
	for (i = 0; i < d->nr_members; i++) {
		if (d->m[i].state == R45DESC_REBUILDING && rebuilding >= 0)
			return perr(p, "members %d and %u both rebuilding: one at a time",
				    rebuilding, i);
		if (d->m[i].state == R45DESC_REBUILDING)
			rebuilding = (int)i;
		if (!d->m[i].path[0])
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp(d->m[i].path, d->m[j].path))
				return perr(p, "members %u and %u are both %s", j, i, d->m[i].path);
		if (d->disk_log && !strcmp(d->m[i].path, d->log_dev))
			return perr(p, "member %u is the log device %s", i, d->log_dev);
	}
	return 0;
}

int r45desc_parse(const char *text, size_t len, const char *file,
		  struct r45desc *d, char *err, size_t errsize)
{
	struct parser p = { .file = file ? file : "-", .err = err, .errsize = errsize };
	char buf[R45DESC_LINE_MAX];
	size_t o = 0;
	int r;

	memset(d, 0, sizeof(*d));
	d->parity_dev = -1;
	if (errsize)
		err[0] = '\0';
	while (o < len) {
		const char *nl = memchr(text + o, '\n', len - o);
		size_t l = nl ? (size_t)(nl - (text + o)) : len - o;

		p.line++;
		if (l >= sizeof(buf))
			return perr(&p, "line longer than %d bytes", R45DESC_LINE_MAX - 1);
		memcpy(buf, text + o, l);
		buf[l] = '\0';
		o += l + (nl ? 1 : 0);
		if (strlen(buf) != l)
			return perr(&p, "a NUL byte in the line");
		if (l && buf[l - 1] == '\r')
			buf[--l] = '\0';
		for (size_t i = 0; i < l; i++)
			if ((unsigned char)buf[i] < ' ' && buf[i] != '\t')
				return perr(&p, "a control character (0x%02x) in the line",
					    (unsigned char)buf[i]);
		r = parse_line(&p, d, buf);
		if (r)
			return r;
	}
	return parse_end(&p, d);
}

/* ---- writing ---- */

int r45desc_format(const struct r45desc *d, char *buf, size_t size)
{
	size_t o = 0;
	unsigned int i;
	int n;

#define PUT(...) do { \
	n = snprintf(buf + o, size - o, __VA_ARGS__); \
	if (n < 0 || (size_t)n >= size - o) \
		return -ENOSPC; \
	o += (size_t)n; \
} while (0)
	if (!size)
		return -ENOSPC;
	/* the lowest version that says it all (r45desc.h) */
	PUT("version %d\n", d->boot_degraded ? 2 : 1);
	PUT("# raid45 array description: raid45ctl activates the array from it, the\n"
	    "# dmeventd plugin records failed members in it before writes go on.\n"
	    "# Member states: current, failed, rebuilding, missing (docs/raid45.rst).\n");
	PUT("name %s\nuuid %s\ntype %s\n", d->name, d->uuid, d->type);
	if (!strcmp(d->type, "raid4"))
		PUT("parity %d\n", d->parity_dev);
	PUT("chunk %u\nregion %u\nsize %" PRIu64 "\n", d->chunk, d->region, d->size);
	if (d->disk_log)
		PUT("log disk %s %s\n", d->log_dev, d->nosync ? "nosync" : "sync");
	else
		PUT("log core %s\n", d->nosync ? "nosync" : "sync");
	if (d->stripes)
		PUT("stripes %u\n", d->stripes);
	if (d->bandwidth)
		PUT("bandwidth %u\n", d->bandwidth);
	if (d->ppl)
		PUT("ppl %" PRId64 " %" PRIu64 " 0x%08" PRIx32 "\n", d->ppl_offset,
		    d->ppl_size, d->ppl_signature);
	if (d->boot_degraded)
		PUT("boot-degraded %u\n", d->boot_degraded);
	PUT("members %u\n", d->nr_members);
	for (i = 0; i < d->nr_members && i < R45_MAX_MEMBERS; i++) {
		const struct r45desc_member *m = &d->m[i];

		if (m->path[0])
			PUT("member %u %s %" PRIu64 " %s\n", i, m->path, m->offset,
			    r45desc_state_name(m->state));
		else
			PUT("member %u - - %s\n", i, r45desc_state_name(m->state));
	}
#undef PUT
	return 0;
}

int r45desc_table(const struct r45desc *d, unsigned int flags, char *buf, size_t size,
		  char *err, size_t errsize)
{
	unsigned int i, parity = r45desc_parity_members(d->type), out = 0;
	int dev_to_init = -1;
	const char *sync = d->nosync ? "nosync" : "sync";
	size_t o = 0;
	int n;

#define PUT(...) do { \
	n = snprintf(buf + o, size - o, __VA_ARGS__); \
	if (n < 0 || (size_t)n >= size - o) { \
		snprintf(err, errsize, "the table line is longer than %zu bytes", size); \
		return -ENOSPC; \
	} \
	o += (size_t)n; \
} while (0)
	if (!size)
		return -ENOSPC;
	for (i = 0; i < d->nr_members; i++) {
		if (d->m[i].state == R45DESC_CURRENT)
			continue;
		out++;
		if (d->m[i].state == R45DESC_REBUILDING)
			dev_to_init = (int)i;
	}
	if (!parity || d->nr_members > R45_MAX_MEMBERS) {
		snprintf(err, errsize, "%s: not a valid description", d->name);
		return -EINVAL;
	}
	if (out > parity) {
		snprintf(err, errsize, "%s: %u of %u members are not current (failed, missing or rebuilding), more than the %u parity member%s of %s can stand in for: the array cannot start",
			 d->name, out, d->nr_members, parity, parity == 1 ? "" : "s", d->type);
		return -EINVAL;
	}
	if (d->disk_log)
		PUT("disk 3 %s %u %s", d->log_dev, d->region, sync);
	else
		PUT("core 2 %u %s", d->region, sync);
	PUT(" %s", d->type);
	if (!strcmp(d->type, "raid4"))
		PUT(" %d", d->parity_dev);
	if (d->stripes || d->bandwidth) {
		PUT(" 5 %u", d->chunk);
		if (d->stripes)
			PUT(" %u", d->stripes);
		else
			PUT(" -1");
		PUT(" -1 -1");
		if (d->bandwidth)
			PUT(" %u", d->bandwidth);
		else
			PUT(" -1");
	} else {
		PUT(" 1 %u", d->chunk);
	}
	if (d->ppl)
		PUT(" ppl %" PRId64 " %" PRIu64 " 0x%08" PRIx32, d->ppl_offset, d->ppl_size,
		    d->ppl_signature);
	if (flags & R45DESC_START_DIRTY_DEGRADED)
		PUT(" start_dirty_degraded");
	PUT(" %u %d", d->nr_members, dev_to_init);
	for (i = 0; i < d->nr_members; i++) {
		const struct r45desc_member *m = &d->m[i];

		if (m->state == R45DESC_CURRENT || m->state == R45DESC_REBUILDING)
			PUT(" %s %" PRIu64, m->path, m->offset);
		else
			PUT(" - -");
	}
#undef PUT
	return 0;
}

/* ---- geometry ---- */

int r45desc_compute_size(const struct r45desc *d, const uint64_t *sectors,
			 uint64_t *size, char *err, size_t errsize)
{
	unsigned int i, parity = r45desc_parity_members(d->type), data;
	uint64_t room = UINT64_MAX;

	if (!parity || d->nr_members <= parity || d->nr_members > R45_MAX_MEMBERS || !d->chunk) {
		snprintf(err, errsize, "not a valid geometry");
		return -EINVAL;
	}
	data = d->nr_members - parity;
	for (i = 0; i < d->nr_members; i++) {
		uint64_t r;

		if (!d->m[i].path[0])
			continue;
		r = sectors[i] > d->m[i].offset ? sectors[i] - d->m[i].offset : 0;
		r -= r % d->chunk;
		if (!r) {
			snprintf(err, errsize, "member %u (%s): %" PRIu64 " sectors, no room for one chunk (%u sectors) after its offset %" PRIu64,
				 i, d->m[i].path, sectors[i], d->chunk, d->m[i].offset);
			return -EINVAL;
		}
		if (r < room)
			room = r;
	}
	if (room == UINT64_MAX) {
		snprintf(err, errsize, "no member with a device");
		return -EINVAL;
	}
	if (room > INT64_MAX / data) {
		snprintf(err, errsize, "members too large");
		return -EINVAL;
	}
	*size = room * data;
	return 0;
}

unsigned int r45desc_default_region(uint64_t size, unsigned int chunk, unsigned int data)
{
	uint64_t want = (uint64_t)chunk * data, r = 1024;

	if (want < size >> 20)
		want = size >> 20;
	while (r < want && r < (1u << 31))
		r <<= 1;
	return (unsigned int)r;
}

uint64_t r45desc_disk_log_sectors(uint64_t size, unsigned int region)
{
	uint64_t regions = region ? (size + region - 1) / region : 0;
	/* 32-bit words of bits, after 2 header sectors, in 4 KiB blocks */
	uint64_t bytes = 1024 + (regions + 31) / 32 * 4;

	return (bytes + 4095) / 4096 * 8;
}
