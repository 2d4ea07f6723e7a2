import CatImageIO
import CatPixels

/// What the one-shot Edit Cat scene shows (`catctl edit`, `load --filter`). Views
/// implement every event and hold no logic: they render what they are told, in the order
/// they are told (terminal, JSON lines, tests). The live editor has a protocol of its own
/// (`EditCatLiveView`).
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

public struct EditCatGallery: Sendable, Equatable {
    /// The filter spec of each tile, in the order of `catctl filters`.
    public let specs: [String]
    /// One small picture per tile (may be empty when no preview was asked for).
    public let tiles: [PixelBuffer]
    public let columns: Int
    /// Pixels across per terminal column (and twice as many down per row).
    public let pixelsPerColumn: Int
    /// The tiles as the terminal shows them: a picture per row of the sheet, its tiles side
    /// by side (`ContactSheet.row`), with each tile's spec and width in terminal columns.
    public let rows: [Row]

    public struct Row: Sendable {
        public let picture: PixelBuffer
        public let specs: [String]
        public let cells: [Int]
    }

    public init(specs: [String], tiles: [PixelBuffer], columns: Int, pixelsPerColumn: Int = 1) throws(ImageIOError) {
        self.specs = specs
        self.tiles = tiles
        self.columns = columns
        self.pixelsPerColumn = pixelsPerColumn
        var rows: [Row] = []
        for start in stride(from: 0, to: tiles.count, by: max(1, columns)) {
            let range = start..<min(start + max(1, columns), tiles.count)
            rows.append(
                Row(
                    picture: try ContactSheet.row(Array(tiles[range]), cellWidth: pixelsPerColumn),
                    specs: Array(specs[range]),
                    cells: tiles[range].map { ($0.width + pixelsPerColumn - 1) / pixelsPerColumn }))
        }
        self.rows = rows
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
    /// What the user should know about the result (the frames or pages it left out), in
    /// words; views print them as they are (neutralised: they hold file names).
    public let notes: [String]
    /// The window a gravity chose for a crop, in the input's pixels.
    public let crop: EditCatCrop?

    public init(
        input: String, output: String, width: Int, height: Int, filters: [String], milliseconds: Int,
        isGallery: Bool = false, frames: Int = 1, inputFrames: Int = 1, notes: [String] = [], crop: EditCatCrop? = nil
    ) {
        self.frames = frames
        self.inputFrames = inputFrames
        self.notes = notes
        self.crop = crop
        self.input = input
        self.output = output
        self.width = width
        self.height = height
        self.filters = filters
        self.milliseconds = milliseconds
        self.isGallery = isGallery
    }
}

/// A crop's window in the input's pixels (`crop:WxH:GRAVITY`, `cover:WxH:GRAVITY`).
public struct EditCatCrop: Equatable, Sendable {
    public let x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
}
