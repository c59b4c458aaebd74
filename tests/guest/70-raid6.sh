#!/bin/bash
# kernels: 6.12 7
# cost: 230
# RAID6: for every pair of members of a 5-member array, both fail at
# different moments of a verified fio load (the layout rotates through
# raid6_zr/nr/nc): no verify error, health shows exactly those two D's.
# A third failure makes I/O fail, never return wrong data.  Two blank
# replacements are rebuilt one after the other under load, after which P
# and Q of every stripe are right.  The 10 pairs are split between the
# kernels that make check runs it on (lib.sh on_this_kernel; the code is
# the same on all): each runs every layout and every member in a pair.
. "$(dirname "$0")/lib.sh"
load_module
N=5
per_dev=$((16 * 2048))
len=$((per_dev * (N - 2)))
mk_table() { # <type> <dev_to_init> [recovery bandwidth %]
	local t="0 $len raid45 core 2 256 nosync $1 5 64 -1 -1 -1 ${3:--1} $N $2" i
	for i in $(seq 0 $((N - 1))); do t+=" /dev/mapper/m$i 2048"; done
	echo "$t"
}
fio_load() {
	fio --name=r6 --filename=/dev/mapper/r45q --direct=1 --ioengine=libaio \
		--iodepth=4 --bsrange=4k-128k --numjobs=2 --size=16m --offset_increment=16m \
		--verify=crc32c --verify_fatal=1 --group_reporting --minimal "$@" >/tmp/fio.out 2>&1
}
types=(raid6_zr raid6_nr raid6_nc)
p=0
for a in $(seq 0 $((N - 2))); do
	for b in $(seq $((a + 1)) $((N - 1))); do
		type=${types[p % 3]}
		p=$((p + 1))
		on_this_kernel $((p - 1)) || continue
		fresh_members $N 20 2
		dmsetup create r45q --table "$(mk_table "$type" -1)" || die "create"
		ack_failures r45q &
		fio_load --rw=randwrite &
		fiopid=$!
		sleep 1
		fail_wrapper "m$a"
		sleep 1
		fail_wrapper "m$b"
		wait $fiopid || { cat /tmp/fio.out; die "fio verify: $type members $a,$b"; }
		fio_load --rw=randwrite --verify_only || { cat /tmp/fio.out; die "verify_only: $type $a,$b"; }
		exp=""
		for i in $(seq 0 $((N - 1))); do
			{ [ "$i" = "$a" ] || [ "$i" = "$b" ]; } && exp+=D || exp+=A
		done
		h=$(health r45q $N)
		[ "$h" = "$exp" ] || die "health $h, expected $exp ($type $a,$b)"
		dmsetup remove r45q
		echo "ok $type members $a and $b failed under load: $h"
	done
done

# a third failure: errors, never wrong data
fresh_members $N 20 2
dmsetup create r45q --table "$(mk_table raid6_nc -1)"
head -c $((len * 512)) /dev/urandom > /tmp/ref
dd if=/tmp/ref of=/dev/mapper/r45q bs=1M oflag=direct status=none || die "write"
fail_wrapper m0
fail_wrapper m2
cmp /tmp/ref /dev/mapper/r45q || die "doubly degraded read differs"
fail_wrapper m4
if dd if=/dev/mapper/r45q of=/dev/null bs=1M iflag=direct status=none 2>/dev/null; then
	die "reading with three members failed succeeded"
fi
"$(dirname "$0")/read-check.py" /dev/mapper/r45q /tmp/ref "$len" || die "a read returned wrong data"
dmsetup remove r45q

