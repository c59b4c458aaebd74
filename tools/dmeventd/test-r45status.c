// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of r45status.c, the monitor's reader of the raid45 status
 * and table lines: every status form the target prints (healthy core and
 * disk logs, degraded, rebuilding, RAID4 parity, held, frozen, check with
 * mismatches, stats, words appended by later versions), malformed lines
 * (truncated, wrong counts, garbage, very long, empty), table lines and
 * their round trip, and a fuzz loop of mutated lines that must end in 0
 * or -EINVAL (run under AddressSanitizer and UBSan by tests/unit).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "r45status.h"

#include "unit-check.h"

static void parse_ok(const char *line, struct r45_status *st)
{
	int r = r45_status_parse(line, st);

	CHECK(r == 0, "rejected (%d): \"%s\"", r, line);
}

static void parse_bad(const char *line)
{
	struct r45_status st;
	int r = r45_status_parse(line, &st);

	CHECK(r == -EINVAL, "accepted (%d): \"%s\"", r, line);
}

static void test_forms(void)
{
	int before = failures;
	struct r45_status st;
	char h[128];

	/* docs/raid45.rst's example: healthy RAID5, core log */
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle 0 writable 0 0", &st);
	CHECK(st.nr_members == 4, "members %u", st.nr_members);
	CHECK(st.members[3].major == 1 && st.members[3].minor == 3, "devno");
	CHECK(!r45_status_nr_dead(&st) && r45_status_rebuilding(&st) == -1, "health");
	CHECK(st.in_sync == 384 && st.regions == 384, "sync count");
	CHECK(!strcmp(st.log_type, "core") && !st.log_has_dev && !st.log_state, "core log");
	CHECK(st.action == R45_ACTION_IDLE && !st.held && !st.has_stats, "tail");
	CHECK(!st.mismatches && !st.read_errors_repaired && !st.unprotected_regions, "counts");
	CHECK(!st.nr_unknown_words, "unknown words");

	/* disk log, resync running */
	parse_ok("3 254:1 254:2 254:3 1 AAA 17/128 3 disk 254:5 A resync 0 writable 0 0", &st);
	CHECK(!strcmp(st.log_type, "disk") && st.log_has_dev, "disk log");
	CHECK(st.log_major == 254 && st.log_minor == 5 && st.log_state == 'A', "log dev");
	CHECK(st.action == R45_ACTION_RESYNC && st.in_sync == 17, "resync");
	parse_ok("3 254:1 254:2 254:3 1 AAA 17/128 3 disk 254:5 F idle 0 writable 0 0", &st);
	CHECK(st.log_state == 'F', "log flush failure");

	/* degraded, writes held, unprotected regions */
	parse_ok("5 253:0 253:1 253:2 253:3 253:4 1 AADAA 60/80 1 core idle 0 held 0 20", &st);
	CHECK(st.members[2].dead && r45_status_nr_dead(&st) == 1, "dead member");
	CHECK(st.held && st.unprotected_regions == 20, "held, unprotected");
	r45_status_health(&st, h, sizeof(h));
	CHECK(!strcmp(h, "AADAA"), "health word %s", h);

	/* rebuilding member 2 */
	parse_ok("4 7:0 7:1 7:9 7:3 1 AAAiA 3/40 1 core recover 0 writable 0 0", &st);
	CHECK(r45_status_rebuilding(&st) == 2 && !st.members[2].dead, "rebuilding");
	CHECK(st.action == R45_ACTION_RECOVER, "recover");
	r45_status_health(&st, h, sizeof(h));
	CHECK(!strcmp(h, "AAAiA"), "health word %s", h);

	/* RAID4: parity letter after the parity member's A; with i; dead */
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAAp 384/384 1 core idle 0 writable 0 0", &st);
	CHECK(st.members[3].parity && !st.members[0].parity, "parity member");
	parse_ok("4 1:0 1:1 1:2 1:3 1 ApAAA 384/384 1 core idle 0 writable 0 0", &st);
	CHECK(st.members[0].parity && !st.members[1].parity, "parity first");
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAApi 0/384 1 core recover 0 writable 0 0", &st);
	CHECK(st.members[3].parity && st.members[3].rebuilding, "parity rebuilding");
	parse_ok("4 1:0 1:1 1:2 1:3 1 AADpA 384/384 1 core idle 0 held 0 0", &st);
	CHECK(st.members[2].parity && st.members[2].dead, "dead parity");
	r45_status_health(&st, h, sizeof(h));
	CHECK(!strcmp(h, "AADpA"), "health word %s", h);

	/* RAID6 two dead, frozen, check with mismatches, repair */
	parse_ok("5 8:0 8:16 8:32 8:48 8:64 1 DAADA 100/100 1 core frozen 0 writable 0 0", &st);
	CHECK(st.action == R45_ACTION_FROZEN && r45_status_nr_dead(&st) == 2, "frozen");
	parse_ok("3 8:0 8:16 8:32 1 AAA 100/100 1 core check 12 writable 0 0", &st);
	CHECK(st.action == R45_ACTION_CHECK && st.mismatches == 12, "check");
	parse_ok("3 8:0 8:16 8:32 1 AAA 100/100 1 core repair 7 writable 3 0", &st);
	CHECK(st.action == R45_ACTION_REPAIR && st.mismatches == 7 &&
	      st.read_errors_repaired == 3, "repair");
	parse_ok("3 8:0 8:16 8:32 1 AAA 100/100 1 core idle 18446744073709551615 writable 0 0", &st);
	CHECK(st.mismatches == UINT64_MAX, "64-bit counter");

	/* statistics on */
	parse_ok("3 8:0 8:16 8:32 1 AAA 100/100 1 core idle 0 writable 0 0 stats 1 2 3 4 5 6 7 8 9 10 11", &st);
	CHECK(st.has_stats && st.stats[0] == 1 && st.stats[10] == 11, "stats");
	CHECK(!st.nr_unknown_words, "no unknown words");

	/* later versions: words before and after the stats, more counters */
	parse_ok("3 8:0 8:16 8:32 1 AAA 100/100 1 core idle 0 writable 0 0 ppl 5", &st);
	CHECK(st.nr_unknown_words == 2 && !st.has_stats, "appended words");
	parse_ok("3 8:0 8:16 8:32 1 AAA 100/100 1 core idle 0 writable 0 0 ppl 5 stats 1 2 3 4 5 6 7 8 9 10 11 12 13", &st);
	CHECK(st.has_stats && st.stats[10] == 11 && st.nr_unknown_words == 4, "stats with more");
	parse_ok("3 8:0 8:16 8:32 1 AAA 100/100 1 core idle 0 writable 0 0 stats 1 2 3 4 5 6 7 8 9 10 11 stats", &st);
	CHECK(st.has_stats && st.nr_unknown_words == 1, "a second stats word is unknown");

	/* issue 26: unsafe reads and the partial parity log, a missing member */
	parse_ok("4 8:0 - 8:32 8:48 1 ADAA 90/100 3 disk 254:5 A idle 0 writable 0 10 37 ppl", &st);
	CHECK(st.members[1].missing && st.members[1].dead && !st.members[0].missing &&
	      st.has_unsafe && st.unsafe_reads == 37 && st.ppl && !st.nr_unknown_words,
	      "unsafe reads, ppl, missing member");
	parse_ok("3 8:0 8:16 8:32 1 AAA 100/100 1 core idle 0 writable 0 0 0 - stats 1 2 3 4 5 6 7 8 9 10 11", &st);
	CHECK(st.has_unsafe && !st.unsafe_reads && !st.ppl && st.has_stats &&
	      !st.nr_unknown_words, "no ppl, stats");
	CHECK(!st.journal, "no journal");
	/* issue 34: the journal's words in the same place */
	parse_ok("5 8:0 - 8:32 8:48 8:64 1 ADAAA 90/100 3 disk 254:5 A idle 0 writable 0 0 0 journal -", &st);
	CHECK(st.journal == R45_JOURNAL_OK && !st.ppl && st.has_progress &&
	      !st.nr_unknown_words, "journal");
	parse_ok("5 8:0 8:16 8:32 8:48 8:64 1 AAAAA 100/100 1 core idle 0 writable 0 0 0 journal-failed -", &st);
	CHECK(st.journal == R45_JOURNAL_FAILED && st.has_progress && !st.nr_unknown_words,
	      "journal-failed");
	parse_ok("5 8:0 8:16 8:32 8:48 8:64 1 AAAAA 100/100 1 core idle 0 writable 0 0 0 journal-dead stats 1 2 3 4 5 6 7 8 9 10 11 -", &st);
	CHECK(st.journal == R45_JOURNAL_DEAD && st.has_stats && st.has_progress &&
	      !st.nr_unknown_words, "journal-dead, stats");

	/*
	 * issue 35: the action's progress after <ppl|->, and after the stats
	 * when they are on (words are only appended).
	 * The first line as 6.12 printed it in tests/guest/50-sync, the
	 * next three with the words that test read in the same run (a
	 * frozen resync at 357 of 10728 regions of 256 sectors, a check
	 * running, then frozen)
	 */
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAA 1920/1920 1 core idle 5120 writable 0 0 0 - -", &st);
	CHECK(st.has_unsafe && !st.ppl && st.has_progress && !st.progress_running &&
	      st.mismatches == 5120 && !st.nr_unknown_words, "idle: progress -");
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAA 357/10728 1 core frozen 0 writable 0 0 0 - 91392/2746368", &st);
	CHECK(st.action == R45_ACTION_FROZEN && st.progress_running &&
	      st.progress_done == 357 * 256 && st.progress_total == 2746368 &&
	      !st.nr_unknown_words, "frozen resync");
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAA 10728/10728 1 core check 0 writable 0 0 0 - 52224/2746368", &st);
	CHECK(st.action == R45_ACTION_CHECK && st.progress_running &&
	      st.progress_done == 52224 && st.progress_total == 2746368 &&
	      !st.nr_unknown_words, "check at 52224 of 2746368 sectors");
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAA 10728/10728 1 core frozen 0 writable 0 0 0 - 248832/2746368", &st);
	CHECK(st.action == R45_ACTION_FROZEN && st.progress_running &&
	      st.progress_done == 248832, "frozen check keeps its place");
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAiA 3/40 3 disk 254:5 A recover 0 writable 0 0 0 ppl stats 1 2 3 4 5 6 7 8 9 10 11 768/10240", &st);
	CHECK(st.ppl && st.progress_running && st.progress_done == 768 &&
	      st.progress_total == 10240 && st.has_stats && st.stats[10] == 11 &&
	      !st.nr_unknown_words, "stats, then recover progress");
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAA 40/40 1 core idle 0 writable 0 0 0 - stats 1 2 3 4 5 6 7 8 9 10 11 - more", &st);
	CHECK(st.has_progress && !st.progress_running && st.has_stats &&
	      st.nr_unknown_words == 1, "stats, progress -, a later word");
	/* a line of before issue 35: no progress, nothing else changes */
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAA 40/40 1 core idle 0 writable 0 0 0 - stats 1 2 3 4 5 6 7 8 9 10 11", &st);
	CHECK(!st.has_progress && st.has_stats && !st.nr_unknown_words, "no progress word");
	/* not a progress: a later version's word, counted as unknown */
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAA 40/40 1 core check 0 writable 0 0 0 - 5/3", &st);
	CHECK(!st.has_progress && st.nr_unknown_words == 1, "done above total");
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAA 40/40 1 core check 0 writable 0 0 0 - 0/0", &st);
	CHECK(!st.has_progress && st.nr_unknown_words == 1, "total 0");
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAA 40/40 1 core check 0 writable 0 0 0 - 1/x", &st);
	CHECK(!st.has_progress && st.nr_unknown_words == 1, "not a number");

	/* another log type's words are skipped */
	parse_ok("3 8:0 8:16 8:32 1 AAA 100/100 2 userspace x idle 0 writable 0 0", &st);
	CHECK(!strcmp(st.log_type, "userspace"), "other log");

	/* 32 members; whitespace as dm prints it, with a newline */
	{
		char line[1024];
		int o, i;

		o = sprintf(line, "32");
		for (i = 0; i < 32; i++)
			o += sprintf(line + o, " 9:%d", i);
		o += sprintf(line + o, " 1 ");
		for (i = 0; i < 32; i++)
			o += sprintf(line + o, i == 31 ? "Dp" : "A");
		sprintf(line + o, " 5/9 1 core idle 0 held 0 0\n");
		parse_ok(line, &st);
		CHECK(st.nr_members == 32 && st.members[31].dead && st.members[31].parity,
		      "32 members");
	}
	report("r45status-forms", before);
}

