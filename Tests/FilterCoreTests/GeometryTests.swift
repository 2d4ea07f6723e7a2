import CatFaces
import CatImageIO
import CatPixels
import Foundation
import TestSupport
import Testing

@testable import FilterCore

/// The geometry stages against plain index arithmetic and a straightforward
/// double-precision Lanczos-3, written here independently of the stages' own references.
@Suite("Geometry stages")
struct GeometryTests {
    func pixel(_ image: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] {
        let p = image.row(y) + 4 * x
        return [p[0], p[1], p[2], p[3]]
    }

    func run(_ spec: String, on image: PixelBuffer, threads: Int = 2) throws -> PixelBuffer {
        try FilterChain(specs: [spec]).apply(to: try image.copy(), threads: threads)
    }

    @Test(
        "rotate, flip, flop and crop move every pixel where index arithmetic says",
        arguments: [
            (1, 1), (2, 3), (17, 5), (64, 31), (301, 7),
        ])
    func exactMoves(_ size: (Int, Int)) throws {
        let (w, h) = size
        let image = try PixelBuffer.random(width: w, height: h, seed: UInt64(w * 131 + h))
        let cases: [(String, Int, Int, (Int, Int) -> (Int, Int))] = [
            ("rotate:90", h, w, { x, y in (y, h - 1 - x) }),
            ("rotate:180", w, h, { x, y in (w - 1 - x, h - 1 - y) }),
            ("rotate:270", h, w, { x, y in (w - 1 - y, x) }),
            ("flip", w, h, { x, y in (x, h - 1 - y) }),
            ("flop", w, h, { x, y in (w - 1 - x, y) }),
            (
                "crop:\(max(1, w / 2))x\(max(1, h / 3))+\(w / 3)+\(h / 2)", max(1, w / 2), max(1, h / 3),
                { x, y in (x + w / 3, y + h / 2) }
            ),
            (
                "crop:\(max(1, w - 1))x\(max(1, h - 1))", max(1, w - 1), max(1, h - 1),
                { x, y in (x + (w - max(1, w - 1)) / 2, y + (h - max(1, h - 1)) / 2) }
            ),
        ]
        for (spec, ow, oh, from) in cases {
            for threads in [1, 3] {
                let out = try run(spec, on: image, threads: threads)
                #expect(out.width == ow && out.height == oh, "\(spec)")
                for y in 0..<oh {
                    for x in 0..<ow {
                        let (sx, sy) = from(x, y)
                        guard pixel(out, x, y) == pixel(image, sx, sy) else {
                            Issue.record("\(spec) \(w)x\(h): pixel \(x),\(y)")
                            return
                        }
                    }
                }
            }
        }
    }

    @Test func quarterTurnsAndMirrorsUndoThemselves() throws {
        let image = try PixelBuffer.random(width: 37, height: 11, seed: 4)
        for chain in [
            ["rotate:90", "rotate:270"], ["rotate:180", "rotate:180"], ["flip", "flip"], ["flop", "flop"],
            ["rotate:90", "rotate:90", "flip", "flop"],
        ] {
            let out = try FilterChain(specs: chain).apply(to: try image.copy())
            #expect(out.packedRGBA() == image.packedRGBA(), "\(chain)")
        }
    }

