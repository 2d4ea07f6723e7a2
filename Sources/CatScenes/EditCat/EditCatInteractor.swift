import CatFaces
import CatImageIO
import CatPixels
import CatSupport
import FilterCore

/// What to edit: a file, or an image another scene decoded already (Load Cat → Edit Cat).
public enum EditInput: Sendable {
    /// A path, or "-" for standard input.
    case file(String)
    /// A file's bytes in hand (a downloaded animation); `name` names it in messages.
    case bytes([UInt8], name: String)
    case image(DecodedImage)

    /// The file's path, when the input is one (the output may not be it, unless forced).
    var path: String? { if case let .file(path) = self { path } else { nil } }
}

/// How to edit, besides the chain.
public struct EditOptions: Sendable, Equatable {
    public var encode: EncodeOptions
    /// Inputs with more pixels (every frame together) are refused before any pixel memory is allocated.
    public var maxPixels: Int
    /// Animations with more frames are refused before any is decoded.
    public var maxFrames: Int
    /// The output may be the input file.
    public var force: Bool
    /// Batch: outputs go only below this folder, through no link below it.
    public var outputFolder: OutputFolder?
    /// Which inputs that are no regular file are read: edit reads FIFOs and pipes (`<(…)`),
    /// batch none unless `--allow-special-files` (see `InputFile.Special`).
    public var specialFiles: InputFile.Special

    public init(
        encode: EncodeOptions, maxPixels: Int = DecodeOptions.defaultMaxPixels,
        maxFrames: Int = DecodeOptions.defaultMaxFrames, force: Bool = false, outputFolder: OutputFolder? = nil,
        specialFiles: InputFile.Special = .pipes
    ) {
        self.encode = encode
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
        self.force = force
        self.outputFolder = outputFolder
        self.specialFiles = specialFiles
    }
}

/// What an edit tells while it runs, in this order: `opened` once, then `progress`.
public enum EditEvent: Sendable, Equatable {
    /// The input is known: its format and (upright) size.
    case opened(format: ImageFormat, width: Int, height: Int)
    /// Whole percent of the job done (decode, filters and encode together), rising.
    case progress(percent: Int)
}

/// How an edit went.
public struct EditOutcome: Sendable, Equatable {
    /// The size written.
    public let width: Int
    public let height: Int
    /// Decoded, filtered and encoded a strip at a time (else the image was decoded whole).
    public let streamed: Bool
    /// Frames written, and frames the input had: fewer when the output format holds one
    /// (an animated GIF saved as PNG keeps its first frame).
    public let frames: Int
    public let inputFrames: Int
    /// Pages the input had (a multi-page TIFF); the first was edited.
    public let inputPages: Int
    /// Where a gravity (a compass point, `cat`, `attention`, `entropy`) placed the crop, in
    /// the input's pixels; nil when there was none.
    public let crop: EditCatCrop?
    /// The input's metadata over the budget, left out (`ImageMetadata.leftOut`).
    public let leftOut: [String]
    /// What the chain, placed on the picture, has to say (a cat filter that found no cat).
    public let notes: [String]

    public init(
        width: Int, height: Int, streamed: Bool, frames: Int = 1, inputFrames: Int = 1, inputPages: Int = 1,
        crop: EditCatCrop? = nil, leftOut: [String] = [], notes: [String] = []
    ) {
        self.notes = notes
        self.width = width
        self.height = height
        self.streamed = streamed
        self.frames = frames
        self.inputFrames = inputFrames
        self.inputPages = inputPages
        self.crop = crop
        self.leftOut = leftOut
    }

    public var megapixels: Double { Double(width * height * frames) / 1_000_000 }
}

/// The edit itself: what both Edit Cat scenes run to write a file (`catctl edit`, and a
/// save in the live editor).
public protocol EditCatUseCase: Sendable {
    /// The edit: checks that `output` can be created, reads the input once, runs the
    /// chain and saves — a strip at a time when the chain and the file allow it, the
    /// whole image otherwise; the caller cannot tell but by `EditOutcome.streamed`.
    /// `events` hears what happens, in order.
    func edit(
        _ input: EditInput, to output: String, chain: FilterChain, options: EditOptions,
        events: @escaping @Sendable (EditEvent) -> Void
    ) async throws -> EditOutcome
}

