/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace unit tests' checks (test-r45status.c, test-r45mon.c,
 * test-r45dmraid.c): CHECK counts a failed condition with its line and
 * a message, report prints PASS or FAIL for a test by whether it
 * counted any.  Included once per test program.
 */
#ifndef R45_UNIT_CHECK_H
#define R45_UNIT_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		printf("  check failed (line %d): ", __LINE__); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		failures++; \
	} \
} while (0)

static void report(const char *name, int before)
{
	printf("%s %s\n", failures == before ? "PASS" : "FAIL", name);
}

#endif
