// SPDX-License-Identifier: GPL-2.0
/*
 * The raid45 table line, parsed with the kernel's dm_arg helpers:
 *
 * <log_type> <#log_params> <log_params>... <raid_type> [<parity_dev>]
 * <#raid_params> <raid_params>... [locking none] <#raid_devs>
 * <dev_to_init> <dev_path> <offset>...
 *
 * Every refusal has its own message.  Nothing here opens a device, so
 * the same file builds in userspace for tests/unit/test-table.c.
 *
 * The parsed table owns copies of the strings it keeps (the log's
 * arguments and the member paths): dm's argv is gone once the
 * constructor returns.  r45_table_free() releases them.
 */
#include <linux/device-mapper.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/bitops.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "r45_table.h"

/* the defaults of the "-1" raid parameters */
#define R45_DEFAULT_CHUNK		64
#define R45_DEFAULT_BANDWIDTH		10
#define R45_DEFAULT_RECOVERY_STRIPES	16

static int parse_sync_word(const char *w)
{
	if (!strcasecmp(w, "sync"))
		return R45_SYNC;
	if (!strcasecmp(w, "nosync"))
		return R45_NOSYNC;
	return -EINVAL;
}

/* Read "-1" (the default) or a number in [min, max]. */
static int read_param(struct dm_arg_set *as, unsigned int min,
		      unsigned int max, unsigned int def, unsigned int *out,
		      char **error, char *msg)
{
	struct dm_arg arg = { .min = min, .max = max, .error = msg };
	unsigned int v;

	if (!as->argc) {
		*error = msg;
		return -EINVAL;
	}
	if (!strcmp(as->argv[0], "-1")) {
		dm_consume_args(as, 1);
		*out = def;
		return 0;
	}
	/* dm_read_arg stores even a value it refuses: read into a local */
	if (dm_read_arg(&arg, as, &v, error))
		return -EINVAL;
	*out = v;
	return 0;
}

/* As read_param, and the value must be a power of two. */
static int read_pow2_param(struct dm_arg_set *as, unsigned int min,
			   unsigned int max, unsigned int def,
			   unsigned int *out, char **error, char *msg)
{
	if (read_param(as, min, max, def, out, error, msg) ||
	    (*out && !is_power_of_2(*out))) {
		*error = msg;
		return -EINVAL;
	}
	return 0;
}

static int parse_log(struct r45_table *t, struct dm_arg_set *as,
		     char **error)
{
	static const struct dm_arg core_args = {1, 2, "Invalid number of core log parameters"};
	static const struct dm_arg disk_args = {
		2, R45_MAX_LOG_ARGS, "Invalid number of disk log parameters"
	};
	const char *type = dm_shift_arg(as);
	unsigned int n, rsz_idx, i;
	int r;

	if (!type) {
		*error = "Missing log type";
		return -EINVAL;
	}
	if (!strcmp(type, "core")) {
		r = dm_read_arg(&core_args, as, &n, error);
		rsz_idx = 0;
	} else if (!strcmp(type, "disk")) {
		r = dm_read_arg(&disk_args, as, &n, error);
		rsz_idx = 1;
		t->disk_log = true;
	} else {
		*error = "Invalid log type (must be core or disk)";
		return -EINVAL;
	}
	if (r)
		return -EINVAL;
	if (as->argc < n) {
		*error = "Too few log parameters";
		return -EINVAL;
	}
	if (kstrtou32(as->argv[rsz_idx], 10, &t->region_size) ||
	    !is_power_of_2(t->region_size) || t->region_size < 8) {
		*error = "Invalid region size (must be a power of two >= 8)";
		return -EINVAL;
	}
	t->log_sync = R45_SYNC_DEFAULT;
	if (n == rsz_idx + 2) {
		t->log_sync = parse_sync_word(as->argv[rsz_idx + 1]);
		if (t->log_sync < 0) {
			*error = "Invalid log sync argument (must be sync or nosync)";
			return -EINVAL;
		}
	}
	t->log_type = t->disk_log ? "disk" : "core";
	t->log_argc = n;
	for (i = 0; i < n; i++)
		t->log_argv[i] = as->argv[i];	/* copied by own_strings() */
	dm_consume_args(as, n);
	return 0;
}