static void test_malformed(void)
{
	static const char *const bad[] = {
		"",
		"   ",
		"0 1 core",
		"0 1 A 1/1 1 core idle 0 writable 0 0",
		"33 1:0",
		"4 1:0 1:1 1:2 1:3",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle 0 writable 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle 0 writable",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384",
		"4 1:0 1:1 1:2 1:3 1 AAAA",
		"4 1:0 1:1 1:2 1:3 1",
		/* wrong counts */
		"4 1:0 1:1 1:2 1 AAAA 384/384 1 core idle 0 writable 0 0",
		"3 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 2 AAAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 0 AAAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 2 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 0 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 3 disk 254:5 idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 3 disk 254:5 X idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 2 disk 254:5 idle 0 writable 0 0",
		"3 8:0 8:16 8:32 1 AAA 100/100 1 core idle 0 writable 0 0 stats 1 2 3 4 5 6 7 8 9 10",
		"3 8:0 8:16 8:32 1 AAA 100/100 1 core idle 0 writable 0 0 stats 1 2 x 4 5 6 7 8 9 10 11",
		/* garbage in each field */
		"x 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle 0 writable 0 0",
		"-4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1-2 1:3 1 AAAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1: 1:3 1 AAAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 :2 1:3 1 AAAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2:3 1:3 1 AAAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 99999999999:3 1 AAAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AaAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAAx 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 pAAAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 ApApAA 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAiAp 384/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 385/384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/ 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA /384 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 1/2/3 1 core idle 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core busy 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core IDLE 0 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle -1 writable 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle 0 open 0 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle 0 writable 0x1 0",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle 0 writable 0 18446744073709551616",
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle 0 writable 0 1e3",
		"\x01\x02\x03",
		"raid45 4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle 0 writable 0 0",
	};
	int before = failures;
	unsigned int i;
	char *big;
	size_t n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		parse_bad(bad[i]);
	{
		struct r45_status st;

		CHECK(r45_status_parse(NULL, &st) == -EINVAL, "NULL line");
	}

	/* very long: a megabyte of member words, and one huge word */
	n = 1 << 20;
	big = malloc(n + 1);
	if (!big) {
		CHECK(0, "out of memory");
		return;
	}
	for (i = 0; i + 4 < n; i += 4)
		memcpy(big + i, "1:1 ", 4);
	big[i] = '\0';
	parse_bad(big);
	memset(big, '9', n);
	big[n] = '\0';
	parse_bad(big);
	memset(big, 'A', n);
	memcpy(big, "4 1:0 1:1 1:2 1:3 1 ", 20);
	parse_bad(big);
	/* a valid line followed by a megabyte of unknown words is valid */
	{
		const char *ok = "3 8:0 8:16 8:32 1 AAA 100/100 1 core idle 0 writable 0 0";
		struct r45_status st;

		strcpy(big, ok);
		for (i = strlen(ok); i + 2 < n; i += 2)
			memcpy(big + i, " w", 2);
		big[i] = '\0';
		CHECK(r45_status_parse(big, &st) == 0 && st.nr_unknown_words > 1000,
		      "long tail of unknown words");
		/* and a log type word too long to keep */
		strcpy(big, "3 8:0 8:16 8:32 1 AAA 100/100 1 ");
		n = strlen(big);
		memset(big + n, 'c', 200);
		strcpy(big + n + 200, " idle 0 writable 0 0");
		parse_bad(big);
	}
	free(big);
	report("r45status-malformed", before);
}

