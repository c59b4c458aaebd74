#!/bin/bash
# Guest side of "make bench" (not a test: nothing here passes or fails).
#
# The matrix: for each geometry and cache setting, raid45, md, the
# kernel's dm-raid and dm-striped over the data members, on the same
# ramdisks, ROUNDS interleaved rounds (the order of the four rotates
# from round to round), four fio workloads each.  Printed per workload:
# the median MB/s of each, the median of the per-round ratios raid45/md
# and raid45/striped with their spread (min-max over the rounds: a claim
# holds only when the whole spread clears it), and the guest CPU time
# per GiB moved (/proc/stat busy time around each run, every CPU and
# thread, fio included: the same for all four) for raid45 and md.
# Each configuration's medians and spreads also go to
# $SHARE/bench/<config>.dat for scripts/bench's plot.
#
# Then the extras: RAID6 with two members failed, RAID5 degraded reads
# and rebuild against md, and how long "dmsetup suspend" takes under
# write load against dm-raid.
#
# Environment: ROUNDS (5), RUNTIME (s per fio run, 6), GEOMS (words
# "<5|6>:<members>:<chunk sectors>", default the issue's five; empty:
# none, e.g. GEOMS= EXTRAS=0 for the PPL rows alone),
# CACHES ("default 4096"), WORKLOADS ("seqwrite seqread randwrite
# randread": a subset narrows the run), LANE_SPILL (raid45's module
# parameter; default the module's), EXTRAS (1), PPL_GEOMS ("5:4:64
# 5:6:64": the partial parity log's rows; empty: none), PPL_WORKLOADS
# ("seqwrite randwrite") and PPL_DELAYS ("0 2": the PPL rows again with
# every member behind dm-delay, in ms, where the log write's latency is
# a disk's and not a memory copy's; on kernels before 6.8 only, see
# polls() below); J_GEOMS, J_WORKLOADS, J_DELAYS the same for the write
# journal's rows.
. "$(dirname "$0")/lib.sh"
load_module
modprobe raid456
modprobe dm-raid
ROUNDS=${ROUNDS:-5}
RUNTIME=${RUNTIME:-6}
GEOMS=${GEOMS-5:4:64 5:6:64 5:4:256 5:6:256 6:5:64}
CACHES=${CACHES:-default 4096}
EXTRAS=${EXTRAS:-1}
MIB=256
spill_param=/sys/module/dm_raid456/parameters/lane_spill
if [ -n "${LANE_SPILL:-}" ]; then
	echo "$LANE_SPILL" >$spill_param || die "bench: lane_spill $LANE_SPILL"
fi
out=${SHARE:-/tmp}/bench
rm -rf "$out"
mkdir -p "$out"
echo 2000000 > /proc/sys/dev/raid/speed_limit_max
echo 2000000 > /proc/sys/dev/raid/speed_limit_min

# geometry of the current configuration: LEVEL N CHUNK CACHE, and
make_ramdisks 6 $MIB
per_dev=$(((MIB - 2) * 2048))
set_geom() { # <level>:<members>:<chunk> <cache>
	IFS=: read -r LEVEL N CHUNK <<<"$1"
	CACHE=$2
	case $LEVEL in 5 | 6) ;; *) die "bench: level $LEVEL in $1 (5 or 6)" ;; esac
	[ "$N" -ge $((LEVEL - 2)) ] && [ "$N" -le 6 ] || die "bench: $N members in $1 (at most 6 ramdisks)"
	DATA=$((N - LEVEL + 4))
	len=$((per_dev * DATA))
	devs=(); local i; for i in $(seq 0 $((N - 1))); do devs+=("/dev/ram$i"); done
	case $LEVEL in 5) r45type=raid5_ls md_layout=left-symmetric ;;
		6) r45type=raid6_nc md_layout=ddf-N-continue ;; esac
}

