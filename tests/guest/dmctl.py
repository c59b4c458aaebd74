#!/usr/bin/env python3
"""Device-mapper ioctls from one process, for loops of thousands of
commands (one dmsetup exec costs tens of milliseconds in a TCG guest).

Reads commands from stdin, one per line, and prints one result line per
command: "ok" or "err <errno-name>".

    create NAME START LEN TARGET PARAMS...   device + table + resume;
                                             on error the device is removed
    load NAME START LEN TARGET PARAMS...     inactive table
    suspend NAME | suspend-noflush NAME | resume NAME | remove NAME
    suspend-alarm NAME SECONDS               suspend, interrupted by a signal
                                             after SECONDS ("err EINTR")
    message NAME SECTOR WORDS...
    exists NAME                              "ok" if the device exists
    sleep SECONDS
    nth N COMMAND...                         COMMAND with the N-th fault
                                             check of this thread, counted
                                             from its first ioctl, failing
                                             (/proc/thread-self/fail-nth, a
                                             fault-injection kernel; failslab
                                             and fail_page_alloc set up by the
                                             caller); the result line ends in
                                             "fired" or "unfired" (COMMAND
                                             made fewer than N checks)
"""
import errno
import fcntl
import os
import signal
import struct
import sys
import time

DM_IOCTL = 0xFD
HDR = struct.Struct("=3I I I I i I I I Q 128s 129s 7s")  # struct dm_ioctl
SPEC = struct.Struct("=Q Q i I 16s")  # struct dm_target_spec
CMD = {"remove": 4, "suspend": 6, "status": 7, "load": 9, "message": 14,
       "create": 3}
SUSPEND_FLAG = 1 << 1
NOFLUSH_FLAG = 1 << 11


def ioc(nr):
    return (3 << 30) | (HDR.size << 16) | (DM_IOCTL << 8) | nr


# "nth": the fault armed for the next ioctl, set right before it (so that
# nothing the interpreter does in between uses up the count)
ARM = [None]


def call(ctl, cmd, name, flags=0, payload=b"", targets=0):
    size = HDR.size + len(payload) + 16384  # room for replies
    hdr = HDR.pack(4, 0, 0, size, HDR.size, targets, 0, flags, 0, 0, 0,
                   name.encode(), b"", b"")
    buf = bytearray(hdr + payload + bytes(size - HDR.size - len(payload)))
    if ARM[0] is not None:
        set_fail_nth(ARM[0])
        ARM[0] = None
    fcntl.ioctl(ctl, ioc(CMD[cmd]), buf)


def table_payload(words):
    start, length, target = int(words[0]), int(words[1]), words[2]
    params = " ".join(words[3:]).encode() + b"\0"
    params += bytes(-(SPEC.size + len(params)) % 8)
    return SPEC.pack(start, length, 0, 0, target.encode()) + params


def run(ctl, words):
    op, name, rest = words[0], words[1], words[2:]
    if op == "sleep":
        time.sleep(float(name))
    elif op == "create":
        call(ctl, "create", name)
        try:
            call(ctl, "load", name, payload=table_payload(rest), targets=1)
            call(ctl, "suspend", name)
        except OSError:
            call(ctl, "remove", name)
            raise
    elif op == "load":
        call(ctl, "load", name, payload=table_payload(rest), targets=1)
    elif op == "suspend":
        call(ctl, "suspend", name, SUSPEND_FLAG)
    elif op == "suspend-noflush":
        call(ctl, "suspend", name, SUSPEND_FLAG | NOFLUSH_FLAG)
    elif op == "suspend-alarm":
        def interrupt(signum, frame):
            raise InterruptedError(errno.EINTR, "suspend interrupted")
        old = signal.signal(signal.SIGALRM, interrupt)
        signal.setitimer(signal.ITIMER_REAL, float(rest[0]))
        try:
            call(ctl, "suspend", name, SUSPEND_FLAG)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    elif op == "resume":
        call(ctl, "suspend", name)
    elif op == "remove":
        call(ctl, "remove", name)
    elif op == "message":
        msg = struct.pack("=Q", int(rest[0])) + " ".join(rest[1:]).encode()
        call(ctl, "message", name, payload=msg + b"\0")
    elif op == "exists":
        call(ctl, "status", name)
    else:
        raise OSError(errno.EINVAL, "unknown command " + op)


# Opened once: an open() while a fault is armed would count (and could
# take) one of the checks; reading and writing it allocate nothing.
NTH_FD = None


def set_fail_nth(n):
    global NTH_FD
    if NTH_FD is None:
        NTH_FD = os.open("/proc/thread-self/fail-nth", os.O_RDWR)
    os.pwrite(NTH_FD, str(n).encode(), 0)


def fired():
    """Whether the armed fault was injected; disarm it either way."""
    left = int(os.pread(NTH_FD, 32, 0))
    if left:
        set_fail_nth(0)
    return left == 0


def main():
    ctl = os.open("/dev/mapper/control", os.O_RDWR)
    for line in sys.stdin:
        words = line.split()
        if len(words) < 2:
            continue
        nth = None
        if words[0] == "nth":
            nth, words = int(words[1]), words[2:]
        result, result_fired = "ok", False
        try:
            if nth is not None:
                set_fail_nth(0)     # opens the file now, not while armed
                ARM[0] = nth
            try:
                run(ctl, words)
            finally:
                if nth is not None:
                    ARM[0] = None
                    result_fired = fired()
        except (OSError, ValueError, IndexError, struct.error,
                MemoryError) as e:
            code = getattr(e, "errno", None)
            result = "err " + errno.errorcode.get(code, "EINVAL")
        if nth is not None:
            result += " fired" if result_fired else " unfired"
        print(result, flush=True)


if __name__ == "__main__":
    main()
