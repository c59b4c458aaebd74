#!/bin/bash
# kernels: 6.1 7
# cost: 45
# Read errors (issue 11, finding 3; md's rule: a block that cannot be read
# is rebuilt from the others and written back to its member, which remaps
# the sector; only a failing rewrite, or too many errors, fail a member).
# Member 1 is a scsi_debug disk whose medium errors (opts=2,
# medium_error_start/count) make a range unreadable; scsi_debug keeps
# failing reads there after a rewrite, so the test switches the errors off
# itself before it looks at what was written.
#  1. Two blocks of member 1 are zeroed behind the array's back and made
#     unreadable: reading the array returns the data written (rebuilt from
#     parity), member 1 stays A, the kernel log counts exactly 2 corrected
#     errors (each block is read again alone before it counts as bad),
#     and once readable again the two blocks hold the right data (parity
#     checker: no bad stripe).
#  2. Member 0 is rebuilt while a block of member 1 in row 9 cannot be
#     read: the rebuild reports that stripe and stops short, no member is
#     failed, every read returns the data written or an error, and only
#     the 64 KiB blocks over that stripe fail.
#  3. The write-back of a repaired block outlives the read it was rebuilt
#     for (no write batch waits for it): member 1's writes are held 5 s by
#     dm-delay (its flushes are not, so no flush can be what waits); the
#     block is seen still unwritten on the member when the read returns,
#     and must hold its data once `dmsetup suspend` returns.  With the
#     waits taken out (r45_wait_rewrites) this failed on 6.12: the suspend
#     returned at once, the block was still zero, and the write-back's
#     completion later oopsed in the destroyed array.  The same for
#     `dmsetup remove` (postsuspend runs in it too); there the teardown's
#     wait for idle stripes would also keep the data check passing, and a
#     missing wait shows as the oops (the harness fails on it).
. "$(dirname "$0")/lib.sh"
load_module
N=4
per_dev=$((16 * 2048))
len=$((per_dev * (N - 1)))
sdp=/sys/bus/pseudo/drivers/scsi_debug
mp=/sys/module/scsi_debug/parameters

# no udev in the guest: the disk driver is loaded by hand
modprobe sd_mod || die "modprobe sd_mod"
modprobe scsi_debug dev_size_mb=20 delay=0 opts=0 || die "modprobe scsi_debug"
trap 'echo 0 > $sdp/opts 2>/dev/null; dmsetup remove_all --force >/dev/null 2>&1; rmmod scsi_debug 2>/dev/null' EXIT
sd=
for i in $(seq 150); do
	for b in /sys/block/sd*; do
		[ -e "$b/device/model" ] && grep -q scsi_debug "$b/device/model" && sd=${b##*/}
	done
	[ -n "$sd" ] && [ -b "/dev/$sd" ] && break
	sleep 0.2
done
[ -n "$sd" ] && [ -b "/dev/$sd" ] || die "no scsi_debug disk: $(ls /sys/block; ls -R $sdp | head -30)"
[ -w $mp/medium_error_start ] || die "scsi_debug medium_error_start is not writable"

medium_errors() { # <first sector> <count>, or "off"
	if [ "$1" = off ]; then
		echo 0 > $sdp/opts
		return
	fi
	echo "$1" > $mp/medium_error_start
	echo "$2" > $mp/medium_error_count
	echo 2 > $sdp/opts
}
mk_table() { # <dev_to_init>
	local t="0 $len raid45 core 2 1024 nosync raid5_ls 1 64 $N $1" i
	for i in $(seq 0 $((N - 1))); do t+=" /dev/mapper/m$i 2048"; done
	echo "$t"
}
corrected() { # the kernel log's count of corrected read errors
	dmesg | sed -n 's/.*read error at sector .* corrected (\([0-9]*\) so far).*/\1/p' | tail -n1
}
devs=(/dev/mapper/m0 /dev/mapper/m1 /dev/mapper/m2 /dev/mapper/m3)

fresh_members $N 17
fill_dev "/dev/$sd" 20 /dev/zero
wrap_member m1 "/dev/$sd"
dmsetup create r45e --table "$(mk_table -1)" || die "create"
head -c $((len * 512)) /dev/urandom > /tmp/ref
dd if=/tmp/ref of=/dev/mapper/r45e bs=1M oflag=direct status=none || die "write"
# raid5_ls, 4 members: in row 5 parity is on member 2 and member 1 holds
# the third data chunk (array sector 5 * 192 + 128); its blocks 1 and 2
# (member sectors 328..343, device sectors 2376..2391) are zeroed
dd if=/dev/zero of="/dev/$sd" bs=512 seek=2376 count=16 oflag=direct conv=notrunc status=none ||
	die "zeroing member 1's blocks"
dmsetup message r45e 0 stripe_cache set 8 && dmsetup message r45e 0 stripe_cache set 80 ||
	die "stripe_cache"
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) "${devs[@]}" >/tmp/pc &&
	die "the zeroed blocks are not visible to parity-check"
medium_errors 2376 16
dd if="/dev/$sd" of=/dev/null bs=4096 skip=$((2376 / 8)) count=1 iflag=direct status=none 2>/dev/null &&
	die "scsi_debug did not fail a read of the bad range"
before=$(corrected)
dd if=/dev/mapper/r45e bs=1M iflag=direct status=none | cmp - /tmp/ref ||
	die "read through the array differs from what was written"