mk_raid45() {
	local st=-1 d t
	[ "$CACHE" = default ] || st=$CACHE
	t="0 $len raid45 core 2 8192 nosync $r45type 2 $CHUNK $st $N -1"
	for d in "${devs[@]}"; do t+=" $d 2048"; done
	dmsetup create b_raid45 --table "$t" || return 1
	echo /dev/mapper/b_raid45
}
mk_md() { # [members, "missing" allowed]: default the geometry's
	[ $# -gt 0 ] || set -- "${devs[@]}"
	mdadm --create /dev/md0 --run --quiet --assume-clean --level="$LEVEL" \
		--layout=$md_layout --chunk=$((CHUNK / 2)) --raid-devices=$N \
		"$@" >/dev/null 2>&1 || return 1
	[ "$CACHE" = default ] || echo "$CACHE" > /sys/block/md0/md/stripe_cache_size
	echo /dev/md0
}
# dm-raid refuses "nosync" for RAID6: that one resyncs first (at full
# speed, speed_limit_min above) and is measured once it is idle
mk_dmraid() {
	local t p="$CHUNK nosync region_size 8192" n=4 d i st
	[ "$LEVEL" = 6 ] && { p="$CHUNK region_size 8192"; n=3; }
	[ "$CACHE" = default ] || { p+=" stripe_cache $CACHE"; n=$((n + 2)); }
	t="0 $len raid $r45type $n $p $N"
	for d in "${devs[@]}"; do t+=" - $d"; done
	dmsetup create b_dmraid --table "$t" || return 1
	for i in $(seq 3000); do
		st=$(dmsetup status b_dmraid)
		set -- $st
		[ "${7%/*}" = "${7#*/}" ] && [ "$8" = idle ] && break
		sleep 0.1
	done
	[ "$i" -lt 3000 ] || { echo "bench: dm-raid resync not done: $st" >&2; return 1; }
	echo /dev/mapper/b_dmraid
}
mk_striped() {
	local t="0 $len striped $DATA $CHUNK" i
	for i in $(seq 0 $((DATA - 1))); do t+=" ${devs[i]} 2048"; done
	dmsetup create b_striped --table "$t" || return 1
	echo /dev/mapper/b_striped
}
# md first (it may sit on dm-delay devices), then the stacked dm devices
# from the top: remove_all takes them in no particular order
rm_all() {
	mdadm --stop /dev/md0 >/dev/null 2>&1
	dmsetup remove_all >/dev/null 2>&1
	dmsetup remove_all >/dev/null 2>&1
	dmsetup remove_all --force >/dev/null 2>&1
	true
}

# user nice system irq softirq (not idle, iowait, steal)
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
hz=$(getconf CLK_TCK)
# run_fio <dev> <size MiB> <fio args...>: prints "<MiB/s> <CPU s per GiB>",
# "0 0" when fio failed (left out of medians and ratios)
run_fio() {
	local dev=$1 size=$2 b0 b1 res
	shift 2
	b0=$(busy)
	res=$(fio --name=b --filename="$dev" --direct=1 --ioengine=libaio "$@" \
		--size="${size}m" --runtime="$RUNTIME" --time_based --minimal 2>/dev/null)
	b1=$(busy)
	echo "$res" | awk -F';' -v j=$((b1 - b0)) -v hz="$hz" '
		NF >= 48 && $1 == 3 { kb = $6 + $47; bw = ($7 + $48) / 1024; ok = kb > 0 }
		END { if (ok) printf "%.1f %.3f\n", bw, (j / hz) / (kb / 1048576)
		      else print "0 0" }'
}
workload_args() {
	case $1 in
	seqwrite) echo "--rw=write --bs=1m --iodepth=8" ;;
	seqread) echo "--rw=read --bs=1m --iodepth=8" ;;
	randwrite) echo "--rw=randwrite --bs=4k --iodepth=16" ;;
	randread) echo "--rw=randread --bs=4k --iodepth=16" ;;
	*) die "bench: unknown workload $1 (seqwrite seqread randwrite randread)" ;;
	esac
}

# "<median> <min> <max>" of the words of $1 other than 0 (a failed run)
spread() { echo "$1" | tr ' ' '\n' | grep -v '^0*$' | grep -v '^0\.0*$' | sort -g |
	awk '{ a[NR] = $1 } END { if (!NR) { print "0 0 0"; exit }
		m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		printf "%.2f %s %s\n", m, a[1], a[NR] }'; }
