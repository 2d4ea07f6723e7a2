import CatFaces
import CatImageIO
import CatPixels
import FilterCore

/// What the live Edit Cat scene shows (`catctl edit --interactive`, `e` in the live Load
/// Cat scene). Views implement every event and hold no logic: they draw what they are
/// told and send the user's input to the presenter.
@MainActor
public protocol EditCatLiveView: AnyObject {
    /// Where this view sends the user's input (set by the presenter, which means a new cat:
    /// nothing of the one before stays). Views keep it weakly.
    func attach(_ presenter: any EditCatLiveViewOutput)
    /// How large the pictures should be, in pixels: the preview and each filter's
    /// thumbnail. Read when the editor opens and after `resized()`.
    var livePictureSizes: EditCatPictureSizes { get }
    func updateState(_ state: EditCatLiveState)
    /// The input: its name, format and size (the title).
    func showImageInfo(_ info: EditCatImageInfo)
    /// The cat through the chain and the highlighted filter, and every filter's thumbnail.
    func showLiveEdit(_ live: EditCatLive)
    /// How far a save is; sent only for images large enough to be worth it.
    func updateProgress(_ progress: EditCatProgress)
    func showSaved(_ result: EditCatResult)
    /// A failure, or an input refused (a chain the image cannot take); the editor stays.
    func showError(_ failure: SceneFailure)
    /// Asks where to save; the view answers with `EditCatLiveViewOutput.save(to:)`.
    func askForOutput(suggested: String)
    /// A frame of an animation playing, through what the preview shows: drawn in the
    /// preview's place until the next (`showLiveEdit`'s still preview is its first frame).
    func showFrame(_ frame: EditCatLiveFrame)
    /// `q` with changes not saved: the view says so (another `q` quits, `s` saves).
    func askBeforeQuitting()
    /// The user is done: the view ends the app.
    func quit()
}

/// What the live Edit Cat view sends its presenter: the user's inputs, each one a
/// presenter decides on. The view holds this, weakly, and nothing else of the scene.
@MainActor
public protocol EditCatLiveViewOutput: AnyObject {
    /// A click or a move: the filter at `index` of the palette.
    func highlight(at index: Int) async
    func moveHighlight(by delta: Int) async
    func changeValue(by steps: Int) async
    func addHighlighted() async
    func removeLast() async
    /// `u` / `U`: undo the last change, redo the last undone.
    func undo() async
    func redo() async
    func toggleFaces() async
    /// `q`: quits, or asks first when there are unsaved changes.
    func requestQuit() async
    /// `space`: the original instead of the chain, or back.
    func toggleOriginal() async
    /// `c`: the next crop shape; arrows move its frame, Enter applies it, Esc drops it.
    func cycleCrop() async
    func nudgeCrop(x: Int, y: Int) async
    func applyCrop() async
    func cancelCrop() async
    /// `t`: a caption is typed; each change of its text, then Enter (kept) or Esc (dropped).
    func startCaption() async
    func typeCaption(_ text: String) async
    func keepCaption(_ text: String) async
    func dropCaption() async
    /// `p`: pauses an animation, or plays it again.
    func togglePlaying() async
    /// `z`: 1:1 pixels of the full-size result, or back; arrows pan.
    func toggleZoom() async
    func pan(x: Int, y: Int) async
    /// The screen changed size: new pictures for the new sizes.
    func resized() async
    /// `s`: asks the view where to save (`askForOutput`).
    func requestSave() async
    /// The view's answer: saves the chain at full size at `output`.
    @discardableResult func save(to output: String) async -> ExitStatus
    /// There is a scene to go back to (the view shows Esc for it).
    var canGoBack: Bool { get }
    /// Esc: back to the scene the editor was opened from, when there is one.
    func goBack()
}

/// Where the live Edit Cat scene leads: back to the scene it was opened from (the live
/// Load Cat scene's router); none when `edit -i` opened it.
@MainActor
public protocol EditCatLiveRouting: AnyObject {
    func closeEditScene()
}

