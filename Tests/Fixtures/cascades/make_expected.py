#!/usr/bin/python3
"""The boxes OpenCV gives, for CatFacesTests: our cascade evaluator must give the same.

For a few photos of Tests/Fixtures/cats, it writes the grey picture the cascades read (the
photo shrunk to at most SIDE px by INTER_AREA, BT.601 grey, equalised) as a PNG, and the
boxes of cv2.CascadeClassifier.detectMultiScale for catctl's two built-in cascades
(Sources/CCatDetectors) with several parameter sets, minNeighbors 0 among them (the raw
windows, before grouping), into expected.json. Run with Debian's python3-opencv (4.6):

  /usr/bin/python3 Tests/Fixtures/cascades/make_expected.py
"""
import json
import os

import cv2

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
CASCADES = {
    "lbp": os.path.join(ROOT, "Sources", "CCatDetectors", "lbpcascade_frontalcatface.xml"),
    "haar": os.path.join(ROOT, "Sources", "CCatDetectors", "haarcascade_frontalcatface.xml"),
}
PHOTOS = {  # photo: the long side of its grey copy
    "01-sol-nascente-siamese.jpg": 384,
    "04-tabby-white-closeup.jpg": 384,
    "05-persian-behind-mesh.jpg": 301,
    "10-ocicat-sitting.jpg": 384,
    "02-orange-white-lying.jpg": 257,
}
PARAMETERS = [  # scaleFactor, minNeighbors, minSize, maxSize
    (1.1, 3, 24, 0),
    (1.1, 0, 24, 0),
    (1.25, 1, 30, 200),
    (1.05, 5, 0, 0),
]

assert cv2.__version__.startswith("4.6"), "make the boxes with Debian's python3-opencv 4.6"
cascades = {name: cv2.CascadeClassifier(path) for name, path in CASCADES.items()}
expected = []
for photo, side in PHOTOS.items():
    image = cv2.imread(os.path.join(ROOT, "Tests", "Fixtures", "cats", photo))
    h, w = image.shape[:2]
    k = side / max(w, h)
    small = cv2.resize(image, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA)
    grey = cv2.equalizeHist(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))
    name = os.path.splitext(photo)[0] + ".grey.png"
    cv2.imwrite(os.path.join(HERE, name), grey)
    for cascade, classifier in cascades.items():
        for scale, neighbours, smallest, largest in PARAMETERS:
            boxes = classifier.detectMultiScale(grey, scaleFactor=scale, minNeighbors=neighbours,
                                                minSize=(smallest, smallest), maxSize=(largest, largest))
            expected.append({"picture": name, "cascade": cascade, "scaleFactor": scale, "minNeighbours": neighbours,
                             "minSize": smallest, "maxSize": largest,
                             "boxes": sorted([int(v) for v in box] for box in boxes)})
with open(os.path.join(HERE, "expected.json"), "w") as out:
    json.dump({"opencv": cv2.__version__, "cases": expected}, out, indent=0)
print(len(expected), "cases,", sum(len(c["boxes"]) for c in expected), "boxes")
