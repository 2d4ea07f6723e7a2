import CatFaces
import CatImageIO
import CatSupport
import FilterCore

public protocol DetectCatInteractorInput: Sendable {
    /// The cats' faces in the image at `path`.
    func detect(_ path: String, maxPixels: Int, maxFrames: Int) async throws -> CatDetection
}

/// Decodes a copy no smaller than the detector reads (a JPEG at the DCT scale that keeps it
/// at least `CatFaceDetector.side` long; other formats whole) and finds the faces on it
/// (`CatFaceSubjects.faces`), then gives them in the full image's pixels.
public struct DetectCatInteractor: DetectCatInteractorInput {
    public init() {}

    public func detect(_ path: String, maxPixels: Int, maxFrames: Int) async throws -> CatDetection {
        var options = DecodeOptions(maxPixels: maxPixels, maxFrames: maxFrames)
        options.shrinkOnLoad = { width, height in
            DecodeOptions.denominator(longSide: max(width, height), keeping: CatFaceDetector.side)
        }
        // Like batch, detect reads files: a FIFO would wait for a writer forever.
        let source = try ImageSource.open(path, regularOnly: true)
        let reader = try ImageReader(source: source, name: path, options: options)
        let swaps = reader.orientation >= 5
        let (width, height) = swaps ? (reader.fullHeight, reader.fullWidth) : (reader.fullWidth, reader.fullHeight)
        let picture = try ImageDecoder.decode(reader, options: options).pixels
        let factor = Double(width) / Double(picture.width)
        let faces = CatFaceSubjects.faces(in: picture).map { $0.scaled(by: factor) }
        return CatDetection(input: path, width: width, height: height, faces: faces)
    }
}
