#!/bin/bash
# kernels: 6.1 7
# cost: 180
# Layout identity with md, both directions: data written through md reads
# back byte-identical through raid45 over the same members at md's data
# offset; data written through raid45 reads back identical through md,
# and md's own check finds no parity mismatch.
#   R45_LAYOUT_TYPES / R45_LAYOUT_CHUNKS / R45_LAYOUT_DISKS override the matrix.
# To keep CI short (issue 32) make check runs every pair of the three
# dimensions, not every triple: each type at each member count, once, at
# a chunk size that turns with them (every type and every member count
# meets every chunk size too).  A layout bug shows in a type at a member
# count; the chunk size scales the map.  The kernels that make check runs
# it on split those 32 (lib.sh on_this_kernel; the layout code is the same
# on all): each runs every type, member count and chunk size.
# R45_LAYOUT_ALL=1, or check-full (R45_SPLIT_ALL=1), runs all 96.
. "$(dirname "$0")/lib.sh"
load_module
modprobe raid456 || die "no md raid456"
types=${R45_LAYOUT_TYPES:-"raid4 raid5_la raid5_ra raid5_ls raid5_rs raid6_zr raid6_nr raid6_nc"}
chunks=${R45_LAYOUT_CHUNKS:-"8 64 1024"}
# member counts: RAID4/5 3 4 5 8, RAID6 4 5 6 8
disks5=${R45_LAYOUT_DISKS:-"3 4 5 8"}
disks6=${R45_LAYOUT_DISKS:-"4 5 6 8"}
make_ramdisks 8 4
head -c $((40 << 20)) /dev/urandom > /tmp/rand
# <bytes> <seed>: a slice of the random pool
slice() { tail -c +$((($2 * 4096) % (8 << 20) + 1)) /tmp/rand | head -c "$1"; }

combos=0
ti=0
for type in $types; do
	disks=$disks5
	case $type in raid6*) disks=$disks6 ;; esac
	ti=$((ti + 1))
	ni=0
	for n in $disks; do
		pd=1
		case $type in raid6*) pd=2 ;; esac
		ni=$((ni + 1))
		[ "$n" -lt $((pd + 2)) ] && continue
		ci=0
		for chunk in $chunks; do
			ci=$((ci + 1))
			if [ "${R45_LAYOUT_ALL:-${R45_SPLIT_ALL:-0}}" != 1 ]; then
				[ $((ci - 1)) = $(((ti + ni) % 3)) ] && on_this_kernel $ti $ni ||
					continue
			fi
			devs=()
			for i in $(seq 0 $((n - 1))); do devs+=("/dev/ram$i"); done
			# shellcheck disable=SC2046
			mdadm --create /dev/md0 --run --quiet --assume-clean --metadata=1.2 \
				$(md_args "$type") --chunk=$((chunk / 2)) --raid-devices="$n" \
				"${devs[@]}" >/dev/null 2>&1 || die "mdadm create $type n=$n chunk=$chunk"
			off=$(mdadm --examine "${devs[0]}" | awk '/Data Offset/ { print $4 }')
			size=$(blockdev --getsz /dev/md0)
			slice $((size * 512)) $((combos * 3)) > /tmp/a
			dd if=/tmp/a of=/dev/md0 bs=64k oflag=direct status=none || die "md write"
			mdadm --stop /dev/md0 >/dev/null 2>&1 || die "md stop"
			table="0 $size raid45 core 2 1024 nosync $type"
			[ "$type" = raid4 ] && table+=" -1"
			table+=" 1 $chunk $n -1"
			for d in "${devs[@]}"; do table+=" $d $off"; done
			dmsetup create r45md --table "$table" || die "raid45 create: $table"
			cmp /tmp/a /dev/mapper/r45md || die "md->raid45 differs: $type n=$n chunk=$chunk"
			slice $((size * 512)) $((combos * 3 + 1)) > /tmp/b
			dd if=/tmp/b of=/dev/mapper/r45md bs=48k oflag=direct status=none || die "raid45 write"
			dmsetup remove r45md || die "remove"
			"$PARCHECK" -t "$type" -c "$chunk" -o "$off" -n $((size / (n - pd) / chunk)) "${devs[@]}" >/tmp/pc ||
				{ cat /tmp/pc; die "parity-check: $type n=$n chunk=$chunk"; }
			mdadm --assemble /dev/md0 --run "${devs[@]}" >/dev/null 2>&1 || die "md assemble"
			cmp /tmp/b /dev/md0 || die "raid45->md differs: $type n=$n chunk=$chunk"
			echo check > /sys/block/md0/md/sync_action
			md_wait_idle
			mm=$(cat /sys/block/md0/md/mismatch_cnt)
			[ "$mm" = 0 ] || die "md check: mismatch_cnt $mm for $type n=$n chunk=$chunk"
			mdadm --stop /dev/md0 >/dev/null 2>&1
			combos=$((combos + 1))
			echo "ok $type n=$n chunk=$chunk (offset $off, $size sectors)"
		done
	done
done
[ "$combos" -gt 0 ] || die "no combination ran"
echo "$combos combinations identical to md"
