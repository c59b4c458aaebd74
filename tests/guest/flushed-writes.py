#!/usr/bin/python3
"""flushed-writes write DEV START COUNT ACKFILE | check DEV START ACKFILE

write: writes COUNT 64 KiB blocks with O_DIRECT|O_SYNC (each one on
stable storage when the call returns: the kernel sends a flush/FUA) at
START + i * 64 KiB, block i filled with a pattern of its own, and after
each write appends i to ACKFILE (fsynced).  Runs until killed or done.
check: every block listed in ACKFILE must hold its pattern.
"""
import mmap
import os
import sys

BS = 65536


def pattern(i):
    word = b"flushed block %08d " % i
    return (word * (BS // len(word) + 1))[:BS]


def write(dev, start, count, ackname):
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT | os.O_SYNC)
    ack = open(ackname, "a")
    buf = mmap.mmap(-1, BS)
    for i in range(count):
        buf.seek(0)
        buf.write(pattern(i))
        os.pwrite(fd, buf, start + i * BS)
        ack.write("%d\n" % i)
        ack.flush()
        os.fsync(ack.fileno())


def check(dev, start, ackname):
    fd = os.open(dev, os.O_RDONLY)
    acked = [int(x) for x in open(ackname).read().split()]
    bad = [i for i in acked if os.pread(fd, BS, start + i * BS) != pattern(i)]
    print("%d acknowledged blocks, %d wrong" % (len(acked), len(bad)))
    return 1 if bad or not acked else 0


if sys.argv[1] == "write":
    write(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    sys.exit(0)
sys.exit(check(sys.argv[2], int(sys.argv[3]), sys.argv[4]))
