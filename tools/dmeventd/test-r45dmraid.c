// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of r45dmraid.c, dmraid's table lines as raid45 lines, over
 * the forms dmraid prints: Debian's dmraid 1.0.0.rc16 ("raid", the
 * kernel's dm-raid target) with nosync, with sync, with and without
 * region_size, with a missing member given as "-", as dmraid's error
 * target or as /dev/zero, with rebuild; dmraid's own raid45 lines
 * (offsets kept, an error target member made "- -"); the set picked out
 * of dmraid's whole output (its messages, other sets, partitions); and
 * refusals: RAID0/1/10, unknown types and parameters, counts that do not
 * match the words, metadata devices, too many missing members, bad
 * geometry, several segments, numbers that overflow.  Every converted
 * line must parse with the monitor's own raid45 table reader
 * (r45status.c).  The member order of an IMSM volume is read from "mdadm
 * --examine" (This Slot) and the members are put in it.  Fuzz loops of
 * mutated lines and examine texts must end in 0 or an error, never a
 * crash (run under AddressSanitizer and UBSan by tests/unit).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "r45dmraid.h"
#include "r45status.h"

#include "unit-check.h"

/*
 * The words after "0 <len> raid45" parse as a raid45 table line (the
 * monitor keeps words of up to R45_WORD_MAX - 1 characters: longer
 * paths are checked by the target alone).
 */
static bool raid45_readable(const char *line)
{
	struct r45_table t;
	const char *p = strstr(line, " raid45 "), *w;
	size_t n;

	if (!p)
		return false;
	for (w = p; *w; w += n) {
		w += strspn(w, " ");
		n = strcspn(w, " ");
		if (n >= R45_WORD_MAX)
			return true;
	}
	return !r45_table_parse(p + 8, &t);
}

/* dmraid's output converts to exactly want (with the set name expected). */
static void conv_ok(int line, const char *text, const char *set, const char *want_name,
		    const char *want)
{
	char name[R45DM_NAME_MAX], out[8192], err[256];
	int r;

	r = r45dm_convert(text, set, name, sizeof(name), out, sizeof(out), err, sizeof(err));
	if (r) {
		printf("  check failed (line %d): refused (%d: %s): \"%s\"\n", line, r, err, text);
		failures++;
		return;
	}
	CHECK(!strcmp(name, want_name), "line %d: name \"%s\", not \"%s\"", line, name, want_name);
	CHECK(!strcmp(out, want), "line %d:\n    got  \"%s\"\n    want \"%s\"", line, out, want);
	CHECK(raid45_readable(out), "line %d: the monitor cannot read \"%s\"", line, out);
}

/* refused with r and a message containing msg */
static void conv_bad(int line, const char *text, const char *set, int want_r, const char *msg)
{
	char name[R45DM_NAME_MAX], out[8192], err[256];
	int r;

	err[0] = '\0';
	out[0] = '\0';
	r = r45dm_convert(text, set, name, sizeof(name), out, sizeof(out), err, sizeof(err));
	CHECK(r == want_r, "line %d: %d, not %d, for \"%s\" (out \"%s\")", line, r, want_r, text,
	      out);
	CHECK(r == 0 || strstr(err, msg), "line %d: message \"%s\" lacks \"%s\"", line, err, msg);
}

#define OK(text, set, name, want) conv_ok(__LINE__, text, set, name, want)
#define BAD(text, msg) conv_bad(__LINE__, text, NULL, -EINVAL, msg)

/* As "dmraid -ay -t" printed them in the guest (Debian 12, tests/guest/86). */
#define VOL0 "isw_gdbjijgei_vol0"
#define DEB_NOSYNC VOL0 ": 0 104448 raid raid5_la 4 128 nosync region_size 64 4 - /dev/sdh - /dev/sdf - /dev/sdg - /dev/sde\n"
#define DEB_DEGRADED VOL0 ": 0 104448 raid raid5_la 4 128 sync region_size 64 4 - /dev/mapper/" VOL0 "_err_target - /dev/sdf - /dev/sdg - /dev/sde\n"

