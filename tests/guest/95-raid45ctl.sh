#!/bin/bash
# kernels: 6.12
# cost: 130
# Issue 35: an array's life from its description (raid45ctl, r45desc)
# with the real dmeventd and the raid45 plugin, on whole virtual SCSI
# disks (scsi_debug, each its own store).  The root is read-only here:
# the descriptions go to a tmpfs directory ($RAID45_CONF_DIR).  dmeventd
# is started without it, as systemd starts it: the plugin takes the
# directory from the device's monitor configuration (descriptions=),
# which raid45-monitor register writes from its own environment (review
# 2: the plugin's environment is not raid45ctl's).  No udev either, so
# no /dev/disk/by-id: the test makes udev's links itself, by-id style
# names of the disks' SCSI addresses (stable across the "reboot"; the
# links are made anew then, as udev would at boot, and activation
# resolves them).
#  A  warn policy, no hook: raid45ctl create from the by-id paths (one
#     given as /dev/sdX, recorded as its by-id name), --nosync (fresh
#     disks are zeroes: parity is right); filled with known data; a disk
#     goes offline under a loop of full-row writes of new data (so the
#     disk misses some and is stale from then on): the description
#     records the member failed, and every write issued after the disk
#     went offline completed after the description was replaced (its
#     ctime: the rename), the plugin's log has the record before the
#     allow_writes; no write failed.
#     "Reboot": monitor unregistered, raid45ctl deactivate, dmeventd
#     killed and started again; the disk answers again.  raid45ctl
#     activate does not take it: its table line has "- -"; the data
#     reads right degraded (the rows it missed included).  raid45ctl
#     readd is refused (the running array never had the disk: it has no
#     record of what was written since); raid45ctl replace puts
#     the same disk back, rebuilt whole, and the plugin records the end
#     of the rebuild (all current).  Data byte for byte, parity of the
#     raw disks right (parity-check).
#  B  spare policy, one spare (by-id path): another disk offline under
#     writes; the failure recorded before the writes went on (the log's
#     order), the spare put in, recorded rebuilding then current with its
#     path; "reboot" with the old disk back: the activation uses the
#     spare, not the old disk; data right, the target's check finds no
#     mismatch, the raw disks' parity right.  raid45ctl status shows a
#     check slowed by the disks with its place, rate and ETA, then
#     frozen, then idle.
#  C  no monitor: a disk not there at activation; activate refuses,
#     activate --degraded records it failed before the device exists;
#     written degraded; "reboot" with the disk back: not taken; replace,
#     rebuilt (by hand: no monitor); data and parity right.
. "$(dirname "$0")/lib.sh"
load_module

BT=$TOP/build/tools
MON=$BT/raid45-monitor
CTL=$BT/raid45ctl
export DM_RAID45_MONITOR_DSO=$BT/libdevmapper-event-raid45.so
export DM_RAID45_MONITOR_DIR=/run/dm-raid45
export RAID45_CONF_DIR=/run/raid45
[ -x "$MON" ] && [ -x "$CTL" ] && [ -f "$DM_RAID45_MONITOR_DSO" ] || die "tools not built (make tools)"
[ -x /sbin/dmeventd ] || die "no /sbin/dmeventd (scripts/setup installs dmeventd)"
MLOG=/tmp/r45ctl-mon.log
DESC=$RAID45_CONF_DIR/r5.conf
BYID=/dev/disk/by-id
MIB=4
per_dev=$((MIB * 2048))
T0=$(date +%s.%N)
step() { echo "[$(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')s] $*"; }

busybox syslogd -n -O /tmp/messages &
slpid=$!
finish() {
	cp -f "$MLOG" /tmp/messages "$DESC" "${SHARE:-/tmp}/" 2>/dev/null
	rm -f /tmp/wload
	"$MON" unregister r5 >/dev/null 2>&1
	stop_dmeventd
	kill "$slpid" 2>/dev/null
	dmsetup remove_all --force >/dev/null 2>&1
	rm -rf /dev/disk
	rmmod scsi_debug 2>/dev/null
}
trap finish EXIT
for i in $(seq 50); do [ -S /dev/log ] && break; sleep 0.1; done

: >"$MLOG"
mkdir -p "$RAID45_CONF_DIR" "$DM_RAID45_MONITOR_DIR"
chmod 755 "$RAID45_CONF_DIR"
start_dmeventd

