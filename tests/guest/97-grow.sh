#!/bin/bash
# kernels: 7
# cost: 120
# Size growth (issue 33, part 1).  The members grow (their dm-linear
# wrappers are reloaded larger, as lvextend grows an LV), then a reload
# with a larger <len> takes the running array over under fio verify:
#   - what was in sync stays in sync (the sync count right after the
#     resume covers every old region), the size is the new one at once;
#   - the new space, full of garbage on the members before the growth
#     (parity inconsistent), is resynced in the background: once idle,
#     the raw members' parity is right (parity-check) and md created
#     --assume-clean over them finds 0 mismatches and reads the same
#     bytes;
#   - the old data is intact; the last old region, only partly old
#     (lengths chosen so), is resynced too;
#   - with a disk log, a fresh activation afterwards does not find a log
#     of another region count (it was rewritten for the new one);
#   - crashes around a growth (crash_part, below);
#   - "nosync" trusts the new space (zeros here): in sync at once;
#   - a shorter table is refused with its reason and changes nothing;
#     with "shrink" it loads and the data before the new end is intact;
#   - a degraded array is not grown (its reason logged, nothing changed);
#   - raid45ctl grow reloads, then records the new size (an inactive
#     array is refused; create's --nosync is not recorded: it vouches for
#     that first activation only).
. "$(dirname "$0")/lib.sh"
load_module
chunk=64
off=2048
old_per=$((8 * 2048 + chunk))	# not a multiple of the region size
new_per=$((14 * 2048))
logdev=/dev/ram6

