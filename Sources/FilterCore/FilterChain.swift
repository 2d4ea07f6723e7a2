import CatPixels
import CatSupport
import Dispatch

/// The filters of one command line, in order, ready to run over a PixelBuffer.
public struct FilterChain: Sendable {
    public let filters: [Filter]
    /// Every stage of every filter, in order.
    public let stages: [FilterStage]
    /// What the `cat` gravity keeps in view and captions keep clear of (a scene's detector:
    /// see `SubjectFinder`); nil: the gravity falls back to the centre, captions go below.
    public let subjects: (any SubjectFinder)?

    /// Parses `--filter` arguments; throws on the first bad one.
    public init(specs: [String], subjects: (any SubjectFinder)? = nil) throws(FilterError) {
        var filters: [Filter] = []
        for spec in specs { filters.append(try Filter(parsing: spec)) }
        self.filters = filters
        stages = filters.flatMap(\.stages)
        self.subjects = subjects
    }

    init(filters: [Filter], stages: [FilterStage], subjects: (any SubjectFinder)?) {
        self.filters = filters
        self.stages = stages
        self.subjects = subjects
    }

    /// A Lanczos-3 resize to fit inside `width` × `height` (what `resize:WxH` does), built
    /// from the values: for code that makes a chain of its own (the live editor's copies).
    public static func resize(fitting width: Int, _ height: Int) -> FilterChain {
        let stage = FilterStage.spatial(ResizeStage(.fit(width, height)))
        return FilterChain(
            filters: [Filter(definition: .resize, spec: "resize:\(width)x\(height)", stages: [stage])], stages: [stage],
            subjects: nil)
    }

    /// The specs as given, for messages and JSON.
    public var specs: [String] { filters.map(\.spec) }

    /// Shrink-on-load, as libvips's thumbnail does it: when the chain starts with a resize
    /// of an image of `width` × `height` (upright, full size), the JPEG DCT scale (2, 4 or
    /// 8) that still leaves at least twice the target size, and the chain to run on the
    /// image decoded that small (its resize aims at the size the full image would give).
    /// nil when decoding smaller would not help.
    public func shrinkOnLoad(width: Int, height: Int) -> (denominator: Int, chain: FilterChain)? {
        guard case let .spatial(stage)? = stages.first, let resize = stage as? ResizeStage else { return nil }
        let target = resize.outputSize(width: width, height: height)
        guard
            let denominator = [8, 4, 2].first(where: { d in
                (width + d - 1) / d >= 2 * target.width && (height + d - 1) / d >= 2 * target.height
            })
        else { return nil }
        let exact = FilterStage.spatial(ResizeStage(.exact(target.width, target.height)))
        return (denominator, FilterChain(filters: filters, stages: [exact] + stages.dropFirst(), subjects: subjects))
    }

    /// The chain for a preview: a copy of the image `factor` times the size, with every
    /// value in pixels scaled to match (see `SpatialStage.scaled`).
    public func scaled(by factor: Double) -> FilterChain {
        FilterChain(
            filters: filters,
            stages: stages.map { stage in
                if case let .spatial(spatial) = stage { return .spatial(spatial.scaled(by: factor)) }
                return stage
            }, subjects: subjects)
    }

    /// The size of the result for an input of `width` × `height`, and the largest image any
    /// step makes on the way (a resize before a crop may be far larger than the result);
    /// throws a usage error when a stage cannot apply to the size it gets (a crop outside
    /// the image). Cheap: callers check `largestPixels` against the pixel limit before
    /// allocating anything; `longest` is the step with the longest side, for `PixelError.maxSide`.
    public func sizes(width: Int, height: Int) throws(FilterError) -> (
        width: Int, height: Int, largestPixels: Int, largestWidth: Int, largestHeight: Int,
        longest: (width: Int, height: Int)
    ) {
        var size = (width: width, height: height)
        var largest = (pixels: width.multipliedReportingOverflow(by: height).partialValue, width: width, height: height)
        var longest = size
        for case let .spatial(stage) in stages where !stage.isIdentity {
            try stage.check(width: size.width, height: size.height)
            size = stage.outputSize(width: size.width, height: size.height)
            let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
            let count = overflow ? Int.max : pixels
            if count > largest.pixels { largest = (count, size.width, size.height) }
            if max(size.width, size.height) > max(longest.width, longest.height) { longest = size }
        }
        return (size.width, size.height, largest.pixels, largest.width, largest.height, longest)
    }

