// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of raid5/layout.c: known md placements, an independent
 * restatement of md's per-layout formulas, and permutation properties.
 */
#include <stdio.h>
#include <string.h>
#include "r45_layout.h"

static int failures;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		printf("  check failed: " __VA_ARGS__); \
		printf("\n"); \
		failures++; \
	} \
} while (0)

/* md's placement, restated literally from its documented rules. */
static void md_place(int type, int n, long stripe, int dd_in, int *pd,
		     int *qd, int *dd_out)
{
	int nd = n - (type >= R45_RAID6_ZR ? 2 : 1);
	int dd = dd_in;

	*qd = -1;
	switch (type) {
	case R45_RAID4:
		*pd = nd;
		break;
	case R45_RAID5_LA:
		*pd = nd - stripe % n;
		if (dd >= *pd)
			dd++;
		break;
	case R45_RAID5_RA:
		*pd = stripe % n;
		if (dd >= *pd)
			dd++;
		break;
	case R45_RAID5_LS:
		*pd = nd - stripe % n;
		dd = (*pd + 1 + dd) % n;
		break;
	case R45_RAID5_RS:
		*pd = stripe % n;
		dd = (*pd + 1 + dd) % n;
		break;
	case R45_RAID6_ZR:
	case R45_RAID6_NR:
		if (type == R45_RAID6_ZR)
			*pd = stripe % n;
		else
			*pd = n - 1 - (stripe + 1) % n;
		*qd = *pd + 1;
		if (*pd == n - 1) {
			dd++;
			*qd = 0;
		} else if (dd >= *pd) {
			dd += 2;
		}
		break;
	case R45_RAID6_NC:
		*pd = n - 1 - stripe % n;
		*qd = (*pd + n - 1) % n;
		dd = (*pd + 1 + dd) % n;
		break;
	}
	*dd_out = dd;
}

static void test_against_md(void)
{
	int type, n, chunk, before = failures;

	for (type = 0; type < R45_NR_TYPES; type++)
		for (n = 3; n <= 16; n++)
			for (chunk = 8; chunk <= 1024; chunk *= 8) {
				struct r45_geom g;
				long s;

				if (r45_geom_init(&g, type, n, chunk, n - 1,
						  1 << 20)) {
					CHECK(type >= R45_RAID6_ZR && n < 4,
					      "geom_init %d %d", type, n);
					continue;
				}
				for (s = 0; s < 3 * n; s++) {
					struct r45_stripe_map m;
					unsigned int dd;

					r45_map_stripe(&g, s, &m);
					for (dd = 0; dd < g.data_disks; dd++) {
						int pd, qd, disk;

						md_place(type, n, s, dd, &pd, &qd,
							 &disk);
						CHECK((int)m.pd == pd && m.qd == qd &&
						      (int)m.data[dd] == disk,
						      "%s n=%d stripe=%ld dd=%u",
						      r45_type_name(type), n, s, dd);
					}
				}
			}
	printf("%s layout-matches-md-formulas\n",
	       failures == before ? "PASS" : "FAIL");
}

static void test_known_tables(void)
{
	/* left-symmetric, 4 disks: rows of (disk of D0, D1, D2; P) */
	static const int ls4[4][4] = {
		{0, 1, 2, 3}, {3, 0, 1, 2}, {2, 3, 0, 1}, {1, 2, 3, 0},
	};
	/* left-asymmetric, 4 disks */
	static const int la4[4][4] = {
		{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0},
	};
	struct r45_geom g;
	struct r45_stripe_map m;
	int s, before = failures;

	r45_geom_init(&g, R45_RAID5_LS, 4, 64, -1, 1024);
	for (s = 0; s < 4; s++) {
		r45_map_stripe(&g, s, &m);
		CHECK(m.data[0] == (unsigned int)ls4[s][0] &&
		      m.data[1] == (unsigned int)ls4[s][1] &&
		      m.data[2] == (unsigned int)ls4[s][2] &&
		      m.pd == (unsigned int)ls4[s][3], "ls4 row %d", s);
	}
	r45_geom_init(&g, R45_RAID5_LA, 4, 64, -1, 1024);
	for (s = 0; s < 4; s++) {
		r45_map_stripe(&g, s, &m);
		CHECK(m.data[0] == (unsigned int)la4[s][0] &&
		      m.data[1] == (unsigned int)la4[s][1] &&
		      m.data[2] == (unsigned int)la4[s][2] &&
		      m.pd == (unsigned int)la4[s][3], "la4 row %d", s);
	}
	/* raid4 with parity on member 1 of 4 */
	r45_geom_init(&g, R45_RAID4, 4, 64, 1, 1024);
	r45_map_stripe(&g, 7, &m);
	CHECK(m.pd == 1 && m.data[0] == 0 && m.data[1] == 2 && m.data[2] == 3,
	      "raid4 parity 1");
	/* raid6_nr, 5 disks, stripe 0: D D D P Q */
	r45_geom_init(&g, R45_RAID6_NR, 5, 64, -1, 1024);
	r45_map_stripe(&g, 0, &m);
	CHECK(m.pd == 3 && m.qd == 4 && m.data[0] == 0, "raid6_nr first row");
	printf("%s layout-known-tables\n", failures == before ? "PASS" : "FAIL");
}