    /// Lanczos-3 as Pillow's LANCZOS defines it, one output pixel at a time, in doubles:
    /// the kernel stretched by the scale when shrinking, normalised per output pixel.
    static func lanczos(_ src: PixelBuffer, width ow: Int, height oh: Int) throws -> PixelBuffer {
        func weights(_ inSize: Int, _ outSize: Int, _ i: Int) -> [(Int, Double)] {
            let scale = Double(inSize) / Double(outSize), filterScale = max(scale, 1), support = 3 * filterScale
            let center = (Double(i) + 0.5) * scale
            let lo = max(0, Int(center - support + 0.5)), hi = min(inSize, Int(center + support + 0.5))
            func l3(_ x: Double) -> Double {
                x == 0 ? 1 : abs(x) >= 3 ? 0 : 3 * sin(.pi * x) * sin(.pi * x / 3) / (.pi * .pi * x * x)
            }
            let raw = (lo..<max(lo + 1, hi)).map { ($0, l3((Double($0) - center + 0.5) / filterScale)) }
            let total = raw.reduce(0) { $0 + $1.1 }
            return raw.map { ($0.0, $0.1 / total) }
        }
        let out = try PixelBuffer(width: ow, height: oh, hasAlpha: true)
        for y in 0..<oh {
            let wy = weights(src.height, oh, y)
            for x in 0..<ow {
                let wx = weights(src.width, ow, x)
                for c in 0..<4 {
                    var sum = 0.0
                    for (sy, vy) in wy { for (sx, vx) in wx { sum += vy * vx * Double(src.row(sy)[4 * sx + c]) } }
                    out.row(y)[4 * x + c] = UInt8(min(max(sum.rounded(), 0), 255))
                }
            }
        }
        return out
    }

    @Test(
        "resize is within 1 of a double-precision Lanczos-3",
        arguments: [
            (37, 23, "resize:11"), (20, 15, "resize:53x40"), (101, 3, "resize:7x3"), (64, 64, "resize:x21"),
            (9, 40, "resize:9x13"), (5, 5, "resize:5"),
        ])
    func resizeMatchesLanczos(_ w: Int, _ h: Int, _ spec: String) throws {
        let image = try PixelBuffer.random(width: w, height: h, seed: UInt64(w + 7 * h))
        for threads in [1, 2] {
            let out = try run(spec, on: image, threads: threads)
            let expected = try Self.lanczos(image, width: out.width, height: out.height)
            let diff = PixelDifference(out.packedRGBA(), expected.packedRGBA())
            #expect(diff.maximum <= 1, "\(spec) \(w)x\(h) threads \(threads): \(diff)")
        }
        // The same size is the same picture.
        #expect(try run("resize:\(w)x\(h)", on: image).packedRGBA() == image.packedRGBA())
    }

    /// The area average in doubles, one output pixel at a time: each source pixel weighted
    /// by the part of it the output pixel's footprint covers.
    static func areaAverage(_ src: PixelBuffer, width ow: Int, height oh: Int) throws -> PixelBuffer {
        let out = try PixelBuffer(width: ow, height: oh, hasAlpha: true)
        let sx = Double(src.width) / Double(ow), sy = Double(src.height) / Double(oh)
        for y in 0..<oh {
            for x in 0..<ow {
                var sum = [0.0, 0.0, 0.0, 0.0], total = 0.0
                for j in 0..<src.height {
                    let wy = min(Double(y + 1) * sy, Double(j + 1)) - max(Double(y) * sy, Double(j))
                    guard wy > 0 else { continue }
                    for i in 0..<src.width {
                        let w = wy * (min(Double(x + 1) * sx, Double(i + 1)) - max(Double(x) * sx, Double(i)))
                        guard w > 0 else { continue }
                        for c in 0..<4 { sum[c] += w * Double(src.row(j)[4 * i + c]) }
                        total += w
                    }
                }
                for c in 0..<4 { out.row(y)[4 * x + c] = UInt8((sum[c] / total).rounded()) }
            }
        }
        return out
    }

