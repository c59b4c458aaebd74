#!/usr/bin/python3
"""fault-io DEV MIB SECONDS

Random O_DIRECT writes (4..128 KiB, 4 KiB aligned) and reads over the
first MIB MiB of DEV for SECONDS seconds, from a thread that has
make-it-fail set: with failslab / fail_page_alloc / fail_make_request in
task-filter mode, the faults hit the allocations this thread makes,
including those the block layer and the raid45 target make on its
behalf.  DEV must read as zeros at the start.

Every 4 KiB block carries (block number, generation) in every 16 bytes.
A write that fails leaves each of its blocks holding the old or the new
generation (after several failed writes, any of them) and never
anything else; a read that succeeds must
return, for every block, the generation written last, or one of the two
candidates of a failed write (which then becomes the known one).  At the
end, with the faults off, the whole area is read back the same way.

Before the faults are switched on the process locks its memory
(mlockall): a page fault on a file of the guest's 9p root, under fault
injection, would test 9p rather than the array.  Prints the counts;
exits 1 on any wrong block.
"""
import ctypes
import mmap
import os
import random
import struct
import sys
import time

BS = 4096
dev, mib, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
nblocks = mib * 256
known = [0] * nblocks          # generation of each block
maybe = {}                     # block -> generations possible after failed writes
gen = 0
buf = mmap.mmap(-1, 128 * 1024)
rbuf = mmap.mmap(-1, 128 * 1024)
stats = {"writes": 0, "write errors": 0, "reads": 0, "read errors": 0,
         "wrong": 0}


def block_bytes(b, g):
    if g == 0:
        return bytes(BS)
    return struct.pack("=QQ", b + 1, g) * (BS // 16)


def check(b, data):
    """data: what block b holds now; resolves a failed write's block."""
    if b in maybe:
        for g in maybe[b]:
            if data == block_bytes(b, g):
                known[b] = g
                del maybe[b]
                return True
        return False
    return data == block_bytes(b, known[b])


def read_check(fd, first, count, final=False):
    try:
        n = os.preadv(fd, [memoryview(rbuf)[:count * BS]], first * BS)
    except OSError as e:
        stats["read errors"] += 1
        if final:
            stats["wrong"] += 1
            print("read error at block %d without faults: %s" % (first, e))
        return
    stats["reads"] += 1
    for i in range(n // BS):
        b = first + i
        if not check(b, rbuf[i * BS:(i + 1) * BS]):
            stats["wrong"] += 1
            print("wrong data in block %d (expected generation %s)" %
                  (b, maybe.get(b, known[b])), flush=True)


fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
fail_fd = os.open("/proc/thread-self/make-it-fail", os.O_WRONLY)
libc = ctypes.CDLL(None, use_errno=True)
if libc.mlockall(3) != 0:  # MCL_CURRENT | MCL_FUTURE
    sys.exit("mlockall: errno %d" % ctypes.get_errno())
rng = random.Random(42)
os.write(fail_fd, b"1")
end = time.monotonic() + seconds
while time.monotonic() < end:
    first = rng.randrange(nblocks)
    count = min(rng.randint(1, 32), nblocks - first)
    if rng.random() < 0.6:
        gen += 1
        for i in range(count):
            buf[i * BS:(i + 1) * BS] = block_bytes(first + i, gen)
        try:
            os.pwritev(fd, [memoryview(buf)[:count * BS]], first * BS)
            stats["writes"] += 1
            for i in range(count):
                maybe.pop(first + i, None)
                known[first + i] = gen
        except OSError:
            stats["write errors"] += 1
            for i in range(count):
                b = first + i
                maybe.setdefault(b, {known[b]}).add(gen)
    else:
        read_check(fd, first, count)
os.write(fail_fd, b"0")
for first in range(0, nblocks, 32):
    read_check(fd, first, min(32, nblocks - first), final=True)
print(", ".join("%s %d" % kv for kv in stats.items()), flush=True)
sys.exit(1 if stats["wrong"] else 0)
