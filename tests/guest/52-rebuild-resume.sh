#!/bin/bash
# kernels: 6.1
# cost: 43
# Issue 27, finding 4: with a disk log and dev_to_init, a resume must
# continue the rebuild where it stopped, and once the rebuild finished a
# suspend/resume must start nothing.  On 73011ff the log was created
# "sync" for dev_to_init, which dm-log takes as a new log at every resume:
# every resume restarted the rebuild (or, after it finished, a whole
# resync).  The rebuild's progress must also be on the log device, not
# only in memory: dm-log reads its bits back from there at every resume.
#  - RAID5 over 4 members, data written, member 3 replaced by zeroes and
#    rebuilt (dev_to_init 3) with a fresh disk log, member 0's reads
#    slowed so that the rebuild takes a while;
#  - two suspend/resume cycles mid-rebuild: the sync count never drops
#    below where the suspend left it; in the first, a reload that would
#    drop the rebuild (another member to rebuild) is refused (issue 31);
#  - once finished: a suspend/resume, then nothing runs for 3 s (count
#    full, action idle);
#  - the data reads back and the parity checker finds every stripe right
#    (member 3 rebuilt).
. "$(dirname "$0")/lib.sh"
load_module
N=4
mib=17
per_dev=$((16 * 2048))
len=$((per_dev * (N - 1)))
fresh_members $N $mib 1
wrap_member mL /dev/ram$N
dd if=/dev/zero of=/dev/mapper/mL bs=1M count=1 oflag=direct status=none
mk_table() { # <dev_to_init>
	local t="0 $len raid45 disk 2 /dev/mapper/mL 512 raid5_ls 5 64 -1 -1 -1 100 $N $1" i
	for i in $(seq 0 $((N - 1))); do t+=" /dev/mapper/m$i 2048"; done
	echo "$t"
}
# the data, written through an array whose zeroed members are in sync
t="0 $len raid45 core 2 512 nosync raid5_ls 1 64 $N -1"
for i in $(seq 0 $((N - 1))); do t+=" /dev/mapper/m$i 2048"; done
dmsetup create r45r --table "$t" || die "create"
head -c $((len * 512)) /dev/urandom >/tmp/data
dd if=/tmp/data of=/dev/mapper/r45r bs=1M oflag=direct status=none || die "write"
dmsetup remove r45r || die "remove"
# member 3 replaced; member 0's reads slowed (writes too: dm-delay)
fill_dev /dev/mapper/m3 $mib /dev/zero
retable_member m0 "0 $((mib * 2048)) delay /dev/ram0 0 40"
dmsetup create r45r --table "$(mk_table 3)" || die "create rebuild"
regions=$((len / 512))
count() { local sc; sc=$(sync_count r45r $N); echo "${sc%/*}"; }
for cycle in 1 2; do
	for i in $(seq 300); do
		[ "$(count)" -ge $((cycle * regions / 4)) ] && break
		sleep 0.1
	done
	dmsetup suspend r45r || die "suspend"
	before=$(count)
	[ "$before" -lt "$regions" ] || die "the rebuild finished before cycle $cycle"
	if [ $cycle = 1 ]; then
		# a reload may not drop the unfinished rebuild: member 3's
		# blocks are not all there (another member to rebuild would
		# read them); kept in its place, the rebuild goes on in the
		# table the resume below brings in
		dmesg -C
		expect_fail "a reload naming member 2 to rebuild mid-rebuild" \
			dmsetup load r45r --table "$(mk_table 2)"
		dmesg | grep -q "Member 3 is being rebuilt: keep it in its place" ||
			die "the refusal's reason: $(dmesg | tail -n 3)"
		[ -z "$(dmsetup table --inactive r45r)" ] || die "a refused load left a table"
		dmsetup load r45r --table "$(mk_table -1)" ||
			die "a reload keeping member 3 in its place refused"
	fi
	dmsetup resume r45r || die "resume"
	after=$(count)
	sleep 0.5
	later=$(count)
	echo "cycle $cycle: $before at the suspend, $after after the resume, $later 0.5 s later ($(dmsetup status r45r))"
	[ "$after" -ge "$before" ] && [ "$later" -ge "$before" ] ||
		die "the resume threw the rebuild's progress away: $before -> $after -> $later"
	# still rebuilding, unless it finished meanwhile (a slow kernel's
	# dmsetup calls take long: the debug kernel's)
	h=$(health r45r $N)
	[ "$h" = AAAAi ] || { [ "$h" = AAAA ] && [ "$(count)" = "$regions" ]; } ||
		die "not rebuilding member 3: $(dmsetup status r45r)"
done
retable_member m0 "0 $((mib * 2048)) linear /dev/ram0 0"
wait_in_sync r45r $N 300
[ "$(health r45r $N)" = AAAA ] || die "after the rebuild: $(dmsetup status r45r)"
dmsetup suspend r45r || die "suspend after the rebuild"
dmsetup resume r45r || die "resume after the rebuild"
for i in $(seq 6); do
	sleep 0.5
	[ "$(count)" = $regions ] && [ "$(sync_action r45r)" = idle ] ||
		die "a resume after the rebuild started work: $(dmsetup status r45r)"
done
cmp -n $((len * 512)) /tmp/data /dev/mapper/r45r || die "data differs after the rebuild"
dmsetup remove r45r || die "remove"
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) /dev/mapper/m0 /dev/mapper/m1 \
	/dev/mapper/m2 /dev/mapper/m3 >/tmp/pc || { cat /tmp/pc; die "parity-check"; }
echo "ok rebuild progress kept across resumes: $(cat /tmp/pc)"
