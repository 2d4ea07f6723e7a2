# Finding T4: XMP (tag 700) / ICC (34675) over the 8 MiB metadata budget are carried into the
# output without a note. A 1x1 RGB image with a 20 MiB XMP packet.
import sys; sys.path.insert(0, '/tmp/review'); from tiffgen import build
N = int(sys.argv[1]) if len(sys.argv) > 1 else 20 << 20
xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/">' + b' ' * N + b'</x:xmpmeta>'
e = [(256,4,[1]),(257,4,[1]),(258,3,[8,8,8]),(259,3,[1]),(262,3,[2]),(277,3,[3]),(278,4,[1]),
     (273,4,[8]),(279,4,[3]),(700,1,xmp)]
open(sys.argv[2] if len(sys.argv) > 2 else '/tmp/review/big_xmp.tif','wb').write(build(e, b'\x10\x20\x30'))
