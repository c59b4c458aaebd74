#!/usr/bin/python3
"""durability-drive OUT.json PARCHECK N MEMBER_SECTORS CHUNK REGION

The workload of 85-durability, over a raid45 RAID5 array (raid5_ls, N
members /dev/mapper/m0.., disk log /dev/mapper/mL) whose members and log
device sit on dm-log-writes devices lw0.., lwL (see logwrites.py for the
cuts and what they prove).  Four phases, with cuts all along:

  resync   created with "sync" over members full of random data: the
           initial resync, while fio writes without flushes and this
           process writes acknowledged blocks (O_DIRECT, then fdatasync);
  clean    bursts of writes without any flush, then a pause long enough
           for their regions to be marked clean, then a cut (on a NULL
           flush callback their data is still in the members' caches);
  steady   acknowledged and unflushed writes, fio, cuts;
  rebuild  the array removed, member 1 overwritten with junk, created
           again rebuilding member 1 (dev_to_init 1), writes and cuts.

Acknowledged blocks: block i (64 KiB at ACKED_START + i * 64 KiB) holds
"acked block i generation g" when generation g was written with O_DIRECT
and fdatasync returned; each cut records the newest acknowledged
generation of every block.  OUT.json gets the geometry, the devices and
the cuts, for logwrites.py.
"""
import json
import mmap
import os
import random
import subprocess
import sys
import time

sys.dont_write_bytecode = True   # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from logwrites import DM, BS, pattern, table, wait_in_sync  # noqa: E402

out, parcheck = sys.argv[1], sys.argv[2]
N, MS, CHUNK, REGION = (int(x) for x in sys.argv[3:7])
DATA = N - 1
dev_sectors = MS - MS % CHUNK
array_sectors = dev_sectors * DATA
ACKED_BLOCKS = 16
acked_start = 0
free_start = ACKED_BLOCKS * BS            # fio and unflushed writes here
free_bytes = array_sectors * 512 - free_start
ARRAY = "/dev/mapper/r45lw"
MEMBERS = ["m%d" % i for i in range(N)]
LW = ["lw%d" % i for i in range(N)] + ["lwL"]
WRAP = MEMBERS + ["mL"]

dm = DM()
rng = random.Random(85)
acked = {}
gen = 0
cuts = []
dti = -1
phase = ""


def cut():
    """A cut: see logwrites.py.  Members' wrappers first, the log's last."""
    k = len(cuts)
    for w in WRAP:
        dm.run("suspend", w)
    try:
        for lw in LW:
            dm.run("message", lw, 0, "mark", "pre-%d" % k)
        for lw in LW:
            fd = os.open("/dev/mapper/" + lw, os.O_WRONLY)
            os.fsync(fd)
            os.close(fd)
        for lw in LW:
            dm.run("message", lw, 0, "mark", "cut-%d" % k)
    finally:
        for w in reversed(WRAP):
            dm.run("resume", w)
    cuts.append({"k": k, "phase": phase, "dti": dti,
                 "acked": {str(b): g for b, g in acked.items()}})


buf = mmap.mmap(-1, BS)


def acked_write(fd):
    global gen
    gen += 1
    b = rng.randrange(ACKED_BLOCKS)
    buf.seek(0)
    buf.write(pattern(b, gen))
    os.pwritev(fd, [buf], acked_start + b * BS)
    os.fdatasync(fd)
    acked[b] = gen


rbuf = mmap.mmap(-1, BS)
rbuf.write(os.urandom(BS))


