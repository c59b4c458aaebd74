/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Syslog lines with an ident of our own, sent to /dev/log directly (the
 * plugin's: openlog() would rename every line of dmeventd and of the
 * other plugins in the process), without ever waiting for syslogd.
 *
 * The socket is non-blocking and close-on-exec.  A line that syslogd
 * cannot take at once (its queue full: /var on an array whose writes
 * are held, say) is dropped and counted, and the next line that gets
 * through is preceded by "N log lines dropped".  Logging so never
 * stops a monitoring thread, and the lock that guards the socket is
 * only held across calls that do not block.
 */
#ifndef R45SYSLOG_H
#define R45SYSLOG_H

#include <pthread.h>
#include <stdbool.h>

#define R45SYSLOG_PATH_MAX 108	/* sun_path */
#define R45SYSLOG_IDENT_MAX 32

struct r45_syslog {
	pthread_mutex_t lock;
	int fd;			/* -1: not connected */
	int facility;		/* LOG_DAEMON, ... */
	unsigned long dropped;	/* lines lost since the last report */
	char path[R45SYSLOG_PATH_MAX];
	char ident[R45SYSLOG_IDENT_MAX];
};

#define R45_SYSLOG_INIT(p, id, fac) { \
	.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1, .facility = (fac), \
	.dropped = 0, .path = p, .ident = id }

/*
 * Send one line at a syslog priority: 0 if syslogd has it, or -errno if
 * it was dropped (and counted): -EAGAIN when syslogd's queue is full,
 * else why there is no socket.  Never blocks.
 */
int r45_syslog_line(struct r45_syslog *s, int prio, const char *line);

/* Lines dropped and not yet reported. */
unsigned long r45_syslog_dropped(struct r45_syslog *s);

/* Close the socket (the next line connects again). */
void r45_syslog_close(struct r45_syslog *s);

#endif
