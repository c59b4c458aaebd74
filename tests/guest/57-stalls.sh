#!/bin/bash
# No stalls (issue 11, must-show 4): while a resync with 64 MiB regions
# runs under random writes, "frozen", "idle", "bandwidth set 1" and
# stripe cache resizes never hold an application write longer than one
# region's own sync time.  That time is measured in the same run, under
# the same load, at 100 % bandwidth (the longest of three regions); the
# worst write latency fio saw over the whole run is compared with it.
# A write that lands in the region being resynced waits for that region:
# that much is the price of the region hash; anything longer is a stall
# (a region held across a freeze, or across the bandwidth throttle).
. "$(dirname "$0")/lib.sh"
load_module
MIB=640
make_ramdisks 4 $MIB	# zeroed: the resync reads, computes, writes nothing
RS=131072		# 64 MiB regions
per_dev=$(((MIB - 1) * 2048))
len=$((per_dev * 3))
nr=$(((len + RS - 1) / RS))
t="0 $len raid45 core 2 $RS sync raid5_ls 5 64 256 -1 -1 100 4 -1"
for d in /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3; do t+=" $d 2048"; done
dmsetup create r45st --table "$t" || die "create"
dmsetup message r45st 0 frozen || die "frozen"	# until the load runs
msg() { dmsetup message r45st 0 "$@" || die "message refused: $*"; }
# the in-sync count, polled every 20 ms: "<seconds> <in_sync>/<regions>"
python3 "$(dirname "$0")/sync-watch.py" r45st 4 >/tmp/sw.log &
watchpid=$!
done_regions() { local s; s=$(tail -n 1 /tmp/sw.log | cut -d' ' -f2); echo "${s%/*}"; }
now() { date +%s.%N; }
T0=$(now)
phase() { echo "$(echo "$(now) - $T0" | bc | xargs printf '%6.2f') s: $*"; }

rm -f /tmp/st.json /tmp/st_lat.*
fio --name=st --filename=/dev/mapper/r45st --direct=1 --ioengine=libaio --iodepth=4 \
	--rw=randwrite --bs=4k --time_based --runtime=600 --randrepeat=0 \
	--output-format=json --output=/tmp/st.json \
	--write_lat_log=/tmp/st --log_avg_msec=0 &
fiopid=$!
st=/sys/block/dm-$(dmsetup info -c --noheadings -o minor r45st | tr -d ' ')/stat
w0=$(awk '{ print $5 }' "$st")
while [ "$(awk '{ print $5 }' "$st")" -lt $((w0 + 100)) ]; do sleep 0.05; done
phase "fio writes; resync starts (idle)"
msg idle

# a region's own sync time at 100 %: three consecutive regions, timed
# by the watcher (from one region marked in sync to the next)
l0=$(wc -l < /tmp/sw.log)
while [ "$(wc -l < /tmp/sw.log)" -lt $((l0 + 4)) ]; do
	[ "$(done_regions)" -lt "$nr" ] || die "the resync finished while being timed"
	sleep 0.1
done
T=$(tail -n +$((l0 + 1)) /tmp/sw.log | head -n 4 | awk '
	NR > 1 { r = $1 - t; printf "region time %d: %.3f s (%s in sync)\n", NR - 1, r, $2 > "/dev/stderr"
		 if (r > m) m = r }
	{ t = $1 } END { printf "%.3f\n", m }')
hold=$(echo "if ($T * 3 < 3) 3 else $T * 3" | bc)
phase "one region takes up to $T s at 100 %; each phase lasts $hold s"

phase "frozen"
msg frozen
sleep "$hold"
phase "idle"
msg idle
phase "bandwidth set 1"
msg bandwidth set 1
sleep "$hold"
phase "bandwidth set 100"
msg bandwidth set 100
# (without the fix the throttle still holds its region: frozen and idle
# cut that wait, so that the test ends either way)
phase "frozen, idle"
msg frozen
msg idle
phase "stripe cache resizes and idle"
end=$(echo "$(now) + $hold * 2 / 3" | bc)
sizes=(8 1024 16 256 8 512)
i=0
while [ "$(echo "$(now) < $end" | bc)" = 1 ]; do
	msg stripe_cache set "${sizes[i % ${#sizes[@]}]}"
	[ $((i % 3)) = 2 ] && msg idle
	i=$((i + 1))
	sleep 0.3
done
msg stripe_cache set 256
left=$(done_regions)
phase "done: $left/$nr regions in sync"
kill -INT $fiopid
wait $fiopid
kill $watchpid

# fio may put a line of its own ("fio: terminating on signal 2") first
sed -n '/^{/,$p' /tmp/st.json >/tmp/st.clean.json
worst=$(jq '.jobs[0].write.lat_ns.max' /tmp/st.clean.json)
ios=$(jq '.jobs[0].write.total_ios' /tmp/st.clean.json)
[ "${ios:-0}" -gt 100 ] || die "fio wrote too little ($ios writes)"
echo "the five slowest writes (completion ms after fio start, latency ms):"
sort -t, -k2 -n -r /tmp/st_lat.1.log | head -5 |
	awk -F, '{ printf "  %8d ms  %10.1f ms\n", $1, $2 / 1e6 }'
worst_s=$(echo "scale=3; $worst / 1000000000" | bc)
echo "worst write latency: $worst_s s over $ios writes; one region's sync time: $T s"
dmsetup remove r45st
[ "$(echo "$worst_s <= $T" | bc)" = 1 ] ||
	die "a write was held $worst_s s, longer than one region's sync time ($T s)"
[ "$left" -lt "$nr" ] || die "the resync finished before the phases ended: the test proves nothing"
echo "ok no write held longer than one region's sync time"
