// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of dm-raid456-table.c, the table line parser, built against
 * userspace stand-ins of the kernel's dm_arg and kstrto helpers
 * (tests/unit/shim): every form of the interface spec, the defaults of
 * "-1", every refusal with its message, both RAID4 spellings (with and
 * without the parity index), that a parsed table owns its strings, and a
 * fuzz loop of mutated lines (run under AddressSanitizer, LeakSanitizer
 * and UBSan) checking what is accepted and that its canonical form (as
 * "dmsetup table" prints it) reads back the same.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "r45_table.h"

static int failures;
int shim_kmalloc_fail;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		printf("  check failed (line %d): ", __LINE__); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		failures++; \
	} \
} while (0)

#define MAXW 96

struct line {
	char buf[2048];
	char *argv[MAXW];
	unsigned int argc;
};

/* Split the words after "raid45" into a mutable argv. */
static void split(struct line *l, const char *args)
{
	char *p;

	snprintf(l->buf, sizeof(l->buf), "%s", args);
	l->argc = 0;
	for (p = strtok(l->buf, " "); p && l->argc < MAXW; p = strtok(NULL, " "))
		l->argv[l->argc++] = p;
}

/*
 * Parse args into *t.  The strings of the table parse() filled last are
 * freed first (the tables are locals of the tests), and the source line
 * is scribbled over afterwards: a table that kept pointers into argv
 * would show garbage.
 */
static char *kept_strings;
/* the numbers of the last refusal (r45_table_parse's why) */
static char why[R45_WHY_SIZE];

static int parse(const char *args, sector_t len, struct r45_table *t,
		 char **error)
{
	static struct line l;
	int r;

	free(kept_strings);
	kept_strings = NULL;
	*error = NULL;
	split(&l, args);
	r = r45_table_parse(t, l.argc, l.argv, len, error, why);
	memset(l.buf, '#', sizeof(l.buf) - 1);
	l.buf[sizeof(l.buf) - 1] = '\0';
	if (!r)
		kept_strings = t->strings;
	return r;
}

#define D4 "/dev/a 0 /dev/b 0 /dev/c 0 /dev/d 0"

