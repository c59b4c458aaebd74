#!/bin/bash
# kernels: 6.1 7
# cost: 113
# skip_copy (issue 14): with the module parameter on, an array asks for
# stable writes (6.11 and later), and whole-stripe writes of page cache
# pages under writeback on a file system with stable writes go to the
# members without a copy (the "in_place" counter).  O_DIRECT memory is
# never written in place (its owner may change it during the write:
# anonymous memory is neither page cache nor under writeback; what would
# be, an mmapped file's page, is refused by its DMA pin), and
# on 6.1, where a target cannot ask for stable writes, nothing is.  Then
# small writes over the stripes written in place (their cached data was
# dropped: read-modify-write must read the members), files and the raw
# contents compared byte for byte, parity recomputed from the members.
. "$(dirname "$0")/lib.sh"
load_module
param=/sys/module/dm_raid456/parameters/skip_copy
echo Y >$param || die "cannot set skip_copy"
trap 'echo N >$param' EXIT

n=4
chunk=128
make_ramdisks $n 64
mkdir -p /tmp/mnt
devs=(/dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3)
per_dev=$((62 * 2048))
size=$((per_dev * (n - 1)))
major=$(uname -r | cut -d. -f1)
minor=$(uname -r | cut -d. -f2)
new=0
[ "$major" -gt 6 ] || { [ "$major" = 6 ] && [ "$minor" -ge 11 ]; } && new=1

in_place() { stat_word r45s 10; }
queue_attr() {
	local d
	d=$(readlink -f "$1")
	cat "/sys/dev/block/$((0x$(stat -c %t "$d"))):$((0x$(stat -c %T "$d")))/queue/$2"
}

for d in "${devs[@]}"; do fill_dev "$d" 64 /dev/zero; done
table="0 $size raid45 core 2 1024 nosync raid5_ls 1 $chunk $n -1"
for d in "${devs[@]}"; do table+=" $d 2048"; done
dmsetup create r45s --table "$table" || die "create"
dmsetup message r45s 0 statistics on || die "statistics on"
# a cache as large as the array: every stripe written in place is still
# cached (its data pages dropped) when the small writes below come
dmsetup message r45s 0 stripe_cache set 16384 || die "stripe_cache"
sw=$(queue_attr /dev/mapper/r45s stable_writes)
[ "$sw" = $new ] || die "stable_writes $sw on $(uname -r), expected $new"

# O_DIRECT whole rows: never in place
head -c $((8 * 1024 * 1024)) /dev/urandom >/tmp/direct
dd if=/tmp/direct of=/dev/mapper/r45s bs=$((chunk * 512 * (n - 1))) oflag=direct status=none ||
	die "direct write"
[ "$(in_place)" = 0 ] || die "O_DIRECT pages written in place: $(in_place) stripes"
cmp -n $((8 * 1024 * 1024)) /tmp/direct /dev/mapper/r45s || die "direct data differs"

# ext4 with 4 KiB blocks (pages fall on whole member blocks; a small
# file system would get 1 KiB blocks), buffered files
mkfs.ext4 -q -F -b 4096 -E nodiscard /dev/mapper/r45s || die "mkfs"
mkdir -p /tmp/mnt
mount /dev/mapper/r45s /tmp/mnt || die "mount"
for i in 1 2 3; do
	head -c $((12 * 1024 * 1024)) /dev/urandom >"/tmp/src$i"
	cp "/tmp/src$i" "/tmp/mnt/f$i" || die "cp"
done
sync
ip=$(in_place)
st=$(dmsetup status r45s | sed -n 's/.* stats //p')
if [ $new = 1 ]; then
	[ "${ip:-0}" -gt 0 ] || die "no stripe written in place (stats $(dmsetup status r45s | sed -n 's/.* stats //p'))"
else
	[ "${ip:-0}" = 0 ] || die "$ip stripes written in place without stable writes"
fi
echo 3 >/proc/sys/vm/drop_caches
for i in 1 2 3; do cmp "/tmp/src$i" "/tmp/mnt/f$i" || die "file f$i differs"; done
umount /tmp/mnt || die "umount"

# small writes over those stripes: read-modify-write from the members
dd if=/dev/mapper/r45s of=/tmp/img bs=1M iflag=direct status=none || die "read image"
for i in $(seq 1 200); do
	len=$(((RANDOM % 16 + 1) * 512))
	off=$(((RANDOM * 32768 + RANDOM) % (size - 16) * 512))
	head -c $len /dev/urandom >/tmp/piece
	dd if=/tmp/piece of=/dev/mapper/r45s bs=$len seek=$off count=1 \
		oflag=direct,seek_bytes status=none || die "small write"
	dd if=/tmp/piece of=/tmp/img bs=512 seek=$((off / 512)) conv=notrunc status=none
