# Finding J2 fixture, step 2: turns every frame but the last of a codestream made by
# mk_jxl_layers (identical 1x1 layers, each FRAME bytes long, the first at FIRST) from
# kRegularFrame into kSkipProgressive: FrameHeader bits 1-2 (frame_type selector, LSB first)
# 00 -> 11. Same bit length, so the rest of the stream is unchanged.
# usage: flip_skip_progressive.py IN OUT
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
assert d[:2] == b'\xff\x0a'
# find the period: the first frame starts at 6 for these headers; its bytes repeat
first = 6
for size in range(4, 200):
    if d[first:first+size] == d[first+size:first+2*size]: break
else: raise SystemExit('no repeating frame found')
starts = list(range(first, len(d), size))
# all but the final frame (which differs: is_last) must match the first frame's bytes
frames = [s for s in starts if d[s:s+size] == d[first:first+size]]
for s in frames:
    assert d[s] & 0x07 == 0, hex(d[s])     # all_default 0, frame_type Regular
    d[s] |= 0x06                            # frame_type kSkipProgressive
open(sys.argv[2], 'wb').write(d)
print(sys.argv[2], 'frame size', size, 'flipped', len(frames), 'of', len(starts))
