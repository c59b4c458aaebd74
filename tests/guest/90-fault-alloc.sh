#!/bin/bash
# cost: 5
# Allocation failure, on a fault-injection kernel (scripts/build-debug-kernel;
# skipped elsewhere).  With failslab and fail_page_alloc armed for every
# kernel allocation (ignore-gfp-wait N, min-order 0; user pages left out),
# /proc/thread-self/fail-nth fails exactly the N-th allocation of one
# device-mapper ioctl (dmctl.py "nth"), for N = 1, 2, ... until the ioctl
# makes fewer than N (every N up to 24, then a random sample that thins
# out: see next_n), in a table load with a core log, one with a disk log,
# the resume that makes a table live, and the stripe_cache message.
# After each: a failed load or message reports an error and leaves
# nothing behind (the module unused, the cache size unchanged); one that
# absorbed the failure (a mempool reserve, an optional allocation) gives
# a whole, writable, working array.  (On the debug kernel about half of
# the faults hit kmemleak's own bookkeeping of an allocation, which falls
# back to its pool: those count as absorbed.)  Then random I/O
# (fault-io.py) with 5 % of the allocations of the writing thread failing
# (the stripe cache grows under that load): every I/O either completes
# with the right data or fails with an error, no member is failed, and
# the members' parity is right afterwards.  Leaks show in the kmemleak
# scan that scripts/guest-init makes when the run ends.
. "$(dirname "$0")/lib.sh"
dbg=/sys/kernel/debug
TIMES=1000000000
grep -q " $dbg debugfs" /proc/mounts || mount -t debugfs debugfs $dbg 2>/dev/null
if [ ! -e /proc/thread-self/fail-nth ] || [ ! -d $dbg/failslab ] ||
	[ ! -d $dbg/fail_page_alloc ]; then
	echo "skip: not a fault-injection kernel"
	exit 77
fi
load_module
fresh_members 4 16 1
wrap_member mL /dev/ram4
for a in failslab fail_page_alloc; do
	echo N >$dbg/$a/ignore-gfp-wait
	echo 1 >$dbg/$a/verbose
	echo 0 >$dbg/$a/probability
	echo $TIMES >$dbg/$a/times
	echo 0 >$dbg/$a/space
	echo 1 >$dbg/$a/interval
	echo 0 >$dbg/$a/task-filter
done
echo 0 >$dbg/fail_page_alloc/min-order
# user pages (__GFP_HIGHMEM) stay out: a failed page fault is the OOM
# killer's business
echo Y >$dbg/fail_page_alloc/ignore-gfp-highmem
trap 'for a in failslab fail_page_alloc; do echo 0 > $dbg/$a/probability; done' EXIT

per_dev=$((15 * 2048))
len=$((per_dev / 64 * 64 * 3))
members="/dev/mapper/m0 0 /dev/mapper/m1 0 /dev/mapper/m2 0 /dev/mapper/m3 0"
core_table="0 $len raid45 core 2 1024 nosync raid5_ls 2 64 8 4 -1 $members"
disk_table="0 $len raid45 disk 3 /dev/mapper/mL 1024 sync raid5_ls 2 64 8 4 -1 $members"
# Faults injected so far: "times" counts down on every one (fail-nth's
# too); the kernel log's lines are rate-limited and leave out __GFP_NOWARN.
injected() {
	echo $((2 * TIMES - $(cat $dbg/failslab/times) - $(cat $dbg/fail_page_alloc/times)))
}
in_use() { awk '$1 == "dm_raid456" { print $3 }' /proc/modules; }

