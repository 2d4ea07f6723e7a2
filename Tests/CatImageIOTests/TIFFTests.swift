import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

/// TIFF in and out (libtiff), against the samples Pillow and tifffile wrote
/// (Tests/Fixtures/tiff, make_fixtures.py: the expected PNGs are the pixels that went in,
/// or Pillow's decode for JPEG and CMYK with a profile), and what catctl writes read
/// back by Pillow.
@Suite("TIFF")
struct TIFFTests {
    func pixels(_ relative: String) throws -> [UInt8] { try Fixtures.decode(relative).pixels.packedRGBA() }

    /// Every layout, compression and pixel type, read whole and a strip of 7 rows at a time.
    @Test(arguments: [
        "rgb-none", "rgb-lzw", "rgb-deflate", "rgb-deflate-old", "rgb-packbits", "rgb-strips", "rgb-tiled",
        "rgb-planar", "rgb-planar-tiled", "rgb-bigtiff", "rgb-bigtiff-tiled", "rgb16", "rgba16-assoc",
        "rgba-unassoc", "rgba-assoc", "rgba-planar-tiled", "grey8", "grey16", "grey-miniswhite", "grey1", "grey2",
        "grey4", "grey1-g4", "grey-alpha", "palette8", "palette4", "cmyk", "two-page", "meta",
    ])
    func losslessFilesAreExact(_ name: String) throws {
        let expected = try pixels("tiff/\(name).expected.png")
        #expect(try pixels("tiff/\(name).tif") == expected, "whole")
        let reader = try ImageReader(bytes: Fixtures.bytes("tiff/\(name).tif"), name: name)
        #expect(reader.format == .tiff && reader.canStream)
        let image = try PixelBuffer(width: reader.width, height: reader.height, hasAlpha: reader.hasAlpha)
        while reader.rowsRead < reader.height {
            try reader.readRows(into: image, at: reader.rowsRead, count: min(7, reader.height - reader.rowsRead))
        }
        #expect(image.packedRGBA() == expected, "in strips")
        // Read from the open file with pread (as `catctl edit` does), never whole in memory.
        let file = try ImageReader(source: ImageSource.open(Fixtures.path("tiff/\(name).tif")), name: name)
        #expect(file.metadata == reader.metadata && file.pageCount == reader.pageCount)
        let fromFile = try PixelBuffer(width: file.width, height: file.height, hasAlpha: file.hasAlpha)
        while file.rowsRead < file.height {
            try file.readRows(into: fromFile, at: file.rowsRead, count: min(7, file.height - file.rowsRead))
        }
        #expect(fromFile.packedRGBA() == expected, "from the file")
    }

    /// Decodes a TIFF file as `catctl edit` reads it: from the open file.
    func decodeFile(_ bytes: [UInt8], in folder: URL) throws -> DecodedImage {
        let path = folder.appendingPathComponent("t.tif").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try ImageDecoder.decode(ImageReader(source: ImageSource.open(path), name: "t"), options: DecodeOptions())
    }