static int parse_raid_params(struct r45_table *t, struct dm_arg_set *as,
			     unsigned int *chunk, char **error)
{
	static const struct dm_arg nr_params = {0, 7, "Invalid number of raid parameters"};
	unsigned int n;

	if (dm_read_arg(&nr_params, as, &n, error))
		return -EINVAL;
	if (as->argc < n) {
		*error = "Too few raid parameters";
		return -EINVAL;
	}
	*chunk = R45_DEFAULT_CHUNK;
	t->stripes = R45_DEFAULT_STRIPES;
	t->io_size = 8;
	t->recover_io_size = 0;		/* resolved below */
	t->bandwidth = R45_DEFAULT_BANDWIDTH;
	t->recovery_sync = R45_SYNC_DEFAULT;
	t->recovery_stripes = R45_DEFAULT_RECOVERY_STRIPES;

	if (n >= 1 &&
	    read_pow2_param(as, 8, 16384, R45_DEFAULT_CHUNK, chunk, error,
			    "Invalid chunk size (power of two, 8..16384 sectors)"))
		return -EINVAL;
	if (n >= 2 &&
	    read_param(as, R45_MIN_STRIPES, R45_MAX_STRIPES,
		       R45_DEFAULT_STRIPES, &t->stripes, error,
		       "Invalid number of stripes (8..16384)"))
		return -EINVAL;
	if (n >= 3 &&
	    read_pow2_param(as, 8, *chunk, min(8U, *chunk), &t->io_size, error,
			    "Invalid io size (power of two, 8..chunk size)"))
		return -EINVAL;
	if (n >= 4 &&
	    read_pow2_param(as, 8, t->region_size, 0, &t->recover_io_size,
			    error,
			    "Invalid recovery io size (power of two, 8..region size)"))
		return -EINVAL;
	if (n >= 5 &&
	    read_param(as, 1, 100, R45_DEFAULT_BANDWIDTH, &t->bandwidth, error,
		       "Invalid recovery bandwidth (1..100 percent)"))
		return -EINVAL;
	if (n >= 6) {
		const char *w = dm_shift_arg(as);

		if (strcmp(w, "-1")) {
			t->recovery_sync = parse_sync_word(w);
			if (t->recovery_sync < 0) {
				*error = "Invalid recovery switch (sync, nosync or -1)";
				return -EINVAL;
			}
		}
	}
	if (n >= 7 &&
	    read_param(as, 1, 64, R45_DEFAULT_RECOVERY_STRIPES,
		       &t->recovery_stripes, error,
		       "Invalid number of recovery stripes (1..64)"))
		return -EINVAL;
	if (!t->recover_io_size)
		t->recover_io_size = min_t(unsigned int, t->region_size, 256);
	return 0;
}

/*
 * The words that may stand between the raid parameters and #raid_devs,
 * in any order, each once: "locking none" (the interface's), and [ext]
 * "start_dirty_degraded" (activate although a crash left regions out of
 * sync and a member is missing: dm-raid456.c), "ppl ...", "journal_dev
 * <dev>", "journal_mode <mode>" and "shrink"
 * (a reload may make the running array shorter: dm-raid456.c,
 * check_resize).  How many words option @word takes, or 0 if it is none.
 */
static unsigned int option_words(const char *word)
{
	if (!strcmp(word, "locking"))
		return 2;
	if (!strcmp(word, "start_dirty_degraded"))
		return 1;
	if (!strcmp(word, "ppl"))
		return 4;
	if (!strcmp(word, "shrink"))
		return 1;
	if (!strcmp(word, "journal_dev") || !strcmp(word, "journal_mode"))
		return 2;
	return 0;
}

/*
 * [ext] "journal_dev <dev>": a write journal on its own device
 * (raid5/journal.c); "journal_mode writethrough", dm-raid's words, the
 * only mode so far (and the default).
 */