static void test_valid(void)
{
	static const char *const layouts[] = {
		"raid5_la", "raid5_ra", "raid5_ls", "raid5_rs",
	};
	struct r45_table t;
	char *err, args[512];
	unsigned int i;

	/* dmraid's lines: each RAID5 layout, sync/nosync, a rebuild index */
	for (i = 0; i < 4; i++) {
		snprintf(args, sizeof(args),
			 "core 2 64 %s %s 1 128 3 %d /dev/sda 0 /dev/sdb 34 /dev/sdc 2048",
			 i & 1 ? "sync" : "nosync", layouts[i], i == 2 ? 1 : -1);
		CHECK(!parse(args, 2 * 8192, &t, &err), "%s: %s", args, err);
		CHECK((int)t.geom.type == R45_RAID5_LA + (int)i, "type of %s", args);
		CHECK(t.region_size == 64 && t.log_sync == (int)(i & 1),
		      "log of %s", args);
		CHECK(t.geom.chunk_sectors == 128 && t.nr_devs == 3 &&
		      t.geom.dev_sectors == 8192, "geometry of %s", args);
		CHECK(t.dev_to_init == (i == 2 ? 1 : -1), "dev_to_init of %s", args);
		CHECK(t.offsets[1] == 34 && t.offsets[2] == 2048 &&
		      !strcmp(t.paths[2], "/dev/sdc"), "devices of %s", args);
		/* defaults of what dmraid leaves out */
		CHECK(t.stripes == R45_DEFAULT_STRIPES && t.io_size == 8 &&
		      t.recover_io_size == 64 && t.bandwidth == 10 &&
		      t.recovery_sync == R45_SYNC_DEFAULT &&
		      t.recovery_stripes == 16, "defaults of %s", args);
	}
	/* region sizes dmraid uses, 64..65536 */
	for (i = 64; i <= 65536; i *= 2) {
		snprintf(args, sizeof(args),
			 "core 2 %u nosync raid5_ls 1 64 4 -1 " D4, i);
		CHECK(!parse(args, 3 * 65536, &t, &err) && t.region_size == i,
		      "%s: %s", args, err);
		CHECK(t.recover_io_size == (i < 256 ? i : 256),
		      "recover_io_size default for region %u", i);
	}

	/* all seven raid parameters, then all seven as -1 */
	CHECK(!parse("core 1 1024 raid5_rs 7 256 512 32 512 40 nosync 8 locking none 4 -1 " D4,
		     3 * 4096, &t, &err), "seven params: %s", err);
	CHECK(t.log_sync == R45_SYNC_DEFAULT && t.geom.chunk_sectors == 256 &&
	      t.stripes == 512 && t.io_size == 32 && t.recover_io_size == 512 &&
	      t.bandwidth == 40 && t.recovery_sync == R45_NOSYNC &&
	      t.recovery_stripes == 8, "seven params values");
	CHECK(!parse("core 2 128 sync raid5_ls 7 -1 -1 -1 -1 -1 -1 -1 4 -1 " D4,
		     3 * 64, &t, &err), "seven -1: %s", err);
	CHECK(t.geom.chunk_sectors == 64 && t.stripes == R45_DEFAULT_STRIPES &&
	      t.io_size == 8 && t.recover_io_size == 128 && t.bandwidth == 10 &&
	      t.recovery_sync == R45_SYNC_DEFAULT && t.recovery_stripes == 16,
	      "seven -1 defaults");
	CHECK(!parse("core 2 128 sync raid5_ls 0 4 -1 " D4, 3 * 64, &t, &err) &&
	      t.geom.chunk_sectors == 64, "no raid params: %s", err);

	/* [ext] missing members ("- -") and start_dirty_degraded */
	CHECK(!parse("disk 2 /dev/l 1024 raid5_ls 1 64 start_dirty_degraded 4 -1 /dev/a 0 - - /dev/c 0 /dev/d 0",
		     3 * 64, &t, &err), "one missing: %s", err);
	CHECK(t.missing == 2 && t.start_dirty_degraded && !t.offsets[1] &&
	      !strcmp(t.paths[1], "-") && !strcmp(t.paths[2], "/dev/c"),
	      "one missing: missing %#lx", t.missing);
	CHECK(!parse("core 2 64 nosync raid6_nr 1 64 start_dirty_degraded locking none 5 4 - - /dev/b 0 - - /dev/d 0 /dev/e 0",
		     3 * 64, &t, &err), "RAID6 two missing: %s", err);
	CHECK(t.missing == 5 && t.start_dirty_degraded && t.dev_to_init == 4,
	      "RAID6 two missing: missing %#lx", t.missing);
	CHECK(!parse("core 2 128 sync raid5_ls 0 4 -1 " D4, 3 * 64, &t, &err) &&
	      !t.missing && !t.start_dirty_degraded, "no options: %s", err);
	/* [ext] a partial parity log */
	CHECK(!parse("core 2 64 nosync raid5_ls 1 64 ppl -4080 2048 0x8c1a9014 4 -1 " D4,
		     3 * 64, &t, &err), "ppl: %s", err);
	CHECK(t.ppl && t.ppl_offset == -4080 && t.ppl_size == 2048 &&
	      t.ppl_signature == 0x8c1a9014, "ppl values");
	CHECK(!parse("core 2 64 nosync raid4 1 64 ppl 128 16 7 locking none 4 -1 " D4,
		     3 * 64, &t, &err) && t.ppl && t.ppl_offset == 128 &&
	      t.ppl_signature == 7 && t.geom.raid4_parity == 3,
	      "ppl on dmraid's raid4: %s", err);
	/* [ext] a write journal */
	CHECK(!parse("core 2 64 nosync raid6_zr 1 64 journal_dev /dev/j journal_mode writethrough 5 -1 " D4 " /dev/e 0",
		     3 * 64, &t, &err) && t.journal_path &&
	      !strcmp(t.journal_path, "/dev/j") && t.journal_mode,
	      "journal: %s", err);
	CHECK(!parse("core 2 64 nosync raid5_ls 1 64 locking none journal_dev /dev/j 4 -1 " D4,
		     3 * 64, &t, &err) && t.journal_path && !t.journal_mode,
	      "journal without a mode: %s", err);
	CHECK(!parse("core 2 64 nosync raid5_ls 1 64 4 -1 " D4, 3 * 64, &t, &err) &&
	      !t.journal_path, "no journal: %s", err);
	/* [ext] shrink: a reload may make the array shorter */
	CHECK(!parse("core 2 64 nosync raid5_ls 1 64 shrink locking none 4 -1 " D4,
		     3 * 64, &t, &err) && t.shrink && !t.start_dirty_degraded,
	      "shrink: %s", err);
	CHECK(!parse("core 2 64 nosync raid5_ls 1 64 4 -1 " D4, 3 * 64, &t, &err) &&
	      !t.shrink, "no shrink: %s", err);
	/* dmraid's raid4 spelling with an option and a missing member */
	CHECK(!parse("core 2 64 nosync raid4 1 64 start_dirty_degraded 4 -1 /dev/a 0 /dev/b 0 - - /dev/d 0",
		     3 * 64, &t, &err) && t.geom.raid4_parity == 3 && t.missing == 4,
	      "raid4 without index, missing member: %s", err);

	/* raid4: parity device -1 (last) and an index */
	CHECK(!parse("core 2 64 nosync raid4 -1 1 64 4 -1 " D4, 3 * 64, &t, &err) &&
	      t.geom.raid4_parity == 3, "raid4 -1: %s", err);
	CHECK(!parse("core 2 64 nosync raid4 0 1 64 4 -1 " D4, 3 * 64, &t, &err) &&
	      t.geom.raid4_parity == 0, "raid4 0: %s", err);

	/* disk log, with and without its sync word */
	CHECK(!parse("disk 2 /dev/log 256 raid5_la 1 64 4 -1 " D4, 3 * 64, &t, &err) &&
	      t.disk_log && t.region_size == 256 && t.log_argc == 2 &&
	      !strcmp(t.log_argv[0], "/dev/log") && !strcmp(t.log_type, "disk"),
	      "disk 2: %s", err);
	CHECK(!parse("disk 3 /dev/log 256 nosync raid5_la 1 64 4 -1 " D4, 3 * 64, &t, &err) &&
	      t.log_sync == R45_NOSYNC && t.log_argc == 3, "disk 3: %s", err);

	/* RAID6 [ext] */
	CHECK(!parse("core 2 64 nosync raid6_nc 1 64 4 -1 " D4, 2 * 64, &t, &err) &&
	      t.geom.parity_disks == 2 && t.geom.data_disks == 2, "raid6: %s", err);
}

