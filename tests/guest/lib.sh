# Helpers shared by the in-guest tests.  Source it; never run it.
# shellcheck shell=bash

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KREL=${KREL:-$(uname -r)}
export DM_DISABLE_UDEV=1
PARCHECK=$TOP/build/tests/parity-check

die() {
	echo "FAILED: $*" >&2
	exit 1
}

# Mount a writable overlay over /lib/modules/<rel> and "make install-module"
# the module into it, so that modprobe (and dm's request_module) find it.
setup_module_overlay() {
	local lm=/lib/modules/$KREL
	if ! grep -q " $lm overlay " /proc/mounts; then
		modprobe overlay || return 1
		mkdir -p /run/modov/upper /run/modov/work
		mount -t overlay overlay \
			-o "lowerdir=$lm,upperdir=/run/modov/upper,workdir=/run/modov/work" \
			"$lm" || return 1
	fi
	make -s -C "$TOP" install-module KVER="$KREL" >/dev/null || return 1
}

# Load the freshly built module (its dependencies through modprobe).
load_module() {
	local ko=$TOP/build/$KREL/dm-raid456.ko d
	grep -q '^dm_raid456 ' /proc/modules && return 0
	for d in $(modinfo -F depends "$ko" | tr , ' '); do
		modprobe "$d" || die "modprobe $d failed"
	done
	insmod "$ko" || die "insmod $ko failed"
}

# expect_fail <what> <command...>: the command must fail.
expect_fail() {
	local what=$1
	shift
	if "$@" >/tmp/expect_fail.out 2>&1; then
		cat /tmp/expect_fail.out >&2
		die "$what: succeeded but should have failed"
	fi
}

# Ramdisks: brd with N disks of SIZE MiB each (/dev/ram0..).
make_ramdisks() {
	local n=$1 mib=$2
	rmmod brd 2>/dev/null || true
	modprobe brd rd_nr="$n" rd_size=$((mib * 1024)) max_part=0 ||
		die "modprobe brd failed"
}

# Raw member contents are written and read with O_DIRECT only: while
# another opener (a wrapper, the array) keeps a device's page cache alive,
# buffered writes are written back whenever the kernel likes, over what
# the array wrote meanwhile, and buffered reads can return stale pages.
# fill_dev DEV MIB SOURCE (/dev/urandom or /dev/zero)
fill_dev() {
	dd if="$3" of="$1" bs=1M count="$2" oflag=direct status=none ||
		die "cannot fill $1"
}

# raw_copy DEV FILE: a member's whole contents into a file, uncached
raw_copy() {
	dd if="$1" of="$2" bs=1M iflag=direct status=none || die "cannot read $1"
}

# Stop swapping, remove every dm device and md array, unload brd (best
# effort).
cleanup_all() {
	local d
	swapoff -a 2>/dev/null
	for d in /dev/md[0-9]*; do
		[ -e "$d" ] && mdadm --stop "$d" >/dev/null 2>&1
	done
	dmsetup remove_all --force >/dev/null 2>&1
	rmmod brd 2>/dev/null || true
	losetup -D 2>/dev/null
	# module parameters a killed test may have left changed
	d=/sys/module/dm_raid456/parameters
	[ -w $d/lane_spill ] && echo 8 >$d/lane_spill
	[ -w $d/skip_copy ] && echo N >$d/skip_copy
	true
}

# stat_word DEV N: the Nth counter after "stats" (statistics on), empty if off.
stat_word() {
	dmsetup status "$1" | sed -n 's/.* stats //p' | awk -v n="$2" '{ print $n }'
}

# Field N (1-based, after "<start> <len> raid45") of a raid45 status line.
status_word() {
	dmsetup status "$1" | awk -v n="$2" '{ print $(n + 3) }'
}

# Health word and sync count of a raid45 device with N members.
health() { status_word "$1" $(($2 + 3)); }
sync_count() { status_word "$1" $(($2 + 4)); }

# Word K (1-based) of the words a raid45 status line appends after the
# log's status ([ext]): 1 sync action, 2 mismatches, 3 held|writable
# (writes held after a member failure until allow_writes), 4 member read
# errors repaired, 5 regions out of sync with a member failed, 6 reads
# refused (write hole), 7 ppl|-; then, with statistics on, "stats" and its
# 11 counters (stat_word); then the action's progress (<done>/<total>
# sectors, or - when idle: progress).
# The log status is "<count> <count words>" right after <sync>/<regions>.
ext_word() {
	dmsetup status "$1" | awk -v k="$2" '{
		for (i = 4; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) break
		print $(i + 1 + $(i + 1) + k) }'
}
sync_action() { ext_word "$1" 1; }
mismatches() { ext_word "$1" 2; }
progress() {
	local w
	w=$(ext_word "$1" 8)
	[ "$w" = stats ] && w=$(ext_word "$1" 20)
	echo "$w"
}

