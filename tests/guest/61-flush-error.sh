#!/bin/bash
# kernels: 6.1
# cost: 13
# Issue 27, finding 6: one rule for a member whose flush fails, md's (and
# the one the disk log's member flushes already followed): the member is
# failed and the flush succeeds while the others hold every block; its
# completion waits, like a write's, until user space has recorded the
# failure (allow_writes).  Beyond redundancy the flush fails.  On 73011ff
# the flush failed as soon as one member's did.
# Members are loop devices (which have a volatile write cache, so flushes
# reach the array) behind dm-flakey, switched to erroring every write,
# flushes included, once the data is written.
. "$(dirname "$0")/lib.sh"
load_module
N=4
mib=16
sz=$((mib * 2048))
per_dev=$(((mib - 1) * 2048))
len=$((per_dev * (N - 1)))
modprobe loop || die "modprobe loop"
loops=()
for i in $(seq 0 $((N - 1))); do
	truncate -s 0 /tmp/lo$i && truncate -s ${mib}M /tmp/lo$i
	loops[i]=$(losetup -f --show /tmp/lo$i) || die "losetup"
	dmsetup create f$i --table "0 $sz flakey ${loops[i]} 0 1 0" || die "flakey"
done
t="0 $len raid45 core 2 256 nosync raid5_ls 1 64 $N -1"
for i in $(seq 0 $((N - 1))); do t+=" /dev/mapper/f$i 2048"; done
dmsetup create r45f --table "$t" || die "create"
dm=dm-$(dmsetup info -c --noheadings -o minor r45f | tr -d " ")
wc=$(cat /sys/block/$dm/queue/write_cache)
[ "$wc" = "write back" ] || die "the array has no volatile cache ($wc): flushes would not reach it"
head -c $((4 * 1024 * 1024)) /dev/urandom >/tmp/data
dd if=/tmp/data of=/dev/mapper/r45f bs=1M oflag=direct status=none || die "write"
# fsync_dev: an empty flush of the array, its result on stdout
fsync_dev() {
	python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    os.fsync(fd)
    print("ok")
except OSError as e:
    print("err", e.errno)' "$1"
}
[ "$(fsync_dev /dev/mapper/r45f)" = ok ] || die "a flush failed with every member alive"
flaky() { # <i>: member i errors every write and flush from now on
	retable_member f$1 "0 $sz flakey ${loops[$1]} 0 0 1 1 error_writes"
}
flaky 1
fsync_dev /dev/mapper/r45f >/tmp/fs.out &
f=$!
for i in $(seq 50); do
	[ "$(health r45f $N)" = ADAA ] && break
	sleep 0.1
done
[ "$(health r45f $N)" = ADAA ] || die "member 1 not failed by its flush: $(dmsetup status r45f); fsync: $(cat /tmp/fs.out)"
sleep 1
kill -0 $f 2>/dev/null || die "the flush completed before the failure was recorded: $(cat /tmp/fs.out)"
[ "$(ext_word r45f 3)" = held ] || die "writes not held: $(dmsetup status r45f)"
dmsetup message r45f 0 allow_writes || die "allow_writes"
wait $f
[ "$(cat /tmp/fs.out)" = ok ] || die "the flush failed with one member's flush failed: $(cat /tmp/fs.out)"
cmp -n $((4 * 1024 * 1024)) /tmp/data /dev/mapper/r45f || die "data differs, degraded"
# a second member: beyond redundancy, the flush fails
flaky 2
r=$(fsync_dev /dev/mapper/r45f)
[ "$r" = "err 5" ] || die "a flush beyond redundancy returned \"$r\": $(dmsetup status r45f)"
dmsetup remove r45f || die "remove"
for i in $(seq 0 $((N - 1))); do dmsetup remove f$i; done
losetup -D
echo "ok member flush errors: member failed, flush held then done; beyond redundancy EIO"
