// SPDX-License-Identifier: GPL-2.0
/*
 * raid45-monitor: register raid45 devices with dmeventd (the plugin
 * libdevmapper-event-raid45.so), with a per-device policy.  (~1,300
 * lines in one file: one command, its subcommands sharing the
 * configuration files and the registration; the dmraid table conversion
 * and the checks of files run as root are apart, r45dmraid.c and
 * r45safe.c.)
 *
 *   raid45-monitor register <dm-name> [--policy warn|spare|hold]
 *           [--hook PROG] [--spare DEV]... [--timeout SECONDS]
 *           [--hook-timeout SECONDS] [--log FILE] [--dso PLUGIN]
 *   raid45-monitor unregister <dm-name>
 *   raid45-monitor list
 *   raid45-monitor status <dm-name>
 *   raid45-monitor dmraid [--table FILE|-] <set> [register's options] [--dry-run]
 *
 * register writes <dir>/<dm-name>.conf (dir: $DM_RAID45_MONITOR_DIR, or
 * /etc/dm-raid45/monitor; with descriptions= the array descriptions'
 * directory it sees, $RAID45_CONF_DIR or /etc/raid45, which the plugin
 * uses rather than dmeventd's environment), which the plugin reads when dmeventd
 * registers the device, and registers the device for all error events
 * and a timeout (progress) with dmeventd, starting dmeventd if needed.
 * The plugin path: --dso, $DM_RAID45_MONITOR_DSO, or where make install
 * put it.
 *
 * dmraid activates a RAID4/5/6 set that dmraid finds on raid45 instead
 * of its own mapping: the set's table from "dmraid -ay -t <set>" ($DMRAID
 * names another dmraid), or from a file, converted by r45dmraid.c,
 * printed, created as a device of the set's name with the UUID
 * DMRAID45-<set>, then registered as register does; if registering fails
 * the device is removed again.  --dry-run prints the table only.
 *
 * Exit status: 0 done, 1 failed (the message says why), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <libdevmapper.h>
#include <libdevmapper-event.h>
#include "r45desc.h"
#include "r45dmraid.h"
#include "r45mon.h"
#include "r45safe.h"

#ifndef R45MON_CONF_DIR
#define R45MON_CONF_DIR "/etc/dm-raid45/monitor"
#endif
#ifndef R45MON_PLUGIN_PATH
#define R45MON_PLUGIN_PATH "/lib/x86_64-linux-gnu/device-mapper/libdevmapper-event-raid45.so"
#endif
#define DMEVENTD_FIFO "/run/dmeventd-client"
#define DEFAULT_TIMEOUT 5
#define EVENTS (DM_EVENT_ALL_ERRORS | DM_EVENT_TIMEOUT)

static const char *prog = "raid45-monitor";

__attribute__((format(printf, 1, 2)))
static void error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s register <dm-name> [--policy warn|spare|hold] [--hook PROG]\n"
		"           [--spare DEV]... [--timeout SECONDS] [--hook-timeout SECONDS]\n"
		"           [--log FILE] [--dso PLUGIN] [--keep]\n"
		"       %s unregister <dm-name>\n"
		"       %s list\n"
		"       %s status <dm-name>\n"
		"       %s dmraid <set> [register's options] [--dry-run]\n"
		"       %s dmraid --table FILE|- [<set>] [register's options] [--dry-run]\n"
		"\n"
		"--keep:   register with the device's configuration file if it has one\n"
		"          (what raid45ctl's boot does), else with the options given\n"
		"dmraid:   activate a RAID4/5/6 set of dmraid's (\"dmraid -s\") on raid45:\n"
		"          its table from \"dmraid -ay -t <set>\" (or FILE) as a raid45\n"
		"          table, printed, the device created with uuid %s<set>\n"
		"          and registered as by register (removed again if that fails)\n"
		"policies: warn  log a member failure, run the hook (if any) and allow\n"
		"                writes once it exits 0\n"
		"          spare as warn, then rebuild onto the next spare\n"
		"          hold  log it and leave writes held for an operator\n"
		"hook:     PROG <event> <dm-name> <member index> <member maj:min>, events\n"
		"          MemberFailed (writes wait for it), RebuildStarted,\n"
		"          RebuildFinished, ArrayFailed; run as root, so PROG and the\n"
		"          configuration must be regular files owned by root that only\n"
		"          root can change (as the directories up to them), else the\n"
		"          plugin refuses them and writes stay held after a failure\n"
		"files:    configuration in $DM_RAID45_MONITOR_DIR (default %s),\n"
		"          with the array descriptions' directory register sees\n"
		"          ($RAID45_CONF_DIR, default /etc/raid45), the plugin's;\n"
		"          plugin $DM_RAID45_MONITOR_DSO (default %s)\n",
		prog, prog, prog, prog, prog, prog, R45DM_UUID_PREFIX, R45MON_CONF_DIR,
		R45MON_PLUGIN_PATH);
}

static const char *conf_dir(void)
{
	const char *d = getenv("DM_RAID45_MONITOR_DIR");

	return d && d[0] ? d : R45MON_CONF_DIR;
}

static int conf_path(const char *name, char *buf, size_t size)
{
	if (snprintf(buf, size, "%s/%s.conf", conf_dir(), name) >= (int)size) {
		error("configuration path for %s too long", name);
		return -1;
	}
	return 0;
}

/* A dm name we can make a file name of. */
static int check_name(const char *name)
{
	if (!name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strlen(name) >= R45MON_NAME_MAX) {
		error("invalid device name \"%s\"", name);
		return -1;
	}
	return 0;
}

