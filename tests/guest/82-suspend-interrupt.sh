#!/bin/bash
# kernels: 6.1 7
# cost: 60
# An interrupted suspend: dm undoes presuspend without a resume
# (presuspend_undo), so the array must run on as if resumed.  Member 0
# sits behind dm-delay, so that "dmsetup suspend" waits for in-flight
# writes long enough to be interrupted by a signal.  Afterwards the device
# is active, the resync goes on, the writes verify, and a real suspend
# and resume still work.
. "$(dirname "$0")/lib.sh"
load_module
N=4
mib=24
per_dev=$(((mib - 1) * 2048))
len=$((per_dev * (N - 1)))
make_ramdisks $N $mib
for i in $(seq 0 $((N - 1))); do fill_dev "/dev/ram$i" $mib /dev/urandom; done
dmsetup create slow0 --table "0 $((mib * 2048)) delay /dev/ram0 0 300" || die "dm-delay"
T="0 $len raid45 core 2 256 sync raid5_ls 5 64 -1 -1 -1 100 $N -1 /dev/mapper/slow0 2048"
for i in $(seq 1 $((N - 1))); do T+=" /dev/ram$i 2048"; done
dmsetup create r45i --table "$T" || die "create"
state() { dmsetup info r45i | awk '/^State:/ { print $2 }'; }
fio --name=si --filename=/dev/mapper/r45i --direct=1 --ioengine=libaio --iodepth=8 \
	--rw=randwrite --bs=4k --numjobs=2 --size=4m --offset_increment=16m \
	--verify=crc32c --verify_fatal=1 --minimal \
	>/tmp/fio.out 2>&1 &
fiopid=$!
sleep 2
interrupted=0
for try in $(seq 8); do
	# dmsetup blocks signals around its ioctls: dmctl.py is interruptible
	r=$(echo "suspend-alarm r45i 0.2" | python3 "$(dirname "$0")/dmctl.py")
	echo "try $try: $r, state $(state)"
	if [ "$r" = "err EINTR" ] && [ "$(state)" = ACTIVE ]; then
		interrupted=1
		break
	fi
	dmsetup resume r45i || die "resume after an uninterrupted suspend"
done
[ $interrupted = 1 ] || die "no suspend could be interrupted in $try tries"
echo "suspend interrupted on try $try: state $(state)"
# the resync goes on after the interrupted suspend
sc0=$(sync_count r45i $N)
sleep 4
sc1=$(sync_count r45i $N)
[ "${sc1%/*}" -gt "${sc0%/*}" ] || [ "${sc1%/*}" = "${sc1#*/}" ] ||
	die "resync stopped after an interrupted suspend: $sc0 -> $sc1 ($(dmsetup status r45i))"
[ "$(sync_action r45i)" != idle ] || [ "${sc1%/*}" = "${sc1#*/}" ] ||
	die "sync action idle with regions out of sync: $(dmsetup status r45i)"
echo "resync after the interrupted suspend: $sc0 -> $sc1"
wait $fiopid || { cat /tmp/fio.out; die "fio verify after an interrupted suspend"; }
# a full suspend and resume still work
dmsetup suspend r45i || die "suspend"
[ "$(state)" = SUSPENDED ] || die "not suspended"
dmsetup resume r45i || die "resume"
wrap_member slow0 /dev/ram0	# no more delay: let the resync finish
wait_in_sync r45i $N 600
fio --name=si --filename=/dev/mapper/r45i --direct=1 --ioengine=libaio --iodepth=8 \
	--rw=randwrite --bs=4k --numjobs=2 --size=4m --offset_increment=16m \
	--verify=crc32c --verify_only --minimal >/tmp/fio.out 2>&1 ||
	{ cat /tmp/fio.out; die "verify_only"; }
dmsetup remove r45i
echo "ok interrupted suspend"
