#!/bin/bash
# kernels: 6.1 7
# cost: 32
# Issue 27, finding 7: a read-only table writes nothing, to the members
# or to the log: no resync or rebuild, no write-back of a block rebuilt
# after a read error, no write of the disk log (dm-log's disk log writes
# its header at every resume, so a read-only table reads the log's bits
# itself), and sync actions are refused.  Proven with dm-log-writes under
# every member and under the log device: their logs stay empty.  On
# 73011ff the disk log's header was written at the resume and the
# resync ran.
#  - a RAID5 array with a disk log is written read-write, its resync
#    frozen part way: the log holds regions in sync and regions not;
#  - the same table loaded read-only over log-writes wrappers: the same
#    sync count, nothing runs, the data reads back (member 2 has a bad
#    chunk in a region in sync: its block is rebuilt from parity and
#    served, not written back), check/repair/resync refused, suspend,
#    resume, remove: every log-writes log has 0 entries;
#  - a read-only table with a core log and "sync" resyncs nothing either.
. "$(dirname "$0")/lib.sh"
load_module
N=4
mib=17
sz=$((mib * 2048))
per_dev=$((16 * 2048))
len=$((per_dev * (N - 1)))
make_ramdisks 10 $mib	# 0-3 members, 4 log, 5-9 log-writes logs
for i in $(seq 0 9); do fill_dev /dev/ram$i $mib /dev/zero; done
mk_table() { # <log device> <member devices...>
	local t="0 $len raid45 disk 2 $1 256 raid5_ls 5 64 -1 -1 -1 100 $N -1" d
	shift
	for d in "$@"; do t+=" $d 2048"; done
	echo "$t"
}
regions=$((len / 256))
# member 0's reads slowed: the resync is still running when frozen
dmsetup create d0 --table "0 $sz delay /dev/ram0 0 20" || die "delay"
dmsetup create r45w --table "$(mk_table /dev/ram4 /dev/mapper/d0 /dev/ram1 /dev/ram2 /dev/ram3)" ||
	die "create"
for i in $(seq 300); do
	sc=$(sync_count r45w $N)
	[ "${sc%/*}" -ge $((regions / 4)) ] && break
	sleep 0.05
done
dmsetup message r45w 0 frozen || die "frozen"
sleep 1
head -c $((len * 512)) /dev/urandom >/tmp/data
dd if=/tmp/data of=/dev/mapper/r45w bs=1M oflag=direct status=none || die "write"
sc=$(sync_count r45w $N)
dmsetup remove r45w || die "remove"
dmsetup remove d0 || die "remove delay"
[ "${sc%/*}" -gt 0 ] && [ "${sc%/*}" -lt $regions ] || die "the log is not part synced: $sc"
echo "read-write activation left $sc regions in sync"

# member 2's chunk 0 (row 0, region 0: in sync) cannot be read
printf '%s\n' "0 2048 linear /dev/ram2 0" "2048 64 error" \
	"$((2048 + 64)) $((sz - 2048 - 64)) linear /dev/ram2 $((2048 + 64))" |
	dmsetup create e2 || die "e2"
devs=(/dev/ram0 /dev/ram1 /dev/mapper/e2 /dev/ram3 /dev/ram4)
for i in 0 1 2 3 4; do
	dmsetup create lw$i --table "0 $sz log-writes ${devs[i]} /dev/ram$((5 + i))" ||
		die "log-writes $i"
done
entries() { dmsetup status "$1" | awk '{ print $4 }'; }
dmsetup create --readonly r45ro --table "$(mk_table /dev/mapper/lw4 /dev/mapper/lw0 \
	/dev/mapper/lw1 /dev/mapper/lw2 /dev/mapper/lw3)" || die "create read-only"
[ "$(sync_count r45ro $N)" = "$sc" ] ||
	die "read-only: sync count $(sync_count r45ro $N), the log said $sc"
[ "$(dmsetup table r45ro | awk '{ print $4, $5 }')" = "disk 2" ] ||
	die "read-only: table $(dmsetup table r45ro)"
dmsetup status r45ro | grep -q " 3 disk [0-9]*:[0-9]* A " ||
	die "read-only: log status $(dmsetup status r45ro)"
for w in check repair resync recover; do
	expect_fail "read-only: $w" dmsetup message r45ro 0 $w
done
dmsetup message r45ro 0 idle || die "read-only: idle"
expect_fail "read-only: a write" dd if=/dev/zero of=/dev/mapper/r45ro bs=4k count=1 \
	oflag=direct status=none
cmp -n $((len * 512)) /tmp/data /dev/mapper/r45ro || die "read-only: data differs"
sleep 2
[ "$(sync_count r45ro $N)" = "$sc" ] && [ "$(sync_action r45ro)" = idle ] ||
	die "read-only: work started: $(dmsetup status r45ro)"
[ "$(health r45ro $N)" = AAAA ] || die "read-only: $(dmsetup status r45ro)"
dmsetup suspend r45ro && dmsetup resume r45ro || die "read-only: suspend/resume"
dmsetup remove r45ro || die "remove read-only"
for i in 0 1 2 3 4; do
	n=$(entries lw$i)
	[ "$n" = 0 ] || die "read-only: $n writes reached log-writes device lw$i (${devs[i]})"
done
dmesg | grep -q "read error rebuilt from parity, not written back" ||
	die "read-only: the unreadable chunk was not rebuilt"

# core log, "sync": read-only resyncs nothing and writes nothing
t="0 $len raid45 core 2 256 sync raid5_ls 5 64 -1 -1 -1 100 $N -1"
for i in 0 1 2 3; do t+=" /dev/mapper/lw$i 2048"; done
dmsetup create --readonly r45ro --table "$t" || die "create read-only, core log"
sleep 2
[ "$(sync_count r45ro $N)" = "0/$regions" ] && [ "$(sync_action r45ro)" = idle ] ||
	die "read-only, core log: $(dmsetup status r45ro)"
dmsetup remove r45ro || die "remove"
for i in 0 1 2 3; do
	n=$(entries lw$i)
	[ "$n" = 0 ] || die "read-only, core log: $n writes reached lw$i"
done
echo "ok read-only tables wrote nothing ($sc regions in sync from the log)"
