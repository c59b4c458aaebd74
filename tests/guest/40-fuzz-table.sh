#!/bin/bash
# kernels: 6.1
# cost: 110
# 500 randomly mutated valid table lines (words dropped, duplicated,
# swapped, numbers replaced by huge, negative or non-numeric values):
# no crash or warning (the harness checks the kernel log), no refused line
# leaves a device behind, and no member stays held.  The lines are loaded
# through the device-mapper ioctls by one process (dmctl.py does what
# "dmsetup create" does: create, load, resume, remove on failure), as a
# dmsetup exec per line costs a fifth of a second in the TCG guest; the
# refusals through dmsetup itself are in 10-table.  A fixed seed, so that
# every run tries the same lines (R45_FUZZ_SEED and R45_FUZZ_LINES try
# others, or more: 1,000 before).
. "$(dirname "$0")/lib.sh"
load_module
make_ramdisks 5 8
D="/dev/ram0 0 /dev/ram1 0 /dev/ram2 0 /dev/ram3 0"
bases=(
	"0 49152 raid45 core 2 64 nosync raid5_ls 1 64 4 -1 $D"
	"0 49152 raid45 core 1 1024 raid4 -1 7 64 16 8 64 20 nosync 4 4 -1 $D"
	"0 49152 raid45 core 2 256 sync raid5_ra 2 64 32 locking none 4 1 $D"
	"0 32768 raid45 core 2 64 nosync raid6_nr 1 64 4 -1 $D"
)
junk=(-1 -2 0 1 3 4294967296 18446744073709551616 99999999999999999999 abc
	"" sync nosync none cluster raid4 core disk 7 65536 16384 0x10 1e3 -)
RANDOM=${R45_FUZZ_SEED:-4545}
for i in $(seq "${R45_FUZZ_LINES:-500}"); do
	read -r -a w <<< "${bases[RANDOM % ${#bases[@]}]}"
	nmut=$((1 + RANDOM % 3))
	for _ in $(seq $nmut); do
		# never touch "<start> <len> raid45"
		n=${#w[@]}
		[ "$n" -le 3 ] && break
		k=$((3 + RANDOM % (n - 3)))
		case $((RANDOM % 4)) in
		0) w=("${w[@]:0:k}" "${w[@]:k+1}") ;;
		1) w=("${w[@]:0:k}" "${w[k]}" "${w[@]:k}") ;;
		2) j=$((3 + RANDOM % (n - 3))); t=${w[k]}; w[k]=${w[j]}; w[j]=$t ;;
		3) w[k]=${junk[RANDOM % ${#junk[@]}]} ;;
		esac
	done
	line="${w[*]}"
	# each line: create it; if accepted, remove it; either way it is gone
	printf 'create r45fz %s\nremove r45fz\nexists r45fz\n' "$line"
done > /tmp/fuzz.cmds
python3 "$(dirname "$0")/dmctl.py" < /tmp/fuzz.cmds > /tmp/fuzz.out || die "dmctl failed"
[ "$(wc -l < /tmp/fuzz.out)" = $((3 * i)) ] || die "dmctl answered $(wc -l < /tmp/fuzz.out) of $((3 * i)) commands"
accepted=$(awk 'NR % 3 == 1 && $1 == "ok"' /tmp/fuzz.out | wc -l)
refused=$((i - accepted))
# an accepted line is removed; a refused one removes itself (ENXIO)
awk 'NR % 3 == 1 { c = $0 } NR % 3 == 2 && c == "ok" && $0 != "ok" { bad = 1 }
	NR % 3 == 2 && c != "ok" && $0 != "err ENXIO" { bad = 1 }
	NR % 3 == 0 && $0 != "err ENXIO" { bad = 1 } END { exit bad }' /tmp/fuzz.out ||
	die "a line left a device behind or could not be removed"
echo "accepted $accepted, refused $refused"
[ "$refused" -gt $((i / 2)) ] || die "mutations were not refused often enough"
[ "$accepted" -gt 0 ] || die "no mutated line was accepted"
[ -z "$(dmsetup ls 2>/dev/null | grep -v 'No devices')" ] || die "devices left: $(dmsetup ls)"
for d in ram0 ram1 ram2 ram3; do
	[ -z "$(ls /sys/block/$d/holders)" ] || die "$d still held: $(ls /sys/block/$d/holders)"
done
# and the members are usable: a valid table over them loads and works
dmsetup create r45fz --table "${bases[0]}" || die "valid table after the fuzz"
dd if=/dev/urandom of=/tmp/fz bs=1M count=8 status=none
dd if=/tmp/fz of=/dev/mapper/r45fz bs=1M oflag=direct status=none || die "write after the fuzz"
cmp -n 8388608 /tmp/fz /dev/mapper/r45fz || die "read after the fuzz"
dmsetup remove r45fz
