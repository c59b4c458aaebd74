/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raid45ctl's commands for activation at boot (r45ctl-boot.c; the logic
 * is r45boot.c's): incremental (udev) and boot (the systemd units).
 */
#ifndef R45CTL_BOOT_H
#define R45CTL_BOOT_H

#include <stdio.h>

/* argv[0] is the command; 0 done, 1 failed (printed), 2 usage */
int cmd_incremental(int argc, char **argv);
int cmd_boot(int argc, char **argv);
/* create's --boot-degraded SECONDS|never: 0, or -EINVAL (printed) */
int boot_degraded_opt(const char *arg, unsigned int *seconds);
/* their part of the usage text */
void boot_usage(FILE *f, const char *prog);

#endif
