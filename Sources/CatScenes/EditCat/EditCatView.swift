import CatImageIO

/// What the Edit Cat scene shows. Views implement this and hold no logic: they render
/// what they are told, in the order they are told (terminal, JSON lines, tests). The
/// events a view may ignore have empty defaults.
@MainActor
public protocol EditCatView: AnyObject {
    func updateProcessingState(_ state: EditCatState)
    /// How far the edit is; sent only for images large enough to be worth it.
    func updateProgress(_ progress: EditCatProgress)
    /// The input: its format and size, before any pixel is filtered.
    func showImageInfo(_ info: EditCatImageInfo)
    /// `edit --gallery`: small versions of every tile of the contact sheet, for the terminal.
    func showGallery(_ gallery: EditCatGallery)
    func showSaved(_ result: EditCatResult)
    func showError(_ failure: SceneFailure)

    // The live editor (`edit --interactive`, Load Cat's `e`).

    /// The presenter this view sends the user's input to (set by the presenter; a view
    /// that takes no input ignores it). Views keep it weakly.
    func attach(_ presenter: EditCatPresenter)
    /// How large the live editor's pictures should be, in pixels: the preview and each
    /// filter's thumbnail. Read when the editor opens and after `resized()`.
    var livePictureSizes: EditCatPictureSizes { get }
    /// The cat through the chain and the highlighted filter, and every filter's thumbnail.
    func showLiveEdit(_ live: EditCatLive)
    /// Asks where to save; the view answers with `EditCatPresenter.save(to:)`.
    func askForOutput(suggested: String)
}

extension EditCatView {
    public func updateProcessingState(_ state: EditCatState) {}
    public func updateProgress(_ progress: EditCatProgress) {}
    public func showImageInfo(_ info: EditCatImageInfo) {}
    public func showGallery(_ gallery: EditCatGallery) {}
    public func attach(_ presenter: EditCatPresenter) {}
    public var livePictureSizes: EditCatPictureSizes { EditCatPictureSizes() }
    public func showLiveEdit(_ live: EditCatLive) {}
    public func askForOutput(suggested: String) {}
}

/// Picture sizes, in pixels, that a live view asks for.
public struct EditCatPictureSizes: Sendable, Equatable {
    public var preview: (width: Int, height: Int)
    public var thumbnail: (width: Int, height: Int)

    public init(preview: (width: Int, height: Int) = (640, 480), thumbnail: (width: Int, height: Int) = (96, 64)) {
        self.preview = (max(1, preview.width), max(1, preview.height))
        self.thumbnail = (max(1, thumbnail.width), max(1, thumbnail.height))
    }

    public static func == (a: EditCatPictureSizes, b: EditCatPictureSizes) -> Bool {
        a.preview == b.preview && a.thumbnail == b.thumbnail
    }
}

/// What the live editor shows after each input.
public struct EditCatLive: @unchecked Sendable, Equatable {
    /// The input's name, format and full (upright) size.
    public let input: String
    public let format: String
    public let width: Int
    public let height: Int
    /// Frames of the input (the preview is the first; a save keeps them all).
    public let frames: Int
    /// The chain so far: what `s` saves.
    public let chain: [String]
    /// Every filter at its current value, in the order of `catctl filters`.
    public let filters: [String]
    public let highlighted: Int
    /// The highlighted filter is tried on the preview (after chain); false right after the
    /// chain changed (Enter, Backspace), when the preview shows the chain alone.
    public let trying: Bool
    /// The cat through chain (+ highlighted filter when `trying`), at preview size.
    public let preview: PixelBuffer
    /// The full-size result of what the preview shows; nil when it does not apply.
    public let outputWidth: Int?
    public let outputHeight: Int?
    /// One thumbnail per filter: the cat through chain + that filter.
    public let thumbnails: [PixelBuffer]
    /// Input to preview ready, in milliseconds (filtering the preview and the thumbnails).
    public let milliseconds: Int
    /// Why the highlighted filter is not shown (a crop larger than the image), or nil.
    public let problem: String?