/// The one-shot Edit Cat use cases: the edit, and `edit --gallery`'s steps.
public protocol EditCatInteractorInput: EditCatUseCase {
    /// `edit --gallery`: fails early when `output` could not be written (folder missing, is the input).
    func prepareOutput(_ output: String, input: String?, force: Bool) async throws
    func loadImage(from input: String, options: DecodeOptions) async throws -> DecodedImage
    /// One contact sheet: every chain applied to a thumbnail of `image`, labelled; and a
    /// smaller preview of each tile, `previewWidth` pixels wide, when asked for.
    func makeContactSheet(of image: PixelBuffer, chains: [FilterChain], previewWidth: Int?) async throws -> ContactSheet
    func save(_ image: PixelBuffer, to output: String, options: EncodeOptions) async throws
}

/// The real interactor: files, the codecs and the filter core, off the main actor.
public struct EditCatInteractor: EditCatInteractorInput {
    /// Threads for the filters.
    public let threads: Int

    public init(threads: Int = CPUs.available) {
        self.threads = threads
    }

    /// Shares of the whole-image path's progress: decoding, then filtering, then encoding.
    static let decodeShare = 0.4, filterShare = 0.2

    /// How an edit of a file runs, chosen once its reader is open.
    enum Plan {
        /// Every frame through the chain, for an output format that animates.
        case animation
        /// A strip at a time, from the reader through the chain to the encoder; a crop or
        /// caption that reads the picture is placed meanwhile from a small copy (`placing`).
        case stream(placing: StreamingPipeline.Placing?)
        /// Decoded whole, then filtered, then written (placed from the copy when there is one).
        case whole(placing: StreamingPipeline.Placing?)
    }

    /// The input open, before any pixel is decoded.
    struct Opened {
        let reader: ImageReader
        let source: ImageSource, name: String
        /// The input's size upright (its EXIF orientation applied).
        let upright: (width: Int, height: Int)
        let decode: DecodeOptions
    }

    @concurrent
    public func edit(
        _ input: EditInput, to output: String, chain: FilterChain, options: EditOptions,
        events: @escaping @Sendable (EditEvent) -> Void
    ) async throws -> EditOutcome {
        // A format without transparency gets the cut-outs on white (EditRun says so).
        let chain = options.encode.format.keepsAlpha ? chain : chain.flatteningAlpha()
        // The output, resolved and checked once, before any work; written at the end.
        let target = try OutputFile.prepare(
            output, input: input.path, force: input.path != nil && options.force, within: options.outputFolder)
        let progress = ProgressReporter(events)
        guard let opened = try Self.open(input, chain: chain, options: options) else {
            guard case let .image(decoded) = input else { preconditionFailure() }
            let image = decoded.pixels
            events(.opened(format: decoded.format, width: image.width, height: image.height))
            try Self.checkResult(chain, width: image.width, height: image.height, options: options)
            return try filterWhole(
                image, metadata: decoded.metadata, chain: chain,
                window: Self.window(chain, width: image.width, height: image.height), to: target, options: options,
                progress: progress)
        }
        let reader = opened.reader, upright = opened.upright
        events(.opened(format: reader.format, width: upright.width, height: upright.height))
        // An output that holds one frame takes the first, decoded alone as a still (as
        // detect reads it): 10,000 frames of JPEG XL were all decoded and kept for a PNG.
        let animates = reader.frameCount > 1 && options.encode.format.animates
        try Self.checkResult(
            chain, width: upright.width, height: upright.height, frames: animates ? reader.frameCount : 1,
            options: options)
        var shrunk = chain
        switch plan(opened, chain: &shrunk, animates: animates, options: options) {
        case .animation:
            return try editAnimation(reader, to: target, chain: chain, options: options, progress: progress)
        case let .stream(placing):
            let placed = { () throws in try Self.placed(shrunk, original: chain, placing, upright: upright) }
            return try editStreaming(
                opened, chain: shrunk, placing: placing, placed: placed, to: target, options: options,
                progress: progress)
        case let .whole(placing):
            // Placed once the image is decoded: the copy is read meanwhile.
            let placed = { () throws in try Self.placed(shrunk, original: chain, placing, upright: upright) }
            return try editWhole(opened, placed: placed, to: target, options: options, progress: progress)
        }
    }

