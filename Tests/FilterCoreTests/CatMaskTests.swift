import CatImageIO
import CatPixels
import FilterCore
import Foundation
import TestSupport
import Testing

/// A finder whose mask is a disc in the middle of whatever picture it is asked about (or
/// none, or no cat).
struct DiscMask: SubjectFinder {
    enum Answer { case disc, noCat, noNetwork }
    var answer = Answer.disc
    var requiresCat = false
    var side: Int { 300 }
    func subjects(inCopy image: PixelBuffer) -> Subjects { .none }
    func catMask(in image: PixelBuffer) -> SubjectMask? {
        let (w, h) = (image.width, image.height)
        switch answer {
        case .noNetwork: return nil
        case .noCat: return SubjectMask(width: w, height: h, values: [UInt8](repeating: 0, count: w * h), cats: 0)
        case .disc:
            let r = Double(min(w, h)) / 4
            var values = [UInt8](repeating: 0, count: w * h)
            for y in 0..<h {
                for x in 0..<w {
                    let d = hypot(Double(x) + 0.5 - Double(w) / 2, Double(y) + 0.5 - Double(h) / 2)
                    values[y * w + x] = d < r ? 255 : 0
                }
            }
            return SubjectMask(width: w, height: h, values: values, cats: 1)
        }
    }
}

/// `cutout`, `sticker` and `portrait` on a mask the test knows: what is cat stays, what is
/// not goes (transparent, a colour, blurred); no cat leaves the picture as it is with a
/// note, or fails with `--require-cat`; streaming gives what the whole picture gives.
@Suite("Cat filters")
struct CatMaskTests {
    func picture() throws -> PixelBuffer { try Fixtures.decode("photos/chelsea.png").pixels }

    func run(_ specs: [String], _ finder: DiscMask = DiscMask(), on image: PixelBuffer? = nil) throws -> (
        PixelBuffer, FilterChain
    ) {
        let image = try image ?? picture()
        let chain = try FilterChain(specs: specs, subjects: finder)
        let placed = try chain.resolvingGravity(picture: image, width: image.width, height: image.height)
        let copy = try PixelBuffer(width: image.width, height: image.height, hasAlpha: image.hasAlpha)
        for y in 0..<image.height { copy.row(y).update(from: image.row(y), count: image.width * 4) }
        return (try placed.apply(to: copy, threads: 2), placed)
    }

    func pixel(_ image: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] {
        Array(UnsafeBufferPointer(start: image.row(y) + 4 * x, count: 4))
    }

    @Test func cutoutMakesTheRestTransparent() throws {
        let original = try picture()
        let (out, chain) = try run(["cutout"])
        #expect(out.hasAlpha && chain.notices.isEmpty)
        let (cx, cy) = (out.width / 2, out.height / 2)
        #expect(pixel(out, cx, cy) == pixel(original, cx, cy), "the cat as it was")
        #expect(pixel(out, 2, 2)[3] == 0, "the corner is transparent")
        let (coloured, _) = try run(["cutout:#3366ff"])
        #expect(pixel(coloured, 2, 2) == [0x33, 0x66, 0xff, 255])
        #expect(pixel(coloured, cx, cy) == pixel(original, cx, cy))
    }

    @Test func aFormatWithoutTransparencyGetsWhite() throws {
        let image = try picture()
        let chain = try FilterChain(specs: ["cutout"], subjects: DiscMask()).flatteningAlpha()
        #expect(!chain.mayMakeAlpha)
        let placed = try chain.resolvingGravity(picture: image, width: image.width, height: image.height)
        let out = try placed.apply(to: image, threads: 1)
        #expect(pixel(out, 2, 2) == [255, 255, 255, 255])
        #expect(try FilterChain(specs: ["cutout"]).mayMakeAlpha && !FilterChain(specs: ["portrait"]).mayMakeAlpha)
    }

    @Test func portraitBlursTheRest() throws {
        let original = try picture()
        let (out, _) = try run(["portrait:6"])
        let (cx, cy) = (out.width / 2, out.height / 2)
        #expect(pixel(out, cx, cy) == pixel(original, cx, cy), "the cat sharp")
        var changed = 0
        for y in 0..<20 { for x in 0..<out.width where pixel(out, x, y) != pixel(original, x, y) { changed += 1 } }
        #expect(changed > out.width * 10, "the background blurred")
        let (mono, _) = try run(["portrait:6:mono"])
        let corner = pixel(mono, 3, 3)
        #expect(corner[0] == corner[1] && corner[1] == corner[2], "greyed: \(corner)")
        #expect(pixel(mono, cx, cy) == pixel(original, cx, cy))
    }

