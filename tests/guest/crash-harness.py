#!/usr/bin/python3
"""crash-harness.py MODE TYPE N POINTS SEED: the write hole (issue 26).

Members are /dev/ramI behind two device-mapper layers: eI (linear: the
"disk") and dI (dm-delay, writes held 40 ms * I once the array is
filled), so that at a crash every member has landed its own prefix of
the writes in flight; a disk log (raid45 only) sits on /dev/ram<N> the
same way.  The array is filled (generation 0 in every 4 KiB block), then
POINTS times:

  1. 16 threads write random 4 KiB blocks (O_DIRECT), each tagged with
     its block number and generation; a write is acknowledged when its
     pwrite returns before the crash;
  2. the crash: every eI is frozen (suspended without flush), then
     becomes dm-error: writes still held in a delay or in the frozen
     queue are lost, per member;
  3. the disks come back and the array is checked (MODE):
       raid45     raid45 with member k % N missing ("- -"): a disk log
                  that holds regions the crash left dirty makes the
                  activation refused; it is then forced
                  (start_dirty_degraded);
       ppl        the same with a partial parity log: accepted;
       journal    the same with a write journal on disk N + 1 (its
                  writes held 15 ms, lost at the crash as the members'),
                  CRASH_LOST members missing (RAID6: 2): accepted, no
                  block wrong, no EIO;
       ppl-late   written without a partial parity log, activated with
                  one whose areas hold no header (the log added after
                  the crash): it vouches for nothing, so refused then
                  forced as raid45;
       md-verify  raid45 with md's PPL area wrote the crash; md
                  assembles the members (marked dirty, so that it
                  replays the log) and md's check is the parity oracle;
       md-crash   md wrote the crash; raid45 activates with member
                  k % N missing and md's PPL area, and replays md's log;
       rebuild-torn  (issue 31, finding 1) raid45 with every member:
                  accepted, the resync of the dirty regions frozen at
                  once, member k % N lost, and a reload puts a blank
                  spare in its place with <dev_to_init> (as
                  raid45-monitor's spare policy does); the rebuild must
                  leave the regions the crash left torn out of sync
                  (their blocks of the spare fail with EIO, counted),
                  never compute them from that parity;
  4. every block is read: one with no write in flight at the crash must
     hold its last acknowledged generation (or, forced, fail with EIO:
     EIOs must equal the target's unsafe-read count; with a PPL, EIO only
     on the missing member, whose blocks in the regions of log entries
     that modified it beside another member are untrusted); one with a
     write in flight may hold the generation before or the one in
     flight (4 KiB pieces of either), or fail with EIO, or with md
     serving (md-verify) anything (md's PPL does not protect the written
     part of a stripe whose written member is lost);
  5. the array is whole again and in sync, and the blocks that were in
     flight are read to learn what landed.

CRASH_WC=1: the disks are null_blk devices with a cache (made here,
8 MiB each, configfs nullb/r45wc<I>; the caller removes them), so that the members
report a volatile write cache, the array flushes them and the partial
parity log carries written entries until those flushes: that path runs.
(The crash loses nothing a flush would have saved: what is shown is
that the path keeps every other rule, not that the flush is needed.)

Prints a line per crash point and a summary; exits 1 on any wrong block,
unexpected refusal or acceptance, or md check mismatch.
"""
import mmap
import os
import random
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True   # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from logwrites import DM  # noqa: E402

PARCHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "build", "tests", "parity-check")

MODE, TYPE = sys.argv[1], sys.argv[2]
N, POINTS, SEED = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
MD = MODE.startswith("md")
JOURNAL = MODE == "journal"   # a write journal on disk N + 1
PPL = MODE not in ("raid45", "ppl-late", "rebuild-torn", "journal")
# journal mode: members lost at each activation (RAID6: 1 or 2)
LOST = int(os.environ.get("CRASH_LOST", "1"))
NDISKS = N + 1 + JOURNAL      # members, the disk log, the journal
PARITY = 2 if TYPE.startswith("raid6") else 1
WC = os.environ.get("CRASH_WC") == "1"  # members with a volatile cache
WC_DEVS = {}                  # their null_blk devices, by member
DEV_SECTORS = 2 * 2048        # array data per member
# md modes: 64 KiB chunks and 16 KiB blocks, so that md's log entries
# cover runs of stripes (pp_size below the chunk); raid45 modes: 4 KiB
# chunks and blocks, every write a stripe of its own
CHUNK = 128 if MD else 8      # sectors
REGION = 128                  # sectors of the array per region
BS = 16384 if MD else 4096
ARRAY_SECTORS = DEV_SECTORS * (N - PARITY)
NBLOCKS = ARRAY_SECTORS * 512 // BS
ARRAY = "r45c"
MDNAME = "/dev/md/r45md"
dm = DM()
rng = random.Random(SEED)
# where the data starts on a member, and the PPL area: raid45's own
# layout, or md's (read from its superblock: setup_md)
layout = {"offset": 2048, "ppl": (-2040, 2040), "signature": 0x52343521,
          "disk": 8 * 2048 if MD else 2048 + DEV_SECTORS}


