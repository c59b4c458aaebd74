#!/bin/bash
# Guest side of "make bench": MB/s per device type and workload, median
# of ROUNDS interleaved rounds, with raid45/md and raid45/striped ratios;
# then RAID6 against md raid6, degraded reads and rebuild against md, and
# the time "dmsetup suspend" takes under write load against dm-raid.
. "$(dirname "$0")/lib.sh"
load_module
modprobe raid456
modprobe dm-raid
ROUNDS=${ROUNDS:-3}
N=5
CHUNK=64
MIB=256
make_ramdisks $N $MIB
devs=(); for i in $(seq 0 $((N - 1))); do devs+=("/dev/ram$i"); done
per_dev=$(((MIB - 2) * 2048))
len=$((per_dev * (N - 1)))

mk_raid45() {
	local t="0 $len raid45 core 2 8192 nosync raid5_ls 2 $CHUNK 4096 $N -1" d
	for d in "${devs[@]}"; do t+=" $d 2048"; done
	dmsetup create b_raid45 --table "$t"
	echo /dev/mapper/b_raid45
}
mk_md() {
	mdadm --create /dev/md0 --run --quiet --assume-clean --level=5 \
		--layout=left-symmetric --chunk=$((CHUNK / 2)) --raid-devices=$N \
		"${devs[@]}" >/dev/null 2>&1
	echo 4096 > /sys/block/md0/md/stripe_cache_size
	echo /dev/md0
}
mk_dmraid() {
	local t="0 $len raid raid5_ls 4 $CHUNK nosync region_size 8192 $N" d
	for d in "${devs[@]}"; do t+=" - $d"; done
	dmsetup create b_dmraid --table "$t"
	echo /dev/mapper/b_dmraid
}
mk_striped() {
	local t="0 $len striped $((N - 1)) $CHUNK" i
	for i in $(seq 0 $((N - 2))); do t+=" ${devs[i]} 2048"; done
	dmsetup create b_striped --table "$t"
	echo /dev/mapper/b_striped
}
rm_all() {
	dmsetup remove_all --force >/dev/null 2>&1
	mdadm --stop /dev/md0 >/dev/null 2>&1
	true
}

declare -A res
workloads="seqwrite seqread randwrite randread"
types="raid45 md dmraid striped"
for r in $(seq "$ROUNDS"); do
	for t in $types; do
		rm_all
		dev=$(mk_$t)
		for w in $workloads; do
			case $w in
			seqwrite) a="--rw=write --bs=1m --iodepth=8" ;;
			seqread) a="--rw=read --bs=1m --iodepth=8" ;;
			randwrite) a="--rw=randwrite --bs=4k --iodepth=16" ;;
			randread) a="--rw=randread --bs=4k --iodepth=16" ;;
			esac
			# shellcheck disable=SC2086
			bw=$(fio --name=b --filename="$dev" --direct=1 --ioengine=libaio $a \
				--size=$((len / 2048 / 2))m --runtime=8 --time_based \
				--minimal 2>/dev/null |
				awk -F';' '{ printf "%.1f", ($7 + $48) / 1024 }')
			res[$t.$w]="${res[$t.$w]:-} $bw"
		done
	done
done
rm_all
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf '%-10s %10s %10s %10s %10s %10s %10s\n' workload raid45 md dm-raid striped r45/md r45/striped
for w in $workloads; do
	m45=$(echo "${res[raid45.$w]}" | median)
	mmd=$(echo "${res[md.$w]}" | median)
	mdr=$(echo "${res[dmraid.$w]}" | median)
	mst=$(echo "${res[striped.$w]}" | median)
	printf '%-10s %10s %10s %10s %10s %10.2f %10.2f\n' "$w" "$m45" "$mmd" "$mdr" "$mst" \
		"$(echo "$m45 / $mmd" | bc -l)" "$(echo "$m45 / $mst" | bc -l)"
done

# ---- RAID6 (raid6_nc = md's ddf-N-continue), healthy and two failed ----
fio_bw() { # <dev> <fio args...>: MB/s
	local dev=$1
	shift
	fio --name=b --filename="$dev" --direct=1 --ioengine=libaio "$@" \
		--size=$((fsize / 2048 / 2))m --runtime=8 --time_based --minimal 2>/dev/null |
		awk -F';' '{ printf "%.1f", ($7 + $48) / 1024 }'
}
len6=$((per_dev * (N - 2)))
fsize=$len6
# members that fail every I/O (dm-error), for degraded arrays
mk_gone() { dmsetup create b_gone1 --table "0 $((MIB * 2048)) error"
	dmsetup create b_gone2 --table "0 $((MIB * 2048)) error"; }
mk6_raid45() { # <members...>
	local t="0 $len6 raid45 core 2 8192 nosync raid6_nc 2 $CHUNK 4096 $N -1" d
	for d in "$@"; do t+=" $d 2048"; done
	dmsetup create b_raid45 --table "$t"
	dd if=/dev/mapper/b_raid45 of=/dev/null bs=1M count=4 iflag=direct status=none 2>/dev/null
	echo /dev/mapper/b_raid45
}
mk6_md() { # <members, "missing" allowed...>
	mdadm --create /dev/md0 --run --quiet --assume-clean --level=6 \
		--layout=ddf-N-continue --chunk=$((CHUNK / 2)) --raid-devices=$N \
		"$@" >/dev/null 2>&1
	echo 4096 > /sys/block/md0/md/stripe_cache_size
	echo /dev/md0
}
declare -A r6
for r in $(seq "$ROUNDS"); do
	for t in raid45 md; do
		rm_all
		dev=$(mk6_$t "${devs[@]}")
		r6[$t.seqwrite]+=" $(fio_bw "$dev" --rw=write --bs=1m --iodepth=8)"
		r6[$t.randwrite]+=" $(fio_bw "$dev" --rw=randwrite --bs=4k --iodepth=16)"
		rm_all
		mk_gone
		if [ $t = raid45 ]; then
			dev=$(mk6_raid45 "${devs[0]}" /dev/mapper/b_gone1 "${devs[2]}" /dev/mapper/b_gone2 "${devs[4]}")
		else
			dev=$(mk6_md "${devs[0]}" missing "${devs[2]}" missing "${devs[4]}")
		fi
		r6[$t.degread2]+=" $(fio_bw "$dev" --rw=read --bs=1m --iodepth=8)"
	done
