import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

/// The second probe of the HEIC, AVIF and JPEG XL paths (and what it found elsewhere): each
/// crafted file (Tests/Fixtures/hostile/make_hostile_heif.py, make_hostile_jxl.py) runs
/// under a memory cap and a generous time limit, so a regression fails loudly, not slowly.
@Suite("The newest decoders under attack")
struct HostileDecoderTests {
    /// The largest resident set a refusal may take (the goal: under 256 MiB).
    static let refusalMemoryKiB = 256 * 1024

    struct Case: CustomStringConvertible, Sendable {
        let file: String
        var arguments: [String] = []
        var command = "edit"
        let status: Int32
        let message: String
        /// The largest resident set the refusal may take, when not `refusalMemoryKiB`.
        var memoryKiB = HostileDecoderTests.refusalMemoryKiB
        var description: String { "\(command) \(file) \(arguments)" }
    }

    static let cases: [Case] = [
        // Issue 42 (the third attack, make_hostile_heif42.py): four ways past the pre-scan,
        // each a file whose bytes it read otherwise than libheif or libavif decode them.
        Case(file: "heic-infe-v4.heic", status: 65, message: "a version past 3"),
        Case(file: "heic-hvcc-length1.heic", status: 65, message: "16384x16384"),
        Case(file: "heic-iloc-length0.heic", status: 65, message: "an extent of length 0"),
        Case(file: "heic-iloc-sizes.heic", status: 65, message: "field sizes other than 0, 4 or 8"),
        Case(file: "heic-iloc-index.heic", status: 65, message: "extent indices"),
        Case(file: "avif-seq-fixed-stsz.avif", status: 65, message: "chunks hold 2 samples"),
        Case(file: "avif-trak-meta-exif.avif", status: 65, message: "twice in 'iloc'"),
        Case(file: "heic-grid-4096.heic", status: 65, message: "names one input more than 4 times"),
        Case(file: "heic-grid-4096.heic", command: "detect", status: 65, message: "more than 4 times"),
        // The attack on the fix: more pictures or frames in an item than an image has, a
        // grid whose tile leaves its canvas uncovered (another file's pixels showed there).
        Case(file: "heic-two-pictures.heic", status: 65, message: "more than one HEVC picture"),
        Case(file: "heic-hvcc-slice.heic", status: 65, message: "HEVC data is malformed"),
        Case(file: "avif-two-frames.avif", status: 65, message: "more frames than an AV1 image has"),
        Case(file: "avif-hidden-layers.avif", status: 65, message: "operating point that hides frames"),
        Case(file: "heic-grid-gap.heic", status: 65, message: "tiles do not cover its 128x128 canvas"),
        // F5: 12-bit luma, 8-bit chroma read as 16-bit past libde265's plane (SIGSEGV).
        Case(file: "heif-seq-mixed-depth.heic", status: 65, message: "planes of different depths"),
        // F1: overlapping chunks make 1e7 samples (1.4 GB, or SIGABRT).
        Case(file: "avif-seq-many-samples.avif", status: 65, message: "frames"),
        // F2: the codec's picture larger than the declared one.
        Case(file: "heic-sps-larger.heic", status: 65, message: "the HEVC SPS"),
        Case(file: "avif-av1-larger.avif", status: 65, message: "the AV1 sequence header"),
        Case(
            file: "avif-av1-larger.avif", arguments: ["--max-pixels", "10000"], status: 65,
            message: "AV1 sequence header"),
        Case(file: "avif-seq-frame-larger.avif", status: 65, message: "AV1 sequence header"),
        // libheif 1.15 sends grid tiles to dav1d, which decoded the 4096x2304 tile of a 64x48 grid.
        Case(file: "avif-av1-larger-grid.avif", status: 65, message: "AV1 sequence header"),
        Case(
            file: "avif-av1-larger-grid.avif", arguments: ["--max-pixels", "10000"], status: 65,
            message: "AV1 sequence header"),
        // F8: a grid naming itself (std::system_error, SIGABRT), also single-threaded and in detect.
        Case(file: "heic-grid-self.heic", status: 65, message: "refers to itself"),
        Case(file: "heic-grid-self.heic", arguments: ["--threads", "1"], status: 65, message: "refers to itself"),
        Case(file: "heic-grid-self.heic", command: "detect", status: 65, message: "refers to itself"),
        Case(file: "heic-dimg-cycle.heic", status: 65, message: "cycle"),
        // F3: one tile named 65,280 times (up to 4 times is allowed, each use counted).
        Case(file: "heic-grid-repeated.heic", status: 65, message: "names one input more than 4 times"),
        // F9: overlapping extents make every item huge.
        Case(file: "heic-iloc-overlap.heic", status: 65, message: "twice in 'iloc'"),
        Case(file: "heic-exif-huge.heic", status: 65, message: "twice in 'iloc'"),
        // F4: frames of no duration and layers off the canvas, decoded but not shown.
        Case(file: "jxl-hidden-frames.jxl", status: 65, message: "layers and frames of no duration"),
        Case(
            file: "jxl-hidden-frames.jxl", arguments: ["--max-frames", "1"], status: 65,
            message: "more than 1 frames"),
        Case(file: "jxl-offcanvas-layers.jxl", status: 65, message: "layers and frames of no duration"),
        // An attack on the fix: libheif reads the first of two boxes, the scan must too.
        Case(file: "heic-two-iref.heic", status: 65, message: "two 'iref' boxes"),
        Case(file: "heic-two-iref.heic", command: "detect", status: 65, message: "two 'iref' boxes"),
        Case(file: "heic-two-hvcc.heic", status: 65, message: "two properties of one kind"),
        Case(file: "heic-two-ipma.heic", status: 65, message: "two 'ipma' boxes"),
        Case(file: "heic-two-pitm-av1.heic", arguments: ["--formats", "heic"], status: 65, message: "two 'pitm'"),
        Case(file: "heic-alpha-avc-urn.heic", status: 65, message: "16384x16384"),
        Case(file: "avif-seq-two-entries.avif", status: 65, message: "sample descriptions"),
        Case(file: "jxl-tiny-layers.jxl", status: 65, message: "layers and frames of no duration"),
        // 400 samples a pixel in a 1x1 image's 1024x1024 tile: refused for its samples (at most 8).
        Case(file: "tiff-tile-samples.tif", status: 65, message: "400 samples per pixel"),
        // Samples and bits multiply a tile: 8 of 16 bits in tiles twice the image (70 MB a tile).
        Case(file: "tiff-tile-bytes.tif", status: 65, message: "tiles of 70400000 bytes"),
        // The third probe (docs/review-tiff-jxl-2026-11-27.md; make_hostile_tiff_jxl.py):
        // T2: 65535 samples a pixel, each decoded (131 KB of work a pixel).
        Case(file: "tiff-many-samples.tif", status: 65, message: "65535 samples per pixel"),
        // T1: a 2000000x1 image in 1024x1024 tiles decodes 1024 rows for each it shows.
        Case(file: "tiff-wide-tiles.tif", status: 65, message: "tiles cover"),
        // T3: five separate planes, a tile buffer each: the bound counts them all.
        Case(file: "tiff-separate-tiles.tif", status: 65, message: "5 samples of 16 bits"),
        // J1: 256 empty extra channels of a 1 MP image: 1.4 GB (libjxl aborted under a cap).
        Case(file: "jxl-extra-channels.jxl", status: 65, message: "256 extra channels"),
        // J2: 999 skip-progressive frames libjxl 0.7 decodes and never reports (20 s).
        // Refused once decoding has run past what the walk counted: by then it holds what
        // decoding its 2048x2048 canvas holds (about 240 MB, close to the 256 MiB of other refusals).
        Case(
            file: "jxl-skip-progressive.jxl", status: 65, message: "frames it does not show",
            memoryKiB: 384 * 1024),
        // 25,000,000 rows: libpng's own 1,000,000-row limit is not the one that decides.
        Case(file: "png-tall.png", arguments: ["--max-pixels", "1000000"], status: 65, message: "over the limit"),
    ]