/// What the live editor is doing.
public enum EditCatLiveState: Equatable, Sendable {
    /// Decoding the cat and making the first preview.
    case opening
    /// Saving the chain at full size (`s`).
    case saving
    /// Waiting for the user.
    case ready
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
public struct EditCatLive: Sendable, Equatable {
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
    /// The cats and faces found on `preview`, in its pixels, to outline on it; nil: not asked for.
    public let found: CatFinding?
    /// What the chain shown says (a caption character no installed font has), else what the
    /// last undo or redo did ("undid: add sepia:1"), until the next change; or nil.
    public let note: String?
    /// `preview` is the original, untouched (`space`).
    public let original: Bool
    /// The crop frame being placed, or nil.
    public let crop: EditCatLiveCrop?
    /// The caption being typed (foreign text: neutralise before showing), or nil.
    public let caption: String?
    /// `preview` is this window of the full-size result at 1:1, or nil.
    public let zoom: EditCatLiveZoom?
    /// An animation plays (true) or is paused (false); nil: a still image.
    public let playing: Bool?

    public init(
        input: String, format: String, width: Int, height: Int, frames: Int, chain: [String], filters: [String],
        highlighted: Int, trying: Bool = true, preview: PixelBuffer, outputWidth: Int?, outputHeight: Int?,
        thumbnails: [PixelBuffer],
        milliseconds: Int, problem: String?, found: CatFinding? = nil, note: String? = nil, original: Bool = false,
        crop: EditCatLiveCrop? = nil, caption: String? = nil, zoom: EditCatLiveZoom? = nil, playing: Bool? = nil
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
        self.found = found
        self.note = note
        self.original = original
        self.crop = crop
        self.caption = caption
        self.zoom = zoom
        self.playing = playing
    }

    /// The most characters a caption typed with `t` may have (`caption`'s own limit).
    public static var captionLimit: Int { FilterDefinition.captionLimit }

    /// The preview is a still picture (the crop frame, the zoom, the original): an
    /// animation's frames do not take its place.
    public var showsStill: Bool { crop != nil || zoom != nil || original }

    /// The highlighted filter's spec.
    public var highlightedSpec: String { filters[highlighted] }

    /// Equal when they say the same (the pictures by identity; not the time taken).
    public static func == (a: EditCatLive, b: EditCatLive) -> Bool {
        a.input == b.input && a.chain == b.chain && a.filters == b.filters && a.highlighted == b.highlighted
            && a.trying == b.trying && a.outputWidth == b.outputWidth && a.outputHeight == b.outputHeight
            && a.problem == b.problem && a.found == b.found && a.note == b.note && a.original == b.original
            && a.crop == b.crop && a.caption == b.caption && a.zoom == b.zoom && a.playing == b.playing
            && a.preview === b.preview && a.thumbnails.count == b.thumbnails.count
            && zip(a.thumbnails, b.thumbnails).allSatisfy { $0 === $1 }
    }
}

/// The crop frame being placed (`c`): its shape ("4:5"), its window on the chain's
/// full-size result (what `crop:WxH+X+Y` a save adds), and the same on the preview.
public struct EditCatLiveCrop: Sendable, Equatable {
    public let shape: String
    public let x: Int, y: Int, width: Int, height: Int
    public let frame: ScoredRegion

    public init(shape: String, x: Int, y: Int, width: Int, height: Int, frame: ScoredRegion) {
        (self.shape, self.x, self.y, self.width, self.height, self.frame) = (shape, x, y, width, height, frame)
    }

    public var spec: String { "crop:\(width)x\(height)+\(x)+\(y)" }
}

/// The window of the full-size result shown at 1:1 (`z`), and that result's size.
public struct EditCatLiveZoom: Sendable, Equatable {
    public let x: Int, y: Int, width: Int, height: Int
    public let fullWidth: Int, fullHeight: Int

    public init(x: Int, y: Int, width: Int, height: Int, fullWidth: Int, fullHeight: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
        (self.fullWidth, self.fullHeight) = (fullWidth, fullHeight)
    }
}

/// A frame of an animation playing in the live editor (`showFrame`).
public struct EditCatLiveFrame: Sendable {
    public let picture: PixelBuffer
    /// Its place in the loop (from 0), of `count`.
    public let index: Int, count: Int

    public init(picture: PixelBuffer, index: Int, count: Int) {
        (self.picture, self.index, self.count) = (picture, index, count)
    }
}
