#!/bin/bash
# kernels: 6.1
# cost: 230
# Control plane: every message and abbreviation, malformed messages
# refused without change, several raid45 targets in one table, and
# suspend/load/resume cycles plus random messages under a verified load.
. "$(dirname "$0")/lib.sh"
load_module
make_ramdisks 12 16
D="/dev/ram0 2048 /dev/ram1 2048 /dev/ram2 2048 /dev/ram3 2048"
per_dev=$((12 * 2048))
T="0 $((per_dev * 3)) raid45 core 2 256 nosync raid5_ls 2 64 64 4 -1 $D"
dmsetup create r45c --table "$T" || die "create"
tw() { dmsetup table r45c | awk -v n="$1" '{ print $(n + 3) }'; }	# table word n
msg_ok() { dmsetup message r45c 0 "$@" || die "message refused: $*"; }
msg_bad() {
	local before
	before=$(dmsetup table r45c)
	dmsetup message r45c 0 "$@" 2>/dev/null && die "bad message accepted: $*"
	[ "$(dmsetup table r45c)" = "$before" ] || die "bad message changed the table: $*"
}
# stripe cache: word 8 of the table is #stripes
msg_ok stripe_cache set 128; [ "$(tw 8)" = 128 ] || die "set: $(tw 8)"
msg_ok str grow 64; [ "$(tw 8)" = 192 ] || die "grow: $(tw 8)"
msg_ok stripe_c shrink 32; [ "$(tw 8)" = 160 ] || die "shrink: $(tw 8)"
# bandwidth: word 11
msg_ok bandwidth set 50; [ "$(tw 11)" = 50 ] || die "bandwidth set: $(tw 11)"
msg_ok ban gro 10; [ "$(tw 11)" = 60 ] || die "bandwidth grow: $(tw 11)"
msg_ok band shr 20; [ "$(tw 11)" = 40 ] || die "bandwidth shrink: $(tw 11)"
msg_ok statistics on
dmsetup status r45c | grep -q ' stats ' || die "statistics on: no counters"
msg_ok sta reset
msg_ok stat off
dmsetup status r45c | grep -q ' stats ' && die "statistics off: counters still shown"
msg_ok overwrite on; msg_ok ove off; msg_ok over reset
msg_ok allow_writes; msg_ok all
msg_ok check; wait_in_sync r45c 4 120
msg_ok frozen; [ "$(sync_action r45c)" = frozen ] || die "frozen not shown"
msg_ok idle; msg_ok rep; wait_in_sync r45c 4 120
msg_ok resync; wait_in_sync r45c 4 120
msg_ok recover; wait_in_sync r45c 4 120
msg_bad xor xor_blocks 4
msg_bad nonsense
msg_bad st set 10
msg_bad stripe_cache
msg_bad stripe_cache set
msg_bad stripe_cache set 7
msg_bad stripe_cache set 16385
msg_bad stripe_cache set abc
msg_bad stripe_cache set 10 11
msg_bad stripe_cache fly 10
msg_bad stripe_cache shrink 200
msg_bad bandwidth set 0
msg_bad bandwidth set 101
msg_bad bandwidth grow 4294967295
msg_bad statistics maybe
msg_bad statistics on off
msg_bad check now
msg_bad allow_writes please
msg_bad ch
echo "ok messages"

# 70 suspend/load/resume cycles (every third with a new #stripes, every
# fourth suspend with noflush) and 350 random messages while fio writes
# and verifies.  One process sends them all through the device-mapper
# ioctls (dmctl.py), as a dmsetup exec costs ~0.1 s in the TCG guest;
# the reloads with dmsetup itself are the resync part below.
rm -f /tmp/stop /tmp/fiofail
( while [ ! -e /tmp/stop ]; do
	fio --name=ctl --filename=/dev/mapper/r45c --direct=1 --ioengine=libaio --iodepth=8 \
		--rw=randwrite --bsrange=4k-64k --numjobs=4 --size=8m --offset_increment=8m \
		--verify=crc32c --verify_fatal=1 --randrepeat=0 --minimal >/tmp/fio.out 2>&1 ||
		{ touch /tmp/fiofail; break; }
done ) &
fiopid=$!
st=/sys/block/dm-$(dmsetup info -c --noheadings -o minor r45c | tr -d ' ')/stat
w0=$(awk '{ print $5 }' "$st")
RANDOM=77
words=(stripe_cache str bandwidth ban statistics stat overwrite ove check idle frozen
	xor allow_writes bogus set grow shrink on off reset 8 64 100 16384 -1 abc 99999999999)
