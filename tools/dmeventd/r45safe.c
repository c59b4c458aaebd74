// SPDX-License-Identifier: GPL-2.0
/*
 * What the plugin trusts, and what it hands to the hook (see r45safe.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "r45safe.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
/* symbolic links followed before giving up, as the kernel's 40 */
#define MAX_LINKS 40
/* the loop's end when RLIMIT_NOFILE says nothing useful */
#define LOOP_MAX (1 << 20)

extern char **environ;

/* ---- trusted files ---- */

/* The directory part of an absolute path into buf ("/" for "/x"). */
static int dir_of(const char *path, char *buf, size_t size)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	while (len > 0 && path[len - 1] != '/')
		len--;
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (!len || len >= size)
		return -ENAMETOOLONG;
	memcpy(buf, path, len);
	buf[len] = '\0';
	return 0;
}

static const char *writable_by(mode_t mode)
{
	if (mode & S_IWOTH)
		return "world-writable";
	return "group-writable";
}

/*
 * Every directory from dir (absolute) up to "/": owned by uid or root,
 * and writable by others only with the sticky bit.
 */
static int dirs_trusted(const char *dir, uid_t uid, char *why, size_t size)
{
	char buf[PATH_MAX], up[PATH_MAX];
	struct stat sb;

	if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf)) {
		snprintf(why, size, "%.200s...: path too long", dir);
		return -ENAMETOOLONG;
	}
	for (;;) {
		if (stat(buf, &sb)) {
			int e = errno;

			snprintf(why, size, "directory %s: %s", buf, strerror(e));
			return -e;
		}
		if (!S_ISDIR(sb.st_mode)) {
			snprintf(why, size, "%s is not a directory", buf);
			return -ENOTDIR;
		}
		if (sb.st_uid != uid && sb.st_uid != 0) {
			snprintf(why, size, "directory %s is owned by uid %u, not %u%s", buf,
				 (unsigned int)sb.st_uid, (unsigned int)uid, uid ? " or root" : "");
			return -EPERM;
		}
		if ((sb.st_mode & (S_IWGRP | S_IWOTH)) && !(sb.st_mode & S_ISVTX)) {
			snprintf(why, size, "directory %s is %s without the sticky bit", buf,
				 writable_by(sb.st_mode));
			return -EPERM;
		}
		if (!strcmp(buf, "/"))
			return 0;
		if (dir_of(buf, up, sizeof(up))) {
			snprintf(why, size, "%s: cannot find its directory", buf);
			return -EINVAL;
		}
		strcpy(buf, up);
	}
}

static int file_trusted(const char *path, uid_t uid, int links, char *why, size_t size)
{
	char dir[PATH_MAX], target[PATH_MAX], next[PATH_MAX], real[PATH_MAX];
	struct stat sb;
	ssize_t n;
	int r;

	if (path[0] != '/') {
		snprintf(why, size, "%s is not an absolute path", path);
		return -EINVAL;
	}
	if (dir_of(path, dir, sizeof(dir))) {
		snprintf(why, size, "%.200s: path too long", path);
		return -ENAMETOOLONG;
	}
	r = dirs_trusted(dir, uid, why, size);
	if (r)
		return r;
	if (lstat(path, &sb)) {
		r = -errno;
		snprintf(why, size, "%s: %s", path, strerror(-r));
		return r;
	}
	if (S_ISLNK(sb.st_mode)) {
		if (sb.st_uid != uid && sb.st_uid != 0) {
			snprintf(why, size, "symbolic link %s is owned by uid %u, not %u%s", path,
				 (unsigned int)sb.st_uid, (unsigned int)uid, uid ? " or root" : "");
			return -EPERM;
		}
		if (links >= MAX_LINKS) {
			snprintf(why, size, "%s: too many symbolic links", path);
			return -ELOOP;
		}
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0) {
			r = -errno;
			snprintf(why, size, "%s: %s", path, strerror(-r));
			return r;
		}
		target[n] = '\0';
		if (target[0] == '/')
			r = snprintf(next, sizeof(next), "%s", target);
		else
			r = snprintf(next, sizeof(next), "%s/%s", strcmp(dir, "/") ? dir : "", target);
		if (r < 0 || r >= (int)sizeof(next)) {
			snprintf(why, size, "%s: target path too long", path);
			return -ENAMETOOLONG;
		}
		return file_trusted(next, uid, links + 1, why, size);
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(why, size, "%s is not a regular file", path);
		return -EPERM;
	}
	if (sb.st_uid != uid) {
		snprintf(why, size, "%s is owned by uid %u, not %u", path,
			 (unsigned int)sb.st_uid, (unsigned int)uid);
		return -EPERM;
	}
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, size, "%s is %s", path, writable_by(sb.st_mode));
		return -EPERM;
	}
	/*
	 * A directory on the way may be a symbolic link itself: the
	 * directories the file really is in must pass too.
	 */
	if (!realpath(path, real)) {
		r = -errno;
		snprintf(why, size, "%s: %s", path, strerror(-r));
		return r;
	}
	if (dir_of(real, dir, sizeof(dir))) {
		snprintf(why, size, "%.200s: path too long", real);
		return -ENAMETOOLONG;
	}
	return dirs_trusted(dir, uid, why, size);
}

