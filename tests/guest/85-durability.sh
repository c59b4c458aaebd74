#!/bin/bash
# kernels: 6.12
# cost: 54
# Durability order of the disk log's clean bits (issue 11, finding 1):
# dm-log-writes under every member and under the disk log device record
# what reached stable storage and when; a raid45 RAID5 array with a disk
# log goes through an initial resync, writes with and without flushes,
# and a rebuild, with ~40 cuts taken all along (durability-drive.py).
# Then, from the logs alone (logwrites.py, where the method and why it
# is sound are explained):
#   check-order  no stripe row whose regions the log device calls clean
#                (durably or only in its cache) has a member write that
#                is not yet durable, at any cut: clean bits reach the
#                log device only after the member writes they stand for
#                were flushed.  Fails with a NULL flush callback.
#   replay       every cut replayed as a power loss (every device cut
#                after its last completed flush before the mark, and a
#                harsher variant where some disks wrote their caches
#                back), the array activated on the images, resynced or
#                rebuilt: acknowledged blocks intact, parity right.
. "$(dirname "$0")/lib.sh"
here=$(dirname "$0")
N=4
MS=4096	# member sectors (2 MiB)
CHUNK=64
REGION=256
LOGMS=2048	# disk log device
GLOG=65536	# a member's write log (32 MiB)
GLOGL=32768	# the log device's write log

load_module
modprobe dm-log-writes || die "no dm-log-writes"
[ -x "$PARCHECK" ] || die "no $PARCHECK (make -C tests/unit)"
make_ramdisks 1 $(((4 * (3 * MS + GLOG) + 3 * LOGMS + GLOGL) / 2048 + 4))

# every device a slice of ram0: d data under log-writes, g its write
# log, b its initial image (the replay's base), s the replay's scratch
cmds=/tmp/lw-setup
: >"$cmds"
off=0
slice() {
	echo "create $1 0 $2 linear /dev/ram0 $off" >>"$cmds"
	off=$((off + $2))
}
for i in $(seq 0 $((N - 1))) L; do
	sz=$MS; gs=$GLOG
	[ $i = L ] && { sz=$LOGMS; gs=$GLOGL; }
	slice d$i $sz; slice b$i $sz; slice s$i $sz; slice g$i $gs
done
python3 "$here/dmctl.py" <"$cmds" | grep -v '^ok$' && die "cannot make the slices"
dmsetup mknodes	# dmctl.py makes no /dev/mapper nodes
for i in $(seq 0 $((N - 1))); do
	fill_dev /dev/mapper/d$i $((MS / 2048)) /dev/urandom
	dd if=/dev/mapper/d$i of=/dev/mapper/b$i bs=1M iflag=direct oflag=direct status=none ||
		die "cannot copy d$i"
done
for layer in lw m; do
	: >"$cmds"
	for i in $(seq 0 $((N - 1))) L; do
		sz=$MS; [ $i = L ] && sz=$LOGMS
		if [ $layer = lw ]; then
			echo "create lw$i 0 $sz log-writes /dev/mapper/d$i /dev/mapper/g$i"
		else
			echo "create m$i 0 $sz linear /dev/mapper/lw$i 0"
		fi >>"$cmds"
	done
	python3 "$here/dmctl.py" <"$cmds" | grep -v '^ok$' && die "cannot stack log-writes"
	dmsetup mknodes
done

start=$(date +%s)
python3 "$here/durability-drive.py" /tmp/lw-run.json "$PARCHECK" $N $MS $CHUNK $REGION ||
	die "the workload failed"
for i in $(seq 0 $((N - 1))) L; do
	dmsetup status lw$i | grep -q logging_disabled && die "lw$i ran out of log space"
done
: >"$cmds"
for i in $(seq 0 $((N - 1))) L; do echo "remove m$i" >>"$cmds"; echo "remove lw$i" >>"$cmds"; done
python3 "$here/dmctl.py" <"$cmds" | grep -v '^ok$' && die "cannot remove the log-writes stack"
t1=$(date +%s)
python3 "$here/logwrites.py" check-order /tmp/lw-run.json ||
	die "clean bits reached the log device before their regions' member writes were durable"
t2=$(date +%s)
python3 "$here/logwrites.py" replay /tmp/lw-run.json ||
	die "a crash point lost acknowledged data or left bad parity"
t3=$(date +%s)
echo "ok durability: workload $((t1 - start)) s, check-order $((t2 - t1)) s, replay $((t3 - t2)) s"
