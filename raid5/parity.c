// SPDX-License-Identifier: GPL-2.0
/*
 * Parity for one stripe row of R45_STRIPE_BYTES per member, on the
 * kernel's xor and raid6 libraries (through the r45_* wrappers of
 * r45_compat.h, which also states the libraries' rules we keep).
 * blocks[i] is the page address of member i's block.
 */
#include <linux/string.h>
#include <linux/errno.h>
#include "r45_compat.h"
#include "r45_array.h"

void r45_xor_into(void *dest, void **srcs, unsigned int count)
{
	r45_xor(dest, srcs, count, R45_STRIPE_BYTES);
}

/* dest = xor of every member block except dest's own and the skipped. */
static void xor_all_but(const struct r45_geom *g,
			const struct r45_stripe_map *m, void **blocks,
			unsigned int dest, int skip)
{
	void *srcs[R45_MAX_DISKS];
	unsigned int i, n = 0;

	for (i = 0; i < g->raid_disks; i++)
		if (i != dest && (int)i != skip && (int)i != m->qd)
			srcs[n++] = blocks[i];
	memset(blocks[dest], 0, R45_STRIPE_BYTES);
	r45_xor_into(blocks[dest], srcs, n);
}

/* Syndrome pointer array in the raid6 library's order; returns count. */
static unsigned int r6_ptrs(const struct r45_geom *g,
			    const struct r45_stripe_map *m, void **blocks,
			    void **ptrs)
{
	unsigned int i, d = m->ddf ? g->raid_disks : g->data_disks;

	for (i = 0; i < d; i++)
		ptrs[i] = r45_raid6_zero_block();
	for (i = 0; i < g->raid_disks; i++)
		if (m->qslot[i] >= 0)
			ptrs[m->qslot[i]] = blocks[i];
	ptrs[d] = blocks[m->pd];
	ptrs[d + 1] = blocks[m->qd];
	return d + 2;
}

static void gen_syndrome(const struct r45_geom *g,
			 const struct r45_stripe_map *m, void **blocks)
{
	void *ptrs[R45_MAX_DISKS + 2];
	unsigned int n = r6_ptrs(g, m, blocks, ptrs);

	r45_raid6_gen_syndrome(n, R45_STRIPE_BYTES, ptrs);
}

void r45_compute_parity(const struct r45_geom *g,
			const struct r45_stripe_map *m, void **blocks)
{
	if (m->qd >= 0)
		gen_syndrome(g, m, blocks);
	else
		xor_all_but(g, m, blocks, m->pd, -1);
}

/*
 * Read-modify-write: fold the touched members' blocks, as they are now,
 * into P (and Q).  The caller calls it with the old contents (taking
 * them out of parity), writes the new data, and calls it again (putting
 * them in): a block xored in twice cancels, in GF(2^8) as in plain xor.
 * Right only where parity matched the data before (the caller's rule).
 */
static void xor_delta(const struct r45_geom *g,
		      const struct r45_stripe_map *m, void **blocks,
		      unsigned long touched)
{
	void *srcs[R45_MAX_DISKS];
	unsigned int i, n = 0;

	for_each_set_bit(i, &touched, g->raid_disks)
		srcs[n++] = blocks[i];
	r45_xor_into(blocks[m->pd], srcs, n);
}

/*
 * RAID6 (needs r45_raid6_can_xor_syndrome()): the syndrome range is
 * that of the touched blocks; the untouched data slots in it, and the
 * slots of the P and Q members themselves (r6_ptrs), are zero pages,
 * as md's drain sources are.
 */
static void syndrome_delta(const struct r45_geom *g,
			   const struct r45_stripe_map *m, void **blocks,
			   unsigned long touched)
{
	void *ptrs[R45_MAX_DISKS + 2];
	unsigned int i, n = r6_ptrs(g, m, blocks, ptrs);
	int start = -1, stop = -1, s;

	for (i = 0; i < g->raid_disks; i++) {
		s = m->qslot[i];
		if (s < 0)
			continue;
		if (!(touched & BIT(i))) {
			ptrs[s] = r45_raid6_zero_block();
			continue;
		}
		if (start < 0 || s < start)
			start = s;
		if (s > stop)
			stop = s;
	}
	if (stop >= 0)
		r45_raid6_xor_syndrome(n, start, stop, R45_STRIPE_BYTES, ptrs);
}

void r45_parity_delta(const struct r45_geom *g,
		      const struct r45_stripe_map *m, void **blocks,
		      unsigned long touched)
{
	if (m->qd < 0)
		xor_delta(g, m, blocks, touched);
	else
		syndrome_delta(g, m, blocks, touched);
}

/*
 * Rebuild the blocks of members fa and (if >= 0) fb from the others.
 * Returns -EIO if the combination is beyond the level's redundancy.
 */
int r45_reconstruct(const struct r45_geom *g,
		    const struct r45_stripe_map *m, void **blocks,
		    int fa, int fb)
{
	void *ptrs[R45_MAX_DISKS + 2];
	unsigned int n;
	int t;

	if (fb >= 0 && fa > fb) {
		t = fa;
		fa = fb;
		fb = t;
	}
	if (m->qd < 0) {
		if (fb >= 0)
			return -EIO;
		xor_all_but(g, m, blocks, fa, -1);
		return 0;
	}
	/* RAID6: name the pair so that a data block comes first. */
	if (fa == m->qd || (fa == (int)m->pd && fb >= 0 && fb != m->qd)) {
		t = fa;
		fa = fb;
		fb = t;
	}
	if (fa < 0 || fa == (int)m->pd || fa == m->qd) {
		/* only P and/or Q missing: recompute both */
		gen_syndrome(g, m, blocks);
		return 0;
	}
	if (fb < 0 || fb == m->qd) {
		/* data (and maybe Q): data from P, then Q */
		xor_all_but(g, m, blocks, fa, fb);
		if (fb >= 0)
			gen_syndrome(g, m, blocks);
		return 0;
	}
	n = r6_ptrs(g, m, blocks, ptrs);
	if (fb == (int)m->pd) {
		r45_raid6_recov_datap(n, R45_STRIPE_BYTES, m->qslot[fa], ptrs);
	} else {
		int sa = m->qslot[fa], sb = m->qslot[fb];

		if (sa > sb)
			swap(sa, sb);
		r45_raid6_recov_2data(n, R45_STRIPE_BYTES, sa, sb, ptrs);
	}
	return 0;
}