static void test_table(void)
{
	static const char *const good[] = {
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 4 -1 254:0 2048 254:1 2048 254:2 2048 254:3 2048",
		"core 1 1024 raid4 3 7 64 256 8 256 10 -1 16 4 -1 1:0 0 1:1 0 1:2 0 1:3 0",
		"disk 3 254:9 1024 sync raid6_nr 7 64 256 8 256 10 sync 16 5 2 8:0 0 8:16 0 8:32 0 8:48 0 8:64 0",
		"disk 2 254:9 1024 raid5_la 7 64 256 8 256 10 nosync 16 locking none 3 0 8:0 8 8:16 8 8:32 8",
		/* issue 26: options and a missing member */
		"disk 2 254:9 1024 raid5_ls 7 64 256 8 256 10 -1 16 start_dirty_degraded ppl -4080 2048 0x14901a8c 4 -1 8:0 4096 - - 8:32 4096 8:48 4096",
		/* issue 34: a write journal, as the target prints it */
		"disk 2 254:9 1024 raid6_zr 7 64 256 8 256 10 -1 16 start_dirty_degraded journal_dev 254:12 journal_mode writethrough 5 -1 8:0 2048 - - 8:32 2048 8:48 2048 8:64 2048",
	};
	static const char *const bad[] = {
		"",
		"core",
		"core 2 256",
		"core 2 256 nosync",
		"core 2 256 nosync raid7 7 64 256 8 256 10 -1 16 3 -1 1:0 0 1:1 0 1:2 0",
		"core 2 256 nosync raid5_ls 8 64 256 8 256 10 -1 16 -1 1 3 -1 1:0 0 1:1 0 1:2 0",
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 3 -1 1:0 0 1:1 0",
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 3 -1 1:0 0 1:1 0 1:2",
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 3 -1 1:0 0 1:1 0 1:2 0 1:3 0",
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 3 3 1:0 0 1:1 0 1:2 0",
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 3 -2 1:0 0 1:1 0 1:2 0",
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 3 -1 1:0 x 1:1 0 1:2 0",
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 locking cluster 3 -1 1:0 0 1:1 0 1:2 0",
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 0 -1",
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 3 -1 1:0 0 - 0 1:2 0",
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 ppl 0 3 -1 1:0 0 1:1 0 1:2 0",
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 journal_dev 3 -1 1:0 0 1:1 0 1:2 0",
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 journal_dev 1:9 journal_mode writeback 3 -1 1:0 0 1:1 0 1:2 0",
		"core 9 1 2 3 4 5 6 7 8 9 raid5_ls 0 3 -1 1:0 0 1:1 0 1:2 0",
	};
	int before = failures;
	struct r45_table t, t2;
	char buf[4096];
	unsigned int i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int r = r45_table_parse(good[i], &t);

		CHECK(!r, "table rejected: %s", good[i]);
		if (r)
			continue;
		CHECK(!r45_table_format(&t, buf, sizeof(buf)) && !strcmp(buf, good[i]),
		      "round trip: \"%s\" became \"%s\"", good[i], buf);
		CHECK(!r45_table_format(&t, buf, 20) || 1, "short buffer");
		CHECK(r45_table_format(&t, buf, 20) == -ENOSPC, "short buffer not refused");
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(r45_table_parse(bad[i], &t) == -EINVAL, "table accepted: \"%s\"", bad[i]);
	CHECK(r45_table_parse(NULL, &t) == -EINVAL, "NULL table");

	r45_table_parse(good[0], &t);
	CHECK(t.nr_devs == 4 && t.dev_to_init == -1 && !strcmp(t.devs[2], "254:2") &&
	      t.offsets[2] == 2048 && r45_table_parity_members(&t) == 1, "fields");
	/* a spare in place of member 2, rebuilt */
	strcpy(t.devs[2], "254:7");
	t.dev_to_init = 2;
	r45_table_format(&t, buf, sizeof(buf));
	CHECK(!strcmp(buf, "core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 4 2 254:0 2048 254:1 2048 254:7 2048 254:3 2048"),
	      "replaced: %s", buf);
	CHECK(!r45_table_parse(buf, &t2) && t2.dev_to_init == 2, "reparse");

	/* a missing member and the options (issue 26) */
	r45_table_parse(good[4], &t);
	CHECK(t.missing[1] && !t.missing[0] && t.nr_opts == 5 &&
	      !strcmp(t.opts[1], "ppl") && !strcmp(t.opts[4], "0x14901a8c"),
	      "missing member, options");

	/* the journal's options kept as words (issue 34) */
	r45_table_parse(good[5], &t);
	CHECK(t.nr_devs == 5 && t.missing[1] && t.nr_opts == 5 &&
	      !strcmp(t.opts[1], "journal_dev") && !strcmp(t.opts[2], "254:12") &&
	      !strcmp(t.opts[4], "writethrough"), "journal options");

	/* after the rebuild: core log nosync, recovery switch -1 */
	r45_table_parse(good[1], &t);
	CHECK(t.has_parity_dev && !strcmp(t.parity_dev, "3"), "raid4 parity");
	r45_table_core_nosync(&t);
	r45_table_format(&t, buf, sizeof(buf));
	CHECK(!strcmp(buf, "core 2 1024 nosync raid4 3 7 64 256 8 256 10 -1 16 4 -1 1:0 0 1:1 0 1:2 0 1:3 0"),
	      "core 1 to nosync: %s", buf);
	r45_table_parse(good[2], &t);
	CHECK(r45_table_parity_members(&t) == 2 && t.dev_to_init == 2, "raid6");
	r45_table_core_nosync(&t);
	r45_table_format(&t, buf, sizeof(buf));
	CHECK(!strcmp(buf, good[2]), "disk log unchanged: %s", buf);
	CHECK(!r45_table_parse("core 2 256 sync raid6_zr 7 64 256 8 256 10 sync 16 4 1 1:0 0 1:1 0 1:2 0 1:3 0", &t), "parse");
	r45_table_core_nosync(&t);
	r45_table_format(&t, buf, sizeof(buf));
	CHECK(!strcmp(buf, "core 2 256 nosync raid6_zr 7 64 256 8 256 10 -1 16 4 1 1:0 0 1:1 0 1:2 0 1:3 0"),
	      "sync switch: %s", buf);
	report("r45status-table", before);
}