static void test_invalid(void)
{
	static const struct {
		const char *args;
		sector_t len;
		const char *msg;
	} bad[] = {
		{ "", 192, "Missing log type" },
		{ "mirror 2 1024 nosync raid5_ls 1 64 4 -1 " D4, 192, "Invalid log type" },
		{ "core 3 1024 nosync raid5_ls 1 64 4 -1 " D4, 192, "Invalid number of core log parameters" },
		{ "core 0 raid5_ls 1 64 4 -1 " D4, 192, "Invalid number of core log parameters" },
		{ "disk 1 /dev/log raid5_ls 1 64 4 -1 " D4, 192, "Invalid number of disk log parameters" },
		{ "core 2 1024", 192, "Too few log parameters" },
		{ "core 2 1000 nosync raid5_ls 1 64 4 -1 " D4, 192, "Invalid region size" },
		{ "core 2 4 nosync raid5_ls 1 64 4 -1 " D4, 192, "Invalid region size" },
		{ "core 2 -64 nosync raid5_ls 1 64 4 -1 " D4, 192, "Invalid region size" },
		{ "core 2 1024 maybe raid5_ls 1 64 4 -1 " D4, 192, "Invalid log sync argument" },
		{ "core 2 1024 nosync raid5_xx 1 64 4 -1 " D4, 192, "Invalid RAID type" },
		{ "core 2 1024 nosync", 192, "Invalid RAID type" },
		{ "core 2 1024 nosync raid4 x 1 64 4 -1 " D4, 192, "Invalid RAID4 parity device" },
		{ "core 2 1024 nosync raid4 -2 1 64 4 -1 " D4, 192, "Invalid RAID4 parity device" },
		{ "core 2 1024 nosync raid4 4 1 64 4 -1 " D4, 192, "RAID4 parity device index out of range" },
		{ "core 2 1024 nosync raid5_ls 8 64 4 -1 " D4, 192, "Invalid number of raid parameters" },
		{ "core 2 1024 nosync raid5_ls 7 64", 192, "Too few raid parameters" },
		{ "core 2 1024 nosync raid5_ls 1 48 4 -1 " D4, 192, "Invalid chunk size" },
		{ "core 2 1024 nosync raid5_ls 1 32768 4 -1 " D4, 192, "Invalid chunk size" },
		{ "core 2 1024 nosync raid5_ls 1 4 4 -1 " D4, 192, "Invalid chunk size" },
		{ "core 2 1024 nosync raid5_ls 2 64 4 4 -1 " D4, 192, "Invalid number of stripes" },
		{ "core 2 1024 nosync raid5_ls 2 64 16385 4 -1 " D4, 192, "Invalid number of stripes" },
		{ "core 2 1024 nosync raid5_ls 3 64 -1 128 4 -1 " D4, 192, "Invalid io size" },
		{ "core 2 1024 nosync raid5_ls 3 64 -1 24 4 -1 " D4, 192, "Invalid io size" },
		{ "core 2 256 nosync raid5_ls 4 64 -1 -1 512 4 -1 " D4, 192, "Invalid recovery io size" },
		{ "core 2 256 nosync raid5_ls 4 64 -1 -1 96 4 -1 " D4, 192, "Invalid recovery io size" },
		{ "core 2 1024 nosync raid5_ls 5 64 -1 -1 -1 101 4 -1 " D4, 192, "Invalid recovery bandwidth" },
		{ "core 2 1024 nosync raid5_ls 5 64 -1 -1 -1 0 4 -1 " D4, 192, "Invalid recovery bandwidth" },
		{ "core 2 1024 nosync raid5_ls 6 64 -1 -1 -1 -1 maybe 4 -1 " D4, 192, "Invalid recovery switch" },
		{ "core 2 1024 nosync raid5_ls 7 64 -1 -1 -1 -1 -1 65 4 -1 " D4, 192, "Invalid number of recovery stripes" },
		{ "core 2 1024 nosync raid5_ls 7 64 -1 -1 -1 -1 -1 0 4 -1 " D4, 192, "Invalid number of recovery stripes" },
		{ "core 2 1024 nosync raid5_ls 1 64 locking cluster 4 -1 " D4, 192, "Cluster locking is not supported" },
		{ "core 2 1024 nosync raid5_ls 1 64 locking dlm 4 -1 " D4, 192, "Invalid locking type" },
		{ "core 2 1024 nosync raid5_ls 1 64 locking", 192, "Invalid locking type" },
		{ "core 2 1024 nosync raid5_ls 1 64 locking none locking none 4 -1 " D4, 192, "Option given twice" },
		{ "core 2 1024 nosync raid5_ls 1 64 start_dirty_degraded start_dirty_degraded 4 -1 " D4, 192, "Option given twice" },
		{ "core 2 1024 nosync raid5_ls 1 64 shrink shrink 4 -1 " D4, 192, "Option given twice" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 - - - - /dev/c 0 /dev/d 0", 192, "More members missing than the RAID type has parity" },
		{ "core 2 1024 nosync raid6_zr 1 64 5 -1 - - - - - - /dev/d 0 /dev/e 0", 128, "More members missing than the RAID type has parity" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 0 - - /dev/b 0 /dev/c 0 /dev/d 0", 192, "The device to initialize is missing" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 - 0 /dev/b 0 /dev/c 0 /dev/d 0", 192, "A missing member is written" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 /dev/a - /dev/b 0 /dev/c 0 /dev/d 0", 192, "Invalid device offset" },
		{ "core 2 1024 nosync raid6_zr 1 64 ppl -4080 2048 1 5 -1 " D4 " /dev/e 0", 192, "A partial parity log needs RAID4 or RAID5" },
		{ "core 2 1024 nosync raid5_ls 1 64 ppl -4080 2047 1 4 -1 " D4, 192, "Invalid ppl area" },
		{ "core 2 1024 nosync raid5_ls 1 64 ppl -4080 8 1 4 -1 " D4, 192, "Invalid ppl area" },
		{ "core 2 1024 nosync raid5_ls 1 64 ppl x 2048 1 4 -1 " D4, 192, "Invalid ppl parameters" },
		{ "core 2 1024 nosync raid5_ls 1 64 ppl 0 2048 0x100000000 4 -1 " D4, 192, "Invalid ppl parameters" },
		{ "core 2 1024 nosync raid5_ls 1 64 ppl 0 2048 1 ppl 0 2048 1 4 -1 " D4, 192, "Option given twice" },
		{ "core 2 1024 nosync raid5_ls 1 64 journal_dev /dev/j journal_mode writeback 4 -1 " D4, 192, "journal_mode writeback is not supported yet" },
		{ "core 2 1024 nosync raid5_ls 1 64 journal_dev /dev/j journal_mode always 4 -1 " D4, 192, "Invalid journal_mode" },
		{ "core 2 1024 nosync raid5_ls 1 64 journal_mode writethrough 4 -1 " D4, 192, "journal_mode without journal_dev" },
		{ "core 2 1024 nosync raid5_ls 1 64 journal_dev /dev/j journal_dev /dev/k 4 -1 " D4, 192, "Option given twice" },
		{ "core 2 1024 nosync raid5_ls 1 64 journal_dev /dev/j ppl -4080 2048 1 4 -1 " D4, 192, "A journal and a partial parity log exclude each other" },
		{ "core 2 1024 nosync raid5_ls 1 64 journal_dev", 192, "Missing journal_dev or journal_mode value" },
		{ "core 2 1024 nosync raid5_ls 1 64 2 -1 /dev/a 0 /dev/b 0", 192, "Invalid number of raid devices (RAID4/5" },
		{ "core 2 1024 nosync raid5_ls 1 64 33 -1 " D4, 192, "Invalid number of raid devices (RAID4/5" },
		{ "core 2 1024 nosync raid6_nc 1 64 3 -1 /dev/a 0 /dev/b 0 /dev/c 0", 192, "Invalid number of raid devices (RAID6" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 4 " D4, 192, "Invalid device to initialize" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -2 " D4, 192, "Invalid device to initialize" },
		{ "core 2 1024 nosync raid5_ls 1 64 4", 192, "Invalid device to initialize" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 /dev/a 0 /dev/b 0 /dev/c 0", 192, "Number of device/offset arguments" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 " D4 " /dev/e 0", 192, "Number of device/offset arguments" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 /dev/a x /dev/b 0 /dev/c 0 /dev/d 0", 192, "Invalid device offset" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 /dev/a -8 /dev/b 0 /dev/c 0 /dev/d 0", 192, "Invalid device offset" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 /dev/a 18446744073709551615 /dev/b 0 /dev/c 0 /dev/d 0", 192, "Invalid device offset" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 " D4, 193, "not divisible by number of data devices" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 " D4, 198, "not divisible by chunk size" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 " D4, 0, "not divisible by chunk size" },
	};
	struct r45_table t;
	unsigned int i;
	char *err;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse(bad[i].args, bad[i].len, &t, &err);

		CHECK(r == -EINVAL, "accepted: %s", bad[i].args);
		CHECK(r != -EINVAL || (err && strstr(err, bad[i].msg)),
		      "'%s' gave '%s', expected '%s'", bad[i].args,
		      err ? err : "(none)", bad[i].msg);
	}
}

/*
 * RAID4 in both spellings: "raid4 <parity_dev> <#raid_params> ..." and
 * dmraid's "raid4 <#raid_params> ..." (parity on the last member), with
 * lines whose first words could be read either way.
 */
static void test_raid4(void)
{
	static const struct {
		const char *args;
		sector_t len;
		int parity, nr_devs, dev_to_init;
		unsigned int chunk, stripes;
	} good[] = {
		/* dmraid's lines: no index, parity last */
		{ "core 2 64 nosync raid4 1 64 4 -1 " D4, 3 * 64, 3, 4, -1, 64, R45_DEFAULT_STRIPES },
		{ "core 2 64 sync raid4 1 128 3 2 /dev/a 0 /dev/b 0 /dev/c 0", 2 * 128, 2, 3, 2, 128, R45_DEFAULT_STRIPES },
		{ "core 2 64 sync raid4 1 -1 4 0 " D4, 3 * 64, 3, 4, 0, 64, R45_DEFAULT_STRIPES },
		{ "core 2 64 sync raid4 2 64 32 4 -1 " D4, 3 * 64, 3, 4, -1, 64, 32 },
		{ "core 2 64 sync raid4 1 64 locking none 4 -1 " D4, 3 * 64, 3, 4, -1, 64, R45_DEFAULT_STRIPES },
		{ "core 2 64 sync raid4 7 64 32 8 64 20 nosync 4 4 -1 " D4, 3 * 64, 3, 4, -1, 64, 32 },
		/* looks like index 0, but "0 4 -1 /dev/a" is no indexed tail */
		{ "core 2 64 sync raid4 0 4 -1 " D4, 3 * 64, 3, 4, -1, 64, R45_DEFAULT_STRIPES },
		/* looks like index 3 or 7 with no params: too few words for that */
		{ "core 2 64 sync raid4 3 64 -1 -1 4 -1 " D4, 3 * 64, 3, 4, -1, 64, R45_DEFAULT_STRIPES },
		/* the interface's lines: -1 (last) or an index */
		{ "core 2 64 nosync raid4 -1 1 64 4 -1 " D4, 3 * 64, 3, 4, -1, 64, R45_DEFAULT_STRIPES },
		{ "core 2 64 nosync raid4 0 1 64 4 -1 " D4, 3 * 64, 0, 4, -1, 64, R45_DEFAULT_STRIPES },
		{ "core 2 64 nosync raid4 1 1 64 4 -1 " D4, 3 * 64, 1, 4, -1, 64, R45_DEFAULT_STRIPES },
		{ "core 2 64 nosync raid4 3 1 64 4 -1 " D4, 3 * 64, 3, 4, -1, 64, R45_DEFAULT_STRIPES },
		{ "core 2 64 nosync raid4 2 0 4 1 " D4, 3 * 64, 2, 4, 1, 64, R45_DEFAULT_STRIPES },
		{ "core 2 64 nosync raid4 1 2 64 32 4 -1 " D4, 3 * 64, 1, 4, -1, 64, 32 },
		{ "core 2 64 nosync raid4 0 1 64 locking none 4 -1 " D4, 3 * 64, 0, 4, -1, 64, R45_DEFAULT_STRIPES },
		/*
		 * Both readings complete (members named by plain numbers and
		 * "sync"): without the index, 7 members from "16 8"; with
		 * index 0, 7 parameters and 3 members /dev/e..g.  The index
		 * wins.
		 */
		{ "core 2 1024 nosync raid4 0 7 -1 16 8 64 50 sync 4 3 0 /dev/e 0 /dev/f 0 /dev/g 0",
		  6 * 64, 0, 3, 0, 64, 16 },
	};
	static const struct {
		const char *args;
		const char *msg;
	} bad[] = {
		/* dmraid's spelling: the message of that spelling */
		{ "core 2 64 sync raid4 1 48 4 -1 " D4, "Invalid chunk size" },
		{ "core 2 64 sync raid4 1 64 4 4 " D4, "Invalid device to initialize" },
		{ "core 2 64 sync raid4 1 64 2 -1 /dev/a 0 /dev/b 0", "Invalid number of raid devices (RAID4/5" },
		{ "core 2 64 sync raid4 1 64 4 -1 /dev/a 0 /dev/b 0 /dev/c 0 /dev/d", "Number of device/offset arguments" },
		{ "core 2 64 sync raid4 1 64 locking cluster 4 -1 " D4, "Cluster locking is not supported" },
		{ "core 2 64 sync raid4 2 64 4 4 -1 " D4, "Invalid number of stripes" },
		/* the indexed spelling */
		{ "core 2 64 sync raid4 -1 1 48 4 -1 " D4, "Invalid chunk size" },
		{ "core 2 64 sync raid4 0 1 64 4 4 " D4, "Invalid device to initialize" },
		{ "core 2 64 sync raid4 -1 1 64 4 -1 /dev/a 0 /dev/b 0 /dev/c 0", "Number of device/offset arguments" },
		{ "core 2 64 sync raid4 5 1 64 4 -1 " D4, "RAID4 parity device index out of range" },
		{ "core 2 64 sync raid4 32 1 64 4 -1 " D4, "Invalid RAID4 parity device" },
		{ "core 2 64 sync raid4", "Invalid RAID4 parity device" },
		{ "core 2 64 sync raid4 -1", "Invalid number of raid parameters" },
		/* no spelling's shape fits, and the word after raid4 is no count */
		{ "core 2 64 sync raid4 9 64 4 -1 " D4, "Invalid number of raid parameters" },
	};
	struct r45_table t;
	unsigned int i;
	char *err;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const char *a = good[i].args;

		if (parse(a, good[i].len, &t, &err)) {
			CHECK(0, "refused: %s: %s", a, err);
			continue;
		}
		CHECK(t.geom.type == R45_RAID4 &&
		      t.geom.raid4_parity == good[i].parity,
		      "%s: parity %d, expected %d", a, t.geom.raid4_parity,
		      good[i].parity);
		CHECK((int)t.nr_devs == good[i].nr_devs &&
		      t.dev_to_init == good[i].dev_to_init &&
		      t.geom.chunk_sectors == good[i].chunk &&
		      t.stripes == good[i].stripes,
		      "%s: %u devs, init %d, chunk %u, stripes %u", a,
		      t.nr_devs, t.dev_to_init, t.geom.chunk_sectors, t.stripes);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse(bad[i].args, 3 * 64, &t, &err);

		CHECK(r == -EINVAL, "accepted: %s", bad[i].args);
		CHECK(r != -EINVAL || (err && strstr(err, bad[i].msg)),
		      "'%s' gave '%s', expected '%s'", bad[i].args,
		      err ? err : "(none)", bad[i].msg);
	}
}

