import CatPixels

/// A stage whose output pixels depend on their neighbours or their position (blur,
/// sharpen, vignette) or that moves pixels around (resize, crop, rotate, flip). It
/// declares what it needs; the whole-image executor (`Executor`) and the streaming
/// pipeline (`StreamingPipeline`) both drive it, so a new spatial filter is its filter
/// file plus its kernel — after libvips, where an operation says what it needs and the
/// framework feeds it strips.
public protocol SpatialStage: Sendable {
    /// Input rows each output row needs above and below it (blur: its radius; vignette: 0),
    /// for stages that keep the size; see `inputRows`.
    var halo: Int { get }
    /// Leaves every pixel as it is (a blur narrower than a pixel): executors skip it.
    var isIdentity: Bool { get }
    /// Output row y is computed from input row y alone and may overwrite it (vignette, flop).
    var inPlace: Bool { get }
    /// Output rows come out top to bottom from input rows arriving top to bottom. False
    /// for a stage that needs rows from the far end first (flip, rotate): it takes the
    /// whole-image path.
    var streams: Bool { get }
    /// Throws a usage error when the stage cannot apply to an image of this size (a crop
    /// outside it). Checked before any pixel memory is allocated.
    func check(width: Int, height: Int) throws(FilterError)
    /// The output size for an input of `width` × `height`.
    func outputSize(width: Int, height: Int) -> (width: Int, height: Int)
    /// The input rows that output `rows` are made from (for a streaming stage).
    func inputRows(forOutput rows: Range<Int>, width: Int, height: Int) -> Range<Int>
    /// What one thread needs to run the stage on an input of this size (weights, tables,
    /// scratch memory); throws when the memory cannot be had.
    func makeKernel(width: Int, height: Int) throws(FilterError) -> any SpatialKernel
    /// The scalar reference the kernel is tested against: the whole image, `src` → `dst`
    /// (never the same buffer; `dst` has the output size).
    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(FilterError)
    /// What the user should know before the work (a caption character no font has).
    var notices: [String] { get }
    /// The same stage for a copy of the image `factor` times the size (a preview): values
    /// in pixels (a blur's sigma, a resize's target, a crop's rectangle) scale with it, so
    /// the preview looks as the full-size result will. Stages without such values return
    /// themselves.
    func scaled(by factor: Double) -> any SpatialStage
}

extension SpatialStage {
    public var notices: [String] { [] }
    public var halo: Int { 0 }
    public var isIdentity: Bool { false }
    public var inPlace: Bool { false }
    public var streams: Bool { true }
    public func scaled(by factor: Double) -> any SpatialStage { self }
    public func check(width: Int, height: Int) throws(FilterError) {}
    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) { (width, height) }
    public func inputRows(forOutput rows: Range<Int>, width: Int, height: Int) -> Range<Int> {
        max(0, rows.lowerBound - halo)..<min(height, rows.upperBound + halo)
    }

    /// A size in pixels `factor` times as large, at least 1.
    static func scale(_ pixels: Int, _ factor: Double) -> Int { max(1, Int((Double(pixels) * factor).rounded())) }

    /// Whether the output is another size than the input.
}

/// A spatial stage ready to run on one thread.
public protocol SpatialKernel: AnyObject {
    /// Computes output rows `rows` (output coordinates). `source` holds input rows from
    /// `sourceRow` on — at least `inputRows(forOutput: rows)` — and `destination` receives
    /// the output rows from `destinationRow` on. For an in-place stage `destination` may be
    /// `source`.
    func run(
        _ rows: Range<Int>, from source: PixelBuffer, firstRow sourceRow: Int,
        into destination: PixelBuffer, firstRow destinationRow: Int) throws(FilterError)
}

/// A stage whose output is a rectangle of its input, pixel for pixel (a crop): the
/// streaming pipeline hands on views of the rows it gets, copying nothing.
protocol RectangleStage: SpatialStage {
    /// The rectangle kept of an image of `width` x `height`.
    func box(width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int)
}
