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
    /// of its own), gives catctl's mask on catctl's input: every value within 1e-4, run by
    /// catctl's kernels and by XNNPACK. The files themselves are the published network's
    /// (convert.py checks them against it).
    @Test func sameAsOpenCV() throws {
        let network = try #require(CatSegmenter.network, "\(CatSegmenter.unavailable ?? "")")
        try #require(XNNPACK.unavailable == nil, "libxnnpack0 (scripts/install-deps): \(XNNPACK.unavailable ?? "")")
        let dir = try Fixtures.temporaryDirectory()
        var ours: [String: [[Float]]] = [:]
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
            for runtime in [NetworkRuntime.own, .xnnpack] {
                let output = try #require(network.run(map, threads: 2, runtime: runtime).last)
                ours[file, default: []].append(Array(UnsafeBufferPointer(start: output.plane(0), count: 320 * 320)))
            }
        }
        let files = Fixtures.path("../../Resources/models/u2netp/u2netp")
        let result = try Oracle.run(
            "python3",
            [Fixtures.path("network/mask-oracle.py"), files + ".cfg", files + ".weights"] + ours.keys.sorted())
        try #require(
            result.status == 0, "python3-opencv and python3-onnx (scripts/test) run the oracle: \(result.stderr)")
        for (file, runs) in ours {
            let data = try Data(contentsOf: URL(fileURLWithPath: file + ".oracle"))
            let theirs = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            for (mine, runtime) in zip(runs, ["catctl's kernels", "XNNPACK"]) {
                try #require(theirs.count == mine.count)
                let apart = zip(mine, theirs).map { abs($0 - $1) }.max() ?? 1
                #expect(apart <= 1e-4, "\(file), \(runtime): a value \(apart) from OpenCV's")
                // A cat is there: a good part of the box is mask.
                #expect(mine.filter { $0 > 0.5 }.count > 320 * 320 / 5)
            }
        }
    }

    /// XNNPACK runs the detector's and the classifier's layers (leaky, upsample, the
    /// stride-1 max pool, routes, shortcuts, int8 weights, the average and the softmax) as
    /// catctl's kernels do: every value within 1e-3.
    @Test func xnnpackRunsTheOtherNetworksAlike() throws {
        try #require(XNNPACK.unavailable == nil, "libxnnpack0 (scripts/install-deps): \(XNNPACK.unavailable ?? "")")
        let detector = try #require(CatDetector.network), classifier = try #require(CatClassifier.network)
        let picture = try Fixtures.decode("cats/02-orange-white-lying.jpg").pixels
        let look = CatClassifier.input(picture, around: (300, 150, 700, 1300))
        let small = CatSegmenter.input(picture, (0, 0, picture.width, picture.height))
        let pass = FeatureMap(Darknet.Shape(channels: 3, width: 256, height: 320))
        for c in 0..<3 {
            for y in 0..<320 {
                for x in 0..<256 { pass.plane(c)[y * 256 + x] = small.plane(c)[y * 320 + x] }
            }
        }
        for (network, input) in [(detector, pass), (classifier, look)] {
            let own = network.run(input, threads: 2, runtime: .own)
            let theirs = network.run(input, threads: 2, runtime: .xnnpack)
            try #require(own.count == theirs.count && !own.isEmpty)
            for (a, b) in zip(own, theirs) {
                #expect(a.shape == b.shape)
                var apart: Float = 0
                for c in 0..<a.shape.channels {
                    for p in 0..<a.shape.pixels { apart = max(apart, abs(a.plane(c)[p] - b.plane(c)[p])) }
                }
                #expect(apart <= 1e-3, "\(a.shape): \(apart)")
            }
        }
    }

    /// The installed weights cut short, one float longer, or the cfg asking for another
    /// size: refused at reading, before any run.
    @Test func weightsThatDoNotFitAreRefused() throws {
        let folder = Fixtures.path("../../Resources/models/u2netp/u2netp")
        let cfg = try Array(Data(contentsOf: URL(fileURLWithPath: folder + ".cfg")))
        let weights = try Array(Data(contentsOf: URL(fileURLWithPath: folder + ".weights")))
        #expect(throws: Darknet.ReadError.self) { try Darknet(cfg: cfg, weights: Array(weights.dropLast(4))) }
        #expect(throws: Darknet.ReadError.self) { try Darknet(cfg: cfg, weights: weights + [0, 0, 128, 63]) }
        #expect(throws: Darknet.ReadError.self) { try Darknet(cfg: cfg, weights: Array(weights.prefix(100))) }
        // A run at 640 costs four times the 320 one: over the mask's budget.
        let larger = Array(
            String(decoding: cfg, as: UTF8.self).replacingOccurrences(of: "width=320", with: "width=640")
                .replacingOccurrences(of: "height=320", with: "height=640").utf8)
        #expect(throws: Darknet.ReadError.self) {
            try Darknet(cfg: larger, weights: weights, largestRun: 640, maxWork: CatSegmenter.maxWork)
        }
        #expect(throws: Never.self) {
            try CatSegmenter.check(
                try Darknet(cfg: cfg, weights: weights, largestRun: 320, maxWork: CatSegmenter.maxWork))
        }
    }

    /// A network that does not map 320 x 320 RGB to one plane of the same size through a
    /// last logistic is refused at reading (the classifier's files as the mask's).
    @Test func aMaskNetworkIsChecked() throws {
        let classifier = try #require(CatClassifier.network)
        #expect(throws: Darknet.ReadError.self) { try CatSegmenter.check(classifier) }
        #expect(throws: Never.self) { try CatSegmenter.check(try #require(CatSegmenter.network)) }
    }

    /// The mask of a cat a man holds, on its hand-marked box: the cat's body is in it, the
    /// man's face beside it is not; a cat the network cannot see gives none, and a box past
    /// `maxCats` is not looked at.
    @Test func maskOfACatHeldByAPerson() throws {
        let network = try #require(CatSegmenter.network)
        let picture = try Fixtures.decode("cats/13-man-holding-cat.jpg").pixels
        let cat = ScoredRegion(x: 148, y: 929, width: 332, height: 671, score: 1)
        let mask = CatSegmenter.mask(
            Array(repeating: cat, count: CatSegmenter.maxCats + 1), in: picture, threads: 2, network: network)
        #expect(mask.width == picture.width && mask.height == picture.height)
        #expect(mask.cats.count == CatSegmenter.maxCats)
        func mean(_ x: Range<Int>, _ y: Range<Int>) -> Int {
            var sum = 0
            for row in y { for col in x { sum += Int(mask.values[row * mask.width + col]) } }
            return sum / (x.count * y.count)
        }
        #expect(mean(250..<400, 1100..<1400) > 150, "the cat's body")
        #expect(mean(520..<700, 760..<900) < 20, "the man's face")
        #expect(mean(0..<1205, 0..<700) == 0, "above the grown box")
        let region = try #require(mask.cats.first ?? nil)
        #expect(region.x >= 148 - 25 && region.x + region.width <= 480 + 25 && region.pixels > 332 * 671 / 3)
    }
}