done
cmp /tmp/img /dev/mapper/r45s || die "contents differ after small writes over in-place stripes"
dmsetup remove r45s || die "remove"
"$PARCHECK" -t raid5_ls -c $chunk -o 2048 -n $((per_dev / chunk)) "${devs[@]}" >/tmp/pc ||
	{ cat /tmp/pc; die "parity-check"; }
ok1="ok: stable_writes $sw, $ip stripes written in place (stats after the files: $st), $(cat /tmp/pc)"

# Issue 27, finding 3: which pages may skip the copy.  Page cache pages
# under writeback on a mapping with stable writes are not enough: ext2
# (and ext4 without a journal) change buffer-head metadata in the
# block device's own page cache under writeback, and ext2 zeroes a
# truncated file's tail page under writeback (block_truncate_page).  Now
# only regular files' data of ext4 or xfs mounted on the array itself
# qualify.  Each file system gets a workload that changes pages while
# they are written back (fsstress.py: overwrites, truncates, mmap
# writes, punched holes, a sync() loop), chunk 8 (a row is 3 pages), then
# the array's own check and the raw parity checker must find nothing,
# and in_place must be 0 for ext2 (on 73011ff its pages went in place)
# and above 0 for ext4 without a journal and xfs.  6.11 and later only;
# STRESS_SECS (default 20) per file system, 600 for the issue's long run.
[ $new = 1 ] || { echo "$ok1"; exit 0; }
# make check's time: the stress runs on 6.12 only (R45_SPLIT_ALL=1: here too)
case $(uname -r) in
6.12.*) ;;
*) [ "${R45_SPLIT_ALL:-0}" = 1 ] || { echo "$ok1 (stress: 6.12 only)"; exit 0; } ;;
esac
secs=${STRESS_SECS:-20}
stress_fs() { # <fs> <expect: none|some> <mkfs command...>
	local fs=$1 expect=$2 ip mm
	shift 2
	cleanup_all
	echo Y >$param	# cleanup_all turned it off
	make_ramdisks $n 128
	table="0 $((127 * 2048 * (n - 1))) raid45 core 2 1024 nosync raid5_ls 1 8 $n -1"
	for d in "${devs[@]}"; do table+=" $d 2048"; done
	dmsetup create r45s --table "$table" || die "$fs: create"
	dmsetup message r45s 0 statistics on || die "statistics on"
	"$@" /dev/mapper/r45s >/tmp/mkfs.out 2>&1 || { cat /tmp/mkfs.out; die "$fs: mkfs"; }
	mount /dev/mapper/r45s /tmp/mnt || die "$fs: mount"
	python3 "$(dirname "$0")/fsstress.py" /tmp/mnt "$secs" 4 || die "$fs: fsstress"
	umount /tmp/mnt || die "$fs: umount"
	ip=$(in_place)
	dmsetup message r45s 0 check || die "$fs: check"
	wait_in_sync r45s $n 600
	mm=$(mismatches r45s)
	echo "$fs: ${secs}s, $ip stripes written in place, check: $mm mismatches"
	[ "$mm" = 0 ] || die "$fs: $mm stripes with parity that does not match (in_place $ip)"
	case $expect in
	none) [ "$ip" = 0 ] || die "$fs: $ip stripes written in place: its pages are not stable" ;;
	some) [ "${ip:-0}" -gt 0 ] || die "$fs: no stripe written in place" ;;
	esac
	dmsetup remove r45s || die "remove"
	"$PARCHECK" -t raid5_ls -c 8 -o 2048 -n $((127 * 2048 / 8)) "${devs[@]}" >/tmp/pc ||
		{ cat /tmp/pc; die "$fs: parity-check"; }
}
stress_fs ext2 none mkfs.ext2 -q -F -b 4096 -E nodiscard
stress_fs ext4-nojournal some mkfs.ext4 -q -F -b 4096 -O ^has_journal -E nodiscard
# xfs refuses file systems under 300 MiB outside fstests (TEST_DIR set)
TEST_DIR=/tmp stress_fs xfs some mkfs.xfs -q -f -K
echo "$ok1; stress: ext2 none in place, ext4 without a journal and xfs in place, parity right"