    /// Where a gravity placed a crop (`crop:WxH:GRAVITY`, `cover:WxH:GRAVITY`), in the
    /// pixels of an input of `width` × `height`: the first such crop, through the resizes and
    /// crops before it; else where the last crop given in pixels (`crop:WxH+X+Y`) cut, when
    /// no crop without a place came after it. nil when there is none, or a stage before it
    /// turns or mirrors the image.
    public func gravityWindow(width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
        var size = (width: width, height: height)
        var scale = (x: 1.0, y: 1.0), origin = (x: 0.0, y: 0.0)
        var placed: (x: Int, y: Int, width: Int, height: Int)?
        for case let .spatial(stage) in stages where !stage.isIdentity {
            let next = stage.outputSize(width: size.width, height: size.height)
            if let crop = stage as? CropStage {
                let box = crop.box(width: size.width, height: size.height)
                let x = origin.x + Double(box.x) / scale.x, y = origin.y + Double(box.y) / scale.y
                func px(_ v: Double) -> Int { Int(v.rounded()) }
                let window = (px(x), px(y), px(Double(box.width) / scale.x), px(Double(box.height) / scale.y))
                if crop.gravity != nil { return window }
                // A window given in pixels (the live editor's crop frame) is reported too.
                placed = crop.x != nil ? window : nil
                origin = (x, y)
            } else if stage is ResizeStage {
                scale = (
                    scale.x * Double(next.width) / Double(size.width),
                    scale.y * Double(next.height) / Double(size.height)
                )
            } else if stage is RotateStage || stage is FlipStage || next != size {
                return nil
            }
            size = next
        }
        return placed
    }

    /// What the stages want the user to know before the work (a caption character that no
    /// installed font has), each once: warnings, never failures.
    public var notices: [String] {
        var seen: Set<String> = []
        return stages.flatMap { stage -> [String] in
            guard case let .spatial(spatial) = stage else { return [] }
            return spatial.notices.filter { seen.insert($0).inserted }
        }
    }

    /// How large a copy the stages that read the picture look at: 512 pixels for the
    /// `attention` and `entropy` gravities (libvips's attention looks at 32 x 32; the
    /// entropy's slices are an eighth of what goes); for the `cat` gravity and captions
    /// alone the subject finder's (`SubjectFinder.side`; CatScenes' is 480, the cat
    /// detector's larger pass): from a 12 MP JPEG a copy at DCT scale 1/8, not 1/4.
    public var pictureSide: Int {
        let wide = stages.contains { stage in
            guard case let .spatial(spatial) = stage, let crop = spatial as? CropStage, crop.needsPicture else {
                return false
            }
            return crop.gravity != .cat
        }
        if stages.contains(where: { if case let .spatial(s) = $0 { s is CatMaskStage } else { false } }) {
            return Self.maskSide
        }
        return wide ? 512 : subjects?.side ?? 320
    }

    /// How long a copy of an input of `width` × `height` `resolvingGravity` wants: one
    /// whose picture is still `pictureSide` long where the first stage that reads it gets
    /// it (a cover's resize before its crop makes it smaller), at most the input's size,
    /// and at most `maxCopySide` where that is only for a resize before that stage: the copy
    /// then keeps its own detail through the resize, down to the picture's size there
    /// (`resolvingGravity`), so that stage sees what it did. `cover:200x200:cat` on a 48 MP
    /// JPEG asked for a full-size copy (405 MB at the peak).
    public func pictureCopySide(width: Int, height: Int) -> Int {
        let long = max(width, height)
        var size = (width: width, height: height), cropped = 1.0
        for case let .spatial(stage) in stages {
            if Self.readsPicture(stage) { break }
            guard !stage.isIdentity else { continue }
            let next = stage.outputSize(width: size.width, height: size.height)
            if !(stage is ResizeStage) {
                cropped *= Double(max(size.width, size.height)) / Double(max(1, max(next.width, next.height)))
            }
            size = next
        }
        let shrink = Double(long) / Double(max(1, max(size.width, size.height)))
        let side = min(long, Int((Double(pictureSide) * max(1, shrink)).rounded(.up)))
        guard side > Self.maxCopySide else { return side }
        return max(Self.maxCopySide, min(long, Int((Double(pictureSide) * max(1, cropped)).rounded(.up))))
    }

