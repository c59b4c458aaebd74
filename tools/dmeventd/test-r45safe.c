// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of r45safe.c (issue 31, finding 10): which configuration
 * files and hooks the plugin trusts, on files in a temporary directory
 * with various owners and modes (run as root: another owner by chown);
 * descriptors marked close-on-exec from a number up, each way; and the
 * hook started as the plugin starts it, which must find no descriptor
 * beyond 0, 1 and 2 (this program, run again as "--hook", looks), no
 * signal blocked or ignored, a process group of its own and /dev/null as
 * its standard input.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "r45safe.h"

#include "unit-check.h"

#define OTHER 4242		/* a uid that is not ours */

static char top[64];

static void path_in(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", top, name);
}

static void make_file(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	CHECK(fd >= 0, "create %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	CHECK(!chmod(path, mode), "chmod %s", path);
}

/* r45_trusted_file(path, uid): want, and why containing what. */
static void trusted(const char *path, uid_t uid, int want, const char *what, int line)
{
	char why[512];
	int r = r45_trusted_file(path, uid, why, sizeof(why));

	CHECK(r == want && (!what || strstr(why, what)),
	      "(from line %d) %s, uid %u: %d \"%s\", not %d \"%s\"", line, path,
	      (unsigned int)uid, r, why, want, what ? what : "");
}
#define TRUSTED(p, uid) trusted(p, uid, 0, NULL, __LINE__)
#define REFUSED(p, uid, err, what) trusted(p, uid, err, what, __LINE__)

static void test_trusted(void)
{
	int before = failures;
	char f[128], d[128], g[128], l[128], why[512];

	path_in(f, sizeof(f), "hook");
	make_file(f, 0755);
	TRUSTED(f, 0);
	CHECK(!r45_trusted_file(f, 0, why, sizeof(why)) && !why[0], "why \"%s\"", why);

	/* the file's mode */
	chmod(f, 0775);
	REFUSED(f, 0, -EPERM, "hook is group-writable");
	chmod(f, 0757);
	REFUSED(f, 0, -EPERM, "hook is world-writable");
	chmod(f, 0644);
	TRUSTED(f, 0);

	/* its owner */
	CHECK(!chown(f, OTHER, 0), "chown");
	REFUSED(f, 0, -EPERM, "hook is owned by uid 4242, not 0");
	TRUSTED(f, OTHER);
	CHECK(!chown(f, 0, OTHER), "chown");
	TRUSTED(f, 0);		/* the group does not matter, its write bit does */
	chmod(f, 0664);
	REFUSED(f, 0, -EPERM, "group-writable");
	chmod(f, 0644);

	/* not a regular file */
	path_in(d, sizeof(d), "dir");
	CHECK(!mkdir(d, 0755), "mkdir");
	REFUSED(d, 0, -EPERM, "dir is not a regular file");
	path_in(g, sizeof(g), "fifo");
	CHECK(!mkfifo(g, 0644), "mkfifo");
	REFUSED(g, 0, -EPERM, "fifo is not a regular file");

	/* missing, relative */
	path_in(g, sizeof(g), "none");
	REFUSED(g, 0, -ENOENT, "none: No such file");
	REFUSED("etc/passwd", 0, -EINVAL, "not an absolute path");

	/* its directory, and the directories above */
	path_in(g, sizeof(g), "dir/conf");
	make_file(g, 0644);
	TRUSTED(g, 0);
	chmod(d, 0777);
	REFUSED(g, 0, -EPERM, "dir is world-writable without the sticky bit");
	chmod(d, 0770);
	REFUSED(g, 0, -EPERM, "dir is group-writable without the sticky bit");
	chmod(d, 01777);
	TRUSTED(g, 0);		/* as /tmp */
	chmod(d, 01770);
	TRUSTED(g, 0);
	chmod(d, 0755);
	CHECK(!chown(d, OTHER, 0), "chown");
	REFUSED(g, 0, -EPERM, "dir is owned by uid 4242, not 0");
	CHECK(!chown(g, OTHER, 0), "chown");
	TRUSTED(g, OTHER);	/* its own, or root's */
	CHECK(!chown(g, 0, 0), "chown");
	CHECK(!chown(d, 0, 0), "chown");
	chmod(top, 0777);
	REFUSED(g, 0, -EPERM, "is world-writable without the sticky bit");
	chmod(top, 0700);
	TRUSTED(g, 0);

	/* symbolic links: the target, and where it is, count */
	path_in(l, sizeof(l), "link");
	CHECK(!symlink("dir/conf", l), "symlink");
	TRUSTED(l, 0);
	chmod(g, 0666);
	REFUSED(l, 0, -EPERM, "dir/conf is world-writable");
	chmod(g, 0644);
	chmod(d, 0777);
	REFUSED(l, 0, -EPERM, "dir is world-writable without the sticky bit");
	chmod(d, 01777);
	CHECK(!lchown(l, OTHER, 0), "lchown");
	REFUSED(l, 0, -EPERM, "symbolic link");
	CHECK(!lchown(l, 0, 0), "lchown");
	chmod(d, 0755);
	unlink(l);
	/* a directory that is a link: where the file really is counts */
	CHECK(!symlink(d, l), "symlink");
	path_in(f, sizeof(f), "link/conf");
	TRUSTED(f, 0);
	chmod(d, 0777);
	REFUSED(f, 0, -EPERM, "world-writable without the sticky bit");
	chmod(d, 0755);
	/* a loop */
	unlink(l);
	CHECK(!symlink("link", l), "symlink");
	REFUSED(l, 0, -ELOOP, "too many symbolic links");
	unlink(l);

	/* a real one */
	TRUSTED("/bin/sh", 0);
	report("r45safe-trusted-file", before);
}

static bool is_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFD);

	return fl >= 0 && (fl & FD_CLOEXEC);
}