    /// Opens a file's or bytes' reader, with shrink-on-load (the decoder asks the chain for
    /// its scale before it starts); nil for an image decoded already.
    static func open(_ input: EditInput, chain: FilterChain, options: EditOptions) throws -> Opened? {
        let source: ImageSource, name: String
        switch input {
        case let .file(path):
            (source, name) = (try ImageSource.open(path, special: options.specialFiles), path == "-" ? "(stdin)" : path)
        case let .bytes(data, label):
            (source, name) = (ImageSource(bytes: data), label)
        case .image:
            return nil
        }
        var decode = DecodeOptions(maxPixels: options.maxPixels, maxFrames: options.maxFrames)
        decode.shrinkOnLoad = { width, height in chain.shrinkOnLoad(width: width, height: height)?.denominator ?? 1 }
        let reader = try ImageReader(source: source, name: name, options: decode)
        let swaps = reader.orientation >= 5
        return Opened(
            reader: reader, source: source, name: name,
            upright: (swaps ? reader.fullHeight : reader.fullWidth, swaps ? reader.fullWidth : reader.fullHeight),
            decode: decode)
    }

    /// How the edit runs. Starts the placing copy when the chain reads the picture: a crop or
    /// caption that reads it is placed on a thread of its own from a copy by JPEG's DCT
    /// scaling (cheap), the smallest still as long as the picture gravities look at, while
    /// the full image decodes (and streams up to that stage). `chain` becomes the one for the
    /// reader's size (shrunk on load).
    func plan(_ opened: Opened, chain: inout FilterChain, animates: Bool, options: EditOptions) -> Plan {
        if animates { return .animation }
        let reader = opened.reader, upright = opened.upright
        var placing: StreamingPipeline.Placing?
        if chain.asksSubjects { CatFinder.prepare() }
        if chain.readsPicture, reader.format.shrinksOnLoad {
            var small = DecodeOptions(maxPixels: options.maxPixels, maxFrames: options.maxFrames)
            small.scaleDenominator = DecodeOptions.denominator(
                longSide: max(upright.width, upright.height),
                keeping: chain.pictureCopySide(width: upright.width, height: upright.height))
            let (full, copyOptions, source, name) = (chain, small, opened.source, opened.name)
            let pending = Pending { () throws -> FilterChain in
                let copy = try ImageDecoder.decode(
                    ImageReader(source: source, name: name, options: copyOptions), options: copyOptions)
                return try full.resolvingGravity(picture: copy.pixels, width: upright.width, height: upright.height)
            }
            placing = StreamingPipeline.Placing(chain: chain, pending: pending)
        }
        if reader.width != reader.fullWidth,
            let shrunk = chain.shrinkOnLoad(width: upright.width, height: upright.height)
        {
            chain = shrunk.chain
        }
        if reader.canStream, StreamingPipeline.canStream(chain), !chain.readsPicture || placing != nil {
            return .stream(placing: placing.map { .init(chain: chain, pending: $0.pending) })
        }
        return .whole(placing: placing)
    }

    /// The placed chain once the copy has placed it, and where its crop is in the upright
    /// input (with no copy, the chain itself and the compass window of the chain before a
    /// shrink-on-load, `original`).
    static func placed(
        _ chain: FilterChain, original: FilterChain, _ placing: StreamingPipeline.Placing?,
        upright: (width: Int, height: Int)
    ) throws -> (FilterChain, EditCatCrop?) {
        guard let placing else { return (chain, window(original, width: upright.width, height: upright.height)) }
        let resolved = try placing.pending.wait().get()
        return (chain.placing(from: resolved), window(resolved, width: upright.width, height: upright.height))
    }

