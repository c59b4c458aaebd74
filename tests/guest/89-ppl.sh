#!/bin/bash
# kernels: 6.1
# cost: 330
# Issue 26: the partial parity log in use.  RAID5 with a PPL area in
# front of every member's data: fio verify with mixed sizes (partial and
# full stripes), the raw members' parity right, the status says "ppl",
# the table prints the ppl words back and loads again, and the log area
# holds md-format headers.  Nothing stale is replayed (a log is emptied
# at every suspend; activations without a log in between; a reload to a
# table without the log zeroes the areas' headers), and a spare
# that replaces a member failed under writes is not read as that member
# by the log's replay.  Then md interoperation, both ways.
. "$(dirname "$0")/lib.sh"
load_module
N=4
mib=20
per_dev=$(((mib - 2) * 2048))
len=$((per_dev * (N - 1)))
make_ramdisks $N $mib
for i in $(seq 0 $((N - 1))); do fill_dev /dev/ram$i $mib /dev/zero; done
t="0 $len raid45 core 2 512 nosync raid5_ls 1 64 ppl -2040 2040 0x0badcafe $N -1"
for i in $(seq 0 $((N - 1))); do t+=" /dev/ram$i 2048"; done
dmsetup create r45p --table "$t" || die "create"
[ "$(ext_word r45p 7)" = ppl ] || die "status: $(dmsetup status r45p)"
dmsetup table r45p | grep -q " ppl -2040 2040 0x0badcafe $N -1 " ||
	die "table: $(dmsetup table r45p)"
fio --name=ppl --filename=/dev/mapper/r45p --direct=1 --ioengine=libaio --iodepth=8 \
	--rw=randwrite --bsrange=4k-256k --numjobs=2 --size=16m --offset_increment=20m \
	--verify=crc32c --verify_fatal=1 --minimal >/tmp/fio.out 2>&1 ||
	{ cat /tmp/fio.out; die "fio verify"; }
tbl=$(dmsetup table r45p)
dmsetup suspend r45p && dmsetup load r45p --table "$tbl" && dmsetup resume r45p ||
	die "reload of the printed table"
fio --name=ppl --filename=/dev/mapper/r45p --direct=1 --ioengine=libaio --iodepth=8 \
	--rw=randwrite --bsrange=4k-256k --numjobs=2 --size=16m --offset_increment=20m \
	--verify=crc32c --verify_only --minimal >/tmp/fio.out 2>&1 ||
	{ cat /tmp/fio.out; die "fio verify_only after the reload"; }
# while the table runs, every member's area starts with a header signed
# 0x0badcafe
ppl_sig() {
	dd if=/dev/ram$1 bs=512 skip=$((8 + 1)) count=1 iflag=direct status=none |
		od -A n -t x4 -N 4 | tr -d ' '
}
for i in $(seq 0 $((N - 1))); do
	[ "$(ppl_sig $i)" = 0badcafe ] || die "member $i: PPL header signature $(ppl_sig $i)"
done
dmsetup remove r45p || die "remove"
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) /dev/ram0 /dev/ram1 /dev/ram2 \
	/dev/ram3 >/tmp/pc || { cat /tmp/pc; die "parity-check"; }
# removed, it leaves its logs closed, which vouch for no later run
# without the log (issue 31, finding 6); md reads them as empty logs
for i in $(seq 0 $((N - 1))); do
	mark=$(dd if=/dev/ram$i bs=512 skip=8 count=1 iflag=direct status=none | head -c 8)
	[ "$mark" = R45CLOSE ] && [ "$(ppl_sig $i)" = 0badcafe ] ||
		die "member $i: the log not closed after the removal: \"$mark\" $(ppl_sig $i)"
done
pc=$(cat /tmp/pc)

# Nothing stale is ever replayed: every suspend empties the logs.  A PPL
# activation writes, one without a log writes over the same blocks, and
# a PPL activation again must not replay the first one's entries (its
# partial parities are stale: parity would no longer match).
mk() { # [ppl words]: the table over the ramdisks
	local t="0 $len raid45 core 2 512 nosync raid5_ls 1 64 $* $N -1" i
	for i in $(seq 0 $((N - 1))); do t+=" /dev/ram$i 2048"; done
	echo "$t"
}
burst() { # <seed>: 4 KiB random writes over the first 2 MiB
	fio --name=b --filename=/dev/mapper/r45p --direct=1 --ioengine=libaio \
		--iodepth=16 --rw=randwrite --bs=4k --size=2m --io_size=4m \
		--randseed=$1 --minimal >/dev/null 2>&1 || die "burst $1"
}
for round in 1 2 3; do
	dmsetup create r45p --table "$(mk ppl -2040 2040 0x0badcafe)" || die "create ppl"
	burst $round
	dmsetup remove r45p || die "remove"
	dmsetup create r45p --table "$(mk)" || die "create without ppl"
	burst $((round + 10))
	dmsetup remove r45p || die "remove"
