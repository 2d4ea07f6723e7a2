import CatFaces
import CatImageIO
import CatModels
import CatPixels
import CatSupport
import FilterCore

/// CatFaces' cat detector and cat-face cascades (`CatFinder`) as the filter core's subject
/// finder: the `cat` gravity keeps the faces in view, else the cats' heads; captions keep
/// clear of both. Every chain a scene builds is handed it.
public struct CatSubjects: SubjectFinder {
    /// `--require-cat`: a cat filter that finds no cat fails (65) instead of passing.
    public let requiresCat: Bool

    public init(requireCat: Bool = false) { requiresCat = requireCat }

    public var side: Int { CatFinder.side }

    /// Why cats cannot be found, only faces (the network's files missing or refused), or nil.
    public static var unavailable: String? { CatDetector.unavailable }

    /// Why the cat boxes cannot get their second look (the classifier's files missing or
    /// refused: every box is kept), or nil.
    public static var secondLookUnavailable: String? { CatClassifier.unavailable }

    /// What an edit that looks for cats is told when it cannot fully (a broken install):
    /// nothing when both networks read.
    public static var brokenInstallNotes: [String] {
        if let why = unavailable { return ["\(why); the cat gravity and captions see faces only"] }
        if let why = secondLookUnavailable { return ["\(why); every cat box is kept unchecked"] }
        return []
    }

    public func subjects(inCopy image: PixelBuffer) -> Subjects { subjects(in: image) }

    public func subjects(in image: PixelBuffer) -> Subjects {
        let finding = Self.find(in: image)
        return Subjects(inView: finding.inView, clearOf: finding.clearOf)
    }

    /// The mask of the cats `find` sees (`CatSegmenter`, on `image` itself); nil when the
    /// mask network cannot be read.
    public func catMask(in image: PixelBuffer) -> SubjectMask? { Self.mask(in: image) }

    public static func mask(in image: PixelBuffer) -> SubjectMask? { masked(in: image).map { SubjectMask($0.mask) } }

    /// The cats `find` sees in `image` and their mask (`CatSegmenter`, on `image` itself; all
    /// black when there is none): what the cat filters use, and `detect --mask` writes and
    /// reports. nil when the mask network cannot be read.
    public static func masked(in image: PixelBuffer) -> (found: CatFinding, mask: CatMask)? {
        guard CatSegmenter.unavailable == nil else { return nil }
        let found = find(in: image)
        return CatSegmenter.mask(found.cats.map(\.box), in: image).map { (found, $0) }
    }

    /// The cats and faces in `image`, in its pixels (what detect reports and the live editor
    /// outlines): the detector reads a copy at most `CatFinder.side` long, the cascades one
    /// at most `CatFaceDetector.side` long, both box-filtered from `image`; the second look
    /// crops `image` itself (a small cat is upsampled in the detector's copy).
    public static func find(in image: PixelBuffer) -> CatFinding {
        let picture = image.shrunk(toFit: CatFinder.side)
        // The cascades' copy: halved while still twice their side, then box-filtered to it,
        // as a JPEG decoded at a DCT scale for them alone was: the cascades find more faces,
        // as surely, on a copy made so than on one box-filtered in one step (on
        // Tests/Fixtures/cats: 28 against 24 of 71 faces, at precision 0.90 and 0.92).
        var halved = image
        while max(halved.width, halved.height) / 2 >= CatFaceDetector.side,
            let half = try? halved.resampled(
                width: (halved.width + 1) / 2, height: (halved.height + 1) / 2, filter: .box, threads: 1)
        {
            halved = half
        }
        return CatFinder.find(
            in: picture, small: halved.shrunk(toFit: CatFaceDetector.side), detail: image
        )
        .scaled(from: (picture.width, picture.height), to: image.width, image.height)
    }
}

extension SubjectMask {
    /// The cat filters' mask of the segmenter's.
    init(_ mask: CatMask) {
        self.init(width: mask.width, height: mask.height, values: mask.values, cats: mask.cats.count)
    }
}

extension FilterChain {
    /// A chain as the scenes build them: `specs`, with the cat detector (and with
    /// `requireCat`, cat filters that find no cat fail).
    public init(catSpecs specs: [String], requireCat: Bool = false) throws(FilterError) {
        try self.init(specs: specs, subjects: CatSubjects(requireCat: requireCat))
    }
}

/// CatSubjects that remember what they found on the last few pictures, by their pixels:
/// the live editor's chains ask about the same picture again and again (every thumbnail
/// of a chain holding a caption or a `cat` crop places it on the same copy; each key of a
/// caption being typed, on the same preview), and finding takes tens of milliseconds.
public final class RememberingCatSubjects: SubjectFinder, Sendable {
    private struct Key: Hashable {
        let width: Int, height: Int, pixels: Int
    }
    private let found = LockedValue<[(key: Key, subjects: Subjects)]>([])
    private let masks = LockedValue<[(key: Key, mask: SubjectMask?)]>([])
    /// Pictures remembered (the oldest forgotten first).
    private let capacity = 8

    public init() {}

    public var side: Int { CatFinder.side }

    public func subjects(inCopy image: PixelBuffer) -> Subjects { subjects(in: image) }

    private static func key(_ image: PixelBuffer) -> Key {
        var hasher = Hasher()
        for y in 0..<image.height {
            hasher.combine(bytes: UnsafeRawBufferPointer(start: image.row(y), count: image.width * 4))
        }
        return Key(width: image.width, height: image.height, pixels: hasher.finalize())
    }

    /// The mask, made once a picture (the live editor's thumbnails and preview ask again and
    /// again): the last `masksKept` pictures' masks.
    public func catMask(in image: PixelBuffer) -> SubjectMask? {
        let key = Self.key(image)
        if let known = masks.withLockedValue({ $0.first { $0.key == key } }) { return known.mask }
        let mask = CatSubjects.mask(in: image)
        masks.withLockedValue { masks in
            masks.removeAll { $0.key == key }
            masks.append((key, mask))
            if masks.count > Self.masksKept { masks.removeFirst(masks.count - Self.masksKept) }
        }
        return mask
    }

    static let masksKept = 4

    public func subjects(in image: PixelBuffer) -> Subjects {
        let key = Self.key(image)
        if let known = found.withLockedValue({ $0.first { $0.key == key }?.subjects }) { return known }
        let subjects = CatSubjects().subjects(in: image)
        found.withLockedValue { found in
            found.removeAll { $0.key == key }
            found.append((key, subjects))
            if found.count > capacity { found.removeFirst(found.count - capacity) }
        }
        return subjects
    }
}
