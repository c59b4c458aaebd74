#!/bin/bash
# cost: 85
# Table parsing: valid lines load and round-trip through "dmsetup table";
# every invalid form is refused with its own message and leaves nothing.
. "$(dirname "$0")/lib.sh"
load_module
make_ramdisks 5 16
D="/dev/ram0 0 /dev/ram1 0 /dev/ram2 0 /dev/ram3 0"

# valid lines: dmraid's form for each RAID5 layout, sync and nosync,
# all seven parameters, defaults, raid4, locking none, raid6
valid=(
	"0 98304 raid45 core 2 64 nosync raid5_la 1 64 4 -1 $D"
	"0 98304 raid45 core 2 65536 sync raid5_ra 1 64 4 -1 $D"
	"0 98304 raid45 core 2 128 nosync raid5_ls 1 64 4 -1 $D"
	"0 98304 raid45 core 2 1024 nosync raid5_rs 1 64 4 -1 $D"
	"0 98304 raid45 core 1 1024 raid5_ls 0 4 -1 $D"
	"0 98304 raid45 core 1 1024 raid5_ls 7 -1 -1 -1 -1 -1 -1 -1 4 -1 $D"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 7 128 512 16 512 50 nosync 8 4 -1 $D"
	"0 98304 raid45 core 2 1024 nosync raid4 -1 1 64 4 -1 $D"
	"0 98304 raid45 core 2 1024 nosync raid4 1 1 64 4 -1 $D"
	"0 98304 raid45 core 2 1024 nosync raid4 1 64 4 -1 $D"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 1 64 locking none 4 -1 $D"
	"0 65536 raid45 core 2 1024 nosync raid6_zr 1 64 4 -1 $D"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 1 64 4 2 $D"
)
for t in "${valid[@]}"; do
	dmsetup create r45t --table "$t" || die "valid table refused: $t"
	printed=$(dmsetup table r45t | cut -d' ' -f1-)
	dmsetup remove r45t || die "remove"
	# the printed line recreates the same array
	dmsetup create r45t --table "$printed" || die "printed table refused: $printed"
	again=$(dmsetup table r45t)
	[ "$again" = "$printed" ] || die "table does not round-trip: '$printed' vs '$again'"
	dmsetup remove r45t
done
echo "valid tables load and round-trip"

# dmraid's raid4 spelling has no parity index: parity on the last member
# (md's RAID4 layout).  "dmsetup table" prints the indexed form, data
# round-trips, chunk k of the array is chunk 0 of member k, and member 3
# holds the xor of the others.
dmsetup create r45t --table "0 24576 raid45 core 2 1024 nosync raid4 1 64 4 -1 $D" ||
	die "dmraid raid4 line refused"
printed=$(dmsetup table r45t)
echo "dmraid raid4 line printed as: $printed"
case "$printed" in
*" raid4 3 7 64 "*) ;;
*) die "raid4 without index not printed with parity 3: $printed" ;;
esac
dd if=/dev/urandom of=/tmp/r4.dat bs=1M count=12 status=none
dd if=/tmp/r4.dat of=/dev/mapper/r45t bs=1M oflag=direct status=none || die "raid4 write"
dd if=/dev/mapper/r45t of=/tmp/r4.back bs=1M iflag=direct status=none || die "raid4 read"
cmp -s /tmp/r4.dat /tmp/r4.back || die "raid4 without index: data differs"
dmsetup remove r45t
for k in 0 1 2; do
	dd if=/dev/ram$k of=/tmp/r4.chunk bs=32K count=1 iflag=direct status=none
	dd if=/tmp/r4.dat of=/tmp/r4.want bs=32K skip=$k count=1 status=none
	cmp -s /tmp/r4.chunk /tmp/r4.want ||
		die "raid4 without index: array chunk $k is not on member $k"
done
"$PARCHECK" -t raid4 -p 3 -c 64 -n 128 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 ||
	die "raid4 without index: parity on member 3 does not match"
# the printed (indexed) line reads the same data back
dmsetup create r45t --table "$printed" || die "printed raid4 line refused: $printed"
dd if=/dev/mapper/r45t of=/tmp/r4.back bs=1M iflag=direct status=none || die "raid4 read"
cmp -s /tmp/r4.dat /tmp/r4.back || die "printed raid4 line: data differs"
dmsetup remove r45t
rm -f /tmp/r4.dat /tmp/r4.back /tmp/r4.chunk /tmp/r4.want
echo "raid4 without parity index: loads, prints the index, data and parity in md's layout"

