#!/bin/bash
# kernels: 6.12
# cost: 128
# Teardown under load: 100 cycles of an array created with "sync" (its
# resync running) under fio random writes, ended in turn by
#   0  a reload (suspend, load with another stripe cache and bandwidth,
#      resume) and then a plain remove once fio is done,
#   1  "dmsetup remove --force" while fio still writes (its I/O fails),
#   2  a remove and the module unloaded and loaded again (with the array
#      present the unload must be refused),
# and every tenth cycle a fio verify of the data.  KASAN, lockdep and the
# kmemleak scan at the end of the run (debug kernel) see every teardown
# path; on a stock kernel this is a plain stress test.  Short on stock
# kernels (R45_TEARDOWN_CYCLES, default 100 on the debug kernel, 20
# elsewhere).
. "$(dirname "$0")/lib.sh"
load_module
N=4
per_dev=$((12 * 2048))
len=$((per_dev * (N - 1)))
cycles=20
case $(uname -r) in *-r45debug) cycles=100 ;; esac
cycles=${R45_TEARDOWN_CYCLES:-$cycles}
mk_table() { # <stripes> <bandwidth>
	local t="0 $len raid45 core 2 256 sync raid5_ls 5 64 $1 -1 -1 $2 $N -1" i
	for i in $(seq 0 $((N - 1))); do t+=" /dev/mapper/m$i 2048"; done
	echo "$t"
}
ko=$TOP/build/$KREL/dm-raid456.ko
fresh_members $N 16
for c in $(seq "$cycles"); do
	dmsetup create r45t --table "$(mk_table $((16 + c % 5 * 40)) 50)" || die "cycle $c: create"
	[ -b /dev/mapper/r45t ] || die "cycle $c: /dev/mapper/r45t is not a block device"
	if [ $((c % 10)) = 0 ]; then
		fio --name=td --filename=/dev/mapper/r45t --direct=1 --ioengine=libaio \
			--iodepth=8 --rw=randwrite --bsrange=4k-64k --size=8m --offset=4m \
			--allow_file_create=0 \
			--verify=crc32c --verify_fatal=1 --minimal >/tmp/fio.out 2>&1 ||
			{ cat /tmp/fio.out; die "cycle $c: fio verify"; }
		echo "ok cycle $c: verified"
	fi
	fio --name=td --filename=/dev/mapper/r45t --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randwrite --bs=4k --size=16m --time_based --runtime=3 \
		--allow_file_create=0 --minimal >/tmp/fio-bg.out 2>&1 &
	fiopid=$!
	sleep 0.$((RANDOM % 10))
	case $((c % 3)) in
	0)
		dmsetup suspend r45t || die "cycle $c: suspend"
		dmsetup load r45t --table "$(mk_table 64 $((c % 100 + 1)))" || die "cycle $c: load"
		dmsetup resume r45t || die "cycle $c: resume"
		wait $fiopid || { cat /tmp/fio-bg.out; die "cycle $c: fio across a reload"; }
		dmsetup remove r45t || die "cycle $c: remove"
		;;
	1)
		dmsetup remove --force r45t >/dev/null 2>&1
		wait $fiopid
		dmsetup remove r45t >/dev/null 2>&1
		dmsetup info r45t >/dev/null 2>&1 && die "cycle $c: r45t still there after remove --force"
		;;
	2)
		rmmod dm_raid456 2>/dev/null && die "cycle $c: module unloaded under a live array"
		wait $fiopid || { cat /tmp/fio-bg.out; die "cycle $c: fio"; }
		dmsetup remove r45t || die "cycle $c: remove"
		# leaks of a module instance lose their symbols once it is
		# gone: scan now and then while it is still loaded
		if [ -w /sys/kernel/debug/kmemleak ] && [ $((c % 15)) = 2 ]; then
			echo scan >/sys/kernel/debug/kmemleak
			grep -q dm_raid456 /sys/kernel/debug/kmemleak &&
				{ head -n 40 /sys/kernel/debug/kmemleak; die "cycle $c: kmemleak"; }
		fi
		rmmod dm_raid456 || die "cycle $c: rmmod"
		insmod "$ko" || die "cycle $c: insmod"
		;;
	esac
done
dmsetup table | grep -q raid45 && die "raid45 tables left"
echo "ok $cycles teardown cycles"
