// SPDX-License-Identifier: GPL-2.0
/*
 * dmraid's RAID4/5/6 table lines as raid45 table lines (see r45dmraid.h).
 * Every word is checked (numbers for overflow and stray characters,
 * counts against the words that follow them, the geometry against what
 * the target accepts), so that a line either converts whole or is
 * refused with the reason: nothing half-converted is ever loaded.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "r45dmraid.h"

/* longest table line read; 32 members of R45DM_PATH_MAX fit */
#define LINE_MAX_LEN 16384
#define MAX_WORDS 160

struct words {
	char buf[LINE_MAX_LEN];
	unsigned int n;
	const char *w[MAX_WORDS];
};

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errsize, const char *fmt, ...)
{
	va_list ap;

	if (errsize) {
		va_start(ap, fmt);
		vsnprintf(err, errsize, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Split a line (up to its end or a newline) into words. */
static int split(const char *line, size_t len, struct words *ws, char *err,
		 size_t errsize)
{
	char *p;

	if (len >= sizeof(ws->buf))
		return fail(err, errsize, "table line longer than %d characters", LINE_MAX_LEN - 1);
	memcpy(ws->buf, line, len);
	ws->buf[len] = '\0';
	ws->n = 0;
	p = ws->buf;
	for (;;) {
		while (*p && is_space(*p))
			*p++ = '\0';
		if (!*p)
			break;
		if (ws->n == MAX_WORDS)
			return fail(err, errsize, "table line of more than %d words", MAX_WORDS);
		ws->w[ws->n++] = p;
		while (*p && !is_space(*p))
			p++;
	}
	return 0;
}

/* A plain decimal number (no sign, no spaces) of at most max. */
static bool get_u64(const char *s, uint64_t max, uint64_t *val)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*val = v;
	return true;
}

static bool get_uint(const char *s, unsigned int max, unsigned int *val)
{
	uint64_t v;

	if (!get_u64(s, max, &v))
		return false;
	*val = (unsigned int)v;
	return true;
}

/* -1 or 0..max */
static bool get_idx(const char *s, unsigned int max, int *val)
{
	unsigned int v;

	if (!strcmp(s, "-1")) {
		*val = -1;
		return true;
	}
	if (!get_uint(s, max, &v))
		return false;
	*val = (int)v;
	return true;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* The RAID types both targets share, by their dm-raid names. */
static const struct {
	const char *dm_raid;	/* dm-raid's name */
	const char *raid45;	/* ours */
	unsigned int parity;
} types[] = {
	{ "raid4", "raid4", 1 },	/* dm-raid: parity on the last member */
	{ "raid5_n", "raid4", 1 },	/* the same layout */
	{ "raid5_la", "raid5_la", 1 },
	{ "raid5_ra", "raid5_ra", 1 },
	{ "raid5_ls", "raid5_ls", 1 },
	{ "raid5_rs", "raid5_rs", 1 },
	{ "raid6_zr", "raid6_zr", 2 },
	{ "raid6_nr", "raid6_nr", 2 },
	{ "raid6_nc", "raid6_nc", 2 },
};

static int find_type(const char *name, bool raid45_names)
{
	unsigned int i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(name, raid45_names ? types[i].raid45 : types[i].dm_raid))
			return (int)i;
	return -1;
}

static unsigned int parity_of(const char *raid45_type)
{
	return strncmp(raid45_type, "raid6", 5) ? 1 : 2;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/*
 * A member dmraid names missing: "-"; the error target it creates in a
 * missing member's place, <dm dir>/<set name>_err_target; or /dev/zero,
 * which it writes for a disk whose metadata it does not trust (a disk
 * left behind by a set whose members changed, seen in the guest).
 */
static bool member_missing(const char *dev, const char *name)
{
	static const char suffix[] = "_err_target";
	const char *b = base_name(dev);
	size_t nl = strlen(name);

	if (!strcmp(dev, "-") || !strcmp(dev, "/dev/zero"))
		return true;
	return b != dev && strlen(b) == nl + sizeof(suffix) - 1 &&
	       !strncmp(b, name, nl) && !strcmp(b + nl, suffix);
}

static int set_member(struct r45dm_set *s, unsigned int i, const char *dev,
		      const char *name, char *err, size_t errsize)
{
	unsigned int j;

	if (member_missing(dev, name)) {
		s->devs[i][0] = '\0';
		s->nr_missing++;
		return 0;
	}
	if (strlen(dev) >= R45DM_PATH_MAX)
		return fail(err, errsize, "member %u: path longer than %d characters", i,
			    R45DM_PATH_MAX - 1);
	for (j = 0; j < i; j++)
		if (!strcmp(s->devs[j], dev))
			return fail(err, errsize, "member %s named twice", dev);
	strcpy(s->devs[i], dev);
	return 0;
}

/*
 * dmraid's region size if it is at least a chunk (a power of two at
 * least the chunk is a multiple of it), else the smallest power of two
 * that holds a row (chunk times data members): device-mapper cuts
 * requests at region boundaries, and a region smaller than a row would
 * cut every full-stripe write into partial ones.
 */
static unsigned int pick_region(unsigned int given, unsigned int chunk,
				unsigned int data)
{
	uint64_t row = (uint64_t)chunk * data, r = 8;

	if (given >= chunk && is_pow2(given))
		return given;
	while (r < row)
		r <<= 1;
	return (unsigned int)r;
}

/* The checks the target makes too, with dmraid's words for them. */
static int check_geometry(struct r45dm_set *s, char *err, size_t errsize)
{
	unsigned int parity = parity_of(s->raid_type), data, min;

	min = parity == 2 ? 4 : 3;
	if (s->nr_devs < min || s->nr_devs > R45DM_MAX_MEMBERS)
		return fail(err, errsize, "%u members: %s needs %u to %d", s->nr_devs,
			    s->raid_type, min, R45DM_MAX_MEMBERS);
	data = s->nr_devs - parity;
	if (!is_pow2(s->chunk) || s->chunk < 8 || s->chunk > 16384)
		return fail(err, errsize, "chunk size %u: raid45 takes a power of two of 8..16384 sectors",
			    s->chunk);
	if (!s->len || s->len % data || (s->len / data) % s->chunk)
		return fail(err, errsize, "length %llu does not divide into %u data members of whole %u-sector chunks",
			    (unsigned long long)s->len, data, s->chunk);
	if (s->nr_missing > parity)
		return fail(err, errsize, "%u of %u members missing: %s survives %u",
			    s->nr_missing, s->nr_devs, s->raid_type, parity);
	if (s->dev_to_init >= (int)s->nr_devs)
		return fail(err, errsize, "member to rebuild %d: the set has %u members",
			    s->dev_to_init, s->nr_devs);
	if (s->dev_to_init >= 0 && !s->devs[s->dev_to_init][0])
		return fail(err, errsize, "member to rebuild %d is missing", s->dev_to_init);
	if (s->dev_to_init >= 0 && s->nr_missing + 1 > parity)
		return fail(err, errsize, "member %d to rebuild with %u missing: nothing left to rebuild it from",
			    s->dev_to_init, s->nr_missing);
	return 0;
}

/* 0 <len> raid <type> <#params> <chunk> [...] <#devs> (<meta> <dev>)... */
static int parse_raid(const struct words *ws, const char *name, struct r45dm_set *s,
		      char *err, size_t errsize)
{
	unsigned int i = 3, nr_params, end, k, region = 0;
	bool have_sync = false, have_rebuild = false;
	int t;

	if (ws->n < 6)
		return fail(err, errsize, "dm-raid line too short");
	t = find_type(ws->w[i], false);
	if (t < 0) {
		if (!strcmp(ws->w[i], "raid0") || !strcmp(ws->w[i], "raid1") ||
		    !strcmp(ws->w[i], "raid10"))
			return fail(err, errsize, "a %s set: raid45 does RAID4/5/6 only (leave %s sets to dmraid)",
				    ws->w[i], ws->w[i]);
		return fail(err, errsize, "RAID type %s: raid45 has no such layout", ws->w[i]);
	}
	strcpy(s->raid_type, types[t].raid45);
	i++;
	if (!get_uint(ws->w[i], MAX_WORDS, &nr_params) || !nr_params)
		return fail(err, errsize, "number of dm-raid parameters \"%s\"", ws->w[i]);
	i++;
	end = i + nr_params;
	if (end >= ws->n)
		return fail(err, errsize, "%u dm-raid parameters announced, fewer given", nr_params);
	if (!get_uint(ws->w[i], 1u << 30, &s->chunk))
		return fail(err, errsize, "chunk size \"%s\"", ws->w[i]);
	for (i++; i < end; i++) {
		const char *w = ws->w[i];

		if (!strcmp(w, "sync") || !strcmp(w, "nosync")) {
			if (have_sync)
				return fail(err, errsize, "sync and nosync given twice");
			have_sync = true;
			s->nosync = !strcmp(w, "nosync");
		} else if (!strcmp(w, "region_size")) {
			if (region || i + 1 >= end)
				return fail(err, errsize, "region_size given twice or without a value");
			i++;
			if (!get_uint(ws->w[i], 1u << 31, &region) || !is_pow2(region) ||
			    region < 8)
				return fail(err, errsize, "region size \"%s\": a power of two of at least 8 sectors",
					    ws->w[i]);
		} else if (!strcmp(w, "rebuild")) {
			if (have_rebuild)
				return fail(err, errsize, "more than one member to rebuild: raid45 rebuilds one at a time");
			if (i + 1 >= end ||
			    !get_idx(ws->w[i + 1], R45DM_MAX_MEMBERS - 1, &s->dev_to_init) ||
			    s->dev_to_init < 0)
				return fail(err, errsize, "rebuild without a member index");
			have_rebuild = true;
			i++;
		} else {
			return fail(err, errsize, "dm-raid parameter \"%s\": not one raid45 can take (sync, nosync, region_size, rebuild)",
				    w);
		}
	}
	if (!get_uint(ws->w[i], R45DM_MAX_MEMBERS, &s->nr_devs) || s->nr_devs < 2)
		return fail(err, errsize, "number of members \"%s\"", ws->w[i]);
	i++;
	if (ws->n - i != 2 * s->nr_devs)
		return fail(err, errsize, "%u members announced, %u words for them (a metadata device and a device each)",
			    s->nr_devs, ws->n - i);
	for (k = 0; k < s->nr_devs; k++, i += 2) {
		if (strcmp(ws->w[i], "-"))
			return fail(err, errsize, "member %u has metadata device %s: dm-raid superblocks have no raid45 equivalent",
				    k, ws->w[i]);
		if (set_member(s, k, ws->w[i + 1], name, err, errsize))
			return -EINVAL;
		s->offsets[k] = 0;
	}
	s->given_region = region;
	s->region = pick_region(region, s->chunk, s->nr_devs - parity_of(s->raid_type));
	return 0;
}

/*
 * 0 <len> raid45 core 2 <region> sync|nosync <type> 1 <chunk> <#devs>
 * <idx> (<dev> <offset>)...  (dmraid writes raid4 without a parity index)
 */
static int parse_raid45(const struct words *ws, const char *name, struct r45dm_set *s,
			char *err, size_t errsize)
{
	unsigned int i, k;

	if (ws->n < 12)
		return fail(err, errsize, "raid45 line too short");
	if (strcmp(ws->w[3], "core") || strcmp(ws->w[4], "2"))
		return fail(err, errsize, "log \"%s %s\": dmraid writes \"core 2 <region> sync|nosync\"",
			    ws->w[3], ws->w[4]);
	if (!get_uint(ws->w[5], 1u << 31, &s->region) || !is_pow2(s->region) || s->region < 8)
		return fail(err, errsize, "region size \"%s\": a power of two of at least 8 sectors",
			    ws->w[5]);
	s->given_region = s->region;
	if (strcmp(ws->w[6], "sync") && strcmp(ws->w[6], "nosync"))
		return fail(err, errsize, "\"%s\" where sync or nosync belongs", ws->w[6]);
	s->nosync = !strcmp(ws->w[6], "nosync");
	if (find_type(ws->w[7], true) < 0)
		return fail(err, errsize, "RAID type %s: raid45 has no such layout", ws->w[7]);
	strcpy(s->raid_type, ws->w[7]);
	if (strcmp(ws->w[8], "1"))
		return fail(err, errsize, "%s raid parameters: dmraid writes 1 (the chunk size)",
			    ws->w[8]);
	if (!get_uint(ws->w[9], 1u << 30, &s->chunk))
		return fail(err, errsize, "chunk size \"%s\"", ws->w[9]);
	if (!get_uint(ws->w[10], R45DM_MAX_MEMBERS, &s->nr_devs) || s->nr_devs < 2)
		return fail(err, errsize, "number of members \"%s\"", ws->w[10]);
	if (!get_idx(ws->w[11], R45DM_MAX_MEMBERS - 1, &s->dev_to_init))
		return fail(err, errsize, "member to rebuild \"%s\"", ws->w[11]);
	i = 12;
	if (ws->n - i != 2 * s->nr_devs)
		return fail(err, errsize, "%u members announced, %u words for them (a device and an offset each)",
			    s->nr_devs, ws->n - i);
	for (k = 0; k < s->nr_devs; k++, i += 2) {
		if (set_member(s, k, ws->w[i], name, err, errsize))
			return -EINVAL;
		if (!s->devs[k][0]) {
			s->offsets[k] = 0;
			continue;
		}
		if (!get_u64(ws->w[i + 1], UINT64_MAX, &s->offsets[k]))
			return fail(err, errsize, "offset \"%s\" of member %u", ws->w[i + 1], k);
	}
	return 0;
}

int r45dm_parse(const char *table, const char *name, struct r45dm_set *s,
		char *err, size_t errsize)
{
	struct words ws;
	uint64_t start;
	int r;

	memset(s, 0, sizeof(*s));
	s->dev_to_init = -1;
	r = split(table, strlen(table), &ws, err, errsize);
	if (r)
		return r;
	if (ws.n < 3)
		return fail(err, errsize, "not a table line: \"%s\"", table);
	if (!get_u64(ws.w[0], UINT64_MAX, &start) || !get_u64(ws.w[1], UINT64_MAX, &s->len))
		return fail(err, errsize, "start and length \"%s %s\": not numbers", ws.w[0], ws.w[1]);
	if (start)
		return fail(err, errsize, "a segment starting at sector %llu: only a set of one segment converts",
			    (unsigned long long)start);
	if (!strcmp(ws.w[2], "raid")) {
		s->source = R45DM_FROM_RAID;
		r = parse_raid(&ws, name, s, err, errsize);
	} else if (!strcmp(ws.w[2], "raid45")) {
		s->source = R45DM_FROM_RAID45;
		r = parse_raid45(&ws, name, s, err, errsize);
	} else if (!strcmp(ws.w[2], "striped") || !strcmp(ws.w[2], "mirror") ||
		   !strcmp(ws.w[2], "linear")) {
		return fail(err, errsize, "a %s mapping (RAID0, RAID1 or a partition): raid45 does RAID4/5/6 only",
			    ws.w[2]);
	} else {
		return fail(err, errsize, "target \"%s\": dmraid's RAID4/5/6 sets are \"raid\" or \"raid45\"",
			    ws.w[2]);
	}
	if (r)
		return r;
	return check_geometry(s, err, errsize);
}

int r45dm_format(const struct r45dm_set *s, char *buf, size_t size)
{
	size_t o;
	unsigned int i;
	int n;

	n = snprintf(buf, size, "0 %llu raid45 core 2 %u %s %s%s 1 %u %u %d",
		     (unsigned long long)s->len, s->region, s->nosync ? "nosync" : "sync",
		     s->raid_type, strcmp(s->raid_type, "raid4") ? "" : " -1", s->chunk,
		     s->nr_devs, s->dev_to_init);
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	o = (size_t)n;
	for (i = 0; i < s->nr_devs; i++) {
		if (s->devs[i][0])
			n = snprintf(buf + o, size - o, " %s %llu", s->devs[i],
				     (unsigned long long)s->offsets[i]);
		else
			n = snprintf(buf + o, size - o, " - -");
		if (n < 0 || (size_t)n >= size - o)
			return -ENOSPC;
		o += (size_t)n;
	}
	return 0;
}

/*
 * A table line of dmraid's output: "<name>: <digit>...".  Sets name
 * (pointer and length) and the table's start.
 */
static bool table_line(const char *line, size_t len, const char **name, size_t *nlen,
		       const char **table)
{
	size_t i = 0;

	while (i < len && !is_space(line[i]))
		i++;
	if (i < 2 || line[i - 1] != ':' || i >= len)
		return false;
	*name = line;
	*nlen = i - 1;
	while (i < len && is_space(line[i]))
		i++;
	if (i >= len || line[i] < '0' || line[i] > '9')
		return false;
	*table = line + i;
	return true;
}

int r45dm_pick(const char *text, const char *set, char *name, size_t namesize,
	       char *table, size_t tablesize, char *err, size_t errsize)
{
	const char *p = text, *found = NULL, *nm, *tb;
	size_t found_len = 0, found_nlen = 0, nlen, len;
	unsigned int segments = 0;
	bool by_name = set && set[0], several = false;

	while (*p) {
		const char *eol = strchr(p, '\n');

		len = eol ? (size_t)(eol - p) : strlen(p);
		if (table_line(p, len, &nm, &nlen, &tb) &&
		    (!by_name || (nlen == strlen(set) && !memcmp(nm, set, nlen)))) {
			if (!found) {
				found = nm;
				found_nlen = nlen;
				found_len = len;
				segments = 1;
			} else if (nlen == found_nlen && !memcmp(nm, found, nlen)) {
				segments++;
			} else {
				several = true;
			}
		}
		p += len;
		if (*p)
			p++;
	}
	if (!found) {
		if (by_name)
			snprintf(err, errsize, "dmraid printed no table for %s", set);
		else
			snprintf(err, errsize, "dmraid printed no table");
		return -ENOENT;
	}
	if (several) {
		snprintf(err, errsize, "dmraid printed tables of several sets: name the one to activate");
		return -EINVAL;
	}
	if (segments > 1) {
		snprintf(err, errsize, "%.*s has %u table segments: only a set of one segment converts",
			 (int)found_nlen, found, segments);
		return -EINVAL;
	}
	if (found_nlen >= namesize || found_nlen >= R45DM_NAME_MAX) {
		snprintf(err, errsize, "set name of %zu characters: a dm name has at most %d",
			 found_nlen, R45DM_NAME_MAX - 1);
		return -ENAMETOOLONG;
	}
	memcpy(name, found, found_nlen);
	name[found_nlen] = '\0';
	if (!table_line(found, found_len, &nm, &nlen, &tb))
		return -EINVAL;	/* cannot happen: it was one */
	len = found_len - (size_t)(tb - found);
	if (len >= tablesize) {
		snprintf(err, errsize, "table of %s longer than %zu characters", name, tablesize - 1);
		return -ENOSPC;
	}
	memcpy(table, tb, len);
	table[len] = '\0';
	while (len && is_space(table[len - 1]))
		table[--len] = '\0';
	return 0;
}

int r45dm_convert(const char *text, const char *set, char *name, size_t namesize,
		  char *out, size_t outsize, char *err, size_t errsize)
{
	char table[LINE_MAX_LEN];
	struct r45dm_set s;
	int r;

	r = r45dm_pick(text, set, name, namesize, table, sizeof(table), err, errsize);
	if (r)
		return r;
	r = r45dm_parse(table, name, &s, err, errsize);
	if (r)
		return r;
	if (r45dm_format(&s, out, outsize)) {
		snprintf(err, errsize, "raid45 table of %s longer than %zu characters", name,
			 outsize - 1);
		return -ENOSPC;
	}
	return 0;
}

const char *r45dm_isw_volume(const char *set)
{
	const char *fam, *vol;

	if (strncmp(set, "isw_", 4))
		return NULL;
	fam = set + 4;
	vol = strchr(fam, '_');
	if (!vol || vol == fam || !vol[1])
		return NULL;
	return vol + 1;
}

/* "<spaces>key : value" in line (len long): the value's start, or NULL. */
static const char *field(const char *line, size_t len, const char *key)
{
	size_t kl = strlen(key), i = 0;

	while (i < len && line[i] == ' ')
		i++;
	if (len - i < kl || memcmp(line + i, key, kl))
		return NULL;
	i += kl;
	while (i < len && line[i] == ' ')
		i++;
	if (i >= len || line[i] != ':')
		return NULL;
	i++;
	while (i < len && line[i] == ' ')
		i++;
	return line + i;
}

/* A decimal number that ends the value or is followed by a space. */
static bool value_u64(const char *v, const char *end, uint64_t max, uint64_t *val)
{
	char num[24];
	size_t n = 0;

	while (v + n < end && v[n] >= '0' && v[n] <= '9')
		n++;
	if (!n || n >= sizeof(num) || (v + n < end && v[n] != ' '))
		return false;
	memcpy(num, v, n);
	num[n] = '\0';
	return get_u64(num, max, val);
}

int r45dm_imsm_examine(const char *text, const char *volume,
		       struct r45dm_imsm_volume *v)
{
	const char *p = text, *val;
	bool in = false, found = false, have_slot = false, have_members = false,
	     have_offset = false;
	size_t vl = strlen(volume);
	uint64_t n;

	v->slot = -1;
	v->members = 0;
	v->offset = 0;
	while (*p) {
		const char *eol = strchr(p, '\n'), *end;
		size_t len = eol ? (size_t)(eol - p) : strlen(p), i = 0;

		end = p + len;
		while (i < len && p[i] == ' ')
			i++;
		if (i < len && p[i] == '[') {
			/* a section: "[<volume>]:" */
			in = len - i == vl + 3 && !memcmp(p + i + 1, volume, vl) &&
			     !memcmp(p + i + 1 + vl, "]:", 2);
			if (in) {
				if (found)
					return -EINVAL;	/* twice */
				found = true;
			}
		} else if (in && !len) {
			in = false;
		} else if (in) {
			if ((val = field(p, len, "This Slot"))) {
				have_slot = true;
				if (value_u64(val, end, R45DM_MAX_MEMBERS - 1, &n))
					v->slot = (int)n;
			} else if ((val = field(p, len, "Members"))) {
				if (!value_u64(val, end, R45DM_MAX_MEMBERS, &n))
					return -EINVAL;
				v->members = (unsigned int)n;
				have_members = true;
			} else if ((val = field(p, len, "Sector Offset"))) {
				if (!value_u64(val, end, UINT64_MAX, &v->offset))
					return -EINVAL;
				have_offset = true;
			}
		}
		p = end;
		if (*p)
			p++;
	}
	if (!found)
		return -ENOENT;
	return have_slot && have_members && have_offset ? 0 : -EINVAL;
}

int r45dm_reorder(struct r45dm_set *s, const int *slots, char *err, size_t errsize)
{
	char devs[R45DM_MAX_MEMBERS][R45DM_PATH_MAX];
	uint64_t offsets[R45DM_MAX_MEMBERS];
	int where[R45DM_MAX_MEMBERS];
	bool taken[R45DM_MAX_MEMBERS] = { false };
	unsigned int k, free_slot = 0;
	bool changed = false;

	for (k = 0; k < s->nr_devs; k++) {
		where[k] = -1;
		if (!s->devs[k][0])
			continue;
		if (slots[k] < 0 || slots[k] >= (int)s->nr_devs)
			return fail(err, errsize, "member %s: slot %d of %u", s->devs[k], slots[k],
				    s->nr_devs);
		if (taken[slots[k]])
			return fail(err, errsize, "member %s: slot %d taken twice", s->devs[k],
				    slots[k]);
		taken[slots[k]] = true;
		where[k] = slots[k];
	}
	for (k = 0; k < s->nr_devs; k++) {
		if (where[k] >= 0)
			continue;
		while (taken[free_slot])
			free_slot++;
		taken[free_slot] = true;
		where[k] = (int)free_slot;
	}
	for (k = 0; k < s->nr_devs; k++) {
		strcpy(devs[where[k]], s->devs[k]);
		offsets[where[k]] = s->offsets[k];
		changed |= where[k] != (int)k;
	}
	memcpy(s->devs, devs, sizeof(devs[0]) * s->nr_devs);
	memcpy(s->offsets, offsets, sizeof(offsets[0]) * s->nr_devs);
	if (s->dev_to_init >= 0)
		s->dev_to_init = where[s->dev_to_init];
	return changed;
}

int r45dm_replaced_members(const char *text, uint32_t *members)
{
	static const char word[] = " member ";
	const char *p = text;
	uint64_t v;

	*members = 0;
	while (*p) {
		const char *eol = strchr(p, '\n'), *q = p, *num;
		size_t len = eol ? (size_t)(eol - p) : strlen(p), n;
		char buf[24];

		if (len) {
			while (q < p + len && *q >= '0' && *q <= '9')
				q++;
			if (q == p || (size_t)(p + len - q) < sizeof(word) - 1 ||
			    memcmp(q, word, sizeof(word) - 1))
				return -EINVAL;
			num = q + sizeof(word) - 1;
			for (n = 0; num + n < p + len && num[n] >= '0' && num[n] <= '9'; n++)
				;
			if (!n || n >= sizeof(buf) || num + n >= p + len || num[n] != ' ')
				return -EINVAL;
			memcpy(buf, num, n);
			buf[n] = '\0';
			if (!get_u64(buf, R45DM_MAX_MEMBERS - 1, &v))
				return -EINVAL;
			*members |= 1u << v;
		}
		p += len;
		if (*p)
			p++;
	}
	return 0;
}

int r45dm_uuid(const char *name, char *buf, size_t size)
{
	/* DM_UUID_LEN is 129 with the NUL */
	if (!name[0] || strlen(R45DM_UUID_PREFIX) + strlen(name) > 128 ||
	    (size_t)snprintf(buf, size, "%s%s", R45DM_UUID_PREFIX, name) >= size)
		return -ENAMETOOLONG;
	return 0;
}
