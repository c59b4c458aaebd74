// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of r45boot.c, activation at boot, without devices: a fake
 * lookup says which paths are there and as which device numbers.  Which
 * device completes an array, members appearing one by one, a failed or
 * missing member's device never counting (nor making its array ready),
 * two paths to one disk, the disk log, what the last-resort service
 * decides before and after its bound (RAID5 and RAID6), and the units'
 * instance names.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "r45boot.h"

#include "unit-check.h"

/* seconds, as r45boot_decide takes them: in milliseconds */
#define S(s) ((uint64_t)(s) * 1000)

/* the devices "there": path -> number */
struct fake {
	unsigned int n;
	struct {
		const char *path;
		dev_t dev;
	} d[16];
	unsigned int calls;
};

static int fake_devno(const char *path, dev_t *dev, void *ctx)
{
	struct fake *f = ctx;
	unsigned int i;

	f->calls++;
	for (i = 0; i < f->n; i++)
		if (!strcmp(f->d[i].path, path)) {
			*dev = f->d[i].dev;
			return 0;
		}
	return -ENOENT;
}

static void appear(struct fake *f, const char *path, dev_t dev)
{
	f->d[f->n].path = path;
	f->d[f->n].dev = dev;
	f->n++;
}

static const char r5[] =
	"version 2\n"
	"name r5\n"
	"uuid R45-1\n"
	"type raid5_ls\n"
	"chunk 64\n"
	"region 1024\n"
	"size 3072\n"
	"log core nosync\n"
	"boot-degraded 30\n"
	"members 4\n"
	"member 0 /dev/disk/by-id/A 0 current\n"
	"member 1 /dev/disk/by-id/B 0 failed\n"
	"member 2 /dev/disk/by-id/C 0 current\n"
	"member 3 /dev/disk/by-id/D 0 rebuilding\n";

/* src with its first from replaced by to, into buf */
static void subst(char *buf, size_t size, const char *src, const char *from, const char *to)
{
	const char *at = strstr(src, from);

	CHECK(at, "\"%s\" not in the text", from);
	if (!at) {
		snprintf(buf, size, "%s", src);
		return;
	}
	snprintf(buf, size, "%.*s%s%s", (int)(at - src), src, to, at + strlen(from));
}

static void load(const char *text, struct r45desc *d)
{
	char err[256];

	CHECK(!r45desc_parse(text, strlen(text), "t.conf", d, err, sizeof(err)), "parse: %s", err);
}

