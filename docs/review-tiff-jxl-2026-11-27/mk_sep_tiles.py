# Finding T3: separate planes multiply the tile buffers: the tile-size bound is checked per
# plane. CMYK + alpha, 16-bit, PlanarConfig 2, one tile 2W x 2H per plane (5 planes).
# usage: mk_sep_tiles.py W H TW TH OUT
import sys, zlib; sys.path.insert(0, '/tmp/review'); from tiffgen import build
W, H, TW, TH = map(int, sys.argv[1:5]); out = sys.argv[5]
SPP, BPS = 5, 16
blob = zlib.compress(b'\0' * (TW*TH*BPS//8), 9)
per_plane = ((W+TW-1)//TW) * ((H+TH-1)//TH)
n = per_plane * SPP
e = [(256,4,[W]),(257,4,[H]),(258,3,[BPS]),(259,3,[8]),(262,3,[5]),(277,3,[SPP]),(284,3,[2]),
     (338,3,[2]),(322,4,[TW]),(323,4,[TH]),(324,4,[8]*n),(325,4,[len(blob)]*n)]
open(out,'wb').write(build(e, blob))
print(out, 'tile bytes per plane', TW*TH*BPS//8, 'planes', SPP)
