#!/usr/bin/python3
"""logwrites: read dm-log-writes logs of a raid45 array's members and
disk log device; check the durability order of the dirty log's clean
bits (check-order) and replay the devices at crash points (replay).

    logwrites.py dump LOGDEV [N]       print the first N entries
    logwrites.py check-order RUN.json  the ordering proof (see below)
    logwrites.py replay RUN.json       crash-point replay (see below)

RUN.json is written by durability-drive.py: the geometry, the devices
(for every array member and the log device: its initial image "base",
the write log "log", a scratch device "scratch"), and the cuts.

The on-disk format (drivers/md/dm-log-writes.c): sector 0 holds the
super (magic, version, nr_entries, sectorsize); entries follow from
sector sectorsize/512, each one sector of header (sector, nr_sectors,
flags, data_len; a mark's text follows the header in that sector) and
then, unless it is a mark or a discard, nr_sectors sectors of data.
dm-log-writes logs a write only once it is on stable storage as far as
the block layer can tell: a plain write when a later flush that was
issued after the write completed has itself completed (the flush's
entry follows the writes it covered), a FUA write when it completes.
A mark is logged at the moment the message arrives.  So a log cut at a
mark is exactly what that device holds durably at that moment.

Cuts (durability-drive.py, at every cut k):
  1. suspend the linear wrappers between the array and the log-writes
     devices: every member first, then the log device's (suspend waits
     for the I/O in flight; the array's new I/O waits above them);
  2. mark "pre-k" on every log-writes device;
  3. flush every log-writes device from user space (fsync): its log
     gets the writes that had completed but were not yet durable (the
     volatile cache at the cut), then the FLUSH entry;
  4. mark "cut-k"; resume the log device's wrapper, then the members'.
Between "pre-k" and "cut-k" a device's log holds exactly its volatile
writes at the cut; before "pre-k" lies its durable contents.

Why such a cut is a real instant for the ordering rules that matter
(the devices are suspended one after the other, not at once):
  - a member write is issued only after the log write marking its
    region dirty has been flushed: member writes durable at the members'
    cuts had their dirty bit durable before the (later) log cut;
  - a clean bit is written only after the flush callback's flushes of
    every member completed; a member is suspended before the log device,
    and its flush cannot complete while it is suspended, so a clean bit
    that is in the log device's cut had its member flushes completed
    before the member cuts (flushes issued before a suspend complete
    before it returns).

check-order: at every cut, for every state the log device can hold
after a crash at the cut (its durable contents, or that plus any of its
volatile writes, which a disk may have written back), every stripe row
whose regions are all clean in that state must have no volatile write
on any member.  Equivalently: every clean bit that reached the log
device (even only its cache) did so after every member write of its
region was covered by a member flush (or FUA) that had completed, as
far as any cut can see.  It fails on a NULL flush callback: the burst of
unflushed writes that durability-drive makes before some cuts is still
volatile on the members when its regions are cleaned.  The count of
"(cut, region) written since the last cut and clean at this cut" shows
that the rule was put to the test, not vacuously true.

replay: for every cut, every device is rebuilt from its initial image
and its log up to "pre-k" (its last completed flush before the mark,
nothing later), and also, where the cut had volatile writes (after
every burst of unflushed writes, and at every fourth cut), a harsher
crash: the log device with all its volatile writes and every other
member with its volatile writes (disks that wrote their cache back).
The array is activated on copies of those images (scratch devices,
with the table that was active at the cut), resyncs or rebuilds what
the log calls dirty, and then every block acknowledged after a flush
before the cut must read back intact and the parity checker must find
no bad stripe.
"""
import fcntl
import json
import mmap
import os
import stat
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True   # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dmctl  # noqa: E402

WRITE_LOG_MAGIC = 0x6A736677736872
FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8
SUPER = struct.Struct("<QQQI")
ENTRY = struct.Struct("<QQQQ")
MIRROR_MAGIC = 0x4D695272       # dm-log's disk log header
LOG_OFFSET = 2                  # sectors before its clean bits
BS = 65536


class Entry:
    __slots__ = ("sector", "count", "flags", "mark", "pos")

    def __init__(self, sector, count, flags, mark, pos):
        self.sector, self.count, self.flags = sector, count, flags
        self.mark, self.pos = mark, pos

    def is_write(self):
        return not self.flags & (MARK | DISCARD) and self.count > 0