static int parse_journal(struct r45_table *t, const char *word,
			 struct dm_arg_set *as, char **error)
{
	const char *val = dm_shift_arg(as);

	if (!val) {
		*error = "Missing journal_dev or journal_mode value";
		return -EINVAL;
	}
	if (!strcmp(word, "journal_dev")) {
		if (t->journal_path)
			goto twice;
		t->journal_path = val;
		return 0;
	}
	if (t->journal_mode)
		goto twice;
	t->journal_mode = true;
	if (!strcmp(val, "writethrough"))
		return 0;
	*error = !strcmp(val, "writeback") ?
		 "journal_mode writeback is not supported yet" :
		 "Invalid journal_mode (writethrough)";
	return -EINVAL;
twice:
	*error = "Option given twice";
	return -EINVAL;
}

/*
 * [ext] "ppl <offset> <size> <signature>": a partial parity log on every
 * member (raid5/ppl.c), <size> sectors at <offset> sectors from where the
 * member's data starts (negative: before it, as md's native superblock
 * puts it; IMSM puts it after the data), headers signed <signature> (md
 * native: ~crc32c of the array's UUID; IMSM: the family number).
 */
static int parse_ppl(struct r45_table *t, struct dm_arg_set *as,
		     char **error)
{
	const char *off = dm_shift_arg(as), *size = dm_shift_arg(as);
	const char *sig = dm_shift_arg(as);
	long long o;
	unsigned long long sz;

	/* the signature: decimal, or hexadecimal after "0x" (never octal) */
	if (!sig || kstrtoll(off, 10, &o) || kstrtoull(size, 10, &sz) ||
	    (strncasecmp(sig, "0x", 2) ?
	     kstrtou32(sig, 10, &t->ppl_signature) :
	     kstrtou32(sig + 2, 16, &t->ppl_signature))) {
		*error = "Invalid ppl parameters (<offset> <size> <signature>)";
		return -EINVAL;
	}
	/* a header and at least one page of partial parity, whole pages */
	if (sz < 16 || sz & 7 || sz > (1ULL << 32) || o < -(1LL << 40) ||
	    o > (1LL << 40)) {
		*error = "Invalid ppl area (size: a multiple of 8 sectors, at least 16)";
		return -EINVAL;
	}
	t->ppl = true;
	t->ppl_offset = o;
	t->ppl_size = sz;
	return 0;
}

static int parse_options(struct r45_table *t, struct dm_arg_set *as,
			 char **error)
{
	bool locking = false;
	const char *word;

	while (as->argc && option_words(as->argv[0])) {
		word = dm_shift_arg(as);
		if (!strcmp(word, "start_dirty_degraded")) {
			if (t->start_dirty_degraded)
				goto twice;
			t->start_dirty_degraded = true;
			continue;
		}
		if (!strcmp(word, "shrink")) {
			if (t->shrink)
				goto twice;
			t->shrink = true;
			continue;
		}
		if (!strncmp(word, "journal_", 8)) {
			if (parse_journal(t, word, as, error))
				return -EINVAL;
			continue;
		}
		if (!strcmp(word, "ppl")) {
			if (t->ppl)
				goto twice;
			if (parse_ppl(t, as, error))
				return -EINVAL;
			continue;
		}
		if (locking)
			goto twice;
		locking = true;
		word = dm_shift_arg(as);
		if (word && !strcmp(word, "none"))
			continue;
		*error = word && !strcmp(word, "cluster") ?
			 "Cluster locking is not supported" :
			 "Invalid locking type (only none)";
		return -EINVAL;
	}
	return 0;
twice:
	*error = "Option given twice";
	return -EINVAL;
}

