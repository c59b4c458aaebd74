#!/bin/bash
# kernels: 6.12
# cost: 29
# Writes let go before user space recorded a member failure keep their
# region dirty (md keeps the bitmap bits of writes to a degraded array).
# A plain suspend ends the hold without allow_writes: the held write goes
# to the members, degraded, and its region must stay out of sync in the
# disk log, so that an activation that brings the stale member back as
# current (user space never recorded the failure: a crash, say) resyncs
# that region instead of trusting parity computed without the member.
#  - member 1 fails, a full-row write is held, "dmsetup suspend" lets it
#    go: the sync count drops by the two regions written (before: it
#    stayed full), also after a resume (the disk log reads its bits);
#  - the array is removed, member 1 comes back with its stale contents,
#    the same table is loaded again (the log decides): that region is
#    resynced, and then the parity checker finds every stripe consistent
#    and the row reads back as written (parity of row 10 lives on member
#    1 in raid5_ls: without the resync that stripe stays inconsistent).
. "$(dirname "$0")/lib.sh"
load_module
N=4
per_dev=$((16 * 2048))
len=$((per_dev * (N - 1)))
fresh_members $N 17 1
wrap_member mL /dev/ram$N
mk_table() { # <log sync word or nothing>
	local t="0 $len raid45 disk $((2 + $#)) /dev/mapper/mL 256 $* raid5_ls 1 64 $N -1" i
	for i in $(seq 0 $((N - 1))); do t+=" /dev/mapper/m$i 2048"; done
	echo "$t"
}
# no sync word: the log decides ("nosync" would call every region in sync
# again at each resume)
dmsetup create r45u --table "$(mk_table)" || die "create"
wait_in_sync r45u $N 120
regions=$(sync_count r45u $N)
regions=${regions#*/}
fail_wrapper m1
dd if=/dev/mapper/r45u of=/dev/null bs=96k count=4 iflag=direct status=none
[ "$(health r45u $N)" = ADAA ] || die "member 1 not failed: $(dmsetup status r45u)"
[ "$(ext_word r45u 3)" = held ] || die "writes not held: $(dmsetup status r45u)"
# row 10 (96 KiB of data, chunk 32 KiB): parity on member 1
head -c 98304 /dev/urandom >/tmp/row
dd if=/tmp/row of=/dev/mapper/r45u bs=96k seek=10 oflag=direct status=none &
w=$!
sleep 1
kill -0 $w 2>/dev/null || die "the write was not held"
dmsetup suspend r45u || die "suspend"
wait $w || die "the held write failed after the suspend"
sc=$(sync_count r45u $N)
echo "after the suspend let the write go: $(dmsetup status r45u)"
# the row spans two regions (128 KiB each)
[ "${sc%/*}" = $((regions - 2)) ] ||
	die "sync count $sc at the suspend: the regions written while the failure was unrecorded were called in sync"
dmsetup resume r45u || die "resume"
sc=$(sync_count r45u $N)
[ "${sc%/*}" = $((regions - 2)) ] ||
	die "sync count $sc after the resume: the log forgot the regions"
# Issue 31, finding 5: the suspend let the writes go but acknowledged
# nothing: after the resume a new write is held again until user space
# names the failure (on 1057240 the suspend acknowledged it for good).
[ "$(ext_word r45u 3)" = held ] ||
	die "the suspend acknowledged the failure: $(dmsetup status r45u)"
# (row 10 again: its regions stay out of sync, the stale member below
# comes back as if no failure had been recorded)
dd if=/tmp/row of=/dev/mapper/r45u bs=96k seek=10 oflag=direct status=none &
w=$!
sleep 1
kill -0 $w 2>/dev/null || die "a write after the resume was not held"
# Issue 31, finding 4: allow_writes names what it acknowledges
for bad in 2 4 x -1 "1 9"; do
	# shellcheck disable=SC2086
	! dmsetup message r45u 0 allow_writes $bad 2>/dev/null ||
		die "allow_writes $bad accepted"
done
kill -0 $w 2>/dev/null || die "a refused allow_writes let the write go"
dmsetup message r45u 0 allow_writes 1 || die "allow_writes 1"
wait $w || die "the write held after the resume failed"
[ "$(ext_word r45u 3)" = writable ] || die "allow_writes 1: $(dmsetup status r45u)"
dmsetup remove r45u || die "remove"
# the member comes back stale, as if its failure had never been recorded
wrap_member m1 /dev/ram1
dmsetup create r45u --table "$(mk_table)" || die "create again"
# (the two regions resync in a moment: the proof is the parity below)
wait_in_sync r45u $N 120
dd if=/dev/mapper/r45u of=/tmp/back bs=96k skip=10 count=1 iflag=direct status=none ||
	die "read row 10"
cmp /tmp/back /tmp/row || die "row 10 does not read back as written"
dmsetup remove r45u || die "remove"
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) /dev/mapper/m0 /dev/mapper/m1 \
	/dev/mapper/m2 /dev/mapper/m3 >/tmp/pc || { cat /tmp/pc; die "inconsistent stripes"; }
echo "ok the unacknowledged write's region was resynced: $(cat /tmp/pc)"

# Issue 31, finding 4 on RAID6: a second failure after user space read the
# status (during the first one's hook, say) is not acknowledged by the
# acknowledgement of the first: "allow_writes 1" leaves writes held for
# member 3 (on 1057240 the bare form acknowledged both).
N=5
fresh_members $N 4
t6="0 $((3 * 4 * 2048)) raid45 core 2 64 nosync raid6_zr 1 64 $N -1"
for i in $(seq 0 $((N - 1))); do t6+=" /dev/mapper/m$i 0"; done
dmsetup create r456 --table "$t6" || die "create raid6"
fail_wrapper m1
dd if=/dev/mapper/r456 of=/dev/null bs=192k count=4 iflag=direct status=none
[ "$(health r456 $N)" = ADAAA ] || die "member 1 not failed: $(dmsetup status r456)"
[ "$(ext_word r456 3)" = held ] || die "raid6: writes not held: $(dmsetup status r456)"
fail_wrapper m3
dd if=/dev/mapper/r456 of=/dev/null bs=192k count=4 iflag=direct status=none
[ "$(health r456 $N)" = ADADA ] || die "member 3 not failed: $(dmsetup status r456)"
dmsetup message r456 0 allow_writes 1 || die "allow_writes 1 (raid6)"
[ "$(ext_word r456 3)" = held ] ||
	die "allow_writes 1 acknowledged member 3's failure too: $(dmsetup status r456)"
dmsetup message r456 0 allow_writes 3 || die "allow_writes 3 (raid6)"
[ "$(ext_word r456 3)" = writable ] || die "allow_writes 3: $(dmsetup status r456)"
dmsetup remove r456 || die "remove raid6"
echo "ok allow_writes <idx> acknowledges only the members it names"