# (70 cycles: 200 before issue 32, 100 before issue 35; each is a
# suspend under load)
for i in $(seq 70); do
	n=$((RANDOM % 4))
	m=()
	for _ in $(seq $((n + 1))); do m+=("${words[RANDOM % ${#words[@]}]}"); done
	echo "any message r45c 0 ${m[*]}"
	for _ in 1 2 3 4; do
		echo "any message r45c 0 ${words[RANDOM % ${#words[@]}]} ${words[RANDOM % ${#words[@]}]}"
	done
	t=$T
	[ $((i % 3)) = 0 ] && t=${T/ 2 64 64 / 2 64 $((32 + i)) }
	if [ $((i % 4)) = 0 ]; then echo "ok suspend-noflush r45c"; else echo "ok suspend r45c"; fi
	echo "ok load r45c $t"
	echo "ok resume r45c"
	echo "ok sleep 0.02"	# and a little fio between reloads
done > /tmp/cycles
cut -d' ' -f2- /tmp/cycles | python3 "$(dirname "$0")/dmctl.py" > /tmp/cycles.out ||
	die "dmctl failed"
paste -d' ' /tmp/cycles /tmp/cycles.out | awk '$1 == "ok" && $NF != "ok" { print; bad = 1 } END { exit bad }' ||
	die "a suspend, load or resume failed"
[ "$(wc -l < /tmp/cycles.out)" = "$(wc -l < /tmp/cycles)" ] || die "dmctl did not answer every command"
[ "$(awk '{ print $5 }' "$st")" -gt $((w0 + 100)) ] || die "fio did not write during the cycles"
dmsetup message r45c 0 idle >/dev/null 2>&1
touch /tmp/stop
wait $fiopid
[ -e /tmp/fiofail ] && { cat /tmp/fio.out; die "fio verify failed during cycles"; }
fio --name=ctl --filename=/dev/mapper/r45c --direct=1 --ioengine=libaio --iodepth=8 \
	--rw=randwrite --bsrange=4k-64k --numjobs=4 --size=8m --offset_increment=8m \
	--verify=crc32c --verify_fatal=1 --minimal >/tmp/fio.out 2>&1 || { cat /tmp/fio.out; die "fio after cycles"; }
dmsetup remove r45c
echo "ok $i suspend/load/resume cycles with messages"

# three raid45 targets in one device: raid5_ls, raid4, raid6_nc
l1=$((per_dev * 3)); l2=$((per_dev * 3)); l3=$((per_dev * 2))
{
	echo "0 $l1 raid45 core 2 256 nosync raid5_ls 1 64 4 -1 /dev/mapper/w0 2048 /dev/mapper/w1 2048 /dev/mapper/w2 2048 /dev/mapper/w3 2048"
	echo "$l1 $l2 raid45 core 2 256 nosync raid4 -1 1 64 4 -1 /dev/ram4 2048 /dev/ram5 2048 /dev/ram6 2048 /dev/ram7 2048"
	echo "$((l1 + l2)) $l3 raid45 core 2 256 nosync raid6_nc 1 64 4 -1 /dev/ram8 2048 /dev/ram9 2048 /dev/ram10 2048 /dev/ram11 2048"
} > /tmp/multi
for i in 0 1 2 3; do wrap_member "w$i" "/dev/ram$i"; done
dmsetup create r45m < /tmp/multi || die "multi-target create"
[ "$(dmsetup status r45m | wc -l)" = 3 ] || die "expected 3 status lines"
mf() { fio --name=multi --filename=/dev/mapper/r45m --direct=1 --ioengine=libaio --iodepth=8 \
	--rw=randwrite --bsrange=4k-256k --numjobs=4 --size=$(((l1 + l2 + l3) / 2048 / 4))m \
	--offset_increment=$(((l1 + l2 + l3) / 2048 / 4))m --verify=crc32c --verify_fatal=1 \
	--minimal "$@" >/tmp/fio.out 2>&1; }
ack_failures r45m &
mf &
fiopid=$!
sleep 1
fail_wrapper w2
wait $fiopid || { cat /tmp/fio.out; die "fio verify across three targets"; }
mf --verify_only || { cat /tmp/fio.out; die "verify_only across three targets"; }
dmsetup status r45m
h=$(dmsetup status r45m | awk '{ print $10 }' | tr '\n' ' ')
[ "$h" = "AADA AAAAp AAAA " ] || die "only the first array should degrade: $h"
dmsetup remove r45m
echo "ok three targets in one table"

