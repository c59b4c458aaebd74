#!/bin/bash
# kernels: 6.12
# cost: 150
# Initial resync and the md-style sync actions: members full of garbage
# created with "sync" end with zero bad stripes; "nosync" is in sync at
# once; a data block corrupted behind the array's back is found by
# "check" (one mismatch, nothing changed) and fixed by "repair"; resync
# pauses while suspended and continues after resume.
. "$(dirname "$0")/lib.sh"
load_module
make_ramdisks 4 24
devs=(/dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3)
per_dev=$((20 * 2048))
len=$((per_dev * 3))
mk_table() { # <sync|nosync> <type> [extra raid params...]
	local t="0 $len raid45 core 2 256 $1 $2" d
	[ "$2" = raid4 ] && t+=" -1"
	t+=" 1 64 4 -1"
	for d in "${devs[@]}"; do t+=" $d 2048"; done
	echo "$t"
}

for type in raid5_ls raid4 raid6_nc; do
	pd=1; [ "${type#raid6}" != "$type" ] && pd=2
	l=$((per_dev * (4 - pd)))
	for d in "${devs[@]}"; do fill_dev "$d" 24 /dev/urandom; done
	t=$(mk_table sync "$type"); t="0 $l ${t#0 $len }"
	dmsetup create r45s --table "$t" || die "create $type"
	wait_in_sync r45s 4 600
	dmsetup remove r45s
	"$PARCHECK" -t "$type" -c 64 -o 2048 -n $((per_dev / 64)) "${devs[@]}" >/tmp/pc ||
		{ cat /tmp/pc; die "initial sync left bad stripes ($type)"; }
	echo "ok $type sync: $(cat /tmp/pc)"
done

# nosync: all regions in sync at once, action idle, no progress word
dmsetup create r45s --table "$(mk_table nosync raid5_ls)"
sc=$(sync_count r45s 4)
[ "${sc%/*}" = "${sc#*/}" ] || die "nosync not in sync at once: $sc"
[ "$(progress r45s)" = - ] || die "idle: progress not -: $(dmsetup status r45s)"
dmsetup remove r45s

# check / repair on a consistent array with one corrupted data block
dmsetup create r45s --table "$(mk_table nosync raid5_ls)"
head -c $((len * 512)) /dev/urandom > /tmp/data
dd if=/tmp/data of=/dev/mapper/r45s bs=1M oflag=direct status=none
dmsetup remove r45s
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) "${devs[@]}" >/dev/null || die "not consistent before corruption"
# stripe row 5, member 1 (a data block there): flip 4 KiB
dd if=/dev/urandom of=/dev/ram1 bs=4096 seek=$(((2048 + 5 * 64) / 8)) count=1 conv=notrunc oflag=direct status=none
raw_copy /dev/ram1 /tmp/ram1.before
dmsetup create r45s --table "$(mk_table nosync raid5_ls)"
dmsetup message r45s 0 check || die "check refused"
wait_in_sync r45s 4 300
mm=$(mismatches r45s)
[ "$mm" = 1 ] || die "check found $mm mismatches, expected 1: $(dmsetup status r45s)"
dmsetup remove r45s
raw_copy /dev/ram1 /tmp/ram1.after
cmp /tmp/ram1.before /tmp/ram1.after || die "check changed a member"
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) "${devs[@]}" >/dev/null && die "corruption not visible to parity-check"
dmsetup create r45s --table "$(mk_table nosync raid5_ls)"
dmsetup message r45s 0 rep || die "repair refused"
wait_in_sync r45s 4 300
[ "$(progress r45s)" = - ] || die "repair done: progress not -: $(dmsetup status r45s)"
dmsetup message r45s 0 che || die "second check refused"
wait_in_sync r45s 4 300
mm=$(mismatches r45s)
[ "$mm" = 0 ] || die "check after repair found $mm mismatches"
dmsetup remove r45s
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) "${devs[@]}" >/dev/null || die "repair left bad stripes"
echo "ok check/repair"

# resync pauses while suspended and continues after resume
for d in "${devs[@]}"; do fill_dev "$d" 24 /dev/urandom; done
t=$(mk_table sync raid5_ls); t="0 $len raid45 core 2 64 sync raid5_ls 5 64 -1 -1 -1 100 4 -1"
for d in "${devs[@]}"; do t+=" $d 2048"; done
dmsetup create r45s --table "$t"
sleep 1
dmsetup suspend r45s
a=$(sync_count r45s 4); sleep 2; b=$(sync_count r45s 4)
[ "$a" = "$b" ] || die "resync advanced while suspended: $a -> $b"
# the suspended resync's progress: its regions in sync, in sectors (or
# "-" if it was over before the suspend: 6.12 may finish in a second;
# by the action word, as a resync whose last region is in sync may not
# have said idle yet: then its progress is the whole array)
set -- $(dmsetup status r45s)
if [ "${14}" = idle ]; then
	[ "${11} ${21}" = "${a#*/}/${a#*/} -" ] || die "resync done: $*"
else
	[ "${14} ${21}" = "resync $((${11%/*} * 64))/$len" ] ||
		die "suspended resync (64-sector regions): $*"
fi
dmsetup resume r45s
wait_in_sync r45s 4 600
c=$(sync_count r45s 4)
[ "${c%/*}" -ge "${a%/*}" ] || die "sync count went backwards"
echo "ok pause at $a, finished at $c"
dmsetup remove r45s
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) "${devs[@]}" >/dev/null || die "resync after pause left bad stripes"

