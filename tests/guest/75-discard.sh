#!/bin/bash
# kernels: 6.1 7
# cost: 124
# Discard (issue 14): taken only when every member takes write-zeroes
# (loop devices over tmpfs files: yes; brd: no, and then the array must
# not advertise it; a member that refuses it later gets zeroes written).
# A discard zeroes the stripes it covers whole, as
# write-zeroes to every member (the tmpfs files get holes), and leaves
# the rest untouched: checked byte for byte with blkdiscard on raid5_ls
# and raid6_zr, then parity recomputed from the raw members.  Then ext4
# on raid5_ls: mkfs (which discards the whole array), files, rm, fstrim;
# the files that stay read back right, the members' parity is right, and
# md assembled over the same members finds no mismatch in its check and
# a clean file system.
. "$(dirname "$0")/lib.sh"
load_module
modprobe loop || die "modprobe loop"

n=4
mib=48
chunk=128	# sectors
off=2048	# member data offset, sectors
per_dev=$(((mib - 2) * 2048))
loops=()

stats() {	# the stats words: ... <delayed> <zeroed>
	dmsetup status "$1" | sed -n 's/.* stats //p'
}
zeroed() { stat_word "$1" 9; }

queue_attr() {	# queue_attr DEV ATTR (dm's nodes are not links without udev)
	local d
	d=$(readlink -f "$1")
	cat "/sys/dev/block/$((0x$(stat -c %t "$d"))):$((0x$(stat -c %T "$d")))/queue/$2"
}

make_loops() {
	local i
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	loops=()
	for i in $(seq 0 $((n - 1))); do
		rm -f "/tmp/m$i"
		truncate -s "${mib}M" "/tmp/m$i" || die "truncate"
		loops+=("$(losetup -f --show "/tmp/m$i")") || die "losetup"
	done
}

table_for() {	# table_for TYPE SECTORS DEVS...
	local type=$1 size=$2 t d
	shift 2
	t="0 $size raid45 core 2 1024 nosync $type 1 $chunk $# -1"
	for d in "$@"; do t+=" $d $off"; done
	echo "$t"
}

allocated_kib() {
	local i s=0
	for i in $(seq 0 $((n - 1))); do
		s=$((s + $(du -k "/tmp/m$i" | cut -f1)))
	done
	echo $s
}

# --- no discard where a member cannot write zeroes (brd) ---
make_ramdisks $n $mib
if [ "$(queue_attr /dev/ram0 write_zeroes_max_bytes)" = 0 ]; then
	dmsetup create r45b --table "$(table_for raid5_ls $((per_dev * (n - 1))) /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3)" ||
		die "create over brd"
	[ "$(queue_attr /dev/mapper/r45b discard_max_bytes)" = 0 ] ||
		die "discard advertised over members without write-zeroes"
	expect_fail "blkdiscard over brd members" blkdiscard /dev/mapper/r45b
	dmsetup remove r45b || die "remove r45b"
	echo "ok: no discard over brd"
else
	echo "brd takes write-zeroes on this kernel: its case is not tested"
fi
rmmod brd

# --- blkdiscard: whole stripes zeroed, the rest untouched ---
make_loops
for l in "${loops[@]}"; do
	[ "$(queue_attr "$l" write_zeroes_max_bytes)" != 0 ] ||
		die "loop over tmpfs takes no write-zeroes: $l"
