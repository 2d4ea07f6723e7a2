import CatModels
import CatPixels
import CatSupport
import Dispatch

/// A cat the detector found: its whole box, its face when the cascades found one inside
/// the box, and where its head most likely is, all in the picture's pixels.
public struct FoundCat: Equatable, Sendable {
    public var box: ScoredRegion
    public var face: CatFace?
    /// Its face, else the part of its box where the head is (`CatFinder.head`).
    public var head: ScoredRegion

    public init(box: ScoredRegion, face: CatFace?, head: ScoredRegion) {
        (self.box, self.face, self.head) = (box, face, head)
    }
}

/// What CatFaces sees in a picture: the cats (`CatDetector`) and the cats' faces
/// (`CatFaceDetector`), in its pixels, the most certain first.
public struct CatFinding: Equatable, Sendable {
    public var cats: [FoundCat]
    public var faces: [CatFace]

    public init(cats: [FoundCat], faces: [CatFace]) {
        (self.cats, self.faces) = (cats, faces)
    }

    /// What a crop keeps in view: the faces when there are any, else each cat's head.
    public var inView: [ScoredRegion] { faces.isEmpty ? cats.map(\.head) : faces }

    /// What a caption keeps clear of: every face, and the head of every cat without one.
    public var clearOf: [ScoredRegion] { faces + cats.filter { $0.face == nil }.map(\.head) }

    /// The same finding in a `width` x `height` picture, found in one `from` large: each
    /// axis scaled by its own ratio, every region kept inside the picture.
    public func scaled(from: (width: Int, height: Int), to width: Int, _ height: Int) -> CatFinding {
        let fx = Double(width) / Double(max(1, from.width)), fy = Double(height) / Double(max(1, from.height))
        func s(_ r: ScoredRegion) -> ScoredRegion { r.scaled(x: fx, y: fy, within: width, height: height) }
        return CatFinding(
            cats: cats.map { FoundCat(box: s($0.box), face: $0.face.map(s), head: s($0.head)) }, faces: faces.map(s))
    }
}

public enum CatFinder {
    /// The long side of the copy `find` reads best: the detector's larger pass
    /// (`CatDetector.passes`); the cascades read a copy `CatFaceDetector.side` long made from it.
    public static var side: Int { CatDetector.passes.max() ?? 480 }

    /// Reads the installed network and the built-in cascades on a thread of their own (some 8 ms), so that
    /// a caller who will soon look for cats has them ready by the time its picture is
    /// decoded. `find` waits for them if they are not.
    public static func prepare() {
        detachThread {
            _ = CatDetector.network
            _ = CatClassifier.network
            _ = Cascade.lbp
            _ = Cascade.haar
        }
    }

    /// The cats and faces in `picture` (best `side` long), in its pixels. The cascades read
    /// `small`, a copy of it at most `CatFaceDetector.side` long (box-filtered from the
    /// original is best: CatScenes' CatSubjects makes one), else one made here. Every cat box
    /// gets a second look (`CatClassifier`) on a crop of `detail`, a larger copy of the same
    /// picture, when there is one, else of `picture`: a box that is not a domestic cat is dropped.
    public static func find(in picture: PixelBuffer, small: PixelBuffer? = nil, detail: PixelBuffer? = nil)
        -> CatFinding
    {
        // Two threads, each with no waits: the larger pass on one, the smaller pass and the
        // cascades (about as long together) on the other.
        enum Found {
            case cats([CatDetector.Candidate])
            case catsAndFaces([CatDetector.Candidate], [CatFace])
        }
        let passes = CatDetector.passes.sorted()
        let found = concurrentMap(2, threads: 2) { worker -> Found in
            if worker == 0 { return .cats(CatDetector.candidates(in: picture, long: side, threads: 1)) }
            var cats: [CatDetector.Candidate] = []
            for long in passes.dropLast() {
                cats += CatDetector.candidates(in: picture, long: long, threads: 1)
            }
            let fit = picture.fittingSize(maxWidth: CatFaceDetector.side, maxHeight: CatFaceDetector.side)
            let grey = small.map { GreyImage($0) } ?? GreyImage(picture).resized(width: fit.0, height: fit.1)
            let (fx, fy) = (
                Double(picture.width) / Double(grey.width), Double(picture.height) / Double(grey.height)
            )
            return .catsAndFaces(
                cats,
                CatFaceDetector.faces(in: grey).map {
                    $0.scaled(x: fx, y: fy, within: picture.width, height: picture.height)
                })
        }
        guard case let .cats(large) = found[0], case let .catsAndFaces(smaller, faces) = found[1] else {
            preconditionFailure("worker 0 finds the large pass's cats, worker 1 the rest")
        }
        var boxes = CatClassifier.domesticCats(
            CatDetector.boxes(large + smaller, in: picture), in: picture, detail: detail)
        // When none is left, a third pass at a larger input (from `detail`, which has the
        // pixels for it), its boxes looked at too: only with the second look, which keeps
        // the larger pass's look-alikes out.
        if boxes.isEmpty, CatClassifier.network != nil {
            let third = CatDetector.candidates(
                in: detail ?? picture, long: CatDetector.thirdPass, threads: CPUs.available)
            boxes = CatClassifier.domesticCats(CatDetector.boxes(third, in: picture), in: picture, detail: detail)
        }
        // Each face is the face of the smallest box its centre is in; a cat's face is the
        // most certain of its faces.
        func owner(_ face: CatFace) -> Int? {
            boxes.indices.filter { boxes[$0].contains(x: face.x + face.width / 2, y: face.y + face.height / 2) }
                .min { boxes[$0].width * boxes[$0].height < boxes[$1].width * boxes[$1].height }
        }
        let owners = faces.map(owner)
        let cats = boxes.indices.map { i in
            let face = zip(faces, owners).first { $0.1 == i }?.0
            return FoundCat(box: boxes[i], face: face, head: face ?? head(of: boxes[i], in: picture))
        }
        return CatFinding(cats: cats, faces: faces)
    }