/*
 * Refusals of the length say its numbers (the kernel logs them): the
 * length, the members, the per-member length and chunk, and the nearest
 * valid lengths; a refusal without numbers leaves why empty, and so does
 * an accepted line.
 */
static void test_why(void)
{
	static const struct {
		const char *args;
		sector_t len;
		const char *why;
	} cases[] = {
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 " D4, 98305,
		  "target length 98305 not divisible by 3 data members (4 members): valid <len> nearest below: 98304, above: 98496 (multiples of 3 data members x 64-sector chunk = 192)" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 " D4, 98310,
		  "per-member length 32770 (<len> 98310 / 3 data members) not a multiple of the 64-sector chunk: valid <len> nearest below: 98304, above: 98496 (multiples of 3 data members x 64-sector chunk = 192)" },
		{ "core 2 1024 nosync raid6_nr 1 128 4 -1 " D4, 100,
		  "per-member length 50 (<len> 100 / 2 data members) not a multiple of the 128-sector chunk: valid <len> nearest below: none, above: 256 (multiples of 2 data members x 128-sector chunk = 256)" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 " D4, 0,
		  "per-member length 0 (<len> 0 / 3 data members) not a multiple of the 64-sector chunk: valid <len> nearest below: none, above: 192" },
		/* raid4 with its index, parity member 1 */
		{ "core 2 1024 nosync raid4 1 1 64 4 -1 " D4, 194,
		  "target length 194 not divisible by 3 data members (4 members): valid <len> nearest below: 192, above: 384" },
		/* dmraid's raid4 spelling: the numbers of that reading */
		{ "core 2 1024 nosync raid4 1 32 4 -1 " D4, 96 + 3,
		  "per-member length 33 (<len> 99 / 3 data members) not a multiple of the 32-sector chunk: valid <len> nearest below: 96, above: 192" },
		{ "core 2 1000 nosync raid5_ls 1 64 4 -1 " D4, 98305, "" },
		{ "core 2 1024 nosync raid5_ls 1 64 4 -1 /dev/a x /dev/b 0 /dev/c 0 /dev/d 0", 98305, "" },
	};
	struct r45_table t;
	unsigned int i;
	char *err;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(parse(cases[i].args, cases[i].len, &t, &err) == -EINVAL,
		      "accepted: %s", cases[i].args);
		CHECK(cases[i].why[0] ? !strncmp(why, cases[i].why,
						 strlen(cases[i].why)) :
		      !why[0], "'%s' (len %llu): why '%s', expected '%s'",
		      cases[i].args, (unsigned long long)cases[i].len, why,
		      cases[i].why);
	}
	/* an accepted line (dmraid's raid4 spelling, after the indexed
	 * reading was refused) leaves nothing in why */
	memset(why, 'x', sizeof(why));
	CHECK(!parse("core 2 1024 nosync raid4 1 64 4 -1 " D4, 192, &t, &err) &&
	      !why[0], "accepted line leaves why '%.20s'", why);
}

