#!/bin/bash
# kernels: 6.12
# cost: 10
# A member lost during the initial resync (issue 11, finding 8): the
# resync stops, and the regions it had not made consistent stay out of
# sync (md keeps such an array dirty-degraded) instead of being counted
# in sync after a "resync" that could not compute parity against the
# dead member.  The array goes on serving reads and writes, and a reload
# of the same table neither restarts the resync nor forgets the regions.
. "$(dirname "$0")/lib.sh"
load_module
fresh_members 4 16
per_dev=$((15 * 2048))
len=$((per_dev * 3))
T="0 $len raid45 core 2 256 sync raid5_ls 1 64 4 -1"
for i in 0 1 2 3; do T+=" /dev/mapper/m$i 2048"; done
dmsetup create r45l --table "$T" || die "create"
dmsetup message r45l 0 frozen || die "frozen"
sc=$(sync_count r45l 4)
[ "${sc%/*}" -lt "${sc#*/}" ] || die "the resync ended before it could be frozen: $sc"
fail_wrapper m3
dmsetup message r45l 0 idle || die "idle"
for _ in $(seq 300); do
	dmsetup status r45l | grep -q ' idle ' && [ "$(health r45l 4)" = AAAD ] && break
	sleep 0.2
done
st=$(dmsetup status r45l)
echo "after the member failed: $st"
[ "$(health r45l 4)" = AAAD ] || die "member 3 not failed: $st"
echo "$st" | grep -q ' idle ' || die "the resync did not stop: $st"
sc=$(sync_count r45l 4)
[ "${sc%/*}" -lt "${sc#*/}" ] ||
	die "regions counted in sync although their parity was never computed: $sc"
# the regions left out of sync are counted as unprotected in status
[ "$(ext_word r45l 5)" = $((${sc#*/} - ${sc%/*})) ] ||
	die "status does not count $((${sc#*/} - ${sc%/*})) unprotected regions: $st"
# writes are held until the failure is acknowledged
[ "$(ext_word r45l 3)" = held ] || die "writes not held after the failure: $st"
dmsetup message r45l 0 allow_writes || die "allow_writes"
# still serves I/O, degraded
head -c $((4 * 1024 * 1024)) /dev/urandom >/tmp/w
dd if=/tmp/w of=/dev/mapper/r45l bs=1M seek=8 oflag=direct status=none || die "write"
dd if=/dev/mapper/r45l of=/tmp/r bs=1M skip=8 count=4 iflag=direct status=none || die "read"
cmp /tmp/r /tmp/w || die "read back differs"
# a reload keeps the regions out of sync and starts no resync
dmsetup suspend r45l && dmsetup load r45l --table "$T" && dmsetup resume r45l ||
	die "reload"
sleep 1
sc2=$(sync_count r45l 4)
st=$(dmsetup status r45l)
[ "$sc2" = "$sc" ] || die "the reload changed the sync count: $sc -> $sc2 ($st)"
echo "$st" | grep -q ' idle ' || die "a resync runs after the reload: $st"
[ "$(health r45l 4)" = AAAD ] || die "the reload brought member 3 back: $st"
dmsetup remove r45l
echo "ok resync stopped at $sc with a member lost; kept over a reload"
