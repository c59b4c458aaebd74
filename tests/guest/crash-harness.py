#!/usr/bin/python3
"""crash-harness.py TYPE N POINTS SEED [ppl]: the write hole (issue 26).

A raid45 array of TYPE (raid5_ls, raid6_zr, raid4) over N members, each
/dev/ramI behind two device-mapper layers: eI (linear, the "disk") and
dI (dm-delay, writes held 40 ms * I), so that every member lands its own
prefix of the writes in flight; the disk log on /dev/ram<N> likewise.
The array is filled (generation 0 in every block), then POINTS times:

  1. 16 threads write random 4 KiB blocks (O_DIRECT), each block tagged
     with its number and generation; a write is acknowledged when its
     pwrite returns;
  2. the crash: every eI, and the log's, becomes dm-error at one instant
     (preloaded tables, resumed in a row): writes still held in a delay
     are lost, per member;
  3. the disks come back (linear again) and the array is activated with
     one member missing ("- -"), chosen in turn;
       without PPL, if the log holds regions the crash left dirty, the
       activation must be refused; it is then forced
       (start_dirty_degraded);
       with PPL ("ppl" argument) it must be accepted;
  4. every block is read: a block no write was in flight for at the crash
     must hold its last acknowledged generation, or (forced only) fail
     with EIO; a block with a write in flight may hold the generation
     before or the one in flight (with PPL, anything: md's PPL does not
     protect the written part of a stripe whose written member is lost),
     or EIO; EIOs must equal the target's unsafe-read count; anything
     else is a wrong block;
  5. the array is activated whole again, resynced, and the blocks that
     were in flight read to learn what landed.

Prints one line per crash point and a summary; exits 1 on any wrong
block or unexpected refusal/acceptance.
"""
import mmap
import os
import random
import sys
import threading
import time

sys.dont_write_bytecode = True   # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from logwrites import DM  # noqa: E402

TYPE, N, POINTS, SEED = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    int(sys.argv[4])
PPL = len(sys.argv) > 5 and sys.argv[5] == "ppl"
PARITY = 2 if TYPE.startswith("raid6") else 1
MIB = 2                       # per member
CHUNK = 8                     # sectors: a row of 4 KiB blocks
REGION = 128                  # sectors of the array per region
BS = 4096
DEV_SECTORS = MIB * 2048
ARRAY_SECTORS = DEV_SECTORS * (N - PARITY)
NBLOCKS = ARRAY_SECTORS * 512 // BS
ARRAY = "r45c"
dm = DM()
rng = random.Random(SEED)


def node(name):
    return "/dev/mapper/" + name


def disk_table(i, error=False):
    dev = "/dev/ram%d" % i
    if error:
        return ["0", str(DEV_SECTORS + 2048), "error"]
    return ["0", str(DEV_SECTORS + 2048), "linear", dev, "0"]


def delay_table(i, delay):
    return ["0", str(DEV_SECTORS + 2048), "delay", node("e%d" % i), "0", "0",
            node("e%d" % i), "0", str(delay)]


def setup():
    for i in range(N + 1):
        dm.create("e%d" % i, disk_table(i))
        dm.create("d%d" % i, delay_table(i, 0))


def set_delays():
    """After the fill: member i's writes are held 40 ms * i."""
    for i in range(N):
        dm.run("load", "d%d" % i, *delay_table(i, 40 * i))
        dm.run("resume", "d%d" % i)


def table(missing=-1, force=False):
    w = ["0", str(ARRAY_SECTORS), "raid45", "disk", "2", node("d%d" % N),
         str(REGION), TYPE]
    if TYPE == "raid4":
        w.append("-1")
    w += ["1", str(CHUNK)]
    if force:
        w.append("start_dirty_degraded")
    if PPL:
        # the log in the 1 MiB before each member's data (offset 2048)
        w += ["ppl", "-2040", "2040", "0x52343521"]
    w += [str(N), "-1"]
    for i in range(N):
        w += ["-", "-"] if i == missing else [node("d%d" % i), "2048"]
    return w


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
inflight = {}                  # block -> set of generations in flight
gen = [0] * NBLOCKS
lock = threading.Lock()
crashed = threading.Event()
errors = []


