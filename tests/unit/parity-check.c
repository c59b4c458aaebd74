// SPDX-License-Identifier: GPL-2.0
/*
 * parity-check: read raw member devices and verify every stripe's parity
 * (P, and Q for RAID6) for a given raid45 type, chunk and data offset.
 *
 *   parity-check -t TYPE -c CHUNK_SECTORS [-o OFFSET] [-p RAID4_PARITY]
 *                [-n STRIPES] dev0 dev1 ...
 *
 * Prints "stripes N bad M" and exits 1 if any stripe is bad, 2 on usage
 * or I/O errors.  Every member must be given.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "r45_layout.h"

static unsigned char gf_exp[512], gf_log[256];

static void gf_init(void)
{
	int i, x = 1;

	for (i = 0; i < 255; i++) {
		gf_exp[i] = x;
		gf_log[x] = i;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
	}
	for (i = 255; i < 512; i++)
		gf_exp[i] = gf_exp[i - 255];
}

static unsigned char gf_mul_pow2(unsigned char v, int power)
{
	if (!v)
		return 0;
	return gf_exp[gf_log[v] + power % 255];
}

static unsigned long long dev_size(int fd)
{
	struct stat st;
	unsigned long long sz = 0;

	if (fstat(fd, &st))
		return 0;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &sz))
			return 0;
		return sz;
	}
	return st.st_size;
}

int main(int argc, char **argv)
{
	int type = -1, parity = -1, opt, i, n;
	unsigned long chunk = 0;
	unsigned long long offset = 0, stripes = 0, s, bad = 0, minsz = ~0ULL;
	int fds[R45_MAX_DISKS];
	unsigned char *buf[R45_MAX_DISKS], *p, *q;
	struct r45_geom g;
	size_t cb;

	while ((opt = getopt(argc, argv, "t:c:o:p:n:")) != -1) {
		switch (opt) {
		case 't': type = r45_type_from_name(optarg); break;
		case 'c': chunk = strtoul(optarg, NULL, 0); break;
		case 'o': offset = strtoull(optarg, NULL, 0); break;
		case 'p': parity = atoi(optarg); break;
		case 'n': stripes = strtoull(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	n = argc - optind;
	if (type < 0 || !chunk || n < 3 || n > R45_MAX_DISKS) {
		fprintf(stderr, "usage: parity-check -t TYPE -c CHUNK [-o OFF] [-p P] [-n STRIPES] devs...\n");
		return 2;
	}
	if (parity < 0)
		parity = n - 1;
	if (r45_geom_init(&g, type, n, chunk, parity, 0)) {
		fprintf(stderr, "parity-check: bad geometry\n");
		return 2;
	}
	gf_init();
	cb = chunk * 512;
	for (i = 0; i < n; i++) {
		/*
		 * Read what is on the member, not the member's page cache
		 * (it goes stale when the array writes with bios while
		 * another opener keeps the cache alive); files and
		 * devices without O_DIRECT are read through the cache.
		 */
		fds[i] = open(argv[optind + i], O_RDONLY | O_DIRECT);
		if (fds[i] < 0 && errno == EINVAL)
			fds[i] = open(argv[optind + i], O_RDONLY);
		if (fds[i] < 0) {
			perror(argv[optind + i]);
			return 2;
		}
		if (dev_size(fds[i]) < minsz)
			minsz = dev_size(fds[i]);
		if (posix_memalign((void **)&buf[i], 4096, cb)) {
			fprintf(stderr, "parity-check: out of memory\n");
			return 2;
		}
	}
	p = malloc(cb);
	q = malloc(cb);
	if (!stripes)
		stripes = (minsz / 512 - offset) / chunk;
	for (s = 0; s < stripes; s++) {
		struct r45_stripe_map m;
		size_t b;
		unsigned int dd;

		r45_map_stripe(&g, s, &m);
		for (i = 0; i < n; i++) {
			off_t pos = (off_t)((offset + s * chunk) * 512);

			if (pread(fds[i], buf[i], cb, pos) != (ssize_t)cb) {
				fprintf(stderr, "parity-check: read error member %d stripe %llu\n", i, s);
				return 2;
			}
		}
		memset(p, 0, cb);
		memset(q, 0, cb);
		for (dd = 0; dd < g.data_disks; dd++) {
			unsigned char *d = buf[m.data[dd]];
			int slot = m.qslot[m.data[dd]];

			for (b = 0; b < cb; b++) {
				p[b] ^= d[b];
				if (m.qd >= 0)
					q[b] ^= gf_mul_pow2(d[b], slot);
			}
		}
		if (memcmp(p, buf[m.pd], cb) ||
		    (m.qd >= 0 && memcmp(q, buf[m.qd], cb))) {
			if (bad < 10)
				printf("bad stripe %llu\n", s);
			bad++;
		}
	}
	printf("stripes %llu bad %llu\n", stripes, bad);
	return bad ? 1 : 0;
}