    /// A file cut while it is being read gives an error, not a crash or a hang.
    @Test func aFileCutWhileItIsReadIsAnError() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["rgb-tiled", "rgb-lzw"] {
            let bytes = try Fixtures.bytes("tiff/\(name).tif")
            let path = folder.appendingPathComponent("\(name).tif").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let reader = try ImageReader(source: ImageSource.open(path), name: name)
            let image = try PixelBuffer(width: reader.width, height: reader.height, hasAlpha: reader.hasAlpha)
            try reader.readRows(into: image, at: 0, count: 1)
            #expect(truncate(path, off_t(bytes.count / 3)) == 0)
            #expect(throws: ImageIOError.self, "\(name)") {
                try reader.readRows(into: image, at: 1, count: reader.height - 1)
            }
        }
    }

    @Test(arguments: ["rgb-jpeg", "rgb-jpeg-rgb", "rgb-jpeg-tiled", "cmyk-icc"])
    func jpegAndProfiledCMYKMatchPillow(_ name: String) throws {
        let diff = PixelDifference(try pixels("tiff/\(name).tif"), try pixels("tiff/\(name).expected.png"))
        #expect(diff.maximum <= 2, "\(diff)")
    }

    @Test func theOrientationTagIsApplied() throws {
        let stored = try Fixtures.decode("tiff/orient6.expected.png").pixels
        let upright = try Fixtures.decode("tiff/orient6.tif").pixels
        #expect(upright.width == stored.height && upright.height == stored.width)
        #expect(upright.packedRGBA() == (try ExifOrientation.apply(6, to: stored)).packedRGBA())
    }

    @Test func pagesAreCountedAndTheFirstIsRead() throws {
        #expect(try ImageReader(bytes: Fixtures.bytes("tiff/two-page.tif"), name: "t").pageCount == 2)
        #expect(try ImageReader(bytes: Fixtures.bytes("tiff/rgb-lzw.tif"), name: "t").pageCount == 1)
    }

    @Test func metadataIsRead() throws {
        let metadata = try ImageReader(bytes: Fixtures.bytes("tiff/meta.tif"), name: "meta").metadata
        #expect(metadata.iccProfile.map { $0[16..<20].elementsEqual("RGB ".utf8) } == true)
        #expect(metadata.xmp.map { String(decoding: $0, as: UTF8.self).contains("x:xmpmeta") } == true)
        let exif = try #require(metadata.exif)
        #expect(exif.starts(with: Array("II*\0".utf8)) || exif.starts(with: Array("MM\0*".utf8)))
    }

    @Test func hostileFilesAreRefused() throws {
        #expect(throws: ImageIOError.tooLarge(file: "h", width: 100_000, height: 100_000, limit: 100_000_000)) {
            _ = try ImageReader(bytes: Fixtures.bytes("tiff/huge-declared.tif"), name: "h")
        }
        for name in ["giant-tile", "giant-stripbytes", "float32"] {
            #expect(throws: ImageIOError.self, "\(name)") {
                _ = try ImageDecoder.decode(Fixtures.bytes("tiff/\(name).tif"), name: name)
            }
        }
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["rgb-lzw", "rgb-tiled", "rgb-jpeg", "meta", "cmyk-icc"] {
            let bytes = try Fixtures.bytes("tiff/\(name).tif")
            for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 17)) {
                #expect(throws: ImageIOError.self, "\(name) cut at \(cut)") {
                    _ = try ImageDecoder.decode(Array(bytes.prefix(cut)), name: name)
                }
                #expect(throws: ImageIOError.self, "\(name) cut at \(cut), from the file") {
                    _ = try decodeFile(Array(bytes.prefix(cut)), in: folder)
                }
            }
            // Seeded, so a failure can be made again.
            var random = SeededRandom(seed: 20_261_127)
            for trial in 0..<20 {
                var mutated = bytes
                for _ in 0..<3 { mutated[Int.random(in: 4..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255) }
                let inMemory = try? ImageDecoder.decode(mutated, name: name)
                let fromFile = try? decodeFile(mutated, in: folder)
                #expect(
                    inMemory?.pixels.packedRGBA() == fromFile?.pixels.packedRGBA(),
                    "\(name), trial \(trial): the same either way")
            }
        }
    }

    /// A JPEG strip whose own header is narrower than the image: libtiff says the scanline was
    /// read and leaves part of it untouched. That part was leftover heap (the output changed
    /// from run to run, about 1 in 6, found by the mutations above); it is zeroed now, so the
    /// same file always gives the same pixels, from memory or from the file.
    @Test func anUnderfilledJPEGStripNeverShowsLeftoverMemory() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = try Fixtures.bytes("tiff/jpeg-strip-underfilled.tif")
        let first = try ImageDecoder.decode(bytes, name: "u").pixels.packedRGBA()
        // The pixels, once: what libtiff leaves unwritten is zero (FNV-1a of the RGBA bytes).
        let hash = first.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        #expect(hash == 15_476_410_121_298_221_415, "FNV-1a \(hash)")
        for run in 0..<12 {
            #expect(try ImageDecoder.decode(bytes, name: "u").pixels.packedRGBA() == first, "run \(run), memory")
            #expect(try decodeFile(bytes, in: folder).pixels.packedRGBA() == first, "run \(run), file")
        }
    }

    func encode(_ image: PixelBuffer, _ options: EncodeOptions, metadata: ImageMetadata = .none) throws -> [UInt8] {
        try Fixtures.writtenBytes { fd in
            try ImageEncoder.encode(image, to: fd, path: "out.tif", options: options, metadata: metadata)
        }
    }

    @Test(arguments: ["none", "lzw", "deflate"])
    func writtenFilesReadBackExactlyHereAndInPillow(_ compression: String) throws {
        let image = try PixelBuffer.random(width: 61, height: 45, seed: 9)
        let bytes = try encode(image, EncodeOptions(format: .tiff, settings: [.compression: .choice(compression)]))
        #expect(try ImageDecoder.decode(bytes, name: "o.tif").pixels.packedRGBA() == image.packedRGBA())
        guard Oracle.hasPython("PIL") else { return }
        let path = try Oracle.file(bytes, named: "o.tif")
        let script =
            "from PIL import Image; import sys; im = Image.open(sys.argv[1]); "
            + "sys.stdout.buffer.write(im.convert('RGBA').tobytes())"
        let pillow = try Oracle.run("python3", ["-c", script, path])
        #expect(pillow.status == 0)
        #expect(Array(pillow.stdout) == image.packedRGBA(), "Pillow reads what catctl wrote (\(compression))")
    }

    @Test func jpegCompressionIsLossyAndDropsAlpha() throws {
        let photo = try Fixtures.decode("photos/chelsea.png").pixels
        let high = try encode(photo, EncodeOptions(format: .tiff, settings: [.quality: 95, .compression: "jpeg"]))
        let low = try encode(photo, EncodeOptions(format: .tiff, settings: [.quality: 30, .compression: "jpeg"]))
        #expect(low.count < high.count)
        let decoded = try ImageDecoder.decode(high, name: "j.tif").pixels
        #expect(PixelDifference(decoded.packedRGBA(), photo.packedRGBA()).mean < 3)
        let alpha = try PixelBuffer.random(width: 16, height: 16, seed: 2)
        alpha.hasAlpha = true
        #expect(
            try ImageDecoder.decode(
                encode(alpha, EncodeOptions(format: .tiff, settings: [.compression: "jpeg"])), name: "a"
            ).pixels
                .hasAlpha == false)
    }

    @Test func metadataSurvivesARoundTrip() throws {
        let source = try ImageReader(bytes: Fixtures.bytes("tiff/meta.tif"), name: "meta").metadata
        let image = try PixelBuffer.random(width: 8, height: 8, seed: 1)
        let back = try ImageReader(bytes: encode(image, EncodeOptions(format: .tiff), metadata: source), name: "o")
            .metadata
        #expect(back.iccProfile == source.iccProfile && back.xmp == source.xmp)
        let exif = try #require(back.exif)
        #expect(exif.count > 8)
    }
}