done
for type in raid5_ls raid6_zr; do
	pd=1
	case $type in raid6*) pd=2 ;; esac
	dd=$((n - pd))
	size=$((per_dev * dd))
	row=$((chunk * dd))
	gran=$chunk	# a power of two: the block layer rounds with round_up()
	while [ $gran -lt $row ]; do gran=$((gran * 2)); done
	make_loops
	dmsetup create r45d --table "$(table_for $type $size "${loops[@]}")" || die "create $type"
	dmsetup message r45d 0 statistics on || die "statistics on"
	[ "$(queue_attr /dev/mapper/r45d discard_granularity)" = $((gran * 512)) ] ||
		die "$type: discard_granularity $(queue_attr /dev/mapper/r45d discard_granularity), expected $((gran * 512))"
	[ "$(queue_attr /dev/mapper/r45d discard_max_bytes)" != 0 ] || die "$type: no discard advertised"
	head -c $((size * 512)) /dev/urandom >/tmp/img
	dd if=/tmp/img of=/dev/mapper/r45d bs=1M oflag=direct status=none || die "write"
	before=$(allocated_kib)
	# rows 3..9 whole, with half a chunk in front and 8 sectors behind
	s=$((3 * row - chunk / 2))
	e=$((10 * row + 8))
	blkdiscard -o $((s * 512)) -l $(((e - s) * 512)) /dev/mapper/r45d || die "$type: blkdiscard"
	z=$(zeroed r45d)
	# a row is chunk / 8 stripes (4 KiB on each member)
	[ "${z:-0}" -eq $((7 * chunk / 8)) ] ||
		die "$type: $z stripes zeroed, expected $((7 * chunk / 8)) (stats $(stats r45d))"
	dd if=/dev/zero of=/tmp/img bs=512 seek=$((3 * row)) count=$((7 * row)) conv=notrunc status=none
	cmp /tmp/img /dev/mapper/r45d || die "$type: not zeroed exactly where whole rows were discarded"
	after=$(allocated_kib)
	# 7 rows of n members: 7 * chunk / 2 KiB on each member were punched
	[ $((before - after)) -ge $((7 * chunk / 2 * n * 9 / 10)) ] ||
		die "$type: members kept their space: $before KiB -> $after KiB allocated"
	dmsetup remove r45d || die "remove"
	"$PARCHECK" -t $type -c $chunk -o $off -n $((per_dev / chunk)) "${loops[@]}" >/tmp/pc ||
		{ cat /tmp/pc; die "$type: parity-check after discard"; }
	echo "ok $type: $z stripes zeroed, $((before - after)) KiB given back, $(cat /tmp/pc)"
done

# --- a member that stops taking write-zeroes (its table now maps a ramdisk):
# its blocks are written as pages of zeroes instead, no member fails ---
make_loops
lin=()
for i in $(seq 0 $((n - 1))); do
	dmsetup create "r45m$i" --table "0 $((mib * 2048)) linear ${loops[$i]} 0" ||
		die "linear member $i"
	lin+=("/dev/mapper/r45m$i")
done
size=$((per_dev * (n - 1)))
row=$((chunk * (n - 1)))
dmsetup create r45d --table "$(table_for raid5_ls $size "${lin[@]}")" || die "create over linear members"
[ "$(queue_attr /dev/mapper/r45d discard_max_bytes)" != 0 ] || die "no discard over linear members"
head -c $((size * 512)) /dev/urandom >/tmp/img
dd if=/tmp/img of=/dev/mapper/r45d bs=1M oflag=direct status=none || die "write"
make_ramdisks 1 $mib
if [ "$(queue_attr /dev/ram0 write_zeroes_max_bytes)" = 0 ]; then
	dmsetup suspend r45d || die "suspend"
	dd if="${loops[3]}" of=/dev/ram0 bs=1M iflag=direct oflag=direct status=none || die "copy member"
	retable_member r45m3 "0 $((mib * 2048)) linear /dev/ram0 0"
	dmsetup resume r45d || die "resume"
	s=$((3 * row - chunk / 2))
	e=$((10 * row + 8))
	blkdiscard -o $((s * 512)) -l $(((e - s) * 512)) /dev/mapper/r45d || die "blkdiscard, member refusing"
	[ "$(health r45d $n)" = AAAA ] || die "a refused write-zeroes failed a member: $(dmsetup status r45d)"
	dd if=/dev/zero of=/tmp/img bs=512 seek=$((3 * row)) count=$((7 * row)) conv=notrunc status=none
	cmp /tmp/img /dev/mapper/r45d || die "rows not zeroed where a member refused write-zeroes"
	dmsetup remove r45d || die "remove"
	"$PARCHECK" -t raid5_ls -c $chunk -o $off -n $((per_dev / chunk)) \
		"${loops[0]}" "${loops[1]}" "${loops[2]}" /dev/ram0 >/tmp/pc ||
		{ cat /tmp/pc; die "parity-check after refused write-zeroes"; }
	echo "ok: write-zeroes refused by a member: zeroes written instead, AAAA, $(cat /tmp/pc)"