# status layout: #devs, devs, 1, health, sync/regions, log words, then
# action, mismatches, held|writable, repaired, unprotected, unsafe reads,
# ppl|-, then the stats block when on, then progress (- when idle): words
# are only appended
dmsetup create r45t --table "0 98304 raid45 core 2 1024 nosync raid4 1 1 64 4 -1 $D"
st=$(dmsetup status r45t)
echo "status: $st"
set -- $st
[ "$4" = 4 ] && [ "$9" = 1 ] && [ "${10}" = "AApAA" ] || die "bad status words: $st"
[ "${11}" = "96/96" ] || die "bad sync count: ${11}"
[ "${*:12}" = "1 core idle 0 writable 0 0 0 - -" ] || die "bad words after the sync count: $st"
dmsetup message r45t 0 statistics on
set -- $(dmsetup status r45t)
[ "${*:12:9}" = "1 core idle 0 writable 0 0 0 -" ] && [ "${21}" = stats ] &&
	[ "${33}" = - ] && [ $# = 33 ] ||
	die "statistics on: $*"
dmsetup remove r45t
# a rebuild is shown while it runs: member 0 behind dm-delay keeps it
# running long enough to be seen
dmsetup create slow0 --table "0 $(blockdev --getsz /dev/ram0) delay /dev/ram0 0 50" ||
	die "dm-delay"
dmsetup create r45t --table "0 98304 raid45 core 2 1024 nosync raid5_ls 1 64 4 2 ${D/\/dev\/ram0 /\/dev\/mapper\/slow0 }"
set -- $(dmsetup status r45t)
[ "${10}" = "AAAiA" ] || die "dev_to_init not shown: ${10}"
dmsetup remove r45t
dmsetup remove slow0

# invalid lines and the message each must produce
invalid=(
	"0 98304 raid45 mirror 2 1024 nosync raid5_ls 1 64 4 -1 $D|Invalid log type"
	"0 98304 raid45 core 3 1024 nosync raid5_ls 1 64 4 -1 $D|Invalid number of core log parameters"
	"0 98304 raid45 core 2 1000 nosync raid5_ls 1 64 4 -1 $D|Invalid region size"
	"0 98304 raid45 core 2 1024 maybe raid5_ls 1 64 4 -1 $D|Invalid log sync argument"
	"0 98304 raid45 core 2 1024 nosync raid5_xx 1 64 4 -1 $D|Invalid RAID type"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 8 64 4 -1 $D|Invalid number of raid parameters"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 1 48 4 -1 $D|Invalid chunk size"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 1 32768 4 -1 $D|Invalid chunk size"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 2 64 4 4 -1 $D|Invalid number of stripes"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 5 64 -1 -1 -1 101 4 -1 $D|Invalid recovery bandwidth"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 7 64 -1 -1 -1 -1 -1 65 4 -1 $D|Invalid number of recovery stripes"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 1 64 locking cluster 4 -1 $D|Cluster locking is not supported"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 1 64 2 -1 /dev/ram0 0 /dev/ram1 0|Invalid number of raid devices"
	"0 98304 raid45 core 2 1024 nosync raid6_nc 1 64 3 -1 /dev/ram0 0 /dev/ram1 0 /dev/ram2 0|Invalid number of raid devices"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 1 64 4 4 $D|Invalid device to initialize"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 1 64 4 -1 /dev/ram0 0 /dev/ram1 0 /dev/ram2 0|Number of device/offset arguments"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 1 64 4 -1 /dev/ram0 0 /dev/ram1 0 /dev/ram2 0 /dev/ram1 0|Duplicate raid device"
	"0 98305 raid45 core 2 1024 nosync raid5_ls 1 64 4 -1 $D|not divisible by number of data devices|target length 98305 not divisible by 3 data members (4 members): valid <len> nearest below: 98304, above: 98496 (multiples of 3 data members x 64-sector chunk = 192)"
	"0 98310 raid45 core 2 1024 nosync raid5_ls 1 64 4 -1 $D|Per-member length (<len> / data members) not divisible by chunk size|per-member length 32770 (<len> 98310 / 3 data members) not a multiple of the 64-sector chunk: valid <len> nearest below: 98304, above: 98496"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 1 64 4 -1 /dev/ram0 0 /dev/ram1 0 /dev/ram2 0 /dev/ram3 1024|Device too small|member 3 of 4 (/dev/ram3 = 1:3) too small: 33792 sectors needed (offset 1024 + per-member length 32768), it has 32768"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 1 64 4 -1 /dev/ram0 0 /dev/ram1 0 /dev/ram2 0 /dev/r45-none 0|Device lookup failure|member 3 of 4 (/dev/r45-none): -ENOENT: no such file"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 1 64 4 -1 /dev/ram0 0 /dev/ram4 0 /dev/ram2 0 /dev/ram3 0|Device lookup failure|member 1 of 4 (/dev/ram4 = 1:4): -EBUSY: in use"
	"0 98304 raid45 core 2 1024 nosync raid4 4 1 64 4 -1 $D|parity device index out of range"
	"0 98304 raid45 core 2 1024 nosync raid4 1 48 4 -1 $D|Invalid chunk size"
	"0 98304 raid45 core 2 1024 nosync raid5_ls 1 64 4 -1 /dev/ram0 x /dev/ram1 0 /dev/ram2 0 /dev/ram3 0|Invalid device offset"
)
# /dev/ram4 held open exclusively (O_EXCL, as a mount would): -EBUSY
python3 -c 'import os, sys, time
fd = os.open("/dev/ram4", os.O_RDONLY | os.O_EXCL)
print("held", flush=True)
time.sleep(600)' >/tmp/r45hold &
holder=$!
trap 'kill $holder 2>/dev/null' EXIT     # a die in the loop must not leave it
for _ in $(seq 50); do grep -q held /tmp/r45hold && break; sleep 0.1; done
grep -q held /tmp/r45hold || die "cannot hold /dev/ram4"
# an entry: <table>|<message>[|<numbers>]: dm's line has the message; a
# refusal with numbers has them on raid45's own line before it
for e in "${invalid[@]}"; do
	t=${e%%|*}
	msg=${e#*|}
	nums=
	case $msg in *"|"*) nums=${msg#*|}; msg=${msg%%|*} ;; esac
	dmesg -C
	if dmsetup create r45bad --table "$t" 2>/dev/null; then
		dmsetup remove r45bad
		die "invalid table accepted: $t"
	fi
	dmesg | grep -q "raid45: .*$msg" || { dmesg | tail -3; die "no '$msg' for: $t"; }
	if [ -n "$nums" ]; then
		dmesg | grep "raid45: [0-9]*:[0-9]*: " | grep -qF -- "$nums" ||
			{ dmesg | tail -3; die "no '$nums' for: $t"; }
	fi
	dmsetup info r45bad >/dev/null 2>&1 && die "refused table left a device: $t"
done
kill $holder
wait $holder 2>/dev/null
trap - EXIT
[ -z "$(dmsetup ls 2>/dev/null | grep -v 'No devices')" ] || die "devices left: $(dmsetup ls)"
for d in ram0 ram1 ram2 ram3 ram4; do
	[ -z "$(ls /sys/block/$d/holders)" ] || die "$d still held: $(ls /sys/block/$d/holders)"
done
echo "invalid tables refused with their messages and numbers, nothing left"

# an unknown message: -EINVAL, and the log lists the valid ones
dmsetup create r45t --table "0 98304 raid45 core 2 1024 nosync raid5_ls 1 64 4 -1 $D"
dmesg -C
expect_fail "unknown message" dmsetup message r45t 0 frobnicate
grep -q "Invalid argument" /tmp/expect_fail.out || die "unknown message: not -EINVAL: $(cat /tmp/expect_fail.out)"
dmesg | grep -qF 'raid45: message: unknown or unsupported message "frobnicate": valid are stripe_cache, bandwidth, statistics, overwrite, allow_writes, readd, check, repair, idle, frozen, resync and recover' ||
	{ dmesg | tail -3; die "unknown message: valid messages not listed"; }
dmsetup remove r45t
echo "unknown message refused with the valid ones listed"
