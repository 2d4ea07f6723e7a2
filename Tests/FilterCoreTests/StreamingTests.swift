import CatImageIO
import CatPixels
import CatSupport
import FilterCore
import Foundation
import TestSupport
import Testing

/// Streaming (a strip at a time, decoder on its own thread) against the whole-image path.
@Suite("Streaming pipeline")
struct StreamingTests {
    /// Encodes with the whole-image path: decode all, filter all, encode all.
    func wholeImage(_ bytes: [UInt8], _ specs: [String], _ options: EncodeOptions) throws -> [UInt8] {
        let image = try ImageDecoder.decode(bytes, name: "in").pixels
        let filtered = try FilterChain(specs: specs).apply(to: image, threads: 2)
        return try Fixtures.writtenBytes { fd in
            try ImageEncoder.encode(filtered, to: fd, path: "out", options: options)
        }
    }

    func streamed(_ bytes: [UInt8], _ specs: [String], _ options: EncodeOptions) throws -> [UInt8]? {
        let reader = try ImageReader(bytes: bytes, name: "in")
        let chain = try FilterChain(specs: specs)
        guard reader.canStream && StreamingPipeline.canStream(chain) else { return nil }
        let size = try chain.outputSize(width: reader.width, height: reader.height)
        return try Fixtures.writtenBytes { fd in
            let writer = try ImageWriter(
                fd: fd, path: "out", width: size.width, height: size.height,
                hasAlpha: reader.hasAlpha, options: options)
            try StreamingPipeline.run(source: reader, sink: writer, chain: chain)
        }
    }

    static let colourSpecs =
        FilterRegistry.all.filter { $0.kind == .color }.map(\.showcaseSpec) + ["sepia:0.3", "hue-rotate:-45"]

    /// One spatial stage, alone or between colour stages; radii below, around and above a strip.
    static let spatialChains: [[String]] = [
        ["blur:3"], ["blur:0.5"], ["blur:20"], ["sharpen:2"], ["vignette:0.7"], ["sepia", "blur:1.5", "contrast:1.2"],
        ["mono", "sharpen:1", "invert:0.3"], ["fade", "vignette"], ["blur:0.1", "noir"],
        // Geometry that streams: a band of input rows per band of output rows.
        ["resize:50"], ["resize:x200"], ["sepia", "resize:23x17", "contrast:1.2"], ["crop:20x16+5+7"], ["crop:30x20"],
        ["flop"], ["noir", "flop", "invert:0.5"], ["caption:Hello cat"], ["sepia", "caption-top:Top text", "fade"],
        ["convolve:-1,-1,-1,-1,16,-1,-1,-1,-1:8"],
        ["sepia", "convolve:" + Array(repeating: "1", count: 25).joined(separator: ",")],
        ["resize:90%"], ["resize:40x300!"],
        // Several spatial stages, each feeding the next a strip at a time (libvips' benchmark among them).
        ["blur:2", "sharpen"], ["crop:30x28+1+2", "resize:90%", "convolve:-1,-1,-1,-1,16,-1,-1,-1,-1:8"],
        ["sepia", "resize:200", "blur:20", "vignette", "contrast:1.2"], ["cover:64x64", "sharpen:3", "flop"],
        ["blur:20", "resize:x40", "caption:two stages"],
    ]

    @Test("spatial chains stream byte-identically", arguments: spatialChains)
    func spatialIdentical(_ specs: [String]) throws {
        for input in ["jpeg/chelsea-420.jpg", "photos/chelsea.png", "pngsuite/basn6a08.png", "jpeg/testorig.jpg"] {
            let bytes = try Fixtures.bytes(input)
            for options in [
                EncodeOptions(format: .jpeg, settings: [.quality: 85]), EncodeOptions(format: .png, threads: 2),
            ] {
                let streamed = try #require(try streamed(bytes, specs, options), "\(input) streams")
                #expect(streamed == (try wholeImage(bytes, specs, options)), "\(specs) \(input) \(options.format)")
            }
        }
    }

