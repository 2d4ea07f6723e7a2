import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

/// The ICC profile and EXIF survive edit, batch and load; --strip and --strip-all drop
/// what they say (issue 10).
@Suite("Metadata on the command line")
struct MetadataCommandTests {
    let source = Fixtures.path("metadata/meta.jpg")
    let profile = (try? Fixtures.bytes("metadata/wide-rgb.icc")) ?? []

    func metadata(_ path: String) throws -> ImageMetadata {
        try ImageReader(bytes: InputFile.read(path), name: path).metadata
    }

    func orientation(_ metadata: ImageMetadata) -> Int? {
        metadata.exif.map { tiff in tiff.withUnsafeBufferPointer { ExifOrientation.parse($0) } }
    }

    @Test func editKeepsOrStrips() throws {
        let dir = try Fixtures.temporaryDirectory()
        for name in ["kept.jpg", "kept.png"] {
            let out = dir.appendingPathComponent(name).path
            let result = try Catctl.run(["edit", "--filter", "sepia", source, out])
            #expect(result.status == 0, "\(result.stderr)")
            let kept = try metadata(out)
            #expect(kept.iccProfile == profile && kept.xmp != nil && kept.comment != nil, "\(name)")
            #expect(orientation(kept) == 1, "applied once: the written orientation is 1")
        }
        let stripped = dir.appendingPathComponent("strip.png").path
        #expect(try Catctl.run(["edit", "--strip", "--filter", "sepia", source, stripped]).status == 0)
        #expect(try metadata(stripped) == ImageMetadata(iccProfile: profile))
        let none = dir.appendingPathComponent("none.jpg").path
        #expect(try Catctl.run(["edit", "--strip-all", "--filter", "sepia", source, none]).status == 0)
        #expect(try metadata(none).isEmpty)
    }

    @Test func batchAndLoadKeepTheSameWay() throws {
        let dir = try Fixtures.temporaryDirectory()
        let batch = try Catctl.run(["batch", "--filter", "mono", "--format", "png", "--output-dir", dir.path, source])
        #expect(batch.status == 0, "\(batch.stderr)")
        let batched = try metadata(dir.appendingPathComponent("meta.png").path)
        #expect(batched.iccProfile == profile && orientation(batched) == 1)

        // load: the folder provider serves the fixture; same format keeps the bytes as downloaded.
        let cats = dir.appendingPathComponent("cats")
        try FileManager.default.createDirectory(at: cats, withIntermediateDirectories: true)
        try Data(Fixtures.bytes("metadata/meta.jpg")).write(to: cats.appendingPathComponent("meta.jpg"))
        let asIs = dir.appendingPathComponent("as-is.jpg").path
        let load = try Catctl.run(["load", "--provider", "folder", "--endpoint", cats.path, "--no-preview", "-o", asIs])
        #expect(load.status == 0, "\(load.stderr)")
        #expect(try InputFile.read(asIs) == (try Fixtures.bytes("metadata/meta.jpg")))
        let converted = dir.appendingPathComponent("converted.png").path
        #expect(
            try Catctl.run(["load", "--provider", "folder", "--endpoint", cats.path, "--no-preview", "-o", converted])
                .status == 0)
        #expect(try metadata(converted).iccProfile == profile)
        // --strip with the same format cannot keep the bytes: the cat is encoded anew without EXIF.
        let stripped = dir.appendingPathComponent("stripped.jpg").path
        let strip = try Catctl.run([
            "load", "--provider", "folder", "--endpoint", cats.path, "--no-preview", "--strip", "-o", stripped,
        ])
        #expect(strip.status == 0, "\(strip.stderr)")
        #expect(try metadata(stripped) == ImageMetadata(iccProfile: profile))
    }

    @Test func losslessNeedsNoQuality() throws {
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("x.png").path
        let result = try Catctl.run(["edit", "--lossless", "--quality", "50", "--filter", "sepia", source, out])
        #expect(result.status == 64 && result.stderr.contains("--lossless takes no --quality"))
    }
}
