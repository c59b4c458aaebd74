#!/usr/bin/python3
"""grow-crash: the disk log's states during a growth, as a crash leaves them.

    grow-crash.py LOG OLD_LEN NEW_LEN REGION

LOG is the dm-log-writes log of the array's disk log device, with marks
"start" (the array in sync, before the growth's reload) and "end" (after
its resume).  dm-log-writes logs a write once it is durable, in that
order, so the log device's contents after each logged write from
"start" on are the states a crash during the growth can leave.  At
the first two with the new region count (dm-log's resume writes the
first, with the old regions' bits; the take-over's flush the second,
before the array takes any I/O), an activation with the new table
(NEW_LEN) must not find a region that reaches past the old end
(OLD_LEN) clean.  Later states may call them clean: the resync has
been there.  A header with the old count is of another geometry for
the new table: every region out of sync, safe (a growth that keeps the
count is the activation's matter: r45_trust_first_resume).  The state
at "start" must call the old last region clean (else the check proves
nothing), and a state with the new count must come.
"""
import os
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import logwrites  # noqa: E402
import struct  # noqa: E402

IMAGE = 1 << 20


def header_count(image):
    magic, _, nr = struct.unpack_from("<IIQ", image, 0)
    return nr if magic == logwrites.MIRROR_MAGIC else None


def main():
    path, old_len, new_len, region = sys.argv[1], *map(int, sys.argv[2:])
    old_n = -(-old_len // region)
    new_n = -(-new_len // region)
    added = [r for r in range(new_n) if (r + 1) * region > old_len]
    lg = logwrites.Log(path)
    if "start" not in lg.marks or "end" not in lg.marks:
        sys.exit("no start/end marks in %s" % path)
    image = bytearray(IMAGE)
    for e in lg.between(None, "start"):
        logwrites.overlay(image, e, lg.data(e))
    clean = logwrites.clean_regions(image, old_n)
    if header_count(image) != old_n or old_n - 1 not in clean:
        sys.exit("at start: count %s, old last region %d %s: nothing to check"
                 % (header_count(image), old_n - 1,
                    "clean" if old_n - 1 in clean else "dirty"))
    if old_n == new_n:
        sys.exit("the same region count: nothing for this check")
    seen = 0
    for i, e in enumerate(lg.between("start", "end")):
        logwrites.overlay(image, e, lg.data(e))
        if header_count(image) != new_n:
            continue
        seen += 1
        bad = [r for r in added if r in logwrites.clean_regions(image, new_n)]
        if bad:
            sys.exit("write %d after start, state %d with %d regions: added regions clean: %s"
                     % (i + 1, seen, new_n, bad[:8]))
        print("write %d after start, state %d with %d regions: the %d added regions dirty"
              % (i + 1, seen, new_n, len(added)))
        if seen == 2:
            return
    sys.exit("%d states with %d regions, not 2" % (seen, new_n))


if __name__ == "__main__":
    main()
