#!/bin/bash
# scripts/boot-loop's guest command: a short write to a ramdisk, through
# a raid45 array when $1 is 1 (the module loaded), else straight.
. "$(dirname "$0")/lib.sh"
make_ramdisks 4 16
if [ "${1:-0}" = 1 ]; then
	load_module
	t="0 $((15 * 2048 * 3)) raid45 core 2 256 nosync raid5_ls 1 64 4 -1"
	for i in 0 1 2 3; do t+=" /dev/ram$i 2048"; done
	dmsetup create r45b --table "$t" || die "create"
	dev=/dev/mapper/r45b
else
	dev=/dev/ram0
fi
dd if=/dev/urandom of="$dev" bs=1M count=8 oflag=direct status=none || die "write"
[ "${1:-0}" = 1 ] && dmsetup remove r45b
echo ok