/*
 * The table owns its strings: they survive dm's argv, a refused table
 * holds nothing, r45_table_free() clears what it freed, and a failed
 * allocation is -ENOMEM with nothing left (LeakSanitizer checks).
 */
static void test_ownership(void)
{
	struct r45_table t;
	struct line l;
	unsigned int i;
	char *err = NULL;

	split(&l, "disk 3 /dev/log 256 nosync raid5_ls 1 64 4 -1 " D4);
	CHECK(!r45_table_parse(&t, l.argc, l.argv, 3 * 64, &err, why), "%s", err);
	memset(l.buf, 'x', sizeof(l.buf) - 1);
	l.buf[sizeof(l.buf) - 1] = '\0';
	CHECK(t.strings && !strcmp(t.log_type, "disk") && t.log_argc == 3 &&
	      !strcmp(t.log_argv[0], "/dev/log") &&
	      !strcmp(t.log_argv[1], "256") && !strcmp(t.log_argv[2], "nosync"),
	      "log words after argv is gone");
	CHECK(!strcmp(t.paths[0], "/dev/a") && !strcmp(t.paths[3], "/dev/d"),
	      "paths after argv is gone");
	for (i = 0; i < t.nr_devs; i++)
		CHECK((const char *)t.paths[i] < l.buf ||
		      (const char *)t.paths[i] >= l.buf + sizeof(l.buf),
		      "path %u points into argv", i);
	r45_table_free(&t);
	CHECK(!t.strings && !t.log_argv[0] && !t.paths[0],
	      "pointers left after r45_table_free");
	r45_table_free(&t);		/* twice is harmless */

	/* refused (after the members were read): nothing kept */
	split(&l, "core 2 64 nosync raid5_ls 1 64 4 -1 " D4);
	CHECK(r45_table_parse(&t, l.argc, l.argv, 3 * 64 + 1, &err, why) == -EINVAL,
	      "bad length accepted");
	CHECK(!t.strings && !t.paths[0] && !t.log_argv[0],
	      "refused table keeps pointers");
	r45_table_free(&t);

	/* no memory for the strings */
	shim_kmalloc_fail = 1;
	split(&l, "core 2 64 nosync raid5_ls 1 64 4 -1 " D4);
	CHECK(r45_table_parse(&t, l.argc, l.argv, 3 * 64, &err, why) == -ENOMEM &&
	      err && strstr(err, "Cannot allocate"), "-ENOMEM: %s", err);
	CHECK(!t.strings && !t.paths[0], "failed table keeps pointers");
	shim_kmalloc_fail = 0;
}

