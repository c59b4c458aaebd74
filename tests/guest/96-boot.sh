#!/bin/bash
# kernels: 6.12
# cost: 220
# Issue 35, item 3: activation at boot (docs/raid45.rst, "Activation at
# boot").  The guest has neither udevd nor systemd: the test does what
# they would.  Whole virtual SCSI disks (scsi_debug, a store per host:
# a disk deleted and found again by a rescan of its host keeps its
# data) "appear" one by one as at a boot: its host rescanned, then, as
# udev, "raid45ctl incremental --export <node> <link>" (the rule's
# $links: the by-id link is made only after it, as udev makes links
# after the rules ran), then the link; what RAID45_WANTS names is run as
# systemd would: raid45@<i>.service ("raid45ctl boot <i>", a oneshot
# that stays active: run once per boot) and
# raid45-last-resort@<i>.service ("raid45ctl boot <i> --last-resort",
# in the background, started again only once it has ended).  Real
# dmeventd with the raid45 plugin; the descriptions in a tmpfs
# ($RAID45_CONF_DIR).
#  1  r5 (4 disks and a disk log: a degraded start at boot needs one or
#     ppl, create refuses --boot-degraded otherwise, and under
#     R45BOOT_SETTLE; boot-degraded 60) and b+1 (3 disks, no boot-degraded:
#     never started degraded; a '+' in its name, ':' in its units'),
#     filled with known data, monitored (r5: policy warn, a log file),
#     then "reboot": everything deactivated, the disks deleted.
#     r5's members appear one by one: not ready until the last, the
#     last-resort service waits, the last one makes it ready, raid45@r5
#     activates it (exactly once), registers it with its monitor
#     configuration kept (--keep: its timeout, 2 s, too); the unit
#     that finds it active does not register it again.  The activation
#     lock held (by flock(1)): raid45ctl boot waits for it.  b+1: two members appear, the third not: its last resort
#     gives up after the settling time (never degraded): not active,
#     the unit fails saying why; the third appears: activated.  Data
#     byte for byte.  Also the real rule through "udevadm test" (it
#     runs the rules, IMPORT{program} included, without a daemon).
#  2  r5 with a short boot-degraded (3 x the slowest appearance + 6 s,
#     at least R45BOOT_SETTLE, 10 s;
#     the file edited as an admin would), a member missing at boot: the
#     last resort starts it degraded, not before the bound (no
#     start_dirty_degraded), "- -" for the member, the plugin
#     records it failed; new data written degraded (the absent disk is
#     stale from then on).
#  3  "reboot" with the failed disk back: it appears before the last
#     current member: never counted (RAID45_FAILED_MEMBER_OF, not
#     ready); with the last current member r5 starts with "- -" for it,
#     the new data read right.
#  4  d5 with a disk log, "crashed" (the log's bits zeroed after a clean
#     deactivation: every region dirty, as a crash mid-writes leaves
#     them), a member missing at boot: the last resort's degraded start
#     is refused by the kernel (dirty degraded) and stays refused: the
#     unit fails pointing at --start-dirty-degraded, never adding it;
#     the member appears: raid45@d5 starts it whole, data right.
. "$(dirname "$0")/lib.sh"
load_module

BT=$TOP/build/tools
MON=$BT/raid45-monitor
CTL=$BT/raid45ctl
export DM_RAID45_MONITOR_DSO=$BT/libdevmapper-event-raid45.so
# its own directories: another test of the same boot may have left its
# descriptions (95's r5)
export DM_RAID45_MONITOR_DIR=/run/dm-raid45-boot
export RAID45_CONF_DIR=/run/raid45-boot
# the activation locks
export RAID45_RUN_DIR=/run/raid45-boot-locks
# raid45ctl boot runs it (installed: /usr/local/sbin/raid45-monitor)
export RAID45_MONITOR=$MON
[ -x "$MON" ] && [ -x "$CTL" ] && [ -f "$DM_RAID45_MONITOR_DSO" ] || die "tools not built (make tools)"
[ -f "$BT/systemd/69-raid45.rules" ] || die "no $BT/systemd/69-raid45.rules (make tools)"
[ -x /sbin/dmeventd ] || die "no /sbin/dmeventd (scripts/setup installs dmeventd)"
MLOG=/tmp/boot-mon.log
U=/tmp/units
BYID=/dev/disk/by-id
MIB=4
T0=$(date +%s.%N)
step() { echo "[$(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')s] $*"; }

