#!/bin/bash
# Guest side of "make demo" (not a test: run by scripts/demo).
. "$(dirname "$0")/lib.sh"
set -e
load_module
make_ramdisks 4 64
# 4 members of 64 MiB, raid5 left-symmetric, 64-sector chunks:
# 3 data members x 131072 sectors = 393216 sectors.
table="0 393216 raid45 core 2 1024 nosync raid5_ls 1 64 4 -1 /dev/ram0 0 /dev/ram1 0 /dev/ram2 0 /dev/ram3 0"
echo "# dmsetup create demo --table \"$table\""
dmsetup create demo --table "$table"
echo "# writing 64 MiB of random data and reading it back"
head -c $((64 << 20)) /dev/urandom > /tmp/data
dd if=/tmp/data of=/dev/mapper/demo bs=1M oflag=direct status=none
dd if=/dev/mapper/demo of=/tmp/back bs=1M count=64 iflag=direct status=none
cmp /tmp/data /tmp/back && echo "# read back: identical"
echo "# dmsetup table demo"
dmsetup table demo
echo "# dmsetup status demo"
dmsetup status demo
dmsetup remove demo