def writer(seed):
    r = random.Random(seed)
    fd = os.open(node(ARRAY), os.O_WRONLY | os.O_DIRECT)
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


def fill():
    fd = os.open(node(ARRAY), os.O_WRONLY | os.O_DIRECT)
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
    for i in range(N + 1):
        dm.run("load", "e%d" % i, *disk_table(i))
        dm.run("resume", "e%d" % i)


def try_create(words):
    try:
        dm.create(ARRAY, words)
        return True
    except OSError:
        return False


def check_blocks(forced):
    """Read every block; returns (wrong, eio) lists."""
    fd = os.open(node(ARRAY), os.O_RDONLY | os.O_DIRECT)
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
    if eio and not forced and not PPL:
        wrong += [(b, "EIO without force") for b in eio]
    return wrong, eio


def learn_inflight():
    """With every member back and in sync: what the writes in flight left."""
    fd = os.open(node(ARRAY), os.O_RDONLY | os.O_DIRECT)
    buf = aligned()
    for b in list(inflight):
        os.preadv(fd, [buf], b * BS)
        got = parse(buf)
        if not got or got[0] != b or \
           (got[1] != acked[b] and got[1] not in inflight[b]):
            raise SystemExit("block %d after the resync: %r (acked %d, in "
                             "flight %r)" % (b, got, acked[b], inflight[b]))
        acked[b] = got[1]
    os.close(fd)
    inflight.clear()


def point(k):
    t0 = time.time()
    threads = [threading.Thread(target=writer, args=(SEED * 100 + k * 20 + t,))
               for t in range(16)]
    crashed.clear()
    for t in threads:
        t.start()
    time.sleep(rng.uniform(0.3, 1.0))
    crash()
    # held writes (members failed) go on at the suspend, and fail
    dm.run("suspend", ARRAY)
    for t in threads:
        t.join()
    t1 = time.time()
    if errors:
        raise SystemExit("point %d: %s" % (k, errors[0]))
    dm.remove(ARRAY)
    restore()
    missing = k % N
    n_inflight = len(inflight)
    refused = not try_create(table(missing))
    forced = False
    if refused:
        if PPL:
            raise SystemExit("point %d: activation with PPL refused" % k)
        forced = True
        if not try_create(table(missing, force=True)):
            raise SystemExit("point %d: forced activation refused" % k)
    t2 = time.time()
    wrong, eio = check_blocks(forced)
    t3 = time.time()
    unsafe = int(ext(status_words(), 6))
    dm.remove(ARRAY)
    print("point %2d: member %d missing, %d writes in flight, %s, %d EIO "
          "(unsafe reads %d), %d wrong" %
          (k, missing, n_inflight,
           "refused then forced" if refused else "accepted", len(eio),
           unsafe, len(wrong)))
    for w in wrong[:10]:
        print("   wrong:", w)
    if len(eio) != unsafe:
        wrong.append(("EIO count %d, unsafe reads %d" % (len(eio), unsafe),))
    # whole again: the crash's dirty regions resync; learn what landed
    if not try_create(table()):
        raise SystemExit("point %d: whole array refused" % k)
    t4 = time.time()
    wait_in_sync()
    learn_inflight()
    if os.environ.get("CRASH_TIMES"):
        print("   times: writes+crash %.1f, activation %.1f, check %.1f, "
              "whole %.1f, resync %.1f" % (t1 - t0, t2 - t1, t3 - t2, t4 - t3,
                                           time.time() - t4))
    return len(wrong), refused, len(eio)


def main():
    setup()
    # a fresh disk log (zeroed): the first activation resyncs everything
    if not try_create(table()):
        raise SystemExit("create refused")
    wait_in_sync()
    fill()
    set_delays()
    total_wrong = refusals = eios = 0
    for k in range(POINTS):
        w, r, e = point(k)
        total_wrong += w
        refusals += r
        eios += e
    dm.remove(ARRAY)
    print("%s%s: %d crash points, %d refused activations, %d EIO blocks, "
          "%d wrong blocks" % (TYPE, " with PPL" if PPL else "", POINTS,
                               refusals, eios, total_wrong))
    sys.exit(1 if total_wrong else 0)


if __name__ == "__main__":
    main()
