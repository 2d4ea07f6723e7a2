import CatImageIO

/// A region of a picture that a crop should keep in view and a caption should keep off (a
/// cat's face), in the picture's pixels, with how sure its finder is (0-1).
public typealias Subject = ScoredRegion

/// What finds the subjects of a picture. The filter core knows no detector of its own: the
/// scene that builds a chain hands one in (CatScenes: the cat-face cascades of CatFaces), and
/// a chain without one places the `cat` gravity by libvips's attention alone and its
/// captions at the bottom.
public protocol SubjectFinder: Sendable {
    /// The long side of the copy it looks at (a larger picture is shrunk to it first).
    var side: Int { get }
    /// The subjects of `image`, at most `side` long, in its pixels.
    func subjects(inCopy image: PixelBuffer) -> [Subject]
}

extension SubjectFinder {
    /// The subjects of `image`, in its pixels: found on a copy at most `side` long.
    public func subjects(in image: PixelBuffer) -> [Subject] {
        let fit = image.fittingSize(maxWidth: side, maxHeight: side)
        let small =
            fit == (image.width, image.height)
            ? image : (try? image.resampled(width: fit.0, height: fit.1, filter: .box, threads: 1)) ?? image
        let factor = Double(image.width) / Double(small.width)
        return subjects(inCopy: small).map { $0.scaled(by: factor) }
    }
}
