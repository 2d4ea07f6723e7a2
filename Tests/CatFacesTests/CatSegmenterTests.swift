import CatPixels
import Foundation
import TestSupport
import Testing

@testable import CatModels

@Suite struct CatSegmenterTests {
    @Test func installedNetworkReads() throws {
        let network = try #require(CatSegmenter.network, "\(CatSegmenter.unavailable ?? "")")
        #expect(network.input == Darknet.Shape(channels: 3, width: 320, height: 320))
        #expect(network.shapes.last == Darknet.Shape(channels: 1, width: 320, height: 320))
        #expect(network.layers.filter { if case .convolution = $0 { true } else { false } }.count == 119)
    }

    /// OpenCV 4.6's dnn, reading the installed files through ONNX (mask-oracle.py, a reader
    /// of its own), gives catctl's mask on catctl's input: every value within 1e-4. The
    /// files themselves are the published network's (convert.py checks them against it).
    @Test func sameAsOpenCV() throws {
        let network = try #require(CatSegmenter.network, "\(CatSegmenter.unavailable ?? "")")
        let dir = try Fixtures.temporaryDirectory()
        var ours: [String: [Float]] = [:]
        for (photo, box) in [
            ("13-man-holding-cat.jpg", ScoredRegion(x: 148, y: 929, width: 332, height: 671, score: 1)),
            ("20-two-cats-cat-bed.jpg", ScoredRegion(x: 0, y: 495, width: 425, height: 436, score: 1)),
        ] {
            let picture = try Fixtures.decode("cats/" + photo).pixels
            let map = CatSegmenter.input(
                picture, CatSegmenter.grown(box, width: picture.width, height: picture.height))
            let file = dir.appendingPathComponent(photo + ".f32").path
            var floats: [Float] = []
            for c in 0..<3 { floats += UnsafeBufferPointer(start: map.plane(c), count: 320 * 320) }
            try floats.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: file)) }
            let output = try #require(network.run(map, threads: 2).last)
            ours[file] = Array(UnsafeBufferPointer(start: output.plane(0), count: 320 * 320))
        }
        let files = Fixtures.path("../../Resources/models/u2netp/u2netp")
        let result = try Oracle.run(
            "python3",
            [Fixtures.path("network/mask-oracle.py"), files + ".cfg", files + ".weights"] + ours.keys.sorted())
        try #require(
            result.status == 0, "python3-opencv and python3-onnx (scripts/test) run the oracle: \(result.stderr)")
        for (file, mine) in ours {
            let data = try Data(contentsOf: URL(fileURLWithPath: file + ".oracle"))
            let theirs = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            try #require(theirs.count == mine.count)
            let apart = zip(mine, theirs).map { abs($0 - $1) }.max() ?? 1
            #expect(apart <= 1e-4, "\(file): a value \(apart) from OpenCV's")
            // A cat is there: a good part of the box is mask.
            #expect(mine.filter { $0 > 0.5 }.count > 320 * 320 / 5)
        }
    }
}