# grow_case <type> <members> <core|disk> <sync|nosync>
grow_case() {
	local type=$1 n=$2 log=$3 sw=$4 pd=1 i old_len new_len region=1024
	local sc full sum_dm sum_md half nr
	case $type in raid6*) pd=2 ;; esac
	old_len=$((old_per * (n - pd)))
	new_len=$((new_per * (n - pd)))
	for i in $(seq 0 $((n - 1))); do dmsetup remove "m$i" >/dev/null 2>&1; done
	make_ramdisks 7 16
	devs=()
	for i in $(seq 0 $((n - 1))); do
		dmsetup create "m$i" --table "0 $((off + old_per)) linear /dev/ram$i 0" ||
			die "wrap ram$i"
		devs+=("/dev/mapper/m$i")
		# the space the array will grow into: garbage (parity wrong)
		# unless the table is to trust it
		[ "$sw" = sync ] && dd if=/dev/urandom of="/dev/ram$i" bs=32k \
			seek=$(((off + old_per) / 64)) oflag=direct status=none 2>/dev/null
	done
	mk() { # <len> [options]
		local tl="0 $1 raid45"
		if [ "$log" = core ]; then tl+=" core 2 $region $sw"
		elif [ "$sw" = sync ]; then tl+=" disk 2 $logdev $region"
		else tl+=" disk 3 $logdev $region nosync"; fi
		tl+=" $type"
		[ "$type" = raid4 ] && tl+=" -1"
		tl+=" 1 $chunk $2 $n -1"
		for d in "${devs[@]}"; do tl+=" $d $off"; done
		echo "$tl"
	}
	# created over zeros: in sync (a disk log: resynced first)
	dmsetup create r45g --table "$(mk "$old_len")" || die "create $type"
	wait_in_sync r45g "$n" 300
	half=$((old_len / 2))
	head -c $((half * 512)) /dev/urandom >/tmp/old
	dd if=/tmp/old of=/dev/mapper/r45g bs=64k oflag=direct status=none || die "write old"
	# fio verify on the old array's second half across the growth
	fio --name=old --filename=/dev/mapper/r45g --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randrw --bsrange=4k-256k --offset=$((half * 512)) \
		--size=$(((old_len - half) * 512)) --verify=crc32c --verify_fatal=1 \
		--randrepeat=0 --minimal >/tmp/fio-old.out 2>&1 &
	fiop=$!
	sleep 1
	for i in $(seq 0 $((n - 1))); do
		retable_member "m$i" "0 $((off + new_per)) linear /dev/ram$i 0"
	done
	dmesg -C
	dmsetup suspend r45g && dmsetup load r45g --table "$(mk "$new_len")" &&
		dmsetup resume r45g || die "grow reload $type"
	sc=$(sync_count r45g "$n")
	[ "$(blockdev --getsz /dev/mapper/r45g)" = "$new_len" ] ||
		die "$type: size $(blockdev --getsz /dev/mapper/r45g), not $new_len"
	[ "${sc#*/}" = $(((new_len + region - 1) / region)) ] || die "$type: regions $sc"
	# every region wholly old was in sync and stays so
	full=$((old_len / region))
	[ "${sc%/*}" -ge "$full" ] || die "$type $log $sw: $sc in sync right after the growth, the old array had $full"
	if [ "$sw" = nosync ]; then
		[ "${sc%/*}" = "${sc#*/}" ] || die "$type nosync: $sc after the growth"
		dmesg | grep -q "regions taken for in sync (nosync)" ||
			die "$type: no nosync growth line"
	else
		dmesg | grep -q "sectors added: $(((new_len + region - 1) / region - full)) regions to resync" ||
			{ dmesg | tail -5; die "$type: no growth line, or another count"; }
	fi
	wait $fiop || { cat /tmp/fio-old.out; die "$type: fio verify across the growth"; }
	# the new space written under verify while it resyncs, from the
	# first wholly new region (a write rebuilds its row's parity: the
	# old last region must be resynced, not written over), half of it
	nr=$(((old_len + region - 1) / region * region))
	fio --name=new --filename=/dev/mapper/r45g --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randrw --bsrange=4k-256k --offset=$((nr * 512)) \
		--size=$(((new_len - nr) / 2 * 512)) --verify=crc32c \
		--verify_fatal=1 --randrepeat=0 --minimal >/tmp/fio-new.out 2>&1 ||
		{ cat /tmp/fio-new.out; die "$type: fio verify in the new space"; }
	wait_in_sync r45g "$n" 300
	cmp -n $((half * 512)) /tmp/old /dev/mapper/r45g || die "$type: old data changed"
	sum_dm=$(md5sum </dev/mapper/r45g)
	if [ "$log" = disk ] && [ "$sw" = sync ]; then
		# a fresh activation: the log's bits were written for the new count
		dmsetup remove r45g || die "remove"
		dmesg -C
		dmsetup create r45g --table "$(mk "$new_len")" || die "$type: activate again"
		! dmesg | grep -q "another region count" ||
			die "$type: the log was not rewritten for the grown array"
		wait_in_sync r45g "$n" 120
	fi
	[ "$type" = raid5_ls ] && shrink_part "$n"
	dmsetup remove r45g || die "remove"
	for i in $(seq 0 $((n - 1))); do dmsetup remove "m$i" || die "remove m$i"; done
	devs=()
	for i in $(seq 0 $((n - 1))); do devs+=("/dev/ram$i"); done
	"$PARCHECK" -t "$type" -c $chunk -o $off -n $((new_per / chunk)) "${devs[@]}" >/tmp/pc ||
		{ cat /tmp/pc; die "parity-check after the growth of $type"; }
	sum_md=$(md_check "$type" $chunk $off $new_per "${devs[@]}")
	[ "$sum_md" = "${sum_dm%% *}" ] || die "$type: md reads other bytes than raid45"
	echo "ok $type $log $sw: $old_len -> $new_len sectors"
}

# a shorter table: refused without "shrink" (nothing changes), loaded
# with it; the data before the new end is intact
shrink_part() {
	local n=$1 short=$((old_len - 3 * chunk))
	dmesg -C
	expect_fail "shorter table" dmsetup load r45g --table "$(mk $short)"
	dmesg | grep -q "shorter than the running array" ||
		die "no reason for the refused shrink"
	dmsetup clear r45g
	[ "$(blockdev --getsz /dev/mapper/r45g)" = "$new_len" ] || die "refused shrink changed the size"
	dmsetup suspend r45g && dmsetup load r45g --table "$(mk $short shrink)" &&
		dmsetup resume r45g || die "shrink with the word: $(mk $short shrink)"
	[ "$(blockdev --getsz /dev/mapper/r45g)" = "$short" ] || die "shrink: size"
	cmp -n $((half * 512)) /tmp/old /dev/mapper/r45g || die "shrink: old data changed"
	sc=$(sync_count r45g "$n")
	[ "${sc%/*}" = "${sc#*/}" ] || die "shrink: $sc in sync"
	echo "ok shrink"
}

