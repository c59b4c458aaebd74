#!/bin/bash
# kernels: 6.1
# cost: 48
# No stalls (issue 11, must-show 4): while a resync with 64 MiB regions
# runs under random writes, "frozen", "idle", "bandwidth set 1" and
# stripe cache resizes never hold an application write longer than one
# region's own sync time.  That time is measured in the same run, under
# the same load, at 100 % bandwidth (the longest region synced while the
# bandwidth was 100 % and nothing was frozen, resizes included); the
# worst write latency fio saw over the whole run is compared with it.
# A write that lands in the region being resynced waits for that region:
# that much is the price of the region hash; anything longer is a stall
# (a region held across a freeze, or across the bandwidth throttle).
. "$(dirname "$0")/lib.sh"
load_module
MIB=800
make_ramdisks 4 $MIB	# zeroed: the resync reads, computes, writes nothing
RS=131072		# 64 MiB regions
per_dev=$(((MIB - 1) * 2048))
len=$((per_dev * 3))
nr=$(((len + RS - 1) / RS))
# one recovery stripe in flight: a region takes a few seconds, well above
# the guest's own scheduling noise (~1.5 s under TCG on a busy host)
t="0 $len raid45 core 2 $RS sync raid5_ls 7 64 256 -1 -1 100 -1 1 4 -1"
for d in /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3; do t+=" $d 2048"; done
dmsetup create r45st --table "$t" || die "create"
dmsetup message r45st 0 frozen || die "frozen"	# until the load runs
msg() { dmsetup message r45st 0 "$@" || die "message refused: $*"; }
# the in-sync count, polled every 20 ms: "<unix time> <in_sync>/<regions>"
python3 "$(dirname "$0")/sync-watch.py" r45st 4 >/tmp/sw.log &
watchpid=$!
done_regions() { local s; s=$(tail -n 1 /tmp/sw.log | cut -d' ' -f2); echo "${s%/*}"; }
now() { date +%s.%N; }
T0=$(now)
# phases: printed relative to T0, kept as "<unix time> <name>" in /tmp/phases
phase() {
	local t; t=$(now)
	echo "$t $*" >>/tmp/phases
	echo "$(echo "$t - $T0" | bc | xargs printf '%6.2f') s: $*"
}
rm -f /tmp/phases

rm -f /tmp/st.json /tmp/st_lat.*
fio --name=st --filename=/dev/mapper/r45st --direct=1 --ioengine=libaio --iodepth=4 \
	--rw=randwrite --bs=4k --time_based --runtime=600 --randrepeat=0 \
	--output-format=json --output=/tmp/st.json \
	--write_lat_log=/tmp/st --log_avg_msec=0 --log_unix_epoch=1 &
fiopid=$!
st=/sys/block/dm-$(dmsetup info -c --noheadings -o minor r45st | tr -d ' ')/stat
w0=$(awk '{ print $5 }' "$st")
while [ "$(awk '{ print $5 }' "$st")" -lt $((w0 + 100)) ]; do sleep 0.05; done
phase "fio writes; resync starts (idle)"
msg idle
phase "measure: 100 %"
l0=$(wc -l < /tmp/sw.log)
while [ "$(wc -l < /tmp/sw.log)" -lt $((l0 + 4)) ]; do
	[ "$(done_regions)" -lt "$nr" ] || die "the resync finished while being timed"
	sleep 0.1
