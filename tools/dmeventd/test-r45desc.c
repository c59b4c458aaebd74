// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of r45desc.c, the array descriptions: good files parse,
 * every malformed form is refused with its file:line message, a
 * description survives parse -> format -> parse, the table lines built
 * from descriptions (healthy, a failed, a missing and a rebuilding
 * member, disk log, ppl, raid4, raid params), the atomic replacement
 * (a failure or a crash between the write and the rename leaves the old
 * file), recording failures, finding a description by name or uuid,
 * and random damage to a file never crashes the parser.  (~1,200 lines:
 * one binary for r45desc.c and r45desc-file.c, whose tests share the
 * fixtures, the test seams and the temporary directory.)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include "r45desc.h"

#include "unit-check.h"

/* a path's "device": 8:<its last byte> (r45desc_devno) */
static int fake_devno(const char *path, dev_t *dev)
{
	size_t n = strlen(path);

	if (!n)
		return -ENOENT;
	*dev = makedev(8, (unsigned char)path[n - 1]);
	return 0;
}

/* the devices the kernel has: those the description names (fake_devno) */
static dev_t devs[R45_MAX_MEMBERS];

static const dev_t *devs_of(const char *path)
{
	struct r45desc d;
	char err[256];
	unsigned int i;

	memset(devs, 0, sizeof(devs));
	if (r45desc_load(path, &d, err, sizeof(err)))
		return devs;
	for (i = 0; i < d.nr_members; i++)
		if (d.m[i].path[0])
			fake_devno(d.m[i].path, &devs[i]);
	return devs;
}

static const char good[] =
	"# an array\n"
	"version 1\n"
	"name r5\n"
	"uuid R45-6f1c0e9a4b2d4c7e8a1b3c5d7e9f0a1b\n"
	"\n"
	"type raid5_ls\n"
	"chunk 128\n"
	"region 8192\n"
	"size 786432\n"
	"log core nosync\n"
	"members 4\n"
	"member 0 /dev/disk/by-id/ata-A 2048 current\n"
	"member 1 /dev/disk/by-id/ata-B 2048 current\n"
	"member 2 /dev/disk/by-id/ata-C 2048 current\n"
	"member 3 /dev/disk/by-id/ata-D 2048 current\n";

static char tmpdir[64];

static int parse(const char *text, struct r45desc *d, char *err, size_t size)
{
	return r45desc_parse(text, strlen(text), "t.conf", d, err, size);
}

/* src with the line starting with key replaced by repl ("" drops it) */
static void edit(char *buf, size_t size, const char *src, const char *key, const char *repl)
{
	const char *p = src, *nl;
	size_t o = 0, kl = strlen(key);

	buf[0] = '\0';
	while (*p) {
		nl = strchr(p, '\n');
		if (!strncmp(p, key, kl) && (p[kl] == ' ' || p[kl] == '\n'))
			o += snprintf(buf + o, size - o, "%s%s", repl, repl[0] ? "\n" : "");
		else
			o += snprintf(buf + o, size - o, "%.*s\n", (int)(nl - p), p);
		p = nl + 1;
	}
}

static void with_line(char *buf, size_t size, const char *key, const char *repl)
{
	edit(buf, size, good, key, repl);
}

static void test_good(void)
{
	int before = failures;
	struct r45desc d;
	char err[256], buf[2048];

	CHECK(!parse(good, &d, err, sizeof(err)), "good: %s", err);
	CHECK(!strcmp(d.name, "r5") && !strcmp(d.type, "raid5_ls") && d.chunk == 128 &&
	      d.region == 8192 && d.size == 786432 && !d.disk_log && d.nosync &&
	      d.nr_members == 4 && d.m[3].offset == 2048 &&
	      !strcmp(d.m[1].path, "/dev/disk/by-id/ata-B") &&
	      d.m[2].state == R45DESC_CURRENT && d.parity_dev == -1 && !d.ppl,
	      "good: fields");

	/* tabs, CRLF, trailing blanks, no final newline, states */
	CHECK(!parse("version 1\r\nname\tx\nuuid u \ntype raid6_nr\nchunk 64\nregion 1024\n"
		     "size 196608\nlog disk /dev/sdz1\nmembers 5\n"
		     "member 0 /dev/sda 0 current\nmember 1 /dev/sdb 0 failed\n"
		     "member 2 - - missing\nmember 3 /dev/sdd 0 rebuilding\n"
		     "member 4 /dev/sde 0 missing", &d, err, sizeof(err)), "raid6: %s", err);
	CHECK(d.disk_log && !d.nosync && !strcmp(d.log_dev, "/dev/sdz1") &&
	      d.m[1].state == R45DESC_FAILED && d.m[2].state == R45DESC_MISSING &&
	      !d.m[2].path[0] && d.m[3].state == R45DESC_REBUILDING &&
	      d.m[4].state == R45DESC_MISSING, "raid6: fields");

	with_line(buf, sizeof(buf), "type", "type raid4\nparity 0\nstripes 512\nbandwidth 30\nppl -4080 2048 0x14901a8c");
	CHECK(!parse(buf, &d, err, sizeof(err)), "raid4: %s", err);
	CHECK(d.parity_dev == 0 && d.stripes == 512 && d.bandwidth == 30 && d.ppl &&
	      d.ppl_offset == -4080 && d.ppl_size == 2048 && d.ppl_signature == 0x14901a8c,
	      "raid4: fields");
	with_line(buf, sizeof(buf), "type", "type raid5_la\nppl 8 16 12345");
	CHECK(!parse(buf, &d, err, sizeof(err)) && d.ppl_signature == 12345, "ppl decimal: %s", err);

	/* boot-degraded: version 2; without it never (0), as in version 1 */
	CHECK(!d.boot_degraded, "no boot-degraded: %u", d.boot_degraded);
	with_line(buf, sizeof(buf), "version", "version 2\nboot-degraded 30");
	CHECK(!parse(buf, &d, err, sizeof(err)) && d.boot_degraded == 30, "boot-degraded 30: %s", err);
	with_line(buf, sizeof(buf), "version", "version 2\nboot-degraded 86400");
	CHECK(!parse(buf, &d, err, sizeof(err)) && d.boot_degraded == 86400, "boot-degraded max: %s", err);
	with_line(buf, sizeof(buf), "version", "version 2\nboot-degraded never");
	CHECK(!parse(buf, &d, err, sizeof(err)) && !d.boot_degraded, "boot-degraded never: %s", err);
	report("r45desc-good", before);
}

struct bad {
	const char *key, *repl;	/* good with this line changed */
	const char *msg;	/* expected in the error */
};