    @Test(arguments: cases)
    func refusedQuicklyInLittleMemoryLeavingNothing(_ c: Case) throws {
        let dir = try Fixtures.temporaryDirectory()
        let input = Fixtures.path("hostile/\(c.file)")
        let out = dir.appendingPathComponent("out.png").path
        let arguments =
            c.command == "edit" ? ["edit", "--filter", "sepia"] + c.arguments + [input, out] : [c.command] + [input]
        let result = try Catctl.runBounded(arguments)
        #expect(result.status == c.status, "\(c): \(result.stderr)")
        #expect(result.stderr.contains(c.message), "\(c): \(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}"), "\(c): raw escape on stderr")
        #expect(Fixtures.contents(of: dir).isEmpty, "\(c): output left behind")
        if !Catctl.isSanitized {
            #expect(result.maxResidentKiB < c.memoryKiB, "\(c): \(result.maxResidentKiB) KiB")
        }
    }

    /// Found by the HEIF fuzz target in bomb mode: an AVIF whose AV1 data dav1d decodes no
    /// picture from left dav1d's copy of the data unfreed (40 bytes, seen by LeakSanitizer:
    /// the copy was freed only when its size was not 0). Refused, and nothing is left.
    @Test func anAV1ItemWithNoPictureLeavesNothingBehind() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("out.png").path
        let result = try Catctl.runBounded(
            ["edit", "--filter", "sepia", Fixtures.path("hostile/avif-empty-av1-data.avif"), out])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// The conformance suite's refusals: a thumbnail or another image larger than the primary
    /// made the second read's per-side limit refuse the whole file; the first pre-scan refused
    /// items sharing an extent. Valid, they decode.
    @Test func aLargerThumbnailOrSecondImageIsNoReasonToRefuse() throws {
        let dir = try Fixtures.temporaryDirectory()
        // avifenc stores identical tiles (and the colour and alpha grid descriptions) once.
        for name in ["heic-thumb-larger.heic", "heic-alt-larger.heic", "avif-grid-shared-extents.avif"] {
            let out = dir.appendingPathComponent("\(name).png").path
            let result = try Catctl.runBounded(["edit", "--filter", "sepia", Fixtures.path("hostile/\(name)"), out])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(FileManager.default.fileExists(atPath: out))
        }
    }

