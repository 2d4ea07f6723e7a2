# JXL fixture: a bare codestream re-wrapped into the ISO BMFF container as N "jxlp" parts
# of `chunk` bytes each (index counts up; the last has the high bit set).
# usage: mk_jxlp_split.py IN.jxl CHUNK OUT.jxl
import sys, struct
cs = open(sys.argv[1], 'rb').read(); chunk = int(sys.argv[2])
assert cs[:2] == b'\xff\x0a'
def box(t, body): return struct.pack('>I', 8 + len(body)) + t + body
out = box(b'JXL ', b'\r\n\x87\n') + box(b'ftyp', b'jxl \0\0\0\0jxl ')
parts = [cs[i:i+chunk] for i in range(0, len(cs), chunk)]
for i, p in enumerate(parts):
    idx = i | (0x80000000 if i == len(parts) - 1 else 0)
    out += box(b'jxlp', struct.pack('>I', idx) + p)
open(sys.argv[3], 'wb').write(out)
print(sys.argv[3], len(parts), 'parts')