def read_log(path):
    """All entries of a log-writes log, with their data's byte offset."""
    fd = os.open(path, os.O_RDONLY)
    try:
        magic, version, nr, ssize = SUPER.unpack(os.pread(fd, SUPER.size, 0))
        if magic != WRITE_LOG_MAGIC or version != 1:
            raise SystemExit("%s: not a log-writes log" % path)
        out, pos = [], ssize
        for _ in range(nr):
            hdr = os.pread(fd, ssize, pos)
            sector, count, flags, dlen = ENTRY.unpack_from(hdr)
            mark = None
            if flags & MARK:
                mark = hdr[ENTRY.size:ENTRY.size + dlen].decode()
            out.append(Entry(sector * ssize // 512, count * ssize // 512,
                             flags, mark, pos + ssize))
            pos += ssize
            if not flags & (DISCARD | MARK):
                pos += count * ssize
        return out, ssize
    finally:
        os.close(fd)


class Log:
    """One device's log and the positions of the cut marks in it."""

    def __init__(self, path):
        self.path = path
        self.entries, self.ssize = read_log(path)
        self.marks = {e.mark: i for i, e in enumerate(self.entries)
                      if e.mark is not None}
        self.fd = os.open(path, os.O_RDONLY)

    def between(self, a, b):
        """Write entries after mark a (or the start) up to mark b."""
        i = self.marks[a] + 1 if a is not None else 0
        j = self.marks[b]
        return [e for e in self.entries[i:j] if e.is_write()]

    def data(self, e):
        return os.pread(self.fd, e.count * 512, e.pos)


# ---- the disk log's bits ----