    /// T4 and J3: metadata over the budget is left out with a note (a TIFF's XMP was carried
    /// into the output whole); only the first of two Exif boxes decides (a larger second one
    /// made the first be left out). Made at test time (9 MiB each).
    @Test func metadataOverTheBudgetIsLeftOutAndOnlyTheFirstBoxCounts() throws {
        let dir = try Fixtures.temporaryDirectory()
        func made(_ kind: String) throws -> String {
            let path = dir.appendingPathComponent(kind).path
            let result = try Catctl.run(
                program: URL(fileURLWithPath: "/usr/bin/env"),
                ["python3", Fixtures.path("hostile/make_hostile_tiff_jxl.py"), kind, path])
            #expect(result.status == 0, "\(result.stderr)")
            return path
        }
        let xmp = try Catctl.runBounded(["edit", "--filter", "sepia", made("big-xmp"), dir.path + "/x.png"])
        #expect(xmp.status == 0, "\(xmp.stderr)")
        #expect(xmp.stderr.contains("XMP") && xmp.stderr.contains("left out"), "\(xmp.stderr)")
        let png = try Data(contentsOf: dir.appendingPathComponent("x.png"))
        #expect(png.count < 100_000, "\(png.count) bytes: the packet was carried")
        let exif = try Catctl.runBounded(["edit", "--filter", "sepia", made("two-exif"), dir.path + "/e.png"])
        #expect(exif.status == 0, "\(exif.stderr)")
        #expect(!exif.stderr.contains("left out"), "\(exif.stderr)")
        let kept = try Data(contentsOf: dir.appendingPathComponent("e.png"))
        #expect(kept.count < 100_000 && String(decoding: kept, as: UTF8.self).contains("first box"))
    }