def unflushed_write(fd, region=None):
    """4-64 KiB of random data somewhere in the free part, no flush."""
    n = rng.choice((8, 16, 32, 64, 128)) * 512
    if region is None:
        off = free_start + rng.randrange((free_bytes - n) // 4096) * 4096
    else:
        lo = max(free_start, region * REGION * 512)
        off = lo + rng.randrange((REGION * 512 - n) // 4096) * 4096
    os.pwritev(fd, [memoryview(rbuf)[:n]], off)


def fio(seconds):
    return subprocess.Popen(
        # --thread: the job runs in fio's process, so killing it closes
        # the array (a forked job outlives a killed parent and keeps the
        # device open: remove then fails with EBUSY)
        ["fio", "--name=lw", "--thread", "--filename=" + ARRAY, "--direct=1",
         "--ioengine=libaio", "--iodepth=8", "--rw=randwrite",
         "--bsrange=4k-64k", "--offset=%d" % free_start,
         "--size=%d" % (free_bytes // 4096 * 4096), "--time_based",
         "--runtime=%d" % seconds, "--randrepeat=0", "--rate=1m"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def create(sync=""):
    devs = ["/dev/mapper/" + m for m in MEMBERS]
    dm.create("r45lw", table(run, devs, "/dev/mapper/mL", dti, sync))


def in_sync():
    words = dm.status("r45lw").split()
    inn, tot = words[N + 3].split("/")
    # after <sync>/<regions>: the log's "<count> <words...>", then the action
    action = words[N + 5 + int(words[N + 4])]
    return inn == tot and action == "idle"


run = {"type": "raid5_ls", "chunk": CHUNK, "data_disks": DATA,
       "region_size": REGION, "offset": 0, "dev_sectors": dev_sectors,
       "array_sectors": array_sectors,
       "nr_regions": -(-array_sectors // REGION), "parcheck": parcheck,
       "acked_start": acked_start, "min_points": 50,
       "members": [{"log": "/dev/mapper/g%d" % i, "base": "/dev/mapper/b%d" % i,
                    "scratch": "/dev/mapper/s%d" % i, "sectors": MS}
                   for i in range(N)],
       "logdev": {"log": "/dev/mapper/gL", "base": "/dev/mapper/bL",
                  "scratch": "/dev/mapper/sL", "sectors": 2048}}
t0 = time.time()

# resync: writes ahead of and behind the initial resync
phase = "resync"
create("sync")
fd = os.open(ARRAY, os.O_RDWR | os.O_DIRECT)
f = fio(600)
while not in_sync() and len(cuts) < 12:
    for _ in range(2):
        acked_write(fd)
    unflushed_write(fd)
    cut()
f.kill()
f.wait()
wait_in_sync(dm, "r45lw", 300)
cut()
t_resync = time.time()

# clean: writes without flushes, their regions marked clean, then a cut
phase = "clean"
for i in range(6):
    r = rng.randrange(run["nr_regions"] // 2, run["nr_regions"])
    for _ in range(4):
        unflushed_write(fd, r)
    time.sleep(0.6)
    cut()

# steady: acknowledged and unflushed writes under fio
phase = "steady"
f = fio(600)
for i in range(12):
    acked_write(fd)
    unflushed_write(fd)
    if i % 3 == 2:
        time.sleep(0.3)
    cut()
f.kill()
f.wait()
os.close(fd)
cut()

# rebuild: member 1 replaced (junk), rebuilt while written
phase = "rebuild"
dm.remove("r45lw")
jfd = os.open("/dev/mapper/m1", os.O_WRONLY | os.O_DIRECT)
jbuf = mmap.mmap(-1, 1 << 20)
jbuf.write(os.urandom(1 << 20))
for off in range(0, dev_sectors * 512, 1 << 20):
    os.pwritev(jfd, [jbuf], off)
os.fsync(jfd)
os.close(jfd)
dti = 1
create()
fd = os.open(ARRAY, os.O_RDWR | os.O_DIRECT)
f = fio(600)
rebuild_cuts = len(cuts) + 8
while not in_sync() and len(cuts) < rebuild_cuts:
    acked_write(fd)
    unflushed_write(fd)
    cut()
f.kill()
f.wait()
wait_in_sync(dm, "r45lw", 300)
for i in range(2):
    acked_write(fd)
    unflushed_write(fd)
    time.sleep(0.3)
    cut()
os.close(fd)
for i in range(601):    # fio's last aio may still hold it a moment
    try:
        dm.remove("r45lw")
        break
    except OSError:
        if i == 600:
            print("drive: array still busy after 60 s: " +
                  dm.status("r45lw"))
            raise
        time.sleep(0.1)

run["cuts"] = cuts
json.dump(run, open(out, "w"))
print("drive: %d cuts (resync %d, clean %d, steady %d, rebuild %d), "
      "%d acknowledged writes, resync phase %.0f s, all %.0f s" %
      (len(cuts), *(len([c for c in cuts if c["phase"] == p])
                     for p in ("resync", "clean", "steady", "rebuild")),
       gen, t_resync - t0, time.time() - t0))