    @Test(
        "the box resampler is within 1 of a double-precision area average, and its kernel equals its reference",
        arguments: [(37, 23, 11, 7), (20, 15, 3, 2), (101, 3, 7, 1), (64, 64, 21, 21), (9, 40, 9, 13), (5, 5, 5, 5)])
    func boxMatchesAreaAverage(_ w: Int, _ h: Int, _ ow: Int, _ oh: Int) throws {
        let image = try PixelBuffer.random(width: w, height: h, seed: UInt64(3 * w + h))
        let expected = try Self.areaAverage(image, width: ow, height: oh)
        for threads in [1, 2] {
            let out = try image.resampled(width: ow, height: oh, filter: .box, threads: threads)
            let diff = PixelDifference(out.packedRGBA(), expected.packedRGBA())
            #expect(diff.maximum <= 1, "\(w)x\(h) -> \(ow)x\(oh) threads \(threads): \(diff)")
        }
        let chain = FilterChain.resample(toExactly: ow, oh, filter: .box)
        #expect(
            try chain.apply(to: try image.copy()).packedRGBA()
                == (try chain.applyReference(to: try image.copy())).packedRGBA())
    }

    @Test func boxAveragesWholeAndSplitPixels() throws {
        let image = try PixelBuffer(width: 4, height: 2)
        for x in 0..<4 {
            for y in 0..<2 {
                let v: UInt8 = x < 2 ? 0 : 200
                (image.row(y) + 4 * x).update(repeating: v, count: 3)
                image.row(y)[4 * x + 3] = 255
            }
        }
        let small = try image.resampled(width: 2, height: 1, filter: .box)
        #expect(small.pixel(0, 0) == (0, 0, 0, 255) && small.pixel(1, 0) == (200, 200, 200, 255))
        let odd = try image.resampled(width: 3, height: 1, filter: .box)
        #expect(odd.pixel(1, 0).0 == 100)
        #expect(image.fittingSize(maxWidth: 2, maxHeight: 100) == (2, 1))
    }

    @Test func sizes() throws {
        let chain = { (spec: String) in try FilterChain(specs: [spec]) }
        #expect(try chain("resize:800").outputSize(width: 4032, height: 3024) == (800, 600))
        #expect(try chain("resize:x600").outputSize(width: 4032, height: 3024) == (800, 600))
        #expect(try chain("resize:800x800").outputSize(width: 4032, height: 3024) == (800, 600))
        #expect(try chain("resize:8000x100").outputSize(width: 400, height: 300) == (133, 100))
        #expect(try chain("resize:1000").outputSize(width: 400, height: 300) == (1000, 750), "it may enlarge")
        #expect(try chain("cover:300x300").outputSize(width: 4032, height: 3024) == (300, 300))
        #expect(try chain("crop:10x20+3+4").outputSize(width: 100, height: 100) == (10, 20))
        #expect(try chain("rotate:90").outputSize(width: 4032, height: 3024) == (3024, 4032))
        let cover = try chain("cover:64x64").apply(to: try PixelBuffer.random(width: 90, height: 40, seed: 1))
        #expect(cover.width == 64 && cover.height == 64)
    }

    @Test func badValuesAreUsageErrorsNamingTheProblem() throws {
        for spec in [
            "resize:0", "resize:x", "resize:-5", "resize:10x0", "resize:abc", "cover:100", "crop:10",
            "crop:10x10+1", "crop:10x10+a+1", "rotate:45", "rotate", "resize", "resize:2000000",
        ] {
            #expect(throws: FilterError.self, "\(spec)") { try FilterChain(specs: [spec]) }
        }
        #expect(
            throws: FilterError.doesNotFit(
                spec: "crop:50x50+60+0", width: 100, height: 80,
                reason: "it reaches 110x50, past the image's edge")
        ) {
            _ = try FilterChain(specs: ["crop:50x50+60+0"]).outputSize(width: 100, height: 80)
        }
        let message = FilterError.doesNotFit(
            spec: "crop:500x500", width: 451, height: 300,
            reason: "it is larger than the image"
        ).description
        #expect(message == "crop:500x500 does not fit the 451x300 image: it is larger than the image")
    }

    @Test func shrinkOnLoadPicksTheDCTScaleThatLeavesTwiceTheTarget() throws {
        let chain = try FilterChain(specs: ["resize:800", "sepia"])
        let shrunk = try #require(chain.shrinkOnLoad(width: 4032, height: 3024))
        #expect(shrunk.denominator == 2)  // 2016x1512 >= 1600x1200; 1008x756 is not
        #expect(try shrunk.chain.outputSize(width: 2016, height: 1512) == (800, 600))
        #expect(chain.shrinkOnLoad(width: 4032, height: 3024)?.chain.specs == ["resize:800", "sepia"])
        #expect(try FilterChain(specs: ["resize:200"]).shrinkOnLoad(width: 4032, height: 3024)?.denominator == 8)
        #expect(try FilterChain(specs: ["resize:3000"]).shrinkOnLoad(width: 4032, height: 3024) == nil)
        #expect(try FilterChain(specs: ["sepia", "resize:200"]).shrinkOnLoad(width: 4032, height: 3024) == nil)
    }

    /// Found by the filter-spec fuzzer: a resize then a crop ends small, but the resize on
    /// the way would be 100087x55604. Every step counts against the pixel limit.
    @Test func theLargestStepIsWhatCounts() throws {
        let text = String(decoding: try Fixtures.bytes("fuzz/filter-spec-huge-intermediate.txt"), as: UTF8.self)
        let specs = text.split(separator: "\n").map(String.init)
        #expect(specs.first == "resize:100087")
        let chain = try FilterChain(specs: ["resize:100087", "crop:3x2+1+1"])
        let sizes = try chain.sizes(width: 9, height: 5)
        #expect(sizes.width == 3 && sizes.height == 2)
        #expect(sizes.largestWidth == 100087 && sizes.largestHeight == 55604 && sizes.largestPixels > 5_000_000_000)
    }
}

