import CatImageIO
import CatPixels
import CatScenes
import FilterCore
import Foundation
import TestSupport
import Testing

@MainActor
@Suite("Edit Cat with the real interactor and views")
struct EditCatSceneTests {
    @Test func editsAFixtureToPNGAndJPEG() async throws {
        let dir = try Fixtures.temporaryDirectory()
        for name in ["out.png", "out.jpg"] {
            let view = RecordingEditCatView()
            let output = dir.appendingPathComponent(name).path
            let presenter = Router.makeEditCat(view: view, interactor: EditCatInteractor(threads: 2))
            let status = await presenter.edit(
                EditRequest(
                    input: Fixtures.path("jpeg/chelsea-420.jpg"), output: output,
                    filters: ["sepia"], format: try #require(ImageFormat(path: name))))
            #expect(status == .ok)
            let back = try ImageDecoder.decode(try InputFile.read(output), name: output)
            #expect(back.format == ImageFormat(path: name))
            #expect(back.pixels.width == 97 && back.pixels.height == 61)
        }
        #expect(Fixtures.contents(of: dir) == ["out.jpg", "out.png"])
    }

    @Test func failureLeavesNoFile() async throws {
        let dir = try Fixtures.temporaryDirectory()
        let view = RecordingEditCatView()
        let presenter = Router.makeEditCat(view: view, interactor: EditCatInteractor())
        let status = await presenter.edit(
            EditRequest(
                input: Fixtures.path("jpeg/monkey12.jpg"),
                output: dir.appendingPathComponent("o.png").path, filters: ["mono"],
                format: .png))
        #expect(status == .dataError)
        #expect(Fixtures.contents(of: dir).isEmpty)
    }

    /// Streamed or decoded whole, the view hears the same events in the same order:
    /// the image's facts, then a rising percentage that ends at 100.
    @Test func bothPathsTellTheSameStory() async throws {
        let dir = try Fixtures.temporaryDirectory()
        let input = dir.appendingPathComponent("big.png").path
        let image = try PixelBuffer.random(width: 2100, height: 2000, seed: 3)
        try OutputFile.write(to: input) { (fd: Int32) throws(ImageIOError) in
            try ImageEncoder.encode(
                image, to: fd, path: input, options: EncodeOptions(format: .png, settings: [.level: 1]))
        }
        for (filters, streams) in [(["sepia"], true), (["blur:1", "rotate:90"], false)] {
            let view = RecordingEditCatView()
            let presenter = Router.makeEditCat(view: view, interactor: EditCatInteractor(threads: 2))
            let output = dir.appendingPathComponent("out-\(streams).jpg").path
            #expect(
                await presenter.edit(EditRequest(input: input, output: output, filters: filters, format: .jpeg)) == .ok)
            let chain = try FilterChain(specs: filters)
            let reader = try ImageReader(bytes: try InputFile.read(input), name: input)
            #expect((reader.canStream && StreamingPipeline.canStream(chain)) == streams)
            #expect(view.calls.first == .state(.processing))
            #expect(
                view.calls[1] == .imageInfo(EditCatImageInfo(input: input, format: "png", width: 2100, height: 2000)))
            let percents = view.calls.compactMap { if case let .progress(p) = $0 { p.percent } else { nil } }
            #expect(percents.count > 5 && percents == percents.sorted() && Set(percents).count == percents.count)
            #expect(percents.last == 100, "\(filters): \(percents)")
            #expect(view.calls.suffix(2).last == .state(.done))
            guard case .saved = view.calls[view.calls.count - 2] else {
                Issue.record("\(view.calls.suffix(2))"); continue
            }
        }
    }
}

/// The gallery shows a cut-out's transparency as checks, not the colours under it.
@Suite("Contact sheet")
struct ContactSheetTests {
    /// Every pixel of every picture is cat but the left half.
    struct RightHalf: SubjectFinder {
        var side: Int { 100 }
        func subjects(inCopy image: PixelBuffer) -> Subjects { .none }
        func catMask(in image: PixelBuffer) -> SubjectMask? {
            let values = (0..<image.width * image.height).map { $0 % image.width >= image.width / 2 ? UInt8(255) : 0 }
            return SubjectMask(width: image.width, height: image.height, values: values, cats: 1)
        }
    }

    @Test func transparencyShowsAsChecks() throws {
        let image = try PixelBuffer(width: 64, height: 48)
        image.fill(r: 10, g: 200, b: 30)
        let chain = try FilterChain(specs: ["cutout"], subjects: RightHalf())
        let sheet = try ContactSheet.make(of: image, chains: [chain], previewWidth: nil, threads: 1).sheet
        var greys = 0, green = 0
        for y in 0..<sheet.height {
            let row = sheet.row(y)
            for x in 0..<sheet.width {
                let (r, g, b) = (row[4 * x], row[4 * x + 1], row[4 * x + 2])
                if r == g && g == b && (r == 204 || r == 153) { greys += 1 }
                if (r, g, b) == (10, 200, 30) { green += 1 }
            }
        }
        #expect(greys > 64 * 48 / 4 && green > 64 * 48 / 4, "checks on the left, the picture on the right")
    }
}