# raid45ctl grow: the description's size, then the reload; create's
# --nosync is not recorded (the next activation after a crash resyncs)
ctl_part() {
	local ctl=$TOP/build/tools/raid45ctl i desc
	export RAID45_CONF_DIR=/run/r45g-desc
	desc=$RAID45_CONF_DIR/g5.conf
	[ -x "$ctl" ] || die "tools not built (make tools)"
	for i in 0 1 2 3; do dmsetup remove "m$i" >/dev/null 2>&1; done
	make_ramdisks 4 16
	for i in 0 1 2 3; do
		dmsetup create "m$i" --table "0 $((off + old_per)) linear /dev/ram$i 0" || die "wrap"
	done
	"$ctl" create g5 --nosync --force --offset $off /dev/mapper/m0 /dev/mapper/m1 \
		/dev/mapper/m2 /dev/mapper/m3 >/tmp/ctl.out 2>&1 || { cat /tmp/ctl.out; die "raid45ctl create"; }
	[ "$(blockdev --getsz /dev/mapper/g5)" = $((old_per * 3)) ] || die "create: size"
	grep -q "^log core sync" "$desc" || die "create --nosync recorded: $(grep ^log "$desc")"
	head -c $((old_per * 3 * 512)) /dev/urandom >/tmp/old
	dd if=/tmp/old of=/dev/mapper/g5 bs=64k oflag=direct status=none || die "write"
	"$ctl" grow g5 >/tmp/ctl.out 2>&1 && grep -q "already" /tmp/ctl.out ||
		{ cat /tmp/ctl.out; die "grow without room"; }
	for i in 0 1 2 3; do
		retable_member "m$i" "0 $((off + new_per)) linear /dev/ram$i 0"
		# parity wrong in the new space: it must be resynced
		dd if=/dev/urandom of="/dev/ram$i" bs=32k seek=$(((off + old_per) / 64)) \
			oflag=direct status=none 2>/dev/null
	done
	"$ctl" deactivate g5 >/tmp/ctl.out 2>&1 || { cat /tmp/ctl.out; die "deactivate"; }
	expect_fail "raid45ctl grow of an inactive array" "$ctl" grow g5
	grep -q "not active" /tmp/expect_fail.out || die "grow inactive: $(cat /tmp/expect_fail.out)"
	"$ctl" activate g5 >/tmp/ctl.out 2>&1 || { cat /tmp/ctl.out; die "activate"; }
	"$ctl" grow g5 >/tmp/ctl.out 2>&1 || { cat /tmp/ctl.out; die "raid45ctl grow"; }
	[ "$(blockdev --getsz /dev/mapper/g5)" = $((new_per * 3)) ] || die "grow: size"
	grep -q "^size $((new_per * 3))$" "$desc" || die "grow: not recorded: $(grep ^size "$desc")"
	wait_in_sync g5 4 300
	cmp /tmp/old /dev/mapper/g5 -n $((old_per * 3 * 512)) || die "grow: old data changed"
	"$ctl" deactivate g5 >/tmp/ctl.out 2>&1 || { cat /tmp/ctl.out; die "deactivate"; }
	for i in 0 1 2 3; do dmsetup remove "m$i" || die "remove m$i"; done
	"$PARCHECK" -t raid5_ls -c $chunk -o $off -n $((new_per / chunk)) \
		/dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 >/tmp/pc ||
		{ cat /tmp/pc; die "parity-check after raid45ctl grow"; }
	echo "ok raid45ctl grow"
}

# a degraded array does not grow (md's rule: its new space could never
# be resynced); nothing changes
degraded_part() {
	local i t
	for i in 0 1 2 3; do dmsetup remove "m$i" >/dev/null 2>&1; done
	make_ramdisks 4 16
	for i in 0 1 2; do
		dmsetup create "m$i" --table "0 $((off + old_per)) linear /dev/ram$i 0" || die "wrap"
	done
	t="core 2 1024 nosync raid5_ls 1 $chunk 4 -1 /dev/mapper/m0 $off /dev/mapper/m1 $off /dev/mapper/m2 $off - -"
	dmsetup create r45d --table "0 $((old_per * 3)) raid45 $t" || die "degraded create"
	for i in 0 1 2; do retable_member "m$i" "0 $((off + new_per)) linear /dev/ram$i 0"; done
	dmesg -C
	expect_fail "growth of a degraded array" dmsetup load r45d --table "0 $((new_per * 3)) raid45 $t"
	dmesg | grep -q "cannot grow while a member is failed" ||
		die "degraded growth: no reason"
	[ "$(blockdev --getsz /dev/mapper/r45d)" = $((old_per * 3)) ] || die "degraded growth: size"
	dmsetup remove r45d || die "remove"
	echo "ok degraded growth refused"
}