    @Test func stickerIsA512SquareWithTheCatOutlined() throws {
        let (out, _) = try run(["sticker"])
        #expect(out.width == 512 && out.height == 512 && out.hasAlpha)
        #expect(pixel(out, 0, 0)[3] == 0 && pixel(out, 511, 511)[3] == 0, "transparent corners")
        #expect(pixel(out, 256, 256)[3] == 255, "the cat in the middle")
        // The white outline around the disc: on the middle row, going in from the left edge,
        // white before the cat.
        let row = (0..<256).map { pixel(out, $0, 256) }
        let firstOpaque = try #require(row.firstIndex { $0[3] > 200 })
        #expect(row[firstOpaque][0] > 240 && row[firstOpaque][1] > 240 && row[firstOpaque][2] > 240, "white outline")
        let (thin, _) = try run(["sticker:0"])
        #expect(thin.width == 512)
    }

    @Test func noCatLeavesThePictureAsItIs() throws {
        let original = try picture()
        for answer in [DiscMask.Answer.noCat, .noNetwork] {
            for spec in ["cutout", "sticker", "portrait"] {
                let (out, chain) = try run([spec], DiscMask(answer: answer))
                #expect(out.width == original.width && out.height == original.height)
                #expect(pixel(out, 5, 5) == pixel(original, 5, 5) && !out.hasAlpha)
                #expect(chain.notices.count == 1, "\(chain.notices)")
            }
        }
        #expect(throws: FilterError.noCat(filter: "cutout")) {
            _ = try run(["cutout"], DiscMask(answer: .noCat, requiresCat: true))
        }
        // No mask network: not "no cat", but the mask cannot be made (69, not 65).
        #expect(throws: FilterError.noCatMask(filter: "sticker")) {
            _ = try run(["sticker"], DiscMask(answer: .noNetwork, requiresCat: true))
        }
    }

    @Test func values() throws {
        for bad in ["cutout:bogus", "cutout:#12345", "portrait:0", "portrait:8:mono:mono", "portrait:x", "sticker:100"]
        {
            #expect(throws: FilterError.self, "\(bad)") { _ = try FilterChain(specs: [bad]) }
        }
        for good in [
            "cutout", "cutout:white", "cutout:#abc", "cutout:3366FF", "portrait", "portrait:mono",
            "portrait:8", "portrait:8:mono", "sticker", "sticker:12",
        ] {
            #expect(throws: Never.self, "\(good)") { _ = try FilterChain(specs: [good]) }
        }
        #expect(FilterRegistry.definition(named: "cutout")?.usage == "cutout[:COLOR]")
    }

    /// The strip-at-a-time pipeline, the mask placed from the same picture, writes what the
    /// whole-image path writes.
    @Test func streamingGivesWhatTheWholePictureGives() throws {
        let bytes = try Fixtures.bytes("jpeg/chelsea-420.jpg")
        for specs in [["cutout"], ["sepia", "portrait:4:mono"], ["cutout:red", "blur:2"]] {
            let options = EncodeOptions(format: .png, threads: 2)
            let image = try ImageDecoder.decode(bytes, name: "in").pixels
            let chain = try FilterChain(specs: specs, subjects: DiscMask())
            let placed = try chain.resolvingGravity(picture: image, width: image.width, height: image.height)
            let whole = try placed.apply(to: image, threads: 2)
            let expected = try Fixtures.writtenBytes { fd in
                try ImageEncoder.encode(whole, to: fd, path: "out", options: options)
            }
            let reader = try ImageReader(bytes: bytes, name: "in")
            #expect(StreamingPipeline.canStream(placed))
            let streamed = try Fixtures.writtenBytes { fd in
                let writer = try ImageWriter(
                    fd: fd, path: "out", width: reader.width, height: reader.height,
                    hasAlpha: reader.hasAlpha || chain.mayMakeAlpha, options: options)
                try StreamingPipeline.run(source: reader, sink: writer, chain: placed)
            }
            #expect(streamed == expected, "\(specs)")
        }
    }
}
