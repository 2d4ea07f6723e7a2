import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

/// ICC profiles, EXIF, XMP and comments from input to output (Tests/Fixtures/metadata,
/// written by Pillow with make_metadata_fixtures.py).
@Suite("Metadata")
struct MetadataTests {
    let wideRGB = (try? Fixtures.bytes("metadata/wide-rgb.icc")) ?? []
    static let xmpStart = Array("<?xpacket begin=".utf8)
    static let comment = Array("Chelsea the cat, CC0".utf8)

    func orientation(_ metadata: ImageMetadata) -> Int? {
        metadata.exif.map { tiff in tiff.withUnsafeBufferPointer { ExifOrientation.parse($0) } }
    }

    func expectAll(_ metadata: ImageMetadata, orientation: Int, _ label: String) {
        #expect(metadata.iccProfile == wideRGB, "\(label): ICC profile")
        #expect(self.orientation(metadata) == orientation, "\(label): EXIF")
        #expect(metadata.exif.map { String(decoding: $0, as: UTF8.self).contains("catctl tests") } == true)
        #expect(metadata.xmp?.starts(with: Self.xmpStart) == true, "\(label): XMP")
        #expect(metadata.comment == Self.comment, "\(label): comment")
    }

    @Test func decodersReadEveryKind() throws {
        #expect(wideRGB.count > 65_519, "the profile needs two APP2 segments")
        let jpeg = try ImageReader(bytes: Fixtures.bytes("metadata/meta.jpg"), name: "meta.jpg")
        expectAll(jpeg.metadata, orientation: 6, "JPEG as stored")
        let png = try ImageReader(bytes: Fixtures.bytes("metadata/meta.png"), name: "meta.png")
        expectAll(png.metadata, orientation: 1, "PNG")
        // Once the orientation is applied, the EXIF says so.
        let upright = try Fixtures.decode("metadata/meta.jpg")
        #expect(upright.pixels.width == 61 && upright.pixels.height == 97)
        expectAll(upright.metadata, orientation: 1, "JPEG upright")
        let sideways = try Fixtures.decode("metadata/meta.jpg", options: DecodeOptions(applyOrientation: false))
        #expect(orientation(sideways.metadata) == 6)
    }

    @Test(arguments: [ImageFormat.jpeg, .png], [ImageFormat.jpeg, .png])
    func everyFormatPairKeepsEverything(from input: ImageFormat, to output: ImageFormat) throws {
        let source = try Fixtures.decode("metadata/meta.\(input == .jpeg ? "jpg" : "png")")
        for policy in MetadataPolicy.allCases {
            let bytes = try Fixtures.writtenBytes { fd in
                try ImageEncoder.encode(
                    source.pixels, to: fd, path: "out",
                    options: EncodeOptions(format: output, settings: EncodeSettings([:], metadata: policy)),
                    metadata: source.metadata)
            }
            let back = try ImageReader(bytes: bytes, name: "out").metadata
            switch policy {
            case .keep: expectAll(back, orientation: 1, "\(input) → \(output)")
            case .strip: #expect(back == ImageMetadata(iccProfile: wideRGB), "--strip keeps the profile only")
            case .stripAll: #expect(back.isEmpty)
            }
        }
    }

    @Test func pngAndWebPOrientationsAreAppliedToo() throws {
        // meta.jpg's EXIF says 6 (turn 90° clockwise): written as it is stored into a PNG
        // and a WebP, those files must come out upright as the JPEG does, saying 1.
        let stored = try Fixtures.decode("metadata/meta.jpg", options: DecodeOptions(applyOrientation: false))
        let upright = try Fixtures.decode("metadata/meta.jpg").pixels
        for format in [ImageFormat.png, .webp] {
            let bytes = try Fixtures.writtenBytes { fd in
                try ImageEncoder.encode(
                    stored.pixels, to: fd, path: "o",
                    options: EncodeOptions(format: format, settings: [.lossless: true]),
                    metadata: stored.metadata)
            }
            let decoded = try ImageDecoder.decode(bytes, name: "o")
            #expect(decoded.orientation == 6 && orientation(decoded.metadata) == 1, "\(format)")
            #expect(decoded.pixels.width == 61 && decoded.pixels.height == 97)
            #expect(decoded.pixels.packedRGBA() == upright.packedRGBA(), "\(format)")
        }
    }

    @Test func cmykThroughItsProfileMatchesLittleCMS() throws {
        let decoded = try Fixtures.decode("metadata/cmyk-icc.jpg")
        let expected = try Fixtures.decode("metadata/cmyk-icc.expected.png")
        let diff = PixelDifference(decoded.pixels.packedRGBA(), expected.pixels.packedRGBA())
        // Pillow converted the same JPEG with its own lcms2 build; the decodes agree exactly here.
        #expect(diff.maximum <= 2, "\(diff)")
        // The pixels are sRGB now: the CMYK profile is not carried to RGB outputs.
        #expect(decoded.metadata.iccProfile == nil)
        // Without a profile, the naive formula (as before) gives other colours.
        let naive = try Fixtures.decode("jpeg/chelsea-cmyk.jpg").pixels
        #expect(naive.pixel(0, 0) == (0, 255, 255, 255))
    }

    @Test func orientationResetBothByteOrders() {
        for little in [true, false] {
            // A TIFF header, one IFD entry: orientation (0x0112), SHORT, count 1, value 8.
            func u16(_ v: Int) -> [UInt8] {
                little ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)]
            }
            func u32(_ v: Int) -> [UInt8] { little ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
            var tiff: [UInt8] = (little ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8) + u16(1)
            tiff += u16(0x0112) + u16(3) + u32(1) + u16(8) + u16(0) + u32(0)
            #expect(tiff.withUnsafeBufferPointer { ExifOrientation.parse($0) } == 8)
            ExifOrientation.reset(&tiff)
            #expect(tiff.withUnsafeBufferPointer { ExifOrientation.parse($0) } == 1)
        }
        var garbage: [UInt8] = [1, 2, 3]
        ExifOrientation.reset(&garbage)
        #expect(garbage == [1, 2, 3])
    }

    @Test func onlyRGBProfilesAndTIFFDataAreKept() throws {
        let cmyk = try Fixtures.bytes("metadata/warm-cmyk.icc")
        #expect(ImageMetadata(iccProfile: cmyk).iccProfile == nil)
        #expect(ImageMetadata(iccProfile: wideRGB).iccProfile == wideRGB)
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 0]
        #expect(ImageMetadata(exif: Array("Exif\0\0".utf8) + tiff).exif == tiff)
        #expect(ImageMetadata(exif: [1, 2, 3, 4, 5, 6, 7, 8]).exif == nil)
    }
}