    /// The longest copy `pictureCopySide` asks for only because of a resize (a JPEG's DCT
    /// scaling gives at most twice as long).
    static let maxCopySide = 2048

    /// The copy the cats' mask is made on (`cutout`, `sticker`, `portrait`): the mask
    /// network sees 320 x 320 of each cat, so a cat filling a 1024 px copy is seen at a
    /// third of it, and the mask stretched over the full picture is as sharp as the network.
    public static let maskSide = 1024

    /// Some cat filter may make the picture transparent (`cutout` without a colour,
    /// `sticker`): the output should keep an alpha channel.
    public var mayMakeAlpha: Bool {
        stages.contains { stage in
            guard case let .spatial(spatial) = stage, let masked = spatial as? CatMaskStage else { return false }
            if case .cutout(let background) = masked.effect { return background == nil }
            if case .sticker = masked.effect { return masked.flatten == nil }
            return false
        }
    }

    /// Some stage is a cat filter (`cutout`, `sticker`, `portrait`) still to be placed.
    public var masksCats: Bool {
        stages.contains { if case let .spatial(s) = $0 { (s as? CatMaskStage)?.needsPicture == true } else { false } }
    }

    /// This placed chain with its cat filters' masks taken from `other` (the same chain
    /// placed on another frame): the rest stays placed as it is.
    public func placing(masksFrom other: FilterChain) -> FilterChain {
        precondition(other.stages.count == stages.count, "the same chain, placed")
        return FilterChain(
            filters: filters,
            stages: zip(stages, other.stages).map { mine, theirs in
                if case let .spatial(s) = theirs, let masked = s as? CatMaskStage, !masked.keepsFirstFramesMask {
                    return theirs
                }
                return mine
            }, subjects: subjects)
    }

    /// The most frames of an animation the cat filters mask, a frame at a time (each some
    /// 0.3 s a cat): more is refused before any work.
    public static let maxMaskedFrames = 100

    /// The chain for an output without transparency (JPEG): `cutout` and `sticker` on
    /// white instead (`cutout:COLOR` keeps its colour).
    public func flatteningAlpha() -> FilterChain {
        FilterChain(
            filters: filters,
            stages: stages.map { stage in
                guard case let .spatial(spatial) = stage, let masked = spatial as? CatMaskStage else { return stage }
                return .spatial(masked.flattened(over: .white))
            }, subjects: subjects)
    }

    /// Some crop's gravity reads the picture (`cat`, `attention`, `entropy`), or a caption
    /// must keep off the cat's face: run `resolvingGravity` before the chain.
    public var readsPicture: Bool { readsPicture(after: -1) }

    /// Some stage asks the subject finder (a `cat` crop not yet placed, a caption that keeps
    /// clear of the cats): a scene may get its detector ready while the picture decodes.
    public var asksSubjects: Bool {
        subjects != nil
            && stages.contains { stage in
                guard case let .spatial(spatial) = stage, Self.readsPicture(spatial) else { return false }
                return (spatial as? CropStage)?.gravity == .cat || spatial is CaptionStage || spatial is CatMaskStage
            }
    }

    /// Some stage after stage `index` reads the picture (-1: any stage).
    func readsPicture(after index: Int) -> Bool {
        stages.dropFirst(index + 1).contains { stage in
            if case let .spatial(spatial) = stage { return Self.readsPicture(spatial) }
            return false
        }
    }

    /// `stage` is a crop whose gravity reads the picture, or a caption that keeps clear of
    /// faces, not yet placed.
    static func readsPicture(_ stage: any SpatialStage) -> Bool {
        (stage as? CropStage)?.needsPicture == true || (stage as? CaptionStage)?.needsPicture == true
            || (stage as? CatMaskStage)?.needsPicture == true
    }

