import CatFaces
import CatImageIO
import FilterCore

/// CatFaces' cat-face detector as the filter core's subject finder: what the `cat` gravity
/// keeps in view and captions keep clear of. Every chain a scene builds is handed it.
public struct CatFaceSubjects: SubjectFinder {
    public init() {}

    public var side: Int { CatFaceDetector.side }

    public func subjects(inCopy image: PixelBuffer) -> [Subject] { CatFaceDetector.faces(in: GreyImage(image)) }

    /// The cats' faces in `image`, in its pixels, found on a copy at most `side` long (what
    /// detect reports and the live editor outlines).
    public static func faces(in image: PixelBuffer) -> [CatFace] { CatFaceSubjects().subjects(in: image) }
}

extension FilterChain {
    /// A chain as the scenes build them: `specs`, with the cat-face detector.
    public init(catSpecs specs: [String]) throws(FilterError) {
        try self.init(specs: specs, subjects: CatFaceSubjects())
    }
}