# Writes are held after a member failure until "allow_writes": a stand-in
# for the event daemon that records failures, it acknowledges every
# failure of device DEV (message to its target at sector 0) until DEV is
# gone.  Run it in the background: ack_failures DEV &
ack_failures() {
	while [ -e "/dev/mapper/$1" ]; do
		if dmsetup status "$1" 2>/dev/null | grep -q ' held'; then
			dmsetup message "$1" 0 allow_writes 2>/dev/null
		fi
		sleep 0.5
	done
}

# Wait (up to $3 s) until all regions are in sync and the action is idle.
wait_in_sync() {
	local dev=$1 n=$2 limit=${3:-300} i sc
	for i in $(seq $((limit * 5))); do
		sc=$(sync_count "$dev" "$n")
		if [ "${sc%/*}" = "${sc#*/}" ] && [ "$(sync_action "$dev")" = idle ]; then
			return 0
		fi
		sleep 0.2
	done
	die "$dev not in sync after ${limit}s: $(dmsetup status "$dev")"
}

# Event counter of a dm device.
dm_events() {
	dmsetup info -c --noheadings -o events "$1" | tr -d ' '
}

# Fresh zeroed ramdisks (zeros are consistent parity) behind wrappers
# m0..m<n-1>: fresh_members <n> <MiB> [extra ramdisks]
fresh_members() {
	local n=$1 mib=$2 extra=${3:-0} i
	for i in $(seq 0 $((n - 1))); do dmsetup remove "m$i" >/dev/null 2>&1; done
	make_ramdisks $((n + extra)) "$mib"
	for i in $(seq 0 $((n - 1))); do wrap_member "m$i" "/dev/ram$i"; done
}

# Swap a live member wrapper's table (the array above it keeps its
# device): retable_member <name> <table>
retable_member() {
	dmsetup suspend "$1" && dmsetup load "$1" --table "$2" && dmsetup resume "$1" ||
		die "cannot load \"$2\" into $1"
}

# Replace the table of a linear member wrapper with dm-error (it fails).
fail_wrapper() {
	local name=$1 sz
	sz=$(blockdev --getsz "/dev/mapper/$name")
	retable_member "$name" "0 $sz error"
}

# Point a member wrapper at a (new) device.
wrap_member() {
	local name=$1 dev=$2 sz
	sz=$(blockdev --getsz "$dev")
	if dmsetup info "$name" >/dev/null 2>&1; then
		retable_member "$name" "0 $sz linear $dev 0"
	else
		dmsetup create "$name" --table "0 $sz linear $dev 0" || die "cannot wrap $dev"
	fi
}

# Matrices split between the kernels that make check runs a test on (the
# code under test is the same on all of them): each combination runs on
# one kernel, and each kernel runs every value of every dimension.  The
# kernels are the test's own "# kernels:" line (all three when it has
# none): split_slot prints this kernel's place among them (0 for a kernel
# not named, as when a test is run by name).  on_this_kernel <i> <j>...
# is true when the sum of the combination's indices (0-based, one per
# dimension) falls on this slot: with as many values per dimension as
# kernels or more, every value of each dimension is met on every kernel.
# R45_SPLIT_ALL=1 runs everything.
split_kernels() {
	local ks
	ks=$(sed -n 's/^# kernels: //p' "$0")
	echo "${ks:-6.12 6.1 7}"
}
split_slot() {
	local i=0 k rel
	rel=$(uname -r)
	for k in $(split_kernels); do
		case $rel in "$k".*) echo $i; return ;; esac
		i=$((i + 1))
	done
	echo 0
}
on_this_kernel() {
	local s=0 i n
	[ "${R45_SPLIT_ALL:-0}" = 1 ] && return 0
	n=$(split_kernels | wc -w)
	for i in "$@"; do s=$((s + i)); done
	[ $((s % n)) = "$(split_slot)" ]
}