static const struct bad bads[] = {
	{ "version", "version 3", "t.conf:2: version \"3\": this program reads versions 1..2" },
	{ "version", "version 0", "t.conf:2: version \"0\": this program reads versions 1..2" },
	{ "version", "", "t.conf:2: \"version <1..2>\" must come before" },
	/* boot-degraded (version 2): a version 1 file does not have it */
	{ "type", "type raid5_ls\nboot-degraded 30", "t.conf:7: boot-degraded is a version 2 key: the file says version 1" },
	{ "version", "version 2\nboot-degraded 0", "t.conf:3: boot-degraded \"0\": must be never or 1..86400 seconds" },
	{ "version", "version 2\nboot-degraded 86401", "boot-degraded \"86401\": must be never or 1..86400" },
	{ "version", "version 2\nboot-degraded soon", "boot-degraded \"soon\": must be never" },
	{ "version", "version 2\nboot-degraded -1", "boot-degraded \"-1\"" },
	{ "version", "version 2\nboot-degraded", "boot-degraded takes 1 word, not 0" },
	{ "version", "version 2\nboot-degraded 5\nboot-degraded 5", "t.conf:4: boot-degraded given twice (first on line 3)" },
	{ "version", "version 2\nboot-degraded never", NULL },	/* good */
	{ "version", "version 2", NULL },	/* version 2 without it: good */
	{ "name", "name", "t.conf:3: name takes 1 word, not 0" },
	{ "name", "name a b", "t.conf:3: name takes 1 word, not 2" },
	{ "name", "name ../etc", "t.conf:3: name \"../etc\": 1..127 of" },
	{ "name", "name a/b", "name \"a/b\"" },
	{ "name", "", "t.conf: no \"name\" line" },
	{ "uuid", "", "t.conf: no \"uuid\" line" },
	{ "type", "type raid1", "t.conf:6: type \"raid1\": must be raid4" },
	{ "size", "size 786560", "t.conf: size 786560: must be a multiple of 384 (chunk 128 x 3 data members)" },
	{ "type", "type raid5_ls\nparity 1", "t.conf: parity (line 7) is for raid4 only" },
	{ "type", "type raid4\nparity 4", "parity 4: there are only 4 members" },
	{ "type", "type raid4\nparity x", "t.conf:7: parity \"x\": must be -1" },
	{ "type", "type raid6_nr\nppl 8 16 1", "ppl (line 7): not for RAID6" },
	{ "type", "type raid5_ls\nppl 8 20 1", "t.conf:7: ppl size 20: must be a multiple of 8" },
	{ "type", "type raid5_ls\nppl 8 8 1", "ppl size \"8\": must be 16.." },
	{ "type", "type raid5_ls\nppl x 16 1", "ppl offset \"x\"" },
	{ "type", "type raid5_ls\nppl 8 16 0x100000000", "ppl signature \"0x100000000\"" },
	{ "type", "type raid5_ls\nppl 8 16 017", "ppl signature \"017\"" },
	{ "type", "type raid5_ls\nppl 8 16", "ppl takes 3 words, not 2" },
	{ "chunk", "chunk 100", "t.conf:7: chunk \"100\": must be a power of two, 8..16384" },
	{ "chunk", "chunk 32768", "chunk \"32768\": must be a power of two" },
	{ "chunk", "chunk -64", "chunk \"-64\"" },
	{ "chunk", "chunk 0128", "chunk \"0128\"" },
	{ "chunk", "chunk 128\nchunk 128", "t.conf:8: chunk given twice (first on line 7)" },
	{ "region", "region 4", "t.conf:8: region \"4\": must be a power of two, 8..2147483648" },
	{ "size", "size 786433", "t.conf: size 786433: must be a multiple of 384" },
	{ "size", "size 0", "size \"0\": must be 1.." },
	{ "size", "size 99999999999999999999", "size \"99999999999999999999\"" },
	{ "log", "log", "log takes 1 to 3 words, not 0" },
	{ "log", "log mirror", "t.conf:10: log \"mirror\": must be core or disk" },
	{ "log", "log core maybe", "log: \"maybe\" must be sync or nosync" },
	{ "log", "log core sync extra", "log: too many words" },
	{ "log", "log disk", "log disk: the log device is missing" },
	{ "log", "log disk sdz1", "log device \"sdz1\": must be an absolute path" },
	{ "log", "log disk /dev/disk/by-id/ata-B", "member 1 is the log device" },
	{ "members", "members 2", "t.conf:11: members \"2\": must be 3..32" },
	{ "members", "members 33", "members \"33\": must be 3..32" },
	{ "members", "members 99", "members \"99\": must be 3..32" },
	{ "type", "type raid4\nparity 35", "parity \"35\": must be -1" },
	{ "version", "version 18446744073709551617", "version \"18446744073709551617\"" },
	{ "members", "members 5", "t.conf: members 5, but 4 member lines" },
	{ "members", "", "t.conf:11: member before the \"members\" line" },
	{ "member 0", "member 0 /dev/disk/by-id/ata-A 2048", "member takes 4 words, not 3" },
	{ "member 1", "member 1 /dev/x 0 dead", "t.conf:13: member 1: state \"dead\": must be current" },
	{ "member 1", "member 1 dev/x 0 current", "member 1 \"dev/x\": must be an absolute path" },
	{ "member 1", "member 1 /dev/x -5 current", "member 1: offset \"-5\"" },
	{ "member 1", "member 1 - - current", "member 1: a member without a device (\"-\") must be missing" },
	{ "member 1", "member 1 - 0 missing", "a member without a device (\"-\") has no offset" },
	{ "member 1", "member 2 /dev/x 0 current", "t.conf:13: member 2: expected member 1" },
	{ "member 1", "member 9 /dev/x 0 current", "member index \"9\": must be 0..3" },
	{ "member 1", "member 0 /dev/x 0 current", "member 0: expected member 1" },
	{ "member 1", "member 1 /dev/disk/by-id/ata-A 0 current", "members 0 and 1 are both /dev/disk/by-id/ata-A" },
	{ "member 1", "member 1 /dev/b 0 rebuilding\nmember 2 /dev/c 0 rebuilding\nmember 3 /dev/d 0 current\n#",
	  "members 1 and 2 both rebuilding" },
	{ "chunk", "colour blue", "t.conf:7: unknown key \"colour\"" },
	{ "chunk", "chunk 128 # a comment", "chunk takes 1 word, not 4" },
	{ "chunk", "chunk\x01 128", "t.conf:7: a control character (0x01)" },
	{ "stripes", "", NULL },	/* optional: still good */
	{ "type", "type raid5_ls\nstripes 4", "stripes \"4\": must be 8..16384" },
	{ "type", "type raid5_ls\nbandwidth 101", "bandwidth \"101\": must be 1..100" },
	{ "type", "type raid5_ls\nname x", "t.conf:7: name given twice (first on line 3)" },
	{ "uuid", "uuid x a b c d e f g h i", "too many words" },
};

static void test_bad(void)
{
	int before = failures;
	struct r45desc d;
	char err[256], buf[4096];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bads); i++) {
		int r;

		/* the "member 1" lines go with the rest of their list */
		if (!strcmp(bads[i].key, "member 1") && strstr(bads[i].repl, "member 3"))
			snprintf(buf, sizeof(buf), "%.*s%s\n", (int)(strstr(good, "member 1") - good),
				 good, bads[i].repl);
		else
			with_line(buf, sizeof(buf), bads[i].key, bads[i].repl);
		memset(err, 'x', sizeof(err));
		r = parse(buf, &d, err, sizeof(err));
		if (!bads[i].msg) {
			CHECK(!r, "case %u (%s): refused: %s", i, bads[i].repl, err);
			continue;
		}
		CHECK(r == -EINVAL, "case %u (%s): accepted", i, bads[i].repl);
		CHECK(strstr(err, bads[i].msg), "case %u: \"%s\" not in \"%s\"", i, bads[i].msg, err);
	}

	/* what a line cannot say */
	CHECK(r45desc_parse("version 1\nna\0me x\n", 17, "t.conf", &d, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "t.conf:2: a NUL byte"), "NUL: %s", err);
	memset(buf, 'a', sizeof(buf));
	memcpy(buf, "version 1\n# ", 12);
	buf[sizeof(buf) - 1] = '\0';
	CHECK(parse(buf, &d, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "t.conf:2: line longer than 1023 bytes"), "long line: %s", err);
	CHECK(parse("", &d, err, sizeof(err)) == -EINVAL && strstr(err, "t.conf: no \"version\" line"),
	      "empty: %s", err);
	/* a tiny error buffer is enough to refuse */
	CHECK(parse("nonsense", &d, err, 4) == -EINVAL && strlen(err) == 3, "small err");
	CHECK(parse("nonsense", &d, NULL, 0) == -EINVAL, "no err");
	report("r45desc-malformed", before);
}

