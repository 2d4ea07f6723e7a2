import CatImageIO
import CatPixels
import FilterCore
import TestSupport
import Testing

/// The W3C Filter Effects 1 functions against values worked out by hand from the
/// spec's matrices (https://www.w3.org/TR/filter-effects-1/#FilterPrimitiveRepresentation).
@Suite("W3C colour functions")
struct W3CMatrixTests {
    /// Runs one filter spec on one pixel, through the fast path and the reference.
    func run(_ specs: [String], _ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 200) throws -> [UInt8] {
        let chain = try FilterChain(specs: specs)
        let fast = try PixelBuffer(width: 1, height: 1)
        fast.base[0] = r; fast.base[1] = g; fast.base[2] = b; fast.base[3] = a
        let reference = try chain.applyReference(to: try fast.copy())
        let result = try chain.apply(to: fast, threads: 1)
        #expect(result.packedRGBA() == reference.packedRGBA())
        return result.packedRGBA()
    }

    @Test func sepia() throws {
        // r = .393·100 + .769·150 + .189·200 = 192.45
        // g = .349·100 + .686·150 + .168·200 = 171.4
        // b = .272·100 + .534·150 + .131·200 = 133.5 → 134 (halves round up)
        #expect(try run(["sepia"], 100, 150, 200) == [192, 171, 134, 200])
        #expect(try run(["sepia:1"], 100, 150, 200) == [192, 171, 134, 200])
        // Over 1 clamps to 1; 0 is the identity.
        #expect(try run(["sepia:3"], 100, 150, 200) == [192, 171, 134, 200])
        #expect(try run(["sepia:0"], 100, 150, 200) == [100, 150, 200, 200])
        // White saturates: .393+.769+.189 = 1.351 → 344.5 → clamped to 255.
        #expect(try run(["sepia"], 255, 255, 255) == [255, 255, 239, 200])  // b: (.272+.534+.131)·255 = 238.9
        // sepia(0.5): r = (.393+.3035)·100 + (.769−.3845)·150 + (.189−.0945)·200 = 69.65+57.675+18.9 = 146.225
        #expect(try run(["sepia:50%"], 100, 150, 200)[0] == 146)
    }

    @Test func grayscale() throws {
        // .2126·255 = 54.21
        #expect(try run(["grayscale"], 255, 0, 0) == [54, 54, 54, 200])
        // .7152·255 = 182.38; .0722·255 = 18.41
        #expect(try run(["grayscale"], 0, 255, 0) == [182, 182, 182, 200])
        #expect(try run(["grayscale:1"], 0, 0, 255) == [18, 18, 18, 200])
        #expect(try run(["mono"], 0, 0, 255) == [18, 18, 18, 200])
        // grayscale(0.5) on red: r = (.2126 + .3937)·255 = 154.6
        #expect(try run(["grayscale:0.5"], 255, 0, 0)[0] == 155)
    }

    @Test func saturate() throws {
        // saturate(0) on red: .213·255 = 54.3
        #expect(try run(["saturate:0"], 255, 0, 0) == [54, 54, 54, 200])
        // saturate(2) on (100,150,200): r = 1.787·100 − .715·150 − .072·200 = 178.7 − 107.25 − 14.4 = 57.05
        // g = −.213·100 + 1.285·150 − .072·200 = −21.3 + 192.75 − 14.4 = 157.05
        // b = −.213·100 − .715·150 + 1.928·200 = −21.3 − 107.25 + 385.6 = 257.05 → 255
        #expect(try run(["saturate:2"], 100, 150, 200) == [57, 157, 255, 200])
        #expect(try run(["saturate:200%"], 100, 150, 200) == [57, 157, 255, 200])
    }

    @Test func hueRotate() throws {
        // 180°: cos −1, sin 0. Red: r = (.213 − .787)·255 < 0 → 0; g = b = (.213 + .213)·255 = 108.6
        #expect(try run(["hue-rotate:180"], 255, 0, 0) == [0, 109, 109, 200])
        #expect(try run(["hue-rotate:180deg"], 255, 0, 0) == [0, 109, 109, 200])
        #expect(try run(["hue-rotate:0.5turn"], 255, 0, 0) == [0, 109, 109, 200])
        // 90°: cos 0, sin 1. Red: r = (.213 − .213)·255 = 0; g = (.213 + .143)·255 = 90.8; b = (.213 − .787) < 0
        #expect(try run(["hue-rotate:90"], 255, 0, 0) == [0, 91, 0, 200])
        // 0 and 360 are the identity (within rounding of the float matrix).
        #expect(try run(["hue-rotate"], 12, 34, 56) == [12, 34, 56, 200])
        #expect(try run(["hue-rotate:360"], 12, 34, 56) == [12, 34, 56, 200])
    }

    @Test func invertBrightnessContrast() throws {
        #expect(try run(["invert"], 10, 20, 30) == [245, 235, 225, 200])
        // invert(0.5): every value becomes 0.5 → 127.5 → 128
        #expect(try run(["invert:0.5"], 10, 200, 30) == [128, 128, 128, 200])
        #expect(try run(["brightness:0.5"], 200, 100, 51) == [100, 50, 26, 200])  // 25.5 → 26
        #expect(try run(["brightness:2"], 200, 100, 50) == [255, 200, 100, 200])
        // contrast(2): 2x − 127.5 → 272.5 → 255, 72.5 → 73, −27.5 → 0
        #expect(try run(["contrast:2"], 200, 100, 50) == [255, 73, 0, 200])
        #expect(try run(["contrast:0"], 200, 100, 50) == [128, 128, 128, 200])
    }

    @Test func chainsRoundAndClampAfterEachFunction() throws {
        // brightness(2) then brightness(0.5): clamped to 255 in between, so 200 → 255 → 127.5 → 128,
        // not 200 as one folded matrix would give.
        #expect(try run(["brightness:2", "brightness:0.5"], 200, 100, 50) == [128, 100, 50, 200])
        // invert then sepia equals sepia of the inverted pixel.
        let inverted = try run(["invert"], 100, 150, 200)
        let separately = try run(["sepia"], inverted[0], inverted[1], inverted[2])
        #expect(try run(["invert", "sepia"], 100, 150, 200) == separately)
    }
}