median() { spread "$1" | cut -d' ' -f1; }
# per-round ratios of the words of $1 to those of $2 (rounds where either
# failed are left out: every list holds one word per round)
ratios() { awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " ")
	for (i = 1; i <= n; i++) if (x[i] > 0 && y[i] > 0) printf "%.3f ", x[i] / y[i] }'; }

workloads=${WORKLOADS:-seqwrite seqread randwrite randread}
for w in $workloads; do workload_args "$w" >/dev/null; done
type_list=(raid45 md dmraid striped)
for geom in $GEOMS; do
	for cache in $CACHES; do
		set_geom "$geom" "$cache"
		cfg="raid${LEVEL}-${N}m-c${CHUNK}-${CACHE}"
		declare -A bw=() cpu=()
		for r in $(seq "$ROUNDS"); do
			# rotate the order: no type always runs first or last
			for i in 0 1 2 3; do
				t=${type_list[(i + r - 1) % 4]}
				rm_all
				if ! dev=$(mk_$t); then
					echo "bench: cannot create $t for $cfg" >&2
					for w in $workloads; do bw[$t.$w]+=" 0"; cpu[$t.$w]+=" 0"; done
					continue
				fi
				for w in $workloads; do
					# shellcheck disable=SC2046
					set -- $(run_fio "$dev" $((len / 2048 / 2)) $(workload_args $w))
					bw[$t.$w]+=" $1"
					cpu[$t.$w]+=" $2"
				done
			done
		done
		rm_all
		echo
		echo "== RAID$LEVEL, $N members, chunk $CHUNK sectors, cache $CACHE" \
			"($ROUNDS rounds of ${RUNTIME} s runs; MiB/s medians; raid45 lane_spill $(cat $spill_param))"
		printf '%-10s %8s %8s %8s %8s  %-17s %-17s %17s\n' workload raid45 md dm-raid striped \
			"r45/md [spread]" "r45/str [spread]" "CPU s/GiB r45 md"
		: >"$out/$cfg.dat"
		for w in $workloads; do
			read -r m45 l45 h45 <<<"$(spread "${bw[raid45.$w]}")"
			read -r mmd lmd hmd <<<"$(spread "${bw[md.$w]}")"
			read -r mdr ldr hdr <<<"$(spread "${bw[dmraid.$w]}")"
			read -r mst lst hst <<<"$(spread "${bw[striped.$w]}")"
			read -r rm rl rh <<<"$(spread "$(ratios "${bw[raid45.$w]}" "${bw[md.$w]}")")"
			read -r sm sl sh <<<"$(spread "$(ratios "${bw[raid45.$w]}" "${bw[striped.$w]}")")"
			c45=$(median "${cpu[raid45.$w]}")
			cmd=$(median "${cpu[md.$w]}")
			printf '%-10s %8s %8s %8s %8s  %4.2f [%4.2f-%4.2f]  %4.2f [%4.2f-%4.2f]  %7.2f %7.2f\n' \
				"$w" "$m45" "$mmd" "$mdr" "$mst" "$rm" "$rl" "$rh" "$sm" "$sl" "$sh" "$c45" "$cmd"
			echo "$w $m45 $l45 $h45 $mmd $lmd $hmd $mdr $ldr $hdr $mst $lst $hst" >>"$out/$cfg.dat"
			echo "$w r45/md per round:${bw[raid45.$w]} /${bw[md.$w]}" >>"$out/$cfg.rounds"
		done
		unset bw cpu
	done
