import CatImageIO
import Foundation
import TestSupport
import Testing

/// One valid PngSuite file and what pypng (an independent decoder) made of it.
struct PngSuiteCase: CustomTestStringConvertible, Sendable {
    let name: String
    let width: Int
    let height: Int
    let bitDepth: Int
    let hasAlpha: Bool
    var testDescription: String { name }

    static func all() -> [PngSuiteCase] {
        guard let text = try? String(contentsOfFile: Fixtures.path("pngsuite-expected/manifest.tsv"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: "\t").map(String.init)
            return PngSuiteCase(
                name: f[0], width: Int(f[1])!, height: Int(f[2])!, bitDepth: Int(f[3])!,
                hasAlpha: f[4] == "1")
        }
    }

    static func corrupt() -> [String] {
        let text =
            (try? String(contentsOfFile: Fixtures.path("pngsuite-expected/manifest-corrupt.txt"), encoding: .utf8))
            ?? ""
        return text.split(separator: "\n").map(String.init)
    }
}

@Suite("PNG decoding (libpng) against PngSuite")
struct PNGDecoderTests {
    @Test func manifestsAreComplete() {
        #expect(PngSuiteCase.all().count == 161)
        #expect(PngSuiteCase.corrupt().count == 14)
    }

    @Test("valid file equals the pypng decode", arguments: PngSuiteCase.all())
    func validFile(_ c: PngSuiteCase) throws {
        let decoded = try Fixtures.decode("pngsuite/\(c.name)")
        #expect(decoded.format == .png)
        #expect(decoded.pixels.width == c.width && decoded.pixels.height == c.height)
        #expect(decoded.pixels.hasAlpha == c.hasAlpha)
        let expected = try Fixtures.bytes("pngsuite-expected/\(c.name).rgba")
        let diff = PixelDifference(decoded.pixels.packedRGBA(), expected)
        // 16-bit samples are reduced to 8 bits; pypng's rounding and libpng's may differ by 1.
        #expect(diff.maximum <= (c.bitDepth == 16 ? 1 : 0), "\(c.name): \(diff)")
    }

    @Test("corrupt file is refused as bad data", arguments: PngSuiteCase.corrupt())
    func corruptFile(_ name: String) throws {
        #expect(throws: ImageIOError.self) { try Fixtures.decode("pngsuite/\(name)") }
        do {
            _ = try Fixtures.decode("pngsuite/\(name)")
        } catch let error as ImageIOError {
            switch error {
            case .notAnImage, .corrupt, .truncated: break
            default: Issue.record("\(name): unexpected \(error)")
            }
            #expect(error.description.contains(name))
        }
    }

    @Test func truncatedPNGThrows() throws {
        let bytes = try Fixtures.bytes("photos/chelsea.png")
        for cut in [8, 33, 100, bytes.count / 2, bytes.count - 13] {
            #expect(throws: ImageIOError.self, "cut at \(cut)") {
                try ImageDecoder.decode(Array(bytes.prefix(cut)), name: "cut.png")
            }
        }
    }

    /// A fuzzer find: a zTXt chunk whose length says 1.9 GiB in a 753-byte file made libpng
    /// allocate it all. Refused as truncated, nothing allocated.
    @Test func aChunkLongerThanTheFileIsRefused() throws {
        let bytes = try Fixtures.bytes("fuzz/png-huge-ztxt-length.png")
        #expect(throws: ImageIOError.truncated(file: "z.png")) { try ImageDecoder.decode(bytes, name: "z.png") }
    }

    @Test func hugeDeclaredSizeIsRefusedBeforeAllocating() throws {
        // A PNG whose IHDR claims 60000x60000 (valid CRC) and carries no pixels.
        let png = makePNGHeader(width: 60000, height: 60000)
        #expect(
            throws: ImageIOError.tooLarge(
                file: "big.png", width: 60000, height: 60000,
                limit: DecodeOptions.defaultMaxPixels)
        ) {
            try ImageDecoder.decode(png, name: "big.png")
        }
    }

    @Test func limitIsConfigurable() throws {
        #expect(throws: ImageIOError.tooLarge(file: "photos/chelsea.png", width: 451, height: 300, limit: 1000)) {
            try Fixtures.decode("photos/chelsea.png", options: DecodeOptions(maxPixels: 1000))
        }
        #expect(
            try Fixtures.decode("photos/chelsea.png", options: DecodeOptions(maxPixels: 451 * 300)).pixels.width == 451)
    }
}

/// The signature, an IHDR chunk and the start of an IDAT chunk, with correct CRCs:
/// what a decoder sees of a hostile "huge" PNG before any pixel data.
func makePNGHeader(width: UInt32, height: UInt32) -> [UInt8] {
    func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        + chunk("IHDR", be32(width) + be32(height) + [8, 6, 0, 0, 0])
        + chunk("IDAT", [0x78, 0x9C, 0x63, 0x00])
}

func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for b in bytes {
        crc ^= UInt32(b)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
