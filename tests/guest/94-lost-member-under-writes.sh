#!/bin/bash
# kernels: 6.1
# cost: 48
# The scenario of issue 12's unexplained panic ("Fatal exception in
# interrupt" about 10 s after boot, once in four runs on 6.12), and
# variations of it: four 64 MiB members behind dm-linear, all holding the
# same random data, a RAID5 created with "sync" (the resync runs, 1 %
# bandwidth), statistics on, fio 4 KiB random writes at queue depth 8
# over 16 MiB at the middle of the array, then one member's linear table
# replaced by dm-error while the writes run, and everything read back
# and verified.  Each round varies the failed member, the moment of the
# failure and the cache size.  R45_HUNT_ROUNDS rounds (default 12 on the
# debug kernel, 2 elsewhere): on the debug kernel KASAN names any
# completion that touches freed memory.
. "$(dirname "$0")/lib.sh"
load_module
N=4
rounds=2
case $(uname -r) in *-r45debug) rounds=12 ;; esac
rounds=${R45_HUNT_ROUNDS:-$rounds}
per_dev=$((64 * 2048))
len=$((per_dev * (N - 1)))
make_ramdisks $N 64
fill_dev /dev/ram0 64 /dev/urandom
for i in 1 2 3; do
	dd if=/dev/ram0 of=/dev/ram$i bs=1M iflag=direct oflag=direct status=none ||
		die "copy ram0 to ram$i"
done
for i in $(seq 0 $((N - 1))); do wrap_member "m$i" "/dev/ram$i"; done
for r in $(seq "$rounds"); do
	k=$((r % N))
	stripes=$(((r % 3) * 200 - 1))
	[ "$stripes" -lt 0 ] && stripes=-1
	T="0 $len raid45 core 2 1024 sync raid5_ls 5 128 $stripes -1 -1 1 $N -1"
	for i in $(seq 0 $((N - 1))); do T+=" /dev/mapper/m$i 0"; done
	dmsetup create r45h --table "$T" || die "round $r: create"
	dmsetup message r45h 0 statistics on || die "statistics on"
	ack_failures r45h &
	acker=$!
	# the writes (verify headers, verified below) at a rate that keeps
	# them running well past the failure: 4096 writes at 300/s
	fio --name=hunt --filename=/dev/mapper/r45h --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randwrite --bs=4k --size=16m --offset=50% --rate_iops=300 \
		--allow_file_create=0 --verify=crc32c --do_verify=0 --minimal \
		>/tmp/fio.out 2>&1 &
	fiopid=$!
	sleep "$((r % 4)).$((RANDOM % 10))"
	kill -0 $fiopid 2>/dev/null || { cat /tmp/fio.out; die "round $r: fio ended early"; }
	fail_wrapper "m$k"
	wait $fiopid || { cat /tmp/fio.out; die "round $r: writes failed (member $k failed)"; }
	fio --name=hunt --filename=/dev/mapper/r45h --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randwrite --bs=4k --size=16m --offset=50% \
		--verify=crc32c --verify_only --minimal >/tmp/fio2.out 2>&1 ||
		{ cat /tmp/fio2.out; die "round $r: read back (member $k failed)"; }
	h=$(health r45h $N)
	[ "${h:$k:1}" = D ] || die "round $r: member $k not failed: $h"
	echo "ok round $r: member $k failed, health $h, $(dmsetup status r45h | cut -d' ' -f8-)"
	dmsetup remove r45h || die "round $r: remove"
	wait $acker
	# the member comes back with its old (now stale) contents: a new
	# array over it resyncs again from the same starting point
	wrap_member "m$k" "/dev/ram$k"
done