busybox syslogd -n -O /tmp/messages &
slpid=$!
finish() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	cp -f "$MLOG" /tmp/messages "$RAID45_CONF_DIR"/*.conf "${SHARE:-/tmp}/" 2>/dev/null
	cp -rf "$U" "${SHARE:-/tmp}/" 2>/dev/null
	"$MON" unregister r5 >/dev/null 2>&1
	"$MON" unregister b+1 >/dev/null 2>&1
	stop_dmeventd
	kill "$slpid" 2>/dev/null
	dmsetup remove_all --force >/dev/null 2>&1
	rm -rf /dev/disk /run/udev/rules.d/69-raid45.rules "$RAID45_CONF_DIR" "$DM_RAID45_MONITOR_DIR" \
		"$RAID45_RUN_DIR"
	rmmod scsi_debug 2>/dev/null
}
trap finish EXIT
for i in $(seq 50); do [ -S /dev/log ] && break; sleep 0.1; done
: >"$MLOG"
rm -rf "$RAID45_CONF_DIR" "$DM_RAID45_MONITOR_DIR" "$U"
mkdir -p "$RAID45_CONF_DIR" "$DM_RAID45_MONITOR_DIR" "$U"
chmod 755 "$RAID45_CONF_DIR"
start_dmeventd

# ---- 12 disks of 4 MiB, one per host: r5 on 0..3 with its disk log on
# 11, b+1 on 4..6, d5 on 7..9 with its disk log on 10
dmsetup remove_all --force >/dev/null 2>&1
load_scsi_debug 12 dev_size_mb=$MIB
# each disk by its SCSI address (host:channel:target:lun), stable across
# a delete and a rescan of its host; its kernel name may change
hctl=()
for d in $(sdisks); do hctl+=("$(basename "$(readlink -f "/sys/block/$d/device")")"); done
[ "${#hctl[@]}" = 12 ] || die "scsi_debug: ${#hctl[@]} of 12 disks"
printf '%s\n' "${hctl[@]}" | sort -t: -k1,1n >/tmp/hctl	# no /dev/fd for <(...)
mapfile -t hctl </tmp/hctl
sd() { ls "/sys/bus/scsi/devices/${hctl[$1]}/block/" 2>/dev/null; }
linkname() { echo "disk/by-id/scsi-0Linux_scsi_debug_$(echo "${hctl[$1]}" | tr : _)"; }
byid() { echo "/dev/$(linkname "$1")"; }
mm() { cat "/sys/block/$(sd "$1")/dev"; }
mklink() { mkdir -p $BYID && ln -sfn "../../$(sd "$1")" "$(byid "$1")"; }
ALL=$(seq 0 11)
for i in $ALL; do mklink $i; done
step "disks: $(for i in $ALL; do printf '%s=%s ' "${hctl[$i]}" "$(sd $i)"; done)"

# a disk gone (as at power-off) and found again by a rescan of its host
unplug() {
	local d
	d=$(sd "$1")
	rm -f "$(byid "$1")"
	[ -n "$d" ] || return 0
	echo 1 >"/sys/block/$d/device/delete" || die "cannot delete $d"
	for i in $(seq 100); do [ -e "/sys/block/$d" ] || return 0; sleep 0.1; done
	die "$d still there after its delete"
}
# units: "<unit> <pid|done>" lines in $U/state (the state systemd keeps)
unit_log() { echo "$U/$1.log"; }
start_unit() { # <unit>
	local u=$1 i st pid
	i=${u#*@}
	i=${i%.service}
	st=$(awk -v u="$u" '$1 == u { s = $2 } END { print s }' "$U/state" 2>/dev/null)
	case $u in
	raid45@*)
		# oneshot, RemainAfterExit: once per boot
		[ -n "$st" ] && return 0
		echo "$u done" >>"$U/state"
		echo "== start" >>"$(unit_log "$u")"
		"$CTL" boot "$i" >>"$(unit_log "$u")" 2>&1
		echo "== exit $?" >>"$(unit_log "$u")"
		;;
	raid45-last-resort@*)
		# simple: started again only once it has ended
		if [ -n "$st" ] && [ "$st" != done ] && kill -0 "$st" 2>/dev/null; then
			return 0
		fi
		echo "== start" >>"$(unit_log "$u")"
		("$CTL" boot "$i" --last-resort >>"$(unit_log "$u")" 2>&1
		 echo "== exit $?" >>"$(unit_log "$u")") &
		echo "$u $!" >>"$U/state"
		;;
	*) die "unknown unit $u" ;;
	esac
}
# appear <disk>: its host rescanned, the rule's command with the link to
# be, then the link, then the units named; the command's output in
# /tmp/inc.<disk>
appear() {
	local k=$1 h u t=$SECONDS
	h=${hctl[$k]%%:*}
	echo "- - -" >"/sys/class/scsi_host/host$h/scan" || die "rescan host$h"
	for i in $(seq 100); do [ -n "$(sd "$k")" ] && [ -b "/dev/$(sd "$k")" ] && break; sleep 0.1; done
	[ -b "/dev/$(sd "$k")" ] || die "disk $k (${hctl[$k]}) did not come back"
	[ ! -e "$(byid "$k")" ] || die "$(byid "$k") exists before the rules ran"
	"$CTL" incremental --export "/dev/$(sd "$k")" "$(linkname "$k")" >"/tmp/inc.$k" 2>"/tmp/inc.$k.err" ||
		die "incremental of disk $k: $(cat "/tmp/inc.$k.err")"
	mklink "$k"
	for u in $(sed -n 's/^RAID45_WANTS=//p' "/tmp/inc.$k"); do start_unit "$u"; done
	[ $((SECONDS - t)) -le "$slowest" ] || slowest=$((SECONDS - t))
}
slowest=0	# seconds, the slowest appearance
inc() { sed -n "s/^$2=//p" "/tmp/inc.$1"; }	# <disk> <key>
# a new boot: the units' state forgotten, their logs kept per boot
new_boot() {
	local u
	for u in $(awk '$2 != "done" { print $2 }' "$U/state" 2>/dev/null); do
		kill "$u" 2>/dev/null
	done
	mkdir -p "$U/boot$1"
	mv "$U"/*.log "$U/state" "$U/boot$1/" 2>/dev/null
	: >"$U/state"
}
wait_exit() { # <unit> <seconds>: its "== exit N" line, N printed
	local i
	for i in $(seq $(($2 * 10))); do
		grep -q '^== exit' "$(unit_log "$1")" 2>/dev/null && break
		sleep 0.1
	done
	sed -n 's/^== exit //p' "$(unit_log "$1")" | tail -n 1
}
desc_member() { awk -v k="$2" '$1 == "member" && $2 == k { print $3, $4, $5 }' "$RAID45_CONF_DIR/$1.conf"; }
# the live table's members: "<dev_to_init> <dev> <off>..." of <n> members
table_members() { dmsetup table "$1" | awk -v n="$2" '{ for (i = NF - 2 * n; i <= NF; i++) printf "%s%s", $i, i < NF ? " " : "\n" }'; }
check_data() { # <array> <ref> <what>
	dd if="/dev/mapper/$1" bs=1M iflag=direct status=none | cmp - "$2" || die "data of $1 differs: $3"
}
# dmeventd dies first, as at a power-off: the monitor's configurations
# stay (an unregister would remove them)
reboot_sim() {
	local a k
	step "\"reboot\""
	stop_dmeventd
	for a in r5 b+1 d5; do
		dmsetup info "$a" >/dev/null 2>&1 && { "$CTL" deactivate "$a" || die "deactivate $a"; }
	done
	for k in $ALL; do unplug $k; done
	start_dmeventd
	new_boot "$1"
}
wait_grep() { # <regexp> <file> <seconds>
	local i
	for i in $(seq $(($3 * 10))); do
		grep -q -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$2" >&2
	die "not in $2 within $3 s: $1"
}

# ---- 1: members appearing one by one
step "1: create r5 (boot-degraded 60, a disk log) and b+1 (never)"
# a degraded start at boot needs a crash to be seen (a disk log or ppl),
# and not before udev settled (R45BOOT_SETTLE, 10 s)
expect_fail "create --boot-degraded with a core log" \
	"$CTL" create x --dry-run --boot-degraded 60 "$(byid 7)" "$(byid 8)" "$(byid 9)"
"$CTL" create x --dry-run --boot-degraded 60 "$(byid 7)" "$(byid 8)" "$(byid 9)" 2>&1 |
	grep -q "boot-degraded needs a disk log" || die "create --boot-degraded with a core log: why?"
expect_fail "create --boot-degraded 9" \
	"$CTL" create x --dry-run --boot-degraded 9 --log "$(byid 10)" "$(byid 7)" "$(byid 8)" "$(byid 9)"
"$CTL" create x --dry-run --boot-degraded 10 --log "$(byid 10)" "$(byid 7)" "$(byid 8)" "$(byid 9)" \
	>/tmp/create.out 2>&1 || { cat /tmp/create.out; die "create --dry-run --boot-degraded 10 --log"; }
"$CTL" create r5 --nosync --boot-degraded 60 --log "$(byid 11)" "$(byid 0)" "$(byid 1)" "$(byid 2)" "$(byid 3)" \
	>/tmp/create.out 2>&1 || { cat /tmp/create.out; die "create r5"; }
"$CTL" create b+1 --nosync "$(byid 4)" "$(byid 5)" "$(byid 6)" >/tmp/create.out 2>&1 ||
	{ cat /tmp/create.out; die "create b+1"; }
grep -qx "version 2" $RAID45_CONF_DIR/r5.conf && grep -qx "boot-degraded 60" $RAID45_CONF_DIR/r5.conf ||
	die "r5.conf: $(cat $RAID45_CONF_DIR/r5.conf)"
grep -qx "version 1" "$RAID45_CONF_DIR/b+1.conf" && ! grep -q boot-degraded "$RAID45_CONF_DIR/b+1.conf" ||
	die "b+1.conf: $(cat "$RAID45_CONF_DIR/b+1.conf")"
len=$(blockdev --getsz /dev/mapper/r5)
head -c $((len * 512)) /dev/urandom >/tmp/ref5
dd if=/tmp/ref5 of=/dev/mapper/r5 bs=1M oflag=direct status=none || die "fill r5"
lenb=$(blockdev --getsz /dev/mapper/b+1)
head -c $((lenb * 512)) /dev/urandom >/tmp/refb
dd if=/tmp/refb of=/dev/mapper/b+1 bs=1M oflag=direct status=none || die "fill b+1"
"$MON" register r5 --policy warn --timeout 2 --log "$MLOG" >/dev/null || die "register r5"
wait_log " r5: monitoring" 15
step "1: filled r5 ($((len / 2048)) MiB) and b+1 ($((lenb / 2048)) MiB), r5 monitored"

# the real rule, through udevadm test (no daemon needed): the wants it
# sets for b+1 (its instance b:1) while inactive, none once active
command -v udevadm >/dev/null || die "no udevadm"
mkdir -p /run/udev/rules.d
sed "s|$(sed -n 's/^IMPORT{program}="\([^ ]*\) .*/\1/p' "$BT/systemd/69-raid45.rules")|/usr/bin/env RAID45_CONF_DIR=$RAID45_CONF_DIR $CTL|" \
	"$BT/systemd/69-raid45.rules" >/run/udev/rules.d/69-raid45.rules
