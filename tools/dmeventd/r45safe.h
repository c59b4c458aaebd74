/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the plugin trusts, and what it hands to the hook.  dmeventd runs
 * the plugin as root: the configuration file it reads and the hook it
 * runs must be files only root can change, and the hook gets no
 * descriptor of dmeventd's beyond its standard input, output and error.
 */
#ifndef R45SAFE_H
#define R45SAFE_H

#include <stddef.h>
#include <sys/types.h>

/* the owner the plugin requires of its configuration and hook */
#define R45SAFE_OWNER 0

/*
 * May the file at path (absolute) be trusted as if it were uid's own?
 * It must be a regular file owned by uid and writable by nobody else
 * (neither group- nor world-writable), and every directory from its own
 * up to "/" owned by uid or root and group- or world-writable only with
 * the sticky bit (otherwise someone else could put another file in its
 * place).  A symbolic link on the way is followed: the link must be owned
 * by uid or root and its target pass the same test.  0 if so; -EPERM if
 * not, -errno if it cannot be looked at (-ENOENT: it does not exist),
 * -EINVAL if path is relative; why then says which file and why.
 */
int r45_trusted_file(const char *path, uid_t uid, char *why, size_t size);

enum r45_cloexec_how {
	R45_CLOEXEC_ANY,	/* close_range(), else /proc/self/fd, else the loop */
	R45_CLOEXEC_PROC,	/* the descriptors /proc/self/fd lists */
	R45_CLOEXEC_LOOP,	/* every number up to RLIMIT_NOFILE */
};

/*
 * Mark every open descriptor from lowfd up close-on-exec.  Async-signal-
 * safe (for a forked child before exec).  0, or -errno.
 */
int r45_cloexec_from(int lowfd);
int r45_cloexec_from_how(int lowfd, enum r45_cloexec_how how);

/*
 * Start the hook argv[0] (an absolute path) with argv, as the plugin
 * does: in a process group of its own, no signal blocked, every signal's
 * default action, standard input from /dev/null, standard output and
 * error appended to log ("" or NULL: the caller's), and no other
 * descriptor (whether close-on-exec or not).  0 with *pid set, or -errno
 * (also when it could not be executed).
 */
int r45_spawn(const char *const argv[], const char *log, pid_t *pid);

#endif
