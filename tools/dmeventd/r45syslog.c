// SPDX-License-Identifier: GPL-2.0
/*
 * Syslog lines that never wait for syslogd (see r45syslog.h).  The lines
 * have the format syslog(3) sends: "<prio>Mmm dd hh:mm:ss ident[pid]: ".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "r45syslog.h"

#define MSG_MAX 1400

static int sys_connect(const struct r45_syslog *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, e;

	if (strlen(s->path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, s->path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* a datagram socket's connect only names the peer: it does not wait */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

static size_t format(const struct r45_syslog *s, const char *ts, int prio,
		     const char *line, char *buf, size_t size)
{
	int len = snprintf(buf, size, "<%d>%s %s[%d]: %s", s->facility | prio, ts,
			   s->ident, (int)getpid(), line);

	if (len < 0)
		return 0;
	return (size_t)len >= size ? size - 1 : (size_t)len;
}

/* One datagram, s->lock held: 0 or -errno.  Nothing here blocks. */
static int sys_send(struct r45_syslog *s, const char *msg, size_t len)
{
	int tries, r = -ENOTCONN;

	for (tries = 0; tries < 2; tries++) {
		if (s->fd < 0) {
			r = sys_connect(s);
			if (r < 0)
				return r;
			s->fd = r;
		}
		if (send(s->fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
			return 0;
		r = -errno;
		/* syslogd's queue is full (or memory short): the socket is fine */
		if (r == -EAGAIN || r == -ENOBUFS || r == -EINTR || r == -EMSGSIZE)
			return r;
		/* syslogd restarted (ECONNREFUSED, ENOTCONN): connect again once */
		close(s->fd);
		s->fd = -1;
	}
	return r;
}

int r45_syslog_line(struct r45_syslog *s, int prio, const char *line)
{
	char msg[MSG_MAX], note[MSG_MAX], text[96], ts[32];
	struct tm tm;
	time_t now = time(NULL);
	size_t len, nlen;
	int r;

	if (!localtime_r(&now, &tm) || !strftime(ts, sizeof(ts), "%b %e %H:%M:%S", &tm))
		strcpy(ts, "Jan  1 00:00:00");
	len = format(s, ts, prio, line, msg, sizeof(msg));
	if (!len)
		return -EINVAL;

	pthread_mutex_lock(&s->lock);
	if (s->dropped) {
		snprintf(text, sizeof(text), "%lu log line%s dropped (syslog did not take %s at once)",
			 s->dropped, s->dropped == 1 ? "" : "s",
			 s->dropped == 1 ? "it" : "them");
		nlen = format(s, ts, LOG_WARNING, text, note, sizeof(note));
		r = sys_send(s, note, nlen);
		if (r) {
			s->dropped++;
			goto out;
		}
		s->dropped = 0;
	}
	r = sys_send(s, msg, len);
	if (r)
		s->dropped++;
out:
	pthread_mutex_unlock(&s->lock);
	return r;
}

unsigned long r45_syslog_dropped(struct r45_syslog *s)
{
	unsigned long n;

	pthread_mutex_lock(&s->lock);
	n = s->dropped;
	pthread_mutex_unlock(&s->lock);
	return n;
}

void r45_syslog_close(struct r45_syslog *s)
{
	pthread_mutex_lock(&s->lock);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	pthread_mutex_unlock(&s->lock);
}
