// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of r45flush.c: an fsync that "hangs" (a test seam blocked on
 * a pipe, as a flush the kernel holds until allow_writes) is given up
 * after its time limit and goes on alone; no second one starts while it
 * runs; it closes its descriptor and frees its state when it ends, even
 * after the caller let go (ASan sees a use after free or a leak).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "r45flush.h"

#include "unit-check.h"

static int gate[2];		/* a hanging fsync reads a byte from gate[0] */
static int calls;

static int hanging_fsync(int fd)
{
	char c;

	(void)fd;
	__atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST);
	if (read(gate[0], &c, 1) != 1) {
		errno = EIO;
		return -1;
	}
	if (c == 'e') {
		errno = EIO;
		return -1;
	}
	return 0;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

static int null_fd(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0 || errno != EBADF;
}

/* wait (at most 5 s) until no flush state is left */
static bool all_freed(void)
{
	int i;

	for (i = 0; i < 500 && r45_flush_live(); i++)
		usleep(10 * 1000);
	return !r45_flush_live();
}

static void test_flush(void)
{
	int before = failures, fd, fd2, r;
	struct r45_flush *p = NULL;
	struct timespec t0;

	CHECK(pipe(gate) == 0, "pipe");

	/* one that ends in time: its result, nothing left behind */
	fd = null_fd();
	CHECK(write(gate[1], "e", 1) == 1, "gate");
	r = r45_flush_timed(fd, 2000, &p, hanging_fsync);
	CHECK(r == -EIO && !p, "an fsync error: %d", r);
	CHECK(!is_open(fd) && all_freed(), "left behind after an error");
	{
		char tmp[] = "/tmp/test-r45flush.XXXXXX";

		fd = mkstemp(tmp);
		CHECK(fd >= 0, "mkstemp");
		unlink(tmp);
	}
	r = r45_flush_timed(fd, 2000, &p, NULL);
	CHECK(r == 0 && !p && !is_open(fd) && all_freed(), "a real fsync: %d", r);

	/* one that hangs: given up after the limit, not waited for */
	fd = null_fd();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = r45_flush_timed(fd, 200, &p, hanging_fsync);
	CHECK(r == -ETIMEDOUT && p, "a hanging flush: %d", r);
	CHECK(ms_since(&t0) >= 190 && ms_since(&t0) < 3000, "waited %ld ms", ms_since(&t0));
	CHECK(is_open(fd) && r45_flush_live() == 1, "its descriptor is the thread's");
	/* while it runs: no other one, at once */
	fd2 = null_fd();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = r45_flush_timed(fd2, 200, &p, hanging_fsync);
	CHECK(r == -EINPROGRESS && p && ms_since(&t0) < 150 && !is_open(fd2),
	      "a second one while the first runs: %d", r);
	CHECK(__atomic_load_n(&calls, __ATOMIC_SEQ_CST) == 2, "fsync calls: %d", calls);
	/* it ends (writes released): its descriptor closed, then a new one */
	CHECK(write(gate[1], "x", 1) == 1, "gate");
	{
		int i;

		for (i = 0; i < 500 && is_open(fd); i++)
			usleep(10 * 1000);
	}
	CHECK(!is_open(fd), "the first flush's descriptor left open");
	CHECK(write(gate[1], "x", 1) == 1, "gate");
	fd = null_fd();
	r = r45_flush_timed(fd, 2000, &p, hanging_fsync);
	CHECK(r == 0 && !p && all_freed(), "after the first ended: %d", r);

	/* the caller lets go of one still running (unregistered): it frees itself */
	fd = null_fd();
	r = r45_flush_timed(fd, 100, &p, hanging_fsync);
	CHECK(r == -ETIMEDOUT && p, "hangs again: %d", r);
	r45_flush_forget(&p);
	CHECK(!p && r45_flush_live() == 1, "forgotten while it runs");
	CHECK(write(gate[1], "x", 1) == 1, "gate");
	CHECK(all_freed(), "not freed after it ended alone");
	CHECK(!is_open(fd), "descriptor of the forgotten flush left open");
	close(gate[0]);
	close(gate[1]);
	report("r45flush-time-limit", before);
}

int main(void)
{
	alarm(30);	/* a flush waited for without a limit: killed */
	test_flush();
	return failures ? 1 : 0;
}
