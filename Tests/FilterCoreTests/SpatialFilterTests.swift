import CatImageIO
import CatPixels
import FilterCore
import Foundation
import TestSupport
import Testing

@Suite("Spatial filters")
struct SpatialFilterTests {
    /// A straightforward 2-D Gaussian in double precision: every output pixel is the
    /// weighted sum over the whole (2r+1)² window, edges repeating the border pixel.
    static func gaussian2D(_ src: PixelBuffer, sigma: Double) throws -> PixelBuffer {
        let r = Int((3 * sigma).rounded(.up))
        let g = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = g.reduce(0, +)
        let out = try PixelBuffer(width: src.width, height: src.height)
        for y in 0..<src.height {
            for x in 0..<src.width {
                for c in 0..<4 {
                    var sum = 0.0
                    for j in -r...r {
                        let row = src.row(min(max(y + j, 0), src.height - 1))
                        for i in -r...r {
                            sum += g[j + r] * g[i + r] * Double(row[4 * min(max(x + i, 0), src.width - 1) + c])
                        }
                    }
                    out.row(y)[4 * x + c] = UInt8((sum / (total * total)).rounded())
                }
            }
        }
        return out
    }

    @Test("blur is within 1 of a 2-D Gaussian", arguments: [0.5, 1.0, 3.0])
    func blurMatchesTwoDimensionalGaussian(_ sigma: Double) throws {
        for (w, h) in [(23, 17), (5, 40)] {
            let source = try PixelBuffer.random(width: w, height: h, seed: UInt64(w * 31 + h))
            let blurred = try FilterChain(specs: ["blur:\(sigma)"]).apply(to: try source.copy())
            let expected = try Self.gaussian2D(source, sigma: sigma)
            let diff = PixelDifference(blurred.packedRGBA(), expected.packedRGBA())
            #expect(diff.maximum <= 1, "sigma \(sigma) \(w)x\(h): \(diff)")
        }
    }

    @Test func blurOfAFlatImageIsTheSameImage() throws {
        let image = try PixelBuffer(width: 40, height: 9)
        image.fill(r: 200, g: 13, b: 255, a: 0)
        let blurred = try FilterChain(specs: ["blur:7"]).apply(to: try image.copy())
        #expect(blurred.packedRGBA() == image.packedRGBA())
    }

    @Test func blurWiderThanTheImage() throws {
        let image = try PixelBuffer.random(width: 3, height: 2, seed: 5)
        let blurred = try FilterChain(specs: ["blur:20"]).apply(to: try image.copy())
        #expect(blurred.width == 3 && blurred.height == 2)
        let tiny = try PixelBuffer.random(width: 1, height: 1, seed: 6)
        #expect(try FilterChain(specs: ["blur:5"]).apply(to: try tiny.copy()).packedRGBA() == tiny.packedRGBA())
    }

    @Test func zeroAmountsAreIdentities() throws {
        let image = try PixelBuffer.random(width: 31, height: 7, seed: 8)
        for spec in ["blur:0", "sharpen:0", "vignette:0"] {
            #expect(
                try FilterChain(specs: [spec]).apply(to: try image.copy()).packedRGBA() == image.packedRGBA(), "\(spec)"
            )
        }
    }

    @Test func sharpenIncreasesEdgeContrast() throws {
        let image = try PixelBuffer(width: 20, height: 3)
        for y in 0..<3 {
            for x in 0..<20 {
                let v: UInt8 = x < 10 ? 80 : 160; image.row(y)[4 * x] = v; image.row(y)[4 * x + 1] = v;
                image.row(y)[4 * x + 2] = v; image.row(y)[4 * x + 3] = 255
            }
        }
        let sharp = try FilterChain(specs: ["sharpen:1"]).apply(to: try image.copy())
        #expect(sharp.pixel(9, 1).0 < 80 && sharp.pixel(10, 1).0 > 160)
        #expect(sharp.pixel(0, 1).0 == 80 && sharp.pixel(19, 1).0 == 160)
    }

    @Test func vignetteDarkensCornersNotTheCentre() throws {
        let image = try PixelBuffer(width: 101, height: 61)
        image.fill(r: 200, g: 200, b: 200)
        let v = try FilterChain(specs: ["vignette:0.6"]).apply(to: try image.copy())
        #expect(v.pixel(50, 30).0 == 200)
        #expect(v.pixel(0, 0).0 < 100)
        #expect(v.pixel(0, 0).0 == v.pixel(100, 60).0)
    }

    @Test func kernelWeightsSumToOne() {
        for sigma in [0.3, 0.8, 2, 3, 10, 100] {
            let k = GaussianKernel(sigma: sigma)
            #expect(k.radius == Int((3 * sigma).rounded(.up)))
            #expect(Int(k.weights[0]) + 2 * k.weights.dropFirst().reduce(0) { $0 + Int($1) } == 32768)
        }
        #expect(GaussianKernel(sigma: 0.1).radius == 0)
    }

    @Test func limits() {
        #expect(throws: FilterError.self) { try Filter(parsing: "blur:101") }
        #expect(throws: FilterError.self) { try Filter(parsing: "sharpen:21") }
        #expect(throws: FilterError.self) { try Filter(parsing: "blur:-1") }
    }
}

