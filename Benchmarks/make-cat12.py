"""The 12 MP test cat of the benchmarks: Chelsea (CC0, Tests/Fixtures/photos/chelsea.png)
upscaled to 4032x3024 with a little grain (seed SEED, default 7), 4:2:0, quality 92.
Usage: python3 Benchmarks/make-cat12.py OUT.jpg [SEED]"""
import sys

import numpy as np
from PIL import Image

seed = int(sys.argv[2]) if len(sys.argv) > 2 else 7
im = Image.open("Tests/Fixtures/photos/chelsea.png").convert("RGB").resize((4032, 3024), Image.LANCZOS)
a = np.asarray(im).astype(np.int16) + np.random.default_rng(seed).normal(0, 4, (3024, 4032, 3)).round().astype(np.int16)
Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).save(sys.argv[1], quality=92, subsampling=2)