done
# A reload to a table without the log: the areas' headers are zeroed,
# so that a later table with the log does not vouch for the writes made
# without it (the dirty-degraded rule then applies, 88's ppl-late).
dmsetup create r45p --table "$(mk ppl -2040 2040 0x0badcafe)" || die "create ppl"
burst 31
dmsetup suspend r45p && dmsetup load r45p --table "$(mk)" && dmsetup resume r45p ||
	die "reload without ppl"
for i in $(seq 0 $((N - 1))); do
	nz=$(dd if=/dev/ram$i bs=512 skip=8 count=8 iflag=direct status=none |
		tr -d '\000' | wc -c)
	[ "$nz" = 0 ] || die "member $i: a PPL header left after the reload without the log ($nz bytes not zero)"
done
burst 32
dmsetup remove r45p || die "remove"
dmsetup create r45p --table "$(mk ppl -2040 2040 0x0badcafe)" || die "create ppl"
dmsetup remove r45p || die "remove"
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) /dev/ram0 /dev/ram1 /dev/ram2 \
	/dev/ram3 >/tmp/pc || { cat /tmp/pc; die "stale PPL entries replayed: parity-check"; }

# A member fails under writes (logged with it out: their entries' ranges
# take its blocks), a spare replaces it (dev_to_init, as the monitor's
# spare policy does): the reload must not replay the log with the
# spare's junk for the failed member's data; the rebuild then gives
# every block back.
cleanup_all
make_ramdisks $((N + 1)) $mib
fill_dev /dev/ram$N $mib /dev/urandom
for i in $(seq 0 $((N - 1))); do
	fill_dev /dev/ram$i $mib /dev/zero
	dmsetup create m$i --table "0 $((mib * 2048)) linear /dev/ram$i 0" || die "m$i"
done
spare() { # <dev_to_init> <member 2's device>
	local t="0 $len raid45 core 2 512 nosync raid5_ls 1 64 ppl -2040 2040 0x0badcafe $N $1" i
	for i in $(seq 0 $((N - 1))); do
		if [ $i = 2 ]; then t+=" $2 2048"; else t+=" /dev/mapper/m$i 2048"; fi
	done
	echo "$t"
}
dmsetup create r45p --table "$(spare -1 /dev/mapper/m2)" || die "create"
ack_failures r45p &
fio --name=d1 --filename=/dev/mapper/r45p --direct=1 --ioengine=libaio --iodepth=8 \
	--rw=randwrite --bsrange=4k-64k --size=12m --verify=crc32c --verify_fatal=1 \
	--minimal >/tmp/fio.out 2>&1 &
f=$!
sleep 2
fail_wrapper m2
wait $f || { cat /tmp/fio.out; die "fio with member 2 failing"; }
dmsetup suspend r45p && dmsetup load r45p --table "$(spare 2 /dev/ram$N)" &&
	dmsetup resume r45p || die "reload with the spare"
wait_in_sync r45p $N 300
[ "$(health r45p $N)" = AAAA ] || die "after the spare's rebuild: $(dmsetup status r45p)"
fio --name=d1 --filename=/dev/mapper/r45p --direct=1 --ioengine=libaio --iodepth=8 \
	--rw=randwrite --bsrange=4k-64k --size=12m --verify=crc32c --verify_only \
	--minimal >/tmp/fio.out 2>&1 || { cat /tmp/fio.out; die "data after the spare's rebuild"; }
dmsetup remove r45p || die "remove"
"$PARCHECK" -t raid5_ls -c 64 -o 2048 -n $((per_dev / 64)) /dev/mapper/m0 /dev/mapper/m1 \
	/dev/ram$N /dev/mapper/m3 >/tmp/pc2 || { cat /tmp/pc2; die "parity after the spare's rebuild"; }
cleanup_all