static void test_appearing(void)
{
	int before = failures;
	struct fake f = { 0 };
	struct r45desc d;
	struct r45boot_view v;

	load(r5, &d);
	/* nothing there yet */
	r45boot_look(&d, 0, fake_devno, &f, &v);
	CHECK(v.needed == 3 && !v.present && v.absent == 0xd && !r45boot_complete(&v),
	      "empty: needed %u present %u absent %x", v.needed, v.present, v.absent);

	/* A appears: named, not complete */
	appear(&f, "/dev/disk/by-id/A", makedev(8, 0));
	r45boot_look(&d, makedev(8, 0), fake_devno, &f, &v);
	CHECK(r45boot_names(&v) && v.dev_member == 0 && v.dev_failed < 0 && !v.dev_log,
	      "A: member %d failed %d", v.dev_member, v.dev_failed);
	CHECK(v.present == 1 && v.absent == 0xc && !r45boot_complete(&v), "A: present %u absent %x",
	      v.present, v.absent);

	/* the failed member's disk appears: not counted, not named */
	appear(&f, "/dev/disk/by-id/B", makedev(8, 16));
	r45boot_look(&d, makedev(8, 16), fake_devno, &f, &v);
	CHECK(!r45boot_names(&v) && v.dev_failed == 1 && v.dev_member < 0,
	      "B (failed): names %d failed %d", r45boot_names(&v), v.dev_failed);
	CHECK(v.present == 1 && v.needed == 3 && !r45boot_complete(&v), "B: present %u", v.present);

	/* a device nobody names */
	r45boot_look(&d, makedev(9, 9), fake_devno, &f, &v);
	CHECK(!r45boot_names(&v) && v.dev_failed < 0, "stranger named");

	/* C: still not complete (D, rebuilding, is needed too) */
	appear(&f, "/dev/disk/by-id/C", makedev(8, 32));
	r45boot_look(&d, makedev(8, 32), fake_devno, &f, &v);
	CHECK(v.dev_member == 2 && v.present == 2 && v.absent == 0x8 && !r45boot_complete(&v),
	      "C: present %u absent %x", v.present, v.absent);

	/* D, the last needed one: complete */
	appear(&f, "/dev/disk/by-id/D", makedev(8, 48));
	r45boot_look(&d, makedev(8, 48), fake_devno, &f, &v);
	CHECK(v.dev_member == 3 && v.present == 3 && !v.absent && r45boot_complete(&v),
	      "D: present %u absent %x", v.present, v.absent);
	CHECK(r45boot_decide(&d, &v, S(0)) == R45BOOT_ACTIVATE, "complete: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(0))));
	/* the failed member's path is looked up (to know its device) */
	CHECK(f.calls > 0, "no lookups");
	report("r45boot-appearing", before);
}

static void test_conflicts(void)
{
	int before = failures;
	struct fake f = { 0 };
	struct r45desc d;
	struct r45boot_view v;
	char text[2048];

	load(r5, &d);
	appear(&f, "/dev/disk/by-id/A", makedev(8, 0));
	appear(&f, "/dev/disk/by-id/C", makedev(8, 32));
	appear(&f, "/dev/disk/by-id/D", makedev(8, 48));
	/* the failed member's name now leads to C's disk: C is not trusted */
	appear(&f, "/dev/disk/by-id/B", makedev(8, 32));
	r45boot_look(&d, makedev(8, 32), fake_devno, &f, &v);
	CHECK(v.conflict == 0x4 && v.present == 2 && !r45boot_complete(&v),
	      "failed member's device: conflict %x present %u", v.conflict, v.present);
	CHECK(v.conflict_with[2] == 1, "C's conflict with %d", v.conflict_with[2]);
	/*
	 * never started at all, not even degraded without C: which member
	 * the disk holds is unknown (C's current data, or B's stale), and
	 * leaving C out would record a healthy member failed
	 */
	CHECK(r45boot_decide(&d, &v, S(0)) == R45BOOT_CANNOT, "conflict: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(0))));
	d.ppl = true;
	CHECK(r45boot_decide(&d, &v, S(30)) == R45BOOT_CANNOT, "conflict after the bound: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(30))));

	/* two members' paths to one disk */
	subst(text, sizeof(text), r5, "B 0 failed", "B 0 current");
	load(text, &d);
	CHECK(d.m[1].state == R45DESC_CURRENT, "B current: %s", text);
	f.n = 0;
	appear(&f, "/dev/disk/by-id/A", makedev(8, 0));
	appear(&f, "/dev/disk/by-id/B", makedev(8, 0));
	appear(&f, "/dev/disk/by-id/C", makedev(8, 32));
	appear(&f, "/dev/disk/by-id/D", makedev(8, 48));
	r45boot_look(&d, makedev(8, 0), fake_devno, &f, &v);
	CHECK(v.conflict == 0x3 && v.needed == 4 && v.present == 2 && !r45boot_complete(&v),
	      "one disk twice: conflict %x present %u", v.conflict, v.present);
	CHECK(v.conflict_with[0] == 1 && v.conflict_with[1] == 0, "conflicts with %d %d",
	      v.conflict_with[0], v.conflict_with[1]);
	/* two current members on one disk (B on A's): never degraded without one */
	d.ppl = true;
	d.boot_degraded = 30;
	CHECK(r45boot_decide(&d, &v, S(0)) == R45BOOT_CANNOT &&
	      r45boot_decide(&d, &v, S(100)) == R45BOOT_CANNOT, "one disk twice: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(100))));

	/* a disk log: needed; absent, it cannot start even degraded */
	load("version 2\nname l\nuuid u\ntype raid5_ls\nchunk 64\nregion 1024\nsize 3072\n"
	     "log disk /dev/L sync\nboot-degraded 5\nmembers 4\n"
	     "member 0 /dev/A 0 current\nmember 1 /dev/B 0 current\n"
	     "member 2 /dev/C 0 current\nmember 3 /dev/D 0 current\n", &d);
	f.n = 0;
	appear(&f, "/dev/A", makedev(8, 0));
	appear(&f, "/dev/B", makedev(8, 16));
	appear(&f, "/dev/C", makedev(8, 32));
	appear(&f, "/dev/D", makedev(8, 48));
	r45boot_look(&d, makedev(8, 0), fake_devno, &f, &v);
	CHECK(v.needed == 5 && v.present == 4 && v.log_absent && !r45boot_complete(&v),
	      "log absent: needed %u present %u", v.needed, v.present);
	/* boot-degraded 5, older than the rule: the settling time (10 s) counts */
	CHECK(r45boot_bound(&d) == R45BOOT_SETTLE, "bound %u", r45boot_bound(&d));
	CHECK(r45boot_decide(&d, &v, S(2)) == R45BOOT_WAIT && r45boot_decide(&d, &v, S(5)) == R45BOOT_WAIT &&
	      r45boot_decide(&d, &v, S(R45BOOT_SETTLE)) == R45BOOT_CANNOT,
	      "log absent: %s", r45boot_action_name(r45boot_decide(&d, &v, S(R45BOOT_SETTLE))));
	appear(&f, "/dev/L", makedev(7, 0));
	r45boot_look(&d, makedev(7, 0), fake_devno, &f, &v);
	CHECK(v.dev_log && v.dev_member < 0 && r45boot_names(&v) && r45boot_complete(&v),
	      "log appears: log %d complete %d", v.dev_log, r45boot_complete(&v));
	/* the log's path leading to a member's disk */
	f.n--;
	appear(&f, "/dev/L", makedev(8, 48));
	r45boot_look(&d, 0, fake_devno, &f, &v);
	CHECK(v.log_absent && (v.conflict & 0x8) && !r45boot_complete(&v),
	      "log is a member's disk: conflict %x", v.conflict);
	CHECK(v.conflict_with[3] == -1 && r45boot_decide(&d, &v, S(0)) == R45BOOT_CANNOT,
	      "log on D's disk: with %d, %s", v.conflict_with[3],
	      r45boot_action_name(r45boot_decide(&d, &v, S(0))));
	report("r45boot-conflicts", before);
}

static void test_decide(void)
{
	int before = failures;
	struct fake f = { 0 };
	struct r45desc d;
	struct r45boot_view v;
	char text[2048];

	load(r5, &d);
	d.ppl = true;	/* it can tell a crash: only the members decide */
	/* A and C there, D (rebuilding) absent, B failed */
	appear(&f, "/dev/disk/by-id/A", makedev(8, 0));
	appear(&f, "/dev/disk/by-id/C", makedev(8, 32));
	r45boot_look(&d, 0, fake_devno, &f, &v);
	CHECK(r45boot_decide(&d, &v, S(0)) == R45BOOT_WAIT, "0 s: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(0))));
	CHECK(r45boot_decide(&d, &v, S(29)) == R45BOOT_WAIT, "29 s");
	/* failed B and absent D: 2 out of RAID5's 1 parity */
	CHECK(r45boot_decide(&d, &v, S(30)) == R45BOOT_CANNOT, "30 s: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(30))));
	/* D there, C absent: still two out */
	f.n = 0;
	appear(&f, "/dev/disk/by-id/A", makedev(8, 0));
	appear(&f, "/dev/disk/by-id/D", makedev(8, 48));
	r45boot_look(&d, 0, fake_devno, &f, &v);
	CHECK(r45boot_decide(&d, &v, S(31)) == R45BOOT_CANNOT, "B failed, C absent");

	/* all current, one absent: degraded after the bound */
	subst(text, sizeof(text), r5, "B 0 failed", "B 0 missing");
	load(text, &d);
	CHECK(d.m[1].state == R45DESC_MISSING, "B missing: %s", text);
	f.n = 0;
	appear(&f, "/dev/disk/by-id/A", makedev(8, 0));
	appear(&f, "/dev/disk/by-id/C", makedev(8, 32));
	appear(&f, "/dev/disk/by-id/D", makedev(8, 48));
	r45boot_look(&d, 0, fake_devno, &f, &v);
	CHECK(r45boot_complete(&v) && r45boot_decide(&d, &v, S(0)) == R45BOOT_ACTIVATE,
	      "missing B, rest there: %s", r45boot_action_name(r45boot_decide(&d, &v, S(0))));

	load("version 1\nname n\nuuid u\ntype raid5_ls\nchunk 64\nregion 1024\nsize 3072\n"
	     "log core nosync\nmembers 4\n"
	     "member 0 /dev/A 0 current\nmember 1 /dev/B 0 current\n"
	     "member 2 /dev/C 0 current\nmember 3 /dev/D 0 current\n", &d);
	f.n = 0;
	appear(&f, "/dev/A", makedev(8, 0));
	appear(&f, "/dev/B", makedev(8, 16));
	appear(&f, "/dev/C", makedev(8, 32));
	r45boot_look(&d, 0, fake_devno, &f, &v);
	CHECK(v.absent == 0x8, "D absent: %x", v.absent);
	/*
	 * a version 1 file (no boot-degraded): never degraded, whatever the
	 * time; it waits only for the devices udev is still settling
	 */
	CHECK(r45boot_decide(&d, &v, S(0)) == R45BOOT_WAIT &&
	      r45boot_decide(&d, &v, S(R45BOOT_SETTLE - 1)) == R45BOOT_WAIT, "never, settling: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(0))));
	CHECK(r45boot_decide(&d, &v, S(R45BOOT_SETTLE)) == R45BOOT_NEVER &&
	      r45boot_decide(&d, &v, S(100000)) == R45BOOT_NEVER, "never: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(100000))));
	/* complete within the settling: activated */
	appear(&f, "/dev/D", makedev(8, 48));
	r45boot_look(&d, 0, fake_devno, &f, &v);
	CHECK(r45boot_decide(&d, &v, S(3)) == R45BOOT_ACTIVATE, "never, complete: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(3))));
	f.n = 3;
	r45boot_look(&d, 0, fake_devno, &f, &v);
	d.boot_degraded = 10;
	/* a core log without ppl cannot tell a crash: never degraded */
	CHECK(!r45boot_crash_detectable(&d) && r45boot_decide(&d, &v, S(10)) == R45BOOT_CANNOT &&
	      r45boot_decide(&d, &v, S(1000)) == R45BOOT_CANNOT, "core log, no ppl: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(10))));
	CHECK(r45boot_decide(&d, &v, S(9)) == R45BOOT_WAIT, "core log, no ppl, within the bound");
	d.disk_log = true;	/* the view says it is there (log_absent false) */
	CHECK(r45boot_crash_detectable(&d) && r45boot_decide(&d, &v, S(10)) == R45BOOT_DEGRADED,
	      "disk log: %s", r45boot_action_name(r45boot_decide(&d, &v, S(10))));
	d.disk_log = false;
	d.ppl = true;
	CHECK(r45boot_decide(&d, &v, S(9)) == R45BOOT_WAIT, "9 of 10 s: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(9))));
	CHECK(r45boot_decide(&d, &v, S(10) - 1) == R45BOOT_WAIT, "10 s less 1 ms: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(10) - 1)));
	CHECK(r45boot_decide(&d, &v, S(10)) == R45BOOT_DEGRADED, "10 of 10 s: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(10))));
	/* small bounds (older files): never before the settling time */
	d.boot_degraded = 1;
	CHECK(r45boot_bound(&d) == R45BOOT_SETTLE, "bound of 1: %u", r45boot_bound(&d));
	CHECK(r45boot_decide(&d, &v, S(1)) == R45BOOT_WAIT &&
	      r45boot_decide(&d, &v, S(R45BOOT_SETTLE) - 1) == R45BOOT_WAIT &&
	      r45boot_decide(&d, &v, S(R45BOOT_SETTLE)) == R45BOOT_DEGRADED, "boot-degraded 1: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(1))));
	d.boot_degraded = R45BOOT_SETTLE - 1;
	CHECK(r45boot_decide(&d, &v, S(R45BOOT_SETTLE - 1)) == R45BOOT_WAIT,
	      "boot-degraded settle-1");
	d.boot_degraded = 30;
	CHECK(r45boot_bound(&d) == 30 && r45boot_decide(&d, &v, S(29)) == R45BOOT_WAIT &&
	      r45boot_decide(&d, &v, S(30)) == R45BOOT_DEGRADED, "boot-degraded 30");
	d.boot_degraded = 0;
	CHECK(r45boot_bound(&d) == R45BOOT_SETTLE, "never: bound %u", r45boot_bound(&d));
	d.boot_degraded = 10;
	/* two absent: RAID5 cannot, RAID6 can */
	f.n = 2;
	r45boot_look(&d, 0, fake_devno, &f, &v);
	CHECK(v.absent == 0xc && r45boot_decide(&d, &v, S(10)) == R45BOOT_CANNOT, "raid5, two absent: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(10))));
	snprintf(d.type, sizeof(d.type), "raid6_zr");
	CHECK(r45boot_decide(&d, &v, S(10)) == R45BOOT_DEGRADED, "raid6, two absent: %s",
	      r45boot_action_name(r45boot_decide(&d, &v, S(10))));
	f.n = 1;
	r45boot_look(&d, 0, fake_devno, &f, &v);
	CHECK(r45boot_decide(&d, &v, S(10)) == R45BOOT_CANNOT, "raid6, three absent");
	report("r45boot-decide", before);
}

/* the appearing device's links, not made yet, count as its names */
static void test_aliases(void)
{
	int before = failures;
	struct fake f = { 0 };
	char *names[] = { "disk/by-id/C", "/dev/disk/by-path/pci-3", "disk/by-uuid/x" };
	struct r45boot_aliases a = {
		.dev = makedev(8, 32), .names = names, .nr = 3, .next = fake_devno, .next_ctx = &f,
	};
	struct r45desc d;
	struct r45boot_view v;
	char text[2048];
	dev_t dev = 0;

	CHECK(!r45boot_alias_devno("/dev/disk/by-id/C", &dev, &a) && dev == makedev(8, 32),
	      "relative link");
	dev = 0;
	CHECK(!r45boot_alias_devno("/dev/disk/by-path/pci-3", &dev, &a) && dev == makedev(8, 32),
	      "absolute link");
	CHECK(r45boot_alias_devno("/dev/disk/by-id/c", &dev, &a) == -ENOENT, "case matters");
	CHECK(r45boot_alias_devno("/disk/by-id/C", &dev, &a) == -ENOENT, "not under /dev");
	CHECK(r45boot_alias_devno("/dev/disk/by-id/CC", &dev, &a) == -ENOENT, "a longer name");
	appear(&f, "/dev/disk/by-id/A", makedev(8, 0));
	appear(&f, "/dev/disk/by-id/D", makedev(8, 48));
	CHECK(!r45boot_alias_devno("/dev/disk/by-id/A", &dev, &a) && dev == makedev(8, 0),
	      "other paths: the next lookup");

	/* C, the last needed one, appears by its link only */
	load(r5, &d);
	r45boot_look(&d, makedev(8, 32), r45boot_alias_devno, &a, &v);
	CHECK(v.dev_member == 2 && r45boot_complete(&v), "C by its link: member %d present %u",
	      v.dev_member, v.present);
	/* the failed member's link: not used */
	subst(text, sizeof(text), r5, "by-id/B 0 failed", "by-id/C 0 failed");
	subst(text + 1024, sizeof(text) - 1024, text, "by-id/C 0 current", "by-id/E 0 current");
	load(text + 1024, &d);
	r45boot_look(&d, makedev(8, 32), r45boot_alias_devno, &a, &v);
	CHECK(!r45boot_names(&v) && v.dev_failed == 1 && !r45boot_complete(&v),
	      "failed member's link: names %d failed %d", r45boot_names(&v), v.dev_failed);
	report("r45boot-aliases", before);
}

static void test_instance(void)
{
	int before = failures;
	static const char *const names[][2] = {
		{ "r5", "r5" }, { "my-array", "my-array" }, { "a+b", "a:b" },
		{ "x.y_z+1+2", "x.y_z:1:2" },
	};
	char out[R45DESC_NAME_MAX], back[R45DESC_NAME_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		CHECK(!r45boot_instance(names[i][0], out, sizeof(out)) && !strcmp(out, names[i][1]),
		      "instance of %s: %s", names[i][0], out);
		CHECK(!r45boot_name(out, back, sizeof(back)) && !strcmp(back, names[i][0]),
		      "name of %s: %s", out, back);
	}
	CHECK(r45boot_instance("../x", out, sizeof(out)) == -EINVAL, "bad name");
	CHECK(r45boot_instance("", out, sizeof(out)) == -EINVAL, "empty name");
	CHECK(r45boot_instance("abcdef", out, 4) == -ENOSPC, "short buffer");
	CHECK(r45boot_name("a+b", back, sizeof(back)) == -EINVAL, "'+' in an instance");
	CHECK(r45boot_name("a/b", back, sizeof(back)) == -EINVAL, "'/' in an instance");
	CHECK(r45boot_name(":x", back, sizeof(back)) == 0 && !strcmp(back, "+x"), "':' first: %s",
	      back);
	CHECK(r45boot_name("-x", back, sizeof(back)) == -EINVAL, "'-' first");
	CHECK(r45boot_name("", back, sizeof(back)) == -EINVAL, "empty instance");
	report("r45boot-instance", before);
}

int main(void)
{
	test_appearing();
	test_conflicts();
	test_decide();
	test_aliases();
	test_instance();
	return failures ? 1 : 0;
}