else
	dmsetup remove r45d || die "remove"
	echo "brd takes write-zeroes on this kernel: the refusal case is not tested"
fi
for i in $(seq 0 $((n - 1))); do dmsetup remove "r45m$i" || die "remove r45m$i"; done
rmmod brd

# --- ext4: mkfs, files, rm, fstrim; then md's check ---
make_loops
mdadm --create /dev/md0 --run --quiet --assume-clean --metadata=1.2 --level=5 \
	--layout=left-symmetric --chunk=$((chunk / 2)) --raid-devices=$n "${loops[@]}" \
	>/dev/null 2>&1 || die "mdadm create"
moff=$(mdadm --examine "${loops[0]}" | awk '/Data Offset/ { print $4 }')
msize=$(blockdev --getsz /dev/md0)
mdadm --stop /dev/md0 >/dev/null 2>&1 || die "md stop"
off=$moff
dmsetup create r45e --table "$(table_for raid5_ls "$msize" "${loops[@]}")" || die "create ext4 array"
dmsetup message r45e 0 statistics on || die "statistics on"
mkfs.ext4 -q -F /dev/mapper/r45e || die "mkfs.ext4"
z0=$(zeroed r45e)
[ "${z0:-0}" -gt 0 ] || die "mkfs's discard zeroed no stripe"
mkdir -p /tmp/mnt
mount /dev/mapper/r45e /tmp/mnt || die "mount"
for i in $(seq 1 12); do
	head -c $((2 * 1024 * 1024 + i * 4096)) /dev/urandom >"/tmp/mnt/f$i" || die "write f$i"
done
sync
(cd /tmp/mnt && md5sum f*) >/tmp/sums
rm /tmp/mnt/f[13579] /tmp/mnt/f11
sync
before=$(allocated_kib)
fstrim -v /tmp/mnt >/tmp/fstrim.out 2>&1 || { cat /tmp/fstrim.out; die "fstrim"; }
trimmed=$(sed -n 's/.*(\([0-9]*\) bytes) trimmed.*/\1/p' /tmp/fstrim.out)
z1=$(zeroed r45e)
after=$(allocated_kib)
[ "${trimmed:-0}" -gt 0 ] || die "fstrim trimmed nothing: $(cat /tmp/fstrim.out)"
[ "$z1" -gt "$z0" ] || die "fstrim zeroed no stripe ($z0 -> $z1)"
[ "$after" -lt "$before" ] || die "fstrim gave no member space back: $before -> $after KiB"
(cd /tmp/mnt && grep -v ' f[13579]$' /tmp/sums | grep -v ' f11$' | md5sum -c --quiet) ||
	die "files changed by fstrim"
umount /tmp/mnt || die "umount"
dmsetup remove r45e || die "remove"
"$PARCHECK" -t raid5_ls -c $chunk -o "$off" -n $((msize / (n - 1) / chunk)) "${loops[@]}" >/tmp/pc ||
	{ cat /tmp/pc; die "parity-check after fstrim"; }
mdadm --assemble /dev/md0 --run "${loops[@]}" >/dev/null 2>&1 || die "md assemble"
echo check >/sys/block/md0/md/sync_action
for i in $(seq 600); do
	[ "$(cat /sys/block/md0/md/sync_action)" = idle ] && break
	sleep 0.2
done
[ "$(cat /sys/block/md0/md/sync_action)" = idle ] || die "md check did not finish"
mm=$(cat /sys/block/md0/md/mismatch_cnt)
[ "$mm" = 0 ] || die "md check after fstrim: mismatch_cnt $mm"
e2fsck -fn /dev/md0 >/tmp/fsck.out 2>&1 || { cat /tmp/fsck.out; die "e2fsck through md"; }
mdadm --stop /dev/md0 >/dev/null 2>&1
for l in "${loops[@]}"; do losetup -d "$l"; done
echo "ok ext4: fstrim trimmed $trimmed bytes, stripes zeroed $z0 (mkfs) -> $z1, members $before -> $after KiB, md check clean"
