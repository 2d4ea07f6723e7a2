import CatPixels
import CatSupport
import Dispatch

/// A cat's face: its box in the picture's pixels and how sure the detector is (0-1).
public typealias CatFace = ScoredRegion

/// Finds cats' faces with two of OpenCV's cat-face cascades (LBP and Haar, by Joseph Howse)
/// run by our own evaluator (`Cascade`), on an equalised grey copy at most `side` pixels long.
///
/// Chosen by measuring on the 50 hand-marked photos of Tests/Fixtures/cats (49 faces; a box
/// counts when its IoU with a mark is at least 0.3), OpenCV 4.6 for the first rows:
/// - the three cascades on the full photos find 0.39 of the faces at precision 0.42: their
///   24 px window over-fires on fur at full size. On a copy 384 px long: 0.47 at 0.96
///   (512 px: 0.49 at 0.83; 256 px: 0.41 at 1.0);
/// - LBP and Haar alone find as many at 384 px, at precision 1.0; the extended Haar cascade
///   (tilted features) adds nothing there;
/// - what did not help: minNeighbours 2 (0.53 at 0.84), rotated copies at ±20° (0.53 at
///   0.84; more angles, up to 90°, 0.57 at 0.40), scale factor 1.05 (0.49 at 0.86), no
///   equalisation (0.49 at 0.92), a mirrored copy (2 more faces, 2 false), a second copy
///   768 px long for small faces (1 more, 4 times the work);
/// - with this evaluator, 320 px finds the same 23 faces as 384 px (one false box) in 0.7
///   of the time; 288 px finds 19, 256 px 16.
/// The cascades see frontal faces; cats in profile, asleep or small are mostly missed.
public enum CatFaceDetector {
    /// The long side of the copy the cascades read.
    public static let side = 320
    public static let scaleFactor = 1.1
    public static let minNeighbours = 3

    /// The cats' faces in `picture` (best at most `side` pixels long), in its pixels, the
    /// most certain first.
    public static func faces(in picture: GreyImage) -> [CatFace] {
        let grey = picture.equalized()
        let raw = Cascade.windows([.lbp, .haar], in: grey, scaleFactor: scaleFactor, minSize: 24, maxSize: 0)
        var faces: [CatFace] = []
        for raw in raw {
            for box in Cascade.group(raw, threshold: minNeighbours, eps: 0.2) {
                // More confirming windows, more certainty: n / (n + minNeighbours).
                let score = Double(box.neighbours) / Double(box.neighbours + minNeighbours)
                faces.append(CatFace(x: box.x, y: box.y, width: box.width, height: box.height, score: score))
            }
        }
        // One box a face: the more certain of two that overlap.
        var kept: [CatFace] = []
        for face in faces.sorted(by: { $0.score > $1.score }) where !kept.contains(where: { $0.overlap(face) >= 0.3 }) {
            kept.append(face)
        }
        return kept
    }
}