# Quick proof that an array works: a pattern written, removed from the
# page cache by O_DIRECT, read back.
check_array() {
	local dev=/dev/mapper/$1
	dmsetup mknodes "$1"
	# a fault that was absorbed must not have cost a member or the sync
	# thread: the array is whole and writable
	[ "$(health "$1" 4)" = AAAA ] || die "$1: health $(health "$1" 4) after an absorbed fault"
	[ "$(ext_word "$1" 3)" = writable ] || die "$1: $(dmsetup status "$1")"
	head -c 1M /dev/urandom >/tmp/pat
	dd if=/tmp/pat of="$dev" bs=64k seek=7 oflag=direct status=none ||
		die "write to $1 failed"
	dd if="$dev" of=/tmp/back bs=64k skip=7 count=16 iflag=direct status=none ||
		die "read from $1 failed"
	cmp -s /tmp/pat /tmp/back || die "$1 returned wrong data"
}

# One dmctl.py for all the ioctls (a python start costs a second here).
coproc DM { exec python3 "$TOP/tests/guest/dmctl.py"; }
dm() { # <command...>: prints dmctl's result line
	echo "$*" >&"${DM[1]}"
	local res
	read -r res <&"${DM[0]}" || die "dmctl.py died"
	echo "$res"
}

# Nothing of a failed load may remain: the module's use count is back to
# zero (every raid45 table, live or inactive, holds a reference).
check_nothing_left() {
	local what=$1
	# each raid45 table holds a reference on the module
	[ "$(in_use)" = 0 ] || die "$what: module still in use ($(in_use))"
}

# The allocation to fail next: every one of the first 24, then random
# gaps that grow with n (on average n/10), so that the hundreds of
# allocations of a stripe cache cost tens of runs, each run meets other
# ones, and the end of every sequence is still reached.
next_n() {
	local n=$1
	[ "$n" -lt 24 ] && { echo $((n + 1)); return; }
	echo $((n + 1 + RANDOM % (n / 5 + 1)))
}

# sweep_load NAME TABLE: "nth N load" for N = 1.. until unfired, each
# allocation of the load ioctl, from dm's copy of the parameters through
# our constructor, failing once.  The device already has a live table (a
# zero target): a failure in dm's one-time queue setup of a device's
# first table is dm's business, and 6.12 does not recover from it (a
# retry finds half-registered kobjects).  A load that absorbed its fault
# is resumed and checked.
sweep_load() {
	local what=$1 table=$2 n=1 res err=0 absorbed=0 tries=0 before
	before=$(injected)
	[ "$(dm create r45a 0 $len zero)" = ok ] || die "$what: create"
	while :; do
		tries=$((tries + 1))
		res=$(dm nth $n load r45a $table)
		case $res in
		"ok unfired" | "ok fired")
			[ "$res" = "ok fired" ] && absorbed=$((absorbed + 1))
			[ "$(dm resume r45a)" = ok ] || die "$what: resume after load $n"
			check_array r45a
			[ "$(dm remove r45a)" = ok ] || die "$what: remove after load $n"
			[ "$(in_use)" = 0 ] || die "$what: module in use after remove ($(in_use))"
			[ "$res" = "ok unfired" ] && break
			[ "$(dm create r45a 0 $len zero)" = ok ] || die "$what: create after load $n"
			;;
		"err "*" fired")
			err=$((err + 1))
			check_nothing_left "$what, fault $n"
			;;
		*) die "$what: unexpected result for fault $n: $res" ;;
		esac
		n=$(next_n $n)
		[ $n -gt 5000 ] && die "$what: more than 5000 allocations in one load"
	done
	echo "ok $what: $tries loads with allocations up to $n failing, $err failed" \
		"cleanly, $absorbed absorbed, $(($(injected) - before)) faults injected"
	[ "$err" -gt 0 ] || die "$what: no fault made the load fail"
}