/* Mutations of valid lines: any result, but 0 or -EINVAL and no crash. */
static void test_fuzz(void)
{
	static const char *const seeds[] = {
		"4 1:0 1:1 1:2 1:3 1 AAAA 384/384 1 core idle 0 writable 0 0",
		"3 254:1 254:2 254:3 1 AAA 17/128 3 disk 254:5 A resync 0 writable 0 0",
		"5 253:0 253:1 253:2 253:3 253:4 1 AADpAA 60/80 1 core idle 0 held 0 20",
		"4 7:0 7:1 7:9 7:3 1 AAAiA 3/40 1 core recover 0 writable 0 0 stats 1 2 3 4 5 6 7 8 9 10 11",
		"core 2 256 nosync raid5_ls 7 64 256 8 256 10 -1 16 4 -1 254:0 2048 254:1 2048 254:2 2048 254:3 2048",
		"disk 3 254:9 1024 sync raid4 0 7 64 256 8 256 10 sync 16 locking none 3 2 8:0 0 8:16 0 8:32 0",
	};
	static const char alphabet[] = "0123456789 :/ADpi-x\tAAAcoreidlestats";
	int before = failures, accepted = 0, rejected = 0;
	unsigned int seed = 4545, iter;
	char buf[512], out[1024];

	srand(seed);
	for (iter = 0; iter < 200000; iter++) {
		const char *s = seeds[rand() % (sizeof(seeds) / sizeof(seeds[0]))];
		size_t len = strlen(s);
		int muts = 1 + rand() % 4, m, r;
		struct r45_status st;
		struct r45_table t;

		memcpy(buf, s, len + 1);
		for (m = 0; m < muts; m++) {
			size_t pos = len ? (size_t)rand() % len : 0;

			switch (rand() % 5) {
			case 0:	/* change a character */
				if (len)
					buf[pos] = alphabet[rand() % (sizeof(alphabet) - 1)];
				break;
			case 1:	/* delete one */
				if (len) {
					memmove(buf + pos, buf + pos + 1, len - pos);
					len--;
				}
				break;
			case 2:	/* insert one */
				if (len + 2 < sizeof(buf)) {
					memmove(buf + pos + 1, buf + pos, len - pos + 1);
					buf[pos] = alphabet[rand() % (sizeof(alphabet) - 1)];
					len++;
				}
				break;
			case 3:	/* cut the line */
				buf[pos] = '\0';
				len = pos;
				break;
			default: /* raw byte */
				if (len)
					buf[pos] = (char)(1 + rand() % 255);
				break;
			}
		}
		r = r45_status_parse(buf, &st);
		CHECK(r == 0 || r == -EINVAL, "status returned %d", r);
		if (!r) {
			accepted++;
			CHECK(st.nr_members >= 1 && st.nr_members <= R45_MAX_MEMBERS &&
			      st.in_sync <= st.regions, "accepted an impossible status: %s", buf);
			r45_status_health(&st, out, sizeof(out));
			CHECK(strlen(out) >= st.nr_members, "health word");
		} else {
			rejected++;
		}
		r = r45_table_parse(buf, &t);
		CHECK(r == 0 || r == -EINVAL, "table returned %d", r);
		if (!r) {
			struct r45_table t2;

			/* what is accepted formats back into the same table */
			CHECK(!r45_table_format(&t, out, sizeof(out)) &&
			      !r45_table_parse(out, &t2) &&
			      !memcmp(&t, &t2, sizeof(t)), "table round trip: %s", buf);
		}
	}
	CHECK(accepted > 100 && rejected > 100, "fuzz mix: %d accepted, %d rejected",
	      accepted, rejected);
	report("r45status-fuzz", before);
}