    /// Where a cat's head most likely is when no face was found. Measured on the marked
    /// photos of Tests/Fixtures/cats (the marked face's centre against catctl's boxes):
    /// - in a box not much wider than tall (a cat sitting, standing or facing the camera),
    ///   the face is in the upper half, across its middle: the head is the middle half of
    ///   the upper half;
    /// - in a wider box (lying or walking) it is at either end, as often one as the other,
    ///   and as often low as high. The end is told by the cascades at their most relaxed
    ///   (`sideOfHead`): the head is that end, a square as wide as the box is high; when
    ///   they cannot tell, the whole box (a crop too narrow for it is centred on it).
    static func head(of box: ScoredRegion, in picture: PixelBuffer) -> ScoredRegion {
        var head = box
        if box.width <= box.height * 13 / 10 {
            head.height = max(1, box.height / 2)
            head.width = max(1, box.width / 2)
            head.x = box.x + (box.width - head.width) / 2
            return head
        }
        guard let left = sideOfHead(box, in: picture) else { return head }
        head.width = box.height
        if !left { head.x = box.x + box.width - head.width }
        return head
    }

    /// Whether a lying cat's head is in the left half of its box (true), the right (false),
    /// or cannot be told (nil): where the cascades' raw windows (every window all stages
    /// accept, before grouping: OpenCV's minNeighbors 0) fall, on an equalised grey copy of
    /// the box 160 px high. Measured with OpenCV's cascades on catctl's wide boxes that hold
    /// a marked face the cascades did not find: the side with more windows was the face's
    /// in 12 of 15, the other in 2, and 1 had as many on both sides (an edge measure
    /// instead: 9 right, 6 wrong).
    static func sideOfHead(_ box: ScoredRegion, in picture: PixelBuffer) -> Bool? {
        let x = max(0, box.x), y = max(0, box.y)
        let w = min(box.width, picture.width - x), h = min(box.height, picture.height - y)
        guard w >= 2, h >= 2 else { return nil }
        let high = 160, wide = max(1, Int((Double(w) * 160 / Double(h)).rounded()))
        guard wide <= 8 * high else { return nil }
        let crop = GreyImage(PixelBuffer(viewing: picture, x: x, y: y, width: w, height: h))
            .resized(width: wide, height: high).equalized()
        let windows = Cascade.windows([.lbp, .haar], in: crop, scaleFactor: 1.1, minSize: 20, maxSize: 0)
            .joined()
        let onLeft = windows.filter { 2 * $0.x + $0.width < wide }.count
        let onRight = windows.count - onLeft
        return onLeft == onRight ? nil : onLeft > onRight
    }
}

extension ScoredRegion {
    /// (x, y) is inside this region.
    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < x + width && py >= y && py < y + height
    }
}
