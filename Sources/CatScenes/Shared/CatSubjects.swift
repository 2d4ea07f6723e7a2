import CatFaces
import CatImageIO
import FilterCore

/// CatFaces' cat detector and cat-face cascades (`CatFinder`) as the filter core's subject
/// finder: the `cat` gravity keeps the faces in view, else the cats' heads; captions keep
/// clear of both. Every chain a scene builds is handed it.
public struct CatSubjects: SubjectFinder {
    public init() {}

    public var side: Int { CatFinder.side }

    public func subjects(inCopy image: PixelBuffer) -> Subjects { subjects(in: image) }

    public func subjects(in image: PixelBuffer) -> Subjects {
        let finding = Self.find(in: image)
        return Subjects(inView: finding.inView, clearOf: finding.clearOf)
    }

    /// The cats and faces in `image`, in its pixels (what detect reports and the live editor
    /// outlines): the detector reads a copy at most `CatFinder.side` long, the cascades one
    /// at most `CatFaceDetector.side` long, both box-filtered from `image`.
    public static func find(in image: PixelBuffer) -> CatFinding {
        func copy(_ side: Int) -> PixelBuffer {
            let fit = image.fittingSize(maxWidth: side, maxHeight: side)
            guard fit != (image.width, image.height) else { return image }
            return (try? image.resampled(width: fit.0, height: fit.1, filter: .box, threads: 1)) ?? image
        }
        let picture = copy(CatFinder.side)
        return CatFinder.find(in: picture, small: copy(CatFaceDetector.side))
            .scaled(by: Double(image.width) / Double(picture.width))
    }
}

extension FilterChain {
    /// A chain as the scenes build them: `specs`, with the cat detector.
    public init(catSpecs specs: [String]) throws(FilterError) {
        try self.init(specs: specs, subjects: CatSubjects())
    }
}
