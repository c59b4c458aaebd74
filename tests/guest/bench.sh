#!/bin/bash
# Guest side of "make bench": MB/s per device type and workload, median
# of ROUNDS interleaved rounds, with raid45/md and raid45/striped ratios.
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
echo "(MB/s, median of $ROUNDS rounds; TCG guest: ratios matter, not absolutes)"