/*
 * The line "dmsetup table" prints for a parsed table (as raid45_status
 * in dm-raid456.c writes it after the log's words): it must read back
 * as the same array.
 */
static void canonical(const struct r45_table *t, char *buf, size_t size)
{
	static const char *const sync_word[] = { "-1", "nosync", "sync" };
	FILE *f = fmemopen(buf, size, "w");
	unsigned int i;

	fprintf(f, "core 1 %u %s", t->region_size, r45_type_name(t->geom.type));
	if (t->geom.type == R45_RAID4)
		fprintf(f, " %d", t->geom.raid4_parity);
	fprintf(f, " 7 %u %u %u %u %u %s %u", t->geom.chunk_sectors,
		t->stripes, t->io_size, t->recover_io_size, t->bandwidth,
		sync_word[t->recovery_sync + 1], t->recovery_stripes);
	if (t->start_dirty_degraded)
		fprintf(f, " start_dirty_degraded");
	if (t->ppl)
		fprintf(f, " ppl %lld %llu 0x%08x", (long long)t->ppl_offset,
			(unsigned long long)t->ppl_size, t->ppl_signature);
	fprintf(f, " %u %d", t->nr_devs, t->dev_to_init);
	for (i = 0; i < t->nr_devs; i++)
		if (t->missing & (1UL << i))
			fprintf(f, " - -");
		else
			fprintf(f, " %s %llu", t->paths[i],
				(unsigned long long)t->offsets[i]);
	fclose(f);
	buf[size - 1] = '\0';
}

