import CatImageIO
import CatPixels
import FilterCore
import Foundation
import TestSupport
import Testing

/// Every filter's fast path, in every kernel build this CPU can run (AVX2, SSE4.1,
/// baseline), against its scalar reference on random buffers of awkward sizes and strides.
@Suite("Fast kernels equal the scalar reference", .serialized)
struct KernelTests {
    /// (width, height, extra stride bytes): widths that are not multiples of 8 or 16.
    static let shapes: [(Int, Int, Int)] = [
        (1, 1, 0), (3, 1, 4), (7, 3, 0), (17, 5, 12), (64, 2, 0), (65, 3, 60),
        (1021, 7, 0), (130, 41, 36),
    ]

    /// Every registered filter at its default, and at a few other values where it takes one.
    static let specs: [String] = FilterRegistry.all.flatMap { f -> [String] in
        switch f.parameter {
        case .none: return [f.name]
        case .amount: return [f.name, "\(f.name):0.3", "\(f.name):1"]
        case .factor where f.kind == .spatial: return [f.name, "\(f.name):0.2", "\(f.name):0.7", "\(f.name):4.5"]
        case .factor: return [f.name, "\(f.name):0", "\(f.name):0.6", "\(f.name):2.5"]
        case .angle: return [f.name, "\(f.name):45", "\(f.name):-120", "\(f.name):200"]
        case .text: return []  // geometry: see geometrySpecs
        }
    }

    /// Geometry stages that apply to every shape (a crop must fit a 1x1 image).
    static let geometrySpecs = [
        "resize:3x2", "resize:x5", "resize:2", "resize:50x9", "resize:900", "resize:90%", "resize:250%", "resize:7x3!",
        "cover:2x3", "crop:1x1", "crop:1x1+0+0",
        "rotate:90", "rotate:180", "rotate:270", "flip", "flop",
    ]

    static func randomImage(_ w: Int, _ h: Int, extraStride: Int, seed: UInt64) throws -> PixelBuffer {
        let image = try PixelBuffer(width: w, height: h, stride: w * 4 + extraStride, hasAlpha: true)
        var rng = SeededRandom(seed: seed)
        for i in 0..<image.byteCount { image.base[i] = UInt8.random(in: 0...255, using: &rng) }
        return image
    }

    /// Runs `specs` through every build and the reference (src → dst and in place) and
    /// compares every byte, row padding included.
    func check(_ specs: [String], threads: [Int] = [1]) throws {
        let chain = try FilterChain(specs: specs)
        defer { KernelISA.select(.best) }
        for (i, (w, h, extra)) in Self.shapes.enumerated() {
            let source = try Self.randomImage(w, h, extraStride: extra, seed: UInt64(i + 1) * 7919)
            let expected = try source.copy()
            try chain.applyReference(from: source, into: expected)
            for isa in KernelISA.available {
                KernelISA.select(isa)
                for n in threads {
                    let dst = try source.copy()
                    try chain.apply(from: source, into: dst, threads: n)
                    let diff = dst.firstDifference(from: expected)
                    #expect(diff == nil, "\(specs) \(isa.name) \(w)x\(h)+\(extra) threads \(n): \(diff ?? "")")
                    let inPlace = try chain.apply(to: try source.copy(), threads: n)
                    #expect(inPlace.packedRGBA() == expected.packedRGBA(), "in place: \(specs) \(isa.name) \(w)x\(h)")
                }
            }
        }
    }

    @Test func buildsAreDetected() {
        #expect(KernelISA.available.first == KernelISA.best)
        #expect(KernelISA.available.last == .baseline)
        #if arch(x86_64)
            #expect(KernelISA.baseline.name == "sse2")
        #endif
    }

    @Test("each filter", arguments: specs)
    func eachFilter(_ spec: String) throws { try check([spec]) }