done
# ---- the partial parity log (issue 26): raid45 with and without it,
# md with it (--consistency-policy=ppl), on the same members; RAID5,
# PPL_GEOMS (default 4 and 6 members, chunk 64), default caches ----
mk_raid45ppl() {
	local t d
	t="0 $len raid45 core 2 8192 nosync $r45type 1 $CHUNK ppl -2040 2040 0x1 $N -1"
	for d in "${devs[@]}"; do t+=" $d 2048"; done
	dmsetup create b_raid45 --table "$t" || return 1
	echo /dev/mapper/b_raid45
}
mk_mdppl() {
	mdadm --create /dev/md0 --run --quiet --assume-clean --level=5 \
		--layout=$md_layout --chunk=$((CHUNK / 2)) --raid-devices=$N \
		--consistency-policy=ppl "${devs[@]}" >/dev/null 2>&1 || return 1
	echo /dev/md0
}
# mk_delayed <ms>: devs become dm-delay devices over the ramdisks (a
# latency like a disk's on every member I/O, reads and writes), or the
# ramdisks themselves for 0
mk_delayed() {
	local i sz
	devs=("${raw[@]}")
	[ "$1" -gt 0 ] || return 0
	for i in "${!raw[@]}"; do
		sz=$(blockdev --getsz "${raw[$i]}")
		dmsetup create "b_dly$i" --table "0 $sz delay ${raw[$i]} 0 $1" || return 1
		devs[$i]=/dev/mapper/b_dly$i
	done
}
# dm-delay polls in a kthread for delays under 50 ms from Linux 6.8 on:
# one spinning thread per member starves two emulated CPUs, and the
# rows would measure that.  They run on older kernels (make bench
# KVER=6.1.0-...) and are left out here with a line that says so.
polls() { local v; v=$(uname -r); v=${v%%-*}
	[ "$1" -lt 50 ] && { [ "${v%%.*}" -gt 6 ] ||
		{ [ "${v%%.*}" = 6 ] && [ "$(echo "$v" | cut -d. -f2)" -ge 8 ]; }; }; }
# rows3 <name> <delays> <geoms> <workloads> <type> <type+log> <md+log>
#   <title> <log word>: for each delay and geometry, the three types on
# the same members (mk_<type>), ROUNDS interleaved rounds, a table of
# MiB/s medians, the log's cost and md's ratio with their spreads
rows3() {
	local name=$1 delays=$2 geoms=$3 wls=$4 title=$8 lw=$9 delay geom r i t w d dly
	local t0=$5 t1=$6 t2=$7
	local types=("$t0" "$t1" "$t2")
	for delay in $delays; do
	if [ "$delay" -gt 0 ] && polls "$delay"; then
		echo
		echo "== $name rows with dm-delay $delay ms left out: dm-delay polls for delays under 50 ms on $(uname -r) (run them with KVER=6.1.0-...)"
		continue
	fi
	for geom in $geoms; do
		set_geom "$geom" default
		raw=("${devs[@]}")
		declare -A bw=() cpu=()
		for r in $(seq "$ROUNDS"); do
			for i in 0 1 2; do
				t=${types[(i + r - 1) % 3]}
				rm_all
				# every member zeroed where md would find old logs
				for d in "${raw[@]}"; do mdadm --zero-superblock "$d" >/dev/null 2>&1; done
				mk_delayed "$delay" || die "bench: dm-delay over the members"
				if ! dev=$(mk_$t); then
					echo "bench: cannot create $t for $name $geom" >&2
					for w in $wls; do bw[$t.$w]+=" 0"; cpu[$t.$w]+=" 0"; done
					continue
				fi
				for w in $wls; do
					# shellcheck disable=SC2046
					set -- $(run_fio "$dev" $((len / 2048 / 2)) $(workload_args $w))
					bw[$t.$w]+=" $1"
					cpu[$t.$w]+=" $2"
				done
			done
		done
		rm_all
		echo
		dly=""
		[ "$delay" -gt 0 ] && dly=", members behind dm-delay $delay ms"
		echo "== $title: RAID$LEVEL, $N members, chunk $CHUNK sectors, default caches$dly ($ROUNDS rounds of ${RUNTIME} s; MiB/s medians)"
		printf '%-10s %8s %8s %8s  %-22s %-22s %15s\n' workload raid45 "r45+$lw" "md+$lw" \
			"r45+$lw/md+$lw [spread]" "r45+$lw/r45 [spread]" "CPU s/GiB r45+$lw md+$lw"
		for w in $wls; do
			read -r rm rl rh <<<"$(spread "$(ratios "${bw[$t1.$w]}" "${bw[$t2.$w]}")")"
			read -r cm cl ch <<<"$(spread "$(ratios "${bw[$t1.$w]}" "${bw[$t0.$w]}")")"
			printf '%-10s %8s %8s %8s  %4.2f [%4.2f-%4.2f]        %4.2f [%4.2f-%4.2f]        %7.2f %7.2f\n' \
				"$w" "$(median "${bw[$t0.$w]}")" "$(median "${bw[$t1.$w]}")" \
				"$(median "${bw[$t2.$w]}")" "$rm" "$rl" "$rh" "$cm" "$cl" "$ch" \
				"$(median "${cpu[$t1.$w]}")" "$(median "${cpu[$t2.$w]}")"
			echo "$w $name per round: r45${bw[$t0.$w]} / r45$lw${bw[$t1.$w]} / md$lw${bw[$t2.$w]}" \
				>>"$out/$name-$LEVEL-$N-$delay.rounds"
		done
		unset bw cpu
	done
	done
}
rows3 ppl "${PPL_DELAYS-0 2}" "${PPL_GEOMS-5:4:64 5:6:64}" "${PPL_WORKLOADS-seqwrite randwrite}" \
	raid45 raid45ppl mdppl "PPL" ppl

