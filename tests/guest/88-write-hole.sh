#!/bin/bash
# kernels: 6.12
# cost: 410
# Issue 26, the write hole: a crash followed by a lost member loses no
# data silently.  crash-harness.py crashes an array mid-writes (every
# member keeps its own prefix of the writes in flight), activates it
# with one member missing and checks every block that no write was in
# flight for.  Without a partial parity log the activation must be
# refused (the disk log says regions are dirty after a crash, md's
# "cannot start dirty degraded array"); forced (start_dirty_degraded),
# no wrong block may be served: blocks that would be computed from
# parity the crash may have torn fail with EIO and are counted.  With a
# partial parity log (RAID5 and RAID4) the activation is accepted, the
# log is replayed and no block comes back wrong.  A log added after the
# crash (areas without a header) vouches for nothing: refused as without
# one (ppl-late, 8 points: the rule, not the harness, is what it tests).
# Issue 31, finding 1 (rebuild-torn, 8 points): the crashed array comes
# back whole, its resync is frozen at once, a member is lost and a reload
# rebuilds a blank spare in its place: the regions the crash left torn
# are not rebuilt from their parity (their blocks of the spare fail with
# EIO, counted), and nothing reads back wrong.
#   CRASH_POINTS (default 8: two turns of the missing member over four
#   members, ten points over five; 20 before issue 32, 12 before issue 35)
#   crash points per case.
. "$(dirname "$0")/lib.sh"
load_module
points=${CRASH_POINTS:-8}
# two turns over five members
five=$((points * 5 / 4))
run_case() { # <mode> <type> <members> <seed> [<points>]
	make_ramdisks $(($3 + 1)) 8
	# (into the share: a guest that hangs still shows how far it got)
	python3 -u "$(dirname "$0")/crash-harness.py" "$1" "$2" "$3" "${5:-$points}" "$4" \
		>"${SHARE:-/tmp}/ch.out" 2>&1
	rc=$?
	cat "${SHARE:-/tmp}/ch.out"
	[ $rc = 0 ] || die "$*: $(tail -n 1 "${SHARE:-/tmp}/ch.out")"
	cleanup_all
}
run_case raid45 raid5_ls 4 1
run_case raid45 raid6_zr 5 2 $five
# RAID5 with five members: a 4 KiB write is a read-modify-write, and
# writes of two threads to one row leave untouched blocks between theirs
run_case ppl raid5_la 5 3 $five
run_case ppl raid4 4 4
few=$((points < 8 ? points : 8))
run_case ppl-late raid5_ls 4 5 $few
run_case rebuild-torn raid5_ls 5 6 $few
echo "ok write hole: refused, forced without wrong blocks; with PPL accepted, nothing wrong; no rebuild from torn parity"
