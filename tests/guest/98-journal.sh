#!/bin/bash
# kernels: 6.12
# cost: 120
# Issue 34, part 1: the write journal (write-through) in use.  RAID6 and
# RAID5 with journal_dev: fio verify with mixed sizes, the status says
# "journal", the table prints the journal words back and loads again,
# the raw members' parity right; the journal device holds raid45's
# superblock and md-format records.  Bad journal words are refused and
# change nothing; a journal that fails under writes makes the status say
# "journal-failed" and the data stays right.
. "$(dirname "$0")/lib.sh"
load_module
N=5
mib=20
per_dev=$(((mib - 2) * 2048))
make_ramdisks $((N + 1)) $mib
J=/dev/ram$N
mk() { # <type> <data members> [options]: the table over the ramdisks
	local type=$1 data=$2 t i
	shift 2
	t="0 $((per_dev * data)) raid45 core 2 512 nosync $type 1 64 $* $N -1"
	for i in $(seq 0 $((N - 1))); do t+=" /dev/ram$i 2048"; done
	echo "$t"
}
run_fio() { # <args...>
	fio --name=j --filename=/dev/mapper/r45j --direct=1 --ioengine=libaio --iodepth=8 \
		--rw=randwrite --bsrange=4k-256k --numjobs=2 --size=12m --offset_increment=14m \
		--verify=crc32c --minimal "$@" >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; die "fio $*"; }
}
jsb_word() { # <offset> <od type>: a field of the journal superblock
	dd if=$J bs=512 count=1 iflag=direct status=none | od -A n -j "$1" -N "${3:-8}" -t "$2" | tr -d ' '
}
for type in raid6_zr raid5_la; do
	data=$((N - 2))
	[ $type = raid5_la ] && data=$((N - 1))
	for i in $(seq 0 $N); do fill_dev /dev/ram$i $mib /dev/zero; done
	dmsetup create r45j --table "$(mk $type $data journal_dev $J journal_mode writethrough)" ||
		die "$type: create"
	[ "$(ext_word r45j 7)" = journal ] || die "$type: status: $(dmsetup status r45j)"
	dmsetup table r45j | grep -q " journal_dev [0-9:]* journal_mode writethrough $N -1 " ||
		die "$type: table: $(dmsetup table r45j)"
	[ "$(jsb_word 0 x8)" = 4c4e524a35345231 ] || die "$type: no journal superblock"
	[ "$(jsb_word 12 u4 4)" = 2 ] || die "$type: journal not open: $(jsb_word 12 u4 4)"
	run_fio --verify_fatal=1
	# records in md's format in the ring (r5l meta blocks)
	m=$(python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
data = os.read(fd, 32 << 20)
print(sum(1 for o in range(4096, len(data), 4096)
	  if data[o:o + 4] == bytes.fromhex("09c53364")))' $J)
	[ "$m" -gt 100 ] || die "$type: $m r5l meta blocks in the ring"
	tbl=$(dmsetup table r45j)
	dmsetup suspend r45j && dmsetup load r45j --table "$tbl" && dmsetup resume r45j ||
		die "$type: reload of the printed table"
	run_fio --verify_only
	dmsetup remove r45j || die "$type: remove"
	[ "$(jsb_word 12 u4 4)" = 1 ] || die "$type: journal not closed after remove"
	"$PARCHECK" -t $type -c 64 -o 2048 -n $((per_dev / 64)) \
		$(for i in $(seq 0 $((N - 1))); do echo /dev/ram$i; done) >/tmp/pc ||
		{ cat /tmp/pc; die "$type: parity-check"; }
done
echo "ok journal: raid6 and raid5 verified, parity right"

# The write hole closed for RAID6 (issue 34): crash-harness.py crashes
# the array mid-writes (members and the journal each keep their own
# prefix of the writes in flight), activates it with one, then two
# members missing: the disk log's dirty regions do not refuse it (the
# journal vouches), the journal is replayed, and every block reads back
# its last acknowledged contents or the one in flight, never an EIO.
points=${CRASH_POINTS:-20}
crash_case() { # <lost> <type> <members> <seed>
	make_ramdisks $(($3 + 2)) 8
	CRASH_LOST=$1 python3 -u "$(dirname "$0")/crash-harness.py" journal "$2" "$3" \
		"$points" "$4" >"${SHARE:-/tmp}/ch.out" 2>&1
	rc=$?
	cat "${SHARE:-/tmp}/ch.out"
	[ $rc = 0 ] || die "journal $*: $(tail -n 1 "${SHARE:-/tmp}/ch.out")"
	cleanup_all
}
crash_case 1 raid6_zr 5 11
crash_case 2 raid6_zr 5 12
echo "ok journal crash: raid6 with one and two members lost, nothing wrong"