done
rm_all
echo
printf '%-18s %10s %10s %10s\n' "RAID6 workload" raid45 md r45/md
for w in seqwrite randwrite degread2; do
	m45=$(echo "${r6[raid45.$w]}" | median)
	mmd=$(echo "${r6[md.$w]}" | median)
	printf '%-18s %10s %10s %10.2f\n' "$w" "$m45" "$mmd" "$(echo "$m45 / $mmd" | bc -l)"
done

# ---- RAID5: degraded read (one member failed) and rebuild ----
echo 2000000 > /proc/sys/dev/raid/speed_limit_max
echo 2000000 > /proc/sys/dev/raid/speed_limit_min
declare -A r5
fsize=$len
for r in $(seq "$ROUNDS"); do
	for t in raid45 md; do
		rm_all
		mk_gone
		if [ $t = raid45 ]; then
			tb="0 $len raid45 core 2 8192 nosync raid5_ls 2 $CHUNK 4096 $N -1"
			for d in "${devs[0]}" /dev/mapper/b_gone1 "${devs[@]:2}"; do tb+=" $d 2048"; done
			dmsetup create b_raid45 --table "$tb"
			dd if=/dev/mapper/b_raid45 of=/dev/null bs=1M count=4 iflag=direct status=none 2>/dev/null
			dev=/dev/mapper/b_raid45
		else
			mdadm --create /dev/md0 --run --quiet --assume-clean --level=5 \
				--layout=left-symmetric --chunk=$((CHUNK / 2)) --raid-devices=$N \
				"${devs[0]}" missing "${devs[@]:2}" >/dev/null 2>&1
			echo 4096 > /sys/block/md0/md/stripe_cache_size
			dev=/dev/md0
		fi
		r5[$t.degread]+=" $(fio_bw "$dev" --rw=read --bs=1m --iodepth=8)"
		rm_all
		# rebuild member 1 with nothing else running
		start=$(date +%s.%N)
		if [ $t = raid45 ]; then
			tb="0 $len raid45 core 2 8192 nosync raid5_ls 2 $CHUNK 4096 $N 1"
			for d in "${devs[@]}"; do tb+=" $d 2048"; done
			dmsetup create b_raid45 --table "$tb"
			while sc=$(sync_count b_raid45 $N) && [ "${sc%/*}" != "${sc#*/}" ]; do
				sleep 0.1
			done
		else
			mdadm --create /dev/md0 --run --quiet --assume-clean --level=5 \
				--layout=left-symmetric --chunk=$((CHUNK / 2)) --raid-devices=$N \
				"${devs[0]}" missing "${devs[@]:2}" >/dev/null 2>&1
			mdadm /dev/md0 --add "${devs[1]}" >/dev/null 2>&1
			sleep 0.1
			while [ "$(cat /sys/block/md0/md/sync_action)" != idle ]; do sleep 0.1; done
		fi
		secs=$(echo "$(date +%s.%N) - $start" | bc -l)
		r5[$t.rebuild]+=" $(echo "$per_dev / 2048 / $secs" | bc -l | xargs printf '%.1f')"
	done
done
rm_all
echo
printf '%-18s %10s %10s %10s\n' "RAID5 degraded" raid45 md r45/md
for w in degread rebuild; do
	m45=$(echo "${r5[raid45.$w]}" | median)
	mmd=$(echo "${r5[md.$w]}" | median)
	printf '%-18s %10s %10s %10.2f\n' "$w" "$m45" "$mmd" "$(echo "$m45 / $mmd" | bc -l)"
done
echo "(rebuild: MB/s of the rebuilt member)"

# ---- how long "dmsetup suspend" takes under full write load ----
declare -A sus
for t in raid45 dmraid; do
	rm_all
	dev=$(mk_$t)
	fio --name=s --filename="$dev" --direct=1 --ioengine=libaio --rw=write --bs=1m \
		--iodepth=8 --size=$((len / 2048 / 2))m --runtime=600 --time_based >/dev/null 2>&1 &
	fpid=$!
	sleep 3
	name=b_$t
	for r in $(seq "$ROUNDS"); do
		start=$(date +%s.%N)
		dmsetup suspend "$name"
		ms=$(echo "($(date +%s.%N) - $start) * 1000" | bc -l | xargs printf '%.0f')
		dmsetup resume "$name"
		sus[$t]+=" $ms"
		sleep 2
	done
	kill $fpid
	wait $fpid 2>/dev/null
done
rm_all
echo
printf '%-18s %10s %10s\n' "suspend under load" raid45 dm-raid
printf '%-18s %10s %10s\n' "ms (median)" "$(echo "${sus[raid45]}" | median)" "$(echo "${sus[dmraid]}" | median)"
echo "(MB/s unless noted, median of $ROUNDS rounds; TCG guest: ratios matter, not absolutes)"
