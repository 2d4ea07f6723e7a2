import CatImageIO
import FilterCore
import Foundation
import TestSupport
import Testing

@testable import CatFaces

@Suite struct CascadeTests {
    struct Case: Decodable {
        let picture: String, cascade: String
        let scaleFactor: Double, minNeighbours: Int, minSize: Int, maxSize: Int
        let boxes: [[Int]]
    }
    struct Expected: Decodable {
        let opencv: String
        let cases: [Case]
    }

    static let expected: [Case] = {
        let data = (try? Fixtures.bytes("cascades/expected.json")) ?? []
        return (try? JSONDecoder().decode(Expected.self, from: Data(data)).cases) ?? []
    }()

    static func grey(_ name: String) throws -> GreyImage {
        GreyImage(try Fixtures.decode("cascades/\(name)").pixels)
    }

    @Test func builtInCascadesRead() {
        let lbp = Cascade.lbp.stages, haar = Cascade.haar.stages
        #expect(lbp.ends.count == 20 && lbp.stageThresholds.count == 20)
        #expect(Cascade.lbp.features.count > 0 && lbp.subsets.count == 8 * lbp.features.count)
        #expect(Cascade.haar.width == 24 && Cascade.haar.height == 24)
        #expect(haar.features.allSatisfy { $0 < Cascade.haar.features.count })
        #expect(haar.ends.last.map(Int.init) == haar.features.count && haar.left.count == haar.features.count)
    }

    /// The same boxes as OpenCV 4.6's detectMultiScale (Debian's python3-opencv, made by
    /// Tests/Fixtures/cascades/make_expected.py) for both cascades, five pictures and four
    /// parameter sets, the raw windows (minNeighbours 0) among them; with every build of
    /// the SIMD kernel (`cc_cascade_scan`) the CPU can run.
    @Test(arguments: expected.indices)
    func sameBoxesAsOpenCV(index: Int) throws {
        let c = Self.expected[index]
        let cascade = c.cascade == "lbp" ? Cascade.lbp : Cascade.haar
        let grey = try Self.grey(c.picture)
        defer { KernelISA.select(.best) }
        for isa in KernelISA.available {
            KernelISA.select(isa)
            let boxes = cascade.detect(
                in: grey, scaleFactor: c.scaleFactor, minNeighbours: c.minNeighbours, minSize: c.minSize,
                maxSize: c.maxSize)
            let ours = boxes.map { [$0.x, $0.y, $0.width, $0.height] }.sorted { $0.lexicographicallyPrecedes($1) }
            #expect(ours == c.boxes, "\(isa.name): \(c.picture) \(c.cascade) \(c.scaleFactor) \(c.minNeighbours)")
        }
    }

    @Test func expectedCasesAreThere() {
        #expect(Self.expected.count == 40)
        #expect(Self.expected.contains { !$0.boxes.isEmpty && $0.minNeighbours == 3 })
    }
}

@Suite struct CatFaceDetectorTests {
    /// The marked faces (faces.json) of two photos are found on their grey copies 384 px
    /// long (as the detector reads them; made by OpenCV, Tests/Fixtures/cascades).
    @Test(arguments: [
        ("01-sol-nascente-siamese", 540, 380, 460, 365, 1600),
        ("04-tabby-white-closeup", 345, 135, 760, 675, 1600),
    ])
    func findsTheMarkedFace(_ name: String, _ x: Int, _ y: Int, _ w: Int, _ h: Int, _ long: Int) throws {
        let grey = try CascadeTests.grey("\(name).grey.png")
        let k = Double(max(grey.width, grey.height)) / Double(long)
        let mark = CatFace(x: x, y: y, width: w, height: h, score: 1).scaled(by: k)
        let faces = CatFaceDetector.faces(in: grey)
        #expect(faces.count == 1, "\(faces)")
        #expect(faces.contains { $0.overlap(mark) >= 0.5 && $0.score > 0.5 && $0.score < 1 }, "\(faces)")
    }

