#!/bin/bash
# kernels: 6.12
# cost: 27
# Issue 27, finding 5: a suspend waits for the resync's step, whose
# stripes wait for member I/O.  A member that stops answering (here: its
# dm wrapper suspended with --noflush, which queues its I/O) held
# "dmsetup suspend" in D state forever on 73011ff, with dm's suspend
# lock.  Now the wait ends on SIGKILL and the array runs on:
#  A. with an application write stuck on that member too, dm fails the
#     suspend (the signal ends its wait for the write): the device stays
#     ACTIVE, and once the member answers the write completes, the
#     resync finishes and the data verifies;
#  B. with only the resync stuck, dm completes the suspend (nothing of
#     the application is in flight), but the array's resync went on:
#     once the member answers and the device is resumed, it finishes.
# Then a plain suspend and resume still work.
. "$(dirname "$0")/lib.sh"
load_module
N=4
mib=24
per_dev=$(((mib - 1) * 2048))
len=$((per_dev * (N - 1)))
state() { dmsetup info "$1" | awk '/^State:/ { print $2 }'; }

# start <name>: a fresh array resyncing slowly (member 0's reads take
# 100 ms), with member 1 behind a linear wrapper
start() {
	local t i
	cleanup_all
	fresh_members $N $mib
	retable_member m0 "0 $((mib * 2048)) delay /dev/ram0 0 100"
	t="0 $len raid45 core 2 256 sync raid5_ls 5 64 -1 -1 -1 100 $N -1"
	for i in $(seq 0 $((N - 1))); do t+=" /dev/mapper/m$i 2048"; done
	dmsetup create "$1" --table "$t" || die "create $1"
	sleep 1
	[ "$(sync_action "$1")" = resync ] || die "no resync running: $(dmsetup status "$1")"
}

# kill_suspend <name>: suspend it in the background while member 1 does
# not answer, SIGKILL the suspend, which must be gone within 10 s
kill_suspend() {
	local pid i
	dmsetup suspend "$1" &
	pid=$!
	sleep 2
	kill -0 $pid 2>/dev/null || die "the suspend did not wait for the stuck member"
	kill -9 $pid
	for i in $(seq 100); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		grep State /proc/$pid/status >&2
		dmsetup resume m1	# let it end before the test fails
		die "the suspend is still there 10 s after SIGKILL"
	fi
	wait $pid 2>/dev/null
	echo "suspend killed: $1 is $(state "$1")"
}

# A: an application write stuck on member 1 as well
start r45k
dmsetup suspend --noflush m1 || die "suspend m1"
head -c $((3 * 64 * 512)) /dev/urandom >/tmp/row
dd if=/tmp/row of=/dev/mapper/r45k bs=96k seek=50 oflag=direct status=none &
w=$!
sleep 0.5
kill_suspend r45k
[ "$(state r45k)" = ACTIVE ] || die "A: not active after the killed suspend"
dmsetup resume m1 || die "resume m1"
wait $w || die "A: the stuck write failed"
retable_member m0 "0 $((mib * 2048)) linear /dev/ram0 0"
wait_in_sync r45k $N 300
dd if=/dev/mapper/r45k of=/tmp/back bs=96k skip=50 count=1 iflag=direct status=none
cmp /tmp/back /tmp/row || die "A: the write does not read back"
dmsetup suspend r45k && dmsetup resume r45k || die "A: suspend/resume afterwards"
dmsetup remove r45k || die "remove"
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) /dev/mapper/m0 /dev/mapper/m1 \
	/dev/mapper/m2 /dev/mapper/m3 >/tmp/pc || { cat /tmp/pc; die "A: parity-check"; }

# B: only the resync stuck
start r45k
dmsetup suspend --noflush m1 || die "suspend m1"
sleep 0.5
kill_suspend r45k
dmsetup resume m1 || die "resume m1"
retable_member m0 "0 $((mib * 2048)) linear /dev/ram0 0"
[ "$(state r45k)" = ACTIVE ] || dmsetup resume r45k || die "B: resume"
wait_in_sync r45k $N 300
dmsetup suspend r45k && dmsetup resume r45k || die "B: suspend/resume afterwards"
dmsetup remove r45k || die "remove"
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) /dev/mapper/m0 /dev/mapper/m1 \
	/dev/mapper/m2 /dev/mapper/m3 >/tmp/pc || { cat /tmp/pc; die "B: parity-check"; }
echo "ok killed suspends: $(cat /tmp/pc)"