# rebuild two failed members one after the other, under load
fresh_members $N 20 2
dmsetup create r45q --table "$(mk_table raid6_zr -1)"
fio_load --rw=randwrite || { cat /tmp/fio.out; die "fio before failures"; }
fail_wrapper m1
fail_wrapper m3
fio_load --rw=randwrite --verify_only >/dev/null || { cat /tmp/fio.out; die "degraded verify"; }
# the failures the reads found are recorded (a reload that rebuilds one
# member acknowledges that one, not the other)
dmsetup message r45q 0 allow_writes || die "allow_writes"
for pair in "1 $N" "3 $((N + 1))"; do
	set -- $pair
	fill_dev "/dev/ram$2" 20 /dev/zero
	dmsetup suspend r45q
	wrap_member "m$1" "/dev/ram$2"
	# rebuild at full bandwidth: TCG is slow enough without throttling
	dmsetup load r45q --table "$(mk_table raid6_zr "$1" 100)" || die "reload dev_to_init $1"
	dmsetup resume r45q
	fio_load --rw=randrw || { cat /tmp/fio.out; die "fio during rebuild of $1"; }
	wait_in_sync r45q $N 600
	echo "rebuilt member $1: $(health r45q $N)"
done
[ "$(health r45q $N)" = AAAAA ] || die "health after rebuilds: $(health r45q $N)"
fio_load --rw=randrw --verify_only || { cat /tmp/fio.out; die "verify after rebuilds"; }
dmsetup remove r45q
devs=(); for i in $(seq 0 $((N - 1))); do devs+=("/dev/mapper/m$i"); done
"$PARCHECK" -t raid6_zr -c 64 -o 2048 -n $((per_dev / 64)) "${devs[@]}" >/tmp/pc ||
	{ cat /tmp/pc; die "P/Q wrong after rebuilds"; }
echo "ok raid6 rebuilds: $(cat /tmp/pc)"

# RAID6 read-modify-write (P and Q updated by the raid6 library's
# xor_syndrome).  12 members (10 data blocks a stripe) and a chunk of
# one page: a write of 2 or 3 blocks touches 2 or 3 blocks of one stripe
# and reads them, P and Q (4-5) instead of the other 7-8 data blocks, so
# the syndrome ranges span several slots, untouched ones and (all three
# layouts are DDF-ordered here) those of the P and Q members among them.
# The array is first filled with random data by full-stripe writes, so
# the old data taken out of P and Q is not zero; then writes of 512
# bytes to 20 KiB at 512-byte offsets (partial blocks too) under fio
# verify.  The statistics must count read-modify-write stripe writes,
# every block must read back, and P and Q of every stripe must be right
# on the raw members.
NW=12
perw=$((16 * 2048))
lenw=$((perw * (NW - 2)))
for type in raid6_zr raid6_nr raid6_nc; do
	fresh_members $NW 20
	t="0 $lenw raid45 core 2 256 nosync $type 5 8 -1 -1 -1 -1 $NW -1"
	for i in $(seq 0 $((NW - 1))); do t+=" /dev/mapper/m$i 2048"; done
	dmsetup create r45w --table "$t" || die "create $type with $NW members"
	dd if=/dev/urandom of=/dev/mapper/r45w bs=40k count=820 oflag=direct status=none ||
		die "$type: fill"
	dmsetup message r45w 0 statistics on || die "statistics on"
	fio --name=rmw --filename=/dev/mapper/r45w --direct=1 --ioengine=libaio \
		--iodepth=4 --rw=randwrite --bsrange=512-20k --size=32m --number_ios=3000 \
		--verify=crc32c --verify_fatal=1 --minimal >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; die "fio verify ($type, read-modify-write)"; }
	# stats <reads> <writes> <bypass> <full> <rmw> <rcw> <degraded> <delayed>
	st=$(dmsetup status r45w | sed -n 's/.* stats //p')
	rmw=$(echo "$st" | awk '{ print $5 }')
	rcw=$(echo "$st" | awk '{ print $6 }')
	[ "${rmw:-0}" -gt 0 ] || die "$type: no read-modify-write stripe writes (stats $st)"
	dmsetup remove r45w
	devs=(); for i in $(seq 0 $((NW - 1))); do devs+=("/dev/mapper/m$i"); done
	"$PARCHECK" -t $type -c 8 -o 2048 -n $((perw / 8)) "${devs[@]}" >/tmp/pc ||
		{ cat /tmp/pc; die "$type: P/Q wrong after read-modify-writes"; }
	echo "ok $type read-modify-write: $rmw rmw and $rcw rcw stripe writes, $(cat /tmp/pc)"
done
