#!/bin/bash
# cost: 90
# fio mixed random I/O with crc32c verification (512 B..1 MiB blocks,
# 512-byte aligned offsets, 4 jobs), then the raw members' parity is
# recomputed; once more while the stripe cache is resized under load.
. "$(dirname "$0")/lib.sh"
load_module
# RAID5 and RAID6 (the xor and raid6 libraries differ between kernels)
# everywhere; a third layout turns with the kernel (issue 32: one of
# three on each, lib.sh split_slot), all of them in check-full
third=(raid4 raid5_ra raid5_rs)
types="raid5_ls ${third[$(split_slot) % 3]} raid6_zr"
[ "${R45_SPLIT_ALL:-0}" = 1 ] && types="raid5_ls raid4 raid5_ra raid5_rs raid6_zr"
types=${R45_FIO_TYPES:-$types}
make_ramdisks 5 40
devs=(/dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 /dev/ram4)

run_fio() {
	fio --name=verify --filename=/dev/mapper/r45f --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randrw --rwmixread=40 --bsrange=512-1m --blockalign=512 \
		--numjobs=4 --size=20m --offset_increment=20m --verify=crc32c \
		--verify_fatal=1 --randrepeat=0 --group_reporting --minimal >/tmp/fio.out 2>&1
}

for type in $types; do
	pd=1
	case $type in raid6*) pd=2 ;; esac
	chunk=64
	for d in "${devs[@]}"; do fill_dev "$d" 40 /dev/zero; done
	per_dev=$((36 * 2048))
	table="0 $((per_dev * (5 - pd))) raid45 core 2 1024 nosync $type"
	[ "$type" = raid4 ] && table+=" -1"
	table+=" 2 $chunk 64 5 -1"
	for d in "${devs[@]}"; do table+=" $d 2048"; done
	dmsetup create r45f --table "$table" || die "create $type"
	[ -n "${R45_EXPECT_MOVED:-}" ] && { dmsetup message r45f 0 statistics on || die "statistics on"; }
	run_fio || { cat /tmp/fio.out; die "fio verify failed on $type"; }
	# again, resizing the stripe cache up and down during the load
	( for i in $(seq 40); do
		dmsetup message r45f 0 stripe_cache set $((8 + (i * 37) % 500)) || exit 1
		sleep 0.1
	done ) &
	resizer=$!
	run_fio || { cat /tmp/fio.out; die "fio verify failed on $type during resize"; }
	wait $resizer || die "stripe_cache message failed"
	# 31-lanes: stripes must have changed lanes (the 11th stats counter)
	if [ -n "${R45_EXPECT_MOVED:-}" ]; then
		mv=$(stat_word r45f 11)
		[ "${mv:-0}" -gt 0 ] || die "$type: no stripe changed lanes: $(dmsetup status r45f)"
		echo "$type: $mv stripes changed lanes"
	fi
	dmsetup remove r45f || die "remove"
	"$PARCHECK" -t "$type" -c $chunk -o 2048 -n $((per_dev / chunk)) "${devs[@]}" >/tmp/pc ||
		{ cat /tmp/pc; die "parity-check failed on $type"; }
	echo "ok $type: $(cat /tmp/pc)"
done