# ---- the write journal (issue 34): raid45 without a journal, with one
# (write-through), md with one (--write-journal, write-through), on the
# same members, the journal on /dev/ram5 (never delayed: the shape
# people deploy, a fast journal before slow members); J_GEOMS (default
# RAID5 4 members and RAID6 5, chunk 64), J_DELAYS ("0 2", as
# PPL_DELAYS), J_WORKLOADS ("seqwrite randwrite").  Write-back mode is
# not there yet: no rows for it. ----
JDEV=/dev/ram5
mk_raid45j() {
	local t d
	dd if=/dev/zero of=$JDEV bs=4k count=1 oflag=direct status=none
	t="0 $len raid45 core 2 8192 nosync $r45type 1 $CHUNK journal_dev $JDEV $N -1"
	for d in "${devs[@]}"; do t+=" $d 2048"; done
	dmsetup create b_raid45 --table "$t" || return 1
	echo /dev/mapper/b_raid45
}
mk_mdj() {
	mdadm --zero-superblock $JDEV >/dev/null 2>&1
	mdadm --create /dev/md0 --run --quiet --assume-clean --level="$LEVEL" \
		--layout=$md_layout --chunk=$((CHUNK / 2)) --raid-devices=$N \
		--write-journal $JDEV "${devs[@]}" >/dev/null 2>&1 || return 1
	echo /dev/md0
}
for geom in ${J_GEOMS-5:4:64 6:5:64}; do
	[ "${geom#*:}" \< 6 ] || die "bench: J_GEOMS $geom: at most 5 members (ram5 is the journal)"
done
rows3 journal "${J_DELAYS-0 2}" "${J_GEOMS-5:4:64 6:5:64}" "${J_WORKLOADS-seqwrite randwrite}" \
	raid45 raid45j mdj "journal (write-through, on a ramdisk)" j

[ "$EXTRAS" = 1 ] || exit 0

# ---- RAID6: two members failed (dm-error), degraded reads against md ----
CACHE=4096
set_geom 6:5:64 4096
mk_gone() { dmsetup create b_gone1 --table "0 $((MIB * 2048)) error"
	dmsetup create b_gone2 --table "0 $((MIB * 2048)) error"; }
declare -A ex
for r in $(seq "$ROUNDS"); do
	for t in raid45 md; do
		rm_all
		mk_gone
		if [ $t = raid45 ]; then
			devs=(/dev/ram0 /dev/mapper/b_gone1 /dev/ram2 /dev/mapper/b_gone2 /dev/ram4)
			dev=$(mk_raid45) || die "bench: raid45 RAID6 with two members failed"
			dd if="$dev" of=/dev/null bs=1M count=4 iflag=direct status=none 2>/dev/null
		else
			dev=$(mk_md /dev/ram0 missing /dev/ram2 missing /dev/ram4) ||
				die "bench: md RAID6 with two members missing"
		fi
		set -- $(run_fio "$dev" $((len / 2048 / 2)) --rw=read --bs=1m --iodepth=8)
		ex[$t.r6degread2]+=" $1"
	done
done

