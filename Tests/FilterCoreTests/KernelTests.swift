import FilterCore
import ImageIO
import Testing
import TestSupport

/// Every filter's fast path against its scalar reference on random buffers of awkward sizes.
@Suite("Fast kernels equal the scalar reference")
struct KernelTests {
    static let sizes: [(Int, Int)] = [(1, 1), (3, 1), (7, 3), (17, 5), (64, 2), (65, 3), (1021, 5)]

    /// Every registered filter at its default, and at a few other values where it takes one.
    static let specs: [String] = FilterRegistry.all.flatMap { f -> [String] in
        switch f.parameter {
        case .none: return [f.name]
        case .amount: return [f.name, "\(f.name):0.3", "\(f.name):0.75"]
        case .factor: return [f.name, "\(f.name):0", "\(f.name):0.6", "\(f.name):2.5"]
        case .angle: return [f.name, "\(f.name):45", "\(f.name):-120", "\(f.name):200"]
        }
    }

    func check(_ specs: [String], threads: Int = 1) throws {
        let chain = try FilterChain(specs: specs)
        for (i, (w, h)) in Self.sizes.enumerated() {
            let fast = try PixelBuffer.random(width: w, height: h, seed: UInt64(i + 1) * 7919)
            let reference = try fast.copy()
            chain.apply(to: fast, threads: threads)
            chain.applyReference(to: reference)
            // All bytes, row padding included: the kernel must not touch past the row.
            #expect(fast.allBytes() == reference.allBytes(), "\(specs) at \(w)x\(h)")
        }
    }

    @Test("each filter", arguments: specs)
    func eachFilter(_ spec: String) throws { try check([spec]) }

    @Test func longChain() throws {
        try check(["sepia:0.4", "hue-rotate:33", "saturate:1.7", "contrast:1.3", "invert:0.2", "brightness:0.9",
                   "grayscale:0.1", "fade", "chrome"])
    }

    @Test func threadsGiveTheSameResult() throws {
        let chain = try FilterChain(specs: ["instant", "contrast:1.2"])
        let one = try PixelBuffer.random(width: 333, height: 211, seed: 42)
        let many = try one.copy()
        chain.apply(to: one, threads: 1)
        chain.apply(to: many, threads: 4)
        #expect(one.allBytes() == many.allBytes())
    }

    @Test func alphaIsUntouched() throws {
        let image = try PixelBuffer.random(width: 50, height: 4, seed: 3)
        let before = image.packedRGBA()
        try FilterChain(specs: ["noir", "invert"]).apply(to: image)
        let after = image.packedRGBA()
        for i in stride(from: 3, to: before.count, by: 4) { #expect(before[i] == after[i]) }
    }

    @Test func photoEffectsAreDistinctAndDeterministic() throws {
        let source = try PixelBuffer.random(width: 64, height: 16, seed: 11)
        var seen: [[UInt8]: String] = [:]
        for name in ["mono", "sepia", "invert", "chrome", "transfer", "process", "noir", "instant", "fade"] {
            let a = try source.copy(), b = try source.copy()
            let chain = try FilterChain(specs: [name])
            chain.apply(to: a)
            chain.apply(to: b)
            #expect(a.allBytes() == b.allBytes(), "\(name) is deterministic")
            #expect(a.packedRGBA() != source.packedRGBA(), "\(name) changes the picture")
            if let other = seen[a.packedRGBA()] { Issue.record("\(name) looks exactly like \(other)") }
            seen[a.packedRGBA()] = name
        }
    }
}