static int parse_devices(struct r45_table *t, struct dm_arg_set *as,
			 int type, char **error)
{
	struct dm_arg nr_devs = {
		.min = r45_type_parity_disks(type) + 2, .max = R45_MAX_DISKS,
		.error = type >= R45_RAID6_ZR ?
			"Invalid number of raid devices (RAID6: 4..32)" :
			"Invalid number of raid devices (RAID4/5: 3..32)",
	};
	unsigned int i, n;

	if (dm_read_arg(&nr_devs, as, &n, error))
		return -EINVAL;
	t->nr_devs = n;
	if (!as->argc || kstrtoint(dm_shift_arg(as), 10, &t->dev_to_init) ||
	    t->dev_to_init < -1 || t->dev_to_init >= (int)t->nr_devs) {
		*error = "Invalid device to initialize (-1 or a member index)";
		return -EINVAL;
	}
	if (as->argc != 2 * t->nr_devs) {
		*error = "Number of device/offset arguments does not match #raid_devs";
		return -EINVAL;
	}
	for (i = 0; i < t->nr_devs; i++) {
		unsigned long long off;
		const char *o;

		t->paths[i] = dm_shift_arg(as);
		o = dm_shift_arg(as);
		/* [ext] "- -": the member is missing (dm-raid's spelling) */
		if (!strcmp(t->paths[i], "-")) {
			if (strcmp(o, "-")) {
				*error = "A missing member is written \"- -\"";
				return -EINVAL;
			}
			t->missing |= 1UL << i;
			t->offsets[i] = 0;
			continue;
		}
		if (kstrtoull(o, 10, &off) || off > (sector_t)-1 / 2) {
			*error = "Invalid device offset";
			return -EINVAL;
		}
		t->offsets[i] = off;
	}
	if (hweight_long(t->missing) >
	    (unsigned int)r45_type_parity_disks(type)) {
		*error = "More members missing than the RAID type has parity";
		return -EINVAL;
	}
	if (t->dev_to_init >= 0 && t->missing & (1UL << t->dev_to_init)) {
		*error = "The device to initialize is missing";
		return -EINVAL;
	}
	return 0;
}

/*
 * A length the rules refuse: its numbers in why (for the kernel log, see
 * raid45_ctr), with the valid lengths either side of it, the multiples
 * of a row (every data member's chunk) other than 0.
 */
static void length_why(char *why, const char *what, sector_t len,
		       unsigned int data, unsigned int chunk)
{
	u32 row = data * chunk, rem;
	u64 below = div_u64_rem(len, row, &rem) * row;
	char lower[24] = "none";

	if (below)
		snprintf(lower, sizeof(lower), "%llu",
			 (unsigned long long)below);
	snprintf(why, R45_WHY_SIZE,
		 "%s: valid <len> nearest below: %s, above: %llu (multiples of %u data members x %u-sector chunk = %u)",
		 what, lower, (unsigned long long)below + row, data, chunk,
		 row);
}

/* The length splits evenly over the data members, in whole chunks. */
static int set_geometry(struct r45_table *t, int type, int parity,
			unsigned int chunk, sector_t len, char **error,
			char *why)
{
	unsigned int data = t->nr_devs - r45_type_parity_disks(type);
	char what[160];	/* the longest below, with 20-digit numbers */
	sector_t per_dev;
	u32 rem;

	if (type == R45_RAID4) {
		if (parity == -1)
			parity = t->nr_devs - 1;
		if (parity >= (int)t->nr_devs) {
			*error = "RAID4 parity device index out of range";
			return -EINVAL;
		}
	}
	per_dev = div_u64_rem(len, data, &rem);
	if (rem) {
		*error = "Target length not divisible by number of data devices";
		snprintf(what, sizeof(what),
			 "target length %llu not divisible by %u data members (%u members)",
			 (unsigned long long)len, data, t->nr_devs);
		length_why(why, what, len, data, chunk);
		return -EINVAL;
	}
	if (!per_dev || per_dev & (chunk - 1)) {
		*error = "Per-member length (<len> / data members) not divisible by chunk size";
		snprintf(what, sizeof(what),
			 "per-member length %llu (<len> %llu / %u data members) not a multiple of the %u-sector chunk",
			 (unsigned long long)per_dev, (unsigned long long)len,
			 data, chunk);
		length_why(why, what, len, data, chunk);
		return -EINVAL;
	}
	if (r45_geom_init(&t->geom, type, t->nr_devs, chunk, parity,
			  per_dev)) {
		*error = "Invalid RAID geometry";
		return -EINVAL;
	}
	return 0;
}

