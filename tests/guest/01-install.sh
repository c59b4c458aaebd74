#!/bin/bash
# kernels: 6.1
# cost: 207
# (on 6.1 since issue 32: its modules are not compressed, and depmod in
# the TCG guest took 56 s there alone, against 201 s over 6.12's xz
# modules beside another guest; but 207 s in make check's first boot,
# beside another guest and dkms: the move saved little)
# "make install" (into a writable overlay of /lib/modules/<release>, with
# depmod) lets a dmsetup create naming raid45 load the module by itself.
. "$(dirname "$0")/lib.sh"
rmmod dm-raid456 2>/dev/null
grep -q '^dm_raid456 ' /proc/modules && die "module still loaded"
setup_module_overlay || die "make install into the overlay failed"
[ -f "/lib/modules/$KREL/updates/dm-raid456.ko" ] || die "not installed"
modinfo -F alias dm-raid456 | grep -qx dm-raid45 || die "alias dm-raid45 missing"
modprobe dm-mod
make_ramdisks 3 8
dmsetup create r45auto --table "0 32768 raid45 core 2 64 nosync raid5_ls 1 64 3 -1 /dev/ram0 0 /dev/ram1 0 /dev/ram2 0" || true
grep -q '^dm_raid456 ' /proc/modules || die "dmsetup create did not autoload dm-raid456"
dmsetup targets | grep -q '^raid45 ' || die "raid45 target not registered"
dmsetup remove r45auto 2>/dev/null
true
