#!/bin/bash
# kernels: 6.1
# cost: 12
# Constructors whose threads cannot be created (issue 11 finding 6:
# e6df961 destroyed the dirty log twice when the sync thread's
# kthread_run failed).  kernel.threads-max is lowered, from inside the
# process that then execs dmsetup (nothing else forks meanwhile), to the
# current thread count plus k, k = 0, 1, 2, ...: the workqueues'
# rescuer threads and the sync thread fail in turn, until the table
# loads.  Every refused load leaves nothing behind (module use count 0,
# no device, no thread of ours), the kernel log stays clean (a double
# free is a slub_debug BUG, which fails the run), the module unloads at
# the end, and the sync thread's own failure ("Cannot start the sync
# driver (-EAGAIN)": its log workqueue's failure says -ENOMEM) must have
# been met.  tests/guest/run restores threads-max after every test.
. "$(dirname "$0")/lib.sh"
load_module
make_ramdisks 4 16
per_dev=$((15 * 2048))
T="0 $((per_dev * 3)) raid45 core 2 1024 nosync raid5_ls 2 64 -1 4 -1"
for i in 0 1 2 3; do T+=" /dev/ram$i 2048"; done
in_use() { awk '$1 == "dm_raid456" { print $3 }' /proc/modules; }
sync_refusals() { dmesg | grep -c "raid45: Cannot start the sync driver (-EAGAIN)"; }
orig=$(cat /proc/sys/kernel/threads-max)
base=$(sync_refusals)
met=0
for pass in 1 2 3; do
	for k in 0 1 2 3 4 5 6 7; do
		# shellcheck disable=SC2016
		bash -c 'read -r _ _ _ t _ </proc/loadavg
			echo $((${t#*/} + $2)) >/proc/sys/kernel/threads-max || exit 99
			exec dmsetup create r45k --table "$1"' _ "$T" "$k" >/tmp/k.out 2>&1
		rc=$?
		echo "$orig" >/proc/sys/kernel/threads-max || die "threads-max not restored"
		[ $rc = 99 ] && die "cannot lower threads-max"
		if [ $rc = 0 ]; then
			echo "pass $pass: the table loads with $k new threads allowed"
			dmsetup remove r45k || die "remove"
			break
		fi
		dmsetup info r45k >/dev/null 2>&1 && die "k=$k: dmsetup left r45k behind"
		[ "$(in_use)" = 0 ] || die "k=$k: a refused load left the module in use ($(in_use))"
		cat /proc/[0-9]*/comm 2>/dev/null | grep -q '^raid45' &&
			die "k=$k: a refused load left a thread: $(grep -h '^raid45' /proc/[0-9]*/comm | tr '\n' ' ')"
		echo "pass $pass, $k new threads allowed: refused ($(grep -v '^Command failed' /tmp/k.out | tail -n 1))"
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
rmmod dm_raid456 || die "module does not unload after the refused loads"
echo "ok refused loads left nothing; the sync thread's failure met"