static void test_debian(void)
{
	int before = failures;

	/* clean set: nosync; region 64 < chunk 128: a row (3 x 128) rounded up */
	OK(DEB_NOSYNC, VOL0, VOL0,
	   "0 104448 raid45 core 2 512 nosync raid5_la 1 128 4 -1 /dev/sdh 0 /dev/sdf 0 /dev/sdg 0 /dev/sde 0");
	/* without a name: the only set */
	OK(DEB_NOSYNC, NULL, VOL0,
	   "0 104448 raid45 core 2 512 nosync raid5_la 1 128 4 -1 /dev/sdh 0 /dev/sdf 0 /dev/sdg 0 /dev/sde 0");
	OK(DEB_NOSYNC, "", VOL0,
	   "0 104448 raid45 core 2 512 nosync raid5_la 1 128 4 -1 /dev/sdh 0 /dev/sdf 0 /dev/sdg 0 /dev/sde 0");
	/* degraded: sync, and dmraid's error target in the missing member's place */
	OK(DEB_DEGRADED, VOL0, VOL0,
	   "0 104448 raid45 core 2 512 sync raid5_la 1 128 4 -1 - - /dev/sdf 0 /dev/sdg 0 /dev/sde 0");
	/* "-" for the missing member, last one */
	OK("s: 0 3072 raid raid5_ls 2 64 sync 4 - /dev/sdb - /dev/sdc - /dev/sdd - -", "s", "s",
	   "0 3072 raid45 core 2 256 sync raid5_ls 1 64 4 -1 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 - -");
	/* no sync word: dm-raid resyncs, so does raid45 */
	OK("s: 0 3072 raid raid5_rs 1 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", NULL, "s",
	   "0 3072 raid45 core 2 256 sync raid5_rs 1 64 4 -1 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0");
	/* a region of a chunk or more is kept */
	OK("s: 0 3072 raid raid5_ra 3 64 region_size 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	   NULL, "s",
	   "0 3072 raid45 core 2 64 sync raid5_ra 1 64 4 -1 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0");
	OK("s: 0 3072 raid raid5_ls 4 64 region_size 131072 nosync 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	   NULL, "s",
	   "0 3072 raid45 core 2 131072 nosync raid5_ls 1 64 4 -1 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0");
	/* a rebuild: dev_to_init */
	OK("s: 0 3072 raid raid5_la 4 64 rebuild 2 sync 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	   NULL, "s",
	   "0 3072 raid45 core 2 256 sync raid5_la 1 64 4 2 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0");
	/* raid4 and raid5_n: parity on the last member, said with -1 */
	OK("s: 0 3072 raid raid4 2 64 nosync 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", NULL, "s",
	   "0 3072 raid45 core 2 256 nosync raid4 -1 1 64 4 -1 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0");
	OK("s: 0 3072 raid raid5_n 2 64 nosync 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", NULL, "s",
	   "0 3072 raid45 core 2 256 nosync raid4 -1 1 64 4 -1 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0");
	/* /dev/zero: dmraid's stand-in for a disk it does not trust */
	OK("s: 0 3072 raid raid5_la 2 64 nosync 4 - /dev/sdb - /dev/zero - /dev/sdd - /dev/sde", NULL, "s",
	   "0 3072 raid45 core 2 256 nosync raid5_la 1 64 4 -1 /dev/sdb 0 - - /dev/sdd 0 /dev/sde 0");
	/* a disk left alone from a set whose members mdadm changed */
	BAD("s: 0 55296 raid raid5_la 4 128 nosync region_size 64 4 - /dev/mapper/s_err_target - /dev/zero - /dev/mapper/s_err_target - /dev/mapper/s_err_target",
	    "4 of 4 members missing");
	/* RAID6, two missing */
	OK("s: 0 2048 raid raid6_nr 2 64 sync 4 - - - /dev/sdc - /dev/sdd - /dev/mapper/s_err_target",
	   NULL, "s",
	   "0 2048 raid45 core 2 128 sync raid6_nr 1 64 4 -1 - - /dev/sdc 0 /dev/sdd 0 - -");
	/* tabs, trailing spaces and a CR */
	OK("s:\t0 3072\traid raid5_la 1 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde  \r\n", NULL, "s",
	   "0 3072 raid45 core 2 256 sync raid5_la 1 64 4 -1 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0");
	report("dmraid-debian-raid-lines", before);
}

