#!/bin/bash
# Constructors whose threads cannot be created (issue 11 finding 6:
# e6df961 destroyed the dirty log twice when the sync thread's
# kthread_run failed).  kernel.threads-max is lowered, from inside the
# process that then execs dmsetup (nothing else forks meanwhile), to the
# current thread count plus k, k = 0, 1, 2, ...: the workqueues'
# rescuer threads and the sync thread fail in turn, until the table
# loads.  Every refused load leaves nothing behind (module use count 0,
# no device), the kernel log stays clean (a double free is a slub_debug
# BUG, which fails the run), and the sync thread's own failure ("Cannot
# start the sync driver") must have been met at least once.
. "$(dirname "$0")/lib.sh"
load_module
make_ramdisks 4 16
per_dev=$((15 * 2048))
T="0 $((per_dev * 3)) raid45 core 2 1024 nosync raid5_ls 2 64 -1 4 -1"
for i in 0 1 2 3; do T+=" /dev/ram$i 2048"; done
in_use() { awk '$1 == "dm_raid456" { print $3 }' /proc/modules; }
sync_refusals() { dmesg | grep -c "raid45: Cannot start the sync driver"; }
orig=$(cat /proc/sys/kernel/threads-max)
base=$(sync_refusals)
met=0
for pass in 1 2 3; do
	for k in 0 1 2 3 4 5 6 7; do
		# shellcheck disable=SC2016
		bash -c 'read -r _ _ _ t _ </proc/loadavg
			echo $((${t#*/} + $2)) >/proc/sys/kernel/threads-max
			exec dmsetup create r45k --table "$1"' _ "$T" "$k" >/tmp/k.out 2>&1
		rc=$?
		echo "$orig" >/proc/sys/kernel/threads-max
		if [ $rc = 0 ]; then
			echo "pass $pass: the table loads with $k new threads allowed"
			dmsetup remove r45k || die "remove"
			break
		fi
		dmsetup info r45k >/dev/null 2>&1 && dmsetup remove r45k
		[ "$(in_use)" = 0 ] || die "k=$k: a refused load left the module in use ($(in_use))"
		echo "pass $pass, $k new threads allowed: refused ($(dmesg | grep 'raid45:' | tail -n 1 | sed 's/.*raid45: //'))"
	done
	[ "$(sync_refusals)" -gt "$base" ] && { met=1; break; }
done
[ "$(cat /proc/sys/kernel/threads-max)" = "$orig" ] || die "threads-max not restored"
[ $met = 1 ] || die "no load failed at the sync thread's creation (thread churn?)"
# and a normal table works
dmsetup create r45k --table "$T" || die "create after the refusals"
head -c 4M /dev/urandom >/tmp/pat
dd if=/tmp/pat of=/dev/mapper/r45k bs=1M oflag=direct status=none || die "write"
dd if=/dev/mapper/r45k of=/tmp/back bs=1M count=4 iflag=direct status=none || die "read"
cmp /tmp/pat /tmp/back || die "read back differs"
dmsetup remove r45k
echo "ok refused loads left nothing; the sync thread's failure met"
