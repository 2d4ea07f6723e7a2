import ImageIO

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
}

extension EditCatView {
    public func updateProcessingState(_ state: EditCatState) {}
    public func updateProgress(_ progress: EditCatProgress) {}
    public func showImageInfo(_ info: EditCatImageInfo) {}
    public func showGallery(_ gallery: EditCatGallery) {}
}

public struct EditCatGallery: @unchecked Sendable, Equatable {
    /// The filter spec of each tile, in the order of `catctl filters`.
    public let specs: [String]
    /// One small picture per tile (may be empty when no preview was asked for).
    public let tiles: [PixelBuffer]
    public let columns: Int

    public init(specs: [String], tiles: [PixelBuffer], columns: Int) {
        self.specs = specs
        self.tiles = tiles
        self.columns = columns
    }

    public static func == (a: EditCatGallery, b: EditCatGallery) -> Bool {
        a.specs == b.specs && a.columns == b.columns && a.tiles.count == b.tiles.count
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
