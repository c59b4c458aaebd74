#!/bin/bash
# kernels: 6.12
# cost: 10
# A dirty log that cannot be flushed (issue 11, finding 8): a write whose
# region mark cannot be made durable fails with an error, as dm-raid1's
# do, instead of reaching the members unlogged (after a crash its region
# would be taken for clean, parity never made to match); the kernel log
# says why.  Reads go on.
. "$(dirname "$0")/lib.sh"
load_module
fresh_members 4 16 1		# /dev/ram4 holds the log
wrap_member lg /dev/ram4
per_dev=$((15 * 2048))
len=$((per_dev * 3))
T="0 $len raid45 disk 3 /dev/mapper/lg 256 nosync raid5_ls 1 64 4 -1"
for i in 0 1 2 3; do T+=" /dev/mapper/m$i 2048"; done
dmsetup create r45g --table "$T" || die "create"
head -c $((1024 * 1024)) /dev/urandom >/tmp/w
dd if=/tmp/w of=/dev/mapper/r45g bs=1M oflag=direct status=none || die "write with a working log"
sleep 1				# its regions are clean again
dmesg -c >/dev/null
fail_wrapper lg
if dd if=/tmp/w of=/dev/mapper/r45g bs=1M seek=8 oflag=direct status=none 2>/dev/null; then
	dmesg | tail -n 5
	die "a write succeeded although its region could not be marked in the log"
fi
dmesg | grep -q 'dirty log flush failed' || { dmesg | tail; die "no log line says why the write failed"; }
dd if=/dev/mapper/r45g of=/dev/null bs=1M count=4 iflag=direct status=none || die "reads fail"
dd if=/dev/mapper/r45g of=/tmp/r bs=1M count=1 iflag=direct status=none || die "read"
cmp /tmp/r /tmp/w || die "read back differs"
dmsetup remove r45g || die "remove"
echo "ok writes fail, reads go on, when the log cannot be flushed"
