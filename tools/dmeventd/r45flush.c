// SPDX-License-Identifier: GPL-2.0
/*
 * An fsync with a time limit (see r45flush.h).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "r45flush.h"

/* a thread that only calls fsync() needs little stack */
#define FLUSH_STACK (64 * 1024)

struct r45_flush {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int fd;
	int (*fn)(int fd);
	int result;
	bool done;
	unsigned int refs;	/* the thread's, the caller's */
};

static int live;	/* under live_lock */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void count(int n)
{
	pthread_mutex_lock(&live_lock);
	live += n;
	pthread_mutex_unlock(&live_lock);
}

int r45_flush_live(void)
{
	int n;

	pthread_mutex_lock(&live_lock);
	n = live;
	pthread_mutex_unlock(&live_lock);
	return n;
}

/* Drop one reference; called with f->lock held, returns with it dropped. */
static void put(struct r45_flush *f)
{
	bool last = !--f->refs;

	pthread_mutex_unlock(&f->lock);
	if (!last)
		return;
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
	count(-1);
}

static void *flush_thread(void *arg)
{
	struct r45_flush *f = arg;
	int r;

	r = f->fn ? f->fn(f->fd) : fsync(f->fd);
	r = r ? (errno > 0 ? -errno : -EIO) : 0;
	close(f->fd);
	pthread_mutex_lock(&f->lock);
	f->fd = -1;
	f->result = r;
	f->done = true;
	pthread_cond_signal(&f->cond);
	put(f);
	return NULL;
}

static struct r45_flush *flush_new(int fd, int (*fn)(int fd))
{
	struct r45_flush *f = calloc(1, sizeof(*f));
	pthread_condattr_t ca;

	if (!f)
		return NULL;
	if (pthread_condattr_init(&ca)) {
		free(f);
		return NULL;
	}
	if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&f->cond, &ca)) {
		pthread_condattr_destroy(&ca);
		free(f);
		return NULL;
	}
	pthread_condattr_destroy(&ca);
	if (pthread_mutex_init(&f->lock, NULL)) {
		pthread_cond_destroy(&f->cond);
		free(f);
		return NULL;
	}
	f->fd = fd;
	f->fn = fn;
	f->refs = 2;
	count(1);
	return f;
}

int r45_flush_timed(int fd, int timeout_ms, struct r45_flush **pending, int (*fn)(int fd))
{
	struct r45_flush *f = *pending;
	struct timespec end;
	pthread_attr_t attr;
	int r;

	if (f) {
		pthread_mutex_lock(&f->lock);
		if (!f->done) {
			pthread_mutex_unlock(&f->lock);
			close(fd);
			return -EINPROGRESS;
		}
		*pending = NULL;
		put(f);
	}
	f = flush_new(fd, fn);
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	r = pthread_attr_init(&attr);
	if (!r) {
		(void)pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN + FLUSH_STACK);
		r = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (!r) {
			pthread_t th;

			r = pthread_create(&th, &attr, flush_thread, f);
		}
		pthread_attr_destroy(&attr);
	}
	if (r) {
		close(fd);
		pthread_mutex_lock(&f->lock);
		f->refs--;	/* no thread */
		put(f);
		return -r;
	}

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += timeout_ms / 1000;
	end.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&f->lock);
	while (!f->done) {
		r = pthread_cond_timedwait(&f->cond, &f->lock, &end);
		if (r == ETIMEDOUT)
			break;
	}
	if (!f->done) {
		pthread_mutex_unlock(&f->lock);
		*pending = f;	/* ours still: let go later */
		return -ETIMEDOUT;
	}
	r = f->result;
	put(f);
	return r;
}

void r45_flush_forget(struct r45_flush **pending)
{
	struct r45_flush *f = *pending;

	if (!f)
		return;
	*pending = NULL;
	pthread_mutex_lock(&f->lock);
	put(f);
}
