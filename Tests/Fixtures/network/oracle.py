#!/usr/bin/python3
"""OpenCV's dnn as the oracle of catctl's cat detector (CatFacesTests/CatDetectorTests).

Usage: oracle.py CFG WEIGHTS THRESHOLD INPUT.png...  (run by Debian's /usr/bin/python3 with
python3-opencv 4.6: cv2.dnn.readNetFromDarknet). Each INPUT is the network's input as catctl
made it (320 x 320 RGB); it goes in unchanged (scale 1/255, no resize, no mean). Prints one
JSON line an input: {"input", "cats": [{"x", "y", "width", "height", "score"}]}, the boxes
in the input's 0-1 coordinates (centre and size), for COCO's class 15 (cat) at a score of
at least THRESHOLD, after cv2.dnn.NMSBoxes at 0.45, the most certain first.
"""
import json
import sys

import cv2
import numpy as np

cfg, weights, threshold = sys.argv[1], sys.argv[2], float(sys.argv[3])
net = cv2.dnn.readNetFromDarknet(cfg, weights)
net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
names = net.getUnconnectedOutLayersNames()
for path in sys.argv[4:]:
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    blob = cv2.dnn.blobFromImage(image, 1 / 255.0, (image.shape[1], image.shape[0]), swapRB=True, crop=False)
    net.setInput(blob)
    boxes, scores = [], []
    for out in net.forward(names):
        for row in out:
            score = float(row[5 + 15])
            if score >= threshold:
                boxes.append([float(row[0]), float(row[1]), float(row[2]), float(row[3])])
                scores.append(score)
    # NMSBoxes takes (left, top, width, height).
    corners = [[b[0] - b[2] / 2, b[1] - b[3] / 2, b[2], b[3]] for b in boxes]
    keep = cv2.dnn.NMSBoxes(corners, scores, threshold, 0.45) if boxes else []
    keep = sorted((int(i) for i in np.array(keep).flatten()), key=lambda i: -scores[i])
    print(json.dumps({"input": path, "cats": [
        {"x": boxes[i][0], "y": boxes[i][1], "width": boxes[i][2], "height": boxes[i][3], "score": scores[i]}
        for i in keep]}))