    /// This chain with each stage that reads the picture taken from `placed`, this chain or
    /// one with the same stages (a shrink-on-load's resize aside) resolved by
    /// `resolvingGravity`.
    public func placing(from placed: FilterChain) -> FilterChain {
        precondition(placed.stages.count == stages.count, "the same chain, resolved")
        return FilterChain(
            filters: filters,
            stages: zip(stages, placed.stages).map { stage, resolved in
                if case let .spatial(spatial) = stage, Self.readsPicture(spatial) { return resolved }
                return stage
            }, subjects: subjects)
    }

    /// The chain with every crop whose gravity reads the picture placed, and every caption
    /// that keeps clear of faces on its side. `picture` is the
    /// input of `width` × `height` pixels, or a smaller copy of it (it is left as it is):
    /// a copy `pictureCopySide` long runs the stages before each such crop
    /// (scaled, as for a preview), the gravity's measure (`Interest`) chooses the window on
    /// the picture that crop gets, and the place scales back to the full image. Any other
    /// chain comes back as it is.
    public func resolvingGravity(picture: PixelBuffer, width: Int, height: Int) throws -> FilterChain {
        guard readsPicture else { return self }
        var resolved: [FilterStage] = []
        let copySide = pictureCopySide(width: width, height: height)
        let side = picture.fittingSize(maxWidth: copySide, maxHeight: copySide)
        var small = try picture.resampled(width: side.0, height: side.1, filter: .box, threads: 1)
        var size = (width: width, height: height)
        for var stage in stages {
            let scale = Double(small.width) / Double(size.width)
            if case let .spatial(spatial) = stage, let crop = spatial as? CropStage, crop.needsPicture,
                let gravity = crop.gravity, crop.width <= size.width, crop.height <= size.height
            {
                func fit(_ v: Int, _ limit: Int) -> Int { min(max(1, Int((Double(v) * scale).rounded())), limit) }
                let window = Interest.window(
                    gravity, in: small, width: fit(crop.width, small.width), height: fit(crop.height, small.height),
                    subjects: subjects)
                func back(_ v: Int, _ room: Int) -> Int { min(max(0, Int((Double(v) / scale).rounded())), room) }
                stage = .spatial(
                    crop.placed(
                        x: back(window.x, size.width - crop.width), y: back(window.y, size.height - crop.height)))
            }
            if case let .spatial(spatial) = stage, let masked = spatial as? CatMaskStage, masked.needsPicture {
                stage = .spatial(
                    try masked.placed(mask: subjects?.catMask(in: small), requireCat: subjects?.requiresCat ?? false))
            }
            if case let .spatial(spatial) = stage, let caption = spatial as? CaptionStage, caption.needsPicture {
                stage = .spatial(
                    try caption.placed(
                        clearOf: subjects?.subjects(in: small).clearOf ?? [], width: small.width, height: small.height))
            }
            let step = FilterChain(filters: [], stages: [stage], subjects: nil)
            let next = try step.outputSize(width: size.width, height: size.height)
            // Run as it is: a crop left unplaced (larger than the picture) must not be resolved again.
            var steps = step.scaled(by: scale).stages
            // A resize before a stage that reads the picture keeps the copy's detail, down to
            // the picture's own size there or `pictureSide`, whichever is smaller (never more
            // than the copy has): a copy made smaller than asked (`maxCopySide`) then gives that
            // stage what a full one would; any other copy is resized as before.
            if case let .spatial(spatial) = stage, let resize = spatial as? ResizeStage,
                readsPicture(after: resolved.count)
            {
                let long = Double(max(next.width, next.height))
                let kept = max(
                    scale * long, min(long, Double(pictureSide), Double(max(small.width, small.height))))
                if kept > scale * long + 1 {  // more than rounding
                    let factor = kept / long
                    func side(_ v: Int) -> Int { max(1, Int((Double(v) * factor).rounded())) }
                    steps = [.spatial(ResizeStage(.exact(side(next.width), side(next.height)), filter: resize.filter))]
                }
            }
            small = try Executor.run(steps, source: small, destination: nil, kernels: FastKernels(threads: 1))
            size = next
            resolved.append(stage)
        }
        return FilterChain(filters: filters, stages: resolved, subjects: subjects)
    }