    /// Pictures of odd shapes stream in strips sized by their pixels (a narrow one many
    /// rows at a time, a wide one a row at a time: `StreamingPipeline.strip`) and give the
    /// whole-image path's bytes.
    @Test(arguments: [(8, 40_000), (600_000, 2)])
    func oddShapesStreamByteIdentically(_ width: Int, _ height: Int) throws {
        let picture = try PixelBuffer(width: width, height: height)
        for y in 0..<height {
            let row = picture.row(y)
            for i in 0..<width * 4 { row[i] = i % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: i &* 7 &+ y &* 13) }
        }
        let bytes = try Fixtures.writtenBytes { fd in
            try ImageEncoder.encode(picture, to: fd, path: "in", options: EncodeOptions(format: .png))
        }
        for specs in [["blur:2"], ["sepia", "resize:50", "vignette"]] {
            let options = EncodeOptions(format: .png, threads: 2)
            let streamed = try #require(try streamed(bytes, specs, options))
            #expect(streamed == (try wholeImage(bytes, specs, options)), "\(specs) \(width)x\(height)")
        }
    }

    @Test func stripsHoldRowsByTheirPixels() {
        #expect(StreamingPipeline.strip(32, width: 4000, height: 3000) == 32)  // a photo: as before
        #expect(StreamingPipeline.strip(32, width: 10_000_000, height: 10) == 1)
        #expect(StreamingPipeline.strip(131_072, width: 1, height: 10_000_000) == 131_072)
        #expect(StreamingPipeline.strip(32, width: 50, height: 7) == 7)
    }

    @Test("streamed output is byte-identical", arguments: colourSpecs)
    func identical(_ spec: String) throws {
        for input in ["jpeg/chelsea-420.jpg", "jpeg/testimgint.jpg", "photos/chelsea.png", "pngsuite/basn6a08.png"] {
            let bytes = try Fixtures.bytes(input)
            for options in [
                EncodeOptions(format: .jpeg, settings: [.quality: 85]), EncodeOptions(format: .png, threads: 2),
                EncodeOptions(format: .png, settings: [.level: 0], threads: 3),
            ] {
                let streamed = try #require(try streamed(bytes, [spec, "contrast:1.1"], options), "\(input) streams")
                #expect(
                    streamed == (try wholeImage(bytes, [spec, "contrast:1.1"], options)),
                    "\(spec) \(input) \(options.format)")
            }
        }
    }

    /// Whether the chain of `specs` streams from `reader`: both must.
    func streams(_ specs: [String], _ reader: ImageReader) throws -> Bool {
        let chain = try FilterChain(specs: specs)
        return reader.canStream && StreamingPipeline.canStream(chain)
    }

    @Test func whatCannotStream() throws {
        let rotated = try ImageReader(bytes: try Fixtures.bytes("jpeg/orient-6.jpg"), name: "o")
        #expect(try !streams(["sepia"], rotated))
        let interlaced = try ImageReader(bytes: try Fixtures.bytes("pngsuite/basi2c08.png"), name: "i")
        #expect(try !streams(["sepia"], interlaced))
        let plain = try ImageReader(bytes: try Fixtures.bytes("jpeg/chelsea-420.jpg"), name: "p")
        #expect(try streams(["sepia", "blur:2", "mono"], plain))
        #expect(
            try streams(["blur:2", "sharpen"], plain), "two spatial stages")
        #expect(
            try !streams(["blur:2", "flip"], plain), "a flip needs the end")
    }

    /// Crops and captions that read the picture stream while another thread places them
    /// (`StreamingPipeline.Placing`): the rows wait at the first such stage, kept, until the
    /// chain is placed, or flow straight through when it already is. Either way the bytes
    /// are the whole-image path's, which places them from the same picture.
    @Test(
        "picture-read stages stream while placed",
        arguments: [
            ["cover:64x64:cat"], ["sepia", "crop:40x40:attention", "contrast:1.2"],
            ["resize:90%", "crop:30x28:entropy", "blur:1"], ["resize:50", "caption:Hello cat"],
            ["blur:2", "cover:50x80:cat", "caption:two placed", "vignette"],
        ])
    func placedWhileStreaming(_ specs: [String]) throws {
        let bytes = try Fixtures.bytes("jpeg/chelsea-420.jpg")
        let options = EncodeOptions(format: .png, threads: 2)
        let expected = try wholeImage(bytes, specs, options)
        let picture = try ImageDecoder.decode(bytes, name: "in").pixels
        let chain = try FilterChain(specs: specs)
        #expect(chain.readsPicture)
        // Placed while streaming with room to keep every row, and with room for one strip
        // only (the decoder waits for the place), and placed before streaming.
        for (placedFirst, keptBytes) in [(false, 1 << 30), (false, 0), (true, 1 << 30)] {
            // Not placed first: the placing waits for the first strip to have gone in.
            let started = Condition()
            let go = LockedValue(false)
            let pending = Pending { () throws -> FilterChain in
                if !placedFirst {
                    started.lock()
                    while !go.current { started.wait() }
                    started.unlock()
                }
                return try chain.resolvingGravity(picture: picture, width: picture.width, height: picture.height)
            }
            if placedFirst { _ = pending.wait() }
            // The placing may start once the decoder has read its first rows: a strip of them
            // may reach the first stage that reads the picture as several strips (a 290-row
            // strip of a 451-pixel-wide picture, resized by half, as five of 32), and with room
            // for one kept the line waits for the place before the first strip's progress.
            let reader = FirstRowsSaid(try ImageReader(bytes: bytes, name: "in")) {
                started.lock()
                go.withLockedValue { $0 = true }
                started.broadcast()
                started.unlock()
            }
            #expect(reader.source.canStream && StreamingPipeline.canStream(chain))
            let size = try chain.outputSize(width: reader.width, height: reader.height)
            let streamed = try Fixtures.writtenBytes { fd in
                let writer = try ImageWriter(
                    fd: fd, path: "out", width: size.width, height: size.height, hasAlpha: reader.hasAlpha,
                    options: options)
                try StreamingPipeline.run(
                    source: reader, sink: writer, chain: chain,
                    placing: StreamingPipeline.Placing(chain: chain, pending: pending, keptBytes: keptBytes))
            }
            #expect(
                streamed == expected,
                "\(specs), placed \(placedFirst ? "before" : "while") streaming, keeping \(keptBytes) bytes")
        }
    }

    /// A source that says when its first rows have been read.
    final class FirstRowsSaid: RowSource {
        let source: ImageReader
        private let said: () -> Void
        private var first = true
        init(_ source: ImageReader, said: @escaping () -> Void) { (self.source, self.said) = (source, said) }
        var width: Int { source.width }
        var height: Int { source.height }
        var hasAlpha: Bool { source.hasAlpha }
        func readRows(into buffer: PixelBuffer, at row: Int, count: Int) throws {
            try source.readRows(into: buffer, at: row, count: count)
            if first {
                first = false
                said()
            }
        }
    }

    /// A placing that fails stops the stream with its own error.
    @Test func failedPlacingStopsTheStream() throws {
        struct Refused: Error {}
        let bytes = try Fixtures.bytes("jpeg/chelsea-420.jpg")
        let chain = try FilterChain(specs: ["crop:40x40:cat"])
        let pending = Pending { () throws -> FilterChain in throw Refused() }
        let reader = try ImageReader(bytes: bytes, name: "in")
        #expect(throws: Refused.self) {
            _ = try Fixtures.writtenBytes { fd in
                let writer = try ImageWriter(
                    fd: fd, path: "out", width: 40, height: 40, hasAlpha: false, options: EncodeOptions(format: .png))
                try StreamingPipeline.run(
                    source: reader, sink: writer, chain: chain,
                    placing: StreamingPipeline.Placing(chain: chain, pending: pending))
            }
        }
        #expect(pending.failure is Refused)
    }

    @Test func truncatedInputFailsTheStream() throws {
        let bytes = try Fixtures.bytes("jpeg/testorig.jpg")
        #expect(throws: ImageIOError.truncated(file: "in")) {
            _ = try streamed(Array(bytes.prefix(bytes.count * 2 / 3)), ["sepia"], EncodeOptions(format: .png))
        }
    }
}
