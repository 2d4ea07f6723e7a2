import ImageIO

/// A stage whose output pixels depend on their neighbours or their position (blur,
/// sharpen, vignette; later resize and rotate). It declares what it needs; the
/// whole-image executor (`Executor`) and the streaming pipeline (`StreamingPipeline`)
/// both drive it, so a new spatial filter is its filter file plus its kernel — after
/// libvips, where an operation says what it needs and the framework feeds it strips.
public protocol SpatialStage: Sendable {
    /// Input rows each output row needs above and below it (blur: its radius; vignette: 0).
    /// A stage with no halo runs in place, on the rows it is given.
    var halo: Int { get }
    /// Leaves every pixel as it is (a blur narrower than a pixel): executors skip it.
    var isIdentity: Bool { get }
    /// Whether the output differs in size from the input (resize, rotate): such a stage
    /// takes the whole-image path.
    var changesSize: Bool { get }
    /// The output size for an input of `width` × `height` (the same, unless it changes the size).
    func outputSize(width: Int, height: Int) -> (width: Int, height: Int)
    /// What one thread needs to run the stage on an image of this size (weights, tables,
    /// scratch memory); throws when the memory cannot be had.
    func makeKernel(width: Int, height: Int) throws(ImageIOError) -> any SpatialKernel
    /// The scalar reference the kernel is tested against: the whole image, `src` → `dst`
    /// (never the same buffer).
    func reference(from src: PixelBuffer, into dst: PixelBuffer) throws(ImageIOError)
}

extension SpatialStage {
    public var isIdentity: Bool { false }
    public var changesSize: Bool { false }
    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) { (width, height) }
}

/// A spatial stage ready to run on one thread.
public protocol SpatialKernel: AnyObject {
    /// Computes output rows `rows` (image coordinates). `source` holds input rows from
    /// `sourceRow` on — every row of `rows` widened by the halo that lies in the image —
    /// and `destination` receives them from `destinationRow` on. With no halo,
    /// `destination` may be `source`.
    func run(
        _ rows: Range<Int>, from source: PixelBuffer, firstRow sourceRow: Int,
        into destination: PixelBuffer, firstRow destinationRow: Int)
}
