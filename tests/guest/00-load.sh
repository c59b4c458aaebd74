#!/bin/bash
# cost: 6
# The module loads with its dependencies and registers target raid45 1.x.
. "$(dirname "$0")/lib.sh"
load_module
line=$(dmsetup targets | awk '$1 == "raid45"')
echo "targets: $line"
[[ $line =~ ^raid45[[:space:]]+v1\.[0-9]+\.[0-9]+$ ]] || die "raid45 1.x not registered"
modinfo -F alias "$TOP/build/$KREL/dm-raid456.ko" | grep -qx dm-raid45 || die "alias dm-raid45 missing"
