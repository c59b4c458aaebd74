#!/usr/bin/python3
"""ppl-forge.py DEV AREA SIG DATA_SECTOR PP_SIZE DATA_SIZE PARITY PP_FILE

The log of a crash, made by hand (89-ppl, issue 31 finding 7): one md
format PPL header with one entry at sector AREA of DEV (the parity
member's area), its partial parity (PP_SIZE bytes of PP_FILE) after it,
the next header's place zeroed.  The header's generation is above the
one it replaces, so that it is the newest of the area's chain.  Fields
as md's struct ppl_header (include/uapi/linux/raid/md_p.h): 512 bytes of
0xff, signature, padding, generation, entries_count, checksum (~crc32c
of the header with the field zero), then entries of data_sector (array
sectors), pp_size, data_size (bytes), parity_disk, checksum (~crc32c of
the partial parity).
"""
import mmap
import os
import struct
import sys

HEADER = 4096
RESERVED = 512


def crc32c(data):
    """CRC-32C (Castagnoli), as ~crc32c(~0, data) in the kernel."""
    table = crc32c.table
    if table is None:
        table = []
        for n in range(256):
            c = n
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            table.append(c)
        crc32c.table = table
    c = 0xFFFFFFFF
    for b in data:
        c = (c >> 8) ^ table[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


crc32c.table = None


def main():
    dev, area, sig, dsec, pp_size, data_size, parity, pp_file = sys.argv[1:9]
    area, sig = int(area), int(sig, 0)
    dsec, pp_size, data_size = int(dsec), int(pp_size), int(data_size)
    with open(pp_file, "rb") as f:
        pp = f.read(pp_size)
    if len(pp) != pp_size:
        sys.exit("ppl-forge: %s holds less than %d bytes" % (pp_file, pp_size))
    # O_DIRECT: the target wrote the area past the page cache
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    old = mmap.mmap(-1, HEADER)
    os.preadv(fd, [old], area * 512)
    gen = struct.unpack_from("<Q", old, RESERVED + 8)[0] + 1000
    entry = struct.pack("<QIIII", dsec, pp_size, data_size, int(parity),
                        crc32c(pp))
    h = bytearray(HEADER)
    h[:RESERVED] = b"\xff" * RESERVED
    struct.pack_into("<IIQII", h, RESERVED, sig, 0, gen, 1, 0)
    h[RESERVED + 24:RESERVED + 24 + len(entry)] = entry
    struct.pack_into("<I", h, RESERVED + 20, crc32c(bytes(h)))
    data = bytes(h) + pp + bytes(HEADER)
    out = mmap.mmap(-1, len(data))
    out[:] = data
    os.pwritev(fd, [out], area * 512)
    os.fsync(fd)
    os.close(fd)
    print("forged: generation %d, entry sector %d pp %d data %d parity %s"
          % (gen, dsec, pp_size, data_size, parity))


main()
