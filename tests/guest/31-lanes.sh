#!/bin/bash
# kernels: 6.12
# cost: 119
# Stripes handed between lanes.  With lane_spill 0 a stripe that no lane
# holds goes to the least loaded lane, on a tie another than the one that
# last had it, so on 2 CPUs neighbouring stripes, and one stripe's
# successive requests, run in different workers in parallel (moved counts
# only a stripe that changes from one lane to another, not a new stripe's
# first lane): a stripe handled by two lanes at
# once, or by one before it sees the other's work, shows as a fio verify
# error or a parity mismatch.  Under that: fio verify on RAID5 and RAID6
# (30's workload) and a resync with verified writes across it, the raw
# members' parity checked after each; then RAID6 losing two members under
# verified writes, read back through the degraded array.
. "$(dirname "$0")/lib.sh"
load_module
p=/sys/module/dm_raid456/parameters/lane_spill
[ -w $p ] || die "no lane_spill parameter"
[ "$(cat $p)" = 8 ] || die "lane_spill default $(cat $p), not 8"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (lanes): $(nproc)"
echo 0 >$p || die "set lane_spill"
trap 'echo 8 >$p' EXIT
# stripes that changed lanes: the 11th stats counter, > 0 where it must
expect_moved() {
	local m
	m=$(stat_word "$1" 11)
	[ "${m:-0}" -gt 0 ] || die "$2: no stripe changed lanes: $(dmsetup status "$1")"
	echo "$2: $m stripes changed lanes"
}

R45_EXPECT_MOVED=1 R45_FIO_TYPES="raid5_ls raid6_zr" bash "$(dirname "$0")/30-fio-verify.sh" ||
	die "fio verify with every stripe spilled"

# a resync (sync: every region out of sync) with verified writes across it
make_ramdisks 5 40
devs=(/dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 /dev/ram4)
for d in "${devs[@]}"; do fill_dev "$d" 40 /dev/urandom; done
per_dev=$((36 * 2048))
T="0 $((per_dev * 4)) raid45 core 2 256 sync raid5_la 2 64 64 5 -1"
for d in "${devs[@]}"; do T+=" $d 2048"; done
dmsetup create r45s --table "$T" || die "create (sync)"
dmsetup message r45s 0 frozen || die "frozen"
dmsetup message r45s 0 statistics on || die "statistics on"
sc=$(sync_count r45s 5)
[ "${sc%/*}" -lt "${sc#*/}" ] || die "no resync to race: $sc"
(sleep 0.3; dmsetup message r45s 0 idle) &
fio --name=v --filename=/dev/mapper/r45s --direct=1 --ioengine=libaio --iodepth=16 \
	--rw=randwrite --bsrange=4k-512k --blockalign=4k --numjobs=2 --size=30m \
	--offset_increment=30m --verify=crc32c --verify_fatal=1 --randrepeat=0 \
	--group_reporting --minimal >/tmp/fio.out 2>&1 ||
	{ cat /tmp/fio.out; die "fio verify across the resync"; }
wait
wait_in_sync r45s 5 300
expect_moved r45s "writes across the resync"
dmsetup remove r45s || die "remove (sync)"
"$PARCHECK" -t raid5_la -c 64 -o 2048 -n $((per_dev / 64)) "${devs[@]}" >/tmp/pc ||
	{ cat /tmp/pc; die "parity-check after the resync"; }
echo "ok resync: $(cat /tmp/pc)"

# RAID6 losing two members under verified writes: degraded writes and
# reconstructing reads, stripes still handed between lanes
fresh_members 5 40
T="0 $((per_dev * 3)) raid45 core 2 1024 nosync raid6_zr 2 64 64 5 -1"
for i in 0 1 2 3 4; do T+=" /dev/mapper/m$i 2048"; done
dmsetup create r45d --table "$T" || die "create (raid6)"
dmsetup message r45d 0 statistics on || die "statistics on"
ack_failures r45d &
fio_d() {
	fio --name=d --filename=/dev/mapper/r45d --direct=1 --ioengine=libaio --iodepth=16 \
		--rw=randwrite --bsrange=512-256k --blockalign=512 --size=$((per_dev * 3 * 512)) \
		--verify=crc32c --verify_fatal=1 --randrepeat=0 --minimal "$@" >/tmp/fio.out 2>&1
}
fio_d &
fiopid=$!
sleep 1
kill -0 $fiopid 2>/dev/null || die "fio ended before the first failure"
fail_wrapper m1
sleep 1
kill -0 $fiopid 2>/dev/null || die "fio ended before the second failure"
fail_wrapper m3
wait $fiopid || { cat /tmp/fio.out; die "fio verify while RAID6 lost two members"; }
fio_d --verify_only || { cat /tmp/fio.out; die "verify_only on RAID6 with two members failed"; }
[ "$(health r45d 5)" = ADADA ] || die "not members 1 and 3 failed: $(dmsetup status r45d)"
expect_moved r45d "RAID6 losing two members"
dmsetup remove r45d || die "remove (raid6)"
echo "ok raid6 two members lost under writes"