grep -q "env RAID45_CONF_DIR=$RAID45_CONF_DIR $CTL incremental" /run/udev/rules.d/69-raid45.rules ||
	die "rule: $(cat /run/udev/rules.d/69-raid45.rules)"
"$CTL" deactivate b+1 >/dev/null || die "deactivate b+1 for udevadm test"
# utest <n> <disk> <expected SYSTEMD_WANTS entry> <expected RAID45_ line>
utest() {
	udevadm test --action=add "/sys/block/$(sd "$2")" >"/tmp/udevtest$1.out" 2>&1
	grep -Eq "^SYSTEMD_WANTS=(.* )?$3( |\$)" "/tmp/udevtest$1.out" &&
		grep -qx "$4" "/tmp/udevtest$1.out" ||
		{ grep -iE "raid45|SYSTEMD_WANTS" "/tmp/udevtest$1.out"; die "udevadm test $1: not $3 and $4"; }
}
# member 2's link away: waiting; back: ready
rm "$(byid 6)"
utest 1 4 "raid45-last-resort@b:1.service" "RAID45_WAITING=b+1"
mklink 6
utest 2 4 "raid45@b:1.service" "RAID45_READY=b+1"
"$CTL" activate b+1 >/dev/null || die "activate b+1 again"
udevadm test --action=add "/sys/block/$(sd 4)" >/tmp/udevtest3.out 2>&1
grep -q "raid45@\|raid45-last\|^RAID45_WANTS" /tmp/udevtest3.out &&
	{ grep -iE "raid45" /tmp/udevtest3.out; die "udevadm test: wants for an active array"; }