static void test_round_trip(void)
{
	int before = failures;
	struct r45desc d, d2;
	char err[256], buf[R45DESC_FILE_MAX], buf2[R45DESC_FILE_MAX], in[2048];
	static const char *const variants[][2] = {
		{ "type raid4\nparity 2\nppl -4080 2048 0xdeadbeef\nstripes 1024\nbandwidth 5",
		  "log core sync" },
		{ "type raid5_la", "log core nosync" },
		{ "type raid5_rs", "log disk /dev/mapper/log sync" },
		{ "type raid6_nc", "log disk /dev/mapper/log nosync" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(variants); i++) {
		char tmp[2048];

		with_line(tmp, sizeof(tmp), "type", variants[i][0]);
		edit(in, sizeof(in), tmp, "log", variants[i][1]);
		if (i == 3)	/* 4 members, raid6: 2 data */
			edit(tmp, sizeof(tmp), in, "size", "size 524288");
		else
			snprintf(tmp, sizeof(tmp), "%s", in);
		snprintf(in, sizeof(in), "%s", tmp);
		if (parse(in, &d, err, sizeof(err))) {
			CHECK(0, "variant %u: %s", i, err);
			continue;
		}
		d.m[1].state = R45DESC_FAILED;
		memset(d.m[3].path, 0, sizeof(d.m[3].path));
		d.m[3].offset = 0;
		d.m[3].state = R45DESC_MISSING;
		CHECK(!r45desc_format(&d, buf, sizeof(buf)), "format");
		CHECK(!parse(buf, &d2, err, sizeof(err)), "variant %u: parse back: %s\n%s", i, err, buf);
		CHECK(!memcmp(&d, &d2, sizeof(d)), "variant %u: not the same after a round trip\n%s",
		      i, buf);
		CHECK(!r45desc_format(&d2, buf2, sizeof(buf2)) && !strcmp(buf, buf2),
		      "variant %u: formatted differently", i);
	}
	CHECK(r45desc_format(&d, buf, 100) == -ENOSPC, "short buffer");

	/*
	 * Written as the lowest version that says it: version 1 (what
	 * older programs read) without boot-degraded, version 2 with it.
	 */
	CHECK(!parse(good, &d, err, sizeof(err)) && !r45desc_format(&d, buf, sizeof(buf)) &&
	      !strncmp(buf, "version 1\n", 10) && !strstr(buf, "boot-degraded"),
	      "version 1 without boot-degraded:\n%s", buf);
	d.boot_degraded = 45;
	CHECK(!r45desc_format(&d, buf, sizeof(buf)) && !strncmp(buf, "version 2\n", 10) &&
	      strstr(buf, "\nboot-degraded 45\n"), "version 2 with boot-degraded:\n%s", buf);
	CHECK(!parse(buf, &d2, err, sizeof(err)) && !memcmp(&d, &d2, sizeof(d)),
	      "boot-degraded round trip: %s\n%s", err, buf);
	d2.boot_degraded = 0;
	CHECK(!r45desc_format(&d2, buf2, sizeof(buf2)) && !strncmp(buf2, "version 1\n", 10),
	      "back to version 1:\n%s", buf2);
	report("r45desc-round-trip", before);
}

static void table_of(const char *text, char *tab, size_t size, char *err, size_t errsize, int *r)
{
	struct r45desc d;

	*r = parse(text, &d, err, errsize);
	if (*r) {
		CHECK(0, "parse: %s", err);
		return;
	}
	*r = r45desc_table(&d, 0, tab, size, err, errsize);
}

static void test_table(void)
{
	int before = failures, r;
	char in[2048], tab[1024], err[512];

	table_of(good, tab, sizeof(tab), err, sizeof(err), &r);
	CHECK(!r && !strcmp(tab, "core 2 8192 nosync raid5_ls 1 128 4 -1 "
			    "/dev/disk/by-id/ata-A 2048 /dev/disk/by-id/ata-B 2048 "
			    "/dev/disk/by-id/ata-C 2048 /dev/disk/by-id/ata-D 2048"),
	      "healthy: %s", tab);

	with_line(in, sizeof(in), "member 1", "member 1 /dev/disk/by-id/ata-B 2048 failed");
	table_of(in, tab, sizeof(tab), err, sizeof(err), &r);
	CHECK(!r && strstr(tab, " 4 -1 /dev/disk/by-id/ata-A 2048 - - /dev/disk/by-id/ata-C 2048 "),
	      "failed: %s", tab);

	with_line(in, sizeof(in), "member 2", "member 2 /dev/disk/by-id/ata-E 0 rebuilding");
	table_of(in, tab, sizeof(tab), err, sizeof(err), &r);
	CHECK(!r && strstr(tab, " 4 2 /dev/disk/by-id/ata-A 2048 /dev/disk/by-id/ata-B 2048 /dev/disk/by-id/ata-E 0 "),
	      "rebuilding: %s", tab);

	with_line(in, sizeof(in), "member 3", "member 3 - - missing");
	table_of(in, tab, sizeof(tab), err, sizeof(err), &r);
	CHECK(!r && strstr(tab, "/dev/disk/by-id/ata-C 2048 - -") && tab[strlen(tab) - 1] == '-',
	      "missing: %s", tab);

	with_line(in, sizeof(in), "log", "log disk /dev/disk/by-id/nvme-L-part2");
	table_of(in, tab, sizeof(tab), err, sizeof(err), &r);
	CHECK(!r && !strncmp(tab, "disk 3 /dev/disk/by-id/nvme-L-part2 8192 sync raid5_ls 1 128 4 -1 ", 66),
	      "disk log: %s", tab);

	with_line(in, sizeof(in), "type", "type raid5_ls\nppl -4080 2048 0x14901a8c");
	table_of(in, tab, sizeof(tab), err, sizeof(err), &r);
	CHECK(!r && strstr(tab, " raid5_ls 1 128 ppl -4080 2048 0x14901a8c 4 -1 /dev/"),
	      "ppl: %s", tab);

	with_line(in, sizeof(in), "type", "type raid4\nbandwidth 25");
	table_of(in, tab, sizeof(tab), err, sizeof(err), &r);
	CHECK(!r && strstr(tab, " raid4 -1 5 128 -1 -1 -1 25 4 -1 "), "raid4: %s", tab);
	with_line(in, sizeof(in), "type", "type raid4\nparity 0\nstripes 300");
	table_of(in, tab, sizeof(tab), err, sizeof(err), &r);
	CHECK(!r && strstr(tab, " raid4 0 5 128 300 -1 -1 -1 4 -1 "), "raid4 parity 0: %s", tab);

	/* more not current than parity: refused with the numbers */
	{
		char in2[2048];

		snprintf(in2, sizeof(in2), "%.*smember 1 /dev/b 0 failed\nmember 2 - - missing\n"
			 "member 3 /dev/d 0 current\n", (int)(strstr(good, "member 1") - good), good);
		table_of(in2, tab, sizeof(tab), err, sizeof(err), &r);
		CHECK(r == -EINVAL && strstr(err, "r5: 2 of 4 members are not current") &&
		      strstr(err, "the 1 parity member of raid5_ls"), "too many out: %d %s", r, err);
	}
	{
		struct r45desc d;

		CHECK(!parse(good, &d, err, sizeof(err)), "parse");
		r = r45desc_table(&d, R45DESC_START_DIRTY_DEGRADED, tab, sizeof(tab), err, sizeof(err));
		CHECK(!r && strstr(tab, " raid5_ls 1 128 start_dirty_degraded 4 -1 /dev/"),
		      "start_dirty_degraded: %s", tab);
	}
	table_of(good, tab, 20, err, sizeof(err), &r);
	CHECK(r == -ENOSPC, "short buffer: %d", r);
	report("r45desc-table", before);
}

/* ---- files ---- */

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f && fputs(text, f) >= 0 && !fclose(f), "write %s", path);
}