# Crashes around a growth with a disk log (review of issue 33):
#  a) the kernel's reload: dm-log-writes under the log device records
#     every durable state of it from before the reload to after its
#     resume; in none may a region reaching past the old end be clean
#     under the new region count (grow-crash.py), though the old last
#     region is clean before;
#  b) the new length recorded first (as LVM commits its metadata before
#     the reload) and a crash before the reload, the growth inside the
#     old last region (the same region count): the activation at the new
#     length resyncs its last region, so the garbage there ends with
#     right parity.
crash_part() {
	local i t len2 per2
	for i in 0 1 2 3; do dmsetup remove "m$i" >/dev/null 2>&1; done
	make_ramdisks 6 16
	modprobe dm-log-writes || die "no dm-log-writes"
	for i in 0 1 2 3; do
		dmsetup create "m$i" --table "0 $((off + old_per)) linear /dev/ram$i 0" || die "wrap"
	done
	dmsetup create lwd --table "0 2048 log-writes /dev/ram4 /dev/ram5" || die "log-writes"
	mkc() { # <len>
		echo "0 $1 raid45 disk 2 /dev/mapper/lwd 1024 raid5_ls 1 $chunk 4 -1 /dev/mapper/m0 $off /dev/mapper/m1 $off /dev/mapper/m2 $off /dev/mapper/m3 $off"
	}
	dmsetup create r45c --table "$(mkc $((old_per * 3)))" || die "crash_part create"
	wait_in_sync r45c 4 120
	dmsetup suspend r45c && dmsetup resume r45c || die "suspend"	# the bits clean on the device
	dmsetup message lwd 0 mark start || die "mark"
	for i in 0 1 2 3; do retable_member "m$i" "0 $((off + new_per)) linear /dev/ram$i 0"; done
	dmsetup suspend r45c && dmsetup load r45c --table "$(mkc $((new_per * 3)))" &&
		dmsetup resume r45c || die "crash_part growth"
	dmsetup message lwd 0 mark end || die "mark"
	dmsetup remove r45c && dmsetup remove lwd || die "remove"
	python3 "$(dirname "$0")/grow-crash.py" /dev/ram5 $((old_per * 3)) $((new_per * 3)) 1024 ||
		die "a crash during the growth could take added space for in sync"
	# b) members of the old length, in sync, clean; then grown by less
	# than what is left of the last 1024-sector region (3 x 64 sectors)
	for i in 0 1 2 3; do dmsetup remove "m$i" || die "remove m$i"; done
	make_ramdisks 6 16
	for i in 0 1 2 3; do
		dmsetup create "m$i" --table "0 $((off + old_per)) linear /dev/ram$i 0" || die "wrap"
	done
	t="disk 2 /dev/ram4 1024 raid5_ls 1 $chunk 4 -1 /dev/mapper/m0 $off /dev/mapper/m1 $off /dev/mapper/m2 $off /dev/mapper/m3 $off"
	dmsetup create r45c --table "0 $((old_per * 3)) raid45 $t" || die "b: create"
	wait_in_sync r45c 4 120
	dmsetup remove r45c || die "b: remove"
	per2=$((old_per + 4 * chunk))
	len2=$((per2 * 3))
	[ $(((len2 + 1023) / 1024)) = $(((old_per * 3 + 1023) / 1024)) ] || die "b: not the same count"
	for i in 0 1 2 3; do
		retable_member "m$i" "0 $((off + per2)) linear /dev/ram$i 0"
		dd if=/dev/urandom of="/dev/ram$i" bs=32k seek=$(((off + old_per) / 64)) count=1 \
			oflag=direct status=none || die "garbage"
	done
	dmsetup create r45c --table "0 $len2 raid45 $t" || die "b: activation at the new length"
	wait_in_sync r45c 4 120
	dmsetup remove r45c || die "b: remove"
	"$PARCHECK" -t raid5_ls -c $chunk -o $off -n $((per2 / chunk)) /dev/mapper/m0 /dev/mapper/m1 \
		/dev/mapper/m2 /dev/mapper/m3 >/tmp/pc ||
		{ cat /tmp/pc; die "b: the added space's parity is wrong after the activation"; }
	for i in 0 1 2 3; do dmsetup remove "m$i" || die "remove m$i"; done
	echo "ok crashes around a growth"
}

crash_part
ctl_part
degraded_part
grow_case raid5_ls 4 core sync
grow_case raid6_nc 5 disk sync
grow_case raid5_la 4 core nosync
grow_case raid4 4 disk nosync
