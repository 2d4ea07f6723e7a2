# Finding T1: tiles far larger than the image along one axis are decoded whole: a 1-pixel-wide
# (or 1-row) image with 1024-wide tiles decodes 1024x the pixels it shows. Every tile entry
# points at the same compressed blob (repeated reference), so the file stays small.
# usage: mk_tile_amp.py W H TW TH SPP BPS PREDICTOR OUT
import sys, zlib; sys.path.insert(0, '/tmp/review'); from tiffgen import build
W, H, TW, TH, SPP, BPS, PRED = map(int, sys.argv[1:8]); out = sys.argv[8]
blob = zlib.compress(b'\0' * (TW*TH*SPP*BPS//8), 9)
ntiles = ((W + TW - 1) // TW) * ((H + TH - 1) // TH)
e = [(256,4,[W]),(257,4,[H]),(258,3,[BPS]*SPP),(259,3,[8]),(262,3,[2]),(277,3,[SPP]),
     (322,4,[TW]),(323,4,[TH]),(324,4,[8]*ntiles),(325,4,[len(blob)]*ntiles)]
if SPP > 3: e.append((338,3,[2] + [0]*(SPP-4)))
if PRED != 1: e.append((317,3,[PRED]))
open(out,'wb').write(build(e, blob))
print(out, 'tiles', ntiles, 'decoded bytes', ntiles*TW*TH*SPP*BPS//8, 'pixels', W*H)