/*
 * Everything after the RAID type word (and after RAID4's parity index,
 * when the line has one) for the given parity member (-1 = last).
 * Leaves the log's fields alone; sets all others.
 */
static int parse_rest(struct r45_table *t, struct dm_arg_set as, int type,
		      int parity, sector_t len, char **error, char *why)
{
	unsigned int chunk;

	t->nr_devs = 0;
	t->missing = 0;
	t->start_dirty_degraded = false;
	t->ppl = false;
	t->journal_path = NULL;
	t->journal_mode = false;
	memset(t->paths, 0, sizeof(t->paths));
	if (parse_raid_params(t, &as, &chunk, error) ||
	    parse_options(t, &as, error) ||
	    parse_devices(t, &as, type, error) ||
	    set_geometry(t, type, parity, chunk, len, error, why))
		return -EINVAL;
	if (t->ppl && r45_type_parity_disks(type) != 1) {
		*error = "A partial parity log needs RAID4 or RAID5";
		return -EINVAL;
	}
	if (t->journal_mode && !t->journal_path) {
		*error = "journal_mode without journal_dev";
		return -EINVAL;
	}
	if (t->journal_path && t->ppl) {
		*error = "A journal and a partial parity log exclude each other";
		return -EINVAL;
	}
	return 0;
}

/* Is the word a #raid_params count (0..7)?  Its value in *n. */
static bool is_param_count(const char *word, unsigned int *n)
{
	return word && !kstrtouint(word, 10, n) && *n <= 7;
}

/*
 * Do the words after "raid4" (after the parity index when with_index)
 * have the shape of a table's tail: <#raid_params> and that many words,
 * optionally "locking <type>", <#raid_devs> <dev_to_init> and exactly
 * two words per member?  Counts only; the values are not looked at.
 */
static bool raid4_shape_fits(struct dm_arg_set as, bool with_index)
{
	unsigned int n;

	if (with_index && !dm_shift_arg(&as))
		return false;
	if (!as.argc || !is_param_count(as.argv[0], &n))
		return false;
	if (as.argc < n + 1)
		return false;
	dm_consume_args(&as, n + 1);
	while (as.argc && option_words(as.argv[0]) &&
	       as.argc >= option_words(as.argv[0]))
		dm_consume_args(&as, option_words(as.argv[0]));
	if (!as.argc || kstrtouint(as.argv[0], 10, &n) || n > R45_MAX_DISKS)
		return false;
	return as.argc == 2 + 2 * n;
}

/*
 * RAID4 comes in two spellings:
 *
 *   raid4 <parity_dev> <#raid_params> <raid_params>... ...  (the interface)
 *   raid4 <#raid_params> <raid_params>... ...               (dmraid's lines)
 *
 * The second has no parity index and puts parity on the last member,
 * which is md's RAID4 layout (and what "-1" means in the first).  The
 * word after "raid4" is a number in both, so the spelling is told by
 * reading the whole rest of the line both ways:
 *
 * 1. the line is taken with the parity index if it parses completely
 *    (every count and every value, the exact number of device words)
 *    that way; "dmsetup table" prints this form, so a printed line
 *    always reads back the same;
 * 2. otherwise without the index, if it parses completely that way;
 * 3. otherwise it is refused with the message of one spelling: the one
 *    whose shape (counts only: #raid_params and that many words, an
 *    optional "locking <type>", #raid_devs, dev_to_init and exactly two
 *    words per member) fits the line; the indexed one if both fit; if
 *    neither fits (words missing or extra), the unindexed one when only
 *    it has a number 0..7 where its #raid_params stands (a dmraid line),
 *    else the indexed one.
 *
 * Both complete readings succeed at once only when member paths are
 * plain numbers or "sync": "raid4 0 7 -1 16 8 64 50 sync 4 3 0 /dev/e 0
 * /dev/f 0 /dev/g 0" is seven members named 16, 64, sync, 3, /dev/e..g
 * without the index, and index 0, seven parameters and three members
 * with it.  Rule 1 takes the indexed reading.
 */