/// `convolve` against a plain double-precision convolution written here (not the stage's
/// reference), and its value syntax.
@Suite("Convolution")
struct ConvolutionTests {
    static func convolve(_ src: PixelBuffer, _ k: [Double], scale: Double, offset: Double) throws -> PixelBuffer {
        let size = k.count == 25 ? 5 : 3, r = size / 2
        let out = try PixelBuffer(width: src.width, height: src.height, hasAlpha: src.hasAlpha)
        for y in 0..<src.height {
            for x in 0..<src.width {
                for c in 0..<3 {
                    var sum = 0.0
                    for ky in 0..<size {
                        for kx in 0..<size {
                            let sy = min(max(y + ky - r, 0), src.height - 1),
                                sx = min(max(x + kx - r, 0), src.width - 1)
                            sum += k[ky * size + kx] * Double(src.row(sy)[4 * sx + c])
                        }
                    }
                    out.row(y)[4 * x + c] = UInt8(min(max((sum / scale + offset).rounded(), 0), 255))
                }
                out.row(y)[4 * x + 3] = src.row(y)[4 * x + 3]
            }
        }
        return out
    }

    @Test(
        "within 1 of a double-precision convolution",
        arguments: [
            ("-1,-1,-1,-1,16,-1,-1,-1,-1:8", 8.0, 0.0), ("1,2,1,2,4,2,1,2,1", 16.0, 0.0),
            ("1,0,-1,2,0,-2,1,0,-1", 1.0, 0.0),
            ("1,0,-1,2,0,-2,1,0,-1:1:128", 1.0, 128.0), ("1,1,1,1,1,1,1,1,1:3", 3.0, 0.0),
        ])
    func matchesDoubles(_ value: String, _ scale: Double, _ offset: Double) throws {
        let image = try PixelBuffer.random(width: 37, height: 23, seed: 11)
        let kernel = value.split(separator: ":")[0].split(separator: ",").map { Double($0)! }
        let expected = try Self.convolve(image, kernel, scale: scale, offset: offset)
        let out = try FilterChain(specs: ["convolve:" + value]).apply(to: try image.copy(), threads: 2)
        let diff = PixelDifference(out.packedRGBA(), expected.packedRGBA())
        #expect(diff.maximum <= 1, "\(value): \(diff)")
    }

    @Test func theIdentityKernelLeavesThePicture() throws {
        let image = try PixelBuffer.random(width: 41, height: 9, seed: 3)
        let out = try FilterChain(specs: ["convolve:0,0,0,0,1,0,0,0,0"]).apply(to: try image.copy())
        #expect(out.packedRGBA() == image.packedRGBA())
        let big = try FilterChain(specs: ["convolve:" + (0..<25).map { $0 == 12 ? "3" : "0" }.joined(separator: ",")])
        #expect(try big.apply(to: try image.copy()).packedRGBA() == image.packedRGBA(), "scale = sum = 3")
    }

    @Test func badValuesSayWhatIsWrong() {
        for value in [
            "1,2,3", "1,1,1,1,1,1,1,1,1:0", "1,1,1,1,1,1,1,1,x", "1,1,1,1,1,1,1,1,1001", "1,1,1,1,1,1,1,1,1:1:2:3",
        ] {
            #expect(throws: FilterError.self, "\(value)") { try Filter(parsing: "convolve:" + value) }
        }
        #expect(throws: FilterError.self) { try Filter(parsing: "resize:0%") }
        #expect(throws: FilterError.self) { try Filter(parsing: "resize:20000%") }
        #expect(throws: FilterError.self) { try Filter(parsing: "resize:100!") }
    }

    @Test func percentAndExactSizes() throws {
        #expect(try FilterChain(specs: ["resize:90%"]).outputSize(width: 9800, height: 9800) == (8820, 8820))
        #expect(try FilterChain(specs: ["resize:50%"]).outputSize(width: 4031, height: 3) == (2016, 2))
        #expect(try FilterChain(specs: ["resize:300x100!"]).outputSize(width: 4032, height: 3024) == (300, 100))
    }
}