    /// The size of the result for an input of `width` × `height` (see `sizes`).
    public func outputSize(width: Int, height: Int) throws(FilterError) -> (width: Int, height: Int) {
        let all = try sizes(width: width, height: height)
        return (all.width, all.height)
    }

    /// Runs the chain with the fast kernels over `threads` threads. Colour stages work in
    /// place; the result is `image` itself, or a new buffer when a spatial stage ran.
    public func apply(
        to image: PixelBuffer,
        threads: Int = CPUs.available
    ) throws -> PixelBuffer {
        let placed = try resolvingGravity(picture: image, width: image.width, height: image.height)
        return try Executor.run(placed.stages, source: image, destination: nil, kernels: FastKernels(threads: threads))
    }

    /// Runs the chain with the fast kernels from `source` into `destination` (which has the
    /// chain's output size), leaving `source` as it is.
    public func apply(
        from source: PixelBuffer, into destination: PixelBuffer,
        threads: Int = CPUs.available
    ) throws {
        _ = try Executor.run(stages, source: source, destination: destination, kernels: FastKernels(threads: threads))
    }

    /// Runs the chain on every frame of an animation: frames on `threads` threads at once,
    /// one thread each (frames are independent, and a frame is often too small to split);
    /// `progress` hears how many frames are done. The results are in the frames' order.
    public func apply(
        toFrames frames: [PixelBuffer], threads: Int = CPUs.available,
        progress: (@Sendable (Int) -> Void)? = nil
    ) throws -> [PixelBuffer] {
        // One window for every frame, chosen on the first, so the animation does not jump.
        if readsPicture, let first = frames.first {
            return try resolvingGravity(picture: first, width: first.width, height: first.height)
                .apply(toFrames: frames, threads: threads, progress: progress)
        }
        if threads <= 1 || frames.count == 1 {
            return try frames.enumerated().map { i, frame in
                defer { progress?(i + 1) }
                return try apply(to: frame, threads: threads)
            }
        }
        let results = LockedValue((frames: [PixelBuffer?](repeating: nil, count: frames.count), done: 0))
        let failure = LockedValue<(any Error)?>(nil)
        let workers = min(threads, frames.count)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for i in stride(from: worker, to: frames.count, by: workers) where failure.current == nil {
                do {
                    let frame = try apply(to: frames[i], threads: 1)
                    let done = results.withLockedValue {
                        $0.frames[i] = frame
                        $0.done += 1
                        return $0.done
                    }
                    progress?(done)
                } catch {
                    failure.recordFirst(error)
                }
            }
        }
        if let error = failure.current { throw error }
        return results.current.frames.map { $0! }
    }

    /// Every chain on its own copy of `image`: one chain gets all `threads`, several (a
    /// gallery's thumbnails) run side by side, one thread each. A chain that fails gives its error.
    public static func applyEach(_ chains: [FilterChain], to image: PixelBuffer, threads: Int) -> [Result<
        PixelBuffer, any Error
    >] {
        let results = LockedValue([Result<PixelBuffer, any Error>?](repeating: nil, count: chains.count))
        let each = chains.count == 1 ? max(1, threads) : 1
        DispatchQueue.concurrentPerform(iterations: chains.count) { i in
            let result = Result { try chains[i].apply(to: image.copy(), threads: each) }
            results.withLockedValue { $0[i] = result }
        }
        return results.current.map { $0 ?? .failure(CancellationError()) }
    }

    /// The same with the plain scalar reference (for tests and `bench`).
    public func applyReference(to image: PixelBuffer) throws -> PixelBuffer {
        let placed = try resolvingGravity(picture: image, width: image.width, height: image.height)
        return try Executor.run(placed.stages, source: image, destination: nil, kernels: Reference())
    }

    public func applyReference(from source: PixelBuffer, into destination: PixelBuffer) throws {
        _ = try Executor.run(stages, source: source, destination: destination, kernels: Reference())
    }
}
