#!/bin/bash
# kernels: 6.12
# cost: 39
# Issue 31, region trust with one owner (md-compat/trust.c); each part
# fails on 1057240:
#  A (finding 2) a disk log written for another region size: its bits
#    name other regions, so a degraded activation with a new region size
#    is refused as after a crash, and the log says why (1057240 read the
#    first bits at the wrong regions and dropped the dirty ones past the
#    new count: accepted);
#  B (finding 2) a reload that changes the region size while a re-added
#    member is rebuilt: the rebuild goes on over the mapped regions and
#    the data reads back right (1057240 forgot the rebuild and resynced
#    parity from the member's stale blocks);
#  C (finding 3) a member that failed after a crash, before the resync
#    reached the regions the crash left dirty, cannot be re-added while
#    they are out of sync, even when they were also written while it was
#    out (1057240 re-added it and rebuilt its good blocks there from
#    parity the crash may have torn);
#  D (finding 6) a table with a partial parity log that was removed
#    cleanly leaves no header that vouches for a later crash of a table
#    without the log: the degraded activation with the log is refused
#    (1057240 took the old empty headers as proof).
# The crash's record is written into the disk log by hand (log_dirty):
# the refusals are what is tested, not a crash.  R45_PARTS (default
# ABCD): the parts to run (to show each one failing on an old module).
. "$(dirname "$0")/lib.sh"
load_module
N=4
per_dev=$((8 * 2048))
len=$((per_dev * (N - 1)))
fresh_members $N 9 1
wrap_member mL /dev/ram$N
# mk_table <region size> [<missing member> [<words before #raid_devs>]]
mk_table() {
	local t="0 $len raid45 disk 2 /dev/mapper/mL $1 raid5_ls 1 64 ${3:-} $N -1" i
	for i in $(seq 0 $((N - 1))); do
		if [ "$i" = "${2:--1}" ]; then t+=" - -"; else t+=" /dev/mapper/m$i 2048"; fi
	done
	echo "$t"
}
# log_dirty <region...>: the disk log on mL calls those regions dirty, as
# a crash leaves them (dm-log's clean bits from byte 1024 on)
log_dirty() {
	python3 - /dev/mapper/mL "$@" <<'EOF' || die "log_dirty $*"
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
os.preadv(fd, [buf], 0)
for r in map(int, sys.argv[2:]):
    buf[1024 + r // 8] &= ~(1 << (r % 8)) & 0xff
os.pwritev(fd, [buf], 0)
os.close(fd)
EOF
}
# put <row>: 96 KiB of new data over a whole row (every member written)
put_row() {
	head -c 98304 /dev/urandom >/tmp/piece
	dd if=/tmp/piece of=/dev/mapper/r45t bs=96k seek="$1" oflag=direct status=none ||
		die "write row $1"
	dd if=/tmp/piece of=/tmp/data bs=96k seek="$1" conv=notrunc status=none
}
# fail member 1 under a write to row <row>, then acknowledge it
fail_m1() {
	fail_wrapper m1
	put_row "$1" &
	w=$!
	for i in $(seq 50); do [ "$(health r45t $N)" = ADAA ] && break; sleep 0.1; done
	[ "$(health r45t $N)" = ADAA ] || die "member 1 not failed: $(dmsetup status r45t)"
	# (the bare form: this test runs on old modules too)
	dmsetup message r45t 0 allow_writes || die "allow_writes"
	wait $w || die "the write that failed member 1"
}
regions=$((len / 512))
parts=${R45_PARTS:-ABCD}

# ---- A: a log written for another region size ----
if [[ $parts == *A* ]]; then
fill_dev /dev/mapper/mL 9 /dev/zero
dmsetup create r45t --table "$(mk_table 512)" || die "A: create"
wait_in_sync r45t $N 120
dmsetup remove r45t || die "A: remove"
# dirty past the count that region size 2048 has ($regions / 4)
log_dirty $((regions - 6)) $((regions - 2))
dmesg -C
expect_fail "A: degraded activation with another region size over a dirty log" \
	dmsetup create r45t --table "$(mk_table 2048 2)"
dmesg | grep -q "disk log: written for $regions regions, the table has $((regions / 4))" ||
	die "A: the kernel log does not say the log is for another region count"
dmsetup remove r45t 2>/dev/null
echo "ok A: a log of another region size is refused as a crash's record"

fi

# ---- B: region size changed by a reload during a re-add's rebuild ----
if [[ $parts == *B* ]]; then
fill_dev /dev/mapper/mL 9 /dev/zero
dmsetup create r45t --table "$(mk_table 512)" || die "B: create"
wait_in_sync r45t $N 120
head -c $((len * 512)) /dev/urandom >/tmp/data
dd if=/tmp/data of=/dev/mapper/r45t bs=96k oflag=direct status=none || die "B: write"
fail_m1 0
for row in 9 40 100 200; do put_row $row; done
wrap_member m1 /dev/ram1	# back, with what it held
dmsetup suspend r45t || die "B: suspend"
dmsetup message r45t 0 readd 1 || die "B: readd 1 refused: $(dmesg | tail -n 3)"
# frozen before the rebuild starts; the reload's resume starts it again
dmsetup message r45t 0 frozen || die "B: frozen"
dmsetup resume r45t || die "B: resume"
[ "$(sync_action r45t)" = frozen ] || die "B: not frozen: $(dmsetup status r45t)"
dmsetup load r45t --table "$(mk_table 1024)" && dmsetup suspend r45t &&
	dmsetup resume r45t || die "B: reload with region size 1024"
wait_in_sync r45t $N 120
[ "$(health r45t $N)" = AAAA ] || die "B: after the rebuild: $(dmsetup status r45t)"
cmp /tmp/data /dev/mapper/r45t || die "B: data differs: the re-add's rebuild was lost in the reload"
dmsetup remove r45t || die "B: remove"
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) /dev/mapper/m0 /dev/mapper/m1 \
	/dev/mapper/m2 /dev/mapper/m3 >/tmp/pc || { cat /tmp/pc; die "B: parity-check"; }