static void check_canonical(const struct r45_table *t, sector_t len,
			    const char *what)
{
	struct r45_table c;
	struct line l;
	char buf[2048], *err = NULL;
	unsigned int i;
	bool same;

	canonical(t, buf, sizeof(buf));
	split(&l, buf);
	if (r45_table_parse(&c, l.argc, l.argv, len, &err, why)) {
		CHECK(0, "canonical '%s' of '%s' refused: %s", buf, what, err);
		return;
	}
	same = !memcmp(&c.geom, &t->geom, sizeof(c.geom)) &&
	       c.nr_devs == t->nr_devs && c.dev_to_init == t->dev_to_init &&
	       c.stripes == t->stripes && c.io_size == t->io_size &&
	       c.recover_io_size == t->recover_io_size &&
	       c.bandwidth == t->bandwidth &&
	       c.recovery_sync == t->recovery_sync &&
	       c.recovery_stripes == t->recovery_stripes &&
	       c.missing == t->missing &&
	       c.start_dirty_degraded == t->start_dirty_degraded &&
	       c.ppl == t->ppl && c.ppl_offset == t->ppl_offset &&
	       c.ppl_size == t->ppl_size &&
	       c.ppl_signature == t->ppl_signature;
	for (i = 0; same && i < t->nr_devs; i++)
		same = c.offsets[i] == t->offsets[i] &&
		       !strcmp(c.paths[i], t->paths[i]);
	CHECK(same, "canonical '%s' of '%s' reads back differently", buf, what);
	r45_table_free(&c);
}

