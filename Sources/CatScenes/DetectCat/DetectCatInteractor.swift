import CatFaces
import CatImageIO
import CatSupport
import FilterCore

public protocol DetectCatInteractorInput: Sendable {
    /// The cats and their faces in the image at `path`.
    func detect(_ path: String, maxPixels: Int, maxFrames: Int) async throws -> CatDetection
}

/// Decodes a copy no smaller than the detectors read (a JPEG at the DCT scale that keeps it
/// at least `CatFinder.side` long; other formats whole) and finds the cats and faces on it
/// (`CatSubjects.find`), then gives them in the full image's pixels.
public struct DetectCatInteractor: DetectCatInteractorInput {
    public init() {}

    public func detect(_ path: String, maxPixels: Int, maxFrames: Int) async throws -> CatDetection {
        CatFinder.prepare()
        var options = DecodeOptions(maxPixels: maxPixels, maxFrames: maxFrames)
        options.shrinkOnLoad = { width, height in
            DecodeOptions.denominator(longSide: max(width, height), keeping: CatFinder.side)
        }
        // Like batch, detect reads files: a FIFO would wait for a writer forever.
        let source = try ImageSource.open(path, special: .none)
        let reader = try ImageReader(source: source, name: path, options: options)
        let swaps = reader.orientation >= 5
        let (width, height) = swaps ? (reader.fullHeight, reader.fullWidth) : (reader.fullWidth, reader.fullHeight)
        let picture = try ImageDecoder.decode(reader, options: options).pixels
        let found = CatSubjects.find(in: picture).scaled(from: (picture.width, picture.height), to: width, height)
        return CatDetection(input: path, width: width, height: height, cats: found.cats, faces: found.faces)
    }
}