def clean_regions(image, nr_regions):
    """Regions the dm-log disk log in image (bytes from sector 0) calls
    clean, as the next activation sees them (no valid header: none)."""
    magic, version, nr = struct.unpack_from("<IIQ", image, 0)
    if magic != MIRROR_MAGIC:
        return set()
    bits = image[LOG_OFFSET * 512:]
    return {r for r in range(min(nr, nr_regions))
            if bits[r // 8] >> (r % 8) & 1}


def overlay(image, e, data):
    """image (bytearray from sector 0) with write e applied."""
    off = e.sector * 512
    if off < len(image):
        n = min(len(data), len(image) - off)
        image[off:off + n] = data[:n]


# ---- rows and regions (layout independent) ----

class Geom:
    def __init__(self, run):
        self.chunk = run["chunk"]
        self.data_disks = run["data_disks"]
        self.region = run["region_size"]
        self.nr_regions = run["nr_regions"]
        self.dev_sectors = run["dev_sectors"]
        self.offset = run["offset"]
        self.row_sectors = self.chunk * self.data_disks

    def rows_of(self, e):
        """Stripe rows a member write touches: member sector s (after
        the data offset) is in row s // chunk on every layout."""
        first = e.sector - self.offset
        last = first + e.count - 1
        if last < 0 or first >= self.dev_sectors:
            return range(0)
        first = max(first, 0)
        last = min(last, self.dev_sectors - 1)
        return range(first // self.chunk, last // self.chunk + 1)

    def regions_of_row(self, row):
        a = row * self.row_sectors
        b = a + self.row_sectors - 1
        return range(a // self.region,
                     min(b // self.region, self.nr_regions - 1) + 1)


def log_states(lg, cut, nbytes, geom, cache):
    """Clean-region sets of the log device's possible states at a cut:
    its durable contents, then each of its volatile writes on top."""
    key = "pre-%d" % cut
    img = cache.get("img")
    if img is None:
        img = bytearray(nbytes)
    for e in lg.between(cache.get("at"), key):
        overlay(img, e, lg.data(e))
    cache["img"], cache["at"] = img, key
    states = [clean_regions(bytes(img), geom.nr_regions)]
    tmp = bytearray(img)
    for e in lg.between(key, "cut-%d" % cut):
        overlay(tmp, e, lg.data(e))
        states.append(clean_regions(bytes(tmp), geom.nr_regions))
    return states


def check_order(run):
    geom = Geom(run)
    members = [Log(d["log"]) for d in run["members"]]
    lg = Log(run["logdev"]["log"])
    init = os.open(run["logdev"]["base"], os.O_RDONLY)
    nbytes = 64 * 1024
    cache = {"img": bytearray(os.pread(init, nbytes, 0))}
    os.close(init)
    bad = tested = 0
    prev = None
    for cut in run["cuts"]:
        k = cut["k"]
        states = log_states(lg, k, nbytes, geom, cache)
        # regions written on any member since the last cut
        written = set()
        volatile = []
        for m, mlog in enumerate(members):
            since = mlog.between("cut-%d" % prev if prev is not None
                                 else None, "pre-%d" % k)
            vol = mlog.between("pre-%d" % k, "cut-%d" % k)
            for e in since + vol:
                for row in geom.rows_of(e):
                    written.update(geom.regions_of_row(row))
            volatile += [(m, e) for e in vol]
        for r in written:
            if all(r in s for s in states):
                tested += 1
        for si, clean in enumerate(states):
            for m, e in volatile:
                for row in geom.rows_of(e):
                    regs = geom.regions_of_row(row)
                    if all(r in clean for r in regs):
                        bad += 1
                        if bad <= 10:
                            print("VIOLATION cut %d (%s): member %d write "
                                  "sectors %d+%d (row %d, regions %s) not "
                                  "durable, but the log device%s calls "
                                  "them clean" %
                                  (k, cut["phase"], m, e.sector, e.count,
                                   row, list(regs),
                                   " (durably)" if si == 0 else
                                   " (its cache write %d)" % si))
                        break
        prev = k
    nw = sum(len([e for e in m.entries if e.is_write()]) for m in members)
    print("check-order: %d cuts, %d member writes, %d log device writes, "
          "%d (cut, region) written and then clean at the cut, "
          "%d violations" %
          (len(run["cuts"]), nw,
           len([e for e in lg.entries if e.is_write()]), tested, bad))
    if not tested:
        print("check-order: no region was cleaned after being written: "
              "the test proved nothing")
        return 1
    return 1 if bad else 0


# ---- replay ----

def aligned(n):
    return mmap.mmap(-1, n)


class Image:
    """A device's durable contents: its initial image (base), advanced
    in place along its log from cut to cut."""

    def __init__(self, dev, log):
        self.dev, self.log = dev, log
        self.at = None
        self.size = dev["sectors"] * 512

    def advance(self, mark):
        entries = self.log.between(self.at, mark)
        self.at = mark
        apply(self.dev["base"], self.log, entries)


def copy(src, dst, size):
    fi = os.open(src, os.O_RDONLY | os.O_DIRECT)
    fo = os.open(dst, os.O_WRONLY | os.O_DIRECT)
    buf = aligned(1 << 20)
    try:
        off = 0
        while off < size:
            n = os.preadv(fi, [buf], off)
            if n <= 0:
                break
            os.pwritev(fo, [memoryview(buf)[:n]], off)
            off += n
    finally:
        os.close(fi)
        os.close(fo)


def apply(dev, log, entries):
    if not entries:
        return
    fo = os.open(dev, os.O_WRONLY | os.O_DIRECT)
    try:
        for e in entries:
            data = log.data(e)
            buf = aligned(len(data))
            buf.write(data)
            os.pwritev(fo, [buf], e.sector * 512)
    finally:
        os.close(fo)


class DM:
    def __init__(self):
        self.ctl = os.open("/dev/mapper/control", os.O_RDWR)

    def run(self, *words):
        dmctl.run(self.ctl, [str(w) for w in words])

    def _status(self, name, nr=7):
        """DM_DEV_STATUS (7) or DM_TABLE_STATUS (12): buffer, header"""
        size = dmctl.HDR.size + 16384
        hdr = dmctl.HDR.pack(4, 0, 0, size, dmctl.HDR.size, 0, 0, 0, 0, 0,
                             0, name.encode(), b"", b"")
        buf = bytearray(hdr + bytes(size - dmctl.HDR.size))
        fcntl.ioctl(self.ctl, dmctl.ioc(nr), buf)
        return buf, dmctl.HDR.unpack_from(buf)

    def status(self, name):
        """The first target's INFO status line, as dmsetup status."""
        buf, hdr = self._status(name, 12)
        if not hdr[5]:
            raise OSError("%s: no table" % name)
        s = buf[hdr[4] + dmctl.SPEC.size:]
        return s[:s.index(0)].decode()

    def create(self, name, words):
        """A device and its /dev/mapper node (no udev in the guest)."""
        self.run("create", name, *words)
        node = "/dev/mapper/" + name
        if os.path.exists(node):
            os.unlink(node)
        os.mknod(node, stat.S_IFBLK | 0o600, self._status(name)[1][10])

    def remove(self, name):
        self.run("remove", name)
        try:
            os.unlink("/dev/mapper/" + name)
        except FileNotFoundError:
            pass


def table(run, devs, logdev, dti, sync=""):
    w = ["0", run["array_sectors"], "raid45", "disk",
         3 if sync else 2, logdev, run["region_size"]]
    if sync:
        w.append(sync)
    w += [run["type"], 1, run["chunk"]]
    if dti >= 0 and not sync:
        # a crash in the middle of a rebuild left the regions it had not
        # reached dirty: md's rule refuses that dirty degraded start
        # unless forced (issue 26); the replay continues the rebuild
        w.append("start_dirty_degraded")
    w += [len(devs), dti]
    for d in devs:
        w += [d, run["offset"]]
    return [str(x) for x in w]


def wait_in_sync(dm, name, limit):
    end = time.time() + limit
    while True:
        words = dm.status(name).split()
        # <#devs> <devs> 1 <health> <in>/<n> <log count> <log words> <action> ...
        n = int(words[0])
        inn, tot = words[n + 3].split("/")
        if inn == tot and words[n + 5 + int(words[n + 4])] == "idle":
            return words
        if time.time() > end:
            raise SystemExit("replay: not in sync after %ds: %s" %
                             (limit, " ".join(words)))
        time.sleep(0.1)


def pattern(i, gen):
    word = b"acked block %06d generation %06d " % (i, gen)
    return (word * (BS // len(word) + 1))[:BS]


def verify_acked(dev, start, acked):
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = aligned(BS)
    bad = []
    try:
        for b, gen in acked.items():
            os.preadv(fd, [buf], start + int(b) * BS)
            if buf[:] != pattern(int(b), gen):
                bad.append(int(b))
    finally:
        os.close(fd)
    return bad


def replay(run):
    dm = DM()
    members = [Log(d["log"]) for d in run["members"]]
    lg = Log(run["logdev"]["log"])
    devs = run["members"] + [run["logdev"]]
    logs = members + [lg]
    imgs = [Image(d, lg_) for d, lg_ in zip(devs, logs)]
    parcheck = run["parcheck"]
    points = failed = 0
    t0 = time.time()
    for cut in run["cuts"]:
        k = cut["k"]
        for im in imgs:
            im.advance("pre-%d" % k)
        variants = [("flushed", [None] * len(imgs))]
        vols = [lg_.between("pre-%d" % k, "cut-%d" % k) for lg_ in logs]
        # (for the cuts after bursts of unflushed writes, and every
        # other cut: the replay must stay short)
        if any(vols) and (cut["phase"] == "clean" or k % 4 == 1):
            # harsher: the log device and every other member (odd ones)
            # wrote their volatile writes back before the power went
            harsh = [vols[i] if i % 2 else None for i in range(len(members))]
            harsh.append(vols[-1])
            variants.append(("cache", harsh))
        for name, extra in variants:
            for im, more in zip(imgs, extra):
                copy(im.dev["base"], im.dev["scratch"], im.size)
                if more:
                    apply(im.dev["scratch"], im.log, more)
            err = check_point(dm, run, cut, parcheck)
            points += 1
            if err:
                failed += 1
                print("POINT cut %d (%s, %s): %s" % (k, cut["phase"], name,
                                                     err))
    print("replay: %d crash points (%d cuts), %d failed, %.0f s" %
          (points, len(run["cuts"]), failed, time.time() - t0))
    return 1 if failed or points < run.get("min_points", 50) else 0


def check_point(dm, run, cut, parcheck):
    scr = [d["scratch"] for d in run["members"]]
    name = "r45replay"
    dm.create(name, table(run, scr, run["logdev"]["scratch"], cut["dti"]))
    try:
        words = wait_in_sync(dm, name, 120)
        bad = verify_acked("/dev/mapper/" + name, run["acked_start"],
                           cut["acked"])
    finally:
        dm.remove(name)
    if words[int(words[0]) + 2] != "A" * int(words[0]):
        return "health " + words[int(words[0]) + 2]
    if bad:
        return "%d of %d acknowledged blocks wrong: %s" % (
            len(bad), len(cut["acked"]), bad[:8])
    p = subprocess.run([parcheck, "-t", run["type"], "-c", str(run["chunk"]),
                        "-o", str(run["offset"]), "-n",
                        str(run["dev_sectors"] // run["chunk"])] + scr,
                       stdout=subprocess.PIPE, universal_newlines=True)
    if p.returncode:
        return "parity: " + p.stdout.strip()
    return None


def dump(path, n):
    entries, ssize = read_log(path)
    print("%s: %d entries, sector size %d" % (path, len(entries), ssize))
    for e in entries[:n]:
        f = "".join(c for c, b in (("F", FLUSH), ("U", FUA), ("D", DISCARD),
                                   ("M", MARK)) if e.flags & b)
        print("%8d %-4s %s" % (e.sector, f, e.mark if e.mark is not None
                               else e.count))


def main():
    cmd = sys.argv[1]
    if cmd == "dump":
        dump(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 50)
        return 0
    run = json.load(open(sys.argv[2]))
    if cmd == "check-order":
        return check_order(run)
    if cmd == "replay":
        return replay(run)
    raise SystemExit("unknown command " + cmd)


if __name__ == "__main__":
    sys.exit(main())
