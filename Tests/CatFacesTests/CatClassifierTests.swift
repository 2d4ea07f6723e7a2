import CatImageIO
import CatPixels
import FilterCore
import Foundation
import TestSupport
import Testing

@testable import CatFaces
@testable import CatModels

@Suite struct CatClassifierTests {
    @Test func installedNetworkReads() throws {
        let network = try #require(CatClassifier.network, "\(CatClassifier.unavailable ?? "")")
        #expect(network.input == Darknet.Shape(channels: 3, width: 224, height: 224))
        #expect(network.shapes.last == Darknet.Shape(channels: 1000, width: 1, height: 1))
        #expect(network.layers.filter { if case .convolution = $0 { true } else { false } }.count == 50)
    }

    struct OracleResult: Decodable {
        let input: String
        let probabilities: [Double]
        let pillow: [Double]
        let largest: Double
    }

    /// OpenCV 4.6's dnn, reading the installed files through ONNX (classifier-oracle.py, a
    /// reader of its own), gives catctl's probabilities on catctl's inputs: each of the 1000
    /// within 0.002. catctl's input is Pillow's crop and bilinear resize (what the threshold
    /// was chosen on): within 0.03 a value (Pillow rounds to 8 bits between its passes) for a
    /// crop up to 448 px, and the domestic-cat probability within 0.03 from larger crops
    /// (averaged in blocks first). Boxes whole, inside, small (upsampled) and hanging off the
    /// picture (black there); every build of the kernels gives the same bits.
    @Test func sameAsOpenCV() throws {
        let network = try #require(CatClassifier.network, "\(CatClassifier.unavailable ?? "")")
        let photos = [
            "02-orange-white-lying.jpg", "93-tiger-white-cub.jpg", "117-sand-cat-face.jpg", "13-man-holding-cat.jpg",
        ]
        let dir = try Fixtures.temporaryDirectory()
        var specs: [String] = []
        var ours: [String: (map: FeatureMap, probabilities: [Float], side: Double)] = [:]
        defer { KernelISA.select(.best) }
        for photo in photos {
            let path = Fixtures.path("cats/" + photo)
            let picture = try Fixtures.decode("cats/" + photo).pixels
            let (w, h) = (Double(picture.width), Double(picture.height))
            let boxes = [
                (0.0, 0.0, w, h), (w * 0.25, h * 0.2, w * 0.5, h * 0.6), (w * 0.4, h * 0.4, 60.0, 45.0),
                (w * 0.7, h * -0.1, w * 0.4, h * 0.5),
            ]
            for (i, box) in boxes.enumerated() {
                let map = CatClassifier.input(picture, around: box)
                let file = dir.appendingPathComponent("\(i)-\(photo).f32").path
                var floats: [Float] = []
                for c in 0..<3 { floats += UnsafeBufferPointer(start: map.plane(c), count: 224 * 224) }
                try floats.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: file)) }
                let spec = "\(path):\(box.0):\(box.1):\(box.2):\(box.3):\(file)"
                specs.append(spec)
                var first: [Float]?
                for isa in ours.count < 3 ? KernelISA.available : [.best] {
                    KernelISA.select(isa)
                    let output = try #require(network.run(map, threads: 2).last)
                    let probabilities = (0..<1000).map { output.plane($0)[0] }
                    if let first { #expect(probabilities == first, "\(isa.name) differs on \(spec)") }
                    first = first ?? probabilities
                }
                KernelISA.select(.best)
                ours[spec] = (map, first ?? [], max(box.2, box.3) * 1.1)
            }
        }
        let files = Fixtures.path("../../Resources/models/efficientnet-lite0/efficientnet-lite0")
        let result = try Oracle.run(
            "python3", [Fixtures.path("network/classifier-oracle.py"), files + ".cfg", files + ".weights"] + specs)
        try #require(
            result.status == 0, "python3-opencv and python3-onnx (scripts/test) run the oracle: \(result.stderr)")
        let expected = try String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(OracleResult.self, from: Data(String($0).utf8))
        }
        #expect(expected.count == specs.count)
        func domestic(_ p: [Double]) -> Double { CatClassifier.domestic.reduce(0) { $0 + p[$1] } }
        for oracle in expected {
            let mine = try #require(ours[oracle.input])
            let probabilities = mine.probabilities.map(Double.init)
            let apart = zip(probabilities, oracle.probabilities).map { abs($0 - $1) }.max() ?? 1
            #expect(apart <= 0.002, "\(oracle.input): a probability \(apart) from OpenCV's")
            #expect(
                abs(
                    domestic(probabilities)
                        - (CatClassifier.domesticScore(mine.map, network: network, threads: 1) ?? -1))
                    < 1e-6)
            if mine.side <= 448 {
                #expect(oracle.largest <= 0.03, "\(oracle.input): the input \(oracle.largest) from Pillow's")
            }
            #expect(
                abs(domestic(oracle.pillow) - domestic(probabilities)) <= 0.03,
                "\(oracle.input): \(domestic(probabilities)) against \(domestic(oracle.pillow)) on Pillow's input")
        }
    }

    struct Reference: Decodable {
        struct Box: Decodable {
            let file: String
            let box: [Double]
            let domestic: Double
            let top: Int
        }
        let boxes: [Box]
    }

    /// The converted network (int8 and float16) agrees with the fp32 one it was made from:
    /// on boxes of eight fixture photos, cats and look-alikes, the domestic-cat probability
    /// within 0.05 of what the fp32 network gave on Pillow's crop (convert.py wrote it to
    /// classifier-fp32.json), and the same top class but on at most one.
    @Test func agreesWithTheNetworkItWasConvertedFrom() throws {
        let network = try #require(CatClassifier.network, "\(CatClassifier.unavailable ?? "")")
        let reference = try JSONDecoder().decode(
            Reference.self, from: Data(Fixtures.bytes("network/classifier-fp32.json")))
        #expect(reference.boxes.count == 8)
        var differentTop = 0
        for expected in reference.boxes {
            let picture = try Fixtures.decode("cats/" + expected.file).pixels
            let b = expected.box
            let input = CatClassifier.input(picture, around: (b[0], b[1], b[2], b[3]))
            let output = try #require(network.run(input, threads: 2).last)
            let probabilities = (0..<1000).map { Double(output.plane($0)[0]) }
            let domestic = CatClassifier.domestic.reduce(0) { $0 + probabilities[$1] }
            #expect(
                abs(domestic - expected.domestic) <= 0.05, "\(expected.file): \(domestic) against \(expected.domestic)")
            if probabilities.indices.max(by: { probabilities[$0] < probabilities[$1] }) != expected.top {
                differentTop += 1
            }
        }
        #expect(differentTop <= 1)
    }

    /// The second look keeps the orange cat's box and drops a box on a cheetah (which COCO,
    /// with no class for it, calls a cat): ImageNet's classes tell them apart.
    @Test func keepsADomesticCatAndDropsAWildOne() throws {
        try #require(CatClassifier.network != nil, "\(CatClassifier.unavailable ?? "")")
        let cat = try Fixtures.decode("cats/02-orange-white-lying.jpg").pixels
        let box = ScoredRegion(x: 266, y: 164, width: 704, height: 1300, score: 0.9)
        #expect(CatClassifier.domesticCats([box], in: cat) == [box])
        let wild = try Fixtures.decode("cats/123-cheetah-face.jpg").pixels
        let whole = ScoredRegion(x: 0, y: 0, width: wild.width, height: wild.height, score: 0.9)
        #expect(CatClassifier.domesticCats([whole], in: wild).isEmpty)
    }

    /// Past `maxLooks` boxes are kept unlooked (as without the classifier): sixteen boxes on
    /// a cheetah are dropped, the four after them kept. A network whose weights overflow on a
    /// picture scores nothing there, and the box is kept (it could not be looked at).
    @Test func whatCannotBeLookedAtIsKept() throws {
        try #require(CatClassifier.network != nil, "\(CatClassifier.unavailable ?? "")")
        let wild = try Fixtures.decode("cats/123-cheetah-face.jpg").pixels
        let boxes = (0..<20).map { i in
            ScoredRegion(x: i, y: 0, width: wild.width - i, height: wild.height, score: 0.9 - Double(i) / 100)
        }
        #expect(CatClassifier.domesticCats(boxes, in: wild) == Array(boxes.suffix(4)))
        // Half weights of 65504 everywhere: six layers' sums overflow, the softmax is not a number.
        var cfg = """
            [net]
            width=224
            height=224
            channels=3

            """
        for _ in 0..<6 {
            cfg += "[convolutional]\nfilters=8\nsize=3\nstride=2\npad=1\nactivation=linear\nweights=half\n\n"
        }
        cfg += "[avgpool]\n\n[convolutional]\nfilters=1000\nsize=1\nactivation=linear\nweights=half\n\n[softmax]\n"
        var weights = DarknetReaderTests.header
        for (outputs, per) in [(8, 27)] + Array(repeating: (8, 72), count: 5) + [(1000, 8)] {
            weights += [UInt8](repeating: 0, count: 4 * outputs)
            for _ in 0..<(outputs * per) { weights += [0xff, 0x7b] }  // 65504
        }
        let overflowing = try Darknet(cfg: Array(cfg.utf8), weights: weights, largestRun: 224)
        try CatClassifier.check(overflowing)
        let whole = ScoredRegion(x: 0, y: 0, width: wild.width, height: wild.height, score: 0.9)
        #expect(CatClassifier.domesticCats([whole], in: wild, network: overflowing) == [whole])
    }

    /// The installed network's own checks: one output, a softmax, last, over 1000 classes.
    @Test func aClassifierMustEndInASoftmaxOverTheClasses() throws {
        let network = try #require(CatClassifier.network, "\(CatClassifier.unavailable ?? "")")
        try CatClassifier.check(network)
        let cfg = """
            [net]
            width=224
            height=224
            channels=3

            [avgpool]

            [convolutional]
            filters=10
            size=1
            activation=linear

            [softmax]

            [route]
            layers=-3
            """
        var weights = DarknetReaderTests.header
        weights += [UInt8](repeating: 0, count: 4 * (10 + 30))
        let ten = try Darknet(cfg: Array(cfg.utf8), weights: weights, largestRun: 224)
        #expect(throws: Darknet.ReadError.self) { try CatClassifier.check(ten) }
    }

    /// Pillow's bilinear taps: each output's weights sum to 1 and reach no further than the
    /// source; shrinking widens the tent.
    @Test func tentTaps() {
        for (source, count) in [(1, 224), (100, 224), (224, 224), (448, 224), (1000, 224)] {
            for (first, weights) in Resample.tent(source, count) {
                #expect(first >= 0 && first + weights.count <= source)
                #expect(abs(weights.reduce(0, +) - 1) < 1e-5)
            }
        }
        #expect(Resample.tent(448, 224)[100].weights.count == 4)
    }
}
