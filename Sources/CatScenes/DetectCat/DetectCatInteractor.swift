import CatFaces
import CatImageIO
import CatModels
import CatPixels
import CatSupport
import FilterCore

public protocol DetectCatInteractorInput: Sendable {
    /// The cats and their faces in the image at `path`; with `mask`, the cats' mask written
    /// there too.
    func detect(_ path: String, maxPixels: Int, maxFrames: Int, mask: String?) async throws -> CatDetection
}

/// Decodes a copy no smaller than the detectors read (a JPEG at the DCT scale that keeps it
/// at least `CatFinder.side` long; other formats whole) and finds the cats and faces on it
/// (`CatSubjects.find`), then gives them in the full image's pixels. With a mask asked for,
/// decodes the image whole and writes the cats' mask (`CatSegmenter`) as an 8-bit grey PNG
/// of its size: all black when no cat is found.
public struct DetectCatInteractor: DetectCatInteractorInput {
    public init() {}

    public func detect(_ path: String, maxPixels: Int, maxFrames: Int, mask: String?) async throws -> CatDetection {
        CatFinder.prepare()
        // The mask's output checked before any work (a folder missing, the input itself).
        let output = try mask.map { (mask) throws(ImageIOError) in try OutputFile.prepare(mask, input: path) }
        if mask != nil, let why = CatSegmenter.unavailable {
            throw SceneFailure(status: .unavailable, message: why)
        }
        var options = DecodeOptions(maxPixels: maxPixels, maxFrames: maxFrames)
        if mask == nil {
            options.shrinkOnLoad = { width, height in
                DecodeOptions.denominator(longSide: max(width, height), keeping: CatFinder.side)
            }
        }
        // Like batch, detect reads files: a FIFO would wait for a writer forever.
        let source = try ImageSource.open(path, special: .none)
        let reader = try ImageReader(source: source, name: path, options: options)
        let swaps = reader.orientation >= 5
        let (width, height) = swaps ? (reader.fullHeight, reader.fullWidth) : (reader.fullWidth, reader.fullHeight)
        let picture = try ImageDecoder.decode(reader, options: options).pixels
        let found = CatSubjects.find(in: picture).scaled(from: (picture.width, picture.height), to: width, height)
        guard let output else {
            return CatDetection(input: path, width: width, height: height, cats: found.cats, faces: found.faces)
        }
        guard let made = CatSegmenter.mask(found.cats.map(\.box), in: picture) else {
            throw SceneFailure(status: .unavailable, message: CatSegmenter.unavailable ?? "no mask network")
        }
        try Self.write(made, to: output)
        return CatDetection(
            input: path, width: width, height: height, cats: found.cats, faces: found.faces, masks: made.cats)
    }

    /// Writes `mask` as an 8-bit grey PNG, a strip of rows at a time.
    static func write(_ mask: CatMask, to output: PreparedOutput) throws {
        var options = EncodeOptions(format: .png)
        options.grey = true
        let strip = try PixelBuffer(width: mask.width, height: min(mask.height, 64))
        try ImageFile.stream(
            to: output, width: mask.width, height: mask.height, hasAlpha: false, metadata: .none, options: options
        ) { writer in
            for first in stride(from: 0, to: mask.height, by: strip.height) {
                let count = min(strip.height, mask.height - first)
                mask.values.withUnsafeBufferPointer { values in
                    for y in 0..<count {
                        let row = strip.row(y), from = (first + y) * mask.width
                        for x in 0..<mask.width {
                            let v = values[from + x]
                            (row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]) = (v, v, v, 255)
                        }
                    }
                }
                try writer.write(strip, rows: 0..<count)
            }
            try writer.finish()
        }
    }
}
