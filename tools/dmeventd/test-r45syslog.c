// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of r45syslog.c, the plugin's syslog lines, against a "syslogd"
 * that is a datagram socket in a temporary directory: lines arrive in
 * syslog(3)'s format; once nobody reads and its queue is full, a line
 * returns at once and is counted as dropped (issue 31, finding 9: with
 * /var on an array whose writes are held, a blocking send held every
 * monitoring thread); the next line that gets through is preceded by
 * the count; the socket is non-blocking and close-on-exec; a restarted
 * syslogd is connected to again, and a missing one costs nothing.  An
 * interval timer interrupts a send that would block, so that a blocking
 * implementation fails the test instead of hanging it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include "r45syslog.h"

#include "unit-check.h"

/* a call slower than this waited for the socket */
#define SLOW_NS (50 * 1000 * 1000LL)

static char dir[32], path[64];

static int server(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The next datagram, or "" if there is none now. */
static const char *next_line(int fd, char *buf, size_t size)
{
	ssize_t n = recv(fd, buf, size - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void tick(int sig)
{
	(void)sig;
}

static void test_syslog(void)
{
	static struct r45_syslog s = R45_SYSLOG_INIT("", "test-r45", LOG_DAEMON);
	struct sigaction sa = { .sa_handler = tick };	/* no SA_RESTART */
	struct itimerval it = { { 0, 100000 }, { 0, 100000 } }, off = { { 0, 0 }, { 0, 0 } };
	int before = failures, fd, fl, i, r = 0, slow = 0, sent = 0, queued = 0;
	long long t, worst = 0;
	char buf[2048], want[64];

	snprintf(dir, sizeof(dir), "/tmp/r45syslog.XXXXXX");
	CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/log", dir);
	snprintf(s.path, sizeof(s.path), "%s", path);
	fd = server();
	CHECK(fd >= 0, "server socket: %s", strerror(errno));

	/* a line, in syslog(3)'s format */
	CHECK(!r45_syslog_line(&s, LOG_ERR, "r45: member 1 (254:1) failed"), "first line");
	snprintf(want, sizeof(want), " test-r45[%d]: r45: member 1 (254:1) failed", (int)getpid());
	next_line(fd, buf, sizeof(buf));
	CHECK(!strncmp(buf, "<27>", 4) && strstr(buf, want) &&
	      strlen(buf) == 4 + 15 + strlen(want), "received \"%s\"", buf);

	/* its socket: non-blocking, close-on-exec */
	CHECK(s.fd >= 0, "not connected");
	fl = fcntl(s.fd, F_GETFD);
	CHECK(fl >= 0 && (fl & FD_CLOEXEC), "syslog socket not close-on-exec");
	fl = fcntl(s.fd, F_GETFL);
	CHECK(fl >= 0 && (fl & O_NONBLOCK), "syslog socket blocking");

	/* nobody reads: the queue fills, then lines are dropped at once */
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < 100000; i++) {
		t = now_ns();
		r = r45_syslog_line(&s, LOG_INFO, "r45: rebuild of member 1: 10% (10/100 regions)");
		t = now_ns() - t;
		if (t > worst)
			worst = t;
		slow += t > SLOW_NS;
		if (r)
			break;
		queued++;
	}
	CHECK(r == -EAGAIN, "no line dropped after %d: %d (%s)", i, r, strerror(-r));
	for (i = 0; i < 9; i++) {
		t = now_ns();
		r = r45_syslog_line(&s, LOG_INFO, "r45: more");
		t = now_ns() - t;
		if (t > worst)
			worst = t;
		slow += t > SLOW_NS;
		CHECK(r == -EAGAIN, "line %d on a full queue: %d", i, r);
	}
	setitimer(ITIMER_REAL, &off, NULL);
	CHECK(!slow, "%d calls waited, the longest %lld ms", slow, worst / 1000000);
	CHECK(r45_syslog_dropped(&s) == 10, "dropped %lu", r45_syslog_dropped(&s));

	/* syslogd reads again: the count first, then the line */
	while (next_line(fd, buf, sizeof(buf))[0])
		sent++;
	CHECK(sent == queued, "%d lines queued, %d received", queued, sent);
	CHECK(!r45_syslog_line(&s, LOG_NOTICE, "r45: writes allowed"), "line after the drops");
	next_line(fd, buf, sizeof(buf));
	CHECK(!strncmp(buf, "<28>", 4) && strstr(buf, "]: 10 log lines dropped"), "count: \"%s\"", buf);
	next_line(fd, buf, sizeof(buf));
	CHECK(strstr(buf, "]: r45: writes allowed") != NULL, "line: \"%s\"", buf);
	CHECK(!r45_syslog_dropped(&s), "count not reset");
	CHECK(!next_line(fd, buf, sizeof(buf))[0], "more: \"%s\"", buf);

	/* syslogd restarted: connected to again */
	close(fd);
	fd = server();
	CHECK(!r45_syslog_line(&s, LOG_INFO, "r45: after the restart"), "line after a restart");
	CHECK(strstr(next_line(fd, buf, sizeof(buf)), "r45: after the restart") != NULL,
	      "after the restart: \"%s\"", buf);

	/* no syslogd: dropped, counted, reported when it is back */
	close(fd);
	unlink(path);
	t = now_ns();
	CHECK(r45_syslog_line(&s, LOG_INFO, "r45: nobody listens") < 0, "sent to nobody");
	CHECK(now_ns() - t < SLOW_NS, "waited without a syslogd");
	CHECK(r45_syslog_dropped(&s) == 1, "dropped %lu", r45_syslog_dropped(&s));
	fd = server();
	CHECK(!r45_syslog_line(&s, LOG_INFO, "r45: back"), "line when syslogd is back");
	CHECK(strstr(next_line(fd, buf, sizeof(buf)), "]: 1 log line dropped") != NULL,
	      "count: \"%s\"", buf);
	CHECK(strstr(next_line(fd, buf, sizeof(buf)), "r45: back") != NULL, "line: \"%s\"", buf);

	r45_syslog_close(&s);
	CHECK(s.fd == -1, "closed");
	close(fd);
	unlink(path);
	rmdir(dir);
	report("r45syslog-never-blocks", before);
}

int main(void)
{
	test_syslog();
	return failures ? 1 : 0;
}