static char *get_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return NULL;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Files in tmpdir whose name starts with prefix. */
static int count_files(const char *prefix)
{
	DIR *dp = opendir(tmpdir);
	struct dirent *de;
	int n = 0;

	if (!dp)
		return -1;
	while ((de = readdir(dp)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(dp);
	return n;
}

static int fail_rename(const char *tmp, void *ctx)
{
	char buf[256];

	/* the new text is complete in the temporary file, the old in place */
	CHECK(get_file(tmp, buf, sizeof(buf)) && !strcmp(buf, "new\n"), "temp: %s", buf);
	CHECK(get_file((const char *)ctx, buf, sizeof(buf)) && !strcmp(buf, "old\n"), "old: %s", buf);
	return -EIO;
}

static int crash(const char *tmp, void *ctx)
{
	(void)tmp;
	(void)ctx;
	_exit(0);
}

static void test_atomic(void)
{
	int before = failures, r, status;
	char path[128], buf[256], err[256];
	pid_t pid;

	snprintf(path, sizeof(path), "%s/a.conf", tmpdir);
	put_file(path, "old\n");
	r = r45desc_write_atomic(path, "new\n", 4, fail_rename, path, err, sizeof(err));
	CHECK(r == -EIO && strstr(err, "stopped before the rename"), "failure: %d %s", r, err);
	CHECK(get_file(path, buf, sizeof(buf)) && !strcmp(buf, "old\n"), "after failure: %s", buf);
	CHECK(count_files(".a.conf.") == 0, "temporary file left after a failure");

	/* a crash between the write and the rename: the old file, whole */
	pid = fork();
	if (pid == 0) {
		r45desc_write_atomic(path, "new\n", 4, crash, NULL, err, sizeof(err));
		_exit(1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "crash child");
	CHECK(get_file(path, buf, sizeof(buf)) && !strcmp(buf, "old\n"), "after crash: %s", buf);
	CHECK(count_files(".a.conf.") == 1, "the crash's temporary file is there");

	/* and the next write goes through */
	r = r45desc_write_atomic(path, "new\n", 4, NULL, NULL, err, sizeof(err));
	CHECK(!r && get_file(path, buf, sizeof(buf)) && !strcmp(buf, "new\n"), "write: %s", err);
	{
		struct stat sb;

		CHECK(!stat(path, &sb) && (sb.st_mode & 0777) == 0644, "mode %o", sb.st_mode & 0777);
	}
	r = r45desc_write_atomic("/nonexistent-dir/a.conf", "x", 1, NULL, NULL, err, sizeof(err));
	CHECK(r == -ENOENT && strstr(err, "cannot create a temporary file in /nonexistent-dir"),
	      "no dir: %d %s", r, err);
	r = r45desc_write_atomic("a.conf", "x", 1, NULL, NULL, err, sizeof(err));
	CHECK(r == -EINVAL, "relative: %d", r);
	unlink(path);
	report("r45desc-atomic-write", before);
}

static int trust_yes(const char *path, char *why, size_t size)
{
	(void)path;
	(void)why;
	(void)size;
	return 0;
}

static int trust_no(const char *path, char *why, size_t size)
{
	(void)path;
	snprintf(why, size, "group-writable");
	return -EPERM;
}

/* the fsync seam: directories fail (a dying disk under /etc) */
static int dir_fsyncs;

static int fail_dir_fsync(int fd)
{
	struct stat sb;

	if (!fstat(fd, &sb) && S_ISDIR(sb.st_mode)) {
		dir_fsyncs++;
		errno = EIO;
		return -1;
	}
	return fsync(fd);
}

static int fail_file_fsync(int fd)
{
	struct stat sb;

	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode)) {
		errno = EIO;
		return -1;
	}
	return fsync(fd);
}

/*
 * Finding B: the rename went through, the directory's fsync failed; the
 * retry finds nothing to change (the page cache has the new text), yet
 * must not report success until the file and its directory are synced.
 */
static void test_record_durable(void)
{
	int before = failures, r;
	char path[128], err[512];
	uint32_t ch;
	struct r45desc d;

	snprintf(path, sizeof(path), "%s/r5.conf", tmpdir);
	put_file(path, good);
	r45desc_fsync = fail_dir_fsync;
	r = r45desc_record_failed(path, 1u << 2, 4, &ch, err, sizeof(err));
	CHECK(r == -EIO && strstr(err, "syncing its directory"), "first: %d %s", r, err);
	r = r45desc_record_failed(path, 1u << 2, 4, &ch, err, sizeof(err));
	CHECK(r == -EIO && dir_fsyncs == 2, "retry claims success without a sync: %d (%d dir fsyncs) %s",
	      r, dir_fsyncs, err);
	r = r45desc_record_rebuilt(path, 1u << 2, 4, devs_of(path), &ch, err, sizeof(err));
	CHECK(r == -EIO, "nothing to change, not synced: %d", r);
	/*
	 * the new text's own fsync fails: not renamed in place (the old
	 * text stays), an error, nothing claimed; not even when nothing
	 * changes (a retry writes it again)
	 */
	r45desc_fsync = fail_file_fsync;
	put_file(path, good);
	r = r45desc_record_failed(path, 1u << 1, 4, &ch, err, sizeof(err));
	CHECK(r == -EIO, "the file's fsync failed, the record succeeded: %d %s", r, err);
	CHECK(!r45desc_load(path, &d, err, sizeof(err)) && d.m[1].state == R45DESC_CURRENT,
	      "an unsynced text renamed in place");
	r45desc_fsync = NULL;
	r = r45desc_record_failed(path, 1u << 1, 4, &ch, err, sizeof(err));
	CHECK(!r && ch == 2u, "then recorded: %d %s", r, err);
	r45desc_fsync = fail_file_fsync;
	r = r45desc_record_failed(path, 1u << 1, 4, &ch, err, sizeof(err));
	CHECK(r == -EIO, "nothing to change, the new write's fsync failed, yet 0: %d", r);
	r45desc_fsync = NULL;
	r = r45desc_record_failed(path, 1u << 1, 4, &ch, err, sizeof(err));
	CHECK(!r && !ch, "synced at last: %d %s", r, err);
	unlink(path);
	report("r45desc-record-durable", before);
}

static void mk(const char *fmt, const char *text)
{
	char p[256], cmd[600];

	snprintf(p, sizeof(p), fmt, tmpdir);
	snprintf(cmd, sizeof(cmd), "mkdir -p $(dirname %s)", p);
	CHECK(!system(cmd), "%s", cmd);
	if (text)
		put_file(p, text);
}

static void ln(const char *target, const char *fmt)
{
	char p[256];

	snprintf(p, sizeof(p), fmt, tmpdir);
	mk(fmt, NULL);
	CHECK(!symlink(target, p), "symlink %s", p);
}

static bool has_dev(const dev_t *v, int n, unsigned int ma, unsigned int mi)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i] == makedev(ma, mi))
			return true;
	return false;
}