echo "ok B: the rebuild went on across a region size change"

fi

# ---- C: no re-add over regions a crash left dirty ----
if [[ $parts == *C* ]]; then
fill_dev /dev/mapper/mL 9 /dev/zero
dmsetup create r45t --table "$(mk_table 512)" || die "C: create"
wait_in_sync r45t $N 120
dmsetup remove r45t || die "C: remove"
# regions 2 and 5 dirty (rows 6 and 14 lie in them); member 1 fails at
# once, so the resync (it needs every member) cannot make them right
log_dirty 2 5
fail_wrapper m1
dmsetup create r45t --table "$(mk_table 512)" || die "C: activation with every member"
dmsetup message r45t 0 frozen || die "C: frozen"
put_row 6 &
w=$!
for i in $(seq 50); do [ "$(health r45t $N)" = ADAA ] && break; sleep 0.1; done
[ "$(health r45t $N)" = ADAA ] || die "C: member 1 not failed: $(dmsetup status r45t)"
dmsetup message r45t 0 allow_writes || die "C: allow_writes"
wait $w || die "C: the write that failed member 1"
put_row 14
wrap_member m1 /dev/ram1
dmsetup suspend r45t || die "C: suspend"
expect_fail "C: readd over regions a crash left dirty" dmsetup message r45t 0 readd 1
dmesg | tail -n 5 | grep -q "regions left torn by a crash" || die "C: no reason given"
dmsetup resume r45t
dmsetup remove r45t || die "C: remove"
echo "ok C: readd refused over torn regions"

fi

# ---- D: a removed PPL table's headers vouch for nothing ----
if [[ $parts == *D* ]]; then
wrap_member m1 /dev/ram1
fill_dev /dev/mapper/mL 9 /dev/zero
ppl="ppl -2032 1024 0x0badcafe"
dmsetup create r45t --table "$(mk_table 512 -1 "$ppl")" || die "D: create with ppl"
wait_in_sync r45t $N 120
dmsetup remove r45t || die "D: remove"
dmsetup create r45t --table "$(mk_table 512)" || die "D: create without ppl"
dmsetup remove r45t || die "D: remove"
log_dirty 3 7	# the table without the log crashed
expect_fail "D: degraded activation with the log after a crash without it" \
	dmsetup create r45t --table "$(mk_table 512 2 "$ppl")"
dmsetup remove r45t 2>/dev/null
echo "ok D: headers of a removed table vouch for nothing"
fi
