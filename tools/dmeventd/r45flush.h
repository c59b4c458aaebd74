/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An fsync of the dm device with a time limit, for the plugin (review 4):
 * a member that fails during the flush makes the kernel hold the flush's
 * completion until allow_writes, which only the waiting event thread
 * would send.  So the fsync runs in a detached thread of its own; the
 * caller waits a bounded time and goes on.  The thread and the caller
 * share a small state, freed by whichever lets go last (a reference
 * count); the thread closes the descriptor once the fsync returned.
 * Unit-tested by test-r45flush.c.
 */
#ifndef R45FLUSH_H
#define R45FLUSH_H

struct r45_flush;

/*
 * fsync (fn: a test seam, NULL for fsync) of fd, which this takes
 * (closed whatever happens), in a thread of its own, waited for at most
 * timeout_ms: its result (0 or -errno), or -ETIMEDOUT: then it goes on
 * alone and *pending keeps it.  With *pending set: -EINPROGRESS (fd
 * closed, nothing started) while that flush runs; once it has ended it
 * is forgotten and a new one started.
 */
int r45_flush_timed(int fd, int timeout_ms, struct r45_flush **pending, int (*fn)(int fd));
/* Let go of a flush still running (*pending NULL after): it frees itself. */
void r45_flush_forget(struct r45_flush **pending);
/* flushes not freed yet (a test seam) */
int r45_flush_live(void);

#endif