/*
 * Finding D: a description directory on the array (or on what is stacked
 * on it) is seen from sysfs, so the plugin never writes there.  A fake
 * sysfs: sda1 a partition of sda, dm-0 on sda1, dm-1 on dm-0.
 */
static void test_stacking(void)
{
	int before = failures, n, r;
	char sys[128], err[512];
	dev_t v[16];
	struct stat sb;

	mk("%s/sys/devices/sda/dev", "8:0\n");
	mk("%s/sys/devices/sda/sda1/dev", "8:1\n");
	mk("%s/sys/devices/sda/sda1/partition", "1\n");
	mk("%s/sys/devices/dm-0/dev", "254:0\n");
	mk("%s/sys/devices/dm-0/slaves/sda1/x", "");
	mk("%s/sys/devices/dm-1/dev", "254:1\n");
	mk("%s/sys/devices/dm-1/slaves/dm-0/x", "");
	ln("../../devices/sda", "%s/sys/dev/block/8:0");
	ln("../../devices/sda/sda1", "%s/sys/dev/block/8:1");
	ln("../../devices/dm-0", "%s/sys/dev/block/254:0");
	ln("../../devices/dm-1", "%s/sys/dev/block/254:1");
	ln("../../devices/sda/sda1", "%s/sys/class/block/sda1");
	ln("../../devices/dm-0", "%s/sys/class/block/dm-0");
	snprintf(sys, sizeof(sys), "%s/sys", tmpdir);
	r45desc_sysfs = sys;
	n = r45desc_below(makedev(254, 1), v, 16);
	CHECK(n == 4 && v[0] == makedev(254, 1) && has_dev(v, n, 254, 0) && has_dev(v, n, 8, 1) &&
	      has_dev(v, n, 8, 0), "below dm-1: %d", n);
	n = r45desc_below(makedev(8, 1), v, 16);
	CHECK(n == 2 && has_dev(v, n, 8, 0), "below sda1: %d", n);
	n = r45desc_below(makedev(254, 0), v, 1);
	CHECK(n == 1, "max: %d", n);
	/* the directory's own device (tmpdir's), and one it is not on */
	CHECK(!stat(tmpdir, &sb), "stat");
	r = r45desc_dir_on(tmpdir, sb.st_dev, err, sizeof(err));
	CHECK(r == 1 && strstr(err, "is on the array itself"), "on: %d %s", r, err);
	r = r45desc_dir_on(tmpdir, makedev(254, 77), err, sizeof(err));
	CHECK(r == 0, "not on: %d", r);
	r = r45desc_dir_on("/nonexistent-dir", makedev(254, 77), err, sizeof(err));
	CHECK(r == -ENOENT, "no dir: %d", r);
	r45desc_sysfs = "/sys";
	report("r45desc-dir-on-array", before);
}

/*
 * Finding E: a spare the plugin puts in place is recorded by its
 * /dev/disk/by-id name, as raid45ctl records members, not as /dev/sde
 * (another disk after the next boot's renumbering).
 */
static void test_stable_path(void)
{
	int before = failures, r;
	char byid[128], path[128], out[256], err[512];
	struct r45desc d;
	struct stat sb;

	if (stat("/dev/loop0", &sb) || !S_ISBLK(sb.st_mode)) {
		printf("  no /dev/loop0: not tested\n");
		report("r45desc-stable-path", before);
		return;
	}
	snprintf(byid, sizeof(byid), "%s/by-id", tmpdir);
	ln("/dev/loop0", "%s/by-id/wwn-0x5000c500a1b2c3d4");
	ln("/dev/loop0", "%s/by-id/ata-DISK_SERIAL42");
	r45desc_by_id = byid;
	CHECK(r45desc_stable_path("/dev/loop0", sb.st_rdev, out, sizeof(out)) == 1 &&
	      strstr(out, "/by-id/ata-DISK_SERIAL42"), "by-id: %s", out);
	CHECK(r45desc_stable_path("/dev/mapper/s0", sb.st_rdev, out, sizeof(out)) == 0 &&
	      !strcmp(out, "/dev/mapper/s0"), "mapper: %s", out);
	CHECK(r45desc_stable_path("/dev/loop0", sb.st_rdev + 1, out, sizeof(out)) == 0 &&
	      !strcmp(out, "/dev/loop0"), "none: %s", out);
	/* the plugin's record of a spare */
	snprintf(path, sizeof(path), "%s/r5.conf", tmpdir);
	put_file(path, good);
	CHECK(!r45desc_record_failed(path, 2, 4, NULL, err, sizeof(err)), "fail: %s", err);
	r = r45desc_record_device_replaced(tmpdir, "r5", "", 0, 1, 4, "/dev/loop0", 2048,
					   trust_yes, err, sizeof(err));
	CHECK(!r && !r45desc_load(path, &d, err, sizeof(err)) &&
	      strstr(d.m[1].path, "/by-id/ata-DISK_SERIAL42") && d.m[1].state == R45DESC_REBUILDING,
	      "spare recorded as %s (%d %s)", d.m[1].path, r, err);
	r45desc_by_id = "/dev/disk/by-id";
	/*
	 * finding G: create finds a device another description names (a
	 * member here, the log below), by device number whatever its name
	 */
	r = r45desc_used_by(tmpdir, sb.st_rdev, out, sizeof(out));
	CHECK(r == 1 && strstr(out, "member 1 (") && strstr(out, "of the array r5 described in"),
	      "used: %d %s", r, out);
	r = r45desc_used_by(tmpdir, sb.st_rdev + 1000, out, sizeof(out));
	CHECK(r == 0, "unused: %d", r);
	{
		char text[sizeof(good) + 64];

		edit(text, sizeof(text), good, "log", "log disk /dev/loop0 sync");
		put_file(path, text);
	}
	r = r45desc_used_by(tmpdir, sb.st_rdev, out, sizeof(out));
	CHECK(r == 1 && strstr(out, "the log device (/dev/loop0) of the array r5"), "log: %d %s", r, out);
	CHECK(r45desc_used_by("/nonexistent-dir", sb.st_rdev, out, sizeof(out)) == 0, "no dir");
	/* a description that cannot be read may name it: not "unused" */
	unlink(path);
	snprintf(path, sizeof(path), "%s/r6.conf", tmpdir);
	put_file(path, "version 1\nname r6\nchunk x\n");
	r = r45desc_used_by(tmpdir, sb.st_rdev + 1000, out, sizeof(out));
	CHECK(r == 1 && strstr(out, "r6.conf, which cannot be read"), "damaged: %d %s", r, out);
	report("r45desc-stable-path-used-by", before);
}

/*
 * Finding F: two creates of one name.  The second does not overwrite the
 * first's description, and its undo (its device failed) does not remove
 * the first's.
 */