    /// Noise and a flat grey field hold no cat.
    @Test func noFaceWhereThereIsNoCat() {
        var state: UInt64 = 42
        let noise = (0..<(300 * 200)).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        #expect(CatFaceDetector.faces(in: GreyImage(width: 300, height: 200, pixels: noise)).isEmpty)
        let flat = GreyImage(width: 300, height: 200, pixels: Array(repeating: 128, count: 60000))
        #expect(CatFaceDetector.faces(in: flat).isEmpty)
        // Smaller than the cascades' window: nothing at all, and no crash.
        let tiny = GreyImage(width: 10, height: 30, pixels: Array(repeating: 0, count: 300))
        #expect(CatFaceDetector.faces(in: tiny).isEmpty)
    }

    @Test func equalisationAndResizeMatchOpenCV() throws {
        // The fixtures' grey copies were equalised by OpenCV: equalising again maps each
        // level present to itself or near it, and the histogram spans 0-255.
        let grey = try CascadeTests.grey("01-sol-nascente-siamese.grey.png")
        let again = grey.equalized()
        #expect(again.pixels.min() == 0 && again.pixels.max() == 255)
        // An exact halving is the 2 x 2 mean, rounded.
        let half = GreyImage(width: 4, height: 2, pixels: [0, 1, 10, 20, 2, 3, 30, 41]).resized(width: 2, height: 1)
        #expect(half.pixels == [2, 25])
        // The same size is the same picture.
        #expect(grey.resized(width: grey.width, height: grey.height).pixels == grey.pixels)
    }

    /// The reader takes its numbers straight from the bytes: integers with a sign, reals
    /// read as doubles and narrowed to float (OpenCV's way), in any layout of whitespace,
    /// comments and attributes.
    @Test func cascadeNumbersAreReadAsOpenCVReadsThem() throws {
        let text = """
            <?xml version="1.0"?>
            <opencv_storage>
            <cascade type_id="opencv-cascade-classifier"><stageType>BOOST</stageType>
              <featureType>HAAR</featureType><height>24</height><width>24</width>
              <stages>
                <!-- stage 0 -->
                <_><stageThreshold>-1.4836560487747192e+00</stageThreshold>
                  <weakClassifiers><_><internalNodes>
                    0 -1 1 +4.0411222726106644e-02</internalNodes>
                    <leafValues>-8.7143093347549438e-01 0.7</leafValues></_></weakClassifiers></_></stages>
              <features>
                <_><rects><_>2 3 10 4 -1.</_><_>2 5 10 2 2.</_></rects><tilted>0</tilted></_>
                <_><rects><_>0 0 24 24 -1.</_></rects><tilted>0</tilted></_></features></cascade>
            </opencv_storage>
            """
        let cascade = try CascadeFile.cascade(text)
        #expect(cascade.kind == .haar && cascade.width == 24 && cascade.height == 24)
        #expect(cascade.stages.stageThresholds == [Float(-1.4836560487747192e+00 as Double) - 1e-5])
        #expect(cascade.stages.features == [1] && cascade.stages.ends == [1])
        #expect(cascade.stages.thresholds == [Float(4.0411222726106644e-02 as Double)])
        #expect(cascade.stages.left == [Float(-8.7143093347549438e-01 as Double)] && cascade.stages.right == [0.7])
        #expect(cascade.features[0].map { [$0.x, $0.y, $0.width, $0.height] } == [[2, 3, 10, 4], [2, 5, 10, 2]])
        #expect(cascade.features[0].map(\.weight) == [-1, 2])
        #expect(throws: CascadeFile.FormatError.self) {
            try CascadeFile.cascade(text.replacingOccurrences(of: "0.7", with: "0.7x"))
        }
        for feature in ["1.5", "9999999999999999999", "99999999999"] {
            #expect(throws: CascadeFile.FormatError.self) {
                try CascadeFile.cascade(text.replacingOccurrences(of: "0 -1 1", with: "0 -1 \(feature)"))
            }
        }
    }

    @Test func cascadeFilesThatAreNotCascadesAreRefused() {
        #expect(throws: CascadeFile.FormatError.self) { try CascadeFile.cascade("<opencv_storage></opencv_storage>") }
        #expect(throws: CascadeFile.FormatError.self) { try CascadeFile.cascade("<a><b>") }
        #expect(throws: CascadeFile.FormatError.self) {
            try CascadeFile.cascade(
                "<opencv_storage><cascade><stageType>BOOST</stageType><featureType>HOG</featureType></cascade></opencv_storage>"
            )
        }
    }
}