/// `crop:WxH:GRAVITY` and `cover:WxH:GRAVITY`: the compass points put the window where
/// `crop:WxH+X+Y` would, and the chain says where the window is in the input's pixels.
@Suite("Gravity")
struct GravityTests {
    @Test(
        arguments: [
            ("centre", 10, 7), ("north", 10, 0), ("south", 10, 14), ("east", 20, 7), ("west", 0, 7),
            ("northeast", 20, 0),
            ("northwest", 0, 0), ("southeast", 20, 14), ("southwest", 0, 14),
        ])
    func compassPoints(_ gravity: String, _ x: Int, _ y: Int) throws {
        let image = try PixelBuffer.random(width: 30, height: 20, seed: 17)
        let placed = try FilterChain(specs: ["crop:10x6:\(gravity)"])
        let explicit = try FilterChain(specs: ["crop:10x6+\(x)+\(y)"])
        #expect(
            try placed.apply(to: try image.copy()).packedRGBA() == explicit.apply(to: try image.copy()).packedRGBA())
        let window = try #require(placed.gravityWindow(width: 30, height: 20))
        #expect(window == (x, y, 10, 6))
        #expect(
            try FilterChain(specs: ["crop:10x6:\(gravity.uppercased())"]).outputSize(width: 30, height: 20) == (10, 6))
    }

    @Test func coverReportsTheWindowInTheInputsPixels() throws {
        // 451x300 covered to 100x100: resized to 150x100, the east third kept.
        let window = try #require(try FilterChain(specs: ["cover:100x100:east"]).gravityWindow(width: 451, height: 300))
        #expect(window == (150, 0, 301, 300))
        #expect(
            try FilterChain(specs: ["sepia", "crop:400x300", "crop:100x50:south"]).gravityWindow(
                width: 451, height: 300)! == (175, 250, 100, 50))
        #expect(
            try FilterChain(specs: ["cover:100x100"]).gravityWindow(width: 451, height: 300) == nil,
            "no gravity asked for")
        #expect(
            try FilterChain(specs: ["rotate:90", "crop:10x10:north"]).gravityWindow(width: 451, height: 300) == nil)
    }

    /// A grey field with a patch of red noise (edges, saturation and grey levels) at `patchX`.
    func field(patchX: Int) throws -> PixelBuffer {
        let image = try PixelBuffer(width: 640, height: 200, hasAlpha: false)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(patchX)
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        for y in 0..<200 {
            let p = image.row(y)
            for x in 0..<640 {
                let inPatch = (patchX..<patchX + 80).contains(x) && (60..<140).contains(y)
                p[4 * x] = inPatch ? 150 + next() % 106 : 128
                p[4 * x + 1] = inPatch ? next() % 100 : 128
                p[4 * x + 2] = inPatch ? next() % 100 : 128
                p[4 * x + 3] = 255
            }
        }
        return image
    }

    /// attention and entropy (libvips's measures) find the interesting part wherever it is,
    /// the crop is exactly the window they report, and a smaller copy of the picture
    /// chooses the same part.
    @Test(arguments: ["attention", "entropy"])
    func picturesGravitiesFindTheInterestingPart(_ gravity: String) throws {
        for patchX in [20, 290, 540] {
            let image = try field(patchX: patchX)
            let chain = try FilterChain(specs: ["crop:160x200:\(gravity)"])
            #expect(chain.readsPicture)
            let placed = try chain.resolvingGravity(picture: image, width: 640, height: 200)
            #expect(!placed.readsPicture)
            let window = try #require(placed.gravityWindow(width: 640, height: 200))
            #expect(window.x <= patchX && window.x + 160 >= patchX + 80, "\(gravity), patch at \(patchX): \(window)")
            let explicit = try FilterChain(specs: ["crop:160x200+\(window.x)+0"])
            #expect(try chain.apply(to: image.copy()).packedRGBA() == explicit.apply(to: image.copy()).packedRGBA())
            let small = try image.resampled(width: 160, height: 50, filter: .box)
            let fromSmall = try #require(
                try chain.resolvingGravity(picture: small, width: 640, height: 200).gravityWindow(
                    width: 640, height: 200))
            #expect(fromSmall.x <= patchX && fromSmall.x + 160 >= patchX + 80, "from a quarter-size copy: \(fromSmall)")
        }
        // Through a cover: the window is reported in the input's pixels.
        let image = try field(patchX: 540)
        let cover = try FilterChain(specs: ["cover:100x100:\(gravity)"])
            .resolvingGravity(picture: image, width: 640, height: 200)
        let window = try #require(cover.gravityWindow(width: 640, height: 200))
        #expect(window.width == 200 && window.height == 200 && window.x >= 420, "\(window)")
    }

    /// A cover that shrinks the picture a lot asks for a copy at most `maxCopySide` long (not
    /// a full-size one: 405 MB for `cover:200x200:cat` on 48 MP), and places its window on
    /// it as on the full picture: the copy keeps its detail through the resize.
    @Test func aShrinkingCoverPlacesFromACappedCopy() throws {
        let field = try field(patchX: 540)
        let image = try field.resampled(width: 2560, height: 800, filter: .box)  // the patch at 2160-2480
        let chain = try FilterChain(specs: ["cover:100x100:attention"])
        #expect(chain.pictureCopySide(width: 2560, height: 800) == FilterChain.maxCopySide)
        let full = try #require(
            try chain.resolvingGravity(picture: image, width: 2560, height: 800).gravityWindow(width: 2560, height: 800)
        )
        let copy = try image.resampled(width: 2048, height: 640, filter: .box)
        let capped = try #require(
            try chain.resolvingGravity(picture: copy, width: 2560, height: 800).gravityWindow(width: 2560, height: 800))
        #expect(capped.width == 800 && abs(capped.x - full.x) <= 16, "\(capped) against \(full)")
        #expect(capped.x >= 1680, "the patch is kept: \(capped)")
        // A crop before the gravity still makes the copy larger by as much; small pictures
        // are asked for as before.
        #expect(
            try FilterChain(specs: ["crop:800x800+0+0", "cover:100x100:attention"]).pictureCopySide(
                width: 8000, height: 800) == 5120)
        #expect(chain.pictureCopySide(width: 1600, height: 500) == 1600)
    }

    /// `cat` with nothing found (no finder, or one that sees no cat) is the centred window,
    /// not attention's (which loses to the centre on photos of cats: Benchmarks/catcrop.py).
    @Test func catGravityWithoutACatIsTheCentre() throws {
        let image = try field(patchX: 540)
        for subjects in [nil, FixedSubjects(found: .none)] as [(any SubjectFinder)?] {
            let placed = try FilterChain(specs: ["crop:160x200:cat"], subjects: subjects)
                .resolvingGravity(picture: image, width: 640, height: 200)
            // Centred on the copy the gravity reads, then scaled back: within a pixel.
            let x = try #require(placed.gravityWindow(width: 640, height: 200)?.x)
            #expect(abs(x - 240) <= 1, "\(x)")
        }
    }

    @Test func badGravitiesNameTheValidOnes() {
        #expect(
            throws: FilterError.badValue(
                filter: "cover", value: "10x10:middle",
                reason: "unknown gravity 'middle'; use one of centre, north, south, east, west, northeast, northwest, "
                    + "southeast, southwest, cat, attention, entropy")
        ) { try Filter(parsing: "cover:10x10:middle") }
        #expect(throws: FilterError.self) { try Filter(parsing: "crop:10x10+1+2:north") }
    }

    /// `cat` keeps the marked face of real photos (two whose face the cascades find) in
    /// square and 9:16 crops.
    @Test func catGravityKeepsTheFace() throws {
        // Photo, its marked face (Tests/Fixtures/cats/faces.json).
        for (name, face) in [
            ("01-sol-nascente-siamese.jpg", (540, 380, 460, 365)), ("04-tabby-white-closeup.jpg", (345, 135, 760, 675)),
        ] {
            let image = try Fixtures.decode("cats/\(name)").pixels
            for (w, h) in [(image.height, image.height), (image.height * 9 / 16, image.height)] where face.2 <= w {
                let chain = try FilterChain(specs: ["crop:\(w)x\(h):cat"], subjects: CatFacesForTests())
                let placed = try chain.resolvingGravity(picture: image, width: image.width, height: image.height)
                let window = try #require(placed.gravityWindow(width: image.width, height: image.height))
                let inside =
                    max(0, min(window.x + w, face.0 + face.2) - max(window.x, face.0))
                    * max(0, min(window.y + h, face.1 + face.3) - max(window.y, face.1))
                #expect(Double(inside) >= 0.9 * Double(face.2 * face.3), "\(name) \(w)x\(h): \(window)")
            }
        }
    }

    @Test func catGravityPlacesTheWindowAroundTheFaces() {
        let a = Subject(x: 100, y: 100, width: 50, height: 50, score: 0.9)
        let b = Subject(x: 300, y: 120, width: 60, height: 60, score: 0.6)
        // Both fit: centred across on the pair, their middle two fifths down.
        let both = Interest.around([a, b], imageWidth: 1000, imageHeight: 600, width: 400, height: 300)
        #expect(both?.x == 30 && both?.y == 20, "\(String(describing: both))")
        // Too far apart for the window: the larger alone, however certain the other.
        let one = Interest.around([a, b], imageWidth: 1000, imageHeight: 600, width: 150, height: 150)
        #expect(one?.x == 255 && one?.y == 90, "\(String(describing: one))")
        // Near an edge: the window stays inside the image.
        let edge = Interest.around(
            [Subject(x: 950, y: 560, width: 40, height: 40, score: 1)], imageWidth: 1000, imageHeight: 600,
            width: 300, height: 200)
        #expect(edge?.x == 700 && edge?.y == 400)
        #expect(Interest.around([], imageWidth: 10, imageHeight: 10, width: 5, height: 5) == nil)
    }

    @Test func captionsKeepOffTheFace() throws {
        guard case let .spatial(stage) = try FilterChain(specs: ["caption:HELLO CAT"]).stages[0],
            let caption = stage as? CaptionStage
        else {
            Issue.record("no caption stage")
            return
        }
        #expect(caption.needsPicture)
        let low = Subject(x: 100, y: 520, width: 80, height: 70, score: 1)
        let high = Subject(x: 100, y: 40, width: 80, height: 70, score: 1)
        #expect(try caption.placed(clearOf: [low], width: 640, height: 600).side == .top)
        #expect(try caption.placed(clearOf: [high], width: 640, height: 600).side == .bottom)
        #expect(try caption.placed(clearOf: [], width: 640, height: 600).side == .bottom)
        for (spec, top) in [("caption-top:HI", true), ("caption-bottom:HI", false)] {
            let chain = try FilterChain(specs: [spec])
            #expect(!chain.readsPicture)
            guard case let .spatial(forced) = chain.stages[0], let forced = forced as? CaptionStage else { continue }
            #expect(forced.top == top)
        }
        // On a photo cut so that the cat's face reaches into the bottom caption's rows (a
        // finder that sees it there: which regions the real one gives is CatFaces' tests').
        let image = try Fixtures.decode("cats/01-sol-nascente-siamese.jpg").pixels
        let face = Subject(x: 80, y: 40, width: 140, height: 120, score: 1)
        let chain = try FilterChain(
            specs: ["crop:1000x600+300+250", "caption:HELLO CAT"],
            subjects: FixedSubjects(found: Subjects(inView: [face], clearOf: [face])))
        let placed = try chain.resolvingGravity(picture: image, width: image.width, height: image.height)
        // With no detector handed in, a caption has no face to keep off: it goes below.
        let blind = try FilterChain(specs: ["crop:1000x600+300+250", "caption:HELLO CAT"])
            .resolvingGravity(picture: image, width: image.width, height: image.height)
        if case let .spatial(stage) = blind.stages[1], let caption = stage as? CaptionStage {
            #expect(caption.side == .bottom)
        }
        guard case let .spatial(last) = placed.stages[1], let decided = last as? CaptionStage else {
            Issue.record("no caption stage")
            return
        }
        #expect(decided.side == .top)
    }

    /// A picture-read crop larger than the picture is refused, as any crop that does not
    /// fit (it once resolved itself over and over, to a stack overflow).
    @Test(arguments: ["cat", "entropy", "attention"])
    func aPictureGravityCropTooLargeIsRefused(_ gravity: String) throws {
        let image = try PixelBuffer.random(width: 60, height: 40, seed: 3)
        #expect(throws: FilterError.self) { try FilterChain(specs: ["crop:100x100:\(gravity)"]).apply(to: image) }
        #expect(throws: FilterError.self) {
            try FilterChain(specs: ["crop:100x100:\(gravity)", "caption:HI"]).apply(to: image)
        }
    }

    /// The copy a gravity reads is as long as it needs where the crop gets it: 320 px for
    /// the faces, 512 for attention and entropy, more before a cover's shrinking resize,
    /// never more than the input.
    @Test func pictureCopySides() throws {
        #expect(try FilterChain(specs: ["crop:900x900:cat"]).pictureCopySide(width: 4000, height: 3000) == 320)
        #expect(try FilterChain(specs: ["caption:HI"]).pictureCopySide(width: 4000, height: 3000) == 320)
        #expect(try FilterChain(specs: ["crop:900x900:entropy"]).pictureCopySide(width: 4000, height: 3000) == 512)
        // cover:1080x1920 resizes 4000x3000 to 2560x1920 before its crop: 320 there.
        #expect(try FilterChain(specs: ["cover:1080x1920:cat"]).pictureCopySide(width: 4000, height: 3000) == 500)
        #expect(
            try FilterChain(specs: ["sepia", "resize:10%", "crop:40x40:cat"]).pictureCopySide(width: 800, height: 600)
                == 800)
        #expect(try FilterChain(specs: ["crop:10x10:cat"]).pictureCopySide(width: 200, height: 100) == 200)
    }
}

/// CatFaces' finder as a subject finder, as the scenes hand one to their chains
/// (CatScenes' CatSubjects; the filter core itself knows no detector).
struct CatFacesForTests: SubjectFinder {
    var side: Int { CatFinder.side }
    func subjects(inCopy image: PixelBuffer) -> Subjects {
        let finding = CatFinder.find(in: image)
        return Subjects(inView: finding.inView, clearOf: finding.clearOf)
    }
}

/// A finder that sees `found` (in a copy `side` long) in every picture.
struct FixedSubjects: SubjectFinder {
    let found: Subjects
    var side: Int { 300 }
    func subjects(inCopy image: PixelBuffer) -> Subjects { found }
}