static void test_create(void)
{
	int before = failures, r;
	char path[128], err[512];
	struct r45desc a, b, d;

	snprintf(path, sizeof(path), "%s/r5.conf", tmpdir);
	unlink(path);
	CHECK(!parse(good, &a, err, sizeof(err)), "parse: %s", err);
	b = a;
	snprintf(b.uuid, sizeof(b.uuid), "R45-00000000000000000000000000000002");
	r = r45desc_create(path, &a, err, sizeof(err));
	CHECK(!r, "first: %d %s", r, err);
	r = r45desc_create(path, &b, err, sizeof(err));
	CHECK(r == -EEXIST && strstr(err, "exists already"), "second: %d %s", r, err);
	CHECK(!r45desc_load(path, &d, err, sizeof(err)) && !strcmp(d.uuid, a.uuid),
	      "overwritten: %s", d.uuid);
	CHECK(count_files(".r5.conf.") == 0, "temporary files left");
	/* the second's undo leaves the first's alone */
	r = r45desc_remove(path, b.uuid, err, sizeof(err));
	CHECK(r == -EEXIST && !access(path, F_OK), "removed another's: %d %s", r, err);
	r = r45desc_remove(path, a.uuid, err, sizeof(err));
	CHECK(!r && access(path, F_OK), "own not removed: %d %s", r, err);
	r = r45desc_remove(path, a.uuid, err, sizeof(err));
	CHECK(r == -ENOENT, "gone: %d", r);
	report("r45desc-create-exclusive", before);
}

/*
 * Finding H: only regular files are descriptions; a replaced file keeps
 * its mode; a crashed writer's temporary file goes at the next write.
 */
static void test_file_details(void)
{
	int before = failures, r;
	char path[128], tmp[160], err[512];
	struct r45desc d;
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	struct stat sb;

	snprintf(path, sizeof(path), "%s/r5.conf", tmpdir);
	unlink(path);
	CHECK(!mkfifo(path, 0600), "mkfifo");
	r = r45desc_load(path, &d, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "not a regular file"), "fifo: %d %s", r, err);
	unlink(path);
	CHECK(!mkdir(path, 0700), "mkdir");
	r = r45desc_load(path, &d, err, sizeof(err));
	CHECK(r == -EINVAL || r == -EISDIR, "directory: %d %s", r, err);
	rmdir(path);

	put_file(path, good);
	CHECK(!chmod(path, 0600), "chmod");
	snprintf(tmp, sizeof(tmp), "%s/.r5.conf.Ab3dE9", tmpdir);
	put_file(tmp, "half a descr");
	CHECK(!utimensat(AT_FDCWD, tmp, old, 0), "utimensat");
	r = r45desc_record_failed(path, 1, 4, NULL, err, sizeof(err));
	CHECK(!r, "record: %s", err);
	CHECK(!stat(path, &sb) && (sb.st_mode & 07777) == 0600, "mode %o", sb.st_mode & 07777);
	CHECK(access(tmp, F_OK), "stale temporary file left");
	CHECK(count_files(".r5.conf.") == 0, "temporary files");
	unlink(path);
	report("r45desc-file-details", before);
}

/*
 * One lock per array (its file): another array's record does not wait;
 * a lock taken on a file replaced meanwhile is taken again on the new.
 */
static void test_lock(void)
{
	int before = failures, l1, status, pfd[2];
	char a[128], b[128], err[256];
	pid_t pid;

	snprintf(a, sizeof(a), "%s/la.conf", tmpdir);
	snprintf(b, sizeof(b), "%s/lb.conf", tmpdir);
	put_file(a, "one\n");
	put_file(b, "b\n");
	l1 = r45desc_lock(a, err, sizeof(err));
	CHECK(l1 >= 0, "lock a: %s", err);
	CHECK(pipe(pfd) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		int l2;
		char c;
		struct stat fs, ps;

		alarm(10);
		close(l1);	/* the parent's lock is the parent's */
		close(pfd[1]);
		l2 = r45desc_lock(b, err, sizeof(err));	/* another array: at once */
		if (l2 < 0)
			_exit(2);
		r45desc_unlock(l2);
		if (read(pfd[0], &c, 1) != 1)	/* the parent holds a */
			_exit(3);
		l2 = r45desc_lock(a, err, sizeof(err));	/* waits, then the new file */
		if (l2 < 0 || fstat(l2, &fs) || stat(a, &ps) || fs.st_ino != ps.st_ino)
			_exit(4);
		_exit(0);
	}
	close(pfd[0]);
	CHECK(write(pfd[1], "x", 1) == 1, "pipe write");
	usleep(100 * 1000);
	CHECK(!r45desc_write_atomic(a, "two\n", 4, NULL, NULL, err, sizeof(err)), "replace: %s",
	      err);
	r45desc_unlock(l1);
	close(pfd[1]);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "child: %d", WEXITSTATUS(status));
	CHECK(r45desc_lock("/nonexistent-dir/x.conf", err, sizeof(err)) == -ENOENT, "none");

	/*
	 * A holder that never lets go (a raid45ctl stopped with ^Z): not
	 * waited for without a bound (another open file description, so
	 * another lock, even in this process).
	 */
	l1 = r45desc_lock(a, err, sizeof(err));
	CHECK(l1 >= 0, "lock a again: %s", err);
	pid = fork();
	if (pid == 0) {
		/* in a child: a lock waited for without a bound is killed */
		struct timespec t0, t1;
		long ms;
		int l2;

		alarm(5);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		l2 = r45desc_lock_wait(a, 300, err, sizeof(err));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (l2 != -EWOULDBLOCK || !strstr(err, "locked by another program"))
			_exit(2);
		_exit(ms >= 290 && ms < 3000 ? 0 : 3);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "a lock held elsewhere: %s %d",
	      WIFSIGNALED(status) ? "waited for until killed, signal" : "exit status",
	      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	/* one that lets go within the bound: taken then */
	CHECK(pipe(pfd) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		char c;

		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(3);
		usleep(200 * 1000);
		r45desc_unlock(l1);	/* the child's copy: still the same lock */
		_exit(0);
	}
	close(pfd[0]);
	close(l1);	/* the child's descriptor holds it now */
	CHECK(write(pfd[1], "x", 1) == 1, "pipe write");
	close(pfd[1]);
	l1 = r45desc_lock_wait(a, 5000, err, sizeof(err));
	CHECK(l1 >= 0, "after the holder let go: %s", err);
	r45desc_unlock(l1);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "child: %d", WEXITSTATUS(status));
	unlink(a);
	unlink(b);
	report("r45desc-lock-per-array", before);
}

