// SPDX-License-Identifier: GPL-2.0
/*
 * Layout math for RAID4, the four RAID5 layouts and the three rotating
 * RAID6 layouts.  Pure arithmetic: also built in userspace for tests.
 */
#include "r45_layout.h"

#ifndef __KERNEL__
#include <string.h>
#include <errno.h>
#else
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/log2.h>
#endif

static const char *const type_names[R45_NR_TYPES] = {
	[R45_RAID4] = "raid4",
	[R45_RAID5_LA] = "raid5_la",
	[R45_RAID5_RA] = "raid5_ra",
	[R45_RAID5_LS] = "raid5_ls",
	[R45_RAID5_RS] = "raid5_rs",
	[R45_RAID6_ZR] = "raid6_zr",
	[R45_RAID6_NR] = "raid6_nr",
	[R45_RAID6_NC] = "raid6_nc",
};

const char *r45_type_name(enum r45_type t)
{
	return (unsigned int)t < R45_NR_TYPES ? type_names[t] : "unknown";
}

int r45_type_from_name(const char *name)
{
	int i;

	for (i = 0; i < R45_NR_TYPES; i++)
		if (!strcmp(name, type_names[i]))
			return i;
	return -1;
}

int r45_type_parity_disks(enum r45_type t)
{
	return t >= R45_RAID6_ZR ? 2 : 1;
}

static unsigned int ilog2_u32(unsigned int v)
{
	unsigned int s = 0;

	while (v > 1) {
		v >>= 1;
		s++;
	}
	return s;
}

int r45_geom_init(struct r45_geom *g, enum r45_type type,
		  unsigned int raid_disks, unsigned int chunk_sectors,
		  int raid4_parity, sector_t dev_sectors)
{
	unsigned int pdisks;

	if ((unsigned int)type >= R45_NR_TYPES)
		return -EINVAL;
	pdisks = r45_type_parity_disks(type);
	if (raid_disks < pdisks + 2 || raid_disks > R45_MAX_DISKS)
		return -EINVAL;
	if (!chunk_sectors || (chunk_sectors & (chunk_sectors - 1)))
		return -EINVAL;
	if (type == R45_RAID4 &&
	    (raid4_parity < 0 || raid4_parity >= (int)raid_disks))
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	g->type = type;
	g->raid_disks = raid_disks;
	g->parity_disks = pdisks;
	g->data_disks = raid_disks - pdisks;
	g->chunk_sectors = chunk_sectors;
	g->chunk_shift = ilog2_u32(chunk_sectors);
	g->raid4_parity = type == R45_RAID4 ? raid4_parity : -1;
	g->dev_sectors = dev_sectors;
	return 0;
}

/* RAID6 "asymmetric" placement: Q after P, wrapping to member 0. */
static void r6_asym(struct r45_stripe_map *m, unsigned int n, unsigned int pd)
{
	unsigned int dd, disk = 0;

	m->pd = pd;
	m->qd = pd == n - 1 ? 0 : (int)pd + 1;
	for (dd = 0; dd < n - 2; dd++) {
		while (disk == pd || (int)disk == m->qd)
			disk++;
		m->data[dd] = disk++;
	}
}

void r45_map_stripe(const struct r45_geom *g, u64 stripe,
		    struct r45_stripe_map *m)
{
	unsigned int n = g->raid_disks, nd = g->data_disks;
	unsigned int dd, r, i, slot;
	unsigned int pd;

	div_u64_rem(stripe, n, &r);
	m->qd = -1;
	m->ddf = false;
	switch (g->type) {
	case R45_RAID4:
	case R45_RAID5_LA:
	case R45_RAID5_RA:
		if (g->type == R45_RAID4)
			pd = g->raid4_parity;
		else if (g->type == R45_RAID5_LA)
			pd = nd - r;
		else
			pd = r;
		m->pd = pd;
		for (dd = 0; dd < nd; dd++)
			m->data[dd] = dd >= pd ? dd + 1 : dd;
		break;
	case R45_RAID5_LS:
	case R45_RAID5_RS:
		pd = g->type == R45_RAID5_LS ? nd - r : r;
		m->pd = pd;
		for (dd = 0; dd < nd; dd++)
			m->data[dd] = (pd + 1 + dd) % n;
		break;
	case R45_RAID6_ZR:
		/* like RAID5 right-asymmetric, Q follows P */
		r6_asym(m, n, r);
		m->ddf = true;
		break;
	case R45_RAID6_NR:
		/* left-asymmetric shifted: first stripe is D D .. P Q */
		div_u64_rem(stripe + 1, n, &r);
		r6_asym(m, n, n - 1 - r);
		m->ddf = true;
		break;
	case R45_RAID6_NC:
	default:
		/* left-symmetric with Q just before P */
		pd = n - 1 - r;
		m->pd = pd;
		m->qd = (pd + n - 1) % n;
		for (dd = 0; dd < nd; dd++)
			m->data[dd] = (pd + 1 + dd) % n;
		m->ddf = true;
		break;
	}
	/*
	 * Q coefficients: md's ddf layouts weight each member by its index;
	 * the others weight data blocks in logical order.
	 */
	for (i = 0; i < n; i++)
		m->qslot[i] = -1;
	if (m->qd < 0)
		return;
	for (dd = 0; dd < nd; dd++) {
		slot = m->ddf ? m->data[dd] : dd;
		m->qslot[m->data[dd]] = slot;
	}
}

/* Where a sector lies, without the member: stripe, dd and dev_sector. */
void r45_sector_pos(const struct r45_geom *g, sector_t lsector,
		    struct r45_loc *loc)
{
	u64 chunk = lsector >> g->chunk_shift;
	unsigned int off = lsector & (g->chunk_sectors - 1);
	u32 dd;

	loc->stripe = div_u64_rem(chunk, g->data_disks, &dd);
	loc->dd = dd;
	loc->disk = 0;
	loc->dev_sector = (loc->stripe << g->chunk_shift) + off;
}

void r45_map_sector(const struct r45_geom *g, sector_t lsector,
		    struct r45_loc *loc)
{
	struct r45_stripe_map m;

	r45_sector_pos(g, lsector, loc);
	r45_map_stripe(g, loc->stripe, &m);
	loc->disk = m.data[loc->dd];
}
