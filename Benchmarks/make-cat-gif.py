"""The animated test cat of the live editor's benchmark: Chelsea (CC0, Resources/cats/
chelsea.jpg, 451x300) in 50 frames, each moved a little and its hue turned a little further
(a GIF of 256 colours a frame, as Pillow quantizes it), DELAY ms a frame (default 50), looping.
Usage: python3 Benchmarks/make-cat-gif.py OUT.gif [DELAY]"""
import sys

from PIL import Image, ImageChops

delay = int(sys.argv[2]) if len(sys.argv) > 2 else 50
cat = Image.open("Resources/cats/chelsea.jpg").convert("RGB")
frames = []
for i in range(50):
    shifted = ImageChops.offset(cat, (i * 3) % 40 - 20, (i * 2) % 20 - 10)
    h, s, v = shifted.convert("HSV").split()
    h = h.point(lambda x, i=i: (x + i * 5) % 256)
    frames.append(Image.merge("HSV", (h, s, v)).convert("RGB"))
frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], duration=delay, loop=0)