static void test_load_record_find(void)
{
	int before = failures, r;
	char path[128], found[256], err[512], buf[4096];
	struct r45desc d;
	struct stat a, b;
	uint32_t ch;

	snprintf(path, sizeof(path), "%s/r5.conf", tmpdir);
	put_file(path, good);
	CHECK(!r45desc_load(path, &d, err, sizeof(err)), "load: %s", err);

	/* member 1 fails: recorded, rewritten */
	CHECK(!stat(path, &a), "stat");
	r = r45desc_record_failed(path, 1u << 1, 4, &ch, err, sizeof(err));
	CHECK(!r && ch == 2u, "record: %d %s", r, err);
	CHECK(!r45desc_load(path, &d, err, sizeof(err)) && d.m[1].state == R45DESC_FAILED &&
	      d.m[0].state == R45DESC_CURRENT, "recorded: %s", err);
	CHECK(!stat(path, &b) && a.st_ino != b.st_ino, "not replaced by a rename");
	/*
	 * again: nothing changes, but written again (a second fsync of
	 * pages whose write failed may say 0: only new I/O proves it)
	 */
	r = r45desc_record_failed(path, 1u << 1, 4, &ch, err, sizeof(err));
	CHECK(!r && !ch && !stat(path, &a) && a.st_ino != b.st_ino, "not written again");
	CHECK(!r45desc_load(path, &d, err, sizeof(err)) && d.m[1].state == R45DESC_FAILED &&
	      d.m[0].state == R45DESC_CURRENT, "written again the same: %s", err);
	/* a rebuilding member fails; a missing one stays missing */
	d.m[2].state = R45DESC_REBUILDING;
	d.m[3].path[0] = '\0';
	d.m[3].state = R45DESC_MISSING;
	CHECK(!r45desc_save(path, &d, err, sizeof(err)), "save: %s", err);
	r = r45desc_record_failed(path, 0xe, 4, &ch, err, sizeof(err));
	CHECK(!r && ch == 4u, "record 1-3: %d %x %s", r, ch, err);
	CHECK(!r45desc_load(path, &d, err, sizeof(err)) && d.m[2].state == R45DESC_FAILED &&
	      d.m[3].state == R45DESC_MISSING, "states after");
	/* a rebuild's end: rebuilding -> current, failed stays failed */
	d.m[2].state = R45DESC_REBUILDING;
	CHECK(!r45desc_save(path, &d, err, sizeof(err)), "save: %s", err);
	/*
	 * finding 3 of the second review: the kernel rebuilt another device
	 * than the one recorded (a replace whose reload failed): not current
	 */
	devs_of(path);
	devs[2] = makedev(8, 99);
	r = r45desc_record_rebuilt(path, 0x6, 4, devs, &ch, err, sizeof(err));
	CHECK(r == -ESTALE && strstr(err, "the array has 8:99 there: not recorded current"),
	      "another device rebuilt: %d %s", r, err);
	CHECK(!r45desc_load(path, &d, err, sizeof(err)) && d.m[2].state == R45DESC_REBUILDING,
	      "recorded current anyway");
	r = r45desc_record_rebuilt(path, 0x6, 4, devs_of(path), &ch, err, sizeof(err));
	CHECK(!r && ch == 4u, "rebuilt: %d %x %s", r, ch, err);
	CHECK(!r45desc_load(path, &d, err, sizeof(err)) && d.m[2].state == R45DESC_CURRENT &&
	      d.m[1].state == R45DESC_FAILED, "states after the rebuild");
	/*
	 * a degraded activation the kernel refused: its record undone, for
	 * the members still failed with the same path only
	 */
	{
		struct r45desc before2, now;

		CHECK(!r45desc_load(path, &before2, err, sizeof(err)), "load: %s", err);
		CHECK(!r45desc_record_failed(path, 1u << 0, 4, NULL, err, sizeof(err)), "fail 0: %s", err);
		CHECK(!r45desc_record_unfailed(path, 1u << 0, &before2, err, sizeof(err)) &&
		      !r45desc_load(path, &now, err, sizeof(err)) &&
		      now.m[0].state == before2.m[0].state, "unfailed: %s", err);
		CHECK(!r45desc_record_failed(path, 1u << 0, 4, NULL, err, sizeof(err)), "fail 0: %s", err);
		snprintf(before2.m[0].path, sizeof(before2.m[0].path), "/dev/disk/by-id/other");
		CHECK(!r45desc_record_unfailed(path, 1u << 0, &before2, err, sizeof(err)) &&
		      !r45desc_load(path, &now, err, sizeof(err)) &&
		      now.m[0].state == R45DESC_FAILED, "another path unfailed: %s", err);
		snprintf(before2.uuid, sizeof(before2.uuid), "R45-other");
		CHECK(r45desc_record_unfailed(path, 1u << 0, &before2, err, sizeof(err)) == -EINVAL,
		      "another array unfailed");
		snprintf(before2.uuid, sizeof(before2.uuid), "%s", now.uuid);
		snprintf(before2.m[0].path, sizeof(before2.m[0].path), "%s", now.m[0].path);
		CHECK(!r45desc_record_unfailed(path, 1u << 0, &before2, err, sizeof(err)), "restore: %s", err);
	}
	/* the wrong array: refused */
	r = r45desc_record_failed(path, 1, 5, &ch, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "describes 4 members, the array has 5"), "count: %s", err);
	snprintf(buf, sizeof(buf), "%s/none.conf", tmpdir);
	r = r45desc_record_failed(buf, 1, 4, &ch, err, sizeof(err));
	CHECK(r == -ENOENT, "missing file: %d", r);
	/* a damaged file: refused with the line */
	put_file(buf, "version 1\nname none\nchunk 7\n");
	r = r45desc_record_failed(buf, 1, 4, &ch, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "none.conf:3: chunk \"7\""), "damaged: %s", err);
	/* a file whose name is not its array's */
	snprintf(buf, sizeof(buf), "%s/other.conf", tmpdir);
	put_file(buf, good);
	CHECK(r45desc_load(buf, &d, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "its file must be r5.conf"), "name: %s", err);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s/none.conf", tmpdir);
	unlink(buf);

	/* find: by name, by uuid (renamed), the name with another uuid */
	r = r45desc_find(tmpdir, "r5", "R45-6f1c0e9a4b2d4c7e8a1b3c5d7e9f0a1b", found,
			 sizeof(found), err, sizeof(err));
	CHECK(!r && !strcmp(found, path), "by name: %d %s", r, err);
	r = r45desc_find(tmpdir, "r5", "", found, sizeof(found), err, sizeof(err));
	CHECK(!r && !strcmp(found, path), "by name, no uuid: %d %s", r, err);
	r = r45desc_find(tmpdir, "renamed", "R45-6f1c0e9a4b2d4c7e8a1b3c5d7e9f0a1b", found,
			 sizeof(found), err, sizeof(err));
	CHECK(!r && !strcmp(found, path), "by uuid: %d %s", r, err);
	r = r45desc_find(tmpdir, "r5", "OTHER", found, sizeof(found), err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "another array's description"), "other uuid: %d %s", r, err);
	r = r45desc_find(tmpdir, "x", "OTHER", found, sizeof(found), err, sizeof(err));
	CHECK(r == -ENOENT && strstr(err, "no description of x (uuid OTHER)"), "none: %d %s", r, err);
	/*
	 * finding C: a damaged .conf may be the renamed device's own:
	 * not "no description" (the plugin would let writes go)
	 */
	snprintf(buf, sizeof(buf), "%s/damaged.conf", tmpdir);
	put_file(buf, "version 1\nname damaged\nchunk 7\n");
	r = r45desc_find(tmpdir, "x", "OTHER", found, sizeof(found), err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "damaged.conf:3") && strstr(err, "may be its description cannot be read"),
	      "damaged candidate: %d %s", r, err);
	r = r45desc_record_device(tmpdir, "x", "OTHER", 0, 1, 4, NULL, trust_yes, err, sizeof(err));
	CHECK(r == -EINVAL, "damaged candidate, plugin: %d %s", r, err);
	/* the one that matches is found all the same */
	r = r45desc_find(tmpdir, "renamed", "R45-6f1c0e9a4b2d4c7e8a1b3c5d7e9f0a1b", found,
			 sizeof(found), err, sizeof(err));
	CHECK(!r && !strcmp(found, path), "by uuid beside a damaged one: %d %s", r, err);
	unlink(buf);
	/* two files of one uuid: which one is not known */
	snprintf(buf, sizeof(buf), "%s/r6.conf", tmpdir);
	{
		char text[sizeof(good) + 8];

		edit(text, sizeof(text), good, "name", "name r6");
		put_file(buf, text);
	}
	r = r45desc_find(tmpdir, "renamed", "R45-6f1c0e9a4b2d4c7e8a1b3c5d7e9f0a1b", found,
			 sizeof(found), err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "both give the uuid"), "two: %d %s", r, err);
	unlink(buf);
	r = r45desc_find(tmpdir, "../x", NULL, found, sizeof(found), err, sizeof(err));
	CHECK(r == -ENOENT, "bad name: %d", r);
	r = r45desc_find("/nonexistent-dir", "x", "U", found, sizeof(found), err, sizeof(err));
	CHECK(r == -ENOENT, "no dir: %d", r);

	/* the plugin's record: found by uuid, trusted, recorded */
	r = r45desc_record_device(tmpdir, "renamed", "R45-6f1c0e9a4b2d4c7e8a1b3c5d7e9f0a1b", 0, 1,
				  4, NULL, trust_yes, err, sizeof(err));
	CHECK(!r && !r45desc_load(path, &d, err, sizeof(err)) && d.m[0].state == R45DESC_FAILED,
	      "record_device: %d %s", r, err);
	r = r45desc_record_device(tmpdir, "r5", "R45-6f1c0e9a4b2d4c7e8a1b3c5d7e9f0a1b", 0, 1,
				  4, NULL, trust_no, err, sizeof(err));
	CHECK(r == -EPERM && strstr(err, "r5.conf not written: group-writable"),
	      "untrusted: %d %s", r, err);
	r = r45desc_record_device(tmpdir, "r5", "R45-6f1c0e9a4b2d4c7e8a1b3c5d7e9f0a1b", 512, 1,
				  4, NULL, trust_yes, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "this one starts at 512"), "start: %d %s", r, err);
	r = r45desc_record_device(tmpdir, "r5", "OTHER", 0, 1, 4, NULL, trust_yes, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "another array's description"), "uuid: %d %s", r, err);
	r = r45desc_record_device(tmpdir, "none", "NONE", 0, 1, 4, NULL, trust_yes, err, sizeof(err));
	CHECK(r == -ENOENT, "no description: %d %s", r, err);
	r = r45desc_record_device(tmpdir, "r5", "", 0, 4, 4, devs_of(path), trust_yes, err, sizeof(err));
	CHECK(!r, "record_device rebuilt: %d %s", r, err);

	/* a spare in a failed member's place: recorded rebuilding */
	CHECK(!r45desc_load(path, &d, err, sizeof(err)) && d.m[0].state == R45DESC_FAILED &&
	      d.m[1].state == R45DESC_FAILED && d.m[3].state == R45DESC_MISSING, "before: %s", err);
	r = r45desc_record_device_replaced(tmpdir, "r5", "", 0, 1, 4, "/dev/mapper/s0", 4096,
					   trust_yes, err, sizeof(err));
	CHECK(!r && !r45desc_load(path, &d, err, sizeof(err)) &&
	      d.m[1].state == R45DESC_REBUILDING && !strcmp(d.m[1].path, "/dev/mapper/s0") &&
	      d.m[1].offset == 4096, "replaced: %d %s", r, err);
	/* a second rebuilding member: the new description would be refused */
	r = r45desc_record_replaced(path, 3, 4, "/dev/mapper/s1", 0, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "not written: the new description: members 1 and 3 both rebuilding"),
	      "two rebuilding: %d %s", r, err);
	/* a member that is current, a device that is a member already */
	r = r45desc_record_replaced(path, 2, 4, "/dev/mapper/s1", 0, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "calls member 2 current, not failed or missing"),
	      "current: %d %s", r, err);
	r = r45desc_record_rebuilt(path, 2, 4, devs_of(path), NULL, err, sizeof(err));
	CHECK(!r, "rebuilt 1: %s", err);
	r = r45desc_record_replaced(path, 3, 4, "/dev/mapper/s0", 0, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "members 1 and 3 are both /dev/mapper/s0"),
	      "duplicate: %d %s", r, err);
	r = r45desc_record_replaced(path, 3, 4, "s1", 0, err, sizeof(err));
	CHECK(r == -EINVAL && strstr(err, "\"s1\" is not an absolute path"), "relative: %s", err);
	CHECK(!r45desc_load(path, &d, err, sizeof(err)) && d.m[3].state == R45DESC_MISSING,
	      "unchanged after refusals");
	report("r45desc-record-find", before);
}

