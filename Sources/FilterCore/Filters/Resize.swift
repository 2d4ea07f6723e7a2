import CatPixels

extension FilterDefinition {
    static let resize = FilterDefinition(
        name: "resize", valueName: "W|xH|WxH|WxH!|P%",
        description:
            "Fit inside W x H keeping the aspect ratio (may enlarge); W or xH alone sets one side; WxH! exactly "
            + "W x H; P% scales both sides (ImageMagick geometry). Lanczos-3",
        showcase: "160",
        presets: { width, _ in Geometry.fractions.map { "\(Geometry.part(width, $0))" } },
        parse: { text throws(FilterError) in
            if text.hasSuffix("%") {
                return [.spatial(ResizeStage(.scale(try Geometry.percent(String(text.dropLast()), filter: "resize"))))]
            }
            if text.hasSuffix("!") {
                let box = try Geometry.box(String(text.dropLast()), filter: "resize")
                return [.spatial(ResizeStage(.exact(box.width, box.height)))]
            }
            let size = try Geometry.size(text, filter: "resize")
            switch (size.width, size.height) {
            case let (w?, h?): return [.spatial(ResizeStage(.fit(w, h)))]
            case let (w?, nil): return [.spatial(ResizeStage(.width(w)))]
            case let (nil, h?): return [.spatial(ResizeStage(.height(h)))]
            case (nil, nil): return []  // Geometry.size never gives this
            }
        })

    static let cover = FilterDefinition(
        name: "cover", valueName: "WxH[:GRAVITY]",
        description:
            "Fill W x H exactly: resize to cover it (Lanczos-3), then crop the overflow where GRAVITY says "
            + "(\(Gravity.names); default centre)",
        showcase: "160x160",
        presets: { width, height in
            Geometry.fractions.map {
                let side = Geometry.part(min(width, height), $0); return "\(side)x\(side):cat"
            }
        },
        parse: { text throws(FilterError) in
            let (size, gravity) = try Gravity.split(text, filter: "cover")
            let box = try Geometry.box(size, filter: "cover")
            return [
                .spatial(ResizeStage(.cover(box.width, box.height))),
                .spatial(
                    CropStage(
                        width: box.width, height: box.height, x: nil, y: nil, gravity: gravity, spec: "cover:" + text)),
            ]
        })
}

/// Resampling to a size the mode decides (Lanczos-3 unless told otherwise), through the one
/// resampler (`Resample.swift`). Streams: each band of output rows needs a band of input
/// rows (`inputRows`).
struct ResizeStage: SpatialStage {
    enum Mode: Sendable, Equatable {
        case width(Int)
        case height(Int)
        /// Inside the box, keeping the aspect ratio.
        case fit(Int, Int)
        /// Covering the box, keeping the aspect ratio (a crop follows).
        case cover(Int, Int)
        /// Exactly this size, the aspect ratio ignored (`WxH!`; what the others become after
        /// shrink-on-load).
        case exact(Int, Int)
        /// Both sides times this factor (`P%`), each rounded, at least 1.
        case scale(Double)
    }

    let mode: Mode
    let filter: ResampleFilter

    init(_ mode: Mode, filter: ResampleFilter = .lanczos3) {
        self.mode = mode
        self.filter = filter
    }

    func scaled(by factor: Double) -> any SpatialStage {
        func s(_ n: Int) -> Int { Self.scale(n, factor) }
        switch mode {
        case let .width(w): return ResizeStage(.width(s(w)), filter: filter)
        case let .height(h): return ResizeStage(.height(s(h)), filter: filter)
        case let .fit(w, h): return ResizeStage(.fit(s(w), s(h)), filter: filter)
        case let .cover(w, h): return ResizeStage(.cover(s(w), s(h)), filter: filter)
        case let .exact(w, h): return ResizeStage(.exact(s(w), s(h)), filter: filter)
        case .scale: return self  // relative to the image it gets
        }
    }

    func outputSize(width w: Int, height h: Int) -> (width: Int, height: Int) {
        func scaled(_ n: Int, _ s: Double) -> Int { max(1, Int((Double(n) * s).rounded())) }
        switch mode {
        case let .width(tw): return (tw, scaled(h, Double(tw) / Double(w)))
        case let .height(th): return (scaled(w, Double(th) / Double(h)), th)
        case let .fit(tw, th):
            let s = min(Double(tw) / Double(w), Double(th) / Double(h))
            return (min(tw, scaled(w, s)), min(th, scaled(h, s)))
        case let .cover(tw, th):
            let s = max(Double(tw) / Double(w), Double(th) / Double(h))
            return (max(tw, scaled(w, s)), max(th, scaled(h, s)))
        case let .exact(tw, th): return (tw, th)
        case let .scale(s): return (scaled(w, s), scaled(h, s))
        }
    }

    func inputRows(forOutput rows: Range<Int>, width w: Int, height h: Int) -> Range<Int> {
        let axis = ResampleAxis(input: h, output: outputSize(width: w, height: h).height, filter: filter)
        return axis.first(rows.lowerBound)..<axis.first(rows.upperBound - 1) + axis.taps
    }

    func makeKernel(width w: Int, height h: Int) throws(FilterError) -> any SpatialKernel {
        let size = outputSize(width: w, height: h)
        return ResampleKernel(
            horizontal: ResampleAxis(input: w, output: size.width, filter: filter),
            vertical: ResampleAxis(input: h, output: size.height, filter: filter))
    }

    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(FilterError) {
        ResampleKernel.reference(from: src, into: dst, filter: filter)
    }
}
