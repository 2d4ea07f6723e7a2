# Finding J3: a small valid first "Exif" box, then a second "Exif" box over the 8 MiB budget:
# the container scan marks EXIF as dropped, so the first box is never collected.
# usage: mk_two_exif.py CODESTREAM.jxl OUT.jxl [second_size]
import sys, struct
cs = open(sys.argv[1], 'rb').read(); assert cs[:2] == b'\xff\x0a'
big = int(sys.argv[3]) if len(sys.argv) > 3 else 9 << 20
def box(t, body): return struct.pack('>I', 8 + len(body)) + t + body
# TIFF: IFD0 with one entry, Artist = "first box"
art = b'first box\0'
tiff = b'II*\x00' + struct.pack('<I', 8) + struct.pack('<H', 1) + struct.pack('<HHII', 315, 2, len(art), 26) + struct.pack('<I', 0) + art
out = box(b'JXL ', b'\r\n\x87\n') + box(b'ftyp', b'jxl \0\0\0\0jxl ')
out += box(b'Exif', b'\0\0\0\0' + tiff)
out += box(b'Exif', b'\0\0\0\0' + b'II*\x00\x08\0\0\0' + b'\0' * big)
out += box(b'jxlc', cs)
open(sys.argv[2], 'wb').write(out)