static void test_raid45(void)
{
	int before = failures;

	/* upstream dmraid's line: unchanged (its region kept even below a chunk) */
	OK(VOL0 ": 0 104448 raid45 core 2 64 nosync raid5_la 1 128 4 -1 /dev/sdh 0 /dev/sdf 0 /dev/sdg 0 /dev/sde 0\n",
	   VOL0, VOL0,
	   "0 104448 raid45 core 2 64 nosync raid5_la 1 128 4 -1 /dev/sdh 0 /dev/sdf 0 /dev/sdg 0 /dev/sde 0");
	/* offsets kept (a second volume of an IMSM container), error target "- -" */
	OK("v1: 0 92160 raid45 core 2 128 sync raid5_la 1 128 4 -1 /dev/mapper/v1_err_target 40960 /dev/sdf 40960 /dev/sdg 40960 /dev/sde 40960",
	   "v1", "v1",
	   "0 92160 raid45 core 2 128 sync raid5_la 1 128 4 -1 - - /dev/sdf 40960 /dev/sdg 40960 /dev/sde 40960");
	/* a rebuild index; raid4 as dmraid writes it (no parity index) */
	OK("r4: 0 3072 raid45 core 2 1024 sync raid4 1 64 4 3 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0",
	   "r4", "r4",
	   "0 3072 raid45 core 2 1024 sync raid4 -1 1 64 4 3 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0");
	/* a path that only looks like an error target stays a member */
	OK("v: 0 3072 raid45 core 2 1024 sync raid5_ls 1 64 4 -1 /dev/mapper/w_err_target 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0",
	   "v", "v",
	   "0 3072 raid45 core 2 1024 sync raid5_ls 1 64 4 -1 /dev/mapper/w_err_target 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0");
	OK("v: 0 3072 raid45 core 2 1024 sync raid5_ls 1 64 4 -1 v_err_target 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0",
	   "v", "v",
	   "0 3072 raid45 core 2 1024 sync raid5_ls 1 64 4 -1 v_err_target 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0");
	report("dmraid-raid45-lines", before);
}

static void test_pick(void)
{
	int before = failures;
	/* dmraid's whole output: messages, a set it could not map, partitions */
	static const char out[] =
		"ERROR: isw: wrong number of devices in RAID set \"" VOL0 "\" [3/4] on /dev/sdf\n"
		"ERROR: dm_raid: allocating\n"
		"ERROR: no mapping possible for RAID set isw_gdbjijgei_vol1\n"
		DEB_NOSYNC
		VOL0 "p1: 0 100000 linear /dev/mapper/" VOL0 " 2048\n"
		"RAID set \"" VOL0 "\" was not activated\n";

	OK(out, VOL0, VOL0,
	   "0 104448 raid45 core 2 512 nosync raid5_la 1 128 4 -1 /dev/sdh 0 /dev/sdf 0 /dev/sdg 0 /dev/sde 0");
	/* the partition's line is a linear mapping: not a RAID4/5/6 set */
	conv_bad(__LINE__, out, VOL0 "p1", -EINVAL, "linear mapping");
	/* the set dmraid could not map (a volume at an offset on its disks) */
	conv_bad(__LINE__, out, "isw_gdbjijgei_vol1", -ENOENT, "no table for isw_gdbjijgei_vol1");
	/* a name that is a prefix of another's */
	conv_bad(__LINE__, out, "isw_gdbjijgei_vol", -ENOENT, "no table");
	/* two sets, no name */
	conv_bad(__LINE__, out, NULL, -EINVAL, "several sets");
	conv_bad(__LINE__, "", NULL, -ENOENT, "no table");
	conv_bad(__LINE__, "no raid sets and with names: \"x\"\n", "x", -ENOENT, "no table for x");
	/* several segments (a RAID0 set of unequal disks, a linear set) */
	conv_bad(__LINE__, "s: 0 3072 raid raid5_la 1 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde\n"
		 "s: 3072 1024 linear /dev/sdf 0\n", "s", -EINVAL, "2 table segments");
	/* a name too long for dm */
	{
		char text[400], name[R45DM_NAME_MAX], tb[64], err[256];

		memset(text, 'n', 200);
		strcpy(text + 200, ": 0 3072 raid raid5_la 1 64 3 - /dev/sdb - /dev/sdc - /dev/sdd");
		CHECK(r45dm_pick(text, NULL, name, sizeof(name), tb, sizeof(tb), err, sizeof(err)) ==
		      -ENAMETOOLONG, "long name");
		/* the table too long for the caller's buffer */
		CHECK(r45dm_pick(DEB_NOSYNC, NULL, name, sizeof(name), tb, sizeof(tb), err, sizeof(err)) ==
		      -ENOSPC, "short table buffer");
	}
	report("dmraid-pick-set", before);
}