    public init(
        input: String, format: String, width: Int, height: Int, frames: Int, chain: [String], filters: [String],
        highlighted: Int, trying: Bool = true, preview: PixelBuffer, outputWidth: Int?, outputHeight: Int?,
        thumbnails: [PixelBuffer],
        milliseconds: Int, problem: String?
    ) {
        self.input = input
        self.format = format
        self.width = width
        self.height = height
        self.frames = frames
        self.chain = chain
        self.filters = filters
        self.highlighted = highlighted
        self.trying = trying
        self.preview = preview
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.thumbnails = thumbnails
        self.milliseconds = milliseconds
        self.problem = problem
    }

    /// The highlighted filter's spec.
    public var highlightedSpec: String { filters[highlighted] }

    /// Equal when they say the same (the pictures by identity; not the time taken).
    public static func == (a: EditCatLive, b: EditCatLive) -> Bool {
        a.input == b.input && a.chain == b.chain && a.filters == b.filters && a.highlighted == b.highlighted
            && a.trying == b.trying && a.outputWidth == b.outputWidth && a.outputHeight == b.outputHeight
            && a.problem == b.problem
            && a.preview === b.preview && a.thumbnails.count == b.thumbnails.count
            && zip(a.thumbnails, b.thumbnails).allSatisfy { $0 === $1 }
    }
}

public struct EditCatGallery: @unchecked Sendable, Equatable {
    /// The filter spec of each tile, in the order of `catctl filters`.
    public let specs: [String]
    /// One small picture per tile (may be empty when no preview was asked for).
    public let tiles: [PixelBuffer]
    public let columns: Int
    /// Pixels across per terminal column (and twice as many down per row).
    public let pixelsPerColumn: Int

    public init(specs: [String], tiles: [PixelBuffer], columns: Int, pixelsPerColumn: Int = 1) {
        self.specs = specs
        self.tiles = tiles
        self.columns = columns
        self.pixelsPerColumn = pixelsPerColumn
    }

    public static func == (a: EditCatGallery, b: EditCatGallery) -> Bool {
        a.specs == b.specs && a.columns == b.columns && a.pixelsPerColumn == b.pixelsPerColumn
            && a.tiles.count == b.tiles.count
            && zip(a.tiles, b.tiles).allSatisfy { $0 === $1 }
    }
}

public enum EditCatState: Equatable, Sendable {
    case processing
    case done
    case failed
}

public struct EditCatProgress: Equatable, Sendable {
    /// 0–100, rising.
    public let percent: Int
    /// What is being done: "12.2 MP, sepia → out.png".
    public let label: String

    public init(percent: Int, label: String) {
        self.percent = percent
        self.label = label
    }
}

public struct EditCatImageInfo: Equatable, Sendable {
    public let input: String
    /// The input format's name (`ImageFormat.name`): "jpeg", "png".
    public let format: String
    public let width: Int
    public let height: Int

    public init(input: String, format: String, width: Int, height: Int) {
        self.input = input
        self.format = format
        self.width = width
        self.height = height
    }
}

public struct EditCatResult: Equatable, Sendable {
    public let input: String
    public let output: String
    public let width: Int
    public let height: Int
    public let filters: [String]
    public let milliseconds: Int
    /// A contact sheet of `filters` side by side, not a chain of them.
    public let isGallery: Bool
    /// Frames written; fewer than `inputFrames` when the output format holds one frame.
    public let frames: Int
    public let inputFrames: Int

    public init(
        input: String, output: String, width: Int, height: Int, filters: [String], milliseconds: Int,
        isGallery: Bool = false, frames: Int = 1, inputFrames: Int = 1
    ) {
        self.frames = frames
        self.inputFrames = inputFrames
        self.input = input
        self.output = output
        self.width = width
        self.height = height
        self.filters = filters
        self.milliseconds = milliseconds
        self.isGallery = isGallery
    }
}