# ---- RAID5: degraded read (one member failed) and rebuild ----
set_geom 5:5:64 4096
for r in $(seq "$ROUNDS"); do
	for t in raid45 md; do
		rm_all
		mk_gone
		if [ $t = raid45 ]; then
			devs=(/dev/ram0 /dev/mapper/b_gone1 /dev/ram2 /dev/ram3 /dev/ram4)
			dev=$(mk_raid45) || die "bench: raid45 RAID5 with a member failed"
			dd if="$dev" of=/dev/null bs=1M count=4 iflag=direct status=none 2>/dev/null
		else
			dev=$(mk_md /dev/ram0 missing /dev/ram2 /dev/ram3 /dev/ram4) ||
				die "bench: md RAID5 with a member missing"
		fi
		set -- $(run_fio "$dev" $((len / 2048 / 2)) --rw=read --bs=1m --iodepth=8)
		ex[$t.r5degread]+=" $1"
		rm_all
		# rebuild member 1 with nothing else running
		devs=(/dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 /dev/ram4)
		if [ $t = raid45 ]; then
			tb="0 $len raid45 core 2 8192 nosync raid5_ls 2 $CHUNK 4096 $N 1"
			for d in "${devs[@]}"; do tb+=" $d 2048"; done
			start=$(date +%s.%N)
			dmsetup create b_raid45 --table "$tb" || die "bench: raid45 rebuild table"
			while sc=$(sync_count b_raid45 $N) && [ -n "$sc" ] &&
				[ "${sc%/*}" != "${sc#*/}" ]; do
				sleep 0.1
			done
			[ -n "$sc" ] || die "bench: no raid45 status during the rebuild"
		else
			mk_md /dev/ram0 missing /dev/ram2 /dev/ram3 /dev/ram4 >/dev/null ||
				die "bench: md RAID5 for the rebuild"
			start=$(date +%s.%N)
			mdadm /dev/md0 --add /dev/ram1 >/dev/null 2>&1 || die "bench: mdadm --add"
			sleep 0.1
			while [ "$(cat /sys/block/md0/md/sync_action)" != idle ]; do sleep 0.1; done
		fi
		secs=$(echo "$(date +%s.%N) - $start" | bc -l)
		ex[$t.r5rebuild]+=" $(echo "$per_dev / 2048 / $secs" | bc -l | xargs printf '%.1f')"
	done
done
rm_all
echo
echo "== degraded and rebuild (cache 4096, $ROUNDS rounds; MiB/s medians)"
printf '%-22s %8s %8s  %s\n' workload raid45 md "r45/md [spread]"
for w in r6degread2 r5degread r5rebuild; do
	read -r rm rl rh <<<"$(spread "$(ratios "${ex[raid45.$w]}" "${ex[md.$w]}")")"
	printf '%-22s %8s %8s  %4.2f [%4.2f-%4.2f]\n' "$w" "$(median "${ex[raid45.$w]}")" \
		"$(median "${ex[md.$w]}")" "$rm" "$rl" "$rh"
done
echo "(r6degread2: RAID6 5 members, two failed; r5rebuild: MiB/s of the rebuilt member)"

# ---- how long "dmsetup suspend" takes under full write load ----
declare -A sus
for t in raid45 dmraid; do
	rm_all
	dev=$(mk_$t)
	fio --name=s --filename="$dev" --direct=1 --ioengine=libaio --rw=write --bs=1m \
		--iodepth=8 --size=$((len / 2048 / 2))m --runtime=600 --time_based >/dev/null 2>&1 &
	fpid=$!
	sleep 3
	for r in $(seq "$ROUNDS"); do
		start=$(date +%s.%N)
		dmsetup suspend "b_$t"
		ms=$(echo "($(date +%s.%N) - $start) * 1000" | bc -l | xargs printf '%.0f')
		dmsetup resume "b_$t"
		sus[$t]+=" $ms"
		sleep 2
	done
	kill $fpid
	wait $fpid 2>/dev/null
done
rm_all
echo
printf '%-22s %8s %8s\n' "suspend under load" raid45 dm-raid
printf '%-22s %8s %8s\n' "ms (median)" "$(median "${sus[raid45]}")" "$(median "${sus[dmraid]}")"
echo "(TCG guest: ratios and their spreads matter, not absolutes)"
