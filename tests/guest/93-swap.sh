#!/bin/bash
# cost: 245
# Memory pressure and swap: forward progress.  In a guest with little
# memory (scripts/check-debug boots this test alone with 384 MiB; skipped
# in a guest with more than 768 MiB), swap lives on one raid45 array and
# fio verifies writes on a second array over the same four members, while
# a memory hog takes more than the free memory, so that pages go out to
# (and come back from) the array below while the other array needs
# memory for its own writes: mempools, GFP_NOIO and rescuers are what
# lets both finish.  RAID5 and RAID6, each intact and then degraded (a
# member of both arrays failed and acknowledged).  Fails on a hung task (the guest's
# detector panics), a verify error, a hog that did not swap, or an OOM
# kill.  Members are ramdisks written in full first, so that brd does not
# allocate under the pressure.
. "$(dirname "$0")/lib.sh"
total=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
if [ "$total" -gt 768 ]; then
	echo "skip: needs a small guest (MemTotal ${total} MiB; scripts/check-debug boots one)"
	exit 77
fi
load_module
# a swap device left active over a removed array would take the guest down
trap 'swapoff -a 2>/dev/null' EXIT
N=4
mib=24
swap_mib=14
fresh_members $N $mib
for i in $(seq 0 $((N - 1))); do fill_dev "/dev/ram$i" $mib /dev/zero; done
swap_sectors=$((swap_mib * 2048))
data_off=$swap_sectors
data_sectors=$(((mib - swap_mib - 1) * 2048))
mk_table() { # <type> <pd> <offset> <per member sectors>
	local t="0 $(($4 * (N - $2))) raid45 core 2 256 nosync $1 1 64 $N -1" i
	for i in $(seq 0 $((N - 1))); do t+=" /dev/mapper/m$i $3"; done
	echo "$t"
}
swapped_out() { awk '/^pswpout/ { print $2 }' /proc/vmstat; }
swapped_in() { awk '/^pswpin/ { print $2 }' /proc/vmstat; }

run_pressure() { # <what>
	local what=$1 avail hog out0 in0 fiopid hogpid
	out0=$(swapped_out)
	in0=$(swapped_in)
	fio --name=press --filename=/dev/mapper/r45data --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randwrite --bsrange=4k-128k --size=12m \
		--verify=crc32c --verify_fatal=1 --minimal >/tmp/fio.out 2>&1 &
	fiopid=$!
	avail=$(awk '/^MemFree:/ { print int($2 / 1024) }' /proc/meminfo)
	# a quarter of the swap space beyond what is free: pages must go out
	# (page cache goes first, then anonymous pages), and there is room
	# for them (an OOM kill fails the run: its report has a stack dump)
	hog=$((avail + swap_mib * (N - pd) / 4))
	python3 - "$hog" <<'EOF' &
import sys, time
n = int(sys.argv[1]) << 20
b = bytearray(n)
for rnd in range(3):
    for i in range(0, n, 4096):
        b[i] = (b[i] + 1) & 255
    time.sleep(1)
EOF
	hogpid=$!
	wait $hogpid || die "$what: the memory hog failed (OOM kill?)"
	wait $fiopid || { cat /tmp/fio.out; die "$what: fio verify under memory pressure"; }
	dmesg | grep -q 'Out of memory\|oom-kill' && die "$what: the OOM killer ran"
	[ "$(swapped_out)" -gt "$out0" ] || die "$what: nothing was swapped out (hog ${hog} MiB)"
	echo "ok $what: hog ${hog} MiB, swapped out $(($(swapped_out) - out0))," \
		"in $(($(swapped_in) - in0)) pages"
}

for spec in "raid5_ls 1" "raid6_zr 2"; do
	read -r type pd <<<"$spec"
	dmsetup create r45swap --table "$(mk_table "$type" "$pd" 0 $swap_sectors)" || die "create swap"
	dmsetup create r45data --table "$(mk_table "$type" "$pd" $data_off $data_sectors)" ||
		die "create data"
	mkswap /dev/mapper/r45swap >/dev/null || die "mkswap"
	swapon /dev/mapper/r45swap || die "swapon"
	run_pressure "$type"
	# The failure is found and acknowledged before the pressure starts:
	# held swap writes would wait for an acknowledging process that needs
	# memory itself (an event daemon that serves a swap array must be
	# mlocked, as mdmon is).
	fail_wrapper m1
	for d in r45swap r45data; do
		dd if=/dev/mapper/$d of=/dev/null bs=1M count=4 iflag=direct status=none
		h=$(health $d $N)
		[ "${h:1:1}" = D ] || die "$d: member 1 not failed: $(dmsetup status $d)"
		dmsetup message $d 0 allow_writes || die "allow_writes $d"
	done
	run_pressure "$type degraded"
	swapoff /dev/mapper/r45swap || die "swapoff"
	[ "$(health r45data $N)" = AD"$(printf 'A%.0s' $(seq $((N - 2))))" ] ||
		die "$type: health $(health r45data $N)"
	dmsetup remove r45swap && dmsetup remove r45data || die "remove"
	wrap_member m1 /dev/ram1
	for i in $(seq 0 $((N - 1))); do fill_dev "/dev/mapper/m$i" $mib /dev/zero; done
done