def node(name):
    return "/dev/mapper/" + name


def sh(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout


def disk_size(i):
    """Members, the disk log (N), the journal (N + 1: 8 MiB)."""
    return str(layout["disk"] if i < N else
               2048 + DEV_SECTORS if i == N else 16384)


def disk_table(i, error=False):
    size = disk_size(i)
    if error:
        return ["0", size, "error"]
    return ["0", size, "linear", disk_dev(i), "0"]


def delay_table(i, delay):
    size = disk_size(i)
    return ["0", size, "delay", node("e%d" % i), "0", "0", node("e%d" % i),
            "0", str(delay)]


def write_cache(dev):
    rdev = os.stat(dev).st_rdev
    with open("/sys/dev/block/%d:%d/queue/write_cache" %
              (os.major(rdev), os.minor(rdev))) as f:
        return f.read().strip()


def disk_dev(i):
    """The "disk" under eI: a ramdisk, or (WC) a null_blk device with a
    cache, made here (ramdisks cannot claim one)."""
    return WC_DEVS[i] if WC else "/dev/ram%d" % i


def make_cached_disks():
    sh("modprobe", "null_blk", "nr_devices=0")
    cfs = "/sys/kernel/config"
    if not os.path.isdir(cfs + "/nullb"):
        sh("mount", "-t", "configfs", "configfs", cfs)
    for i in range(NDISKS):
        d = "%s/nullb/r45wc%d" % (cfs, i)
        os.mkdir(d)
        for attr, val in (("size", 8), ("memory_backed", 1),
                          ("cache_size", 1), ("power", 1)):
            with open("%s/%s" % (d, attr), "w") as f:
                f.write(str(val))
        # named after the directory (Linux 6.0 on), nullb<index> before
        with open(d + "/index") as f:
            index = int(f.read())
        WC_DEVS[i] = "/dev/r45wc%d" % i
        if not os.path.isdir("/sys/block/r45wc%d" % i):
            WC_DEVS[i] = "/dev/nullb%d" % index
    sh("udevadm", "settle")
    for i in range(NDISKS):
        if not os.path.exists(disk_dev(i)):
            sys.exit("CRASH_WC: no %s" % disk_dev(i))


def setup_rig():
    if WC:
        # members with a volatile cache: the stacks above say so, the
        # array flushes them, and the log carries written entries until
        # the flush
        make_cached_disks()
    for i in range(NDISKS):
        dm.create("e%d" % i, disk_table(i))
        dm.create("d%d" % i, delay_table(i, 0))
    if WC and write_cache(node("d0")) != "write back":
        sys.exit("CRASH_WC: the members do not report a write cache")


def set_delays():
    """After the fill: member i's writes are held 40 ms * i."""
    for i in range(N):
        dm.run("load", "d%d" % i, *delay_table(i, 40 * i))
        dm.run("resume", "d%d" % i)
    if JOURNAL:
        # the journal's writes in flight are lost at the crash too
        dm.run("load", "d%d" % (N + 1), *delay_table(N + 1, 15))
        dm.run("resume", "d%d" % (N + 1))


def members():
    return [node("d%d" % i) for i in range(N)]


# ---- raid45 ----

def table(missing=-1, force=False, core=False, ppl=PPL, rebuild=-1):
    if core:
        w = ["0", str(ARRAY_SECTORS), "raid45", "core", "2", str(REGION),
             "nosync"]
    else:
        w = ["0", str(ARRAY_SECTORS), "raid45", "disk", "2",
             node("d%d" % N), str(REGION)]
    w.append(TYPE)
    if TYPE == "raid4":
        w.append("-1")
    w += ["1", str(CHUNK)]
    if force:
        w.append("start_dirty_degraded")
    if ppl:
        w += ["ppl", str(layout["ppl"][0]), str(layout["ppl"][1]),
              "0x%08x" % layout["signature"]]
    if JOURNAL:
        w += ["journal_dev", node("d%d" % (N + 1)), "journal_mode",
              "writethrough"]
    w += [str(N), str(rebuild)]
    lost = {missing} if isinstance(missing, int) else set(missing)
    for i in range(N):
        w += ["-", "-"] if i in lost else [node("d%d" % i),
                                           str(layout["offset"])]
    return w


def try_create(words):
    try:
        dm.create(ARRAY, words)
        return True
    except OSError:
        return False


def status_words():
    return dm.status(ARRAY).split()


def ext(words, k):
    """Word k (1-based) after the log's status: 1 action ... 6 unsafe."""
    n = int(words[0])
    i = n + 5 + int(words[n + 4])
    return words[i + k - 1]


def wait_in_sync(limit=120):
    end = time.time() + limit
    while True:
        w = status_words()
        n = int(w[0])
        inn, tot = w[n + 3].split("/")
        if inn == tot and ext(w, 1) == "idle":
            return
        if time.time() > end:
            raise SystemExit("not in sync: " + " ".join(w))
        time.sleep(0.1)


def raid45_whole():
    """The array with every member, in sync (the log's dirty regions)."""
    if not try_create(table(core=MODE == "md-crash")):
        raise SystemExit("the whole array was refused")
    wait_in_sync()
    return node(ARRAY)


# ---- md ----

def setup_md():
    """md's RAID5 with a PPL over the members; its layout read back."""
    sh("mdadm", "--create", MDNAME, "--run", "--assume-clean", "-e", "1.2",
       "-l", "5", "-n", str(N), "-c", str(CHUNK // 2), "--layout=ls",
       "-z", str(DEV_SECTORS // 2), "--consistency-policy=ppl", *members())
    ex = sh("mdadm", "-E", members()[0])
    words = {}
    for line in ex.splitlines():
        k, _, v = line.partition(" : ")
        words[k.strip()] = v.strip()
    data = int(words["Data Offset"].split()[0])
    sb = int(words["Super Offset"].split()[0])
    ppl = words["PPL"].split()         # "2048 sectors at offset 8 ..."
    size, off = int(ppl[0]), int(ppl[4])
    layout["offset"] = data
    layout["ppl"] = (sb + off - data, size)
    # the signature of the header md wrote when it started
    with open(members()[0], "rb") as f:
        f.seek((sb + off) * 512 + 512)
        layout["signature"] = int.from_bytes(f.read(4), "little")
    sh("mdadm", "--stop", MDNAME)


def md_assemble(dirty):
    """md over the members; dirty: its log is replayed (--update=resync)."""
    cmd = ["mdadm", "--assemble", MDNAME, "--run"]
    if dirty:
        cmd.append("--update=resync")
    sh(*cmd, *members())
    dev = os.path.realpath(MDNAME)
    sysfs = "/sys/block/%s/md/" % os.path.basename(dev)
    return dev, sysfs


def md_idle(sysfs, limit=120):
    """md in sync (a resync it starts after assembly is done) and idle."""
    end = time.time() + limit
    while open(sysfs + "resync_start").read().strip() != "none" or \
            open(sysfs + "sync_action").read().strip() != "idle":
        if time.time() > end:
            raise SystemExit("md not in sync")
        time.sleep(0.1)


def md_check(sysfs, action="check"):
    with open(sysfs + "sync_action", "w") as f:
        f.write(action)
    time.sleep(0.2)
    md_idle(sysfs)
    return int(open(sysfs + "mismatch_cnt").read())


# ---- the workload ----

PIECE = 4096                  # a page: what one member write holds


def content(b, g):
    """Every 4 KiB piece of the block tagged alike: a block larger than a
    page is written as several stripes, and a crash may tear it."""
    word = b"block %08d generation %08d " % (b, g)
    return (word * (PIECE // len(word) + 1))[:PIECE] * (BS // PIECE)


def replayed():
    """Entries the target replayed so far (kernel log)."""
    n = 0
    for line in sh("dmesg").splitlines():
        if "partial parity log:" in line and "entries replayed" in line:
            n += int(line.split("partial parity log:")[1].split()[0])
        if "journal:" in line and "records replayed" in line:
            n += int(line.split("journal:")[1].split()[0])
    return n


def parse_piece(piece):
    try:
        head = bytes(piece[:34]).split()
        if head[0] != b"block" or head[2] != b"generation":
            return None
        b, g = int(head[1]), int(head[3])
    except (ValueError, IndexError):
        return None
    return (b, g) if bytes(piece) == content(b, g)[:PIECE] else None


def pieces(buf):
    return [parse_piece(buf[i:i + PIECE]) for i in range(0, BS, PIECE)]


def parse(buf):
    """(block, generation) of a whole block, else None."""
    p = pieces(buf)
    return p[0] if p[0] and all(x == p[0] for x in p) else None


def torn_from(buf, b, gens):
    """A block a write in flight tore: every piece from one of gens."""
    return all(x and x[0] == b and x[1] in gens for x in pieces(buf))


def aligned():
    return mmap.mmap(-1, BS)


md_replays = []                # md-verify: md replayed the log (not resynced)
rebuild_left = []              # rebuild-torn: regions each rebuild left
missing_member = [-1]          # the member missing at this point
acked = [0] * NBLOCKS          # last acknowledged generation
inflight = {}                  # block -> generations in flight
gen = [0] * NBLOCKS
lock = threading.Lock()
crashed = threading.Event()
errors = []


def writer(dev, seed):
    r = random.Random(seed)
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
    buf = aligned()
    try:
        while not crashed.is_set():
            b = r.randrange(NBLOCKS)
            with lock:
                if b in inflight:
                    continue
                gen[b] += 1
                g = gen[b]
                inflight[b] = {g}
            buf[:] = content(b, g)
            try:
                os.pwrite(fd, buf, b * BS)
                ok = True
            except OSError:
                ok = False
            with lock:
                # an answer seen after the crash may be from after it
                if ok and not crashed.is_set():
                    acked[b] = g
                    del inflight[b]
                elif not ok and not crashed.is_set():
                    errors.append("block %d: a write failed before the "
                                  "crash" % b)
    finally:
        os.close(fd)


def fill(dev):
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
    buf = aligned()
    for b in range(NBLOCKS):
        buf[:] = content(b, 0)
        os.pwrite(fd, buf, b * BS)
    os.fsync(fd)
    os.close(fd)


def crash():
    """The power goes: every disk stops taking writes, then turns to
    dm-error.  The disks are frozen first (suspended without flush: a
    bio that reaches one is held, unanswered), one after the other, so
    that the array sees no error until all are frozen: each disk keeps
    a prefix of what was sent to it, as a disk with its queue still full
    when the power went.  Switched to dm-error one by one instead, the
    array would fail the first and go on writing degraded to the others
    (a member failure, not a crash), and that member, back in the next
    table with none of those writes, would be a stale member that no
    table line can flag: in that mode (CRASH_SWITCH=1, kept for
    diagnosis) 88's ppl raid5_la case twice saw 1 wrong block; in the
    atomic mode it saw none in 5 seeded runs and the CI runs since."""
    for i in range(NDISKS):
        dm.run("load", "e%d" % i, *disk_table(i, True))
    crashed.set()
    for i in range(NDISKS):
        if os.environ.get("CRASH_SWITCH"):     # diagnosis: the old way
            break
        dm.run("suspend-noflush", "e%d" % i)
    for i in range(NDISKS):
        dm.run("resume", "e%d" % i)


def restore():
    """The disks back: nothing a delay still holds may land on them."""
    for i in range(NDISKS):
        # a suspend of the delay sends what it holds on to the dm-error
        dm.run("suspend", "d%d" % i)
        dm.run("resume", "d%d" % i)
    for i in range(NDISKS):
        dm.run("load", "e%d" % i, *disk_table(i))
        dm.run("resume", "e%d" % i)


def lose_and_spare(i):
    """rebuild-torn: disk i dies (a read through the array finds it),
    then a blank disk takes its place (the spare)."""
    dm.run("load", "e%d" % i, *disk_table(i, True))
    dm.run("suspend", "e%d" % i)
    dm.run("resume", "e%d" % i)
    fd = os.open(node(ARRAY), os.O_RDONLY | os.O_DIRECT)
    buf = aligned()
    for b in range(0, NBLOCKS, max(1, NBLOCKS // 64)):
        try:
            os.preadv(fd, [buf], b * BS)
        except OSError:
            pass
    os.close(fd)
    zero = mmap.mmap(-1, 4096)
    fd = os.open(disk_dev(i), os.O_WRONLY | os.O_DIRECT)
    for off in range(0, layout["disk"] * 512, 4096):
        os.pwritev(fd, [zero], off)
    os.close(fd)
    dm.run("load", "e%d" % i, *disk_table(i))
    dm.run("suspend", "e%d" % i)
    dm.run("resume", "e%d" % i)


def wait_idle(limit=300):
    """The rebuild finished, or stopped with regions left out of sync."""
    end = time.time() + limit
    while ext(status_words(), 1) != "idle":
        if time.time() > end:
            raise SystemExit("rebuild not ended: " + dm.status(ARRAY))
        time.sleep(0.2)


def refill(dev):
    """rebuild-torn: what the spare could not get back is written again
    (every block, as a user restores from a backup), so that the next
    point starts from an array whose every stripe is consistent."""
    fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
    # 1 MiB at a time: whole stripes, one member delay each
    per = (1 << 20) // BS
    buf = mmap.mmap(-1, per * BS)
    for b0 in range(0, NBLOCKS, per):
        n = min(per, NBLOCKS - b0)
        for b in range(b0, b0 + n):
            buf[(b - b0) * BS:(b - b0 + 1) * BS] = content(b, acked[b])
        os.pwritev(fd, [memoryview(buf)[:n * BS]], b0 * BS)
    os.fsync(fd)
    os.close(fd)
    inflight.clear()


def check_blocks(dev, forced):
    """Read every block; returns (wrong, eio) lists."""
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = aligned()
    wrong, eio = [], []
    for b in range(NBLOCKS):
        try:
            os.preadv(fd, [buf], b * BS)
        except OSError:
            eio.append(b)
            continue
        got = parse(buf)
        if b in inflight:
            # md serves anything there (its PPL does not protect the
            # written part of a stripe whose written member is lost);
            # raid45 serves what was or what was being written, or EIO
            if MODE == "md-verify" or \
                    torn_from(buf, b, {acked[b]} | inflight[b]):
                continue
            wrong.append((b, "in flight", acked[b], inflight[b], got))
        elif got != (b, acked[b]):
            wrong.append((b, "acked", acked[b], got))
    os.close(fd)
    if eio and not forced:
        wrong += [(b, "EIO") for b in eio
                  if not (PPL and eio_explained(b))]
    return wrong, eio


def member_of(b):
    """The member that holds block b (RAID4 and RAID5, md's layouts)."""
    d = N - 1
    c = b * BS // 512 // CHUNK
    row, dd = divmod(c, d)
    if TYPE == "raid4":
        pd = N - 1
    elif TYPE in ("raid5_la", "raid5_ls"):
        pd = d - row % N
    else:
        pd = row % N
    if TYPE in ("raid5_ls", "raid5_rs"):
        return (pd + 1 + dd) % N
    return dd + 1 if dd >= pd else dd


def eio_explained(b):
    """PPL modes (issue 31, finding 7): a log entry that modified the
    missing member beside another member cannot be replayed (either may
    have landed without the other); its regions are untrusted, and what
    would be computed from their parity fails with EIO: blocks of the
    missing member only."""
    return member_of(b) == missing_member[0]


snap = {}                      # diagnosis: the members as the crash left them


def snapshot():
    """Diagnosis (raid45 modes): every member's contents after the crash."""
    if MD:
        return
    for i in range(N):
        with open(node("d%d" % i), "rb", buffering=0) as f:
            snap[i] = f.read(layout["disk"] * 512)


def xor(*blocks):
    x = bytearray(len(blocks[0]))
    for blk in blocks:
        for j, c in enumerate(blk):
            x[j] ^= c
    return bytes(x)


def explain(b):
    """Diagnosis (raid5_la, 4 KiB chunks): block b's row as the crash left
    it, and the entries of its parity member's log that cover the row."""
    if MD or not snap or TYPE != "raid5_la":
        return
    d = N - 1
    row = b // d
    pd = (N - 1) - row % N
    off = (layout["offset"] + row * CHUNK) * 512
    blk = {i: snap[i][off:off + BS] for i in range(N)}
    print("      before the activation: %s; xor of all %s" % (
        ", ".join("m%d=%s" % (i, parse(blk[i]) if i != pd else "P")
                  for i in range(N)),
        "zero" if not any(xor(*blk.values())) else "NOT zero"))
    start = (layout["offset"] + layout["ppl"][0]) * 512
    end = start + layout["ppl"][1] * 512
    pos = start
    log = snap[pd]
    while pos + 4096 <= end:
        h = log[pos:pos + 4096]
        sig = int.from_bytes(h[512:516], "little")
        if sig != layout["signature"]:
            break
        gen_ = int.from_bytes(h[520:528], "little")
        cnt = int.from_bytes(h[528:532], "little")
        print("      log of m%d at +%d: generation %d, %d entries" % (
            pd, (pos - start) // 512, gen_, cnt))
        pp = pos + 4096
        for e in range(min(cnt, 148)):
            ent = h[536 + 24 * e:536 + 24 * e + 24]
            ds = int.from_bytes(ent[0:8], "little")
            pps = int.from_bytes(ent[8:12], "little")
            dsz = int.from_bytes(ent[12:16], "little")
            if ds // (CHUNK * d) == row and dsz:
                first = (ds % (CHUNK * d)) // CHUNK
                nmod = dsz // BS
                unmod = [x for x in range(d) if not first <= x < first + nmod]
                disks = [x if x < pd else x + 1 for x in range(d)]
                want = xor(bytes(BS), *[blk[disks[x]] for x in unmod])
                got = log[pp:pp + pps]
                print("        entry %d: sector %d (blocks %d..%d of the "
                      "row modified), pp %d bytes: %s" % (
                          e, ds, first, first + nmod - 1, pps,
                          "none" if not pps else
                          "matches the unmodified blocks" if got == want
                          else "DIFFERS from the unmodified blocks"))
            pp += pps
        pos = pp


def dump_row(b):
    """Diagnosis: what every member holds in block b's row (raid5_la)."""
    d = N - 1
    row, dd = divmod(b, d)
    pd = (N - 1) - row % N
    blocks = []
    for i in range(N):
        with open(node("d%d" % i), "rb", buffering=0) as f:
            f.seek((layout["offset"] + row * CHUNK) * 512)
            blocks.append(f.read(BS))
    x = bytes(BS)
    for i in range(N):
        x = bytes(a ^ c for a, c in zip(x, blocks[i]))
    print("      row %d (parity on member %d): %s; xor of all %s" % (
        row, pd, ", ".join("m%d=%s" % (i, parse(blocks[i]) if i != pd
                                            else "P") for i in range(N)),
        "zero" if not any(x) else "NOT zero"))


def learn_inflight(dev):
    """With every member back and in sync: what the writes in flight left."""
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    buf = aligned()
    for b in list(inflight):
        os.preadv(fd, [buf], b * BS)
        if not torn_from(buf, b, {acked[b]} | inflight[b]):
            raise SystemExit("block %d whole again: %r (acked %d, in "
                             "flight %r)" % (b, pieces(buf), acked[b],
                                             inflight[b]))
        got = parse(buf)
        if got:
            acked[b] = got[1]
        else:
            # torn (pieces of both): written whole again, as a user would
            gen[b] += 1
            buf[:] = content(b, gen[b])
            os.pwrite(fd, buf, b * BS)
            acked[b] = gen[b]
    os.fsync(fd)
    os.close(fd)
    inflight.clear()


def parity_whole():
    """The array whole and in sync: parity recomputed from the raw
    members matches on every row (the oracle of raid45 modes)."""
    w = ["-t", TYPE, "-c", str(CHUNK), "-o", str(layout["offset"]),
         "-n", str(DEV_SECTORS // CHUNK)]
    r = subprocess.run([PARCHECK, *w, *members()], capture_output=True,
                       text=True)
    if r.returncode:
        raise SystemExit("parity after the array was whole again and in "
                         "sync: %s" % " ".join(r.stdout.split("\n")[-6:]))


def zero_ppl_areas():
    """ppl-late: no header in any member's area (never logged there)."""
    buf = mmap.mmap(-1, layout["ppl"][1] * 512)
    for i in range(N):
        fd = os.open(node("d%d" % i), os.O_WRONLY | os.O_DIRECT)
        os.pwrite(fd, buf, (layout["offset"] + layout["ppl"][0]) * 512)
        os.fsync(fd)
        os.close(fd)


def burst(dev, k):
    """Writes, then the crash; the writers end when the array lets them."""
    threads = [threading.Thread(target=writer,
                                args=(dev, SEED * 100 + k * 20 + t))
               for t in range(16)]
    crashed.clear()
    for t in threads:
        t.start()
    time.sleep(rng.uniform(0.3, 1.0))
    crash()
    return threads


def join_writers(threads):
    """The writers end once the suspend has let the held writes go.  A
    writer that passed its crash check just before the crash may issue its
    write only after the suspend began: dm keeps that bio, unmapped, until
    a resume, and the writer waits for it (on the debug kernel a point hung
    so, the suspend done, two writers in submit_bio_wait).  The flushing
    suspend returned, so the target holds no bio: a writer still there is
    one of those.  Resumed, the array takes its write and fails it (every
    disk is dm-error) or holds it, and the next suspend lets it go."""
    end = time.time() + 30      # one bound for all: under the watchdog's
    for t in threads:
        t.join(max(0, end - time.time()))
    late = sum(t.is_alive() for t in threads)
    if late:
        print("   %d writes issued after the suspend began: resumed to "
              "end them" % late, flush=True)
        dm.run("resume", ARRAY)
        dm.run("suspend", ARRAY)
        for t in threads:
            t.join()


def stuck(k):
    """A point that takes this long is stuck: the kernel's stacks of the
    blocked tasks go to its log (sysrq w) for the diagnosis, and to our
    output every device's status and the kernel stack of every task of
    ours and of dmsetup (a suspend waits interruptibly: sysrq w misses
    it; 88 once hung so on the debug kernel)."""
    print("point %d: stuck for 300 s: blocked tasks to the kernel log" % k,
          flush=True)
    with open("/proc/sys/kernel/printk", "w") as f:
        f.write("8")
    with open("/proc/sysrq-trigger", "w") as f:
        f.write("w")
    for cmd in (["status"], ["info", "-c"]):
        try:
            print(subprocess.run(["dmsetup", *cmd], capture_output=True,
                                 text=True, timeout=10).stdout, flush=True)
        except (OSError, subprocess.SubprocessError) as e:
            print("dmsetup %s: %s" % (cmd[0], e))
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            comm = open("/proc/%s/comm" % pid).read().strip()
            if comm not in ("dmsetup", "python3") and \
                    not comm.startswith("kworker"):
                continue
            for tid in os.listdir("/proc/%s/task" % pid):
                st = open("/proc/%s/task/%s/stack" % (pid, tid)).read()
                if comm.startswith("kworker") and "raid45" not in st and \
                        "r45_" not in st:
                    continue
                print("task %s/%s %s:\n%s" % (pid, tid, comm, st),
                      flush=True)
        except OSError:
            continue


def point(k, dev):
    """One crash point; returns (wrong, refused, eio, note, next device)."""
    watchdog = threading.Timer(300, stuck, (k,))
    watchdog.daemon = True
    watchdog.start()
    try:
        return one_point(k, dev)
    finally:
        watchdog.cancel()


def one_point(k, dev):
    if MODE == "ppl-late":
        zero_ppl_areas()
    threads = burst(dev, k)
    if MD and MODE == "md-crash":
        for t in threads:
            t.join()
        sh("mdadm", "--stop", MDNAME)
    else:
        # held writes (members failed) go on at the suspend, and fail
        dm.run("suspend", ARRAY)
        join_writers(threads)
        dm.remove(ARRAY)
    if errors:
        raise SystemExit("point %d: %s" % (k, errors[0]))
    restore()
    snapshot()
    if MD:
        state = [l.split(":", 1)[1].strip() for l in
                 sh("mdadm", "-E", members()[1]).splitlines()
                 if l.strip().startswith("State :")]
        print("   md's superblock after the crash: %s" % state)
    n_inflight = len(inflight)
    missing = k % N
    missing_member[0] = missing
    refused = forced = False
    note = ""
    if MODE == "rebuild-torn":
        if not try_create(table()):
            raise SystemExit("point %d: activation with every member "
                             "refused" % k)
        dm.run("message", ARRAY, "0", "frozen")
        lose_and_spare(missing)
        dm.run("load", ARRAY, *table(rebuild=missing))
        dm.run("suspend", ARRAY)
        dm.run("resume", ARRAY)
        wait_idle()
        words = status_words()
        left = int(ext(words, 5))
        rebuild_left.append(left)
        note = ("member %d lost during the resync, rebuilt on a spare, "
                "%d regions left unrebuilt" % (missing, left))
        wrong, eio = check_blocks(node(ARRAY), True)
        # only the spare's blocks may fail: every other member is there
        wrong += [(b, "EIO, not on the spare") for b in eio
                  if member_of(b) != missing]
        unsafe = int(ext(status_words(), 6))
        refill(node(ARRAY))
        dm.remove(ARRAY)
    elif MODE == "md-verify":
        dev, sysfs = md_assemble(dirty=True)
        # md replayed the log and called the array clean, or found no
        # entry and resyncs (then its check proves nothing of the log)
        rs = open(sysfs + "resync_start").read().strip()
        note = "md " + ("replayed" if rs == "none" else "resynced")
        md_replays.append(rs == "none")
        md_idle(sysfs)
        wrong, eio = check_blocks(dev, False)
        mm = md_check(sysfs)
        if mm:
            wrong.append(("md check", mm))
        note += ", md check %d mismatches" % mm
        unsafe = len(eio)
    else:
        core = MODE == "md-crash"
        late = MODE == "ppl-late" or PPL
        if JOURNAL:
            missing = [(k + j) % N for j in range(LOST)]
        if not try_create(table(missing, core=core, ppl=late)):
            if PPL or JOURNAL:
                raise SystemExit("point %d: activation with the log "
                                 "refused" % k)
            refused = forced = True
            if not try_create(table(missing, force=True, ppl=late)):
                raise SystemExit("point %d: forced activation refused" % k)
        note = "members %s missing, %s" % (
            missing, "refused then forced" if refused else "accepted")
        wrong, eio = check_blocks(node(ARRAY), forced)
        unsafe = int(ext(status_words(), 6))
        dm.remove(ARRAY)
    print("point %2d: %d writes in flight, %s, %d EIO (unsafe reads %d), "
          "%d wrong" % (k, n_inflight, note, len(eio), unsafe, len(wrong)))
    for w in wrong[:10]:
        print("   wrong:", w)
        if TYPE == "raid5_la" and isinstance(w[0], int):
            dump_row(w[0])
            explain(w[0])
    if len(eio) != unsafe:
        wrong.append(("EIO count %d, unsafe reads %d" % (len(eio), unsafe),))
    # whole again: learn what landed, for the next point
    if MODE == "md-crash":
        dev, sysfs = md_assemble(dirty=False)
        rs = open(sysfs + "resync_start").read().strip()
        md_idle(sysfs)
        mm = md_check(sysfs)
        print("   md assembled after it (resync_start %s), then its check: "
              "%d mismatches" % (rs, mm))
        if mm:
            # The member that was missing is back with the part of its
            # in-flight writes it landed; the replay left those stripes'
            # parity alone (their modified block was lost, as far as it
            # knew), so they match neither.  A member that comes back is
            # rebuilt: md's repair makes them consistent, or the next
            # point would compute another member's block from them.
            md_check(sysfs, "repair")
            left = md_check(sysfs)
            print("   md repair, then check: %d mismatches" % left)
            if left:
                wrong.append(("md repair left %d mismatches" % left,))
    elif MODE == "md-verify":
        learn_inflight(dev)
        sh("mdadm", "--stop", MDNAME)
        return len(wrong), refused, len(eio), raid45_whole()
    else:
        dev = raid45_whole()
        parity_whole()
    learn_inflight(dev)
    return len(wrong), refused, len(eio), dev


def main():
    setup_rig()
    if MD:
        setup_md()
    if MODE == "md-crash":
        dev, _ = md_assemble(dirty=False)
    else:
        # a fresh disk log (zeroed): the first activation resyncs it all
        dev = raid45_whole()
    fill(dev)
    set_delays()
    replayed0 = replayed()
    total_wrong = refusals = eios = 0
    for k in range(POINTS):
        w, r, e, dev = point(k, dev)
        total_wrong += w
        refusals += r
        eios += e
    if MODE == "md-crash":
        sh("mdadm", "--stop", MDNAME)
    else:
        dm.remove(ARRAY)
    n = replayed() - replayed0
    print("%s %s: %d crash points, %d refused activations, %d EIO blocks, "
          "%d wrong blocks, %d log entries replayed by raid45, md "
          "replayed %d times" % (MODE, TYPE, POINTS, refusals, eios,
                                  total_wrong, n, sum(md_replays)))
    # a case that never reached what it tests proves nothing
    vacuous = None
    if MODE in ("raid45", "ppl-late") and not refusals:
        vacuous = "no activation was refused: no crash left a region dirty"
    elif MODE in ("ppl", "md-crash", "journal") and not n:
        vacuous = "no log entry was replayed"
    elif MODE == "rebuild-torn" and not any(rebuild_left):
        vacuous = "no rebuild met a region the crash left torn"
    elif MODE == "md-verify" and not any(md_replays):
        vacuous = "md never replayed the log (it resynced)"
    if vacuous:
        print("vacuous: " + vacuous)
    sys.exit(1 if total_wrong or vacuous else 0)


if __name__ == "__main__":
    main()