static void test_geometry(void)
{
	int before = failures;
	struct r45desc d;
	uint64_t sectors[4] = { 1000000, 999999, 1000064, 0 }, size = 0;
	char err[256];

	CHECK(!parse(good, &d, err, sizeof(err)), "parse");
	/* smallest room: 999999 - 2048 = 997951, in chunks of 128: 997888 */
	sectors[3] = 2000000;
	CHECK(!r45desc_compute_size(&d, sectors, &size, err, sizeof(err)) && size == 997888ull * 3,
	      "size %llu: %s", (unsigned long long)size, err);
	memset(d.m[1].path, 0, sizeof(d.m[1].path));	/* missing: not counted */
	d.m[1].state = R45DESC_MISSING;
	CHECK(!r45desc_compute_size(&d, sectors, &size, err, sizeof(err)) &&
	      size == (1000000ull - 2048) / 128 * 128 * 3, "missing: %llu", (unsigned long long)size);
	sectors[2] = 2100;
	CHECK(r45desc_compute_size(&d, sectors, &size, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "member 2 (/dev/disk/by-id/ata-C): 2100 sectors, no room for one chunk (128 sectors) after its offset 2048"),
	      "too small: %s", err);
	/* regions: a row at least, 1024 at least, at most 2^20 regions */
	CHECK(r45desc_default_region(786432, 128, 3) == 1024, "small: %u",
	      r45desc_default_region(786432, 128, 3));
	CHECK(r45desc_default_region(786432, 1024, 3) == 4096, "row");
	CHECK(r45desc_default_region(3ull * 7814037168ull, 128, 3) == 32768, "3 x 4 TB: %u",
	      r45desc_default_region(3ull * 7814037168ull, 128, 3));
	CHECK(r45desc_disk_log_sectors(1ull << 30, 1024) == 264, "log of 2^20 regions: %llu",
	      (unsigned long long)r45desc_disk_log_sectors(1ull << 30, 1024));
	CHECK(r45desc_disk_log_sectors(786432, 1024) == 8, "log of 768 regions");
	report("r45desc-geometry", before);
}

/* Random damage to a good file: refused or accepted, never a crash. */
static void test_fuzz(void)
{
	int before = failures, ok = 0, i, j;
	char buf[sizeof(good)], tab[2048], err[256];
	struct r45desc d;
	unsigned int seed = 35;

	for (i = 0; i < 50000; i++) {
		memcpy(buf, good, sizeof(good));
		for (j = 0; j < 1 + i % 4; j++) {
			size_t at = (size_t)rand_r(&seed) % (sizeof(good) - 1);
			static const char chars[] = " \n-/0123456789#x\t\r\0\x7f\xff";

			buf[at] = chars[(unsigned int)rand_r(&seed) % (sizeof(chars) - 1)];
		}
		if (!r45desc_parse(buf, sizeof(good) - 1, "f", &d, err, sizeof(err))) {
			ok++;
			(void)r45desc_table(&d, 0, tab, sizeof(tab), err, sizeof(err));
			CHECK(!r45desc_format(&d, tab, sizeof(tab)), "format");
		}
	}
	printf("  fuzz: 50000 files, %d accepted\n", ok);
	report("r45desc-fuzz", before);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-r45desc.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	r45desc_devno = fake_devno;
	test_good();
	test_bad();
	test_round_trip();
	test_table();
	test_atomic();
	test_load_record_find();
	test_record_durable();
	test_stacking();
	test_lock();
	test_stable_path();
	test_create();
	test_file_details();
	test_geometry();
	test_fuzz();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd))
			printf("  could not remove %s\n", tmpdir);
	}
	return failures ? 1 : 0;
}