static int parse_raid4(struct r45_table *t, struct dm_arg_set *as,
		       sector_t len, char **error, char *why)
{
	struct dm_arg_set rest = *as;
	char *err_index = NULL, *err_plain = NULL;
	char why_plain[R45_WHY_SIZE] = "";
	const char *word = dm_shift_arg(&rest);
	unsigned int n;
	bool plain;
	int parity;

	/* 1. with the parity index */
	if (!word || kstrtoint(word, 10, &parity) || parity < -1 ||
	    parity >= R45_MAX_DISKS)
		err_index = "Invalid RAID4 parity device";
	else if (!parse_rest(t, rest, R45_RAID4, parity, len, &err_index,
			     why))
		return 0;

	/* 2. without it: parity on the last member */
	if (!parse_rest(t, *as, R45_RAID4, -1, len, &err_plain, why_plain))
		return 0;

	/* 3. refused: say what is wrong in the spelling the line resembles */
	if (raid4_shape_fits(*as, true))
		plain = false;
	else if (raid4_shape_fits(*as, false))
		plain = true;
	else
		plain = !is_param_count(as->argc > 1 ? as->argv[1] : NULL, &n) &&
			is_param_count(as->argc ? as->argv[0] : NULL, &n);
	*error = plain ? err_plain : err_index;
	/* and the numbers of that reading */
	if (plain)
		memcpy(why, why_plain, R45_WHY_SIZE);
	return -EINVAL;
}

/* Copy the strings kept past the constructor into one allocation. */
static int own_strings(struct r45_table *t, char **error)
{
	size_t size = 0, n;
	unsigned int i;
	char *p;

	for (i = 0; i < t->log_argc; i++)
		size += strlen(t->log_argv[i]) + 1;
	for (i = 0; i < t->nr_devs; i++)
		size += strlen(t->paths[i]) + 1;
	if (t->journal_path)
		size += strlen(t->journal_path) + 1;
	p = kmalloc(size, GFP_KERNEL);
	if (!p) {
		*error = "Cannot allocate the table's strings";
		return -ENOMEM;
	}
	t->strings = p;
	for (i = 0; i < t->log_argc; i++) {
		n = strlen(t->log_argv[i]) + 1;
		memcpy(p, t->log_argv[i], n);
		t->log_argv[i] = p;
		p += n;
	}
	for (i = 0; i < t->nr_devs; i++) {
		n = strlen(t->paths[i]) + 1;
		memcpy(p, t->paths[i], n);
		t->paths[i] = p;
		p += n;
	}
	if (t->journal_path) {
		n = strlen(t->journal_path) + 1;
		memcpy(p, t->journal_path, n);
		t->journal_path = p;
	}
	return 0;
}

int r45_table_parse(struct r45_table *t, unsigned int argc, char **argv,
		    sector_t len, char **error, char *why)
{
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	const char *word;
	int type, r;

	memset(t, 0, sizeof(*t));
	why[0] = '\0';
	if (parse_log(t, &as, error))
		return -EINVAL;
	word = dm_shift_arg(&as);
	type = word ? r45_type_from_name(word) : -1;
	if (type < 0) {
		*error = "Invalid RAID type";
		return -EINVAL;
	}
	if (type == R45_RAID4)
		r = parse_raid4(t, &as, len, error, why);
	else
		r = parse_rest(t, as, type, -1, len, error, why);
	if (!r) {
		why[0] = '\0';	/* a reading refused before the one taken */
		r = own_strings(t, error);
	}
	if (r) {
		/* nothing of dm's argv stays behind in a refused table */
		memset(t, 0, sizeof(*t));
		return r;
	}
	return 0;
}

void r45_table_free(struct r45_table *t)
{
	kfree(t->strings);
	t->strings = NULL;
	memset(t->log_argv, 0, sizeof(t->log_argv));
	memset(t->paths, 0, sizeof(t->paths));
}
