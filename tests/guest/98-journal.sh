#!/bin/bash
# kernels: 7
# cost: 700
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

# Bad journal words and devices are refused and change nothing.
t6=$(mk raid6_zr $((N - 2)) journal_dev $J)
expect_fail "journal_mode writeback" dmsetup create r45j --table \
	"$(mk raid6_zr $((N - 2)) journal_dev $J journal_mode writeback)"
dmesg | tail -n 5 | grep -q "journal_mode writeback is not supported yet" ||
	die "writeback: no reason in the kernel log"
expect_fail "journal on a member" dmsetup create r45j --table "$(mk raid6_zr $((N - 2)) journal_dev /dev/ram0)"
dmsetup create jsmall --table "0 1024 linear $J 0" || die "jsmall"
expect_fail "journal too small" dmsetup create r45j --table "$(mk raid6_zr $((N - 2)) journal_dev /dev/mapper/jsmall)"
dmsetup remove jsmall
# a superblock with raid45's magic and a wrong checksum: refused, not
# taken for a new journal (that would lose what it holds)
dmsetup create r45j --table "$t6" && dmsetup remove r45j || die "create for the damage test"
printf '\xff' | dd of=$J bs=1 seek=40 conv=notrunc status=none
sync
before=$(dd if=$J bs=4096 count=1 iflag=direct status=none | md5sum)
expect_fail "damaged journal superblock" dmsetup create r45j --table "$t6"
[ "$(dd if=$J bs=4096 count=1 iflag=direct status=none | md5sum)" = "$before" ] ||
	die "a refused table changed the journal superblock"
fill_dev $J 1 /dev/zero
# an open journal (as a crash leaves it) of another geometry is refused:
# its records would be written to the wrong places
dmsetup create r45j --table "$t6" && dmsetup suspend r45j || die "create for the geometry test"
dd if=$J of=/tmp/jsb bs=4096 count=1 iflag=direct status=none
dmsetup remove r45j || die "remove for the geometry test"
dd if=/tmp/jsb of=$J bs=4096 count=1 oflag=direct status=none
[ "$(jsb_word 12 u4 4)" = 2 ] || die "the saved superblock is not open"
expect_fail "open journal of another geometry" dmsetup create r45j --table \
	"$(mk raid5_la $((N - 1)) journal_dev $J)"
dmesg | tail -n 5 | grep -q "open for another array geometry" || die "geometry: no reason logged"
dmsetup create r45j --table "$t6" || die "the same geometry takes it"
# a reload that shrinks the running array takes its open journal over
# (another per-member size: a fresh activation would refuse it)
ts=$(echo "$t6" | sed "s|^0 $((per_dev * (N - 2))) |0 $(((per_dev - 2048) * (N - 2))) |; s| journal_dev | shrink journal_dev |")
dmsetup suspend r45j && dmsetup load r45j --table "$ts" && dmsetup resume r45j ||
	die "shrinking reload with the journal"
[ "$(ext_word r45j 7)" = journal ] || die "status after the shrink: $(dmsetup status r45j)"
dmsetup remove r45j || die "remove after the shrink"
expect_fail "journal on the log device" dmsetup create r45j --table \
	"$(mk raid6_zr $((N - 2)) journal_dev $J | sed "s| core 2 512 nosync | disk 2 $J 512 |")"
fill_dev $J 1 /dev/zero

# The journal fails under writes.  Its ring turns to dm-error, its
# superblock still takes writes: the superblock says FAILED, writes go
# on unjournaled ("journal-failed"), the data stays right.  A reload with
# the journal back starts it anew ("journal").
for i in $(seq 0 $N); do fill_dev /dev/ram$i $mib /dev/zero; done
jt() { # <ring target words>: the journal device, superblock kept
	echo "0 8 linear $J 0
8 $((mib * 2048 - 8)) $*"
}
dmsetup create jw --table "$(jt linear $J 8)" || die "jw"
dmsetup create r45j --table "$(mk raid6_zr $((N - 2)) journal_dev /dev/mapper/jw)" ||
	die "create over jw"
run_fio --verify_fatal=1 --size=4m
dmsetup load jw --table "$(jt error)" && dmsetup suspend jw && dmsetup resume jw ||
	die "jw to error"
run_fio --verify_fatal=1 --size=4m --offset=4m
[ "$(ext_word r45j 7)" = journal-failed ] || die "status after the ring failed: $(dmsetup status r45j)"
[ "$(jsb_word 12 u4 4)" = 3 ] || die "superblock not FAILED: $(jsb_word 12 u4 4)"
dmsetup load jw --table "$(jt linear $J 8)" && dmsetup suspend jw && dmsetup resume jw ||
	die "jw back"
tbl=$(dmsetup table r45j)
dmsetup suspend r45j && dmsetup load r45j --table "$tbl" && dmsetup resume r45j ||
	die "reload with the journal back"
[ "$(ext_word r45j 7)" = journal ] || die "status after the reload: $(dmsetup status r45j)"
run_fio --verify_only --size=4m
run_fio --verify_only --size=4m --offset=4m
# the whole journal device fails: the superblock cannot say FAILED, so
# writes fail (md's rule; a later replay could write stale records over
# them), reads go on
dmsetup load jw --table "0 $((mib * 2048)) error" && dmsetup suspend jw && dmsetup resume jw ||
	die "jw all error"
if dd if=/dev/urandom of=/dev/mapper/r45j bs=4k count=1 seek=5000 oflag=direct status=none 2>/dev/null; then
	die "a write succeeded with a dead journal"
fi
[ "$(ext_word r45j 7)" = journal-dead ] || die "status, journal dead: $(dmsetup status r45j)"
run_fio --verify_only --size=4m
# a table without the journal takes over
dmsetup load r45j --table "$(mk raid6_zr $((N - 2)))" && dmsetup suspend r45j &&
	dmsetup resume r45j || die "reload without the journal"
[ "$(ext_word r45j 7)" = - ] || die "status without the journal: $(dmsetup status r45j)"
run_fio --verify_fatal=1 --size=4m --offset=8m
run_fio --verify_only --size=4m
dmsetup remove r45j && dmsetup remove jw || die "remove"
"$PARCHECK" -t raid6_zr -c 64 -o 2048 -n $((per_dev / 64)) \
	$(for i in $(seq 0 $((N - 1))); do echo /dev/ram$i; done) >/tmp/pc ||
	{ cat /tmp/pc; die "parity-check after the journal failures"; }
echo "ok journal failures: failed goes on, dead refuses writes, bad input refused"

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