# sweep_resume NAME TABLE: the same for the resume that makes a loaded
# raid45 table live (in place of a zero table); a failed resume leaves a
# device that can be removed.
sweep_resume() {
	local what=$1 table=$2 n=1 res err=0 tries=0
	while :; do
		tries=$((tries + 1))
		[ "$(dm create r45a 0 $len zero)" = ok ] || die "$what: create"
		[ "$(dm load r45a $table)" = ok ] || die "$what: load"
		res=$(dm nth $n resume r45a)
		case $res in
		"ok unfired" | "ok fired") check_array r45a ;;
		"err "*" fired") err=$((err + 1)) ;;
		*) die "$what: unexpected result for fault $n: $res" ;;
		esac
		[ "$(dm remove r45a)" = ok ] || die "$what: remove after fault $n ($res)"
		[ "$(in_use)" = 0 ] || die "$what: module in use after remove ($(in_use))"
		[ "$res" = "ok unfired" ] && break
		n=$(next_n $n)
		[ $n -gt 5000 ] && die "$what: more than 5000 allocations in one resume"
	done
	echo "ok $what: $tries resumes with allocations up to $n failing, $err failed"
}

# R45_FAULT_QUICK=1 leaves the sweeps out (while working on what follows)
if [ "${R45_FAULT_QUICK:-0}" != 1 ]; then
	sweep_load "core-log load" "$core_table"
	sweep_load "disk-log load" "$disk_table"
	sweep_resume "resume" "$disk_table"
	dmesg | grep -Eq 'raid45: (Cannot|Error)' ||
		die "no constructor reported an allocation failure"
fi

# The stripe_cache message, each allocation of its ioctl failed once (the
# cache itself grows lazily, under I/O: that is the next part).
dmsetup create r45a --table "$core_table" || die "create for resize"
# <#stripes>: the third word after the raid type ("raid5_ls 7 64 <n>")
cache_size() { dmsetup table r45a | awk '{ for (i = 1; i < NF; i++) if ($i == "raid5_ls") print $(i + 3) }'; }
n=1
err=0
while :; do
	size=$(cache_size)
	res=$(dm nth $n message r45a 0 stripe_cache set 200)
	case $res in
	"ok unfired") break ;;
	"ok fired") ;;
	"err "*" fired")
		err=$((err + 1))
		[ "$(cache_size)" = "$size" ] || die "failed resize $n changed the cache: $(cache_size)"
		;;
	*) die "resize: unexpected result for fault $n: $res" ;;
	esac
	[ "$(dm message r45a 0 stripe_cache set 8)" = ok ] || die "shrink back"
	n=$(next_n $n)
	[ $n -gt 5000 ] && die "resize: more than 5000 allocations"
done
[ "$(cache_size)" = 200 ] || die "cache size $(cache_size) after the last resize"
check_array r45a
echo "ok stripe_cache message: allocations up to $n failing, $err failed"

# Random writes and reads (fault-io.py) while 5 % of the allocations of
# the writing thread fail (the stripe cache grows under this load: its
# allocations fail too).  A write may fail with an error; no block may
# ever read back as anything but what was written; then the array must
# still be whole and its parity right.
dd if=/dev/zero of=/dev/mapper/r45a bs=1M count=8 oflag=direct status=none || die "zero"
for a in failslab fail_page_alloc; do
	echo 1 >$dbg/$a/task-filter
	echo 5 >$dbg/$a/probability
done
before=$(injected)
python3 "$TOP/tests/guest/fault-io.py" /dev/mapper/r45a 8 40 >/tmp/fio.out 2>&1
rc=$?
for a in failslab fail_page_alloc; do echo 0 >$dbg/$a/probability; done
cat /tmp/fio.out
[ $rc = 0 ] || die "wrong data under allocation failure"
[ "$(injected)" -gt "$before" ] || die "no allocation of the writer failed"
[ "$(health r45a 4)" = AAAA ] || die "health after the faults: $(health r45a 4)"
echo "ok I/O under failslab/fail_page_alloc: $(($(injected) - before)) faults injected"
check_array r45a
dmsetup remove r45a || die "remove"
[ "$(in_use)" = 0 ] || die "module in use after remove"
"$PARCHECK" -t raid5_ls -c 64 -o 0 -n $((len / 3 / 64)) /dev/mapper/m0 /dev/mapper/m1 \
	/dev/mapper/m2 /dev/mapper/m3 >/tmp/pc || { cat /tmp/pc; die "bad stripes after fio"; }
echo "ok parity after fio: $(cat /tmp/pc)"
