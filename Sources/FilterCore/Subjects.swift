import CatPixels

/// A region of a picture that a crop should keep in view or a caption should keep off (a
/// cat's face or head), in the picture's pixels, with how sure its finder is (0-1).
public typealias Subject = ScoredRegion

/// What a finder saw in a picture: what the `cat` gravity keeps in view (`inView`: kept
/// all when they fit the window, else the largest) and what captions keep clear of.
public struct Subjects: Equatable, Sendable {
    public var inView: [Subject]
    public var clearOf: [Subject]

    public init(inView: [Subject], clearOf: [Subject]) {
        (self.inView, self.clearOf) = (inView, clearOf)
    }

    public static let none = Subjects(inView: [], clearOf: [])

    /// The same regions in a picture `factor` times as large.
    public func scaled(by factor: Double) -> Subjects {
        Subjects(inView: inView.map { $0.scaled(by: factor) }, clearOf: clearOf.map { $0.scaled(by: factor) })
    }
}

/// What finds the subjects of a picture. The filter core knows no detector of its own: the
/// scene that builds a chain hands one in (CatScenes: CatFaces' cat detector and cat-face
/// cascades), and a chain without one places the `cat` gravity in the centre and its
/// captions at the bottom.
public protocol SubjectFinder: Sendable {
    /// The long side of the copy it looks at (a larger picture is shrunk to it first).
    var side: Int { get }
    /// The subjects of `image`, at most `side` long, in its pixels.
    func subjects(inCopy image: PixelBuffer) -> Subjects
    /// The subjects of `image`, in its pixels (by default: found on a copy at most `side`
    /// long).
    func subjects(in image: PixelBuffer) -> Subjects
    /// The cats' mask over `image` (its size), for `cutout`, `sticker` and `portrait`: nil
    /// when the finder makes none (it has no mask network), a mask with no cat when it
    /// found none.
    func catMask(in image: PixelBuffer) -> SubjectMask?
    /// A cat filter that finds no cat fails (`--require-cat`) instead of leaving the
    /// picture as it is.
    var requiresCat: Bool { get }
}

/// The cats' mask over a picture: a byte a pixel, row after row, 0 (not a cat) to 255.
public struct SubjectMask: Sendable, Equatable {
    public let width: Int, height: Int
    public let values: [UInt8]
    /// The cats it was made for.
    public let cats: Int

    public init(width: Int, height: Int, values: [UInt8], cats: Int) {
        precondition(values.count == width * height, "a value a pixel")
        (self.width, self.height, self.values, self.cats) = (width, height, values, cats)
    }

    /// Its pixels at 128 and over: none when the network saw no cat where it looked.
    public var isEmpty: Bool { !values.contains { $0 >= 128 } }
}

extension SubjectFinder {
    public func catMask(in image: PixelBuffer) -> SubjectMask? { nil }
    public var requiresCat: Bool { false }

    /// The subjects of `image`, in its pixels: found on a copy at most `side` long.
    public func subjects(in image: PixelBuffer) -> Subjects {
        let small = image.shrunk(toFit: side)
        let factor = Double(image.width) / Double(small.width)
        return subjects(inCopy: small).scaled(by: factor)
    }
}