    /// Decode, filter and encode a strip at a time.
    private func editStreaming(
        _ opened: Opened, chain: FilterChain, placing: StreamingPipeline.Placing?,
        placed: () throws -> (FilterChain, EditCatCrop?), to target: PreparedOutput, options: EditOptions,
        progress: ProgressReporter
    ) throws -> EditOutcome {
        let reader = opened.reader
        let size = try chain.outputSize(width: reader.width, height: reader.height)
        do {
            try ImageFile.stream(
                to: target, width: size.width, height: size.height, hasAlpha: reader.hasAlpha || chain.mayMakeAlpha,
                metadata: reader.metadata, options: options.encode
            ) { (writer: ImageWriter) in
                try StreamingPipeline.run(
                    source: reader, sink: writer, chain: chain, placing: placing, progress: progress.report)
            }
        } catch {
            // The copy failed (its error is the one to report), which stopped the line.
            if let failure = placing?.pending.failure { throw failure }
            throw error
        }
        let (resolved, window) = try placed()
        return EditOutcome(
            width: size.width, height: size.height, streamed: true, inputFrames: reader.frameCount,
            inputPages: reader.pageCount, crop: window, leftOut: reader.metadata.leftOut,
            notes: Self.placedNotes(resolved, chain))
    }

    /// Decode the whole image, then filter it through the chain `placed` gives and write it.
    private func editWhole(
        _ opened: Opened, placed: () throws -> (FilterChain, EditCatCrop?), to target: PreparedOutput,
        options: EditOptions, progress: ProgressReporter
    ) throws -> EditOutcome {
        var decode = opened.decode
        decode.shrinkOnLoad = nil  // the reader has its scale already
        let decoded = try ImageDecoder.decode(opened.reader, options: decode) {
            progress.report(Self.decodeShare * $0)
        }
        let (chain, window) = try placed()
        return try filterWhole(
            decoded.pixels, metadata: decoded.metadata, chain: chain, window: window, to: target, options: options,
            progress: progress, inputFrames: opened.reader.frameCount, inputPages: opened.reader.pageCount)
    }

    /// A whole image through the chain (placed on the image itself when it still reads the
    /// picture), then written.
    private func filterWhole(
        _ image: PixelBuffer, metadata: ImageMetadata, chain: FilterChain, window: EditCatCrop?,
        to target: PreparedOutput, options: EditOptions, progress: ProgressReporter, inputFrames: Int = 1,
        inputPages: Int = 1
    ) throws -> EditOutcome {
        var chain = chain, window = window
        let unplaced = chain
        if chain.readsPicture {
            chain = try chain.resolvingGravity(picture: image, width: image.width, height: image.height)
            window = Self.window(chain, width: image.width, height: image.height)
        }
        let filtered = try chain.apply(to: image, threads: threads)
        progress.report(Self.decodeShare + Self.filterShare)
        try ImageFile.write(.image(filtered, metadata: metadata), to: target, options: options.encode) {
            progress.report(Self.decodeShare + Self.filterShare + (1 - Self.decodeShare - Self.filterShare) * $0)
        }
        return EditOutcome(
            width: filtered.width, height: filtered.height, streamed: false, inputFrames: inputFrames,
            inputPages: inputPages, crop: window, leftOut: metadata.leftOut, notes: Self.placedNotes(chain, unplaced))
    }

    /// What the placed chain says that the chain before did not (a cat filter found no cat).
    static func placedNotes(_ placed: FilterChain, _ before: FilterChain) -> [String] {
        let said = Set(before.notices)
        return placed.notices.filter { !said.contains($0) }
    }

    /// Where the chain's gravity placed its crop, in the pixels of its input.
    static func window(_ chain: FilterChain, width: Int, height: Int) -> EditCatCrop? {
        chain.gravityWindow(width: width, height: height).map(EditCatCrop.init)
    }