static void test_cloexec(void)
{
	static const char *const names[] = { "any", "proc", "loop" };
	int before = failures, how, fd[4], i;

	for (how = R45_CLOEXEC_ANY; how <= R45_CLOEXEC_LOOP; how++) {
		for (i = 0; i < 4; i++)
			fd[i] = open("/dev/null", O_RDONLY);	/* not close-on-exec */
		CHECK(fd[0] >= 3 && fd[3] == fd[0] + 3, "descriptors %d..%d", fd[0], fd[3]);
		CHECK(!r45_cloexec_from_how(fd[2], how), "%s failed", names[how]);
		CHECK(!is_cloexec(fd[0]) && !is_cloexec(fd[1]), "%s: marked below", names[how]);
		CHECK(is_cloexec(fd[2]) && is_cloexec(fd[3]), "%s: not marked", names[how]);
		CHECK(!is_cloexec(0) && !is_cloexec(1) && !is_cloexec(2), "%s: 0..2 marked",
		      names[how]);
		for (i = 0; i < 4; i++)
			close(fd[i]);
	}
	report("r45safe-cloexec-from", before);
}

/*
 * The hook's side: exit status 0 if all is as r45_spawn promises, else a
 * bit per thing wrong; what it finds goes to its standard output.
 */
static int hook_main(void)
{
	struct sigaction sa;
	struct stat a, b;
	sigset_t set;
	struct dirent *e;
	DIR *dir;
	int rc = 0, fd;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return 64;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		fd = atoi(e->d_name);
		if (fd > 2 && fd != dirfd(dir)) {
			printf("open descriptor %d\n", fd);
			rc |= 1;
		}
	}
	closedir(dir);
	sigprocmask(SIG_SETMASK, NULL, &set);
	if (sigismember(&set, SIGUSR1) || sigismember(&set, SIGTERM)) {
		printf("signals blocked\n");
		rc |= 2;
	}
	sigaction(SIGUSR2, NULL, &sa);
	if (sa.sa_handler != SIG_DFL) {
		printf("SIGUSR2 not default\n");
		rc |= 4;
	}
	if (getpgrp() != getpid()) {
		printf("no process group of its own\n");
		rc |= 8;
	}
	if (fstat(0, &a) || stat("/dev/null", &b) || a.st_rdev != b.st_rdev) {
		printf("standard input not /dev/null\n");
		rc |= 16;
	}
	printf("hook ran\n");
	fflush(stdout);
	fprintf(stderr, "hook's standard error\n");
	return rc;
}

static void test_spawn(void)
{
	char self[512], log[128], text[1024];
	const char *argv[] = { self, "--hook", NULL };
	sigset_t set, old;
	int before = failures, fd, keep, pp[2], r, status = -1;
	ssize_t n;
	pid_t pid;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CHECK(n > 0, "/proc/self/exe");
	self[n > 0 ? n : 0] = '\0';
	path_in(log, sizeof(log), "hook.log");

	/* what dmeventd may have: descriptors without close-on-exec, signals */
	keep = open("/dev/null", O_RDONLY);
	CHECK(keep >= 3 && !pipe(pp), "descriptors");
	signal(SIGUSR2, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, &old);

	r = r45_spawn(argv, log, &pid);
	CHECK(!r, "spawn: %s", strerror(-r));
	if (!r)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	fd = open(log, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
	text[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "hook status %#x, said:\n%s",
	      status, text);
	CHECK(strstr(text, "hook ran\n") && strstr(text, "hook's standard error\n"),
	      "log: \"%s\"", text);
	/* the caller's are as they were */
	CHECK(!is_cloexec(keep) && !is_cloexec(pp[0]), "caller's descriptors changed");
	sigprocmask(SIG_SETMASK, NULL, &set);
	CHECK(sigismember(&set, SIGUSR1), "caller's signal mask changed");

	/* cannot be run: the error, not a child that exits 127 */
	argv[0] = "/nonexistent/hook";
	r = r45_spawn(argv, log, &pid);
	CHECK(r == -ENOENT, "nonexistent hook: %d", r);
	argv[0] = "/dev/null";
	r = r45_spawn(argv, NULL, &pid);
	CHECK(r == -EACCES, "not executable: %d", r);

	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGUSR2, SIG_DFL);
	close(keep);
	close(pp[0]);
	close(pp[1]);
	unlink(log);
	report("r45safe-hook-spawn", before);
}

static void cleanup(void)
{
	char p[128];
	static const char *const names[] = { "hook", "dir/conf", "dir", "fifo", "link" };
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		path_in(p, sizeof(p), names[i]);
		if (unlink(p))
			rmdir(p);
	}
	rmdir(top);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--hook"))
		return hook_main();
	snprintf(top, sizeof(top), "/tmp/r45safe.XXXXXX");
	if (!mkdtemp(top)) {
		printf("FAIL r45safe: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	if (geteuid()) {
		/* chown to another uid needs root */
		printf("SKIP r45safe-trusted-file (not root)\n");
	} else {
		test_trusted();
	}
	test_cloexec();
	test_spawn();
	cleanup();
	return failures ? 1 : 0;
}