grep -q "^RAID45_ARRAYS=b+1$" /tmp/udevtest3.out || die "udevadm test: the rule did not run the third time"
rm -f /run/udev/rules.d/69-raid45.rules
step "1: udevadm test with the rule: b+1 inactive wanted raid45-last-resort@b:1.service with a member absent, raid45@b:1.service with all, nothing once active"

grep -q "^timeout=2$" "$DM_RAID45_MONITOR_DIR/r5.conf" ||
	die "register --timeout 2: not recorded: $(cat "$DM_RAID45_MONITOR_DIR/r5.conf")"
reboot_sim 1
dmsetup info r5 >/dev/null 2>&1 && die "r5 still active"
for k in 0 1 2; do
	appear $k
	[ "$(inc $k RAID45_ARRAYS)" = r5 ] && [ "$(inc $k RAID45_WAITING)" = r5 ] &&
		[ -z "$(inc $k RAID45_READY)" ] || die "disk $k: $(cat /tmp/inc.$k)"
	[ "$(inc $k RAID45_WANTS)" = "raid45-last-resort@r5.service" ] || die "disk $k wants: $(cat /tmp/inc.$k)"
	dmsetup info r5 >/dev/null 2>&1 && die "r5 active after disk $k only"
done
wait_grep "r5: waiting up to 60 s for member 1 2 3 and the disk log$" "$(unit_log raid45-last-resort@r5.service)" 10
appear 11
[ "$(inc 11 RAID45_WAITING)" = r5 ] && [ -z "$(inc 11 RAID45_READY)" ] || die "r5's log disk: $(cat /tmp/inc.11)"
dmsetup info r5 >/dev/null 2>&1 && die "r5 active without member 3"
step "1: r5 disks 0 1 2 and its log: waiting, not active; last resort waiting"
appear 3
[ "$(inc 3 RAID45_READY)" = r5 ] && [ "$(inc 3 RAID45_WANTS)" = "raid45@r5.service" ] ||
	die "disk 3: $(cat /tmp/inc.3)"