    /// Every frame through the chain (several frames at once), then every frame written
    /// when the output format animates, else the first.
    private func editAnimation(
        _ reader: ImageReader, to target: PreparedOutput, chain: FilterChain, options: EditOptions,
        progress: ProgressReporter
    ) throws -> EditOutcome {
        var animation = try reader.readAnimation()
        progress.report(Self.decodeShare)
        // One window for every frame, chosen on the first.
        let unplaced = chain
        var chain = chain, window: EditCatCrop?
        if let first = animation.frames.first {
            chain = try chain.resolvingGravity(picture: first, width: first.width, height: first.height)
            window = Self.window(chain, width: first.width, height: first.height)
        }
        let count = Double(animation.frames.count)
        if unplaced.masksCats {
            // Cats move: each frame gets its own mask (a frame at a time: the mask's network
            // uses the cores), the rest of the chain placed as on the first.
            // A note every frame has (no cat in any).
            var notes = Self.placedNotes(chain, unplaced)
            for (i, frame) in animation.frames.enumerated() where i > 0 {
                let own = try unplaced.resolvingGravity(picture: frame, width: frame.width, height: frame.height)
                animation.frames[i] = try chain.placing(masksFrom: own).apply(to: frame, threads: threads)
                let said = Self.placedNotes(own, unplaced)
                notes = notes.filter { said.contains($0) }
                progress.report(Self.decodeShare + Self.filterShare * Double(i + 1) / count)
            }
            if let first = animation.frames.first { animation.frames[0] = try chain.apply(to: first, threads: threads) }
            let written = try ImageFile.write(.animation(animation), to: target, options: options.encode)
            progress.report(1)
            return EditOutcome(
                width: animation.width, height: animation.height, streamed: false, frames: written,
                inputFrames: animation.frames.count, crop: window, leftOut: animation.metadata.leftOut, notes: notes)
        }
        let done = LockedValue(progress)  // frames are filtered on several threads
        animation.frames = try chain.apply(toFrames: animation.frames, threads: threads) { frames in
            done.withLockedValue { $0.report(Self.decodeShare + Self.filterShare * Double(frames) / count) }
        }
        let written = try ImageFile.write(.animation(animation), to: target, options: options.encode)
        progress.report(1)
        return EditOutcome(
            width: animation.width, height: animation.height, streamed: false, frames: written,
            inputFrames: animation.frames.count, crop: window, leftOut: animation.metadata.leftOut,
            notes: Self.placedNotes(chain, unplaced))
    }

    @concurrent
    public func prepareOutput(_ output: String, input: String?, force: Bool) async throws {
        try OutputFile.checkCreatable(output, input: input, force: force)
    }

    @concurrent
    public func loadImage(from input: String, options: DecodeOptions) async throws -> DecodedImage {
        let bytes = try InputFile.read(input)
        return try ImageDecoder.decode(bytes, name: input == "-" ? "(stdin)" : input, options: options)
    }

    @concurrent
    public func makeContactSheet(of image: PixelBuffer, chains: [FilterChain], previewWidth: Int?) async throws
        -> ContactSheet
    {
        try ContactSheet.make(of: image, chains: chains, previewWidth: previewWidth, threads: threads)
    }

    @concurrent
    public func save(_ image: PixelBuffer, to output: String, options: EncodeOptions) async throws {
        try ImageFile.write(.image(image, metadata: .none), to: output, options: options)
    }

    /// Refuses, before any pixel memory is allocated, a chain that cannot apply to this
    /// size (a crop outside the image: usage), whose result (every frame) is over the pixel
    /// limit or has a side over `PixelError.maxSide`, or that would mask more frames than
    /// the cat filters do.
    static func checkResult(
        _ chain: FilterChain, width: Int, height: Int, frames: Int = 1, options: EditOptions
    ) throws {
        // The cat filters mask each frame of an animation: their work is bounded too.
        if chain.masksCats && frames > FilterChain.maxMaskedFrames {
            throw FilterError.tooManyFramesToMask(frames: frames, limit: FilterChain.maxMaskedFrames)
        }
        let sizes = try chain.sizes(width: width, height: height)
        let (all, overflow) = sizes.largestPixels.multipliedReportingOverflow(by: frames)
        if overflow || all > options.maxPixels {
            throw PixelError.outputTooLarge(
                width: sizes.largestWidth, height: sizes.largestHeight, limit: options.maxPixels)
        }
        if max(sizes.longest.width, sizes.longest.height) > PixelError.maxSide {
            throw PixelError.outputTooLong(width: sizes.longest.width, height: sizes.longest.height)
        }
    }
}

/// Turns fractions of a job into `progress` events, one per whole percent.
final class ProgressReporter: Sendable {
    private let events: @Sendable (EditEvent) -> Void
    private let percent = LockedValue(-1)

    init(_ events: @escaping @Sendable (EditEvent) -> Void) { self.events = events }

    /// Each whole percent once, from any thread (the edit calls it from one).
    func report(_ fraction: Double) {
        let now = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        guard
            percent.withLockedValue({ (last: inout Int) -> Bool in
                defer { last = max(last, now) }
                return now > last
            })
        else { return }
        events(.progress(percent: now))
    }
}
