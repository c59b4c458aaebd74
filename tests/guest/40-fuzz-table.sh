#!/bin/bash
# 1,000 randomly mutated valid table lines (words dropped, duplicated,
# swapped, numbers replaced by huge, negative or non-numeric values):
# no crash or warning (the harness checks the kernel log), and no refused
# line leaves a device behind.  1,000 lines on the newer kernel; 250 on
# 6.1 (same parser; each dmsetup call is slow under TCG).
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
RANDOM=4545
accepted=0
refused=0
iterations=1000
case $(uname -r) in 6.1.*) iterations=250 ;; esac
for i in $(seq "${R45_FUZZ_LINES:-$iterations}"); do
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
	if dmsetup create r45fz --table "$line" >/dev/null 2>&1; then
		accepted=$((accepted + 1))
		dmsetup remove r45fz || die "cannot remove accepted line: $line"
	else
		refused=$((refused + 1))
		if dmsetup info r45fz >/dev/null 2>&1; then
			die "refused line left a device: $line"
		fi
	fi
done
echo "accepted $accepted, refused $refused"
[ "$refused" -gt $((i / 2)) ] || die "mutations were not refused often enough"
[ -z "$(dmsetup ls 2>/dev/null | grep -v 'No devices')" ] || die "devices left: $(dmsetup ls)"
