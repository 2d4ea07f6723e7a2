import CatImageIO
import CatSupport
import FilterCore

/// `catctl filters` and `catctl bench` have no scene of their own: what they list comes from
/// here, as plain values, so the views (TerminalUI's FilterListing, BenchListing and
/// LiveBenchmark) know nothing of the filter core.

/// A filter as `catctl filters` lists it.
public struct FilterEntry: Sendable, Equatable {
    public let name: String
    /// `blur[:SIGMA]`, `crop:WxH[+X+Y|:GRAVITY]`, ...
    public let usage: String
    /// "color", "spatial" or "geometry".
    public let kind: String
    public let defaultValue: Double?
    public let description: String
    public var isSpatial: Bool { kind == FilterKind.spatial.rawValue }
}

public enum FilterCatalog {
    /// Every filter, in the registry's order.
    public static var entries: [FilterEntry] {
        FilterRegistry.all.map {
            FilterEntry(
                name: $0.name, usage: $0.usage, kind: $0.kind.rawValue, defaultValue: $0.parameter.defaultValue,
                description: $0.description)
        }
    }
}

/// `catctl bench`'s figures, as its listing shows them.
public struct BenchSummary: Sendable {
    public struct Row: Sendable {
        /// The spec exactly as asked for (`blur:3`).
        public let filter: String
        public let megapixelsPerSecond: Double
        public let scalarMegapixelsPerSecond: Double?
    }
    public let width: Int, height: Int, threads: Int, repetitions: Int
    /// The kernel build that ran ("avx512", "avx2", "sse4.1", "sse2", "neon").
    public let kernels: String
    /// A plain copy of the same buffer into another, on the same threads.
    public let baselineCopyMegapixelsPerSecond: Double
    public let results: [Row]
}

public enum FilterBench {
    /// Times `specs` (every filter that applies to a `width`x`height` image when empty) with
    /// FilterCore's benchmark, the cat gravity finding faces as `edit` does.
    public static func run(
        specs: [String], width: Int, height: Int, threads: Int, repetitions: Int, includeScalar: Bool,
        progress: (String) -> Void
    ) throws -> BenchSummary {
        let report = try FilterBenchmark.run(
            specs: specs.isEmpty ? FilterRegistry.defaultSpecs(width: width, height: height) : specs, width: width,
            height: height, threads: threads, repetitions: repetitions, includeScalar: includeScalar,
            subjects: CatSubjects(), progress: progress)
        return BenchSummary(
            width: report.width, height: report.height, threads: report.threads, repetitions: report.repetitions,
            kernels: report.kernels, baselineCopyMegapixelsPerSecond: report.baselineCopyMegapixelsPerSecond,
            results: report.results.map {
                .init(
                    filter: $0.filter, megapixelsPerSecond: $0.megapixelsPerSecond,
                    scalarMegapixelsPerSecond: $0.scalarMegapixelsPerSecond)
            })
    }

    /// `bench --live`'s reference: the chain `specs` run once on the full decoded `input`, as
    /// a tool without a preview copy would run it for every keystroke: the time it took
    /// (decoding not counted).
    public static func fullImage(input: String, specs: [String], threads: Int) throws -> Duration {
        let decoded = try ImageDecoder.decode(try InputFile.read(input), name: input)
        let chain = try FilterChain(catSpecs: specs)
        let clock = ContinuousClock()
        let start = clock.now
        _ = try chain.apply(to: decoded.pixels, threads: threads)
        return clock.now - start
    }
}
