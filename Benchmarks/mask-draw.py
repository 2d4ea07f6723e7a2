#!/usr/bin/env python3
"""Draw a cat's mask by hand as polygons, and see what was drawn.

  python3 Benchmarks/mask-draw.py grid PHOTO OUT.png [X,Y,W,H] [--step N]
  python3 Benchmarks/mask-draw.py show PHOTO OUT.png [X,Y,W,H]
  python3 Benchmarks/mask-draw.py raster PHOTO OUT.png

The masks live in Tests/Fixtures/cats/masks/NAME.json (NAME is the photo's file name
without .jpg), in the photo's own pixels:

  {"file": "13-man-holding-cat.jpg", "width": 1205, "height": 1600,
   "cats": [[[x, y], [x, y], ...], ...],   # one outline per cat, or per visible part
   "holes": [[[x, y], ...], ...],          # cut out of the cats (a hand over the fur, a gap)
   "how": "..."}

How they are drawn: `grid` writes the photo (or the region X,Y,W,H of it), scaled to at most
1000 px, with a line every --step pixels (default: a tenth of the region's longer side,
rounded) labelled in the photo's pixels. The outline is read off the grid, point by point
along the fur's edge (whiskers left out, the tail in), a point every few grid cells and more
where the edge turns. `show` draws the polygons over the photo (the mask tinted, its
outline yellow, the points numbered) to check them against the fur, and zoomed regions are
then looked at edge by edge and the points moved until the outline sits on the edge. `raster`
writes the mask as a grey PNG (255 cat, 0 not), as Benchmarks/mask-compare.py reads it.
"""
import json
import os
import sys

from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
MASKS = os.path.join(os.path.dirname(HERE), "Tests", "Fixtures", "cats", "masks")


def mask_file(photo):
    return os.path.join(MASKS, os.path.splitext(os.path.basename(photo))[0] + ".json")


def load(photo):
    with open(mask_file(photo)) as f:
        return json.load(f)


def raster(spec, size):
    """The mask as an L image of `size`: the cats' polygons filled, the holes cleared."""
    mask = Image.new("L", size, 0)
    draw = ImageDraw.Draw(mask)
    for outline in spec.get("cats", []):
        draw.polygon([tuple(p) for p in outline], fill=255)
    for outline in spec.get("holes", []):
        draw.polygon([tuple(p) for p in outline], fill=0)
    return mask


def region(image, args):
    boxes = [a for a in args if a.count(",") == 3]
    if not boxes:
        return (0, 0, image.width, image.height)
    x, y, w, h = (int(v) for v in boxes[0].split(","))
    x, y = max(0, x), max(0, y)
    return (x, y, min(image.width, x + w), min(image.height, y + h))


def font():
    for path in ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
                 os.path.join(os.path.dirname(HERE), "Resources", "fonts", "DejaVuSans-Bold.ttf")):
        if os.path.exists(path):
            return ImageFont.truetype(path, 14)
    return ImageFont.load_default()


def framed(image, box, step):
    """The region `box` scaled to <= 1000 px with a labelled grid in the photo's pixels."""
    crop = image.crop(box)
    scale = min(1.0 if max(crop.size) <= 1000 else 1000 / max(crop.size), 4.0)
    if max(crop.size) < 500:
        scale = 1000 / max(crop.size)
    view = crop.resize((max(1, round(crop.width * scale)), max(1, round(crop.height * scale))), Image.LANCZOS)
    draw = ImageDraw.Draw(view, "RGBA")
    f = font()
    first_x = (box[0] + step - 1) // step * step
    first_y = (box[1] + step - 1) // step * step
    for x in range(first_x, box[2], step):
        vx = round((x - box[0]) * scale)
        draw.line([(vx, 0), (vx, view.height)], fill=(0, 255, 255, 110), width=1)
        draw.text((vx + 2, 2), str(x), fill=(255, 255, 0, 255), font=f, stroke_width=2, stroke_fill=(0, 0, 0, 255))
    for y in range(first_y, box[3], step):
        vy = round((y - box[1]) * scale)
        draw.line([(0, vy), (view.width, vy)], fill=(0, 255, 255, 110), width=1)
        draw.text((2, vy + 2), str(y), fill=(255, 255, 0, 255), font=f, stroke_width=2, stroke_fill=(0, 0, 0, 255))
    return view, scale


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[0] not in ("grid", "show", "raster"):
        raise SystemExit(__doc__)
    command, photo, out = args[0], args[1], args[2]
    image = Image.open(photo).convert("RGB")
    if command == "raster":
        raster(load(photo), image.size).save(out)
        return
    box = region(image, args[3:])
    longest = max(box[2] - box[0], box[3] - box[1])
    step = int(args[args.index("--step") + 1]) if "--step" in args else max(5, round(longest / 10 / 5) * 5)
    if command == "show":
        spec = load(photo)
        mask = raster(spec, image.size)
        tint = Image.new("RGB", image.size, (255, 0, 255))
        image = Image.composite(Image.blend(image, tint, 0.35), image, mask)
    view, scale = framed(image, box, step)
    if command == "show":
        draw = ImageDraw.Draw(view, "RGBA")
        f = font()
        for kind, colour in (("cats", (255, 255, 0, 255)), ("holes", (0, 255, 0, 255))):
            for outline in spec.get(kind, []):
                points = [((x - box[0]) * scale, (y - box[1]) * scale) for x, y in outline]
                draw.line(points + points[:1], fill=colour, width=2)
                for i, (x, y) in enumerate(points):
                    draw.ellipse([x - 3, y - 3, x + 3, y + 3], fill=colour)
                    draw.text((x + 4, y - 8), str(i), fill=colour, font=f, stroke_width=2, stroke_fill=(0, 0, 0, 255))
    view.save(out)


if __name__ == "__main__":
    main()