h=$(health r45e $N)
[ "$h" = AAAA ] || die "health $h after read errors, expected AAAA"
after=$(corrected)
[ -n "$after" ] && [ "$after" -eq $((${before:-0} + 2)) ] ||
	die "corrected read errors: before ${before:-none}, after ${after:-none}, expected 2 more"
[ "$(ext_word r45e 4)" = 2 ] || die "status does not count 2 repaired read errors: $(dmsetup status r45e)"
medium_errors off
dd if="/dev/$sd" bs=512 skip=2376 count=16 iflag=direct status=none > /tmp/blk || die "raw read"
dd if=/tmp/ref bs=512 skip=$((5 * 192 + 128 + 8)) count=16 status=none | cmp - /tmp/blk ||
	die "the unreadable blocks were not rewritten with their data"
dmsetup remove r45e || die "remove"
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) "${devs[@]}" >/tmp/pc ||
	{ cat /tmp/pc; die "bad stripes after the repair"; }
echo "ok read errors repaired from parity: health $h, corrected ${before:-0} -> $after, $(cat /tmp/pc)"

# 2. a read error on member 1 while member 0 is rebuilt
fill_dev /dev/ram0 17 /dev/zero
# row 9: parity on member 2 again; member sector 584 (device 2632)
medium_errors 2632 8
dmsetup create r45e --table "$(mk_table 0)" || die "create for rebuild"
for i in $(seq 300); do
	dmesg | grep -q 'recover stopped with' && break
	sleep 0.2
done
dmesg | grep 'recover stopped with' || die "the rebuild did not report the unreadable stripe: $(dmsetup status r45e)"
h=$(health r45e $N)
case $h in *D*) die "a member failed after a read error during the rebuild: $h" ;; esac
"$(dirname "$0")/read-check.py" /dev/mapper/r45e /tmp/ref "$len" --need-ok >/tmp/rc ||
	{ cat /tmp/rc; die "reads during the rebuild returned wrong data or none failed"; }
failed=$(awk '{ print $5 }' /tmp/rc)
[ "$failed" -le 2 ] || die "more than the unreadable stripe failed: $(cat /tmp/rc)"
h=$(health r45e $N)
case $h in *D*) die "a member failed after reads of the unreadable stripe: $h" ;; esac
echo "ok read error during the rebuild: health $h, $(cat /tmp/rc)"
medium_errors off
dmsetup remove r45e

# 3. suspend and remove wait for the write-back of a repaired block
fresh_members $N 17
fill_dev "/dev/$sd" 20 /dev/zero
wrap_member m1 "/dev/$sd"
dmsetup create r45e --table "$(mk_table -1)" || die "create for the write-back test"
dd if=/tmp/ref of=/dev/mapper/r45e bs=1M oflag=direct status=none || die "write"
sz=$(blockdev --getsz "/dev/$sd")
retable_member m1 "0 $sz delay /dev/$sd 0 0 /dev/$sd 0 5000 /dev/$sd 0 0"
# block <n> of member 1's chunk in row 5: device sector 2368 + 8n, array
# sector 5 * 192 + 128 + 8n (4 KiB block 136 + n)
raw_block() { # <n>: block n as member 1 holds it, in /tmp/raw
	dd if="/dev/$sd" bs=512 skip=$((2368 + 8 * $1)) count=8 iflag=direct status=none >/tmp/raw ||
		die "raw read of block $1"
}
ref_block() { dd if=/tmp/ref bs=4096 skip=$((136 + $1)) count=1 status=none; }
# make block n unreadable, read it through the array (rebuilt from
# parity), and see that its write-back is still held by dm-delay
repair_one() { # <n>
	local dsec=$((2368 + 8 * $1))
	dd if=/dev/zero of="/dev/$sd" bs=512 seek=$dsec count=8 oflag=direct conv=notrunc \
		status=none || die "zeroing block $1 of member 1"
	dmsetup message r45e 0 stripe_cache set 8 && dmsetup message r45e 0 stripe_cache set 80 ||
		die "stripe_cache"
	medium_errors $dsec 8
	dd if=/dev/mapper/r45e bs=4096 skip=$((136 + $1)) count=1 iflag=direct status=none >/tmp/blk ||
		die "reading block $1 through the array failed"
	ref_block "$1" | cmp - /tmp/blk || die "block $1 read through the array differs from what was written"
	medium_errors off	# only reads fail: the write-back is not affected
	raw_block "$1"
	cmp -s -n 4096 /tmp/raw /dev/zero ||
		die "block $1's write-back landed before the test could suspend (raise dm-delay's 5 s)"
}
rewritten() { # <n> <when>: block n holds its data on member 1
	raw_block "$1"
	ref_block "$1" | cmp -s - /tmp/raw || die "block $1 was not yet rewritten on member 1 when $2 returned"
}
repair_one 3
dmsetup suspend r45e || die "suspend"
rewritten 3 "dmsetup suspend"
[ "$(corrected)" = 1 ] && [ "$(ext_word r45e 4)" = 1 ] && [ "$(health r45e $N)" = AAAA ] ||
	die "after one repair: $(dmsetup status r45e), last count logged $(corrected)"
dmsetup resume r45e || die "resume"
repair_one 5
dmsetup remove r45e || die "remove"
rewritten 5 "dmsetup remove"
[ "$(corrected)" = 2 ] || die "repairs logged by this array: $(corrected), expected 2"
echo "ok suspend and remove waited for the write-backs of repaired blocks"