# ---- 5 disks of 4 MiB: 4 members and a spare
dmsetup remove_all --force >/dev/null 2>&1
load_scsi_debug 5 dev_size_mb=$MIB
sdisks >/tmp/sdisks	# no /dev/fd here for <(...)
mapfile -t sd </tmp/sdisks
[ "${#sd[@]}" = 5 ] || die "scsi_debug: ${#sd[@]} of 5 disks"
# udev's part: by-id links named by each disk's SCSI address
hctl() { basename "$(readlink -f "/sys/block/$1/device")"; }
make_links() {
	local d
	rm -rf /dev/disk
	mkdir -p $BYID
	for d in "${sd[@]}"; do
		ln -s "../../$d" "$BYID/scsi-0Linux_scsi_debug_$(hctl "$d" | tr : _)"
	done
}
make_links
byid() { echo "$BYID/scsi-0Linux_scsi_debug_$(hctl "${sd[$1]}" | tr : _)"; }
mm() { cat "/sys/block/${sd[$1]}/dev"; }
for i in 0 1 2 3 4; do [ -b "$(byid $i)" ] || die "link $(byid $i)"; done
step "disks ${sd[*]}"

# line_no <regexp> [<from line>]: the first line of the log that matches
line_no() { awk -v f="${2:-1}" 'NR >= f' "$MLOG" | grep -En -m1 -- "$1" | cut -d: -f1; }
register() { # [options]
	local n i
	n=$(grep -c " r5: monitoring" "$MLOG" 2>/dev/null)
	"$MON" register r5 "$@" --timeout 2 --log "$MLOG" || die "raid45-monitor register r5 $*"
	grep -qx "descriptions=$RAID45_CONF_DIR" "$DM_RAID45_MONITOR_DIR/r5.conf" ||
		die "the monitor configuration does not name $RAID45_CONF_DIR: $(cat "$DM_RAID45_MONITOR_DIR/r5.conf")"
	for i in $(seq 100); do
		[ "$(grep -c " r5: monitoring" "$MLOG" 2>/dev/null)" -gt "${n:-0}" ] && return 0
		sleep 0.1
	done
	die "the plugin did not start monitoring r5"
}
# desc_member <idx>: "<path> <offset> <state>" of the description
desc_member() { awk -v k="$1" '$1 == "member" && $2 == k { print $3, $4, $5 }' "$DESC"; }
wait_desc() { # <idx> <expected desc_member> <seconds>
	local i
	for i in $(seq $(($3 * 10))); do
		[ "$(desc_member "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	cat "$DESC" >&2
	tail -n 20 "$MLOG" >&2
	die "the description's member $1 is \"$(desc_member "$1")\", not \"$2\", after $3 s"
}
# the live table's last words: "<dev_to_init> <dev> <off>..." (4 members)
table_members() { dmsetup table r5 | awk '{ for (i = NF - 8; i <= NF; i++) printf "%s%s", $i, i < NF ? " " : "\n" }'; }

# A loop of full-row writes (3 data chunks of 32 KiB: every member) of
# new data (/tmp/new, rows 0..63 in turn): "<start us> <end us> ok|fail
# <row>" per write.  What the failed disk misses makes it stale.
writer() {
	local k=0 s r
	while [ -e /tmp/wload ]; do
		s=$(date +%s%6N)
		if dd if=/tmp/new of=/dev/mapper/r5 bs=96k skip=$k seek=$k count=1 oflag=direct \
			status=none 2>/dev/null; then r=ok; else r=fail; fi
		echo "$s $(date +%s%6N) $r $k" >>/tmp/wlog
		k=$(((k + 1) % 64))
	done
}
start_writer() {
	head -c $((64 * 96 * 1024)) /dev/urandom >/tmp/new
	: >/tmp/wlog
	touch /tmp/wload
	writer &
	wpid=$!
}
stop_writer() { # after at least <n> writes issued after <time in us>
	local i k
	for i in $(seq 150); do
		[ "$(awk -v t="$2" '$1 > t' /tmp/wlog | wc -l)" -ge "$1" ] && break
		sleep 0.1
	done
	rm -f /tmp/wload
	wait $wpid
	grep -q fail /tmp/wlog && die "a write failed ($(grep -c fail /tmp/wlog) of $(wc -l </tmp/wlog))"
	[ "$(awk -v t="$2" '$1 > t' /tmp/wlog | wc -l)" -ge "$1" ] ||
		die "$(awk -v t="$2" '$1 > t' /tmp/wlog | wc -l) writes after the failure, not $1"
	# the reference gets the rows written
	for k in $(awk '{ print $4 }' /tmp/wlog | sort -un); do
		dd if=/tmp/new of=/tmp/ref bs=96k skip="$k" seek="$k" count=1 conv=notrunc status=none
	done
}
check_data() { # <what>
	dd if=/dev/mapper/r5 bs=1M iflag=direct status=none | cmp - /tmp/ref ||
		die "data differs: $1"
}
reboot_sim() {
	step "\"reboot\""
	"$MON" unregister r5 >/dev/null || die "unregister r5"
	"$CTL" deactivate r5 || die "raid45ctl deactivate"
	dmsetup info r5 >/dev/null 2>&1 && die "r5 still there after deactivate"
	step "deactivated"
	stop_dmeventd
	start_dmeventd
	make_links
	step "\"rebooted\": dmeventd $(cat /run/dmeventd.pid)"
}
parity() { # <dev>...: the raw disks' parity
	"$PARCHECK" -t raid5_ls -c 64 -o 0 -n $((per_dev / 64)) "$@" >/tmp/pc ||
		{ cat /tmp/pc; die "parity of the raw disks"; }
}

# ---- A: warn policy, no hook
step "A: create r5 on ${sd[*]::4} (spare ${sd[4]})"
"$CTL" create r5 --nosync "$(byid 0)" "/dev/${sd[1]}" "$(byid 2)" "$(byid 3)" >/tmp/create.out 2>&1 ||
	{ cat /tmp/create.out; die "raid45ctl create"; }
cat /tmp/create.out
for i in 0 1 2 3; do
	[ "$(desc_member $i)" = "$(byid $i) 0 current" ] || { cat "$DESC"; die "member $i: $(desc_member $i)"; }
done
grep -q "^uuid R45-" "$DESC" || die "no uuid: $(cat "$DESC")"
[ "$(dmsetup info -c --noheadings -o uuid r5)" = "$(awk '$1 == "uuid" { print $2 }' "$DESC")" ] ||
	die "the device's uuid is not the description's"
[ "$(table_members)" = "-1 $(mm 0) 0 $(mm 1) 0 $(mm 2) 0 $(mm 3) 0" ] ||
	die "table: $(dmsetup table r5)"
len=$(blockdev --getsz /dev/mapper/r5)
[ "$len" = $((3 * per_dev)) ] || die "length $len, not $((3 * per_dev))"
head -c $((len * 512)) /dev/urandom >/tmp/ref
dd if=/tmp/ref of=/dev/mapper/r5 bs=1M oflag=direct status=none || die "fill"
step "A: filled with $((len / 2048)) MiB"
register --policy warn
start_writer
sleep 0.5
toff=$(date +%s%6N)
echo offline >"/sys/block/${sd[1]}/device/state" || die "cannot take ${sd[1]} offline"
wait_log "r5: sent allow_writes: the failure of member 1 is recorded" 15
stop_writer 3 "$toff"
[ "$(desc_member 1)" = "$(byid 1) 0 failed" ] || { cat "$DESC"; die "member 1 not recorded failed"; }
rec=$(line_no "r5: the failure of member 1 is recorded in the array's description")
ack=$(line_no "r5: sent allow_writes: the failure of member 1 is recorded")
[ -n "$rec" ] && [ "$rec" -lt "$ack" ] || die "the log has no record before the allow_writes: $(cat "$MLOG")"
# every write issued after the disk went offline found the failure and
# was held until allow_writes, which came after the rename of the record
ctime=$(stat -c %.6Z "$DESC" | tr -d .)
early=$(awk -v t="$toff" -v c="$ctime" '$1 > t && $2 <= c' /tmp/wlog | wc -l)
[ "$early" = 0 ] || die "$early writes completed before the description recorded the failure: $(cat /tmp/wlog)"
after=$(awk -v t="$toff" '$1 > t' /tmp/wlog | wc -l)
wait1=$(awk -v t="$toff" -v c="$ctime" '$1 > t { print ($2 - c) / 1e3; exit }' /tmp/wlog)
[ "$(ext_word r5 3)" = writable ] || die "writes held: $(dmsetup status r5)"
"$CTL" status r5 >/tmp/st || die "raid45ctl status"
grep -Eq "member 1 +failed .*FAILED" /tmp/st || { cat /tmp/st; die "status"; }
step "A: member 1 recorded failed; $after writes issued after the failure, all completed after the record (the first ${wait1} ms after it)"

reboot_sim
echo running >"/sys/block/${sd[1]}/device/state" || die "cannot bring ${sd[1]} back"
dd if="$(byid 1)" of=/dev/null bs=4k count=1 iflag=direct status=none || die "${sd[1]} does not answer"
"$CTL" activate r5 || die "raid45ctl activate (degraded)"
[ "$(table_members)" = "-1 $(mm 0) 0 - - $(mm 2) 0 $(mm 3) 0" ] ||
	die "activation took the failed disk: $(dmsetup table r5)"
check_data "degraded after the reboot"
step "A: activated without member 1, data right"
register --policy warn
expect_fail "readd of a member the running array never had" "$CTL" readd r5 1
grep -q "not a failed member in the kernel" /tmp/expect_fail.out || die "readd: $(cat /tmp/expect_fail.out)"
"$CTL" replace r5 1 "$(byid 1)" || die "raid45ctl replace r5 1"
[ "$(desc_member 1)" = "$(byid 1) 0 rebuilding" ] || wait_desc 1 "$(byid 1) 0 current" 1
wait_log "r5: rebuild of member 1 \($(mm 1)\) finished" 120
wait_desc 1 "$(byid 1) 0 current" 10
wait_in_sync r5 4 60
[ "$(health r5 4)" = AAAA ] || die "health $(health r5 4)"
[ "$(grep -c ' current$' "$DESC")" = 4 ] || die "description: $(cat "$DESC")"
check_data "after the rebuild of member 1"
reboot_sim
parity "/dev/${sd[0]}" "/dev/${sd[1]}" "/dev/${sd[2]}" "/dev/${sd[3]}"
step "A ok: not taken back at activation, replaced and rebuilt, data and parity ($(cat /tmp/pc)) right"

# ---- B: spare policy
step "B: spare policy, spare $(byid 4)"
"$CTL" activate r5 || die "raid45ctl activate"
[ "$(table_members)" = "-1 $(mm 0) 0 $(mm 1) 0 $(mm 2) 0 $(mm 3) 0" ] ||
	die "table: $(dmsetup table r5)"
register --policy spare --spare "$(byid 4)"
base=$(($(wc -l <"$MLOG") + 1))
start_writer
sleep 0.5
toff=$(date +%s%6N)
echo offline >"/sys/block/${sd[2]}/device/state" || die "cannot take ${sd[2]} offline"
wait_log "r5: member 2 \(.*\) replaced by spare $(byid 4) \($(mm 4)\): rebuild started" 15
stop_writer 3 "$toff"
rec=$(line_no "r5: the failure of member 2 is recorded in the array's description" "$base")
ack=$(line_no "r5: (sent allow_writes|table loaded)" "$base")
[ -n "$rec" ] && [ "$rec" -lt "$ack" ] || die "the log has no record before the writes went on: $(cat "$MLOG")"
wait_log "r5: rebuild of member 2 \($(mm 4)\) finished" 120
wait_desc 2 "$(byid 4) 0 current" 10
wait_log "r5: table loaded: .* 4 -1 " 10
[ "$(health r5 4)" = AAAA ] || die "health $(health r5 4)"
reboot_sim
echo running >"/sys/block/${sd[2]}/device/state" || die "cannot bring ${sd[2]} back"
"$CTL" activate r5 || die "raid45ctl activate (spare)"
[ "$(table_members)" = "-1 $(mm 0) 0 $(mm 1) 0 $(mm 4) 0 $(mm 3) 0" ] ||
	die "activation after the spare: $(dmsetup table r5)"
[ "$(health r5 4)" = AAAA ] || die "health $(health r5 4)"
check_data "activated with the spare"
# status in human terms: a check slowed by the disks (scsi_debug's
# delay, in jiffies, for every command: 50 makes the 12 MiB check last
# about 10 s here, against 1.3 s at 5) shows its place, rate and ETA;
# the two raw lines are printed for tests/unit (r45status's progress)
SDELAY=/sys/bus/pseudo/drivers/scsi_debug/delay
for i in $(seq 100); do echo 50 2>/dev/null >$SDELAY && break; sleep 0.1; done
[ "$(cat $SDELAY)" = 50 ] || die "scsi_debug delay 50: $(cat $SDELAY)"
dmsetup message r5 0 check || die "check refused"
sleep 0.3
echo "status line $(date +%s.%N): $(dmsetup status r5)"
"$CTL" status r5 --interval 2 >/tmp/st || die "raid45ctl status during the check"
echo "status line $(date +%s.%N): $(dmsetup status r5)"
cat /tmp/st
grep -Eq "^  action: check, [0-9]+\.[0-9]% \([0-9.]+ [KMG]iB of [0-9.]+ MiB\), [0-9.]+ [KMG]iB/s, ETA [0-9]+[smhd]" /tmp/st ||
	die "no check progress with a rate and an ETA"
dmsetup message r5 0 frozen || die "frozen refused"
"$CTL" status r5 --interval 1 >/tmp/st || die "raid45ctl status, check frozen"
grep -Eq "^  action: frozen at [0-9]+\.[0-9]% \([0-9.]+ [KMG]iB of [0-9.]+ MiB\) \(" /tmp/st ||
	die "frozen check: $(cat /tmp/st)"
dmsetup message r5 0 idle || die "idle refused"
# scsi_debug refuses a new delay (EBUSY) while commands are queued
for i in $(seq 100); do echo 0 2>/dev/null >$SDELAY && break; sleep 0.1; done
[ "$(cat $SDELAY)" = 0 ] || die "scsi_debug delay 0: $(cat $SDELAY)"
"$CTL" status r5 --interval 1 >/tmp/st || die "raid45ctl status, idle"
grep -q "^  action: idle$" /tmp/st || die "idle: $(cat /tmp/st)"
step "B: raid45ctl status showed the check's place, rate and ETA, then frozen and idle"
# the target's own check: no mismatch
dmsetup message r5 0 check || die "check refused"
wait_in_sync r5 4 60
[ "$(mismatches r5)" = 0 ] || die "check: $(dmsetup status r5)"
"$CTL" status r5 | grep -q "active, healthy" || die "status: $("$CTL" status r5)"
"$CTL" deactivate r5 || die "deactivate"
parity "/dev/${sd[0]}" "/dev/${sd[1]}" "/dev/${sd[4]}" "/dev/${sd[3]}"
[ "$(grep -c ' current$' "$DESC")" = 4 ] || die "description: $(cat "$DESC")"
step "B ok: the spare recorded and used at the next activation, data and parity ($(cat /tmp/pc)) right"

# ---- C: activate --degraded records the member it leaves out failed
# (the second review's finding 1): with no monitor at all, writes go on
# at once, so the record must come before the device exists
step "C: member 3's disk not there at activation"
mv "$(byid 3)" /tmp/link3 || die "hide member 3's link"
expect_fail "activation with a disk not there" "$CTL" activate r5
grep -q "member 3 (.*) is not there" /tmp/expect_fail.out || die "activate: $(cat /tmp/expect_fail.out)"
"$CTL" activate r5 --degraded || die "raid45ctl activate --degraded"
mv /tmp/link3 "$(byid 3)" || die "member 3's link back"
[ "$(desc_member 3)" = "$(byid 3) 0 failed" ] || die "--degraded did not record member 3 failed: $(cat "$DESC")"
[ "$(table_members)" = "-1 $(mm 0) 0 $(mm 1) 0 $(mm 4) 0 - -" ] || die "degraded table: $(dmsetup table r5)"
toff=$(date +%s%6N)
start_writer
stop_writer 8 "$toff"
check_data "degraded, written without member 3"
"$CTL" deactivate r5 || die "deactivate (member 3 recorded failed)"
"$CTL" activate r5 || die "activate with member 3's disk back"
[ "$(table_members)" = "-1 $(mm 0) 0 $(mm 1) 0 $(mm 4) 0 - -" ] ||
	die "activation took member 3's stale disk: $(dmsetup table r5)"
check_data "member 3's disk back, not taken"
"$CTL" replace r5 3 "$(byid 3)" || die "replace r5 3"
for i in $(seq 600); do [ "$(health r5 4)" = AAAA ] && break; sleep 0.1; done
wait_in_sync r5 4 60
"$CTL" rebuilt r5 3 || die "raid45ctl rebuilt r5 3"
[ "$(desc_member 3)" = "$(byid 3) 0 current" ] || die "rebuilt: $(cat "$DESC")"
check_data "member 3 rebuilt"
"$CTL" deactivate r5 || die "deactivate"
parity "/dev/${sd[0]}" "/dev/${sd[1]}" "/dev/${sd[4]}" "/dev/${sd[3]}"
step "C ok: left out, recorded failed before any write, not taken back, rebuilt; data and parity ($(cat /tmp/pc)) right"
