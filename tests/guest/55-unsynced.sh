#!/bin/bash
# kernels: 7
# cost: 60
# Writes ahead of the resync (issue 11, finding 2; md's rule: always
# reconstruct-write beyond the resync point).  Members full of random
# data, the array created with "sync" and frozen at once so that the
# resync never reaches the upper half; random 4 KiB writes there (fio,
# verify state); then a member (RAID6: two) fails before the resync got
# there: every written block must read back as written.  A
# read-modify-write on such a stripe folds the random "parity" into the
# new parity, and the lost member's blocks are rebuilt as garbage.
. "$(dirname "$0")/lib.sh"
load_module
mib=8
per_dev=$((mib * 2048))
region=1024

run_case() { # <type> <members> <parity disks> <members to fail...>
	local type=$1 n=$2 pd=$3 len sc half i sz
	shift 3
	len=$((per_dev * (n - pd)))
	fresh_members "$n" $((mib + 1))
	for i in $(seq 0 $((n - 1))); do fill_dev "/dev/ram$i" $((mib + 1)) /dev/urandom; done
	# 32 stripes: the cache cannot keep what was written in it
	t="0 $len raid45 core 2 $region sync $type 7 64 32 -1 -1 1 -1 -1 $n -1"
	for i in $(seq 0 $((n - 1))); do t+=" /dev/mapper/m$i 2048"; done
	# member 0 behind dm-delay until frozen: the resync stays near the start
	sz=$(blockdev --getsz /dev/ram0)
	retable_member m0 "0 $sz delay /dev/ram0 0 50"
	dmsetup create r45u --table "$t" || die "create $type"
	dmsetup message r45u 0 frozen || die "frozen"
	wrap_member m0 /dev/ram0
	sc=$(sync_count r45u "$n")
	half=$((len / 2 / region))
	[ "${sc%/*}" -lt "$half" ] || die "resync reached the upper half before the freeze: $sc"
	fio --name=unsynced --filename=/dev/mapper/r45u --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randwrite --bs=4k --offset=$((len / 2 * 512)) \
		--size=$((len / 2 * 512)) --io_size=2m --randseed=55 \
		--verify=crc32c --do_verify=0 --minimal >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; die "fio write ($type)"; }
	sc=$(sync_count r45u "$n")
	[ "${sc%/*}" -lt "$half" ] || die "resync reached the written half: $sc"
	for i in "$@"; do fail_wrapper "m$i"; done
	# drop what the stripe cache still holds
	dmsetup message r45u 0 stripe_cache set 8 || die "stripe_cache set"
	dmsetup message r45u 0 stripe_cache set 32 || die "stripe_cache set"
	fio --name=unsynced --filename=/dev/mapper/r45u --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randwrite --bs=4k --offset=$((len / 2 * 512)) \
		--size=$((len / 2 * 512)) --io_size=2m --randseed=55 \
		--verify=crc32c --verify_only --verify_fatal=1 --minimal >/tmp/fio.out 2>&1 ||
		{ grep -m5 -i 'verify\|bad' /tmp/fio.out; die "$type: written blocks read back wrong after losing member(s) $* ahead of the resync"; }
	echo "ok $type: 512 blocks written ahead of the resync ($sc regions in sync) intact after losing member(s) $*: $(health r45u "$n")"
	dmsetup remove r45u || die "remove"
}

run_case raid5_ls 5 1 2
run_case raid6_nc 6 2 1 4