# A log entry whose modified data member is missing at the replay (issue
# 31, finding 7), made by hand (ppl-forge.py) over row 0 of raid5_ls
# (data on members 0, 1, 2, parity on 3; 4 KiB blocks at array sectors
# 0, 64, 128).  Member 0 is missing when the array comes back.
#  lone: the entry modified member 0's block alone and parity landed:
#        the stripe is skipped, parity gives the block as written;
#  pair: it modified members 0 and 1's blocks, member 1's landed and
#        parity did not: no parity makes member 0's block right (it may
#        or may not have landed), so the row's region is untrusted and
#        the block fails with EIO, never computed from that parity.
blk() { # <dev> <sector> <file>: one 4 KiB block, uncached
	dd if="$1" of="$3" bs=512 skip="$2" count=8 iflag=direct status=none ||
		die "read $1 at $2"
}
put() { # <file> <dev> <sector>
	dd if="$1" of="$2" bs=512 seek="$3" count=8 oflag=direct conv=notrunc status=none ||
		die "write $2 at $3"
}
xor() { # <out> <in>...: the xor of 4 KiB files
	python3 -c 'import sys
r = bytearray(4096)
for f in sys.argv[2:]:
    for i, b in enumerate(open(f, "rb").read(4096)):
        r[i] ^= b
open(sys.argv[1], "wb").write(r)' "$@"
}
unsafe_reads() { ext_word "$1" 6; }	# the status' count of refused reads
degraded0() { # the table with member 0 missing
	local t="0 $len raid45 core 2 512 nosync raid5_ls 1 64 ppl -2040 2040 0x0badcafe $N -1 - -" i
	for i in $(seq 1 $((N - 1))); do t+=" /dev/ram$i 2048"; done
	echo "$t"
}
for case in lone pair; do
	make_ramdisks $N $mib
	for i in $(seq 0 $((N - 1))); do fill_dev /dev/ram$i $mib /dev/zero; done
	dmsetup create r45p --table "$(mk ppl -2040 2040 0x0badcafe)" || die "$case: create"
	dd if=/dev/urandom of=/dev/mapper/r45p bs=64k count=16 oflag=direct status=none ||
		die "$case: write"
	for d in 0 1 2; do blk /dev/mapper/r45p $((d * 64)) /tmp/a$d; done
	dmsetup remove r45p || die "$case: remove"
	# the layout the entry assumes: row 0's data blocks on members 0-2
	for d in 0 1 2; do
		blk /dev/ram$d 2048 /tmp/raw
		cmp -s /tmp/raw /tmp/a$d || die "$case: array block $((d * 64)) is not on member $d"
	done
	head -c 4096 /dev/urandom >/tmp/n0
	head -c 4096 /dev/urandom >/tmp/n1
	if [ $case = lone ]; then
		xor /tmp/pp /tmp/a1 /tmp/a2
		xor /tmp/pnew /tmp/n0 /tmp/a1 /tmp/a2
		put /tmp/pnew /dev/ram3 2048
		python3 "$(dirname "$0")/ppl-forge.py" /dev/ram3 8 0x0badcafe 0 4096 4096 3 \
			/tmp/pp || die "$case: forge"
	else
		put /tmp/n1 /dev/ram1 2048
		python3 "$(dirname "$0")/ppl-forge.py" /dev/ram3 8 0x0badcafe 0 4096 8192 3 \
			/tmp/a2 || die "$case: forge"
	fi
	dmesg -C
	dmsetup create r45p --table "$(degraded0)" || die "$case: degraded activation"
	if [ $case = lone ]; then
		blk /dev/mapper/r45p 0 /tmp/got
		cmp -s /tmp/got /tmp/n0 ||
			die "lone: member 0's block is not as written (parity landed)"
		dmesg | grep -q "0 entries replayed, 1 skipped" ||
			die "lone: the entry not skipped: $(dmesg | grep -i 'parity log')"
	else
		u0=$(unsafe_reads r45p)
		if dd if=/dev/mapper/r45p of=/tmp/got bs=512 count=8 iflag=direct \
			status=none 2>/tmp/dd.err; then
			if cmp -s /tmp/got /tmp/a0; then w="the old block"
			elif cmp -s /tmp/got /tmp/n0; then w="the new block"
			else w="neither the old nor the new block"; fi
			die "pair: member 0's block read from parity that cannot give it ($w)"
		fi
		grep -q "Input/output error" /tmp/dd.err || die "pair: $(cat /tmp/dd.err)"
		[ "$(unsafe_reads r45p)" = $((u0 + 1)) ] ||
			die "pair: the refused read not counted: $u0 -> $(unsafe_reads r45p)"
		# refused for the missing member (-ENODEV), not for a field
		dmesg | grep -q "PPL of member 3: entry 0 (sector 0) not replayed (-19)" ||
			die "pair: the entry's region not untrusted: $(dmesg | grep -i 'ppl\|parity log')"
		blk /dev/mapper/r45p 64 /tmp/got
		cmp -s /tmp/got /tmp/n1 || die "pair: member 1's block is not as it landed"
	fi
	dmsetup remove r45p || die "$case: remove"
	cleanup_all
done

# Members with a volatile cache (null_blk devices with a cache, made by
# the harness): the log carries written entries until a flush makes them
# durable, and a stripe's next write waits for that flush; the crash
# harness's rules hold on that path too.
CRASH_WC=1 python3 -u "$(dirname "$0")/crash-harness.py" ppl raid5_ls 4 \
	"${WC_POINTS:-6}" 8 >/tmp/ch.out 2>&1
rc=$?
cat /tmp/ch.out
cleanup_all
for d in /sys/kernel/config/nullb/r45wc*; do
	[ -d "$d" ] || continue
	echo 0 >"$d/power"
	rmdir "$d"
done
[ $rc = 0 ] || die "ppl, volatile members: $(tail -n 1 /tmp/ch.out)"

# md's format both ways (crash-harness.py): raid45 crashes over an md
# array's members with md's PPL area and md recovers from raid45's log
# (md's check the parity oracle); md crashes and raid45, one member
# missing, recovers from md's log.  MD_POINTS (default 5) each.
for mode in md-verify md-crash; do
	make_ramdisks 5 8
	python3 -u "$(dirname "$0")/crash-harness.py" $mode raid5_ls 4 "${MD_POINTS:-5}" 7 \
		>/tmp/ch.out 2>&1
	rc=$?
	cat /tmp/ch.out
	[ $rc = 0 ] || die "$mode: $(tail -n 1 /tmp/ch.out)"
	cleanup_all
done
echo "ok PPL in use: $pc; md reads raid45's log and raid45 md's"
