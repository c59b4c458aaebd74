#!/usr/bin/env python3
"""Watch a raid45 device's in-sync region count through the status ioctl
(every 20 ms; a dmsetup exec costs 0.1-0.2 s in a TCG guest) and print
"<unix time, seconds> <in_sync>/<regions>" whenever it changes, until
killed.

    sync-watch.py NAME NR_MEMBERS
"""
import fcntl
import os
import struct
import sys
import time

DM_IOCTL = 0xFD
HDR = struct.Struct("=3I I I I i I I I Q 128s 129s 7s")  # struct dm_ioctl
SPEC = struct.Struct("=Q Q i I 16s")  # struct dm_target_spec
STATUS = 12  # DM_TABLE_STATUS_CMD


def status(ctl, name):
    size = HDR.size + 16384
    hdr = HDR.pack(4, 0, 0, size, HDR.size, 0, 0, 0, 0, 0, 0,
                   name.encode(), b"", b"")
    buf = bytearray(hdr + bytes(size - HDR.size))
    fcntl.ioctl(ctl, (3 << 30) | (HDR.size << 16) | (DM_IOCTL << 8) | STATUS,
                buf)
    # the reply: a dm_target_spec, then the status text
    text = bytes(buf[HDR.size + SPEC.size:])
    return text[:text.index(0)].decode(errors="replace")


def main():
    name, members = sys.argv[1], int(sys.argv[2])
    last = None
    ctl = os.open("/dev/mapper/control", os.O_RDWR)
    while True:
        text = status(ctl, name)
        words = text.split()
        if len(words) <= members + 3 or "/" not in words[members + 3]:
            print("sync-watch: unexpected status %r" % text, file=sys.stderr)
            time.sleep(0.2)
            continue
        sc = words[members + 3]
        if sc != last:
            print("%.3f %s" % (time.time(), sc), flush=True)
            last = sc
        time.sleep(0.02)


main()