int r45_trusted_file(const char *path, uid_t uid, char *why, size_t size)
{
	char dummy[1];

	if (!size) {
		why = dummy;
		size = sizeof(dummy);
	}
	why[0] = '\0';
	return file_trusted(path, uid, 0, why, size);
}

/* ---- descriptors ---- */

struct dirent64_hdr {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* A descriptor number, or -1 ("." and ".."). */
static int fd_number(const char *s)
{
	int v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > INT_MAX / 10 - 1)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

static int cloexec_proc(int lowfd)
{
	char buf[4096];
	long n, o;
	int dfd, fd;

	dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	for (;;) {
		n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));
		if (n < 0) {
			n = -errno;
			close(dfd);
			return (int)n;
		}
		if (!n)
			break;
		for (o = 0; o < n;) {
			struct dirent64_hdr *e = (struct dirent64_hdr *)(buf + o);

			fd = fd_number(e->d_name);
			if (fd >= lowfd && fd != dfd)
				(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
			o += e->d_reclen;
		}
	}
	close(dfd);
	return 0;
}

static int cloexec_loop(int lowfd)
{
	struct rlimit rl;
	long end = LOOP_MAX;
	int fd;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_max != RLIM_INFINITY &&
	    rl.rlim_max < (rlim_t)LOOP_MAX)
		end = (long)rl.rlim_max;
	for (fd = lowfd; fd < end; fd++)
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);	/* EBADF: not open */
	return 0;
}

int r45_cloexec_from_how(int lowfd, enum r45_cloexec_how how)
{
	if (lowfd < 0)
		return -EINVAL;
	switch (how) {
	case R45_CLOEXEC_ANY:
#ifdef SYS_close_range
		if (!syscall(SYS_close_range, (unsigned int)lowfd, ~0U, CLOSE_RANGE_CLOEXEC))
			return 0;
#endif
		/* before Linux 5.11 */
		if (!cloexec_proc(lowfd))
			return 0;
		return cloexec_loop(lowfd);
	case R45_CLOEXEC_PROC:
		return cloexec_proc(lowfd);
	case R45_CLOEXEC_LOOP:
		return cloexec_loop(lowfd);
	}
	return -EINVAL;
}

int r45_cloexec_from(int lowfd)
{
	return r45_cloexec_from_how(lowfd, R45_CLOEXEC_ANY);
}

/* ---- the hook ---- */

/* fd as target, not close-on-exec (dup2 does nothing when they are one). */
static int move_fd(int fd, int target)
{
	if (fd == target)
		return fcntl(target, F_SETFD, 0);
	if (dup2(fd, target) < 0)
		return -1;
	close(fd);
	return 0;
}

/* The forked child: only async-signal-safe calls up to execve. */
__attribute__((noreturn))
static void spawn_child(const char *const argv[], const char *log, int errfd)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	int sig, fd, e;

	/* the error pipe clear of 0, 1 and 2 (a caller without them) */
	if (errfd < 3) {
		fd = fcntl(errfd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			_exit(127);
		errfd = fd;
	}
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, &dfl, NULL);
	if (setpgid(0, 0))
		goto fail;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || move_fd(fd, STDIN_FILENO))
		goto fail;
	if (log && log[0]) {
		fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0 || move_fd(fd, STDOUT_FILENO) || dup2(STDOUT_FILENO, STDERR_FILENO) < 0)
			goto fail;
	}
	/* none of the caller's descriptors, close-on-exec or not */
	if (r45_cloexec_from(3))
		goto fail;
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL))
		goto fail;
	execve(argv[0], (char *const *)argv, environ);
fail:
	e = errno ? errno : EIO;
	if (write(errfd, &e, sizeof(e)) != sizeof(e)) {
		/* the caller sees an exit status of 127 */
	}
	_exit(127);
}

int r45_spawn(const char *const argv[], const char *log, pid_t *pid)
{
	sigset_t all, old;
	int p[2], e = 0;
	ssize_t n;
	pid_t c;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	/* no handler of the caller's may run in the child before exec */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	c = fork();
	if (!c) {
		close(p[0]);
		spawn_child(argv, log, p[1]);
	}
	if (c < 0)
		e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(p[1]);
	if (c < 0) {
		close(p[0]);
		return -e;
	}
	/* as the child does: the group exists before a kill(-pid) */
	(void)setpgid(c, c);
	/* the pipe closes at the exec; an error number comes before */
	do {
		n = read(p[0], &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n == sizeof(e)) {
		while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
			;
		return -(e ? e : EIO);
	}
	*pid = c;
	return 0;
}