static void progress_of(const char *l1, const char *l2, double seconds, struct r45_progress *p,
			char *buf, size_t size)
{
	struct r45_status a, b;

	parse_ok(l2, &b);
	if (l1)
		parse_ok(l1, &a);
	CHECK(!r45_progress_get(l1 ? &a : NULL, &b, seconds, p), "progress of \"%s\"", l2);
	r45_progress_format(p, buf, size);
}

/*
 * raid45ctl status's progress, rate and ETA from two status lines read
 * seconds apart
 */
static void test_progress(void)
{
	int before = failures;
	struct r45_progress p;
	struct r45_status st;
	char buf[128];
	const char *chk1 = "4 1:0 1:1 1:2 1:3 1 AAAA 10728/10728 1 core check 0 writable 0 0 0 - 91392/2746368";
	const char *chk2 = "4 1:0 1:1 1:2 1:3 1 AAAA 10728/10728 1 core check 0 writable 0 0 0 - 93440/2746368";

	/*
	 * Two lines 6.12 printed in tests/guest/95-raid45ctl (a check of a
	 * 12 MiB RAID5 on scsi_debug disks slowed by their delay), read
	 * 1796642536.769415099 - 1796642534.473886740 s apart: 3072 sectors
	 * in 2.2955 s, 669.13 KiB/s, 21504 sectors left in 16.07 s
	 */
	progress_of("4 8:0 8:16 8:64 8:48 1 AAAA 24/24 1 core check 0 writable 0 0 0 - 0/24576",
		    "4 8:0 8:16 8:64 8:48 1 AAAA 24/24 1 core check 0 writable 0 0 0 - 3072/24576",
		    1796642536.769415099 - 1796642534.473886740, &p, buf, sizeof(buf));
	CHECK(p.running && p.action == R45_ACTION_CHECK && p.done == 3072 && p.total == 24576 &&
	      p.has_rate && p.rate > 1338.2 && p.rate < 1338.3 && p.has_eta && p.eta == 16,
	      "real lines: rate %f eta %llu", p.rate, (unsigned long long)p.eta);
	CHECK(!strcmp(buf, "12.5% (1.50 MiB of 12.00 MiB), 669.13 KiB/s, ETA 16s"), "format: %s", buf);
	/* 2048 sectors in 2 s: 512 KiB/s, (2746368 - 93440) / 1024 s left */
	progress_of(chk1, chk2, 2.0, &p, buf, sizeof(buf));
	CHECK(p.running && p.action == R45_ACTION_CHECK && p.has_rate && p.rate == 1024 &&
	      p.has_eta && p.eta == 2591, "rate %f eta %llu", p.rate, (unsigned long long)p.eta);
	CHECK(!strcmp(buf, "3.4% (45.62 MiB of 1.31 GiB), 512.00 KiB/s, ETA 43m11s"), "format: %s", buf);
	/* one line: no rate */
	progress_of(NULL, chk2, 0, &p, buf, sizeof(buf));
	CHECK(p.running && !p.has_rate && !p.has_eta, "one line has no rate");
	CHECK(!strcmp(buf, "3.4% (45.62 MiB of 1.31 GiB)"), "format: %s", buf);
	/* no time between them: no rate */
	progress_of(chk1, chk2, 0, &p, buf, sizeof(buf));
	CHECK(p.running && !p.has_rate, "0 s: no rate");
	/* not moved: stalled, no ETA */
	progress_of(chk1, chk1, 1.5, &p, buf, sizeof(buf));
	CHECK(p.has_rate && p.rate == 0 && !p.has_eta, "stalled");
	CHECK(!strcmp(buf, "3.3% (44.62 MiB of 1.31 GiB), stalled"), "format: %s", buf);
	/* gone back (a check started again): no rate */
	progress_of(chk2, chk1, 1, &p, buf, sizeof(buf));
	CHECK(p.running && !p.has_rate, "went back: no rate");
	/* another action between the two: no rate */
	progress_of("4 1:0 1:1 1:2 1:3 1 AAAA 357/10728 1 core resync 0 writable 0 0 0 - 91392/2746368",
		    chk2, 1, &p, buf, sizeof(buf));
	CHECK(p.running && p.action == R45_ACTION_CHECK && !p.has_rate, "another action: no rate");
	/* frozen: its place, no rate */
	progress_of("4 1:0 1:1 1:2 1:3 1 AAAA 10728/10728 1 core frozen 0 writable 0 0 0 - 248832/2746368",
		    "4 1:0 1:1 1:2 1:3 1 AAAA 10728/10728 1 core frozen 0 writable 0 0 0 - 248832/2746368",
		    1, &p, buf, sizeof(buf));
	CHECK(p.running && p.action == R45_ACTION_FROZEN && !p.has_rate, "frozen: no rate");
	CHECK(!strcmp(buf, "9.0% (121.50 MiB of 1.31 GiB)"), "format: %s", buf);
	/* idle: "-" */
	progress_of(NULL, "4 1:0 1:1 1:2 1:3 1 AAAA 1920/1920 1 core idle 5120 writable 0 0 0 - -",
		    0, &p, buf, sizeof(buf));
	CHECK(!p.running && !strcmp(buf, "-"), "idle: %s", buf);
	/* done: 100.0%, and only then */
	progress_of(NULL, "4 1:0 1:1 1:2 1:3 1 AAAA 10/10 1 core check 0 writable 0 0 0 - 2746367/2746368",
		    0, &p, buf, sizeof(buf));
	CHECK(!strncmp(buf, "99.9% ", 6), "one sector short: %s", buf);
	/* a slow rebuild of a large array: hours, then days */
	progress_of("4 1:0 1:1 1:2 1:3 1 AAAiA 3/40 1 core recover 0 writable 0 0 0 - 0/7814037168",
		    "4 1:0 1:1 1:2 1:3 1 AAAiA 3/40 1 core recover 0 writable 0 0 0 - 20480/7814037168",
		    1, &p, buf, sizeof(buf));
	CHECK(p.has_eta && p.eta == 381544 && strstr(buf, ", 10.00 MiB/s, ETA 4d09h"), "days: %s", buf);
	progress_of("4 1:0 1:1 1:2 1:3 1 AAAiA 3/40 1 core recover 0 writable 0 0 0 - 0/7814037168",
		    "4 1:0 1:1 1:2 1:3 1 AAAiA 3/40 1 core recover 0 writable 0 0 0 - 409600/7814037168",
		    1, &p, buf, sizeof(buf));
	CHECK(strstr(buf, "(200.00 MiB of 3.64 TiB), 200.00 MiB/s, ETA 5h17m"), "hours: %s", buf);
	/* a line of before issue 35: -EINVAL */
	parse_ok("4 1:0 1:1 1:2 1:3 1 AAAA 40/40 1 core idle 0 writable 0 0 0 -", &st);
	CHECK(r45_progress_get(NULL, &st, 0, &p) == -EINVAL, "no progress word");
	r45_progress_format(&p, buf, sizeof(buf));
	CHECK(!strcmp(buf, "-"), "no progress word: %s", buf);
	/* a small buffer is cut, never overrun (ASan) */
	progress_of(chk1, chk2, 2.0, &p, buf, 8);
	CHECK(strlen(buf) == 7, "cut: %s", buf);
	report("r45status-progress", before);
}

int main(void)
{
	test_forms();
	test_malformed();
	test_table();
	test_progress();
	test_fuzz();
	return failures ? 1 : 0;
}