# ---- scsi_debug disks and dmeventd, as 95 and 96 use them
# the scsi_debug disks' kernel names (sdX)
sdisks() {
	local b
	for b in /sys/block/sd*; do
		grep -qs scsi_debug "$b/device/model" && [ -b "/dev/${b##*/}" ] && echo "${b##*/}"
	done
}
# load_scsi_debug <n> [<option>...]: n disks, each on its host with its
# own store, answered at once (delay=0: no timer per command)
load_scsi_debug() {
	local n=$1 i
	shift
	modprobe sd_mod || die "modprobe sd_mod"
	modprobe scsi_debug add_host="$n" per_host_store=1 num_tgts=1 delay=0 "$@" ||
		die "modprobe scsi_debug"
	for i in $(seq 100); do [ "$(sdisks | wc -l)" = "$n" ] && break; sleep 0.2; done
	[ "$(sdisks | wc -l)" = "$n" ] || die "scsi_debug: $(sdisks | wc -l) of $n disks"
}
# dmeventd gone as in a reboot (it monitors nothing then; a TERM takes
# it seconds), and started again, without $RAID45_CONF_DIR (as systemd
# starts it: the plugin must look where register recorded)
stop_dmeventd() {
	local p i
	p=$(cat /run/dmeventd.pid 2>/dev/null)
	[ -n "$p" ] || return 0
	kill -9 "$p" 2>/dev/null
	for i in $(seq 20); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	rm -f /run/dmeventd.pid
}
start_dmeventd() {
	(unset RAID45_CONF_DIR; exec /sbin/dmeventd) || die "dmeventd did not start"
	[ -s /run/dmeventd.pid ] || die "dmeventd: no pid file"
	! tr '\0' '\n' <"/proc/$(cat /run/dmeventd.pid)/environ" | grep -q "^RAID45_CONF_DIR=" ||
		die "dmeventd has RAID45_CONF_DIR: the test would not see where the plugin looks"
}

# wait_log <extended regexp> <seconds>: until the monitor's log $MLOG has
# a matching line (86, 95, 96; seconds times $SLOW, 1 by default)
wait_log() {
	local i
	for i in $(seq $(($2 * 10 * ${SLOW:-1}))); do
		grep -Eq -- "$1" "$MLOG" 2>/dev/null && return 0
		sleep 0.1
	done
	tail -n 20 "$MLOG" >&2
	die "not logged within $2 s: $1"
}

# ---- md as the oracle (20, 97)
# mdadm's words for a raid45 type (md's level and layout)
md_args() {
	case $1 in
	raid4) echo "--level=4" ;;
	raid5_la) echo "--level=5 --layout=left-asymmetric" ;;
	raid5_ra) echo "--level=5 --layout=right-asymmetric" ;;
	raid5_ls) echo "--level=5 --layout=left-symmetric" ;;
	raid5_rs) echo "--level=5 --layout=right-symmetric" ;;
	raid6_zr) echo "--level=6 --layout=ddf-zero-restart" ;;
	raid6_nr) echo "--level=6 --layout=ddf-N-restart" ;;
	raid6_nc) echo "--level=6 --layout=ddf-N-continue" ;;
	esac
}
md_wait_idle() {
	local i
	for i in $(seq 600); do
		[ "$(cat /sys/block/md0/md/sync_action)" = idle ] && return 0
		sleep 0.2
	done
	die "md check did not finish"
}
# md_check <type> <chunk> <data offset> <sectors per member> <member>...:
# md created --assume-clean over the raw members (its superblock goes
# before the data offset, which must leave it room), md's "check" must
# find 0 mismatches; prints the md5 of md's array, and stops it.
md_check() {
	local type=$1 chunk=$2 off=$3 per=$4 mm sum
	shift 4
	modprobe raid456 || die "no md raid456"
	# shellcheck disable=SC2046
	mdadm --create /dev/md0 --run --quiet --assume-clean --metadata=1.2 \
		--bitmap=none $(md_args "$type") --chunk=$((chunk / 2)) \
		--data-offset=$((off / 2))K --size=$((per / 2))K --raid-devices=$# "$@" \
		>/tmp/md_check.out 2>&1 || { cat /tmp/md_check.out; die "mdadm create $type over $*"; }
	echo check >/sys/block/md0/md/sync_action
	md_wait_idle
	mm=$(cat /sys/block/md0/md/mismatch_cnt)
	sum=$(md5sum </dev/md0)
	mdadm --stop /dev/md0 >/dev/null 2>&1 || die "md stop"
	[ "$mm" = 0 ] || die "md check: mismatch_cnt $mm ($type over $*)"
	echo "${sum%% *}"
}