done
T=$(tail -n +$((l0 + 1)) /tmp/sw.log | head -n 4 | awk '
	NR > 1 { r = $1 - t; if (r > m) m = r } { t = $1 } END { printf "%.3f\n", m }')
hold=$(echo "if ($T * 2 < 4) 4 else $T * 2" | bc)
phase "measured: a region takes up to $T s; each phase lasts $hold s"
phase "frozen"
msg frozen
sleep "$hold"
phase "idle"
msg idle
phase "bandwidth set 1"
msg bandwidth set 1
# the throttle's count starts once the region in flight has ended (or
# after $hold s) and lasts 3 region times (at least 3 s): a throttle
# that does not throttle ends 2 or more regions in it
bw_end=$(echo "$(now) + $hold" | bc)
b0=$(done_regions)
while [ "$(done_regions)" = "$b0" ] && [ "$(echo "$(now) < $bw_end" | bc)" = 1 ]; do
	sleep 0.05
done
bw_from=$(done_regions)
bw_t0=$(now)
sleep "$(echo "if ($T * 3 < 3) 3 else $T * 3" | bc)"
bw_to=$(done_regions)
bw_secs=$(echo "$(now) - $bw_t0" | bc | xargs printf '%.1f')
phase "bandwidth set 100"
msg bandwidth set 100
# (without the fix the throttle still holds its region: frozen and idle
# cut that wait, so that the test ends either way)
phase "frozen, idle"
msg frozen
msg idle
phase "resizes: stripe cache resizes and idle at 100 %"
end=$(echo "$(now) + $hold * 3 / 4" | bc)
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
sleep 0.1
phase "fio stopped"
kill $watchpid

# a region's own sync time: the longest interval between two regions
# marked in sync, both inside a window at 100 % with nothing frozen (the
# resizes go on at 100 % until fio has stopped)
T=$(awk -v OFS=' ' '
	FNR == NR { if ($2 == "done:") next
		    if ($2 == "measure:" || $2 == "resizes:") { s = $1; open = 1 }
		    else if (open) { w[++n] = s " " $1; open = 0 }
		    next }
	{ for (i = 1; i <= n; i++) { split(w[i], b, " ")
		if ($1 >= b[1] && $1 <= b[2]) {
			if (prev != "" && prev >= b[1]) { r = $1 - prev; if (r > m) m = r; c++ }
			break } }
	  prev = $1 }
	END { printf "%.3f %d\n", m, c }' /tmp/phases /tmp/sw.log)
nreg=${T#* }
T=${T% *}
echo "a region's sync time at 100 %: up to $T s ($nreg regions timed)"
# fio may put a line of its own ("fio: terminating on signal 2") first
sed -n '/^{/,$p' /tmp/st.json >/tmp/st.clean.json
worst=$(jq '.jobs[0].write.lat_ns.max' /tmp/st.clean.json)
ios=$(jq '.jobs[0].write.total_ios' /tmp/st.clean.json)
[ "${ios:-0}" -gt 100 ] || die "fio wrote too little ($ios writes)"
echo "the five slowest writes (submitted, completed: s after T0; latency; phase at submission):"
sort -t, -k2 -n -r /tmp/st_lat.1.log | head -5 | while IFS=, read -r ms ns _; do
	c=$(echo "scale=3; $ms / 1000" | bc)
	s=$(echo "scale=3; $c - $ns / 1000000000" | bc)
	p=$(awk -v t="$s" '$1 <= t { p = $0 } END { sub(/^[^ ]* /, "", p); print p }' /tmp/phases)
	printf '  %7.2f  %7.2f  %7.3f s  %s\n' "$(echo "$s - $T0" | bc)" "$(echo "$c - $T0" | bc)" \
		"$(echo "scale=3; $ns / 1000000000" | bc)" "$p"
done
worst_s=$(echo "scale=3; $worst / 1000000000" | bc)
# The allowance is for TCG: with other guests on the host a vCPU can
# stall for ~0.5 s, and a region timed at 100 % varies by half between
# regions; the old code held writes for 2.8 region times (6.2 s against
# 2.2 s), far beyond it.
limit=$(echo "scale=3; $T * 1.5 + 0.5" | bc)
echo "worst write latency: $worst_s s over $ios writes; one region's sync time: $T s (limit $limit s)"
dmsetup remove r45st
[ "$nreg" -ge 3 ] || die "too few regions timed at 100 %"
[ "$(echo "$worst_s <= $limit" | bc)" = 1 ] ||
	die "a write was held $worst_s s, longer than one region's sync time ($T s; limit $limit s)"
# The throttle must throttle (not only not stall): at 1 % a region's sync
# is followed by ~99 times its length of waiting, so once the region in
# flight at "bandwidth set 1" has ended, no other ends during the rest
# of the phase (one allowed for the 20 ms poll).  e6df961's throttle
# missed an application its own step had blocked and let regions run
# back to back at bandwidth 1.
echo "regions synced at bandwidth 1 after the one in flight: $((bw_to - bw_from)) in $bw_secs s"
[ $((bw_to - bw_from)) -le 1 ] ||
	die "bandwidth 1 did not slow the resync: $((bw_to - bw_from)) regions in $bw_secs s"
[ "$left" -lt "$nr" ] || die "the resync finished before the phases ended: the test proves nothing"
echo "ok no write held longer than one region's sync time"