/* Device info by name: 0, or -1 with the message printed. */
static int device_info(const char *name, char *uuid, size_t uuidsize)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_INFO);
	struct dm_info info;
	const char *u;
	int r = -1;

	if (!dmt) {
		error("cannot talk to device-mapper (is it loaded, are you root?)");
		return -1;
	}
	if (!dm_task_set_name(dmt, name) || !dm_task_run(dmt) ||
	    !dm_task_get_info(dmt, &info)) {
		error("cannot query device-mapper device %s (is device-mapper loaded, are you root?)",
		      name);
	} else if (!info.exists) {
		error("no device-mapper device %s", name);
	} else {
		u = dm_task_get_uuid(dmt);
		snprintf(uuid, uuidsize, "%s", u ? u : "");
		r = 0;
	}
	dm_task_destroy(dmt);
	return r;
}

/* How many raid45 targets the device's table has (-1: cannot read it). */
static int raid45_targets(const char *name)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_TABLE);
	uint64_t s, l;
	char *type, *params;
	void *next = NULL;
	int n = 0;

	if (!dmt)
		return -1;
	if (!dm_task_set_name(dmt, name) || !dm_task_run(dmt)) {
		dm_task_destroy(dmt);
		return -1;
	}
	do {
		type = NULL;
		next = dm_get_next_target(dmt, next, &s, &l, &type, &params);
		if (type && !strcmp(type, "raid45"))
			n++;
	} while (next);
	dm_task_destroy(dmt);
	return n;
}

