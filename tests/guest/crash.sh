#!/bin/bash
# cost: 92
# The disk dirty log across a clean deactivation and a hard power-off.
# Members and log are files in the share's persist/ folder (they outlive
# the guest), attached as loop devices.  Run by scripts/check in two
# boots of the same kernel:
#   crash.sh write   create (nosync over zeroed members: consistent),
#                    deactivate cleanly, reactivate: no resync needed;
#                    then random writes plus a writer of flushed blocks,
#                    and a hard power-off (sysrq o) in the middle.
#   crash.sh verify  reactivate: only the dirty regions are resynced
#                    (fewer than all, more than none), parity is right
#                    on every stripe, every acknowledged flushed block
#                    holds its data.
. "$(dirname "$0")/lib.sh"
P=$SHARE/persist
FW=$(dirname "$0")/flushed-writes.py
N=4
MIB=16
RS=256
per_dev=$(((MIB - 1) * 2048))
len=$((per_dev * (N - 1)))
nr_regions=$((len / RS))
half=$((len * 512 / 2))
L=()

attach() {
	local i
	modprobe loop || die "no loop driver"
	for i in $(seq 0 $((N - 1))); do
		L[i]=$(losetup -f --show "$P/m$i") || die "losetup m$i"
	done
	LOG=$(losetup -f --show "$P/log") || die "losetup log"
}
table() { # <log words>
	local t="0 $len raid45 $1 raid5_ls 1 64 $N -1" d
	for d in "${L[@]}"; do t+=" $d 2048"; done
	echo "$t"
}
in_sync_now() {
	local sc
	sc=$(sync_count r45d $N)
	[ "${sc%/*}" = "${sc#*/}" ] || die "$1: $(dmsetup status r45d)"
}

load_module
case "$1" in
write)
	rm -rf "$P"
	mkdir -p "$P" || die "no persist folder"
	for i in $(seq 0 $((N - 1))); do truncate -s ${MIB}M "$P/m$i"; done
	truncate -s 1M "$P/log"
	attach
	dmsetup create r45d --table "$(table "disk 3 $LOG $RS nosync")" || die "create"
	in_sync_now "nosync array not in sync"
	dd if=/dev/urandom of=/dev/mapper/r45d bs=1M count=8 oflag=direct status=none || die "dd"
	dmsetup remove r45d || die "remove"
	dmsetup create r45d --table "$(table "disk 2 $LOG $RS")" || die "reactivate"
	in_sync_now "a clean deactivation left regions to resync"
	dmsetup table r45d | grep -q " disk 2 $(basename "$LOG" | sed 's/loop/7:/') $RS " ||
		die "table does not name the disk log: $(dmsetup table r45d)"
	echo "ok clean reactivation: $(sync_count r45d $N)"
	fio --name=crash --filename=/dev/mapper/r45d --direct=1 --ioengine=libaio \
		--iodepth=16 --rw=randwrite --bsrange=4k-64k --size=$((half >> 20))m \
		--time_based --runtime=600 >/dev/null 2>&1 &
	"$FW" write /dev/mapper/r45d $half 100000 "$P/acked" &
	sleep 8
	[ -s "$P/acked" ] || die "no flushed write was acknowledged"
	echo "powering off hard after $(wc -l < "$P/acked") flushed blocks"
	touch "$P/powered-off"
	sync
	echo o > /proc/sysrq-trigger
	sleep 60
	die "still running after sysrq o"
	;;
verify)
	[ -f "$P/powered-off" ] || die "the first boot never reached its power-off"
	attach
	dmsetup create r45d --table "$(table "disk 2 $LOG $RS")" || die "create after crash"
	echo "after the crash: $(dmsetup status r45d)"
	wait_in_sync r45d $N 900
	worked=$(dmesg | sed -n 's/.*resync finished: \([0-9]*\) of.*/\1/p' | tail -n 1)
	echo "resync worked on ${worked:-no} of $nr_regions regions"
	[ -n "$worked" ] && [ "$worked" -gt 0 ] && [ "$worked" -lt "$nr_regions" ] ||
		die "expected a resync of some but not all regions"
	"$FW" check /dev/mapper/r45d $half "$P/acked" || die "a flushed block was lost"
	dmsetup remove r45d || die "remove"
	"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) "${L[@]}" ||
		die "bad stripes after the crash resync"
	dmsetup create r45d --table "$(table "disk 2 $LOG $RS")" || die "reactivate"
	in_sync_now "resync not remembered by the disk log"
	dmsetup remove r45d
	echo "ok crash recovery"
	;;
*)
	die "usage: crash.sh write|verify"
	;;
esac