    /// The one metadata budget in JPEG and WebP too: 255 APP2 segments join to 16 MB of ICC
    /// profile, and a WebP chunk may hold anything; over 8 MiB it is left out with a note (it
    /// was carried into the output whole). Made here, 9 MiB each.
    @Test func jpegAndWebPMetadataOverTheBudgetIsLeftOut() throws {
        let dir = try Fixtures.temporaryDirectory()
        let big = 9 << 20
        // JPEG: the profile in APP2 "ICC_PROFILE" segments right after SOI.
        let jpeg = try Fixtures.bytes("jpeg/testorig.jpg")
        let perSegment = 65_519, count = (big + perSegment - 1) / perSegment
        var icc: [UInt8] = Array(jpeg[0..<2])
        for seq in 1...count {
            let n = min(perSegment, big - (seq - 1) * perSegment)
            let length = 2 + 14 + n
            icc += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE".utf8) + [0]
            icc += [UInt8(seq), UInt8(count)] + [UInt8](repeating: 0x41, count: n)
        }
        icc += jpeg[2...]
        // WebP: the lossless fixture's VP8L chunk in an extended file with a 9 MiB XMP chunk.
        let webp = try Fixtures.bytes("webp/lossless.webp")
        #expect(Array(webp[12..<16]) == Array("VP8L".utf8))
        let bits = UInt32(webp[21]) | UInt32(webp[22]) << 8 | UInt32(webp[23]) << 16 | UInt32(webp[24]) << 24
        let (w1, h1) = (bits & 0x3FFF, (bits >> 14) & 0x3FFF)
        func le(_ v: UInt32, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let vp8x = Array("VP8X".utf8) + le(10, 4) + [0x04, 0, 0, 0] + le(w1, 3) + le(h1, 3)
        let xmp = Array("XMP ".utf8) + le(UInt32(big), 4) + [UInt8](repeating: 0x20, count: big)
        let body = Array("WEBP".utf8) + vp8x + Array(webp[12...]) + xmp
        let extended = Array("RIFF".utf8) + le(UInt32(body.count), 4) + body
        for (name, bytes, what) in [("icc.jpg", icc, "ICC profile"), ("xmp.webp", extended, "XMP")] {
            let input = dir.appendingPathComponent(name)
            try Data(bytes).write(to: input)
            let out = dir.appendingPathComponent(name + ".png")
            let result = try Catctl.runBounded(["edit", "--filter", "sepia", input.path, out.path])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(result.stderr.contains(what) && result.stderr.contains("left out"), "\(name): \(result.stderr)")
            #expect(try Data(contentsOf: out).count < 1_000_000, "\(name): the metadata was carried")
        }
    }

    /// Found by the WebP fuzzer in bomb mode: a 544-byte animation of 1x9961473 frames, within
    /// the pixel limit, took 1.3 GB (1.97 GB in the release binary) because every row of a
    /// buffer was padded to 64 bytes. Narrow rows are packed now.
    @Test func narrowFramesCostTheirPixelsNotTheirPadding() throws {
        let dir = try Fixtures.temporaryDirectory()
        let result = try Catctl.runBounded([
            "edit", "--filter", "sepia", Fixtures.path("fuzz/webp-narrow-tall-frames.webp"), dir.path + "/o.png",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        if !Catctl.isSanitized {
            #expect(result.maxResidentKiB < 512 * 1024, "\(result.maxResidentKiB) KiB")
        }
        let one = try PixelBuffer(width: 1, height: 10), wide = try PixelBuffer(width: 200, height: 2)
        #expect(one.stride == 4 && wide.stride % PixelBuffer.alignment == 0 && wide.stride >= 800)
    }

    /// F6: abs(Int.min) trapped (SIGILL) while parsing a kernel.
    @Test func integerExtremesInAKernelAreUsageErrors() throws {
        for value in ["-9223372036854775808", "9223372036854775807", "99999999999999999999", "-2147483649"] {
            let spec = "convolve:" + ([value] + Array(repeating: "0", count: 8)).joined(separator: ",")
            let result = try Catctl.runBounded([
                "edit", "--filter", spec, Fixtures.path("photos/chelsea.png"), "/tmp/never-written.png",
            ])
            #expect(result.status == 64, "\(value): \(result.stderr)")
            #expect(result.stderr.contains("is not a whole number from -1000 to 1000"), "\(value): \(result.stderr)")
        }
    }

    /// F7: libjxl prints a channel name from the file (a title, a cleared screen, colours),
    /// and dav1d its complaints, on fd 2 by themselves: none of it reaches stderr.
    @Test func librariesNeverReachTheTerminal() throws {
        let dir = try Fixtures.temporaryDirectory()
        let escapes = try Catctl.runBounded([
            "edit", "--filter", "sepia", Fixtures.path("hostile/jxl-terminal-escapes.jxl"), dir.path + "/a.png",
        ])
        #expect(escapes.status == 65)
        #expect(!escapes.stderr.contains("\u{1B}") && !escapes.stderr.contains("JXL_FAILURE"), "\(escapes.stderr)")
        #expect(escapes.stderr.split(separator: "\n").count == 1, "one line, catctl's: \(escapes.stderr)")
        // dav1d decodes this grid's tiles and complains of the OBU type it does not know.
        let obu = try Catctl.runBounded([
            "edit", "--filter", "sepia", Fixtures.path("hostile/avif-unknown-obu.avif"), dir.path + "/b.png",
        ])
        #expect(obu.status == 0, "\(obu.stderr)")
        #expect(!obu.stderr.contains("OBU"), "\(obu.stderr)")
        // A cut and byte-flipped JPEG XL makes libjxl print 4 to 9 lines.
        var flipped = try Fixtures.bytes("jxl/lossless.jxl")
        flipped[2] ^= 0x5A
        try Data(flipped).write(to: dir.appendingPathComponent("flipped.jxl"))
        let corrupt = try Catctl.runBounded([
            "edit", "--filter", "sepia", dir.path + "/flipped.jxl", dir.path + "/c.png",
        ])
        #expect(corrupt.status == 65)
        #expect(corrupt.stderr.split(separator: "\n").count == 1, "\(corrupt.stderr)")
    }

    /// A Brotli box of 116 bytes that is 66 MB of EXIF: over the one metadata budget it is left
    /// out, with a note, and the image is written.
    @Test func metadataOverTheBudgetIsLeftOutWithANote() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("o.png").path
        let result = try Catctl.runBounded([
            "edit", "--filter", "sepia", Fixtures.path("hostile/jxl-brob-exif.jxl"), out,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("EXIF") && result.stderr.contains("metadata budget: left out"), "\(result.stderr)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int)
        #expect(size < 1_000_000, "the EXIF was carried: \(size) bytes")
    }

    /// `detect` on a FIFO with no writer waited forever; like batch, it reads regular files.
    @Test func detectRefusesAFIFO() throws {
        let dir = try Fixtures.temporaryDirectory()
        let fifo = dir.appendingPathComponent("cat.jpg").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let result = try Catctl.runBounded(["detect", fifo], seconds: 30)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("not a regular file"), "\(result.stderr)")
    }

    /// CATCTL_FORMATS and --formats: every other decoder is refused before it sees a byte.
    @Test func theAllowListRefusesEveryOtherDecoder() throws {
        let dir = try Fixtures.temporaryDirectory()
        let env = ["CATCTL_FORMATS": "jpeg,png,webp"]
        for name in ["heif/photo.heic", "heif/photo.avif", "jxl/lossless.jxl", "tiff/lzw.tif", "gif/still.gif"] {
            guard FileManager.default.fileExists(atPath: Fixtures.path(name)) else { continue }
            let result = try Catctl.runBounded(
                ["edit", "--filter", "sepia", Fixtures.path(name), dir.path + "/o.png"], environment: env)
            #expect(result.status == 65, "\(name): \(result.stderr)")
            #expect(result.stderr.contains("CATCTL_FORMATS allows JPEG, PNG and WebP"), "\(name): \(result.stderr)")
        }
        let allowed = try Catctl.runBounded(
            ["edit", "--filter", "sepia", Fixtures.path("photos/chelsea.png"), dir.path + "/ok.png"], environment: env)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        // An AVIF-branded file of HEVC items must not reach libde265 when only AVIF is allowed.
        var heic = try Fixtures.bytes("heif/photo.heic")
        heic.replaceSubrange(8..<12, with: Array("avif".utf8))
        try Data(heic).write(to: dir.appendingPathComponent("hevc.avif"))
        let disguised = try Catctl.runBounded([
            "edit", "--formats", "avif", "--filter", "sepia", dir.path + "/hevc.avif", dir.path + "/d.png",
        ])
        #expect(disguised.status == 65, "\(disguised.stderr)")
        #expect(disguised.stderr.contains("HEVC"), "\(disguised.stderr)")
        let unknown = try Catctl.runBounded([
            "detect", "--formats", "jpeg,bmp", Fixtures.path("photos/chelsea.png"),
        ])
        #expect(unknown.status == 64 && unknown.stderr.contains("'bmp'"), "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/o.png"))
    }
}