[ "$(wait_exit raid45@r5.service 1)" = 0 ] || { cat "$(unit_log raid45@r5.service)"; die "raid45@r5 failed"; }
[ "$(table_members r5 4)" = "-1 $(mm 0) 0 $(mm 1) 0 $(mm 2) 0 $(mm 3) 0" ] || die "r5 table: $(dmsetup table r5)"
[ "$(wait_exit raid45-last-resort@r5.service 5)" = 0 ] ||
	{ cat "$(unit_log raid45-last-resort@r5.service)"; die "r5's last resort did not end with success"; }
n=$(cat "$U"/*r5*.log | grep -c "^r5: active, table")
[ "$n" = 1 ] || { cat "$U"/*r5*.log; die "r5 activated $n times"; }
# the last resort, looking each second, may see the last link before
# raid45@ runs: then it activates and raid45@ finds it active
cat "$U"/*r5*.log | grep -q "^r5: active already" || { cat "$U"/*r5*.log; die "no unit found r5 active"; }
"$MON" status r5 >/tmp/mst 2>&1
grep -q "monitored, policy warn" /tmp/mst || { cat /tmp/mst "$(unit_log raid45@r5.service)"; die "r5 not monitored as configured"; }
grep -q "^log=$MLOG" "$DM_RAID45_MONITOR_DIR/r5.conf" || die "monitor configuration not kept: $(cat "$DM_RAID45_MONITOR_DIR/r5.conf")"
# its timeout too: registered again every 2 s, not the default
cat "$U"/*r5*.log | grep -q "r5: monitored by dmeventd, policy warn.*, every 2 s$" ||
	{ cat "$U"/*r5*.log; die "r5 not registered with its kept timeout (2 s)"; }
# registered once: by the unit that activated it, not by the one that found it active
n=$(cat "$U"/*r5*.log | grep -c "r5: monitored by dmeventd")
[ "$n" = 1 ] || { cat "$U"/*r5*.log; die "r5 registered $n times"; }
cat "$U"/*r5*.log | grep -q "^r5: active already (activated by .*): not registered here" ||
	{ cat "$U"/*r5*.log; die "the unit that found r5 active did not say it left the registering"; }
# the activation lock held (as by another raid45ctl): boot waits for it
if command -v flock >/dev/null; then
	flock "$RAID45_RUN_DIR/r5.lock" sleep 3 &
	sleep 0.5
	t=$SECONDS
	"$CTL" boot r5 >/tmp/locked 2>&1 || die "boot with the lock held: $(cat /tmp/locked)"
	wait $!
	grep -q "waiting up to 30 s for another activation of r5" /tmp/locked &&
		grep -q "r5: active already" /tmp/locked && [ $((SECONDS - t)) -ge 1 ] ||
		die "boot with the lock held: $(cat /tmp/locked)"
	step "1: with r5's activation lock held, raid45ctl boot waited for it"
else
	step "1: no flock(1): the activation lock's wait not checked"
fi
# a second start (a change event, an admin): a success, nothing done
"$CTL" boot r5 >/tmp/again 2>&1 || die "boot of an active array: $(cat /tmp/again)"
grep -q "active already" /tmp/again || die "boot again: $(cat /tmp/again)"
"$CTL" activate r5 --if-needed >/dev/null || die "activate --if-needed of an active array"
expect_fail "activate of an active array" "$CTL" activate r5
check_data r5 /tmp/ref5 "after the boot"
step "1: r5 activated once by its last member, monitored with its configuration, data right"

for k in 4 5; do
	appear $k
	[ "$(inc $k RAID45_WAITING)" = "b+1" ] && [ "$(inc $k RAID45_WANTS)" = "raid45-last-resort@b:1.service" ] ||
		die "disk $k: $(cat /tmp/inc.$k)"
done
# never degraded: it gives up after the settling time, not started
[ "$(wait_exit raid45-last-resort@b:1.service 40)" = 1 ] ||
	{ cat "$(unit_log raid45-last-resort@b:1.service)"; die "b+1's last resort did not fail"; }
grep -q "b+1: member 2 absent, and its description never starts it degraded" \
	"$(unit_log raid45-last-resort@b:1.service)" || die "why: $(cat "$(unit_log raid45-last-resort@b:1.service)")"
dmsetup info b+1 >/dev/null 2>&1 && die "b+1 started without member 2"
step "1: b+1 without its member 2: not started (never degraded), the unit failed saying why"
appear 6
[ "$(inc 6 RAID45_READY)" = "b+1" ] && [ "$(inc 6 RAID45_WANTS)" = "raid45@b:1.service" ] || die "disk 6: $(cat /tmp/inc.6)"
[ "$(wait_exit raid45@b:1.service 1)" = 0 ] || { cat "$(unit_log raid45@b:1.service)"; die "raid45@b:1 failed"; }
[ "$(table_members b+1 3)" = "-1 $(mm 4) 0 $(mm 5) 0 $(mm 6) 0" ] || die "b+1 table: $(dmsetup table b+1)"
check_data b+1 /tmp/refb "after its late member"
"$MON" status b+1 | grep -q "monitoring: monitored, policy warn" || die "b+1 not monitored: $("$MON" status b+1)"
step "1 ok: b+1 activated by its late member 2, monitored, data right"

# ---- 2: a member missing; the bound (it runs from the first member
# seen) long enough for the others to come within it under TCG too
bound=$((3 * slowest + 6))
[ $bound -ge 10 ] || bound=10	# R45BOOT_SETTLE: a smaller one counts as it
sed -i "s/^boot-degraded 60$/boot-degraded $bound/" $RAID45_CONF_DIR/r5.conf
"$CTL" table r5 >/dev/null || die "r5.conf after the edit: $(cat $RAID45_CONF_DIR/r5.conf)"
reboot_sim 2
tfirst=$(date +%s)
for k in 11 0 2 3; do appear $k; done
[ "$(inc 3 RAID45_WAITING)" = r5 ] || die "disk 3: $(cat /tmp/inc.3)"
lr=$(unit_log raid45-last-resort@r5.service)
for i in $(seq $(((bound + 30) * 10))); do [ -e /dev/mapper/r5 ] && break; sleep 0.1; done
tact=$(date +%s)
[ -e /dev/mapper/r5 ] || { cat "$lr"; die "r5 not started degraded within $((bound + 30)) s"; }
[ $((tact - tfirst)) -ge $((bound - 1)) ] || die "r5 started $((tact - tfirst)) s after its first member, its bound is $bound s"
[ "$(wait_exit raid45-last-resort@r5.service 30)" = 0 ] || { cat "$lr"; die "r5's last resort failed"; }
grep -q "r5: member 1 still absent after $bound s (boot-degraded): starting degraded" "$lr" || die "last resort: $(cat "$lr")"
[ "$(table_members r5 4)" = "-1 $(mm 0) 0 - - $(mm 2) 0 $(mm 3) 0" ] || die "r5 degraded table: $(dmsetup table r5)"
dmsetup table r5 | grep -q start_dirty_degraded && die "start_dirty_degraded at boot: $(dmsetup table r5)"
grep -q start_dirty_degraded "$lr" && die "start_dirty_degraded in the last resort's table: $(cat "$lr")"
[ -e "$(unit_log raid45@r5.service)" ] && die "raid45@r5 started without all members"
# recorded failed before the device was created (not left to the plugin)
[ "$(desc_member r5 1)" = "$(byid 1) 0 failed" ] || die "member 1 not recorded failed: $(cat $RAID45_CONF_DIR/r5.conf)"
grep -q "r5: member 1 (.*) is not there: recorded failed, started without it" "$lr" || die "last resort: $(cat "$lr")"
check_data r5 /tmp/ref5 "started degraded"
# new data while degraded: the absent disk is stale from now on
head -c $((len * 512)) /dev/urandom >/tmp/ref5
dd if=/tmp/ref5 of=/dev/mapper/r5 bs=1M oflag=direct status=none || die "write degraded"
step "2 ok: r5 started degraded by its last resort $((tact - tfirst)) s after its first member (bound $bound s), member 1 recorded failed, new data written"

# ---- 3: the failed member's disk back (a long bound again: only the
# members' order decides)
sed -i "s/^boot-degraded $bound\$/boot-degraded 60/" $RAID45_CONF_DIR/r5.conf
grep -qx "boot-degraded 60" $RAID45_CONF_DIR/r5.conf || die "r5.conf: $(cat $RAID45_CONF_DIR/r5.conf)"
reboot_sim 3
appear 11
appear 0
appear 1
[ "$(inc 1 RAID45_FAILED_MEMBER_OF)" = r5 ] && [ -z "$(inc 1 RAID45_ARRAYS)" ] &&
	[ -z "$(inc 1 RAID45_READY)" ] && [ -z "$(inc 1 RAID45_WANTS)" ] || die "failed disk: $(cat /tmp/inc.1)"
"$CTL" incremental "/dev/$(sd 1)" | grep -q "is member 1, recorded failed: not used" ||
	die "incremental: $("$CTL" incremental "/dev/$(sd 1)")"
appear 2
[ "$(inc 2 RAID45_WAITING)" = r5 ] && [ -z "$(inc 2 RAID45_READY)" ] || die "disk 2 with the failed one there: $(cat /tmp/inc.2)"
dmsetup info r5 >/dev/null 2>&1 && die "r5 active before its last current member"
appear 3
[ "$(inc 3 RAID45_READY)" = r5 ] || die "disk 3: $(cat /tmp/inc.3)"
[ "$(wait_exit raid45@r5.service 1)" = 0 ] || { cat "$(unit_log raid45@r5.service)"; die "raid45@r5 failed"; }
[ "$(table_members r5 4)" = "-1 $(mm 0) 0 - - $(mm 2) 0 $(mm 3) 0" ] ||
	die "the failed disk was taken: $(dmsetup table r5)"
check_data r5 /tmp/ref5 "with the stale disk back"
[ "$(wait_exit raid45-last-resort@r5.service 15)" = 0 ] || die "last resort: $(cat "$(unit_log raid45-last-resort@r5.service)")"
n=$(cat "$U"/*r5*.log | grep -c "^r5: active, table")
[ "$n" = 1 ] || { cat "$U"/*r5*.log; die "r5 activated $n times"; }
step "3 ok: the failed disk back never counted nor used, r5 activated once, data right"

# ---- 4: a dirty degraded start refused by the kernel stays refused
step "4: d5 with a disk log"
# its disks, gone since the first "reboot", back (described nowhere yet)
for k in 7 8 9 10; do
	appear $k
	[ ! -s /tmp/inc.$k ] || die "disk $k, not described: $(cat /tmp/inc.$k)"
done
"$CTL" create d5 --boot-degraded 60 --log "$(byid 10)" "$(byid 7)" "$(byid 8)" "$(byid 9)" \
	>/tmp/create.out 2>&1 || { cat /tmp/create.out; die "create d5"; }
wait_in_sync d5 3 120
lend=$(blockdev --getsz /dev/mapper/d5)
head -c $((lend * 512)) /dev/urandom >/tmp/refd
dd if=/tmp/refd of=/dev/mapper/d5 bs=1M oflag=direct status=none || die "fill d5"
"$CTL" deactivate d5 >/dev/null || die "deactivate d5"
# dm-log's bits from byte 1024, a bit set for a clean region: zeroed, every
# region dirty, the header (valid) kept
region=$(awk '$1 == "region" { print $2 }' $RAID45_CONF_DIR/d5.conf)
bytes=$((((lend + region - 1) / region + 7) / 8))
dd if=/dev/zero of="$(byid 10)" bs=512 seek=2 count=$(((bytes + 511) / 512)) oflag=direct conv=notrunc \
	status=none || die "dirty the log"
sed -i "s/^boot-degraded 60$/boot-degraded $bound/" $RAID45_CONF_DIR/d5.conf
reboot_sim 4
dmesg -C
for k in 10 7 8; do appear $k; done
[ "$(inc 8 RAID45_WAITING)" = d5 ] || die "disk 8: $(cat /tmp/inc.8)"
lr=$(unit_log raid45-last-resort@d5.service)
[ "$(wait_exit raid45-last-resort@d5.service $((bound + 30)))" = 1 ] ||
	{ cat "$lr"; die "d5's degraded start was not refused"; }
grep -q "d5: member 2 still absent after $bound s (boot-degraded): starting degraded" "$lr" &&
	grep -q "raid45ctl activate d5 --degraded --start-dirty-degraded forces it" "$lr" ||
	die "last resort of d5: $(cat "$lr")"
grep -q start_dirty_degraded "$lr" && die "start_dirty_degraded tried at boot: $(cat "$lr")"
dmesg | grep -q "regions unsafe: out of sync after a crash" || die "the kernel did not refuse: $(dmesg | tail -n 5)"
dmsetup info d5 >/dev/null 2>&1 && die "d5 active after a refused dirty degraded start"
step "4: d5's dirty degraded start refused by the kernel, the unit failed, no start_dirty_degraded"
appear 9
[ "$(inc 9 RAID45_READY)" = d5 ] || die "disk 9: $(cat /tmp/inc.9)"
[ "$(wait_exit raid45@d5.service 1)" = 0 ] || { cat "$(unit_log raid45@d5.service)"; die "raid45@d5 failed"; }
[ "$(table_members d5 3)" = "-1 $(mm 7) 0 $(mm 8) 0 $(mm 9) 0" ] || die "d5 table: $(dmsetup table d5)"
wait_in_sync d5 3 120
check_data d5 /tmp/refd "whole after the refused degraded start"
step "4 ok: d5 started whole once its member came, resynced, data right"
