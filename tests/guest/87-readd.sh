#!/bin/bash
# kernels: 6.12
# cost: 41
# Issue 28, item 3: a member that came back (a path lost for a while) is
# re-added with "readd <idx>" and rebuilt only in the regions written
# while it was out (md's bitmap re-add), not whole.
#  - RAID5, disk log, 96 regions; member 1 fails (its wrapper turns to
#    dm-error; a write finds it), writes are allowed, 5 more regions are
#    written while it is out, the table is reloaded meanwhile (the record
#    is carried over);
#  - the member comes back: "readd 1" is refused while the device is not
#    suspended, accepted while it is; the sync count drops by exactly the
#    6 regions and the rebuild works exactly those (kernel log);
#  - data and the raw members' parity right;
#  - refusals: a member that is not failed; a member re-added while
#    another is being rebuilt (dev_to_init); while regions are out of
#    sync for another reason (a resync frozen half way); a member the
#    table names missing.
. "$(dirname "$0")/lib.sh"
load_module
N=4
per_dev=$((8 * 2048))
len=$((per_dev * (N - 1)))
fresh_members $N 9 1
wrap_member mL /dev/ram$N
fill_dev /dev/mapper/mL 9 /dev/zero
mk_table() { # <dev_to_init>
	local t="0 $len raid45 disk 2 /dev/mapper/mL 512 raid5_ls 1 64 $N ${1:--1}" i
	for i in $(seq 0 $((N - 1))); do t+=" /dev/mapper/m$i 2048"; done
	echo "$t"
}
regions=$((len / 512))
dmsetup create r45a --table "$(mk_table)" || die "create"
wait_in_sync r45a $N 120
head -c $((len * 512)) /dev/urandom >/tmp/data
dd if=/tmp/data of=/dev/mapper/r45a bs=96k oflag=direct status=none || die "write"
expect_fail "readd of a live member" dmsetup message r45a 0 readd 1
# put <region>: 4 KiB of new data into a region (512 array sectors)
put() {
	head -c 4096 /dev/urandom >/tmp/piece
	dd if=/tmp/piece of=/dev/mapper/r45a bs=512 seek=$(($1 * 512 + 64)) oflag=direct \
		status=none || die "write to region $1"
	dd if=/tmp/piece of=/tmp/data bs=512 seek=$(($1 * 512 + 64)) conv=notrunc status=none
}
fail_wrapper m1
# a write to region 0 on member 1 (row 0, chunk 1) finds the failure;
# its completion is held until allow_writes
put 0 &
w=$!
for i in $(seq 50); do [ "$(health r45a $N)" = ADAA ] && break; sleep 0.1; done
[ "$(health r45a $N)" = ADAA ] || die "member 1 not failed: $(dmsetup status r45a)"
dmesg | grep -q 'member 1 failed: writes are held until user space records the failure and sends "dmsetup message r45a 0 allow_writes 1"' ||
	die "no log line says that writes are held and how to release them"
dmsetup message r45a 0 allow_writes 1 || die "allow_writes 1"
wait $w || die "the write that failed member 1"
# five more regions written while member 1 is out: six in all
for r in 3 7 8 20 41; do put $r; done
# a reload of the same table keeps the record
dmsetup load r45a --table "$(mk_table)" && dmsetup suspend r45a && dmsetup resume r45a ||
	die "reload"
[ "$(health r45a $N)" = ADAA ] || die "member 1 not failed after the reload"
wrap_member m1 /dev/ram1	# it is back, with what it held
expect_fail "readd while not suspended" dmsetup message r45a 0 readd 1
dmsetup suspend r45a || die "suspend"
dmsetup message r45a 0 readd 1 || die "readd 1 refused: $(dmesg | tail -n 3)"
dmsetup resume r45a || die "resume"
sc=$(sync_count r45a $N)
echo "after readd: $(dmsetup status r45a)"
[ "$sc" = "$((regions - 6))/$regions" ] || [ "$(health r45a $N)" = AAAA ] ||
	die "sync count $sc after readd: not the 6 regions written while member 1 was out"
wait_in_sync r45a $N 120
[ "$(health r45a $N)" = AAAA ] || die "after the rebuild: $(dmsetup status r45a)"
dmesg | grep -q "recover finished: 6 of $regions regions worked on" ||
	die "the rebuild did not work exactly 6 regions: $(dmesg | grep 'recover finished' | tail -n 1)"
cmp /tmp/data /dev/mapper/r45a || die "data differs after the re-add"
# refusals: the member is alive now
expect_fail "readd of a live member" dmsetup message r45a 0 readd 1
dmsetup remove r45a || die "remove"
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) /dev/mapper/m0 /dev/mapper/m1 \
	/dev/mapper/m2 /dev/mapper/m3 >/tmp/pc || { cat /tmp/pc; die "parity-check"; }

# member 3 rebuilt (dev_to_init) while member 1 fails and comes back:
# only one rebuild at a time.  (RAID5 cannot rebuild with another member
# out: member 1's failure stops the rebuild; the readd is refused.)
retable_member m0 "0 $((9 * 2048)) delay /dev/ram0 0 30"
dmsetup create r45a --table "$(mk_table 3)" || die "create rebuild"
fail_wrapper m1
put 0 &
w=$!
for i in $(seq 50); do [ "$(health r45a $N)" = ADAAi ] && break; sleep 0.1; done
[ "$(health r45a $N)" = ADAAi ] || die "member 1 not failed: $(dmsetup status r45a)"
dmsetup message r45a 0 allow_writes || die "allow_writes"
wait $w
wrap_member m1 /dev/ram1
dmsetup suspend r45a || die "suspend"
expect_fail "readd during another rebuild" dmsetup message r45a 0 readd 1
dmsetup resume r45a
dmsetup remove r45a || die "remove"
retable_member m0 "0 $((9 * 2048)) linear /dev/ram0 0"

# regions out of sync for another reason (a resync frozen half way): the
# rebuild would take member 1's blocks there from parity; and a member
# the table names missing cannot be taken back
fill_dev /dev/mapper/mL 9 /dev/zero
retable_member m0 "0 $((9 * 2048)) delay /dev/ram0 0 30"
dmsetup create r45a --table "$(mk_table)" || die "create resyncing"
sleep 1
dmsetup message r45a 0 frozen || die "frozen"
fail_wrapper m1
put 0 &
w=$!
for i in $(seq 50); do [ "$(health r45a $N)" = ADAA ] && break; sleep 0.1; done
dmsetup message r45a 0 allow_writes
wait $w
wrap_member m1 /dev/ram1
dmsetup suspend r45a || die "suspend"
expect_fail "readd with regions out of sync for another reason" dmsetup message r45a 0 readd 1
dmesg | tail -n 5 | grep -q "out of sync for another reason" || die "no reason given"
t=$(mk_table | sed 's| /dev/mapper/m1 2048| - -|')
dmsetup load r45a --table "$t" && dmsetup resume r45a || die "reload with member 1 missing"
dmsetup suspend r45a || die "suspend"
expect_fail "readd of a member the table names missing" dmsetup message r45a 0 readd 1
dmsetup resume r45a
dmsetup remove r45a || die "remove"
retable_member m0 "0 $((9 * 2048)) linear /dev/ram0 0"
echo "ok readd: 6 of $regions regions rebuilt; refusals refused"