# recovery bandwidth: while a resync runs, the resync advances less with
# the bandwidth at 10 % than at 100 % (same
# array, same load, alternated; the resync is frozen between windows, so
# it only runs under the load, and only rounds it outlasted count)
# (448 MiB members: on an idle host a 192 MiB resync could finish within
# the first round's 100 % window, before anything was measured)
bmib=448
make_ramdisks 4 $bmib
for d in "${devs[@]}"; do fill_dev "$d" $bmib /dev/urandom; done
bl=$(((bmib - 1) * 2048 * 3))
t="0 $bl raid45 core 2 256 sync raid5_ls 7 64 -1 -1 -1 100 sync 1 4 -1"
for d in "${devs[@]}"; do t+=" $d 2048"; done
dmsetup create r45b --table "$t" || die "create"
dmsetup message r45b 0 frozen || die "frozen"
# a frozen resync's progress (issue 35): its regions in sync (256
# sectors each) in sectors of the array, from the same status line
# (the region in progress ends first)
sleep 0.3
set -- $(dmsetup status r45b)
[ "${14} ${21}" = "frozen $((${11%/*} * 256))/$bl" ] || die "frozen resync: $*"
echo "ok frozen resync at ${11}: ${21}"
window() { # <bandwidth>: prints "<IOPS> <regions synced>"
	local a b n
	dmsetup message r45b 0 bandwidth set "$1" || die "bandwidth $1"
	a=$(sync_count r45b 4)
	fio --name=bw --filename=/dev/mapper/r45b --direct=1 --ioengine=libaio --iodepth=8 \
		--rw=randread --bs=4k --runtime=3 --time_based --minimal >/tmp/bw.out &
	# unfreeze once fio's reads flow (fio takes a while to start)
	local st r0
	st=/sys/block/dm-$(dmsetup info -c --noheadings -o minor r45b | tr -d ' ')/stat
	r0=$(awk '{ print $1 }' "$st")
	while [ "$(awk '{ print $1 }' "$st")" -lt $((r0 + 100)) ]; do sleep 0.05; done
	dmsetup message r45b 0 idle || die "idle"
	wait $!
	dmsetup message r45b 0 frozen || die "frozen"
	b=$(sync_count r45b 4)
	[ "${b%/*}" = "${b#*/}" ] && return 1
	n=$(awk -F';' '{ print $8 }' /tmp/bw.out)
	echo "${n%.*} $((${b%/*} - ${a%/*}))"
}
declare -A io=([10]=0 [100]=0) adv=([10]=0 [100]=0)
valid=0
for round in 1 2 3; do
	r10=$(window 10) || break
	r100=$(window 100) || break
	echo "round $round: 100 %: ${r100% *} IOPS, ${r100#* } regions; 10 %: ${r10% *} IOPS, ${r10#* } regions"
	io[100]=$((io[100] + ${r100% *})); adv[100]=$((adv[100] + ${r100#* }))
	io[10]=$((io[10] + ${r10% *})); adv[10]=$((adv[10] + ${r10#* }))
	valid=$((valid + 1))
done
[ $valid -gt 0 ] || die "the resync finished before one round was measured"
# (seen: 10-15x fewer regions at 10 %; a third is the bar)
[ $((adv[10] * 3)) -lt "${adv[100]}" ] ||
	die "resync not slowed to a third at 10 % (${adv[10]} regions) of 100 % (${adv[100]})"
# fio's IOPS are speed, for make bench, not a pass/fail: on this 2-CPU
# TCG host anything else running moves them more than the throttle does
# (a fresh-clone run beside three module builds: 10 % below 100 % in two
# rounds of three, with the resync slowed 10x in all three)
echo "fio: ${io[10]} IOPS at 10 %, ${io[100]} at 100 % (not judged)"
dmsetup message r45b 0 bandwidth set 100
dmsetup message r45b 0 idle
wait_in_sync r45b 4 900
# a check's progress (issue 35): <done>/<total> sectors of the array, in
# whole rows (3 x 64 sectors), moving while it runs, still while frozen,
# "-" once "idle" abandoned it (the check of 1.3 GiB runs for seconds)
dmsetup message r45b 0 check || die "check refused"
p1=$(progress r45b)
sleep 0.3
dmsetup message r45b 0 frozen || die "frozen"
# (the batch of rows in progress ends first)
sleep 0.5
p2=$(progress r45b)
[ "$(sync_action r45b)" = frozen ] || die "check over before it was frozen: $(dmsetup status r45b)"
sleep 0.5
p3=$(progress r45b)
for p in "$p1" "$p2"; do
	case $p in */"$bl") ;; *) die "check progress $p: not <done>/$bl" ;; esac
	[ $((${p%/*} % 192)) = 0 ] || die "check progress $p: not whole rows"
done
[ "${p2%/*}" -gt 0 ] && [ "${p2%/*}" -ge "${p1%/*}" ] && [ "${p2%/*}" -lt "$bl" ] ||
	die "check progress did not move: $p1, then $p2"
[ "$p3" = "$p2" ] || die "frozen check moved: $p2 -> $p3"
dmsetup message r45b 0 idle || die "idle"
[ "$(progress r45b)" = - ] && [ "$(sync_action r45b)" = idle ] ||
	die "abandoned check: $(dmsetup status r45b)"
echo "ok check progress: $p1, $p2 frozen, - after idle"
dmsetup remove r45b
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $(((bmib - 1) * 2048 / 64)) "${devs[@]}" >/dev/null ||
	die "bad stripes after the bandwidth test"
echo "ok bandwidth 10 % slows the resync under load: ${adv[10]} against ${adv[100]} regions ($valid rounds)"
