#!/usr/bin/python3
"""read-check DEV REF SECTORS [--need-ok]

Read DEV in 64 KiB blocks and compare with the reference file REF: every
block must either fail or equal what was written (a short read, stopped
by a later failed page, must be right as far as it goes).  Fails if any
block is wrong, if no block failed, or (--need-ok) if no block was read
whole.  Prints the counts.
"""
import os
import sys

dev, refname, sectors = sys.argv[1], sys.argv[2], int(sys.argv[3])
need_ok = "--need-ok" in sys.argv[4:]
size = sectors * 512
ref = open(refname, "rb")
fd = os.open(dev, os.O_RDONLY)
ok = bad = err = 0
for off in range(0, size, 65536):
    try:
        got = os.pread(fd, 65536, off)
    except OSError:
        err += 1
        continue
    ref.seek(off)
    if got != ref.read(65536)[:len(got)]:
        bad += 1
    elif len(got) < 65536:
        err += 1
    else:
        ok += 1
print("blocks ok %d failed %d wrong %d" % (ok, err, bad))
sys.exit(1 if bad or not err or (need_ok and not ok) else 0)