/* Is dmeventd there to answer?  Asking it otherwise starts it. */
static bool dmeventd_running(void)
{
	int fd = open(DMEVENTD_FIFO, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * Which plugin (if any) dmeventd monitors the device with: 1 and *dso
 * set (caller frees), 0 if none, -1 on error.
 */
static int registered_dso(const char *name, char **dso, enum dm_event_mask *mask)
{
	struct dm_event_handler *h;
	int r;

	*dso = NULL;
	if (!dmeventd_running())
		return 0;
	h = dm_event_handler_create();
	if (!h) {
		error("out of memory");
		return -1;
	}
	if (dm_event_handler_set_dev_name(h, name)) {
		dm_event_handler_destroy(h);
		error("out of memory");
		return -1;
	}
	r = dm_event_get_registered_device(h, 0);
	if (r == 0 && (dm_event_handler_get_event_mask(h) & ~DM_EVENT_REGISTRATION_PENDING)) {
		const char *d = dm_event_handler_get_dso(h);

		*mask = dm_event_handler_get_event_mask(h) & ~DM_EVENT_REGISTRATION_PENDING;
		*dso = strdup(d ? d : "?");
		r = *dso ? 1 : -1;
	} else {
		r = 0;
	}
	dm_event_handler_destroy(h);
	return r;
}

static int handler(const char *name, const char *dso, enum dm_event_mask mask,
		   int timeout, bool reg)
{
	struct dm_event_handler *h = dm_event_handler_create();
	int ok;

	if (!h) {
		error("out of memory");
		return -1;
	}
	if (dm_event_handler_set_dso(h, dso) || dm_event_handler_set_dev_name(h, name)) {
		dm_event_handler_destroy(h);
		error("out of memory");
		return -1;
	}
	dm_event_handler_set_event_mask(h, mask);
	if (timeout > 0)
		dm_event_handler_set_timeout(h, timeout);
	ok = reg ? dm_event_register_handler(h) : dm_event_unregister_handler(h);
	dm_event_handler_destroy(h);
	return ok ? 0 : -1;
}

static int write_conf(const char *name, const struct r45mon_conf *conf)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16], text[8192];
	const char *dir = conf_dir();
	char sub[PATH_MAX];
	size_t len, i;
	int fd;

	/* mkdir -p */
	if (snprintf(sub, sizeof(sub), "%s", dir) >= (int)sizeof(sub))
		return -1;
	for (i = 1; sub[i]; i++) {
		if (sub[i] != '/')
			continue;
		sub[i] = '\0';
		if (mkdir(sub, 0755) && errno != EEXIST) {
			error("cannot create %s: %s", sub, strerror(errno));
			return -1;
		}
		sub[i] = '/';
	}
	if (mkdir(sub, 0755) && errno != EEXIST) {
		error("cannot create %s: %s", sub, strerror(errno));
		return -1;
	}
	if (conf_path(name, path, sizeof(path)))
		return -1;
	if (r45mon_conf_format(conf, text, sizeof(text))) {
		error("configuration too long");
		return -1;
	}
	len = strlen(text);
	/* a name of its own: two registers never write one temporary file */
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		error("cannot write %s: %s", tmp, strerror(errno));
		return -1;
	}
	if (fchmod(fd, 0644) || write(fd, text, len) != (ssize_t)len || fsync(fd)) {
		error("cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (close(fd) || rename(tmp, path)) {
		error("cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int parse_seconds(const char *s, const char *what, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 86400) {
		error("%s must be 1..86400 seconds, not \"%s\"", what, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int abs_path(const char *s, const char *what, char *dst)
{
	if (s[0] != '/') {
		error("%s must be an absolute path (dmeventd runs in /): %s", what, s);
		return -1;
	}
	if (strlen(s) >= R45MON_PATH_MAX) {
		error("%s too long: %s", what, s);
		return -1;
	}
	strcpy(dst, s);
	return 0;
}

static const char *plugin_path(const char *opt)
{
	const char *e = getenv("DM_RAID45_MONITOR_DSO");

	if (opt)
		return opt;
	return e && e[0] ? e : R45MON_PLUGIN_PATH;
}

/* What register and dmraid take for the monitoring of a device. */
struct reg_args {
	struct r45mon_conf conf;
	const char *dso_opt;
	int timeout;
};

#define REG_OPTIONS \
	{ "policy", required_argument, NULL, 'p' }, \
	{ "hook", required_argument, NULL, 'k' }, \
	{ "spare", required_argument, NULL, 's' }, \
	{ "timeout", required_argument, NULL, 't' }, \
	{ "hook-timeout", required_argument, NULL, 'T' }, \
	{ "log", required_argument, NULL, 'l' }, \
	{ "dso", required_argument, NULL, 'd' }

static void reg_args_init(struct reg_args *a)
{
	r45mon_conf_default(&a->conf);
	/*
	 * The descriptions' directory this command sees ($RAID45_CONF_DIR,
	 * as raid45ctl's), for the plugin: dmeventd's environment may lack it.
	 */
	snprintf(a->conf.descriptions, sizeof(a->conf.descriptions), "%s", r45desc_dir());
	a->dso_opt = NULL;
	a->timeout = DEFAULT_TIMEOUT;
}

/* One of REG_OPTIONS: 0 taken, 2 a usage error (printed), 1 not one of them. */
static int reg_option(int c, const char *arg, struct reg_args *a)
{
	struct r45mon_conf *conf = &a->conf;
	int hook_timeout;

	switch (c) {
	case 'p':
		if (r45mon_policy_parse(arg, &conf->policy)) {
			error("policy must be warn, spare or hold, not \"%s\"", arg);
			return 2;
		}
		return 0;
	case 'k':
		return abs_path(arg, "the hook", conf->hook) ? 2 : 0;
	case 's':
		if (conf->nr_spares >= R45MON_MAX_SPARES) {
			error("at most %d spares", R45MON_MAX_SPARES);
			return 2;
		}
		if (abs_path(arg, "a spare", conf->spares[conf->nr_spares]))
			return 2;
		conf->nr_spares++;
		return 0;
	case 't':
		return parse_seconds(arg, "--timeout", &a->timeout) ? 2 : 0;
	case 'T':
		if (parse_seconds(arg, "--hook-timeout", &hook_timeout))
			return 2;
		conf->hook_timeout = (unsigned int)hook_timeout;
		return 0;
	case 'l':
		return abs_path(arg, "the log file", conf->log) ? 2 : 0;
	case 'd':
		a->dso_opt = arg;
		return 0;
	default:
		return 1;
	}
}

/* The hook, the spares and the plugin are usable: 0, or 1 (printed). */
static int reg_check(const struct reg_args *a, const char *dso)
{
	const struct r45mon_conf *conf = &a->conf;
	char why[PATH_MAX + 128];
	struct stat sb;
	unsigned int i;

	if (conf->hook[0] && r45_trusted_file(conf->hook, R45SAFE_OWNER, why, sizeof(why))) {
		error("the plugin would not run hook %s: %s (it runs as root: the hook must be a regular file owned by root that only root can change, in directories only root can change)",
		      conf->hook, why);
		return 1;
	}
	if (conf->hook[0] && access(conf->hook, X_OK)) {
		error("hook %s is not executable: %s", conf->hook, strerror(errno));
		return 1;
	}
	for (i = 0; i < conf->nr_spares; i++) {
		if (stat(conf->spares[i], &sb)) {
			error("spare %s: %s", conf->spares[i], strerror(errno));
			return 1;
		}
		if (!S_ISBLK(sb.st_mode)) {
			error("spare %s is not a block device", conf->spares[i]);
			return 1;
		}
	}
	if (conf->policy == R45MON_SPARE && !conf->nr_spares)
		fprintf(stderr, "%s: warning: policy spare without --spare: failures are handled as by warn\n",
			prog);
	if (dso[0] != '/' || access(dso, R_OK)) {
		error("plugin %s not found (make install, or give its absolute path with --dso or $DM_RAID45_MONITOR_DSO)",
		      dso);
		return 1;
	}
	return 0;
}

/*
 * Write the device's configuration and register it with dmeventd (after
 * reg_check): 0, or 1 with the reason printed.
 */
static int reg_register(const char *name, const struct reg_args *a, const char *dso,
			bool kept)
{
	const struct r45mon_conf *conf = &a->conf;
	enum dm_event_mask mask = 0;
	char path[PATH_MAX], why[PATH_MAX + 128], *old = NULL;
	unsigned int i;
	int r;

	r = registered_dso(name, &old, &mask);
	if (r < 0)
		return 1;
	if (r == 1 && strcmp(old, dso)) {
		error("%s is monitored by %s: unregister it first (%s unregister %s)",
		      name, old, prog, name);
		free(old);
		return 1;
	}
	free(old);

	if (write_conf(name, conf))
		return 1;
	/*
	 * The plugin reads it only if root alone can change it: checked
	 * before a monitored device is unregistered to be registered anew.
	 */
	if (!conf_path(name, path, sizeof(path)) &&
	    r45_trusted_file(path, R45SAFE_OWNER, why, sizeof(why))) {
		error("the plugin would not read %s: %s (the directories up to it must be root's, writable by nobody else unless sticky)",
		      path, why);
		if (!kept)
			unlink(path);
		return 1;
	}
	/* the plugin reads the configuration when registered: again */
	if (r == 1 && handler(name, dso, mask, 0, false)) {
		error("cannot unregister %s to register it anew", name);
		return 1;
	}
	if (handler(name, dso, EVENTS, a->timeout, true)) {
		error("dmeventd did not register %s (is /sbin/dmeventd installed? its log in syslog says more)",
		      name);
		/* never a configuration --keep read: it is the operator's */
		if (!kept && !conf_path(name, path, sizeof(path)))
			unlink(path);
		return 1;
	}
	printf("%s: monitored by dmeventd, policy %s", name, r45mon_policy_name(conf->policy));
	if (conf->hook[0])
		printf(", hook %s", conf->hook);
	for (i = 0; i < conf->nr_spares; i++)
		printf("%s%s", i ? " " : ", spares ", conf->spares[i]);
	printf(", every %d s\n", a->timeout);
	return 0;
}

static int read_conf(const char *name, struct r45mon_conf *conf, char *err,
		     size_t errsize);

static int cmd_register(int argc, char **argv)
{
	static const struct option opts[] = {
		REG_OPTIONS,
		{ "keep", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct reg_args a;
	const char *name, *dso;
	char uuid[256], err[PATH_MAX + 128];
	bool keep = false;
	int c, n, r;

	reg_args_init(&a);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == 'K') {
			keep = true;
			continue;
		}
		r = reg_option(c, optarg, &a);
		if (r == 1) {
			usage(stderr);
			return 2;
		}
		if (r)
			return r;
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	name = argv[optind];
	if (check_name(name))
		return 2;
	/* a configuration the device has wins over the options (a reboot) */
	r = keep ? read_conf(name, &a.conf, err, sizeof(err)) : 0;
	if (r < 0) {
		error("%s's configuration cannot be read: %s (not registered; fix it, or register without --keep to write it anew)",
		      name, err);
		return 1;
	}
	/*
	 * dmeventd's timeout is recorded in it (timeout=): a kept one keeps
	 * it; one without it (older) has the default, recorded from now on
	 */
	if (r == 1 && a.conf.timeout)
		a.timeout = (int)a.conf.timeout;
	a.conf.timeout = (unsigned int)a.timeout;
	dso = plugin_path(a.dso_opt);

	if (device_info(name, uuid, sizeof(uuid)))
		return 1;
	if (!uuid[0]) {
		error("%s has no UUID: dmeventd identifies devices by UUID (create it with dmsetup create -u <uuid>, or set one with dmsetup rename %s --setuuid <uuid>)",
		      name, name);
		return 1;
	}
	n = raid45_targets(name);
	if (n < 0) {
		error("cannot read the table of %s", name);
		return 1;
	}
	if (!n) {
		error("%s has no raid45 target", name);
		return 1;
	}
	if (reg_check(&a, dso))
		return 1;
	return reg_register(name, &a, dso, r == 1);
}

static int cmd_unregister(int argc, char **argv)
{
	enum dm_event_mask mask = 0;
	char path[PATH_MAX], uuid[256], *dso = NULL;
	const char *name;
	int r, rc = 0;

	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	name = argv[1];
	if (check_name(name) || conf_path(name, path, sizeof(path)))
		return 2;
	if (device_info(name, uuid, sizeof(uuid)))
		return 1;
	r = registered_dso(name, &dso, &mask);
	if (r < 0)
		return 1;
	if (!r) {
		error("%s is not monitored by dmeventd", name);
		rc = 1;
	} else if (handler(name, dso, mask, 0, false)) {
		error("dmeventd did not unregister %s", name);
		free(dso);
		return 1;
	} else {
		printf("%s: no longer monitored (was by %s)\n", name, dso);
	}
	free(dso);
	if (unlink(path) && errno != ENOENT) {
		error("cannot remove %s: %s", path, strerror(errno));
		rc = 1;
	}
	return rc;
}

/* The configuration of a device, if any: 1 read, 0 none, -1 broken. */
static int read_conf(const char *name, struct r45mon_conf *conf, char *err,
		     size_t errsize)
{
	char path[PATH_MAX], text[65536];
	size_t len;
	FILE *f;
	int r;

	if (conf_path(name, path, sizeof(path)))
		return -1;
	/* err says why the plugin would not read it either */
	r = r45_trusted_file(path, R45SAFE_OWNER, err, errsize);
	if (r)
		return r == -ENOENT ? 0 : -1;
	f = fopen(path, "re");
	if (!f) {
		snprintf(err, errsize, "%s", strerror(errno));
		return errno == ENOENT ? 0 : -1;
	}
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	return r45mon_conf_parse(text, conf, err, errsize) ? -1 : 1;
}

static void print_monitoring(const char *name, bool verbose)
{
	struct r45mon_conf conf;
	enum dm_event_mask mask = 0;
	char err[256], *dso = NULL;
	int r;

	r = registered_dso(name, &dso, &mask);
	if (r == 1)
		printf("monitored");
	else if (r == 0 && !dmeventd_running())
		printf("not monitored (dmeventd not running)");
	else if (r == 0)
		printf("not monitored");
	else
		printf("unknown");
	r = read_conf(name, &conf, err, sizeof(err));
	if (r == 1) {
		printf(", policy %s", r45mon_policy_name(conf.policy));
		if (conf.hook[0])
			printf(", hook %s", conf.hook);
		if (verbose) {
			unsigned int i;

			for (i = 0; i < conf.nr_spares; i++)
				printf("%s%s", i ? " " : ", spares ", conf.spares[i]);
			if (conf.log[0])
				printf(", log %s", conf.log);
			printf(", descriptions in %s", r45mon_conf_descriptions(&conf));
		} else if (conf.nr_spares) {
			printf(", %u spare%s", conf.nr_spares, conf.nr_spares == 1 ? "" : "s");
		}
	} else if (r < 0) {
		printf(", configuration broken: %s", err);
	}
	if (dso && verbose)
		printf(", plugin %s", dso);
	printf("\n");
	free(dso);
}

static int cmd_list(int argc, char **argv)
{
	struct dm_task *dmt;
	struct dm_names *names;
	unsigned int next = 0;
	int found = 0;

	(void)argv;
	if (argc != 1) {
		usage(stderr);
		return 2;
	}
	dmt = dm_task_create(DM_DEVICE_LIST);
	if (!dmt || !dm_task_run(dmt)) {
		error("cannot list device-mapper devices (is device-mapper loaded, are you root?)");
		if (dmt)
			dm_task_destroy(dmt);
		return 1;
	}
	names = dm_task_get_names(dmt);
	if (names && names->dev) {
		do {
			names = (struct dm_names *)((char *)names + next);
			if (raid45_targets(names->name) > 0) {
				printf("%s: ", names->name);
				print_monitoring(names->name, false);
				found++;
			}
			next = names->next;
		} while (next);
	}
	dm_task_destroy(dmt);
	if (!found)
		printf("no raid45 devices\n");
	return 0;
}

static int cmd_status(int argc, char **argv)
{
	struct dm_task *dmt;
	uint64_t s, l;
	char *type, *params;
	void *next = NULL;
	const char *name;
	int rc = 0, n = 0;

	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	name = argv[1];
	if (check_name(name))
		return 2;
	dmt = dm_task_create(DM_DEVICE_STATUS);
	if (!dmt || !dm_task_set_name(dmt, name) || !dm_task_no_flush(dmt) ||
	    !dm_task_run(dmt)) {
		error("cannot read the status of %s", name);
		if (dmt)
			dm_task_destroy(dmt);
		return 1;
	}
	do {
		struct r45_status st;
		char health[3 * R45_MAX_MEMBERS + 1];
		unsigned int i;

		type = NULL;
		params = NULL;
		next = dm_get_next_target(dmt, next, &s, &l, &type, &params);
		if (!type || strcmp(type, "raid45"))
			continue;
		n++;
		if (r45_status_parse(params, &st)) {
			error("cannot parse the status of the target at sector %llu: %s",
			      (unsigned long long)s, params ? params : "");
			rc = 1;
			continue;
		}
		r45_status_health(&st, health, sizeof(health));
		printf("%s: sectors %llu+%llu: %u members, health %s, %llu/%llu regions in sync (%llu%%), %s, writes %s\n",
		       name, (unsigned long long)s, (unsigned long long)l,
		       st.nr_members, health, (unsigned long long)st.in_sync,
		       (unsigned long long)st.regions,
		       (unsigned long long)(st.regions ? st.in_sync * 100 / st.regions : 100),
		       r45_action_name(st.action), st.held ? "held" : "writable");
		for (i = 0; i < st.nr_members; i++)
			printf("  member %u %u:%u %s%s%s\n", i, st.members[i].major,
			       st.members[i].minor, st.members[i].dead ? "failed" : "alive",
			       st.members[i].parity ? ", parity" : "",
			       st.members[i].rebuilding ? ", rebuilding" : "");
		printf("  log %s", st.log_type);
		if (st.log_has_dev)
			printf(" on %u:%u (%c)", st.log_major, st.log_minor, st.log_state);
		printf(", mismatches %llu, read errors repaired %llu, unprotected regions %llu\n",
		       (unsigned long long)st.mismatches,
		       (unsigned long long)st.read_errors_repaired,
		       (unsigned long long)st.unprotected_regions);
		if (st.progress_running)
			printf("  progress of %s: %llu/%llu sectors (%llu%%)\n",
			       r45_action_name(st.action),
			       (unsigned long long)st.progress_done,
			       (unsigned long long)st.progress_total,
			       (unsigned long long)((double)st.progress_done *
						    100 / st.progress_total));
	} while (next);
	dm_task_destroy(dmt);
	if (!n) {
		error("%s has no raid45 target", name);
		return 1;
	}
	printf("  monitoring: ");
	print_monitoring(name, true);
	return rc;
}

/* Does a dm device of that name exist?  1, 0, or -1 (cannot ask). */
static int dm_exists(const char *name)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_INFO);
	struct dm_info info;
	int r = -1;

	if (!dmt)
		return -1;
	if (dm_task_set_name(dmt, name) && dm_task_run(dmt) && dm_task_get_info(dmt, &info))
		r = info.exists ? 1 : 0;
	dm_task_destroy(dmt);
	return r;
}

/* Is the device's table one "error" target (what dmraid creates), unused? */
static bool unused_error_device(const char *name)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_TABLE);
	struct dm_info info;
	uint64_t s, l;
	char *type = NULL, *params;
	void *next;
	bool r = false;

	if (!dmt)
		return false;
	if (dm_task_set_name(dmt, name) && dm_task_run(dmt) && dm_task_get_info(dmt, &info) &&
	    info.exists && !info.open_count) {
		next = dm_get_next_target(dmt, NULL, &s, &l, &type, &params);
		r = !next && type && !strcmp(type, "error");
	}
	dm_task_destroy(dmt);
	return r;
}

/* Create (load and resume) or remove a device, with udev's cookie. */
static int dm_simple(int type, const char *name, const char *uuid, uint64_t len,
		     const char *params)
{
	struct dm_task *dmt = dm_task_create(type);
	uint32_t cookie = 0;
	bool waited = false;
	int ok;

	if (!dmt) {
		error("out of memory");
		return -1;
	}
	ok = dm_task_set_name(dmt, name);
	if (ok && uuid)
		ok = dm_task_set_uuid(dmt, uuid);
	if (ok && params)
		ok = dm_task_add_target(dmt, 0, len, "raid45", params);
	if (ok && dm_task_set_cookie(dmt, &cookie, 0))
		waited = true;
	ok = ok && dm_task_run(dmt);
	if (waited)
		(void)dm_udev_wait(cookie);
	dm_task_destroy(dmt);
	return ok ? 0 : -1;
}

#define DMRAID_OUTPUT_MAX (1 << 20)

/*
 * The whole of a file or a command's standard output, NUL-terminated
 * (caller frees), or NULL with the reason printed.
 */
static char *read_all(int fd, const char *what)
{
	size_t size = 65536, len = 0;
	char *buf = malloc(size), *nb;
	ssize_t n;

	if (!buf) {
		error("out of memory");
		return NULL;
	}
	for (;;) {
		if (len + 1 == size) {
			if (size >= DMRAID_OUTPUT_MAX) {
				error("%s: more than %d bytes", what, DMRAID_OUTPUT_MAX);
				free(buf);
				return NULL;
			}
			nb = realloc(buf, size * 2);
			if (!nb) {
				error("out of memory");
				free(buf);
				return NULL;
			}
			buf = nb;
			size *= 2;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error("reading %s: %s", what, strerror(errno));
			free(buf);
			return NULL;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

/*
 * Run argv (from $PATH) and return its standard output (caller frees), or
 * NULL.  Its standard error goes to ours, or nowhere if quiet.  *status:
 * its exit status (127: it could not be run), -1 if it did not exit.
 */
static char *run_capture(const char *const argv[], bool quiet, int *status)
{
	int fds[2], st, fd;
	char *out;
	pid_t pid;

	*status = -1;
	if (pipe2(fds, O_CLOEXEC)) {
		error("pipe: %s", strerror(errno));
		return NULL;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		error("fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (!pid) {
		close(fds[0]);
		/* dup2 onto itself would leave it close-on-exec */
		if (fds[1] == STDOUT_FILENO ? fcntl(fds[1], F_SETFD, 0) < 0 :
		    dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(127);
		if (fds[1] != STDOUT_FILENO)
			close(fds[1]);
		if (quiet) {
			fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
			if (fd == STDERR_FILENO)
				(void)fcntl(fd, F_SETFD, 0);
			else if (fd >= 0 && dup2(fd, STDERR_FILENO) >= 0)
				close(fd);
		}
		/* dmraid and mdadm get no descriptor of ours but 0, 1, 2 */
		(void)r45_cloexec_from(3);
		execvp(argv[0], (char *const *)argv);
		if (!quiet)
			fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	out = read_all(fds[0], argv[0]);
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			st = -1;
			break;
		}
	}
	*status = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return out;
}

/* "dmraid -ay -t <set>" ($DMRAID names another dmraid) */
static char *run_dmraid(const char *set, int *status)
{
	const char *dmraid = getenv("DMRAID");
	const char *argv[] = { dmraid && dmraid[0] ? dmraid : "dmraid", "-ay", "-t", set, NULL };

	return run_capture(argv, false, status);
}

/*
 * An IMSM volume's members in the order of its metadata ("This Slot" in
 * "mdadm --examine" of each member), which Debian's dmraid does not keep
 * once the disks changed (r45dmraid.h).  0 (set reordered if needed), or
 * 1 with the reason printed.
 */
static int imsm_order(const char *name, const char *vol, struct r45dm_set *set)
{
	int slots[R45DM_MAX_MEMBERS], st, r;
	struct r45dm_imsm_volume v;
	char err[256], order[R45DM_MAX_MEMBERS * 8];
	unsigned int k;
	size_t o = 0;

	for (k = 0; k < set->nr_devs; k++) {
		const char *argv[] = { "mdadm", "--examine", set->devs[k], NULL };
		char *text;

		slots[k] = -1;
		if (!set->devs[k][0])
			continue;
		text = run_capture(argv, true, &st);
		if (!text)
			return 1;
		if (st == 127) {
			free(text);
			fprintf(stderr, "%s: warning: mdadm not found: the member order of %s is dmraid's, not checked against the IMSM metadata\n",
				prog, name);
			return 0;
		}
		r = r45dm_imsm_examine(text, vol, &v);
		free(text);
		if (r == -ENOENT) {
			error("%s: %s has no volume %s in its IMSM metadata (mdadm --examine %s)",
			      name, set->devs[k], vol, set->devs[k]);
			return 1;
		}
		if (r) {
			error("%s: cannot read volume %s in \"mdadm --examine %s\"", name, vol,
			      set->devs[k]);
			return 1;
		}
		if (v.members != set->nr_devs || v.offset != set->offsets[k]) {
			error("%s: %s's IMSM metadata has volume %s of %u members at sector %llu, dmraid's table %u members at sector %llu",
			      name, set->devs[k], vol, v.members, (unsigned long long)v.offset,
			      set->nr_devs, (unsigned long long)set->offsets[k]);
			return 1;
		}
		slots[k] = v.slot;
	}
	r = r45dm_reorder(set, slots, err, sizeof(err));
	if (r < 0) {
		error("%s: the IMSM metadata's member slots do not fit dmraid's table: %s", name, err);
		return 1;
	}
	if (r) {
		for (k = 0; k < set->nr_devs && o < sizeof(order); k++)
			o += (size_t)snprintf(order + o, sizeof(order) - o, " %d", slots[k]);
		printf("%s: members reordered by their IMSM metadata (mdadm --examine: This Slot%s): dmraid lists them in another order\n",
		       name, order);
	}
	return 0;
}

static char *read_table_file(const char *path)
{
	char *text;
	int fd;

	if (!strcmp(path, "-"))
		return read_all(STDIN_FILENO, "standard input");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error("%s: %s", path, strerror(errno));
		return NULL;
	}
	text = read_all(fd, path);
	close(fd);
	return text;
}

/* A spare that is one of the set's members would be rebuilt over itself. */
static int spares_not_members(const struct r45mon_conf *conf, const struct r45dm_set *set)
{
	struct stat a, b;
	unsigned int i, k;

	for (i = 0; i < conf->nr_spares; i++) {
		if (stat(conf->spares[i], &a))
			continue;
		for (k = 0; k < set->nr_devs; k++) {
			if (!set->devs[k][0] || stat(set->devs[k], &b))
				continue;
			if (S_ISBLK(b.st_mode) && a.st_rdev == b.st_rdev) {
				error("spare %s is member %u of the set (%s)", conf->spares[i], k,
				      set->devs[k]);
				return 1;
			}
		}
	}
	return 0;
}

/*
 * The members the monitor replaced by spares in this set before (the
 * plugin's <dir>/<set>.replaced): dmraid's metadata does not know, so a
 * table that names such a member again names the old disk, whose blocks
 * are stale.  0 (go on), or 1 with the reason printed (refused; a dry run
 * only warns).
 */
static int replaced_check(const char *name, const struct r45dm_set *set, bool dry_run)
{
	char path[PATH_MAX], *text;
	unsigned int k, bad = 0, gone = 0;
	uint32_t members;
	int fd, r;

	if (snprintf(path, sizeof(path), "%s/%s.replaced", conf_dir(), name) >= (int)sizeof(path)) {
		error("%s: path of its replacement record too long", name);
		return 1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		error("%s: %s: %s", name, path, strerror(errno));
		return 1;
	}
	text = read_all(fd, path);
	close(fd);
	if (!text)
		return 1;
	r = r45dm_replaced_members(text, &members);
	if (r) {
		error("%s: %s is not a replacement record of the monitor's", name, path);
		free(text);
		return 1;
	}
	for (k = 0; k < set->nr_devs; k++) {
		if (!(members & (1u << k)))
			continue;
		if (set->devs[k][0])
			bad |= 1u << k;
		else
			gone |= 1u << k;
	}
	for (k = 0; k < set->nr_devs; k++) {
		if (!(bad & (1u << k)))
			continue;
		fprintf(stderr, "%s: %s%s: member %u was replaced by a spare, which dmraid's metadata does not know: the table names the old disk again, %s, whose blocks are stale\n",
			prog, dry_run ? "warning: " : "", name, k, set->devs[k]);
	}
	if (bad) {
		fprintf(stderr, "%s: %s (the monitor's record, %s):\n%s", prog, name, path, text);
		if (!dry_run)
			fprintf(stderr, "%s: %s: not activated.  Record the replacement in the metadata with mdadm (docs/raid45.rst, \"dmraid sets\"; dmraid then names the set anew), or take the old disk out, then remove %s\n",
				prog, name, path);
	} else if (gone) {
		printf("%s: members replaced by spares before (%s) are missing now: the set starts without them\n",
		       name, path);
	}
	free(text);
	return bad && !dry_run;
}

static int cmd_dmraid(int argc, char **argv)
{
	static const struct option opts[] = {
		REG_OPTIONS,
		{ "table", required_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char table[16384], out[16384];
	static struct r45dm_set set;
	const char *set_arg = NULL, *file = NULL, *dso;
	char name[R45DM_NAME_MAX], uuid[R45DM_NAME_MAX + 16], err[512], errdev[R45DM_NAME_MAX + 16];
	bool dry_run = false, ran_dmraid = false;
	int c, r, status = 0, rc;
	struct reg_args a;
	char *text;
	const char *p, *vol;

	reg_args_init(&a);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			continue;
		case 'n':
			dry_run = true;
			continue;
		case 'h':
			usage(stdout);
			return 0;
		}
		r = reg_option(c, optarg, &a);
		if (r == 1) {
			usage(stderr);
			return 2;
		}
		if (r)
			return r;
	}
	if (optind == argc - 1)
		set_arg = argv[optind];
	else if (optind != argc || !file) {
		usage(stderr);
		return 2;
	}
	if (set_arg && check_name(set_arg))
		return 2;
	dso = plugin_path(a.dso_opt);
	if (!dry_run && reg_check(&a, dso))
		return 1;

	if (file) {
		text = read_table_file(file);
	} else {
		text = run_dmraid(set_arg, &status);
		ran_dmraid = true;
	}
	if (!text)
		return 1;
	r = r45dm_pick(text, set_arg, name, sizeof(name), table, sizeof(table), err, sizeof(err));
	if (r == -ENOENT && ran_dmraid && status)
		error("%s (dmraid exited %d: its messages above say why)", err, status);
	else if (r == -ENOENT && ran_dmraid)
		error("%s (Debian's dmraid maps no volume that starts past sector 0 of its disks, such as the second volume of an IMSM container: \"no mapping possible\")",
		      err);
	else if (r)
		error("%s", err);
	free(text);
	/* dmraid -t made an error target for a missing member: not needed */
	if (ran_dmraid && snprintf(errdev, sizeof(errdev), "%s_err_target", set_arg) <
	    (int)sizeof(errdev) && dm_exists(errdev) == 1 && unused_error_device(errdev))
		(void)dm_simple(DM_DEVICE_REMOVE, errdev, NULL, 0, NULL);
	if (r || check_name(name))
		return 1;
	switch (dry_run ? 0 : dm_exists(name)) {
	case 1:
		error("%s is active already (\"dmraid -an %s\" or \"dmsetup remove %s\" first)",
		      name, name, name);
		return 1;
	case -1:
		error("cannot talk to device-mapper (is it loaded, are you root?)");
		return 1;
	default:
		break;
	}
	if (r45dm_parse(table, name, &set, err, sizeof(err))) {
		error("%s: cannot convert \"%s\": %s", name, table, err);
		return 1;
	}
	vol = r45dm_isw_volume(name);
	if (vol && imsm_order(name, vol, &set))
		return 1;
	if (replaced_check(name, &set, dry_run))
		return 1;
	if (r45dm_format(&set, out, sizeof(out))) {
		error("%s: raid45 table too long", name);
		return 1;
	}
	printf("%s: %s\n", name, out);
	if (!set.given_region)
		printf("%s: region size %u (dmraid gave none)\n", name, set.region);
	else if (set.given_region != set.region)
		printf("%s: region size %u (dmraid's %u is below the chunk size)\n", name,
		       set.region, set.given_region);
	if (dry_run)
		return 0;
	fflush(stdout);

	if (r45dm_uuid(name, uuid, sizeof(uuid))) {
		error("%s: name too long for a UUID %s<name>", name, R45DM_UUID_PREFIX);
		return 1;
	}
	if (spares_not_members(&a.conf, &set))
		return 1;
	/* the words after "0 <len> raid45 " */
	p = out;
	for (c = 0; c < 3; c++)
		p = strchr(p, ' ') + 1;
	if (dm_simple(DM_DEVICE_CREATE, name, uuid, set.len, p)) {
		error("%s: device-mapper refused the table (the kernel log says why; a member in use, by an md array or a dm-raid activation, is refused: mdadm --stop, dmraid -an)",
		      name);
		return 1;
	}
	printf("%s: created, uuid %s\n", name, uuid);
	fflush(stdout);
	a.conf.timeout = (unsigned int)a.timeout;
	rc = reg_register(name, &a, dso, false);
	if (rc) {
		if (dm_simple(DM_DEVICE_REMOVE, name, NULL, 0, NULL))
			error("%s: not monitored, and could not be removed: remove it (dmsetup remove %s)",
			      name, name);
		else
			error("%s: not monitored: removed it again", name);
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "register"))
		return cmd_register(argc - 1, argv + 1);
	if (!strcmp(argv[1], "unregister"))
		return cmd_unregister(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "status"))
		return cmd_status(argc - 1, argv + 1);
	if (!strcmp(argv[1], "dmraid"))
		return cmd_dmraid(argc - 1, argv + 1);
	error("unknown command \"%s\"", argv[1]);
	usage(stderr);
	return 2;
}
