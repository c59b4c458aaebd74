#!/bin/bash
# cost: 5
# Member I/O errors at random, on a fault-injection kernel (skipped
# elsewhere): fail_make_request fails 3 % of the requests that reach one
# member's ramdisk (two members for RAID6) while fio writes and verifies
# through the array.  md's rules: a failed read is rebuilt from the others
# and written back, a failed write (or rewrite) fails the member; either
# way every read returns what was written.  Then the errors stop, fio
# verifies everything once more, the failed members are rebuilt on blank
# ramdisks one after the other (dev_to_init), and the parity checker finds
# no bad stripe.
. "$(dirname "$0")/lib.sh"
dbg=/sys/kernel/debug
grep -q " $dbg debugfs" /proc/mounts || mount -t debugfs debugfs $dbg 2>/dev/null
fmr=$dbg/fail_make_request
if [ ! -d $fmr ] || [ ! -e /sys/block/ram0/make-it-fail ] 2>/dev/null; then
	modprobe brd rd_nr=1 rd_size=1024 2>/dev/null
	if [ ! -d $fmr ] || [ ! -e /sys/block/ram0/make-it-fail ]; then
		echo "skip: not a fault-injection kernel"
		exit 77
	fi
fi
load_module
N=5
per_dev=$((20 * 2048))
echo 3 >$fmr/probability
echo 1 >$fmr/interval
echo 1000000000 >$fmr/times
echo 0 >$fmr/space
echo 1 >$fmr/verbose
echo 0 >$fmr/task-filter
trap 'echo 0 > $fmr/probability; for b in /sys/block/ram*/make-it-fail; do echo 0 > $b; done' EXIT

mk_table() { # <type> <parity devices> <dev_to_init>
	local t="0 $((per_dev * (N - $2))) raid45 core 2 256 nosync $1 1 64 $N $3" i
	for i in $(seq 0 $((N - 1))); do t+=" /dev/mapper/m$i 2048"; done
	echo "$t"
}
fio_load() {
	fio --name=fmr --filename=/dev/mapper/r45e --direct=1 --ioengine=libaio \
		--iodepth=4 --bsrange=4k-128k --numjobs=2 --size=16m --offset_increment=16m \
		--verify=crc32c --verify_fatal=1 --group_reporting --minimal "$@" >/tmp/fio.out 2>&1
}
# requests failed so far: "times" counts down on each (the kernel log's
# lines are rate-limited)
injected() { echo $((1000000000 - $(cat $fmr/times))); }

for spec in "raid5_ls 1 1" "raid6_zr 2 1 3"; do
	read -r type pd bad <<<"$spec"
	# shellcheck disable=SC2206
	bad=(${spec#* * })
	fresh_members $N 24 2
	dmsetup create r45e --table "$(mk_table "$type" "$pd" -1)" || die "create $type"
	ack_failures r45e &
	acker=$!
	before=$(injected)
	for k in "${bad[@]}"; do echo 1 >"/sys/block/ram$k/make-it-fail"; done
	fio_load --rw=randrw --rwmixread=50 ||
		{ cat /tmp/fio.out; die "$type: fio verify failed under member I/O errors"; }
	for k in "${bad[@]}"; do echo 0 >"/sys/block/ram$k/make-it-fail"; done
	n=$(($(injected) - before))
	[ "$n" -gt 0 ] || die "$type: fail_make_request injected nothing"
	fio_load --rw=randrw --verify_only ||
		{ cat /tmp/fio.out; die "$type: verify after the errors failed"; }
	h=$(health r45e $N)
	echo "ok $type: $n requests failed, health $h, repaired reads $(ext_word r45e 4)"
	# only the members with errors may have failed
	for i in $(seq 0 $((N - 1))); do
		case " ${bad[*]} " in *" $i "*) continue ;; esac
		[ "${h:$i:1}" = A ] || die "$type: member $i failed without errors: $h"
	done
	# rebuild every failed member on a blank ramdisk, one at a time
	spare=$N
	for k in "${bad[@]}"; do
		[ "${h:$k:1}" = D ] || continue
		fill_dev "/dev/ram$spare" 24 /dev/zero
		dmsetup suspend r45e || die "suspend"
		wrap_member "m$k" "/dev/ram$spare"
		dmsetup load r45e --table "$(mk_table "$type" "$pd" "$k")" || die "reload, rebuild $k"
		dmsetup resume r45e || die "resume"
		wait_in_sync r45e $N 900
		spare=$((spare + 1))
		h=$(health r45e $N)
	done
	[ "$h" = "$(printf 'A%.0s' $(seq $N))" ] || die "$type: health after rebuild: $h"
	fio_load --rw=randrw --verify_only || { cat /tmp/fio.out; die "$type: verify after rebuild"; }
	dmsetup remove r45e || die "remove"
	wait $acker
	devs=()
	for i in $(seq 0 $((N - 1))); do devs+=("/dev/mapper/m$i"); done
	"$PARCHECK" -t "$type" -c 64 -o 2048 -n $((per_dev / 64)) "${devs[@]}" >/tmp/pc ||
		{ cat /tmp/pc; die "$type: bad stripes after the rebuild"; }
	echo "ok $type rebuilt: $(cat /tmp/pc)"
	for i in $(seq 0 $((N - 1))); do dmsetup remove "m$i"; done
done