/* What an accepted line must satisfy, whatever it was. */
static void check_accepted(const struct r45_table *t, sector_t len,
			   const char *what)
{
	const struct r45_geom *g = &t->geom;
	unsigned int i;

	CHECK(t->nr_devs >= g->parity_disks + 2 && t->nr_devs <= R45_MAX_DISKS &&
	      g->raid_disks == t->nr_devs, "member count: %s", what);
	CHECK(g->dev_sectors * g->data_disks == len && g->dev_sectors &&
	      !(g->dev_sectors & (g->chunk_sectors - 1)), "geometry: %s", what);
	CHECK(g->chunk_sectors >= 8 && g->chunk_sectors <= 16384 &&
	      !(g->chunk_sectors & (g->chunk_sectors - 1)), "chunk: %s", what);
	CHECK(t->region_size >= 8 && !(t->region_size & (t->region_size - 1)),
	      "region: %s", what);
	CHECK(t->stripes >= R45_MIN_STRIPES && t->stripes <= R45_MAX_STRIPES &&
	      t->io_size >= 8 && t->io_size <= g->chunk_sectors &&
	      t->recover_io_size >= 8 && t->recover_io_size <= t->region_size &&
	      t->bandwidth >= 1 && t->bandwidth <= 100 &&
	      t->recovery_stripes >= 1 && t->recovery_stripes <= 64,
	      "raid params: %s", what);
	CHECK(t->dev_to_init >= -1 && t->dev_to_init < (int)t->nr_devs,
	      "dev_to_init: %s", what);
	CHECK(g->type != R45_RAID4 ||
	      (g->raid4_parity >= 0 && g->raid4_parity < (int)t->nr_devs),
	      "raid4 parity: %s", what);
	for (i = 0; i < t->nr_devs; i++)
		CHECK(t->paths[i] && t->offsets[i] <= (sector_t)-1 / 2,
		      "device %u: %s", i, what);
	CHECK((unsigned int)__builtin_popcountl(t->missing) <= g->parity_disks &&
	      !(t->missing >> t->nr_devs) &&
	      (t->dev_to_init < 0 || !(t->missing & (1UL << t->dev_to_init))),
	      "missing members: %s", what);
	check_canonical(t, len, what);
}

/* Mutated valid lines: words dropped, doubled, swapped or replaced. */
static void test_fuzz(unsigned int rounds)
{
	static const char *const bases[] = {
		"core 2 64 nosync raid5_ls 1 64 4 -1 " D4,
		"core 1 1024 raid4 -1 7 64 16 8 64 20 nosync 4 4 -1 " D4,
		"core 2 256 sync raid5_ra 2 64 32 locking none 4 1 " D4,
		"disk 2 /dev/l 512 raid5_ls 1 64 start_dirty_degraded 4 -1 - - /dev/b 0 /dev/c 0 /dev/d 0",
		"core 2 64 nosync raid6_zr 1 64 locking none start_dirty_degraded 5 -1 - - /dev/b 0 - - /dev/d 0 /dev/e 0",
		"core 2 64 nosync raid5_la 1 64 ppl -4080 2048 0x12345678 4 -1 " D4,
		"disk 3 /dev/l 512 sync raid6_nr 3 128 -1 64 4 3 " D4,
		"core 2 64 sync raid4 1 64 4 -1 " D4,
		"core 2 1024 nosync raid4 2 7 64 16 8 64 20 nosync 4 4 -1 " D4,
	};
	static const char *const junk[] = {
		"-1", "-2", "0", "1", "3", "4294967296", "18446744073709551616",
		"99999999999999999999", "abc", "sync", "nosync", "none",
		"cluster", "raid4", "core", "disk", "7", "65536", "16384",
		"0x10", "1e3", "-", "+8", "8\n", "locking", "start_dirty_degraded",
		"ppl", "-4080", "2048",
	};
	unsigned int i, accepted = 0;
	unsigned int seed = 4545;

	for (i = 0; i < rounds; i++) {
		const char *base = bases[rand_r(&seed) %
					 (sizeof(bases) / sizeof(*bases))];
		sector_t len = (sector_t)(1 + rand_r(&seed) % 4) * 3 * 512;
		const char *w[MAXW];
		unsigned int n = 0, m, k, j;
		struct line src;
		char args[2048], *err;
		struct r45_table t;
		size_t off = 0;

		split(&src, base);
		for (n = 0; n < src.argc; n++)
			w[n] = src.argv[n];
		for (m = 1 + rand_r(&seed) % 3; m && n; m--) {
			k = rand_r(&seed) % n;
			switch (rand_r(&seed) % 4) {
			case 0:	/* drop */
				memmove(&w[k], &w[k + 1], (n - k - 1) * sizeof(*w));
				n--;
				break;
			case 1:	/* double */
				if (n < MAXW - 1) {
					memmove(&w[k + 1], &w[k], (n - k) * sizeof(*w));
					n++;
				}
				break;
			case 2: { /* swap */
				const char *x = w[k];

				j = rand_r(&seed) % n;
				w[k] = w[j];
				w[j] = x;
				break;
			}
			default:
				w[k] = junk[rand_r(&seed) % (sizeof(junk) / sizeof(*junk))];
			}
		}
		for (j = 0; j < n; j++)
			off += snprintf(args + off, sizeof(args) - off, "%s%s",
					j ? " " : "", w[j]);
		if (!parse(args, len, &t, &err)) {
			accepted++;
			check_accepted(&t, len, args);
		} else {
			CHECK(err && *err, "refused without a message: %s", args);
		}
	}
	printf("  fuzz: %u lines, %u accepted\n", rounds, accepted);
	CHECK(accepted && accepted < rounds / 2, "mutations accepted %u of %u",
	      accepted, rounds);
}

int main(void)
{
	test_valid();
	test_invalid();
	test_raid4();
	test_why();
	test_ownership();
	test_fuzz(200000);
	free(kept_strings);
	if (failures)
		printf("FAIL unit-table-parser (%d checks failed)\n", failures);
	else
		printf("PASS unit-table-parser\n");
	return failures != 0;
}