static void test_refused(void)
{
	int before = failures;
	char text[20000];
	size_t o;
	int i;

	BAD("s: 0 3072 raid raid0 1 64 2 - /dev/sdb - /dev/sdc", "raid0 set");
	BAD("s: 0 3072 raid raid1 1 64 2 - /dev/sdb - /dev/sdc", "raid1 set");
	BAD("s: 0 3072 raid raid10 1 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "raid10 set");
	BAD("s: 0 3072 striped 2 128 /dev/sdb 0 /dev/sdc 0", "striped mapping");
	BAD("s: 0 3072 mirror core 2 64 nosync 2 /dev/sdb 0 /dev/sdc 0 1 handle_errors", "mirror mapping");
	BAD("s: 0 3072 zero", "target \"zero\"");
	BAD("s: 0 3072 raid raid6_n_6 1 64 5 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde - /dev/sdf",
	    "RAID type raid6_n_6");
	BAD("s: 0 3072 raid raid5_xx 1 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "RAID type");
	/* parameters */
	BAD("s: 0 3072 raid raid5_la 3 64 daemon_sleep 50 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	    "parameter \"daemon_sleep\"");
	BAD("s: 0 3072 raid raid5_la 3 64 sync nosync 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	    "twice");
	BAD("s: 0 3072 raid raid5_la 5 64 region_size 64 region_size 128 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	    "twice");
	BAD("s: 0 3072 raid raid5_la 2 64 region_size 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	    "without a value");
	BAD("s: 0 3072 raid raid5_la 3 64 region_size 96 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	    "region size \"96\"");
	BAD("s: 0 3072 raid raid5_la 3 64 region_size 4 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	    "region size \"4\"");
	BAD("s: 0 3072 raid raid5_la 5 64 rebuild 1 rebuild 2 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	    "more than one member to rebuild");
	BAD("s: 0 3072 raid raid5_la 3 64 rebuild 4 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	    "member to rebuild 4");
	BAD("s: 0 3072 raid raid5_la 3 64 rebuild -1 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	    "rebuild without");
	BAD("s: 0 3072 raid raid5_la 3 64 rebuild 0 4 - - - /dev/sdc - /dev/sdd - /dev/sde",
	    "member to rebuild 0 is missing");
	BAD("s: 0 3072 raid raid5_la 3 64 rebuild 1 4 - - - /dev/sdc - /dev/sdd - /dev/sde",
	    "nothing left");
	/* counts */
	BAD("s: 0 3072 raid raid5_la 2 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "parameter \"4\"");
	BAD("s: 0 3072 raid raid5_la 0 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "number of dm-raid parameters");
	BAD("s: 0 3072 raid raid5_la 30 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "fewer given");
	BAD("s: 0 3072 raid raid5_la 1 64 5 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "5 members announced, 8 words");
	BAD("s: 0 3072 raid raid5_la 1 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde x", "9 words");
	BAD("s: 0 3072 raid raid5_la 1 64 4 /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "7 words");
	BAD("s: 0 3072 raid raid5_la 1 64 33 - /dev/sdb", "number of members");
	BAD("s: 0 3072 raid raid5_la 1 64 2 - /dev/sdb - /dev/sdc", "2 members: raid5_la needs 3");
	BAD("s: 0 2048 raid raid6_zr 1 64 3 - /dev/sdb - /dev/sdc - /dev/sdd", "3 members: raid6_zr needs 4");
	BAD("s: 0 3072 raid raid5_la 1 64 4 /dev/sdx1 /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	    "metadata device /dev/sdx1");
	/* members */
	BAD("s: 0 3072 raid raid5_la 1 64 4 - - - /dev/sdc - /dev/sdd - -", "2 of 4 members missing");
	BAD("s: 0 2048 raid raid6_nr 1 64 4 - - - - - /dev/sdd - -", "3 of 4 members missing");
	BAD("s: 0 3072 raid raid5_la 1 64 4 - /dev/sdb - /dev/sdc - /dev/sdb - /dev/sde", "named twice");
	/* geometry */
	BAD("s: 0 3000 raid raid5_la 1 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "does not divide");
	BAD("s: 0 3072 raid raid5_la 1 96 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "chunk size 96");
	BAD("s: 0 3072 raid raid5_la 1 4 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "chunk size 4");
	BAD("s: 0 0 raid raid5_la 1 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "length 0");
	BAD("s: 1024 3072 raid raid5_la 1 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "starting at sector 1024");
	/* numbers */
	BAD("s: 0 -3072 raid raid5_la 1 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "not numbers");
	BAD("s: 0 18446744073709551616 raid raid5_la 1 64 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
	    "not numbers");
	BAD("s: 0 3072 raid raid5_la 1 0x40 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "chunk size \"0x40\"");
	BAD("s: 0 3072 raid raid5_la 1 4294967360 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde", "chunk size");
	BAD("s: 0 3072", "not a table line");
	BAD("s: 0 3072 raid raid5_la", "too short");
	/* raid45 lines not of dmraid's form */
	BAD("s: 0 3072 raid45 disk 2 /dev/sdf 1024 raid5_la 1 64 4 -1 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0",
	    "log \"disk 2\"");
	BAD("s: 0 3072 raid45 core 2 1024 maybe raid5_la 1 64 4 -1 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0",
	    "\"maybe\" where sync");
	BAD("s: 0 3072 raid45 core 2 1000 sync raid5_la 1 64 4 -1 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0",
	    "region size \"1000\"");
	BAD("s: 0 3072 raid45 core 2 1024 sync raid5_la 2 64 256 4 -1 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0",
	    "2 raid parameters");
	BAD("s: 0 3072 raid45 core 2 1024 sync raid0 1 64 4 -1 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0",
	    "RAID type raid0");
	BAD("s: 0 3072 raid45 core 2 1024 sync raid5_la 1 64 4 -2 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0",
	    "member to rebuild \"-2\"");
	BAD("s: 0 3072 raid45 core 2 1024 sync raid5_la 1 64 4 -1 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde",
	    "7 words");
	BAD("s: 0 3072 raid45 core 2 1024 sync raid5_la 1 64 4 -1 /dev/sdb 0 /dev/sdc x /dev/sdd 0 /dev/sde 0",
	    "offset \"x\"");
	BAD("s: 0 3072 raid45 core 2 1024 sync raid5_la 1 64 4 -1 /dev/mapper/s_err_target 0 /dev/sdc 0 - - /dev/sde 0",
	    "2 of 4 members missing");
	/* too long a line, too many words, too long a path */
	o = (size_t)snprintf(text, sizeof(text), "s: 0 3072 raid raid5_la 1 64 4 - /dev/");
	memset(text + o, 'x', 17000);
	strcpy(text + o + 17000, " - /dev/sdc - /dev/sdd - /dev/sde");
	conv_bad(__LINE__, text, NULL, -ENOSPC, "longer than");
	o = (size_t)snprintf(text, sizeof(text), "s: 0 3072 raid raid5_la 1 64 4 - /dev/");
	memset(text + o, 'x', 300);
	strcpy(text + o + 300, " - /dev/sdc - /dev/sdd - /dev/sde");
	BAD(text, "member 0: path longer");
	o = (size_t)snprintf(text, sizeof(text), "s: 0 3072 raid raid5_la 1 64 200");
	for (i = 0; i < 200; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, " - /dev/d%d", i);
	BAD(text, "more than");
	report("dmraid-refused", before);
}

static void test_format_uuid(void)
{
	int before = failures;
	struct r45dm_set s;
	char buf[64], err[256], name[200];

	CHECK(!r45dm_parse("0 104448 raid raid5_la 4 128 nosync region_size 64 4 - /dev/sdh - /dev/sdf - /dev/sdg - /dev/sde",
			   VOL0, &s, err, sizeof(err)), "parse: %s", err);
	CHECK(s.source == R45DM_FROM_RAID && s.given_region == 64 && s.region == 512 &&
	      s.nosync && s.nr_devs == 4 && !s.nr_missing && s.dev_to_init == -1 &&
	      s.chunk == 128 && s.len == 104448 && !strcmp(s.devs[1], "/dev/sdf"),
	      "parsed fields");
	CHECK(r45dm_format(&s, buf, sizeof(buf)) == -ENOSPC, "short buffer");
	CHECK(r45dm_format(&s, buf, 20) == -ENOSPC, "very short buffer");
	CHECK(!r45dm_uuid(VOL0, buf, sizeof(buf)) && !strcmp(buf, "DMRAID45-" VOL0), "uuid %s", buf);
	memset(name, 'n', 119);
	name[119] = '\0';
	CHECK(!r45dm_uuid(name, err, sizeof(err)) && strlen(err) == 128, "uuid of 128");
	name[119] = 'n';
	name[120] = '\0';
	CHECK(r45dm_uuid(name, err, sizeof(err)) == -ENAMETOOLONG, "uuid of 129");
	CHECK(r45dm_uuid("", err, sizeof(err)) == -ENAMETOOLONG, "empty name");
	CHECK(r45dm_uuid(VOL0, buf, 10) == -ENAMETOOLONG, "short uuid buffer");
	report("dmraid-format-uuid", before);
}

/* "mdadm --examine /dev/sde" of a member of two IMSM volumes (the guest) */
static const char examine[] =
	"/dev/sde:\n"
	"          Magic : Intel Raid ISM Cfg Sig.\n"
	"        Version : 1.3.00\n"
	"    Orig Family : 25ab6590\n"
	"         Family : 25ab6590\n"
	"     Generation : 00000003\n"
	"     Attributes : All supported\n"
	"           UUID : 0b7153ca:a3bfa9c8:519915fb:99d8ba18\n"
	"       Checksum : 71a06927 correct\n"
	"    MPB Sectors : 2\n"
	"          Disks : 4\n"
	"   RAID Devices : 2\n"
	"\n"
	"  Disk03 Serial : 10000\n"
	"          State : active\n"
	"             Id : 04000000\n"
	"    Usable Size : 71518 (34.92 MiB 36.62 MB)\n"
	"\n"
	"[vol0]:\n"
	"       Subarray : 0\n"
	"           UUID : 2ee6471a:ac4914c1:4a33ff0c:6fb44447\n"
	"     RAID Level : 5\n"
	"        Members : 4\n"
	"          Slots : [UUUU]\n"
	"    Failed disk : none\n"
	"      This Slot : 3\n"
	"    Sector Size : 512\n"
	"     Array Size : 98304 (48.00 MiB 50.33 MB)\n"
	"   Per Dev Size : 34816 (17.00 MiB 17.83 MB)\n"
	"  Sector Offset : 0\n"
	"    Num Stripes : 256\n"
	"     Chunk Size : 64 KiB\n"
	"       Reserved : 0\n"
	"  Migrate State : idle\n"
	"      Map State : normal\n"
	"    Dirty State : clean\n"
	"     RWH Policy : off\n"
	"      Volume ID : 1\n"
	"\n"
	"[vol1]:\n"
	"       Subarray : 1\n"
	"     RAID Level : 5\n"
	"        Members : 4\n"
	"          Slots : [UUUU]\n"
	"    Failed disk : none\n"
	"      This Slot : 1 (out-of-sync)\n"
	"  Sector Offset : 40960\n"
	"    Dirty State : clean\n"
	"\n"
	"  Disk00 Serial : 16000\n"
	"          State : active\n"
	"             Id : 07000000\n";

static void test_imsm(void)
{
	int before = failures, slots[R45DM_MAX_MEMBERS];
	struct r45dm_imsm_volume v;
	struct r45dm_set s;
	char err[256], buf[512];

	CHECK(r45dm_isw_volume(VOL0) && !strcmp(r45dm_isw_volume(VOL0), "vol0"), "volume of " VOL0);
	CHECK(r45dm_isw_volume("isw_abc_My_Volume") &&
	      !strcmp(r45dm_isw_volume("isw_abc_My_Volume"), "My_Volume"), "volume with _");
	CHECK(!r45dm_isw_volume("isw_abc") && !r45dm_isw_volume("isw__v") &&
	      !r45dm_isw_volume("pdc_abc_v") && !r45dm_isw_volume("isw_abc_"), "not isw volumes");

	CHECK(!r45dm_imsm_examine(examine, "vol0", &v) && v.slot == 3 && v.members == 4 &&
	      v.offset == 0, "vol0: slot %d members %u offset %llu", v.slot, v.members,
	      (unsigned long long)v.offset);
	CHECK(!r45dm_imsm_examine(examine, "vol1", &v) && v.slot == 1 && v.members == 4 &&
	      v.offset == 40960, "vol1: slot %d offset %llu", v.slot, (unsigned long long)v.offset);
	CHECK(r45dm_imsm_examine(examine, "vol", &v) == -ENOENT, "no volume vol");
	CHECK(r45dm_imsm_examine(examine, "vol00", &v) == -ENOENT, "no volume vol00");
	CHECK(r45dm_imsm_examine("mdadm: No md superblock detected on /dev/sdi.\n", "vol0", &v) ==
	      -ENOENT, "no metadata");
	CHECK(r45dm_imsm_examine("[vol0]:\n  This Slot : ?\n  Members : 4\n  Sector Offset : 0\n",
				 "vol0", &v) == 0 && v.slot == -1, "slot ?");
	CHECK(r45dm_imsm_examine("[vol0]:\n  This Slot : 2\n  Members : 4\n", "vol0", &v) == -EINVAL,
	      "no offset");
	CHECK(r45dm_imsm_examine("[vol0]:\n  This Slot : 2\n  Members : x\n  Sector Offset : 0\n",
				 "vol0", &v) == -EINVAL, "members not a number");
	CHECK(r45dm_imsm_examine("[vol0]:\n  This Slot : 2\n  Members : 4\n  Sector Offset : 0\n"
				 "[vol0]:\n  This Slot : 1\n", "vol0", &v) == -EINVAL, "twice");
	/* the section ends at an empty line: fields after it are not its */
	CHECK(r45dm_imsm_examine("[vol0]:\n  This Slot : 2\n  Members : 4\n\n  Sector Offset : 0\n",
				 "vol0", &v) == -EINVAL, "field after the section");

	/* after mdadm replaced member 1: dmraid lists sdh sdg sde sdi */
	CHECK(!r45dm_parse("0 55296 raid raid5_la 4 128 nosync region_size 64 4 - /dev/sdh - /dev/sdg - /dev/sde - /dev/sdi",
			   VOL0, &s, err, sizeof(err)), "parse: %s", err);
	slots[0] = 0;
	slots[1] = 2;
	slots[2] = 3;
	slots[3] = 1;
	CHECK(r45dm_reorder(&s, slots, err, sizeof(err)) == 1, "reordered");
	CHECK(!r45dm_format(&s, buf, sizeof(buf)) &&
	      !strcmp(buf, "0 55296 raid45 core 2 512 nosync raid5_la 1 128 4 -1 /dev/sdh 0 /dev/sdi 0 /dev/sdg 0 /dev/sde 0"),
	      "reordered: %s", buf);
	CHECK(r45dm_reorder(&s, (int[]){ 0, 1, 2, 3 }, err, sizeof(err)) == 0, "in order");
	/* dev_to_init moves with its member */
	CHECK(!r45dm_parse("0 3072 raid raid5_la 3 64 rebuild 1 4 - /dev/sdb - /dev/sdc - /dev/sdd - /dev/sde",
			   "s", &s, err, sizeof(err)), "parse: %s", err);
	CHECK(r45dm_reorder(&s, (int[]){ 1, 3, 0, 2 }, err, sizeof(err)) == 1, "reordered 2");
	CHECK(!r45dm_format(&s, buf, sizeof(buf)) &&
	      !strcmp(buf, "0 3072 raid45 core 2 256 sync raid5_la 1 64 4 3 /dev/sdd 0 /dev/sdb 0 /dev/sde 0 /dev/sdc 0"),
	      "reordered 2: %s", buf);
	/* a missing member takes the slot left */
	CHECK(!r45dm_parse("0 3072 raid raid5_la 2 64 sync 4 - - - /dev/sdc - /dev/sdd - /dev/sde",
			   "s", &s, err, sizeof(err)), "parse: %s", err);
	CHECK(r45dm_reorder(&s, (int[]){ -1, 3, 0, 2 }, err, sizeof(err)) == 1, "reordered 3");
	CHECK(!r45dm_format(&s, buf, sizeof(buf)) &&
	      !strcmp(buf, "0 3072 raid45 core 2 256 sync raid5_la 1 64 4 -1 /dev/sdd 0 - - /dev/sde 0 /dev/sdc 0"),
	      "reordered 3: %s", buf);
	CHECK(r45dm_reorder(&s, (int[]){ 1, -1, 1, 0 }, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "taken twice"), "slot twice: %s", err);
	CHECK(r45dm_reorder(&s, (int[]){ 4, -1, 1, 0 }, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "slot 4 of 4"), "slot out of range: %s", err);
	CHECK(r45dm_reorder(&s, (int[]){ -1, -1, 1, 0 }, err, sizeof(err)) == -EINVAL,
	      "present member without a slot");
	/* mutated examine texts: 0 or an error, never a crash */
	{
		static const char alphabet[] = "0123456789 :[]\nvolThis SlotMembersSector Offset";
		size_t len = strlen(examine);
		char *t = malloc(len + 1);
		unsigned int iter;
		int r, m;

		srand(4529);
		for (iter = 0; t && iter < 20000; iter++) {
			memcpy(t, examine, len + 1);
			for (m = 0; m < 1 + rand() % 6; m++) {
				size_t pos = (size_t)rand() % len;

				if (rand() % 4)
					t[pos] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
				else
					t[pos] = '\0';
			}
			r = r45dm_imsm_examine(t, (rand() & 1) ? "vol0" : "vol1", &v);
			CHECK(r == 0 || r == -ENOENT || r == -EINVAL, "examine fuzz: %d", r);
			CHECK(r || v.slot < R45DM_MAX_MEMBERS, "examine fuzz: slot %d", v.slot);
		}
		free(t);
	}
	report("dmraid-imsm-member-order", before);
}

/* the plugin's record of replaced members */
static void test_replaced(void)
{
	int before = failures;
	uint32_t m;

	CHECK(!r45dm_replaced_members("", &m) && !m, "empty");
	CHECK(!r45dm_replaced_members("1796541749 member 1 (8:80) replaced by /dev/sdi (8:128)\n", &m) &&
	      m == 2, "one: %#x", m);
	CHECK(!r45dm_replaced_members("1 member 1 (8:80) replaced by /dev/sdi (8:128)\n"
				      "2 member 3 (8:64) replaced by /dev/sdj (8:144)\n\n"
				      "3 member 31 (8:1) replaced by /dev/x (8:2)", &m) &&
	      m == (2u | 8u | 0x80000000u), "three: %#x", m);
	CHECK(r45dm_replaced_members("member 1 (8:80) replaced\n", &m) == -EINVAL, "no time");
	CHECK(r45dm_replaced_members("1 member x (8:80)\n", &m) == -EINVAL, "no index");
	CHECK(r45dm_replaced_members("1 member 32 (8:80)\n", &m) == -EINVAL, "index 32");
	CHECK(r45dm_replaced_members("1 member 1\n", &m) == -EINVAL, "nothing after the index");
	CHECK(r45dm_replaced_members("1 member 1 (8:80)\ngarbage\n", &m) == -EINVAL, "garbage");
	CHECK(r45dm_replaced_members("1 member 99999999999999999999999 (8:80)\n", &m) == -EINVAL,
	      "overflow");
	report("dmraid-replaced-record", before);
}

/* Mutated lines: 0 (and a line the monitor reads) or an error, never a crash. */
static void test_fuzz(void)
{
	static const char *const seeds[] = {
		DEB_NOSYNC,
		DEB_DEGRADED,
		"s: 0 2048 raid raid6_nr 4 64 sync rebuild 1 4 - /dev/sdb - /dev/sdc - /dev/sdd - -",
		"v1: 0 92160 raid45 core 2 128 sync raid5_la 1 128 4 -1 /dev/mapper/v1_err_target 40960 /dev/sdf 40960 /dev/sdg 40960 /dev/sde 40960",
		"r4: 0 3072 raid45 core 2 1024 sync raid4 1 64 4 3 /dev/sdb 0 /dev/sdc 0 /dev/sdd 0 /dev/sde 0",
	};
	static const char alphabet[] = "0123456789 -:/\n\traidsyncnoregion_size";
	int before = failures, accepted = 0, rejected = 0;
	unsigned int iter;
	char buf[1024], name[R45DM_NAME_MAX], out[4096], err[256];

	srand(4528);
	for (iter = 0; iter < 100000; iter++) {
		const char *s = seeds[rand() % (int)(sizeof(seeds) / sizeof(seeds[0]))];
		size_t len = strlen(s);
		int muts = 1 + rand() % 4, m, r;

		memcpy(buf, s, len + 1);
		for (m = 0; m < muts; m++) {
			size_t pos = len ? (size_t)rand() % len : 0;

			switch (rand() % 5) {
			case 0:	/* replace a character */
				buf[pos] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
				break;
			case 1:	/* cut */
				buf[pos] = '\0';
				len = pos;
				break;
			case 2:	/* delete a character */
				memmove(buf + pos, buf + pos + 1, len - pos);
				if (len)
					len--;
				break;
			case 3:	/* duplicate a stretch */
				if (len + 40 < sizeof(buf)) {
					size_t n = (size_t)rand() % 40;

					if (pos + n > len)
						n = len - pos;
					memmove(buf + pos + n, buf + pos, len - pos + 1);
					len += n;
				}
				break;
			default: /* a digit more */
				if (len + 1 < sizeof(buf)) {
					memmove(buf + pos + 1, buf + pos, len - pos + 1);
					buf[pos] = (char)('0' + rand() % 10);
					len++;
				}
				break;
			}
		}
		r = r45dm_convert(buf, (rand() & 1) ? NULL : "s", name, sizeof(name), out, sizeof(out),
				  err, sizeof(err));
		if (!r) {
			accepted++;
			CHECK(raid45_readable(out), "fuzz: converted \"%s\" to unreadable \"%s\"", buf, out);
		} else {
			rejected++;
			CHECK(r == -EINVAL || r == -ENOENT || r == -ENOSPC || r == -ENAMETOOLONG,
			      "fuzz: %d for \"%s\"", r, buf);
			CHECK(err[0], "fuzz: no message for \"%s\"", buf);
		}
	}
	CHECK(accepted > 100 && rejected > 100, "fuzz: %d accepted, %d rejected", accepted, rejected);
	printf("  fuzz: %u lines, %d converted\n", iter, accepted);
	report("dmraid-fuzz", before);
}

int main(void)
{
	test_debian();
	test_raid45();
	test_pick();
	test_refused();
	test_format_uuid();
	test_imsm();
	test_replaced();
	test_fuzz();
	return failures ? 1 : 0;
}
