#!/usr/bin/env python3
"""fsstress.py DIR SECONDS [PROCS] [SEED]: a file system workload in the
spirit of xfstests' fsstress (not packaged in Debian 12), for test 32:
PROCS processes (default 4) pick random operations on a pool of files
under DIR for SECONDS, and one more calls sync() every half second, so
that pages are written back while they are being changed again.

Operations: create and write whole pages, overwrite a random range,
append, truncate to a size that is not a multiple of any block (the tail
page is zeroed: block_truncate_page), punch a hole, write through a
shared mmap, fsync, rename, unlink, mkdir/rmdir, and read back (nothing
is checked here: the array's parity and the file system are, afterwards).
Prints the count of each operation done.
"""
import ctypes
import mmap
import os
import random
import sys
import time

FALLOC_FL_KEEP_SIZE = 1
FALLOC_FL_PUNCH_HOLE = 2
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long,
                           ctypes.c_long]


def rand_data(rng, n):
    return rng.randbytes(n)


def op_write(rng, path):
    with open(path, "wb") as f:
        f.write(rand_data(rng, 4096 * rng.randint(1, 64)))


def op_overwrite(rng, path):
    if not os.path.exists(path):
        return op_write(rng, path)
    size = os.path.getsize(path)
    off = rng.randrange(0, max(size, 1) + 4096)
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, rand_data(rng, rng.randint(1, 65536)), off)
    finally:
        os.close(fd)


def op_append(rng, path):
    with open(path, "ab") as f:
        f.write(rand_data(rng, rng.randint(1, 32768)))


def op_truncate(rng, path):
    if os.path.exists(path):
        size = os.path.getsize(path)
        os.truncate(path, rng.randrange(0, size + 8192) | 1)


def op_punch(rng, path):
    if not os.path.exists(path):
        return
    size = os.path.getsize(path)
    if size < 8192:
        return
    fd = os.open(path, os.O_WRONLY)
    try:
        off = rng.randrange(0, size - 4096)
        libc.fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                       off, rng.randint(1, size - off))
    finally:
        os.close(fd)


def op_mmap(rng, path):
    if not os.path.exists(path) or os.path.getsize(path) < 4096:
        return op_write(rng, path)
    fd = os.open(path, os.O_RDWR)
    try:
        size = os.path.getsize(path)
        m = mmap.mmap(fd, size)
        for _ in range(rng.randint(1, 16)):
            off = rng.randrange(0, size)
            n = min(rng.randint(1, 8192), size - off)
            m[off:off + n] = rand_data(rng, n)
        if rng.random() < 0.3:
            m.flush()
        m.close()
    finally:
        os.close(fd)


def op_fsync(rng, path):
    if os.path.exists(path):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def op_rename(rng, path):
    if os.path.exists(path):
        os.rename(path, path + ".r" if not path.endswith(".r") else path[:-2])


def op_unlink(rng, path):
    if os.path.exists(path):
        os.unlink(path)


def op_read(rng, path):
    if os.path.exists(path):
        with open(path, "rb") as f:
            f.read()


def op_dir(rng, path):
    d = path + ".d"
    if os.path.isdir(d):
        os.rmdir(d)
    else:
        os.mkdir(d)


OPS = [(op_write, 10), (op_overwrite, 20), (op_append, 8), (op_truncate, 8),
       (op_punch, 5), (op_mmap, 12), (op_fsync, 4), (op_rename, 4),
       (op_unlink, 4), (op_read, 6), (op_dir, 2)]


def worker(top, seconds, seed, k):
    rng = random.Random(seed * 1000 + k)
    base = os.path.join(top, "p%d" % k)
    os.makedirs(base, exist_ok=True)
    names = [os.path.join(base, "f%03d" % i) for i in range(64)]
    funcs = [f for f, w in OPS for _ in range(w)]
    counts = {}
    end = time.time() + seconds
    while time.time() < end:
        f = rng.choice(funcs)
        try:
            f(rng, rng.choice(names))
        except OSError:
            pass    # ENOSPC, a name renamed away meanwhile: go on
        counts[f.__name__] = counts.get(f.__name__, 0) + 1
    print("proc %d: %s" % (k, " ".join("%s=%d" % (n[3:], c)
                                        for n, c in sorted(counts.items()))))


def main():
    top, seconds = sys.argv[1], float(sys.argv[2])
    procs = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    pids = []
    for k in range(procs):
        pid = os.fork()
        if pid == 0:
            worker(top, seconds, seed, k)
            os._exit(0)
        pids.append(pid)
    end = time.time() + seconds
    syncs = 0
    while time.time() < end:
        os.sync()
        syncs += 1
        time.sleep(0.5)
    bad = 0
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        bad += status != 0
    print("syncs=%d" % syncs)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
