/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layout math: where a logical sector of the array lives on the members.
 * The layouts equal md's RAID4/5/6 algorithms for the same level, layout,
 * chunk size and device order.
 */
#ifndef R45_LAYOUT_H
#define R45_LAYOUT_H

#include "r45_types.h"

enum r45_type {
	R45_RAID4,
	R45_RAID5_LA,
	R45_RAID5_RA,
	R45_RAID5_LS,
	R45_RAID5_RS,
	R45_RAID6_ZR,
	R45_RAID6_NR,
	R45_RAID6_NC,
	R45_NR_TYPES
};

struct r45_geom {
	enum r45_type type;
	unsigned int raid_disks;
	unsigned int parity_disks;	/* 1 (RAID4/5) or 2 (RAID6) */
	unsigned int data_disks;
	unsigned int chunk_sectors;	/* power of two */
	unsigned int chunk_shift;
	int raid4_parity;		/* RAID4: index of the parity member */
	sector_t dev_sectors;		/* usable sectors per member */
};

/* Where one logical chunk-part lives. */
struct r45_loc {
	u64 stripe;		/* stripe number (= chunk row on the members) */
	unsigned int dd;	/* logical data index within the stripe */
	unsigned int disk;	/* member index holding it */
	sector_t dev_sector;	/* sector on that member (relative to offset) */
};

/* Per-stripe roles. */
struct r45_stripe_map {
	unsigned int pd;	/* P member */
	int qd;			/* Q member, -1 if none */
	bool ddf;		/* Q coefficients follow member index (ddf) */
	unsigned int data[32];	/* data[dd] = member of logical data block */
	int qslot[32];		/* Q coefficient index per member, -1: none */
};

#define R45_MAX_DISKS 32

const char *r45_type_name(enum r45_type t);
int r45_type_from_name(const char *name);
int r45_type_parity_disks(enum r45_type t);

int r45_geom_init(struct r45_geom *g, enum r45_type type,
		  unsigned int raid_disks, unsigned int chunk_sectors,
		  int raid4_parity, sector_t dev_sectors);
void r45_map_stripe(const struct r45_geom *g, u64 stripe,
		    struct r45_stripe_map *m);
void r45_map_sector(const struct r45_geom *g, sector_t lsector,
		    struct r45_loc *loc);
void r45_sector_pos(const struct r45_geom *g, sector_t lsector,
		    struct r45_loc *loc);

#endif
