// SPDX-License-Identifier: GPL-2.0
/*
 * Activation at boot (see r45boot.h for the design): which of a
 * description's devices are there, what the last-resort service does,
 * and the units' instance names.  No device is touched here but through
 * the devno function.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "r45boot.h"

int r45boot_stat_devno(const char *path, dev_t *dev, void *ctx)
{
	struct stat sb;

	(void)ctx;
	if (stat(path, &sb))
		return -errno;
	if (!S_ISBLK(sb.st_mode))
		return -ENOTBLK;
	*dev = sb.st_rdev;
	return 0;
}

int r45boot_alias_devno(const char *path, dev_t *dev, void *ctx)
{
	const struct r45boot_aliases *a = ctx;
	unsigned int i;

	for (i = 0; i < a->nr; i++) {
		const char *n = a->names[i];

		if (n[0] != '/' && !strncmp(path, "/dev/", 5))
			n = !strcmp(path + 5, n) ? path : NULL;
		else if (strcmp(path, n))
			n = NULL;
		if (n) {
			*dev = a->dev;
			return 0;
		}
	}
	return a->next(path, dev, a->next_ctx);
}

static bool needed(const struct r45desc_member *m)
{
	return m->state == R45DESC_CURRENT || m->state == R45DESC_REBUILDING;
}

void r45boot_look(const struct r45desc *d, dev_t dev, r45boot_devno_fn devno, void *ctx,
		  struct r45boot_view *v)
{
	dev_t devs[R45_MAX_MEMBERS], logdev = 0;
	bool there[R45_MAX_MEMBERS] = { false }, log_there = false;
	unsigned int i, j, n = d->nr_members < R45_MAX_MEMBERS ? d->nr_members : R45_MAX_MEMBERS;

	memset(v, 0, sizeof(*v));
	v->dev_member = -1;
	v->dev_failed = -1;
	for (i = 0; i < n; i++)
		there[i] = d->m[i].path[0] && !devno(d->m[i].path, &devs[i], ctx);
	if (d->disk_log)
		log_there = !devno(d->log_dev, &logdev, ctx);

	for (i = 0; i < n; i++) {
		if (!there[i])
			continue;
		if (dev && devs[i] == dev) {
			if (needed(&d->m[i]))
				v->dev_member = (int)i;
			else if (v->dev_failed < 0)
				v->dev_failed = (int)i;
		}
		if (!needed(&d->m[i]))
			continue;
		/* one device for two members: which one it holds is unknown */
		for (j = 0; j < n; j++)
			if (j != i && there[j] && devs[j] == devs[i]) {
				v->conflict |= 1u << i;
				v->conflict_with[i] = (int)j;
			}
		if (log_there && logdev == devs[i]) {
			v->conflict |= 1u << i;
			v->conflict_with[i] = -1;
			log_there = false;
		}
	}
	for (i = 0; i < n; i++) {
		if (!needed(&d->m[i]))
			continue;
		v->needed++;
		if (v->conflict & (1u << i))
			continue;
		if (there[i])
			v->present++;
		else
			v->absent |= 1u << i;
	}
	if (d->disk_log) {
		v->needed++;
		if (log_there)
			v->present++;
		else
			v->log_absent = true;
		if (dev && log_there && logdev == dev)
			v->dev_log = true;
	}
}

bool r45boot_names(const struct r45boot_view *v)
{
	return v->dev_member >= 0 || v->dev_log;
}

bool r45boot_complete(const struct r45boot_view *v)
{
	return v->present == v->needed && !v->conflict && !v->absent && !v->log_absent;
}

unsigned int r45boot_bound(const struct r45desc *d)
{
	return d->boot_degraded > R45BOOT_SETTLE ? d->boot_degraded : R45BOOT_SETTLE;
}

bool r45boot_crash_detectable(const struct r45desc *d)
{
	return d->disk_log || d->ppl;
}

enum r45boot_action r45boot_decide(const struct r45desc *d, const struct r45boot_view *v,
				   uint64_t elapsed_ms)
{
	unsigned int i, out = 0;

	if (r45boot_complete(v))
		return R45BOOT_ACTIVATE;
	/* a device that two needed paths lead to: never guessed which */
	if (v->conflict)
		return R45BOOT_CANNOT;
	if (elapsed_ms < (uint64_t)r45boot_bound(d) * 1000)
		return R45BOOT_WAIT;
	if (!d->boot_degraded)
		return R45BOOT_NEVER;
	if (v->log_absent || !r45boot_crash_detectable(d))
		return R45BOOT_CANNOT;
	for (i = 0; i < d->nr_members && i < R45_MAX_MEMBERS; i++)
		if (!needed(&d->m[i]) || (v->absent & (1u << i)))
			out++;
	return out > r45desc_parity_members(d->type) ? R45BOOT_CANNOT : R45BOOT_DEGRADED;
}

const char *r45boot_action_name(enum r45boot_action a)
{
	switch (a) {
	case R45BOOT_ACTIVATE:
		return "activate";
	case R45BOOT_WAIT:
		return "wait";
	case R45BOOT_DEGRADED:
		return "degraded";
	case R45BOOT_NEVER:
		return "never";
	case R45BOOT_CANNOT:
		return "cannot";
	}
	return "unknown";
}

/* from, to: a name's '+' and an instance's ':' */
static int translate(const char *in, char from, char to, char *out, size_t size)
{
	size_t i, n = strlen(in);

	if (n >= size)
		return -ENOSPC;
	for (i = 0; i <= n; i++)
		out[i] = in[i] == from ? to : in[i];
	return 0;
}

int r45boot_instance(const char *name, char *out, size_t size)
{
	if (r45desc_check_name(name))
		return -EINVAL;
	return translate(name, '+', ':', out, size);
}

int r45boot_name(const char *instance, char *out, size_t size)
{
	int r;

	/* a '+' in an instance is not one this program wrote */
	if (strchr(instance, '+'))
		return -EINVAL;
	r = translate(instance, ':', '+', out, size);
	if (r)
		return r;
	return r45desc_check_name(out) ? -EINVAL : 0;
}
