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
/// the copy is the one the cat filters mask (`FilterChain.maskSide` long, decoded at the
/// DCT scale that keeps it so): the cats are found and masked on it (`CatSubjects.masked`,
/// the very mask `cutout` uses), and the mask is stretched over the image as it is written,
/// an 8-bit grey PNG of the image's size (all black when no cat is found).
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
        let keeping = mask == nil ? CatFinder.side : FilterChain.maskSide
        options.shrinkOnLoad = { width, height in
            DecodeOptions.denominator(longSide: max(width, height), keeping: keeping)
        }
        // Like batch, detect reads files: a FIFO would wait for a writer forever.
        let source = try ImageSource.open(path, special: .none)
        let reader = try ImageReader(source: source, name: path, options: options)
        let swaps = reader.orientation >= 5
        let (width, height) = swaps ? (reader.fullHeight, reader.fullWidth) : (reader.fullWidth, reader.fullHeight)
        guard let output else {
            let picture = try ImageDecoder.decode(reader, options: options).pixels
            let found = CatSubjects.find(in: picture).scaled(from: (picture.width, picture.height), to: width, height)
            return CatDetection(input: path, width: width, height: height, cats: found.cats, faces: found.faces)
        }
        let (found, made, copy) = try Self.masked(reader, options: options)
        try Self.write(SubjectMask(made), width: width, height: height, to: output)
        let (fx, fy) = (Double(width) / Double(copy.width), Double(height) / Double(copy.height))
        let full = found.scaled(from: copy, to: width, height)
        return CatDetection(
            input: path, width: width, height: height, cats: full.cats, faces: full.faces,
            masks: made.cats.map { $0?.scaled(x: fx, y: fy, within: width, height) })
    }

    /// The cats found and masked on the copy the cat filters mask, and its size (the
    /// decoded pictures are gone when it returns: the mask is written without them).
    static func masked(
        _ reader: ImageReader, options: DecodeOptions
    ) throws -> (CatFinding, CatMask, (width: Int, height: Int)) {
        let picture = try ImageDecoder.decode(reader, options: options).pixels.shrunk(toFit: FilterChain.maskSide)
        guard let (found, made) = CatSubjects.masked(in: picture) else {
            throw SceneFailure(status: .unavailable, message: CatSegmenter.unavailable ?? "no mask network")
        }
        return (found, made, (picture.width, picture.height))
    }

    /// Writes `mask` stretched over `width` x `height` (`MaskSampler`: bilinear) as an 8-bit
    /// grey PNG, a strip of rows at a time.
    static func write(_ mask: SubjectMask, width: Int, height: Int, to output: PreparedOutput) throws {
        var options = EncodeOptions(format: .png)
        options.grey = true
        let strip = try PixelBuffer(width: width, height: StreamingPipeline.strip(64, width: width, height: height))
        let sampler = MaskSampler(mask, width: width, height: height)
        var values = [UInt8](repeating: 0, count: width)
        try ImageFile.stream(
            to: output, width: width, height: height, hasAlpha: false, metadata: .none, options: options
        ) { writer in
            for first in stride(from: 0, to: height, by: strip.height) {
                let count = min(strip.height, height - first)
                for y in 0..<count {
                    sampler.row(first + y, into: &values)
                    let row = strip.row(y)
                    for x in 0..<width {
                        let v = values[x]
                        (row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]) = (v, v, v, 255)
                    }
                }
                try writer.write(strip, rows: 0..<count)
            }
            try writer.finish()
        }
    }
}