static void test_sector_map(void)
{
	struct r45_geom g;
	struct r45_loc l;
	int before = failures;

	r45_geom_init(&g, R45_RAID5_LS, 5, 16, -1, 1 << 20);
	/* sector 16*4*3 + 16*2 + 5: stripe 3, dd 2, offset 5 */
	r45_map_sector(&g, 16 * 4 * 3 + 16 * 2 + 5, &l);
	CHECK(l.stripe == 3 && l.dd == 2 && l.dev_sector == 3 * 16 + 5,
	      "sector map");
	/* ls 5 disks stripe 3: pd = 4 - 3 = 1, dd2 -> (1+1+2)%5 = 4 */
	CHECK(l.disk == 4, "sector map disk %u", l.disk);
	{
		/* r45_sector_pos places like r45_map_sector, member aside */
		struct r45_loc c;
		int type;
		sector_t s;

		for (type = 0; type < R45_NR_TYPES; type++) {
			CHECK(!r45_geom_init(&g, type, 6, 16, 0, 1 << 20),
			      "geometry %d", type);
			for (s = 0; s < 16 * 5 * 13; s += 3) {
				r45_map_sector(&g, s, &l);
				r45_sector_pos(&g, s, &c);
				CHECK(l.stripe == c.stripe && l.dd == c.dd &&
				      l.dev_sector == c.dev_sector,
				      "position type %d sector %llu", type,
				      (unsigned long long)s);
			}
		}
	}
	printf("%s layout-sector-map\n", failures == before ? "PASS" : "FAIL");
}

static void test_permutation(void)
{
	int type, n, before = failures;

	for (type = 0; type < R45_NR_TYPES; type++)
		for (n = 4; n <= R45_MAX_DISKS; n++) {
			struct r45_geom g;
			long s;

			r45_geom_init(&g, type, n, 8, 0, 1024);
			for (s = 0; s < 2 * n; s++) {
				struct r45_stripe_map m;
				int seen[R45_MAX_DISKS] = { 0 };
				unsigned int i, slots = 0;

				r45_map_stripe(&g, s, &m);
				seen[m.pd]++;
				if (m.qd >= 0)
					seen[m.qd]++;
				for (i = 0; i < g.data_disks; i++)
					seen[m.data[i]]++;
				for (i = 0; i < (unsigned int)n; i++) {
					CHECK(seen[i] == 1, "perm %d %d", type, n);
					if (m.qslot[i] >= 0)
						slots++;
				}
				CHECK(m.qd < 0 || slots == g.data_disks,
				      "qslots %d %d", type, n);
			}
		}
	printf("%s layout-roles-are-permutation\n",
	       failures == before ? "PASS" : "FAIL");
}

static void test_bad_geometry(void)
{
	struct r45_geom g;
	int before = failures;

	CHECK(r45_geom_init(&g, R45_RAID5_LS, 2, 64, -1, 1) != 0, "2 disks");
	CHECK(r45_geom_init(&g, R45_RAID6_ZR, 3, 64, -1, 1) != 0, "raid6 3");
	CHECK(r45_geom_init(&g, R45_RAID5_LS, 3, 48, -1, 1) != 0, "chunk 48");
	CHECK(r45_geom_init(&g, R45_RAID4, 3, 64, 3, 1) != 0, "parity 3");
	CHECK(r45_geom_init(&g, R45_RAID5_LS, 33, 64, -1, 1) != 0, "33 disks");
	CHECK(r45_type_from_name("raid5_xx") < 0, "bad name");
	CHECK(r45_type_from_name("raid6_nc") == R45_RAID6_NC, "good name");
	printf("%s layout-bad-geometry\n", failures == before ? "PASS" : "FAIL");
}

int main(void)
{
	test_known_tables();
	test_against_md();
	test_sector_map();
	test_permutation();
	test_bad_geometry();
	return failures ? 1 : 0;
}
