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
  2. the crash: every eI becomes dm-error at one instant (preloaded
     tables, resumed in a row): writes still held in a delay are lost,
     per member;
  3. the disks come back and the array is checked (MODE):
       raid45     raid45 with member k % N missing ("- -"): a disk log
                  that holds regions the crash left dirty makes the
                  activation refused; it is then forced
                  (start_dirty_degraded);
       ppl        the same with a partial parity log: accepted;
       md-verify  raid45 with md's PPL area wrote the crash; md
                  assembles the members (marked dirty, so that it
                  replays the log) and md's check is the parity oracle;
       md-crash   md wrote the crash; raid45 activates with member
                  k % N missing and md's PPL area, and replays md's log;
  4. every block is read: one with no write in flight at the crash must
     hold its last acknowledged generation (or, forced, fail with EIO:
     EIOs must equal the target's unsafe-read count); one with a write in
     flight may hold the generation before or the one in flight, or
     anything with a PPL (md's PPL does not protect the written part of
     a stripe whose written member is lost);
  5. the array is whole again and in sync, and the blocks that were in
     flight are read to learn what landed.

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

MODE, TYPE = sys.argv[1], sys.argv[2]
N, POINTS, SEED = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
MD = MODE.startswith("md")
PPL = MODE != "raid45"
PARITY = 2 if TYPE.startswith("raid6") else 1
DEV_SECTORS = 2 * 2048        # array data per member
CHUNK = 8                     # sectors: one 4 KiB block per member
REGION = 128                  # sectors of the array per region
BS = 4096
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


def disk_table(i, error=False):
    size = str(layout["disk"] if i < N else 2048 + DEV_SECTORS)
    if error:
        return ["0", size, "error"]
    return ["0", size, "linear", "/dev/ram%d" % i, "0"]


def delay_table(i, delay):
    size = str(layout["disk"] if i < N else 2048 + DEV_SECTORS)
    return ["0", size, "delay", node("e%d" % i), "0", "0", node("e%d" % i),
            "0", str(delay)]


def setup_rig():
    for i in range(N + 1):
        dm.create("e%d" % i, disk_table(i))
        dm.create("d%d" % i, delay_table(i, 0))


def set_delays():
    """After the fill: member i's writes are held 40 ms * i."""
    for i in range(N):
        dm.run("load", "d%d" % i, *delay_table(i, 40 * i))
        dm.run("resume", "d%d" % i)


def members():
    return [node("d%d" % i) for i in range(N)]


# ---- raid45 ----

def table(missing=-1, force=False, core=False):
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
    if PPL:
        w += ["ppl", str(layout["ppl"][0]), str(layout["ppl"][1]),
              "0x%08x" % layout["signature"]]
    w += [str(N), "-1"]
    for i in range(N):
        w += ["-", "-"] if i == missing else [node("d%d" % i),
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


def md_check(sysfs):
    with open(sysfs + "sync_action", "w") as f:
        f.write("check")
    time.sleep(0.2)
    md_idle(sysfs)
    return int(open(sysfs + "mismatch_cnt").read())


# ---- the workload ----

def content(b, g):
    word = b"block %08d generation %08d " % (b, g)
    return (word * (BS // len(word) + 1))[:BS]


def parse(buf):
    try:
        head = bytes(buf[:34]).split()
        if head[0] != b"block" or head[2] != b"generation":
            return None
        b, g = int(head[1]), int(head[3])
    except (ValueError, IndexError):
        return None
    return (b, g) if buf[:] == content(b, g) else None


def aligned():
    return mmap.mmap(-1, BS)


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
    """Every disk turns to dm-error at once: preloaded, then resumed."""
    for i in range(N + 1):
        dm.run("load", "e%d" % i, *disk_table(i, True))
    crashed.set()
    for i in range(N + 1):
        dm.run("resume", "e%d" % i)


def restore():
    """The disks back: nothing a delay still holds may land on them."""
    for i in range(N + 1):
        # a suspend of the delay sends what it holds on to the dm-error
        dm.run("suspend", "d%d" % i)
        dm.run("resume", "d%d" % i)
    for i in range(N + 1):
        dm.run("load", "e%d" % i, *disk_table(i))
        dm.run("resume", "e%d" % i)


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
            if PPL or (got and got[0] == b and
                       (got[1] == acked[b] or got[1] in inflight[b])):
                continue
            wrong.append((b, "in flight", acked[b], inflight[b], got))
        elif got != (b, acked[b]):
            wrong.append((b, "acked", acked[b], got))
    os.close(fd)
    if eio and not forced:
        wrong += [(b, "EIO") for b in eio]
    return wrong, eio


def learn_inflight(dev):
    """With every member back and in sync: what the writes in flight left."""
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = aligned()
    for b in list(inflight):
        os.preadv(fd, [buf], b * BS)
        got = parse(buf)
        if not got or got[0] != b or \
           (got[1] != acked[b] and got[1] not in inflight[b]):
            raise SystemExit("block %d whole again: %r (acked %d, in "
                             "flight %r)" % (b, got, acked[b], inflight[b]))
        acked[b] = got[1]
    os.close(fd)
    inflight.clear()


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


def point(k, dev):
    """One crash point; returns (wrong, refused, eio, note, next device)."""
    threads = burst(dev, k)
    if MD and MODE == "md-crash":
        for t in threads:
            t.join()
        sh("mdadm", "--stop", MDNAME)
    else:
        # held writes (members failed) go on at the suspend, and fail
        dm.run("suspend", ARRAY)
        for t in threads:
            t.join()
        dm.remove(ARRAY)
    if errors:
        raise SystemExit("point %d: %s" % (k, errors[0]))
    restore()
    if MD:
        state = [l.split(":", 1)[1].strip() for l in
                 sh("mdadm", "-E", members()[1]).splitlines()
                 if l.strip().startswith("State :")]
        print("   md's superblock after the crash: %s" % state)
    n_inflight = len(inflight)
    missing = k % N
    refused = forced = False
    note = ""
    if MODE == "md-verify":
        dev, sysfs = md_assemble(dirty=True)
        # md replayed the log and called the array clean, or found no
        # entry and resyncs (then its check proves nothing of the log)
        rs = open(sysfs + "resync_start").read().strip()
        note = "md " + ("replayed" if rs == "none" else "resynced")
        md_idle(sysfs)
        wrong, eio = check_blocks(dev, False)
        mm = md_check(sysfs)
        if mm:
            wrong.append(("md check", mm))
        note += ", md check %d mismatches" % mm
        unsafe = len(eio)
    else:
        core = MODE == "md-crash"
        if not try_create(table(missing, core=core)):
            if PPL:
                raise SystemExit("point %d: activation with PPL refused" % k)
            refused = forced = True
            if not try_create(table(missing, force=True)):
                raise SystemExit("point %d: forced activation refused" % k)
        note = "member %d missing, %s" % (
            missing, "refused then forced" if refused else "accepted")
        wrong, eio = check_blocks(node(ARRAY), forced)
        unsafe = int(ext(status_words(), 6))
        dm.remove(ARRAY)
    print("point %2d: %d writes in flight, %s, %d EIO (unsafe reads %d), "
          "%d wrong" % (k, n_inflight, note, len(eio), unsafe, len(wrong)))
    for w in wrong[:10]:
        print("   wrong:", w)
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
    elif MODE == "md-verify":
        learn_inflight(dev)
        sh("mdadm", "--stop", MDNAME)
        return len(wrong), refused, len(eio), raid45_whole()
    else:
        dev = raid45_whole()
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
    print("%s %s: %d crash points, %d refused activations, %d EIO blocks, "
          "%d wrong blocks" % (MODE, TYPE, POINTS, refusals, eios,
                               total_wrong))
    sys.exit(1 if total_wrong else 0)


if __name__ == "__main__":
    main()
