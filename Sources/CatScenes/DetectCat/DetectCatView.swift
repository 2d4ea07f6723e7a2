import CatFaces
import CatModels

/// What `catctl detect` found in one image: its size (upright), the cats (each with its
/// face when one was found in its box) and every cat face, in its pixels.
public struct CatDetection: Equatable, Sendable {
    public let input: String
    public let width: Int, height: Int
    public let cats: [FoundCat]
    public let faces: [CatFace]
    /// With `--mask`: each cat's part of the mask, in the order of `cats` (the first
    /// `CatSegmenter.maxCats`), nil where the network saw none; nil without `--mask`.
    public let masks: [CatMask.Region?]?

    public init(
        input: String, width: Int, height: Int, cats: [FoundCat], faces: [CatFace], masks: [CatMask.Region?]? = nil
    ) {
        self.input = input
        self.width = width
        self.height = height
        self.cats = cats
        self.faces = faces
        self.masks = masks
    }
}

/// The Detect Cat scene's Passive View: one call per image, in the order given.
@MainActor
public protocol DetectCatView: AnyObject {
    func showDetection(_ detection: CatDetection)
    /// This image could not be read; the others still are.
    func showError(_ failure: SceneFailure, input: String)
}

/// `catctl detect`: the inputs, the decoding limits, and where to write the cats' mask
/// (`--mask`, one input).
public struct DetectRequest: Sendable {
    public let inputs: [String]
    public let maxPixels: Int
    public let maxFrames: Int
    public let mask: String?

    public init(inputs: [String], maxPixels: Int, maxFrames: Int, mask: String? = nil) {
        self.inputs = inputs
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
        self.mask = mask
    }
}