# reloads while resync runs (bandwidth 1 % under load keeps it running):
# each reload goes on from where the last table was, never backwards;
# afterwards the resync completes and every stripe is right.
for i in 0 1 2 3; do fill_dev "/dev/ram$i" 16 /dev/urandom; done
TS="0 $((per_dev * 3)) raid45 core 2 64 sync raid5_ls 5 64 -1 -1 -1 1 4 -1 $D"
dmsetup create r45r --table "$TS" || die "create resyncing array"
dmsetup message r45r 0 frozen || die "frozen"	# until the load runs
rf() { fio --name=rs --filename=/dev/mapper/r45r --direct=1 --ioengine=libaio --iodepth=8 \
	--rw=randwrite --bsrange=4k-64k --numjobs=4 --size=8m --offset_increment=8m \
	--verify=crc32c --verify_fatal=1 --minimal "$@" >/tmp/fio.out 2>&1; }
rm -f /tmp/stop /tmp/fiofail
( while [ ! -e /tmp/stop ]; do rf --randrepeat=0 || { touch /tmp/fiofail; break; }; done ) &
fiopid=$!
# and a steady reader, so that the application is never idle
fio --name=rd --filename=/dev/mapper/r45r --direct=1 --ioengine=libaio --iodepth=2 \
	--rw=randread --bs=4k --time_based --runtime=3600 >/dev/null 2>&1 &
rdpid=$!
st=/sys/block/dm-$(dmsetup info -c --noheadings -o minor r45r | tr -d ' ')/stat
w0=$(awk '{ print $5 }' "$st")
while [ "$(awk '{ print $5 }' "$st")" -lt $((w0 + 100)) ]; do sleep 0.05; done
prev=$(sync_count r45r 4)
prev=${prev%/*}
moved=0
# (40 reloads: 200 before issue 32, 60 before issue 35; the resync
# moved in every one)
for i in $(seq 40); do
	t=$TS
	[ $((i % 3)) = 0 ] && t=${TS/ 5 64 -1 / 5 64 $((32 + i)) }
	dmsetup suspend r45r && dmsetup load r45r --table "$t" && dmsetup resume r45r ||
		die "reload $i while resyncing"
	sc=$(sync_count r45r 4)
	[ "${sc%/*}" -ge "$prev" ] || die "sync count went backwards over reload $i: $prev -> $sc"
	[ "${sc%/*}" -gt "$prev" ] && moved=$((moved + 1))
	prev=${sc%/*}
	[ -e /tmp/fiofail ] && break
done
touch /tmp/stop
wait $fiopid
kill $rdpid
wait $rdpid 2>/dev/null
[ -e /tmp/fiofail ] && { cat /tmp/fio.out; die "fio verify failed during reloads"; }
echo "sync count after $i reloads: $(sync_count r45r 4) (moved in $moved)"
[ "$moved" -gt 0 ] || die "resync made no progress during the reloads"
dmsetup message r45r 0 bandwidth set 100
wait_in_sync r45r 4 600
rf --verify_only || { cat /tmp/fio.out; die "data after resync with reloads"; }
dmsetup remove r45r
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 ||
	die "bad stripes after a resync across reloads"
echo "ok resync across reloads"

# a reload does not bring a failed member back: member 1 fails, the
# array is written degraded (member 1 now stale), member 1's device
# works again, the same table is reloaded: member 1 stays D and every
# read returns what was written, not the stale blocks
for i in 0 1 2 3; do wrap_member "w$i" "/dev/ram$i"; done
TW="0 $((per_dev * 3)) raid45 core 2 256 nosync raid5_ls 1 64 4 -1"
for i in 0 1 2 3; do TW+=" /dev/mapper/w$i 2048"; done
dmsetup create r45w --table "$TW" || die "create over wrappers"
head -c $((per_dev * 3 * 512)) /dev/urandom > /tmp/ref
dd if=/tmp/ref of=/dev/mapper/r45w bs=1M oflag=direct status=none || die "write"
fail_wrapper w1
dd if=/dev/mapper/r45w of=/dev/null bs=1M iflag=direct status=none || die "degraded read"
[ "$(health r45w 4)" = ADAA ] || die "member 1 not failed: $(health r45w 4)"
[ "$(ext_word r45w 3)" = held ] || die "writes not held after a failure"
dmsetup message r45w 0 allow_writes || die "allow_writes"
head -c $((per_dev * 3 * 512)) /dev/urandom > /tmp/ref
dd if=/tmp/ref of=/dev/mapper/r45w bs=1M oflag=direct status=none || die "degraded write"
wrap_member w1 /dev/ram1
dmsetup suspend r45w && dmsetup load r45w --table "$TW" && dmsetup resume r45w || die "reload"
[ "$(health r45w 4)" = ADAA ] || die "a reload brought the failed member back: $(health r45w 4)"
cmp /tmp/ref /dev/mapper/r45w || die "reads after the reload differ from what was written"
dmsetup remove r45w
echo "ok a reload keeps a failed member failed"
