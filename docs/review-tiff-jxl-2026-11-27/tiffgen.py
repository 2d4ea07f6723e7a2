import struct, zlib
TYPES = {1:('B',1),2:('s',1),3:('H',2),4:('I',4),7:('B',1),16:('Q',8)}
def build(entries, prefix=b'', be=False):
    """Classic TIFF. `prefix` is placed at offset 8 (its offset is 8); IFD follows;
    out-of-line values after the IFD. entries: (tag, type, list-of-ints | bytes)."""
    E = '>' if be else '<'
    entries = sorted(entries, key=lambda e: e[0])
    if len(prefix) & 1: prefix += b'\0'
    ifd_off = 8 + len(prefix)
    hdr = (b'MM\x00*' if be else b'II*\x00') + struct.pack(E+'I', ifd_off)
    n = len(entries)
    data_off = ifd_off + 2 + 12*n + 4
    extra = b''; ents = b''
    for tag, typ, vals in entries:
        if isinstance(vals, (bytes, bytearray)):
            raw = bytes(vals); count = len(raw) // TYPES[typ][1]
        else:
            fmt, sz = TYPES[typ]
            raw = struct.pack(E+'%d%s' % (len(vals), fmt), *vals); count = len(vals)
        if len(raw) <= 4:
            ents += struct.pack(E+'HHI', tag, typ, count) + raw.ljust(4, b'\0')
        else:
            off = data_off + len(extra)
            ents += struct.pack(E+'HHII', tag, typ, count, off)
            extra += raw + (b'\0' if len(raw) & 1 else b'')
    return hdr + prefix + struct.pack(E+'H', n) + ents + struct.pack(E+'I', 0) + extra