    /// The size changes: compare the pixels of the results (no padding to compare).
    @Test("each geometry stage", arguments: geometrySpecs)
    func eachGeometryStage(_ spec: String) throws {
        let chain = try FilterChain(specs: ["sepia", spec, "contrast:1.3"])
        defer { KernelISA.select(.best) }
        for (i, (w, h, extra)) in Self.shapes.enumerated() {
            let source = try Self.randomImage(w, h, extraStride: extra, seed: UInt64(i + 3) * 7907)
            let expected = try chain.applyReference(to: try source.copy())
            let size = try chain.outputSize(width: w, height: h)
            #expect(expected.width == size.width && expected.height == size.height)
            for isa in KernelISA.available {
                KernelISA.select(isa)
                for n in [1, 3] {
                    let result = try chain.apply(to: try source.copy(), threads: n)
                    #expect(result.packedRGBA() == expected.packedRGBA(), "\(spec) \(isa.name) \(w)x\(h) threads \(n)")
                }
            }
        }
    }

    /// 3x3 and 5x5 kernels, with and without a scale and an offset, negative sums, zeros.
    @Test(
        "each convolution",
        arguments: [
            "convolve:-1,-1,-1,-1,16,-1,-1,-1,-1:8", "convolve:0,-1,0,-1,5,-1,0,-1,0", "convolve:1,2,1,0,0,0,-1,-2,-1",
            "convolve:1,2,1,0,0,0,-1,-2,-1:1:128", "convolve:1,1,1,1,1,1,1,1,1:9",
            "convolve:-1000,0,0,0,1000,0,0,0,1:7.5:-3",
            "convolve:" + Array(repeating: "1", count: 25).joined(separator: ","),
            "convolve:" + (0..<25).map { "\($0 % 7 - 3)" }.joined(separator: ",") + ":-4:10",
        ])
    func eachConvolution(_ spec: String) throws { try check([spec], threads: [1, 3]) }

    @Test func longChainMixingColourAndSpatial() throws {
        try check(
            [
                "sepia:0.4", "hue-rotate:33", "saturate:1.7", "blur:1.5", "contrast:1.3", "invert:0.2",
                "vignette:0.8", "brightness:0.9", "sharpen:2", "grayscale:0.1", "fade", "chrome",
            ], threads: [1, 3])
    }

    @Test func moreColourStagesThanOneFusedGroup() throws {
        try check(Array(repeating: "hue-rotate:10", count: 40) + ["contrast:1.1"])
    }

    @Test func threadsGiveTheSameResult() throws {
        for spec in ["instant", "blur:3", "sharpen:1.5", "vignette"] {
            let chain = try FilterChain(specs: [spec])
            let source = try PixelBuffer.random(width: 333, height: 211, seed: 42)
            let one = try source.copy(), many = try source.copy()
            try chain.apply(from: source, into: one, threads: 1)
            try chain.apply(from: source, into: many, threads: 4)
            #expect(one.firstDifference(from: many) == nil, "\(spec)")
        }
    }

    @Test func alphaIsUntouchedByColourFilters() throws {
        let image = try PixelBuffer.random(width: 50, height: 4, seed: 3)
        let before = image.packedRGBA()
        let after = try FilterChain(specs: ["noir", "invert", "vignette"]).apply(to: image).packedRGBA()
        for i in stride(from: 3, to: before.count, by: 4) { #expect(before[i] == after[i]) }
    }

    @Test func photoEffectsAreDistinctAndDeterministic() throws {
        let source = try PixelBuffer.random(width: 64, height: 16, seed: 11)
        var seen: [[UInt8]: String] = [:]
        for name in ["mono", "sepia", "invert", "chrome", "transfer", "process", "noir", "instant", "fade"] {
            let chain = try FilterChain(specs: [name])
            let a = try chain.apply(to: try source.copy()), b = try chain.apply(to: try source.copy())
            #expect(a.allBytes() == b.allBytes(), "\(name) is deterministic")
            #expect(a.packedRGBA() != source.packedRGBA(), "\(name) changes the picture")
            if let other = seen[a.packedRGBA()] { Issue.record("\(name) looks exactly like \(other)") }
            seen[a.packedRGBA()] = name
        }
    }
}
